//! Instructions and operands: `[N] @!%p0 %r1, %p1 = IADD3.X %r2, -1, [%rd0 + 0x10]`.
//!
//! The hot path of the parser: no allocation per token except the operand vector
//! (allocated once at its exact size), the modifier string and symbol names.

use super::func::off;
use super::lex::{self, Num, PResult, at_eol, eol, expected, fail, ident, is_name_byte, uint, ws};
use super::{P, limits};
use crate::ir::model::*;
use crate::ir::opcode::Opcode;
use crate::ir::span::{InstSpans, Span};

impl<'a> P<'a> {
    pub(super) fn instruction(&mut self, i: &'a str) -> PResult<'a, ()> {
        let text = self.text;
        if self.func.as_ref().is_some_and(|f| f.f.blocks.is_empty()) {
            return expected(i, "a block label such as 'BB0:' before the first instruction");
        }
        let mut r = i;
        // `[N]` program-point number: accepted and ignored.
        if let Some(n) = r.strip_prefix('[').filter(|n| n.starts_with(|c: char| c.is_ascii_digit())) {
            // Only skipped: the printer's numbers are recomputed from the layout.
            let digits = n.bytes().take(11).take_while(u8::is_ascii_digit).count();
            if digits > 10 {
                return fail(n, digits, "program point number is over 10 digits");
            }
            let (n, ()) = lex::need_char(&n[digits..], ']', "']' after the program-point number")?;
            r = ws(n)?.0;
        }
        let start = r;
        let mut scratch = std::mem::take(&mut self.func.as_mut().expect("caller checked").scratch);
        let mut spans = std::mem::take(&mut self.func.as_mut().expect("caller checked").scratch_spans);
        scratch.clear();
        spans.clear();
        let result = self.inst_body(start, &mut scratch, &mut spans);
        let fs = self.func.as_mut().expect("caller checked");
        let out = match result {
            Ok((rest, (guard, guard_span, op, mods, mnemonic, ndefs, end, ok))) => {
                if ok {
                    let first_operand = fs.spans.operands.len() as u32;
                    fs.spans.operands.extend_from_slice(&spans);
                    fs.spans.insts.push(InstSpans {
                        span: Span::new(off(text, start), off(text, end)),
                        guard: guard_span,
                        mnemonic,
                        first_operand,
                    });
                    // Exactly sized: the scratch vector keeps its capacity for the next line.
                    let operands: Box<[Operand]> = scratch.drain(..).collect();
                    let inst = Inst { guard, op, mods: mods.into(), operands, ndefs, origin: self.loc };
                    fs.f.blocks.last_mut().expect("checked above").insts.push(inst);
                }
                Ok((rest, ()))
            }
            Err(e) => Err(e),
        };
        fs.scratch = scratch;
        fs.scratch_spans = spans;
        out
    }

    #[allow(clippy::type_complexity)]
    fn inst_body(
        &mut self,
        start: &'a str,
        ops: &mut Vec<Operand>,
        spans: &mut Vec<Span>,
    ) -> PResult<'a, (Option<Guard>, Span, Opcode, &'a str, Span, u8, &'a str, bool)> {
        let text = self.text;
        let mut ok = true;
        let mut r = start;
        let mut guard = None;
        let mut guard_span = Span::at(off(text, start));
        if let Some(g) = r.strip_prefix('@') {
            let (g, negated) = match g.strip_prefix('!') {
                Some(g) => (g, true),
                None => (g, false),
            };
            let (g2, reg) = match self.reg_operand(g, &mut ok) {
                Ok(x) => x,
                Err(nom::Err::Error(_)) => return expected(g, "a predicate register after '@'"),
                Err(e) => return Err(e),
            };
            guard = Some(Guard { reg, negated });
            guard_span = Span::new(off(text, r), off(text, g2));
            r = ws(g2)?.0;
        }
        // Destinations come first when the statement starts with an operand that is
        // followed by ',' or '='; otherwise it starts with the mnemonic.
        let has_defs = match r.as_bytes().first() {
            Some(b'%' | b'[' | b'-') => true,
            Some(c) if c.is_ascii_digit() => true,
            Some(_) => match ident(r) {
                Ok((after, name)) if name == "c" && after.starts_with('[') => true,
                Ok((after, _)) => {
                    let after = ws(after)?.0;
                    after.starts_with(',') || after.starts_with('=')
                }
                Err(_) => false,
            },
            None => false,
        };
        let mut ndefs = 0u8;
        if has_defs {
            r = self.operand_list(r, ops, spans, &mut ok)?;
            ndefs = ops.len() as u8;
            let (r2, ()) = lex::need_char(r, '=', "'=' after the destination operands")?;
            r = ws(r2)?.0;
        }
        let (after, m) = match ident(r) {
            Ok(x) => x,
            Err(nom::Err::Error(_)) => return expected(r, "a mnemonic such as IADD3"),
            Err(e) => return Err(e),
        };
        let (name, mods) = match m.bytes().position(|b| b == b'.') {
            Some(d) => (&m[..d], &m[d..]),
            None => (m, ""),
        };
        if ndefs == 0 && guard.is_none() && ws(after)?.0.starts_with(':') {
            return fail(r, m.len(), format!("a label is written '{m}:' with no space before the ':'"));
        }
        let upper = name.as_bytes()[0].is_ascii_uppercase()
            && name.bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_');
        if !upper {
            return fail(r, m.len(), format!("expected an upper-case mnemonic such as IADD3, found '{m}'"));
        }
        // Modifiers are `.PART` with non-empty parts of letters, digits and '_'.
        let mb = mods.as_bytes();
        let bad_mods =
            mb.contains(&b'$') || mb.last() == Some(&b'.') || mb.windows(2).any(|w| w[0] == b'.' && w[1] == b'.');
        if bad_mods {
            return fail(
                r,
                m.len(),
                format!("invalid modifiers '{mods}' in {m}: expected .PART with letters, digits or '_'"),
            );
        }
        let mnemonic = Span::new(off(text, r), off(text, after));
        let op = opcode(name);
        let mut end = after;
        let (r2, ()) = ws(after)?;
        if !at_eol(r2) {
            let before = ops.len();
            let r3 = self.operand_list(r2, ops, spans, &mut ok)?;
            if ops.len() > before {
                end = r3;
            }
            r = r3;
        } else {
            r = r2;
        }
        if let Some(s) = spans.last() {
            let last = s.hi as usize;
            if last > off(text, end) {
                end = &text[last..];
            }
        }
        let (rest, ()) = eol(r, "',' or end of line after the operand")?;
        Ok((rest, (guard, guard_span, op, mods, mnemonic, ndefs, end, ok)))
    }

