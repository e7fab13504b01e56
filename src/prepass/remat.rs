//! `remat`: cheap values are computed where they are used, not where NVVM put them.
//!
//! NVVM computes `tid + 128·k` for sixteen `k` at the top of cub_block_reduce's block,
//! beside the loads, and uses each one a screen later; the corpus SASS (nvdisasm on the
//! cubin the corpus ptxas wrote) computes each `IADD3 R20, R17, 0x80, RZ` right before
//! its use, from `tid` in R17, which stays live anyway. Seed 000 lists ptxas's
//! rematerialization lists and candidate sets in the allocator's state object (+696,
//! +1128, +1440–1496) and seed 002 ("REMATERIALIZATION - RECOMPUTE vs. RELOAD") which
//! values qualify: constant moves, an add or subtract of an immediate below 1024, shifts,
//! masks and logic with immediates, address arithmetic (`LEA`); never loads, atomics or
//! expensive operations.
//!
//! The model: bottom-up in each block, such a value — one whole-register def, unguarded,
//! its only def — moves down to just before its first use in the same block, when every
//! register it reads is still live there (moving it then frees a register between the
//! two places and extends nothing) and nothing between redefines them. Values used first
//! in another block stay (recomputing them there is not modelled).

use crate::analysis::liveness::BlockSet;
use crate::ir::{Function, Inst, Operand, Reg, VRegId};
use crate::prepass::{Pass, PassCtx};

pub const PASS: Pass = Pass {
    name: "remat",
    about: "cheap values (an immediate add, shift, mask) computed just before their first use, as ptxas rematerializes them",
    run,
    ori: false,
};

/// Seed 002's bound on a rematerializable add's immediate.
const ADD_IMMEDIATE_LIMIT: i64 = 1024;

/// Whether `inst` computes a value seed 002 calls rematerializable.
fn cheap(inst: &Inst) -> bool {
    if inst.ndefs != 1 || !inst.guard_is_always() || inst.has_side_effects() {
        return false;
    }
    let u = inst.uses();
    let imm = |o: &Operand| matches!(o, Operand::Imm(_));
    let small = |o: &Operand| matches!(o, Operand::Imm(k) if k.abs() < ADD_IMMEDIATE_LIMIT);
    let regs = u.iter().filter(|o| matches!(o, Operand::Reg(Reg::V(_)))).count();
    // Virtual registers, immediates and RZ only: a physical register (an ABI binding)
    // must not move.
    let others_ok = u.iter().all(|o| match o {
        Operand::Reg(Reg::P(p)) => p.is_zero(),
        o => matches!(o, Operand::Reg(Reg::V(_)) | Operand::Imm(_)),
    });
    if !others_ok || regs == 0 {
        return false;
    }
    match inst.op.mnemonic() {
        "IADD3" => !inst.has_mod("X") && regs == 1 && u.iter().any(small) && u.iter().filter(|o| imm(o)).all(small),
        "SHL" | "SHR" | "SHF" | "LOP3" | "LEA" => regs == 1 && u.iter().any(imm),
        _ => false,
    }
}

