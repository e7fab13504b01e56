//! Per-register-file liveness: gen/kill per block, the iterative fixed-point solver
//! with its sweep record, and the checkpoints the point queries (`query`) start from (seed 004,
//! "Dataflow Algorithm", "Iterative Fixed-Point Solver", "Per-Register-File Liveness",
//! "Backward Walk Live Set Update Rule").
//!
//! Owns the liveness facts of one function. It knows the CFG and the IR's def/use
//! rules; it must not know about physical registers, ABI clobbers or allocation.
//!
//! # The model of reads and writes
//! * Reads: the guard predicate, every source register, every address register of a
//!   memory operand (`Inst::for_each_use`), and, at an EXIT or RET instruction (guarded
//!   or not), the `exit_live` registers — a guarded RET in mid-block returns there, so the
//!   return values must be live there too (radbg's addition; the seed only seeds exit
//!   blocks' live-out, which radbg does as well).
//! * Writes that *kill* (end a live range, backwards): a register destination naming a
//!   whole vreg on an instruction that always executes (no guard, or `@PT`).
//! * Writes that do not kill: a destination naming one component (`%rd0.lo`: the other
//!   half keeps its value, so the vreg stays live above), and any destination of a
//!   guarded instruction (when the guard is false the old value survives) — except
//!   where no older value is ever read: a vreg defined once, or one whose every def and
//!   use lies in one block under one guard ([`predicated_kills`]).
//!   Consequence: a vreg built component by component (`%d5.lo = ..; %d5.hi = ..`) is
//!   live from its previous whole def — or from the function entry — down to those
//!   defs. That over-approximates (safe for interference); `uninit` tracks components
//!   so it does not report such a vreg.
//! * Barrier files B/UB take no part (seed 004, "Barrier Register Exclusion from GEN/KILL").
//! * CALL (seed 004's call-like case, opcode 93 there): its defs are its return-value
//!   operands and its uses its argument operands, so the ordinary rule covers it; the
//!   callee-clobbered set is physical and handled by the allocator.
//! * Multi-source/predicated specials (seed 004's 188/190 case walking a source chain):
//!   in Ori IR every source is an explicit operand, so "add all reachable sources" is
//!   the ordinary rule.
//! * PHI is an ordinary instruction: its sources are read at the phi. That is
//!   conservative (each source is live into the phi's block on every incoming edge),
//!   which is safe for CSSA where the phi web shares one register.
//! * `.alias` (a coalescing decision) is the allocator's business: liveness is per vreg
//!   as written.
//! * A branch in the middle of a block is treated as leaving from the block's end (see
//!   `cfg`); well-formed input ends blocks at branches.
//! * Predicates (P, UP) are solved with the same machinery. ptxas tracks them
//!   per block at operand level during scheduling (seed 004, "P/UP: Operand-Level
//!   Tracking"); the sets are the same, and one solver keeps the debugger's view uniform.
//!
//! The per-block sets are sorted index vectors (`sparse`), not the seed's bitvectors: a
//! solve costs the sizes of the sets, not blocks × vregs (issue 25); the sweeps, and so
//! the sweep record, are the bitvector solver's.
//!
//! Point queries and pressure live in `query`.

use crate::analysis::cfg::Cfg;
use crate::analysis::liveset::LiveSet;
use crate::analysis::sparse;
use crate::ir::model::{Function, Inst, Layout, RegFile, RegRef, VRegId};
use crate::ir::opcode::props;
use std::sync::OnceLock;

/// Instructions between live-set checkpoints inside a long block: a point query walks
/// at most this many instructions.
pub const CHECKPOINT_INTERVAL: usize = 128;

/// The files that take part in liveness, in solve order.
pub const LIVENESS_FILES: [RegFile; 5] = [RegFile::R, RegFile::UR, RegFile::P, RegFile::UP, RegFile::T];

/// One pass of the solver over all blocks: the blocks whose live-in or live-out grew,
/// in the order the pass visited them. The last sweep of a solve has none.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Sweep {
    pub changed: Vec<usize>,
}

/// Which per-block set of a file to read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum BlockSet {
    Gen,
    Kill,
    LiveIn,
    LiveOut,
}

/// The independent solve of one register file.
#[derive(Clone, Debug, PartialEq)]
pub struct FileLiveness {
    pub file: RegFile,
    /// The file's vregs that can be live across a block boundary, ascending; position =
    /// index in this file's per-block sets. Block-local vregs (never upward-exposed, not
    /// exit-live) have no index: they are in no gen, live-in or live-out set, and their
    /// kills are kept apart (`Liveness::kill_set` includes them).
    pub vregs: Vec<VRegId>,
    pub sweeps: Vec<Sweep>,
    /// Per block, each set as its members' indices, ascending (`analysis::sparse`): a
    /// block's set costs its size, not the file's count of cross-block vregs (issue 25:
    /// dense bitvectors made a solve cost blocks × vregs, which a body repeated k times
    /// makes grow as k²).
    gen_: Vec<Vec<u32>>,
    kill: Vec<Vec<u32>>,
    live_in: Vec<Vec<u32>>,
    live_out: Vec<Vec<u32>>,
}

impl FileLiveness {
    fn new(file: RegFile, vregs: Vec<VRegId>, nblocks: usize) -> FileLiveness {
        let z = || vec![Vec::new(); nblocks];
        FileLiveness { file, vregs, sweeps: Vec::new(), gen_: z(), kill: z(), live_in: z(), live_out: z() }
    }

    /// One block's set as indices into `vregs`, ascending (empty for a block out of range).
    pub fn members(&self, which: BlockSet, b: usize) -> &[u32] {
        let v = match which {
            BlockSet::Gen => &self.gen_,
            BlockSet::Kill => &self.kill,
            BlockSet::LiveIn => &self.live_in,
            BlockSet::LiveOut => &self.live_out,
        };
        v.get(b).map_or(&[], Vec::as_slice)
    }

    /// One block's set as vreg ids, ascending.
    pub fn ids(&self, which: BlockSet, b: usize) -> Vec<VRegId> {
        self.members(which, b).iter().map(|&i| self.vregs[i as usize]).collect()
    }
}

