//! Queries at the cursor for a Chaitin-Briggs run (seed 002): the current node's
//! neighbours with their colours (`constraints`), its colour availability (`hist`), the
//! simplify stack, worklists and graph figures (`graph`), one vreg's degree, cost,
//! priority and colour (`print`), and the iterations so far (`attempts`). Plain data
//! with public fields; rendering lives in `command::render_briggs`.

use crate::alloc::briggs::{BriggsAlloc, BriggsEvent, MoveState, NodeInfo};
use crate::engine::briggs::briggs_of;
use crate::engine::debugger::Debugger;
use crate::engine::event::EventKind;
use crate::engine::query::reg_name;
use crate::ir::{Function, RegFile, VRegId};

fn name(f: &Function, v: VRegId) -> String {
    f.vregs.get(v.index()).map(|r| r.name.clone()).unwrap_or_else(|| format!("vreg#{}", v.0))
}

fn reg_of(f: &Function, v: VRegId, colour: Option<u16>) -> Option<String> {
    let r = f.vregs.get(v.index())?;
    colour.map(|c| reg_name(r.file(), c, r.width))
}

/// The Briggs machine of the function the debugger looks at, if the run uses it.
pub fn briggs_at(d: &Debugger, fi: usize) -> Option<&BriggsAlloc> {
    briggs_of(d.machine(), fi)
}

/// The vreg the current Briggs event is about, else the machine's current node.
pub fn event_node(d: &Debugger) -> Option<(usize, VRegId)> {
    let e = d.current()?;
    let fi = e.func?;
    if let EventKind::Briggs(b) = &e.kind
        && let Some(v) = b.vreg()
    {
        return Some((fi, v));
    }
    let b = briggs_of(d.machine(), fi)?;
    b.current_node().map(|v| (fi, v))
}

/// One neighbour of a node.
#[derive(Clone, Debug, PartialEq)]
pub struct NeighbourView {
    pub name: String,
    /// Its register, once coloured (or pre-coloured).
    pub colour: Option<String>,
    /// Where it is: `in graph`, `on stack`, `coloured`, `precoloured` …
    pub status: String,
    pub degree: u32,
}

/// A node and its neighbours in the current graph (`constraints` under Briggs).
#[derive(Clone, Debug, PartialEq)]
pub struct NeighboursView {
    pub vreg: String,
    /// The node it belongs to when that is another vreg (alias root, coalesced into).
    pub node: Option<String>,
    pub colour: Option<String>,
    pub degree: u32,
    pub k: u32,
    pub neighbours: Vec<NeighbourView>,
    /// Physical registers it may not cover (operands, call clobbers where it is live).
    pub physical: Vec<String>,
}

pub fn neighbours(b: &BriggsAlloc, v: VRegId) -> Option<NeighboursView> {
    let f = b.func();
    let info = b.node_info(v)?;
    let file = f.vregs.get(v.index()).map_or(RegFile::R, |r| r.file());
    let mut list: Vec<NeighbourView> = b
        .neighbours(v)
        .into_iter()
        .map(|(t, c)| {
            let ti = b.node_info(t);
            NeighbourView {
                name: name(f, t),
                colour: reg_of(f, t, c),
                status: ti.as_ref().map_or("-", |i| i.status).to_string(),
                degree: ti.map_or(0, |i| i.degree),
            }
        })
        .collect();
    // Coloured neighbours first, by register; then the rest by name order of ids.
    list.sort_by_key(|a| (a.colour.is_none(), reg_key(&a.colour)));
    let mask = b.colour_mask(v);
    Some(NeighboursView {
        vreg: name(f, v),
        node: (info.node != v).then(|| name(f, info.node)),
        colour: reg_of(f, v, b.slot_of(v)),
        degree: info.degree,
        k: info.k,
        neighbours: list,
        physical: mask.window.intersect(&mask.physical).iter().map(|r| format!("{}{r}", file.prefix())).collect(),
    })
}

