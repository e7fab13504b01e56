//! The text report behind `radbg check --live FILE`: per function, per block live-in
//! and live-out (vreg names), per-file maximum pressure and where it occurs, the
//! solver's sweep counts, and the uninitialized-register warning.
//!
//! Only formats what the other analyses compute; knows nothing of allocation. Output
//! is deterministic (ids ascending, blocks in layout order).

use std::fmt::Write;

use crate::analysis::{cfg, defined_at_entry, exit_live, liveness, uninit};
use crate::ir::model::{FuncKind, Function, Module};
use crate::knobs::Knobs;

/// The knobs a module sets, type-checked; settings the catalogue rejects are skipped
/// (the validator reports them).
pub fn module_knobs(m: &Module) -> Knobs {
    let mut k = Knobs::new();
    for s in &m.knobs {
        let _ = k.set(&s.key, &s.value);
    }
    k
}

/// The liveness report of every function of `m`.
pub fn live_report(m: &Module) -> String {
    let weight = cfg::loop_weight(&module_knobs(m));
    let mut s = String::new();
    for (i, f) in m.functions.iter().enumerate() {
        if i > 0 {
            s.push('\n');
        }
        function_report(&mut s, f, weight);
    }
    s
}

fn function_report(s: &mut String, f: &Function, loop_weight: f64) {
    let c = cfg::build(f, loop_weight);
    let ex = exit_live(f);
    let l = liveness::compute(f, &c, &ex);
    let layout = f.layout();
    let kind = match f.kind {
        FuncKind::Entry => ".entry",
        FuncKind::Device => ".func",
    };
    let _ = writeln!(s, "{kind} {}: {} blocks, {} instructions", f.name, f.blocks.len(), layout.len());
    let sweeps: Vec<String> = l.files().iter().map(|fl| format!("{} {}", fl.file.prefix(), fl.sweeps.len())).collect();
    let _ = writeln!(s, "  sweeps: {}", if sweeps.is_empty() { "none".to_string() } else { sweeps.join(", ") });
    if !ex.is_empty() {
        let _ = writeln!(s, "  exit-live: {}", l.exit_live().names(f));
    }
    for (b, blk) in f.blocks.iter().enumerate() {
        let reach = if c.reachable[b] { "" } else { ", unreachable" };
        let _ = writeln!(s, "  {} (depth {}{reach})", blk.label, c.loop_depth[b]);
        let _ = writeln!(s, "    live-in  {}", l.live_in(b).names(f));
        let _ = writeln!(s, "    live-out {}", l.live_out(b).names(f));
    }
    let mut maxes = Vec::new();
    for fl in l.files() {
        let (v, p) = l.max_pressure(f, fl.file);
        let at = match layout.locate(p) {
            Some((b, i)) if v > 0 => format!(" at [{p}] {}+{i}", f.blocks[b].label),
            _ => String::new(),
        };
        maxes.push(format!("{} {v}{at}", fl.file.prefix()));
    }
    let _ = writeln!(s, "  max pressure: {}", if maxes.is_empty() { "none".to_string() } else { maxes.join("; ") });
    if let Some(w) = uninit::find(f, &c, &l, &defined_at_entry(f)) {
        let _ = writeln!(s, "  warning: {}", w.message);
        for d in w.details(f) {
            let _ = writeln!(s, "    {d}");
        }
    }
}
