//! Runs radbg on one corpus PTX file at one SM and budget — import, then the whole
//! pipeline (prepasses, liveness, ABI, allocation, checker, `-v` statistics) — and the
//! naive estimate beside it, timing import + pipeline.
//!
//! Owns one run; must not know the oracle's figures or how they are scored.

use std::collections::BTreeSet;
use std::time::Instant;

use crate::analysis::{cfg, liveness};
use crate::engine::machine::exit_live;
use crate::engine::{Machine, RunOptions};
use crate::ir::{FuncKind, Module, RegFile, Sm};

/// What radbg and the naive estimate say about one function at one budget.
#[derive(Clone, Debug, PartialEq)]
pub struct FuncRun {
    pub name: String,
    pub kind: FuncKind,
    /// radbg's `Used N registers`.
    pub registers: u32,
    pub spill_stores: u32,
    pub spill_loads: u32,
    /// radbg's `N bytes stack frame`.
    pub stack_frame: u32,
    /// Allocation failure or checker faults, rendered (empty when clean).
    pub faults: Vec<String>,
    /// The allocation failed (its message is the last of `faults`).
    pub alloc_failed: bool,
    /// Peak live general registers of the imported PTX (64-bit counted as 2,
    /// predicates not counted: they live in the P file).
    pub naive_peak: u32,
}

/// One file at one budget.
#[derive(Clone, Debug, PartialEq)]
pub struct FileRun {
    pub funcs: Vec<FuncRun>,
    /// Import + pipeline, milliseconds of this thread's CPU time (wall clock where the
    /// platform has no per-thread CPU clock): shown in the report, never scored.
    pub millis: f64,
}

/// Pre-allocation stages to switch off (`--disable-stage`), for before/after tables.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Settings {
    pub disabled_passes: BTreeSet<String>,
    /// Knob overrides (`--knob NAME=VALUE`), applied to every run: to measure a knob's
    /// effect on the table before it becomes a default.
    pub knobs: Vec<crate::engine::ResolvedKnob>,
}

/// Imports `text` (the PTX file `name`) and runs the pipeline at `sm` and `budget`.
pub fn run_file(name: &str, text: &str, sm: &str, budget: Option<u32>, settings: &Settings) -> Result<FileRun, String> {
    let t0 = Instant::now();
    let c0 = crate::util::thread_cpu_seconds();
    let file = crate::ir::span::SourceFile::new(name, text);
    let loaded = crate::load::import_ptx(&file)?;
    let sm = Sm::parse(sm).map_err(|e| format!("{name}: sm `{sm}`: {e}"))?;
    let opts = RunOptions {
        sm: Some(sm),
        maxrregcount: budget,
        imported: loaded.imported,
        disabled_passes: settings.disabled_passes.clone(),
        knobs: settings.knobs.clone(),
        ..RunOptions::default()
    };
    let mut m = Machine::new(loaded.module, opts);
    while m.step().is_some() {}
    let millis = match (c0, crate::util::thread_cpu_seconds()) {
        (Some(a), Some(b)) => (b - a) * 1000.0,
        _ => t0.elapsed().as_secs_f64() * 1000.0,
    };
    // The naive estimate reads the PTX's own live ranges: values the importer assembles
    // from component defs start where they are assembled (the `components` pass), as
    // they do in PTX.
    let mut source = (*m.source).clone();
    crate::prepass::apply(&mut source, &BTreeSet::new(), &["components"]);
    let mut funcs = Vec::new();
    for (fi, f) in m.module.functions.iter().enumerate() {
        let r = &m.funcs[fi];
        let mut faults = r.check_errors.clone().unwrap_or_default();
        let stats = r.stats.clone();
        let alloc_error = stats.as_ref().and_then(|s| s.error.clone());
        let alloc_failed = alloc_error.is_some();
        if let Some(e) = alloc_error {
            faults.push(e);
        }
        let s = stats.as_ref();
        funcs.push(FuncRun {
            name: f.name.clone(),
            kind: f.kind,
            registers: s.map_or(0, |s| s.registers),
            spill_stores: s.map_or(0, |s| s.spill_stores),
            spill_loads: s.map_or(0, |s| s.spill_loads),
            stack_frame: s.map_or(0, |s| s.stack_frame),
            faults,
            alloc_failed,
            naive_peak: naive_peak(&source, fi),
        });
    }
    Ok(FileRun { funcs, millis })
}

/// Peak live general registers of function `fi` as imported, before any stage.
pub fn naive_peak(m: &Module, fi: usize) -> u32 {
    let Some(f) = m.functions.get(fi) else { return 0 };
    let c = cfg::build(f, 1.0);
    let live = liveness::compute(f, &c, &exit_live(m, fi));
    live.max_pressure(f, RegFile::R).0
}
