//! The debugger: a [`Machine`] positioned at a cursor in its event trace, with
//! checkpoints for time travel, breakpoints, and option changes that re-run only what
//! they affect.
//!
//! The cursor counts applied events: at cursor `n` the machine has produced events
//! `0..n` and the *current* event is `trace[n - 1]`. Going back restores the nearest
//! checkpoint at or before the target and replays forward — the pipeline is
//! deterministic, so the state is exactly the one seen the first time (a test steps
//! forward N, back N, and compares).

use std::borrow::Cow;
use std::sync::Arc;

use crate::engine::breakpoint::{BpKind, Breakpoint};
use crate::engine::event::{Event, EventKind, Stage};
use crate::engine::machine::Machine;
use crate::engine::options::RunOptions;
use crate::engine::trace::{Events, Trace};
use crate::ir::Module;

/// The call-stack view of the trace (`backtrace`, `frame`, `up`/`down`, `reverse-finish`): built
/// from the debugger's trace, hence a child.
pub mod frames;

/// Take a checkpoint at least this often (in events), while snapshots are small.
pub const CHECKPOINT_INTERVAL: usize = 512;

/// Checkpoint memory allowed per event of the trace: a machine whose snapshot copies more
/// than `CHECKPOINT_INTERVAL` times this is checkpointed less often, so the checkpoints
/// of a long run stay within about `events × CHECKPOINT_BYTES_PER_EVENT` (issue 6: trace
/// and checkpoints within 1 GB at 100k instructions) while a replay stays short.
pub const CHECKPOINT_BYTES_PER_EVENT: usize = 1024;

/// What a snapshot of `m` copies rather than shares, and what keeping it costs (an
/// estimate from the lengths of its per-vreg and per-event vectors; the big immutable
/// data sits behind `Arc`): the per-function results are shared by chunks and the result
/// in hand is copied at its next write; an allocation in progress is copied; a module
/// that a later stage rewrites is copied then ([`Machine::write_bytes`]).
pub fn snapshot_bytes(m: &Machine) -> usize {
    let in_hand = m.funcs.get(m.pos.func).map_or(0, |r| r.sweeps.iter().map(|s| 16 + 8 * s.2.len()).sum());
    let funcs = m.funcs.len() / 8 + 512;
    let alloc = m.cur.as_ref().map_or(0, crate::alloc::run::AllocRun::snapshot_bytes);
    1024 + funcs + in_hand + alloc + m.write_bytes()
}

/// Where `advance` runs to: an event number, or the next event matching a breakpoint kind.
#[derive(Clone, Debug, PartialEq)]
pub enum Target {
    Event(usize),
    Kind(BpKind),
}

/// Why `continue` (or a reverse continue) stopped.
#[derive(Clone, Debug, PartialEq)]
pub enum Stop {
    Breakpoint(u32),
    Watch { id: u32, offset: u32, old: String, new: String },
    End,
    Start,
    Interrupted,
    Steps,
}

/// The debugger state.
#[derive(Clone)]
pub struct Debugger {
    /// The module as loaded (before run options), unless `reimport` gives it when asked
    /// ([`Debugger::loaded`]).
    loaded: Option<Arc<Module>>,
    /// A file imported group by group (`ir::ptx::stream::Reimport`): the module as loaded
    /// is not held — the machine owns the one copy the stages rewrite — and the start
    /// checkpoint is rebuilt from the text when a replay needs it (issue 25: the 50 MB
    /// many-entry file held 460 MB of loaded IR beside the rewritten copy).
    reimport: Option<crate::ir::ptx::stream::Reimport>,
    pub opts: RunOptions,
    machine: Machine,
    /// Every event produced so far, packed (`engine::trace`).
    trace: Trace,
    /// The event at the cursor, whole: `current` lends it (the trace holds most events
    /// packed).
    now: Option<Event>,
    /// Sorted by position. Those taken during an allocation (which copy its state) are
    /// kept for one function at a time: entering another function's allocation drops
    /// them, and coming back replays from the checkpoint at its budget event, re-taking
    /// them (issue 25: memory bounded by the largest function, not the file).
    checkpoints: Vec<(usize, Machine)>,
    /// The function whose allocation checkpoints are held.
    dense_func: Option<usize>,
    cursor: usize,
    pub breakpoints: Vec<Breakpoint>,
    next_bp: u32,
    /// The machine as it stood when options last changed (for `diff runs`): run to its
    /// end only when the diff is asked for, so a knob change costs one re-run, not two.
    previous: Option<Machine>,
    /// The temporary breakpoint deleted at the last stop (so the stop can name it).
    pub last_temporary: Option<Breakpoint>,
    /// How many times going back inside the prepasses rebuilt the functions it touched
    /// instead of replaying from the start (`rewind_prepasses`; for tests).
    prepass_rewinds: usize,
    /// The function whose allocation's first event was the last one recorded, and that
    /// event's index: its events are elided from the trace when it ends ([`Debugger::elide`]).
    alloc_open: Option<(usize, usize)>,
}

