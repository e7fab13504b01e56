//! The steppable Chaitin-Briggs machine: seed 002's six phases, iterated until nothing
//! spills ("Iteration Counts"), one [`BriggsEvent`] per phase action.
//!
//! Per iteration: IterationStart → Build → one Coalesced per merge (≤ 10 rounds) →
//! Worklists → the main loop (simplify > freeze > spill, seed "SimplifyAndColor"), one
//! NodeRemoved / Frozen / SpillCandidate per step → Select, one ColourAssigned /
//! ActualSpill per stack entry → IterationEnd → if something spilled: SpillCode, then
//! the next iteration on the new IR; else Finalize.
//!
//! An actual spill of an original vreg adds it to the spill plan. An actual spill of a
//! reload temporary (or of the spilled vreg itself, whose lazily reused value stayed
//! live) switches that vreg to eager reloads. Anything else that cannot be coloured —
//! eager spill code, pinned or exit-live vregs, values live on entry — ends the
//! allocation with a failure naming the vreg, as does exceeding `radbg.BriggsMaxIterations`.
//! A failed allocation keeps no assignment (as the fat-point allocator's finalization).
//!
//! The machine is `Clone`; big data (IR, graph, analyses) sits behind `Arc`, so
//! [`BriggsAlloc::snapshot`] copies only per-node vectors.

use std::sync::Arc;

use crate::alloc::AllocConfig;
use crate::alloc::briggs::coalesce::{self, Cursor};
use crate::alloc::briggs::cost::{self, CostModel, CostParts};
use crate::alloc::briggs::event::BriggsEvent;
use crate::alloc::briggs::freeze;
use crate::alloc::briggs::graph::{self, Graph, GraphStats};
use crate::alloc::briggs::select::{self, Window};
use crate::alloc::briggs::simplify::{List, Status, Work};
use crate::alloc::briggs::spill::{self, PlanEntry, SlotTable, SpillCode, SpillParams, TempKind};
use crate::alloc::briggs::{ColourMask, MoveView, RegSet, Worklists};
use crate::alloc::check::{Allocation, CheckError, SpillSlotInfo};
use crate::alloc::ranges::Ranges;
use crate::analysis::{Cfg, Liveness, cfg, liveness};
use crate::ir::{Function, RegFile, VRegId};

mod info;
mod plan;

pub use info::{GraphNow, NodeInfo};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    IterStart,
    Build,
    Coalesce,
    Worklists,
    Main,
    Select,
    IterEnd,
    SpillCode,
    Finalize,
    Done,
}

/// The knob values the machine reads (seed 002's constants).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Params {
    coalesce_rounds: u32,
    george: bool,
    bank_edges: bool,
    max_iterations: u32,
    loop_base: f64,
    coalesce_factor: f64,
    uniform_factor: f64,
    /// 0: estimate from the working set.
    mem_latency: f64,
    loop_weight: f64,
    spill: SpillParams,
}

impl Params {
    fn from(config: &AllocConfig) -> Params {
        let k = &config.knobs;
        let p = k.float("radbg.BriggsBackEdgeProb").clamp(0.0, 0.999);
        Params {
            coalesce_rounds: k.int("radbg.BriggsCoalesceRounds").max(0) as u32,
            george: k.bool("radbg.BriggsGeorge"),
            bank_edges: k.bool("radbg.BriggsBankEdges"),
            max_iterations: k.int("radbg.BriggsMaxIterations").max(1) as u32,
            loop_base: k.float("radbg.BriggsLoopDepthBase"),
            coalesce_factor: k.float("radbg.BriggsCoalesceFactor"),
            uniform_factor: k.float("radbg.BriggsUniformCostFactor"),
            mem_latency: k.float("radbg.BriggsMemLatency"),
            loop_weight: 1.0 / (1.0 - p),
            spill: SpillParams {
                lazy: k.bool("radbg.BriggsLazyReload"),
                remat: k.bool("radbg.BriggsRemat"),
                slot_coalescing: k.bool("radbg.BriggsSlotCoalescing"),
                smem: config.smem_spill,
            },
        }
    }
}

