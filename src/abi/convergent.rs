//! Checks that run outside the master setup: the allowConvAlloc convergent boundary
//! (seed 001, "Convergent Boundary Enforcement": sub_19D13F0 → 7020, sub_19C6400 →
//! the multiple-calls warning) and the reserved shared-memory check (sub_19DDEF0 →
//! 7801, "gb10b Hardware WAR").
//!
//! Owns: radbg's definition of a convergent region in Ori IR and what counts as a
//! reserved-SMEM reference. Must not know: the allocator, the ABI placements.
//!
//! **Convergent region** (radbg's definition; ptxas walks from the call's block to
//! its immediate dominator, which Ori IR has no notion of before analysis): a
//! `CONVALLOC` or `WARPSYNC` instruction opens a region that runs to the next such
//! marker or the end of its block. A `CALL.ALLOWCONVALLOC` must lie inside one, or
//! call a function that opens its own boundary (its body contains a `CONVALLOC`, the
//! seed's `target.has_conv_boundary`); otherwise 7020. A region that holds an
//! annotated call and more than one CALL gets the multiple-calls warning. The
//! seed's "allowConvAlloc not self-guarded" test (`qword280 & 1`) has no Ori IR
//! counterpart and is not modelled.
//!
//! **Reserved SMEM**: an instruction operand naming a symbol that starts with
//! `__nv_reservedSMEM` (a `Sym` operand or the symbol of a memory operand) — Ori
//! IR's stand-in for the SMEM-reservation opcode 335 ptxas scans for.

use crate::abi::catalog;
use crate::abi::limits::{callee, name_index};
use crate::abi::{AbiCheck, step};
use crate::ir::model::{Function, Inst, Module, Operand};
use crate::ir::opcode::props;

/// The prefix of reserved shared-memory symbols.
pub const RESERVED_SMEM_PREFIX: &str = "__nv_reservedSMEM";

/// The modifier that annotates a call (`CALL.ALLOWCONVALLOC`).
pub const ALLOW_CONV_ALLOC: &str = "ALLOWCONVALLOC";

fn is_marker(inst: &Inst) -> bool {
    matches!(inst.op.mnemonic(), "CONVALLOC" | "WARPSYNC")
}

fn is_call(inst: &Inst) -> bool {
    inst.info().is(props::CALL)
}

/// `BB0:[5]` (block label and program point).
fn place(f: &Function, block: usize, index: usize) -> String {
    format!("{}:[{}]", f.blocks[block].label, f.layout().point(block, index))
}

/// 7020 for every annotated call, then the multiple-calls check for every region
/// that holds one. Empty when the function has no annotated call (or no such function).
pub fn check_convergent(m: &Module, func: usize) -> Vec<AbiCheck> {
    let Some(f) = m.functions.get(func) else { return Vec::new() };
    let names = name_index(m);
    let has_boundary =
        |c: usize| m.functions[c].blocks.iter().flat_map(|b| &b.insts).any(|i| i.op.mnemonic() == "CONVALLOC");
    let mut out = Vec::new();
    let mut multi = Vec::new();
    for (b, block) in f.blocks.iter().enumerate() {
        // Regions of this block: (marker index, calls inside, annotated calls inside).
        let mut region: Option<(usize, Vec<usize>, usize)> = None;
        let mut close = |region: &mut Option<(usize, Vec<usize>, usize)>| {
            if let Some((start, calls, annotated)) = region.take()
                && annotated > 0
            {
                let bad = calls.len() > 1;
                let at: Vec<String> = calls.iter().map(|&i| place(f, b, i)).collect();
                multi.push(
                    AbiCheck::new(&catalog::MULTIPLE_CALLS, step::CONVERGENT, "call")
                        .msg(&catalog::MULTIPLE_CALLS, &[])
                        .fail(bad)
                        .detail(format!(
                            "region from {} holds {} call(s): {}",
                            place(f, b, start),
                            calls.len(),
                            at.join(", ")
                        )),
                );
            }
        };
        for (i, inst) in block.insts.iter().enumerate() {
            if is_marker(inst) {
                close(&mut region);
                region = Some((i, Vec::new(), 0));
                continue;
            }
            if !is_call(inst) {
                continue;
            }
            let annotated = inst.has_mod(ALLOW_CONV_ALLOC);
            if let Some((_, calls, n)) = region.as_mut() {
                calls.push(i);
                *n += annotated as usize;
            }
            if !annotated {
                continue;
            }
            let target = callee(&names, inst);
            let c = AbiCheck::new(&catalog::W7020, step::CONVERGENT, "call").msg(&catalog::W7020, &[]);
            let name = target.map_or("an unknown function".to_string(), |t| m.functions[t].name.to_string());
            out.push(match (&region, target) {
                (Some((start, _, _)), _) => c.detail(format!(
                    "call at {} to {name} lies in the convergent region opened at {}",
                    place(f, b, i),
                    place(f, b, *start)
                )),
                (None, Some(t)) if has_boundary(t) => c.detail(format!(
                    "call at {} to {name}: the callee opens its own convergent boundary",
                    place(f, b, i)
                )),
                (None, _) => c.fail(true).detail(format!(
                    "call at {} to {name} has no CONVALLOC/WARPSYNC before it in {}",
                    place(f, b, i),
                    block.label
                )),
            });
        }
        close(&mut region);
    }
    out.extend(multi);
    out
}

/// Whether an operand names reserved shared memory.
fn names_reserved_smem(op: &Operand) -> bool {
    match op {
        Operand::Sym(s) => s.starts_with(RESERVED_SMEM_PREFIX),
        Operand::Mem(mem) => mem.sym.as_deref().is_some_and(|s| s.starts_with(RESERVED_SMEM_PREFIX)),
        _ => false,
    }
}

/// 7801: one record for the function (empty for an index out of range).
pub fn check_reserved_smem(m: &Module, func: usize) -> Vec<AbiCheck> {
    let Some(f) = m.functions.get(func) else { return Vec::new() };
    let mut uses = Vec::new();
    for (b, block) in f.blocks.iter().enumerate() {
        for (i, inst) in block.insts.iter().enumerate() {
            if inst.operands.iter().any(names_reserved_smem) {
                uses.push(place(f, b, i));
            }
        }
    }
    let c = AbiCheck::new(&catalog::W7801, step::RESERVED_SMEM, "allow-reserved-smem")
        .msg(&catalog::W7801, &[f.name.as_str().into()]);
    let c = if uses.is_empty() {
        c.detail("no reserved shared-memory reference")
    } else if f.allow_reserved_smem {
        c.detail(format!("reserved shared memory used at {} (allowed by .allow-reserved-smem)", uses.join(", ")))
    } else {
        c.fail(true).detail(format!("reserved shared memory used at {} without .allow-reserved-smem", uses.join(", ")))
    };
    vec![c]
}
