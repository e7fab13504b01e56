//! The independent checker over the real allocator (issue 5):
//! - every kernel in `sessions/` × knob 684 (the discard threshold) × `--maxrregcount`:
//!   a successful allocation passes the checker; a failing one ends cleanly in
//!   `Register allocation failed ...` (never a panic, never a checker fault);
//! - a deliberately broken assignment injected into a real allocation result (two
//!   interfering vregs in one register, a register beyond the budget, a pair at an odd
//!   register) is caught, each with its message.

use std::path::{Path, PathBuf};

use radbg::alloc::FunctionAlloc;
use radbg::alloc::check::{self, Allocation, CheckError, SpillSlotInfo};
use radbg::engine::{Machine, RunOptions};
use radbg::ir::{KnobKey, KnobValue, RegFile, VRegId};

const THRESHOLDS: [i64; 5] = [0, 25, 50, 75, 100];
const BUDGETS: [u32; 8] = [16, 24, 32, 48, 64, 96, 128, 255];

/// The session kernels, and the regression kernels of real-kernel faults (`tests/regress/`,
/// Ori IR and PTX: each reproduces one cause found on real code).
fn kernels() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut v = Vec::new();
    for (dir, exts) in [("sessions", &["ori"][..]), ("tests/regress", &["ori", "ptx"][..])] {
        v.extend(
            std::fs::read_dir(root.join(dir))
                .expect("kernel directory")
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| exts.iter().any(|e| x == *e))),
        );
    }
    v.sort();
    v
}

fn finished(module: radbg::ir::Module, opts: RunOptions) -> Machine {
    let mut m = Machine::new(module, opts);
    let mut guard = 0usize;
    while m.step().is_some() {
        guard += 1;
        assert!(guard < 10_000_000, "the pipeline does not end");
    }
    m
}

/// One grid cell's problems (empty when the cell behaves).
fn cell(path: &Path, threshold: i64, budget: u32) -> Vec<String> {
    let module = radbg::load::load_path(path).expect("loads").module;
    let mut opts = RunOptions { maxrregcount: Some(budget), ..RunOptions::default() };
    opts.set_knob(KnobKey::Index(684), KnobValue::Int(threshold)).expect("684 is in range");
    let m = finished(module, opts);
    let mut bad = Vec::new();
    let name = path.file_name().unwrap().to_string_lossy();
    for (fi, r) in m.funcs.iter().enumerate() {
        let Some(a) = r.fatpoint() else { continue };
        let fname = &m.module.functions[fi].name;
        let at = format!("{name} {fname} (knob 684={threshold}, maxrregcount {budget})");
        match &a.failure {
            Some(msg) if !msg.contains("Register allocation failed with register count of") => {
                bad.push(format!("{at}: unexpected failure message {msg:?}"))
            }
            Some(_) => {}
            None => match &r.check_errors {
                Some(e) if e.is_empty() => {}
                Some(e) => bad.push(format!("{at}: checker: {}", e.join("; "))),
                None => bad.push(format!("{at}: the checker did not run")),
            },
        }
    }
    bad
}

#[test]
fn checker_passes_over_the_grid() {
    let mut bad = Vec::new();
    let mut cells = 0;
    for path in kernels() {
        for t in THRESHOLDS {
            for b in BUDGETS {
                bad.extend(cell(&path, t, b));
                cells += 1;
            }
        }
    }
    assert!(cells >= 8 * 5 * 30, "the grid ran only {cells} cells");
    assert!(bad.is_empty(), "{} problem(s):\n{}", bad.len(), bad.join("\n"));
}

/// The checker's input for a finished allocation, with the slot table replaced.
fn check_with(a: &FunctionAlloc, slots: &[Option<u16>]) -> Result<(), Vec<CheckError>> {
    let spills: Vec<SpillSlotInfo> = a
        .spills
        .iter()
        .map(|s| SpillSlotInfo {
            vreg: s.vreg,
            shared: s.mem == radbg::alloc::spill::SpillMem::Shared,
            offset: s.offset,
            bytes: s.bytes,
            temps: s.temps.clone(),
        })
        .collect();
    let budget: Vec<(RegFile, u32)> = a.plans.iter().map(|p| (p.class.file(), p.budget)).collect();
    check::check(&Allocation {
        func: &a.func,
        slot: slots,
        fixed: &a.config.fixed,
        pins: &a.config.abi_pins,
        spills: &spills,
        exit_live: &a.config.exit_live,
        budget: &budget,
    })
}

