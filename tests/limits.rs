//! Hostile inputs: absurd sizes, huge lines, NUL bytes, deep nesting, floods of
//! errors. Each must give a clear error naming the limit (or parse), never panic or
//! hang. Table-driven: (what, input, part of the first error; "" = no error).

use radbg::ir::diag::{Diagnostic, Severity};
use radbg::ir::parse::{limits, parse_module};
use radbg::ir::span::SourceFile;

fn kernel(header: &str, body: &str) -> String {
    format!(".target sm_90\n.entry k {{\n  .reg .R %r<4>\n{header}\nBB0:\n{body}\n  EXIT\n}}\n")
}

fn first_error(text: &str) -> (Option<Diagnostic>, usize) {
    let file = SourceFile::new("limits.ori", text);
    let (_, _, diags) = parse_module(&file);
    // Rendering must cope too (10 MB lines are windowed).
    for d in diags.iter().take(5) {
        let r = d.render(&file);
        assert!(r.len() < 2000, "rendered diagnostic too long: {}...", &r[..r.len().min(600)]);
    }
    (diags.iter().find(|d| d.is_error()).cloned(), diags.len())
}

fn check(what: &str, text: &str, expected: &str) {
    let (e, _) = first_error(text);
    match (e, expected) {
        (None, "") => {}
        (Some(d), "") => panic!("{what}: unexpected error {}", d.message),
        (None, _) => panic!("{what}: expected an error containing {expected:?}, got none"),
        (Some(d), _) => assert!(d.message.contains(expected), "{what}: expected {expected:?} in {:?}", d.message),
    }
}

#[test]
fn named_limits() {
    let many_ops: String = (0..300).map(|_| "%r1").collect::<Vec<_>>().join(", ");
    let many_dims: String = (0..40).map(|_| "1").collect::<Vec<_>>().join(", ");
    let long_name = "a".repeat(limits::MAX_NAME_LEN + 1);
    let long_string = "x".repeat(limits::MAX_STRING_LEN + 1);
    let cases: Vec<(&str, String, &str)> = vec![
        (
            "huge range",
            kernel("  .reg .R %v<4000000000>", ""),
            "register range %v<4000000000> exceeds the limit of 1048576 registers per declaration",
        ),
        ("range beyond u64", kernel("  .reg .R %v<99999999999999999999999>", ""), "exceeds the limit of 1048576"),
        ("2^40 immediate", kernel("", "  %r0 = MOV 0x10000000000"), "immediate 0x10000000000 does not fit in 32 bits"),
        ("2^40 decimal", kernel("", "  %r0 = MOV 1099511627776"), "does not fit in 32 bits"),
        ("huge negative", kernel("", "  %r0 = MOV -99999999999999999999999"), "does not fit in 32 bits"),
        (
            "address offset",
            kernel("", "  %r0 = LDS [%r1 + 0x100000000]"),
            "address offset 0x100000000 does not fit in 32 bits",
        ),
        ("component", kernel("", "  %r0 = MOV %r1.300"), "component index 300 exceeds the limit of 255"),
        (
            "operands",
            kernel("", &format!("  %r0 = PHI {many_ops}")),
            "too many operands: an instruction has at most 255",
        ),
        ("maxntid dims", kernel(&format!("  .maxntid {many_dims}"), ""), "too many dimensions: the limit is 16"),
        ("maxnreg value", kernel("  .maxnreg 4294967296", ""), "value 4294967296 exceeds the limit of 1048576"),
        ("option value", ".target sm_90\n.option maxrregcount = 2000000\n".into(), "exceeds the limit of 1048576"),
        (
            "knob int",
            ".knob 684 = 9007199254740993\n".into(),
            "knob value 9007199254740993 exceeds the limit of 9007199254740992",
        ),
        ("knob index", ".knob 70000 = 1\n".into(), "knob index 70000 exceeds the limit of 65535"),
        (
            "knob string",
            format!(".knob RegAllocEstimatedLoopIterations = \"{long_string}\"\n"),
            "over the limit of 4096 characters",
        ),
        ("name length", kernel("", &format!("  BRA {long_name}")), "over the limit of 1024 bytes"),
        (
            "global size",
            ".shared big[0x200000000]\n".into(),
            "variable size 0x200000000 exceeds the limit of 4294967296",
        ),
        ("loc", ".loc 4294967296\n".into(), "line number 4294967296 exceeds the limit of 4294967295"),
        ("cbank bank", kernel("", "  %r0 = MOV c[256][0]"), "constant bank 256 exceeds the limit of 255"),
        ("cbank offset", kernel("", "  %r0 = MOV c[0][0x100000000]"), "exceeds the limit of 4294967295"),
        ("phys register", kernel("", "  %r0 = MOV R99999999999999999999"), "outside the R file"),
        ("float", kernel("", "  %r0 = MOV 1e39"), "out of range for a 32-bit float"),
        ("flags", kernel("  .flags %r0 = 0x10000000000000000", ""), "exceeds the limit of 18446744073709551615"),
        (
            "abi count",
            ".func f {\n  .abi {\n    param 99999999999x4\n  }\nBB0:\n  RET\n}\n".into(),
            "element count 99999999999 exceeds the limit of 1048576",
        ),
        ("ok at the limit", kernel("  .reg .R %v<1024>", "  %r0 = MOV 0xFFFFFFFF\n  %r1 = MOV -2147483648"), ""),
    ];
    for (what, text, expected) in &cases {
        check(what, text, expected);
    }
}

