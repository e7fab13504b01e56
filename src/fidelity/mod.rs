//! The fidelity report (issue 13): radbg against the real ptxas 13.0.88 on the real-kernel
//! corpus (`/work/shared/corpus/`, built into `~/.cache/radbg-corpus/`). For every oracle
//! record — a function of a PTX file at an SM and a budget (default, 64, 32) — radbg
//! imports the file and runs its whole pipeline; the naive estimate (peak live PTX
//! registers + 3, clamped to the budget) runs beside it; [`score`] turns both into the
//! per-budget figures the goal is stated in.
//!
//! Owns the corpus walk and the work split over threads; must not know the pipeline's
//! stages (it runs the engine as `radbg run` does).

pub mod gate;
pub mod measure;
pub mod oracle;
pub mod render;
pub mod score;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

pub use measure::Settings;
use oracle::{OracleKind, OracleRecord};
pub use score::{BudgetSummary, Row};

/// Import + pipeline time of one file at one budget against ptxas's own compile time.
#[derive(Clone, Debug, PartialEq)]
pub struct TimeRow {
    pub file: String,
    pub budget: Option<u32>,
    pub radbg_ms: f64,
    pub ptxas_ms: Option<f64>,
}

impl TimeRow {
    pub fn ratio(&self) -> Option<f64> {
        self.ptxas_ms.filter(|&p| p > 0.0).map(|p| self.radbg_ms / p)
    }
}

/// The whole report.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    pub rows: Vec<Row>,
    pub summaries: Vec<BudgetSummary>,
    pub times: Vec<TimeRow>,
    /// Files that could not be run (import errors), rendered.
    pub errors: Vec<String>,
    /// The same runs with what the gate needs to count them: file, budget, the functions
    /// ptxas compiled in it, and whether radbg panicked (else the importer rejected it).
    pub failed: Vec<FailedRun>,
}

/// A file at one budget that radbg could not run.
#[derive(Clone, Debug, PartialEq)]
pub struct FailedRun {
    pub file: String,
    pub sm: String,
    pub budget: Option<u32>,
    /// The oracle's functions of the file at this budget (all of them fail with it).
    pub functions: Vec<String>,
    pub panicked: bool,
    pub message: String,
}

/// The corpus's PTX files (`DIR/ptx/*.ptx` of [`crate::util::corpus_cache`]), sorted; `None` when
/// the cache is absent or holds none (callers skip, saying so).
pub fn corpus_ptx_files() -> Option<Vec<PathBuf>> {
    let dir = crate::util::corpus_cache()?.join("ptx");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "ptx"))
        .collect();
    files.sort();
    (!files.is_empty()).then_some(files)
}

/// One unit of work: a PTX file at an SM and a budget, with the oracle's records for it.
struct Job {
    file: String,
    sm: String,
    budget: Option<u32>,
    records: Vec<OracleRecord>,
}

/// Sort key of a budget: default first, then the larger budgets (the order).
type BudgetKey = (u8, std::cmp::Reverse<u32>);

/// Orders budgets as the issue does: default, then the larger budgets first.
fn budget_key(b: Option<u32>) -> BudgetKey {
    match b {
        None => (0, std::cmp::Reverse(0)),
        Some(n) => (1, std::cmp::Reverse(n)),
    }
}

/// Runs the report over the corpus in `dir` (`oracle.json` and `ptx/`), on up to
/// `threads` threads (at least one).
pub fn run(dir: &Path, settings: &Settings, threads: usize) -> Result<Report, String> {
    run_filtered(dir, settings, threads, &|_| true)
}

