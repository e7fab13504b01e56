//! Rules 1, 3 and 5 of the checker: every live or defined vreg has a register, no two
//! simultaneously live vregs of one file share a register, and physical register
//! operands are free at the side of the instruction that touches them.
//!
//! "Simultaneously live" is the definition the allocator uses (seed 004, "Backward Walk
//! Live Set Update Rule", as exposed by `crate::analysis::query`): at instruction `p` a
//! vreg occupies its registers *before* `p` when it is live before `p`, and *after* `p`
//! when it is live after `p` or defined by `p` (a dead def still needs its register at
//! its instruction). A source dying at `p` and a def of `p` may therefore share a
//! register. Vregs of one alias chain are one value and never conflict with each other.
//!
//! Knows liveness and the per-vreg registers resolved by the parent module; must not know
//! how the allocator chose them.
//!
//! The walk goes backward through each block keeping, per register, the vregs occupying
//! it. A pair is checked when a vreg enters the occupancy (a use going backward, a def, or
//! the block's live-out) — every overlapping pair is seen at one of those moments — and
//! reported once, at the smallest point it was seen.

use std::collections::BTreeMap;

/// Most distinct overlapping pairs recorded: an allocation that puts everything in one
/// register would otherwise record a pair per two co-live vregs.
pub const MAX_OVERLAPS: usize = 100_000;

use super::{CheckError, Ctx, Side, Values};
use crate::analysis::Liveness;
use crate::analysis::query::BlockWalk;
use crate::ir::model::{Inst, Operand, PhysReg, Reg, RegFile, RegRef};

/// What the walk found: its errors, and the first point at which each vreg occupies a
/// register (or would, if it had one).
pub(super) struct Walk {
    pub errors: Vec<CheckError>,
    pub first_seen: Vec<Option<u32>>,
}

struct Walker<'a> {
    ctx: &'a Ctx<'a>,
    live: &'a Liveness,
    vals: &'a Values,
    /// Per `RegFile::index()`, per register: the vregs occupying it now.
    occ: Vec<Vec<Vec<u32>>>,
    first_seen: Vec<Option<u32>>,
    /// Per unordered pair (lower id, higher id): the smallest (point, side) where the two
    /// share a register, and that register.
    overlaps: BTreeMap<(u32, u32), (u32, Side, PhysReg)>,
    /// A new pair was found after `MAX_OVERLAPS`.
    truncated: bool,
    /// (point, side, vreg, register) for rule 5.
    phys: Vec<(u32, Side, u32, PhysReg)>,
    /// The live set, one for every block (issue 25: a fresh set per block costs every vreg).
    walk: BlockWalk,
}

pub(super) fn walk(ctx: &Ctx, live: &Liveness, vals: &Values) -> Walk {
    let f = ctx.f;
    let mut w = Walker {
        ctx,
        live,
        vals,
        occ: RegFile::ALL
            .iter()
            .map(|file| if file.has_liveness() { vec![Vec::new(); file.arch_size() as usize] } else { Vec::new() })
            .collect(),
        first_seen: vec![None; f.vregs.len()],
        overlaps: BTreeMap::new(),
        truncated: false,
        phys: Vec::new(),
        walk: BlockWalk::new(live),
    };
    for b in 0..f.blocks.len() {
        w.block(b);
    }

    let mut errors = Vec::new();
    for (i, v) in f.vregs.iter().enumerate() {
        if let Some(p) = w.first_seen[i]
            && v.class.is_allocatable()
            && vals.reg[i].is_none()
            && let Some(at) = ctx.site_of(p)
        {
            errors.push(CheckError::Unassigned { at, vreg: ctx.named(crate::ir::model::VRegId(i as u32)) });
        }
    }
    for (&(a, b), &(p, side, reg)) in &w.overlaps {
        if let Some(at) = ctx.site_of(p) {
            let (a, b) = (ctx.named(crate::ir::model::VRegId(a)), ctx.named(crate::ir::model::VRegId(b)));
            errors.push(CheckError::Overlap { at, side, a, b, reg });
        }
    }
    if w.truncated {
        errors.push(CheckError::TooManyOverlaps { limit: MAX_OVERLAPS });
    }
    w.phys.sort_unstable();
    w.phys.dedup();
    for &(p, side, v, reg) in &w.phys {
        if let Some(at) = ctx.site_of(p) {
            errors.push(CheckError::PhysOperand { at, side, vreg: ctx.named(crate::ir::model::VRegId(v)), reg });
        }
    }
    Walk { errors, first_seen: w.first_seen }
}

