//! `narrow`: 64-bit shared- and local-memory addresses become 32-bit values.
//!
//! Shared and local windows are smaller than 4 GiB, and ptxas addresses them with one
//! 32-bit register (`STS [R13]`, `LDS R5, [R0+-0x400]`, `ATOMS.POPC.INC.32 RZ, [R0+URZ]`
//! in the SASS of the corpus's merge_sort_i32 and histo256, nvdisasm 13.2.51 on cubins
//! the corpus ptxas wrote), where NVVM's PTX computes them in 64 bits (`mov.u64 %rd11,
//! smem; mul.wide.s32 %rd10, %r144, 4; add.s64 %rd2, %rd11, %rd10; st.shared.u32
//! [%rd2], ..`), a register pair in the imported function. The measured list
//! names it ("it narrows 64-bit shared/local addresses to 32 bits"); the seeds are silent.
//!
//! A 64-bit R vreg narrows when only its low word is ever needed, which holds when every
//! use is the address of a shared/local access (`LDS`, `STS`, `ATOMS`, `LDL`, `STL`,
//! `LDSM`, `STSM`), a truncation to 32 bits, or a source of the def of another vreg that
//! narrows; and every def is a whole-register def by an operation whose low 32 bits
//! depend only on the low 32 bits of its sources (add, multiply, left shift, logic,
//! select, move, widening conversion). The set is the greatest one closed under those
//! rules (a fixed point: a vreg that cannot narrow keeps the vregs feeding it wide).
//! A narrowed vreg is replaced by a new single register `%name$32`; a wide source of
//! its def is read as its `.lo` half. No constant.

use crate::ir::{Function, Inst, Operand, Reg, RegRef, VRegId};
use crate::prepass::{Pass, PassCtx};

pub const PASS: Pass = Pass {
    name: "narrow",
    about: "64-bit shared/local-memory addresses narrowed to 32-bit registers, as ptxas addresses those windows",
    run,
    ori: false,
};

/// Accesses whose addresses are offsets in the 32-bit shared or local window.
const NARROW_SPACE: &[&str] = &["LDS", "STS", "ATOMS", "LDL", "STL", "LDSM", "STSM"];

/// Whether the low word of `inst`'s result depends only on the low words of its sources.
fn low_word_op(inst: &Inst) -> bool {
    match inst.op.mnemonic() {
        "MOV" | "IADD3" | "IMAD" | "SHL" | "LEA" | "LOP3" | "SEL" => true,
        // A left funnel shift; a right one pulls high bits down.
        "SHF" => inst.has_mod("L"),
        // Integer conversions (`cvt`): widening or truncating, the low word is the source's.
        "PRMT" => inst.has_mod("CVT"),
        _ => false,
    }
}

/// The vreg `inst` defines as a whole, alone, when its operation keeps low words.
fn narrowable_def(inst: &Inst) -> Option<VRegId> {
    if inst.ndefs != 1 || !low_word_op(inst) {
        return None;
    }
    match inst.defs().first() {
        Some(Operand::Reg(Reg::V(d))) if d.comp.is_none() => Some(d.vreg),
        _ => None,
    }
}

