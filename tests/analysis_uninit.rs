//! Uninitialized-register detector tests (seed 004, "Uninitialized Register Detector").

mod analysis_builder;

use analysis_builder::{func, v};
use radbg::analysis::{cfg, liveness, uninit};
use radbg::ir::Function;

/// Runs the detector with `defined` defined at entry and `exit_live` live at exit;
/// returns the message and detail lines, or "none".
fn run(f: &Function, defined: &[&str], exit_live: &[&str]) -> String {
    let c = cfg::build(f, 8.0);
    let ex: Vec<_> = exit_live.iter().map(|n| v(f, n)).collect();
    let l = liveness::compute(f, &c, &ex);
    let d: Vec<_> = defined.iter().map(|n| v(f, n)).collect();
    match uninit::find(f, &c, &l, &d) {
        None => "none".to_string(),
        Some(w) => {
            assert_eq!(w.function, f.name);
            let mut s = w.message.clone();
            for line in w.details(f) {
                s += &format!("\n{line}");
            }
            s
        }
    }
}

fn check(src: &str, defined: &[&str], exit_live: &[&str], expected: &str) {
    let f = func(src);
    let got = run(&f, defined, exit_live);
    let want: Vec<&str> = expected.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    assert_eq!(got, want.join("\n"));
}

#[test]
fn reports_registers_read_before_any_definition() {
    check(
        "BB0:
           %r0 = MOV 1
           @%p0 BRA BB2
         BB1:
           %r1 = IADD3 %r0, %r3, RZ
         BB2:
           STG.E [%rd0], %r3
           EXIT",
        &[],
        &[],
        "Found 3 potentially uninitialized register(s) in function test
         %p0 first read at [1] (BB0+1)
         %r3 first read at [2] (BB1+0)
         %rd0 first read at [3] (BB2+0)",
    );
}

#[test]
fn defined_at_entry_and_the_defined_flag_silence_it() {
    check("BB0:\n STG.E [%rd0], %r3\n EXIT", &["%rd0", "%r3"], &[], "none");
    let mut f = func("BB0:\n STG.E [%rd0], %r3\n EXIT");
    let r3 = v(&f, "%r3");
    f.vregs[r3.index()].flags |= uninit::DEFINED_FLAG;
    assert_eq!(
        run(&f, &[], &[]),
        "Found 1 potentially uninitialized register(s) in function test\n%rd0 first read at [0] (BB0+0)"
    );
}

#[test]
fn a_pair_built_half_by_half_is_initialized() {
    check(
        "BB0:
           %rd0.lo = MOV 1
           %rd0.hi = MOV 2
           STG.E [%rd0], %rd0.lo
           EXIT",
        &[],
        &[],
        "none",
    );
    check(
        "BB0:
           %rd0.lo = MOV 1
           STG.E [%r1], %rd0.lo
           STG.E [%r1], %rd0
           EXIT",
        &["%r1"],
        &[],
        "Found 1 potentially uninitialized register(s) in function test
         %rd0 first read at [2] (BB0+2)",
    );
}

#[test]
fn a_predicated_definition_may_leave_it_undefined() {
    check(
        "BB0:
           %p0 = ISETP.LT.AND %r1, 1, PT
           @%p0 %r0 = MOV 1
           STG.E [%r1], %r0
           EXIT",
        &["%r1"],
        &[],
        "Found 1 potentially uninitialized register(s) in function test
         %r0 first read at [2] (BB0+2)",
    );
}

#[test]
fn a_return_value_missing_on_one_path_is_read_at_the_return() {
    check(
        "BB0:
           @%p0 BRA BB2
         BB1:
           %r0 = MOV 1
         BB2:
           RET",
        &["%p0"],
        &["%r0"],
        "Found 1 potentially uninitialized register(s) in function test
         %r0 first read at [2] (BB2+0)",
    );
}

#[test]
fn loops_do_not_hide_a_first_iteration_read() {
    check(
        "BB0:
           %r1 = MOV 0
         BB1:
           %r1 = IADD3 %r1, %r0, RZ
           %r0 = MOV 5
           %p0 = ISETP.LT.AND %r1, 9, PT
           @%p0 BRA BB1
         BB2:
           EXIT",
        &[],
        &[],
        "Found 1 potentially uninitialized register(s) in function test
         %r0 first read at [1] (BB1+0)",
    );
}
