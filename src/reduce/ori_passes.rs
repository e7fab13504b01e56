//! Reduction passes over Ori IR. They change the IR model (`ir::model`) and print it
//! with the canonical printer (`ir::print`): whole functions, blocks (with the branches
//! to them), blocks merged into the one before when nothing branches to them, single
//! instructions, loop back edges (the body made straight-line), and source registers
//! replaced by the immediate 0; declarations and `.knob` lines are deleted from the
//! printed text, and wide registers (`.R.x8`) halved in their declaration. Whether a change keeps the module
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

/// Every (function, block, instruction) whose instruction `keep` accepts (given its
/// function and block index).
fn insts_where(
    module: &Module,
    keep: impl Fn(&crate::ir::Function, usize, &crate::ir::Inst) -> bool,
) -> Vec<(usize, usize, usize)> {
    let mut items = Vec::new();
    for (fi, f) in module.functions.iter().enumerate() {
        for (bi, b) in f.blocks.iter().enumerate() {
            items.extend(b.insts.iter().enumerate().filter(|(_, i)| keep(f, bi, i)).map(|(ii, _)| (fi, bi, ii)));
        }
    }
    items
}

/// Removes the chosen (function, block, instruction) items, last first so the indices
/// of the rest hold.
fn remove_insts(m: &mut Module, chosen: &[(usize, usize, usize)]) {
    for &(fi, bi, ii) in chosen.iter().rev() {
        m.functions[fi].blocks[bi].insts.remove(ii);
    }
}

impl<T: Clone> Items for ModelItems<T> {
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
    fn keep(&self, range: Range<usize>) -> Option<String> {
        let (before, after) = (self.items.get(..range.start)?, self.items.get(range.end..)?);
        let chosen: Vec<T> = before.iter().chain(after).cloned().collect();
        if chosen.is_empty() {
            return None;
        }
        let mut m = self.module.clone();
        (self.apply)(&mut m, &chosen);
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

/// The module with every function but `name` deleted (`None` when nothing would go).
pub fn keep_only(text: &str, name: &str) -> Option<String> {
    keep_functions(text, &std::iter::once(name.to_string()).collect())
}

/// The module with every function not in `keep` deleted (`None` when nothing would go).
pub fn keep_functions(text: &str, keep: &std::collections::HashSet<String>) -> Option<String> {
    let mut m = parse(text)?;
    let before = m.functions.len();
    m.functions.retain(|f| keep.contains(f.name.as_str()));
    (m.functions.len() != before && !m.functions.is_empty()).then(|| crate::ir::print::print_module(&m))
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
        let items = insts_where(&module, |_, _, _| true);
        Some(Box::new(ModelItems { module, items, apply: remove_insts }))
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

/// Branches back to their own block or an earlier one (loop back edges): deleting one
/// makes the loop body straight-line, run once; its blocks can then merge.
pub struct BackEdges;

impl Pass for BackEdges {
    fn name(&self) -> &'static str {
        "loop back edges"
    }
    fn prepare<'a>(&self, text: &'a str) -> Option<Box<dyn Items + 'a>> {
        let module = parse(text)?;
        let items = insts_where(&module, |f, bi, inst| {
            inst.operands.iter().any(|o| match o {
                Operand::Sym(s) => f.blocks[..=bi].iter().any(|e| e.label == **s),
                _ => false,
            })
        });
        Some(Box::new(ModelItems { module, items, apply: remove_insts }))
    }
}

/// Wide virtual registers halved (`.reg .R.x4 %q` → `.R.x2`, `.R.x2` → `.R`) with the
/// width modifier of every instruction that reads or writes one whole (`LDG.E.128` →
/// `LDG.E.64` → `LDG.E`): one item per declaration line of the printed module. Where a
/// component beyond the new width is still used the validator rejects the candidate.
pub struct VregWidths;

/// The names a `.reg` line declares matched against a register token: `%q` itself, or
/// `%acc0`, `%acc1` ... for a range `%acc<2>`.
fn declares(names: &[(&str, bool)], tok: &str) -> bool {
    names.iter().any(|&(n, range)| {
        if range {
            tok.strip_prefix(n).is_some_and(|r| !r.is_empty() && r.bytes().all(|b| b.is_ascii_digit()))
        } else {
            tok == n
        }
    })
}

