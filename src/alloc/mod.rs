//! The fat-point register allocator of ptxas (seeds 000, 003, 004) and its independent
//! checker.
//!
//! Table of contents, in pipeline order:
//! - `budget`: class budgets, ptxas's budget diagnostics, occupancy, the budget-fraction model;
//! - `state`: the allocator state object by ptxas byte offset;
//! - `ranges`: live ranges as position runs (the allocator's view of liveness);
//! - `cost`: spill costs and reference points;
//! - `constraints`: constraint nodes, types 0–15;
//! - `order`: six-list simplify-select ordering;
//! - `occupancy` + `fatpoint`: per-slot occupancy, histogram fill and scan;
//! - `attempt`: one attempt's stack, cursor and record; best-result comparison;
//! - `guidance`: spill candidate queues; `spill`: spill slots and spill code;
//! - `driver`: the steppable per-function machine (NOSPILL / SPILL retry loop);
//! - `event`: what each step reports; `stats`: ptxas `-v` lines;
//! - `check`: the independent checker (shares only the IR, liveness and the result);
//! - `briggs`: CICC's Chaitin-Briggs graph-colouring allocator (seed 002), a second
//!   steppable machine on the same IR, configuration and checker;
//! - `run`: `AllocRun`, one door to an allocation of either allocator (allocator-neutral
//!   questions: step, slot of a vreg, spills, figures, fingerprint, event nesting);
//! - `compare`: the allocator diff (fat-point against Chaitin-Briggs).
//!
//! Architecture invariant: nothing here knows about the debugger's UI or commands.

pub mod attempt;
pub mod bitspill;
pub mod briggs;
pub mod budget;
pub mod check;
pub mod compare;
pub mod constraints;
pub mod cost;
pub mod driver;
pub mod event;
pub mod fatpoint;
pub mod guidance;
pub mod occupancy;
pub mod order;
pub mod ranges;
pub mod run;
pub mod spill;
pub mod state;

pub use driver::{AllocConfig, FunctionAlloc};
pub use event::AllocEvent;
pub mod stats;