/// The point-query checkpoints of a solve, built lazily. Derived data (a function of the
/// sets and the IR), so two solves compare equal whether or not theirs are built yet.
#[derive(Clone, Debug)]
pub(super) struct Checkpoints {
    wanted: bool,
    /// Per block and checkpoint, the live vregs ascending (sparse: a dense set per
    /// checkpoint cost the function's vreg count each; issue 25).
    sets: OnceLock<Vec<Vec<Vec<VRegId>>>>,
}

impl PartialEq for Checkpoints {
    fn eq(&self, other: &Self) -> bool {
        self.wanted == other.wanted
    }
}

/// How one vreg takes part in liveness.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Slot {
    /// Index into `Liveness::files`, or `NONE` (barrier file, or its file not solved).
    file: u8,
    /// Index within that file's `FileLiveness::vregs`.
    bit: u32,
}

const NONE: u8 = u8::MAX;
/// `Slot::bit` of a block-local vreg: tracked, but with no index in the per-block sets.
const LOCAL: u32 = u32::MAX;

/// The forward scan for block-local vregs — never upward-exposed in any block (every
/// use follows a killing def in its block) and not live at exit, so in no block's
/// live-in, live-out or gen set — under both readings of a guarded whole def: it kills
/// (the vreg is in `single_def`) or not. So the scan needs no `single_def` and runs
/// beside [`predicated_kills`] (issue 25: on a large function the two walks run on two
/// threads); [`Exposure::local`] picks each vreg's reading.
struct Exposure {
    /// Upward-exposed in some block when only unguarded defs kill.
    plain: Vec<bool>,
    /// Upward-exposed in some block when every whole def kills.
    guarded: Vec<bool>,
}

impl Exposure {
    fn scan(f: &Function) -> Exposure {
        let n = f.vregs.len();
        let (mut plain, mut guarded) = (vec![false; n], vec![false; n]);
        // Block number + 1 of the latest killing def seen, per vreg and reading.
        let (mut killed_plain, mut killed_any) = (vec![0u32; n], vec![0u32; n]);
        for (b, blk) in f.blocks.iter().enumerate() {
            let stamp = b as u32 + 1;
            for inst in &blk.insts {
                inst.for_each_use(|r| {
                    let i = r.vreg.index();
                    if i < n {
                        plain[i] |= killed_plain[i] != stamp;
                        guarded[i] |= killed_any[i] != stamp;
                    }
                });
                let always = kills(inst);
                inst.for_each_def(|r| {
                    let i = r.vreg.index();
                    if i < n && r.comp.is_none() {
                        killed_any[i] = stamp;
                        if always {
                            killed_plain[i] = stamp;
                        }
                    }
                });
            }
        }
        Exposure { plain, guarded }
    }

    /// Per vreg: block-local under its reading (`single_def`).
    fn local(self, exit_live: &[VRegId], single_def: &[bool]) -> Vec<bool> {
        let mut exposed: Vec<bool> = self
            .plain
            .into_iter()
            .zip(self.guarded)
            .zip(single_def)
            .map(|((p, g), &s)| if s { g } else { p })
            .collect();
        for v in exit_live {
            if let Some(e) = exposed.get_mut(v.index()) {
                *e = true;
            }
        }
        exposed.into_iter().map(|e| !e).collect()
    }
}

/// Per file and index, during a block's reverse scan for gen/kill: in gen, in kill, seen.
const GEN: u8 = 1;
const KILL: u8 = 2;
const SEEN: u8 = 4;

/// What the gen/kill scan reads of a solve: where each vreg is indexed, which defs kill.
struct KillFacts<'l> {
    slots: &'l [Slot],
    single_def: &'l [bool],
    comp_kill: &'l [u8],
    exit_slots: &'l [Slot],
}

/// The marks of a reverse gen/kill scan over some instructions: per file, each index's
/// flags and the indices touched; the block-local vregs killed, in scan order.
struct GenKillScan {
    marks: Vec<Vec<u8>>,
    touched: Vec<Vec<u32>>,
    local: Vec<VRegId>,
}

impl GenKillScan {
    fn new(sizes: &[usize]) -> GenKillScan {
        GenKillScan {
            marks: sizes.iter().map(|&n| vec![0u8; n]).collect(),
            touched: vec![Vec::new(); sizes.len()],
            local: Vec::new(),
        }
    }

    fn mark(&mut self, s: Slot, kill: bool) {
        let m = &mut self.marks[s.file as usize][s.bit as usize];
        if *m & SEEN == 0 {
            self.touched[s.file as usize].push(s.bit);
        }
        *m = if kill { (*m | KILL | SEEN) & !GEN } else { *m | GEN | SEEN };
    }

    /// `insts` backwards: a killing def clears gen and sets kill, a use sets gen.
    fn walk(&mut self, insts: &[Inst], k: &KillFacts) {
        for inst in insts.iter().rev() {
            let always = kills(inst);
            inst.for_each_def(|r| {
                if def_kills_with(k.single_def, k.comp_kill, always, r)
                    && let Some(s) = slot_of(k.slots, r.vreg)
                {
                    if s.bit == LOCAL {
                        self.local.push(r.vreg);
                    } else {
                        self.mark(s, true);
                    }
                }
            });
            inst.for_each_use(|r| {
                if let Some(s) = slot_of(k.slots, r.vreg)
                    && s.bit != LOCAL
                {
                    self.mark(s, false);
                }
            });
            if inst.info().is(props::EXIT) {
                for &s in k.exit_slots {
                    self.mark(s, false);
                }
            }
        }
    }

    /// These marks (of instructions just before `later`'s) followed by `later`'s: an
    /// index this scan saw keeps its gen flag, one only `later` saw takes `later`'s;
    /// kill is either's. `later` is left empty.
    fn absorb_later(&mut self, later: &mut GenKillScan) {
        for ((m, t), (lm, lt)) in
            self.marks.iter_mut().zip(&mut self.touched).zip(later.marks.iter_mut().zip(&mut later.touched))
        {
            for &i in lt.iter() {
                let l = std::mem::take(&mut lm[i as usize]);
                let x = &mut m[i as usize];
                if *x & SEEN == 0 {
                    t.push(i);
                    *x = l;
                } else {
                    *x |= l & KILL;
                }
            }
            lt.clear();
        }
    }
}

/// Instructions from which a liveness solve scans for block-local vregs on a second
/// thread while it finds the predicated defs that kill (below it a thread costs more
/// than it saves).
const SIDE_SCAN_INSTS: usize = 20_000;

