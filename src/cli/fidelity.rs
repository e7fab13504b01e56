//! `radbg fidelity`: radbg against the real ptxas 13.0.88 on the corpus (issue 13) —
//! per budget the register error and spill detection of radbg and of the naive
//! estimate, a per-function table and the time ratios. The work is in `crate::fidelity`.

use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The corpus cache (oracle.json and ptx/); default $RADBG_CORPUS_CACHE or ~/.cache/radbg-corpus.
    #[arg(long, value_name = "DIR")]
    pub corpus: Option<PathBuf>,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
    /// Print only the per-budget summary (no per-function or time tables).
    #[arg(long)]
    pub summary: bool,
    /// Switch a pre-allocation stage off (repeatable), to measure what it contributes.
    #[arg(long = "disable-stage", value_name = "NAME")]
    pub disable_stage: Vec<String>,
    /// Worker threads (default: the available cores).
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
}

pub fn run(args: &Args) -> ExitCode {
    let Some(dir) = args.corpus.clone().or_else(crate::fidelity::default_corpus) else {
        eprintln!("radbg: no corpus directory (give --corpus DIR or set RADBG_CORPUS_CACHE)");
        return ExitCode::FAILURE;
    };
    let settings = crate::fidelity::Settings { disabled_passes: args.disable_stage.iter().cloned().collect() };
    let threads = args.threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()));
    let report = match crate::fidelity::run(&dir, &settings, threads) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("radbg: {e}");
            return ExitCode::FAILURE;
        }
    };
    if args.json {
        super::output::outln(&crate::fidelity::render::json(&report).to_string());
    } else {
        super::output::out(&crate::fidelity::render::text(&report, !args.summary, !args.summary));
    }
    if report.errors.is_empty() { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}
