//! The real-kernel gate (issue 22) and its dev/test split (issue 23): radbg over the gate set
//! that `.ci/gate-ptx.sh` builds (`~/.cache/radbg-gate`: 31 independent public projects, their
//! PTX files named `SOURCE__FILE.sm_NN.ptx`), counting per budget the kernels, checker faults,
//! failed allocations where ptxas succeeds, importer rejections of PTX that ptxas accepts, and
//! panics, and listing each failure.
//!
//! The split (`tests/gate/split.tsv`, compiled in) assigns every source to the development or
//! the test part, once; the test part is only ever counted and scored, never listed row by row.
//!
//! Owns the split, the classification of failures and their counts; the runs themselves are
//! [`crate::fidelity::run_filtered`]'s.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::fidelity::oracle::OracleKind;
use crate::fidelity::score::{Row, budget_label};
use crate::fidelity::{Report, render};

/// The split as committed: `source<TAB>dev|test` lines, `#` comments.
pub const DEFAULT_SPLIT: &str = include_str!("../../tests/gate/split.tsv");

/// A part of the gate set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Part {
    Dev,
    Test,
}

impl Part {
    pub fn name(self) -> &'static str {
        match self {
            Part::Dev => "dev",
            Part::Test => "test",
        }
    }
}

/// Which part(s) a command looks at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Which {
    Dev,
    Test,
    All,
}

impl Which {
    pub fn parse(s: &str) -> Result<Which, String> {
        match s {
            "dev" => Ok(Which::Dev),
            "test" => Ok(Which::Test),
            "all" => Ok(Which::All),
            _ => Err(format!("--part {s}: expected dev, test or all")),
        }
    }
    pub fn includes(self, p: Part) -> bool {
        matches!((self, p), (Which::All, _) | (Which::Dev, Part::Dev) | (Which::Test, Part::Test))
    }
}

/// Source name → part.
pub type Split = BTreeMap<String, Part>;

/// Parses a split file (`name` names it in errors).
pub fn parse_split(name: &str, text: &str) -> Result<Split, String> {
    let mut m = Split::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut f = line.split('\t');
        let (Some(src), Some(part), None) = (f.next(), f.next(), f.next()) else {
            return Err(format!("{name}:{}: expected `source<TAB>dev|test`", i + 1));
        };
        let part = match part.trim() {
            "dev" => Part::Dev,
            "test" => Part::Test,
            p => return Err(format!("{name}:{}: part `{p}` is neither dev nor test", i + 1)),
        };
        if m.insert(src.trim().to_string(), part).is_some() {
            return Err(format!("{name}:{}: source `{}` listed twice", i + 1, src.trim()));
        }
    }
    Ok(m)
}

/// The source of a gate PTX file: the part of its name before `__`.
pub fn source_of(file: &str) -> &str {
    file.split_once("__").map_or(file, |(s, _)| s)
}

/// The gate directory: `$RADBG_GATE_CACHE`, else `~/.cache/radbg-gate`.
pub fn default_gate() -> Option<PathBuf> {
    match std::env::var("RADBG_GATE_CACHE") {
        Ok(d) => Some(PathBuf::from(d)),
        Err(_) => std::env::var("HOME").ok().map(|h| PathBuf::from(h).join(".cache/radbg-gate")),
    }
}

/// What kind of failure a gate row is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum FailKind {
    /// The checker found a wrong assignment in radbg's own allocation.
    CheckerFault,
    /// radbg's allocation failed where ptxas compiled the function.
    AllocFailure,
    /// radbg's importer rejected PTX that ptxas accepts (or lost a function ptxas compiled).
    Rejected,
    /// radbg panicked on the file.
    Panic,
}

impl FailKind {
    pub fn name(self) -> &'static str {
        match self {
            FailKind::CheckerFault => "checker-fault",
            FailKind::AllocFailure => "alloc-failure",
            FailKind::Rejected => "rejected",
            FailKind::Panic => "panic",
        }
    }
    pub fn parse(s: &str) -> Option<FailKind> {
        [FailKind::CheckerFault, FailKind::AllocFailure, FailKind::Rejected, FailKind::Panic]
            .into_iter()
            .find(|k| k.name() == s)
    }
}

/// One failure: a function of a file at a budget, and the first line of radbg's message.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Failure {
    pub file: String,
    pub function: String,
    pub budget: Option<u32>,
    pub kind: FailKind,
    pub message: String,
}

/// The counts of one part at one budget.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub budget: Option<u32>,
    pub kernels: usize,
    pub checker_faults: usize,
    pub alloc_failures: usize,
    pub rejected: usize,
    pub panics: usize,
}

impl Counts {
    pub fn failures(&self) -> usize {
        self.checker_faults + self.alloc_failures + self.rejected + self.panics
    }
}

/// One part of the gate: its rows scored as the fidelity report scores them, its counts and
/// failures.
#[derive(Clone, Debug, PartialEq)]
pub struct PartReport {
    pub part: Part,
    pub sources: usize,
    pub report: Report,
    pub counts: Vec<Counts>,
    pub failures: Vec<Failure>,
}

