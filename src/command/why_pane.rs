//! The Why pane's answer: `why spill %v` for the vreg the pane follows, `why registers`
//! otherwise, answered from the run played to the end (the answers describe the
//! finished allocation whatever the cursor). The run and the last answer are kept until
//! the run changes, so a redraw costs nothing; front ends ask here rather than
//! orchestrating `why` themselves.

use crate::engine::Debugger;
use crate::why::{Ctx, WhyCmd};

#[derive(Default)]
pub struct WhyPane {
    /// The run played to the end, until the run changes.
    finished: Option<Box<Debugger>>,
    /// (cursor, function, vreg, text) of the last answer.
    last: Option<(usize, usize, Option<String>, String)>,
}

impl std::fmt::Debug for WhyPane {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WhyPane").field("finished", &self.finished.is_some()).field("last", &self.last).finish()
    }
}

impl WhyPane {
    /// The pipeline re-ran (an option changed, a file was loaded): forget the old run.
    pub fn clear(&mut self) {
        *self = WhyPane::default();
    }

    /// The answer for function `fi` and `vreg` (or the function's registers) of the
    /// debugger's run. The finished run is rebuilt when the debugger's options or
    /// module are no longer those it was played with.
    pub fn text(&mut self, d: &Debugger, file: &str, fi: usize, vreg: Option<&str>) -> String {
        let c = d.cursor();
        if let Some((k, f, v, t)) = &self.last
            && (*k, *f, v.as_deref()) == (c, fi, vreg)
        {
            return t.clone();
        }
        let stale = self.finished.as_ref().is_none_or(|x| x.opts != d.opts || !x.same_loaded(d));
        if stale {
            self.finished = Some(Box::new(crate::why::finished(d).into_owned()));
        }
        let Some(fin) = self.finished.as_deref() else { return String::new() };
        // No cursor-time detail: the pane answers from the finished run only.
        let cx = Ctx { d: None, ..Ctx::of(fin, file) };
        let q = match vreg {
            Some(v) => WhyCmd::Spill(v.to_string()),
            None => WhyCmd::Registers(None),
        };
        let t = match crate::why::answer(&q, &cx, fi) {
            Ok(x) => x.text,
            Err(e) => e,
        };
        self.last = Some((c, fi, vreg.map(str::to_string), t.clone()));
        t
    }
}
