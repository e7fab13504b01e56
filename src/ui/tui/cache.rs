//! Query results the TUI keeps between frames, so that a redraw costs only what is
//! visible: the pressure curve (one pass over the function) until the next command,
//! and the allocator state table at recent cursors so "changed by this event" does
//! not have to replay the pipeline after an ordinary step; the Why pane's answers
//! (`command::why_pane`).
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
    /// The Why pane's answers (the command layer keeps the finished run they come from).
    why: crate::command::why_pane::WhyPane,
}

impl std::fmt::Debug for Cache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cache")
            .field("curve", &self.curve)
            .field("states", &self.states.len())
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
        self.why.clear();
    }

    /// The Why pane's text for a vreg (`why spill`) or the function (`why registers`).
    pub fn why_text(&mut self, d: &Debugger, file: &str, fi: usize, vreg: Option<&str>) -> String {
        self.why.text(d, file, fi, vreg)
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
