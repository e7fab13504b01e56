//! Golden allocation results for every kernel in `sessions/`: per function, the attempt
//! lines (`-CLASS NOSPILL REGALLOC: ...`), the `-v` statistics lines, the checker's
//! verdict, the register of every vreg and the spilled vregs, in
//! `tests/alloc_golden/NAME.txt` (`UPDATE_EXPECT=1` regenerates them). And each kernel
//! behaves as its header comment says — fits, spills after N retries, or fails — from
//! the table below.

mod common;

use std::fmt::Write;
use std::path::{Path, PathBuf};

use radbg::engine::{Machine, RunOptions};
use radbg::ir::VRegId;

/// How one function's allocation ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ends {
    /// Every class fitted in its first (NOSPILL) attempt.
    Fits,
    /// Succeeded after this many SPILL retries (over all classes).
    Spills(usize),
    /// `Register allocation failed ...`.
    Fails,
    /// The pipeline stopped before allocation (an ABI error).
    NoAlloc,
}

/// Per kernel file: how each function ends, in file order. Each entry agrees with the
/// file's header comment (what the kernel was written to show).
const BEHAVIOUR: &[(&str, &[Ends])] = {
    use Ends::*;
    &[
        ("abi_7001", &[Fits]),
        ("abi_7002", &[Fits]),
        ("abi_7003", &[Fits]),
        ("abi_7004", &[Fits]),
        ("abi_7005", &[Fits]),
        ("abi_7006", &[Fits, Fits]),
        ("abi_7008", &[Fits]),
        ("abi_7009", &[Fits]),
        ("abi_7011", &[Fits]),
        ("abi_7010", &[Fits, Fits]),
        ("abi_7012", &[Fits, Fits]),
        ("abi_7013", &[Fits]),
        ("abi_7014", &[Fits]),
        ("abi_7015", &[Fits]),
        ("abi_7016", &[Fits]),
        ("abi_7017", &[Fits]),
        ("abi_7020", &[Fits, Fits]),
        ("abi_7801", &[Fits, Fits]),
        ("abi_clean", &[Fits, Fits]),
        ("abi_param_retaddr", &[Fits]),
        ("abi_lower", &[Fits, Fits]),
        ("abi_multicall", &[Fits, Fits]),
        ("abi_reserved_r0_r3", &[Fits, Fits]),
        ("abi_size", &[Fits]),
        ("alloc_fail", &[Fails]),
        ("briggs_k15", &[Fits]),
        ("briggs_moves", &[Fits]),
        ("briggs_remat", &[Spills(1)]),
        ("callgraph", &[Fits, Fits, Fits, Fits]),
        ("coroutine", &[Fits, Fits]),
        ("demo", &[Spills(1)]),
        ("optix", &[Spills(1)]),
        ("optix_abi", &[Spills(1), Fits]),
        ("pairs_quads", &[Fits]),
        ("predicates", &[Fits]),
        ("reduction", &[Fits]),
        ("retaddr_modes", &[Fits, Fits, Fits, Fits, Fits]),
        ("saxpy", &[Fits]),
        ("sgemm_spill", &[Spills(1)]),
        ("stencil_loops", &[Fits]),
        ("uniform", &[Fits]),
        ("uninit", &[Fits, Fits]),
    ]
};

fn sessions() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("sessions")
}

fn kernels() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(sessions())
        .expect("sessions/")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "ori"))
        .collect();
    v.sort();
    v
}

fn load(path: &Path) -> radbg::ir::Module {
    let loaded = radbg::load::load_path(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    loaded.module
}

/// Runs the whole pipeline; returns the golden text and each function's ending.
fn run(path: &Path) -> (String, Vec<Ends>) {
    let mut m = Machine::new(load(path), RunOptions::default());
    let mut attempt_lines: Vec<Vec<String>> = vec![Vec::new(); m.funcs.len()];
    let mut stats_lines: Vec<Vec<String>> = vec![Vec::new(); m.funcs.len()];
    while let Some(ev) = m.step() {
        use radbg::engine::EventKind;
        match (ev.func, &ev.kind) {
            (Some(fi), EventKind::Alloc(radbg::alloc::AllocEvent::AttemptEnd(e))) => {
                attempt_lines[fi].push(format!("{} {}", e.class.name(), e.line))
            }
            (Some(fi), EventKind::Stats { lines }) => stats_lines[fi].extend(lines.iter().cloned()),
            _ => {}
        }
    }
    let mut s = String::new();
    let mut ends = Vec::new();
    for (fi, r) in m.funcs.iter().enumerate() {
        let f = &m.module.functions[fi];
        let _ = writeln!(s, "== {}", f.name);
        for l in &attempt_lines[fi] {
            let _ = writeln!(s, "{l}");
        }
        for l in &stats_lines[fi] {
            let _ = writeln!(s, "{l}");
        }
        match &r.check_errors {
            Some(e) if e.is_empty() => s.push_str("checker: clean\n"),
            Some(e) => {
                for x in e {
                    let _ = writeln!(s, "checker: {x}");
                }
            }
            None => s.push_str("checker: not run\n"),
        }
        let Some(a) = r.fatpoint() else {
            ends.push(Ends::NoAlloc);
            continue;
        };
        let src = &a.func;
        for i in 0..a.original_vregs.min(src.vregs.len()) {
            let v = VRegId::new(i);
            let vr = src.vreg(v);
            let reg = a.slot_of(v).map(|k| format!("{}{k}", vr.class.file().prefix())).unwrap_or_else(|| "-".into());
            let _ = writeln!(s, "  {} {reg}", vr.name);
        }
        let spilled: Vec<&str> = a.spills.iter().map(|x| src.vreg(x.vreg).name.as_ref()).collect();
        if !spilled.is_empty() {
            let _ = writeln!(s, "spilled: {}", spilled.join(" "));
        }
        let classes = a.results.len();
        ends.push(if a.failure.is_some() {
            Ends::Fails
        } else if a.records.len() > classes {
            Ends::Spills(a.records.len() - classes)
        } else {
            Ends::Fits
        });
    }
    (s, ends)
}

#[test]
fn golden_results_per_kernel() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/alloc_golden");
    let mut failures = Vec::new();
    for path in kernels() {
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let (text, _) = run(&path);
        failures.extend(common::golden(&dir.join(format!("{name}.txt")), &text));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn each_kernel_behaves_as_its_comment_says() {
    let mut failures = Vec::new();
    let files = kernels();
    for path in &files {
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let (_, ends) = run(path);
        match BEHAVIOUR.iter().find(|(n, _)| *n == name) {
            Some((_, want)) if *want == ends.as_slice() => {}
            Some((_, want)) => failures.push(format!("{name}: expected {want:?}, got {ends:?}")),
            None => failures.push(format!("{name}: not in the behaviour table (got {ends:?})")),
        }
    }
    for (n, _) in BEHAVIOUR {
        if !files.iter().any(|p| p.file_stem().is_some_and(|s| s == *n)) {
            failures.push(format!("{n}: in the table but not in sessions/"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