#[test]
fn registers_per_function() {
    let half = limits::MAX_VREGS_PER_FUNCTION / 2 + 1;
    let text = kernel(&format!("  .reg .R %a<{half}>\n  .reg .R %b<{half}>"), "");
    check("total", &text, "declares more than 1048576 registers, the limit per function");
}

#[test]
fn ten_megabyte_lines() {
    let ten_mb = 10 << 20;
    check("long comment", &format!("// {}\n.target sm_90\n", "x".repeat(ten_mb)), "");
    check("long junk", &format!(".target sm_90\n{}\n", "x".repeat(ten_mb)), "expected a directive");
    check("long name", &kernel("", &format!("  BRA {}", "L".repeat(ten_mb))), "over the limit of 1024 bytes");
    let ops: String = "%r1, ".repeat(ten_mb / 5);
    check("long operand list", &kernel("", &format!("  %r0 = PHI {ops}")), "too many operands");
    let digits = "9".repeat(ten_mb);
    check("long number", &kernel("", &format!("  %r0 = MOV {digits}")), "does not fit in 32 bits");
    check("long block comment", &format!(".target sm_90 /* {} */\n", "*".repeat(ten_mb)), "");
}

#[test]
fn deep_nesting_and_junk() {
    let n = 100_000;
    check("braces", &"{".repeat(n), "expected a directive");
    check("brackets", &kernel("", &format!("  %r0 = MOV {}", "[".repeat(n))), "expected");
    check("comments", &format!("{}\n", "/* ".repeat(n)), "unterminated block comment");
    check("nested functions", &".entry k {\n".repeat(1000), "is not closed");
    check("nested abi", &format!(".func f {{\n{}", "  .abi {\n".repeat(1000)), "expected an ABI entry");
    let nuls = "\0".repeat(n);
    check("nul bytes", &nuls, "expected a directive");
    check("nul in kernel", &kernel("", &format!("  %r0 = MOV {nuls}")), "expected an operand");
}

#[test]
fn nested_abi_is_an_error() {
    let text = ".func f {\n  .abi {\n  .abi {\n  }\nBB0:\n  RET\n}\n";
    check("abi in abi", text, "expected an ABI entry");
}

#[test]
fn error_floods_stop_after_the_limit() {
    let text = "junk\n".repeat(10_000);
    let file = SourceFile::new("flood.ori", text);
    let (_, _, diags) = parse_module(&file);
    let errors = diags.iter().filter(|d| d.is_error()).count();
    assert_eq!(errors, limits::MAX_ERRORS);
    let last = diags.last().unwrap();
    assert_eq!(last.severity, Severity::Note);
    assert_eq!(last.message, "stopping after 100 errors");
}

#[test]
fn invalid_utf8_and_oversized_input_are_reported_with_positions() {
    let e = SourceFile::from_bytes("x.ori", b".target sm_90\n\xc3\x28").unwrap_err();
    assert!(e.render().starts_with("x.ori:2:1: error: invalid UTF-8: byte 0xC3"), "{}", e.render());
    // Truncated multi-byte character at the very end.
    let e = SourceFile::from_bytes("x.ori", b"ok \xe2\x82").unwrap_err();
    assert!(e.render().starts_with("x.ori:1:4: error: invalid UTF-8"), "{}", e.render());
}

/// Inputs that would take quadratic time in a naive implementation (duplicate checks
/// by scanning, alias chains walked per register, "did you mean" over every name for
/// every error) finish in about linear time.
#[test]
fn no_quadratic_blowups() {
    let n = 20_000;
    let mut header = format!("  .reg .R %a<{n}>\n");
    for k in 1..n {
        header.push_str(&format!("  .alias %a{k} = %a{}\n", k - 1));
    }
    for k in 0..n {
        header.push_str(&format!("  .pin %a{k} = R{}\n", k % 200));
    }
    let text = kernel(&header, "");
    let start = std::time::Instant::now();
    let file = SourceFile::new("chain.ori", text);
    let (m, map, diags) = parse_module(&file);
    assert!(diags.is_empty(), "{:?}", diags.first());
    let v = radbg::ir::validate::validate(&m, &map);
    assert!(v.iter().all(|d| !d.message.contains("alias cycle")));
    // Many unknown labels and undeclared registers among many names.
    let mut body = String::new();
    for k in 0..3000 {
        body.push_str(&format!("L{k}:\n  BRA M{k}\n"));
    }
    let file = SourceFile::new("labels.ori", kernel("  .reg .R %b<4000>", &body));
    let (m, map, diags) = parse_module(&file);
    assert!(diags.is_empty());
    let v = radbg::ir::validate::validate(&m, &map);
    assert_eq!(v.iter().filter(|d| d.message.starts_with("branch to unknown label")).count(), 3000);
    let body: String = (0..3000).map(|k| format!("  %b0 = MOV %c{k}\n")).collect();
    let (_, _, diags) = parse_module(&SourceFile::new("undeclared.ori", kernel("  .reg .R %b<4000>", &body)));
    assert_eq!(diags.iter().filter(|d| d.is_error()).count(), limits::MAX_ERRORS);
    // Generous: linear work here takes well under a second even in a debug build.
    assert!(start.elapsed().as_secs() < 60, "took {:?}", start.elapsed());
}
