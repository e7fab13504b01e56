//! The batch commands' way through a PTX file of many call groups (issue 25): each
//! group imported alone (`ir::ptx::stream`) and run on its own machine, freed before the
//! next, so memory is bounded by the largest group, not the file. Used by `run`, `why`
//! and `sweep`; each puts its output back in the order the whole module gives.
//!
//! A file qualifies when it is PTX (not standard input: the fallback reads it again)
//! with two or more call groups and every group imports without a word from the
//! importer (every group is imported once before anything runs or prints); otherwise
//! the caller loads the file whole, which reports whatever there is to report.
//!
//! Groups are independent (nothing of one reaches another's allocation), so
//! [`map_groups`] runs them on several threads, each holding one group at a time, and
//! hands the results back in group order: output never depends on timing, and memory is
//! bounded by `jobs` × the largest group.

use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use crate::ir::Module;
use crate::ir::ptx::stream::Plan;

/// Threads for `--jobs`: the value given, else the available cores.
pub fn jobs(given: Option<usize>) -> usize {
    given.unwrap_or_else(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)).max(1)
}

/// `f(k, group k imported alone)` for every group of `plan`, on up to `jobs` threads
/// (each thread takes the next group not yet taken); the results in group order.
/// `None` as soon as a group does not import or `f` gives up (the others stop at their
/// next group).
pub fn map_groups<R: Send>(
    plan: &Plan<'_>,
    jobs: usize,
    f: &(dyn Fn(usize, Module) -> Option<R> + Sync),
) -> Option<Vec<R>> {
    let next = AtomicUsize::new(0);
    let gave_up = AtomicBool::new(false);
    let done: Mutex<Vec<(usize, R)>> = Mutex::new(Vec::with_capacity(plan.len()));
    let work = || {
        while !gave_up.load(Ordering::Relaxed) {
            let k = next.fetch_add(1, Ordering::Relaxed);
            if k >= plan.len() {
                break;
            }
            match plan.import(k).and_then(|m| f(k, m)) {
                Some(r) => done.lock().unwrap_or_else(|e| e.into_inner()).push((k, r)),
                None => gave_up.store(true, Ordering::Relaxed),
            }
        }
    };
    let threads = jobs.clamp(1, plan.len().max(1));
    if threads == 1 {
        work();
    } else {
        std::thread::scope(|s| {
            for _ in 0..threads {
                s.spawn(work);
            }
        });
    }
    let mut done = done.into_inner().unwrap_or_else(|e| e.into_inner());
    if gave_up.into_inner() || done.len() != plan.len() {
        return None;
    }
    done.sort_by_key(|d| d.0);
    Some(done.into_iter().map(|d| d.1).collect())
}

/// Calls `f` with the file's plan when the file qualifies (module doc); `None` when it
/// does not, or when `f` gives up (the caller then runs the whole module).
pub fn with_plan<R>(file: &Path, jobs: usize, f: impl FnOnce(&Plan<'_>) -> Option<R>) -> Option<R> {
    if file.as_os_str() == "-" {
        return None;
    }
    let name = file.display().to_string();
    let bytes = crate::load::read_input(file, &name).ok()?;
    if !crate::load::is_ptx(file, &bytes) {
        return None;
    }
    let text = std::str::from_utf8(&bytes).ok()?;
    // One function (the scale kernel): no split, and no second parse.
    if text.matches(".entry").count() + text.matches(".func").count() < 2 {
        return None;
    }
    let plan = crate::ir::ptx::stream::plan(text)?;
    if plan.len() < 2 {
        return None;
    }
    map_groups(&plan, jobs, &|_, _| Some(()))?;
    f(&plan)
}
