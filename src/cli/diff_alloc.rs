//! `radbg diff-alloc FILE`: runs the fat-point and the Chaitin-Briggs allocators on every
//! function of a file with the same budget and knobs, and prints the allocator diff
//! (`alloc::compare`, `command::alloc_diff`): assignments side by side, spilled sets, registers, spill bytes,
//! estimated spill cost and the verdict, as text or JSON.
//!
//! Owns argument handling and output only.

use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// An Ori IR file.
    pub file: PathBuf,
    #[command(flatten)]
    pub pipeline: super::PipelineArgs,
    /// Only this function.
    #[arg(long, value_name = "NAME")]
    pub function: Option<String>,
    /// Print one JSON array instead of text.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: &Args) -> ExitCode {
    let (module, opts) = match super::load_for_pipeline(&args.file, &args.pipeline) {
        Ok(x) => x,
        Err(code) => return code,
    };
    if let Some(name) = &args.function
        && module.function(name).is_none()
    {
        eprintln!("radbg: {}: no function named '{name}'", args.file.display());
        return ExitCode::FAILURE;
    }
    let diffs = match crate::command::alloc_diff::compare_module(module, opts) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("radbg: {e}");
            return ExitCode::FAILURE;
        }
    };
    let diffs: Vec<_> = diffs.into_iter().filter(|d| args.function.as_ref().is_none_or(|n| *n == d.function)).collect();
    if args.json {
        let v = serde_json::Value::Array(diffs.iter().map(crate::command::alloc_diff::diff_json).collect());
        println!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
    } else {
        for d in &diffs {
            print!("{}", d.text());
        }
    }
    ExitCode::SUCCESS
}
