//! `why fail [CLASS]`: each attempt's used/target, the best result and why it was still
//! over budget, the vreg that could not be placed and the vregs holding the registers it
//! could have used (seed 003, "Retry loop" and "Best-result comparison").
//!
//! Reads the attempt records, the trace's assignment events and the finished ranges;
//! must not change them.

use serde::Serialize;

use crate::alloc::AllocEvent as A;
use crate::alloc::attempt::best_of;
use crate::engine::EventKind;
use crate::engine::query::reg_name;
use crate::ir::{RegClass, VRegId};
use crate::why::{Answer, Ctx, Explanation, Facts, table};

/// `why fail` as tools read it (`--json`).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum FailAnswer {
    /// The function has no allocation to explain.
    NotAllocated(NotAllocated),
    Allocated(FailReport),
    /// Allocated by an allocator whose attempts `why fail` does not read (Chaitin-Briggs).
    OtherAllocator(OtherAllocator),
}

/// `{"why": "fail", "function": .., "allocator": "briggs", "failed": .., "error": ..}`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "why", rename = "fail")]
pub struct OtherAllocator {
    pub function: String,
    pub allocator: &'static str,
    pub failed: bool,
    pub error: Option<String>,
    /// Its rounds (Briggs: build-and-colour iterations).
    pub rounds: u32,
}

/// `{"why": "fail", "function": .., "allocated": false}`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "why", rename = "fail")]
pub struct NotAllocated {
    pub function: String,
    /// Always false.
    pub allocated: bool,
}

/// Every attempt of each class explained, and whether the allocation failed.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "why", rename = "fail")]
pub struct FailReport {
    pub function: String,
    pub failed: bool,
    pub error: Option<String>,
    pub classes: Vec<ClassAnswer>,
    pub facts: Facts,
}

/// One class's attempts, its best one and the vreg it could not place.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ClassAnswer {
    pub class: &'static str,
    pub ok: bool,
    pub attempts: Vec<AttemptAnswer>,
    /// The best attempt's number (seed 003's tie-break).
    pub best: Option<u32>,
    pub stuck: Option<String>,
}

/// One attempt of a class.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AttemptAnswer {
    pub attempt: u32,
    pub spill: bool,
    pub used: u32,
    pub target: u32,
    pub budget: u32,
    pub needs_spill: usize,
    pub success: bool,
}

