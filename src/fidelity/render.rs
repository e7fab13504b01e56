//! The fidelity report as text tables (`radbg fidelity`); its JSON form (`--json`) is
//! `cli::fidelity::json`'s, in the rendering layer.
//! Times vary run to run (radbg's is its thread's CPU time, ptxas's the `Compile time`
//! it reported when the corpus was built); every other figure is deterministic.
//!
//! Owns presentation only.

use crate::fidelity::score::{Confusion, budget_label, quantile};
use crate::fidelity::{Report, TimeRow};

/// The summary table: one line per budget, radbg beside the naive estimate.
pub fn summary_table(report: &Report) -> String {
    let mut s = String::new();
    s.push_str("budget  | fns (entries) | reg err median   | reg err p90      | spill balanced accuracy (TP/FN/FP/TN)     | spill bytes |err| | frames | faults\n");
    s.push_str("        |               | radbg    naive   | radbg    naive   | radbg                 naive               | radbg / ptxas total | exact  |\n");
    for b in &report.summaries {
        s.push_str(&format!(
            "{:<7} | {:>3} ({:>3})     | {:>5.1} %  {:>5.1} % | {:>5.1} %  {:>5.1} % | {:<21} {:<19} | {:>8} / {:<8} | {:>6} | {}\n",
            budget_label(b.budget),
            b.functions,
            b.entries,
            b.radbg.median_err,
            b.naive.median_err,
            b.radbg.p90_err,
            b.naive.p90_err,
            ba(&b.radbg.spill),
            ba(&b.naive.spill),
            b.spill_bytes_abs,
            b.spill_bytes_ptxas,
            b.frames_exact,
            b.faults,
        ));
    }
    s
}

fn ba(c: &Confusion) -> String {
    format!("{:.1} % ({}/{}/{}/{})", c.balanced_accuracy(), c.tp, c.fn_, c.fp, c.tn)
}

fn regs(r: Option<u32>) -> String {
    r.map_or_else(|| "-".to_string(), |n| n.to_string())
}

/// The per-function table.
pub fn function_table(report: &Report) -> String {
    let w = report.rows.iter().map(|r| r.function.len()).max().unwrap_or(8).clamp(8, 40);
    let mut s = format!(
        "{:<w$}  {:<5}  {:>7}  {:>15}  {:>15}  {:>12}  note\n",
        "function", "sm", "budget", "ptxas regs/st", "radbg regs/st", "naive regs/sp"
    );
    for r in &report.rows {
        let name: String =
            if r.function.len() > w { format!("{}…", &r.function[..w - 1]) } else { r.function.clone() };
        let radbg_regs = if r.ptxas_regs.is_some() { r.radbg_regs.to_string() } else { "-".to_string() };
        let naive_regs = if r.ptxas_regs.is_some() { r.naive_regs().to_string() } else { "-".to_string() };
        let note = r.faults.first().map(|f| format!("FAULT {f}")).unwrap_or_default();
        s.push_str(&format!(
            "{:<w$}  {:<5}  {:>7}  {:>15}  {:>15}  {:>12}  {}\n",
            name,
            r.sm,
            budget_label(r.budget),
            format!("{}/{}", regs(r.ptxas_regs), r.ptxas_stores),
            format!("{}/{}", radbg_regs, r.radbg_stores),
            format!("{}/{}", naive_regs, if r.naive_spills() { "y" } else { "n" }),
            note
        ));
    }
    s
}

/// Import + pipeline time against ptxas's compile time, per file and budget.
pub fn time_table(report: &Report) -> String {
    let mut s = String::from("radbg: import + whole pipeline, CPU ms of its thread; ptxas: its own `Compile time`\n");
    s.push_str(&format!("{:<36}  {:>7}  {:>10}  {:>10}  {:>7}\n", "file", "budget", "radbg ms", "ptxas ms", "ratio"));
    for t in &report.times {
        s.push_str(&format!(
            "{:<36}  {:>7}  {:>10.2}  {:>10}  {:>7}\n",
            t.file,
            budget_label(t.budget),
            t.radbg_ms,
            t.ptxas_ms.map_or_else(|| "-".into(), |p| format!("{p:.2}")),
            t.ratio().map_or_else(|| "-".into(), |r| format!("{r:.3}")),
        ));
    }
    let ratios: Vec<f64> = report.times.iter().filter_map(TimeRow::ratio).collect();
    let total_r: f64 = report.times.iter().filter(|t| t.ratio().is_some()).map(|t| t.radbg_ms).sum();
    let total_p: f64 = report.times.iter().filter_map(|t| t.ptxas_ms).sum();
    s.push_str(&format!(
        "time ratio radbg/ptxas: median {:.3}, max {:.3}, total {:.1} ms / {:.1} ms = {:.3}\n",
        quantile(&ratios, 0.5),
        ratios.iter().copied().fold(0.0, f64::max),
        total_r,
        total_p,
        if total_p > 0.0 { total_r / total_p } else { 0.0 }
    ));
    s
}

/// The whole text report.
pub fn text(report: &Report, functions: bool, times: bool) -> String {
    let mut s = String::from("radbg against ptxas 13.0.88 on the corpus (errors in percent of ptxas's count)\n\n");
    s.push_str(&summary_table(report));
    for e in &report.errors {
        s.push_str(&format!("error: {e}\n"));
    }
    if functions {
        s.push('\n');
        s.push_str(&function_table(report));
    }
    if times {
        s.push('\n');
        s.push_str(&time_table(report));
    }
    s
}
