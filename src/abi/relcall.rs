//! Warning 7010 at call sites (seed 001, "Complete Warning Catalog": sub_13B6DF0,
//! "Relative 32-bit return address requires a caller-save 64-bit scratch register
//! pair", condition "32-bit relative call without available scratch pair").
//!
//! Owns: radbg's reading of that one line. Must not know: the allocator.
//!
//! **Relative 32-bit call** (radbg's Ori IR form): a `CALL.REL` — SASS's relative
//! call, whose 32-bit return offset ptxas materialises into a 64-bit register pair at
//! the call. The seed says only that the pair must be caller-save scratch; radbg
//! reads "available" as: an even-aligned pair `Rn:Rn+1` whose two registers the
//! callee's convention classifies as scratch (caller-saved, [`crate::abi::RegRole::Scratch`])
//! — registers that carry the callee's parameters, return values or its own return
//! address have other roles and do not count. Sub_13B6DF0 lies outside the ABI
//! master setup (sub_19D1AF0), so the record belongs to the *caller*, beside 7020.

use crate::abi::catalog;
use crate::abi::limits::{callee, name_index};
use crate::abi::report::function_limits;
use crate::abi::{AbiCheck, AbiInput, RegRole, role, setup, step};
use crate::ir::model::{Function, Module, RegFile};

/// The modifier of a relative call (`CALL.REL`).
pub const REL: &str = "REL";

fn place(f: &Function, block: usize, index: usize) -> String {
    format!("{}:[{}]", f.blocks[block].label, f.layout().point(block, index))
}

/// One 7010 record per `CALL.REL` of function `func` to a known callee (empty when it
/// makes none): failing when the callee's convention leaves no scratch pair.
pub fn check_relative_calls(m: &Module, func: usize) -> Vec<AbiCheck> {
    let Some(f) = m.functions.get(func) else { return Vec::new() };
    let names = name_index(m);
    let mut limits = None;
    let mut out = Vec::new();
    for (b, block) in f.blocks.iter().enumerate() {
        for (i, inst) in block.insts.iter().enumerate() {
            if !inst.has_mod(REL) {
                continue;
            }
            let Some(t) = callee(&names, inst) else { continue };
            let limits = limits.get_or_insert_with(|| function_limits(m, &m.sm));
            let res = setup(m, t, &AbiInput { maxreg: limits[t], sm: m.sm.clone() });
            let top = res.limit.min(254) as u16;
            let pair = (4..top).step_by(2).find(|&r| {
                role(&res, RegFile::R, r) == RegRole::Scratch && role(&res, RegFile::R, r + 1) == RegRole::Scratch
            });
            let c = AbiCheck::new(&catalog::W7010, step::RELATIVE_CALL, "call").msg(&catalog::W7010, &[]);
            let callee_name = &m.functions[t].name;
            out.push(match pair {
                Some(r) => c.regs([(RegFile::R, r), (RegFile::R, r + 1)]).detail(format!(
                    "relative call at {} to {callee_name}: R{r}:R{} is a caller-save scratch pair",
                    place(f, b, i),
                    r + 1
                )),
                None => c.fail(true).detail(format!(
                    "relative call at {} to {callee_name}: its convention leaves no even-aligned scratch pair below R{top} \
                     (scratch registers that are not parameters, return values or its return address)",
                    place(f, b, i)
                )),
            });
        }
    }
    out
}