fn first_line(s: &str) -> String {
    s.lines().next().unwrap_or("").to_string()
}

/// Where ptxas compiled the function: entries with a register count; device functions
/// (ptxas reports no count for them) whenever they have a record.
fn ptxas_compiled(r: &Row) -> bool {
    r.kind == OracleKind::Func || r.ptxas_regs.is_some()
}

/// The failures of one row (at most one per kind).
fn row_failures(r: &Row) -> Vec<Failure> {
    let mk = |kind, message: &str| Failure {
        file: r.file.clone(),
        function: r.function.clone(),
        budget: r.budget,
        kind,
        message: first_line(message),
    };
    let mut out = Vec::new();
    if r.missing {
        out.push(mk(FailKind::Rejected, r.faults.first().map_or("", String::as_str)));
        return out;
    }
    let checks = if r.alloc_failed { &r.faults[..r.faults.len().saturating_sub(1)] } else { &r.faults[..] };
    if let Some(c) = checks.first() {
        out.push(mk(FailKind::CheckerFault, c));
    }
    if r.alloc_failed && ptxas_compiled(r) {
        out.push(mk(FailKind::AllocFailure, r.faults.last().map_or("", String::as_str)));
    }
    out
}

/// Counts and failures of a report (all of its rows and failed runs).
pub fn classify(report: &Report) -> (Vec<Counts>, Vec<Failure>) {
    let mut counts: BTreeMap<(u8, std::cmp::Reverse<u32>), Counts> = BTreeMap::new();
    let key = |b: Option<u32>| match b {
        None => (0, std::cmp::Reverse(0)),
        Some(n) => (1, std::cmp::Reverse(n)),
    };
    let mut failures = Vec::new();
    for r in &report.rows {
        let c = counts.entry(key(r.budget)).or_insert_with(|| Counts { budget: r.budget, ..Counts::default() });
        c.kernels += 1;
        for f in row_failures(r) {
            match f.kind {
                FailKind::CheckerFault => c.checker_faults += 1,
                FailKind::AllocFailure => c.alloc_failures += 1,
                FailKind::Rejected => c.rejected += 1,
                FailKind::Panic => c.panics += 1,
            }
            failures.push(f);
        }
    }
    for j in &report.failed {
        let c = counts.entry(key(j.budget)).or_insert_with(|| Counts { budget: j.budget, ..Counts::default() });
        let kind = if j.panicked { FailKind::Panic } else { FailKind::Rejected };
        for func in &j.functions {
            c.kernels += 1;
            if j.panicked {
                c.panics += 1;
            } else {
                c.rejected += 1;
            }
            failures.push(Failure {
                file: j.file.clone(),
                function: func.clone(),
                budget: j.budget,
                kind,
                message: first_line(&j.message),
            });
        }
    }
    failures.sort_by(|a, b| {
        (key(a.budget), &a.file, &a.function, a.kind).cmp(&(key(b.budget), &b.file, &b.function, b.kind))
    });
    (counts.into_values().collect(), failures)
}

/// Runs the gate in `dir` over the parts `which` selects, files filtered further by `keep`
/// (a sample; `|_| true` for all). Every source of the gate must be in `split`.
pub fn run(
    dir: &Path,
    split: &Split,
    which: Which,
    settings: &crate::fidelity::Settings,
    threads: usize,
    keep: &dyn Fn(&str) -> bool,
) -> Result<Vec<PartReport>, String> {
    let oracle_path = dir.join("oracle.json");
    let text =
        std::fs::read_to_string(&oracle_path).map_err(|e| format!("cannot read {}: {e}", oracle_path.display()))?;
    let records = crate::fidelity::oracle::parse(&oracle_path.display().to_string(), &text)?;
    let mut unsplit: Vec<&str> =
        records.iter().map(|r| source_of(&r.file)).filter(|s| !split.contains_key(*s)).collect();
    unsplit.dedup();
    if let Some(s) = unsplit.first() {
        return Err(format!("{}: source `{s}` is not in the split file (tests/gate/split.tsv)", oracle_path.display()));
    }
    let mut out = Vec::new();
    for part in [Part::Dev, Part::Test] {
        if !which.includes(part) {
            continue;
        }
        let in_part = |f: &str| split.get(source_of(f)) == Some(&part) && keep(f);
        let report = crate::fidelity::run_filtered(dir, settings, threads, &in_part)?;
        let mut sources: Vec<&str> = report.rows.iter().map(|r| source_of(&r.file)).collect();
        sources.extend(report.failed.iter().map(|f| source_of(&f.file)));
        sources.sort_unstable();
        sources.dedup();
        let (counts, failures) = classify(&report);
        out.push(PartReport { part, sources: sources.len(), report, counts, failures });
    }
    Ok(out)
}

/// The counts table of the parts, one line per part and budget.
pub fn counts_table(parts: &[PartReport]) -> String {
    let mut s =
        String::from("part  budget   | kernels | checker faults | failed allocations | rejected PTX | panics\n");
    for p in parts {
        for c in &p.counts {
            s.push_str(&format!(
                "{:<5} {:<8} | {:>7} | {:>14} | {:>18} | {:>12} | {:>6}\n",
                p.part.name(),
                budget_label(c.budget),
                c.kernels,
                c.checker_faults,
                c.alloc_failures,
                c.rejected,
                c.panics
            ));
        }
    }
    s
}