/// The Chaitin-Briggs allocation of one function.
#[derive(Clone, Debug)]
pub struct BriggsAlloc {
    config: Arc<AllocConfig>,
    params: Params,
    original: Arc<Function>,
    orig_ranges: Arc<Ranges>,
    cfg: Arc<Cfg>,
    windows: Arc<Vec<Window>>,
    /// The IR of the current iteration (original plus spill code).
    func: Arc<Function>,
    ranges: Arc<Ranges>,
    /// The liveness computed by `new`, used by the first build.
    first_live: Option<Arc<Liveness>>,
    spill: Option<Arc<SpillCode>>,
    plan: Vec<PlanEntry>,
    /// Per original vreg: its index in `plan`.
    plan_index: Vec<Option<u32>>,
    slots: SlotTable,
    iteration: u32,
    phase: Phase,
    graph: Option<Arc<Graph>>,
    work: Option<Work>,
    parts: Vec<CostParts>,
    cursor: Cursor,
    coalesced: u32,
    current: Option<VRegId>,
    /// Nodes without a colour in this iteration, in select order.
    spilled_now: Vec<u32>,
    /// Plan changes of this iteration: vregs added, vregs switched to eager reloads.
    new_now: Vec<VRegId>,
    eager_now: Vec<VRegId>,
    /// (uncolourable vreg, neighbour spilled in its place) of this iteration.
    evicted_now: Vec<(VRegId, VRegId)>,
    first_graph: Option<GraphStats>,
    /// Per node of this iteration (after coalescing): the other vregs sharing its colour
    /// (nodes merged into it, alias members), for the select events.
    group: Arc<Vec<Vec<u32>>>,
    final_slots: Option<Vec<Option<u16>>>,
    failure: Option<String>,
}

impl BriggsAlloc {
    /// Prepares the machine: analyses the function once (blocks never change).
    pub fn new(func: Function, config: AllocConfig) -> BriggsAlloc {
        let params = Params::from(&config);
        let windows = select::windows(&config);
        let graph_cfg = cfg::build(&func, params.loop_weight);
        let live = Arc::new(liveness::compute(&func, &graph_cfg, &config.exit_live));
        let ranges = Arc::new(Ranges::build(&func, &live));
        let func = Arc::new(func);
        BriggsAlloc {
            config: Arc::new(config),
            params,
            original: func.clone(),
            orig_ranges: ranges.clone(),
            cfg: Arc::new(graph_cfg),
            windows: Arc::new(windows),
            func,
            ranges,
            first_live: Some(live),
            spill: None,
            plan: Vec::new(),
            plan_index: Vec::new(),
            slots: SlotTable::default(),
            iteration: 0,
            phase: Phase::IterStart,
            graph: None,
            work: None,
            parts: Vec::new(),
            cursor: Cursor::default(),
            coalesced: 0,
            current: None,
            spilled_now: Vec::new(),
            new_now: Vec::new(),
            eager_now: Vec::new(),
            evicted_now: Vec::new(),
            first_graph: None,
            group: Arc::new(Vec::new()),
            final_slots: None,
            failure: None,
        }
    }

    /// A copy for checkpoints (shares the IR, graph and analyses).
    pub fn snapshot(&self) -> BriggsAlloc {
        self.clone()
    }

    pub fn is_done(&self) -> bool {
        self.phase == Phase::Done
    }

    /// The IR: the current iteration's while running, the final IR with spill code (and
    /// coalesced vregs as `.alias` of the node they were merged into) once done.
    pub fn func(&self) -> &Function {
        &self.func
    }

    /// The function as given.
    pub fn original(&self) -> &Function {
        &self.original
    }

    pub fn config(&self) -> &AllocConfig {
        &self.config
    }

    /// The iteration in progress (1-based; 0 before the first).
    pub fn iteration(&self) -> u32 {
        self.iteration
    }

    /// The physical register (start slot in its file) of a vreg of [`BriggsAlloc::func`].
    pub fn slot_of(&self, v: VRegId) -> Option<u16> {
        if let Some(s) = &self.final_slots {
            return s.get(v.index()).copied().flatten();
        }
        let w = self.work.as_ref()?;
        let root = self.ranges.root.get(v.index())?.0;
        w.colour.get(w.find(root) as usize).copied().flatten()
    }

    pub fn failure(&self) -> Option<&str> {
        self.failure.as_deref()
    }

