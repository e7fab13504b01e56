//! The Ori IR parser (nom 8): text to [`Module`] plus a [`SourceMap`] of spans and
//! every diagnostic in the file.
//!
//! The grammar is `grammar/ori.ebnf`. The language is line oriented: every statement
//! ends at a newline, so after an error the parser recovers at the next line and
//! keeps going; all errors are reported, up to [`limits::MAX_ERRORS`]. Nothing is
//! recursive (the deepest nesting is module → function → `.abi`), so no input can
//! exhaust the stack, and every loop consumes input, so none can hang. Numbers,
//! ranges and names have named limits ([`limits`]).
//!
//! The parser resolves register names to [`crate::ir::VRegId`]s (so registers must be
//! declared before use, in the function header) and checks what the model cannot
//! represent (a `.pin` to another file, a `retaddr uniform R5`). Everything the model
//! *can* represent but is wrong — unknown labels, class mismatches, bad ABI values —
//! is the validator's job ([`crate::ir::validate`]). Knows nothing of allocation.

mod func;
mod inst;
pub mod lex;

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use lex::{PErr, PResult, eol, expected, ident, need_char, uint, word, ws};

use crate::ir::diag::Diagnostic;
use crate::ir::model::*;
use crate::ir::sm::Sm;
use crate::ir::span::{FunctionSpans, KnobSpans, SourceFile, SourceMap, Span};

/// Named limits. Each message that enforces one names it.
pub mod limits {
    /// Registers one `.reg` range may declare (`%r<N>`).
    pub const MAX_RANGE: u64 = 1 << 20;
    /// Registers one function may declare in total.
    pub const MAX_VREGS_PER_FUNCTION: usize = 1 << 20;
    /// Length of any name (register, label, symbol, function), in bytes.
    pub const MAX_NAME_LEN: usize = 1024;
    /// Operands of one instruction (destinations and sources together).
    pub const MAX_OPERANDS: usize = 255;
    /// Values of `.option`, `.maxnreg`, `.minnctapersm`, `.maxntid`, `.reqntid`,
    /// ABI counts and sizes.
    pub const MAX_DIRECTIVE_VALUE: u64 = 1 << 20;
    /// Dimensions the parser reads in `.maxntid`/`.reqntid` (the validator wants <= 3).
    pub const MAX_DIMS: usize = 16;
    /// Magnitude of an integer knob value: 2^53, exactly representable as an f64.
    pub const MAX_KNOB_INT: u64 = 1 << 53;
    /// Knob indices.
    pub const MAX_KNOB_INDEX: u64 = 65535;
    /// Characters of a quoted knob string.
    pub const MAX_STRING_LEN: usize = 4096;
    /// Size of a memory declaration in bytes (4 GiB).
    pub const MAX_GLOBAL_SIZE: u64 = 1 << 32;
    /// Alignment of a memory declaration in bytes.
    pub const MAX_ALIGN: u64 = 1 << 16;
    /// Component index in `%q0.N` (the validator checks it against the width).
    pub const MAX_COMPONENT: u64 = 255;
    /// Errors reported before the parser stops.
    pub const MAX_ERRORS: usize = 100;
    /// Nesting depth of braces: function body, then `.abi` block.
    pub const MAX_NESTING: usize = 2;
}

/// The module-wide register limit and memory estimate (`ir::limits`), checked on a
/// quick scan of the `.reg` lines before parsing allocates a vreg per register: the
/// parser's own check at each declaration comes after the functions before it are
/// built, and eight functions of a million registers took minutes to get there (issue
/// 28). Returns the offset and length of the first declaration over the limit, and
/// the message. Counts what the parser would (ranges, and one per plain name).
fn register_prescan(text: &str) -> Option<(usize, usize, String)> {
    let mut total = 0u64;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let t = line.trim_start();
        let Some(rest) = t.strip_prefix(".reg") else { continue };
        let rest = rest.split("//").next().unwrap_or("");
        for name in rest.split(',') {
            total = total.saturating_add(match name.split_once('<') {
                Some((_, n)) => {
                    let digits: String = n.trim_start().chars().take_while(char::is_ascii_digit).collect();
                    // Over the per-declaration limit is the parser's error to report.
                    digits.parse::<u64>().ok().filter(|&n| n <= limits::MAX_RANGE).unwrap_or(0)
                }
                None => 1,
            });
        }
        if let Some(msg) = crate::ir::limits::check_module_regs(total, text.len()) {
            let at = start + (line.len() - t.len());
            return Some((at, t.trim_end().len(), msg));
        }
    }
    None
}

