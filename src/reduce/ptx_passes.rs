//! Reduction passes over PTX text. They read the PTX syntax tree (`ir::ptx::parse`),
//! whose every function, declaration, label and instruction carries its byte offset,
//! and edit the text, so the result is still PTX that ptxas and radbg's PTX stages
//! read: functions, label-delimited blocks, single instructions, unreferenced labels,
//! declarations and parameters are deleted, and source registers are replaced by an
//! existing register of the same declaration (same type, so ptxas still accepts it).

use std::collections::HashSet;
use std::ops::Range;

use crate::ir::ptx::ast::{FuncDecl, Item, OpKind, PtxModule, Stmt};
use crate::reduce::pass::{Edit, EditItems, Items, Pass};

/// Linkage words that may precede `.entry`, `.func` or a variable on its line.
const LINKAGE: &[&str] = &[".visible", ".weak", ".extern", ".common"];

/// Where an item starting at `pos` really starts: at its line's start when only
/// white space and linkage directives come before it on the line.
fn item_start(text: &str, pos: usize) -> usize {
    let line = text[..pos].rfind('\n').map_or(0, |i| i + 1);
    if text[line..pos].split_whitespace().all(|w| LINKAGE.contains(&w)) { line } else { pos }
}

/// Just after the first `;` at or after `pos` (the end of a declaration).
fn after_semicolon(text: &str, pos: usize) -> Option<usize> {
    text[pos..].find(';').map(|i| pos + i + 1)
}

/// Extends a deletion over the rest of its line when only white space follows, so
/// deleted statements leave no blank lines behind.
fn to_line_end(text: &str, end: usize) -> usize {
    let rest = &text[end..];
    match rest.find('\n') {
        Some(i) if rest[..i].trim().is_empty() => end + i + 1,
        _ => end,
    }
}

/// Deletes `start..end` and, when the statement had its line to itself, the line.
pub(crate) fn delete_stmt(text: &str, start: usize, end: usize) -> Edit {
    let line = text[..start].rfind('\n').map_or(0, |i| i + 1);
    let whole_line = text[line..start].trim().is_empty();
    let end2 = to_line_end(text, end);
    if whole_line && end2 != end { Edit::delete(line, end2) } else { Edit::delete(start, end) }
}

pub(crate) fn parse(text: &str) -> Option<PtxModule<'_>> {
    crate::ir::ptx::parse::parse_module(text).ok()
}

pub(crate) fn funcs<'m, 'a>(m: &'m PtxModule<'a>) -> impl Iterator<Item = &'m FuncDecl<'a>> {
    m.items.iter().filter_map(|it| match it {
        Item::Func(f) => Some(f.as_ref()),
        Item::Var(_) => None,
    })
}

/// Every statement of a body, nested scopes included, in text order.
fn walk<'s, 'a>(stmts: &'s [Stmt<'a>], out: &mut Vec<&'s Stmt<'a>>) {
    for s in stmts {
        out.push(s);
        if let Stmt::Block(b, _) = s {
            walk(b, out);
        }
    }
}

pub(crate) fn stmts_of<'s, 'a>(f: &'s FuncDecl<'a>) -> Vec<&'s Stmt<'a>> {
    let mut v = Vec::new();
    if let Some(b) = &f.body {
        walk(b, &mut v);
    }
    v
}

/// Whole functions (with their bodies) and function declarations: a defined function
/// goes with its prototypes (`.func f(...);` before the definition) as one item, and a
/// prototype without a definition (`.extern`) is an item alone.
///
/// Why together: ptxas refuses a module that declares a `.func` it never defines, called
/// or not ("Unresolved extern function"), so a definition deleted alone left a text ptxas
/// rejects — every such candidate failed under `differs-from-ptxas`.
pub struct Functions;

