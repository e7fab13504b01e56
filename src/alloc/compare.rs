//! The allocator diff: the fat-point allocator (seeds 000/003/004) and CICC's
//! Chaitin-Briggs allocator (seed 002) on the same function, budget and knobs, side by
//! side — per-vreg assignments as a unified diff (`similar`), spilled sets, registers,
//! spill traffic and an estimated spill cost — answering "would graph colouring have
//! done better here?" per kernel, as a typed [`AllocDiff`] and its text.
//!
//! The verdict compares the estimated spill cost, then the registers used, then the
//! register copies left. The estimated spill cost is one measure applied to both results: every spill
//! instruction (`.SPILL` STL/LDL/STS/LDS) costs its 32-bit words × 4 cycles (an L1 hit,
//! seed 002 "MEM_LATENCY_L1") and every rematerializing instruction 1 cycle, each times
//! the frequency of its block (`radbg.LoopWeight^depth`, the shared CFG's scheme).
//!
//! Knows both allocators' public results; nothing of their internals. Each function's
//! allocator configuration as the pipeline derives it, and the JSON form, are
//! `command::alloc_diff`'s (the engine and JSON are above this layer).

use similar::TextDiff;

use crate::alloc::briggs::BriggsAlloc;
use crate::alloc::briggs::spill::TempKind;
use crate::alloc::{AllocConfig, FunctionAlloc};
use crate::analysis::cfg;
use crate::ir::{Function, VRegId};

/// One allocator's result in the diff.
#[derive(Clone, Debug, PartialEq)]
pub struct Side {
    pub allocator: &'static str,
    pub ok: bool,
    pub failure: Option<String>,
    /// General registers used.
    pub registers: u32,
    /// Original vregs spilled, by name, in id order.
    pub spilled: Vec<String>,
    pub store_bytes: u32,
    pub load_bytes: u32,
    pub frame_bytes: u32,
    pub remats: u32,
    pub spill_cost: f64,
    /// Fat-point attempts of the general class, or Briggs iterations.
    pub rounds: u32,
    /// Register copies left: MOVs whose source and destination got different registers.
    pub copies: u32,
    /// `%vreg → R4` lines for every allocatable original vreg, in id order.
    pub assignment: Vec<String>,
}

/// Which allocator did better on a function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Briggs,
    FatPoint,
    Same,
    NeitherFits,
}

/// The diff of one function.
#[derive(Clone, Debug, PartialEq)]
pub struct AllocDiff {
    pub function: String,
    pub budget: u32,
    pub fatpoint: Side,
    pub briggs: Side,
    pub only_fatpoint: Vec<String>,
    pub only_briggs: Vec<String>,
    pub both: Vec<String>,
    /// Unified diff of the assignment lines (empty when they agree).
    pub assignment_diff: String,
    pub verdict: Verdict,
    /// The answer to "would graph colouring have done better here?", one sentence.
    pub answer: String,
}

fn reg_text(f: &Function, v: VRegId, slot: Option<u16>) -> String {
    let vr = &f.vregs[v.index()];
    match slot {
        None => "-".to_string(),
        Some(s) if vr.width > 1 => format!("{p}{s}..{p}{}", s + vr.width as u16 - 1, p = vr.file().prefix()),
        Some(s) => format!("{}{s}", vr.file().prefix()),
    }
}

fn assignment(orig: &Function, spilled: &[VRegId], slot: &dyn Fn(VRegId) -> Option<u16>) -> Vec<String> {
    orig.vregs
        .iter()
        .enumerate()
        .filter(|(_, v)| v.class.is_allocatable())
        .map(|(i, v)| {
            let id = VRegId::new(i);
            let r = if spilled.contains(&id) { "spilled".to_string() } else { reg_text(orig, id, slot(id)) };
            format!("{} → {r}", v.name)
        })
        .collect()
}

/// Plain register copies (seed 002 "identify_move_candidates") of a final IR whose two
/// vregs got different registers: the moves coalescing did not remove.
pub fn copies_left(f: &Function, slot: &dyn Fn(VRegId) -> Option<u16>) -> u32 {
    let mut n = 0;
    for inst in f.blocks.iter().flat_map(|b| &b.insts) {
        if let Some((d, s)) = crate::alloc::briggs::graph::move_operands(inst)
            && (slot(d) != slot(s) || slot(d).is_none())
        {
            n += 1;
        }
    }
    n
}

