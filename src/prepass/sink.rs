//! `sink`: loads NVVM hoisted are moved down to their first use, as far as ptxas's
//! scheduler needs to fit its register target.
//!
//! Issue 13, measured: NVVM hoists loads to the top of a block (a reduction with 32
//! 64-bit loads in a row: PTX peak 65 live registers) and ptxas interleaves them with
//! their uses again — 32 registers at the default budget, 62 under `--maxrregcount 64`:
//! it schedules *to* a target, not to the minimum. The target is the budget when one is
//! given; without one it is the count that still allows full occupancy, the register file
//! over the resident-warp limit (`ir::regfile`: 65536 / (64 warps × 32 threads) = 32
//! on sm_80/sm_90), which is what the corpus kernels that can reach it report at the
//! default (conv5x5, nbody, block_scan_i32, reduce_max_i64: 32).
//!
//! A load is a candidate when it has one whole-register def that always executes, is a
//! plain load (no store, atomic or barrier semantics), and its first use is later in the
//! same block with no instruction between that stores, synchronizes, calls or redefines
//! one of the load's address registers. The pass sinks the fewest candidates (the ones
//! hoisted furthest first) whose sinking brings the R file's peak pressure + the report's
//! 3 within the target; none when the function already fits.

use crate::analysis::query::BlockWalk;
use crate::analysis::{cfg, liveness};
use crate::ir::opcode::props;
use crate::ir::regfile::{REGFILE_PER_SM, REPORT_EXTRA, max_warps_per_sm};
use crate::ir::{Function, Inst, Operand, Reg, RegFile};
use crate::prepass::order::{BlockMoves, MovePlan, OrderList, Planned, Slots};
use crate::prepass::{Pass, PassCtx, target_span};

pub const PASS: Pass = Pass {
    name: "sink",
    about: "hoisted loads sunk toward their first use until pressure fits ptxas's register target",
    run,
    ori: false,
};

/// The register target ptxas schedules to: the budget, else full occupancy's count.
pub fn target(ctx: &PassCtx) -> u32 {
    let t = ctx.maxrregcount.unwrap_or_else(|| REGFILE_PER_SM / (max_warps_per_sm(ctx.sm.version) * 32));
    ctx.cap.map_or(t, |c| t.min(c))
}

pub(crate) fn peak(f: &Function) -> u32 {
    let c = cfg::build(f, 1.0);
    let [r] = liveness::compute_defined(f, &c, &[]).max_pressures(f, [RegFile::R]);
    r
}

/// The R and P peaks of a function and of the reorderings `sink` and `schedule` try on
/// it, from one liveness solve of the function as given (issue 25: their binary searches
/// solved the whole function again for every probe, ~18 solves of the scale kernel per
/// run and per row of a sweep).
///
/// Why the input's solve holds for every order tried: the moves (`sink_moves`,
/// `schedule`'s early issue) and the list schedule (`list::build`'s dependence graph)
/// keep, for every vreg, the order of its defs against its other defs and uses — a move
/// never crosses a def or use of what it defines, nor a def of what it reads; the list
/// schedule has an edge for every such pair, a guard being a read and a component or
/// predicated def a read too — and no instruction crosses a branch or an exit. Only two
/// reads of one vreg swap. Every fact the solve keeps is a function of those per-vreg
/// sequences within each block: gen and kill (the first occurrence), the block-local
/// vregs (a use after a killing def in the block), the guard-local ones (the first
/// occurrence a whole def; the defs of the guard's predicate before each occurrence,
/// which reads it), the assembled vregs' first component def; and so the live-in and
/// live-out sets. A reordered block's peak is then its own backward walk from the same
/// live-out, taking the input's instructions in the new order
/// (`Liveness::block_max_pressures_in`: no reordered copy of the function is made for a
/// probe), and the other blocks keep theirs.
/// `tests::peaks_of_reorderings_are_their_own_solves` holds it to a fresh solve of each
/// order the passes try.
pub(crate) struct Peaks {
    live: liveness::Liveness,
    /// Per block, its [R, P] peak in the order given.
    base: Vec<[u32; 2]>,
    /// Per block and number of a plan's moves in it, its peak in that order (the binary
    /// searches come back to the same orders).
    memo: std::cell::RefCell<std::collections::HashMap<(usize, usize), [u32; 2]>>,
    /// One live set for every block walked (a fresh one per block cost the function's
    /// vreg count each; issue 25).
    walk: std::cell::RefCell<BlockWalk>,
}

