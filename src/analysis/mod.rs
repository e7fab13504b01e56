//! Analyses over one function of the Ori IR: the CFG (`cfg`), per-register-file
//! liveness (`liveness`, with point queries in `query`), dead-code elimination (`dce`),
//! the uninitialized-register detector (`uninit`) and the text report behind
//! `radbg check --live` (`report`). Models seed 004 (Liveness Analysis & Dead Code
//! Elimination).
//!
//! Architecture invariant: analyses read the IR model and the knobs; they know nothing
//! of physical register assignment, the allocator or the debugger.

pub mod bits;
pub mod cfg;
pub mod liveness;
pub mod liveset;
pub mod query;

pub use cfg::{Cfg, Loop};
pub use liveness::{BlockSet, FileLiveness, Liveness, Sweep};
pub use liveset::LiveSet;
