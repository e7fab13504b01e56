//! The CALL-site spill-cost adjustment (seed 001, "Scratch Data Registers",
//! `adjust_spill_cost_for_abi` inside sub_94F150).
//!
//! Owns: the arithmetic for one vreg operand of one CALL — the secondary cost, the
//! caller-save multiplier, the `2 × base_weight` factor, the uniform exemption and
//! the save-chain bound. Must not know: liveness or the allocator's data — the
//! caller states the facts in a [`CallOperand`].
//!
//! Reading of the seed's flags in radbg's model:
//! - "uniform register → exempt (flags & 0x200)": seed 000 gives 0x200 to
//!   *pre-assigned*, so radbg tests the vreg's file (UR) instead of the bit;
//! - "scratch bit 0x800 set, preserved bit 0x400 clear": seed 000 gives these bits to
//!   coalescing, so radbg takes the classification as a [`RegRole`] (the role of the
//!   register the vreg is pinned to or expected to get): `Scratch` is "scratch set,
//!   preserved clear"; anything else takes the full double weight;
//! - `pair_width == 1` (single-width: "nesting-depth cost only, no ABI penalty") is
//!   read as a vreg width of one 32-bit register;
//! - "live_across(instr) and live_across(next) and live_across(prev)" is read as
//!   live before and after the call;
//! - the save chain (sub_944740) is not described; when the caller has no estimate,
//!   radbg uses one store per 32-bit register ([`estimate_save_chain`]);
//! - the seed's pseudocode only charges *definitions* (the CALL's results); uses get
//!   the secondary cost alone.

use crate::abi::RegRole;
use crate::ir::model::RegFile;
use crate::knobs::{Knobs, SPILL_COST_MULT};

/// Allocator-wide inputs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CallCostParams {
    /// Base spill weight: 15.0, or 3.0 for a class under high pressure (seed 003).
    pub base_weight: f64,
    /// The save-chain bound (alloc+1544): default 4.0, from knob 680.
    pub save_limit: f64,
    /// `alloc.force_caller_save`: take the save-chain path even for classes whose
    /// scratch bitmask has bit 1.
    pub force_caller_save: bool,
}

impl Default for CallCostParams {
    fn default() -> CallCostParams {
        CallCostParams { base_weight: 15.0, save_limit: 4.0, force_caller_save: false }
    }
}

impl CallCostParams {
    /// From the knobs in force: `radbg.SpillWeight` / `radbg.SpillWeightHighPressure`
    /// and knob 680.
    pub fn from_knobs(knobs: &Knobs, high_pressure: bool) -> CallCostParams {
        let base_weight =
            if high_pressure { knobs.float("radbg.SpillWeightHighPressure") } else { knobs.float("radbg.SpillWeight") };
        CallCostParams { base_weight, save_limit: knobs.float(SPILL_COST_MULT), force_caller_save: false }
    }
}

/// One vreg operand of one CALL instruction.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CallOperand {
    pub file: RegFile,
    /// Width in 32-bit registers.
    pub width: u8,
    /// A result of the CALL (a definition) rather than an argument.
    pub is_def: bool,
    /// Pre-coloured operands (pinned) are skipped entirely (sub_9446D0).
    pub pre_colored: bool,
    /// Scratch / preserved classification of the vreg (see the module doc).
    pub role: RegRole,
    /// `spill_info[class] & 2`: the class treats scratch as unconditional.
    pub class_unconditional_scratch: bool,
    /// Live before the call and live after it.
    pub live_before: bool,
    pub live_after: bool,
    /// First reference of the vreg in its block (kill point: secondary cost doubles).
    pub first_ref_in_block: bool,
    /// The caller-save sequence length, if the caller estimated it.
    pub save_chain: Option<u32>,
    /// Frequency of the CALL's block.
    pub block_freq: f64,
}

/// Which branch of the seed's pseudocode was taken.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CostPath {
    /// Pre-coloured: skipped.
    PreColored,
    /// Single-width register: no ABI penalty.
    SingleWidth,
    /// Uniform register: exempt.
    UniformExempt,
    /// An argument (use): only the secondary cost.
    Use,
    /// Scratch across the call with a short save chain: `len × freq`.
    SaveChain { len: u32 },
    /// `mult × 2 × base_weight × freq`.
    DoubleWeight,
}

/// The cost increments of one operand.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CallCost {
    /// Added to the vreg's spill cost.
    pub spill: f64,
    /// Added to the secondary cost (vreg+76).
    pub secondary: f64,
    /// The caller-save multiplier: 2.0 when live in both directions, else 1.0.
    pub multiplier: f64,
    pub path: CostPath,
}

/// radbg's save-chain estimate: one store per 32-bit register.
pub fn estimate_save_chain(width: u8) -> u32 {
    width.max(1) as u32
}

/// The spill-cost increment of one CALL operand.
pub fn call_site_cost(op: &CallOperand, params: &CallCostParams) -> f64 {
    call_site_cost_explained(op, params).spill
}

