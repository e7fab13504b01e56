//! Rule 6 of the checker: spill code moves the right values (seed 003, "Spill Code
//! Generation", "LMEM Spilling", "SMEM Spilling").
//!
//! A forward dataflow over the 32-bit words of the spill slots, in the spirit of
//! regalloc2's checker: each word holds the current value of one component of one vreg
//! (`Holds`), a value that has since been redefined (`Stale`), a value defined but not
//! stored since (`Unwritten`), something that is not a vreg (`Overwritten`), different
//! things on different paths (`Mixed`) or nothing yet (`Empty`). A spill store (STL/STS with `.SPILL`, its memory operand offset naming the
//! word, its last operand the stored register) makes its words hold the stored vreg; any
//! def of a vreg makes the words holding it stale; a spill reload (LDL/LDS with `.SPILL`)
//! into a temporary of vreg `v` must find `v`'s current value in every word it reads, on
//! every path. Words are keyed by (space, byte offset), so slots that share memory share
//! state. Values are alias roots: a coalesced vreg is its parent's value.
//!
//! Undefined values: a word of `v`'s own slot that is still `Empty` where `v` is reloaded
//! means no path defined `v` before (a def of `v` turns the words of its slot from
//! `Empty` to `Unwritten`), so the program reads an undefined value there and whatever
//! the temporary gets is as good — real NVVM output does this at loop heads and if-else
//! joins where a value is defined on one path only (issue 22: `reload of %f774$rl0 ...:
//! the slot is not written on some path to here` on ray marchers and FFT butterflies).
//! So `Empty` sits above the values of the slot's owners: a path that leaves the slot
//! empty agrees with any path that stored the owner. A reload from a word of another
//! vreg's slot that is `Empty` is still an error.
//!
//! Also the shape of reload temporaries: exactly one definition, a spill reload, and every
//! use after it in the same block (so the reload dominates every use).
//!
//! Knows the IR, the CFG and the spill table; must not know how the allocator chose what
//! to spill. Only the memory operand's offset is looked at: the base register (R1, a
//! stack-pointer vreg) is assumed to be the frame base, and ordinary (non-`.SPILL`)
//! stores are assumed not to touch spill slots.

use std::collections::BTreeMap;

use super::words::WordIndex;
use super::{CheckError, Ctx, MemSlot, SlotContent, SpillSlotInfo, Values};
use crate::analysis::Cfg;
use crate::ir::model::{Inst, Operand, RegRef, VRegId};

/// The lattice of one word: per value component a chain `Holds(v, c)` above
/// `Unwritten(v, c)` above `Stale(v, c)`; `Empty` above the chains of the word's owners
/// (the vregs whose spill slot covers it); every chain and `Overwritten` above `Mixed`,
/// the bottom. Two incomparable elements meet at `Mixed`. The top element ("no path seen
/// yet") is a block state of `None` in the solver.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Word {
    Empty,
    Mixed,
    Overwritten,
    Stale(u32, u8),
    Unwritten(u32, u8),
    Holds(u32, u8),
}

impl Word {
    /// The value whose chain this element is on.
    fn value(self) -> Option<u32> {
        match self {
            Word::Stale(v, _) | Word::Unwritten(v, _) | Word::Holds(v, _) => Some(v),
            _ => None,
        }
    }
    /// The element's height on its value's chain.
    fn rank(self) -> u8 {
        match self {
            Word::Holds(..) => 2,
            Word::Unwritten(..) => 1,
            _ => 0,
        }
    }
}

/// The meet of `a` and `b` at a word owned by `owners` (alias roots).
fn meet(a: Word, b: Word, owners: &[u32]) -> Word {
    use Word::*;
    let owned = |x: Word| x.value().is_some_and(|v| owners.contains(&v));
    match (a, b) {
        (x, y) if x == y => x,
        (Empty, x) | (x, Empty) if owned(x) => x,
        (x, y) if x.value().is_some() && x.value() == y.value() && component(x) == component(y) => {
            if x.rank() <= y.rank() { x } else { y }
        }
        _ => Mixed,
    }
}

