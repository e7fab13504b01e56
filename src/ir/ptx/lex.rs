//! PTX tokens as nom parsers: white space and comments, identifiers, literals of
//! every form, constant expressions, strings.
//!
//! Owns: the lexical grammar of PTX and the error type every PTX parser shares.
//! Must not know: statements or declarations (that is `parse`).
//!
//! Every parser takes the remaining input and returns the rest; positions are byte
//! offsets computed from the length of the remaining input, so no token carries a
//! line number until a diagnostic needs one.

use std::borrow::Cow;

use nom::IResult;
use nom::error::{ErrorKind, ParseError};

use super::ast::Lit;

/// The error of every PTX parser: where it happened and what was expected there.
#[derive(Clone, Debug, PartialEq)]
pub struct PErr<'a> {
    /// The remaining input at the error.
    pub at: &'a str,
    pub expected: Cow<'static, str>,
}

impl<'a> ParseError<&'a str> for PErr<'a> {
    fn from_error_kind(input: &'a str, kind: ErrorKind) -> Self {
        PErr { at: input, expected: Cow::Owned(kind.description().to_string()) }
    }
    fn append(_: &'a str, _: ErrorKind, other: Self) -> Self {
        other
    }
}

pub type PResult<'a, T> = IResult<&'a str, T, PErr<'a>>;

/// A recoverable error: "expected X" at `at` (alternatives may still match).
pub fn backtrack<T>(at: &str, expected: impl Into<Cow<'static, str>>) -> PResult<'_, T> {
    Err(nom::Err::Error(PErr { at, expected: expected.into() }))
}

/// A committed error: the input is wrong here, stop.
pub fn fail<T>(at: &str, expected: impl Into<Cow<'static, str>>) -> PResult<'_, T> {
    Err(nom::Err::Failure(PErr { at, expected: expected.into() }))
}

/// Turns a recoverable error into a committed one with a better message.
pub fn cut_with<'a, T>(r: PResult<'a, T>, expected: &'static str) -> PResult<'a, T> {
    match r {
        Err(nom::Err::Error(e)) => Err(nom::Err::Failure(PErr { at: e.at, expected: Cow::Borrowed(expected) })),
        other => other,
    }
}

/// Deepest nesting of parentheses in constant expressions (and of `{ }` scopes and
/// operands, see `parse`): deeper input is an error, so no input can exhaust the stack.
/// One limit for both front ends, in `ir::limits`.
pub use crate::ir::limits::MAX_DEPTH;

/// Skips white space, `//` line comments, `/* */` block comments and `@@DWARF` lines.
pub fn ws(mut i: &str) -> PResult<'_, ()> {
    loop {
        let b = i.as_bytes();
        let mut k = 0;
        while k < b.len() && matches!(b[k], b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c) {
            k += 1;
        }
        i = &i[k..];
        // `//` comments, and the `@@DWARF` lines of Open64-era PTX (debug data).
        if i.starts_with("//") || i.starts_with("@@DWARF") {
            let end = i.find('\n').unwrap_or(i.len());
            i = &i[end..];
        } else if i.starts_with("/*") {
            match i[2..].find("*/") {
                Some(e) => i = &i[2 + e + 2..],
                None => return fail(i, "the end of this block comment ('*/')"),
            }
        } else {
            return Ok((i, ()));
        }
    }
}

/// Skips to the end of the current line (for `.loc` and `.file`, which have no `;`).
pub fn rest_of_line(i: &str) -> &str {
    match i.find('\n') {
        Some(e) => &i[e..],
        None => "",
    }
}

fn is_ident_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_' || c == '$' || c == '%'
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '$'
}

/// An identifier: `[A-Za-z_$%][A-Za-z0-9_$]*` (PTX requires at least one character
/// after a leading `_`, `$` or `%`; a lone `_` is the sink and handled by callers).
pub fn ident(i: &str) -> PResult<'_, &str> {
    let Some(c) = i.chars().next() else { return backtrack(i, "an identifier") };
    if !is_ident_start(c) {
        return backtrack(i, "an identifier");
    }
    let n = 1 + i[1..].find(|c: char| !is_ident_char(c)).unwrap_or(i.len() - 1);
    if n == 1 && c == '%' {
        return backtrack(i, "an identifier");
    }
    Ok((&i[n..], &i[..n]))
}

/// A directive or modifier word after a dot: `[A-Za-z0-9_]+` with `::` joins
/// (`shared::cta`, `L2::cache_hint`, `m16n8k16`).
pub fn mod_word(i: &str) -> PResult<'_, &str> {
    let b = i.as_bytes();
    let mut k = 0;
    loop {
        while k < b.len() && (b[k].is_ascii_alphanumeric() || b[k] == b'_') {
            k += 1;
        }
        if k + 2 < b.len() && b[k] == b':' && b[k + 1] == b':' && (b[k + 2].is_ascii_alphanumeric() || b[k + 2] == b'_')
        {
            k += 2;
            continue;
        }
        break;
    }
    if k == 0 { backtrack(i, "a word") } else { Ok((&i[k..], &i[..k])) }
}

