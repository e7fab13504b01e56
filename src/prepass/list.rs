//! The list scheduler of `schedule`: per block, a dependence graph with ptxas's
//! latencies and a cycle-driven, register-pressure-aware top-down list schedule.
//!
//! Measured (ARCHITECTURE.md, "Fidelity", step 7): the stall counts ptxas 13.0.88
//! writes into the control bits of every SASS instruction (bits 105–108 of the 128-bit
//! word, sm_80/sm_90) say how many cycles it keeps between an instruction and the first
//! reader of its result. Over the corpus cubins, the smallest such distance of every
//! fixed-latency ALU op (FFMA, FADD, FMUL, IMAD, IADD3, LOP3, SHF, LEA, SEL, MOV, …;
//! 14 000 pairs) is 4 cycles, of DADD 10. Variable-latency ops wait on a scoreboard, so
//! the control bits give no latency; what ptxas's scheduler assumes shows as how far
//! it places the first reader after them — the median over the corpus: LDG 55 cycles,
//! LDS 25, MUFU 17, LDC 14, S2R 10. Those are the latencies here.
//!
//! The schedule: top-down, one instruction per cycle; an instruction is ready when
//! every predecessor has issued and its results have arrived; among the ready ones one
//! that frees registers goes before one that keeps the count before one that adds, then
//! the longest latency-weighted path to the block's end (critical path), then the
//! original order. A fixed-latency instruction (4 cycles: ALU) that adds a live register
//! is not ready before its as-late-as-possible start, the critical path's length minus
//! its own path to the end: long-latency loads are issued as early as they can be, the
//! arithmetic that feeds stores and later uses waits until it is due, chain by chain.
//! Measured (ARCHITECTURE.md, "Fidelity", step 16): cub_block_reduce under
//! `--maxrregcount 64` issues its sixteen `LDG`s first, then computes the sixteen shared
//! store addresses a few at a time between the stores (peak live 28); filling the
//! loads' latency with every ready instruction computed all sixteen addresses at once,
//! breadth first (radbg 63 registers); merge_sort_i32 and histo256 show the same. Register pressure (the R file) is tracked as it goes:
//! an instruction that would take the live count above the limit waits while one that
//! fits exists; when none fits, the one that adds least goes. So a block is spread
//! out for latency as far as its parallelism allows and the register target permits —
//! ptxas's "schedule to the budget" (conv5x5: 32 at the default, 48/55 under 64).
//!
//! Instructions that are calls, PHIs, unknown opcodes or have physical-register operands
//! keep their place (their order carries meaning this model does not see): they split a
//! block into regions, and each region is scheduled on its own (`schedule::list_schedule`).
//! Measured: in cub_block_reduce the sixteen loads, their shared-memory stores and an
//! `__assertfail` call share one PTX block; ptxas issues the loads first and computes the
//! store addresses after them (SASS, `--maxrregcount 64`: peak live 28), where the block
//! left whole in PTX order keeps sixteen `tid + 128·k` values live beside the loads (34).
//!
//! Owns the dependence graph and the schedule; must not know the allocator or the engine.

use std::collections::BTreeMap;

use crate::analysis::LiveSet;
use crate::ir::opcode::props;
use crate::ir::{Function, Inst, Operand, Reg, RegFile, VRegId};

/// Cycles between an instruction and a reader of its result (module doc: measured).
pub fn latency(inst: &Inst) -> u32 {
    let info = inst.info();
    let m = inst.op.mnemonic();
    match m {
        "LDS" | "LDSM" | "ATOMS" | "SHFL" => 25,
        "LDC" => 14,
        "MUFU" => 17,
        "S2R" => 10,
        _ if info.is(props::LOAD) || info.is(props::ATOMIC) || info.is(props::TEXTURE) => 55,
        _ if m.starts_with('D') && m.len() > 1 && m != "DEPBAR" => 10,
        _ => 4,
    }
}

/// Whether an instruction must keep its place: the scheduler works on the regions
/// between such instructions (a call and the ABI moves around it, a PHI).
pub fn opaque(inst: &Inst) -> bool {
    let i = inst.info();
    i.is(props::CALL)
        || i.is(props::PHI)
        || i.is(props::UNKNOWN)
        || i.is(props::SUSPEND)
        || i.is(props::RESUME)
        || inst.operands.iter().any(|o| matches!(o, Operand::Reg(Reg::P(p)) if !p.is_zero()))
}

/// Memory and other effects keep their order among themselves and against loads.
fn fence(inst: &Inst) -> bool {
    let i = inst.info();
    inst.has_side_effects() || i.is(props::STORE) || i.is(props::ATOMIC) || i.is(props::BARRIER)
}

fn control(inst: &Inst) -> bool {
    let i = inst.info();
    i.is(props::BRANCH) || i.is(props::EXIT)
}

/// The dependence graph of one block: successors with the cycles they wait.
struct Dag {
    succ: Vec<Vec<(usize, u32)>>,
    npred: Vec<u32>,
    height: Vec<u32>,
}

