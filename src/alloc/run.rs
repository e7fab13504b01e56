//! One door to an allocation of either allocator: [`AllocRun`] holds the fat-point machine
//! (seeds 000/003/004) or the Chaitin-Briggs machine (seed 002) and answers the questions
//! every layer above asks of an allocation in allocator-neutral terms — step it, which
//! register a vreg got, what was spilled, the `-v` figures, the checker's verdict, the
//! assignment summary `diff runs` compares, a fingerprint for time-travel tests. (How
//! each allocator's events nest for `next`/`finish` is theirs: `AllocEvent::level`,
//! `BriggsEvent::level`.)
//!
//! Why an enum and not a trait object: the engine clones machines for checkpoints and
//! matches on the allocator only where a view really is allocator-specific (the
//! fat-point histogram, the Briggs graph); a third allocator adds a variant here and its
//! arms, and nothing above `engine` changes for the neutral questions.

use crate::alloc::briggs::{BriggsAlloc, BriggsEvent};
use crate::alloc::{AllocConfig, AllocEvent, FunctionAlloc};
use crate::ir::{Function, RegFile, VRegId};

/// Which allocator a run uses (`set allocator`, `--allocator`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum AllocatorKind {
    /// ptxas's fat-point allocator (seed 000).
    #[default]
    FatPoint,
    /// CICC's Chaitin-Briggs graph colouring (seed 002).
    Briggs,
}

impl AllocatorKind {
    /// Every allocator, in the order of [`AllocatorKind::NAMES`].
    pub const ALL: [AllocatorKind; 2] = [AllocatorKind::FatPoint, AllocatorKind::Briggs];
    /// The allocators' names: the one list `set allocator`, `--allocator`, completion
    /// and the help read.
    pub const NAMES: &'static [&'static str] = &["fatpoint", "briggs"];
    /// Other spellings [`AllocatorKind::from_name`] takes (not offered by completion).
    pub const ALIASES: &'static [(&'static str, AllocatorKind)] = &[
        ("fat-point", AllocatorKind::FatPoint),
        ("ptxas", AllocatorKind::FatPoint),
        ("cicc", AllocatorKind::Briggs),
        ("chaitin-briggs", AllocatorKind::Briggs),
    ];

    /// The name `set allocator` takes and transcripts print.
    pub fn name(self) -> &'static str {
        AllocatorKind::NAMES[self as usize]
    }

    /// The allocator named `s` (its name or an alias).
    pub fn from_name(s: &str) -> Option<AllocatorKind> {
        AllocatorKind::ALL
            .into_iter()
            .find(|a| a.name() == s)
            .or_else(|| AllocatorKind::ALIASES.iter().find(|(n, _)| *n == s).map(|(_, a)| *a))
    }
}

/// The family of views an allocator's run offers the debugger. Panes and commands are
/// written per family, not per allocator: a new allocator that builds the same views
/// (in its own module, as `alloc::briggs::view` does) registers here and needs nothing
/// above the engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ViewFamily {
    /// Constraint nodes, the fat-point histograms, NOSPILL/SPILL attempts, the state object.
    Histograms,
    /// An interference graph: a node's neighbours, its colour window, build-and-colour
    /// iterations, the simplify stack and worklists.
    Graph,
}

impl AllocatorKind {
    /// Which views this allocator's runs offer (the one registration point above `alloc`).
    pub fn views(self) -> ViewFamily {
        match self {
            AllocatorKind::FatPoint => ViewFamily::Histograms,
            AllocatorKind::Briggs => ViewFamily::Graph,
        }
    }
}

/// One event of either allocator.
#[derive(Clone, Debug)]
pub enum RunEvent {
    FatPoint(AllocEvent),
    Briggs(BriggsEvent),
}

/// The `-v` figures of a finished allocation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Figures {
    pub registers: u32,
    pub spill_stores: u32,
    pub spill_loads: u32,
    pub stack_frame: u32,
}

/// A finished allocation as an explanation reads it, whichever allocator made it: the IR
/// it ended with (spill code included), the liveness, live ranges and costs of that IR,
/// the allocator's inputs, and the register of each vreg. `why registers` and `why spill`
/// read this rather than either machine's internals, so their tables and budget breakdown
/// describe a Chaitin-Briggs run as they describe a fat-point one.
pub struct Placement<'a> {
    pub run: &'a AllocRun,
    pub func: &'a Function,
    pub config: &'a AllocConfig,
    /// The fat-point machine's own analysis of its final IR; solved here for the Briggs
    /// machine, which keeps none.
    pub analysis: std::borrow::Cow<'a, crate::alloc::driver::Analysis>,
}