/// The failure list of one part (the development part only: the test part is never listed).
pub fn failure_list(p: &PartReport) -> String {
    let mut s = String::new();
    for f in &p.failures {
        s.push_str(&format!("{} {} {} {}: {}\n", f.file, f.function, budget_label(f.budget), f.kind.name(), f.message));
    }
    s
}

/// The whole gate report as text: counts, fidelity beside the naive estimate for each part,
/// and the development part's failures.
pub fn text(parts: &[PartReport]) -> String {
    let mut s = String::from("radbg on the real-kernel gate (ptxas 13.0.88 as the oracle)\n");
    for p in parts {
        s.push_str(&format!(
            "{} part: {} sources, {} PTX files\n",
            p.part.name(),
            p.sources,
            p.report
                .rows
                .iter()
                .map(|r| &r.file)
                .chain(p.report.failed.iter().map(|f| &f.file))
                .collect::<std::collections::BTreeSet<_>>()
                .len()
        ));
    }
    s.push('\n');
    s.push_str(&counts_table(parts));
    for p in parts {
        s.push_str(&format!(
            "\n{} part: radbg and the naive estimate (errors in percent of ptxas's count)\n",
            p.part.name()
        ));
        s.push_str(&render::summary_table(&p.report));
    }
    for p in parts.iter().filter(|p| p.part == Part::Dev) {
        s.push_str(&format!("\ndev part: {} failures\n", p.failures.len()));
        s.push_str(&failure_list(p));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_parses_and_rejects_bad_lines() {
        let s = parse_split("s", "# header\nfoo\tdev\nbar\ttest\n\n").unwrap();
        assert_eq!(s.get("foo"), Some(&Part::Dev));
        assert_eq!(s.get("bar"), Some(&Part::Test));
        assert!(parse_split("s", "foo dev\n").unwrap_err().contains("s:1"));
        assert!(parse_split("s", "foo\tmaybe\n").unwrap_err().contains("neither"));
        assert!(parse_split("s", "foo\tdev\nfoo\ttest\n").unwrap_err().contains("twice"));
    }

    #[test]
    fn the_committed_split_parses_and_has_both_parts() {
        let s = parse_split("split.tsv", DEFAULT_SPLIT).unwrap();
        assert!(s.values().any(|p| *p == Part::Dev) && s.values().any(|p| *p == Part::Test));
    }

    #[test]
    fn parts_parse_and_select() {
        assert_eq!(Which::parse("dev"), Ok(Which::Dev));
        assert!(Which::parse("Dev").unwrap_err().contains("expected dev, test or all"));
        assert!(Which::All.includes(Part::Test) && Which::Test.includes(Part::Test));
        assert!(!Which::Dev.includes(Part::Test) && !Which::Test.includes(Part::Dev));
    }

    #[test]
    fn sources_come_from_the_file_name() {
        assert_eq!(source_of("ggml__llama.cpp_ggml_src_ggml-cuda_acc.sm_80.ptx"), "ggml");
        assert_eq!(source_of("plain.sm_80.ptx"), "plain.sm_80.ptx");
    }

    fn row(kind: OracleKind, regs: Option<u32>, faults: &[&str], alloc_failed: bool) -> Row {
        Row {
            file: "s__f.sm_80.ptx".into(),
            function: "k".into(),
            kind,
            sm: "sm_80".into(),
            budget: Some(32),
            ptxas_regs: regs,
            ptxas_stores: 0,
            ptxas_loads: 0,
            ptxas_frame: 0,
            radbg_regs: 0,
            radbg_stores: 0,
            radbg_loads: 0,
            radbg_frame: 0,
            radbg_peak: 0,
            naive_peak: 0,
            faults: faults.iter().map(|s| s.to_string()).collect(),
            alloc_failed,
            missing: false,
        }
    }

    #[test]
    fn rows_are_classified_by_what_failed() {
        let kinds = |r: &Row| row_failures(r).into_iter().map(|f| f.kind).collect::<Vec<_>>();
        assert!(kinds(&row(OracleKind::Entry, Some(30), &[], false)).is_empty());
        assert_eq!(kinds(&row(OracleKind::Entry, Some(30), &["a\nmore"], false)), [FailKind::CheckerFault]);
        assert_eq!(
            kinds(&row(OracleKind::Entry, Some(30), &["a", "alloc"], true)),
            [FailKind::CheckerFault, FailKind::AllocFailure]
        );
        // ptxas failed too: not a gate failure.
        assert!(kinds(&row(OracleKind::Entry, None, &["alloc"], true)).is_empty());
        let mut m = row(OracleKind::Func, None, &["no function named k"], false);
        m.missing = true;
        assert_eq!(kinds(&m), [FailKind::Rejected]);
        assert_eq!(row_failures(&row(OracleKind::Entry, Some(3), &["a\nmore"], false))[0].message, "a");
    }
}
