//! The `schedule` prepass (issue 13, ARCHITECTURE.md "Fidelity", step 6): a load moves up
//! in its block to just after the last instruction it depends on, while peak pressure
//! stays within ptxas's register target. One `check(body, budget, expected)` per case:
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
fn a_load_is_issued_right_after_its_address() {
    check(LATE_LOAD, None, &["LDC.64", "LDG.E.U32", "S2R", "IADD3.S32", "IADD3.S32", "IADD3.S32", "STG.E.U32", "EXIT"]);
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
