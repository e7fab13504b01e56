//! Sweep: the table people build by looping `ptxas -v` over `--maxrregcount` — for each
//! value of a budget or knob, registers, spill bytes, attempts and occupancy per
//! function, with the knees marked (fewest registers with no spill; best occupancy with
//! no spill). Runs are independent, so they are spread over the cores with
//! `std::thread::scope` (results re-ordered by value: output never depends on timing).
//!
//! Knows run options; must not know about the front ends (the SVG chart is plain text).

use serde_json::json;

use crate::engine::RunOptions;
use crate::ir::Module;
use crate::why::whatif::{Figures, figures};
use crate::why::{Explanation, WhatIf, table};

/// What is swept.
#[derive(Clone, Debug, PartialEq)]
pub enum Axis {
    MaxRegCount,
    Knob(String),
}

/// The budgets swept when none are given.
pub const DEFAULT_BUDGETS: &[u32] = &[16, 24, 32, 40, 48, 56, 64, 72, 80, 96, 128, 168, 255];

/// One swept value and the figures of every function at it.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub value: i64,
    pub funcs: Vec<Figures>,
}

/// Parses `A..B` or `A..B:STEP` (inclusive).
pub fn parse_range(s: &str) -> Result<Vec<i64>, String> {
    let (range, step) = match s.split_once(':') {
        Some((r, st)) => (r, st.trim().parse::<i64>().map_err(|_| format!("bad step '{st}' in '{s}'"))?),
        None => (s, 1),
    };
    let (a, b) = range.split_once("..").ok_or_else(|| format!("expected A..B, found '{s}'"))?;
    let a: i64 = a.trim().parse().map_err(|_| format!("bad start '{a}' in '{s}'"))?;
    let b: i64 = b.trim().parse().map_err(|_| format!("bad end '{b}' in '{s}'"))?;
    if step <= 0 || b < a {
        return Err(format!("empty range '{s}' (need A <= B and a positive step)"));
    }
    if (b - a) / step >= 1024 {
        return Err(format!("range '{s}' has more than 1024 values"));
    }
    Ok((a..=b).step_by(step as usize).collect())
}

/// Parses a `--maxrregcount` range: [`parse_range`], every value in 1..=65535.
pub fn budget_range(s: &str) -> Result<Vec<i64>, String> {
    let values = parse_range(s)?;
    if values.first().is_some_and(|&v| v < 1) || values.last().is_some_and(|&v| v > 65535) {
        return Err(format!("maxrregcount must be at least 1 and at most 65535, found '{s}'"));
    }
    Ok(values)
}

/// Runs the sweep over `values`, on up to `threads` threads.
pub fn run(
    module: &Module,
    base: &RunOptions,
    axis: &Axis,
    values: &[i64],
    threads: usize,
) -> Result<Vec<Row>, String> {
    let what = |v: i64| match axis {
        Axis::MaxRegCount => WhatIf::MaxRegCount(v.clamp(1, 65535) as u32),
        Axis::Knob(name) => WhatIf::Knob(format!("{name}={v}")),
    };
    // The stages before the ABI stage (CFG, liveness, DCE, the uninitialized check, and
    // on Ori IR the `webs` prepass) do not depend on the budget or on most knobs: run
    // them once and start every row from a copy. Imported PTX's prepasses schedule to
    // the budget, and the loop-weight knobs change the CFG: those rows start afresh.
    let shared = !base.imported
        && match axis {
            Axis::MaxRegCount => true,
            Axis::Knob(name) => crate::knobs::Knobs::new()
                .set_str(&format!("{name}={}", values.first().copied().unwrap_or(0)))
                .map(|info| !crate::knobs::affects_cfg(info))
                .unwrap_or(false),
        };
    let mut base = base.clone();
    base.skip_check = true;
    let prefix = shared.then(|| {
        let mut m = crate::engine::Machine::new(module.clone(), base.clone());
        while m.pos.stage < crate::engine::Stage::Abi && m.step().is_some() {}
        m
    });
    let one = |v: i64| -> Result<Row, String> {
        let mut opts = base.clone();
        let mut m = module.clone();
        crate::why::whatif::apply(&what(v), &mut opts, &mut m, 0)?;
        // Only the finished machine is read: step it without keeping the event trace
        // (hundreds of MB at 100k instructions, allocated and freed per row).
        let mut mach = match &prefix {
            Some(p) => {
                let mut mach = p.clone();
                mach.retarget(&opts);
                mach
            }
            None => crate::engine::Machine::new(m, opts),
        };
        while mach.step().is_some() {}
        if let Some(e) = mach.knob_errors.first() {
            return Err(e.clone());
        }
        Ok(Row { value: v, funcs: figures(&mach) })
    };
    let threads = threads.clamp(1, values.len().max(1));
    let mut rows: Vec<Result<Row, String>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|k| {
                let one = &one;
                s.spawn(move || values.iter().skip(k).step_by(threads).map(|&v| one(v)).collect::<Vec<_>>())
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().unwrap_or_default()).collect()
    });
    rows.sort_by_key(|r| r.as_ref().map(|r| r.value).unwrap_or(i64::MIN));
    rows.into_iter().collect()
}

