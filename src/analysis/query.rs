//! Program-point queries on a solved [`Liveness`]: live sets before/after any
//! instruction, register pressure per point and per file, and the backward block walk
//! the allocator builds interference with (seed 004, "Backward Walk Live Set Update
//! Rule"). Queries are fast because the solve keeps a live-set checkpoint every
//! `CHECKPOINT_INTERVAL` instructions of a long block: a point query starts at the
//! nearest checkpoint below the point and walks at most that many instructions.
//!
//! Knows the liveness model (`liveness`); must not know about allocation.
//!
//! # Pressure
//! The pressure of a file at instruction `i` is
//! `max(weight(live_before(i)), weight(live_after(i) ∪ defs(i)))`, weights counting
//! widths (a pair 2, a quad 4): a source that dies at `i` may share a register with a
//! def of `i`, and a def that is dead still needs a register at its instruction. The
//! allocator's interference relation matches it: a def interferes with everything live
//! just after its instruction.

use crate::analysis::liveness::{BlockSet, CHECKPOINT_INTERVAL, Liveness};
use crate::analysis::liveset::LiveSet;
use crate::ir::model::{Function, Inst, RegFile, VRegId};

/// A live set walked backward through the blocks of one function and reused from block
/// to block: starting a block drops the previous block's members one by one and loads
/// the block's live-out from the solve's sparse sets, so a block costs the members it
/// touches. A fresh `LiveSet` per block (`Liveness::live_out`) costs the function's vreg
/// count each time: blocks × vregs over a function of many blocks (issue 25).
pub struct BlockWalk {
    live: LiveSet,
    /// Every vreg inserted since the block started (some removed since; duplicates).
    touched: Vec<VRegId>,
}

impl BlockWalk {
    /// A walk over the function `l` was solved on.
    pub fn new(l: &Liveness) -> BlockWalk {
        BlockWalk { live: LiveSet::new(l.nvregs), touched: Vec::new() }
    }

    /// Starts block `b`: the set becomes its live-out. Returns the members, ascending.
    pub fn start(&mut self, l: &Liveness, b: usize) -> &[VRegId] {
        let BlockWalk { live, touched } = self;
        for v in touched.drain(..) {
            live.remove(v);
        }
        l.for_each_in(b, BlockSet::LiveOut, |v| {
            live.insert(v);
            touched.push(v);
        });
        // `for_each_in` goes file by file; ascending overall.
        touched.sort_unstable();
        crate::work::add(1 + touched.len() as u64);
        touched
    }

    /// The set now.
    pub fn live(&self) -> &LiveSet {
        &self.live
    }

    /// `Liveness::step_back` on the set.
    #[inline]
    pub fn step_back(&mut self, l: &Liveness, inst: &Inst, mut changed: impl FnMut(VRegId, bool)) {
        let BlockWalk { live, touched } = self;
        l.step_back(inst, live, |v, ins| {
            if ins {
                touched.push(v);
            }
            changed(v, ins);
        });
    }

    /// The members now, ascending. Costs the vregs inserted since the block started or
    /// the last call (the list is compacted to the members).
    pub fn members(&mut self) -> &[VRegId] {
        let BlockWalk { live, touched } = self;
        touched.retain(|&v| live.contains(v));
        touched.sort_unstable();
        touched.dedup();
        crate::work::add(1 + touched.len() as u64);
        touched
    }
}

impl Liveness {
    /// The live set just after program point `point` (empty past the end).
    pub fn live_after(&self, f: &Function, point: u32) -> LiveSet {
        match self.layout.locate(point) {
            Some((b, i)) => self.after_in_block(f, b, i),
            None => LiveSet::new(self.nvregs),
        }
    }

    /// The live set just before program point `point` (empty past the end).
    pub fn live_before(&self, f: &Function, point: u32) -> LiveSet {
        let Some((b, i)) = self.layout.locate(point) else {
            return LiveSet::new(self.nvregs);
        };
        let mut s = self.after_in_block(f, b, i);
        if let Some(inst) = f.blocks.get(b).and_then(|blk| blk.insts.get(i)) {
            self.step_back(inst, &mut s, |_, _| {});
        }
        s
    }

    /// Live after instruction `i` of block `b`: from the nearest checkpoint at or below
    /// it, walking back at most `CHECKPOINT_INTERVAL - 1` instructions.
    fn after_in_block(&self, f: &Function, b: usize, i: usize) -> LiveSet {
        let Some(blk) = f.blocks.get(b) else {
            return LiveSet::new(self.nvregs);
        };
        let n = blk.insts.len();
        let k = CHECKPOINT_INTERVAL;
        let j = i / k;
        let chunk_end = ((j + 1) * k).min(n);
        // Without a checkpoint for this chunk (the last chunk, or a solve made without
        // checkpoints) the walk starts at the block's end.
        let (mut live, end) = match self.checkpoints_of(f, b).get(j) {
            Some(cp) if chunk_end < n => (LiveSet::from_ids(self.nvregs, cp.iter().copied()), chunk_end),
            _ => (self.live_out(b), n),
        };
        for idx in (i + 1..end).rev() {
            self.step_back(&blk.insts[idx], &mut live, |_, _| {});
        }
        live
    }

