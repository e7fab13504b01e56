//! Importing a PTX file of many independent functions one call group at a time (issue
//! 25): `radbg run` on a 50 MB file of 6,000 entries held the whole syntax tree and the
//! whole module's IR (1.3 GB, over the memory estimate of `ir::limits` unless raised).
//!
//! [`plan`] parses the file once keeping only headers (`parse::parse_skeleton`), gives
//! every function the index the whole import gives it, and groups functions that name
//! each other (any identifier in a body that is a function's name: a superset of the
//! calls and address-takings `engine::machine::call_groups` finds in the IR, so a group
//! here is one or more of its groups). [`Plan::import`] reads one group's bodies again
//! and lowers and validates that group alone, with the limits estimated for it.
//!
//! The result must be what the whole import and `GroupSplit` give, function for
//! function, so the plan refuses (returns `None`, and the caller imports the whole file,
//! which reports whatever there is to report) a file whose names the whole import would
//! make unique differently (a name changed by `names::symbol_base`, a function and a
//! variable of one name, a function defined twice), and `import` refuses a group that
//! says anything at all (a warning or error) or makes a `.callprototype` stub (the whole
//! import appends those after every function).
//!
//! Owns: the grouping of a file's text and the per-group import. Must not know the
//! engine: the caller runs each group.

use std::collections::{HashMap, HashSet};

use super::ast::{Item, PtxModule, StateSpace, Stmt};
use super::{module, names, parse};
use crate::ir::model::Module;

/// A file split into call groups, each imported when asked.
pub struct Plan<'a> {
    src: &'a str,
    /// Made once: lowering a group looks up its lines in the whole file.
    lines: names::LineIndex,
    skeleton: PtxModule<'a>,
    /// Per group: the indices into `skeleton.items` of its functions' items, ascending,
    /// and the whole module's index of each of its functions, in its module's order.
    groups: Vec<(Vec<usize>, Vec<usize>)>,
    functions: usize,
}

/// The plan for `src`, or `None` when the file is not split (module doc).
pub fn plan(src: &str) -> Option<Plan<'_>> {
    // Prototype stubs go after every function of the whole import (module doc).
    if src.contains(".callprototype") {
        return None;
    }
    let skeleton = parse::parse_skeleton(src).ok()?;
    let funcs = || {
        skeleton.items.iter().enumerate().filter_map(|(k, it)| if let Item::Func(f) = it { Some((k, f)) } else { None })
    };
    let with_body: HashSet<&str> = funcs().filter(|(_, f)| f.body.is_some()).map(|(_, f)| f.name).collect();
    // The whole import's function order (`module::lower_module`, pass 2): definitions,
    // and declarations of functions defined nowhere, in file order.
    let mut index: HashMap<&str, usize> = HashMap::new();
    for (_, f) in funcs() {
        if names::symbol_base(f.name) != f.name {
            return None;
        }
        let stub = f.body.is_none() && !with_body.contains(f.name);
        if f.body.is_some() || stub {
            if f.body.is_some() && index.contains_key(f.name) {
                return None;
            }
            let n = index.len();
            index.entry(f.name).or_insert(n);
        }
    }
    for it in &skeleton.items {
        if let Item::Var(v) = it
            && v.names.iter().any(|n| index.contains_key(n.name) || names::symbol_base(n.name) != n.name)
        {
            return None;
        }
    }
    // Functions that name each other, joined (union-find over the whole indices; the
    // smaller index is the root).
    let n = index.len();
    let mut parent: Vec<usize> = (0..n).collect();
    fn root(p: &mut [usize], mut i: usize) -> usize {
        while p[i] != i {
            p[i] = p[p[i]];
            i = p[i];
        }
        i
    }
    for (_, f) in funcs() {
        let (Some(&me), Some(_)) = (index.get(f.name), f.body.as_ref()) else { continue };
        let text = src.get(f.open as usize..=f.close as usize).unwrap_or("");
        for word in identifiers(text) {
            if let Some(&other) = index.get(word) {
                let (a, b) = (root(&mut parent, me), root(&mut parent, other));
                parent[a.max(b)] = a.min(b);
            }
        }
    }
    let mut slot: HashMap<usize, usize> = HashMap::new();
    let mut groups: Vec<(Vec<usize>, Vec<usize>)> = Vec::new();
    let mut placed: HashSet<usize> = HashSet::new();
    for (k, f) in funcs() {
        let Some(&i) = index.get(f.name) else { continue };
        let r = root(&mut parent, i);
        let g = *slot.entry(r).or_insert_with(|| {
            groups.push((Vec::new(), Vec::new()));
            groups.len() - 1
        });
        groups[g].0.push(k);
        if placed.insert(i) {
            groups[g].1.push(i);
        }
    }
    // Groups by their first function, as `call_groups`; a group's functions in file order.
    groups.sort_by_key(|g| g.1.first().copied().unwrap_or(usize::MAX));
    for g in &mut groups {
        g.1.sort_unstable();
    }
    Some(Plan { src, lines: names::LineIndex::new(src), skeleton, groups, functions: n })
}

