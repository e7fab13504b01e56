//! Phase 2, Simplify, and the worklists of the main loop (seed 002, "Phase 2: Simplify",
//! "Worklist Structures", "Max-Heap Implementation for Simplify Worklist", "Priority
//! Updates During Simplification", "Tie-Breaking Rules", "Function 1: SimplifyAndColor").
//!
//! The simplify worklist is an indexed max-heap by priority — infinite for a Briggs-safe
//! node, `spill_cost / (degree × 0.8)` otherwise — then lower degree, then lower vreg id
//! (the seed's tie rules; its 1e-6 epsilon is dropped because an epsilon tie is not a
//! total order a heap can keep). The spill worklist is an indexed min-heap by the same
//! priority (`select_spill_candidate`'s rule; the seed also calls it "min-heap by
//! cost"), ties to the higher degree, then the lower id. The freeze worklist is a FIFO.
//!
//! Briggs-safe (seed "Phase 2" / "Complete" text): fewer than K neighbours of degree
//! ≥ K. The seed's data-structure section states the opposite test (at least K
//! neighbours of degree < K) and its assembly comment a third (`degree > 14` safe);
//! radbg follows the algorithm text, which contains the plain `degree < K` rule. The
//! count of high-degree neighbours is kept per node and updated as degrees fall, so the
//! test is O(1); degrees only fall, so a node never leaves the simplify list.
//!
//! Degrees and K are counted in colours (radbg's reading, so that `degree < K` still
//! guarantees a colour with pairs and quads): a node's K is the number of start colours
//! its class has in the window after its physical constraints (the seed's per-class K:
//! 15 for GPR32, 7 for GPR64 pairs), and a neighbour adds the number of those starts it
//! can cover ([`weight`]: 1 for a neighbour of the same width, 2 for a pair next to a
//! single). In a graph of 32-bit values this is exactly the seed's neighbour count.
//!
//! Knows the graph's adjacency and degrees; not how the graph was built or coloured.

use std::collections::VecDeque;

use crate::alloc::briggs::cost::CostModel;
use crate::alloc::briggs::graph::Graph;
use crate::alloc::briggs::select::{self, Window};
use crate::ir::VRegId;

/// K of node `v`: the start colours of its class in its file's window that its physical
/// constraints leave.
pub fn node_k(g: &Graph, windows: &[Window], v: usize) -> u32 {
    match windows.get(g.file[v].index()) {
        Some(w) => select::available(&w.regs, g.width[v], &g.physical[v]).len() as u32,
        None => 0,
    }
}

const NONE: u32 = u32::MAX;

/// A heap entry's key.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Key {
    pub priority: f64,
    pub degree: u32,
    pub id: u32,
}

/// An indexed binary heap of node ids with updatable keys.
#[derive(Clone, Debug)]
pub struct IndexedHeap {
    /// `true`: max-heap by priority (simplify); `false`: min-heap (spill).
    max: bool,
    items: Vec<Key>,
    pos: Vec<u32>,
}

impl IndexedHeap {
    pub fn new(n: usize, max: bool) -> IndexedHeap {
        IndexedHeap { max, items: Vec::new(), pos: vec![NONE; n] }
    }

