//! End to end, as a person at a terminal: the real binary in a tmux pane (its own tmux
//! server, 120×40), driven with send-keys and read with capture-pane. Opens
//! sessions/demo.ori, sets a breakpoint on %x3's assignment from the command line,
//! continues, checks the panes show %x3, reverse-steps, changes knob 684, diffs the
//! attempts and the runs, quits, and checks the terminal was left sane (main screen
//! back, canonical mode and echo on). Skips with a message when tmux is absent.

use std::path::PathBuf;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

struct Tmux {
    socket: String,
    dir: PathBuf,
}

impl Tmux {
    fn run(&self, args: &[&str]) -> Output {
        Command::new("tmux").arg("-L").arg(&self.socket).arg("-f").arg("/dev/null").args(args).output().expect("tmux")
    }

    fn keys(&self, keys: &[&str]) {
        let mut a = vec!["send-keys", "-t", "e2e"];
        a.extend_from_slice(keys);
        assert!(self.run(&a).status.success());
    }

    /// Types text literally (no key-name interpretation).
    fn text(&self, t: &str) {
        assert!(self.run(&["send-keys", "-t", "e2e", "-l", t]).status.success());
    }

    fn screen(&self) -> String {
        String::from_utf8_lossy(&self.run(&["capture-pane", "-t", "e2e", "-p"]).stdout).to_string()
    }

    /// Waits until the screen shows all of `parts`; panics with the screen otherwise.
    fn wait_for(&self, parts: &[&str]) -> String {
        self.wait_until(&format!("{parts:?}"), |s| parts.iter().all(|p| s.contains(p)))
    }

