//! Which values can differ between the threads of a warp, and which blocks run under a
//! branch that can split a warp (a *divergent region*).
//!
//! Why it matters (issue 23 rule 19, ARCHITECTURE.md): ptxas 13.0.88 compiles a
//! `shfl.sync` or `vote.sync` that runs under a thread-dependent branch as a check and a
//! slow path — `BRA.DIV ~URZ` (or `BRA.CONV`) to a `CALL.REL.NOINC` of a ptxas-internal
//! routine (`$__cuda_sm70_shflsync_down_p`, `…_votesync_ballot`, …) whose registers
//! count in the kernel's — and a converged one as the bare `SHFL`. Measured on hand-made
//! kernels (sm_80): a shuffle at the top level, after a loop with a thread-dependent trip
//! count, after an early `return`, or under a branch on a kernel parameter is the bare
//! `SHFL`; the same shuffle inside `if (threadIdx.x < 64)` calls the routine (Used 10
//! for 8; three shuffles there, 12).
//!
//! The model: a value is *thread-dependent* when it is read from a special register that
//! differs by lane (`%tid`, `%laneid`, the lane masks), returned by an atomic or a
//! shuffle, loaded through a thread-dependent address, computed from a thread-dependent
//! value or under a thread-dependent guard, or defined inside a divergent region (after
//! the region the threads may hold different definitions). A block ends in a *divergent
//! branch* when its conditional branch reads a thread-dependent predicate and neither of
//! its targets only exits (threads that leave do not wait for the others: the early
//! `return` above is no divergence). Its region: the blocks reachable from its
//! successors before its immediate post-dominator, where the warp reconverges. The two
//! definitions depend on each other; both are iterated to a fixed point. A vote's result
//! is the same in every participating thread and is not thread-dependent.
//!
//! Owns the divergence rule; knows the IR and the CFG only.

use crate::analysis::cfg::{self, Cfg};
use crate::ir::model::{Function, Inst, Operand, Reg};
use crate::ir::opcode::props;

/// Per vreg whether it is thread-dependent, per block whether it lies in a divergent
/// region.
#[derive(Clone, Debug, PartialEq)]
pub struct Divergence {
    pub values: Vec<bool>,
    pub blocks: Vec<bool>,
}

impl Divergence {
    /// Whether `inst` of block `b` may run with part of its warp: its block lies in a
    /// divergent region or its guard is thread-dependent (a branch turned into a guard).
    pub fn partial(&self, b: usize, inst: &Inst) -> bool {
        self.blocks.get(b).copied().unwrap_or(false) || self.guard_divergent(inst)
    }

    fn guard_divergent(&self, inst: &Inst) -> bool {
        match inst.guard {
            Some(crate::ir::model::Guard { reg: Reg::V(r), .. }) => self.values[r.vreg.index()],
            _ => false,
        }
    }
}

/// Special registers whose value differs between the lanes of a warp.
fn lane_special(s: &str) -> bool {
    ["SR_TID", "SR_LANEID", "SR_EQMASK", "SR_LEMASK", "SR_LTMASK", "SR_GEMASK", "SR_GTMASK"]
        .iter()
        .any(|p| s.starts_with(p))
}

/// Whether `inst`'s results differ by lane whatever its sources.
fn source_of_divergence(inst: &Inst) -> bool {
    let info = inst.info();
    let m = inst.op.mnemonic();
    info.is(props::ATOMIC)
        || matches!(m, "SHFL" | "MATCH")
        || inst.operands.iter().any(|o| matches!(o, Operand::Special(s) if lane_special(s.as_str())))
}

/// Whether `inst`'s results are the same in every lane that runs it whatever its
/// sources (a vote, a warp reduction).
fn warp_uniform_result(inst: &Inst) -> bool {
    matches!(inst.op.mnemonic(), "VOTE" | "REDUX")
}

/// Whether block `b` only leaves the function (its instructions are exits).
fn only_exits(f: &Function, b: usize) -> bool {
    let insts = &f.blocks[b].insts;
    !insts.is_empty() && insts.iter().all(|i| i.info().is(props::EXIT))
}

