//! What each prepass did to one function's R peak, recorded while the engine runs the
//! passes (`RunOptions::record_stages`, set by `radbg why`): `why registers` reads it
//! instead of running every pass a second time on the function as loaded (issue 25: that
//! replay was a quarter of `why` on a file of many entries).
//!
//! The record holds what `why::stages` shows per stage: the R peak after each pass that
//! changed the function, each pass switched off, the summary, and for `sink` which PTX
//! lines moved. Must not know the engine or the allocator.

use crate::ir::{Function, Inst};
use crate::prepass::sink;

/// One stage that changed the function or was switched off.
#[derive(Clone, Debug, PartialEq)]
pub struct StageStep {
    pub name: &'static str,
    pub off: bool,
    /// R peak after the stage (the previous peak when off).
    pub peak: u32,
    pub before: u32,
    pub summary: String,
    /// For `sink`: how many instructions moved and their PTX line range.
    pub moved: Option<(usize, u32, u32)>,
    /// For `sink`: whether every moved instruction is a load.
    pub only_loads: bool,
}

impl StageStep {
    /// Pass `name`, switched off, at R peak `cur`.
    pub fn off(name: &'static str, cur: u32) -> StageStep {
        StageStep { name, off: true, peak: cur, before: cur, summary: String::new(), moved: None, only_loads: true }
    }
}

/// The stages' effect on one function so far.
#[derive(Clone, Debug, PartialEq)]
pub struct StageRecord {
    /// R peak of the function as loaded.
    pub imported_peak: u32,
    pub steps: Vec<StageStep>,
}

impl StageRecord {
    /// A record of `f` as loaded, before any pass.
    pub fn new(f: &Function) -> StageRecord {
        StageRecord { imported_peak: sink::peak(f), steps: Vec::new() }
    }

    /// The R peak after the last stage so far.
    pub fn current(&self) -> u32 {
        self.steps.last().map_or(self.imported_peak, |s| s.peak)
    }

    /// Pass `name` was switched off.
    pub fn off(&mut self, name: &'static str) {
        let cur = self.current();
        self.steps.push(StageStep::off(name, cur));
    }

    /// Pass `name` turned `f` into `g` (a different function), saying `summary`.
    pub fn changed(&mut self, name: &'static str, f: &Function, g: &Function, summary: &str) {
        let before = self.current();
        let peak = sink::peak(g);
        let (moved, only_loads) = if name == "sink" { moved_lines(f, g) } else { (None, true) };
        self.steps.push(StageStep { name, off: false, peak, before, summary: summary.to_string(), moved, only_loads });
    }
}

/// Instructions `sink` moved: `sink` only moves instructions down, so one it moved has
/// an instruction that came after it in `f` before it in `g`; their count, the range of
/// their PTX lines, and whether all are loads.
pub fn moved_lines(f: &Function, g: &Function) -> (Option<(usize, u32, u32)>, bool) {
    let key = |h: &Function, i: &Inst| format!("{:?} {}", i.origin, crate::ir::print::print_inst(h, i));
    let mut lines = Vec::new();
    let mut only_loads = true;
    for (a, b) in f.blocks.iter().zip(&g.blocks) {
        // Where each instruction of `a` sits in `b` (equal keys taken in order).
        let mut at: std::collections::BTreeMap<String, std::collections::VecDeque<usize>> = Default::default();
        for (j, i) in b.insts.iter().enumerate() {
            at.entry(key(g, i)).or_default().push_back(j);
        }
        let pos: Vec<usize> =
            a.insts.iter().map(|i| at.get_mut(&key(f, i)).and_then(|q| q.pop_front()).unwrap_or(usize::MAX)).collect();
        let mut later_min = usize::MAX;
        for (i, inst) in a.insts.iter().enumerate().rev() {
            if pos[i] != usize::MAX && later_min < pos[i] && sink::movable(inst) {
                only_loads &= inst.info().is(crate::ir::opcode::props::LOAD);
                lines.push(inst.origin);
            }
            later_min = later_min.min(pos[i]);
        }
    }
    let n = lines.len();
    let ls: Vec<u32> = lines.into_iter().flatten().collect();
    let range = ls.iter().min().zip(ls.iter().max()).map(|(lo, hi)| (n, *lo, *hi));
    (range, only_loads)
}
