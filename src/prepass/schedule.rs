//! `schedule`: loads issued early, up to ptxas's register target (the other direction of
//! `sink`).
//!
//! Measured (ARCHITECTURE.md, "Fidelity", step 6): when the budget leaves room, ptxas
//! 13.0.88 takes more registers than the PTX order needs — the same PTX reports more
//! under `--maxrregcount 64` than at the default (conv5x5 32 → 48/55, nbody 32 → 40,
//! sgemm_4x4 46 → 55), and almost every corpus kernel under the default's occupancy target
//! of 32 reports close to it (adj_diff 30, block_scan_i32 32, classify 32, nbody 32 against
//! radbg's 20–26): its list scheduler issues long-latency loads early to cover their
//! latency, and the values they load stay live until used. The model: top-down, a plain
//! load (one whole def, always executes, no side effects) moves up in its block to just
//! after the last instruction it depends on — one defining a source or its destination,
//! reading its destination, or a store, barrier, call, atomic or side effect (memory
//! order) — and the pass makes the most such moves (binary search over their count, in
//! layout order) that keep peak R pressure + 3 within the target `sink` uses. It runs
//! after `sink`, so a function `sink` had to bring down is left at its target.
//!
//! Step 12: over the target the same list scheduler runs for pressure instead, kept when
//! it lowers the peak. Step 18: where it does not, at the default, the occupancy target is
//! given up for the next occupancy step (`latency_target`) and the latency schedule fills
//! that.
//!
//! Owns the early-issue rule; must not know the allocator or the engine.

use crate::analysis::liveness::{BlockSet, Liveness};
use crate::ir::opcode::props;
use crate::ir::regfile::REPORT_EXTRA;
use crate::ir::{Function, Inst};
use crate::prepass::list;
use crate::prepass::order::{BlockMoves, MovePlan, OrderList, Planned, Slots};
use crate::prepass::sink::{Peaks, movable, target};
use crate::prepass::{Pass, PassCtx, target_span};

pub const PASS: Pass = Pass {
    name: "schedule",
    about: "loads issued early (ptxas's latency scheduling) while pressure stays within its register target",
    run,
    ori: false,
};

/// Whether `inst` keeps every later load after it (memory order, control flow).
fn fence(inst: &Inst) -> bool {
    let i = inst.info();
    i.is(props::STORE)
        || i.is(props::BARRIER)
        || i.is(props::CALL)
        || i.is(props::ATOMIC)
        || i.is(props::BRANCH)
        || inst.has_side_effects()
}

/// Moves, top-down, at most `limit` loads of `insts` up to their earliest legal place —
/// just after the last instruction before them (in the order so far) that they depend
/// on: a fence, a writer of a source or of the destination, a reader of the
/// destination; the top of the block when there is none. Returns how many moved. The
/// order is an [`OrderList`] with, per vreg, the last reader and writer so far, so each
/// load costs O(log n), not a rescan of the block.
#[cfg(test)]
fn hoist_block(insts: &mut Vec<Inst>, limit: usize) -> usize {
    crate::prepass::order::apply_block(insts, limit, hoist_moves)
}

