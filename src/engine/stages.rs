//! The stages around the allocator: prepasses, DCE, the uninitialized-register check,
//! ABI setup and call lowering, the checker. Kept apart from `machine` so the machine
//! reads as the pipeline's table of contents.

use crate::alloc::AllocConfig;
use crate::engine::event::{Event, EventKind};
use crate::engine::machine::Machine;
use crate::ir::Module;

/// What ABI setup established for one function (engine-side copy of the checks).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct AbiOutcome {
    pub checks: Vec<(u32, bool, String, String)>,
    pub error: Option<String>,
}

/// The next prepass event, or `None` when the prepasses are done.
pub fn prepass_step(_m: &mut Machine) -> Option<Event> {
    None
}

pub fn dce(_m: &mut Machine, fi: usize) -> Event {
    Event { func: Some(fi), kind: EventKind::Dce { removed: Vec::new() } }
}

pub fn uninit(_m: &mut Machine, fi: usize) -> Event {
    Event { func: Some(fi), kind: EventKind::Uninit { message: None } }
}

pub fn abi_step(_m: &mut Machine) -> Option<Event> {
    None
}

pub fn lowering(_m: &mut Machine) -> Option<Event> {
    None
}

/// Whether a function takes part in the calling convention.
pub fn uses_abi(m: &Module, fi: usize) -> bool {
    m.functions[fi].abi.is_some()
}

pub fn abi_config(_m: &Machine, _fi: usize, _c: &mut AllocConfig) {}

pub fn check(_m: &Machine, _fi: usize) -> Vec<String> {
    Vec::new()
}
