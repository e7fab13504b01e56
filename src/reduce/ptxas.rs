//! The real ptxas for `differs-from-ptxas`: finding it (`--ptxas`, `$RADBG_PTXAS`, the
//! corpus build's copy) and running it on a candidate's PTX text (`ptxas_cache` runs it,
//! each run with its own temporary files since candidates are tested on several threads
//! at once, and keeps the answer on disk); the `-v` report is parsed by `why::compare`.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::why::compare::PtxasFigures;

/// The ptxas to run: `explicit` (`--ptxas`), else `$RADBG_PTXAS`, else the corpus build's
/// `~/.cache/radbg-corpus/root/nvidia/cu13/bin/ptxas` (or `$RADBG_CORPUS_CACHE/...`).
/// The error names every place looked at.
pub fn find(explicit: Option<&Path>) -> Result<String, String> {
    let runs = |exe: &Path| Command::new(exe).arg("--version").output().map(|o| o.status.success()).unwrap_or(false);
    if let Some(p) = explicit {
        return if runs(p) {
            Ok(p.display().to_string())
        } else {
            Err(format!("--ptxas {}: cannot run it", p.display()))
        };
    }
    if let Some(p) = std::env::var_os("RADBG_PTXAS") {
        let p = PathBuf::from(p);
        return if runs(&p) {
            Ok(p.display().to_string())
        } else {
            Err(format!("RADBG_PTXAS={}: cannot run it", p.display()))
        };
    }
    let cached = crate::util::corpus_cache().map(|c| c.join("root/nvidia/cu13/bin/ptxas"));
    match cached {
        Some(p) if runs(&p) => Ok(p.display().to_string()),
        Some(p) => Err(format!(
            "differs-from-ptxas needs the real ptxas: none at {} (run /work/shared/corpus/build.sh, \
             or give --ptxas PATH or RADBG_PTXAS)",
            p.display()
        )),
        None => Err("differs-from-ptxas needs the real ptxas: give --ptxas PATH or RADBG_PTXAS".into()),
    }
}

/// Runs `ptxas -v` on `ptx` for `sm` (and the budget); its figures per function, or the
/// error when ptxas rejects the text. Through `ptxas_cache`: a text seen before (by an
/// earlier reduction, `compare` or the gate) is answered from disk.
pub fn run(exe: &str, ptx: &str, sm: &str, maxrregcount: Option<u32>) -> Result<Vec<PtxasFigures>, String> {
    let a = crate::ptxas_cache::run(exe, &crate::ptxas_cache::args(sm, maxrregcount), ptx)?;
    if !a.ok {
        return Err(format!("{exe} failed:\n{}", a.text));
    }
    Ok(crate::why::compare::parse_v(&a.text))
}

/// The cached answer for `ptx`, when there is one (ptxas is not run): `None` for a
/// text never seen, `Some(Err)` when ptxas rejected it.
pub fn cached(exe: &str, ptx: &str, sm: &str, maxrregcount: Option<u32>) -> Option<Result<Vec<PtxasFigures>, String>> {
    let a = crate::ptxas_cache::lookup(exe, &crate::ptxas_cache::args(sm, maxrregcount), ptx)?;
    Some(if a.ok { Ok(crate::why::compare::parse_v(&a.text)) } else { Err(format!("{exe} failed:\n{}", a.text)) })
}
