//! Property tests of the analyses against brute-force references on random small
//! functions: liveness at every point (a vreg is live at a point exactly when some path
//! from there reads it before a killing write), pressure, DCE preserving every side
//! effect and removing only dead code, and solver determinism.

mod analysis_builder;

use analysis_builder::func;
use proptest::prelude::*;
use radbg::analysis::{LiveSet, cfg, dce, liveness};
use radbg::ir::opcode::props;
use radbg::ir::{Function, Inst, Reg, RegFile, VRegId};

/// Every register the generator may use, declared first so ids are stable.
const REGS: &str = "%r0 %r1 %r2 %r3 %rd0 %q0 %p0 %p1 %u0 %b0";

fn r(i: u8) -> String {
    format!("%r{}", i % 4)
}

fn p(i: u8) -> String {
    format!("%p{}", i % 2)
}

fn body_inst(k: u8, a: u8, b: u8, c: u8) -> String {
    match k % 13 {
        0 => format!("{} = IADD3 {}, {}, RZ", r(a), r(b), r(c)),
        1 => format!("%rd0.{} = MOV {}", if a.is_multiple_of(2) { "lo" } else { "hi" }, r(b)),
        2 => format!("@{} {} = MOV {}", p(c), r(a), r(b)),
        3 => format!("{} = ISETP.LT.AND {}, {}, PT", p(a), r(b), r(c)),
        4 => format!("STG.E [%rd0], {}", r(a)),
        5 => format!("%rd0 = IADD3 {}, 1, RZ", r(a)),
        6 => format!("@{} EXIT", p(a)),
        7 => "%u0 = UIADD3 %u0, 1, 2".to_string(),
        8 => format!("{} = LDG.E [%rd0 + %u0]", r(a)),
        9 => format!("{}, {} = IADD3 {}, {}, 0", r(a), p(b), r(c), r(a.wrapping_add(1))),
        10 => format!("%q0.{} = MOV {}", a % 4, r(b)),
        11 => format!("{} = IADD3 %q0.{}, %q0, RZ", r(a), b % 4),
        _ => format!("%b0 = BMOV {}", r(a)),
    }
}

fn terminator(k: u8, a: u8, t: usize, u: usize) -> String {
    match k % 8 {
        0 | 1 => String::new(),
        2 => format!("BRA B{t}"),
        3 => format!("@{} BRA B{t}", p(a)),
        4 => "EXIT".to_string(),
        5 => format!("@{} EXIT", p(a)),
        6 => format!("BRX {}, B{t}, B{u}", r(a)),
        _ => "RET".to_string(),
    }
}

/// A random function as text: 1..=6 blocks of 0..=5 body instructions and a terminator.
fn arb_src() -> impl Strategy<Value = String> {
    (1usize..=6).prop_flat_map(|n| {
        prop::collection::vec(
            (
                prop::collection::vec((any::<u8>(), any::<u8>(), any::<u8>(), any::<u8>()), 0..=5),
                (any::<u8>(), any::<u8>(), 0..n, 0..n),
            ),
            n,
        )
        .prop_map(|blocks| {
            let mut s = String::new();
            for (i, (body, (tk, ta, t, u))) in blocks.into_iter().enumerate() {
                s += &format!("B{i}:\n");
                for (k, a, b, c) in body {
                    s += &format!("  {}\n", body_inst(k, a, b, c));
                }
                let term = terminator(tk, ta, t, u);
                if !term.is_empty() {
                    s += &format!("  {term}\n");
                }
            }
            s
        })
    })
}

/// Exit-live registers: a subset of the R/P registers chosen by a mask.
fn exit_live_of(f: &Function, mask: u8) -> Vec<VRegId> {
    ["%r0", "%r1", "%rd0", "%p0"]
        .iter()
        .enumerate()
        .filter(|(i, _)| mask & (1 << i) != 0)
        .map(|(_, n)| f.vreg_by_name(n).unwrap())
        .collect()
}

// ---- brute-force reference ----

fn is_exit(i: &Inst) -> bool {
    i.info().is(props::EXIT)
}

fn reads(i: &Inst, v: VRegId, exit_live: &[VRegId]) -> bool {
    let mut hit = false;
    i.for_each_use(|r| hit |= r.vreg == v);
    hit || (is_exit(i) && exit_live.contains(&v))
}

