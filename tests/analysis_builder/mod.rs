//! Test-only helper: builds a function from Ori IR instruction text, declaring its
//! registers implicitly by name prefix — `%p` P, `%up` UP, `%u` UR, `%rd` R pair, `%q`
//! R quad, `%b` B, `%t` T, anything else R — so tests show only blocks and
//! instructions. The text is wrapped into `.entry test { .reg ... }` and read by the
//! real parser (`ir::parse::parse_module`, without the validator: some tests use
//! unknown labels or callees on purpose).
#![allow(dead_code)]

use radbg::ir::parse::parse_module;
use radbg::ir::span::SourceFile;
use radbg::ir::{Function, VRegId};

fn decl_of(name: &str) -> &'static str {
    let n = name.trim_start_matches('%');
    if n.starts_with("up") {
        ".UP"
    } else if n.starts_with('p') {
        ".P"
    } else if n.starts_with('u') {
        ".UR"
    } else if n.starts_with("rd") {
        ".R.x2"
    } else if n.starts_with('q') {
        ".R.x4"
    } else if n.starts_with('b') {
        ".B"
    } else if n.starts_with('t') {
        ".T"
    } else {
        ".R"
    }
}

/// Every `%name` in `text`, in order of first appearance.
fn reg_names(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let mut j = i + 1;
            while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'_' || b[j] == b'$') {
                j += 1;
            }
            let name = &text[i..j];
            if j > i + 1 && !out.iter().any(|n| n == name) {
                out.push(name.to_string());
            }
            i = j;
        } else {
            i += 1;
        }
    }
    out
}

/// The whole Ori text of a test function: `decl` names first (fixing their ids), then
/// the registers of `src` in order of appearance.
pub fn ori_text(decl: &str, src: &str) -> String {
    let body: String = src.lines().map(|l| format!("  {}\n", l.trim())).collect();
    let mut text = String::from(".entry test {\n");
    for n in reg_names(&format!("{decl} {src}")) {
        text += &format!("  .reg {} {n}\n", decl_of(&n));
    }
    if !src.split_whitespace().next().is_some_and(|t| t.ends_with(':')) {
        text += "BB0:\n";
    }
    text + &body + "}\n"
}

/// Builds a function; registers named in `decl` (whitespace separated) are declared
/// first, in that order.
pub fn func_with(decl: &str, src: &str) -> Function {
    let text = ori_text(decl, src);
    let (mut m, _, diags) = parse_module(&SourceFile::new("test.ori", text.clone()));
    let errors: Vec<String> = diags.iter().filter(|d| d.is_error()).map(|d| format!("{d:?}")).collect();
    assert!(errors.is_empty(), "test source does not parse:\n{text}\n{errors:#?}");
    m.functions.remove(0)
}

pub fn func(src: &str) -> Function {
    func_with("", src)
}

/// Looks a vreg up by name, panicking in tests when it does not exist.
pub fn v(f: &Function, name: &str) -> VRegId {
    f.vreg_by_name(name).unwrap_or_else(|| panic!("no vreg {name}"))
}