    /// Bytes of local-memory spill slots.
    pub fn frame_bytes(&self) -> u32 {
        self.spill.as_ref().map_or(0, |s| s.frame_local)
    }

    /// The original vregs spilled so far, in spill order.
    pub fn spilled(&self) -> Vec<VRegId> {
        self.plan.iter().map(|p| p.vreg).collect()
    }

    /// The spill slots of the current IR, as the checker takes them.
    pub fn spill_slots(&self) -> &[SpillSlotInfo] {
        self.spill.as_ref().map_or(&[], |s| s.infos.as_slice())
    }

    /// The spill code record of the current IR (slots, temporaries, lazy-reload figures).
    pub fn spill_code(&self) -> Option<&SpillCode> {
        self.spill.as_deref()
    }

    /// The colour window of each register file (by `RegFile::index()`).
    pub fn windows(&self) -> &[Window] {
        &self.windows
    }

    /// The node the last event was about.
    pub fn current_node(&self) -> Option<VRegId> {
        self.current
    }

    fn node_of(&self, v: VRegId) -> Option<u32> {
        let w = self.work.as_ref()?;
        let root = self.ranges.root.get(v.index())?.0;
        let n = w.find(root);
        (w.status[n as usize] != Status::NotNode).then_some(n)
    }

    /// The neighbours of `v`'s node in the current graph, with their colours.
    pub fn neighbours(&self, v: VRegId) -> Vec<(VRegId, Option<u16>)> {
        let (Some(n), Some(g), Some(w)) = (self.node_of(v), self.graph.as_ref(), self.work.as_ref()) else {
            return Vec::new();
        };
        g.adj[n as usize].iter().map(|&t| (VRegId(t), w.colour[t as usize])).collect()
    }

    /// The colouring stack, bottom first.
    pub fn simplify_stack(&self) -> &[VRegId] {
        self.work.as_ref().map_or(&[], |w| w.stack.as_slice())
    }

    /// The worklists, each in the order it will be served, and the moves.
    pub fn worklists(&self) -> Worklists {
        let (Some(g), Some(w)) = (self.graph.as_ref(), self.work.as_ref()) else {
            return Worklists::default();
        };
        Worklists {
            simplify: w.simplify.ordered().into_iter().map(VRegId).collect(),
            freeze: w.freeze_order().into_iter().map(VRegId).collect(),
            spill: w.spill_order().into_iter().map(VRegId).collect(),
            moves: g
                .moves
                .iter()
                .map(|m| MoveView { point: m.point, dst: VRegId(m.dst), src: VRegId(m.src), state: m.state })
                .collect(),
        }
    }

    /// Which colours `v`'s neighbours (and physical constraints) forbid right now.
    pub fn colour_mask(&self, v: VRegId) -> ColourMask {
        let width = self.func.vregs.get(v.index()).map_or(1, |r| r.width.max(1));
        let file = self.func.vregs.get(v.index()).map_or(RegFile::R, |r| r.file());
        let window = self.windows.get(file.index()).map_or(RegSet::EMPTY, |w| w.regs);
        let (neighbours, physical) = match (self.node_of(v), self.graph.as_ref(), self.work.as_ref()) {
            (Some(n), Some(g), Some(w)) => (occupied(g, w, n), g.physical[n as usize]),
            _ => (RegSet::EMPTY, RegSet::EMPTY),
        };
        let available = select::available(&window, width, &neighbours.union(&physical));
        ColourMask { file, width, window, neighbours, physical, available }
    }

    /// Runs to the end.
    pub fn run(&mut self) {
        while self.step().is_some() {}
    }

    /// Per register file: the registers a vreg may occupy (for the checker).
    pub fn budgets(&self) -> Vec<(RegFile, u32)> {
        self.windows.iter().filter(|w| w.file.has_liveness()).map(|w| (w.file, w.budget)).collect()
    }

    /// The independent checker on the result (meaningful once done).
    pub fn check(&self) -> Result<(), Vec<CheckError>> {
        let slots: Vec<Option<u16>> = (0..self.func.vregs.len()).map(|i| self.slot_of(VRegId::new(i))).collect();
        let budgets = self.budgets();
        crate::alloc::check::check(&Allocation {
            func: &self.func,
            slot: &slots,
            fixed: &self.config.fixed,
            pins: &self.config.abi_pins,
            spills: self.spill_slots(),
            exit_live: &self.config.exit_live,
            budget: &budgets,
        })
    }

