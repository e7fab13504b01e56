//! Executing commands against a debugging session. One interpreter serves the REPL,
//! the TUI's command line and `.radbg` scripts; each command yields text and the same
//! content as JSON (rendering in `command::render`).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::{Value, json};

use crate::command::parse::{Command, DiffWhat, Expectation, Setting};
use crate::command::render;
use crate::engine::breakpoint::BpKind;
use crate::engine::{Debugger, EventKind, RunOptions, Stage, Stop, query};
use crate::ir::VRegId;
use crate::knobs::Knobs;

/// The result of one command.
#[derive(Clone, Debug, PartialEq)]
pub struct Output {
    pub text: String,
    pub json: Value,
    /// An `expect` that did not hold.
    pub failed: bool,
}

/// `o` with a knob's note (issue 24) as a last `note:` line and a `note` JSON field.
fn with_note(mut o: Output, note: Option<String>) -> Output {
    if let Some(n) = note {
        o.text = format!("{}\nnote: {n}", o.text);
        o.json["note"] = json!(n);
    }
    o
}

impl Output {
    fn new(text: impl Into<String>, json: Value) -> Output {
        Output { text: text.into(), json, failed: false }
    }
}

/// An error message as printed: `error: MESSAGE`, unless the message already says
/// where and that it is an error (`f.ptx:10:3: error: …`, from a file's diagnostics),
/// which it keeps as it is — one prefix, never `error: f.ptx:10:3: error: …`.
pub fn error_text(e: &str) -> String {
    let first = e.lines().next().unwrap_or("");
    if first.starts_with("error: ") || first.contains(": error: ") { e.to_string() } else { format!("error: {e}") }
}

/// A debugging session: the loaded file, the debugger, the selected function.
pub struct Session {
    pub dbg: Option<Debugger>,
    pub file: Option<String>,
    /// Function selected with `func` (None: follow the current event).
    pub selected: Option<usize>,
    /// Options applied to every load.
    pub opts: RunOptions,
    pub stop_on_error: bool,
    /// Directory relative paths in `load` resolve against (the script's directory).
    pub base: PathBuf,
    pub quit: bool,
    /// Set by Ctrl-C; polled by `continue`.
    pub interrupt: Arc<AtomicBool>,
    /// The run options before the last `set` (for `why differ`).
    pub prev_opts: Option<RunOptions>,
    /// The last `sweep` (what the TUI charts).
    pub last_sweep: Option<(crate::why::sweep::Axis, Vec<crate::why::sweep::Row>)>,
    /// The frame of `backtrace` selected by `frame`/`up`/`down` (0 when the cursor moves).
    pub frame: usize,
    /// `display` expressions (number, command line), shown after each move.
    pub displays: Vec<(u32, String)>,
    next_display: u32,
    /// How deep `source` files are nested (a file that sources itself stops at a limit).
    source_depth: usize,
    /// Where to look for the CUDA files a PTX `.file` table names (`--source-dir`).
    pub source_dir: Option<PathBuf>,
    /// The CUDA files found for the loaded module (read at load).
    pub sources: crate::command::source::Texts,
}

/// How deep `source` may nest.
const MAX_SOURCE_DEPTH: usize = 16;

impl Default for Session {
    fn default() -> Session {
        Session::new()
    }
}

impl Session {
    pub fn new() -> Session {
        Session {
            dbg: None,
            file: None,
            selected: None,
            opts: RunOptions::default(),
            stop_on_error: true,
            base: PathBuf::from("."),
            quit: false,
            interrupt: Arc::new(AtomicBool::new(false)),
            prev_opts: None,
            last_sweep: None,
            frame: 0,
            displays: Vec::new(),
            next_display: 1,
            source_depth: 0,
            source_dir: None,
            sources: Default::default(),
        }
    }

    /// Opens a module directly (the embedded demo, a file loaded by the CLI).
    pub fn open(&mut self, module: crate::ir::Module, name: &str, imported: bool) {
        self.open_with(module, name, imported, None);
    }

    /// Opens a loaded file: one imported group by group keeps its text, not its module
    /// as loaded (`Debugger::with_reimport`).
    pub fn open_loaded(&mut self, loaded: crate::load::Loaded, name: &str) {
        self.open_with(loaded.module, name, loaded.imported, loaded.reimport);
    }

    fn open_with(
        &mut self,
        module: crate::ir::Module,
        name: &str,
        imported: bool,
        reimport: Option<crate::ir::ptx::stream::Reimport>,
    ) {
        let mut opts = self.opts.clone();
        opts.imported = imported;
        let p = Path::new(name);
        let ptx = if p.is_absolute() || p.exists() { p.to_path_buf() } else { self.base.join(p) };
        self.sources = crate::command::source::load(&module.srcloc, Some(&ptx), self.source_dir.as_deref());
        self.dbg = Some(Debugger::with_reimport(module, opts, reimport));
        self.file = Some(name.to_string());
        self.selected = None;
        self.prev_opts = None;
        self.last_sweep = None;
        self.frame = 0;
    }

