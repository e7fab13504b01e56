//! Spill code (seed 002, "Spill Code Generation", "Spill Slot Allocation", "Spill Slot
//! Coalescing", "Lazy Reload Algorithm", "Rematerialization").
//!
//! Spill code is regenerated from the *original* function each iteration for the whole
//! spill plan (every vreg spilled so far), so ids of original vregs never change and a
//! vreg whose lazy reloads failed can be redone eagerly.
//!
//! - Slots: `width × 4` bytes aligned to `min(bytes, 16)`, at increasing non-negative
//!   offsets from the frame base (the seed grows them downward from SP; the checker and
//!   the fat-point allocator use non-negative offsets). Spill-slot coalescing reuses a
//!   slot of the same size and memory whose occupants' live ranges (in the original
//!   function) all miss the new vreg's — the seed checks only the slot's first owner,
//!   which lets two later tenants overlap; radbg checks them all. UR and tensor vregs go
//!   to shared memory in OptiX compile mode 5, as in the fat-point allocator.
//! - Stores: `STL.SPILL [slot + 4c], %v` right after every definition (one component
//!   for a component def).
//! - Lazy reload, four phases: (1) spill locations — the plan's slots; (2) use points —
//!   every instruction reading a spilled vreg; (3) reload points — immediately before
//!   the first use in a block that finds no value available; (4) redundant reloads
//!   eliminated — a later use in the same block reuses the reloaded temporary, or the
//!   vreg itself after a whole, unguarded definition (the seed's availability dataflow,
//!   kept block-local: the checker requires every reload temporary to be defined in the
//!   block of its uses, and the seed's dominator hoisting would break that). A vreg
//!   whose reused temporaries still cannot be coloured is regenerated eagerly: one fresh
//!   temporary per reading instruction.
//! - Rematerialization (seed `is_rematerializable`, `compute_remat_cost`): a vreg with
//!   a single whole, unguarded definition by a side-effect-free instruction of the
//!   seed's classes (MOV of an immediate or symbol: 1 cycle; add/sub with immediates
//!   < 1024, shifts, logic ops: 1 cycle; LEA: rematerializable but 10 cycles, so never
//!   chosen) whose sources are all constants — radbg does not extend the live range of
//!   a source register — is recomputed before a use when `compute < 0.75 × load`, the
//!   load costing 10 cycles outside loops and 4 inside (`estimate_cache_latency`). If
//!   every use is rematerialized, the vreg needs no slot and its definition is deleted.
//!
//! Knows the IR, the original live ranges and loop depths; not the graph.

use crate::alloc::briggs::cost::{MEM_LATENCY_L1, MEM_LATENCY_L2};
use crate::alloc::check::SpillSlotInfo;
use crate::alloc::ranges::Ranges;
use crate::analysis::Cfg;
use crate::ir::{Function, Inst, MemRef, Opcode, Operand, Reg, RegClass, RegDecl, RegRef, VReg, VRegId, vflags};

/// One vreg of the spill plan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlanEntry {
    /// The original vreg (an alias root of the original function).
    pub vreg: VRegId,
    /// One reload per reading instruction, no reuse (after lazy reloads failed).
    pub eager: bool,
    /// The iteration that spilled it (1-based).
    pub iteration: u32,
}

/// What a vreg created by spill code stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TempKind {
    Reload,
    Remat,
}

/// Generation switches (knobs `radbg.BriggsLazyReload`, `radbg.BriggsRemat`,
/// `radbg.BriggsSlotCoalescing`; shared memory for UR/tensor in compile mode 5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpillParams {
    pub lazy: bool,
    pub remat: bool,
    pub slot_coalescing: bool,
    pub smem: bool,
}

/// Where one plan entry's value lives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SlotView {
    pub vreg: VRegId,
    /// `(shared, offset, bytes)`; `None` when every use is rematerialized.
    pub slot: Option<(bool, u32, u32)>,
    pub remat_uses: u32,
    pub reloads: u32,
    pub stores: u32,
}

