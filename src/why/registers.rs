//! `why registers [FUNCTION]`: per register file, the program points of peak pressure
//! and the vregs live there (ranked, with defining and last-use source lines); the
//! budget breakdown that adds up exactly to the `Used N registers` figure; the budget's
//! inputs with every ignored or overridden directive; the occupancy it gives.
//!
//! The breakdown classifies every register below the reported count (`alloc::stats::
//! registers_used`: one past the highest R register occupied) at the first peak point:
//! held by a vreg live there, ABI-fixed/reserved (seed 001: R0..first parameter, the
//! return address, fixed registers, physical operands), pre-coloured (`.pin`, ABI
//! bindings), an alignment hole (the unused rest of a pair/quad group, seed 000
//! "Register Classes", pairs and quads start aligned), or used at other points only
//! (the fat-point placement, seed 000 "Fat-point scan"). Each register gets exactly one
//! class, so the sum is the count by construction; a correction line appears only when
//! the peak pressure differs from the registers its vregs hold.
//!
//! Reads the finished allocation, its analysis (liveness, CFG, ranges, costs) and the
//! budget stage's result; must not change them.

use serde::Serialize;

use crate::alloc::run::Placement;
use crate::analysis::LiveSet;
use crate::analysis::liveness::LIVENESS_FILES;
use crate::engine::query::reg_name;
use crate::ir::{Function, Operand, Reg, RegFile, VRegId};
use crate::why::{Answer, Ctx, Explanation, Facts, occupancy, table};

/// At most this many live vregs are listed per file.
pub const LIST: usize = 12;

/// (program point, origin line) of a reference.
pub type SrcAt = (u32, Option<u32>);

/// A vreg live at a peak point.
#[derive(Clone, Debug, PartialEq)]
pub struct LiveVreg {
    pub vreg: VRegId,
    pub name: String,
    pub width: u8,
    /// Program points its live range covers.
    pub length: u32,
    /// Deepest loop nesting of the blocks that reference it.
    pub depth: u32,
    /// length × width × (depth + 1): what keeping it in a register costs.
    pub score: u64,
    /// (point, origin) of its first definition and last use.
    pub def: Option<(u32, Option<u32>)>,
    pub last_use: Option<(u32, Option<u32>)>,
    pub reg: Option<String>,
}

/// Peak pressure of one register file.
#[derive(Clone, Debug, PartialEq)]
pub struct FilePeak {
    pub file: RegFile,
    pub peak: u32,
    /// Every point at the peak.
    pub points: Vec<u32>,
    /// Points within 2 of the peak.
    pub near: usize,
    /// The point explained (the first peak point) and its source line.
    pub at: u32,
    pub at_origin: Option<u32>,
    /// Vregs live there, highest score first (all of them; text shows `LIST`).
    pub live: Vec<LiveVreg>,
}

/// The registers below the reported count, by what holds them at the peak point.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Breakdown {
    pub registers: u32,
    pub peak: u32,
    /// Registers held by vregs live at the peak point, minus `peak`.
    pub correction: i64,
    pub holes: u32,
    pub fixed: u32,
    pub precoloured: u32,
    pub elsewhere: u32,
    /// Registers ptxas's `-v` reporting rules add above what the allocation itself uses
    /// (`alloc::stats::spilling_report`, `calling_report`), and which rule.
    pub rule: u32,
    pub rule_reason: &'static str,
}

impl Breakdown {
    pub fn sum(&self) -> i64 {
        self.peak as i64
            + self.correction
            + (self.holes + self.fixed + self.precoloured + self.elsewhere + self.rule) as i64
    }
}

/// The whole answer as data.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    pub function: String,
    pub files: Vec<FilePeak>,
    pub breakdown: Breakdown,
    pub budget: Option<crate::alloc::budget::Budget>,
    pub failed: Option<String>,
    pub sm: u32,
    pub scan_bound: Option<u32>,
}

/// `why registers` as tools read it (`--json`): [`Report`] with every source position
/// written out (`file:line`), the breakdown with its sum, the budget and occupancy.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "why", rename = "registers")]
pub struct RegistersAnswer {
    pub function: String,
    pub registers: u32,
    /// The allocation's error, `null` when it succeeded.
    pub failed: Option<String>,
    pub files: Vec<FileAnswer>,
    pub breakdown: BreakdownAnswer,
    pub budget: Option<BudgetAnswer>,
    pub occupancy: OccupancyAnswer,
    pub facts: Facts,
    /// What the pre-allocation stages did (imported PTX only; absent on Ori IR).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prepass: Option<crate::why::stages::StagesAnswer>,
}

