//! The spill cost of seed 002, "Spill Cost Formula — Deep Dive":
//!
//! `SpillCost = def_freq × use_freq × mem_latency × loop_depth_mult`, clamped to
//! `[0, 1e9]`, where `def_freq` / `use_freq` sum the block frequency of every definition /
//! use occurrence, `mem_latency` is the working-set estimate of "Component 3", and
//! `loop_depth_mult` is the frequency-weighted average of `1.5^depth` over the blocks the
//! vreg is live in (`compute_spill_cost_complete`). Uniform registers cost 1.5× more
//! ("Special Register Handling"). The simplify/spill priority is
//! `spill_cost / (degree × 0.8)` (seed "Priority Calculation"), infinite for a
//! Briggs-safe node.
//!
//! Block frequency (seed "Block Frequency Estimation": loop back edges 90 % taken) is the
//! shared CFG's `weight^depth` with `weight = 1 / (1 - 0.9) = 10` (knob
//! `radbg.BriggsBackEdgeProb`); the seed's 50/50 branch split, 1 % return and 10× call
//! rules are not modelled (every arm of a diamond gets its loop's full frequency).
//!
//! Knows the IR, the CFG and the live ranges; not the graph or the worklists.

use crate::alloc::ranges::Ranges;
use crate::analysis::Cfg;
use crate::ir::{Function, Layout, RegClass, RegFile};

/// Seed 002 "Component 3" latencies, in cycles.
pub const MEM_LATENCY_L1: f64 = 4.0;
pub const MEM_LATENCY_L2: f64 = 10.0;
pub const MEM_LATENCY_L3: f64 = 40.0;
pub const MEM_LATENCY_MAIN: f64 = 100.0;
/// Cache sizes of the working-set estimate (64 KB L1 per SM, 256 KB L2 as written).
pub const L1_CACHE_SIZE: u64 = 64 * 1024;
pub const L2_CACHE_SIZE: u64 = 256 * 1024;
/// The clamp of `compute_spill_cost_complete`.
pub const COST_CLAMP: f64 = 1e9;

/// The additive parts of a node's cost, so that coalesced nodes can add theirs.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CostParts {
    pub def_freq: f64,
    pub use_freq: f64,
    /// Σ over live blocks of `loop_mult × freq`.
    pub mult_weighted: f64,
    /// Σ over live blocks of `freq`.
    pub freq_total: f64,
    pub uniform: bool,
}

impl CostParts {
    pub fn add(&self, o: &CostParts) -> CostParts {
        CostParts {
            def_freq: self.def_freq + o.def_freq,
            use_freq: self.use_freq + o.use_freq,
            mult_weighted: self.mult_weighted + o.mult_weighted,
            freq_total: self.freq_total + o.freq_total,
            uniform: self.uniform || o.uniform,
        }
    }

    /// The frequency-weighted average loop multiplier (1.0 when live nowhere).
    pub fn loop_mult(&self) -> f64 {
        if self.freq_total > 0.0 { self.mult_weighted / self.freq_total } else { 1.0 }
    }
}

/// The function-wide constants of the formula.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CostModel {
    pub mem_latency: f64,
    pub loop_base: f64,
    pub uniform_factor: f64,
    pub coalesce_factor: f64,
}

impl CostModel {
    /// `def_freq × use_freq × mem_latency × avg_loop_mult`, clamped, ×1.5 for uniform.
    pub fn cost(&self, p: &CostParts) -> f64 {
        let c = (p.def_freq * p.use_freq * self.mem_latency * p.loop_mult()).clamp(0.0, COST_CLAMP);
        if p.uniform { (c * self.uniform_factor).clamp(0.0, COST_CLAMP) } else { c }
    }

    /// `spill_cost / (degree × 0.8)`; a node without neighbours (or an unspillable one)
    /// has infinite priority.
    pub fn priority(&self, cost: f64, degree: u32) -> f64 {
        let eff = degree as f64 * self.coalesce_factor;
        if eff <= 0.0 || cost.is_infinite() { f64::INFINITY } else { cost / eff }
    }
}

