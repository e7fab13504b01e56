//! The per-function allocation state machine: the entry point (sub_9721C0), the
//! per-class NOSPILL/SPILL retry driver (sub_971A90 / sub_9714E0 of seeds 000 and 003,
//! "Spill Retry Loop") and the core loop over the assignment stack, as one machine
//! that [`FunctionAlloc::step`] advances by one event.
//!
//! Stages per class (1..6, class 0 skipped, barriers excluded): pre-colouring →
//! attempt 0 (NOSPILL): constraints per vreg, six-list order, one assignment per stack
//! entry, end of attempt (the `-CLASS NOSPILL REGALLOC` line), best result → while it
//! does not fit and attempts remain (knob 639): spill guidance, spill code, liveness
//! rebuilt, attempt N (SPILL) with the target lowered by one (unless knob 638) → class
//! end. Then finalization. A class that never fits ends the function with ptxas's fatal
//! `Register allocation failed` error and no assignment.
//!
//! The machine is `Clone`; [`FunctionAlloc::snapshot`] drops the occupancy cache
//! (rebuilt on demand from the assignment), so checkpoints stay small.

use std::sync::Arc;

use crate::alloc::attempt::{Attempt, AttemptRecord};
use crate::alloc::constraints::{self, Constraints};
use crate::alloc::cost::Costs;
use crate::alloc::event::AllocEvent;
use crate::alloc::fatpoint;
use crate::alloc::guidance::{self, Guidance};
use crate::alloc::occupancy::Occupancy;
use crate::alloc::order;
use crate::alloc::params::{self, FatPointParams};

/// Seed 000's vreg flag bit 0x80000 (High list; meaning not decoded).
const FLAG_0X80000: u64 = 0x80000;
use crate::alloc::ranges::{RangeMax, Ranges};
use crate::alloc::spill::{self, SlotConfig, SlotPool, SpillMem, SpilledVreg};
use crate::alloc::state::{AllocMode, AllocState};
use crate::analysis;
use crate::ir::{Function, RegClass, RegFile, VRegId, opcode::props, vflags};
use crate::knobs::Knobs;

/// Everything the allocator needs from outside the function's IR.
#[derive(Clone, Debug, PartialEq)]
pub struct AllocConfig {
    pub sm_version: u32,
    pub knobs: Knobs,
    /// Budget of classes 1 and 2 (general registers).
    pub gpr_budget: u32,
    /// Vregs pinned by the ABI (parameter and return bindings).
    pub abi_pins: Vec<(VRegId, u16)>,
    /// Registers nobody may be assigned, per file.
    pub fixed: Vec<(RegFile, u16)>,
    /// First register ordinary vregs may use (R4 under the ABI).
    pub first_free: Option<u16>,
    pub uses_abi: bool,
    /// Vregs live out of exit blocks (return values).
    pub exit_live: Vec<VRegId>,
    /// Physical registers each CALL clobbers, by callee name (scratch registers).
    pub clobbers: Vec<(String, Vec<u16>)>,
    /// Clobbers of calls to functions not listed.
    pub default_clobbers: Vec<u16>,
    /// OptiX compile mode 5 or knob 619: UR and tensor classes spill to SMEM.
    pub smem_spill: bool,
    pub usage_level: Option<u32>,
    pub total_threads: u32,
}

/// The physical registers a CALL clobbers: its callee's list in `clobbers` (by the
/// callee's name, its first symbol operand), else `default` (a function outside the
/// module). One reading for the fat-point occupancy, the Chaitin-Briggs graph and the
/// callee's own written set (`AllocRun::written_r`).
pub fn call_clobbers<'a>(inst: &crate::ir::Inst, clobbers: &'a [(String, Vec<u16>)], default: &'a [u16]) -> &'a [u16] {
    let callee = inst.uses().iter().find_map(|o| match o {
        crate::ir::Operand::Sym(s) => Some(s.as_ref()),
        _ => None,
    });
    callee.and_then(|c| clobbers.iter().find(|(n, _)| n == c)).map(|(_, c)| c.as_slice()).unwrap_or(default)
}

impl AllocConfig {
    pub fn simple(sm_version: u32, gpr_budget: u32) -> AllocConfig {
        AllocConfig {
            sm_version,
            knobs: Knobs::new(),
            gpr_budget,
            abi_pins: Vec::new(),
            fixed: Vec::new(),
            first_free: None,
            uses_abi: false,
            exit_live: Vec::new(),
            clobbers: Vec::new(),
            default_clobbers: Vec::new(),
            smem_spill: false,
            usage_level: None,
            total_threads: 128,
        }
    }
}

/// Liveness-derived data of the current IR, rebuilt whenever spill code changes it.
#[derive(Clone, Debug)]
pub struct Analysis {
    pub cfg: analysis::cfg::Cfg,
    pub live: analysis::liveness::Liveness,
    pub ranges: Ranges,
    pub costs: Costs,
}

/// One class to allocate.
#[derive(Clone, Debug, PartialEq)]
pub struct ClassPlan {
    pub class: RegClass,
    pub budget: u32,
    pub max_regs: u32,
    pub fixed: Vec<u16>,
}

/// How a class ended.
#[derive(Clone, Debug, PartialEq)]
pub struct ClassResult {
    pub class: RegClass,
    pub ok: bool,
    pub used: u32,
    pub attempts: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    BitSpill,
    ClassStart,
    PreColor,
    AttemptStart,
    Constraints,
    Order,
    Assign,
    AttemptEnd,
    Best,
    Guidance,
    SpillCode,
    Relive,
    ClassEnd,
    Finalize,
    Done,
}

