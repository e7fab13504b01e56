//! Golden tests of `analysis::live_report` (the text behind `radbg check --live`) on
//! session kernels and the kernels in `tests/analysis_golden/`. Each `NAME.ori` is
//! compared with `tests/analysis_golden/NAME.live`; `UPDATE_EXPECT=1 cargo test`
//! rewrites the expectations.

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
    let expect = root().join("tests/analysis_golden").join(format!("{name}.live"));
    if std::env::var_os("UPDATE_EXPECT").is_some() {
        std::fs::write(&expect, &got).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&expect)
        .unwrap_or_else(|e| panic!("{}: {e} (run with UPDATE_EXPECT=1 to create it)", expect.display()));
    if got != want {
        let diff = similar::TextDiff::from_lines(&want, &got);
        panic!("{} differs from {}:\n{}", input.display(), expect.display(), diff.unified_diff());
    }
}

#[test]
fn session_uninit_warns() {
    check(&root().join("sessions/uninit.ori"));
    let text = std::fs::read_to_string(root().join("tests/analysis_golden/uninit.live")).unwrap();
    assert!(text.contains("warning: Found 2 potentially uninitialized register(s) in function partial_sum"));
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
