//! Per-node facts of the machine for the debugger's `print %x` and graph view (degree,
//! K, spill cost and priority, status, colour, the graph's figures now), the groups of
//! vregs sharing a node's colour, and the allocation's statistics.
//!
//! Part of the machine (it reads its private state); knows nothing of the UI.

use crate::alloc::briggs::graph::Graph;
use crate::alloc::briggs::machine::BriggsAlloc;
use crate::alloc::briggs::simplify::Status;
use crate::alloc::briggs::simplify::Work;
use crate::alloc::briggs::stats::BriggsStats;
use crate::ir::VRegId;

/// What the machine knows of one node at this moment.
#[derive(Clone, Debug, PartialEq)]
pub struct NodeInfo {
    /// The node the vreg belongs to (its alias root, or what coalescing merged it into).
    pub node: VRegId,
    /// Colours its neighbours still in the graph can cover (seed "degree").
    pub degree: u32,
    /// Neighbours whose own degree is at least their K.
    pub high_neighbours: u32,
    /// Start colours of its class in the window.
    pub k: u32,
    pub briggs_safe: bool,
    /// Spill cost (infinite: unspillable).
    pub cost: f64,
    /// `cost / (degree × 0.8)`, infinite when Briggs-safe.
    pub priority: f64,
    /// `precoloured`, `in graph`, `deferred`, `on stack`, `coloured`, `merged`.
    pub status: &'static str,
    pub colour: Option<u16>,
    /// Chosen as an optimistic spill candidate this iteration.
    pub candidate: bool,
    pub neighbours: u32,
}

/// The current graph's size now (coalescing shrinks it).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct GraphNow {
    pub nodes: u32,
    pub edges: u64,
    pub merged: u32,
    pub on_stack: u32,
    pub coloured: u32,
}

impl BriggsAlloc {
    /// Statistics (graph figures from the first iteration, the rest from the result).
    pub fn stats(&self) -> BriggsStats {
        let g = self.first_graph.clone().unwrap_or_default();
        let moves = self.graph.as_ref().map_or(0, |g| g.moves.len() as u32);
        let coalesced = self
            .graph
            .as_ref()
            .map_or(0, |g| g.moves.iter().filter(|m| m.state == crate::alloc::briggs::MoveState::Coalesced).count())
            as u32;
        let vregs = g.nodes.saturating_sub(g.precoloured);
        let spilled = self.plan.len() as u32;
        let (st, ld) = crate::alloc::spill::traffic(&self.func);
        let sc = self.spill.as_deref();
        let k = self.k_list();
        BriggsStats {
            function: self.original.name.to_string(),
            ok: self.failure.is_none(),
            failure: self.failure.clone(),
            k,
            nodes: g.nodes,
            edges: g.edges,
            density: g.density,
            max_degree: g.max_degree,
            avg_degree: g.avg_degree,
            precoloured: g.precoloured,
            class_edges: g.class_edges,
            bank_edges: g.bank_edges,
            moves,
            coalesced,
            coalesce_rate: if moves > 0 { coalesced as f64 / moves as f64 } else { 0.0 },
            vregs,
            spilled,
            spill_rate: if vregs > 0 { spilled as f64 / vregs as f64 } else { 0.0 },
            iterations: self.iteration,
            registers: self.registers(),
            stores: sc.map_or(0, |s| s.stores),
            reloads: sc.map_or(0, |s| s.reloads),
            reloads_avoided: sc.map_or(0, |s| s.eliminated),
            remats: sc.map_or(0, |s| s.remats),
            frame_bytes: sc.map_or(0, |s| s.frame_local),
            smem_bytes: sc.map_or(0, |s| s.frame_shared),
            spill_store_bytes: st,
            spill_load_bytes: ld,
        }
    }

    /// Facts about `v`'s node in the current iteration's graph (`None` before the build
    /// or when `v` takes no part in it).
    pub fn node_info(&self, v: VRegId) -> Option<NodeInfo> {
        let (g, w) = (self.graph.as_ref()?, self.work.as_ref()?);
        let n = self.node_of(v)?;
        let ni = n as usize;
        let status = match w.status[ni] {
            Status::NotNode => return None,
            Status::Precoloured => "precoloured",
            Status::InGraph if w.colour[ni].is_some() => "coloured",
            Status::InGraph => "in graph",
            Status::Deferred => "deferred",
            Status::OnStack => "on stack",
            Status::Merged => "merged",
        };
        Some(NodeInfo {
            node: VRegId(n),
            degree: w.degree[ni],
            high_neighbours: w.high[ni],
            k: w.k[ni],
            briggs_safe: w.briggs_safe(n),
            cost: w.cost[ni],
            priority: w.priority(n),
            status,
            colour: w.colour[ni],
            candidate: w.candidate[ni],
            neighbours: g.adj[ni].len() as u32,
        })
    }

    /// The current graph's figures.
    pub fn graph_now(&self) -> GraphNow {
        let (Some(g), Some(w)) = (self.graph.as_ref(), self.work.as_ref()) else {
            return GraphNow::default();
        };
        let mut s = GraphNow::default();
        for v in 0..g.node.len() {
            match w.status[v] {
                Status::NotNode => continue,
                Status::Merged => s.merged += 1,
                Status::OnStack => s.on_stack += 1,
                _ => {}
            }
            if w.status[v] != Status::Merged {
                s.nodes += 1;
                s.edges += g.adj[v].len() as u64;
                if w.colour[v].is_some() {
                    s.coloured += 1;
                }
            }
        }
        s.edges /= 2;
        s
    }
}

/// Per node: the other vregs that take its colour — nodes coalesced into it and alias
/// members of it or of them — ascending. Empty lists for most nodes.
pub(super) fn group_members(g: &Graph, w: &Work, root: &[VRegId]) -> Vec<Vec<u32>> {
    let n = g.node.len();
    let mut out = vec![Vec::new(); n];
    for v in 0..n {
        let r = root.get(v).map_or(v, |r| r.index());
        if r >= n || !g.node[r] {
            continue;
        }
        let node = w.find(r as u32) as usize;
        if node != v {
            out[node].push(v as u32);
        }
    }
    out
}