impl Pass for Functions {
    fn name(&self) -> &'static str {
        "functions"
    }
    fn prepare<'a>(&self, text: &'a str) -> Option<Box<dyn Items + 'a>> {
        let m = parse(text)?;
        let defined: HashSet<&str> = funcs(&m).filter(|f| f.body.is_some()).map(|f| f.name).collect();
        // Item per name, in the order of each name's first appearance.
        let mut order: Vec<&str> = Vec::new();
        let mut items: Vec<Vec<Edit>> = Vec::new();
        for f in funcs(&m) {
            let edit = Edit::delete(item_start(text, f.pos as usize), to_line_end(text, decl_end(text, f)?));
            let slot = if defined.contains(f.name) { order.iter().position(|n| *n == f.name) } else { None };
            match slot {
                Some(i) => items[i].push(edit),
                None => {
                    order.push(f.name);
                    items.push(vec![edit]);
                }
            }
        }
        // Keeping one function is the loader's business: a candidate without any
        // fails to load and is never tested.
        Some(Box::new(EditItems { text, items }))
    }
}

/// Where function `f`'s text ends: after its body's `}`, or after a prototype's `;`.
fn decl_end(text: &str, f: &FuncDecl<'_>) -> Option<usize> {
    let end = match f.body {
        Some(_) => f.close as usize + 1,
        None => after_semicolon(text, f.pos as usize)?,
    };
    Some(end.min(text.len()))
}

/// The text with every function but `name` deleted (`None` when nothing would go).
pub fn keep_only(text: &str, name: &str) -> Option<String> {
    keep_functions(text, &std::iter::once(name.to_string()).collect())
}

/// The text with every function definition not in `keep` deleted, with its prototypes
/// (`None` when nothing would go). Declarations of functions defined nowhere in the text
/// (`.extern`) stay: a kept function may call them. A prototype whose definition goes
/// must go too: ptxas refuses a module that declares a `.func` it never defines
/// ("Unresolved extern function"), and so every batch `focus` cut from a file with
/// forward declarations was refused, sending the calibration to the whole file (288 s
/// on the 354 569-instruction gate file). The search tries it first with the call group
/// of the function that shows the predicate.
pub fn keep_functions(text: &str, keep: &HashSet<String>) -> Option<String> {
    let m = parse(text)?;
    let defined: HashSet<&str> = funcs(&m).filter(|f| f.body.is_some()).map(|f| f.name).collect();
    let mut edits = Vec::new();
    for f in funcs(&m) {
        if keep.contains(f.name) || !defined.contains(f.name) {
            continue;
        }
        edits.push(Edit::delete(item_start(text, f.pos as usize), to_line_end(text, decl_end(text, f)?)));
    }
    if edits.is_empty() {
        return None;
    }
    let refs: Vec<&Edit> = edits.iter().collect();
    Some(crate::reduce::pass::splice(text, &refs))
}

/// The instructions between one label and the next (the label stays, so branches to
/// it stay valid): a whole basic block's body at once.
pub struct Blocks;

impl Pass for Blocks {
    fn name(&self) -> &'static str {
        "blocks"
    }
    fn prepare<'a>(&self, text: &'a str) -> Option<Box<dyn Items + 'a>> {
        let m = parse(text)?;
        let mut items = Vec::new();
        for f in funcs(&m) {
            let mut cur: Vec<Edit> = Vec::new();
            for s in stmts_of(f) {
                match s {
                    Stmt::Label(..) => {
                        if cur.len() > 1 {
                            items.push(std::mem::take(&mut cur));
                        }
                        cur.clear();
                    }
                    Stmt::Inst(i) => cur.push(delete_stmt(text, i.pos as usize, i.end as usize)),
                    _ => {}
                }
            }
            if cur.len() > 1 {
                items.push(cur);
            }
        }
        Some(Box::new(EditItems { text, items }))
    }
}

/// Single instructions.
pub struct Instructions;

impl Pass for Instructions {
    fn name(&self) -> &'static str {
        "instructions"
    }
    fn prepare<'a>(&self, text: &'a str) -> Option<Box<dyn Items + 'a>> {
        let m = parse(text)?;
        let mut items = Vec::new();
        for f in funcs(&m) {
            for s in stmts_of(f) {
                if let Stmt::Inst(i) = s {
                    items.push(vec![delete_stmt(text, i.pos as usize, i.end as usize)]);
                }
            }
        }
        Some(Box::new(EditItems { text, items }))
    }
}

