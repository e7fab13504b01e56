//! The checker on every kernel in `sessions/`: a greedy reference allocator of this test's
//! own (interference from brute-force co-liveness, lowest free aligned register, pins
//! first, physical register operands avoided) produces an allocation the checker must
//! accept; moving any one vreg onto a register an interfering vreg holds must be caught.
//! This guards against false alarms on real kernels, not just on generated ones.

mod check_util;

use std::collections::BTreeSet;

use check_util::Fixture;
use radbg::alloc::check::{CheckError, align_of};
use radbg::analysis::{cfg, exit_live, liveness};
use radbg::ir::{Function, Operand, Reg, RegFile, parse_str};

/// Alias roots (cycles cut at the vreg itself).
fn roots(f: &Function) -> Vec<usize> {
    (0..f.vregs.len())
        .map(|v| {
            let mut x = v;
            for _ in 0..f.vregs.len() {
                match f.vregs[x].alias {
                    Some(p) if p.index() < f.vregs.len() && p.index() != x => x = p.index(),
                    _ => break,
                }
            }
            x
        })
        .collect()
}

/// Pairs of alias roots of one file that occupy registers at a common side of a common
/// instruction (the same definition the checker's rule 3 states).
fn interference(f: &Function, root: &[usize]) -> BTreeSet<(usize, usize)> {
    let g = cfg::build(f, 1.0);
    // The checker's definition: live only where some def may have happened.
    let live = liveness::compute_defined(f, &g, &exit_live(f));
    let layout = f.layout();
    let mut out = BTreeSet::new();
    for (b, blk) in f.blocks.iter().enumerate() {
        for (i, inst) in blk.insts.iter().enumerate() {
            let p = layout.point(b, i);
            let before: Vec<usize> = live.live_before(f, p).iter().map(|v| root[v.index()]).collect();
            let mut after: Vec<usize> = live.live_after(f, p).iter().map(|v| root[v.index()]).collect();
            inst.for_each_def(|r| {
                if live.is_tracked(r.vreg) {
                    after.push(root[r.vreg.index()]);
                }
            });
            for set in [before, after] {
                for &x in &set {
                    for &y in &set {
                        if x < y && f.vregs[x].file() == f.vregs[y].file() {
                            out.insert((x, y));
                        }
                    }
                }
            }
        }
    }
    out
}

/// Every physical register named by an operand anywhere in the function.
fn physical(f: &Function) -> BTreeSet<(RegFile, u16)> {
    let mut out = BTreeSet::new();
    for inst in f.blocks.iter().flat_map(|b| &b.insts) {
        let mut regs: Vec<Reg> = inst.guard.map(|g| g.reg).into_iter().collect();
        for op in &inst.operands {
            match op {
                Operand::Reg(r) => regs.push(*r),
                Operand::Mem(m) => regs.extend(m.base.into_iter().chain(m.index)),
                _ => {}
            }
        }
        for r in regs {
            if let Reg::P(p) = r {
                out.insert((p.file, p.index));
            }
        }
    }
    out
}

/// Greedy allocation; `None` when the input's pins contradict each other or a file
/// overflows (optix.ori needs more than 63 uniform registers: it must spill).
fn greedy(f: &Function) -> Option<Vec<Option<u16>>> {
    let root = roots(f);
    let edges = interference(f, &root);
    let phys = physical(f);
    let n = f.vregs.len();
    let mut slot: Vec<Option<u16>> = vec![None; n];
    let range = |v: usize, s: u16| s as u32..s as u32 + f.vregs[v].width.max(1) as u32;
    let neighbours = |v: usize| edges.iter().filter(move |e| e.0 == v || e.1 == v).map(move |e| e.0 + e.1 - v);
    let mut order: Vec<usize> = (0..n).filter(|&v| root[v] == v && f.vregs[v].class.is_allocatable()).collect();
    order.sort_by_key(|&v| (f.vregs[v].pin.is_none(), v));
    for v in order {
        let file = f.vregs[v].file();
        let free = |s: u16, slot: &[Option<u16>]| {
            let r = range(v, s);
            let zero = file.zero_register().is_some_and(|z| r.contains(&(z as u32)));
            let taken = neighbours(v).any(|u| slot[u].is_some_and(|t| range(u, t).any(|x| r.contains(&x))));
            let named = r.clone().any(|x| phys.contains(&(file, x as u16)));
            r.end <= file.arch_size() as u32 && !zero && !taken && !named
        };
        slot[v] = match f.vregs[v].pin {
            Some(p) => {
                let clash =
                    neighbours(v).any(|u| slot[u].is_some_and(|t| range(u, t).any(|x| range(v, p).contains(&x))));
                if clash {
                    return None;
                }
                Some(p)
            }
            None => {
                let a = align_of(f.vregs[v].width.max(1));
                Some((0..file.arch_size()).step_by(a as usize).find(|&s| free(s, &slot))?)
            }
        };
    }
    for v in 0..n {
        if f.vregs[v].class.is_allocatable() {
            slot[v] = slot[root[v]];
        }
    }
    Some(slot)
}

#[test]
fn greedy_allocations_of_every_session_kernel_pass() {
    let mut dir: Vec<_> = std::fs::read_dir("sessions")
        .expect("sessions/")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "ori"))
        .collect();
    dir.sort();
    let mut checked = 0;
    let mut caught = 0;
    for path in dir {
        let text = std::fs::read_to_string(&path).expect("readable");
        let Ok(m) = parse_str(&text) else {
            continue; // Sessions that show parse or validation errors have nothing to allocate.
        };
        for f in m.functions {
            let name = format!("{}:{}", path.display(), f.name);
            let Some(slot) = greedy(&f) else {
                continue;
            };
            let edges = interference(&f, &roots(&f));
            let mut fx = Fixture::of(f);
            fx.exit_live = exit_live(&fx.f);
            fx.slot = slot;
            assert_eq!(fx.report(), "", "{name}");
            checked += 1;

            // Break it: move the higher vreg of the first interfering pair onto the other.
            if let Some(&(a, b)) = edges.iter().find(|&&(a, b)| {
                fx.f.vregs[a].width == fx.f.vregs[b].width
                    && fx.f.vregs[b].pin.is_none()
                    && fx.f.vregs[b].alias.is_none()
            }) {
                fx.slot[b] = fx.slot[a];
                let errs = fx.errors();
                assert!(
                    errs.iter().any(|e| matches!(e, CheckError::Overlap { a: x, b: y, .. }
                        if (x.id.index(), y.id.index()) == (a, b))),
                    "{name}: moving {} onto {} not caught: {errs:#?}",
                    fx.f.vregs[b].name,
                    fx.f.vregs[a].name
                );
                caught += 1;
            }
        }
    }
    eprintln!("{checked} functions checked, {caught} broken ones caught");
    assert!(checked >= 10 && caught >= 5, "only {checked} functions checked, {caught} broken ones caught");
}
