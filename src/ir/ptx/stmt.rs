//! Function bodies: scopes, labels, the directives allowed inside a body,
//! instructions and every operand shape (vectors, addresses, `a|b` pairs, call
//! lists, constant expressions).
//!
//! Owns: the statement and operand grammar of PTX. Must not know: what an
//! instruction means (that is `lower`, `inst` and `ops`).

use super::ast::*;
use super::lex::*;
use super::parse::{MAX_OPERANDS, MAX_VECTOR, Parser};

/// Where the second half of a body starts: the first line after the middle of `i` that
/// starts (after spaces) with an instruction, a guard or a label — not a brace, a
/// comment or a directive — within a few lines; `None` when there is no such line.
pub(super) fn second_half(i: &str) -> Option<&str> {
    let b = i.as_bytes();
    let mut at = b.len() / 2;
    for _ in 0..64 {
        // Just after a newline: a character boundary.
        at += b.get(at..)?.iter().position(|&c| c == b'\n')? + 1;
        let line = i[at..].trim_start_matches([' ', '\t']);
        if line.starts_with(|c: char| c == '@' || c == '$' || c == '%' || c == '_' || c.is_ascii_alphabetic()) {
            return Some(line);
        }
    }
    None
}

impl<'a> Parser<'a> {
    /// The statements of a `{ }` scope after its `{`, through its `}`.
    pub(super) fn body(&self, i: &'a str, depth: u32) -> PResult<'a, Vec<Stmt<'a>>> {
        self.body_to(i, depth, None).map(|(r, (out, _))| (r, out))
    }

    /// A function body's statements as [`Parser::body`] gives them, the two halves of
    /// a large one parsed on two threads (issue 25: the scale kernel's 8 MB body).
    /// The second half starts at a line of the text after the middle; the first half
    /// is parsed up to there and must stop exactly on it, at the body's level, where
    /// the one-thread parse would be in the same state (position and depth). Anything
    /// else — an error in either half, a first half that ends the body before the
    /// middle or steps over the line (a comment, a string, a nested scope) — falls back
    /// to the one-thread parse, so the result and the errors are always its.
    pub(super) fn body_halves(&self, i: &'a str, depth: u32) -> PResult<'a, Vec<Stmt<'a>>> {
        const HALVES_BYTES: usize = 1 << 20;
        let Some(rest) = (i.len() >= HALVES_BYTES).then(|| second_half(i)).flatten() else {
            return self.body(i, depth);
        };
        let (first, second) = std::thread::scope(|s| {
            let second = s.spawn(|| self.body(rest, depth));
            let first = self.body_to(i, depth, Some(rest.len()));
            (first, second.join())
        });
        match (first, second) {
            (Ok((r, (mut out, false))), Ok(Ok((end, tail)))) if r.len() == rest.len() => {
                out.extend(tail);
                Ok((end, out))
            }
            _ => self.body(i, depth),
        }
    }

