//! What a reduction tells its user: the progress line (pass, size now against the
//! start, tests run, time), redrawn in place on a terminal and printed as plain lines
//! otherwise, and the summary in words (its JSON form is `cli::reduce`'s).

use std::io::Write;
use std::time::Duration;

use crate::reduce::search::{Outcome, Progress};

/// `now` as a percentage of `start` (100 when `start` is 0).
pub fn pct(now: usize, start: usize) -> f64 {
    if start == 0 { 100.0 } else { now as f64 * 100.0 / start as f64 }
}

/// One progress line: `round 1 · instructions · 412 → 37 instructions (9.0 %) · 96 tests · 3.1 s`.
pub fn line(p: &Progress) -> String {
    format!(
        "round {} · {} · {} → {} instructions ({:.1} %) · {} tests · {:.1} s",
        p.round,
        p.pass,
        p.start_insts,
        p.insts,
        pct(p.insts, p.start_insts),
        p.tests,
        p.elapsed.as_secs_f64()
    )
}

/// Draws progress on standard error: one line rewritten in place on a terminal (at most
/// ten times a second), else a plain line whenever the pass or the size changes.
pub struct Reporter {
    tty: bool,
    last: Option<(String, usize)>,
    last_draw: Option<std::time::Instant>,
    drawn: bool,
}

impl Reporter {
    pub fn new(tty: bool) -> Reporter {
        Reporter { tty, last: None, last_draw: None, drawn: false }
    }

    pub fn update(&mut self, p: &Progress) {
        let key = (p.pass.to_string(), p.insts);
        let mut err = std::io::stderr().lock();
        if self.tty {
            let due = self.last_draw.is_none_or(|t| t.elapsed() >= Duration::from_millis(100));
            if due || self.last.as_ref() != Some(&key) {
                let _ = write!(err, "\r\x1b[K{}", line(p));
                let _ = err.flush();
                self.last_draw = Some(std::time::Instant::now());
                self.drawn = true;
            }
        } else if self.last.as_ref() != Some(&key) {
            let _ = writeln!(err, "{}", line(p));
        }
        self.last = Some(key);
    }

    /// Ends the in-place line so what follows starts on its own line.
    pub fn finish(&mut self) {
        if self.tty && self.drawn {
            let _ = writeln!(std::io::stderr());
            self.drawn = false;
        }
    }
}

/// The closing summary in words.
pub fn summary(o: &Outcome, predicate: &str, out: &str) -> String {
    let mut s = format!(
        "reduced to {} instructions from {} ({:.1} %), {} bytes from {}, keeping '{predicate}': {} tests ({} cached, {} invalid), {} round(s), {:.1} s; wrote {out}",
        o.insts,
        o.start_insts,
        pct(o.insts, o.start_insts),
        o.bytes,
        o.start_bytes,
        o.tests,
        o.cached,
        o.invalid,
        o.rounds,
        o.elapsed.as_secs_f64()
    );
    if o.timed_out {
        s.push_str(" (time budget reached: the best so far)");
    }
    s
}
