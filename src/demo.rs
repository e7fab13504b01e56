//! The demo kernel embedded in the binary: what `radbg` opens with no argument.

/// The name diagnostics use for it.
pub const DEMO_NAME: &str = "sessions/demo.ori";

/// `sessions/demo.ori`: a loop with many values live across it, under a
/// `maxrregcount` that forces SPILL retries.
pub const DEMO: &str = include_str!("../sessions/demo.ori");
