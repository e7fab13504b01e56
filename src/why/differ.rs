//! `why differ`: between two runs (other knobs, budget, target, or two versions of a
//! kernel), the first allocation decision that diverges, then the per-vreg assignment,
//! spilled-set and peak-pressure deltas. Runs are compared event by event in trace order
//! (the pipeline is deterministic, so the first unequal event is the first divergence).
//!
//! Reads two finished machines and their traces; must not know about the front ends.

use serde::Serialize;

use crate::engine::{Debugger, Event, EventKind, Machine, RunOptions};
use crate::ir::RegFile;
use crate::why::{Answer, Explanation, Facts};

/// One side of a comparison.
pub struct Side<'a> {
    pub label: String,
    pub m: &'a Machine,
    pub trace: crate::engine::Events<'a>,
}

/// Whether an event is a decision worth naming (not bookkeeping): the fat-point
/// allocator's assignments, attempt ends, guidance and spill code, and the Chaitin-Briggs
/// allocator's colours, actual spills, iteration ends and spill code — so a run under
/// one allocator compared with a run under the other diverges at the first decision.
fn decision(e: &Event) -> bool {
    use crate::alloc::AllocEvent as A;
    use crate::alloc::briggs::BriggsEvent as B;
    matches!(
        &e.kind,
        EventKind::Budget { .. }
            | EventKind::Alloc(
                A::Assign(_) | A::AttemptEnd { .. } | A::Guidance { .. } | A::SpillCode { .. } | A::ClassEnd { .. }
            )
            | EventKind::Briggs(
                B::ColourAssigned { .. } | B::ActualSpill { .. } | B::IterationEnd { .. } | B::SpillCode { .. }
            )
    )
}

/// The key two events must share to be "the same decision": function name, kind, and
/// for assignments the vreg's name (so two versions of a file line up by name).
fn same(a: &Side, x: &Event, b: &Side, y: &Event) -> bool {
    let fname = |s: &Side, e: &Event| e.func.map(|i| s.m.module.functions[i].name.to_string());
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
    if let (Some(fa), Some(fb)) = (x.func, y.func)
        && let (Some(p), Some(q)) = (briggs_node(&x.kind), briggs_node(&y.kind))
    {
        let na = &crate::engine::query::func_ir(a.m, fa).vreg(p.0).name;
        let nb = &crate::engine::query::func_ir(b.m, fb).vreg(q.0).name;
        return na == nb && p.1 == q.1;
    }
    x.kind == y.kind
}

/// A Briggs colour or spill decision as (node, colour; `None` for a spill), so two
/// versions of a file line up by vreg name rather than by id.
fn briggs_node(k: &EventKind) -> Option<(crate::ir::VRegId, Option<u16>)> {
    use crate::alloc::briggs::BriggsEvent as B;
    match k {
        EventKind::Briggs(B::ColourAssigned { vreg, colour, .. }) => Some((*vreg, Some(*colour))),
        EventKind::Briggs(B::ActualSpill { vreg, .. }) => Some((*vreg, None)),
        _ => None,
    }
}

/// Where a vreg ended up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Placement {
    Reg(u16),
    Spilled,
    None,
}

/// One function's result under either allocator, in the terms `why differ` compares.
struct Outcome {
    /// Per original vreg: name, file, placement.
    assign: Vec<(String, RegFile, Placement)>,
    /// Names of the spilled vregs, sorted.
    spilled: Vec<String>,
    /// Peak R pressure of the final IR (with spill code).
    peak: u32,
}

impl Outcome {
    fn of(m: &Machine, i: usize) -> Option<Outcome> {
        let x = m.funcs[i].alloc.as_deref()?;
        Some(Outcome::build(x.func(), x.original_vregs(), &x.spilled(), |v| x.slot_of(v), x.peak_r_pressure()))
    }

    /// The first `original` vregs of `f` (spill code only appends vregs) with their placement.
    fn build(
        f: &crate::ir::Function,
        original: usize,
        spilled: &[crate::ir::VRegId],
        slot_of: impl Fn(crate::ir::VRegId) -> Option<u16>,
        peak: u32,
    ) -> Outcome {
        let assign = (0..original)
            .map(|i| {
                let v = crate::ir::VRegId::new(i);
                let p = if spilled.contains(&v) {
                    Placement::Spilled
                } else {
                    slot_of(v).map_or(Placement::None, Placement::Reg)
                };
                (f.vreg(v).name.to_string(), f.vreg(v).file(), p)
            })
            .collect();
        let mut names: Vec<String> = spilled.iter().map(|&v| f.vreg(v).name.to_string()).collect();
        names.sort();
        Outcome { assign, spilled: names, peak }
    }
}

