//! `why launch THREADS [BLOCKS_PER_SM]`: can a block of that size launch with the
//! registers the function was allocated, and if not, the largest block that can and the
//! `--maxrregcount` that would make the requested one fit (model in `why::occupancy`).
//!
//! Reads the finished run's `-v` register count; must not know about the allocator.

use serde::Serialize;

use crate::why::occupancy::{self, REGS_PER_BLOCK};
use crate::why::{Answer, Ctx, Explanation, Facts};

/// `why launch` as tools read it (`--json`).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "why", rename = "launch")]
pub struct LaunchAnswer {
    pub function: String,
    pub threads: u32,
    pub blocks_per_sm: u32,
    pub fits: bool,
    /// Why the block does not fit, `null` when it does.
    pub problem: Option<String>,
    pub registers: u32,
    pub block_registers: u32,
    pub largest_block: u32,
    pub fitting_maxrregcount: Option<u32>,
    pub facts: Facts,
}

pub fn explain(cx: &Ctx, fi: usize, threads: u32, blocks: Option<u32>) -> Result<Explanation, String> {
    let f = &cx.m.module.functions[fi];
    let stats = cx.m.funcs.get(fi).and_then(|r| r.stats.as_ref()).ok_or("no statistics: the run did not finish")?;
    if let Some(e) = &stats.error {
        return Err(format!("{} has no register count: allocation failed ({e})", f.name));
    }
    let sm = cx.m.module.sm.version;
    let regs = stats.registers;
    let b = blocks.unwrap_or(1).max(1);
    let problem = occupancy::launch_problem(sm, regs, threads, b);
    let per_block = occupancy::regs_per_block(regs, threads);
    let mut t = format!(
        "why launch {threads}{}: {} uses {regs} registers per thread on {}\n",
        blocks.map(|b| format!(" {b}")).unwrap_or_default(),
        f.name,
        cx.m.module.sm
    );
    t.push_str(&format!(
        "  a warp is charged {} registers ({regs} × 32 rounded up to the 256-register unit)\n",
        occupancy::regs_per_warp(regs)
    ));
    t.push_str(&format!(
        "  a block of {threads} threads ({} warps) needs {per_block} of the {REGS_PER_BLOCK} registers a block may hold\n",
        threads.div_ceil(32)
    ));
    let largest = occupancy::largest_block(sm, regs, b);
    let fit_regs = occupancy::fitting_maxrregcount(sm, threads, b);
    match &problem {
        None => {
            t.push_str(&format!(
                "  fits: yes{}\n",
                if b > 1 { format!(", {b} blocks resident per SM") } else { String::new() }
            ));
        }
        Some(p) => {
            t.push_str(&format!("  fits: NO — {p}\n"));
            t.push_str(&format!("  largest block that fits at {regs} registers: {largest} threads\n"));
            match fit_regs {
                Some(r) => t.push_str(&format!(
                    "  --maxrregcount {r} (or __launch_bounds__({threads}, {b})) would make {threads} threads fit\n"
                )),
                None => t.push_str(&format!("  no register count makes {threads} threads × {b} blocks fit\n")),
            }
        }
    }
    let (w, lim) = occupancy::occupancy(sm, regs);
    t.push_str(&format!("  occupancy at {regs} registers: {w} of {lim} warps per SM\n"));
    let facts = vec![
        ("fits".to_string(), problem.is_none() as i64),
        ("registers".to_string(), regs as i64),
        ("block-registers".to_string(), per_block as i64),
        ("largest-block".to_string(), largest as i64),
        ("maxrregcount".to_string(), fit_regs.map(|r| r as i64).unwrap_or(0)),
    ];
    let answer = LaunchAnswer {
        function: f.name.to_string(),
        threads,
        blocks_per_sm: b,
        fits: problem.is_none(),
        problem,
        registers: regs,
        block_registers: per_block,
        largest_block: largest,
        fitting_maxrregcount: fit_regs,
        facts: Facts(facts),
    };
    Ok(Explanation { text: t, answer: Answer::Launch(answer) })
}
