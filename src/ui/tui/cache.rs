//! Query results the TUI keeps between frames, so that a redraw costs only what is
//! visible: the pressure curve (one pass over the function) until the next command,
//! and the allocator state table at recent cursors so "changed by this event" does
//! not have to replay the pipeline after an ordinary step.
//!
//! Holds copies of query results only; never a reference into the debugger.

use crate::command::Session;
use crate::engine::Debugger;
use crate::ir::RegFile;

/// State tables kept per run.
const STATE_TABLES: usize = 64;

#[derive(Default)]
pub struct Cache {
    /// (function, file, liveness epoch, curve).
    curve: Option<(usize, RegFile, usize, Vec<u32>)>,
    /// (cursor, state values) within the current run, oldest first.
    states: Vec<(usize, Vec<(u32, String)>)>,
    /// The run played to the end (what the Why pane answers from) until the run changes.
    finished: Option<Box<Debugger>>,
    /// (cursor, function, vreg, text) of the Why pane's last answer.
    why: Option<(usize, usize, Option<String>, String)>,
}

impl std::fmt::Debug for Cache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cache")
            .field("curve", &self.curve)
            .field("states", &self.states.len())
            .field("finished", &self.finished.is_some())
            .field("why", &self.why)
            .finish()
    }
}

impl Cache {
    /// The pipeline re-ran (an option changed, a file was loaded): what was cached by
    /// cursor describes another run.
    pub fn new_run(&mut self) {
        self.states.clear();
        self.curve = None;
        self.finished = None;
        self.why = None;
    }

    /// The Why pane's text for a vreg (`why spill`) or the function (`why registers`),
    /// answered from the finished run (kept until `new_run`, checked against the
    /// debugger's options and module).
    pub fn why_text(&mut self, d: &Debugger, file: &str, fi: usize, vreg: Option<&str>) -> String {
        let c = d.cursor();
        if let Some((k, f, v, t)) = &self.why
            && (*k, *f, v.as_deref()) == (c, fi, vreg)
        {
            return t.clone();
        }
        let stale =
            self.finished.as_ref().is_none_or(|x| x.opts != d.opts || !std::sync::Arc::ptr_eq(&x.loaded, &d.loaded));
        if stale {
            self.finished = Some(Box::new(crate::why::finished(d).into_owned()));
        }
        let fin = self.finished.as_deref().expect("just set");
        let cx = crate::why::Ctx { d: None, ..crate::why::Ctx::of(fin, file) };
        let q = match vreg {
            Some(v) => crate::why::WhyCmd::Spill(v.to_string()),
            None => crate::why::WhyCmd::Registers(None),
        };
        let t = match crate::why::answer(&q, &cx, fi) {
            Ok(x) => x.text,
            Err(e) => e,
        };
        self.why = Some((c, fi, vreg.map(str::to_string), t.clone()));
        t
    }

    /// Remembers the state table at the session's cursor.
    pub fn note_state(&mut self, s: &Session) {
        let Some(d) = s.dbg.as_ref() else { return };
        let c = d.cursor();
        if self.states.iter().any(|x| x.0 == c) {
            return;
        }
        self.states.push((c, d.state_value_map()));
        if self.states.len() > STATE_TABLES {
            self.states.remove(0);
        }
    }

    /// The state values before the current event (empty at the start). Replays the
    /// pipeline only when the previous cursor was never seen.
    pub fn state_before(&mut self, d: &Debugger) -> Vec<(u32, String)> {
        let Some(prev) = d.cursor().checked_sub(1) else { return Vec::new() };
        if let Some((_, t)) = self.states.iter().find(|x| x.0 == prev) {
            return t.clone();
        }
        let t = d.state_at(prev);
        self.states.push((prev, t.clone()));
        if self.states.len() > STATE_TABLES {
            self.states.remove(0);
        }
        t
    }

    /// The pressure curve of `file` in function `fi`, computed again only when the
    /// liveness it comes from changed (`query::liveness_epoch`) or the run did.
    pub fn curve(&mut self, d: &Debugger, fi: usize, file: RegFile) -> &[u32] {
        let epoch = crate::engine::query::liveness_epoch(d, fi);
        let fresh = matches!(&self.curve, Some((f, fl, e, _)) if *f == fi && *fl == file && *e == epoch);
        if !fresh {
            let c = crate::engine::query::pressure_curve(d.machine(), fi, file);
            self.curve = Some((fi, file, epoch, c));
        }
        self.curve.as_ref().map(|c| c.3.as_slice()).unwrap_or(&[])
    }
}
