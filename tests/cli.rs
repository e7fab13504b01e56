//! The `radbg` binary: exit codes, where output goes, and the subcommands.

use std::process::{Command, Output, Stdio};

fn radbg(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_radbg")).args(args).output().expect("run radbg")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn temp(name: &str, contents: &[u8]) -> String {
    let dir = std::env::temp_dir().join(format!("radbg-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, contents).unwrap();
    path.display().to_string()
}

#[test]
fn check_sessions_is_clean() {
    let mut paths: Vec<String> = std::fs::read_dir("sessions")
        .unwrap()
        .map(|e| e.unwrap().path().display().to_string())
        .filter(|p| p.ends_with(".ori"))
        .collect();
    paths.sort();
    let args: Vec<&str> = ["check", "--no-abi"].into_iter().chain(paths.iter().map(String::as_str)).collect();
    let out = radbg(&args);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stderr), "");
    assert_eq!(text(&out.stdout), "");
}

#[test]
fn check_prints_the_abi_check_list_and_liveness() {
    let out = radbg(&["check", "--live", "sessions/abi_7004.ori"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("7004 0x1B5C  FAIL"), "{stdout}");
    assert!(stdout.contains("Return Address 8 overlaps with parameters in range 4 - 15"), "{stdout}");
    assert!(stdout.contains("live-out"), "{stdout}");
}

#[test]
fn check_reports_errors_on_stderr_and_fails() {
    let out = radbg(&["check", "sessions/saxpy.ori", "tests/diag/undeclared.ori"]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains("tests/diag/undeclared.ori:7:15: error: undeclared register %r99"), "{err}");
    assert!(err.contains("tests/diag/undeclared.ori: 4 errors"), "{err}");
    assert_eq!(text(&out.stdout), "");
}

#[test]
fn warnings_alone_pass() {
    let path = temp("warn.ori", b".target sm_90\n.entry k {\nBB0:\n  FROB\n  EXIT\n}\n");
    let out = radbg(&["check", &path]);
    assert!(out.status.success());
    assert!(text(&out.stderr).contains("warning: unknown mnemonic FROB"));
}

#[test]
fn bad_bytes_and_missing_files_fail_with_a_position_or_reason() {
    let path = temp("bad.ori", b".target sm_90\n\xff\n");
    let out = radbg(&["check", &path]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains(":2:1: error: invalid UTF-8"), "{}", text(&out.stderr));
    let out = radbg(&["check", "no/such/file.ori"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).starts_with("radbg: cannot read no/such/file.ori"));
}

#[test]
fn no_argument_debugs_the_embedded_demo_and_a_file_argument_debugs_the_file() {
    use std::io::Write;
    let run_piped = |args: &[&str], input: &str| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_radbg"))
            .args(args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let _ = child.stdin.take().unwrap().write_all(input.as_bytes()); // it may exit before reading
        child.wait_with_output().unwrap()
    };
    // Without a terminal radbg reads commands from standard input (the REPL).
    let out = run_piped(&[], "continue\nstats\n");
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("Compiling entry function 'fir16'"), "{}", text(&out.stdout));
    assert!(text(&out.stdout).contains("Registers are spilled"), "{}", text(&out.stdout));
    let out = run_piped(&["sessions/saxpy.ori"], "continue\nstats\n");
    assert!(out.status.success());
    assert!(text(&out.stdout).contains("Compiling entry function 'saxpy'"), "{}", text(&out.stdout));
    // `check` stays silent on a clean file.
    let out = radbg(&["check", "sessions/saxpy.ori"]);
    assert!(out.status.success());
    assert_eq!(text(&out.stdout), "");
}