/// Liveness of one function: per-file solves plus checkpoints for point queries.
/// Queries take the same `Function` the liveness was computed on.
#[derive(Clone, Debug, PartialEq)]
pub struct Liveness {
    pub(super) nvregs: usize,
    pub(super) nblocks: usize,
    slots: Vec<Slot>,
    pub(super) files: Vec<FileLiveness>,
    pub(super) exit_live: LiveSet,
    pub(super) layout: Layout,
    /// Per block: the live set after instruction `(j + 1) * CHECKPOINT_INTERVAL - 1` for
    /// every chunk `j` but the last (whose end is the block's live-out). Built by the
    /// first point query that needs them: the allocator and the checker never ask, and
    /// on a large function they are a copy of the live set every 128 instructions.
    pub(super) checkpoints: Checkpoints,
    /// Vregs whose predicated defs kill too ([`predicated_kills`]: defined once, or
    /// guard-local), because no older value of them is ever read.
    single_def: Vec<bool>,
    /// Per block: the block-local vregs it kills (they have no index in the block sets).
    local_kills: Vec<Vec<VRegId>>,
    /// Per vreg, the component whose def starts the value of a vreg assembled from
    /// component defs (`NO_COMP` otherwise): see [`comp_kills`].
    comp_kill: Vec<u8>,
}

/// Liveness where no predicated def kills, even of a vreg defined once (the
/// uninitialized-register detector's reading).
pub fn compute_conservative(f: &Function, cfg: &Cfg, exit_live: &[VRegId]) -> Liveness {
    compute_inner(f, cfg, exit_live, false, usize::MAX, false)
}

/// No component def of this vreg kills.
pub const NO_COMP: u8 = u8::MAX;

/// Per vreg: the component whose def kills it, for vregs assembled from component defs
/// (PTX's `mov.b64 %rd, {%r1, %r2}` and 64-bit constants lower to `.lo`/`.hi` defs, vector
/// temporaries to `.0`..`.3` defs). A vreg qualifies when it carries `vflags::ASSEMBLED`
/// (set by the `components` prepass on imported PTX only), has no whole-register def —
/// other than the allocator's refill of itself, or an MMA's in-place update of a packed
/// accumulator when no read of an unwritten component falls inside the assembly (issue 23
/// rule 12) — and each of its components is defined exactly once, all in one block: no older value of it
/// exists anywhere, so it is dead above the first of those defs in the block (the one
/// that kills), live from there on. Without this rule such a vreg would be live from
/// the function's entry, inflating pressure on every imported kernel (issue 13,
/// "importer precision"). Vregs whose components are redefined (loop-carried) keep the
/// conservative reading.
pub fn comp_kills(f: &Function) -> Vec<u8> {
    let n = f.vregs.len();
    // Only marked vregs qualify: without any (Ori IR, or PTX whose importer assembled
    // nothing) the walk below would find nothing.
    if !f.vregs.iter().any(|v| v.flags & crate::ir::model::vflags::ASSEMBLED != 0) {
        return vec![NO_COMP; n];
    }
    // Per vreg: defs seen per component (bit set = seen once; `bad` = disqualified).
    let mut seen = vec![0u32; n];
    let mut bad = vec![false; n];
    let mut first: Vec<(usize, u8)> = vec![(usize::MAX, NO_COMP); n];
    // Vregs an MMA updates in place after their assembly (`WGMMA`'s packed accumulator,
    // issue 23 rule 12), and those read in a part not yet written inside their assembly:
    // an in-place update does not disqualify a vreg that no such read interrupts.
    let mut in_place = vec![false; n];
    let mut interrupted = vec![false; n];
    let full = |v: usize| {
        let w = f.vregs[v].width as u32;
        if w >= 32 { u32::MAX } else { (1u32 << w) - 1 }
    };
    for (b, blk) in f.blocks.iter().enumerate() {
        for inst in &blk.insts {
            // The allocator's spill code may reload a spilled vreg into itself before a
            // component def that keeps the rest of it (`alloc::spill`): that whole def
            // restores the same value, unguarded, so it kills on its own and is no other
            // value of the vreg.
            let refill = matches!(inst.op.mnemonic(), "LDL" | "LDS") && inst.has_mod("SPILL") && kills(inst);
            let mma = inst.op.mnemonic().contains("MMA");
            inst.for_each_use(|r| {
                let v = r.vreg.index();
                if v < n && first[v].0 == b && seen[v] != full(v) {
                    let written = r.comp.is_some_and(|c| c < 32 && seen[v] & (1 << c) != 0);
                    interrupted[v] |= !written;
                }
            });
            inst.for_each_def(|r| {
                let v = r.vreg.index();
                if v >= n {
                    return;
                }
                match r.comp {
                    None if refill => {}
                    None if mma && reads_whole(inst, r.vreg) => in_place[v] = true,
                    None => bad[v] = true,
                    Some(c) if c < 32 => {
                        if seen[v] & (1 << c) != 0 || (first[v].0 != usize::MAX && first[v].0 != b) {
                            bad[v] = true;
                        }
                        seen[v] |= 1 << c;
                        if first[v].0 == usize::MAX {
                            first[v] = (b, c);
                        }
                    }
                    Some(_) => bad[v] = true,
                }
            });
        }
    }
    for v in 0..n {
        bad[v] |= in_place[v] && interrupted[v];
    }
    (0..n)
        .map(|v| {
            let marked = f.vregs[v].flags & crate::ir::model::vflags::ASSEMBLED != 0;
            if marked && !bad[v] && f.vregs[v].width >= 2 && seen[v] == full(v) { first[v].1 } else { NO_COMP }
        })
        .collect()
}

/// Whether `inst` reads `v` whole: an MMA that also defines it updates it in place (the
/// importer's `WGMMA` reads and writes its packed accumulator).
fn reads_whole(inst: &Inst, v: VRegId) -> bool {
    let mut read = false;
    inst.for_each_use(|r| read |= r.comp.is_none() && r.vreg == v);
    read
}