/// The edit halving the width modifier of one instruction line (`.128` → `.64`, `.64` →
/// nothing), when the opcode has the one for `bits`.
fn halve_modifier(line: &str, at: usize, bits: u32) -> Option<Edit> {
    let body = line.split("//").next().unwrap_or(line);
    let op_start = match body.find(" = ") {
        Some(k) => k + 3,
        None => body.len() - body.trim_start().len(),
    };
    let op_len = body[op_start..].find(char::is_whitespace).unwrap_or(body.len() - op_start);
    let op = &body[op_start..op_start + op_len];
    let word = format!(".{bits}");
    let k = op
        .match_indices(&word)
        .map(|(k, _)| k)
        .find(|&k| op[k + word.len()..].is_empty() || op[k + word.len()..].starts_with('.'))?;
    let with = if bits == 64 { String::new() } else { format!(".{}", bits / 2) };
    let s = at + op_start + k;
    Some(Edit { start: s, end: s + word.len(), with })
}

impl Pass for VregWidths {
    fn name(&self) -> &'static str {
        "register widths"
    }
    fn prepare<'a>(&self, text: &'a str) -> Option<Box<dyn Items + 'a>> {
        let mut lines = Vec::new();
        let mut at = 0;
        for line in text.split_inclusive('\n') {
            lines.push((at, line));
            at += line.len();
        }
        let mut items = Vec::new();
        for &(at, line) in &lines {
            let t = line.trim_start();
            if !t.starts_with(".reg ") {
                continue;
            }
            let Some(k) = line.find(".x") else { continue };
            let digits: String = line[k + 2..].chars().take_while(|c| c.is_ascii_digit()).collect();
            let Ok(n) = digits.parse::<u32>() else { continue };
            if n < 2 {
                continue;
            }
            let names: Vec<(&str, bool)> = line[k + 2 + digits.len()..]
                .split("//")
                .next()
                .unwrap_or("")
                .split(|c: char| c == ',' || c.is_whitespace())
                .filter(|w| w.starts_with('%'))
                .map(|w| match w.find('<') {
                    Some(p) => (&w[..p], true),
                    None => (w, false),
                })
                .collect();
            let with = if n == 2 { String::new() } else { format!(".x{}", n / 2) };
            let mut edits = vec![Edit { start: at + k, end: at + k + 2 + digits.len(), with }];
            for &(lat, l) in &lines {
                let body = l.split("//").next().unwrap_or(l);
                if body.trim_start().starts_with('.') {
                    continue;
                }
                let whole = body
                    .split(|c: char| !(c.is_ascii_alphanumeric() || c == '%' || c == '_' || c == '.'))
                    .any(|tok| declares(&names, tok));
                if whole && let Some(e) = halve_modifier(l, lat, 32 * n) {
                    edits.push(e);
                }
            }
            items.push(edits);
        }
        Some(Box::new(EditItems { text, items }))
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
        Box::new(BackEdges),
        Box::new(Blocks),
        Box::new(Instructions),
        Box::new(Operands),
        Box::new(Instructions),
        Box::new(VregWidths),
        Box::new(Merge),
        Box::new(Declarations),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    const K: &str = "\
.target sm_90
.entry k {
  .reg .R %r<2>
  .reg .R.x2 %rd<1>
  .reg .R.x4 %q
  .reg .P %p0
BB0:
  %rd0 = LDC.64 c[0x0][0x160]
  %r1 = MOV 0
BB1:
  %q = LDG.E.128 [%rd0]
  %r0 = IADD3 %q.0, %q.1, %r1
  %r1 = IADD3 %r0, %q.3, RZ
  %p0 = ISETP.LT.AND %r1, 100, PT
  @%p0 BRA BB1
BB2:
  STG.E [%rd0], %r1
  EXIT
}
";

    fn canonical(t: &str) -> String {
        crate::reduce::subject::canonical(crate::reduce::Format::Ori, t).expect("loads")
    }

    #[test]
    fn the_back_edge_is_an_item() {
        let t = canonical(K);
        let b = BackEdges.prepare(&t).expect("parses");
        assert_eq!(b.count(), 1);
        let out = b.apply(0..1).expect("changes");
        assert!(!out.contains("BRA"), "{out}");
        assert!(crate::reduce::subject::load(crate::reduce::Format::Ori, &out).is_ok(), "{out}");
    }

    #[test]
    fn wide_registers_are_halved_with_their_instructions() {
        let t = canonical(K);
        let w = VregWidths.prepare(&t).expect("prepares");
        // %rd (.x2) and %q (.x4).
        assert_eq!(w.count(), 2);
        let rd = w.apply(0..1).expect("changes");
        assert!(rd.contains("%rd0 = LDC c[0x0][0x160]"), "{rd}");
        let q = w.apply(1..2).expect("changes");
        assert!(q.contains(".reg .R.x2 %q"), "{q}");
        assert!(q.contains("%q = LDG.E.64 [%rd0]"), "{q}");
        // %q.3 is beyond the new width: the validator refuses the candidate.
        assert!(crate::reduce::subject::load(crate::reduce::Format::Ori, &q).is_err(), "{q}");
    }
}