/// The greatest set of vregs that can narrow (see the module doc).
fn narrowable(f: &Function) -> Vec<bool> {
    // Only vregs the function names (PTX declares ranges it does not use).
    let mut named = vec![false; f.vregs.len()];
    for inst in f.blocks.iter().flat_map(|b| &b.insts) {
        inst.for_each_def(|r| named[r.vreg.index()] = true);
        inst.for_each_use(|r| named[r.vreg.index()] = true);
    }
    let mut ok = crate::prepass::free_pairs(f);
    for (o, &n) in ok.iter_mut().zip(&named) {
        *o &= n;
    }
    // Only an instruction naming a vreg that may still narrow can drop one: the fixed
    // point walks those (issue 25: every sweep walked the whole function, which names
    // a handful of 64-bit values among 100k instructions in the scale kernel).
    let names_candidate = |inst: &Inst| {
        inst.operands.iter().any(|o| match o {
            Operand::Reg(Reg::V(r)) => ok[r.vreg.index()],
            Operand::Mem(m) => {
                [m.base, m.index].into_iter().flatten().any(|r| matches!(r, Reg::V(r) if ok[r.vreg.index()]))
            }
            _ => false,
        })
    };
    let relevant: Vec<&Inst> = f.blocks.iter().flat_map(|b| &b.insts).filter(|i| names_candidate(i)).collect();
    loop {
        let mut changed = false;
        let mut drop = |v: VRegId, ok: &mut Vec<bool>| {
            if ok[v.index()] {
                ok[v.index()] = false;
                changed = true;
            }
        };
        for &inst in &relevant {
            let def = narrowable_def(inst);
            // Defs: only a whole def by a low-word operation.
            for (i, o) in inst.defs().iter().enumerate() {
                if let Operand::Reg(Reg::V(d)) = o
                    && ok[d.vreg.index()]
                    && !(i == 0 && def == Some(d.vreg))
                {
                    drop(d.vreg, &mut ok);
                }
            }
            let feeds_narrow = def.is_some_and(|d| ok[d.index()]);
            let truncates = inst.op.mnemonic() == "PRMT"
                && inst.has_mod("CVT")
                && matches!(inst.defs().first(), Some(Operand::Reg(Reg::V(d))) if f.vreg(d.vreg).width == 1);
            let narrow_space = NARROW_SPACE.contains(&inst.op.mnemonic());
            for (i, o) in inst.operands.iter().enumerate() {
                match o {
                    Operand::Mem(m) => {
                        for r in [m.base, m.index].into_iter().flatten() {
                            if let Reg::V(r) = r
                                && !narrow_space
                                && r.comp.is_none()
                            {
                                drop(r.vreg, &mut ok);
                            }
                        }
                    }
                    Operand::Reg(Reg::V(r)) if i >= inst.ndefs as usize => match r.comp {
                        Some(0) => {}
                        Some(_) => drop(r.vreg, &mut ok),
                        None if feeds_narrow || truncates => {}
                        None => drop(r.vreg, &mut ok),
                    },
                    _ => {}
                }
            }
        }
        if !changed {
            return ok;
        }
    }
}

/// `s` with 64-bit type words of a narrowed def's modifiers made 32-bit (`.WIDE`
/// dropped, `.S64` → `.S32`): the printed IR says what the instruction now computes.
fn narrow_mods(mods: &str) -> Box<str> {
    let mut out = String::with_capacity(mods.len());
    for m in mods.split('.').filter(|m| !m.is_empty() && *m != "WIDE" && *m != "64") {
        out.push('.');
        match m {
            "S64" => out.push_str("S32"),
            "U64" => out.push_str("U32"),
            "B64" => out.push_str("B32"),
            _ => out.push_str(m),
        }
    }
    out.into_boxed_str()
}

fn run(f: &Function, _ctx: &PassCtx) -> (Option<Function>, String) {
    let ok = narrowable(f);
    let narrowed: Vec<VRegId> = (0..f.vregs.len()).filter(|&v| ok[v]).map(VRegId::new).collect();
    if narrowed.is_empty() {
        return (None, "no 64-bit value used only as a shared/local address".to_string());
    }
    let mut g = f.clone();
    let to = crate::prepass::one_register_vregs(f, &mut g, &narrowed, "$32");
    let wide = |r: &RegRef, f: &Function| r.comp.is_none() && f.vreg(r.vreg).width == 2;
    for inst in g.blocks.iter_mut().flat_map(|b| &mut b.insts) {
        let narrows = narrowable_def(inst).is_some_and(|d| ok[d.index()]);
        if narrows {
            inst.mods = narrow_mods(&inst.mods).into();
        }
        let nd = inst.ndefs as usize;
        for (i, o) in inst.operands.iter_mut().enumerate() {
            let regs: Vec<&mut RegRef> = match o {
                Operand::Reg(Reg::V(r)) => vec![r],
                Operand::Mem(m) => [m.base.as_mut(), m.index.as_mut()]
                    .into_iter()
                    .flatten()
                    .filter_map(|r| if let Reg::V(r) = r { Some(r) } else { None })
                    .collect(),
                _ => Vec::new(),
            };
            for r in regs {
                if let Some(n) = to[r.vreg.index()] {
                    *r = RegRef::whole(n);
                } else if narrows && i >= nd && wide(r, f) {
                    r.comp = Some(0);
                }
            }
        }
    }
    let summary = format!(
        "{} 64-bit shared/local address value(s) narrowed to 32 bits: {}",
        narrowed.len(),
        crate::prepass::name_list(f, &narrowed)
    );
    (Some(g), summary)
}