/// What the spill code of a plan is (the function itself is returned beside it).
#[derive(Clone, Debug)]
pub struct SpillCode {
    /// For the checker: one per plan entry with a slot.
    pub infos: Vec<SpillSlotInfo>,
    /// Per vreg of `func`: the plan entry (index) and kind of a temporary.
    pub temp_of: Vec<Option<(u32, TempKind)>>,
    pub slots: Vec<SlotView>,
    /// Lazy reload phase figures: spilled vregs, reading instructions, reloads inserted,
    /// reloads avoided by reuse.
    pub locations: u32,
    pub uses: u32,
    pub reloads: u32,
    pub eliminated: u32,
    pub stores: u32,
    pub remats: u32,
    /// Definitions deleted because every use is rematerialized.
    pub removed_defs: u32,
    pub frame_local: u32,
    pub frame_shared: u32,
}

/// One spill slot and the union of its tenants' live runs (original function), sorted.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Slot {
    shared: bool,
    offset: u32,
    bytes: u32,
    occupied: Vec<(u32, u32)>,
}

/// The slots of the plan's entries, kept across iterations: the plan only grows, and an
/// entry keeps its slot once placed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SlotTable {
    slots: Vec<Slot>,
    /// Per plan entry placed so far: `(shared, offset, bytes)`, `None` for no slot.
    pub of_entry: Vec<Option<(bool, u32, u32)>>,
    pub top_local: u32,
    pub top_shared: u32,
}

impl SlotTable {
    /// Places the entries not placed yet, in plan order.
    fn place(&mut self, orig: &Function, ranges: &Ranges, plan: &[PlanEntry], needs_slot: &[bool], p: &SpillParams) {
        let misses = |occ: &[(u32, u32)], segs: &[(u32, u32)]| {
            segs.iter().all(|&(lo, hi)| {
                let k = occ.partition_point(|o| o.1 < lo);
                k == occ.len() || occ[k].0 > hi
            })
        };
        for (e, pe) in plan.iter().enumerate().skip(self.of_entry.len()) {
            if !needs_slot[e] {
                self.of_entry.push(None);
                continue;
            }
            let v = &orig.vregs[pe.vreg.index()];
            let bytes = v.width.max(1) as u32 * 4;
            let align = bytes.min(16);
            let shared = p.smem && matches!(v.class, RegClass::UR | RegClass::T);
            let segs = ranges.segments(pe.vreg);
            let reuse = if p.slot_coalescing {
                self.slots.iter_mut().find(|s| s.shared == shared && s.bytes == bytes && misses(&s.occupied, segs))
            } else {
                None
            };
            let offset = match reuse {
                Some(s) => {
                    s.occupied.extend_from_slice(segs);
                    s.occupied.sort_unstable();
                    s.offset
                }
                None => {
                    let top = if shared { &mut self.top_shared } else { &mut self.top_local };
                    let off = top.div_ceil(align) * align;
                    *top = off + bytes;
                    self.slots.push(Slot { shared, offset: off, bytes, occupied: segs.to_vec() });
                    off
                }
            };
            self.of_entry.push(Some((shared, offset, bytes)));
        }
    }
}