/// Per vreg: whether a predicated (guarded) whole-register def of it kills — it has
/// exactly one whole-register def ([`single_defs`]), or it is [`guard_local`] — and so ends
/// its live range backwards like an unguarded def does. Seed 004's gen/kill has every def
/// kill ("kill(B) = { r in V | r is defined in B }"); radbg keeps a guarded def from
/// killing only where an older value could still be read, which these two rules exclude.
pub fn predicated_kills(f: &Function, exit_live: &[VRegId]) -> Vec<bool> {
    // `single_defs` counted in `guard_local`'s walk (one walk of the function, not two:
    // every liveness solve makes this; issue 25).
    let mut defs = vec![0u32; f.vregs.len()];
    let local = guard_local_with(f, exit_live, |r| {
        if let Some(c) = defs.get_mut(r.vreg.index()) {
            *c += if r.comp.is_none() { 1 } else { 2 };
        }
    });
    defs.into_iter().zip(local).map(|(c, g)| c == 1 || g).collect()
}

/// Per vreg: every def and use of it lies in one block, each under the same guard
/// (`@%p` or `@!%p`, the predicate not redefined in between), the first of them a
/// whole-register def, and it is not live at the function's exit. When the guard is
/// false none of those instructions runs, so no older value is ever read: each guarded
/// def may kill (the block reads as straight-line code under the guard). This is what
/// `ifconvert` makes of a short body's temporaries that have several defs — the
/// expansion of a division, an accumulator updated twice — which the single-def rule
/// missed: they stayed live from the function's entry around every loop (a reduced
/// cuvarbase BLS kernel failed at 32 registers where ptxas uses 4; `tests/regress/`).
/// After that first whole def, the same guard's instructions may read or write single
/// components (`expand`'s 64-bit multiply: `@!P %rd = IMAD.WIDE.U32 ..`, then `@!P
/// %rd.hi = IADD3 %rd.hi, ..`): every read still follows the whole def under the guard.
/// dlib's `_cuda_add2` predicates two such address computations; ptxas's SASS keeps them
/// in registers only between their `@!P0 IMAD.WIDE.U32` and the `@!P0 LDG` (nvdisasm
/// `-plr`), where radbg kept them live around the whole loop.
pub fn guard_local(f: &Function, exit_live: &[VRegId]) -> Vec<bool> {
    guard_local_with(f, exit_live, |_| {})
}

/// [`guard_local`], calling `on_def` with every def of the function in order.
fn guard_local_with(f: &Function, exit_live: &[VRegId], mut on_def: impl FnMut(RegRef)) -> Vec<bool> {
    use crate::ir::model::{Guard, Reg};
    const UNSEEN: u32 = u32::MAX;
    let n = f.vregs.len();
    let mut ok = vec![true; n];
    // Per vreg: the block of its first occurrence, its guard there, and the number of
    // defs of that guard's predicate seen in the block by then.
    let mut block = vec![UNSEEN; n];
    let mut guard: Vec<Option<Guard>> = vec![None; n];
    let mut guard_gen = vec![0u32; n];
    // Defs of each (predicate) vreg seen so far in the current block.
    let mut defs_in_block = vec![0u32; n];
    let mut touched: Vec<usize> = Vec::new();
    for (b, blk) in f.blocks.iter().enumerate() {
        let b = b as u32;
        for &t in &touched {
            defs_in_block[t] = 0;
        }
        touched.clear();
        for inst in &blk.insts {
            let g = inst.guard;
            let gen_now = match g {
                Some(Guard { reg: Reg::V(p), .. }) if p.comp.is_none() => defs_in_block.get(p.vreg.index()).copied(),
                _ => None,
            };
            // Only a guard on a whole predicate vreg qualifies: a physical predicate or a
            // component could change without a def we see.
            let mut visit = |v: usize, is_def: bool, whole: bool| {
                if v >= n || !ok[v] {
                    return;
                }
                let Some(gen_now) = gen_now else {
                    ok[v] = false;
                    return;
                };
                if block[v] == UNSEEN {
                    if !is_def || !whole {
                        ok[v] = false;
                        return;
                    }
                    block[v] = b;
                    guard[v] = g;
                    guard_gen[v] = gen_now;
                } else if block[v] != b || guard[v] != g || guard_gen[v] != gen_now {
                    ok[v] = false;
                }
            };
            inst.for_each_use(|r| visit(r.vreg.index(), false, r.comp.is_none()));
            // One walk of the defs: `visit` reads the guard's count as it was before this
            // instruction (`gen_now`), so counting each def right after visiting it is
            // the same as counting them all afterwards.
            inst.for_each_def(|r| {
                on_def(r);
                visit(r.vreg.index(), true, r.comp.is_none());
                if let Some(c) = defs_in_block.get_mut(r.vreg.index()) {
                    *c += 1;
                    touched.push(r.vreg.index());
                }
            });
        }
    }
    for v in exit_live {
        if let Some(o) = ok.get_mut(v.index()) {
            *o = false;
        }
    }
    ok.iter().zip(&block).map(|(&o, &b)| o && b != UNSEEN).collect()
}

/// How far [`group_starts`] looks for the rest of a group (instructions).
const GROUP_SCAN: usize = 16;

/// The component defs in `insts` that begin a *complete rewrite* of their vreg: from it,
/// unguarded component defs in the same block define every component of the vreg before
/// anything reads it or defines it otherwise (PTX's `mov.b64 %rd, {%r1, %r2}` and vector
/// loads become such groups on import). No older value is read after such a def, so it
/// starts a new value, as a whole def does — seed 004's gen/kill (every def kills) holds
/// for the group as a whole. Without this a 64-bit name redefined from two halves stayed
/// one web with its older value, and spilling it freed nothing (a boojum barycentric
/// kernel failed at `--maxrregcount 32`; `tests/regress/`). Sorted by (instruction, vreg).
pub fn group_starts(f: &Function, insts: &[Inst]) -> Vec<(u32, VRegId)> {
    let mut out = Vec::new();
    for (i, inst) in insts.iter().enumerate() {
        if !kills(inst) {
            continue;
        }
        let mut here: Vec<VRegId> = Vec::new();
        for d in inst.defs() {
            let crate::ir::model::Operand::Reg(crate::ir::model::Reg::V(r)) = d else { continue };
            if r.comp.is_none() || here.contains(&r.vreg) {
                continue;
            }
            here.push(r.vreg);
            let Some(vr) = f.vregs.get(r.vreg.index()) else { continue };
            let w = u32::from(vr.width).min(32);
            let all = if w >= 32 { u32::MAX } else { (1u32 << w) - 1 };
            if complete_from(insts, i, r.vreg, all) {
                out.push((i as u32, r.vreg));
            }
        }
    }
    out.sort_unstable();
    out
}

