//! Type and vector-width simplification of PTX (issue 29): a vector load or store is
//! halved (`ld.global.v4.f32 {%f1, %f2, %f3, %f4}` → `ld.global.v2.f32 {%f1, %f2}` →
//! `ld.global.f32 %f1`), and a 64-bit register family (`.reg .f64 %fd<N>`) becomes 32-bit
//! with every instruction that mentions it (`add.f64` → `add.f32`, `0d` immediates as the
//! nearest `0f`). Fewer and narrower values is what a register-allocation case is made
//! of; a change the loader rejects is never tested (the search re-parses and validates
//! every candidate), so the pass only has to keep to what is plausibly still PTX.

use crate::ir::ptx::ast::{Inst, OpKind, Stmt, TyKind};
use crate::reduce::pass::{Edit, EditItems, Items, Pass};
use crate::reduce::ptx_passes::{funcs, parse, stmts_of};

/// The offset of an instruction's `base.mods` opcode text, checked against the text.
fn opcode_at(text: &str, i: &Inst) -> Option<usize> {
    let (pos, end) = (i.pos as usize, i.end as usize);
    let stmt = text.get(pos..end)?;
    let mut from = 0;
    // The opcode follows the guard (if any); find the base followed by its modifiers.
    while let Some(k) = stmt[from..].find(i.base) {
        let at = from + k;
        if stmt[at + i.base.len()..].starts_with(i.mods_text) {
            return Some(pos + at);
        }
        from = at + 1;
    }
    None
}

/// `.vN` of an instruction's modifiers, with its offset in `mods_text`.
fn vector_mod(mods: &str) -> Option<(usize, usize, u32)> {
    let mut at = 0;
    for w in mods.split('.') {
        if let Some(n) = w.strip_prefix('v').and_then(|d| d.parse::<u32>().ok())
            && matches!(n, 2 | 4 | 8)
        {
            return Some((at - 1, at + w.len(), n));
        }
        at += w.len() + 1;
    }
    None
}

/// Vector loads and stores halved: one item per instruction with a `.vN` modifier and
/// a brace operand; the pass's fixed point takes `.v4` down to a scalar.
pub struct VectorWidths;

impl Pass for VectorWidths {
    fn name(&self) -> &'static str {
        "vector widths"
    }
    fn rewrites_types(&self) -> bool {
        true
    }
    fn prepare<'a>(&self, text: &'a str) -> Option<Box<dyn Items + 'a>> {
        let m = parse(text)?;
        let mut items = Vec::new();
        for f in funcs(&m) {
            for s in stmts_of(f) {
                let Stmt::Inst(i) = s else { continue };
                let Some((ms, me, n)) = vector_mod(i.mods_text) else { continue };
                let Some(vec) = i.ops.iter().find(|o| matches!(o.kind, OpKind::Vector(_))) else { continue };
                let OpKind::Vector(elems) = &vec.kind else { continue };
                if elems.len() != n as usize {
                    continue;
                }
                let Some(op) = opcode_at(text, i) else { continue };
                let vstart = vec.pos as usize;
                let Some(vend) = text[vstart..].find('}').map(|k| vstart + k + 1) else { continue };
                let half = (n / 2) as usize;
                // The kept elements as written (from the first's start to the last kept one's end).
                let first = elems[0].pos as usize;
                let last_end = match elems.get(half) {
                    Some(next) => text[..next.pos as usize].rfind(',').unwrap_or(next.pos as usize),
                    None => continue,
                };
                let kept = text.get(first..last_end)?.trim();
                let mod_start = op + i.base.len() + ms;
                let mod_end = op + i.base.len() + me;
                let (new_mod, new_vec) = if half == 1 {
                    (String::new(), kept.to_string())
                } else {
                    (format!(".v{half}"), format!("{{{kept}}}"))
                };
                items.push(vec![
                    Edit { start: mod_start, end: mod_end, with: new_mod },
                    Edit { start: vstart, end: vend, with: new_vec },
                ]);
            }
        }
        Some(Box::new(EditItems { text, items }))
    }
}

