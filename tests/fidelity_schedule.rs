//! The `schedule` prepass (issue 13, ARCHITECTURE.md "Fidelity", steps 6 and 7): a
//! cycle-driven list schedule with ptxas's measured latencies (critical path first),
//! while peak pressure stays within ptxas's register target. One `check(body, budget, expected)` per case:
//! the PTX body is imported, `schedule` applied, and the instruction sequence compared.

use std::collections::BTreeSet;

fn ptx(body: &str) -> String {
    format!(
        ".version 8.0\n.target sm_80\n.address_size 64\n\
         .visible .entry k(.param .u64 p) {{\n\
         .reg .b32 %r<40>;\n.reg .b64 %rd<8>;\n\
         ld.param.u64 %rd1, [p];\nmov.u32 %r2, %tid.x;\n\
         {body}\nret;\n}}\n"
    )
}

/// The mnemonics (with modifiers) of the function's instructions, in layout order.
fn ops(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        let Some((_, rest)) = line.split_once("] ") else { continue };
        let words: Vec<&str> = rest.split_whitespace().filter(|w| !w.starts_with('@')).collect();
        let at = words.iter().position(|w| *w == "=").map_or(0, |i| i + 1);
        if let Some(w) = words.get(at) {
            out.push(w.to_string());
        }
    }
    out
}

fn check(body: &str, budget: Option<u32>, expected: &[&str]) {
    let (mut m, _) = radbg::ir::ptx::import_str("t.ptx", &ptx(body)).expect("imports");
    m.options.maxrregcount = budget;
    radbg::prepass::apply(&mut m, &BTreeSet::new(), &["schedule"]);
    let text = radbg::ir::print::print_function(&m.functions[0]);
    assert_eq!(ops(&text), expected, "in\n{text}");
}

const LATE_LOAD: &str = "add.s32 %r3, %r2, 1;\nadd.s32 %r4, %r3, 1;\n\
                         ld.global.u32 %r5, [%rd1];\nadd.s32 %r6, %r4, %r5;\nst.global.u32 [%rd1], %r6;";

#[test]
fn a_load_is_issued_as_soon_as_its_address_arrives() {
    // LDC takes 14 cycles, S2R 10: the S2R chain goes first, the load the cycle its
    // address is there (before the chain's second add, which waits for the first).
    check(LATE_LOAD, None, &["LDC.64", "S2R", "IADD3.S32", "LDG.E.U32", "IADD3.S32", "IADD3.S32", "STG.E.U32", "EXIT"]);
}

#[test]
fn independent_chains_are_interleaved() {
    // S2R's chain is the longest path (10 + 4 × 4 cycles), so it leads; the two chains
    // of 4-cycle ops alternate.
    let body = "add.s32 %r3, %r2, 1;\nadd.s32 %r4, %r3, 1;\nadd.s32 %r5, %r4, 1;\n\
                mul.lo.s32 %r6, %r2, 3;\nmul.lo.s32 %r7, %r6, 3;\nmul.lo.s32 %r8, %r7, 3;\n\
                add.s32 %r9, %r5, %r8;\nst.global.u32 [%rd1], %r9;";
    check(
        body,
        None,
        &[
            "S2R",
            "LDC.64",
            "IADD3.S32",
            "IMAD.MUL.LO.S32",
            "IADD3.S32",
            "IMAD.MUL.LO.S32",
            "IADD3.S32",
            "IMAD.MUL.LO.S32",
            "IADD3.S32",
            "STG.E.U32",
            "EXIT",
        ],
    );
}

#[test]
fn a_vector_component_is_read_out_as_soon_as_the_load_arrives() {
    // The component copies (the importer's lowering of the vector load) go the cycle the
    // load's 55 cycles are over, before the longer-waiting adds that read them.
    let body = "ld.global.v2.u32 {%r3, %r4}, [%rd1];\nadd.s32 %r5, %r2, 1;\nadd.s32 %r6, %r5, 1;\n\
                add.s32 %r7, %r6, %r3;\nadd.s32 %r8, %r7, %r4;\nst.global.u32 [%rd1], %r8;";
    check(
        body,
        None,
        &[
            "LDC.64",
            "S2R",
            "IADD3.S32",
            "LDG.E.V2.U32",
            "IADD3.S32",
            "MOV",
            "MOV",
            "IADD3.S32",
            "IADD3.S32",
            "STG.E.U32",
            "EXIT",
        ],
    );
}

#[test]
fn a_load_stays_after_a_store() {
    let body = "add.s32 %r3, %r2, 1;\nst.global.u32 [%rd1], %r3;\n\
                ld.global.u32 %r5, [%rd1+4];\nadd.s32 %r6, %r3, %r5;\nst.global.u32 [%rd1], %r6;";
    check(body, None, &["LDC.64", "S2R", "IADD3.S32", "STG.E.U32", "LDG.E.U32", "IADD3.S32", "STG.E.U32", "EXIT"]);
}

#[test]
fn nothing_moves_when_the_target_is_reached() {
    // A budget of 6: 3 for the report, and the PTX order already needs the rest.
    check(
        LATE_LOAD,
        Some(6),
        &["LDC.64", "S2R", "IADD3.S32", "IADD3.S32", "LDG.E.U32", "IADD3.S32", "STG.E.U32", "EXIT"],
    );
}
