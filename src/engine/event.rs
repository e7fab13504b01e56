//! Pipeline events: one per `Machine::step`. Every event knows its stage and function
//! and explains itself in one line.

use crate::alloc::AllocEvent;
use crate::alloc::briggs::BriggsEvent;
use crate::ir::{Module, RegFile};

/// The stages of the pipeline, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Stage {
    /// Pre-allocation stages modelling what ptxas does before allocating (imported PTX).
    Prepass,
    Cfg,
    Liveness,
    Dce,
    Uninit,
    Abi,
    Lowering,
    Budget,
    Alloc,
    Check,
    Stats,
    Done,
}

impl Stage {
    pub const ALL: [Stage; 12] = [
        Stage::Prepass,
        Stage::Cfg,
        Stage::Liveness,
        Stage::Dce,
        Stage::Uninit,
        Stage::Abi,
        Stage::Lowering,
        Stage::Budget,
        Stage::Alloc,
        Stage::Check,
        Stage::Stats,
        Stage::Done,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Stage::Prepass => "prepass",
            Stage::Cfg => "cfg",
            Stage::Liveness => "liveness",
            Stage::Dce => "dce",
            Stage::Uninit => "uninit",
            Stage::Abi => "abi",
            Stage::Lowering => "lowering",
            Stage::Budget => "budget",
            Stage::Alloc => "alloc",
            Stage::Check => "check",
            Stage::Stats => "stats",
            Stage::Done => "done",
        }
    }

    pub fn from_name(s: &str) -> Option<Stage> {
        Stage::ALL.into_iter().find(|st| st.name() == s)
    }
}

/// One step of the pipeline.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    /// Index of the function the event concerns (None for module-level events).
    pub func: Option<usize>,
    pub kind: EventKind,
}

#[derive(Clone, Debug, PartialEq)]
pub enum EventKind {
    /// A pre-allocation pass changed the IR (or was switched off).
    Prepass {
        /// The pass's (or fidelity rule's) name: a constant, not a copy per event.
        pass: &'static str,
        summary: String,
    },
    BlockRebuild {
        blocks: u32,
        loops: u32,
        max_depth: u32,
    },
    LivenessSweep {
        file: RegFile,
        sweep: u32,
        changed: Vec<usize>,
        last: bool,
    },
    Dce {
        removed: Vec<String>,
    },
    Uninit {
        message: Option<String>,
    },
    /// (Boxed strings, not `String`s: the largest variant sizes every event of the trace.)
    AbiCheck {
        code: u32,
        passed: bool,
        message: Box<str>,
        detail: Box<str>,
    },
    AbiError {
        message: String,
    },
    Lowering {
        summary: String,
    },
    Budget {
        gpr: u32,
        source: Box<str>,
        diagnostics: Box<[String]>,
    },
    Alloc(AllocEvent),
    /// An event of the Chaitin-Briggs allocator (`set allocator briggs`).
    Briggs(BriggsEvent),
    Check {
        errors: Vec<String>,
    },
    Stats {
        lines: Vec<String>,
    },
    Done,
}

impl Event {
    pub fn stage(&self) -> Stage {
        match &self.kind {
            EventKind::Prepass { .. } => Stage::Prepass,
            EventKind::BlockRebuild { .. } => Stage::Cfg,
            EventKind::LivenessSweep { .. } => Stage::Liveness,
            EventKind::Dce { .. } => Stage::Dce,
            EventKind::Uninit { .. } => Stage::Uninit,
            EventKind::AbiCheck { .. } | EventKind::AbiError { .. } => Stage::Abi,
            EventKind::Lowering { .. } => Stage::Lowering,
            EventKind::Budget { .. } => Stage::Budget,
            EventKind::Alloc(_) | EventKind::Briggs(_) => Stage::Alloc,
            EventKind::Check { .. } => Stage::Check,
            EventKind::Stats { .. } => Stage::Stats,
            EventKind::Done => Stage::Done,
        }
    }

    /// A short word naming the kind (`assign`, `sweep`, `abi` …).
    pub fn kind_name(&self) -> &'static str {
        match &self.kind {
            EventKind::Prepass { .. } => "prepass",
            EventKind::BlockRebuild { .. } => "cfg",
            EventKind::LivenessSweep { .. } => "sweep",
            EventKind::Dce { .. } => "dce",
            EventKind::Uninit { .. } => "uninit",
            EventKind::AbiCheck { .. } => "abi-check",
            EventKind::AbiError { .. } => "abi-error",
            EventKind::Lowering { .. } => "lowering",
            EventKind::Budget { .. } => "budget",
            EventKind::Alloc(a) => a.kind(),
            EventKind::Briggs(b) => b.kind(),
            EventKind::Check { .. } => "check",
            EventKind::Stats { .. } => "stats",
            EventKind::Done => "done",
        }
    }

    /// One line explaining the event. `m` is the module as it was when the event
    /// happened (names of vregs added later resolve too: ids only grow).
    pub fn describe(&self, m: &Module) -> String {
        self.describe_with(m, None)
    }

    /// Like `describe`, naming vregs from `f` (the function as the allocator has it,
    /// with spill temporaries) when given.
    pub fn describe_with(&self, m: &Module, f: Option<&crate::ir::Function>) -> String {
        let fname = self.func.and_then(|i| m.functions.get(i)).map(|f| f.name.as_str()).unwrap_or("");
        let body = match &self.kind {
            EventKind::Prepass { pass, summary } => format!("{pass}: {summary}"),
            EventKind::BlockRebuild { blocks, loops, max_depth } => {
                format!("blocks rebuilt: {blocks} blocks, {loops} loops, max depth {max_depth}")
            }
            EventKind::LivenessSweep { file, sweep, changed, last } => {
                if *last {
                    format!("liveness {} sweep {sweep}: no change — fixed point", file.prefix())
                } else {
                    format!("liveness {} sweep {sweep}: {} block(s) changed", file.prefix(), changed.len())
                }
            }
            EventKind::Dce { removed } => format!("dead-code elimination removed {} instruction(s)", removed.len()),
            EventKind::Uninit { message } => match message {
                Some(m) => m.clone(),
                None => "no uninitialized registers".to_string(),
            },
            EventKind::AbiCheck { code, passed, message, detail } => {
                if *passed {
                    format!("ABI {code} ok: {detail}")
                } else {
                    format!("ABI {code} warning: {message}")
                }
            }
            EventKind::AbiError { message } => format!("ABI error: {message}"),
            EventKind::Lowering { summary } => summary.clone(),
            EventKind::Budget { gpr, source, diagnostics } => {
                let mut s = format!("register budget {gpr} (set by {source})");
                for d in diagnostics.iter() {
                    s.push_str("; ");
                    s.push_str(d);
                }
                s
            }
            EventKind::Alloc(a) => match f.or_else(|| self.func.and_then(|i| m.functions.get(i))) {
                Some(f) => a.describe(f),
                None => a.kind().to_string(),
            },
            EventKind::Briggs(b) => match f.or_else(|| self.func.and_then(|i| m.functions.get(i))) {
                Some(f) => b.describe(f),
                None => b.kind().to_string(),
            },
            EventKind::Check { errors } => {
                if errors.is_empty() {
                    "checker: allocation valid".to_string()
                } else {
                    format!("checker: {} fault(s): {}", errors.len(), errors[0])
                }
            }
            EventKind::Stats { lines } => lines.last().cloned().unwrap_or_default().trim().to_string(),
            EventKind::Done => "pipeline finished".to_string(),
        };
        if fname.is_empty() { body } else { format!("[{fname}] {body}") }
    }
}
