//! `webs`: a vreg whose name is reused for unrelated values becomes one vreg per value
//! (per *web*: a maximal set of defs and uses joined by def-use chains).
//!
//! ptxas allocates the vregs its SSA optimizer leaves behind: after SSA destruction
//! (the CSSA modes of seed 000, "phi-web coalescing") every vreg is one web. An Ori IR
//! file or a PTX file may reuse a name for values that never meet (hand-written PTX
//! does, and so do radbg's synthetic kernels): allocated as one vreg, such a name is
//! "live" in pieces all over the function and conflicts with the registers of every
//! value live near any of its pieces. The fat-point scan then finds every slot blocked
//! although pressure is far below the budget (a 10k-instruction kernel with peak
//! pressure 104 needed 200 registers and spilled before this pass). Splitting the webs
//! is what ptxas's input already is, so this pass runs on Ori IR as well as imported PTX.
//!
//! Webs follow the liveness's own kill rule (`analysis::liveness`, seed 004
//! "Backward Walk Live Set Update Rule"): a def that kills starts a new value; a def
//! that does not (predicated, or one component of a wide vreg) continues the value that
//! reaches it; a use joins the value that reaches it; at a block boundary the value
//! live into a block joins the values live out of its predecessors. One more join keeps
//! hand-written accumulations readable: a def in an instruction that also reads the
//! vreg (`%acc = FFMA %a, %b, %acc`) continues the value it reads — the two live ranges
//! abut, so splitting them would rename without freeing anything.
//!
//! Not split: pinned vregs, alias groups, vregs bound to ABI parameters or return
//! values (their names are the calling convention's), and barrier registers (no
//! liveness). The first web in layout order keeps the vreg (and its id); the others
//! become `NAME$wK`, appended. Owns the web computation; must not know the allocator.

use crate::analysis::liveness::{self, BlockSet, NO_COMP};
use crate::ir::{Function, Operand, Reg, RegDecl, RegFile, VReg, VRegId};
use crate::prepass::{Pass, PassCtx};

pub const PASS: Pass = Pass {
    name: "webs",
    about: "a vreg name reused for unrelated values becomes one vreg per value (def-use web), as ptxas's SSA leaves it",
    run,
    ori: true,
};

const NONE: u32 = u32::MAX;

/// Union-find over value nodes.
struct Sets {
    parent: Vec<u32>,
}

impl Sets {
    fn add(&mut self) -> u32 {
        self.parent.push(self.parent.len() as u32);
        self.parent.len() as u32 - 1
    }
    fn find(&mut self, mut x: u32) -> u32 {
        while self.parent[x as usize] != x {
            let p = self.parent[x as usize];
            self.parent[x as usize] = self.parent[p as usize];
            x = p;
        }
        x
    }
    fn union(&mut self, a: u32, b: u32) {
        let (ra, rb) = (self.find(a), self.find(b));
        // The smaller node wins, so roots do not depend on the order of unions.
        if ra < rb {
            self.parent[rb as usize] = ra;
        } else if rb < ra {
            self.parent[ra as usize] = rb;
        }
    }
}

/// The webs of `f`: for every register occurrence, in the order of
/// [`for_each_occurrence`], its vreg and its value's node; and per vreg whether it may
/// be split.
struct Webs {
    occ: Vec<(VRegId, u32)>,
    sets: Sets,
    splittable: Vec<bool>,
}

fn splittable(f: &Function) -> Vec<bool> {
    let mut ok: Vec<bool> = f.vregs.iter().map(|v| v.pin.is_none() && v.alias.is_none()).collect();
    for v in &f.vregs {
        if let Some(p) = v.alias.filter(|p| p.index() < ok.len()) {
            ok[p.index()] = false;
        }
    }
    for (i, v) in f.vregs.iter().enumerate() {
        if matches!(v.file(), RegFile::B | RegFile::UB) {
            ok[i] = false;
        }
    }
    if let Some(a) = &f.abi {
        for b in a.params.iter().chain(&a.returns).filter_map(|p| p.bind) {
            if let Some(x) = ok.get_mut(b.index()) {
                *x = false;
            }
        }
    }
    ok
}

