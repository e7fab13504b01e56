//! Sorted index vectors: the per-block sets of the liveness solver (issue 25). A set
//! is a `Vec<u32>` of bit indices, ascending and without duplicates, so its cost is
//! its size rather than the size of the universe: a function whose body is a kernel's
//! body repeated k times has k times the blocks and k times the values live across
//! blocks, and dense bitvectors made one solve cost blocks × values.
//!
//! The operations keep the contract of the bitvector library they replace (seed 004,
//! "BitVector Implementation": `orIfChanged`, `orWithAndNotIfChanged`): they only ever
//! add members (which keeps the solver monotone) and report whether anything was
//! added, checking before writing. This module knows nothing of registers or blocks.

/// Whether every member of `a` is in `b`.
pub fn is_subset(a: &[u32], b: &[u32]) -> bool {
    if a.len() > b.len() {
        return false;
    }
    let mut j = 0;
    for &x in a {
        while j < b.len() && b[j] < x {
            j += 1;
        }
        if j == b.len() || b[j] != x {
            return false;
        }
        j += 1;
    }
    true
}

/// `dst ∪= src`; returns whether `dst` grew. `scratch` is a buffer the merge may use
/// (its contents are unspecified afterwards).
pub fn union_into(dst: &mut Vec<u32>, src: &[u32], scratch: &mut Vec<u32>) -> bool {
    if src.is_empty() {
        return false;
    }
    match (dst.last(), src.first()) {
        (None, _) => {
            dst.extend_from_slice(src);
            return true;
        }
        (Some(&l), Some(&f)) if l < f => {
            dst.extend_from_slice(src);
            return true;
        }
        _ => {}
    }
    if is_subset(src, dst) {
        return false;
    }
    scratch.clear();
    scratch.reserve(dst.len() + src.len());
    let (mut i, mut j) = (0, 0);
    while i < dst.len() && j < src.len() {
        let (a, b) = (dst[i], src[j]);
        if a < b {
            scratch.push(a);
            i += 1;
        } else if b < a {
            scratch.push(b);
            j += 1;
        } else {
            scratch.push(a);
            i += 1;
            j += 1;
        }
    }
    scratch.extend_from_slice(&dst[i..]);
    scratch.extend_from_slice(&src[j..]);
    std::mem::swap(dst, scratch);
    true
}

/// `out = a ∪ (b − minus)` (the liveness transfer `gen ∪ (out − kill)`).
pub fn union_minus(out: &mut Vec<u32>, a: &[u32], b: &[u32], minus: &[u32]) {
    out.clear();
    let (mut i, mut j, mut k) = (0, 0, 0);
    loop {
        // The next member of `b − minus`, if any.
        let next_b = loop {
            let Some(&x) = b.get(j) else { break None };
            while k < minus.len() && minus[k] < x {
                k += 1;
            }
            if k < minus.len() && minus[k] == x {
                j += 1;
                continue;
            }
            break Some(x);
        };
        match (a.get(i).copied(), next_b) {
            (None, None) => break,
            (Some(_), None) => {
                out.extend_from_slice(&a[i..]);
                break;
            }
            (None, Some(y)) => {
                out.push(y);
                j += 1;
            }
            (Some(x), Some(y)) => {
                if x < y {
                    out.push(x);
                    i += 1;
                } else if y < x {
                    out.push(y);
                    j += 1;
                } else {
                    out.push(x);
                    i += 1;
                    j += 1;
                }
            }
        }
    }
}

/// `dst −= minus`.
pub fn remove_all(dst: &mut Vec<u32>, minus: &[u32]) {
    if minus.is_empty() {
        return;
    }
    let mut k = 0;
    dst.retain(|&x| {
        while k < minus.len() && minus[k] < x {
            k += 1;
        }
        !(k < minus.len() && minus[k] == x)
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    fn set(v: &[u32]) -> BTreeSet<u32> {
        v.iter().copied().collect()
    }

    /// Each operation against `BTreeSet` on pseudo-random sets, including empty ones,
    /// disjoint ones, subsets and interleavings.
    #[test]
    fn operations_match_btreeset() {
        let mut x: u64 = 1;
        let mut rnd = |m: u64| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (x >> 33) % m
        };
        let mut scratch = Vec::new();
        for _ in 0..2000 {
            let mut mk = || {
                let n = rnd(12);
                let range = 1 + rnd(40);
                let s: BTreeSet<u32> = (0..n).map(|_| rnd(range) as u32 + rnd(3) as u32 * 20).collect();
                s.into_iter().collect::<Vec<u32>>()
            };
            let (a, b, m) = (mk(), mk(), mk());
            assert_eq!(is_subset(&a, &b), set(&a).is_subset(&set(&b)), "{a:?} ⊆ {b:?}");
            let mut d = a.clone();
            let grew = union_into(&mut d, &b, &mut scratch);
            let want: Vec<u32> = set(&a).union(&set(&b)).copied().collect();
            assert_eq!(d, want);
            assert_eq!(grew, want.len() > a.len());
            let mut out = vec![99];
            union_minus(&mut out, &a, &b, &m);
            let bm: BTreeSet<u32> = set(&b).difference(&set(&m)).copied().collect();
            assert_eq!(out, set(&a).union(&bm).copied().collect::<Vec<u32>>());
            let mut r = a.clone();
            remove_all(&mut r, &m);
            assert_eq!(r, set(&a).difference(&set(&m)).copied().collect::<Vec<u32>>());
        }
    }
}