impl Peaks {
    pub(crate) fn new(f: &Function) -> Peaks {
        #[cfg(test)]
        tests::SOLVES.with(|n| n.set(n.get() + 1));
        let c = cfg::build(f, 1.0);
        let live = liveness::compute_defined(f, &c, &[]);
        let base = live.block_max_pressures_all(f, [RegFile::R, RegFile::P]);
        let walk = std::cell::RefCell::new(BlockWalk::new(&live));
        Peaks { live, base, memo: Default::default(), walk }
    }

    /// The function's [R, P] peaks in the order given.
    pub(crate) fn input(&self) -> [u32; 2] {
        Self::max(self.base.iter().copied())
    }

    /// The liveness of the function as given.
    pub(crate) fn live(&self) -> &liveness::Liveness {
        &self.live
    }

    fn max(it: impl Iterator<Item = [u32; 2]>) -> [u32; 2] {
        it.fold([0, 0], |a, b| [a[0].max(b[0]), a[1].max(b[1])])
    }

    /// The peaks of the function as given (`f`) with each block `b` whose `orders[b]` is
    /// `Some` taken in that order (indices into the block; a reordering as the type's doc
    /// says), without making that function.
    pub(crate) fn of_orders(&self, f: &Function, orders: &[Option<Vec<usize>>]) -> [u32; 2] {
        Self::max(self.base.iter().enumerate().map(|(b, &p)| match orders.get(b) {
            Some(Some(o)) => {
                self.live.block_max_pressures_with(f, b, [RegFile::R, RegFile::P], Some(o), &mut self.walk.borrow_mut())
            }
            _ => p,
        }))
    }

    /// The peaks of `f` (the function as given) with the first `k` moves of `plan` (made
    /// from `f`), without making that function.
    /// Takes `&self` (the memo and the walk are cells) so that `schedule` can lend the
    /// liveness to its second thread meanwhile.
    pub(crate) fn of_plan(&self, f: &Function, plan: &MovePlan, k: usize) -> [u32; 2] {
        let Peaks { live, base, memo, walk } = self;
        let (mut memo, mut walk) = (memo.borrow_mut(), walk.borrow_mut());
        Self::max(base.iter().zip(plan.split(k)).enumerate().map(|(b, (&p, here))| {
            if here == 0 {
                return p;
            }
            *memo.entry((b, here)).or_insert_with(|| {
                let order = plan.block_order(b, here);
                live.block_max_pressures_with(f, b, [RegFile::R, RegFile::P], order.as_deref(), &mut walk)
            })
        }))
    }
}

/// Whether `inst` may move: one whole-register def, always executes, no side effects,
/// not control flow; loads only plain ones.
pub(crate) fn movable(inst: &Inst) -> bool {
    let info = inst.info();
    if inst.ndefs != 1 || !inst.guard_is_always() || inst.has_side_effects() {
        return false;
    }
    if info.is(props::STORE) || info.is(props::ATOMIC) || info.is(props::BARRIER) || info.is(props::BRANCH) {
        return false;
    }
    if info.is(props::CALL) || info.is(props::EXIT) || info.is(props::PHI) {
        return false;
    }
    matches!(inst.defs().first(), Some(Operand::Reg(Reg::V(d))) if d.comp.is_none())
}