/// [`hoist_block`]'s order and moves, the block left as it is.
fn hoist_moves(insts: &[Inst], slots: &mut Slots, limit: usize) -> BlockMoves {
    let n = insts.len();
    let mut list = OrderList::new(n);
    let [last_use, last_def] = slots;
    let mut last_fence: Option<usize> = None;
    let mut moved = 0;
    let mut at = Vec::new();
    crate::work::add(n as u64);
    for (i, inst) in insts.iter().enumerate() {
        let mut placed = false;
        if moved < limit && inst.info().is(props::LOAD) && movable(inst) {
            let mut dep: Option<usize> = last_fence;
            let mut consider = |p: Option<usize>| {
                if let Some(p) = p
                    && dep.is_none_or(|q| list.before(q, p))
                {
                    dep = Some(p);
                }
            };
            inst.for_each_use(|r| consider(last_def.get(r.vreg)));
            inst.for_each_def(|r| {
                consider(last_def.get(r.vreg));
                consider(last_use.get(r.vreg));
            });
            match dep {
                None if i > 0 => {
                    list.push_front(i);
                    moved += 1;
                    at.push(i);
                    placed = true;
                }
                Some(x) if Some(x) != list.tail() => {
                    list.insert_after(i, x);
                    moved += 1;
                    at.push(i);
                    placed = true;
                }
                _ => {}
            }
        }
        if !placed {
            list.push_back(i);
        }
        let later = |p: Option<usize>| p.is_none_or(|p| list.before(p, i));
        inst.for_each_use(|r| {
            if later(last_use.get(r.vreg)) {
                last_use.insert(r.vreg, i);
            }
        });
        inst.for_each_def(|r| {
            if later(last_def.get(r.vreg)) {
                last_def.insert(r.vreg, i);
            }
        });
        if fence(inst) && later(last_fence) {
            last_fence = Some(i);
        }
    }
    BlockMoves { order: list.order(), moved: at }
}

/// Every block's early issue without a limit, from which `Planned` gives the function
/// with the first `k` loads (blocks in layout order) issued early.
fn hoist_plan(f: &Function) -> MovePlan {
    MovePlan::new(f, |insts, slots| hoist_moves(insts, slots, usize::MAX), true)
}

/// Predicate registers a schedule may keep live at once: the seven of the P file (P0–P6,
/// PT is constant), or the order's own peak when that is higher.
fn p_room(order_peak: u32) -> u32 {
    order_peak.max(7)
}

/// `f` list-scheduled block by block (`prepass::list`) within R pressure `limit`: each
/// block's new order (`None`: unchanged), to apply to a copy of `f` ([`Scheduled`]). A
/// block is scheduled region by region between the instructions that keep their place
/// (`list::opaque`: calls and their ABI moves). `off`: the limit is the target plus `off`
/// (its comparisons narrow `target_span`); `None` when it does not follow the target.
fn list_schedule(f: &Function, peaks: &Peaks, limit: u32, off: Option<i64>) -> Vec<Option<Vec<usize>>> {
    let (orders, span) = list_orders(f, peaks.live(), peaks.input()[1], limit);
    if let Some(off) = off {
        target_span::limit_between(span.0, span.1, off);
    }
    orders
}