/// The knees of one function: (fewest registers with no spill, best occupancy with no
/// spill), as row indices.
pub fn knees(rows: &[Row], fi: usize) -> (Option<usize>, Option<usize>) {
    let clean = |r: &Row| r.funcs.get(fi).is_some_and(|f| !f.failed && f.stores == 0 && f.loads == 0);
    let regs = (0..rows.len()).filter(|&i| clean(&rows[i])).min_by_key(|&i| (rows[i].funcs[fi].registers, i));
    let occ = (0..rows.len()).filter(|&i| clean(&rows[i])).min_by_key(|&i| (u32::MAX - rows[i].funcs[fi].warps, i));
    (regs, occ)
}

/// The table with knee marks, per function.
pub fn render(rows: &[Row], axis: &Axis) -> Explanation {
    let name = match axis {
        Axis::MaxRegCount => "maxrregcount".to_string(),
        Axis::Knob(k) => k.clone(),
    };
    let nf = rows.first().map(|r| r.funcs.len()).unwrap_or(0);
    let mut t = String::new();
    let mut fj = Vec::new();
    for fi in 0..nf {
        let fname = &rows[0].funcs[fi].name;
        let (kr, ko) = knees(rows, fi);
        t.push_str(&format!("sweep {name} for {fname}:\n"));
        let mut tab = vec![
            [name.as_str(), "registers", "spill st B", "spill ld B", "attempts", "warps/SM", ""]
                .map(String::from)
                .to_vec(),
        ];
        for (i, r) in rows.iter().enumerate() {
            let f = &r.funcs[fi];
            let mut mark = Vec::new();
            if kr == Some(i) {
                mark.push("← fewest registers, no spill");
            }
            if ko == Some(i) {
                mark.push("← best occupancy, no spill");
            }
            tab.push(vec![
                r.value.to_string(),
                format!("{}{}", f.registers, if f.failed { " FAILED" } else { "" }),
                f.stores.to_string(),
                f.loads.to_string(),
                f.attempts.to_string(),
                f.warps.to_string(),
                mark.join(" "),
            ]);
        }
        t.push_str(&table(&tab));
        if kr.is_none() {
            t.push_str("  no value avoids spilling\n");
        }
        fj.push(json!({"function": fname,
            "rows": rows.iter().map(|r| { let f = &r.funcs[fi]; json!({"value": r.value, "registers": f.registers,
                "spill_stores": f.stores, "spill_loads": f.loads, "attempts": f.attempts, "warps": f.warps,
                "failed": f.failed}) }).collect::<Vec<_>>(),
            "knee_registers": kr.map(|i| rows[i].value), "knee_occupancy": ko.map(|i| rows[i].value)}));
    }
    let facts = match rows.first().map(|_| knees(rows, 0)) {
        Some((kr, ko)) => vec![
            ("knee-registers".to_string(), kr.map(|i| rows[i].value).unwrap_or(0)),
            ("knee-occupancy".to_string(), ko.map(|i| rows[i].value).unwrap_or(0)),
        ],
        None => Vec::new(),
    };
    Explanation { text: t, json: json!({"sweep": name, "functions": fj}), facts }
}

