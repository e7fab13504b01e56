//! Live ranges as runs of positions: the allocator's view of liveness.
//!
//! Each instruction at program point `p` has two positions: `2p` (its reads: every
//! vreg live before it) and `2p + 1` (its writes: every vreg live after it, plus its
//! destinations even when dead). Two vregs of one file interfere exactly when their
//! position sets intersect — the same relation the pressure query of `analysis`
//! counts (`max(live_before, live_after ∪ defs)`), so a source that dies at an
//! instruction can share a register with that instruction's destination.
//!
//! A vreg's alias chain (`.alias`) is folded into its root: the root carries the union of
//! the group's positions and the group gets one register (seed 000, "Register
//! Assignment": alias propagation).

use crate::analysis::liveness::{BlockSet, Liveness};
use crate::ir::{Function, RegFile, VRegId};

/// Live ranges of every vreg of a function, as sorted, disjoint, inclusive runs.
#[derive(Clone, Debug, PartialEq)]
pub struct Ranges {
    /// Number of positions: twice the number of program points.
    pub positions: u32,
    /// The alias root of each vreg (itself when it has no alias parent).
    pub root: Vec<VRegId>,
    seg_start: Vec<u32>,
    segs: Vec<(u32, u32)>,
}

impl Ranges {
    /// Builds the ranges from the solved block live-outs with one backward walk per
    /// block, in time proportional to the number of operands plus block boundaries.
    pub fn build(f: &Function, live: &Liveness) -> Ranges {
        let n = f.vregs.len();
        let root = alias_roots(f);
        let layout = f.layout();
        let positions = layout.len() * 2;
        const CLOSED: u32 = u32::MAX;
        let mut open_hi = vec![CLOSED; n];
        let mut open: Vec<u32> = Vec::new();
        let mut triples: Vec<(u32, u32, u32)> = Vec::new();
        let mut used_here: Vec<u32> = Vec::new();
        let tracked = |v: VRegId| f.vreg(v).file().has_liveness();
        for (b, block) in f.blocks.iter().enumerate() {
            if block.insts.is_empty() {
                continue;
            }
            let start = layout.block_start[b];
            let last = start + block.insts.len() as u32 - 1;
            open.clear();
            // Runs are tracked per vreg and emitted for its alias root: a def of one
            // member of a group must not end the run of another member that is still
            // live (the group's positions are the union of its members').
            live.for_each_in(b, BlockSet::LiveOut, |v| {
                if tracked(v) && open_hi[v.index()] == CLOSED {
                    open_hi[v.index()] = 2 * last + 1;
                    open.push(v.0);
                }
            });
            for (i, inst) in block.insts.iter().enumerate().rev() {
                let p = start + i as u32;
                let (wpos, rpos) = (2 * p + 1, 2 * p);
                // Writes: a killing def closes the run above it; a dead def still
                // occupies the write position.
                used_here.clear();
                inst.for_each_use(|r| {
                    if tracked(r.vreg) {
                        used_here.push(r.vreg.0);
                    }
                });
                for op in inst.defs() {
                    let Some(r) = op.as_vreg() else { continue };
                    if !tracked(r.vreg) {
                        continue;
                    }
                    let v = r.vreg.index();
                    let g = root[v].0;
                    if open_hi[v] == CLOSED {
                        // Not live after: a dead def still needs its register here.
                        triples.push((g, wpos, wpos));
                    } else if live.def_kills(inst, r) && !used_here.contains(&(v as u32)) {
                        triples.push((g, wpos, open_hi[v]));
                        open_hi[v] = CLOSED;
                    }
                }
                for &v in &used_here {
                    let v = v as usize;
                    if open_hi[v] == CLOSED {
                        open_hi[v] = rpos;
                        open.push(v as u32);
                    }
                }
            }
            for &v in &open {
                let v = v as usize;
                if open_hi[v] != CLOSED {
                    triples.push((root[v].0, 2 * start, open_hi[v]));
                    open_hi[v] = CLOSED;
                }
            }
        }
        // Grouped by root in linear time; a root's runs arrive block by block but
        // backwards within a block, so each (short) group is sorted on its own.
        let (group_start, mut runs) = group_by_key(&triples, n, |&(g, lo, hi)| (g, (lo, hi)));
        let mut seg_start = vec![0u32; n + 1];
        let mut segs: Vec<(u32, u32)> = Vec::with_capacity(runs.len());
        for (v, start) in seg_start.iter_mut().enumerate().take(n) {
            *start = segs.len() as u32;
            let first = segs.len();
            let group = &mut runs[group_start[v] as usize..group_start[v + 1] as usize];
            group.sort_unstable();
            for &(lo, hi) in group.iter() {
                let extend = segs.len() > first && segs.last().is_some_and(|l: &(u32, u32)| lo <= l.1 + 1);
                if extend {
                    let last = segs.last_mut().expect("non-empty");
                    last.1 = last.1.max(hi);
                } else {
                    segs.push((lo, hi));
                }
            }
        }
        seg_start[n] = segs.len() as u32;
        Ranges { positions, root, seg_start, segs }
    }

