//! The real ptxas 13.0.88 of the corpus cache, for tests that re-measure the figures
//! they record (skipped, saying so, when the cache is absent).

use std::path::{Path, PathBuf};
use std::process::Command;

/// A file of the corpus cache (`$RADBG_CORPUS_CACHE`, else `~/.cache/radbg-corpus`).
pub fn corpus_tool(rel: &str) -> Option<PathBuf> {
    let home = std::env::var_os("HOME").map(PathBuf::from)?;
    let cache = std::env::var_os("RADBG_CORPUS_CACHE").map_or_else(|| home.join(".cache/radbg-corpus"), PathBuf::from);
    let p = cache.join(rel);
    p.exists().then_some(p)
}

/// ptxas, when the corpus cache has it.
pub fn ptxas() -> Option<PathBuf> {
    corpus_tool("root/nvidia/cu13/bin/ptxas")
}

/// The first `Used N registers` of `ptxas -arch=sm_80 -v` on `file`, with its log.
pub fn used_registers(ptxas: &Path, file: &Path) -> (Option<u32>, String) {
    let out =
        Command::new(ptxas).args(["-arch=sm_80", "-v", "-o", "/dev/null"]).arg(file).output().expect("ptxas runs");
    let log = String::from_utf8_lossy(&out.stderr).to_string();
    let used = log.split("Used ").nth(1).and_then(|s| s.split_whitespace().next()).and_then(|n| n.parse().ok());
    (used, log)
}