/// Whether unguarded component defs from `insts[i]` on define all of `all`'s components
/// of `v` before any read or whole/guarded def of it.
fn complete_from(insts: &[Inst], i: usize, v: VRegId, all: u32) -> bool {
    let mut seen = 0u32;
    for inst in insts.iter().skip(i).take(GROUP_SCAN) {
        let mut read = false;
        inst.for_each_use(|r| read |= r.vreg == v);
        if read {
            return false;
        }
        let mut bad = false;
        for d in inst.defs() {
            if let crate::ir::model::Operand::Reg(crate::ir::model::Reg::V(r)) = d
                && r.vreg == v
            {
                match r.comp {
                    Some(c) if kills(inst) && u32::from(c) < 32 => seen |= 1 << c,
                    _ => bad = true,
                }
            }
        }
        if bad {
            return false;
        }
        if seen & all == all {
            return true;
        }
    }
    false
}

/// Per vreg: whether it has exactly one whole-register definition in `f`.
pub fn single_defs(f: &Function) -> Vec<bool> {
    let mut n = vec![0u32; f.vregs.len()];
    for inst in f.blocks.iter().flat_map(|b| &b.insts) {
        inst.for_each_def(|r| {
            if let Some(c) = n.get_mut(r.vreg.index()) {
                *c += if r.comp.is_none() { 1 } else { 2 };
            }
        });
    }
    n.into_iter().map(|c| c == 1).collect()
}

/// Computes liveness of `f` over `cfg`. `exit_live` are the vregs live when the function
/// leaves (return values of a function with an ABI): they seed exit blocks' live-out.
pub fn compute(f: &Function, cfg: &Cfg, exit_live: &[VRegId]) -> Liveness {
    compute_with(f, cfg, exit_live, true, usize::MAX)
}

/// The solve stopped after its first `sweeps` passes (0: the initial state, with only
/// the exit blocks' live-out seeded), so the debugger can step through the solver and
/// show every block's sets after each sweep. Each file stops independently; files that
/// converge earlier show their final state. Point queries on the result walk from
/// these partial sets.
pub fn compute_partial(f: &Function, cfg: &Cfg, exit_live: &[VRegId], sweeps: usize) -> Liveness {
    compute_with(f, cfg, exit_live, false, sweeps)
}

pub(crate) fn compute_with(
    f: &Function,
    cfg: &Cfg,
    exit_live: &[VRegId],
    checkpoints: bool,
    sweep_limit: usize,
) -> Liveness {
    compute_inner(f, cfg, exit_live, checkpoints, sweep_limit, true)
}

fn compute_inner(
    f: &Function,
    cfg: &Cfg,
    exit_live: &[VRegId],
    checkpoints: bool,
    sweep_limit: usize,
    single_def_kills: bool,
) -> Liveness {
    let nvregs = f.vregs.len();
    let nblocks = f.blocks.len();

    // Per-file indices (seed 004: one bitvector per file, solved independently; here the
    // index of a vreg in its file's sparse sets). A file is solved only when the function
    // has vregs in it, like ptxas allocates the UR bitvector only for functions that use
    // uniform registers.
    let kills_of = || if single_def_kills { predicated_kills(f, exit_live) } else { vec![false; f.vregs.len()] };
    let insts: usize = f.blocks.iter().map(|b| b.insts.len()).sum();
    let (single_def, exposure) = if insts >= SIDE_SCAN_INSTS {
        std::thread::scope(|s| {
            let h = s.spawn(|| Exposure::scan(f));
            let k = kills_of();
            match h.join() {
                Ok(e) => (k, e),
                Err(p) => std::panic::resume_unwind(p),
            }
        })
    } else {
        (kills_of(), Exposure::scan(f))
    };
    // Block-local vregs (reload temporaries, short-lived values) get no index: they can
    // be in no live-in or live-out set, so the sets and the solver skip them (the
    // sets, sweeps and every query are the same; only the memory and time shrink).
    let local = exposure.local(exit_live, &single_def);
    let mut slots = vec![Slot { file: NONE, bit: 0 }; nvregs];
    let mut files = Vec::new();
    // The vregs of each liveness file, ascending, in one pass over the vregs.
    let mut of_file: Vec<Vec<usize>> = vec![Vec::new(); LIVENESS_FILES.len()];
    for (i, v) in f.vregs.iter().enumerate() {
        if let Some(k) = LIVENESS_FILES.iter().position(|&file| file == v.file()) {
            of_file[k].push(i);
        }
    }
    for (file, members) in LIVENESS_FILES.into_iter().zip(of_file) {
        if members.is_empty() {
            continue;
        }
        let fi = files.len() as u8;
        let mut ids = Vec::new();
        for i in members {
            if local[i] {
                slots[i] = Slot { file: fi, bit: LOCAL };
            } else {
                slots[i] = Slot { file: fi, bit: ids.len() as u32 };
                ids.push(VRegId::new(i));
            }
        }
        files.push(FileLiveness::new(file, ids, nblocks));
    }
    let exit_live = LiveSet::from_ids(nvregs, exit_live.iter().copied().filter(|v| slot_of(&slots, *v).is_some()));

    let mut live = Liveness {
        nvregs,
        nblocks,
        slots,
        files,
        exit_live,
        layout: f.layout(),
        checkpoints: Checkpoints { wanted: checkpoints, sets: OnceLock::new() },
        single_def,
        local_kills: vec![Vec::new(); nblocks],
        comp_kill: if single_def_kills { comp_kills(f) } else { vec![NO_COMP; f.vregs.len()] },
    };
    // The per-block sets (four per file) and the instructions scanned for gen/kill.
    crate::work::add(
        (4 * nblocks * live.files.len()) as u64 + f.blocks.iter().map(|b| b.insts.len() as u64).sum::<u64>(),
    );
    live.gen_kill(f);
    live.seed_exits(cfg);
    let order = solve_order(cfg, nblocks);
    for fl in &mut live.files {
        solve_file(fl, cfg, &order, sweep_limit);
    }
    live
}

