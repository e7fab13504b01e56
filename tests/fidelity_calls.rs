//! Calls to functions defined in the module (issue 23, ARCHITECTURE.md "Fidelity", rule
//! 5): ptxas 13.0.88 compiles such a callee with the kernel (`CALL.REL.NOINC` to it) and
//! the kernel's `Used N registers` covers the callee's registers; the ABI minimum (24 on
//! sm_80) applies only when a call needs the real ABI — an external function or
//! recursion. Each case records ptxas's figure and radbg's; when ptxas is installed the
//! test re-runs it and checks its figure is still the recorded one.

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
    let settings = Settings {
        disabled_passes: disabled.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>(),
        ..Default::default()
    };
    let run = run_file("k.ptx", text, "sm_80", None, &settings).expect("runs");
    let k = run.funcs.iter().find(|f| f.name == "k").expect("the entry");
    assert!(k.faults.is_empty(), "{:?}", k.faults);
    k.registers
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
    let Some(ptxas) = common::ptxas::ptxas() else {
        eprintln!("ptxas 13.0.88 not in the corpus cache: the recorded figures are not re-measured");
        return;
    };
    let dir = std::env::temp_dir().join(format!("radbg-calls-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    for (i, &(what, n, recursive, want, _)) in CASES.iter().enumerate() {
        let file = dir.join(format!("k{i}.ptx"));
        std::fs::write(&file, kernel(n, recursive)).expect("writes");
        let (used, log) = common::ptxas::used_registers(&ptxas, &file);
        assert_eq!(used, Some(want), "{what}: {log}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