/// Every name an operand of `f` mentions (labels, registers, variables, functions).
fn names_used<'a>(f: &FuncDecl<'a>, out: &mut HashSet<&'a str>) {
    fn op<'a>(o: &crate::ir::ptx::ast::Operand<'a>, out: &mut HashSet<&'a str>) {
        match &o.kind {
            OpKind::Name { name, .. } | OpKind::NameOffset { name, .. } => {
                out.insert(name);
            }
            OpKind::Not(x) => op(x, out),
            OpKind::Pair(a, b) => {
                op(a, out);
                op(b, out);
            }
            OpKind::Vector(v) | OpKind::List(v) => v.iter().for_each(|x| op(x, out)),
            OpKind::Mem(items) => {
                for it in items {
                    match it {
                        crate::ir::ptx::ast::MemItem::Addr { names, .. } => {
                            names.iter().for_each(|(n, _, _)| {
                                out.insert(n);
                            });
                        }
                        crate::ir::ptx::ast::MemItem::Other(x) => op(x, out),
                    }
                }
            }
            OpKind::Imm(_) | OpKind::Sink => {}
        }
    }
    for s in stmts_of(f) {
        match s {
            Stmt::Inst(i) => {
                if let Some(g) = &i.guard {
                    out.insert(g.name);
                }
                i.ops.iter().for_each(|o| op(o, out));
            }
            Stmt::BranchTargets { targets, .. } | Stmt::CallTargets { targets, .. } => {
                targets.iter().for_each(|(t, _)| {
                    out.insert(t);
                });
            }
            _ => {}
        }
    }
}

/// Labels no operand refers to any more (what merging blocks amounts to in PTX).
pub struct Labels;

impl Pass for Labels {
    fn name(&self) -> &'static str {
        "labels"
    }
    fn prepare<'a>(&self, text: &'a str) -> Option<Box<dyn Items + 'a>> {
        let m = parse(text)?;
        let mut items = Vec::new();
        for f in funcs(&m) {
            let mut used = HashSet::new();
            names_used(f, &mut used);
            for s in stmts_of(f) {
                if let Stmt::Label(name, pos) = s
                    && !used.contains(name)
                {
                    let start = *pos as usize;
                    let colon = text[start..].find(':').map(|i| start + i + 1)?;
                    items.push(vec![delete_stmt(text, start, colon)]);
                }
            }
        }
        Some(Box::new(EditItems { text, items }))
    }
}

/// Declarations: module-level variables, and declarations in bodies whose names no
/// operand mentions.
pub struct Declarations;

impl Pass for Declarations {
    fn name(&self) -> &'static str {
        "declarations"
    }
    fn prepare<'a>(&self, text: &'a str) -> Option<Box<dyn Items + 'a>> {
        let m = parse(text)?;
        let mut used = HashSet::new();
        for f in funcs(&m) {
            names_used(f, &mut used);
        }
        let mut items = Vec::new();
        for it in &m.items {
            match it {
                Item::Var(v) => {
                    if v.names.iter().all(|n| !used.contains(n.name)) {
                        let start = item_start(text, v.pos as usize);
                        let end = after_semicolon(text, v.pos as usize)?;
                        items.push(vec![delete_stmt(text, start, end)]);
                    }
                }
                Item::Func(f) => {
                    for s in stmts_of(f) {
                        if let Stmt::Decl(d) = s {
                            // A register range `%r<N>` is used through `%r5`: keep those
                            // unless no operand starts with its prefix.
                            let unused = d.names.iter().all(|n| match n.range {
                                Some(_) => !used.iter().any(|u| {
                                    u.strip_prefix(n.name).is_some_and(|r| r.bytes().all(|b| b.is_ascii_digit()))
                                }),
                                None => !used.contains(n.name),
                            });
                            if unused {
                                let end = after_semicolon(text, d.pos as usize)?;
                                items.push(vec![delete_stmt(text, d.pos as usize, end)]);
                            }
                        }
                    }
                }
            }
        }
        Some(Box::new(EditItems { text, items }))
    }
}