fn component(w: Word) -> Option<u8> {
    match w {
        Word::Stale(_, c) | Word::Unwritten(_, c) | Word::Holds(_, c) => Some(c),
        _ => None,
    }
}

/// A spill instruction as the checker reads it.
pub(super) enum SpillOp {
    Store {
        slot: MemSlot,
        value: Option<RegRef>,
    },
    Reload {
        slot: MemSlot,
        dest: Option<RegRef>,
    },
    /// `.SPILL` on STL/STS/LDL/LDS without a memory operand.
    NoAddress {
        store: bool,
    },
}

pub(super) fn classify(inst: &Inst) -> Option<SpillOp> {
    // The mnemonic first: it rules out almost every instruction without splitting mods.
    let (store, shared) = match inst.op.mnemonic() {
        "STL" => (true, false),
        "STS" => (true, true),
        "LDL" => (false, false),
        "LDS" => (false, true),
        _ => return None,
    };
    if !inst.has_mod("SPILL") {
        return None;
    }
    let mem = inst.operands.iter().find_map(|o| match o {
        Operand::Mem(m) => Some(m.offset),
        _ => None,
    });
    let Some(offset) = mem else {
        return Some(SpillOp::NoAddress { store });
    };
    let slot = MemSlot { shared, offset };
    Some(if store {
        SpillOp::Store { slot, value: inst.operands.last().and_then(Operand::as_vreg) }
    } else {
        let dest = inst.defs().iter().find_map(Operand::as_vreg);
        SpillOp::Reload { slot, dest }
    })
}

/// `Spills::temp_of` / `spilled` of a vreg with no spill info.
const NO_INFO: u32 = u32::MAX;

/// Largest slot the checker models, in bytes (a 16-register vector is 64).
const MAX_SLOT_BYTES: u32 = 4096;

pub(super) struct Spills<'a> {
    pub ctx: &'a Ctx<'a>,
    pub vals: &'a Values,
    pub infos: &'a [SpillSlotInfo],
    /// (shared, byte offset) -> word index.
    pub words: WordIndex,
    /// Per vreg id: the index of the spill info it is a reload temporary of (`NO_INFO`
    /// when none). Vectors, not maps: every reload looks its destination up.
    temp_of: Vec<u32>,
    /// Per vreg id: the index of its own spill info (`NO_INFO` when not spilled).
    spilled: Vec<u32>,
    /// Alias root -> the (word, component) pairs spill stores of it write and its own
    /// slot covers (the words a def must clobber).
    watch: BTreeMap<u32, Vec<(u32, u8)>>,
    /// Per word: the alias roots whose spill slot covers it.
    owners: Vec<Vec<u32>>,
}