    /// Loads a file (relative to `base`).
    pub fn load(&mut self, path: &str) -> Result<String, String> {
        let p = Path::new(path);
        let full = if p.is_absolute() || p.exists() { p.to_path_buf() } else { self.base.join(p) };
        let mut loaded = crate::load::load_command(&full, path)?;
        let n = loaded.module.functions.len();
        let insts: usize = loaded.module.functions.iter().map(|f| f.inst_count()).sum();
        let warnings = std::mem::take(&mut loaded.warnings);
        self.open_loaded(loaded, path);
        Ok(format!("{warnings}loaded {path}: {n} function(s), {insts} instructions"))
    }

    fn dbg(&mut self) -> Result<&mut Debugger, String> {
        self.dbg.as_mut().ok_or_else(|| "no file loaded (use 'load FILE')".to_string())
    }

    fn func(&self) -> usize {
        let d = self.dbg.as_ref().expect("loaded");
        self.selected.unwrap_or_else(|| query::current_func(d))
    }

    fn vreg_id(&self, name: &str) -> Result<(usize, VRegId), String> {
        let d = self.dbg.as_ref().ok_or("no file loaded")?;
        let fi = self.func();
        let f = query::func_ir(d.machine(), fi);
        match f.vreg_by_name(name) {
            Some(v) => Ok((fi, v)),
            None => {
                let hint = crate::util::closest(name, f.vregs.iter().map(|v| v.name.as_ref()))
                    .map(|s| format!(" (did you mean {s}?)"))
                    .unwrap_or_default();
                Err(format!("no vreg {name} in function {}{hint}", f.name))
            }
        }
    }

    /// Where the cursor is, as one line.
    fn position(&self) -> Output {
        let d = self.dbg.as_ref().expect("loaded");
        match d.current() {
            Some(e) => {
                let text = format!("#{} [{}] {}", d.cursor(), e.stage().name(), d.machine().describe(e));
                Output::new(text, render::event_json(d.cursor(), e, d.machine()))
            }
            None => Output::new("#0 before the first event", json!({"cursor": 0})),
        }
    }

    fn stopped(&self, stop: Stop) -> Output {
        let mut o = self.position();
        let d = self.dbg.as_ref().expect("loaded");
        let why = match &stop {
            Stop::Breakpoint(id) => match d.breakpoints.iter().find(|b| b.id == *id) {
                Some(b) => Some(format!("breakpoint {id} ({})", b.describe())),
                None => {
                    let bp = d.last_temporary.as_ref().filter(|b| b.id == *id).map(|b| b.describe());
                    Some(format!("temporary breakpoint {id} ({}), now deleted", bp.unwrap_or_default()))
                }
            },
            Stop::Watch { id, offset, old, new } => Some(format!("watchpoint {id}: +{offset} changed {old} → {new}")),
            Stop::End => Some("end of the pipeline".to_string()),
            Stop::Start => Some("start of the pipeline".to_string()),
            Stop::Interrupted => Some("interrupted".to_string()),
            Stop::Steps => None,
        };
        if let Some(w) = why {
            o.text = format!("{w}\n{}", o.text);
            o.json["stop"] = json!(w);
        }
        o
    }

    /// Executes one command; after one that moves the cursor, the `display` list.
    pub fn exec(&mut self, cmd: &Command) -> Result<Output, String> {
        let mut o = self.exec_one(cmd)?;
        if crate::command::parse::moves(cmd) {
            self.frame = 0;
            if !matches!(cmd, Command::Load(_)) {
                self.append_displays(&mut o, None);
            }
        }
        Ok(o)
    }

    /// Appends the output of display expressions (all, or only number `only`) to `o`.
    fn append_displays(&mut self, o: &mut Output, only: Option<u32>) {
        if self.dbg.is_none() {
            return;
        }
        let list: Vec<(u32, String)> =
            self.displays.iter().filter(|(n, _)| only.is_none_or(|k| k == *n)).cloned().collect();
        let mut shown = Vec::new();
        for (n, line) in list {
            let result = match crate::command::parse::parse_line(&line) {
                Ok(cmds) => cmds.first().map(|c| self.exec_one(c)).unwrap_or_else(|| Err("empty".into())),
                Err(e) => Err(e.message),
            };
            let (text, value) = match result {
                Ok(x) => (x.text, x.json),
                Err(e) => (error_text(&e), json!({"error": e})),
            };
            if !o.text.is_empty() {
                o.text.push('\n');
            }
            o.text.push_str(&format!("{n}: {line}\n{text}"));
            shown.push(json!({"display": n, "command": line, "output": value}));
        }
        if !shown.is_empty() {
            o.json["displays"] = json!(shown);
        }
    }

