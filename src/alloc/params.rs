//! The fat-point allocator's parameters, read from the knobs once per function: every
//! phase of `alloc::driver` (scan, order, guidance, costs) reads this struct, never the
//! knob table, so `set knob 684=80` → `Knobs` → `FatPointParams::from_knobs` →
//! `fatpoint::scan` is one straight line (issue 26).
//!
//! Each field names the knob (or state-object offset) it models and the seed section
//! that gives it its meaning.

use crate::knobs::{self, Knobs};

/// Knob 622's index (the catalogue names it `RegAllocGuidanceWalk`).
pub const GUIDANCE_WALK: u32 = 622;
/// radbg's knob for seed 000's interval interference (type 7) in the primary histogram.
pub const INTERVAL_INTERFERENCE: &str = "radbg.IntervalInterference";
/// radbg's knob for the store-data rotation (issue 23 rule 6): its pool size.
pub const STORE_ROTATION: &str = "radbg.StoreRotation";
/// radbg's knob for rematerializing spilled values that read no register (issue 23
/// rule 16).
pub const SPILL_REMAT: &str = "radbg.SpillRemat";
/// radbg's knob choosing the seed's or radbg's reading of each six-list rule.
pub const SIX_LISTS: &str = "radbg.SixLists";
/// `six_lists` bits.
pub const LISTS_HIGH_BY_COST: u8 = 1;
pub const LISTS_LOW_BY_RATIO: u8 = 2;
pub const LISTS_POP_REVERSE: u8 = 4;

/// Typed allocator parameters of one run.
#[derive(Clone, Debug, PartialEq)]
pub struct FatPointParams {
    /// Knob 684 (RegAllocThresholdForDiscardConflicts, seed 000 "Core Fat-Point
    /// Allocator"): slots whose primary cost exceeds it are discarded by the scan.
    pub discard_threshold: u32,
    /// Seed 000 constraint type 7 ("Range: interference over an interval of program
    /// points") written into the primary histogram as a soft weight (`alloc::fatpoint`),
    /// knob `radbg.IntervalInterference`: 0 not written, 1 written and compared with the
    /// threshold, 2 also minimised by the scan (the seed's `cost = primary[slot]`).
    pub interval_interference: u8,
    /// Store-data rotation (`radbg.StoreRotation`, issue 23 rule 6; measured in SASS,
    /// the seeds are silent): the data of a store takes a register the data of the
    /// previous `store_rotation - 1` stores of its block do not hold, below the bank
    /// limit. 0 or 1: off.
    pub store_rotation: u32,
    /// Six lists (seed 000 "Six-List Classification"), knob `radbg.SixLists`: bit 0 High
    /// by spill cost over the +768 threshold, bit 1 LowConf/LowLate by the
    /// cost/interference ratio, bit 2 the stack popped in reverse.
    pub six_lists: u8,
    /// Knob 622 (seed 003, +10704 "Instruction walk context (knob 622 gate)"): when off,
    /// guidance takes only the vregs the failed attempt marked needs-spill.
    pub guidance_walk: bool,
    /// `radbg.SpillRemat` (issue 23 rule 16; seed 000 names ptxas's remat lists, not
    /// what they hold): a value guidance spills whose one def reads no register is
    /// recomputed before each use instead of stored (`alloc::spill::Remat`).
    pub spill_remat: bool,
    /// Knob 638 (RegAllocNoRetargetPrefs): SPILL attempts keep the target at the budget.
    pub no_retarget: bool,
    /// Knob 639 (RegAllocNumNonSpillTrials): SPILL attempts after the NOSPILL one.
    pub spill_trials: u32,
    /// Seed 003 "Default cost weight": 15.0, and 3.0 for a class flagged high-pressure
    /// (+893); `radbg.SpillWeight` / `radbg.SpillWeightHighPressure`.
    pub spill_weight: f64,
    pub spill_weight_high: f64,
    /// Block-frequency base of loops: knob 623's estimate when it is a number, else
    /// `radbg.LoopWeight`.
    pub loop_weight: f64,
    /// Knob 623 set at all: the spill cost threshold (+776) is 1.0 instead of 0.0, which
    /// selects the 16/16 spill-slot buckets (seed 000, sub_939BD0).
    pub est_loop_iters_set: bool,
    /// `radbg.BitSpill`: predicates over the P file are kept in general registers.
    pub bit_spill: bool,
    /// Knob 646 (RegAllocPrefMacOperands): > 0 enables the pre-allocation pass.
    pub pref_mac_operands: i64,
    /// The caller-save rule at calls (`radbg.CallCostSeed001`: seed 001's, else radbg's).
    pub call_rule: crate::alloc::cost::CallRule,
}

impl FatPointParams {
    /// Reads every parameter the allocator uses; called once per function.
    pub fn from_knobs(k: &Knobs) -> FatPointParams {
        let loop_weight = match k.str(knobs::EST_LOOP_ITERS).trim().parse::<f64>() {
            Ok(x) if x >= 1.0 => x,
            _ => k.int("radbg.LoopWeight") as f64,
        };
        FatPointParams {
            discard_threshold: k.int(knobs::THRESHOLD_DISCARD).clamp(0, u32::MAX as i64) as u32,
            interval_interference: k.int(INTERVAL_INTERFERENCE).clamp(0, 2) as u8,
            store_rotation: k.int(STORE_ROTATION).clamp(0, 16) as u32,
            six_lists: k.int(SIX_LISTS).clamp(0, 7) as u8,
            guidance_walk: k.bool(GUIDANCE_WALK),
            spill_remat: k.bool(SPILL_REMAT),
            no_retarget: k.bool(knobs::NO_RETARGET),
            spill_trials: k.int(knobs::NUM_SPILL_TRIALS).clamp(0, u32::MAX as i64) as u32,
            spill_weight: k.float("radbg.SpillWeight"),
            spill_weight_high: k.float("radbg.SpillWeightHighPressure"),
            loop_weight,
            est_loop_iters_set: !k.str(knobs::EST_LOOP_ITERS).is_empty(),
            bit_spill: k.bool("radbg.BitSpill"),
            pref_mac_operands: k.int(knobs::PREF_MAC_OPERANDS),
            call_rule: crate::alloc::cost::CallRule::from_knobs(k),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn knob_684_reaches_the_params() {
        let mut k = Knobs::new();
        assert_eq!(FatPointParams::from_knobs(&k).discard_threshold, 50);
        assert_eq!(FatPointParams::from_knobs(&k).interval_interference, 1, "on by default");
        k.set_str("684=80").unwrap();
        assert_eq!(FatPointParams::from_knobs(&k).discard_threshold, 80);
        k.set_str("623=3").unwrap();
        let p = FatPointParams::from_knobs(&k);
        assert_eq!(p.loop_weight, 3.0);
        assert!(p.est_loop_iters_set);
    }
}
