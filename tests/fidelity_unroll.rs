//! The `unroll` prepass (issue 23, ARCHITECTURE.md "Fidelity", rule 3): ptxas 13.0.88
//! unrolls a small counted loop four times unless it is marked `nounroll`, its body is
//! long, its test is on a widened counter, its step is not a constant (a parameter, a
//! grid stride), or its trip count depends on the thread and its body loads from global
//! memory. Each case is a hand-made loop with the number of
//! copies of its body ptxas makes (its `STG`s in nvdisasm output of the cubin: 7 = four
//! copies and a two- and a one-copy remainder; 8 when the first copy is peeled too) and
//! radbg's (the remainder is not modelled). When ptxas and nvdisasm are installed the test runs them on every case and
//! checks ptxas still does what is recorded.

mod common;

use std::collections::BTreeSet;

/// A loop from `start` to `bound` by 1 with one load (`load`: `global` or `shared`),
/// `fmas` dependent FMAs and one store; `extra` goes at the top of the loop header.
fn kernel(start: &str, bound: &str, load: &str, fmas: usize, extra: &str, test: &str) -> String {
    let (addr, ld) = if load == "global" {
        ("add.s64 %rd5, %rd1, %rd4;", "ld.global.f32 %f1, [%rd5];")
    } else {
        ("cvt.u32.u64 %r8, %rd4;", "ld.shared.f32 %f1, [%r8];")
    };
    let chain: String = (0..fmas).map(|_| "fma.rn.f32 %f2, %f2, %f1, 0f3F800000;\n").collect();
    format!(
        ".version 8.8\n.target sm_80\n.address_size 64\n\
         .visible .entry k(.param .u64 a, .param .u64 b, .param .u32 n)\n{{\n\
         .reg .pred %p<4>; .reg .b32 %r<12>; .reg .f32 %f<4>; .reg .b64 %rd<12>;\n\
         ld.param.u64 %rd7, [a]; ld.param.u64 %rd8, [b]; ld.param.u32 %r9, [n];\n\
         cvta.to.global.u64 %rd1, %rd7; cvta.to.global.u64 %rd2, %rd8;\n\
         mov.u32 %r5, {start};\nmov.u32 %r3, {bound};\n\
         setp.ge.u32 %p3, %r5, %r3; @%p3 bra $END;\n\
         $LOOP:\n{extra}\n\
         mul.wide.u32 %rd4, %r5, 4;\n{addr}\n{ld}\n\
         mov.f32 %f2, %f1;\n{chain}\
         add.s64 %rd6, %rd2, %rd4;\nst.global.f32 [%rd6], %f2;\n\
         add.s32 %r5, %r5, 1;\n{test}\n@%p1 bra $LOOP;\n\
         $END:\nret;\n}}\n"
    )
}

const LT: &str = "setp.lt.u32 %p1, %r5, %r3;";
const WIDE: &str = "cvt.u64.u32 %rd9, %r5; cvt.u64.u32 %rd10, %r3; setp.lt.u64 %p1, %rd9, %rd10;";

/// The loop's step in [`kernel`].
const STEP: &str = "add.s32 %r5, %r5, 1;";

/// `text`'s loop stepping by `%nctaid.x * %ntid.x`, computed before the loop (the
/// grid-stride loop of dlib's `_set_tensor`, dfdx's `fill_with_*`).
fn grid_stride(text: String) -> String {
    text.replace("$LOOP:", "mov.u32 %r10, %nctaid.x;\nmov.u32 %r11, %ntid.x;\nmul.lo.s32 %r10, %r10, %r11;\n$LOOP:")
        .replace(STEP, "add.s32 %r5, %r5, %r10;")
}

/// (what, kernel, ptxas's STG count, radbg's copies of the body).
fn cases() -> Vec<(&'static str, String, usize, usize)> {
    vec![
        ("counted from 0 to a parameter", kernel("0", "%r9", "global", 2, "", LT), 8, 4),
        ("from a block index", kernel("%ctaid.x", "%r9", "global", 2, "", LT), 8, 4),
        // The loop's `mov.f32` is not counted: 49 instructions and the copy.
        ("41 FMAs (49 instructions and a copy)", kernel("0", "%r9", "global", 41, "", LT), 8, 4),
        ("42 FMAs (50 instructions and a copy)", kernel("0", "%r9", "global", 42, "", LT), 1, 1),
        ("nounroll", kernel("0", "%r9", "global", 2, ".pragma \"nounroll\";", LT), 1, 1),
        ("from %tid.x, a global load", kernel("%tid.x", "%r9", "global", 2, "", LT), 1, 1),
        ("to %tid.x, a global load", kernel("0", "%tid.x", "global", 2, "", LT), 1, 1),
        ("to %tid.x, a shared load", kernel("0", "%tid.x", "shared", 2, "", LT), 8, 4),
        ("a widened counter", kernel("0", "%r9", "shared", 2, "", WIDE), 1, 1),
        ("by 16", kernel("0", "%r9", "global", 2, "", LT).replace(STEP, "add.s32 %r5, %r5, 16;"), 8, 4),
        ("by a parameter", kernel("0", "%r9", "global", 2, "", LT).replace(STEP, "add.s32 %r5, %r5, %r9;"), 1, 1),
        ("by a grid stride", grid_stride(kernel("0", "%r9", "shared", 2, "", LT)), 1, 1),
    ]
}

/// The copies of the loop body radbg makes: its stores after the `unroll` stage.
fn copies(text: &str) -> usize {
    let (mut m, _) = radbg::ir::ptx::import_str("k.ptx", text).expect("imports");
    radbg::prepass::apply(&mut m, &BTreeSet::new(), &["ifconvert", "unroll"]);
    m.functions[0].blocks.iter().flat_map(|b| &b.insts).filter(|i| i.op.mnemonic() == "STG").count()
}

#[test]
fn radbg_unrolls_what_ptxas_unrolls() {
    for (what, text, _, want) in cases() {
        assert_eq!(copies(&text), want, "{what}");
    }
}

#[test]
fn unrolling_raises_the_count_toward_ptxas() {
    use radbg::fidelity::measure::{Settings, run_file};
    let text = kernel("0", "%r9", "global", 2, "", LT);
    let count = |disabled: &[&str]| {
        let settings = Settings {
            disabled_passes: disabled.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>(),
            ..Default::default()
        };
        let run = run_file("k.ptx", &text, "sm_80", None, &settings).expect("runs");
        assert!(run.funcs[0].faults.is_empty(), "{:?}", run.funcs[0].faults);
        run.funcs[0].registers
    };
    // ptxas: 20 registers unrolled, 10 with `nounroll`.
    let (off, on) = (count(&["unroll"]), count(&[]));
    assert!(off <= 10 && on > off, "without the stage {off}, with it {on}");
}

#[test]
fn the_recorded_ptxas_copies_are_ptxas_s() {
    let Some(common::ptxas::SassTools { ptxas, nvdisasm, dir }) =
        common::ptxas::sass_tools("unroll", "the recorded copies")
    else {
        return;
    };
    let mut wrong = Vec::new();
    for (i, (what, text, want, _)) in cases().into_iter().enumerate() {
        let stg = common::ptxas::sass(&ptxas, &nvdisasm, &dir, &format!("k{i}"), &text).matches("STG").count();
        if stg != want {
            wrong.push(format!("{what}: ptxas {stg} STG, recorded {want}"));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(wrong.is_empty(), "{wrong:#?}");
}
