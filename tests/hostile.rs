//! Issue 28's hostile inputs, one test per finding: deep nesting in the PTX importer
//! (a stack overflow before), `[[…]]` addresses, register and memory limits, files that
//! are not regular or too large, output that grew with the square of a line's length,
//! and files a session must never clobber. Each test failed on the code before the fix.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use radbg::command::{Session, parse_line, script};
use radbg::ir::span::SourceFile;

const N: usize = 100_000;

fn ptx_kernel(body: &str) -> String {
    format!(
        ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 p)\n{{\n.reg .b32 %r<4>;\n.reg .b64 %rd<4>;\n.reg .pred %p<4>;\n{body}\nret;\n}}\n"
    )
}

/// Imports `text` as `hostile.ptx`; returns the first error rendered (`file:line:col`).
fn ptx_error(text: &str) -> Option<String> {
    let file = SourceFile::new("hostile.ptx", text);
    let imp = radbg::ir::ptx::import(&file);
    imp.diags.iter().find(|d| d.is_error()).map(|d| d.render(&file))
}

fn expect_ptx_error(what: &str, text: &str, expected: &str) {
    let r = ptx_error(text).unwrap_or_else(|| panic!("{what}: no error"));
    let first = r.lines().next().unwrap_or("");
    assert!(first.starts_with("hostile.ptx:"), "{what}: no file:line:col in {first}");
    let pos: Vec<&str> = first.splitn(4, ':').collect();
    assert!(pos[1].parse::<u32>().is_ok() && pos[2].parse::<u32>().is_ok(), "{what}: {first}");
    assert!(r.contains(expected), "{what}: expected {expected:?} in\n{r}");
    assert!(r.len() < 2000, "{what}: error output of {} bytes", r.len());
}

/// Every recursive form of the PTX grammar at 10^5 depth: an error at the place, never
/// a stack overflow (before: `[` and `!` aborted the process, exit 134).
#[test]
fn ptx_nesting_at_depth_100000_is_an_error_not_a_crash() {
    let cases: Vec<(&str, String, &str)> = vec![
        ("address brackets", ptx_kernel(&format!("ld.u32 %r1, {}", "[".repeat(N))), "addresses do not nest"),
        ("negations", ptx_kernel(&format!("mov.u32 %r1, {}1;", "!".repeat(N))), "less deeply nested"),
        ("scopes", ptx_kernel(&"{".repeat(N)), "less deeply nested"),
        (
            "parentheses",
            ptx_kernel(&format!("mov.u32 %r1, {}1{};", "(".repeat(N), ")".repeat(N))),
            "less deeply nested",
        ),
        ("unary minus", ptx_kernel(&format!("mov.u32 %r1, {}1;", "- ".repeat(N))), "less deeply nested"),
        ("vectors", ptx_kernel(&format!("mov.b32 {}", "{".repeat(N))), "expected"),
        ("pairs", ptx_kernel(&format!("setp.eq.s32 {}%p2, %r1, %r2;", "%p1|".repeat(N))), "expected"),
        ("call lists", ptx_kernel(&format!("call.uni ({}", "(".repeat(N))), "expected"),
        (
            "initializers",
            format!(".version 8.0\n.target sm_90\n.global .u32 g[1] = {};\n", "{".repeat(N)),
            "less deeply nested",
        ),
        ("negated vectors", ptx_kernel(&format!("mov.u32 %r1, {};", "!{".repeat(N))), "expected"),
        ("addresses in vectors", ptx_kernel(&format!("ld.u32 %r1, {};", "[{".repeat(N))), "expected"),
    ];
    for (what, text, expected) in &cases {
        expect_ptx_error(what, text, expected);
    }
}

/// `[[%rd1]]` was accepted as `[%rd1]`; ptxas rejects it.
#[test]
fn nested_address_brackets_are_rejected_as_ptxas_does() {
    expect_ptx_error("depth 2", &ptx_kernel("ld.global.u32 %r2, [[%rd1]];"), "addresses do not nest");
    let deep = format!("ld.global.u32 %r2, {}%rd1{};", "[".repeat(10), "]".repeat(10));
    expect_ptx_error("depth 10", &ptx_kernel(&deep), "addresses do not nest");
    assert_eq!(ptx_error(&ptx_kernel("ld.global.u32 %r2, [%rd1+4];")), None);
}

