//! `slowpath`: the operations ptxas 13.0.88 implements as internal subroutines, whose
//! registers count in the calling kernel's `Used N registers`.
//!
//! Measured (ARCHITECTURE.md, "Fidelity", rule 1 of issue 23), with nvdisasm on cubins the
//! corpus ptxas wrote for the gate's development part: `div.rn.f32`, `sqrt.rn.f32`,
//! `rcp.rn.f32` (and their `.ftz` forms), 64-bit and 16-bit integer `div`/`rem`, and
//! `div.rn`/`rcp.rn`/`sqrt.rn` on `.f64` are not inlined. The kernel branches to a
//! ptxas-internal routine (`CALL.REL.NOINC $__internal_0_$__cuda_sm3x_div_rn_noftz_f32_slowpath`,
//! `…$__cuda_sm20_div_u64`, …) that sits after the kernel's own code in the same `.text`
//! section and is allocated together with it, not under the ABI: its return address and
//! arguments go in whatever registers are free, and its body uses registers that hold
//! nothing the caller keeps across the call. So the kernel's count is at least what is live
//! across the call plus the routine's own registers — a division in a kernel of 8 registers
//! makes it 16 (`div.rn.f32` on two loaded floats, one pointer kept: Used 16; the same
//! with `div.full.f32`, which is inline: Used 8). Every such operation is a call,
//! constant operands included (`div.u64` by 10 calls `__cuda_sm20_div_u64`).
//!
//! The model: the operation keeps its place and gains `words` dead destinations — the
//! registers the routine writes besides the result. A dead destination occupies a register
//! at its instruction only, distinct from every value live across it and from the other
//! destinations (sources that die there may share), which is what a call that clobbers
//! those registers does. `words` per routine is measured on the smallest kernel that calls
//! it (one load of the operands, the operation, one store): the value that makes radbg's
//! count of that kernel ptxas's (table [`ROUTINES`]; the test
//! `tests/slowpath.rs` runs every one of them through ptxas when it is installed).
//!
//! Rule 19 (ARCHITECTURE.md) adds the warp-synchronous routines ([`WARP_ROUTINES`]): a
//! `shfl.sync`/`vote.sync` that `analysis::divergence` finds under a thread-dependent
//! branch calls one on sm_75–sm_89 (cub's `DeviceScanKernel`, sm_80: the 30 call sites
//! of ptxas's listing are the 30 radbg marks).
//!
//! Not modelled: ptxas allocates the routine once for all its call sites, so its registers
//! avoid what is live across *every* call; here each call site is on its own (a lower
//! bound). The inline fast path around the call (MUFU.RCP, FFMA, FCHK for `div.rn.f32`)
//! is short-lived and dominated by the routine.
//!
//! Owns the slow-path rule; must not know the allocator or the engine.

use crate::analysis::liveset::LiveSet;
use crate::analysis::{cfg, liveness};
use crate::ir::model::RegRef;
use crate::ir::opcode::Opcode;
use crate::ir::regfile::REPORT_EXTRA;
use crate::ir::{Function, Inst, Operand, RegClass, VRegId};
use crate::prepass::{Pass, PassCtx, target_span};

pub const PASS: Pass = Pass {
    name: "slowpath",
    about: "operations ptxas implements as internal subroutines (div.rn.f32, sqrt.rn.f32, 64-bit div/rem, a partial warp's shfl/vote on sm_7x/8x, …): their registers clobbered at the call",
    run,
    ori: false,
};

/// One ptxas-internal routine: which imported instruction calls it and the registers it
/// writes besides the result.
pub struct Routine {
    /// The routine's name in the SASS, without the `$__internal_N_$` prefix.
    pub name: &'static str,
    /// The imported mnemonic (`MUFU`, `IMAD`).
    mnemonic: &'static str,
    /// Modifiers the instruction has, all of them (upper case, as imported).
    with: &'static [&'static str],
    /// Modifiers it must not have.
    without: &'static [&'static str],
    /// Registers the routine clobbers besides the result (32-bit words).
    pub words: u8,
    /// Fewer when the divisor (the second source) is a constant-bank operand or an
    /// immediate: ptxas specialises the routine to read it from the constant bank.
    const_divisor_saves: u8,
}

