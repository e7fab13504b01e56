//! Call-graph behaviour written as Ori IR: limit propagation (sub_19CE590), the
//! convergent-boundary checks (7020 and the multiple-calls warning) and 7801.

use radbg::abi::report::declared_limit;
use radbg::abi::{check_convergent, check_reserved_smem, propagate_limits};
use radbg::ir::{Module, Sm, parse_str};

const GRAPH: &str = r#"
.target sm_52
.entry k {
  .maxnreg 40
BB0:
  CALL a
  CALL b
  EXIT
}
.func a {
BB0:
  CALL c
  RET
}
.func b {
  .maxnreg 32
  .abi {
    param 1x4
  }
BB0:
  CALL c
  RET
}
.func c {
  .maxnreg 50
BB0:
  RET
}
.func d {
  .maxnreg 20
BB0:
  RET
}
"#;

fn parse(text: &str) -> Module {
    parse_str(text).unwrap_or_else(|e| panic!("test module does not parse:\n{e}"))
}

/// (target, declared) -> effective limits
fn check_limits(sm: u32, expected: &[Option<u32>]) {
    let m = parse(GRAPH);
    let declared: Vec<Option<u32>> = (0..m.functions.len()).map(|i| declared_limit(&m, i)).collect();
    assert_eq!(declared, vec![Some(40), None, Some(32), Some(50), Some(20)]);
    assert_eq!(propagate_limits(&m, &Sm::new(sm), &declared), expected, "sm_{sm}");
}

#[test]
fn limits_flow_from_callers_to_callees_without_a_spec() {
    // Reverse post-order walk: k gives 40 to a; b keeps its own 32 (it has a spec)
    // and gives it to c; a is walked after b and gives c its 40 (last walked wins).
    // d is nobody's callee and has no spec: unconstrained.
    check_limits(52, &[Some(40), Some(40), Some(32), Some(40), None]);
    check_limits(61, &[Some(40), Some(40), Some(32), Some(40), None]);
    // Other generations: the propagator does not run.
    for sm in [35, 90, 100] {
        check_limits(sm, &[Some(40), None, Some(32), Some(50), Some(20)]);
    }
}

#[test]
fn limits_tolerate_short_declared_lists_and_recursion() {
    let m = parse(
        ".target sm_52\n.entry k {\n  .maxnreg 64\nBB0:\n  CALL f\n  EXIT\n}\n.func f {\nBB0:\n  CALL f\n  CALL k\n  RET\n}\n",
    );
    assert_eq!(propagate_limits(&m, &Sm::new(52), &[Some(64)]), vec![Some(64), Some(64)]);
    assert_eq!(propagate_limits(&m, &Sm::new(52), &[]), vec![None, None]);
}

fn convergent(text: &str) -> Vec<(bool, String)> {
    let m = parse(text);
    check_convergent(&m, 0).into_iter().map(|c| (c.passed, c.detail)).collect()
}

#[test]
fn convergent_regions() {
    let module = |body: &str| {
        format!(
            ".target sm_90\n.entry k {{\n  .reg .R %r<2>\nBB0:\n{body}  EXIT\n}}\n.func g {{\nBB0:\n  RET\n}}\n.func h {{\nBB0:\n  CONVALLOC\n  RET\n}}\n"
        )
    };
    // No annotated call: nothing to check.
    assert_eq!(convergent(&module("  CALL g\n")), vec![]);
    // Annotated, no marker before it in the block.
    assert_eq!(
        convergent(&module("  CALL.ALLOWCONVALLOC g\n  CONVALLOC\n")),
        vec![(false, "call at BB0:[0] to g has no CONVALLOC/WARPSYNC before it in BB0".to_string())]
    );
    // A callee that opens its own boundary is fine.
    assert_eq!(
        convergent(&module("  CALL.ALLOWCONVALLOC h\n")),
        vec![(true, "call at BB0:[0] to h: the callee opens its own convergent boundary".to_string())]
    );
    // Inside a region, alone; then a new marker opens a second region with two calls.
    assert_eq!(
        convergent(&module(
            "  WARPSYNC 0xffffffff\n  CALL.ALLOWCONVALLOC g\n  CONVALLOC\n  CALL g\n  CALL.ALLOWCONVALLOC g\n"
        )),
        vec![
            (true, "call at BB0:[1] to g lies in the convergent region opened at BB0:[0]".to_string()),
            (true, "call at BB0:[4] to g lies in the convergent region opened at BB0:[2]".to_string()),
            (true, "region from BB0:[0] holds 1 call(s): BB0:[1]".to_string()),
            (false, "region from BB0:[2] holds 2 call(s): BB0:[3], BB0:[4]".to_string()),
        ]
    );
    // A region ends with its block.
    let m = module("  CONVALLOC\n  BRA BB1\nBB1:\n  CALL.ALLOWCONVALLOC g\n");
    assert!(!convergent(&m)[0].0);
}

#[test]
fn reserved_smem() {
    let text = r#"
.target sm_90
.shared .align 4 __nv_reservedSMEM_x[4]
.entry k {
  .reg .R %r<2>
BB0:
  %r0 = MOV __nv_reservedSMEM_x
  %r1 = LDS [%r0 + __nv_reservedSMEM_x]
  EXIT
}
.func ok {
  .allow-reserved-smem
  .reg .R %r<1>
BB0:
  %r0 = LDS [__nv_reservedSMEM_x]
  RET
}
.func clean {
BB0:
  RET
}
"#;
    let m = parse(text);
    let got: Vec<(bool, String, String)> =
        (0..3).flat_map(|i| check_reserved_smem(&m, i)).map(|c| (c.passed, c.message, c.detail)).collect();
    assert_eq!(
        got,
        vec![
            (
                false,
                "Function 'k' uses reserved shared memory when not allowed.".to_string(),
                "reserved shared memory used at BB0:[0], BB0:[1] without .allow-reserved-smem".to_string()
            ),
            (
                true,
                "Function 'ok' uses reserved shared memory when not allowed.".to_string(),
                "reserved shared memory used at BB0:[0] (allowed by .allow-reserved-smem)".to_string()
            ),
            (
                true,
                "Function 'clean' uses reserved shared memory when not allowed.".to_string(),
                "no reserved shared-memory reference".to_string()
            ),
        ]
    );
    assert!(check_reserved_smem(&m, 99).is_empty());
}
