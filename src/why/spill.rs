//! `why spill %vreg`: the attempt and class where the vreg was marked needs-spill, the
//! fat-point decision at that assignment (its cost histogram around the chosen slot, the
//! discard threshold, the budget; seed 000 "Fat-point scan"), the guidance queue and
//! cost that picked it and the cheapest alternative there (seed 003, "Spill guidance"),
//! and the stores and reloads inserted with their source lines (seed 003, "Spill code").
//!
//! Reads the trace and the finished allocation; revisits decisions on a copy of the
//! debugger (never moves the caller's cursor). Must not know about the front ends.

use serde_json::json;

use crate::alloc::AllocEvent as A;
use crate::engine::{EventKind, query};
use crate::ir::VRegId;
use crate::why::{Ctx, Explanation, facts_json};

/// Slots shown either side of the chosen one.
const WINDOW: usize = 4;

pub fn explain(cx: &Ctx, fi: usize, name: &str) -> Result<Explanation, String> {
    // The current function first, then any function that has the vreg.
    let n = cx.m.module.functions.len();
    let fi = std::iter::once(fi).chain(0..n).find(|&i| cx.func(i).vreg_by_name(name).is_some()).ok_or_else(|| {
        let f = cx.func(fi);
        let hint = crate::util::closest(name, f.vregs.iter().map(|v| v.name.as_str()))
            .map(|s| format!(" (did you mean {s}?)"))
            .unwrap_or_default();
        format!("no vreg {name} in any function{hint}")
    })?;
    let f = cx.func(fi);
    let v = f.vreg_by_name(name).expect("found");
    let fname = &cx.m.module.functions[fi].name;
    let a = cx.alloc(fi);
    let rec = a.and_then(|a| a.spills.iter().find(|s| s.vreg == v));
    let mut t = String::new();
    let mut facts = vec![("spilled".to_string(), rec.is_some() as i64)];
    let mut j = serde_json::Map::new();
    j.insert("why".into(), json!("spill"));
    j.insert("function".into(), json!(fname));
    j.insert("vreg".into(), json!(name));
    j.insert("spilled".into(), json!(rec.is_some()));
    let vr = f.vreg(v);
    // After spilling, the vreg's later uses read reload temporaries: its last use is
    // the last one of the vreg or of any of its temporaries.
    let (def, last) = match a {
        Some(a) => {
            let layout = f.layout();
            let (d, mut l, _) = crate::why::registers::def_use(f, a, &layout, v);
            for &t in rec.map(|r| r.temps.as_slice()).unwrap_or(&[]) {
                let (_, lt, _) = crate::why::registers::def_use(f, a, &layout, t);
                if lt.is_some_and(|x| l.is_none_or(|y| x.0 > y.0)) {
                    l = lt;
                }
            }
            (d, l)
        }
        None => (None, None),
    };
    t.push_str(&format!(
        "why spill {name}: {} in {fname} ({} ×{}, defined {}, last used {})\n",
        if rec.is_some() { "spilled" } else { "not spilled" },
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
            EventKind::Alloc(A::Guidance { chosen: c, attempt, .. }) if c.contains(&v) && chosen.is_none() => {
                chosen = Some((i + 1, *attempt));
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
        j.insert("marked".into(), json!({"event": ev, "class": x.class.name(), "attempt": x.attempt,
            "slot": x.slot, "cost": x.cost, "needs_spill": x.needs_spill, "discarded": x.discarded, "blocked": x.blocked}));
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
                j.insert(
                    "histogram".into(),
                    json!({"from": lo, "costs": h.primary[lo..hi].to_vec(),
                    "threshold": h.threshold, "budget": h.budget, "chosen": h.chosen}),
                );
            }
        }
    } else if rec.is_some() {
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
                    let an = c.machine().cur.as_ref().map(|x| x.func().vreg(q.vreg).name.clone()).unwrap_or_default();
                    t.push_str(&format!(
                        "  cheapest alternative the model saw: {an} (cost {:.2}, frees {})\n",
                        q.cost, q.interior
                    ));
                    j.insert("alternative".into(), json!({"vreg": an, "cost": q.cost, "frees": q.interior}));
                }
                j.insert(
                    "guidance".into(),
                    json!({"event": ev, "position": pos.map(|p| p + 1),
                    "queue": g.queue.len(), "peak_before": g.peak_before, "peak_after": g.peak_after}),
                );
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
        j.insert(
            "code".into(),
            json!({"stores": r.stores, "reloads": r.reloads, "bytes": r.bytes,
            "offset": r.offset, "memory": mem,
            "lines": lines.iter().map(|(w, a)| json!({"kind": w, "at": a})).collect::<Vec<_>>()}),
        );
    } else if let Some(s) = a.and_then(|a| a.slot_of(v)) {
        t.push_str(&format!("it holds {}\n", query::reg_name(vr.file(), s, vr.width)));
    }
    j.insert("facts".into(), facts_json(&facts));
    Ok(Explanation { text: t, json: serde_json::Value::Object(j), facts })
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