    /// Pressure of `file` at `point` (see the module doc); 0 past the end.
    pub fn pressure(&self, f: &Function, point: u32, file: RegFile) -> u32 {
        let Some((b, i)) = self.layout.locate(point) else {
            return 0;
        };
        let Some(inst) = f.blocks.get(b).and_then(|blk| blk.insts.get(i)) else {
            return 0;
        };
        let after = self.after_in_block(f, b, i);
        let mut before = after.clone();
        self.step_back(inst, &mut before, |_, _| {});
        let with_defs = after.weight(f, file) + self.dead_def_weight(f, inst, &after, file);
        before.weight(f, file).max(with_defs)
    }

    /// Width of the distinct tracked defs of `file` in `inst` that are not in `after`.
    fn dead_def_weight(&self, f: &Function, inst: &Inst, after: &LiveSet, file: RegFile) -> u32 {
        let mut seen: Vec<VRegId> = Vec::new();
        let mut w = 0;
        inst.for_each_def(|r| {
            if self.is_tracked(r.vreg) && !after.contains(r.vreg) && !seen.contains(&r.vreg) {
                seen.push(r.vreg);
                let v = f.vreg(r.vreg);
                if v.file() == file {
                    w += v.width as u32;
                }
            }
        });
        w
    }

    /// Pressure of `file` at every program point, in one backward walk per block.
    pub fn pressure_curve(&self, f: &Function, file: RegFile) -> Vec<u32> {
        let mut curve = vec![0u32; self.layout.len() as usize];
        let width = |v: VRegId| f.vregs.get(v.index()).filter(|r| r.file() == file).map_or(0, |r| r.width as u32);
        let mut walk = BlockWalk::new(self);
        for (b, blk) in f.blocks.iter().enumerate().take(self.nblocks) {
            let mut w: u32 = walk.start(self, b).iter().map(|&v| width(v)).sum();
            let start = self.layout.block_start[b] as usize;
            for (i, inst) in blk.insts.iter().enumerate().rev() {
                let with_defs = w + self.dead_def_weight(f, inst, walk.live(), file);
                let mut delta: i64 = 0;
                walk.step_back(self, inst, |v, ins| {
                    let x = width(v) as i64;
                    delta += if ins { x } else { -x };
                });
                w = (w as i64 + delta) as u32;
                if let Some(c) = curve.get_mut(start + i) {
                    *c = w.max(with_defs);
                }
            }
        }
        curve
    }

    /// The maximum pressure of `file` and the first program point reaching it; `(0, 0)`
    /// for an empty function.
    pub fn max_pressure(&self, f: &Function, file: RegFile) -> (u32, u32) {
        let curve = self.pressure_curve(f, file);
        let mut best = (0u32, 0u32);
        for (p, &v) in curve.iter().enumerate() {
            if v > best.0 {
                best = (v, p as u32);
            }
        }
        best
    }

    /// The maximum pressure of each of `files` — `max_pressure(f, file).0` for each — in
    /// one backward walk and without a curve per file (`prepass::schedule` asks R and P
    /// of every function it solves; issue 25).
    pub fn max_pressures<const N: usize>(&self, f: &Function, files: [RegFile; N]) -> [u32; N] {
        let mut best = [0u32; N];
        for here in self.block_max_pressures_all(f, files) {
            for k in 0..N {
                best[k] = best[k].max(here[k]);
            }
        }
        best
    }

    /// [`Liveness::block_max_pressures`] of every block, in one walk.
    pub fn block_max_pressures_all<const N: usize>(&self, f: &Function, files: [RegFile; N]) -> Vec<[u32; N]> {
        let mut walk = BlockWalk::new(self);
        (0..f.blocks.len().min(self.nblocks))
            .map(|b| self.block_max_pressures_with(f, b, files, None, &mut walk))
            .collect()
    }

    /// [`Liveness::max_pressures`] over block `b` alone (0 for a block out of range): the
    /// whole function's is the maximum over its blocks. `prepass::sink::Peaks` walks only
    /// the blocks a reordering changed (issue 25).
    pub fn block_max_pressures<const N: usize>(&self, f: &Function, b: usize, files: [RegFile; N]) -> [u32; N] {
        self.block_max_pressures_in(f, b, files, None)
    }

