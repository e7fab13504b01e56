//! `why spill %vreg`: the attempt and class where the vreg was marked needs-spill, the
//! fat-point decision at that assignment (its cost histogram around the chosen slot, the
//! discard threshold, the budget; seed 000 "Fat-point scan"), the guidance queue and
//! cost that picked it and the cheapest alternative there (seed 003, "Spill guidance"),
//! and the stores and reloads inserted with their source lines (seed 003, "Spill code").
//!
//! Reads the trace and the finished allocation; revisits decisions on a copy of the
//! debugger (never moves the caller's cursor). Must not know about the front ends.

use serde::Serialize;

use crate::alloc::AllocEvent as A;
use crate::engine::{EventKind, query};
use crate::ir::VRegId;
use crate::why::{Answer, Ctx, Explanation, Facts};

/// Slots shown either side of the chosen one.
const WINDOW: usize = 4;

/// `why spill` as tools read it (`--json`); each part is absent when the explanation
/// has nothing to say about it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "why", rename = "spill")]
pub struct SpillAnswer {
    pub function: String,
    pub vreg: String,
    pub spilled: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub marked: Option<Marked>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub histogram: Option<HistogramWindow>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alternative: Option<Alternative>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub guidance: Option<GuidanceAnswer>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<SpillCode>,
    pub facts: Facts,
}

/// The fat-point decision that marked the vreg needs-spill (seed 000 "Fat-point scan").
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Marked {
    /// 1-based event number.
    pub event: usize,
    pub class: &'static str,
    pub attempt: u32,
    pub slot: Option<u16>,
    pub cost: u32,
    pub needs_spill: bool,
    pub discarded: u32,
    pub blocked: u32,
}

/// The cost histogram around the chosen slot at that decision.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HistogramWindow {
    /// The first slot shown.
    pub from: usize,
    pub costs: Vec<u32>,
    pub threshold: u32,
    pub budget: u32,
    pub chosen: Option<u16>,
}

/// The cheapest vreg guidance did not choose (seed 003, "Spill guidance").
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Alternative {
    pub vreg: String,
    pub cost: f64,
    pub frees: u32,
}

/// The guidance step that chose the vreg.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GuidanceAnswer {
    pub event: usize,
    /// 1-based position in the queue, cheapest first.
    pub position: Option<usize>,
    /// The queue's length.
    pub queue: usize,
    pub peak_before: u32,
    pub peak_after: u32,
}

/// The spill code inserted for the vreg (seed 003, "Spill code").
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SpillCode {
    pub stores: u32,
    pub reloads: u32,
    pub bytes: u32,
    pub offset: u32,
    pub memory: &'static str,
    pub lines: Vec<SpillLine>,
}

/// A spill store or reload and where it is.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SpillLine {
    pub kind: &'static str,
    pub at: String,
}

