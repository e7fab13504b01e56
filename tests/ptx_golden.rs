//! Golden tests of the PTX importer over the hand-written files in `tests/ptx/`:
//! `NAME.ptx` → `NAME.ori.expected` (the printed Ori IR, when the import succeeds)
//! and `NAME.diag.expected` (the rendered diagnostics, when there are any). Files
//! named `bad_*` must fail. Every successful import must also re-parse to an equal
//! module and validate. `UPDATE_EXPECT=1 cargo test --test ptx_golden` rewrites the
//! expectations.

mod common;

use std::path::{Path, PathBuf};

use common::golden_or_absent;

use radbg::ir::diag::render_all;
use radbg::ir::span::SourceFile;

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ptx")
}

/// Imports one file and checks its expectations.
fn check(ptx: &Path) -> Vec<String> {
    let name = format!("tests/ptx/{}", ptx.file_name().map(|n| n.to_string_lossy()).unwrap_or_default());
    let text = std::fs::read_to_string(ptx).expect("readable test file");
    let file = SourceFile::new(name.clone(), text);
    let imp = radbg::ir::ptx::import(&file);
    let mut problems = Vec::new();
    let bad = name.contains("/bad_");
    let stem = ptx.with_extension("");
    let diags = render_all(&imp.diags, &file);
    problems.extend(golden_or_absent(&stem.with_extension("diag.expected"), &diags));
    match (&imp.module, bad) {
        (Some(_), true) => problems.push(format!("{name}: expected the import to fail")),
        (None, false) => problems.push(format!("{name}: import failed:\n{diags}")),
        _ => {}
    }
    let printed = match &imp.module {
        Some(m) => {
            let text = radbg::ir::print_module(m);
            match radbg::ir::parse::parse_named(&format!("{name}.ori"), &text) {
                // The Ori form keeps PTX lines (`.loc`), not the CUDA line table of the
                // PTX's `.file`/`.loc` (a limit recorded in ARCHITECTURE.md).
                Ok((m2, _, _)) if m2 == m.ori_form() => {}
                Ok(_) => problems.push(format!("{name}: the module changed in the round trip")),
                Err(e) => problems.push(format!("{name}: the printed module does not re-parse or validate:\n{e}")),
            }
            text
        }
        None => String::new(),
    };
    problems.extend(golden_or_absent(&stem.with_extension("ori.expected"), &printed));
    problems
}

#[test]
fn hand_written_ptx_imports_as_expected() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir())
        .expect("tests/ptx exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "ptx"))
        .collect();
    files.sort();
    assert!(files.len() >= 5, "the golden PTX files are missing");
    let problems: Vec<String> = files.iter().flat_map(|f| check(f)).collect();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