    fn exec_one(&mut self, cmd: &Command) -> Result<Output, String> {
        match cmd {
            Command::Load(path) => {
                let msg = self.load(path)?;
                Ok(Output::new(msg, json!({"loaded": path})))
            }
            Command::Help(topic) => Ok(render::help(topic.as_deref())),
            Command::Echo(text) => Ok(Output::new(text.clone(), json!({"echo": text}))),
            Command::Quit => {
                self.quit = true;
                Ok(Output::new("", json!({"quit": true})))
            }
            Command::Source(path) => self.source(path),
            Command::Set(s @ Setting::StopOnError(b)) => {
                self.apply(s);
                Ok(Output::new(format!("stop-on-error {}", if *b { "on" } else { "off" }), json!({"stop_on_error": b})))
            }
            _ => self.exec_loaded(cmd),
        }
    }

    fn exec_loaded(&mut self, cmd: &Command) -> Result<Output, String> {
        self.dbg()?;
        match cmd {
            Command::Run => {
                self.dbg()?.restart();
                Ok(self.position())
            }
            Command::Step(n) => {
                self.dbg()?.step(*n);
                let stop = if self.dbg()?.at_end() { Stop::End } else { Stop::Steps };
                Ok(self.stopped(stop))
            }
            Command::Next => {
                let s = self.dbg()?.next_over();
                Ok(self.stopped(s))
            }
            Command::Finish => {
                let s = self.dbg()?.finish();
                Ok(self.stopped(s))
            }
            Command::Continue => {
                let flag = self.interrupt.clone();
                flag.store(false, Ordering::SeqCst);
                let s = self.dbg()?.cont(&|| flag.load(Ordering::SeqCst));
                Ok(self.stopped(s))
            }
            Command::ReverseStep(n) => {
                self.dbg()?.reverse_step(*n);
                let stop = if self.dbg()?.cursor() == 0 { Stop::Start } else { Stop::Steps };
                Ok(self.stopped(stop))
            }
            Command::ReverseNext => {
                let s = self.dbg()?.reverse_next();
                Ok(self.stopped(s))
            }
            Command::ReverseContinue => {
                let s = self.dbg()?.reverse_continue();
                Ok(self.stopped(s))
            }
            Command::Goto(n) => {
                self.dbg()?.goto(*n);
                let stop = if self.dbg()?.cursor() < *n { Stop::End } else { Stop::Steps };
                Ok(self.stopped(stop))
            }
            Command::Break(kind) => {
                if let BpKind::Assign { vreg, .. } | BpKind::Spill { vreg: Some(vreg) } = kind {
                    self.check_vreg_anywhere(vreg)?;
                }
                let id = self.dbg()?.add_breakpoint(kind.clone());
                let d = self.dbg.as_ref().expect("loaded");
                let desc = d.breakpoints.iter().find(|b| b.id == id).map(|b| b.describe()).unwrap_or_default();
                let what = if matches!(kind, BpKind::Watch { .. }) { "watchpoint" } else { "breakpoint" };
                Ok(Output::new(format!("{what} {id}: {desc}"), json!({"breakpoint": id, "what": desc})))
            }
            Command::InfoBreakpoints => Ok(render::breakpoints(&self.dbg()?.breakpoints)),
            Command::Delete(id) => {
                let d = self.dbg()?;
                match id {
                    None => {
                        let n = d.breakpoints.len();
                        d.breakpoints.clear();
                        Ok(Output::new(format!("deleted {n} breakpoint(s)"), json!({"deleted": n})))
                    }
                    Some(i) => {
                        if d.delete_breakpoint(*i) {
                            Ok(Output::new(format!("deleted breakpoint {i}"), json!({"deleted": i})))
                        } else {
                            Err(format!("no breakpoint {i} (see 'info breakpoints')"))
                        }
                    }
                }
            }
            Command::Enable(i) | Command::Disable(i) => {
                let on = matches!(cmd, Command::Enable(_));
                let b = self.dbg()?.breakpoint_mut(*i).ok_or(format!("no breakpoint {i} (see 'info breakpoints')"))?;
                b.enabled = on;
                Ok(Output::new(
                    format!("breakpoint {i} {}", if on { "enabled" } else { "disabled" }),
                    json!({"breakpoint": i, "enabled": on}),
                ))
            }
            Command::Where => Ok(self.position()),
            Command::Events(n) => Ok(render::events(self.dbg.as_ref().expect("loaded"), *n)),
            Command::Func(name) => self.select_func(name.as_deref()),
            Command::Ir(p, n) => {
                let fi = self.func();
                let d = self.dbg.as_ref().expect("loaded");
                Ok(render::ir(d, fi, *p, n.unwrap_or(20)))
            }
            Command::Print(name) if self.graph_views() => {
                let (fi, v) = self.vreg_id(name)?;
                crate::command::exec_graph::print(self, fi, v)
            }
            Command::Constraints(name) if self.graph_views() => {
                let target = match name {
                    Some(n) => Some(self.vreg_id(n)?),
                    None => None,
                };
                crate::command::exec_graph::neighbours(self, target)
            }
            Command::Hist if self.graph_views() => crate::command::exec_graph::colours(self),
            Command::Graph => crate::command::exec_graph::graph(self),
            Command::Attempts(_) if self.graph_views() => crate::command::exec_graph::iterations(self),
            Command::Print(name) => {
                let (fi, v) = self.vreg_id(name)?;
                let d = self.dbg.as_ref().expect("loaded");
                let info = query::vreg_info(d, fi, v).ok_or("no such vreg")?;
                Ok(render::vreg(&info))
            }
            Command::SourceView(line) => {
                let fi = self.func();
                let d = self.dbg.as_ref().expect("loaded");
                let t = crate::engine::query_source::source_table(d.machine(), fi);
                Ok(crate::command::source::render(&t, &self.sources, &d.machine().module.srcloc, *line, 10))
            }
            Command::Live(p) => {
                let fi = self.func();
                let d = self.dbg.as_ref().expect("loaded");
                let point = p.or_else(|| current_point(d, fi)).unwrap_or(0);
                let lv = query::live_at(d.machine(), fi, point)
                    .ok_or_else(|| format!("no liveness for point {point} yet (step past the liveness stage)"))?;
                Ok(render::live(&lv))
            }
            Command::Constraints(name) => {
                let (fi, v) = match name {
                    Some(n) => self.vreg_id(n)?,
                    None => event_vreg(self.dbg.as_ref().expect("loaded"))
                        .ok_or("no vreg is being allocated here (name one: constraints %r12)")?,
                };
                let d = self.dbg.as_ref().expect("loaded");
                let nodes = query::constraints_of(d.machine(), fi, v);
                let name = query::func_ir(d.machine(), fi).vreg(v).name.to_string();
                Ok(render::constraints(&name, &nodes))
            }
            Command::Hist => {
                let d = self.dbg.as_ref().expect("loaded");
                let h = query::histogram(d.machine())
                    .ok_or("no assignment decision at the cursor (step to an 'assign' event)")?;
                Ok(render::histogram(&h))
            }
            Command::State(off) => {
                let d = self.dbg.as_ref().expect("loaded");
                Ok(render::state(d, *off))
            }
            Command::Attempts(class) => {
                let fi = self.func();
                let d = self.dbg.as_ref().expect("loaded");
                Ok(render::attempts(d, fi, *class))
            }
            Command::Abi => {
                let fi = self.func();
                let d = self.dbg.as_ref().expect("loaded");
                Ok(render::abi(d, fi))
            }
            Command::Stats => Ok(render::stats(self.dbg.as_ref().expect("loaded"))),
            Command::Knobs(all) => Ok(render::knobs(&self.dbg.as_ref().expect("loaded").machine().knobs, *all)),
            Command::Set(s) => self.set(s),
            Command::Diff(w) => self.diff(w),
            Command::Why(q) => self.why(q).map(|x| render::explanation(&x)),
            Command::WhatIf(w) => {
                let fi = self.func();
                let d = self.dbg.as_ref().expect("loaded");
                let x = crate::why::whatif::explain(d, fi, w)?;
                // Issue 24: the knob's note, as `set knob` gives it, with the knob set.
                let note = match w {
                    crate::why::WhatIf::Knob(k) => {
                        let mut in_force = Knobs::clone(&d.machine().knobs);
                        in_force.set_checked(k.info, k.value.clone());
                        k.info.setting_note(&in_force)
                    }
                    _ => None,
                };
                Ok(with_note(render::explanation(&x), note))
            }
            Command::Sweep(axis, values) => {
                let d = self.dbg.as_ref().expect("loaded");
                let threads = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
                let rows = crate::why::sweep::run(&d.loaded(), &d.opts, axis, values, threads)?;
                let x = crate::why::sweep::render(&rows, axis, false);
                // Issue 24: sweeping a knob that changes nothing here says why.
                let note = match axis {
                    crate::why::sweep::Axis::Knob(name) => crate::engine::settings::knob_name(name)
                        .ok()
                        .and_then(|info| info.setting_note(&d.machine().knobs)),
                    _ => crate::why::sweep::floor_note(axis, values, &d.opts),
                };
                self.last_sweep = Some((axis.clone(), rows));
                Ok(with_note(render::explanation(&x), note))
            }
            Command::Reduce(args) => crate::command::reduce::exec(self, args),
            Command::Expect(e) => self.expect(e),
            Command::Export { file, what, force } => self.export(file, what, *force),
            Command::TBreak(kind) => {
                if let BpKind::Assign { vreg, .. } | BpKind::Spill { vreg: Some(vreg) } = kind {
                    self.check_vreg_anywhere(vreg)?;
                }
                let id = self.dbg()?.add_temporary_breakpoint(kind.clone());
                let d = self.dbg.as_ref().expect("loaded");
                let desc = d.breakpoints.iter().find(|b| b.id == id).map(|b| b.describe()).unwrap_or_default();
                Ok(Output::new(
                    format!("temporary breakpoint {id}: {desc}"),
                    json!({"breakpoint": id, "what": desc, "temporary": true}),
                ))
            }
            Command::Condition(id, cond) => {
                let b =
                    self.dbg()?.breakpoint_mut(*id).ok_or(format!("no breakpoint {id} (see 'info breakpoints')"))?;
                let BpKind::Assign { cond: c, .. } = &mut b.kind else {
                    return Err(format!(
                        "breakpoint {id} ({}) has nothing to test: conditions (slot, attempt, cost, discarded) apply to assign breakpoints",
                        b.describe()
                    ));
                };
                *c = cond.clone();
                let desc = b.describe();
                let text = match cond {
                    Some(_) => format!("breakpoint {id}: {desc}"),
                    None => format!("breakpoint {id} is now unconditional: {desc}"),
                };
                Ok(Output::new(text, json!({"breakpoint": id, "what": desc})))
            }
            Command::Ignore(id, n) => {
                let b =
                    self.dbg()?.breakpoint_mut(*id).ok_or(format!("no breakpoint {id} (see 'info breakpoints')"))?;
                b.ignore = *n;
                let text = match n {
                    0 => format!("breakpoint {id} will stop at its next hit"),
                    1 => format!("breakpoint {id} will pass over its next hit"),
                    n => format!("breakpoint {id} will pass over its next {n} hits"),
                };
                Ok(Output::new(text, json!({"breakpoint": id, "ignore": n})))
            }
            Command::Backtrace => {
                let d = self.dbg.as_ref().expect("loaded");
                Ok(render::backtrace(d, &crate::engine::frames::frames(d), self.frame))
            }
            Command::Frame(n) => {
                let d = self.dbg.as_ref().expect("loaded");
                let frames = crate::engine::frames::frames(d);
                if frames.is_empty() {
                    return Err("no frames before the first event (step first)".into());
                }
                let n = n.unwrap_or(self.frame);
                if n >= frames.len() {
                    return Err(format!("no frame {n}: the stack has {} (see 'backtrace')", frames.len()));
                }
                self.frame = n;
                Ok(render::frame(d, &frames, n))
            }
            Command::Up(k) | Command::Down(k) => {
                let d = self.dbg.as_ref().expect("loaded");
                let frames = crate::engine::frames::frames(d);
                if frames.is_empty() {
                    return Err("no frames before the first event (step first)".into());
                }
                let up = matches!(cmd, Command::Up(_));
                let top = frames.len() - 1;
                if up && self.frame == top {
                    return Err("initial frame selected; you cannot go up (the function is the outermost frame)".into());
                }
                if !up && self.frame == 0 {
                    return Err("bottom (innermost) frame selected; you cannot go down".into());
                }
                self.frame = if up { (self.frame + k).min(top) } else { self.frame.saturating_sub(*k) };
                Ok(render::frame(d, &frames, self.frame))
            }
            Command::Advance(target) => {
                let d = self.dbg()?;
                if let crate::engine::debugger::Target::Event(n) = target
                    && *n <= d.cursor()
                {
                    return Err(format!(
                        "event {n} is not ahead of the cursor (#{}); 'goto {n}' goes back",
                        d.cursor()
                    ));
                }
                let s = d.advance_to(target);
                Ok(self.stopped(s))
            }
            Command::ReverseFinish => {
                let s = self.dbg()?.reverse_finish();
                Ok(self.stopped(s))
            }
            Command::Start => {
                let d = self.dbg()?;
                d.restart();
                let s = d.advance_to(&crate::engine::debugger::Target::Kind(BpKind::Stage(Stage::Alloc)));
                Ok(self.stopped(s))
            }
            Command::Display(None) => {
                if self.displays.is_empty() {
                    return Ok(Output::new("no displays (add one: display live)", json!({"displays": []})));
                }
                let mut o = Output::new("", json!({}));
                self.append_displays(&mut o, None);
                Ok(o)
            }
            Command::Display(Some(line)) => {
                let n = self.next_display;
                self.next_display += 1;
                self.displays.push((n, line.clone()));
                let mut o = Output::new("", json!({"display": n, "command": line}));
                self.append_displays(&mut o, Some(n));
                Ok(o)
            }
            Command::Undisplay(None) => {
                let n = self.displays.len();
                self.displays.clear();
                Ok(Output::new(format!("deleted {n} display(s)"), json!({"undisplayed": n})))
            }
            Command::Undisplay(Some(n)) => {
                let before = self.displays.len();
                self.displays.retain(|(k, _)| k != n);
                if self.displays.len() == before {
                    return Err(format!("no display {n} (see 'info display')"));
                }
                Ok(Output::new(format!("deleted display {n}"), json!({"undisplayed": n})))
            }
            Command::InfoDisplay => {
                if self.displays.is_empty() {
                    return Ok(Output::new("no displays", json!({"displays": []})));
                }
                let text: Vec<String> = self.displays.iter().map(|(n, l)| format!("{n}: {l}")).collect();
                let j: Vec<Value> = self.displays.iter().map(|(n, l)| json!({"display": n, "command": l})).collect();
                Ok(Output::new(format!("auto-display expressions:\n{}", text.join("\n")), json!({"displays": j})))
            }
            Command::InfoRegisters(class) => {
                let fi = self.func();
                let d = self.dbg.as_ref().expect("loaded");
                Ok(render::registers(d, fi, *class))
            }
            Command::Load(_) | Command::Help(_) | Command::Echo(_) | Command::Quit | Command::Source(_) => {
                unreachable!("handled")
            }
        }
    }

