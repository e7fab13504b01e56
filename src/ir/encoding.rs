//! The 32-bit operand encoding of seed 000 "Constraint System" ("each operand
//! encodes: bits 28–30 = operand type, bits 0–23 = register index"), computable for
//! every operand so the debugger can show the word the interference builder reads.
//!
//! The seeds fix three type codes: 1 register (seed 000), 5 predicate and 6 the
//! operand-list sentinel (seed 004, "Backward Walk Live Set Update Rule":
//! `(operand >> 28) & 7`). Seed 000 also says a paired (double-width) operand uses
//! bit 23 for the hi/lo half. The rest is radbg's choice, recorded here:
//!
//! | bits  | meaning |
//! |-------|---------|
//! | 31    | physical: the index is a hardware register number, not a vreg id |
//! | 28–30 | type: 0 none, 1 register, 2 immediate, 3 component of a wide vreg, 4 memory / constant bank, 5 predicate, 6 end of operand list, 7 other (special register, symbol) |
//! | 24–27 | types 1, 4 and 5: the register file (`RegFile::index`: 0 R, 1 UR, 2 P, 3 UP, 4 T, 5 B, 6 UB; for type 4 the base's) and, for a guard, bit 27 = negated; type 4 with 0xF: a constant bank; type 3: the component number |
//! | 23    | type 3: odd component (the hi half of its pair, seed 000) |
//! | 0–23  | the index: vreg id or register number (type 3: bits 0–22); immediates: the low 24 bits of the value; memory: the base register (0xFFFFFF when none); constant bank: the low 24 bits of the offset |
//!
//! Knows the model only; the allocator does not depend on these words.

use std::fmt;

use crate::ir::model::*;

pub const TYPE_SHIFT: u32 = 28;
pub const TYPE_MASK: u32 = 0x7;
pub const INDEX_MASK: u32 = 0x00FF_FFFF;
pub const PHYSICAL: u32 = 1 << 31;
pub const NEGATED: u32 = 1 << 27;
pub const HI_HALF: u32 = 1 << 23;
/// No register (a memory operand without base).
pub const NO_INDEX: u32 = INDEX_MASK;
/// Bits 24–27 of a type-4 word for a constant-bank operand.
pub const CBANK: u32 = 0xF << 24;

/// The operand types (bits 28–30).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum OperandType {
    None = 0,
    Register = 1,
    Immediate = 2,
    Component = 3,
    Memory = 4,
    Predicate = 5,
    End = 6,
    Other = 7,
}

impl OperandType {
    pub fn from_bits(b: u32) -> OperandType {
        match b & TYPE_MASK {
            0 => OperandType::None,
            1 => OperandType::Register,
            2 => OperandType::Immediate,
            3 => OperandType::Component,
            4 => OperandType::Memory,
            5 => OperandType::Predicate,
            6 => OperandType::End,
            _ => OperandType::Other,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            OperandType::None => "none",
            OperandType::Register => "register",
            OperandType::Immediate => "immediate",
            OperandType::Component => "component",
            OperandType::Memory => "memory",
            OperandType::Predicate => "predicate",
            OperandType::End => "end",
            OperandType::Other => "other",
        }
    }
}

fn word(ty: OperandType, high: u32, index: u32) -> u32 {
    ((ty as u32) << TYPE_SHIFT) | high | (index & INDEX_MASK)
}

/// The word of a register operand (whole vreg, component, or physical register).
pub fn encode_reg(f: &Function, r: Reg) -> u32 {
    match r {
        Reg::P(p) => {
            let ty =
                if matches!(p.file, RegFile::P | RegFile::UP) { OperandType::Predicate } else { OperandType::Register };
            word(ty, PHYSICAL | ((p.file.index() as u32) << 24), p.index as u32)
        }
        Reg::V(RegRef { vreg, comp }) => {
            let file = f.vregs.get(vreg.index()).map_or(RegFile::R, |v| v.class.file());
            match comp {
                Some(c) => {
                    let hi = if c % 2 == 1 { HI_HALF } else { 0 };
                    word(OperandType::Component, (((c as u32) & 0xF) << 24) | hi, vreg.0 & 0x7F_FFFF)
                }
                None => {
                    let ty = if matches!(file, RegFile::P | RegFile::UP) {
                        OperandType::Predicate
                    } else {
                        OperandType::Register
                    };
                    word(ty, (file.index() as u32) << 24, vreg.0)
                }
            }
        }
    }
}

/// The word of any operand.
pub fn encode_operand(f: &Function, op: &Operand) -> u32 {
    match op {
        Operand::Reg(r) => encode_reg(f, *r),
        Operand::Imm(v) => word(OperandType::Immediate, 0, *v as u32),
        Operand::FImm(bits) => word(OperandType::Immediate, 0, *bits),
        Operand::Mem(m) => match m.base {
            Some(r) => {
                let base = encode_reg(f, r);
                word(OperandType::Memory, base & (PHYSICAL | (0xF << 24)), base)
            }
            None => word(OperandType::Memory, 0, NO_INDEX),
        },
        Operand::CBank { offset, .. } => word(OperandType::Memory, CBANK, *offset),
        Operand::Special(_) | Operand::Sym(_) => word(OperandType::Other, 0, 0),
    }
}

