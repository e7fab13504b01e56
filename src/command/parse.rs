//! Parsing the `.radbg` command language (`grammar/radbg.ebnf`): one line may hold
//! several commands separated by `;`; `#` starts a comment. Errors carry a byte span
//! over the offending word so the REPL can draw a caret and scripts can report
//! `file:line:col`, with a "did you mean" where one is plausible.

use crate::command::table;
use crate::engine::Stage;
use crate::engine::breakpoint::{BpKind, COND_VARS, CmpOp, Condition};
pub use crate::engine::debugger::Target;
use crate::ir::RegClass;

/// A parsed command.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    Load(String),
    Run,
    Step(usize),
    Next,
    Finish,
    Continue,
    ReverseStep(usize),
    ReverseNext,
    ReverseContinue,
    Goto(usize),
    Break(BpKind),
    InfoBreakpoints,
    Delete(Option<u32>),
    Enable(u32),
    Disable(u32),
    Where,
    Events(usize),
    Func(Option<String>),
    Ir(Option<u32>, Option<u32>),
    Print(String),
    Live(Option<u32>),
    /// `source-view [LINE]` / `list`: the CUDA source lines with their live registers.
    SourceView(Option<u32>),
    Constraints(Option<String>),
    Hist,
    /// The Chaitin-Briggs graph view (`graph`).
    Graph,
    State(Option<u32>),
    Attempts(Option<RegClass>),
    Abi,
    Stats,
    Knobs(bool),
    Set(Setting),
    Diff(DiffWhat),
    Why(crate::why::WhyCmd),
    WhatIf(crate::why::WhatIf),
    Sweep(crate::why::sweep::Axis, Vec<i64>),
    /// `reduce [into FILE] PREDICATE`: the predicate as written (checked when it runs).
    Reduce(String),
    Expect(Expectation),
    // gdb's words where the concept maps (issue 27).
    /// `tbreak`: a breakpoint deleted at its first stop.
    TBreak(BpKind),
    /// `condition N [EXPR]`: set (or, without EXPR, remove) a breakpoint's condition.
    Condition(u32, Option<Condition>),
    /// `ignore N COUNT`: pass over the next COUNT hits of breakpoint N.
    Ignore(u32, u32),
    /// `backtrace`: the pipeline stack.
    Backtrace,
    /// `frame [N]`: select frame N of the backtrace (show the selected one without N).
    Frame(Option<usize>),
    /// `up [N]` / `down [N]`: select the frame N levels out / in.
    Up(usize),
    Down(usize),
    /// `advance LOCATION` / `until LOCATION`: run to an event number or the next event a
    /// breakpoint of that kind would stop at (breakpoints still stop it).
    Advance(Target),
    ReverseFinish,
    /// `start`: restart and run to the allocator's first event.
    Start,
    /// `source FILE`: run the commands of a `.radbg` file.
    Source(String),
    /// `display [EXPR]`: a command shown after every stop (all of them now, without EXPR).
    Display(Option<String>),
    /// `undisplay [N]`: drop display N (all without N).
    Undisplay(Option<u32>),
    InfoDisplay,
    /// `info registers [CLASS]`: the assignments so far.
    InfoRegisters(Option<RegClass>),
    Export {
        file: String,
        what: String,
        /// `export json!`: overwrite an existing file.
        force: bool,
    },
    Echo(String),
    Help(Option<String>),
    Quit,
}

/// `set WHAT VALUE`: a typed setting, parsed by the parser the command line shares.
pub use crate::engine::settings::Setting;

#[derive(Clone, Debug, PartialEq)]
pub enum DiffWhat {
    Attempts(RegClass, u32, u32),
    Runs,
    State(usize, usize),
    Allocators,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Expectation {
    Assigned(String, String),
    Attempts(RegClass, CmpOp, i64),
    Abi(u32),
    Stats(String, CmpOp, i64),
    Fails,
    Ok,
    Event(String),
    Cursor(CmpOp, i64),
    /// `expect why QUESTION FACT OP N`: a named fact of a `why` answer.
    Why(crate::why::WhyCmd, String, CmpOp, i64),
}

/// A parse error: byte span in the line, message, optional hint.
#[derive(Clone, Debug, PartialEq)]
pub struct CmdError {
    pub start: usize,
    pub end: usize,
    pub message: String,
    pub hint: Option<String>,
}

impl CmdError {
    fn at(w: &Word, message: impl Into<String>) -> CmdError {
        CmdError { start: w.start, end: w.end, message: message.into(), hint: None }
    }
    fn hint(mut self, h: impl Into<String>) -> CmdError {
        self.hint = Some(h.into());
        self
    }

    /// `message` plus the line with a caret under the span.
    /// A long line is shown once, cut with "…" around the error so its column stays in
    /// view; the message and hint are cut too (they quote the user's words).
    pub fn render(&self, line: &str) -> String {
        use crate::util::{MAX_SHOWN, clip, window};
        let (shown, start) = window(line, self.start, MAX_SHOWN);
        let mut s = format!("error: {}\n  {shown}\n  ", clip(&self.message, 2 * MAX_SHOWN));
        let room = shown.chars().count().saturating_sub(start).max(1);
        let span = line.get(self.start.min(line.len())..self.end.min(line.len())).unwrap_or("");
        let width = span.chars().take(room).count().max(1);
        s.push_str(&" ".repeat(start));
        s.push_str(&"^".repeat(width));
        if let Some(h) = &self.hint {
            s.push_str(&format!("\n  = help: {}", clip(h, 2 * MAX_SHOWN)));
        }
        s
    }
}

/// A word of the line with its byte span.
#[derive(Clone, Debug, PartialEq)]
struct Word<'a> {
    text: &'a str,
    start: usize,
    end: usize,
}

