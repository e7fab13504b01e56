//! PTX that ptxas 13.0.88 rejects is rejected by radbg's importer too, at the offending
//! line (`src/ir/ptx/validate.rs`; issue 29: `radbg reduce` produced such PTX).
//!
//! `tests/ptx_reject/NAME.ptx`: one rule each; the header says what the file does wrong,
//! `// radbg: TEXT` what radbg's error must say and `// ptxas: TEXT` what ptxas's does, and
//! the offending line ends in `// rejected`. `tests/ptx_reject/accept/*.ptx`: the near
//! misses (same shapes, legal) that both must accept — the rules must never reject PTX
//! ptxas accepts. With the real ptxas installed (the corpus build, `$RADBG_PTXAS`) the
//! last test runs it on every file to prove the expectations; without it that test
//! says so and passes.

use std::path::{Path, PathBuf};

fn files(dir: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{dir}: {e}"))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "ptx"))
        .collect();
    v.sort();
    v
}

fn header(text: &str, key: &str) -> String {
    text.lines()
        .find_map(|l| l.strip_prefix(&format!("// {key}: ")))
        .unwrap_or_else(|| panic!("no '// {key}:' header"))
        .to_string()
}

fn name(p: &Path) -> String {
    p.display().to_string()
}

#[test]
fn radbg_rejects_each_at_its_line() {
    let all = files("tests/ptx_reject");
    assert!(all.len() >= 20, "expected the rule files, found {}", all.len());
    for p in all {
        let text = std::fs::read_to_string(&p).expect("read");
        let line = text.lines().position(|l| l.ends_with("// rejected")).expect("a '// rejected' line") + 1;
        let want = header(&text, "radbg");
        let err = match radbg::ir::ptx::import_str(&name(&p), &text) {
            Ok(_) => panic!("{}: radbg imported it; ptxas rejects it ({})", name(&p), header(&text, "ptxas")),
            Err(e) => e,
        };
        let at = format!("{}:{line}:", name(&p));
        assert!(
            err.lines().any(|l| l.starts_with(&at) && l.contains("error: ") && l.contains(&want)),
            "{}: expected an error at line {line} saying '{want}', got:\n{err}",
            name(&p)
        );
    }
}

#[test]
fn radbg_accepts_the_near_misses() {
    for p in files("tests/ptx_reject/accept") {
        let text = std::fs::read_to_string(&p).expect("read");
        if let Err(e) = radbg::ir::ptx::import_str(&name(&p), &text) {
            panic!("{}: ptxas accepts it, radbg rejects it:\n{e}", name(&p));
        }
    }
}

#[test]
fn the_real_ptxas_agrees() {
    let exe = match radbg::reduce::ptxas::find(None) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("skipping the ptxas half of tests/ptx_reject.rs: {e}");
            return;
        }
    };
    for p in files("tests/ptx_reject") {
        let text = std::fs::read_to_string(&p).expect("read");
        let want = header(&text, "ptxas");
        match radbg::reduce::ptxas::run(&exe, &text, "sm_80", None) {
            Ok(_) => panic!("{}: ptxas accepted it (expected '{want}')", name(&p)),
            Err(e) => assert!(e.contains(&want), "{}: expected ptxas to say '{want}', it said:\n{e}", name(&p)),
        }
    }
    for p in files("tests/ptx_reject/accept") {
        let text = std::fs::read_to_string(&p).expect("read");
        if let Err(e) = radbg::reduce::ptxas::run(&exe, &text, "sm_80", None) {
            panic!("{}: ptxas rejects it:\n{e}", name(&p));
        }
    }
}
