//! The SM's general register file as ptxas reports and shares it (seed 000, "Register
//! Classes", "Occupancy formula"): the per-thread cap, the 64K-register file, the per-warp
//! allocation unit, resident-warp limits, the occupancy those give a register count, and
//! ptxas's `Used N registers` rule (the stack pointer R1 and the report's extra 2).
//!
//! Target facts, not allocation: the pre-allocation stages schedule to these targets
//! (`prepass::sink`, `prepass::schedule`), the allocator budgets with them
//! (`alloc::budget` re-exports them) and `why` explains occupancy with them. They sit in
//! the IR layer so all three can read them (tests/layers.rs).

/// Architectural cap of the general register file (R0..R254, seed 000 regfile_params[3]).
pub const GPR_CAP: u32 = 255;
/// Registers in one SM's register file (64K 32-bit registers on every target radbg models).
pub const REGFILE_PER_SM: u32 = 65536;
/// Registers are allocated to a warp in units of 256 (8 per thread).
pub const WARP_ALLOC_UNIT: u32 = 256;

/// The stack pointer, R1: ptxas loads it at every entry (`MOV R1, c[0x0][0x28]`) and no
/// vreg gets it (seed 001; confirmed with nvdisasm on every corpus cubin).
pub const STACK_POINTER: u16 = 1;
/// ptxas's `Used N registers` is the highest general register the SASS names + 3
/// (measured on all 48 corpus kernels × 3 budgets with nvdisasm; ARCHITECTURE.md,
/// "Fidelity"), so under a budget of N the highest register it may use is R(N-3): the
/// allocator of imported PTX gets N - 2 registers (R0..R(N-3)) with R1 fixed.
pub const REPORT_EXTRA: u32 = 2;

/// The most registers per thread that let `blocks` blocks of `threads` threads be
/// resident at once: the register file split by warps, in allocation units.
pub fn regs_for_occupancy(threads: u32, blocks: u32) -> u32 {
    let warps = threads.div_ceil(32).max(1).saturating_mul(blocks.max(1));
    let per_warp = REGFILE_PER_SM / warps;
    let per_warp = per_warp / WARP_ALLOC_UNIT * WARP_ALLOC_UNIT;
    (per_warp / 32).min(GPR_CAP)
}

/// The most registers per thread that keep the resident warps of `count` registers
/// (`count` itself when it is at or past the cap): how far ptxas spreads or schedules
/// without losing occupancy (`alloc::constraints::bank_limit`, `prepass::schedule`).
pub fn occupancy_top(sm_version: u32, count: u32) -> u32 {
    let warps = max_warps(sm_version, count);
    let mut top = count;
    while top < GPR_CAP && max_warps(sm_version, top + 1) >= warps {
        top += 1;
    }
    top
}

/// Maximum resident warps per SM for a register count (the occupancy `why` reports).
///
/// Seed 000's seven-instruction formula `(-granularity_mask & (2*half/regs)) - offset`
/// does not give plausible values with the constants the seed prints (64 registers on
/// sm_90 yields a negative count), so radbg uses the standard computation with the same
/// ingredients: per-warp allocation granularity (256 registers), the 64K register file and
/// the per-SM warp limit. Recorded in ARCHITECTURE.md.
pub fn max_warps(sm_version: u32, regs: u32) -> u32 {
    let limit = max_warps_per_sm(sm_version);
    if regs == 0 {
        return limit;
    }
    let per_warp = (regs * 32).div_ceil(WARP_ALLOC_UNIT) * WARP_ALLOC_UNIT;
    (REGFILE_PER_SM / per_warp).min(limit)
}

/// Resident-warp limit per SM by architecture.
pub fn max_warps_per_sm(sm_version: u32) -> u32 {
    match sm_version {
        75 => 32,
        86 | 87 | 89 => 48,
        120.. => 48,
        _ => 64,
    }
}