/// Splits a line into commands (`;`), each a list of words; drops `#` comments.
fn split(line: &str) -> Vec<Vec<Word<'_>>> {
    let line = match line.find('#') {
        Some(i) => &line[..i],
        None => line,
    };
    let mut cmds = vec![Vec::new()];
    let mut start = None;
    for (i, ch) in line.char_indices().chain(std::iter::once((line.len(), ' '))) {
        let sep = ch.is_whitespace() || ch == ';';
        match (start, sep) {
            (None, false) => start = Some(i),
            (Some(s), true) => {
                cmds.last_mut().expect("one").push(Word { text: &line[s..i], start: s, end: i });
                start = None;
            }
            _ => {}
        }
        if ch == ';' && i < line.len() {
            cmds.push(Vec::new());
        }
    }
    cmds.into_iter().filter(|c| !c.is_empty()).collect()
}

/// Parses one line into commands.
pub fn parse_line(line: &str) -> Result<Vec<Command>, CmdError> {
    split(line).into_iter().map(|words| parse_words(line, &words)).collect()
}

fn end_of(line: &str, words: &[Word]) -> Word<'static> {
    let e = words.last().map(|w| w.end).unwrap_or(line.len());
    Word { text: "", start: e, end: e + 1 }
}

fn number<T: std::str::FromStr>(w: &Word, what: &str, max: u64) -> Result<T, CmdError> {
    let v: u64 = w.text.parse().map_err(|_| CmdError::at(w, format!("expected {what}, found '{}'", w.text)))?;
    if v > max {
        return Err(CmdError::at(w, format!("{what} {v} is out of range (at most {max})")));
    }
    w.text.parse().map_err(|_| CmdError::at(w, format!("expected {what}, found '{}'", w.text)))
}

/// The register classes commands take (and completion offers): the allocated ones.
/// The barrier classes B and UB are outside every allocator, so no attempt, assignment
/// or failure can name them.
pub fn classes() -> impl Iterator<Item = RegClass> {
    RegClass::ALL.into_iter().filter(|c| c.is_allocatable())
}

fn class(w: &Word) -> Result<RegClass, CmdError> {
    match RegClass::from_name(w.text) {
        Some(c) if c.is_allocatable() => Ok(c),
        Some(_) => Err(CmdError::at(w, format!("register class '{}' is not allocated (a barrier class)", w.text))
            .hint(format!("classes: {}", classes().map(|c| c.name()).collect::<Vec<_>>().join(" ")))),
        None => {
            let e = CmdError::at(w, format!("unknown register class '{}'", w.text));
            Err(match crate::util::closest(w.text, classes().map(|c| c.name())) {
                Some(s) => e.hint(format!("did you mean {s}?")),
                None => e.hint(format!("classes: {}", classes().map(|c| c.name()).collect::<Vec<_>>().join(" "))),
            })
        }
    }
}

fn on_off(w: &Word) -> Result<bool, CmdError> {
    crate::engine::settings::on_off(w.text).map_err(|e| CmdError::at(w, e.to_string()))
}

fn vreg(w: &Word) -> Result<String, CmdError> {
    if w.text.starts_with('%') && w.text.len() > 1 {
        Ok(w.text.to_string())
    } else {
        Err(CmdError::at(w, format!("expected a vreg name like %r12, found '{}'", w.text)))
    }
}

fn cmp(w: &Word) -> Result<CmpOp, CmdError> {
    CmpOp::parse(w.text)
        .ok_or_else(|| CmdError::at(w, format!("expected a comparison (== != < <= > >=), found '{}'", w.text)))
}

fn signed(w: &Word) -> Result<i64, CmdError> {
    w.text.parse().map_err(|_| CmdError::at(w, format!("expected a number, found '{}'", w.text)))
}

/// Whether a command line may be a `display` expression: one that only shows
/// something (an Inspecting, Comparing or Explaining command of the table, `info`,
/// `knobs`), so showing it after every stop changes nothing.
fn displayable(line: &str) -> bool {
    use table::Category::{Comparing, Explaining, Inspecting};
    let head = line.split_whitespace().next().unwrap_or("");
    table::find(head).is_some_and(|c| {
        (matches!(c.category, Inspecting | Comparing | Explaining) && !matches!(c.name, "display" | "undisplay"))
            || matches!(c.name, "info" | "knobs")
    })
}

/// Whether a command moves the cursor (after it, `display` expressions are shown).
pub fn moves(c: &Command) -> bool {
    matches!(
        c,
        Command::Run
            | Command::Step(_)
            | Command::Next
            | Command::Finish
            | Command::Continue
            | Command::ReverseStep(_)
            | Command::ReverseNext
            | Command::ReverseContinue
            | Command::ReverseFinish
            | Command::Goto(_)
            | Command::Advance(_)
            | Command::Start
            | Command::Load(_)
    ) || matches!(c, Command::Set(s) if !matches!(s, Setting::StopOnError(_)))
}

/// Limit on step counts and event numbers, to keep typos from running for hours.
pub const MAX_COUNT: u64 = 100_000_000;

// ---------------------------------------------------------------- sub-words
// What each command accepts after its name, kept beside the parser that accepts them:
// `ui::complete` offers exactly these lists, and a test there checks that completion
// offers what this parser accepts and nothing else. The `*_ALIASES` lists are other
// spellings the parser takes and completion does not offer.

