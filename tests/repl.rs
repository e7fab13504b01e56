//! The REPL and the top-level CLI as a script or CI job uses them: the real binary
//! with piped standard input (no prompt, no echo, deterministic output), `-x`,
//! `--json`, `--record` (the recording replays to the same state), completions, the
//! man page and `--help`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("radbg-repl-test-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

/// Runs the binary in the repository root with `input` on standard input.
fn radbg(args: &[&str], input: &str) -> (String, String, i32) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_radbg"))
        .args(args)
        .current_dir(root())
        .env("NO_COLOR", "1")
        .env("HOME", std::env::temp_dir())
        .env_remove("XDG_STATE_HOME")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("radbg runs");
    // A run that fails on its arguments exits before reading: a broken pipe is fine.
    let _ = child.stdin.take().unwrap().write_all(input.as_bytes());
    let out = child.wait_with_output().unwrap();
    (String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap(), out.status.code().unwrap_or(-1))
}

/// Piped commands: stdout, stderr and the exit status as expected.
fn check(args: &[&str], input: &str, stdout: &str, stderr: &str, code: i32) {
    let (o, e, c) = radbg(args, input);
    assert_eq!((o.as_str(), e.as_str(), c), (stdout, stderr, code), "radbg {args:?} <<< {input:?}");
}

#[test]
fn piped_commands_print_only_their_output() {
    check(
        &["sessions/demo.ori"],
        "step 2\nwhere\n",
        "#2 [liveness] [fir16] liveness R sweep 1: 2 block(s) changed\n\
         #2 [liveness] [fir16] liveness R sweep 1: 2 block(s) changed\n",
        "",
        0,
    );
    // Several commands on a line, and the demo kernel when no file is given.
    check(
        &[],
        "step; step; where # a comment\n\n",
        "#1 [cfg] [fir16] blocks rebuilt: 3 blocks, 1 loops, max depth 1\n\
         #2 [liveness] [fir16] liveness R sweep 1: 2 block(s) changed\n\
         #2 [liveness] [fir16] liveness R sweep 1: 2 block(s) changed\n",
        "",
        0,
    );
}

/// Piped commands behave like gdb reading standard input: an error names its line and
/// the session goes on; the exit status says whether any command failed.
/// `set stop-on-error on` stops at the first error instead.
#[test]
fn piped_errors_name_their_line_and_the_session_goes_on() {
    check(
        &["sessions/demo.ori"],
        "step\nstpe 3\nstep\nprint %nope\nwhere\n",
        "#1 [cfg] [fir16] blocks rebuilt: 3 blocks, 1 loops, max depth 1\n\
         #2 [liveness] [fir16] liveness R sweep 1: 2 block(s) changed\n\
         #2 [liveness] [fir16] liveness R sweep 1: 2 block(s) changed\n",
        "<stdin>:2:1: error: unknown command 'stpe'\n  stpe 3\n  ^^^^\n  = help: did you mean 'step'? (try 'help')\n\
         <stdin>:4: error: no vreg %nope in function fir16\n",
        1,
    );
    check(
        &["sessions/demo.ori"],
        "set stop-on-error on\nprint %nope\ngoto 1\n",
        "stop-on-error on\n",
        "<stdin>:2: error: no vreg %nope in function fir16\n",
        1,
    );
    // Every command succeeding: status 0.
    check(&["sessions/demo.ori"], "step\n", "#1 [cfg] [fir16] blocks rebuilt: 3 blocks, 1 loops, max depth 1\n", "", 0);
}