/// The allocation machine of one function.
#[derive(Clone, Debug)]
pub struct FunctionAlloc {
    pub config: Arc<AllocConfig>,
    pub func: Arc<Function>,
    /// Predicates kept in general registers before the first class (`alloc::bitspill`).
    pub bit_spills: Arc<Vec<crate::alloc::bitspill::BitSpill>>,
    pub analysis: Arc<Analysis>,
    /// Assigned start slot of every vreg (alias roots; children follow their root).
    pub assign: Vec<Option<u16>>,
    /// Vregs whose latest assignment passed over a lower slot of the same cost in
    /// bank-aware mode: that slot and the tie-break (`why registers` names it; issue 23).
    pub placed: std::collections::BTreeMap<VRegId, (u16, fatpoint::Tie)>,
    /// Per vreg: whether `placed` has it, so that most assignments (no slot passed over)
    /// skip a search of the map to remove nothing (issue 25: ~1.5 % of a run at 32).
    placed_has: Vec<bool>,
    pub flags: Vec<u64>,
    pub state: AllocState,
    pub plans: Vec<ClassPlan>,
    /// Index into `plans` of the class being allocated.
    pub ci: usize,
    phase: Phase,
    pub attempt: Option<Attempt>,
    /// Shared with checkpoints (`snapshot`); copied only when an attempt ends.
    pub records: Arc<Vec<AttemptRecord>>,
    /// Shared with checkpoints; copied only when spill code is inserted.
    pub spills: Arc<Vec<SpilledVreg>>,
    /// Spilled values recomputed before their uses instead (issue 23 rule 16).
    pub remats: Arc<Vec<spill::Remat>>,
    /// Shared with checkpoints (its queue holds every candidate).
    pub guidance: Option<Arc<Guidance>>,
    pub pool_local: SlotPool,
    pub pool_shared: SlotPool,
    pub results: Vec<ClassResult>,
    /// The fatal error, when allocation failed.
    pub failure: Option<String>,
    /// The `-CLASS NOSPILL REGALLOC` debug lines, in order.
    pub debug_lines: Vec<String>,
    occ: Option<Arc<Occupancy>>,
    /// Vregs the pre-allocation pass put first on the stack.
    pending_prealloc: Vec<VRegId>,
    /// Vreg count of the original function (later ones are reload temporaries).
    pub original_vregs: usize,
    /// The knobs the phases read, typed and read once (`alloc::params`).
    pub params: Arc<FatPointParams>,
}

/// What [`FunctionAlloc::new`] makes of a function before it reads the budget: the
/// predicates demoted to general registers (`alloc::bitspill`, capped by the P file's
/// knob, not the budget) and the analysis of the result (CFG, liveness, live ranges,
/// spill costs with no class flagged under high pressure). A budget sweep's rows of one
/// span start from the same function and configuration but the budget, so they share it
/// (`alloc::run::Shared`; issue 25: each row made it again, ~10 % of a sweep).
#[derive(Debug)]
pub struct Prepared {
    /// The function as given, when the demotion changed it (else it is `func`).
    input: Option<Function>,
    /// The configuration it was made with, budget cleared.
    config: AllocConfig,
    pub func: Arc<Function>,
    pub bit_spills: Arc<Vec<crate::alloc::bitspill::BitSpill>>,
    pub analysis: Arc<Analysis>,
}

impl Prepared {
    pub fn new(mut func: Function, config: &AllocConfig) -> Prepared {
        let params = FatPointParams::from_knobs(&config.knobs);
        // The state `FunctionAlloc::from_prepared` builds before it flags a class: the
        // costs read only the flags (none yet).
        let state = AllocState::new(&config.knobs, config.total_threads);
        // `bitspill::demote` starts with the same CFG, liveness and live ranges as the
        // analysis (same loop weight and exit-live set) and changes nothing when the P
        // pressure fits its cap there — almost always. Then the analysis is made once
        // where it was made twice (issue 25: ~4 % of a scale-kernel run).
        let cfg = analysis::cfg::build(&func, params.loop_weight);
        let live = analysis::liveness::compute_defined(&func, &cfg, &config.exit_live);
        let ranges = Ranges::build(&func, &live);
        let cap = crate::alloc::budget::file_cap(RegFile::P, &config.knobs);
        if !params.bit_spill || ranges.pressure(&func, RegFile::P, |_| true).iter().all(|&p| p <= cap) {
            let mut analysis = Analysis { cfg, live, ranges, costs: Costs::default() };
            analysis.costs = costs(&func, &analysis, &params, &state);
            return Prepared {
                input: None,
                config: AllocConfig { gpr_budget: 0, ..config.clone() },
                func: Arc::new(func),
                bit_spills: Arc::new(Vec::new()),
                analysis: Arc::new(analysis),
            };
        }
        drop((cfg, live, ranges));
        let input = Some(func.clone());
        let bit_spills = crate::alloc::bitspill::demote(&mut func, cap, &config.exit_live, params.loop_weight);
        let input = input.filter(|_| !bit_spills.is_empty());
        let analysis = analyse(&func, config, &params, &state);
        Prepared {
            input,
            config: AllocConfig { gpr_budget: 0, ..config.clone() },
            func: Arc::new(func),
            bit_spills: Arc::new(bit_spills),
            analysis: Arc::new(analysis),
        }
    }

    /// Whether this is what [`Prepared::new`] makes of `f` under `config` (any budget).
    pub fn serves(&self, f: &Function, config: &AllocConfig) -> bool {
        let given = self.input.as_ref().unwrap_or(&self.func);
        AllocConfig { gpr_budget: 0, ..config.clone() } == self.config && given == f
    }
}

fn class_order() -> [RegClass; 7] {
    [RegClass::R, RegClass::RAlt, RegClass::UR, RegClass::URExt, RegClass::P, RegClass::UP, RegClass::T]
}

impl FunctionAlloc {
    /// Prepares the machine: analyses the function and plans the classes that have vregs.
    pub fn new(func: Function, config: AllocConfig) -> FunctionAlloc {
        FunctionAlloc::from_prepared(&Prepared::new(func, &config), config)
    }

