//! The `slowpath` prepass (issue 23, ARCHITECTURE.md "Fidelity", rule 1): operations
//! ptxas 13.0.88 implements as internal subroutines clobber the routine's registers at
//! the call. Each case is the smallest kernel that calls one routine — one pointer kept,
//! the operands loaded (or a parameter / immediate), the operation, one store — with
//! the `Used N registers` ptxas reports for it (measured with the corpus ptxas, `-arch
//! sm_80`) and radbg's. When ptxas is installed the test runs it on every case and
//! checks its figure is still the recorded one.

mod common;

use std::collections::BTreeSet;

use radbg::fidelity::measure::{Settings, run_file};

/// A kernel that loads `%v1` (and `%v2`) of type `ty` from `p`, or takes `%v2` as the
/// parameter `q`, computes `op`, and stores `%v3`.
fn kernel(ty: &str, op: &str, q_param: bool) -> String {
    let (param, v2) = if q_param {
        (format!(", .param .{ty} q"), format!("ld.param.{ty} %v2, [q];"))
    } else {
        (String::new(), format!("ld.global.{ty} %v2, [%rd2+8];"))
    };
    format!(
        ".version 9.0\n.target sm_80\n.address_size 64\n\
         .visible .entry k(.param .u64 p{param})\n{{\n\
         .reg .b64 %rd<4>;\n.reg .{ty} %v<4>;\n\
         ld.param.u64 %rd1, [p];\ncvta.to.global.u64 %rd2, %rd1;\n\
         ld.global.{ty} %v1, [%rd2];\n{v2}\n\
         {op};\nst.global.{ty} [%rd2+16], %v3;\nret;\n}}\n"
    )
}

/// (type, operation, divisor a parameter, ptxas's count, radbg's count).
const CASES: &[(&str, &str, bool, u32, u32)] = &[
    ("f32", "div.rn.f32 %v3, %v1, %v2", false, 16, 16),
    ("f32", "div.rn.ftz.f32 %v3, %v1, %v2", false, 14, 14),
    ("f32", "sqrt.rn.f32 %v3, %v1", false, 10, 10),
    ("f32", "sqrt.rn.ftz.f32 %v3, %v1", false, 10, 10),
    // The routine's footprint is one word between two of radbg's even steps here.
    ("f32", "rcp.rn.f32 %v3, %v1", false, 15, 14),
    ("f32", "rcp.rn.ftz.f32 %v3, %v1", false, 9, 8),
    ("f64", "div.rn.f64 %v3, %v1, %v2", false, 25, 25),
    ("f64", "rcp.rn.f64 %v3, %v1", false, 14, 14),
    ("f64", "sqrt.rn.f64 %v3, %v1", false, 20, 20),
    ("u64", "div.u64 %v3, %v1, %v2", false, 20, 20),
    ("u64", "rem.u64 %v3, %v1, %v2", false, 20, 20),
    ("s64", "div.s64 %v3, %v1, %v2", false, 24, 24),
    ("s64", "rem.s64 %v3, %v1, %v2", false, 22, 22),
    ("u16", "div.u16 %v3, %v1, %v2", false, 12, 12),
    ("s16", "rem.s16 %v3, %v1, %v2", false, 13, 12),
    // A divisor in the constant bank or an immediate: the 64-bit routines read it there.
    ("u64", "div.u64 %v3, %v1, %v2", true, 18, 18),
    ("u64", "div.u64 %v3, %v2, %v1", true, 20, 20),
    ("u64", "rem.u64 %v3, %v1, 1000", false, 18, 18),
    ("s64", "div.s64 %v3, %v1, %v2", true, 22, 22),
    // Inline: no routine, no clobbers.
    ("f32", "div.full.f32 %v3, %v1, %v2", false, 8, 8),
];

fn radbg_count(text: &str, budget: Option<u32>, disabled: &[&str]) -> (u32, u32) {
    let settings = Settings {
        disabled_passes: disabled.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>(),
        ..Default::default()
    };
    let run = run_file("k.ptx", text, "sm_80", budget, &settings).expect("runs");
    let f = &run.funcs[0];
    assert!(f.faults.is_empty(), "{:?}", f.faults);
    (f.registers, f.spill_stores)
}

