//! `zext` and `sext`: a 64-bit value whose high word follows from its low word holds one
//! register.
//!
//! **`zext`** — NVVM widens unsigned 32-bit indices to 64 bits (`cvt.u64.u32 %rd3, %r16`)
//! and keeps the wide value live across loops; ptxas keeps only its low word and reads
//! `RZ` for the high one. Development SASS (ptxas 13.0.88, nvdisasm; issue 23 rule 14,
//! ARCHITECTURE.md): bart's `kern_reduce_add_outer` holds `%rd3 = cvt.u64.u32 %r16` in
//! `R25` alone and computes `%rd3 · param` as `IMAD.WIDE.U32 R14, R25, c[0x0][0x168], R8`
//! plus one `IMAD R15, R25, c[0x0][0x16c], R15` — no cross product with a high word —
//! compares it with `ISETP.GE.U32.AND P0, PT, R25, c[0x0][0x160]; ISETP.GE.AND.EX P0, PT,
//! RZ, c[0x0][0x164]`, and copies it into a pair as `MOV R14, R25; IMAD.MOV.U32 R15, RZ,
//! RZ, RZ`; `%rd10 = and.b64 %rd37, 3` is `LOP3.LUT R10, R10, 0x3, RZ, 0xc0` with
//! `ISETP.NE.AND.EX P0, PT, RZ, RZ` for its high word. The seeds are silent.
//!
//! **`sext`** — the same for a sign-extended value (`cvt.s64.s32 %rd5, %r79`): ptxas keeps
//! the 32-bit word and folds the extension into each use. cub's `DeviceReduceKernel`
//! (float max, sm_90, development part) adds twelve loop-invariant `cvt.s64.s32` offsets
//! to a 64-bit tile base in its loop; the SASS holds none of them as a pair: each use is
//! `IADD3 R14, P1, R15, UR19, RZ` for the low word and `LEA.HI.X.SX32` (or `SHF.R.S32.HI`
//! into a temporary that dies at the next instruction, then `IADD3.X`) for the high one.
//! A hand-made grid-stride loop with eight such offsets (issue 23 rule 17) keeps eight
//! 32-bit `VIADD R5, R0, 0x100` … values before the loop and sign-extends at each use
//! (`LEA.HI.X.SX32 R14, R0, R21, 0x1, P0`). A use that reads the high word alone (the
//! cross product of a 64-bit multiply `expand` wrote) keeps the pair.
//!
//! **`sext` is written, not in the pass list** (like `texture` and `uniform`): measured
//! on the development part (ARCHITECTURE.md, issue 23 "Tried, not kept") it brought cub's
//! over-counted reductions toward ptxas (sum of absolute errors −147 registers over 66
//! rows) but moved more under-counted rows further under (tract-cuda +573, cudpp +112,
//! ffmpeg +62; default MAE 9.66 → 10.25): the register a narrowed value frees exposes
//! what radbg does not model yet — the temporaries of ptxas's 32-bit address arithmetic
//! (tract's `binary_not_equals_u16`: ptxas 14 live at its peak, radbg 8) and its
//! placement slack. It waits for those; `SEXT.run_owned` runs it (tests/fidelity_sext.rs).
//!
//! The model: a 64-bit R vreg narrows when every def is a whole def that leaves the high
//! word zero (`zext`: a widening conversion from an unsigned 32-bit or narrower source, an
//! `AND` with an immediate below 2^32) or a copy of the low word's sign (`sext`: a widening
//! conversion from a signed source), or a copy of another such vreg; and every use is its
//! low word, its high word (`zext` only: it becomes the immediate 0, `RZ`), or the whole
//! value as a source of integer arithmetic, a compare or a copy (the instruction reads the
//! one register, extended; a sign word it needs lives for that one instruction, which the
//! model does not count). A value that is a memory address, stored, passed to a call or
//! converted to floating point keeps its pair. Runs after `expand`, whose 64-bit
//! multiplies name the high word as a component, and after `narrow`, which takes the
//! shared/local addresses first.

use crate::ir::{Function, Inst, Operand, Reg, RegRef, VRegId};
use crate::prepass::{Pass, PassCtx};

pub const ZEXT: Pass = Pass {
    name: "zext",
    about: "64-bit values whose high word is known zero (zero-extended indices, small masks) held in one register",
    run: run_zext,
    ori: false,
};

pub const SEXT: Pass = Pass {
    name: "sext",
    about: "64-bit sign-extended values held as their 32-bit word, the extension folded into each use",
    run: run_sext,
    ori: false,
};

