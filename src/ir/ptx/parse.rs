//! The PTX parser (nom 8): module directives, declarations, functions, statements
//! and operands, into the borrowed syntax tree of `ast`.
//!
//! Owns: the module-level grammar of PTX as ptxas 13.0 accepts it, from ISA 1.x
//! (Open64 output with `$r1` names, `.loc`/`.file`, prototypes without `;`) to
//! tensor-core PTX. Must not know: what instructions mean or how names resolve (that
//! is `lower`). DWARF `.section`s are skipped with their braces balanced.
//!
//! Limits keep any input from exhausting the stack or memory: scopes and constant
//! expressions nest at most [`MAX_DEPTH`] deep, an instruction has at most
//! [`MAX_OPERANDS`] operands, a vector at most [`MAX_VECTOR`] elements.

use std::borrow::Cow;

use super::ast::*;
use super::lex::*;

/// Most operands of one instruction.
pub const MAX_OPERANDS: usize = 512;
/// Most elements of one `{ }` vector operand (wgmma accumulators reach 256).
pub const MAX_VECTOR: usize = 512;

/// A parse error: the byte offset where it happened and what was expected there.
#[derive(Clone, Debug, PartialEq)]
pub struct SyntaxError {
    pub offset: usize,
    pub expected: String,
}

/// Parses a whole PTX file.
pub fn parse_module(src: &str) -> Result<PtxModule<'_>, SyntaxError> {
    let mut p = Parser { src, skeleton: false };
    syntax_error(src, p.module(src))
}

/// Parses a whole PTX file but keeps no function body: each is parsed (so a syntax
/// error is found where `parse_module` finds it) and dropped, `Some(vec![])` left in
/// its place with its `open` position, for `parse_body` to read again when its turn
/// comes. A file of thousands of functions is held as its headers (issue 25: the whole
/// syntax tree is ten times the text).
pub fn parse_skeleton(src: &str) -> Result<PtxModule<'_>, SyntaxError> {
    let mut p = Parser { src, skeleton: true };
    syntax_error(src, p.module(src))
}

/// The body of the function whose `{` is at `open` in `src` (from `parse_skeleton`).
pub fn parse_body(src: &str, open: Pos) -> Result<Vec<crate::ir::ptx::ast::Stmt<'_>>, SyntaxError> {
    let p = Parser { src, skeleton: false };
    let at = src.get(open as usize + 1..).unwrap_or("");
    syntax_error(src, p.body(at, 1).map(|(_, b)| b))
}

fn syntax_error<T>(src: &str, r: Result<T, nom::Err<PErr<'_>>>) -> Result<T, SyntaxError> {
    match r {
        Ok(m) => Ok(m),
        Err(nom::Err::Error(e) | nom::Err::Failure(e)) => {
            Err(SyntaxError { offset: src.len() - e.at.len(), expected: e.expected.into_owned() })
        }
        Err(nom::Err::Incomplete(_)) => Err(SyntaxError { offset: src.len(), expected: "more input".into() }),
    }
}

pub(super) struct Parser<'a> {
    pub(super) src: &'a str,
    /// Drop each function body once parsed (`parse_skeleton`).
    skeleton: bool,
}

/// Linkage directives in front of a function or variable.
#[derive(Default)]
struct Linkage {
    external: bool,
}

impl<'a> Parser<'a> {
    pub(super) fn pos(&self, i: &str) -> Pos {
        (self.src.len() - i.len()) as Pos
    }