/// A double-quoted string (contents returned without quotes, escapes kept).
pub fn string(i: &str) -> PResult<'_, &str> {
    let Some(rest) = i.strip_prefix('"') else { return backtrack(i, "a string") };
    let b = rest.as_bytes();
    let mut k = 0;
    while k < b.len() {
        match b[k] {
            b'"' => return Ok((&rest[k + 1..], &rest[..k])),
            b'\\' => k += 2,
            b'\n' => break,
            _ => k += 1,
        }
    }
    fail(i, "the closing '\"' of this string on the same line")
}

/// An unsigned decimal integer that fits in u32 (versions, counts, sizes).
pub fn uint(i: &str) -> PResult<'_, u32> {
    match int_literal(i) {
        Ok((rest, v)) => match u32::try_from(v) {
            Ok(v) => Ok((rest, v)),
            Err(_) => fail(i, "a number between 0 and 4294967295"),
        },
        Err(nom::Err::Error(_)) => backtrack(i, "a number"),
        Err(e) => Err(e),
    }
}

/// An unsigned integer literal of any base, as u64-range i128.
fn int_literal(i: &str) -> PResult<'_, i128> {
    let b = i.as_bytes();
    if b.is_empty() || !b[0].is_ascii_digit() {
        return backtrack(i, "a number");
    }
    let (radix, start) = if b.len() > 1 && b[0] == b'0' {
        match b[1] {
            b'x' | b'X' => (16, 2),
            b'b' | b'B' => (2, 2),
            b'0'..=b'7' => (8, 1),
            _ => (10, 0),
        }
    } else {
        (10, 0)
    };
    let digits_end = start + i[start..].find(|c: char| !c.is_ascii_alphanumeric()).unwrap_or(i.len() - start);
    let mut digits = &i[start..digits_end];
    if digits.ends_with(['U', 'u']) {
        digits = &digits[..digits.len() - 1];
    }
    if digits.is_empty() {
        return fail(i, "digits after the base prefix");
    }
    let mut v: i128 = 0;
    for c in digits.chars() {
        let Some(d) = c.to_digit(radix) else {
            return fail(i, format!("a base-{radix} integer literal (bad digit '{c}')"));
        };
        v = v * i128::from(radix) + i128::from(d);
        if v > i128::from(u64::MAX) {
            return fail(i, "an integer literal that fits in 64 bits");
        }
    }
    Ok((&i[digits_end..], v))
}

/// A literal: `0fXXXXXXXX`, `0dXXXXXXXXXXXXXXXX`, a decimal float, or an integer of
/// any base (no sign; signs belong to constant expressions).
pub fn literal(i: &str) -> PResult<'_, Lit> {
    let b = i.as_bytes();
    if b.len() >= 2 && b[0] == b'0' && matches!(b[1], b'f' | b'F' | b'd' | b'D') {
        let n = if matches!(b[1], b'f' | b'F') { 8 } else { 16 };
        let hex = &i[2..];
        let len = hex.find(|c: char| !c.is_ascii_hexdigit()).unwrap_or(hex.len());
        if len != n || hex[len..].starts_with(|c: char| is_ident_char(c)) {
            let what = if n == 8 { "exactly 8 hex digits after '0f'" } else { "exactly 16 hex digits after '0d'" };
            return fail(i, what);
        }
        let v = u64::from_str_radix(&hex[..n], 16).unwrap_or(0);
        let lit = if n == 8 { Lit::F32(v as u32) } else { Lit::F64(v) };
        return Ok((&hex[n..], lit));
    }
    // A decimal float: digits '.' digits? exponent? | digits exponent.
    let int_end = i.find(|c: char| !c.is_ascii_digit()).unwrap_or(i.len());
    if int_end > 0 {
        let rest = &i[int_end..];
        let mut k = int_end;
        let mut is_float = false;
        if rest.starts_with('.') && !rest[1..].starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
            is_float = true;
            k += 1;
            k += i[k..].find(|c: char| !c.is_ascii_digit()).unwrap_or(i.len() - k);
        }
        if i[k..].starts_with(['e', 'E']) && (is_float || i.as_bytes()[0] != b'0' || int_end == 1) {
            let mut e = k + 1;
            if i[e..].starts_with(['+', '-']) {
                e += 1;
            }
            let ed = i[e..].find(|c: char| !c.is_ascii_digit()).unwrap_or(i.len() - e);
            if ed > 0 {
                is_float = true;
                k = e + ed;
            }
        }
        if is_float {
            return match i[..k].parse::<f64>() {
                Ok(v) => Ok((&i[k..], Lit::Float(v))),
                Err(_) => fail(i, "a floating-point literal"),
            };
        }
    }
    let (rest, v) = int_literal(i)?;
    Ok((rest, Lit::Int(v as u64 as i64)))
}

