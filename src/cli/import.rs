//! `radbg import FILE.ptx`: the PTX imported as Ori IR, printed in canonical form on
//! stdout (or to `--output`); diagnostics, warnings included, to stderr; exit status 1
//! on any error. The printed text re-parses to the same module.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::ir::diag::{self, Diagnostic};
use crate::ir::span::SourceFile;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The PTX file (`-` reads standard input).
    pub file: PathBuf,
    /// Write the Ori IR to this file instead of standard output.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// Imports (the importer validates its result): the Ori IR text when there were no
/// errors, and every diagnostic about the PTX.
pub fn import_to_text(file: &SourceFile) -> (Option<String>, Vec<Diagnostic>) {
    let imp = crate::ir::ptx::import(file);
    (imp.module.as_ref().map(crate::ir::print::print_module), imp.diags)
}

pub fn run(args: &Args) -> ExitCode {
    let file = match super::load(&args.file) {
        Ok(f) => f,
        Err(msg) => {
            eprintln!("{}", msg.trim_end());
            return ExitCode::FAILURE;
        }
    };
    let (text, diags) = import_to_text(&file);
    eprint!("{}", diag::render_all(&diags, &file));
    let (errors, warnings) = diag::counts(&diags);
    if errors + warnings > 0 {
        eprintln!("{}: {}", file.name, diag::summary(errors, warnings));
    }
    let Some(text) = text else { return ExitCode::FAILURE };
    match &args.output {
        Some(path) => {
            if let Err(e) = std::fs::write(path, text) {
                eprintln!("radbg: cannot write {}: {e}", path.display());
                return ExitCode::FAILURE;
            }
        }
        None => print!("{text}"),
    }
    ExitCode::SUCCESS
}
