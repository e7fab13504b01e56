//! Scoring radbg and the naive estimate against the oracle: per-function rows and,
//! per budget, median and 90th-percentile absolute register error (percent of ptxas's
//! count, entries only), spill-detection balanced accuracy with its confusion counts
//! (ptxas spills = spill stores > 0; entries and device functions), spill-bytes error.
//!
//! Owns the arithmetic of the report; must not know how the figures were produced.

use crate::fidelity::oracle::OracleKind;

/// The general-register cap ptxas uses without `--maxrregcount` (R0..R254).
pub const DEFAULT_CAP: u32 = 255;
/// The naive estimate's constant: the report is "highest register + 3" (issue 13).
pub const NAIVE_EXTRA: u32 = 3;

/// One function at one budget: the oracle, radbg and the naive estimate side by side.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub file: String,
    pub function: String,
    pub kind: OracleKind,
    pub sm: String,
    pub budget: Option<u32>,
    pub ptxas_regs: Option<u32>,
    pub ptxas_stores: u32,
    pub ptxas_loads: u32,
    /// `N bytes stack frame`: `.local` variables and spill slots.
    pub ptxas_frame: u32,
    pub radbg_regs: u32,
    pub radbg_stores: u32,
    pub radbg_loads: u32,
    pub radbg_frame: u32,
    /// Peak live general registers radbg allocated (`measure::FuncRun::peak`).
    pub radbg_peak: u32,
    /// Peak live general registers of the imported PTX.
    pub naive_peak: u32,
    /// Allocation failures and checker faults (the row is still scored).
    pub faults: Vec<String>,
    /// radbg's allocation failed (its message is the last of `faults`; the others, if
    /// any, are checker faults).
    pub alloc_failed: bool,
    /// radbg's import has no function of this name (the oracle's function is missing).
    pub missing: bool,
}

impl Row {
    pub fn cap(&self) -> u32 {
        self.budget.unwrap_or(DEFAULT_CAP)
    }
    /// Naive register count: peak + 3, clamped to the budget.
    pub fn naive_regs(&self) -> u32 {
        (self.naive_peak + NAIVE_EXTRA).min(self.cap())
    }
    /// Naive spill verdict: the peak exceeds the budget.
    pub fn naive_spills(&self) -> bool {
        self.naive_peak > self.cap()
    }
    pub fn ptxas_spills(&self) -> bool {
        self.ptxas_stores > 0
    }
    pub fn radbg_spills(&self) -> bool {
        self.radbg_stores > 0
    }
}

/// Spill-detection confusion counts (positive = the function spills).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Confusion {
    pub tp: u32,
    pub fn_: u32,
    pub fp: u32,
    pub tn: u32,
}

impl Confusion {
    pub fn add(&mut self, truth: bool, predicted: bool) {
        match (truth, predicted) {
            (true, true) => self.tp += 1,
            (true, false) => self.fn_ += 1,
            (false, true) => self.fp += 1,
            (false, false) => self.tn += 1,
        }
    }
    /// Balanced accuracy in percent: the mean of the hit rates over the classes that
    /// occur (100 when there is nothing to score).
    pub fn balanced_accuracy(&self) -> f64 {
        let mut rates = Vec::new();
        if self.tp + self.fn_ > 0 {
            rates.push(self.tp as f64 / (self.tp + self.fn_) as f64);
        }
        if self.tn + self.fp > 0 {
            rates.push(self.tn as f64 / (self.tn + self.fp) as f64);
        }
        if rates.is_empty() { 100.0 } else { 100.0 * rates.iter().sum::<f64>() / rates.len() as f64 }
    }
}

/// The figures of one predictor at one budget.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Figures {
    pub median_err: f64,
    pub p90_err: f64,
    pub spill: Confusion,
}