    /// General registers used: one past the highest R register assigned.
    pub fn registers(&self) -> u32 {
        crate::alloc::stats::registers_used(&self.func, &|v| self.slot_of(v))
    }

    fn k_list(&self) -> Vec<(RegFile, u32)> {
        let f = &self.original;
        self.windows
            .iter()
            .filter(|w| f.vregs.iter().any(|v| v.class.is_allocatable() && v.file() == w.file))
            .map(|w| (w.file, w.k))
            .collect()
    }

    fn pin_of(&self, v: VRegId) -> Option<u16> {
        self.config.abi_pins.iter().find(|(p, _)| *p == v).map(|p| p.1).or(self.func.vregs[v.index()].pin)
    }

    /// Advances by one event; `None` once finished.
    pub fn step(&mut self) -> Option<BriggsEvent> {
        loop {
            match self.phase {
                Phase::Done => return None,
                Phase::IterStart => {
                    if self.iteration >= self.params.max_iterations {
                        self.failure = Some(format!(
                            "Briggs allocation did not converge within {} iterations (radbg.BriggsMaxIterations)",
                            self.params.max_iterations
                        ));
                        self.phase = Phase::Finalize;
                        continue;
                    }
                    self.iteration += 1;
                    self.current = None;
                    self.phase = Phase::Build;
                    return Some(BriggsEvent::IterationStart {
                        n: self.iteration,
                        insts: self.func.inst_count() as u32,
                        vregs: self.func.vregs.len() as u32,
                    });
                }
                Phase::Build => return Some(self.build()),
                Phase::Coalesce => {
                    let (Some(g), Some(w)) = (self.graph.as_mut(), self.work.as_mut()) else {
                        self.phase = Phase::Worklists;
                        continue;
                    };
                    let g = Arc::make_mut(g);
                    let george = self.params.george;
                    let rounds = self.params.coalesce_rounds;
                    match coalesce::step(g, w, &mut self.parts, &self.windows, &mut self.cursor, rounds, george) {
                        Some(m) => {
                            self.coalesced += 1;
                            self.current = Some(VRegId(m.keep));
                            return Some(BriggsEvent::Coalesced {
                                keep: VRegId(m.keep),
                                removed: VRegId(m.removed),
                                criterion: m.criterion,
                                round: m.round,
                                point: m.point,
                                degree: m.degree,
                            });
                        }
                        None => self.phase = Phase::Worklists,
                    }
                }
                Phase::Worklists => return Some(self.fill_worklists()),
                Phase::Main => {
                    if let Some(ev) = self.main_step() {
                        return Some(ev);
                    }
                    if let Some(w) = self.work.as_mut() {
                        // Unspillable candidates are coloured first: the widest first (a
                        // quad needs an aligned block that narrow ones would fragment),
                        // then in the order they were set aside.
                        let mut d = std::mem::take(&mut w.deferred);
                        d.sort_by_key(|v| std::cmp::Reverse(w.width[v.index()]));
                        for v in d.into_iter().rev() {
                            w.status[v.index()] = Status::OnStack;
                            w.stack.push(v);
                        }
                    }
                    self.phase = Phase::Select;
                }
                Phase::Select => {
                    if let Some(ev) = self.select_step() {
                        return Some(ev);
                    }
                    self.phase = Phase::IterEnd;
                }
                Phase::IterEnd => return Some(self.end_iteration()),
                Phase::SpillCode => return Some(self.spill_code_step()),
                Phase::Finalize => return Some(self.finalize()),
            }
        }
    }

