//! A by-value struct parameter read through its address (issue 23, ARCHITECTURE.md
//! "Fidelity", stop 32): NVRTC takes the parameter's address once (`mov.b64 %rd1,
//! k_param_0; add.s64 %rd2, %rd1, 32`) and loads each field through it (`ld.param.u64
//! %rd3, [%rd2+-24]`); ptxas 13.0.88 reads each field from the constant bank where it is
//! used, as for `ld.param [k_param_0+8]` (bart `num_gpu_conv` on sm_80: `I2F.U32.RP R0,
//! c[0x0][0x190]` for the field at offset 48). radbg's importer resolves the address
//! (`ir::ptx::paramptr`) so the load is the bank read `fold` puts into its uses; a
//! register defined twice, or by a guarded add, stays a register address. When ptxas
//! and nvdisasm are installed the test compiles the kernel and checks ptxas reads the
//! fields from the bank.

mod common;

use std::collections::BTreeSet;

/// Sums four 64-bit fields of a 64-byte struct parameter and stores the sum; `indirect`
/// loads three of them through the parameter's address. `extra` is pasted before the
/// loads.
fn kernel(sm: &str, indirect: bool, extra: &str) -> String {
    let loads = if indirect {
        "mov.b64 %rd1, k_param_0;\nadd.s64 %rd2, %rd1, 32;\n\
         ld.param.u64 %rd3, [%rd2+-24];\nld.param.u64 %rd4, [%rd2+8];\nld.param.u64 %rd5, [%rd2+16];\n"
    } else {
        "ld.param.u64 %rd3, [k_param_0+8];\nld.param.u64 %rd4, [k_param_0+40];\nld.param.u64 %rd5, [k_param_0+48];\n"
    };
    format!(
        ".version 9.0\n.target {sm}\n.address_size 64\n\
         .visible .entry k(.param .align 8 .b8 k_param_0[64], .param .u64 k_param_1)\n{{\n\
         .reg .pred %p<2>; .reg .b64 %rd<16>;\n{extra}{loads}\
         ld.param.u64 %rd6, [k_param_0+16];\nld.param.u64 %rd7, [k_param_1];\n\
         cvta.to.global.u64 %rd8, %rd7;\n\
         add.s64 %rd9, %rd3, %rd4;\nadd.s64 %rd10, %rd9, %rd5;\nxor.b64 %rd11, %rd10, %rd6;\n\
         st.global.u64 [%rd8], %rd11;\nret;\n}}\n"
    )
}

/// The kernel's instructions after import (and `fold` when asked), printed.
fn ir(text: &str, fold: bool) -> Vec<String> {
    let (mut m, _) = radbg::ir::ptx::import_str("k.ptx", text).expect("imports");
    if fold {
        radbg::prepass::apply(&mut m, &BTreeSet::new(), &["fold"]);
    }
    let f = &m.functions[0];
    f.blocks.iter().flat_map(|b| &b.insts).map(|i| radbg::ir::print::print_inst(f, i)).collect()
}

fn field_loads(ir: &[String]) -> Vec<String> {
    ir.iter().filter(|s| s.contains("%rd3 =") || s.contains("%rd4 =") || s.contains("%rd5 =")).cloned().collect()
}

#[test]
fn a_field_loaded_through_the_parameter_s_address_is_a_bank_read() {
    for sm in ["sm_80", "sm_90"] {
        let direct = field_loads(&ir(&kernel(sm, false, ""), false));
        let indirect = field_loads(&ir(&kernel(sm, true, ""), false));
        assert_eq!(indirect, direct, "{sm}");
        assert!(direct.iter().all(|s| s.contains("LDC.64 c[0x0]")), "{direct:?}");
        // After `fold` the fields are read where they are used, but for the one of
        // the add that already takes a bank operand (a SASS instruction takes one),
        // and nothing is left of the address arithmetic.
        let folded = ir(&kernel(sm, true, ""), true);
        assert_eq!(field_loads(&folded).len(), 1, "{sm}: {folded:#?}");
        assert!(
            !folded.iter().any(|s| s.contains("LDC.PARAM") || s.starts_with("%rd1 =") || s.starts_with("%rd2 =")),
            "{folded:#?}"
        );
        assert_eq!(folded, ir(&kernel(sm, false, ""), true), "{sm}");
    }
}

#[test]
fn an_address_register_defined_twice_or_under_a_guard_stays_an_address() {
    // A second definition of the base (any instruction naming it as destination).
    let twice = kernel("sm_80", true, "mov.b64 %rd2, 0;\n");
    assert!(ir(&twice, false).iter().any(|s| s.contains("LDC.PARAM")), "{:#?}", ir(&twice, false));
    let twice = kernel("sm_80", true, "")
        .replace("add.s64 %rd2, %rd1, 32;\n", "add.s64 %rd2, %rd1, 32;\nadd.s64 %rd2, %rd2, 8;\n");
    assert!(ir(&twice, false).iter().any(|s| s.contains("LDC.PARAM")));
    // A guarded add may not execute.
    let guarded = kernel("sm_80", true, "setp.eq.u64 %p1, %rd15, 0;\n")
        .replace("add.s64 %rd2, %rd1, 32;", "@%p1 add.s64 %rd2, %rd1, 32;");
    assert!(ir(&guarded, false).iter().any(|s| s.contains("LDC.PARAM")));
    // A nested block that declares registers: a name may mean two registers.
    let scoped = kernel("sm_80", true, "{\n.reg .b64 %t<2>;\nmov.b64 %t1, 0;\n}\n");
    assert!(ir(&scoped, false).iter().any(|s| s.contains("LDC.PARAM")), "{:#?}", ir(&scoped, false));
    // An address outside the parameter (here below it) is not one of its words.
    let outside = kernel("sm_80", true, "").replace("[%rd2+-24]", "[%rd2+-40]");
    let loads = field_loads(&ir(&outside, false));
    assert!(
        loads.iter().any(|s| s.contains("LDC.PARAM")) && loads.iter().filter(|s| s.contains("c[0x0]")).count() == 2,
        "{loads:#?}"
    );
    // An add of a register is not a constant offset.
    let varying = kernel("sm_80", true, "").replace("add.s64 %rd2, %rd1, 32;", "add.s64 %rd2, %rd1, %rd15;");
    assert!(ir(&varying, false).iter().any(|s| s.contains("LDC.PARAM")));
}

#[test]
fn ptxas_reads_the_fields_from_the_bank() {
    let Some(common::ptxas::SassTools { ptxas, nvdisasm, dir }) =
        common::ptxas::sass_tools("param-struct", "the bank reads")
    else {
        return;
    };
    let mut wrong = Vec::new();
    for (sm, base) in [("sm_80", 0x160u32), ("sm_90", 0x210)] {
        let sass = common::ptxas::sass_for(&ptxas, &nvdisasm, &dir, &format!("k_{sm}"), &kernel(sm, true, ""), sm);
        // The fields at offsets 8, 40 and 48, whole or by halves.
        for off in [8u32, 40, 48] {
            let word = format!("c[0x0][{:#x}]", base + off);
            if !sass.contains(&word) {
                wrong.push(format!("{sm}: no read of {word}:\n{sass}"));
            }
        }
        if sass.contains("LDL") || sass.contains("LD.E") {
            wrong.push(format!("{sm}: a field loaded from memory:\n{sass}"));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(wrong.is_empty(), "{wrong:#?}");
}
