//! An order-maintenance list for the passes that move instructions one at a time
//! (`sink`, `schedule`'s early issue): instructions are added to a linked list at either
//! end, or right before or after one already in it, and any two compare by position in
//! O(1) through integer labels. A label falls between its neighbours'; when two
//! neighbours have no integer left between them, the smallest aligned label range around
//! them that is sparse enough is labelled afresh, evenly (Bender, Cole, Demaine,
//! Farach-Colton, Zito 2002, "Two simplified algorithms for maintaining order in a
//! list": a range of 2^i labels qualifies with at most 2^(i/2) items; amortised
//! O(log n) per insertion). Relabelling the whole list each time (O(n) per 20 nested
//! insertions at one place) was the bulk of `sink`'s plan on the scale kernel (issue 25).
//!
//! It replaces moving `Inst`s inside a `Vec` and rescanning the block for each move,
//! which is O(moves × block length): a synthetic block of 20 000 hoisted shared loads
//! took over a minute in `sink`.
//!
//! [`MovePlan`]: those passes look for the number of moves that fits a register target by
//! a binary search over "the first `k` moves in layout order". A list only ever gains
//! items — none moves once placed — so the order after the first `k` moves of a block is
//! the unlimited run's final order restricted to the instructions seen by then, the rest
//! in their own order: one unlimited run answers every `k` (issue 25: the scale kernel's
//! early issue re-ran the whole pass and cloned the function for each of its 18 probes).

use crate::ir::{Function, Inst, VRegId};

/// Labels start in the middle of the range and step by `GAP` at the ends.
const GAP: u64 = 1 << 20;
const START: u64 = 1 << 62;

pub struct OrderList {
    next: Vec<Option<u32>>,
    prev: Vec<Option<u32>>,
    label: Vec<u64>,
    head: Option<u32>,
    tail: Option<u32>,
}

impl OrderList {
    /// An empty list over the items `0..n`.
    pub fn new(n: usize) -> OrderList {
        OrderList { next: vec![None; n], prev: vec![None; n], label: vec![0; n], head: None, tail: None }
    }

    /// Whether item `a` comes before item `b` (both in the list).
    pub fn before(&self, a: usize, b: usize) -> bool {
        self.label[a] < self.label[b]
    }

    pub fn head(&self) -> Option<usize> {
        self.head.map(|h| h as usize)
    }

    pub fn tail(&self) -> Option<usize> {
        self.tail.map(|t| t as usize)
    }

    pub fn next(&self, x: usize) -> Option<usize> {
        self.next[x].map(|y| y as usize)
    }

    pub fn prev(&self, x: usize) -> Option<usize> {
        self.prev[x].map(|y| y as usize)
    }

    pub fn push_front(&mut self, x: usize) {
        match self.head {
            None => self.first(x),
            Some(h) => self.insert_before(x, h as usize),
        }
    }

    pub fn push_back(&mut self, x: usize) {
        match self.tail {
            None => self.first(x),
            Some(t) => self.insert_after(x, t as usize),
        }
    }

    /// Puts `x` right before `at`.
    pub fn insert_before(&mut self, x: usize, at: usize) {
        match self.prev[at] {
            Some(p) => self.insert_after(x, p as usize),
            None => {
                if self.label[at] < GAP {
                    self.relabel();
                }
                self.label[x] = self.label[at] - GAP;
                self.link(None, x, Some(at));
            }
        }
    }

    /// Puts `x` right after `at`.
    pub fn insert_after(&mut self, x: usize, at: usize) {
        match self.next[at] {
            None => {
                if self.label[at] > u64::MAX - GAP {
                    self.relabel();
                }
                self.label[x] = self.label[at] + GAP;
                self.link(Some(at), x, None);
            }
            Some(n) => {
                let n = n as usize;
                if self.label[n] - self.label[at] < 2 {
                    self.make_room_after(at);
                }
                self.label[x] = self.label[at] + (self.label[n] - self.label[at]) / 2;
                self.link(Some(at), x, Some(n));
            }
        }
    }

