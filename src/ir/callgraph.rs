//! The call graph of a module (which functions each function calls, by name), and what
//! a callee takes from the entries that call it: their launch-bound budget.
//!
//! Owns the name → callee resolution shared by the importer's callee-first order
//! (`ptx::module`), the ABI's limit walk (`abi::limits`) and the budget inheritance
//! below; must not know the allocator or the engine.

use std::collections::HashMap;

use crate::ir::model::{FuncKind, Function, Inst, Operand};
use crate::ir::opcode::props;
use crate::ir::regfile::{GPR_CAP, regs_for_occupancy};

/// Function name → index; the first definition of a name wins.
pub fn name_index(funcs: &[Function]) -> HashMap<&str, usize> {
    let mut names = HashMap::with_capacity(funcs.len());
    for (i, f) in funcs.iter().enumerate() {
        names.entry(f.name.as_str()).or_insert(i);
    }
    names
}

/// The function a CALL instruction names: its first symbol source operand naming a
/// function of `names`.
pub fn callee(names: &HashMap<&str, usize>, inst: &Inst) -> Option<usize> {
    if !inst.info().is(props::CALL) {
        return None;
    }
    inst.uses().iter().find_map(|op| match op {
        Operand::Sym(s) => names.get(&**s).copied(),
        _ => None,
    })
}

/// Per function, its callees in order of first call, without repeats.
pub fn callees(funcs: &[Function]) -> Vec<Vec<usize>> {
    let names = name_index(funcs);
    funcs
        .iter()
        .map(|f| {
            let mut out: Vec<usize> = Vec::new();
            for inst in f.blocks.iter().flat_map(|b| &b.insts) {
                if let Some(c) = callee(&names, inst)
                    && !out.contains(&c)
                {
                    out.push(c);
                }
            }
            out
        })
        .collect()
}

/// The budget a launch-bounded entry is compiled to, whatever `--maxrregcount` says
/// (ARCHITECTURE.md, "Fidelity", issue 23 rule 2): its launch bounds' register count,
/// `.maxnreg` and the architectural cap, the least of them. `None` without launch bounds.
pub fn launch_budget(f: &Function) -> Option<u32> {
    let dims = f.maxntid.as_ref().or(f.reqntid.as_ref())?;
    let threads = dims.iter().fold(1u32, |a, &d| a.saturating_mul(d.max(1)));
    let lb = regs_for_occupancy(threads, f.minnctapersm.unwrap_or(1));
    Some(lb.min(f.maxnreg.unwrap_or(GPR_CAP)).min(GPR_CAP))
}

/// Sets [`Function::inherited_budget`] of every device function of `funcs` (whose call
/// graph is `graph`, [`callees`]): the launch
/// budget of the entries that reach it through calls, when every one of them is
/// launch-bounded to the same budget; otherwise none.
///
/// Measured (issue 23; ARCHITECTURE.md, "Fidelity", rule "callees compile to their
/// entry's launch bounds"): ptxas 13.0.88 compiles a callee with each entry that calls
/// it and prints its properties after each. A `.func` of peak live 62 called from an
/// entry with `.maxntid 256` and `.minnctapersm 2` reports no spills under
/// `--maxrregcount 32` ("Overriding global maxrregcount 32 with entry-specific value 128
/// computed using thread count"; the entry reports 66 registers); called from an entry
/// without launch bounds, the same `.func` spills 136 bytes, and with both entries in
/// one file its properties are printed twice, 136 bytes of spills after the unbounded
/// entry and none after the bounded one. radbg allocates a callee once: when its
/// entries' budgets differ it keeps the command line's budget (written down in
/// ARCHITECTURE.md).
pub fn inherit_launch_bounds(funcs: &mut [Function], graph: &[Vec<usize>]) {
    #[derive(Clone, Copy, PartialEq)]
    enum Seen {
        No,
        Same(u32),
        Mixed,
    }
    if !funcs.iter().any(|f| f.kind == FuncKind::Device) {
        return;
    }
    let n = funcs.len();
    let mut seen = vec![Seen::No; n];
    let mut stack = Vec::new();
    for (e, f) in funcs.iter().enumerate() {
        if f.kind != FuncKind::Entry {
            continue;
        }
        let from = launch_budget(f).map_or(Seen::Mixed, Seen::Same);
        stack.push(e);
        // A function's state only moves No → Same → Mixed, and a function is walked
        // again only when its state changed: each at most twice in all.
        while let Some(g) = stack.pop() {
            for &c in &graph[g] {
                let next = match (seen[c], from) {
                    (Seen::No, x) => x,
                    (Seen::Same(a), Seen::Same(b)) if a == b => continue,
                    (Seen::Mixed, _) => continue,
                    _ => Seen::Mixed,
                };
                seen[c] = next;
                stack.push(c);
            }
        }
    }
    for (f, s) in funcs.iter_mut().zip(seen) {
        f.inherited_budget = match s {
            Seen::Same(b) if f.kind == FuncKind::Device => Some(b),
            _ => None,
        };
    }
}

#[cfg(test)]
mod tests {
    use crate::ir::Module;

    fn module(entries: &[&str]) -> Module {
        let mut text = String::from(".version 8.0\n.target sm_80\n.address_size 64\n");
        text.push_str(".func leaf()\n{\n ret;\n}\n");
        text.push_str(".func mid()\n{\n call.uni leaf, ();\n ret;\n}\n");
        for (i, bounds) in entries.iter().enumerate() {
            text.push_str(&format!(".visible .entry k{i}(){bounds}\n{{\n call.uni mid, ();\n ret;\n}}\n"));
        }
        crate::ir::ptx::import_str("k.ptx", &text).expect("imports").0
    }

    fn inherited(m: &Module, name: &str) -> Option<u32> {
        m.functions.iter().find(|f| f.name == name).and_then(|f| f.inherited_budget)
    }

    #[test]
    fn callees_take_the_launch_budget_their_entries_share() {
        let m = module(&["\n.maxntid 256, 1, 1\n.minnctapersm 2\n", "\n.maxntid 128, 2, 1\n.minnctapersm 2\n"]);
        assert_eq!((inherited(&m, "mid"), inherited(&m, "leaf")), (Some(128), Some(128)));
        assert_eq!(inherited(&m, "k0"), None, "entries keep their own budget");
    }

    #[test]
    fn differing_or_missing_launch_bounds_leave_the_command_line_budget() {
        let m = module(&["\n.maxntid 256, 1, 1\n.minnctapersm 2\n", "\n.maxntid 1024, 1, 1\n"]);
        assert_eq!((inherited(&m, "mid"), inherited(&m, "leaf")), (None, None));
        let m = module(&["\n.maxntid 256, 1, 1\n.minnctapersm 2\n", ""]);
        assert_eq!(inherited(&m, "leaf"), None);
        let m = module(&["\n.maxntid 1024, 1, 1\n.maxnreg 40\n"]);
        assert_eq!(inherited(&m, "leaf"), Some(40));
    }
}
