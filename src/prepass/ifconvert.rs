//! `ifconvert`: short guarded blocks become predicated instructions.
//!
//! NVVM branches around a short conditional body (`@%p9 bra $L__BB0_6; <body>;
//! $L__BB0_6:`); ptxas predicates the body instead (`@!P0 LDG.E R19, [R18.64]`,
//! `@!P0 FFMA R6, R19, R21, R6` in conv5x5's SASS: its five guarded taps, 17–24 PTX
//! instructions each, have no branch left). With the branches gone the taps share one
//! block, and the scheduler issues their loads together — which is how conv5x5 reaches
//! 48/55 registers under `--maxrregcount 64` (32 at the default, the target).
//!
//! A *triangle* — a block ending in a guarded `BRA L`, the next block in layout reached
//! only by falling through from it, and `L` right after that — is converted when the
//! body has at most [`MAX_BODY`] instructions, none guarded, and nothing that needs the
//! branch: control flow, calls, barriers, warp-synchronous operations (`SHFL`, `VOTE`,
//! `MATCH`, `REDUX`: ptxas keeps those under a branch, `BRA.DIV`), unknown opcodes, or a
//! def of the branch's own predicate. The body's instructions take the inverse guard and
//! join the block; the join block joins it too when nothing else branches to it, so a
//! chain of triangles becomes one block.
//!
//! Measured (nvdisasm 13.2.51 on cubins the corpus ptxas wrote, sm_80): the triangles of
//! conv5x5 (17–24 PTX instructions), classify (2–3), warp_ops (9), block_reduce_sum
//! (4–7) and reduce_sum (2–7) are predicated; reduce_max_i64's (54) and seg_scan's (119)
//! keep their `@P0 BRA`. [`MAX_BODY`] = 32 imported instructions lies between.
//!
//! Liveness needs nothing new: a guarded def of a vreg defined once kills (seed 004 with
//! radbg's single-def rule), so the body's temporaries stay short; values it updates
//! (accumulators) were live across the triangle anyway.

use std::collections::BTreeMap;

use crate::ir::opcode::props;
use crate::ir::{Function, Guard, Inst, Operand};
use crate::prepass::{Pass, PassCtx};

pub const PASS: Pass = Pass {
    name: "ifconvert",
    about: "short guarded blocks predicated instead of branched around, as ptxas does (conv5x5's taps)",
    run,
    ori: false,
};

/// The largest body converted, in imported instructions (module doc: measured between 24
/// predicated and 54 kept).
pub const MAX_BODY: usize = 32;

/// Whether `inst` may be predicated into its predecessor.
fn predicable(inst: &Inst) -> bool {
    let i = inst.info();
    inst.guard.is_none()
        && !i.is(props::BRANCH)
        && !i.is(props::EXIT)
        && !i.is(props::CALL)
        && !i.is(props::BARRIER)
        && !i.is(props::PHI)
        && !i.is(props::UNKNOWN)
        && !i.is(props::SUSPEND)
        && !i.is(props::RESUME)
        && !matches!(inst.op.mnemonic(), "SHFL" | "VOTE" | "MATCH" | "REDUX" | "WARPSYNC" | "ELECT")
}

/// How many operands name each symbol (branch targets and any other symbol use),
/// counted once: a join merges only when nothing else names it.
fn symbol_uses(f: &Function) -> BTreeMap<crate::ir::Atom, usize> {
    let mut uses = BTreeMap::new();
    for o in f.blocks.iter().flat_map(|b| &b.insts).flat_map(|i| &i.operands) {
        if let Operand::Sym(s) = o {
            *uses.entry(*s).or_insert(0) += 1;
        }
    }
    uses
}

fn named(uses: &BTreeMap<crate::ir::Atom, usize>, label: &str) -> bool {
    uses.get(label).is_some_and(|&n| n > 0)
}

/// The guarded branch ending block `b`, with its target, when `b` heads a convertible
/// triangle.
fn triangle(f: &Function, uses: &BTreeMap<crate::ir::Atom, usize>, b: usize) -> Option<Guard> {
    let (head, body, join) = (f.blocks.get(b)?, f.blocks.get(b + 1)?, f.blocks.get(b + 2)?);
    let br = head.insts.last()?;
    if !br.info().is(props::BRANCH) || br.op.mnemonic() != "BRA" || br.guard_is_always() {
        return None;
    }
    let guard = br.guard?;
    let [Operand::Sym(target)] = &*br.operands else { return None };
    if **target != *join.label || body.insts.is_empty() || body.insts.len() > MAX_BODY {
        return None;
    }
    if named(uses, &body.label) || !body.insts.iter().all(predicable) {
        return None;
    }
    let mut defines_guard = false;
    for inst in &body.insts {
        for o in inst.defs() {
            if let Operand::Reg(r) = o {
                defines_guard |= *r == guard.reg;
            }
        }
    }
    (!defines_guard).then_some(guard)
}

const NOTHING: &str = "no short guarded block to predicate";

fn run(f: &Function, _ctx: &PassCtx) -> (Option<Function>, String) {
    let mut uses = symbol_uses(f);
    // The loop below finds a triangle only where `f` has one (it changes nothing before
    // its first): without any, no copy.
    if (0..f.blocks.len()).all(|b| triangle(f, &uses, b).is_none()) {
        return (None, NOTHING.to_string());
    }
    let mut g = f.clone();
    let (mut converted, mut moved, mut merged) = (0usize, 0usize, 0usize);
    let mut b = 0;
    while b < g.blocks.len() {
        let Some(guard) = triangle(&g, &uses, b) else {
            b += 1;
            continue;
        };
        // The branch goes, and with it one use of the join's label.
        if let Some(n) = uses.get_mut(g.blocks[b + 2].label.as_str()) {
            *n -= 1;
        }
        g.blocks[b].insts.pop();
        let body = g.blocks.remove(b + 1);
        moved += body.insts.len();
        let inverse = Guard { reg: guard.reg, negated: !guard.negated };
        for mut inst in body.insts {
            inst.guard = Some(inverse);
            g.blocks[b].insts.push(inst);
        }
        converted += 1;
        // The join now follows by fall-through only: it joins the block when nothing
        // else names it, so the next triangle of a chain is seen from here.
        if !named(&uses, &g.blocks[b + 1].label) {
            let join = g.blocks.remove(b + 1);
            g.blocks[b].insts.extend(join.insts);
            merged += 1;
        }
    }
    if converted == 0 {
        return (None, NOTHING.to_string());
    }
    (
        Some(g),
        format!("{converted} guarded block(s) predicated ({moved} instruction(s)), {merged} join block(s) merged"),
    )
}