/// The demo kernel's real allocation (it spills, so spill code is part of what is checked).
fn demo() -> (Machine, FunctionAlloc) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("sessions/demo.ori");
    let m = finished(radbg::load::load_path(&path).expect("loads").module, RunOptions::default());
    let a = m.funcs[0].fatpoint().cloned().expect("allocated");
    assert!(a.failure.is_none() && !a.spills.is_empty(), "demo.ori fits after spilling");
    (m, a)
}

/// Two R vregs of width 1 live at the same point, both with registers.
fn interfering_pair(a: &FunctionAlloc) -> (VRegId, VRegId) {
    let f = &a.func;
    let cfg = radbg::analysis::cfg::build(f, 1.0);
    let live = radbg::analysis::liveness::compute(f, &cfg, &a.config.exit_live);
    for p in 0..f.layout().len() {
        let set = live.live_after(f, p);
        let ids: Vec<VRegId> = set
            .iter()
            .filter(|&v| {
                let vr = f.vreg(v);
                vr.class.file() == RegFile::R && vr.width == 1 && vr.alias.is_none() && a.slot_of(v).is_some()
            })
            .collect();
        if ids.len() >= 2 {
            return (ids[0], ids[1]);
        }
    }
    panic!("no two simultaneously live R vregs in demo.ori");
}

#[test]
fn two_interfering_vregs_in_one_register_are_caught() {
    let (_m, a) = demo();
    let (x, y) = interfering_pair(&a);
    let mut slots = a.assign.clone();
    slots[y.index()] = a.slot_of(x);
    let errs = check_with(&a, &slots).expect_err("an overlap");
    let (xn, yn) = (a.func.vreg(x).name.to_string(), a.func.vreg(y).name.to_string());
    let reg = format!("R{}", a.slot_of(x).unwrap());
    let hit = errs.iter().find(|e| matches!(e, CheckError::Overlap { .. })).expect("an Overlap error");
    let text = hit.to_string();
    assert!(text.contains(&xn) && text.contains(&yn) && text.contains(&reg), "{text}");
    assert!(text.contains("both live in"), "{text}");
}

#[test]
fn a_register_beyond_the_budget_is_caught() {
    let (_m, a) = demo();
    let budget = a.plans.iter().find(|p| p.class.file() == RegFile::R).expect("R class").budget;
    let v = (0..a.original_vregs)
        .map(VRegId::new)
        .find(|&v| a.func.vreg(v).class.file() == RegFile::R && a.func.vreg(v).width == 1 && a.slot_of(v).is_some())
        .expect("an R vreg");
    let mut slots = a.assign.clone();
    slots[v.index()] = Some(budget as u16);
    let errs = check_with(&a, &slots).expect_err("over budget");
    let hit = errs
        .iter()
        .find(|e| matches!(e, CheckError::OverBudget { vreg, .. } if vreg.id == v))
        .unwrap_or_else(|| panic!("no OverBudget for the vreg in {errs:?}"));
    let text = hit.to_string();
    assert!(text.contains(&*a.func.vreg(v).name) && text.contains(&format!("R{budget}")), "{text}");
    assert!(text.contains(&budget.to_string()), "{text}");
}

#[test]
fn a_pair_at_an_odd_register_is_caught() {
    let (_m, a) = demo();
    let v = (0..a.original_vregs)
        .map(VRegId::new)
        .find(|&v| a.func.vreg(v).class.file() == RegFile::R && a.func.vreg(v).width == 2 && a.slot_of(v).is_some())
        .expect("a pair in demo.ori");
    let odd = a.slot_of(v).unwrap() + 1;
    let mut slots = a.assign.clone();
    slots[v.index()] = Some(odd);
    let errs = check_with(&a, &slots).expect_err("misaligned");
    let hit = errs
        .iter()
        .find(|e| matches!(e, CheckError::Misaligned { vreg, .. } if vreg.id == v))
        .unwrap_or_else(|| panic!("no Misaligned for the pair in {errs:?}"));
    let text = hit.to_string();
    assert!(text.contains(&*a.func.vreg(v).name) && text.contains(&format!("R{odd}")), "{text}");
}

#[test]
fn the_real_allocation_itself_passes() {
    let (_m, a) = demo();
    assert_eq!(check_with(&a, &a.assign), Ok(()));
}
