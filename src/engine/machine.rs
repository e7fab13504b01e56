//! The pipeline machine: every stage of the model, for every function, as one state
//! machine that [`Machine::step`] advances by one [`Event`].
//!
//! Order: prepass stages (all of them for imported PTX, `webs` for Ori IR) → per
//! function: block rebuild, one event per liveness sweep of each register file, DCE (when enabled), the uninitialized-register
//! check → per function with an ABI spec: one event per ABI check in the seed's order →
//! call lowering → per function: budget, the allocator's events, the independent
//! checker, the `-v` statistics → done.
//!
//! `Machine` is `Clone` and cheap to snapshot (big data sits behind `Arc`); the
//! debugger keeps snapshots as checkpoints and replays from them.

use std::sync::Arc;

use crate::alloc::AllocConfig;
use crate::alloc::budget::{self, Budget};
use crate::alloc::run::{AllocRun, RunEvent};
use crate::alloc::stats::FunctionStats;
use crate::analysis::{Cfg, Liveness, cfg, liveness};
use crate::engine::event::{Event, EventKind, Stage};
use crate::engine::options::RunOptions;
use crate::ir::{FuncKind, Module, RegFile, VRegId};
use crate::knobs::Knobs;

/// The stages around the allocator (prepasses, DCE, the uninitialized check, the ABI checks,
/// call lowering, the checker, `-v` figures): helpers of [`Machine::step`], hence a child.
pub mod stages;

/// The per-function results as a persistent vector (cheap snapshots).
pub mod funcs;

/// A finished allocation held as its recipe once the cursor has left its function.
pub mod finished;

/// What the pipeline has established for one function.
#[derive(Clone, Debug, Default)]
pub struct FuncResult {
    pub cfg: Option<Arc<Cfg>>,
    pub live: Option<Arc<Liveness>>,
    /// (file, sweep number, changed blocks) of every liveness sweep, in event order.
    pub sweeps: Vec<(RegFile, u32, Vec<usize>)>,
    pub dce_removed: Vec<String>,
    pub uninit: Option<String>,
    pub abi: Option<Arc<crate::abi::AbiResult>>,
    pub budget: Option<Budget>,
    /// The allocation (of either allocator) once it has finished: outside a batch run,
    /// only its recipe once the allocation two functions on has started (replayed on use,
    /// [`finished::Finished`]).
    pub alloc: Option<finished::Finished>,
    /// The R registers a call of this function can change (`AllocRun::written_r`), kept
    /// after a batch run drops the allocation: its callers' clobbers.
    pub writes: Option<Arc<Vec<u16>>>,
    /// Whether this callee keeps the preserved registers for its callers, saving the ones
    /// it writes (`stages::keeps_preserved`: an external or recursive call below it, or a
    /// leaf; or rule 7 off); otherwise ptxas allocates it with its callers, which see
    /// every register it writes (issue 23, "an internal callee saves nothing").
    pub saves: bool,
    pub check_errors: Option<Vec<String>>,
    pub stats: Option<FunctionStats>,
    /// The liveness of the IR an allocator that keeps none (Chaitin-Briggs) ended with,
    /// once it has spill code: what the Live pane and `live` show after the run.
    pub final_live: Option<Arc<Liveness>>,
    /// What each prepass did to the R peak (with `RunOptions::record_stages`).
    pub stage_record: Option<crate::prepass::record::StageRecord>,
    /// Set once the uninit stage has passed: `cfg`, `live` and `sweeps` are then dropped
    /// (no later stage reads them; call lowering sets them again for a function it
    /// changes), and a query for the pipeline's liveness computes it again
    /// ([`Machine::pipeline_liveness`]). Issue 25: the debugger held every function's
    /// CFG, liveness and sweep lists, 52 MB of the 50 MB many-entry file's run.
    pub live_dropped: bool,
    /// That liveness, computed on the first query (the function's IR does not change
    /// between the uninit stage and lowering, which writes `live`, so the cell is shared
    /// with the snapshots that share this result).
    pub relive: std::sync::OnceLock<Arc<Liveness>>,
}

impl FuncResult {
    /// The finished fat-point allocation, when that allocator ran (its attempts,
    /// histograms and state object; [`AllocRun`] answers the allocator-neutral questions).
    pub fn fatpoint(&self) -> Option<&crate::alloc::FunctionAlloc> {
        self.alloc.as_deref().and_then(AllocRun::fatpoint)
    }
}

/// Where the machine is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pos {
    pub stage: Stage,
    pub func: usize,
    pub sub: usize,
}

