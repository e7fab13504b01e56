//! `radbg compare FILE.ptx [--ptxas PATH]`: radbg's and the real ptxas's `-v` figures
//! side by side (same target and budget). A `.target` older than the ptxas accepts is
//! compared at the oldest target it does accept (both sides), and said so. Without a
//! runnable ptxas it names every place it looked and how to point it, and exits 1: a
//! comparison that did not happen is not a success.
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
    /// The ptxas to run. Default: $RADBG_PTXAS, else ptxas on PATH, else the corpus
    /// build's (~/.cache/radbg-corpus/root/nvidia/cu13/bin/ptxas, or under $RADBG_CORPUS_CACHE).
    #[arg(long, value_name = "PATH")]
    pub ptxas: Option<PathBuf>,
    /// Print JSON instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Threads for radbg's side of a file of many call groups (default: the available
    /// cores); the output does not depend on it.
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
}

pub fn run(args: &Args) -> ExitCode {
    let found = compare::find(args.ptxas.as_deref());
    let Some(exe) = found.exe else {
        eprintln!(
            "radbg: no runnable ptxas; nothing compared. Looked at: {}.\n\
             Point at one with --ptxas PATH or RADBG_PTXAS=PATH.",
            found.tried.join(", ")
        );
        return ExitCode::FAILURE;
    };
    // A PTX file of many call groups runs one group at a time (`super::stream`): memory
    // bounded by the largest group, not the file (issue 25); the same figures.
    let jobs = super::stream::jobs(args.jobs);
    let streamed = super::stream::with_plan(&args.file, jobs, |plan| {
        let mut opts = super::run_options(&args.pipeline);
        opts.imported = true;
        let note = map_target(&exe, &plan.import(0)?, &mut opts);
        let mut figures = vec![None; plan.functions()];
        let (mut sm, mut budget, mut failed) = (String::new(), None, false);
        let parts = super::stream::map_groups(plan, jobs, &|_, m| Some(radbg_side(m, opts.clone())))?;
        for (k, r) in parts.into_iter().enumerate() {
            for (&id, f) in plan.ids(k).iter().zip(r.figures) {
                *figures.get_mut(id)? = Some(f);
            }
            (sm, budget, failed) = (r.sm, r.budget, failed || r.failed);
        }
        let figures = figures.into_iter().collect::<Option<Vec<_>>>()?;
        Some((RadbgSide { figures, sm, budget, failed }, note))
    });
    let (r, note) = match streamed {
        Some(x) => x,
        None => {
            let (module, mut opts) = match super::load_for_pipeline(&args.file, &args.pipeline) {
                Ok(x) => x,
                Err(code) => return code,
            };
            let note = map_target(&exe, &module, &mut opts);
            if module.functions.is_empty() {
                eprintln!("radbg: {}: no function to compare", args.file.display());
                return ExitCode::FAILURE;
            }
            (radbg_side(module, opts), note)
        }
    };
    let RadbgSide { figures, sm, budget, failed } = r;
    let ptxas = match compare::run_ptxas(&exe, &args.file, &sm, budget) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("radbg: {e}");
            return ExitCode::FAILURE;
        }
    };
    let x = compare::render(&figures, &ptxas);
    if args.json {
        let mut j = crate::command::render::answer_json(&x.answer);
        if let Some(o) = j.as_object_mut() {
            o.insert("target".into(), serde_json::json!(sm));
            o.insert("note".into(), serde_json::json!(note));
        }
        super::output::outln(&j.to_string());
    } else {
        super::output::out(&format!(
            "{exe} -v -arch={sm}{}\n",
            budget.map(|b| format!(" --maxrregcount={b}")).unwrap_or_default()
        ));
        super::output::out(&x.text);
    }
    // Nothing compared (no function of radbg's run in ptxas's report) or a function
    // radbg failed to allocate is a failure, so scripts can rely on the status.
    let compared = figures.iter().any(|f| ptxas.iter().any(|p| p.name == f.name));
    if !compared || failed {
        if !compared {
            eprintln!("radbg: nothing compared: ptxas reported none of radbg's functions");
        }
        if failed {
            eprintln!("radbg: radbg's allocation failed");
        }
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

/// A `.target` older than the ptxas accepts: compared at the oldest it does accept
/// (the options changed to it), and the note saying so, printed.
fn map_target(exe: &str, module: &crate::ir::Module, opts: &mut crate::engine::RunOptions) -> Option<String> {
    let target = opts.sm.clone().unwrap_or_else(|| module.sm.clone());
    let (version, note) = if target.suffix.is_empty() {
        compare::map_target(target.version, &compare::supported_sms(exe))
    } else {
        (target.version, None)
    };
    if let Some(n) = &note {
        eprintln!("radbg: {n}");
        opts.sm = Some(crate::ir::Sm { version, suffix: String::new() });
    }
    note
}

/// What radbg's run of a module gives the comparison.
struct RadbgSide {
    figures: Vec<crate::why::whatif::Figures>,
    sm: String,
    budget: Option<u32>,
    /// An allocation failed.
    failed: bool,
}

fn radbg_side(module: crate::ir::Module, opts: crate::engine::RunOptions) -> RadbgSide {
    let (m, _) = crate::why::run_module(module, opts);
    RadbgSide {
        figures: crate::why::whatif::figures(&m),
        sm: m.module.sm.to_string(),
        budget: m.module.options.maxrregcount,
        failed: m.funcs.iter().any(|r| r.alloc.as_deref().is_some_and(|a| a.failure().is_some())),
    }
}
