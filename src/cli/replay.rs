//! `radbg replay SESSION.radbg` and `radbg FILE -x SESSION.radbg`: replay a session
//! headless and print its transcript (or JSON lines with `--json`); exit status 1 when
//! an expectation fails or an error stops it.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::command::{Session, script};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The session file; it should `load` its kernel first.
    pub session: PathBuf,
    /// Print JSON lines instead of a transcript.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub pipeline: super::PipelineArgs,
}

pub fn run(args: &Args) -> ExitCode {
    replay_file(None, &args.session, args.json, &args.pipeline)
}

/// Replays `session`, first loading `file` when given.
pub fn replay_file(file: Option<&Path>, session: &Path, json: bool, pipeline: &super::PipelineArgs) -> ExitCode {
    let mut s = Session::new();
    for setting in pipeline.settings() {
        s.apply(&setting);
    }
    s.base = session.parent().map(Path::to_path_buf).unwrap_or_else(|| PathBuf::from("."));
    if let Some(f) = file
        && let Err(e) = s.load(&f.display().to_string())
    {
        eprintln!("{e}");
        return ExitCode::FAILURE;
    }
    replay_in(s, session, json)
}

/// Replays `session` in a session that may already have a module open (the embedded
/// demo kernel, for `radbg -x SESSION` without a file).
pub fn replay_in(mut s: Session, session: &Path, json: bool) -> ExitCode {
    let read = crate::load::read_input(session, &session.display().to_string())
        .and_then(|b| String::from_utf8(b).map_err(|e| format!("cannot read {}: {e}", session.display())));
    let text = match read {
        Ok(t) => t,
        Err(e) => {
            eprintln!("radbg: {e}");
            return ExitCode::FAILURE;
        }
    };
    s.base = session.parent().map(Path::to_path_buf).unwrap_or_else(|| PathBuf::from("."));
    let name = session.display().to_string();
    let r = script::replay(&mut s, &name, &text, json);
    super::output::out(&r.transcript);
    if !r.ok {
        eprintln!(
            "radbg: replay of {name} failed ({} problem(s)); first: {}",
            r.failures.len(),
            r.failures.first().map(String::as_str).unwrap_or("?")
        );
    }
    if r.ok { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}