/// One register file's peak.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FileAnswer {
    pub file: &'static str,
    pub peak: u32,
    pub points: Vec<u32>,
    pub near: usize,
    pub at: u32,
    pub at_line: String,
    pub sources: Vec<SourceAnswer>,
    pub live: Vec<LiveAnswer>,
}

/// The values live at the peak defined on one CUDA line.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SourceAnswer {
    pub line: String,
    pub vregs: Vec<String>,
}

/// A vreg live at the peak.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LiveAnswer {
    pub vreg: String,
    pub width: u8,
    pub range: u32,
    pub loop_depth: u32,
    pub score: u64,
    pub defined: String,
    pub last_use: String,
    pub register: Option<String>,
}

/// [`Breakdown`]'s terms and their sum.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BreakdownAnswer {
    pub peak: u32,
    pub correction: i64,
    pub holes: u32,
    pub fixed: u32,
    pub precoloured: u32,
    pub elsewhere: u32,
    pub report_rule: u32,
    pub report_rule_reason: &'static str,
    /// Always 0: the count is one past the highest register, not rounded.
    pub rounding: u32,
    pub sum: i64,
}

/// The budget and what set it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BudgetAnswer {
    pub gpr: u32,
    pub source: String,
    pub diagnostics: Vec<String>,
    pub launch_bound: Option<u32>,
}

/// Resident warps per SM at the count, and the next step up.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OccupancyAnswer {
    pub warps: u32,
    pub limit: u32,
    pub next: Option<NextStep>,
}

/// The register count that gives more warps, and how many.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct NextStep {
    pub registers: u32,
    pub warps: u32,
}

/// Pressure curves of several files in one backward walk per block: the definition of
/// `Liveness::pressure_curve` (seed 004 pressure: `max(before, after + dead defs)`),
/// computed for every file at once so `why registers` walks the function once (a
/// property test checks the curves equal the per-file query's).
pub fn curves(f: &Function, live: &crate::analysis::Liveness, files: &[RegFile]) -> Vec<Vec<u32>> {
    let n = live.len() as usize;
    let nf = files.len();
    let mut out = vec![vec![0u32; n]; nf];
    let slot: Vec<Option<usize>> = f.vregs.iter().map(|v| files.iter().position(|x| *x == v.file())).collect();
    let width: Vec<i64> = f.vregs.iter().map(|v| v.width as i64).collect();
    let layout = f.layout();
    let mut w = vec![0i64; nf];
    let mut after = vec![0i64; nf];
    let mut seen: Vec<VRegId> = Vec::new();
    // One live set for every block (issue 25: a fresh set per block costs every vreg).
    let mut walk = crate::analysis::query::BlockWalk::new(live);
    for (b, blk) in f.blocks.iter().enumerate() {
        let Some(&start) = layout.block_start.get(b) else { break };
        let start = start as usize;
        if start >= n {
            break;
        }
        w.iter_mut().for_each(|x| *x = 0);
        for &v in walk.start(live, b) {
            if let Some(&Some(k)) = slot.get(v.index()) {
                w[k] += width[v.index()];
            }
        }
        for (i, inst) in blk.insts.iter().enumerate().rev() {
            after.copy_from_slice(&w);
            seen.clear();
            inst.for_each_def(|r| {
                if live.is_tracked(r.vreg) && !walk.live().contains(r.vreg) && !seen.contains(&r.vreg) {
                    seen.push(r.vreg);
                    if let Some(&Some(k)) = slot.get(r.vreg.index()) {
                        after[k] += width[r.vreg.index()];
                    }
                }
            });
            walk.step_back(live, inst, |v, ins| {
                if let Some(&Some(k)) = slot.get(v.index()) {
                    w[k] += if ins { width[v.index()] } else { -width[v.index()] };
                }
            });
            for k in 0..nf {
                if let Some(c) = out[k].get_mut(start + i) {
                    *c = w[k].max(after[k]).max(0) as u32;
                }
            }
        }
    }
    out
}