/// [`list_schedule`]'s orders and the span of R limits that give them, nothing recorded
/// (`target_span` is per thread: the caller records the span when it uses the orders).
/// `p_input`: the input's P peak.
fn list_orders(f: &Function, live: &Liveness, p_input: u32, limit: u32) -> (Vec<Option<Vec<usize>>>, (i64, i64)) {
    // Predicates: never more at once than the P file holds (P0–P6), nor than the PTX
    // order needs when it needs more.
    let limit = [limit, p_room(p_input)];
    let mut orders = Vec::with_capacity(f.blocks.len());
    let exits: Vec<usize> = live.exit_live().iter().map(|v| v.index()).collect();
    let mut span = (i64::MIN, i64::MAX);
    // The backward transfer (`Liveness::step_back`) on a sparse set.
    let step_back = |inst: &Inst, cur: &mut Marks| {
        inst.for_each_def(|r| {
            if live.def_kills(inst, r) && live.is_tracked(r.vreg) {
                cur.remove(r.vreg.index());
            }
        });
        inst.for_each_use(|r| {
            if live.is_tracked(r.vreg) {
                cur.insert(r.vreg.index());
            }
        });
        if inst.info().is(props::EXIT) {
            for &v in &exits {
                cur.insert(v);
            }
        }
    };
    let mut cur = Marks::new(f.vregs.len());
    for (b, blk) in f.blocks.iter().enumerate() {
        // Regions back to front: the live set after a region is the one before the
        // opaque instruction that follows it, so a backward walk keeps two sets at a time
        // (one per instruction was a block × vregs matrix: 1.2 GB on one 100k block).
        let n = blk.insts.len();
        let mut ends: Vec<usize> = (0..n).filter(|&i| list::opaque(&blk.insts[i])).collect();
        ends.push(n);
        let mut pieces: Vec<Vec<usize>> = Vec::with_capacity(ends.len());
        // Sparse: a set over every vreg per block would cost blocks × vregs (`Marks`
        // is emptied by what it holds).
        cur.clear();
        live.for_each_in(b, BlockSet::LiveOut, |v| {
            cur.insert(v.index());
        });
        for (k, &end) in ends.iter().enumerate().rev() {
            let start = if k == 0 { 0 } else { ends[k - 1] + 1 };
            // Only a region of three or more is scheduled (`schedule_block`); the others
            // need no copy of the set after them.
            let after = (end - start >= 3).then(|| cur.sorted());
            crate::work::add((end - start + cur.len()) as u64);
            for inst in blk.insts[start..end].iter().rev() {
                step_back(inst, &mut cur);
            }
            let scheduled = after.and_then(|live_out| {
                let live_in: Vec<usize> = cur.sorted();
                let bl = list::BlockLive { live_in: list::Sorted(&live_in), live_out: list::Sorted(&live_out) };
                let (order, within) = list::schedule_block_within(f, &blk.insts[start..end], &bl, limit);
                span = (span.0.max(within.0), span.1.min(within.1));
                order
            });
            let mut piece = match scheduled {
                Some(o) => o.into_iter().map(|j| start + j).collect(),
                None => (start..end).collect::<Vec<_>>(),
            };
            if end < n {
                piece.push(end);
            }
            pieces.push(piece);
            if start > 0 {
                step_back(&blk.insts[start - 1], &mut cur);
            }
        }
        let order: Vec<usize> = pieces.into_iter().rev().flatten().collect();
        orders.push(order.iter().enumerate().any(|(i, &j)| i != j).then_some(order));
    }
    (orders, span)
}

/// A set of vreg indices for `list_orders`'s backward walk: a mark per vreg of the
/// function and the list of the marked ones (plus ones unmarked since, dropped when it is
/// read in order), so that a step costs O(1) where a `BTreeSet` cost a search and a node
/// update per operand (issue 25: ~1.5 % of a scale-kernel run at 64). Emptying it costs
/// what it listed, not the function's vreg count.
struct Marks {
    on: Vec<bool>,
    listed: Vec<bool>,
    list: Vec<usize>,
    len: usize,
}

impl Marks {
    fn new(n: usize) -> Marks {
        Marks { on: vec![false; n], listed: vec![false; n], list: Vec::new(), len: 0 }
    }

    fn insert(&mut self, v: usize) {
        if v >= self.on.len() {
            self.on.resize(v + 1, false);
            self.listed.resize(v + 1, false);
        }
        if !self.on[v] {
            self.on[v] = true;
            self.len += 1;
            if !self.listed[v] {
                self.listed[v] = true;
                self.list.push(v);
            }
        }
    }

    fn remove(&mut self, v: usize) {
        if let Some(on) = self.on.get_mut(v).filter(|on| **on) {
            *on = false;
            self.len -= 1;
        }
    }

    fn len(&self) -> usize {
        self.len
    }

    /// The members, ascending.
    fn sorted(&mut self) -> Vec<usize> {
        let (on, listed) = (&self.on, &mut self.listed);
        self.list.retain(|&v| {
            if !on[v] {
                listed[v] = false;
            }
            on[v]
        });
        self.list.sort_unstable();
        self.list.clone()
    }

    fn clear(&mut self) {
        for v in self.list.drain(..) {
            self.on[v] = false;
            self.listed[v] = false;
        }
        self.len = 0;
    }
}

/// `f` with each block whose order is given put in that order (`list_schedule`'s
/// orders): the function is made only for the order kept — the tries are measured on
/// the input (`Peaks::of_orders`), where each try copied the function (issue 25).
fn reordered(f: &Function, orders: Vec<Option<Vec<usize>>>) -> Function {
    let mut g = f.clone();
    for (blk, o) in g.blocks.iter_mut().zip(orders) {
        if let Some(o) = o {
            crate::prepass::permute(&mut blk.insts, o);
        }
    }
    g
}