fn compute(f: &Function) -> Webs {
    let n = f.vregs.len();
    let exit_live: Vec<VRegId> =
        f.abi.as_ref().map(|a| a.returns.iter().filter_map(|r| r.bind).collect()).unwrap_or_default();
    let cfg = crate::analysis::cfg::build(f, 1.0);
    let live = liveness::compute(f, &cfg, &exit_live);
    let single_def = liveness::predicated_kills(f, &exit_live);
    let comp_kill = liveness::comp_kills(f);
    let mut sets = Sets { parent: Vec::new() };
    let mut occ = Vec::new();
    let mut cur = vec![NONE; n];
    let mut touched: Vec<usize> = Vec::new();
    let mut read: Vec<(usize, u32)> = Vec::new();
    // Per block: the node of each vreg live on entry, and of each vreg defined in it as
    // it leaves (both sorted by vreg), for the joins at block boundaries.
    let mut entry: Vec<Vec<(VRegId, u32)>> = Vec::with_capacity(f.blocks.len());
    let mut leave: Vec<Vec<(VRegId, u32)>> = Vec::with_capacity(f.blocks.len());
    for (b, block) in f.blocks.iter().enumerate() {
        let mut ins: Vec<VRegId> = live.files().iter().flat_map(|fl| fl.ids(BlockSet::LiveIn, b)).collect();
        ins.sort_unstable();
        let mut e = Vec::with_capacity(ins.len());
        for v in ins {
            let node = sets.add();
            cur[v.index()] = node;
            touched.push(v.index());
            e.push((v, node));
        }
        let mut defined: Vec<VRegId> = Vec::new();
        let starts = liveness::group_starts(f, &block.insts);
        for (ii, inst) in block.insts.iter().enumerate() {
            read.clear();
            inst.for_each_use(|r| {
                let v = r.vreg.index();
                if v >= n {
                    occ.push((r.vreg, NONE));
                    return;
                }
                if cur[v] == NONE {
                    // Read before any def reaches it: its own (undefined) value.
                    cur[v] = sets.add();
                    touched.push(v);
                }
                occ.push((r.vreg, cur[v]));
                read.push((v, cur[v]));
            });
            let always = liveness::kills(inst);
            inst.for_each_def(|r| {
                let v = r.vreg.index();
                if v >= n {
                    occ.push((r.vreg, NONE));
                    return;
                }
                let kills = match r.comp {
                    None => always || single_def[v],
                    Some(c) => {
                        (comp_kill[v] != NO_COMP && comp_kill[v] == c)
                            || starts.binary_search(&(ii as u32, r.vreg)).is_ok()
                    }
                };
                let node = sets.add();
                if !kills && cur[v] != NONE {
                    sets.union(node, cur[v]);
                }
                // `x = x + 1` keeps the name: the old value ends where the new one
                // starts, so the two abut and splitting them frees nothing.
                if let Some(&(_, old)) = read.iter().find(|&&(u, _)| u == v) {
                    sets.union(node, old);
                }
                if cur[v] == NONE {
                    touched.push(v);
                }
                cur[v] = node;
                defined.push(r.vreg);
                occ.push((r.vreg, node));
            });
        }
        defined.sort_unstable();
        defined.dedup();
        leave.push(defined.iter().map(|&v| (v, cur[v.index()])).collect());
        entry.push(e);
        for v in touched.drain(..) {
            cur[v] = NONE;
        }
    }
    for (b, e) in entry.iter().enumerate() {
        for &(v, node) in e {
            for &p in &cfg.preds[b] {
                let out = match leave[p].binary_search_by_key(&v, |x| x.0) {
                    Ok(i) => Some(leave[p][i].1),
                    Err(_) => entry[p].binary_search_by_key(&v, |x| x.0).ok().map(|i| entry[p][i].1),
                };
                if let Some(o) = out {
                    sets.union(node, o);
                }
            }
        }
    }
    Webs { occ, sets, splittable: splittable(f) }
}

/// A web cut off at a group start ([`liveness::group_starts`]) holds only component defs: like the
/// `components` stage does for a vreg built that way from the start, mark it
/// `vflags::ASSEMBLED` where each of its components is defined once, all in one block,
/// so liveness starts it at its first component def instead of the function's entry.
/// Only the vregs this pass split (`split`: original index, web count) and the webs it
/// appended (index `n` on) are looked at.
fn mark_assembled(g: &mut Function, split: &[(usize, u32)], n: usize) {
    use crate::ir::model::vflags;
    if split.is_empty() {
        return;
    }
    let mut look: Vec<usize> = split.iter().map(|&(v, _)| v).collect();
    look.extend(n..g.vregs.len());
    let before: Vec<u64> = look.iter().map(|&v| g.vregs[v].flags).collect();
    for &v in &look {
        g.vregs[v].flags |= vflags::ASSEMBLED;
    }
    let kills = liveness::comp_kills(g);
    for (&v, &flags) in look.iter().zip(&before) {
        g.vregs[v].flags = if kills[v] != NO_COMP { flags | vflags::ASSEMBLED } else { flags };
    }
}

