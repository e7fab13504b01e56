//! Queries at the cursor: what every pane and every command shows. Each returns plain
//! data with public fields; rendering (text, JSON) lives in `command::render`.

use crate::alloc::FunctionAlloc;
use crate::alloc::attempt::AttemptRecord;
use crate::alloc::briggs::BriggsAlloc;
use crate::alloc::constraints::{CType, Node, Target};
use crate::alloc::run::AllocRun;
use crate::alloc::state::StateField;
use crate::analysis::Liveness;
use crate::engine::debugger::Debugger;
use crate::engine::event::{Event, EventKind};
use crate::engine::machine::Machine;
use crate::ir::{Function, RegClass, RegFile, VRegId, print, vflags};

/// The allocation that describes function `fi` right now (see [`Machine::run_of`]).
pub fn run_of(m: &Machine, fi: usize) -> Option<&AllocRun> {
    m.run_of(fi)
}

/// The fat-point allocation of function `fi` now (its histograms, attempts, state object).
pub fn alloc_of(m: &Machine, fi: usize) -> Option<&FunctionAlloc> {
    run_of(m, fi).and_then(AllocRun::fatpoint)
}

/// The Chaitin-Briggs allocation of function `fi` now (its graph, stack, colours).
pub fn briggs_of(m: &Machine, fi: usize) -> Option<&BriggsAlloc> {
    run_of(m, fi).and_then(AllocRun::briggs)
}

/// The fat-point allocation in progress, if any.
fn cur_fatpoint(m: &Machine) -> Option<&FunctionAlloc> {
    m.cur.as_ref().and_then(AllocRun::fatpoint)
}

/// The function the debugger is looking at: that of the current event, else the one
/// the machine is working on.
pub fn current_func(d: &Debugger) -> usize {
    d.current()
        .and_then(|e| e.func)
        .unwrap_or(d.machine().pos.func)
        .min(d.machine().module.functions.len().saturating_sub(1))
}

/// The IR of function `fi` as it stands (see [`Machine::func_ir`]).
pub fn func_ir(m: &Machine, fi: usize) -> &Function {
    m.func_ir(fi)
}

/// The liveness of that IR, when computed (see [`Machine::liveness_of`]).
pub fn liveness_of(m: &Machine, fi: usize) -> Option<&Liveness> {
    m.liveness_of(fi)
}

/// The allocator state table at the cursor (see [`Machine::state_table`]).
pub fn state_table(m: &Machine) -> Vec<StateField> {
    m.state_table()
}

/// One line of the IR pane.
#[derive(Clone, Debug, PartialEq)]
pub struct IrLine {
    pub point: u32,
    pub block: usize,
    /// The block label when this is the block's first instruction.
    pub label: Option<String>,
    pub text: String,
    /// Inserted by the allocator (spill code).
    pub spill: bool,
    /// `(vreg name, register)` for every vreg the instruction references that has one.
    pub assigned: Vec<(String, String)>,
    pub origin: Option<u32>,
    /// The CUDA line (`hot.cu:9`) of imported PTX with `.loc`.
    pub source: Option<String>,
}

/// The IR of a function with assignments so far; `range` limits the lines built
/// (the TUI asks only for the visible window).
pub fn ir_lines(m: &Machine, fi: usize, range: std::ops::Range<u32>) -> Vec<IrLine> {
    let f = func_ir(m, fi);
    let run = run_of(m, fi);
    let slot_of = |v: VRegId| run.and_then(|a| a.slot_of(v));
    let layout = f.layout();
    let mut out = Vec::new();
    let end = range.end.min(layout.len());
    let mut p = range.start;
    while p < end {
        let Some((b, i)) = layout.locate(p) else { break };
        let inst = &f.blocks[b].insts[i];
        let mut assigned = Vec::new();
        let mut seen = Vec::new();
        let mut note = |v: VRegId| {
            if seen.contains(&v) {
                return;
            }
            seen.push(v);
            if let Some(s) = slot_of(v) {
                let vr = f.vreg(v);
                assigned.push((vr.name.to_string(), reg_name(vr.file(), s, vr.width)));
            }
        };
        inst.for_each_def(|r| note(r.vreg));
        inst.for_each_use(|r| note(r.vreg));
        out.push(IrLine {
            point: p,
            block: b,
            label: (i == 0).then(|| f.blocks[b].label.clone()),
            text: print::print_inst(f, inst),
            spill: crate::alloc::spill::is_spill_code(inst),
            assigned,
            origin: inst.origin,
            source: inst.origin.and_then(|o| m.module.srcloc.user_line(o)).map(|u| m.module.srcloc.label_of(u)),
        });
        p += 1;
    }
    out
}

