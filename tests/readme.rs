//! The README's "Using it" commands run as they are written, from a copy of a clone's
//! `sessions/` in a fresh directory with no `../shared` beside it (issue 27: the README
//! pointed at files a user's clone does not have). Only the first block runs; the
//! second lists what needs ptxas or the corpus.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn readme_commands() -> Vec<String> {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let start = readme.find("## Using it").expect("a Using it section");
    let block = readme[start..].split("```sh\n").nth(1).expect("a sh block").split("```").next().unwrap();
    block
        .lines()
        .map(|l| match l.find("  # ") {
            Some(i) => l[..i].trim().to_string(),
            None => l.trim().to_string(),
        })
        .filter(|l| !l.is_empty())
        .collect()
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &to.join(e.file_name()));
        } else {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

#[test]
fn readme_commands_run_from_a_fresh_clone() {
    let cmds = readme_commands();
    assert!(cmds.len() >= 10, "{cmds:?}");
    let dir: PathBuf = std::env::temp_dir().join(format!("radbg-readme-{}", std::process::id()));
    let clone = dir.join("clone");
    copy_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("sessions"), &clone.join("sessions"));
    assert!(!clone.join("../shared").exists());
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_radbg")).parent().unwrap();
    let path = format!("{}:{}", bin_dir.display(), std::env::var("PATH").unwrap_or_default());
    for c in &cmds {
        assert!(c.starts_with("radbg") || c.starts_with("printf"), "not a radbg command: {c}");
        // Without a terminal the TUI lines become the REPL; give it no input.
        let out = Command::new("sh")
            .arg("-c")
            .arg(c)
            .current_dir(&clone)
            .env("PATH", &path)
            .env("HOME", &dir)
            .env_remove("RADBG_CORPUS_CACHE")
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "`{c}` failed ({:?}): {err}", out.status.code());
        assert!(!err.contains("panicked") && !err.contains("error"), "`{c}`: {err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
