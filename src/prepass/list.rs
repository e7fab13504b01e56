//! The list scheduler of `schedule`: per block, a dependence graph with ptxas's
//! latencies and a cycle-driven, register-pressure-aware top-down list schedule.
//!
//! Measured (ARCHITECTURE.md, "Fidelity", step 7): the stall counts ptxas 13.0.88
//! writes into the control bits of every SASS instruction (bits 105–108 of the 128-bit
//! word, sm_80/sm_90) say how many cycles it keeps between an instruction and the first
//! reader of its result. Over the corpus cubins, the smallest such distance of every
//! fixed-latency ALU op (FFMA, FADD, FMUL, IMAD, IADD3, LOP3, SHF, LEA, SEL, MOV, …;
//! 14 000 pairs) is 4 cycles, of DADD 10. Variable-latency ops wait on a scoreboard, so
//! the control bits give no latency; what ptxas's scheduler assumes shows as how far
//! it places the first reader after them — the median over the corpus: LDG 55 cycles,
//! LDS 25, MUFU 17, LDC 14, S2R 10. Those are the latencies here.
//!
//! The schedule: top-down, one instruction per cycle; an instruction is ready when
//! every predecessor has issued and its results have arrived; among the ready ones one
//! that frees registers goes before one that keeps the count before one that adds, then
//! the longest latency-weighted path to the block's end (critical path), then the
//! original order. A fixed-latency instruction (4 cycles: ALU) that adds a live register
//! is not ready before its as-late-as-possible start, the critical path's length minus
//! its own path to the end: long-latency loads are issued as early as they can be, the
//! arithmetic that feeds stores and later uses waits until it is due, chain by chain.
//! Measured (ARCHITECTURE.md, "Fidelity", step 16): cub_block_reduce under
//! `--maxrregcount 64` issues its sixteen `LDG`s first, then computes the sixteen shared
//! store addresses a few at a time between the stores (peak live 28); filling the
//! loads' latency with every ready instruction computed all sixteen addresses at once,
//! breadth first (radbg 63 registers); merge_sort_i32 and histo256 show the same. Register pressure (the R file) is tracked as it goes:
//! an instruction that would take the live count above the limit waits while one that
//! fits exists; when none fits, the one that adds least goes. So a block is spread
//! out for latency as far as its parallelism allows and the register target permits —
//! ptxas's "schedule to the budget" (conv5x5: 32 at the default, 48/55 under 64).
//!
//! A stall is filled (issue 23, ARCHITECTURE.md, rule 8): when the best ready
//! instruction waits more than [`FILL_WAIT`] cycles for a memory load, a one-word ALU
//! result held back by the as-late-as-possible rule may issue now, if at most
//! [`FILL_IN_FLIGHT`] global load is in flight (issued, its result not yet read) and the R
//! pressure stays within the region's own peak in its given order and within the limit.
//! Measured in nvdisasm listings of the development part: ptxas fills a global load's
//! shadow with ALU work the load's consumers do not need (cudpp `scan4`: `tid >> 5`, the
//! warp-scan address and a shared address from after two barriers issued under
//! `LDG.E.128 R4`, ptxas peak 22 where radbg had 20), mostly 32-bit results. Hand-made
//! kernels (ptxas 13.0.88, sm_80) show what limits it: behind one `LDG` ptxas issues six
//! independent results before the load's reader, live-out ones included; behind two it
//! issues two, behind eight none — the loads' readers go first (cub `merge_sort_i32`'s
//! shared address waits behind its eight `LDG`s the same way).
//!
//! Instructions that are calls, PHIs, unknown opcodes or have physical-register operands
//! keep their place (their order carries meaning this model does not see): they split a
//! block into regions, and each region is scheduled on its own (`schedule::list_schedule`).
//! Measured: in cub_block_reduce the sixteen loads, their shared-memory stores and an
//! `__assertfail` call share one PTX block; ptxas issues the loads first and computes the
//! store addresses after them (SASS, `--maxrregcount 64`: peak live 28), where the block
//! left whole in PTX order keeps sixteen `tid + 128·k` values live beside the loads (34).
//!
//! Owns the dependence graph and the schedule; must not know the allocator or the engine.

use std::collections::BTreeMap;

use crate::ir::opcode::props;
use crate::ir::{Function, Inst, Operand, Reg, RegFile, VRegId};

/// Cycles between an instruction and a reader of its result (module doc: measured).
pub fn latency(inst: &Inst) -> u32 {
    let info = inst.info();
    let m = inst.op.mnemonic();
    match m {
        "LDS" | "LDSM" | "ATOMS" | "SHFL" => 25,
        "LDC" => 14,
        "MUFU" => 17,
        "S2R" => 10,
        _ if info.is(props::LOAD) || info.is(props::ATOMIC) || info.is(props::TEXTURE) => 55,
        _ if m.starts_with('D') && m.len() > 1 && m != "DEPBAR" => 10,
        _ => 4,
    }
}

/// A wait longer than this (cycles) is a memory load's (LDS 25, LDG 55), not an ALU
/// op's, MUFU's, LDC's or S2R's: the stall the fill fills (module doc).
pub const FILL_WAIT: u32 = 20;

/// The global loads in flight (issued, no result read yet) under which a stall is still
/// filled: one. Behind more, ptxas issues the loads' readers first (module doc).
pub const FILL_IN_FLIGHT: usize = 1;

/// Whether an instruction must keep its place: the scheduler works on the regions
/// between such instructions (a call and the ABI moves around it, a PHI, and an operation
/// `slowpath` turns into a call of a ptxas routine: ptxas emits its fast path, a branch
/// and `CALL.REL.NOINC` there, which split its blocks — cached_quantization's SASS in
/// deepspeed computes the store address `IMAD.WIDE R10, R9, R10, c[0x0][0x168]` after
/// both calls, where the PTX has it).
pub fn opaque(inst: &Inst) -> bool {
    let i = inst.info();
    i.is(props::CALL)
        || crate::prepass::slowpath::called_by(inst).is_some()
        || i.is(props::PHI)
        || i.is(props::UNKNOWN)
        || i.is(props::SUSPEND)
        || i.is(props::RESUME)
        || inst.operands.iter().any(|o| matches!(o, Operand::Reg(Reg::P(p)) if !p.is_zero()))
}

/// Memory and other effects keep their order among themselves and against loads.
fn fence(inst: &Inst) -> bool {
    let i = inst.info();
    inst.has_side_effects() || i.is(props::STORE) || i.is(props::ATOMIC) || i.is(props::BARRIER)
}