/// An SVG line chart of registers (solid) and spill bytes (dashed) per swept value for
/// function `fi`, the knees marked.
pub fn svg(rows: &[Row], axis: &Axis, fi: usize) -> String {
    let (w, h, pad) = (640.0f64, 360.0f64, 48.0f64);
    let xs: Vec<f64> = rows.iter().map(|r| r.value as f64).collect();
    let (x0, x1) = (
        xs.first().copied().unwrap_or(0.0),
        xs.last().copied().unwrap_or(1.0).max(xs.first().copied().unwrap_or(0.0) + 1.0),
    );
    let regs: Vec<f64> = rows.iter().map(|r| r.funcs.get(fi).map_or(0.0, |f| f.registers as f64)).collect();
    let spill: Vec<f64> = rows.iter().map(|r| r.funcs.get(fi).map_or(0.0, |f| (f.stores + f.loads) as f64)).collect();
    let ymax = regs.iter().chain(&spill).copied().fold(1.0, f64::max);
    let px = |x: f64| pad + (x - x0) / (x1 - x0) * (w - 2.0 * pad);
    let py = |y: f64| h - pad - y / ymax * (h - 2.0 * pad);
    let line = |ys: &[f64]| {
        xs.iter().zip(ys).map(|(&x, &y)| format!("{:.1},{:.1}", px(x), py(y))).collect::<Vec<_>>().join(" ")
    };
    let name = match axis {
        Axis::MaxRegCount => "maxrregcount".to_string(),
        Axis::Knob(k) => k.clone(),
    };
    let fname = rows.first().and_then(|r| r.funcs.get(fi)).map(|f| f.name.clone()).unwrap_or_default();
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" font-family=\"monospace\" font-size=\"12\">\n\
         <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n\
         <text x=\"{pad}\" y=\"20\">{fname}: registers (blue) and spill bytes (red, dashed) by {name}</text>\n\
         <line x1=\"{pad}\" y1=\"{b}\" x2=\"{r}\" y2=\"{b}\" stroke=\"black\"/>\n<line x1=\"{pad}\" y1=\"{pad}\" x2=\"{pad}\" y2=\"{b}\" stroke=\"black\"/>\n\
         <text x=\"{pad}\" y=\"{t}\">{x0}</text><text x=\"{r}\" y=\"{t}\" text-anchor=\"end\">{x1}</text><text x=\"4\" y=\"{pad}\">{ymax}</text>\n",
        b = h - pad,
        r = w - pad,
        t = h - pad + 16.0
    );
    s.push_str(&format!(
        "<polyline fill=\"none\" stroke=\"#1f5fbf\" stroke-width=\"2\" points=\"{}\"/>\n",
        line(&regs)
    ));
    s.push_str(&format!(
        "<polyline fill=\"none\" stroke=\"#bf1f1f\" stroke-width=\"2\" stroke-dasharray=\"6 4\" points=\"{}\"/>\n",
        line(&spill)
    ));
    let (kr, ko) = knees(rows, fi);
    for (k, label) in [(kr, "fewest regs, no spill"), (ko, "best occupancy, no spill")] {
        if let Some(i) = k {
            let (x, y) = (px(xs[i]), py(regs[i]));
            s.push_str(&format!("<circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"5\" fill=\"#2a9d3a\"/><text x=\"{:.1}\" y=\"{:.1}\">{label} ({})</text>\n", x + 8.0, y - 8.0, rows[i].value));
        }
    }
    s.push_str("</svg>\n");
    s
}