    /// `source FILE`: runs the file's commands as if typed; their output (not the
    /// commands) is the result; the first error stops it and names FILE:LINE.
    fn source(&mut self, path: &str) -> Result<Output, String> {
        if self.source_depth >= MAX_SOURCE_DEPTH {
            return Err(format!("source {path}: files nested more than {MAX_SOURCE_DEPTH} deep"));
        }
        let p = Path::new(path);
        let full = if p.is_absolute() || p.exists() { p.to_path_buf() } else { self.base.join(p) };
        let text = std::fs::read_to_string(&full).map_err(|e| format!("cannot read {path}: {e}"))?;
        self.source_depth += 1;
        let r = self.source_text(path, &text);
        self.source_depth -= 1;
        r
    }

    fn source_text(&mut self, path: &str, text: &str) -> Result<Output, String> {
        let mut out: Vec<String> = Vec::new();
        let mut values = Vec::new();
        let mut failed = false;
        for (i, line) in text.lines().enumerate() {
            let cmds = crate::command::parse::parse_line(line).map_err(|e| {
                let col = line[..e.start.min(line.len())].chars().count() + 1;
                let before = if out.is_empty() { String::new() } else { format!("{}\n", out.join("\n")) };
                format!("{before}{path}:{}:{col}: {}", i + 1, e.render(line).trim_start_matches("error: "))
            })?;
            for c in &cmds {
                match self.exec(c) {
                    Ok(o) => {
                        failed |= o.failed;
                        if !o.text.is_empty() {
                            out.push(o.text);
                        }
                        values.push(json!({"command": line.trim(), "output": o.json}));
                    }
                    Err(e) => {
                        let before = if out.is_empty() { String::new() } else { format!("{}\n", out.join("\n")) };
                        return Err(format!("{before}{path}:{}: {e}", i + 1));
                    }
                }
                if self.quit {
                    break;
                }
            }
            if self.quit {
                break;
            }
        }
        let mut o = Output::new(out.join("\n"), json!({"source": path, "commands": values}));
        o.failed = failed;
        Ok(o)
    }