/// A finished fat-point allocation of at most this many events has its events dropped
/// from the trace and replayed from its recipe when read (`Trace::elide`): a replay is
/// then about a millisecond (0.1 ms for the ~500 events of a 5 MB many-entry file's
/// functions), inside the 10 ms step budget; a longer one keeps them.
pub const ELIDE_MAX_EVENTS: usize = 1 << 12;

/// What a whole run produced, for diffs between runs.
#[derive(Clone, Debug, PartialEq)]
pub struct RunSummary {
    pub label: String,
    pub functions: Vec<FunctionSummary>,
}

/// One function's final result, as lines ready for diffing.
#[derive(Clone, Debug, PartialEq)]
pub struct FunctionSummary {
    pub name: String,
    /// `vreg → register` lines.
    pub assignments: Vec<String>,
    pub spilled: Vec<String>,
    pub stats: Vec<String>,
}

/// Scope levels for `next` and `finish`: 0 stage/function, 1 class, 2 attempt, 3 item.
pub fn level(ev: &Event) -> u8 {
    match &ev.kind {
        EventKind::LivenessSweep { .. } | EventKind::AbiCheck { .. } => 3,
        EventKind::Alloc(a) => a.level(),
        EventKind::Briggs(b) => b.level(),
        _ => 0,
    }
}

impl Debugger {
    pub fn new(module: Module, opts: RunOptions) -> Debugger {
        Debugger::with_reimport(module, opts, None)
    }

    /// A debugger over `module`; with `reimport` (the text `module` was imported from,
    /// group by group) it keeps no copy of the module as loaded ([`Debugger::reimport`]).
    pub fn with_reimport(
        module: Module,
        opts: RunOptions,
        reimport: Option<crate::ir::ptx::stream::Reimport>,
    ) -> Debugger {
        let (loaded, machine, checkpoints) = match reimport.clone() {
            Some(r) => {
                let machine = Machine::owning(module, opts.clone(), r);
                // A stand-in: the start is rebuilt when asked (`Debugger::restore`).
                let start = machine.source.clone();
                let placeholder = Machine::over(&start, opts.clone());
                (None, machine, vec![(0, placeholder)])
            }
            None => {
                let loaded = Arc::new(module);
                let machine = Machine::over(&loaded, opts.clone());
                let checkpoints = vec![(0, machine.snapshot())];
                (Some(loaded), machine, checkpoints)
            }
        };
        Debugger {
            loaded,
            reimport,
            opts,
            machine,
            trace: Trace::new(),
            now: None,
            checkpoints,
            dense_func: None,
            cursor: 0,
            breakpoints: Vec::new(),
            next_bp: 1,
            previous: None,
            last_temporary: None,
            prepass_rewinds: 0,
            alloc_open: None,
        }
    }

    pub fn cursor(&self) -> usize {
        self.cursor
    }

    /// The module as loaded (before run options): held, or imported again from the
    /// file's text ([`Debugger::with_reimport`]; the size of a load on a many-entry file).
    pub fn loaded(&self) -> Arc<Module> {
        if let Some(l) = &self.loaded {
            return l.clone();
        }
        let m = self.reimport.as_ref().and_then(crate::ir::ptx::stream::Reimport::module);
        // The text imported once and the import is deterministic, so this is the module;
        // were it not, the settings without functions (nothing to run) rather than a panic.
        Arc::new(m.unwrap_or_else(|| Module { functions: Vec::new(), ..(*self.machine.source).clone() }))
    }

    /// Whether `other` runs the same module as loaded (the same load of a file).
    pub fn same_loaded(&self, other: &Debugger) -> bool {
        match (&self.loaded, &other.loaded, &self.reimport, &other.reimport) {
            (Some(a), Some(b), _, _) => Arc::ptr_eq(a, b),
            (None, None, Some(a), Some(b)) => a.same(b),
            _ => false,
        }
    }

    /// Whether the module as loaded is held (not imported again when asked).
    pub fn holds_loaded(&self) -> bool {
        self.loaded.is_some()
    }

