//! `radbg check FILE...`: parse and validate Ori IR, or import PTX (chosen by
//! extension or content); diagnostics to stderr; exit status 1 when any file has an
//! error or no function (warnings alone pass).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::ir::diag::{self, Diagnostic};
use crate::ir::model::Module;
use crate::ir::span::{SourceFile, SourceMap};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Ori IR (.ori) or PTX (.ptx, or any name whose text starts with `.version`)
    /// files; `-` reads standard input.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Also print liveness: per block live-in / live-out, max pressure per register
    /// file, solver sweeps and the uninitialized-register warning.
    #[arg(long)]
    pub live: bool,
    /// Do not print the ABI check list of functions with an ABI specification.
    #[arg(long)]
    pub no_abi: bool,
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
        failed |= !check_path(path, args);
    }
    if failed { ExitCode::FAILURE } else { ExitCode::SUCCESS }
}

fn check_path(path: &Path, args: &Args) -> bool {
    match super::load(path) {
        Ok(file) => check_file(&file, crate::load::is_ptx(path, file.text.as_bytes()), args),
        Err(msg) => {
            eprint!("{msg}");
            if !msg.ends_with('\n') {
                eprintln!();
            }
            false
        }
    }
}

/// Checks one file: PTX is imported (the importer validates what it produces), Ori IR
/// parsed and validated. A file with no function to allocate is an error.
fn check_file(file: &SourceFile, ptx: bool, args: &Args) -> bool {
    let (module, diags) = if ptx {
        let imp = crate::ir::ptx::import(file);
        let ok = !imp.diags.iter().any(Diagnostic::is_error);
        (imp.module.filter(|_| ok), imp.diags)
    } else {
        let (m, diags) = check_source(file);
        (m.map(|(m, _)| m), diags)
    };
    eprint!("{}", diag::render_all(&diags, file));
    let (mut errors, warnings) = diag::counts(&diags);
    if errors == 0 && module.as_ref().is_some_and(|m| m.functions.is_empty()) {
        let what = if ptx { "no .entry or .func" } else { "no function" };
        eprintln!("{}: error: nothing to allocate: {what} in the file", file.name);
        errors += 1;
    }
    if errors + warnings > 0 {
        eprintln!("{}: {}", file.name, diag::summary(errors, warnings));
    }
    if let Some(m) = module.as_ref().filter(|_| errors == 0) {
        // The ABI check list, in the seed's validation order, for every function with a spec.
        if !args.no_abi && m.functions.iter().any(|f| f.abi.is_some()) {
            super::output::out(&crate::abi::report(m, &m.sm));
        }
        if args.live {
            super::output::out(&crate::analysis::report::live_report(m));
        }
    }
    errors == 0
}
