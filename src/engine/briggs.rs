//! Hosting the Chaitin-Briggs allocator (seed 002) in the pipeline's Alloc stage under
//! `set allocator briggs` / `--allocator briggs`: the same per-function configuration
//! the fat-point allocator gets (budget, ABI pins, fixed registers, clobbers, knobs),
//! one engine event per `BriggsEvent`, then the Check and Stats stages on its result.
//!
//! Knows the machine's per-function results and `alloc::briggs`' public API; nothing of
//! the allocator's internals, of commands or of front ends.

use std::sync::Arc;

use crate::alloc::briggs::{BriggsAlloc, BriggsEvent};
use crate::alloc::stats::FunctionStats;
use crate::engine::event::{Event, EventKind};
use crate::engine::machine::Machine;

/// The next event of function `fi`'s Briggs allocation; `None` once it has finished
/// (its result is then in `FuncResult::briggs`).
pub fn alloc_step(m: &mut Machine, fi: usize) -> Option<Event> {
    if m.cur_briggs.is_none() {
        let config = m.alloc_config(fi);
        m.cur_briggs = Some(BriggsAlloc::new(m.module.functions[fi].clone(), config));
    }
    let cur = m.cur_briggs.as_mut().expect("Briggs allocation in progress");
    match cur.step() {
        Some(ev) => Some(Event { func: Some(fi), kind: EventKind::Briggs(ev) }),
        None => {
            let done = m.cur_briggs.take().expect("Briggs allocation");
            m.funcs[fi].briggs = Some(Arc::new(done));
            None
        }
    }
}

/// The independent checker on a finished Briggs allocation (nothing when it failed: a
/// failed allocation keeps no assignment).
pub fn check(b: &BriggsAlloc) -> Vec<String> {
    if b.failure().is_some() {
        return Vec::new();
    }
    b.check().err().map(|errs| errs.iter().map(|e| e.to_string()).collect()).unwrap_or_default()
}

/// The `-v` figures from a finished Briggs allocation.
pub fn fill_stats(s: &mut FunctionStats, b: &BriggsAlloc) {
    s.error = b.failure().map(str::to_string);
    let (st, ld) = crate::alloc::spill::traffic(b.func());
    s.spill_stores = st;
    s.spill_loads = ld;
    s.stack_frame = b.frame_bytes();
    s.registers = b.registers();
}

/// The Briggs machine describing function `fi` now: the one in progress or the finished one.
pub fn briggs_of(m: &Machine, fi: usize) -> Option<&BriggsAlloc> {
    if m.pos.stage == crate::engine::Stage::Alloc
        && m.pos.func == fi
        && let Some(c) = m.cur_briggs.as_ref()
    {
        return Some(c);
    }
    m.funcs.get(fi).and_then(|r| r.briggs.as_deref())
}

/// Scope level of a Briggs event for `next` / `finish` (see `debugger::level`):
/// iterations are the "class" level, the phases the "attempt" level, one node or move
/// the "item" level.
pub fn level(ev: &BriggsEvent) -> u8 {
    match ev {
        BriggsEvent::IterationStart { .. }
        | BriggsEvent::IterationEnd { .. }
        | BriggsEvent::SpillCode { .. }
        | BriggsEvent::Finalize { .. } => 1,
        BriggsEvent::Build { .. } | BriggsEvent::Worklists { .. } => 2,
        _ => 3,
    }
}

/// What identifies "the same moment" of a Briggs run across two runs (`set` re-runs):
/// the iteration so far is not known from the event alone, so the vreg id.
pub fn event_key(ev: &BriggsEvent) -> String {
    match ev {
        BriggsEvent::IterationStart { n, .. } | BriggsEvent::IterationEnd { n, .. } => n.to_string(),
        BriggsEvent::Build { iteration, .. } | BriggsEvent::SpillCode { iteration, .. } => iteration.to_string(),
        other => other.vreg().map(|v| format!("v{}", v.0)).unwrap_or_default(),
    }
}

/// `vreg → register` lines and spilled vreg names of a finished Briggs allocation (for
/// `diff runs`).
pub fn summary_lines(b: &BriggsAlloc) -> (Vec<String>, Vec<String>) {
    let f = b.func();
    let mut assigns = Vec::new();
    for (i, v) in f.vregs.iter().enumerate() {
        if let Some(s) = b.slot_of(crate::ir::VRegId::new(i)) {
            assigns.push(format!("{} → {}{}", v.name, v.file().prefix(), s));
        }
    }
    let spilled = b.spilled().iter().map(|v| b.original().vreg(*v).name.clone()).collect();
    (assigns, spilled)
}

/// The state of a Briggs allocation in progress, as text (time-travel tests compare it).
pub fn fingerprint(b: &BriggsAlloc) -> String {
    let f = b.func();
    let colours: Vec<Option<u16>> = (0..f.vregs.len()).map(|i| b.slot_of(crate::ir::VRegId::new(i))).collect();
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
