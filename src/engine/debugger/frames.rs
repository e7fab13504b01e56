//! The pipeline as a call stack, for gdb's `backtrace`, `frame`, `up`, `down` and
//! `reverse-finish`: the event at the cursor inside its attempt (a Chaitin-Briggs
//! iteration under `set allocator briggs`), its register class, its stage and its
//! function. Each frame names the event that opened it, so `goto` can go there.
//!
//! Frames are derived from the trace up to the cursor; nothing is stored.

use crate::alloc::AllocEvent as A;
use crate::alloc::briggs::BriggsEvent as B;
use crate::engine::debugger::Debugger;
use crate::engine::event::EventKind;

/// What a frame is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameKind {
    Event,
    Attempt,
    Class,
    Stage,
    Function,
}

impl FrameKind {
    pub fn name(self) -> &'static str {
        match self {
            FrameKind::Event => "event",
            FrameKind::Attempt => "attempt",
            FrameKind::Class => "class",
            FrameKind::Stage => "stage",
            FrameKind::Function => "function",
        }
    }
}

/// One frame of the pipeline stack.
#[derive(Clone, Debug, PartialEq)]
pub struct Frame {
    pub kind: FrameKind,
    /// What the frame is about: `R attempt 1 (SPILL)`, `class R`, `alloc`, `fir16`.
    pub what: String,
    /// The event number that opened the frame (the cursor value right after it).
    pub opened: usize,
}

/// The stack at the cursor, innermost (the current event) first; empty before the
/// first event.
pub fn frames(d: &Debugger) -> Vec<Frame> {
    let cur = d.cursor();
    let trace = d.trace();
    let Some(ev) = cur.checked_sub(1).and_then(|i| trace.get(i)) else { return Vec::new() };
    let module = &d.machine().module;
    let mut out = vec![Frame { kind: FrameKind::Event, what: ev.kind_name().to_string(), opened: cur }];
    // Scan back over this stage's run of events of this function: the innermost open
    // attempt (or iteration), then the open class. An end event closes its scope for
    // the events after it, not for itself.
    let mut stage_open = cur;
    let (mut attempt, mut class) = (None, None);
    let (mut attempt_closed, mut class_closed) = (false, false);
    for i in (0..cur).rev() {
        let Some(e) = trace.get(i) else { break };
        if e.func != ev.func || e.stage() != ev.stage() {
            break;
        }
        stage_open = i + 1;
        let own = i + 1 == cur;
        match &e.kind {
            EventKind::Alloc(A::AttemptStart { class: c, attempt: n, spill, .. })
                if attempt.is_none() && !attempt_closed && !class_closed =>
            {
                let mode = if *spill { "SPILL" } else { "NOSPILL" };
                attempt = Some(Frame {
                    kind: FrameKind::Attempt,
                    what: format!("{} attempt {n} ({mode})", c.name()),
                    opened: i + 1,
                });
            }
            EventKind::Briggs(B::IterationStart { n, .. }) if attempt.is_none() && !attempt_closed => {
                attempt = Some(Frame { kind: FrameKind::Attempt, what: format!("iteration {n}"), opened: i + 1 });
            }
            EventKind::Alloc(A::AttemptEnd { .. }) | EventKind::Briggs(B::IterationEnd { .. }) if !own => {
                attempt_closed = true;
            }
            EventKind::Alloc(A::ClassStart { class: c, .. }) if class.is_none() && !class_closed => {
                class = Some(Frame { kind: FrameKind::Class, what: format!("class {}", c.name()), opened: i + 1 });
            }
            EventKind::Alloc(A::ClassEnd { .. }) if !own => class_closed = true,
            _ => {}
        }
    }
    out.extend(attempt);
    out.extend(class);
    out.push(Frame { kind: FrameKind::Stage, what: ev.stage().name().to_string(), opened: stage_open });
    if let Some(fi) = ev.func {
        let mut opened = cur;
        while opened > 1 && trace.get(opened - 2).is_some_and(|e| e.func == ev.func) {
            opened -= 1;
        }
        let name = module.functions.get(fi).map(|f| f.name.to_string()).unwrap_or_default();
        out.push(Frame { kind: FrameKind::Function, what: name, opened });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{RunOptions, breakpoint::BpKind};

    fn demo() -> Debugger {
        let file = crate::ir::span::SourceFile::from_bytes("demo".to_string(), crate::demo::DEMO.as_bytes()).unwrap();
        Debugger::new(crate::load::load_ori(&file).unwrap().module, RunOptions::default())
    }

    #[test]
    fn an_assignment_sits_in_attempt_class_stage_function() {
        let mut d = demo();
        d.add_breakpoint(BpKind::Attempt { number: Some(1), class: None, spill: None });
        d.cont(&|| false);
        let start = d.cursor();
        d.step(3);
        let f = frames(&d);
        let kinds: Vec<FrameKind> = f.iter().map(|x| x.kind).collect();
        assert_eq!(
            kinds,
            [FrameKind::Event, FrameKind::Attempt, FrameKind::Class, FrameKind::Stage, FrameKind::Function]
        );
        assert_eq!(f[1].opened, start);
        assert!(f[1].what.contains("attempt 1"), "{:?}", f[1]);
        assert!(f[2].opened < start && f[3].opened <= f[2].opened && f[4].opened <= f[3].opened);
        // reverse-finish goes to the attempt's start, then to the class's.
        d.reverse_finish();
        assert_eq!(d.cursor(), start);
        d.reverse_finish();
        assert_eq!(d.cursor(), f[2].opened);
    }

    #[test]
    fn nothing_before_the_first_event() {
        assert!(frames(&demo()).is_empty());
    }
}