    /// The items in list order.
    pub fn order(&self) -> Vec<usize> {
        let mut out = Vec::with_capacity(self.next.len());
        let mut at = self.head;
        while let Some(x) = at {
            out.push(x as usize);
            at = self.next[x as usize];
        }
        out
    }

    fn first(&mut self, x: usize) {
        self.label[x] = START;
        self.link(None, x, None);
    }

    fn link(&mut self, p: Option<usize>, x: usize, n: Option<usize>) {
        self.prev[x] = p.map(|p| p as u32);
        self.next[x] = n.map(|n| n as u32);
        match p {
            Some(p) => self.next[p] = Some(x as u32),
            None => self.head = Some(x as u32),
        }
        match n {
            Some(n) => self.prev[n] = Some(x as u32),
            None => self.tail = Some(x as u32),
        }
    }

    /// Makes room between `at` and the item after it: the items of the smallest aligned
    /// range of 2^i labels around `at`'s that holds at most 2^(i/2) of them get labels
    /// spread evenly over it (module doc). The range is grown outwards from `at`, so the
    /// cost is the number of items relabelled.
    fn make_room_after(&mut self, at: usize) {
        let own = u128::from(self.label[at]);
        let (mut first, mut last, mut count) = (at, at, 1u128);
        for i in 1..=64u32 {
            let size = 1u128 << i;
            let lo = own & !(size - 1);
            while let Some(p) = self.prev[first].map(|p| p as usize).filter(|&p| u128::from(self.label[p]) >= lo) {
                first = p;
                count += 1;
            }
            while let Some(n) = self.next[last].map(|n| n as usize).filter(|&n| u128::from(self.label[n]) < lo + size) {
                last = n;
                count += 1;
            }
            // At most 2^(i/2) items (and so a gap of 2 or more between labels).
            if count * count <= size {
                crate::work::add(count as u64);
                let gap = size / count;
                let (mut x, mut l) = (first, lo);
                loop {
                    // Below 2^64: `lo + (count - 1) · gap < lo + size`.
                    self.label[x] = l as u64;
                    if x == last {
                        break;
                    }
                    x = self.next[x].map_or(last, |y| y as usize);
                    l += gap;
                }
                return;
            }
        }
        self.relabel();
    }

    /// Labels every item afresh, `GAP` apart, around the middle of the range.
    fn relabel(&mut self) {
        crate::work::add(self.next.len() as u64);
        let items = self.order();
        let base = START - (items.len() as u64 / 2) * GAP;
        for (k, &x) in items.iter().enumerate() {
            self.label[x] = base + k as u64 * GAP;
        }
    }
}

/// A map from vreg to an instruction index over a vector indexed by vreg, emptied by
/// undoing only what was set: made once per function and reused block after block, where
/// a `BTreeMap` per block cost a tree walk per operand (issue 25).
pub struct VregSlots {
    at: Vec<u32>,
    touched: Vec<u32>,
}

const EMPTY: u32 = u32::MAX;

impl VregSlots {
    /// Room for vregs `0..n` (it grows for higher ones).
    pub fn new(n: usize) -> VregSlots {
        VregSlots { at: vec![EMPTY; n], touched: Vec::new() }
    }

    pub fn get(&self, v: VRegId) -> Option<usize> {
        self.at.get(v.index()).copied().filter(|&x| x != EMPTY).map(|x| x as usize)
    }

    pub fn insert(&mut self, v: VRegId, x: usize) {
        let i = v.index();
        if i >= self.at.len() {
            self.at.resize(i + 1, EMPTY);
        }
        if self.at[i] == EMPTY {
            self.touched.push(i as u32);
        }
        self.at[i] = x as u32;
    }

    pub fn clear(&mut self) {
        for &i in &self.touched {
            self.at[i as usize] = EMPTY;
        }
        self.touched.clear();
    }
}

/// Two [`VregSlots`] a move pass keeps per vreg (its readers and writers so far).
pub type Slots = [VregSlots; 2];

