//! The allocator diff of a whole module, for `diff allocators` and `radbg diff-alloc`: a
//! fat-point pipeline run supplies each function's allocation inputs (the function after
//! the stages before allocation and the configuration the engine derives), which
//! `alloc::compare` runs both allocators on; and the diff's JSON form.
//!
//! Here rather than in `alloc::compare` because it drives the engine and builds JSON, both
//! above the allocators' layer (tests/layers.rs).

use serde_json::{Value, json};

use crate::alloc::AllocConfig;
use crate::alloc::compare::{AllocDiff, Side, compare};
use crate::engine::{AllocatorKind, Machine, RunOptions};
use crate::ir::{Function, Module};

/// Every function of a module as the pipeline allocates it: the function after the
/// stages before allocation (DCE, call lowering) and the allocator configuration the
/// engine derives (budget, ABI pins, fixed registers, clobbers).
pub fn pipeline_inputs(module: Module, opts: RunOptions) -> Result<Vec<(Function, AllocConfig)>, String> {
    // The fat-point run supplies the inputs (its result is what `compare` re-runs).
    let mut opts = opts;
    opts.allocator = AllocatorKind::FatPoint;
    let mut m = Machine::new(module, opts);
    while m.step().is_some() {}
    let mut out = Vec::new();
    for (fi, r) in m.funcs.iter().enumerate() {
        if let (Some(a), Some(f)) = (r.alloc.as_ref(), m.module.functions.get(fi)) {
            out.push((f.clone(), a.config().clone()));
        }
    }
    Ok(out)
}

/// Diffs every function of a module.
pub fn compare_module(module: Module, opts: RunOptions) -> Result<Vec<AllocDiff>, String> {
    Ok(pipeline_inputs(module, opts)?.iter().map(|(f, c)| compare(f, c)).collect())
}

/// The diff as a JSON object (`--json`, `diff-alloc --json`).
pub fn diff_json(d: &AllocDiff) -> Value {
    let side = |x: &Side| {
        json!({
            "ok": x.ok,
            "failure": x.failure,
            "registers": x.registers,
            "spilled": x.spilled,
            "spill_store_bytes": x.store_bytes,
            "spill_load_bytes": x.load_bytes,
            "frame_bytes": x.frame_bytes,
            "remats": x.remats,
            "spill_cost": x.spill_cost,
            "rounds": x.rounds,
            "copies": x.copies,
            "assignment": x.assignment,
        })
    };
    json!({
        "function": d.function,
        "budget": d.budget,
        "fatpoint": side(&d.fatpoint),
        "briggs": side(&d.briggs),
        "only_fatpoint": d.only_fatpoint,
        "only_briggs": d.only_briggs,
        "both": d.both,
        "assignment_diff": d.assignment_diff,
        "verdict": d.verdict.name(),
        "answer": d.answer,
    })
}
