//! Bit-spills: predicates kept in general registers when more are live than the
//! predicate file holds (seed 003, "Spill-Refill Pattern Optimization": instruction type
//! 10, "Bit-spill — single-bit spill (predicate register spill to GPR)"; seed 002,
//! class PRED: "only 7-8 predicates available, often causing spills to boolean registers
//! (GPR32 with 0/1 values)").
//!
//! Owns: choosing which predicate vregs to demote and rewriting them — after each def
//! `%p$b = P2R %p` (under the def's guard), before each read `%p$u = ISETP.NE.AND %p$b,
//! RZ, PT` and the read renamed. Must not know: how the classes are allocated; the
//! driver runs this once, before the first class, and reports it as an event.
//!
//! Why before allocation, not as the P class's spill code: the predicate file is
//! allocated after the R file (seed 000's class order), so a spill of P into R found
//! there would need the R class again. ptxas's own SASS for a loop reading ten
//! loop-invariant predicates (measured with nvdisasm, ARCHITECTURE.md "Bit-spills")
//! packs the ones it cannot keep with `P2R R2, PR, RZ, 0x4` before the loop and restores
//! each with `ISETP.NE.AND P5, PT, R0, RZ, PT` where it is read: 12 registers, no local
//! memory. radbg used to spill them to local memory and report the whole budget.
//! radbg gives each demoted predicate its own 32-bit register (ptxas packs up to seven
//! per register with masks: a documented departure, conservative by a few registers).
//!
//! The choice is greedy on the P pressure profile: while some point holds more live
//! predicates than the file, demote the vreg live at the most over-full points per
//! def and use (loop-weighted), lowest id on ties; then check with fresh liveness and
//! repeat (at most a few rounds; each round only lowers the peak).

use crate::alloc::ranges::Ranges;
use crate::analysis;
use crate::ir::model::{Function, Inst, Operand, PhysReg, Reg, RegClass, RegFile, VRegId};
use crate::ir::opcode::Opcode;

/// One predicate kept in a general register.
#[derive(Clone, Debug, PartialEq)]
pub struct BitSpill {
    pub vreg: VRegId,
    /// The R vreg that holds it (0 or 1).
    pub gpr: VRegId,
    /// `P2R` copies inserted (one per def) and `ISETP` restores (one per reading
    /// instruction).
    pub stores: u32,
    pub restores: u32,
}

/// The most rounds of demotion and re-analysis (each lowers the peak; real kernels need
/// one).
const MAX_ROUNDS: usize = 4;

/// Demotes predicate vregs of `f` until the P pressure fits `budget` registers (the
/// predicate file: seven). `exit_live` and `loop_weight` as for liveness.
pub fn demote(f: &mut Function, budget: u32, exit_live: &[VRegId], loop_weight: f64) -> Vec<BitSpill> {
    let mut out: Vec<BitSpill> = Vec::new();
    // Only the function's own predicates are candidates, never a restore temporary.
    let original = f.vregs.len();
    for _ in 0..MAX_ROUNDS {
        let cfg = analysis::cfg::build(f, loop_weight);
        let live = analysis::liveness::compute_defined(f, &cfg, exit_live);
        let ranges = Ranges::build(f, &live);
        let mut pressure = ranges.pressure(f, RegFile::P, |_| true);
        if pressure.iter().all(|&p| p <= budget) {
            break;
        }
        let freq = block_point_freq(f, &cfg.freq);
        let mut aliased = vec![false; f.vregs.len()];
        for r in &f.vregs {
            if let Some(a) = r.alias.filter(|a| a.index() < aliased.len()) {
                aliased[a.index()] = true;
            }
        }
        let mut chosen = Vec::new();
        let mut candidates: Vec<VRegId> = (0..f.vregs.len())
            .map(VRegId::new)
            .filter(|&v| {
                let r = &f.vregs[v.index()];
                v.index() < original
                    && r.class == RegClass::P
                    && r.pin.is_none()
                    && ranges.is_root(v)
                    && r.alias.is_none()
                    && !aliased[v.index()]
                    && !out.iter().any(|b| b.vreg == v)
            })
            .collect();
        // Each candidate's loop-weighted defs and uses, counted once per round: asked
        // per pick and candidate it made this loop quadratic in the function's length
        // (a third of a reduction's time on a 43k-instruction kernel).
        let touched = touches(f, &freq);
        while pressure.iter().any(|&p| p > budget) {
            // Score: over-full points covered per (loop-weighted) def and use.
            let best = candidates
                .iter()
                .enumerate()
                .filter_map(|(k, &v)| {
                    let over: u32 = ranges
                        .segments(v)
                        .iter()
                        .map(|&(a, b)| {
                            (a..b).filter(|&p| pressure.get(p as usize).is_some_and(|&x| x > budget)).count() as u32
                        })
                        .sum();
                    (over > 0).then(|| (k, over as f64 / (1.0 + touched.get(v.index()).copied().unwrap_or(0.0))))
                })
                .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)));
            let Some((k, _)) = best else { break };
            let v = candidates.remove(k);
            for &(a, b) in ranges.segments(v) {
                for p in a..b {
                    if let Some(x) = pressure.get_mut(p as usize) {
                        *x = x.saturating_sub(1);
                    }
                }
            }
            chosen.push(v);
        }
        if chosen.is_empty() {
            break;
        }
        chosen.sort();
        for v in chosen {
            out.push(rewrite(f, v));
        }
    }
    out
}

