//! `components`: values the PTX importer assembles from component defs start where
//! they are assembled, not at the function's entry.
//!
//! The importer lowers `mov.b64 %rd, {%r1, %r2}`, 64-bit constants and vector operands
//! to defs of `.lo`/`.hi` (`.0`..`.3`) components; a component def does not end the
//! vreg's older value (seed 004, "Backward Walk Live Set Update Rule": only whole defs
//! kill), so without more knowledge such a vreg is live from the function's entry. ptxas
//! sees these as one 64-bit / vector move (a register pair or quad written at once).
//! When each component is defined exactly once, all in one block, there is no older
//! value anywhere: this pass marks the vreg `vflags::ASSEMBLED` and liveness starts it
//! at the first of those defs (`analysis::liveness::comp_kills`). Vregs whose
//! components are redefined (loop-carried halves) stay as they are.
//!
//! Measured on the corpus (ARCHITECTURE.md, "Fidelity"): the largest single source of
//! error on import — 4 faults (allocation failures) and p90 error 100 % → 58 % at the
//! default budget.

use crate::ir::model::vflags;
use crate::ir::{Function, VRegId};
use crate::prepass::{Pass, PassCtx};

pub const PASS: Pass = Pass {
    name: "components",
    about: "values assembled from .lo/.hi (vector) component defs start where they are assembled",
    run,
    ori: false,
};

const NOTHING: &str = "no vreg assembled from component defs";

fn run(f: &Function, _ctx: &PassCtx) -> (Option<Function>, String) {
    // `comp_kills` marks only vregs with component defs: without one, no copy.
    let mut component_def = false;
    for inst in f.blocks.iter().flat_map(|b| &b.insts) {
        inst.for_each_def(|r| component_def |= r.comp.is_some());
        if component_def {
            break;
        }
    }
    if !component_def {
        return (None, NOTHING.to_string());
    }
    let mut g = f.clone();
    for v in &mut g.vregs {
        v.flags |= vflags::ASSEMBLED;
    }
    let kills = crate::analysis::liveness::comp_kills(&g);
    let mut marked = Vec::new();
    for (i, v) in g.vregs.iter_mut().enumerate() {
        v.flags = f.vregs[i].flags;
        if kills[i] != crate::analysis::liveness::NO_COMP {
            v.flags |= vflags::ASSEMBLED;
            marked.push(VRegId::new(i));
        }
    }
    if marked.is_empty() {
        // Every flag is back as it was.
        return (None, NOTHING.to_string());
    }
    let summary = format!(
        "{} vreg(s) assembled from component defs now live from their first component def: {}",
        marked.len(),
        crate::prepass::name_list(&g, &marked)
    );
    (Some(g), summary)
}
