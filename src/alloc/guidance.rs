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
/// `walk` is knob 622 (seed 003: the instruction walk at +10704 is gated by it): off,
/// only the marked vregs are chosen.
pub fn choose(pressure: &[u32], target: u32, cands: &[Cand], take_marked: bool, walk: bool) -> Guidance {
    let mut tree = MaxTree::new(pressure);
    let peak_before = tree.max_all();
    // Interior sizes once per candidate, not once per comparison.
    let size: Vec<u32> = cands.iter().map(|c| c.interior.iter().map(|&(l, h)| h - l + 1).sum()).collect();
    // Cheapest first (`f64::total_cmp`), then the larger interior, then the vreg, then
    // the candidate's index: a key of integers, unique, so an unstable sort gives the
    // stable sort's order (issue 25: the stable sort with a comparator was half of the
    // guidance on the scale kernel's 100k candidates).
    let total_key = |x: f64| {
        let b = x.to_bits() as i64;
        b ^ ((((b >> 63) as u64) >> 1) as i64)
    };
    let mut keyed: Vec<(i64, std::cmp::Reverse<u32>, VRegId, usize)> =
        cands.iter().enumerate().map(|(k, c)| (total_key(c.cost), std::cmp::Reverse(size[k]), c.vreg, k)).collect();
    keyed.sort_unstable();
    let order: Vec<usize> = keyed.into_iter().map(|t| t.3).collect();
    let queue: Vec<QueueEntry> =
        order.iter().map(|&k| QueueEntry { vreg: cands[k].vreg, cost: cands[k].cost, interior: size[k] }).collect();
    // The vregs the attempt marked needs-spill (0x40000) are spilled first when asked
    // (the seed's assignment path turns the mark into spill code on the next visit,
    // seed 003 "Spill Trigger") or when pressure already fits the target.
    let mut chosen: Vec<VRegId> = Vec::new();
    let take_marked = take_marked || tree.max_all() <= target || !walk;
    let first = |c: &Cand| c.needs_spill && take_marked;
    for c in order.iter().map(|&k| &cands[k]).filter(|c| first(c)) {
        for &(lo, hi) in c.interior {
            tree.add(lo, hi, -(c.width as i32));
        }
        chosen.push(c.vreg);
    }
    let marked = chosen.len();
    for c in order.iter().map(|&k| &cands[k]).filter(|c| !first(c) && walk) {
        if tree.max_all() <= target {
            break;
        }
        let helps = c.interior.iter().any(|&(lo, hi)| tree.max(lo, hi) > target);
        if helps {
            for &(lo, hi) in c.interior {
                tree.add(lo, hi, -(c.width as i32));
            }
            chosen.push(c.vreg);
        }
    }
    let fallback = chosen.len() == marked && marked > 0;
    Guidance { target, queue, chosen, peak_before, peak_after: tree.max_all(), fallback }
}

/// A segment tree with range add and range max over positions: a perfect binary tree
/// over `size` (a power of two) leaves, node `k` holding the max of its subtree
/// *including* `add[k]`, the amount added to the whole subtree (never pushed down).
struct MaxTree {
    size: usize,
    n: usize,
    max: Vec<i32>,
    add: Vec<i32>,
}

impl MaxTree {
    fn new(values: &[u32]) -> MaxTree {
        let n = values.len().max(1);
        let size = n.next_power_of_two();
        let mut max = vec![i32::MIN / 2; 2 * size];
        for (i, &v) in values.iter().enumerate() {
            max[size + i] = v.min(i32::MAX as u32 / 2) as i32;
        }
        if values.is_empty() {
            max[size] = 0;
        }
        for k in (1..size).rev() {
            max[k] = max[2 * k].max(max[2 * k + 1]);
        }
        MaxTree { size, n, max, add: vec![0; 2 * size] }
    }

    fn max_all(&self) -> u32 {
        self.max[1].max(0) as u32
    }