pub const BREAK_KINDS: &[&str] = &["assign", "spill", "attempt", "iteration", "stage", "abi", "fail", "checker"];
pub const ATTEMPT_FILTERS: &[&str] = &["class", "spill", "nospill"];
pub const ATTEMPT_FILTER_ALIASES: &[&str] = &["SPILL", "NOSPILL"];
pub const INFO_TOPICS: &[&str] = &["breakpoints", "watchpoints", "registers", "locals", "frame", "stack", "display"];
/// gdb's abbreviations of info topics (`info b`, `i r`).
pub const INFO_ALIASES: &[(&str, &str)] = &[
    ("b", "breakpoints"),
    ("break", "breakpoints"),
    ("r", "registers"),
    ("all-registers", "registers"),
    ("f", "frame"),
    ("s", "stack"),
];
pub const SETTINGS: &[&str] = &["knob", "maxrregcount", "sm", "dce", "allocator", "stage", "stop-on-error"];
pub const ON_OFF: &[&str] = &[crate::engine::settings::ON_WORDS[0], crate::engine::settings::OFF_WORDS[0]];
/// `set allocator` (other spellings: `AllocatorKind::ALIASES`).
pub const ALLOCATORS: &[&str] = crate::engine::AllocatorKind::NAMES;
pub const DIFFS: &[&str] = &["attempts", "runs", "state", "allocators"];
pub const EXPECTS: &[&str] = &["attempts", "abi", "stats", "fails", "ok", "event", "cursor", "why"];
/// `expect event KIND`: the words `Event::kind_name` gives — the engine's stage events,
/// the fat-point allocator's (`AllocEvent::kind`) and Chaitin-Briggs's
/// (`BriggsEvent::kind`). A test steps kernels through both allocators and checks
/// every kind they produce is here.
pub const EVENT_KINDS: &[&str] = &[
    // engine::Event::kind_name
    "prepass",
    "cfg",
    "sweep",
    "dce",
    "uninit",
    "abi-check",
    "abi-error",
    "lowering",
    "budget",
    "check",
    "stats",
    "done",
    // alloc::AllocEvent::kind
    "bit-spill",
    "class-start",
    "precolor",
    "attempt-start",
    "constraints",
    "order",
    "assign",
    "attempt-end",
    "best",
    "guidance",
    "spill-code",
    "relive",
    "class-end",
    "finalize",
    // alloc::briggs::BriggsEvent::kind (spill-code and finalize as above)
    "iteration-start",
    "build",
    "coalesced",
    "worklists",
    "node-removed",
    "frozen",
    "spill-candidate",
    "colour-assigned",
    "actual-spill",
    "iteration-end",
];
pub const STAT_FIELDS: &[&str] = &["registers", "spill-stores", "spill-loads", "stack-frame", "barriers"];
pub const WHYS: &[&str] = &["registers", "spill", "fail", "launch", "differ"];
pub const WHY_ALIASES: &[&str] = &["regs"];
pub const WHATIFS: &[&str] = &["maxrregcount", "knob", "sm", "launch-bounds"];
pub const SWEEP_AXES: &[&str] = &["maxrregcount", "knob"];
pub const EXPORT_FORMATS: &[&str] = &["json"];
pub const EXPORTS: &[&str] =
    &["trace", "ir", "live", "constraints", "hist", "state", "attempts", "abi", "stats", "knobs", "graph"];
pub const KNOBS_ARGS: &[&str] = &["all"];

/// The canonical info topic of a word (`b` → `breakpoints`).
fn info_topic(word: &str) -> Option<&'static str> {
    INFO_TOPICS
        .iter()
        .copied()
        .find(|t| *t == word)
        .or_else(|| INFO_ALIASES.iter().find(|(a, _)| *a == word).map(|(_, t)| *t))
}

