//! Calls to functions defined in the module (issue 23, ARCHITECTURE.md "Fidelity", rules
//! 5 and 7): ptxas 13.0.88 compiles such a callee with the kernel (`CALL.REL.NOINC` to it)
//! and the kernel's `Used N registers` covers the callee's registers; the ABI minimum (24
//! on sm_80) applies only when a call needs the real ABI — an external function or
//! recursion; and the kernel keeps values live across the call in registers the callee
//! does not write, scratch or not (rule 7). Each case records ptxas's figure and radbg's;
//! when ptxas is installed the test re-runs it and checks its figure is still the
//! recorded one.

mod common;

use std::collections::BTreeSet;

use radbg::fidelity::measure::{Settings, run_file};

/// An entry that calls `heavy`, defined after it (as NVRTC writes it), which keeps `n`
/// loaded values live (volatile loads, then stores in reverse order); `recursive` makes
/// `heavy` call itself under a never-true guard.
fn kernel(n: usize, recursive: bool) -> String {
    let loads: String = (0..n).map(|i| format!("ld.volatile.global.f32 %f{i}, [%rd1+{}];\n", 4 * i)).collect();
    let stores: String =
        (0..n).map(|i| format!("st.volatile.global.f32 [%rd1+{}], %f{};\n", 4 * (n + i), n - 1 - i)).collect();
    let call =
        |arg: &str| format!("{{\n.param .b64 param0;\nst.param.b64 [param0], {arg};\ncall.uni heavy, (param0);\n}}\n");
    let again = if recursive {
        format!("setp.eq.u64 %p1, %rd1, 0;\n@!%p1 bra $DONE;\n{}$DONE:\n", call("%rd1"))
    } else {
        String::new()
    };
    format!(
        ".version 8.8\n.target sm_80\n.address_size 64\n.func heavy(.param .b64 p);\n\
         .visible .entry k(.param .u64 a)\n{{\n.reg .b64 %rd<3>;\nld.param.u64 %rd1, [a];\n\
         cvta.to.global.u64 %rd2, %rd1;\n{}ret;\n}}\n\
         .func heavy(.param .b64 p)\n{{\n.reg .pred %p<2>;\n.reg .f32 %f<{n}>;\n.reg .b64 %rd<3>;\n\
         ld.param.u64 %rd1, [p];\n{loads}{stores}{again}ret;\n}}\n",
        call("%rd2")
    )
}

/// (what, values the callee keeps live, recursive, ptxas's count, radbg's).
const CASES: &[(&str, usize, bool, u32, u32)] = &[
    ("a callee with 40 live values", 40, false, 48, 50),
    ("a callee with 2", 2, false, 12, 14),
    ("a recursive callee with 2", 2, true, 24, 24),
];

fn radbg_count(text: &str, disabled: &[&str]) -> u32 {
    radbg_figures(text, disabled, &[]).0
}

/// The entry's registers and spill-store bytes.
fn radbg_figures(text: &str, disabled: &[&str], knobs: &[&str]) -> (u32, u32) {
    let settings = Settings {
        disabled_passes: disabled.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>(),
        knobs: knobs.iter().map(|k| radbg::engine::settings::knob(k).expect("a knob")).collect(),
    };
    let run = run_file("k.ptx", text, "sm_80", None, &settings).expect("runs");
    let k = run.funcs.iter().find(|f| f.name == "k").expect("the entry");
    assert!(k.faults.is_empty(), "{:?}", k.faults);
    (k.registers, k.spill_stores)
}

/// An entry that keeps `n` loaded values live across a call of `heavy`, which keeps `m`
/// of its own (volatile loads, then stores in reverse order, in both).
fn live_across(n: usize, m: usize) -> String {
    let loads = |base: &str, k: usize| -> String {
        (0..k).map(|i| format!("ld.volatile.global.f32 %f{i}, [{base}+{}];\n", 4 * i)).collect()
    };
    let stores = |base: &str, k: usize| -> String {
        (0..k).map(|i| format!("st.volatile.global.f32 [{base}+{}], %f{};\n", 4 * (k + i), k - 1 - i)).collect()
    };
    format!(
        ".version 8.8\n.target sm_80\n.address_size 64\n.func heavy(.param .b64 p);\n\
         .visible .entry k(.param .u64 a)\n{{\n.reg .f32 %f<{n}>;\n.reg .b64 %rd<3>;\nld.param.u64 %rd1, [a];\n\
         cvta.to.global.u64 %rd2, %rd1;\n{}{{\n.param .b64 param0;\nst.param.b64 [param0], %rd2;\n\
         call.uni heavy, (param0);\n}}\n{}ret;\n}}\n\
         .func heavy(.param .b64 p)\n{{\n.reg .f32 %f<{m}>;\n.reg .b64 %rd<3>;\nld.param.u64 %rd1, [p];\n{}{}ret;\n}}\n",
        loads("%rd2", n),
        stores("%rd2", n),
        loads("%rd1", m),
        stores("%rd1", m),
    )
}