pub(super) fn check(ctx: &Ctx, graph: &Cfg, infos: &[SpillSlotInfo], vals: &Values, errors: &mut Vec<CheckError>) {
    let f = ctx.f;
    let n = f.vregs.len();
    let mut s = Spills {
        ctx,
        vals,
        infos,
        words: WordIndex::default(),
        temp_of: vec![NO_INFO; n],
        spilled: vec![NO_INFO; n],
        watch: BTreeMap::new(),
        owners: Vec::new(),
    };
    for (k, info) in infos.iter().enumerate() {
        if info.vreg.index() >= n {
            errors.push(malformed(format!("spill slot {k} is for vreg#{}, which does not exist", info.vreg.0)));
            continue;
        }
        if s.spilled[info.vreg.index()] == NO_INFO {
            s.spilled[info.vreg.index()] = k as u32;
        }
        for &t in &info.temps {
            if t.index() >= n {
                errors.push(malformed(format!(
                    "reload temporary vreg#{} of {} does not exist",
                    t.0,
                    ctx.named(info.vreg)
                )));
            } else if let Some(other) = s.temp_info(t) {
                if infos[other].vreg != info.vreg {
                    errors.push(malformed(format!(
                        "{} is a reload temporary of both {} and {}",
                        ctx.named(t),
                        ctx.named(infos[other].vreg),
                        ctx.named(info.vreg)
                    )));
                }
            } else {
                s.temp_of[t.index()] = k as u32;
            }
        }
        let mut bytes = if info.bytes == 0 { 4 * f.vregs[info.vreg.index()].width.max(1) as u32 } else { info.bytes };
        if bytes > MAX_SLOT_BYTES {
            errors.push(malformed(format!(
                "spill slot of {} is {} bytes (more than {MAX_SLOT_BYTES})",
                ctx.named(info.vreg),
                info.bytes
            )));
            bytes = MAX_SLOT_BYTES;
        }
        for k in 0..bytes.div_ceil(4) {
            s.words.insert(info.shared, info.offset as i64 + 4 * k as i64);
        }
    }
    // The bitvector pass settles the common case; only when it finds something does the
    // exact lattice solve run, to say what a reload found instead of its value.
    let fast = super::avail::all_reloads_ok(&s, graph);
    let exact = |s: &mut Spills, errors: &mut Vec<CheckError>| {
        s.build_watch();
        let ins = s.solve(graph, errors);
        for (b, state) in ins.into_iter().enumerate() {
            if let Some(mut state) = state {
                s.transfer(b, &mut state, Some(errors));
            }
        }
    };
    if cfg!(debug_assertions) && fast && f.blocks.len() * s.words.len() <= 1 << 20 {
        // The fast pass must never hide what the exact solve reports.
        let mut missed = Vec::new();
        exact(&mut s, &mut missed);
        debug_assert!(missed.is_empty(), "spill fast path missed {missed:?}");
    }
    if !fast {
        exact(&mut s, errors);
    }
    s.temporaries(errors);
}

fn malformed(what: String) -> CheckError {
    CheckError::Malformed { at: None, what }
}

