//! `vectorize`: adjacent scalar shared-memory loads become one 64- or 128-bit load.
//!
//! NVVM's PTX for a register-tiled SGEMM reads a thread's fragment one float at a time
//! (`ld.shared.f32 %f85, [%rd2]; … [%rd2+4]; … [%rd2+8]; … [%rd2+12]`), where ptxas
//! issues one `LDS.128 R8, [R4]` (all 16 `LDS` of sgemm_4x4's SASS, 32 of sgemm_8x8's, 48
//! and 64 of the larger tiles, on sm_80 and sm_90: nvdisasm on cubins the corpus ptxas
//! wrote; ARCHITECTURE.md, "Fidelity", step 18). The quad's four values arrive together
//! in an aligned quad, so they are live together from the load on: more pressure than
//! the scalar loads spread along their uses, and quad alignment holes.
//!
//! A group merges when its loads are `LDS` of 32-bit values in one block, unguarded, each
//! defining a single-def whole register, at offsets `o, o+4[, o+8, o+12]` from the same
//! base register (or symbol), with no store, atomic, barrier, call or redefinition of the
//! base between the first and the last of them, and the address provably aligned to the
//! group's size: `o` a multiple of 16 (8 for a pair) and the base's known alignment at
//! least that. Alignment is the number of known low zero bits, from a fixed point over
//! the defs: an immediate or a shift or multiply by a constant adds bits, an add keeps
//! the smaller, a `.shared` symbol counts 16 bytes. (ptxas lays shared variables out
//! itself: sgemm_4x4 declares `.shared .align 4 .b8 As[2048]` and its SASS reads it with
//! `LDS.128`.) Global loads stay scalar: nothing proves a kernel pointer's alignment, and
//! the corpus SASS has no vectorized `LDG` NVVM did not write as a vector. Quads are
//! preferred; what is left of a run pairs up.
//!
//! The merged load defines a quad (pair) temporary at the first load's place and
//! component moves unpack it, the importer's form of a PTX `.v4` load
//! (`ir::ptx::operand`). Stores are left scalar (merge_sort_i32's `STS.128` needs its data
//! packed into a quad first; not modelled).

use crate::ir::opcode::props;
use crate::ir::{Function, Inst, Opcode, Operand, Reg, RegClass, RegRef, Space, VRegId};
use crate::prepass::{Pass, PassCtx};

pub const PASS: Pass = Pass {
    name: "vectorize",
    about: "adjacent 32-bit shared loads merged into LDS.64 / LDS.128, as ptxas issues them",
    run,
    ori: false,
};

/// Known low zero bits are tracked up to 16-byte alignment, the widest access.
const MAX_BITS: u8 = 4;

const NOTHING: &str = "no adjacent shared loads to merge";