    /// [`FunctionAlloc::new`] from the part of it that does not read the budget, made
    /// once for every budget of a sweep's span (`alloc::run::Shared`).
    pub fn from_prepared(prepared: &Prepared, config: AllocConfig) -> FunctionAlloc {
        let config = Arc::new(config);
        let params = Arc::new(FatPointParams::from_knobs(&config.knobs));
        let func: &Function = &prepared.func;
        let mut state = AllocState::new(&config.knobs, config.total_threads);
        state.spill_cost_mult = crate::alloc::budget::spill_cost_multiplier(&config.knobs, config.usage_level) as f32;
        state.smem_spill = state.smem_spill || config.smem_spill;
        state.spill_cost_threshold = if params.est_loop_iters_set { 1.0 } else { 0.0 };
        // Seed 000, "Mode Flags (+1588 -- +1594)": "When the function has more than one
        // basic block (sub_7DDB50 > 1), flags +1588, +1589, +1590 are all forced to 1."
        // Departure: +1590 (SMEM spilling) is not forced for a function that uses the ABI
        // — seed 003's hard rule "Smem spilling should not be enabled when functions use
        // abi" (ARCHITECTURE.md, "Where radbg departs from the seeds").
        if func.blocks.len() > 1 {
            state.epoch_aware = true;
            state.paired_mode = true;
            state.smem_spill = state.smem_spill || !config.uses_abi;
        }
        // Seed 003: "Smem spilling should not be enabled when functions use abi" — nor
        // in a function that makes a call (`spill::smem_allowed`).
        state.smem_spill = spill::smem_allowed(state.smem_spill, config.uses_abi, func);
        let has_phi = func.blocks.iter().flat_map(|b| &b.insts).any(|i| i.info().is(props::PHI));
        if has_phi {
            state.mode = if state.paired_mode { AllocMode::CssaPaired } else { AllocMode::Cssa };
        }
        let mut plans = Vec::new();
        for class in class_order() {
            let count = func.vregs.iter().filter(|v| v.class == class).count();
            if count == 0 {
                continue;
            }
            let file = class.file();
            let cap = crate::alloc::budget::file_cap(file, &config.knobs);
            let budget = match file {
                RegFile::R => config.gpr_budget.min(cap),
                RegFile::UR if config.sm_version < 75 => 0,
                _ => cap,
            };
            let widen = match state.mode {
                AllocMode::Cssa => Some(2),
                AllocMode::CssaPaired => Some(4),
                _ => None,
            };
            let max_regs = fatpoint::max_regs(budget, budget, widen);
            let fixed = config.fixed.iter().filter(|(f, _)| *f == file).map(|&(_, r)| r).collect();
            plans.push(ClassPlan { class, budget, max_regs, fixed });
        }
        let flags = func.vregs.iter().map(|v| v.flags).collect();
        let n = func.vregs.len();
        let original_vregs = n;
        debug_assert!(state.classes.iter().all(|c| !c.high_pressure), "the prepared costs assume no flag");
        let mut analysis = None;
        // Seed 003, "Default cost weight": 3.0 instead of 15.0 "for register classes under
        // high pressure", flagged at alloc + 32·class + 893. radbg's reading of "under high
        // pressure": the class's peak pressure exceeds its budget before allocation.
        let mut flagged = false;
        for plan in &plans {
            let class = plan.class;
            let peak = prepared
                .analysis
                .ranges
                .pressure(func, class.file(), |v| func.vreg(v).class == class)
                .into_iter()
                .max();
            if peak.unwrap_or(0) > plan.budget {
                state.classes[class.id() as usize].high_pressure = true;
                flagged = true;
            }
        }
        if flagged {
            let mut a = Analysis::clone(&prepared.analysis);
            a.costs = costs(func, &a, &params, &state);
            analysis = Some(Arc::new(a));
        }
        let analysis = analysis.unwrap_or_else(|| prepared.analysis.clone());
        let threshold = state.spill_cost_threshold;
        FunctionAlloc {
            config,
            func: prepared.func.clone(),
            phase: if prepared.bit_spills.is_empty() { Phase::ClassStart } else { Phase::BitSpill },
            bit_spills: prepared.bit_spills.clone(),
            analysis,
            assign: vec![None; n],
            placed: Default::default(),
            placed_has: Vec::new(),
            flags,
            state,
            plans,
            ci: 0,
            attempt: None,
            records: Arc::new(Vec::new()),
            spills: Arc::new(Vec::new()),
            remats: Arc::new(Vec::new()),
            guidance: None,
            pool_local: SlotPool::new(SlotConfig::for_threshold(threshold)),
            pool_shared: SlotPool::new(SlotConfig::for_threshold(threshold)),
            results: Vec::new(),
            failure: None,
            debug_lines: Vec::new(),
            occ: None,
            pending_prealloc: Vec::new(),
            original_vregs,
            params,
        }
    }

    /// A copy without the occupancy cache, for checkpoints.
    pub fn snapshot(&self) -> FunctionAlloc {
        let mut s = self.clone();
        s.occ = None;
        s
    }

    pub fn is_done(&self) -> bool {
        self.phase == Phase::Done
    }

    pub fn plan(&self) -> Option<&ClassPlan> {
        self.plans.get(self.ci)
    }

    /// The slot of a vreg (following its alias root).
    pub fn slot_of(&self, v: VRegId) -> Option<u16> {
        let r = self.analysis.ranges.root.get(v.index()).copied().unwrap_or(v);
        self.assign.get(r.index()).copied().flatten()
    }

    /// The occupancy of the current class's file, rebuilt from assignments if needed.
    pub fn occupancy(&mut self) -> Arc<Occupancy> {
        if self.occ.is_none() {
            self.occ = Some(Arc::new(self.build_occupancy()));
        }
        self.occ.clone().expect("just built")
    }