/// Sinks, bottom-up, at most `limit` movable instructions of `insts` to just before the
/// first use of their def; returns how many moved. Bottom-up, a value computed from a
/// load sinks first and the load follows it (NVVM hoists both).
///
/// An instruction moves to just before the first instruction after it (in the order so
/// far) that reads its def, unless one before that redefines the def or a source, ends
/// the straight line (a branch or exit), or — for a load — stores, synchronizes, calls
/// or has a side effect. The order is kept in an [`OrderList`] and, per vreg, the first
/// reader and writer of what follows, so each instruction costs O(log n), not a rescan.
#[cfg(test)]
fn sink_block(insts: &mut Vec<Inst>, limit: usize) -> usize {
    crate::prepass::order::apply_block(insts, limit, sink_moves)
}

/// [`sink_block`]'s order and moves, the block left as it is.
fn sink_moves(insts: &[Inst], slots: &mut Slots, limit: usize) -> BlockMoves {
    let n = insts.len();
    let mut list = OrderList::new(n);
    let [first_use, first_def] = slots;
    let (mut first_hazard, mut first_stop): (Option<usize>, Option<usize>) = (None, None);
    let mut moved = 0;
    let mut at = Vec::new();
    for i in (0..n).rev() {
        let inst = &insts[i];
        let mut placed = false;
        if moved < limit
            && movable(inst)
            && let Some(Operand::Reg(Reg::V(d))) = inst.defs().first()
            && let Some(u) = first_use.get(d.vreg)
            && Some(u) != list.head()
        {
            let mut srcs = vec![d.vreg];
            inst.for_each_use(|r| srcs.push(r.vreg));
            let early = |p: Option<usize>| p.is_some_and(|p| list.before(p, u));
            let clash = srcs.iter().any(|s| early(first_def.get(*s)));
            let hazard = inst.info().is(props::LOAD) && early(first_hazard);
            if !clash && !hazard && !early(first_stop) {
                list.insert_before(i, u);
                moved += 1;
                at.push(i);
                placed = true;
            }
        }
        if !placed {
            list.push_front(i);
        }
        let earlier = |p: Option<usize>| p.is_none_or(|p| list.before(i, p));
        inst.for_each_use(|r| {
            if earlier(first_use.get(r.vreg)) {
                first_use.insert(r.vreg, i);
            }
        });
        inst.for_each_def(|r| {
            if earlier(first_def.get(r.vreg)) {
                first_def.insert(r.vreg, i);
            }
        });
        let li = inst.info();
        if (li.is(props::STORE) || li.is(props::BARRIER) || li.is(props::CALL) || inst.has_side_effects())
            && earlier(first_hazard)
        {
            first_hazard = Some(i);
        }
        if (li.is(props::BRANCH) || li.is(props::EXIT)) && earlier(first_stop) {
            first_stop = Some(i);
        }
    }
    BlockMoves { order: list.order(), moved: at }
}