/// Seed "estimate_memory_latency": the working set is the peak number of live 32-bit
/// registers (general file) times 4 bytes — radbg reads "registers live" as per thread
/// and multiplies by the block's threads, since per thread alone never leaves L1 — then
/// L1 when it fits 64 KB, L2 within 256 KB, else the third column of the SM table
/// (100 cycles before SM 90, 40 from SM 90).
pub fn memory_latency(peak_regs: u32, threads: u32, sm_version: u32) -> f64 {
    let bytes = peak_regs as u64 * 4 * threads.max(1) as u64;
    if bytes <= L1_CACHE_SIZE {
        MEM_LATENCY_L1
    } else if bytes <= L2_CACHE_SIZE {
        MEM_LATENCY_L2
    } else if sm_version >= 90 {
        MEM_LATENCY_L3
    } else {
        MEM_LATENCY_MAIN
    }
}

/// Peak general-register pressure (widths counted) over every position.
pub fn peak_pressure(f: &Function, ranges: &Ranges) -> u32 {
    ranges.pressure(f, RegFile::R, |_| true).into_iter().max().unwrap_or(0)
}

/// The cost parts of every vreg (alias roots carry their group's; others are zero).
pub fn parts(f: &Function, ranges: &Ranges, cfg: &Cfg, loop_base: f64) -> Vec<CostParts> {
    let n = f.vregs.len();
    let mut out = vec![CostParts::default(); n];
    let freq = |b: usize| cfg.freq.get(b).copied().unwrap_or(1.0);
    for (b, block) in f.blocks.iter().enumerate() {
        let w = freq(b);
        for inst in &block.insts {
            inst.for_each_def(|r| {
                if let Some(&root) = ranges.root.get(r.vreg.index()) {
                    out[root.index()].def_freq += w;
                }
            });
            inst.for_each_use(|r| {
                if let Some(&root) = ranges.root.get(r.vreg.index()) {
                    out[root.index()].use_freq += w;
                }
            });
        }
    }
    // Prefix sums over blocks so that a run covering many blocks costs O(log B).
    let layout: Layout = f.layout();
    let nb = f.blocks.len();
    let mut pre_mult = vec![0.0f64; nb + 1];
    let mut pre_freq = vec![0.0f64; nb + 1];
    for b in 0..nb {
        let depth = cfg.loop_depth.get(b).copied().unwrap_or(0);
        let m = loop_base.powi(depth.min(64) as i32);
        pre_mult[b + 1] = pre_mult[b] + m * freq(b);
        pre_freq[b + 1] = pre_freq[b] + freq(b);
    }
    for (i, v) in f.vregs.iter().enumerate() {
        out[i].uniform = matches!(v.class, RegClass::UR | RegClass::URExt);
        let id = crate::ir::VRegId::new(i);
        if !ranges.is_root(id) {
            continue;
        }
        let mut next_block = 0usize;
        for &(lo, hi) in ranges.segments(id) {
            let (Some((b0, _)), Some((b1, _))) = (layout.locate(lo / 2), layout.locate(hi / 2)) else {
                continue;
            };
            let b0 = b0.max(next_block);
            if b0 > b1 {
                continue;
            }
            out[i].mult_weighted += pre_mult[b1 + 1] - pre_mult[b0];
            out[i].freq_total += pre_freq[b1 + 1] - pre_freq[b0];
            next_block = b1 + 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formula_and_priority_follow_the_seed() {
        let m = CostModel { mem_latency: 4.0, loop_base: 1.5, uniform_factor: 1.5, coalesce_factor: 0.8 };
        let p = CostParts { def_freq: 1.0, use_freq: 2.0, mult_weighted: 2.25, freq_total: 1.0, uniform: false };
        assert_eq!(m.cost(&p), 18.0);
        assert_eq!(m.cost(&CostParts { uniform: true, ..p }), 27.0);
        assert_eq!(m.priority(18.0, 10), 18.0 / 8.0);
        assert!(m.priority(18.0, 0).is_infinite());
        let huge = CostParts { def_freq: 1e6, use_freq: 1e6, ..p };
        assert_eq!(m.cost(&huge), COST_CLAMP);
        assert_eq!(memory_latency(48, 128, 90), MEM_LATENCY_L1);
        assert_eq!(memory_latency(100, 256, 80), MEM_LATENCY_L2);
        assert_eq!(memory_latency(255, 1024, 80), MEM_LATENCY_MAIN);
        assert_eq!(memory_latency(255, 1024, 90), MEM_LATENCY_L3);
    }
}