/// Every name an operand or guard of `f` mentions, with its offset.
fn name_sites<'a>(f: &FuncDecl<'a>, out: &mut Vec<(&'a str, usize)>) {
    fn op<'a>(o: &crate::ir::ptx::ast::Operand<'a>, out: &mut Vec<(&'a str, usize)>) {
        match &o.kind {
            OpKind::Name { name, .. } | OpKind::NameOffset { name, .. } => out.push((name, o.pos as usize)),
            OpKind::Not(x) => op(x, out),
            OpKind::Pair(a, b) => {
                op(a, out);
                op(b, out);
            }
            OpKind::Vector(v) | OpKind::List(v) => v.iter().for_each(|x| op(x, out)),
            OpKind::Mem(items) => {
                for it in items {
                    match it {
                        crate::ir::ptx::ast::MemItem::Addr { names, .. } => {
                            out.extend(names.iter().map(|(n, _, p)| (*n, *p as usize)));
                        }
                        crate::ir::ptx::ast::MemItem::Other(x) => op(x, out),
                    }
                }
            }
            OpKind::Imm(_) | OpKind::Sink => {}
        }
    }
    for s in stmts_of(f) {
        if let Stmt::Inst(i) = s {
            if let Some(g) = &i.guard {
                out.push((g.name, g.pos as usize));
            }
            i.ops.iter().for_each(|o| op(o, out));
        }
    }
}

/// Registers of each `%r<N>` declaration renumbered densely in their order (`%r99624`
/// → `%r3`) and the range cut to them: the importer makes a vreg per declared register,
/// so a reduced kernel that kept `%r<99632>` would still cost its size on every test.
pub struct Renumber;

