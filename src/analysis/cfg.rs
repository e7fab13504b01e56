//! The control-flow graph of one function: successors and predecessors, reverse
//! post-order, dominators, natural loops with their nesting depth, and static block
//! frequencies (seed 004, "sub_781F80: Basic Block Rebuild", which every liveness
//! computation and the allocator run first).
//!
//! Owns only graph facts derived from block layout and branch labels. It must not know
//! about registers, liveness or allocation.
//!
//! Edges: every label operand (`Operand::Sym`) of a BRANCH instruction (BRX: all of its
//! labels) that names a block, then the fall-through to the next block when the block's
//! last instruction is not a terminator (`Inst::is_terminator`; a guarded EXIT/RET/BRA
//! falls through). Unknown labels are ignored: the validator reports them. A branch in
//! the middle of a block still contributes its targets, as edges leaving the block's end.
//!
//! Irreducible flow: a retreating edge whose target does not dominate its source forms
//! no natural loop, so the blocks of an irreducible cycle get the depth of the natural
//! loops that enclose them (0 if none) and are treated as straight-line code for
//! frequency. Nothing else depends on reducibility: the liveness solver iterates to a
//! fixed point on any graph.

use std::collections::BTreeMap;

use crate::ir::model::{Function, Operand};
use crate::ir::opcode::props;
use crate::knobs::Knobs;

/// The CFG of a function. Block indices are `Function::blocks` indices; block 0 is the entry.
#[derive(Clone, Debug, PartialEq)]
pub struct Cfg {
    pub succs: Vec<Vec<usize>>,
    pub preds: Vec<Vec<usize>>,
    /// Reverse post-order of the blocks reachable from the entry.
    pub rpo: Vec<usize>,
    /// Immediate dominators; `None` for the entry and for unreachable blocks.
    pub idom: Vec<Option<usize>>,
    /// Natural loops, outermost first (by depth, then header position in `rpo`).
    pub loops: Vec<Loop>,
    /// Loop nesting depth per block (0 outside every natural loop).
    pub loop_depth: Vec<u32>,
    /// Static block frequency: `loop_weight ^ loop_depth` (radbg's scheme, knob
    /// radbg.LoopWeight; the seeds give none). Unreachable blocks have depth 0, so 1.0.
    pub freq: Vec<f64>,
    /// Blocks whose last instruction is EXIT/RET (guarded or not) or that fall off the
    /// end of the function, ascending.
    pub exits: Vec<usize>,
    pub reachable: Vec<bool>,
}

/// A natural loop: a header that dominates the sources of its back edges, and the
/// blocks that reach a back-edge source without passing through the header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loop {
    pub header: usize,
    /// The loop's blocks, ascending (header included).
    pub blocks: Vec<usize>,
    /// 1 for an outermost loop.
    pub depth: u32,
    /// Index in `Cfg::loops` of the immediately enclosing loop.
    pub parent: Option<usize>,
}

impl Cfg {
    /// Whether block `a` dominates block `b` (both reachable; a block dominates itself).
    pub fn dominates(&self, a: usize, b: usize) -> bool {
        if !self.reachable.get(a).copied().unwrap_or(false) || !self.reachable.get(b).copied().unwrap_or(false) {
            return false;
        }
        let mut x = b;
        loop {
            if x == a {
                return true;
            }
            match self.idom[x] {
                Some(p) => x = p,
                None => return false,
            }
        }
    }

    /// Index in `loops` of the innermost loop containing block `b`.
    pub fn innermost_loop(&self, b: usize) -> Option<usize> {
        let mut best: Option<usize> = None;
        for (i, l) in self.loops.iter().enumerate() {
            if l.blocks.binary_search(&b).is_ok() && best.is_none_or(|j| self.loops[j].depth < l.depth) {
                best = Some(i);
            }
        }
        best
    }
}

/// The loop weight in force: knob 623 RegAllocEstimatedLoopIterations when it holds an
/// integer (seed 000/003), else radbg.LoopWeight.
pub fn loop_weight(knobs: &Knobs) -> f64 {
    let est = knobs.str("RegAllocEstimatedLoopIterations");
    match est.trim().parse::<u32>() {
        Ok(n) if n >= 1 => n as f64,
        _ => knobs.int("radbg.LoopWeight") as f64,
    }
}