/// [`run`] over the oracle's files that `keep` accepts (by PTX file name): the gate's
/// parts and samples.
pub fn run_filtered(
    dir: &Path,
    settings: &Settings,
    threads: usize,
    keep: &dyn Fn(&str) -> bool,
) -> Result<Report, String> {
    let oracle_path = dir.join("oracle.json");
    let text =
        std::fs::read_to_string(&oracle_path).map_err(|e| format!("cannot read {}: {e}", oracle_path.display()))?;
    let records = oracle::parse(&oracle_path.display().to_string(), &text)?;
    let mut groups: BTreeMap<(String, String, BudgetKey), Job> = BTreeMap::new();
    for r in records.into_iter().filter(|r| keep(&r.file)) {
        let key = (r.file.clone(), r.sm.clone(), budget_key(r.maxrregcount));
        groups
            .entry(key)
            .or_insert_with(|| Job { file: r.file.clone(), sm: r.sm.clone(), budget: r.maxrregcount, records: vec![] })
            .records
            .push(r);
    }
    let mut jobs: Vec<Job> = groups.into_values().collect();
    jobs.sort_by(|a, b| (budget_key(a.budget), &a.file).cmp(&(budget_key(b.budget), &b.file)));
    let mut texts: BTreeMap<String, String> = BTreeMap::new();
    for j in &jobs {
        if !texts.contains_key(&j.file) {
            let p = dir.join("ptx").join(&j.file);
            let t = std::fs::read_to_string(&p).map_err(|e| format!("cannot read {}: {e}", p.display()))?;
            texts.insert(j.file.clone(), t);
        }
    }
    // What the build's ptxas logged, kept for `reduce` and `compare` (issue 29).
    for j in &jobs {
        if let Some(t) = texts.get(&j.file) {
            crate::ptxas_cache::seed_from_build_log(dir, &j.file, t, &j.sm, j.budget);
        }
    }
    let results = run_jobs(&jobs, &texts, settings, threads.max(1));
    let mut report =
        Report { rows: Vec::new(), summaries: Vec::new(), times: Vec::new(), errors: Vec::new(), failed: Vec::new() };
    for (job, res) in jobs.iter().zip(results) {
        let ptxas_ms = job.records.iter().filter_map(|r| r.compile_ms).reduce(f64::max);
        match res {
            Ok(run) => {
                report.times.push(TimeRow {
                    file: job.file.clone(),
                    budget: job.budget,
                    radbg_ms: run.millis,
                    ptxas_ms,
                });
                for r in &job.records {
                    report.rows.push(row_of(r, run.funcs.iter().find(|f| f.name == r.function)));
                }
            }
            Err(e) => {
                report.failed.push(FailedRun {
                    file: job.file.clone(),
                    sm: job.sm.clone(),
                    budget: job.budget,
                    functions: job.records.iter().map(|r| r.function.clone()).collect(),
                    panicked: e.panicked,
                    message: e.message.clone(),
                });
                report.errors.push(e.message);
            }
        }
    }
    report.summaries = score::summarize(&report.rows);
    Ok(report)
}

/// Why a job gave no figures: an error radbg reported, or a panic caught around the job.
struct JobError {
    message: String,
    panicked: bool,
}

/// Runs one job under `catch_unwind`, so that a panic on one file is counted and the
/// others still run (issue 22: a panic is a gate failure, never the end of the report).
fn run_one(j: &Job, text: &str, settings: &Settings) -> Result<measure::FileRun, JobError> {
    let res = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        measure::run_file(&j.file, text, &j.sm, j.budget, settings)
    }));
    match res {
        Ok(r) => r.map_err(|message| JobError { message, panicked: false }),
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic without a message".to_string());
            Err(JobError { message: format!("{}: radbg panicked: {what}", j.file), panicked: true })
        }
    }
}

/// Runs every job, splitting them over `threads` scoped threads; results in job order.
fn run_jobs(
    jobs: &[Job],
    texts: &BTreeMap<String, String>,
    settings: &Settings,
    threads: usize,
) -> Vec<Result<measure::FileRun, JobError>> {
    let next = AtomicUsize::new(0);
    let mut out: Vec<(usize, Result<measure::FileRun, JobError>)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads.min(jobs.len()).max(1))
            .map(|_| {
                s.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(j) = jobs.get(i) else { break };
                        let text = texts.get(&j.file).map(String::as_str).unwrap_or("");
                        mine.push((i, run_one(j, text, settings)));
                    }
                    mine
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| {
                h.join().unwrap_or_else(|_| {
                    vec![(usize::MAX, Err(JobError { message: "a worker thread panicked".into(), panicked: true }))]
                })
            })
            .collect()
    });
    out.sort_by_key(|(i, _)| *i);
    let mut res: Vec<Result<measure::FileRun, JobError>> = (0..jobs.len())
        .map(|i| Err(JobError { message: format!("{}: not run", jobs[i].file), panicked: true }))
        .collect();
    for (i, r) in out {
        if let Some(slot) = res.get_mut(i) {
            *slot = r;
        }
    }
    res
}

fn row_of(r: &OracleRecord, f: Option<&measure::FuncRun>) -> Row {
    let mut row = Row {
        file: r.file.clone(),
        function: r.function.clone(),
        kind: r.kind,
        sm: r.sm.clone(),
        budget: r.maxrregcount,
        ptxas_regs: if r.kind == OracleKind::Entry { r.registers } else { None },
        ptxas_stores: r.spill_stores,
        ptxas_loads: r.spill_loads,
        ptxas_frame: r.stack_frame,
        radbg_regs: 0,
        radbg_stores: 0,
        radbg_loads: 0,
        radbg_frame: 0,
        radbg_peak: 0,
        naive_peak: 0,
        faults: Vec::new(),
        alloc_failed: false,
        missing: false,
    };
    match f {
        Some(f) => {
            row.radbg_regs = f.registers;
            row.radbg_stores = f.spill_stores;
            row.radbg_loads = f.spill_loads;
            row.radbg_frame = f.stack_frame;
            row.radbg_peak = f.peak;
            row.naive_peak = f.naive_peak;
            row.faults = f.faults.clone();
            row.alloc_failed = f.alloc_failed;
        }
        None => {
            row.missing = true;
            row.faults.push(format!("{}: no function named {} in radbg's import", r.file, r.function));
        }
    }
    row
}