fn parse_words(line: &str, w: &[Word]) -> Result<Command, CmdError> {
    let head = &w[0];
    let spec = table::find(head.text).ok_or_else(|| {
        let e = CmdError::at(head, format!("unknown command '{}'", head.text));
        match table::suggest(head.text) {
            Some(s) => e.hint(format!("{s} (try 'help')")),
            None => e.hint("try 'help'"),
        }
    })?;
    let args = &w[1..];
    let need = |i: usize, what: &str| -> Result<&Word, CmdError> {
        args.get(i).ok_or_else(|| {
            CmdError::at(&end_of(line, w), format!("{} needs {what}", spec.name))
                .hint(format!("usage: {}", spec.synopsis))
        })
    };
    let too_many = |n: usize| -> Result<(), CmdError> {
        match args.get(n) {
            Some(x) => Err(CmdError::at(x, format!("unexpected '{}' after {}", x.text, spec.name))
                .hint(format!("usage: {}", spec.synopsis))),
            None => Ok(()),
        }
    };
    let rest = |i: usize| -> String {
        match args.get(i) {
            Some(x) => line[x.start..args.last().expect("some").end].to_string(),
            None => String::new(),
        }
    };
    let count = |i: usize| -> Result<usize, CmdError> {
        match args.get(i) {
            Some(x) => number::<usize>(x, "a count", MAX_COUNT),
            None => Ok(1),
        }
    };
    let cmd = match spec.name {
        "load" => {
            need(0, "a file")?;
            Command::Load(rest(0).trim().to_string())
        }
        "run" => {
            too_many(0)?;
            Command::Run
        }
        "step" => {
            too_many(1)?;
            Command::Step(count(0)?)
        }
        "next" => {
            too_many(0)?;
            Command::Next
        }
        "finish" => {
            too_many(0)?;
            Command::Finish
        }
        "continue" => {
            too_many(0)?;
            Command::Continue
        }
        "reverse-step" => {
            too_many(1)?;
            Command::ReverseStep(count(0)?)
        }
        "reverse-next" => {
            too_many(0)?;
            Command::ReverseNext
        }
        "reverse-continue" => {
            too_many(0)?;
            Command::ReverseContinue
        }
        "goto" => {
            too_many(1)?;
            Command::Goto(number(need(0, "an event number")?, "an event number", MAX_COUNT)?)
        }
        "break" => Command::Break(parse_break(line, w, args)?),
        "watch" => {
            too_many(1)?;
            let x = need(0, "a state offset like +1564")?;
            let off = x.text.trim_start_matches('+');
            let offset = off
                .parse::<u32>()
                .map_err(|_| CmdError::at(x, format!("expected an offset like +1564, found '{}'", x.text)))?;
            if offset > 1744 {
                return Err(CmdError::at(x, format!("offset +{offset} is past the state object (last field +1744)")));
            }
            Command::Break(BpKind::Watch { offset })
        }
        "info" => {
            let x = need(0, "what to show")?;
            let topic = info_topic(x.text);
            too_many(if topic == Some("registers") { 2 } else { 1 })?;
            match topic {
                Some("breakpoints" | "watchpoints") => Command::InfoBreakpoints,
                Some("registers") => Command::InfoRegisters(args.get(1).map(class).transpose()?),
                Some("locals") => Command::Live(None),
                Some("frame") => Command::Frame(None),
                Some("stack") => Command::Backtrace,
                Some("display") => Command::InfoDisplay,
                _ => {
                    let e = CmdError::at(x, format!("unknown info topic '{}'", x.text));
                    return Err(match crate::util::closest(x.text, INFO_TOPICS.iter().copied()) {
                        Some(s) => e.hint(format!("did you mean 'info {s}'?")),
                        None => e.hint(format!("topics: {}", INFO_TOPICS.join(", "))),
                    });
                }
            }
        }
        "delete" => {
            too_many(1)?;
            Command::Delete(args.first().map(|x| number(x, "a breakpoint number", u32::MAX as u64)).transpose()?)
        }
        "enable" | "disable" => {
            too_many(1)?;
            let n = number(need(0, "a breakpoint number")?, "a breakpoint number", u32::MAX as u64)?;
            if spec.name == "enable" { Command::Enable(n) } else { Command::Disable(n) }
        }
        "where" => {
            too_many(0)?;
            Command::Where
        }
        "events" => {
            too_many(1)?;
            Command::Events(match args.first() {
                Some(x) => number(x, "a count", MAX_COUNT)?,
                None => 10,
            })
        }
        "func" => {
            too_many(1)?;
            Command::Func(args.first().map(|x| x.text.to_string()))
        }
        "ir" => {
            too_many(2)?;
            let a = args.first().map(|x| number(x, "a program point", u32::MAX as u64)).transpose()?;
            let b = args.get(1).map(|x| number(x, "a line count", 100_000)).transpose()?;
            Command::Ir(a, b)
        }
        "print" => {
            too_many(1)?;
            Command::Print(vreg(need(0, "a vreg")?)?)
        }
        "source-view" => {
            too_many(1)?;
            Command::SourceView(args.first().map(|x| number(x, "a source line", u32::MAX as u64)).transpose()?)
        }
        "live" => {
            too_many(1)?;
            Command::Live(args.first().map(|x| number(x, "a program point", u32::MAX as u64)).transpose()?)
        }
        "constraints" => {
            too_many(1)?;
            Command::Constraints(args.first().map(vreg).transpose()?)
        }
        "hist" => {
            too_many(0)?;
            Command::Hist
        }
        "graph" => {
            too_many(0)?;
            Command::Graph
        }
        "state" => {
            too_many(1)?;
            let off = args
                .first()
                .map(|x| {
                    x.text
                        .trim_start_matches('+')
                        .parse::<u32>()
                        .map_err(|_| CmdError::at(x, format!("expected an offset like +1564, found '{}'", x.text)))
                })
                .transpose()?;
            Command::State(off)
        }
        "attempts" => {
            too_many(1)?;
            Command::Attempts(args.first().map(class).transpose()?)
        }
        "abi" => {
            too_many(0)?;
            Command::Abi
        }
        "stats" => {
            too_many(0)?;
            Command::Stats
        }
        "knobs" => {
            too_many(1)?;
            match args.first() {
                Some(x) if x.text == "all" => Command::Knobs(true),
                Some(x) => return Err(CmdError::at(x, format!("expected 'all', found '{}'", x.text))),
                None => Command::Knobs(false),
            }
        }
        "set" => Command::Set(parse_set(line, w, args)?),
        "diff" => Command::Diff(parse_diff(line, w, args)?),
        "why" => Command::Why(parse_why(line, w, args)?),
        "whatif" => Command::WhatIf(parse_whatif(line, w, args)?),
        "sweep" => {
            use crate::why::sweep::{Axis, DEFAULT_BUDGETS, budget_range, parse_range};
            too_many(2)?;
            match (args.first(), args.get(1)) {
                (None, _) => Command::Sweep(Axis::MaxRegCount, DEFAULT_BUDGETS.iter().map(|&b| b as i64).collect()),
                (Some(k), None) if SWEEP_AXES.contains(&k.text) => {
                    return Err(CmdError::at(&end_of(line, w), format!("sweep {} needs a range", k.text))
                        .hint(format!("usage: {}", spec.synopsis)));
                }
                (Some(k), Some(r)) if k.text == "maxrregcount" => {
                    Command::Sweep(Axis::MaxRegCount, budget_range(r.text).map_err(|e| CmdError::at(r, e))?)
                }
                (Some(k), Some(r)) if k.text == "knob" => {
                    let (name, range) = r
                        .text
                        .split_once('=')
                        .ok_or_else(|| CmdError::at(r, format!("expected NAME=A..B, found '{}'", r.text)))?;
                    crate::engine::settings::knob_name(name).map_err(|e| CmdError::at(r, e.to_string()))?;
                    Command::Sweep(Axis::Knob(name.to_string()), parse_range(range).map_err(|e| CmdError::at(r, e))?)
                }
                (Some(k), _) => {
                    return Err(CmdError::at(
                        k,
                        format!("expected maxrregcount or knob and a range, found '{}'", k.text),
                    )
                    .hint(format!("usage: {}", spec.synopsis)));
                }
            }
        }
        "reduce" => {
            need(0, "a predicate")?;
            Command::Reduce(rest(0))
        }
        "expect" => Command::Expect(parse_expect(line, w, args)?),
        "export" => {
            let fmt = need(0, "a format")?;
            // `json!` overwrites an existing file; plain `json` refuses to (issue 28).
            let force = fmt.text == "json!";
            if fmt.text != "json" && !force {
                return Err(CmdError::at(fmt, format!("unknown export format '{}'", fmt.text))
                    .hint("'json', or 'json!' to overwrite an existing file"));
            }
            let file = need(1, "a file")?.text.to_string();
            too_many(3)?;
            let what = args.get(2).map(|x| x.text.to_string()).unwrap_or_else(|| "trace".into());
            const WHAT: &[&str] = EXPORTS;
            if !WHAT.contains(&what.as_str()) {
                let x = &args[2];
                let e = CmdError::at(x, format!("cannot export '{what}'"));
                return Err(match crate::util::closest(&what, WHAT.iter().copied()) {
                    Some(s) => e.hint(format!("did you mean '{s}'?")),
                    None => e.hint(format!("one of: {}", WHAT.join(", "))),
                });
            }
            Command::Export { file, what, force }
        }
        "echo" => Command::Echo(rest(0)),
        "help" => {
            too_many(1)?;
            Command::Help(args.first().map(|x| x.text.to_string()))
        }
        "quit" => {
            too_many(0)?;
            Command::Quit
        }
        "tbreak" => Command::TBreak(parse_break(line, w, args)?),
        "condition" => {
            let n = number(need(0, "a breakpoint number")?, "a breakpoint number", u32::MAX as u64)?;
            let cond = if args.len() > 1 { Some(parse_cond(line, w, &args[1..])?) } else { None };
            Command::Condition(n, cond)
        }
        "ignore" => {
            too_many(2)?;
            let n = number(need(0, "a breakpoint number")?, "a breakpoint number", u32::MAX as u64)?;
            Command::Ignore(n, number(need(1, "a count")?, "a count", u32::MAX as u64)?)
        }
        "backtrace" => {
            too_many(0)?;
            Command::Backtrace
        }
        "frame" => {
            too_many(1)?;
            Command::Frame(args.first().map(|x| number(x, "a frame number", 16)).transpose()?)
        }
        "up" | "down" => {
            too_many(1)?;
            let n = match args.first() {
                Some(x) => number(x, "a frame count", 16)?,
                None => 1,
            };
            if spec.name == "up" { Command::Up(n) } else { Command::Down(n) }
        }
        "until" | "advance" => match args.first() {
            None if spec.name == "until" => Command::Next,
            None => {
                return Err(CmdError::at(&end_of(line, w), "advance needs a location")
                    .hint(format!("usage: {}", spec.synopsis)));
            }
            Some(x) if x.text.chars().all(|c| c.is_ascii_digit()) => {
                too_many(1)?;
                Command::Advance(Target::Event(number(x, "an event number", MAX_COUNT)?))
            }
            Some(_) => Command::Advance(Target::Kind(parse_break(line, w, args)?)),
        },
        "reverse-finish" => {
            too_many(0)?;
            Command::ReverseFinish
        }
        "start" => {
            too_many(0)?;
            Command::Start
        }
        "source" => {
            need(0, "a file")?;
            Command::Source(rest(0).trim().to_string())
        }
        "display" => {
            if args.is_empty() {
                Command::Display(None)
            } else {
                let expr = rest(0);
                // A bare vreg is gdb's `display x`: print it.
                let shown = if expr.starts_with('%') && args.len() == 1 { format!("print {expr}") } else { expr };
                let first = parse_line(&shown).map_err(|e| CmdError {
                    start: args[0].start + e.start.min(shown.len()),
                    end: args[0].start + e.end,
                    ..e
                })?;
                if first.len() != 1 || !displayable(&shown) {
                    return Err(CmdError::at(&args[0], "display needs one command that does not move the cursor")
                        .hint("e.g. display live, display hist, display %x3"));
                }
                Command::Display(Some(shown))
            }
        }
        "undisplay" => {
            too_many(1)?;
            Command::Undisplay(args.first().map(|x| number(x, "a display number", u32::MAX as u64)).transpose()?)
        }
        other => unreachable!("command {other} in the table but not parsed"),
    };
    Ok(cmd)
}