/// An instruction's words: the guard (type 5, bit 27 when negated) if any, then
/// every operand in order, then the type-6 sentinel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EncodedInst {
    pub guard: Option<u32>,
    pub operands: Vec<u32>,
}

pub fn encode_inst(f: &Function, inst: &Inst) -> EncodedInst {
    let guard = inst.guard.map(|g| encode_reg(f, g.reg) | if g.negated { NEGATED } else { 0 });
    let mut operands: Vec<u32> = inst.operands.iter().map(|op| encode_operand(f, op)).collect();
    operands.push(word(OperandType::End, 0, 0));
    EncodedInst { guard, operands }
}

/// A word taken apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decoded {
    pub ty: OperandType,
    pub physical: bool,
    /// Types 1 and 5 (and memory with a base): the register file.
    pub file: Option<RegFile>,
    /// Type 3: the component number.
    pub comp: Option<u8>,
    pub negated: bool,
    /// Type 4: a constant-bank operand (the index is the offset's low bits).
    pub cbank: bool,
    pub index: u32,
}

pub fn decode(w: u32) -> Decoded {
    let ty = OperandType::from_bits(w >> TYPE_SHIFT);
    let nibble = (w >> 24) & 0xF;
    let cbank = ty == OperandType::Memory && nibble == 0xF;
    let (file, comp, negated, index) = match ty {
        OperandType::Memory if cbank => (None, None, false, w & INDEX_MASK),
        OperandType::Register | OperandType::Predicate | OperandType::Memory => {
            let file = RegFile::ALL.get((nibble & 0x7) as usize).copied();
            let file = if ty == OperandType::Memory && w & INDEX_MASK == NO_INDEX { None } else { file };
            (file, None, ty == OperandType::Predicate && w & NEGATED != 0, w & INDEX_MASK)
        }
        OperandType::Component => (None, Some(nibble as u8), false, w & 0x7F_FFFF),
        _ => (None, None, false, w & INDEX_MASK),
    };
    Decoded { ty, physical: w & PHYSICAL != 0, file, comp, negated, cbank, index }
}

impl fmt::Display for Decoded {
    /// `type 1 register, R file, vreg 5` / `type 5 predicate, P file, P0 (physical), negated`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "type {} {}", self.ty as u32, self.ty.name())?;
        if let Some(file) = self.file {
            write!(f, ", {} file", file.prefix())?;
        }
        match self.ty {
            OperandType::Memory if self.cbank => write!(f, ", constant bank offset {:#x}", self.index)?,
            OperandType::Register | OperandType::Predicate | OperandType::Memory if self.index != NO_INDEX => {
                if self.physical {
                    let p = PhysReg { file: self.file.unwrap_or(RegFile::R), index: self.index as u16 };
                    write!(f, ", {p} (physical)")?;
                } else {
                    write!(f, ", vreg {}", self.index)?;
                }
            }
            OperandType::Component => {
                write!(f, ", vreg {} component {}", self.index, self.comp.unwrap_or(0))?;
                if self.comp.unwrap_or(0) % 2 == 1 {
                    f.write_str(" (hi half)")?;
                }
            }
            OperandType::Immediate => write!(f, ", low bits {:#x}", self.index)?,
            _ => {}
        }
        if self.negated {
            f.write_str(", negated")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(src: &str, expected: &[&str]) {
        let m = crate::ir::parse::parse_str(src).unwrap_or_else(|e| panic!("{e}"));
        let f = &m.functions[0];
        let inst = &f.blocks[0].insts[0];
        let e = encode_inst(f, inst);
        let mut got: Vec<String> = e.guard.iter().map(|&w| format!("{w:#010x} {}", decode(w))).collect();
        got.extend(e.operands.iter().map(|&w| format!("{w:#010x} {}", decode(w))));
        assert_eq!(got, expected);
    }

    #[test]
    fn words_of_every_operand_kind() {
        let head = ".target sm_90\n.shared .align 4 s[16]\n.entry k {\n  .reg .R %r<2>\n  .reg .R.x2 %rd<2>\n  .reg .P %p<2>\nBB0:\n";
        check(
            &format!(
                "{head}  @!%p1 %r1, %rd1.hi = IADD3 %r0, -1, R7, [%rd0 + 0x10], c[0x0][0x160], SR_TID.X, 1.5\n  EXIT\n}}\n"
            ),
            &[
                "0x5a000005 type 5 predicate, P file, vreg 5, negated",
                "0x10000001 type 1 register, R file, vreg 1",
                "0x31800003 type 3 component, vreg 3 component 1 (hi half)",
                "0x10000000 type 1 register, R file, vreg 0",
                "0x20ffffff type 2 immediate, low bits 0xffffff",
                "0x90000007 type 1 register, R file, R7 (physical)",
                "0x40000002 type 4 memory, R file, vreg 2",
                "0x4f000160 type 4 memory, constant bank offset 0x160",
                "0x70000000 type 7 other",
                "0x20c00000 type 2 immediate, low bits 0xc00000",
                "0x60000000 type 6 end",
            ],
        );
    }
}
