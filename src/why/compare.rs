//! Compare with the real ptxas: run `ptxas -v` on a PTX file with the same target and
//! budget as radbg and set the two `-v` figures side by side (registers, spill bytes,
//! stack frame), so users know how far to trust the model on their kernel.
//!
//! Owns finding and running ptxas and parsing its `-v` lines; must not know about the
//! allocator (radbg's figures come from a finished run's statistics).

use std::path::Path;
use std::process::Command;

use serde::Serialize;

use crate::why::whatif::Figures;
use crate::why::{Answer, Explanation, Facts, table};

/// What ptxas reported for one function.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PtxasFigures {
    pub name: String,
    pub registers: Option<u32>,
    pub stack_frame: u32,
    pub spill_stores: u32,
    pub spill_loads: u32,
}

/// Where `compare` found ptxas, or every place it looked.
#[derive(Clone, Debug, PartialEq)]
pub struct Found {
    pub exe: Option<String>,
    /// The places tried, in order (`--ptxas /x`, `RADBG_PTXAS=/y`, `ptxas on PATH`, …).
    pub tried: Vec<String>,
}

/// The ptxas to run, in this order: `--ptxas PATH` (only it, when given); `$RADBG_PTXAS`;
/// `ptxas` on PATH; the one the corpus build installs (`$RADBG_CORPUS_CACHE` or
/// `~/.cache/radbg-corpus`, `root/nvidia/cu13/bin/ptxas`).
pub fn find(explicit: Option<&Path>) -> Found {
    find_with(explicit, std::env::var_os("RADBG_PTXAS").map(std::path::PathBuf::from))
}

/// [`find`] with the environment variable given (tests).
pub fn find_with(explicit: Option<&Path>, env: Option<std::path::PathBuf>) -> Found {
    let runs = |exe: &str| Command::new(exe).arg("--version").output().map(|o| o.status.success()).unwrap_or(false);
    let mut tried = Vec::new();
    if let Some(p) = explicit {
        let exe = p.display().to_string();
        tried.push(format!("--ptxas {exe}"));
        return Found { exe: runs(&exe).then_some(exe), tried };
    }
    if let Some(p) = env {
        let exe = p.display().to_string();
        tried.push(format!("RADBG_PTXAS={exe}"));
        if runs(&exe) {
            return Found { exe: Some(exe), tried };
        }
    }
    tried.push("ptxas on PATH".to_string());
    if runs("ptxas") {
        return Found { exe: Some("ptxas".to_string()), tried };
    }
    match crate::util::corpus_cache() {
        Some(cache) => {
            let exe = cache.join("root/nvidia/cu13/bin/ptxas").display().to_string();
            tried.push(exe.clone());
            Found { exe: runs(&exe).then_some(exe), tried }
        }
        None => {
            tried.push("the corpus build's ptxas (no $RADBG_CORPUS_CACHE or $HOME)".to_string());
            Found { exe: None, tried }
        }
    }
}

/// The `sm_NN` targets a ptxas accepts, from the allowed values its `--help` lists for
/// `--gpu-name` (ptxas 13 dropped everything below sm_75).
pub fn supported_sms(exe: &str) -> Vec<u32> {
    let Ok(o) = Command::new(exe).arg("--help").output() else { return Vec::new() };
    let text = format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    parse_sms(&text)
}