/// Written apart from `liveness::guard_local`: every instruction touching `v` is in one
/// block under one guard on a whole predicate that no instruction from the first of
/// them up to the last redefines; the first writes `v` whole without reading it (the
/// later ones may read or write single components); `v` is not live at the exit. Then no
/// older value of `v` is ever read, and each of its guarded defs kills.
fn guard_local(f: &Function, v: VRegId, exit_live: &[VRegId]) -> bool {
    if exit_live.contains(&v) {
        return false;
    }
    let mut at: Vec<(usize, usize)> = Vec::new();
    for (b, blk) in f.blocks.iter().enumerate() {
        for (k, inst) in blk.insts.iter().enumerate() {
            let mut touch = false;
            inst.for_each_use(|r| touch |= r.vreg == v);
            inst.for_each_def(|r| touch |= r.vreg == v);
            if touch {
                at.push((b, k));
            }
        }
    }
    let Some(&(b, first)) = at.first() else { return false };
    let last = at.last().map_or(first, |x| x.1);
    if at.iter().any(|x| x.0 != b) {
        return false;
    }
    let insts = &f.blocks[b].insts;
    let g = insts[first].guard;
    let Some(pred) = g.and_then(|g| match g.reg {
        Reg::V(p) if p.comp.is_none() => Some(p.vreg),
        _ => None,
    }) else {
        return false;
    };
    let mut ok = true;
    for &(_, k) in &at {
        let i = &insts[k];
        ok &= i.guard == g;
        i.for_each_use(|r| ok &= r.vreg != v || k != first);
        i.for_each_def(|r| ok &= r.vreg != v || k != first || r.comp.is_none());
    }
    let mut writes_first = false;
    insts[first].for_each_def(|r| writes_first |= r.vreg == v);
    let mut pred_redefined = false;
    for i in &insts[first..last] {
        i.for_each_def(|r| pred_redefined |= r.vreg == pred);
    }
    ok && writes_first && !pred_redefined
}

/// A whole-register def kills when it always executes, or when it is the vreg's only
/// definition (no older value exists; a component def counts as another definition),
/// or when the vreg is [`guard_local`].
fn kills(f: &Function, i: &Inst, v: VRegId, exit_live: &[VRegId]) -> bool {
    let (mut whole, mut part) = (0, 0);
    for inst in f.blocks.iter().flat_map(|b| &b.insts) {
        inst.for_each_def(|r| {
            if r.vreg == v {
                if r.comp.is_none() { whole += 1 } else { part += 1 }
            }
        });
    }
    let only_def = whole == 1 && part == 0;
    let mut hit = false;
    if i.guard_is_always() || only_def || guard_local(f, v, exit_live) {
        i.for_each_def(|r| hit |= r.vreg == v && r.comp.is_none());
    }
    hit
}

/// Successor blocks at the end of block `b`, and whether leaving there is an exit of
/// the function (a trailing EXIT/RET or falling off the last block).
fn block_end(f: &Function, b: usize) -> (Vec<usize>, bool) {
    let insts = &f.blocks[b].insts;
    let next = if b + 1 < f.blocks.len() { vec![b + 1] } else { vec![] };
    let falls_off = b + 1 == f.blocks.len();
    let Some(last) = insts.last() else { return (next, falls_off) };
    let labels = |i: &Inst| -> Vec<usize> {
        i.uses()
            .iter()
            .filter_map(|o| match o {
                radbg::ir::Operand::Sym(s) => f.block_by_label(s),
                _ => None,
            })
            .collect()
    };
    let m = last.op.mnemonic();
    let guarded = !last.guard_is_always();
    match m {
        "BRA" | "BRX" if !guarded => (labels(last), false),
        "BRA" | "BRX" => {
            let mut s = labels(last);
            s.extend(next);
            (s, falls_off)
        }
        "EXIT" | "RET" if !guarded => (vec![], true),
        "EXIT" | "RET" => (next, true),
        _ => (next, falls_off),
    }
}

