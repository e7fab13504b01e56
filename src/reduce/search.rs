//! The search: delta debugging over each pass's items (ddmin's chunk schedule, as
//! llvm-reduce runs it: try removing large contiguous chunks first, halve the chunk
//! size when none can go), all passes repeated until a round changes nothing.
//!
//! Determinism: candidates are decided in a fixed order. A batch of up to `jobs`
//! consecutive chunks is tested in parallel (`std::thread::scope`), and the first
//! success *in chunk order* is taken — exactly the candidate a one-thread search would
//! have taken, since it tests the same chunks in the same order and they all failed.
//! So the output never depends on the thread count or on timing (only the number of
//! tests run does). Tested texts are cached by hash: passes that revisit a candidate
//! (the instruction pass after the operand pass) do not run it again.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::time::{Duration, Instant};

use crate::engine::RunOptions;
use crate::reduce::pass::Pass;
use crate::reduce::predicate::{self, Predicate};
use crate::reduce::subject::{self, Format};

/// How to search.
#[derive(Clone, Debug)]
pub struct Config {
    pub opts: RunOptions,
    /// Candidates tested at once (1: sequential).
    pub jobs: usize,
    /// Stop after this long and return the best so far.
    pub timeout: Option<Duration>,
    /// At most this many rounds of all passes.
    pub max_rounds: usize,
    /// The real ptxas, when there is one, for PTX: a candidate of a pass that rewrites
    /// types (vector and register widths, which only radbg's loader would check
    /// otherwise) must be accepted by it before it is tested, and the result is checked
    /// with it (see [`Outcome::ptxas_note`]). `differs-from-ptxas` runs it on every
    /// candidate anyway.
    pub ptxas: Option<String>,
}

impl Config {
    pub fn new(opts: RunOptions) -> Config {
        let jobs = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
        Config { opts, jobs, timeout: None, max_rounds: 20, ptxas: None }
    }
}

/// Where the search is, for the progress line.
#[derive(Clone, Debug)]
pub struct Progress<'a> {
    pub pass: &'a str,
    pub round: usize,
    pub start_insts: usize,
    pub insts: usize,
    pub start_bytes: usize,
    pub bytes: usize,
    pub tests: usize,
    pub elapsed: Duration,
}

/// The result of a reduction.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The reduced kernel (it parses, validates and shows the predicate).
    pub text: String,
    /// The predicate as it was kept (with what `differs-from-ptxas` calibrated).
    pub predicate: String,
    pub start_insts: usize,
    pub insts: usize,
    pub start_bytes: usize,
    pub bytes: usize,
    /// Candidates run through the predicate.
    pub tests: usize,
    /// Candidates answered from the cache.
    pub cached: usize,
    /// Candidates the loaders rejected (never tested).
    pub invalid: usize,
    pub rounds: usize,
    /// The time budget ran out: `text` is the best found so far.
    pub timed_out: bool,
    pub elapsed: Duration,
    /// Set when [`Config::ptxas`] rejected the reduced kernel: `text` is then the latest
    /// state (after a pass) it accepts (or, when it accepts none — not even the input —
    /// the reduced kernel, and the note says so).
    pub ptxas_note: Option<String>,
}

struct Search<'p> {
    format: Format,
    pred: &'p Predicate,
    cfg: Config,
    cache: HashMap<u64, bool>,
    start: Instant,
    out: Outcome,
}

fn hash(text: &str) -> u64 {
    let mut h = std::hash::DefaultHasher::new();
    text.hash(&mut h);
    h.finish()
}

/// Whether a candidate loads (and, given `ptxas`, the real ptxas accepts it) and shows
/// the predicate, with its instruction count (`None`: rejected, never tested).
fn test(format: Format, pred: &Predicate, opts: &RunOptions, text: &str, ptxas: Option<&str>) -> (bool, Option<usize>) {
    let Ok(p) = subject::load(format, text) else { return (false, None) };
    if let Some(exe) = ptxas
        && !accepts(exe, text, &p.module, opts)
    {
        return (false, None);
    }
    let mut o = opts.clone();
    o.imported = format == Format::Ptx;
    let insts = p.insts;
    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| predicate::eval(pred, text, &p.module, &o)));
    (matches!(run, Ok(Ok(true))), Some(insts))
}

/// Whether the real ptxas compiles `text` at the run's target and budget.
fn accepts(exe: &str, text: &str, module: &crate::ir::Module, opts: &RunOptions) -> bool {
    let sm = opts.sm.clone().unwrap_or_else(|| module.sm.clone()).to_string();
    crate::reduce::ptxas::run(exe, text, &sm, opts.maxrregcount).is_ok()
}