fn run(f: &Function, ctx: &PassCtx) -> (Option<Function>, String) {
    // A group is two loads or more of one block (`runs`): a function without two `LDS`
    // in a block has none, and needs no alignment analysis.
    if !f.blocks.iter().any(|b| b.insts.iter().filter(|i| i.op.mnemonic() == "LDS").nth(1).is_some()) {
        return (None, NOTHING.to_string());
    }
    let shared = |name: &str| ctx.module.globals.iter().any(|g| g.space == Space::Shared && g.name == name);
    let bits = alignment_bits(f, &shared);
    let defs = crate::prepass::def_counts(f);
    // Each block's groups read only that block and its vregs, which the rebuild of the
    // blocks before it leaves as they are: all are found on `f`, and the function is
    // copied only when there is one.
    let all: Vec<Vec<Vec<usize>>> =
        f.blocks.iter().map(|blk| groups_in_block(&blk.insts, f, &defs, &bits, &shared)).collect();
    if all.iter().all(Vec::is_empty) {
        return (None, NOTHING.to_string());
    }
    let mut g = f.clone();
    let mut fresh = crate::prepass::FreshVregs::new(&g, "%lv");
    let (mut quads, mut pairs, mut merged) = (0usize, 0usize, 0usize);
    for (b, groups) in all.into_iter().enumerate() {
        if groups.is_empty() {
            continue;
        }
        // Rebuild the block: the merged load and its unpacking moves at the first
        // member's place, the other members dropped.
        let mut at_first: Vec<Option<usize>> = vec![None; g.blocks[b].insts.len()];
        let mut dropped = vec![false; g.blocks[b].insts.len()];
        for (k, grp) in groups.iter().enumerate() {
            let first = *grp.iter().min().unwrap_or(&0);
            at_first[first] = Some(k);
            grp.iter().for_each(|&i| dropped[i] = true);
        }
        let old = std::mem::take(&mut g.blocks[b].insts);
        let mut out = Vec::with_capacity(old.len());
        for (i, inst) in old.iter().enumerate() {
            if let Some(k) = at_first[i] {
                let grp = &groups[k];
                let width = grp.len() as u8;
                let t = fresh.make(&mut g, width);
                // Members are in offset order (groups_in_block).
                let lead = &old[grp[0]];
                let mut load = lead.clone();
                load.mods = if width == 4 { ".128".into() } else { ".64".into() };
                load.operands[0] = Operand::Reg(Reg::V(RegRef::whole(t)));
                out.push(load);
                for (c, &m) in grp.iter().enumerate() {
                    let mut mv = Inst::new(
                        Opcode::from_mnemonic("MOV"),
                        vec![old[m].operands[0].clone()],
                        vec![Operand::Reg(Reg::V(RegRef { vreg: t, comp: Some(c as u8) }))],
                    );
                    mv.origin = old[m].origin;
                    out.push(mv);
                }
                if width == 4 {
                    quads += 1;
                } else {
                    pairs += 1;
                }
                merged += grp.len();
            }
            if !dropped[i] {
                out.push(inst.clone());
            }
        }
        g.blocks[b].insts = out;
    }
    let summary = format!("{merged} scalar shared load(s) merged into {quads} LDS.128 and {pairs} LDS.64");
    (Some(g), summary)
}

/// The address a load reads, without its offset: base register and symbol.
type Key = (Option<VRegId>, Option<Box<str>>);

/// A 32-bit scalar shared load: its key and offset.
fn scalar_lds(inst: &Inst, g: &Function, defs: &[u32]) -> Option<(Key, i64)> {
    if inst.op.mnemonic() != "LDS" || inst.ndefs != 1 || !inst.guard_is_always() || inst.operands.len() != 2 {
        return None;
    }
    let narrow_or_wide = ["8", "16", "64", "128", "V2", "V4", "U8", "S8", "U16", "S16"];
    if inst.mods.split('.').any(|m| narrow_or_wide.contains(&m)) || inst.has_side_effects() {
        return None;
    }
    let Operand::Reg(Reg::V(d)) = &inst.operands[0] else { return None };
    let v = &g.vregs[d.vreg.index()];
    if d.comp.is_some() || v.width != 1 || v.class != RegClass::R || defs[d.vreg.index()] != 1 || v.pin.is_some() {
        return None;
    }
    let Operand::Mem(m) = &inst.operands[1] else { return None };
    if m.index.is_some() {
        return None;
    }
    let base = match &m.base {
        None => None,
        Some(Reg::V(r)) if r.comp.is_none() => Some(r.vreg),
        Some(_) => return None,
    };
    Some(((base, m.sym.clone()), m.offset))
}

/// Whether `inst` ends a window in which loads may move up past it.
fn fences(inst: &Inst) -> bool {
    let i = inst.info();
    i.is(props::STORE) || i.is(props::CALL) || i.is(props::BRANCH) || inst.has_side_effects()
}