/// For each candidate (an alias root live into a root block): whether every read of it
/// finds all its components defined on every path — so that a reload of the whole value
/// from its slot reads only words a store wrote. A forward may-be-undefined dataflow per
/// (candidate, component): everything undefined at the entry and at blocks nothing jumps
/// to; an unguarded definition defines what it writes.
pub fn reload_safe(f: &Function, cfg: &Cfg, ranges: &Ranges, cands: &[VRegId]) -> Vec<bool> {
    let n = f.vregs.len();
    let mut base = vec![usize::MAX; n];
    let mut nbits = 0usize;
    for &c in cands {
        base[c.index()] = nbits;
        nbits += f.vregs[c.index()].width.max(1) as usize;
    }
    let words = nbits.div_ceil(64).max(1);
    let nb = f.blocks.len();
    let cand_bits = |v: VRegId| -> Option<(usize, usize)> {
        let r = ranges.root.get(v.index())?;
        let b = *base.get(r.index())?;
        (b != usize::MAX).then(|| (b, f.vregs[r.index()].width.max(1) as usize))
    };
    let define = |inst: &Inst, cur: &mut [u64]| {
        if !inst.guard_is_always() {
            return;
        }
        inst.for_each_def(|r| {
            if let Some((b, w)) = cand_bits(r.vreg) {
                let (lo, hi) = match r.comp {
                    Some(c) => (c as usize, c as usize + 1),
                    None => (0, w),
                };
                for k in lo..hi.min(w) {
                    cur[(b + k) / 64] &= !(1 << ((b + k) % 64));
                }
            }
        });
    };
    let preds = |b: usize| cfg.preds.get(b).map_or(&[][..], Vec::as_slice);
    let root = |b: usize| b == 0 || preds(b).is_empty();
    let mut all = vec![0u64; words];
    for k in 0..nbits {
        all[k / 64] |= 1 << (k % 64);
    }
    // None: no path from a root reaches the block yet.
    let mut outs: Vec<Option<Vec<u64>>> = vec![None; nb];
    let mut ins: Vec<Option<Vec<u64>>> = vec![None; nb];
    let mut changed = true;
    let mut passes = 0;
    while changed && passes <= 2 * nb + 10 {
        changed = false;
        passes += 1;
        for b in 0..nb {
            let mut cur: Option<Vec<u64>> = root(b).then(|| all.clone());
            for &p in preds(b) {
                if let Some(o) = &outs[p] {
                    match &mut cur {
                        None => cur = Some(o.clone()),
                        Some(c) => c.iter_mut().zip(o).for_each(|(x, y)| *x |= y),
                    }
                }
            }
            let Some(mut cur) = cur else { continue };
            ins[b] = Some(cur.clone());
            for inst in &f.blocks[b].insts {
                define(inst, &mut cur);
            }
            if outs[b].as_ref() != Some(&cur) {
                outs[b] = Some(cur);
                changed = true;
            }
        }
    }
    let mut safe = vec![true; cands.len()];
    let index_of = |r: VRegId| cands.binary_search(&r).ok();
    for (block, state) in f.blocks.iter().zip(&ins) {
        let Some(mut cur) = state.clone() else { continue };
        for inst in &block.insts {
            inst.for_each_use(|r| {
                if let Some((base_bit, w)) = cand_bits(r.vreg)
                    && (0..w).any(|k| cur[(base_bit + k) / 64] >> ((base_bit + k) % 64) & 1 == 1)
                    && let Some(i) = index_of(ranges.root[r.vreg.index()])
                {
                    safe[i] = false;
                }
            });
            define(inst, &mut cur);
        }
    }
    if changed {
        // Not converged (a bug guard): claim nothing is safe.
        return vec![false; cands.len()];
    }
    safe
}

/// Compute cost of a rematerializable definition, in cycles; `None` when the seed's
/// `is_rematerializable` refuses it (or a source is a register).
pub fn remat_cost(inst: &Inst) -> Option<f64> {
    if !inst.guard_is_always() || inst.ndefs != 1 || inst.has_side_effects() {
        return None;
    }
    let mut imms = Vec::new();
    for op in inst.uses() {
        match op {
            Operand::Imm(i) => imms.push(*i),
            Operand::FImm(_) | Operand::Sym(_) => {}
            Operand::Reg(Reg::P(p)) if p.is_zero() => {}
            _ => return None,
        }
    }
    let name = inst.op.mnemonic();
    match name {
        "MOV" | "UMOV" => Some(1.0),
        "IADD3" | "UIADD3" | "IADD" | "ISUB" | "IADD32I" => {
            (!imms.is_empty() && imms.iter().all(|&i| i < 1024)).then_some(1.0)
        }
        "SHL" | "SHR" | "SHF" | "USHF" | "LOP3" | "ULOP3" | "LOP" | "AND" | "OR" | "XOR" => Some(1.0),
        "LEA" => Some(10.0),
        _ => None,
    }
}

/// Seed `estimate_cache_latency`: L2 outside loops, L1 inside.
pub fn load_cost(loop_depth: u32) -> f64 {
    if loop_depth == 0 { MEM_LATENCY_L2 } else { MEM_LATENCY_L1 }
}

fn width_mod(width: u8) -> &'static str {
    match width {
        1 => ".SPILL",
        2 => ".64.SPILL",
        4 => ".128.SPILL",
        _ => ".V.SPILL",
    }
}

fn mem(offset: u32) -> Operand {
    Operand::Mem(Box::new(MemRef { base: None, index: None, sym: None, offset: offset as i64 }))
}

/// Per entry: where its single rematerializable definition is, and its compute cost.
struct Remat {
    block: usize,
    index: usize,
    cost: f64,
}