/// `compute`, then live only where some def may have happened
/// ([`Liveness::restrict_to_defined`]): what the fat-point allocator and the checker
/// read. The classic solve (`compute`) stays what the debugger shows and what the
/// other analyses and their brute-force properties are defined by.
pub fn compute_defined(f: &Function, cfg: &Cfg, exit_live: &[VRegId]) -> Liveness {
    let mut live = compute_with(f, cfg, exit_live, false, usize::MAX);
    live.restrict_to_defined(f, cfg);
    live
}

/// Compressed rows of `(row, value)` pairs: `at[r]..at[r + 1]` indexes row `r`'s values
/// in `vals`, each row in the order the pairs came.
fn csr(rows: usize, pairs: impl Iterator<Item = (u32, u32)> + Clone) -> (Vec<u32>, Vec<u32>) {
    let mut at = vec![0u32; rows + 1];
    for (r, _) in pairs.clone() {
        at[r as usize + 1] += 1;
    }
    for r in 0..rows {
        at[r + 1] += at[r];
    }
    let mut fill = at.clone();
    let mut vals = vec![0u32; at[rows] as usize];
    for (r, v) in pairs {
        vals[fill[r as usize] as usize] = v;
        fill[r as usize] += 1;
    }
    (at, vals)
}

fn slot_of(slots: &[Slot], v: VRegId) -> Option<Slot> {
    slots.get(v.index()).copied().filter(|s| s.file != NONE)
}

/// The solver's visiting order: reverse RPO ("index ctx+520 downto 0"), then the
/// unreachable blocks in reverse layout order so that queries on them still see a
/// consistent (if never executed) solution.
fn solve_order(cfg: &Cfg, nblocks: usize) -> Vec<usize> {
    let mut order: Vec<usize> = cfg.rpo.iter().rev().copied().filter(|&b| b < nblocks).collect();
    for b in (0..nblocks).rev() {
        if !cfg.reachable.get(b).copied().unwrap_or(false) {
            order.push(b);
        }
    }
    order
}

/// Seed 004, "Iterative Fixed-Point Solver", stage 2: sweep until no set changes,
/// meet with `orIfChanged`, transfer with `orWithAndNotIfChanged` — here on sorted
/// index vectors (`analysis::sparse`, the same only-adds-and-reports contract), so a
/// sweep costs the sizes of the sets it reads, and the sweep record (the blocks whose
/// live-in or live-out grew, in visiting order) is the bitvector solver's.
fn solve_file(fl: &mut FileLiveness, cfg: &Cfg, order: &[usize], sweep_limit: usize) {
    let nblocks = fl.live_in.len();
    let mut scratch = Vec::new();
    let mut cand = Vec::new();
    let FileLiveness { sweeps, gen_, kill, live_in, live_out, .. } = fl;
    while sweeps.len() < sweep_limit {
        let mut sweep = Sweep::default();
        // What each block's visit reads (issue 25's complexity test counts it).
        let mut work = 0u64;
        for &b in order {
            let mut changed = false;
            for &s in cfg.succs.get(b).map(Vec::as_slice).unwrap_or(&[]) {
                if s >= nblocks {
                    continue;
                }
                work += (live_in[s].len() + live_out[b].len()) as u64;
                if s == b {
                    // A self loop: live_in(b) flows into live_out(b).
                    let src = std::mem::take(&mut live_in[b]);
                    changed |= sparse::union_into(&mut live_out[b], &src, &mut scratch);
                    live_in[b] = src;
                } else {
                    changed |= sparse::union_into(&mut live_out[b], &live_in[s], &mut scratch);
                }
            }
            sparse::union_minus(&mut cand, &gen_[b], &live_out[b], &kill[b]);
            work += 1 + (gen_[b].len() + live_out[b].len() + kill[b].len() + live_in[b].len()) as u64;
            changed |= sparse::union_into(&mut live_in[b], &cand, &mut scratch);
            if changed {
                sweep.changed.push(b);
            }
        }
        crate::work::add(work);
        let done = sweep.changed.is_empty();
        sweeps.push(sweep);
        if done {
            break;
        }
    }
}