/// The groups to merge in one block: member instruction indices in offset order.
/// Linear in the block (and logarithmic per load): open windows are keyed in a map, and
/// the reads of each candidate's register are looked up by position.
fn groups_in_block(
    insts: &[Inst],
    g: &Function,
    defs: &[u32],
    bits: &[u8],
    shared: &dyn Fn(&str) -> bool,
) -> Vec<Vec<usize>> {
    use std::collections::BTreeMap;
    type Open = BTreeMap<Key, Vec<(i64, usize)>>;
    let mut out = Vec::new();
    // Open windows: loads since the last fence, by key.
    let mut open: Open = BTreeMap::new();
    let close = |open: Open, out: &mut Vec<Vec<usize>>| {
        for (key, loads) in open {
            let align = key_bits(&key, bits, shared);
            out.extend(runs(&loads, align));
        }
    };
    // Where each candidate's register is read in the block.
    let mut reads: BTreeMap<VRegId, Vec<usize>> = BTreeMap::new();
    for inst in insts {
        if scalar_lds(inst, g, defs).is_some()
            && let Some(Operand::Reg(Reg::V(d))) = inst.operands.first()
        {
            reads.entry(d.vreg).or_default();
        }
    }
    for (i, inst) in insts.iter().enumerate() {
        inst.for_each_use(|r| {
            if let Some(v) = reads.get_mut(&r.vreg) {
                v.push(i);
            }
        });
    }
    for (i, inst) in insts.iter().enumerate() {
        if fences(inst) {
            close(std::mem::take(&mut open), &mut out);
            continue;
        }
        if let Some((key, off)) = scalar_lds(inst, g, defs) {
            open.entry(key).or_default().push((off, i));
        }
        // A redefined base ends its window (its later loads read another address).
        inst.for_each_def(|r| {
            let gone: Vec<Key> = open
                .range((Some(r.vreg), None)..)
                .map(|(k, _)| k.clone())
                .take_while(|k| k.0 == Some(r.vreg))
                .collect();
            for k in gone {
                if let Some(loads) = open.remove(&k) {
                    out.extend(runs(&loads, key_bits(&k, bits, shared)));
                }
            }
        });
    }
    close(open, &mut out);
    // A member's value must not be read between the first member and its own place (a
    // loop-carried read of the previous iteration's value): moving its def up would
    // overwrite it first.
    out.retain(|grp| {
        let first = *grp.iter().min().unwrap_or(&0);
        grp.iter().all(|&m| {
            let Some(Operand::Reg(Reg::V(d))) = insts[m].operands.first() else { return false };
            let at = reads.get(&d.vreg).map_or(&[][..], |v| v.as_slice());
            let k = at.partition_point(|&p| p < first);
            at.get(k).is_none_or(|&p| p >= m)
        })
    });
    out.sort();
    out
}

/// Known low zero bits of a key's address (base register and symbol together).
fn key_bits(key: &Key, bits: &[u8], shared: &dyn Fn(&str) -> bool) -> u8 {
    let b = key.0.map_or(MAX_BITS, |v| bits[v.index()]);
    let s = key.1.as_deref().map_or(MAX_BITS, |s| if shared(s) { MAX_BITS } else { 0 });
    b.min(s)
}

/// Quads, then pairs, among loads `(offset, index)` of one address with `align` known
/// low zero bits. A duplicate offset keeps its first load only.
fn runs(loads: &[(i64, usize)], align: u8) -> Vec<Vec<usize>> {
    let mut by_off: std::collections::BTreeMap<i64, usize> = Default::default();
    for &(o, i) in loads {
        by_off.entry(o).or_insert(i);
    }
    let mut used: std::collections::BTreeSet<usize> = Default::default();
    let mut out = Vec::new();
    for (size, bytes) in [(4usize, 16i64), (2, 8)] {
        if align < bytes.trailing_zeros() as u8 {
            continue;
        }
        for &o in by_off.keys() {
            if o % bytes != 0 {
                continue;
            }
            let members: Option<Vec<usize>> =
                (0..size as i64).map(|k| o.checked_add(4 * k).and_then(|x| by_off.get(&x).copied())).collect();
            if let Some(m) = members.filter(|m| m.iter().all(|i| !used.contains(i))) {
                used.extend(&m);
                out.push(m);
            }
        }
    }
    out
}