    /// The runs of a vreg's alias group (empty for non-roots and dead vregs).
    pub fn segments(&self, v: VRegId) -> &[(u32, u32)] {
        let r = self.root[v.index()].index();
        &self.segs[self.seg_start[r] as usize..self.seg_start[r + 1] as usize]
    }

    /// Number of positions the vreg's group is live at.
    pub fn length(&self, v: VRegId) -> u32 {
        self.segments(v).iter().map(|&(lo, hi)| hi - lo + 1).sum()
    }

    /// Whether two vregs' groups are live at a common position.
    pub fn overlap(&self, a: VRegId, b: VRegId) -> u32 {
        let (x, y) = (self.segments(a), self.segments(b));
        let (mut i, mut j, mut n) = (0, 0, 0);
        while i < x.len() && j < y.len() {
            let lo = x[i].0.max(y[j].0);
            let hi = x[i].1.min(y[j].1);
            if lo <= hi {
                n += hi - lo + 1;
            }
            if x[i].1 < y[j].1 {
                i += 1;
            } else {
                j += 1;
            }
        }
        n
    }

    pub fn is_root(&self, v: VRegId) -> bool {
        self.root[v.index()] == v
    }

    /// Register pressure of one file at every position (widths counted), over the vregs
    /// `include` accepts (alias roots only).
    pub fn pressure(&self, f: &Function, file: RegFile, include: impl Fn(VRegId) -> bool) -> Vec<u32> {
        let mut diff = vec![0i64; self.positions as usize + 1];
        for (i, vr) in f.vregs.iter().enumerate() {
            let v = VRegId::new(i);
            if vr.file() != file || !self.is_root(v) || !include(v) {
                continue;
            }
            for &(lo, hi) in self.segments(v) {
                diff[lo as usize] += vr.width as i64;
                diff[hi as usize + 1] -= vr.width as i64;
            }
        }
        let mut out = Vec::with_capacity(self.positions as usize);
        let mut acc = 0i64;
        for d in diff.iter().take(self.positions as usize) {
            acc += d;
            out.push(acc.max(0) as u32);
        }
        out
    }
}

/// Groups items by a key below `n` (a vreg id) in linear time, keeping their order within
/// a group (a stable counting sort): returns where each key's group starts (`n + 1`
/// entries) and the values. Keys out of range are dropped.
pub(crate) fn group_by_key<I, T: Copy>(items: &[I], n: usize, split: impl Fn(&I) -> (u32, T)) -> (Vec<u32>, Vec<T>) {
    let mut start = vec![0u32; n + 1];
    for it in items {
        let (k, _) = split(it);
        if (k as usize) < n {
            start[k as usize + 1] += 1;
        }
    }
    for k in 0..n {
        start[k + 1] += start[k];
    }
    let mut next = start.clone();
    // Every slot is written below; the first item's value only fills the vector first.
    let mut out = match items.first() {
        Some(it) => vec![split(it).1; start[n] as usize],
        None => Vec::new(),
    };
    for it in items {
        let (k, v) = split(it);
        if (k as usize) < n {
            let slot = &mut next[k as usize];
            out[*slot as usize] = v;
            *slot += 1;
        }
    }
    (start, out)
}

/// The alias root of each vreg: follow `alias` parents; a cycle (rejected by the
/// validator) stops at the first repeated vreg.
pub fn alias_roots(f: &Function) -> Vec<VRegId> {
    (0..f.vregs.len())
        .map(|i| {
            let mut v = VRegId::new(i);
            let mut steps = 0;
            while let Some(p) = f.vreg(v).alias {
                if p.index() >= f.vregs.len() || steps > f.vregs.len() {
                    break;
                }
                v = p;
                steps += 1;
            }
            v
        })
        .collect()
}

/// Maximum of `values` over a set of runs, with a chunked index so long ranges cost
/// `len / CHUNK` rather than `len`.
#[derive(Clone, Debug)]
pub struct RangeMax {
    values: Vec<u32>,
    chunk_max: Vec<u32>,
}

const CHUNK: usize = 64;

impl RangeMax {
    pub fn new(values: Vec<u32>) -> RangeMax {
        let chunk_max = values.chunks(CHUNK).map(|c| c.iter().copied().max().unwrap_or(0)).collect();
        RangeMax { values, chunk_max }
    }

    pub fn values(&self) -> &[u32] {
        &self.values
    }

    /// Max over inclusive `lo..=hi`.
    pub fn max(&self, lo: u32, hi: u32) -> u32 {
        let (mut lo, hi) = (lo as usize, (hi as usize).min(self.values.len().saturating_sub(1)));
        let mut m = 0;
        while lo <= hi {
            if lo % CHUNK == 0 && lo + CHUNK - 1 <= hi {
                m = m.max(self.chunk_max[lo / CHUNK]);
                lo += CHUNK;
            } else {
                m = m.max(self.values[lo]);
                lo += 1;
            }
        }
        m
    }

    pub fn max_over(&self, segs: &[(u32, u32)]) -> u32 {
        segs.iter().map(|&(lo, hi)| self.max(lo, hi)).max().unwrap_or(0)
    }
}
