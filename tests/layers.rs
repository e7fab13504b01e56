//! The layer rules of ARCHITECTURE.md as a test (issue 26; rust-analyzer's tidy test is
//! the model): it reads every file under `src/` and fails, naming `file:line` and the
//! rule, on
//! - an import (`crate::x`, `radbg::x` in the binary) that goes up the layer order in
//!   [`LAYERS`], or sideways to a sibling of the same layer;
//! - a file that does not start with its `//!` header;
//! - a JSON value built or written (`json!`, `serde_json::Map`, `Map::new`,
//!   `serde_json::to_*`) outside the rendering layer ([`RENDERING`]: command/, ui/, cli/);
//!   reading JSON (`serde_json::from_str`, matching a `Value`) is allowed anywhere.
//!
//! Comments and string literals are blanked before the scan, so a doc comment naming
//! `crate::abi` is not an import. [`PENDING`] lists the violations that remain in files
//! other people are rewriting this session, each with its issue; nothing else is allowed,
//! and an entry that no longer occurs fails too, so the list only shrinks.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The layers, lowest first. A top-level module may import modules of lower layers only:
/// modules of one layer are siblings and do not know each other. ARCHITECTURE.md
/// ("Layers and the direction of flow") spells the same order, and the test checks it does.
const LAYERS: &[(&str, &[&str])] = &[
    ("helpers", &["util", "work", "ptxas_cache"]),
    ("knob catalogue", &["knobs"]),
    ("IR", &["ir", "demo"]),
    ("module sources", &["load", "synth"]),
    ("analyses", &["analysis", "abi"]),
    ("pre-allocation stages and allocators", &["prepass", "alloc"]),
    ("engine", &["engine"]),
    ("explanations and measurement", &["why", "fidelity"]),
    ("reduction", &["reduce"]),
    ("command language", &["command"]),
    ("front ends", &["ui", "fuzzing"]),
    ("batch CLI", &["cli"]),
    ("binary", &["main"]),
];

/// The modules that may build JSON values (the rendering layer).
const RENDERING: &[&str] = &["command", "ui", "cli"];

/// A violation allowed for now: its issue, its file and its rule key (as [`Violation::key`]
/// prints it). Only for files another person is rewriting this session, to be emptied
/// when their rework lands; every other file follows the rules.
const PENDING: &[(u32, &str, &str)] = &[];

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Violation {
    file: String,
    line: usize,
    /// The rule broken, short: `imports engine`, `builds JSON`, `no //! header`.
    key: String,
    /// Why it is a violation.
    why: String,
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// `src/alloc/briggs/x.rs` → `alloc`; `src/knobs.rs` → `knobs`.
fn top_module(rel: &str) -> &str {
    let rest = rel.strip_prefix("src/").unwrap_or(rel);
    let first = rest.split('/').next().unwrap_or(rest);
    first.strip_suffix(".rs").unwrap_or(first)
}

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|(_, mods)| mods.contains(&module))
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The source with comments and the contents of string and character literals replaced
/// by spaces (newlines kept, so line numbers stay right).
fn code_only(src: &str) -> String {
    let s: Vec<char> = src.chars().collect();
    let mut out = s.clone();
    let blank = |out: &mut Vec<char>, from: usize, to: usize| {
        for c in &mut out[from..to.min(s.len())] {
            if *c != '\n' {
                *c = ' ';
            }
        }
    };
    let mut i = 0;
    while i < s.len() {
        let next = s.get(i + 1).copied();
        let prev_ident = i > 0 && is_ident(s[i - 1]);
        if s[i] == '/' && next == Some('/') {
            let end = s[i..].iter().position(|&c| c == '\n').map_or(s.len(), |n| i + n);
            blank(&mut out, i, end);
            i = end;
        } else if s[i] == '/' && next == Some('*') {
            let (mut depth, mut j) = (1, i + 2);
            while j < s.len() && depth > 0 {
                if s[j] == '/' && s.get(j + 1) == Some(&'*') {
                    depth += 1;
                    j += 2;
                } else if s[j] == '*' && s.get(j + 1) == Some(&'/') {
                    depth -= 1;
                    j += 2;
                } else {
                    j += 1;
                }
            }
            blank(&mut out, i, j);
            i = j;
        } else if s[i] == 'r' && !prev_ident && matches!(next, Some('#') | Some('"')) {
            // A raw string r"..." or r#"..."#; `r#ident` is a raw identifier.
            let hashes = s[i + 1..].iter().take_while(|&&c| c == '#').count();
            if s.get(i + 1 + hashes) != Some(&'"') {
                i += 1 + hashes;
                continue;
            }
            let body = i + 2 + hashes;
            let mut j = body;
            while j < s.len()
                && !(s[j] == '"' && s[j + 1..].iter().take(hashes).filter(|&&c| c == '#').count() == hashes)
            {
                j += 1;
            }
            blank(&mut out, body, j);
            i = j + 1 + hashes;
        } else if s[i] == '"' {
            let mut j = i + 1;
            while j < s.len() && s[j] != '"' {
                j += if s[j] == '\\' { 2 } else { 1 };
            }
            blank(&mut out, i + 1, j);
            i = j + 1;
        } else if s[i] == '\'' {
            // A character literal ('x', '\n', '\u{..}'), else a lifetime or label.
            let close = if next == Some('\\') {
                s.get(i + 3..).and_then(|t| t.iter().position(|&c| c == '\'')).map(|n| i + 3 + n)
            } else {
                (s.get(i + 2) == Some(&'\'')).then_some(i + 2)
            };
            match close {
                Some(end) => {
                    blank(&mut out, i + 1, end);
                    i = end + 1;
                }
                None => i += 1,
            }
        } else {
            i += 1;
        }
    }
    out.into_iter().collect()
}