impl Walker<'_> {
    /// The registers `v` occupies: its file and the range, clipped to the file (a range
    /// running past the end is reported per vreg).
    fn range(&self, v: u32) -> Option<(RegFile, usize, usize)> {
        let vr = self.ctx.f.vregs.get(v as usize)?;
        if !vr.class.is_allocatable() {
            return None;
        }
        let first = self.vals.reg.get(v as usize).copied().flatten()? as usize;
        let file = vr.file();
        let end = (first + vr.width.max(1) as usize).min(file.arch_size() as usize);
        Some((file, first.min(end), end))
    }

    fn see(&mut self, v: u32, point: u32) {
        if let Some(s) = self.first_seen.get_mut(v as usize) {
            *s = Some(s.map_or(point, |q| q.min(point)));
        }
    }

    /// Records every vreg of another value that shares a register with `v` now.
    fn check_against(&mut self, v: u32, point: u32, side: Side) {
        let Some((file, lo, hi)) = self.range(v) else {
            return;
        };
        let root = self.vals.root[v as usize];
        for r in lo..hi {
            for &o in &self.occ[file.index()][r] {
                if o == v || self.vals.root[o as usize] == root {
                    continue;
                }
                let key = (v.min(o), v.max(o));
                let new = (point, side, PhysReg { file, index: r as u16 });
                let full = self.overlaps.len() >= MAX_OVERLAPS;
                match self.overlaps.get_mut(&key) {
                    Some(old) if (new.0, new.1) < (old.0, old.1) => *old = new,
                    Some(_) => {}
                    None if full => self.truncated = true,
                    None => {
                        self.overlaps.insert(key, new);
                    }
                }
            }
        }
    }

    fn add(&mut self, v: u32) {
        if let Some((file, lo, hi)) = self.range(v) {
            for r in lo..hi {
                self.occ[file.index()][r].push(v);
            }
        }
    }

    fn remove(&mut self, v: u32) {
        if let Some((file, lo, hi)) = self.range(v) {
            for r in lo..hi {
                self.occ[file.index()][r].retain(|&x| x != v);
            }
        }
    }

    /// A vreg starts occupying its registers at `side` of `point`.
    fn enter(&mut self, v: u32, point: u32, side: Side) {
        self.see(v, point);
        self.check_against(v, point, side);
        self.add(v);
    }

    /// Rule 5 for one physical operand at one side of `point`.
    fn physical(&mut self, reg: PhysReg, point: u32, side: Side) {
        if reg.is_zero() || !reg.file.has_liveness() {
            return;
        }
        if let Some(list) = self.occ[reg.file.index()].get(reg.index as usize) {
            for &v in list {
                self.phys.push((point, side, v, reg));
            }
        }
    }

    fn block(&mut self, b: usize) {
        let ctx = self.ctx;
        let Some(blk) = ctx.f.blocks.get(b) else {
            return;
        };
        if blk.insts.is_empty() {
            return;
        }
        let l = self.live;
        let last = ctx.layout.point(b, blk.insts.len() - 1);
        let out: Vec<u32> = self.walk.start(l, b).iter().map(|v| v.0).collect();
        for v in out {
            self.enter(v, last, Side::After);
        }
        let mut changes: Vec<(u32, bool)> = Vec::new();
        for (i, inst) in blk.insts.iter().enumerate().rev() {
            let p = ctx.layout.point(b, i);

            // After the instruction: live after, plus its defs (dead ones only for now).
            let mut dead: Vec<u32> = Vec::new();
            for d in defs(inst) {
                let id = crate::ir::model::VRegId(d);
                if !self.live.is_tracked(id) {
                    continue;
                }
                self.see(d, p);
                if self.walk.live().contains(id) {
                    self.check_against(d, p, Side::After);
                } else if !dead.contains(&d) {
                    self.enter(d, p, Side::After);
                    dead.push(d);
                }
            }
            for op in inst.defs() {
                if let Operand::Reg(Reg::P(r)) = op {
                    self.physical(*r, p, Side::After);
                }
            }
            for d in dead {
                self.remove(d);
            }

            // Before the instruction: the backward transfer of the liveness analysis.
            changes.clear();
            self.walk.step_back(l, inst, |v, ins| changes.push((v.0, ins)));
            for &(v, ins) in &changes {
                if ins {
                    self.enter(v, p, Side::Before);
                } else {
                    self.remove(v);
                }
            }
            for r in physical_reads(inst) {
                self.physical(r, p, Side::Before);
            }
        }
        let rest: Vec<u32> = self.walk.members().iter().map(|v| v.0).collect();
        for v in rest {
            self.remove(v);
        }
    }
}

/// The vregs an instruction writes, in operand order.
fn defs(inst: &Inst) -> Vec<u32> {
    let mut out = Vec::new();
    inst.for_each_def(|r: RegRef| out.push(r.vreg.0));
    out
}

/// The physical registers an instruction reads: guard, sources and address registers
/// (the same positions `Inst::for_each_use` reports for vregs).
fn physical_reads(inst: &Inst) -> Vec<PhysReg> {
    let mut out = Vec::new();
    if let Some(g) = inst.guard
        && let Reg::P(r) = g.reg
    {
        out.push(r);
    }
    for (i, op) in inst.operands.iter().enumerate() {
        match op {
            Operand::Reg(Reg::P(r)) if i >= inst.ndefs as usize => out.push(*r),
            Operand::Mem(m) => {
                for r in [m.base, m.index].into_iter().flatten() {
                    if let Reg::P(r) = r {
                        out.push(r);
                    }
                }
            }
            _ => {}
        }
    }
    out
}