    /// `operand (',' operand)*`.
    fn operand_list(
        &mut self,
        mut r: &'a str,
        ops: &mut Vec<Operand>,
        spans: &mut Vec<Span>,
        ok: &mut bool,
    ) -> Result<&'a str, nom::Err<lex::PErr<'a>>> {
        let text = self.text;
        loop {
            if ops.len() >= limits::MAX_OPERANDS {
                return fail(r, 1, format!("too many operands: an instruction has at most {}", limits::MAX_OPERANDS))
                    .map(|(r, ())| r);
            }
            let (r2, op) = self.operand(r, ok)?;
            spans.push(Span::new(off(text, r), off(text, r2)));
            ops.push(op);
            let (r3, ()) = ws(r2)?;
            match r3.strip_prefix(',') {
                Some(r4) => r = ws(r4)?.0,
                None => return Ok(r3),
            }
        }
    }

    /// One operand. An undeclared register is reported here (so every one on the line
    /// is) and clears `ok`, which drops the instruction.
    fn operand(&mut self, i: &'a str, ok: &mut bool) -> PResult<'a, Operand> {
        match i.as_bytes().first() {
            Some(b'%') => {
                let (r, reg) = self.reg_operand(i, ok)?;
                Ok((r, Operand::Reg(reg)))
            }
            Some(b'[') => self.mem_operand(i, ok),
            Some(b'-') | Some(b'0'..=b'9') => match lex::number(i, "immediate")? {
                (r, Num::Int(v)) => Ok((r, Operand::Imm(v))),
                (r, Num::Float(b)) => Ok((r, Operand::FImm(b))),
            },
            Some(_) => {
                let (r, name) = match ident(i) {
                    Ok(x) => x,
                    Err(nom::Err::Error(_)) => return operand_expected(i),
                    Err(e) => return Err(e),
                };
                if name.starts_with("SR_") {
                    return Ok((r, Operand::Special(name.into())));
                }
                if let Some(p) = lex::phys_reg(name) {
                    return match p {
                        Ok(p) => Ok((r, Operand::Reg(Reg::P(p)))),
                        Err(msg) => fail(i, name.len(), msg),
                    };
                }
                if name == "c" && r.starts_with('[') {
                    return cbank(r);
                }
                Ok((r, Operand::Sym(name.into())))
            }
            None => operand_expected(i),
        }
    }

    /// A virtual register with an optional component, or a physical register.
    fn reg_operand(&mut self, i: &'a str, ok: &mut bool) -> PResult<'a, Reg> {
        if i.starts_with('%') {
            let (r, name) = lex::vreg_name(i)?;
            let (r, comp) = component(r)?;
            let fs = self.func.as_ref().expect("inside a function");
            match fs.resolve(i, name) {
                Ok(id) => Ok((r, Reg::V(RegRef { vreg: id, comp }))),
                Err(e) => {
                    self.report(e);
                    *ok = false;
                    Ok((r, Reg::V(RegRef { vreg: VRegId(0), comp })))
                }
            }
        } else {
            let (r, name) = lex::reg_word(i)?;
            match lex::phys_reg(name) {
                Some(Ok(p)) => Ok((r, Reg::P(p))),
                Some(Err(msg)) => fail(i, name.len(), msg),
                None => lex::backtrack(i),
            }
        }
    }

    /// `[base + index + sym + offset]`, terms in any order, at most two registers,
    /// one symbol and one offset; only the offset may be subtracted.
    fn mem_operand(&mut self, i: &'a str, ok: &mut bool) -> PResult<'a, Operand> {
        let mut m = MemRef { base: None, index: None, sym: None, offset: 0 };
        let mut have_offset = false;
        let mut r = ws(&i[1..])?.0;
        if r.starts_with(']') {
            return expected(r, "an address inside '[ ]'");
        }
        let mut first = true;
        loop {
            r = ws(r)?.0;
            let neg = if first {
                match r.strip_prefix('-') {
                    Some(x) => {
                        r = x;
                        true
                    }
                    None => false,
                }
            } else if let Some(x) = r.strip_prefix('+') {
                r = ws(x)?.0;
                false
            } else if let Some(x) = r.strip_prefix('-') {
                r = ws(x)?.0;
                true
            } else if let Some(x) = r.strip_prefix(']') {
                return Ok((x, Operand::Mem(Box::new(m))));
            } else {
                return expected(r, "'+', '-' or ']' in the address");
            };
            first = false;
            let term = r;
            if term.starts_with(|c: char| c.is_ascii_digit()) {
                let (r2, (v, t)) = lex::uint_any(term)?;
                let v = v.map(|v| if neg { -(v as i128) } else { v as i128 });
                let v = match v {
                    Some(v) if (lex::IMM_MIN as i128..=lex::IMM_MAX as i128).contains(&v) => v as i64,
                    _ => {
                        return fail(
                            term,
                            t.len(),
                            format!(
                                "address offset {}{} does not fit in 32 bits (range {} to {})",
                                if neg { "-" } else { "" },
                                lex::clip(t),
                                lex::IMM_MIN,
                                lex::IMM_MAX
                            ),
                        );
                    }
                };
                if have_offset {
                    return fail(term, t.len(), "an address has at most one offset");
                }
                have_offset = true;
                m.offset = v;
                r = r2;
                continue;
            }
            if neg {
                return fail(term, lex::token_len(term), "only the offset of an address can be subtracted");
            }
            let reg = if term.starts_with('%') {
                Some(self.reg_operand(term, ok)?)
            } else {
                let (r2, name) = match ident(term) {
                    Ok(x) => x,
                    Err(nom::Err::Error(_)) => return expected(term, "a register, symbol or offset in the address"),
                    Err(e) => return Err(e),
                };
                match lex::phys_reg(name) {
                    Some(Ok(p)) => Some((r2, Reg::P(p))),
                    Some(Err(msg)) => return fail(term, name.len(), msg),
                    None => {
                        if m.sym.is_some() {
                            return fail(term, name.len(), "an address has at most one symbol");
                        }
                        m.sym = Some(name.into());
                        r = r2;
                        None
                    }
                }
            };
            if let Some((r2, reg)) = reg {
                if m.base.is_none() {
                    m.base = Some(reg);
                } else if m.index.is_none() {
                    m.index = Some(reg);
                } else {
                    return fail(term, off_len(term, r2), "an address has at most two registers");
                }
                r = r2;
            }
        }
    }
}

/// `Opcode::from_mnemonic` through a hash table built once: a binary search of the
/// opcode table costs several string comparisons per instruction.
fn opcode(name: &str) -> Opcode {
    static TABLE: std::sync::OnceLock<std::collections::HashMap<&'static str, u16, super::FnvBuild>> =
        std::sync::OnceLock::new();
    let table =
        TABLE.get_or_init(|| crate::ir::opcode::OPCODES.iter().enumerate().map(|(k, o)| (o.name, k as u16)).collect());
    match table.get(name) {
        Some(&k) => Opcode::known(k),
        None => Opcode::unknown(name),
    }
}

fn off_len(a: &str, b: &str) -> usize {
    a.len() - b.len()
}

fn operand_expected<T>(i: &str) -> PResult<'_, T> {
    expected(i, "an operand (register, immediate, address, constant bank, special register or symbol)")
}

/// `.lo`, `.hi` or `.N` after a register name.
fn component(i: &str) -> PResult<'_, Option<u8>> {
    let Some(c) = i.strip_prefix('.') else { return Ok((i, None)) };
    let n = c.bytes().take_while(|&b| is_name_byte(b)).count();
    match &c[..n] {
        "lo" => Ok((&c[n..], Some(0))),
        "hi" => Ok((&c[n..], Some(1))),
        d if !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()) => {
            let (r, v) = uint(c, limits::MAX_COMPONENT, "component index")?;
            Ok((r, Some(v as u8)))
        }
        _ => fail(i, n + 1, "expected a component after the register: .lo, .hi or a number such as .2"),
    }
}

/// `c[BANK][OFFSET]` (after the `c`).
fn cbank(i: &str) -> PResult<'_, Operand> {
    let (r, ()) = lex::need_char(i, '[', "'['")?;
    let (r, ()) = ws(r)?;
    let (r, bank) = match uint(r, 255, "constant bank") {
        Ok(x) => x,
        Err(nom::Err::Error(_)) => return expected(r, "a constant bank number"),
        Err(e) => return Err(e),
    };
    let (r, ()) = lex::need_char(r, ']', "']' after the constant bank")?;
    let (r, ()) = lex::need_char(r, '[', "'[' and the offset into the constant bank")?;
    let (r, ()) = ws(r)?;
    let (r, offset) = match uint(r, u32::MAX as u64, "constant bank offset") {
        Ok(x) => x,
        Err(nom::Err::Error(_)) => return expected(r, "an offset into the constant bank"),
        Err(e) => return Err(e),
    };
    let (r, ()) = lex::need_char(r, ']', "']' after the constant bank offset")?;
    Ok((r, Operand::CBank { bank: bank as u8, offset: offset as u32 }))
}
