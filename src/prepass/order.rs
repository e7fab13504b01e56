//! An order-maintenance list for the passes that move instructions one at a time
//! (`sink`, `schedule`'s early issue): instructions are added to a linked list at either
//! end, or right before or after one already in it, and any two compare by position in
//! O(1) through integer labels. A label falls between its neighbours'; when two
//! neighbours have no integer left between them, the whole list is labelled afresh
//! (O(n), and then at least 2^20 / 2 … 20 nested insertions at one place before the next).
//!
//! It replaces moving `Inst`s inside a `Vec` and rescanning the block for each move,
//! which is O(moves × block length): a synthetic block of 20 000 hoisted shared loads
//! took over a minute in `sink`.

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
                    self.relabel();
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

    /// Labels every item afresh, `GAP` apart, around the middle of the range.
    fn relabel(&mut self) {
        let items = self.order();
        let base = START - (items.len() as u64 / 2) * GAP;
        for (k, &x) in items.iter().enumerate() {
            self.label[x] = base + k as u64 * GAP;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::OrderList;

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
