//! Every `sessions/*.radbg` replays to exactly its `.transcript` (byte for byte), and
//! replaying twice gives identical bytes. `UPDATE_EXPECT=1` rewrites the transcripts.

mod common;

use std::path::{Path, PathBuf};

use radbg::command::{Session, script};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The transcript of a session plus a last line with the replay's result.
fn replay(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    let mut s = Session::new();
    s.base = path.parent().unwrap().to_path_buf();
    let name = format!("sessions/{}", path.file_name().unwrap().to_string_lossy());
    let r = script::replay(&mut s, &name, &text, false);
    format!(
        "{}# result: {}\n",
        r.transcript,
        if r.ok { "ok".to_string() } else { format!("failed ({} problem(s))", r.failures.len()) }
    )
}

#[test]
fn sessions_replay_to_their_transcripts() {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(root().join("sessions"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "radbg"))
        .collect();
    paths.sort();
    assert!(paths.len() >= 10, "expected at least 10 sessions, found {}", paths.len());
    let mut problems = Vec::new();
    for p in &paths {
        let got = replay(p);
        let again = replay(p);
        assert_eq!(got, again, "{} does not replay deterministically", p.display());
        problems.extend(common::golden(&p.with_extension("transcript"), &got));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn json_lines_replay_is_valid_json() {
    let path = root().join("sessions/basics.radbg");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut s = Session::new();
    s.base = root().join("sessions");
    let r = script::replay(&mut s, "basics", &text, true);
    for line in r.transcript.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
        assert!(v.get("command").is_some() && v.get("output").is_some());
    }
}
