//! Where the behaviour is, found before any test of the whole file (issue 29): the
//! input's call groups (`engine::machine::call_groups`: a function with every function it
//! names, which run alone with the same events as in the whole module) are tried one at
//! a time, smallest first, and the reduction starts from the first group that shows the
//! predicate, alone — or, first, from the function that decided it with only its callees,
//! when that is smaller (kernels that share device functions make one large group).
//!
//! Why smallest first: the whole file is what made the largest gate cases slow — the
//! real ptxas takes minutes on some 150k-instruction files and radbg runs every
//! function's prepasses before the first allocation — while a group alone is one
//! ptxas run on its few functions and one short pipeline. A small function that shows
//! the behaviour is also the better start for a small result. The order (instructions,
//! then module order) depends on the input alone, so the result stays deterministic.
//!
//! `differs-from-ptxas` runs ptxas on batches of groups (doubling in size, so a file of
//! a thousand small kernels costs a dozen ptxas runs, not a thousand) with radbg's run of
//! the same groups beside it on another thread, and takes the widest departure of the
//! first batch that has one; the other built-ins stop at the first group whose run
//! decides them.

use std::collections::HashSet;

use crate::engine::RunOptions;
use crate::ir::Module;
use crate::reduce::predicate::{self, Calibrated, Predicate};

/// Instructions in the first `differs-from-ptxas` batch (each next one is twice as large).
const FIRST_BATCH: usize = 2_000;

/// The call groups of `m`, smallest first (by instructions, then in module order).
pub fn groups_smallest_first(m: &Module) -> Vec<Vec<usize>> {
    let mut groups = crate::engine::machine::call_groups(m);
    // A stable sort: equal sizes keep the module order.
    groups.sort_by_key(|g| size(m, g));
    groups
}

fn size(m: &Module, group: &[usize]) -> usize {
    group.iter().filter_map(|&i| m.functions.get(i)).map(|f| f.inst_count()).sum()
}

/// `m`'s target, options, knobs and variables with only the functions `ids`, in module
/// order (no CUDA source lines: no predicate reads them).
fn sub_module(m: &Module, ids: &[usize]) -> Module {
    let mut ids = ids.to_vec();
    ids.sort_unstable();
    Module {
        sm: m.sm.clone(),
        options: m.options.clone(),
        knobs: m.knobs.clone(),
        globals: m.globals.clone(),
        functions: ids.iter().filter_map(|&i| m.functions.get(i).cloned()).collect(),
        srcloc: Default::default(),
    }
}

/// Function `fi` with every function it names, transitively (its callees, not its
/// callers): smaller than its call group when many kernels share device functions.
fn closure(m: &Module, fi: usize) -> Vec<usize> {
    let by_name: std::collections::HashMap<&str, usize> =
        m.functions.iter().enumerate().map(|(i, f)| (f.name.as_str(), i)).collect();
    let mut seen = vec![false; m.functions.len()];
    let mut todo = vec![fi];
    let mut out = Vec::new();
    while let Some(i) = todo.pop() {
        if i >= seen.len() || seen[i] {
            continue;
        }
        seen[i] = true;
        out.push(i);
        for inst in m.functions[i].blocks.iter().flat_map(|b| &b.insts) {
            for op in &inst.operands {
                let name = match op {
                    crate::ir::Operand::Sym(s) => Some(&**s),
                    crate::ir::Operand::Mem(r) => r.sym.as_deref(),
                    _ => None,
                };
                if let Some(&g) = name.and_then(|s| by_name.get(s)) {
                    todo.push(g);
                }
            }
        }
    }
    out.sort_unstable();
    out
}

/// The names of the focus's callee closure, when it is smaller than its group.
fn closure_names(m: &Module, group: &[usize], focus: Option<&str>) -> Vec<String> {
    let Some(fi) = focus.and_then(|f| m.functions.iter().position(|x| x.name.as_str() == f)) else {
        return Vec::new();
    };
    let c = closure(m, fi);
    if c.len() < group.len() { names(m, &c) } else { Vec::new() }
}

fn names(m: &Module, ids: &[usize]) -> Vec<String> {
    let mut ids = ids.to_vec();
    ids.sort_unstable();
    ids.iter().filter_map(|&i| m.functions.get(i)).map(|f| f.name.to_string()).collect()
}

