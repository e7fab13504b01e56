//! What the debugger shows of a Chaitin-Briggs run (seed 002), as plain data: a node's
//! neighbours with their colours (`constraints` under Briggs), its colour availability
//! (`hist`), the simplify stack, worklists and graph figures (`graph`), one vreg's degree,
//! cost, priority and colour (`print`), the iterations so far (`attempts`), how its events
//! nest for `next`/`finish`, and a fingerprint for time-travel tests. Rendering lives in
//! the command layer; the debugger's trace is passed in as events, never read here.

use crate::alloc::briggs::{BriggsAlloc, BriggsEvent, MoveState, NodeInfo};
use crate::ir::{Function, RegFile, VRegId};

fn name(f: &Function, v: VRegId) -> String {
    f.vregs.get(v.index()).map(|r| r.name.to_string()).unwrap_or_else(|| format!("vreg#{}", v.0))
}

fn reg_of(f: &Function, v: VRegId, colour: Option<u16>) -> Option<String> {
    let r = f.vregs.get(v.index())?;
    colour.map(|c| r.file().reg_name(c, r.width))
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

/// `current` is the event at the cursor: at the event that decided this node, what it
/// decided is shown.
pub fn colours(current: Option<&BriggsEvent>, b: &BriggsAlloc, v: VRegId) -> Option<ColourView> {
    let f = b.func();
    let r = f.vregs.get(v.index())?;
    let info = b.node_info(v);
    let mask = b.colour_mask(v);
    // At the event that decided this node, what it decided.
    let (mut chosen, mut spilled) = (None, false);
    if let Some(ev) = current {
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
        vreg: r.name.to_string(),
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

/// `built` is this iteration's last `Build` event so far (its figures are the graph's as built).
pub fn graph(built: Option<BriggsEvent>, b: &BriggsAlloc) -> GraphView {
    let f = b.func();
    let names = |vs: &[VRegId]| vs.iter().map(|&v| name(f, v)).collect::<Vec<_>>();
    let k = match &built {
        Some(BriggsEvent::Build(b)) => b.k.clone(),
        _ => Vec::new(),
    };
    let w = b.worklists();
    let now = b.graph_now();
    GraphView {
        function: b.original().name.to_string(),
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

/// Whether event `ev` is about vreg `v` (its history in `print`).
pub fn is_about(ev: &BriggsEvent, v: VRegId) -> bool {
    match ev {
        BriggsEvent::Coalesced { keep, removed, .. } => *keep == v || *removed == v,
        BriggsEvent::IterationEnd { spilled, .. } => spilled.contains(&v),
        BriggsEvent::ColourAssigned { vreg, members, .. } | BriggsEvent::ActualSpill { vreg, members, .. } => {
            *vreg == v || members.contains(&v)
        }
        BriggsEvent::SpillCode(c) => c.vregs.iter().any(|x| x.0 == v),
        other => other.vreg() == Some(v),
    }
}

/// `history` is the events about `v` so far, described (see [`is_about`]).
pub fn vreg(b: &BriggsAlloc, v: VRegId, history: Vec<String>) -> Option<BriggsVregView> {
    let f = b.func();
    let r = f.vregs.get(v.index())?;
    let node = b.node_info(v);
    Some(BriggsVregView {
        name: r.name.to_string(),
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

/// The iterations so far from the run's events in order (each with its description,
/// which the spill-code line quotes).
pub fn iterations<'a>(f: &Function, events: impl Iterator<Item = (&'a BriggsEvent, String)>) -> Vec<IterationView> {
    let mut out: Vec<IterationView> = Vec::new();
    for (ev, described) in events {
        if let BriggsEvent::IterationStart { n, insts, vregs } = ev {
            out.push(IterationView { n: *n, insts: *insts, vregs: *vregs, ..IterationView::default() });
            continue;
        }
        let Some(it) = out.last_mut() else { continue };
        match ev {
            BriggsEvent::Build(b) => (it.nodes, it.edges) = (b.nodes, b.edges),
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
            BriggsEvent::SpillCode(_) => it.spill_code = Some(described),
            _ => {}
        }
    }
    out
}

/// The first instruction that names one of `group` (a node and the vregs sharing its
/// colour), for the IR and live panes to follow.
pub fn node_point(f: &Function, group: &[VRegId]) -> Option<u32> {
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

/// Scope level of a Briggs event for `next` / `finish` (see `debugger::level`):
/// iterations are the "class" level, the phases the "attempt" level, one node or move
/// the "item" level.
impl BriggsEvent {
    pub fn level(&self) -> u8 {
        match self {
            BriggsEvent::IterationStart { .. }
            | BriggsEvent::IterationEnd { .. }
            | BriggsEvent::SpillCode(_)
            | BriggsEvent::Finalize { .. } => 1,
            BriggsEvent::Build(_) | BriggsEvent::Worklists { .. } => 2,
            _ => 3,
        }
    }

    /// What identifies "the same moment" of a Briggs run across two runs (`set` re-runs):
    /// the iteration so far is not known from the event alone, so the vreg id.
    pub fn event_key(&self) -> String {
        match self {
            BriggsEvent::IterationStart { n, .. } | BriggsEvent::IterationEnd { n, .. } => n.to_string(),
            BriggsEvent::Build(b) => b.iteration.to_string(),
            BriggsEvent::SpillCode(c) => c.iteration.to_string(),
            other => other.vreg().map(|v| format!("v{}", v.0)).unwrap_or_default(),
        }
    }
}

/// The state of a Briggs allocation in progress, as text (time-travel tests compare it).
pub fn fingerprint(b: &BriggsAlloc) -> String {
    let f = b.func();
    let colours: Vec<Option<u16>> = (0..f.vregs.len()).map(|i| b.slot_of(VRegId::new(i))).collect();
    let w = b.worklists();
    format!(
        "briggs iteration {} current {:?} stack {:?}\nworklists {:?} {:?} {:?}\ncolours {colours:?}\nspilled {:?} ir {}\n",
        b.iteration(),
        b.current_node(),
        b.simplify_stack(),
        w.simplify,
        w.freeze,
        w.spill,
        b.spilled(),
        f.inst_count()
    )
}