    fn wait_until(&self, what: &str, ok: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let s = self.screen();
            if ok(&s) {
                return s;
            }
            if start.elapsed() > Duration::from_secs(20) {
                panic!("timed out waiting for {what}; the screen:\n{s}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Types a command on the TUI's command line; Enter runs it and closes the line.
    fn command(&self, line: &str) {
        self.keys(&[":"]);
        self.text(line);
        self.keys(&["Enter"]);
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.run(&["kill-server"]);
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[test]
fn drive_the_tui_in_tmux() {
    if Command::new("tmux").arg("-V").output().map(|o| !o.status.success()).unwrap_or(true) {
        eprintln!("skipping the tmux end-to-end test: tmux is not installed (.ci/run installs it)");
        return;
    }
    let dir = std::env::temp_dir().join(format!("radbg-e2e-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let t = Tmux { socket: format!("radbg-e2e-{}", std::process::id()), dir: dir.clone() };
    let stty = dir.join("stty.txt");
    let script = format!(
        "cd '{root}' && HOME='{d}' XDG_STATE_HOME='{d}' '{bin}' sessions/demo.ori; echo RADBG_EXIT=$?; stty -a > '{stty}'; sleep 60",
        root = env!("CARGO_MANIFEST_DIR"),
        d = dir.display(),
        bin = env!("CARGO_BIN_EXE_radbg"),
        stty = stty.display()
    );
    let out = t.run(&["new-session", "-d", "-s", "e2e", "-x", "120", "-y", "40", "sh", "-c", &script]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // Esc is delivered at once (tmux otherwise waits to see if a sequence follows).
    t.run(&["set", "-s", "escape-time", "0"]);
    t.wait_for(&["radbg │ fir16", "1 IR", "? help"]);

    t.command("break assign %x3");
    t.wait_for(&["breakpoint 1: assign %x3"]);
    t.keys(&["c"]);
    let s = t.wait_for(&["breakpoint 1 (assign %x3)", "event 83"]);
    assert!(s.contains("%x3→R24"), "the IR pane shows the assignment:\n{s}");
    assert!(s.contains("4 Histogram · %x3 → R24"), "the histogram is %x3's:\n{s}");
    assert!(s.contains("3 Constraints") && s.contains("· %x3"), "the constraints are %x3's:\n{s}");
    assert!(s.contains("class R │ attempt 0 NOSPILL"), "the status bar has class and attempt:\n{s}");

    t.keys(&["S"]);
    t.wait_for(&["event 82", "assign %x2"]);

    t.command("set knob 684=10");
    t.wait_for(&["knob RegAllocThresholdForDiscardConflicts=10: re-ran from stage"]);

    t.keys(&[">"]);
    t.wait_for(&["event", "(end)"]);
    t.command("diff attempts R 0 1");
    t.wait_for(&["--- attempt 0"]);
    // The whole diff in the zoomed log, from its top.
    t.keys(&["8", "z", "g"]);
    let s = t.wait_for(&["8 Log", "[zoom: z]", "(radbg) diff attempts R 0 1", "--- attempt 0", "+++ attempt 1", "@@"]);
    assert!(s.contains("-used 33 target 32 over budget") && s.contains("+used"), "{s}");
    t.keys(&["z", "1"]);
    // The knob did or did not change the final result; either way the diff says so.
    t.command("diff runs");
    t.wait_until("the diff of the runs", |s| {
        s.contains("│(radbg) diff runs") && (s.contains("(identical)") || s.contains("--- before"))
    });

    t.keys(&["q"]);
    let s = t.wait_for(&["RADBG_EXIT=0"]);
    assert!(!s.contains("? help"), "the alternate screen is gone after quitting:\n{s}");
    let start = Instant::now();
    while !stty.exists() && start.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(100));
    // The command line's history went to $XDG_STATE_HOME/radbg/history (rustyline's format).
    let history = std::fs::read_to_string(dir.join("radbg/history")).unwrap_or_default();
    assert!(history.starts_with("#V2") && history.contains("break assign %x3\n"), "{history}");
    let modes = std::fs::read_to_string(&stty).expect("stty ran after radbg");
    let words: Vec<&str> = modes.split_whitespace().collect();
    for m in ["icanon", "echo", "isig"] {
        assert!(words.contains(&m), "terminal left without {m}: {modes}");
    }
}

/// SIGTERM while the TUI runs: it restores the terminal and exits with 143.
#[test]
fn sigterm_restores_the_terminal() {
    if Command::new("tmux").arg("-V").output().map(|o| !o.status.success()).unwrap_or(true) {
        eprintln!("skipping the tmux SIGTERM test: tmux is not installed");
        return;
    }
    let dir = std::env::temp_dir().join(format!("radbg-e2e-term-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let t = Tmux { socket: format!("radbg-e2e-term-{}", std::process::id()), dir: dir.clone() };
    let pid = dir.join("pid");
    let stty = dir.join("stty.txt");
    let script = format!(
        "cd '{root}' && HOME='{d}' sh -c 'echo $$ > \"{pid}\"; exec \"{bin}\"'; echo RADBG_EXIT=$?; stty -a > '{stty}'; sleep 60",
        root = env!("CARGO_MANIFEST_DIR"),
        d = dir.display(),
        bin = env!("CARGO_BIN_EXE_radbg"),
        pid = pid.display(),
        stty = stty.display()
    );
    assert!(t.run(&["new-session", "-d", "-s", "e2e", "-x", "80", "-y", "24", "sh", "-c", &script]).status.success());
    t.wait_for(&["radbg │ fir16"]);
    let p = std::fs::read_to_string(&pid).unwrap();
    assert!(Command::new("kill").arg("-TERM").arg(p.trim()).status().unwrap().success());
    t.wait_for(&["RADBG_EXIT=143"]);
    let start = Instant::now();
    while !stty.exists() && start.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(100));
    let modes = std::fs::read_to_string(&stty).unwrap();
    assert!(modes.split_whitespace().any(|w| w == "icanon"), "{modes}");
}

/// A wide terminal (200×60) on imported PTX, as issue 27 found it: the command line
/// closes after Enter so `:continue` typed next runs `continue`; the IR pane has the
/// width for its assignment column (no "…"), Why has a slot of its own, and at the
/// end of the pipeline no pane says "yet".
#[test]
fn wide_terminal_and_the_command_line() {
    if Command::new("tmux").arg("-V").output().map(|o| !o.status.success()).unwrap_or(true) {
        eprintln!("skipping the tmux wide-terminal test: tmux is not installed");
        return;
    }
    let dir = std::env::temp_dir().join(format!("radbg-e2e-wide-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let t = Tmux { socket: format!("radbg-e2e-wide-{}", std::process::id()), dir: dir.clone() };
    let script = format!(
        "cd '{root}' && HOME='{d}' XDG_STATE_HOME='{d}' '{bin}' sessions/why_stages.ptx; echo RADBG_EXIT=$?; sleep 60",
        root = env!("CARGO_MANIFEST_DIR"),
        d = dir.display(),
        bin = env!("CARGO_BIN_EXE_radbg"),
    );
    let out = t.run(&["new-session", "-d", "-s", "e2e", "-x", "200", "-y", "60", "sh", "-c", &script]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    t.run(&["set", "-s", "escape-time", "0"]);
    t.wait_for(&["radbg │ sum8", "1 IR", "? help"]);

    // `:` + a command + Enter, then at once `:continue` + Enter, as a person types.
    t.keys(&[":"]);
    t.text("break stage check");
    t.keys(&["Enter"]);
    t.wait_for(&["breakpoint 1: stage check"]);
    let s = t.screen();
    let last = s.lines().rfind(|l| !l.trim().is_empty()).unwrap_or("");
    assert!(!last.starts_with(':'), "the command line closed after Enter:\n{s}");
    t.keys(&[":"]);
    t.text("continue");
    t.keys(&["Enter"]);
    let s = t.wait_for(&["(radbg) continue", "breakpoint 1 (stage check)"]);
    assert!(!s.contains("unknown command"), "{s}");
    t.keys(&[":"]);
    t.text("goto 100000000");
    t.keys(&["Enter"]);
    t.wait_for(&["(end)"]);
    t.keys(&["9"]);
    let s = t.wait_for(&["9 Why · registers of sum8", "why registers: sum8 uses"]);
    assert!(!s.contains("│ 9 Why"), "Why has a slot of its own, not a tab beside ABI:\n{s}");
    // The IR pane is the first ~95 columns: no assignment is cut there.
    let ir: Vec<String> = s.lines().skip(2).take(20).map(|l| l.chars().take(96).collect()).collect();
    assert!(ir.iter().any(|l| l.contains("%f14→R7")), "{s}");
    assert!(ir.iter().all(|l| !l.contains('…')), "an assignment is cut in the IR pane:\n{s}");
    // The Why pane is wide: its table rows are not wrapped at 58 columns.
    assert!(s.lines().any(|l| l.contains("%rd2  2") && l.contains("R4:R5")), "{s}");
    assert!(!s.contains(" yet"), "a pane says 'yet' at the end of the pipeline:\n{s}");
    t.keys(&["q"]);
    t.wait_for(&["RADBG_EXIT=0"]);
}

/// Issue 27: the Source pane in a real terminal on PTX with `.file`/`.loc`: key 0 shows
/// hotspot.cu (found beside the PTX) with each line's live registers and spill marks,
/// and it follows the cursor back into the run.
#[test]
fn source_pane_in_tmux() {
    if Command::new("tmux").arg("-V").output().map(|o| !o.status.success()).unwrap_or(true) {
        eprintln!("skipping the tmux source-pane test: tmux is not installed (.ci/run installs it)");
        return;
    }
    let dir = std::env::temp_dir().join(format!("radbg-e2e-src-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let t = Tmux { socket: format!("radbg-e2e-src-{}", std::process::id()), dir: dir.clone() };
    let script = format!(
        "cd '{root}' && HOME='{d}' XDG_STATE_HOME='{d}' '{bin}' sessions/hotspot.ptx --maxrregcount 10 --disable-stage floor; echo RADBG_EXIT=$?; sleep 60",
        root = env!("CARGO_MANIFEST_DIR"),
        d = dir.display(),
        bin = env!("CARGO_BIN_EXE_radbg"),
    );
    let out = t.run(&["new-session", "-d", "-s", "e2e", "-x", "120", "-y", "40", "sh", "-c", &script]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    t.run(&["set", "-s", "escape-time", "0"]);
    t.wait_for(&["radbg │ stencil", "? help"]);
    t.keys(&[">"]);
    // The IR pane names the CUDA line beside the PTX line.
    t.wait_for(&["(end)", "L23 hotspot.cu:8"]);
    t.keys(&["0", "z"]);
    let s = t.wait_for(&["0 Source · hotspot.cu", "[zoom: z]", "float edge = a + c + g + i;", "(end)"]);
    assert!(s.contains("S2") && s.contains("L3"), "spill stores and reloads are marked:\n{s}");
    assert!(s.contains("← %rd4 %rd5"), "line 9 keeps the peak's pointers alive:\n{s}");
    // Back into the SPILL attempt: the pane follows the cursor.
    t.keys(&["z"]);
    t.keys(&["S"]);
    t.wait_for(&["event 291", "line live spill", "float edge"]);
    t.keys(&["q"]);
    t.wait_for(&["RADBG_EXIT=0"]);
}
