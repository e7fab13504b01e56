//! The knob sweep (issue 24, "every knob and state field in the catalogue is either
//! modelled or marked"): every knob `knobs::CATALOGUE` marks modelled is swept over a
//! few points of its range on the session kernels (`sessions/*.ori`), the regression
//! kernels (`tests/regress/`) and the witnesses of `tests/knob_sweep/`, at the default
//! budget and under pressure (`--maxrregcount` 24 and 16), with the Chaitin-Briggs
//! allocator for its own knobs; the test fails when a modelled knob changes nothing
//! observable — the events (assignments, costs, attempts, spills, figures) of every run.
//! And the other way: a knob marked not modelled changes nothing on the kernels where
//! pressure makes most knobs act.
//!
//! Speed: a hint per knob names the kernel and budget where it acts, tried first; a
//! wrong hint costs time (every kernel is tried after it), never a false pass.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use radbg::engine::{AllocatorKind, Machine, RunOptions};
use radbg::ir::{KnobKey, KnobValue};
use radbg::knobs::{CATALOGUE, KnobInfo, KnobType};

/// Knobs that act only with another knob set: the sweep runs both the base and the knob's
/// points with the enabler on. 680 scales the spill cost the seed's High-list rule reads
/// (`radbg.SixLists` bit 1). (684 needs seed 000's interval interference, which is on
/// by default: it is swept as it is.)
const ENABLERS: &[(&str, &str, i64)] = &[("RegAllocSpillCostMultiplier", "radbg.SixLists", 1)];

const BUDGETS: [Option<u32>; 3] = [None, Some(24), Some(16)];

/// Where each knob was seen to act: (knob, kernel file name, budget).
const HINTS: &[(&str, &str, Option<u32>)] = &[
    ("RegAllocThresholdForDiscardConflicts", "sgemm_spill.ori", Some(24)),
    ("RegAllocCoalescing", "abi_7013.ori", None),
    ("RegAllocEstimatedLoopIterations", "alloc_fail.ori", None),
    ("RegAllocBankAware", "abi_clean.ori", None),
    ("RegAllocMacForce", "abi_7001.ori", None),
    ("RegAllocMacVregAllocOrder", "abi_7001.ori", None),
    ("RegAllocNoRetargetPrefs", "alloc_fail.ori", None),
    ("RegAllocNumNonSpillTrials", "demo.ori", None),
    ("RegAllocPrefMacOperands", "abi_7001.ori", None),
    ("radbg.LoopWeight", "briggs_k15.ori", None),
    ("radbg.SpillWeight", "abi_7013.ori", None),
    ("radbg.BitSpill", "predicates_beyond_the_file.ptx", None),
    ("radbg.CallCostSeed001", "abi_clean.ori", None),
    ("radbg.TensorRegs", "optix.ori", None),
    ("radbg.StoreRotation", "store_rotation.ori", None),
    ("radbg.BriggsK", "abi_7001.ori", None),
    ("radbg.BriggsKTheoretical", "abi_7001.ori", None),
    ("radbg.BriggsCoalesceFactor", "abi_lower.ori", None),
    ("radbg.BriggsLoopDepthBase", "briggs_k15.ori", None),
    ("radbg.BriggsMemLatency", "abi_lower.ori", None),
    ("radbg.BriggsBackEdgeProb", "briggs_k15.ori", None),
    ("radbg.BriggsUniformCostFactor", "optix.ori", None),
    ("radbg.BriggsCoalesceRounds", "briggs_second_round.ori", None),
    ("radbg.BriggsGeorge", "briggs_george.ori", None),
    ("radbg.BriggsBankEdges", "abi_lower.ori", None),
    ("radbg.BriggsMaxIterations", "abi_lower.ori", None),
    ("radbg.BriggsLazyReload", "abi_lower.ori", None),
    ("radbg.BriggsRemat", "briggs_remat.ori", None),
    ("radbg.BriggsSlotCoalescing", "alloc_fail.ori", None),
];

fn kernels() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut v = Vec::new();
    for (dir, exts) in
        [("sessions", &["ori"][..]), ("tests/regress", &["ori", "ptx"][..]), ("tests/knob_sweep", &["ori"][..])]
    {
        v.extend(
            std::fs::read_dir(root.join(dir))
                .expect("kernel directory")
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| exts.iter().any(|e| x == *e))),
        );
    }
    v.sort();
    v
}

fn allocator(info: &KnobInfo) -> AllocatorKind {
    if info.name.starts_with("radbg.Briggs") { AllocatorKind::Briggs } else { AllocatorKind::FatPoint }
}

