//! The debugger engine: the whole pipeline as a steppable machine (`machine`, with the
//! stages around the allocator in its child `machine::stages`), its events (`event`),
//! typed settings and the run options they build (`settings`, `settings::options`), the
//! debugger's trace, stored packed (`trace`), the debugger with its checkpoints and
//! call-stack view (`debugger`, `debugger::frames`), breakpoints (`breakpoint`) and the
//! queries the commands and panes read (`query`, `query_source`).
//!
//! Files depend one way, with no cycle: `event` ← `settings` ← `machine` ← `debugger` ←
//! `query_source` ← `query`; a child module (`stages`, `frames`, `options`) serves its
//! parent only. `tests/layers.rs` holds this.
//!
//! Architecture invariant: front ends never reach into the machine; they run commands,
//! and commands call the engine's queries.

pub mod event;
pub mod machine;
pub mod trace;
pub use settings::options;
pub mod settings;
pub mod sweep;
pub use machine::stages;

pub use event::{Event, EventKind, Stage};
pub use machine::Machine;
pub use options::{AllocatorKind, RunOptions};
pub use settings::{ResolvedKnob, Setting, SettingError};
pub use trace::{Events, Trace};
pub mod breakpoint;
pub mod debugger;
pub use debugger::frames;
pub mod query;
pub mod query_source;

pub use debugger::{Debugger, Stop};
