//! The test suite's one golden-file helper: compare a produced text with its checked-in
//! file, or rewrite the file when `UPDATE_EXPECT=1` is set. Every golden, transcript and
//! snapshot test goes through it, so the update switch, the missing-file message and the
//! diff format are the same everywhere.
// Each test crate compiles this module on its own and uses only part of it.
#![allow(dead_code)]

use std::path::Path;

pub mod ptxas;
pub mod vregs;

/// Whether this run rewrites the expected files (`UPDATE_EXPECT=1`) instead of comparing.
pub fn updating() -> bool {
    std::env::var_os("UPDATE_EXPECT").is_some()
}

/// Compares `got` with the file at `path`, or (under `UPDATE_EXPECT`) writes `got` there.
/// Returns a description of the mismatch, with a unified diff, or `None` when they agree.
pub fn golden(path: &Path, got: &str) -> Option<String> {
    if updating() {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        }
        std::fs::write(path, got).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        return None;
    }
    compare(path, got)
}

/// [`golden`] for an expectation that exists only when non-empty: an absent file means
/// the empty text, and updating with empty text deletes the file.
pub fn golden_or_absent(path: &Path, got: &str) -> Option<String> {
    if updating() && got.is_empty() {
        let _ = std::fs::remove_file(path);
        return None;
    }
    golden(path, got)
}

/// [`golden`], panicking with the description on a mismatch.
pub fn assert_golden(path: &Path, got: &str) {
    if let Some(problem) = golden(path, got) {
        panic!("{problem}");
    }
}

fn compare(path: &Path, got: &str) -> Option<String> {
    let found = std::fs::read_to_string(path);
    let want = found.as_deref().unwrap_or_default();
    if want == got {
        return None;
    }
    if found.is_err() {
        return Some(format!("no golden file {} (UPDATE_EXPECT=1 writes it)", path.display()));
    }
    let diff = similar::TextDiff::from_lines(want, got);
    let shown = diff.unified_diff().context_radius(2).header("expected", "got").to_string();
    Some(format!("{} differs (UPDATE_EXPECT=1 to accept):\n{shown}", path.display()))
}