fn parse_break(line: &str, w: &[Word], args: &[Word]) -> Result<BpKind, CmdError> {
    let usage = "break (assign|spill) %VREG [if COND] | attempt [N] [class C] [spill|nospill] | iteration [N] | stage NAME | abi CODE | fail | checker";
    let kind = args
        .first()
        .ok_or_else(|| CmdError::at(&end_of(line, w), "break needs what to stop on").hint(format!("usage: {usage}")))?;
    let extra = |n: usize| -> Result<(), CmdError> {
        match args.get(n) {
            Some(x) => Err(CmdError::at(x, format!("unexpected '{}'", x.text)).hint(format!("usage: {usage}"))),
            None => Ok(()),
        }
    };
    Ok(match kind.text {
        "assign" => {
            let v = vreg(args.get(1).ok_or_else(|| CmdError::at(&end_of(line, w), "break assign needs a vreg"))?)?;
            let cond = match args.get(2) {
                None => None,
                Some(x) if x.text == "if" => Some(parse_cond(line, w, &args[3..])?),
                Some(x) => return Err(CmdError::at(x, format!("expected 'if', found '{}'", x.text))),
            };
            BpKind::Assign { vreg: v, cond }
        }
        "spill" => {
            extra(2)?;
            BpKind::Spill { vreg: args.get(1).map(vreg).transpose()? }
        }
        "attempt" => {
            let mut number_ = None;
            let mut class_ = None;
            let mut spill = None;
            let mut i = 1;
            while let Some(x) = args.get(i) {
                match x.text {
                    "class" => {
                        class_ = Some(class(
                            args.get(i + 1)
                                .ok_or_else(|| CmdError::at(&end_of(line, w), "class needs a register class"))?,
                        )?);
                        i += 1;
                    }
                    "spill" | "SPILL" => spill = Some(true),
                    "nospill" | "NOSPILL" => spill = Some(false),
                    t if t.chars().all(|c| c.is_ascii_digit()) => number_ = Some(number(x, "an attempt number", 64)?),
                    _ => {
                        return Err(CmdError::at(x, format!("unexpected '{}'", x.text)).hint(format!("usage: {usage}")));
                    }
                }
                i += 1;
            }
            BpKind::Attempt { number: number_, class: class_, spill }
        }
        "iteration" => {
            extra(2)?;
            BpKind::Iteration { number: args.get(1).map(|x| number(x, "an iteration number", 1_000_000)).transpose()? }
        }
        "stage" => {
            let x = args.get(1).ok_or_else(|| CmdError::at(&end_of(line, w), "break stage needs a stage name"))?;
            extra(2)?;
            let st = Stage::from_name(x.text).ok_or_else(|| {
                let e = CmdError::at(x, format!("unknown stage '{}'", x.text));
                match crate::util::closest(x.text, Stage::ALL.iter().map(|s| s.name())) {
                    Some(s) => e.hint(format!("did you mean '{s}'?")),
                    None => {
                        e.hint(format!("stages: {}", Stage::ALL.iter().map(|s| s.name()).collect::<Vec<_>>().join(" ")))
                    }
                }
            })?;
            BpKind::Stage(st)
        }
        "abi" => {
            let x = args.get(1).ok_or_else(|| CmdError::at(&end_of(line, w), "break abi needs a warning code"))?;
            extra(2)?;
            let code: u32 = number(x, "a warning code", 9999)?;
            if !(7001..=7999).contains(&code) {
                return Err(CmdError::at(x, format!("{code} is not an ABI warning code (7001-7020, 7801)")));
            }
            BpKind::Abi(code)
        }
        "fail" => {
            extra(1)?;
            BpKind::Fail
        }
        "checker" => {
            extra(1)?;
            BpKind::Checker
        }
        other => {
            let e = CmdError::at(kind, format!("unknown breakpoint kind '{other}'"));
            return Err(match crate::util::closest(other, BREAK_KINDS.iter().copied()) {
                Some(s) => e.hint(format!("did you mean '{s}'?")),
                None => e.hint(format!("usage: {usage}")),
            });
        }
    })
}

