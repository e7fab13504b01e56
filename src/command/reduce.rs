//! Reduction predicates written in the command language, and the debugger's `reduce`
//! command.
//!
//! `script FILE.radbg` (a session that must replay without a failed `expect` or an
//! error) and any `expect` condition (`expect stats spill-stores > 0`, `expect %x ==
//! spilled` …) are evaluated by opening each candidate in a fresh [`Session`] — the
//! same interpreter a replay uses — and handed to `reduce` as closures. `reduce [into
//! FILE] PREDICATE` in the debugger reduces the loaded kernel under the session's
//! options and writes the result for `load`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::json;

use crate::command::exec::{Output, Session};
use crate::command::parse::{Command, parse_line};
use crate::engine::RunOptions;
use crate::ir::Module;
use crate::reduce::predicate::{self, Parsed, Predicate};

/// Builds the predicate `text` names. `base` resolves a script's path; `ptxas` is the
/// `--ptxas` given, if any.
pub fn build(text: &str, base: &Path, ptxas: Option<&Path>) -> Result<Predicate, String> {
    match predicate::parse(text)? {
        Parsed::Builtin(p) => Ok(p),
        Parsed::DiffersFromPtxas(min_pct) => Ok(Predicate::DiffersFromPtxas {
            min_pct,
            ptxas: crate::reduce::ptxas::find(ptxas)?,
            keep: None,
            live: false,
        }),
        Parsed::Script(file) => script(&file, base),
        Parsed::Expect(cond) => expect(&cond),
    }
}

/// A fresh session on a candidate, with the run's options.
fn session_on(module: &Module, imported: bool, opts: &RunOptions) -> Session {
    let mut s = Session::new();
    s.opts = opts.clone();
    s.open(module.clone(), "<candidate>", imported);
    s
}

fn script(file: &str, base: &Path) -> Result<Predicate, String> {
    let p = Path::new(file);
    let path = if p.is_absolute() || p.exists() { p.to_path_buf() } else { base.join(p) };
    let text = std::fs::read_to_string(&path).map_err(|e| format!("script {file}: cannot read it: {e}"))?;
    // Syntax errors are the user's to fix before thousands of candidates run.
    for (i, line) in text.lines().enumerate() {
        if let Err(e) = parse_line(line) {
            let col = line[..e.start.min(line.len())].chars().count() + 1;
            return Err(format!("{file}:{}:{col}: {}", i + 1, e.render(line)));
        }
        if parse_line(line).is_ok_and(|cmds| cmds.iter().any(|c| matches!(c, Command::Load(_)))) {
            return Err(format!("{file}:{}: a reduction script runs on each candidate: it must not 'load'", i + 1));
        }
    }
    let name = file.to_string();
    let eval: predicate::External = Arc::new(move |m, imported, opts| {
        // A candidate with no function left shows nothing (and the commands need one).
        if m.functions.is_empty() {
            return Ok(false);
        }
        let mut s = session_on(m, imported, opts);
        Ok(crate::command::script::replay(&mut s, &name, &text, false).ok)
    });
    Ok(Predicate::External { label: format!("script {file}"), eval })
}

fn expect(cond: &str) -> Result<Predicate, String> {
    let line = format!("expect {cond}");
    let cmds = parse_line(&line).map_err(|e| {
        let kinds = predicate::BUILTINS.join(", ");
        format!("unknown predicate '{cond}' (built-ins: {kinds}; or an expect condition):\n{}", e.render(&line))
    })?;
    let e = match cmds.as_slice() {
        [Command::Expect(e)] => e.clone(),
        _ => return Err(format!("'{cond}' is not one expect condition")),
    };
    let eval: predicate::External = Arc::new(move |m, imported, opts| {
        if m.functions.is_empty() {
            return Ok(false);
        }
        let mut s = session_on(m, imported, opts);
        s.exec(&Command::Continue)?;
        // A condition that cannot be asked of this candidate (a vreg it no longer has)
        // does not hold for it.
        Ok(s.exec(&Command::Expect(e.clone())).is_ok_and(|o| !o.failed))
    });
    Ok(Predicate::External { label: format!("expect {cond}"), eval })
}