fn reg_key(r: &Option<String>) -> u32 {
    r.as_deref()
        .map(|s| s.trim_start_matches(|c: char| c.is_ascii_alphabetic()))
        .and_then(|s| s.split([':', '.']).next())
        .and_then(|s| s.parse().ok())
        .unwrap_or(u32::MAX)
}

/// What one colour of the window is for the node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColourState {
    Free,
    /// Occupied by a coloured neighbour.
    Neighbour,
    /// A physical operand or clobber where the node is live.
    Physical,
    /// The colour select took.
    Chosen,
}

impl ColourState {
    pub fn name(self) -> &'static str {
        match self {
            ColourState::Free => "free",
            ColourState::Neighbour => "neighbour",
            ColourState::Physical => "physical",
            ColourState::Chosen => "chosen",
        }
    }
}

/// One colour (register) of the node's window.
#[derive(Clone, Debug, PartialEq)]
pub struct ColourCell {
    pub reg: u16,
    pub state: ColourState,
    /// Neighbours occupying it.
    pub by: Vec<String>,
    /// A start the node's class may take (aligned, the whole range in the window).
    pub start: bool,
}

/// The colour availability of a node (`hist` under Briggs): seed 002, "Color Assignment".
#[derive(Clone, Debug, PartialEq)]
pub struct ColourView {
    pub vreg: String,
    pub file: RegFile,
    pub width: u8,
    pub k: u32,
    /// The seed's class mask (`0x7FFF` GPR32 ...), and the window as a bit mask.
    pub class_mask: String,
    pub window_mask: String,
    pub cells: Vec<ColourCell>,
    /// Start colours still possible, ascending (select takes the lowest).
    pub available: Vec<u16>,
    /// Start colours the neighbours and physical constraints forbid.
    pub forbidden: Vec<u16>,
    pub chosen: Option<u16>,
    /// This node got no colour (an actual spill) at the current event.
    pub spilled: bool,
}

pub fn colours(d: &Debugger, b: &BriggsAlloc, v: VRegId) -> Option<ColourView> {
    let f = b.func();
    let r = f.vregs.get(v.index())?;
    let info = b.node_info(v);
    let mask = b.colour_mask(v);
    // At the event that decided this node, what it decided.
    let (mut chosen, mut spilled) = (None, false);
    if let Some(EventKind::Briggs(ev)) = d.current().map(|e| &e.kind) {
        match ev {
            BriggsEvent::ColourAssigned { vreg, colour, members, .. } if *vreg == v || members.contains(&v) => {
                chosen = Some(*colour)
            }
            BriggsEvent::ActualSpill { vreg, members, .. } if *vreg == v || members.contains(&v) => spilled = true,
            _ => {}
        }
    }
    if chosen.is_none() && !spilled {
        chosen = b.slot_of(v);
    }
    // With the node coloured, its own colour is not "blocked by" itself: neighbours only.
    let occupants = |reg: u16| -> Vec<String> {
        b.neighbours(v)
            .into_iter()
            .filter(|(t, c)| {
                let w = f.vregs.get(t.index()).map_or(1, |x| x.width.max(1)) as u16;
                c.is_some_and(|c| c <= reg && reg < c + w)
            })
            .map(|(t, _)| name(f, t))
            .collect()
    };
    let width = r.width.max(1);
    let starts = crate::alloc::briggs::select::starts(&mask.window, width);
    let cells = mask
        .window
        .iter()
        .map(|reg| {
            let by = occupants(reg);
            let in_chosen = chosen.is_some_and(|c| c <= reg && reg < c + width as u16);
            let state = if in_chosen {
                ColourState::Chosen
            } else if !by.is_empty() {
                ColourState::Neighbour
            } else if mask.physical.contains(reg) {
                ColourState::Physical
            } else {
                ColourState::Free
            };
            ColourCell { reg, state, by, start: starts.contains(&reg) }
        })
        .collect();
    Some(ColourView {
        vreg: r.name.clone(),
        file: r.file(),
        width,
        k: info.map_or(mask.window.count(), |i| i.k),
        class_mask: format!("0x{:04X}", crate::alloc::briggs::select::class_mask(r.file(), width)),
        window_mask: mask.window.hex(),
        cells,
        available: mask.available.clone(),
        forbidden: mask.forbidden(),
        chosen,
        spilled,
    })
}

