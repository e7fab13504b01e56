//! The occupancy and launch model `why` reports: resident warps per SM for a register
//! count, and whether a block of a given size can launch at all.
//!
//! Constants and their sources (recorded in ARCHITECTURE.md, "Why"):
//! - 64K 32-bit registers per SM, 255 per thread (`alloc::budget::REGFILE_PER_SM`,
//!   `GPR_CAP`; seed 000 regfile_params[3] and "Per-SM register-file parameters").
//! - Registers are allocated per warp in units of 256 (`WARP_ALLOC_UNIT`; seed 000
//!   "Occupancy formula": the granularity mask rounds to the allocation unit).
//! - Per-block register limit 64K and at most 1024 threads per block on every target
//!   radbg models (sm_75 … sm_120; CUDA C Programming Guide, "Technical Specifications
//!   per Compute Capability").
//! - Resident warps per SM: `alloc::budget::max_warps_per_sm` (same table).
//!
//! Knows the budget module's formulas; must not know about the allocator's internals.

use crate::alloc::budget::{GPR_CAP, REGFILE_PER_SM, WARP_ALLOC_UNIT, max_warps, max_warps_per_sm};

/// Registers one block may hold (the "too many resources requested for launch" limit).
pub const REGS_PER_BLOCK: u32 = 65536;
/// Threads per block.
pub const MAX_THREADS_PER_BLOCK: u32 = 1024;

/// Registers a warp is charged for at `regs` per thread (rounded up to the unit).
pub fn regs_per_warp(regs: u32) -> u32 {
    (regs.max(1) * 32).div_ceil(WARP_ALLOC_UNIT) * WARP_ALLOC_UNIT
}

/// Registers a block of `threads` threads is charged for.
pub fn regs_per_block(regs: u32, threads: u32) -> u32 {
    threads.div_ceil(32).saturating_mul(regs_per_warp(regs))
}

/// Occupancy at a register count: (resident warps, the SM's warp limit).
pub fn occupancy(sm: u32, regs: u32) -> (u32, u32) {
    (max_warps(sm, regs), max_warps_per_sm(sm))
}

/// The register count at which occupancy rises to its next step, when one exists below
/// `regs`: the highest count with more resident warps.
pub fn next_step(sm: u32, regs: u32) -> Option<(u32, u32)> {
    let now = max_warps(sm, regs);
    (1..regs).rev().find(|&r| max_warps(sm, r) > now).map(|r| (r, max_warps(sm, r)))
}

/// Whether `blocks` blocks of `threads` threads at `regs` registers fit: the reason
/// when they do not.
pub fn launch_problem(sm: u32, regs: u32, threads: u32, blocks: u32) -> Option<String> {
    if threads == 0 {
        return Some("a block needs at least one thread".to_string());
    }
    if threads > MAX_THREADS_PER_BLOCK {
        return Some(format!("{threads} threads exceed the {MAX_THREADS_PER_BLOCK}-thread block limit"));
    }
    let per_block = regs_per_block(regs, threads);
    if per_block > REGS_PER_BLOCK {
        return Some(format!(
            "too many resources requested for launch: {} warps × {} registers = {per_block} > {REGS_PER_BLOCK} per block",
            threads.div_ceil(32),
            regs_per_warp(regs)
        ));
    }
    let warps = threads.div_ceil(32) * blocks.max(1);
    if blocks > 1 && per_block.saturating_mul(blocks) > REGFILE_PER_SM {
        return Some(format!(
            "{blocks} blocks need {} registers, more than the SM's {REGFILE_PER_SM}",
            per_block.saturating_mul(blocks)
        ));
    }
    if warps > max_warps_per_sm(sm) {
        return Some(format!("{warps} warps exceed the SM's {} resident warps", max_warps_per_sm(sm)));
    }
    None
}

/// The largest block (a multiple of 32 threads) that fits `blocks` per SM at `regs`.
pub fn largest_block(sm: u32, regs: u32, blocks: u32) -> u32 {
    (1..=MAX_THREADS_PER_BLOCK / 32)
        .rev()
        .map(|w| w * 32)
        .find(|&t| launch_problem(sm, regs, t, blocks).is_none())
        .unwrap_or(0)
}

/// The highest `--maxrregcount` that lets the requested launch fit, if any does.
pub fn fitting_maxrregcount(sm: u32, threads: u32, blocks: u32) -> Option<u32> {
    (1..=GPR_CAP).rev().find(|&r| launch_problem(sm, r, threads, blocks).is_none())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hand-computed: 64 regs × 32 threads = 2048 per warp; 32 warps × 2048 = 64K.
    #[test]
    fn launch_limits_by_hand() {
        let cases: &[(u32, u32, u32, bool)] = &[
            (64, 1024, 1, true),
            (65, 1024, 1, false), // 65 → 2304 per warp (9 units) × 32 warps = 73728
            (72, 896, 1, true),   // 2304 × 28 = 64512
            (255, 256, 1, true),  // 8192 × 8 = 65536
            (255, 288, 1, false),
            (32, 256, 8, true), // 1024 × 8 warps × 8 blocks = 65536, 64 warps
            (32, 256, 9, false),
            (16, 2048, 1, false),
        ];
        for &(regs, t, b, ok) in cases {
            assert_eq!(launch_problem(90, regs, t, b).is_none(), ok, "{regs} regs {t} threads {b} blocks");
        }
        assert_eq!(largest_block(90, 65, 1), 896);
        assert_eq!(fitting_maxrregcount(90, 1024, 1), Some(64));
        assert_eq!(fitting_maxrregcount(90, 256, 2), Some(128));
        assert_eq!(next_step(90, 65), Some((64, 32)));
        assert_eq!(next_step(90, 32), None);
    }
}
