//! `radbg run FILE`: the whole pipeline in batch, printing each class's attempts
//! (`-CLASS NOSPILL REGALLOC: attemp ...`) and ptxas's `-v` lines for every function,
//! or (`--json`) one JSON object with the same lines and each function's figures.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::engine::{EventKind, Machine};

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
}

pub fn run(args: &Args) -> ExitCode {
    let (module, mut opts) = match super::load_for_pipeline(&args.file, &args.pipeline) {
        Ok(x) => x,
        Err(code) => return code,
    };
    // Only statistics are read after the run; `--events` describes events with the
    // function's state, so it keeps everything.
    opts.batch = !args.events;
    let mut m = Machine::new(module, opts);
    let mut failed = false;
    let mut lines: Vec<String> = Vec::new();
    let mut attempts: Vec<serde_json::Value> = Vec::new();
    let mut faults: Vec<String> = Vec::new();
    let json = args.json;
    let mut emit = |line: String| {
        if json {
            lines.push(line);
        } else {
            super::output::outln(&line);
        }
    };
    while let Some(ev) = m.step() {
        if let EventKind::Alloc(crate::alloc::AllocEvent::AttemptEnd {
            class,
            attempt,
            used,
            target,
            success,
            line,
            ..
        }) = &ev.kind
        {
            let f = ev.func.and_then(|i| m.module.functions.get(i)).map(|f| f.name.clone());
            attempts.push(serde_json::json!({"function": f, "class": class.name(), "attempt": attempt,
                "used": used, "target": target, "success": success, "line": line}));
        }
        if args.events {
            emit(m.describe(&ev));
            continue;
        }
        match &ev.kind {
            EventKind::Budget { diagnostics, .. } => {
                for d in diagnostics {
                    emit(format!("ptxas info    : {d}"));
                }
            }
            EventKind::AbiCheck { code, passed: false, message, .. } => {
                let f = ev.func.map(|i| m.module.functions[i].name.as_str()).unwrap_or("");
                emit(format!("ptxas warning : ({code}) {message} [{f}]"));
            }
            EventKind::AbiError { message } => emit(format!("ptxas error   : {message}")),
            // Not a `-v` line: ptxas 13.0.88 prints no uninitialized-register warning (none
            // in the 655 ptxas logs of the real-kernel gate, nor on PTX that reads a
            // never-written register); radbg's finding is the uninit event and `why`.
            EventKind::Alloc(crate::alloc::AllocEvent::AttemptEnd { class, line, .. }) => {
                emit(format!("{} {line}", class.name()));
            }
            // Under --allocator briggs: one line per iteration, as the attempt lines above.
            EventKind::Briggs(
                crate::alloc::briggs::BriggsEvent::IterationEnd { .. }
                | crate::alloc::briggs::BriggsEvent::SpillCode { .. },
            ) => {
                emit(m.describe(&ev));
            }
            EventKind::Check { errors } if !errors.is_empty() => {
                failed = true;
                for e in errors {
                    faults.push(e.clone());
                    emit(format!("radbg checker : {e}"));
                }
            }
            EventKind::Stats { lines } => {
                for l in lines {
                    emit(l.clone());
                }
            }
            _ => {}
        }
    }
    if m.funcs.iter().any(|f| f.stats.as_ref().is_some_and(|s| s.error.is_some())) {
        failed = true;
    }
    if json {
        let functions: Vec<serde_json::Value> = m
            .funcs
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let name = m.module.functions.get(i).map(|f| f.name.clone()).unwrap_or_default();
                match &r.stats {
                    Some(s) => serde_json::json!({"name": name, "registers": s.registers, "barriers": s.barriers,
                        "stack_frame": s.stack_frame, "spill_stores": s.spill_stores, "spill_loads": s.spill_loads,
                        "error": s.error}),
                    None => serde_json::json!({"name": name, "error": "not allocated"}),
                }
            })
            .collect();
        let v = serde_json::json!({
            "file": args.file.display().to_string(),
            "ok": !failed,
            "functions": functions,
            "attempts": attempts,
            "checker": faults,
            "lines": lines,
        });
        super::output::outln(&serde_json::to_string_pretty(&v).unwrap_or_default());
    }
    if failed { ExitCode::FAILURE } else { ExitCode::SUCCESS }
}
