//! `why`: answers to the questions people ask about a kernel's registers — which lines
//! make it use N registers, why a vreg spilled, why allocation failed, whether a block
//! size can launch, what changes under another budget — each claim pointing at a line
//! of the user's own PTX or Ori IR (`Inst::origin` / `VReg::origin`).
//!
//! Owns the explanations (plain data + text + a typed answer + the named facts
//! `expect why ...` checks). Reads only what the engine exposes: a finished [`Machine`]
//! (its function results: budget, allocation, statistics) and the event trace. Must not
//! know about the front ends (REPL, TUI, CLI) beyond returning text and typed answers:
//! JSON is an output format, built from an [`Answer`] (`serde::Serialize`) by the
//! rendering layer (command/, cli/), never here (tests/layers.rs; issue 26).

pub mod compare;
pub mod differ;
pub mod fail;
pub mod launch;
pub mod occupancy;
pub mod registers;
pub mod spill;
pub mod stages;
pub mod sweep;
pub mod whatif;

use serde::Serialize;

use crate::alloc::FunctionAlloc;
use crate::engine::{Debugger, Event, Machine};
use crate::ir::{Function, RegClass};

/// A `why` question as typed (`why registers`, `why spill %v` …).
#[derive(Clone, Debug, PartialEq)]
pub enum WhyCmd {
    Registers(Option<String>),
    Spill(String),
    Fail(Option<RegClass>),
    Launch(u32, Option<u32>),
    Differ,
}

impl WhyCmd {
    /// The question as typed (canonical form).
    pub fn text(&self) -> String {
        match self {
            WhyCmd::Registers(None) => "registers".into(),
            WhyCmd::Registers(Some(f)) => format!("registers {f}"),
            WhyCmd::Spill(v) => format!("spill {v}"),
            WhyCmd::Fail(None) => "fail".into(),
            WhyCmd::Fail(Some(c)) => format!("fail {}", c.name()),
            WhyCmd::Launch(t, None) => format!("launch {t}"),
            WhyCmd::Launch(t, Some(b)) => format!("launch {t} {b}"),
            WhyCmd::Differ => "differ".into(),
        }
    }
}

/// A `whatif` experiment.
#[derive(Clone, Debug, PartialEq)]
pub enum WhatIf {
    MaxRegCount(u32),
    /// Parsed and checked by `engine::settings`, as `set knob` is.
    Knob(crate::engine::ResolvedKnob),
    Sm(crate::ir::Sm),
    LaunchBounds(u32, Option<u32>),
}

/// An answer: text for people, a typed answer the rendering layer serializes for tools
/// (`--json`), named integer facts for `expect why`.
#[derive(Clone, Debug, PartialEq)]
pub struct Explanation {
    pub text: String,
    pub answer: Answer,
}

impl Explanation {
    /// `(name, value)` pairs `expect why ... NAME OP N` can check.
    pub fn facts(&self) -> &[(String, i64)] {
        &self.answer.facts().0
    }
    pub fn fact(&self, name: &str) -> Option<i64> {
        self.facts().iter().find(|(n, _)| n == name).map(|(_, v)| *v)
    }
    /// The fact names, for error messages.
    pub fn fact_names(&self) -> String {
        self.facts().iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>().join(", ")
    }
}

/// The typed answer of each explanation. Serialized (untagged: each answer is its own
/// object) it is the explanation's `--json` form; the `why` answers carry their
/// question as the `"why"` key (`#[serde(tag = "why")]`).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Answer {
    Registers(registers::RegistersAnswer),
    Spill(spill::SpillAnswer),
    Fail(fail::FailAnswer),
    Launch(launch::LaunchAnswer),
    Differ(differ::DifferAnswer),
    WhatIf(whatif::WhatIfAnswer),
    Sweep(sweep::SweepAnswer),
    Compare(compare::CompareAnswer),
}

impl Answer {
    /// The answer's facts (none for a function `why fail` finds unallocated).
    pub fn facts(&self) -> &Facts {
        static NONE: Facts = Facts(Vec::new());
        match self {
            Answer::Registers(a) => &a.facts,
            Answer::Spill(a) => &a.facts,
            Answer::Fail(fail::FailAnswer::Allocated(a)) => &a.facts,
            Answer::Fail(fail::FailAnswer::NotAllocated(_) | fail::FailAnswer::OtherAllocator(_)) => &NONE,
            Answer::Launch(a) => &a.facts,
            Answer::Differ(a) => &a.facts,
            Answer::WhatIf(a) => &a.facts,
            Answer::Sweep(a) => &a.facts,
            Answer::Compare(a) => &a.facts,
        }
    }
}

/// Named integer facts, in the order the explanation computed them; serialized as one
/// `{name: value}` object (a later equal name wins, as in a map).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Facts(pub Vec<(String, i64)>);

impl Serialize for Facts {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.0.iter().map(|(k, v)| (k, v)))
    }
}

/// What an explanation is computed from: a machine that has run to the end, the trace
/// of that run, and the name to print source lines with.
pub struct Ctx<'a> {
    pub m: &'a Machine,
    pub trace: crate::engine::Events<'a>,
    pub file: &'a str,
    /// The finished debugger, when there is one: lets `why spill` revisit the moment of
    /// a decision on a copy (histograms, the guidance queue).
    pub d: Option<&'a Debugger>,
}