/// Everything a run shows: each event's text, in order.
fn fingerprint(
    path: &Path,
    budget: Option<u32>,
    alloc: AllocatorKind,
    knob: Option<(&str, &KnobValue)>,
    enabler: Option<(&str, i64)>,
) -> Vec<String> {
    let loaded = radbg::load::load_path(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut opts = RunOptions {
        maxrregcount: budget,
        allocator: alloc,
        imported: loaded.imported,
        skip_check: true,
        ..RunOptions::default()
    };
    if let Some((name, v)) = enabler {
        opts.set_knob(KnobKey::Name(name.to_string()), KnobValue::Int(v)).unwrap_or_else(|e| panic!("{name}={v}: {e}"));
    }
    if let Some((name, v)) = knob {
        opts.set_knob(KnobKey::Name(name.to_string()), v.clone()).unwrap_or_else(|e| panic!("{name}={v:?}: {e}"));
    }
    let mut m = Machine::new(loaded.module, opts);
    let mut out = Vec::new();
    while let Some(e) = m.step() {
        out.push(m.describe(&e));
        assert!(out.len() < 2_000_000, "{}: the pipeline does not end", path.display());
    }
    out
}

/// A few points of a knob's range, its default left out.
fn points(info: &KnobInfo) -> Vec<KnobValue> {
    let default = radbg::knobs::Knobs::new().all().into_iter().find(|(i, _, _)| i.name == info.name).map(|x| x.1);
    let mut v: Vec<KnobValue> = match info.ty {
        KnobType::Bool => vec![KnobValue::Bool(true), KnobValue::Bool(false)],
        KnobType::Int { min, max } => {
            let mut p = vec![min, min + 1, min + 2, min + 4, min + 16, min + 100, max.min(min + 1000), max];
            p.retain(|x| *x <= max);
            p.dedup();
            p.into_iter().map(KnobValue::Int).collect()
        }
        KnobType::Float { min, max } => {
            let top = max.min(1000.0);
            vec![min, min + (top - min) / 10.0, (min + top) / 2.0, top].into_iter().map(KnobValue::Float).collect()
        }
        KnobType::Str => vec![KnobValue::Str("1".into()), KnobValue::Str("100".into())],
    };
    v.retain(|p| Some(p) != default.as_ref());
    v
}

/// A base run: kernel, budget, Briggs or not, the enabler set.
type RunKey = (PathBuf, Option<u32>, bool, Option<(&'static str, i64)>);

#[test]
fn every_modelled_knob_changes_something_observable() {
    let all = kernels();
    let mut base: HashMap<RunKey, Vec<String>> = HashMap::new();
    let mut inert = Vec::new();
    for info in CATALOGUE.iter().filter(|k| k.modelled()) {
        let alloc = allocator(info);
        let enabler = ENABLERS.iter().find(|e| e.0 == info.name).map(|e| (e.1, e.2));
        let hinted: Vec<(PathBuf, Option<u32>)> = HINTS
            .iter()
            .filter(|h| h.0 == info.name)
            .filter_map(|h| all.iter().find(|p| p.file_name().is_some_and(|n| n == h.1)).map(|p| (p.clone(), h.2)))
            .collect();
        let rest = all.iter().flat_map(|p| BUDGETS.iter().map(move |b| (p.clone(), *b)));
        let mut found = None;
        'search: for (path, budget) in hinted.into_iter().chain(rest) {
            let key = (path.clone(), budget, alloc == AllocatorKind::Briggs, enabler);
            let b = base.entry(key).or_insert_with(|| fingerprint(&path, budget, alloc, None, enabler)).clone();
            for p in points(info) {
                if fingerprint(&path, budget, alloc, Some((info.name, &p)), enabler) != b {
                    found = Some((path.file_name().map(|n| n.to_string_lossy().into_owned()), budget, p));
                    break 'search;
                }
            }
        }
        match found {
            Some((file, budget, p)) => eprintln!("{:<40} acts: {file:?} budget {budget:?} value {p:?}", info.name),
            None => inert.push(info.name),
        }
    }
    assert!(
        inert.is_empty(),
        "knobs marked modelled change nothing on any kernel, budget or point of their range \
         (make them act, or mark them not modelled in knobs::CATALOGUE): {inert:?}"
    );
}

#[test]
fn knobs_marked_not_modelled_change_nothing() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let cases = [("sessions/demo.ori", Some(24)), ("sessions/sgemm_spill.ori", None), ("sessions/abi_lower.ori", None)];
    for (file, budget) in cases {
        let path = root.join(file);
        let base = fingerprint(&path, budget, AllocatorKind::FatPoint, None, None);
        for info in CATALOGUE.iter().filter(|k| !k.modelled()) {
            let pts = points(info);
            for p in [pts.first(), pts.last()].into_iter().flatten() {
                assert!(
                    fingerprint(&path, budget, AllocatorKind::FatPoint, Some((info.name, p)), None) == base,
                    "knob {} is marked not modelled but {p:?} changes {file} at budget {budget:?}",
                    info.name
                );
            }
        }
    }
}

#[test]
fn enabled_and_hinted_knobs_are_catalogued_and_modelled() {
    for name in ENABLERS.iter().map(|e| &e.0).chain(ENABLERS.iter().map(|e| &e.1)).chain(HINTS.iter().map(|h| &h.0)) {
        let info = CATALOGUE.iter().find(|k| k.name == *name).unwrap_or_else(|| panic!("{name} is not catalogued"));
        assert!(info.modelled(), "{name} is listed here but marked not modelled");
    }
}