/// One move of the graph as shown.
#[derive(Clone, Debug, PartialEq)]
pub struct MoveLine {
    pub point: u32,
    pub dst: String,
    pub src: String,
    pub state: MoveState,
}

/// The simplify stack, the worklists and the graph's figures (`graph`).
#[derive(Clone, Debug, PartialEq)]
pub struct GraphView {
    pub function: String,
    pub iteration: u32,
    /// The current node (the last event's).
    pub current: Option<String>,
    /// The figures of this iteration's build: nodes, edges, pre-coloured, moves, max and
    /// average degree, density, K per file.
    pub built: Option<BriggsEvent>,
    pub nodes_now: u32,
    pub edges_now: u64,
    pub merged: u32,
    pub coloured: u32,
    /// Bottom first.
    pub stack: Vec<String>,
    pub simplify: Vec<String>,
    pub freeze: Vec<String>,
    pub spill: Vec<String>,
    pub moves: Vec<MoveLine>,
    pub spilled: Vec<String>,
    pub k: Vec<(RegFile, u32)>,
}

pub fn graph(d: &Debugger, fi: usize, b: &BriggsAlloc) -> GraphView {
    let f = b.func();
    let names = |vs: &[VRegId]| vs.iter().map(|&v| name(f, v)).collect::<Vec<_>>();
    let built = d.trace()[..d.cursor()].iter().rev().find_map(|e| match &e.kind {
        EventKind::Briggs(ev @ BriggsEvent::Build { .. }) if e.func == Some(fi) => Some(ev.clone()),
        _ => None,
    });
    let k = match &built {
        Some(BriggsEvent::Build { k, .. }) => k.clone(),
        _ => Vec::new(),
    };
    let w = b.worklists();
    let now = b.graph_now();
    GraphView {
        function: b.original().name.clone(),
        iteration: b.iteration(),
        current: b.current_node().map(|v| name(f, v)),
        built,
        nodes_now: now.nodes,
        edges_now: now.edges,
        merged: now.merged,
        coloured: now.coloured,
        stack: names(b.simplify_stack()),
        simplify: names(&w.simplify),
        freeze: names(&w.freeze),
        spill: names(&w.spill),
        moves: w
            .moves
            .iter()
            .map(|m| MoveLine { point: m.point, dst: name(f, m.dst), src: name(f, m.src), state: m.state })
            .collect(),
        spilled: b.spilled().iter().map(|&v| name(b.original(), v)).collect(),
        k,
    }
}

/// `print %x` under Briggs.
#[derive(Clone, Debug, PartialEq)]
pub struct BriggsVregView {
    pub name: String,
    pub class: String,
    pub width: u8,
    /// The node's facts in the current graph (`None` before the build or when the vreg
    /// takes no part).
    pub node: Option<NodeInfo>,
    pub node_name: Option<String>,
    pub colour: Option<String>,
    pub spilled: bool,
    /// Briggs events about this vreg so far (`#N text`).
    pub history: Vec<String>,
}