/// Instructions from which `run` computes on a second thread what it needs when the
/// first schedule it tries is not kept (below it a thread costs more than it saves).
const AHEAD_INSTS: usize = 20_000;

/// Per block, its new order (`None`: unchanged).
type Orders = Vec<Option<Vec<usize>>>;

/// What `run` computes ahead on its second thread, each part with the `radbg::work` it
/// took, counted when the part is used (so the count is the one-thread run's): the
/// latency schedule's R limit, orders and span, when a pressure schedule is tried first;
/// the early-issue plan and a copy of the function to apply it to.
#[derive(Default)]
struct Ahead {
    latency: Option<(u32, Orders, (i64, i64), u64)>,
    hoist: Option<(MovePlan, Planned, u64)>,
}

/// The second thread of a `run`, joined when its result is first asked for.
struct Side<'s> {
    handle: Option<std::thread::ScopedJoinHandle<'s, Ahead>>,
    /// Whether it computes the latency schedule (else only the early-issue plan).
    latency: bool,
    got: Ahead,
}

impl Side<'_> {
    fn none() -> Self {
        Side { handle: None, latency: false, got: Ahead::default() }
    }

    fn get(&mut self) -> &mut Ahead {
        if let Some(h) = self.handle.take() {
            match h.join() {
                Ok(a) => self.got = a,
                Err(p) => std::panic::resume_unwind(p),
            }
        }
        &mut self.got
    }

    /// The latency schedule at R limit `limit` computed ahead, its work counted; `None`
    /// when it was not (or at another limit), without waiting for the early-issue plan.
    fn latency(&mut self, limit: u32) -> Option<(Orders, (i64, i64))> {
        if !self.latency {
            return None;
        }
        match self.get().latency.take() {
            Some((l, orders, span, work)) if l == limit => {
                crate::work::add(work);
                Some((orders, span))
            }
            _ => None,
        }
    }

    /// The early-issue plan and a copy of the function, computed ahead, their work counted.
    fn hoist(&mut self) -> Option<(MovePlan, Planned)> {
        let (plan, planned, work) = self.get().hoist.take()?;
        crate::work::add(work);
        Some((plan, planned))
    }
}

/// The R limit of the latency schedule when `decide` would try it after any pressure
/// schedule (which then was not kept), and so also whether it would reach the early
/// issue: decided as `decide` decides, on the same figures, without recording anything
/// in `target_span`.
fn latency_limit(ctx: &PassCtx, t: u32, need_f: u32) -> Option<u32> {
    let budgeted = ctx.maxrregcount.is_some();
    let follows = budgeted || need_f <= t;
    let lt = latency_target(ctx, need_f);
    let fits = if follows { need_f < t } else { need_f < lt };
    fits.then(|| lt.wrapping_sub(REPORT_EXTRA + 1 + u32::from(budgeted)))
}

fn run(f: &Function, ctx: &PassCtx) -> (Option<Function>, String) {
    // One solve of the input; every order tried below is a reordering of it, measured
    // on the input (`Peaks`); the function is made only for the order kept.
    let input = Peaks::new(f);
    let t = target(ctx);
    let need_f = input.input()[0] + REPORT_EXTRA + 1;
    let insts: usize = f.blocks.iter().map(|b| b.insts.len()).sum();
    let Some(lat) = latency_limit(ctx, t, need_f).filter(|_| insts >= AHEAD_INSTS) else {
        return decide(f, ctx, &input, &mut Side::none());
    };
    // A large function that may reach the latency schedule and the early issue: the
    // second core computes them while this one tries the first schedule (the pressure
    // one over the target, else the latency one); nothing it computes is recorded
    // before `decide` uses it, so the result and the records are the one-thread run's.
    let over = i64::from(t) < i64::from(need_f);
    let (live, p_f) = (input.live(), input.input()[1]);
    std::thread::scope(|s| {
        let handle = s.spawn(move || {
            let latency = over.then(|| {
                let (orders, span) = list_orders(f, live, p_f, lat);
                (lat, orders, span, crate::work::take())
            });
            let plan = hoist_plan(f);
            let planned = Planned::new(f);
            Ahead { latency, hoist: Some((plan, planned, crate::work::take())) }
        });
        decide(f, ctx, &input, &mut Side { handle: Some(handle), latency: over, got: Ahead::default() })
    })
}