/// The identifiers of `text` (letters, digits, `_`, `$`; not a register's `%x` or a
/// directive's `.x`).
fn identifiers(text: &str) -> impl Iterator<Item = &str> {
    let b = text.as_bytes();
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'$';
    let mut k = 0;
    std::iter::from_fn(move || {
        while k < b.len() {
            if word(b[k]) && (k == 0 || !(word(b[k - 1]) || b[k - 1] == b'%' || b[k - 1] == b'.')) {
                let start = k;
                while k < b.len() && word(b[k]) {
                    k += 1;
                }
                return text.get(start..k);
            }
            k += 1;
        }
        None
    })
}

impl Plan<'_> {
    /// How many groups.
    pub fn len(&self) -> usize {
        self.groups.len()
    }

    pub fn is_empty(&self) -> bool {
        self.groups.is_empty()
    }

    /// How many functions the whole module has.
    pub fn functions(&self) -> usize {
        self.functions
    }

    /// Group `k`'s functions' indices in the whole module, in its module's order.
    pub fn ids(&self, k: usize) -> &[usize] {
        self.groups.get(k).map_or(&[], |g| &g.1)
    }

    /// Group `k` imported alone; `None` when it cannot stand for its part of the whole
    /// import (module doc), or is over the limits estimated for it.
    pub fn import(&self, k: usize) -> Option<Module> {
        let (items, ids) = self.groups.get(k)?;
        let s = &self.skeleton;
        let mut ast = PtxModule {
            version: s.version,
            targets: s.targets.clone(),
            address_size: s.address_size,
            items: Vec::new(),
            pragmas: s.pragmas.clone(),
        };
        let mut bytes = 0usize;
        for (j, it) in s.items.iter().enumerate() {
            match it {
                Item::Var(_) => ast.items.push(it.clone()),
                Item::Func(f) if items.binary_search(&j).is_ok() => {
                    let mut f = f.clone();
                    if f.body.is_some() {
                        f.body = Some(parse::parse_body(self.src, f.open).ok()?);
                        bytes += (f.close - f.pos) as usize + 1;
                    }
                    ast.items.push(Item::Func(f));
                }
                Item::Func(_) => {}
            }
        }
        if group_regs(&ast).is_some_and(|regs| crate::ir::limits::check_module_regs(regs, bytes).is_some()) {
            return None;
        }
        let mut diags = Vec::new();
        let module::Lowered { module, map, .. } = module::lower_module_with(self.src, &self.lines, &ast, &mut diags);
        if !diags.is_empty() || module.functions.len() != ids.len() {
            return None;
        }
        if crate::ir::validate::validate(&module, &map).iter().any(crate::ir::diag::Diagnostic::is_error) {
            return None;
        }
        Some(module)
    }
}

