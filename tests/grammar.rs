//! The grammar (`grammar/ori.ebnf`) against the parser: every file in
//! `grammar/examples/` and `sessions/` parses and validates cleanly, and every
//! production of the EBNF has one accepted and one rejected example in `TABLE`
//! (a test fails if a production has no row, or a row names no production).

use radbg::ir::diag::Diagnostic;
use radbg::ir::parse::parse_module;
use radbg::ir::span::SourceFile;
use radbg::ir::validate::validate;

/// Where a snippet goes.
#[derive(Clone, Copy, Debug)]
enum Ctx {
    /// The whole file.
    File,
    /// After `.target sm_90`, at module level.
    Top,
    /// In the header of a kernel with registers %r0-3, %rd0-1, %q, %p0-1, %ur0-1.
    Header,
    /// Instructions in that kernel's first block, before its EXIT.
    Body,
    /// Lines of an `.abi` block in a device function with %a0-1 and %w (.x2).
    Abi,
}

fn wrap(ctx: Ctx, s: &str) -> String {
    let kernel = |header: &str, body: &str| {
        format!(
            ".target sm_90\n.shared .align 4 smem[64]\n.func callee {{\nBB0:\n  RET\n}}\n.entry k {{\n  .reg .R %r<4>\n  .reg .R.x2 %rd<2>\n  .reg .R.x4 %q\n  .reg .P %p<2>\n  .reg .UR %ur<2>\n{header}\nBB0:\n{body}\n  EXIT\n}}\n"
        )
    };
    match ctx {
        Ctx::File => s.to_string(),
        Ctx::Top => format!(".target sm_90\n{s}\n"),
        Ctx::Header => kernel(s, ""),
        Ctx::Body => kernel("", s),
        Ctx::Abi => format!(
            ".target sm_90\n.func f {{\n  .reg .R %a<2>\n  .reg .R.x2 %w\n  .abi {{\n{s}\n  }}\nBB0:\n  RET\n}}\n"
        ),
    }
}