/// `why differ` as tools read it (`--json`).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "why", rename = "differ")]
pub struct DifferAnswer {
    /// The first diverging decision; absent when the runs are identical.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first: Option<FirstDecision>,
    pub functions: Vec<FunctionDelta>,
    pub facts: Facts,
}

/// The first decision the two runs make differently, as each describes it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FirstDecision {
    /// 1-based, among the decisions (`decision`).
    pub decision: usize,
    pub a: String,
    pub b: String,
}

/// One function present in both runs: `[a, b]` pairs and the changes.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FunctionDelta {
    pub function: String,
    pub registers: [u32; 2],
    pub peak: [u32; 2],
    /// `NAME OLD → NEW` per vreg placed differently.
    pub changed: Vec<String>,
    pub spilled_only_a: Vec<String>,
    pub spilled_only_b: Vec<String>,
}

/// Compares two finished runs.
pub fn compare(a: &Side, b: &Side) -> Explanation {
    let (da, db): (Vec<_>, Vec<_>) =
        (a.trace.iter().filter(|e| decision(e)).collect(), b.trace.iter().filter(|e| decision(e)).collect());
    let da: Vec<&Event> = da.iter().map(|e| &**e).collect();
    let db: Vec<&Event> = db.iter().map(|e| &**e).collect();
    let first = (0..da.len().max(db.len())).find(|&i| match (da.get(i), db.get(i)) {
        (Some(x), Some(y)) => !same(a, x, b, y),
        _ => true,
    });
    let mut t = format!("why differ: {} vs {}\n", a.label, b.label);
    let mut first_decision = None;
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
            first_decision = Some(FirstDecision { decision: i + 1, a: show(a, da.get(i)), b: show(b, db.get(i)) });
        }
    }
    let mut moved = 0i64;
    let mut fj = Vec::new();
    for (fa, f) in a.m.module.functions.iter().enumerate() {
        let Some(fb) = b.m.module.function(&f.name) else { continue };
        let (Some(oa), Some(ob)) = (Outcome::of(a.m, fa), Outcome::of(b.m, fb)) else { continue };
        let mut changes = Vec::new();
        for (name, file, sa) in &oa.assign {
            let Some((_, _, sb)) = ob.assign.iter().find(|(n, _, _)| n == name) else { continue };
            if sa != sb {
                let r = |x: &Placement| match x {
                    Placement::Spilled => "spilled".to_string(),
                    Placement::Reg(s) => format!("{}{s}", file.prefix()),
                    Placement::None => "-".into(),
                };
                changes.push(format!("{name} {} → {}", r(sa), r(sb)));
            }
        }
        let (sa, sb) = (&oa.spilled, &ob.spilled);
        let only_a: Vec<&String> = sa.iter().filter(|n| !sb.contains(n)).collect();
        let only_b: Vec<&String> = sb.iter().filter(|n| !sa.contains(n)).collect();
        let (pa, pb) = (oa.peak, ob.peak);
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
        fj.push(FunctionDelta {
            function: f.name.to_string(),
            registers: [reg(a.m, fa), reg(b.m, fb)],
            peak: [pa, pb],
            changed: changes,
            spilled_only_a: only_a.into_iter().cloned().collect(),
            spilled_only_b: only_b.into_iter().cloned().collect(),
        });
    }
    facts.push(("changed".to_string(), moved));
    let answer = DifferAnswer { first: first_decision, functions: fj, facts: Facts(facts) };
    Explanation { text: t, answer: Answer::Differ(answer) }
}

/// `why differ` in a session: the run before the last `set` (re-run from the loaded
/// module with the earlier options) against the current one.
pub fn explain_session(d: &Debugger, file: &str, prev: Option<&RunOptions>) -> Result<Explanation, String> {
    let prev = prev.ok_or("why differ needs an earlier run: change an option first (set ...)")?;
    let (pm, pt) = crate::why::run_module((*d.loaded()).clone(), prev.clone());
    let fin = crate::why::finished(d);
    let a = Side { label: format!("{file} before"), m: &pm, trace: pt.as_slice().into() };
    let b = Side { label: format!("{file} now"), m: fin.machine(), trace: fin.trace().upto(fin.cursor()) };
    Ok(compare(&a, &b))
}
