//! A deterministic work counter for complexity tests (issue 25): the stages that could
//! grow faster than their input (the list scheduler, the liveness solver, region walks)
//! add what they visit — instructions, dependence edges, candidate buckets, bitvector
//! words — so a test can check that doubling an input about doubles the count, where
//! wall time on a shared machine says nothing.
//!
//! Per thread, so tests running in parallel do not see each other's work. Knows nothing
//! of what is counted.

use std::cell::Cell;

thread_local! {
    static WORK: Cell<u64> = const { Cell::new(0) };
}

/// Counts `n` units of work on this thread.
#[inline]
pub fn add(n: u64) {
    WORK.with(|w| w.set(w.get().wrapping_add(n)));
}

/// The work counted on this thread since the last `take`, and a reset.
pub fn take() -> u64 {
    WORK.with(|w| w.replace(0))
}