/// Parses a whole file. Always returns a module (with the statements that parsed),
/// the spans of its items, and the diagnostics in file order.
pub fn parse_module(file: &SourceFile) -> (Module, SourceMap, Vec<Diagnostic>) {
    let mut p = P::new(&file.text);
    p.run();
    p.finish()
}

/// Parses and validates text; any error becomes `Err` with the rendered
/// diagnostics. A convenience for tests and tools that start from a string.
pub fn parse_str(text: &str) -> Result<Module, String> {
    parse_named("<string>", text).map(|(m, _, _)| m)
}

/// Like [`parse_str`], naming the file in messages and returning the spans and any
/// warnings too.
pub fn parse_named(name: &str, text: &str) -> Result<(Module, SourceMap, Vec<Diagnostic>), String> {
    let file = SourceFile::new(name, text);
    let (m, map, mut diags) = parse_module(&file);
    if !diags.iter().any(Diagnostic::is_error) {
        diags.extend(crate::ir::validate::validate(&m, &map));
    }
    if diags.iter().any(Diagnostic::is_error) {
        return Err(crate::ir::diag::render_all(&diags, &file));
    }
    Ok((m, map, diags))
}

/// The hash of the name → vreg and mnemonic → opcode tables: FNV-1a's constants
/// (seed 000 names FNV-1a for the allocator's own tables) applied a word at a time,
/// since names are short and hashing them is on the parser's hot path. Lookups
/// only: nothing iterates these maps, so the order can never show.
#[derive(Default)]
pub(crate) struct Fnv(u64);

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut h = if self.0 == 0 { 0xcbf2_9ce4_8422_2325 } else { self.0 };
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let w = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
            h = (h ^ w).wrapping_mul(0x0100_0000_01b3).rotate_left(29);
        }
        let mut tail = 0u64;
        for (k, &b) in chunks.remainder().iter().enumerate() {
            tail |= (b as u64) << (8 * k);
        }
        h = (h ^ tail ^ ((bytes.len() as u64) << 56)).wrapping_mul(0x0100_0000_01b3);
        self.0 = h ^ (h >> 32);
    }
    #[inline]
    fn write_u8(&mut self, b: u8) {
        self.0 = (self.0 ^ b as u64).wrapping_mul(0x0100_0000_01b3);
    }
}

pub(crate) type FnvBuild = BuildHasherDefault<Fnv>;
pub(crate) type NameMap = HashMap<Box<str>, u32, FnvBuild>;

/// The function being parsed.
struct FnState {
    f: Function,
    spans: FunctionSpans,
    names: NameMap,
    /// A label has been seen: header directives are no longer allowed.
    in_blocks: bool,
    /// Inside `.abi { ... }`.
    in_abi: bool,
    /// The header line was broken: parse the body for errors, then drop it.
    discard: bool,
    /// Per vreg, the `.pin`/`.alias`/`.flags` lines seen (bits 1, 2, 4): duplicate
    /// checks in constant time.
    attr_seen: Vec<u8>,
    /// "Did you mean" searches left: each costs an edit distance per register.
    suggestions_left: std::cell::Cell<u32>,
    /// Operand scratch space reused by every instruction.
    scratch: Vec<Operand>,
    scratch_spans: Vec<Span>,
}

impl FnState {
    fn new(name: &str, kind: FuncKind, name_span: Span, origin: Option<u32>) -> FnState {
        let mut f = Function::new(name, kind);
        f.origin = origin;
        FnState {
            f,
            spans: FunctionSpans { name: name_span, ..FunctionSpans::default() },
            names: NameMap::default(),
            in_blocks: false,
            in_abi: false,
            discard: false,
            attr_seen: Vec::new(),
            suggestions_left: std::cell::Cell::new(20),
            scratch: Vec::new(),
            scratch_spans: Vec::new(),
        }
    }
}

