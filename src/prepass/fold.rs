//! `fold`: constants and kernel parameters become instruction operands instead of
//! registers.
//!
//! Measured with nvdisasm on the corpus cubins (ARCHITECTURE.md, "Fidelity"): on sm_80
//! ptxas names almost no uniform register (one ULDC.64 for the global-memory descriptor
//! in most kernels); kernel parameters are read where they are used, as constant-bank
//! operands (`IMAD.WIDE R2, R0, 4, c[0x0][0x160]`), and constants as immediates. NVVM's
//! PTX instead loads every parameter into a register at the entry (`ld.param`, imported
//! as `LDC`) and materializes constants with `mov`, so the imported function carries
//! them as long-lived vregs ptxas never allocates.
//!
//! A vreg is a *constant* when it has exactly one def, a whole-register def that always
//! executes, by `LDC` or a `MOV` (including `MOV.CVTA`) whose one source is a
//! constant-bank operand, an immediate, a symbol or another constant. Each register use
//! of a constant is replaced by that operand when the using instruction has no memory
//! operand, is not a control transfer, and has no other non-register source (a SASS
//! instruction takes one immediate or constant-bank operand). Constants left without
//! uses lose their defining instruction. Uses that cannot fold (addresses, stores)
//! keep the register, whose live range now covers only them.

use crate::ir::opcode::props;
use crate::ir::{Function, Operand, Reg, VRegId};
use crate::prepass::{Pass, PassCtx};

pub const PASS: Pass = Pass {
    name: "fold",
    about: "kernel parameters and constants folded into the instructions that use them (c[0x0][..], immediates)",
    run,
    ori: false,
};

fn is_const_operand(o: &Operand) -> bool {
    matches!(o, Operand::Imm(_) | Operand::FImm(_) | Operand::CBank { .. } | Operand::Sym(_))
}

/// Sources (by index among the sources) of a warp-synchronous operation that take an
/// immediate of their own in SASS: measured in the corpus SASS (cub_warp_reduce,
/// sm_80/sm_90), `shfl.sync.down.b32 lo|p, lo, %r16, %r14, %r30` with `%r16 = 1`,
/// `%r14 = 31`, `%r30 = -1` is `SHFL.DOWN P0, R7, R5, 0x1, 0x1f`: lane and clamp are
/// immediates side by side and a constant member mask is no operand at all (sm_70+
/// encodes a partial mask as a separate `WARPSYNC`). So for `SHFL` (sources `a, b, c,
/// mask`) the last three, and for `VOTE`, `MATCH` and `REDUX` their member mask, the
/// last source. Registers of other values (the shuffled data, a ballot's predicate)
/// stay registers.
fn warp_sync_immediates(mnemonic: &str, nsrc: usize) -> Vec<usize> {
    match mnemonic {
        "SHFL" if nsrc >= 2 => (1..nsrc).collect(),
        "VOTE" | "MATCH" | "REDUX" if nsrc >= 2 => vec![nsrc - 1],
        _ => Vec::new(),
    }
}

fn run(f: &Function, _ctx: &PassCtx) -> (Function, String) {
    let n = f.vregs.len();
    let mut defs = vec![0u32; n];
    for inst in f.blocks.iter().flat_map(|b| &b.insts) {
        inst.for_each_def(|r| {
            if let Some(d) = defs.get_mut(r.vreg.index()) {
                *d += if r.comp.is_none() { 1 } else { 2 };
            }
        });
    }
    // The constant operand each constant vreg stands for; two sweeps reach MOV chains
    // whose links appear out of layout order.
    let mut value: Vec<Option<Operand>> = vec![None; n];
    for _ in 0..2 {
        for inst in f.blocks.iter().flat_map(|b| &b.insts) {
            let m = inst.op.mnemonic();
            if inst.ndefs != 1 || !inst.guard_is_always() || !(m == "LDC" || m == "MOV") || inst.has_side_effects() {
                continue;
            }
            let (Some(Operand::Reg(Reg::V(d))), [src]) = (inst.defs().first(), inst.uses()) else { continue };
            let v = d.vreg.index();
            if d.comp.is_some() || defs[v] != 1 || f.vregs[v].pin.is_some() || f.vregs[v].alias.is_some() {
                continue;
            }
            let val = match src {
                o if is_const_operand(o) => Some(o.clone()),
                Operand::Reg(Reg::V(r)) if r.comp.is_none() => value[r.vreg.index()].clone(),
                _ => None,
            };
            if val.is_some() {
                value[v] = val;
            }
        }
    }
    if value.iter().all(Option::is_none) {
        return (f.clone(), "no constant or parameter register".to_string());
    }
    let mut g = f.clone();
    let mut folded = 0usize;
    let mut touched: Vec<bool> = vec![false; n];
    for blk in &mut g.blocks {
        for inst in &mut blk.insts {
            let info = inst.info();
            if info.is(props::BRANCH) || info.is(props::CALL) || info.is(props::EXIT) || inst.has_side_effects() {
                continue;
            }
            if inst.operands.iter().any(|o| matches!(o, Operand::Mem(_))) {
                continue;
            }
            let nd = inst.ndefs as usize;
            // Warp-synchronous operations encode their lane/clamp and member mask apart
            // from the one immediate slot (below).
            let free = warp_sync_immediates(inst.op.mnemonic(), inst.operands.len() - nd);
            if !free.is_empty() {
                for k in free.into_iter().map(|k| nd + k) {
                    if let Operand::Reg(Reg::V(r)) = &inst.operands[k]
                        && r.comp.is_none()
                        && let Some(val @ Operand::Imm(_)) = value[r.vreg.index()].clone()
                    {
                        touched[r.vreg.index()] = true;
                        inst.operands[k] = val;
                        folded += 1;
                    }
                }
                continue;
            }
            if inst.operands[nd..].iter().any(is_const_operand) {
                continue;
            }
            // One fold per instruction: the first foldable source.
            for k in nd..inst.operands.len() {
                if let Operand::Reg(Reg::V(r)) = &inst.operands[k]
                    && r.comp.is_none()
                    && let Some(val) = value[r.vreg.index()].clone()
                {
                    touched[r.vreg.index()] = true;
                    inst.operands[k] = val;
                    folded += 1;
                    break;
                }
            }
        }
    }
    // Constants without uses lose their defs (repeat: MOV chains die link by link).
    let mut removed = 0usize;
    loop {
        let mut used = vec![false; n];
        for inst in g.blocks.iter().flat_map(|b| &b.insts) {
            inst.for_each_use(|r| used[r.vreg.index()] = true);
        }
        let before = removed;
        for blk in &mut g.blocks {
            blk.insts.retain(|inst| {
                let dead = matches!(inst.defs().first(), Some(Operand::Reg(Reg::V(d)))
                    if inst.ndefs == 1 && value[d.vreg.index()].is_some() && !used[d.vreg.index()]);
                if dead {
                    removed += 1;
                }
                !dead
            });
        }
        if removed == before {
            break;
        }
    }
    let names: Vec<String> =
        (0..n).filter(|&i| touched[i]).take(6).map(|i| g.vreg(VRegId::new(i)).name.clone()).collect();
    let summary = format!(
        "{folded} use(s) of constants and parameters folded into their instructions ({}…), {removed} defining instruction(s) removed",
        names.join(", ")
    );
    (g, summary)
}