/// The estimated spill cost of a final IR (see the module doc); `remat` tells which
/// vregs are rematerialization temporaries.
pub fn spill_cost(f: &Function, loop_weight: f64, remat: &dyn Fn(VRegId) -> bool) -> f64 {
    let c = cfg::build(f, loop_weight);
    let mut total = 0.0;
    for (b, block) in f.blocks.iter().enumerate() {
        let freq = c.freq.get(b).copied().unwrap_or(1.0);
        for inst in &block.insts {
            if crate::alloc::spill::is_spill_code(inst) {
                let mut words = 0u32;
                for op in &inst.operands {
                    if let Some(r) = op.as_vreg() {
                        words += if r.comp.is_some() { 1 } else { f.vreg(r.vreg).width.max(1) as u32 };
                    }
                }
                total += freq * 4.0 * words.max(1) as f64;
            } else {
                let mut is_remat = false;
                inst.for_each_def(|r| is_remat |= remat(r.vreg));
                if is_remat {
                    total += freq;
                }
            }
        }
    }
    total
}

fn fat_side(orig: &Function, config: &AllocConfig) -> Side {
    let mut fa = FunctionAlloc::new(orig.clone(), config.clone());
    fa.run();
    let mut spilled: Vec<VRegId> = fa.spills.iter().map(|s| s.vreg).filter(|v| v.index() < orig.vregs.len()).collect();
    spilled.sort();
    spilled.dedup();
    let (st, ld) = crate::alloc::spill::traffic(&fa.func);
    let weight = cfg::loop_weight(&config.knobs);
    let gpr_attempts = fa.results.iter().find(|r| r.class == crate::ir::RegClass::R).map_or(0, |r| r.attempts);
    Side {
        allocator: "fatpoint",
        ok: fa.failure.is_none(),
        failure: fa.failure.clone(),
        registers: crate::alloc::stats::registers_used(&fa.func, &|v| fa.slot_of(v)),
        spilled: spilled.iter().map(|v| orig.vreg(*v).name.to_string()).collect(),
        store_bytes: st,
        load_bytes: ld,
        frame_bytes: fa.pool_local.frame(),
        remats: 0,
        spill_cost: spill_cost(&fa.func, weight, &|_| false),
        rounds: gpr_attempts,
        copies: copies_left(&fa.func, &|v| fa.slot_of(v)),
        assignment: assignment(orig, &spilled, &|v| fa.slot_of(v)),
    }
}

fn briggs_side(orig: &Function, config: &AllocConfig) -> Side {
    let mut b = BriggsAlloc::new(orig.clone(), config.clone());
    b.run();
    let mut spilled = b.spilled();
    spilled.sort();
    let s = b.stats();
    let weight = cfg::loop_weight(&config.knobs);
    let code = b.spill_code();
    let remat = |v: VRegId| {
        code.and_then(|c| c.temp_of.get(v.index()).copied().flatten()).is_some_and(|t| t.1 == TempKind::Remat)
    };
    Side {
        allocator: "briggs",
        ok: s.ok,
        failure: s.failure.clone(),
        registers: s.registers,
        spilled: spilled.iter().map(|v| orig.vreg(*v).name.to_string()).collect(),
        store_bytes: s.spill_store_bytes,
        load_bytes: s.spill_load_bytes,
        frame_bytes: s.frame_bytes,
        remats: s.remats,
        spill_cost: spill_cost(b.func(), weight, &remat),
        rounds: s.iterations,
        copies: copies_left(b.func(), &|v| b.slot_of(v)),
        assignment: assignment(orig, &spilled, &|v| b.slot_of(v)),
    }
}

/// Runs both allocators on `func` with `config` and compares them.
pub fn compare(func: &Function, config: &AllocConfig) -> AllocDiff {
    let fat = fat_side(func, config);
    let bri = briggs_side(func, config);
    let only_fatpoint: Vec<String> = fat.spilled.iter().filter(|v| !bri.spilled.contains(v)).cloned().collect();
    let only_briggs: Vec<String> = bri.spilled.iter().filter(|v| !fat.spilled.contains(v)).cloned().collect();
    let both: Vec<String> = fat.spilled.iter().filter(|v| bri.spilled.contains(v)).cloned().collect();
    let old = fat.assignment.iter().map(|l| format!("{l}\n")).collect::<String>();
    let new = bri.assignment.iter().map(|l| format!("{l}\n")).collect::<String>();
    let assignment_diff = if old == new {
        String::new()
    } else {
        TextDiff::from_lines(&old, &new).unified_diff().context_radius(1).header("fatpoint", "briggs").to_string()
    };
    let (verdict, answer) = judge(&fat, &bri);
    AllocDiff {
        function: func.name.to_string(),
        budget: config.gpr_budget,
        fatpoint: fat,
        briggs: bri,
        only_fatpoint,
        only_briggs,
        both,
        assignment_diff,
        verdict,
        answer,
    }
}

