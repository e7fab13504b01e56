//! The TUI's application state: the session (the only thing that changes the
//! debugger, through command lines), and view state — focus, zoom, scroll, the IR
//! cursor, the selected vreg, search, the command line and its history, the output
//! log. Keys become either view changes or command lines (`Effect::Run`), which the
//! event loop (or a test) runs with [`App::execute`].
//!
//! Never touches allocator state: panes read `session.dbg` through `engine::query`.

use crate::command::Session;
use crate::command::script::Recorder;
use crate::engine::query;
use crate::ui::Outcome;
use crate::ui::tui::cache::Cache;
use crate::ui::tui::input::{Action, Key, action_for};
use crate::ui::tui::layout::PaneId;
use crate::ui::tui::theme::Theme;

/// What the keyboard is talking to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Normal,
    /// Typing a command.
    Command,
    /// Typing a search pattern.
    Search,
    /// The help screen.
    Help,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogKind {
    Command,
    Output,
    /// Output of `diff`: a unified diff, coloured by line.
    Diff,
    Error,
}

/// One line of the output log.
#[derive(Clone, Debug, PartialEq)]
pub struct LogLine {
    pub kind: LogKind,
    pub text: String,
}

/// What a key asks of the event loop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Effect {
    None,
    Redraw,
    /// Run a command line (the event loop says "running" when it takes a while).
    Run(String),
}

/// Lines kept in the output log.
pub const LOG_LIMIT: usize = 5000;

/// View state only.
#[derive(Clone, Debug)]
pub struct View {
    pub mode: Mode,
    pub focus: PaneId,
    /// Panes by how recently they were focused (what a tabbed slot shows).
    pub recent: Vec<PaneId>,
    pub zoom: bool,
    /// Scroll offset of each pane (the log's counts from the bottom).
    pub scroll: [usize; PaneId::COUNT],
    /// The IR cursor; `None` follows the current event's instruction.
    pub ir_cursor: Option<u32>,
    /// First program point shown in the IR pane.
    pub ir_top: u32,
    /// Rows of the IR pane at the last frame.
    pub ir_rows: u16,
    /// Rows each pane had at the last frame it was drawn (for paging).
    pub rows: [u16; PaneId::COUNT],
    /// The vreg the constraints pane and `b`/`p` work on; `None`: the one being allocated.
    pub vreg: Option<String>,
    pub search: String,
    pub input: String,
    /// Cursor in `input`, in bytes.
    pub input_pos: usize,
    pub history: Vec<String>,
    history_pos: Option<usize>,
    draft: String,
    /// Candidates of the last ambiguous Tab.
    pub completions: Vec<String>,
    pub log: Vec<LogLine>,
    /// A one-line note for the bottom row (the last result, an error, a hint).
    pub message: Option<(String, bool)>,
    pub help_scroll: usize,
    pub quit: bool,
}

/// The TUI application.
pub struct App {
    pub session: Session,
    pub recorder: Option<Recorder>,
    pub theme: Theme,
    pub view: View,
    pub cache: Cache,
    /// Bumped after every command run (a redraw counter for front ends and tests).
    pub generation: u64,
}

impl App {
    pub fn new(session: Session, theme: Theme) -> App {
        let mut app = App {
            session,
            recorder: None,
            theme,
            view: View {
                mode: Mode::Normal,
                focus: PaneId::Ir,
                recent: vec![PaneId::Ir],
                zoom: false,
                scroll: [0; PaneId::COUNT],
                ir_cursor: None,
                ir_top: 0,
                ir_rows: 20,
                rows: [20; PaneId::COUNT],
                vreg: None,
                search: String::new(),
                input: String::new(),
                input_pos: 0,
                history: Vec::new(),
                history_pos: None,
                draft: String::new(),
                completions: Vec::new(),
                log: Vec::new(),
                message: None,
                help_scroll: 0,
                quit: false,
            },
            cache: Cache::default(),
            generation: 0,
        };
        app.cache.note_state(&app.session);
        app
    }

    /// The function the panes show: the one selected with `func`, else the current event's.
    pub fn func(&self) -> Option<usize> {
        let d = self.session.dbg.as_ref()?;
        if d.machine().module.functions.is_empty() {
            return None;
        }
        Some(self.session.selected.unwrap_or_else(|| query::current_func(d)))
    }

    /// The program point of the current event's instruction, when it has one.
    pub fn current_point(&self) -> Option<u32> {
        let d = self.session.dbg.as_ref()?;
        crate::command::exec::current_point(d, self.func()?)
    }