    /// Whether this session's allocator offers the Graph family of views
    /// (`alloc::run::ViewFamily`): `print`, `constraints`, `hist` and `attempts` then show
    /// the interference graph's node, neighbours, colours and iterations.
    pub(crate) fn graph_views(&self) -> bool {
        self.dbg.as_ref().is_some_and(|d| d.opts.allocator.views() == crate::alloc::run::ViewFamily::Graph)
    }

    /// The function the session looks at (selected, else the current event's).
    pub(crate) fn current_func(&self) -> usize {
        self.func()
    }

    fn check_vreg_anywhere(&self, name: &str) -> Result<(), String> {
        let d = self.dbg.as_ref().ok_or("no file loaded")?;
        let m = &d.machine().module;
        if m.functions.iter().any(|f| f.vreg_by_name(name).is_some()) {
            return Ok(());
        }
        let hint = crate::util::closest(name, m.functions.iter().flat_map(|f| f.vregs.iter().map(|v| v.name.as_ref())))
            .map(|s| format!(" (did you mean {s}?)"))
            .unwrap_or_default();
        Err(format!("no vreg {name} in any function{hint}"))
    }

    fn select_func(&mut self, name: Option<&str>) -> Result<Output, String> {
        let d = self.dbg.as_ref().expect("loaded");
        let m = &d.machine().module;
        let Some(name) = name else {
            let cur = self.func();
            let lines: Vec<String> = m
                .functions
                .iter()
                .enumerate()
                .map(|(i, f)| {
                    format!("{} {} ({} instructions)", if i == cur { "*" } else { " " }, f.name, f.inst_count())
                })
                .collect();
            let names: Vec<&str> = m.functions.iter().map(|f| f.name.as_str()).collect();
            return Ok(Output::new(lines.join("\n"), json!({"functions": names, "selected": m.functions[cur].name})));
        };
        match m.function(name) {
            Some(i) => {
                self.selected = Some(i);
                Ok(Output::new(format!("function {name}"), json!({"selected": name})))
            }
            None => {
                let hint = crate::util::closest(name, m.functions.iter().map(|f| f.name.as_str()))
                    .map(|s| format!(" (did you mean {s}?)"))
                    .unwrap_or_default();
                Err(format!("no function {name}{hint}"))
            }
        }
    }