pub fn explain(cx: &Ctx, fi: usize, name: &str) -> Result<Explanation, String> {
    // The current function first, then any function that has the vreg.
    let n = cx.m.module.functions.len();
    let fi = std::iter::once(fi).chain(0..n).find(|&i| cx.func(i).vreg_by_name(name).is_some()).ok_or_else(|| {
        let f = cx.func(fi);
        let hint = crate::util::closest(name, f.vregs.iter().map(|v| v.name.as_ref()))
            .map(|s| format!(" (did you mean {s}?)"))
            .unwrap_or_default();
        format!("no vreg {name} in any function{hint}")
    })?;
    let f = cx.func(fi);
    let v = f.vreg_by_name(name).expect("found");
    let fname = &cx.m.module.functions[fi].name;
    let a = cx.alloc(fi);
    let rec = a.and_then(|a| a.spills.iter().find(|s| s.vreg == v));
    let remat = a.and_then(|a| a.remats.iter().find(|s| s.vreg == v));
    let mut t = String::new();
    let mut facts = vec![("spilled".to_string(), rec.is_some() as i64)];
    facts.push(("rematerialized".to_string(), remat.is_some() as i64));
    let mut answer = SpillAnswer {
        function: fname.clone(),
        vreg: name.to_string(),
        spilled: rec.is_some(),
        marked: None,
        histogram: None,
        alternative: None,
        guidance: None,
        code: None,
        facts: Facts::default(),
    };
    let vr = f.vreg(v);
    // After spilling, the vreg's later uses read reload temporaries: its last use is
    // the last one of the vreg or of any of its temporaries.
    let (def, last) = match cx.placement(fi) {
        Some(a) => {
            let a = &a;
            let layout = f.layout();
            let (d, mut l, _) = crate::why::registers::def_use(f, a, &layout, v);
            let mut d = d;
            let temps = rec.map(|r| r.temps.as_slice()).or(remat.map(|r| r.temps.as_slice())).unwrap_or(&[]);
            for &t in temps {
                let (dt, lt, _) = crate::why::registers::def_use(f, a, &layout, t);
                if lt.is_some_and(|x| l.is_none_or(|y| x.0 > y.0)) {
                    l = lt;
                }
                // A rematerialized value's own def is gone: its first recomputation
                // stands for it.
                if remat.is_some() && dt.is_some_and(|x| d.is_none_or(|y| x.0 < y.0)) {
                    d = dt;
                }
            }
            (d, l)
        }
        None => (None, None),
    };
    t.push_str(&format!(
        "why spill {name}: {} in {fname} ({} ×{}, defined {}, last used {})\n",
        if rec.is_some() {
            "spilled"
        } else if remat.is_some() {
            "rematerialized (chosen to spill, recomputed instead)"
        } else {
            "not spilled"
        },
        vr.class.name(),
        vr.width,
        crate::why::registers::at_line(cx, def),
        crate::why::registers::at_line(cx, last),
    ));
    // Where it was marked: the first needs-spill (or unplaceable) decision.
    let mut marked = None;
    let mut chosen = None;
    let mut code = None;
    for (i, e) in cx.trace.iter().enumerate() {
        if e.func != Some(fi) {
            continue;
        }
        match &e.kind {
            EventKind::Alloc(A::Assign(x))
                if x.vreg == v && (x.needs_spill || x.slot.is_none()) && marked.is_none() =>
            {
                marked = Some((i + 1, x.clone()));
            }
            EventKind::Alloc(A::Guidance(g)) if g.chosen.contains(&v) && chosen.is_none() => {
                chosen = Some((i + 1, g.attempt));
            }
            EventKind::Alloc(A::SpillCode { vregs, stores, loads, frame, smem, .. })
                if vregs.iter().any(|(x, _)| *x == v) && code.is_none() =>
            {
                code = Some((i + 1, *stores, *loads, *frame, *smem));
            }
            _ => {}
        }
    }
    if let Some((ev, x)) = &marked {
        t.push_str(&format!(
            "marked at event #{ev}: class {} attempt {}, stack position {} ({:?} list)\n",
            x.class.name(),
            x.attempt,
            x.index,
            x.list
        ));
        let slot = x.slot.map(|s| format!("{}{s}", x.class.file().prefix())).unwrap_or_else(|| "none".into());
        t.push_str(&format!(
            "  fat-point decision: slot {slot}{}, cost {}, secondary {}, {} slot(s) discarded over the threshold, {} blocked\n",
            if x.needs_spill { " (at or above the budget: needs-spill, not committed)" } else { "" },
            x.cost,
            x.secondary,
            x.discarded,
            x.blocked
        ));
        facts.push(("attempt".to_string(), x.attempt as i64));
        answer.marked = Some(Marked {
            event: *ev,
            class: x.class.name(),
            attempt: x.attempt,
            slot: x.slot,
            cost: x.cost,
            needs_spill: x.needs_spill,
            discarded: x.discarded,
            blocked: x.blocked,
        });
        if let Some(d) = cx.d {
            let mut c = d.clone_light();
            c.goto(*ev);
            if let Some(h) = query::histogram(c.machine()) {
                let centre = h.chosen.map(|s| s as usize).unwrap_or(h.budget as usize);
                let lo = centre.saturating_sub(WINDOW);
                let hi = (centre + WINDOW + 1).min(h.primary.len());
                let cells: Vec<String> = (lo..hi)
                    .map(|s| {
                        let mark = if Some(s as u16) == h.chosen {
                            "*"
                        } else if h.blocked[s] {
                            "x"
                        } else {
                            ""
                        };
                        format!("{}{s}={}{mark}", h.file.prefix(), h.primary[s])
                    })
                    .collect();
                t.push_str(&format!(
                    "  histogram around the slot (cost per slot, * chosen, x blocked): {}\n  threshold {}, budget {}\n",
                    cells.join(" "),
                    h.threshold,
                    h.budget
                ));
                answer.histogram = Some(HistogramWindow {
                    from: lo,
                    costs: h.primary[lo..hi].to_vec(),
                    threshold: h.threshold,
                    budget: h.budget,
                    chosen: h.chosen,
                });
            }
        }
    } else if rec.is_some() || remat.is_some() {
        t.push_str("never marked needs-spill itself: guidance chose it to lower the pressure\n");
    }
    if let Some((ev, attempt)) = chosen {
        t.push_str(&format!("chosen for spilling by guidance at event #{ev} (after attempt {attempt})\n"));
        if let Some(d) = cx.d {
            let mut c = d.clone_light();
            c.goto(ev);
            if let Some(g) = c.machine().cur.as_ref().and_then(|x| x.fatpoint()).and_then(|x| x.guidance.as_ref()) {
                let pos = g.queue.iter().position(|q| q.vreg == v);
                let me = pos.map(|p| &g.queue[p]);
                if let Some(q) = me {
                    t.push_str(&format!(
                        "  queue position {} of {} (cheapest first): cost {:.2}, frees {} position(s)\n",
                        pos.unwrap_or(0) + 1,
                        g.queue.len(),
                        q.cost,
                        q.interior
                    ));
                }
                t.push_str(&format!(
                    "  pressure peak {} → {} after the chosen spills (target {})\n",
                    g.peak_before, g.peak_after, g.target
                ));
                let alt = g.queue.iter().find(|q| !g.chosen.contains(&q.vreg));
                if let Some(q) = alt {
                    let an =
                        c.machine().cur.as_ref().map(|x| x.func().vreg(q.vreg).name.to_string()).unwrap_or_default();
                    t.push_str(&format!(
                        "  cheapest alternative the model saw: {an} (cost {:.2}, frees {})\n",
                        q.cost, q.interior
                    ));
                    answer.alternative = Some(Alternative { vreg: an, cost: q.cost, frees: q.interior });
                }
                answer.guidance = Some(GuidanceAnswer {
                    event: ev,
                    position: pos.map(|p| p + 1),
                    queue: g.queue.len(),
                    peak_before: g.peak_before,
                    peak_after: g.peak_after,
                });
            }
        }
    }
    if let Some(r) = rec {
        let mem = match r.mem {
            crate::alloc::spill::SpillMem::Local => "local memory",
            crate::alloc::spill::SpillMem::Shared => "shared memory",
        };
        t.push_str(&format!(
            "spill code: {} store(s), {} reload(s), {} byte(s) at offset {} in {mem}\n",
            r.stores, r.reloads, r.bytes, r.offset
        ));
        let lines = spill_lines(cx, fi, v, &r.temps);
        for (what, at) in &lines {
            t.push_str(&format!("  {what} at {at}\n"));
        }
        if let Some((ev, st, ld, frame, _)) = code {
            t.push_str(&format!(
                "  (event #{ev}: the class's spill code moved {st} B stored, {ld} B loaded, frame {frame} B)\n"
            ));
        }
        facts.push(("stores".to_string(), r.stores as i64));
        facts.push(("reloads".to_string(), r.reloads as i64));
        facts.push(("bytes".to_string(), r.bytes as i64));
        answer.code = Some(SpillCode {
            stores: r.stores,
            reloads: r.reloads,
            bytes: r.bytes,
            offset: r.offset,
            memory: mem,
            lines: lines.into_iter().map(|(kind, at)| SpillLine { kind, at }).collect(),
        });
    } else if let Some(r) = remat {
        // Issue 23 rule 16: the def reads no register, so it is repeated where the value
        // is read (ptxas re-reads `SR_CTAID.X` under a tight budget) — no slot, no bytes.
        let def = r
            .temps
            .first()
            .and_then(|&t0| {
                let g = &a?.func;
                let i = g
                    .blocks
                    .iter()
                    .flat_map(|b| &b.insts)
                    .find(|i| i.defs().first().and_then(|o| o.as_vreg()).is_some_and(|d| d.vreg == t0))?;
                let text = crate::ir::print::print_inst(g, i);
                Some(text.split_once(" = ").map_or(text.clone(), |(_, r)| r.to_string()))
            })
            .unwrap_or_default();
        t.push_str(&format!(
            "rematerialized: its def ({def}) reads no register, so it is recomputed right before each of the {} instruction(s) that read it — no spill slot, no spill bytes (knob radbg.SpillRemat)\n",
            r.temps.len()
        ));
        facts.push(("recomputed".to_string(), r.temps.len() as i64));
    } else if let Some(s) = a.and_then(|a| a.slot_of(v)) {
        t.push_str(&format!("it holds {}", query::reg_name(vr.file(), s, vr.width)));
        // Placement (issue 23): the lower register of the same cost the scan passed over.
        let root = a.and_then(|a| a.analysis.ranges.root.get(v.index()).copied()).unwrap_or(v);
        if let Some(&(lower, tie)) = a.and_then(|a| a.placed.get(&root)) {
            let low = query::reg_name(vr.file(), lower, vr.width);
            t.push_str(&format!(", not {low}: {}", tie.text(&low)));
        }
        t.push('\n');
    }
    answer.facts = Facts(facts);
    Ok(Explanation { text: t, answer: Answer::Spill(answer) })
}

