//! Spill costs and reference points (seed 003, "Spill Cost Model"; seed 001, "Scratch
//! Data Registers" for the CALL-site adjustment).
//!
//! A vreg's spill cost is, for every instruction that reads or writes it, the base
//! weight (15.0, or 3.0 for a class flagged high-pressure) times the block frequency.
//! At a CALL, one of two rules ([`CallRule`], knob `radbg.CallCostSeed001`):
//! - [`CallRule::LiveAcross`] (radbg's default, a documented departure): every vreg
//!   live across the call pays the caller-save cost `mult × 2 × base_weight × freq`,
//!   `mult` 2.0 when it is live on both sides of the call and 1.0 otherwise (uniform
//!   registers exempt);
//! - [`CallRule::Seed001`], seed 001's `adjust_spill_cost_for_abi` as written
//!   (`abi::cost::call_site_cost`): only the CALL's own vreg operands are charged, and
//!   of those only definitions wider than one register ("single-width register:
//!   nesting-depth cost only (no ABI penalty)"; uses get the secondary cost alone).
//!
//! Why the default departs: radbg lowers every ABI call to single-width argument and
//! result temporaries pinned to their registers (`abi::lower`), so under the seed's
//! rule no ABI call ever costs anything, and a value kept across a call — which must
//! then sit in a preserved register or be saved — looks as cheap to keep as one that
//! is not. Measured on the corpus (`radbg fidelity`, ARCHITECTURE.md "Where radbg
//! departs from the seeds"): see the row for this rule.

use crate::abi::{CallCostParams, CallOperand, RegRole, call_site_cost};
use crate::alloc::ranges::{Ranges, group_by_key};
use crate::ir::{Function, RegFile, VRegId, opcode::props};

/// The caller-save rule at CALL instructions (module doc).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CallRule {
    /// Every vreg live across the call (radbg's default).
    LiveAcross,
    /// Seed 001 as written: wide definitions of the CALL only. `save_limit` is the
    /// save-chain bound (knob 680, alloc+1544).
    Seed001 { save_limit: f64 },
}

impl CallRule {
    /// `radbg.CallCostSeed001` selects the seed's rule.
    pub fn from_knobs(knobs: &crate::knobs::Knobs) -> CallRule {
        if knobs.bool("radbg.CallCostSeed001") {
            CallRule::Seed001 { save_limit: knobs.float(crate::knobs::SPILL_COST_MULT) }
        } else {
            CallRule::LiveAcross
        }
    }
}

/// Per-vreg costs and the program points that reference each vreg (alias roots).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Costs {
    pub cost: Vec<f64>,
    ref_start: Vec<u32>,
    refs: Vec<u32>,
}

impl Costs {
    /// Points of the instructions that read or write `v`'s alias group, ascending.
    pub fn refs(&self, v: VRegId) -> &[u32] {
        &self.refs[self.ref_start[v.index()] as usize..self.ref_start[v.index() + 1] as usize]
    }

    /// Computes costs for every vreg. `weight(file)` gives the base weight of the class
    /// holding the vreg's file; `freq` the block frequencies.
    pub fn compute(f: &Function, ranges: &Ranges, freq: &[f64], weight: &dyn Fn(VRegId) -> f64) -> Costs {
        Costs::compute_with(f, ranges, freq, weight, CallRule::LiveAcross)
    }