impl Search<'_> {
    /// The ptxas that must accept a candidate of `pass`: only for passes that rewrite
    /// types, in PTX, when the predicate does not run it anyway.
    fn ptxas_for(&self, pass: &dyn Pass) -> Option<String> {
        let needed = self.format == Format::Ptx && pass.rewrites_types() && !self.pred.needs_ptx();
        self.cfg.ptxas.clone().filter(|_| needed)
    }

    fn timed_out(&self) -> bool {
        self.cfg.timeout.is_some_and(|t| self.start.elapsed() >= t)
    }

    fn report(&self, pass: &str, round: usize, progress: &mut dyn FnMut(&Progress)) {
        progress(&Progress {
            pass,
            round,
            start_insts: self.out.start_insts,
            insts: self.out.insts,
            start_bytes: self.out.start_bytes,
            bytes: self.out.bytes,
            tests: self.out.tests,
            elapsed: self.start.elapsed(),
        });
    }

    /// Tests candidates (in parallel when there are several) and returns the index of
    /// the first that shows the predicate, with its instruction count.
    fn first_success(&mut self, cands: &[String], ptxas: Option<&str>) -> Option<(usize, usize)> {
        let keys: Vec<u64> = cands.iter().map(|c| hash(c)).collect();
        let todo: Vec<usize> = (0..cands.len()).filter(|&i| !self.cache.contains_key(&keys[i])).collect();
        // Within one batch a text may repeat; test it once.
        let mut fresh: Vec<usize> = Vec::new();
        for &i in &todo {
            if !fresh.iter().any(|&j| keys[j] == keys[i]) {
                fresh.push(i);
            }
        }
        self.out.cached += cands.len() - fresh.len();
        let (format, pred, opts) = (self.format, self.pred, &self.cfg.opts);
        let results: Vec<(bool, Option<usize>)> = if fresh.len() <= 1 {
            fresh.iter().map(|&i| test(format, pred, opts, &cands[i], ptxas)).collect()
        } else {
            std::thread::scope(|s| {
                let handles: Vec<_> =
                    fresh.iter().map(|&i| s.spawn(move || test(format, pred, opts, &cands[i], ptxas))).collect();
                handles.into_iter().map(|h| h.join().unwrap_or((false, None))).collect()
            })
        };
        let mut insts = HashMap::new();
        for (&i, &(ok, n)) in fresh.iter().zip(&results) {
            match n {
                Some(_) => self.out.tests += 1,
                None => self.out.invalid += 1,
            }
            self.cache.insert(keys[i], ok);
            if let Some(n) = n {
                insts.insert(keys[i], n);
            }
        }
        let i = (0..cands.len()).find(|&i| self.cache.get(&keys[i]) == Some(&true))?;
        // A cached success is a text seen before (never the case for a text that shrinks
        // monotonically, but cheap to answer): recount it.
        let n = match insts.get(&keys[i]) {
            Some(&n) => n,
            None => subject::load(self.format, &cands[i]).map(|p| p.insts).unwrap_or(self.out.insts),
        };
        Some((i, n))
    }

    /// The first cuts of a large kernel (`reduce::slices`): keep only one slice of
    /// `pass`'s items (the instructions), a sixteenth then a quarter, the first slice in
    /// order that shows the predicate; repeated while the kernel stays large. True when
    /// it changed `text`.
    fn first_cuts(
        &mut self,
        pass: &dyn Pass,
        coarse: &[&dyn Pass],
        text: &mut String,
        progress: &mut dyn FnMut(&Progress),
    ) -> bool {
        let mut changed = false;
        while self.out.insts > crate::reduce::slices::MIN_INSTS {
            let found = {
                let Some(items) = pass.prepare(text) else { break };
                let n = items.count();
                let mut found = None;
                'parts: for parts in crate::reduce::slices::PARTS {
                    let cands: Vec<String> =
                        crate::reduce::slices::slices(n, parts).into_iter().filter_map(|r| items.keep(r)).collect();
                    for batch in cands.chunks(self.cfg.jobs.max(1)) {
                        if self.timed_out() {
                            self.out.timed_out = true;
                            return changed;
                        }
                        let hit = self.first_success(batch, None);
                        self.report("slices", 1, progress);
                        if let Some((i, insts)) = hit {
                            found = Some((batch[i].clone(), insts));
                            break 'parts;
                        }
                    }
                }
                found
            };
            let Some((t, insts)) = found else {
                // No slice alone: large contiguous chunks of blocks and instructions.
                let mut moved = false;
                for p in coarse {
                    moved |= self.run_pass(*p, 1, text, progress, true);
                    if self.out.timed_out {
                        return changed || moved;
                    }
                }
                changed |= moved;
                if moved {
                    continue;
                }
                break;
            };
            *text = t;
            self.out.insts = insts;
            self.out.bytes = text.len();
            changed = true;
            self.report("slices", 1, progress);
        }
        changed
    }

    /// One pass to its own fixed point over chunk sizes; true when it changed `text`.
    ///
    /// `coarse`: chunks of at least 1/[`slices::COARSE`] of the items only (the first
    /// cuts of a large kernel; the rounds take it down to single items).
    fn run_pass(
        &mut self,
        pass: &dyn Pass,
        round: usize,
        text: &mut String,
        progress: &mut dyn FnMut(&Progress),
        coarse: bool,
    ) -> bool {
        let mut changed = false;
        let ptxas = self.ptxas_for(pass);
        let mut chunk = 0;
        let mut pos = 0;
        loop {
            let accepted = {
                let Some(items) = pass.prepare(text) else { return changed };
                let n = items.count();
                if n == 0 {
                    return changed;
                }
                if chunk == 0 || chunk > n {
                    chunk = n;
                }
                let floor = if coarse { (n / crate::reduce::slices::COARSE).max(1) } else { 1 };
                let mut found = None;
                'sizes: loop {
                    while pos < n {
                        if self.timed_out() {
                            self.out.timed_out = true;
                            return changed;
                        }
                        let mut ranges = Vec::new();
                        let mut cands = Vec::new();
                        let mut p = pos;
                        while cands.len() < self.cfg.jobs.max(1) && p < n {
                            let r = p..(p + chunk).min(n);
                            p = r.end;
                            if let Some(t) = items.apply(r.clone()) {
                                ranges.push(r);
                                cands.push(t);
                            }
                        }
                        let hit = self.first_success(&cands, ptxas.as_deref());
                        self.report(pass.name(), round, progress);
                        if let Some((i, insts)) = hit {
                            pos = ranges[i].start;
                            found = Some((cands.swap_remove(i), insts));
                            break 'sizes;
                        }
                        pos = p;
                    }
                    if chunk <= floor {
                        break;
                    }
                    chunk = chunk.div_ceil(2);
                    pos = 0;
                }
                found
            };
            match accepted {
                Some((t, insts)) => {
                    *text = t;
                    self.out.insts = insts;
                    self.out.bytes = text.len();
                    changed = true;
                    self.report(pass.name(), round, progress);
                }
                None => return changed,
            }
        }
    }
}