/// (production, context, accepted, rejected, part of the rejection's message)
const TABLE: &[(&str, Ctx, &str, &str, &str)] = &[
    // Tokens
    (
        "newline",
        Ctx::File,
        ".target sm_90\n.option warn-on-spills\n",
        ".target sm_90 .option warn-on-spills\n",
        "expected end of line",
    ),
    (
        "ws",
        Ctx::Top,
        ".option \t maxrregcount /* c */ = 32",
        ".option maxrregcount = 32 /* open",
        "unterminated block comment",
    ),
    ("comment", Ctx::Top, "// a comment\n/* a\n block */", "/* never closed", "unterminated block comment"),
    ("letter", Ctx::Top, ".entry k9 {\nBB0:\n  EXIT\n}", ".entry 9k {\nBB0:\n  EXIT\n}", "expected a function name"),
    ("digit", Ctx::Header, "  .maxnreg 32", "  .maxnreg many", "expected a register count"),
    ("hexdigit", Ctx::Body, "  %r0 = MOV 0xFf", "  %r0 = MOV 0xg", "hexadecimal digits"),
    ("ident", Ctx::Body, "  BRA BB0", "  BRA @x", "expected an operand"),
    ("word", Ctx::Top, ".option device-function-maxrregcount = 32", ".option = 32", "expected an option name"),
    ("vreg_name", Ctx::Body, "  %r0 = MOV %r1", "  %r0 = MOV %", "expected a register name after '%'"),
    ("uint", Ctx::Header, "  .maxntid 0x100", "  .maxntid 99999999999", "exceeds the limit of 1048576"),
    ("int", Ctx::Body, "  %r0 = MOV -2147483648", "  %r0 = MOV 0x100000000", "does not fit in 32 bits"),
    ("float", Ctx::Body, "  %r0 = FADD %r1, -1.5e3", "  %r0 = FADD %r1, 0f3F80", "exactly 8 hexadecimal digits"),
    ("exponent", Ctx::Body, "  %r0 = FMUL %r1, 2E+2", "  %r0 = FMUL %r1, 1e99", "out of range for a 32-bit float"),
    ("phys_reg", Ctx::Body, "  %r0 = IADD3 R254, RZ, URZ", "  %r0 = MOV R255x, R300", "outside the R file"),
    (
        "special_reg",
        Ctx::Body,
        "  %r0 = S2R SR_CTAID.Z",
        "  %r0 = S2R SR_CTAID-Z",
        "',' or end of line after the operand",
    ),
    (
        "string",
        Ctx::Top,
        ".knob RegAllocEstimatedLoopIterations = \"a \\\"b\\\"\"",
        ".knob RegAllocEstimatedLoopIterations = \"open",
        "unterminated string",
    ),
    (
        "escape",
        Ctx::Top,
        ".knob RegAllocEstimatedLoopIterations = \"\\n\\t\\0\\\\\"",
        ".knob RegAllocEstimatedLoopIterations = \"\\q\"",
        "unknown escape",
    ),
    // Module
    ("module", Ctx::File, "// nothing but a comment\n", "garbage\n", "expected a directive"),
    ("module_item", Ctx::Top, ".loc 3", ".targte sm_90", "unknown directive .targte"),
    ("target", Ctx::File, ".target sm_100f\n", ".target sm_9000\n", "expected a target like sm_90"),
    (
        "option",
        Ctx::Top,
        ".option maxrregcount = 64",
        ".option maxrregcount 64",
        "expected '=' and a value after maxrregcount",
    ),
    ("option_name", Ctx::Top, ".option compile-mode = 5", ".option maxregcount = 64", "unknown option maxregcount"),
    ("knob", Ctx::Top, ".knob 684 = 50", ".knob 684 50", "expected '=' and a value after the knob"),
    ("knob_name", Ctx::Top, ".knob radbg.LoopWeight = 8", ".knob $x = 8", "expected a knob name or index"),
    (
        "knob_value",
        Ctx::Top,
        ".knob RegAllocCoalescing = false",
        ".knob RegAllocCoalescing = maybe",
        "expected a knob value",
    ),
    (
        "knob_float",
        Ctx::Top,
        ".knob RegAllocSpillCostMultiplier = 1e1",
        ".knob RegAllocSpillCostMultiplier = 1.2.3",
        "invalid float knob value",
    ),
    ("global", Ctx::Top, ".local .align 8 frame[32]", ".shared smem", "expected '[' and the size in bytes"),
    ("loc", Ctx::Top, ".loc none", ".loc -1", "expected a line number or 'none'"),
    // Functions
    (
        "function",
        Ctx::Top,
        ".func f {\nBB0:\n  RET\n}",
        ".func f\nBB0:\n  RET\n}",
        "expected '{' to open the function body",
    ),
    ("header_item", Ctx::Header, "  .coroutine", "  .maxthreads 4", "unknown directive .maxthreads"),
    ("maxnreg", Ctx::Header, "  .maxnreg 128", "  .maxnreg", "expected a register count"),
    ("minnctapersm", Ctx::Header, "  .minnctapersm 4", "  .minnctapersm -4", "expected a register count"),
    ("maxntid", Ctx::Header, "  .maxntid 32, 4, 2", "  .maxntid 32,", "expected a thread count"),
    ("reqntid", Ctx::Header, "  .reqntid 128", "  .reqntid 128 4", "end of line after .reqntid"),
    ("coroutine", Ctx::Header, "  .coroutine", "  .coroutine now", "end of line after .coroutine"),
    (
        "allow_smem",
        Ctx::Header,
        "  .allow-reserved-smem",
        "  .allow-reserved-smem yes",
        "end of line after .allow-reserved-smem",
    ),
    ("reg_decl", Ctx::Header, "  .reg .R.x16 %v, %w<2>", "  .reg .R.x3 %v", "register width must be"),
    ("reg_class", Ctx::Header, "  .reg .URext %e", "  .reg .Q %e", "unknown register class .Q"),
    (
        "reg_item",
        Ctx::Header,
        "  .reg .R %v<4000>",
        "  .reg .R %v<4000000000>",
        "exceeds the limit of 1048576 registers per declaration",
    ),
    ("pin", Ctx::Header, "  .pin %rd0 = R8", "  .pin %p0 = R4", "cannot pin %p0 (class P) to R4"),
    ("alias", Ctx::Header, "  .alias %r1 = %r0", "  .alias %r1 = %r9", "undeclared register %r9"),
    ("flags", Ctx::Header, "  .flags %r1 = 0x4000", "  .flags %r1 = high", "expected the flag bits"),
    // ABI
    ("abi", Ctx::Abi, "    available 32", "    avialable 32", "unknown ABI entry 'avialable'"),
    (
        "abi_entry",
        Ctx::Abi,
        "    retaddr-before-params",
        "    retaddr-before-params R4",
        "end of line after 'retaddr-before-params'",
    ),
    (
        "abi_value",
        Ctx::Abi,
        "    param 2x4 align 8 = %w\n    return 1x4 = %a1",
        "    param 2 x 8",
        "expected 'x' and the element size",
    ),
    ("retaddr", Ctx::Abi, "    retaddr uniform UR6", "    retaddr uniform R6", "expected a UR register"),
    ("first_param", Ctx::Abi, "    first-param R4", "    first-param UR4", "expected an R register"),
    ("available", Ctx::Abi, "    available computed", "    available all", "expected a register count or 'computed'"),
    ("reserved", Ctx::Abi, "    reserved R40..R47", "    reserved R40..", "expected an R register"),
    ("stack_pointer", Ctx::Abi, "    stack-pointer R1", "    stack-pointer", "expected an R register"),
    (
        "retaddr_range",
        Ctx::Abi,
        "    retaddr-range R4..R63",
        "    retaddr-range R4-R63",
        "end of line after 'retaddr-range'",
    ),
    ("reg_set", Ctx::Abi, "    preserved UR UR8..UR15, UR20", "    scratch X R4", "unknown register file 'X'"),
    ("reg_range", Ctx::Abi, "    scratch R R4..R15", "    scratch R R4..UR15", "expected an R register"),
    // Blocks
    ("block", Ctx::Body, "  BRA BB1\nBB1:\n  EXIT\nBB2:", "  BRA BB1\nBB1 :", "no space before the ':'"),
    ("label", Ctx::Body, "$L__BB0_1:", "$L__BB0_1: EXIT", "end of line after the label"),
    (
        "instruction",
        Ctx::Body,
        "  [7] @!%p0 %r0, %p1 = IADD3 %r1, 1, RZ",
        "  [7] %r0 %r1 = MOV",
        "expected '=' after the destination operands",
    ),
    ("guard", Ctx::Body, "  @!PT EXIT", "  @ EXIT", "expected a predicate register after '@'"),
    (
        "mnemonic",
        Ctx::Body,
        "  %rd0 = IMAD.WIDE.U32 %r1, 4, RZ",
        "  %r0 = iadd3 %r1",
        "expected an upper-case mnemonic",
    ),
    ("operand_list", Ctx::Body, "  STG.E [%rd0], %r1", "  STG.E [%rd0] %r1", "',' or end of line after the operand"),
    ("operand", Ctx::Body, "  %r0 = SEL %r1, c[0x3][0x10], %p0", "  %r0 = SEL %r1, {", "expected an operand"),
    ("register", Ctx::Body, "  %r0 = MOV UR3", "  %r0 = MOV UR64", "outside the UR file"),
    ("vreg_ref", Ctx::Body, "  %r0 = MOV %q.3", "  %r0 = MOV %q.third", "expected a component after the register"),
    (
        "address",
        Ctx::Body,
        "  %r0 = LDG.E [-0x8]",
        "  %r0 = LDG.E [%rd0 - %r1]",
        "only the offset of an address can be subtracted",
    ),
    (
        "addr_term",
        Ctx::Body,
        "  %r0 = LDS [smem + %r1 + %ur0 + 0x4]",
        "  %r0 = LDS [%r1 + %r2 + %r3]",
        "at most two registers",
    ),
    (
        "cbank",
        Ctx::Body,
        "  %r0 = MOV c[0x1f][0x8]",
        "  %r0 = MOV c[0x100][0x8]",
        "constant bank 0x100 exceeds the limit of 255",
    ),
    ("symbol", Ctx::Body, "  CALL callee", "  CALL ?", "expected an operand"),
];

