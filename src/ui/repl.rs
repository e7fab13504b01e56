//! The REPL: rustyline on a terminal (history file, completion and hints from
//! `ui::complete`, Ctrl-C interrupts a running `continue`, Ctrl-D leaves), plain line
//! reading when standard input is not a terminal (scripts, CI: nothing is echoed but
//! the commands' own output, so the output is deterministic).
//!
//! Owns line editing and printing only; commands run through `ui::run_line`.

use std::borrow::Cow;
use std::cell::RefCell;
use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::rc::Rc;

use rustyline::completion::{Completer, Pair};
use rustyline::error::ReadlineError;
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::history::DefaultHistory;
use rustyline::validate::Validator;
use rustyline::{CompletionType, Config, Context, Editor, Helper};

use crate::command::Session;
use crate::command::exec::error_text;
use crate::command::script::Recorder;
use crate::ui::{Outcome, complete, run_line};

/// How the REPL runs.
pub struct ReplOptions {
    /// Print each command's output as a JSON line instead of text.
    pub json: bool,
    /// Append every command that succeeds to this recording.
    pub recorder: Option<Recorder>,
    /// The history file (interactive use only); `None` keeps no history.
    pub history: Option<PathBuf>,
    /// A line printed once when the interactive REPL starts.
    pub banner: Option<String>,
}

/// Writes the outcomes of one line; returns whether any failed.
pub fn print_outcomes(
    outcomes: &[Outcome],
    json: bool,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> std::io::Result<bool> {
    print_outcomes_at(outcomes, json, None, out, err)
}

/// Like [`print_outcomes`]; with `at` (input name, line number) each error names its
/// line as `name:line[:col]: error: …`, as gdb does for a script read from a pipe.
pub fn print_outcomes_at(
    outcomes: &[Outcome],
    json: bool,
    at: Option<(&str, usize)>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> std::io::Result<bool> {
    let mut failed = false;
    for o in outcomes {
        failed |= o.is_failure();
        match o {
            Outcome::Parse { line, error } => {
                let msg = match at {
                    Some((name, n)) => {
                        let col = line[..error.start.min(line.len())].chars().count() + 1;
                        format!("{name}:{n}:{col}: {}", error.render(line))
                    }
                    None => error.render(line),
                };
                if json {
                    writeln!(out, "{}", serde_json::json!({"command": line.trim(), "output": {"error": msg}}))?;
                } else {
                    writeln!(err, "{msg}")?;
                }
            }
            Outcome::Ran { text, result } => match (result, json) {
                (Ok(o), true) => writeln!(out, "{}", serde_json::json!({"command": text, "output": o.json}))?,
                (Ok(o), false) => {
                    if !o.text.is_empty() {
                        writeln!(out, "{}", o.text)?;
                    }
                }
                (Err(e), true) => {
                    let e = match at {
                        Some((name, n)) => format!("{name}:{n}: {}", error_text(e)),
                        None => e.clone(),
                    };
                    writeln!(out, "{}", serde_json::json!({"command": text, "output": {"error": e}}))?;
                }
                (Err(e), false) => match at {
                    Some((name, n)) => writeln!(err, "{name}:{n}: {}", error_text(e))?,
                    None => writeln!(err, "{}", error_text(e))?,
                },
            },
        }
    }
    Ok(failed)
}

/// Runs the REPL until `quit`, end of input or Ctrl-D. Reading from a pipe it goes on
/// after an error, as gdb does with commands on standard input (`set stop-on-error on`
/// stops at the first one), and exits with status 1 when any command failed (an error
/// or an `expect` that did not hold). A reader that closes the pipe early (`| head`)
/// ends radbg quietly with status 0.
pub fn run(session: Session, opts: ReplOptions) -> ExitCode {
    if std::io::stdin().is_terminal() {
        interactive(session, opts)
    } else {
        let stdin = std::io::stdin();
        let mut s = session;
        s.stop_on_error = false;
        let mut o = opts;
        let r = piped(&mut s, &mut o, &mut stdin.lock(), &mut std::io::stdout(), &mut std::io::stderr());
        match r {
            Ok(true) => ExitCode::SUCCESS,
            Ok(false) => ExitCode::FAILURE,
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("radbg: {e}");
                ExitCode::FAILURE
            }
        }
    }
}

/// Reads commands line by line from `input` (no prompt, no echo); errors name their
/// line (`<stdin>:3: error: …`). Returns `Ok(true)` when every command succeeded. With
/// the session's `stop-on-error` on, the first error ends the run.
pub fn piped(
    session: &mut Session,
    opts: &mut ReplOptions,
    input: &mut dyn BufRead,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> std::io::Result<bool> {
    let mut ok = true;
    let mut line = String::new();
    let mut number = 0;
    loop {
        line.clear();
        if input.read_line(&mut line)? == 0 {
            break;
        }
        number += 1;
        let outcomes = run_line(session, line.trim_end_matches(['\n', '\r']), opts.recorder.as_mut());
        let failed = print_outcomes_at(&outcomes, opts.json, Some(("<stdin>", number)), out, err)?;
        out.flush()?;
        ok &= !failed;
        let errored = outcomes.iter().any(|o| matches!(o, Outcome::Parse { .. } | Outcome::Ran { result: Err(_), .. }));
        if session.quit || (errored && session.stop_on_error) {
            break;
        }
    }
    Ok(ok)
}

/// The rustyline helper: completion and hints from `ui::complete`, hints dimmed.
struct ReplHelper {
    session: Rc<RefCell<Session>>,
    colour: bool,
}

impl Completer for ReplHelper {
    type Candidate = Pair;
    fn complete(&self, line: &str, pos: usize, _ctx: &Context<'_>) -> rustyline::Result<(usize, Vec<Pair>)> {
        let s = self.session.borrow();
        let c = complete::complete(&s, line, pos);
        let pairs = c
            .candidates
            .iter()
            .map(|w| {
                // A finished word gets a space so the next one can be typed at once.
                let open = w.ends_with('=') || w.ends_with('/');
                Pair { display: w.clone(), replacement: if open { w.clone() } else { format!("{w} ") } }
            })
            .collect();
        Ok((c.start, pairs))
    }
}

impl Hinter for ReplHelper {
    type Hint = String;
    fn hint(&self, line: &str, pos: usize, _ctx: &Context<'_>) -> Option<String> {
        complete::hint(line, pos)
    }
}

impl Highlighter for ReplHelper {
    fn highlight_hint<'h>(&self, hint: &'h str) -> Cow<'h, str> {
        if self.colour { Cow::Owned(format!("\x1b[2m{hint}\x1b[0m")) } else { Cow::Borrowed(hint) }
    }
}