pub fn vreg(d: &Debugger, fi: usize, b: &BriggsAlloc, v: VRegId) -> Option<BriggsVregView> {
    let f = b.func();
    let r = f.vregs.get(v.index())?;
    let node = b.node_info(v);
    let m = d.machine();
    let mut history = Vec::new();
    for (i, e) in d.trace()[..d.cursor()].iter().enumerate() {
        if e.func != Some(fi) {
            continue;
        }
        if let EventKind::Briggs(ev) = &e.kind {
            let about = match ev {
                BriggsEvent::Coalesced { keep, removed, .. } => *keep == v || *removed == v,
                BriggsEvent::IterationEnd { spilled, .. } => spilled.contains(&v),
                BriggsEvent::ColourAssigned { vreg, members, .. } | BriggsEvent::ActualSpill { vreg, members, .. } => {
                    *vreg == v || members.contains(&v)
                }
                BriggsEvent::SpillCode { vregs, .. } => vregs.iter().any(|x| x.0 == v),
                other => other.vreg() == Some(v),
            };
            if about {
                history.push(format!("#{} {}", i + 1, m.describe(e)));
            }
        }
    }
    Some(BriggsVregView {
        name: r.name.clone(),
        class: r.class.name().to_string(),
        width: r.width,
        node_name: node.as_ref().filter(|n| n.node != v).map(|n| name(f, n.node)),
        node,
        colour: reg_of(f, v, b.slot_of(v)),
        spilled: b.spilled().contains(&v),
        history,
    })
}

/// One iteration of the Briggs loop (`attempts` under Briggs).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct IterationView {
    pub n: u32,
    pub insts: u32,
    pub vregs: u32,
    pub nodes: u32,
    pub edges: u64,
    pub coalesced: u32,
    pub removed: u32,
    pub frozen: u32,
    pub candidates: u32,
    pub coloured: u32,
    /// Nodes select could not colour.
    pub actual_spills: Vec<String>,
    /// Original vregs the iteration spills.
    pub spilled: Vec<String>,
    /// The spill code event that followed, described.
    pub spill_code: Option<String>,
    pub finished: bool,
}

pub fn iterations(d: &Debugger, fi: usize) -> Vec<IterationView> {
    let m = d.machine();
    let f = crate::engine::query::func_ir(m, fi);
    let mut out: Vec<IterationView> = Vec::new();
    for e in d.trace()[..d.cursor()].iter().filter(|e| e.func == Some(fi)) {
        let EventKind::Briggs(ev) = &e.kind else { continue };
        if let BriggsEvent::IterationStart { n, insts, vregs } = ev {
            out.push(IterationView { n: *n, insts: *insts, vregs: *vregs, ..IterationView::default() });
            continue;
        }
        let Some(it) = out.last_mut() else { continue };
        match ev {
            BriggsEvent::Build { nodes, edges, .. } => (it.nodes, it.edges) = (*nodes, *edges),
            BriggsEvent::Coalesced { .. } => it.coalesced += 1,
            BriggsEvent::NodeRemoved { .. } => it.removed += 1,
            BriggsEvent::Frozen { .. } => it.frozen += 1,
            BriggsEvent::SpillCandidate { .. } => it.candidates += 1,
            BriggsEvent::ColourAssigned { .. } => it.coloured += 1,
            BriggsEvent::ActualSpill { vreg, .. } => it.actual_spills.push(name(f, *vreg)),
            BriggsEvent::IterationEnd { spilled, .. } => {
                it.spilled = spilled.iter().map(|&v| name(f, v)).collect();
                it.finished = true;
            }
            BriggsEvent::SpillCode { .. } => it.spill_code = Some(m.describe(e)),
            _ => {}
        }
    }
    out
}

/// The first instruction that names the current Briggs event's node (or a vreg sharing
/// its colour), for the IR and live panes to follow.
pub fn node_point(d: &Debugger, fi: usize) -> Option<u32> {
    let (f_i, v) = event_node(d).filter(|(f, _)| *f == fi)?;
    let b = briggs_of(d.machine(), f_i)?;
    let f = b.func();
    let mut group = vec![v];
    if let Some(EventKind::Briggs(
        BriggsEvent::ColourAssigned { members, .. } | BriggsEvent::ActualSpill { members, .. },
    )) = d.current().map(|e| &e.kind)
    {
        group.extend_from_slice(members);
    }
    let mut p = 0u32;
    for block in &f.blocks {
        for inst in &block.insts {
            let mut hit = false;
            inst.for_each_def(|r| hit |= group.contains(&r.vreg));
            inst.for_each_use(|r| hit |= group.contains(&r.vreg));
            if hit {
                return Some(p);
            }
            p += 1;
        }
    }
    None
}