    /// Applies a typed setting to the options every load uses, and to the loaded run
    /// (which re-runs from the stage the setting changes). The command line's flags
    /// come through here too, before anything is loaded. Returns that stage and what
    /// the re-run noted.
    pub fn apply(&mut self, s: &Setting) -> Option<(Stage, Option<String>)> {
        if let Setting::StopOnError(b) = s {
            self.stop_on_error = *b;
            return None;
        }
        self.opts.apply(s);
        let from = s.restart_stage()?;
        let d = self.dbg.as_mut()?;
        let mut opts = d.opts.clone();
        opts.apply(s);
        self.prev_opts = Some(d.opts.clone());
        let note = d.set_options(opts, from);
        Some((from, note))
    }

    /// `set`: what [`Session::apply`] does, reported.
    fn set(&mut self, s: &Setting) -> Result<Output, String> {
        self.dbg()?;
        let label = s.label();
        let Some((from, note)) = self.apply(s) else {
            // A setting of the session, not of the run (`stop-on-error`): nothing re-runs.
            return Ok(Output::new(label.clone(), json!({ "set": label })));
        };
        // Issue 24: a knob radbg does not model, or one that acts only with another the
        // run leaves off, is accepted with a note, never silently.
        let knob_note = match s {
            Setting::Knob(k) => self.dbg.as_ref().and_then(|d| k.info.setting_note(&d.machine().knobs)),
            _ => None,
        };
        let mut o = self.position();
        o.text = format!("{label}: re-ran from stage {}\n{}", from.name(), o.text);
        if let Some(n) = note {
            o.text = format!("{}\nnote: {n}", o.text);
            o.json["note"] = json!(n);
        }
        if let Some(n) = knob_note {
            o.text = format!("{}\nnote: {n}", o.text);
            o.json["not_modelled"] = json!(n);
        }
        o.json["set"] = json!(label);
        Ok(o)
    }

