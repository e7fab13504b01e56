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

/// The kernels' entry: two pointers `a`, `b` (as `%rd1`, `%rd2`) and a count `n` (`%r9`),
/// with `r` 32-bit and `f` float registers declared.
fn entry(r: usize, f: usize) -> String {
    format!(
        ".version 8.8\n.target sm_80\n.address_size 64\n\
         .visible .entry k(.param .u64 a, .param .u64 b, .param .u32 n)\n{{\n\
         .reg .pred %p<4>; .reg .b32 %r<{r}>; .reg .f32 %f<{f}>; .reg .b64 %rd<12>;\n\
         ld.param.u64 %rd7, [a]; ld.param.u64 %rd8, [b]; ld.param.u32 %r9, [n];\n\
         cvta.to.global.u64 %rd1, %rd7; cvta.to.global.u64 %rd2, %rd8;\n"
    )
}

/// A loop from `start` to `bound` by 1 with one load (`load`: `global` or `shared`),
/// `fmas` dependent FMAs and one store; `extra` goes at the top of the loop header.
fn kernel(start: &str, bound: &str, load: &str, fmas: usize, extra: &str, test: &str) -> String {
    let (addr, ld) = if load == "global" {
        ("add.s64 %rd5, %rd1, %rd4;", "ld.global.f32 %f1, [%rd5];")
    } else {
        ("cvt.u32.u64 %r8, %rd4;", "ld.shared.f32 %f1, [%r8];")
    };
    let chain: String = (0..fmas).map(|_| "fma.rn.f32 %f2, %f2, %f1, 0f3F800000;\n").collect();
    let head = entry(12, 4);
    format!(
        "{head}mov.u32 %r5, {start};\nmov.u32 %r3, {bound};\n\
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

/// Runs ptxas and nvdisasm (when installed) on each `(what, text)` and asserts `judge`
/// (given the case's index, the kernel's text and its SASS) finds nothing wrong with any; `tag` names the
/// temporary directory, `what` what goes unmeasured without the tools.
fn recheck(tag: &str, what: &str, cases: Vec<(&str, String)>, judge: impl Fn(usize, &str, &str) -> Option<String>) {
    let Some(common::ptxas::SassTools { ptxas, nvdisasm, dir }) = common::ptxas::sass_tools(tag, what) else {
        return;
    };
    let mut wrong = Vec::new();
    for (i, (what, text)) in cases.into_iter().enumerate() {
        let sass = common::ptxas::sass(&ptxas, &nvdisasm, &dir, &format!("k{i}"), &text);
        if let Some(w) = judge(i, &text, &sass) {
            wrong.push(format!("{what}: {w}"));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(wrong.is_empty(), "{wrong:#?}");
}

#[test]
fn the_recorded_ptxas_copies_are_ptxas_s() {
    let recorded: Vec<usize> = cases().iter().map(|c| c.2).collect();
    let named = cases().into_iter().map(|(what, text, _, _)| (what, text)).collect();
    recheck("unroll", "the recorded copies", named, |k, _, sass| {
        let (stg, want) = (sass.matches("STG").count(), recorded[k]);
        (stg != want).then(|| format!("ptxas {stg} STG, recorded {want}"))
    });
}

/// A dot-product loop from `start` by 256 (stop 38, rule 18): `pairs` pairs of loads
/// (`ld.global.nc`, `.v2` when `wide`) from two arrays, each pair multiplied and added
/// (`f32` FMA, or `halves` packed-half operations per pair instead), the sum stored after
/// the loop — nothing stored in it.
fn dot(start: &str, pairs: usize, wide: bool, halves: usize) -> String {
    let mut body = String::new();
    for j in 0..pairs {
        let (x, y) = (10 + 4 * j, 12 + 4 * j);
        let off = 2048 * j;
        if wide {
            body += &format!("ld.global.nc.v2.f32 {{%f{x}, %f{}}}, [%rd5+{off}];\n", x + 1);
            body += &format!("ld.global.nc.v2.f32 {{%f{y}, %f{}}}, [%rd6+{off}];\n", y + 1);
            body += &format!("fma.rn.f32 %f3, %f{x}, %f{y}, %f3;\nfma.rn.f32 %f3, %f{}, %f{}, %f3;\n", x + 1, y + 1);
        } else if halves > 0 {
            body += &format!("ld.global.nc.u32 %r{x}, [%rd5+{off}];\nld.global.nc.u32 %r{y}, [%rd6+{off}];\n");
            body += &format!("mul.f16x2 %r{}, %r{x}, %r{y};\n", x + 1);
            body += &(1..halves).map(|_| format!("add.f16x2 %r8, %r8, %r{};\n", x + 1)).collect::<String>();
        } else {
            body += &format!("ld.global.nc.f32 %f{x}, [%rd5+{off}];\nld.global.nc.f32 %f{y}, [%rd6+{off}];\n");
            body += &format!("fma.rn.f32 %f3, %f{x}, %f{y}, %f3;\n");
        }
    }
    let step = 256 * pairs;
    let head = entry(80, 80);
    format!(
        "{head}mov.u32 %r5, {start};\nmov.f32 %f3, 0f00000000;\nmov.b32 %r8, 0;\n\
         setp.ge.u32 %p3, %r5, %r9; @%p3 bra $END;\n\
         $LOOP:\nmul.wide.u32 %rd4, %r5, 8;\nadd.s64 %rd5, %rd1, %rd4;\nadd.s64 %rd6, %rd2, %rd4;\n\
         {body}add.s32 %r5, %r5, {step};\nsetp.lt.u32 %p1, %r5, %r9;\n@%p1 bra $LOOP;\n\
         $END:\nmul.wide.u32 %rd4, %r9, 4;\nadd.s64 %rd6, %rd2, %rd4;\n\
         st.global.f32 [%rd6], %f3;\nst.global.u32 [%rd6+4], %r8;\nret;\n}}\n"
    )
}

/// (what, kernel, whether ptxas unrolls it: more `LDG`s in its SASS than in the PTX).
fn dot_cases() -> Vec<(&'static str, String, bool)> {
    vec![
        ("from %tid.x, loads only", dot("%tid.x", 1, false, 0), true),
        ("from 0, loads only", dot("0", 1, false, 0), true),
        ("fourteen v2 loads (28 words)", dot("%tid.x", 7, true, 0), true),
        ("sixteen v2 loads (32 words)", dot("%tid.x", 8, true, 0), false),
        ("sixteen v2 loads from 0", dot("0", 8, true, 0), false),
        ("sixteen scalar loads", dot("%tid.x", 8, false, 0), true),
        // Eight other instructions; the packed-half ones count twice: 8 + 2·20 = 48.
        ("20 f16x2 operations", dot("%tid.x", 1, false, 20), true),
        ("21 f16x2 operations", dot("%tid.x", 1, false, 21), false),
    ]
}

/// Whether radbg's `unroll` stage copies the loop of `text`.
fn unrolled(text: &str) -> bool {
    let (mut m, _) = radbg::ir::ptx::import_str("k.ptx", text).expect("imports");
    let loads = |m: &radbg::ir::Module| {
        m.functions[0].blocks.iter().flat_map(|b| &b.insts).filter(|i| i.op.mnemonic() == "LDG").count()
    };
    let before = loads(&m);
    radbg::prepass::apply(&mut m, &BTreeSet::new(), &["ifconvert", "unroll"]);
    loads(&m) > before
}

#[test]
fn radbg_unrolls_the_dot_products_ptxas_unrolls() {
    let wrong: Vec<String> = dot_cases()
        .into_iter()
        .filter(|(_, text, want)| unrolled(text) != *want)
        .map(|(what, _, want)| format!("{what}: ptxas {}", if want { "unrolls" } else { "keeps one copy" }))
        .collect();
    assert!(wrong.is_empty(), "{wrong:#?}");
}

#[test]
fn the_recorded_dot_product_unrolling_is_ptxas_s() {
    let recorded: Vec<bool> = dot_cases().iter().map(|c| c.2).collect();
    let named = dot_cases().into_iter().map(|(what, text, _)| (what, text)).collect();
    recheck("unroll-dot", "the recorded dot-product unrolling", named, |k, text, sass| {
        let (loads, ldg, want) = (text.matches("ld.global").count(), sass.matches("LDG").count(), recorded[k]);
        ((ldg > loads) != want).then(|| format!("ptxas {ldg} LDG for {loads} loads, recorded unrolled = {want}"))
    });
}