/// The rematerializable definition of every plan entry, in one pass over the function.
fn find_remats(f: &Function, ranges: &Ranges, entry_of: &[Option<u32>], entries: usize) -> Vec<Option<Remat>> {
    let mut count = vec![0u32; entries];
    let mut found: Vec<Option<(usize, usize)>> = vec![None; entries];
    for (b, block) in f.blocks.iter().enumerate() {
        for (i, inst) in block.insts.iter().enumerate() {
            inst.for_each_def(|r| {
                let root = ranges.root.get(r.vreg.index()).copied();
                if let Some(e) = root.and_then(|x| entry_of.get(x.index()).copied().flatten()) {
                    count[e as usize] += 1;
                    if r.comp.is_none() {
                        found[e as usize] = Some((b, i));
                    }
                }
            });
        }
    }
    (0..entries)
        .map(|e| {
            let (b, i) = found[e].filter(|_| count[e] == 1)?;
            let cost = remat_cost(&f.blocks[b].insts[i])?;
            Some(Remat { block: b, index: i, cost })
        })
        .collect()
}

/// Renames every read of a vreg of `group` in `inst` (guard, sources, addresses) to `to`.
fn rename_uses(inst: &mut Inst, root_of: &dyn Fn(VRegId) -> Option<VRegId>, group: VRegId, to: VRegId) {
    inst.for_each_use_mut(|r| {
        if root_of(r.vreg) == Some(group) {
            r.vreg = to;
        }
    });
}

/// Renames definitions of alias members of a spilled vreg to the spilled vreg itself.
/// An alias shares its root's register and slot, so this changes no value; but a member
/// that keeps its own name would keep its own live range in the checker, which follows
/// each vreg: a partial definition `%rd1.hi = ...` after a reload into `%rd0` leaves
/// `%rd1.lo` live back to `%rd1`'s previous definition, across values the graph (built on
/// alias roots) let share the register. Members of another width keep their name.
fn rename_member_defs(
    inst: &mut Inst,
    root_of: &dyn Fn(VRegId) -> Option<VRegId>,
    entry_for: &dyn Fn(VRegId) -> Option<u32>,
    f: &Function,
) {
    let nd = inst.ndefs as usize;
    for op in inst.operands.iter_mut().take(nd) {
        if let Operand::Reg(Reg::V(r)) = op
            && entry_for(r.vreg).is_some()
            && let Some(root) = root_of(r.vreg)
            && root != r.vreg
            && f.vregs.get(root.index()).map(|v| (v.width, v.file()))
                == f.vregs.get(r.vreg.index()).map(|v| (v.width, v.file()))
        {
            r.vreg = root;
        }
    }
}

fn new_temp(f: &mut Function, of: VRegId, tag: &str, n: u32, origin: Option<u32>) -> VRegId {
    let orig = f.vregs[of.index()].clone();
    let name = format!("{}${tag}{n}", orig.name);
    let mut tv = VReg::new(name.clone(), orig.class, orig.width, f.decls.len());
    tv.flags = vflags::SPILLED;
    tv.origin = origin;
    f.decls.push(RegDecl { prefix: name, count: None, class: orig.class, width: orig.width, origin });
    let id = VRegId::new(f.vregs.len());
    f.vregs.push(tv);
    id
}

