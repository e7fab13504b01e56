//! The stages around the allocator: prepasses, DCE, the uninitialized-register check,
//! ABI setup and call lowering, the checker. Kept apart from `machine` so the machine
//! reads as the pipeline's table of contents.

use std::sync::Arc;

use crate::abi::{self, AbiInput, report::function_limits};
use crate::alloc::AllocConfig;
use crate::analysis::{dce, liveness, uninit};
use crate::engine::event::{Event, EventKind};
use crate::engine::machine::Machine;
use crate::engine::machine::exit_live;
use crate::ir::opcode::props;
use crate::ir::{Function, RegFile, VRegId};

/// The next prepass event, or `None` when the prepasses are done: one event per pass
/// and function (`pos.sub` = pass, `pos.func` = function), or one per pass switched off.
/// On Ori IR only the passes marked [`crate::prepass::Pass::ori`] run, and show an event
/// only when they change a function or are switched off.
/// Liveness is computed by the stages after, on the transformed module.
pub fn prepass_step(m: &mut Machine) -> Option<Event> {
    loop {
        let (pi, fi) = (m.pos.sub, m.pos.func);
        let imported = m.opts.imported;
        let Some(pass) = crate::prepass::PASSES.get(pi) else {
            if !imported {
                return None;
            }
            // The fidelity rules applied later (budget, report): one event each, saying
            // whether they are on.
            let (name, about) = crate::prepass::RULES.get(pi - crate::prepass::PASSES.len())?;
            m.pos.sub += 1;
            let summary = if m.opts.stage_on(name) { format!("on: {about}") } else { "switched off".to_string() };
            return Some(Event { func: None, kind: EventKind::Prepass { pass: name, summary } });
        };
        if !imported && !pass.ori {
            m.pos.sub += 1;
            m.pos.func = 0;
            continue;
        }
        if m.opts.disabled_passes.contains(pass.name) {
            m.pos.sub += 1;
            m.pos.func = 0;
            if m.opts.record_stages {
                for fi in 0..m.funcs.len() {
                    stage_record(m, fi).off(pass.name);
                }
            }
            let summary = "switched off".to_string();
            return Some(Event { func: None, kind: EventKind::Prepass { pass: pass.name, summary } });
        }
        if fi >= m.module.functions.len() {
            m.pos.sub += 1;
            m.pos.func = 0;
            continue;
        }
        // Advance now, so the position always names an existing function.
        if fi + 1 < m.module.functions.len() {
            m.pos.func += 1;
        } else {
            m.pos.sub += 1;
            m.pos.func = 0;
        }
        if m.opts.record_stages {
            // Started before the function's first pass runs: on it as loaded.
            stage_record(m, fi);
        }
        let (g, summary) = run_pass(&m.module, pass, &m.module.functions[fi]);
        match g {
            Some(mut g) => {
                // A pass that adds vregs grows the vectors by doubling; the module keeps
                // every function, so the spare room is dropped (10 MB of the 50 MB
                // many-entry file's run, issue 25). The instructions are left as built.
                g.vregs.shrink_to_fit();
                g.decls.shrink_to_fit();
                if m.opts.record_stages {
                    let f = m.module.clone();
                    stage_record(m, fi).changed(pass.name, &f.functions[fi], &g, &summary);
                }
                crate::ir::model::Module::replace_function(&mut m.module, fi, g)
            }
            None if !imported => {
                // On Ori IR a pass that changes nothing stays out of the trace.
                continue;
            }
            None => {}
        }
        return Some(Event { func: Some(fi), kind: EventKind::Prepass { pass: pass.name, summary } });
    }
}

/// What the pre-allocation stages know of `f`'s budget: the budget they fill
/// (`alloc::budget::stage_budget`) and the cap no target goes above
/// (`alloc::budget::prepass_cap`). Here, above both siblings, for the engine and `why`.
pub fn pass_ctx<'a>(module: &'a crate::ir::Module, f: &Function) -> crate::prepass::PassCtx<'a> {
    use crate::alloc::budget::{prepass_cap, stage_budget};
    crate::prepass::PassCtx {
        module,
        sm: &module.sm,
        maxrregcount: stage_budget(module, f),
        cap: prepass_cap(module, f),
    }
}