impl Pass for Renumber {
    fn name(&self) -> &'static str {
        "renumber registers"
    }
    fn prepare<'a>(&self, text: &'a str) -> Option<Box<dyn Items + 'a>> {
        let m = parse(text)?;
        let mut items = Vec::new();
        for f in funcs(&m) {
            let mut sites = Vec::new();
            name_sites(f, &mut sites);
            let mut families: Vec<(&str, u32, usize)> = Vec::new();
            for s in stmts_of(f) {
                if let Stmt::Decl(d) = s {
                    families.extend(d.names.iter().filter_map(|n| Some((n.name, n.range?, n.pos as usize))));
                }
            }
            // Longest prefix first, so `%rd5` belongs to `%rd`, not to `%r`.
            families.sort_by_key(|p| std::cmp::Reverse(p.0.len()));
            let family_of = |name: &str| {
                families.iter().position(|(p, _, _)| {
                    name.strip_prefix(p).is_some_and(|r| !r.is_empty() && r.bytes().all(|b| b.is_ascii_digit()))
                })
            };
            let mut per: Vec<Vec<(u32, &str, usize)>> = vec![Vec::new(); families.len()];
            for &(name, pos) in &sites {
                if let Some(k) = family_of(name)
                    && let Ok(n) = name[families[k].0.len()..].parse::<u32>()
                {
                    per[k].push((n, name, pos));
                }
            }
            for (k, (prefix, count, decl_pos)) in families.iter().enumerate() {
                let mut used: Vec<u32> = per[k].iter().map(|x| x.0).collect();
                used.sort_unstable();
                used.dedup();
                let want = (used.len() as u32).max(1);
                let dense = used.iter().enumerate().all(|(i, &n)| n == i as u32);
                if dense && want >= *count {
                    continue;
                }
                let mut edits = Vec::new();
                let at = decl_pos + prefix.len();
                let digits = count.to_string();
                if text.get(at..at + 1) != Some("<") || text.get(at + 1..at + 1 + digits.len()) != Some(&digits) {
                    continue;
                }
                edits.push(Edit { start: at + 1, end: at + 1 + digits.len(), with: want.to_string() });
                let mut ok = true;
                for &(n, name, pos) in &per[k] {
                    if text.get(pos..pos + name.len()) != Some(name) {
                        ok = false;
                        break;
                    }
                    let new = used.binary_search(&n).unwrap_or(0);
                    if new as u32 != n {
                        edits.push(Edit { start: pos, end: pos + name.len(), with: format!("{prefix}{new}") });
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

/// Parameters of kernels and of functions nothing calls (the parameter list is rewritten
/// without them; a parameter still read makes the candidate fail to load).
pub struct Params;

struct ParamItems<'a> {
    text: &'a str,
    /// Per function: the text between the parentheses, and each parameter's text.
    lists: Vec<(Range<usize>, Vec<&'a str>)>,
    /// (list, parameter) for each item.
    items: Vec<(usize, usize)>,
}

impl Items for ParamItems<'_> {
    fn count(&self) -> usize {
        self.items.len()
    }
    fn apply(&self, range: Range<usize>) -> Option<String> {
        let chosen = self.items.get(range)?;
        if chosen.is_empty() {
            return None;
        }
        let mut edits = Vec::new();
        for (li, (span, params)) in self.lists.iter().enumerate() {
            if !chosen.iter().any(|&(l, _)| l == li) {
                continue;
            }
            let kept: Vec<&str> =
                params.iter().enumerate().filter(|(k, _)| !chosen.contains(&(li, *k))).map(|(_, p)| p.trim()).collect();
            let with = if kept.is_empty() { String::new() } else { format!("\n\t{}\n", kept.join(",\n\t")) };
            edits.push(Edit { start: span.start, end: span.end, with });
        }
        let refs: Vec<&Edit> = edits.iter().collect();
        Some(crate::reduce::pass::splice(self.text, &refs))
    }
}

impl Pass for Params {
    fn name(&self) -> &'static str {
        "parameters"
    }
    fn prepare<'a>(&self, text: &'a str) -> Option<Box<dyn Items + 'a>> {
        let m = parse(text)?;
        // A function something names (a call, a prototype, an address taken) keeps its
        // parameters: its calls would pass more arguments than it takes, which radbg's
        // loader lets through and ptxas refuses ("Call has wrong number of parameters").
        let mut named = HashSet::new();
        for f in funcs(&m) {
            names_used(f, &mut named);
        }
        let mut lists = Vec::new();
        let mut items = Vec::new();
        for f in funcs(&m).filter(|f| !named.contains(f.name)) {
            let (Some(first), Some(last)) = (f.params.first(), f.params.last()) else { continue };
            let open = text[..first.pos as usize].rfind('(')? + 1;
            let close = text[last.pos as usize..].find(')')? + last.pos as usize;
            let mut params = Vec::new();
            for (k, p) in f.params.iter().enumerate() {
                let end = match f.params.get(k + 1) {
                    Some(n) => text[..n.pos as usize].rfind(',')?,
                    None => close,
                };
                params.push(text.get(p.pos as usize..end)?);
                items.push((lists.len(), k));
            }
            lists.push((open..close, params));
        }
        Some(Box::new(ParamItems { text, lists, items }))
    }
}

/// Source registers replaced by register 0 of their declaration (`%r57` → `%r0`):
/// the value's dependence chain is cut, so the instructions computing it can go.
pub struct Operands;

impl Pass for Operands {
    fn name(&self) -> &'static str {
        "operands"
    }
    fn prepare<'a>(&self, text: &'a str) -> Option<Box<dyn Items + 'a>> {
        let m = parse(text)?;
        let mut items = Vec::new();
        for f in funcs(&m) {
            let stmts = stmts_of(f);
            let mut families: Vec<&str> = Vec::new();
            for s in &stmts {
                if let Stmt::Decl(d) = s {
                    families.extend(d.names.iter().filter(|n| n.range.is_some()).map(|n| n.name));
                }
            }
            // Longest prefix first, so `%rd5` is `%rd` + 5, not `%r` + "d5".
            families.sort_by_key(|p| std::cmp::Reverse(p.len()));
            for s in &stmts {
                let Stmt::Inst(i) = s else { continue };
                for o in i.ops.iter().skip(1) {
                    let OpKind::Name { name, comp: None } = o.kind else { continue };
                    let Some(fam) = families.iter().find(|p| {
                        name.strip_prefix(**p).is_some_and(|r| !r.is_empty() && r.bytes().all(|b| b.is_ascii_digit()))
                    }) else {
                        continue;
                    };
                    let zero = format!("{fam}0");
                    let start = o.pos as usize;
                    if name == zero || text.get(start..start + name.len()) != Some(name) {
                        continue;
                    }
                    items.push(vec![Edit { start, end: start + name.len(), with: zero }]);
                }
            }
        }
        Some(Box::new(EditItems { text, items }))
    }
}