/// Spill stores of `v` and reloads into its temporaries, with their source lines: only
/// the instructions that reference them (the cost analysis's reference lists) are read.
fn spill_lines(cx: &Ctx, fi: usize, v: VRegId, temps: &[VRegId]) -> Vec<(&'static str, String)> {
    let f = cx.func(fi);
    let Some(a) = cx.alloc(fi) else { return Vec::new() };
    let costs = &a.analysis.costs;
    let roots = &a.analysis.ranges.root;
    let mut points: Vec<u32> = Vec::new();
    for &x in std::iter::once(&v).chain(temps) {
        if let Some(&r) = roots.get(x.index()) {
            points.extend_from_slice(costs.refs(r));
        }
    }
    points.sort_unstable();
    points.dedup();
    let layout = f.layout();
    let mut out = Vec::new();
    for p in points {
        let Some((b, i)) = layout.locate(p) else { continue };
        let inst = &f.blocks[b].insts[i];
        if !crate::alloc::spill::is_spill_code(inst) {
            continue;
        }
        let mut store = false;
        let mut load = false;
        inst.for_each_use(|r| store |= r.vreg == v && inst.ndefs == 0);
        inst.for_each_def(|r| load |= r.vreg == v || temps.contains(&r.vreg));
        if store {
            out.push(("store", cx.at(inst.origin, p)));
        } else if load {
            out.push(("reload", cx.at(inst.origin, p)));
        }
    }
    out
}