fn run(f: &Function, _ctx: &PassCtx) -> (Option<Function>, String) {
    let defs = crate::prepass::def_counts(f);
    let mut moved = Vec::new();
    let mut sites = SiteMap::new(f.vregs.len());
    // The solve is made when a block first asks whether a source is live out (a source
    // read later in the block answers without it): a function with no cheap value, or
    // none whose source dies, costs no solve (issue 25: 43 M instructions of a
    // scale-kernel run that moved nothing).
    let mut solved: Option<crate::analysis::liveness::Liveness> = None;
    // Each block's order reads only that block: all are found on `f`, and the function
    // is copied only when one changes.
    let orders: Vec<Option<Vec<usize>>> = f
        .blocks
        .iter()
        .enumerate()
        .map(|(b, blk)| {
            // The block's live-out, ascending, read from the solve on first need.
            let mut out: Option<Vec<VRegId>> = None;
            let mut live_out = |v: VRegId| {
                let l = solved.get_or_insert_with(|| {
                    let c = crate::analysis::cfg::build(f, 1.0);
                    crate::analysis::liveness::compute_defined(f, &c, &[])
                });
                let o = out.get_or_insert_with(|| {
                    let mut o = Vec::new();
                    l.for_each_in(b, BlockSet::LiveOut, |v| o.push(v));
                    o.sort_unstable();
                    o
                });
                o.binary_search(&v).is_ok()
            };
            block_order(&blk.insts, &defs, f, &mut live_out, &mut moved, &mut sites)
        })
        .collect();
    if moved.is_empty() {
        return (None, "no cheap value to compute later".to_string());
    }
    let mut g = f.clone();
    for (blk, order) in g.blocks.iter_mut().zip(orders) {
        if let Some(order) = order {
            crate::prepass::permute(&mut blk.insts, order);
        }
    }
    let summary = format!(
        "{} cheap value(s) computed just before their first use: {}",
        moved.len(),
        crate::prepass::name_list(&g, &moved)
    );
    (Some(g), summary)
}

/// Positions in one block of one vreg: where it is read, and where it is written (whole
/// or in part), each ascending.
struct Sites<'a> {
    uses: &'a [usize],
    defs: &'a [usize],
    whole_defs: &'a [usize],
}

/// [`Sites`] of the vregs a block's candidates name (their values and sources): a local
/// number per such vreg (`local`, indexed by vreg, `NONE` for the others), and per kind
/// (uses, defs, whole defs) every marked vreg's positions in one vector, `start[l]..
/// start[l + 1]` for local `l`, counted then filled in two walks of the block. Emptying
/// costs the vregs the block marked. A vector per kind and vreg of the function cost an
/// allocation per operand and their frees (issue 25: ~120 M instructions of a
/// scale-kernel run that moved nothing), and one per marked vreg still ~80 M.
struct SiteMap {
    local: Vec<u32>,
    marked: Vec<VRegId>,
    start: [Vec<u32>; 3],
    items: [Vec<usize>; 3],
}

const NONE: u32 = u32::MAX;

impl SiteMap {
    fn new(n: usize) -> SiteMap {
        SiteMap { local: vec![NONE; n], marked: Vec::new(), start: Default::default(), items: Default::default() }
    }

    /// Records `v`'s sites at the next [`SiteMap::index`].
    fn mark(&mut self, v: VRegId) {
        let i = v.index();
        if i >= self.local.len() {
            self.local.resize(i + 1, NONE);
        }
        if self.local[i] == NONE {
            self.local[i] = self.marked.len() as u32;
            self.marked.push(v);
        }
    }

    /// The marked vregs' sites in `insts`.
    fn index(&mut self, insts: &[Inst]) {
        let SiteMap { local, marked, start, items } = self;
        let local_of = |v: VRegId| local.get(v.index()).copied().filter(|&l| l != NONE).map(|l| l as usize);
        for s in start.iter_mut() {
            s.clear();
            s.resize(marked.len() + 1, 0);
        }
        // Kinds: 0 uses, 1 defs, 2 whole defs.
        let each = |inst: &Inst, visit: &mut dyn FnMut(usize, usize)| {
            inst.for_each_use(|r| {
                if let Some(l) = local_of(r.vreg) {
                    visit(0, l);
                }
            });
            inst.for_each_def(|r| {
                if let Some(l) = local_of(r.vreg) {
                    visit(1, l);
                    if r.comp.is_none() {
                        visit(2, l);
                    }
                }
            });
        };
        for inst in insts {
            each(inst, &mut |kind, l| start[kind][l + 1] += 1);
        }
        for (s, it) in start.iter_mut().zip(items.iter_mut()) {
            for l in 0..marked.len() {
                s[l + 1] += s[l];
            }
            it.clear();
            it.resize(s[marked.len()] as usize, 0);
        }
        let mut fill: [Vec<u32>; 3] = start.clone();
        for (k, inst) in insts.iter().enumerate() {
            each(inst, &mut |kind, l| {
                items[kind][fill[kind][l] as usize] = k;
                fill[kind][l] += 1;
            });
        }
    }