    fn build_occupancy(&self) -> Occupancy {
        let Some(plan) = self.plans.get(self.ci) else {
            return Occupancy::new(1, 1);
        };
        let file = plan.class.file();
        let ranges = &self.analysis.ranges;
        // Rows up to the scan bound (and any pinned or physical register above it).
        let rows = self
            .func
            .vregs
            .iter()
            .enumerate()
            .filter_map(|(i, v)| self.assign[i].map(|s| s as usize + v.width as usize))
            .max()
            .unwrap_or(0);
        let mut occ =
            Occupancy::new((plan.max_regs as usize).max(rows).min(fatpoint::SLOTS.max(rows)), ranges.positions);
        for (i, vr) in self.func.vregs.iter().enumerate() {
            let v = VRegId::new(i);
            if vr.file() != file || !ranges.is_root(v) {
                continue;
            }
            if let Some(s) = self.assign[i] {
                for k in 0..vr.width as usize {
                    occ.occupy(s as usize + k, ranges.segments(v));
                }
            }
        }
        // Physical operands and call clobbers: a type-1 conflict at that position.
        let layout = self.func.layout();
        for (b, block) in self.func.blocks.iter().enumerate() {
            for (i, inst) in block.insts.iter().enumerate() {
                let p = layout.point(b, i);
                for (k, op) in inst.operands.iter().enumerate() {
                    if let crate::ir::Operand::Reg(crate::ir::Reg::P(pr)) = op
                        && pr.file == file
                        && !pr.is_zero()
                    {
                        let pos = if k < inst.ndefs as usize { 2 * p + 1 } else { 2 * p };
                        occ.occupy_phys(pr.index as usize, pos);
                    }
                }
                if file == RegFile::R && inst.info().is(props::CALL) {
                    let clobbers = call_clobbers(inst, &self.config.clobbers, &self.config.default_clobbers);
                    // The call's own results are written into their (pinned) registers.
                    let mut defs_at = Vec::new();
                    inst.for_each_def(|r| {
                        if let Some(s) = self.slot_of(r.vreg) {
                            for k in 0..self.func.vreg(r.vreg).width as u16 {
                                defs_at.push(s + k);
                            }
                        }
                    });
                    for &c in clobbers {
                        if !defs_at.contains(&c) {
                            occ.occupy_phys(c as usize, 2 * p + 1);
                        }
                    }
                }
            }
        }
        occ
    }

    /// Advances by one event; `None` once finished. The table of contents of the
    /// machine: each phase is one method (seed 000 "Per-Class Driver: sub_971A90" and
    /// "Core Fat-Point Allocator: sub_957160"), which sets the next phase and returns its
    /// event, or `None` when it produced none and the next phase runs at once.
    pub fn step(&mut self) -> Option<AllocEvent> {
        loop {
            let event = match self.phase {
                Phase::Done => return None,
                Phase::BitSpill => Some(self.phase_bit_spill()),
                Phase::ClassStart => self.phase_class_start(),
                Phase::PreColor => Some(self.phase_precolor()),
                Phase::AttemptStart => Some(self.phase_attempt_start()),
                Phase::Constraints => self.phase_constraints(),
                Phase::Order => Some(self.phase_order()),
                Phase::Assign => self.phase_assign(),
                Phase::AttemptEnd => Some(self.phase_attempt_end()),
                Phase::Best => Some(self.phase_best()),
                Phase::Guidance => Some(self.phase_guidance()),
                Phase::SpillCode => self.phase_spill_code(),
                Phase::Relive => Some(self.phase_relive()),
                Phase::ClassEnd => Some(self.phase_class_end()),
                Phase::Finalize => Some(self.phase_finalize()),
            };
            if event.is_some() {
                return event;
            }
        }
    }

    /// Predicates kept in general registers before the first class (`alloc::bitspill`).
    fn phase_bit_spill(&mut self) -> AllocEvent {
        self.phase = Phase::ClassStart;
        AllocEvent::BitSpill {
            vregs: self.bit_spills.iter().map(|b| b.vreg).collect(),
            stores: self.bit_spills.iter().map(|b| b.stores).sum(),
            restores: self.bit_spills.iter().map(|b| b.restores).sum(),
        }
    }

    /// A class's descriptor and the state object's per-class fields (sub_971A90 entry).
    fn phase_class_start(&mut self) -> Option<AllocEvent> {
        let Some(plan) = self.plans.get(self.ci).cloned() else {
            self.phase = Phase::Finalize;
            return None;
        };
        let id = plan.class.id() as usize;
        let d = &mut self.state.classes[id];
        d.max_regs = plan.budget as i32;
        d.active = true;
        self.state.hw_limit = plan.budget as i32;
        self.state.budget = plan.budget as i32;
        self.state.max_regs_aligned = ((plan.budget + 4) & !3) as i32;
        self.state.max_regs_scan = plan.max_regs as i32;
        self.state.attempt = 0;
        self.state.target = plan.budget as i32;
        self.state.effective_budget = plan.budget as i32;
        self.state.adjusted_budget = plan.budget as i32;
        self.state.spill_done = false;
        if matches!(plan.class, RegClass::UR | RegClass::T) && self.state.smem_spill {
            self.state.mode = AllocMode::Smem;
        }
        self.occ = None;
        let vregs = self.class_vregs(plan.class).len() as u32;
        self.phase = Phase::PreColor;
        Some(AllocEvent::ClassStart { class: plan.class, budget: plan.budget, max_regs: plan.max_regs, vregs })
    }

    fn phase_precolor(&mut self) -> AllocEvent {
        self.phase = Phase::AttemptStart;
        self.precolor()
    }

    /// A new attempt: NOSPILL first, SPILL after guidance (sub_971A90's loop).
    fn phase_attempt_start(&mut self) -> AllocEvent {
        let plan = self.plans[self.ci].clone();
        let number = self.records.iter().filter(|r| r.class == plan.class).count() as u32;
        let spill = number > 0;
        let target = if spill { self.state.target.max(0) as u32 } else { plan.budget };
        self.state.attempt = number as i32;
        self.state.cur_max = 0;
        self.state.spill_cost_total = 0.0;
        self.state.spill_events = 0;
        self.state.best_round = 0;
        self.state.target = target as i32;
        self.unassign_class(plan.class);
        self.occ = None;
        // The file's pressure over every vreg: the attempt's interference index and, for
        // R, the constraints' bank limit (computed twice per attempt before; issue 25).
        let file_pressure = self.analysis.ranges.pressure(&self.func, plan.class.file(), |_| true);
        let r_peak = (plan.class.file() == RegFile::R).then(|| file_pressure.iter().copied().max().unwrap_or(0));
        let constraints = Arc::new(self.build_constraints(&plan, r_peak));
        let members = self.class_vregs(plan.class);
        let pinned_used = members
            .iter()
            .filter_map(|&v| self.assign[v.index()].map(|s| s as u32 + self.func.vreg(v).width as u32))
            .max()
            .unwrap_or(0);
        self.attempt = Some(Attempt::new(
            &plan,
            number,
            spill,
            target,
            constraints,
            members,
            &self.func,
            &self.analysis.ranges,
            self.pending_prealloc.clone(),
            pinned_used,
            file_pressure,
        ));
        self.phase = Phase::Constraints;
        AllocEvent::AttemptStart { class: plan.class, attempt: number, spill, target }
    }

