//! Token-level parsers for Ori IR (nom 8 over `&str`): whitespace and comments,
//! names, numbers, physical registers, and the error type every parser returns.
//!
//! Knows the lexical grammar (`grammar/ori.ebnf`, section "Tokens") and nothing of
//! statements or the model beyond `PhysReg`.

use std::borrow::Cow;

use nom::IResult;
use nom::error::{ErrorKind, ParseError};

use super::limits;
use crate::ir::model::{PhysReg, RegFile};

/// A parse error: where, and for hard errors what was expected and an optional
/// help line. Kept small (two words plus a pointer) because every parser returns it
/// in its `Result`; soft errors (a failed `alt` branch, frequent and almost never
/// shown) carry no detail and allocate nothing.
#[derive(Clone, Debug)]
pub struct PErr<'a> {
    /// The input at the error; its offset in the file gives the span start.
    pub at: &'a str,
    detail: Option<Box<Detail>>,
}

#[derive(Clone, Debug)]
struct Detail {
    /// Length in bytes of the offending text (at least one character is underlined).
    len: usize,
    msg: Cow<'static, str>,
    help: Option<String>,
    /// Recovery must skip to the end of the file (an unterminated block comment).
    to_eof: bool,
}

impl<'a> PErr<'a> {
    pub fn new(at: &'a str, len: usize, msg: impl Into<Cow<'static, str>>) -> PErr<'a> {
        PErr { at, detail: Some(Box::new(Detail { len, msg: msg.into(), help: None, to_eof: false })) }
    }
    /// A soft error: "unexpected ..." when it is ever shown.
    pub fn soft(at: &'a str) -> PErr<'a> {
        PErr { at, detail: None }
    }
    pub fn help(mut self, h: impl Into<String>) -> PErr<'a> {
        let at = self.at;
        let d = self.detail.get_or_insert_with(|| {
            Box::new(Detail {
                len: 0,
                msg: Cow::Owned(format!("unexpected {}", describe(at))),
                help: None,
                to_eof: false,
            })
        });
        d.help = Some(h.into());
        self
    }
    /// Marks the error as one after which nothing more of the file can be parsed.
    pub fn fatal(mut self) -> PErr<'a> {
        if let Some(d) = self.detail.as_mut() {
            d.to_eof = true;
        }
        self
    }
    pub fn len(&self) -> usize {
        self.detail.as_ref().map_or(0, |d| d.len)
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    pub fn is_fatal(&self) -> bool {
        self.detail.as_ref().is_some_and(|d| d.to_eof)
    }
    /// The message and the help line.
    pub fn into_parts(self) -> (Cow<'static, str>, Option<String>) {
        match self.detail {
            Some(d) => (d.msg, d.help),
            None => (Cow::Owned(format!("unexpected {}", describe(self.at))), None),
        }
    }
}

impl<'a> ParseError<&'a str> for PErr<'a> {
    fn from_error_kind(input: &'a str, _kind: ErrorKind) -> Self {
        PErr::soft(input)
    }
    fn append(_: &'a str, _: ErrorKind, other: Self) -> Self {
        other
    }
    /// Between two failed alternatives, the one that got further is more useful.
    fn or(self, other: Self) -> Self {
        if other.at.len() < self.at.len() { other } else { self }
    }
}

pub type PResult<'a, T> = IResult<&'a str, T, PErr<'a>>;

/// A hard error at `at` (no backtracking past it), underlining `len` bytes.
pub fn fail<'a, T>(at: &'a str, len: usize, msg: impl Into<Cow<'static, str>>) -> PResult<'a, T> {
    Err(nom::Err::Failure(PErr::new(at, len, msg)))
}

/// A hard "expected X, found Y" error at `at`.
pub fn expected<'a, T>(at: &'a str, what: &str) -> PResult<'a, T> {
    let len = token_len(at);
    fail(at, len, format!("expected {what}, found {}", describe(at)))
}

/// A soft error (an `alt` may try something else).
pub fn backtrack<'a, T>(at: &'a str) -> PResult<'a, T> {
    Err(nom::Err::Error(PErr::soft(at)))
}

/// Says what is at the start of `i`, for "found ..." in messages.
pub fn describe(i: &str) -> String {
    match i.chars().next() {
        None => "end of file".to_string(),
        Some('\n') | Some('\r') => "end of line".to_string(),
        Some(' ') | Some('\t') => "whitespace".to_string(),
        Some(c) if c.is_control() => format!("character {:?}", c),
        Some(_) => {
            let n = token_len(i);
            let tok: String = i[..n].chars().take(40).collect();
            if tok.len() < n { format!("'{tok}...'") } else { format!("'{tok}'") }
        }
    }
}

