//! `radbg why FILE [--fail-on-spill] [--json]`: `why registers` for every function of a
//! file in batch (plus `why fail` where allocation failed); with `--fail-on-spill` a CI
//! gate that exits 1 when anything spills, printing `why spill` for each spilled vreg.
//!
//! Owns argument handling, output and the exit status; the answers are `crate::why`'s.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::why::{Ctx, WhyCmd};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// An Ori IR (.ori) or PTX (.ptx) file.
    pub file: PathBuf,
    #[command(flatten)]
    pub pipeline: super::PipelineArgs,
    /// Exit with status 1 when any function spills, explaining each spilled vreg.
    #[arg(long)]
    pub fail_on_spill: bool,
    /// Print one JSON object per function instead of text.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: &Args) -> ExitCode {
    let (module, opts) = match super::load_for_pipeline(&args.file, &args.pipeline) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let mut d = crate::engine::Debugger::new(module, opts);
    if let Some(e) = d.machine().knob_errors.first() {
        eprintln!("radbg: {e}");
        return ExitCode::FAILURE;
    }
    d.run_to_end();
    let name = args.file.display().to_string();
    let cx = Ctx::of(&d, &name);
    let mut spilled = false;
    let mut failed = false;
    for fi in 0..cx.m.module.functions.len() {
        let mut answers = vec![crate::why::registers::explain(&cx, fi)];
        let a = cx.alloc(fi);
        if a.is_some_and(|a| a.failure.is_some()) {
            failed = true;
            answers.push(crate::why::fail::explain(&cx, fi, None));
        }
        if let Some(a) = a
            && !a.spills.is_empty()
        {
            spilled = true;
            if args.fail_on_spill {
                for s in &a.spills {
                    let v = a.func.vreg(s.vreg).name.clone();
                    match crate::why::answer(&WhyCmd::Spill(v), &cx, fi) {
                        Ok(x) => answers.push(x),
                        Err(e) => eprintln!("radbg: {e}"),
                    }
                }
            }
        }
        for x in answers {
            if args.json {
                super::output::outln(&x.json.to_string());
            } else {
                super::output::out(&x.text);
            }
        }
    }
    if args.fail_on_spill && spilled {
        eprintln!("radbg: {name} spills (--fail-on-spill)");
        return ExitCode::FAILURE;
    }
    if failed { ExitCode::FAILURE } else { ExitCode::SUCCESS }
}