impl Validator for ReplHelper {}
impl Helper for ReplHelper {}

fn interactive(session: Session, mut opts: ReplOptions) -> ExitCode {
    let interrupt = session.interrupt.clone();
    // Ctrl-C while a command runs (the terminal is in cooked mode then) sets the flag
    // `continue` polls instead of killing radbg; while a line is being edited
    // rustyline sees Ctrl-C as a key.
    let sig = signal_hook::flag::register(signal_hook::consts::SIGINT, interrupt);
    let shared = Rc::new(RefCell::new(session));
    let config = Config::builder().completion_type(CompletionType::List).auto_add_history(false).build();
    let mut rl: Editor<ReplHelper, DefaultHistory> = match Editor::with_config(config) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("radbg: cannot start the line editor: {e}");
            return ExitCode::FAILURE;
        }
    };
    rl.set_helper(Some(ReplHelper { session: shared.clone(), colour: crate::ui::colour_wanted() }));
    if let Some(h) = &opts.history {
        let _ = rl.load_history(h);
    }
    if let Some(b) = &opts.banner {
        println!("{b}");
    }
    loop {
        match rl.readline("(radbg) ") {
            Ok(line) => {
                if !line.trim().is_empty() {
                    let _ = rl.add_history_entry(line.as_str());
                }
                let outcomes = {
                    let mut s = shared.borrow_mut();
                    run_line(&mut s, &line, opts.recorder.as_mut())
                };
                let _ = print_outcomes(&outcomes, opts.json, &mut std::io::stdout(), &mut std::io::stderr());
                if shared.borrow().quit {
                    break;
                }
            }
            Err(ReadlineError::Interrupted) => {
                // Ctrl-C at the prompt abandons the line, as in a shell.
                continue;
            }
            Err(ReadlineError::Eof) => break,
            Err(e) => {
                eprintln!("radbg: {e}");
                break;
            }
        }
    }
    if let Some(h) = &opts.history {
        if let Some(dir) = h.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        let _ = rl.save_history(h);
    }
    if let Ok(id) = sig {
        signal_hook::low_level::unregister(id);
    }
    ExitCode::SUCCESS
}