/// Is `v` live at position (b, i) — before instruction i, or at the block end when
/// i == len — by searching every path.
fn live_at(f: &Function, v: VRegId, exit_live: &[VRegId], b: usize, i: usize) -> bool {
    let mut seen = std::collections::BTreeSet::new();
    let mut work = vec![(b, i)];
    while let Some((b, i)) = work.pop() {
        if !seen.insert((b, i)) {
            continue;
        }
        let insts = &f.blocks[b].insts;
        if i < insts.len() {
            if reads(&insts[i], v, exit_live) {
                return true;
            }
            if !kills(f, &insts[i], v, exit_live) {
                work.push((b, i + 1));
            }
        } else {
            let (succ, exit) = block_end(f, b);
            if exit && exit_live.contains(&v) {
                return true;
            }
            work.extend(succ.into_iter().map(|s| (s, 0)));
        }
    }
    false
}

fn tracked(f: &Function, v: VRegId) -> bool {
    f.vreg(v).file().has_liveness()
}

fn ref_set(f: &Function, exit_live: &[VRegId], b: usize, i: usize) -> LiveSet {
    let ids = (0..f.vregs.len()).map(VRegId::new).filter(|&v| tracked(f, v) && live_at(f, v, exit_live, b, i));
    LiveSet::from_ids(f.vregs.len(), ids)
}

/// The bitvector solver liveness had before its per-block sets became sparse (issue 25),
/// kept as the reference of the sweep record: one file's gen/kill from a reverse scan of
/// each block, the exit blocks' live-out seeded with the exit-live vregs, then sweeps in
/// reverse RPO (the unreachable blocks after, in reverse layout order) where each block
/// takes its successors' live-in into its live-out and `gen | (out & !kill)` into its
/// live-in, a sweep recording the blocks whose sets grew, until a sweep changes nothing.
/// Returns the sweeps and, after each sweep k (0: before the first), every block's
/// (live-in, live-out); the gen and kill sets.
struct Dense {
    sweeps: Vec<Vec<usize>>,
    states: Vec<Vec<(LiveSet, LiveSet)>>,
    gen_kill: Vec<(LiveSet, LiveSet)>,
}

fn dense_solve(f: &Function, c: &cfg::Cfg, l: &liveness::Liveness, file: RegFile) -> Dense {
    let n = f.vregs.len();
    let nb = f.blocks.len();
    let in_file = |v: VRegId| f.vreg(v).file() == file && l.is_tracked(v);
    let mut gen_kill = Vec::new();
    for blk in &f.blocks {
        let (mut g, mut k) = (LiveSet::new(n), LiveSet::new(n));
        for inst in blk.insts.iter().rev() {
            inst.for_each_def(|r| {
                if in_file(r.vreg) && l.def_kills(inst, r) {
                    k.insert(r.vreg);
                    g.remove(r.vreg);
                }
            });
            inst.for_each_use(|r| {
                if in_file(r.vreg) {
                    g.insert(r.vreg);
                }
            });
            if is_exit(inst) {
                for v in l.exit_live().iter().filter(|&v| in_file(v)) {
                    g.insert(v);
                }
            }
        }
        gen_kill.push((g, k));
    }
    let mut ins = vec![LiveSet::new(n); nb];
    let mut outs = vec![LiveSet::new(n); nb];
    for &b in &c.exits {
        for v in l.exit_live().iter().filter(|&v| in_file(v)) {
            outs[b].insert(v);
        }
    }
    let mut order: Vec<usize> = c.rpo.iter().rev().copied().collect();
    order.extend((0..nb).rev().filter(|&b| !c.reachable[b]));
    let mut states = vec![ins.iter().cloned().zip(outs.iter().cloned()).collect::<Vec<_>>()];
    let mut sweeps = Vec::new();
    loop {
        let mut changed = Vec::new();
        for &b in &order {
            let mut grew = false;
            for &s in &c.succs[b] {
                for v in ins[s].clone().iter() {
                    grew |= outs[b].insert(v);
                }
            }
            let (g, k) = &gen_kill[b];
            for v in g.iter().chain(outs[b].iter().filter(|&v| !k.contains(v))).collect::<Vec<_>>() {
                grew |= ins[b].insert(v);
            }
            if grew {
                changed.push(b);
            }
        }
        let done = changed.is_empty();
        sweeps.push(changed);
        states.push(ins.iter().cloned().zip(outs.iter().cloned()).collect());
        if done {
            break;
        }
    }
    Dense { sweeps, states, gen_kill }
}