fn parse_cond(line: &str, w: &[Word], a: &[Word]) -> Result<Condition, CmdError> {
    let mut terms = Vec::new();
    let mut i = 0;
    loop {
        let var = a.get(i).ok_or_else(|| CmdError::at(&end_of(line, w), "condition needs VAR OP NUMBER"))?;
        if !COND_VARS.contains(&var.text) {
            let e = CmdError::at(var, format!("unknown condition variable '{}'", var.text));
            return Err(match crate::util::closest(var.text, COND_VARS.iter().copied()) {
                Some(s) => e.hint(format!("did you mean '{s}'?")),
                None => e.hint(format!("variables: {}", COND_VARS.join(" "))),
            });
        }
        let op = cmp(a.get(i + 1).ok_or_else(|| CmdError::at(var, "condition needs an operator"))?)?;
        let n = signed(a.get(i + 2).ok_or_else(|| CmdError::at(var, "condition needs a number"))?)?;
        terms.push((var.text.to_string(), op, n));
        i += 3;
        match a.get(i) {
            None => break,
            Some(x) if x.text == "&&" || x.text == "and" => i += 1,
            Some(x) => return Err(CmdError::at(x, format!("expected '&&', found '{}'", x.text))),
        }
    }
    Ok(Condition { terms })
}

fn parse_set(line: &str, w: &[Word], a: &[Word]) -> Result<Setting, CmdError> {
    use crate::engine::settings;
    let usage = format!(
        "set knob NAME=VALUE | maxrregcount N | sm SM | dce on|off | allocator {} | stage PASS on|off | stop-on-error on|off",
        ALLOCATORS.join("|")
    );
    let what = a
        .first()
        .ok_or_else(|| CmdError::at(&end_of(line, w), "set needs what to set").hint(format!("usage: {usage}")))?;
    let val = |i: usize| -> Result<&Word, CmdError> {
        a.get(i).ok_or_else(|| CmdError::at(&end_of(line, w), format!("set {} needs a value", what.text)))
    };
    let extra = |n: usize| -> Result<(), CmdError> {
        match a.get(n) {
            Some(x) => Err(CmdError::at(x, format!("unexpected '{}'", x.text))),
            None => Ok(()),
        }
    };
    // The values are parsed by `engine::settings`, the parser clap's flags share; an
    // error goes under the word it is about.
    let typed = |x: &Word, e: settings::SettingError| CmdError::at(x, e.to_string());
    Ok(match what.text {
        "knob" => {
            let v = val(1)?;
            // Allow `set knob NAME = VALUE` with spaces: the value is the rest of the line.
            let text = &line[v.start..a.last().expect("some").end];
            Setting::Knob(settings::knob(text).map_err(|e| typed(v, e))?)
        }
        "maxrregcount" => {
            extra(2)?;
            let v = val(1)?;
            Setting::MaxRegCount(settings::maxrregcount(v.text).map_err(|e| typed(v, e))?)
        }
        "sm" => {
            extra(2)?;
            let v = val(1)?;
            Setting::Sm(settings::sm(v.text).map_err(|e| typed(v, e))?)
        }
        "dce" => {
            extra(2)?;
            Setting::Dce(on_off(val(1)?)?)
        }
        "allocator" => {
            extra(2)?;
            let v = val(1)?;
            Setting::Allocator(settings::allocator(v.text).map_err(|e| typed(v, e).hint(ALLOCATORS.join(" or ")))?)
        }
        "stage" => {
            extra(3)?;
            let v = val(1)?;
            Setting::Stage(settings::stage(v.text).map_err(|e| typed(v, e))?, on_off(val(2)?)?)
        }
        "stop-on-error" => {
            extra(2)?;
            Setting::StopOnError(on_off(val(1)?)?)
        }
        other => {
            let e = CmdError::at(what, format!("unknown setting '{other}'"));
            return Err(match crate::util::closest(other, SETTINGS.iter().copied()) {
                Some(s) => e.hint(format!("did you mean '{s}'?")),
                None => e.hint(format!("usage: {usage}")),
            });
        }
    })
}

fn parse_diff(line: &str, w: &[Word], a: &[Word]) -> Result<DiffWhat, CmdError> {
    let usage = "diff attempts CLASS A B | diff runs | diff state E1 E2 | diff allocators";
    let what = a
        .first()
        .ok_or_else(|| CmdError::at(&end_of(line, w), "diff needs what to compare").hint(format!("usage: {usage}")))?;
    let arg = |i: usize, d: &str| -> Result<&Word, CmdError> {
        a.get(i).ok_or_else(|| {
            CmdError::at(&end_of(line, w), format!("diff {} needs {d}", what.text)).hint(format!("usage: {usage}"))
        })
    };
    let extra = |n: usize| -> Result<(), CmdError> {
        match a.get(n) {
            Some(x) => Err(CmdError::at(x, format!("unexpected '{}'", x.text))),
            None => Ok(()),
        }
    };
    Ok(match what.text {
        "attempts" => {
            extra(4)?;
            DiffWhat::Attempts(
                class(arg(1, "a class")?)?,
                number(arg(2, "two attempt numbers")?, "an attempt number", 64)?,
                number(arg(3, "two attempt numbers")?, "an attempt number", 64)?,
            )
        }
        "runs" => {
            extra(1)?;
            DiffWhat::Runs
        }
        "state" => {
            extra(3)?;
            DiffWhat::State(
                number(arg(1, "two event numbers")?, "an event number", MAX_COUNT)?,
                number(arg(2, "two event numbers")?, "an event number", MAX_COUNT)?,
            )
        }
        "allocators" => {
            extra(1)?;
            DiffWhat::Allocators
        }
        other => {
            let e = CmdError::at(what, format!("cannot diff '{other}'"));
            return Err(match crate::util::closest(other, DIFFS.iter().copied()) {
                Some(s) => e.hint(format!("did you mean '{s}'?")),
                None => e.hint(format!("usage: {usage}")),
            });
        }
    })
}