    /// [`Parser::body`], stopping (with `false`: the body not closed) before the first
    /// statement that starts at most `stop` bytes before the end of the text.
    fn body_to(&self, i: &'a str, depth: u32, stop: Option<usize>) -> PResult<'a, (Vec<Stmt<'a>>, bool)> {
        if depth > MAX_DEPTH {
            return fail(i, "less deeply nested '{ }' scopes");
        }
        let mut out = Vec::new();
        let mut i = i;
        loop {
            let (r, ()) = ws(i)?;
            i = r;
            if stop.is_some_and(|s| i.len() <= s) {
                return Ok((i, (out, false)));
            }
            if let Some(r) = i.strip_prefix('}') {
                return Ok((r, (out, true)));
            }
            if i.is_empty() {
                return fail(i, "'}' closing the function body");
            }
            if let Some(r) = i.strip_prefix('{') {
                let pos = self.pos(i);
                let (r, inner) = self.body(r, depth + 1)?;
                out.push(Stmt::Block(inner, pos));
                i = r;
                continue;
            }
            if let Some(d) = i.strip_prefix('.') {
                let at = i;
                let (r, word) = cut_with(mod_word(d), "a directive name after '.'")?;
                i = match word {
                    "loc" | "file" => rest_of_line(r),
                    "pragma" => {
                        let (r, strings) = self.pragma(r)?;
                        out.push(Stmt::Pragma(strings, self.pos(at)));
                        r
                    }
                    "section" => self.section(r)?.0,
                    _ => match StateSpace::from_name(word) {
                        Some(space) => {
                            let (r, v) = self.var_decl(at, r, space)?;
                            out.push(Stmt::Decl(v));
                            r
                        }
                        None => return fail(at, format!("a statement (unknown directive '.{word}' in a body)")),
                    },
                };
                continue;
            }
            if let Ok((r, name)) = ident(i) {
                let (r2, ()) = ws(r)?;
                if r2.starts_with(':') && !r2.starts_with("::") {
                    let pos = self.pos(i);
                    let (r3, ()) = ws(&r2[1..])?;
                    if let Some(d) = r3.strip_prefix('.') {
                        let (r4, word) = cut_with(mod_word(d), "a directive name after '.'")?;
                        match word {
                            "branchtargets" | "calltargets" => {
                                let (r5, targets) = self.name_list(r4)?;
                                out.push(if word == "branchtargets" {
                                    Stmt::BranchTargets { label: name, targets, pos }
                                } else {
                                    Stmt::CallTargets { label: name, targets, pos }
                                });
                                i = r5;
                                continue;
                            }
                            "callprototype" => {
                                let (r5, (rets, params)) = self.prototype(r4)?;
                                out.push(Stmt::CallPrototype { label: name, rets, params, pos });
                                i = r5;
                                continue;
                            }
                            _ => {}
                        }
                    }
                    out.push(Stmt::Label(name, pos));
                    i = r3;
                    continue;
                }
            }
            let (r, inst) = self.instruction(i)?;
            out.push(Stmt::Inst(inst));
            i = r;
        }
    }

    /// `L1, L2, L3;` after `.branchtargets` / `.calltargets`.
    fn name_list(&self, i: &'a str) -> PResult<'a, Vec<(&'a str, Pos)>> {
        let mut out = Vec::new();
        let mut i = i;
        loop {
            let (r, ()) = ws(i)?;
            let pos = self.pos(r);
            let (r, n) = cut_with(ident(r), "a label")?;
            out.push((n, pos));
            i = r;
            match sym(',')(i) {
                Ok((r, ())) => i = r,
                Err(_) => break,
            }
        }
        let (i, ()) = cut_with(sym(';')(i), "',' or ';' after the list")?;
        Ok((i, out))
    }

    /// `.callprototype [(rets)] _ (params) [.noreturn];` after the directive word.
    #[allow(clippy::type_complexity)]
    fn prototype(&self, i: &'a str) -> PResult<'a, (Vec<Param<'a>>, Vec<Param<'a>>)> {
        let (mut i, ()) = ws(i)?;
        let mut rets = Vec::new();
        if i.starts_with('(') {
            let (r, ps) = self.param_list(i)?;
            rets = ps;
            i = ws(r)?.0;
        }
        let Some(r) = i.strip_prefix('_') else { return fail(i, "'_' in the call prototype") };
        let (mut i, ()) = ws(r)?;
        let mut params = Vec::new();
        if i.starts_with('(') {
            let (r, ps) = self.param_list(i)?;
            params = ps;
            i = r;
        }
        let (r, ()) = ws(i)?;
        let r = r.strip_prefix(".noreturn").unwrap_or(r);
        let (r, ()) = cut_with(sym(';')(r), "';' after the call prototype")?;
        Ok((r, (rets, params)))
    }

    /// `[@[!]pred] opcode[.mod]* operands ;`.
    fn instruction(&self, i: &'a str) -> PResult<'a, Inst<'a>> {
        let pos = self.pos(i);
        let mut i = i;
        let mut guard = None;
        if let Some(r) = i.strip_prefix('@') {
            let (r, ()) = ws(r)?;
            let (r, negated) = match r.strip_prefix('!') {
                Some(r) => (ws(r)?.0, true),
                None => (r, false),
            };
            let gpos = self.pos(r);
            let (r, name) = cut_with(ident(r), "a predicate register after '@'")?;
            guard = Some(GuardAst { negated, name, pos: gpos });
            i = ws(r)?.0;
        }
        let b = i.as_bytes();
        if b.is_empty() || !b[0].is_ascii_alphabetic() {
            return fail(i, "an instruction, a label, a directive or '}'");
        }
        let n = i.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(i.len());
        let base = &i[..n];
        i = &i[n..];
        let mods_start = i;
        let mut nmods = 0;
        while let Some(d) = i.strip_prefix('.') {
            let (r, _) = cut_with(mod_word(d), "a modifier after '.'")?;
            nmods += 1;
            if nmods > MAX_MODS {
                return fail(d, "fewer modifiers");
            }
            i = r;
        }
        let mods = &mods_start[..mods_start.len() - i.len()];
        if !i.is_empty() && !i.starts_with(|c: char| c.is_whitespace() || c == ';' || c == '/') {
            return fail(i, "white space or ';' after the opcode");
        }
        let is_call = base == "call";
        let mut ops = Vec::new();
        let (r, ()) = ws(i)?;
        i = r;
        if let Some(r) = i.strip_prefix(';') {
            return Ok((r, Inst { pos, end: self.pos(r), guard, base, mods_text: mods, ops }));
        }
        loop {
            let (r, op) = cut_with(self.operand(i, is_call, 0), "an operand")?;
            ops.push(op);
            if ops.len() > MAX_OPERANDS {
                return fail(i, "fewer operands");
            }
            let (r, ()) = ws(r)?;
            i = r;
            if let Some(r) = i.strip_prefix(',') {
                i = r;
                continue;
            }
            if let Some(r) = i.strip_prefix(';') {
                return Ok((r, Inst { pos, end: self.pos(r), guard, base, mods_text: mods, ops }));
            }
            return fail(i, "',' or ';' after the operand");
        }
    }

    fn operand(&self, i: &'a str, is_call: bool, depth: u32) -> PResult<'a, Operand<'a>> {
        let (i, ()) = ws(i)?;
        if depth > 4 {
            return fail(i, "a simpler operand");
        }
        let pos = self.pos(i);
        let (r, op) = self.operand_inner(i, is_call, depth)?;
        // `a|b`: a second destination.
        let (r2, ()) = ws(r)?;
        if r2.starts_with('|') && !r2.starts_with("||") {
            let (r3, rhs) = cut_with(self.operand(&r2[1..], false, depth + 1), "a second operand after '|'")?;
            return Ok((r3, Operand { pos, kind: OpKind::Pair(Box::new(op), Box::new(rhs)) }));
        }
        Ok((r, op))
    }

    fn operand_inner(&self, i: &'a str, is_call: bool, depth: u32) -> PResult<'a, Operand<'a>> {
        // Every operand form that nests (`!`, `{ }`, `( )`, `a|b`) comes through here,
        // so one guard bounds the recursion whatever the mix (issue 28: 20 000 `!`).
        if depth > MAX_DEPTH {
            return fail(i, "a less deeply nested operand");
        }
        let pos = self.pos(i);
        let op = |kind| Operand { pos, kind };
        let Some(c) = i.chars().next() else { return backtrack(i, "an operand") };
        match c {
            '{' => {
                let (r, items) = self.op_list(&i[1..], '}', false, depth)?;
                if items.len() > MAX_VECTOR {
                    return fail(i, "a shorter vector");
                }
                Ok((r, op(OpKind::Vector(items))))
            }
            '(' if is_call => {
                let (r, items) = self.op_list(&i[1..], ')', false, depth)?;
                Ok((r, op(OpKind::List(items))))
            }
            '[' => self.mem(&i[1..], pos, depth),
            '!' => {
                let (r, inner) =
                    cut_with(self.operand_inner(ws(&i[1..])?.0, false, depth + 1), "an operand after '!'")?;
                Ok((r, op(OpKind::Not(Box::new(inner)))))
            }
            '_' if !i[1..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == '$') => {
                Ok((&i[1..], op(OpKind::Sink)))
            }
            _ if starts_const(i) => {
                let (r, v) = const_expr(i)?;
                Ok((r, op(OpKind::Imm(v))))
            }
            _ => {
                let (r, name) = ident(i)?;
                let (r, comp) = component(r)?;
                // `name+offset`: a variable's address plus a constant.
                let (r2, ()) = ws(r)?;
                if comp.is_none() && (r2.starts_with('+') || r2.starts_with('-')) {
                    let neg = r2.starts_with('-');
                    let (r3, ()) = ws(&r2[1..])?;
                    let (r3, v) = cut_with(const_expr(r3), "a constant offset")?;
                    let Lit::Int(v) = v else { return fail(r3, "an integer offset") };
                    let offset = if neg { v.wrapping_neg() } else { v };
                    return Ok((r3, op(OpKind::NameOffset { name, offset })));
                }
                Ok((r, op(OpKind::Name { name, comp })))
            }
        }
    }

    /// Comma-separated operands up to `close` (after the opening bracket).
    fn op_list(&self, i: &'a str, close: char, is_call: bool, depth: u32) -> PResult<'a, Vec<Operand<'a>>> {
        let mut out = Vec::new();
        let (mut i, ()) = ws(i)?;
        if let Some(r) = i.strip_prefix(close) {
            return Ok((r, out));
        }
        loop {
            let (r, o) = cut_with(self.operand(i, is_call, depth + 1), "an operand")?;
            out.push(o);
            if out.len() > MAX_VECTOR {
                return fail(i, "fewer elements");
            }
            let (r, ()) = ws(r)?;
            i = r;
            if let Some(r) = i.strip_prefix(',') {
                i = r;
                continue;
            }
            if let Some(r) = i.strip_prefix(close) {
                return Ok((r, out));
            }
            return fail(i, if close == '}' { "',' or '}'" } else { "',' or ')'" });
        }
    }

    /// `[ addr (, item)* ]` after the `[`.
    fn mem(&self, i: &'a str, pos: Pos, depth: u32) -> PResult<'a, Operand<'a>> {
        let mut items = Vec::new();
        let mut i = i;
        loop {
            let (r, ()) = ws(i)?;
            i = r;
            let ipos = self.pos(i);
            if i.starts_with('[') {
                // ptxas rejects `[[%rd1]]` ("syntax error"); addresses do not nest.
                return fail(i, "a register, variable or constant (addresses do not nest)");
            }
            if i.starts_with('{') {
                let (r, o) = self.operand_inner(i, false, depth + 1)?;
                items.push(MemItem::Other(o));
                i = r;
            } else {
                let mut names = AddrNames::default();
                let mut offset: i64 = 0;
                let mut first = true;
                let mut neg = false;
                loop {
                    let (r, ()) = ws(i)?;
                    i = r;
                    let tpos = self.pos(i);
                    if starts_const(i) && !(first && i.starts_with('+')) {
                        let (r, v) = cut_with(const_expr(i), "an address")?;
                        let Lit::Int(v) = v else { return fail(i, "an integer offset") };
                        offset = offset.wrapping_add(if neg { v.wrapping_neg() } else { v });
                        i = r;
                    } else {
                        let (r, name) = cut_with(ident(i), "an address (register, variable or constant)")?;
                        if neg {
                            return fail(i, "a constant after '-' (registers cannot be subtracted)");
                        }
                        let (r, comp) = component(r)?;
                        if !names.push(name, comp, tpos) {
                            return fail(i, "at most two names in an address");
                        }
                        i = r;
                    }
                    first = false;
                    let (r, ()) = ws(i)?;
                    i = r;
                    if let Some(r) = i.strip_prefix('+') {
                        neg = false;
                        i = r;
                    } else if let Some(r) = i.strip_prefix('-') {
                        neg = true;
                        i = r;
                    } else {
                        break;
                    }
                }
                items.push(MemItem::Addr { names, offset, pos: ipos });
            }
            let (r, ()) = ws(i)?;
            i = r;
            if let Some(r) = i.strip_prefix(',') {
                i = r;
                if items.len() > 8 {
                    return fail(i, "fewer items in the address");
                }
                continue;
            }
            if let Some(r) = i.strip_prefix(']') {
                return Ok((r, Operand { pos, kind: OpKind::Mem(items) }));
            }
            return fail(i, "']' closing the address");
        }
    }
}

/// An optional vector component after a name: `.x .y .z .w` or `.r .g .b .a`.
fn component(i: &str) -> PResult<'_, Option<u8>> {
    let Some(r) = i.strip_prefix('.') else { return Ok((i, None)) };
    let (r2, w) = cut_with(mod_word(r), "a vector component (.x .y .z .w)")?;
    let c = match w {
        "x" | "r" => 0,
        "y" | "g" => 1,
        "z" | "b" => 2,
        "w" | "a" => 3,
        // Video selectors (lowered as reads of the whole register).
        "b0" | "b1" | "b2" | "b3" => 100 + (w.as_bytes()[1] - b'0'),
        "h0" | "h1" => 104 + (w.as_bytes()[1] - b'0'),
        _ => return fail(r, "a vector component (.x .y .z .w or .r .g .b .a)"),
    };
    Ok((r2, Some(c)))
}
