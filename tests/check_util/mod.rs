//! Test support for the allocation checker: a tiny builder of functions from a subset of
//! Ori IR text (until the Ori parser lands), and a fixture holding an allocation.
//!
//! Registers are declared implicitly by name prefix on first appearance: `%rd` R pair,
//! `%q` R quad, `%o` R x8, `%p` P, `%up` UP, `%ub` UB, `%u` UR, `%tc` T, `%b` B, anything
//! else R. Lines are a label `NAME:` or one instruction
//! `[@[!]PRED] [defs =] OP[.MODS] [operands]`; operands are vregs (`%rd0.lo`, `%q0.2`),
//! physical registers (`R4`, `RZ`, `UR3`, `P0`, `PT`), memory `[base + index + 0x10]`,
//! immediates, `SR_*` specials or symbols.
#![allow(dead_code)]

use radbg::alloc::check::{Allocation, CheckError, SpillSlotInfo, check};
use radbg::ir::{
    Block, FuncKind, Function, Guard, Inst, MemRef, Opcode, Operand, PhysReg, Reg, RegClass, RegFile, RegRef, VRegId,
};

pub fn class_of(name: &str) -> (RegClass, u8) {
    let n = name.trim_start_matches('%');
    let table: &[(&str, RegClass, u8)] = &[
        ("rd", RegClass::R, 2),
        ("q", RegClass::R, 4),
        ("o", RegClass::R, 8),
        ("up", RegClass::UP, 1),
        ("ub", RegClass::UB, 1),
        ("p", RegClass::P, 1),
        ("u", RegClass::UR, 1),
        ("tc", RegClass::T, 1),
        ("b", RegClass::B, 1),
    ];
    table.iter().find(|(p, _, _)| n.starts_with(p)).map_or((RegClass::R, 1), |&(_, c, w)| (c, w))
}

pub fn vreg(f: &mut Function, name: &str) -> VRegId {
    if let Some(v) = f.vreg_by_name(name) {
        return v;
    }
    let (c, w) = class_of(name);
    f.add_vreg(name, c, w)
}

/// A physical register name (`R4`, `RZ`, `UR3`, `URZ`, `P0`, `PT`, `UP1`, `UPT`, `T3`).
pub fn phys(tok: &str) -> Option<PhysReg> {
    let zero = [("RZ", RegFile::R), ("URZ", RegFile::UR), ("PT", RegFile::P), ("UPT", RegFile::UP)];
    if let Some(&(_, file)) = zero.iter().find(|(n, _)| *n == tok) {
        return Some(PhysReg { file, index: file.zero_register()? });
    }
    let files = [("UR", RegFile::UR), ("UP", RegFile::UP), ("UB", RegFile::UB), ("R", RegFile::R)];
    let files2 = [("P", RegFile::P), ("T", RegFile::T), ("B", RegFile::B)];
    for (p, file) in files.into_iter().chain(files2) {
        if let Some(n) = tok.strip_prefix(p)
            && !n.is_empty()
            && n.bytes().all(|c| c.is_ascii_digit())
        {
            return Some(PhysReg { file, index: n.parse().ok()? });
        }
    }
    None
}

fn reg(f: &mut Function, tok: &str) -> Reg {
    if let Some(p) = phys(tok) {
        return Reg::P(p);
    }
    let (name, comp) = match tok.split_once('.') {
        Some((n, "lo")) => (n, Some(0)),
        Some((n, "hi")) => (n, Some(1)),
        Some((n, c)) => (n, Some(c.parse::<u8>().expect("component"))),
        None => (tok, None),
    };
    Reg::V(RegRef { vreg: vreg(f, name), comp })
}

fn number(s: &str) -> Option<i64> {
    let (neg, s) = match s.strip_prefix('-') {
        Some(r) => (true, r.trim()),
        None => (false, s),
    };
    let v = match s.strip_prefix("0x") {
        Some(h) => i64::from_str_radix(h, 16).ok()?,
        None => s.parse().ok()?,
    };
    Some(if neg { -v } else { v })
}

fn operand(f: &mut Function, tok: &str) -> Operand {
    let tok = tok.trim();
    if let Some(inner) = tok.strip_prefix('[').and_then(|t| t.strip_suffix(']')) {
        let mut m = MemRef { base: None, index: None, sym: None, offset: 0 };
        let inner = inner.replace("- ", "+ -");
        for part in inner.split('+').map(str::trim).filter(|p| !p.is_empty()) {
            if let Some(n) = number(part) {
                m.offset += n;
            } else if part.starts_with('%') || phys(part).is_some() {
                let r = reg(f, part);
                if m.base.is_none() {
                    m.base = Some(r);
                } else {
                    m.index = Some(r);
                }
            } else {
                m.sym = Some(part.into());
            }
        }
        return Operand::Mem(Box::new(m));
    }
    if tok.starts_with('%') || phys(tok).is_some() {
        return Operand::Reg(reg(f, tok));
    }
    if let Some(n) = number(tok) {
        return Operand::Imm(n);
    }
    if tok.starts_with("SR_") {
        return Operand::Special(tok.into());
    }
    Operand::Sym(tok.into())
}