/// `pass` on `f`, a function of `module` (its current version): the new function, `None`
/// when the pass leaves it as it is, and the event's summary. The passes read of the
/// module only its target, options and module-scope variables, never another function
/// (`why::stages::replay` relies on it too), so one function's passes can be replayed
/// alone (`replay_passes`).
fn run_pass(module: &crate::ir::Module, pass: &crate::prepass::Pass, f: &Function) -> (Option<Function>, String) {
    let ctx = pass_ctx(module, f);
    let (g, summary) = (pass.run)(f, &ctx);
    // `None`: the pass left the function as it is (no copy to compare).
    (g.filter(|g| g != f), summary)
}

/// Function `f` (as the pipeline started with it, a function of `module`) after the
/// passes named, in order: the function as the prepass stage had it once those passes'
/// events for it had happened (a pass that had no event for it on Ori IR changed
/// nothing). The debugger's reverse steps inside the prepasses rebuild the few functions
/// they touch this way instead of replaying every function from the start (issue 25).
pub fn replay_passes(module: &crate::ir::Module, f: &Function, passes: &[&str]) -> Function {
    let mut cur = f.clone();
    for name in passes {
        let Some(pass) = crate::prepass::PASSES.iter().find(|p| p.name == *name) else { continue };
        if let (Some(g), _) = run_pass(module, pass, &cur) {
            cur = g;
        }
    }
    cur
}

/// The machine's position just after prepass event `ev` (see `prepass_step`, which
/// advances before running the pass): the next function of the same pass, or the next
/// pass (or fidelity rule) at function 0. `None` when `ev` is not a prepass event.
pub fn pos_after_prepass(ev: &Event, functions: usize) -> Option<crate::engine::machine::Pos> {
    let EventKind::Prepass { pass, .. } = &ev.kind else { return None };
    let passes = crate::prepass::PASSES;
    let pi = passes
        .iter()
        .position(|p| p.name == *pass)
        .or_else(|| crate::prepass::RULES.iter().position(|r| r.0 == *pass).map(|r| passes.len() + r))?;
    let (sub, func) = match ev.func {
        Some(fi) if fi + 1 < functions => (pi, fi + 1),
        _ => (pi + 1, 0),
    };
    Some(crate::engine::machine::Pos { stage: crate::engine::event::Stage::Prepass, func, sub })
}

/// Function `fi`'s record of the prepasses (`RunOptions::record_stages`), started on the
/// function as it is now — as loaded, when called at its first pass.
fn stage_record(m: &mut Machine, fi: usize) -> &mut crate::prepass::record::StageRecord {
    let module = &m.module;
    m.funcs[fi].stage_record.get_or_insert_with(|| crate::prepass::record::StageRecord::new(&module.functions[fi]))
}

/// Dead-code elimination (seed 004, OriPerformLiveDead), then liveness recomputed on
/// the smaller function.
pub fn dce(m: &mut Machine, fi: usize) -> Event {
    let exit_live = exit_live(&m.module, fi);
    let cfg = m.funcs[fi].cfg.clone().expect("cfg before dce");
    let module = Arc::make_mut(&mut m.module);
    let f = &mut module.functions[fi];
    let report = dce::run(f, &cfg, &exit_live);
    let removed: Vec<String> = report
        .removed
        .iter()
        .map(|r| {
            let mut s = format!("[{}] {}", r.point, crate::ir::print::print_inst(f, &r.inst));
            if let Some(o) = r.origin {
                s.push_str(&format!("  (line {o})"));
            }
            s
        })
        .collect();
    if !report.removed.is_empty() {
        let c = crate::analysis::cfg::build(f, crate::analysis::cfg::loop_weight(&m.knobs));
        let live = liveness::compute(f, &c, &exit_live);
        m.funcs[fi].cfg = Some(Arc::new(c));
        m.funcs[fi].live = Some(Arc::new(live));
    }
    m.funcs[fi].dce_removed = removed.clone();
    Event { func: Some(fi), kind: EventKind::Dce { removed } }
}