/// Every vreg of a function with a register so far, in vreg order: (vreg, class, register).
/// What gdb's `info registers` maps to: the allocator's registers are the assignments.
pub fn assignments(m: &Machine, fi: usize) -> Vec<(String, RegClass, String)> {
    let f = func_ir(m, fi);
    let run = run_of(m, fi);
    let slot_of = |v: VRegId| run.and_then(|a| a.slot_of(v));
    (0..f.vregs.len())
        .filter_map(|i| {
            let v = VRegId::new(i);
            let vr = f.vreg(v);
            slot_of(v).map(|s| (vr.name.to_string(), vr.class, reg_name(vr.file(), s, vr.width)))
        })
        .collect()
}

/// `R4`, or `R4:R5` for a pair, `R8..R11` for wider.
pub fn reg_name(file: RegFile, slot: u16, width: u8) -> String {
    file.reg_name(slot, width)
}

/// The live set and pressure at a program point.
#[derive(Clone, Debug, PartialEq)]
pub struct LiveView {
    pub point: u32,
    /// The PTX line and CUDA line of the instruction at the point.
    pub origin: Option<u32>,
    pub source: Option<String>,
    /// `(vreg, CUDA line of its first definition)` for the values live before the point
    /// (imported PTX with `.loc` only).
    pub defined: Vec<(String, String)>,
    pub before: Vec<String>,
    pub after: Vec<String>,
    /// (file, pressure) for each file with liveness.
    pub pressure: Vec<(RegFile, u32)>,
}

pub fn live_at(m: &Machine, fi: usize, point: u32) -> Option<LiveView> {
    let f = func_ir(m, fi);
    let l = liveness_of(m, fi)?;
    if point >= f.layout().len() {
        return None;
    }
    let names = |s: &crate::analysis::LiveSet| s.iter().map(|v| f.vreg(v).name.to_string()).collect::<Vec<_>>();
    let before = l.live_before(f, point);
    let after = l.live_after(f, point);
    let pressure = crate::analysis::liveness::LIVENESS_FILES
        .iter()
        .filter(|file| f.vregs.iter().any(|v| v.file() == **file))
        .map(|&file| (file, l.pressure(f, point, file)))
        .collect();
    let src = &m.module.srcloc;
    let origin = f.layout().locate(point).and_then(|(b, i)| f.blocks[b].insts[i].origin);
    let source = origin.and_then(|o| src.label(o));
    let mut defined = Vec::new();
    if !src.is_empty() {
        let lines = crate::engine::query_source::def_lines(m, f);
        for v in before.iter() {
            if let Some(Some(u)) = lines.get(v.index()) {
                defined.push((f.vreg(v).name.to_string(), src.label_of(*u)));
            }
        }
    }
    Some(LiveView { point, origin, source, before: names(&before), after: names(&after), pressure, defined })
}

/// Pressure of a file at every program point.
pub fn pressure_curve(m: &Machine, fi: usize, file: RegFile) -> Vec<u32> {
    let f = func_ir(m, fi);
    liveness_of(m, fi).map(|l| l.pressure_curve(f, file)).unwrap_or_default()
}

/// The vreg being allocated (the last assignment decision) in the allocation at the cursor.
pub fn current_vreg(m: &Machine) -> Option<(usize, VRegId)> {
    let c = cur_fatpoint(m)?;
    let last = c.attempt.as_ref()?.last.as_ref()?;
    Some((m.pos.func, last.0))
}

/// A constraint node as shown: type, name, target, weight, hard or soft.
#[derive(Clone, Debug, PartialEq)]
pub struct NodeView {
    pub ty: u8,
    pub name: &'static str,
    pub target: String,
    pub weight: u32,
    pub hard: bool,
    pub secondary: bool,
    /// The same node's number in seed 000's table (`ty` is seed 004's), if it has one.
    pub seed000: Option<&'static str>,
}

fn node_view(f: &Function, n: &Node, file: RegFile) -> NodeView {
    let target = match n.target {
        Target::VReg(v) => f.vregs.get(v.index()).map(|x| x.name.to_string()).unwrap_or_default(),
        Target::Phys(r) => format!("{}{}", file.prefix(), r),
    };
    NodeView {
        ty: n.ty as u8,
        name: n.ty.name(),
        target,
        weight: n.weight,
        hard: n.ty.is_hard(),
        secondary: n.ty.is_secondary(),
        seed000: n.ty.seed000().map(|(num, _)| num),
    }
}