pub fn explain(cx: &Ctx, fi: usize, class: Option<RegClass>) -> Explanation {
    let fname = &cx.m.module.functions[fi].name;
    if let Some(run) = cx.run(fi)
        && run.fatpoint().is_none()
    {
        // The attempts below are the fat-point allocator's; say what the run was instead of
        // "not allocated".
        let error = run.failure().map(str::to_string);
        let kind = run.kind().name();
        let verdict = match &error {
            Some(e) => format!("it failed: {e}"),
            None => "it did not fail".to_string(),
        };
        let text = format!(
            "why fail: {fname} was allocated by the {kind} allocator in {} round(s); {verdict}\n  (`why fail` explains the fat-point allocator's attempts; `attempts` lists this run's iterations)\n",
            run.rounds()
        );
        let answer = OtherAllocator {
            function: fname.clone(),
            allocator: kind,
            failed: error.is_some(),
            error,
            rounds: run.rounds(),
        };
        return Explanation { text, answer: Answer::Fail(FailAnswer::OtherAllocator(answer)) };
    }
    let Some(a) = cx.alloc(fi) else {
        let text = format!("why fail: {fname} was not allocated\n");
        let answer = NotAllocated { function: fname.clone(), allocated: false };
        return Explanation { text, answer: Answer::Fail(FailAnswer::NotAllocated(answer)) };
    };
    let f = &a.func;
    let mut classes: Vec<RegClass> = Vec::new();
    for r in a.records.iter() {
        if !classes.contains(&r.class) && class.is_none_or(|c| c == r.class) {
            classes.push(r.class);
        }
    }
    let failed = a.failure.is_some();
    let mut t = match &a.failure {
        Some(e) => format!("why fail: allocation of {fname} FAILED: {e}\n"),
        None => format!("why fail: {fname} allocated without failure\n"),
    };
    let mut cj = Vec::new();
    for c in &classes {
        let recs: Vec<_> = a.records.iter().filter(|r| r.class == *c).collect();
        let mut rows =
            vec![["attempt", "mode", "used", "target", "budget", "needs-spill", "result"].map(String::from).to_vec()];
        for r in &recs {
            rows.push(vec![
                r.number.to_string(),
                if r.spill { "SPILL" } else { "NOSPILL" }.into(),
                r.used.to_string(),
                r.target.to_string(),
                r.budget.to_string(),
                r.needs_spill.len().to_string(),
                if r.success { "fits" } else { "over" }.into(),
            ]);
        }
        t.push_str(&format!("class {}: {} attempt(s)\n", c.name(), recs.len()));
        t.push_str(&table(&rows));
        let best = best_of(&a.records, *c);
        let class_ok = a.results.iter().find(|r| r.class == *c).map(|r| r.ok).unwrap_or(true);
        if let Some(b) = best {
            t.push_str(&format!(
                "  best: attempt {} with {} registers against a budget of {}",
                b.number, b.used, b.budget
            ));
            if b.success {
                t.push_str(" — within budget\n");
            } else {
                t.push_str(&format!(
                    " — still {} over: {} vreg(s) found no register below the budget\n",
                    b.used.saturating_sub(b.budget),
                    b.needs_spill.len()
                ));
            }
        }
        let mut stuck = None;
        if !class_ok || failed {
            // The last unplaceable decision of the class.
            for e in cx.trace.iter().rev().filter(|e| e.func == Some(fi)) {
                if let EventKind::Alloc(A::Assign(x)) = &e.kind
                    && x.class == *c
                    && (x.slot.is_none() || x.needs_spill)
                {
                    stuck = Some(x.clone());
                    break;
                }
            }
        }
        if let Some(x) = &stuck {
            let vr = f.vreg(x.vreg);
            let def = cx.placement(fi).and_then(|p| {
                let layout = f.layout();
                let of = |v| crate::why::registers::def_use(f, &p, &layout, v).0;
                // A value recomputed instead of stored (issue 23 rule 16) has lost its own
                // def: its first recomputation stands for it.
                of(x.vreg).or_else(|| {
                    let r = cx.alloc(fi)?.remats.iter().find(|r| r.vreg == x.vreg)?;
                    r.temps.iter().filter_map(|&t| of(t)).min_by_key(|d| d.0)
                })
            });
            t.push_str(&format!(
                "  could not place {} (×{}, defined {}) in attempt {}: {} slot(s) blocked, {} discarded\n",
                vr.name,
                vr.width,
                crate::why::registers::at_line(cx, def),
                x.attempt,
                x.blocked,
                x.discarded
            ));
            let holders = holders(cx, fi, x.vreg, recs.iter().find(|r| r.number == x.attempt).copied());
            if !holders.is_empty() {
                let list: Vec<String> =
                    holders.iter().map(|(n, r, w)| format!("{n} {r} ({w} common positions)")).collect();
                t.push_str(&format!("  its candidate registers were held by: {}\n", list.join(", ")));
            }
        }
        cj.push(ClassAnswer {
            class: c.name(),
            ok: class_ok,
            attempts: recs
                .iter()
                .map(|r| AttemptAnswer {
                    attempt: r.number,
                    spill: r.spill,
                    used: r.used,
                    target: r.target,
                    budget: r.budget,
                    needs_spill: r.needs_spill.len(),
                    success: r.success,
                })
                .collect(),
            best: best.map(|b| b.number),
            stuck: stuck.as_ref().map(|x| f.vreg(x.vreg).name.to_string()),
        });
    }
    let attempts = a.records.iter().filter(|r| class.is_none_or(|c| c == r.class)).count();
    let facts = vec![("failed".to_string(), failed as i64), ("attempts".to_string(), attempts as i64)];
    let answer =
        FailReport { function: fname.clone(), failed, error: a.failure.clone(), classes: cj, facts: Facts(facts) };
    Explanation { text: t, answer: Answer::Fail(FailAnswer::Allocated(answer)) }
}

/// Vregs of the same file assigned in that attempt whose ranges overlap `v`'s, most
/// overlap first (at most 8): what sat in the registers `v` could have used.
fn holders(
    cx: &Ctx,
    fi: usize,
    v: VRegId,
    rec: Option<&crate::alloc::attempt::AttemptRecord>,
) -> Vec<(String, String, u32)> {
    let Some(a) = cx.alloc(fi) else { return Vec::new() };
    let Some(rec) = rec else { return Vec::new() };
    let f = &a.func;
    let ranges = &a.analysis.ranges;
    if v.index() >= ranges.root.len() {
        return Vec::new();
    }
    let mut out: Vec<(String, String, u32)> = rec
        .assignment
        .iter()
        .filter(|(u, s)| *u != v && s.is_some() && u.index() < ranges.root.len())
        .filter_map(|&(u, s)| {
            let w = ranges.overlap(v, u);
            let vr = f.vreg(u);
            (w > 0).then(|| (vr.name.to_string(), reg_name(vr.file(), s.unwrap_or(0), vr.width), w))
        })
        .collect();
    out.sort_by(|x, y| y.2.cmp(&x.2).then(x.0.cmp(&y.0)));
    out.truncate(8);
    out
}
