//! `texture`: a texture fetch writes only the components its result is read for, and reads
//! its handle from the constant bank.
//!
//! Measured with nvdisasm on the development part's SASS (ffmpeg's `vf_scale_cuda`, sm_80
//! and sm_90; ARCHITECTURE.md, "Stop 31"): PTX's `tex.2d.v4.f32.f32 {%f18, %f19, %f20,
//! %f21}, [%rd1, {..}]` always names four destinations, but ptxas's `TEX` has a write mask
//! and two destination fields, each a register or a pair: with only `%f18` read it is
//! `TEX.SCR.LL RZ, R4, R18, R2, 0x0, 0x58, 2D, 0x1` (mask 0x1, one register, the second
//! field `RZ`; 2,664 of the 3,478 fetches of the two listings), with the first two read
//! `TEX.SCR.LL RZ, R18, .., 0x3` (one pair, 666), and with all four `TEX.SCR.LL R16, R14,
//! .., 2D` — two pairs, not an aligned quad (148). The handle, a kernel parameter, is not
//! in a register: `0x58` is the parameter's constant-bank word (`c[0x0][0x160]` / 4) on
//! sm_80, and on sm_90 it is a uniform register (`TEX.LL .., UR4, 0x0, 2D`). radbg's
//! importer gave every fetch a four-word vector destination (a quad, four-aligned) and kept
//! the handle's `LDC.64` in an R pair for the whole kernel: ffmpeg's bicubic scalers, ptxas
//! 32 registers under `--maxrregcount 32` with no spill, spilled in radbg.
//!
//! The model, for every texture fetch (`TEX`, `TLD`, `TLD4`) whose vector destination is
//! read only through component moves: the components read form at most two groups,
//! components 0–1 and 2–3, each one register (one component read) or a pair (both); an
//! unread group is not written. The handle operand becomes the constant-bank word its
//! `LDC` read when that `LDC` is its only def (an `LDC` left without readers is dropped).
//!
//! **Written, not in the pass list** (like `uniform`): measured on both parts of the gate
//! (ARCHITECTURE.md, "Stop 31") it moved more development rows away from ptxas than toward
//! it at the default and 32 and did not improve the test part — with the quads gone, the
//! latency fill and the placement of pairs show their own errors. It waits for those.
//!
//! Owns the texture-destination rule; must not know the allocator or the engine.

use crate::ir::{Function, Inst, Operand, Reg, RegRef, VRegId};
use crate::prepass::{Pass, PassCtx};

pub const PASS: Pass = Pass {
    name: "texture",
    about: "a texture fetch writes only the components read (ptxas's write mask) and reads its handle from the bank",
    run,
    ori: false,
};

/// Texture fetches with ptxas's write mask.
fn fetch(inst: &Inst) -> bool {
    matches!(inst.op.mnemonic(), "TEX" | "TLD" | "TLD4")
}

/// Where each component of a fetch's destination is read: `(block, instruction)` of the
/// move that extracts it, its destination vreg.
struct Extract {
    at: (usize, usize),
    comp: u8,
    dst: VRegId,
}