    /// [`Costs::compute`] with the caller-save rule `rule` at CALLs.
    pub fn compute_with(
        f: &Function,
        ranges: &Ranges,
        freq: &[f64],
        weight: &dyn Fn(VRegId) -> f64,
        rule: CallRule,
    ) -> Costs {
        let n = f.vregs.len();
        let mut cost = vec![0.0f64; n];
        let mut pairs: Vec<(u32, u32)> = Vec::new();
        let layout = f.layout();
        for (b, block) in f.blocks.iter().enumerate() {
            let fr = freq.get(b).copied().unwrap_or(1.0);
            for (i, inst) in block.insts.iter().enumerate() {
                let p = layout.point(b, i);
                let mut touch = |v: VRegId| {
                    let r = ranges.root[v.index()];
                    cost[r.index()] += weight(r) * fr;
                    pairs.push((r.0, p));
                };
                inst.for_each_use(|r| touch(r.vreg));
                inst.for_each_def(|r| touch(r.vreg));
                if inst.info().is(props::CALL)
                    && let CallRule::Seed001 { save_limit } = rule
                {
                    let (before, after) = (2 * p, 2 * p + 1);
                    let mut charge = |v: VRegId, is_def: bool| {
                        let r = ranges.root[v.index()];
                        let segs = ranges.segments(r);
                        let vr = f.vreg(r);
                        // radbg knows no register (hence no scratch/preserved role) when
                        // costs are computed: every operand takes the seed's full
                        // double-weight path, the save chain never applies.
                        let op = CallOperand {
                            file: vr.file(),
                            width: vr.width,
                            is_def,
                            pre_colored: false,
                            role: RegRole::Free,
                            class_unconditional_scratch: false,
                            live_before: before > 0 && covers(segs, before - 1),
                            live_after: covers(segs, after + 1),
                            first_ref_in_block: false,
                            save_chain: None,
                            block_freq: fr,
                        };
                        let params = CallCostParams { base_weight: weight(r), save_limit, force_caller_save: false };
                        cost[r.index()] += call_site_cost(&op, &params);
                    };
                    inst.for_each_use(|r| charge(r.vreg, false));
                    inst.for_each_def(|r| charge(r.vreg, true));
                } else if inst.info().is(props::CALL) {
                    // Caller-save cost for everything live across the call.
                    let (before, after) = (2 * p, 2 * p + 1);
                    for (vi, vr) in f.vregs.iter().enumerate() {
                        let v = VRegId::new(vi);
                        if !ranges.is_root(v) || vr.file() == RegFile::UR || vr.file() == RegFile::UP {
                            continue;
                        }
                        let segs = ranges.segments(v);
                        if !(covers(segs, before) && covers(segs, after)) {
                            continue;
                        }
                        // Live on both sides beyond the call itself: save and restore.
                        let both = before > 0 && covers(segs, before - 1) && covers(segs, after + 1);
                        let mult = if both { 2.0 } else { 1.0 };
                        cost[vi] += mult * 2.0 * weight(v) * fr;
                    }
                }
            }
        }
        // Pairs arrive in point order, so grouping them by vreg (a stable counting
        // sort) leaves each vreg's points ascending; an instruction naming a vreg twice
        // gives adjacent duplicates.
        let (group_start, points) = group_by_key(&pairs, n, |&(v, p)| (v, p));
        let mut ref_start = vec![0u32; n + 1];
        let mut refs = Vec::with_capacity(points.len());
        for (v, start) in ref_start.iter_mut().enumerate().take(n) {
            *start = refs.len() as u32;
            let from = refs.len();
            for &p in &points[group_start[v] as usize..group_start[v + 1] as usize] {
                if refs[from..].last() != Some(&p) {
                    refs.push(p);
                }
            }
        }
        ref_start[n] = refs.len() as u32;
        Costs { cost, ref_start, refs }
    }

    /// The positions where spilling `v` frees its register: its live runs minus a
    /// window around every referencing instruction (which keeps needing the register,
    /// or the reload/store that replaces it).
    pub fn interior(&self, ranges: &Ranges, v: VRegId) -> Vec<(u32, u32)> {
        let mut out = Vec::new();
        self.interior_into(ranges, v, &mut out);
        out
    }

    /// [`Costs::interior`] appended to `out` (the guidance gathers every candidate's
    /// runs in one vector: a vector per candidate was 100k allocations on the scale kernel).
    pub fn interior_into(&self, ranges: &Ranges, v: VRegId, out: &mut Vec<(u32, u32)>) {
        let refs = self.refs(v);
        for &(lo, hi) in ranges.segments(v) {
            let mut cur = lo;
            for &p in refs {
                let (wl, wh) = ((2 * p).saturating_sub(1), 2 * p + 2);
                if wh < cur || wl > hi {
                    continue;
                }
                if wl > cur {
                    out.push((cur, wl - 1));
                }
                cur = cur.max(wh + 1);
            }
            if cur <= hi {
                out.push((cur, hi));
            }
        }
    }
}

/// Whether sorted runs contain a position.
pub fn covers(segs: &[(u32, u32)], pos: u32) -> bool {
    let i = segs.partition_point(|&(_, hi)| hi < pos);
    i < segs.len() && segs[i].0 <= pos
}