/// One block's unlimited run of a move pass: the final order (instruction indices) and
/// the index of each instruction that moved, in the order the pass visited them.
pub struct BlockMoves {
    pub order: Vec<usize>,
    pub moved: Vec<usize>,
}

/// A move pass's unlimited run over a function's blocks, answering "the first `k` moves
/// in layout order" for any `k` (module doc). `top_down`: the pass visits a block first
/// to last (`schedule`'s early issue) or last to first (`sink`).
pub struct MovePlan {
    blocks: Vec<BlockMoves>,
    top_down: bool,
}

impl MovePlan {
    /// `per_block(insts, slots)` runs the pass on one block without a limit, `slots`
    /// empty on entry.
    pub fn new(f: &Function, per_block: fn(&[Inst], &mut Slots) -> BlockMoves, top_down: bool) -> MovePlan {
        let mut slots = [VregSlots::new(f.vregs.len()), VregSlots::new(f.vregs.len())];
        let blocks = f
            .blocks
            .iter()
            .map(|b| {
                let m = per_block(&b.insts, &mut slots);
                slots.iter_mut().for_each(VregSlots::clear);
                m
            })
            .collect();
        MovePlan { blocks, top_down }
    }

    /// How many moves the unlimited run makes.
    pub fn total(&self) -> usize {
        self.blocks.iter().map(|b| b.moved.len()).sum()
    }

    /// Per block, how many of the first `k` moves (blocks in layout order) it makes.
    pub fn split(&self, k: usize) -> impl Iterator<Item = usize> + '_ {
        let mut left = k;
        self.blocks.iter().map(move |b| {
            let here = b.moved.len().min(left);
            left -= here;
            here
        })
    }

    /// Block `b`'s order under a limit of `limit` moves in it; `None` when it keeps its
    /// own order. Top-down, instructions after the last move allowed are appended in
    /// their order; bottom-up, the ones before it are put in front.
    pub fn block_order(&self, b: usize, limit: usize) -> Option<Vec<usize>> {
        let m = &self.blocks[b];
        if limit == 0 || m.moved.is_empty() {
            return None;
        }
        if limit >= m.moved.len() {
            return Some(m.order.clone());
        }
        let last = m.moved[limit - 1];
        let n = m.order.len();
        Some(if self.top_down {
            m.order.iter().copied().filter(|&x| x <= last).chain(last + 1..n).collect()
        } else {
            (0..last).chain(m.order.iter().copied().filter(|&x| x >= last)).collect()
        })
    }
}

/// A copy of a function whose blocks are put, in place, in the order of a plan's first
/// `k` moves for one `k` after another: the instructions are moved, never cloned again.
pub struct Planned {
    f: Function,
    /// Per block, its current order in the original's indices (`None`: unchanged).
    current: Vec<Option<Vec<usize>>>,
}

impl Planned {
    pub fn new(f: &Function) -> Planned {
        Planned::from_copy(f.clone())
    }

    /// [`Planned::new`] on a copy the caller already made (the function as the plan was
    /// made from).
    pub fn from_copy(f: Function) -> Planned {
        Planned { current: vec![None; f.blocks.len()], f }
    }

    /// The function with the first `k` moves of `plan` (blocks in layout order); and how
    /// many that is (fewer when the plan has fewer).
    pub fn apply(&mut self, plan: &MovePlan, k: usize) -> (&Function, usize) {
        let mut made = 0;
        for ((b, blk), here) in self.f.blocks.iter_mut().enumerate().zip(plan.split(k)) {
            made += here;
            let want = plan.block_order(b, here);
            if want == self.current[b] {
                continue;
            }
            let n = blk.insts.len();
            crate::work::add(n as u64);
            // Where each original instruction is now.
            let mut at = vec![0usize; n];
            match &self.current[b] {
                Some(cur) => cur.iter().enumerate().for_each(|(p, &o)| at[o] = p),
                None => at.iter_mut().enumerate().for_each(|(p, x)| *x = p),
            }
            let rel: Vec<usize> = match &want {
                Some(w) => w.iter().map(|&o| at[o]).collect(),
                None => (0..n).map(|o| at[o]).collect(),
            };
            crate::prepass::permute(&mut blk.insts, rel);
            self.current[b] = want;
        }
        (&self.f, made)
    }