    /// Whether `a` is served before `b`.
    pub fn before(&self, a: &Key, b: &Key) -> bool {
        if a.priority != b.priority {
            return if self.max { a.priority > b.priority } else { a.priority < b.priority };
        }
        if a.degree != b.degree {
            return if self.max { a.degree < b.degree } else { a.degree > b.degree };
        }
        a.id < b.id
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
    pub fn contains(&self, id: u32) -> bool {
        self.pos.get(id as usize).is_some_and(|&p| p != NONE)
    }
    pub fn peek(&self) -> Option<Key> {
        self.items.first().copied()
    }

    fn swap(&mut self, i: usize, j: usize) {
        self.items.swap(i, j);
        self.pos[self.items[i].id as usize] = i as u32;
        self.pos[self.items[j].id as usize] = j as u32;
    }

    fn up(&mut self, mut i: usize) {
        while i > 0 {
            let p = (i - 1) / 2;
            if !self.before(&self.items[i], &self.items[p]) {
                break;
            }
            self.swap(i, p);
            i = p;
        }
    }

    fn down(&mut self, mut i: usize) {
        loop {
            let (l, r) = (2 * i + 1, 2 * i + 2);
            let mut best = i;
            if l < self.items.len() && self.before(&self.items[l], &self.items[best]) {
                best = l;
            }
            if r < self.items.len() && self.before(&self.items[r], &self.items[best]) {
                best = r;
            }
            if best == i {
                break;
            }
            self.swap(i, best);
            i = best;
        }
    }

    /// Inserts or re-keys `key.id`.
    pub fn push(&mut self, key: Key) {
        let id = key.id as usize;
        if id >= self.pos.len() {
            self.pos.resize(id + 1, NONE);
        }
        match self.pos[id] {
            NONE => {
                self.items.push(key);
                let i = self.items.len() - 1;
                self.pos[id] = i as u32;
                self.up(i);
            }
            p => {
                self.items[p as usize] = key;
                self.up(p as usize);
                let q = self.pos[id] as usize;
                self.down(q);
            }
        }
    }

    pub fn pop(&mut self) -> Option<Key> {
        if self.items.is_empty() {
            return None;
        }
        let top = self.items[0];
        self.remove(top.id);
        Some(top)
    }

    pub fn remove(&mut self, id: u32) {
        let Some(&p) = self.pos.get(id as usize) else { return };
        if p == NONE {
            return;
        }
        let p = p as usize;
        let last = self.items.len() - 1;
        self.swap(p, last);
        self.items.pop();
        self.pos[id as usize] = NONE;
        if p < self.items.len() {
            // The entry moved into the hole may belong above or below it.
            let moved = self.items[p].id;
            self.up(p);
            let q = self.pos[moved as usize] as usize;
            self.down(q);
        }
    }

    /// The ids in the order they would be served.
    pub fn ordered(&self) -> Vec<u32> {
        let mut v = self.items.clone();
        v.sort_by(|a, b| {
            if self.before(a, b) {
                std::cmp::Ordering::Less
            } else if self.before(b, a) {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        });
        v.into_iter().map(|k| k.id).collect()
    }
}

/// How many start colours of a `wv`-wide node a `wn`-wide neighbour can cover: its range
/// touches at most `ceil((wn + max(av − an, 0)) / av)` aligned starts (alignments 1, 2, 4).
pub fn weight(wv: u8, wn: u8) -> u32 {
    let av = crate::alloc::briggs::select::align_of(wv) as u32;
    let an = crate::alloc::briggs::select::align_of(wn) as u32;
    (wn.max(1) as u32 + av.saturating_sub(an)).div_ceil(av)
}

/// Where a node is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    NotNode,
    /// Pre-coloured: always in the graph, never on a worklist.
    Precoloured,
    InGraph,
    /// An unspillable spill candidate waiting to go on top of the stack: still counted
    /// in its neighbours' degrees, since select will colour it first.
    Deferred,
    OnStack,
    /// Merged into another node by coalescing.
    Merged,
}

/// Which worklist a node is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum List {
    None,
    Simplify,
    Freeze,
    Spill,
}

/// The dynamic colouring state of one iteration.
#[derive(Clone, Debug)]
pub struct Work {
    /// Start colours each node may take (its class in its file's window, less its
    /// physical constraints).
    pub k: Vec<u32>,
    /// Colours the neighbours still in the graph can cover (see [`weight`]).
    pub degree: Vec<u32>,
    /// The same, counting only neighbours whose degree is ≥ their K.
    pub high: Vec<u32>,
    pub width: Vec<u8>,
    pub status: Vec<Status>,
    pub list: Vec<List>,
    /// Coalescing representative (itself when not merged).
    pub rep: Vec<u32>,
    pub cost: Vec<f64>,
    pub simplify: IndexedHeap,
    pub spill: IndexedHeap,
    pub freeze: VecDeque<u32>,
    /// The colouring stack, bottom first.
    pub stack: Vec<VRegId>,
    /// Unspillable spill candidates, set aside to go on top of the stack once the main
    /// loop ends, so that select colours them before any spillable node (radbg's rule:
    /// the seed's only unspillable nodes are pre-coloured).
    pub deferred: Vec<VRegId>,
    /// Pushed by the spill phase (an optimistic candidate).
    pub candidate: Vec<bool>,
    pub colour: Vec<Option<u16>>,
    /// Infinite spill cost: pinned, spill code, exit-live, or a range spilling cannot
    /// shorten (no definition or no use).
    pub unspillable: Vec<bool>,
    /// Reload/rematerialization temporaries and already spilled vregs: never coalesced.
    pub spill_code: Vec<bool>,
    pub model: CostModel,
}

impl Work {
    /// Initial state: degrees from the adjacency, K per node, pre-colours in place.
    pub fn new(
        g: &Graph,
        windows: &[Window],
        cost: Vec<f64>,
        unspillable: Vec<bool>,
        spill_code: Vec<bool>,
        model: CostModel,
    ) -> Work {
        let n = g.node.len();
        let k: Vec<u32> = (0..n).map(|v| node_k(g, windows, v)).collect();
        let status: Vec<Status> = (0..n)
            .map(|v| match (g.node[v], g.precolour[v]) {
                (false, _) => Status::NotNode,
                (true, Some(_)) => Status::Precoloured,
                (true, None) => Status::InGraph,
            })
            .collect();
        let degree = (0..n).map(|v| g.adj[v].iter().map(|&t| weight(g.width[v], g.width[t as usize])).sum()).collect();
        Work {
            k,
            degree,
            high: vec![0; n],
            width: g.width.clone(),
            status,
            list: vec![List::None; n],
            rep: (0..n as u32).collect(),
            cost,
            simplify: IndexedHeap::new(n, true),
            spill: IndexedHeap::new(n, false),
            freeze: VecDeque::new(),
            stack: Vec::new(),
            deferred: Vec::new(),
            candidate: vec![false; n],
            colour: g.precolour.clone(),
            unspillable,
            spill_code,
            model,
        }
    }

