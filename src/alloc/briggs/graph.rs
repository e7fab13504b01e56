//! Phase 1, Build (seed 002, "Phase 1: Build - Interference Graph Construction",
//! "Register Class Constraints", "Bank Conflict Constraints", "Precolored Nodes",
//! "Graph Sparsity Analysis").
//!
//! Nodes are alias roots (`alloc::ranges`) of allocatable classes with a live range;
//! node ids are vreg ids. Two nodes interfere exactly when their position runs intersect
//! — the relation the shared checker verifies — which is the seed's backward walk ("a
//! def interferes with everything live across it") made exact for values live without a
//! def (parameters, uninitialized reads). The seed's move rule ("dst does NOT interfere
//! with src") holds where the source dies at the move (its run ends at the read
//! position, the destination's starts at the write position); a source that stays live
//! after the move keeps its edge, since the checker would reject the shared register.
//!
//! The edges are found by one sweep over the runs of each file sorted by start (every
//! overlapping pair meets when the later run starts), deduplicated, and stored as sorted
//! adjacency lists. Class edges: edges only join nodes of one register file (R and R-alt
//! share one, UR and UR-ext another); the seed's GPR64/GPR32 "incompatibility edges" are
//! the interference edges between a pair and a single register of the same file, counted
//! apart. Bank edges (seed `same_memory_bank`: vreg ids equal modulo 32) are added only
//! under knob `radbg.BriggsBankEdges`: as written they join values that are never live
//! together, which is doubtful.
//!
//! Pre-coloured nodes: pins (`.pin`, `AllocConfig::abi_pins`). Physical operands and call
//! clobbers (seed "Edge Case 3": pre-coloured clobber nodes) are kept per node as the
//! physical registers of the window it may not cover where it is live; each counts one
//! towards its degree, as the clobber node would.
//!
//! Knows the IR, live ranges and colour windows; not costs, worklists or spill code.

use crate::alloc::briggs::select::Window;
use crate::alloc::briggs::{MoveState, RegSet};
use crate::alloc::ranges::Ranges;
use crate::ir::opcode::props;
use crate::ir::{Function, Operand, Reg, RegFile, VRegId};

/// A move (`%d = MOV %s`) between two nodes of one file and width.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Move {
    pub point: u32,
    pub dst: u32,
    pub src: u32,
    pub state: MoveState,
}

/// Figures of seed "Graph Sparsity Analysis" / "Average/Maximum Interference Graph Sizes".
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GraphStats {
    pub nodes: u32,
    pub edges: u64,
    pub precoloured: u32,
    /// Edges between a pair (or wider) node and a single-register node (GPR64/GPR32).
    pub class_edges: u64,
    /// Edges added only by the bank rule.
    pub bank_edges: u64,
    pub max_degree: u32,
    pub avg_degree: f64,
    /// `edges / (nodes × (nodes − 1) / 2)`.
    pub density: f64,
    pub moves: u32,
    /// Nodes with at least one physical constraint (operand or clobber).
    pub constrained_nodes: u32,
}

/// The interference graph of one iteration.
#[derive(Clone, Debug)]
pub struct Graph {
    /// Per vreg: whether it is a node.
    pub node: Vec<bool>,
    /// Per vreg: sorted neighbour ids (empty for non-nodes). Coalescing edits it.
    pub adj: Vec<Vec<u32>>,
    pub width: Vec<u8>,
    pub file: Vec<RegFile>,
    pub precolour: Vec<Option<u16>>,
    /// Physical registers of the window the node may not cover.
    pub physical: Vec<RegSet>,
    pub moves: Vec<Move>,
    /// Per node: indices into `moves` of the moves it takes part in.
    pub node_moves: Vec<Vec<u32>>,
    pub stats: GraphStats,
}

/// What the build needs besides the IR.
pub struct BuildInput<'a> {
    pub func: &'a Function,
    pub ranges: &'a Ranges,
    /// Per-vreg runs with alias links ignored, when the function has aliases: a node's
    /// runs are then the union of its members' (see [`build`]).
    pub members: Option<&'a Ranges>,
    /// Colour windows by `RegFile::index()`.
    pub windows: &'a [Window],
    /// Per vreg: its pre-colour (pin), for roots.
    pub pins: &'a [Option<u16>],
    pub clobbers: &'a [(String, Vec<u16>)],
    pub default_clobbers: &'a [u16],
    pub bank_edges: bool,
}