impl Liveness {
    /// Gen/kill per block and file from a reverse scan of each block (seed 004,
    /// sub_774370): a killing def removes the vreg from gen and adds it to kill; a use
    /// adds it to gen. (The seed's one-line summary "every source not in kill" is the
    /// forward-scan formulation; scanning backwards, a def clears what uses below it set.)
    /// A vreg is live only where some definition of it may have happened: where no def
    /// reaches, the register holds no value of the program, so a read there is of an
    /// undefined value and nothing needs keeping (SSA's "undef has no live range").
    /// Without this a value defined in one arm of a switch and read (undefined) in
    /// another is live from the function's entry through every arm: a real kernel of
    /// task cases (issue 22) had 545 values live at its entry and failed to allocate at
    /// 255 where ptxas uses 96. A forward may-reach of the blocks' defs masks the
    /// block sets; vregs the function never defines (inputs, pinned boundary twins)
    /// count as defined everywhere.
    pub(crate) fn restrict_to_defined(&mut self, f: &Function, cfg: &Cfg) {
        let nb = self.nblocks;
        let mut has_def = vec![false; self.nvregs];
        // Per file: (index, block) of every def of a vreg with an index.
        let mut defs: Vec<Vec<(u32, u32)>> = vec![Vec::new(); self.files.len()];
        for (b, blk) in f.blocks.iter().enumerate() {
            for inst in &blk.insts {
                inst.for_each_def(|r| {
                    if let Some(x) = has_def.get_mut(r.vreg.index()) {
                        *x = true;
                    }
                    if let Some(s) = slot_of(&self.slots, r.vreg)
                        && s.bit != LOCAL
                        && b < nb
                    {
                        defs[s.file as usize].push((s.bit, b as u32));
                    }
                });
            }
        }
        // The may-reach propagates into the blocks the entry reaches (those of `rpo`),
        // along the edges `preds` names, from any block (an unreachable predecessor
        // contributes its own defs).
        let mut propagates = vec![false; nb];
        for &b in &cfg.rpo {
            if b < nb {
                propagates[b] = true;
            }
        }
        let (succ_at, succ) = csr(
            nb,
            (0..nb).flat_map(|b| {
                cfg.preds
                    .get(b)
                    .map_or(&[][..], Vec::as_slice)
                    .iter()
                    .filter(move |&&p| p < nb)
                    .map(move |&p| (p as u32, b as u32))
            }),
        );
        let mut in_s = vec![u32::MAX; nb];
        let mut in_r = vec![u32::MAX; nb];
        let mut stack: Vec<u32> = Vec::new();
        let mut drops: Vec<(u32, u32)> = Vec::new();
        let mut cand = Vec::new();
        let mut work = 0u64;
        for (k, fl) in self.files.iter_mut().enumerate() {
            let n = fl.vregs.len();
            if n == 0 {
                continue;
            }
            // A vreg is masked out of a block's live-out unless a def of it may reach
            // the block's end: `dout[b]` of the forward may-reach (out[b] = in[b] |
            // defs[b], in[b] = OR of the preds' out). Only the blocks where the vreg is
            // live-out matter, and the may-reach into them runs through such blocks
            // alone: a block that is live-out and defines nothing has the vreg live-in
            // (nothing kills it there), so every predecessor has it live-out too. So per
            // vreg the search walks forward from its defining blocks within the blocks
            // where it is live-out — the size of its live range, not of the function.
            let (out_at, out_blocks) =
                csr(n, fl.live_out.iter().enumerate().flat_map(|(b, o)| o.iter().map(move |&i| (i, b as u32))));
            let (def_at, def_blocks) = csr(n, defs[k].iter().copied());
            drops.clear();
            for i in 0..n {
                let s_blocks = &out_blocks[out_at[i] as usize..out_at[i + 1] as usize];
                if s_blocks.is_empty() || !has_def[fl.vregs[i].index()] {
                    continue;
                }
                let stamp = i as u32;
                for &b in s_blocks {
                    in_s[b as usize] = stamp;
                }
                stack.clear();
                for &b in &def_blocks[def_at[i] as usize..def_at[i + 1] as usize] {
                    if in_s[b as usize] == stamp && in_r[b as usize] != stamp {
                        in_r[b as usize] = stamp;
                        stack.push(b);
                    }
                }
                while let Some(p) = stack.pop() {
                    let next = &succ[succ_at[p as usize] as usize..succ_at[p as usize + 1] as usize];
                    work += next.len() as u64;
                    for &b in next {
                        let bu = b as usize;
                        if in_s[bu] == stamp && in_r[bu] != stamp && propagates[bu] {
                            in_r[bu] = stamp;
                            stack.push(b);
                        }
                    }
                }
                for &b in s_blocks {
                    if in_r[b as usize] != stamp {
                        drops.push((b, stamp));
                    }
                }
                work += (s_blocks.len() + def_at[i + 1] as usize - def_at[i] as usize) as u64;
            }
            // The stamps are indices of this file; the next file's reuse them.
            in_s.fill(u32::MAX);
            in_r.fill(u32::MAX);
            drops.sort_unstable();
            for group in drops.chunk_by(|x, y| x.0 == y.0) {
                let idx: Vec<u32> = group.iter().map(|&(_, i)| i).collect();
                sparse::remove_all(&mut fl.live_out[group[0].0 as usize], &idx);
            }
            // Each live-in is then what the block's own backward walk gives from its
            // masked live-out (gen | out & !kill), so the block sets and the point
            // queries (which walk from live-out) agree. A read of a value undefined at
            // the block's entry keeps it live from there to the read, never beyond into
            // the predecessors where no def reaches.
            for b in 0..nb {
                sparse::union_minus(&mut cand, &fl.gen_[b], &fl.live_out[b], &fl.kill[b]);
                work += (cand.len() + fl.live_in[b].len()) as u64;
                std::mem::swap(&mut fl.live_in[b], &mut cand);
            }
        }
        crate::work::add(work);
    }

    fn gen_kill(&mut self, f: &Function) {
        let Liveness { files, slots, exit_live, single_def, local_kills, comp_kill, .. } = self;
        let exit_slots: Vec<Slot> =
            exit_live.iter().filter_map(|v| slot_of(slots, v)).filter(|s| s.bit != LOCAL).collect();
        let sizes: Vec<usize> = files.iter().map(|fl| fl.vregs.len()).collect();
        let facts = KillFacts { slots, single_def, comp_kill, exit_slots: &exit_slots };
        let mut scan = GenKillScan::new(&sizes);
        for (b, blk) in f.blocks.iter().enumerate() {
            let insts = &blk.insts[..];
            let mid = insts.len() / 2;
            if insts.len() >= SIDE_SCAN_INSTS {
                // A large block in two halves, the later one on a second thread (issue 25:
                // the scale kernel is one block of 99.5k instructions): a vreg's flags
                // over the block are its earlier half's when that half names it, else
                // the later half's, its kill either half's; the later half's local
                // kills come first (the walk goes backwards).
                let mut later = GenKillScan::new(&sizes);
                std::thread::scope(|s| {
                    let h = s.spawn(|| later.walk(&insts[mid..], &facts));
                    scan.walk(&insts[..mid], &facts);
                    if let Err(p) = h.join() {
                        std::panic::resume_unwind(p);
                    }
                });
                let mut local = std::mem::take(&mut later.local);
                local.append(&mut scan.local);
                scan.local = local;
                scan.absorb_later(&mut later);
            } else {
                scan.walk(insts, &facts);
            }
            local_kills[b] = std::mem::take(&mut scan.local);
            for ((fl, t), m) in files.iter_mut().zip(&mut scan.touched).zip(&mut scan.marks) {
                if t.is_empty() {
                    continue;
                }
                t.sort_unstable();
                let (mut g, mut k) = (Vec::new(), Vec::new());
                for &i in t.iter() {
                    let x = std::mem::take(&mut m[i as usize]);
                    if x & GEN != 0 {
                        g.push(i);
                    }
                    if x & KILL != 0 {
                        k.push(i);
                    }
                }
                t.clear();
                if let (Some(gs), Some(ks)) = (fl.gen_.get_mut(b), fl.kill.get_mut(b)) {
                    *gs = g;
                    *ks = k;
                }
            }
        }
    }