    /// A marked vreg's sites.
    fn get(&self, v: VRegId) -> Sites<'_> {
        let l = self.local[v.index()] as usize;
        let of = |kind: usize| &self.items[kind][self.start[kind][l] as usize..self.start[kind][l + 1] as usize];
        Sites { uses: of(0), defs: of(1), whole_defs: of(2) }
    }

    fn clear(&mut self) {
        for v in self.marked.drain(..) {
            self.local[v.index()] = NONE;
        }
    }
}

/// The new order of a block (indices into `insts`), `None` when nothing moves; the moved
/// values are added to `moved`. Bottom-up, each cheap value goes just before the first
/// of its uses in the final order of what follows it (a use that moves itself takes the
/// value along), when nothing between redefines it or its sources and its sources are
/// live there. O(n log n): positions are looked up in sorted lists.
fn block_order(
    insts: &[Inst],
    defs: &[u32],
    f: &Function,
    live_out: &mut dyn FnMut(VRegId) -> bool,
    moved: &mut Vec<VRegId>,
    sites: &mut SiteMap,
) -> Option<Vec<usize>> {
    let n = insts.len();
    sites.clear();
    let end = insts.iter().position(|i| i.is_terminator()).unwrap_or(n);
    // The candidates (cheap, the value's only def, whole, not pinned), ascending; only
    // their values and sources need sites.
    let mut cands: Vec<(usize, VRegId)> = Vec::new();
    for (i, inst) in insts[..end.min(n)].iter().enumerate() {
        if !cheap(inst) {
            continue;
        }
        let Some(Operand::Reg(Reg::V(d))) = inst.defs().first() else { continue };
        if d.comp.is_some() || defs[d.vreg.index()] != 1 || f.vregs[d.vreg.index()].pin.is_some() {
            continue;
        }
        cands.push((i, d.vreg));
        sites.mark(d.vreg);
        inst.for_each_use(|r| sites.mark(r.vreg));
    }
    if cands.is_empty() {
        return None;
    }
    sites.index(insts);
    let after = |v: &[usize], p: usize| v.get(v.partition_point(|&q| q <= p)).copied();
    let from = |v: &[usize], p: usize| v.get(v.partition_point(|&q| q < p)).copied();
    // Final sort key of each instruction: (anchor, 0 for a moved value, index).
    let mut key: Vec<(usize, u8, usize)> = (0..n).map(|k| (k, 1, k)).collect();
    let mut any = false;
    for &(i, v) in cands.iter().rev() {
        let inst = &insts[i];
        // The first of its uses in the final order of what follows (within the block).
        let Some(target) = sites.get(v).uses.iter().filter(|&&u| u > i && u <= end).map(|&u| key[u]).min() else {
            continue;
        };
        let anchor = target.0;
        if anchor == i + 1 && target.1 == 1 {
            continue; // already just before its first use
        }
        let mut srcs = Vec::new();
        inst.for_each_use(|r| srcs.push(r.vreg));
        // Nothing between redefines the value or a source (original positions: moved
        // instructions only go down, so this is conservative).
        let clash = srcs.iter().chain([&v]).any(|s| after(sites.get(*s).defs, i).is_some_and(|p| p < anchor));
        // Every source live just before the anchor: read there or later before being
        // rewritten, or live out and not rewritten.
        let live = srcs.iter().all(|s| {
            let st = sites.get(*s);
            let next_def = from(st.whole_defs, anchor);
            match (from(st.uses, anchor), next_def) {
                (Some(u), Some(w)) => u <= w,
                (Some(_), None) => true,
                (None, None) => live_out(*s),
                (None, Some(_)) => false,
            }
        });
        if !clash && live {
            key[i] = (anchor, 0, i);
            moved.push(v);
            any = true;
        }
    }
    if !any {
        return None;
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&k| key[k]);
    Some(order)
}
