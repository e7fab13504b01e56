//! `fuse`: a wide product by a constant is computed at each 64-bit add it feeds.
//!
//! NVVM computes `%rd22 = (u64)n · 16 << 2` once (`mul.wide.u32; shl.b64`), often hoisted
//! out of a loop, and adds the pair to an address in the loop (`add.s64 %rd8, %rd7,
//! %rd22`). ptxas never holds that pair: it keeps the 32-bit factor and forms the product
//! at every add as one multiply-add, the shift folded into the immediate (issue 23 rule
//! 15, ARCHITECTURE.md). Development SASS (ptxas 13.0.88, nvdisasm): risc0's `fri_fold`
//! holds `n · 3` in `R8` and computes `IMAD.WIDE.U32 R28, R8, 0x40, R22` in its loop for
//! NVVM's `%rd25 = mul.wide.u32 %r34, 16; shl.b64 .., 2` kept from before the loop; a
//! hand-made loop with three such strides (`tests/fidelity_fuse.rs`) holds `R3`, `R4`,
//! `R5` (n, 2n, 3n) and reads each in `IMAD.WIDE.U32 R12, R3, 0x40, R10` — no pair for a
//! stride. The same fusion is what `IMAD.WIDE R4, R4, 0x4, R2` is for an index scaled
//! into an address in the same block. The seeds are silent.
//!
//! The model: a 64-bit vreg defined once, whole, by a wide multiply of a 32-bit vreg
//! (itself defined once) by an immediate or a constant-bank word — or by a left shift of
//! such a product by an immediate, when the shifted immediate still fits 32 bits — whose
//! every use is a source of a two-source 64-bit add, is replaced at each add by
//! `IMAD.WIDE x, k, other`; the product's instructions then go. Runs after `fold` (so a
//! parameter factor is already a `c[0x0][..]` operand and sm_90's pair addends are
//! loaded) and before `unroll`, `sink` and `schedule`, which then move the fused form.

use crate::ir::{Function, Inst, Operand, Reg, RegClass, RegRef, VRegId};
use crate::prepass::{Pass, PassCtx};

pub const PASS: Pass = Pass {
    name: "fuse",
    about: "a wide product by a constant computed at each 64-bit add it feeds (IMAD.WIDE), its 32-bit factor held instead of the pair",
    run,
    ori: false,
};

/// A product `x · k` (`signed`: `.S32` multiply) a 64-bit vreg stands for.
#[derive(Clone)]
struct Product {
    x: VRegId,
    k: Operand,
    signed: bool,
}

fn whole(o: &Operand) -> Option<VRegId> {
    match o {
        Operand::Reg(Reg::V(r)) if r.comp.is_none() => Some(r.vreg),
        _ => None,
    }
}

/// Defs per vreg (a component def counts twice, so "once, whole" is `== 1`).
fn def_counts(f: &Function) -> Vec<u32> {
    let mut defs = vec![0u32; f.vregs.len()];
    for inst in f.blocks.iter().flat_map(|b| &b.insts) {
        inst.for_each_def(|r| defs[r.vreg.index()] += if r.comp.is_none() { 1 } else { 2 });
    }
    defs
}

