//! On sm_90 and later a kernel parameter that is the addend of a wide product is loaded
//! into a register pair (issue 23, ARCHITECTURE.md, rule 9); on sm_80 it stays a
//! constant-bank operand. Hand-made kernel; ptxas 13.0.88 on it (nvdisasm):
//! sm_80 `IMAD.WIDE R2, R4, R5, c[0x0][0x160]`, sm_90 `LDC.64 R2, c[0x0][0x210]` then
//! `IMAD.WIDE R2, R7, 0x4, R2` (and the same `LDC.64` + register addend on sm_100 and
//! sm_120; sm_86 and sm_89 as sm_80).

use std::collections::BTreeSet;

fn kernel(sm: u32) -> String {
    format!(
        ".version 8.0\n.target sm_{sm}\n.address_size 64\n\
         .visible .entry scale(.param .u64 src, .param .u64 dst, .param .u32 n, .param .f32 s) {{\n\
         .reg .pred %p<2>;\n.reg .b32 %r<8>;\n.reg .f32 %f<4>;\n.reg .b64 %rd<10>;\n\
         ld.param.u64 %rd1, [src];\nld.param.u64 %rd2, [dst];\nld.param.u32 %r2, [n];\nld.param.f32 %f1, [s];\n\
         mov.u32 %r3, %ctaid.x;\nmov.u32 %r4, %ntid.x;\nmov.u32 %r5, %tid.x;\nmad.lo.s32 %r1, %r3, %r4, %r5;\n\
         setp.ge.s32 %p1, %r1, %r2;\n@%p1 bra DONE;\n\
         cvta.to.global.u64 %rd3, %rd1;\nmul.wide.s32 %rd4, %r1, 4;\nadd.s64 %rd5, %rd3, %rd4;\n\
         ld.global.f32 %f2, [%rd5];\nmul.f32 %f3, %f2, %f1;\n\
         cvta.to.global.u64 %rd6, %rd2;\nadd.s64 %rd7, %rd6, %rd4;\nst.global.f32 [%rd7], %f3;\n\
         DONE:\nret;\n}}\n"
    )
}

/// The function's instructions after `fold`, printed, with the block each is in.
fn folded(sm: u32) -> Vec<(usize, String)> {
    let (mut m, _) = radbg::ir::ptx::import_str("t.ptx", &kernel(sm)).expect("imports");
    radbg::prepass::apply(&mut m, &BTreeSet::new(), &["fold"]);
    let f = &m.functions[0];
    f.blocks
        .iter()
        .enumerate()
        .flat_map(|(b, blk)| blk.insts.iter().map(move |i| (b, radbg::ir::print::print_inst(f, i))))
        .collect()
}

fn adds(insts: &[(usize, String)]) -> Vec<&(usize, String)> {
    insts.iter().filter(|(_, s)| s.contains("IADD3.S64")).collect()
}

#[test]
fn on_sm_80_the_addend_is_a_constant_bank_word() {
    let insts = folded(80);
    let adds = adds(&insts);
    assert_eq!(adds.len(), 2, "{insts:#?}");
    assert!(adds.iter().all(|(_, s)| s.contains("c[0x0][")), "{insts:#?}");
    assert!(!insts.iter().any(|(_, s)| s.contains("LDC.64")), "{insts:#?}");
}

#[test]
fn on_sm_90_the_addend_is_a_pair_loaded_in_the_adds_block() {
    let insts = folded(90);
    let adds = adds(&insts);
    assert_eq!(adds.len(), 2, "{insts:#?}");
    for (b, add) in adds {
        assert!(!add.contains("c[0x0]["), "{add}");
        // The pair it reads is loaded by an LDC.64 of a parameter in the same block.
        let pair = add.split_whitespace().find(|w| w.starts_with("%ldc")).unwrap_or_else(|| panic!("{add}"));
        let pair = pair.trim_end_matches(',');
        let load = insts.iter().find(|(_, s)| s.contains(&format!("{pair} = LDC.64 c[0x0][")));
        assert!(load.is_some_and(|(lb, _)| lb == b), "{pair} in {insts:#?}");
    }
}

#[test]
fn sm_100_follows_sm_90_and_sm_89_follows_sm_80() {
    assert!(folded(100).iter().any(|(_, s)| s.contains("LDC.64")));
    assert!(!folded(89).iter().any(|(_, s)| s.contains("LDC.64")));
}
