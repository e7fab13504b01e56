//! Spill guidance (seed 003, "Spill Guidance Engine", sub_96D940): after a failed
//! attempt, build the class's candidate queue sorted by spill cost — cheapest first —
//! and mark the vregs to spill on the next attempt.
//!
//! radbg's selection (the seed gives the queue and its order, not the walk): the file's
//! register pressure over positions is compared against the attempt's target; walking
//! the queue cheapest-first, a candidate is taken when spilling it lowers pressure at a
//! position still over target. Spilling a vreg frees its register everywhere except
//! around the instructions that reference it (which still need it, or its reload), so
//! only its "interior" positions count. After a failed SPILL attempt (and whenever
//! pressure already fits, so the failure came from fragmentation or constraints) the
//! vregs the attempt marked needs-spill come first — the seed turns that mark into
//! spill code on the next attempt — then the queue is walked until pressure fits.

use crate::ir::VRegId;

/// One queue entry.
#[derive(Clone, Debug, PartialEq)]
pub struct QueueEntry {
    pub vreg: VRegId,
    pub cost: f64,
    /// Positions where spilling it would free a register.
    pub interior: u32,
}

/// The guidance result for one class.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Guidance {
    pub target: u32,
    /// The queue, cheapest first.
    pub queue: Vec<QueueEntry>,
    /// Chosen vregs, in the order chosen.
    pub chosen: Vec<VRegId>,
    /// Highest pressure before and after the chosen spills.
    pub peak_before: u32,
    pub peak_after: u32,
    /// True when only the vregs marked needs-spill were chosen (pressure already fit).
    pub fallback: bool,
}

/// A candidate as the guidance sees it.
pub struct Cand<'a> {
    pub vreg: VRegId,
    pub width: u8,
    pub cost: f64,
    /// Positions freed by spilling it.
    pub interior: &'a [(u32, u32)],
    pub needs_spill: bool,
}

/// Picks the vregs to spill so that pressure fits `target` where it can.
/// With `take_marked`, the vregs marked needs-spill are chosen first; otherwise only
/// when pressure already fits the target.
pub fn choose(pressure: &[u32], target: u32, cands: &[Cand], take_marked: bool) -> Guidance {
    let mut tree = MaxTree::new(pressure);
    let peak_before = tree.max_all();
    let mut order: Vec<&Cand> = cands.iter().collect();
    order.sort_by(|a, b| {
        let ia: u32 = a.interior.iter().map(|&(l, h)| h - l + 1).sum();
        let ib: u32 = b.interior.iter().map(|&(l, h)| h - l + 1).sum();
        a.cost.total_cmp(&b.cost).then(ib.cmp(&ia)).then(a.vreg.cmp(&b.vreg))
    });
    let queue: Vec<QueueEntry> = order
        .iter()
        .map(|c| QueueEntry { vreg: c.vreg, cost: c.cost, interior: c.interior.iter().map(|&(l, h)| h - l + 1).sum() })
        .collect();
    // The vregs the attempt marked needs-spill (0x40000) are spilled first when asked
    // (the seed's assignment path turns the mark into spill code on the next visit,
    // seed 003 "Spill Trigger") or when pressure already fits the target.
    let mut chosen: Vec<VRegId> = Vec::new();
    let take_marked = take_marked || tree.max_all() <= target;
    for c in order.iter().filter(|c| c.needs_spill && take_marked) {
        for &(lo, hi) in c.interior {
            tree.add(lo, hi, -(c.width as i64));
        }
        chosen.push(c.vreg);
    }
    let marked = chosen.len();
    for c in order.iter().filter(|c| !(c.needs_spill && take_marked)) {
        if tree.max_all() <= target {
            break;
        }
        let helps = c.interior.iter().any(|&(lo, hi)| tree.max(lo, hi) > target);
        if helps {
            for &(lo, hi) in c.interior {
                tree.add(lo, hi, -(c.width as i64));
            }
            chosen.push(c.vreg);
        }
    }
    let fallback = chosen.len() == marked && marked > 0;
    Guidance { target, queue, chosen, peak_before, peak_after: tree.max_all(), fallback }
}

