//! `radbg why FILE [--fail-on-spill] [--json]`: `why registers` for every function of a
//! file in batch (plus `why fail` where allocation failed, and `why spill` for each
//! spilled vreg of a spilling function); with `--fail-on-spill` a CI gate that exits 1
//! when anything spills.
//! With `--against FILE2` or `--against-knob/-maxrregcount/-sm`, `why differ` between
//! the two runs instead.
//!
//! Owns argument handling, output and the exit status, and which questions the batch
//! report asks; each answer comes from `crate::why::answer_in`, as the `why` command's do.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::command::render::answer_json;
use crate::why::{Ctx, WhyCmd};

/// Spilled vregs explained in full by `--fail-on-spill` (per function).
const FULL_SPILLS: usize = 8;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// An Ori IR (.ori) or PTX (.ptx) file.
    pub file: PathBuf,
    #[command(flatten)]
    pub pipeline: super::PipelineArgs,
    /// Exit with status 1 when any function spills (spills are explained either way).
    #[arg(long)]
    pub fail_on_spill: bool,
    /// Print one JSON object per function instead of text.
    #[arg(long)]
    pub json: bool,
    /// `why differ` instead: FILE against another version of it (same options).
    #[arg(long, value_name = "FILE2")]
    pub against: Option<PathBuf>,
    /// `why differ` instead: FILE against itself with this knob also set (repeatable).
    #[arg(long = "against-knob", value_name = "NAME=VALUE", value_parser = crate::engine::settings::knob)]
    pub against_knobs: Vec<crate::engine::ResolvedKnob>,
    /// `why differ` instead: FILE against itself under this budget.
    #[arg(long = "against-maxrregcount", value_name = "N", value_parser = crate::engine::settings::maxrregcount)]
    pub against_maxrregcount: Option<u32>,
    /// `why differ` instead: FILE against itself for this target.
    #[arg(long = "against-sm", value_name = "SM", value_parser = crate::engine::settings::sm)]
    pub against_sm: Option<crate::ir::Sm>,
    /// Threads for a file of many call groups, each explaining one group at a time
    /// (default: the available cores); the output does not depend on it.
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
}

/// `radbg why FILE --against...`: the first diverging decision and the deltas.
fn differ(args: &Args) -> ExitCode {
    let (module, opts) = match super::load_for_pipeline(&args.file, &args.pipeline) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let (b_module, mut b_opts, b_label) = match &args.against {
        Some(f2) => match super::load_for_pipeline(f2, &args.pipeline) {
            Ok((m, o)) => (m, o, f2.display().to_string()),
            Err(code) => return code,
        },
        None => (module.clone(), opts.clone(), format!("{} with the changes", args.file.display())),
    };
    let extra = super::PipelineArgs {
        knobs: args.against_knobs.clone(),
        sm: args.against_sm.clone(),
        maxrregcount: args.against_maxrregcount,
        ..Default::default()
    };
    for s in extra.settings() {
        b_opts.apply(&s);
    }
    let (am, at) = crate::why::run_module(module, opts);
    let (bm, bt) = crate::why::run_module(b_module, b_opts);
    let a = crate::why::differ::Side { label: args.file.display().to_string(), m: &am, trace: at.as_slice().into() };
    let b = crate::why::differ::Side { label: b_label, m: &bm, trace: bt.as_slice().into() };
    let x = crate::why::differ::compare(&a, &b);
    if args.json {
        super::output::outln(&answer_json(&x.answer).to_string());
    } else {
        super::output::out(&x.text);
    }
    ExitCode::SUCCESS
}