/// (values the entry keeps across the call, values the callee keeps, ptxas's count,
/// radbg's). ptxas spills none of them: its SASS keeps the entry's 20 values in R0,
/// R8–R14 and the odd registers R9–R37 — scratch registers of the ABI — while the callee
/// (`$k$heavy`) uses R4–R7 and the even R16–R34. Under the ABI's clobbers (every scratch
/// register below the callee's limit) radbg spilled all four and reported 255. (40, 10)
/// was 56 while the bank-parity limit counted R1 twice (stop 38): its peak 45 + R1 + 2 =
/// 48 registers packed keeps 40 warps, so bank parity no longer spreads it to 56.
const ACROSS: &[(usize, usize, u32, u32)] = &[(20, 10, 40, 33), (40, 10, 64, 53), (30, 30, 72, 53), (10, 30, 48, 40)];

#[test]
fn values_live_across_a_call_stay_in_registers_the_callee_does_not_write() {
    for &(n, m, _, radbg) in ACROSS {
        assert_eq!(radbg_figures(&live_across(n, m), &[], &[]), (radbg, 0), "{n} live across a callee keeping {m}");
    }
    // The ABI's clobbers alone (rule 7 off): the values live across the call have only
    // R16–R31 left, and the 20 of the first case do not fit.
    let (regs, spilled) = radbg_figures(&live_across(20, 10), &[], &["radbg.CalleeClobbers=0"]);
    assert!(spilled > 0 && regs == 255, "{regs} registers, {spilled} bytes spilled");
}

#[test]
fn an_entry_counts_the_functions_it_calls() {
    for &(what, n, recursive, _, radbg) in CASES {
        assert_eq!(radbg_count(&kernel(n, recursive), &[]), radbg, "{what}");
    }
}

#[test]
fn without_the_report_rule_the_entry_counts_its_own_body() {
    assert!(radbg_count(&kernel(40, false), &["report"]) < 24);
}

#[test]
fn the_importer_puts_callees_first() {
    let (m, _) = radbg::ir::ptx::import_str("k.ptx", &kernel(2, false)).expect("imports");
    let names: Vec<&str> = m.functions.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["heavy", "k"]);
}