/// The products of `f` by vreg (see the module doc), before their uses are checked.
fn products(f: &Function, defs: &[u32]) -> Vec<Option<Product>> {
    let n = f.vregs.len();
    let plain = |v: VRegId| {
        let r = &f.vregs[v.index()];
        r.class == RegClass::R && r.pin.is_none() && r.alias.is_none() && defs[v.index()] == 1
    };
    let mut out: Vec<Option<Product>> = vec![None; n];
    // Two sweeps: a shift may come before its multiply in layout order.
    for _ in 0..2 {
        for inst in f.blocks.iter().flat_map(|b| &b.insts) {
            if inst.ndefs != 1 || !inst.guard_is_always() {
                continue;
            }
            let Some(d) = inst.defs().first().and_then(whole) else { continue };
            if out[d.index()].is_some() || !plain(d) || f.vregs[d.index()].width != 2 {
                continue;
            }
            let u = inst.uses();
            let m = inst.op.mnemonic();
            let p = if m == "IMAD" && inst.has_mod("MUL") && inst.has_mod("WIDE") && u.len() == 2 {
                let signed = inst.has_mod("S32");
                let factor = |a: &Operand, b: &Operand| {
                    let x = whole(a).filter(|&x| plain(x) && f.vregs[x.index()].width == 1)?;
                    matches!(b, Operand::Imm(_) | Operand::CBank { .. }).then(|| Product { x, k: b.clone(), signed })
                };
                factor(&u[0], &u[1]).or_else(|| factor(&u[1], &u[0]))
            } else if m == "SHL" && inst.has_mod("B64") && u.len() == 2 {
                match (whole(&u[0]).and_then(|p| out[p.index()].clone()), &u[1]) {
                    (Some(Product { x, k: Operand::Imm(k), signed }), Operand::Imm(s)) if (0..32).contains(s) => {
                        let k2 = k.checked_shl(*s as u32).unwrap_or(i64::MAX);
                        let fits = if signed { i32::try_from(k2).is_ok() } else { (0..1i64 << 32).contains(&k2) };
                        fits.then(|| Product { x, k: Operand::Imm(k2), signed })
                    }
                    _ => None,
                }
            } else {
                None
            };
            out[d.index()] = p;
        }
    }
    out
}

/// Whether `inst` is a plain two-source 64-bit add reading `v` once, whole.
fn add_of(f: &Function, inst: &Inst, v: VRegId) -> bool {
    let u = inst.uses();
    inst.op.mnemonic() == "IADD3"
        && inst.ndefs == 1
        && !inst.has_mod("X")
        && inst.defs().first().and_then(whole).is_some_and(|d| f.vregs[d.index()].width == 2)
        && u.len() == 2
        && u.iter().filter(|o| whole(o) == Some(v)).count() == 1
        && u.iter().all(|o| matches!(o, Operand::Reg(Reg::V(_)) | Operand::CBank { .. }))
}