/// The pipeline state.
#[derive(Clone, Debug)]
pub struct Machine {
    pub opts: Arc<RunOptions>,
    /// The module as loaded, with option overrides applied.
    pub source: Arc<Module>,
    /// The module as the pipeline has transformed it so far (prepasses, DCE, lowering).
    pub module: Arc<Module>,
    pub knobs: Arc<Knobs>,
    pub funcs: funcs::Funcs,
    pub pos: Pos,
    /// The allocation in progress (of the allocator the options name).
    pub cur: Option<AllocRun>,
    /// Set on a budget sweep's template (`engine::sweep`): the machines copied from it
    /// share the allocator's budget-free start (`alloc::run::Shared`).
    pub alloc_share: Option<Arc<crate::alloc::run::Shared>>,
    /// The module's call groups while the ABI stage runs ([`stages::AbiGroups`]).
    pub(crate) abi_groups: Option<Arc<stages::AbiGroups>>,
    /// Set when `source` holds the loaded module's settings but not its functions
    /// ([`Machine::owning`]): they are imported again from the file's text when asked
    /// ([`Machine::loaded_function`]).
    pub reimport: Option<crate::ir::ptx::stream::Reimport>,
    /// About what a copy of the module's IR costs (see [`Machine::write_bytes`]).
    ir_bytes: usize,
    /// Whether a function has an ABI spec (call lowering may rewrite the module).
    has_abi: bool,
}

/// Bytes of memory per instruction of a copy of the module's IR (the instruction, its
/// operands, its share of blocks and declarations), for [`Machine::write_bytes`]:
/// measured ~250 on the 5 MB many-entry file (heaptrack, 14 copies of 698 MB).
const IR_BYTES_PER_INST: usize = 256;

/// What a copy of `module`'s IR costs and whether a function has an ABI spec (call
/// lowering may rewrite the module): [`Machine::write_bytes`]'s inputs.
fn ir_facts(module: &Module) -> (usize, bool) {
    let bytes = module.functions.iter().map(|f| f.inst_count() * IR_BYTES_PER_INST).sum();
    (bytes, module.functions.iter().any(|f| f.abi.is_some()))
}

impl Machine {
    pub fn new(module: Module, opts: RunOptions) -> Machine {
        let mut module = module;
        if let Some(sm) = &opts.sm {
            module.sm = sm.clone();
        }
        if let Some(n) = opts.maxrregcount {
            module.options.maxrregcount = Some(n);
        }
        module.options.budget_floor_off = opts.budget_floor_off();
        let knobs = crate::engine::settings::knobs_in_force(&module.knobs, &opts);
        let n = module.functions.len();
        // A batch run keeps the loaded module's settings but not its functions: the
        // prepasses then rewrite the one copy in place instead of cloning it. Nor its
        // source lines (read through `module`, never `source`): a module run group by
        // group builds a machine per group, and this copy was most of its cost.
        let source = if opts.batch {
            Some(Arc::new(Module {
                sm: module.sm.clone(),
                options: module.options.clone(),
                knobs: module.knobs.clone(),
                globals: module.globals.clone(),
                functions: Vec::new(),
                srcloc: Default::default(),
            }))
        } else {
            None
        };
        let (ir_bytes, has_abi) = ir_facts(&module);
        let module = Arc::new(module);
        Machine {
            reimport: None,
            ir_bytes,
            has_abi,
            opts: Arc::new(opts),
            source: source.unwrap_or_else(|| module.clone()),
            module,
            knobs: Arc::new(knobs),
            funcs: funcs::Funcs::new(n),
            pos: Pos { stage: Stage::Prepass, func: 0, sub: 0 },
            cur: None,
            alloc_share: None,
            abi_groups: None,
        }
    }

    /// A machine over a module the caller keeps (the debugger's module as loaded): with no
    /// `--sm` or `--maxrregcount` override the machine's `source` is that module itself,
    /// not a third copy of every function beside it and the one the stages rewrite.
    pub fn over(loaded: &Arc<Module>, opts: RunOptions) -> Machine {
        if opts.sm.is_some() || opts.maxrregcount.is_some() || opts.batch || opts.budget_floor_off() {
            return Machine::new((**loaded).clone(), opts);
        }
        let mut m = Machine::new(Module::default(), opts);
        let knobs = crate::engine::settings::knobs_in_force(&loaded.knobs, &m.opts);
        let n = loaded.functions.len();
        (m.ir_bytes, m.has_abi) = ir_facts(loaded);
        (m.source, m.module, m.knobs, m.funcs) =
            (loaded.clone(), loaded.clone(), Arc::new(knobs), funcs::Funcs::new(n));
        m
    }

