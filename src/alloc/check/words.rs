//! The 32-bit words of the spill area the checker tracks, numbered densely: the index
//! the spill-slot dataflow (`spill`, `avail`) keys its state by.
//!
//! Every spill store and reload looks its words up here, so the lookup is the hot path of
//! rule 6. The allocator's slots are 4-byte aligned and start at 0, so an aligned
//! in-range address is one vector read; anything else (hand-written spill code at odd or
//! negative offsets) goes to an ordered map. Knows nothing of values or instructions.

use std::collections::BTreeMap;

/// Byte offsets below this (4-aligned) are indexed by a vector per space: a 1 MiB pool,
/// ptxas's largest spill area in the model (`alloc::spill::SlotConfig::max_pool`), costs
/// 1 MiB of index per space at most; the vector grows only as far as the slots reach.
const DENSE_BYTES: i64 = 1 << 20;

const NONE: u32 = u32::MAX;

/// (space, byte offset) -> word index, indices handed out in insertion order.
#[derive(Default)]
pub(super) struct WordIndex {
    /// Per space (local, shared): word index by `offset / 4`, `NONE` where absent.
    dense: [Vec<u32>; 2],
    sparse: BTreeMap<(bool, i64), u32>,
    len: u32,
}

impl WordIndex {
    pub(super) fn len(&self) -> usize {
        self.len as usize
    }

    /// The index of a word, added when new.
    pub(super) fn insert(&mut self, shared: bool, addr: i64) -> u32 {
        if let Some(w) = self.get(shared, addr) {
            return w;
        }
        let w = self.len;
        self.len += 1;
        if (0..DENSE_BYTES).contains(&addr) && addr % 4 == 0 {
            let v = &mut self.dense[shared as usize];
            let i = (addr / 4) as usize;
            if v.len() <= i {
                v.resize(i + 1, NONE);
            }
            v[i] = w;
        } else {
            self.sparse.insert((shared, addr), w);
        }
        w
    }

    #[inline]
    pub(super) fn get(&self, shared: bool, addr: i64) -> Option<u32> {
        if (0..DENSE_BYTES).contains(&addr) && addr % 4 == 0 {
            self.dense[shared as usize].get((addr / 4) as usize).copied().filter(|&w| w != NONE)
        } else {
            self.sparse.get(&(shared, addr)).copied()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dense_and_sparse_words_share_one_numbering() {
        let mut w = WordIndex::default();
        assert_eq!(w.insert(false, 8), 0);
        assert_eq!(w.insert(true, 8), 1);
        assert_eq!(w.insert(false, -4), 2);
        assert_eq!(w.insert(false, 6), 3);
        assert_eq!(w.insert(false, DENSE_BYTES), 4);
        assert_eq!(w.insert(false, 8), 0);
        assert_eq!(w.len(), 5);
        assert_eq!(w.get(false, 8), Some(0));
        assert_eq!(w.get(true, 8), Some(1));
        assert_eq!(w.get(false, 4), None);
        assert_eq!(w.get(true, 4000), None);
        assert_eq!(w.get(false, -4), Some(2));
        assert_eq!(w.get(false, 6), Some(3));
        assert_eq!(w.get(false, DENSE_BYTES), Some(4));
        assert_eq!(w.get(false, i64::MIN), None);
    }
}