/// Lines that hold only a `//` comment (the compiler's banner, `// demoted variable`).
pub struct Comments;

impl Pass for Comments {
    fn name(&self) -> &'static str {
        "comments"
    }
    fn prepare<'a>(&self, text: &'a str) -> Option<Box<dyn Items + 'a>> {
        let mut items = Vec::new();
        let mut at = 0;
        for line in text.split_inclusive('\n') {
            if line.trim_start().starts_with("//") {
                items.push(vec![Edit::delete(at, at + line.len())]);
            }
            at += line.len();
        }
        Some(Box::new(EditItems { text, items }))
    }
}

/// Runs of blank lines left behind by deletions, collapsed to one.
pub struct BlankLines;

impl Pass for BlankLines {
    fn name(&self) -> &'static str {
        "blank lines"
    }
    fn prepare<'a>(&self, text: &'a str) -> Option<Box<dyn Items + 'a>> {
        let mut items = Vec::new();
        let mut at = 0;
        let mut run: Option<(usize, usize, usize)> = None;
        for line in text.split_inclusive('\n') {
            if line.trim().is_empty() {
                let r = run.get_or_insert((at, at, 0));
                r.1 = at + line.len();
                r.2 += 1;
            } else if let Some((start, end, n)) = run.take() {
                // Keep one empty line where there were several.
                if n > 1 {
                    items.push(vec![Edit { start, end, with: "\n".into() }]);
                }
            }
            at += line.len();
        }
        if let Some((start, end, n)) = run
            && n > 1
        {
            items.push(vec![Edit { start, end, with: "\n".into() }]);
        }
        Some(Box::new(EditItems { text, items }))
    }
}