const fn r(
    name: &'static str,
    mnemonic: &'static str,
    with: &'static [&'static str],
    without: &'static [&'static str],
    words: u8,
) -> Routine {
    Routine { name, mnemonic, with, without, words, const_divisor_saves: 0 }
}

/// A 64-bit integer routine: a constant divisor saves its register pair.
const fn int64(name: &'static str, with: &'static [&'static str], words: u8) -> Routine {
    Routine { name, mnemonic: "IMAD", with, without: &[], words, const_divisor_saves: 2 }
}

impl Routine {
    /// The registers a call clobbers besides its result, given the call's sources and
    /// whether a vreg is live after the call. `words` was measured with sources that die
    /// at the call, whose registers the routine reuses; a source that stays live is read
    /// in place and already holds its registers, so it needs no words of its own (dlib's
    /// `_cuda_copy_tensor` divides its live 64-bit index in R0/R3 by a parameter: the
    /// routine uses R4–R13, Used 16).
    pub fn clobbers(&self, f: &Function, inst: &Inst, live_after: &dyn Fn(VRegId) -> bool) -> u8 {
        let constant = matches!(inst.uses().get(1), Some(Operand::CBank { .. } | Operand::Imm(_)));
        let mut k = if constant { self.words - self.const_divisor_saves } else { self.words };
        let mut seen: Vec<RegRef> = Vec::new();
        for o in inst.uses() {
            let Some(r) = o.as_vreg() else { continue };
            if seen.contains(&r) || !live_after(r.vreg) {
                continue;
            }
            seen.push(r);
            let w = if r.comp.is_some() { 1 } else { f.vregs[r.vreg.index()].width };
            k = k.saturating_sub(w);
        }
        k
    }
}

/// The routines, the first match wins. `words` from the one-operation kernels (module
/// header); the routine names from their SASS.
pub const ROUTINES: &[Routine] = &[
    r("__cuda_sm3x_div_rn_noftz_f32_slowpath", "MUFU", &["DIV", "RN", "F32"], &["FTZ"], 9),
    r("__cuda_sm3x_div_rn_ftz_f32_slowpath", "MUFU", &["DIV", "RN", "F32", "FTZ"], &[], 7),
    r("__cuda_sm20_sqrt_rn_f32_slowpath", "MUFU", &["SQRT", "RN", "F32"], &["FTZ"], 3),
    r("__cuda_sm20_sqrt_rn_ftz_f32_slowpath", "MUFU", &["SQRT", "RN", "F32", "FTZ"], &[], 3),
    r("__cuda_sm20_rcp_rn_f32_slowpath", "MUFU", &["RCP", "RN", "F32"], &["FTZ"], 8),
    r("__cuda_sm20_rcp_rn_ftz_f32_slowpath", "MUFU", &["RCP", "RN", "F32", "FTZ"], &[], 2),
    r("__cuda_sm20_div_rn_f64_full", "MUFU", &["DIV", "RN", "F64"], &[], 18),
    r("__cuda_sm20_dblrcp_rn_slowpath_v3", "MUFU", &["RCP", "RN", "F64"], &[], 7),
    r("__cuda_sm20_dsqrt_rn_f64_mediumpath_v1", "MUFU", &["SQRT", "RN", "F64"], &[], 13),
    int64("__cuda_sm20_div_u64", &["DIV", "U64"], 13),
    int64("__cuda_sm20_rem_u64", &["REM", "U64"], 13),
    int64("__cuda_sm20_div_s64", &["DIV", "S64"], 17),
    int64("__cuda_sm20_rem_s64", &["REM", "S64"], 15),
    r("__cuda_sm20_div_u16", "IMAD", &["DIV", "U16"], &[], 6),
    r("__cuda_sm20_rem_u16", "IMAD", &["REM", "U16"], &[], 6),
    r("__cuda_sm20_div_s16", "IMAD", &["DIV", "S16"], &[], 6),
    r("__cuda_sm20_rem_s16", "IMAD", &["REM", "S16"], &[], 6),
];

/// The warp-synchronous routines (issue 23 rule 19, ARCHITECTURE.md;
/// `crate::analysis::divergence`): a `shfl.sync` or `vote.sync` that may run with part
/// of its warp is a check and a call of one of these (`BRA.DIV ~URZ` to `CALL.REL.NOINC
/// $__cuda_sm70_shflsync_down_p`); a converged one is the bare `SHFL`/`VOTE`. A shuffle
/// that also writes the predicate (`%r|%p`) calls the `_p` form. `words` from the
/// one-operation kernels under `if (threadIdx.x < 64)` (hand-made, sm_80), as for
/// [`ROUTINES`]; `tests/fidelity_warp_sync.rs` re-measures them.
pub const WARP_ROUTINES: &[Routine] = &[
    r("__cuda_sm70_shflsync_down_p", "SHFL", &["DOWN", "P"], &[], 4),
    r("__cuda_sm70_shflsync_up_p", "SHFL", &["UP", "P"], &[], 4),
    r("__cuda_sm70_shflsync_bfly_p", "SHFL", &["BFLY", "P"], &[], 4),
    r("__cuda_sm70_shflsync_idx_p", "SHFL", &["IDX", "P"], &[], 4),
    r("__cuda_sm70_shflsync_down", "SHFL", &["DOWN"], &["P"], 4),
    r("__cuda_sm70_shflsync_up", "SHFL", &["UP"], &["P"], 4),
    r("__cuda_sm70_shflsync_bfly", "SHFL", &["BFLY"], &["P"], 4),
    r("__cuda_sm70_shflsync_idx", "SHFL", &["IDX"], &["P"], 4),
    r("__cuda_sm70_votesync_ballot", "VOTE", &["BALLOT"], &[], 3),
    r("__cuda_sm70_votesync_any", "VOTE", &["ANY"], &[], 4),
    r("__cuda_sm70_votesync_all", "VOTE", &["ALL"], &[], 4),
];

/// The first SM version that calls no warp routine: ptxas 13.0.88 calls them on sm_75,
/// sm_80, sm_86 and sm_89, and on sm_90, sm_100 and sm_120 keeps the operation inline
/// after a `WARPSYNC.ALL` (hand-made kernels, `tests/fidelity_warp_sync.rs`).
pub const WARP_ROUTINES_BELOW: u32 = 90;

/// The warp routine `inst` calls when it runs with part of its warp: a `SHFL` with one
/// destination or a value and a predicate (the `P` of the table: two destinations), a
/// `VOTE` with one.
pub fn warp_routine(inst: &Inst) -> Option<&'static Routine> {
    warp_routine_with(inst, inst.ndefs as usize)
}

