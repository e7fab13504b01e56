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
    /// Peak live general registers of the function the allocator finished with (after
    /// the stages and any spill code): set beside `registers`, it splits a miss into
    /// pressure (the stages) and placement (the allocator's choice of free registers).
    pub peak: u32,
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
///
/// A file of several call groups is imported and run one group at a time
/// (`ir::ptx::stream`, as `radbg run` does; issue 25): memory is bounded by the largest
/// group, not the file. The figures are the whole module's, function for function; a
/// file the plan refuses, or a group that does not import alone, is run whole
/// ([`run_file_whole`]), which reports whatever there is to report.
pub fn run_file(name: &str, text: &str, sm: &str, budget: Option<u32>, settings: &Settings) -> Result<FileRun, String> {
    match run_streamed(text, sm, budget, settings) {
        Some(run) => Ok(run),
        None => run_file_whole(name, text, sm, budget, settings),
    }
}

/// The options of every run of a file.
fn options(sm: Sm, budget: Option<u32>, imported: bool, settings: &Settings) -> RunOptions {
    RunOptions {
        sm: Some(sm),
        maxrregcount: budget,
        imported,
        disabled_passes: settings.disabled_passes.clone(),
        knobs: settings.knobs.clone(),
        ..RunOptions::default()
    }
}

/// Milliseconds of this thread's CPU time since `c0` (wall clock since `t0` where the
/// platform has no per-thread CPU clock).
fn elapsed_ms(t0: Instant, c0: Option<f64>) -> f64 {
    match (c0, crate::util::thread_cpu_seconds()) {
        (Some(a), Some(b)) => (b - a) * 1000.0,
        _ => t0.elapsed().as_secs_f64() * 1000.0,
    }
}

/// [`run_file`] group by group; `None` when the file is not split (one group, or the
/// plan refuses it) or a group does not import alone — nothing is reported from here,
/// the caller runs the file whole.
fn run_streamed(text: &str, sm: &str, budget: Option<u32>, settings: &Settings) -> Option<FileRun> {
    // One function: no split, and no second parse (as `cli::stream`).
    if text.matches(".entry").count() + text.matches(".func").count() < 2 {
        return None;
    }
    let t0 = Instant::now();
    let c0 = crate::util::thread_cpu_seconds();
    let plan = crate::ir::ptx::stream::plan(text)?;
    if plan.len() < 2 {
        return None;
    }
    let sm = Sm::parse(sm).ok()?;
    let mut slots: Vec<Option<FuncRun>> = vec![None; plan.functions()];
    for k in 0..plan.len() {
        let module = plan.import(k)?;
        let mut m = Machine::new(module, options(sm.clone(), budget, true, settings));
        while m.step().is_some() {}
        for (run, &id) in func_runs(&m).into_iter().zip(plan.ids(k)) {
            *slots.get_mut(id)? = Some(run);
        }
    }
    let millis = elapsed_ms(t0, c0);
    // Every function of the whole import ran in exactly one group.
    let funcs = slots.into_iter().collect::<Option<Vec<_>>>()?;
    Some(FileRun { funcs, millis })
}

/// [`run_file`] on the whole module at once.
pub fn run_file_whole(
    name: &str,
    text: &str,
    sm: &str,
    budget: Option<u32>,
    settings: &Settings,
) -> Result<FileRun, String> {
    let t0 = Instant::now();
    let c0 = crate::util::thread_cpu_seconds();
    let file = crate::ir::span::SourceFile::new(name, text);
    let loaded = crate::load::import_ptx(&file)?;
    let sm = Sm::parse(sm).map_err(|e| format!("{name}: sm `{sm}`: {e}"))?;
    let mut m = Machine::new(loaded.module, options(sm, budget, loaded.imported, settings));
    while m.step().is_some() {}
    let millis = elapsed_ms(t0, c0);
    Ok(FileRun { funcs: func_runs(&m), millis })
}

/// The figures of every function of a finished machine, in its module's order.
fn func_runs(m: &Machine) -> Vec<FuncRun> {
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
            name: f.name.to_string(),
            kind: f.kind,
            registers: s.map_or(0, |s| s.registers),
            spill_stores: s.map_or(0, |s| s.spill_stores),
            spill_loads: s.map_or(0, |s| s.spill_loads),
            stack_frame: s.map_or(0, |s| s.stack_frame),
            faults,
            alloc_failed,
            naive_peak: naive_peak(&source, fi),
            // The pipeline's own solve of the allocator's input (no second one).
            peak: m.pipeline_liveness(fi).map_or(0, |l| l.max_pressure(f, RegFile::R).0),
        });
    }
    funcs
}

/// Peak live general registers of function `fi` as imported, before any stage.
pub fn naive_peak(m: &Module, fi: usize) -> u32 {
    let Some(f) = m.functions.get(fi) else { return 0 };
    let c = cfg::build(f, 1.0);
    let live = liveness::compute(f, &c, &exit_live(m, fi));
    live.max_pressure(f, RegFile::R).0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The peak the allocator finished with sits between the stages' floor and the count:
    /// R0..R(peak) hold the peak and R1, and the report adds 2 — so it is at most the
    /// count less 3, and the imported saxpy tile holds values live at once.
    #[test]
    fn the_allocated_peak_is_reported_beside_the_count() {
        let text = include_str!("../../sessions/ptx_saxpy_tile.ptx");
        let run = run_file("saxpy.ptx", text, "sm_80", None, &Settings::default()).expect("runs");
        let f = &run.funcs[0];
        assert!(f.peak > 0, "{f:?}");
        assert!(f.peak + 3 <= f.registers, "peak {} for {} registers", f.peak, f.registers);
    }
}