fn run(f: &Function, ctx: &PassCtx) -> (Option<Function>, String) {
    let t = target(ctx);
    // One solve of the input; every order tried below is a reordering of it (`Peaks`).
    let peaks = Peaks::new(f);
    let before = peaks.input()[0];
    let need_f = before + REPORT_EXTRA + 1;
    // Each comparison with the target goes through `target_span` (a sweep shares this
    // pass's result between the budgets that take the same branches).
    let fits = |need: u32| target_span::le(need.into(), t.into(), 0);
    if fits(need_f) {
        return (None, format!("fits the register target {t}: nothing to sink"));
    }
    // One unlimited run per block; any number of moves is a prefix of it
    // (`order::MovePlan`). The probes walk the input in the orders a prefix makes
    // (`Peaks`); the function is made once, for the count kept.
    let plan = MovePlan::new(f, |insts, slots| sink_moves(insts, slots, usize::MAX), false);
    let n = plan.total();
    let need = |k: usize| peaks.of_plan(f, &plan, k)[0] + REPORT_EXTRA + 1;
    if n == 0 || !fits(need(n)) {
        // ptxas gives up a target it cannot reach and schedules for latency instead.
        return (None, format!("the register target {t} is out of reach (R peak {before}): nothing sunk"));
    }
    // The fewest moves (bottom-up) that fit.
    let (mut lo, mut hi) = (1usize, n);
    while lo < hi {
        let mid = (lo + hi) / 2;
        if fits(need(mid)) { hi = mid } else { lo = mid + 1 }
    }
    let after = need(lo) - REPORT_EXTRA - 1;
    let mut planned = Planned::new(f);
    let (_, moved) = planned.apply(&plan, lo);
    let summary =
        format!("{moved} hoisted instruction(s) sunk to their first use: R peak {before} → {after} (target {t})");
    (Some(planned.into_function()), summary)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    thread_local! {
        /// The liveness solves `Peaks` made on this thread.
        pub(crate) static SOLVES: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    }

    /// [R, P] peaks of `g` from a solve of its own.
    pub(crate) fn fresh_peaks(g: &Function) -> [u32; 2] {
        let c = cfg::build(g, 1.0);
        liveness::compute_defined(g, &c, &[]).max_pressures(g, [RegFile::R, RegFile::P])
    }

    /// Random functions of several blocks joined by branches (forward, backward: loops)
    /// and fall-throughs, so values live across blocks: 32- and 64-bit values, component
    /// defs, predicates, guarded defs (guard-local ones too), loads, stores, barriers.
    pub(crate) fn random_cfg_functions(seed: u64, count: usize) -> Vec<Function> {
        let mut rnd = crate::util::lcg(seed);
        (0..count)
            .map(|_| {
                let nb = 1 + rnd(5);
                let mut body = String::from(".reg .R %r<10>\n.reg .R.x2 %rd<4>\n.reg .P %p<3>\n");
                for b in 0..nb {
                    body.push_str(&format!("BB{b}:\n"));
                    for _ in 0..2 + rnd(30) {
                        let (a, c, e) = (rnd(10), rnd(10), rnd(10));
                        let (d, h, p) = (rnd(4), rnd(4), rnd(3));
                        body.push_str(&match rnd(16) {
                            0..=2 => format!("%r{a} = LDG.E [%rd{d} + 0x{:x}]\n", 4 * c),
                            3 => format!("%r{a} = IADD3 %r{c}, %r{e}, RZ\n"),
                            4 => format!("%r{a} = LDS [%r{c}]\n"),
                            5 => format!("STS [%r{a}], %r{c}\n"),
                            6 => format!("%rd{d} = IMAD.WIDE %r{c}, 4, %rd{h}\n"),
                            7 => format!("%r{a} = MOV %rd{d}.lo\n"),
                            8 => format!("%p{p} = ISETP.GE.AND %r{a}, %r{c}, PT\n"),
                            9 => format!("@%p{p} %r{a} = IADD3 %r{c}, 1, RZ\n"),
                            10 => format!("@!%p{p} %r{a} = IADD3 %r{c}, 2, RZ\n"),
                            11 => format!("%rd{d}.hi = MOV %r{c}\n"),
                            12 => format!("%r{a} = MUFU.RCP %r{c}\n"),
                            13 if rnd(4) == 0 => "BAR.SYNC 0\n".to_string(),
                            _ => format!("%r{a} = FADD %r{c}, %r{e}\n"),
                        });
                    }
                    if b + 1 < nb {
                        body.push_str(&match rnd(3) {
                            0 => format!("@%p{} BRA BB{}\n", rnd(3), rnd(nb)),
                            1 => format!("BRA BB{}\n", b + 1 + rnd(nb - b - 1)),
                            _ => String::new(),
                        });
                    }
                }
                body.push_str(&format!("STG.E [%rd0], %r{}\nEXIT", rnd(10)));
                let m = crate::ir::parse_str(&format!(".target sm_80\n.entry k {{\n{body}\n}}\n")).expect("parses");
                m.functions[0].clone()
            })
            .collect()
    }

    /// `Peaks` gives every order a plan's prefixes make what a solve of that order gives.
    pub(crate) fn check_peaks_of_plan(seed: u64, plan: fn(&Function) -> MovePlan) -> usize {
        let mut probes = 0;
        for (n, f) in random_cfg_functions(seed, 150).into_iter().enumerate() {
            let plan = plan(&f);
            let peaks = Peaks::new(&f);
            assert_eq!(peaks.input(), fresh_peaks(&f), "function {n} as given");
            let mut planned = Planned::new(&f);
            let mut limits: Vec<usize> = (0..=plan.total()).collect();
            limits.extend((0..=plan.total()).rev());
            for k in limits {
                planned.apply(&plan, k);
                let want = fresh_peaks(planned.function());
                assert_eq!(peaks.of_plan(&f, &plan, k), want, "function {n}, {k} moves");
                probes += usize::from(k > 0);
            }
        }
        probes
    }

    #[test]
    fn peaks_of_reorderings_are_their_own_solves() {
        let probes = check_peaks_of_plan(17, |f| MovePlan::new(f, |i, s| sink_moves(i, s, usize::MAX), false));
        assert!(probes > 500, "{probes} probes");
    }

    /// Each of `sink`'s probes walks the blocks it reorders from the one solve of the
    /// input (where every probe solved the whole function): one solve per run however
    /// many probes the search makes.
    #[test]
    fn the_binary_search_solves_liveness_once() {
        // 24 hoisted loads whose values are used at the end, at a target that takes
        // some of them sunk: the search probes several counts.
        let mut body = String::from(".reg .R %r<64>\n.reg .R.x2 %rd<2>\nBB0:\n");
        for i in 0..24 {
            body.push_str(&format!("%r{i} = LDG.E [%rd0 + 0x{:x}]\n", 4 * i));
        }
        for i in 0..24 {
            body.push_str(&format!("%r{} = FADD %r{i}, %r{}\n", 32 + i, 31 + i));
        }
        body.push_str("STG.E [%rd0], %r55\nEXIT");
        let m = crate::ir::parse_str(&format!(".target sm_80\n.entry k {{\n{body}\n}}\n")).expect("parses");
        let ctx = PassCtx { module: &m, sm: &m.sm, maxrregcount: Some(16), cap: None };
        SOLVES.with(|n| n.set(0));
        let (g, summary) = run(&m.functions[0], &ctx);
        assert!(g.is_some(), "{summary}");
        assert_eq!(SOLVES.with(std::cell::Cell::get), 1, "{summary}");
    }

    /// The move-one-at-a-time form `sink_block` replaced: scan the current order for the
    /// first use, stop at a clash, a hazard (loads) or a branch, move, repeat.
    fn reference(insts: &mut Vec<Inst>, limit: usize) -> usize {
        let mut moved = 0;
        let mut i = insts.len();
        while i > 0 && moved < limit {
            i -= 1;
            if !movable(&insts[i]) {
                continue;
            }
            let Some(Operand::Reg(Reg::V(d))) = insts[i].defs().first().cloned() else { continue };
            let is_load = insts[i].info().is(props::LOAD);
            let mut srcs = Vec::new();
            insts[i].for_each_use(|r| srcs.push(r.vreg));
            let mut to = None;
            for (j, later) in insts.iter().enumerate().skip(i + 1) {
                let mut uses_d = false;
                later.for_each_use(|r| uses_d |= r.vreg == d.vreg);
                if uses_d {
                    to = Some(j);
                    break;
                }
                let li = later.info();
                let mut clash = false;
                later.for_each_def(|r| clash |= srcs.contains(&r.vreg) || r.vreg == d.vreg);
                let hazard = is_load
                    && (li.is(props::STORE) || li.is(props::BARRIER) || li.is(props::CALL) || later.has_side_effects());
                if clash || hazard || li.is(props::BRANCH) || li.is(props::EXIT) {
                    break;
                }
            }
            if let Some(j) = to.filter(|&j| j > i + 1) {
                let x = insts.remove(i);
                insts.insert(j - 1, x);
                moved += 1;
            }
        }
        moved
    }

    /// Random straight-line blocks over a few registers: loads, arithmetic, stores,
    /// barriers, reused names (several defs), a final branch.
    pub(crate) fn random_blocks(seed: u64, count: usize) -> Vec<Vec<Inst>> {
        let mut rnd = crate::util::lcg(seed);
        (0..count)
            .map(|_| {
                let len = 2 + rnd(24);
                let mut body = String::from(".reg .R %r<8>\n.reg .R.x2 %rd<2>\nBB0:\n");
                for _ in 0..len {
                    let (a, b, c) = (rnd(8), rnd(8), rnd(8));
                    body.push_str(&match rnd(7) {
                        0 | 1 => format!("%r{a} = LDG.E [%rd0 + 0x{:x}]\n", 4 * b),
                        2 => format!("%r{a} = IADD3 %r{b}, %r{c}, RZ\n"),
                        3 => format!("%r{a} = LDS [%r{b}]\n"),
                        4 => format!("STS [%r{a}], %r{b}\n"),
                        5 => format!("%r{a} = SHL %r{b}, 2\n"),
                        _ if rnd(4) == 0 => "BAR.SYNC 0\n".to_string(),
                        _ => format!("%r{a} = FADD %r{b}, %r{c}\n"),
                    });
                }
                body.push_str("EXIT");
                let m = crate::ir::parse_str(&format!(".target sm_80\n.entry k {{\n{body}\n}}\n")).expect("parses");
                m.functions[0].blocks.iter().flat_map(|b| b.insts.clone()).collect()
            })
            .collect()
    }

    /// Functions of four random blocks each (`random_blocks`, which all declare the same
    /// registers), for the passes' function-wide move limits.
    pub(crate) fn random_functions(seed: u64, count: usize) -> Vec<Function> {
        let text = ".target sm_80\n.entry k {\n.reg .R %r<8>\n.reg .R.x2 %rd<2>\nBB0:\nEXIT\n}\n";
        let template = crate::ir::parse_str(text).expect("parses").functions[0].clone();
        let blocks = random_blocks(seed, 4 * count);
        blocks
            .chunks(4)
            .map(|four| {
                let mut f = template.clone();
                f.blocks = four
                    .iter()
                    .enumerate()
                    .map(|(k, insts)| crate::ir::Block { label: format!("BB{k}"), insts: insts.clone() })
                    .collect();
                f
            })
            .collect()
    }

    /// `Planned` gives, for every limit, what the pass gives run block by block in
    /// layout order under that limit.
    pub(crate) fn check_planned(
        seed: u64,
        per_block: fn(&mut Vec<Inst>, usize) -> usize,
        plan: fn(&Function) -> MovePlan,
    ) -> usize {
        let mut total = 0;
        for (n, f) in random_functions(seed, 100).into_iter().enumerate() {
            let plan = plan(&f);
            let mut planned = Planned::new(&f);
            // Every limit, out of order too (the binary searches go back and forth).
            let mut limits: Vec<usize> = (0..=plan.total() + 1).collect();
            limits.extend((0..=plan.total()).rev());
            for k in limits {
                let mut want = f.clone();
                let mut left = k;
                for b in &mut want.blocks {
                    left -= per_block(&mut b.insts, left);
                }
                let (got, moved) = planned.apply(&plan, k);
                assert_eq!((got, moved), (&want, k - left), "function {n}, limit {k}");
            }
            total += plan.total();
        }
        total
    }

    #[test]
    fn planned_sinks_as_the_pass_under_each_limit() {
        let total = check_planned(3, sink_block, |f| MovePlan::new(f, |i, s| sink_moves(i, s, usize::MAX), false));
        assert!(total > 200, "{total} moves");
    }

    #[test]
    fn sink_block_moves_exactly_as_one_move_at_a_time() {
        let mut total = 0;
        for (n, block) in random_blocks(7, 400).into_iter().enumerate() {
            for limit in [0, 1, 2, 5, usize::MAX] {
                let (mut a, mut b) = (block.clone(), block.clone());
                let (ma, mb) = (sink_block(&mut a, limit), reference(&mut b, limit));
                assert_eq!((ma, &a), (mb, &b), "block {n}, limit {limit}");
                total += ma;
            }
        }
        // The blocks do exercise the moves.
        assert!(total > 500, "{total} moves");
    }
}