/// `run` on the input's solve, taking what `side` computed ahead where it did.
fn decide(f: &Function, ctx: &PassCtx, input: &Peaks, side: &mut Side) -> (Option<Function>, String) {
    let t = target(ctx);
    let ti = i64::from(t);
    let [before, p_f] = input.input();
    let need_f = before + REPORT_EXTRA + 1;
    // Over the target the same list scheduler runs for pressure — its rule issues the
    // instruction that adds least when nothing fits — and is kept when it lowers the peak
    // (fft16: ptxas 64 registers at the default and at 64 without spills; radbg in PTX
    // order 72, and 8 bytes of spills at 64). Where it does not lower the peak (the sgemm
    // kernels at the default) the order stays, as ptxas gives an unreachable target up.
    // Every comparison with the target goes through `target_span` (a sweep shares this
    // pass's result between the budgets that take the same branches).
    if target_span::lt(ti, 0, need_f.into()) {
        let off = if target_span::le((REPORT_EXTRA + 1).into(), ti, 0) {
            -i64::from(REPORT_EXTRA + 1)
        } else {
            // The limit saturates at 0 here: it follows the target no further.
            target_span::exactly(ti);
            -ti
        };
        let orders = list_schedule(f, input, t.saturating_sub(REPORT_EXTRA + 1), Some(off));
        let blocks = orders.iter().flatten().count();
        let [peak_g, p_g] = input.of_orders(f, &orders);
        if peak_g < before && p_g <= p_room(p_f) {
            let summary = format!(
                "list schedule for pressure over the target: {blocks} block(s) reordered, R peak {before} → {peak_g} (target {t})"
            );
            return (Some(reordered(f, orders)), summary);
        }
    }
    // At the default a function that needs more than the occupancy target gives it up
    // for a step that depends on the function alone: then nothing below reads the target.
    let follows = ctx.maxrregcount.is_some() || !target_span::lt(ti, 0, need_f.into());
    let t = latency_target(ctx, need_f);
    let fits = |x: u32| if follows { target_span::le(x.into(), ti, 0) } else { x <= t };
    if !fits(need_f + 1) {
        return (None, format!("at the register target {t} already: no load issued early"));
    }
    // Under a budget the target is a hard cap: a register stays free for pair alignment
    // (the pressure counts words; the allocator places pairs on even registers).
    // Measured: without it reduce_max_i64 (32 64-bit loads) reaches peak 61 under
    // `--maxrregcount 64` and 29 under 32 and spills 4 bytes at both, where ptxas does
    // not (its count 62 at 64 puts its own peak at 60 or below). At the default the
    // target is an occupancy goal, not a cap, and the whole target is used (hash64 30
    // with it, 26 without).
    // A quad (`LDS.128`'s destination) starts on a multiple of four: up to three words
    // may stay free below it, so the room is the widest R value's width less one.
    // Measured: sgemm_4x4 (16 quads) reached peak 60 under `--maxrregcount 64` and spilled
    // 4 bytes where ptxas reports 55 registers and no spill.
    let widest = || f.vregs.iter().filter(|v| v.file() == crate::ir::RegFile::R).map(|v| u32::from(v.width)).max();
    let room = if ctx.maxrregcount.is_some() { widest().unwrap_or(1).clamp(2, 4) - 1 } else { 0 };
    let off = follows.then_some(-i64::from(REPORT_EXTRA + 1 + room));
    let limit = t - REPORT_EXTRA - 1 - room;
    let orders = match side.latency(limit) {
        Some((orders, span)) => {
            if let Some(off) = off {
                target_span::limit_between(span.0, span.1, off);
            }
            orders
        }
        None => list_schedule(f, input, limit, off),
    };
    let blocks = orders.iter().flatten().count();
    let [peak_g, p_g] = input.of_orders(f, &orders);
    if fits(peak_g + REPORT_EXTRA + 1 + room) && p_g <= p_room(p_f) {
        if blocks == 0 {
            let summary = format!("list schedule: every block already in latency order (R peak {before}, target {t})");
            return (None, summary);
        }
        let summary =
            format!("list schedule for latency: {blocks} block(s) reordered, R peak {before} → {peak_g} (target {t})");
        return (Some(reordered(f, orders)), summary);
    }
    let (plan, planned) = match side.hoist() {
        Some((plan, planned)) => (plan, Some(planned)),
        None => (hoist_plan(f), None),
    };
    // The most moves (layout order) that still fit; the peak with that many.
    let (mut lo, mut hi, mut peak_lo) = (0usize, plan.total(), before);
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        let [p, _] = input.of_plan(f, &plan, mid);
        if fits(p + REPORT_EXTRA + 1) {
            (lo, peak_lo) = (mid, p);
        } else {
            hi = mid - 1;
        }
    }
    if lo == 0 {
        return (None, format!("no load can be issued early within the register target {t}"));
    }
    let mut planned = planned.unwrap_or_else(|| Planned::new(f));
    let (_, moved) = planned.apply(&plan, lo);
    let summary = format!("{moved} load(s) issued early: R peak {before} → {peak_lo} (target {t})");
    (Some(planned.into_function()), summary)
}

