//! `why differ`: between two runs (other knobs, budget, target, or two versions of a
//! kernel), the first allocation decision that diverges, then the per-vreg assignment,
//! spilled-set and peak-pressure deltas. Runs are compared event by event in trace order
//! (the pipeline is deterministic, so the first unequal event is the first divergence).
//!
//! Reads two finished machines and their traces; must not know about the front ends.

use serde_json::json;

use crate::engine::{Debugger, Event, EventKind, Machine, RunOptions};
use crate::ir::RegFile;
use crate::why::{Explanation, facts_json};

/// One side of a comparison.
pub struct Side<'a> {
    pub label: String,
    pub m: &'a Machine,
    pub trace: &'a [Event],
}

/// Whether an event is a decision worth naming (not bookkeeping).
fn decision(e: &Event) -> bool {
    use crate::alloc::AllocEvent as A;
    matches!(
        &e.kind,
        EventKind::Budget { .. }
            | EventKind::Alloc(
                A::Assign(_) | A::AttemptEnd { .. } | A::Guidance { .. } | A::SpillCode { .. } | A::ClassEnd { .. }
            )
    )
}

/// The key two events must share to be "the same decision": function name, kind, and
/// for assignments the vreg's name (so two versions of a file line up by name).
fn same(a: &Side, x: &Event, b: &Side, y: &Event) -> bool {
    let fname = |s: &Side, e: &Event| e.func.map(|i| s.m.module.functions[i].name.clone());
    if fname(a, x) != fname(b, y) {
        return false;
    }
    if let (Some(fa), Some(fb)) = (x.func, y.func)
        && let (
            EventKind::Alloc(crate::alloc::AllocEvent::Assign(p)),
            EventKind::Alloc(crate::alloc::AllocEvent::Assign(q)),
        ) = (&x.kind, &y.kind)
    {
        let na = &crate::engine::query::func_ir(a.m, fa).vreg(p.vreg).name;
        let nb = &crate::engine::query::func_ir(b.m, fb).vreg(q.vreg).name;
        return na == nb && p.slot == q.slot && p.needs_spill == q.needs_spill && p.attempt == q.attempt;
    }
    x.kind == y.kind
}

