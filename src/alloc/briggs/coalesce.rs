//! Phase 3, Coalesce (seed 002, "Phase 3: Coalesce", "Conservative Coalescing (Briggs)",
//! "George Coalescing", "Iterated Coalescing").
//!
//! Before the main loop, every active move is tried in program order, round after round
//! while a round makes progress, at most `radbg.BriggsCoalesceRounds` (10) rounds — the
//! seed's loop, whose `iteration > MAX` test would allow an eleventh. A move whose nodes
//! interfere, or that touches spill code, is constrained for good. A move with one
//! pre-coloured end (a pin, an ABI parameter register) merges into the pre-coloured node
//! when the other end can take its colour; two pre-coloured ends never merge.
//! Otherwise the Briggs test decides (the merged node has fewer than K neighbours of
//! degree ≥ K, degrees as they are now); when it refuses and knob `radbg.BriggsGeorge`
//! is on, George's test may accept (every high-degree neighbour of the destination
//! already interferes with the source). The seed calls George "likely NOT used", so the
//! knob is off by default. The destination is merged into the source (`coalesce_nodes(src,
//! dst)`); costs add their parts, physical constraints unite. The seed's profitability
//! heuristics ("never coalesce if merged degree > 2×K") are not called by its coalesce
//! phase and are not modelled. No aggressive coalescing.
//!
//! Knows the graph and the degrees; not the worklists, which are built afterwards.

use crate::alloc::briggs::MoveState;
use crate::alloc::briggs::cost::CostParts;
use crate::alloc::briggs::graph::Graph;
use crate::alloc::briggs::select::Window;
use crate::alloc::briggs::simplify::{Status, Work, weight};

/// Which test accepted a coalesce.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Criterion {
    Briggs,
    George,
}

impl Criterion {
    pub fn name(self) -> &'static str {
        match self {
            Criterion::Briggs => "Briggs",
            Criterion::George => "George",
        }
    }
}

/// Briggs: the union of both nodes' neighbours holds fewer than `k` nodes of degree ≥ K
/// (counted in colours: `weight(t)` per high neighbour `t`).
pub fn briggs_ok(
    adj_x: &[u32],
    adj_y: &[u32],
    present: impl Fn(u32) -> bool,
    high: impl Fn(u32) -> bool,
    weight: impl Fn(u32) -> u32,
    k: u32,
) -> bool {
    let (mut i, mut j, mut count) = (0, 0, 0u32);
    while i < adj_x.len() || j < adj_y.len() {
        let t = match (adj_x.get(i), adj_y.get(j)) {
            (Some(&a), Some(&b)) if a == b => {
                i += 1;
                j += 1;
                a
            }
            (Some(&a), Some(&b)) if a < b => {
                i += 1;
                a
            }
            (Some(_), Some(&b)) => {
                j += 1;
                b
            }
            (Some(&a), None) => {
                i += 1;
                a
            }
            (None, Some(&b)) => {
                j += 1;
                b
            }
            (None, None) => break,
        };
        if present(t) && high(t) {
            count += weight(t);
            if count >= k {
                return false;
            }
        }
    }
    count < k
}

/// George: every neighbour of `y` with degree ≥ K is already a neighbour of `x`.
pub fn george_ok(adj_x: &[u32], adj_y: &[u32], present: impl Fn(u32) -> bool, high: impl Fn(u32) -> bool) -> bool {
    adj_y.iter().all(|&t| !present(t) || !high(t) || adj_x.binary_search(&t).is_ok())
}

/// Where the coalesce phase stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cursor {
    /// 1-based round.
    pub round: u32,
    pub next: usize,
    pub progress: bool,
}

impl Default for Cursor {
    fn default() -> Cursor {
        Cursor { round: 1, next: 0, progress: false }
    }
}

/// One accepted coalesce.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Merge {
    pub keep: u32,
    pub removed: u32,
    pub criterion: Criterion,
    pub round: u32,
    pub point: u32,
    /// Degree of the merged node.
    pub degree: u32,
}