fn control(inst: &Inst) -> bool {
    let i = inst.info();
    i.is(props::BRANCH) || i.is(props::EXIT)
}

/// Per instruction, a short list of numbers, all in one flat array (`start[j]..start[j+1]`):
/// one allocation per region instead of one per instruction (issue 25: the per-instruction
/// vectors' allocation and freeing were a fifth of the scheduler's time at 100k).
struct Flat<T> {
    start: Vec<u32>,
    items: Vec<T>,
}

impl<T: Copy> Flat<T> {
    fn with_capacity(n: usize) -> Self {
        let mut start = Vec::with_capacity(n + 1);
        start.push(0);
        Flat { start, items: Vec::with_capacity(n) }
    }
    fn push(&mut self, xs: &[T]) {
        self.items.extend_from_slice(xs);
        self.start.push(self.items.len() as u32);
    }
    fn of(&self, j: usize) -> &[T] {
        &self.items[self.start[j] as usize..self.start[j + 1] as usize]
    }
}

/// A region's vregs numbered densely (`local`: the index into `named`, which holds the
/// vreg indices ascending) and, per instruction, its distinct vregs read and written and
/// the ones it writes while keeping (part of) the older value (a component or predicated
/// def), each ascending. Local numbers replace the vreg-keyed maps and sets the scheduler
/// looked up on every step (a binary search or a hash per lookup).
struct Regs {
    named: Vec<usize>,
    uses: Flat<u32>,
    defs: Flat<u32>,
    keeps: Flat<u32>,
}

fn region_vregs(insts: &[Inst]) -> Regs {
    let n = insts.len();
    let (mut uses, mut defs, mut keeps) = (Flat::with_capacity(n), Flat::with_capacity(n), Flat::with_capacity(n));
    let mut buf: Vec<u32> = Vec::new();
    let distinct = |buf: &mut Vec<u32>, to: &mut Flat<u32>| {
        buf.sort_unstable();
        buf.dedup();
        to.push(buf);
        buf.clear();
    };
    for inst in insts {
        inst.for_each_use(|r| buf.push(r.vreg.index() as u32));
        distinct(&mut buf, &mut uses);
        inst.for_each_def(|r| buf.push(r.vreg.index() as u32));
        distinct(&mut buf, &mut defs);
        let always = inst.guard_is_always();
        inst.for_each_def(|r| {
            if r.comp.is_some() || !always {
                buf.push(r.vreg.index() as u32);
            }
        });
        distinct(&mut buf, &mut keeps);
    }
    // Ascending vreg indices map to ascending local numbers: every list stays sorted.
    // `keeps` are defs, so every vreg looked up is named. Where the region's vregs are
    // dense enough in their index range, a table over that range both finds the distinct
    // vregs (no sort of every operand: issue 25, ~50 M instructions of a scale-kernel
    // run) and replaces the binary search per operand; a region naming a few far-apart
    // vregs sorts them and keeps the search (a table would cost the range, per region).
    let total = uses.items.len() + defs.items.len();
    let (lo, hi) = uses.items.iter().chain(&defs.items).fold((u32::MAX, 0), |(l, h), &v| (l.min(v), h.max(v)));
    let named: Vec<u32>;
    if total > 0 && (hi - lo) as usize <= 4 * total + 64 {
        let mut local = vec![NONE; (hi - lo) as usize + 1];
        for &v in uses.items.iter().chain(&defs.items) {
            local[(v - lo) as usize] = 0;
        }
        let mut found = Vec::new();
        for (d, slot) in local.iter_mut().enumerate() {
            if *slot != NONE {
                *slot = found.len() as u32;
                found.push(lo + d as u32);
            }
        }
        named = found;
        for x in uses.items.iter_mut().chain(defs.items.iter_mut()).chain(keeps.items.iter_mut()) {
            *x = x.checked_sub(lo).and_then(|d| local.get(d as usize)).copied().unwrap_or(0);
        }
    } else {
        let mut all: Vec<u32> = uses.items.iter().chain(&defs.items).copied().collect();
        all.sort_unstable();
        all.dedup();
        named = all;
        for x in uses.items.iter_mut().chain(defs.items.iter_mut()).chain(keeps.items.iter_mut()) {
            *x = named.binary_search(x).unwrap_or(0) as u32;
        }
    }
    Regs { named: named.into_iter().map(|v| v as usize).collect(), uses, defs, keeps }
}

/// Which of `named` (ascending) are in `set` (ascending): one merge walk.
fn members(named: &[usize], set: &[usize]) -> Vec<bool> {
    let mut out = vec![false; named.len()];
    let (mut i, mut k) = (0, 0);
    while i < named.len() && k < set.len() {
        match named[i].cmp(&set[k]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => k += 1,
            std::cmp::Ordering::Equal => {
                out[i] = true;
                i += 1;
                k += 1;
            }
        }
    }
    out
}

/// The dependence graph of one block: successors (ascending, each once) with the cycles
/// they wait.
struct Dag {
    succ: Flat<(u32, u32)>,
    npred: Vec<u32>,
    height: Vec<u32>,
}

const NONE: u32 = u32::MAX;