/// ptxas caps one declaration at 1,048,576 registers; the message said "4194304 per
/// function".
#[test]
fn registers_per_declaration_follow_ptxas() {
    expect_ptx_error(
        "1500000",
        &ptx_kernel(".reg .b32 %x<1500000>;"),
        "a register count of at most 1048576 (the limit per declaration)",
    );
    // At the limit it is accepted by the parser (lowering may still refuse the function).
    let at = ptx_error(&ptx_kernel(".reg .b32 %x<1048576>;")).unwrap_or_default();
    assert!(!at.contains("per declaration"), "{at}");
}

/// Eight functions of a million registers each ran 102 s and aborted out of memory;
/// now the module-wide limit stops them at the declaration that crosses it, at once.
#[test]
fn registers_per_module_are_refused_before_allocation() {
    let start = Instant::now();
    let ptx: String =
        (0..8).map(|k| format!(".visible .entry k{k}()\n{{\n.reg .b32 %r<1000000>;\nret;\n}}\n")).collect::<String>();
    let text = format!(".version 8.0\n.target sm_90\n.address_size 64\n{ptx}");
    expect_ptx_error("ptx", &text, "more than 4194304 registers, the limit per module");
    let ori: String = (0..8).map(|k| format!(".entry k{k} {{\n  .reg .R %r<1000000>\nBB0:\n  EXIT\n}}\n")).collect();
    let file = SourceFile::new("big.ori", format!(".target sm_90\n{ori}"));
    let (_, _, diags) = radbg::ir::parse::parse_module(&file);
    let e = diags.iter().find(|d| d.is_error()).expect("an error");
    assert!(e.message.contains("more than 4194304 registers, the limit per module"), "{}", e.message);
    assert!(e.render(&file).starts_with("big.ori:"), "{}", e.render(&file));
    // Generous for a debug build on a loaded machine; before, minutes and an abort.
    assert!(start.elapsed() < Duration::from_secs(60), "took {:?}", start.elapsed());
}

// ---------------------------------------------------------------------------------
// The binary: limits from the environment, files that are not regular.

fn radbg() -> Command {
    Command::new(env!("CARGO_BIN_EXE_radbg"))
}

/// A run that ended by a signal (a stack overflow's SIGABRT, SIGSEGV), with 134 (an
/// abort through a shell) or 101 (a panic) crashed; 0, 1 and 2 are clean answers.
fn assert_clean_exit(what: &str, out: &Output) {
    use std::os::unix::process::ExitStatusExt;
    if let Some(sig) = out.status.signal() {
        panic!("{what}: killed by signal {sig}\n{}", String::from_utf8_lossy(&out.stderr));
    }
    let code = out.status.code().unwrap_or(-1);
    assert!(matches!(code, 0..=2), "{what}: crashed with exit {code}\n{}", String::from_utf8_lossy(&out.stderr));
}