/// The pressure curve from the allocator's live ranges (positions 2p = read, 2p+1 =
/// write, so the point's pressure is the larger of its two): a pass over the segments
/// instead of a walk over the instructions. Equal to `Liveness::pressure_curve` when no
/// vreg has an alias parent (ranges count an alias group once); the property tests
/// check it on synthetic kernels.
pub fn curve_from_ranges(f: &Function, ranges: &crate::alloc::ranges::Ranges, file: RegFile) -> Vec<u32> {
    let pos = ranges.pressure(f, file, |_| true);
    (0..pos.len() / 2).map(|p| pos[2 * p].max(pos[2 * p + 1])).collect()
}

/// Peak pressure and the live vregs there, for one file, from its pressure curve.
pub fn file_peak(
    f: &Function,
    a: Option<&Placement>,
    live: &crate::analysis::Liveness,
    file: RegFile,
    curve: &[u32],
) -> FilePeak {
    let peak = curve.iter().copied().max().unwrap_or(0);
    let points: Vec<u32> = (0..curve.len() as u32).filter(|&p| curve[p as usize] == peak).collect();
    let near = curve.iter().filter(|&&c| c + 2 >= peak).count();
    let at = points.first().copied().unwrap_or(0);
    let layout = f.layout();
    let inst = layout.locate(at).and_then(|(b, i)| f.blocks.get(b).and_then(|blk| blk.insts.get(i)));
    let set = peak_set(f, live, at, file);
    let mut vregs: Vec<LiveVreg> = set.iter().map(|v| live_vreg(f, a, &layout, v)).collect();
    vregs.sort_by(|x, y| y.score.cmp(&x.score).then(x.vreg.0.cmp(&y.vreg.0)));
    FilePeak { file, peak, points, near, at, at_origin: inst.and_then(|i| i.origin), live: vregs }
}

/// The side of the pressure maximum at `p` (seed 004 pressure: before, or after plus
/// the instruction's defs), restricted to `file`.
fn peak_set(f: &Function, live: &crate::analysis::Liveness, p: u32, file: RegFile) -> LiveSet {
    let before = live.live_before(f, p).of_file(f, file);
    let mut after = live.live_after(f, p);
    if let Some((b, i)) = f.layout().locate(p) {
        f.blocks[b].insts[i].for_each_def(|r| {
            if r.vreg.index() < after.capacity() {
                after.insert(r.vreg);
            }
        });
    }
    let after = after.of_file(f, file);
    if after.weight(f, file) > before.weight(f, file) { after } else { before }
}

fn live_vreg(f: &Function, a: Option<&Placement>, layout: &crate::ir::Layout, v: VRegId) -> LiveVreg {
    let vr = f.vreg(v);
    let mut out = LiveVreg {
        vreg: v,
        name: vr.name.to_string(),
        width: vr.width,
        length: 0,
        depth: 0,
        score: 0,
        def: None,
        last_use: None,
        reg: a.and_then(|a| a.slot_of(v)).map(|s| reg_name(vr.file(), s, vr.width)),
    };
    let Some(a) = a else { return out };
    let an = &a.analysis;
    if v.index() >= an.ranges.root.len() {
        return out;
    }
    out.length = an.ranges.length(v).div_ceil(2);
    let (def, last, depth) = def_use(f, a, layout, v);
    (out.def, out.last_use, out.depth) = (def, last, depth);
    out.score = out.length as u64 * vr.width as u64 * (out.depth as u64 + 1);
    out
}

/// (point, origin) of the first definition and of the last use of `v`'s alias group,
/// and the deepest loop nesting of the blocks referencing it.
pub fn def_use(
    f: &Function,
    a: &Placement,
    layout: &crate::ir::Layout,
    v: VRegId,
) -> (Option<SrcAt>, Option<SrcAt>, u32) {
    let an = &a.analysis;
    let (mut def, mut last, mut depth) = (None, None, 0);
    let Some(&root) = an.ranges.root.get(v.index()) else { return (def, last, depth) };
    let in_group = |x: VRegId| an.ranges.root.get(x.index()) == Some(&root);
    for &p in an.costs.refs(root) {
        let Some((b, i)) = layout.locate(p) else { continue };
        let inst = &f.blocks[b].insts[i];
        depth = depth.max(an.cfg.loop_depth.get(b).copied().unwrap_or(0));
        let (mut d, mut u) = (false, false);
        inst.for_each_def(|r| d |= in_group(r.vreg));
        inst.for_each_use(|r| u |= in_group(r.vreg));
        if d && def.is_none() {
            def = Some((p, inst.origin));
        }
        if u {
            last = Some((p, inst.origin));
        }
    }
    (def, last, depth)
}