fn build(insts: &[Inst], regs: &Regs, lat: &[u32]) -> Dag {
    let n = insts.len();
    let nl = regs.named.len();
    // Per local vreg: its last writer, and its readers since then (a linked list in one
    // pool: `since` is the head, `pool` holds (reader, next)).
    let mut last_def = vec![NONE; nl];
    let mut since = vec![NONE; nl];
    let mut pool: Vec<(u32, u32)> = Vec::new();
    // Every edge as (from, to, cycles), generated in increasing `to`.
    let mut edges: Vec<(u32, u32, u32)> = Vec::new();
    let (mut last_fence, mut loads_since) = (None::<usize>, Vec::new());
    let (mut last_ctl, mut since_ctl) = (None::<usize>, Vec::new());
    let mut uses: Vec<u32> = Vec::new();
    for (j, inst) in insts.iter().enumerate() {
        let ju = j as u32;
        let mut edge = |i: usize, d: u32| {
            if i != j {
                edges.push((i as u32, ju, d));
            }
        };
        // A predicated or component def keeps (part of) the older value: it reads it.
        uses.clear();
        uses.extend_from_slice(regs.uses.of(j));
        uses.extend_from_slice(regs.keeps.of(j));
        uses.sort_unstable();
        uses.dedup();
        for &u in &uses {
            let i = last_def[u as usize];
            if i != NONE {
                edge(i as usize, lat[i as usize]);
            }
        }
        for &d in regs.defs.of(j) {
            let i = last_def[d as usize];
            if i != NONE {
                edge(i as usize, 1);
            }
            let mut at = since[d as usize];
            while at != NONE {
                let (r, next) = pool[at as usize];
                edge(r as usize, 0);
                at = next;
            }
        }
        if fence(inst) {
            // Stores in order, one issue slot apart: the slot makes a chain of sixteen
            // stores sixteen cycles long in the path lengths, so the arithmetic feeding
            // the later ones is due later (as-late-as-possible, module doc) — with 0
            // every store's address was due at once and computed breadth first.
            if let Some(f) = last_fence {
                edge(f, 1);
            }
            for l in loads_since.drain(..) {
                edge(l, 0);
            }
            last_fence = Some(j);
        } else if inst.info().is(props::LOAD) {
            if let Some(f) = last_fence {
                edge(f, 0);
            }
            loads_since.push(j);
        }
        if let Some(c) = last_ctl {
            edge(c, 0);
        }
        if control(inst) {
            for i in since_ctl.drain(..) {
                edge(i, 0);
            }
            last_ctl = Some(j);
        }
        since_ctl.push(j);
        for &u in &uses {
            pool.push((ju, since[u as usize]));
            since[u as usize] = (pool.len() - 1) as u32;
        }
        for &d in regs.defs.of(j) {
            last_def[d as usize] = ju;
            since[d as usize] = NONE;
        }
    }
    // Bucket the edges by their source (stable: each source's targets stay ascending,
    // one target's edges adjacent) and keep one per target, the longest wait.
    let mut start = vec![0u32; n + 1];
    for &(i, _, _) in &edges {
        start[i as usize + 1] += 1;
    }
    for i in 0..n {
        start[i + 1] += start[i];
    }
    let mut fill = start.clone();
    let mut sorted = vec![(0u32, 0u32); edges.len()];
    for &(i, t, d) in &edges {
        sorted[fill[i as usize] as usize] = (t, d);
        fill[i as usize] += 1;
    }
    drop(edges);
    let mut succ: Flat<(u32, u32)> = Flat::with_capacity(n);
    let mut npred = vec![0u32; n];
    let mut one: Vec<(u32, u32)> = Vec::new();
    for i in 0..n {
        one.clear();
        for &(t, d) in &sorted[start[i] as usize..start[i + 1] as usize] {
            match one.last_mut() {
                Some(last) if last.0 == t => last.1 = last.1.max(d),
                _ => one.push((t, d)),
            }
        }
        for &(t, _) in &one {
            npred[t as usize] += 1;
        }
        succ.push(&one);
    }
    let mut height = vec![0u32; n];
    for j in (0..n).rev() {
        height[j] = succ.of(j).iter().map(|&(t, d)| d + height[t as usize]).max().unwrap_or(0).max(lat[j]);
    }
    Dag { succ, npred, height }
}

/// A set of vregs as a sorted slice of their indices: iteration and membership without
/// a bit per vreg of the function (a region's surroundings in a function of many blocks
/// and vregs would otherwise cost blocks × vregs; issue 25).
#[derive(Clone, Copy)]
pub struct Sorted<'a>(pub &'a [usize]);

impl Sorted<'_> {
    pub fn contains(&self, v: VRegId) -> bool {
        self.0.binary_search(&v.index()).is_ok()
    }
    pub fn iter(&self) -> impl Iterator<Item = VRegId> + '_ {
        self.0.iter().map(|&i| VRegId::new(i))
    }
}

/// What the scheduler knows of a block's surroundings.
pub struct BlockLive<'a> {
    pub live_in: Sorted<'a>,
    pub live_out: Sorted<'a>,
}

/// Words of vreg `v` in the R file and in the P file (0 for other files).
fn width(f: &Function, v: usize) -> [u32; 2] {
    let r = &f.vregs[v];
    match r.file() {
        RegFile::R => [r.width as u32, 0],
        RegFile::P => [0, r.width as u32],
        _ => [0, 0],
    }
}

fn add(a: &mut [i64; 2], w: [u32; 2], sign: i64) {
    a[0] += sign * w[0] as i64;
    a[1] += sign * w[1] as i64;
}

/// A candidate set whose members become due at a cycle: the ones due by the current
/// cycle ordered by `K`, the others by (cycle due, `K`). Each instruction enters and
/// leaves a few such sets once per change of its pressure delta, so a step costs
/// O(log n) where a rescan of every ready instruction cost O(width of the block).
struct Timed<K: Ord + Copy> {
    due: std::collections::BTreeSet<K>,
    waiting: std::collections::BTreeSet<(u32, K)>,
}

impl<K: Ord + Copy> Timed<K> {
    fn new() -> Self {
        Timed { due: Default::default(), waiting: Default::default() }
    }
    fn insert(&mut self, at: u32, k: K, cycle: u32) {
        if at <= cycle {
            self.due.insert(k);
        } else {
            self.waiting.insert((at, k));
        }
    }
    fn remove(&mut self, at: u32, k: K) {
        if !self.due.remove(&k) {
            self.waiting.remove(&(at, k));
        }
    }
    /// The least member by (max(due cycle, `cycle`), `K`).
    fn best(&mut self, cycle: u32) -> Option<(u32, K)> {
        while let Some(&(at, k)) = self.waiting.first()
            && at <= cycle
        {
            self.waiting.pop_first();
            self.due.insert(k);
        }
        match self.due.first() {
            Some(&k) => Some((cycle, k)),
            None => self.waiting.first().copied(),
        }
    }
}

/// A ready instruction's key in the pick order: the longer path to the block's end first,
/// then the lower index.
type Key = (std::cmp::Reverse<u32>, usize);

/// [`Timed`] for the ready instructions of one pressure bucket, as binary heaps whose
/// entries go stale instead of being removed: an entry holds the instruction's stamp
/// when it entered, and leaving bumps the stamp (`stamps`, indexed by instruction), so
/// entering and leaving cost a push and an increment where the ordered sets cost a
/// search and a node update each (issue 25: the sets were a third of the list
/// scheduler's time on the scale kernel). A stale entry is dropped when it surfaces;
/// the heaps are emptied whenever the bucket has no member left.
struct Lazy {
    due: std::collections::BinaryHeap<std::cmp::Reverse<(Key, u32)>>,
    waiting: std::collections::BinaryHeap<std::cmp::Reverse<(u32, Key, u32)>>,
    live: usize,
}

