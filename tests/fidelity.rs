//! The fidelity regression test (issue 13): runs `radbg fidelity` over the real-kernel
//! corpus when it is present and asserts radbg's figures are no worse, budget by budget,
//! than the checked-in baseline `tests/fidelity_baseline.json` (figures only, no PTX).
//! `UPDATE_EXPECT=1` rewrites the baseline after an improvement. Skips, saying why, when
//! the corpus cache is absent (`/work/shared/corpus/build.sh` builds it).

mod common;

use std::path::PathBuf;

use serde_json::Value;

const BASELINE: &str = "tests/fidelity_baseline.json";
/// Figures are deterministic; the slack only absorbs float formatting.
const EPS: f64 = 1e-6;

fn corpus() -> Option<PathBuf> {
    let dir = radbg::util::corpus_cache()?;
    dir.join("oracle.json").is_file().then_some(dir)
}

fn num(v: &Value, path: &[&str]) -> f64 {
    let mut x = v;
    for p in path {
        x = &x[*p];
    }
    x.as_f64().unwrap_or_else(|| panic!("{BASELINE}: missing number at {}", path.join(".")))
}

#[test]
fn fidelity_is_no_worse_than_the_baseline() {
    let Some(dir) = corpus() else {
        assert!(std::env::var("CI").as_deref() != Ok("true"), "corpus cache absent under CI: .ci/run builds it");
        eprintln!("corpus cache absent (no oracle.json; run /work/shared/corpus/build.sh): skipping the fidelity test");
        return;
    };
    let report = radbg::fidelity::run(&dir, &radbg::fidelity::Settings::default(), 2).expect("fidelity run");
    assert!(report.errors.is_empty(), "files failed: {:?}", report.errors);
    let now = radbg::cli::fidelity::json::summaries(&report.summaries);
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(BASELINE);
    if common::updating() {
        std::fs::write(&path, serde_json::to_string_pretty(&now).unwrap() + "\n").expect("write baseline");
        return;
    }
    let base: Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("baseline present")).expect("baseline is JSON");
    eprint!("{}", radbg::fidelity::render::summary_table(&report));
    let mut worse = Vec::new();
    let Value::Object(budgets) = &base else { panic!("{BASELINE}: expected an object") };
    for b in budgets.keys() {
        assert!(now.get(b).is_some(), "budget {b} of the baseline is missing from the run");
        for (what, lower_is_better) in [("median_err", true), ("p90_err", true), ("balanced_accuracy", false)] {
            let (was, is) = (num(&base, &[b, "radbg", what]), num(&now, &[b, "radbg", what]));
            if (lower_is_better && is > was + EPS) || (!lower_is_better && is < was - EPS) {
                worse.push(format!("budget {b}: radbg {what} {is:.2} (baseline {was:.2})"));
            }
        }
        let (was, is) = (num(&base, &[b, "faults"]), num(&now, &[b, "faults"]));
        if is > was {
            worse.push(format!(
                "budget {b}: {is} functions with allocation failures or checker faults (baseline {was})"
            ));
        }
    }
    assert!(worse.is_empty(), "fidelity got worse:\n{}", worse.join("\n"));
}
