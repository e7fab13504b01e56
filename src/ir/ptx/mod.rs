//! PTX import: parse PTX text and lower it to Ori IR with provenance.
//!
//! Owns: everything PTX — tokens (`lex`), syntax (`parse`, `ast`), the opcode and
//! operand-role table (`ops`), parameter layout and the device-function ABI (`abi`),
//! and the lowering (`lower`, `operand`, `inst`). Must not know: allocation, analyses
//! or the debugger; its output is a plain [`crate::ir::Module`] whose every
//! instruction and vreg carries the PTX line it came from (`origin`).
//!
//! The mapping, in short (details in each module's doc):
//! - `.pred` registers → P; 8/16/32-bit → R; 64-bit → R pairs (`.R.x2`); 128-bit and
//!   `.v4 .b32` → quads; vector registers by total width. Names are kept (`%r1`),
//!   `$r1` becomes `%$r1`, shadowing names in nested scopes get a `_N` suffix.
//! - Instructions map 1:1 to SASS-flavoured mnemonics (`ops`), keeping PTX modifiers.
//! - Vector operands become wide temporaries plus component moves (`operand`).
//! - Kernel parameters are read from `c[0x0][BASE+offset]`; device-function
//!   parameters and returns are vregs bound in an `.abi` spec (`abi`, `inst`).

pub mod abi;
pub mod ast;
mod inst;
pub mod lex;
pub mod lower;
pub mod names;
mod operand;
pub mod ops;
pub mod parse;

use crate::ir::model::Module;

/// How bad a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    Error,
    Warning,
}

/// A diagnostic about the PTX text: a byte range and a message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diag {
    pub severity: Severity,
    pub lo: u32,
    pub hi: u32,
    pub message: String,
}

impl Diag {
    pub fn new(severity: Severity, lo: u32, hi: u32, message: impl Into<String>) -> Diag {
        Diag { severity, lo, hi: hi.max(lo), message: message.into() }
    }
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// The result of an import: the module (when there were no errors) and every
/// diagnostic in file order.
#[derive(Clone, Debug)]
pub struct Import {
    pub module: Option<Module>,
    pub diags: Vec<Diag>,
}

/// Imports PTX text. Never panics; bad input gets diagnostics.
pub fn import(src: &str) -> Import {
    let ast = match parse::parse_module(src) {
        Ok(a) => a,
        Err(e) => {
            let lo = e.offset as u32;
            let hi = lo + names::token_len(src, lo).min(src.len().saturating_sub(e.offset) as u32);
            let found = describe(&src[e.offset..]);
            let d = Diag::new(Severity::Error, lo, hi, format!("expected {}, found {found}", e.expected));
            return Import { module: None, diags: vec![d] };
        }
    };
    let mut diags = Vec::new();
    let module = lower::lower_module(src, &ast, &mut diags);
    diags.sort_by_key(|d| (d.lo, d.severity));
    let ok = !diags.iter().any(Diag::is_error);
    Import { module: ok.then_some(module), diags }
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
        Some(c) => format!("'{c}'"),
    }
}