/// Runs `cmd`, killing it after `secs` (a FIFO used to block forever). Output is
/// drained by threads, so a long transcript cannot fill the pipe and stall the child.
fn run_for(mut cmd: Command, secs: u64) -> Output {
    use std::io::Read;
    let mut child = cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("spawn");
    let drain = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut v = Vec::new();
            let _ = r.read_to_end(&mut v);
            v
        })
    };
    let out = drain(Box::new(child.stdout.take().expect("stdout")));
    let err = drain(Box::new(child.stderr.take().expect("stderr")));
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("wait") {
            return Output { status, stdout: out.join().unwrap(), stderr: err.join().unwrap() };
        }
        if start.elapsed() > Duration::from_secs(secs) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("still running after {secs} s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("radbg-hostile-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn fifos_and_devices_are_refused_and_stdin_needs_a_dash() {
    let dir = temp_dir("fifo");
    let fifo = dir.join("k.ori");
    let made = Command::new("mkfifo").arg(&fifo).status();
    if made.is_ok_and(|s| s.success()) {
        for sub in [&["check"][..], &["run"], &["import"]] {
            let mut c = radbg();
            c.args(sub).arg(&fifo);
            let out = run_for(c, 30);
            assert_clean_exit("fifo", &out);
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(err.contains("a FIFO, not a regular file"), "{sub:?}: {err}");
        }
    }
    let mut c = radbg();
    c.args(["check", "/dev/zero"]);
    let out = run_for(c, 30);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/dev/zero: a device, not a regular file"));
    let mut c = radbg();
    c.args(["check", "/dev/urandom"]);
    assert!(String::from_utf8_lossy(&run_for(c, 30).stderr).contains("a device"));
    // `-` still reads standard input.
    let mut child = radbg()
        .args(["check", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(radbg::demo::DEMO.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn file_size_register_and_memory_limits_come_from_the_environment() {
    let dir = temp_dir("env");
    let k = dir.join("k.ori");
    std::fs::write(&k, radbg::demo::DEMO).unwrap();
    let out = radbg().args(["check"]).arg(&k).env("RADBG_MAX_FILE_BYTES", "100").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("larger than the limit of 100 bytes (set RADBG_MAX_FILE_BYTES=BYTES to raise it)"), "{err}");
    let out = radbg().args(["check"]).arg(&k).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let big = dir.join("big.ori");
    std::fs::write(&big, ".target sm_90\n.entry k {\n  .reg .R %r<5000>\nBB0:\n  EXIT\n}\n").unwrap();
    let out = radbg().args(["check"]).arg(&big).env("RADBG_MAX_REGISTERS", "4096").output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("more than 4096 registers, the limit per module (set RADBG_MAX_REGISTERS=N"), "{err}");
    let out = radbg().args(["check"]).arg(&big).env("RADBG_MAX_MEMORY", "1M").output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("of memory, over the budget of 1 MiB (set RADBG_MAX_MEMORY=BYTES"), "{err}");
    let ptx = dir.join("big.ptx");
    std::fs::write(&ptx, ptx_kernel(".reg .b32 %x<5000>;")).unwrap();
    let out = radbg().args(["import"]).arg(&ptx).env("RADBG_MAX_MEMORY", "1M").output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("big.ptx:9:11: error: 5012 registers need about") && err.contains("over the budget of 1 MiB"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

// ---------------------------------------------------------------------------------
// Bounded output in scripts.

fn demo_session() -> Session {
    let mut s = Session::new();
    s.base = Path::new(env!("CARGO_MANIFEST_DIR")).join("sessions");
    s.load("demo.ori").unwrap();
    s
}

/// A 20 KB line of `step;` printed 80 MB: the whole line was echoed per command.
#[test]
fn a_semicolon_list_echoes_each_command_not_the_line() {
    let line = "step;".repeat(4_000);
    let mut s = demo_session();
    let r = script::replay(&mut s, "long.radbg", &line, false);
    assert!(r.transcript.len() < 2_000_000, "{} bytes", r.transcript.len());
    let echoes = r.transcript.lines().filter(|l| *l == "(radbg) step").count();
    assert_eq!(echoes, 4_000);
    // Small lists too: each command on its own echo line.
    let mut s = demo_session();
    let r = script::replay(&mut s, "two.radbg", "step ; where\n", false);
    assert!(r.transcript.starts_with("(radbg) step\n"), "{}", r.transcript);
    assert!(r.transcript.contains("\n(radbg) where\n"), "{}", r.transcript);
}

/// Each error on a 100,000-character line echoed the line several times (300–600 KB).
#[test]
fn errors_on_long_lines_are_cut_with_the_column_in_view() {
    let line = format!("echo {}; frobnicate", "a".repeat(N));
    let mut s = demo_session();
    let r = script::replay(&mut s, "long.radbg", &line, false);
    assert!(r.transcript.len() < 2_000, "{} bytes:\n{}", r.transcript.len(), &r.transcript[..2000]);
    assert!(r.transcript.contains("long.radbg:1:100008: error: unknown command 'frobnicate'"), "{}", r.transcript);
    // The caret sits under the 'f' of the shown, cut line.
    let lines: Vec<&str> = r.transcript.lines().collect();
    let k = lines.iter().position(|l| l.contains('…') && l.contains("frobnicate")).expect("the cut line");
    let caret = lines[k + 1].chars().position(|c| c == '^').expect("a caret");
    assert_eq!(lines[k].chars().nth(caret), Some('f'), "{}\n{}", lines[k], lines[k + 1]);
    // Errors from commands that quote a long word, and a long unknown command.
    for line in [format!("print %{}", "x".repeat(N)), "z".repeat(N), format!("step {}", "9".repeat(N))] {
        let mut s = demo_session();
        let r = script::replay(&mut s, "long.radbg", &line, false);
        assert!(r.transcript.len() < 2_000, "{} bytes", r.transcript.len());
        let r = script::replay(&mut s, "long.radbg", &line, true);
        assert!(r.transcript.len() < 2_000, "json: {} bytes", r.transcript.len());
    }
}

// ---------------------------------------------------------------------------------
// Files a session must not clobber.

#[test]
fn record_appends_and_never_writes_onto_the_kernel() {
    let dir = temp_dir("record");
    let k = dir.join("k.ori");
    std::fs::write(&k, radbg::demo::DEMO).unwrap();
    let rec = dir.join("bug.radbg");
    std::fs::write(&rec, "# mine\n").unwrap();
    let run = |record: &Path| {
        let mut child = radbg()
            .arg(&k)
            .args(["--repl", "--record"])
            .arg(record)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        use std::io::Write;
        // A refused session exits before reading its input: the pipe may be closed
        // already (EPIPE), which is not this test's failure.
        let _ = child.stdin.take().unwrap().write_all(b"step\n");
        child.wait_with_output().unwrap()
    };
    let out = run(&rec);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(&rec).unwrap();
    assert!(text.starts_with("# mine\n"), "--record truncated the file:\n{text}");
    assert!(text.ends_with("step\n"), "{text}");
    // Onto the kernel being debugged: refused, the kernel intact.
    let out = run(&k);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is an input of this session"));
    assert_eq!(std::fs::read_to_string(&k).unwrap(), radbg::demo::DEMO);
    // Through a symlink onto it: refused too.
    let link = dir.join("link.radbg");
    std::os::unix::fs::symlink(&k, &link).unwrap();
    let out = run(&link);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(std::fs::read_to_string(&k).unwrap(), radbg::demo::DEMO);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn export_json_refuses_to_overwrite_unless_told() {
    let dir = temp_dir("export");
    let out = dir.join("out.json");
    std::fs::write(&out, "precious").unwrap();
    let mut s = demo_session();
    s.base = dir.clone();
    s.load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("sessions/demo.ori").display().to_string()).unwrap();
    let cmd = |line: &str| parse_line(line).unwrap().remove(0);
    let e = s.exec(&cmd("export json out.json stats")).unwrap_err();
    assert!(e.contains("out.json exists; 'export json! out.json' overwrites it"), "{e}");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "precious");
    // A symlink is an existing file too.
    let link = dir.join("link.json");
    std::os::unix::fs::symlink(&out, &link).unwrap();
    assert!(s.exec(&cmd("export json link.json stats")).is_err());
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "precious");
    s.exec(&cmd("export json! out.json stats")).unwrap();
    assert!(std::fs::read_to_string(&out).unwrap().starts_with('{'));
    s.exec(&cmd("export json fresh.json stats")).unwrap();
    assert!(dir.join("fresh.json").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_failed_load_shows_at_most_one_line_of_the_file() {
    let dir = temp_dir("load");
    let bad = dir.join("secret.ori");
    let body: String = (0..50).map(|k| format!("SECRET{k} {}\n", "s".repeat(1000))).collect();
    std::fs::write(&bad, &body).unwrap();
    let mut s = Session::new();
    s.base = dir.clone();
    let e = s.load("secret.ori").unwrap_err();
    assert!(e.contains("SECRET0") && !e.contains("SECRET1"), "{e}");
    assert_eq!(e.lines().filter(|l| l.contains(" | ")).count(), 2, "one line and its caret: {e}");
    assert!(e.len() < 1_000, "{} bytes: {e}", e.len());
    assert!(
        e.contains("secret.ori:1:1: error") && e.contains("errors ('radbg check secret.ori' lists them all)"),
        "{e}"
    );
    // Not a kernel: not read at all.
    let e = s.load("/proc/self/environ").unwrap_err();
    assert_eq!(e, "cannot load /proc/self/environ: not an Ori IR (.ori) or PTX (.ptx) file");
    std::fs::write(dir.join("notes.txt"), "SECRET\n").unwrap();
    assert!(!s.load("notes.txt").unwrap_err().contains("SECRET"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The crash corpus through the binary, counting a signal or an abort as a crash (the
/// in-process drivers replay it too, but a stack overflow kills them without a name).
#[test]
fn the_crash_corpus_runs_clean_through_the_binary() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz_crashes");
    let mut n = 0;
    for (sub, args) in [("ori", &["check"][..]), ("ptx", &["import"]), ("radbg", &["-x"])] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(root.join(sub)).unwrap().map(|e| e.unwrap().path()).collect();
        files.sort();
        for f in files {
            let mut c = radbg();
            c.args(args).arg(&f);
            let out = run_for(c, 120);
            assert_clean_exit(&f.display().to_string(), &out);
            assert!(out.stdout.len() + out.stderr.len() < 4 << 20, "{}: output too long", f.display());
            n += 1;
        }
    }
    assert!(n >= 6, "the crash corpus is missing ({n} files)");
}