/// The constraint nodes of a vreg in the allocation at the cursor: its static nodes,
/// and a Point node for every assigned vreg of its file whose range overlaps its own
/// (weight = common positions).
pub fn constraints_of(m: &Machine, fi: usize, v: VRegId) -> Vec<NodeView> {
    let Some(a) = alloc_of(m, fi) else { return Vec::new() };
    let f = &a.func;
    let Some(vr) = f.vregs.get(v.index()) else { return Vec::new() };
    let file = vr.file();
    let mut out = Vec::new();
    if let Some(att) = a.attempt.as_ref() {
        for n in att.constraints.of(v) {
            out.push(node_view(f, n, file));
        }
    }
    let ranges = &a.analysis.ranges;
    if v.index() < ranges.root.len() {
        for (i, u) in f.vregs.iter().enumerate() {
            let uid = VRegId::new(i);
            if uid == v || u.file() != file || !ranges.is_root(uid) || a.slot_of(uid).is_none() {
                continue;
            }
            let w = ranges.overlap(v, uid);
            if w > 0 {
                let n = Node { ty: CType::Point, target: Target::VReg(uid), weight: w };
                out.push(node_view(f, &n, file));
            }
        }
    }
    out
}

/// The histograms of the last assignment decision.
#[derive(Clone, Debug, PartialEq)]
pub struct HistView {
    pub vreg: String,
    pub width: u8,
    pub primary: Vec<u32>,
    pub secondary: Vec<u32>,
    /// Per slot: blocked by a hard constraint.
    pub blocked: Vec<bool>,
    pub threshold: u32,
    pub budget: u32,
    pub chosen: Option<u16>,
    pub discarded: Vec<u16>,
    pub file: RegFile,
    /// Bank-parity weights per slot (types 11–13, knob 627): the first tie-break among
    /// slots of equal primary cost below `bank_limit`; all zero when none is set.
    pub bank: Vec<u32>,
    /// The slots the bank tie-break applies to (`0..bank_limit`), when any bank weight is set.
    pub bank_limit: Option<u32>,
    /// Store-data rotation weights per slot (issue 23 rule 6): the first tie-break below
    /// `bank_limit`; all zero when the vreg is no store's data.
    pub rotate: Vec<u32>,
    /// The lower slot of the same cost the scan passed over, and the tie-break that did.
    pub passed: Option<(u16, crate::alloc::fatpoint::Tie)>,
}

pub fn histogram(m: &Machine) -> Option<HistView> {
    let c = cur_fatpoint(m)?;
    let last = c.attempt.as_ref()?.last.as_ref()?;
    let (v, h, d) = &**last;
    let vr = c.func.vreg(*v);
    let blocked =
        (0..h.primary.len()).map(|s| h.blocked[s] != crate::alloc::fatpoint::Block::Free || !h.start_ok[s]).collect();
    Some(HistView {
        vreg: vr.name.to_string(),
        width: vr.width,
        primary: h.primary.clone(),
        secondary: h.secondary.clone(),
        blocked,
        threshold: c.config.knobs.int(crate::knobs::THRESHOLD_DISCARD).clamp(0, u32::MAX as i64) as u32,
        budget: c.plan().map(|p| p.budget).unwrap_or(0),
        chosen: d.slot,
        discarded: d.discarded.clone(),
        file: vr.file(),
        bank: if h.bank.len() == h.primary.len() { h.bank.clone() } else { vec![0; h.primary.len()] },
        bank_limit: h.bank.iter().chain(&h.rotate).any(|&b| b > 0).then_some(h.limit as u32),
        rotate: if h.rotate.len() == h.primary.len() { h.rotate.clone() } else { vec![0; h.primary.len()] },
        passed: d.passed,
    })
}

/// Attempts so far of function `fi`.
pub fn attempts(m: &Machine, fi: usize) -> Vec<AttemptRecord> {
    alloc_of(m, fi).map(|a| a.records.to_vec()).unwrap_or_default()
}

/// Whether `r` is its class's best attempt among `recs` (seed 000's best-result rule).
pub fn is_best(recs: &[AttemptRecord], r: &AttemptRecord) -> bool {
    crate::alloc::attempt::best_of(recs, r.class).is_some_and(|b| b.number == r.number)
}