/// The breakdown of the reported count at the R file's peak point.
pub fn breakdown(f: &Function, a: &Placement, registers: u32, peak: &FilePeak) -> Breakdown {
    #[derive(Clone, Copy, PartialEq)]
    enum S {
        Free,
        Live,
        Fixed,
        Pre,
    }
    let top = registers as usize;
    let mut slots = vec![S::Free; top];
    let mark = |lo: usize, w: usize, s: S, slots: &mut Vec<S>| {
        for x in slots.iter_mut().skip(lo).take(w) {
            if *x == S::Free {
                *x = s;
            }
        }
    };
    let mut live_regs = 0u32;
    let mut starts = Vec::new();
    for lv in &peak.live {
        if let Some(s) = a.slot_of(lv.vreg) {
            let before = slots.iter().filter(|x| **x == S::Live).count();
            mark(s as usize, lv.width as usize, S::Live, &mut slots);
            live_regs += (slots.iter().filter(|x| **x == S::Live).count() - before) as u32;
            if lv.width >= 2 {
                starts.push((s as usize, lv.width.min(4) as usize));
            }
        }
    }
    let ff = a.config.first_free.unwrap_or(0) as usize;
    mark(0, ff, S::Fixed, &mut slots);
    for &(file, r) in &a.config.fixed {
        if file == RegFile::R {
            mark(r as usize, 1, S::Fixed, &mut slots);
        }
    }
    for inst in f.blocks.iter().flat_map(|b| &b.insts) {
        for op in &inst.operands {
            if let Operand::Reg(Reg::P(p)) = op
                && p.file == RegFile::R
                && !p.is_zero()
            {
                mark(p.index as usize, 1, S::Fixed, &mut slots);
            }
        }
    }
    for (i, vr) in f.vregs.iter().enumerate() {
        let id = VRegId::new(i);
        if vr.file() == RegFile::R
            && (vr.pin.is_some() || a.config.abi_pins.iter().any(|(v, _)| *v == id))
            && let Some(s) = a.slot_of(id)
        {
            mark(s as usize, vr.width as usize, S::Pre, &mut slots);
        }
    }
    // Alignment holes: the free registers of the group just below an aligned pair or quad
    // live at the peak, when that group is partly used (a narrower value sits there and
    // the wide one could not start inside it).
    let mut holes = 0;
    starts.sort_unstable();
    for &(s, w) in &starts {
        if s < w {
            continue;
        }
        let group = s - w..s;
        let used = group.clone().any(|x| slots.get(x).is_some_and(|y| *y != S::Free));
        if used {
            for x in group {
                if slots.get(x) == Some(&S::Free) {
                    slots[x] = S::Live; // counted below as a hole, not as live
                    holes += 1;
                }
            }
        }
    }
    let count = |s: S| slots.iter().filter(|x| **x == s).count() as u32;
    Breakdown {
        registers,
        peak: peak.peak,
        correction: live_regs as i64 - peak.peak as i64,
        holes,
        fixed: count(S::Fixed),
        precoloured: count(S::Pre),
        elsewhere: count(S::Free),
        rule: 0,
        rule_reason: "",
    }
}

