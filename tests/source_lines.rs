//! CUDA source lines (issue 27): `list` finds the `.file` a PTX names beside the PTX or
//! under `--source-dir`, and without it shows the same table by line number; PTX with no
//! `.loc` says how to get lines.

use std::io::Write;
use std::process::{Command, Stdio};

fn repl(args: &[&str], input: &str) -> (i32, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_radbg"))
        .args(args)
        .arg("--repl")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let o = child.wait_with_output().unwrap();
    (o.status.code().unwrap_or(-1), String::from_utf8_lossy(&o.stdout).into_owned())
}

#[test]
fn list_finds_the_cuda_file_beside_the_ptx_or_under_source_dir() {
    let dir = std::env::temp_dir().join(format!("radbg-source-lines-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let ptx = dir.join("hotspot.ptx");
    std::fs::copy(concat!(env!("CARGO_MANIFEST_DIR"), "/sessions/hotspot.ptx"), &ptx).unwrap();
    let p = ptx.to_str().unwrap();

    let (code, out) = repl(&[p, "--maxrregcount", "10", "--disable-stage", "floor"], "continue\nlist\n");
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("hotspot.cu: not found (looked for hotspot.cu)"), "{out}");
    assert!(out.contains("--source-dir DIR"), "{out}");
    assert!(out.contains("    10     6  S2     (code)"), "the table by line number: {out}");

    let (code, out) =
        repl(&[p, "--maxrregcount", "10", "--disable-stage", "floor", "--source-dir", "sessions"], "continue\nlist\n");
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("hotspot.cu (sessions/hotspot.cu)"), "{out}");
    assert!(out.contains("    10     6  S2         float a = p[0], b = p[1], c = p[2];"), "{out}");
    assert!(out.contains("keeps alive at the peak: %rd4 %rd5"), "{out}");

    std::fs::copy(concat!(env!("CARGO_MANIFEST_DIR"), "/sessions/hotspot.cu"), dir.join("hotspot.cu")).unwrap();
    let (_, out) = repl(&[p], "list 15\n");
    assert!(
        out.contains("hotspot.cu (/") && out.contains("out[x] = mix(edge, side) + e;"),
        "found beside the PTX: {out}"
    );
    let _ = std::fs::remove_dir_all(&dir);

    let (_, out) = repl(&["sessions/why_stages.ptx"], "list\n");
    assert!(out.contains("no CUDA source lines: the PTX has no .loc (compile with -lineinfo)"), "{out}");
}