    /// Adds `d` to positions `lo..=hi` (clamped to the positions).
    fn add(&mut self, lo: u32, hi: u32, d: i32) {
        let hi = (hi as usize).min(self.n - 1);
        if (lo as usize) > hi {
            return;
        }
        self.add_rec(1, 0, self.size - 1, lo as usize, hi, d);
    }

    fn add_rec(&mut self, k: usize, l: usize, r: usize, lo: usize, hi: usize, d: i32) {
        if lo <= l && r <= hi {
            self.max[k] += d;
            self.add[k] += d;
            return;
        }
        let m = (l + r) / 2;
        if lo <= m {
            self.add_rec(2 * k, l, m, lo, hi, d);
        }
        if hi > m {
            self.add_rec(2 * k + 1, m + 1, r, lo, hi, d);
        }
        self.max[k] = self.max[2 * k].max(self.max[2 * k + 1]) + self.add[k];
    }

    /// The highest value over `lo..=hi` (0 for an empty range).
    fn max(&self, lo: u32, hi: u32) -> u32 {
        let hi = (hi as usize).min(self.n - 1);
        if (lo as usize) > hi {
            return 0;
        }
        self.max_rec(1, 0, self.size - 1, lo as usize, hi).max(0) as u32
    }

    fn max_rec(&self, k: usize, l: usize, r: usize, lo: usize, hi: usize) -> i32 {
        if lo <= l && r <= hi {
            return self.max[k];
        }
        let m = (l + r) / 2;
        let mut best = i32::MIN / 2;
        if lo <= m {
            best = best.max(self.max_rec(2 * k, l, m, lo, hi));
        }
        if hi > m {
            best = best.max(self.max_rec(2 * k + 1, m + 1, r, lo, hi));
        }
        best + self.add[k]
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
        let g = choose(&p, 3, &cands, false, true);
        assert_eq!(g.queue[0].vreg, VRegId(1));
        assert_eq!(g.chosen, vec![VRegId(2), VRegId(0), VRegId(3)]);
        let g = choose(&p, 3, &cands, true, true);
        // %3 was marked needs-spill: it goes first, then the cheapest that still help.
        assert_eq!(g.chosen, vec![VRegId(3), VRegId(2), VRegId(0)]);
        assert_eq!(g.peak_before, 5);
        assert_eq!(g.peak_after, 3);
        // Within target everywhere: fall back to the needs-spill vregs.
        let g = choose(&p, 9, &cands, false, true);
        assert!(g.fallback);
        assert_eq!(g.chosen, vec![VRegId(3)]);
        // Knob 622 off: no instruction walk, only the marked vreg, though pressure is over.
        let g = choose(&p, 3, &cands, false, false);
        assert_eq!(g.chosen, vec![VRegId(3)]);
        assert_eq!(g.peak_after, 4);
    }

    #[test]
    fn max_tree_matches_a_plain_array() {
        // Deterministic pseudo-random adds and queries over a length that is no power of two.
        let mut plain: Vec<i64> = (0..37).map(|i| (i * 7 % 11) as i64).collect();
        let init: Vec<u32> = plain.iter().map(|&v| v as u32).collect();
        let mut t = MaxTree::new(&init);
        let mut next = crate::util::lcg(12345);
        for _ in 0..500 {
            let (a, b) = (next(40) as u32, next(40) as u32);
            let (lo, hi) = (a.min(b), a.max(b));
            if next(2) == 0 {
                let d = next(5) as i32 - 3;
                t.add(lo, hi, d);
                for v in plain.iter_mut().take(hi.min(36) as usize + 1).skip(lo as usize) {
                    *v += d as i64;
                }
            } else {
                let want = if lo > 36 {
                    0
                } else {
                    plain[lo as usize..=hi.min(36) as usize].iter().copied().max().unwrap_or(0).max(0)
                };
                assert_eq!(t.max(lo, hi) as i64, want, "max({lo}, {hi})");
            }
            assert_eq!(t.max_all() as i64, plain.iter().copied().max().unwrap_or(0).max(0));
        }
    }
}
