//! `radbg fmt FILE`: the canonical form on stdout (`--check`: only report whether the
//! file is already canonical). A file with parse errors is not printed.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::ir::diag::{self, Diagnostic};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The Ori IR file (`-` reads standard input).
    pub file: PathBuf,
    /// Print nothing; exit with status 1 when the file is not in canonical form.
    #[arg(long)]
    pub check: bool,
}

pub fn run(args: &Args) -> ExitCode {
    let file = match super::load(&args.file) {
        Ok(f) => f,
        Err(msg) => {
            eprintln!("{}", msg.trim_end());
            return ExitCode::FAILURE;
        }
    };
    let (m, _, diags) = crate::ir::parse::parse_module(&file);
    eprint!("{}", diag::render_all(&diags, &file));
    if diags.iter().any(Diagnostic::is_error) {
        return ExitCode::FAILURE;
    }
    let text = crate::ir::print::print_module(&m);
    if args.check {
        if text != *file.text {
            eprintln!("{}: not in canonical form (run radbg fmt {} to see it)", file.name, file.name);
            return ExitCode::FAILURE;
        }
        return ExitCode::SUCCESS;
    }
    super::output::out(&text);
    ExitCode::SUCCESS
}