    fn build(&mut self) -> BriggsEvent {
        let f = self.func.clone();
        let live = match self.first_live.take() {
            Some(l) => l,
            None => {
                let l = Arc::new(liveness::compute(&f, &self.cfg, &self.config.exit_live));
                self.ranges = Arc::new(Ranges::build(&f, &l));
                l
            }
        };
        let ranges = self.ranges.clone();
        let n = f.vregs.len();
        let pins: Vec<Option<u16>> = (0..n).map(|i| self.pin_of(VRegId::new(i))).collect();
        let members = f.vregs.iter().any(|v| v.alias.is_some()).then(|| {
            let mut bare = (*f).clone();
            bare.vregs.iter_mut().for_each(|v| v.alias = None);
            Ranges::build(&bare, &live)
        });
        let g = graph::build(&graph::BuildInput {
            func: &f,
            ranges: &ranges,
            members: members.as_ref(),
            windows: &self.windows,
            pins: &pins,
            clobbers: &self.config.clobbers,
            default_clobbers: &self.config.default_clobbers,
            bank_edges: self.params.bank_edges,
        });
        let parts = cost::parts(&f, &ranges, &self.cfg, self.params.loop_base);
        let mem_latency = if self.params.mem_latency > 0.0 {
            self.params.mem_latency
        } else {
            cost::memory_latency(cost::peak_pressure(&f, &ranges), self.config.total_threads, self.config.sm_version)
        };
        let model = CostModel {
            mem_latency,
            loop_base: self.params.loop_base,
            uniform_factor: self.params.uniform_factor,
            coalesce_factor: self.params.coalesce_factor,
        };
        // Values live on entry (parameters, reads before any definition) have no store
        // to reload from; exit-live values need their register at the exit anyway.
        // A value live into the entry (or into a block nothing jumps to) is unspillable
        // when no store could precede a reload: a parameter or pinned value defined on
        // entry, or one some read may see (partly) undefined. A value built component
        // by component is live from the entry in the shared liveness yet fully defined
        // at its reads, and may be spilled.
        let mut pinned_down = vec![false; n];
        let mut cands: Vec<VRegId> = Vec::new();
        for b in 0..f.blocks.len() {
            if b == 0 || self.cfg.preds.get(b).is_none_or(Vec::is_empty) {
                for x in live.live_in(b).iter() {
                    let r = ranges.root[x.index()];
                    if !cands.contains(&r) {
                        cands.push(r);
                    }
                }
            }
        }
        if !cands.is_empty() {
            cands.sort();
            let defined = crate::analysis::defined_at_entry(&f);
            let safe = spill::reload_safe(&f, &self.cfg, &ranges, &cands);
            for (k, &r) in cands.iter().enumerate() {
                let flagged = f.vregs[r.index()].flags & crate::analysis::uninit::DEFINED_FLAG != 0;
                pinned_down[r.index()] = !safe[k] || flagged || defined.contains(&r) || self.pin_of(r).is_some();
            }
        }
        for x in &self.config.exit_live {
            if let Some(r) = ranges.root.get(x.index()) {
                pinned_down[r.index()] = true;
            }
        }
        let mut spill_code = vec![false; n];
        if let Some(sc) = &self.spill {
            for (v, t) in sc.temp_of.iter().enumerate().take(n) {
                spill_code[v] = t.is_some();
            }
        }
        for p in &self.plan {
            if p.vreg.index() < n {
                spill_code[p.vreg.index()] = true;
            }
        }
        let mut unspillable = vec![false; n];
        for v in 0..n {
            if !g.node[v] {
                continue;
            }
            unspillable[v] = spill_code[v]
                || g.precolour[v].is_some()
                || pinned_down[v]
                || parts[v].def_freq == 0.0
                || parts[v].use_freq == 0.0;
        }
        let costs: Vec<f64> =
            (0..n).map(|v| if unspillable[v] { f64::INFINITY } else { model.cost(&parts[v]) }).collect();
        let work = Work::new(&g, &self.windows, costs, unspillable, spill_code, model);
        let s = g.stats.clone();
        if self.first_graph.is_none() {
            self.first_graph = Some(s.clone());
        }
        let k = self.k_list();
        self.graph = Some(Arc::new(g));
        self.work = Some(work);
        self.parts = parts;
        self.cursor = Cursor::default();
        self.coalesced = 0;
        self.spilled_now.clear();
        self.phase = Phase::Coalesce;
        if self.iteration == 1
            && let Some(m) = self.pin_failure()
        {
            self.failure = Some(m);
            self.phase = Phase::Finalize;
        }
        BriggsEvent::Build(Box::new(super::event::Build {
            iteration: self.iteration,
            nodes: s.nodes,
            edges: s.edges,
            precoloured: s.precoloured,
            class_edges: s.class_edges,
            bank_edges: s.bank_edges,
            moves: s.moves,
            max_degree: s.max_degree,
            avg_degree: s.avg_degree,
            density: s.density,
            k,
        }))
    }