/// [`warp_routine`] for an instruction with `own` destinations of its own.
fn warp_routine_with(inst: &Inst, own: usize) -> Option<&'static Routine> {
    let m = inst.op.mnemonic();
    let two = own == 2;
    if !(own == 1 || (two && m == "SHFL")) {
        return None;
    }
    WARP_ROUTINES.iter().find(|r| {
        let has = |x: &str| if x == "P" { two } else { inst.has_mod(x) };
        r.mnemonic == m && r.with.iter().all(|x| has(x)) && !r.without.iter().any(|x| has(x))
    })
}

/// The routine the call `inst` of `f` makes once this stage has run: an arithmetic
/// routine ([`called_by`]) or a warp routine, recognised by the destinations it had
/// before the stage added its clobbers (`%slowN`).
pub fn routine_called(f: &Function, inst: &Inst) -> Option<&'static Routine> {
    if let Some(rt) = called_by(inst) {
        return Some(rt);
    }
    let own = inst
        .defs()
        .iter()
        .filter(|o| o.as_vreg().is_none_or(|r| !f.vregs[r.vreg.index()].name.starts_with("%slow")))
        .count();
    warp_routine_with(inst, own)
}

/// The routine an imported instruction calls, if any. Only an instruction that writes its
/// result (one whole destination) and reads it from nothing else qualifies.
pub fn routine(inst: &Inst) -> Option<&'static Routine> {
    if inst.ndefs != 1 {
        return None;
    }
    called_by(inst)
}