/// The divergence of `f` over its CFG `c`.
pub fn compute(f: &Function, c: &Cfg) -> Divergence {
    let n = f.blocks.len();
    let ipdom = cfg::post_dominators(c);
    let nv = f.vregs.len();
    let mut d = Divergence { values: vec![false; nv], blocks: vec![false; n] };
    // The instructions that read each vreg, flat (`start[v]..start[v + 1]`): a value that
    // turns thread-dependent revisits only its readers, so the fixed point costs the
    // function's reads, not passes × instructions (a chain against the layout order
    // would need a pass per link).
    let mut start = vec![0u32; nv + 1];
    for blk in &f.blocks {
        for inst in &blk.insts {
            inst.for_each_use(|r| start[r.vreg.index() + 1] += 1);
        }
    }
    for v in 0..nv {
        start[v + 1] += start[v];
    }
    let mut fill = start.clone();
    let mut readers = vec![(0u32, 0u32); start[nv] as usize];
    for (b, blk) in f.blocks.iter().enumerate() {
        for (i, inst) in blk.insts.iter().enumerate() {
            inst.for_each_use(|r| {
                let at = &mut fill[r.vreg.index()];
                readers[*at as usize] = (b as u32, i as u32);
                *at += 1;
            });
        }
    }
    let mut work: Vec<(u32, u32)> = Vec::new();
    for (b, blk) in f.blocks.iter().enumerate() {
        work.extend((0..blk.insts.len()).map(|i| (b as u32, i as u32)));
    }
    loop {
        // Values, given the regions.
        while let Some((b, i)) = work.pop() {
            crate::work::add(1);
            let (b, inst) = (b as usize, &f.blocks[b as usize].insts[i as usize]);
            if inst.ndefs == 0 || warp_uniform_result(inst) {
                continue;
            }
            let mut div = d.blocks[b] || source_of_divergence(inst);
            if !div {
                inst.for_each_use(|r| div |= d.values[r.vreg.index()]);
            }
            if div {
                inst.for_each_def(|r| {
                    let v = r.vreg.index();
                    if !d.values[v] {
                        d.values[v] = true;
                        work.extend_from_slice(&readers[start[v] as usize..start[v + 1] as usize]);
                    }
                });
            }
        }
        // Regions, given the values.
        let mut blocks = vec![false; n];
        // Per branch its own walk (a block another region holds may lead on into this
        // one): stamped with the branch's block, no set cleared per branch.
        let mut seen = vec![usize::MAX; n];
        for (b, blk) in f.blocks.iter().enumerate() {
            let Some(last) = blk.insts.last() else { continue };
            if c.succs[b].len() < 2 || !last.info().is(props::BRANCH) || !d.guard_divergent(last) {
                continue;
            }
            if c.succs[b].iter().any(|&s| only_exits(f, s)) {
                continue;
            }
            let stop = ipdom[b];
            let mut stack: Vec<usize> = c.succs[b].clone();
            while let Some(x) = stack.pop() {
                if Some(x) == stop || seen[x] == b {
                    continue;
                }
                seen[x] = b;
                blocks[x] = true;
                crate::work::add(1);
                stack.extend(c.succs[x].iter().copied());
            }
        }
        // Regions only grow with the values, and values with the regions: stop when
        // neither does.
        let mut grew = false;
        for (b, (a, x)) in d.blocks.iter_mut().zip(blocks).enumerate() {
            if x && !*a {
                grew = true;
                // Its definitions are thread-dependent now: visit them again.
                work.extend((0..f.blocks[b].insts.len()).map(|i| (b as u32, i as u32)));
            }
            *a |= x;
        }
        if !grew {
            return d;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn module(body: &str) -> Function {
        let text = format!(".target sm_80\n.entry k {{\n  .reg .R %r<8>\n  .reg .P %p<2>\n{body}}}\n");
        crate::ir::parse::parse_str(&text).expect("parses").functions[0].clone()
    }

    fn divergence(body: &str) -> (Function, Divergence) {
        let f = module(body);
        let d = compute(&f, &cfg::build(&f, 1.0));
        (f, d)
    }

    fn value(f: &Function, d: &Divergence, name: &str) -> bool {
        let i = f.vregs.iter().position(|v| v.name.as_ref() as &str == name).expect("vreg");
        d.values[i]
    }

    #[test]
    fn a_branch_on_the_thread_index_makes_a_region_up_to_the_join() {
        let (f, d) = divergence(
            "BB0:
  %r0 = S2R SR_TID.X
  %r1 = S2R SR_CTAID.X
  %p0 = ISETP.GT.U32 %r0, 63
  @%p0 BRA BB2
BB1:
  %r2 = IADD3 %r1, 1
BB2:
  %r3 = IADD3 %r1, 2
  EXIT
",
        );
        assert!(value(&f, &d, "%r0") && value(&f, &d, "%p0"));
        assert!(!value(&f, &d, "%r1") && !value(&f, &d, "%r3"));
        assert!(value(&f, &d, "%r2"), "defined inside the region");
        assert_eq!(d.blocks, vec![false, true, false]);
    }

    #[test]
    fn a_branch_on_a_parameter_or_to_an_exit_is_no_divergence() {
        let (_, d) = divergence(
            "BB0:
  %r0 = LDC c[0x0][0x170]
  %p0 = ISETP.GT.U32 %r0, 3
  @%p0 BRA BB2
BB1:
  %r1 = IADD3 %r0, 1
BB2:
  EXIT
",
        );
        assert_eq!(d.blocks, vec![false, false, false], "uniform predicate");
        let (_, d) = divergence(
            "BB0:
  %r0 = S2R SR_TID.X
  %p0 = ISETP.GT.U32 %r0, 63
  @%p0 BRA BB2
BB1:
  %r1 = IADD3 %r0, 1
  EXIT
BB2:
  EXIT
",
        );
        assert_eq!(d.blocks, vec![false, false, false], "the taken side only exits");
    }

    #[test]
    fn a_loop_carries_thread_dependence_back_to_earlier_reads() {
        let (f, d) = divergence(
            "BB0:
  %r1 = MOV 0
BB1:
  %r2 = IADD3 %r1, 1
  %r0 = S2R SR_TID.X
  %r1 = IADD3 %r0, %r2
  %p0 = ISETP.LT.U32 %r2, 100
  @%p0 BRA BB1
BB2:
  %r3 = IADD3 %r1, 2
  EXIT
",
        );
        assert!(value(&f, &d, "%r2") && value(&f, &d, "%p0"), "through the back edge");
        assert_eq!(d.blocks, vec![false, true, false], "the loop runs while some lanes stay");
    }

    #[test]
    fn post_dominators_meet_at_the_join_or_the_end() {
        let f = module(
            "BB0:
  %r0 = S2R SR_TID.X
  %p0 = ISETP.GT.U32 %r0, 63
  @%p0 BRA BB2
BB1:
  %p1 = ISETP.GT.U32 %r0, 7
  @%p1 BRA BB3
BB2:
  %r1 = IADD3 %r0, 1
BB3:
  EXIT
",
        );
        let c = cfg::build(&f, 1.0);
        assert_eq!(cfg::post_dominators(&c), vec![Some(3), Some(3), Some(3), None]);
        let d = compute(&f, &c);
        assert_eq!(d.blocks, vec![false, true, true, false], "nested regions end at the same join");
    }

    #[test]
    fn a_vote_is_uniform_and_a_shuffle_is_not() {
        let (f, d) = divergence(
            "BB0:
  %r0 = S2R SR_TID.X
  %p0 = ISETP.GT.U32 %r0, 63
  %r1 = VOTE.ANY %p0
  %r2 = SHFL.DOWN %r1, 1, 31
  EXIT
",
        );
        assert!(!value(&f, &d, "%r1"));
        assert!(value(&f, &d, "%r2"));
    }
}
