//! The fast path of rule 6: spill-slot correctness as a must-availability bitvector
//! problem, so that the common case — every reload reads its vreg's value — costs a
//! few word operations per block instead of one lattice element per slot word per block.
//!
//! A *fact* is "word `w` holds component `c` of value `root`", one per (word, value,
//! component) some spill store writes. The lattice of `spill` projects exactly onto
//! these facts: its element at a point is `Holds(root, c)` iff that fact holds on every
//! path (a store of it generates it and kills the word's other facts, a store of a
//! non-vreg kills them all, a def of `root` kills its facts with a matching component,
//! the meet is intersection, roots start empty and unvisited blocks are top). Both are
//! maximal fixed points of the same equations, so "every reload finds its fact" here is
//! "no `BadReload`" there.
//!
//! Anything unusual — a stray or address-less spill instruction, a reload that is not
//! into a temporary, a missing fact — makes this pass answer `false`, and the caller
//! runs the exact lattice solve, which words the errors. The answer `true` therefore
//! promises only that the exact solve would report nothing.

use std::collections::HashMap;

use super::MemSlot;
use super::spill::{SpillOp, Spills, classify};
use crate::analysis::Cfg;
use crate::ir::model::{Inst, RegRef};

/// A fact's change: (fact, holds afterwards).
type Effect = (u32, bool);

/// One step of a block's summary: a fact changes, or the spill reload at this
/// instruction index reads the facts as they stand.
#[derive(Clone, Copy)]
enum Item {
    Set(u32, bool),
    Reload { slot: MemSlot, dest: Option<RegRef> },
}

struct Facts {
    /// (word, root, component) -> fact id. Ids are handed out in instruction order and
    /// the map is only looked up, never iterated, so its order cannot show; a hash map
    /// because every spill store and reload looks a fact up.
    ids: HashMap<(u32, u32, u8), u32>,
    /// Per word: its facts.
    of_word: Vec<Vec<u32>>,
    /// Per root (indexed by vreg id): its facts with their component.
    of_root: Vec<Vec<(u32, u8)>>,
}

/// Whether the exact spill-slot dataflow would find every reload correct and no spill
/// instruction malformed or stray (see the module doc). `None` inputs never panic.
pub(super) fn all_reloads_ok(s: &Spills, graph: &Cfg) -> bool {
    let f = s.ctx.f;
    let nb = f.blocks.len();
    let Some(facts) = collect_facts(s) else {
        return false;
    };
    let nf = facts.ids.len();
    let words = nf.div_ceil(64).max(1);

    // Each block's effects and reloads, in instruction order (one walk of the IR).
    let mut effects: Vec<Vec<Item>> = Vec::with_capacity(nb);
    for blk in &f.blocks {
        let mut list = Vec::new();
        for inst in &blk.insts {
            let op = classify(inst);
            if let Some(SpillOp::Reload { slot, dest }) = op {
                list.push(Item::Reload { slot, dest });
            }
            if !inst_effects(s, &facts, inst, op, &mut |(fact, on)| list.push(Item::Set(fact, on))) {
                return false;
            }
        }
        effects.push(list);
    }

    let preds = |b: usize| graph.preds.get(b).map_or(&[][..], Vec::as_slice);
    // Only the entry is a root: unreachable blocks stay unvisited (top), as in `spill`.
    let is_root = |b: usize| b == 0;
    let mut order: Vec<usize> = graph.rpo.iter().copied().filter(|&b| b < nb).collect();
    order.extend((0..nb).filter(|&b| !graph.reachable.get(b).copied().unwrap_or(false)));

    let mut outs = vec![0u64; nb * words];
    let mut visited = vec![false; nb];
    let mut cur = vec![0u64; words];
    // The entry state of `b` into `cur` (false: no path from the entry reaches it yet).
    let entry = |b: usize, outs: &[u64], visited: &[bool], cur: &mut [u64]| -> bool {
        let mut any = is_root(b);
        cur.fill(if any { 0 } else { !0 });
        for &p in preds(b) {
            if p < nb && visited[p] {
                any = true;
                for (x, y) in cur.iter_mut().zip(&outs[p * words..(p + 1) * words]) {
                    *x &= y;
                }
            }
        }
        any
    };
    // Monotone (facts only disappear below top) over a finite lattice: terminates; the
    // bound only guards against a bug.
    let max_passes = 2 * (nf + 1) * (nb + 1) + 2;
    let mut converged = false;
    for _ in 0..max_passes {
        let mut changed = false;
        for &b in &order {
            if !entry(b, &outs, &visited, &mut cur) {
                continue;
            }
            for item in &effects[b] {
                if let Item::Set(fact, on) = *item {
                    let (i, m) = ((fact >> 6) as usize, 1u64 << (fact & 63));
                    if on { cur[i] |= m } else { cur[i] &= !m }
                }
            }
            let out = &mut outs[b * words..(b + 1) * words];
            if !visited[b] || out != &cur[..] {
                out.copy_from_slice(&cur);
                visited[b] = true;
                changed = true;
            }
        }
        if !changed {
            converged = true;
            break;
        }
    }
    if !converged {
        return false;
    }

    // The reloads, walked with the solution.
    for (b, items) in effects.iter().enumerate() {
        if !entry(b, &outs, &visited, &mut cur) {
            continue;
        }
        for item in items {
            match *item {
                Item::Set(fact, on) => {
                    let (i, m) = ((fact >> 6) as usize, 1u64 << (fact & 63));
                    if on { cur[i] |= m } else { cur[i] &= !m }
                }
                Item::Reload { slot, dest } => {
                    if !reload_ok(s, &facts, slot, dest, &cur) {
                        return false;
                    }
                }
            }
        }
    }
    true
}

