//! The `expand` prepass (issue 13, ARCHITECTURE.md "Fidelity", step 5): PTX integer
//! divide/remainder and 64-bit multiply become the SASS sequences ptxas 13.0.88 emits,
//! with their temporaries. One `check(body, expected)` per case: the PTX body is
//! imported, `expand` applied, and the count of each listed instruction and of new
//! temporaries (`%xpN`, in 32-bit registers) compared.

use std::collections::BTreeSet;

fn ptx(body: &str) -> String {
    format!(
        ".version 8.0\n.target sm_80\n.address_size 64\n\
         .visible .entry k(.param .u64 p, .param .u32 n) {{\n\
         .reg .b32 %r<8>;\n.reg .b64 %rd<8>;\n\
         ld.param.u64 %rd1, [p];\nld.param.u32 %r1, [n];\nmov.u32 %r2, %tid.x;\n\
         {body}\nret;\n}}\n"
    )
}

/// `expected`: (instruction text as printed, e.g. "I2F.RP", how many), and the number
/// of 32-bit temporary registers the expansion adds.
fn check(body: &str, expected: &[(&str, usize)], temps: usize) {
    let (mut m, _) = radbg::ir::ptx::import_str("t.ptx", &ptx(body)).expect("imports");
    radbg::prepass::apply(&mut m, &BTreeSet::new(), &["expand"]);
    let f = &m.functions[0];
    let text = radbg::ir::print::print_function(f);
    for (op, n) in expected {
        let got = text.lines().filter(|l| l.split_whitespace().any(|w| w == *op)).count();
        assert_eq!(got, *n, "{op} in\n{text}");
    }
    let made: usize = f.vregs.iter().filter(|v| v.name.starts_with("%xp")).map(|v| v.width as usize).sum();
    assert_eq!(made, temps, "temporaries in\n{text}");
}

#[test]
fn signed_remainders_share_one_reciprocal_per_divisor() {
    // |d|, reciprocal and the Newton-step word once; |x| and q per remainder.
    let body = "rem.s32 %r3, %r2, %r1;\nrem.s32 %r4, %r3, %r1;\nst.global.u32 [%rd1], %r4;";
    check(body, &[("I2F.RP", 1), ("MUFU.RCP", 1), ("IABS", 3), ("IMAD.HI.U32", 3)], 3 + 2 * 2);
}

#[test]
fn unsigned_division_keeps_the_remainder_as_a_third_temporary() {
    let body = "div.u32 %r3, %r2, %r1;\nst.global.u32 [%rd1], %r3;";
    check(body, &[("I2F.RP", 1), ("IABS", 0), ("IMAD.HI.U32", 2)], 2 + 2);
}

#[test]
fn division_by_a_constant_is_a_magic_multiply() {
    let body = "div.u32 %r3, %r2, 7;\nst.global.u32 [%rd1], %r3;";
    check(body, &[("I2F.RP", 0), ("IMAD.HI.U32", 1), ("SHF", 1)], 1);
}

#[test]
fn mul_lo_64_takes_one_word() {
    let body = "cvt.u64.u32 %rd2, %r2;\nmul.lo.s64 %rd3, %rd2, %rd2;\nst.global.u64 [%rd1], %rd3;";
    check(body, &[("IMAD.WIDE.U32", 1), ("IADD3", 1)], 1);
}

#[test]
fn mul_hi_64_takes_two_pairs_and_a_word() {
    let body = "cvt.u64.u32 %rd2, %r2;\nmul.hi.u64 %rd3, %rd2, %rd1;\nst.global.u64 [%rd1], %rd3;";
    check(body, &[("IMAD.WIDE.U32", 3), ("IMAD.WIDE.U32.X", 1)], 5);
}

#[test]
fn other_multiplies_are_left_alone() {
    let body = "mul.lo.s32 %r3, %r2, %r1;\nmul.wide.u32 %rd2, %r2, %r1;\nst.global.u64 [%rd1], %rd2;";
    check(body, &[("I2F.RP", 0), ("IMAD.WIDE.U32", 0)], 0);
}