/// Splits on commas outside brackets.
fn split_ops(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in s.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => depth -= 1,
            ',' if depth == 0 => {
                out.push(s[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    if !s[start..].trim().is_empty() {
        out.push(s[start..].trim());
    }
    out
}

/// Parses one instruction line into `f`'s registers.
pub fn inst(f: &mut Function, line: &str) -> Inst {
    let mut line = line.trim();
    let mut guard = None;
    if let Some(rest) = line.strip_prefix('@') {
        let (g, rest) = rest.split_once(' ').expect("guard then instruction");
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

/// Builds a function from the text form described in the module doc.
pub fn func(src: &str) -> Function {
    let mut f = Function::new("test", FuncKind::Entry);
    for raw in src.lines() {
        let line = raw.split("//").next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        if let Some(decl) = line.strip_prefix(".reg ") {
            for n in decl.split_whitespace() {
                vreg(&mut f, n);
            }
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
        f.blocks.last_mut().expect("a block").insts.push(i);
    }
    f
}

/// A function plus everything an [`Allocation`] borrows.
#[derive(Clone, Debug)]
pub struct Fixture {
    pub f: Function,
    pub slot: Vec<Option<u16>>,
    pub fixed: Vec<(RegFile, u16)>,
    pub pins: Vec<(VRegId, u16)>,
    pub spills: Vec<SpillSlotInfo>,
    pub exit_live: Vec<VRegId>,
    pub budget: Vec<(RegFile, u32)>,
}

impl Fixture {
    pub fn new(src: &str) -> Fixture {
        Fixture::of(func(src))
    }

    pub fn of(f: Function) -> Fixture {
        let n = f.vregs.len();
        Fixture {
            f,
            slot: vec![None; n],
            fixed: Vec::new(),
            pins: Vec::new(),
            spills: Vec::new(),
            exit_live: Vec::new(),
            budget: Vec::new(),
        }
    }

    pub fn id(&self, name: &str) -> VRegId {
        self.f.vreg_by_name(name).unwrap_or_else(|| panic!("no vreg {name}"))
    }

    /// `"%r0=R4 %rd0=R6"`: assigns registers (`-` leaves one unassigned).
    pub fn assign(mut self, spec: &str) -> Fixture {
        for item in spec.split_whitespace() {
            let (v, r) = item.split_once('=').expect("name=REG");
            let id = self.id(v);
            self.slot[id.index()] = if r == "-" { None } else { Some(phys(r).expect("register").index) };
        }
        self
    }

    /// Gives every allocatable vreg its own registers, in id order, aligned (the trivial
    /// reference allocator). R registers start at R8 so that tests may name R0..R7 as
    /// physical operands.
    pub fn own_registers(mut self) -> Fixture {
        let mut next = [0u16; 7];
        next[RegFile::R.index()] = 8;
        for (i, v) in self.f.vregs.iter().enumerate() {
            if !v.class.is_allocatable() {
                continue;
            }
            let k = v.file().index();
            let align = radbg::alloc::check::align_of(v.width);
            let first = next[k].div_ceil(align) * align;
            self.slot[i] = Some(first);
            next[k] = first + v.width as u16;
        }
        self
    }

    pub fn fixed(mut self, regs: &str) -> Fixture {
        self.fixed.extend(regs.split_whitespace().map(|r| {
            let p = phys(r).expect("register");
            (p.file, p.index)
        }));
        self
    }

    pub fn pin(mut self, spec: &str) -> Fixture {
        for item in spec.split_whitespace() {
            let (v, r) = item.split_once('=').expect("name=REG");
            let id = self.id(v);
            self.pins.push((id, phys(r).expect("register").index));
        }
        self
    }

    pub fn budget(mut self, file: RegFile, n: u32) -> Fixture {
        self.budget.push((file, n));
        self
    }

    pub fn exit_live(mut self, names: &str) -> Fixture {
        let ids: Vec<VRegId> = names.split_whitespace().map(|n| self.id(n)).collect();
        self.exit_live.extend(ids);
        self
    }

    /// A spilled vreg with its slot and temps (`"%t0 %t1"`).
    pub fn spill(mut self, vreg: &str, shared: bool, offset: u32, bytes: u32, temps: &str) -> Fixture {
        let temps = temps.split_whitespace().map(|n| self.id(n)).collect();
        self.spills.push(SpillSlotInfo { vreg: self.id(vreg), shared, offset, bytes, temps });
        self
    }

    pub fn alloc(&self) -> Allocation<'_> {
        Allocation {
            func: &self.f,
            slot: &self.slot,
            fixed: &self.fixed,
            pins: &self.pins,
            spills: &self.spills,
            exit_live: &self.exit_live,
            budget: &self.budget,
        }
    }

    pub fn errors(&self) -> Vec<CheckError> {
        check(&self.alloc()).err().unwrap_or_default()
    }

    /// The errors as text, one per line (empty when the allocation passes).
    pub fn report(&self) -> String {
        self.errors().iter().map(|e| format!("{e}\n")).collect()
    }
}
