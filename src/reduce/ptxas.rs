//! The real ptxas for `differs-from-ptxas`: finding it (`--ptxas`, `$RADBG_PTXAS`, the
//! corpus build's copy) and running it on a candidate's PTX text. Candidates are tested
//! on several threads at once, so every run gets its own temporary files; the `-v`
//! report is parsed by `why::compare`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};

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
/// error when ptxas rejects the text.
pub fn run(exe: &str, ptx: &str, sm: &str, maxrregcount: Option<u32>) -> Result<Vec<PtxasFigures>, String> {
    static SEQ: AtomicU64 = AtomicU64::new(0);
    let n = SEQ.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir();
    let stem = format!("radbg-reduce-{}-{n}", std::process::id());
    let input = dir.join(format!("{stem}.ptx"));
    let output = dir.join(format!("{stem}.cubin"));
    std::fs::write(&input, ptx).map_err(|e| format!("cannot write {}: {e}", input.display()))?;
    let mut cmd = Command::new(exe);
    cmd.arg("-v").arg(format!("-arch={sm}")).arg(&input).arg("-o").arg(&output);
    if let Some(n) = maxrregcount {
        cmd.arg(format!("--maxrregcount={n}"));
    }
    let o = cmd.output();
    let _ = std::fs::remove_file(&input);
    let _ = std::fs::remove_file(&output);
    let o = o.map_err(|e| format!("cannot run {exe}: {e}"))?;
    let text = format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    if !o.status.success() {
        return Err(format!("{exe} failed:\n{text}"));
    }
    Ok(crate::why::compare::parse_v(&text))
}
