//! The thing being reduced: Ori IR or PTX text, and turning a candidate's text back
//! into a module through the ordinary loaders (`load::load_ori`, `load::import_ptx`),
//! which parse and validate it — a candidate they reject is never tested.

use crate::ir::Module;
use crate::ir::span::SourceFile;

/// The input language.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Ori,
    Ptx,
}

impl Format {
    /// PTX by extension or by its `.version` directive, else Ori IR.
    pub fn detect(name: &str, text: &str) -> Format {
        if crate::ir::ptx::looks_like_ptx(name, text) { Format::Ptx } else { Format::Ori }
    }

    pub fn name(self) -> &'static str {
        match self {
            Format::Ori => "ori",
            Format::Ptx => "ptx",
        }
    }
}

/// A candidate that parsed and validated.
pub struct Parsed {
    pub module: Module,
    /// Instructions: PTX instruction statements for PTX, Ori instructions for Ori IR.
    pub insts: usize,
}

/// Parses and validates a candidate; the rendered diagnostics when it does not load.
pub fn load(format: Format, text: &str) -> Result<Parsed, String> {
    let file = SourceFile::new("<candidate>", text);
    match format {
        Format::Ori => {
            let l = crate::load::load_ori(&file)?;
            let insts = l.module.functions.iter().map(|f| f.inst_count()).sum();
            Ok(Parsed { module: l.module, insts })
        }
        Format::Ptx => {
            let l = crate::load::import_ptx(&file)?;
            if l.module.functions.is_empty() {
                return Err("no function left".into());
            }
            Ok(Parsed { module: l.module, insts: ptx_insts(text) })
        }
    }
}

/// PTX instruction statements in `text` (0 when it does not parse).
pub fn ptx_insts(text: &str) -> usize {
    fn count(stmts: &[crate::ir::ptx::ast::Stmt]) -> usize {
        use crate::ir::ptx::ast::Stmt;
        stmts
            .iter()
            .map(|s| match s {
                Stmt::Inst(_) => 1,
                Stmt::Block(b, _) => count(b),
                _ => 0,
            })
            .sum()
    }
    let Ok(ast) = crate::ir::ptx::parse::parse_module(text) else { return 0 };
    ast.items
        .iter()
        .map(|it| match it {
            crate::ir::ptx::ast::Item::Func(f) => f.body.as_deref().map_or(0, count),
            crate::ir::ptx::ast::Item::Var(_) => 0,
        })
        .sum()
}

/// The text reduction starts from: the canonical print of Ori IR (so every candidate
/// is printed the same way), PTX as given.
pub fn canonical(format: Format, text: &str) -> Result<String, String> {
    match format {
        Format::Ori => {
            let p = load(format, text)?;
            Ok(crate::ir::print::print_module(&p.module))
        }
        Format::Ptx => Ok(text.to_string()),
    }
}