    /// One vreg's constraint nodes (sub_926A30), one event per vreg.
    fn phase_constraints(&mut self) -> Option<AllocEvent> {
        let att = self.attempt.as_mut().expect("attempt");
        if att.constraint_cursor >= att.members.len() {
            self.phase = Phase::Order;
            return None;
        }
        let v = att.members[att.constraint_cursor];
        att.constraint_cursor += 1;
        let nodes = att.constraints.of(v).len() as u32;
        let interference = att.interference(v);
        Some(AllocEvent::Constraints {
            class: att.class,
            attempt: att.number,
            vreg: v,
            nodes,
            interference,
            cost: self.analysis.costs.cost[v.index()],
        })
    }

    /// The six lists and the assignment stack (sub_93FBE0).
    fn phase_order(&mut self) -> AllocEvent {
        let plan = self.plans[self.ci].clone();
        let an = self.analysis.clone();
        let att = self.attempt.as_mut().expect("attempt");
        let pinned: Vec<VRegId> = att.members.iter().copied().filter(|&v| self.assign[v.index()].is_some()).collect();
        let cands: Vec<order::Candidate> = att
            .members
            .iter()
            .filter(|v| !pinned.contains(v))
            .map(|&v| {
                let vr = self.func.vreg(v);
                let nodes = att.constraints.of(v);
                let own = nodes
                    .iter()
                    .any(|n| !matches!(n.ty, constraints::CType::ExcludeOne | constraints::CType::BelowPoint));
                order::Candidate {
                    vreg: v,
                    width: vr.width,
                    pair_flags: self.flags[v.index()] & (vflags::PAIR_MODE_MASK | vflags::PAIR_HI) != 0,
                    has_nodes: own,
                    interference: att.interference(v),
                    spill_cost: an.costs.cost[v.index()],
                    first_pos: an.ranges.segments(v).first().map(|s| s.0).unwrap_or(0),
                    preallocated: att.preallocated.contains(&v),
                    high_flag: self.flags[v.index()] & FLAG_0X80000 != 0,
                }
            })
            .collect();
        let p = &self.params;
        let rules = order::Rules {
            high_cost_threshold: (p.six_lists & params::LISTS_HIGH_BY_COST != 0).then_some(self.state.high_threshold),
            cost_mult: self.state.spill_cost_mult as f64,
            low_by_ratio: p.six_lists & params::LISTS_LOW_BY_RATIO != 0,
        };
        let mut ord = order::order(&cands, plan.budget, att.spill, &rules);
        // Seed 000: the core "pops this stack in reverse" (radbg's default walks it from
        // the bottom: ARCHITECTURE.md, "Six lists").
        if p.six_lists & params::LISTS_POP_REVERSE != 0 {
            ord.stack.reverse();
            ord.lists.reverse();
        }
        // Pre-allocated vregs (sub_94A020) go first.
        if !att.preallocated.is_empty() {
            let (mut first, mut rest): (Vec<_>, Vec<_>) = ord
                .stack
                .iter()
                .copied()
                .zip(ord.lists.iter().copied())
                .partition(|(v, _)| att.preallocated.contains(v));
            first.append(&mut rest);
            ord.stack = first.iter().map(|p| p.0).collect();
            ord.lists = first.iter().map(|p| p.1).collect();
        }
        att.order = Arc::new(ord);
        self.state.stack_len = att.order.stack.len() as u32;
        self.state.stack_cursor = 0;
        let ev = AllocEvent::Order {
            class: plan.class,
            attempt: att.number,
            sizes: att.order.sizes,
            stack: att.order.stack.len() as u32,
        };
        self.phase = Phase::Assign;
        ev
    }

    /// One stack entry through the fat-point scan (sub_957160's loop body).
    fn phase_assign(&mut self) -> Option<AllocEvent> {
        let done = {
            let att = self.attempt.as_ref().expect("attempt");
            att.cursor >= att.order.stack.len()
        };
        if done {
            self.phase = Phase::AttemptEnd;
            return None;
        }
        Some(AllocEvent::Assign(self.assign_next()))
    }

    /// The attempt's result and its `-CLASS NOSPILL REGALLOC` line.
    fn phase_attempt_end(&mut self) -> AllocEvent {
        let plan = self.plans[self.ci].clone();
        let att = self.attempt.as_ref().expect("attempt");
        let used = att.used;
        let success = att.needs_spill.is_empty() && used <= plan.budget;
        let line = format!("-CLASS NOSPILL REGALLOC: attemp {}, used {}, target {}", att.number, used, att.target);
        self.debug_lines.push(format!("{} {}", plan.class.name(), line));
        let mut record = att.record(&self.assign, self.analysis.costs.cost.as_slice(), success);
        record.spilled_total = self.spills.iter().filter(|s| self.func.vreg(s.vreg).class == plan.class).count() as u32;
        let ev = AllocEvent::AttemptEnd(Box::new(crate::alloc::event::AttemptEnd {
            class: plan.class,
            attempt: att.number,
            used,
            target: att.target,
            success,
            needs_spill: att.needs_spill.len() as u32,
            line,
        }));
        self.state.best_round = used as i32;
        Arc::make_mut(&mut self.records).push(record);
        self.phase = Phase::Best;
        ev
    }

