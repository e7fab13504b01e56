//! Per-physical-register occupancy: for every slot of a register file, the positions at
//! which it holds a value. This is the "fat point" representation of seed 000
//! ("There is no explicit interference graph in the main allocation path; instead,
//! per-physical-register pressure histograms serve as the conflict representation"):
//! the histogram of a vreg is filled by intersecting its live positions with each
//! slot's occupancy.
//!
//! Two layers per slot: `vregs` (assigned virtual registers) and `phys` (physical
//! operands and call clobbers — what a type-1 Exclude-one constraint forbids).

/// Occupancy: a bitset of `words` u64 per slot for vregs, stored word-major (all slots'
/// word `w` side by side) so that a histogram fill, which asks every slot about the
/// same positions, reads one contiguous run per word instead of one cache line per
/// slot; physical uses are rare, so they are kept as a sorted position list per slot.
#[derive(Clone, Debug, PartialEq)]
pub struct Occupancy {
    pub slots: usize,
    words: usize,
    vregs: Vec<u64>,
    phys: Vec<Vec<u32>>,
    /// Number of physical uses recorded over all slots (the fill skips asking when 0).
    phys_count: usize,
    /// One past the highest slot a vreg has occupied: the rows above are all zero, so
    /// the fill does not count them (the scan bound sits a few registers above the
    /// budget, where nothing is ever assigned).
    top: usize,
}

impl Occupancy {
    pub fn new(slots: usize, positions: u32) -> Occupancy {
        let words = (positions as usize).div_ceil(64).max(1);
        Occupancy { slots, words, vregs: vec![0; slots * words], phys: vec![Vec::new(); slots], phys_count: 0, top: 0 }
    }

    /// Marks `slot` as holding a vreg over the runs.
    pub fn occupy(&mut self, slot: usize, segs: &[(u32, u32)]) {
        if slot >= self.slots {
            return;
        }
        set_runs(&mut self.vregs, self.slots, slot, self.words, segs, true);
        self.top = self.top.max(slot + 1);
    }

    /// Removes a vreg's runs from `slot` (used when an assignment is undone).
    pub fn release(&mut self, slot: usize, segs: &[(u32, u32)]) {
        if slot >= self.slots {
            return;
        }
        set_runs(&mut self.vregs, self.slots, slot, self.words, segs, false);
    }

    /// Marks a physical use of `slot` at one position (a physical operand or a clobber).
    pub fn occupy_phys(&mut self, slot: usize, pos: u32) {
        if slot >= self.slots {
            return;
        }
        let list = &mut self.phys[slot];
        if let Err(i) = list.binary_search(&pos) {
            list.insert(i, pos);
            self.phys_count += 1;
        }
    }

    /// Positions of `segs` at which `slot` is held by a vreg.
    pub fn vreg_conflicts(&self, slot: usize, segs: &[(u32, u32)]) -> u32 {
        if slot >= self.slots {
            return 0;
        }
        let mut c = 0;
        for_words(segs, |w, m| {
            if w < self.words {
                c += (self.vregs[w * self.slots + slot] & m).count_ones();
            }
        });
        c
    }

    /// Adds to `out[s]` the positions of `segs` at which slot `s` is held by a vreg, for
    /// every slot `s < out.len()`: `vreg_conflicts` for all slots in one pass over the
    /// word-major rows (the histogram fill's hot loop).
    pub fn add_vreg_conflicts(&self, segs: &[(u32, u32)], out: &mut [u32]) {
        let k = out.len().min(self.slots).min(self.top);
        let out = &mut out[..k];
        for_words(segs, |w, m| {
            if w < self.words {
                let row = &self.vregs[w * self.slots..w * self.slots + k];
                if m == u64::MAX {
                    for (o, &x) in out.iter_mut().zip(row) {
                        *o += x.count_ones();
                    }
                } else {
                    for (o, &x) in out.iter_mut().zip(row) {
                        *o += (x & m).count_ones();
                    }
                }
            }
        });
    }

    /// Adds to `out[s]` the number of *stretches* of `segs` at which slot `s` is held by
    /// a vreg: maximal runs of consecutive held positions inside one run of `segs`
    /// (a slot held at 10..=14 and 18..=19 inside one run counts 2). This is an
    /// interference count — how many times the slot is taken over the runs — where
    /// `add_vreg_conflicts` counts positions, which grow with the kernel's length.
    pub fn add_vreg_stretches(&self, segs: &[(u32, u32)], out: &mut [u32]) {
        let k = out.len().min(self.slots).min(self.top);
        let out = &mut out[..k];
        // A stretch going on across a word boundary inside one run is not a new one: the
        // previous word's last position is inside the run whenever the word is not the
        // run's first, so its row is read for the carry (no per-call carry vector: an
        // allocation per histogram fill, issue 25).
        for &(lo, hi) in segs {
            let first = (lo >> 6) as usize;
            for_words(&[(lo, hi)], |w, m| {
                if w < self.words {
                    let row = &self.vregs[w * self.slots..w * self.slots + k];
                    if w > first {
                        let prev = &self.vregs[(w - 1) * self.slots..(w - 1) * self.slots + k];
                        for ((o, &x), &p) in out.iter_mut().zip(row).zip(prev) {
                            let x = x & m;
                            // A stretch starts at a held position whose predecessor (in
                            // this run) is not held.
                            *o += (x & !((x << 1) | (p >> 63))).count_ones();
                        }
                    } else {
                        for (o, &x) in out.iter_mut().zip(row) {
                            let x = x & m;
                            *o += (x & !(x << 1)).count_ones();
                        }
                    }
                }
            });
        }
    }

    /// Whether no slot has a physical use (the fill can skip asking).
    pub fn no_phys(&self) -> bool {
        self.phys_count == 0
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
        slot < self.slots && (pos as usize >> 6) < self.words && {
            let w = self.vregs[(pos as usize >> 6) * self.slots + slot];
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

fn set_runs(vregs: &mut [u64], slots: usize, slot: usize, words: usize, segs: &[(u32, u32)], on: bool) {
    for_words(segs, |w, m| {
        if w < words {
            let x = &mut vregs[w * slots + slot];
            if on {
                *x |= m;
            } else {
                *x &= !m;
            }
        }
    });
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
        o.occupy(0, &[(0, 299)]);
        let mut all = vec![0; 6];
        o.add_vreg_conflicts(&[(5, 70), (64, 64)], &mut all);
        assert_eq!(all, vec![67, 0, 0, 0, 0, 0]);
    }

    #[test]
    fn stretches_count_runs_of_held_positions_per_segment() {
        let mut o = Occupancy::new(3, 300);
        // Slot 1: two stretches inside 0..=40, one of them crossing the word boundary
        // at 64 inside 50..=100 (counted once), and one more at 200..=210.
        o.occupy(1, &[(10, 14), (18, 19), (60, 70), (200, 210)]);
        o.occupy(2, &[(0, 299)]);
        let mut out = vec![0; 3];
        o.add_vreg_stretches(&[(0, 40), (50, 100), (205, 299)], &mut out);
        assert_eq!(out, vec![0, 4, 3]);
        // A stretch cut by a segment boundary counts in each segment it meets.
        let mut out = vec![0; 3];
        o.add_vreg_stretches(&[(60, 63), (64, 66)], &mut out);
        assert_eq!(out, vec![0, 2, 2]);
    }
}
