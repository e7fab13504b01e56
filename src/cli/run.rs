//! `radbg run FILE`: the whole pipeline in batch, printing each class's attempts
//! (`-CLASS NOSPILL REGALLOC: attemp ...`) and ptxas's `-v` lines for every function,
//! or (`--json`) one JSON object with the same lines and each function's figures.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::engine::{self, EventKind, Machine};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// An Ori IR (.ori) or PTX (.ptx, imported) file; other names are PTX when their text
    /// starts with `.version`.
    pub file: PathBuf,
    #[command(flatten)]
    pub pipeline: super::PipelineArgs,
    /// Print every pipeline event, one line each, instead of only attempts and statistics.
    #[arg(long)]
    pub events: bool,
    /// Print one JSON object: the same lines, each function's figures (registers, spill
    /// bytes, stack frame, attempts) and checker faults.
    #[arg(long)]
    pub json: bool,
    /// Threads for a file of many call groups, each running one group at a time
    /// (default: the available cores); the output does not depend on it.
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
}

pub fn run(args: &Args) -> ExitCode {
    if let Some(code) = run_streamed(args) {
        return code;
    }
    let (module, mut opts) = match super::load_for_pipeline(&args.file, &args.pipeline) {
        Ok(x) => x,
        Err(code) => return code,
    };
    // Only statistics are read after the run; `--events` describes events with the
    // function's state, so it keeps everything.
    opts.batch = !args.events;
    let mut out = Out { json: args.json, buffered: false, ..Out::default() };
    let n = module.functions.len();
    let groups = if opts.batch { engine::machine::call_groups(&module).len() } else { 1 };
    if groups <= 1 {
        let ids: Vec<usize> = (0..n).collect();
        let mut m = Machine::new(module, opts);
        run_machine(&mut m, &ids, args.events, &mut out);
        // The process ends after printing: the machine (IR, trace, allocation) is left to
        // the exit, not freed piece by piece (issue 25: ~3 % of a scale-kernel run).
        std::mem::forget(m);
    } else {
        // A module of independent functions (or groups of functions that call each
        // other) runs one group at a time, each group's IR and working data freed before
        // the next is built, so memory is bounded by the largest group, not the file
        // (issue 25). The lines are put back in the whole module's order: the ABI
        // stage's lines of every function first, then each function's allocation.
        out.buffered = true;
        for (ids, m) in engine::machine::GroupSplit::without_source_lines(module) {
            run_machine(&mut Machine::new(m, opts.clone()), &ids, false, &mut out);
        }
        print_sorted(&mut out);
    }
    finish(args, out)
}

/// `radbg run` (without `--events`) on a PTX file of several call groups, imported one
/// group at a time (`ir::ptx::stream`; issue 25): memory is bounded by the largest
/// group's syntax tree, IR and pipeline data, not the file's, and the register and
/// memory limits are estimated per group. The output is the one the whole import gives
/// (the lines are buffered and sorted as for `GroupSplit`). `None` when the file does
/// not qualify — not PTX, one group, or anything the importer would say about it
/// (every group is imported once before anything runs or prints): then the caller
/// loads the file whole, which reports it.
fn run_streamed(args: &Args) -> Option<ExitCode> {
    if args.events {
        return None;
    }
    let jobs = super::stream::jobs(args.jobs);
    super::stream::with_plan(&args.file, jobs, |plan| {
        let mut opts = super::run_options(&args.pipeline);
        opts.imported = true;
        opts.batch = true;
        let fresh = || Out { json: args.json, buffered: true, ..Out::default() };
        // Each group's lines into its own buffer (imported cleanly before: the same text
        // gives the same module), merged in group order: the sort below is stable, so
        // the output is the one a single thread gives.
        let parts = super::stream::map_groups(plan, jobs, &|k, m| {
            let mut part = fresh();
            run_machine(&mut Machine::new(m, opts.clone()), plan.ids(k), false, &mut part);
            Some(part)
        })?;
        let mut out = fresh();
        for p in parts {
            out.lines.extend(p.lines);
            out.attempts.extend(p.attempts);
            out.faults.extend(p.faults);
            out.functions.extend(p.functions);
            out.failed |= p.failed;
        }
        print_sorted(&mut out);
        Some(finish(args, out))
    })
}

/// The lines of several machines in the whole module's order: the ABI stage's lines of
/// every function first, then each function's allocation.
fn print_sorted(out: &mut Out) {
    out.lines.sort_by_key(|l| (l.0, l.1));
    out.attempts.sort_by_key(|a| a.0);
    out.faults.sort_by_key(|f| f.0);
    if !out.json {
        for (_, _, l) in &out.lines {
            super::output::outln(l);
        }
    }
}

