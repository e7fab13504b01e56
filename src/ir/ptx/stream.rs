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

/// The text of a file [`Plan::import_all`] imported, kept so its module as loaded can be
/// imported again when asked instead of held (the debugger on a many-entry file, issue
/// 25: the module as loaded was 460 MB of the 50 MB file's 1.5 GB, beside the copy the
/// stages rewrite). The import is deterministic, so what comes back is what was loaded.
#[derive(Clone)]
pub struct Reimport {
    text: std::sync::Arc<String>,
    groups: std::sync::Arc<Groups>,
}

/// What [`Reimport`] keeps of the plan to import one group again quickly.
struct Groups {
    /// Per group, the module-scope names its bodies hoisted (as the whole import names
    /// them): a group imported again alone names its own as the whole import does.
    hoisted: Vec<Vec<String>>,
    /// Per group, its functions' indices (a range of the file's order).
    ids: Vec<Vec<usize>>,
    /// Every body: its function's index, its `{` and its `}`.
    bodies: Vec<(usize, u32, u32)>,
}

impl std::fmt::Debug for Reimport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Reimport({} bytes)", self.text.len())
    }
}

impl Reimport {
    /// A file's text and its module, when the file imports group by group
    /// ([`Plan::import_all`]); `None` when it does not (the caller imports it whole).
    pub fn load(text: impl Into<std::sync::Arc<String>>) -> Option<(Reimport, Module)> {
        let text = text.into();
        let p = plan(&text).filter(|p| p.len() >= 2)?;
        let (module, hoisted) = p.import_all_hoisted()?;
        let ids = p.groups.iter().map(|g| g.1.clone()).collect();
        let mut bodies = Vec::new();
        for (items, ids) in &p.groups {
            for &j in items {
                if let Some(Item::Func(f)) = p.skeleton.items.get(j)
                    && f.body.is_some()
                {
                    // The group's functions in file order: its definitions' names.
                    let at = module.functions.iter().skip(ids[0]).take(ids.len()).position(|g| g.name == f.name);
                    bodies.push((ids[0] + at?, f.open, f.close));
                }
            }
        }
        let groups = Groups { hoisted, ids, bodies };
        drop(p);
        Some((Reimport { text, groups: std::sync::Arc::new(groups) }, module))
    }

    /// The whole module as loaded (`None` only if the text no longer imports, which a
    /// deterministic import never does).
    pub fn module(&self) -> Option<Module> {
        plan(&self.text)?.import_all()
    }

    /// Function `fi` of the module as loaded, imported with its call group alone.
    pub fn function(&self, fi: usize) -> Option<crate::ir::Function> {
        let (m, at) = self.group_of(fi)?;
        m.functions.into_iter().nth(at)
    }

    /// The call group of function `fi` as loaded, imported alone (the whole module's
    /// settings and globals, the group's functions: everything a function's prepasses
    /// read, its callers' launch bounds included), and `fi`'s index in it.
    ///
    /// Planned on a copy of the text whose other bodies are blanked (spaces, the line
    /// breaks kept): the same functions, lines and byte offsets, without parsing the
    /// other bodies (a reverse step inside the prepasses of the 50 MB file took 3 s a step
    /// planning the whole text).
    pub fn group_of(&self, fi: usize) -> Option<(Module, usize)> {
        let g = &*self.groups;
        let k = g.ids.partition_point(|ids| ids.first().is_some_and(|&i| i <= fi)).checked_sub(1)?;
        let at = g.ids[k].iter().position(|&i| i == fi)?;
        let mut bytes = self.text.as_bytes().to_vec();
        for &(i, open, close) in &g.bodies {
            if g.ids[k].binary_search(&i).is_err()
                && let Some(body) = bytes.get_mut(open as usize + 1..close as usize)
            {
                body.iter_mut().filter(|b| **b != b'\n').for_each(|b| *b = b' ');
            }
        }
        let blanked = String::from_utf8(bytes).ok()?;
        let p = plan(&blanked)?;
        let kk = (0..p.len()).find(|&kk| p.ids(kk).contains(&fi))?;
        if p.ids(kk) != g.ids[k].as_slice() {
            return None;
        }
        // The names claimed before this group's bodies in the whole import: every
        // function's and module variable's, and what the groups before it hoisted (a
        // claim takes the first free `want_N`, so the set claimed is all it depends on).
        let mut seed = p.pass_one_names();
        for n in g.hoisted.iter().take(k).flatten() {
            seed.claim(n);
        }
        let (m, _) = p.import_group(kk, false, Some(&mut seed))?;
        Some((m, at))
    }

