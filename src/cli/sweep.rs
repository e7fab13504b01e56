//! `radbg sweep FILE [--maxrregcount A..B[:STEP]] [--knob NAME=A..B[:STEP]] [--svg FILE]`:
//! the `ptxas -v` loop people write by hand, as one table with the knees marked, run on
//! every core: only the rows where something changes (`--all` for every value);
//! `--svg` writes the chart (a panel per function, registers and spill bytes on axes
//! of their own).
//!
//! Owns argument handling and output; the sweep is `crate::why::sweep`.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::why::sweep::{self, Axis};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// An Ori IR (.ori) or PTX (.ptx) file.
    pub file: PathBuf,
    /// Budgets to sweep, A..B or A..B:STEP (default: 16 24 32 40 48 56 64 72 80 96 128 168 255).
    #[arg(long = "maxrregcount", value_name = "A..B")]
    pub budgets: Option<String>,
    /// Sweep a knob instead: NAME=A..B[:STEP].
    #[arg(long = "knob", value_name = "NAME=A..B", conflicts_with = "budgets")]
    pub knob: Option<String>,
    #[arg(long, value_name = "SM", value_parser = crate::engine::settings::sm)]
    pub sm: Option<crate::ir::Sm>,
    /// Write the chart as SVG: a panel per function, registers and spill bytes each on
    /// its own axis, the knees marked (rsvg-convert FILE.svg -o FILE.png for a PNG).
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,
    /// Threads to run on (default: the available cores).
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Print JSON instead of the table.
    #[arg(long)]
    pub json: bool,
    /// List every value (default: only the rows where something changes).
    #[arg(long)]
    pub all: bool,
}

pub fn run(args: &Args) -> ExitCode {
    let pa = super::PipelineArgs { sm: args.sm.clone(), ..Default::default() };
    // A PTX file of many call groups is swept one group at a time (`super::stream`):
    // memory bounded by the largest group, not the file (issue 25).
    if let Some(code) = super::stream::with_plan(&args.file, jobs(args), |plan| streamed(args, &pa, plan)) {
        return code;
    }
    let (module, opts) = match super::load_for_pipeline(&args.file, &pa) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let (axis, values) = match axis(args, &module, &opts) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let rows = match sweep::run(&module, &opts, &axis, &values, jobs(args)) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("radbg: {e}");
            return ExitCode::FAILURE;
        }
    };
    if let Some(n) = sweep::floor_note(&axis, &values, &opts) {
        eprintln!("radbg: note: {n}");
    }
    print(args, &rows, &axis)
}

/// The sweep of a file of several call groups, group by group: each group's rows put
/// in the whole module's function order. `None` when a group does not import as it did
/// when planned (the caller then sweeps the whole module).
fn streamed(args: &Args, pa: &super::PipelineArgs, plan: &crate::ir::ptx::stream::Plan<'_>) -> Option<ExitCode> {
    let mut opts = super::run_options(pa);
    opts.imported = true;
    let (axis, values) = match axis(args, &plan.import(0)?, &opts) {
        Ok(x) => x,
        Err(code) => return Some(code),
    };
    let mut slots: Vec<Vec<Option<crate::why::whatif::Figures>>> = vec![vec![None; plan.functions()]; values.len()];
    // The groups share the threads (each sweeping its rows on one): a group's rows are
    // few and short, and a second thread waiting for a row's shared start costs more
    // than it gains.
    let parts = super::stream::map_groups(plan, jobs(args), &|_, m| Some(sweep::run(&m, &opts, &axis, &values, 1)))?;
    for (k, rows) in parts.into_iter().enumerate() {
        let rows = match rows {
            Ok(r) => r,
            Err(e) => {
                eprintln!("radbg: {e}");
                return Some(ExitCode::FAILURE);
            }
        };
        for (slot, row) in slots.iter_mut().zip(rows) {
            for (&id, f) in plan.ids(k).iter().zip(row.funcs) {
                *slot.get_mut(id)? = Some(f);
            }
        }
    }
    if let Some(n) = sweep::floor_note(&axis, &values, &opts) {
        eprintln!("radbg: note: {n}");
    }
    let mut rows = Vec::with_capacity(values.len());
    for (&value, funcs) in values.iter().zip(slots) {
        rows.push(sweep::Row { value, funcs: funcs.into_iter().collect::<Option<Vec<_>>>()? });
    }
    Some(print(args, &rows, &axis))
}

/// What is swept and its values, from the arguments (a note when a knob changes nothing
/// in `module`); the exit code of the error otherwise.
fn axis(
    args: &Args,
    module: &crate::ir::Module,
    opts: &crate::engine::RunOptions,
) -> Result<(Axis, Vec<i64>), ExitCode> {
    let parsed = match (&args.knob, &args.budgets) {
        (Some(k), _) => match k.split_once('=') {
            Some((n, r)) => crate::engine::settings::knob_name(n)
                .map_err(|e| format!("--knob {k}: {e}"))
                .and_then(|_| sweep::parse_range(r))
                .map(|v| (Axis::Knob(n.trim().to_string()), v)),
            None => Err(format!("--knob {k}: expected NAME=A..B")),
        },
        (None, Some(b)) => sweep::budget_range(b).map(|v| (Axis::MaxRegCount, v)),
        (None, None) => Ok((Axis::MaxRegCount, sweep::DEFAULT_BUDGETS.iter().map(|&b| b as i64).collect())),
    };
    let (axis, values) = match parsed {
        Ok(x) => x,
        Err(e) => {
            eprintln!("radbg: {e}");
            return Err(ExitCode::from(2));
        }
    };
    // Issue 24: sweeping a knob that changes nothing here says why (as `--knob` does).
    if let (Axis::Knob(name), Some(k)) = (&axis, &args.knob)
        && let Some(n) = crate::engine::settings::knob_name(name)
            .ok()
            .and_then(|info| info.setting_note(&crate::engine::settings::knobs_in_force(&module.knobs, opts)))
    {
        eprintln!("radbg: note: --knob {k}: {n}");
    }
    Ok((axis, values))
}

fn jobs(args: &Args) -> usize {
    super::stream::jobs(args.jobs)
}

/// The table (or JSON) and the SVG chart.
fn print(args: &Args, rows: &[sweep::Row], axis: &Axis) -> ExitCode {
    let x = sweep::render(rows, axis, args.all);
    if args.json {
        super::output::outln(&crate::command::render::answer_json(&x.answer).to_string());
    } else {
        super::output::out(&x.text);
    }
    if let Some(p) = &args.svg {
        if let Err(e) = std::fs::write(p, sweep::svg(rows, axis)) {
            eprintln!("radbg: cannot write {}: {e}", p.display());
            return ExitCode::FAILURE;
        }
        eprintln!("radbg: wrote {}", p.display());
    }
    ExitCode::SUCCESS
}
