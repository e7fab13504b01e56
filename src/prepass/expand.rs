//! `expand`: instruction lowering of the PTX operations that SASS has no single
//! instruction for, with the temporaries each expansion needs (seed 000, "Pipeline
//! Position": instruction lowering runs before allocation, so its temporaries are
//! allocated like any other value).
//!
//! The importer maps `div`/`rem` on 32-bit integers and `mul.lo`/`mul.hi` on 64-bit
//! integers to one `IMAD.<tag>` each, which needs no register beyond its operands.
//! ptxas 13.0.88 expands them; the sequences and their temporaries were read from the
//! SASS of the corpus cubins with nvdisasm (ARCHITECTURE.md, "Fidelity", step 5):
//!
//! - 32-bit `div`/`rem` by a register: once per divisor, `|d|` (IABS), then I2F.RP,
//!   MUFU.RCP, F2I and a Newton step give the fixed-point reciprocal; both `|d|` and the
//!   reciprocal stay live across every division by that divisor (local_array: R0 and R2
//!   for all 64 `rem.s32`). Per operation, `|x|` (IABS, signed only) and the quotient
//!   estimate `q` (IMAD.HI.U32), then `r = |x| − q·|d|` (IMAD) and conditional
//!   corrections in place. A division keeps `r` as a third temporary. Here the
//!   reciprocal is computed once per block and divisor, before its first use in the
//!   block (a value computed in one block is recomputed in the next: the model never
//!   makes a live range longer than ptxas's could be).
//! - 32-bit `div`/`rem` by an immediate: a multiply by a magic number, `q` the one
//!   temporary.
//! - 64-bit `mul.lo`: `t = a.hi·b.lo + a.lo·b.hi` (IMAD, IMAD: one 32-bit temporary),
//!   `D = a.lo·b.lo` (IMAD.WIDE.U32), `D.hi += t` (IADD3) — i64_math.
//! - 64-bit `mul.hi`: two cross products accumulated in one pair `p` (IMAD.WIDE.U32
//!   twice), the low product in a second pair `l`, a carry word `c`, then
//!   `D = a.hi·b.hi + (p.hi, c)` (IMAD.WIDE.U32.X): two pairs and one word — i64_math.
//!
//! - a guarded 64-bit float `DADD`/`DMUL`/`DFMA` (`@p add.f64 d, d, r`): ptxas never
//!   predicates an FP64 operation — none of the corpus SASS has one — but computes it
//!   into a new pair and selects (cub_warp_reduce's ten guarded `add.f64` after its
//!   `shfl`s are `DADD R6, R4, R6` + `FSEL R10, R6, R4, P0` + `FSEL R11, R7, R5, P0`).
//!   Here: the operation unguarded into a temporary pair, then a guarded move of the
//!   pair into the destination; the temporary and the old value are live together.
//!
//! Predicates the corrections set live in P and are not modelled. 64-bit division
//! becomes a call to a ptxas-internal subroutine: not expanded here.
//!
//! Owns the expansion rules; must not know the allocator or the engine.

use crate::ir::{Function, Inst, Opcode, Operand, Reg, RegRef, VRegId};
use crate::prepass::{Pass, PassCtx};

pub const PASS: Pass = Pass {
    name: "expand",
    about: "integer divide/remainder, 64-bit multiply and guarded FP64 operations expanded into SASS sequences with their temporaries",
    run,
    ori: false,
};

/// What one imported instruction is, for this pass.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Div32 { signed: bool, rem: bool },
    MulLo64,
    MulHi64,
    GuardedF64,
}

fn kind(inst: &Inst) -> Option<Kind> {
    if matches!(inst.op.mnemonic(), "DADD" | "DMUL" | "DFMA") && inst.ndefs == 1 && !inst.guard_is_always() {
        return Some(Kind::GuardedF64);
    }
    if inst.op.mnemonic() != "IMAD" || inst.ndefs != 1 || !inst.guard_is_always() || inst.uses().len() != 2 {
        return None;
    }
    let wide = inst.has_mod("S64") || inst.has_mod("U64");
    let narrow = inst.has_mod("S32") || inst.has_mod("U32");
    if (inst.has_mod("REM") || inst.has_mod("DIV")) && narrow && !wide {
        return Some(Kind::Div32 { signed: inst.has_mod("S32"), rem: inst.has_mod("REM") });
    }
    if inst.has_mod("MUL") && wide && !inst.has_mod("WIDE") {
        if inst.has_mod("LO") {
            return Some(Kind::MulLo64);
        }
        if inst.has_mod("HI") {
            return Some(Kind::MulHi64);
        }
    }
    None
}

/// A whole (no component) register operand of vreg width `w`.
fn whole_of_width(f: &Function, o: &Operand, w: u8) -> Option<VRegId> {
    match o.as_vreg() {
        Some(r) if r.comp.is_none() && f.vregs[r.vreg.index()].width == w => Some(r.vreg),
        _ => None,
    }
}

