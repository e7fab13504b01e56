//! `fragments`: a vector operand packed from scalars that feed nothing else is those
//! scalars' own register tuple.
//!
//! The importer packs a vector that is read (`mma.sync`'s `{%r1, %r2, %r3, %r4}`,
//! `st.v4`'s data) into a fresh temporary by component moves (`%v4tmp1.0 = MOV %r1`,
//! `ir::ptx::operand`), once per instruction. When the scalars are loaded for an
//! `mma.sync` and read by two of them (the A fragment against two B fragments), the
//! imported function holds the four scalars and a quad copy of them at each `mma`: eight
//! registers where ptxas has four. ptxas 13.0.88 loads the fragment straight into the
//! tuple and reads it in place at every `HMMA` (a hand-made `m16n8k16` loop,
//! `tests/fidelity_fragments.rs`: `LDG.E R16..R19`, then `HMMA.16816.F32 R8, R16.reuse,
//! R28, R8` and `HMMA.16816.F32 R12, R16, R28, R12`; ptxas 34 registers, radbg 49 before
//! this pass).
//!
//! The rule: group the temporaries packed, component by component, from the same scalars
//! in the same order, read only by tensor-core instructions (`HMMA`, `IMMA`, `DMMA`, …:
//! what the evidence shows). When every scalar has one whole def, unguarded, all in one block,
//! and every read of a scalar is such a packing move at its own position, the scalars
//! become the components of the group's first temporary (their defs write `%t.k`), the
//! moves go, and the group's other temporaries are read as that one. Nothing is live
//! longer than before: the scalars were live up to the last packing move. Runs before
//! `components`, which then starts the tuple at its first component def.

use std::collections::BTreeMap;

use crate::ir::{Function, Operand, Reg, RegClass, RegRef, VRegId};
use crate::prepass::{Pass, PassCtx};

pub const PASS: Pass = Pass {
    name: "fragments",
    about: "vector operands packed from scalars that only feed them are the scalars' own register tuple (MMA fragments)",
    run,
    ori: false,
};

/// Where an instruction is: block and index.
type At = (usize, usize);

/// A component packing move `%t.k = MOV %s`: `(t, k, s)`.
fn packing(inst: &crate::ir::Inst) -> Option<(VRegId, u8, VRegId)> {
    if inst.op.mnemonic() != "MOV" || inst.ndefs != 1 || !inst.guard_is_always() || !inst.mods.is_empty() {
        return None;
    }
    let (Operand::Reg(Reg::V(d)), [Operand::Reg(Reg::V(s))]) = (&inst.operands[0], &inst.operands[1..]) else {
        return None;
    };
    Some((d.vreg, d.comp?, s.vreg)).filter(|_| s.comp.is_none())
}