/// A reader that closes the pipe early ends radbg quietly with status 0, never a
/// panic (101): the REPL, and batch subcommands whose output is long.
#[test]
fn a_closed_stdout_pipe_ends_quietly() {
    use std::io::Read;
    use std::process::{Command, Stdio};
    let runs: &[(&[&str], &str)] = &[
        (&["--repl", "sessions/demo.ori"], "help bt\nhelp\nhelp\nhelp\nevents 1000\n"),
        (&["run", "sessions/demo.ori", "--events"], ""),
        (&["import", "sessions/ptx_saxpy_tile.ptx"], ""),
        (&["man"], ""),
        (&["completions", "bash"], ""),
        (&["completions", "zsh"], ""),
        (&["sweep", "sessions/why_stages.ptx", "--maxrregcount", "16..128"], ""),
        (&["check", "--live", "sessions/demo.ori"], ""),
        (&["-x", "sessions/basics.radbg", "sessions/demo.ori"], ""),
    ];
    for (args, input) in runs {
        for _ in 0..5 {
            let mut child = Command::new(env!("CARGO_BIN_EXE_radbg"))
                .args(*args)
                .current_dir(root())
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            {
                use std::io::Write;
                let mut stdin = child.stdin.take().unwrap();
                let _ = stdin.write_all(input.as_bytes());
            }
            // Read one chunk, as `head -c` would, then close the pipe.
            let mut stdout = child.stdout.take().unwrap();
            let mut buf = [0u8; 16];
            let _ = stdout.read(&mut buf);
            drop(stdout);
            let mut err = String::new();
            child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
            let status = child.wait().unwrap();
            assert_eq!(status.code(), Some(0), "radbg {args:?} after the reader left: {err}");
            assert!(!err.contains("panicked"), "radbg {args:?}: {err}");
        }
    }
}

#[test]
fn a_failed_expect_fails_the_run() {
    let (o, _, c) = radbg(&["sessions/demo.ori"], "goto 1000000\nexpect ok\nexpect fails\n");
    assert_eq!(c, 1);
    assert!(o.contains("ok: allocation succeeds") && o.contains("FAILED: expected allocation fails"), "{o}");
}

#[test]
fn output_is_deterministic() {
    let input =
        "break assign %x3\ncontinue\nprint %x3\nlive\nhist\nattempts\nreverse-step 3\nstate\ngoto 100000000\nstats\n";
    let a = radbg(&["sessions/demo.ori"], input);
    let b = radbg(&["sessions/demo.ori"], input);
    assert_eq!(a, b);
    assert_eq!(a.2, 0, "{}", a.1);
    assert!(a.0.contains("%x3 class R width 1") && a.0.contains("histograms of %x3"), "{}", a.0);
}

#[test]
fn json_lines() {
    let (o, e, c) = radbg(&["sessions/demo.ori", "--json"], "step\nbogus\n");
    assert_eq!(c, 1, "{e}");
    let lines: Vec<serde_json::Value> = o.lines().map(|l| serde_json::from_str(l).expect("a JSON line")).collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["command"], "step");
    assert_eq!(lines[0]["output"]["event"], 1);
    assert!(lines[1]["output"]["error"].as_str().unwrap().contains("unknown command 'bogus'"));
}

#[test]
fn recording_replays_to_the_same_state() {
    let rec = tmp("rec.radbg");
    let input = "set stop-on-error off\nbreak assign %x3 if attempt > 0\ncontinue\nbogus\nexpect %x3 == R99\nreverse-step 2\nnext\n";
    radbg(&["sessions/demo.ori", "--maxrregcount", "30", "--record", rec.to_str().unwrap()], input);
    let text = std::fs::read_to_string(&rec).unwrap();
    let body: Vec<&str> = text.lines().skip(1).collect();
    // The file is loaded by an absolute path (the recording lives elsewhere), the
    // option becomes a `set`, the error is left out and the failed expect commented.
    assert!(body[0].starts_with("load /") && body[0].ends_with("sessions/demo.ori"), "{text}");
    assert_eq!(
        &body[1..],
        [
            "set maxrregcount 30",
            "set stop-on-error off",
            "break assign %x3 if attempt > 0",
            "continue",
            "# (failed) expect %x3 == R99",
            "reverse-step 2",
            "next"
        ]
    );
    // Replaying the recording and asking where it is matches the live session.
    let live = radbg(&["sessions/demo.ori", "--maxrregcount", "30"], &format!("{input}where\n"));
    let where_live = live.0.lines().last().unwrap().to_string();
    let replay = Command::new(env!("CARGO_BIN_EXE_radbg")).arg("replay").arg(&rec).output().unwrap();
    assert!(replay.status.success(), "{}", String::from_utf8_lossy(&replay.stderr));
    let t = String::from_utf8(replay.stdout).unwrap();
    let last_event = t.lines().rev().find(|l| l.starts_with('#')).unwrap();
    assert_eq!(last_event, where_live);
}

