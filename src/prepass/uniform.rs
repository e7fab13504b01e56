//! `uniform`: warp-uniform values move from the general file to uniform registers
//! (sm_75 and later).
//!
//! Seed 000, "Pipeline Position", names ConvertMemoryToRegisterOrUniform before
//! allocation; measured on the corpus with nvdisasm (ARCHITECTURE.md, "Fidelity"):
//! ptxas keeps kernel parameters (ULDC), values computed only from them and from block
//! indices (strides, loop bounds, shared-memory bases) in UR registers — up to 35 at
//! once on the corpus — off the R file.
//!
//! A vreg is promoted when it has exactly one def, a whole-register def that always
//! executes, by an instruction that has a uniform datapath form, and every source is
//! uniform: an immediate, a constant-bank operand, a symbol (an address), a uniform
//! special register (`SR_CTAID.*`, `SR_NCTAID.*`, `SR_NTID.*`), or an already-uniform
//! vreg. Loads other than `LDC`, thread-dependent special registers and anything with
//! side effects keep their result in R. Of those, only what ptxas computes on the uniform
//! datapath moves: arithmetic results (`UIMAD UR10, UR7, UR6`, `UIADD3`, `UIMAD.WIDE` in
//! stencil25's SASS) and the copies that only feed such arithmetic (the `ULDC` before
//! them); plain constants, parameter copies and `SR_CTAID` reads used elsewhere stay
//! immediates, constant-bank operands or R registers (`IMAD.MOV.U32 R5, RZ, RZ, 0x4`,
//! `S2R R2, SR_CTAID.X` on sm_80). Promotion stops when the UR file's pressure would
//! exceed [`UR_LIMIT`] (a prefix of the candidates in program order is promoted).

use crate::analysis::{cfg, liveness};
use crate::ir::{Function, Operand, Reg, RegClass, RegFile, VRegId};
use crate::prepass::{Pass, PassCtx};

pub const PASS: Pass = Pass {
    name: "uniform",
    about: "warp-uniform values (parameters, block indices, what is computed from them) to UR registers",
    run,
    ori: false,
};

/// Most UR registers the promoted values may need at once. ptxas's UR file has 63
/// allocatable registers (seed 000); the corpus peaks at 35 uniform values live at once
/// (nvdisasm --print-life-ranges), so the pass leaves headroom below the file's size.
pub const UR_LIMIT: u32 = 40;

/// Mnemonics with a uniform-datapath form (U* SASS instructions on sm_75+): integer
/// ALU, moves and constant loads. Floating-point arithmetic has no uniform form.
const UNIFORM_OPS: &[&str] = &[
    "IADD3", "IMAD", "LDC", "LEA", "LOP3", "MOV", "SEL", "SHF", "SHL", "SHR", "IABS", "IMNMX", "PRMT", "BREV", "FLO",
    "POPC",
];

pub(crate) fn uniform_special(s: &str) -> bool {
    ["SR_CTAID", "SR_NCTAID", "SR_NTID", "SR_NCLUSTERID", "SR_CLUSTERID"].iter().any(|p| s.starts_with(p))
}

fn run(f: &Function, ctx: &PassCtx) -> (Option<Function>, String) {
    if !ctx.sm.has_uniform_registers() {
        return (None, format!("{} has no uniform registers", ctx.sm));
    }
    let cands = computed(f, candidates(f));
    if cands.is_empty() {
        return (None, "no warp-uniform value".to_string());
    }
    // The longest prefix (in program order) whose UR pressure fits.
    let (mut lo, mut hi) = (0usize, cands.len());
    let fits = |k: usize| ur_pressure(&promote(f, &cands[..k])) <= UR_LIMIT;
    if fits(hi) {
        lo = hi;
    } else {
        while lo < hi {
            let mid = (lo + hi).div_ceil(2);
            if fits(mid) { lo = mid } else { hi = mid - 1 }
        }
    }
    let g = promote(f, &cands[..lo]);
    let words: u32 = cands[..lo].iter().map(|&v| f.vreg(v).width as u32).sum();
    let capped = if lo < cands.len() {
        format!(" ({} more left in R: UR pressure limit {UR_LIMIT})", cands.len() - lo)
    } else {
        String::new()
    };
    (
        Some(g),
        format!(
            "{lo} warp-uniform vreg(s), {words} register(s), moved to UR: {}{capped}",
            crate::prepass::name_list(f, &cands[..lo])
        ),
    )
}