    /// Whether two handles import the same text (one load).
    pub fn same(&self, other: &Reimport) -> bool {
        std::sync::Arc::ptr_eq(&self.text, &other.text)
    }

    /// The bytes of text held.
    pub fn text_len(&self) -> usize {
        self.text.len()
    }
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
        self.import_group(k, false, None).map(|g| g.0)
    }

    /// The whole module, imported group by group and put together (the debugger's load
    /// of a many-entry file, issue 25): what [`super::import_text`] gives — the same
    /// functions at the same indices, the same settings, globals and CUDA line table —
    /// without the whole file's syntax tree beside the lowered IR (538 MB of the 1.3 GB
    /// that loading the 50 MB file of 6,138 entries peaked at). Besides what
    /// [`Plan::import`] refuses, `None` when a group's PTX checks (`validate::check`)
    /// say anything, or when the whole module is over the register limit or memory
    /// estimate the whole import checks (`ir::limits`, the largest function's registers
    /// and the total): the caller then imports the whole file, which reports it.
    pub fn import_all(&self) -> Option<Module> {
        self.import_all_hoisted().map(|x| x.0)
    }

    /// [`Plan::import_all`] and, per group, the module-scope names its bodies hoisted.
    ///
    /// The whole import names every function and module variable first, then what each
    /// body hoists to module scope (a function's `.local` depot, a parameter whose
    /// address is taken), unique over the file in file order: the groups are lowered in
    /// file order with one set of claimed names carried from each to the next, so the
    /// file's functions must come group after group (each group's a range of the file's
    /// order, which the plan's group order then is) and no group may reorder its
    /// functions (callees after their callers: the whole import moves them, which the
    /// indices here would not follow).
    fn import_all_hoisted(&self) -> Option<(Module, Vec<Vec<String>>)> {
        let mut next = 0;
        for (_, ids) in &self.groups {
            if ids.first() != Some(&next) || ids.windows(2).any(|w| w[1] != w[0] + 1) {
                return None;
            }
            next += ids.len();
        }
        let mut functions = Vec::with_capacity(self.functions);
        let mut hoisted = Vec::with_capacity(self.groups.len());
        let mut header: Option<Module> = None;
        let mut globals = Vec::new();
        let (mut total, mut largest) = (0u64, 0u64);
        let vars = self.module_vars();
        let mut seed = self.pass_one_names();
        for k in 0..self.groups.len() {
            let (mut m, regs) = self.import_group(k, true, Some(&mut seed))?;
            total += regs.iter().sum::<u64>();
            largest = largest.max(regs.iter().copied().max().unwrap_or(0));
            if m.globals.len() < vars {
                return None;
            }
            let own = m.globals.split_off(vars);
            hoisted.push(own.iter().map(|g| g.name.to_string()).collect());
            globals.extend(own);
            // Held for the whole load and then by the debugger: without the lowering's
            // spare capacity (`Function::shrink_to_fit`), while the group is in cache.
            m.functions.iter_mut().for_each(crate::ir::Function::shrink_to_fit);
            functions.append(&mut m.functions);
            match &header {
                None => header = Some(m),
                Some(h) if (&h.sm, &h.options, &h.knobs, &h.globals) == (&m.sm, &m.options, &m.knobs, &m.globals) => {}
                Some(_) => return None,
            }
        }
        if functions.len() != self.functions
            || crate::ir::limits::check_module_regs_in(total, largest, self.src.len()).is_some()
        {
            return None;
        }
        let mut module = header?;
        module.globals.append(&mut globals);
        module.functions = functions;
        module.srcloc = crate::ir::srcloc::SourceLines::scan(self.src);
        Some((module, hoisted))
    }

    /// How many module-scope variables the file declares (by name, as the whole import's
    /// first pass makes them: every group's module starts with them).
    fn module_vars(&self) -> usize {
        let mut seen = HashSet::new();
        for it in &self.skeleton.items {
            if let Item::Var(v) = it {
                for n in &v.names {
                    seen.insert(n.name);
                }
            }
        }
        seen.len()
    }

    /// The names the whole import's first pass claims: every function's and module
    /// variable's, as written (the plan refused a file where they would change).
    fn pass_one_names(&self) -> super::names::Unique {
        let mut u = super::names::Unique::default();
        for it in &self.skeleton.items {
            match it {
                Item::Func(f) => {
                    if !u.contains(f.name) {
                        u.claim(f.name);
                    }
                }
                Item::Var(v) => {
                    for n in &v.names {
                        if !u.contains(n.name) {
                            u.claim(n.name);
                        }
                    }
                }
            }
        }
        u
    }

    /// Group `k` imported alone (see [`Plan::import`]) and the registers each of its
    /// bodies declares; with `checked`, `None` too when the PTX checks report anything;
    /// with `seed`, named as in the whole import (`module::lower_module_with`).
    fn import_group(
        &self,
        k: usize,
        checked: bool,
        seed: Option<&mut super::names::Unique>,
    ) -> Option<(Module, Vec<u64>)> {
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
        let regs = func_regs(&ast);
        let total: u64 = regs.iter().sum();
        if total > 0 && crate::ir::limits::check_module_regs(total, bytes).is_some() {
            return None;
        }
        if checked && !super::validate::check(self.src, &ast).is_empty() {
            return None;
        }
        let mut diags = Vec::new();
        let module::Lowered { module, map, .. } =
            module::lower_module_with(self.src, &self.lines, &ast, &mut diags, seed);
        if !diags.is_empty() || module.functions.len() != ids.len() {
            return None;
        }
        // The functions in file order: the whole import moves a callee defined after its
        // caller in front of it (`module::callees_first`), and so does a group's.
        let mut names: Vec<&str> = Vec::new();
        for &j in items {
            if let Some(Item::Func(f)) = s.items.get(j)
                && !names.contains(&f.name)
            {
                names.push(f.name);
            }
        }
        if names.len() != module.functions.len() || module.functions.iter().zip(&names).any(|(f, n)| f.name != *n) {
            return None;
        }
        if crate::ir::validate::validate(&module, &map).iter().any(crate::ir::diag::Diagnostic::is_error) {
            return None;
        }
        Some((module, regs))
    }
}

