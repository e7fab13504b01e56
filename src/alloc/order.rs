//! Six-list simplify-select ordering (seed 000, "Six-List Classification
//! (sub_93FBE0)"): every vreg of the class goes into one of six lists; the lists are
//! drained onto the assignment stack at +744 in the seed's order.
//!
//! radbg's reading of the criteria (the seed's table is terse; choices recorded in
//! ARCHITECTURE.md):
//! - *interference* of a vreg (sub_938EA0) is the highest register pressure of its file
//!   over the positions where it is live; it is *high* (sub_939220) when that exceeds the
//!   class budget — Chaitin's "degree ≥ K";
//! - Unconstrained: no constraint nodes of its own and no overlap with any other vreg;
//! - VeryHigh: pairs, quads, pair halves, and LargeVec (width > 4, merged into VeryHigh);
//! - High: high interference;
//! - LowConf: low interference in the NOSPILL attempt; LowLate: the same in SPILL attempts.
//!
//! Drain order: Unconstrained, VeryHigh, High (simplify phase: widest first so pairs do
//! not fragment aligned quad slots, then by first live position), then LowConf and
//! LowLate (by first live position; the seed's select-phase ratio — lowest spill-cost /
//! interference first, ties to the wider vreg, the pre-allocated one, the lower id — is
//! the tie-break). Why first position beats the ratio: ARCHITECTURE.md, "Six lists".
//! The fat-point core walks the stack from its bottom, so constrained and expensive
//! vregs are coloured first and trivially colourable ones last.

use crate::ir::VRegId;

/// The six lists, in drain order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum List {
    Unconstrained,
    VeryHigh,
    High,
    LowConf,
    LowLate,
    LargeVec,
}

impl List {
    pub const ALL: [List; 6] =
        [List::Unconstrained, List::VeryHigh, List::High, List::LowConf, List::LowLate, List::LargeVec];

    pub fn name(self) -> &'static str {
        match self {
            List::Unconstrained => "Unconstrained",
            List::VeryHigh => "VeryHigh",
            List::High => "High",
            List::LowConf => "LowConf",
            List::LowLate => "LowLate",
            List::LargeVec => "LargeVec",
        }
    }

    /// The state-object offset of the list head (LargeVec is arena-allocated).
    pub fn offset(self) -> Option<u32> {
        match self {
            List::LowConf => Some(72),
            List::LowLate => Some(96),
            List::High => Some(120),
            List::VeryHigh => Some(144),
            List::Unconstrained => Some(168),
            List::LargeVec => None,
        }
    }
}

/// What the classifier knows about one vreg.
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    pub vreg: VRegId,
    pub width: u8,
    /// Pair-mode or hi-half flags set.
    pub pair_flags: bool,
    /// Own constraint nodes beyond the file-wide ones.
    pub has_nodes: bool,
    /// Highest file pressure over its live positions.
    pub interference: u32,
    pub spill_cost: f64,
    /// First live position (definition order).
    pub first_pos: u32,
    pub preallocated: bool,
    /// Seed 000's flag bit 0x80000 (meaning not decoded; radbg's IR never sets it).
    pub high_flag: bool,
}

/// Which of the seed's readings the classification follows (`alloc::params`).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Rules {
    /// `Some(t)`: High = spill cost × (+1548 multiplier / its default 4.0) > t (the
    /// threshold at alloc+768) or flag 0x80000 — seed 000's sentence; `None`: radbg's
    /// interference > budget.
    pub high_cost_threshold: Option<f64>,
    /// The +1548 spill-cost multiplier (knob 680 scaled by `--register-usage-level`).
    pub cost_mult: f64,
    /// LowConf / LowLate by the seed's spill-cost / interference ratio first (else by
    /// first live position, the ratio only breaking ties).
    pub low_by_ratio: bool,
}

/// The +1548 multiplier's default (knob 680): the seed-rule cost is scaled relative to it.
const DEFAULT_MULT: f64 = 4.0;

/// The classification and the resulting stack.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Ordering {
    /// Vregs in assignment order (stack bottom first).
    pub stack: Vec<VRegId>,
    /// The list each stack entry came from.
    pub lists: Vec<List>,
    /// Sizes per list after classification, in [`List::ALL`] order (LargeVec before merge).
    pub sizes: [u32; 6],
}