/// 1-based line of a char offset.
fn line_at(code: &[char], at: usize) -> usize {
    code[..at].iter().filter(|&&c| c == '\n').count() + 1
}

/// Every `(line, module)` a file names through `crate::` (or `radbg::`): a path
/// `crate::m::...` or a group `crate::{m::..., n}`.
fn imports(code: &str) -> Vec<(usize, String)> {
    let c: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    for prefix in ["crate::", "radbg::"] {
        let p: Vec<char> = prefix.chars().collect();
        let mut i = 0;
        while i + p.len() <= c.len() {
            if c[i..i + p.len()] != p[..] || (i > 0 && is_ident(c[i - 1])) {
                i += 1;
                continue;
            }
            let mut j = i + p.len();
            if c.get(j) == Some(&'{') {
                // A group: the first identifier of each top-level item.
                let mut depth = 0;
                let mut want = true;
                while j < c.len() {
                    match c[j] {
                        '{' => {
                            depth += 1;
                            if depth == 1 {
                                want = true;
                            }
                        }
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        ',' if depth == 1 => want = true,
                        ch if want && depth == 1 && is_ident(ch) => {
                            let end = c[j..].iter().position(|&x| !is_ident(x)).map_or(c.len(), |n| j + n);
                            out.push((line_at(&c, j), c[j..end].iter().collect()));
                            want = false;
                            j = end;
                            continue;
                        }
                        _ => {}
                    }
                    j += 1;
                }
            } else {
                let end = c[j..].iter().position(|&x| !is_ident(x)).map_or(c.len(), |n| j + n);
                if end > j {
                    out.push((line_at(&c, j), c[j..end].iter().collect()));
                }
                j = end;
            }
            i = j.max(i + 1);
        }
    }
    out
}

/// The lines of a file (blanked code) that build a JSON value.
fn json_builders(code: &str) -> Vec<usize> {
    let mut lines = Vec::new();
    for (n, line) in code.lines().enumerate() {
        let builds = ["json!", "serde_json::Map", "Map::new", "serde_json::to_"].iter().any(|pat| {
            line.match_indices(pat).any(|(at, _)| {
                let before = line[..at].chars().next_back();
                !before.is_some_and(is_ident) || line[..at].ends_with("serde_json::")
            })
        });
        if builds {
            lines.push(n + 1);
        }
    }
    lines
}

fn violations_of(rel: &str, text: &str) -> Vec<Violation> {
    let mut out = Vec::new();
    let v = |line: usize, key: String, why: String| Violation { file: rel.to_string(), line, key, why };
    if !text.starts_with("//!") {
        out.push(v(1, "no //! header".into(), "every file starts with a `//!` header saying what it is".into()));
    }
    let me = top_module(rel);
    if me == "lib" {
        return out; // the crate root only declares the modules
    }
    let Some(mine) = layer_of(me) else {
        out.push(v(
            1,
            format!("module {me} has no layer"),
            format!("add `{me}` to LAYERS in tests/layers.rs and to ARCHITECTURE.md's layer order"),
        ));
        return out;
    };
    let code = code_only(text);
    let mut seen = BTreeSet::new();
    for (line, target) in imports(&code) {
        if target == me || target == "self" || target == "super" {
            continue;
        }
        let Some(theirs) = layer_of(&target) else {
            continue; // not a top-level module (a macro, a re-exported item): the compiler's business
        };
        if theirs < mine || !seen.insert((line, target.clone())) {
            continue;
        }
        let why = if theirs == mine {
            format!(
                "`{me}` imports its sibling `{target}` (both in layer {}, {}): siblings do not know each other",
                mine + 1,
                LAYERS[mine].0
            )
        } else {
            format!(
                "`{me}` (layer {}, {}) imports `{target}` (layer {}, {}): imports go down the layers",
                mine + 1,
                LAYERS[mine].0,
                theirs + 1,
                LAYERS[theirs].0
            )
        };
        out.push(v(line, format!("imports {target}"), why));
    }
    if !RENDERING.contains(&me) {
        for line in json_builders(&code) {
            out.push(v(
                line,
                "builds JSON".into(),
                format!("a JSON value built in `{me}`: JSON is rendered in {} only", RENDERING.join("/")),
            ));
        }
    }
    out
}

