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
}

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
pub fn order(cands: &[Candidate], budget: u32, retry: bool) -> Ordering {
    let mut lists: [Vec<&Candidate>; 6] = Default::default();
    for c in cands {
        let high = c.interference > budget;
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
            a.first_pos
                .cmp(&b.first_pos)
                .then(ra.total_cmp(&rb))
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
        let o = order(&cands, 32, false);
        assert_eq!(o.stack.iter().map(|v| v.0).collect::<Vec<_>>(), vec![9, 4, 1, 2, 3, 0]);
        assert_eq!(o.sizes, [1, 1, 1, 2, 0, 1]);
        let o = order(&cands, 32, true);
        assert_eq!(o.lists.last(), Some(&List::LowLate));
    }
}