impl<'a> Ctx<'a> {
    /// The context of a finished debugger.
    pub fn of(d: &'a Debugger, file: &'a str) -> Ctx<'a> {
        Ctx { m: d.machine(), trace: d.trace().upto(d.cursor()), file, d: Some(d) }
    }

    /// The finished allocation of function `fi`.
    pub fn alloc(&self, fi: usize) -> Option<&'a FunctionAlloc> {
        self.m.funcs.get(fi).and_then(|r| r.alloc.as_deref()).and_then(crate::alloc::run::AllocRun::fatpoint)
    }

    /// The finished allocation of function `fi`, whichever allocator made it.
    pub fn run(&self, fi: usize) -> Option<&'a crate::alloc::run::AllocRun> {
        self.m.funcs.get(fi).and_then(|r| r.alloc.as_deref())
    }

    /// The finished allocation as the explanations read it (either allocator).
    pub fn placement(&self, fi: usize) -> Option<crate::alloc::run::Placement<'a>> {
        self.run(fi).map(crate::alloc::run::AllocRun::placement)
    }

    /// The IR the allocation ended with (spill code included), else the module's.
    pub fn func(&self, fi: usize) -> &'a Function {
        match self.run(fi) {
            Some(a) => a.func(),
            None => &self.m.module.functions[fi],
        }
    }

    /// `file:line` for an origin, `point N` when the instruction has none; PTX with
    /// `.loc` adds the CUDA line (`k.ptx:40 (hot.cu:9)`).
    pub fn at(&self, origin: Option<u32>, point: u32) -> String {
        match origin {
            Some(l) => match self.source(origin) {
                Some(src) => format!("{}:{l} ({src})", self.file),
                None => format!("{}:{l}", self.file),
            },
            None => format!("point {point}"),
        }
    }

    /// The CUDA source line (`hot.cu:9`) of a PTX origin, when the PTX has `.loc`.
    pub fn source(&self, origin: Option<u32>) -> Option<String> {
        origin.and_then(|o| self.m.module.srcloc.label(o))
    }

    /// Resolves a function name (or the given default index).
    pub fn function(&self, name: Option<&str>, default: usize) -> Result<usize, String> {
        let fs = &self.m.module.functions;
        match name {
            None => Ok(default.min(fs.len().saturating_sub(1))),
            Some(n) => self.m.module.function(n).ok_or_else(|| {
                let hint = crate::util::closest(n, fs.iter().map(|f| f.name.as_str()))
                    .map(|s| format!(" (did you mean {s}?)"))
                    .unwrap_or_default();
                format!("no function {n}{hint}")
            }),
        }
    }
}

/// A debugger that has run to the end: the one given when it is there already, else a
/// side copy (the caller's cursor does not move).
pub fn finished(d: &Debugger) -> std::borrow::Cow<'_, Debugger> {
    if d.at_end() && d.cursor() == d.trace().len() {
        return std::borrow::Cow::Borrowed(d);
    }
    let mut c = d.clone_light();
    c.run_to_end();
    std::borrow::Cow::Owned(c)
}

/// Runs a module through the whole pipeline, keeping the trace (batch `radbg why`,
/// `whatif`, `sweep`).
pub fn run_module(module: crate::ir::Module, opts: crate::engine::RunOptions) -> (Machine, Vec<Event>) {
    let mut m = Machine::new(module, opts);
    let mut trace = Vec::new();
    while let Some(e) = m.step() {
        trace.push(e);
    }
    (m, trace)
}

/// Answers a `why` question on a finished run; `fi` is the function at the cursor.
pub fn answer(cmd: &WhyCmd, cx: &Ctx, fi: usize) -> Result<Explanation, String> {
    match cmd {
        WhyCmd::Registers(name) => {
            let fi = cx.function(name.as_deref(), fi)?;
            Ok(registers::explain(cx, fi))
        }
        WhyCmd::Spill(v) => spill::explain(cx, fi, v),
        WhyCmd::Fail(class) => Ok(fail::explain(cx, fi, *class)),
        WhyCmd::Launch(t, b) => launch::explain(cx, fi, *t, *b),
        WhyCmd::Differ => Err("why differ needs two runs (handled by the session)".to_string()),
    }
}

/// Answers `why ...` in a debugging session without moving its cursor.
/// `prev` holds the options of the run before the last `set` (for `why differ`).
pub fn answer_in(
    d: &Debugger,
    file: &str,
    fi: usize,
    cmd: &WhyCmd,
    prev: Option<&crate::engine::RunOptions>,
) -> Result<Explanation, String> {
    if let WhyCmd::Differ = cmd {
        return differ::explain_session(d, file, prev);
    }
    let fin = finished(d);
    let cx = Ctx::of(&fin, file);
    answer(cmd, &cx, fi)
}

/// Pads a table: every row's cells left-aligned to the widest cell of its column.
pub fn table(rows: &[Vec<String>]) -> String {
    let cols = rows.iter().map(|r| r.len()).max().unwrap_or(0);
    let mut width = vec![0usize; cols];
    for r in rows {
        for (i, c) in r.iter().enumerate() {
            width[i] = width[i].max(c.chars().count());
        }
    }
    let mut out = String::new();
    for r in rows {
        let mut line = String::new();
        for (i, c) in r.iter().enumerate() {
            if i + 1 == r.len() {
                line.push_str(c);
            } else {
                line.push_str(c);
                line.push_str(&" ".repeat(width[i] - c.chars().count() + 2));
            }
        }
        out.push_str("  ");
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}