    fn diff(&mut self, w: &DiffWhat) -> Result<Output, String> {
        let fi = self.func();
        let d = self.dbg.as_ref().expect("loaded");
        match w {
            DiffWhat::Attempts(class, a, b) => render::diff_attempts(d, fi, *class, *a, *b),
            DiffWhat::Runs => {
                let before = d.previous_run().ok_or("no earlier run: change a knob or option first (set ...)")?;
                let after = d.summary_now("after");
                Ok(render::diff_runs(&before, &after))
            }
            DiffWhat::State(a, b) => Ok(render::diff_state(d, *a, *b)),
            DiffWhat::Allocators => crate::command::exec_graph::diff_allocators(d, fi),
        }
    }

    fn expect(&mut self, e: &Expectation) -> Result<Output, String> {
        let fi = self.func();
        let d = self.dbg.as_ref().expect("loaded");
        let m = d.machine();
        let (ok, got): (bool, String) = match e {
            Expectation::Assigned(name, reg) if reg == "spilled" => {
                let (fi, v) = self.vreg_id(name)?;
                let spilled = query::run_of(m, fi).is_some_and(|a| a.spilled().contains(&v));
                (spilled, if spilled { "spilled".into() } else { "not spilled".into() })
            }
            Expectation::Assigned(name, reg) => {
                let (fi, v) = self.vreg_id(name)?;
                let vr = query::func_ir(m, fi).vreg(v);
                let got = query::run_of(m, fi)
                    .and_then(|a| a.slot_of(v))
                    .map(|s| query::reg_name(vr.file(), s, vr.width))
                    .unwrap_or_else(|| "unassigned".into());
                let first = got.split(':').next().unwrap_or("").split("..").next().unwrap_or("").to_string();
                (got == *reg || first == *reg, got)
            }
            Expectation::Attempts(class, op, n) => {
                let count = query::attempts(m, fi).iter().filter(|r| r.class == *class).count() as i64;
                (op.eval(count, *n), count.to_string())
            }
            Expectation::Abi(code) => {
                let hit =
                    d.trace().upto(d.cursor()).whole().any(
                        |(_, ev)| matches!(&ev.kind, EventKind::AbiCheck { code: c, passed: false, .. } if c == code),
                    );
                (hit, if hit { format!("warning {code} emitted") } else { format!("no warning {code} so far") })
            }
            Expectation::Stats(field, op, n) => {
                let s = m.funcs.get(fi).and_then(|r| r.stats.as_ref()).ok_or(format!(
                    "no statistics for {} yet at event {} (continue to the end first)",
                    m.module.functions[fi].name,
                    d.cursor()
                ))?;
                let v = match field.as_str() {
                    "registers" => s.registers,
                    "spill-stores" => s.spill_stores,
                    "spill-loads" => s.spill_loads,
                    "stack-frame" => s.stack_frame,
                    _ => s.barriers,
                } as i64;
                (op.eval(v, *n), v.to_string())
            }
            Expectation::Fails | Expectation::Ok => {
                let failed = m.funcs.iter().any(|r| r.alloc.as_ref().is_some_and(|a| a.failure().is_some()))
                    || m.cur.as_ref().is_some_and(|c| c.failure().is_some());
                let done = m.funcs.iter().all(|r| r.alloc.is_some()) || failed;
                if !done {
                    return Err(format!(
                        "allocation has not finished at event {} (continue to the end first)",
                        d.cursor()
                    ));
                }
                let want_fail = matches!(e, Expectation::Fails);
                (failed == want_fail, if failed { "allocation failed".into() } else { "allocation succeeded".into() })
            }
            Expectation::Event(kind) => {
                let k = d.current().map(|e| e.kind_name()).unwrap_or("none");
                (k == kind, k.to_string())
            }
            Expectation::Cursor(op, n) => (op.eval(d.cursor() as i64, *n), d.cursor().to_string()),
            Expectation::Why(q, fact, op, n) => {
                let x = self.why(q)?;
                let v = x
                    .fact(fact)
                    .ok_or_else(|| format!("why {} has no fact '{fact}' (facts: {})", q.text(), x.fact_names()))?;
                (op.eval(v, *n), v.to_string())
            }
        };
        let what = render::expectation_text(e);
        let mut o = Output::new(
            if ok { format!("ok: {what}") } else { format!("FAILED: expected {what}, got {got}") },
            json!({"expect": what, "ok": ok, "got": got}),
        );
        o.failed = !ok;
        Ok(o)
    }