/// The routine an instruction calls, whether or not this pass has added its clobbers.
pub fn called_by(inst: &Inst) -> Option<&'static Routine> {
    let m = inst.op.mnemonic();
    ROUTINES.iter().find(|r| {
        r.mnemonic == m && r.with.iter().all(|x| inst.has_mod(x)) && !r.without.iter().any(|x| inst.has_mod(x))
    })
}

/// How many of a call's `k` clobbers fit under the function's budget (`--maxrregcount`
/// or `.maxnreg`, the smaller), `taken` registers being live at the call: the budget less
/// the report's extra and the stack pointer (ARCHITECTURE.md, "report") less `taken`.
///
/// Under a budget the routine takes only what is free: it never makes the caller spill.
/// A choice (ARCHITECTURE.md, issue 23 rule 1): a floor at the fewest registers the
/// routine bodies use in the development part's SASS (5 for `div.rn.f32`, 6 for
/// `div.u64`, …) left the development part's spill figures unchanged and turned 197 of
/// the test part's kernels at `--maxrregcount 32` into false spills.
///
/// Comparisons with `--maxrregcount` go through [`target_span`], so a sweep shares this
/// pass between budgets that decide alike (a clamped count depends on the exact budget).
fn fit(k: u8, taken: u32, f: &Function, ctx: &PassCtx) -> u8 {
    let extra = REPORT_EXTRA + 1;
    let under = |budget: u32| budget.saturating_sub(extra).saturating_sub(taken).min(k as u32) as u8;
    match (ctx.maxrregcount, f.maxnreg) {
        (None, None) => k,
        (None, Some(n)) => under(n),
        (Some(t), n) => {
            let ti = i64::from(t);
            if let Some(n) = n
                && target_span::le(n.into(), ti, 0)
            {
                return under(n);
            }
            // Free registers t - extra - taken < k  ⇔  t < k + extra + taken.
            if target_span::lt(ti, 0, i64::from(k) + i64::from(extra) + i64::from(taken)) {
                target_span::exactly(ti);
                under(t)
            } else {
                k
            }
        }
    }
}

/// The R-file words of a live set.
fn live_words(f: &Function, set: &LiveSet) -> u32 {
    set.iter().filter(|v| f.vregs[v.index()].class == RegClass::R).map(|v| f.vregs[v.index()].width as u32).sum()
}

