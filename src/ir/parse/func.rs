//! Function-header statements: `.maxnreg`, `.maxntid`, `.coroutine`, `.reg`, `.pin`,
//! `.alias`, `.flags` and the `.abi { }` block (seed 001, "Per-Callee ABI
//! Specification"). Registers are declared here and resolved by name in the body.

use super::lex::{self, PErr, PResult, at_eol, eol, expected, fail, ident, need_char, phys_in, reg_word, uint, ws};
use super::{FnState, P, limits};
use crate::ir::abi_spec::*;
use crate::ir::model::*;
use crate::ir::span::{AbiSpans, Span};

const ABI_KEYWORDS: &[&str] = &[
    "param",
    "return",
    "retaddr",
    "retaddr-before-params",
    "first-param",
    "available",
    "reserved",
    "stack-pointer",
    "retaddr-range",
    "preserved",
    "scratch",
    "suspend-scratch",
];

impl FnState {
    /// Resolves a register name, or reports it undeclared with a suggestion.
    pub(super) fn resolve<'a>(&self, at: &'a str, name: &str) -> Result<VRegId, PErr<'a>> {
        resolve_in(&self.names, &self.f.vregs, &self.suggestions_left, at, name)
    }
}

impl<'a> P<'a> {
    pub(super) fn func_directive(
        &mut self,
        name: &'static str,
        name_span: Span,
        start: &'a str,
        r: &'a str,
    ) -> PResult<'a, ()> {
        let text = self.text;
        let fs = self.func.as_mut().expect("caller checked");
        if fs.in_blocks {
            return fail(start, name.len() + 1, format!("directive .{name} must come before the first block label"));
        }
        let (r, ()) = ws(r)?;
        let dup = |fs: &FnState| fs.spans.directive(name).is_some();
        let rest = match name {
            "maxnreg" | "minnctapersm" => {
                if dup(fs) {
                    return fail(start, name.len() + 1, format!("duplicate .{name}"));
                }
                let (rest, v) = value(r, "a register count")?;
                if name == "maxnreg" {
                    fs.f.maxnreg = Some(v);
                } else {
                    fs.f.minnctapersm = Some(v);
                }
                rest
            }
            "maxntid" | "reqntid" => {
                if dup(fs) {
                    return fail(start, name.len() + 1, format!("duplicate .{name}"));
                }
                let mut dims = Vec::new();
                let mut rest = r;
                loop {
                    let (r2, v) = value(rest, "a thread count")?;
                    dims.push(v);
                    let (r2, ()) = ws(r2)?;
                    match r2.strip_prefix(',') {
                        Some(r3) if dims.len() < limits::MAX_DIMS => rest = ws(r3)?.0,
                        Some(_) => {
                            return fail(r2, 1, format!("too many dimensions: the limit is {}", limits::MAX_DIMS));
                        }
                        None => {
                            rest = r2;
                            break;
                        }
                    }
                }
                if name == "maxntid" {
                    fs.f.maxntid = Some(dims);
                } else {
                    fs.f.reqntid = Some(dims);
                }
                rest
            }
            "coroutine" | "allow-reserved-smem" => {
                if dup(fs) {
                    return fail(start, name.len() + 1, format!("duplicate .{name}"));
                }
                if name == "coroutine" {
                    fs.f.coroutine = true;
                } else {
                    fs.f.allow_reserved_smem = true;
                }
                r
            }
            "reg" => return self.reg_decl(start, r),
            "pin" | "alias" | "flags" => return self.vreg_attr(name, start, r),
            "abi" => {
                if fs.f.abi.is_some() {
                    return fail(start, 4, "duplicate .abi block: a function has one");
                }
                let (rest, ()) = need_char(r, '{', "'{' to open the .abi block")?;
                let (rest, ()) = eol(rest, "end of line after '{'")?;
                fs.f.abi = Some(AbiSpec::default());
                let block = Span::new(off(text, start), off(text, rest));
                fs.spans.abi = Some(AbiSpans { block, ..AbiSpans::default() });
                fs.in_abi = true;
                return Ok((rest, ()));
            }
            _ => unreachable!("FUNC_DIRECTIVES lists only the names above"),
        };
        fs.spans.directives.push((name, name_span.to(Span::new(off(text, rest), off(text, rest)))));
        eol(rest, &format!("end of line after .{name}"))
    }

    /// `.reg .CLASS[.xN] NAME[<N>] (, NAME[<N>])*`.
    fn reg_decl(&mut self, start: &'a str, r: &'a str) -> PResult<'a, ()> {
        let text = self.text;
        let loc = self.loc;
        // Registers of the functions already parsed, for the module-wide limits.
        let before: usize = self.module.functions.iter().map(|f| f.vregs.len()).sum();
        let fs = self.func.as_mut().expect("caller checked");
        let Some(c) = r.strip_prefix('.') else {
            return expected(r, "a register class such as .R after .reg");
        };
        let (rest, cls) = match ident(c) {
            Ok(x) => x,
            Err(_) => return expected(c, "a register class such as .R after .reg"),
        };
        let (cname, suffix) = cls.split_once('.').unwrap_or((cls, ""));
        let Some(class) = RegClass::from_name(cname) else {
            let mut e = PErr::new(c, cname.len(), format!("unknown register class .{cname}"));
            let names = RegClass::ALL.map(|c| c.name());
            e = match crate::util::closest(cname, names) {
                Some(s) => e.help(format!("did you mean .{s}?")),
                None => e.help("the classes are .R, .Ralt, .UR, .URext, .P, .UP, .T, .B and .UB"),
            };
            return Err(nom::Err::Failure(e));
        };
        let width = match suffix {
            "" | "x1" => 1u8,
            "x2" => 2,
            "x4" => 4,
            "x8" => 8,
            "x16" => 16,
            _ => {
                let at = &c[cname.len()..];
                return fail(
                    at,
                    suffix.len() + 1,
                    "register width must be .x1, .x2, .x4, .x8 or .x16 (32-bit registers)",
                );
            }
        };
        let mut rest = ws(rest)?.0;
        loop {
            let (r2, name) = match lex::vreg_name(rest) {
                Ok(x) => x,
                Err(nom::Err::Error(_)) => return expected(rest, "a register name such as %r or %r<16>"),
                Err(e) => return Err(e),
            };
            let name_span = Span::new(off(text, rest), off(text, r2));
            let (r2, count) = if let Some(n) = r2.strip_prefix('<') {
                let (n2, (v, t)) = match lex::uint_any(n) {
                    Ok(x) => x,
                    Err(nom::Err::Error(_)) => return expected(n, "a register count after '<'"),
                    Err(e) => return Err(e),
                };
                let v = match v {
                    Some(v) if v <= limits::MAX_RANGE => v as u32,
                    _ => {
                        return fail(
                            rest,
                            name.len() + t.len() + 2,
                            format!(
                                "register range {name}<{}> exceeds the limit of {} registers per declaration",
                                lex::clip(t),
                                limits::MAX_RANGE
                            ),
                        );
                    }
                };
                let (n2, ()) = need_char(n2, '>', "'>' to close the register range")?;
                (n2, Some(v))
            } else {
                (r2, None)
            };
            let n = count.map_or(1, |c| c as usize);
            if fs.f.vregs.len() + n > limits::MAX_VREGS_PER_FUNCTION {
                return fail(
                    rest,
                    name.len(),
                    format!(
                        "function {} declares more than {} registers, the limit per function",
                        fs.f.name,
                        limits::MAX_VREGS_PER_FUNCTION
                    ),
                );
            }
            if let Some(msg) = crate::ir::limits::check_module_regs((before + fs.f.vregs.len() + n) as u64, text.len())
            {
                return fail(rest, name.len(), msg);
            }
            let decl = fs.f.decls.len();
            fs.f.decls.push(RegDecl { prefix: name.to_string(), count, class, width, origin: loc });
            fs.spans.decls.push(name_span);
            let mut add = |vname: String| {
                let id = fs.f.vregs.len() as u32;
                fs.names.entry(vname.as_str().into()).or_insert(id);
                let mut v = VReg::new(vname, class, width, decl);
                v.origin = loc;
                fs.f.vregs.push(v);
                fs.spans.vregs.push(name_span);
            };
            match count {
                None => add(name.to_string()),
                Some(c) => (0..c).for_each(|k| add(format!("{name}{k}"))),
            }
            let (r3, ()) = ws(r2)?;
            match r3.strip_prefix(',') {
                Some(r4) => rest = ws(r4)?.0,
                None => {
                    let _ = start;
                    return eol(r3, "',' or end of line after the register declaration");
                }
            }
        }
    }

    /// `.pin %v = R4`, `.alias %v = %w`, `.flags %v = 0x200`.
    fn vreg_attr(&mut self, kind: &'static str, start: &'a str, r: &'a str) -> PResult<'a, ()> {
        let text = self.text;
        let fs = self.func.as_mut().expect("caller checked");
        let (r2, name) = match lex::vreg_name(r) {
            Ok(x) => x,
            Err(nom::Err::Error(_)) => return expected(r, "a register name"),
            Err(e) => return Err(e),
        };
        let id = fs.resolve(r, name).map_err(nom::Err::Failure)?;
        let bit = match kind {
            "pin" => 1u8,
            "alias" => 2,
            _ => 4,
        };
        if fs.attr_seen.len() <= id.index() {
            fs.attr_seen.resize(fs.f.vregs.len(), 0);
        }
        if fs.attr_seen[id.index()] & bit != 0 {
            return fail(r, name.len(), format!("duplicate .{kind} for {name}"));
        }
        let (r2, ()) = need_char(r2, '=', &format!("'=' after the register in .{kind}"))?;
        let (r2, ()) = ws(r2)?;
        let rest = match kind {
            "pin" => {
                let file = fs.f.vregs[id.index()].class.file();
                let (w_rest, w) = match reg_word(r2) {
                    Ok(x) => x,
                    Err(_) => return expected(r2, "a physical register such as R4"),
                };
                match lex::phys_reg(w) {
                    Some(Ok(p)) if p.file == file => {
                        fs.f.vregs[id.index()].pin = Some(p.index);
                    }
                    Some(Ok(p)) => {
                        let class = fs.f.vregs[id.index()].class.name();
                        return fail(
                            r2,
                            w.len(),
                            format!(
                                "cannot pin {name} (class {class}) to {p}: expected a register of the {} file",
                                file.prefix()
                            ),
                        );
                    }
                    Some(Err(msg)) => return fail(r2, w.len(), msg),
                    None => return expected(r2, "a physical register such as R4"),
                }
                w_rest
            }
            "alias" => {
                let (w_rest, parent) = match lex::vreg_name(r2) {
                    Ok(x) => x,
                    Err(nom::Err::Error(_)) => return expected(r2, "the alias parent register"),
                    Err(e) => return Err(e),
                };
                let pid = fs.resolve(r2, parent).map_err(nom::Err::Failure)?;
                fs.f.vregs[id.index()].alias = Some(pid);
                w_rest
            }
            _ => {
                let (w_rest, v) = match uint(r2, u64::MAX, "flags") {
                    Ok(x) => x,
                    Err(nom::Err::Error(_)) => return expected(r2, "the flag bits (an integer such as 0x200)"),
                    Err(e) => return Err(e),
                };
                fs.f.vregs[id.index()].flags = v;
                w_rest
            }
        };
        fs.attr_seen[id.index()] |= bit;
        fs.spans.vreg_attrs.push((id.0, kind, Span::new(off(text, start), off(text, rest))));
        eol(rest, &format!("end of line after .{kind}"))
    }

    /// One line inside `.abi { ... }`.
    pub(super) fn abi_line(&mut self, i: &'a str) -> PResult<'a, ()> {
        let text = self.text;
        let fs = self.func.as_mut().expect("caller checked");
        if let Some(r) = i.strip_prefix('}') {
            fs.in_abi = false;
            if let Some(s) = fs.spans.abi.as_mut() {
                s.block = s.block.to(Span::new(off(text, i), off(text, r)));
            }
            return eol(r, "end of line after '}'");
        }
        let (r, kw) = match lex::word(i) {
            Ok(x) => x,
            Err(_) => return expected(i, "an ABI entry such as 'param 1x4' or '}' to close the .abi block"),
        };
        let Some(&kw) = ABI_KEYWORDS.iter().find(|&&k| k == kw) else {
            let mut e = PErr::new(i, kw.len(), format!("unknown ABI entry '{kw}'"));
            if let Some(s) = crate::util::closest(kw, ABI_KEYWORDS.iter().copied()) {
                e = e.help(format!("did you mean '{s}'?"));
            }
            return Err(nom::Err::Failure(e));
        };
        let (r, ()) = ws(r)?;
        let FnState { f, names, spans, suggestions_left, .. } = fs;
        let abi = f.abi.get_or_insert_with(AbiSpec::default);
        let spans = spans.abi.get_or_insert_with(AbiSpans::default);
        let single = matches!(
            kw,
            "retaddr"
                | "retaddr-before-params"
                | "first-param"
                | "available"
                | "reserved"
                | "stack-pointer"
                | "retaddr-range"
        );
        if single && spans.field(kw).is_some() {
            return fail(i, kw.len(), format!("duplicate '{kw}' in the .abi block"));
        }
        let rest = match kw {
            "param" | "return" => {
                let (rest, mut v) = abi_value(r)?;
                let (rest, ()) = ws(rest)?;
                let rest = if let Some(b) = rest.strip_prefix('=') {
                    let (b, ()) = ws(b)?;
                    let (b2, name) = match lex::vreg_name(b) {
                        Ok(x) => x,
                        Err(nom::Err::Error(_)) => return expected(b, "the register that carries the value"),
                        Err(e) => return Err(e),
                    };
                    v.bind = Some(resolve_in(names, &f.vregs, suggestions_left, b, name).map_err(nom::Err::Failure)?);
                    b2
                } else {
                    rest
                };
                let span = Span::new(off(text, i), off(text, rest));
                if kw == "param" {
                    abi.params.push(v);
                    spans.params.push(span);
                } else {
                    abi.returns.push(v);
                    spans.returns.push(span);
                }
                rest
            }
            "retaddr" => {
                let (rest, m) = match lex::word(r) {
                    Ok(x) => x,
                    Err(_) => return expected(r, "a return-address mode: fixed, regular, uniform or computed"),
                };
                let Some(mode) = RetAddrMode::from_name(m) else {
                    return fail(
                        r,
                        m.len(),
                        format!("unknown return-address mode '{m}': expected fixed, regular, uniform or computed"),
                    );
                };
                let file = if mode == RetAddrMode::Uniform { RegFile::UR } else { RegFile::R };
                let (rest, ()) = ws(rest)?;
                let (rest, reg) =
                    if at_eol(rest) { (rest, None) } else { phys_in(rest, file).map(|(a, b)| (a, Some(b)))? };
                abi.ret_addr = Some(RetAddr { mode, reg });
                rest
            }
            "retaddr-before-params" => {
                abi.ret_addr_before_params = true;
                r
            }
            "first-param" | "stack-pointer" => {
                let (rest, reg) = phys_in(r, RegFile::R)?;
                if kw == "first-param" {
                    abi.first_param = Some(reg);
                } else {
                    abi.stack_pointer = Some(reg);
                }
                rest
            }
            "available" => {
                if let Some(rest) = r.strip_prefix("computed") {
                    abi.available = Some(Available::Computed);
                    rest
                } else {
                    let (rest, v) = value(r, "a register count or 'computed'")?;
                    abi.available = Some(Available::Count(v));
                    rest
                }
            }
            "reserved" | "retaddr-range" => {
                let (rest, range) = reg_range(r, RegFile::R)?;
                if kw == "reserved" {
                    abi.reserved = Some(range);
                } else {
                    abi.ret_addr_range = Some(range);
                }
                rest
            }
            _ => {
                let (rest, set) = reg_set(r)?;
                let span = Span::new(off(text, i), off(text, rest));
                let (list, sl) = match kw {
                    "preserved" => (&mut abi.preserved, &mut spans.preserved),
                    "scratch" => (&mut abi.scratch, &mut spans.scratch),
                    _ => (&mut abi.suspend_scratch, &mut spans.suspend_scratch),
                };
                list.push(set);
                sl.push(span);
                rest
            }
        };
        if single {
            spans.fields.push((kw, Span::new(off(text, i), off(text, rest))));
        }
        eol(rest, &format!("end of line after '{kw}'"))
    }
}

/// Resolves a register name, or reports it undeclared with a suggestion.
fn resolve_in<'a>(
    names: &super::NameMap,
    vregs: &[VReg],
    budget: &std::cell::Cell<u32>,
    at: &'a str,
    name: &str,
) -> Result<VRegId, PErr<'a>> {
    if let Some(&id) = names.get(name) {
        return Ok(VRegId(id));
    }
    let mut e = PErr::new(at, name.len(), format!("undeclared register {name}"));
    // Suggestions cost an edit distance per candidate: only for the first few errors,
    // short names and functions of reasonable size.
    let left = budget.get();
    budget.set(left.saturating_sub(1));
    if left > 0
        && name.len() <= 32
        && vregs.len() <= 4096
        && let Some(s) = crate::util::closest(name, vregs.iter().map(|v| v.name.as_ref()))
    {
        e = e.help(format!("did you mean {s}?"));
    }
    Err(e)
}