/// Compares two finished runs.
pub fn compare(a: &Side, b: &Side) -> Explanation {
    let da: Vec<&Event> = a.trace.iter().filter(|e| decision(e)).collect();
    let db: Vec<&Event> = b.trace.iter().filter(|e| decision(e)).collect();
    let first = (0..da.len().max(db.len())).find(|&i| match (da.get(i), db.get(i)) {
        (Some(x), Some(y)) => !same(a, x, b, y),
        _ => true,
    });
    let mut t = format!("why differ: {} vs {}\n", a.label, b.label);
    let mut j = serde_json::Map::new();
    j.insert("why".into(), json!("differ"));
    let mut facts = vec![("diverges".to_string(), first.is_some() as i64)];
    match first {
        None => t.push_str("no decision differs: the runs are identical\n"),
        Some(i) => {
            let show = |s: &Side, e: Option<&&Event>| match e {
                Some(e) => s.m.describe(e),
                None => "(no more decisions)".to_string(),
            };
            t.push_str(&format!("first diverging decision (decision #{}):\n", i + 1));
            t.push_str(&format!("  {}: {}\n", a.label, show(a, da.get(i))));
            t.push_str(&format!("  {}: {}\n", b.label, show(b, db.get(i))));
            facts.push(("decision".to_string(), i as i64 + 1));
            j.insert("first".into(), json!({"decision": i + 1, "a": show(a, da.get(i)), "b": show(b, db.get(i))}));
        }
    }
    let mut moved = 0i64;
    let mut fj = Vec::new();
    for (fa, f) in a.m.module.functions.iter().enumerate() {
        let Some(fb) = b.m.module.function(&f.name) else { continue };
        let (aa, ab) = (a.m.funcs[fa].alloc.as_deref(), b.m.funcs[fb].alloc.as_deref());
        let (Some(aa), Some(ab)) = (aa, ab) else { continue };
        let mut changes = Vec::new();
        for (i, vr) in aa.func.vregs.iter().enumerate().take(aa.original_vregs) {
            let Some(vb) = ab.func.vreg_by_name(&vr.name) else { continue };
            let va = crate::ir::VRegId::new(i);
            let spilled_a = aa.spills.iter().any(|s| s.vreg == va);
            let spilled_b = ab.spills.iter().any(|s| s.vreg == vb);
            let sa = if spilled_a { None } else { aa.slot_of(va) };
            let sb = if spilled_b { None } else { ab.slot_of(vb) };
            if (sa, spilled_a) != (sb, spilled_b) {
                let r = |s: Option<u16>, sp: bool| match s {
                    _ if sp => "spilled".to_string(),
                    Some(s) => format!("{}{s}", vr.file().prefix()),
                    None => "-".into(),
                };
                let (sa, sb) = ((sa, spilled_a), (sb, spilled_b));
                let r = |x: (Option<u16>, bool)| r(x.0, x.1);
                changes.push(format!("{} {} → {}", vr.name, r(sa), r(sb)));
            }
        }
        let names = |x: &crate::alloc::FunctionAlloc| -> Vec<String> {
            let mut v: Vec<String> = x.spills.iter().map(|s| x.func.vreg(s.vreg).name.clone()).collect();
            v.sort();
            v
        };
        let (sa, sb) = (names(aa), names(ab));
        let only_a: Vec<&String> = sa.iter().filter(|n| !sb.contains(n)).collect();
        let only_b: Vec<&String> = sb.iter().filter(|n| !sa.contains(n)).collect();
        let peak = |x: &crate::alloc::FunctionAlloc| x.analysis.live.max_pressure(&x.func, RegFile::R).0;
        let (pa, pb) = (peak(aa), peak(ab));
        let reg = |m: &Machine, i: usize| m.funcs[i].stats.as_ref().map(|s| s.registers).unwrap_or(0);
        t.push_str(&format!(
            "{}: registers {} → {}, R peak pressure {pa} → {pb}, {} assignment(s) changed\n",
            f.name,
            reg(a.m, fa),
            reg(b.m, fb),
            changes.len()
        ));
        for c in changes.iter().take(16) {
            t.push_str(&format!("  {c}\n"));
        }
        if changes.len() > 16 {
            t.push_str(&format!("  … and {} more\n", changes.len() - 16));
        }
        if !only_a.is_empty() || !only_b.is_empty() {
            let l = |v: &[&String]| {
                if v.is_empty() {
                    "none".to_string()
                } else {
                    v.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(" ")
                }
            };
            t.push_str(&format!(
                "  spilled only in {}: {}\n  spilled only in {}: {}\n",
                a.label,
                l(&only_a),
                b.label,
                l(&only_b)
            ));
        }
        moved += changes.len() as i64;
        fj.push(json!({"function": f.name, "registers": [reg(a.m, fa), reg(b.m, fb)], "peak": [pa, pb],
            "changed": changes, "spilled_only_a": only_a, "spilled_only_b": only_b}));
    }
    facts.push(("changed".to_string(), moved));
    j.insert("functions".into(), json!(fj));
    j.insert("facts".into(), facts_json(&facts));
    Explanation { text: t, json: serde_json::Value::Object(j), facts }
}

/// `why differ` in a session: the run before the last `set` (re-run from the loaded
/// module with the earlier options) against the current one.
pub fn explain_session(d: &Debugger, file: &str, prev: Option<&RunOptions>) -> Result<Explanation, String> {
    let prev = prev.ok_or("why differ needs an earlier run: change an option first (set ...)")?;
    let (pm, pt) = crate::why::run_module((*d.loaded).clone(), prev.clone());
    let fin = crate::why::finished(d);
    let a = Side { label: format!("{file} before"), m: &pm, trace: &pt };
    let b = Side { label: format!("{file} now"), m: fin.machine(), trace: &fin.trace()[..fin.cursor()] };
    Ok(compare(&a, &b))
}
