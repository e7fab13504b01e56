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
    /// Set a knob on every run: NAME=VALUE or INDEX=VALUE (repeatable).
    #[arg(long = "knob", value_name = "NAME=VALUE")]
    pub knobs: Vec<String>,
    /// Worker threads (default: the available cores).
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
}

pub fn run(args: &Args) -> ExitCode {
    let Some(dir) = args.corpus.clone().or_else(crate::fidelity::default_corpus) else {
        eprintln!("radbg: no corpus directory (give --corpus DIR or set RADBG_CORPUS_CACHE)");
        return ExitCode::FAILURE;
    };
    let mut settings =
        crate::fidelity::Settings { disabled_passes: args.disable_stage.iter().cloned().collect(), knobs: Vec::new() };
    let mut check = crate::knobs::Knobs::new();
    for k in &args.knobs {
        let info = match check.set_str(k) {
            Ok(i) => i,
            Err(e) => {
                eprintln!("radbg: --knob {k}: {e}");
                return ExitCode::FAILURE;
            }
        };
        let (_, v) = k.split_once('=').unwrap_or((k, ""));
        settings.knobs.push((crate::ir::KnobKey::Name(info.name.to_string()), crate::knobs::parse_value(v)));
    }
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