    /// A machine that owns the module as loaded and keeps no copy of it (the debugger on
    /// a file imported group by group, issue 25): `source` holds the module's settings and
    /// globals only, so the first stage that rewrites a function rewrites this one copy in
    /// place instead of cloning all of it beside the loaded one; a function as loaded
    /// comes back from `reimport` ([`Machine::loaded_function`]).
    pub fn owning(module: Module, opts: RunOptions, reimport: crate::ir::ptx::stream::Reimport) -> Machine {
        let mut m = Machine::new(module, opts);
        let full = &*m.module;
        m.source = Arc::new(Module {
            sm: full.sm.clone(),
            options: full.options.clone(),
            knobs: full.knobs.clone(),
            globals: full.globals.clone(),
            functions: Vec::new(),
            srcloc: Default::default(),
        });
        m.reimport = Some(reimport);
        m
    }

    /// Function `fi` as loaded (with the machine's option overrides, which touch only the
    /// module's settings): from `source`, or imported again ([`Machine::owning`]).
    pub fn loaded_function(&self, fi: usize) -> Option<std::borrow::Cow<'_, crate::ir::Function>> {
        if let Some(f) = self.source.functions.get(fi) {
            return Some(std::borrow::Cow::Borrowed(f));
        }
        self.reimport.as_ref()?.function(fi).map(std::borrow::Cow::Owned)
    }

    /// Replaces the run options and the knobs derived from them (for a re-run from a
    /// checkpoint before the allocation stage; target and budget changes restart instead).
    pub fn set_options(&mut self, opts: &RunOptions) {
        self.knobs = Arc::new(crate::engine::settings::knobs_in_force(&self.source.knobs, opts));
        self.opts = Arc::new(opts.clone());
    }

    /// Applies run options that take effect from the ABI stage on (`--maxrregcount`,
    /// knobs other than the loop weight) to a machine that has not reached that stage
    /// yet: a sweep runs the stages before it once and clones the machine per row.
    pub fn retarget(&mut self, opts: &RunOptions) {
        debug_assert!(self.pos.stage <= Stage::Abi, "retarget after the ABI stage started");
        if opts.maxrregcount != self.module.options.maxrregcount
            && let Some(n) = opts.maxrregcount
        {
            Arc::make_mut(&mut self.module).options.maxrregcount = Some(n);
        }
        self.set_options(opts);
    }

    /// What set a budget, in the words of the input that set it: `--maxrregcount 24`
    /// (command line or `set maxrregcount`), `.option maxrregcount = 32 in the file`,
    /// `.maxnreg 40`, `the launch bounds (.maxntid 256, .minnctapersm 2)`.
    pub fn budget_source(&self, f: &crate::ir::Function, b: &budget::Budget) -> String {
        use budget::BudgetSource as S;
        let file = &self.source.options;
        match b.source {
            S::MaxRegCount => match (self.opts.maxrregcount, file.maxrregcount) {
                (Some(n), _) => format!("--maxrregcount {n}"),
                (None, Some(n)) => format!(".option maxrregcount = {n} in the file"),
                (None, None) => b.source.describe().to_string(),
            },
            S::DeviceFunctionMaxRegCount => match file.device_function_maxrregcount {
                Some(n) => format!(".option device-function-maxrregcount = {n} in the file"),
                None => b.source.describe().to_string(),
            },
            S::MaxNReg => match f.maxnreg {
                Some(n) => format!(".maxnreg {n}"),
                None => b.source.describe().to_string(),
            },
            S::LaunchBounds => {
                let mut parts = Vec::new();
                if let Some(d) = f.maxntid.as_ref().or(f.reqntid.as_ref()) {
                    let dims: Vec<String> = d.iter().map(u32::to_string).collect();
                    let name = if f.maxntid.is_some() { ".maxntid" } else { ".reqntid" };
                    parts.push(format!("{name} {}", dims.join(",")));
                }
                if let Some(n) = f.minnctapersm {
                    parts.push(format!(".minnctapersm {n}"));
                }
                format!("the launch bounds ({})", parts.join(", "))
            }
            S::CallerLaunchBounds => format!("{} ({} registers)", b.source.describe(), b.gpr),
            S::ArchCap | S::AbiFloor => b.source.describe().to_string(),
        }
    }

    /// The allocation that describes function `fi` right now, of either allocator: the
    /// one in progress, or the finished one.
    pub fn run_of(&self, fi: usize) -> Option<&AllocRun> {
        if self.pos.stage == Stage::Alloc
            && self.pos.func == fi
            && let Some(c) = self.cur.as_ref()
        {
            return Some(c);
        }
        self.funcs.get(fi).and_then(|r| r.alloc.as_deref())
    }

    /// The IR of function `fi` as it stands (with spill code once inserted).
    pub fn func_ir(&self, fi: usize) -> &crate::ir::Function {
        match self.run_of(fi) {
            Some(a) => a.func(),
            None => &self.module.functions[fi],
        }
    }

    /// The liveness of that IR, when computed.
    pub fn liveness_of(&self, fi: usize) -> Option<&Liveness> {
        match self.run_of(fi) {
            Some(AllocRun::FatPoint(a)) => Some(&a.analysis.live),
            // The Briggs machine keeps no liveness of its own: the pipeline's answers while
            // the IR is unchanged (no spill code yet); once the run has finished with spill
            // code, the liveness solved then for its final IR.
            Some(AllocRun::Briggs(b)) if b.func().inst_count() != self.module.functions[fi].inst_count() => self
                .funcs
                .get(fi)
                .and_then(|r| r.final_live.as_deref())
                .filter(|_| self.cur.is_none() || self.pos.func != fi),
            _ => self.pipeline_liveness(fi),
        }
    }

    /// The pipeline's liveness of function `fi` (before allocation): as computed by its
    /// liveness stage (or call lowering), or computed again once that was dropped
    /// ([`FuncResult::live_dropped`]).
    pub fn pipeline_liveness(&self, fi: usize) -> Option<&Liveness> {
        let r = self.funcs.get(fi)?;
        if let Some(l) = r.live.as_deref() {
            return Some(l);
        }
        if !r.live_dropped {
            return None;
        }
        let l = r.relive.get_or_init(|| {
            let f = &self.module.functions[fi];
            let c = cfg::build(f, cfg::loop_weight(&self.knobs));
            Arc::new(liveness::compute(f, &c, &exit_live(&self.module, fi)))
        });
        Some(l)
    }

    /// The allocator state table (the fat-point state object by ptxas byte offset) at the
    /// machine's position: the allocation in progress, else the last finished one.
    pub fn state_table(&self) -> Vec<crate::alloc::state::StateField> {
        if let Some(c) = self.cur.as_ref().and_then(AllocRun::fatpoint) {
            return c.state.table();
        }
        let fi = self.pos.func.min(self.funcs.len().saturating_sub(1));
        let last = (0..=fi).rev().find_map(|i| self.funcs.get(i).and_then(FuncResult::fatpoint));
        match last {
            Some(a) => a.state.table(),
            None => crate::alloc::state::AllocState::new(&self.knobs, 128).table(),
        }
    }

    /// One line for an event, naming vregs from the function as it stands now.
    pub fn describe(&self, e: &Event) -> String {
        let f = e.func.filter(|&i| i < self.module.functions.len()).map(|i| self.func_ir(i));
        e.describe_with(&self.module, f)
    }

    pub fn is_done(&self) -> bool {
        self.pos.stage == Stage::Done && self.pos.sub > 0
    }

    /// A snapshot for checkpoints (the allocation's occupancy cache is dropped, and so
    /// are the finished allocations of the functions before the one in hand: a checkpoint
    /// at every function's budget event kept the previous function's, that is every
    /// function's, 240 MB on the 5 MB file of 614 entries, as before they were dropped).
    pub fn snapshot(&self) -> Machine {
        let mut m = self.clone();
        m.cur = self.cur.as_ref().map(AllocRun::snapshot);
        m.detach_finished();
        m
    }

    /// A copy of a checkpoint to run on: the finished allocations it holds as recipes get
    /// cells of their own, so a query that replays one here fills this machine's, not
    /// the checkpoint's (which would then keep it).
    pub fn restored(&self) -> Machine {
        let mut m = self.clone();
        m.detach_finished();
        m
    }

    /// Takes over from `old` (the machine this one replaces on going back) the finished
    /// allocations it holds of the functions before the one in hand, where this one has
    /// the same runs as recipes: going back near the start of an allocation would
    /// otherwise replay the previous function's each time its last events are shown.
    pub fn adopt_finished(&mut self, old: &Machine) {
        let fi = self.pos.func.min(self.funcs.len());
        for i in fi.saturating_sub(3)..fi {
            let Some(a) = self.funcs.get(i).and_then(|r| r.alloc.as_ref()).filter(|a| !a.is_held()) else {
                continue;
            };
            let Some(h) = old.funcs.get(i).and_then(|r| r.alloc.as_ref()).filter(|h| h.is_held() && a.same_run(h))
            else {
                continue;
            };
            let h = h.clone();
            self.funcs[i].alloc = Some(h);
        }
    }

    /// The finished allocations of the three functions before the one in hand, as
    /// recipes in fresh cells ([`finished::Finished::compact`]).
    fn detach_finished(&mut self) {
        let fi = self.pos.func.min(self.funcs.len());
        for i in fi.saturating_sub(3)..fi {
            let Some(c) =
                self.funcs.get(i).and_then(|r| r.alloc.as_ref()).filter(|a| a.has_recipe()).map(|a| a.compact())
            else {
                continue;
            };
            self.funcs[i].alloc = Some(c);
        }
    }

    /// What keeping a snapshot of this machine will cost beyond the snapshot itself: a
    /// stage still ahead that rewrites the module (a prepass, DCE, call lowering) copies
    /// all of it — every function, `Module` holds them by value — while the snapshot
    /// shares it. On a file of 614 entries the debugger's checkpoints every 512 events
    /// of the prepasses held 14 copies (0.7 GB); a checkpoint is spaced by this too.
    pub fn write_bytes(&self) -> usize {
        let rewrites = match self.pos.stage {
            Stage::Prepass => true,
            s => s < Stage::Budget && (self.opts.dce || self.has_abi),
        };
        if rewrites { self.ir_bytes } else { 0 }
    }

    /// Whether an allocation is in progress.
    pub fn allocating(&self) -> bool {
        self.cur.is_some()
    }

    fn next_func(&mut self, stage: Stage, next_stage: Stage) {
        self.pos.sub = 0;
        if self.pos.func + 1 < self.funcs.len() {
            self.pos.func += 1;
        } else {
            self.pos = Pos { stage: next_stage, func: 0, sub: 0 };
        }
        let _ = stage;
    }

    fn goto(&mut self, stage: Stage) {
        self.pos = Pos { stage, func: 0, sub: 0 };
    }

    /// Advances by one event; `None` after the final `Done` event.
    pub fn step(&mut self) -> Option<Event> {
        loop {
            if self.funcs.is_empty() && self.pos.stage != Stage::Done {
                self.goto(Stage::Done);
            }
            let fi = self.pos.func;
            match self.pos.stage {
                Stage::Prepass => match stages::prepass_step(self) {
                    Some(ev) => return Some(ev),
                    None => self.goto(Stage::Cfg),
                },
                Stage::Cfg => {
                    let f = &self.module.functions[fi];
                    let c = cfg::build(f, cfg::loop_weight(&self.knobs));
                    let ev = EventKind::BlockRebuild {
                        blocks: f.blocks.len() as u32,
                        loops: c.loops.len() as u32,
                        max_depth: c.loop_depth.iter().copied().max().unwrap_or(0),
                    };
                    let exit_live = exit_live(&self.module, fi);
                    let live = liveness::compute(f, &c, &exit_live);
                    let mut sweeps = Vec::new();
                    for fl in live.files() {
                        for (k, s) in live.sweeps(fl.file).iter().enumerate() {
                            sweeps.push((fl.file, k as u32 + 1, s.changed.clone()));
                        }
                    }
                    let r = &mut self.funcs[fi];
                    r.cfg = Some(Arc::new(c));
                    r.live = Some(Arc::new(live));
                    r.sweeps = sweeps;
                    self.pos.stage = Stage::Liveness;
                    self.pos.sub = 0;
                    return Some(Event { func: Some(fi), kind: ev });
                }
                Stage::Liveness => {
                    let r = &self.funcs[fi];
                    if let Some((file, n, changed)) = r.sweeps.get(self.pos.sub).cloned() {
                        let last = r.sweeps.get(self.pos.sub + 1).is_none_or(|s| s.0 != file);
                        self.pos.sub += 1;
                        return Some(Event {
                            func: Some(fi),
                            kind: EventKind::LivenessSweep { file, sweep: n, changed, last },
                        });
                    }
                    self.pos.stage = if self.opts.dce { Stage::Dce } else { Stage::Uninit };
                    self.pos.sub = 0;
                }
                Stage::Dce => {
                    let ev = stages::dce(self, fi);
                    self.pos.stage = Stage::Uninit;
                    return Some(ev);
                }
                Stage::Uninit => {
                    let ev = stages::uninit(self, fi);
                    // Nothing after this stage reads them (lowering recomputes what it
                    // changes; the allocator builds its own); a query computes the
                    // liveness again (`pipeline_liveness`).
                    let r = &mut self.funcs[fi];
                    (r.cfg, r.live, r.sweeps, r.live_dropped) = (None, None, Vec::new(), true);
                    if fi + 1 < self.funcs.len() {
                        self.pos = Pos { stage: Stage::Cfg, func: fi + 1, sub: 0 };
                    } else {
                        self.goto(Stage::Abi);
                    }
                    return Some(ev);
                }
                Stage::Abi => match stages::abi_step(self) {
                    Some(ev) => return Some(ev),
                    None => {
                        self.abi_groups = None;
                        self.goto(Stage::Lowering);
                    }
                },
                Stage::Lowering => {
                    let ev = stages::lowering(self);
                    self.goto(Stage::Budget);
                    if let Some(ev) = ev {
                        return Some(ev);
                    }
                }
                Stage::Budget => {
                    let f = &self.module.functions[fi];
                    let uses_abi = stages::uses_abi(self, fi);
                    let b = budget::resolve_as(&self.module, f, uses_abi, self.opts.imported);
                    let ev = EventKind::Budget {
                        gpr: b.gpr,
                        source: self.budget_source(f, &b).into(),
                        diagnostics: b.diagnostics.clone().into(),
                    };
                    self.funcs[fi].budget = Some(b);
                    if !self.opts.batch {
                        self.compact_finished(fi);
                    }
                    self.pos.stage = Stage::Alloc;
                    self.pos.sub = 0;
                    return Some(Event { func: Some(fi), kind: ev });
                }
                Stage::Alloc => {
                    if self.cur.is_none() {
                        let config = self.alloc_config(fi);
                        let f = &self.module.functions[fi];
                        self.cur = Some(match &self.alloc_share {
                            Some(share) => share.start(fi, self.opts.allocator, f, config),
                            None => AllocRun::new(self.opts.allocator, f.clone(), config),
                        });
                    }
                    let cur = self.cur.as_mut().expect("allocation in progress");
                    match cur.step() {
                        Some(RunEvent::FatPoint(ev)) => {
                            return Some(Event { func: Some(fi), kind: EventKind::Alloc(ev) });
                        }
                        Some(RunEvent::Briggs(ev)) => {
                            return Some(Event { func: Some(fi), kind: EventKind::Briggs(ev) });
                        }
                        None => {
                            let done = self.cur.take().expect("allocation");
                            if let AllocRun::Briggs(b) = &done
                                && !self.opts.batch
                                && b.func().inst_count() != self.module.functions[fi].inst_count()
                            {
                                let f = b.func();
                                let c = cfg::build(f, cfg::loop_weight(&self.knobs));
                                let live = liveness::compute(f, &c, &exit_live(&self.module, fi));
                                self.funcs[fi].final_live = Some(Arc::new(live));
                            }
                            // Only a function under the convention is a callee whose
                            // writes its callers read (`stages::abi_config`).
                            let callee = self.funcs[fi].abi.as_ref().is_some_and(|r| r.engaged);
                            self.funcs[fi].writes = callee.then(|| done.written_r()).flatten().map(Arc::new);
                            // Under the plain convention (rule 7 off) every callee saves.
                            // Measured and not kept: callers seeing a leaf's preserved
                            // writes too — 4 dev rows (blender) and 2 test rows further
                            // from ptxas.
                            let own = self.knobs.bool(crate::knobs::CALLEE_CLOBBERS);
                            self.funcs[fi].saves = callee && (!own || stages::keeps_preserved(&self.module, fi));
                            self.funcs[fi].alloc = Some(if self.alloc_share.is_some() || self.opts.batch {
                                finished::Finished::held(done)
                            } else {
                                let config = done.config().clone();
                                finished::Finished::new(done, self.module.clone(), fi, config, &self.knobs)
                            });
                            self.pos.stage = Stage::Check;
                        }
                    }
                }
                Stage::Check => {
                    if self.opts.skip_check {
                        self.pos.stage = Stage::Stats;
                        continue;
                    }
                    let errors = stages::check(self, fi);
                    self.funcs[fi].check_errors = Some(errors.clone());
                    self.pos.stage = Stage::Stats;
                    return Some(Event { func: Some(fi), kind: EventKind::Check { errors } });
                }
                Stage::Stats => {
                    let mut stats = stats_of(&self.module, fi, self.funcs[fi].alloc.as_deref());
                    if self.opts.stage_on("report") && stats.error.is_none() {
                        stats.registers = crate::alloc::stats::ptxas_reported(stats.registers);
                        self.add_abi_saves(fi, &mut stats);
                        stages::report_stats(self, fi, &mut stats);
                    }
                    let lines = stats.lines(&self.module.sm.to_string(), self.module.options.warn_on_spills);
                    self.funcs[fi].stats = Some(stats);
                    if self.opts.batch {
                        let r = &mut self.funcs[fi];
                        (r.alloc, r.cfg, r.live) = (None, None, None);
                    }
                    self.next_func(Stage::Stats, Stage::Done);
                    if self.pos.stage == Stage::Stats {
                        self.pos.stage = Stage::Budget;
                    }
                    return Some(Event { func: Some(fi), kind: EventKind::Stats { lines } });
                }
                Stage::Done => {
                    if self.pos.sub > 0 {
                        return None;
                    }
                    self.pos.sub = 1;
                    return Some(Event { func: None, kind: EventKind::Done });
                }
            }
        }
    }

    /// Drops the allocations of the functions two and three before `fi` to their
    /// recipes, as function `fi`'s budget is resolved: the previous function's stays held,
    /// because the first events of `fi` still show its last ones and the state table
    /// falls back on it (a replay there would stall a step on a large function), and the
    /// one before it is dropped, again if a query replayed it. A run holds at most three
    /// finished allocations (the two before the one in hand, and any a query asked for),
    /// not one per function. The budget event's checkpoint is taken after this.
    fn compact_finished(&mut self, fi: usize) {
        for i in fi.saturating_sub(3)..fi.saturating_sub(1) {
            let Some(c) =
                self.funcs.get(i).and_then(|r| r.alloc.as_ref()).filter(|a| a.droppable()).map(|a| a.compact())
            else {
                continue;
            };
            self.funcs[i].alloc = Some(c);
        }
    }

    /// How many finished allocations are held in full (for tests that this does not
    /// grow with the number of functions).
    pub fn held_allocations(&self) -> usize {
        self.funcs.iter().filter(|r| r.alloc.as_ref().is_some_and(|a| a.is_held())).count()
    }

    /// The `report` rule's callee-saved traffic of a device function under the ABI
    /// (`alloc::stats::abi_save_bytes`), added to its spill figures and frame.
    fn add_abi_saves(&self, fi: usize, stats: &mut FunctionStats) {
        let f = &self.module.functions[fi];
        let (Some(a), Some(spec)) = (self.funcs[fi].alloc.as_deref(), f.abi.as_ref()) else { return };
        // Only a function whose calls need the real convention saves (issue 23; ptxas
        // 13.0.88: a `.func` keeping 12 values across its call of another module
        // `.func` reports 0 bytes of frame and spills, where the saves gave 56; blender's
        // device functions, all internal, report none at any budget).
        if f.kind != FuncKind::Device || !stages::uses_abi(self, fi) || !self.funcs[fi].saves {
            return;
        }
        let (preserved, _) = crate::abi::classify::effective_sets(spec, RegFile::R);
        let bytes = crate::alloc::stats::abi_save_bytes(a.func(), &|v| a.slot_of(v), &preserved);
        stats.spill_stores += bytes;
        stats.spill_loads += bytes;
        stats.stack_frame += bytes;
    }

    /// The allocator's inputs for function `fi`.
    pub(crate) fn alloc_config(&self, fi: usize) -> AllocConfig {
        let f = &self.module.functions[fi];
        let b = self.funcs[fi].budget.as_ref().expect("budget before allocation");
        let mut c = AllocConfig::simple(self.module.sm.version, b.gpr);
        c.knobs = (*self.knobs).clone();
        c.exit_live = exit_live(&self.module, fi);
        c.usage_level = self.module.options.register_usage_level;
        c.total_threads = budget::block_threads(f).unwrap_or(c.total_threads);
        c.smem_spill = self.module.options.compile_mode == 5;
        stages::abi_config(self, fi, &mut c);
        if self.opts.stage_on("report") {
            budget::apply_report_rule(&mut c);
        }
        c
    }
}