    /// The best result so far (sub_93D070) and whether another attempt follows.
    fn phase_best(&mut self) -> AllocEvent {
        let plan = self.plans[self.ci].clone();
        let best = crate::alloc::attempt::best_of(&self.records, plan.class).expect("an attempt");
        let ev = AllocEvent::Best {
            class: plan.class,
            attempt: best.number,
            used: best.used,
            cost: best.cost,
            spills: best.spilled_total,
        };
        let last = self.records.last().expect("attempt");
        self.phase = if last.success {
            Phase::ClassEnd
        } else if last.number < self.params.spill_trials {
            Phase::Guidance
        } else {
            Phase::ClassEnd
        };
        ev
    }

    fn phase_guidance(&mut self) -> AllocEvent {
        let ev = self.run_guidance();
        self.phase = Phase::SpillCode;
        ev
    }

    fn phase_spill_code(&mut self) -> Option<AllocEvent> {
        match self.run_spill_code() {
            Some(ev) => {
                self.phase = Phase::Relive;
                Some(ev)
            }
            None => {
                // Nothing to spill: retry with the lowered target anyway.
                self.phase = Phase::AttemptStart;
                None
            }
        }
    }

    /// Liveness, ranges and costs rebuilt after spill code.
    fn phase_relive(&mut self) -> AllocEvent {
        let plan = self.plans[self.ci].clone();
        self.analysis = Arc::new(analyse(&self.func, &self.config, &self.params, &self.state));
        self.assign.resize(self.func.vregs.len(), None);
        self.occ = None;
        self.phase = Phase::AttemptStart;
        AllocEvent::Relive {
            class: plan.class,
            insts: self.func.inst_count() as u32,
            vregs: self.func.vregs.len() as u32,
        }
    }

    /// The class's outcome; a class that never fits ends the function (sub_9714E0).
    fn phase_class_end(&mut self) -> AllocEvent {
        let plan = self.plans[self.ci].clone();
        let last = self.records.last().expect("attempt").clone();
        let attempts = self.records.iter().filter(|r| r.class == plan.class).count() as u32;
        let id = plan.class.id() as usize;
        self.state.classes[id].count = last.used as i32;
        self.state.classes[id].spilled = self.spills.iter().any(|s| self.func.vreg(s.vreg).class == plan.class);
        let mut message = None;
        if !last.success {
            self.state.classes[id].overflow = true;
            let m = format!(
                "Register allocation failed with register count of '{}'. Compile the program with a higher register target",
                plan.budget
            );
            self.failure = Some(m.clone());
            message = Some(m);
            // Finalization clears every assignment (sub_9714E0).
            self.assign.iter_mut().for_each(|a| *a = None);
        }
        self.results.push(ClassResult { class: plan.class, ok: last.success, used: last.used, attempts });
        self.attempt = None;
        self.guidance = None;
        self.phase = if last.success {
            self.ci += 1;
            Phase::ClassStart
        } else {
            Phase::Finalize
        };
        AllocEvent::ClassEnd { class: plan.class, ok: last.success, used: last.used, attempts, message }
    }

    fn phase_finalize(&mut self) -> AllocEvent {
        self.phase = Phase::Done;
        self.state.has_spilled = !self.spills.is_empty();
        AllocEvent::Finalize { ok: self.failure.is_none(), message: self.failure.clone() }
    }

    /// Runs to the end.
    pub fn run(&mut self) {
        while self.step().is_some() {}
    }

    /// Vregs of a class that need a register: alias roots with a live range.
    pub fn class_vregs(&self, class: RegClass) -> Vec<VRegId> {
        let r = &self.analysis.ranges;
        (0..self.func.vregs.len())
            .map(VRegId::new)
            .filter(|&v| self.func.vreg(v).class == class && r.is_root(v) && !r.segments(v).is_empty())
            .collect()
    }

    fn pin_of(&self, v: VRegId) -> Option<u16> {
        self.config.abi_pins.iter().find(|(p, _)| *p == v).map(|p| p.1).or(self.func.vreg(v).pin)
    }

    fn unassign_class(&mut self, class: RegClass) {
        for (i, vr) in self.func.vregs.iter().enumerate() {
            if vr.class == class && self.pin_of(VRegId::new(i)).is_none() {
                self.assign[i] = None;
                self.flags[i] &= !vflags::NEEDS_SPILL;
            }
        }
    }

    /// Pre-colouring (pins and ABI bindings) and the pre-allocation pass (sub_94A020).
    fn precolor(&mut self) -> AllocEvent {
        let plan = self.plans[self.ci].clone();
        let mut pinned = Vec::new();
        for v in self.class_vregs(plan.class) {
            if let Some(r) = self.pin_of(v) {
                self.assign[v.index()] = Some(r);
                self.flags[v.index()] |= vflags::PREASSIGNED;
                pinned.push((v, r));
            }
        }
        self.occ = None;
        let enabled = self.state.mac_force || self.state.mac_order != 0 || self.params.pref_mac_operands > 0;
        let mode_ok = matches!(self.state.mode, AllocMode::Cssa | AllocMode::Smem | AllocMode::CssaPaired);
        let mut prealloc = Vec::new();
        let note = if !enabled {
            "off: knobs 628/629/646 unset".to_string()
        } else if !mode_ok {
            format!("skipped in allocation mode {}", self.state.mode as i32)
        } else {
            for inst in self.func.blocks.iter().flat_map(|b| &b.insts) {
                let Some(ori) = inst.info().ori else { continue };
                if !crate::ir::opcode::prealloc_eligible_wide(ori) {
                    continue;
                }
                let mut add = |v: VRegId| {
                    let r = self.analysis.ranges.root[v.index()];
                    if self.func.vreg(r).class == plan.class && !prealloc.contains(&r) && self.pin_of(r).is_none() {
                        prealloc.push(r);
                    }
                };
                inst.for_each_use(|r| add(r.vreg));
                inst.for_each_def(|r| add(r.vreg));
            }
            "operands of eligible opcodes assigned first".to_string()
        };
        self.pending_prealloc = prealloc.clone();
        AllocEvent::PreColor(Box::new(crate::alloc::event::PreColor { class: plan.class, pinned, prealloc, note }))
    }