/// The 32-bit name of a 64-bit type word (`f64` → `f32`), `None` for the others.
fn narrow(word: &str) -> Option<&'static str> {
    Some(match word {
        "f64" => "f32",
        "b64" => "b32",
        "u64" => "u32",
        "s64" => "s32",
        _ => return None,
    })
}

/// A `0dXXXXXXXXXXXXXXXX` literal as the nearest `0fXXXXXXXX`.
fn narrow_literal(lit: &str) -> Option<String> {
    let hex = lit.strip_prefix("0d").or_else(|| lit.strip_prefix("0D"))?;
    let bits = u64::from_str_radix(hex.get(..16)?, 16).ok()?;
    Some(format!("0f{:08X}", (f64::from_bits(bits) as f32).to_bits()))
}

/// Whether an operand mentions a name `mine` accepts (in an address, a vector, a pair ...).
fn mentions(o: &crate::ir::ptx::ast::Operand, mine: &dyn Fn(&str) -> bool) -> bool {
    use crate::ir::ptx::ast::MemItem;
    match &o.kind {
        OpKind::Name { name, .. } | OpKind::NameOffset { name, .. } => mine(name),
        OpKind::Not(x) => mentions(x, mine),
        OpKind::Pair(a, b) => mentions(a, mine) || mentions(b, mine),
        OpKind::Vector(v) | OpKind::List(v) => v.iter().any(|x| mentions(x, mine)),
        OpKind::Mem(items) => items.iter().any(|it| match it {
            MemItem::Addr { names, .. } => names.iter().any(|(n, _, _)| mine(n)),
            MemItem::Other(x) => mentions(x, mine),
        }),
        OpKind::Imm(_) | OpKind::Sink => false,
    }
}

/// Instructions where a narrowed family cannot stand: calls, address conversions, bit
/// casts (`mov.b64`), `.wide` products, `.param` accesses, and any use of the family in
/// an address or a vector of halves.
fn pins_width(i: &Inst, mine: &dyn Fn(&str) -> bool) -> bool {
    matches!(i.base, "call" | "cvta" | "isspacep")
        || (i.base == "mov" && i.mods_text.contains("b64"))
        || i.mods().iter().any(|m| *m == "wide" || *m == "param")
        || i.ops.iter().any(|o| matches!(o.kind, OpKind::Mem(_) | OpKind::Vector(_)) && mentions(o, mine))
}

/// 64-bit register families made 32-bit, one item per family: its declaration and every
/// instruction that mentions it. Families used in an address, by a call, a `mov.b64`
/// (often a bit cast between widths), a `.wide` or a `.param` access stay as they are.
pub struct RegisterWidths;

