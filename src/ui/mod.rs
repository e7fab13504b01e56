//! The front ends: the rustyline REPL (`repl`) and the ratatui TUI (`tui`), with the
//! completion and hints they share (`complete`) and the one way both run what a person
//! types (`run_line`).
//!
//! Architecture invariant: front ends never touch allocator state. Anything that
//! changes the debugger is a command line run through `command::Session::exec` (and
//! so can be recorded and replayed); panes only render `engine::query` results,
//! reaching the debugger read-only through `session.dbg`.

pub mod complete;
pub mod repl;
pub mod tui;

use crate::command::parse::CmdError;
use crate::command::script::Recorder;
use crate::command::{Output, Session, parse_line};

/// What became of one command of a typed line.
#[derive(Debug)]
pub enum Outcome {
    /// The line did not parse; nothing ran.
    Parse { line: String, error: CmdError },
    /// A command ran (`text` is its own part of the line).
    Ran { text: String, result: Result<Output, String> },
}

impl Outcome {
    /// The command failed or an expectation did not hold.
    pub fn is_failure(&self) -> bool {
        match self {
            Outcome::Parse { .. } => true,
            Outcome::Ran { result, .. } => result.as_ref().map(|o| o.failed).unwrap_or(true),
        }
    }
}

pub use crate::command::script::command_texts;

/// Runs a typed line: parses it, executes its commands in order, stops at the first
/// error, and records every command that succeeded (a failed `expect` is recorded as
/// a comment, so the recording replays without failing).
pub fn run_line(session: &mut Session, line: &str, mut recorder: Option<&mut Recorder>) -> Vec<Outcome> {
    let cmds = match parse_line(line) {
        Ok(c) => c,
        Err(error) => return vec![Outcome::Parse { line: line.to_string(), error }],
    };
    let texts = command_texts(line);
    let mut out = Vec::new();
    for (i, cmd) in cmds.iter().enumerate() {
        let text = texts.get(i).cloned().unwrap_or_else(|| line.trim().to_string());
        let result = session.exec(cmd);
        if let Some(r) = recorder.as_deref_mut() {
            let rec = match &result {
                Ok(o) if o.failed => Some(format!("# (failed) {text}")),
                Ok(_) => Some(text.clone()),
                Err(_) => None,
            };
            if let Some(rec) = rec {
                // A full disk must not take the session down; the recording is best effort.
                let _ = r.record(&rec);
            }
        }
        let stop = result.is_err() || session.quit;
        out.push(Outcome::Ran { text, result });
        if stop {
            break;
        }
    }
    out
}

/// Where the command history lives: `$XDG_STATE_HOME/radbg/history`, else
/// `~/.radbg_history`; `None` without either variable.
pub fn history_path() -> Option<std::path::PathBuf> {
    if let Some(x) = std::env::var_os("XDG_STATE_HOME").filter(|x| !x.is_empty()) {
        return Some(std::path::PathBuf::from(x).join("radbg").join("history"));
    }
    std::env::var_os("HOME").filter(|h| !h.is_empty()).map(|h| std::path::PathBuf::from(h).join(".radbg_history"))
}

/// True when colour is wanted: `NO_COLOR` unset or empty (no-color.org).
pub fn colour_wanted() -> bool {
    std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_texts_follow_the_parser() {
        assert_eq!(command_texts("s 2; n # go"), vec!["s 2", "n"]);
        assert_eq!(command_texts(" ; ;"), Vec::<String>::new());
        assert_eq!(command_texts("echo a;b"), vec!["echo a", "b"]);
        for line in ["s 2; n # go", "step;next;finish", "  where  ", "# c"] {
            assert_eq!(command_texts(line).len(), parse_line(line).unwrap().len(), "{line}");
        }
    }
}
