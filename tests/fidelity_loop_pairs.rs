//! sm_90 grid-stride loops (issue 23, ARCHITECTURE.md, rule 13). Hand-made kernels, ptxas
//! 13.0.88 and nvdisasm on them:
//! - a loop that reads `n` parameter bases once per iteration (`IMAD.WIDE R14, R13, 0x4,
//!   R2`) loads every base pair before the loop for n = 1, 2, 4, 6 (14, 20, 28, 32
//!   registers) and every one inside the loop for n = 8 (22): the pairs leave the loop
//!   together when the function still fits the register target (32 at the default);
//! - the loop's step `ntid × nctaid` is `UIMAD UR4, UR4, UR5, URZ`: no R register.
//!
//! radbg's `fold` models both on sm_90 and later; sm_80 reads the bases and the launch
//! dimensions from the constant bank and is left as it was. When ptxas and nvdisasm are
//! installed, the last test re-measures what the first ones assume.

mod common;

use std::collections::BTreeSet;

/// A grid-stride loop summing `n` arrays into one more (`n + 1` pointer parameters),
/// starting at `%tid.x` (as tract's `copy_nd1_f32`; a start of `%ctaid.x × %ntid.x +
/// %tid.x` puts `ntid` in an R register and ptxas multiplies that one: `IMAD R0, R0,
/// UR4, RZ`, the case rule 13 leaves out).
fn kernel(sm: &str, n: usize) -> String {
    let params: Vec<String> = (0..=n).map(|i| format!(".param .u64 k_p{i}")).collect();
    let mut s = format!(
        ".version 9.0\n.target {sm}\n.address_size 64\n.visible .entry k({}, .param .u32 k_n)\n{{\n\
         .reg .pred %p<4>; .reg .f32 %f<100>; .reg .b32 %r<40>; .reg .b64 %rd<200>;\n\
         ld.param.u32 %r2, [k_n];\n\
         mov.u32 %r9, %tid.x;\nsetp.ge.s32 %p1, %r9, %r2;\n@%p1 bra DONE;\n\
         mov.u32 %r6, %ntid.x;\n\
         mov.u32 %r20, %nctaid.x; mul.lo.s32 %r3, %r6, %r20;\nLOOP:\nmul.wide.s32 %rd5, %r9, 4;\n",
        params.join(", ")
    );
    for i in 0..n {
        s.push_str(&format!(
            "ld.param.u64 %rd{a}, [k_p{i}]; cvta.to.global.u64 %rd{b}, %rd{a}; add.s64 %rd{c}, %rd{b}, %rd5; \
             ld.global.f32 %f{d}, [%rd{c}];\n",
            a = 20 + i,
            b = 40 + i,
            c = 60 + i,
            d = 10 + i
        ));
    }
    let mut acc = "%f10".to_string();
    for i in 1..n {
        s.push_str(&format!("add.f32 %f{}, {acc}, %f{};\n", 30 + i, 10 + i));
        acc = format!("%f{}", 30 + i);
    }
    s.push_str(&format!(
        "ld.param.u64 %rd90, [k_p{n}]; cvta.to.global.u64 %rd91, %rd90; add.s64 %rd92, %rd91, %rd5; \
         st.global.f32 [%rd92], {acc};\n\
         add.s32 %r9, %r9, %r3;\nsetp.lt.s32 %p2, %r9, %r2;\n@%p2 bra LOOP;\nDONE:\nret;\n}}\n"
    ));
    s
}

/// After `fold`: the printed instructions, and whether each is in the loop (its block is
/// the loop's, here the block `LOOP` starts).
fn folded(sm: &str, n: usize) -> (radbg::ir::Function, Vec<(bool, String)>) {
    let (mut m, _) = radbg::ir::ptx::import_str("k.ptx", &kernel(sm, n)).expect("imports");
    radbg::prepass::apply(&mut m, &BTreeSet::new(), &["fold"]);
    let f = m.functions.remove(0);
    let header = f.blocks.iter().position(|b| b.label == "LOOP").expect("the loop's block");
    let insts = f
        .blocks
        .iter()
        .enumerate()
        .flat_map(|(b, blk)| blk.insts.iter().map(move |i| (b == header, i)))
        .map(|(inside, i)| (inside, radbg::ir::print::print_inst(&f, i)))
        .collect();
    (f, insts)
}