/// Return-value vregs of a function with an ABI spec (live out of its exits).
pub fn exit_live(m: &Module, fi: usize) -> Vec<VRegId> {
    let f = &m.functions[fi];
    f.abi.as_ref().map(|a| a.returns.iter().filter_map(|r| r.bind).collect()).unwrap_or_default()
}

/// The `-v` figures of a function from its finished allocation.
pub fn stats_of(m: &Module, fi: usize, alloc: Option<&AllocRun>) -> FunctionStats {
    let f = &m.functions[fi];
    let mut s = FunctionStats {
        name: f.name.to_string(),
        kind: f.kind,
        registers: 0,
        barriers: crate::alloc::stats::barriers_used(f),
        stack_frame: 0,
        spill_stores: 0,
        spill_loads: 0,
        error: None,
    };
    if let Some(a) = alloc {
        s.error = a.failure().map(str::to_string);
        let fig = a.figures();
        (s.registers, s.spill_stores, s.spill_loads, s.stack_frame) =
            (fig.registers, fig.spill_stores, fig.spill_loads, fig.stack_frame);
    }
    if f.kind == FuncKind::Device {
        s.barriers = 0;
    }
    s
}

/// The functions of `m` that a batch run must keep together, each group in module
/// order and the groups ordered by their first function: a function and every function
/// it names (a call, a call prototype, an address taken, in an operand or a memory
/// operand), transitively and in either direction. Nothing else crosses functions in
/// the pipeline — the prepasses read only module-scope variables, and the ABI limits,
/// setup, checks and lowering follow calls — so each group runs alone with the same
/// events as in the whole module (issue 25: memory bounded by the largest group).
pub fn call_groups(m: &Module) -> Vec<Vec<usize>> {
    let n = m.functions.len();
    let by_name: std::collections::HashMap<&str, usize> =
        m.functions.iter().enumerate().map(|(i, f)| (f.name.as_str(), i)).collect();
    let mut parent: Vec<usize> = (0..n).collect();
    fn root(p: &mut [usize], mut i: usize) -> usize {
        while p[i] != i {
            p[i] = p[p[i]];
            i = p[i];
        }
        i
    }
    for (fi, f) in m.functions.iter().enumerate() {
        for inst in f.blocks.iter().flat_map(|b| &b.insts) {
            for op in &inst.operands {
                let name = match op {
                    crate::ir::Operand::Sym(s) => Some(&**s),
                    crate::ir::Operand::Mem(r) => r.sym.as_deref(),
                    _ => None,
                };
                if let Some(&g) = name.and_then(|s| by_name.get(s)) {
                    let (a, b) = (root(&mut parent, fi), root(&mut parent, g));
                    // The smaller index is the root, so a group's root is its first function.
                    parent[a.max(b)] = a.min(b);
                }
            }
        }
    }
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut slot = vec![usize::MAX; n];
    for i in 0..n {
        let r = root(&mut parent, i);
        if slot[r] == usize::MAX {
            slot[r] = groups.len();
            groups.push(Vec::new());
        }
        groups[slot[r]].push(i);
    }
    groups
}