fn parse_expect(line: &str, w: &[Word], a: &[Word]) -> Result<Expectation, CmdError> {
    let usage = "expect %VREG == REG | attempts class C == N | abi CODE | stats FIELD == N | fails | ok | event KIND | cursor == N";
    let first = a
        .first()
        .ok_or_else(|| CmdError::at(&end_of(line, w), "expect needs a fact").hint(format!("usage: {usage}")))?;
    let arg = |i: usize| -> Result<&Word, CmdError> {
        a.get(i).ok_or_else(|| CmdError::at(&end_of(line, w), "incomplete expectation").hint(format!("usage: {usage}")))
    };
    let extra = |n: usize| -> Result<(), CmdError> {
        match a.get(n) {
            Some(x) => Err(CmdError::at(x, format!("unexpected '{}'", x.text))),
            None => Ok(()),
        }
    };
    if first.text.starts_with('%') {
        extra(3)?;
        let op = arg(1)?;
        if op.text != "==" {
            return Err(CmdError::at(op, "expected '=='"));
        }
        return Ok(Expectation::Assigned(first.text.to_string(), arg(2)?.text.to_string()));
    }
    Ok(match first.text {
        "why" => {
            let n = a.len();
            if n < 5 {
                return Err(CmdError::at(&end_of(line, w), "incomplete expectation")
                    .hint("usage: expect why QUESTION FACT == N, e.g. expect why registers peak == 96"));
            }
            let q = parse_why(line, &w[..w.len() - 3], &a[1..n - 3])?;
            Expectation::Why(q, a[n - 3].text.to_string(), cmp(&a[n - 2])?, signed(&a[n - 1])?)
        }
        "attempts" => {
            extra(5)?;
            let kw = arg(1)?;
            if kw.text != "class" {
                return Err(CmdError::at(kw, "expected 'class'"));
            }
            Expectation::Attempts(class(arg(2)?)?, cmp(arg(3)?)?, signed(arg(4)?)?)
        }
        "abi" => {
            extra(2)?;
            Expectation::Abi(number(arg(1)?, "a warning code", 9999)?)
        }
        "stats" => {
            extra(4)?;
            let f = arg(1)?;
            const FIELDS: &[&str] = STAT_FIELDS;
            if !FIELDS.contains(&f.text) {
                let e = CmdError::at(f, format!("unknown statistic '{}'", f.text));
                return Err(match crate::util::closest(f.text, FIELDS.iter().copied()) {
                    Some(s) => e.hint(format!("did you mean '{s}'?")),
                    None => e.hint(format!("one of: {}", FIELDS.join(", "))),
                });
            }
            Expectation::Stats(f.text.to_string(), cmp(arg(2)?)?, signed(arg(3)?)?)
        }
        "fails" => {
            extra(1)?;
            Expectation::Fails
        }
        "ok" => {
            extra(1)?;
            Expectation::Ok
        }
        "event" => {
            extra(2)?;
            let k = arg(1)?;
            if !EVENT_KINDS.contains(&k.text) {
                let e = CmdError::at(k, format!("unknown event kind '{}'", k.text));
                return Err(match crate::util::closest(k.text, EVENT_KINDS.iter().copied()) {
                    Some(s) => e.hint(format!("did you mean '{s}'?")),
                    None => e.hint(format!("one of: {}", EVENT_KINDS.join(", "))),
                });
            }
            Expectation::Event(k.text.to_string())
        }
        "cursor" => {
            extra(3)?;
            Expectation::Cursor(cmp(arg(1)?)?, signed(arg(2)?)?)
        }
        other => {
            let e = CmdError::at(first, format!("unknown expectation '{other}'"));
            return Err(match crate::util::closest(other, EXPECTS.iter().copied()) {
                Some(s) => e.hint(format!("did you mean '{s}'?")),
                None => e.hint(format!("usage: {usage}")),
            });
        }
    })
}

fn parse_why(line: &str, w: &[Word], a: &[Word]) -> Result<crate::why::WhyCmd, CmdError> {
    use crate::why::WhyCmd;
    let usage = "why registers [FUNCTION] | why spill %VREG | why fail [CLASS] | why launch THREADS [BLOCKS_PER_SM] | why differ";
    let first = a
        .first()
        .ok_or_else(|| CmdError::at(&end_of(line, w), "why needs a question").hint(format!("usage: {usage}")))?;
    let extra = |n: usize| -> Result<(), CmdError> {
        match a.get(n) {
            Some(x) => Err(CmdError::at(x, format!("unexpected '{}'", x.text)).hint(format!("usage: {usage}"))),
            None => Ok(()),
        }
    };
    Ok(match first.text {
        "registers" | "regs" => {
            extra(2)?;
            WhyCmd::Registers(a.get(1).map(|x| x.text.to_string()))
        }
        "spill" => {
            extra(2)?;
            let v = a.get(1).ok_or_else(|| CmdError::at(&end_of(line, w), "why spill needs a vreg"))?;
            WhyCmd::Spill(vreg(v)?)
        }
        "fail" => {
            extra(2)?;
            WhyCmd::Fail(a.get(1).map(class).transpose()?)
        }
        "launch" => {
            extra(3)?;
            let t = a.get(1).ok_or_else(|| CmdError::at(&end_of(line, w), "why launch needs a thread count"))?;
            let t = number(t, "a thread count", 1 << 20)?;
            let b = a.get(2).map(|x| number(x, "a block count", 1024)).transpose()?;
            WhyCmd::Launch(t, b)
        }
        "differ" => {
            extra(1)?;
            WhyCmd::Differ
        }
        other => {
            let e = CmdError::at(first, format!("unknown question '{other}'"));
            return Err(match crate::util::closest(other, WHYS.iter().copied()) {
                Some(s) => e.hint(format!("did you mean '{s}'?")),
                None => e.hint(format!("usage: {usage}")),
            });
        }
    })
}