/// The uninitialized-register detector (seed 004). Parameters bound by the ABI and
/// pinned vregs count as defined at entry.
pub fn uninit(m: &mut Machine, fi: usize) -> Event {
    let f = &m.module.functions[fi];
    let mut defined: Vec<VRegId> =
        f.vregs.iter().enumerate().filter(|(_, v)| v.pin.is_some()).map(|(i, _)| VRegId::new(i)).collect();
    if let Some(a) = &f.abi {
        defined.extend(a.params.iter().filter_map(|p| p.bind));
    }
    let r = &m.funcs[fi];
    let (Some(c), Some(l)) = (r.cfg.as_ref(), r.live.as_ref()) else {
        return Event { func: Some(fi), kind: EventKind::Uninit { message: None } };
    };
    let w = uninit::find(f, c, l, &defined);
    let message = w.map(|w| {
        let mut s = w.message.clone();
        let d = w.details(f);
        if !d.is_empty() {
            // One line a person reads: the first few registers, then a count (a real
            // kernel named 547 here).
            const SHOWN: usize = 8;
            s.push_str(": ");
            s.push_str(&d[..d.len().min(SHOWN)].join(", "));
            if d.len() > SHOWN {
                s.push_str(&format!(", … and {} more", d.len() - SHOWN));
            }
        }
        s
    });
    m.funcs[fi].uninit = message.clone();
    Event { func: Some(fi), kind: EventKind::Uninit { message } }
}

/// ABI setup (seed 001, sub_19D1AF0): for each function, the master setup in the
/// seed's order plus the convergent-boundary (7020) and reserved-SMEM (7801) checks;
/// one event per check.
pub fn abi_step(m: &mut Machine) -> Option<Event> {
    loop {
        let fi = m.pos.func;
        if fi >= m.funcs.len() {
            return None;
        }
        if m.pos.sub == 0 {
            if m.abi_groups.is_none() {
                m.abi_groups = Some(Arc::new(AbiGroups::new(&m.module)));
            }
            let res = abi_of(m, fi);
            m.funcs[fi].abi = Some(Arc::new(res));
        }
        let res = m.funcs[fi].abi.clone().expect("abi result");
        // Functions the ABI does not apply to show only failing extra checks.
        let visible: Vec<&abi::AbiCheck> = res.checks.iter().filter(|c| res.engaged || !c.passed).collect();
        let sub = m.pos.sub;
        if sub < visible.len() {
            m.pos.sub += 1;
            let c = visible[sub];
            return Some(Event {
                func: Some(fi),
                kind: EventKind::AbiCheck {
                    code: c.code,
                    passed: c.passed,
                    message: c.message.as_str().into(),
                    detail: c.detail.as_str().into(),
                },
            });
        }
        if sub == visible.len()
            && let Some(e) = &res.error
        {
            m.pos.sub += 1;
            return Some(Event { func: Some(fi), kind: EventKind::AbiError { message: e.clone() } });
        }
        m.pos.func += 1;
        m.pos.sub = 0;
    }
}

/// The call groups of the module (`machine::call_groups`) while the ABI stage runs: a
/// function's ABI limits, setup and checks follow calls by name, so they read only its
/// group, and each of them indexes every function's name of the module it is given —
/// on the whole module of a many-entry file O(n² log n): 40 s of the debugger's 68 s
/// on a file of 6,138 entries (issue 25). A batch run hands the machine one group.
#[derive(Debug)]
pub struct AbiGroups {
    groups: Vec<Vec<usize>>,
    /// Per function: its group and its index in the group's module.
    of: Vec<(usize, usize)>,
}

impl AbiGroups {
    pub fn new(m: &crate::ir::Module) -> AbiGroups {
        let groups = crate::engine::machine::call_groups(m);
        let mut of = vec![(0, 0); m.functions.len()];
        for (gi, g) in groups.iter().enumerate() {
            for (at, &fi) in g.iter().enumerate() {
                of[fi] = (gi, at);
            }
        }
        AbiGroups { groups, of }
    }
}