fn judge(fat: &Side, bri: &Side) -> (Verdict, String) {
    match (fat.ok, bri.ok) {
        (false, false) => (Verdict::NeitherFits, "no: neither allocator fits this budget".into()),
        (true, false) => (Verdict::FatPoint, "no: graph colouring fails where the fat-point allocator fits".into()),
        (false, true) => (Verdict::Briggs, "yes: graph colouring fits where the fat-point allocator fails".into()),
        (true, true) => {
            let (a, b) = (fat.spill_cost, bri.spill_cost);
            if b < a {
                (Verdict::Briggs, format!("yes: estimated spill cost {b:.1} against {a:.1}"))
            } else if b > a {
                (Verdict::FatPoint, format!("no: estimated spill cost {b:.1} against {a:.1}"))
            } else if bri.registers < fat.registers {
                (
                    Verdict::Briggs,
                    format!("yes: same spill cost, {} registers against {}", bri.registers, fat.registers),
                )
            } else if bri.registers > fat.registers {
                (
                    Verdict::FatPoint,
                    format!("no: same spill cost, {} registers against {}", bri.registers, fat.registers),
                )
            } else if bri.copies < fat.copies {
                (
                    Verdict::Briggs,
                    format!("yes: same spill cost and registers, {} copies left against {}", bri.copies, fat.copies),
                )
            } else if bri.copies > fat.copies {
                (
                    Verdict::FatPoint,
                    format!("no: same spill cost and registers, {} copies left against {}", bri.copies, fat.copies),
                )
            } else {
                (
                    Verdict::Same,
                    format!("no better, no worse: same spill cost, {} registers, {} copies", fat.registers, fat.copies),
                )
            }
        }
    }
}

fn list(v: &[String]) -> String {
    if v.is_empty() { "-".into() } else { v.join(" ") }
}

impl Verdict {
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Briggs => "briggs",
            Verdict::FatPoint => "fatpoint",
            Verdict::Same => "same",
            Verdict::NeitherFits => "neither",
        }
    }
}

impl AllocDiff {
    /// The report as text.
    pub fn text(&self) -> String {
        let (f, b) = (&self.fatpoint, &self.briggs);
        let mut s = format!("== {} (budget {} registers)\n", self.function, self.budget);
        let row = |name: &str, x: String, y: String| format!("  {name:<22}{x:>14}{y:>14}\n");
        s.push_str(&row("", "fatpoint".into(), "briggs".into()));
        s.push_str(&row("result", ok_text(f), ok_text(b)));
        s.push_str(&row("registers", f.registers.to_string(), b.registers.to_string()));
        s.push_str(&row("spilled vregs", f.spilled.len().to_string(), b.spilled.len().to_string()));
        s.push_str(&row("spill stores (bytes)", f.store_bytes.to_string(), b.store_bytes.to_string()));
        s.push_str(&row("spill loads (bytes)", f.load_bytes.to_string(), b.load_bytes.to_string()));
        s.push_str(&row("stack frame (bytes)", f.frame_bytes.to_string(), b.frame_bytes.to_string()));
        s.push_str(&row("rematerialized", f.remats.to_string(), b.remats.to_string()));
        s.push_str(&row("est. spill cost", format!("{:.1}", f.spill_cost), format!("{:.1}", b.spill_cost)));
        s.push_str(&row("copies left", f.copies.to_string(), b.copies.to_string()));
        s.push_str(&row("attempts / iterations", f.rounds.to_string(), b.rounds.to_string()));
        for side in [f, b] {
            if let Some(m) = &side.failure {
                s.push_str(&format!("  {} error: {m}\n", side.allocator));
            }
        }
        s.push_str(&format!("  spilled by fatpoint only: {}\n", list(&self.only_fatpoint)));
        s.push_str(&format!("  spilled by briggs only:   {}\n", list(&self.only_briggs)));
        s.push_str(&format!("  spilled by both:          {}\n", list(&self.both)));
        if self.assignment_diff.is_empty() {
            s.push_str("  assignments: identical\n");
        } else {
            s.push_str("  assignments:\n");
            for l in self.assignment_diff.lines() {
                s.push_str(&format!("    {l}\n"));
            }
        }
        s.push_str(&format!("  would graph colouring have done better here? {}\n", self.answer));
        s
    }
}

fn ok_text(s: &Side) -> String {
    if s.ok { "ok".into() } else { "FAILED".into() }
}
