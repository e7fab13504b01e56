//! Events of the Chaitin-Briggs machine: each call to `BriggsAlloc::step` returns one,
//! carrying enough to explain itself in one line (`describe`).
//!
//! Knows the IR for names; nothing of the machine's internals.

use crate::alloc::briggs::coalesce::Criterion;
use crate::ir::{Function, RegFile, VRegId};

/// One step of the Chaitin-Briggs allocator (seed 002's six phases, iterated).
#[derive(Clone, Debug, PartialEq)]
pub enum BriggsEvent {
    /// An iteration begins on the current IR (1-based).
    IterationStart { n: u32, insts: u32, vregs: u32 },
    /// Phase 1: the graph is built.
    Build(Box<Build>),
    /// Phase 3: `removed` was merged into `keep`.
    Coalesced { keep: VRegId, removed: VRegId, criterion: Criterion, round: u32, point: u32, degree: u32 },
    /// The main loop's worklists are filled.
    Worklists { simplify: u32, freeze: u32, spill: u32, coalesced: u32 },
    /// Phase 2: a node left the graph for the colouring stack.
    NodeRemoved { vreg: VRegId, degree: u32, k: u32, high_neighbours: u32, briggs_safe: bool },
    /// Phase 4: a move-related node gave up its moves.
    Frozen { vreg: VRegId, moves: u32, degree: u32, to_simplify: bool },
    /// Phase 5: the cheapest node by `cost / (degree × 0.8)` was pushed optimistically.
    SpillCandidate { vreg: VRegId, cost: f64, degree: u32, priority: f64 },
    /// Phase 6: a node got a colour (its start register). `members`: the other vregs that
    /// take it with the node (coalesced into it, alias members).
    ///
    /// The lists are boxed slices, not vectors, so the event fits the size of the trace's
    /// events (`engine::event`).
    ColourAssigned { vreg: VRegId, colour: u16, forbidden: Box<[u16]>, members: Box<[VRegId]> },
    /// Phase 6: no colour was left — an actual spill.
    ActualSpill { vreg: VRegId, forbidden: Box<[u16]>, candidate: bool, members: Box<[VRegId]> },
    /// The iteration's colouring is complete; `spilled` are the original vregs it spills.
    IterationEnd { n: u32, spilled: Vec<VRegId>, coloured: u32 },
    /// Spill code was regenerated for every vreg spilled so far.
    SpillCode(Box<SpillCode>),
    /// The allocation is over.
    Finalize { ok: bool, iterations: u32, spilled: u32, registers: u32, message: Option<String> },
}

/// Phase 1's graph figures ([`BriggsEvent::Build`], boxed: a rare event whose fields would
/// otherwise size every event of the trace).
#[derive(Clone, Debug, PartialEq)]
pub struct Build {
    pub iteration: u32,
    pub nodes: u32,
    pub edges: u64,
    pub precoloured: u32,
    pub class_edges: u64,
    pub bank_edges: u64,
    pub moves: u32,
    pub max_degree: u32,
    pub avg_degree: f64,
    pub density: f64,
    /// K of each register file that has nodes.
    pub k: Vec<(RegFile, u32)>,
}

/// The spill code of an iteration ([`BriggsEvent::SpillCode`], boxed: a rare event whose fields would
/// otherwise size every event of the trace).
#[derive(Clone, Debug, PartialEq)]
pub struct SpillCode {
    pub iteration: u32,
    /// Vregs spilled by this iteration, with their slot offset (`None`: rematerialized).
    pub vregs: Vec<(VRegId, Option<u32>)>,
    /// Vregs switched from lazy to eager reloads.
    pub eager: Vec<VRegId>,
    /// (vreg that could neither get a colour nor shrink, neighbour spilled instead).
    pub evicted: Vec<(VRegId, VRegId)>,
    pub stores: u32,
    pub reloads: u32,
    pub eliminated: u32,
    pub remats: u32,
    pub frame: u32,
}

fn name(f: &Function, v: VRegId) -> String {
    f.vregs.get(v.index()).map(|r| r.name.to_string()).unwrap_or_else(|| format!("vreg#{}", v.0))
}

fn names(f: &Function, vs: &[VRegId]) -> String {
    vs.iter().map(|&v| name(f, v)).collect::<Vec<_>>().join(" ")
}

fn regs(list: &[u16]) -> String {
    if list.is_empty() {
        return "-".into();
    }
    list.iter().map(|r| r.to_string()).collect::<Vec<_>>().join(",")
}

fn num(x: f64) -> String {
    if x.is_infinite() { "inf".into() } else { format!("{x:.3}") }
}

