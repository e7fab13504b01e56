//! Golden diagnostics: every `tests/diag/*.ori` is checked the way `radbg check`
//! does (parse, then validate when parsing found no errors) and the rendered
//! diagnostics must equal `tests/diag/*.expected`. Run with `UPDATE_EXPECT=1` to
//! regenerate the expected files after an intended change (and review the diff).

mod common;

use radbg::cli::check::check_source;
use radbg::ir::diag;
use radbg::ir::span::SourceFile;

fn render(path: &std::path::Path) -> String {
    let bytes = std::fs::read(path).unwrap();
    let name = format!("tests/diag/{}", path.file_name().unwrap().to_string_lossy());
    let file = match SourceFile::from_bytes(name, &bytes) {
        Ok(f) => f,
        Err(e) => return e.render(),
    };
    let (_, diags) = check_source(&file);
    let (e, w) = diag::counts(&diags);
    format!("{}{}: {}\n", diag::render_all(&diags, &file), file.name, diag::summary(e, w))
}

#[test]
fn diagnostics_match_the_golden_files() {
    let mut paths: Vec<_> = std::fs::read_dir("tests/diag").unwrap().map(|e| e.unwrap().path()).collect();
    paths.sort();
    let mut failures = Vec::new();
    let mut n = 0;
    for path in paths.iter().filter(|p| p.extension().is_some_and(|e| e == "ori")) {
        n += 1;
        failures.extend(common::golden(&path.with_extension("expected"), &render(path)));
    }
    assert!(n >= 8, "only {n} golden files");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