impl Placement<'_> {
    /// The register (first slot) vreg `v` holds, if assigned.
    pub fn slot_of(&self, v: VRegId) -> Option<u16> {
        self.run.slot_of(v)
    }
}

/// The budget-free part of the fat-point allocator's start (`driver::Prepared`) per
/// function, shared by the machines a budget sweep starts from one template
/// (`engine::sweep`): the rows of a span hand the allocator the same function and
/// configuration but the budget. A row whose function or configuration differs (in
/// anything but the budget) makes its own and does not share it.
#[derive(Debug, Default)]
pub struct Shared {
    by_func: std::sync::Mutex<Vec<(usize, std::sync::Arc<crate::alloc::driver::Prepared>)>>,
}

impl Shared {
    /// [`AllocRun::new`] on function `fi` of the machine, `func` as the machine has it.
    pub fn start(&self, fi: usize, kind: AllocatorKind, func: &Function, config: AllocConfig) -> AllocRun {
        use crate::alloc::driver::Prepared;
        if kind != AllocatorKind::FatPoint {
            return AllocRun::new(kind, func.clone(), config);
        }
        // Held while one is made: another row of the span waits for it rather than
        // making the same.
        let mut by_func = self.by_func.lock().unwrap_or_else(|e| e.into_inner());
        let found = by_func.iter().find(|(i, p)| *i == fi && p.serves(func, &config)).map(|(_, p)| p.clone());
        let prepared = match found {
            Some(p) => p,
            None => {
                let p = std::sync::Arc::new(Prepared::new(func.clone(), &config));
                by_func.retain(|(i, _)| *i != fi);
                by_func.push((fi, p.clone()));
                p
            }
        };
        drop(by_func);
        AllocRun::FatPoint(Box::new(FunctionAlloc::from_prepared(&prepared, config)))
    }
}

/// An allocation of one function, in progress or finished.
#[derive(Clone, Debug)]
pub enum AllocRun {
    // Boxed: both machines are hundreds of bytes of inline state, and a finished run sits
    // behind an `Arc` in every checkpoint.
    FatPoint(Box<FunctionAlloc>),
    Briggs(Box<BriggsAlloc>),
}

impl AllocRun {
    pub fn new(kind: AllocatorKind, func: Function, config: AllocConfig) -> AllocRun {
        match kind {
            AllocatorKind::FatPoint => AllocRun::FatPoint(Box::new(FunctionAlloc::new(func, config))),
            AllocatorKind::Briggs => AllocRun::Briggs(Box::new(BriggsAlloc::new(func, config))),
        }
    }

    pub fn kind(&self) -> AllocatorKind {
        match self {
            AllocRun::FatPoint(_) => AllocatorKind::FatPoint,
            AllocRun::Briggs(_) => AllocatorKind::Briggs,
        }
    }

    /// The next event; `None` once the allocation has finished.
    pub fn step(&mut self) -> Option<RunEvent> {
        match self {
            AllocRun::FatPoint(a) => a.step().map(RunEvent::FatPoint),
            AllocRun::Briggs(b) => b.step().map(RunEvent::Briggs),
        }
    }

    /// A copy for checkpoints (caches that rebuild on demand are dropped).
    pub fn snapshot(&self) -> AllocRun {
        match self {
            AllocRun::FatPoint(a) => AllocRun::FatPoint(Box::new(a.snapshot())),
            AllocRun::Briggs(b) => AllocRun::Briggs(Box::new(b.snapshot())),
        }
    }

    pub fn fatpoint(&self) -> Option<&FunctionAlloc> {
        match self {
            AllocRun::FatPoint(a) => Some(a.as_ref()),
            AllocRun::Briggs(_) => None,
        }
    }

    pub fn briggs(&self) -> Option<&BriggsAlloc> {
        match self {
            AllocRun::Briggs(b) => Some(b.as_ref()),
            AllocRun::FatPoint(_) => None,
        }
    }

    /// The function as the allocator has rewritten it so far (spill code included).
    pub fn func(&self) -> &Function {
        match self {
            AllocRun::FatPoint(a) => &a.func,
            AllocRun::Briggs(b) => b.func(),
        }
    }

    /// The allocator's inputs (budget, pins, knobs).
    pub fn config(&self) -> &AllocConfig {
        match self {
            AllocRun::FatPoint(a) => &a.config,
            AllocRun::Briggs(b) => b.config(),
        }
    }

