//! Issue 24, "never silently inert": wherever a knob is set, a knob radbg does not model,
//! or one that acts only with another knob the run leaves off, gets a note — `set knob`
//! and `--knob` (tested in `tests/cli.rs` and `sessions/knobs.radbg`), and here: an Ori
//! `.knob` line (the grammar's `knob` module item, `grammar/ori.ebnf`), `sweep knob`
//! in the debugger and `radbg sweep --knob`, `whatif knob`, and the `knobs` listing.

use std::path::Path;
use std::process::Command as Proc;

use radbg::command::exec::{Output, Session};
use radbg::command::parse::parse_line;

const UNMODELLED: &str = "not modelled by radbg";
const NEEDS: &str = "acts only with radbg.IntervalInterference=1";

fn session(load: &str) -> Session {
    let mut s = Session::new();
    s.base = Path::new(env!("CARGO_MANIFEST_DIR")).join("sessions");
    run(&mut s, &format!("load {load}"));
    s
}

fn run(s: &mut Session, line: &str) -> Output {
    let cmds = parse_line(line).unwrap_or_else(|e| panic!("{line}: {e:?}"));
    let mut last = None;
    for c in cmds {
        last = Some(s.exec(&c).unwrap_or_else(|e| panic!("{line}: {e}")));
    }
    last.expect("a command")
}

/// A small kernel with the given `.knob` lines, written to a temporary file.
fn kernel_with(knobs: &str, tag: &str) -> std::path::PathBuf {
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("sessions/saxpy.ori"))
        .expect("session kernel");
    // `.knob` lines follow `.target` (grammar/ori.ebnf: target, options, knobs, …).
    let mut out = String::new();
    let mut placed = false;
    for line in text.lines() {
        out.push_str(line);
        out.push('\n');
        if !placed && line.starts_with(".target") {
            out.push_str(knobs);
            placed = true;
        }
    }
    assert!(placed, "saxpy.ori has a .target line");
    let p = std::env::temp_dir().join(format!("radbg-knob-notes-{}-{tag}.ori", std::process::id()));
    std::fs::write(&p, out).expect("temp file");
    p
}

#[test]
fn knob_lines_of_a_file_get_a_note_at_their_line() {
    let p = kernel_with(".knob HoistInvariantsPolicy = 2\n.knob radbg.IntervalInterference = 0\n.knob 684 = 10\n", "a");
    let loaded = radbg::load::load_path(&p).expect("loads: notes are not errors");
    let w = &loaded.warnings;
    assert!(w.contains(UNMODELLED) && w.contains("HoistInvariantsPolicy"), "{w}");
    assert!(w.contains(NEEDS), "{w}");
    // Each note names its line.
    let line_of = |needle: &str| {
        w.lines().find(|l| l.contains(needle)).unwrap_or_else(|| panic!("no '{needle}' in {w}")).to_string()
    };
    assert!(line_of(UNMODELLED).contains(": note: "), "{w}");
    assert!(w.contains(":5:") && w.contains(":7:"), "file:line of each note: {w}");
    // The enabler itself (modelled, acting) and a modelled knob get none.
    let p2 = kernel_with(".knob 684 = 10\n.knob 639 = 2\n", "b");
    let clean = radbg::load::load_path(&p2).expect("loads");
    assert!(clean.warnings.is_empty(), "{}", clean.warnings);
    std::fs::remove_file(p).ok();
    std::fs::remove_file(p2).ok();
}

#[test]
fn sweep_and_whatif_of_a_knob_say_when_it_changes_nothing() {
    let mut s = session("sgemm_spill.ori");
    let o = run(&mut s, "sweep knob HoistInvariantsPolicy=0..2");
    assert!(o.text.contains(UNMODELLED), "{}", o.text);
    assert!(o.json["note"].is_string());
    let o = run(&mut s, "whatif knob 381=1");
    assert!(o.text.contains(UNMODELLED), "{}", o.text);
    // 684 acts with the interval interference on (the default): no note.
    let o = run(&mut s, "whatif knob 684=12");
    assert!(!o.text.contains("note:"), "{}", o.text);
    let o = run(&mut s, "sweep knob 684=10..12");
    assert!(!o.text.contains("note:"), "{}", o.text);
    // With it off, both say what 684 needs.
    run(&mut s, "set knob radbg.IntervalInterference=0");
    let o = run(&mut s, "whatif knob 684=12");
    assert!(o.text.contains(NEEDS), "{}", o.text);
    let o = run(&mut s, "sweep knob 684=10..12");
    assert!(o.text.contains(NEEDS), "{}", o.text);
}

#[test]
fn the_knobs_listing_notes_a_knob_whose_enabler_is_off() {
    let mut s = session("sgemm_spill.ori");
    run(&mut s, "set knob 684=12");
    let o = run(&mut s, "knobs");
    assert!(!o.text.contains("note:"), "{}", o.text);
    run(&mut s, "set knob radbg.IntervalInterference=0");
    let o = run(&mut s, "knobs");
    assert!(o.text.lines().last().is_some_and(|l| l.starts_with("note:") && l.contains(NEEDS)), "{}", o.text);
    let row = o.json["knobs"].as_array().and_then(|k| k.iter().find(|k| k["index"] == 684)).cloned();
    assert!(row.is_some_and(|r| r["needs"].as_str().is_some_and(|n| n.contains(NEEDS))));
    // `knobs all` lists 684 at its value too, with the same note.
    let o = run(&mut s, "knobs all");
    assert!(o.text.contains(NEEDS), "{}", o.text);
}

#[test]
fn radbg_sweep_knob_prints_the_note() {
    let bin = env!("CARGO_BIN_EXE_radbg");
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("sessions/saxpy.ori");
    let out = Proc::new(bin).arg("sweep").arg(&file).args(["--knob", "381=0..1"]).output().expect("runs");
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("radbg: note: --knob 381=0..1") && err.contains(UNMODELLED), "{err}");
    let out = Proc::new(bin).arg("sweep").arg(&file).args(["--knob", "639=1..2"]).output().expect("runs");
    assert!(String::from_utf8_lossy(&out.stderr).is_empty(), "a modelled knob: no note");
}
