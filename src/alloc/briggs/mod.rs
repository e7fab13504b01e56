//! CICC's Chaitin-Briggs register allocator (seed 002) as a steppable machine, next to
//! the ptxas fat-point allocator, on the same IR, liveness, AllocConfig and checker.
//!
//! One file per phase of seed 002's "Complete Chaitin-Briggs Algorithm":
//! - `graph`: Phase 1, Build — interference edges (exactly the position-run relation of
//!   `alloc::ranges`, so the shared checker validates both allocators), width-class and
//!   bank edges, pre-coloured nodes, physical constraints, moves, graph statistics;
//! - `cost`: "Spill Cost Formula — Deep Dive" (def/use frequencies, memory latency,
//!   `1.5^loop_depth`) and the priority `spill_cost / (degree × 0.8)`;
//! - `coalesce`: Phase 3, Briggs and George conservative coalescing, iterated;
//! - `simplify`: Phase 2 and the main loop's worklists (max-heap simplify, FIFO
//!   freeze, min-heap spill) with the seed's tie-breaking and priority updates;
//! - `freeze`: Phase 4; `select`: Phase 6, colour windows and masks (`0x7FFF` for K = 15);
//! - `spill`: Phase 5's consequences — slots, spill-slot coalescing, stores, lazy reload
//!   in four phases, rematerialization;
//! - `machine`: [`BriggsAlloc`], one event per phase action, iterating until nothing
//!   spills; `event`: [`BriggsEvent`]; `stats`: [`BriggsStats`]; `view`: what the debugger
//!   shows of a run (neighbours, colours, graph, iterations), as plain data.
//!
//! How K and radbg's budget combine (`select::windows`): per register file, the colours
//! are the K lowest registers the function may use — below the budget
//! (`AllocConfig::gpr_budget` for R, the file cap otherwise), at or above
//! `AllocConfig::first_free`, not fixed, not the zero register. K is knob `radbg.BriggsK`,
//! or the seed's per-architecture table (15 on every SM from 70 to 100, "K=15
//! Justification") when the knob is 0; a budget or a file with fewer usable registers
//! lowers it. Predicates use the PRED mask `0x00FF` less PT (7 colours).
//!
//! Architecture invariant: this module shares only the IR, `crate::analysis`,
//! `alloc::ranges` (the interference relation), `AllocConfig` and the checker's result
//! type with the rest of radbg; it knows nothing of the fat-point allocator's internals
//! or of the debugger's UI.

pub mod coalesce;
pub mod cost;
pub mod event;
pub mod freeze;
pub mod graph;
pub mod machine;
pub mod select;
pub mod simplify;
pub mod spill;
pub mod stats;
pub mod view;

use std::fmt;

use crate::ir::{RegFile, VRegId};

pub use event::BriggsEvent;
pub use machine::{BriggsAlloc, GraphNow, NodeInfo};
pub use stats::BriggsStats;

/// A set of physical registers of one file (256 bits: every file fits).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Hash)]
pub struct RegSet(pub [u64; 4]);

impl RegSet {
    pub const EMPTY: RegSet = RegSet([0; 4]);