    /// The instructions of every copy of the module's IR held (the module as loaded, the
    /// machine's, the checkpoints' and the previous run's, each distinct copy once; a
    /// function shared by two copies counts twice), for tests that memory does not hold
    /// more copies than it must.
    pub fn held_ir_insts(&self) -> usize {
        let mut seen: Vec<*const Module> = Vec::new();
        let mut total = 0;
        let machines =
            std::iter::once(&self.machine).chain(self.checkpoints.iter().map(|(_, m)| m)).chain(self.previous.as_ref());
        let modules = self.loaded.iter().chain(machines.flat_map(|m| [&m.source, &m.module]));
        for m in modules {
            let p = Arc::as_ptr(m);
            if !seen.contains(&p) {
                seen.push(p);
                total += m.functions.iter().map(crate::ir::Function::inst_count).sum::<usize>();
            }
        }
        total
    }

    /// A machine to run on from checkpoint `i`: a copy of it, or for the start of a
    /// debugger that keeps no loaded module, the start rebuilt from the file's text.
    fn restore(&self, i: usize) -> Machine {
        if i == 0
            && let Some(r) = &self.reimport
        {
            let m = self.loaded();
            return Machine::owning(Arc::unwrap_or_clone(m), self.opts.clone(), r.clone());
        }
        self.checkpoints[i].1.restored()
    }

    /// Number of checkpoints held (for the engine benchmark).
    pub fn checkpoint_count(&self) -> usize {
        self.checkpoints.len()
    }

    /// What the checkpoints taken during an allocation copy (held for one function).
    pub fn allocation_checkpoint_bytes(&self) -> usize {
        self.checkpoints.iter().filter(|(_, m)| m.allocating()).map(|(_, m)| snapshot_bytes(m)).sum()
    }

    /// What the checkpoints copy rather than share ([`snapshot_bytes`] of each, without
    /// the module copies they cause), for tests that memory does not grow with the file.
    pub fn checkpoint_bytes(&self) -> usize {
        self.checkpoints.iter().map(|(_, m)| snapshot_bytes(m) - m.write_bytes()).sum()
    }

    /// The finished allocations the checkpoints hold in full (not as recipes), for tests
    /// that they do not grow with the number of functions.
    pub fn checkpoint_held_allocations(&self) -> usize {
        self.checkpoints.iter().map(|(_, m)| m.held_allocations()).sum()
    }

    /// The machine at the cursor.
    pub fn machine(&self) -> &Machine {
        &self.machine
    }

    /// The event at the cursor (the last one applied).
    pub fn current(&self) -> Option<&Event> {
        self.now.as_ref()
    }