/// What `print %vreg` shows.
#[derive(Clone, Debug, PartialEq)]
pub struct VregInfo {
    pub name: String,
    pub class: String,
    pub width: u8,
    pub flags: u64,
    pub flag_names: Vec<&'static str>,
    pub cost: f64,
    pub slot: Option<String>,
    pub constraints: Vec<NodeView>,
    /// One line per assignment decision or spill of this vreg in the trace so far.
    pub history: Vec<String>,
    pub origin: Option<u32>,
    /// The CUDA line of its first definition (imported PTX with `.loc`).
    pub source: Option<String>,
    /// What an importer- or prepass-made name stands for (`%v4tmp0`, `%rd16$32`).
    pub stands_for: Option<String>,
}

pub fn vreg_info(d: &Debugger, fi: usize, v: VRegId) -> Option<VregInfo> {
    let m = d.machine();
    let f = func_ir(m, fi);
    let vr = f.vregs.get(v.index())?;
    let a = alloc_of(m, fi);
    let flags = a.and_then(|a| a.flags.get(v.index()).copied()).unwrap_or(vr.flags);
    let flag_names = vflags::NAMES.iter().filter(|(b, _)| flags & b != 0).map(|(_, n)| *n).collect();
    let cost = a.and_then(|a| a.analysis.costs.cost.get(v.index()).copied()).unwrap_or(0.0);
    let slot = a.and_then(|a| a.slot_of(v)).map(|s| reg_name(vr.file(), s, vr.width));
    let mut history = Vec::new();
    for (i, e) in d.trace().upto(d.cursor()).iter().enumerate() {
        if e.func != Some(fi) {
            continue;
        }
        match &e.kind {
            EventKind::Alloc(crate::alloc::AllocEvent::Assign(x)) if x.vreg == v => {
                history.push(format!("#{} {}", i + 1, m.describe(&e)));
            }
            EventKind::Alloc(crate::alloc::AllocEvent::Guidance(g)) if g.chosen.contains(&v) => {
                history.push(format!("#{} chosen for spilling by guidance", i + 1));
            }
            _ => {}
        }
    }
    Some(VregInfo {
        name: vr.name.to_string(),
        class: vr.class.name().to_string(),
        width: vr.width,
        flags,
        flag_names,
        cost,
        slot,
        constraints: constraints_of(m, fi, v),
        history,
        origin: vr.origin,
        source: crate::engine::query_source::def_lines(m, f)
            .get(v.index())
            .copied()
            .flatten()
            .map(|u| m.module.srcloc.label_of(u)),
        stands_for: crate::engine::query_source::stands_for(m, f, v),
    })
}

// ---------------------------------------------------------------------------------
// Queries the front ends' panes need (status bar, budget line, ABI pane, the
// reverse form of `finish`). Plain data; the TUI renders them, nothing else.

/// Where the debugger stands, for a status bar.
#[derive(Clone, Debug, PartialEq)]
pub struct StatusView {
    /// Events applied (the cursor).
    pub event: usize,
    /// Events produced so far (beyond the cursor after going back).
    pub known: usize,
    /// The pipeline has produced its last event.
    pub at_end: bool,
    /// The stage of the current event (the machine's stage before the first event).
    pub stage: crate::engine::Stage,
    pub func: String,
    /// Class and attempt of the current allocation event, or of the allocation in progress.
    pub class: Option<String>,
    pub attempt: Option<u32>,
    pub spill: Option<bool>,
    /// `assign`, `sweep`, `abi-check` … ("start" before the first event).
    pub kind: String,
    /// The current event explained in one line.
    pub line: String,
}