fn all_violations() -> Vec<Violation> {
    let mut files = Vec::new();
    rust_files(&root().join("src"), &mut files);
    assert!(files.len() > 100, "src/ looks empty ({} files)", files.len());
    let mut out = Vec::new();
    for p in files {
        let rel = p.strip_prefix(root()).expect("under the root").to_string_lossy().replace('\\', "/");
        let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{rel}: {e}"));
        out.extend(violations_of(&rel, &text));
    }
    out
}

#[test]
fn src_follows_the_layer_rules() {
    let found = all_violations();
    let mut problems: Vec<String> = found
        .iter()
        .filter(|v| !PENDING.iter().any(|(_, f, k)| *f == v.file && *k == v.key))
        .map(|v| format!("{}:{}: {} — {}", v.file, v.line, v.key, v.why))
        .collect();
    for (issue, file, key) in PENDING {
        if !found.iter().any(|v| v.file == *file && v.key == *key) {
            problems.push(format!("PENDING ({file}, {key}, issue {issue}) no longer occurs: delete the entry"));
        }
    }
    assert!(problems.is_empty(), "{} layer rule violation(s):\n{}", problems.len(), problems.join("\n"));
}

/// Every top-level module of `src/` has a layer, and every module in [`LAYERS`] exists.
#[test]
fn layers_name_exactly_the_top_level_modules() {
    let mut present = BTreeSet::new();
    for e in std::fs::read_dir(root().join("src")).expect("src/") {
        let p = e.expect("directory entry").path();
        let name = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        if p.is_dir() {
            present.insert(name);
        } else if let Some(m) = name.strip_suffix(".rs")
            && m != "lib"
        {
            present.insert(m.to_string());
        }
    }
    let listed: BTreeSet<String> = LAYERS.iter().flat_map(|(_, m)| m.iter().map(|s| s.to_string())).collect();
    assert_eq!(listed, present, "LAYERS must name exactly the top-level modules of src/");
}

