//! `radbg fidelity`: radbg against the real ptxas 13.0.88 on the corpus (issue 13) —
//! per budget the register error and spill detection of radbg and of the naive
//! estimate, a per-function table and the time ratios. The work is in `crate::fidelity`.
//! With `--gate`: the real-kernel gate of issues 22 and 23 (`.ci/gate-ptx.sh` builds it) —
//! per part (dev / test) and budget the kernels, checker faults, failed allocations, rejected
//! PTX and panics, the fidelity figures beside the naive estimate, and the dev part's failures.

pub mod json;

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
    #[arg(long = "disable-stage", value_name = "NAME", value_parser = crate::engine::settings::stage)]
    pub disable_stage: Vec<&'static str>,
    /// Set a knob on every run: NAME=VALUE or INDEX=VALUE (repeatable).
    #[arg(long = "knob", value_name = "NAME=VALUE", value_parser = crate::engine::settings::knob)]
    pub knobs: Vec<crate::engine::ResolvedKnob>,
    /// Worker threads (default: the available cores).
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// Run the real-kernel gate instead (default DIR: $RADBG_GATE_CACHE or ~/.cache/radbg-gate).
    #[arg(long)]
    pub gate: bool,
    /// With --gate: which part of the split to run (dev, test or all).
    #[arg(long, value_name = "PART", default_value = "all", requires = "gate")]
    pub part: String,
    /// With --gate: the split file (default: the committed tests/gate/split.tsv).
    #[arg(long, value_name = "FILE", requires = "gate")]
    pub split: Option<PathBuf>,
}

pub fn run(args: &Args) -> ExitCode {
    let dir = if args.gate {
        args.corpus.clone().or_else(crate::fidelity::gate::default_gate)
    } else {
        args.corpus.clone().or_else(crate::util::corpus_cache)
    };
    let Some(dir) = dir else {
        eprintln!("radbg: no corpus directory (give --corpus DIR or set RADBG_CORPUS_CACHE)");
        return ExitCode::FAILURE;
    };
    let settings = crate::fidelity::Settings {
        disabled_passes: args.disable_stage.iter().map(|s| s.to_string()).collect(),
        knobs: args.knobs.clone(),
    };
    let threads = args.threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()));
    if args.gate {
        return run_gate(args, &dir, &settings, threads);
    }
    let report = match crate::fidelity::run(&dir, &settings, threads) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("radbg: {e}");
            return ExitCode::FAILURE;
        }
    };
    if args.json {
        super::output::outln(&json::report(&report).to_string());
    } else {
        super::output::out(&crate::fidelity::render::text(&report, !args.summary, !args.summary));
    }
    if report.errors.is_empty() { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}

fn run_gate(args: &Args, dir: &std::path::Path, settings: &crate::fidelity::Settings, threads: usize) -> ExitCode {
    use crate::fidelity::gate;
    let which = match gate::Which::parse(&args.part) {
        Ok(w) => w,
        Err(e) => {
            eprintln!("radbg: {e}");
            return ExitCode::FAILURE;
        }
    };
    let split = match &args.split {
        None => gate::parse_split("tests/gate/split.tsv", gate::DEFAULT_SPLIT),
        Some(p) => std::fs::read_to_string(p)
            .map_err(|e| format!("cannot read {}: {e}", p.display()))
            .and_then(|t| gate::parse_split(&p.display().to_string(), &t)),
    };
    let parts = match split.and_then(|s| gate::run(dir, &s, which, settings, threads, &|_| true)) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("radbg: {e}");
            return ExitCode::FAILURE;
        }
    };
    if args.json {
        super::output::outln(&json::gate(&parts).to_string());
    } else {
        super::output::out(&gate::text(&parts));
    }
    let failures: usize = parts.iter().flat_map(|p| &p.counts).map(gate::Counts::failures).sum();
    if failures == 0 { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}
