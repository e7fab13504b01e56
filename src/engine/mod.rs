//! The debugger engine: the whole pipeline as a steppable machine (`machine`), its
//! events (`event`), run options (`options`), and the stages around the allocator
//! (`stages`).
//!
//! Architecture invariant: front ends never reach into the machine; they run commands,
//! and commands call the engine's queries.

pub mod event;
pub mod machine;
pub mod options;
pub mod settings;
pub mod stages;

pub use event::{Event, EventKind, Stage};
pub use machine::Machine;
pub use options::{AllocatorKind, RunOptions};
pub use settings::{ResolvedKnob, Setting, SettingError};
pub mod breakpoint;
pub mod debugger;
pub mod frames;
pub mod query;
pub mod query_source;

pub use debugger::{Debugger, Stop};
