//! First cuts for a large kernel (issue 29's 60 s goal): before the passes, the search
//! tries keeping only one slice of the instructions — a sixteenth, then a quarter —
//! and starts from the first slice, in order, that still shows the predicate.
//!
//! Why: every test of a large kernel costs as much as the kernel is long. The real
//! ptxas takes ~20 s on a 42 953-instruction single-function gate kernel; ddmin's first
//! candidates there are the whole kernel without a loop's back edges, then each half
//! (two tests of ~10 s each per halving, more when neither half shows it), so a 60 s
//! budget ran out after two or three tests. A slice costs a sixteenth of a test of the
//! whole, sixteen slices about one test, and when one shows the predicate the passes
//! start from a sixteenth of the kernel (repeated while the kernel stays large).
//! When no slice shows it, blocks and then instructions go in large contiguous chunks
//! (ddmin's first levels, down to 1/[`COARSE`] of them) before the slices are tried on
//! what is left: the loop back-edge pass, first in a round, would otherwise test the
//! whole large kernel once per back edge it keeps.
//! Kernels of at most [`MIN_INSTS`] instructions never take this path, so their
//! reductions are unchanged. The order of the slices depends only on the text, and the
//! first success in that order wins, so the result does not depend on the threads.

use std::ops::Range;

/// Kernels with more instructions than this get the first cuts.
pub const MIN_INSTS: usize = 2_000;

/// Into how many slices the instructions are cut, tried in this order.
pub const PARTS: [usize; 2] = [16, 4];

/// When no slice shows the predicate: blocks and instructions removed in contiguous
/// chunks of at least 1/COARSE of them (ddmin's first levels only), then slices again.
pub const COARSE: usize = 32;

/// The slices of `n` items when cut into `parts`: contiguous, in order, covering all.
pub fn slices(n: usize, parts: usize) -> Vec<Range<usize>> {
    let w = n.div_ceil(parts.max(1)).max(1);
    (0..n).step_by(w).map(|s| s..(s + w).min(n)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_cover_the_items_in_order() {
        assert_eq!(slices(10, 4), vec![0..3, 3..6, 6..9, 9..10]);
        assert_eq!(slices(3, 16), vec![0..1, 1..2, 2..3]);
        assert!(slices(0, 4).is_empty());
    }
}