/// Builds the CFG of `f`. `loop_weight` is the frequency multiplier per loop level.
pub fn build(f: &Function, loop_weight: f64) -> Cfg {
    let n = f.blocks.len();
    let mut labels: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, b) in f.blocks.iter().enumerate() {
        // A duplicated label resolves to its first block (the validator reports it).
        labels.entry(b.label.as_str()).or_insert(i);
    }

    let mut succs = vec![Vec::new(); n];
    let mut exits = Vec::new();
    for (b, blk) in f.blocks.iter().enumerate() {
        let s = &mut succs[b];
        for inst in &blk.insts {
            if !inst.info().is(props::BRANCH) {
                continue;
            }
            for op in &inst.operands {
                if let Operand::Sym(l) = op
                    && let Some(&t) = labels.get(&**l)
                    && !s.contains(&t)
                {
                    s.push(t);
                }
            }
        }
        let last = blk.insts.last();
        let falls = last.is_none_or(|i| !i.is_terminator());
        let ends_in_exit = last.is_some_and(|i| i.info().is(props::EXIT));
        if falls {
            if b + 1 < n {
                if !s.contains(&(b + 1)) {
                    s.push(b + 1);
                }
            } else {
                exits.push(b);
                continue;
            }
        }
        if ends_in_exit {
            exits.push(b);
        }
    }

    let mut preds = vec![Vec::new(); n];
    for (b, ss) in succs.iter().enumerate() {
        for &s in ss {
            preds[s].push(b);
        }
    }

    let (rpo, reachable) = reverse_post_order(&succs);
    let idom = dominators(&rpo, &preds, n);
    let mut rpo_index = vec![usize::MAX; n];
    for (i, &b) in rpo.iter().enumerate() {
        rpo_index[b] = i;
    }
    let (loops, loop_depth) = natural_loops(&succs, &preds, &rpo, &rpo_index, &idom);
    let freq = loop_depth.iter().map(|&d| loop_weight.powi(d as i32)).collect();

    Cfg { succs, preds, rpo, idom, loops, loop_depth, freq, exits, reachable }
}

/// Iterative depth-first search from block 0 (no recursion: kernels have tens of
/// thousands of blocks). Successors are visited in list order.
fn reverse_post_order(succs: &[Vec<usize>]) -> (Vec<usize>, Vec<bool>) {
    reverse_post_order_from(succs, 0)
}

/// [`reverse_post_order`] from node `root`.
fn reverse_post_order_from(succs: &[Vec<usize>], root: usize) -> (Vec<usize>, Vec<bool>) {
    let n = succs.len();
    let mut reachable = vec![false; n];
    let mut post = Vec::with_capacity(n);
    if n == 0 {
        return (post, reachable);
    }
    let mut stack: Vec<(usize, usize)> = vec![(root, 0)];
    reachable[root] = true;
    while let Some(top) = stack.last_mut() {
        let (b, next) = *top;
        if next < succs[b].len() {
            top.1 += 1;
            let s = succs[b][next];
            if !reachable[s] {
                reachable[s] = true;
                stack.push((s, 0));
            }
        } else {
            post.push(b);
            stack.pop();
        }
    }
    post.reverse();
    (post, reachable)
}

/// Immediate post-dominators: per block, the first block every path from it to an exit
/// passes through; `None` when that is the function's end itself (the paths meet only
/// there) or the block reaches no exit. Dominators of the reversed CFG rooted at a
/// virtual exit that follows every block of `c.exits` (and every block with no
/// successor).
pub fn post_dominators(c: &Cfg) -> Vec<Option<usize>> {
    let n = c.succs.len();
    let end = n;
    // The reversed graph: a block's predecessors there are its successors here.
    let mut rpreds: Vec<Vec<usize>> = c.succs.to_vec();
    rpreds.push(Vec::new());
    let mut rsuccs: Vec<Vec<usize>> = c.preds.to_vec();
    let mut from_end: Vec<usize> = c.exits.clone();
    from_end.extend((0..n).filter(|&b| c.succs[b].is_empty() && !c.exits.contains(&b)));
    for &b in &from_end {
        rpreds[b].push(end);
    }
    rsuccs.push(from_end);
    let (rpo, _) = reverse_post_order_from(&rsuccs, end);
    let idom = dominators(&rpo, &rpreds, n + 1);
    idom.into_iter().take(n).map(|d| d.filter(|&x| x != end)).collect()
}