impl Spills<'_> {
    /// Which words each value can be in: every word a spill store of it writes and the
    /// words of its own slot (what a def must clobber in the exact solve); and who owns
    /// each word.
    fn build_watch(&mut self) {
        if !self.owners.is_empty() {
            return;
        }
        let mut watch: BTreeMap<u32, Vec<(u32, u8)>> = BTreeMap::new();
        let mut add = |root: u32, w: u32, c: u8| {
            let list = watch.entry(root).or_default();
            if !list.contains(&(w, c)) {
                list.push((w, c));
            }
        };
        let mut owners = vec![Vec::new(); self.words.len()];
        for info in self.infos {
            let Some(&root) = self.vals.root.get(info.vreg.index()) else { continue };
            let width = self.ctx.f.vregs[info.vreg.index()].width.max(1) as u32;
            let bytes = if info.bytes == 0 { 4 * width } else { info.bytes.min(MAX_SLOT_BYTES) };
            for k in 0..bytes.div_ceil(4) {
                if let Some(w) = self.words.get(info.shared, info.offset as i64 + 4 * k as i64) {
                    add(root, w, k as u8);
                    let o: &mut Vec<u32> = &mut owners[w as usize];
                    if !o.contains(&root) {
                        o.push(root);
                    }
                }
            }
        }
        for inst in self.ctx.f.blocks.iter().flat_map(|b| &b.insts) {
            if let Some(SpillOp::Store { slot, value: Some(r) }) = classify(inst)
                && let Some(&root) = self.vals.root.get(r.vreg.index())
            {
                for (c, addr) in self.store_words(slot, r) {
                    if let Some(w) = self.words.get(slot.shared, addr) {
                        add(root, w, c);
                    }
                }
            }
        }
        self.watch = watch;
        self.owners = owners;
    }

    /// The (component, address) pairs a store of `r` at `slot` writes.
    pub(super) fn store_words(&self, slot: MemSlot, r: RegRef) -> impl Iterator<Item = (u8, i64)> + use<> {
        let width = self.ctx.f.vregs.get(r.vreg.index()).map_or(1, |v| v.width.max(1));
        let n = if r.comp.is_some() { 1 } else { width };
        (0..n).map(move |k| match r.comp {
            Some(c) => (c, slot.offset),
            None => (k, slot.offset.saturating_add(4 * k as i64)),
        })
    }

    /// The spill info a reload temporary belongs to.
    pub(super) fn temp_info(&self, t: VRegId) -> Option<usize> {
        self.temp_of.get(t.index()).copied().filter(|&k| k != NO_INFO).map(|k| k as usize)
    }

    /// The spill info a reload into `t` reads: `t`'s as a temporary, else its own (a
    /// spilled vreg reloaded into itself).
    pub(super) fn reload_info(&self, t: VRegId) -> Option<usize> {
        self.temp_info(t).or_else(|| self.spilled.get(t.index()).copied().filter(|&k| k != NO_INFO).map(|k| k as usize))
    }

    /// Iterates the block transfers to a fixed point; returns each block's entry state
    /// (`None` for blocks no path from the entry reaches).
    fn solve(&self, graph: &Cfg, errors: &mut Vec<CheckError>) -> Vec<Option<Vec<Word>>> {
        let nb = self.ctx.f.blocks.len();
        let nw = self.words.len();
        let preds = |b: usize| graph.preds.get(b).map_or(&[][..], Vec::as_slice);
        // Only the entry starts with every word empty. Blocks no path from the entry
        // reaches keep no state and are not checked: a reload there never executes, so
        // "every path to it reads what its vreg stored" holds vacuously (checking them
        // as if entered with empty slots rejected valid spill code in dead blocks).
        let is_root = |b: usize| b == 0;
        let mut order: Vec<usize> = graph.rpo.iter().copied().filter(|&b| b < nb).collect();
        order.extend((0..nb).filter(|&b| !graph.reachable.get(b).copied().unwrap_or(false)));

        let mut ins: Vec<Option<Vec<Word>>> = vec![None; nb];
        let mut outs: Vec<Option<Vec<Word>>> = vec![None; nb];
        // Each word can only descend the lattice (height 5) on each block, so this bound
        // is never reached by a monotone transfer; it guards against a bug hanging a check.
        let max_passes = 6 * (nw + 1) * (nb + 1) + 2;
        for _ in 0..max_passes {
            let mut changed = false;
            for &b in &order {
                let mut st: Option<Vec<Word>> = is_root(b).then(|| vec![Word::Empty; nw]);
                for &p in preds(b) {
                    if let Some(o) = outs.get(p).and_then(Option::as_ref) {
                        match &mut st {
                            None => st = Some(o.clone()),
                            Some(s) => {
                                s.iter_mut().zip(o).zip(&self.owners).for_each(|((x, &y), own)| *x = meet(*x, y, own))
                            }
                        }
                    }
                }
                let Some(mut st) = st else {
                    continue;
                };
                if outs[b].is_some() && ins[b].as_ref() == Some(&st) {
                    continue;
                }
                ins[b] = Some(st.clone());
                self.transfer(b, &mut st, None);
                if outs[b].as_ref() != Some(&st) {
                    outs[b] = Some(st);
                    changed = true;
                }
            }
            if !changed {
                return ins;
            }
        }
        errors.push(malformed("the spill-slot dataflow did not converge (a checker bug)".into()));
        ins
    }

    /// The forward transfer of block `b`; with `report`, also the reload checks.
    fn transfer(&self, b: usize, state: &mut [Word], mut report: Option<&mut Vec<CheckError>>) {
        let Some(blk) = self.ctx.f.blocks.get(b) else {
            return;
        };
        for (i, inst) in blk.insts.iter().enumerate() {
            match classify(inst) {
                Some(SpillOp::Reload { slot, dest }) => {
                    if let Some(errors) = report.as_deref_mut() {
                        self.check_reload(b, i, slot, dest, state, errors);
                    }
                    // The reload's destination now equals the slot: nothing goes stale.
                }
                Some(SpillOp::Store { slot, value }) => {
                    self.clobber_defs(inst, state);
                    self.store(b, i, slot, value, state, report.as_deref_mut());
                }
                Some(SpillOp::NoAddress { store }) => {
                    self.clobber_defs(inst, state);
                    if let Some(errors) = report.as_deref_mut() {
                        let what = format!("spill {} without a memory operand", if store { "store" } else { "reload" });
                        errors.push(CheckError::Malformed { at: Some(self.ctx.site(b, i)), what });
                    }
                }
                None => self.clobber_defs(inst, state),
            }
        }
    }

    /// Every def of a value makes the words holding (that component of) it stale, and
    /// the still empty words of its own slot unwritten.
    fn clobber_defs(&self, inst: &Inst, state: &mut [Word]) {
        inst.for_each_def(|r| {
            let Some(&root) = self.vals.root.get(r.vreg.index()) else {
                return;
            };
            let Some(list) = self.watch.get(&root) else {
                return;
            };
            for &(w, c) in list {
                if r.comp.is_some_and(|rc| rc != c) {
                    continue;
                }
                match state[w as usize] {
                    Word::Holds(v, hc) if v == root && hc == c => state[w as usize] = Word::Stale(v, c),
                    Word::Empty => state[w as usize] = Word::Unwritten(root, c),
                    _ => {}
                }
            }
        });
    }

    fn store(
        &self,
        b: usize,
        i: usize,
        slot: MemSlot,
        value: Option<RegRef>,
        state: &mut [Word],
        report: Option<&mut Vec<CheckError>>,
    ) {
        let root = value.and_then(|r| self.vals.root.get(r.vreg.index()).copied());
        let targets: Vec<(Word, i64)> = match (value, root) {
            (Some(r), Some(root)) => self.store_words(slot, r).map(|(c, addr)| (Word::Holds(root, c), addr)).collect(),
            _ => vec![(Word::Overwritten, slot.offset)],
        };
        let mut stray = None;
        for (word, addr) in targets {
            match self.words.get(slot.shared, addr) {
                Some(w) => state[w as usize] = word,
                None => stray = stray.or(Some(addr)),
            }
        }
        if let (Some(addr), Some(errors)) = (stray, report) {
            let slot = MemSlot { shared: slot.shared, offset: addr };
            errors.push(CheckError::StraySpill { at: self.ctx.site(b, i), store: true, slot });
        }
    }

    fn check_reload(
        &self,
        b: usize,
        i: usize,
        slot: MemSlot,
        dest: Option<RegRef>,
        state: &[Word],
        errors: &mut Vec<CheckError>,
    ) {
        let ctx = self.ctx;
        let at = ctx.site(b, i);
        let Some(dest) = dest.filter(|d| d.vreg.index() < ctx.f.vregs.len()) else {
            errors.push(CheckError::Malformed {
                at: Some(at),
                what: "spill reload without a register destination".into(),
            });
            return;
        };
        let t = dest.vreg;
        let Some(k) = self.reload_info(t) else {
            errors.push(CheckError::ReloadNotTemp { at, vreg: ctx.named(t) });
            return;
        };
        let info = &self.infos[k];
        let want = self.vals.root[info.vreg.index()];
        let t_width = ctx.f.vregs[t.index()].width.max(1);
        let mirror = t_width == ctx.f.vregs[info.vreg.index()].width.max(1);
        let n = if dest.comp.is_some() { 1 } else { t_width };
        let region = info.offset as i64..info.offset as i64 + info.bytes.max(4) as i64;
        for j in 0..n {
            let addr = slot.offset.saturating_add(4 * j as i64);
            let Some(w) = self.words.get(slot.shared, addr) else {
                let slot = MemSlot { shared: slot.shared, offset: addr };
                errors.push(CheckError::StraySpill { at, store: false, slot });
                return;
            };
            // The component a word should hold: a temporary as wide as its vreg mirrors
            // it, so destination component c receives component c; a narrower one (part
            // of a vector) gets what its position in the vreg's slot says.
            let comp = if mirror {
                dest.comp.unwrap_or(0).saturating_add(j)
            } else if info.shared == slot.shared && region.contains(&addr) {
                ((addr - info.offset as i64) / 4) as u8
            } else {
                dest.comp.unwrap_or(j)
            };
            let found = state[w as usize];
            // A word of `v`'s own slot that no path has written or defined: `v` is
            // undefined here (see the module doc).
            let undefined = found == Word::Empty && self.owners.get(w as usize).is_some_and(|o| o.contains(&want));
            if found != Word::Holds(want, comp) && !undefined {
                let name = |v: u32| ctx.named(VRegId(v));
                let found = match found {
                    Word::Empty | Word::Unwritten(..) => SlotContent::NeverWritten,
                    Word::Mixed => SlotContent::Disagree,
                    Word::Overwritten => SlotContent::Overwritten,
                    Word::Stale(v, _) => SlotContent::Stale(name(v)),
                    Word::Holds(v, c) => SlotContent::Holds(name(v), c),
                };
                errors.push(CheckError::BadReload { at, temp: ctx.named(t), of: ctx.named(info.vreg), slot, found });
                return;
            }
        }
    }

    /// Reload temporaries: one definition, by a spill reload, before every use in the
    /// same block (seed 003: "a reload before each use into a fresh short-lived vreg").
    fn temporaries(&self, errors: &mut Vec<CheckError>) {
        let ctx = self.ctx;
        // One walk, flat per-vreg arrays (no list per temporary): the def count, the first
        // def's site and the first use's site; a use not preceded by a def in its own
        // block is kept as a suspect and judged once the def count is known. The caller
        // sorts the errors, so their order here does not show.
        const UNSET: (u32, u32) = (u32::MAX, u32::MAX);
        let n = ctx.f.vregs.len();
        let mut ndefs = vec![0u32; n];
        let mut def_at = vec![UNSET; n];
        let mut first_use = vec![UNSET; n];
        // (temporary, its spill info, block, index) of each use to judge at the end.
        let mut suspects: Vec<(VRegId, usize, u32, u32)> = Vec::new();
        for (b, blk) in ctx.f.blocks.iter().enumerate() {
            let b = b as u32;
            for (i, inst) in blk.insts.iter().enumerate() {
                let i = i as u32;
                inst.for_each_use(|r| {
                    let t = r.vreg.index();
                    let Some(k) = self.temp_info(r.vreg) else { return };
                    if first_use[t] == UNSET {
                        first_use[t] = (b, i);
                    }
                    if def_at[t].0 != b {
                        suspects.push((r.vreg, k, b, i));
                    }
                });
                inst.for_each_def(|r| {
                    let t = r.vreg.index();
                    if self.temp_info(r.vreg).is_some() {
                        ndefs[t] += 1;
                        if def_at[t] == UNSET {
                            def_at[t] = (b, i);
                        }
                    }
                });
            }
        }
        let site = |(b, i): (u32, u32)| ctx.site(b as usize, i as usize);
        for t in (0..n).map(VRegId::new) {
            let Some(k) = self.temp_info(t) else { continue };
            // Names only on the error paths (they are strings).
            let temp = || ctx.named(t);
            let of = || ctx.named(self.infos[k].vreg);
            let (d, u) = (def_at[t.index()], first_use[t.index()]);
            match ndefs[t.index()] {
                1 => {
                    if !matches!(
                        classify(&ctx.f.blocks[d.0 as usize].insts[d.1 as usize]),
                        Some(SpillOp::Reload { .. })
                    ) {
                        errors.push(CheckError::TempNotReload { at: site(d), temp: temp(), of: of() });
                    }
                }
                0 if u == UNSET => {}
                defs => {
                    let at = if d != UNSET { d } else { u };
                    errors.push(CheckError::TempDefs { at: site(at), temp: temp(), of: of(), defs });
                }
            }
        }
        for (t, k, b, i) in suspects {
            if ndefs[t.index()] == 1 {
                let def = site(def_at[t.index()]);
                errors.push(CheckError::TempUse {
                    at: site((b, i)),
                    temp: ctx.named(t),
                    of: ctx.named(self.infos[k].vreg),
                    def,
                });
            }
        }
    }
}
