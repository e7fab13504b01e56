//! The `radbg` command line (clap derive). One variant of [`Command`] and one file
//! per subcommand; `radbg FILE` without a subcommand checks the file, and `radbg`
//! alone checks the embedded demo kernel (until the debugger takes over that role).
//!
//! Owns argument parsing, file loading and exit codes; the work is in the library.

pub mod check;
pub mod diff_alloc;
pub mod fmt;
pub mod run;

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
    /// Run the whole pipeline in batch: attempts per class and ptxas's `-v` lines.
    Run(run::Args),
    /// Run the fat-point and Chaitin-Briggs allocators on the same kernels and diff them.
    DiffAlloc(diff_alloc::Args),
}

/// Options that change a pipeline run (shared by `run`, the debugger and `why`).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct PipelineArgs {
    /// Target architecture, overriding the file's `.target` (e.g. sm_80).
    #[arg(long, value_name = "SM")]
    pub sm: Option<String>,
    /// Register budget, as ptxas's --maxrregcount.
    #[arg(long, value_name = "N")]
    pub maxrregcount: Option<u32>,
    /// Set a knob: NAME=VALUE or INDEX=VALUE (repeatable).
    #[arg(long = "knob", value_name = "NAME=VALUE")]
    pub knobs: Vec<String>,
    /// Run dead-code elimination before allocation.
    #[arg(long)]
    pub dce: bool,
}

/// Loads a module and turns pipeline arguments into run options; diagnostics go to
/// stderr and an error gives the exit code to return.
pub fn load_for_pipeline(
    path: &Path,
    args: &PipelineArgs,
) -> Result<(crate::ir::Module, crate::engine::RunOptions), ExitCode> {
    let file = load(path).map_err(|msg| {
        eprint!("{msg}");
        if !msg.ends_with('\n') {
            eprintln!();
        }
        ExitCode::FAILURE
    })?;
    let (module, diags) = check::check_source(&file);
    eprint!("{}", crate::ir::diag::render_all(&diags, &file));
    let Some((module, _)) = module else {
        let (e, w) = crate::ir::diag::counts(&diags);
        eprintln!("{}: {}", file.name, crate::ir::diag::summary(e, w));
        return Err(ExitCode::FAILURE);
    };
    let opts = run_options(args).map_err(|msg| {
        eprintln!("radbg: {msg}");
        ExitCode::FAILURE
    })?;
    Ok((module, opts))
}

/// Converts pipeline arguments, type-checking knobs and the target.
pub fn run_options(args: &PipelineArgs) -> Result<crate::engine::RunOptions, String> {
    let mut opts = crate::engine::RunOptions::default();
    if let Some(sm) = &args.sm {
        opts.sm = Some(crate::ir::Sm::parse(sm).map_err(|e| format!("--sm: {e}"))?);
    }
    if let Some(n) = args.maxrregcount {
        if n == 0 || n > 65535 {
            return Err(format!("--maxrregcount: {n} is out of range 1..=65535"));
        }
        opts.maxrregcount = Some(n);
    }
    let mut check = crate::knobs::Knobs::new();
    for k in &args.knobs {
        let info = check.set_str(k).map_err(|e| format!("--knob {k}: {e}"))?;
        let (_, v) = k.split_once('=').unwrap_or((k, ""));
        opts.knobs.push((crate::ir::KnobKey::Name(info.name.to_string()), crate::knobs::parse_value(v)));
    }
    opts.dce = args.dce;
    Ok(opts)
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
        Some(Command::Run(args)) => run::run(&args),
        Some(Command::DiffAlloc(args)) => diff_alloc::run(&args),
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