/// The register target the latency schedule fills, for a function whose order needs
/// `need` registers (step 18, ARCHITECTURE.md "Fidelity"). Under a budget, the budget.
/// At the default, the occupancy target (`sink::target`, 32 on sm_80/sm_90) — unless the
/// function needs more: then ptxas gives the target up and hides latency up to the most
/// registers that keep the resident warps the function has anyway. Measured with
/// ptxas's own peak live (nvdisasm): every corpus function that needs more than 32 at
/// the default reports at most that count — sgemm_16x8 needs 164 → up to 168, ptxas 168;
/// softmax32 42 → 48, ptxas 48; stencil25 39 → 40, ptxas 40; sgemm_8x8 97 → 104, ptxas
/// 98 — the same bound as the bank spread's (`alloc::constraints::bank_limit`). A
/// variant that kept the target for needs within one step of it (33–40) moved no corpus
/// row and was not kept (ARCHITECTURE.md, step 18).
pub fn latency_target(ctx: &PassCtx, need: u32) -> u32 {
    let t = occupancy_fallback(target(ctx), ctx.sm.version, ctx.maxrregcount.is_some(), need);
    ctx.cap.map_or(t, |c| t.min(c))
}

/// `latency_target` from its parts: the target, the SM, whether a budget set it.
pub fn occupancy_fallback(target: u32, sm_version: u32, budgeted: bool, need: u32) -> u32 {
    if !budgeted && need > target { crate::ir::regfile::occupancy_top(sm_version, need) } else { target }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The move-one-at-a-time form `hoist_block` replaced.
    fn reference(insts: &mut Vec<Inst>, limit: usize) -> usize {
        let depends = |later: &Inst, earlier: &Inst| {
            if fence(earlier) {
                return true;
            }
            let mut srcs = Vec::new();
            later.for_each_use(|r| srcs.push(r.vreg));
            let mut dst = Vec::new();
            later.for_each_def(|r| dst.push(r.vreg));
            let mut dep = false;
            earlier.for_each_def(|r| dep |= srcs.contains(&r.vreg) || dst.contains(&r.vreg));
            earlier.for_each_use(|r| dep |= dst.contains(&r.vreg));
            dep
        };
        let mut moved = 0;
        for i in 0..insts.len() {
            if moved >= limit {
                break;
            }
            if !insts[i].info().is(props::LOAD) || !movable(&insts[i]) {
                continue;
            }
            let to = (0..i).rev().find(|&j| depends(&insts[i], &insts[j])).map_or(0, |j| j + 1);
            if to < i {
                let x = insts.remove(i);
                insts.insert(to, x);
                moved += 1;
            }
        }
        moved
    }

    #[test]
    fn hoist_block_moves_exactly_as_one_move_at_a_time() {
        let mut total = 0;
        for (n, block) in crate::prepass::sink::tests::random_blocks(11, 400).into_iter().enumerate() {
            for limit in [0, 1, 2, 5, usize::MAX] {
                let (mut a, mut b) = (block.clone(), block.clone());
                let (ma, mb) = (hoist_block(&mut a, limit), reference(&mut b, limit));
                assert_eq!((ma, &a), (mb, &b), "block {n}, limit {limit}");
                total += ma;
            }
        }
        // The blocks do exercise the moves.
        assert!(total > 500, "{total} moves");
    }

    #[test]
    fn peaks_of_early_issue_and_list_schedules_are_their_own_solves() {
        use crate::prepass::sink::tests::{check_peaks_of_plan, fresh_peaks, random_cfg_functions};
        let reordered_fn = reordered;
        let probes = check_peaks_of_plan(19, hoist_plan);
        assert!(probes > 500, "{probes} probes");
        let mut reordered = 0;
        for (n, f) in random_cfg_functions(23, 200).into_iter().enumerate() {
            let peaks = Peaks::new(&f);
            for limit in [0, 2, 4, 8, 16, 64] {
                let orders = list_schedule(&f, &peaks, limit, None);
                reordered += orders.iter().flatten().count();
                let got = peaks.of_orders(&f, &orders);
                assert_eq!(got, fresh_peaks(&reordered_fn(&f, orders)), "function {n}, limit {limit}");
            }
        }
        assert!(reordered > 300, "{reordered} blocks reordered");
    }

    /// `schedule` solves liveness once per run, however many orders it tries.
    #[test]
    fn schedule_solves_liveness_once() {
        // 34 values live around a loop whose body loads and sums 20 more: over the
        // default's target, and no order lowers the peak (the 34 stay live), so the list
        // schedule for pressure is tried and dropped before the latency schedule.
        let mut body = String::from(".reg .R %r<128>\n.reg .R.x2 %rd<2>\n.reg .P %p<2>\nBB0:\n");
        for i in 0..34 {
            body.push_str(&format!("%r{i} = LDG.E [%rd0 + 0x{:x}]\n", 4 * i));
        }
        body.push_str("BB1:\n");
        for i in 0..20 {
            body.push_str(&format!(
                "%r{} = LDG.E [%rd0 + 0x{:x}]\n%r100 = FADD %r100, %r{}\n",
                64 + i,
                512 + 4 * i,
                64 + i
            ));
        }
        for i in 0..34 {
            body.push_str(&format!("%r100 = FADD %r100, %r{i}\n"));
        }
        body.push_str("%p0 = ISETP.GE.AND %r100, %r101, PT\n@%p0 BRA BB1\nBB2:\nSTG.E [%rd0], %r100\nEXIT");
        let m = crate::ir::parse_str(&format!(".target sm_80\n.entry k {{\n{body}\n}}\n")).expect("parses");
        let ctx = PassCtx { module: &m, sm: &m.sm, maxrregcount: None, cap: None };
        crate::prepass::sink::tests::SOLVES.with(|n| n.set(0));
        let (_, summary) = run(&m.functions[0], &ctx);
        assert!(!summary.contains("over the target") && summary.contains("R peak"), "{summary}");
        assert_eq!(crate::prepass::sink::tests::SOLVES.with(std::cell::Cell::get), 1, "{summary}");
    }

    #[test]
    fn planned_issues_early_as_the_pass_under_each_limit() {
        let total = crate::prepass::sink::tests::check_planned(13, hoist_block, hoist_plan);
        assert!(total > 200, "{total} moves");
    }
}