    fn fill_worklists(&mut self) -> BriggsEvent {
        let (g, w) = (self.graph.as_ref().expect("graph"), self.work.as_mut().expect("work"));
        w.count_high(g);
        for v in 0..g.node.len() as u32 {
            if w.status[v as usize] != Status::InGraph {
                continue;
            }
            if w.briggs_safe(v) {
                w.push_simplify(v);
            } else if freeze::move_related(g, w, v) {
                w.push_freeze(v);
            } else {
                w.push_spill(v);
            }
        }
        self.phase = Phase::Main;
        self.group = Arc::new(info::group_members(g, w, &self.ranges.root));
        BriggsEvent::Worklists {
            simplify: w.simplify.len() as u32,
            freeze: w.freeze_order().len() as u32,
            spill: w.spill.len() as u32,
            coalesced: self.coalesced,
        }
    }

    /// One action of the main loop: simplify > freeze > spill.
    fn main_step(&mut self) -> Option<BriggsEvent> {
        let g = self.graph.as_mut()?;
        let w = self.work.as_mut()?;
        if let Some(key) = w.simplify.pop() {
            let v = key.id;
            let (degree, high, k) = (w.degree[v as usize], w.high[v as usize], w.k[v as usize]);
            let safe = w.briggs_safe(v);
            w.remove(g, v);
            self.current = Some(VRegId(v));
            return Some(BriggsEvent::NodeRemoved {
                vreg: VRegId(v),
                degree,
                k,
                high_neighbours: high,
                briggs_safe: safe,
            });
        }
        // Only touch (and, after a snapshot, copy) the graph when a node may be frozen.
        if let Some(fz) = if w.has_freeze() { freeze::step(Arc::make_mut(g), w) } else { None } {
            self.current = Some(VRegId(fz.vreg));
            return Some(BriggsEvent::Frozen {
                vreg: VRegId(fz.vreg),
                moves: fz.moves,
                degree: fz.degree,
                to_simplify: fz.to_simplify,
            });
        }
        if let Some(key) = w.pop_spill() {
            let v = key.id;
            let (cost, degree) = (w.cost[v as usize], w.degree[v as usize]);
            w.list[v as usize] = List::None;
            w.candidate[v as usize] = true;
            w.remove(g, v);
            self.current = Some(VRegId(v));
            return Some(BriggsEvent::SpillCandidate { vreg: VRegId(v), cost, degree, priority: key.priority });
        }
        None
    }

    /// Pops one node off the stack and colours it.
    fn select_step(&mut self) -> Option<BriggsEvent> {
        let g = self.graph.as_ref()?;
        let w = self.work.as_mut()?;
        let v = w.stack.pop()?.0;
        let vi = v as usize;
        let window = self.windows.get(g.file[vi].index()).map_or(RegSet::EMPTY, |x| x.regs);
        let blocked = occupied(g, w, v).union(&g.physical[vi]);
        let forbidden: Box<[u16]> = window.intersect(&blocked).to_vec().into();
        self.current = Some(VRegId(v));
        let members: Box<[VRegId]> =
            self.group.get(vi).map_or(Box::default(), |m| m.iter().map(|&x| VRegId(x)).collect());
        match select::choose(&window, g.width[vi], &blocked) {
            Some(c) => {
                w.colour[vi] = Some(c);
                w.status[vi] = Status::InGraph;
                Some(BriggsEvent::ColourAssigned { vreg: VRegId(v), colour: c, forbidden, members })
            }
            None => {
                self.spilled_now.push(v);
                Some(BriggsEvent::ActualSpill { vreg: VRegId(v), forbidden, candidate: w.candidate[vi], members })
            }
        }
    }

