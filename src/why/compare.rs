//! Compare with the real ptxas: run `ptxas -v` on a PTX file with the same target and
//! budget as radbg and set the two `-v` figures side by side (registers, spill bytes,
//! stack frame), so users know how far to trust the model on their kernel.
//!
//! Owns finding and running ptxas and parsing its `-v` lines; must not know about the
//! allocator (radbg's figures come from a finished run's statistics).

use std::path::Path;
use std::process::Command;

use serde_json::json;

use crate::why::whatif::Figures;
use crate::why::{Explanation, table};

/// What ptxas reported for one function.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PtxasFigures {
    pub name: String,
    pub registers: Option<u32>,
    pub stack_frame: u32,
    pub spill_stores: u32,
    pub spill_loads: u32,
}

/// The ptxas to run: the given path, else `ptxas` on PATH, else the one the corpus build
/// installs (`$RADBG_CORPUS_CACHE` or `~/.cache/radbg-corpus`, `root/nvidia/cu13/bin/ptxas`);
/// `None` when none can be run.
pub fn find(explicit: Option<&Path>) -> Option<String> {
    let runs = |exe: &str| Command::new(exe).arg("--version").output().map(|o| o.status.success()).unwrap_or(false);
    if let Some(p) = explicit {
        let exe = p.display().to_string();
        return runs(&exe).then_some(exe);
    }
    if runs("ptxas") {
        return Some("ptxas".to_string());
    }
    let cache = crate::fidelity::default_corpus()?;
    let exe = cache.join("root/nvidia/cu13/bin/ptxas").display().to_string();
    runs(&exe).then_some(exe)
}

/// Runs `ptxas -v` and parses its report.
pub fn run_ptxas(exe: &str, ptx: &Path, sm: &str, maxrregcount: Option<u32>) -> Result<Vec<PtxasFigures>, String> {
    let out = std::env::temp_dir().join(format!("radbg-compare-{}.cubin", std::process::id()));
    let mut cmd = Command::new(exe);
    cmd.arg("-v").arg(format!("-arch={sm}")).arg(ptx).arg("-o").arg(&out);
    if let Some(n) = maxrregcount {
        cmd.arg(format!("--maxrregcount={n}"));
    }
    let o = cmd.output().map_err(|e| format!("cannot run {exe}: {e}"))?;
    let _ = std::fs::remove_file(&out);
    let text = format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    if !o.status.success() {
        return Err(format!("{exe} failed:\n{text}"));
    }
    Ok(parse_v(&text))
}

/// Parses `ptxas -v` output (the lines `alloc::stats` reproduces).
pub fn parse_v(text: &str) -> Vec<PtxasFigures> {
    let mut out: Vec<PtxasFigures> = Vec::new();
    let quoted = |l: &str| l.split('\'').nth(1).map(str::to_string);
    let num_before = |l: &str, what: &str| -> Option<u32> {
        let i = l.find(what)?;
        l[..i].split_whitespace().last()?.parse().ok()
    };
    for l in text.lines() {
        if l.contains("Compiling entry function") || l.contains("Compiling function") {
            if let Some(n) = quoted(l) {
                out.push(PtxasFigures { name: n, ..PtxasFigures::default() });
            }
        } else if let Some(f) = out.last_mut() {
            if l.contains("bytes stack frame") {
                f.stack_frame = num_before(l, "bytes stack frame").unwrap_or(0);
                f.spill_stores = num_before(l, "bytes spill stores").unwrap_or(0);
                f.spill_loads = num_before(l, "bytes spill loads").unwrap_or(0);
            } else if l.contains("Used") && l.contains("registers") {
                f.registers =
                    l.split("Used").nth(1).and_then(|r| r.split_whitespace().next()).and_then(|n| n.parse().ok());
            }
        }
    }
    out
}

/// The side-by-side table.
pub fn render(radbg: &[Figures], ptxas: &[PtxasFigures]) -> Explanation {
    let mut rows = vec![
        ["function", "registers radbg/ptxas", "spill st B", "spill ld B", "stack frame B"].map(String::from).to_vec(),
    ];
    let mut fj = Vec::new();
    let mut same = 0i64;
    for f in radbg {
        let p = ptxas.iter().find(|p| p.name == f.name);
        let pr = |x: Option<u32>| x.map(|v| v.to_string()).unwrap_or_else(|| "-".into());
        let pair = |a: u32, b: Option<u32>| format!("{a}/{}", pr(b));
        if p.and_then(|p| p.registers) == Some(f.registers) {
            same += 1;
        }
        rows.push(vec![
            f.name.clone(),
            pair(f.registers, p.and_then(|p| p.registers)),
            pair(f.stores, p.map(|p| p.spill_stores)),
            pair(f.loads, p.map(|p| p.spill_loads)),
            pair(f.frame, p.map(|p| p.stack_frame)),
        ]);
        fj.push(json!({"function": f.name, "radbg": {"registers": f.registers, "spill_stores": f.stores,
            "spill_loads": f.loads, "stack_frame": f.frame},
            "ptxas": p.map(|p| json!({"registers": p.registers, "spill_stores": p.spill_stores,
                "spill_loads": p.spill_loads, "stack_frame": p.stack_frame}))}));
    }
    let text = format!(
        "compare with ptxas (radbg/ptxas):\n{}  registers equal in {same} of {} function(s)\n",
        table(&rows),
        radbg.len()
    );
    let facts = vec![("equal-registers".to_string(), same), ("functions".to_string(), radbg.len() as i64)];
    Explanation { text, json: json!({"compare": fj, "equal_registers": same}), facts }
}

#[cfg(test)]
mod tests {
    #[test]
    fn parses_ptxas_v() {
        let t = "ptxas info    : 0 bytes gmem\nptxas info    : Compiling entry function 'k' for 'sm_90'\n\
                 ptxas info    : Function properties for k\n    8 bytes stack frame, 4 bytes spill stores, 12 bytes spill loads\n\
                 ptxas info    : Used 40 registers, used 0 barriers, 380 bytes cmem[0]\n";
        let f = super::parse_v(t);
        assert_eq!(f.len(), 1);
        assert_eq!((f[0].registers, f[0].stack_frame, f[0].spill_stores, f[0].spill_loads), (Some(40), 8, 4, 12));
    }
}