/// A module taken apart into the modules of its [`call_groups`], one at a time: each
/// has the whole module's settings and module-scope variables and only its group's
/// functions, moved (not copied) out, so a group's IR is freed with its run.
pub struct GroupSplit {
    header: Module,
    functions: Vec<Option<crate::ir::Function>>,
    groups: std::vec::IntoIter<Vec<usize>>,
}

impl GroupSplit {
    pub fn new(mut module: Module) -> GroupSplit {
        let groups = call_groups(&module);
        let functions = std::mem::take(&mut module.functions).into_iter().map(Some).collect();
        GroupSplit { header: module, functions, groups: groups.into_iter() }
    }

    /// Like [`GroupSplit::new`], the groups' modules without the PTX source lines
    /// (`Module::srcloc`), for a run that never shows CUDA lines (`radbg run`): one copy
    /// of the file's line table per group is most of the cost of a file of small entries.
    pub fn without_source_lines(mut module: Module) -> GroupSplit {
        module.srcloc = Default::default();
        GroupSplit::new(module)
    }

    /// How many groups are left.
    pub fn len(&self) -> usize {
        self.groups.len()
    }

    pub fn is_empty(&self) -> bool {
        self.groups.len() == 0
    }
}

impl Iterator for GroupSplit {
    /// The group's function indices in the whole module, and its module.
    type Item = (Vec<usize>, Module);