fn part(v: VRegId, c: u8) -> Operand {
    Operand::Reg(Reg::V(RegRef { vreg: v, comp: Some(c) }))
}

fn inst(mn: &str, mods: &str, defs: Vec<Operand>, uses: Vec<Operand>, origin: Option<u32>) -> Inst {
    let mut i = Inst::new(Opcode::from_mnemonic(mn), defs, uses);
    i.mods = mods.into();
    i.origin = origin;
    i
}

struct Temps<'f> {
    f: &'f mut Function,
    fresh: crate::prepass::FreshVregs,
    made: usize,
}

impl Temps<'_> {
    fn new_vreg(&mut self, width: u8) -> VRegId {
        self.made += width as usize;
        self.fresh.make(self.f, width)
    }
}

/// The reciprocal set-up of one divisor: `(|d|, reciprocal)`.
fn divisor_prep(
    t: &mut Temps,
    d: &Operand,
    signed: bool,
    origin: Option<u32>,
    out: &mut Vec<Inst>,
) -> (Operand, VRegId) {
    let ad = if signed {
        let v = t.new_vreg(1);
        out.push(inst("IABS", "", vec![Operand::vreg(v)], vec![d.clone()], origin));
        Operand::vreg(v)
    } else {
        d.clone()
    };
    let rcp = t.new_vreg(1);
    let tmp = t.new_vreg(1);
    let r = || Operand::vreg(rcp);
    out.push(inst("I2F", ".RP", vec![r()], vec![ad.clone()], origin));
    out.push(inst("MUFU", ".RCP", vec![r()], vec![r()], origin));
    out.push(inst("F2I", ".FTZ.U32.TRUNC.NTZ", vec![r()], vec![r()], origin));
    out.push(inst("IMAD", ".MOV", vec![Operand::vreg(tmp)], vec![r()], origin));
    out.push(inst("IMAD", "", vec![Operand::vreg(tmp)], vec![Operand::vreg(tmp), ad.clone()], origin));
    out.push(inst("IMAD", ".HI.U32", vec![r()], vec![r(), Operand::vreg(tmp), r()], origin));
    (ad, rcp)
}

const NOTHING: &str = "no integer divide/remainder, 64-bit multiply or guarded FP64 operation to expand";

