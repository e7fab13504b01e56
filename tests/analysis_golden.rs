//! Golden tests of `analysis::live_report` (the text behind `radbg check --live`) on
//! session kernels and the kernels in `tests/analysis_golden/`. Each `NAME.ori` (from
//! either place) is compared with `tests/analysis_golden/NAME.live`; `UPDATE_EXPECT=1 cargo test`
//! rewrites the expectations.

mod common;

use std::path::{Path, PathBuf};

use radbg::analysis::live_report;
use radbg::ir::parse::parse_module;
use radbg::ir::span::SourceFile;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn check(input: &Path) {
    let text = std::fs::read_to_string(input).unwrap_or_else(|e| panic!("{}: {e}", input.display()));
    let (m, _, diags) = parse_module(&SourceFile::new(input.display().to_string(), text));
    let errors: Vec<_> = diags.iter().filter(|d| d.is_error()).collect();
    assert!(errors.is_empty(), "{}: {errors:?}", input.display());
    let got = live_report(&m);
    let name = input.file_stem().unwrap().to_string_lossy().to_string();
    if let Some(problem) = common::golden(&root().join("tests/analysis_golden").join(format!("{name}.live")), &got) {
        panic!("{}: {problem}", input.display());
    }
}

#[test]
fn session_uninit_warns() {
    check(&root().join("sessions/uninit.ori"));
    let text = std::fs::read_to_string(root().join("tests/analysis_golden/uninit.live")).unwrap();
    assert!(text.contains("warning: Found 2 potentially uninitialized register(s) in function partial_sum"));
}

/// Session kernels whose reports are pinned (the `check --live` output for them).
const SESSIONS: &[&str] = &["saxpy", "stencil_loops", "pairs_quads", "predicates", "uniform", "reduction"];

#[test]
fn session_kernels() {
    for name in SESSIONS {
        check(&root().join(format!("sessions/{name}.ori")));
    }
}

#[test]
fn golden_kernels() {
    let dir = root().join("tests/analysis_golden");
    let mut inputs: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "ori"))
        .collect();
    inputs.sort();
    assert!(inputs.len() >= 2);
    for p in inputs {
        check(&p);
    }
}