    pub fn contains(&self, r: u16) -> bool {
        (r as usize) < 256 && self.0[r as usize / 64] >> (r % 64) & 1 == 1
    }
    pub fn insert(&mut self, r: u16) {
        if (r as usize) < 256 {
            self.0[r as usize / 64] |= 1 << (r % 64);
        }
    }
    pub fn remove(&mut self, r: u16) {
        if (r as usize) < 256 {
            self.0[r as usize / 64] &= !(1 << (r % 64));
        }
    }
    /// Inserts `start..start + width` (clipped to the set).
    pub fn insert_range(&mut self, start: u16, width: u8) {
        for k in 0..width.max(1) as u16 {
            self.insert(start.saturating_add(k));
        }
    }
    pub fn union(&self, o: &RegSet) -> RegSet {
        RegSet(std::array::from_fn(|i| self.0[i] | o.0[i]))
    }
    pub fn intersect(&self, o: &RegSet) -> RegSet {
        RegSet(std::array::from_fn(|i| self.0[i] & o.0[i]))
    }
    pub fn minus(&self, o: &RegSet) -> RegSet {
        RegSet(std::array::from_fn(|i| self.0[i] & !o.0[i]))
    }
    pub fn count(&self) -> u32 {
        self.0.iter().map(|w| w.count_ones()).sum()
    }
    pub fn is_empty(&self) -> bool {
        self.0 == [0; 4]
    }
    /// The registers, ascending.
    pub fn iter(&self) -> impl Iterator<Item = u16> + '_ {
        self.0.iter().enumerate().flat_map(|(i, &w)| {
            let mut w = w;
            std::iter::from_fn(move || {
                if w == 0 {
                    return None;
                }
                let b = w.trailing_zeros();
                w &= w - 1;
                Some(i as u16 * 64 + b as u16)
            })
        })
    }
    pub fn to_vec(&self) -> Vec<u16> {
        self.iter().collect()
    }
    /// The seed's notation: a hexadecimal bit mask, register 0 in bit 0 (`0x7FFF`).
    pub fn hex(&self) -> String {
        let top = (0..4).rev().find(|&i| self.0[i] != 0);
        match top {
            None => "0x0".to_string(),
            Some(t) => {
                let mut s = format!("0x{:X}", self.0[t]);
                for i in (0..t).rev() {
                    s.push_str(&format!("{:016X}", self.0[i]));
                }
                s
            }
        }
    }
}

impl fmt::Display for RegSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.hex())
    }
}

/// What the colour of one node may be at this moment (seed 002, "Color Assignment"):
/// the class window, the registers its coloured neighbours occupy, the physical
/// registers it may not cover, and the start colours that remain.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ColourMask {
    pub file: RegFile,
    /// Width of the node in registers (pairs take even starts, quads and wider multiples of 4).
    pub width: u8,
    /// The K colours of the class (`0x7FFF` for K = 15 from R0).
    pub window: RegSet,
    /// Registers occupied by neighbours that already have a colour.
    pub neighbours: RegSet,
    /// Physical registers the node may not cover: physical operands and call clobbers
    /// where it is live (the seed's pre-coloured clobber nodes).
    pub physical: RegSet,
    /// Start colours still possible, ascending; the lowest is what select takes.
    pub available: Vec<u16>,
}

impl ColourMask {
    /// Start colours neighbours and physical constraints forbid, within the window.
    pub fn forbidden(&self) -> Vec<u16> {
        self.window.intersect(&self.neighbours.union(&self.physical)).to_vec()
    }
}

impl fmt::Display for ColourMask {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let blocked = self.window.intersect(&self.neighbours.union(&self.physical));
        write!(f, "window {} neighbours {} physical {} free {}", self.window, self.neighbours, self.physical, {
            self.window.minus(&blocked)
        })
    }
}

/// How a move ended up (seed 002, "Iterated Coalescing": `coalesced`, `frozen`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum MoveState {
    /// Still a coalescing candidate.
    Active,
    Coalesced,
    /// Can never be coalesced: the two nodes interfere, or one is pre-coloured or spill
    /// code.
    Constrained,
    /// Given up by the freeze phase.
    Frozen,
}

impl MoveState {
    pub fn name(self) -> &'static str {
        match self {
            MoveState::Active => "active",
            MoveState::Coalesced => "coalesced",
            MoveState::Constrained => "constrained",
            MoveState::Frozen => "frozen",
        }
    }
}

/// One move of the current graph as the worklist pane shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveView {
    /// Program point of the MOV.
    pub point: u32,
    pub dst: VRegId,
    pub src: VRegId,
    pub state: MoveState,
}

/// The worklists of the main loop, each in the order it will be served.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Worklists {
    /// Max-heap by priority (Briggs-safe = infinite), then lower degree, then lower id.
    pub simplify: Vec<VRegId>,
    /// FIFO of move-related nodes.
    pub freeze: Vec<VRegId>,
    /// Min-heap by `spill_cost / (degree × 0.8)`.
    pub spill: Vec<VRegId>,
    pub moves: Vec<MoveView>,
}