/// A segment tree with range add and range max over positions.
struct MaxTree {
    n: usize,
    max: Vec<i64>,
    lazy: Vec<i64>,
}

impl MaxTree {
    fn new(values: &[u32]) -> MaxTree {
        let n = values.len().max(1);
        let mut t = MaxTree { n, max: vec![0; 4 * n], lazy: vec![0; 4 * n] };
        t.build(1, 0, n - 1, values);
        t
    }

    fn build(&mut self, node: usize, l: usize, r: usize, v: &[u32]) {
        if l == r {
            self.max[node] = v.get(l).copied().unwrap_or(0) as i64;
            return;
        }
        let m = (l + r) / 2;
        self.build(2 * node, l, m, v);
        self.build(2 * node + 1, m + 1, r, v);
        self.max[node] = self.max[2 * node].max(self.max[2 * node + 1]);
    }

    fn max_all(&self) -> u32 {
        self.max[1].max(0) as u32
    }

    fn add(&mut self, lo: u32, hi: u32, d: i64) {
        let hi = (hi as usize).min(self.n - 1);
        if (lo as usize) <= hi {
            self.add_rec(1, 0, self.n - 1, lo as usize, hi, d);
        }
    }

    fn add_rec(&mut self, node: usize, l: usize, r: usize, lo: usize, hi: usize, d: i64) {
        if hi < l || r < lo {
            return;
        }
        if lo <= l && r <= hi {
            self.max[node] += d;
            self.lazy[node] += d;
            return;
        }
        let m = (l + r) / 2;
        self.add_rec(2 * node, l, m, lo, hi, d);
        self.add_rec(2 * node + 1, m + 1, r, lo, hi, d);
        self.max[node] = self.max[2 * node].max(self.max[2 * node + 1]) + self.lazy[node];
    }

    fn max(&self, lo: u32, hi: u32) -> u32 {
        let hi = (hi as usize).min(self.n - 1);
        if (lo as usize) > hi {
            return 0;
        }
        self.max_rec(1, 0, self.n - 1, lo as usize, hi).max(0) as u32
    }

    fn max_rec(&self, node: usize, l: usize, r: usize, lo: usize, hi: usize) -> i64 {
        if hi < l || r < lo {
            return i64::MIN / 2;
        }
        if lo <= l && r <= hi {
            return self.max[node];
        }
        let m = (l + r) / 2;
        self.max_rec(2 * node, l, m, lo, hi).max(self.max_rec(2 * node + 1, m + 1, r, lo, hi)) + self.lazy[node]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn picks_cheapest_candidates_that_help() {
        // Pressure 5 over positions 2..=6, target 3: two width-1 spills needed there.
        let p = vec![1, 2, 5, 5, 5, 5, 5, 2];
        let a = [(2, 6)];
        let b = [(0, 1)]; // cheapest but does not overlap the excess
        let c = [(3, 5)];
        let d = [(2, 6)];
        let cands = [
            Cand { vreg: VRegId(0), width: 1, cost: 30.0, interior: &a, needs_spill: false },
            Cand { vreg: VRegId(1), width: 1, cost: 1.0, interior: &b, needs_spill: false },
            Cand { vreg: VRegId(2), width: 1, cost: 15.0, interior: &c, needs_spill: false },
            Cand { vreg: VRegId(3), width: 1, cost: 45.0, interior: &d, needs_spill: true },
        ];
        let g = choose(&p, 3, &cands, false);
        assert_eq!(g.queue[0].vreg, VRegId(1));
        assert_eq!(g.chosen, vec![VRegId(2), VRegId(0), VRegId(3)]);
        let g = choose(&p, 3, &cands, true);
        // %3 was marked needs-spill: it goes first, then the cheapest that still help.
        assert_eq!(g.chosen, vec![VRegId(3), VRegId(2), VRegId(0)]);
        assert_eq!(g.peak_before, 5);
        assert_eq!(g.peak_after, 3);
        // Within target everywhere: fall back to the needs-spill vregs.
        let g = choose(&p, 9, &cands, false);
        assert!(g.fallback);
        assert_eq!(g.chosen, vec![VRegId(3)]);
    }
}