impl BriggsEvent {
    /// A short name for breakpoints and filters (`briggs.removed` ...).
    pub fn kind(&self) -> &'static str {
        match self {
            BriggsEvent::IterationStart { .. } => "iteration-start",
            BriggsEvent::Build(_) => "build",
            BriggsEvent::Coalesced { .. } => "coalesced",
            BriggsEvent::Worklists { .. } => "worklists",
            BriggsEvent::NodeRemoved { .. } => "node-removed",
            BriggsEvent::Frozen { .. } => "frozen",
            BriggsEvent::SpillCandidate { .. } => "spill-candidate",
            BriggsEvent::ColourAssigned { .. } => "colour-assigned",
            BriggsEvent::ActualSpill { .. } => "actual-spill",
            BriggsEvent::IterationEnd { .. } => "iteration-end",
            BriggsEvent::SpillCode(_) => "spill-code",
            BriggsEvent::Finalize { .. } => "finalize",
        }
    }

    /// The vreg the event is about, if one.
    pub fn vreg(&self) -> Option<VRegId> {
        match self {
            BriggsEvent::Coalesced { keep, .. } => Some(*keep),
            BriggsEvent::NodeRemoved { vreg, .. }
            | BriggsEvent::Frozen { vreg, .. }
            | BriggsEvent::SpillCandidate { vreg, .. }
            | BriggsEvent::ColourAssigned { vreg, .. }
            | BriggsEvent::ActualSpill { vreg, .. } => Some(*vreg),
            _ => None,
        }
    }

    /// One line, with vreg names from `f` (the IR of the iteration the event belongs to).
    pub fn describe(&self, f: &Function) -> String {
        match self {
            BriggsEvent::IterationStart { n, insts, vregs } => {
                format!("briggs: iteration {n} on {insts} instructions, {vregs} vregs")
            }
            BriggsEvent::Build(b) => {
                let Build {
                    iteration,
                    nodes,
                    edges,
                    precoloured,
                    class_edges,
                    bank_edges,
                    moves,
                    max_degree,
                    avg_degree,
                    density,
                    k,
                } = &**b;
                let ks: Vec<String> = k.iter().map(|(file, k)| format!("{}={k}", file.prefix())).collect();
                format!(
                    "briggs: build {iteration}: {nodes} nodes, {edges} edges ({class_edges} pair/single, {bank_edges} bank), \
                     {precoloured} pre-coloured, {moves} moves, degree max {max_degree} avg {avg_degree:.2}, \
                     density {:.2}%, K {}",
                    density * 100.0,
                    ks.join(" ")
                )
            }
            BriggsEvent::Coalesced { keep, removed, criterion, round, point, degree } => format!(
                "briggs: coalesce [{point}] {} into {} ({}, round {round}), merged degree {degree}",
                name(f, *removed),
                name(f, *keep),
                criterion.name()
            ),
            BriggsEvent::Worklists { simplify, freeze, spill, coalesced } => format!(
                "briggs: worklists: {simplify} simplify, {freeze} freeze, {spill} spill ({coalesced} moves coalesced)"
            ),
            BriggsEvent::NodeRemoved { vreg, degree, k, high_neighbours, briggs_safe } => {
                let why = if degree < k {
                    format!("degree {degree} < K={k}")
                } else if *briggs_safe {
                    format!("degree {degree} >= K={k} but Briggs-safe: {high_neighbours} high-degree neighbours")
                } else {
                    format!("degree {degree}, not Briggs-safe")
                };
                format!("briggs: simplify {} ({why})", name(f, *vreg))
            }
            BriggsEvent::Frozen { vreg, moves, degree, to_simplify } => format!(
                "briggs: freeze {} ({moves} moves given up, degree {degree}) -> {} worklist",
                name(f, *vreg),
                if *to_simplify { "simplify" } else { "spill" }
            ),
            BriggsEvent::SpillCandidate { vreg, cost, degree, priority } => format!(
                "briggs: spill candidate {} (cost {}, degree {degree}, priority {})",
                name(f, *vreg),
                num(*cost),
                num(*priority)
            ),
            BriggsEvent::ColourAssigned { vreg, colour, forbidden, members } => {
                let v = f.vregs.get(vreg.index());
                let reg = match v {
                    Some(v) if v.width > 1 => {
                        format!("{p}{colour}..{p}{}", colour + v.width as u16 - 1, p = v.file().prefix())
                    }
                    Some(v) => format!("{}{colour}", v.file().prefix()),
                    None => colour.to_string(),
                };
                let with = if members.is_empty() { String::new() } else { format!(" with {}", names(f, members)) };
                format!("briggs: colour {}{with} = {reg} (neighbours forbid {})", name(f, *vreg), regs(forbidden))
            }
            BriggsEvent::ActualSpill { vreg, forbidden, candidate, members } => format!(
                "briggs: no colour for {}{}{} (forbidden {}): actual spill",
                name(f, *vreg),
                if members.is_empty() { String::new() } else { format!(" with {}", names(f, members)) },
                if *candidate { " (optimistic candidate)" } else { "" },
                regs(forbidden)
            ),
            BriggsEvent::IterationEnd { n, spilled, coloured } => {
                if spilled.is_empty() {
                    format!("briggs: iteration {n} done: {coloured} nodes coloured, nothing spilled")
                } else {
                    format!(
                        "briggs: iteration {n} done: {coloured} nodes coloured, {} spilled: {}",
                        spilled.len(),
                        names(f, spilled)
                    )
                }
            }
            BriggsEvent::SpillCode(c) => {
                let SpillCode { iteration, vregs, eager, evicted, stores, reloads, eliminated, remats, frame } = &**c;
                let list: Vec<String> = vregs
                    .iter()
                    .map(|(v, o)| match o {
                        Some(o) => format!("{}@{o:#x}", name(f, *v)),
                        None => format!("{}@remat", name(f, *v)),
                    })
                    .collect();
                let mut s = format!(
                    "briggs: spill code {iteration}: [{}] {stores} stores, {reloads} reloads ({eliminated} avoided), \
                     {remats} rematerialized, frame {frame} bytes",
                    list.join(" ")
                );
                if !eager.is_empty() {
                    s.push_str(&format!("; eager reloads for {}", names(f, eager)));
                }
                for (v, t) in evicted {
                    s.push_str(&format!("; {} spilled to make room for {}", name(f, *t), name(f, *v)));
                }
                s
            }
            BriggsEvent::Finalize { ok, iterations, spilled, registers, message } => match message {
                Some(m) if !ok => format!("briggs: failed after {iterations} iterations: {m}"),
                _ => format!(
                    "briggs: done after {iterations} iterations: {registers} registers, {spilled} vregs spilled"
                ),
            },
        }
    }
}