fn build(insts: &[Inst]) -> Dag {
    let n = insts.len();
    let lat: Vec<u32> = insts.iter().map(latency).collect();
    let mut succ: Vec<Vec<(usize, u32)>> = vec![Vec::new(); n];
    let mut last_def: BTreeMap<usize, usize> = BTreeMap::new();
    let mut uses_since: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    let (mut last_fence, mut loads_since) = (None::<usize>, Vec::new());
    let (mut last_ctl, mut since_ctl) = (None::<usize>, Vec::new());
    for (j, inst) in insts.iter().enumerate() {
        let mut edges: Vec<(usize, u32)> = Vec::new();
        let mut uses = Vec::new();
        inst.for_each_use(|r| uses.push(r.vreg.index()));
        let mut defs = Vec::new();
        inst.for_each_def(|r| defs.push((r.vreg.index(), r.comp.is_some())));
        // A predicated or component def keeps (part of) the older value: it reads it.
        for &(d, comp) in &defs {
            if comp || !inst.guard_is_always() {
                uses.push(d);
            }
        }
        uses.sort_unstable();
        uses.dedup();
        for u in &uses {
            if let Some(&i) = last_def.get(u) {
                edges.push((i, lat[i]));
            }
        }
        for &(d, _) in &defs {
            if let Some(&i) = last_def.get(&d) {
                edges.push((i, 1));
            }
            if let Some(us) = uses_since.get(&d) {
                edges.extend(us.iter().map(|&i| (i, 0)));
            }
        }
        for &u in &uses {
            uses_since.entry(u).or_default().push(j);
        }
        for &(d, _) in &defs {
            last_def.insert(d, j);
            uses_since.insert(d, Vec::new());
        }
        if fence(inst) {
            // Stores in order, one issue slot apart: the slot makes a chain of sixteen
            // stores sixteen cycles long in the path lengths, so the arithmetic feeding
            // the later ones is due later (as-late-as-possible, module doc) — with 0
            // every store's address was due at once and computed breadth first.
            edges.extend(last_fence.map(|f| (f, 1)));
            edges.extend(loads_since.drain(..).map(|l| (l, 0)));
            last_fence = Some(j);
        } else if inst.info().is(props::LOAD) {
            edges.extend(last_fence.map(|f| (f, 0)));
            loads_since.push(j);
        }
        edges.extend(last_ctl.map(|c| (c, 0)));
        if control(inst) {
            edges.extend(since_ctl.drain(..).map(|i| (i, 0)));
            last_ctl = Some(j);
        }
        since_ctl.push(j);
        for (i, d) in edges {
            if i != j {
                succ[i].push((j, d));
            }
        }
    }
    let mut npred = vec![0u32; n];
    for s in &mut succ {
        s.sort_unstable();
        s.dedup_by(|a, b| {
            a.0 == b.0 && {
                b.1 = b.1.max(a.1);
                true
            }
        });
        for &(t, _) in s.iter() {
            npred[t] += 1;
        }
    }
    let mut height = vec![0u32; n];
    for j in (0..n).rev() {
        height[j] = succ[j].iter().map(|&(t, d)| d + height[t]).max().unwrap_or(0).max(lat[j]);
    }
    Dag { succ, npred, height }
}

/// What the scheduler knows of a block's surroundings.
pub struct BlockLive<'a> {
    pub live_in: &'a LiveSet,
    pub live_out: &'a LiveSet,
}

/// Words of vreg `v` in the R file and in the P file (0 for other files).
fn width(f: &Function, v: usize) -> [u32; 2] {
    let r = &f.vregs[v];
    match r.file() {
        RegFile::R => [r.width as u32, 0],
        RegFile::P => [0, r.width as u32],
        _ => [0, 0],
    }
}

fn add(a: &mut [i64; 2], w: [u32; 2], sign: i64) {
    a[0] += sign * w[0] as i64;
    a[1] += sign * w[1] as i64;
}

