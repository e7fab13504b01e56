//! The call graph and ABI register-limit propagation (seed 001, "ABI Register Limit
//! Propagation", sub_19CE590).
//!
//! Owns: the two-phase limit walk (which function a CALL names and the callee lists
//! are `ir::callgraph`'s, re-exported here). Must not know: how the declared limits were resolved (the caller passes
//! them) or what the allocator does with the result.

use crate::ir::model::{FuncKind, Module};
use crate::ir::sm::Sm;

// Which function a CALL names and the name index: `ir::callgraph`'s (shared with the
// importer's callee-first order and the launch-bound inheritance).
pub use crate::ir::callgraph::callee;

/// Function name → index (first definition wins).
pub fn name_index(m: &Module) -> std::collections::HashMap<&str, usize> {
    crate::ir::callgraph::name_index(&m.functions)
}

/// Per function, its callees in order of first call, without repeats
/// (the seed's `callee_list`, +136).
pub fn call_graph(m: &Module) -> Vec<Vec<usize>> {
    crate::ir::callgraph::callees(&m.functions)
}

/// Post-order of the call graph: a depth-first walk from every function in file
/// order, callees before callers; cycles are cut at the back edge. Iterative, so a
/// deep call chain cannot overflow the stack.
pub fn post_order(graph: &[Vec<usize>]) -> Vec<usize> {
    let n = graph.len();
    let mut seen = vec![false; n];
    let mut out = Vec::with_capacity(n);
    for root in 0..n {
        if seen[root] {
            continue;
        }
        seen[root] = true;
        let mut stack = vec![(root, 0usize)];
        while let Some(top) = stack.last_mut() {
            let f = top.0;
            if let Some(&c) = graph[f].get(top.1) {
                top.1 += 1;
                if c < n && !seen[c] {
                    seen[c] = true;
                    stack.push((c, 0));
                }
            } else {
                out.push(f);
                stack.pop();
            }
        }
    }
    out
}

/// sub_19CE590: the effective register limit of every function (+268), from the
/// declared limits (+264; `None` = -1, unconstrained). Runs only for ABI generations
/// 4 and 5 (sm_50 .. sm_89); for other targets every function keeps its declared
/// limit.
///
/// Phase 1 seeds each function: one with an ABI spec keeps its declared limit
/// (`func[+280] & 1`); so does a function the seed calls "propagatable through its
/// call-graph entry" (`func[+216] >= 0 && call_graph[...][+57]`), which radbg reads
/// as a kernel — the root whose budget the callers establish; every other function
/// starts unconstrained. Phase 2 walks the call graph's post-order backwards
/// (callers before callees) and gives each callee without a spec its caller's
/// effective limit; a callee with a spec keeps its own. A callee with several
/// callers takes the last one walked, exactly as the pseudocode overwrites.
///
/// The result has one entry per function; missing `declared` entries count as `None`.
pub fn propagate_limits(m: &Module, sm: &Sm, declared: &[Option<u32>]) -> Vec<Option<u32>> {
    let n = m.functions.len();
    let decl = |i: usize| declared.get(i).copied().flatten();
    let mut eff: Vec<Option<u32>> = (0..n).map(decl).collect();
    let generation = sm.generation();
    if !(4..=5).contains(&generation) {
        return eff;
    }
    let has_spec = |i: usize| m.functions[i].abi.is_some();
    // Phase 1: seed the effective limit per function.
    for (i, e) in eff.iter_mut().enumerate() {
        let f = &m.functions[i];
        *e = if has_spec(i) || f.kind == FuncKind::Entry { decl(i) } else { None };
    }
    // Phase 2: reverse-order call-graph walk.
    let graph = call_graph(m);
    let order = post_order(&graph);
    for &caller in order.iter().rev() {
        for &c in &graph[caller] {
            eff[c] = if has_spec(c) { decl(c) } else { eff[caller] };
        }
    }
    eff
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn post_order_handles_cycles_and_chains() {
        assert_eq!(post_order(&[vec![1], vec![2], vec![]]), vec![2, 1, 0]);
        assert_eq!(post_order(&[vec![1], vec![0]]), vec![1, 0]);
        assert_eq!(post_order(&[vec![], vec![0, 9]]), vec![0, 1]);
        let long: Vec<Vec<usize>> = (0..100_000).map(|i| if i + 1 < 100_000 { vec![i + 1] } else { vec![] }).collect();
        assert_eq!(post_order(&long).len(), 100_000);
    }
}
