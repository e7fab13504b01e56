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

fn run(f: &Function, _ctx: &PassCtx) -> (Function, String) {
    let c = crate::analysis::cfg::build(f, 1.0);
    let live = crate::analysis::liveness::compute(f, &c, &[]);
    let mut defs = vec![0u32; f.vregs.len()];
    for inst in f.blocks.iter().flat_map(|b| &b.insts) {
        inst.for_each_def(|r| defs[r.vreg.index()] += 1);
    }
    let mut g = f.clone();
    let mut moved = Vec::new();
    for (b, blk) in g.blocks.iter_mut().enumerate() {
        let out = live.live_out(b);
        let live_out = |v: VRegId| out.contains(v);
        let mut i = blk.insts.len();
        while i > 0 {
            i -= 1;
            if !cheap(&blk.insts[i]) {
                continue;
            }
            let Some(Operand::Reg(Reg::V(d))) = blk.insts[i].defs().first().cloned() else { continue };
            if d.comp.is_some() || defs[d.vreg.index()] != 1 || f.vregs[d.vreg.index()].pin.is_some() {
                continue;
            }
            let mut srcs = Vec::new();
            blk.insts[i].for_each_use(|r| srcs.push(r.vreg));
            let Some(j) = first_use(&blk.insts, i, d.vreg, &srcs) else { continue };
            if j > i + 1 && srcs.iter().all(|&s| live_at(&blk.insts, j, s, &live_out)) {
                let x = blk.insts.remove(i);
                blk.insts.insert(j - 1, x);
                moved.push(d.vreg);
            }
        }
    }
    let summary = if moved.is_empty() {
        "no cheap value to compute later".to_string()
    } else {
        format!(
            "{} cheap value(s) computed just before their first use: {}",
            moved.len(),
            crate::prepass::name_list(&g, &moved)
        )
    };
    (g, summary)
}

/// The first instruction after `i` that reads `v`, if no instruction before it redefines
/// `v` or a source, or ends the block's straight line.
fn first_use(insts: &[Inst], i: usize, v: VRegId, srcs: &[VRegId]) -> Option<usize> {
    for (j, later) in insts.iter().enumerate().skip(i + 1) {
        let mut uses = false;
        later.for_each_use(|r| uses |= r.vreg == v);
        if uses {
            return Some(j);
        }
        let mut clash = false;
        later.for_each_def(|r| clash |= srcs.contains(&r.vreg) || r.vreg == v);
        if clash || later.is_terminator() {
            return None;
        }
    }
    None
}

/// Whether `s` is live just before instruction `j` of the block: read at or after `j`
/// before any redefinition, or live out of the block and not redefined.
fn live_at(insts: &[Inst], j: usize, s: VRegId, live_out: &dyn Fn(VRegId) -> bool) -> bool {
    for inst in &insts[j..] {
        let mut uses = false;
        inst.for_each_use(|r| uses |= r.vreg == s);
        if uses {
            return true;
        }
        let mut redefined = false;
        inst.for_each_def(|r| redefined |= r.vreg == s && r.comp.is_none());
        if redefined {
            return false;
        }
    }
    live_out(s)
}