fn run(f: &Function, _ctx: &PassCtx) -> (Option<Function>, String) {
    if !f.blocks.iter().flat_map(|b| &b.insts).any(fetch) {
        return (None, "no texture fetch".to_string());
    }
    let n = f.vregs.len();
    let defs = crate::prepass::def_counts(f);
    // Readers of every vreg: whole or component, with the move extracting it (if one).
    let mut uses = vec![0u32; n];
    let mut extracts: Vec<Vec<Extract>> = (0..n).map(|_| Vec::new()).collect();
    let mut other_use = vec![false; n];
    let mut handle_def: Vec<Option<(usize, usize, u8, u32)>> = vec![None; n];
    for (b, blk) in f.blocks.iter().enumerate() {
        for (i, inst) in blk.insts.iter().enumerate() {
            inst.for_each_use(|r| uses[r.vreg.index()] += 1);
            let component_move = inst.info().is(crate::ir::opcode::props::MOVE)
                && inst.guard_is_always()
                && inst.ndefs == 1
                && inst.operands.len() == 2;
            let src = inst.uses().first().and_then(Operand::as_vreg);
            let dst = inst.defs().first().and_then(Operand::as_vreg);
            match (component_move, src, dst) {
                (true, Some(RegRef { vreg, comp: Some(k) }), Some(d)) if d.comp.is_none() => {
                    extracts[vreg.index()].push(Extract { at: (b, i), comp: k, dst: d.vreg })
                }
                _ => inst.for_each_use(|r| other_use[r.vreg.index()] = true),
            }
            if inst.op.mnemonic() == "LDC"
                && inst.guard_is_always()
                && let (Some(d), Some(Operand::CBank { bank, offset })) = (dst, inst.uses().first())
                && d.comp.is_none()
            {
                handle_def[d.vreg.index()] = Some((b, i, *bank, *offset));
            }
        }
    }
    let mut g = f.clone();
    let (mut narrowed, mut handles) = (Vec::new(), 0usize);
    let mut dead = vec![Vec::new(); f.blocks.len()];
    let mut handle_uses = vec![0u32; n];
    for (b, blk) in f.blocks.iter().enumerate() {
        for (i, inst) in blk.insts.iter().enumerate() {
            if !fetch(inst) {
                continue;
            }
            // The handle: the memory operand's base, when an LDC of the bank is its only def.
            for (k, o) in inst.operands.iter().enumerate().skip(inst.ndefs as usize) {
                let Operand::Mem(m) = o else { continue };
                let Some(Reg::V(RegRef { vreg: base, comp: None })) = m.base else { continue };
                let plain = m.index.is_none() && m.sym.is_none() && m.offset == 0;
                let v = base.index();
                if let Some((_, _, bank, offset)) = handle_def[v].filter(|_| defs[v] == 1 && plain) {
                    g.blocks[b].insts[i].operands[k] = Operand::CBank { bank, offset };
                    handle_uses[v] += 1;
                    handles += 1;
                }
            }
            // The destination: one vector def read only through component moves.
            let Some(d) = inst.defs().first().and_then(Operand::as_vreg).filter(|_| inst.ndefs == 1) else {
                continue;
            };
            let v = d.vreg.index();
            let width = f.vregs[v].width;
            if d.comp.is_some() || defs[v] != 1 || other_use[v] || !matches!(width, 2 | 4) {
                continue;
            }
            let read: Vec<&Extract> = extracts[v].iter().filter(|e| uses[e.dst.index()] > 0).collect();
            let group = |lo: u8| -> Vec<u8> {
                let mut c: Vec<u8> = read.iter().map(|e| e.comp).filter(|&c| c / 2 == lo / 2).collect();
                c.sort_unstable();
                c.dedup();
                c
            };
            let (a, z) = (group(0), group(2));
            // A pair read whole is already what ptxas writes; a quad never is (two pairs).
            if width == 2 && a.len() == 2 {
                continue;
            }
            // The groups' vregs: the first keeps the fetch's vreg, the second is new.
            let mut new_defs: Vec<Operand> = Vec::new();
            let mut map: Vec<(u8, RegRef)> = Vec::new();
            for (k, grp) in [a, z].into_iter().enumerate() {
                if grp.is_empty() {
                    continue;
                }
                let w = if grp.len() < 2 { 1 } else { 2 };
                let id = if new_defs.is_empty() {
                    g.vregs[v].width = w;
                    d.vreg
                } else {
                    let name = crate::ir::model::VReg::derived_name(&f.vregs[v].name, "$t", k);
                    let id = g.add_vreg(name, f.vregs[v].class, w);
                    g.vregs[id.index()].origin = f.vregs[v].origin;
                    id
                };
                new_defs.push(Operand::vreg(id));
                for &c in &grp {
                    let comp = (w == 2).then_some(c % 2);
                    map.push((c, RegRef { vreg: id, comp }));
                }
            }
            if new_defs.is_empty() {
                // Nothing read: the fetch keeps one register (ptxas writes at least one).
                g.vregs[v].width = 1;
                new_defs.push(Operand::vreg(d.vreg));
            }
            let fi = &mut g.blocks[b].insts[i];
            let nd = new_defs.len() as u8;
            let mut ops = std::mem::take(&mut fi.operands).into_vec();
            ops.splice(0..1, new_defs);
            fi.operands = ops.into();
            fi.ndefs = nd;
            for e in &extracts[v] {
                match map.iter().find(|(c, _)| *c == e.comp) {
                    Some(&(_, r)) => g.blocks[e.at.0].insts[e.at.1].operands[1] = Operand::Reg(Reg::V(r)),
                    // A move of a component nobody reads: its result is dead.
                    None => dead[e.at.0].push(e.at.1),
                }
            }
            narrowed.push(d.vreg);
        }
    }
    // Handle LDCs left without readers.
    for v in 0..n {
        if let Some((b, i, _, _)) = handle_def[v]
            && handle_uses[v] > 0
            && handle_uses[v] == uses[v]
        {
            dead[b].push(i);
        }
    }
    if narrowed.is_empty() && handles == 0 {
        return (None, "every texture fetch already writes what is read".to_string());
    }
    for (b, mut d) in dead.into_iter().enumerate() {
        d.sort_unstable();
        d.dedup();
        for i in d.into_iter().rev() {
            g.blocks[b].insts.remove(i);
        }
    }
    let summary = format!(
        "{} fetch destination(s) narrowed to the components read{}{}",
        narrowed.len(),
        if narrowed.is_empty() { String::new() } else { format!(" ({})", crate::prepass::name_list(f, &narrowed)) },
        if handles > 0 { format!(", {handles} handle(s) read from the constant bank") } else { String::new() }
    );
    (Some(g), summary)
}
