//! `radbg reduce`: shrink a kernel to a small one that still shows the behaviour being
//! debugged — an allocation failure, a checker fault, spills, a register count, a
//! departure from the real ptxas — in the spirit of llvm-reduce and C-Reduce.
//!
//! Sits above `engine`/`why` (it runs the pipeline on every candidate, like `why` and
//! `fidelity` do) and below `command`, which adds the predicates written in the command
//! language (`script FILE`, `expect` conditions) and the debugger's `reduce` command.
//!
//! - `predicate`: the built-in predicates, evaluated with the pipeline stopped as soon
//!   as the answer is known; `ptxas`: the real ptxas for `differs-from-ptxas`;
//!   `focus`: the call group that shows a predicate, found smallest group first.
//! - `subject`: Ori IR or PTX, and loading a candidate through the ordinary loaders.
//! - `pass`, `ori_passes`, `ptx_passes`: what can be removed or simplified;
//!   `ptx_loops` (back edges, unrolled copies) and `ptx_types` (vector and register
//!   widths) for PTX.
//! - `search`: delta debugging over the passes, parallel and deterministic;
//!   `slices`: its first cuts of a large kernel (keep one slice of the instructions).
//! - `progress`: the progress line and the summary.

pub mod focus;
pub mod ori_passes;
pub mod pass;
pub mod predicate;
pub mod progress;
pub mod ptx_loops;
pub mod ptx_passes;
pub mod ptx_types;
pub mod ptxas;
pub mod search;
pub mod slices;
pub mod subject;

pub use predicate::Predicate;
pub use search::{Config, Outcome, reduce};
pub use subject::Format;
