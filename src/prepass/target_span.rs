//! The span of register targets over which the budget-reading passes (`sink`,
//! `schedule` and its list scheduler) made the same decisions — so a sweep of
//! `--maxrregcount` can run the prepasses once for every budget in the span (issue 25:
//! at 100k instructions they were a third of each row, and most rows of a sweep give
//! the same schedule).
//!
//! The passes read the target only by comparing it with a figure of the function
//! (`need <= t`, `cur + added <= limit` with `limit = t - k`): each comparison, through
//! [`le`] or [`lt`], narrows the span to the targets that give the same outcome. After a
//! run, every target in the span takes every branch the run took, so the passes return
//! the same functions (their summaries, which name the target, differ).
//!
//! Per thread, like `crate::work`: the engine steps a machine on one thread. Knows
//! nothing of the passes.

use std::cell::Cell;

thread_local! {
    static SPAN: Cell<(i64, i64)> = const { Cell::new((i64::MIN, i64::MAX)) };
}

/// Forgets the comparisons recorded on this thread: the span is every target.
pub fn reset() {
    SPAN.with(|s| s.set((i64::MIN, i64::MAX)));
}

/// The targets (inclusive) that take every branch recorded since the last [`reset`],
/// and a reset.
pub fn take() -> (i64, i64) {
    SPAN.with(|s| s.replace((i64::MIN, i64::MAX)))
}

fn narrow(lo: i64, hi: i64) {
    SPAN.with(|s| {
        let (a, b) = s.get();
        s.set((a.max(lo), b.min(hi)));
    });
}

/// `x <= t + off` for the target `t` (a limit `t + off` derived from it), recorded.
pub fn le(x: i64, t: i64, off: i64) -> bool {
    let holds = x <= t + off;
    // Holds for every target from `x - off` up; fails for every one below it.
    let at = x.saturating_sub(off);
    if holds {
        narrow(at, i64::MAX)
    } else {
        narrow(i64::MIN, at.saturating_sub(1))
    }
    holds
}

/// `t + off < x`, recorded.
pub fn lt(t: i64, off: i64, x: i64) -> bool {
    !le(x, t, off)
}

/// Decisions that hold for every limit `lo..=hi`, the limit being `t + off`.
pub fn limit_between(lo: i64, hi: i64, off: i64) {
    narrow(lo.saturating_sub(off), hi.saturating_sub(off));
}

/// The decision depended on the target in a way not written as a comparison: only
/// this target is known to take it.
pub fn exactly(t: i64) {
    narrow(t, t);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comparisons_narrow_to_the_targets_with_the_same_outcomes() {
        reset();
        assert!(le(40, 64, 0)); // holds from 40 up
        assert!(!le(70, 64, -4)); // 70 <= t - 4 fails below 74
        assert!(lt(64, 0, 65)); // t < 65
        assert_eq!(take(), (40, 64));
        assert_eq!(take(), (i64::MIN, i64::MAX), "take resets");
        exactly(7);
        assert_eq!(take(), (7, 7));
        limit_between(10, 20, -4); // limit t - 4 in 10..=20
        limit_between(i64::MIN, 30, -4);
        assert_eq!(take(), (14, 24));
    }

    #[test]
    fn every_target_in_the_span_takes_the_same_branches() {
        let run = |t: i64| (le(30, t, 0), le(50, t, -5), lt(t, 0, 90));
        reset();
        let at_60 = run(60);
        let (lo, hi) = take();
        for t in 0..200 {
            reset();
            assert_eq!(run(t) == at_60, (lo..=hi).contains(&t), "target {t}, span {lo}..={hi}");
        }
    }
}
