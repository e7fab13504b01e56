//! An explicit register budget is one the pre-allocation stages fill (issue 23,
//! ARCHITECTURE.md, rule 10): `.maxntid` with `.minnctapersm`, and `.maxnreg`, act as
//! `--maxrregcount` of the budget they set; `.maxntid` alone only caps. Hand-made kernel:
//! a loop of 32 independent global loads over eight accumulators. ptxas 13.0.88 (sm_80)
//! on it: 31 registers with no directive and with `.maxntid 256` alone; 48 with
//! `.maxntid 256` + `.minnctapersm 1` or `4`, with `.maxnreg 255`, and at
//! `--maxrregcount 255` without directives — it issues the loads early when a budget is
//! given, and the directives are such a budget.

use radbg::fidelity::measure::{Settings, run_file};

fn kernel(directives: &str) -> String {
    let mut s = String::from(
        ".version 8.0\n.target sm_80\n.address_size 64\n\
         .visible .entry k(.param .u64 p, .param .u32 n)\n",
    );
    s.push_str(directives);
    s.push_str(
        "{\n.reg .b32 %r<100>;\n.reg .f32 %f<200>;\n.reg .b64 %rd<100>;\n.reg .pred %p<4>;\n\
         ld.param.u64 %rd1, [p];\nld.param.u32 %r1, [n];\nmov.u32 %r2, %tid.x;\n\
         mul.wide.u32 %rd2, %r2, 4;\nadd.s64 %rd3, %rd1, %rd2;\nmov.u32 %r3, 0;\n",
    );
    for a in 0..8 {
        s.push_str(&format!("mov.f32 %f{}, 0f00000000;\n", 100 + a));
    }
    s.push_str("$L_loop:\n");
    for i in 0..32 {
        let (v, acc) = (10 + i, 100 + i % 8);
        s.push_str(&format!("ld.global.f32 %f{v}, [%rd3+{}];\n", i * 512));
        s.push_str(&format!("fma.rn.f32 %f{acc}, %f{v}, %f{v}, %f{acc};\n"));
    }
    s.push_str("add.s64 %rd3, %rd3, 16384;\nadd.s32 %r3, %r3, 1;\nsetp.lt.u32 %p1, %r3, %r1;\n@%p1 bra $L_loop;\n");
    for a in 0..8 {
        s.push_str(&format!("st.global.f32 [%rd1+{}], %f{};\n", 4 * a, 100 + a));
    }
    s.push_str("ret;\n}\n");
    s
}

fn registers(directives: &str, maxrregcount: Option<u32>) -> u32 {
    let run = run_file("k.ptx", &kernel(directives), "sm_80", maxrregcount, &Settings::default()).expect("runs");
    let f = &run.funcs[0];
    assert!(f.faults.is_empty(), "{directives}: {:?}", f.faults);
    f.registers
}

#[test]
fn min_ctas_and_maxnreg_are_budgets_the_stages_fill() {
    let default = registers("", None);
    let budget = registers("", Some(255));
    // ptxas: 31 at the default, 48 under a budget of 255.
    assert!(budget > default, "the stages fill a budget: default {default}, --maxrregcount 255 {budget}");
    for d in [".maxntid 256, 1, 1\n.minnctapersm 1\n", ".maxnreg 255\n"] {
        assert_eq!(registers(d, None), budget, "{d}");
    }
    // With `.minnctapersm 4` the budget is 64: the loads still fit (ptxas 48).
    assert_eq!(registers(".maxntid 256, 1, 1\n.minnctapersm 4\n", None), budget);
}

#[test]
fn maxntid_alone_only_caps() {
    // ptxas: 31, as without the directive.
    assert_eq!(registers(".maxntid 256, 1, 1\n", None), registers("", None));
    // And a launch bound replaces --maxrregcount (rule 2): no fill either.
    assert_eq!(registers(".maxntid 256, 1, 1\n", Some(255)), registers("", None));
}

#[test]
fn why_names_the_directive_whose_budget_the_schedule_fills() {
    let dir = std::env::temp_dir().join(format!("radbg-min-ctas-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let why = |directives: &str| {
        let file = dir.join("k.ptx");
        std::fs::write(&file, kernel(directives)).expect("writes");
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_radbg")).arg("why").arg(&file).output().expect("runs");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        text.lines().find(|l| l.trim_start().starts_with("schedule")).unwrap_or_default().to_string()
    };
    let filled = why(".maxntid 256, 1, 1\n.minnctapersm 1\n");
    assert!(filled.contains("up to the budget 255 that .minnctapersm 1 at 256 threads per block sets"), "{filled}");
    assert!(why(".maxnreg 255\n").contains("that .maxnreg 255 sets"));
    let capped = why(".maxntid 256, 1, 1\n");
    assert!(capped.contains("up to the target 32") && !capped.contains("budget"), "{capped}");
    let _ = std::fs::remove_dir_all(&dir);
}