#[test]
fn fmt_prints_the_canonical_form_and_check_compares() {
    let out = radbg(&["fmt", "sessions/saxpy.ori"]);
    assert!(out.status.success());
    let canonical = text(&out.stdout);
    assert!(canonical.contains("  [0] %r0 = S2R SR_TID.X\n"), "{canonical}");
    let src = std::fs::read_to_string("sessions/saxpy.ori").unwrap();
    let m = radbg::ir::parse::parse_str(&src).unwrap();
    assert_eq!(canonical, radbg::ir::print::print_module(&m));
    let path = temp("canon.ori", canonical.as_bytes());
    assert!(radbg(&["fmt", "--check", &path]).status.success());
    let out = radbg(&["fmt", "--check", "sessions/saxpy.ori"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("not in canonical form"));
    let out = radbg(&["fmt", "tests/diag/syntax_errors.ori"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(text(&out.stdout), "");
}

#[test]
fn standard_input() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_radbg"))
        .args(["fmt", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(b".target sm_80\n.entry k {\nBB0:\n EXIT\n}\n").unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(text(&out.stdout), ".target sm_80\n\n.entry k {\nBB0:\n  [0] EXIT\n}\n");
}

#[test]
fn help_lists_the_subcommands() {
    let out = radbg(&["--help"]);
    let help = text(&out.stdout);
    assert!(help.contains("check") && help.contains("fmt"), "{help}");
}

/// `check` and `run` take PTX by extension or by content (issue 27: `check k.ptx`
/// parsed it as Ori IR), and refuse a file with nothing to allocate, naming it.
#[test]
fn check_and_run_take_ptx_by_extension_or_content_and_refuse_empty_files() {
    let ptx = std::fs::read("sessions/ptx_saxpy_tile.ptx").unwrap();
    for path in ["sessions/ptx_saxpy_tile.ptx".to_string(), temp("saxpy.txt", &ptx), temp("saxpy", &ptx)] {
        for cmd in ["check", "run"] {
            let out = radbg(&[cmd, &path]);
            assert!(out.status.success(), "radbg {cmd} {path}: {}", text(&out.stderr));
            assert!(!text(&out.stderr).contains("unknown directive"), "{}", text(&out.stderr));
        }
    }
    let cases = [
        ("empty.ori", &b""[..], "empty.ori: error: nothing to allocate: no function in the file"),
        ("empty.ptx", &b""[..], "empty.ptx:1:1: error:"),
        ("decls.ptx", &b".version 8.0\n.target sm_80\n.address_size 64\n"[..], "decls.ptx: error: nothing to allocate"),
        ("decls.ori", &b".target sm_90\n"[..], "decls.ori: error: nothing to allocate"),
    ];
    for (name, body, want) in cases {
        let path = temp(name, body);
        for cmd in ["check", "run"] {
            let out = radbg(&[cmd, &path]);
            assert_eq!(out.status.code(), Some(1), "radbg {cmd} {name}");
            assert!(text(&out.stderr).contains(want), "radbg {cmd} {name}: {}", text(&out.stderr));
        }
    }
}

/// `run --json`: one JSON object with each function's figures, the attempt lines and
/// the same text lines; `run --help` says FILE may be PTX.
#[test]
fn run_json_and_help() {
    let out = radbg(&["run", "--json", "sessions/demo.ori"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    assert_eq!(v["ok"], true);
    assert_eq!(v["functions"][0]["name"], "fir16");
    assert!(v["functions"][0]["registers"].as_u64().unwrap() > 0);
    assert_eq!(v["attempts"][0]["class"], "R");
    let plain = text(&radbg(&["run", "sessions/demo.ori"]).stdout);
    let lines: Vec<&str> = v["lines"].as_array().unwrap().iter().map(|l| l.as_str().unwrap()).collect();
    assert_eq!(lines.join("\n") + "\n", plain, "--json carries the same lines");
    let help = text(&radbg(&["run", "--help"]).stdout);
    assert!(help.contains("Ori IR (.ori) or PTX"), "{help}");
}

/// An error from a file's diagnostics keeps one prefix in the REPL:
/// `<stdin>:1: bad.ptx:5:11: error: …`, never `error: bad.ptx:5:11: error: …`.
#[test]
fn load_errors_have_one_prefix() {
    let bad = temp(
        "bad.ptx",
        b".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k() {\n  mov.u32 %r1, 1;\n}\n",
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_radbg"))
        .args(["--repl", "sessions/demo.ori"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        writeln!(stdin, "load {bad}").unwrap();
    }
    let out = child.wait_with_output().unwrap();
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert!(err.starts_with(&format!("<stdin>:1: {bad}:5:11: error: undeclared name %r1")), "{err}");
    assert!(!err.contains("error: error:") && !err.contains(": error: /"), "{err}");
    // The same in a replayed session.
    let session = temp("load_bad.radbg", format!("load {bad}\n").as_bytes());
    let out = radbg(&["-x", &session]);
    let all = text(&out.stdout) + &text(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert!(all.contains(&format!("load_bad.radbg:1: {bad}:5:11: error: undeclared name %r1")), "{all}");
}
