//! radbg: a register-allocation debugger for GPU compilers.
//!
//! The layers, in the direction data flows (ARCHITECTURE.md has the full order, which
//! `tests/layers.rs` enforces): `ir` (Ori IR model, parser, printer, validator, PTX
//! import) → `analysis` (CFG, liveness, DCE), `abi` (calling convention checks) →
//! `prepass` (pre-allocation stages), `alloc` (the allocators and their checker) →
//! `engine` (the steppable pipeline, trace, queries) → `why`, `fidelity` → `reduce` →
//! `command` (the one command language) → `ui` (REPL and TUI) → `cli`.
#![forbid(unsafe_code)]

pub mod abi;
pub mod alloc;
pub mod analysis;
pub mod cli;
pub mod command;
pub mod demo;
pub mod engine;
pub mod fidelity;
pub mod fuzzing;
pub mod ir;
pub mod knobs;
pub mod load;
pub mod prepass;
pub mod ptxas_cache;
pub mod reduce;
pub mod synth;
pub mod ui;
pub mod util;
pub mod why;
pub mod work;