fn pair_loads(insts: &[(bool, String)], inside: bool) -> usize {
    insts.iter().filter(|(i, s)| *i == inside && s.contains("= LDC.64 c[0x0][")).count()
}

#[test]
fn four_bases_are_loaded_before_the_loop_one_pair_each() {
    let (_, insts) = folded("sm_90", 4);
    assert_eq!(pair_loads(&insts, true), 0, "{insts:#?}");
    assert_eq!(pair_loads(&insts, false), 5, "{insts:#?}");
}

#[test]
fn eight_bases_do_not_fit_the_target_and_stay_in_the_loop() {
    let (_, insts) = folded("sm_90", 8);
    assert_eq!(pair_loads(&insts, true), 9, "{insts:#?}");
    assert_eq!(pair_loads(&insts, false), 0, "{insts:#?}");
}

#[test]
fn the_step_of_the_loop_is_a_uniform_register_on_sm_90_only() {
    let class_of = |sm: &str| {
        let (f, _) = folded(sm, 1);
        let v = f.vregs.iter().find(|v| &*v.name == "%r3").expect("the step");
        v.class
    };
    assert_eq!(class_of("sm_90"), radbg::ir::RegClass::UR);
    assert_eq!(class_of("sm_80"), radbg::ir::RegClass::R);
    // sm_80 has no pair loads at all: the bases are bank words there.
    let (_, insts) = folded("sm_80", 4);
    assert_eq!(pair_loads(&insts, true) + pair_loads(&insts, false), 0, "{insts:#?}");
}

#[test]
fn the_counts_follow_ptxas_where_the_pairs_leave_the_loop() {
    use radbg::fidelity::measure::{Settings, run_file};
    let used = |n: usize| {
        let run = run_file("k.ptx", &kernel("sm_90", n), "sm_90", None, &Settings::default()).expect("runs");
        assert!(run.funcs[0].faults.is_empty(), "{:?}", run.funcs[0].faults);
        run.funcs[0].registers
    };
    // ptxas: 14 and 20 (radbg held the pairs only around each add: 12 and 14; now 14
    // and 18).
    assert_eq!(used(1), 14);
    assert!(used(2) >= 18, "{}", used(2));
}

#[test]
fn ptxas_loads_the_pairs_before_the_loop_and_steps_in_a_uniform_register() {
    let Some(common::ptxas::SassTools { ptxas, nvdisasm, dir }) =
        common::ptxas::sass_tools("loop-pairs", "the loop's pair loads")
    else {
        return;
    };
    // (n, pair loads ptxas puts before the loop's label, inside it)
    let mut wrong = Vec::new();
    for (n, before, inside) in [(4, 5, 0), (8, 0, 9)] {
        let sass = common::ptxas::sass_for(&ptxas, &nvdisasm, &dir, &format!("k{n}"), &kernel("sm_90", n), "sm_90");
        // The loop starts at the label the backward branch names.
        let target = sass
            .lines()
            .filter(|l| l.contains("BRA") && l.contains("@"))
            .find_map(|l| l.split("`(").nth(1).and_then(|t| t.split(')').next()).map(str::to_string))
            .unwrap_or_default();
        let at = sass.find(&format!("{target}:")).unwrap_or(0);
        let count = |s: &str| s.lines().filter(|l| l.contains(" LDC.64 ")).count();
        if (count(&sass[..at]), count(&sass[at..])) != (before, inside) {
            wrong.push(format!("n = {n}: expected {before} before, {inside} inside:\n{sass}"));
        }
        if n == 4 && !sass.contains("UIMAD") {
            wrong.push(format!("n = 4: the step is not a UIMAD:\n{sass}"));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(wrong.is_empty(), "{wrong:#?}");
}