/// Both predictors at one budget.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BudgetSummary {
    pub budget: Option<u32>,
    pub entries: usize,
    pub functions: usize,
    pub radbg: Figures,
    pub naive: Figures,
    /// Sum over functions of |radbg − ptxas| spill stores + loads, bytes.
    pub spill_bytes_abs: u64,
    /// ptxas's own spill stores + loads over the same functions, bytes (the scale).
    pub spill_bytes_ptxas: u64,
    /// Functions whose stack frame radbg gives to the byte.
    pub frames_exact: usize,
    /// Rows with an allocation failure or checker fault.
    pub faults: usize,
}

/// The budget's label in tables: `default`, `64`, `32`.
pub fn budget_label(b: Option<u32>) -> String {
    b.map_or_else(|| "default".to_string(), |n| n.to_string())
}

/// The `q` quantile (0..=1) with linear interpolation between closest ranks; 0 for none.
pub fn quantile(values: &[f64], q: f64) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let pos = q.clamp(0.0, 1.0) * (v.len() - 1) as f64;
    let lo = pos.floor() as usize;
    let hi = pos.ceil() as usize;
    v[lo] + (v[hi] - v[lo]) * (pos - lo as f64)
}

/// Absolute error of `got` in percent of `want`.
pub fn pct_err(got: u32, want: u32) -> f64 {
    100.0 * (got as f64 - want as f64).abs() / want.max(1) as f64
}

/// Summaries of `rows`, one per budget, in the order budgets first appear.
pub fn summarize(rows: &[Row]) -> Vec<BudgetSummary> {
    let mut budgets: Vec<Option<u32>> = Vec::new();
    for r in rows {
        if !budgets.contains(&r.budget) {
            budgets.push(r.budget);
        }
    }
    budgets.iter().map(|&b| summarize_budget(b, rows.iter().filter(|r| r.budget == b))).collect()
}

fn summarize_budget<'a>(budget: Option<u32>, rows: impl Iterator<Item = &'a Row>) -> BudgetSummary {
    let mut s = BudgetSummary { budget, ..BudgetSummary::default() };
    let (mut re, mut ne) = (Vec::new(), Vec::new());
    for r in rows {
        s.functions += 1;
        if let Some(p) = r.ptxas_regs {
            s.entries += 1;
            re.push(pct_err(r.radbg_regs, p));
            ne.push(pct_err(r.naive_regs(), p));
        }
        s.radbg.spill.add(r.ptxas_spills(), r.radbg_spills());
        s.naive.spill.add(r.ptxas_spills(), r.naive_spills());
        let d = |a: u32, b: u32| (a as i64 - b as i64).unsigned_abs();
        s.spill_bytes_abs += d(r.radbg_stores, r.ptxas_stores) + d(r.radbg_loads, r.ptxas_loads);
        s.spill_bytes_ptxas += r.ptxas_stores as u64 + r.ptxas_loads as u64;
        if r.radbg_frame == r.ptxas_frame {
            s.frames_exact += 1;
        }
        if !r.faults.is_empty() {
            s.faults += 1;
        }
    }
    s.radbg.median_err = quantile(&re, 0.5);
    s.radbg.p90_err = quantile(&re, 0.9);
    s.naive.median_err = quantile(&ne, 0.5);
    s.naive.p90_err = quantile(&ne, 0.9);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_interpolate_between_ranks() {
        let check = |v: &[f64], q: f64, want: f64| assert!((quantile(v, q) - want).abs() < 1e-9, "{v:?} {q}");
        check(&[], 0.5, 0.0);
        check(&[3.0], 0.9, 3.0);
        check(&[4.0, 1.0, 3.0, 2.0], 0.5, 2.5);
        check(&[0.0, 10.0], 0.9, 9.0);
    }

    #[test]
    fn balanced_accuracy_averages_the_classes_that_occur() {
        let c = |tp, fn_, fp, tn| Confusion { tp, fn_, fp, tn }.balanced_accuracy();
        assert_eq!(c(0, 0, 0, 0), 100.0);
        assert_eq!(c(0, 0, 1, 3), 75.0);
        assert_eq!(c(1, 1, 0, 4), 75.0);
        assert_eq!(c(2, 0, 2, 2), 75.0);
    }
}
