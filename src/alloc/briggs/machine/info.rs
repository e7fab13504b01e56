//! Per-node facts of the machine for the debugger's `print %x` and graph view: degree,
//! K, spill cost and priority, status, colour, and the graph's figures now.
//!
//! Part of the machine (it reads its private state); knows nothing of the UI.

use crate::alloc::briggs::machine::BriggsAlloc;
use crate::alloc::briggs::simplify::Status;
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