/// A new order for the instructions of `insts` (indices), or `None` when the block
/// must keep its order. `limit`: the R and the P pressure the schedule should stay
/// within.
pub fn schedule_block(f: &Function, insts: &[Inst], live: &BlockLive, limit: [u32; 2]) -> Option<Vec<usize>> {
    if insts.len() < 3 || insts.iter().any(opaque) {
        return None;
    }
    let dag = build(insts);
    let n = insts.len();
    // Each instruction's distinct vregs read, and written, ascending.
    let distinct = |fill: &dyn Fn(&mut Vec<usize>)| {
        let mut v = Vec::new();
        fill(&mut v);
        v.sort_unstable();
        v.dedup();
        v
    };
    let uses: Vec<Vec<usize>> =
        insts.iter().map(|i| distinct(&|v| i.for_each_use(|r| v.push(r.vreg.index())))).collect();
    let defs: Vec<Vec<usize>> =
        insts.iter().map(|i| distinct(&|v| i.for_each_def(|r| v.push(r.vreg.index())))).collect();
    let mut remaining: BTreeMap<usize, u32> = BTreeMap::new();
    for u in uses.iter().flatten() {
        *remaining.entry(*u).or_default() += 1;
    }
    let mut is_live = LiveSet::new(f.vregs.len());
    let mut cur = [0i64; 2];
    for v in live.live_in.iter() {
        is_live.insert(v);
        add(&mut cur, width(f, v.index()), 1);
    }
    let limit = [limit[0] as i64, limit[1] as i64];
    let last_use = |v: usize, remaining: &BTreeMap<usize, u32>| {
        remaining.get(&v) == Some(&1) && !live.live_out.contains(VRegId::new(v))
    };
    // Net change of live R and P words if `j` issued now.
    let delta = |j: usize, is_live: &LiveSet, remaining: &BTreeMap<usize, u32>| -> [i64; 2] {
        let mut d = [0i64; 2];
        for &v in &defs[j] {
            if !is_live.contains(VRegId::new(v)) {
                add(&mut d, width(f, v), 1);
            }
        }
        for &v in &uses[j] {
            if is_live.contains(VRegId::new(v)) && last_use(v, remaining) && !defs[j].contains(&v) {
                add(&mut d, width(f, v), -1);
            }
        }
        d
    };
    let fits = |d: [i64; 2], cur: [i64; 2]| (0..2).all(|k| cur[k] + d[k].max(0) <= limit[k]);
    let coalesced: Vec<bool> = insts
        .iter()
        .map(|i| {
            let (mut from, mut whole) = (false, true);
            i.for_each_use(|r| from |= r.comp.is_some());
            i.for_each_def(|r| whole &= r.comp.is_none());
            i.info().is(props::MOVE) && i.guard_is_always() && from && whole
        })
        .collect();
    let lat: Vec<u32> = insts.iter().map(latency).collect();
    let cpl = dag.height.iter().copied().max().unwrap_or(0);
    let alap: Vec<u32> = dag.height.iter().map(|&h| cpl - h).collect();
    let mut npred = dag.npred.clone();
    let mut earliest = vec![0u32; n];
    let mut cands: Vec<usize> = (0..n).filter(|&j| npred[j] == 0).collect();
    let mut order = Vec::with_capacity(n);
    let mut cycle = 0u32;
    while !cands.is_empty() {
        let scored: Vec<(usize, [i64; 2])> = cands.iter().map(|&j| (j, delta(j, &is_live, &remaining))).collect();
        let glued = cands.iter().copied().filter(|&j| coalesced[j] && earliest[j] <= cycle).min();
        let pick = if let Some(j) = glued {
            Some(j)
        } else if scored.iter().any(|&(_, d)| fits(d, cur)) {
            // Ready first — a fixed-latency instruction that adds a live register is not
            // ready before its as-late-as-possible start (module doc) — then one that
            // frees registers before one that keeps the count before one that adds, then
            // the longest path to the end, then the original order.
            scored
                .iter()
                .filter(|&&(_, d)| fits(d, cur))
                .min_by_key(|&&(j, d)| {
                    let ready = if d[0] > 0 && lat[j] <= 4 { earliest[j].max(alap[j]) } else { earliest[j] };
                    (ready.max(cycle), d[0].signum(), std::cmp::Reverse(dag.height[j]), j)
                })
                .map(|x| x.0)
        } else {
            // Over a limit: whatever adds least (P first: it has 7 registers).
            scored
                .iter()
                .min_by_key(|&&(j, d)| (d[1], d[0], earliest[j].max(cycle), std::cmp::Reverse(dag.height[j]), j))
                .map(|x| x.0)
        }
        .expect("a candidate");
        cands.retain(|&c| c != pick);
        cycle = cycle.max(earliest[pick]) + 1;
        order.push(pick);
        // Pressure: uses ending here leave, new defs enter (dead ones leave again).
        for &v in &uses[pick] {
            let last = last_use(v, &remaining);
            if let Some(r) = remaining.get_mut(&v) {
                *r -= 1;
            }
            if last && !defs[pick].contains(&v) && is_live.remove(VRegId::new(v)) {
                add(&mut cur, width(f, v), -1);
            }
        }
        for &v in &defs[pick] {
            let dead = remaining.get(&v).is_none_or(|&r| r == 0) && !live.live_out.contains(VRegId::new(v));
            if dead {
                if is_live.remove(VRegId::new(v)) {
                    add(&mut cur, width(f, v), -1);
                }
            } else if is_live.insert(VRegId::new(v)) {
                add(&mut cur, width(f, v), 1);
            }
        }
        for &(t, d) in &dag.succ[pick] {
            earliest[t] = earliest[t].max(cycle - 1 + d);
            npred[t] -= 1;
            if npred[t] == 0 {
                cands.push(t);
            }
        }
    }
    (order.len() == n).then_some(order)
}