impl Pass for RegisterWidths {
    fn name(&self) -> &'static str {
        "register widths"
    }
    fn rewrites_types(&self) -> bool {
        true
    }
    fn prepare<'a>(&self, text: &'a str) -> Option<Box<dyn Items + 'a>> {
        let m = parse(text)?;
        let mut items = Vec::new();
        for f in funcs(&m) {
            let stmts = stmts_of(f);
            for s in &stmts {
                let Stmt::Decl(d) = s else { continue };
                if d.vec != 1 || d.ty.bits != 64 || !matches!(d.ty.kind, TyKind::B | TyKind::S | TyKind::U | TyKind::F)
                {
                    continue;
                }
                // `.reg .f64 %fd<N>;`: the type word is the one before the first name.
                let Some(name0) = d.names.first() else { continue };
                let decl = text.get(d.pos as usize..name0.pos as usize)?;
                let Some(tpos) = decl.rfind("64") else { continue };
                let word_start = decl[..tpos].rfind('.').map_or(tpos, |k| k + 1);
                let Some(new) = narrow(&decl[word_start..tpos + 2]) else { continue };
                let mut edits =
                    vec![Edit { start: d.pos as usize + word_start, end: d.pos as usize + tpos + 2, with: new.into() }];
                let mine = |name: &str| {
                    d.names.iter().any(|n| match n.range {
                        Some(_) => name
                            .strip_prefix(n.name)
                            .is_some_and(|r| !r.is_empty() && r.bytes().all(|b| b.is_ascii_digit())),
                        None => name == n.name,
                    })
                };
                let mut ok = true;
                for s in &stmts {
                    let Stmt::Inst(i) = s else { continue };
                    let guarded = i.guard.as_ref().is_some_and(|g| mine(g.name));
                    if !guarded && !i.ops.iter().any(|o| mentions(o, &mine)) {
                        continue;
                    }
                    if pins_width(i, &mine) {
                        ok = false;
                        break;
                    }
                    let Some(op) = opcode_at(text, i) else {
                        ok = false;
                        break;
                    };
                    let mut at = op + i.base.len();
                    for w in i.mods_text.split('.').skip(1) {
                        at += 1;
                        if let Some(n) = narrow(w) {
                            edits.push(Edit { start: at, end: at + w.len(), with: n.into() });
                        }
                        at += w.len();
                    }
                    for o in &i.ops {
                        if let OpKind::Imm(crate::ir::ptx::ast::Lit::F64(_)) = o.kind {
                            let p = o.pos as usize;
                            if let Some(lit) = text.get(p..(p + 18).min(text.len()))
                                && let Some(n) = narrow_literal(lit)
                            {
                                edits.push(Edit { start: p, end: p + 18, with: n });
                            }
                        }
                    }
                }
                if ok {
                    items.push(edits);
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

.visible .entry k(
\t.param .u64 k_p0
)
{
\t.reg .f32 %f<5>;
\t.reg .f64 %fd<3>;
\t.reg .b64 %rd<2>;
\tld.param.u64 %rd1, [k_p0];
\tld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1];
\tcvt.f64.f32 %fd1, %f1;
\tadd.f64 %fd2, %fd1, 0d3FF0000000000000;
\tcvt.rn.f32.f64 %f2, %fd2;
\tst.global.f32 [%rd1], %f2;
\tret;
}
";

    #[test]
    fn a_vector_load_is_halved_then_scalar() {
        let v = VectorWidths.prepare(K).expect("parses");
        assert_eq!(v.count(), 1);
        let t = v.apply(0..1).expect("changes");
        assert!(t.contains("\tld.global.v2.f32 {%f1, %f2}, [%rd1];"), "{t}");
        let t2 = VectorWidths.prepare(&t).expect("parses").apply(0..1).expect("changes");
        assert!(t2.contains("\tld.global.f32 %f1, [%rd1];"), "{t2}");
        assert!(crate::ir::ptx::import_text(&t2).module.is_some(), "{t2}");
    }

    #[test]
    fn a_double_family_becomes_single() {
        let r = RegisterWidths.prepare(K).expect("parses");
        // %fd narrows; %rd is an address (and read by ld.param) and stays.
        assert_eq!(r.count(), 1);
        let t = r.apply(0..1).expect("changes");
        assert!(t.contains(".reg .f32 %fd<3>;"), "{t}");
        assert!(t.contains("cvt.f32.f32 %fd1, %f1;"), "{t}");
        assert!(t.contains("add.f32 %fd2, %fd1, 0f3F800000;"), "{t}");
        assert!(t.contains(".reg .b64 %rd<2>;"), "{t}");
        // `cvt.rn.f32.f64` narrowed is `cvt.rn.f32.f32`, which ptxas refuses and so does
        // the importer (ir/ptx/validate.rs): the search never tests this candidate.
        assert!(t.contains("cvt.rn.f32.f32 %f2, %fd2;"), "{t}");
        let imp = crate::ir::ptx::import_text(&t);
        assert!(imp.module.is_none(), "{t}");
        assert!(imp.diags.iter().any(|d| d.message.contains("illegal rounding modifier '.rn' for cvt.f32.f32")));
        let without = t.replace("\tcvt.rn.f32.f32 %f2, %fd2;\n", "");
        assert!(crate::ir::ptx::import_text(&without).module.is_some(), "{without}");
    }
}