    /// Every event produced so far (possibly beyond the cursor after going back).
    pub fn trace(&self) -> Events<'_> {
        self.trace.events()
    }

    /// Event `i` of the trace.
    pub fn event(&self, i: usize) -> Option<Cow<'_, Event>> {
        self.trace.get(i)
    }

    /// The bytes the trace holds (for tests that it stays compact).
    pub fn trace_bytes(&self) -> usize {
        self.trace.heap_bytes()
    }

    /// Moves the cursor to `k` (at most the trace's length) and takes its event.
    fn set_cursor(&mut self, k: usize) {
        self.cursor = k;
        self.now = k.checked_sub(1).and_then(|i| self.trace.get(i)).map(Cow::into_owned);
    }

    pub fn at_end(&self) -> bool {
        self.machine.is_done()
    }

    /// Applies one event; false at the end.
    fn advance(&mut self) -> bool {
        let Some(ev) = self.machine.step() else { return false };
        if self.cursor < self.trace.len() {
            // A replay: the machine is deterministic, so the event is the one recorded.
            debug_assert_eq!(
                self.trace.get(self.cursor).as_deref(),
                Some(&ev),
                "replay diverged at event {}",
                self.cursor
            );
        } else {
            self.trace.push(ev.clone());
            self.elide(&ev);
        }
        self.now = Some(ev);
        self.cursor += 1;
        let heavy = self.current().is_some_and(|e| {
            matches!(
                &e.kind,
                EventKind::Alloc(crate::alloc::AllocEvent::AttemptStart { .. })
                    | EventKind::Alloc(crate::alloc::AllocEvent::Relive { .. })
                    | EventKind::Budget { .. }
                    | EventKind::Briggs(
                        crate::alloc::briggs::BriggsEvent::Build(_) | crate::alloc::briggs::BriggsEvent::SpillCode(_)
                    )
            )
        });
        // The checkpoint at or before the cursor (later ones stay after going back).
        let at = self.checkpoints.partition_point(|c| c.0 <= self.cursor);
        let last_cp = at.checked_sub(1).map_or(0, |i| self.checkpoints[i].0);
        let due = |m: &Machine, since: usize| {
            since >= CHECKPOINT_INTERVAL && since >= snapshot_bytes(m) / CHECKPOINT_BYTES_PER_EVENT
        };
        if self.cursor > last_cp && (heavy || due(&self.machine, self.cursor - last_cp)) {
            self.checkpoints.insert(at, (self.cursor, self.machine.snapshot()));
            if self.machine.allocating() {
                self.hold_allocation_checkpoints(self.machine.pos.func);
            }
        }
        true
    }

    /// Notes where a function's allocation starts (its first event, recorded right after
    /// its budget event) and, at its end (the check or statistics event), drops its
    /// events from the trace, to be replayed from its recipe when read (issue 25: the
    /// per-vreg events of every finished function were most of the trace). Only for an
    /// allocation recorded whole: after going back into one, `alloc_open` is cleared.
    fn elide(&mut self, ev: &Event) {
        let at = self.trace.len() - 1;
        let Some(fi) = ev.func else { return };
        match &ev.kind {
            EventKind::Alloc(_) | EventKind::Briggs(_) => {
                if self.alloc_open.is_some_and(|(f, _)| f == fi) {
                    return;
                }
                let after_budget = at
                    .checked_sub(1)
                    .and_then(|i| self.trace.get(i))
                    .is_some_and(|p| p.func == Some(fi) && matches!(p.kind, EventKind::Budget { .. }));
                if after_budget {
                    self.alloc_open = Some((fi, at));
                }
            }
            EventKind::Check { .. } | EventKind::Stats { .. } => {
                let Some((f, start)) = self.alloc_open.take() else { return };
                // Only the fat-point allocator's: `Events::whole` gives the Briggs events
                // held (`query::briggs_events`).
                let done = self
                    .machine
                    .funcs
                    .get(fi)
                    .and_then(|r| r.alloc.as_ref())
                    .filter(|a| a.has_recipe() && a.fatpoint().is_some());
                let (Some(done), true) = (done, f == fi && at - start <= ELIDE_MAX_EVENTS) else { return };
                let recipe = done.compact();
                let replay: crate::engine::trace::Replay = Arc::new(move || {
                    let events = recipe.replay_events()?;
                    Some(
                        events
                            .into_iter()
                            .map(|e| Event {
                                func: Some(fi),
                                kind: match e {
                                    crate::alloc::run::RunEvent::FatPoint(a) => EventKind::Alloc(a),
                                    crate::alloc::run::RunEvent::Briggs(b) => EventKind::Briggs(b),
                                },
                            })
                            .collect(),
                    )
                });
                self.trace.elide(start, at, replay);
            }
            _ => self.alloc_open = None,
        }
    }

    /// Drops the checkpoints taken during other functions' allocations.
    fn hold_allocation_checkpoints(&mut self, fi: usize) {
        if self.dense_func == Some(fi) {
            return;
        }
        self.dense_func = Some(fi);
        self.checkpoints.retain(|(_, m)| !m.allocating() || m.pos.func == fi);
    }

    /// Moves the cursor to `target` events (clamped to the end of the pipeline).
    pub fn goto(&mut self, target: usize) {
        if target < self.cursor && self.rewind_prepasses(target) {
            return;
        }
        if target < self.cursor {
            self.alloc_open = None;
            let i = self.checkpoints.partition_point(|c| c.0 <= target) - 1;
            let k = self.checkpoints[i].0;
            let m = self.restore(i);
            let old = std::mem::replace(&mut self.machine, m);
            self.machine.adopt_finished(&old);
            self.set_cursor(k);
        }
        while self.cursor < target {
            if !self.advance() {
                break;
            }
        }
    }

    /// Goes back to event `target` inside the prepass stage without a checkpoint: the
    /// prepasses rewrite every function, so a checkpoint there costs a copy of the module
    /// and there is none after the start (`Machine::write_bytes`); a reverse step there
    /// replayed every pass on every function from the start (0.7 s on the 5 MB file of
    /// 614 entries, issue 25). Between `target` and the cursor only prepass events
    /// happened, and they changed only their own functions: each of those is rebuilt from
    /// the start's version by its passes before `target` (`stages::replay_passes`), every
    /// other function is already as it was. Taken when those passes are fewer than the
    /// events the checkpoint replay would run (or as many); false (nothing changed) otherwise.
    fn rewind_prepasses(&mut self, target: usize) -> bool {
        use crate::engine::machine::stages;
        let Some(start) = target.checked_sub(1) else { return false };
        if self.machine.opts.record_stages || self.cursor > self.trace.len() {
            return false;
        }
        let prepass = |e: &Event| matches!(e.kind, EventKind::Prepass { .. });
        let events = self.trace.events();
        if !events.slice(start..self.cursor).iter().all(|e| prepass(&e)) {
            return false;
        }
        let n = self.machine.funcs.len();
        let Some(first_ev) = events.get(start) else { return false };
        let Some(pos) = stages::pos_after_prepass(&first_ev, n) else { return false };
        let mut touched: Vec<usize> = events.slice(target..self.cursor).iter().filter_map(|e| e.func).collect();
        touched.sort_unstable();
        touched.dedup();
        let mut passes: Vec<Vec<&'static str>> = vec![Vec::new(); touched.len()];
        for e in events.upto(target).iter() {
            if let (Some(fi), EventKind::Prepass { pass, .. }) = (e.func, &e.kind)
                && let Ok(k) = touched.binary_search(&fi)
            {
                passes[k].push(pass);
            }
        }
        let (k0, first) = &self.checkpoints[0];
        let from_checkpoint = target - self.checkpoints[self.checkpoints.partition_point(|c| c.0 <= target) - 1].0;
        if *k0 != 0 || passes.iter().map(Vec::len).sum::<usize>() > from_checkpoint {
            return false;
        }
        let mut rebuilt = Vec::with_capacity(touched.len());
        for (&fi, names) in touched.iter().zip(&passes) {
            let g = if self.reimport.is_some() {
                // The function's call group as loaded, with the run's settings: what its
                // passes read (the settings, globals and its callers' launch bounds).
                let Some((mut gm, at)) = self.reimport.as_ref().and_then(|r| r.group_of(fi)) else { return false };
                (gm.sm, gm.options) = (self.machine.source.sm.clone(), self.machine.source.options.clone());
                let Some(f) = gm.functions.get(at) else { return false };
                stages::replay_passes(&gm, f, names)
            } else {
                let base = &first.module;
                let Some(f) = base.functions.get(fi) else { return false };
                stages::replay_passes(base, f, names)
            };
            rebuilt.push((fi, g));
        }
        for (fi, g) in rebuilt {
            crate::ir::model::Module::replace_function(&mut self.machine.module, fi, g);
        }
        self.machine.pos = pos;
        self.set_cursor(target);
        self.prepass_rewinds += 1;
        true
    }

    /// How many times going back inside the prepasses rebuilt only the functions it
    /// touched (for tests that a reverse step there does not replay from the start).
    pub fn prepass_rewinds(&self) -> usize {
        self.prepass_rewinds
    }

    /// Steps forward `n` events; returns how many were applied.
    pub fn step(&mut self, n: usize) -> usize {
        let start = self.cursor;
        for _ in 0..n {
            if !self.advance() {
                break;
            }
        }
        self.cursor - start
    }

    /// Steps back `n` events.
    pub fn reverse_step(&mut self, n: usize) -> usize {
        let target = self.cursor.saturating_sub(n);
        let moved = self.cursor - target;
        self.goto(target);
        moved
    }

    /// Forward to the next event at the current event's level or above (`next`).
    pub fn next_over(&mut self) -> Stop {
        let lvl = self.current().map(level).unwrap_or(0);
        self.run_until(|e| level(e) <= lvl)
    }

    /// Forward to the end of the enclosing scope (`finish`): the next event of a higher level.
    pub fn finish(&mut self) -> Stop {
        let lvl = self.current().map(level).unwrap_or(0);
        if lvl == 0 {
            // A stage-level event: run to the first event of the next stage.
            let stage = self.current().map(|e| (e.stage(), e.func));
            return self.run_until(|e| Some((e.stage(), e.func)) != stage);
        }
        self.run_until(|e| level(e) < lvl)
    }

    /// Back to the previous event at the current level or above (`reverse-next`).
    pub fn reverse_next(&mut self) -> Stop {
        let lvl = self.current().map(level).unwrap_or(0);
        let found =
            (0..self.cursor.saturating_sub(1)).rev().find(|&i| self.trace.get(i).is_some_and(|e| level(&e) <= lvl));
        match found {
            Some(i) => {
                self.goto(i + 1);
                Stop::Steps
            }
            None => {
                self.goto(0);
                Stop::Start
            }
        }
    }

    /// Back to the event that opened the enclosing frame (`reverse-finish`): the
    /// innermost frame of `backtrace` opened before the current event — from an
    /// assignment to its attempt's start, from an attempt's start to its class's, from a
    /// class to its stage's first event.
    pub fn reverse_finish(&mut self) -> Stop {
        let frames = crate::engine::frames::frames(self);
        match frames.iter().skip(1).find(|f| f.opened < self.cursor) {
            Some(f) => {
                self.goto(f.opened);
                Stop::Steps
            }
            None => {
                self.goto(0);
                Stop::Start
            }
        }
    }

    /// Runs forward until `target` (an event number, or the next event a breakpoint of
    /// that kind would stop at), an enabled breakpoint, or the end (`advance`, `until`,
    /// `start`). `Stop::Steps` means the target was reached.
    pub fn advance_to(&mut self, target: &Target) -> Stop {
        if let Target::Event(n) = target
            && *n <= self.cursor
        {
            return Stop::Steps;
        }
        let probe = match target {
            Target::Kind(k) => {
                Some(Breakpoint { id: 0, kind: k.clone(), enabled: true, hits: 0, temporary: true, ignore: 0 })
            }
            Target::Event(_) => None,
        };
        loop {
            if !self.advance() {
                return Stop::End;
            }
            let reached = match (target, &probe) {
                (Target::Event(n), _) => self.cursor >= *n,
                (_, Some(b)) => {
                    // The module as it stands (not one held across the loop: a stage
                    // that rewrites the module would then copy all of it).
                    let module = &self.machine.module;
                    let prev = self.cursor.checked_sub(2).and_then(|i| self.trace.get(i));
                    b.matches(self.current().expect("just applied"), prev.as_deref(), module)
                }
                _ => false,
            };
            if reached {
                return Stop::Steps;
            }
            if let Some(s) = self.check_breakpoints() {
                return s;
            }
        }
    }

    fn run_until(&mut self, stop: impl Fn(&Event) -> bool) -> Stop {
        loop {
            if !self.advance() {
                return Stop::End;
            }
            if stop(self.current().expect("just applied")) {
                return Stop::Steps;
            }
            if let Some(s) = self.check_breakpoints() {
                return s;
            }
        }
    }

    /// Runs until a breakpoint or watchpoint triggers, or the end. `interrupt` is polled
    /// between events (Ctrl-C in the REPL).
    pub fn cont(&mut self, interrupt: &dyn Fn() -> bool) -> Stop {
        loop {
            if interrupt() {
                return Stop::Interrupted;
            }
            if !self.advance() {
                return Stop::End;
            }
            if let Some(s) = self.check_breakpoints() {
                return s;
            }
        }
    }

    /// Evaluates breakpoints against the event just applied; watchpoints compare the
    /// state field before and after it.
    fn check_breakpoints(&mut self) -> Option<Stop> {
        if self.breakpoints.is_empty() {
            return None;
        }
        let ev = self.current()?.clone();
        let prev = self.cursor.checked_sub(2).and_then(|i| self.trace.get(i)).map(Cow::into_owned);
        let mut hit = None;
        let module = self.machine.module.clone();
        let watches: Vec<(usize, u32)> = self
            .breakpoints
            .iter()
            .enumerate()
            .filter_map(|(i, b)| match b.kind {
                BpKind::Watch { offset } if b.enabled => Some((i, offset)),
                _ => None,
            })
            .collect();
        for i in 0..self.breakpoints.len() {
            if matches!(self.breakpoints[i].kind, BpKind::Watch { .. }) {
                continue;
            }
            if self.breakpoints[i].matches(&ev, prev.as_ref(), &module) {
                let b = &mut self.breakpoints[i];
                b.hits += 1;
                if b.ignore > 0 {
                    b.ignore -= 1;
                    continue;
                }
                hit.get_or_insert(Stop::Breakpoint(b.id));
            }
        }
        if hit.is_none() && !watches.is_empty() {
            let now = self.state_value_map();
            let before = self.state_at(self.cursor - 1);
            for (i, off) in watches {
                let old = before.iter().find(|f| f.0 == off).map(|f| f.1.clone()).unwrap_or_default();
                let new = now.iter().find(|f| f.0 == off).map(|f| f.1.clone()).unwrap_or_default();
                if old != new {
                    let b = &mut self.breakpoints[i];
                    b.hits += 1;
                    if b.ignore > 0 {
                        b.ignore -= 1;
                        continue;
                    }
                    hit = Some(Stop::Watch { id: b.id, offset: off, old, new });
                    break;
                }
            }
        }
        // A temporary breakpoint (`tbreak`) is gone once it has stopped the run.
        let stopped = match &hit {
            Some(Stop::Breakpoint(id)) | Some(Stop::Watch { id, .. }) => Some(*id),
            _ => None,
        };
        if let Some(id) = stopped
            && let Some(i) = self.breakpoints.iter().position(|b| b.id == id && b.temporary)
        {
            self.last_temporary = Some(self.breakpoints.remove(i));
        }
        hit
    }

    /// Back to the most recent earlier event that triggers a breakpoint (or the start).
    pub fn reverse_continue(&mut self) -> Stop {
        let end = self.cursor.saturating_sub(1);
        let module = self.machine.module.clone();
        let has_watch = self.breakpoints.iter().any(|b| b.enabled && matches!(b.kind, BpKind::Watch { .. }));
        let mut found = None;
        for i in (0..end).rev() {
            let prev = i.checked_sub(1).and_then(|j| self.trace.get(j));
            let Some(ev) = self.trace.get(i) else { break };
            if let Some(b) = self
                .breakpoints
                .iter()
                .find(|b| !matches!(b.kind, BpKind::Watch { .. }) && b.matches(&ev, prev.as_deref(), &module))
            {
                found = Some((i, Stop::Breakpoint(b.id)));
                break;
            }
            if has_watch {
                let now = self.state_at(i + 1);
                let before = self.state_at(i);
                for b in self.breakpoints.iter().filter(|b| b.enabled) {
                    if let BpKind::Watch { offset } = b.kind {
                        let o = before.iter().find(|f| f.0 == offset).map(|f| f.1.clone()).unwrap_or_default();
                        let n = now.iter().find(|f| f.0 == offset).map(|f| f.1.clone()).unwrap_or_default();
                        if o != n {
                            found = Some((i, Stop::Watch { id: b.id, offset, old: o, new: n }));
                            break;
                        }
                    }
                }
                if found.is_some() {
                    break;
                }
            }
        }
        match found {
            Some((i, stop)) => {
                self.goto(i + 1);
                stop
            }
            None => {
                self.goto(0);
                Stop::Start
            }
        }
    }

    /// Runs to the end of the pipeline.
    pub fn run_to_end(&mut self) {
        while self.advance() {}
    }

    /// Restarts at the beginning (`run`), keeping breakpoints.
    pub fn restart(&mut self) {
        self.goto(0);
    }

    /// (offset, value) of every modelled field of the allocator state at the cursor.
    pub fn state_value_map(&self) -> Vec<(u32, String)> {
        self.machine.state_table().into_iter().filter_map(|f| f.value.map(|v| (f.offset, v))).collect()
    }

    /// The state table after `n` events: replays a copy of the nearest machine at or
    /// before `n` (the current one, or a checkpoint) — never a copy of the whole debugger,
    /// whose trace and checkpoints can be hundreds of MB at 100k instructions.
    pub fn state_at(&self, n: usize) -> Vec<(u32, String)> {
        if n == self.cursor {
            return self.state_value_map();
        }
        let (mut k, mut m) = if n > self.cursor {
            (self.cursor, self.machine.clone())
        } else {
            let i = self.checkpoints.partition_point(|c| c.0 <= n).saturating_sub(1);
            match self.checkpoints.get(i) {
                Some((k, _)) => (*k, self.restore(i)),
                None => return Vec::new(),
            }
        };
        while k < n && m.step().is_some() {
            k += 1;
        }
        m.state_table().into_iter().filter_map(|f| f.value.map(|v| (f.offset, v))).collect()
    }

    /// The machine at the end of the pipeline, stepped on a copy of the current one (no
    /// trace, no checkpoints).
    fn machine_at_end(&self) -> Machine {
        let mut m = self.machine.clone();
        while m.step().is_some() {}
        m
    }

    /// A copy that shares the trace but no breakpoints, for side computations.
    pub fn clone_light(&self) -> Debugger {
        let mut d = self.clone();
        d.breakpoints.clear();
        d
    }

    /// Adds a breakpoint; returns its number.
    pub fn add_breakpoint(&mut self, kind: BpKind) -> u32 {
        let id = self.next_bp;
        self.next_bp += 1;
        self.breakpoints.push(Breakpoint { id, kind, enabled: true, hits: 0, temporary: false, ignore: 0 });
        id
    }

    /// Adds a breakpoint deleted at its first stop (`tbreak`); returns its number.
    pub fn add_temporary_breakpoint(&mut self, kind: BpKind) -> u32 {
        let id = self.add_breakpoint(kind);
        if let Some(b) = self.breakpoint_mut(id) {
            b.temporary = true;
        }
        id
    }

    pub fn breakpoint_mut(&mut self, id: u32) -> Option<&mut Breakpoint> {
        self.breakpoints.iter_mut().find(|b| b.id == id)
    }

    pub fn delete_breakpoint(&mut self, id: u32) -> bool {
        let n = self.breakpoints.len();
        self.breakpoints.retain(|b| b.id != id);
        n != self.breakpoints.len()
    }

    /// Changes run options and re-runs from the first stage the change affects; the
    /// cursor moves to the equivalent event. Returns a note when no equivalent exists.
    pub fn set_options(&mut self, opts: RunOptions, from: Stage) -> Option<String> {
        let old_event = self.current().cloned();
        let old_cursor = self.cursor;
        self.keep_previous_run();
        let restart_at = self.trace.events().iter().position(|e| e.stage() >= from).unwrap_or(self.trace.len());
        self.opts = opts;
        // A checkpoint before the affected stage with no allocation in progress, or the start.
        let cp = self
            .checkpoints
            .iter()
            .rposition(|(k, m)| *k <= restart_at && !m.allocating() && from >= Stage::Budget)
            .unwrap_or(0);
        if cp == 0 {
            let start = match &self.reimport {
                Some(r) => {
                    let m = Arc::unwrap_or_clone(self.loaded());
                    self.machine = Machine::owning(m, self.opts.clone(), r.clone());
                    Machine::over(&self.machine.source.clone(), self.opts.clone())
                }
                None => {
                    self.machine = Machine::over(&self.loaded(), self.opts.clone());
                    self.machine.snapshot()
                }
            };
            self.checkpoints = vec![(0, start)];
            self.set_cursor(0);
        } else {
            let (k, m) = (self.checkpoints[cp].0, self.checkpoints[cp].1.restored());
            self.machine = m;
            self.machine.set_options(&self.opts);
            self.set_cursor(k);
            self.checkpoints.truncate(cp + 1);
            self.checkpoints[cp].1 = self.machine.snapshot();
            // The earlier checkpoints are before the affected stage too: they take the new
            // options, or going back past `cp` replays the old run (found by fuzzing
            // `continue; set allocator briggs; reverse-continue; continue`, which diverged).
            for (_, m) in &mut self.checkpoints[..cp] {
                m.set_options(&self.opts);
            }
        }
        self.trace.truncate(self.cursor);
        self.alloc_open = None;
        // Find the equivalent event.
        let old = old_event?;
        if old_cursor <= self.cursor {
            let target = old_cursor;
            self.goto(target);
            return None;
        }
        let key = event_key(&old);
        loop {
            if !self.advance() {
                return Some(format!(
                    "no equivalent of event {} ({}) in the new run; stopped at the end",
                    old_cursor,
                    old.kind_name()
                ));
            }
            if event_key(self.current().expect("applied")) == key {
                return None;
            }
        }
    }

    /// Records the final results of the current run (for `diff runs`).
    fn keep_previous_run(&mut self) {
        self.previous = Some(self.machine.snapshot());
    }

    /// The run before the last option change, as a summary (`None` before any change).
    pub fn previous_run(&self) -> Option<RunSummary> {
        let mut m = self.previous.clone()?;
        while m.step().is_some() {}
        Some(summary(&m, "before"))
    }

    /// A summary of the run as it stands at the end (runs a copy to the end).
    pub fn summary_now(&self, label: &str) -> RunSummary {
        summary(&self.machine_at_end(), label)
    }
}