#[test]
fn each_routine_clobbers_what_ptxas_counts() {
    for &(ty, op, q, _ptxas, radbg) in CASES {
        let (got, spills) = radbg_count(&kernel(ty, op, q), None, &[]);
        assert_eq!((got, spills), (radbg, 0), "{op} (divisor a parameter: {q})");
    }
}

#[test]
fn without_the_stage_a_division_counts_like_an_add() {
    let text = kernel("f32", "div.rn.f32 %v3, %v1, %v2", false);
    assert_eq!(radbg_count(&text, None, &["slowpath"]).0, 8);
    assert_eq!(radbg_count(&text, None, &[]).0, 16);
}

#[test]
fn the_recorded_ptxas_figures_are_ptxas_s() {
    let Some((ptxas, dir)) = common::ptxas::ptxas_in("slowpath", "the recorded figures are") else {
        return;
    };
    for (i, &(ty, op, q, want, _)) in CASES.iter().enumerate() {
        let file = dir.join(format!("k{i}.ptx"));
        std::fs::write(&file, kernel(ty, op, q)).expect("writes");
        let (used, log) = common::ptxas::used_registers(&ptxas, &file);
        assert_eq!(used, Some(want), "{op}: {log}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Dead destinations named `%slowN` the stage added, in the imported function.
fn clobbers(text: &str, budget: Option<u32>) -> usize {
    let (mut m, _) = radbg::ir::ptx::import_str("t.ptx", text).expect("imports");
    m.options.maxrregcount = budget;
    radbg::prepass::apply(&mut m, &BTreeSet::new(), &["slowpath"]);
    m.functions[0].vregs.iter().filter(|v| v.name.starts_with("%slow")).count()
}

#[test]
fn a_source_that_stays_live_is_read_in_place() {
    // The dividend dies at the division: 13 words. Kept for the store after it: its
    // pair is the routine's, 11 words.
    let dies = kernel("u64", "div.u64 %v3, %v1, %v2", false);
    assert_eq!(clobbers(&dies, None), 13);
    let kept = dies.replace("ret;", "st.global.u64 [%rd2+24], %v1;\nret;");
    assert_eq!(clobbers(&kept, None), 11);
}

/// `div.rn.f32` with `n` more loaded floats live across it (summed after it).
fn crowded_division(n: usize) -> String {
    let mut loads = String::new();
    let mut sum = String::new();
    for i in 0..n {
        loads.push_str(&format!("ld.global.f32 %f{i}, [%rd2+{}];\n", 32 + 4 * i));
        sum.push_str(&format!("add.f32 %v3, %v3, %f{i};\n"));
    }
    kernel("f32", "div.rn.f32 %v3, %v1, %v2", false)
        .replace(".reg .f32 %v<4>;", &format!(".reg .f32 %v<4>;\n.reg .f32 %f<{n}>;"))
        .replace("ld.global.f32 %v1, [%rd2];", &format!("{loads}ld.global.f32 %v1, [%rd2];"))
        .replace("st.global.f32 [%rd2+16], %v3;", &format!("{sum}st.global.f32 [%rd2+16], %v3;"))
}

#[test]
fn under_a_budget_the_routine_takes_only_what_is_free() {
    // Twenty-four loaded floats live across the division, at --maxrregcount 32: 29
    // usable registers less 24 live, 2 sources and the result leave 3 (room for the
    // result's word is counted), not the routine's 9; and nothing spills.
    let text = crowded_division(24);
    assert_eq!(clobbers(&text, None), 9);
    let tight = clobbers(&text, Some(32));
    assert!(tight < 9, "{tight} clobbers at 32");
    let (regs, spills) = radbg_count(&text, Some(32), &[]);
    assert_eq!(spills, 0, "{regs} registers");
}

/// A budget sweep shares the prepasses between budgets that decide alike
/// (`prepass::target_span`); `slowpath`'s clobber count under a budget depends on the
/// exact budget, so each row must still be what a separate run at that budget gives.
#[test]
fn a_sweep_row_is_a_separate_run_at_its_budget() {
    use radbg::engine::{Machine, RunOptions};
    let text = crowded_division(20);
    let file = radbg::ir::span::SourceFile::new("k.ptx", &text);
    let module = radbg::load::import_ptx(&file).expect("imports").module;
    let budgets: Vec<i64> = (16..=48).collect();
    let opts = RunOptions { imported: true, ..RunOptions::default() };
    let rows = radbg::why::sweep::run(&module, &opts, &radbg::why::sweep::Axis::MaxRegCount, &budgets, 2)
        .expect("the sweep runs");
    for (row, &b) in rows.iter().zip(&budgets) {
        let opts =
            RunOptions { imported: true, maxrregcount: Some(b as u32), skip_check: true, ..RunOptions::default() };
        let mut m = Machine::new(module.clone(), opts);
        while m.step().is_some() {}
        assert_eq!(row.funcs, radbg::why::whatif::figures(&m), "--maxrregcount {b}");
    }
}

/// One load, a division by it (a slowpath call), three more loads and their sum: ptxas
/// 13.0.88 keeps the three loads after the call (`CALL.REL.NOINC ..; BSYNC B1; LDG.E R5,
/// [R2.64+0x400]; LDG.E R6, ..; LDG.E R7, ..`): the routine's branch and call split its
/// blocks, so its scheduler does not issue them before the division (issue 23 rule 15).
fn loads_after_a_division() -> String {
    ".version 9.0\n.target sm_80\n.address_size 64\n\
     .visible .entry k(.param .u64 k_a, .param .u64 k_b)\n{\n\
     .reg .f32 %f<20>; .reg .b32 %r<20>; .reg .b64 %rd<40>;\n\
     ld.param.u64 %rd1, [k_a]; cvta.to.global.u64 %rd2, %rd1;\n\
     ld.param.u64 %rd3, [k_b]; cvta.to.global.u64 %rd4, %rd3;\n\
     mov.u32 %r1, %tid.x;\n\
     mul.wide.u32 %rd5, %r1, 4; add.s64 %rd6, %rd2, %rd5;\n\
     ld.global.f32 %f1, [%rd6];\n\
     div.rn.f32 %f2, 0f3F800000, %f1;\n\
     ld.global.f32 %f3, [%rd6+1024];\n\
     ld.global.f32 %f4, [%rd6+2048];\n\
     ld.global.f32 %f5, [%rd6+3072];\n\
     add.f32 %f6, %f2, %f3; add.f32 %f7, %f6, %f4; add.f32 %f8, %f7, %f5;\n\
     add.s64 %rd7, %rd4, %rd5; st.global.f32 [%rd7], %f8;\nret;\n}\n"
        .to_string()
}

#[test]
fn the_schedule_issues_no_load_across_a_routine_call() {
    let (mut m, _) = radbg::ir::ptx::import_str("k.ptx", &loads_after_a_division()).expect("imports");
    radbg::prepass::apply(&mut m, &BTreeSet::new(), &["fold", "schedule"]);
    let f = &m.functions[0];
    let order: Vec<String> =
        f.blocks.iter().flat_map(|b| &b.insts).map(|i| radbg::ir::print::print_inst(f, i)).collect();
    let div = order.iter().position(|s| s.contains("MUFU.DIV")).expect("the division");
    let loads: Vec<usize> = order.iter().enumerate().filter(|(_, s)| s.contains("LDG")).map(|(i, _)| i).collect();
    assert_eq!(loads.len(), 4, "{order:#?}");
    assert!(loads[0] < div && loads[1..].iter().all(|&l| l > div), "{order:#?}");
}

#[test]
fn ptxas_keeps_the_loads_after_the_routine_call() {
    let Some(common::ptxas::SassTools { ptxas, nvdisasm, dir }) =
        common::ptxas::sass_tools("slowpath-order", "the loads after a routine call")
    else {
        return;
    };
    let sass = common::ptxas::sass_for(&ptxas, &nvdisasm, &dir, "k", &loads_after_a_division(), "sm_80");
    let _ = std::fs::remove_dir_all(&dir);
    let call = sass.find("CALL.REL.NOINC").expect("a routine call");
    let after = sass[call..].lines().filter(|l| l.contains("LDG.E")).count();
    assert_eq!(after, 3, "{sass}");
}