fn run(f: &Function, _ctx: &PassCtx) -> (Option<Function>, String) {
    let n = f.vregs.len();
    // Per vreg: its defs (whole or component) and its reads, by place.
    let mut defs: Vec<Vec<(At, Option<u8>)>> = vec![Vec::new(); n];
    let mut reads: Vec<Vec<At>> = vec![Vec::new(); n];
    for (b, blk) in f.blocks.iter().enumerate() {
        for (i, inst) in blk.insts.iter().enumerate() {
            inst.for_each_def(|r| defs[r.vreg.index()].push(((b, i), r.comp)));
            inst.for_each_use(|r| reads[r.vreg.index()].push((b, i)));
        }
    }
    let plain = |v: VRegId| {
        let vr = f.vreg(v);
        vr.class == RegClass::R && vr.pin.is_none() && vr.alias.is_none()
    };
    let inst_at = |(b, i): At| &f.blocks[b].insts[i];
    // Packed temporaries: width w ≥ 2, defined only by w packing moves (one per
    // component, from distinct scalars of width 1), all in one block.
    let mut groups: BTreeMap<Vec<VRegId>, Vec<VRegId>> = BTreeMap::new();
    for t in (0..n).map(VRegId::new) {
        let w = usize::from(f.vreg(t).width);
        if w < 2 || !plain(t) || defs[t.index()].len() != w {
            continue;
        }
        let mut tuple = vec![None; w];
        let mut block = None;
        let ok = defs[t.index()].iter().all(|&(at, comp)| {
            let Some((d, k, s)) = packing(inst_at(at)) else { return false };
            let k = usize::from(k);
            let fits = d == t && comp == Some(k as u8) && k < w && tuple[k].is_none();
            let same_block = *block.get_or_insert(at.0) == at.0;
            if fits && same_block && f.vreg(s).width == 1 && plain(s) {
                tuple[k] = Some(s);
                true
            } else {
                false
            }
        });
        let tuple: Option<Vec<VRegId>> = tuple.into_iter().collect();
        if let (true, Some(tuple)) = (ok, tuple) {
            let mut distinct = tuple.clone();
            distinct.sort();
            distinct.dedup();
            if distinct.len() == w {
                groups.entry(tuple).or_default().push(t);
            }
        }
    }
    let mut g = f.clone();
    let mut drop: Vec<At> = Vec::new();
    let mut merged = Vec::new();
    let mut rename: Vec<Option<VRegId>> = vec![None; n];
    for (tuple, temps) in &groups {
        // Each scalar: one whole, unguarded def of it alone, all in one block; every read
        // a packing move into this group at its own position.
        let def_block = defs[tuple[0].index()].first().map(|&((b, _), _)| b);
        let scalars_ok = tuple.iter().enumerate().all(|(k, &s)| {
            let [(at, None)] = defs[s.index()][..] else { return false };
            let d = inst_at(at);
            Some(at.0) == def_block
                && d.ndefs == 1
                && d.guard_is_always()
                && reads[s.index()].iter().all(|&r| {
                    packing(inst_at(r)).is_some_and(|(t, kk, ss)| ss == s && usize::from(kk) == k && temps.contains(&t))
                })
        });
        // Only tensor-core operands: a vector store's data is written component by
        // component, each register free until then (ptxas's liveness is per register,
        // radbg's per vreg: a tuple would be live whole from its first component).
        let mma_only = temps.iter().all(|t| {
            let r = &reads[t.index()];
            !r.is_empty() && r.iter().all(|&r| inst_at(r).op.mnemonic().contains("MMA"))
        });
        if !scalars_ok || !mma_only {
            continue;
        }
        let home = temps[0];
        for (k, &s) in tuple.iter().enumerate() {
            let [(at, None)] = defs[s.index()][..] else { continue };
            g.blocks[at.0].insts[at.1].operands[0] = Operand::Reg(Reg::V(RegRef { vreg: home, comp: Some(k as u8) }));
        }
        for &t in temps {
            drop.extend(defs[t.index()].iter().map(|&(at, _)| at));
            if t != home {
                rename[t.index()] = Some(home);
            }
        }
        merged.push(home);
    }
    if merged.is_empty() {
        return (None, "no vector operand packed from scalars that only feed it".to_string());
    }
    drop.sort();
    for (b, blk) in g.blocks.iter_mut().enumerate() {
        let mut i = 0;
        blk.insts.retain(|_| {
            let keep = drop.binary_search(&(b, i)).is_err();
            i += 1;
            keep
        });
        for inst in &mut blk.insts {
            for o in inst.operands.iter_mut().skip(usize::from(inst.ndefs)) {
                if let Operand::Reg(Reg::V(r)) = o
                    && let Some(h) = rename[r.vreg.index()]
                {
                    r.vreg = h;
                }
            }
        }
    }
    let summary = format!(
        "{} vector operand(s) now the register tuple of the scalars packed into them: {}",
        merged.len(),
        crate::prepass::name_list(&g, &merged)
    );
    (Some(g), summary)
}
