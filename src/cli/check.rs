//! `radbg check FILE...`: parse and validate; diagnostics to stderr; exit status 1
//! when any file has an error (warnings alone pass).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::ir::diag::{self, Diagnostic};
use crate::ir::model::Module;
use crate::ir::span::{SourceFile, SourceMap};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Ori IR files (`-` reads standard input).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
}

/// Parses, then validates when parsing found no errors (validation of a module with
/// holes in it would only repeat the parse errors in other words). Returns the
/// module when it has no errors.
pub fn check_source(file: &SourceFile) -> (Option<(Module, SourceMap)>, Vec<Diagnostic>) {
    let (m, map, mut diags) = crate::ir::parse::parse_module(file);
    if diags.iter().any(Diagnostic::is_error) {
        return (None, diags);
    }
    diags.extend(crate::ir::validate::validate(&m, &map));
    if diags.iter().any(Diagnostic::is_error) {
        return (None, diags);
    }
    (Some((m, map)), diags)
}

pub fn run(args: &Args) -> ExitCode {
    let mut failed = false;
    for path in &args.files {
        failed |= !check_path(path, false);
    }
    if failed { ExitCode::FAILURE } else { ExitCode::SUCCESS }
}

/// `radbg FILE` and `radbg`: check, and say so on stdout when all is well.
pub fn run_default(path: Option<&Path>) -> ExitCode {
    let ok = match path {
        Some(p) => check_path(p, true),
        None => {
            let file = SourceFile::new(crate::demo::DEMO_NAME, crate::demo::DEMO);
            check_file(&file, true)
        }
    };
    if ok { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}

fn check_path(path: &Path, summary: bool) -> bool {
    match super::load(path) {
        Ok(file) => check_file(&file, summary),
        Err(msg) => {
            eprint!("{msg}");
            if !msg.ends_with('\n') {
                eprintln!();
            }
            false
        }
    }
}

fn check_file(file: &SourceFile, summary: bool) -> bool {
    let (module, diags) = check_source(file);
    eprint!("{}", diag::render_all(&diags, file));
    let (errors, warnings) = diag::counts(&diags);
    if errors + warnings > 0 {
        eprintln!("{}: {}", file.name, diag::summary(errors, warnings));
    }
    if summary && let Some((m, _)) = &module {
        let insts: usize = m.functions.iter().map(|f| f.inst_count()).sum();
        let n = m.functions.len();
        let funcs = if n == 1 { "1 function".to_string() } else { format!("{n} functions") };
        println!("{}: ok ({funcs}, {insts} instructions, target {})", file.name, m.sm);
    }
    errors == 0
}