    /// The point the IR cursor is on (the current instruction when following).
    pub fn cursor_point(&self) -> u32 {
        self.view.ir_cursor.or_else(|| self.current_point()).unwrap_or(self.view.ir_top)
    }

    /// Instructions in the shown function.
    pub fn ir_len(&self) -> u32 {
        match (self.session.dbg.as_ref(), self.func()) {
            (Some(d), Some(fi)) => query::ir_len(d.machine(), fi),
            _ => 0,
        }
    }

    /// The selected vreg, or the one being allocated.
    pub fn vreg_name(&self) -> Option<String> {
        if let Some(v) = &self.view.vreg {
            return Some(v.clone());
        }
        let d = self.session.dbg.as_ref()?;
        let (fi, v) = query::current_vreg(d.machine())?;
        Some(query::func_ir(d.machine(), fi).vregs.get(v.index())?.name.to_string())
    }

    fn focus(&mut self, p: PaneId) {
        self.view.focus = p;
        self.view.recent.retain(|x| *x != p);
        self.view.recent.insert(0, p);
    }

    fn note(&mut self, text: impl Into<String>, error: bool) {
        self.view.message = Some((text.into(), error));
    }

    /// Handles a key.
    pub fn on_key(&mut self, key: Key) -> Effect {
        if let Key::Alt(c) = key {
            // Esc then a key, merged by the terminal: leave what is open, then the key.
            if self.view.mode != Mode::Normal {
                self.on_key(Key::Esc);
            }
            return self.on_key(Key::Ch(c));
        }
        match self.view.mode {
            Mode::Help => self.help_key(key),
            Mode::Command | Mode::Search => self.edit_key(key),
            Mode::Normal => {
                self.view.message = None;
                match action_for(key) {
                    Some(a) => self.act(a),
                    None if key == Key::Esc => {
                        self.view.vreg = None;
                        Effect::Redraw
                    }
                    None => {
                        self.note(format!("{} is not bound (? lists the keys)", key.name()), false);
                        Effect::Redraw
                    }
                }
            }
        }
    }

    fn help_key(&mut self, key: Key) -> Effect {
        match key {
            Key::Esc | Key::Ch('q') | Key::Ch('?') | Key::F(1) => self.view.mode = Mode::Normal,
            Key::Down | Key::Ch('j') => self.view.help_scroll += 1,
            Key::Up | Key::Ch('k') => self.view.help_scroll = self.view.help_scroll.saturating_sub(1),
            Key::PageDown | Key::Ch(' ') => self.view.help_scroll += 10,
            Key::PageUp => self.view.help_scroll = self.view.help_scroll.saturating_sub(10),
            Key::Home | Key::Ch('g') => self.view.help_scroll = 0,
            _ => return Effect::None,
        }
        Effect::Redraw
    }

    /// Carries out a key's action.
    pub fn act(&mut self, a: Action) -> Effect {
        match a {
            Action::Cmd(line) => Effect::Run(line.to_string()),
            Action::BreakOnVreg | Action::PrintVreg => match self.vreg_name() {
                Some(v) => Effect::Run(if a == Action::BreakOnVreg {
                    format!("break assign {v}")
                } else {
                    format!("print {v}")
                }),
                None => {
                    self.note("no vreg selected (v on an IR line selects one)", true);
                    Effect::Redraw
                }
            },
            Action::SelectVreg => {
                self.select_vreg();
                Effect::Redraw
            }
            Action::Follow => {
                self.view.ir_cursor = None;
                Effect::Redraw
            }
            Action::EditCommand => {
                self.view.mode = Mode::Command;
                self.view.completions.clear();
                Effect::Redraw
            }
            Action::Search => {
                self.view.mode = Mode::Search;
                self.view.input.clear();
                self.view.input_pos = 0;
                Effect::Redraw
            }
            Action::SearchNext | Action::SearchPrev => {
                self.search(a == Action::SearchNext);
                Effect::Redraw
            }
            Action::FocusNext | Action::FocusPrev => {
                let i = self.view.focus.index();
                let n = PaneId::ALL.len();
                let j = if a == Action::FocusNext { (i + 1) % n } else { (i + n - 1) % n };
                self.focus(PaneId::ALL[j]);
                Effect::Redraw
            }
            Action::Focus(i) => {
                self.focus(PaneId::ALL[i as usize % PaneId::ALL.len()]);
                Effect::Redraw
            }
            Action::Zoom => {
                self.view.zoom = !self.view.zoom;
                Effect::Redraw
            }
            Action::Scroll(d) => {
                self.scroll(d as i64);
                Effect::Redraw
            }
            Action::Page(d) => {
                let page = self.view.rows[self.view.focus.index()].max(2) as i64 - 1;
                self.scroll(d as i64 * page);
                Effect::Redraw
            }
            Action::Top => {
                self.scroll(i64::MIN / 2);
                Effect::Redraw
            }
            Action::Bottom => {
                self.scroll(i64::MAX / 2);
                Effect::Redraw
            }
            Action::Help => {
                self.view.mode = Mode::Help;
                self.view.help_scroll = 0;
                Effect::Redraw
            }
            Action::Redraw => Effect::Redraw,
            Action::Interrupt => {
                self.note("nothing is running (q quits)", false);
                Effect::Redraw
            }
            Action::Quit => {
                self.view.quit = true;
                Effect::None
            }
        }
    }