/// Computes the report for function `fi` of a finished run.
pub fn report(cx: &Ctx, fi: usize) -> Report {
    let m = cx.m;
    let f = cx.func(fi);
    let placed = cx.placement(fi);
    let a = placed.as_ref();
    let r = &m.funcs[fi];
    let live = a.map(|a| &a.analysis.live).or_else(|| m.pipeline_liveness(fi));
    let mut files = Vec::new();
    if let Some(live) = live {
        let present: Vec<RegFile> =
            LIVENESS_FILES.into_iter().filter(|&file| f.vregs.iter().any(|v| v.file() == file)).collect();
        let cs = match a {
            Some(a) if f.vregs.iter().all(|v| v.alias.is_none()) && a.analysis.ranges.root.len() == f.vregs.len() => {
                present.iter().map(|&file| curve_from_ranges(f, &a.analysis.ranges, file)).collect()
            }
            _ => curves(f, live, &present),
        };
        for (file, curve) in present.into_iter().zip(&cs) {
            files.push(file_peak(f, a, live, file, curve));
        }
    }
    let stats = r.stats.as_ref();
    let registers = stats.map(|s| s.registers).unwrap_or(0);
    let rpeak = files.iter().find(|p| p.file == RegFile::R);
    let mut breakdown = match (a, rpeak) {
        (Some(a), Some(p)) => {
            // The allocation's own count; what the reporting rules add above it is a
            // term of its own, so the table sums to the reported figure exactly.
            let own = crate::alloc::stats::registers_used(a.func, &|v| a.slot_of(v)).min(registers);
            let mut b = breakdown(f, a, own, p);
            b.registers = registers;
            b.rule = registers - own;
            b
        }
        _ => Breakdown { registers, elsewhere: registers, ..Breakdown::default() },
    };
    if breakdown.rule > 0 {
        // Which rule of `engine::stages::report_stats` raised the count above the
        // allocation's own: the spilling and calling rules replace the figure; otherwise
        // it is the plain `+ REPORT_EXTRA` (before, every non-spilling entry was said to
        // call, calls or not).
        let own = registers - breakdown.rule;
        let plain = crate::alloc::stats::ptxas_reported(own);
        breakdown.rule_reason = match stats {
            Some(s) if s.spill_stores > 0 && registers > plain => {
                "ptxas reports an entry that spills at its whole budget (report rule)"
            }
            _ if registers > plain => "ptxas reports an entry that calls at least at the ABI minimum (report rule)",
            _ => "ptxas counts R0 up to the highest register it names, plus 2 (report rule)",
        };
    }
    Report {
        function: m.module.functions[fi].name.to_string(),
        files,
        breakdown,
        budget: r.budget.clone(),
        failed: stats.and_then(|s| s.error.clone()),
        sm: m.module.sm.version,
        scan_bound: cx
            .alloc(fi)
            .and_then(|a| a.plans.iter().find(|p| p.class.file() == RegFile::R))
            .map(|p| (p.budget + 4) & !3),
    }
}

/// The values live at a peak grouped by the CUDA line of their first definition (PTX
/// with `.loc` only): most values first, then by line; values with no line are left out.
pub fn by_source(cx: &Ctx, p: &FilePeak) -> Vec<((u32, u32), Vec<String>)> {
    let src = &cx.m.module.srcloc;
    let mut groups: Vec<((u32, u32), Vec<String>)> = Vec::new();
    for lv in &p.live {
        let Some(u) = lv.def.and_then(|(_, o)| o).and_then(|o| src.user_line(o)) else { continue };
        match groups.iter_mut().find(|(k, _)| *k == u) {
            Some((_, vs)) => vs.push(lv.name.to_string()),
            None => groups.push((u, vec![lv.name.to_string()])),
        }
    }
    groups.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then(a.0.cmp(&b.0)));
    groups
}

/// `  the values live at the peak come from hot.cu:8 (%f1, %rd6), :9 (%f2) and :6 (%r1)`:
/// a line in the same file as the one before it is written `:LINE`.
fn sources_text(cx: &Ctx, groups: &[((u32, u32), Vec<String>)]) -> Option<String> {
    if groups.is_empty() {
        return None;
    }
    let src = &cx.m.module.srcloc;
    let mut parts = Vec::new();
    let mut last_file = None;
    for ((file, line), vs) in groups {
        let at = if last_file == Some(*file) { format!(":{line}") } else { src.label_of((*file, *line)) };
        last_file = Some(*file);
        let names =
            if vs.len() > 4 { format!("{}, … {} values", vs[..3].join(", "), vs.len()) } else { vs.join(", ") };
        parts.push(format!("{at} ({names})"));
    }
    let list = match parts.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => parts.join(""),
    };
    Some(format!("  the values live at the peak come from {list}\n"))
}

pub fn at_line(cx: &Ctx, x: Option<(u32, Option<u32>)>) -> String {
    match x {
        Some((p, o)) => cx.at(o, p),
        None => "-".to_string(),
    }
}

