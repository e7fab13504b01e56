//! Per-physical-register occupancy: for every slot of a register file, the positions at
//! which it holds a value. This is the "fat point" representation of seed 000
//! ("There is no explicit interference graph in the main allocation path; instead,
//! per-physical-register pressure histograms serve as the conflict representation"):
//! the histogram of a vreg is filled by intersecting its live positions with each
//! slot's occupancy.
//!
//! Two layers per slot: `vregs` (assigned virtual registers) and `phys` (physical
//! operands and call clobbers — what a type-1 Exclude-one constraint forbids).

/// Occupancy: one bitset row of `words` u64 per slot for vregs; physical uses are
/// rare, so they are kept as a sorted position list per slot.
#[derive(Clone, Debug, PartialEq)]
pub struct Occupancy {
    pub slots: usize,
    words: usize,
    vregs: Vec<u64>,
    phys: Vec<Vec<u32>>,
}

impl Occupancy {
    pub fn new(slots: usize, positions: u32) -> Occupancy {
        let words = (positions as usize).div_ceil(64).max(1);
        Occupancy { slots, words, vregs: vec![0; slots * words], phys: vec![Vec::new(); slots] }
    }

    fn row(&self, slot: usize) -> std::ops::Range<usize> {
        slot * self.words..(slot + 1) * self.words
    }

    /// Marks `slot` as holding a vreg over the runs.
    pub fn occupy(&mut self, slot: usize, segs: &[(u32, u32)]) {
        if slot >= self.slots {
            return;
        }
        let r = self.row(slot);
        set_runs(&mut self.vregs[r], segs, true);
    }

    /// Removes a vreg's runs from `slot` (used when an assignment is undone).
    pub fn release(&mut self, slot: usize, segs: &[(u32, u32)]) {
        if slot >= self.slots {
            return;
        }
        let r = self.row(slot);
        set_runs(&mut self.vregs[r], segs, false);
    }

    /// Marks a physical use of `slot` at one position (a physical operand or a clobber).
    pub fn occupy_phys(&mut self, slot: usize, pos: u32) {
        if slot >= self.slots {
            return;
        }
        let list = &mut self.phys[slot];
        if let Err(i) = list.binary_search(&pos) {
            list.insert(i, pos);
        }
    }

    /// Positions of `segs` at which `slot` is held by a vreg.
    pub fn vreg_conflicts(&self, slot: usize, segs: &[(u32, u32)]) -> u32 {
        if slot >= self.slots {
            return 0;
        }
        count_runs(&self.vregs[self.row(slot)], segs)
    }

    /// Positions of `segs` at which `slot` is used physically.
    pub fn phys_conflicts(&self, slot: usize, segs: &[(u32, u32)]) -> u32 {
        let Some(list) = self.phys.get(slot).filter(|l| !l.is_empty()) else { return 0 };
        segs.iter()
            .map(|&(lo, hi)| (list.partition_point(|&p| p <= hi) - list.partition_point(|&p| p < lo)) as u32)
            .sum()
    }

    /// Whether `slot` is held by a vreg at `pos`.
    pub fn held_at(&self, slot: usize, pos: u32) -> bool {
        slot < self.slots && {
            let w = self.vregs[slot * self.words + (pos as usize >> 6)];
            w >> (pos & 63) & 1 == 1
        }
    }
}

fn mask(lo: u32, hi: u32) -> u64 {
    // bits lo..=hi of one word (0 <= lo <= hi < 64)
    let width = hi - lo + 1;
    if width == 64 { u64::MAX } else { ((1u64 << width) - 1) << lo }
}

fn for_words(segs: &[(u32, u32)], mut f: impl FnMut(usize, u64)) {
    for &(lo, hi) in segs {
        let (wl, wh) = ((lo >> 6) as usize, (hi >> 6) as usize);
        if wl == wh {
            f(wl, mask(lo & 63, hi & 63));
        } else {
            f(wl, mask(lo & 63, 63));
            for w in wl + 1..wh {
                f(w, u64::MAX);
            }
            f(wh, mask(0, hi & 63));
        }
    }
}

fn set_runs(row: &mut [u64], segs: &[(u32, u32)], on: bool) {
    let n = row.len();
    for_words(segs, |w, m| {
        if w < n {
            if on {
                row[w] |= m;
            } else {
                row[w] &= !m;
            }
        }
    });
}

fn count_runs(row: &[u64], segs: &[(u32, u32)]) -> u32 {
    let mut c = 0;
    let n = row.len();
    for_words(segs, |w, m| {
        if w < n {
            c += (row[w] & m).count_ones();
        }
    });
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn occupy_count_release() {
        let mut o = Occupancy::new(4, 300);
        o.occupy(2, &[(10, 70), (200, 260)]);
        assert_eq!(o.vreg_conflicts(2, &[(0, 9)]), 0);
        assert_eq!(o.vreg_conflicts(2, &[(60, 205)]), 11 + 6);
        assert_eq!(o.vreg_conflicts(1, &[(0, 299)]), 0);
        assert!(o.held_at(2, 64) && !o.held_at(2, 71));
        o.release(2, &[(10, 70)]);
        assert_eq!(o.vreg_conflicts(2, &[(0, 299)]), 61);
        o.occupy_phys(3, 5);
        assert_eq!(o.phys_conflicts(3, &[(0, 10)]), 1);
        assert_eq!(o.vreg_conflicts(9, &[(0, 10)]), 0);
    }
}