impl Lazy {
    fn new() -> Self {
        Lazy { due: Default::default(), waiting: Default::default(), live: 0 }
    }
    fn insert(&mut self, at: u32, k: Key, stamp: u32, cycle: u32) {
        use std::cmp::Reverse;
        self.live += 1;
        if at <= cycle {
            self.due.push(Reverse((k, stamp)));
        } else {
            self.waiting.push(Reverse((at, k, stamp)));
        }
    }
    /// One member left (the caller bumps its stamp, so its entry is stale).
    fn remove(&mut self) {
        self.live -= 1;
        if self.live == 0 {
            self.due.clear();
            self.waiting.clear();
        }
    }
    /// The least member by (max(due cycle, `cycle`), `Key`), as [`Timed::best`].
    fn best(&mut self, cycle: u32, stamps: &[u32]) -> Option<(u32, Key)> {
        use std::cmp::Reverse;
        let valid = |k: &Key, s: u32| stamps[k.1] == s;
        while let Some(&Reverse((at, k, s))) = self.waiting.peek()
            && at <= cycle
        {
            self.waiting.pop();
            if valid(&k, s) {
                self.due.push(Reverse((k, s)));
            }
        }
        while let Some(&Reverse((k, s))) = self.due.peek() {
            if valid(&k, s) {
                return Some((cycle, k));
            }
            self.due.pop();
        }
        while let Some(&Reverse((at, k, s))) = self.waiting.peek() {
            if valid(&k, s) {
                return Some((at, k));
            }
            self.waiting.pop();
        }
        None
    }
}

/// [`Lazy`] sets keyed by `B`: every key seen keeps its heaps (`index` in key order);
/// the walks over buckets see only the few kinds of delta present, skipping the empty.
struct Buckets<B: Ord + Copy> {
    index: BTreeMap<B, usize>,
    heaps: Vec<Lazy>,
}

impl<B: Ord + Copy> Buckets<B> {
    fn new() -> Self {
        Buckets { index: BTreeMap::new(), heaps: Vec::new() }
    }
    /// The heap of bucket `b`, made on first use.
    fn slot(&mut self, b: B) -> usize {
        match self.index.get(&b) {
            Some(&i) => i,
            None => {
                self.heaps.push(Lazy::new());
                self.index.insert(b, self.heaps.len() - 1);
                self.heaps.len() - 1
            }
        }
    }
    /// The non-empty buckets in key order, with their heaps' slots.
    fn nonempty(&self) -> impl Iterator<Item = (B, usize)> + '_ {
        self.index.iter().filter(|&(_, &i)| self.heaps[i].live > 0).map(|(&b, &i)| (b, i))
    }
}

/// A new order for the instructions of `insts` (indices), or `None` when the block
/// must keep its order. `limit`: the R and the P pressure the schedule should stay
/// within.
///
/// Each step picks as the module doc says among the ready instructions; the ready set is
/// kept sorted by the pick's keys (`Timed`, bucketed by pressure delta), and a ready
/// instruction's delta is recomputed only when a vreg it names changes whether it is live
/// or has one read left — so a block costs O(n log n), not O(n × ready).
pub fn schedule_block(f: &Function, insts: &[Inst], live: &BlockLive, limit: [u32; 2]) -> Option<Vec<usize>> {
    schedule_block_within(f, insts, live, limit).0
}