/// `reduce [into FILE] PREDICATE` in the debugger: reduces the loaded kernel with the
/// session's options and writes the result (default: `NAME.reduced.EXT` beside it).
pub fn exec(s: &mut Session, args: &str) -> Result<Output, String> {
    let d = s.dbg.as_ref().ok_or("no file loaded (use 'load FILE')")?;
    let (out, pred_text) = match args.trim().strip_prefix("into ") {
        Some(rest) => {
            let rest = rest.trim_start();
            let (f, p) = rest.split_once(char::is_whitespace).ok_or("usage: reduce [into FILE] PREDICATE")?;
            (Some(f.to_string()), p.trim().to_string())
        }
        None => (None, args.trim().to_string()),
    };
    let name = s.file.clone().unwrap_or_else(|| crate::demo::DEMO_NAME.to_string());
    let file_path = {
        let p = Path::new(&name);
        if p.is_absolute() || p.exists() { p.to_path_buf() } else { s.base.join(p) }
    };
    let (format, text) = match std::fs::read_to_string(&file_path) {
        Ok(t) => (crate::reduce::Format::detect(&name, &t), t),
        // The embedded demo (or a file gone since): its Ori IR as loaded.
        Err(_) if !d.opts.imported => (crate::reduce::Format::Ori, crate::ir::print::print_module(&d.loaded())),
        Err(e) => return Err(format!("cannot read {name} to reduce it: {e}")),
    };
    let pred = build(&pred_text, &s.base, None)?;
    let mut opts = d.opts.clone();
    opts.imported = format == crate::reduce::Format::Ptx;
    let mut cfg = crate::reduce::Config::new(opts);
    // The real ptxas, when installed, checks the width passes' candidates and the result.
    if format == crate::reduce::Format::Ptx {
        cfg.ptxas = crate::reduce::ptxas::find(None).ok();
    }
    let o = crate::reduce::reduce(format, &text, &pred, &cfg, &mut |_| {})?;
    let out = out.unwrap_or_else(|| default_output(&name));
    let path = if Path::new(&out).is_absolute() { PathBuf::from(&out) } else { s.base.join(&out) };
    std::fs::write(&path, &o.text).map_err(|e| format!("cannot write {out}: {e}"))?;
    // Only what does not depend on the thread count or the machine's speed, so
    // transcripts stay byte-identical.
    let mut text = format!(
        "reduced {name} to {} instructions from {}, keeping '{}'; wrote {out} ('load {out}' to debug it)",
        o.insts, o.start_insts, o.predicate
    );
    if let Some(note) = &o.ptxas_note {
        text.push_str(&format!("\nwarning: {note}"));
    }
    Ok(Output {
        text,
        json: json!({"reduced": name, "output": out, "predicate": o.predicate,
                     "start_instructions": o.start_insts, "instructions": o.insts}),
        failed: false,
    })
}

/// `dir/kernel.ptx` → `dir/kernel.reduced.ptx`.
pub fn default_output(name: &str) -> String {
    let p = Path::new(name);
    let stem = p.file_stem().map(|s| s.to_string_lossy().to_string()).unwrap_or_else(|| "kernel".into());
    let ext = p.extension().map(|e| e.to_string_lossy().to_string()).unwrap_or_else(|| "ori".into());
    let file = format!("{stem}.reduced.{ext}");
    match p.parent().filter(|d| !d.as_os_str().is_empty()) {
        Some(d) => d.join(file).display().to_string(),
        None => file,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A candidate the passes emptied of functions shows nothing — and asking it must
    /// not panic (the commands behind `expect` and scripts index the current function).
    #[test]
    fn a_candidate_without_functions_does_not_hold_and_does_not_panic() {
        let empty = Module::default();
        let dir = std::env::temp_dir().join(format!("radbg-reduce-empty-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        std::fs::write(dir.join("p.radbg"), "continue\nexpect %x == R1\n").expect("script");
        for pred in [expect("%x == R1"), script("p.radbg", &dir)] {
            let Ok(Predicate::External { eval, .. }) = pred else { panic!("an external predicate") };
            let got =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| eval(&empty, false, &RunOptions::default())));
            assert!(matches!(got, Ok(Ok(false))), "{got:?}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