    fn end_iteration(&mut self) -> BriggsEvent {
        let g = self.graph.clone().expect("graph");
        let n = g.node.len();
        let w = self.work.as_mut().expect("work");
        for y in 0..n {
            if w.status[y] == Status::Merged {
                let r = w.find(y as u32) as usize;
                w.colour[y] = w.colour[r];
            }
        }
        let coloured = (0..n).filter(|&v| g.node[v] && w.colour[v].is_some()).count() as u32;
        // Members of every spilled node, in spill order (merged members by id).
        let mut merged_into: Vec<Vec<u32>> = vec![Vec::new(); if self.spilled_now.is_empty() { 0 } else { n }];
        if !self.spilled_now.is_empty() {
            for y in 0..n as u32 {
                if w.status[y as usize] == Status::Merged {
                    merged_into[w.find(y) as usize].push(y);
                }
            }
        }
        let mut members: Vec<u32> = Vec::new();
        for &x in &self.spilled_now {
            members.push(x);
            members.extend_from_slice(&merged_into[x as usize]);
        }
        let n_iter = self.iteration;
        let spilled: Vec<VRegId> = members.iter().map(|&m| VRegId(m)).collect();
        if members.is_empty() {
            self.phase = Phase::Finalize;
        } else {
            self.plan_spills(&members);
            self.phase = if self.failure.is_some() { Phase::Finalize } else { Phase::SpillCode };
        }
        BriggsEvent::IterationEnd { n: n_iter, spilled, coloured }
    }

    fn spill_code_step(&mut self) -> BriggsEvent {
        let (func, code) = spill::generate(
            &self.original,
            &self.orig_ranges,
            &self.cfg,
            &self.plan,
            &self.params.spill,
            &mut self.slots,
        );
        let vregs: Vec<(VRegId, Option<u32>)> = self
            .new_now
            .iter()
            .map(|&v| {
                let slot = self.plan_index.get(v.index()).copied().flatten().and_then(|i| code.slots[i as usize].slot);
                (v, slot.map(|s| s.1))
            })
            .collect();
        let ev = BriggsEvent::SpillCode(Box::new(super::event::SpillCode {
            iteration: self.iteration,
            vregs,
            eager: self.eager_now.clone(),
            evicted: self.evicted_now.clone(),
            stores: code.stores,
            reloads: code.reloads,
            eliminated: code.eliminated,
            remats: code.remats,
            frame: code.frame_local,
        }));
        self.func = Arc::new(func);
        self.spill = Some(Arc::new(code));
        self.phase = Phase::IterStart;
        ev
    }

    fn finalize(&mut self) -> BriggsEvent {
        let ok = self.failure.is_none();
        let n = self.func.vregs.len();
        let mut slots = vec![None; n];
        if ok && let (Some(g), Some(w)) = (self.graph.as_ref(), self.work.as_ref()) {
            let mut links = Vec::new();
            for (i, slot) in slots.iter_mut().enumerate() {
                let root = self.ranges.root[i].index();
                *slot = w.colour.get(w.find(root as u32) as usize).copied().flatten();
                // A coalesced node becomes an alias of the node it was merged into.
                if g.node[i] && w.status[i] == Status::Merged && self.func.vregs[i].alias.is_none() {
                    links.push((i, VRegId(w.find(i as u32))));
                }
            }
            if !links.is_empty() {
                let f = Arc::make_mut(&mut self.func);
                for (i, to) in links {
                    f.vregs[i].alias = Some(to);
                }
            }
        }
        self.final_slots = Some(slots);
        self.phase = Phase::Done;
        self.current = None;
        BriggsEvent::Finalize {
            ok,
            iterations: self.iteration,
            spilled: self.plan.len() as u32,
            registers: self.registers(),
            message: self.failure.clone(),
        }
    }
}

/// Registers occupied by the coloured neighbours of node `v`.
fn occupied(g: &Graph, w: &Work, v: u32) -> RegSet {
    let mut s = RegSet::EMPTY;
    for &t in &g.adj[v as usize] {
        if let Some(c) = w.colour[t as usize] {
            s.insert_range(c, g.width[t as usize]);
        }
    }
    s
}

/// Whether a vreg of `f` is a spill temporary of the current spill code.
pub fn is_temp(code: &SpillCode, v: VRegId) -> Option<TempKind> {
    code.temp_of.get(v.index()).copied().flatten().map(|t| t.1)
}