/// The registers a group's bodies declare (`None` when there are none).
fn group_regs(ast: &PtxModule<'_>) -> Option<u64> {
    fn walk(stmts: &[Stmt<'_>], total: &mut u64) {
        for st in stmts {
            match st {
                Stmt::Decl(d) if d.space == StateSpace::Reg => {
                    *total += d.names.iter().map(|n| n.range.map_or(1, u64::from)).sum::<u64>();
                }
                Stmt::Block(inner, _) => walk(inner, total),
                _ => {}
            }
        }
    }
    let mut total = 0;
    for it in &ast.items {
        if let Item::Func(f) = it
            && let Some(b) = &f.body
        {
            walk(b, &mut total);
        }
    }
    (total > 0).then_some(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `device_calls.ptx` (calls, an extern, device functions) without its indirect
    /// call through a prototype, and entries that call nothing.
    fn text() -> String {
        let full = include_str!("../../../tests/ptx/device_calls.ptx");
        let (a, b) =
            (full.find("\t{ // callseq 1, 0").expect("callseq 1"), full.find("} // callseq 1\n").expect("end"));
        let mut text = format!("{}{}", &full[..a], &full[b + "} // callseq 1\n".len()..]);
        for k in 0..3 {
            text.push_str(&format!(
                "\n.visible .entry solo{k}(.param .u64 solo{k}_param_0)\n{{\n\t.reg .b32 \t%r<4>;\n\t.reg .b64 \t%rd<3>;\n\tld.param.u64 \t%rd1, [solo{k}_param_0];\n\tcvta.to.global.u64 \t%rd2, %rd1;\n\tmov.u32 \t%r1, %tid.x;\n\tadd.s32 \t%r2, %r1, {k};\n\tst.global.u32 \t[%rd2], %r2;\n\tret;\n}}\n"
            ));
        }
        text
    }

    #[test]
    fn each_group_is_its_part_of_the_whole_import() {
        let text = text();
        let whole = crate::ir::ptx::import_text(&text).module.expect("imports");
        let plan = plan(&text).expect("splits");
        assert_eq!(plan.functions(), whole.functions.len());
        assert!(plan.len() >= 4, "{} groups", plan.len());
        let mut seen = Vec::new();
        for k in 0..plan.len() {
            let m = plan.import(k).expect("imports alone");
            let want: Vec<_> = plan.ids(k).iter().map(|&i| whole.functions[i].clone()).collect();
            assert_eq!(m.functions, want, "group {k}");
            assert_eq!((&m.sm, &m.globals), (&whole.sm, &whole.globals), "group {k}");
            seen.extend_from_slice(plan.ids(k));
        }
        seen.sort_unstable();
        assert_eq!(seen, (0..whole.functions.len()).collect::<Vec<_>>());
    }

    #[test]
    fn what_the_whole_import_names_or_reports_is_not_split() {
        let text = text();
        // A function defined twice (an error of the whole import), a variable named as a
        // function, a name `symbol_base` changes.
        let twice = format!("{text}\n.visible .entry solo0()\n{{\n\tret;\n}}\n");
        let var = format!("{text}\n.global .u32 solo1;\n");
        let proto = include_str!("../../../tests/ptx/device_calls.ptx");
        assert!(plan(&twice).is_none() && plan(&var).is_none() && plan(proto).is_none());
        // A body the importer rejects: the group does not import.
        let bad =
            format!("{text}\n.visible .entry broken()\n{{\n\t.reg .b32 %r<2>;\n\tfrob.u32 %r1, %r0;\n\tret;\n}}\n");
        let p = plan(&bad).expect("splits");
        assert!((0..p.len()).any(|k| p.import(k).is_none()));
    }

    #[test]
    fn identifiers_skip_registers_and_directives() {
        let words: Vec<&str> = identifiers("call.uni (%r1), f$1, (x_2); .reg g").collect();
        assert_eq!(words, ["call", "f$1", "x_2", "g"]);
    }
}
