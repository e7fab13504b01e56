//! `radbg run FILE`: the whole pipeline in batch, printing each class's attempts
//! (`-CLASS NOSPILL REGALLOC: attemp ...`) and ptxas's `-v` lines for every function.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::engine::{EventKind, Machine};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// An Ori IR file.
    pub file: PathBuf,
    #[command(flatten)]
    pub pipeline: super::PipelineArgs,
    /// Print every pipeline event, one line each, instead of only attempts and statistics.
    #[arg(long)]
    pub events: bool,
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
    for e in &m.knob_errors {
        eprintln!("radbg: {e}");
    }
    if !m.knob_errors.is_empty() {
        return ExitCode::FAILURE;
    }
    let mut failed = false;
    while let Some(ev) = m.step() {
        if args.events {
            super::output::outln(&m.describe(&ev));
            continue;
        }
        match &ev.kind {
            EventKind::Budget { diagnostics, .. } => {
                for d in diagnostics {
                    super::output::outln(&format!("ptxas info    : {d}"));
                }
            }
            EventKind::AbiCheck { code, passed: false, message, .. } => {
                let f = ev.func.map(|i| m.module.functions[i].name.as_str()).unwrap_or("");
                super::output::outln(&format!("ptxas warning : ({code}) {message} [{f}]"));
            }
            EventKind::AbiError { message } => println!("ptxas error   : {message}"),
            EventKind::Uninit { message: Some(msg) } => println!("ptxas warning : {msg}"),
            EventKind::Alloc(crate::alloc::AllocEvent::AttemptEnd { class, line, .. }) => {
                super::output::outln(&format!("{} {line}", class.name()));
            }
            // Under --allocator briggs: one line per iteration, as the attempt lines above.
            EventKind::Briggs(
                crate::alloc::briggs::BriggsEvent::IterationEnd { .. }
                | crate::alloc::briggs::BriggsEvent::SpillCode { .. },
            ) => {
                super::output::outln(&m.describe(&ev));
            }
            EventKind::Check { errors } if !errors.is_empty() => {
                failed = true;
                for e in errors {
                    super::output::outln(&format!("radbg checker : {e}"));
                }
            }
            EventKind::Stats { lines } => {
                for l in lines {
                    super::output::outln(l);
                }
            }
            _ => {}
        }
    }
    if m.funcs.iter().any(|f| f.stats.as_ref().is_some_and(|s| s.error.is_some())) {
        failed = true;
    }
    if failed { ExitCode::FAILURE } else { ExitCode::SUCCESS }
}