    /// A `why` answer from the finished run (the cursor stays).
    fn why(&self, q: &crate::why::WhyCmd) -> Result<crate::why::Explanation, String> {
        let d = self.dbg.as_ref().ok_or("no file loaded")?;
        let file = self.file.clone().unwrap_or_default();
        crate::why::answer_in(d, &file, self.func(), q, self.prev_opts.as_ref())
    }

    fn export(&mut self, file: &str, what: &str, force: bool) -> Result<Output, String> {
        let path = if Path::new(file).is_absolute() { PathBuf::from(file) } else { self.base.join(file) };
        // A replayed script must not clobber files (issue 28): only `json!` overwrites.
        if !force && std::fs::symlink_metadata(&path).is_ok() {
            return Err(format!("{file} exists; 'export json! {file}' overwrites it"));
        }
        let fi = self.func();
        let d = self.dbg.as_ref().expect("loaded");
        let value = match what {
            "trace" => Value::Array(
                d.trace()
                    .upto(d.cursor())
                    .iter()
                    .enumerate()
                    .map(|(i, e)| render::event_json(i + 1, &e, d.machine()))
                    .collect(),
            ),
            other => {
                let cmd = match other {
                    "ir" => Command::Ir(Some(0), Some(u32::MAX)),
                    "live" => Command::Live(None),
                    "constraints" => Command::Constraints(None),
                    "hist" => Command::Hist,
                    "state" => Command::State(None),
                    "attempts" => Command::Attempts(None),
                    "abi" => Command::Abi,
                    "stats" => Command::Stats,
                    "graph" => Command::Graph,
                    _ => Command::Knobs(true),
                };
                let _ = fi;
                self.exec(&cmd)?.json
            }
        };
        let text = serde_json::to_string_pretty(&value).map_err(|e| e.to_string())?;
        std::fs::write(&path, text + "\n").map_err(|e| format!("cannot write {file}: {e}"))?;
        Ok(Output::new(format!("wrote {what} to {file}"), json!({"exported": what, "file": file})))
    }
}

/// The vreg the current event is about (an assignment or a constraint list), else the
/// last one the fat-point core decided.
pub fn event_vreg(d: &Debugger) -> Option<(usize, VRegId)> {
    use crate::alloc::AllocEvent as A;
    if let Some(e) = d.current()
        && let (Some(fi), EventKind::Alloc(a)) = (e.func, &e.kind)
    {
        match a {
            A::Assign(x) => return Some((fi, x.vreg)),
            A::Constraints { vreg, .. } => return Some((fi, *vreg)),
            _ => {}
        }
    }
    query::current_vreg(d.machine())
}

/// The program point of the current event's instruction, when it has one.
pub fn current_point(d: &Debugger, fi: usize) -> Option<u32> {
    let m = d.machine();
    if query::alloc_of(m, fi).is_none() {
        return query::briggs_node_point(d, fi);
    }
    let a = query::alloc_of(m, fi)?;
    let (_, v) = event_vreg(d).filter(|(f, _)| *f == fi)?;
    a.analysis.ranges.segments(v).first().map(|s| s.0 / 2)
}
