//! A tiny test-only builder of functions from a subset of Ori IR text, used by the
//! analysis tests. Registers are declared implicitly by name prefix: `%p` P, `%up` UP,
//! `%u` UR, `%rd` R pair, `%q` R quad, `%b` B, `%t` T, anything else R. Lines are a
//! label `NAME:` or one instruction `[@[!]%p] [defs =] OP[.MODS] [operands]`.
#![allow(dead_code)]

use radbg::ir::{
    Block, FuncKind, Function, Guard, Inst, MemRef, Opcode, Operand, PhysReg, Reg, RegClass, RegFile, RegRef, VRegId,
};

fn class_of(name: &str) -> (RegClass, u8) {
    let n = name.trim_start_matches('%');
    if n.starts_with("up") {
        (RegClass::UP, 1)
    } else if n.starts_with('p') {
        (RegClass::P, 1)
    } else if n.starts_with('u') {
        (RegClass::UR, 1)
    } else if n.starts_with("rd") {
        (RegClass::R, 2)
    } else if n.starts_with('q') {
        (RegClass::R, 4)
    } else if n.starts_with('b') {
        (RegClass::B, 1)
    } else if n.starts_with('t') {
        (RegClass::T, 1)
    } else {
        (RegClass::R, 1)
    }
}

fn vreg(f: &mut Function, name: &str) -> VRegId {
    if let Some(v) = f.vreg_by_name(name) {
        return v;
    }
    let (c, w) = class_of(name);
    f.add_vreg(name, c, w)
}

fn reg(f: &mut Function, tok: &str) -> Reg {
    match tok {
        "PT" => return Reg::P(PhysReg { file: RegFile::P, index: 7 }),
        "RZ" => return Reg::P(PhysReg { file: RegFile::R, index: 255 }),
        _ => {}
    }
    let (name, comp) = match tok.split_once('.') {
        Some((n, "lo")) => (n, Some(0)),
        Some((n, "hi")) => (n, Some(1)),
        Some((n, c)) => (n, Some(c.parse::<u8>().expect("component"))),
        None => (tok, None),
    };
    Reg::V(RegRef { vreg: vreg(f, name), comp })
}

fn operand(f: &mut Function, tok: &str) -> Operand {
    let tok = tok.trim();
    if let Some(inner) = tok.strip_prefix('[').and_then(|t| t.strip_suffix(']')) {
        let mut m = MemRef { base: None, index: None, sym: None, offset: 0 };
        for part in inner.split('+').map(str::trim) {
            if part.starts_with('%') {
                if m.base.is_none() {
                    m.base = Some(reg(f, part));
                } else {
                    m.index = Some(reg(f, part));
                }
            } else if let Some(h) = part.strip_prefix("0x") {
                m.offset = i64::from_str_radix(h, 16).unwrap();
            } else if let Ok(i) = part.parse() {
                m.offset = i;
            } else {
                m.sym = Some(part.into());
            }
        }
        return Operand::Mem(Box::new(m));
    }
    if tok.starts_with('%') || tok == "PT" || tok == "RZ" {
        return Operand::Reg(reg(f, tok));
    }
    if let Some(h) = tok.strip_prefix("0x") {
        return Operand::Imm(i64::from_str_radix(h, 16).unwrap());
    }
    if let Ok(i) = tok.parse() {
        return Operand::Imm(i);
    }
    if tok.starts_with("SR_") {
        return Operand::Special(tok.into());
    }
    Operand::Sym(tok.into())
}

fn split_ops(s: &str) -> Vec<&str> {
    if s.trim().is_empty() { Vec::new() } else { s.split(',').map(str::trim).collect() }
}

/// Parses one instruction line into `f`'s registers.
pub fn inst(f: &mut Function, line: &str) -> Inst {
    let mut line = line.trim();
    let mut guard = None;
    if let Some(rest) = line.strip_prefix('@') {
        let (g, rest) = rest.split_once(' ').unwrap();
        let (negated, g) = match g.strip_prefix('!') {
            Some(g) => (true, g),
            None => (false, g),
        };
        guard = Some(Guard { reg: reg(f, g), negated });
        line = rest.trim();
    }
    let (defs, rest) = match line.split_once(" = ") {
        Some((d, r)) => (split_ops(d), r.trim()),
        None => (Vec::new(), line),
    };
    let (mn, uses) = match rest.split_once(' ') {
        Some((m, u)) => (m, split_ops(u)),
        None => (rest, Vec::new()),
    };
    let (op, mods) = match mn.find('.') {
        Some(i) => (&mn[..i], &mn[i..]),
        None => (mn, ""),
    };
    let d: Vec<Operand> = defs.iter().map(|t| operand(f, t)).collect();
    let u: Vec<Operand> = uses.iter().map(|t| operand(f, t)).collect();
    let mut i = Inst::new(Opcode::from_mnemonic(op), d, u);
    i.mods = mods.into();
    i.guard = guard;
    i
}

/// Builds a function from the text form described in the module doc. Registers named
/// in `decl` (whitespace separated) are declared first, in that order.
pub fn func_with(decl: &str, src: &str) -> Function {
    let mut f = Function::new("test", FuncKind::Entry);
    for n in decl.split_whitespace() {
        vreg(&mut f, n);
    }
    for raw in src.lines() {
        let line = raw.split("//").next().unwrap().trim();
        if line.is_empty() {
            continue;
        }
        if let Some(label) = line.strip_suffix(':') {
            f.blocks.push(Block { label: label.to_string(), insts: Vec::new() });
            continue;
        }
        if f.blocks.is_empty() {
            f.blocks.push(Block { label: "BB0".to_string(), insts: Vec::new() });
        }
        let i = inst(&mut f, line);
        f.blocks.last_mut().unwrap().insts.push(i);
    }
    f
}

pub fn func(src: &str) -> Function {
    func_with("", src)
}

/// Looks a vreg up by name, panicking in tests when it does not exist.
pub fn v(f: &Function, name: &str) -> VRegId {
    f.vreg_by_name(name).unwrap_or_else(|| panic!("no vreg {name}"))
}