    /// [`Liveness::block_max_pressures`] with block `b`'s instructions taken in `order`
    /// (indices into the block, each once; `None`: as they are) — the peak of a reordered
    /// block without making the reordered function (`prepass::sink::Peaks`).
    pub fn block_max_pressures_in<const N: usize>(
        &self,
        f: &Function,
        b: usize,
        files: [RegFile; N],
        order: Option<&[usize]>,
    ) -> [u32; N] {
        self.block_max_pressures_with(f, b, files, order, &mut BlockWalk::new(self))
    }

    /// [`Liveness::block_max_pressures_in`] walking with `walk` (one per function, reused
    /// from call to call: a fresh set per block costs the function's vreg count).
    pub fn block_max_pressures_with<const N: usize>(
        &self,
        f: &Function,
        b: usize,
        files: [RegFile; N],
        order: Option<&[usize]>,
        walk: &mut BlockWalk,
    ) -> [u32; N] {
        let mut best = [0i64; N];
        let (Some(blk), true) = (f.blocks.get(b), b < self.nblocks) else {
            return [0; N];
        };
        let slot = |v: VRegId| {
            f.vregs.get(v.index()).and_then(|r| files.iter().position(|&x| x == r.file()).map(|k| (k, r.width as i64)))
        };
        let points = self.layout.len() as usize;
        let mut seen: Vec<VRegId> = Vec::new();
        let mut w = [0i64; N];
        for &v in walk.start(self, b) {
            if let Some((k, x)) = slot(v) {
                w[k] += x;
            }
        }
        let start = self.layout.block_start[b] as usize;
        for i in (0..blk.insts.len()).rev() {
            let Some(inst) = order.map_or(Some(i), |o| o.get(i).copied()).and_then(|j| blk.insts.get(j)) else {
                continue;
            };
            // As `pressure_curve`: a def nothing reads still takes its register at the
            // instruction (`dead_def_weight`), each vreg once.
            let mut with_defs = w;
            seen.clear();
            inst.for_each_def(|r| {
                if self.is_tracked(r.vreg) && !walk.live().contains(r.vreg) && !seen.contains(&r.vreg) {
                    seen.push(r.vreg);
                    if let Some((k, x)) = slot(r.vreg) {
                        with_defs[k] += x;
                    }
                }
            });
            walk.step_back(self, inst, |v, ins| {
                if let Some((k, x)) = slot(v) {
                    w[k] += if ins { x } else { -x };
                }
            });
            if start + i < points {
                for k in 0..N {
                    best[k] = best[k].max(w[k].max(with_defs[k]));
                }
            }
        }
        best.map(|x| x.clamp(0, u32::MAX as i64) as u32)
    }

    /// Walks block `b` bottom-up calling `visit(index, inst, live_after)`, where
    /// `live_after` is the set live just after the instruction. The allocator builds
    /// interference with it.
    pub fn walk_block_backward(&self, f: &Function, b: usize, mut visit: impl FnMut(usize, &Inst, &LiveSet)) {
        let Some(blk) = f.blocks.get(b) else {
            return;
        };
        let mut live = self.live_out(b);
        for (i, inst) in blk.insts.iter().enumerate().rev() {
            visit(i, inst, &live);
            self.step_back(inst, &mut live, |_, _| {});
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::{cfg, liveness};

    /// `max_pressures` is `max_pressure` per file, on synthetic kernels (several blocks,
    /// loops, predicates) and imported PTX (calls, pairs, uniform registers).
    #[test]
    fn max_pressures_is_max_pressure_per_file() {
        let mut modules: Vec<crate::ir::Module> = (0..24).map(|s| crate::synth::synthetic_kernel(300, s)).collect();
        for text in [
            include_str!("../../tests/ptx/device_calls.ptx"),
            include_str!("../../tests/ptx/hopper.ptx"),
            include_str!("../../tests/ptx/triton_style.ptx"),
            include_str!("../../tests/ptx/tensor.ptx"),
        ] {
            let src = crate::ir::span::SourceFile::new("q.ptx", text);
            modules.push(crate::load::import_ptx(&src).expect("imports").module);
        }
        let files = [RegFile::R, RegFile::P, RegFile::UR, RegFile::UP];
        for m in &modules {
            for f in &m.functions {
                let live = liveness::compute(f, &cfg::build(f, 1.0), &[]);
                let want = files.map(|file| live.max_pressure(f, file).0);
                assert_eq!(live.max_pressures(f, files), want, "{}", f.name);
                assert_eq!(live.max_pressures(f, [RegFile::P, RegFile::R]), [want[1], want[0]], "{}", f.name);
            }
        }
    }
}
