//! One allocation attempt of one class: its constraint nodes, its assignment stack with
//! a cursor, and what it has decided so far; plus the record kept after it ends and
//! the best-result comparison (seed 003, "Best-result comparison", sub_93D070).

use std::sync::Arc;

use crate::alloc::constraints::Constraints;
use crate::alloc::driver::ClassPlan;
use crate::alloc::fatpoint::{Decision, Histogram};
use crate::alloc::order::Ordering;
use crate::alloc::ranges::{RangeMax, Ranges};
use crate::ir::{Function, RegClass, VRegId};

/// The live state of an attempt.
#[derive(Clone, Debug)]
pub struct Attempt {
    pub class: RegClass,
    pub number: u32,
    /// SPILL mode (every attempt after the first).
    pub spill: bool,
    pub target: u32,
    pub budget: u32,
    pub constraints: Arc<Constraints>,
    /// The class's vregs, in id order (shared with checkpoints).
    pub members: Arc<Vec<VRegId>>,
    /// Interference of each vreg (indexed by id): highest file pressure over its range.
    interference: Arc<Vec<u32>>,
    pub constraint_cursor: usize,
    /// Built once per attempt, then only read (shared with checkpoints).
    pub order: Arc<Ordering>,
    /// Next stack entry to assign.
    pub cursor: usize,
    /// Registers needed so far: max over decisions of slot + width.
    pub used: u32,
    pub needs_spill: Vec<VRegId>,
    pub preallocated: Vec<VRegId>,
    /// The last decision: vreg, its histograms, the scan result.
    pub last: Option<Arc<(VRegId, Histogram, Decision)>>,
}

impl Attempt {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        plan: &ClassPlan,
        number: u32,
        spill: bool,
        target: u32,
        constraints: Arc<Constraints>,
        members: Vec<VRegId>,
        f: &Function,
        ranges: &Ranges,
        preallocated: Vec<VRegId>,
        pinned_used: u32,
        file_pressure: Vec<u32>,
    ) -> Attempt {
        // `file_pressure`: `ranges.pressure` of the class's file over every vreg (the
        // driver computes it once for this and the constraints' bank limit).
        let index = RangeMax::new(file_pressure);
        let mut interference = vec![0u32; f.vregs.len()];
        for &v in &members {
            interference[v.index()] = index.max_over(ranges.segments(v));
        }
        Attempt {
            class: plan.class,
            number,
            spill,
            target,
            budget: plan.budget,
            constraints,
            members: Arc::new(members),
            interference: Arc::new(interference),
            constraint_cursor: 0,
            order: Arc::default(),
            cursor: 0,
            used: pinned_used,
            needs_spill: Vec::new(),
            preallocated,
            last: None,
        }
    }

    pub fn interference(&self, v: VRegId) -> u32 {
        self.interference.get(v.index()).copied().unwrap_or(0)
    }

    /// The record kept once the attempt ends.
    pub fn record(&self, assign: &[Option<u16>], costs: &[f64], success: bool) -> AttemptRecord {
        let assignment = self.members.iter().map(|&v| (v, assign.get(v.index()).copied().flatten())).collect();
        let cost = self.needs_spill.iter().map(|v| costs.get(v.index()).copied().unwrap_or(0.0)).sum::<f64>() + 0.0;
        AttemptRecord {
            class: self.class,
            number: self.number,
            spill: self.spill,
            target: self.target,
            budget: self.budget,
            used: self.used,
            success,
            needs_spill: self.needs_spill.clone(),
            assignment,
            cost,
            spilled_total: 0,
            width: self.class.file().arch_size() as u32,
        }
    }
}

/// What is kept of an attempt after it ends (for `attempts`, diffs and `why`).
#[derive(Clone, Debug, PartialEq)]
pub struct AttemptRecord {
    pub class: RegClass,
    pub number: u32,
    pub spill: bool,
    pub target: u32,
    pub budget: u32,
    pub used: u32,
    pub success: bool,
    pub needs_spill: Vec<VRegId>,
    /// Slot of every vreg of the class after the attempt.
    pub assignment: Vec<(VRegId, Option<u16>)>,
    /// Spill cost of the vregs left over budget.
    pub cost: f64,
    /// Vregs spilled so far in this class (set by the driver).
    pub spilled_total: u32,
    /// Class width, the last tie-break.
    pub width: u32,
}

/// The best attempt of a class by the seed's tie-break order: register count, cost
/// metric, spill count, class width (all lower is better); the earliest wins a full tie.
pub fn best_of(records: &[AttemptRecord], class: RegClass) -> Option<&AttemptRecord> {
    records.iter().filter(|r| r.class == class).min_by(|a, b| {
        let key = |r: &AttemptRecord| (!r.success, r.used);
        key(a)
            .cmp(&key(b))
            .then(a.cost.total_cmp(&b.cost))
            .then(a.needs_spill.len().cmp(&b.needs_spill.len()))
            .then(a.width.cmp(&b.width))
            .then(a.number.cmp(&b.number))
    })
}
