//! Phase 6, Select (seed 002, "Phase 6: Select - Color Assignment", "Available Colors
//! Per Class", "Alignment Requirements"): the colour window of each register file, the
//! per-class masks, and the lowest-free-colour choice (`__builtin_ctz(available)`).
//!
//! Knows register files, widths and the allocator configuration; not the graph's
//! construction or the worklists.
//!
//! Classes (seed "Register Class Constraints"): a 1-register vreg is GPR32 (mask
//! `0x7FFF` for K = 15), a pair is GPR64 (even starts, `0x5555`), a quad and wider start
//! on a multiple of 4 (`0x1111`, the seed's "128-bit operations"), predicates are PRED
//! (`0x00FF`, less PT). The seed's H16 class has no Ori counterpart: half values live in
//! R registers, so no vreg maps to it. Unlike the seed's `0x5555`, a pair never starts
//! at the last colour of the window (R14:R15 leaves a 15-register window; the seed itself
//! notes "R15 may not be available if K=15").

use crate::alloc::AllocConfig;
use crate::alloc::briggs::RegSet;
use crate::ir::RegFile;
use crate::knobs::Knobs;

/// The seed's masks, by class (`available_colors[4]` of "Available Colors Per Class").
pub const MASK_GPR32: u16 = 0x7FFF;
pub const MASK_GPR64: u16 = 0x5555;
pub const MASK_PRED: u16 = 0x00FF;
pub const MASK_H16: u16 = 0x7FFF;
/// The 4-aligned mask of the seed's select phase (`alignment == 4`).
pub const MASK_128: u16 = 0x1111;

/// One row of the seed's "Architecture-Specific K Values" table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KRow {
    pub sm: u32,
    pub register_file_kb: u32,
    pub threads_per_sm: u32,
    pub theoretical_max: u32,
    pub actual_k: u32,
}

/// Seed 002, "Architecture-Specific K Values". The "actual K" column is 15 everywhere
/// ("CICC maintains K=15 for compatibility"), which the seed's own numbers make doubtful
/// for SM 90+ (a 128 KB file gives 21); radbg models it as written and offers the
/// theoretical column through knob `radbg.BriggsKTheoretical`.
pub const K_TABLE: [KRow; 5] = [
    KRow { sm: 70, register_file_kb: 64, threads_per_sm: 1024, theoretical_max: 16, actual_k: 15 },
    KRow { sm: 75, register_file_kb: 64, threads_per_sm: 1024, theoretical_max: 16, actual_k: 15 },
    KRow { sm: 80, register_file_kb: 64, threads_per_sm: 1024, theoretical_max: 16, actual_k: 15 },
    KRow { sm: 90, register_file_kb: 128, threads_per_sm: 1536, theoretical_max: 21, actual_k: 15 },
    KRow { sm: 100, register_file_kb: 128, threads_per_sm: 1536, theoretical_max: 21, actual_k: 15 },
];

/// The K the seed's table gives a target: the row of the highest SM not above it (the
/// first row for older targets).
pub fn k_for_sm(sm_version: u32, theoretical: bool) -> u32 {
    let row = K_TABLE.iter().rev().find(|r| r.sm <= sm_version).unwrap_or(&K_TABLE[0]);
    if theoretical { row.theoretical_max } else { row.actual_k }
}

/// The K in force: knob `radbg.BriggsK` when non-zero, else the table.
pub fn k_in_force(knobs: &Knobs, sm_version: u32) -> u32 {
    match knobs.int("radbg.BriggsK") {
        k if k > 0 => k as u32,
        _ => k_for_sm(sm_version, knobs.bool("radbg.BriggsKTheoretical")),
    }
}

/// The colours of one register file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Window {
    pub file: RegFile,
    /// Number of colours (the K of the degree tests).
    pub k: u32,
    /// The physical registers that are colours.
    pub regs: RegSet,
    /// Registers a vreg of this file may occupy at all (`slot + width <= budget`).
    pub budget: u32,
}

/// Start-register alignment of a width (seed "Alignment Requirements": 1, 2 or 4).
pub fn align_of(width: u8) -> u16 {
    match width {
        0 | 1 => 1,
        2 => 2,
        _ => 4,
    }
}