#[test]
fn execute_a_session_on_the_demo_kernel() {
    let s = tmp("demo.radbg");
    std::fs::write(&s, "# no load: the demo kernel is open\nstep 1\nexpect cursor == 1\n").unwrap();
    let (o, e, c) = radbg(&["-x", s.to_str().unwrap()], "");
    assert_eq!(c, 0, "{e}");
    assert_eq!(
        o,
        "(radbg) step 1\n#1 [cfg] [fir16] blocks rebuilt: 3 blocks, 1 loops, max depth 1\n\
         (radbg) expect cursor == 1\nok: cursor == 1\n"
    );
}

#[test]
fn bad_files_and_options_are_reported() {
    let (_, e, c) = radbg(&["no/such/file.ori"], "");
    assert_eq!(c, 1);
    assert!(e.starts_with("radbg: cannot read no/such/file.ori"), "{e}");
    // A bad flag value is bad usage (status 2), named with the flag and the value.
    let (_, e, c) = radbg(&["sessions/demo.ori", "--knob", "NoSuchKnob=3"], "");
    assert_eq!(c, 2);
    assert!(e.contains("invalid value 'NoSuchKnob=3' for '--knob <NAME=VALUE>': unknown knob 'NoSuchKnob'"), "{e}");
    let empty = tmp("empty.ori");
    std::fs::write(&empty, ".target sm_90\n").unwrap();
    let (_, e, c) = radbg(&[empty.to_str().unwrap()], "ir\n");
    assert_eq!(
        (c, e.trim_end().ends_with("empty.ori: error: nothing to allocate: no function in the file")),
        (1, true),
        "{e}"
    );
    let (_, _, c) = radbg(&["sessions/demo.ori", "--record", "x", "-x", "y"], "");
    assert_eq!(c, 2, "--record and -x conflict");
}

#[test]
fn help_completions_and_man_page() {
    let (o, _, c) = radbg(&["--help"], "");
    assert_eq!(c, 0);
    for part in ["EXAMPLES:", "EXIT STATUS:", "--record <FILE>", "-x, --execute <SESSION>", "NO_COLOR"] {
        assert!(o.contains(part), "--help lacks {part}");
    }
    let (o, _, c) = radbg(&["completions", "bash"], "");
    assert_eq!(c, 0);
    assert!(o.contains("_radbg()") && o.contains("--maxrregcount"), "bash completion");
    let (o, _, c) = radbg(&["completions", "zsh"], "");
    assert_eq!(c, 0);
    assert!(o.contains("#compdef radbg"));
    let (o, _, c) = radbg(&["man"], "");
    assert_eq!(c, 0);
    assert!(o.contains(".TH radbg 1") && o.contains("EXIT STATUS"), "man page");
}

/// The REPL loop in-process: what the binary does with a pipe, without spawning it.
#[test]
fn piped_loop_in_process() {
    use radbg::ui::repl::{ReplOptions, piped};
    let mut s = radbg::command::Session::new();
    s.load(root().join("sessions/demo.ori").to_str().unwrap()).unwrap();
    let mut opts = ReplOptions { json: false, recorder: None, history: None, banner: None };
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let ok = piped(&mut s, &mut opts, &mut "step\nquit\nstep\n".as_bytes(), &mut out, &mut err).unwrap();
    assert!(ok);
    assert_eq!(String::from_utf8(out).unwrap(), "#1 [cfg] [fir16] blocks rebuilt: 3 blocks, 1 loops, max depth 1\n");
    assert!(s.quit);
}

/// `-x` keeps stopping at the first error (a script is a program, not a conversation);
/// `set stop-on-error off` in the script lets it go on. Piped input goes on by default.
#[test]
fn execute_stops_at_the_first_error_unless_told_otherwise() {
    let stops = tmp("stops.radbg");
    std::fs::write(&stops, "step\nstpe\nstep\n").unwrap();
    let (o, e, c) = radbg(&["-x", stops.to_str().unwrap(), "sessions/demo.ori"], "");
    assert_eq!(c, 1);
    assert!(o.contains("(radbg) stpe") && !o.contains("#2 [liveness]"), "stopped at line 2:\n{o}");
    assert!(e.contains("stops.radbg:2:1"), "{e}");
    let goes_on = tmp("goes_on.radbg");
    std::fs::write(&goes_on, "set stop-on-error off\nstep\nstpe\nstep\n").unwrap();
    let (o, _, c) = radbg(&["-x", goes_on.to_str().unwrap(), "sessions/demo.ori"], "");
    assert_eq!(c, 1, "an error still fails the replay");
    assert!(o.contains("#2 [liveness]"), "went on after the error:\n{o}");
}