/// Function `fi`'s ABI result, computed on its call group's module alone (the whole
/// module when it is one group): the same result, as the batch runs' group-by-group
/// modules show (`machine::tests`).
fn abi_of(m: &Machine, fi: usize) -> abi::AbiResult {
    let part;
    let split = m.abi_groups.as_deref().filter(|g| g.groups.len() > 1).and_then(|g| {
        let &(gi, at) = g.of.get(fi)?;
        Some((&g.groups[gi], at))
    });
    let (module, at) = match split {
        Some((group, at)) => {
            let whole = &*m.module;
            part = crate::ir::Module {
                sm: whole.sm.clone(),
                options: whole.options.clone(),
                knobs: whole.knobs.clone(),
                globals: whole.globals.clone(),
                functions: group.iter().map(|&i| whole.functions[i].clone()).collect(),
                srcloc: Default::default(),
            };
            (&part, at)
        }
        None => (&*m.module, fi),
    };
    let limits = function_limits(module, &module.sm);
    let input = AbiInput { maxreg: limits[at], sm: module.sm.clone() };
    let mut res = abi::setup(module, at, &input);
    res.checks.extend(abi::check_convergent(module, at));
    res.checks.extend(abi::check_reserved_smem(module, at));
    res.checks.extend(abi::check_relative_calls(module, at));
    res
}

/// Call lowering (seed 001, "Pass 2 ... CALL lowering") and pinning of the bound
/// parameter/return vregs; liveness is recomputed for the functions that changed.
pub fn lowering(m: &mut Machine) -> Option<Event> {
    let mut results: Vec<Option<abi::AbiResult>> = m.funcs.iter().map(|r| r.abi.as_deref().cloned()).collect();
    if !results.iter().any(|r| r.as_ref().is_some_and(|r| r.engaged)) {
        return None;
    }
    let before = m.module.clone();
    let module = Arc::make_mut(&mut m.module);
    let names: std::collections::BTreeMap<String, usize> =
        module.functions.iter().enumerate().map(|(i, f)| (f.name.to_string(), i)).collect();
    let engaged: Vec<bool> = results.iter().map(|r| r.as_ref().is_some_and(|r| r.engaged)).collect();
    // The bindings' registers belong to the convention only at the boundary
    // (`abi::bindings`): pin short twins, not the body's vregs.
    for (fi, r) in results.iter_mut().enumerate() {
        if let Some(r) = r.as_mut().filter(|r| r.engaged) {
            let split = abi::bindings::split(&mut module.functions[fi]);
            for (v, _) in r.pins.iter_mut() {
                *v = split.twin(*v).unwrap_or(*v);
            }
            for v in r.exit_live.iter_mut() {
                *v = split.twin(*v).unwrap_or(*v);
            }
            // A function that calls keeps its own return address in a vreg across its
            // calls, pinned only at the boundary (`abi::bindings::split_ret_addr`).
            if let Some((RegFile::R, ra)) = r.ret_addr
                && calls_engaged(&module.functions[fi], &names, &engaged)
                && let Some((pin_in, pin_out)) = abi::bindings::split_ret_addr(&mut module.functions[fi])
            {
                r.fixed.retain(|&(file, reg)| !(file == RegFile::R && (reg == ra || reg == ra + 1)));
                r.pins.push((pin_in, ra));
                r.pins.push((pin_out, ra));
            }
            m.funcs[fi].abi = Some(Arc::new(r.clone()));
        }
    }
    for (fi, r) in results.iter().enumerate() {
        if let Some(r) = r.as_ref().filter(|r| r.engaged) {
            abi::apply_pins(module, fi, r);
        }
    }
    let lowered = abi::lower_calls(module, &results);
    let moves: usize = lowered.iter().map(|l| l.moves_before + l.moves_after).sum();
    let pins: usize = results.iter().flatten().map(|r| r.pins.len()).sum();
    for fi in 0..m.funcs.len() {
        if m.module.functions[fi] != before.functions[fi] {
            let f = &m.module.functions[fi];
            let c = crate::analysis::cfg::build(f, crate::analysis::cfg::loop_weight(&m.knobs));
            let live = liveness::compute(f, &c, &exit_live(&m.module, fi));
            m.funcs[fi].cfg = Some(Arc::new(c));
            m.funcs[fi].live = Some(Arc::new(live));
        }
    }
    let summary = format!(
        "ABI lowering: {} call(s) lowered with {moves} move(s); {pins} parameter/return vreg(s) pinned",
        lowered.len()
    );
    Some(Event { func: None, kind: EventKind::Lowering { summary } })
}