    fn scroll(&mut self, d: i64) {
        match self.view.focus {
            PaneId::Ir => {
                let len = self.ir_len();
                if len == 0 {
                    return;
                }
                let p = (self.cursor_point() as i64 + d).clamp(0, len as i64 - 1);
                self.view.ir_cursor = Some(p as u32);
            }
            PaneId::Log => {
                // The log scrolls from the bottom: down is towards the newest line.
                let s = &mut self.view.scroll[PaneId::Log.index()];
                *s = (*s as i64 - d).clamp(0, self.view.log.len() as i64) as usize;
            }
            p => {
                let s = &mut self.view.scroll[p.index()];
                *s = (*s as i64 + d).clamp(0, 1_000_000) as usize;
            }
        }
    }

    /// The vreg names an IR line mentions, in order (components folded to their vreg).
    pub fn vregs_of_line(&self, point: u32) -> Vec<String> {
        let (Some(d), Some(fi)) = (self.session.dbg.as_ref(), self.func()) else { return Vec::new() };
        let Some(line) = query::ir_lines(d.machine(), fi, point..point + 1).pop() else { return Vec::new() };
        let f = query::func_ir(d.machine(), fi);
        let mut out: Vec<String> = Vec::new();
        for tok in line.text.split(|c: char| !(c.is_ascii_alphanumeric() || "%_$.".contains(c))) {
            let Some(start) = tok.find('%') else { continue };
            let mut name = &tok[start..];
            if f.vreg_by_name(name).is_none()
                && let Some(dot) = name.rfind('.')
            {
                name = &name[..dot];
            }
            if f.vreg_by_name(name).is_some() && !out.iter().any(|x| x == name) {
                out.push(name.to_string());
            }
        }
        out
    }

    fn select_vreg(&mut self) {
        let names = self.vregs_of_line(self.cursor_point());
        if names.is_empty() {
            self.view.vreg = None;
            self.note("no vreg on this line; following the vreg being allocated", false);
            return;
        }
        let next = match self.view.vreg.as_ref().and_then(|v| names.iter().position(|n| n == v)) {
            Some(i) => names.get(i + 1).cloned(),
            None => Some(names[0].clone()),
        };
        self.view.vreg = next.clone();
        match next {
            Some(v) => self.note(format!("selected {v} (b: break on its assignment, p: print it, Esc: clear)"), false),
            None => self.note("selection cleared: following the vreg being allocated", false),
        }
    }

    /// Jumps the IR cursor to the next (or previous) line matching the search pattern.
    pub fn search(&mut self, forward: bool) {
        let pat = self.view.search.clone();
        if pat.is_empty() {
            self.note("no search pattern (/ starts one)", true);
            return;
        }
        let (Some(d), Some(fi)) = (self.session.dbg.as_ref(), self.func()) else { return };
        let m = d.machine();
        let len = query::ir_len(m, fi);
        if len == 0 {
            return;
        }
        let start = self.cursor_point();
        // Scan in chunks from the cursor, wrapping once; each chunk builds only its lines,
        // small first (a match is usually near) and doubling up to 4096.
        let mut chunk: u32 = 128;
        let matches = |l: &query::IrLine| {
            l.text.contains(&pat) || l.assigned.iter().any(|(v, r)| v == &pat || r == &pat || format!("{v}→{r}") == pat)
        };
        let mut found = None;
        let mut scanned = 0u32;
        let mut pos = start;
        while scanned < len && found.is_none() {
            let (lo, hi) = if forward {
                let lo = (pos + 1) % len;
                (lo, (lo + chunk).min(len))
            } else {
                let hi = if pos == 0 { len } else { pos };
                (hi.saturating_sub(chunk), hi)
            };
            chunk = (chunk * 2).min(4096);
            let lines = query::ir_lines(m, fi, lo..hi);
            let hit = if forward { lines.iter().find(|l| matches(l)) } else { lines.iter().rev().find(|l| matches(l)) };
            found = hit.map(|l| l.point);
            scanned += hi - lo;
            pos = if forward { hi - 1 } else { lo };
        }
        match found {
            Some(p) => {
                self.view.ir_cursor = Some(p);
                self.focus(PaneId::Ir);
                let wrapped = if forward { p <= start } else { p >= start };
                self.note(format!("/{pat}: point {p}{}", if wrapped { " (wrapped)" } else { "" }), false);
            }
            None => self.note(format!("/{pat}: no match"), true),
        }
    }

