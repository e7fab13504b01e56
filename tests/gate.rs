//! The real-kernel gate test (issue 22): runs radbg over a bounded, deterministic sample of the
//! gate set that `.ci/gate-ptx.sh` builds (the `SAMPLE` smallest PTX files of every source,
//! up to 400 KB, both parts, at the default budget, 64 and 32) and fails on any checker fault, failed
//! allocation where ptxas succeeds, importer rejection of PTX ptxas accepts, or panic that is
//! not already known:
//! - development part: `tests/gate/known_failures.tsv`, one row per kernel × budget with the
//!   reason (delete a row once its cause is fixed; the test names rows that pass again);
//! - test part (never listed kernel by kernel, issue 23): `tests/gate/test_part_max.tsv`, the
//!   most failures of each kind per budget the sample may have.
//!
//! `UPDATE_EXPECT=1` rewrites both files from the run. Skips, saying why, when the gate cache is
//! absent — except under `CI=true`, where that is a failure.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use radbg::fidelity::gate::{self, FailKind, Part, Which};
use radbg::fidelity::score::budget_label;

/// PTX files per source in the sample (the smallest, by size then name).
const SAMPLE: usize = 3;
/// Files larger than this stay out of the sample: a debug build takes minutes on them.
const SAMPLE_MAX_BYTES: u64 = 400_000;
const KNOWN: &str = "tests/gate/known_failures.tsv";
const TEST_MAX: &str = "tests/gate/test_part_max.tsv";

fn gate_dir() -> Option<PathBuf> {
    let dir = gate::default_gate()?;
    dir.join("oracle.json").is_file().then_some(dir)
}

/// The sample: per source, the `SAMPLE` smallest PTX files.
fn sample(dir: &Path) -> BTreeSet<String> {
    let mut by_source: BTreeMap<String, Vec<(u64, String)>> = BTreeMap::new();
    for e in std::fs::read_dir(dir.join("ptx")).expect("gate ptx/ readable").flatten() {
        let name = e.file_name().to_string_lossy().to_string();
        if !name.ends_with(".ptx") {
            continue;
        }
        let size = e.metadata().map(|m| m.len()).unwrap_or(u64::MAX);
        if size > SAMPLE_MAX_BYTES {
            continue;
        }
        by_source.entry(gate::source_of(&name).to_string()).or_default().push((size, name));
    }
    let mut out = BTreeSet::new();
    for files in by_source.values_mut() {
        files.sort();
        out.extend(files.iter().take(SAMPLE).map(|(_, n)| n.clone()));
    }
    out
}

type Key = (String, String, String, String);

fn key(f: &gate::Failure) -> Key {
    (f.file.clone(), f.function.clone(), budget_label(f.budget), f.kind.name().to_string())
}

fn read_known(path: &Path) -> BTreeMap<Key, String> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let mut m = BTreeMap::new();
    for (i, line) in text.lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let f: Vec<&str> = line.splitn(5, '\t').collect();
        assert!(f.len() == 5, "{KNOWN}:{}: expected file, function, budget, kind, reason", i + 1);
        assert!(FailKind::parse(f[3]).is_some(), "{KNOWN}:{}: unknown kind {}", i + 1, f[3]);
        m.insert((f[0].into(), f[1].into(), f[2].into(), f[3].into()), f[4].to_string());
    }
    m
}

fn read_max(path: &Path) -> BTreeMap<(String, String), usize> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let mut m = BTreeMap::new();
    for (i, line) in text.lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let f: Vec<&str> = line.split('\t').collect();
        assert!(f.len() == 3, "{TEST_MAX}:{}: expected budget, kind, count", i + 1);
        m.insert((f[0].into(), f[1].into()), f[2].parse().unwrap_or_else(|_| panic!("{TEST_MAX}:{}: count", i + 1)));
    }
    m
}

fn counts_by_kind(c: &gate::Counts) -> [(&'static str, usize); 4] {
    [
        (FailKind::CheckerFault.name(), c.checker_faults),
        (FailKind::AllocFailure.name(), c.alloc_failures),
        (FailKind::Rejected.name(), c.rejected),
        (FailKind::Panic.name(), c.panics),
    ]
}

#[test]
fn the_gate_sample_has_no_new_failure() {
    let Some(dir) = gate_dir() else {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "gate cache absent (no oracle.json in $RADBG_GATE_CACHE or ~/.cache/radbg-gate): run .ci/gate-ptx.sh"
        );
        eprintln!("gate cache absent (no oracle.json; run .ci/gate-ptx.sh): skipping the gate test");
        return;
    };
    let split = gate::parse_split("tests/gate/split.tsv", gate::DEFAULT_SPLIT).expect("split parses");
    let files = sample(&dir);
    let parts = gate::run(&dir, &split, Which::All, &radbg::fidelity::Settings::default(), 2, &|f| files.contains(f))
        .expect("gate run");
    eprint!("{}", gate::counts_table(&parts));
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let dev = parts.iter().find(|p| p.part == Part::Dev).expect("dev part");
    let test = parts.iter().find(|p| p.part == Part::Test).expect("test part");
    if common::updating() {
        let mut s = String::from(
            "# Known gate failures of the development part (tests/gate.rs's sample): file, function, budget,\n\
             # kind, radbg's message. Delete a row when its cause is fixed; a new failure fails the test.\n",
        );
        for f in &dev.failures {
            s.push_str(&format!(
                "{}\t{}\t{}\t{}\t{}\n",
                f.file,
                f.function,
                budget_label(f.budget),
                f.kind.name(),
                f.message
            ));
        }
        std::fs::write(root.join(KNOWN), s).expect("write known failures");
        let mut s = String::from(
            "# The test part's failures in tests/gate.rs's sample, counts only (issue 23: never listed by kernel):\n\
             # budget, kind, the most allowed. Lower a count when a fix brings it down.\n",
        );
        for c in &test.counts {
            for (k, n) in counts_by_kind(c) {
                s.push_str(&format!("{}\t{k}\t{n}\n", budget_label(c.budget)));
            }
        }
        std::fs::write(root.join(TEST_MAX), s).expect("write test part counts");
        return;
    }
    let known = read_known(&root.join(KNOWN));
    let mut new = Vec::new();
    let mut seen = BTreeSet::new();
    for f in &dev.failures {
        let k = key(f);
        if !known.contains_key(&k) {
            new.push(format!("{} {} {} {}: {}", f.file, f.function, budget_label(f.budget), f.kind.name(), f.message));
        }
        seen.insert(k);
    }
    let fixed: Vec<_> = known.keys().filter(|k| files.contains(&k.0) && !seen.contains(*k)).collect();
    if !fixed.is_empty() {
        eprintln!("{} known failures pass now (delete their rows from {KNOWN}):", fixed.len());
        for k in fixed {
            eprintln!("  {} {} {} {}", k.0, k.1, k.2, k.3);
        }
    }
    let max = read_max(&root.join(TEST_MAX));
    for c in &test.counts {
        for (k, n) in counts_by_kind(c) {
            let allowed = max.get(&(budget_label(c.budget), k.to_string())).copied().unwrap_or(0);
            if n > allowed {
                new.push(format!("test part, budget {}: {n} {k} (at most {allowed})", budget_label(c.budget)));
            }
        }
    }
    assert!(new.is_empty(), "new gate failures:\n{}", new.join("\n"));
}