    fn build_constraints(&self, plan: &ClassPlan, r_peak: Option<u32>) -> Constraints {
        let pins: Vec<(VRegId, u16)> =
            (0..self.func.vregs.len()).map(VRegId::new).filter_map(|v| self.pin_of(v).map(|r| (v, r))).collect();
        let first_free = if plan.class.file() == RegFile::R { self.config.first_free } else { None };
        constraints::build(
            &self.func,
            &self.analysis.ranges,
            &constraints::BuildInput {
                class: plan.class,
                pins: &pins,
                fixed: &plan.fixed,
                first_free,
                coalescing: self.state.coalescing,
                bank_aware: self.state.bank_aware,
                sm_version: self.config.sm_version,
                freq: &self.analysis.cfg.freq,
                store_rotation: self.params.store_rotation,
                r_peak,
            },
        )
    }
}

/// Liveness, ranges and costs of the current IR.
pub fn analyse(f: &Function, config: &AllocConfig, params: &FatPointParams, state: &AllocState) -> Analysis {
    let cfg = analysis::cfg::build(f, params.loop_weight);
    let live = analysis::liveness::compute_defined(f, &cfg, &config.exit_live);
    let ranges = Ranges::build(f, &live);
    let mut a = Analysis { cfg, live, ranges, costs: Costs::default() };
    a.costs = costs(f, &a, params, state);
    a
}

/// Spill costs with each class's weight: 15.0, or 3.0 where the +893 flag is set.
fn costs(f: &Function, a: &Analysis, params: &FatPointParams, state: &AllocState) -> Costs {
    let (base, high) = (params.spill_weight, params.spill_weight_high);
    let weight = |v: VRegId| {
        let class = f.vreg(v).class.id() as usize;
        if state.classes.get(class).is_some_and(|c| c.high_pressure) { high } else { base }
    };
    Costs::compute_with(f, &a.ranges, &a.cfg.freq, &weight, params.call_rule)
}

/// Interference estimate per vreg: highest file pressure over its positions.
pub fn interference_index(f: &Function, ranges: &Ranges, file: RegFile) -> RangeMax {
    RangeMax::new(ranges.pressure(f, file, |_| true))
}

impl FunctionAlloc {
    /// Assigns the next vreg on the stack (sub_957160's loop body + sub_94FDD0).
    fn assign_next(&mut self) -> crate::alloc::event::Assign {
        let (max_regs, budget) = (self.plans[self.ci].max_regs, self.plans[self.ci].budget);
        let occ = self.occupancy();
        let threshold = self.params.discard_threshold;
        let interval_interference = self.params.interval_interference;
        let an = self.analysis.clone();
        let func = self.func.clone();
        let assign_snapshot = &self.assign;
        let att = self.attempt.as_mut().expect("attempt");
        let index = att.cursor;
        let v = att.order.stack[index];
        let list = att.order.lists[index];
        let width = func.vreg(v).width;
        let segs = an.ranges.segments(v);
        let root = &an.ranges.root;
        let slot_of = |t: VRegId| assign_snapshot.get(root[t.index()].index()).copied().flatten();
        // The previous vreg's histogram, refilled in place when no checkpoint holds it.
        let mut hist = match att.last.take().map(Arc::try_unwrap) {
            Some(Ok((_, h, _))) => h,
            _ => fatpoint::Histogram::default(),
        };
        fatpoint::fill_into(
            &mut hist,
            &fatpoint::FillInput {
                width,
                segs,
                nodes: att.constraints.of(v),
                occ: &occ,
                slot_of: &slot_of,
                n: max_regs as usize,
                bank_limit: att.constraints.bank_limit,
                rotation: att.constraints.rotation_of(v),
                interval: interval_interference,
            },
        );
        let d = fatpoint::scan(&hist, width, threshold);
        // Release this handle so committing below mutates the occupancy in place
        // instead of copying it (Arc::make_mut copies while another handle lives).
        drop(occ);
        att.cursor += 1;
        let (class, number) = (att.class, att.number);
        let spilled_already = self.flags[v.index()] & vflags::SPILLED != 0;
        let mut needs_spill = false;
        match d.slot {
            None => {
                needs_spill = true;
                att.used = att.used.max(max_regs);
                att.needs_spill.push(v);
            }
            Some(s) => {
                let end = s as u32 + width as u32;
                att.used = att.used.max(end);
                if end > budget && !spilled_already {
                    needs_spill = true;
                    att.needs_spill.push(v);
                } else {
                    self.assign[v.index()] = Some(s);
                    match d.passed {
                        Some(p) => {
                            if self.placed_has.len() <= v.index() {
                                self.placed_has.resize(v.index() + 1, false);
                            }
                            self.placed_has[v.index()] = true;
                            self.placed.insert(v, p);
                        }
                        None => {
                            if let Some(has) = self.placed_has.get_mut(v.index()).filter(|h| **h) {
                                *has = false;
                                self.placed.remove(&v);
                            }
                        }
                    }
                    let occ_mut = Arc::make_mut(self.occ.as_mut().expect("occupancy"));
                    for k in 0..width as usize {
                        occ_mut.occupy(s as usize + k, segs);
                    }
                    self.state.cur_max = self.state.cur_max.max(end as i32 - 1);
                    self.state.peak = self.state.peak.max(self.state.cur_max);
                    self.state.spill_cost_total += an.costs.cost[v.index()];
                }
            }
        }
        if needs_spill {
            self.flags[v.index()] |= vflags::NEEDS_SPILL;
            self.state.spill_events += 1;
        }
        att.last = Some(Arc::new((v, hist, d.clone())));
        self.state.stack_cursor = index as u32 + 1;
        crate::alloc::event::Assign {
            class,
            attempt: number,
            index: index as u32,
            vreg: v,
            list,
            slot: d.slot,
            cost: d.cost,
            secondary: d.secondary,
            discarded: d.discarded.len() as u32,
            blocked: d.blocked,
            needs_spill,
        }
    }