/// The JSON object (`--json`) and the exit status.
fn finish(args: &Args, out: Out) -> ExitCode {
    if out.json {
        let mut functions = out.functions;
        functions.sort_by_key(|f| f.0);
        let functions: Vec<serde_json::Value> = functions.into_iter().map(|f| f.1).collect();
        let v = serde_json::json!({
            "file": args.file.display().to_string(),
            "ok": !out.failed,
            "functions": functions,
            "attempts": out.attempts.into_iter().map(|a| a.1).collect::<Vec<_>>(),
            "checker": out.faults.into_iter().map(|f| f.1).collect::<Vec<_>>(),
            "lines": out.lines.into_iter().map(|l| l.2).collect::<Vec<_>>(),
        });
        super::output::outln(&serde_json::to_string_pretty(&v).unwrap_or_default());
    }
    if out.failed { ExitCode::FAILURE } else { ExitCode::SUCCESS }
}

/// What a run prints, gathered across the machines of a module's groups: each line with
/// its phase (0: the ABI stage, 1: from the budget on) and its function's index in the
/// whole module, so the lines of groups run one after another can be put in the order a
/// run of the whole module gives.
#[derive(Default)]
struct Out {
    json: bool,
    /// Lines are kept for sorting (several groups) instead of printed as they come.
    buffered: bool,
    lines: Vec<(u8, usize, String)>,
    attempts: Vec<(usize, serde_json::Value)>,
    faults: Vec<(usize, String)>,
    /// Each function's figures (`--json`), by its index in the whole module.
    functions: Vec<(usize, serde_json::Value)>,
    failed: bool,
}

impl Out {
    fn emit(&mut self, phase: u8, func: usize, line: String) {
        if self.json || self.buffered {
            self.lines.push((phase, func, line));
        } else {
            super::output::outln(&line);
        }
    }
}

/// Runs one machine to the end; `ids` maps its function indices to the whole module's.
fn run_machine(m: &mut Machine, ids: &[usize], events: bool, out: &mut Out) {
    let id = |f: Option<usize>| f.and_then(|i| ids.get(i).copied()).unwrap_or(0);
    while let Some(ev) = m.step() {
        let fid = id(ev.func);
        if let EventKind::Alloc(crate::alloc::AllocEvent::AttemptEnd(e)) = &ev.kind {
            let crate::alloc::event::AttemptEnd { class, attempt, used, target, success, line, .. } = &**e;
            let f = ev.func.and_then(|i| m.module.functions.get(i)).map(|f| f.name.to_string());
            out.attempts.push((
                fid,
                serde_json::json!({"function": f, "class": class.name(), "attempt": attempt,
                "used": used, "target": target, "success": success, "line": line}),
            ));
        }
        if events {
            out.emit(1, fid, m.describe(&ev));
            continue;
        }
        match &ev.kind {
            EventKind::Budget { diagnostics, .. } => {
                for d in diagnostics.iter() {
                    out.emit(1, fid, format!("ptxas info    : {d}"));
                }
            }
            EventKind::AbiCheck { code, passed: false, message, .. } => {
                let f = ev.func.map(|i| m.module.functions[i].name.as_str()).unwrap_or("");
                out.emit(0, fid, format!("ptxas warning : ({code}) {message} [{f}]"));
            }
            EventKind::AbiError { message } => out.emit(0, fid, format!("ptxas error   : {message}")),
            // Not a `-v` line: ptxas 13.0.88 prints no uninitialized-register warning (none
            // in the 655 ptxas logs of the real-kernel gate, nor on PTX that reads a
            // never-written register); radbg's finding is the uninit event and `why`.
            EventKind::Alloc(crate::alloc::AllocEvent::AttemptEnd(e)) => {
                out.emit(1, fid, format!("{} {}", e.class.name(), e.line));
            }
            // Under --allocator briggs: one line per iteration, as the attempt lines above.
            EventKind::Briggs(
                crate::alloc::briggs::BriggsEvent::IterationEnd { .. }
                | crate::alloc::briggs::BriggsEvent::SpillCode(_),
            ) => {
                out.emit(1, fid, m.describe(&ev));
            }
            EventKind::Check { errors } if !errors.is_empty() => {
                out.failed = true;
                for e in errors {
                    out.faults.push((fid, e.clone()));
                    out.emit(1, fid, format!("radbg checker : {e}"));
                }
            }
            EventKind::Stats { lines } => {
                for l in lines {
                    out.emit(1, fid, l.clone());
                }
            }
            _ => {}
        }
    }
    if m.funcs.iter().any(|f| f.stats.as_ref().is_some_and(|s| s.error.is_some())) {
        out.failed = true;
    }
    if out.json {
        for (i, r) in m.funcs.iter().enumerate() {
            let name = m.module.functions.get(i).map(|f| f.name.to_string()).unwrap_or_default();
            let v = match &r.stats {
                Some(s) => serde_json::json!({"name": name, "registers": s.registers, "barriers": s.barriers,
                    "stack_frame": s.stack_frame, "spill_stores": s.spill_stores, "spill_loads": s.spill_loads,
                    "error": s.error}),
                None => serde_json::json!({"name": name, "error": "not allocated"}),
            };
            if let Some(&g) = ids.get(i) {
                out.functions.push((g, v));
            }
        }
    }
}
