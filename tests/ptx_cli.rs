//! `radbg import`: Ori IR on stdout that re-parses, diagnostics on stderr, exit
//! status 1 on errors, `-` for standard input, `--output` to a file.

use std::io::Write;
use std::process::{Command, Stdio};

fn radbg(args: &[&str], stdin: Option<&str>) -> (i32, String, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_radbg"));
    cmd.args(args).stdout(Stdio::piped()).stderr(Stdio::piped()).stdin(Stdio::piped());
    let mut child = cmd.spawn().expect("radbg runs");
    if let Some(text) = stdin {
        child.stdin.take().expect("stdin").write_all(text.as_bytes()).expect("writes");
    }
    drop(child.stdin.take());
    let out = child.wait_with_output().expect("finishes");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn file(name: &str) -> String {
    format!("{}/tests/ptx/{name}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn import_prints_ori_ir_that_reparses() {
    let (code, out, err) = radbg(&["import", &file("basic.ptx")], None);
    assert_eq!(code, 0, "stderr: {err}");
    assert!(err.is_empty(), "no diagnostics expected: {err}");
    assert!(out.starts_with(".target sm_90\n"), "{out}");
    radbg::ir::parse::parse_named("printed.ori", &out).expect("the printed IR parses and validates");
}

#[test]
fn import_reports_errors_and_fails() {
    let (code, out, err) = radbg(&["import", &file("bad_names.ptx")], None);
    assert_eq!(code, 1);
    assert!(out.is_empty());
    assert!(err.contains("bad_names.ptx:14:16: error: undeclared register %r9"), "{err}");
    assert!(err.contains("6 errors"), "{err}");
}

#[test]
fn import_warns_on_stderr_and_succeeds() {
    let (code, out, err) = radbg(&["import", &file("unknown_op.ptx")], None);
    assert_eq!(code, 0);
    assert!(out.contains("FROBNICATE"), "{out}");
    assert!(err.contains("warning: unknown PTX instruction 'frobnicate'"), "{err}");
}

#[test]
fn import_reads_stdin_and_writes_files() {
    let text = std::fs::read_to_string(file("reg_params.ptx")).expect("test file");
    let (code, out, err) = radbg(&["import", "-"], Some(&text));
    assert_eq!(code, 0, "{err}");
    assert!(out.contains(".func answer {"), "{out}");
    let dir = std::env::temp_dir().join(format!("radbg-ptx-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let target = dir.join("out.ori");
    let (code, out2, _) = radbg(&["import", &file("reg_params.ptx"), "--output", target.to_str().unwrap_or("")], None);
    assert_eq!(code, 0);
    assert!(out2.is_empty());
    assert_eq!(std::fs::read_to_string(&target).expect("written"), out);
    let _ = std::fs::remove_dir_all(&dir);
}
