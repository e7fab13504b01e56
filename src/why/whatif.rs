//! `whatif maxrregcount N | knob NAME=V | sm sm_XX | launch-bounds T[,B]`: runs the
//! pipeline on the side with one change and prints the delta per function (registers,
//! spill bytes, stack frame, occupancy, attempts); the session's cursor stays.
//!
//! Knows run options and the module's launch-bound directives; must not know about the
//! front ends.

use serde::Serialize;

use crate::engine::{Debugger, Machine, RunOptions};
use crate::ir::Module;
use crate::why::{Answer, Explanation, Facts, WhatIf, occupancy, table};

/// The figures a what-if compares, for one function.
#[derive(Clone, Debug, PartialEq)]
pub struct Figures {
    pub name: String,
    pub registers: u32,
    pub stores: u32,
    pub loads: u32,
    pub frame: u32,
    pub attempts: u32,
    pub warps: u32,
    pub failed: bool,
}

/// The figures of every function of a finished machine.
pub fn figures(m: &Machine) -> Vec<Figures> {
    m.module
        .functions
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let s = m.funcs[i].stats.as_ref();
            let regs = s.map(|s| s.registers).unwrap_or(0);
            Figures {
                name: f.name.to_string(),
                registers: regs,
                stores: s.map(|s| s.spill_stores).unwrap_or(0),
                loads: s.map(|s| s.spill_loads).unwrap_or(0),
                frame: s.map(|s| s.stack_frame).unwrap_or(0),
                attempts: m.funcs[i].alloc.as_ref().map_or(0, |a| a.rounds()),
                warps: occupancy::occupancy(m.module.sm.version, regs).0,
                failed: s.is_some_and(|s| s.error.is_some()),
            }
        })
        .collect()
}

/// Applies a what-if to options and module; the label says what changed.
pub fn apply(w: &WhatIf, opts: &mut RunOptions, module: &mut Module, fi: usize) -> Result<String, String> {
    use crate::engine::Setting;
    // The run options change as `set` changes them (`RunOptions::apply`).
    let mut set = |s: Setting| {
        opts.apply(&s);
        s.label()
    };
    Ok(match w {
        WhatIf::MaxRegCount(n) => set(Setting::MaxRegCount(*n)),
        WhatIf::Knob(k) => set(Setting::Knob(k.clone())),
        WhatIf::Sm(sm) => set(Setting::Sm(sm.clone())),
        WhatIf::LaunchBounds(t, b) => {
            let f = module.functions.get_mut(fi).ok_or("no function")?;
            f.maxntid = Some(vec![*t]);
            f.minnctapersm = *b;
            format!("launch-bounds {t}{} on {}", b.map(|b| format!(",{b}")).unwrap_or_default(), f.name)
        }
    })
}

/// `whatif` as tools read it (`--json`): what changed, and per function each figure
/// as a `[before, after]` pair.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WhatIfAnswer {
    /// The change, as `set` labels it.
    pub whatif: String,
    pub functions: Vec<FiguresDelta>,
    pub facts: Facts,
}

/// One function's figures before and after the change.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FiguresDelta {
    pub function: String,
    pub registers: [u32; 2],
    pub spill_stores: [u32; 2],
    pub spill_loads: [u32; 2],
    pub stack_frame: [u32; 2],
    pub warps: [u32; 2],
    pub attempts: [u32; 2],
    pub failed: [bool; 2],
}

/// The delta table between two sets of figures.
pub fn delta(label: &str, before: &[Figures], after: &[Figures]) -> Explanation {
    let mut rows =
        vec![["function", "registers", "spill st/ld B", "frame B", "warps/SM", "attempts"].map(String::from).to_vec()];
    let arrow =
        |a: u32, b: u32| if a == b { a.to_string() } else { format!("{a} → {b} ({:+})", b as i64 - a as i64) };
    let mut fj = Vec::new();
    for (x, y) in before.iter().zip(after) {
        rows.push(vec![
            x.name.to_string(),
            format!("{}{}", arrow(x.registers, y.registers), if y.failed { " FAILED" } else { "" }),
            if (x.stores, x.loads) == (y.stores, y.loads) {
                format!("{}/{}", x.stores, x.loads)
            } else {
                format!("{}/{} → {}/{}", x.stores, x.loads, y.stores, y.loads)
            },
            arrow(x.frame, y.frame),
            arrow(x.warps, y.warps),
            arrow(x.attempts, y.attempts),
        ]);
        fj.push(FiguresDelta {
            function: x.name.to_string(),
            registers: [x.registers, y.registers],
            spill_stores: [x.stores, y.stores],
            spill_loads: [x.loads, y.loads],
            stack_frame: [x.frame, y.frame],
            warps: [x.warps, y.warps],
            attempts: [x.attempts, y.attempts],
            failed: [x.failed, y.failed],
        });
    }
    let text = format!("whatif {label} (the cursor stays):\n{}", table(&rows));
    let first = after.first();
    let facts = vec![
        ("registers".to_string(), first.map(|f| f.registers).unwrap_or(0) as i64),
        ("spill-stores".to_string(), first.map(|f| f.stores).unwrap_or(0) as i64),
        ("spill-loads".to_string(), first.map(|f| f.loads).unwrap_or(0) as i64),
        ("occupancy".to_string(), first.map(|f| f.warps).unwrap_or(0) as i64),
        ("attempts".to_string(), first.map(|f| f.attempts).unwrap_or(0) as i64),
        ("failed".to_string(), after.iter().any(|f| f.failed) as i64),
    ];
    let answer = WhatIfAnswer { whatif: label.to_string(), functions: fj, facts: Facts(facts) };
    Explanation { text, answer: Answer::WhatIf(answer) }
}

/// `whatif` in a session: the current run's figures against a side run with the change.
pub fn explain(d: &Debugger, fi: usize, w: &WhatIf) -> Result<Explanation, String> {
    let mut opts = d.opts.clone();
    let mut module = (*d.loaded()).clone();
    let label = apply(w, &mut opts, &mut module, fi)?;
    let fin = crate::why::finished(d);
    let before = figures(fin.machine());
    let (m, _) = crate::why::run_module(module, opts);
    let mut x = delta(&label, &before, &figures(&m));
    // Budget inputs the change made ptxas ignore or override, said loudly (seed 000).
    for (i, r) in m.funcs.iter().enumerate() {
        let old = fin.machine().funcs.get(i).and_then(|r| r.budget.as_ref()).map(|b| b.diagnostics.clone());
        for diag in r.budget.iter().flat_map(|b| &b.diagnostics) {
            if !old.as_ref().is_some_and(|o| o.contains(diag)) {
                x.text.push_str(&format!("  note ({}): {diag}\n", m.module.functions[i].name));
            }
        }
    }
    Ok(x)
}
