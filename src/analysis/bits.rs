//! Word-at-a-time bitvector operations on `u64` words, named after the ptxas bitvector
//! library they model (seed 004, "BitVector Implementation", 0xBDBA60..0xBDE150): the
//! vreg-indexed `LiveSet` and the uninitialized-register detector use them. (The
//! liveness solver's per-block sets are sparse: `sparse`, issue 25.)
//!
//! ptxas works on 32-bit words with SSE2 four at a time; radbg uses 64-bit words and
//! lets the compiler vectorise. The semantics that matter are kept: the `*_if_changed`
//! operations only ever *set* bits (which is what makes the solver monotone) and report
//! whether anything changed, scanning before writing. This module knows nothing of
//! registers or functions: it sees only words.

/// Number of 64-bit words needed for `bits` bits.
pub fn words_for(bits: usize) -> usize {
    bits.div_ceil(64)
}

/// Sets bit `i`.
#[inline]
pub fn set(w: &mut [u64], i: usize) {
    w[i >> 6] |= 1u64 << (i & 63);
}

/// Clears bit `i`.
#[inline]
pub fn clear(w: &mut [u64], i: usize) {
    w[i >> 6] &= !(1u64 << (i & 63));
}

/// Tests bit `i`.
#[inline]
pub fn test(w: &[u64], i: usize) -> bool {
    (w[i >> 6] >> (i & 63)) & 1 == 1
}

/// Words scanned per step of the early-exit scans: wide enough for the compiler to
/// vectorise the inner loop (ptxas's SSE2 loops do four 32-bit words at a time).
const CHUNK: usize = 8;

/// `dst |= src`; returns whether `dst` changed (seed 004: `orIfChanged`, sub_BDCF40,
/// which scans `~dst & src` before writing anything, then writes from the first
/// differing word on).
#[inline]
pub fn or_if_changed(dst: &mut [u64], src: &[u64]) -> bool {
    let n = dst.len().min(src.len());
    let mut k = 0;
    while k < n {
        let end = (k + CHUNK).min(n);
        let mut acc = 0u64;
        for (d, s) in dst[k..end].iter().zip(&src[k..end]) {
            acc |= !d & s;
        }
        if acc != 0 {
            break;
        }
        k = end;
    }
    if k >= n {
        return false;
    }
    for j in k..n {
        dst[j] |= src[j];
    }
    true
}

/// `dst |= src` (seed 004: `operator|=`, sub_BDCDE0).
#[inline]
pub fn or(dst: &mut [u64], src: &[u64]) {
    for (d, s) in dst.iter_mut().zip(src) {
        *d |= s;
    }
}

/// Number of set bits (seed 004: `popcount`, sub_BDD8C0).
pub fn popcount(w: &[u64]) -> usize {
    w.iter().map(|x| x.count_ones() as usize).sum()
}

/// Calls `f` with the index of every set bit, ascending; skips zero words whole.
#[inline]
pub fn for_each_one(w: &[u64], mut f: impl FnMut(usize)) {
    for (k, &word) in w.iter().enumerate() {
        let mut x = word;
        while x != 0 {
            let t = x.trailing_zeros() as usize;
            f(k * 64 + t);
            x &= x - 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changed_flags_report_only_real_changes() {
        let mut d = vec![0b1010u64, 0];
        assert!(!or_if_changed(&mut d, &[0b0010, 0]));
        assert!(or_if_changed(&mut d, &[0b0100, 1 << 63]));
        assert_eq!(d, vec![0b1110, 1 << 63]);

        // A change far into a long vector is found past the first chunks.
        let mut long = vec![u64::MAX; 20];
        long[19] = 0;
        let mut src = vec![0u64; 20];
        src[19] = 4;
        assert!(or_if_changed(&mut long, &src));
        assert_eq!(long[19], 4);
        assert!(!or_if_changed(&mut long, &src));
    }

    #[test]
    fn bit_helpers() {
        let mut w = vec![0u64; words_for(130)];
        assert_eq!(w.len(), 3);
        for i in [0, 63, 64, 129] {
            set(&mut w, i);
        }
        clear(&mut w, 63);
        assert!(test(&w, 129) && !test(&w, 63));
        let mut ones = Vec::new();
        for_each_one(&w, |i| ones.push(i));
        assert_eq!(ones, vec![0, 64, 129]);
        assert_eq!(popcount(&w), 3);
    }
}