fn parse_whatif(line: &str, w: &[Word], a: &[Word]) -> Result<crate::why::WhatIf, CmdError> {
    use crate::engine::settings;
    use crate::why::WhatIf;
    let usage = "whatif maxrregcount N | whatif knob NAME=V | whatif sm SM | whatif launch-bounds T[,B]";
    let first = a
        .first()
        .ok_or_else(|| CmdError::at(&end_of(line, w), "whatif needs a change").hint(format!("usage: {usage}")))?;
    if !WHATIFS.contains(&first.text) {
        let e = CmdError::at(first, format!("unknown what-if '{}'", first.text));
        return Err(match crate::util::closest(first.text, WHATIFS.iter().copied()) {
            Some(s) => e.hint(format!("did you mean '{s}'?")),
            None => e.hint(format!("usage: {usage}")),
        });
    }
    let val = a
        .get(1)
        .ok_or_else(|| CmdError::at(&end_of(line, w), "whatif needs a value").hint(format!("usage: {usage}")))?;
    if let Some(x) = a.get(2) {
        return Err(CmdError::at(x, format!("unexpected '{}'", x.text)).hint(format!("usage: {usage}")));
    }
    Ok(match first.text {
        "maxrregcount" => {
            WhatIf::MaxRegCount(settings::maxrregcount(val.text).map_err(|e| CmdError::at(val, e.to_string()))?)
        }
        "knob" => WhatIf::Knob(settings::knob(val.text).map_err(|e| CmdError::at(val, e.to_string()))?),
        "sm" => WhatIf::Sm(settings::sm(val.text).map_err(|e| CmdError::at(val, e.to_string()))?),
        "launch-bounds" => {
            let (t, b) = match val.text.split_once(',') {
                Some((t, b)) => (t, Some(b)),
                None => (val.text, None),
            };
            let bad = || CmdError::at(val, format!("expected THREADS[,BLOCKS], found '{}'", val.text));
            let t: u32 = t.parse().map_err(|_| bad())?;
            let b: Option<u32> = b.map(|b| b.parse().map_err(|_| bad())).transpose()?;
            if t == 0 || t > 1024 || b == Some(0) {
                return Err(CmdError::at(val, "threads must be 1..=1024 and blocks at least 1"));
            }
            WhatIf::LaunchBounds(t, b)
        }
        other => {
            let e = CmdError::at(first, format!("unknown what-if '{other}'"));
            return Err(match crate::util::closest(other, WHATIFS.iter().copied()) {
                Some(s) => e.hint(format!("did you mean '{s}'?")),
                None => e.hint(format!("usage: {usage}")),
            });
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_example_parses() {
        for c in table::COMMANDS {
            for ex in c.examples {
                parse_line(ex).unwrap_or_else(|e| panic!("example '{ex}' of {}: {}", c.name, e.render(ex)));
            }
        }
    }

    #[test]
    fn errors_point_at_the_word() {
        let e = parse_line("stpe 3").unwrap_err();
        assert_eq!(
            e.render("stpe 3"),
            "error: unknown command 'stpe'\n  stpe 3\n  ^^^^\n  = help: did you mean 'step'? (try 'help')"
        );
        let e = parse_line("break assign %r1 if slto > 3").unwrap_err();
        assert_eq!((e.start, e.end), (20, 24));
        assert_eq!(e.hint.as_deref(), Some("did you mean 'slot'?"));
        let e = parse_line("step 1000000000000").unwrap_err();
        assert!(e.message.contains("out of range"));
    }

    /// gdb's words parse as the radbg commands they map to; unknown words get a hint
    /// from the gdb table first, then a unique prefix, then the spelling.
    #[test]
    fn gdb_words_and_suggestions() {
        assert_eq!(parse_line("bt").unwrap(), vec![Command::Backtrace]);
        assert_eq!(parse_line("up").unwrap(), vec![Command::Up(1)]);
        assert_eq!(parse_line("x +1564").unwrap(), vec![Command::State(Some(1564))]);
        assert_eq!(parse_line("cond 1").unwrap(), vec![Command::Condition(1, None)]);
        assert_eq!(parse_line("f 2").unwrap(), vec![Command::Frame(Some(2))]);
        assert_eq!(parse_line("i r").unwrap(), vec![Command::InfoRegisters(None)]);
        assert_eq!(parse_line("info locals").unwrap(), vec![Command::Live(None)]);
        assert_eq!(parse_line("until").unwrap(), vec![Command::Next]);
        assert_eq!(parse_line("stepi").unwrap(), vec![Command::Step(1)]);
        assert_eq!(parse_line("advance 40").unwrap(), vec![Command::Advance(Target::Event(40))]);
        let hint = |l: &str| parse_line(l).unwrap_err().hint.unwrap_or_default();
        assert_eq!(hint("backtrce"), "did you mean 'backtrace'? (try 'help')");
        assert_eq!(hint("disas"), "gdb's 'disas' is 'ir' here (try 'help')");
        assert_eq!(hint("condit"), "did you mean 'condition'? (try 'help')");
        assert_eq!(hint("upp"), "did you mean 'up'? (try 'help')");
        assert_eq!(hint("locals"), "gdb's 'locals' is 'info locals' here (try 'help')");
        assert!(parse_line("display step").is_err());
    }

    /// The synopsis `help set` shows names the allocators the parser takes.
    #[test]
    fn the_set_synopsis_names_the_allocators() {
        let set = table::find("set").expect("set is a command");
        assert!(set.synopsis.contains(&format!("set allocator {}", ALLOCATORS.join("|"))), "{}", set.synopsis);
    }

    #[test]
    fn multiple_commands_and_comments() {
        assert_eq!(parse_line("s 2; n # go").unwrap(), vec![Command::Step(2), Command::Next]);
        assert_eq!(parse_line("# only a comment").unwrap(), vec![]);
    }
}