/// The PTX passes in the order one round runs them: coarse before fine.
pub fn passes() -> Vec<Box<dyn Pass>> {
    vec![
        Box::new(Functions),
        Box::new(crate::reduce::ptx_loops::BackEdges),
        Box::new(crate::reduce::ptx_loops::UnrolledCopies),
        Box::new(Blocks),
        Box::new(Instructions),
        Box::new(Renumber),
        Box::new(Operands),
        Box::new(Instructions),
        Box::new(crate::reduce::ptx_types::VectorWidths),
        Box::new(crate::reduce::ptx_types::RegisterWidths),
        Box::new(Labels),
        Box::new(Params),
        Box::new(Declarations),
        Box::new(Renumber),
        Box::new(Comments),
        Box::new(BlankLines),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    const K: &str = "\
.version 8.0
.target sm_80
.address_size 64

.visible .entry k(
\t.param .u64 k_p0,
\t.param .u32 k_p1
)
{
\t.reg .b32 %r<4>;
\t.reg .b64 %rd<2>;
\tld.param.u64 %rd1, [k_p0];
\tmov.u32 %r1, 5;
$L__BB0_1:
\tadd.s32 %r2, %r1, %r1;
\tadd.s32 %r3, %r2, 1;
\tst.global.u32 [%rd1], %r3;
\tret;
}
";

    #[test]
    fn instructions_are_numbered_in_order_and_deleted_with_their_line() {
        let it = Instructions.prepare(K).expect("parses");
        assert_eq!(it.count(), 6);
        let t = it.apply(1..2).expect("changes");
        assert!(!t.contains("mov.u32"));
        assert!(t.contains("\tld.param.u64 %rd1, [k_p0];\n$L__BB0_1:"), "{t}");
    }

    #[test]
    fn unreferenced_labels_and_parameters_go() {
        let l = Labels.prepare(K).expect("parses");
        assert_eq!(l.count(), 1);
        assert!(!l.apply(0..1).expect("changes").contains("$L__BB0_1"));
        let p = Params.prepare(K).expect("parses");
        assert_eq!(p.count(), 2);
        let t = p.apply(1..2).expect("changes");
        assert!(t.contains("k(\n\t.param .u64 k_p0\n)"), "{t}");
        assert!(crate::ir::ptx::parse::parse_module(&t).is_ok());
    }

    #[test]
    fn operands_become_register_zero_of_their_declaration() {
        let o = Operands.prepare(K).expect("parses");
        // %r1 twice in the first add, %r2 in the second, %r3 in the store.
        assert_eq!(o.count(), 4);
        let t = o.apply(0..1).expect("changes");
        assert!(t.contains("add.s32 %r2, %r0, %r1;"), "{t}");
    }

    #[test]
    fn registers_are_renumbered_densely() {
        let r = Renumber.prepare(K).expect("parses");
        // %r1..%r3 become %r0..%r2 (and %r<4> %r<3>); %rd1 becomes %rd0.
        assert_eq!(r.count(), 2);
        let t = r.apply(0..2).expect("changes");
        assert!(t.contains(".reg .b32 %r<3>;"), "{t}");
        assert!(t.contains(".reg .b64 %rd<1>;"), "{t}");
        assert!(t.contains("add.s32 %r1, %r0, %r0;"), "{t}");
        assert!(t.contains("st.global.u32 [%rd0], %r2;"), "{t}");
        assert!(crate::ir::ptx::import_text(&t).module.is_some(), "{t}");
    }

    #[test]
    fn keep_only_one_function() {
        assert_eq!(keep_only(K, "k"), None);
        let two = format!("{K}\n.visible .entry other()\n{{\n\tret;\n}}\n");
        let t = keep_only(&two, "other").expect("changes");
        assert!(!t.contains(".entry k("), "{t}");
        assert!(t.contains(".visible .entry other()"), "{t}");
        assert!(crate::ir::ptx::parse::parse_module(&t).is_ok());
    }

    /// A kernel that calls `f`, declared before it and defined after it.
    const PROTO: &str = "\
.version 8.0
.target sm_80
.address_size 64

.func  (.param .b32 f_ret) f(.param .b32 f_p);
.extern .func g(.param .b32 g_p);

.visible .entry k(.param .u64 k_p0)
{
\t.reg .b32 %r<3>;
\tmov.u32 %r1, 5;
\t{
\t.param .b32 a;
\tst.param.b32 [a], %r1;
\t.param .b32 b;
\tcall.uni (b), f, (a);
\tld.param.b32 %r2, [b];
\t}
\tret;
}

.func  (.param .b32 f_ret) f(.param .b32 f_p)
{
\t.reg .b32 %r<2>;
\tld.param.b32 %r1, [f_p];
\tst.param.b32 [f_ret], %r1;
\tret;
}
.visible .entry other()
{
\tret;
}
";

    #[test]
    fn a_deleted_definition_takes_its_prototype_along() {
        let t = keep_only(PROTO, "other").expect("changes");
        assert!(!t.contains(" f("), "{t}");
        assert!(t.contains(".extern .func g("), "an undefined declaration stays: {t}");
        assert!(crate::ir::ptx::parse::parse_module(&t).is_ok());
        let f = Functions.prepare(PROTO).expect("parses");
        // f (prototype and definition), g, k, other.
        assert_eq!(f.count(), 4);
        let t = f.apply(0..1).expect("changes");
        assert!(!t.contains(" f(") && t.contains(".entry k("), "{t}");
    }

    #[test]
    fn functions_go_with_their_linkage() {
        let f = Functions.prepare(K).expect("parses");
        assert_eq!(f.count(), 1);
        let t = f.apply(0..1).expect("changes");
        assert!(!t.contains(".visible"), "{t}");
    }
}
