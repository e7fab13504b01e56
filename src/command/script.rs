//! Replaying `.radbg` session files: each command echoed after a `(radbg)` prompt, then
//! its output — a deterministic transcript — or the same as JSON lines. Errors name
//! `file:line:col`; a failed `expect` makes the replay fail; `stop-on-error` decides
//! whether an error ends it. Echoed commands and error lines are cut to a bounded width.
//! Also the recorder that appends typed commands to a file (never onto an input).

use std::io::Write;

use serde_json::json;

use crate::command::exec::Session;
use crate::command::parse::parse_line;
use crate::util::{MAX_SHOWN, clip};

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
                let col = line.get(..e.start.min(line.len())).map_or(0, |p| p.chars().count()) + 1;
                let msg = format!("{name}:{}:{col}: {}", i + 1, e.render(line));
                emit(&mut t, json_lines, &clip(line.trim(), MAX_SHOWN), &msg, json!({"error": msg}));
                failures.push(msg);
                ok = false;
                if session.stop_on_error {
                    break;
                }
                continue;
            }
        };
        // Each command of a `;` list is echoed on its own, cut: echoing the whole line
        // per command made a 100 KB line of `step;` print 2 GB (issue 28).
        let texts = command_texts(line);
        for (k, cmd) in cmds.iter().enumerate() {
            let shown = clip(texts.get(k).map_or(line.trim(), String::as_str), MAX_SHOWN);
            match session.exec(cmd) {
                Ok(o) => {
                    if o.failed {
                        ok = false;
                        failures.push(format!("{name}:{}: {}", i + 1, o.text));
                    }
                    emit(&mut t, json_lines, &shown, &o.text, o.json);
                }
                Err(e) => {
                    let msg = format!("{name}:{}: {}", i + 1, crate::command::exec::error_text(&clip_lines(&e)));
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

/// The text of each command of a line, as `parse_line` splits it (`;` separates
/// commands, `#` starts a comment, empty commands are dropped).
pub fn command_texts(line: &str) -> Vec<String> {
    let code = line.split('#').next().unwrap_or("");
    code.split(';').map(str::trim).filter(|s| !s.is_empty()).map(str::to_string).collect()
}

/// An error message with every line cut to a bounded width (errors quote the words of
/// the command, which may be 100 KB long).
fn clip_lines(text: &str) -> String {
    text.lines().map(|l| clip(l, 2 * MAX_SHOWN)).collect::<Vec<_>>().join("\n")
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
    /// Opens the file for appending (creating it when absent) and writes a header; `load`
    /// is the file the session starts from (as the recording's `load` line names it,
    /// relative to the recording's directory), recorded first so the recording replays
    /// on its own. Refuses a path that is, or is a symlink onto, that input (issue 28:
    /// `--record k.ori` truncated the kernel being debugged).
    pub fn create(path: &std::path::Path, load: Option<&str>) -> std::io::Result<Recorder> {
        let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(std::path::Path::new("."));
        let inputs: Vec<std::path::PathBuf> = load.map(|l| dir.join(l)).into_iter().collect();
        let refs: Vec<&std::path::Path> = inputs.iter().map(|p| p.as_path()).collect();
        Recorder::create_guarded(path, load, &refs)
    }

    /// Like [`Recorder::create`], also refusing to write onto any of `inputs`.
    pub fn create_guarded(
        path: &std::path::Path,
        load: Option<&str>,
        inputs: &[&std::path::Path],
    ) -> std::io::Result<Recorder> {
        if let Some(input) = inputs.iter().find(|i| same_file(path, i)) {
            return Err(std::io::Error::other(format!(
                "{} is an input of this session ({}); record to another file",
                path.display(),
                input.display()
            )));
        }
        let mut file = std::fs::OpenOptions::new().create(true).append(true).open(path)?;
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

/// Whether `a` is `b` or reaches the same file (through symlinks or hard links).
pub fn same_file(a: &std::path::Path, b: &std::path::Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(x), Ok(y)) => x.dev() == y.dev() && x.ino() == y.ino(),
        _ => false,
    }
}