/// The dense form of `Liveness::restrict_to_defined` (what `compute_defined` applies):
/// a forward may-reach of every block's defs (in = OR of the preds' out, propagated
/// into the blocks the entry reaches; out = in | defs; vregs never defined count as
/// defined everywhere) masks each live-out, and each live-in is then
/// `gen | (out & !kill)`. Per block: (live-in, live-out).
fn dense_defined(f: &Function, c: &cfg::Cfg, l: &liveness::Liveness) -> Vec<(LiveSet, LiveSet)> {
    let n = f.vregs.len();
    let nb = f.blocks.len();
    let mut always = LiveSet::from_ids(n, (0..n).map(VRegId::new));
    let mut defs = vec![LiveSet::new(n); nb];
    for (b, blk) in f.blocks.iter().enumerate() {
        for inst in &blk.insts {
            inst.for_each_def(|r| {
                defs[b].insert(r.vreg);
                always.remove(r.vreg);
            });
        }
    }
    let mut din = vec![always.clone(); nb];
    let mut dout: Vec<LiveSet> = (0..nb)
        .map(|b| {
            let mut o = always.clone();
            o.union_with(&defs[b]);
            o
        })
        .collect();
    loop {
        let mut changed = false;
        for &b in &c.rpo {
            for &p in &c.preds[b] {
                for v in dout[p].clone().iter() {
                    changed |= din[b].insert(v);
                }
            }
            for v in din[b].clone().iter() {
                changed |= dout[b].insert(v);
            }
        }
        if !changed {
            break;
        }
    }
    (0..nb)
        .map(|b| {
            let out = LiveSet::from_ids(n, l.live_out(b).iter().filter(|&v| dout[b].contains(v)));
            let kill = l.kill_set(b);
            let inn = LiveSet::from_ids(n, l.gen_set(b).iter().chain(out.iter().filter(|&v| !kill.contains(v))));
            (inn, out)
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, .. ProptestConfig::default() })]

    #[test]
    fn liveness_matches_brute_force(src in arb_src(), mask in any::<u8>()) {
        let f = analysis_builder::func_with(REGS, &src);
        let ex = exit_live_of(&f, mask);
        let c = cfg::build(&f, 8.0);
        let l = liveness::compute(&f, &c, &ex);
        let layout = f.layout();
        for (b, blk) in f.blocks.iter().enumerate() {
            prop_assert_eq!(l.live_in(b), ref_set(&f, &ex, b, 0), "live-in of B{}\n{}", b, src);
            for i in 0..blk.insts.len() {
                let p = layout.point(b, i);
                prop_assert_eq!(l.live_before(&f, p), ref_set(&f, &ex, b, i), "before [{}]\n{}", p, src);
                let after = ref_set(&f, &ex, b, i + 1);
                prop_assert_eq!(l.live_after(&f, p), after, "after [{}]\n{}", p, src);
            }
            // Live-out: what the successors need, plus exit-live at an exit.
            let (succ, exit) = block_end(&f, b);
            let mut out = LiveSet::new(f.vregs.len());
            for s in succ { out.union_with(&ref_set(&f, &ex, s, 0)); }
            if exit { out.union_with(&LiveSet::from_ids(f.vregs.len(), ex.iter().copied())); }
            prop_assert_eq!(l.live_out(b), out, "live-out of B{}\n{}", b, src);
        }
    }

    #[test]
    fn pressure_matches_its_definition(src in arb_src(), mask in any::<u8>()) {
        let f = analysis_builder::func_with(REGS, &src);
        let ex = exit_live_of(&f, mask);
        let c = cfg::build(&f, 8.0);
        let l = liveness::compute(&f, &c, &ex);
        let layout = f.layout();
        for file in [RegFile::R, RegFile::P, RegFile::UR] {
            let curve = l.pressure_curve(&f, file);
            prop_assert_eq!(curve.len() as u32, layout.len());
            for (b, blk) in f.blocks.iter().enumerate() {
                for (i, inst) in blk.insts.iter().enumerate() {
                    let p = layout.point(b, i);
                    let before = ref_set(&f, &ex, b, i);
                    let mut after = ref_set(&f, &ex, b, i + 1);
                    inst.for_each_def(|r| if tracked(&f, r.vreg) { after.insert(r.vreg); });
                    let want = before.weight(&f, file).max(after.weight(&f, file));
                    prop_assert_eq!(curve[p as usize], want, "{:?} at [{}]\n{}", file, p, src);
                    prop_assert_eq!(l.pressure(&f, p, file), want);
                }
            }
        }
    }

    #[test]
    fn dce_keeps_every_side_effect_and_removes_only_dead_code(src in arb_src(), mask in any::<u8>()) {
        let f0 = analysis_builder::func_with(REGS, &src);
        let ex = exit_live_of(&f0, mask);
        let c = cfg::build(&f0, 8.0);
        let mut f = f0.clone();
        let rep = dce::run(&mut f, &c, &ex);
        let side = |f: &Function| -> Vec<(usize, Inst)> {
            f.blocks.iter().enumerate()
                .flat_map(|(b, blk)| blk.insts.iter().filter(|i| i.has_side_effects()).map(move |i| (b, i.clone())))
                .collect()
        };
        prop_assert_eq!(side(&f), side(&f0));
        prop_assert_eq!(f.inst_count() + rep.removed.len(), f0.inst_count());
        // Everything removed sits at its reported original position and writes only
        // values the original program never reads.
        for r in &rep.removed {
            prop_assert_eq!(&f0.blocks[r.block].insts[r.index], &r.inst);
            prop_assert!(!r.inst.has_side_effects());
        }
        // A second run finds nothing more: DCE reached its fixed point.
        let mut f2 = f.clone();
        prop_assert!(dce::run(&mut f2, &c, &ex).removed.is_empty());
        // In the final program, nothing reads a removed instruction's results: at the
        // place it stood, its destinations are dead.
        let l1 = liveness::compute(&f, &c, &ex);
        for r in &rep.removed {
            let earlier = rep.removed.iter().filter(|q| q.block == r.block && q.index < r.index).count();
            let pos = r.index - earlier;
            let live = if pos < f.blocks[r.block].insts.len() {
                l1.live_before(&f, f.layout().point(r.block, pos))
            } else {
                l1.live_out(r.block)
            };
            r.inst.for_each_def(|d| assert!(!live.contains(d.vreg), "removed a live def\n{src}"));
        }
        // The live-in of the entry never grows.
        let l0 = liveness::compute(&f0, &c, &ex);
        for v in l1.live_in(0).iter() {
            prop_assert!(l0.live_in(0).contains(v));
        }
    }

    #[test]
    fn dominators_and_loops_match_their_definitions(src in arb_src()) {
        let f = analysis_builder::func_with(REGS, &src);
        let c = cfg::build(&f, 8.0);
        let n = f.blocks.len();
        // Reachability from the entry avoiding block `skip`.
        let reach = |skip: Option<usize>| {
            let mut seen = vec![false; n];
            let mut work = vec![0usize];
            while let Some(b) = work.pop() {
                if Some(b) == skip || seen[b] { continue; }
                seen[b] = true;
                work.extend(c.succs[b].iter().copied());
            }
            seen
        };
        prop_assert_eq!(&c.reachable, &reach(None));
        for a in (0..n).filter(|&a| c.reachable[a]) {
            let without = reach(Some(a));
            for b in (0..n).filter(|&b| c.reachable[b]) {
                // a dominates b iff b is unreachable once a is removed (or a == b).
                prop_assert_eq!(c.dominates(a, b), a == b || !without[b], "dom({}, {})\n{}", a, b, src);
            }
        }
        for (i, l) in c.loops.iter().enumerate() {
            for &b in &l.blocks {
                prop_assert!(c.dominates(l.header, b));
            }
            // Some block of the loop branches back to the header.
            prop_assert!(l.blocks.iter().any(|&b| c.succs[b].contains(&l.header)));
            if let Some(p) = l.parent {
                prop_assert!(p < i && c.loops[p].depth + 1 == l.depth);
                prop_assert!(l.blocks.iter().all(|b| c.loops[p].blocks.contains(b)));
            } else {
                prop_assert_eq!(l.depth, 1);
            }
        }
        for b in 0..n {
            let containing = c.loops.iter().filter(|l| l.blocks.contains(&b)).count() as u32;
            prop_assert_eq!(c.loop_depth[b], containing, "depth of B{}\n{}", b, src);
            prop_assert_eq!(c.freq[b], 8f64.powi(containing as i32));
        }
    }

    /// The sparse solver (sorted index vectors per block) against the dense bitvector
    /// solver it replaced, on random CFGs with loops: the same gen/kill, the same
    /// sweeps (the same blocks grew in each, in the same order: the record the
    /// debugger shows), the same sets after every sweep of a partial solve, and the
    /// same sets after the may-reach restriction of `compute_defined`.
    #[test]
    fn sparse_solve_matches_the_dense_solver(src in arb_src(), mask in any::<u8>()) {
        let f = analysis_builder::func_with(REGS, &src);
        let ex = exit_live_of(&f, mask);
        let c = cfg::build(&f, 8.0);
        let l = liveness::compute(&f, &c, &ex);
        let nb = f.blocks.len();
        let mut dense = Vec::new();
        for fl in l.files() {
            let d = dense_solve(&f, &c, &l, fl.file);
            let got: Vec<Vec<usize>> = fl.sweeps.iter().map(|s| s.changed.clone()).collect();
            prop_assert_eq!(&got, &d.sweeps, "sweeps of {:?}\n{}", fl.file, src);
            for (b, (g, k)) in d.gen_kill.iter().enumerate() {
                prop_assert_eq!(&l.gen_set(b).of_file(&f, fl.file), g, "gen of B{}\n{}", b, src);
                prop_assert_eq!(&l.kill_set(b).of_file(&f, fl.file), k, "kill of B{}\n{}", b, src);
            }
            dense.push((fl.file, d));
        }
        let most = dense.iter().map(|(_, d)| d.sweeps.len()).max().unwrap_or(0);
        for k in 0..=most {
            let part = liveness::compute_partial(&f, &c, &ex, k);
            for (file, d) in &dense {
                let (want_in, want_out) = &d.states[k.min(d.states.len() - 1)].iter().cloned().unzip::<_, _, Vec<_>, Vec<_>>();
                for b in 0..nb {
                    prop_assert_eq!(&part.live_in(b).of_file(&f, *file), &want_in[b], "{:?} live-in of B{} after {} sweep(s)\n{}", file, b, k, src);
                    prop_assert_eq!(&part.live_out(b).of_file(&f, *file), &want_out[b], "{:?} live-out of B{} after {} sweep(s)\n{}", file, b, k, src);
                }
            }
        }
        let defined = liveness::compute_defined(&f, &c, &ex);
        for (b, (want_in, want_out)) in dense_defined(&f, &c, &l).into_iter().enumerate() {
            prop_assert_eq!(defined.live_out(b), want_out, "defined live-out of B{}\n{}", b, src);
            prop_assert_eq!(defined.live_in(b), want_in, "defined live-in of B{}\n{}", b, src);
        }
    }

    #[test]
    fn solving_is_deterministic(src in arb_src(), mask in any::<u8>()) {
        let f = analysis_builder::func_with(REGS, &src);
        let ex = exit_live_of(&f, mask);
        let a = liveness::compute(&f, &cfg::build(&f, 8.0), &ex);
        let b = liveness::compute(&f, &cfg::build(&f, 8.0), &ex);
        prop_assert_eq!(a, b);
    }
}

