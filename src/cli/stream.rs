//! The batch commands' way through a PTX file of many call groups (issue 25): each
//! group imported alone (`ir::ptx::stream`) and run on its own machine, freed before the
//! next, so memory is bounded by the largest group, not the file. Used by `run`, `why`
//! and `sweep`; each puts its output back in the order the whole module gives.
//!
//! A file qualifies when it is PTX (not standard input: the fallback reads it again)
//! with two or more call groups and every group imports without a word from the
//! importer (every group is imported once before anything runs or prints); otherwise
//! the caller loads the file whole, which reports whatever there is to report.

use std::path::Path;

use crate::ir::ptx::stream::Plan;

/// Calls `f` with the file's plan when the file qualifies (module doc); `None` when it
/// does not, or when `f` gives up (the caller then runs the whole module).
pub fn with_plan<R>(file: &Path, f: impl FnOnce(&Plan<'_>) -> Option<R>) -> Option<R> {
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
    for k in 0..plan.len() {
        plan.import(k)?;
    }
    f(&plan)
}