/// Immediate dominators by the Cooper-Harvey-Kennedy iteration over RPO.
fn dominators(rpo: &[usize], preds: &[Vec<usize>], n: usize) -> Vec<Option<usize>> {
    let mut idom: Vec<Option<usize>> = vec![None; n];
    if rpo.is_empty() {
        return idom;
    }
    let mut order = vec![usize::MAX; n];
    for (i, &b) in rpo.iter().enumerate() {
        order[b] = i;
    }
    let entry = rpo[0];
    idom[entry] = Some(entry);
    let intersect = |idom: &[Option<usize>], mut a: usize, mut b: usize| {
        while a != b {
            while order[a] > order[b] {
                a = idom[a].unwrap_or(entry);
            }
            while order[b] > order[a] {
                b = idom[b].unwrap_or(entry);
            }
        }
        a
    };
    let mut changed = true;
    while changed {
        changed = false;
        for &b in &rpo[1..] {
            let mut new: Option<usize> = None;
            for &p in &preds[b] {
                if idom[p].is_none() {
                    continue; // unreachable or not yet processed
                }
                new = Some(match new {
                    None => p,
                    Some(x) => intersect(&idom, p, x),
                });
            }
            if new.is_some() && idom[b] != new {
                idom[b] = new;
                changed = true;
            }
        }
    }
    idom[entry] = None;
    idom
}

/// Natural loops (one per header, merging its back edges), their nesting and the
/// per-block depth.
fn natural_loops(
    succs: &[Vec<usize>],
    preds: &[Vec<usize>],
    rpo: &[usize],
    rpo_index: &[usize],
    idom: &[Option<usize>],
) -> (Vec<Loop>, Vec<u32>) {
    let n = succs.len();
    let dominates = |a: usize, b: usize| {
        let mut x = b;
        loop {
            if x == a {
                return true;
            }
            match idom[x] {
                Some(p) => x = p,
                None => return false,
            }
        }
    };
    // Back-edge sources per header, headers in RPO order.
    let mut latches: BTreeMap<usize, Vec<usize>> = BTreeMap::new(); // rpo index of header -> sources
    for &u in rpo {
        for &h in &succs[u] {
            if rpo_index[h] <= rpo_index[u] && dominates(h, u) {
                latches.entry(rpo_index[h]).or_default().push(u);
            }
        }
    }
    let mut stamp = vec![usize::MAX; n];
    let mut bodies: Vec<(usize, Vec<usize>)> = Vec::new();
    for (k, (&hi, srcs)) in latches.iter().enumerate() {
        let h = rpo[hi];
        stamp[h] = k;
        let mut body = vec![h];
        let mut work: Vec<usize> = Vec::new();
        for &u in srcs {
            if stamp[u] != k {
                stamp[u] = k;
                body.push(u);
                work.push(u);
            }
        }
        while let Some(x) = work.pop() {
            for &p in &preds[x] {
                if rpo_index[p] != usize::MAX && stamp[p] != k {
                    stamp[p] = k;
                    body.push(p);
                    work.push(p);
                }
            }
        }
        body.sort_unstable();
        bodies.push((h, body));
    }

    // Nesting: visit loops largest first; the innermost loop seen so far that holds a
    // header is its parent (distinct natural loops are disjoint or nested).
    let mut by_size: Vec<usize> = (0..bodies.len()).collect();
    by_size.sort_by_key(|&i| (std::cmp::Reverse(bodies[i].1.len()), rpo_index[bodies[i].0]));
    let mut innermost: Vec<Option<usize>> = vec![None; n];
    let mut parent: Vec<Option<usize>> = vec![None; bodies.len()];
    let mut depth: Vec<u32> = vec![0; bodies.len()];
    for &i in &by_size {
        let (h, body) = &bodies[i];
        parent[i] = innermost[*h];
        depth[i] = parent[i].map_or(1, |p| depth[p] + 1);
        for &b in body {
            innermost[b] = Some(i);
        }
    }
    let loop_depth: Vec<u32> = innermost.iter().map(|l| l.map_or(0, |i| depth[i])).collect();

    // Outermost first: by depth, then header RPO position; remap parents.
    let mut order: Vec<usize> = (0..bodies.len()).collect();
    order.sort_by_key(|&i| (depth[i], rpo_index[bodies[i].0]));
    let mut new_index = vec![0; bodies.len()];
    for (ni, &i) in order.iter().enumerate() {
        new_index[i] = ni;
    }
    let loops = order
        .iter()
        .map(|&i| Loop {
            header: bodies[i].0,
            blocks: bodies[i].1.clone(),
            depth: depth[i],
            parent: parent[i].map(|p| new_index[p]),
        })
        .collect();
    (loops, loop_depth)
}