/// Classifies and drains (sub_93FBE0). `retry` is true in SPILL attempts (a3 == 99).
pub fn order(cands: &[Candidate], budget: u32, retry: bool, rules: &Rules) -> Ordering {
    let mut lists: [Vec<&Candidate>; 6] = Default::default();
    for c in cands {
        let high = match rules.high_cost_threshold {
            Some(t) => c.spill_cost * rules.cost_mult / DEFAULT_MULT > t || c.high_flag,
            None => c.interference > budget,
        };
        let l = if !c.has_nodes && c.interference <= c.width as u32 {
            List::Unconstrained
        } else if c.width > 4 {
            List::LargeVec
        } else if c.width >= 2 || c.pair_flags {
            List::VeryHigh
        } else if high {
            List::High
        } else if retry {
            List::LowLate
        } else {
            List::LowConf
        };
        lists[l as usize].push(c);
    }
    let mut sizes = [0u32; 6];
    for (i, l) in lists.iter().enumerate() {
        sizes[i] = l.len() as u32;
    }
    // LargeVec merges into VeryHigh after classification.
    let large = std::mem::take(&mut lists[List::LargeVec as usize]);
    lists[List::VeryHigh as usize].extend(large);
    let mut out = Ordering { sizes, ..Ordering::default() };
    for l in [List::Unconstrained, List::VeryHigh, List::High] {
        let mut v = std::mem::take(&mut lists[l as usize]);
        // Wider groups first (quads before pairs) so pairs do not fragment the aligned
        // quad slots; then definition order.
        v.sort_by_key(|c| (std::cmp::Reverse(c.width), c.first_pos, c.vreg));
        for c in v {
            out.stack.push(c.vreg);
            out.lists.push(l);
        }
    }
    for l in [List::LowConf, List::LowLate] {
        let mut v = std::mem::take(&mut lists[l as usize]);
        v.sort_by(|a, b| {
            let ra = a.spill_cost / a.interference.max(1) as f64;
            let rb = b.spill_cost / b.interference.max(1) as f64;
            let by_pos = a.first_pos.cmp(&b.first_pos);
            let by_ratio = ra.total_cmp(&rb);
            let (first, second) = if rules.low_by_ratio { (by_ratio, by_pos) } else { (by_pos, by_ratio) };
            first
                .then(second)
                .then(b.width.cmp(&a.width))
                .then(b.preallocated.cmp(&a.preallocated))
                .then(a.vreg.cmp(&b.vreg))
        });
        for c in v {
            out.stack.push(c.vreg);
            out.lists.push(l);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(id: u32, width: u8, interference: u32, cost: f64, first: u32) -> Candidate {
        Candidate {
            vreg: VRegId(id),
            width,
            pair_flags: false,
            has_nodes: true,
            interference,
            spill_cost: cost,
            first_pos: first,
            preallocated: false,
            high_flag: false,
        }
    }

    #[test]
    fn drains_in_seed_order() {
        let mut free = c(9, 1, 1, 1.0, 0);
        free.has_nodes = false;
        let cands = vec![
            c(0, 1, 10, 30.0, 5), // low, ratio 3
            c(1, 2, 10, 1.0, 7),  // pair -> VeryHigh
            c(2, 1, 40, 1.0, 3),  // high
            c(3, 1, 10, 10.0, 1), // low, ratio 1
            c(4, 8, 12, 1.0, 2),  // large vector -> VeryHigh
            free,
        ];
        let o = order(&cands, 32, false, &Rules::default());
        assert_eq!(o.stack.iter().map(|v| v.0).collect::<Vec<_>>(), vec![9, 4, 1, 2, 3, 0]);
        assert_eq!(o.sizes, [1, 1, 1, 2, 0, 1]);
        let o = order(&cands, 32, true, &Rules::default());
        assert_eq!(o.lists.last(), Some(&List::LowLate));
    }

    #[test]
    fn seed_rules_high_by_cost_low_by_ratio() {
        let cands = vec![
            c(0, 1, 10, 30.0, 1), // low, ratio 3, first
            c(1, 1, 10, 10.0, 5), // low, ratio 1
            c(2, 1, 40, 20.0, 3), // interference over the budget, cheap
            c(3, 1, 10, 90.0, 9), // expensive
        ];
        let seed = Rules { high_cost_threshold: Some(30.0), cost_mult: 4.0, low_by_ratio: true };
        let o = order(&cands, 32, false, &seed);
        // High = cost above 30 (vreg 3), not interference; the rest by ratio 0.5, 1, 3.
        assert_eq!(o.lists[0], List::High);
        assert_eq!(o.stack.iter().map(|v| v.0).collect::<Vec<_>>(), vec![3, 2, 1, 0]);
        // A higher +1548 multiplier (--register-usage-level 10) classifies more as High.
        let o = order(&cands, 32, false, &Rules { cost_mult: 8.0, ..seed });
        assert_eq!(o.sizes[List::High as usize], 3);
        // radbg's rule: interference over the budget, then first position.
        let o = order(&cands, 32, false, &Rules::default());
        assert_eq!(o.stack.iter().map(|v| v.0).collect::<Vec<_>>(), vec![2, 0, 1, 3]);
    }
}