/// LSD radix sort of pair keys (11-bit digits, as many passes as the largest key needs):
/// the edge list of a dense graph has millions of entries, where a comparison sort
/// dominated the whole build.
pub fn radix_sort(v: &mut Vec<u64>) {
    let max = v.iter().copied().max().unwrap_or(0);
    if v.len() < 256 {
        v.sort_unstable();
        return;
    }
    let bits = 64 - max.leading_zeros();
    let mut buf = vec![0u64; v.len()];
    let mut shift = 0;
    while shift < bits {
        let mut count = [0usize; 2049];
        for &x in v.iter() {
            count[((x >> shift) & 0x7FF) as usize + 1] += 1;
        }
        for i in 0..2048 {
            count[i + 1] += count[i];
        }
        for &x in v.iter() {
            let d = ((x >> shift) & 0x7FF) as usize;
            buf[count[d]] = x;
            count[d] += 1;
        }
        std::mem::swap(v, &mut buf);
        shift += 11;
    }
}

/// Memory the dense form of [`EdgeSet`] may take (n² bits).
const MATRIX_BYTES: u64 = 64 << 20;

/// The interference edges while they are being found: a bit matrix when `n² / 8` bytes
/// fit [`MATRIX_BYTES`] (dense graphs of a few thousand nodes: millions of repeated
/// pairs cost one bit each), else a list of pair keys radix-sorted and deduplicated.
/// Both give the same sorted adjacency lists.
enum EdgeSet {
    Matrix { words: usize, bits: Vec<u64> },
    Pairs { nb: u32, keys: Vec<u64> },
}

impl EdgeSet {
    fn new(n: usize) -> EdgeSet {
        let n64 = n as u64;
        if n64 * n64 / 8 <= MATRIX_BYTES {
            let words = n.div_ceil(64);
            EdgeSet::Matrix { words, bits: vec![0; words * n] }
        } else {
            EdgeSet::Pairs { nb: 64 - n64.leading_zeros(), keys: Vec::new() }
        }
    }

    fn add(&mut self, a: u32, b: u32) {
        match self {
            EdgeSet::Matrix { words, bits } => {
                let (a, b) = (a as usize, b as usize);
                bits[a * *words + b / 64] |= 1 << (b % 64);
                bits[b * *words + a / 64] |= 1 << (a % 64);
            }
            EdgeSet::Pairs { nb, keys } => keys.push(pair_key(a, b, *nb)),
        }
    }

    /// Sorted adjacency lists.
    fn finish(self, n: usize) -> Vec<Vec<u32>> {
        match self {
            EdgeSet::Matrix { words, bits } => (0..n)
                .map(|v| {
                    let row = &bits[v * words..(v + 1) * words];
                    let mut l = Vec::with_capacity(row.iter().map(|w| w.count_ones() as usize).sum());
                    for (i, &w) in row.iter().enumerate() {
                        let mut w = w;
                        while w != 0 {
                            l.push((i * 64) as u32 + w.trailing_zeros());
                            w &= w - 1;
                        }
                    }
                    l
                })
                .collect(),
            EdgeSet::Pairs { nb, mut keys } => {
                radix_sort(&mut keys);
                keys.dedup();
                let mask = (1u64 << nb) - 1;
                let mut deg = vec![0usize; n];
                for &k in &keys {
                    deg[(k >> nb) as usize] += 1;
                    deg[(k & mask) as usize] += 1;
                }
                let mut adj: Vec<Vec<u32>> = deg.iter().map(|&d| Vec::with_capacity(d)).collect();
                // Keys are sorted by (low, high): each list receives its lower neighbours
                // in order, then its higher ones in order — sorted.
                for &k in &keys {
                    let (a, b) = ((k >> nb) as u32, (k & mask) as u32);
                    adj[a as usize].push(b);
                    adj[b as usize].push(a);
                }
                adj
            }
        }
    }
}

/// An unordered pair as one key: the lower id shifted above the higher one's `nb` bits.
fn pair_key(a: u32, b: u32, nb: u32) -> u64 {
    let (lo, hi) = if a < b { (a, b) } else { (b, a) };
    (lo as u64) << nb | hi as u64
}