    fn module(&mut self, src: &'a str) -> Result<PtxModule<'a>, nom::Err<PErr<'a>>> {
        if src.len() >= u32::MAX as usize {
            return fail(src, "a file smaller than 4 GiB").map(|(_, ())| PtxModule::default());
        }
        let mut m = PtxModule::default();
        let mut i = src;
        let mut link = Linkage::default();
        loop {
            i = ws(i)?.0;
            if i.is_empty() {
                if link.external {
                    return fail(i, "a declaration after the linkage directive").map(|(_, ())| m);
                }
                return Ok(m);
            }
            let Some(d) = i.strip_prefix('.') else {
                return fail(i, "a directive (.version, .target, .entry, .func, a variable declaration ...)")
                    .map(|(_, ())| m);
            };
            let at = i;
            let (rest, word) = cut_with(mod_word(d), "a directive name after '.'")?;
            i = match word {
                "version" => {
                    let (r, ()) = ws(rest)?;
                    let (r, major) = cut_with(uint(r), "a version number like 9.0")?;
                    let r = r.strip_prefix('.').ok_or_else(|| nom::Err::Failure(perr(r, "'.' in the version")))?;
                    let (r, minor) = cut_with(uint(r), "a minor version number")?;
                    m.version = Some((major, minor));
                    r
                }
                "target" => {
                    let mut r = rest;
                    loop {
                        let (r1, ()) = ws(r)?;
                        let (r2, t) = cut_with(mod_word(r1), "a target name like sm_90")?;
                        m.targets.push((t, self.pos(r1)));
                        r = r2;
                        match sym(',')(r) {
                            Ok((r2, ())) => r = r2,
                            Err(_) => break,
                        }
                    }
                    r
                }
                "address_size" => {
                    let (r, ()) = ws(rest)?;
                    let (r, n) = cut_with(uint(r), "32 or 64")?;
                    if n != 32 && n != 64 {
                        return fail(at, "'.address_size 32' or '.address_size 64'").map(|(_, ())| m);
                    }
                    m.address_size = Some(n);
                    r
                }
                "file" | "loc" => rest_of_line(rest),
                "section" => self.section(rest)?.0,
                "pragma" => {
                    let (r, strings) = self.pragma(rest)?;
                    m.pragmas.extend(strings);
                    r
                }
                "alias" => skip_statement(rest)?.0,
                "visible" | "weak" | "common" => {
                    i = rest;
                    continue;
                }
                "extern" => {
                    link.external = true;
                    i = rest;
                    continue;
                }
                "entry" | "func" => {
                    let kind = if word == "entry" { FuncKind::Entry } else { FuncKind::Func };
                    let (r, f) = self.function(at, rest, kind, link.external)?;
                    m.items.push(Item::Func(Box::new(f)));
                    r
                }
                _ => match StateSpace::from_name(word) {
                    Some(space) if space != StateSpace::Reg && space != StateSpace::Sreg => {
                        let (r, mut v) = self.var_decl(at, rest, space)?;
                        v.external = link.external;
                        m.items.push(Item::Var(v));
                        r
                    }
                    _ => {
                        return fail(at, format!("a module-level directive (unknown directive '.{word}' here)"))
                            .map(|(_, ())| m);
                    }
                },
            };
            link = Linkage::default();
        }
    }