fn run(f: &Function, _ctx: &PassCtx) -> (Option<Function>, String) {
    // Without a candidate every block would be rebuilt as it is: no copy.
    if !f.blocks.iter().flat_map(|b| &b.insts).any(|i| kind(i).is_some()) {
        return (None, NOTHING.to_string());
    }
    let mut g = f.clone();
    let (mut divs, mut muls, mut sels) = (0usize, 0usize, 0usize);
    let fresh = crate::prepass::FreshVregs::new(&g, "%xp");
    let mut t = Temps { f: &mut g, fresh, made: 0 };
    for bi in 0..t.f.blocks.len() {
        let old = std::mem::take(&mut t.f.blocks[bi].insts);
        let mut out = Vec::with_capacity(old.len());
        // Divisors prepared in this block: (divisor, signed) → (|d|, reciprocal).
        let mut preps: Vec<(Operand, bool, Operand, VRegId)> = Vec::new();
        for i in old {
            let k = kind(&i);
            let op = |n: usize| i.operands.get(n).cloned().unwrap_or(Operand::Imm(0));
            let (dst, a, b, o) = (op(0), op(1), op(2), i.origin);
            match k {
                Some(Kind::Div32 { signed, rem })
                    if !matches!(b, Operand::Imm(0))
                        && (dst.as_vreg().map(|r| r.vreg) != b.as_vreg().map(|r| r.vreg)
                            || dst.as_vreg().is_none()) =>
                {
                    divs += 1;
                    let ax = if signed {
                        let v = t.new_vreg(1);
                        out.push(inst("IABS", "", vec![Operand::vreg(v)], vec![a.clone()], o));
                        Operand::vreg(v)
                    } else {
                        a.clone()
                    };
                    let q = t.new_vreg(1);
                    if matches!(b, Operand::Imm(_)) {
                        // Division by a constant: a multiply by a magic number.
                        out.push(inst("IMAD", ".HI.U32", vec![Operand::vreg(q)], vec![ax.clone(), b.clone()], o));
                        let mn = if rem { "IMAD" } else { "SHF" };
                        out.push(inst(mn, "", vec![dst], vec![Operand::vreg(q), b, ax], o));
                    } else {
                        let at = preps.iter().position(|p| p.0 == b && p.1 == signed);
                        let (ad, rcp) = match at {
                            Some(p) => (preps[p].2.clone(), preps[p].3),
                            None => {
                                let (ad, rcp) = divisor_prep(&mut t, &b, signed, o, &mut out);
                                preps.push((b.clone(), signed, ad.clone(), rcp));
                                (ad, rcp)
                            }
                        };
                        out.push(inst(
                            "IMAD",
                            ".HI.U32",
                            vec![Operand::vreg(q)],
                            vec![Operand::vreg(rcp), ax.clone()],
                            o,
                        ));
                        if rem {
                            out.push(inst("IMAD", "", vec![dst.clone()], vec![Operand::vreg(q), ad.clone(), ax], o));
                            out.push(inst("IADD3", "", vec![dst.clone()], vec![dst, ad], o));
                        } else {
                            let r = t.new_vreg(1);
                            out.push(inst(
                                "IMAD",
                                "",
                                vec![Operand::vreg(r)],
                                vec![Operand::vreg(q), ad.clone(), ax],
                                o,
                            ));
                            out.push(inst("IADD3", "", vec![Operand::vreg(r)], vec![Operand::vreg(r), ad], o));
                            out.push(inst("IADD3", "", vec![dst], vec![Operand::vreg(q), Operand::vreg(r)], o));
                        }
                    }
                }
                Some(Kind::MulLo64 | Kind::MulHi64)
                    if whole_of_width(t.f, &dst, 2).is_some()
                        && whole_of_width(t.f, &a, 2).is_some()
                        && whole_of_width(t.f, &b, 2).is_some() =>
                {
                    muls += 1;
                    let d = whole_of_width(t.f, &dst, 2).expect("checked");
                    let av = whole_of_width(t.f, &a, 2).expect("checked");
                    let bv = whole_of_width(t.f, &b, 2).expect("checked");
                    if k == Some(Kind::MulLo64) {
                        let tv = t.new_vreg(1);
                        let tt = || Operand::vreg(tv);
                        out.push(inst("IMAD", "", vec![tt()], vec![part(av, 1), part(bv, 0)], o));
                        out.push(inst("IMAD", "", vec![tt()], vec![part(av, 0), part(bv, 1), tt()], o));
                        out.push(inst("IMAD", ".WIDE.U32", vec![dst], vec![part(av, 0), part(bv, 0)], o));
                        out.push(inst("IADD3", "", vec![part(d, 1)], vec![part(d, 1), tt()], o));
                    } else {
                        let (p, l, c) = (t.new_vreg(2), t.new_vreg(2), t.new_vreg(1));
                        let pp = || Operand::vreg(p);
                        out.push(inst("IMAD", ".WIDE.U32", vec![pp()], vec![part(av, 1), part(bv, 0)], o));
                        out.push(inst("IMAD", ".WIDE.U32", vec![pp()], vec![part(av, 0), part(bv, 1), pp()], o));
                        out.push(inst("IMAD", ".WIDE.U32", vec![Operand::vreg(l)], vec![part(av, 0), part(bv, 0)], o));
                        out.push(inst("IADD3", "", vec![Operand::vreg(c)], vec![part(l, 1), part(p, 0)], o));
                        let uses = vec![part(av, 1), part(bv, 1), part(p, 1), Operand::vreg(c)];
                        out.push(inst("IMAD", ".WIDE.U32.X", vec![dst], uses, o));
                    }
                }
                Some(Kind::GuardedF64) if whole_of_width(t.f, &dst, 2).is_some() => {
                    sels += 1;
                    let tmp = t.new_vreg(2);
                    let mut op = i.clone();
                    op.guard = None;
                    op.operands[0] = Operand::vreg(tmp);
                    let mut sel = i;
                    sel.op = Opcode::from_mnemonic("MOV");
                    sel.mods = "".into();
                    sel.operands = Box::new([dst, Operand::vreg(tmp)]);
                    sel.ndefs = 1;
                    out.push(op);
                    out.push(sel);
                }
                _ => {
                    // A redefined divisor needs a new reciprocal.
                    i.for_each_def(|r| preps.retain(|p| p.0.as_vreg().is_none_or(|x| x.vreg != r.vreg)));
                    out.push(i);
                    continue;
                }
            }
            if let Some(r) = dst_vreg(&out) {
                preps.retain(|p| p.0.as_vreg().is_none_or(|x| x.vreg != r));
            }
        }
        t.f.blocks[bi].insts = out;
    }
    let made = t.made;
    if divs + muls + sels == 0 {
        return (None, NOTHING.to_string());
    }
    (
        Some(g),
        format!(
            "{divs} divide/remainder, {muls} 64-bit multiply and {sels} guarded FP64 operation(s) expanded: {made} temporary register(s) added"
        ),
    )
}

/// The vreg the last emitted instruction defines (an expansion's result).
fn dst_vreg(out: &[Inst]) -> Option<VRegId> {
    out.last()?.defs().first()?.as_vreg().map(|r| r.vreg)
}
