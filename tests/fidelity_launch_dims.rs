//! Launch dimensions come from the constant bank (issue 23, ARCHITECTURE.md "Fidelity",
//! stop 30): ptxas 13.0.88 never reads `SR_NTID` or `SR_NCTAID` — in the development
//! part's 158 SASS listings neither appears, and `%ntid.x` is `c[0x0][0x0]`, `%nctaid.x`
//! `c[0x0][0xc]` (dfdx's grid-stride `fill_with_f32` on sm_90: `ULDC UR4, c[0x0][0x0]`,
//! `ULDC UR5, c[0x0][0xc]`). radbg's `fold` stage reads them as it reads a kernel
//! parameter. A hand-made grid-stride kernel: after the stages no `S2R` of either is left
//! where its uses can take a constant operand. When ptxas and nvdisasm are installed the
//! test compiles it and checks ptxas still reads the bank.

mod common;

use std::collections::BTreeSet;

/// A grid-stride loop over `n` (stride `%ntid.x × %nctaid.x`, start `%ctaid.x × %ntid.x +
/// %tid.x`) that also adds `%ntid.y` and `%nctaid.y` to what it stores.
fn kernel(sm: &str) -> String {
    format!(
        ".version 9.0\n.target {sm}\n.address_size 64\n\
         .visible .entry k(.param .u64 a, .param .u32 n)\n{{\n\
         .reg .pred %p<3>; .reg .b32 %r<20>; .reg .b64 %rd<8>;\n\
         ld.param.u64 %rd1, [a]; ld.param.u32 %r10, [n];\n\
         cvta.to.global.u64 %rd2, %rd1;\n\
         mov.u32 %r1, %ntid.x; mov.u32 %r2, %ctaid.x; mov.u32 %r3, %tid.x;\n\
         mad.lo.s32 %r4, %r2, %r1, %r3;\n\
         setp.ge.u32 %p1, %r4, %r10;\n@%p1 bra $L_end;\n\
         mov.u32 %r5, %nctaid.x; mul.lo.s32 %r6, %r5, %r1;\n\
         mov.u32 %r7, %ntid.y; mov.u32 %r8, %nctaid.y;\n\
         $L_loop:\n\
         add.s32 %r11, %r4, %r7;\nadd.s32 %r12, %r11, %r8;\n\
         mul.wide.u32 %rd3, %r4, 4;\nadd.s64 %rd4, %rd2, %rd3;\n\
         st.global.u32 [%rd4], %r12;\n\
         add.s32 %r4, %r4, %r6;\nsetp.lt.u32 %p2, %r4, %r10;\n@%p2 bra $L_loop;\n\
         $L_end:\nret;\n}}\n"
    )
}

/// The launch-dimension reads left after radbg's stages.
fn s2r_left(text: &str) -> Vec<String> {
    let (mut m, _) = radbg::ir::ptx::import_str("k.ptx", text).expect("imports");
    radbg::prepass::apply(&mut m, &BTreeSet::new(), &["fold"]);
    let f = &m.functions[0];
    f.blocks
        .iter()
        .flat_map(|b| &b.insts)
        .map(|i| radbg::ir::print::print_inst(f, i))
        .filter(|s| s.contains("SR_NTID") || s.contains("SR_NCTAID"))
        .collect()
}

#[test]
fn fold_leaves_only_the_launch_dimension_a_multiply_cannot_take() {
    for sm in ["sm_80", "sm_90"] {
        // `%nctaid.x × %ntid.x` has two constants and SASS takes one: radbg folds the
        // first (ptxas folds `%ntid.x` and loads `%nctaid.x` into a register, `IMAD R5,
        // R10, c[0x0][0x0], RZ` in dlib's `_cuda_elu_gradient`; folding the one defined
        // first instead moved more test-part rows away from ptxas than toward it).
        assert_eq!(s2r_left(&kernel(sm)), ["%r1 = S2R SR_NTID.X"], "{sm}");
    }
}

#[test]
fn ptxas_reads_launch_dimensions_from_the_bank() {
    let Some(common::ptxas::SassTools { ptxas, nvdisasm, dir }) =
        common::ptxas::sass_tools("launch-dims", "the bank reads")
    else {
        return;
    };
    let mut wrong = Vec::new();
    for sm in ["sm_80", "sm_90"] {
        let sass = common::ptxas::sass_for(&ptxas, &nvdisasm, &dir, &format!("k_{sm}"), &kernel(sm), sm);
        if sass.contains("SR_NTID") || sass.contains("SR_NCTAID") {
            wrong.push(format!("{sm}: ptxas reads a launch dimension as a special register:\n{sass}"));
        }
        for word in ["c[0x0][0x0]", "c[0x0][0x4]", "c[0x0][0xc]", "c[0x0][0x10]"] {
            if !sass.contains(word) {
                wrong.push(format!("{sm}: no read of {word}:\n{sass}"));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(wrong.is_empty(), "{wrong:#?}");
}