    fn edit_key(&mut self, key: Key) -> Effect {
        let v = &mut self.view;
        match key {
            Key::Esc => leave_edit(v),
            // Ctrl-C clears a line, and leaves the command line when it is empty.
            Key::Ctrl('c') if v.input.is_empty() => leave_edit(v),
            Key::Ctrl('c') => {
                v.input.clear();
                v.input_pos = 0;
            }
            Key::Ctrl('u') => {
                v.input.replace_range(..v.input_pos, "");
                v.input_pos = 0;
            }
            Key::Enter => {
                let line = std::mem::take(&mut v.input);
                v.input_pos = 0;
                v.completions.clear();
                v.history_pos = None;
                if v.mode == Mode::Search {
                    v.mode = Mode::Normal;
                    if !line.is_empty() {
                        v.search = line;
                    }
                    self.search(true);
                    return Effect::Redraw;
                }
                // Enter closes the command line, as in vim and less: the next key is a
                // key again, and `:` opens the line anew.
                v.mode = Mode::Normal;
                if line.trim().is_empty() {
                    return Effect::Redraw;
                }
                if v.history.last() != Some(&line) {
                    v.history.push(line.clone());
                }
                return Effect::Run(line);
            }
            Key::Tab if v.mode == Mode::Command => self.complete(),
            // A `:` typed on an empty command line is the one that opened it, typed
            // again out of habit: `::continue` runs `continue`.
            Key::Ch(':') if v.mode == Mode::Command && v.input.is_empty() => {}
            Key::Ch(c) => {
                v.input.insert(v.input_pos, c);
                v.input_pos += c.len_utf8();
                v.completions.clear();
            }
            Key::Backspace | Key::Ctrl('h') => backspace(v),
            Key::Delete => {
                let n = next_boundary(&v.input, v.input_pos);
                v.input.replace_range(v.input_pos..n, "");
            }
            Key::Left => v.input_pos = prev_boundary(&v.input, v.input_pos),
            Key::Right => v.input_pos = next_boundary(&v.input, v.input_pos),
            Key::Home | Key::Ctrl('a') => v.input_pos = 0,
            Key::End | Key::Ctrl('e') => v.input_pos = v.input.len(),
            Key::Ctrl('k') => v.input.truncate(v.input_pos),
            Key::Ctrl('w') => {
                let before = &v.input[..v.input_pos];
                let start = before.trim_end().rfind(' ').map(|i| i + 1).unwrap_or(0);
                v.input.replace_range(start..v.input_pos, "");
                v.input_pos = start;
            }
            Key::Up | Key::Down if v.mode == Mode::Command => self.history(key == Key::Up),
            Key::PageUp | Key::PageDown => {
                let d = if key == Key::PageUp { -10 } else { 10 };
                let s = &mut v.scroll[PaneId::Log.index()];
                *s = (*s as i64 - d).clamp(0, v.log.len() as i64) as usize;
            }
            _ => return Effect::None,
        }
        Effect::Redraw
    }

    fn history(&mut self, up: bool) {
        let v = &mut self.view;
        if v.history.is_empty() {
            return;
        }
        let pos = match (v.history_pos, up) {
            (None, true) => {
                v.draft = v.input.clone();
                Some(v.history.len() - 1)
            }
            (None, false) => None,
            (Some(i), true) => Some(i.saturating_sub(1)),
            (Some(i), false) if i + 1 < v.history.len() => Some(i + 1),
            (Some(_), false) => None,
        };
        v.history_pos = pos;
        v.input = match pos {
            Some(i) => v.history[i].clone(),
            None => v.draft.clone(),
        };
        v.input_pos = v.input.len();
    }