/// `WARP_SZ`, the one predefined PTX constant.
const WARP_SZ: i64 = 32;

/// A constant expression (C operators and precedence), evaluated in 64-bit wrapping
/// arithmetic. A lone floating-point literal is returned as is; floats do not combine.
pub fn const_expr(i: &str) -> PResult<'_, Lit> {
    // Fast path: a lone literal (nearly every immediate) skips the precedence climb.
    if i.starts_with(|c: char| c.is_ascii_digit()) {
        let (r, v) = literal(i)?;
        let (r2, ()) = ws(r)?;
        if r2.is_empty() || r2.starts_with([',', ';', ']', '}', ')']) {
            return Ok((r, v));
        }
    }
    expr_bin(i, 0, 0)
}

/// Binary operators by precedence level (lowest first).
const LEVELS: &[&[&str]] = &[
    &["||"],
    &["&&"],
    &["|"],
    &["^"],
    &["&"],
    &["==", "!="],
    &["<=", ">=", "<", ">"],
    &["<<", ">>"],
    &["+", "-"],
    &["*", "/", "%"],
];

fn expr_bin(i: &str, level: usize, depth: u32) -> PResult<'_, Lit> {
    if level == LEVELS.len() {
        return expr_unary(i, depth);
    }
    let (mut i, mut lhs) = expr_bin(i, level + 1, depth)?;
    loop {
        let (j, ()) = ws(i)?;
        let Some(op) = LEVELS[level].iter().find(|op| {
            j.starts_with(**op)
                // `|` must not swallow `||`, `&` not `&&`, `<` not `<<`.
                && !(op.len() == 1 && j[1..].starts_with(**op) && matches!(**op, "|" | "&" | "<" | ">"))
                && !(**op == "<" && j.starts_with("<="))
                && !(**op == ">" && j.starts_with(">="))
        }) else {
            return Ok((i, lhs));
        };
        let (j, ()) = ws(&j[op.len()..])?;
        let (j, rhs) = cut_with(expr_bin(j, level + 1, depth), "an operand after the operator")?;
        let (Lit::Int(a), Lit::Int(b)) = (lhs, rhs) else {
            return fail(i, "integer operands (floating-point literals cannot be combined)");
        };
        lhs = Lit::Int(match *op {
            "||" => i64::from(a != 0 || b != 0),
            "&&" => i64::from(a != 0 && b != 0),
            "|" => a | b,
            "^" => a ^ b,
            "&" => a & b,
            "==" => i64::from(a == b),
            "!=" => i64::from(a != b),
            "<=" => i64::from(a <= b),
            ">=" => i64::from(a >= b),
            "<" => i64::from(a < b),
            ">" => i64::from(a > b),
            "<<" => a.wrapping_shl(b as u32 & 63),
            ">>" => a.wrapping_shr(b as u32 & 63),
            "+" => a.wrapping_add(b),
            "-" => a.wrapping_sub(b),
            "*" => a.wrapping_mul(b),
            "/" | "%" if b == 0 => return fail(j, "a non-zero divisor"),
            "/" => a.wrapping_div(b),
            _ => a.wrapping_rem(b),
        });
        i = j;
    }
}

fn expr_unary(i: &str, depth: u32) -> PResult<'_, Lit> {
    if depth > MAX_DEPTH {
        return fail(i, "a less deeply nested expression");
    }
    let Some(c) = i.chars().next() else { return backtrack(i, "an expression") };
    match c {
        '-' | '~' | '!' | '+' => {
            let (j, ()) = ws(&i[1..])?;
            let (j, v) = cut_with(expr_unary(j, depth + 1), "an operand after the unary operator")?;
            match (c, v) {
                ('+', v) => Ok((j, v)),
                ('-', Lit::Int(a)) => Ok((j, Lit::Int(a.wrapping_neg()))),
                ('-', Lit::Float(f)) => Ok((j, Lit::Float(-f))),
                ('-', Lit::F32(b)) => Ok((j, Lit::F32(b ^ 0x8000_0000))),
                ('-', Lit::F64(b)) => Ok((j, Lit::F64(b ^ (1 << 63)))),
                ('~', Lit::Int(a)) => Ok((j, Lit::Int(!a))),
                ('!', Lit::Int(a)) => Ok((j, Lit::Int(i64::from(a == 0)))),
                _ => fail(i, "an integer operand"),
            }
        }
        '(' => {
            let (j, ()) = ws(&i[1..])?;
            let (j, v) = cut_with(expr_bin(j, 0, depth + 1), "an expression")?;
            let (j, ()) = ws(j)?;
            match j.strip_prefix(')') {
                Some(j) => Ok((j, v)),
                None => fail(j, "')'"),
            }
        }
        _ if c.is_ascii_digit() => literal(i),
        _ if i.starts_with("WARP_SZ") && !i[7..].starts_with(is_ident_char) => Ok((&i[7..], Lit::Int(WARP_SZ))),
        _ => backtrack(i, "a constant"),
    }
}