pub(super) fn off(text: &str, s: &str) -> usize {
    let o = (s.as_ptr() as usize).wrapping_sub(text.as_ptr() as usize);
    debug_assert!(o <= text.len(), "a slice that is not part of the parsed text");
    o.min(text.len())
}

/// A bounded non-negative directive value.
fn value<'a>(i: &'a str, what: &str) -> PResult<'a, u32> {
    match uint(i, limits::MAX_DIRECTIVE_VALUE, "value") {
        Ok((r, v)) => Ok((r, v as u32)),
        Err(nom::Err::Error(_)) => expected(i, what),
        Err(e) => Err(e),
    }
}

/// `COUNTxSIZE [align N]`.
fn abi_value(i: &str) -> PResult<'_, AbiValue> {
    let digits = i.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return expected(i, "a descriptor COUNTxSIZE such as 1x4");
    }
    let count = bounded_decimal(i, digits, "element count")?;
    let Some(r) = i[digits..].strip_prefix('x') else {
        return expected(&i[digits..], "'x' and the element size (COUNTxSIZE, such as 1x4)");
    };
    let sdigits = r.bytes().take_while(u8::is_ascii_digit).count();
    if sdigits == 0 {
        return expected(r, "the element size in bytes after 'x'");
    }
    let size = bounded_decimal(r, sdigits, "element size")?;
    let mut rest = &r[sdigits..];
    if rest.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_') {
        return expected(rest, "end of the COUNTxSIZE descriptor");
    }
    let mut align = None;
    let (after, ()) = ws(rest)?;
    if let Some(a) = after.strip_prefix("align").filter(|a| !a.starts_with(|c: char| c.is_alphanumeric())) {
        let (a, ()) = ws(a)?;
        let (a, v) = value(a, "an alignment in bytes after 'align'")?;
        align = Some(v);
        rest = a;
    }
    Ok((rest, AbiValue { count, size, align, bind: None }))
}

