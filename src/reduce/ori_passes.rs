//! Reduction passes over Ori IR. They change the IR model (`ir::model`) and print it
//! with the canonical printer (`ir::print`): whole functions, blocks (with the branches
//! to them), blocks merged into the one before when nothing branches to them, single
//! instructions, and source registers replaced by the immediate 0; declarations and
//! `.knob` lines are deleted from the printed text. Whether a change keeps the module
//! valid is the validator's call: the search re-parses every candidate.

use std::collections::HashSet;
use std::ops::Range;

use crate::ir::{Module, Operand, Reg};
use crate::reduce::pass::{Edit, EditItems, Items, Pass};

fn parse(text: &str) -> Option<Module> {
    crate::ir::parse::parse_str(text).ok()
}

/// A model-level pass: the items of a module and how to drop a range of them.
struct ModelItems<T> {
    module: Module,
    items: Vec<T>,
    apply: fn(&mut Module, &[T]),
}

impl<T> Items for ModelItems<T> {
    fn count(&self) -> usize {
        self.items.len()
    }
    fn apply(&self, range: Range<usize>) -> Option<String> {
        let chosen = self.items.get(range)?;
        if chosen.is_empty() {
            return None;
        }
        let mut m = self.module.clone();
        (self.apply)(&mut m, chosen);
        Some(crate::ir::print::print_module(&m))
    }
}

/// Labels some instruction of the function refers to.
fn referenced_labels(f: &crate::ir::Function) -> HashSet<&str> {
    f.blocks
        .iter()
        .flat_map(|b| &b.insts)
        .flat_map(|i| &i.operands)
        .filter_map(|o| match o {
            Operand::Sym(s) => Some(&**s),
            _ => None,
        })
        .collect()
}

/// Whole functions.
pub struct Functions;

impl Pass for Functions {
    fn name(&self) -> &'static str {
        "functions"
    }
    fn prepare<'a>(&self, text: &'a str) -> Option<Box<dyn Items + 'a>> {
        let module = parse(text)?;
        let items: Vec<usize> = (0..module.functions.len()).collect();
        Some(Box::new(ModelItems {
            module,
            items,
            apply: |m, chosen| {
                for &fi in chosen.iter().rev() {
                    m.functions.remove(fi);
                }
            },
        }))
    }
}

/// Blocks other than the entry, with every branch to them.
pub struct Blocks;

impl Pass for Blocks {
    fn name(&self) -> &'static str {
        "blocks"
    }
    fn prepare<'a>(&self, text: &'a str) -> Option<Box<dyn Items + 'a>> {
        let module = parse(text)?;
        let items: Vec<(usize, usize)> = module
            .functions
            .iter()
            .enumerate()
            .flat_map(|(fi, f)| (1..f.blocks.len()).map(move |bi| (fi, bi)))
            .collect();
        Some(Box::new(ModelItems {
            module,
            items,
            apply: |m, chosen| {
                for &(fi, bi) in chosen.iter().rev() {
                    let f = &mut m.functions[fi];
                    let label = f.blocks.remove(bi).label;
                    for b in &mut f.blocks {
                        b.insts.retain(|i| !i.operands.iter().any(|o| matches!(o, Operand::Sym(s) if **s == *label)));
                    }
                }
            },
        }))
    }
}

/// Blocks nothing branches to, merged into the block before them.
pub struct Merge;

impl Pass for Merge {
    fn name(&self) -> &'static str {
        "merge blocks"
    }
    fn prepare<'a>(&self, text: &'a str) -> Option<Box<dyn Items + 'a>> {
        let module = parse(text)?;
        let mut items = Vec::new();
        for (fi, f) in module.functions.iter().enumerate() {
            let used = referenced_labels(f);
            items.extend(
                (1..f.blocks.len()).filter(|&bi| !used.contains(f.blocks[bi].label.as_str())).map(|bi| (fi, bi)),
            );
        }
        Some(Box::new(ModelItems {
            module,
            items,
            apply: |m, chosen| {
                for &(fi, bi) in chosen.iter().rev() {
                    let f = &mut m.functions[fi];
                    let b = f.blocks.remove(bi);
                    f.blocks[bi - 1].insts.extend(b.insts);
                }
            },
        }))
    }
}

/// Single instructions.
pub struct Instructions;

impl Pass for Instructions {
    fn name(&self) -> &'static str {
        "instructions"
    }
    fn prepare<'a>(&self, text: &'a str) -> Option<Box<dyn Items + 'a>> {
        let module = parse(text)?;
        let mut items = Vec::new();
        for (fi, f) in module.functions.iter().enumerate() {
            for (bi, b) in f.blocks.iter().enumerate() {
                items.extend((0..b.insts.len()).map(|ii| (fi, bi, ii)));
            }
        }
        Some(Box::new(ModelItems {
            module,
            items,
            apply: |m, chosen| {
                for &(fi, bi, ii) in chosen.iter().rev() {
                    m.functions[fi].blocks[bi].insts.remove(ii);
                }
            },
        }))
    }
}

/// Source registers replaced by the immediate 0 (where the instruction takes one):
/// the value's dependence chain is cut, so the instructions computing it can go.
pub struct Operands;

impl Pass for Operands {
    fn name(&self) -> &'static str {
        "operands"
    }
    fn prepare<'a>(&self, text: &'a str) -> Option<Box<dyn Items + 'a>> {
        let module = parse(text)?;
        let mut items = Vec::new();
        for (fi, f) in module.functions.iter().enumerate() {
            for (bi, b) in f.blocks.iter().enumerate() {
                for (ii, inst) in b.insts.iter().enumerate() {
                    for (k, o) in inst.operands.iter().enumerate().skip(inst.ndefs as usize) {
                        if matches!(o, Operand::Reg(Reg::V(_))) {
                            items.push((fi, bi, ii, k));
                        }
                    }
                }
            }
        }
        Some(Box::new(ModelItems {
            module,
            items,
            apply: |m, chosen| {
                for &(fi, bi, ii, k) in chosen {
                    m.functions[fi].blocks[bi].insts[ii].operands[k] = Operand::Imm(0);
                }
            },
        }))
    }
}

/// `.reg` declarations, variables and `.knob` lines of the printed module.
pub struct Declarations;

impl Pass for Declarations {
    fn name(&self) -> &'static str {
        "declarations"
    }
    fn prepare<'a>(&self, text: &'a str) -> Option<Box<dyn Items + 'a>> {
        const HEADS: &[&str] = &[".reg ", ".knob ", ".global ", ".shared ", ".const ", ".local "];
        let mut items = Vec::new();
        let mut at = 0;
        for line in text.split_inclusive('\n') {
            let t = line.trim_start();
            if HEADS.iter().any(|h| t.starts_with(h)) {
                items.push(vec![Edit::delete(at, at + line.len())]);
            }
            at += line.len();
        }
        Some(Box::new(EditItems { text, items }))
    }
}

/// The Ori IR passes in the order one round runs them: coarse before fine.
pub fn passes() -> Vec<Box<dyn Pass>> {
    vec![
        Box::new(Functions),
        Box::new(Blocks),
        Box::new(Instructions),
        Box::new(Operands),
        Box::new(Instructions),
        Box::new(Merge),
        Box::new(Declarations),
    ]
}
