//! PTX import: parse PTX text and lower it to Ori IR with provenance.
//!
//! Owns: everything PTX — tokens (`lex`), syntax (`parse` for the module level,
//! `stmt` for bodies and operands, `ast`), the opcode and operand-role table (`ops`),
//! parameter layout and the device-function ABI (`abi`), unique Ori names (`names`)
//! and the lowering (`module`, `lower`, `inst`, `operand`, `call`). Must not know:
//! allocation, analyses or the debugger; its output is a plain [`crate::ir::Module`]
//! whose every instruction and vreg carries the PTX line it came from (`origin`),
//! plus a [`SourceMap`] into the PTX text.
//!
//! The mapping, in short (details in each module's doc):
//! - `.pred` registers → P; 8/16/32-bit → R; 64-bit → R pairs (`.R.x2`); 128-bit and
//!   `.v4 .b32` → quads; vector registers by total width. Names are kept (`%r1`),
//!   `$r1` becomes `%$r1`, shadowing names in nested scopes get a `_N` suffix.
//! - Instructions map 1:1 to SASS-flavoured mnemonics (`ops`), keeping PTX modifiers.
//! - Vector operands become wide temporaries plus component moves (`operand`).
//! - Kernel parameters are read from `c[0x0][BASE+offset]`; device-function
//!   parameters and returns are vregs bound in an `.abi` spec (`abi`, `call`).
//! - `.extern` functions and `.callprototype`s become stub functions (ABI + `RET`).
//! - The result is checked with the Ori validator; what it rejects (operand types
//!   that do not fit, like a 64-bit load into a 32-bit register) is reported at the
//!   PTX line.

pub mod abi;
pub mod ast;
mod call;
mod inst;
pub mod lex;
mod lower;
mod module;
mod names;
mod operand;
pub mod ops;
mod paramptr;
pub mod parse;
mod stmt;
pub mod stream;
pub mod validate;

use crate::ir::diag::Diagnostic;
use crate::ir::model::Module;
use crate::ir::span::{SourceFile, SourceMap, Span};

/// The result of an import: the module (when there were no errors) and every
/// diagnostic, warnings included, in file order.
#[derive(Clone, Debug)]
pub struct Import {
    pub module: Option<Module>,
    /// Spans into the PTX text of the module's functions, declarations, blocks and
    /// instructions (every Ori instruction points at the PTX instruction it came from).
    pub map: SourceMap,
    /// The functions that are stubs, not code: `.extern` declarations and
    /// `.callprototype`s, present so that calls resolve (a lone `RET` each; ptxas
    /// reports nothing for them).
    pub stubs: Vec<String>,
    pub diags: Vec<Diagnostic>,
}

/// Imports a PTX file. Never panics and never hangs: bad input gets diagnostics
/// with a span into `file`.
pub fn import(file: &SourceFile) -> Import {
    import_text(&file.text)
}

/// Imports PTX text (spans are byte offsets into `src`).
pub fn import_text(src: &str) -> Import {
    let ast = match parse::parse_module(src) {
        Ok(a) => a,
        Err(e) => {
            let lo = e.offset.min(src.len()) as u32;
            let hi = lo + names::token_len(src, lo).min(src.len().saturating_sub(lo as usize) as u32);
            let at = &src[lo as usize..];
            // An unterminated block comment runs to the end of the file.
            let found = if at.starts_with("/*") { "end of file".to_string() } else { describe(at) };
            let d = Diagnostic::error(
                Span::new(lo as usize, hi as usize),
                format!("expected {}, found {found}", e.expected),
            );
            return Import { module: None, map: SourceMap::default(), stubs: Vec::new(), diags: vec![d] };
        }
    };
    if let Some(d) = over_limits(src, &ast) {
        return Import { module: None, map: SourceMap::default(), stubs: Vec::new(), diags: vec![d] };
    }
    // What ptxas rejects and the lowering would let through (`validate`), then the
    // lowering's own diagnostics, in that order.
    let (mut diags, module::Lowered { mut module, map, stubs }, srcloc) = check_and_lower(src, &ast);
    module.srcloc = srcloc;
    // What the Ori validator rejects is PTX whose operand types do not fit (a 64-bit load
    // into a 32-bit register ...): reported at the PTX line. The syntax tree is read no
    // more: a large one is freed on a second thread meanwhile (issue 25: its drop was
    // ~1 % of importing the scale kernel).
    let ok = !diags.iter().any(Diagnostic::is_error);
    let problems = std::thread::scope(|s| {
        if src.len() >= SIDE_THREAD_BYTES {
            s.spawn(move || drop(ast));
        } else {
            drop(ast);
        }
        ok.then(|| crate::ir::validate::validate(&module, &map))
    });
    if let Some(problems) = problems {
        for mut d in problems.into_iter().filter(Diagnostic::is_error).take(lower::MAX_ERRORS) {
            // Instruction problems start with the Ori mnemonic (`LDC.64 loads ...`).
            let word = d.message.split(' ').next().unwrap_or("");
            let about_inst = word.starts_with(|c: char| c.is_ascii_uppercase())
                && word.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '.' || c == '_');
            d.message = if about_inst {
                format!("operands do not fit the instruction: {}", d.message)
            } else {
                format!("not representable in Ori IR: {}", d.message)
            };
            diags.push(d);
        }
    }
    diags.sort_by_key(|d| (d.span.map_or(0, |s| s.lo), d.severity));
    let ok = !diags.iter().any(Diagnostic::is_error);
    Import { module: ok.then_some(module), map, stubs, diags }
}