/// Per block: which plan entries' slots hold their vreg's value on every path into the
/// block, as bit sets (a must-dataflow: a store of the whole vreg writes the slot;
/// nothing unwrites it, since a slot's other tenants are never live where this vreg is).
fn stored_on_entry(
    f: &Function,
    cfg: &Cfg,
    entry_for: &dyn Fn(VRegId) -> Option<u32>,
    slot_of: &[Option<(bool, u32, u32)>],
) -> Vec<Vec<u64>> {
    let nb = f.blocks.len();
    let words = slot_of.len().div_ceil(64);
    let gen_: Vec<Vec<u64>> = f
        .blocks
        .iter()
        .map(|block| {
            let mut g = vec![0u64; words];
            for inst in &block.insts {
                inst.for_each_def(|r| {
                    if let Some(e) = entry_for(r.vreg)
                        && r.comp.is_none()
                        && slot_of[e as usize].is_some()
                    {
                        g[e as usize / 64] |= 1 << (e % 64);
                    }
                });
            }
            g
        })
        .collect();
    let preds = |b: usize| cfg.preds.get(b).map_or(&[][..], Vec::as_slice);
    // Top (all stored) everywhere but the roots, then descend to the fixed point.
    let root = |b: usize| b == 0 || preds(b).is_empty();
    let mut ins: Vec<Vec<u64>> = (0..nb).map(|b| vec![if root(b) { 0 } else { u64::MAX }; words]).collect();
    let mut order: Vec<usize> = cfg.rpo.iter().copied().filter(|&b| b < nb).collect();
    let mut listed = vec![false; nb];
    order.iter().for_each(|&b| listed[b] = true);
    order.extend((0..nb).filter(|&b| !listed[b]));
    let mut st = vec![0u64; words];
    let mut changed = true;
    let mut passes = 0;
    while changed {
        if passes > 2 * nb + 10 {
            // Not converged (cannot happen for a monotone descent this short; a guard
            // against a bug): claim nothing, which only costs longer ranges.
            return vec![vec![0; words]; nb];
        }
        changed = false;
        passes += 1;
        for &b in &order {
            if root(b) {
                continue;
            }
            st.iter_mut().for_each(|w| *w = u64::MAX);
            for &pb in preds(b) {
                for (k, w) in st.iter_mut().enumerate() {
                    *w &= ins[pb][k] | gen_[pb][k];
                }
            }
            if st != ins[b] {
                ins[b].copy_from_slice(&st);
                changed = true;
            }
        }
    }
    ins
}

fn test_bit(w: &[u64], e: usize) -> bool {
    w.get(e / 64).is_some_and(|x| x >> (e % 64) & 1 == 1)
}