fn run(f: &Function, _ctx: &PassCtx) -> (Option<Function>, String) {
    let defs = def_counts(f);
    let cand = products(f, &defs);
    let mut prod = cand.clone();
    // Every use must be such an add: a product read any other way keeps its pair.
    for inst in f.blocks.iter().flat_map(|b| &b.insts) {
        let nd = inst.ndefs as usize;
        for (i, o) in inst.operands.iter().enumerate() {
            match o {
                Operand::Reg(Reg::V(r)) if i >= nd => {
                    if prod[r.vreg.index()].is_some() && (r.comp.is_some() || !add_of(f, inst, r.vreg)) {
                        prod[r.vreg.index()] = None;
                    }
                }
                Operand::Mem(m) => {
                    for r in [m.base, m.index].into_iter().flatten() {
                        if let Reg::V(r) = r {
                            prod[r.vreg.index()] = None;
                        }
                    }
                }
                _ => {}
            }
        }
    }
    // A product only a shift of it reads (the shift fused) has no add of its own.
    if prod.iter().all(Option::is_none) {
        return (None, "no wide product by a constant feeding 64-bit adds".to_string());
    }
    let mut g = f.clone();
    let mut adds = 0usize;
    let mut fused = std::collections::BTreeSet::new();
    // A multiplier loaded into a register is one value per function when the first add
    // that needs it (in layout order) dominates the others (cudpp's radixSortBlocks
    // loads 0x10 once at the top and reads it before and after its loop), else one
    // per add (deepspeed's cached_quantization: 0x2 and 0x4 right before their adds).
    let hit = |inst: &Inst| -> Option<(usize, VRegId, Product)> {
        if inst.op.mnemonic() != "IADD3" || inst.ndefs != 1 {
            return None;
        }
        inst.uses().iter().enumerate().find_map(|(k, o)| whole(o).and_then(|v| prod[v.index()].clone().map(|p| (k, v, p))))
    };
    let key = |o: &Operand| format!("{o:?}");
    let mut blocks_of: std::collections::BTreeMap<String, Vec<usize>> = std::collections::BTreeMap::new();
    for (bi, b) in f.blocks.iter().enumerate() {
        for inst in &b.insts {
            if let Some((at, _, p)) = hit(inst)
                && matches!(inst.uses()[1 - at], Operand::CBank { .. })
            {
                blocks_of.entry(key(&p.k)).or_default().push(bi);
            }
        }
    }
    let c = crate::analysis::cfg::build(f, 1.0);
    let shared: std::collections::BTreeSet<String> = blocks_of
        .into_iter()
        .filter(|(_, bs)| bs.len() > 1 && bs.iter().all(|&b| c.dominates(bs[0], b)))
        .map(|(k, _)| k)
        .collect();
    let mut loaded: std::collections::BTreeMap<String, VRegId> = std::collections::BTreeMap::new();
    let mut held = 0usize;
    for bi in 0..g.blocks.len() {
        let insts = std::mem::take(&mut g.blocks[bi].insts);
        let mut out = Vec::with_capacity(insts.len());
        for inst in insts {
            let Some((at, v, p)) = hit(&inst) else {
                out.push(inst);
                continue;
            };
            fused.insert(v);
            let other = inst.uses()[1 - at].clone();
            // `IMAD.WIDE` names at most one operand that is not a register: with a
            // constant-bank addend the multiplier is loaded into a register
            // (`MOV R11, 0x4; IMAD.WIDE.U32 R10, R10, R11, c[0x0][0x160]` in the
            // hand-made kernel; `IMAD.MOV.U32 R13, RZ, RZ, 0x10` in cudpp's
            // radixSortBlocks).
            let k = if matches!(other, Operand::CBank { .. }) {
                let kk = key(&p.k);
                let reuse = loaded.get(&kk).copied();
                let t = match reuse {
                    Some(t) => t,
                    None => {
                        let t = g.add_vreg(format!("%fuse{held}"), RegClass::R, 1);
                        held += 1;
                        let share = shared.contains(&kk);
                        let mut mv =
                            Inst::new(crate::ir::opcode::Opcode::from_mnemonic("MOV"), vec![Operand::vreg(t)], vec![p.k]);
                        mv.guard = if share { None } else { inst.guard };
                        mv.origin = inst.origin;
                        out.push(mv);
                        if share {
                            loaded.insert(kk, t);
                        }
                        t
                    }
                };
                Operand::vreg(t)
            } else {
                p.k
            };
            let mods = if p.signed { ".WIDE" } else { ".WIDE.U32" };
            let mut m = Inst::new(
                crate::ir::opcode::Opcode::from_mnemonic("IMAD"),
                vec![inst.defs()[0].clone()],
                vec![Operand::Reg(Reg::V(RegRef::whole(p.x))), k, other],
            );
            m.mods = mods.into();
            m.guard = inst.guard;
            m.origin = inst.origin;
            out.push(m);
            adds += 1;
        }
        g.blocks[bi].insts = out;
    }
    if adds == 0 {
        return (None, "no wide product by a constant feeding 64-bit adds".to_string());
    }
    // The products' own instructions (and a multiply only their shift read) go: any
    // product candidate nothing reads any more.
    let mut left = vec![0u32; g.vregs.len()];
    for inst in g.blocks.iter().flat_map(|b| &b.insts) {
        inst.for_each_use(|r| left[r.vreg.index()] += 1);
    }
    for _ in 0..2 {
        for b in &mut g.blocks {
            b.insts.retain(|inst| {
                let dead = inst.ndefs == 1
                    && inst.defs().first().and_then(whole).is_some_and(|d| cand.get(d.index()).is_some_and(Option::is_some) && left[d.index()] == 0);
                if dead {
                    inst.for_each_use(|r| left[r.vreg.index()] -= 1);
                }
                !dead
            });
        }
    }
    let summary = format!(
        "{} wide product(s) formed at their {adds} add(s) as IMAD.WIDE from the 32-bit factor: {}",
        fused.len(),
        crate::prepass::name_list(f, &fused.into_iter().collect::<Vec<_>>())
    );
    (Some(g), summary)
}