pub fn status(d: &Debugger) -> StatusView {
    use crate::alloc::AllocEvent as A;
    let m = d.machine();
    let fi = current_func(d);
    let func = m.module.functions.get(fi).map(|f| f.name.to_string()).unwrap_or_default();
    let ev = d.current();
    let (mut class, mut attempt, mut spill) = (None, None, None);
    if let Some(EventKind::Alloc(a)) = ev.map(|e| &e.kind) {
        class = a.class().map(|c| c.name().to_string());
        match a {
            A::AttemptStart { attempt: n, spill: s, .. } => (attempt, spill) = (Some(*n), Some(*s)),
            A::Assign(x) => attempt = Some(x.attempt),
            A::AttemptEnd(e) => attempt = Some(e.attempt),
            A::Guidance(g) => attempt = Some(g.attempt),
            A::Constraints { attempt: n, .. } | A::Order { attempt: n, .. } | A::Best { attempt: n, .. } => {
                attempt = Some(*n)
            }
            _ => {}
        }
    }
    if let Some(att) = cur_fatpoint(m).and_then(|c| c.attempt.as_ref())
        && ev.is_some_and(|e| e.stage() == crate::engine::Stage::Alloc)
    {
        class.get_or_insert_with(|| att.class.name().to_string());
        if attempt.is_none_or(|n| n == att.number) {
            attempt = Some(att.number);
            spill = Some(att.spill);
        }
    }
    StatusView {
        event: d.cursor(),
        known: d.trace().len(),
        at_end: d.at_end(),
        stage: ev.map(|e| e.stage()).unwrap_or(m.pos.stage),
        func,
        class,
        attempt,
        spill,
        kind: ev.map(|e| e.kind_name()).unwrap_or("start").to_string(),
        line: ev.map(|e| e.describe(&m.module)).unwrap_or_else(|| "before the first event".to_string()),
    }
}

/// Instructions in function `fi` as it stands (spill code included).
pub fn ir_len(m: &Machine, fi: usize) -> u32 {
    func_ir(m, fi).layout().len()
}

/// The register budget of `file` in function `fi`: the class plan's once allocation
/// has started, else the budget stage's general-register budget (R only).
pub fn budget_of(m: &Machine, fi: usize, file: RegFile) -> Option<u32> {
    if let Some(p) = alloc_of(m, fi).and_then(|a| a.plans.iter().find(|p| p.class.file() == file)) {
        return Some(p.budget);
    }
    let b = m.funcs.get(fi)?.budget.as_ref()?;
    (file == RegFile::R).then_some(b.gpr)
}

/// One ABI check as the ABI pane shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct AbiCheckView {
    pub code: u32,
    pub passed: bool,
    pub message: String,
    pub detail: String,
    /// Its event has happened at the cursor.
    pub reached: bool,
}

/// The ABI checks of a function (seed 001's validation order).
#[derive(Clone, Debug, PartialEq)]
pub struct AbiView {
    pub function: String,
    /// False when the function has no ABI spec (only failing extra checks are listed).
    pub applies: bool,
    pub checks: Vec<AbiCheckView>,
    /// The size error, when the function cannot fit its parameters.
    pub error: Option<String>,
    /// Index into `checks` of the current event's check.
    pub current: Option<usize>,
}

/// The ABI checks of function `fi`, `None` before the ABI stage reached it.
pub fn abi_view(d: &Debugger, fi: usize) -> Option<AbiView> {
    let m = d.machine();
    let res = m.funcs.get(fi)?.abi.as_ref()?;
    let visible: Vec<&crate::abi::AbiCheck> = res.checks.iter().filter(|c| res.engaged || !c.passed).collect();
    // While the ABI stage is on this function, `pos.sub` counts the checks emitted.
    let reached = if m.pos.stage == crate::engine::Stage::Abi && m.pos.func == fi { m.pos.sub } else { usize::MAX };
    let current = match d.current().map(|e| (&e.kind, e.func)) {
        Some((EventKind::AbiCheck { .. }, Some(f))) if f == fi && reached != usize::MAX => reached.checked_sub(1),
        _ => None,
    };
    Some(AbiView {
        function: m.module.functions[fi].name.to_string(),
        applies: res.engaged,
        checks: visible
            .iter()
            .enumerate()
            .map(|(i, c)| AbiCheckView {
                code: c.code,
                passed: c.passed,
                message: c.message.clone(),
                detail: c.detail.clone(),
                reached: i < reached,
            })
            .collect(),
        error: res.error.clone(),
        current,
    })
}

