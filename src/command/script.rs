//! Replaying `.radbg` session files: each command echoed after a `(radbg)` prompt, then
//! its output — a deterministic transcript — or the same as JSON lines. Errors name
//! `file:line:col`; a failed `expect` makes the replay fail; `stop-on-error` decides
//! whether an error ends it. Also the recorder that appends typed commands to a file.

use std::io::Write;

use serde_json::json;

use crate::command::exec::Session;
use crate::command::parse::parse_line;

/// The outcome of a replay.
#[derive(Clone, Debug, PartialEq)]
pub struct Replay {
    pub transcript: String,
    /// Every expectation held and no error stopped the replay.
    pub ok: bool,
    pub failures: Vec<String>,
}

/// Replays `text` (named `name` in messages) in `session`.
pub fn replay(session: &mut Session, name: &str, text: &str, json_lines: bool) -> Replay {
    let mut t = String::new();
    let mut ok = true;
    let mut failures = Vec::new();
    'lines: for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let cmds = match parse_line(line) {
            Ok(c) => c,
            Err(e) => {
                let col = line[..e.start.min(line.len())].chars().count() + 1;
                let msg = format!("{name}:{}:{col}: {}", i + 1, e.render(line));
                emit(&mut t, json_lines, line, &msg, json!({"error": msg}));
                failures.push(msg);
                ok = false;
                if session.stop_on_error {
                    break;
                }
                continue;
            }
        };
        for (k, cmd) in cmds.iter().enumerate() {
            let shown = if cmds.len() == 1 { line.trim().to_string() } else { format!("{} [{}]", line.trim(), k + 1) };
            match session.exec(cmd) {
                Ok(o) => {
                    if o.failed {
                        ok = false;
                        failures.push(format!("{name}:{}: {}", i + 1, o.text));
                    }
                    emit(&mut t, json_lines, &shown, &o.text, o.json);
                }
                Err(e) => {
                    let msg = format!("{name}:{}: {}", i + 1, crate::command::exec::error_text(&e));
                    emit(&mut t, json_lines, &shown, &msg, json!({"error": msg}));
                    failures.push(msg);
                    ok = false;
                    if session.stop_on_error {
                        break 'lines;
                    }
                }
            }
            if session.quit {
                break 'lines;
            }
        }
    }
    Replay { transcript: t, ok, failures }
}

fn emit(t: &mut String, json_lines: bool, cmd: &str, text: &str, value: serde_json::Value) {
    if json_lines {
        t.push_str(&json!({"command": cmd, "output": value}).to_string());
        t.push('\n');
    } else {
        t.push_str("(radbg) ");
        t.push_str(cmd);
        t.push('\n');
        if !text.is_empty() {
            t.push_str(text);
            t.push('\n');
        }
    }
}

/// Appends every command a person types to a `.radbg` file that replays to the same state.
pub struct Recorder {
    file: std::fs::File,
}

impl Recorder {
    /// Creates (or truncates) the file and writes a header; `load` is the file the
    /// session starts from, recorded first so the recording replays on its own.
    pub fn create(path: &std::path::Path, load: Option<&str>) -> std::io::Result<Recorder> {
        let mut file = std::fs::File::create(path)?;
        writeln!(file, "# radbg session recorded by radbg {}", env!("CARGO_PKG_VERSION"))?;
        if let Some(l) = load {
            writeln!(file, "load {l}")?;
        }
        Ok(Recorder { file })
    }

    pub fn record(&mut self, line: &str) -> std::io::Result<()> {
        writeln!(self.file, "{}", line.trim())?;
        self.file.flush()
    }
}