/// The result as the real ptxas checks it: `text` when ptxas accepts it, else the latest
/// earlier state it accepts (`history`: the start, then the text after each pass that
/// changed it; every one showed the predicate), else `text` with a note (ptxas rejects
/// the input too). The passes whose candidates radbg's loader cannot vouch for had each
/// checked by ptxas; this catches what the others might still produce.
fn checked_by_ptxas(exe: &str, opts: &RunOptions, text: String, history: Vec<String>) -> (String, Option<String>) {
    let verdict = |t: &str| match subject::load(Format::Ptx, t) {
        Ok(p) => accepts(exe, t, &p.module, opts),
        Err(_) => false,
    };
    if verdict(&text) {
        return (text, None);
    }
    let steps = history.len();
    for (k, earlier) in history.into_iter().enumerate().rev() {
        if verdict(&earlier) {
            let note = format!(
                "ptxas rejects the reduced kernel: the result is the latest state before it that ptxas accepts ({} pass(es) back)",
                steps - k
            );
            return (earlier, Some(note));
        }
    }
    (text, Some("ptxas rejects the reduced kernel and the input it started from".into()))
}

/// Reduces `text` while `pred` holds. The input must show the predicate itself.
pub fn reduce(
    format: Format,
    text: &str,
    pred: &Predicate,
    cfg: &Config,
    progress: &mut dyn FnMut(&Progress),
) -> Result<Outcome, String> {
    let start = Instant::now();
    let text = subject::canonical(format, text)?;
    let loaded = subject::load(format, &text)?;
    let mut o = cfg.opts.clone();
    o.imported = format == Format::Ptx;
    let cal = predicate::calibrate(pred, &text, &loaded.module, &o);
    let pred = &cal.pred;
    let (holds, insts) = match cal.holds {
        Some(h) => (h, loaded.insts),
        None => match test(format, pred, &cfg.opts, &text, None) {
            (h, Some(n)) => (h, n),
            (_, None) => return Err("the input does not load".into()),
        },
    };
    if !holds {
        return Err(format!("the input does not show '{}': nothing to reduce", pred.text()));
    }
    let out = Outcome {
        text: text.clone(),
        predicate: pred.text(),
        start_insts: insts,
        insts,
        start_bytes: text.len(),
        bytes: text.len(),
        tests: 1,
        cached: 0,
        invalid: 0,
        rounds: 0,
        timed_out: false,
        elapsed: Duration::ZERO,
        ptxas_note: None,
    };
    let mut s = Search { format, pred, cfg: cfg.clone(), cache: HashMap::new(), start, out };
    s.cache.insert(hash(&text), true);
    let passes = match format {
        Format::Ori => crate::reduce::ori_passes::passes(),
        Format::Ptx => crate::reduce::ptx_passes::passes(),
    };
    let mut cur = text;
    // The call group that shows the predicate (the smallest whose run decided it, or
    // the function that departs most from ptxas with its group), alone — and before it
    // the function with only its callees, when that is smaller: on a file of hundreds of
    // kernels one test or two instead of halving the whole file.
    let group: std::collections::HashSet<String> = match (&cal.focus, cal.group.is_empty()) {
        (Some(f), true) => std::iter::once(f.clone()).collect(),
        _ => cal.group.iter().cloned().collect(),
    };
    let callees: std::collections::HashSet<String> = cal.callees.iter().cloned().collect();
    let mut starts: Vec<String> = Vec::new();
    for keep in [callees, group] {
        let alone = match format {
            Format::Ptx => crate::reduce::ptx_passes::keep_functions(&cur, &keep),
            Format::Ori => crate::reduce::ori_passes::keep_functions(&cur, &keep),
        };
        if !keep.is_empty()
            && let Some(t) = alone
            && !starts.contains(&t)
        {
            starts.push(t);
        }
    }
    // One after the other: the group's test can cost as much as the file's.
    for t in starts {
        if let Some((_, n)) = s.first_success(std::slice::from_ref(&t), None) {
            s.out.insts = n;
            cur = t;
            s.out.bytes = cur.len();
            s.report("functions", 1, progress);
            break;
        }
    }
    // The text the search starts from and after each pass that changed it, for the
    // check with ptxas at the end.
    let checkpoints = cfg.ptxas.is_some() && format == Format::Ptx && !pred.needs_ptx();
    let mut history: Vec<String> = Vec::new();
    if checkpoints {
        history.push(cur.clone());
    }
    let named = |n: &str| passes.iter().find(|p| p.name() == n).map(|p| p.as_ref());
    let coarse: Vec<&dyn Pass> = ["blocks", "instructions"].into_iter().filter_map(named).collect();
    if let Some(p) = named("instructions")
        && s.first_cuts(p, &coarse, &mut cur, progress)
        && checkpoints
    {
        history.push(cur.clone());
    }
    for round in 1..=cfg.max_rounds.max(1) {
        s.out.rounds = round;
        let mut changed = false;
        for p in &passes {
            let moved = s.run_pass(p.as_ref(), round, &mut cur, progress, false);
            if moved && checkpoints {
                history.push(cur.clone());
            }
            changed |= moved;
            if s.out.timed_out {
                break;
            }
        }
        if !changed || s.out.timed_out {
            break;
        }
    }
    if s.out.timed_out && checkpoints {
        // ptxas on the best so far can take as long as on the input (minutes on the
        // largest gate files): past the budget, say it was not checked instead.
        s.out.ptxas_note = Some(
            "the time budget ran out: the result was not checked with ptxas (its narrowed candidates were)".into(),
        );
    } else if let Some(exe) = cfg.ptxas.as_deref()
        && checkpoints
    {
        if history.last() == Some(&cur) {
            history.pop();
        }
        let (text, note) = checked_by_ptxas(exe, &cfg.opts, cur, history);
        if note.is_some()
            && let Ok(p) = subject::load(format, &text)
        {
            s.out.insts = p.insts;
        }
        s.out.bytes = text.len();
        s.out.ptxas_note = note;
        cur = text;
    }
    s.out.text = cur;
    s.out.elapsed = s.start.elapsed();
    Ok(s.out)
}