/// Whether the input starts with what can only be a constant expression.
pub fn starts_const(i: &str) -> bool {
    i.starts_with(|c: char| c.is_ascii_digit() || matches!(c, '-' | '~' | '(' | '+'))
        || (i.starts_with("WARP_SZ") && !i[7..].starts_with(is_ident_char))
}

/// A single character token, after white space.
pub fn sym(c: char) -> impl Fn(&str) -> PResult<'_, ()> {
    move |i: &str| {
        let (i, ()) = ws(i)?;
        match i.strip_prefix(c) {
            Some(r) => Ok((r, ())),
            None => backtrack(i, format!("'{c}'")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lit(s: &str) -> Result<Lit, String> {
        match const_expr(s) {
            Ok(("", v)) => Ok(v),
            Ok((rest, _)) => Err(format!("trailing '{rest}'")),
            Err(nom::Err::Error(e) | nom::Err::Failure(e)) => Err(format!("expected {}", e.expected)),
            Err(nom::Err::Incomplete(_)) => Err("incomplete".into()),
        }
    }

    #[test]
    fn literals_of_every_form() {
        let cases: &[(&str, Lit)] = &[
            ("42", Lit::Int(42)),
            ("0", Lit::Int(0)),
            ("0x1F", Lit::Int(31)),
            ("0XffU", Lit::Int(255)),
            ("017", Lit::Int(15)),
            ("0b101", Lit::Int(5)),
            ("-8", Lit::Int(-8)),
            ("0f3F800000", Lit::F32(0x3F80_0000)),
            ("0d3FF0000000000000", Lit::F64(0x3FF0_0000_0000_0000)),
            ("-0f3F800000", Lit::F32(0xBF80_0000)),
            ("1.5", Lit::Float(1.5)),
            ("2.5e3", Lit::Float(2500.0)),
            ("1e3", Lit::Float(1000.0)),
            ("0xFFFFFFFFFFFFFFFF", Lit::Int(-1)),
            ("(1 << 4) | 3", Lit::Int(19)),
            ("2 + 3 * 4", Lit::Int(14)),
            ("~0", Lit::Int(-1)),
            ("WARP_SZ - 1", Lit::Int(31)),
            ("10 % 4 == 2 && 1", Lit::Int(1)),
            ("1 < 2", Lit::Int(1)),
            ("8 >> 1", Lit::Int(4)),
        ];
        for (s, want) in cases {
            assert_eq!(lit(s), Ok(*want), "{s}");
        }
    }

    #[test]
    fn bad_literals_are_errors() {
        for (s, msg) in [
            ("0f3F80", "exactly 8 hex digits after '0f'"),
            ("0x", "digits after the base prefix"),
            ("019", "a base-8 integer literal (bad digit '9')"),
            ("0x10000000000000000", "an integer literal that fits in 64 bits"),
            ("1/0", "a non-zero divisor"),
            ("(1", "')'"),
            ("1.5 + 1", "integer operands (floating-point literals cannot be combined)"),
        ] {
            assert_eq!(lit(s), Err(format!("expected {msg}")), "{s}");
        }
        let deep = "(".repeat(200) + "1" + &")".repeat(200);
        assert_eq!(lit(&deep), Err("expected a less deeply nested expression".into()));
    }

    #[test]
    fn identifiers_and_words() {
        assert_eq!(ident("%r12, x"), Ok((", x", "%r12")));
        assert_eq!(ident("$L__BB0_1:"), Ok((":", "$L__BB0_1")));
        assert!(ident("% x").is_err());
        assert_eq!(mod_word("shared::cta.u32"), Ok((".u32", "shared::cta")));
        assert_eq!(mod_word("L2::128B "), Ok((" ", "L2::128B")));
        assert_eq!(ws("  // c\n /* x */ y"), Ok(("y", ())));
        assert!(ws("/* open").is_err());
        assert_eq!(string("\"a\\\"b\" x"), Ok((" x", "a\\\"b")));
    }
}