/// The seed's class mask for a width in a file (for display: `0x7FFF`, `0x5555` ...).
pub fn class_mask(file: RegFile, width: u8) -> u16 {
    match (file, width) {
        (RegFile::P | RegFile::UP, _) => MASK_PRED,
        (_, 0 | 1) => MASK_GPR32,
        (_, 2) => MASK_GPR64,
        _ => MASK_128,
    }
}

/// Budget of a file for the checker and the window: the GPR budget for R, the file cap
/// otherwise (UR has none before SM 75, as in the fat-point allocator).
pub fn file_budget(file: RegFile, config: &AllocConfig) -> u32 {
    let cap = crate::alloc::budget::file_cap(file, &config.knobs);
    match file {
        RegFile::R => config.gpr_budget.min(cap),
        RegFile::UR if config.sm_version < 75 => 0,
        _ => cap,
    }
}

/// The colour window of every allocatable file, indexed by `RegFile::index()` (barrier
/// files get an empty window).
pub fn windows(config: &AllocConfig) -> Vec<Window> {
    let k = k_in_force(&config.knobs, config.sm_version);
    RegFile::ALL
        .iter()
        .map(|&file| {
            let budget = if file.has_liveness() { file_budget(file, config) } else { 0 };
            let mut usable = RegSet::EMPTY;
            let first = if file == RegFile::R { config.first_free.unwrap_or(0) } else { 0 };
            for r in first..budget.min(256) as u16 {
                let fixed = config.fixed.iter().any(|&(f, x)| f == file && x == r);
                if !fixed && file.zero_register() != Some(r) {
                    usable.insert(r);
                }
            }
            if matches!(file, RegFile::P | RegFile::UP) {
                usable = usable.intersect(&RegSet([MASK_PRED as u64, 0, 0, 0]));
            }
            let mut regs = RegSet::EMPTY;
            for r in usable.iter().take(k as usize) {
                regs.insert(r);
            }
            Window { file, k: regs.count(), regs, budget }
        })
        .collect()
}

/// Start colours of a `width`-register node inside the window, ascending: aligned, and
/// every register of the range a colour.
pub fn starts(window: &RegSet, width: u8) -> Vec<u16> {
    let a = align_of(width);
    window
        .iter()
        .filter(|&s| s % a == 0 && (0..width.max(1) as u16).all(|k| window.contains(s.saturating_add(k))))
        .collect()
}

/// The start colours still free when `blocked` registers are taken.
pub fn available(window: &RegSet, width: u8, blocked: &RegSet) -> Vec<u16> {
    starts(window, width).into_iter().filter(|&s| (0..width.max(1) as u16).all(|k| !blocked.contains(s + k))).collect()
}

/// The colour select gives: the lowest free start (`__builtin_ctz`).
pub fn choose(window: &RegSet, width: u8, blocked: &RegSet) -> Option<u16> {
    available(window, width, blocked).first().copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(bits: u64) -> RegSet {
        RegSet([bits, 0, 0, 0])
    }

    #[test]
    fn windows_follow_k_budget_and_fixed_registers() {
        let mut c = AllocConfig::simple(90, 255);
        let w = windows(&c);
        assert_eq!(w[RegFile::R.index()].regs.hex(), "0x7FFF");
        assert_eq!(w[RegFile::R.index()].k, 15);
        assert_eq!(w[RegFile::P.index()].regs.hex(), "0x7F");
        c.gpr_budget = 10;
        assert_eq!(windows(&c)[RegFile::R.index()].k, 10);
        c.gpr_budget = 64;
        c.first_free = Some(4);
        c.fixed = vec![(RegFile::R, 6)];
        let w = windows(&c);
        assert_eq!(w[RegFile::R.index()].regs.to_vec(), vec![4, 5, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19]);
        assert_eq!(k_for_sm(100, true), 21);
        assert_eq!(k_for_sm(52, false), 15);
    }

    #[test]
    fn pairs_and_quads_take_aligned_starts_inside_the_window() {
        let w = set(0x7FFF);
        assert_eq!(starts(&w, 2), vec![0, 2, 4, 6, 8, 10, 12]);
        assert_eq!(starts(&w, 4), vec![0, 4, 8]);
        let blocked = set(0b1_0001);
        assert_eq!(choose(&w, 1, &blocked), Some(1));
        assert_eq!(choose(&w, 2, &blocked), Some(2));
        assert_eq!(choose(&w, 4, &blocked), Some(8));
        assert_eq!(choose(&set(0x3), 2, &set(0x2)), None);
    }
}
