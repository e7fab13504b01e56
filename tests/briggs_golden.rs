//! Golden results of the Chaitin-Briggs allocator and of the allocator diff for every
//! kernel in `sessions/*.ori`, each function allocated with the configuration the
//! pipeline engine derives for it (budget, ABI pins, fixed registers, clobbers). Every
//! successful result must pass the independent checker. Regenerate the expected files
//! with `UPDATE_EXPECT=1 cargo test --test briggs_golden`.

mod briggs_util;
mod common;

use std::path::PathBuf;

use common::golden;

use radbg::alloc::briggs::{BriggsAlloc, BriggsEvent};
use radbg::alloc::compare;
use radbg::command::alloc_diff;
use radbg::engine::RunOptions;
use radbg::ir::{Function, Module, VRegId, parse_str};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn sessions() -> Vec<(String, Module)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join("sessions"))
        .expect("sessions/")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().and_then(|e| e.to_str()) == Some("ori"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let stem = p.file_stem().and_then(|s| s.to_str()).unwrap_or("").to_string();
            let text = std::fs::read_to_string(&p).expect("read session");
            let m = parse_str(&text).unwrap_or_else(|e| panic!("{} does not parse:\n{e}", p.display()));
            (stem, m)
        })
        .collect()
}

fn reg(a: &BriggsAlloc, f: &Function, v: VRegId) -> String {
    let vr = f.vreg(v);
    match a.slot_of(v) {
        None => "-".into(),
        Some(s) if vr.width > 1 => format!("{p}{s}..{p}{}", s + vr.width as u16 - 1, p = vr.file().prefix()),
        Some(s) => format!("{}{s}", vr.file().prefix()),
    }
}

/// The report of one function: statistics, the iteration and spill-code events, and
/// the register of every original vreg.
fn report(f: &Function, config: &radbg::alloc::AllocConfig) -> String {
    let mut a = BriggsAlloc::new(f.clone(), config.clone());
    let mut out = format!("== {}\n", f.name);
    while let Some(ev) = a.step() {
        if matches!(
            ev,
            BriggsEvent::Build(_)
                | BriggsEvent::IterationEnd { .. }
                | BriggsEvent::SpillCode(_)
                | BriggsEvent::Finalize { .. }
        ) {
            out.push_str(&ev.describe(a.func()));
            out.push('\n');
        }
    }
    briggs_util::verify(&a);
    for l in a.stats().lines() {
        out.push_str(&l);
        out.push('\n');
    }
    for (i, v) in f.vregs.iter().enumerate() {
        if v.class.is_allocatable() {
            let id = VRegId::new(i);
            let spilled = if a.spilled().contains(&id) { " (spilled)" } else { "" };
            out.push_str(&format!("  {} = {}{spilled}\n", v.name, reg(&a, f, id)));
        }
    }
    out
}

#[test]
fn briggs_results_of_every_session_kernel() {
    let mut failures = Vec::new();
    for (stem, m) in sessions() {
        let text = match alloc_diff::pipeline_inputs(m, RunOptions::default()) {
            Ok(inputs) => inputs.iter().map(|(f, c)| report(f, c)).collect::<String>(),
            Err(e) => format!("error: {e}\n"),
        };
        failures.extend(golden(&root().join(format!("tests/briggs_golden/{stem}.txt")), &text));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn allocator_diff_of_every_session_kernel() {
    let mut failures = Vec::new();
    for (stem, m) in sessions() {
        let text = match alloc_diff::compare_module(m, RunOptions::default()) {
            Ok(diffs) => diffs.iter().map(|d| d.text()).collect::<String>(),
            Err(e) => format!("error: {e}\n"),
        };
        failures.extend(golden(&root().join(format!("tests/briggs_golden/{stem}.diff")), &text));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn briggs_sessions_show_the_designs_disagreeing() {
    // Each sessions/briggs_*.ori kernel exists to make the two allocators differ.
    for (stem, m) in sessions().into_iter().filter(|(s, _)| s.starts_with("briggs_")) {
        let diffs = alloc_diff::compare_module(m, RunOptions::default()).expect("pipeline");
        assert!(
            diffs.iter().any(|d| d.verdict != compare::Verdict::Same || !d.assignment_diff.is_empty()),
            "{stem}: the allocators agree"
        );
    }
}