    /// The node a vreg's node was merged into (itself when not merged).
    pub fn find(&self, mut v: u32) -> u32 {
        while let Some(&r) = self.rep.get(v as usize) {
            if r == v {
                break;
            }
            v = r;
        }
        v
    }

    /// Whether a node still counts as a neighbour (in the graph or pre-coloured).
    pub fn present(&self, v: u32) -> bool {
        matches!(self.status[v as usize], Status::InGraph | Status::Precoloured | Status::Deferred)
    }

    pub fn is_high(&self, v: u32) -> bool {
        self.degree[v as usize] >= self.k[v as usize]
    }

    /// Briggs-safe: fewer than K neighbours of degree ≥ K. A node that cannot be spilled
    /// must pass the plain `degree < K` test instead: Briggs-safety does not guarantee
    /// a colour, and an unspillable node that finds none ends the allocation.
    pub fn briggs_safe(&self, v: u32) -> bool {
        let vi = v as usize;
        if self.unspillable[vi] { self.degree[vi] < self.k[vi] } else { self.high[vi] < self.k[vi] }
    }

    pub fn priority(&self, v: u32) -> f64 {
        if self.briggs_safe(v) {
            f64::INFINITY
        } else {
            self.model.priority(self.cost[v as usize], self.degree[v as usize])
        }
    }

    fn key(&self, v: u32) -> Key {
        Key { priority: self.priority(v), degree: self.degree[v as usize], id: v }
    }

    /// Counts high-degree neighbours of every node (after coalescing, before the main loop).
    pub fn count_high(&mut self, g: &Graph) {
        for v in 0..g.node.len() {
            if !self.present(v as u32) {
                continue;
            }
            self.high[v] = g.adj[v]
                .iter()
                .filter(|&&n| self.present(n) && self.is_high(n))
                .map(|&n| weight(self.width[v], self.width[n as usize]))
                .sum();
        }
    }

    pub fn push_simplify(&mut self, v: u32) {
        self.list[v as usize] = List::Simplify;
        let k = self.key(v);
        self.simplify.push(k);
    }

    pub fn push_spill(&mut self, v: u32) {
        self.list[v as usize] = List::Spill;
        let k = self.key(v);
        self.spill.push(k);
    }

    pub fn push_freeze(&mut self, v: u32) {
        self.list[v as usize] = List::Freeze;
        self.freeze.push_back(v);
    }

    /// Takes `v` out of the graph onto the colouring stack and lowers its neighbours'
    /// degrees, moving those that become Briggs-safe to the simplify worklist (seed
    /// "update_neighbor_degrees", "update_priorities_after_removal").
    pub fn remove(&mut self, g: &Graph, v: u32) {
        let vi = v as usize;
        let was_high = self.is_high(v);
        self.list[vi] = List::None;
        self.simplify.remove(v);
        self.spill.remove(v);
        if self.candidate[vi] && self.unspillable[vi] {
            self.status[vi] = Status::Deferred;
            self.deferred.push(VRegId(v));
            return;
        }
        self.status[vi] = Status::OnStack;
        self.stack.push(VRegId(v));
        for &n in &g.adj[vi] {
            if !self.present(n) {
                continue;
            }
            let ni = n as usize;
            let wt = weight(self.width[ni], self.width[vi]);
            if was_high {
                self.high[ni] = self.high[ni].saturating_sub(wt);
            }
            let before = self.is_high(n);
            self.degree[ni] = self.degree[ni].saturating_sub(wt);
            if before && !self.is_high(n) {
                // `n` stops being high: its neighbours count it out of their high sums.
                for &m in &g.adj[ni] {
                    if self.present(m) {
                        let wm = weight(self.width[m as usize], self.width[ni]);
                        self.high[m as usize] = self.high[m as usize].saturating_sub(wm);
                        self.requeue(m);
                    }
                }
            }
            self.requeue(n);
        }
    }