    /// `.section NAME { ... }`: DWARF data, skipped with braces and strings balanced.
    pub(super) fn section(&self, i: &'a str) -> PResult<'a, ()> {
        let start = i;
        let brace = i.find('{').ok_or_else(|| nom::Err::Failure(perr(start, "'{' opening the section")))?;
        let mut k = brace + 1;
        let b = i.as_bytes();
        let mut depth = 1u32;
        while k < b.len() {
            match b[k] {
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        return Ok((&i[k + 1..], ()));
                    }
                }
                b'"' => {
                    let (r, _) = string(&i[k..])?;
                    k = i.len() - r.len();
                    continue;
                }
                b'/' if b.get(k + 1) == Some(&b'/') || b.get(k + 1) == Some(&b'*') => {
                    let (r, ()) = ws(&i[k..])?;
                    k = i.len() - r.len();
                    continue;
                }
                _ => {}
            }
            k += 1;
        }
        fail(start, "'}' closing this section")
    }

    /// `.pragma "a", "b";`.
    pub(super) fn pragma(&self, i: &'a str) -> PResult<'a, Vec<&'a str>> {
        let mut i = i;
        let mut strings = Vec::new();
        loop {
            let (r, ()) = ws(i)?;
            let (r, s) = cut_with(string(r), "a string after .pragma")?;
            strings.push(s);
            i = r;
            match sym(',')(i) {
                Ok((r, ())) => i = r,
                Err(_) => break,
            }
        }
        let (i, ()) = cut_with(sym(';')(i), "';' after the pragma")?;
        Ok((i, strings))
    }

    fn function(&self, at: &'a str, i: &'a str, kind: FuncKind, external: bool) -> PResult<'a, FuncDecl<'a>> {
        let pos = self.pos(at);
        let (mut i, ()) = ws(i)?;
        let mut rets = Vec::new();
        if kind == FuncKind::Func && i.starts_with('(') {
            let (r, ps) = self.param_list(i)?;
            rets = ps;
            i = ws(r)?.0;
        }
        let (r, name) = cut_with(ident(i), "the function name")?;
        let name_pos = self.pos(i);
        let (mut i, ()) = ws(r)?;
        let mut params = Vec::new();
        if i.starts_with('(') {
            let (r, ps) = self.param_list(i)?;
            params = ps;
            i = r;
        }
        let mut f = FuncDecl {
            pos,
            kind,
            name,
            name_pos,
            external,
            rets,
            params,
            maxnreg: None,
            maxntid: None,
            reqntid: None,
            minnctapersm: None,
            body: None,
            close: pos,
            open: pos,
            directives: Vec::new(),
            pragmas: Vec::new(),
        };
        // Performance directives, then a body, a ';', or nothing at all (PTX 1.x
        // prototypes end without a ';').
        loop {
            let (r, ()) = ws(i)?;
            i = r;
            if let Some(d) = i.strip_prefix('.') {
                let (r, word) = cut_with(mod_word(d), "a directive name after '.'")?;
                match word {
                    "maxntid"
                    | "reqntid"
                    | "maxnctapersm"
                    | "minnctapersm"
                    | "maxnreg"
                    | "maxclusterrank"
                    | "reqnctapercluster"
                    | "abi_preserve"
                    | "abi_preserve_control" => {
                        let (r, nums) = self.uint_list(r)?;
                        let name = match word {
                            "maxntid" => {
                                f.maxntid = Some(nums);
                                Some("maxntid")
                            }
                            "reqntid" => {
                                f.reqntid = Some(nums);
                                Some("reqntid")
                            }
                            "minnctapersm" => {
                                f.minnctapersm = nums.first().copied();
                                Some("minnctapersm")
                            }
                            "maxnreg" => {
                                f.maxnreg = nums.first().copied();
                                Some("maxnreg")
                            }
                            _ => None,
                        };
                        if let Some(name) = name {
                            f.directives.push((name, self.pos(i), (i.len() - r.len()) as u32));
                        }
                        i = r;
                    }
                    "noreturn" | "explicitcluster" | "blocksareclusters" => i = r,
                    "pragma" => {
                        let (r, strings) = self.pragma(r)?;
                        f.pragmas.extend(strings);
                        i = r;
                    }
                    _ => return Ok((i, f)),
                }
                continue;
            }
            if let Some(r) = i.strip_prefix(';') {
                return Ok((r, f));
            }
            if let Some(r) = i.strip_prefix('{') {
                f.open = self.pos(i);
                let (r, body) = self.body_halves(r, 1)?;
                f.body = Some(if self.skeleton { Vec::new() } else { body });
                f.close = self.pos(r).saturating_sub(1);
                return Ok((r, f));
            }
            // Nothing: a prototype that ends at the next directive or end of file.
            return Ok((i, f));
        }
    }

    fn uint_list(&self, i: &'a str) -> PResult<'a, Vec<u32>> {
        let mut out = Vec::new();
        let mut i = i;
        loop {
            let (r, ()) = ws(i)?;
            let (r, n) = cut_with(uint(r), "a number")?;
            out.push(n);
            i = r;
            if out.len() > 3 {
                return fail(i, "at most three numbers");
            }
            match sym(',')(i) {
                Ok((r, ())) => i = r,
                Err(_) => return Ok((i, out)),
            }
        }
    }

    /// `( param, param, ... )`.
    pub(super) fn param_list(&self, i: &'a str) -> PResult<'a, Vec<Param<'a>>> {
        let (mut i, ()) = sym('(')(i)?;
        let mut out = Vec::new();
        if let Ok((r, ())) = sym(')')(i) {
            return Ok((r, out));
        }
        loop {
            let (r, ()) = ws(i)?;
            let (r, p) = self.param(r)?;
            out.push(p);
            i = r;
            if let Ok((r, ())) = sym(',')(i) {
                i = r;
                continue;
            }
            return cut_with(sym(')')(i), "',' or ')' in the parameter list").map(|(r, ())| (r, out));
        }
    }

    /// `.param .align 8 .b8 name[24]`, `.reg .b32 %r`, `.param .u64 .ptr.global.align 16 p`.
    fn param(&self, i: &'a str) -> PResult<'a, Param<'a>> {
        let pos = self.pos(i);
        let Some(d) = i.strip_prefix('.') else { return fail(i, "'.param' or '.reg'") };
        let (mut i, word) = cut_with(mod_word(d), "'.param' or '.reg'")?;
        let space = match word {
            "param" => StateSpace::Param,
            "reg" => StateSpace::Reg,
            _ => return fail(d, "'.param' or '.reg'"),
        };
        let (mut align, mut vec, mut ty) = (None, 1u8, None);
        loop {
            let (r, ()) = ws(i)?;
            i = r;
            let Some(d) = i.strip_prefix('.') else { break };
            let (r, word) = cut_with(mod_word(d), "a type or attribute")?;
            i = r;
            match word {
                "align" => {
                    let (r, ()) = ws(i)?;
                    let (r, n) = cut_with(uint(r), "an alignment")?;
                    i = r;
                    // `.ptr .align N` describes the pointee; only the first `.align`
                    // before `.ptr` aligns the parameter itself.
                    if ty.is_none() {
                        align = Some(n);
                    }
                }
                "ptr" | "global" | "shared" | "const" | "local" => {}
                "v2" | "v4" | "v8" => vec = word[1..].parse().unwrap_or(1),
                _ => match Ty::from_name(word) {
                    Some(t) => ty = Some(t),
                    None => return fail(d, format!("a parameter type (unknown '.{word}')")),
                },
            }
        }
        let Some(ty) = ty else { return fail(i, "a parameter type such as .b32") };
        let (i, name) = if i.starts_with('_') && !i[1..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_') {
            (&i[1..], "_")
        } else {
            cut_with(ident(i), "the parameter name")?
        };
        let (mut i, ()) = ws(i)?;
        let mut array = None;
        if let Some(r) = i.strip_prefix('[') {
            let (r, ()) = ws(r)?;
            let (r, n) = match uint(r) {
                Ok((r, n)) => (r, u64::from(n)),
                Err(nom::Err::Error(_)) => (r, 0),
                Err(e) => return Err(e),
            };
            let (r, ()) = cut_with(sym(']')(r), "']'")?;
            array = Some(n);
            i = r;
        }
        Ok((i, Param { pos, space, align, vec, ty, name, array }))
    }

    /// A declaration after its state-space word: attributes, type, names, `;`.
    pub(super) fn var_decl(&self, at: &'a str, i: &'a str, space: StateSpace) -> PResult<'a, VarDecl<'a>> {
        let pos = self.pos(at);
        let (mut align, mut vec, mut ty) = (None, 1u8, None);
        let mut i = i;
        loop {
            let (r, ()) = ws(i)?;
            i = r;
            let Some(d) = i.strip_prefix('.') else { break };
            let (r, word) = cut_with(mod_word(d), "a type or attribute")?;
            i = r;
            match word {
                "align" => {
                    let (r, ()) = ws(i)?;
                    let (r, n) = cut_with(uint(r), "an alignment")?;
                    align = Some(n);
                    i = r;
                }
                "attribute" => i = skip_parens(i)?.0,
                "ptr" | "managed" | "unified" => {}
                "v2" | "v4" | "v8" | "v16" => vec = word[1..].parse().unwrap_or(1),
                _ => match Ty::from_name(word) {
                    Some(t) => ty = Some(t),
                    None => return fail(d, format!("a type such as .b32 (unknown '.{word}')")),
                },
            }
        }
        let Some(ty) = ty else { return fail(i, "a type such as .b32") };
        let mut names = Vec::new();
        loop {
            let (r, ()) = ws(i)?;
            let npos = self.pos(r);
            let (r, name) = cut_with(ident(r), "a name to declare")?;
            let mut v = VarName { name, pos: npos, dims: Vec::new(), range: None, init_count: None };
            let (mut r, ()) = ws(r)?;
            if let Some(r2) = r.strip_prefix('<') {
                let (r2, ()) = ws(r2)?;
                let (r2, n) = cut_with(uint(r2), "a register count")?;
                if u64::from(n) > crate::ir::limits::MAX_REGS_PER_DECL {
                    // ptxas 13.0: at most 2^20 registers per `.reg` declaration.
                    return fail(
                        ws(&r[1..])?.0,
                        format!(
                            "a register count of at most {} (the limit per declaration)",
                            crate::ir::limits::MAX_REGS_PER_DECL
                        ),
                    );
                }
                let (r2, ()) = cut_with(sym('>')(r2), "'>'")?;
                v.range = Some(n);
                r = r2;
            }
            loop {
                let (r2, ()) = ws(r)?;
                let Some(r2) = r2.strip_prefix('[') else { break };
                let (r2, ()) = ws(r2)?;
                let (r2, n) = match const_expr(r2) {
                    Ok((r2, Lit::Int(n))) if n >= 0 => (r2, Some(n as u64)),
                    Ok(_) => return fail(r2, "a non-negative array size"),
                    Err(nom::Err::Error(_)) => (r2, None),
                    Err(e) => return Err(e),
                };
                let (r2, ()) = cut_with(sym(']')(r2), "']'")?;
                v.dims.push(n);
                r = r2;
                if v.dims.len() > 8 {
                    return fail(r, "at most 8 array dimensions");
                }
            }
            if let Ok((r2, ())) = sym('=')(r) {
                let (r2, ()) = ws(r2)?;
                let (r2, n) = initializer(r2, 0)?;
                v.init_count = Some(n);
                r = r2;
            }
            names.push(v);
            i = r;
            match sym(',')(i) {
                Ok((r, ())) => i = r,
                Err(_) => break,
            }
        }
        let (i, ()) = cut_with(sym(';')(i), "';' after the declaration")?;
        Ok((i, VarDecl { pos, space, align, vec, ty, external: false, names }))
    }
}

