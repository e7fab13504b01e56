//! The fidelity report and the gate report as JSON (`radbg fidelity --json`, `--gate
//! --json`), and the per-budget summaries in the shape of the checked-in baseline
//! `tests/fidelity_baseline.json`. `crate::fidelity` returns typed reports and their text;
//! JSON is built here, in the rendering layer (tests/layers.rs).

use serde_json::{Value, json};

use crate::fidelity::Report;
use crate::fidelity::gate::{Counts, Part, PartReport};
use crate::fidelity::oracle::OracleKind;
use crate::fidelity::score::{BudgetSummary, Figures, Row, budget_label};

fn figures_json(f: &Figures) -> Value {
    json!({
        "median_err": f.median_err,
        "p90_err": f.p90_err,
        "balanced_accuracy": f.spill.balanced_accuracy(),
        "tp": f.spill.tp, "fn": f.spill.fn_, "fp": f.spill.fp, "tn": f.spill.tn,
    })
}

/// The summaries only, keyed by budget label (the shape of the checked-in baseline).
pub fn summaries(s: &[BudgetSummary]) -> Value {
    let mut m = serde_json::Map::new();
    for b in s {
        m.insert(
            budget_label(b.budget),
            json!({
                "functions": b.functions,
                "entries": b.entries,
                "radbg": figures_json(&b.radbg),
                "naive": figures_json(&b.naive),
                "spill_bytes_abs": b.spill_bytes_abs,
                "spill_bytes_ptxas": b.spill_bytes_ptxas,
                "frames_exact": b.frames_exact,
                "faults": b.faults,
            }),
        );
    }
    Value::Object(m)
}

fn row_json(r: &Row) -> Value {
    json!({
        "file": r.file, "function": r.function, "sm": r.sm, "budget": r.budget,
        "kind": match r.kind { OracleKind::Entry => "entry", _ => "func" },
        "ptxas": {"registers": r.ptxas_regs, "spill_stores": r.ptxas_stores, "spill_loads": r.ptxas_loads, "stack_frame": r.ptxas_frame},
        "radbg": {"registers": r.radbg_regs, "spill_stores": r.radbg_stores, "spill_loads": r.radbg_loads, "stack_frame": r.radbg_frame, "peak": r.radbg_peak},
        "naive": {"peak": r.naive_peak, "registers": r.naive_regs(), "spills": r.naive_spills()},
        "faults": r.faults,
    })
}

/// The whole report as one JSON object.
pub fn report(report: &Report) -> Value {
    json!({
        "summaries": summaries(&report.summaries),
        "rows": report.rows.iter().map(row_json).collect::<Vec<_>>(),
        "times": report.times.iter().map(|t| json!({
            "file": t.file, "budget": t.budget, "radbg_ms": t.radbg_ms, "ptxas_ms": t.ptxas_ms, "ratio": t.ratio(),
        })).collect::<Vec<_>>(),
        "errors": report.errors,
    })
}

fn counts_json(c: &Counts) -> Value {
    json!({
        "kernels": c.kernels, "checker_faults": c.checker_faults, "alloc_failures": c.alloc_failures,
        "rejected": c.rejected, "panics": c.panics,
    })
}

/// The gate report as JSON: per part, counts and summaries by budget; failures for the
/// development part only.
pub fn gate(parts: &[PartReport]) -> Value {
    let mut m = serde_json::Map::new();
    for p in parts {
        let mut counts = serde_json::Map::new();
        for c in &p.counts {
            counts.insert(budget_label(c.budget), counts_json(c));
        }
        let mut v = json!({
            "sources": p.sources,
            "counts": counts,
            "summaries": summaries(&p.report.summaries),
        });
        if p.part == Part::Dev {
            v["failures"] = Value::Array(
                p.failures
                    .iter()
                    .map(|f| {
                        json!({"file": f.file, "function": f.function, "budget": f.budget,
                        "kind": f.kind.name(), "message": f.message})
                    })
                    .collect(),
            );
        }
        m.insert(p.part.name().to_string(), v);
    }
    Value::Object(m)
}
