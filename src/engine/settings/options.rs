//! Options of a pipeline run that are not part of the module: command-line and
//! session overrides (`--sm`, `--maxrregcount`, `--knob`, `set dce on` …), built by
//! applying typed settings (`engine::settings`) one after another.

use std::collections::BTreeSet;

use crate::engine::settings::ResolvedKnob;
use crate::ir::Sm;

pub use crate::alloc::run::AllocatorKind;

/// Run options, in the order they apply over the module's own settings.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct RunOptions {
    pub sm: Option<Sm>,
    pub maxrregcount: Option<u32>,
    /// Knob overrides, resolved and checked when they were typed (`engine::settings`),
    /// applied after the module's `.knob` lines (later wins).
    pub knobs: Vec<ResolvedKnob>,
    /// Run dead-code elimination before allocation.
    pub dce: bool,
    pub allocator: AllocatorKind,
    /// Pre-allocation passes switched off by name (`set stage schedule off`).
    pub disabled_passes: BTreeSet<String>,
    /// The module came from PTX: the pre-allocation passes apply.
    pub imported: bool,
    /// Skip the independent checker (a sweep row reads only the figures; every session
    /// kernel and budget is checked by the tests, and `radbg run` checks any one row).
    pub skip_check: bool,
    /// A batch run that reads only the events and each function's statistics (`radbg
    /// run`): the machine keeps no copy of the module as loaded, and drops a function's
    /// CFG and liveness once the stages before the ABI are through with it and its
    /// allocation once its statistics are out — memory is the module's IR plus the
    /// function in hand, not every function's working data (issue 25). Queries, the
    /// debugger and `why` need those and leave this off.
    pub batch: bool,
    /// Record, per function, the R peak after each prepass that changes it
    /// (`prepass::record`): `radbg why` reads the record instead of replaying the passes.
    pub record_stages: bool,
}

impl RunOptions {
    /// Overrides a knob from code (tests, benches): `key` resolved and `value` checked.
    pub fn set_knob(
        &mut self,
        key: crate::ir::KnobKey,
        value: crate::ir::KnobValue,
    ) -> Result<(), crate::knobs::KnobError> {
        self.knobs.push(ResolvedKnob::new(&key, &value)?);
        Ok(())
    }

    /// Whether the pre-allocation stage or fidelity rule `name` applies: imported PTX
    /// only, unless switched off.
    pub fn stage_on(&self, name: &str) -> bool {
        self.imported && !self.disabled_passes.contains(name)
    }

    /// Whether imported PTX takes a budget below ptxas's floor as given (the rule
    /// `floor` switched off; `ir::Options::budget_floor_off`).
    pub fn budget_floor_off(&self) -> bool {
        self.imported && !self.stage_on("floor")
    }
}