#[test]
fn dce_cascades_within_a_block_and_across_blocks() {
    let mut f = func(
        "A:
           %r0 = MOV 1
           %r1 = IADD3 %r0, 1, RZ
           %r2 = IADD3 %r1, 1, RZ
           %r5 = MOV 7
         B:
           %r3 = IADD3 %r2, 1, RZ
           STG.E [%rd0], %r5
           PT = ISETP.LT.AND %r5, 1, PT
           NOP
           EXIT",
    );
    let c = cfg::build(&f, 8.0);
    let rep = dce::run(&mut f, &c, &[]);
    let removed: Vec<(usize, usize, u32)> = rep.removed.iter().map(|r| (r.block, r.index, r.point)).collect();
    assert_eq!(removed, vec![(0, 0, 0), (0, 1, 1), (0, 2, 2), (1, 0, 4), (1, 2, 6)]);
    assert_eq!(rep.rounds, 3);
    let texts: Vec<&str> = rep.removed.iter().map(|r| r.text.as_str()).collect();
    assert_eq!(
        texts,
        vec![
            "%r0 = MOV 1",
            "%r1 = IADD3 %r0, 1, RZ",
            "%r2 = IADD3 %r1, 1, RZ",
            "%r3 = IADD3 %r2, 1, RZ",
            "PT = ISETP.LT.AND %r5, 1, PT"
        ]
    );
    let left: Vec<&str> = f.blocks.iter().flat_map(|b| b.insts.iter().map(|i| i.op.mnemonic())).collect();
    assert_eq!(left, vec!["MOV", "STG", "NOP", "EXIT"]);
}