/// Every plain `'sm_NN'` in a ptxas help text, sorted.
pub fn parse_sms(help: &str) -> Vec<u32> {
    let mut v: Vec<u32> =
        help.split('\'').filter_map(|w| w.strip_prefix("sm_")).filter_map(|n| n.parse().ok()).collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// The target to compare at: the module's own when this ptxas accepts it, else the
/// oldest it accepts that is newer (PTX for `.target sm_XY` compiles for every sm_MN
/// with MN >= XY), with the sentence that says so.
pub fn map_target(version: u32, supported: &[u32]) -> (u32, Option<String>) {
    if supported.is_empty() || supported.contains(&version) {
        return (version, None);
    }
    match supported.iter().find(|&&s| s > version) {
        Some(&s) => (
            s,
            Some(format!(
                "note: .target sm_{version} is older than this ptxas accepts (oldest sm_{}); comparing both at sm_{s}",
                supported[0]
            )),
        ),
        None => (version, None),
    }
}

/// Runs `ptxas -v` and parses its report (through `ptxas_cache`: the same file, ptxas
/// and arguments as an earlier `compare`, `reduce` or gate run answer from the cache).
pub fn run_ptxas(exe: &str, ptx: &Path, sm: &str, maxrregcount: Option<u32>) -> Result<Vec<PtxasFigures>, String> {
    let text = std::fs::read_to_string(ptx).map_err(|e| format!("cannot read {}: {e}", ptx.display()))?;
    let a = crate::ptxas_cache::run(exe, &crate::ptxas_cache::args(sm, maxrregcount), &text)?;
    if !a.ok {
        let shown = a.text.replace(crate::ptxas_cache::INPUT, &ptx.display().to_string());
        return Err(format!("{exe} failed:\n{shown}"));
    }
    Ok(parse_v(&a.text))
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

/// `compare` as tools read it (`--json`; the CLI adds the target and the note).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CompareAnswer {
    pub compare: Vec<FunctionCompare>,
    /// Functions whose register counts agree.
    pub equal_registers: i64,
    /// `equal-registers` and `functions` (`expect why`); not part of the JSON.
    #[serde(skip)]
    pub facts: Facts,
}

/// One of radbg's functions and what ptxas reported for it (`null`: not reported).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FunctionCompare {
    pub function: String,
    pub radbg: RadbgFigures,
    pub ptxas: Option<PtxasSide>,
}

/// radbg's `-v` figures of a function.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RadbgFigures {
    pub registers: u32,
    pub spill_stores: u32,
    pub spill_loads: u32,
    pub stack_frame: u32,
}

/// ptxas's `-v` figures of a function.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PtxasSide {
    pub registers: Option<u32>,
    pub spill_stores: u32,
    pub spill_loads: u32,
    pub stack_frame: u32,
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
            f.name.to_string(),
            pair(f.registers, p.and_then(|p| p.registers)),
            pair(f.stores, p.map(|p| p.spill_stores)),
            pair(f.loads, p.map(|p| p.spill_loads)),
            pair(f.frame, p.map(|p| p.stack_frame)),
        ]);
        fj.push(FunctionCompare {
            function: f.name.to_string(),
            radbg: RadbgFigures {
                registers: f.registers,
                spill_stores: f.stores,
                spill_loads: f.loads,
                stack_frame: f.frame,
            },
            ptxas: p.map(|p| PtxasSide {
                registers: p.registers,
                spill_stores: p.spill_stores,
                spill_loads: p.spill_loads,
                stack_frame: p.stack_frame,
            }),
        });
    }
    let text = format!(
        "compare with ptxas (radbg/ptxas):\n{}  registers equal in {same} of {} function(s)\n",
        table(&rows),
        radbg.len()
    );
    let facts = vec![("equal-registers".to_string(), same), ("functions".to_string(), radbg.len() as i64)];
    let answer = CompareAnswer { compare: fj, equal_registers: same, facts: Facts(facts) };
    Explanation { text, answer: Answer::Compare(answer) }
}

#[cfg(test)]
mod tests {
    #[test]
    fn old_targets_map_to_the_oldest_supported() {
        let sms = super::parse_sms("Allowed values: 'compute_75','sm_100','sm_75','sm_80','sm_90a','sm_90'");
        assert_eq!(sms, vec![75, 80, 90, 100]);
        let (v, note) = super::map_target(52, &sms);
        assert_eq!(v, 75);
        assert!(note.unwrap().contains(".target sm_52 is older than this ptxas accepts (oldest sm_75)"));
        assert_eq!(super::map_target(80, &sms), (80, None));
        assert_eq!(super::map_target(52, &[]), (52, None));
    }

    #[test]
    fn a_missing_ptxas_names_every_place_looked() {
        let f = super::find_with(Some(std::path::Path::new("/nonexistent/ptxas")), None);
        assert_eq!((f.exe, f.tried), (None, vec!["--ptxas /nonexistent/ptxas".to_string()]));
        let f = super::find_with(None, Some("/nonexistent/env-ptxas".into()));
        assert_eq!(f.tried[0], "RADBG_PTXAS=/nonexistent/env-ptxas");
        assert_eq!(f.tried[1], "ptxas on PATH");
    }

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