/// Known low zero bits of every vreg's value (capped at [`MAX_BITS`]): the greatest
/// fixed point from "all aligned", lowered by each def. A worklist: when a vreg's bits
/// fall, the defs that read it are evaluated again (each vreg falls at most
/// `MAX_BITS` times, so the work is linear in the def-use edges).
fn alignment_bits(f: &Function, shared: &dyn Fn(&str) -> bool) -> Vec<u8> {
    let n = f.vregs.len();
    let insts: Vec<&Inst> = f.blocks.iter().flat_map(|b| &b.insts).collect();
    let mut has_def = vec![false; n];
    let mut readers: Vec<Vec<u32>> = vec![Vec::new(); n];
    for (k, inst) in insts.iter().enumerate() {
        inst.for_each_def(|r| has_def[r.vreg.index()] = true);
        if inst.ndefs > 0 {
            inst.for_each_use(|r| readers[r.vreg.index()].push(k as u32));
        }
    }
    let mut bits: Vec<u8> = has_def.iter().map(|&d| if d { MAX_BITS } else { 0 }).collect();
    let mut work: Vec<u32> = (0..insts.len() as u32).rev().collect();
    let mut queued = vec![true; insts.len()];
    while let Some(k) = work.pop() {
        queued[k as usize] = false;
        let inst = insts[k as usize];
        for op in inst.defs() {
            let Operand::Reg(Reg::V(d)) = op else { continue };
            let v = if d.comp.is_some() || inst.ndefs != 1 { 0 } else { def_bits(inst, &bits, shared) };
            let di = d.vreg.index();
            if v < bits[di] {
                bits[di] = v;
                for &r in &readers[di] {
                    if !queued[r as usize] {
                        queued[r as usize] = true;
                        work.push(r);
                    }
                }
            }
        }
    }
    bits
}

fn operand_bits(o: &Operand, bits: &[u8], shared: &dyn Fn(&str) -> bool) -> u8 {
    match o {
        Operand::Imm(0) => MAX_BITS,
        Operand::Imm(k) => (k.trailing_zeros() as u8).min(MAX_BITS),
        Operand::Sym(s) if shared(s) => MAX_BITS,
        Operand::Reg(Reg::V(r)) if r.comp.is_none() => bits[r.vreg.index()],
        _ => 0,
    }
}

/// Known low zero bits of one instruction's result.
fn def_bits(inst: &Inst, bits: &[u8], shared: &dyn Fn(&str) -> bool) -> u8 {
    let u = inst.uses();
    let b = |k: usize| u.get(k).map_or(0, |o| operand_bits(o, bits, shared));
    let imm = |k: usize| match u.get(k) {
        Some(Operand::Imm(s)) if (0..32).contains(s) => Some(*s as u8),
        _ => None,
    };
    let r = match inst.op.mnemonic() {
        "MOV" if u.len() == 1 => b(0),
        "PRMT" if inst.has_mod("CVT") && u.len() == 1 => b(0),
        "IADD3" if !inst.has_mod("X") => (0..u.len()).map(b).min().unwrap_or(0),
        "SHL" if u.len() == 2 => imm(1).map_or(0, |s| b(0).saturating_add(s)),
        "SHF" if inst.has_mod("L") && u.len() >= 2 => imm(1).map_or(0, |s| b(0).saturating_add(s)),
        // A multiply (wide or not) adds the factors' zero bits; a multiply-add keeps the
        // smaller of that and the addend's.
        "IMAD" if u.len() == 2 => b(0).saturating_add(b(1)),
        "IMAD" if u.len() == 3 => b(0).saturating_add(b(1)).min(b(2)),
        "LEA" if u.len() == 3 => imm(2).map_or(0, |s| b(0).saturating_add(s)).min(b(1)),
        _ => 0,
    };
    r.min(MAX_BITS)
}

#[cfg(test)]
mod tests {
    use super::runs;

    #[test]
    fn quads_then_pairs() {
        let loads = [(0, 0), (4, 1), (8, 2), (12, 3), (16, 4), (20, 5), (28, 6)];
        assert_eq!(runs(&loads, 4), vec![vec![0, 1, 2, 3], vec![4, 5]]);
        // 8-byte alignment: pairs only.
        assert_eq!(runs(&loads, 3), vec![vec![0, 1], vec![2, 3], vec![4, 5]]);
        // Unknown alignment: nothing.
        assert!(runs(&loads, 2).is_empty());
    }
}