/// Source text quoted in a message, shortened to 40 characters: a number may be
/// megabytes long.
pub fn clip(text: &str) -> Cow<'_, str> {
    match text.char_indices().nth(40) {
        Some((k, _)) => Cow::Owned(format!("{}...", &text[..k])),
        None => Cow::Borrowed(text),
    }
}

/// Bytes of the token starting `i`: a run of name characters or one other character.
pub fn token_len(i: &str) -> usize {
    // Capped: it only sizes an underline, and a token may be megabytes long.
    let n = i.bytes().take(256).take_while(|&b| is_name_byte(b) || b == b'%').count();
    if n > 0 { n } else { i.chars().next().map_or(0, char::len_utf8) }
}

#[inline]
pub fn is_name_byte(b: u8) -> bool {
    CLASS[b as usize] & NAME != 0
}

/// Skips spaces, tabs, carriage returns and comments — not newlines, which end
/// statements. A block comment may span lines; an unterminated one is an error that
/// ends parsing (the rest of the file is inside it).
#[inline(always)]
pub fn ws(i: &str) -> PResult<'_, ()> {
    // Fast path, inlined into every caller: most calls find no whitespace at all.
    match i.as_bytes().first() {
        Some(b' ' | b'\t' | b'\r' | b'/') => ws_slow(i),
        _ => Ok((i, ())),
    }
}

#[inline(never)]
fn ws_slow(i: &str) -> PResult<'_, ()> {
    let b = i.as_bytes();
    let mut p = 0;
    loop {
        while p < b.len() && matches!(b[p], b' ' | b'\t' | b'\r') {
            p += 1;
        }
        if p + 1 >= b.len() || b[p] != b'/' {
            break;
        }
        match b[p + 1] {
            b'/' => p += memchr_nl(&b[p..]).unwrap_or(b.len() - p),
            b'*' => match i[p + 2..].find("*/") {
                Some(e) => p += e + 4,
                None => {
                    let e = PErr::new(&i[p..], 2, "unterminated block comment: expected '*/'").fatal();
                    return Err(nom::Err::Failure(e));
                }
            },
            _ => break,
        }
    }
    Ok((&i[p..], ()))
}

fn memchr_nl(b: &[u8]) -> Option<usize> {
    b.iter().position(|&c| c == b'\n')
}

/// Whitespace and comments, then the end of the statement: a newline (consumed)
/// or the end of the file.
#[inline]
pub fn eol<'a>(i: &'a str, what: &str) -> PResult<'a, ()> {
    let (i, ()) = ws(i)?;
    if i.is_empty() {
        return Ok((i, ()));
    }
    if let Some(r) = i.strip_prefix('\n') {
        return Ok((r, ()));
    }
    expected(i, what)
}

/// True at a newline or the end of input (after whitespace has been skipped).
#[inline]
pub fn at_eol(i: &str) -> bool {
    i.is_empty() || i.starts_with('\n')
}

/// Consumes `c` after optional whitespace, or fails hard saying it was expected.
#[inline]
pub fn need_char<'a>(i: &'a str, c: char, what: &str) -> PResult<'a, ()> {
    let (i, ()) = ws(i)?;
    match i.strip_prefix(c) {
        Some(r) => Ok((r, ())),
        None => expected(i, what),
    }
}

#[inline]
fn check_len<'a>(i: &'a str, n: &'a str) -> PResult<'a, &'a str> {
    if n.len() > limits::MAX_NAME_LEN {
        return fail(i, n.len(), format!("name is over the limit of {} bytes", limits::MAX_NAME_LEN));
    }
    Ok((&i[n.len()..], n))
}

/// Byte classes for the name scanners (a table lookup per byte on the hot path).
pub const NAME: u8 = 1; // [A-Za-z0-9_$]
pub const DOT: u8 = 2; // '.'
pub const DASH: u8 = 4; // '-'
pub const DOLLAR: u8 = 8; // '$'

static CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        if c.is_ascii_alphanumeric() || c == b'_' {
            t[b] = NAME;
        }
        b += 1;
    }
    t[b'$' as usize] = NAME | DOLLAR;
    t[b'.' as usize] = DOT;
    t[b'-' as usize] = DASH;
    t
};

