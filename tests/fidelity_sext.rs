//! A sign-extended 64-bit offset held as its 32-bit word (issue 23, ARCHITECTURE.md "Tried,
//! not kept": `prepass::extend::SEXT`, written, not in the pass list). A hand-made
//! grid-stride loop adds two loop-invariant `cvt.s64.s32` offsets to its 64-bit index:
//! ptxas 13.0.88 keeps the first one in `R10` alone and folds the extension into the add
//! (`LEA.HI.X.SX32 R8, R10, R17, 0x1, P2`); the second is also stored whole, so it is a
//! pair (`SHF.R.S32.HI R3, RZ, 0x1f, R2`, `STG.E.64 [R4.64+0x8], R2`). When ptxas and
//! nvdisasm are installed, the last test re-measures it.

mod common;

use common::vregs::read_width as width;
use std::collections::BTreeSet;

const KERNEL: &str = ".version 9.0\n.target sm_80\n.address_size 64\n\
.visible .entry k(.param .u64 k_a, .param .u64 k_n, .param .u64 k_b)\n{\n\
.reg .pred %p<4>; .reg .f32 %f<10>; .reg .b32 %r<20>; .reg .b64 %rd<40>;\n\
ld.param.u64 %rd2, [k_n];\n\
ld.param.u64 %rd10, [k_a]; cvta.to.global.u64 %rd3, %rd10;\n\
ld.param.u64 %rd11, [k_b]; cvta.to.global.u64 %rd12, %rd11;\n\
mov.u32 %r1, %tid.x; mov.u32 %r2, %ntid.x; mov.u32 %r4, %ctaid.x;\n\
mad.lo.s32 %r3, %r4, %r2, %r1;\n\
add.s32 %r7, %r1, 256; cvt.s64.s32 %rd13, %r7;\n\
add.s32 %r8, %r1, 512; cvt.s64.s32 %rd14, %r8;\n\
cvt.s64.s32 %rd1, %r3;\n\
mov.u32 %r5, %nctaid.x; mul.lo.s32 %r6, %r5, %r2;\n\
cvt.u64.u32 %rd4, %r6;\n\
setp.ge.u64 %p1, %rd1, %rd2; @%p1 bra DONE;\n\
mov.u64 %rd5, %rd1;\n\
mov.f32 %f1, 0f00000000;\n\
LOOP:\n\
add.s64 %rd15, %rd5, %rd13; shl.b64 %rd16, %rd15, 2; add.s64 %rd17, %rd3, %rd16; ld.global.f32 %f3, [%rd17];\n\
add.s64 %rd18, %rd5, %rd14; shl.b64 %rd19, %rd18, 2; add.s64 %rd20, %rd3, %rd19; ld.global.f32 %f4, [%rd20];\n\
shl.b64 %rd6, %rd5, 2; add.s64 %rd7, %rd3, %rd6; ld.global.f32 %f2, [%rd7];\n\
add.f32 %f1, %f1, %f2; add.f32 %f1, %f1, %f3; add.f32 %f1, %f1, %f4;\n\
add.s64 %rd5, %rd5, %rd4;\n\
setp.lt.u64 %p2, %rd5, %rd2; @%p2 bra LOOP;\n\
shl.b64 %rd8, %rd1, 2; add.s64 %rd9, %rd12, %rd8; st.global.f32 [%rd9], %f1;\n\
st.global.u64 [%rd9+8], %rd14;\n\
DONE:\nret;\n}\n";

/// The function after the stages up to `zext`, then `sext` by itself when `on`.
fn staged(on: bool) -> radbg::ir::Function {
    let (mut m, _) = radbg::ir::ptx::import_str("k.ptx", KERNEL).expect("imports");
    radbg::prepass::apply(&mut m, &BTreeSet::new(), &["components", "webs", "expand", "fold", "narrow", "zext"]);
    if !on {
        return m.functions.remove(0);
    }
    let ctx = radbg::prepass::PassCtx { module: &m, sm: &m.sm, maxrregcount: None, cap: None };
    radbg::prepass::extend::SEXT.run_owned(&m.functions[0], &ctx).0
}

#[test]
fn an_offset_added_to_the_index_holds_one_register_and_a_stored_one_keeps_its_pair() {
    let before = staged(false);
    assert_eq!(width(&before, "%rd13"), Some(2), "the importer's pair");
    let f = staged(true);
    assert_eq!(width(&f, "%rd13"), Some(1), "added to the index only: its 32-bit word");
    assert_eq!(width(&f, "%rd14"), Some(2), "also stored whole: a pair");
    // The sum that reads it is still a pair (an address follows), and nothing reads a
    // sign word alone.
    let printed: Vec<String> =
        f.blocks.iter().flat_map(|b| &b.insts).map(|i| radbg::ir::print::print_inst(&f, i)).collect();
    assert!(printed.iter().any(|s| s.contains("IADD3") && s.contains("%rd13$lo")), "{printed:#?}");
    assert!(!printed.iter().any(|s| s.contains("%rd13$lo.")), "{printed:#?}");
}

#[test]
fn ptxas_folds_the_extension_into_the_add_and_stores_the_other_as_a_pair() {
    let Some(common::ptxas::SassTools { ptxas, nvdisasm, dir }) =
        common::ptxas::sass_tools("sext", "sign-extended offsets")
    else {
        return;
    };
    let sass = common::ptxas::sass_for(&ptxas, &nvdisasm, &dir, "k", KERNEL, "sm_80");
    let _ = std::fs::remove_dir_all(&dir);
    assert!(sass.lines().any(|l| l.contains("LEA.HI.X.SX32")), "{sass}");
    assert!(sass.lines().any(|l| l.contains("STG.E.64")), "{sass}");
}
