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
pub mod dce;
pub mod divergence;
pub mod liveness;
pub mod liveset;
pub mod query;
pub mod report;
pub mod sparse;
pub mod uninit;

pub use cfg::{Cfg, Loop};
pub use dce::{DceReport, Removed};
pub use liveness::{BlockSet, FileLiveness, Liveness, Sweep};
pub use liveset::LiveSet;
pub use report::live_report;
pub use uninit::UninitWarning;

use crate::ir::model::{Function, VRegId};

/// The vregs live when `f` returns: the vregs bound to its ABI return values
/// (`return 1x8 = %ret`). Callers pass them as `exit_live`.
pub fn exit_live(f: &Function) -> Vec<VRegId> {
    let mut v: Vec<VRegId> = f.abi.iter().flat_map(|a| a.returns.iter().filter_map(|r| r.bind)).collect();
    v.sort();
    v.dedup();
    v
}

/// The vregs defined when `f` starts: ABI parameter vregs and pinned vregs (whose
/// physical register holds a value on entry). Callers pass them to `uninit::find`.
pub fn defined_at_entry(f: &Function) -> Vec<VRegId> {
    let mut v: Vec<VRegId> = f.abi.iter().flat_map(|a| a.params.iter().filter_map(|p| p.bind)).collect();
    v.extend(f.vregs.iter().enumerate().filter(|(_, r)| r.pin.is_some()).map(|(i, _)| VRegId::new(i)));
    v.sort();
    v.dedup();
    v
}