pub fn run(args: &Args) -> ExitCode {
    if args.against.is_some()
        || !args.against_knobs.is_empty()
        || args.against_maxrregcount.is_some()
        || args.against_sm.is_some()
    {
        return differ(args);
    }
    let name = args.file.display().to_string();
    // A PTX file of many call groups is explained one group at a time (`super::stream`):
    // memory bounded by the largest group, not the file (issue 25).
    let mut r = Report::default();
    let jobs = super::stream::jobs(args.jobs);
    let streamed = super::stream::with_plan(&args.file, jobs, |plan| {
        let mut opts = super::run_options(&args.pipeline);
        opts.imported = true;
        // `why registers` reads what each prepass did from the run (no replay).
        opts.record_stages = true;
        let parts = super::stream::map_groups(plan, jobs, &|k, m| {
            let d = debugger(m, opts.clone());
            let mut r = Report::default();
            // A spill's or failure's answer names events by their number in the whole
            // module's trace, which one group's trace does not have: such a file is
            // explained whole.
            report(args, &d, &name, plan.ids(k), &mut r, false)?;
            Some(r)
        })?;
        // In group order: the answers are sorted by function below, the errors keep
        // the order one thread gives.
        let mut r = Report::default();
        for p in parts {
            r.answers.extend(p.answers);
            r.errors.extend(p.errors);
            r.spilled |= p.spilled;
            r.failed |= p.failed;
        }
        Some(r)
    });
    match streamed {
        Some(s) => r = s,
        None => {
            let (module, mut opts) = match super::load_for_pipeline(&args.file, &args.pipeline) {
                Ok(x) => x,
                Err(code) => return code,
            };
            opts.record_stages = true;
            let d = debugger(module, opts);
            let ids: Vec<usize> = (0..d.machine().module.functions.len()).collect();
            report(args, &d, &name, &ids, &mut r, true);
        }
    }
    r.answers.sort_by_key(|a| a.0);
    for (_, x) in &r.answers {
        super::output::out(x);
    }
    for e in &r.errors {
        eprintln!("radbg: {e}");
    }
    if args.fail_on_spill && r.spilled {
        eprintln!("radbg: {name} spills (--fail-on-spill)");
        return ExitCode::FAILURE;
    }
    if r.failed { ExitCode::FAILURE } else { ExitCode::SUCCESS }
}

/// What the report gathers, across the machines of a module's groups: each function's
/// answers as printed, by its index in the whole module.
#[derive(Default)]
struct Report {
    answers: Vec<(usize, String)>,
    errors: Vec<String>,
    spilled: bool,
    failed: bool,
}

fn debugger(module: crate::ir::Module, opts: crate::engine::RunOptions) -> crate::engine::Debugger {
    let mut d = crate::engine::Debugger::new(module, opts);
    d.run_to_end();
    d
}

/// Asks the report's questions of every function of `d` (`ids`: their indices in the
/// whole module). With `whole` (the whole module) the answers are printed as they come;
/// otherwise (one call group) they are kept in `r`, and `None`, with nothing kept, says
/// a function spills or fails (see `run`).
fn report(
    args: &Args,
    d: &crate::engine::Debugger,
    name: &str,
    ids: &[usize],
    r: &mut Report,
    whole: bool,
) -> Option<()> {
    // Every question goes through `why::answer_in`, the function the session's `why`
    // command answers with: the batch report only chooses which questions to ask.
    // Each answer as printed: one JSON line (`--json`) or its text.
    let mut errors = Vec::new();
    let mut ask = |q: WhyCmd, fi: usize| match crate::why::answer_in(d, name, fi, &q, None) {
        Ok(x) if args.json => Some(format!("{}\n", answer_json(&x.answer))),
        Ok(x) => Some(x.text),
        Err(e) if whole => {
            eprintln!("radbg: {e}");
            None
        }
        Err(e) => {
            errors.push(e.to_string());
            None
        }
    };
    let cx = Ctx::of(d, name);
    let mut out = Vec::new();
    for fi in 0..cx.m.module.functions.len() {
        let a = cx.alloc(fi);
        let failed = a.is_some_and(|a| a.failure.is_some());
        let spilled = a.is_some_and(|a| !a.spills.is_empty());
        if !whole && (failed || spilled) {
            return None;
        }
        let mut answers: Vec<_> = ask(WhyCmd::Registers(None), fi).into_iter().collect();
        if failed {
            r.failed = true;
            answers.extend(ask(WhyCmd::Fail(None), fi));
        }
        if let Some(a) = a
            && spilled
        {
            r.spilled = true;
            // A spilling function's report always says why it spills. The first few in
            // full (each revisits two moments of the run); the rest by name, so a kernel
            // with hundreds of spills still answers quickly.
            for s in a.spills.iter().take(FULL_SPILLS) {
                answers.extend(ask(WhyCmd::Spill(a.func.vreg(s.vreg).name.to_string()), fi));
            }
            if a.spills.len() > FULL_SPILLS {
                let rest: Vec<String> =
                    a.spills[FULL_SPILLS..].iter().map(|s| a.func.vreg(s.vreg).name.to_string()).collect();
                answers.push(if args.json {
                    format!("{}\n", serde_json::json!({"why": "spill", "also_spilled": rest}))
                } else {
                    format!("also spilled ({}): {}\n", rest.len(), rest.join(" "))
                });
            }
        }
        if whole {
            for x in answers {
                super::output::out(&x);
            }
        } else {
            let id = ids.get(fi).copied().unwrap_or(fi);
            out.extend(answers.into_iter().map(|x| (id, x)));
        }
    }
    r.answers.extend(out);
    r.errors.extend(errors);
    Some(())
}