    fn complete(&mut self) {
        let c = crate::ui::complete::complete(&self.session, &self.view.input, self.view.input_pos);
        let v = &mut self.view;
        let insert = match c.candidates.len() {
            0 => {
                v.completions.clear();
                return;
            }
            1 => {
                let w = &c.candidates[0];
                v.completions.clear();
                if w.ends_with('=') || w.ends_with('/') { w.clone() } else { format!("{w} ") }
            }
            _ => {
                v.completions = c.candidates.clone();
                c.common_prefix()
            }
        };
        if insert.len() >= v.input_pos - c.start {
            v.input.replace_range(c.start..v.input_pos, &insert);
            v.input_pos = c.start + insert.len();
        }
    }

    /// Runs a command line through the session (recording it), logs the outcome and
    /// invalidates cached query results.
    pub fn execute(&mut self, line: &str) {
        let file_before = self.session.file.clone();
        self.push_log(LogKind::Command, format!("(radbg) {}", line.trim()));
        let outcomes = crate::ui::run_line(&mut self.session, line, self.recorder.as_mut());
        let mut last = None;
        for o in &outcomes {
            match o {
                Outcome::Parse { line, error } => {
                    let text = error.render(line);
                    self.push_log(LogKind::Error, text.clone());
                    last = Some((text.lines().next().unwrap_or("").to_string(), true));
                }
                Outcome::Ran { text, result: Ok(out) } => {
                    let kind = if out.failed {
                        LogKind::Error
                    } else if text.starts_with("diff") {
                        LogKind::Diff
                    } else {
                        LogKind::Output
                    };
                    if !out.text.is_empty() {
                        self.push_log(kind, out.text.clone());
                    }
                    let first = out.text.lines().next().unwrap_or("").to_string();
                    last = Some((first, out.failed));
                }
                Outcome::Ran { result: Err(e), .. } => {
                    let e = crate::command::exec::error_text(e);
                    last = Some((e.lines().next().unwrap_or("").to_string(), true));
                    self.push_log(LogKind::Error, e);
                }
            }
        }
        self.view.message = last.filter(|(t, _)| !t.is_empty());
        self.view.scroll[PaneId::Log.index()] = 0;
        self.generation += 1;
        let rerun = outcomes.iter().any(|o| {
            matches!(o, Outcome::Ran { text, result: Ok(_) } if text.starts_with("set ") || text.starts_with("load "))
        });
        if self.session.file != file_before || rerun {
            self.cache.new_run();
        }
        if self.session.file != file_before {
            self.view.ir_cursor = None;
            self.view.vreg = None;
        }
        self.cache.note_state(&self.session);
        if self.session.quit {
            self.view.quit = true;
        }
    }

    /// Presses a key and runs the command it asks for, as the event loop would.
    pub fn press(&mut self, key: Key) {
        if let Effect::Run(line) = self.on_key(key) {
            self.execute(&line);
        }
    }

    /// Types a command line and presses Enter (entering and leaving command mode).
    pub fn type_command(&mut self, line: &str) {
        let was = self.view.mode;
        self.view.mode = Mode::Command;
        for c in line.chars() {
            self.on_key(Key::Ch(c));
        }
        self.press(Key::Enter);
        if was != Mode::Command {
            self.view.mode = was;
        }
    }

    pub fn push_log(&mut self, kind: LogKind, text: String) {
        for l in text.lines() {
            self.view.log.push(LogLine { kind, text: l.to_string() });
        }
        if self.view.log.len() > LOG_LIMIT {
            let extra = self.view.log.len() - LOG_LIMIT;
            self.view.log.drain(..extra);
        }
    }
}

fn prev_boundary(s: &str, i: usize) -> usize {
    s[..i].char_indices().next_back().map(|(j, _)| j).unwrap_or(0)
}

fn next_boundary(s: &str, i: usize) -> usize {
    s[i..].chars().next().map(|c| i + c.len_utf8()).unwrap_or(i)
}

fn leave_edit(v: &mut View) {
    v.mode = Mode::Normal;
    v.input.clear();
    v.input_pos = 0;
    v.completions.clear();
}

fn backspace(v: &mut View) {
    if v.input_pos > 0 {
        let p = prev_boundary(&v.input, v.input_pos);
        v.input.replace_range(p..v.input_pos, "");
        v.input_pos = p;
    }
    v.completions.clear();
}