/// Per vreg, the loop-weighted count of the instructions that define or read it (an
/// instruction that names it twice counts once), summed in block and instruction order.
fn touches(f: &Function, freq: &[f64]) -> Vec<f64> {
    let mut n = vec![0.0; f.vregs.len()];
    // The last instruction (numbered across the function) that counted each vreg.
    let mut last = vec![usize::MAX; f.vregs.len()];
    let mut at = 0usize;
    for (b, blk) in f.blocks.iter().enumerate() {
        let w = freq.get(b).copied().unwrap_or(1.0);
        for i in &blk.insts {
            let mut count = |r: crate::ir::model::RegRef| {
                let k = r.vreg.index();
                if k < n.len() && last[k] != at {
                    last[k] = at;
                    n[k] += w;
                }
            };
            i.for_each_use(&mut count);
            i.for_each_def(&mut count);
            at += 1;
        }
    }
    n
}

fn block_point_freq(f: &Function, freq: &[f64]) -> Vec<f64> {
    (0..f.blocks.len()).map(|b| freq.get(b).copied().unwrap_or(1.0)).collect()
}

/// RZ or PT: the zero register of `file`.
fn zero(file: RegFile) -> Operand {
    let index = file.zero_register().unwrap_or(0);
    Operand::Reg(Reg::P(PhysReg { file, index }))
}

/// Rewrites `v`: its value is copied into a fresh R vreg after each def and restored
/// into a fresh predicate before each instruction that reads it.
fn rewrite(f: &mut Function, v: VRegId) -> BitSpill {
    let name = f.vregs[v.index()].name.to_string();
    let origin = f.vregs[v.index()].origin;
    let gpr = f.add_vreg(format!("{name}$b"), RegClass::R, 1);
    f.vregs[gpr.index()].origin = origin;
    let (p2r, isetp) = (Opcode::named("P2R"), Opcode::named("ISETP"));
    let (mut stores, mut restores) = (0u32, 0u32);
    for b in 0..f.blocks.len() {
        let old = std::mem::take(&mut f.blocks[b].insts);
        let mut out = Vec::with_capacity(old.len());
        for mut inst in old {
            let mut reads = false;
            inst.for_each_use(|r| reads |= r.vreg == v);
            if reads {
                let t = f.add_vreg(format!("{name}$u{restores}"), RegClass::P, 1);
                f.vregs[t.index()].origin = inst.origin;
                let mut r = Inst::new(
                    isetp,
                    vec![Operand::vreg(t)],
                    vec![Operand::vreg(gpr), zero(RegFile::R), zero(RegFile::P)],
                );
                r.mods = ".NE.AND".into();
                r.origin = inst.origin;
                out.push(r);
                inst.for_each_use_mut(|r| {
                    if r.vreg == v {
                        r.vreg = t;
                    }
                });
                restores += 1;
            }
            let mut writes = false;
            inst.for_each_def(|r| writes |= r.vreg == v);
            let (guard, origin) = (inst.guard, inst.origin);
            out.push(inst);
            if writes {
                let mut s = Inst::new(p2r, vec![Operand::vreg(gpr)], vec![Operand::vreg(v)]);
                s.guard = guard;
                s.origin = origin;
                out.push(s);
                stores += 1;
            }
        }
        f.blocks[b].insts = out;
    }
    BitSpill { vreg: v, gpr, stores, restores }
}
