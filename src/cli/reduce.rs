//! `radbg reduce FILE --until PREDICATE [-o OUT]`: shrink an Ori IR or PTX kernel to a
//! small one that still shows the behaviour (a failure, a checker fault, spills, a
//! register count, a departure from ptxas ...). Progress on standard error (one line
//! redrawn on a terminal), the reduced kernel to OUT (default `NAME.reduced.EXT`), the
//! summary as text or `--json`.
//!
//! Owns argument handling, output and the exit status; the search is `crate::reduce`'s,
//! the command-language predicates `crate::command::reduce`'s.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use serde_json::{Value, json};

use crate::reduce::search::Outcome;

#[derive(Debug, clap::Args)]
#[command(after_long_help = "\
PREDICATES:
  fails                       register allocation fails
  checker-fault               the independent checker reports an error
  spills                      some function spills
  registers > N               Used N registers compares so (< <= > >= == !=)
  attempts class R >= N       the attempts of a class compare so
  warning 70NN                the ABI check 70NN fails
  differs-from-ptxas [> K %]  radbg's register count departs from the real ptxas's
  allocators-differ           fat-point and Chaitin-Briggs give different results
  script FILE.radbg           a session that must replay without a failure
  any expect condition        e.g. 'stats spill-stores > 0', '%r5 == spilled'

EXAMPLES:
  radbg reduce sessions/alloc_fail.ori --until fails -o small.ori
  radbg reduce kernel.ptx --until 'registers > 64' --timeout 300
  radbg reduce kernel.ptx --until 'differs-from-ptxas > 10 %' --json")]
pub struct Args {
    /// An Ori IR (.ori) or PTX (.ptx) file.
    pub file: PathBuf,
    /// What the reduced kernel must still show (see PREDICATES below).
    #[arg(long, value_name = "PREDICATE")]
    pub until: String,
    /// Where to write the reduced kernel (default: NAME.reduced.EXT beside FILE).
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub pipeline: super::PipelineArgs,
    /// Stop after S seconds and write the best kernel found so far.
    #[arg(long, value_name = "S")]
    pub timeout: Option<f64>,
    /// Candidates tested at once (default: the available cores; the result is the same).
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
    /// The ptxas for differs-from-ptxas (else $RADBG_PTXAS, else the corpus build's).
    #[arg(long, value_name = "PATH")]
    pub ptxas: Option<PathBuf>,
    /// Print the summary as one JSON object (progress lines are not printed).
    #[arg(long)]
    pub json: bool,
}

/// `dir/kernel.ptx` → `dir/kernel.reduced.ptx`.
fn default_output(file: &Path) -> PathBuf {
    PathBuf::from(crate::command::reduce::default_output(&file.display().to_string()))
}

pub fn run(args: &Args) -> ExitCode {
    let fail = |msg: &str| {
        eprint!("radbg: {msg}");
        if !msg.ends_with('\n') {
            eprintln!();
        }
        ExitCode::FAILURE
    };
    // Loading reports the input's own errors at file:line:col before anything runs.
    let (_, mut opts) = match super::load_for_pipeline(&args.file, &args.pipeline) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let text = match std::fs::read_to_string(&args.file) {
        Ok(t) => t,
        Err(e) => return fail(&format!("cannot read {}: {e}", args.file.display())),
    };
    let format = crate::reduce::Format::detect(&args.file.display().to_string(), &text);
    opts.imported = format == crate::reduce::Format::Ptx;
    let base = args.file.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let pred = match crate::command::reduce::build(&args.until, base, args.ptxas.as_deref()) {
        Ok(p) => p,
        Err(e) => return fail(&format!("--until: {e}")),
    };
    if pred.needs_ptx() && format != crate::reduce::Format::Ptx {
        return fail(&format!("--until {}: needs a PTX input (ptxas reads PTX)", pred.text()));
    }
    let mut cfg = crate::reduce::Config::new(opts);
    if let Some(j) = args.jobs {
        if j == 0 || j > 1024 {
            return fail(&format!("--jobs: {j} is out of range 1..=1024"));
        }
        cfg.jobs = j;
    }
    if let Some(t) = args.timeout {
        if !(t > 0.0 && t <= 7.0 * 86400.0) {
            return fail(&format!("--timeout: {t} is out of range (0, 604800] seconds"));
        }
        cfg.timeout = Some(Duration::from_secs_f64(t));
    }
    // PTX must stay PTX that ptxas reads: the real one, when there is one, checks the
    // candidates of the width passes and the result.
    if format == crate::reduce::Format::Ptx {
        cfg.ptxas = crate::reduce::ptxas::find(args.ptxas.as_deref()).ok();
    }
    let out = args.output.clone().unwrap_or_else(|| default_output(&args.file));
    let mut reporter = crate::reduce::progress::Reporter::new(std::io::stderr().is_terminal());
    let quiet = args.json;
    let outcome = crate::reduce::reduce(format, &text, &pred, &cfg, &mut |p| {
        if !quiet {
            reporter.update(p);
        }
    });
    reporter.finish();
    let o = match outcome {
        Ok(o) => o,
        Err(e) => return fail(&format!("{}: {e}", args.file.display())),
    };
    if let Err(e) = std::fs::write(&out, &o.text) {
        return fail(&format!("cannot write {}: {e}", out.display()));
    }
    if let Some(note) = &o.ptxas_note {
        eprintln!("radbg: warning: {note}");
    }
    let (input, output) = (args.file.display().to_string(), out.display().to_string());
    if args.json {
        super::output::outln(&summary_json(&o, &o.predicate, &input, &output).to_string());
    } else {
        super::output::outln(&crate::reduce::progress::summary(&o, &o.predicate, &output));
    }
    ExitCode::SUCCESS
}

/// The summary for tools (`--json`).
fn summary_json(o: &Outcome, predicate: &str, input: &str, out: &str) -> Value {
    json!({
        "input": input,
        "output": out,
        "predicate": predicate,
        "start_instructions": o.start_insts,
        "instructions": o.insts,
        "percent": (crate::reduce::progress::pct(o.insts, o.start_insts) * 10.0).round() / 10.0,
        "start_bytes": o.start_bytes,
        "bytes": o.bytes,
        "tests": o.tests,
        "cached": o.cached,
        "invalid": o.invalid,
        "rounds": o.rounds,
        "timed_out": o.timed_out,
        "ptxas_note": o.ptxas_note,
        "seconds": (o.elapsed.as_secs_f64() * 100.0).round() / 100.0,
    })
}
