//! `zext`: a 64-bit value whose high word is known to be zero holds one register.
//!
//! NVVM widens unsigned 32-bit indices to 64 bits (`cvt.u64.u32 %rd3, %r16`) and keeps
//! the wide value live across loops; ptxas keeps only its low word and reads `RZ` for the
//! high one. Development SASS (ptxas 13.0.88, nvdisasm; issue 23 rule 14, ARCHITECTURE.md):
//! bart's `kern_reduce_add_outer` holds `%rd3 = cvt.u64.u32 %r16` in `R25` alone and
//! computes `%rd3 · param` as `IMAD.WIDE.U32 R14, R25, c[0x0][0x168], R8` plus one
//! `IMAD R15, R25, c[0x0][0x16c], R15` — no cross product with a high word — compares it
//! with `ISETP.GE.U32.AND P0, PT, R25, c[0x0][0x160]; ISETP.GE.AND.EX P0, PT, RZ,
//! c[0x0][0x164]`, and copies it into a pair as `MOV R14, R25; IMAD.MOV.U32 R15, RZ, RZ,
//! RZ`; `%rd10 = and.b64 %rd37, 3` is `LOP3.LUT R10, R10, 0x3, RZ, 0xc0` with
//! `ISETP.NE.AND.EX P0, PT, RZ, RZ` for its high word. The seeds are silent.
//!
//! The model: a 64-bit R vreg narrows when every def is a whole def that leaves the high
//! word zero — a widening conversion from an unsigned 32-bit (or narrower) source, an
//! `AND` with an immediate below 2^32, a copy of another such vreg — and every use is
//! its low word, its high word (which becomes the immediate 0: `RZ`), or the whole value
//! as a source of integer arithmetic, a compare or a copy (the instruction reads the one
//! register, zero-extended). A value that is a memory address, stored, passed to a call
//! or converted to floating point keeps its pair. Runs after `expand`, whose 64-bit
//! multiplies name the high word as a component (that component becomes `RZ` here), and
//! after `narrow`, which takes the shared/local addresses first.

use crate::ir::{Function, Inst, Operand, Reg, RegRef, VRegId};
use crate::prepass::{Pass, PassCtx};

pub const PASS: Pass = Pass {
    name: "zext",
    about: "64-bit values whose high word is known zero (zero-extended indices, small masks) held in one register",
    run,
    ori: false,
};

/// Instructions that may read a zero-high value whole: integer ALU, compares and copies,
/// which ptxas gives the low register and `RZ`.
const WHOLE_READERS: &[&str] = &["IADD3", "IMAD", "ISETP", "LOP3", "SHF", "SHL", "SHR", "LEA", "SEL", "MOV", "IMNMX"];

/// Whether a def by `inst` of a 64-bit value certainly leaves its high word zero, given
/// `zero_high` for vregs it may copy.
fn zero_high_def(f: &Function, inst: &Inst, zero_high: &[bool]) -> bool {
    let src32 = |o: &Operand| match o {
        Operand::Reg(Reg::V(r)) => r.comp.is_some() || f.vreg(r.vreg).width == 1,
        _ => false,
    };
    let u = inst.uses();
    match inst.op.mnemonic() {
        // cvt from an unsigned source: the type words are destination then source.
        "PRMT" if inst.has_mod("CVT") => {
            u.len() == 1 && src32(&u[0]) && ["U32", "U16", "U8"].iter().any(|m| inst.has_mod(m))
        }
        "LOP3" if inst.has_mod("AND") => u.iter().any(|o| matches!(o, Operand::Imm(k) if (0..1i64 << 32).contains(k))),
        "MOV" if inst.mods.is_empty() || inst.has_mod("U64") || inst.has_mod("B64") || inst.has_mod("S64") => {
            u.len() == 1
                && match &u[0] {
                    Operand::Reg(Reg::V(r)) => {
                        r.comp.is_none() && zero_high.get(r.vreg.index()).copied().unwrap_or(false)
                    }
                    _ => false,
                }
        }
        _ => false,
    }
}

/// The vregs that narrow (see the module doc): the greatest set closed under the rules.
fn zero_high(f: &Function) -> Vec<bool> {
    let n = f.vregs.len();
    let mut ok = crate::prepass::free_pairs(f);
    // A value never defined here (a parameter, an input) has no known high word.
    let mut defined = vec![false; n];
    for inst in f.blocks.iter().flat_map(|b| &b.insts) {
        inst.for_each_def(|r| defined[r.vreg.index()] = true);
    }
    for v in 0..n {
        ok[v] &= defined[v];
    }
    loop {
        let mut changed = false;
        let mut drop = |v: usize, ok: &mut Vec<bool>| {
            if ok[v] {
                ok[v] = false;
                changed = true;
            }
        };
        for inst in f.blocks.iter().flat_map(|b| &b.insts) {
            let nd = inst.ndefs as usize;
            for (i, o) in inst.operands.iter().enumerate() {
                match o {
                    Operand::Reg(Reg::V(r)) if i < nd => {
                        let v = r.vreg.index();
                        if ok[v] && (nd != 1 || r.comp.is_some() || !zero_high_def(f, inst, &ok)) {
                            drop(v, &mut ok);
                        }
                    }
                    Operand::Reg(Reg::V(r)) => {
                        let m = inst.op.mnemonic();
                        let reads_low = WHOLE_READERS.contains(&m) || m == "PRMT" && inst.has_mod("CVT");
                        if r.comp.is_none() && ok[r.vreg.index()] && !reads_low {
                            drop(r.vreg.index(), &mut ok);
                        }
                    }
                    Operand::Mem(m) => {
                        for r in [m.base, m.index].into_iter().flatten() {
                            if let Reg::V(r) = r {
                                drop(r.vreg.index(), &mut ok);
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
        if !changed {
            return ok;
        }
    }
}

fn run(f: &Function, _ctx: &PassCtx) -> (Option<Function>, String) {
    let ok = zero_high(f);
    let narrowed: Vec<VRegId> = (0..f.vregs.len()).filter(|&v| ok[v]).map(VRegId::new).collect();
    if narrowed.is_empty() {
        return (None, "no 64-bit value with a known-zero high word".to_string());
    }
    let mut g = f.clone();
    let to = crate::prepass::one_register_vregs(f, &mut g, &narrowed, "$lo");
    for inst in g.blocks.iter_mut().flat_map(|b| &mut b.insts) {
        for o in inst.operands.iter_mut() {
            let Operand::Reg(Reg::V(r)) = o else { continue };
            let Some(n) = to[r.vreg.index()] else { continue };
            *o = match r.comp {
                Some(1) => Operand::Imm(0),
                _ => Operand::Reg(Reg::V(RegRef::whole(n))),
            };
        }
    }
    let summary = format!(
        "{} 64-bit value(s) with a known-zero high word held in one register: {}",
        narrowed.len(),
        crate::prepass::name_list(f, &narrowed)
    );
    (Some(g), summary)
}