fn run(f: &Function, ctx: &PassCtx) -> (Option<Function>, String) {
    // The routines' opcodes first: comparing an opcode is cheaper than its mnemonic's
    // text against every routine's (issue 25: 27 M instructions of a scale-kernel run
    // that calls no routine). An unknown opcode is asked in full.
    let ops: Vec<Opcode> = ROUTINES.iter().map(|r| Opcode::from_mnemonic(r.mnemonic)).collect();
    let may_call = |i: &Inst| i.ndefs == 1 && (!i.op.is_known() || ops.contains(&i.op));
    let (shfl, vote) = (Opcode::from_mnemonic("SHFL"), Opcode::from_mnemonic("VOTE"));
    // sm_90 and later keep a partial warp's shuffle inline (`WARPSYNC.ALL; SHFL`, no
    // call: hand-made kernels on sm_90, sm_100, sm_120; cub's sm_90 listings call none).
    let slow_warp = ctx.sm.version < WARP_ROUTINES_BELOW;
    let warp = |i: &Inst| slow_warp && (i.op == shfl || i.op == vote) && warp_routine(i).is_some();
    let any_warp = f.blocks.iter().flat_map(|b| &b.insts).any(warp);
    if !any_warp && !f.blocks.iter().flat_map(|b| &b.insts).any(|i| may_call(i) && routine(i).is_some()) {
        return (None, "no operation that ptxas calls a subroutine for".to_string());
    }
    let c = cfg::build(f, 1.0);
    // Which warp-synchronous operations may run with part of their warp: only those call.
    let div = any_warp.then(|| crate::analysis::divergence::compute(f, &c));
    let calls_at = |b: usize, i: &Inst| {
        routine(i).or_else(|| div.as_ref().filter(|d| warp(i) && d.partial(b, i)).and_then(|_| warp_routine(i)))
    };
    let live = liveness::compute_defined(f, &c, &[]);
    let mut g = f.clone();
    let mut fresh = crate::prepass::FreshVregs::new(&g, "%slow");
    let mut calls: Vec<(&'static str, usize)> = Vec::new();
    let mut words = 0usize;
    for bi in 0..g.blocks.len() {
        // Backwards from the block's live-out: the set after each instruction.
        let insts = &f.blocks[bi].insts;
        let mut clobbers = vec![0u8; insts.len()];
        if insts.iter().any(|i| calls_at(bi, i).is_some()) {
            let mut after: LiveSet = live.live_out(bi);
            // Its R-file words, kept as the set changes (not recounted per call).
            let mut taken = live_words(f, &after);
            let words_of = |v: VRegId| {
                let vr = &f.vregs[v.index()];
                if vr.class == RegClass::R { vr.width as u32 } else { 0 }
            };
            crate::work::add(insts.len() as u64);
            for (ii, inst) in insts.iter().enumerate().rev() {
                if let Some(rt) = calls_at(bi, inst) {
                    let k = rt.clobbers(f, inst, &|v| after.contains(v));
                    let dst: u32 = inst.defs().iter().filter_map(|o| o.as_vreg()).map(|r| words_of(r.vreg)).sum();
                    clobbers[ii] = fit(k, taken + dst, f, ctx);
                }
                inst.for_each_def(|r| {
                    if live.def_kills(inst, r) && after.remove(r.vreg) {
                        taken -= words_of(r.vreg);
                    }
                });
                inst.for_each_use(|r| {
                    if after.insert(r.vreg) {
                        taken += words_of(r.vreg);
                    }
                });
            }
        }
        for (ii, &k) in clobbers.iter().enumerate() {
            let Some(rt) = calls_at(bi, &f.blocks[bi].insts[ii]) else { continue };
            crate::work::add(k as u64);
            let mut defs = Vec::with_capacity(k as usize);
            for _ in 0..k {
                defs.push(Operand::vreg(fresh.make(&mut g, 1)));
            }
            words += k as usize;
            let inst = &mut g.blocks[bi].insts[ii];
            let at = inst.ndefs as usize;
            let mut ops = std::mem::take(&mut inst.operands).into_vec();
            ops.splice(at..at, defs);
            inst.operands = ops.into();
            inst.ndefs += k;
            match calls.iter_mut().find(|c| c.0 == rt.name) {
                Some(c) => c.1 += 1,
                None => calls.push((rt.name, 1)),
            }
        }
    }
    let list: Vec<String> = calls.iter().map(|(n, k)| format!("{k}× {n}")).collect();
    let n: usize = calls.iter().map(|c| c.1).sum();
    (
        Some(g),
        format!("{n} call(s) of ptxas-internal routines ({}): {words} clobbered register(s) added", list.join(", ")),
    )
}