/// Identifies the liveness `liveness_of(m, fi)` answers from at the cursor: the number
/// of the last event that may have replaced it (block rebuild, DCE, lowering, the start
/// of allocation, spill code and re-liveness …). Within one run, equal epochs mean the
/// same liveness, so front ends can keep what they derive from it (the pressure
/// curve) across steps through an attempt's assignments. O(events since that event).
pub fn liveness_epoch(d: &Debugger, fi: usize) -> usize {
    use crate::alloc::AllocEvent as A;
    let keeps = |e: &crate::engine::Event| match &e.kind {
        EventKind::LivenessSweep { .. }
        | EventKind::Uninit { .. }
        | EventKind::AbiCheck { .. }
        | EventKind::AbiError { .. }
        | EventKind::Budget { .. } => true,
        EventKind::Alloc(a) => {
            matches!(a, A::Assign(_) | A::Constraints { .. } | A::Order { .. } | A::AttemptEnd { .. } | A::Best { .. })
        }
        // The Briggs machine answers liveness from the pipeline until spill code.
        EventKind::Briggs(b) => !matches!(b, crate::alloc::briggs::BriggsEvent::SpillCode(_)),
        _ => false,
    };
    let trace = d.trace().upto(d.cursor());
    trace.iter().rposition(|e| e.func.is_none_or(|f| f == fi) && !keeps(&e)).map(|i| i + 1).unwrap_or(0)
}

// ---------------------------------------------------------------------------------
// The Chaitin-Briggs views at the cursor (`alloc::briggs::view` builds them; here they
// are fed from the trace and the cursor's event).

/// The vreg the current Briggs event is about, else the Briggs machine's current node.
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

/// The Briggs event at the cursor, if that is one.
fn current_briggs_event(d: &Debugger) -> Option<&crate::alloc::briggs::BriggsEvent> {
    match d.current().map(|e| &e.kind) {
        Some(EventKind::Briggs(ev)) => Some(ev),
        _ => None,
    }
}

/// Function `fi`'s Briggs events up to the cursor, with their descriptions.
fn briggs_events(d: &Debugger, fi: usize) -> impl Iterator<Item = (usize, &crate::alloc::briggs::BriggsEvent, &Event)> {
    // Briggs events are stored whole (only the fat-point allocator's per-vreg events pack).
    d.trace().upto(d.cursor()).whole().filter(move |(_, e)| e.func == Some(fi)).filter_map(|(i, e)| match &e.kind {
        EventKind::Briggs(ev) => Some((i, ev, e)),
        _ => None,
    })
}

/// `hist` under Briggs: the colour availability of vreg `v`.
pub fn briggs_colours(d: &Debugger, b: &BriggsAlloc, v: VRegId) -> Option<crate::alloc::briggs::view::ColourView> {
    crate::alloc::briggs::view::colours(current_briggs_event(d), b, v)
}

/// `graph`: the simplify stack, worklists and figures of function `fi`'s graph.
pub fn briggs_graph(d: &Debugger, fi: usize, b: &BriggsAlloc) -> crate::alloc::briggs::view::GraphView {
    use crate::alloc::briggs::BriggsEvent;
    let built = briggs_events(d, fi).filter(|(_, ev, _)| matches!(ev, BriggsEvent::Build(_))).last();
    crate::alloc::briggs::view::graph(built.map(|(_, ev, _)| ev.clone()), b)
}

/// `print %x` under Briggs, with the events about it so far.
pub fn briggs_vreg(
    d: &Debugger,
    fi: usize,
    b: &BriggsAlloc,
    v: VRegId,
) -> Option<crate::alloc::briggs::view::BriggsVregView> {
    let m = d.machine();
    let history = briggs_events(d, fi)
        .filter(|(_, ev, _)| crate::alloc::briggs::view::is_about(ev, v))
        .map(|(i, _, e)| format!("#{} {}", i + 1, m.describe(e)))
        .collect();
    crate::alloc::briggs::view::vreg(b, v, history)
}

/// `attempts` under Briggs: the iterations of function `fi` so far.
pub fn briggs_iterations(d: &Debugger, fi: usize) -> Vec<crate::alloc::briggs::view::IterationView> {
    let m = d.machine();
    let f = func_ir(m, fi);
    crate::alloc::briggs::view::iterations(f, briggs_events(d, fi).map(|(_, ev, e)| (ev, m.describe(e))))
}

/// The first instruction that names the current Briggs event's node (or a vreg sharing
/// its colour), for the IR and live panes to follow.
pub fn briggs_node_point(d: &Debugger, fi: usize) -> Option<u32> {
    use crate::alloc::briggs::BriggsEvent;
    let (f_i, v) = event_node(d).filter(|(f, _)| *f == fi)?;
    let b = briggs_of(d.machine(), f_i)?;
    let mut group = vec![v];
    if let Some(BriggsEvent::ColourAssigned { members, .. } | BriggsEvent::ActualSpill { members, .. }) =
        current_briggs_event(d)
    {
        group.extend_from_slice(members);
    }
    crate::alloc::briggs::view::node_point(b.func(), &group)
}