/// The budget breakdown table of a finished allocation: every term, summing to the
/// reported count exactly.
fn budget_breakdown(t: &mut String, b: &Breakdown, scan_bound: Option<u32>) {
    t.push_str(&format!("budget breakdown of the {} registers (at the R peak point):\n", b.registers));
    let mut rows = vec![vec![format!("{}", b.peak), "peak live (R pressure)".to_string()]];
    if b.correction != 0 {
        rows.push(vec![
            format!("{:+}", b.correction),
            "registers the peak's vregs hold beyond their pressure (unassigned or sharing)".into(),
        ]);
    }
    rows.push(vec![format!("+{}", b.holes), "pair/quad alignment holes".into()]);
    rows.push(vec![
        format!("+{}", b.fixed),
        "ABI-fixed and reserved (R0–R3, return address, physical operands)".into(),
    ]);
    rows.push(vec![format!("+{}", b.precoloured), "pre-coloured operands (.pin, ABI bindings)".into()]);
    rows.push(vec![
        format!("+{}", b.elsewhere),
        "free at the peak but used at other points (fat-point placement)".into(),
    ]);
    if b.rule > 0 {
        rows.push(vec![format!("+{}", b.rule), b.rule_reason.into()]);
    }
    rows.push(vec!["+0".into(), "rounding: the count is one past the highest register, not rounded".into()]);
    rows.push(vec![format!("= {}", b.sum()), "registers reported (Used N registers)".into()]);
    t.push_str(&table(&rows));
    if let Some(sb) = scan_bound {
        t.push_str(&format!("  (the scan bound (budget+4)&~3 = {sb} limits where the scan looks, not the count)\n"));
    }
}

/// At most this many placement decisions are listed.
const PLACED: usize = 6;

/// Why registers above the packed ones are used (issue 23: placement is part of the
/// debugger): the values the fat-point scan put above a lower register of the same cost,
/// highest first, each with the tie-break that passed the lower one over
/// (`alloc::fatpoint::Tie`, recorded by the driver as `FunctionAlloc::placed`).
pub fn placement_text(cx: &Ctx, fi: usize) -> String {
    let (Some(a), Some(pl)) = (cx.alloc(fi), cx.placement(fi)) else { return String::new() };
    let f = cx.func(fi);
    let mut placed: Vec<(u16, VRegId, u16, crate::alloc::fatpoint::Tie)> = a
        .placed
        .iter()
        .filter(|(v, _)| f.vregs.get(v.index()).is_some_and(|vr| vr.file() == RegFile::R))
        .filter_map(|(&v, &(lower, tie))| a.slot_of(v).map(|s| (s, v, lower, tie)))
        .collect();
    if placed.is_empty() {
        return String::new();
    }
    placed.sort_by(|x, y| y.0.cmp(&x.0).then(x.1.cmp(&y.1)));
    let count = |t: crate::alloc::fatpoint::Tie| placed.iter().filter(|p| p.3 == t).count();
    let mut t = format!(
        "placement: {} value(s) took a register above a lower one of the same cost (ptxas does not pack to the minimum below the occupancy limit; {} by the store-data rotation, {} by bank parity, {} by a copy's preference):\n",
        placed.len(),
        count(crate::alloc::fatpoint::Tie::Rotation),
        count(crate::alloc::fatpoint::Tie::Parity),
        count(crate::alloc::fatpoint::Tie::Secondary),
    );
    let layout = f.layout();
    for &(s, v, lower, tie) in placed.iter().take(PLACED) {
        let (def, _, _) = def_use(f, &pl, &layout, v);
        t.push_str(&format!(
            "  {} ({}) in R{s}, not R{lower}: {}\n",
            f.vreg(v).name,
            at_line(cx, def),
            tie.text(&format!("R{lower}"))
        ));
    }
    if placed.len() > PLACED {
        t.push_str(&format!("  … and {} more\n", placed.len() - PLACED));
    }
    t
}

/// The class whose allocation failed, its budget, and its best attempt (seed 003's
/// tie-break): the registers it reached and how many values it left without one.
fn failed_class(cx: &Ctx, fi: usize) -> Option<(crate::ir::RegClass, u32, (u32, usize))> {
    let a = cx.alloc(fi)?;
    let res = a.results.iter().find(|c| !c.ok)?;
    let budget = a.plans.iter().find(|p| p.class == res.class).map(|p| p.budget)?;
    let best =
        crate::alloc::attempt::best_of(&a.records, res.class).map_or((res.used, 0), |r| (r.used, r.needs_spill.len()));
    Some((res.class, budget, best))
}