/// Bytes at the start of `i` whose class is in `mask` (and not `$` unless `dollar`),
/// counting no further than one past the name-length limit (the caller reports the
/// overflow; a 10 MB name costs nothing more than a short one).
#[inline]
fn name_run(i: &str, mask: u8, dollar: bool) -> usize {
    let b = i.as_bytes();
    let lim = b.len().min(limits::MAX_NAME_LEN + 1);
    let mut n = 0;
    while n < lim {
        let c = CLASS[b[n] as usize];
        if c & mask == 0 || (!dollar && c & DOLLAR != 0) {
            break;
        }
        n += 1;
    }
    n
}

/// An identifier: `[A-Za-z_$][A-Za-z0-9_$.]*` (labels, symbols, functions, mnemonics).
#[inline]
pub fn ident(i: &str) -> PResult<'_, &str> {
    match i.as_bytes().first() {
        Some(b) if b.is_ascii_alphabetic() || *b == b'_' || *b == b'$' => {}
        _ => return backtrack(i),
    }
    let n = name_run(i, NAME | DOT, true);
    check_len(i, &i[..n])
}

/// A keyword or directive word: `[A-Za-z_][A-Za-z0-9_-]*` (`allow-reserved-smem`).
pub fn word(i: &str) -> PResult<'_, &str> {
    match i.as_bytes().first() {
        Some(b) if b.is_ascii_alphabetic() || *b == b'_' => {}
        _ => return backtrack(i),
    }
    let n = name_run(i, NAME | DASH, false);
    check_len(i, &i[..n])
}

/// A knob name: a word that may also contain dots (`radbg.LoopWeight`).
pub fn knob_name(i: &str) -> PResult<'_, &str> {
    match i.as_bytes().first() {
        Some(b) if b.is_ascii_alphabetic() || *b == b'_' => {}
        _ => return backtrack(i),
    }
    let n = name_run(i, NAME | DASH | DOT, false);
    check_len(i, &i[..n])
}

/// A register word without dots (`R40` in `R40..R47`, `UR3`, `PT`).
#[inline]
pub fn reg_word(i: &str) -> PResult<'_, &str> {
    match i.as_bytes().first() {
        Some(b) if b.is_ascii_alphabetic() => {}
        _ => return backtrack(i),
    }
    let n = name_run(i, NAME, false);
    check_len(i, &i[..n])
}

/// A physical register of one file (`R20` for a regular return address).
pub fn phys_in(i: &str, file: RegFile) -> PResult<'_, u16> {
    let what =
        || format!("a{} {} register ({})", if file == RegFile::R { "n" } else { "" }, file.prefix(), file_range(file));
    let (r, w) = match reg_word(i) {
        Ok(x) => x,
        Err(nom::Err::Error(_)) => return expected(i, &what()),
        Err(e) => return Err(e),
    };
    match phys_reg(w) {
        Some(Ok(p)) if p.file == file => Ok((r, p.index)),
        Some(Err(msg)) => fail(i, w.len(), msg),
        _ => expected(i, &what()),
    }
}

/// A virtual register name `%[A-Za-z0-9_$]+`, returned with its `%`.
#[inline]
pub fn vreg_name(i: &str) -> PResult<'_, &str> {
    if !i.starts_with('%') {
        return backtrack(i);
    }
    let n = 1 + name_run(&i[1..], NAME, true);
    if n == 1 {
        return fail(i, 1, format!("expected a register name after '%', found {}", describe(&i[1..])));
    }
    check_len(i, &i[..n])
}

/// An unsigned decimal or `0x` hexadecimal integer, at most `max`; `what` names the
/// value in the limit message ("alignment 99999 exceeds the limit of 65536").
pub fn uint<'a>(i: &'a str, max: u64, what: &str) -> PResult<'a, u64> {
    let (rest, (v, text)) = uint_any(i)?;
    match v {
        Some(v) if v <= max => Ok((rest, v)),
        _ => fail(i, text.len(), format!("{what} {} exceeds the limit of {max}", clip(text))),
    }
}

