//! `radbg compare FILE.ptx [--ptxas PATH]`: radbg's and the real ptxas's `-v` figures
//! side by side (same target and budget). Without a runnable ptxas it says so and exits 0.
//!
//! Owns argument handling and output; running ptxas is `crate::why::compare`.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::why::compare;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// A PTX file.
    pub file: PathBuf,
    #[command(flatten)]
    pub pipeline: super::PipelineArgs,
    /// The ptxas to run (default: ptxas on PATH).
    #[arg(long, value_name = "PATH")]
    pub ptxas: Option<PathBuf>,
    /// Print JSON instead of the table.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: &Args) -> ExitCode {
    let Some(exe) = compare::find(args.ptxas.as_deref()) else {
        eprintln!(
            "radbg: no runnable ptxas ({}); nothing to compare",
            args.ptxas.as_ref().map(|p| p.display().to_string()).unwrap_or_else(|| "not on PATH".into())
        );
        return ExitCode::SUCCESS;
    };
    let (module, opts) = match super::load_for_pipeline(&args.file, &args.pipeline) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let (m, _) = crate::why::run_module(module, opts);
    let sm = m.module.sm.to_string();
    let budget = m.module.options.maxrregcount;
    let ptxas = match compare::run_ptxas(&exe, &args.file, &sm, budget) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("radbg: {e}");
            return ExitCode::FAILURE;
        }
    };
    let x = compare::render(&crate::why::whatif::figures(&m), &ptxas);
    if args.json {
        super::output::outln(&x.json.to_string());
    } else {
        super::output::out(&format!(
            "{exe} -v -arch={sm}{}\n",
            budget.map(|b| format!(" --maxrregcount={b}")).unwrap_or_default()
        ));
        super::output::out(&x.text);
    }
    ExitCode::SUCCESS
}