const TOP_DIRECTIVES: &[&str] = &["target", "option", "knob", "shared", "global", "const", "local", "entry", "func"];
const FUNC_DIRECTIVES: &[&str] = &[
    "maxnreg",
    "minnctapersm",
    "maxntid",
    "reqntid",
    "coroutine",
    "allow-reserved-smem",
    "reg",
    "pin",
    "alias",
    "flags",
    "abi",
];
const OPTIONS: &[&str] =
    &["maxrregcount", "device-function-maxrregcount", "register-usage-level", "warn-on-spills", "compile-mode"];

/// Parser state for one file.
struct P<'a> {
    text: &'a str,
    module: Module,
    map: SourceMap,
    diags: Vec<Diagnostic>,
    errors: usize,
    /// The origin line set by the last `.loc`.
    loc: Option<u32>,
    func: Option<FnState>,
}

impl<'a> P<'a> {
    fn new(text: &'a str) -> P<'a> {
        P {
            text,
            module: Module::default(),
            map: SourceMap::default(),
            diags: Vec::new(),
            errors: 0,
            loc: None,
            func: None,
        }
    }

    /// Byte offset of a slice of the text. Every slice the parsers return is one;
    /// anything else (a bug) clamps into the file rather than panicking.
    fn off(&self, s: &str) -> usize {
        func::off(self.text, s)
    }

    fn span(&self, at: &str, len: usize) -> Span {
        let lo = self.off(at);
        Span::new(lo, lo + len)
    }

    /// The span from `start` to `end` (both slices of the text).
    fn between(&self, start: &str, end: &str) -> Span {
        Span::new(self.off(start), self.off(end))
    }

    fn error(&mut self, d: Diagnostic) {
        if d.is_error() {
            // One line may hold many errors (undeclared operands): keep the cap exact.
            if self.errors >= limits::MAX_ERRORS {
                return;
            }
            self.errors += 1;
        }
        self.diags.push(d);
    }

    fn report(&mut self, e: PErr<'a>) {
        let len = match e.len() {
            0 => e.at.chars().next().map_or(0, |c| if c == '\n' { 0 } else { c.len_utf8() }),
            n => n,
        };
        let span = self.span(e.at, len);
        let (msg, help) = e.into_parts();
        let mut d = Diagnostic::error(span, msg);
        if let Some(h) = help {
            d = d.with_help(h);
        }
        self.error(d);
    }

    fn run(&mut self) {
        if let Some((at, len, msg)) = register_prescan(self.text) {
            self.error(Diagnostic::error(Span::new(at, at + len), msg));
            return;
        }
        let mut i = self.text;
        let mut stopped = false;
        loop {
            i = match skip_blank(i) {
                Ok((r, _)) => r,
                Err(nom::Err::Error(e) | nom::Err::Failure(e)) => {
                    self.report(e);
                    break;
                }
                Err(nom::Err::Incomplete(_)) => break,
            };
            if i.is_empty() {
                break;
            }
            match self.statement(i) {
                Ok((rest, ())) => i = rest,
                Err(nom::Err::Error(e) | nom::Err::Failure(e)) => {
                    let (at, to_eof) = (e.at, e.is_fatal());
                    self.report(e);
                    if to_eof {
                        break;
                    }
                    i = match at.find('\n') {
                        Some(n) => &at[n + 1..],
                        None => &at[at.len()..],
                    };
                }
                Err(nom::Err::Incomplete(_)) => break,
            }
            if self.errors >= limits::MAX_ERRORS {
                let at = self.span(i, 0);
                self.diags.push(Diagnostic::note(at, format!("stopping after {} errors", limits::MAX_ERRORS)));
                stopped = true;
                break;
            }
        }
        let end = self.span(&self.text[self.text.len()..], 0);
        if stopped {
            self.close_function(end);
        }
        if let Some(fs) = &self.func {
            let msg = if fs.discard {
                "the function body is not closed: expected '}' before the end of the file".to_string()
            } else if fs.in_abi {
                format!("the .abi block of function {} is not closed: expected '}}'", fs.f.name)
            } else {
                format!("function {} is not closed: expected '}}' before the end of the file", fs.f.name)
            };
            let name = fs.spans.name;
            self.error(Diagnostic::error(name, msg));
            self.close_function(end);
        }
    }

    fn finish(self) -> (Module, SourceMap, Vec<Diagnostic>) {
        (self.module, self.map, self.diags)
    }

    fn statement(&mut self, i: &'a str) -> PResult<'a, ()> {
        if self.func.as_ref().is_some_and(|f| f.in_abi) {
            return self.abi_line(i);
        }
        if let Some(r) = i.strip_prefix('.') {
            let (r, name) = match word(r) {
                Ok(x) => x,
                Err(_) => return expected(r, "a directive name after '.'"),
            };
            let name_span = self.between(i, r);
            if name == "loc" {
                return self.loc_directive(r);
            }
            if let Some(&name) = TOP_DIRECTIVES.iter().find(|&&d| d == name) {
                if let Some(fs) = &self.func {
                    let msg = format!("function {} is not closed: expected '}}' before .{name}", fs.f.name);
                    self.error(Diagnostic::error(name_span, msg));
                    self.close_function(Span::at(name_span.lo as usize));
                }
                return self.top_directive(name, name_span, r);
            }
            if let Some(&name) = FUNC_DIRECTIVES.iter().find(|&&d| d == name) {
                if self.func.is_none() {
                    return lex::fail(
                        i,
                        name.len() + 1,
                        format!("directive .{name} is only allowed inside a function"),
                    );
                }
                return self.func_directive(name, name_span, i, r);
            }
            let all = TOP_DIRECTIVES.iter().chain(FUNC_DIRECTIVES).chain(&["loc"]).copied();
            let mut e = PErr::new(i, name.len() + 1, format!("unknown directive .{name}"));
            if let Some(s) = crate::util::closest(name, all) {
                e = e.help(format!("did you mean .{s}?"));
            }
            return Err(nom::Err::Failure(e));
        }
        if self.func.is_none() {
            return expected(i, "a directive such as .target, .entry or .func");
        }
        if let Some(r) = i.strip_prefix('}') {
            let close = self.span(i, 1);
            let (r, ()) = eol(r, "end of line after '}'")?;
            self.close_function(close);
            return Ok((r, ()));
        }
        // A label is a name directly followed by ':'.
        if let Ok((r, name)) = ident(i)
            && let Some(r) = r.strip_prefix(':')
        {
            let span = self.span(i, name.len());
            let (r, ()) = eol(r, "end of line after the label")?;
            let fs = self.func.as_mut().expect("checked above");
            fs.in_blocks = true;
            fs.spans.blocks.push(crate::ir::span::BlockSpans { label: span, first_inst: fs.spans.insts.len() as u32 });
            fs.f.blocks.push(Block { label: name.to_string(), insts: Vec::new() });
            return Ok((r, ()));
        }
        self.instruction(i)
    }

    fn close_function(&mut self, close: Span) {
        if let Some(mut fs) = self.func.take() {
            fs.spans.close = close;
            if !fs.discard {
                self.module.functions.push(fs.f);
                self.map.functions.push(fs.spans);
            }
        }
    }

    /// `.loc N` or `.loc none`: the origin line of the items that follow.
    fn loc_directive(&mut self, r: &'a str) -> PResult<'a, ()> {
        let (r, ()) = ws(r)?;
        let r = if let Some(rest) = r.strip_prefix("none").filter(|x| !x.starts_with(|c: char| c.is_alphanumeric())) {
            self.loc = None;
            rest
        } else {
            match uint(r, u32::MAX as u64, "line number") {
                Ok((rest, n)) => {
                    self.loc = Some(n as u32);
                    rest
                }
                Err(nom::Err::Error(_)) => return expected(r, "a line number or 'none' after .loc"),
                Err(e) => return Err(e),
            }
        };
        eol(r, "end of line after the .loc line number")
    }

    fn top_directive(&mut self, name: &'static str, name_span: Span, r: &'a str) -> PResult<'a, ()> {
        let (r, ()) = ws(r)?;
        match name {
            "target" => {
                let (rest, t) = match ident(r) {
                    Ok(x) => x,
                    Err(_) => return expected(r, "a target such as sm_90"),
                };
                let sm = match Sm::parse(t) {
                    Ok(sm) => sm,
                    Err(msg) => return lex::fail(r, t.len(), msg),
                };
                if self.map.target.is_some() {
                    return lex::fail(r, t.len(), "duplicate .target directive: a module has one target");
                }
                self.module.sm = sm;
                self.map.target = Some(name_span.to(self.span(r, t.len())));
                eol(rest, "end of line after the target")
            }
            "option" => self.option(name_span, r),
            "knob" => self.knob(r),
            "shared" | "global" | "const" | "local" => self.global(name, r),
            "entry" | "func" => {
                let kind = if name == "entry" { FuncKind::Entry } else { FuncKind::Device };
                let origin = self.loc;
                match self.function_header(r) {
                    Ok((rest, (fname, span))) => {
                        self.func = Some(FnState::new(fname, kind, span, origin));
                        Ok((rest, ()))
                    }
                    Err(e) => {
                        // Still parse the body for its own errors when the line opens one.
                        let line = r.split('\n').next().unwrap_or("");
                        if line.contains('{') {
                            let mut fs = FnState::new("<error>", kind, self.span(r, 0), origin);
                            fs.discard = true;
                            self.func = Some(fs);
                        }
                        Err(e)
                    }
                }
            }
            _ => unreachable!("TOP_DIRECTIVES lists only the names above"),
        }
    }

    fn function_header(&mut self, r: &'a str) -> PResult<'a, (&'a str, Span)> {
        let (rest, fname) = match ident(r) {
            Ok(x) => x,
            Err(nom::Err::Error(_)) => return expected(r, "a function name"),
            Err(e) => return Err(e),
        };
        let span = self.span(r, fname.len());
        let (rest, ()) = need_char(rest, '{', "'{' to open the function body")?;
        let (rest, ()) = eol(rest, "end of line after '{'")?;
        Ok((rest, (fname, span)))
    }

    /// `.option NAME [= VALUE]`.
    fn option(&mut self, start: Span, r: &'a str) -> PResult<'a, ()> {
        let (rest, name) = match word(r) {
            Ok(x) => x,
            Err(_) => return expected(r, "an option name such as maxrregcount"),
        };
        let Some(&key) = OPTIONS.iter().find(|&&o| o == name) else {
            let mut e = PErr::new(r, name.len(), format!("unknown option {name}"));
            if let Some(s) = crate::util::closest(name, OPTIONS.iter().copied()) {
                e = e.help(format!("did you mean {s}?"));
            }
            return Err(nom::Err::Failure(e));
        };
        if self.map.option(key).is_some() {
            return lex::fail(r, name.len(), format!("duplicate option {key}"));
        }
        let (rest, ()) = ws(rest)?;
        let rest = if key == "warn-on-spills" {
            self.module.options.warn_on_spills = true;
            rest
        } else {
            let (rest, ()) = need_char(rest, '=', &format!("'=' and a value after {key}"))?;
            let (rest, ()) = ws(rest)?;
            let (rest, v) = match uint(rest, limits::MAX_DIRECTIVE_VALUE, "option value") {
                Ok(x) => x,
                Err(nom::Err::Error(_)) => return expected(rest, "a non-negative integer"),
                Err(e) => return Err(e),
            };
            let v = v as u32;
            let o = &mut self.module.options;
            match key {
                "maxrregcount" => o.maxrregcount = Some(v),
                "device-function-maxrregcount" => o.device_function_maxrregcount = Some(v),
                "register-usage-level" => o.register_usage_level = Some(v),
                _ => o.compile_mode = v,
            }
            rest
        };
        let span = start.to(self.between(r, rest));
        self.map.options.push((key, span));
        eol(rest, "end of line after the option")
    }

    /// `.knob NAME|INDEX = VALUE`.
    fn knob(&mut self, r: &'a str) -> PResult<'a, ()> {
        let (rest, key) = if r.starts_with(|c: char| c.is_ascii_digit()) {
            let (rest, n) = uint(r, limits::MAX_KNOB_INDEX, "knob index")?;
            (rest, KnobKey::Index(n as u32))
        } else {
            match lex::knob_name(r) {
                Ok((rest, n)) => (rest, KnobKey::Name(n.to_string())),
                Err(_) => return expected(r, "a knob name or index"),
            }
        };
        let key_span = self.between(r, rest);
        let (rest, ()) = need_char(rest, '=', "'=' and a value after the knob")?;
        let (rest, ()) = ws(rest)?;
        let (after, value) = knob_value(rest)?;
        let value_span = self.between(rest, after);
        self.module.knobs.push(KnobSetting { key, value });
        self.map.knobs.push(KnobSpans { key: key_span, value: value_span });
        eol(after, "end of line after the knob value")
    }

    /// `.shared [.align N] NAME[SIZE]`.
    fn global(&mut self, space: &str, r: &'a str) -> PResult<'a, ()> {
        let space = Space::ALL.into_iter().find(|s| s.name() == space).unwrap_or(Space::Shared);
        let mut align = 4u32;
        let mut rest = r;
        if let Some(a) = r.strip_prefix(".align") {
            let (a, ()) = ws(a)?;
            let (a, v) = match uint(a, limits::MAX_ALIGN, "alignment") {
                Ok(x) => x,
                Err(nom::Err::Error(_)) => return expected(a, "an alignment in bytes after .align"),
                Err(e) => return Err(e),
            };
            align = v as u32;
            rest = ws(a)?.0;
        }
        let (after, name) = match ident(rest) {
            Ok(x) => x,
            Err(_) => return expected(rest, "a variable name"),
        };
        let name_span = self.span(rest, name.len());
        let (after, ()) = need_char(after, '[', "'[' and the size in bytes")?;
        let (after, ()) = ws(after)?;
        let (after, size) = match uint(after, limits::MAX_GLOBAL_SIZE, "variable size") {
            Ok(x) => x,
            Err(nom::Err::Error(_)) => return expected(after, "the size in bytes"),
            Err(e) => return Err(e),
        };
        let (after, ()) = need_char(after, ']', "']' after the size")?;
        self.module.globals.push(Global { space, name: name.to_string(), size, align, origin: self.loc });
        self.map.globals.push(name_span);
        eol(after, "end of line after the declaration")
    }
}

/// Blank lines, whitespace and comments between statements.
fn skip_blank(mut i: &str) -> PResult<'_, &str> {
    loop {
        let (r, ()) = ws(i)?;
        match r.strip_prefix('\n') {
            Some(r) => i = r,
            None => return Ok((r, r)),
        }
    }
}

/// A knob value: `true`/`false`, an integer, a float or a quoted string.
fn knob_value(i: &str) -> PResult<'_, KnobValue> {
    if let Ok((r, w)) = word(i) {
        return match w {
            "true" => Ok((r, KnobValue::Bool(true))),
            "false" => Ok((r, KnobValue::Bool(false))),
            _ => expected(i, "a knob value (integer, float, true, false or a quoted string)"),
        };
    }
    if let Some(body) = i.strip_prefix('"') {
        let mut s = String::new();
        let mut count = 0usize;
        let mut chars = body.char_indices();
        while let Some((k, c)) = chars.next() {
            match c {
                '"' => return Ok((&body[k + 1..], KnobValue::Str(s))),
                '\n' => break,
                '\\' => {
                    let esc = chars.next().map(|(_, c)| c);
                    s.push(match esc {
                        Some('n') => '\n',
                        Some('t') => '\t',
                        Some('\\') => '\\',
                        Some('"') => '"',
                        Some('0') => '\0',
                        _ => {
                            return lex::fail(
                                &body[k..],
                                2,
                                "unknown escape in string: expected \\n, \\t, \\0, \\\\ or \\\"",
                            );
                        }
                    });
                }
                c => s.push(c),
            }
            count += 1;
            if count > limits::MAX_STRING_LEN {
                return lex::fail(i, 1, format!("string is over the limit of {} characters", limits::MAX_STRING_LEN));
            }
        }
        return lex::fail(i, 1, "unterminated string: expected '\"' before the end of the line");
    }
    let neg = i.starts_with('-');
    let body = if neg { &i[1..] } else { i };
    if !body.starts_with(|c: char| c.is_ascii_digit()) {
        return expected(i, "a knob value (integer, float, true, false or a quoted string)");
    }
    let is_hex = body.starts_with("0x") || body.starts_with("0X");
    let n = body.bytes().take_while(|&b| b.is_ascii_alphanumeric() || b == b'.' || b == b'+' || b == b'-').count();
    let text = &i[..n + neg as usize];
    let looks_float = !is_hex && body[..n].bytes().any(|b| b == b'.' || b == b'e' || b == b'E');
    if looks_float {
        return match text.parse::<f64>() {
            Ok(x) if x.is_finite() => Ok((&i[text.len()..], KnobValue::Float(x))),
            _ => lex::fail(i, text.len(), format!("invalid float knob value {}", lex::clip(text))),
        };
    }
    let (rest, v) = uint(body, limits::MAX_KNOB_INT, "knob value")?;
    Ok((rest, KnobValue::Int(if neg { -(v as i64) } else { v as i64 })))
}