/// Visits every register occurrence of `f` mutably, in the order `compute` records them:
/// per instruction its uses (`Inst::for_each_use_mut`), then its defs.
fn for_each_occurrence(f: &mut Function, mut visit: impl FnMut(&mut crate::ir::model::RegRef)) {
    for block in &mut f.blocks {
        for inst in &mut block.insts {
            inst.for_each_use_mut(&mut visit);
            let nd = inst.ndefs as usize;
            for op in inst.operands.iter_mut().take(nd) {
                if let Operand::Reg(Reg::V(r)) = op {
                    visit(r);
                }
            }
        }
    }
}

fn run(f: &Function, _ctx: &PassCtx) -> (Option<Function>, String) {
    let mut w = compute(f);
    let n = f.vregs.len();
    // Web representative → vreg, numbering each vreg's webs in layout order of their
    // first occurrence; the first keeps the vreg. The new vregs and declarations are
    // collected apart: with none, every occurrence keeps its vreg and the function is
    // not copied.
    let (mut new_vregs, mut new_decls) = (Vec::new(), Vec::new());
    let mut web_of: Vec<Option<VRegId>> = vec![None; w.sets.parent.len()];
    let mut count = vec![0u32; n];
    let mut i = 0;
    let occ = std::mem::take(&mut w.occ);
    let mut rename: Vec<VRegId> = Vec::with_capacity(occ.len());
    for &(v, node) in &occ {
        if node == NONE || !w.splittable.get(v.index()).copied().unwrap_or(false) {
            rename.push(v);
            continue;
        }
        let root = w.sets.find(node) as usize;
        let id = *web_of[root].get_or_insert_with(|| {
            let k = count[v.index()];
            count[v.index()] += 1;
            if k == 0 {
                return v;
            }
            let o = &f.vregs[v.index()];
            let name = VReg::derived_name(&o.name, "$w", k as usize);
            let id = VRegId::new(n + new_vregs.len());
            let mut nv = VReg::new(name.clone(), o.class, o.width, f.decls.len() + new_decls.len());
            nv.flags = o.flags;
            nv.origin = o.origin;
            new_decls.push(RegDecl { prefix: name, count: None, class: o.class, width: o.width, origin: o.origin });
            new_vregs.push(nv);
            id
        });
        rename.push(id);
    }
    if new_vregs.is_empty() {
        return (None, "every vreg is one web".to_string());
    }
    let mut g = f.clone();
    g.decls.extend(new_decls);
    g.vregs.extend(new_vregs);
    for_each_occurrence(&mut g, |r| {
        r.vreg = rename[i];
        i += 1;
    });
    let split: Vec<(usize, u32)> = count.iter().enumerate().filter(|(_, c)| **c > 1).map(|(v, c)| (v, *c)).collect();
    mark_assembled(&mut g, &split, n);
    let summary = {
        let total: u32 = split.iter().map(|s| s.1).sum();
        let mut top = split.clone();
        top.sort_by_key(|&(v, c)| (std::cmp::Reverse(c), v));
        let names: Vec<String> = top.iter().take(5).map(|&(v, c)| format!("{} ({c})", f.vregs[v].name)).collect();
        let more =
            if split.len() > names.len() { format!(" and {} more", split.len() - names.len()) } else { String::new() };
        format!(
            "{} vreg(s) reused for unrelated values split into {total} webs: {}{more}",
            split.len(),
            names.join(", ")
        )
    };
    (Some(g), summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(src: &str) -> (Function, String) {
        let m = crate::ir::parse::parse_str(src).expect("parses");
        let ctx = PassCtx { module: &m, sm: &m.sm, maxrregcount: None, cap: None };
        PASS.run_owned(&m.functions[0], &ctx)
    }

    fn names(f: &Function) -> String {
        crate::ir::print::print_function(f)
    }

    #[test]
    fn reused_name_becomes_two_webs_and_joined_values_stay_one() {
        let (f, summary) = split(
            ".target sm_90\n.entry k {\n  .reg .R %r<3>\n  .reg .P %p0\nbb0:\n  %r0 = MOV 1\n  %r1 = IADD3 %r0, %r0, RZ\n  %r0 = MOV 2\n  @%p0 %r0 = MOV 3\n  %r2 = IADD3 %r0, %r1, RZ\n  EXIT\n}\n",
        );
        let text = names(&f);
        assert!(text.contains("%r1 = IADD3 %r0, %r0, RZ"), "{text}");
        // The second value and its predicated redefinition are one web.
        assert!(text.contains("%r0$w1 = MOV 2") && text.contains("@%p0 %r0$w1 = MOV 3"), "{text}");
        assert!(text.contains("%r2 = IADD3 %r0$w1, %r1, RZ"), "{text}");
        assert!(summary.contains("%r0 (2)"), "{summary}");
    }

    #[test]
    fn a_name_rebuilt_from_its_halves_starts_a_new_assembled_web() {
        // Issue 22 (boojum barycentric at 32): %rd0's first value dies at the IADD3;
        // the .lo/.hi defs write all of it again before any read, so they start a new
        // value, which liveness starts at its .lo def (assembled), not at the entry.
        let (f, summary) = split(
            ".target sm_90\n.entry k {\n  .reg .R %r<4>\n  .reg .R.x2 %rd<2>\nbb0:\n  %r0 = S2R SR_TID.X\n  %rd0 = IMAD.WIDE %r0, 4, RZ\n  %r1 = IADD3 %rd0.lo, %rd0.hi, RZ\n  %r2 = IADD3 %r1, 1, RZ\n  %r3 = IADD3 %r1, 2, RZ\n  %rd0.lo = MOV %r2\n  %rd0.hi = MOV %r3\n  %rd1 = IMAD.WIDE %r1, 4, %rd0\n  EXIT\n}\n",
        );
        let text = names(&f);
        assert!(summary.contains("%rd0 (2)"), "{summary}\n{text}");
        assert!(text.contains("%rd0$w1.lo = MOV %r2") && text.contains("%rd0$w1.hi = MOV %r3"), "{text}");
        let w1 = f.vregs.iter().find(|v| &*v.name == "%rd0$w1").expect("the new web");
        assert_ne!(w1.flags & crate::ir::model::vflags::ASSEMBLED, 0, "assembled");
        let cfg = crate::analysis::cfg::build(&f, 1.0);
        let live = liveness::compute(&f, &cfg, &[]);
        let id = VRegId::new(f.vregs.iter().position(|v| &*v.name == "%rd0$w1").expect("web"));
        assert!(!live.files().iter().any(|fl| fl.ids(BlockSet::LiveIn, 0).contains(&id)), "not live at the entry");
        // A half written under a guard, or read before the other half, starts nothing.
        let (_, summary) = split(
            ".target sm_90\n.entry k {\n  .reg .R %r<3>\n  .reg .R.x2 %rd<2>\n  .reg .P %p0\nbb0:\n  %r0 = S2R SR_TID.X\n  %rd0 = IMAD.WIDE %r0, 4, RZ\n  %r1 = IADD3 %rd0.lo, %rd0.hi, RZ\n  %rd0.lo = MOV %r1\n  %r2 = IADD3 %rd0.lo, %rd0.hi, RZ\n  %rd0.hi = MOV %r2\n  %rd1 = IMAD.WIDE %r1, 4, %rd0\n  EXIT\n}\n",
        );
        assert_eq!(summary, "every vreg is one web");
    }

    #[test]
    fn accumulation_chains_keep_their_name() {
        let (_, summary) = split(
            ".target sm_90\n.entry k {\n  .reg .R %r<3>\nbb0:\n  %r0 = MOV 1\n  %r0 = IADD3 %r0, %r0, RZ\n  %r0 = IADD3 %r0, 1, RZ\n  %r1 = IADD3 %r0, %r0, RZ\n  EXIT\n}\n",
        );
        assert_eq!(summary, "every vreg is one web");
    }

    #[test]
    fn values_meeting_at_a_join_stay_one_web() {
        let (f, summary) = split(
            ".target sm_90\n.entry k {\n  .reg .R %r<2>\n  .reg .P %p0\nbb0:\n  @%p0 BRA bb2\nbb1:\n  %r0 = MOV 1\n  BRA bb3\nbb2:\n  %r0 = MOV 2\nbb3:\n  %r1 = IADD3 %r0, %r0, RZ\n  EXIT\n}\n",
        );
        assert_eq!(summary, "every vreg is one web");
        assert!(!names(&f).contains("$w"));
    }
}