/// An unsigned decimal or hexadecimal integer and its text; `None` when it does not
/// fit 64 bits. Fails softly when `i` does not start with a digit.
pub fn uint_any(i: &str) -> PResult<'_, (Option<u64>, &str)> {
    let b = i.as_bytes();
    let hex = b.len() >= 2 && b[0] == b'0' && (b[1] == b'x' || b[1] == b'X');
    let start = if hex { 2 } else { 0 };
    // More than 64 digits never fit 64 bits: stop counting there (numbers may be
    // megabytes long) and report the overflow.
    const MAX_DIGITS: usize = 64;
    let digit = |c: &u8| if hex { c.is_ascii_hexdigit() } else { c.is_ascii_digit() };
    let ndigits = b[start..].iter().take(MAX_DIGITS + 1).take_while(|c| digit(c)).count();
    if ndigits == 0 {
        return if hex { expected(&i[2..], "hexadecimal digits after '0x'") } else { backtrack(i) };
    }
    let end = start + ndigits;
    let (text, rest) = i.split_at(end);
    if ndigits > MAX_DIGITS {
        return Ok((rest, (None, text)));
    }
    if rest.as_bytes().first().is_some_and(|&c| is_name_byte(c) || c == b'.') {
        let bad = &rest[..token_len(rest)];
        return fail(rest, bad.len(), format!("unexpected '{}' after the number {}", clip(bad), clip(text)));
    }
    let radix = if hex { 16 } else { 10 };
    let value = b[start..end].iter().try_fold(0u64, |acc, &d| {
        let v = (d as char).to_digit(16).unwrap_or(0) as u64;
        acc.checked_mul(radix)?.checked_add(v)
    });
    Ok((rest, (value, text)))
}

/// A number in an operand position.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Num {
    Int(i64),
    /// f32 bits.
    Float(u32),
}

/// Smallest and largest integer immediates: they must fit 32 bits, signed or unsigned.
pub const IMM_MIN: i64 = -(1 << 31);
pub const IMM_MAX: i64 = (1 << 32) - 1;

/// An immediate: `-?` then `0f` + 8 hex digits (f32 bits), `0x` hex, or decimal
/// with an optional fraction and exponent (a float). Integers must fit 32 bits.
pub fn number<'a>(i: &'a str, what: &str) -> PResult<'a, Num> {
    let neg = i.starts_with('-');
    let body = if neg { &i[1..] } else { i };
    if !body.as_bytes().first().is_some_and(u8::is_ascii_digit) {
        return backtrack(i);
    }
    let b = body.as_bytes();
    if b.len() >= 2 && b[0] == b'0' && (b[1] == b'f' || b[1] == b'F') {
        let hex = body[2..].bytes().take_while(u8::is_ascii_hexdigit).count();
        let end = 2 + hex;
        let next_bad = body.as_bytes().get(end).is_some_and(|&c| is_name_byte(c) || c == b'.');
        if hex != 8 || next_bad {
            let n = end + body[end..].bytes().take_while(|&c| is_name_byte(c)).count();
            return fail(i, n + neg as usize, "expected exactly 8 hexadecimal digits after '0f' (f32 bits)");
        }
        if neg {
            return fail(i, end + 1, "a '0f' float immediate carries its own sign bit: write it without '-'");
        }
        let bits = u32::from_str_radix(&body[2..end], 16).unwrap_or(0);
        return Ok((&body[end..], Num::Float(bits)));
    }
    let is_hex = b.len() >= 2 && b[0] == b'0' && (b[1] == b'x' || b[1] == b'X');
    if !is_hex {
        // Decimal: a fraction or exponent makes it a float.
        let int_len = b.iter().take_while(|c| c.is_ascii_digit()).count();
        let mut end = int_len;
        let mut float = false;
        if b.get(end) == Some(&b'.') && b.get(end + 1).is_some_and(u8::is_ascii_digit) {
            end += 1 + b[end + 1..].iter().take_while(|c| c.is_ascii_digit()).count();
            float = true;
        }
        if matches!(b.get(end), Some(b'e' | b'E')) {
            let mut e = end + 1;
            if matches!(b.get(e), Some(b'+' | b'-')) {
                e += 1;
            }
            let d = b[e.min(b.len())..].iter().take_while(|c| c.is_ascii_digit()).count();
            if d > 0 {
                end = e + d;
                float = true;
            }
        }
        if float {
            let text = &i[..end + neg as usize];
            let rest = &body[end..];
            if rest.as_bytes().first().is_some_and(|&c| is_name_byte(c) || c == b'.') {
                let bad = &rest[..token_len(rest)];
                return fail(rest, bad.len(), format!("unexpected '{}' after the number {}", clip(bad), clip(text)));
            }
            let v: f32 = text.parse().unwrap_or(f32::NAN);
            if !v.is_finite() {
                return fail(i, text.len(), format!("{what} {} is out of range for a 32-bit float", clip(text)));
            }
            return Ok((rest, Num::Float(v.to_bits())));
        }
    }
    let (rest, (v, t)) = uint_any(body)?;
    let Some(v) = v else {
        return fail(i, t.len() + neg as usize, int_range_msg(what, &i[..t.len() + neg as usize]));
    };
    let text = &i[..i.len() - rest.len()];
    let signed = if neg { -(v as i128) } else { v as i128 };
    if signed < IMM_MIN as i128 || signed > IMM_MAX as i128 {
        return fail(i, text.len(), int_range_msg(what, text));
    }
    Ok((rest, Num::Int(signed as i64)))
}

