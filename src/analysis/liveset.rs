//! `LiveSet`: a set of virtual registers of one function (all register files), as a
//! bitvector indexed by `VRegId`. The value type every liveness query returns.
//!
//! Knows vreg ids and widths only; nothing of blocks, solving or allocation.

use bitvec::prelude::*;

use crate::analysis::bits;
use crate::ir::model::{Function, RegFile, VRegId};

/// A set of vregs. Iteration is ascending by id, so output built from it is deterministic.
#[derive(Clone, PartialEq, Eq, Default)]
pub struct LiveSet {
    bits: BitVec<u64, Lsb0>,
}

impl LiveSet {
    /// The empty set over a function with `nvregs` vregs. Counts its words as work
    /// (`radbg::work`, issue 25): a set made per block or per instruction over every
    /// vreg is the superlinear term the complexity tests look for.
    pub fn new(nvregs: usize) -> LiveSet {
        crate::work::add(nvregs.div_ceil(64) as u64);
        LiveSet { bits: BitVec::repeat(false, nvregs) }
    }

    /// The set of `ids` (ids out of range are ignored).
    pub fn from_ids(nvregs: usize, ids: impl IntoIterator<Item = VRegId>) -> LiveSet {
        let mut s = LiveSet::new(nvregs);
        for v in ids {
            s.insert(v);
        }
        s
    }

    /// The number of vregs the set ranges over.
    pub fn capacity(&self) -> usize {
        self.bits.len()
    }

    pub fn contains(&self, v: VRegId) -> bool {
        self.bits.get(v.index()).is_some_and(|b| *b)
    }

    /// Adds `v`; returns whether it was absent. Ids out of range are ignored.
    #[inline]
    pub fn insert(&mut self, v: VRegId) -> bool {
        let i = v.index();
        if i >= self.bits.len() {
            return false;
        }
        let w = self.bits.as_raw_mut_slice();
        let was = bits::test(w, i);
        bits::set(w, i);
        !was
    }

    /// Removes `v`; returns whether it was present.
    #[inline]
    pub fn remove(&mut self, v: VRegId) -> bool {
        let i = v.index();
        if i >= self.bits.len() {
            return false;
        }
        let w = self.bits.as_raw_mut_slice();
        let was = bits::test(w, i);
        bits::clear(w, i);
        was
    }

    /// The members, ascending.
    pub fn iter(&self) -> impl Iterator<Item = VRegId> + '_ {
        self.bits.as_raw_slice().iter().enumerate().flat_map(|(k, &word)| {
            let mut x = word;
            std::iter::from_fn(move || {
                if x == 0 {
                    return None;
                }
                let t = x.trailing_zeros() as usize;
                x &= x - 1;
                Some(VRegId::new(k * 64 + t))
            })
        })
    }

    /// Number of vregs in the set.
    pub fn len(&self) -> usize {
        bits::popcount(self.bits.as_raw_slice())
    }

    pub fn is_empty(&self) -> bool {
        self.bits.as_raw_slice().iter().all(|&w| w == 0)
    }

    /// Adds every member of `other` (word at a time).
    pub fn union_with(&mut self, other: &LiveSet) {
        bits::or(self.bits.as_raw_mut_slice(), other.bits.as_raw_slice());
    }

    /// Removes every member.
    pub fn clear(&mut self) {
        self.bits.as_raw_mut_slice().fill(0);
    }

    /// Register pressure of the members in `file`: the sum of their widths in 32-bit
    /// registers (a pair counts 2, a quad 4; predicates 1 each).
    pub fn weight(&self, f: &Function, file: RegFile) -> u32 {
        self.iter().filter_map(|v| f.vregs.get(v.index())).filter(|r| r.file() == file).map(|r| r.width as u32).sum()
    }

    /// The members of `file` only.
    pub fn of_file(&self, f: &Function, file: RegFile) -> LiveSet {
        let mut s = LiveSet::new(self.capacity());
        for v in self.iter() {
            if f.vregs.get(v.index()).is_some_and(|r| r.file() == file) {
                s.insert(v);
            }
        }
        s
    }

    /// The members' names, ascending by id: `{%r0, %rd1}`.
    pub fn names(&self, f: &Function) -> String {
        let names: Vec<&str> = self.iter().filter_map(|v| f.vregs.get(v.index())).map(|r| r.name.as_ref()).collect();
        format!("{{{}}}", names.join(", "))
    }

    /// The underlying bits, indexed by `VRegId`.
    pub fn as_bitslice(&self) -> &BitSlice<u64, Lsb0> {
        &self.bits
    }
}

impl std::fmt::Debug for LiveSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set().entries(self.iter().map(|v| v.0)).finish()
    }
}