/// Generates the function with spill code for `plan` from the original function, whose
/// CFG is `cfg` (blocks never change).
pub fn generate(
    orig: &Function,
    ranges: &Ranges,
    cfg: &Cfg,
    plan: &[PlanEntry],
    p: &SpillParams,
    slots: &mut SlotTable,
) -> (Function, SpillCode) {
    let depth = &cfg.loop_depth;
    let n = orig.vregs.len();
    let mut entry_of: Vec<Option<u32>> = vec![None; n];
    for (e, pe) in plan.iter().enumerate() {
        if pe.vreg.index() < n {
            entry_of[pe.vreg.index()] = Some(e as u32);
        }
    }
    let root_of = |v: VRegId| ranges.root.get(v.index()).copied();
    let entry_for = |v: VRegId| root_of(v).and_then(|r| entry_of[r.index()]);
    let remats: Vec<Option<Remat>> = if p.remat {
        find_remats(orig, ranges, &entry_of, plan.len())
    } else {
        (0..plan.len()).map(|_| None).collect()
    };
    let remat_here = |e: usize, b: usize| -> bool {
        remats[e].as_ref().is_some_and(|r| r.cost < 0.75 * load_cost(depth.get(b).copied().unwrap_or(0)))
    };

    // Which entries need a slot: some use is not rematerialized.
    let mut needs_slot = vec![false; plan.len()];
    let mut use_count = vec![0u32; plan.len()];
    for (b, block) in orig.blocks.iter().enumerate() {
        for inst in &block.insts {
            let mut seen: Vec<u32> = Vec::new();
            inst.for_each_use(|r| {
                if let Some(e) = entry_for(r.vreg)
                    && !seen.contains(&e)
                {
                    seen.push(e);
                }
            });
            for e in seen {
                use_count[e as usize] += 1;
                if !remat_here(e as usize, b) {
                    needs_slot[e as usize] = true;
                }
            }
        }
    }

    // Slots, with spill-slot coalescing; entries already placed keep their slot.
    slots.place(orig, ranges, plan, &needs_slot, p);
    let slot_of = slots.of_entry.clone();
    let (top_local, top_shared) = (slots.top_local, slots.top_shared);

    let mut f = orig.clone();
    let mut views: Vec<SlotView> = plan
        .iter()
        .enumerate()
        .map(|(e, pe)| SlotView { vreg: pe.vreg, slot: slot_of[e], remat_uses: 0, reloads: 0, stores: 0 })
        .collect();
    let mut temps: Vec<Vec<VRegId>> = vec![Vec::new(); plan.len()];
    let mut temp_of: Vec<Option<(u32, TempKind)>> = vec![None; n];
    let mut out = SpillCode {
        infos: Vec::new(),
        temp_of: Vec::new(),
        slots: Vec::new(),
        locations: plan.len() as u32,
        uses: use_count.iter().sum(),
        reloads: 0,
        eliminated: 0,
        stores: 0,
        remats: 0,
        removed_defs: 0,
        frame_local: top_local,
        frame_shared: top_shared,
    };
    for v in plan {
        if v.vreg.index() < n {
            f.vregs[v.vreg.index()].flags |= vflags::SPILLED;
        }
    }
    let stored_in = stored_on_entry(orig, cfg, &entry_for, &slot_of);

    // Definitions deleted because every use is rematerialized.
    let mut removed: Vec<(usize, usize)> = (0..plan.len())
        .filter(|&e| slot_of[e].is_none())
        .filter_map(|e| remats[e].as_ref().map(|r| (r.block, r.index)))
        .collect();
    removed.sort_unstable();
    let mut counters = vec![0u32; plan.len()];
    let (op_ldl, op_lds, op_stl, op_sts) =
        (Opcode::named("LDL"), Opcode::named("LDS"), Opcode::named("STL"), Opcode::named("STS"));
    let mut used: Vec<u32> = Vec::new();
    let mut defs: Vec<(u32, RegRef)> = Vec::new();
    let mut full: Vec<u32> = Vec::new();
    let layout = orig.layout();
    // Whether the vreg (its alias group) is live before the instruction at `point`.
    let live_before = |v: VRegId, point: u32| {
        let Some(r) = root_of(v) else { return false };
        let segs = ranges.segments(r);
        let k = segs.partition_point(|s| s.1 < 2 * point);
        segs.get(k).is_some_and(|s| s.0 <= 2 * point)
    };
    for (b, stored_at_entry) in stored_in.iter().enumerate().take(orig.blocks.len()) {
        let old = std::mem::take(&mut f.blocks[b].insts);
        let mut new_insts = Vec::with_capacity(old.len() + 8);
        // Phase 4 state: the register holding each entry's value in this block.
        let mut avail: Vec<(u32, VRegId)> = Vec::new();
        let mut stored = stored_at_entry.clone();
        for (i, mut inst) in old.into_iter().enumerate() {
            if removed.binary_search(&(b, i)).is_ok() {
                out.removed_defs += 1;
                continue;
            }
            used.clear();
            inst.for_each_use(|r| {
                if let Some(e) = entry_for(r.vreg)
                    && !used.contains(&e)
                {
                    used.push(e);
                }
            });
            for &e in &used {
                let eu = e as usize;
                let lazy = p.lazy && !plan[eu].eager;
                let reg = match avail.iter().find(|a| a.0 == e).map(|a| a.1) {
                    Some(r) if lazy => {
                        out.eliminated += 1;
                        r
                    }
                    _ => {
                        let vreg = plan[eu].vreg;
                        let t;
                        if remat_here(eu, b) {
                            let r = remats[eu].as_ref().expect("remat");
                            t = new_temp(&mut f, vreg, "rm", counters[eu], inst.origin);
                            let mut clone = orig.blocks[r.block].insts[r.index].clone();
                            clone.operands[0] = Operand::vreg(t);
                            clone.origin = inst.origin;
                            new_insts.push(clone);
                            out.remats += 1;
                            views[eu].remat_uses += 1;
                            temp_of.push(None);
                            temp_of[t.index()] = Some((e, TempKind::Remat));
                        } else {
                            let (shared, off, _) = slot_of[eu].expect("a slot for a reloaded vreg");
                            t = new_temp(&mut f, vreg, "rl", counters[eu], inst.origin);
                            let w = orig.vregs[vreg.index()].width;
                            let mut ld =
                                Inst::new(if shared { op_lds } else { op_ldl }, vec![Operand::vreg(t)], vec![mem(off)]);
                            ld.mods = width_mod(w).into();
                            ld.origin = inst.origin;
                            new_insts.push(ld);
                            out.reloads += 1;
                            views[eu].reloads += 1;
                            temps[eu].push(t);
                            temp_of.push(None);
                            temp_of[t.index()] = Some((e, TempKind::Reload));
                        }
                        counters[eu] += 1;
                        if lazy {
                            avail.retain(|a| a.0 != e);
                            avail.push((e, t));
                        }
                        t
                    }
                };
                rename_uses(&mut inst, &root_of, plan[eu].vreg, reg);
            }
            rename_member_defs(&mut inst, &root_of, &entry_for, &f);
            defs.clear();
            inst.for_each_def(|r| {
                if let Some(e) = entry_for(r.vreg) {
                    defs.push((e, r));
                }
            });
            let origin = inst.origin;
            let guarded = !inst.guard_is_always();
            // A guarded or component definition keeps the rest of the old value: reload
            // it into the vreg first when the slot holds it on every path, so that the
            // vreg's range starts here instead of reaching back to its previous store.
            full.clear();
            for &(e, r) in &defs {
                let eu = e as usize;
                let partial = guarded || r.comp.is_some();
                if !partial {
                    full.push(e);
                    continue;
                }
                let Some((shared, off, _)) = slot_of[eu] else { continue };
                // Only when the old value is live here: a guarded def whose value is dead
                // afterwards keeps nothing, and its slot may since hold another vreg
                // (spill-slot coalescing shares slots between non-interfering vregs).
                if !test_bit(&stored, eu) || full.contains(&e) || !live_before(r.vreg, layout.point(b, i)) {
                    continue;
                }
                // Into the vreg the instruction names (alias members were renamed to
                // the spilled vreg above, so it is the vreg the slot belongs to).
                let mut ld =
                    Inst::new(if shared { op_lds } else { op_ldl }, vec![Operand::vreg(r.vreg)], vec![mem(off)]);
                ld.mods = width_mod(f.vregs[r.vreg.index()].width).into();
                ld.origin = origin;
                new_insts.push(ld);
                out.reloads += 1;
                views[eu].reloads += 1;
                full.push(e);
            }
            new_insts.push(inst);
            for &(e, r) in &defs {
                let eu = e as usize;
                // A new value: reloaded copies are stale. The vreg itself is not made
                // available (that would undo the spill inside the block).
                avail.retain(|a| a.0 != e);
                if r.comp.is_none() && slot_of[eu].is_some() {
                    stored[eu / 64] |= 1 << (eu % 64);
                }
                let Some((shared, off, _)) = slot_of[eu] else { continue };
                let w = f.vregs[r.vreg.index()].width;
                let (offset, m) = match r.comp {
                    Some(c) => (off + 4 * c as u32, ".SPILL"),
                    None => (off, width_mod(w)),
                };
                let mut st =
                    Inst::new(if shared { op_sts } else { op_stl }, vec![], vec![mem(offset), Operand::Reg(Reg::V(r))]);
                st.mods = m.into();
                st.origin = origin;
                new_insts.push(st);
                out.stores += 1;
                views[eu].stores += 1;
            }
        }
        f.blocks[b].insts = new_insts;
    }
    temp_of.resize(f.vregs.len(), None);
    for (e, pe) in plan.iter().enumerate() {
        if let Some((shared, offset, bytes)) = slot_of[e] {
            out.infos.push(SpillSlotInfo { vreg: pe.vreg, shared, offset, bytes, temps: temps[e].clone() });
        }
    }
    out.temp_of = temp_of;
    out.slots = views;
    (f, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remat_classes_and_costs_follow_the_seed() {
        let imm = |name: &str, ops: Vec<Operand>| Inst::new(Opcode::named(name), vec![Operand::vreg(VRegId(0))], ops);
        assert_eq!(remat_cost(&imm("MOV", vec![Operand::Imm(5)])), Some(1.0));
        assert_eq!(remat_cost(&imm("IADD3", vec![Operand::Imm(5), Operand::Imm(2000)])), None);
        assert_eq!(remat_cost(&imm("IADD3", vec![Operand::Imm(5), Operand::Imm(7)])), Some(1.0));
        assert_eq!(remat_cost(&imm("MOV", vec![Operand::vreg(VRegId(1))])), None);
        assert_eq!(remat_cost(&imm("LDC", vec![Operand::CBank { bank: 0, offset: 0 }])), None);
        assert_eq!(remat_cost(&imm("LEA", vec![Operand::Sym("x".into())])), Some(10.0));
        assert!(1.0 < 0.75 * load_cost(0) && 1.0 < 0.75 * load_cost(2));
        assert!(10.0 >= 0.75 * load_cost(0));
    }
}