fn perr<'a>(at: &'a str, expected: &'static str) -> PErr<'a> {
    PErr { at, expected: Cow::Borrowed(expected) }
}

/// Skips a parenthesised group (`.attribute( .managed )`).
fn skip_parens(i: &str) -> PResult<'_, ()> {
    let (i, ()) = ws(i)?;
    let Some(mut r) = i.strip_prefix('(') else { return fail(i, "'('") };
    let mut depth = 1u32;
    while let Some(c) = r.chars().next() {
        r = &r[c.len_utf8()..];
        match c {
            '(' => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return fail(r, "less deeply nested parentheses");
                }
            }
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return Ok((r, ()));
                }
            }
            _ => {}
        }
    }
    fail(i, "')' closing this '('")
}

/// Skips to and past the next `;` (for directives radbg ignores, like `.alias`).
fn skip_statement(i: &str) -> PResult<'_, ()> {
    match i.find(';') {
        Some(e) => Ok((&i[e + 1..], ())),
        None => fail(i, "';'"),
    }
}

/// An initializer: `{ ... }` (nested) or a scalar expression; returns how many scalar
/// values it holds.
fn initializer(i: &str, depth: u32) -> PResult<'_, u64> {
    if depth > MAX_DEPTH {
        return fail(i, "a less deeply nested initializer");
    }
    if let Some(r) = i.strip_prefix('{') {
        let mut n = 0u64;
        let (mut r, ()) = ws(r)?;
        if let Some(r2) = r.strip_prefix('}') {
            return Ok((r2, 0));
        }
        loop {
            let (r2, k) = initializer(r, depth + 1)?;
            n = n.saturating_add(k);
            let (r2, ()) = ws(r2)?;
            if let Some(r3) = r2.strip_prefix(',') {
                r = ws(r3)?.0;
                continue;
            }
            if let Some(r3) = r2.strip_prefix('}') {
                return Ok((r3, n));
            }
            return fail(r2, "',' or '}' in the initializer");
        }
    }
    // A scalar: anything up to ',', '}' or ';' outside parentheses.
    let b = i.as_bytes();
    let mut k = 0;
    let mut paren = 0u32;
    while k < b.len() {
        match b[k] {
            b'(' => paren += 1,
            b')' if paren > 0 => paren -= 1,
            b',' | b'}' | b';' if paren == 0 => break,
            b'{' => return fail(&i[k..], "a value (unexpected '{')"),
            _ => {}
        }
        k += 1;
    }
    if i[..k].trim().is_empty() {
        return fail(i, "a value in the initializer");
    }
    Ok((&i[k..], 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body_of(src: &str) -> Vec<Stmt<'_>> {
        let m = parse_module(src).unwrap_or_else(|e| panic!("{e:?} in {src}"));
        match m.items.into_iter().find_map(|it| if let Item::Func(f) = it { Some(f) } else { None }) {
            Some(f) => f.body.unwrap_or_default(),
            None => panic!("no function"),
        }
    }

    fn wrap(body: &str) -> String {
        format!(".version 8.0\n.target sm_90\n.address_size 64\n.entry k() {{\n{body}\n}}\n")
    }

    /// A body of more than 1 MiB is parsed in two halves on two threads
    /// (`Parser::body_halves`): the same statements, and the same errors, as the
    /// one-thread parse — also where the middle falls in a comment, a nested scope or a
    /// multi-line call, and with an error in either half.
    #[test]
    fn a_large_body_parses_in_halves_as_in_one() {
        let mut lines = Vec::new();
        let mut k = 0;
        while lines.iter().map(|l: &String| l.len() + 1).sum::<usize>() < (1 << 20) + 8192 {
            lines.push(format!("  add.s32 %r{}, %r{}, {k};", k % 50, (k + 1) % 50));
            if k % 7 == 0 {
                lines.push(format!("$L__BB0_{k}:"));
            }
            if k % 11 == 0 {
                lines.push("  // a comment".to_string());
            }
            if k % 13 == 0 {
                lines.push("  @%p1 bra $L__BB0_0;".to_string());
            }
            k += 1;
        }
        let n = lines.len();
        let with = |edit: &dyn Fn(&mut Vec<String>)| {
            let mut l = lines.clone();
            edit(&mut l);
            format!("\n  .reg .b32 %r<50>;\n  .reg .pred %p<2>;\n{}\n  ret;\n}}\n", l.join("\n"))
        };
        let cases = [
            ("plain", with(&|_| {})),
            (
                "comment over the middle",
                with(&|l| {
                    l.insert(n / 2 - 3, "/*".to_string());
                    l.insert(n / 2 + 40, "*/".to_string());
                }),
            ),
            (
                "scope over the middle",
                with(&|l| {
                    l.insert(n / 2 - 3, "{".to_string());
                    l.insert(n / 2 + 40, "}".to_string());
                }),
            ),
            (
                "call over the middle",
                with(&|l| {
                    l.insert(n / 2 - 2, "  call.uni (retval0),\n  f,\n  (\n  param0,\n  param1\n  );".to_string());
                }),
            ),
            ("error in the first half", with(&|l| l[n / 4] = "  add.s32 %r1, %r2, ;".to_string())),
            ("error in the second half", with(&|l| l[3 * n / 4] = "  add.s32 %r1, %r2, ;".to_string())),
            ("unclosed", with(&|l| l.push("{".to_string()))),
        ];
        for (what, text) in &cases {
            let p = Parser { src: text, skeleton: false };
            let one = format!("{:?}", p.body(text, 1));
            let halves = format!("{:?}", p.body_halves(text, 1));
            assert!(one == halves, "{what}: the halves differ from the one-thread parse");
        }
        assert!(super::super::stmt::second_half(&cases[0].1).is_some(), "the plain body is split");
    }

    #[test]
    fn module_directives() {
        let src = ".version 7.8\n.target sm_90a, debug\n.address_size 64\n.file 1 \"x.cu\"\n\
                   .section .debug_abbrev { .b8 1 \"}\" }\n.pragma \"nounroll\";\n";
        let m = parse_module(src).unwrap();
        assert_eq!(m.version, Some((7, 8)));
        assert_eq!(m.targets.iter().map(|t| t.0).collect::<Vec<_>>(), vec!["sm_90a", "debug"]);
        assert_eq!(m.address_size, Some(64));
    }

    #[test]
    fn instruction_shapes() {
        let src = wrap(
            "@!%p1 bra $L__BB0_2;\n setp.lt.s32 %p1|%p2, %r1, 2;\n ld.global.v4.f32 {%f1, _, %f3, %f4}, [%rd1+-8];\n\
             call.uni (retval0), f, (param0, param1);\n mov.u32 %r1, %tid.x;\n ld.shared::cta.u32 %r2, [smem+4];",
        );
        let b = body_of(&src);
        let insts: Vec<&Inst> = b.iter().filter_map(|s| if let Stmt::Inst(i) = s { Some(i) } else { None }).collect();
        assert_eq!(insts.len(), 6);
        assert!(insts[0].guard.as_ref().is_some_and(|g| g.negated && g.name == "%p1"));
        assert!(matches!(insts[1].ops[0].kind, OpKind::Pair(..)));
        match &insts[2].ops[1].kind {
            OpKind::Mem(items) => assert!(matches!(&items[0], MemItem::Addr { offset: -8, .. })),
            k => panic!("{k:?}"),
        }
        assert!(matches!(insts[3].ops[0].kind, OpKind::List(_)));
        assert!(matches!(insts[4].ops[1].kind, OpKind::Name { name: "%tid", comp: Some(0) }));
        assert_eq!(&insts[5].mods()[..], &["shared::cta", "u32"]);
    }

    #[test]
    fn syntax_errors_name_what_was_expected() {
        for (body, want) in [
            ("mov.u32 %r1 %r2;", "',' or ';' after the operand"),
            ("mov.u32 %r1, ;", "an operand"),
            ("ld.global.f32 %f1, [%rd1;", "']' closing the address"),
            (".reg .b32 %r<4>", "';' after the declaration"),
            (".foo 1;", "a statement (unknown directive '.foo' in a body)"),
            ("mov.u32 %r1, %r2.q;", "a vector component (.x .y .z .w or .r .g .b .a)"),
        ] {
            let e = parse_module(&wrap(body)).unwrap_err();
            assert_eq!(e.expected, want, "{body}");
        }
        let e = parse_module(".entry k() {\n mov.u32 %r1, 1;\n").unwrap_err();
        assert_eq!(e.expected, "'}' closing the function body");
        let deep = wrap(&"{".repeat(100));
        assert_eq!(parse_module(&deep).unwrap_err().expected, "less deeply nested '{ }' scopes");
    }

    #[test]
    fn old_style_prototypes_without_semicolons() {
        let src = ".version 1.4\n.target sm_13\n.extern .func (.param .s32 r) vprintf (.param .u64 a, .param .u64 b)\n\
                   .entry k\n{\n .reg .u32 $r<3>;\n $Lt_0_1:\n exit;\n}\n";
        let m = parse_module(src).unwrap();
        assert_eq!(m.items.len(), 2);
    }
}