    fn next(&mut self) -> Option<(Vec<usize>, Module)> {
        let group = self.groups.next()?;
        let mut m = self.header.clone();
        m.functions = group.iter().filter_map(|&i| self.functions.get_mut(i).and_then(Option::take)).collect();
        Some((group, m))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// `device_calls.ptx` (calls, an extern, a prototype) with independent entries and a
    /// device function nobody calls after it.
    fn module() -> Module {
        let text = [
            include_str!("../../tests/ptx/device_calls.ptx"),
            include_str!("../../tests/engine_groups/independent.ptx.txt"),
        ]
        .concat();
        crate::ir::ptx::import_text(&text).module.expect("imports")
    }

    /// Every function's events, by name, in order (events of no function left out: the
    /// lowering summary counts the whole module's calls).
    fn events(m: Module, out: &mut BTreeMap<String, Vec<String>>) {
        let names: Vec<String> = m.functions.iter().map(|f| f.name.to_string()).collect();
        let opts = RunOptions { imported: true, batch: true, ..RunOptions::default() };
        let mut mach = Machine::new(m, opts);
        while let Some(ev) = mach.step() {
            if let Some(fi) = ev.func {
                out.entry(names[fi].clone()).or_default().push(format!("{:?}", ev.kind));
            }
        }
    }

    #[test]
    fn groups_follow_calls_and_keep_module_order() {
        let m = module();
        let groups = call_groups(&m);
        let names = |g: &Vec<usize>| g.iter().map(|&i| m.functions[i].name.as_str()).collect::<Vec<_>>();
        let caller = groups.iter().find(|g| names(g).contains(&"caller")).expect("caller's group");
        assert!(names(caller).contains(&"pair_sum") && names(caller).contains(&"vprintf"), "{:?}", names(caller));
        for solo in ["lone", "solo0", "solo1", "solo2"] {
            assert!(groups.iter().any(|g| names(g) == [solo]), "{solo} alone: {groups:?}");
        }
        assert!(groups.windows(2).all(|w| w[0][0] < w[1][0]) && groups.iter().all(|g| g.is_sorted()));
        assert_eq!(groups.iter().map(Vec::len).sum::<usize>(), m.functions.len());
    }

    #[test]
    fn a_module_run_group_by_group_gives_each_function_the_same_events() {
        let mut whole = BTreeMap::new();
        events(module(), &mut whole);
        let mut split = BTreeMap::new();
        let parts = GroupSplit::new(module());
        assert!(parts.len() > 2);
        for (_, m) in parts {
            events(m, &mut split);
        }
        assert!(whole.len() >= 7, "{:?}", whole.keys());
        assert_eq!(whole, split);
    }
}
