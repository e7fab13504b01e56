//! Loop shrinking for PTX (issue 29): a loop's back edge deleted (the body runs once,
//! straight-line, and the blocks can then merge as unreferenced labels go), and the
//! copies of an unrolled body dropped one whole copy at a time — ddmin's halving chunks
//! rarely line up with an unrolled body's copies, so the instruction pass alone removes
//! them a few instructions per test.

use std::collections::HashMap;

use crate::ir::ptx::ast::{OpKind, Stmt};
use crate::reduce::pass::{Edit, EditItems, Items, Pass};
use crate::reduce::ptx_passes::{delete_stmt, funcs, parse, stmts_of};

/// Branches back to a label at or before them: one item each, the branch deleted.
pub struct BackEdges;

impl Pass for BackEdges {
    fn name(&self) -> &'static str {
        "loop back edges"
    }
    fn prepare<'a>(&self, text: &'a str) -> Option<Box<dyn Items + 'a>> {
        let m = parse(text)?;
        let mut items = Vec::new();
        for f in funcs(&m) {
            let mut seen: Vec<&str> = Vec::new();
            for s in stmts_of(f) {
                match s {
                    Stmt::Label(name, _) => seen.push(name),
                    Stmt::Inst(i) if i.base == "bra" => {
                        let back =
                            i.ops.iter().any(|o| matches!(o.kind, OpKind::Name { name, .. } if seen.contains(&name)));
                        if back {
                            items.push(vec![delete_stmt(text, i.pos as usize, i.end as usize)]);
                        }
                    }
                    _ => {}
                }
            }
        }
        Some(Box::new(EditItems { text, items }))
    }
}

/// The longest run of repeated copies of a period-`p` sequence starting at `at`, for the
/// smallest period that repeats at least twice: `(period, copies)`.
fn repeats(keys: &[u32], at: usize, max_period: usize) -> Option<(usize, usize)> {
    let rest = &keys[at..];
    for p in 2..=max_period.min(rest.len() / 2) {
        let mut copies = 1;
        while (copies + 1) * p <= rest.len() && rest[copies * p..(copies + 1) * p] == rest[..p] {
            copies += 1;
        }
        if copies >= 2 {
            return Some((p, copies));
        }
    }
    None
}

/// Longest body an unrolled copy is looked for in (instructions).
const MAX_PERIOD: usize = 64;

/// Runs of repeated instruction sequences (the same opcodes and modifiers, copy after
/// copy, within one label-delimited block): every copy but the first is an item.
pub struct UnrolledCopies;

impl Pass for UnrolledCopies {
    fn name(&self) -> &'static str {
        "unrolled copies"
    }
    fn prepare<'a>(&self, text: &'a str) -> Option<Box<dyn Items + 'a>> {
        let m = parse(text)?;
        let mut items = Vec::new();
        let mut ids: HashMap<(&str, &str), u32> = HashMap::new();
        for f in funcs(&m) {
            let mut blocks: Vec<Vec<(u32, Edit)>> = vec![Vec::new()];
            for s in stmts_of(f) {
                match s {
                    Stmt::Label(..) => blocks.push(Vec::new()),
                    Stmt::Inst(i) => {
                        let n = ids.len() as u32;
                        let id = *ids.entry((i.base, i.mods_text)).or_insert(n);
                        let e = delete_stmt(text, i.pos as usize, i.end as usize);
                        if let Some(b) = blocks.last_mut() {
                            b.push((id, e));
                        }
                    }
                    _ => {}
                }
            }
            for b in &blocks {
                let keys: Vec<u32> = b.iter().map(|x| x.0).collect();
                let mut at = 0;
                while at < keys.len() {
                    match repeats(&keys, at, MAX_PERIOD) {
                        Some((p, copies)) => {
                            for c in 1..copies {
                                let span = at + c * p..at + (c + 1) * p;
                                items.push(b[span].iter().map(|x| x.1.clone()).collect());
                            }
                            at += p * copies;
                        }
                        None => at += 1,
                    }
                }
            }
        }
        Some(Box::new(EditItems { text, items }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const K: &str = "\
.version 8.0
.target sm_80
.address_size 64

.visible .entry k()
{
\t.reg .pred %p<2>;
\t.reg .b32 %r<8>;
\tmov.u32 %r1, 0;
$L__BB0_1:
\tmul.lo.s32 %r2, %r1, 3;
\tadd.s32 %r3, %r2, 1;
\tmul.lo.s32 %r4, %r3, 3;
\tadd.s32 %r5, %r4, 1;
\tmul.lo.s32 %r6, %r5, 3;
\tadd.s32 %r1, %r6, 1;
\tsetp.lt.u32 %p1, %r1, 100;
\t@%p1 bra $L__BB0_1;
\tret;
}
";

    #[test]
    fn the_back_edge_is_an_item() {
        let b = BackEdges.prepare(K).expect("parses");
        assert_eq!(b.count(), 1);
        let t = b.apply(0..1).expect("changes");
        assert!(!t.contains("bra"), "{t}");
        assert!(t.contains("\tsetp.lt.u32 %p1, %r1, 100;\n\tret;"), "{t}");
    }

    #[test]
    fn unrolled_copies_go_whole() {
        let u = UnrolledCopies.prepare(K).expect("parses");
        // Three copies of (mul, add): the second and the third are items.
        assert_eq!(u.count(), 2);
        let t = u.apply(0..2).expect("changes");
        assert!(t.contains("$L__BB0_1:\n\tmul.lo.s32 %r2, %r1, 3;\n\tadd.s32 %r3, %r2, 1;\n\tsetp"), "{t}");
    }

    #[test]
    fn periods_are_the_smallest_that_repeat() {
        assert_eq!(repeats(&[1, 2, 1, 2, 1, 2, 3], 0, 8), Some((2, 3)));
        assert_eq!(repeats(&[1, 2, 3, 1, 2, 3], 0, 8), Some((3, 2)));
        assert_eq!(repeats(&[1, 2, 3, 4], 0, 8), None);
    }
}