fn errors(text: &str) -> (Vec<Diagnostic>, Vec<Diagnostic>, SourceFile) {
    let file = SourceFile::new("t.ori", text);
    let (m, map, diags) = parse_module(&file);
    let v = if diags.iter().any(Diagnostic::is_error) { Vec::new() } else { validate(&m, &map) };
    (diags, v, file)
}

#[test]
fn every_production_has_an_accepted_and_a_rejected_example() {
    let ebnf = include_str!("../grammar/ori.ebnf");
    let productions: Vec<&str> = ebnf
        .lines()
        .filter_map(|l| {
            let (name, _) = l.split_once('=')?;
            let name = name.trim();
            (!name.is_empty() && !l.starts_with(' ') && name.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'))
                .then_some(name)
        })
        .collect();
    assert!(productions.len() > 40, "found only {productions:?}");
    let mut problems = Vec::new();
    for p in &productions {
        if !TABLE.iter().any(|row| row.0 == *p) {
            problems.push(format!("production {p} has no test row"));
        }
    }
    for &(name, ctx, good, bad, msg) in TABLE {
        if !productions.contains(&name) {
            problems.push(format!("row {name} names no production of grammar/ori.ebnf"));
        }
        let (pd, vd, file) = errors(&wrap(ctx, good));
        let all: Vec<&Diagnostic> = pd.iter().chain(&vd).filter(|d| d.is_error()).collect();
        if let Some(d) = all.first() {
            problems.push(format!("{name}: accepted example is rejected:\n{}", d.render(&file)));
        }
        let (pd, _, file) = errors(&wrap(ctx, bad));
        match pd.iter().find(|d| d.is_error()) {
            None => problems.push(format!("{name}: rejected example {bad:?} parses")),
            Some(d) if !d.message.contains(msg) => {
                problems.push(format!("{name}: expected an error containing {msg:?}, got:\n{}", d.render(&file)))
            }
            Some(_) => {}
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

fn check_dir(dir: &str) -> usize {
    let mut n = 0;
    let mut paths: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    paths.sort();
    for path in paths.iter().filter(|p| p.extension().is_some_and(|e| e == "ori")) {
        let text = std::fs::read_to_string(path).unwrap();
        let (pd, vd, _) = errors(&text);
        let file = SourceFile::new(path.display().to_string(), text);
        let bad: Vec<String> = pd.iter().chain(&vd).map(|d| d.render(&file)).collect();
        assert!(bad.is_empty(), "{} is not clean:\n{}", path.display(), bad.join(""));
        let (m, _, _) = parse_module(&file);
        radbg::ir::arbitrary::round_trip(&m).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        n += 1;
    }
    n
}

#[test]
fn every_grammar_example_parses_validates_and_round_trips() {
    assert!(check_dir("grammar/examples") >= 2);
}

#[test]
fn every_session_kernel_parses_validates_and_round_trips() {
    assert!(check_dir("sessions") >= 12);
}

#[test]
fn the_demo_is_the_session_file() {
    assert_eq!(radbg::demo::DEMO, std::fs::read_to_string("sessions/demo.ori").unwrap());
}

#[test]
fn crlf_line_endings_parse_like_lf() {
    for name in ["saxpy", "abi_modes", "reduction"] {
        let text = std::fs::read_to_string(format!("sessions/{name}.ori")).unwrap();
        let crlf = text.replace('\n', "\r\n");
        let a = radbg::ir::parse::parse_str(&text).unwrap();
        let b = radbg::ir::parse::parse_str(&crlf).unwrap_or_else(|e| panic!("{name} with CRLF: {e}"));
        assert_eq!(a, b, "{name}");
    }
}
