//! Dead-code elimination combined with liveness, as ptxas's OriPerformLiveDead does
//! (seed 004, "Phases 16, 33, 61, 84: OriPerformLiveDead", "DCE Integration",
//! "Side-Effect Preservation").
//!
//! Owns the decision "this instruction is dead" and its removal; it must not know about
//! allocation. Optional in the pipeline: the engine runs it only when asked.
//!
//! An instruction is removed when it has no side effects (`Inst::has_side_effects`:
//! stores, barriers, control flow, calls, textures with side effects, volatile, unknown
//! opcodes), has at least one destination, and every destination is dead:
//! * a vreg destination (whole or component, guarded or not) is dead when the vreg is
//!   not in the live set just after the instruction;
//! * a physical destination is dead only if it is the zero/true register (RZ, PT, ...):
//!   a write to any other physical register may be observed by the ABI;
//! * a barrier-file vreg takes no part in liveness, so it is never proven dead.
//!
//! Instructions without destinations and without side effects (NOP) are kept: there
//! is no dead value to justify removing them.
//!
//! Each block is walked backward from its live-out; a removed instruction's sources
//! are *not* added to the live set, so the instructions feeding only it die in the
//! same walk (the cascade the seed describes). Because removal can shrink other
//! blocks' live-outs, liveness is recomputed and the walk repeated until a round
//! removes nothing.

use crate::analysis::cfg::Cfg;
use crate::analysis::liveness::{Liveness, compute_with};
use crate::analysis::liveset::LiveSet;
use crate::analysis::query::BlockWalk;
use crate::ir::model::{Function, Inst, Operand, Reg, VRegId};
use crate::ir::print::print_inst;

/// One removed instruction, with its position in the function *before* DCE ran.
#[derive(Clone, Debug, PartialEq)]
pub struct Removed {
    pub block: usize,
    /// Index within the block before DCE.
    pub index: usize,
    /// Program point before DCE.
    pub point: u32,
    pub inst: Inst,
    /// The instruction as Ori IR text (`ir::print::print_inst`).
    pub text: String,
    /// The PTX line it came from, if known.
    pub origin: Option<u32>,
}

/// What a DCE run removed, ordered by original position.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct DceReport {
    pub removed: Vec<Removed>,
    /// Liveness + sweep rounds run (the last one removes nothing).
    pub rounds: u32,
}

/// Removes dead instructions from `f` until none is left. `cfg` must be `f`'s CFG; it
/// stays valid because control flow is a side effect and is never removed.
pub fn run(f: &mut Function, cfg: &Cfg, exit_live: &[VRegId]) -> DceReport {
    let layout = f.layout();
    // Original index of every instruction still present.
    let mut orig: Vec<Vec<usize>> = f.blocks.iter().map(|b| (0..b.insts.len()).collect()).collect();
    let mut report = DceReport::default();
    loop {
        report.rounds += 1;
        let live = compute_with(f, cfg, exit_live, false, usize::MAX);
        let mut any = false;
        let mut walk = BlockWalk::new(&live);
        for (b, orig_b) in orig.iter_mut().enumerate() {
            let dead = dead_in_block(f, &live, b, &mut walk);
            if dead.iter().all(|d| !d) {
                continue;
            }
            any = true;
            let insts = std::mem::take(&mut f.blocks[b].insts);
            let old_orig = std::mem::take(orig_b);
            for ((inst, o), d) in insts.into_iter().zip(old_orig).zip(dead) {
                if d {
                    let text = print_inst(f, &inst);
                    report.removed.push(Removed {
                        block: b,
                        index: o,
                        point: layout.point(b, o),
                        origin: inst.origin,
                        text,
                        inst,
                    });
                } else {
                    f.blocks[b].insts.push(inst);
                    orig_b.push(o);
                }
            }
        }
        if !any {
            break;
        }
    }
    report.removed.sort_by_key(|r| (r.block, r.index));
    report
}

/// The backward walk of block `b` with cascading: which instructions are dead.
fn dead_in_block(f: &Function, live: &Liveness, b: usize, walk: &mut BlockWalk) -> Vec<bool> {
    let blk = &f.blocks[b];
    let mut dead = vec![false; blk.insts.len()];
    walk.start(live, b);
    for (i, inst) in blk.insts.iter().enumerate().rev() {
        if is_dead(live, inst, walk.live()) {
            dead[i] = true;
        } else {
            walk.step_back(live, inst, |_, _| {});
        }
    }
    dead
}

/// Whether `inst` is removable given the set live just after it.
pub fn is_dead(live: &Liveness, inst: &Inst, after: &LiveSet) -> bool {
    if inst.has_side_effects() || inst.ndefs == 0 {
        return false;
    }
    inst.defs().iter().all(|d| match d {
        Operand::Reg(Reg::V(r)) => live.is_tracked(r.vreg) && !after.contains(r.vreg),
        Operand::Reg(Reg::P(p)) => p.is_zero(),
        _ => false,
    })
}