    fn run_guidance(&mut self) -> AllocEvent {
        let plan = self.plans[self.ci].clone();
        let last = self.records.last().expect("attempt").clone();
        // Lower the target for the next attempt (alloc+1560 = target - 1) unless knob 638.
        let no_retarget = self.params.no_retarget;
        let target = if last.number == 0 || no_retarget { plan.budget } else { last.target.saturating_sub(1).max(1) };
        self.state.target = target as i32;
        let an = self.analysis.clone();
        let file = plan.class.file();
        // Pressure of the file over positions: this class's vregs, vregs of the file
        // already assigned by earlier classes, and the fixed registers.
        let class = plan.class;
        let mut pressure = an
            .ranges
            .pressure(&self.func, file, |v| self.func.vreg(v).class == class || self.assign[v.index()].is_some());
        let first_free = self.config.first_free.filter(|_| file == RegFile::R).unwrap_or(0);
        let fixed_below = (0..plan.budget.min(fatpoint::SLOTS as u32) as u16)
            .filter(|r| *r < first_free || plan.fixed.contains(r))
            .count() as u32;
        pressure.iter_mut().for_each(|p| *p += fixed_below);
        let members = self.class_vregs(class);
        let mut has_children = vec![false; self.func.vregs.len()];
        for o in &self.func.vregs {
            if let Some(p) = o.alias.filter(|p| p.index() < has_children.len()) {
                has_children[p.index()] = true;
            }
        }
        let mut marked = vec![false; self.func.vregs.len()];
        for v in &last.needs_spill {
            marked[v.index()] = true;
        }
        // Every candidate's interior runs in one vector (`bounds[k]..bounds[k + 1]`).
        let (mut runs, mut bounds, mut picked) = (Vec::new(), vec![0usize], Vec::new());
        for &v in &members {
            if self.flags[v.index()] & vflags::SPILLED == 0 && self.pin_of(v).is_none() && !has_children[v.index()] {
                an.costs.interior_into(&an.ranges, v, &mut runs);
                bounds.push(runs.len());
                picked.push(v);
            }
        }
        // A value rematerialized instead of stored costs no memory traffic: it heads the
        // queue (issue 23 rule 16; the `-v` line counts no bytes for it).
        let mut remat = vec![false; self.func.vregs.len()];
        if self.params.spill_remat {
            for (v, _) in spill::rematerializable(&self.func, &picked) {
                remat[v.index()] = true;
            }
        }
        let cands: Vec<guidance::Cand> = picked
            .iter()
            .enumerate()
            .map(|(k, &v)| guidance::Cand {
                vreg: v,
                width: self.func.vreg(v).width,
                cost: if remat[v.index()] { 0.0 } else { an.costs.cost[v.index()] },
                interior: &runs[bounds[k]..bounds[k + 1]],
                needs_spill: marked[v.index()],
            })
            .collect();
        let g = guidance::choose(&pressure, target, &cands, last.spill, self.params.guidance_walk);
        let ev = AllocEvent::Guidance(Box::new(crate::alloc::event::Guidance {
            class,
            attempt: last.number,
            target,
            queue: g.queue.len() as u32,
            chosen: g.chosen.clone(),
            peak_before: g.peak_before,
            peak_after: g.peak_after,
            fallback: g.fallback,
        }));
        self.guidance = Some(Arc::new(g));
        ev
    }

    fn run_spill_code(&mut self) -> Option<AllocEvent> {
        let plan = self.plans[self.ci].clone();
        let chosen = self.guidance.as_ref().map(|g| g.chosen.clone()).unwrap_or_default();
        if chosen.is_empty() {
            return None;
        }
        let smem = self.state.mode == AllocMode::Smem && matches!(plan.class, RegClass::UR | RegClass::T);
        let remat = if self.params.spill_remat { spill::rematerializable(&self.func, &chosen) } else { Vec::new() };
        // Per vreg, as guidance marks them: a list lookup per chosen value was quadratic.
        let mut is_remat = vec![false; self.func.vregs.len()];
        for (v, _) in &remat {
            is_remat[v.index()] = true;
        }
        let mut list = Vec::new();
        for &v in chosen.iter().filter(|v| !is_remat[v.index()]) {
            let bytes = self.func.vreg(v).width as u32 * 4;
            let pool = if smem { &mut self.pool_shared } else { &mut self.pool_local };
            let Some(off) = pool.alloc(bytes) else { continue };
            list.push((v, if smem { SpillMem::Shared } else { SpillMem::Local }, off));
        }
        if list.is_empty() && remat.is_empty() {
            return None;
        }
        let f = Arc::make_mut(&mut self.func);
        let remade = spill::rematerialize(f, &remat);
        let recs = spill::insert(f, &list);
        self.flags.resize(f.vregs.len(), 0);
        for r in &remade {
            self.flags[r.vreg.index()] |= vflags::SPILLED;
            for t in &r.temps {
                self.flags[t.index()] |= vflags::SPILLED;
            }
        }
        let remat_vregs: Vec<VRegId> = remade.iter().map(|r| r.vreg).collect();
        let recomputed: u32 = remade.iter().map(|r| r.temps.len() as u32).sum();
        let remat_event = (!remat_vregs.is_empty()).then(|| Box::new((remat_vregs, recomputed)));
        self.state.remat_count += remade.len() as u32;
        if !remade.is_empty() {
            Arc::make_mut(&mut self.remats).extend(remade);
        }
        for r in &recs {
            self.flags[r.vreg.index()] |= vflags::SPILLED;
            for t in &r.temps {
                self.flags[t.index()] |= vflags::SPILLED;
            }
        }
        let stores = recs.iter().map(|r| r.stores).sum();
        let loads = recs.iter().map(|r| r.reloads).sum();
        self.state.spill_done = true;
        self.state.has_spilled |= !recs.is_empty();
        let frame = if smem { self.pool_shared.frame() } else { self.pool_local.frame() };
        let vregs = recs.iter().map(|r| (r.vreg, r.offset)).collect();
        Arc::make_mut(&mut self.spills).extend(recs);
        Some(AllocEvent::SpillCode { class: plan.class, vregs, stores, loads, frame, smem, remat: remat_event })
    }
}