/// PTX text from which on the checks and the `.loc` scan run on a second thread while
/// the lowering runs (issue 25: a tenth of importing the 8 MB scale kernel on the other
/// core); below it a thread would cost more than it saves (a many-entry file imports
/// one small group at a time, on `--jobs` threads already).
const SIDE_THREAD_BYTES: usize = 1 << 20;

/// `validate::check`'s diagnostics followed by the lowering's, the lowered module, and
/// the source lines of `.file`/`.loc`: the three read only the text and the syntax tree,
/// so for a large text the check and the scan run beside the lowering. The result does
/// not depend on which finishes first, and the other thread's `radbg::work` is counted
/// on this one.
fn check_and_lower<'a>(
    src: &'a str,
    ast: &'a ast::PtxModule<'a>,
) -> (Vec<Diagnostic>, module::Lowered, crate::ir::srcloc::SourceLines) {
    let side = || {
        let d = validate::check(src, ast);
        (d, crate::ir::srcloc::SourceLines::scan(src))
    };
    let lower = || {
        let mut d = Vec::new();
        let lowered = module::lower_module(src, ast, &mut d);
        (d, lowered)
    };
    let ((mut diags, lines), (lowered_diags, lowered)) = if src.len() >= SIDE_THREAD_BYTES {
        std::thread::scope(|s| {
            let h = s.spawn(|| (side(), crate::work::take()));
            let l = lower();
            match h.join() {
                Ok((x, work)) => {
                    crate::work::add(work);
                    (x, l)
                }
                Err(p) => std::panic::resume_unwind(p),
            }
        })
    } else {
        (side(), lower())
    };
    diags.extend(lowered_diags);
    (diags, lowered, lines)
}

/// The module-wide register limit and memory estimate (`ir::limits`), checked on the
/// syntax tree before lowering allocates a vreg per declared register: eight functions
/// of a million registers each ran 102 s and aborted out of memory (issue 28).
fn over_limits(src: &str, ast: &ast::PtxModule<'_>) -> Option<Diagnostic> {
    /// (module's registers, this function's, the largest function's so far)
    fn walk(stmts: &[ast::Stmt<'_>], total: &mut (u64, u64, u64), src: &str) -> Option<Diagnostic> {
        for st in stmts {
            match st {
                ast::Stmt::Decl(d) if d.space == ast::StateSpace::Reg => {
                    for n in &d.names {
                        let k = n.range.map_or(1, u64::from);
                        (total.0, total.1) = (total.0 + k, total.1 + k);
                        total.2 = total.2.max(total.1);
                        if let Some(msg) = crate::ir::limits::check_module_regs_in(total.0, total.2, src.len()) {
                            let at = n.pos as usize;
                            return Some(Diagnostic::error(Span::new(at, at + n.name.len()), msg));
                        }
                    }
                }
                ast::Stmt::Block(inner, _) => {
                    if let Some(d) = walk(inner, total, src) {
                        return Some(d);
                    }
                }
                _ => {}
            }
        }
        None
    }
    let mut total = (0u64, 0u64, 0u64);
    for item in &ast.items {
        if let ast::Item::Func(f) = item
            && let Some(body) = &f.body
        {
            total.1 = 0;
            if let Some(d) = walk(body, &mut total, src) {
                return Some(d);
            }
        }
    }
    None
}

/// Imports PTX text named `name`; errors come back rendered (`file:line:col`, caret).
pub fn import_str(name: &str, text: &str) -> Result<(Module, Vec<Diagnostic>), String> {
    let file = SourceFile::new(name, text);
    let imp = import(&file);
    match imp.module {
        Some(m) => Ok((m, imp.diags)),
        None => Err(crate::ir::diag::render_all(&imp.diags, &file)),
    }
}

/// Whether a file is PTX rather than Ori IR: by its `.ptx` extension, else by its
/// first directive (`.version` only appears in PTX).
pub fn looks_like_ptx(name: &str, text: &str) -> bool {
    if name.ends_with(".ptx") {
        return true;
    }
    let mut rest = text;
    loop {
        rest = rest.trim_start();
        if let Some(r) = rest.strip_prefix("//") {
            rest = r.split_once('\n').map_or("", |(_, r)| r);
        } else if let Some(r) = rest.strip_prefix("/*") {
            rest = r.split_once("*/").map_or("", |(_, r)| r);
        } else {
            return rest.starts_with(".version");
        }
    }
}

/// What the input holds at an error, for "found ...".
fn describe(rest: &str) -> String {
    let rest = rest.trim_start_matches([' ', '\t', '\r']);
    match rest.chars().next() {
        None => "end of file".into(),
        Some('\n') => "end of line".into(),
        Some(c) if c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '%' | '.') => {
            let n = rest
                .char_indices()
                .find(|&(i, c)| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '%') || (c == '.' && i == 0)))
                .map(|(i, _)| i)
                .unwrap_or(rest.len())
                .min(40);
            format!("'{}'", &rest[..n])
        }
        Some(c) => format!("'{}'", c.escape_default()),
    }
}