/// A predicate one function's run decides (`fails`, `spills`, `registers > N` ...): the
/// first group, smallest first, whose run decides it true. A group whose run panics
/// does not show it (as for every candidate).
pub fn per_function(pred: &Predicate, module: &Module, opts: &RunOptions) -> Calibrated {
    for g in groups_smallest_first(module) {
        let sub = sub_module(module, &g);
        let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| predicate::decided_in(pred, &sub, opts)));
        if let Ok((true, func)) = run {
            let focus = func.and_then(|fi| sub.functions.get(fi)).map(|f| f.name.to_string());
            let callees = closure_names(module, &g, focus.as_deref());
            return Calibrated { pred: pred.clone(), holds: Some(true), focus, group: names(module, &g), callees };
        }
    }
    Calibrated { pred: pred.clone(), holds: Some(false), focus: None, group: Vec::new(), callees: Vec::new() }
}

/// `differs-from-ptxas` (not yet calibrated) batch by batch; `None` when ptxas rejects a
/// batch's text (the whole file then decides, as before there were batches).
pub fn differs(pred: &Predicate, text: &str, module: &Module, opts: &RunOptions) -> Option<Calibrated> {
    let Predicate::DiffersFromPtxas { min_pct, ptxas, keep: None, .. } = pred else { return None };
    let sm = opts.sm.clone().unwrap_or_else(|| module.sm.clone()).to_string();
    let groups = groups_smallest_first(module);
    // The whole file's answer, when an earlier run left it in `ptxas_cache` (a fidelity
    // run seeds it from the gate build's logs): every batch reads its figures from it.
    let whole = crate::reduce::ptxas::cached(ptxas, text, &sm, opts.maxrregcount).and_then(Result::ok);
    let (mut at, mut want) = (0, FIRST_BATCH);
    while at < groups.len() {
        let mut batch: Vec<&Vec<usize>> = Vec::new();
        let mut n = 0;
        while at < groups.len() && (batch.is_empty() || n < want) {
            n += size(module, &groups[at]);
            batch.push(&groups[at]);
            at += 1;
        }
        want = want.saturating_mul(2);
        let ids: Vec<usize> = batch.iter().flat_map(|g| g.iter().copied()).collect();
        let keep: HashSet<String> = names(module, &ids).into_iter().collect();
        let btext = crate::reduce::ptx_passes::keep_functions(text, &keep).unwrap_or_else(|| text.to_string());
        // ptxas (another process) and radbg's runs of the same groups at once.
        let (ours, theirs) = std::thread::scope(|s| {
            let h = s.spawn(|| match &whole {
                Some(w) => Ok(w.iter().filter(|f| keep.contains(&f.name)).cloned().collect()),
                None => crate::reduce::ptxas::run(ptxas, &btext, &sm, opts.maxrregcount),
            });
            let mut ours = Vec::new();
            for g in &batch {
                let sub = sub_module(module, g);
                let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| predicate::figures(&sub, opts)));
                if let Ok(Ok(f)) = run {
                    ours.push((g, f));
                }
            }
            (ours, h.join())
        });
        let Ok(Ok(theirs)) = theirs else { return None };
        let flat: predicate::Figures = ours.iter().flat_map(|(_, f)| f.iter().cloned()).collect();
        let (keep, widest) = predicate::widest(&flat, &theirs, *min_pct);
        if predicate::departs(&flat, &theirs, *min_pct, keep) {
            // The widest departure, else the first function radbg fails where ptxas did not.
            let focus = widest.or_else(|| {
                flat.iter()
                    .find(|(name, _, _, failed)| *failed && theirs.iter().any(|t| &t.name == name))
                    .map(|f| f.0.clone())
            });
            let g = focus.as_ref().and_then(|f| ours.iter().find(|(_, figs)| figs.iter().any(|x| &x.0 == f)));
            let group = g.map(|(g, _)| names(module, g)).unwrap_or_default();
            let callees = g.map(|(g, _)| closure_names(module, g, focus.as_deref())).unwrap_or_default();
            // Whether the focus's group departs so with dead code removed too (then every
            // candidate must: `Predicate::DiffersFromPtxas::live`).
            let live = g.is_some_and(|(g, _)| {
                let sub = sub_module(module, g);
                let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    predicate::figures(&sub, &predicate::with_dce(opts))
                }));
                matches!(run, Ok(Ok(d)) if predicate::departs(&d, &theirs, *min_pct, keep))
            });
            return Some(Calibrated {
                pred: Predicate::DiffersFromPtxas { min_pct: *min_pct, ptxas: ptxas.clone(), keep, live },
                holds: Some(true),
                focus,
                group,
                callees,
            });
        }
    }
    Some(Calibrated { pred: pred.clone(), holds: Some(false), focus: None, group: Vec::new(), callees: Vec::new() })
}