/// The same, with the secondary cost, the multiplier and the branch taken.
pub fn call_site_cost_explained(op: &CallOperand, params: &CallCostParams) -> CallCost {
    let freq = op.block_freq;
    let multiplier = if op.live_before && op.live_after { 2.0 } else { 1.0 };
    let mut cost = CallCost { spill: 0.0, secondary: 0.0, multiplier, path: CostPath::PreColored };
    if op.pre_colored {
        return cost;
    }
    // Secondary cost: always accumulated, doubled at a kill point.
    cost.secondary = if op.first_ref_in_block { 2.0 * freq } else { freq };
    if op.width <= 1 {
        cost.path = CostPath::SingleWidth;
        return cost;
    }
    if op.file == RegFile::UR {
        cost.path = CostPath::UniformExempt;
        return cost;
    }
    if !op.is_def {
        cost.path = CostPath::Use;
        return cost;
    }
    let double = multiplier * (2.0 * params.base_weight) * freq;
    let scratch_path = (params.force_caller_save || !op.class_unconditional_scratch) && op.role == RegRole::Scratch;
    if scratch_path {
        let len = op.save_chain.unwrap_or_else(|| estimate_save_chain(op.width));
        if len as f64 <= params.save_limit {
            cost.spill = len as f64 * freq;
            cost.path = CostPath::SaveChain { len };
            return cost;
        }
    }
    cost.spill = double;
    cost.path = CostPath::DoubleWeight;
    cost
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op() -> CallOperand {
        CallOperand {
            file: RegFile::R,
            width: 2,
            is_def: true,
            pre_colored: false,
            role: RegRole::Preserved,
            class_unconditional_scratch: false,
            live_before: true,
            live_after: true,
            first_ref_in_block: false,
            save_chain: None,
            block_freq: 1.0,
        }
    }

    /// (operand, params) -> (spill, secondary, path)
    fn check(o: CallOperand, p: CallCostParams, expected: (f64, f64, CostPath)) {
        let c = call_site_cost_explained(&o, &p);
        assert_eq!((c.spill, c.secondary, c.path), expected, "{o:?}");
        assert_eq!(call_site_cost(&o, &p), expected.0);
    }

    #[test]
    fn seed_cost_paths() {
        let p = CallCostParams::default();
        // Preserved, live both ways: 2.0 * (2 * 15.0) = 60.
        check(op(), p, (60.0, 1.0, CostPath::DoubleWeight));
        // Live one way: 30; under pressure 6.
        check(CallOperand { live_after: false, ..op() }, p, (30.0, 1.0, CostPath::DoubleWeight));
        check(
            CallOperand { live_after: false, ..op() },
            CallCostParams { base_weight: 3.0, ..p },
            (6.0, 1.0, CostPath::DoubleWeight),
        );
        // Scratch with a short chain (width 2 <= 4.0): 2 * freq; block frequency scales.
        check(
            CallOperand { role: RegRole::Scratch, block_freq: 8.0, ..op() },
            p,
            (16.0, 8.0, CostPath::SaveChain { len: 2 }),
        );
        // Scratch with a long chain falls back to the double weight.
        check(CallOperand { role: RegRole::Scratch, width: 8, ..op() }, p, (60.0, 1.0, CostPath::DoubleWeight));
        check(
            CallOperand { role: RegRole::Scratch, save_chain: Some(5), ..op() },
            CallCostParams { save_limit: 5.0, ..p },
            (5.0, 1.0, CostPath::SaveChain { len: 5 }),
        );
        // Unconditional-scratch class: full weight unless forced.
        let u = CallOperand { role: RegRole::Scratch, class_unconditional_scratch: true, ..op() };
        check(u, p, (60.0, 1.0, CostPath::DoubleWeight));
        check(u, CallCostParams { force_caller_save: true, ..p }, (2.0, 1.0, CostPath::SaveChain { len: 2 }));
        // Exemptions.
        check(CallOperand { width: 1, ..op() }, p, (0.0, 1.0, CostPath::SingleWidth));
        check(CallOperand { file: RegFile::UR, ..op() }, p, (0.0, 1.0, CostPath::UniformExempt));
        check(CallOperand { is_def: false, first_ref_in_block: true, ..op() }, p, (0.0, 2.0, CostPath::Use));
        check(CallOperand { pre_colored: true, ..op() }, p, (0.0, 0.0, CostPath::PreColored));
    }

    #[test]
    fn params_from_knobs() {
        let mut k = Knobs::new();
        assert_eq!(CallCostParams::from_knobs(&k, false), CallCostParams::default());
        assert_eq!(CallCostParams::from_knobs(&k, true).base_weight, 3.0);
        k.set_str("680=2.5").unwrap();
        assert_eq!(CallCostParams::from_knobs(&k, false).save_limit, 2.5);
    }
}