/// The text, typed answer and facts of `why registers`.
pub fn explain(cx: &Ctx, fi: usize) -> Explanation {
    let r = report(cx, fi);
    let src = &cx.m.module.functions[fi];
    let failed_class = r.failed.as_ref().and_then(|_| failed_class(cx, fi));
    let mut t = match (&r.failed, &failed_class) {
        (Some(_), Some((class, budget, (used, left)))) => format!(
            "why registers: {} has no register count: allocation of class {} FAILED at its budget of {budget} (the best attempt {})",
            r.function,
            class.name(),
            if *left == 0 {
                format!("needed {used}")
            } else {
                format!("reached {used} and left {left} value(s) without a register")
            }
        ),
        (Some(e), None) => format!("why registers: {} has no register count: allocation FAILED ({e})", r.function),
        (None, _) => format!("why registers: {} uses {} registers", r.function, r.breakdown.registers),
    };
    t.push('\n');
    for p in &r.files {
        t.push_str(&format!(
            "{} file: peak pressure {} at {} point(s), first at point {} ({}); {} point(s) within 2 of the peak\n",
            p.file.prefix(),
            p.peak,
            p.points.len(),
            p.at,
            cx.at(p.at_origin, p.at),
            p.near
        ));
        let mut rows =
            vec![["vreg", "width", "range", "loop", "defined", "last use", "register"].map(String::from).to_vec()];
        for lv in p.live.iter().take(LIST) {
            rows.push(vec![
                lv.name.to_string(),
                lv.width.to_string(),
                lv.length.to_string(),
                lv.depth.to_string(),
                at_line(cx, lv.def),
                at_line(cx, lv.last_use),
                lv.reg.clone().unwrap_or_else(|| "-".into()),
            ]);
        }
        if !p.live.is_empty() {
            t.push_str(&table(&rows));
        }
        if p.live.len() > LIST {
            t.push_str(&format!("  … and {} more live there\n", p.live.len() - LIST));
        }
        if let Some(line) = sources_text(cx, &by_source(cx, p)) {
            t.push_str(&line);
        }
        // Names the importer and the prepasses made (`%v4tmp0`, `%rd16$32`, `%f3$rl0`):
        // what PTX register and line each stands for.
        if cx.m.opts.imported {
            let f = cx.func(fi);
            // Neighbours that stand for the same thing (the registers one routine call
            // clobbers) share one line.
            let mut said: Vec<(Vec<&str>, String)> = Vec::new();
            for lv in p.live.iter().take(LIST) {
                if let Some(x) = crate::engine::query_source::stands_for(cx.m, f, lv.vreg) {
                    match said.last_mut() {
                        Some((names, last)) if *last == x => names.push(&lv.name),
                        _ => said.push((vec![&lv.name], x)),
                    }
                }
            }
            for (names, x) in said {
                match names.as_slice() {
                    [one] => t.push_str(&format!("  {one} is {x}\n")),
                    many => t.push_str(&format!("  {} are each {x}\n", many.join(", "))),
                }
            }
        }
    }
    if let Some(msg) = &cx.m.funcs[fi].uninit {
        // radbg's own finding (seed 004's detector), not a ptxas `-v` line: ptxas 13.0.88
        // prints no such warning on the real-kernel gate.
        t.push_str(&format!("note (radbg, not printed by ptxas): {msg}\n"));
    }
    let stages = crate::why::stages::replay(cx.m, fi);
    if let Some(st) = &stages {
        t.push_str(&crate::why::stages::text(st));
    }
    let b = &r.breakdown;
    if r.failed.is_some() {
        // A failed allocation has no count to break down, and no occupancy: say what it
        // would take instead (never "0 registers").
        if let Some((class, budget, (used, _))) = failed_class {
            let cap = crate::alloc::budget::file_cap(class.file(), &cx.m.knobs);
            if budget < cap {
                t.push_str(&format!(
                    "it needs more than {budget} {} registers: raise the budget (above {used}, at most the file's {cap}) or lower the pressure at the peak above; `why fail` shows which values found no register\n",
                    class.name()
                ));
            } else {
                t.push_str(&format!(
                    "it needs more than the {cap} {} registers the file holds: no budget fits; lower the pressure at the peak above (`why fail` shows which values found no register)\n",
                    class.name()
                ));
            }
        }
    } else {
        budget_breakdown(&mut t, b, r.scan_bound);
        if b.elsewhere > 0 {
            t.push_str(&placement_text(cx, fi));
        }
    }
    if let Some(bg) = &r.budget {
        let set_by = cx.m.budget_source(src, bg);
        t.push_str(&format!("budget: {} registers, set by {set_by}\n", bg.gpr));
        let mut inputs = vec![format!("architectural cap {}", crate::alloc::budget::GPR_CAP)];
        if let Some(n) = cx.m.module.options.maxrregcount {
            inputs.push(format!("--maxrregcount {n}"));
        }
        if let Some(n) = src.maxnreg {
            inputs.push(format!(".maxnreg {n}"));
        }
        if let Some(t) = crate::alloc::budget::block_threads(src) {
            let mut s = format!("{t} threads per block");
            if let Some(b) = src.minnctapersm {
                s.push_str(&format!(", .minnctapersm {b}"));
            }
            if let Some(lb) = bg.launch_bound {
                s.push_str(&format!(" → {lb}"));
            }
            inputs.push(s);
        }
        if let Some(a) = cx.alloc(fi)
            && a.config.uses_abi
            && let Some(min) = cx.m.module.sm.abi_minimum()
        {
            inputs.push(format!("ABI floor {min}"));
        }
        t.push_str(&format!("  inputs: {}\n", inputs.join(", ")));
        for d in &bg.diagnostics {
            t.push_str(&format!("  IGNORED/OVERRIDDEN: {d}\n"));
        }
    }
    let (w, lim) = occupancy::occupancy(r.sm, b.registers);
    let next = occupancy::next_step(r.sm, b.registers);
    if r.failed.is_none() {
        t.push_str(&format!("occupancy: {w} of {lim} warps per SM at {} registers", b.registers));
        match next {
            Some((nr, nw)) => {
                t.push_str(&format!("; free {} register(s) (down to {nr}) for {nw} warps\n", b.registers - nr))
            }
            None => t.push_str("; already at the highest step\n"),
        }
    }
    let rp = r.files.iter().find(|p| p.file == RegFile::R);
    let mut facts = vec![
        ("registers".to_string(), b.registers as i64),
        ("peak".to_string(), rp.map(|p| p.peak).unwrap_or(0) as i64),
        ("peak-point".to_string(), rp.map(|p| p.at).unwrap_or(0) as i64),
        ("peak-source-lines".to_string(), rp.map(|p| by_source(cx, p).len()).unwrap_or(0) as i64),
        ("near-peak".to_string(), rp.map(|p| p.near).unwrap_or(0) as i64),
        ("holes".to_string(), b.holes as i64),
        ("fixed".to_string(), b.fixed as i64),
        ("precoloured".to_string(), b.precoloured as i64),
        ("elsewhere".to_string(), b.elsewhere as i64),
        ("report-rule".to_string(), b.rule as i64),
        ("budget".to_string(), r.budget.as_ref().map(|b| b.gpr).unwrap_or(0) as i64),
        ("occupancy".to_string(), w as i64),
        ("free-for-next".to_string(), next.map(|(nr, _)| (b.registers - nr) as i64).unwrap_or(0)),
    ];
    if let Some(st) = &stages {
        facts.extend(crate::why::stages::facts(st));
    }
    let files = r
        .files
        .iter()
        .map(|p| FileAnswer {
            file: p.file.prefix(),
            peak: p.peak,
            points: p.points.clone(),
            near: p.near,
            at: p.at,
            at_line: cx.at(p.at_origin, p.at),
            sources: by_source(cx, p)
                .into_iter()
                .map(|(u, vregs)| SourceAnswer { line: cx.m.module.srcloc.label_of(u), vregs })
                .collect(),
            live: p
                .live
                .iter()
                .map(|lv| LiveAnswer {
                    vreg: lv.name.to_string(),
                    width: lv.width,
                    range: lv.length,
                    loop_depth: lv.depth,
                    score: lv.score,
                    defined: at_line(cx, lv.def),
                    last_use: at_line(cx, lv.last_use),
                    register: lv.reg.clone(),
                })
                .collect(),
        })
        .collect();
    let answer = RegistersAnswer {
        function: r.function.clone(),
        registers: b.registers,
        failed: r.failed.clone(),
        files,
        breakdown: BreakdownAnswer {
            peak: b.peak,
            correction: b.correction,
            holes: b.holes,
            fixed: b.fixed,
            precoloured: b.precoloured,
            elsewhere: b.elsewhere,
            report_rule: b.rule,
            report_rule_reason: b.rule_reason,
            rounding: 0,
            sum: b.sum(),
        },
        budget: r.budget.as_ref().map(|bg| BudgetAnswer {
            gpr: bg.gpr,
            source: cx.m.budget_source(src, bg),
            diagnostics: bg.diagnostics.clone(),
            launch_bound: bg.launch_bound,
        }),
        occupancy: OccupancyAnswer {
            warps: w,
            limit: lim,
            next: next.map(|(registers, warps)| NextStep { registers, warps }),
        },
        facts: Facts(facts),
        prepass: stages.as_ref().map(crate::why::stages::answer),
    };
    Explanation { text: t, answer: Answer::Registers(answer) }
}