/// ARCHITECTURE.md writes the same order, as `util, work → knobs → ...`.
#[test]
fn architecture_states_the_tested_order() {
    let order: Vec<String> = LAYERS.iter().map(|(_, m)| m.join(", ")).collect();
    let line = order.join(" → ");
    let doc = std::fs::read_to_string(root().join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    assert!(doc.contains(&line), "ARCHITECTURE.md's layer section must state the order the test enforces:\n{line}");
}

/// The scanner itself: imports in code count, in comments and strings they do not.
#[test]
fn the_scanner_sees_code_only() {
    let src = "//! h\nuse crate::{ir::Module, knobs::{self, Knobs},\n  alloc};\n// crate::engine\n\
               let s = \"crate::why json!\"; let c = '\"'; let r = r#\"crate::ui\"#;\n\
               fn f<'a>(x: &'a str) { crate::analysis::cfg::build(x); serde_json::json!(1); }\n/* crate::cli */\n";
    let code = code_only(src);
    let got = imports(&code);
    let want: Vec<(usize, String)> =
        vec![(2, "ir".into()), (2, "knobs".into()), (3, "alloc".into()), (6, "analysis".into())];
    assert_eq!(got, want);
    assert_eq!(json_builders(&code), vec![6]);
    let v = violations_of("src/ir/x.rs", src);
    let keys: Vec<&str> = v.iter().map(|v| v.key.as_str()).collect();
    assert_eq!(keys, ["imports alloc", "imports analysis", "builds JSON"]);
    assert_eq!(v[0].line, 3);
    // Writing JSON is rendering; reading it, and other maps, are not.
    let json = "let m = Map::new();\nlet t = BTreeMap::new();\nlet v: Value = serde_json::from_str(s)?;\n\
                let s = serde_json::to_string(&v);\n";
    assert_eq!(json_builders(&code_only(json)), vec![1, 4]);
    assert!(violations_of("src/ir/y.rs", "fn main() {}\n").iter().any(|v| v.key == "no //! header"));
    assert!(violations_of("src/nowhere.rs", "//! x\n").iter().any(|v| v.key == "module nowhere has no layer"));
}

/// The module of `engine/` a name reached through `crate::engine::NAME` belongs to: a file
/// of `engine/` by its own name, a child module (`stages` in `machine/`) by its parent's,
/// a re-exported item by the module `engine/mod.rs` re-exports it from.
fn engine_module_of(name: &str, files: &BTreeSet<String>, reexports: &[(String, String)]) -> Option<String> {
    let mut name = name.to_string();
    // `pub use settings::options;` then `pub use options::RunOptions;`: follow the chain.
    for _ in 0..8 {
        if files.contains(&name) {
            return Some(name);
        }
        name = reexports.iter().find(|(item, _)| *item == name)?.1.clone();
    }
    None
}

/// `(item, module)` for every `pub use MODULE::...` of `engine/mod.rs`.
fn engine_reexports(mod_rs: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for line in code_only(mod_rs).lines() {
        let Some(rest) = line.trim().strip_prefix("pub use ") else { continue };
        let rest = rest.trim_end_matches(';');
        let Some((module, items)) = rest.split_once("::") else { continue };
        let items = items.trim_start_matches('{').trim_end_matches('}');
        for it in items.split(',') {
            let last = it.trim().rsplit("::").next().unwrap_or("").trim();
            if !last.is_empty() {
                out.push((last.to_string(), module.to_string()));
            }
        }
    }
    out
}

#[test]
fn engine_files_depend_one_way() {
    // Issue 26: `engine/` had a five-file import cycle. Its files now depend one way; a
    // child module (`machine/stages.rs`) may use its parent and is counted as its parent.
    let dir = root().join("src/engine");
    let files: BTreeSet<String> = std::fs::read_dir(&dir)
        .expect("src/engine")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "rs"))
        .filter_map(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .filter(|s| s != "mod")
        .collect();
    let reexports = engine_reexports(&std::fs::read_to_string(dir.join("mod.rs")).expect("engine/mod.rs"));
    let mut edges: BTreeSet<(String, String)> = BTreeSet::new();
    let mut all = Vec::new();
    rust_files(&dir, &mut all);
    for path in all {
        let rel = path.strip_prefix(&dir).expect("under engine").to_string_lossy().replace('\\', "/");
        let owner = rel.split(['/', '.']).next().unwrap_or("").to_string();
        if owner == "mod" {
            continue;
        }
        let code = code_only(&std::fs::read_to_string(&path).expect("readable"));
        let c: Vec<char> = code.chars().collect();
        let p: Vec<char> = "crate::engine::".chars().collect();
        let mut i = 0;
        while i + p.len() <= c.len() {
            if c[i..i + p.len()] != p[..] {
                i += 1;
                continue;
            }
            let mut j = i + p.len();
            let mut names = Vec::new();
            if c.get(j) == Some(&'{') {
                let end = c[j..].iter().position(|&x| x == '}').map_or(c.len(), |n| j + n);
                let group: String = c[j + 1..end].iter().collect();
                names.extend(group.split(',').map(|s| s.trim().split("::").next().unwrap_or("").to_string()));
                j = end;
            } else {
                let end = c[j..].iter().position(|&x| !is_ident(x)).map_or(c.len(), |n| j + n);
                names.push(c[j..end].iter().collect());
                j = end;
            }
            for n in names.iter().filter(|n| !n.is_empty()) {
                if let Some(m) = engine_module_of(n, &files, &reexports)
                    && m != owner
                {
                    edges.insert((owner.clone(), m));
                }
            }
            i = j.max(i + 1);
        }
    }
    // Depth-first search for a cycle.
    fn visit(
        n: &str,
        edges: &BTreeSet<(String, String)>,
        stack: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = stack.iter().position(|s| s == n) {
            let mut cycle = stack[at..].to_vec();
            cycle.push(n.to_string());
            return Some(cycle);
        }
        if done.contains(n) {
            return None;
        }
        stack.push(n.to_string());
        for (_, to) in edges.iter().filter(|(from, _)| from == n) {
            if let Some(c) = visit(to, edges, stack, done) {
                return Some(c);
            }
        }
        stack.pop();
        done.insert(n.to_string());
        None
    }
    let mut done = BTreeSet::new();
    for f in &files {
        if let Some(cycle) = visit(f, &edges, &mut Vec::new(), &mut done) {
            panic!("engine/ import cycle: {} (edges: {edges:?})", cycle.join(" → "));
        }
    }
    assert!(edges.contains(&("debugger".into(), "machine".into())), "the scanner sees engine imports: {edges:?}");
}