/// Builds the graph.
pub fn build(inp: &BuildInput) -> Graph {
    let f = inp.func;
    let n = f.vregs.len();
    let ranges = inp.ranges;
    let mut node = vec![false; n];
    let mut width = vec![1u8; n];
    let mut file = vec![RegFile::R; n];
    let mut precolour = vec![None; n];
    for (i, v) in f.vregs.iter().enumerate() {
        let id = VRegId::new(i);
        width[i] = v.width.max(1);
        file[i] = v.file();
        node[i] = v.class.is_allocatable() && ranges.is_root(id) && !ranges.segments(id).is_empty();
        if node[i] {
            precolour[i] = inp.pins.get(i).copied().flatten();
        }
    }
    // An alias shares its root's register (the checker's alias rule), so a pin on any
    // member of an alias component pre-colours the component's node: the root's own pin
    // first, else the lowest-numbered pinned member's. Conflicting pins in one component
    // are unsatisfiable; the machine reports them (`BriggsAlloc::pin_failure`).
    for (i, p) in inp.pins.iter().enumerate().take(n) {
        let r = ranges.root[i].index();
        if let Some(p) = p
            && r != i
            && node[r]
            && precolour[r].is_none()
            && f.vregs[i].file() == file[r]
        {
            precolour[r] = Some(*p);
        }
    }

    // Physical events: (file, position, register) for registers inside a window.
    let in_window = |file: RegFile, r: u16| inp.windows.get(file.index()).is_some_and(|w| w.regs.contains(r));
    let mut phys: Vec<(usize, u32, u16)> = Vec::new();
    let layout = f.layout();
    for (b, block) in f.blocks.iter().enumerate() {
        for (i, inst) in block.insts.iter().enumerate() {
            let p = layout.point(b, i);
            let mut push = |r: crate::ir::PhysReg, pos: u32| {
                if !r.is_zero() && in_window(r.file, r.index) {
                    phys.push((r.file.index(), pos, r.index));
                }
            };
            if let Some(g) = inst.guard
                && let Reg::P(r) = g.reg
            {
                push(r, 2 * p);
            }
            for (k, op) in inst.operands.iter().enumerate() {
                match op {
                    Operand::Reg(Reg::P(r)) => push(*r, if k < inst.ndefs as usize { 2 * p + 1 } else { 2 * p }),
                    Operand::Mem(m) => {
                        for r in [m.base, m.index].into_iter().flatten() {
                            if let Reg::P(r) = r {
                                push(r, 2 * p);
                            }
                        }
                    }
                    _ => {}
                }
            }
            if inst.info().is(props::CALL) {
                let list = crate::alloc::driver::call_clobbers(inst, inp.clobbers, inp.default_clobbers);
                // The call's own results are written into their (pinned) registers.
                let mut own = RegSet::EMPTY;
                inst.for_each_def(|r| {
                    let root = ranges.root[r.vreg.index()].index();
                    if let Some(pc) = precolour.get(root).copied().flatten() {
                        own.insert_range(pc, width[root]);
                    }
                });
                for &c in list {
                    if !own.contains(c) && in_window(RegFile::R, c) {
                        phys.push((RegFile::R.index(), 2 * p + 1, c));
                    }
                }
            }
        }
    }
    phys.sort_unstable();
    phys.dedup();

    // Sweep each file's runs in start order.
    let mut physical = vec![RegSet::EMPTY; n];
    let mut edges_set = EdgeSet::new(n);
    for fi in RegFile::ALL {
        if !fi.has_liveness() {
            continue;
        }
        let mut segs: Vec<(u32, u32, u32)> = Vec::new();
        match inp.members {
            None => {
                for v in 0..n {
                    if node[v] && file[v] == fi {
                        for &(lo, hi) in ranges.segments(VRegId::new(v)) {
                            segs.push((lo, hi, v as u32));
                        }
                    }
                }
            }
            // The alias rule: a node occupies its register wherever any member is live by
            // its own liveness — the relation the checker verifies (it follows each vreg).
            // `alloc::ranges` folds a group into its root with a member's def closing the
            // root's run, which misses a member still live across another member's def.
            Some(members) => {
                for v in 0..n {
                    let r = ranges.root[v].index();
                    if node[r] && file[r] == fi {
                        for &(lo, hi) in members.segments(VRegId::new(v)) {
                            segs.push((lo, hi, r as u32));
                        }
                    }
                }
            }
        }
        segs.sort_unstable();
        let ev: Vec<(u32, u16)> = phys.iter().filter(|e| e.0 == fi.index()).map(|&(_, pos, r)| (pos, r)).collect();
        let mut active: Vec<(u32, u32)> = Vec::new();
        let mut si = 0;
        let add_until = |limit: u32, active: &mut Vec<(u32, u32)>, si: &mut usize, es: &mut EdgeSet| {
            while *si < segs.len() && segs[*si].0 <= limit {
                let (lo, hi, v) = segs[*si];
                active.retain(|&(h, _)| h >= lo);
                for &(_, a) in active.iter() {
                    if a != v {
                        es.add(a, v);
                    }
                }
                active.push((hi, v));
                *si += 1;
            }
        };
        for &(pos, r) in &ev {
            add_until(pos, &mut active, &mut si, &mut edges_set);
            active.retain(|&(h, _)| h >= pos);
            for &(_, v) in &active {
                physical[v as usize].insert(r);
            }
        }
        add_until(u32::MAX, &mut active, &mut si, &mut edges_set);
    }
    let mut adj = edges_set.finish(n);
    let interference: u64 = adj.iter().map(|l| l.len() as u64).sum::<u64>() / 2;

    let mut bank_edges = 0u64;
    if inp.bank_edges {
        // Seed `same_memory_bank`: ((id × 4) % 128) / 4 % 32 — ids equal modulo 32.
        for fi in RegFile::ALL {
            let mut buckets: Vec<Vec<u32>> = vec![Vec::new(); 32];
            for v in 0..n {
                if node[v] && file[v] == fi {
                    buckets[((v as u64 * 4 % 128) / 4 % 32) as usize].push(v as u32);
                }
            }
            // Every node of a bucket gains the bucket (less itself): merge the sorted lists.
            for b in &buckets {
                for &x in b {
                    let xi = x as usize;
                    let before = adj[xi].len();
                    let mut merged = Vec::with_capacity(before + b.len());
                    let (mut i, mut j) = (0, 0);
                    while i < adj[xi].len() || j < b.len() {
                        let (p, q) = (adj[xi].get(i).copied(), b.get(j).copied());
                        match (p, q) {
                            (Some(p), Some(q)) if p == q => {
                                merged.push(p);
                                i += 1;
                                j += 1;
                            }
                            (Some(p), Some(q)) if p < q => {
                                merged.push(p);
                                i += 1;
                            }
                            (_, Some(q)) => {
                                if q != x {
                                    merged.push(q);
                                }
                                j += 1;
                            }
                            (Some(p), None) => {
                                merged.push(p);
                                i += 1;
                            }
                            (None, None) => break,
                        }
                    }
                    bank_edges += (merged.len() - before) as u64;
                    adj[xi] = merged;
                }
            }
        }
        bank_edges /= 2;
    }

    let deg: Vec<u32> = adj.iter().map(|l| l.len() as u32).collect();
    let mut class_edges = 0u64;
    for (a, l) in adj.iter().enumerate() {
        for &b in l {
            if (b as usize) > a && (width[a] == 1) != (width[b as usize] == 1) {
                class_edges += 1;
            }
        }
    }
    let mut moves = Vec::new();
    let mut node_moves = vec![Vec::new(); n];
    for (b, block) in f.blocks.iter().enumerate() {
        for (i, inst) in block.insts.iter().enumerate() {
            let Some((d, s)) = move_operands(inst) else { continue };
            let (d, s) = (ranges.root[d.index()].index(), ranges.root[s.index()].index());
            if d == s || !node[d] || !node[s] || file[d] != file[s] || width[d] != width[s] {
                continue;
            }
            let m = moves.len() as u32;
            moves.push(Move { point: layout.point(b, i), dst: d as u32, src: s as u32, state: MoveState::Active });
            node_moves[d].push(m);
            node_moves[s].push(m);
        }
    }

    let nodes = node.iter().filter(|&&x| x).count() as u32;
    let total_deg: u64 = deg.iter().map(|&d| d as u64).sum();
    let edges = total_deg / 2;
    let stats = GraphStats {
        nodes,
        edges,
        precoloured: precolour.iter().filter(|p| p.is_some()).count() as u32,
        class_edges,
        bank_edges,
        max_degree: deg.iter().copied().max().unwrap_or(0),
        avg_degree: if nodes > 0 { total_deg as f64 / nodes as f64 } else { 0.0 },
        density: if nodes > 1 { edges as f64 / (nodes as f64 * (nodes as f64 - 1.0) / 2.0) } else { 0.0 },
        moves: moves.len() as u32,
        constrained_nodes: physical.iter().filter(|s| !s.is_empty()).count() as u32,
    };
    debug_assert_eq!(stats.edges, interference + bank_edges);
    Graph { node, adj, width, file, precolour, physical, moves, node_moves, stats }
}

/// `(dst, src)` of a plain register copy: an unguarded MOVE-class instruction writing one
/// whole vreg from one whole vreg and nothing else (seed "identify_move_candidates").
pub fn move_operands(inst: &crate::ir::Inst) -> Option<(VRegId, VRegId)> {
    if !inst.info().is(props::MOVE) || !inst.guard_is_always() || inst.ndefs != 1 || inst.operands.len() != 2 {
        return None;
    }
    let d = inst.operands[0].as_vreg().filter(|r| r.comp.is_none())?;
    let s = inst.operands[1].as_vreg().filter(|r| r.comp.is_none())?;
    Some((d.vreg, s.vreg))
}

impl Graph {
    pub fn has_edge(&self, a: u32, b: u32) -> bool {
        self.adj.get(a as usize).is_some_and(|l| l.binary_search(&b).is_ok())
    }
}