/// How the high word of a narrowed value follows from its low word.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Ext {
    /// Known zero: a use of the high word alone reads `RZ`.
    Zero,
    /// The low word's sign: each use extends it (`LEA.HI.X.SX32`, `SHF.R.S32.HI`).
    Sign,
}

/// Instructions that may read a zero-high value whole: integer ALU, compares and copies,
/// which ptxas gives the low register and `RZ`.
const WHOLE_READERS: &[&str] = &["IADD3", "IMAD", "ISETP", "LOP3", "SHF", "SHL", "SHR", "LEA", "SEL", "MOV", "IMNMX"];

/// Whether a def by `inst` of a 64-bit value certainly leaves its high word as `ext`
/// says, given `ok` for vregs it may copy.
fn extended_def(f: &Function, inst: &Inst, ok: &[bool], ext: Ext) -> bool {
    let src32 = |o: &Operand| match o {
        Operand::Reg(Reg::V(r)) => r.comp.is_some() || f.vreg(r.vreg).width == 1,
        _ => false,
    };
    let u = inst.uses();
    match inst.op.mnemonic() {
        // A widening cvt: the source's type word says how (`cvt.u64.s32` sign-extends).
        "PRMT" if inst.has_mod("CVT") => {
            let sources: &[&str] = match ext {
                Ext::Zero => &["U32", "U16", "U8"],
                Ext::Sign => &["S32", "S16", "S8"],
            };
            u.len() == 1 && src32(&u[0]) && sources.iter().any(|m| inst.has_mod(m))
        }
        "LOP3" if ext == Ext::Zero && inst.has_mod("AND") => {
            u.iter().any(|o| matches!(o, Operand::Imm(k) if (0..1i64 << 32).contains(k)))
        }
        "MOV" if inst.mods.is_empty() || inst.has_mod("U64") || inst.has_mod("B64") || inst.has_mod("S64") => {
            u.len() == 1
                && match &u[0] {
                    Operand::Reg(Reg::V(r)) => r.comp.is_none() && ok.get(r.vreg.index()).copied().unwrap_or(false),
                    _ => false,
                }
        }
        _ => false,
    }
}

/// The vregs that narrow as `ext` (see the module doc): the greatest set closed under the
/// rules.
fn extended(f: &Function, ext: Ext) -> Vec<bool> {
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
                        if ok[v] && (nd != 1 || r.comp.is_some() || !extended_def(f, inst, &ok, ext)) {
                            drop(v, &mut ok);
                        }
                    }
                    Operand::Reg(Reg::V(r)) => {
                        let m = inst.op.mnemonic();
                        let reads_low = WHOLE_READERS.contains(&m) || m == "PRMT" && inst.has_mod("CVT");
                        let bad = match r.comp {
                            None => !reads_low,
                            // The sign word alone has no register to read.
                            Some(c) => ext == Ext::Sign && c != 0,
                        };
                        if bad && ok[r.vreg.index()] {
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

fn run_zext(f: &Function, _ctx: &PassCtx) -> (Option<Function>, String) {
    run(f, Ext::Zero)
}

fn run_sext(f: &Function, _ctx: &PassCtx) -> (Option<Function>, String) {
    run(f, Ext::Sign)
}

fn run(f: &Function, ext: Ext) -> (Option<Function>, String) {
    let ok = extended(f, ext);
    let narrowed: Vec<VRegId> = (0..f.vregs.len()).filter(|&v| ok[v]).map(VRegId::new).collect();
    let what = match ext {
        Ext::Zero => "with a known-zero high word",
        Ext::Sign => "sign-extended from 32 bits",
    };
    if narrowed.is_empty() {
        return (None, format!("no 64-bit value {what}"));
    }
    let mut g = f.clone();
    let to = crate::prepass::one_register_vregs(f, &mut g, &narrowed, "$lo");
    for inst in g.blocks.iter_mut().flat_map(|b| &mut b.insts) {
        for o in inst.operands.iter_mut() {
            let Operand::Reg(Reg::V(r)) = o else { continue };
            let Some(n) = to[r.vreg.index()] else { continue };
            *o = match r.comp {
                // Only a zero-extended value's high word is read alone (`extended`).
                Some(1) => Operand::Imm(0),
                _ => Operand::Reg(Reg::V(RegRef::whole(n))),
            };
        }
    }
    let summary = format!(
        "{} 64-bit value(s) {what} held in one register: {}",
        narrowed.len(),
        crate::prepass::name_list(f, &narrowed)
    );
    (Some(g), summary)
}