/// The registers each of a group's bodies declares, in item order.
fn func_regs(ast: &PtxModule<'_>) -> Vec<u64> {
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
    let mut regs = Vec::new();
    for it in &ast.items {
        if let Item::Func(f) = it
            && let Some(b) = &f.body
        {
            let mut total = 0;
            walk(b, &mut total);
            regs.push(total);
        }
    }
    regs
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
    fn the_groups_put_together_are_the_whole_import() {
        // The solo entries alone: groups that are ranges of the file's order.
        let full = text();
        let solos = full.find("\n.visible .entry solo0").expect("solo0");
        let header = full.find(".address_size 64").map(|i| i + ".address_size 64".len()).expect("header");
        let text = format!("{}\n{}", &full[..header], &full[solos..]);
        let whole = crate::ir::ptx::import_text(&text).module.expect("imports");
        let all = plan(&text).expect("splits").import_all().expect("every group imports");
        assert_eq!(whole.functions.len(), 3);
        assert_eq!(all, whole);
        // `device_calls.ptx` defines callees after the entries that call them (the whole
        // import moves them ahead) and its groups interleave: not put together.
        assert!(plan(&full).expect("splits").import_all().is_none());
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
        assert!(p.import_all().is_none());
    }

    #[test]
    fn identifiers_skip_registers_and_directives() {
        let words: Vec<&str> = identifiers("call.uni (%r1), f$1, (x_2); .reg g").collect();
        assert_eq!(words, ["call", "f$1", "x_2", "g"]);
    }
}
