//! Phase 4, Freeze (seed 002, "Phase 4: Freeze - Disable Coalescing for High-Degree
//! Nodes"): when the simplify worklist is empty, the oldest move-related node gives up
//! its moves and goes to the simplify worklist if its degree is below K, else to the
//! spill worklist. Its move partners are left where they are (the seed does not revisit
//! them). Coalescing runs before the main loop in radbg's reading of the seed (see
//! `coalesce`), so freezing only decides where move-related nodes wait.
//!
//! Knows the worklists and moves; not costs or colours.

use crate::alloc::briggs::MoveState;
use crate::alloc::briggs::graph::Graph;
use crate::alloc::briggs::simplify::Work;

/// One frozen node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Frozen {
    pub vreg: u32,
    /// Moves given up.
    pub moves: u32,
    pub degree: u32,
    /// Went to the simplify worklist (degree < K); else to the spill worklist.
    pub to_simplify: bool,
}

/// Freezes the next node of the FIFO; `None` when it is empty.
pub fn step(g: &mut Graph, w: &mut Work) -> Option<Frozen> {
    let v = w.pop_freeze()?;
    let mut moves = 0;
    for &m in &g.node_moves[v as usize] {
        let mv = &mut g.moves[m as usize];
        if mv.state == MoveState::Active {
            mv.state = MoveState::Frozen;
            moves += 1;
        }
    }
    let degree = w.degree[v as usize];
    let to_simplify = degree < w.k[v as usize];
    if to_simplify {
        w.push_simplify(v);
    } else {
        w.push_spill(v);
    }
    Some(Frozen { vreg: v, moves, degree, to_simplify })
}

/// Whether a node still has a move that may be coalesced (seed `is_move_related`).
pub fn move_related(g: &Graph, w: &Work, v: u32) -> bool {
    g.node_moves[v as usize].iter().any(|&m| {
        let mv = &g.moves[m as usize];
        mv.state == MoveState::Active && w.find(mv.src) != w.find(mv.dst)
    })
}