/// Advances to the next accepted coalesce; `None` when the phase is over.
pub fn step(
    g: &mut Graph,
    w: &mut Work,
    parts: &mut [CostParts],
    windows: &[Window],
    cur: &mut Cursor,
    max_rounds: u32,
    george: bool,
) -> Option<Merge> {
    loop {
        if cur.next >= g.moves.len() {
            if cur.progress && cur.round < max_rounds {
                cur.round += 1;
                cur.next = 0;
                cur.progress = false;
                continue;
            }
            return None;
        }
        let mi = cur.next;
        cur.next += 1;
        if g.moves[mi].state != MoveState::Active {
            continue;
        }
        let (x, y) = (w.find(g.moves[mi].src), w.find(g.moves[mi].dst));
        if x == y {
            g.moves[mi].state = MoveState::Coalesced;
            continue;
        }
        let pre_x = w.status[x as usize] == Status::Precoloured;
        let pre_y = w.status[y as usize] == Status::Precoloured;
        let mut constrained = g.has_edge(x, y) || w.spill_code[x as usize] || w.spill_code[y as usize];
        if pre_x && pre_y {
            // Two pre-colours: a self-copy when they agree, a real copy otherwise.
            g.moves[mi].state = if w.colour[x as usize] == w.colour[y as usize] && !constrained {
                MoveState::Coalesced
            } else {
                MoveState::Constrained
            };
            continue;
        }
        // With one pre-coloured end the merged node keeps that colour: the other end
        // must be able to take it (no physical constraint, no pre-coloured neighbour on it).
        let (x, y) = if pre_y { (y, x) } else { (x, y) };
        if pre_x || pre_y {
            constrained = constrained || !can_take(g, w, y, x);
        }
        if constrained {
            g.moves[mi].state = MoveState::Constrained;
            continue;
        }
        // K of the merged node: its class less both nodes' physical constraints.
        let merged_phys = g.physical[x as usize].union(&g.physical[y as usize]);
        let wx = g.width[x as usize];
        let k = match windows.get(g.file[x as usize].index()) {
            Some(win) => crate::alloc::briggs::select::available(&win.regs, wx, &merged_phys).len() as u32,
            None => 0,
        };
        let present = |t: u32| w.present(t);
        let high = |t: u32| w.is_high(t);
        let wt = |t: u32| weight(wx, g.width[t as usize]);
        // Pre-coloured ends may also pass George's test (Appel's rule for machine
        // registers), whatever `radbg.BriggsGeorge` says.
        let criterion = if briggs_ok(&g.adj[x as usize], &g.adj[y as usize], present, high, wt, k) {
            Criterion::Briggs
        } else if (george || pre_x || pre_y) && george_ok(&g.adj[x as usize], &g.adj[y as usize], present, high) {
            Criterion::George
        } else {
            continue;
        };
        merge(g, w, parts, x, y);
        w.k[x as usize] = k;
        g.moves[mi].state = MoveState::Coalesced;
        cur.progress = true;
        return Some(Merge {
            keep: x,
            removed: y,
            criterion,
            round: cur.round,
            point: g.moves[mi].point,
            degree: w.degree[x as usize],
        });
    }
}

/// Whether node `y` can take pre-coloured node `p`'s colour.
fn can_take(g: &Graph, w: &Work, y: u32, p: u32) -> bool {
    let Some(c) = w.colour[p as usize] else { return false };
    let width = g.width[y as usize] as u16;
    if (c..c + width).any(|r| g.physical[y as usize].contains(r)) {
        return false;
    }
    g.adj[y as usize].iter().all(|&t| match (w.status[t as usize], w.colour[t as usize]) {
        (Status::Precoloured, Some(tc)) => tc + g.width[t as usize] as u16 <= c || c + width <= tc,
        _ => true,
    })
}

/// Merges `y` into `x` (seed `coalesce_nodes(keep, remove)`): `x` takes `y`'s edges,
/// common neighbours lose one degree, `y` is marked merged.
pub fn merge(g: &mut Graph, w: &mut Work, parts: &mut [CostParts], x: u32, y: u32) {
    let (xi, yi) = (x as usize, y as usize);
    let ny = std::mem::take(&mut g.adj[yi]);
    for &t in &ny {
        let ti = t as usize;
        if let Ok(p) = g.adj[ti].binary_search(&y) {
            g.adj[ti].remove(p);
        }
        match g.adj[ti].binary_search(&x) {
            Ok(_) => {
                if w.present(t) {
                    w.degree[ti] = w.degree[ti].saturating_sub(weight(g.width[ti], g.width[yi]));
                }
            }
            Err(p) => g.adj[ti].insert(p, x),
        }
    }
    let mut merged = Vec::with_capacity(g.adj[xi].len() + ny.len());
    let (a, b) = (&g.adj[xi], &ny);
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        match (a.get(i), b.get(j)) {
            (Some(&p), Some(&q)) if p == q => {
                merged.push(p);
                i += 1;
                j += 1;
            }
            (Some(&p), Some(&q)) if p < q => {
                merged.push(p);
                i += 1;
            }
            (Some(_), Some(&q)) => {
                merged.push(q);
                j += 1;
            }
            (Some(&p), None) => {
                merged.push(p);
                i += 1;
            }
            (None, Some(&q)) => {
                merged.push(q);
                j += 1;
            }
            (None, None) => break,
        }
    }
    g.adj[xi] = merged;
    g.physical[xi] = g.physical[xi].union(&g.physical[yi]);
    let moves_y = std::mem::take(&mut g.node_moves[yi]);
    g.node_moves[xi].extend(moves_y);
    w.degree[xi] = g.adj[xi].iter().filter(|&&t| w.present(t)).map(|&t| weight(g.width[xi], g.width[t as usize])).sum();
    w.rep[yi] = x;
    w.status[yi] = Status::Merged;
    parts[xi] = parts[xi].add(&parts[yi]);
    w.unspillable[xi] = w.unspillable[xi] || w.unspillable[yi];
    w.cost[xi] = if w.unspillable[xi] { f64::INFINITY } else { w.model.cost(&parts[xi]) };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn briggs_and_george_disagree_both_ways() {
        // K = 2. High-degree nodes: 10, 11, 12.
        let high = |t: u32| t >= 10;
        let present = |_: u32| true;
        // y has one high neighbour (12) that x lacks: Briggs counts 1 < 2, George refuses.
        let one = |_: u32| 1;
        assert!(briggs_ok(&[1], &[12], present, high, one, 2));
        assert!(!george_ok(&[1], &[12], present, high));
        // x has two high neighbours, y's only high neighbour is one of them: Briggs
        // counts 2 (not < 2), George accepts.
        assert!(!briggs_ok(&[10, 11], &[10], present, high, one, 2));
        assert!(george_ok(&[10, 11], &[10], present, high));
    }
}