fn int_range_msg(what: &str, text: &str) -> String {
    format!("{what} {} does not fit in 32 bits (range {IMM_MIN} to {IMM_MAX})", clip(text))
}

/// Classifies a name as a physical register: `Some(Ok)` for `R5`, `RZ`, `UP1` ...,
/// `Some(Err(message))` for one outside its file (`R300`), `None` for other names.
pub fn phys_reg(name: &str) -> Option<Result<PhysReg, String>> {
    for file in RegFile::ALL {
        if file.zero_name() == Some(name) {
            return Some(Ok(PhysReg { file, index: file.zero_register().unwrap_or(0) }));
        }
    }
    // Longest prefixes first so `UR3` is not read as `U` + `R3`.
    const ORDER: [RegFile; 7] = [RegFile::UR, RegFile::UP, RegFile::UB, RegFile::R, RegFile::P, RegFile::T, RegFile::B];
    for file in ORDER {
        let Some(digits) = name.strip_prefix(file.prefix()) else { continue };
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        let n: u64 = if digits.len() > 6 { u64::MAX } else { digits.parse().unwrap_or(u64::MAX) };
        if n >= file.arch_size() as u64 {
            return Some(Err(format!("register {name} is outside the {} file ({})", file.prefix(), file_range(file))));
        }
        return Some(Ok(PhysReg { file, index: n as u16 }));
    }
    None
}

/// The registers a file has, for messages: "R0 to R254 and RZ".
pub fn file_range(file: RegFile) -> String {
    let p = file.prefix();
    match file.zero_register() {
        Some(z) => format!("{p}0 to {p}{} and {}", z - 1, file.zero_name().unwrap_or("")),
        None => format!("{p}0 to {p}{}", file.arch_size() - 1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers() {
        let n = |s| number(s, "immediate").map_err(|e| e.to_string());
        assert_eq!(n("16,").unwrap(), (",", Num::Int(16)));
        assert_eq!(n("-0x10]").unwrap(), ("]", Num::Int(-16)));
        assert_eq!(n("0xFFFFFFFF").unwrap().1, Num::Int(0xFFFF_FFFF));
        assert_eq!(n("1.5").unwrap().1, Num::Float(1.5f32.to_bits()));
        assert_eq!(n("2e3").unwrap().1, Num::Float(2000f32.to_bits()));
        assert_eq!(n("0f3F800000").unwrap().1, Num::Float(0x3F80_0000));
        assert!(n("0x10000000000").is_err());
        assert!(n("99999999999999999999999999").is_err());
        assert!(n("-2147483649").is_err());
        assert!(n("1e99").is_err());
        assert!(n("0f3F80").is_err());
        assert!(n("12abc").is_err());
        assert!(n("abc").is_err());
    }

    #[test]
    fn physical_registers() {
        assert_eq!(phys_reg("R5"), Some(Ok(PhysReg { file: RegFile::R, index: 5 })));
        assert_eq!(phys_reg("UR3"), Some(Ok(PhysReg { file: RegFile::UR, index: 3 })));
        assert_eq!(phys_reg("UPT"), Some(Ok(PhysReg { file: RegFile::UP, index: 7 })));
        assert_eq!(phys_reg("UB0"), Some(Ok(PhysReg { file: RegFile::UB, index: 0 })));
        assert_eq!(phys_reg("R2P"), None);
        assert_eq!(phys_reg("BB0"), None);
        assert_eq!(phys_reg("R300"), Some(Err("register R300 is outside the R file (R0 to R254 and RZ)".to_string())));
        assert!(phys_reg("P99999999999").unwrap().is_err());
    }

    #[test]
    fn comments_and_whitespace() {
        assert_eq!(ws("  /* a\n b */ // c\nx").unwrap().0, "\nx");
        assert!(ws(" /* open").is_err());
    }
}