fn collect_facts(s: &Spills) -> Option<Facts> {
    let f = s.ctx.f;
    let mut ids = HashMap::new();
    let mut of_word: Vec<Vec<u32>> = vec![Vec::new(); s.words.len()];
    let mut of_root: Vec<Vec<(u32, u8)>> = vec![Vec::new(); f.vregs.len()];
    for inst in f.blocks.iter().flat_map(|b| &b.insts) {
        match classify(inst) {
            Some(SpillOp::Store { slot, value: Some(r) }) => {
                let Some(&root) = s.vals.root.get(r.vreg.index()) else { continue };
                for (c, addr) in s.store_words(slot, r) {
                    let w = s.words.get(slot.shared, addr)?;
                    let next = ids.len() as u32;
                    let id = *ids.entry((w, root, c)).or_insert(next);
                    if id == next {
                        of_word[w as usize].push(id);
                        of_root.get_mut(root as usize)?.push((id, c));
                    }
                }
            }
            Some(SpillOp::NoAddress { .. }) => return None,
            _ => {}
        }
    }
    Some(Facts { ids, of_word, of_root })
}

/// The effects of one instruction on the facts, in order: defs clobber, then a spill
/// store writes. False when the instruction would be reported (stray, no address).
fn inst_effects(s: &Spills, facts: &Facts, inst: &Inst, op: Option<SpillOp>, push: &mut impl FnMut(Effect)) -> bool {
    if matches!(op, Some(SpillOp::NoAddress { .. })) {
        return false;
    }
    if !matches!(op, Some(SpillOp::Reload { .. })) {
        inst.for_each_def(|r| {
            let Some(&root) = s.vals.root.get(r.vreg.index()) else { return };
            for &(id, c) in facts.of_root.get(root as usize).map_or(&[][..], Vec::as_slice) {
                if r.comp.is_none_or(|rc| rc == c) {
                    push((id, false));
                }
            }
        });
    }
    let Some(SpillOp::Store { slot, value }) = op else {
        return true;
    };
    let root = value.and_then(|r| s.vals.root.get(r.vreg.index()).copied());
    match (value, root) {
        (Some(r), Some(root)) => {
            for (c, addr) in s.store_words(slot, r) {
                let Some(w) = s.words.get(slot.shared, addr) else { return false };
                let Some(&id) = facts.ids.get(&(w, root, c)) else { return false };
                for &other in &facts.of_word[w as usize] {
                    push((other, false));
                }
                push((id, true));
            }
        }
        _ => {
            let Some(w) = s.words.get(slot.shared, slot.offset) else { return false };
            for &other in &facts.of_word[w as usize] {
                push((other, false));
            }
        }
    }
    true
}

/// The reload check of `Spills::check_reload`, answering only whether it passes.
fn reload_ok(s: &Spills, facts: &Facts, slot: MemSlot, dest: Option<RegRef>, state: &[u64]) -> bool {
    let f = s.ctx.f;
    let Some(dest) = dest.filter(|d| d.vreg.index() < f.vregs.len()) else { return false };
    let t = dest.vreg;
    let Some(k) = s.reload_info(t) else { return false };
    let info = &s.infos[k];
    let want = s.vals.root[info.vreg.index()];
    let t_width = f.vregs[t.index()].width.max(1);
    let mirror = t_width == f.vregs[info.vreg.index()].width.max(1);
    let n = if dest.comp.is_some() { 1 } else { t_width };
    let region = info.offset as i64..info.offset as i64 + info.bytes.max(4) as i64;
    for j in 0..n {
        let addr = slot.offset.saturating_add(4 * j as i64);
        let Some(w) = s.words.get(slot.shared, addr) else { return false };
        let comp = if mirror {
            dest.comp.unwrap_or(0).saturating_add(j)
        } else if info.shared == slot.shared && region.contains(&addr) {
            ((addr - info.offset as i64) / 4) as u8
        } else {
            dest.comp.unwrap_or(j)
        };
        let Some(&id) = facts.ids.get(&(w, want, comp)) else { return false };
        if (state[(id >> 6) as usize] >> (id & 63)) & 1 == 0 {
            return false;
        }
    }
    true
}