/// Uniform vregs of the R file, in the program order of their defs.
fn candidates(f: &Function) -> Vec<VRegId> {
    let n = f.vregs.len();
    let mut defs = vec![0u32; n];
    for inst in f.blocks.iter().flat_map(|b| &b.insts) {
        inst.for_each_def(|r| {
            if let Some(d) = defs.get_mut(r.vreg.index()) {
                *d += if r.comp.is_none() { 1 } else { 2 };
            }
        });
    }
    let mut uniform = vec![false; n];
    let mut order = Vec::new();
    // Defs come before uses in layout order for straight-line code; a second sweep
    // catches values whose sources are defined later in layout (loops).
    for _ in 0..2 {
        for inst in f.blocks.iter().flat_map(|b| &b.insts) {
            if inst.ndefs != 1 || !inst.guard_is_always() || inst.has_side_effects() {
                continue;
            }
            let Some(Operand::Reg(Reg::V(d))) = inst.defs().first() else { continue };
            let v = d.vreg.index();
            if d.comp.is_some()
                || uniform[v]
                || defs[v] != 1
                || f.vregs[v].class != RegClass::R
                || f.vregs[v].alias.is_some()
                || f.vregs[v].pin.is_some()
            {
                continue;
            }
            let m = inst.op.mnemonic();
            let uniform_s2r =
                m == "S2R" && inst.uses().iter().all(|o| matches!(o, Operand::Special(s) if uniform_special(s)));
            if !UNIFORM_OPS.contains(&m) && !uniform_s2r {
                continue;
            }
            let ok = inst.uses().iter().all(|o| match o {
                Operand::Imm(_) | Operand::FImm(_) | Operand::CBank { .. } | Operand::Sym(_) => true,
                Operand::Special(s) => uniform_special(s),
                Operand::Reg(Reg::V(r)) => uniform.get(r.vreg.index()).copied().unwrap_or(false),
                Operand::Reg(Reg::P(p)) => p.is_zero(),
                Operand::Mem(_) => false,
            });
            if ok {
                uniform[v] = true;
                order.push(d.vreg);
            }
        }
    }
    order
}

/// Of the uniform candidates, those ptxas computes on the uniform datapath: results of
/// arithmetic (not plain copies of constants, parameters or special registers, which
/// stay immediates, constant-bank operands or R registers), and the copies whose every
/// use is such an arithmetic instruction (the `ULDC` feeding a `UIMAD`).
fn computed(f: &Function, cands: Vec<VRegId>) -> Vec<VRegId> {
    let n = f.vregs.len();
    let mut cand = vec![false; n];
    for v in &cands {
        cand[v.index()] = true;
    }
    let mut def_op: Vec<Option<&str>> = vec![None; n];
    for inst in f.blocks.iter().flat_map(|b| &b.insts) {
        if let Some(Operand::Reg(Reg::V(d))) = inst.defs().first()
            && cand[d.vreg.index()]
        {
            def_op[d.vreg.index()] = Some(inst.op.mnemonic());
        }
    }
    let copy = |v: usize| matches!(def_op[v], Some("MOV" | "LDC" | "S2R"));
    let mut keep: Vec<bool> = (0..n).map(|v| cand[v] && !copy(v)).collect();
    // A copy is kept when every use is in the def of a kept computation.
    let mut used_elsewhere = vec![false; n];
    for inst in f.blocks.iter().flat_map(|b| &b.insts) {
        let into_kept = matches!(inst.defs().first(), Some(Operand::Reg(Reg::V(d))) if keep[d.vreg.index()]);
        inst.for_each_use(|r| {
            if !into_kept {
                used_elsewhere[r.vreg.index()] = true;
            }
        });
    }
    for v in 0..n {
        if cand[v] && copy(v) && !used_elsewhere[v] {
            keep[v] = true;
        }
    }
    cands.into_iter().filter(|v| keep[v.index()]).collect()
}

fn promote(f: &Function, vs: &[VRegId]) -> Function {
    let mut g = f.clone();
    for &v in vs {
        g.vregs[v.index()].class = RegClass::UR;
    }
    g
}

fn ur_pressure(f: &Function) -> u32 {
    let c = cfg::build(f, 1.0);
    let live = liveness::compute(f, &c, &[]);
    live.max_pressure(f, RegFile::UR).0
}