/// What identifies "the same moment" across two runs: function, event kind, class,
/// attempt, vreg name / sweep / check code.
pub fn event_key(e: &Event) -> String {
    let detail = match &e.kind {
        EventKind::Alloc(a) => a.event_key(),
        EventKind::Briggs(b) => b.event_key(),
        EventKind::LivenessSweep { file, sweep, .. } => format!("{} {sweep}", file.prefix()),
        EventKind::AbiCheck { code, .. } => code.to_string(),
        _ => String::new(),
    };
    format!("{:?}|{}|{}", e.func, e.kind_name(), detail)
}

fn summary(m: &Machine, label: &str) -> RunSummary {
    let mut functions = Vec::new();
    for (fi, r) in m.funcs.iter().enumerate() {
        let f = &m.module.functions[fi];
        let (assigns, spilled) =
            r.alloc.as_ref().map(|a| (a.assignment_lines(), a.spilled_names())).unwrap_or_default();
        let stats = r.stats.as_ref().map(|s| s.lines(&m.module.sm.to_string(), false)).unwrap_or_default();
        functions.push(FunctionSummary { name: f.name.to_string(), assignments: assigns, spilled, stats });
    }
    RunSummary { label: label.to_string(), functions }
}

impl Debugger {
    /// A text fingerprint of the whole state at the cursor (position, current event,
    /// allocator state table, assignments), for tests of time travel.
    pub fn fingerprint(&self) -> String {
        let m = &self.machine;
        let mut s = format!("cursor {} pos {:?}\n", self.cursor, m.pos);
        if let Some(e) = self.current() {
            s.push_str(&format!("{e:?}\n"));
        }
        for (o, v) in self.state_value_map() {
            s.push_str(&format!("+{o}={v}\n"));
        }
        if let Some(c) = &m.cur {
            s.push_str(&c.fingerprint());
        }
        for (i, r) in m.funcs.iter().enumerate() {
            s.push_str(&format!("f{i} stats {:?}\n", r.stats));
        }
        s
    }
}
