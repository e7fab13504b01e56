//! The `radbg` command line (clap derive). One variant of [`Command`] and one file
//! per subcommand; `radbg FILE` without a subcommand checks the file, and `radbg`
//! alone checks the embedded demo kernel (until the debugger takes over that role).
//!
//! Owns argument parsing, file loading and exit codes; the work is in the library.

pub mod check;
pub mod fmt;
pub mod import;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::ir::span::SourceFile;

#[derive(Debug, Parser)]
#[command(
    name = "radbg",
    version,
    about = "A register-allocation debugger for GPU compilers (ptxas's allocator, step by step)",
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    /// An Ori IR file to open (for now: to check); the embedded demo kernel when absent.
    pub file: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Parse and validate Ori IR files; diagnostics go to stderr, exit status 1 on any error.
    Check(check::Args),
    /// Print an Ori IR file in canonical form.
    Fmt(fmt::Args),
    /// Import a PTX file: print it as Ori IR (diagnostics to stderr, exit status 1 on errors).
    Import(import::Args),
}

/// Entry point of the binary.
pub fn main() -> ExitCode {
    run(Cli::parse())
}

/// Runs parsed arguments.
pub fn run(cli: Cli) -> ExitCode {
    match cli.command {
        Some(Command::Check(args)) => check::run(&args),
        Some(Command::Fmt(args)) => fmt::run(&args),
        Some(Command::Import(args)) => import::run(&args),
        None => match cli.file {
            Some(path) => check::run_default(Some(&path)),
            None => check::run_default(None),
        },
    }
}

/// Reads a file (or standard input for `-`) as UTF-8, reporting where it is not.
pub fn load(path: &Path) -> Result<SourceFile, String> {
    let name = path.display().to_string();
    let bytes = if name == "-" {
        let mut buf = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut buf)
            .map_err(|e| format!("radbg: cannot read standard input: {e}"))?;
        buf
    } else {
        std::fs::read(path).map_err(|e| format!("radbg: cannot read {name}: {e}"))?
    };
    SourceFile::from_bytes(if name == "-" { "<stdin>".to_string() } else { name }, &bytes).map_err(|e| e.render())
}