/// [`schedule_block`], and the R limits (inclusive) that give the same order: the
/// limit is read only by comparing it with the pressure a ready instruction would make,
/// so every limit on the same side of each comparison made picks the same instructions
/// (`prepass::target_span`: a sweep shares the schedule between such budgets).
pub fn schedule_block_within(
    f: &Function,
    insts: &[Inst],
    live: &BlockLive,
    limit: [u32; 2],
) -> (Option<Vec<usize>>, (i64, i64)) {
    use std::cmp::Reverse;
    let mut span = (i64::MIN, i64::MAX);
    if insts.len() < 3 || insts.iter().any(opaque) {
        return (None, span);
    }
    let n = insts.len();
    // Everything below is indexed by instruction or by the region's local vreg numbers
    // (`Regs`): no map or set keyed by vreg on the hot path.
    let regs = region_vregs(insts);
    let lat: Vec<u32> = insts.iter().map(latency).collect();
    let dag = build(insts, &regs, &lat);
    let (uses, defs) = (&regs.uses, &regs.defs);
    let nl = regs.named.len();
    // Per local vreg: reads left, words (R, P), whether live after the region.
    let mut remaining = vec![0u32; nl];
    for &u in &uses.items {
        remaining[u as usize] += 1;
    }
    let wid: Vec<[u32; 2]> = regs.named.iter().map(|&v| width(f, v)).collect();
    let out = members(&regs.named, live.live_out.0);
    // Live now (of the region's vregs; the others only count in `cur`).
    let mut is_live = members(&regs.named, live.live_in.0);
    crate::work::add((n + live.live_in.0.len()) as u64);
    let mut cur = [0i64; 2];
    for v in live.live_in.iter() {
        add(&mut cur, width(f, v.index()), 1);
    }
    let limit = [limit[0] as i64, limit[1] as i64];
    let last_use = |v: usize, remaining: &[u32]| remaining[v] == 1 && !out[v];
    // Net change of live R and P words if `j` issued now.
    let delta = |j: usize, is_live: &[bool], remaining: &[u32]| -> [i64; 2] {
        let mut d = [0i64; 2];
        let dj = defs.of(j);
        for &v in dj {
            if !is_live[v as usize] {
                add(&mut d, wid[v as usize], 1);
            }
        }
        for &v in uses.of(j) {
            let v = v as usize;
            if is_live[v] && last_use(v, remaining) && !dj.contains(&(v as u32)) {
                add(&mut d, wid[v], -1);
            }
        }
        d
    };
    // What a vreg contributes to the deltas of its readers and writers.
    let state = |v: usize, is_live: &[bool], remaining: &[u32]| (is_live[v], remaining[v] == 1);
    let coalesced: Vec<bool> = insts
        .iter()
        .map(|i| {
            let (mut from, mut whole) = (false, true);
            i.for_each_use(|r| from |= r.comp.is_some());
            i.for_each_def(|r| whole &= r.comp.is_none());
            i.info().is(props::MOVE) && i.guard_is_always() && from && whole
        })
        .collect();
    let cpl = dag.height.iter().copied().max().unwrap_or(0);
    let alap: Vec<u32> = dag.height.iter().map(|&h| cpl - h).collect();
    // When `j` with delta `d` is ready under the first rule: a fixed-latency instruction
    // that adds a live register not before its as-late-as-possible start (module doc).
    let ready_at = |j: usize, d: [i64; 2], earliest: &[u32]| {
        if d[0] > 0 && lat[j] <= 4 { earliest[j].max(alap[j]) } else { earliest[j] }
    };
    let mut npred = dag.npred.clone();
    let mut earliest = vec![0u32; n];
    let mut cycle = 0u32;
    // The ready instructions, three ways: coalescing moves by index; the ones that fit,
    // bucketed by (R words added, P words added, sign of the R delta) and ordered by
    // (ready cycle, longest path, index); all of them bucketed by (P delta, R delta) and
    // ordered by (earliest cycle, longest path, index).
    let mut glued: Timed<usize> = Timed::new();
    let mut fit: Buckets<(i64, i64, i64)> = Buckets::new();
    let mut over: Buckets<(i64, i64)> = Buckets::new();
    // The stall fill's candidates (module doc): one-word ALU results held back by the
    // as-late-as-possible rule, bucketed like `fit` and ordered by (earliest cycle,
    // longest path, index).
    let mut early: Buckets<(i64, i64, i64)> = Buckets::new();
    let mut early_of = vec![usize::MAX; n];
    // The global loads in flight: per vreg the issued instruction that last defined it,
    // per instruction whether it is a global load none of whose results has been read.
    let mut issued_def = vec![usize::MAX; regs.named.len()];
    let mut unread = vec![false; n];
    let mut in_flight = 0usize;
    // Issuing `j`: uses ending here leave, new defs enter (dead ones leave again).
    let issue = |j: usize, il: &mut [bool], rem: &mut [u32], c: &mut [i64; 2]| {
        let dj = defs.of(j);
        for &v in uses.of(j) {
            let v = v as usize;
            let last = last_use(v, rem);
            rem[v] = rem[v].saturating_sub(1);
            if last && !dj.contains(&(v as u32)) && il[v] {
                il[v] = false;
                add(c, wid[v], -1);
            }
        }
        for &v in dj {
            let v = v as usize;
            if rem[v] == 0 && !out[v] {
                if il[v] {
                    il[v] = false;
                    add(c, wid[v], -1);
                }
            } else if !il[v] {
                il[v] = true;
                add(c, wid[v], 1);
            }
        }
    };
    // The region's R peak in its given order: the fill does not raise the pressure above
    // what the region reaches anyway.
    let fill_cap = {
        let (mut il, mut rem, mut c, mut peak) = (is_live.clone(), remaining.clone(), cur, 0i64);
        for j in 0..n {
            peak = peak.max(c[0] + delta(j, &il, &rem)[0].max(0));
            issue(j, &mut il, &mut rem, &mut c);
        }
        peak
    };
    // Per instruction: its entries' stamp (`Lazy`), and the fit and over buckets it is in.
    let mut stamps = vec![0u32; n];
    let mut slot_of = vec![(0usize, 0usize); n];
    let mut in_cands = vec![false; n];
    let mut ncands = 0usize;
    // Per local vreg, the ready instructions that name it (pruned lazily): a list per
    // vreg in one pool (`ref_head` its first entry, `ref_pool` holds (instruction, next)),
    // where a `Vec` per vreg was an allocation and a free per vreg of the region (issue
    // 25: ~2 % of a scale-kernel run). The order a vreg's instructions are visited in
    // does not matter: each gets its delta anew from the same state.
    let mut ref_head = vec![NONE; nl];
    let mut ref_pool: Vec<(u32, u32)> = Vec::new();
    let fit_key = |d: [i64; 2]| (d[0].max(0), d[1].max(0), d[0].signum());
    macro_rules! enter {
        ($j:expr) => {{
            let j = $j;
            let d = delta(j, &is_live, &remaining);
            let (a, b) = (fit.slot(fit_key(d)), over.slot((d[1], d[0])));
            slot_of[j] = (a, b);
            fit.heaps[a].insert(ready_at(j, d, &earliest), (Reverse(dag.height[j]), j), stamps[j], cycle);
            over.heaps[b].insert(earliest[j], (Reverse(dag.height[j]), j), stamps[j], cycle);
            if d[0] == 1 && lat[j] <= 4 {
                let c = early.slot(fit_key(d));
                early_of[j] = c;
                early.heaps[c].insert(earliest[j], (Reverse(dag.height[j]), j), stamps[j], cycle);
            }
        }};
    }
    macro_rules! leave {
        ($j:expr) => {{
            let j = $j;
            let (a, b) = slot_of[j];
            fit.heaps[a].remove();
            over.heaps[b].remove();
            if early_of[j] != usize::MAX {
                early.heaps[early_of[j]].remove();
                early_of[j] = usize::MAX;
            }
            stamps[j] = stamps[j].wrapping_add(1);
        }};
    }
    for j in (0..n).filter(|&j| npred[j] == 0) {
        in_cands[j] = true;
        ncands += 1;
        for &v in uses.of(j).iter().chain(defs.of(j)) {
            ref_pool.push((j as u32, ref_head[v as usize]));
            ref_head[v as usize] = (ref_pool.len() - 1) as u32;
        }
        if coalesced[j] {
            glued.insert(earliest[j], j, cycle);
        }
        enter!(j);
    }
    let mut order = Vec::with_capacity(n);
    let mut fitting: Vec<((i64, i64, i64), usize)> = Vec::new();
    let mut touched: Vec<(usize, (bool, bool))> = Vec::new();
    while ncands > 0 {
        let glue = glued.best(cycle).filter(|&(at, _)| at <= cycle).map(|x| x.1);
        fitting.clear();
        fitting.extend(fit.nonempty().filter(|&((a0, a1, _), _)| {
            // The P limit does not follow the budget: only the R comparison narrows.
            let r = cur[0] + a0;
            if cur[1] + a1 > limit[1] {
                false
            } else if r <= limit[0] {
                span.0 = span.0.max(r);
                true
            } else {
                span.1 = span.1.min(r - 1);
                false
            }
        }));
        let pick = if let Some(j) = glue {
            Some(j)
        } else if !fitting.is_empty() {
            // Ready first, then one that frees registers before one that keeps the count
            // before one that adds, then the longest path to the end, then the original
            // order (module doc).
            let best = fitting
                .iter()
                .filter_map(|&(b, i)| fit.heaps[i].best(cycle, &stamps).map(|(at, k)| (at, b.2, k)))
                .min();
            // A stall on a memory load: a held-back ALU result fills it (module doc), if
            // the pressure after it (one word more) is within the region's peak and the
            // limit and at most one global load is in flight.
            let mut filler = None;
            let r = cur[0] + 1;
            let stalled = best.is_some_and(|(at, _, _)| at > cycle + FILL_WAIT);
            if stalled && r <= fill_cap && in_flight <= FILL_IN_FLIGHT {
                if r <= limit[0] {
                    span.0 = span.0.max(r);
                    let slots: Vec<usize> =
                        early.nonempty().filter(|&(k, _)| cur[1] + k.1 <= limit[1]).map(|(_, i)| i).collect();
                    filler = slots
                        .into_iter()
                        .filter_map(|i| early.heaps[i].best(cycle, &stamps))
                        .filter(|&(at, _)| at <= cycle)
                        .map(|(_, k)| k)
                        .min();
                } else {
                    span.1 = span.1.min(r - 1);
                }
            }
            filler.map(|(_, j)| j).or(best.map(|(_, _, (_, j))| j))
        } else {
            // Over a limit: whatever adds least (P first: it has 7 registers).
            let first = over.nonempty().next().map(|(_, i)| i);
            first.and_then(|i| over.heaps[i].best(cycle, &stamps)).map(|(_, (_, j))| j)
        };
        let Some(pick) = pick else { break };
        let (up, dp) = (uses.of(pick), defs.of(pick));
        crate::work::add(1 + (fit.nonempty().count() + dag.succ.of(pick).len() + up.len() + dp.len()) as u64);
        leave!(pick);
        if coalesced[pick] {
            glued.remove(earliest[pick], pick);
        }
        in_cands[pick] = false;
        ncands -= 1;
        cycle = cycle.max(earliest[pick]) + 1;
        order.push(pick);
        for &v in up {
            let w = issued_def[v as usize];
            if w != usize::MAX && unread[w] {
                unread[w] = false;
                in_flight -= 1;
            }
        }
        if lat[pick] >= 55 {
            unread[pick] = true;
            in_flight += 1;
        }
        for &v in dp {
            issued_def[v as usize] = pick;
        }
        touched.clear();
        touched.extend(up.iter().chain(dp).map(|&v| (v as usize, state(v as usize, &is_live, &remaining))));
        issue(pick, &mut is_live, &mut remaining, &mut cur);
        // Ready instructions naming a vreg whose state changed get their delta anew.
        for &(v, was) in &touched {
            if state(v, &is_live, &remaining) == was {
                continue;
            }
            let (mut at, mut prev, mut seen) = (ref_head[v], NONE, 0u64);
            while at != NONE {
                let (j, next) = ref_pool[at as usize];
                seen += 1;
                if in_cands[j as usize] {
                    leave!(j as usize);
                    enter!(j as usize);
                    prev = at;
                } else if prev == NONE {
                    ref_head[v] = next;
                } else {
                    ref_pool[prev as usize].1 = next;
                }
                at = next;
            }
            crate::work::add(seen);
        }
        for &(t, d) in dag.succ.of(pick) {
            let t = t as usize;
            earliest[t] = earliest[t].max(cycle - 1 + d);
            npred[t] -= 1;
            if npred[t] == 0 {
                in_cands[t] = true;
                ncands += 1;
                for &v in uses.of(t).iter().chain(defs.of(t)) {
                    ref_pool.push((t as u32, ref_head[v as usize]));
                    ref_head[v as usize] = (ref_pool.len() - 1) as u32;
                }
                if coalesced[t] {
                    glued.insert(earliest[t], t, cycle);
                }
                enter!(t);
            }
        }
    }
    ((order.len() == n).then_some(order), span)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The map-keyed form `build` replaced.
    /// The dependence graph of one block: successors with the cycles they wait.
    struct RefDag {
        succ: Vec<Vec<(usize, u32)>>,
        npred: Vec<u32>,
        height: Vec<u32>,
    }

    fn build_reference(insts: &[Inst]) -> RefDag {
        let n = insts.len();
        let lat: Vec<u32> = insts.iter().map(latency).collect();
        let mut succ: Vec<Vec<(usize, u32)>> = vec![Vec::new(); n];
        let mut last_def: BTreeMap<usize, usize> = BTreeMap::new();
        let mut uses_since: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        let (mut last_fence, mut loads_since) = (None::<usize>, Vec::new());
        let (mut last_ctl, mut since_ctl) = (None::<usize>, Vec::new());
        for (j, inst) in insts.iter().enumerate() {
            let mut edges: Vec<(usize, u32)> = Vec::new();
            let mut uses = Vec::new();
            inst.for_each_use(|r| uses.push(r.vreg.index()));
            let mut defs = Vec::new();
            inst.for_each_def(|r| defs.push((r.vreg.index(), r.comp.is_some())));
            // A predicated or component def keeps (part of) the older value: it reads it.
            for &(d, comp) in &defs {
                if comp || !inst.guard_is_always() {
                    uses.push(d);
                }
            }
            uses.sort_unstable();
            uses.dedup();
            for u in &uses {
                if let Some(&i) = last_def.get(u) {
                    edges.push((i, lat[i]));
                }
            }
            for &(d, _) in &defs {
                if let Some(&i) = last_def.get(&d) {
                    edges.push((i, 1));
                }
                if let Some(us) = uses_since.get(&d) {
                    edges.extend(us.iter().map(|&i| (i, 0)));
                }
            }
            for &u in &uses {
                uses_since.entry(u).or_default().push(j);
            }
            for &(d, _) in &defs {
                last_def.insert(d, j);
                uses_since.insert(d, Vec::new());
            }
            if fence(inst) {
                // Stores in order, one issue slot apart: the slot makes a chain of sixteen
                // stores sixteen cycles long in the path lengths, so the arithmetic feeding
                // the later ones is due later (as-late-as-possible, module doc) — with 0
                // every store's address was due at once and computed breadth first.
                edges.extend(last_fence.map(|f| (f, 1)));
                edges.extend(loads_since.drain(..).map(|l| (l, 0)));
                last_fence = Some(j);
            } else if inst.info().is(props::LOAD) {
                edges.extend(last_fence.map(|f| (f, 0)));
                loads_since.push(j);
            }
            edges.extend(last_ctl.map(|c| (c, 0)));
            if control(inst) {
                edges.extend(since_ctl.drain(..).map(|i| (i, 0)));
                last_ctl = Some(j);
            }
            since_ctl.push(j);
            for (i, d) in edges {
                if i != j {
                    succ[i].push((j, d));
                }
            }
        }
        let mut npred = vec![0u32; n];
        for s in &mut succ {
            s.sort_unstable();
            s.dedup_by(|a, b| {
                a.0 == b.0 && {
                    b.1 = b.1.max(a.1);
                    true
                }
            });
            for &(t, _) in s.iter() {
                npred[t] += 1;
            }
        }
        let mut height = vec![0u32; n];
        for j in (0..n).rev() {
            height[j] = succ[j].iter().map(|&(t, d)| d + height[t]).max().unwrap_or(0).max(lat[j]);
        }
        RefDag { succ, npred, height }
    }

    /// Each instruction's distinct vregs read, and written, ascending (by vreg index).
    fn distinct_vregs(insts: &[Inst]) -> (Vec<Vec<usize>>, Vec<Vec<usize>>) {
        let distinct = |fill: &dyn Fn(&mut Vec<usize>)| {
            let mut v = Vec::new();
            fill(&mut v);
            v.sort_unstable();
            v.dedup();
            v
        };
        let uses = insts.iter().map(|i| distinct(&|v| i.for_each_use(|r| v.push(r.vreg.index())))).collect();
        let defs = insts.iter().map(|i| distinct(&|v| i.for_each_def(|r| v.push(r.vreg.index())))).collect();
        (uses, defs)
    }

    use crate::analysis::LiveSet;

    /// The rescan-every-step form `schedule_block` replaced.
    #[allow(clippy::type_complexity)]
    /// A new order for the instructions of `insts` (indices), or `None` when the block
    /// must keep its order. `limit`: the R and the P pressure the schedule should stay
    /// within.
    pub(super) fn reference(f: &Function, insts: &[Inst], live: &BlockLive, limit: [u32; 2]) -> Option<Vec<usize>> {
        if insts.len() < 3 || insts.iter().any(opaque) {
            return None;
        }
        let dag = build_reference(insts);
        let n = insts.len();
        let (uses, defs) = distinct_vregs(insts);
        let mut remaining: BTreeMap<usize, u32> = BTreeMap::new();
        for u in uses.iter().flatten() {
            *remaining.entry(*u).or_default() += 1;
        }
        let mut is_live = LiveSet::new(f.vregs.len());
        let mut cur = [0i64; 2];
        for v in live.live_in.iter() {
            is_live.insert(v);
            add(&mut cur, width(f, v.index()), 1);
        }
        let limit = [limit[0] as i64, limit[1] as i64];
        let last_use = |v: usize, remaining: &BTreeMap<usize, u32>| {
            remaining.get(&v) == Some(&1) && !live.live_out.contains(VRegId::new(v))
        };
        // Net change of live R and P words if `j` issued now.
        let delta = |j: usize, is_live: &LiveSet, remaining: &BTreeMap<usize, u32>| -> [i64; 2] {
            let mut d = [0i64; 2];
            for &v in &defs[j] {
                if !is_live.contains(VRegId::new(v)) {
                    add(&mut d, width(f, v), 1);
                }
            }
            for &v in &uses[j] {
                if is_live.contains(VRegId::new(v)) && last_use(v, remaining) && !defs[j].contains(&v) {
                    add(&mut d, width(f, v), -1);
                }
            }
            d
        };
        let fits = |d: [i64; 2], cur: [i64; 2]| (0..2).all(|k| cur[k] + d[k].max(0) <= limit[k]);
        let coalesced: Vec<bool> = insts
            .iter()
            .map(|i| {
                let (mut from, mut whole) = (false, true);
                i.for_each_use(|r| from |= r.comp.is_some());
                i.for_each_def(|r| whole &= r.comp.is_none());
                i.info().is(props::MOVE) && i.guard_is_always() && from && whole
            })
            .collect();
        let lat: Vec<u32> = insts.iter().map(latency).collect();
        let cpl = dag.height.iter().copied().max().unwrap_or(0);
        let alap: Vec<u32> = dag.height.iter().map(|&h| cpl - h).collect();
        // Pressure: uses ending here leave, new defs enter (dead ones leave again).
        let issue = |j: usize, is_live: &mut LiveSet, remaining: &mut BTreeMap<usize, u32>, cur: &mut [i64; 2]| {
            for &v in &uses[j] {
                let last = last_use(v, remaining);
                if let Some(r) = remaining.get_mut(&v) {
                    *r -= 1;
                }
                if last && !defs[j].contains(&v) && is_live.remove(VRegId::new(v)) {
                    add(cur, width(f, v), -1);
                }
            }
            for &v in &defs[j] {
                let dead = remaining.get(&v).is_none_or(|&r| r == 0) && !live.live_out.contains(VRegId::new(v));
                if dead {
                    if is_live.remove(VRegId::new(v)) {
                        add(cur, width(f, v), -1);
                    }
                } else if is_live.insert(VRegId::new(v)) {
                    add(cur, width(f, v), 1);
                }
            }
        };
        // The stall fill's inputs (module doc), the plain way: the region's given-order R
        // peak, and the global loads issued none of whose results has been read.
        let fill_cap = {
            let (mut il, mut rem, mut c, mut peak) = (is_live.clone(), remaining.clone(), cur, 0i64);
            for j in 0..n {
                peak = peak.max(c[0] + delta(j, &il, &rem)[0].max(0));
                issue(j, &mut il, &mut rem, &mut c);
            }
            peak
        };
        let mut unread: Vec<usize> = Vec::new();
        let mut npred = dag.npred.clone();
        let mut earliest = vec![0u32; n];
        let mut cands: Vec<usize> = (0..n).filter(|&j| npred[j] == 0).collect();
        let mut order = Vec::with_capacity(n);
        let mut cycle = 0u32;
        while !cands.is_empty() {
            let scored: Vec<(usize, [i64; 2])> = cands.iter().map(|&j| (j, delta(j, &is_live, &remaining))).collect();
            let glued = cands.iter().copied().filter(|&j| coalesced[j] && earliest[j] <= cycle).min();
            let ready = |j: usize, d: [i64; 2]| {
                if d[0] > 0 && lat[j] <= 4 { earliest[j].max(alap[j]) } else { earliest[j] }
            };
            let pick = if let Some(j) = glued {
                Some(j)
            } else if scored.iter().any(|&(_, d)| fits(d, cur)) {
                // Ready first — a fixed-latency instruction that adds a live register is not
                // ready before its as-late-as-possible start (module doc) — then one that
                // frees registers before one that keeps the count before one that adds, then
                // the longest path to the end, then the original order.
                let best = scored
                    .iter()
                    .filter(|&&(_, d)| fits(d, cur))
                    .min_by_key(|&&(j, d)| (ready(j, d).max(cycle), d[0].signum(), std::cmp::Reverse(dag.height[j]), j))
                    .copied();
                // A stall on a memory load: a held-back one-word ALU result fills it.
                let stalled = best.is_some_and(|(j, d)| ready(j, d) > cycle + FILL_WAIT);
                let filler = scored
                    .iter()
                    .filter(|&&(j, d)| {
                        stalled
                            && cur[0] < fill_cap.min(limit[0])
                            && unread.len() <= FILL_IN_FLIGHT
                            && d[0] == 1
                            && lat[j] <= 4
                            && cur[1] + d[1].max(0) <= limit[1]
                            && earliest[j] <= cycle
                    })
                    .min_by_key(|&&(j, _)| (std::cmp::Reverse(dag.height[j]), j))
                    .map(|x| x.0);
                filler.or(best.map(|x| x.0))
            } else {
                // Over a limit: whatever adds least (P first: it has 7 registers).
                scored
                    .iter()
                    .min_by_key(|&&(j, d)| (d[1], d[0], earliest[j].max(cycle), std::cmp::Reverse(dag.height[j]), j))
                    .map(|x| x.0)
            }
            .expect("a candidate");
            cands.retain(|&c| c != pick);
            cycle = cycle.max(earliest[pick]) + 1;
            order.push(pick);
            // A load leaves the flight when one of its results is read (by the last def
            // issued before this instruction).
            let producer = |v: usize| order[..order.len() - 1].iter().rev().copied().find(|&w| defs[w].contains(&v));
            let read: Vec<usize> = uses[pick].iter().filter_map(|&v| producer(v)).collect();
            unread.retain(|w| !read.contains(w));
            if lat[pick] >= 55 {
                unread.push(pick);
            }
            issue(pick, &mut is_live, &mut remaining, &mut cur);
            for &(t, d) in &dag.succ[pick] {
                earliest[t] = earliest[t].max(cycle - 1 + d);
                npred[t] -= 1;
                if npred[t] == 0 {
                    cands.push(t);
                }
            }
        }
        (order.len() == n).then_some(order)
    }

    /// Random straight-line functions: 32- and 64-bit values, components, predicates,
    /// guarded defs, loads, stores, barriers and long-latency ops.
    fn random_functions(seed: u64, count: usize) -> Vec<Function> {
        let mut rnd = crate::util::lcg(seed);
        (0..count)
            .map(|_| {
                let len = 3 + rnd(60);
                let mut body = String::from(".reg .R %r<10>\n.reg .R.x2 %rd<4>\n.reg .P %p<3>\nBB0:\n");
                for _ in 0..len {
                    let (a, b, c) = (rnd(10), rnd(10), rnd(10));
                    let (d, e, p) = (rnd(4), rnd(4), rnd(3));
                    body.push_str(&match rnd(16) {
                        0 | 1 => format!("%r{a} = LDG.E [%rd{d} + 0x{:x}]\n", 4 * b),
                        14 => format!("STG.E [%rd{d} + 0x{:x}], %r{a}\n", 4 * b),
                        15 => format!("%r{a} = LD.E [%rd{d}]\n"),
                        2 => format!("%r{a} = IADD3 %r{b}, %r{c}, RZ\n"),
                        3 => format!("%r{a} = LDS [%r{b}]\n"),
                        4 => format!("STS [%r{a}], %r{b}\n"),
                        5 => format!("%r{a} = SHL %r{b}, 2\n"),
                        6 => format!("%rd{d} = IMAD.WIDE %r{b}, 4, %rd{e}\n"),
                        7 => format!("%r{a} = MOV %rd{d}.lo\n"),
                        8 => format!("%p{p} = ISETP.GE.AND %r{a}, %r{b}, PT\n"),
                        9 => format!("@%p{p} %r{a} = IADD3 %r{b}, 1, RZ\n"),
                        10 => format!("%rd{d}.hi = MOV %r{b}\n"),
                        11 => format!("%r{a} = MUFU.RCP %r{b}\n"),
                        12 if rnd(4) == 0 => "BAR.SYNC 0\n".to_string(),
                        _ => format!("%r{a} = FADD %r{b}, %r{c}\n"),
                    });
                }
                // Some values live out of the region.
                body.push_str(&format!("STG.E [%rd0], %r{}\nEXIT", rnd(10)));
                let m = crate::ir::parse_str(&format!(".target sm_80\n.entry k {{\n{body}\n}}\n")).expect("parses");
                m.functions[0].clone()
            })
            .collect()
    }

    #[test]
    fn schedule_block_picks_exactly_as_the_rescan() {
        let mut reordered = 0;
        for (k, f) in random_functions(5, 400).into_iter().enumerate() {
            let c = crate::analysis::cfg::build(&f, 1.0);
            let live = crate::analysis::liveness::compute(&f, &c, &[]);
            let insts = &f.blocks[0].insts;
            // The region without its final STG and EXIT: a live-out set that is not empty.
            let end = insts.len() - 2;
            let mut after = live.live_out(0);
            for i in insts[end..].iter().rev() {
                live.step_back(i, &mut after, |_, _| {});
            }
            let mut before = after.clone();
            for i in insts[..end].iter().rev() {
                live.step_back(i, &mut before, |_, _| {});
            }
            let (before, after): (Vec<usize>, Vec<usize>) =
                (before.iter().map(|v| v.index()).collect(), after.iter().map(|v| v.index()).collect());
            let bl = BlockLive { live_in: Sorted(&before), live_out: Sorted(&after) };
            for limit in [[4, 2], [8, 7], [12, 1], [40, 7], [0, 0]] {
                let (a, b) = (schedule_block(&f, &insts[..end], &bl, limit), reference(&f, &insts[..end], &bl, limit));
                assert_eq!(a, b, "function {k}, limit {limit:?}");
                reordered += usize::from(a.is_some_and(|o| o.iter().enumerate().any(|(i, &j)| i != j)));
            }
        }
        // The regions do get reordered.
        assert!(reordered > 500, "{reordered} reorders");
    }

    #[test]
    fn build_gives_the_map_keyed_graph() {
        let mut edges = 0;
        for (k, f) in random_functions(11, 300).into_iter().enumerate() {
            let insts = &f.blocks[0].insts;
            let lat: Vec<u32> = insts.iter().map(latency).collect();
            let (a, b) = (build(insts, &region_vregs(insts), &lat), build_reference(insts));
            let succ: Vec<Vec<(usize, u32)>> =
                (0..insts.len()).map(|j| a.succ.of(j).iter().map(|&(t, d)| (t as usize, d)).collect()).collect();
            assert_eq!((succ, &a.npred, &a.height), (b.succ.clone(), &b.npred, &b.height), "function {k}");
            edges += a.succ.items.len();
        }
        assert!(edges > 3000, "{edges} edges");
    }
}