    /// The function as last applied.
    pub fn function(&self) -> &Function {
        &self.f
    }

    /// The function as last applied.
    pub fn into_function(self) -> Function {
        self.f
    }
}

/// Applies a per-block move pass (`sink_moves`, `hoist_moves`) to `insts` in place under
/// `limit`, with fresh slots; the number of instructions moved. The tests' entry point.
#[cfg(test)]
pub(crate) fn apply_block(
    insts: &mut Vec<crate::ir::Inst>,
    limit: usize,
    moves: fn(&[crate::ir::Inst], &mut Slots, usize) -> BlockMoves,
) -> usize {
    let m = moves(insts, &mut [VregSlots::new(0), VregSlots::new(0)], limit);
    if !m.moved.is_empty() {
        crate::prepass::permute(insts, m.order);
    }
    m.moved.len()
}

#[cfg(test)]
mod tests {
    use super::OrderList;

    /// Random insertions (either end, before or after a random item) against a `Vec`
    /// kept in the same order: the order and every comparison agree.
    #[test]
    fn agrees_with_a_vec_under_random_insertions() {
        let mut x: u64 = 11;
        let mut rnd = |m: usize| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((x >> 33) as usize) % m
        };
        for n in [2usize, 50, 3000] {
            let mut l = OrderList::new(n);
            let mut want: Vec<usize> = Vec::new();
            for item in 0..n {
                if want.is_empty() {
                    l.push_back(item);
                    want.push(item);
                    continue;
                }
                // Mostly at a few hot places, as the passes insert.
                let at = if rnd(4) == 0 { rnd(want.len()) } else { want.len() / 2 };
                match rnd(4) {
                    0 => {
                        l.push_front(item);
                        want.insert(0, item);
                    }
                    1 => {
                        l.push_back(item);
                        want.push(item);
                    }
                    2 => {
                        l.insert_before(item, want[at]);
                        want.insert(at, item);
                    }
                    _ => {
                        l.insert_after(item, want[at]);
                        want.insert(at + 1, item);
                    }
                }
            }
            assert_eq!(l.order(), want, "n = {n}");
            for w in want.windows(2) {
                assert!(l.before(w[0], w[1]) && !l.before(w[1], w[0]));
            }
        }
    }

    /// Nested insertions at one place cost O(log n) each, amortised: the work counted
    /// (items relabelled) per insertion stays small where relabelling the whole list
    /// cost O(n) per 20 insertions.
    #[test]
    fn nested_insertions_relabel_locally() {
        let per_insertion = |n: usize| {
            let mut l = OrderList::new(n);
            l.push_back(0);
            l.push_back(1);
            crate::work::take();
            for x in 2..n {
                l.insert_before(x, 1);
            }
            crate::work::take() as f64 / n as f64
        };
        let (small, large) = (per_insertion(20_000), per_insertion(40_000));
        assert!(large < 64.0, "{large} items relabelled per insertion");
        assert!(large <= small * 1.2 + 1.0, "{small} → {large} per insertion");
    }

    #[test]
    fn keeps_order_through_nested_insertions_and_relabels() {
        let n = 200;
        let mut l = OrderList::new(n);
        l.push_back(0);
        l.push_back(1);
        // 198 insertions, each right before item 1: more than the labels between 0 and
        // 1 allow without relabelling.
        for x in 2..n {
            l.insert_before(x, 1);
        }
        let mut want: Vec<usize> = vec![0];
        want.extend(2..n);
        want.push(1);
        assert_eq!(l.order(), want);
        for w in want.windows(2) {
            assert!(l.before(w[0], w[1]));
        }
        assert_eq!((l.head(), l.tail(), l.prev(1), l.next(0)), (Some(0), Some(1), Some(n - 1), Some(2)));
    }
}
