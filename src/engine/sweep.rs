//! Budget sweeps on imported PTX, one machine per budget (`why::sweep`), with the work
//! that does not change between budgets done once (issue 25: 16 budgets on a
//! 100k-instruction kernel took 7.5 s, a third of it the same schedule over and over).
//!
//! Of the prepasses only `sink` and `schedule` read the budget, and they read it only by
//! comparing it (`prepass::target_span`). A row runs from the shared prefix (the machine
//! stepped up to the first budget-reading pass) to the ABI stage, and the span its
//! comparisons left names every budget for which those passes return the same
//! functions: so the same liveness, DCE and uninitialized check too (they do not read
//! the budget). Every other budget in the span starts from a copy of that machine,
//! retargeted (`Machine::retarget`). The rows' figures are those of separate runs;
//! only the prepass summaries a copy carries name the first budget's target.
//!
//! Rows are spread over threads; only one thread at a time runs the stages up to the
//! ABI stage (a second running them for a budget in the same span would be wasted), the
//! others finish rows from the machines already there. Results come back in the order
//! of the options given: output never depends on timing.

use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use crate::engine::event::Stage;
use crate::engine::machine::Machine;
use crate::engine::options::RunOptions;

/// A machine at the ABI stage and the budgets (inclusive) it serves.
struct Template {
    span: (i64, i64),
    mach: Arc<Machine>,
}

/// What the threads share: the next row to take, the templates, whether one is being
/// built.
struct Queue {
    next: usize,
    templates: Vec<Template>,
    building: bool,
}

/// The budget a row runs at (rows without one share nothing).
fn budget(o: &RunOptions) -> Option<i64> {
    o.maxrregcount.map(i64::from)
}

fn lock(m: &Mutex<Queue>) -> MutexGuard<'_, Queue> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Clears `building` however the builder leaves (a panic included), so no thread waits
/// for a template that will never come.
struct Building<'a>(&'a Mutex<Queue>, &'a Condvar);

impl Drop for Building<'_> {
    fn drop(&mut self) {
        lock(self.0).building = false;
        self.1.notify_all();
    }
}

/// Runs `finish` on a machine for each of `rows`, every machine started from `prefix`
/// (a machine stepped to the first pass that reads the budget, not past the ABI stage)
/// retargeted to the row's options, on up to `threads` threads. The results are in the
/// order of `rows`; `None` for a row whose thread died (a panic) before finishing it.
pub fn rows<R: Send>(
    prefix: &Machine,
    rows: &[RunOptions],
    threads: usize,
    finish: &(dyn Fn(Machine) -> R + Sync),
) -> Vec<Option<R>> {
    let queue = Mutex::new(Queue { next: 0, templates: Vec::new(), building: false });
    let built = Condvar::new();
    // The templates serving a row not yet taken; the others are dropped (memory).
    let prune = |q: &mut Queue| {
        let left: Vec<i64> = rows[q.next..].iter().filter_map(budget).collect();
        q.templates.retain(|t| left.iter().any(|b| (t.span.0..=t.span.1).contains(b)));
    };
    let work = || -> Vec<(usize, R)> {
        let mut out = Vec::new();
        loop {
            let mut q = lock(&queue);
            let Some(opts) = rows.get(q.next) else { break };
            let i = q.next;
            let b = budget(opts);
            let found = b.and_then(|b| q.templates.iter().find(|t| (t.span.0..=t.span.1).contains(&b)));
            if let Some(t) = found {
                let mach = t.mach.clone();
                q.next += 1;
                prune(&mut q);
                drop(q);
                let mut m = Machine::clone(&mach);
                drop(mach);
                m.retarget(opts);
                out.push((i, finish(m)));
                continue;
            }
            if q.building {
                // Another thread is building a template that may serve this row.
                drop(built.wait(q).unwrap_or_else(|e| e.into_inner()));
                continue;
            }
            q.building = true;
            q.next += 1;
            drop(q);
            let guard = Building(&queue, &built);
            let mut m = prefix.clone();
            m.retarget(opts);
            crate::prepass::target_span::reset();
            while m.pos.stage < Stage::Abi && m.step().is_some() {}
            let span = crate::prepass::target_span::take();
            if let Some(b) = b
                && m.pos.stage == Stage::Abi
                && (span.0..=span.1).contains(&b)
            {
                let mut q = lock(&queue);
                // A span no row left to take falls in needs no template (nor would the
                // next prune keep it).
                if rows[q.next..].iter().filter_map(budget).any(|x| (span.0..=span.1).contains(&x)) {
                    // The rows of the span share the allocator's budget-free start too
                    // (kept only for a span of several rows: it outlives the row's own
                    // analysis when the row spills).
                    m.alloc_share = Some(Arc::new(crate::alloc::run::Shared::default()));
                    q.templates.push(Template { span, mach: Arc::new(m.clone()) });
                }
                prune(&mut q);
            }
            drop(guard);
            out.push((i, finish(m)));
        }
        out
    };
    let threads = threads.clamp(1, rows.len().max(1));
    let mut done: Vec<(usize, R)> = if threads == 1 {
        work()
    } else {
        std::thread::scope(|s| {
            let handles: Vec<_> = (0..threads).map(|_| s.spawn(work)).collect();
            handles.into_iter().flat_map(|h| h.join().unwrap_or_default()).collect()
        })
    };
    let mut out: Vec<Option<R>> = rows.iter().map(|_| None).collect();
    for (i, r) in done.drain(..) {
        if let Some(slot) = out.get_mut(i) {
            *slot = Some(r);
        }
    }
    out
}
