//! 64-bit values with a known-zero high word hold one register (issue 23, ARCHITECTURE.md,
//! rule 14). A hand-made grid-stride loop over a zero-extended 32-bit index: ptxas 13.0.88
//! keeps the index in `R0` alone across the loop and reads `RZ` for its high word
//! (`ISETP.GE.U32.AND.EX P0, PT, RZ, c[0x0][0x16c]`, `LEA.HI.X R3, R0, c[0x0][0x174], RZ`):
//! 12 registers, radbg 14 with both words. When ptxas and nvdisasm are installed, the last
//! test re-measures it.

mod common;

use common::vregs::read_width as width;
use std::collections::BTreeSet;

/// `sum = Σ a[i]` for `i` from the thread's index in steps of the grid, then
/// `b[index] = sum`: the index (`%rd1`) and the step (`%rd4`) are `cvt.u64.u32`; `widen`
/// replaces the index's conversion (`cvt.s64.s32` sign-extends), `mul` adds a 64-bit
/// multiply of the index (its high word becomes a component `expand` names).
fn kernel(widen: &str, mul: bool) -> String {
    let extra = if mul { "mul.lo.s64 %rd20, %rd1, %rd2; st.global.u64 [%rd12], %rd20;\n" } else { "" };
    format!(
        ".version 9.0\n.target sm_80\n.address_size 64\n\
         .visible .entry k(.param .u64 k_a, .param .u64 k_n, .param .u64 k_b)\n{{\n\
         .reg .pred %p<4>; .reg .f32 %f<10>; .reg .b32 %r<20>; .reg .b64 %rd<40>;\n\
         ld.param.u64 %rd2, [k_n];\n\
         ld.param.u64 %rd10, [k_a]; cvta.to.global.u64 %rd3, %rd10;\n\
         ld.param.u64 %rd11, [k_b]; cvta.to.global.u64 %rd12, %rd11;\n\
         mov.u32 %r1, %tid.x; mov.u32 %r2, %ntid.x; mov.u32 %r4, %ctaid.x;\n\
         mad.lo.s32 %r3, %r4, %r2, %r1;\n\
         cvt.{widen} %rd1, %r3;\n\
         mov.u32 %r5, %nctaid.x; mul.lo.s32 %r6, %r5, %r2;\n\
         cvt.u64.u32 %rd4, %r6;\n\
         setp.ge.u64 %p1, %rd1, %rd2; @%p1 bra DONE;\n\
         {extra}\
         mov.u64 %rd5, %rd1;\n\
         mov.f32 %f1, 0f00000000;\n\
         LOOP:\n\
         shl.b64 %rd6, %rd5, 2; add.s64 %rd7, %rd3, %rd6; ld.global.f32 %f2, [%rd7];\n\
         add.f32 %f1, %f1, %f2;\n\
         add.s64 %rd5, %rd5, %rd4;\n\
         setp.lt.u64 %p2, %rd5, %rd2; @%p2 bra LOOP;\n\
         shl.b64 %rd8, %rd1, 2; add.s64 %rd9, %rd12, %rd8; st.global.f32 [%rd9], %f1;\n\
         DONE:\nret;\n}}\n"
    )
}

/// The function after the stages up to `zext`, and the width of each named vreg there.
fn staged(text: &str) -> radbg::ir::Function {
    let (mut m, _) = radbg::ir::ptx::import_str("k.ptx", text).expect("imports");
    radbg::prepass::apply(&mut m, &BTreeSet::new(), &["components", "webs", "expand", "fold", "narrow", "zext"]);
    m.functions.remove(0)
}

#[test]
fn a_zero_extended_index_and_step_hold_one_register_each() {
    let f = staged(&kernel("u64.u32", false));
    assert_eq!(width(&f, "%rd1"), Some(1), "the index");
    assert_eq!(width(&f, "%rd4"), Some(1), "the step");
    // The loop variable is also the sum of a pair and the step: its high word is not
    // known, and an address is always a pair.
    assert_eq!(width(&f, "%rd5"), Some(2), "the loop variable");
    assert_eq!(width(&f, "%rd7"), Some(2), "an address");
}

#[test]
fn a_sign_extended_index_keeps_its_pair() {
    let f = staged(&kernel("s64.s32", false));
    assert_eq!(width(&f, "%rd1"), Some(2));
    assert_eq!(width(&f, "%rd4"), Some(1));
}

#[test]
fn a_stored_value_keeps_its_pair_and_a_product_reads_rz_for_the_high_word() {
    let f = staged(&kernel("u64.u32", true));
    // `%rd1` is multiplied (expand names `%rd1.hi` in a cross product) but never stored:
    // it narrows, and the high-word operand is the immediate 0.
    assert_eq!(width(&f, "%rd1"), Some(1));
    let printed: Vec<String> =
        f.blocks.iter().flat_map(|b| &b.insts).map(|i| radbg::ir::print::print_inst(&f, i)).collect();
    assert!(!printed.iter().any(|s| s.contains("%rd1.hi") || s.contains("%rd1$lo.")), "{printed:#?}");
    assert!(printed.iter().any(|s| s.contains("IMAD") && s.contains("%rd1$lo")), "{printed:#?}");
    // The product itself is stored whole: a pair.
    assert_eq!(width(&f, "%rd20"), Some(2));
}

#[test]
fn the_count_follows_ptxas_and_the_stage_can_be_switched_off() {
    use radbg::fidelity::measure::{Settings, run_file};
    let used = |settings: &Settings| {
        let run = run_file("k.ptx", &kernel("u64.u32", false), "sm_80", None, settings).expect("runs");
        assert!(run.funcs[0].faults.is_empty(), "{:?}", run.funcs[0].faults);
        run.funcs[0].registers
    };
    // ptxas 13.0.88: 12.
    assert_eq!(used(&Settings::default()), 12);
    let off = Settings { disabled_passes: BTreeSet::from(["zext".to_string()]), ..Settings::default() };
    assert_eq!(used(&off), 14);
}

#[test]
fn ptxas_holds_the_index_alone_and_reads_rz_for_its_high_word() {
    let Some(common::ptxas::SassTools { ptxas, nvdisasm, dir }) =
        common::ptxas::sass_tools("zext", "zero-extended indices")
    else {
        return;
    };
    let sass = common::ptxas::sass_for(&ptxas, &nvdisasm, &dir, "k", &kernel("u64.u32", false), "sm_80");
    let _ = std::fs::remove_dir_all(&dir);
    // The compare's high word and the store address's high word are RZ.
    let ex_rz = sass.lines().any(|l| l.contains("ISETP.GE.U32.AND.EX") && l.contains("PT, RZ, c[0x0]"));
    let lea_rz =
        sass.lines().any(|l| l.contains("LEA.HI.X") && l.trim_end().trim_end_matches(';').contains(", RZ, 0x2"));
    assert!(ex_rz && lea_rz, "{sass}");
}