    /// How many vregs the function had before spill code appended its temporaries.
    pub fn original_vregs(&self) -> usize {
        match self {
            AllocRun::FatPoint(a) => a.original_vregs,
            AllocRun::Briggs(b) => b.original().vregs.len(),
        }
    }

    /// Peak general-register pressure of the IR as it stands (spill code included). The
    /// fat-point machine keeps the liveness of its current IR; the Briggs machine keeps
    /// none, so it is solved here.
    pub fn peak_r_pressure(&self) -> u32 {
        use crate::ir::RegFile;
        match self {
            AllocRun::FatPoint(a) => a.analysis.live.max_pressure(&a.func, RegFile::R).0,
            AllocRun::Briggs(b) => {
                let cfg = crate::analysis::cfg::build(b.func(), crate::analysis::cfg::loop_weight(&b.config().knobs));
                let live = crate::analysis::liveness::compute(b.func(), &cfg, &b.config().exit_live);
                live.max_pressure(b.func(), RegFile::R).0
            }
        }
    }

    /// The allocation as explanations read it (see [`Placement`]).
    pub fn placement(&self) -> Placement<'_> {
        use std::borrow::Cow;
        let analysis = match self {
            AllocRun::FatPoint(a) => Cow::Borrowed(a.analysis.as_ref()),
            AllocRun::Briggs(b) => {
                let state = crate::alloc::state::AllocState::new(&b.config().knobs, b.config().total_threads);
                let params = crate::alloc::params::FatPointParams::from_knobs(&b.config().knobs);
                Cow::Owned(crate::alloc::driver::analyse(b.func(), b.config(), &params, &state))
            }
        };
        Placement { run: self, func: self.func(), config: self.config(), analysis }
    }

    /// Attempts (fat-point) or iterations (Briggs) made so far.
    pub fn rounds(&self) -> u32 {
        match self {
            AllocRun::FatPoint(a) => a.records.len() as u32,
            AllocRun::Briggs(b) => b.iteration(),
        }
    }

    /// The register (first slot) vreg `v` holds, if assigned.
    pub fn slot_of(&self, v: VRegId) -> Option<u16> {
        match self {
            AllocRun::FatPoint(a) => a.slot_of(v),
            AllocRun::Briggs(b) => b.slot_of(v),
        }
    }

    /// Why the allocation failed, if it did.
    pub fn failure(&self) -> Option<&str> {
        match self {
            AllocRun::FatPoint(a) => a.failure.as_deref(),
            AllocRun::Briggs(b) => b.failure(),
        }
    }

    /// The vregs spilled so far, by id in the function the allocator started from.
    pub fn spilled(&self) -> Vec<VRegId> {
        match self {
            AllocRun::FatPoint(a) => a.spills.iter().map(|s| s.vreg).collect(),
            AllocRun::Briggs(b) => b.spilled(),
        }
    }

    /// Names of the spilled vregs, in the allocator's order.
    pub fn spilled_names(&self) -> Vec<String> {
        match self {
            AllocRun::FatPoint(a) => a.spills.iter().map(|s| a.func.vreg(s.vreg).name.to_string()).collect(),
            AllocRun::Briggs(b) => b.spilled().iter().map(|v| b.original().vreg(*v).name.to_string()).collect(),
        }
    }

    /// `vreg → register` lines of the assigned vregs, in vreg order (`diff runs`).
    pub fn assignment_lines(&self) -> Vec<String> {
        let f = self.func();
        let mut out = Vec::new();
        for (i, v) in f.vregs.iter().enumerate() {
            if let Some(s) = self.slot_of(VRegId::new(i)) {
                out.push(format!("{} → {}{}", v.name, v.file().prefix(), s));
            }
        }
        out
    }

    /// The R registers a call of this function can change, once its allocation has
    /// finished: every register one of its vregs holds, every physical R register it
    /// writes, and what its own calls clobber (the callee allocated together with its
    /// callers; ARCHITECTURE.md, issue 23 rule 7). `None` when the allocation failed.
    pub fn written_r(&self) -> Option<Vec<u16>> {
        use crate::ir::{Operand, Reg};
        if self.failure().is_some() {
            return None;
        }
        let f = self.func();
        let c = self.config();
        let mut w = vec![false; RegFile::R.arch_size() as usize];
        let mut mark = |r: usize| {
            if let Some(x) = w.get_mut(r) {
                *x = true;
            }
        };
        for (i, v) in f.vregs.iter().enumerate() {
            if v.file() == RegFile::R
                && let Some(s) = self.slot_of(VRegId::new(i))
            {
                (s as usize..s as usize + v.width.max(1) as usize).for_each(&mut mark);
            }
        }
        for inst in f.blocks.iter().flat_map(|b| &b.insts) {
            for op in &inst.operands[..(inst.ndefs as usize).min(inst.operands.len())] {
                if let Operand::Reg(Reg::P(p)) = op
                    && p.file == RegFile::R
                    && !p.is_zero()
                {
                    mark(p.index as usize);
                }
            }
            if inst.info().is(crate::ir::opcode::props::CALL) {
                crate::alloc::driver::call_clobbers(inst, &c.clobbers, &c.default_clobbers)
                    .iter()
                    .for_each(|&r| mark(r as usize));
            }
        }
        Some((0..w.len() as u16).filter(|&r| w[r as usize]).collect())
    }

    /// The `-v` figures of the allocation as it stands.
    pub fn figures(&self) -> Figures {
        let (spill_stores, spill_loads) = crate::alloc::spill::traffic(self.func());
        let (registers, stack_frame) = match self {
            AllocRun::FatPoint(a) => {
                (crate::alloc::stats::registers_used(&a.func, &|v| a.slot_of(v)), a.pool_local.frame())
            }
            AllocRun::Briggs(b) => (b.registers(), b.frame_bytes()),
        };
        Figures { registers, spill_stores, spill_loads, stack_frame }
    }

    /// The Briggs machine's own checker verdict on its result (nothing when it failed: a
    /// failed allocation keeps no assignment). The fat-point result is checked by the
    /// engine's Check stage against the pipeline's liveness instead, so `None` here.
    pub fn self_check(&self) -> Option<Vec<String>> {
        match self {
            AllocRun::FatPoint(_) => None,
            AllocRun::Briggs(b) if b.failure().is_some() => Some(Vec::new()),
            AllocRun::Briggs(b) => {
                Some(b.check().err().map(|errs| errs.iter().map(|e| e.to_string()).collect()).unwrap_or_default())
            }
        }
    }

    /// The state of an allocation in progress, as text (time-travel tests compare it).
    pub fn fingerprint(&self) -> String {
        match self {
            AllocRun::FatPoint(c) => {
                let mut s = format!("assign {:?}\nflags {:?}\n", c.assign, c.flags);
                if let Some(a) = &c.attempt {
                    s.push_str(&format!("attempt {} cursor {} used {}\n", a.number, a.cursor, a.used));
                }
                s.push_str(&format!("ir {}\n", c.func.inst_count()));
                s
            }
            AllocRun::Briggs(b) => crate::alloc::briggs::view::fingerprint(b),
        }
    }

    /// Bytes a snapshot copies rather than shares (checkpoint spacing).
    pub fn snapshot_bytes(&self) -> usize {
        match self {
            AllocRun::FatPoint(a) => {
                let att = a.attempt.as_ref().map_or(0, |t| 4 * (t.needs_spill.len() + t.preallocated.len()));
                4 * a.assign.len() + 8 * a.flags.len() + att + a.debug_lines.iter().map(|l| 24 + l.len()).sum::<usize>()
            }
            AllocRun::Briggs(b) => 8 * b.func().vregs.len(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allocator_names_round_trip_and_aliases_resolve() {
        for k in AllocatorKind::ALL {
            assert_eq!(AllocatorKind::from_name(k.name()), Some(k));
        }
        for (a, k) in AllocatorKind::ALIASES {
            assert_eq!(AllocatorKind::from_name(a), Some(*k));
        }
        assert_eq!(AllocatorKind::from_name("linear-scan"), None);
    }

    #[test]
    fn both_allocators_answer_the_neutral_questions_alike_on_a_small_kernel() {
        let m = crate::ir::parse_str(include_str!("../../sessions/demo.ori")).expect("demo parses");
        let f = m.functions[0].clone();
        for kind in AllocatorKind::ALL {
            let mut r = AllocRun::new(kind, f.clone(), AllocConfig::simple(m.sm.version, 255));
            let mut n = 0;
            while r.step().is_some() {
                n += 1;
                assert!(n < 1_000_000, "{kind:?} does not finish");
            }
            assert_eq!(r.kind(), kind);
            assert!(r.failure().is_none(), "{kind:?}: {:?}", r.failure());
            assert!(r.figures().registers > 0, "{kind:?} uses registers");
            assert!(!r.assignment_lines().is_empty());
            assert_eq!(r.self_check().unwrap_or_default(), Vec::<String>::new());
        }
    }
}