/// Whether `f` calls a function of the module that takes part in the convention.
fn calls_engaged(f: &crate::ir::Function, names: &std::collections::BTreeMap<String, usize>, engaged: &[bool]) -> bool {
    f.blocks.iter().flat_map(|b| &b.insts).any(|i| {
        i.info().is(crate::ir::opcode::props::CALL)
            && i.uses().iter().any(|o| match o {
                crate::ir::Operand::Sym(s) => names.get(&**s).is_some_and(|&c| engaged[c]),
                _ => false,
            })
    })
}

/// Whether a function takes part in the calling convention.
pub fn uses_abi(m: &Machine, fi: usize) -> bool {
    m.funcs[fi].abi.as_ref().is_some_and(|r| r.engaged)
}

/// The allocator inputs that come from the ABI: fixed registers, the first usable
/// register, what each callee clobbers.
/// Every symbol `f`'s instructions name (operands and memory bases), sorted, once each.
fn symbols_named(f: &Function) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    for inst in f.blocks.iter().flat_map(|b| &b.insts) {
        for op in &inst.operands {
            match op {
                crate::ir::Operand::Sym(s) => out.push(s),
                crate::ir::Operand::Mem(r) => out.extend(r.sym.as_deref()),
                _ => {}
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

pub fn abi_config(m: &Machine, fi: usize, c: &mut AllocConfig) {
    c.uses_abi = uses_abi(m, fi);
    if let Some(r) = m.funcs[fi].abi.as_ref().filter(|r| r.engaged) {
        c.fixed = r.fixed.clone();
        c.first_free = Some(r.first_param as u16);
        c.exit_live = r.exit_live.clone();
    }
    // Issue 23 rule 7: a callee of the module allocated before this function (callees
    // come first) clobbers only the scratch registers its allocation writes — ptxas
    // allocates it with the kernel (`CALL.REL.NOINC $kernel$callee`; the kernel keeps
    // values across the call in R32–R49, scratch registers the callee never touches).
    // Its parameter, return-value and return-address registers stay clobbered: the call
    // writes them.
    let own = m.knobs.bool(crate::knobs::CALLEE_CLOBBERS);
    // The allocator looks a call's clobbers up by the callee's name
    // (`alloc::driver::call_clobbers`), so only functions this one names can be asked
    // for: their lists alone are built (every function's, for every function allocated,
    // was quadratic in a many-entry module's functions; issue 25).
    let named = symbols_named(&m.module.functions[fi]);
    let asked = if named.is_empty() { 0 } else { m.funcs.len() };
    for (gi, g) in m.funcs.iter().enumerate().take(asked) {
        if let Some(r) = g.abi.as_ref().filter(|r| r.engaged)
            && named.binary_search(&m.module.functions[gi].name.as_str()).is_ok()
        {
            let mut clobbers = r.clobbers();
            if let Some(w) = g.writes.as_ref().filter(|_| own && gi != fi) {
                clobbers.retain(|&x| {
                    crate::abi::role(r, crate::ir::RegFile::R, x) != crate::abi::RegRole::Scratch
                        || w.binary_search(&x).is_ok()
                });
                // A callee that saves nothing (`FuncResult::saves`) changes the preserved
                // registers it writes too.
                if !g.saves {
                    let preserved =
                        |x: &u16| crate::abi::role(r, crate::ir::RegFile::R, *x) == crate::abi::RegRole::Preserved;
                    clobbers.extend(w.iter().copied().filter(preserved));
                    clobbers.sort_unstable();
                    clobbers.dedup();
                }
            }
            c.clobbers.push((m.module.functions[gi].name.to_string(), clobbers));
        }
    }
    // Calls to functions outside the module follow the default convention: R16–R31
    // preserved, everything else from R4 up scratch.
    c.default_clobbers = (4..255u16).filter(|r| !(16..=31).contains(r)).collect();
    bank_rule(m, c);
}

/// The `banks` rule of imported PTX: bank-aware allocation (knob 627) on, unless the
/// user or the module set the knob. ptxas 13.0.88 places co-sources of an instruction in
/// different register banks where that costs no occupancy and no spill (measured with
/// nvdisasm; ARCHITECTURE.md, "Fidelity", step 10; `alloc::fatpoint`,
/// `alloc::constraints::bank_limit`).
fn bank_rule(m: &Machine, c: &mut AllocConfig) {
    let key = crate::knobs::BANK_AWARE;
    if m.opts.stage_on("banks")
        && !c.knobs.overrides().any(|(n, _)| crate::knobs::find_str(n).is_some_and(|i| i.index == Some(key)))
    {
        let _ = c.knobs.set(&crate::ir::KnobKey::Index(key), &crate::ir::KnobValue::Bool(true));
    }
}

/// The independent checker (`alloc::check`) over the finished allocation.
pub fn check(m: &Machine, fi: usize) -> Vec<String> {
    let Some(run) = m.funcs[fi].alloc.as_deref() else { return Vec::new() };
    if let Some(errors) = run.self_check() {
        return errors;
    }
    let Some(a) = run.fatpoint() else { return Vec::new() };
    if a.failure.is_some() {
        return Vec::new();
    }
    check_alloc(a).err().unwrap_or_default()
}

/// Runs the checker on one finished fat-point allocation; errors rendered.
pub fn check_alloc(a: &crate::alloc::FunctionAlloc) -> Result<(), Vec<String>> {
    use crate::alloc::check::{self, Allocation, SpillSlotInfo};
    let spills: Vec<SpillSlotInfo> = a
        .spills
        .iter()
        .map(|s| SpillSlotInfo {
            vreg: s.vreg,
            shared: s.mem == crate::alloc::spill::SpillMem::Shared,
            offset: s.offset,
            bytes: s.bytes,
            temps: s.temps.clone(),
        })
        .collect();
    let budget: Vec<(crate::ir::RegFile, u32)> = a.plans.iter().map(|p| (p.class.file(), p.budget)).collect();
    let slots: Vec<Option<u16>> = a.assign.clone();
    let alloc = Allocation {
        func: &a.func,
        slot: &slots,
        fixed: &a.config.fixed,
        pins: &a.config.abi_pins,
        spills: &spills,
        exit_live: &a.config.exit_live,
        budget: &budget,
    };
    check::check(&alloc).map_err(|errs| errs.iter().map(|e| e.to_string()).collect())
}

/// The functions `fi` calls directly that the module defines, and whether a call from
/// `fi`, directly or through the functions it calls, needs the real ABI: a call to an
/// external or unknown function, or into a cycle of the call graph (recursion). Walks
/// only what `fi` reaches, each function's instructions once, and nothing for a function
/// without calls (most of a many-entry file).
/// Whether device function `fi` keeps the convention's preserved registers for its
/// callers (`FuncResult::saves`): when a call from it, directly or through what it
/// calls, needs the real ABI (`call_closure`: an external function or recursion), or
/// when it is a leaf (left as the convention has it). One that calls only functions of
/// the module, none recursive, is allocated with its callers (issue 23).
pub(crate) fn keeps_preserved(module: &crate::ir::Module, fi: usize) -> bool {
    let (defined, real_abi) = call_closure(module, fi);
    real_abi || defined.is_empty()
}

fn call_closure(module: &crate::ir::Module, fi: usize) -> (Vec<usize>, bool) {
    let calls = |f: &crate::ir::Function| f.blocks.iter().flat_map(|b| &b.insts).any(|i| i.info().is(props::CALL));
    if !calls(&module.functions[fi]) {
        return (Vec::new(), false);
    }
    let names = crate::abi::limits::name_index(module);
    let mut abi = false;
    // Adjacency of the reached functions, discovered breadth-first.
    let mut adj: std::collections::HashMap<usize, Vec<usize>> = std::collections::HashMap::new();
    let mut queue = std::collections::VecDeque::from([fi]);
    while let Some(g) = queue.pop_front() {
        if adj.contains_key(&g) {
            continue;
        }
        let mut out = Vec::new();
        for inst in module.functions[g].blocks.iter().flat_map(|b| &b.insts) {
            match crate::abi::limits::callee(&names, inst) {
                Some(c) if module.functions[c].external => abi = true,
                Some(c) => {
                    if !out.contains(&c) {
                        out.push(c);
                        queue.push_back(c);
                    }
                }
                None => abi |= inst.info().is(props::CALL),
            }
        }
        adj.insert(g, out);
    }
    // A cycle among the reached functions: a depth-first walk meeting a function still
    // on its stack.
    let mut state: std::collections::HashMap<usize, u8> = std::collections::HashMap::new();
    let mut stack = vec![(fi, 0usize)];
    state.insert(fi, 1);
    while !abi && let Some(&mut (g, ref mut k)) = stack.last_mut() {
        match adj.get(&g).and_then(|v| v.get(*k)).copied() {
            Some(c) => {
                *k += 1;
                match state.get(&c).copied().unwrap_or(0) {
                    0 => {
                        state.insert(c, 1);
                        stack.push((c, 0));
                    }
                    1 => abi = true,
                    _ => {}
                }
            }
            None => {
                state.insert(g, 2);
                stack.pop();
            }
        }
    }
    (adj.remove(&fi).unwrap_or_default(), abi)
}

/// The `report` rule's figures of imported PTX beyond the register count: the `.local`
/// variables a function addresses come before its spill slots in ptxas's `N bytes
/// stack frame` (`alloc::stats::frame_bytes`), and an entry that spills reports its
/// whole budget (`alloc::stats::spilling_report`).
pub fn report_stats(m: &Machine, fi: usize, stats: &mut crate::alloc::stats::FunctionStats) {
    let (local, align) = crate::alloc::stats::local_vars(&m.module.globals, &m.module.functions[fi]);
    stats.stack_frame = crate::alloc::stats::frame_bytes(local, align, stats.stack_frame);
    if let Some(b) = m.funcs[fi].budget.as_ref()
        && stats.kind == crate::ir::FuncKind::Entry
    {
        stats.registers = crate::alloc::stats::spilling_report(stats.registers, stats.spill_stores, b.gpr);
    }
    // Calls: a callee defined in the module counts with its caller (its figures are
    // ready: the importer puts callees first); an external or recursive one needs the
    // real ABI and brings its minimum (the corpus's abi_kernel calls the recursive
    // `fib`: 24; an entry calling a small non-recursive `.func`: 12).
    let (defined, external) = call_closure(&m.module, fi);
    let callee_regs: Vec<u32> =
        defined.iter().filter(|&&c| c != fi).filter_map(|&c| m.funcs[c].stats.as_ref().map(|s| s.registers)).collect();
    // A callee fits the caller's budget in ptxas (seed 001, limit propagation over the
    // call graph); radbg allocates it under its own, so its figure is capped there.
    let cap = m.funcs[fi].budget.as_ref().map_or(u32::MAX, |b| b.gpr);
    stats.registers = crate::alloc::stats::callees_report(stats.registers, callee_regs.into_iter().map(|r| r.min(cap)));
    if stats.kind == crate::ir::FuncKind::Entry
        && let Some(min) = m.module.sm.abi_minimum()
    {
        stats.registers = crate::alloc::stats::calling_report(stats.registers, external, min);
    }
}