#[test]
fn the_recorded_ptxas_figures_are_ptxas_s() {
    let Some((ptxas, dir)) = common::ptxas::ptxas_in("calls", "the recorded figures are") else {
        return;
    };
    for (i, &(what, n, recursive, want, _)) in CASES.iter().enumerate() {
        let file = dir.join(format!("k{i}.ptx"));
        std::fs::write(&file, kernel(n, recursive)).expect("writes");
        let (used, log) = common::ptxas::used_registers(&ptxas, &file);
        assert_eq!(used, Some(want), "{what}: {log}");
    }
    for (i, &(n, m, want, _)) in ACROSS.iter().enumerate() {
        let file = dir.join(format!("across{i}.ptx"));
        std::fs::write(&file, live_across(n, m)).expect("writes");
        let (used, log) = common::ptxas::used_registers(&ptxas, &file);
        assert_eq!(used, Some(want), "{n} live across a callee keeping {m}: {log}");
        assert!(log.contains("0 bytes spill stores"), "{log}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `kernel(n, false)` with the entry's launch bounds `bounds` (empty: none).
fn bounded(n: usize, bounds: &str) -> String {
    kernel(n, false).replacen(
        ".visible .entry k(.param .u64 a)\n",
        &format!(".visible .entry k(.param .u64 a){bounds}\n"),
        1,
    )
}

/// `heavy`'s spill-store bytes under `--maxrregcount budget`.
fn callee_spills(text: &str, budget: u32) -> u32 {
    let run = run_file("k.ptx", text, "sm_80", Some(budget), &Settings::default()).expect("runs");
    let f = run.funcs.iter().find(|f| f.name == "heavy").expect("the callee");
    assert!(f.faults.is_empty(), "{:?}", f.faults);
    f.spill_stores
}

const BOUNDS: &str = "\n.maxntid 256, 1, 1\n.minnctapersm 2";

/// ptxas compiles a callee with its entry, to the entry's budget: launch bounds replace
/// `--maxrregcount` for the callee too (ARCHITECTURE.md, "Fidelity", rule "callees
/// compile to their entry's launch bounds"). ptxas 13.0.88 on these two files under
/// `--maxrregcount 32`: `heavy` keeps 60 values live; with the bounds (128 registers) it
/// reports no spills, without them 136 bytes of spill stores.
#[test]
fn a_callee_compiles_to_its_entrys_launch_bounds() {
    assert_eq!(callee_spills(&bounded(60, BOUNDS), 32), 0);
    assert!(callee_spills(&bounded(60, ""), 32) > 0);
    let Some((ptxas, dir)) = common::ptxas::ptxas_in("bounds", "the recorded behaviour is") else {
        return;
    };
    for (name, bounds, spills) in [("with", BOUNDS, false), ("without", "", true)] {
        let file = dir.join(format!("{name}.ptx"));
        std::fs::write(&file, bounded(60, bounds)).expect("writes");
        let out = std::process::Command::new(&ptxas)
            .args(["-arch", "sm_80", "-v", "--maxrregcount", "32", "-o", "/dev/null"])
            .arg(&file)
            .output()
            .expect("ptxas runs");
        let log = String::from_utf8_lossy(&out.stderr).into_owned() + &String::from_utf8_lossy(&out.stdout);
        let heavy = log.split("Function properties for heavy").nth(1).expect("heavy's properties");
        let line = heavy.lines().nth(1).unwrap_or_default();
        assert_eq!(!line.contains(" 0 bytes spill stores"), spills, "{name} launch bounds: {log}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// An entry calling `mid`, which keeps `n` loaded values live across its own call of
/// `heavy` (which keeps `m`): both device functions of the module, none recursive.
fn nested(n: usize, m: usize) -> String {
    let loads =
        |k: usize| -> String { (0..k).map(|i| format!("ld.volatile.global.f32 %f{i}, [%rd1+{}];\n", 4 * i)).collect() };
    let stores = |k: usize| -> String {
        (0..k).map(|i| format!("st.volatile.global.f32 [%rd1+{}], %f{};\n", 4 * (k + i), k - 1 - i)).collect()
    };
    let call = |arg: &str, f: &str| {
        format!("{{\n.param .b64 param0;\nst.param.b64 [param0], {arg};\ncall.uni {f}, (param0);\n}}\n")
    };
    format!(
        ".version 8.8\n.target sm_80\n.address_size 64\n.func heavy(.param .b64 p);\n.func mid(.param .b64 p);\n\
         .visible .entry k(.param .u64 a)\n{{\n.reg .b64 %rd<3>;\nld.param.u64 %rd1, [a];\n\
         cvta.to.global.u64 %rd2, %rd1;\n{}ret;\n}}\n\
         .func mid(.param .b64 p)\n{{\n.reg .f32 %f<{n}>;\n.reg .b64 %rd<3>;\nld.param.u64 %rd1, [p];\n{}{}{}ret;\n}}\n\
         .func heavy(.param .b64 p)\n{{\n.reg .f32 %f<{m}>;\n.reg .b64 %rd<3>;\nld.param.u64 %rd1, [p];\n{}{}ret;\n}}\n",
        call("%rd2", "mid"),
        loads(n),
        call("%rd1", "heavy"),
        stores(n),
        loads(m),
        stores(m),
    )
}

/// A device function that calls another of the module keeps the values live across the
/// call in registers, saving nothing: ptxas 13.0.88 reports `mid` (12 values across its
/// call of `heavy`) with 0 bytes of frame and spills, where the convention's saves of the
/// preserved registers it uses gave radbg 56 (and 195 of blender's device functions
/// false spills on the development part). A recursive callee still saves: the corpus's
/// `fib`, 20 bytes (`radbg fidelity`, tests/fidelity_baseline.json).
#[test]
fn an_internal_callee_saves_nothing_for_its_callers() {
    let run = run_file("k.ptx", &nested(12, 10), "sm_80", None, &Settings::default()).expect("runs");
    let mid = run.funcs.iter().find(|f| f.name == "mid").expect("mid");
    assert!(mid.faults.is_empty(), "{:?}", mid.faults);
    assert_eq!((mid.spill_stores, mid.stack_frame), (0, 0));
    let k = run.funcs.iter().find(|f| f.name == "k").expect("k");
    assert!(k.faults.is_empty(), "{:?}", k.faults);
    let Some((ptxas, dir)) = common::ptxas::ptxas_in("nested", "the recorded behaviour is") else {
        return;
    };
    let file = dir.join("nested.ptx");
    std::fs::write(&file, nested(12, 10)).expect("writes");
    let (_, log) = common::ptxas::used_registers(&ptxas, &file);
    let props = log.split("Function properties for mid").nth(1).expect("mid's properties");
    assert!(props.lines().nth(1).unwrap_or_default().contains("0 bytes stack frame, 0 bytes spill stores"), "{log}");
    let _ = std::fs::remove_dir_all(&dir);
}