    /// Re-keys a node after its degree or high count changed.
    fn requeue(&mut self, n: u32) {
        match self.list[n as usize] {
            List::Simplify => {
                let k = self.key(n);
                self.simplify.push(k);
            }
            List::Spill => {
                // The spill heap is re-keyed lazily (`pop_spill`): a falling degree only
                // raises a node's priority, so a stored key is never later than the true one.
                if self.briggs_safe(n) {
                    self.spill.remove(n);
                    self.push_simplify(n);
                }
            }
            List::Freeze => {
                if self.briggs_safe(n) {
                    // The FIFO entry goes stale; `pop_freeze` skips it.
                    self.push_simplify(n);
                }
            }
            List::None => {}
        }
    }

    /// The cheapest spill candidate by its current key (stale keys are refreshed and
    /// pushed back until the minimum is current).
    pub fn pop_spill(&mut self) -> Option<Key> {
        loop {
            let stored = self.spill.pop()?;
            let now = self.key(stored.id);
            if now == stored || !self.spill.before(&stored, &now) {
                return Some(now);
            }
            self.spill.push(now);
        }
    }

    /// The spill worklist in the order it will be served (current keys).
    pub fn spill_order(&self) -> Vec<u32> {
        let mut h = IndexedHeap::new(0, false);
        for id in self.spill.ordered() {
            h.push(self.key(id));
        }
        h.ordered()
    }

    /// The next live freeze entry.
    pub fn pop_freeze(&mut self) -> Option<u32> {
        while let Some(v) = self.freeze.pop_front() {
            if self.list[v as usize] == List::Freeze {
                self.list[v as usize] = List::None;
                return Some(v);
            }
        }
        None
    }

    /// Freeze entries still live, in FIFO order.
    pub fn freeze_order(&self) -> Vec<u32> {
        let mut seen = vec![false; self.list.len()];
        let mut out = Vec::new();
        for &v in &self.freeze {
            if self.list[v as usize] == List::Freeze && !seen[v as usize] {
                seen[v as usize] = true;
                out.push(v);
            }
        }
        out
    }

    /// Whether a live freeze entry waits (drops stale entries from the front).
    pub fn has_freeze(&mut self) -> bool {
        while let Some(&v) = self.freeze.front() {
            if self.list[v as usize] == List::Freeze {
                return true;
            }
            self.freeze.pop_front();
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heaps_follow_the_tie_rules_and_rekey() {
        let mut h = IndexedHeap::new(8, true);
        for (id, p, d) in [(0, 1.0, 3), (1, f64::INFINITY, 5), (2, f64::INFINITY, 2), (3, f64::INFINITY, 2)] {
            h.push(Key { priority: p, degree: d, id });
        }
        assert_eq!(h.ordered(), vec![2, 3, 1, 0]);
        h.push(Key { priority: f64::INFINITY, degree: 1, id: 1 });
        assert_eq!(h.pop().map(|k| k.id), Some(1));
        h.remove(2);
        assert_eq!(h.pop().map(|k| k.id), Some(3));
        assert_eq!(h.pop().map(|k| k.id), Some(0));
        assert!(h.pop().is_none());
        let mut s = IndexedHeap::new(4, false);
        for (id, p, d) in [(0, 2.0, 3), (1, 1.0, 3), (2, 1.0, 9)] {
            s.push(Key { priority: p, degree: d, id });
        }
        assert_eq!(s.ordered(), vec![2, 1, 0]);
    }

    #[test]
    fn weights_count_the_starts_a_neighbour_can_cover() {
        assert_eq!(weight(1, 1), 1);
        assert_eq!(weight(1, 2), 2);
        assert_eq!(weight(1, 4), 4);
        assert_eq!(weight(2, 1), 1);
        assert_eq!(weight(2, 2), 1);
        assert_eq!(weight(2, 4), 2);
        assert_eq!(weight(4, 1), 1);
        assert_eq!(weight(4, 2), 1);
        assert_eq!(weight(4, 8), 2);
    }

    #[test]
    fn heap_stays_a_heap_under_random_updates() {
        let mut h = IndexedHeap::new(64, false);
        let mut x = 12345u64;
        let mut model: Vec<Option<Key>> = vec![None; 64];
        for _ in 0..2000 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let id = (x >> 33) as u32 % 64;
            match (x >> 20) % 3 {
                0 | 1 => {
                    let k = Key { priority: ((x >> 40) % 7) as f64, degree: ((x >> 50) % 5) as u32, id };
                    h.push(k);
                    model[id as usize] = Some(k);
                }
                _ => {
                    h.remove(id);
                    model[id as usize] = None;
                }
            }
            let mut want: Vec<Key> = model.iter().flatten().copied().collect();
            want.sort_by(|a, b| {
                (a.priority, std::cmp::Reverse(a.degree), a.id)
                    .partial_cmp(&(b.priority, std::cmp::Reverse(b.degree), b.id))
                    .unwrap()
            });
            assert_eq!(h.peek().map(|k| k.id), want.first().map(|k| k.id));
        }
    }
}