    /// Stage 1: exit blocks' live-out holds the exit-live registers (seed 004: "Exit
    /// blocks have their LiveOut initialized to the set of callee-saved / return-value
    /// registers").
    fn seed_exits(&mut self, cfg: &Cfg) {
        for &b in &cfg.exits {
            if b >= self.nblocks {
                continue;
            }
            for v in self.exit_live.iter() {
                if let Some(s) = slot_of(&self.slots, v)
                    && s.bit != LOCAL
                {
                    self.files[s.file as usize].live_out[b].push(s.bit);
                }
            }
        }
        for fl in &mut self.files {
            for o in &mut fl.live_out {
                o.sort_unstable();
                o.dedup();
            }
        }
    }

    /// Block `b`'s checkpoints, building every block's on first use (none for a solve
    /// made without them).
    pub(super) fn checkpoints_of(&self, f: &Function, b: usize) -> &[Vec<VRegId>] {
        if !self.checkpoints.wanted {
            return &[];
        }
        let all = self.checkpoints.sets.get_or_init(|| self.build_checkpoints(f));
        all.get(b).map_or(&[], Vec::as_slice)
    }

    fn build_checkpoints(&self, f: &Function) -> Vec<Vec<Vec<VRegId>>> {
        let k = CHECKPOINT_INTERVAL;
        let mut all = vec![Vec::new(); self.nblocks];
        let mut walk = crate::analysis::query::BlockWalk::new(self);
        for (b, blk) in f.blocks.iter().enumerate().take(self.nblocks) {
            let n = blk.insts.len();
            if n <= k {
                continue;
            }
            let mut cps = Vec::with_capacity(n / k);
            walk.start(self, b);
            for i in (0..n).rev() {
                if (i + 1) % k == 0 && i + 1 < n {
                    cps.push(walk.members().to_vec());
                }
                walk.step_back(self, &blk.insts[i], |_, _| {});
            }
            cps.reverse();
            all[b] = cps;
        }
        all
    }

    /// Whether `v` takes part in liveness (its file is solved and is not a barrier file).
    pub fn is_tracked(&self, v: VRegId) -> bool {
        slot_of(&self.slots, v).is_some()
    }

    /// The files solved, in solve order (R, UR, P, UP, T; only those with vregs).
    pub fn files(&self) -> &[FileLiveness] {
        &self.files
    }

    /// The solve of one file, if it was solved.
    pub fn file(&self, file: RegFile) -> Option<&FileLiveness> {
        self.files.iter().find(|fl| fl.file == file)
    }

    /// The solver passes of `file` (empty if the file was not solved).
    pub fn sweeps(&self, file: RegFile) -> &[Sweep] {
        self.file(file).map_or(&[], |fl| &fl.sweeps)
    }

    /// The registers live when the function leaves.
    pub fn exit_live(&self) -> &LiveSet {
        &self.exit_live
    }

    /// Number of program points (instructions) the liveness was computed over.
    pub fn len(&self) -> u32 {
        self.layout.len()
    }

    pub fn is_empty(&self) -> bool {
        self.layout.is_empty()
    }

    fn block_set(&self, b: usize, which: BlockSet) -> LiveSet {
        let mut s = LiveSet::new(self.nvregs);
        self.for_each_in(b, which, |v| {
            s.insert(v);
        });
        s
    }

    /// Calls `f` with every vreg of one of block `b`'s sets, file by file (ascending
    /// within a file), without building a set over all vregs.
    pub fn for_each_in(&self, b: usize, which: BlockSet, mut f: impl FnMut(VRegId)) {
        for fl in &self.files {
            for &i in fl.members(which, b) {
                f(fl.vregs[i as usize]);
            }
        }
    }

    /// Live on entry to block `b` (empty for a block out of range).
    pub fn live_in(&self, b: usize) -> LiveSet {
        self.block_set(b, BlockSet::LiveIn)
    }

    /// Live on exit from block `b` (empty for a block out of range).
    pub fn live_out(&self, b: usize) -> LiveSet {
        self.block_set(b, BlockSet::LiveOut)
    }

    /// Upward-exposed uses of block `b`.
    pub fn gen_set(&self, b: usize) -> LiveSet {
        self.block_set(b, BlockSet::Gen)
    }

    /// Vregs killed (wholly and unconditionally defined) in block `b`.
    pub fn kill_set(&self, b: usize) -> LiveSet {
        let mut s = self.block_set(b, BlockSet::Kill);
        for &v in self.local_kills.get(b).map_or(&[][..], Vec::as_slice) {
            s.insert(v);
        }
        s
    }

    /// The backward transfer of one instruction (seed 004, "Backward Walk Live Set Update
    /// Rule"): killing defs leave the set, then uses (and exit-live registers at EXIT/RET)
    /// enter it. `changed(v, inserted)` is told of every membership change.
    #[inline]
    pub fn step_back(&self, inst: &Inst, live: &mut LiveSet, mut changed: impl FnMut(VRegId, bool)) {
        let always = kills(inst);
        inst.for_each_def(|r| {
            if def_kills_with(&self.single_def, &self.comp_kill, always, r)
                && self.is_tracked(r.vreg)
                && live.remove(r.vreg)
            {
                changed(r.vreg, false);
            }
        });
        inst.for_each_use(|r| {
            if self.is_tracked(r.vreg) && live.insert(r.vreg) {
                changed(r.vreg, true);
            }
        });
        if inst.info().is(props::EXIT) {
            for v in self.exit_live.iter() {
                if live.insert(v) {
                    changed(v, true);
                }
            }
        }
    }
}

impl Liveness {
    /// Whether a def of `r` by `inst` ends the vreg's previous value: a whole-register
    /// def that always executes, or any whole-register def of a vreg defined only once.
    pub fn def_kills(&self, inst: &Inst, r: crate::ir::model::RegRef) -> bool {
        def_kills_with(&self.single_def, &self.comp_kill, kills(inst), r)
    }
}

/// The kill rule of one def: a whole-register def that always executes or of a vreg
/// defined once, or the first component def of an assembled vreg ([`comp_kills`]).
#[inline]
fn def_kills_with(single_def: &[bool], comp_kill: &[u8], always: bool, r: crate::ir::model::RegRef) -> bool {
    let v = r.vreg.index();
    match r.comp {
        None => always || single_def.get(v).copied().unwrap_or(false),
        Some(c) => comp_kill.get(v).is_some_and(|&k| k == c),
    }
}

/// Whether an instruction's whole-vreg defs kill (it always executes).
#[inline]
pub fn kills(inst: &Inst) -> bool {
    inst.guard_is_always()
}