fn bounded_decimal<'a>(i: &'a str, digits: usize, what: &str) -> Result<u32, nom::Err<PErr<'a>>> {
    match i[..digits].parse::<u64>() {
        Ok(v) if v <= limits::MAX_DIRECTIVE_VALUE => Ok(v as u32),
        _ => Err(nom::Err::Failure(PErr::new(
            i,
            digits,
            format!("{what} {} exceeds the limit of {}", lex::clip(&i[..digits]), limits::MAX_DIRECTIVE_VALUE),
        ))),
    }
}

/// `Rlo..Rhi` or a single `Rn`.
fn reg_range(i: &str, file: RegFile) -> PResult<'_, (u16, u16)> {
    let (r, lo) = phys_in(i, file)?;
    match r.strip_prefix("..") {
        Some(r2) => {
            let (r3, hi) = phys_in(r2, file)?;
            Ok((r3, (lo, hi)))
        }
        None => Ok((r, (lo, lo))),
    }
}

/// `FILE RANGE (, RANGE)*`: `R R16..R31, R40`.
fn reg_set(i: &str) -> PResult<'_, RegSet> {
    let (r, f) = match reg_word(i) {
        Ok(x) => x,
        Err(_) => return expected(i, "a register file (R, UR, P, UP, T, B or UB)"),
    };
    let Some(file) = RegFile::ALL.into_iter().find(|x| x.prefix() == f) else {
        return fail(i, f.len(), format!("unknown register file '{f}': expected R, UR, P, UP, T, B or UB"));
    };
    let (mut r, ()) = ws(r)?;
    let mut ranges = Vec::new();
    loop {
        let (r2, range) = reg_range(r, file)?;
        ranges.push(range);
        let (r2, ()) = ws(r2)?;
        match r2.strip_prefix(',') {
            Some(r3) if ranges.len() < 256 => r = ws(r3)?.0,
            Some(_) => return fail(r2, 1, "too many ranges in one register set: the limit is 256"),
            None => return Ok((r2, RegSet { file, ranges })),
        }
    }
}
