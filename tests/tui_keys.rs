//! The TUI's behaviour under keys, without a terminal: keys become command lines (and
//! those are recorded and replay to the same state), view keys change only view state,
//! the help screen lists every key and command, and no size or key sequence panics.

use std::path::Path;

use radbg::command::Session;
use radbg::command::script::{Recorder, replay};
use radbg::engine::query;
use radbg::ui::tui::app::{App, Effect, Mode};
use radbg::ui::tui::input::{KEYS, Key};
use radbg::ui::tui::layout::PaneId;
use radbg::ui::tui::{Theme, shots};

fn demo() -> App {
    let mut s = Session::new();
    s.load(concat!(env!("CARGO_MANIFEST_DIR"), "/sessions/demo.ori")).unwrap();
    App::new(s, Theme::colour())
}

fn cursor(app: &App) -> usize {
    app.session.dbg.as_ref().unwrap().cursor()
}

fn kind(app: &App) -> String {
    query::status(app.session.dbg.as_ref().unwrap()).kind
}

#[test]
fn stepping_keys_run_commands_forwards_and_back() {
    let mut app = demo();
    for (key, want) in [('s', 1), ('s', 2), ('S', 1), ('>', usize::MAX), ('<', 0)] {
        app.press(Key::Ch(key));
        if want == usize::MAX {
            assert!(app.session.dbg.as_ref().unwrap().at_end());
        } else {
            assert_eq!(cursor(&app), want, "after {key}");
        }
    }
    app.type_command("break assign %x3");
    app.press(Key::Ch('c'));
    assert_eq!(kind(&app), "assign");
    let at = cursor(&app);
    app.press(Key::Ch('n'));
    assert_eq!((kind(&app).as_str(), cursor(&app)), ("assign", at + 1));
    app.press(Key::Ch('N'));
    assert_eq!(cursor(&app), at);
    // F (reverse-finish) goes back to the start of the enclosing attempt; f runs
    // forward again and stops at the breakpoint on the way.
    app.press(Key::Ch('F'));
    assert_eq!(kind(&app), "attempt-start");
    app.press(Key::Ch('f'));
    assert_eq!(cursor(&app), at);
    app.press(Key::Ch('c'));
    assert!(cursor(&app) > at && kind(&app) == "assign", "the next hit, in the SPILL attempt");
    app.press(Key::Ch('C'));
    assert_eq!(cursor(&app), at, "reverse-continue finds the first hit again");
}

#[test]
fn view_keys_change_only_the_view() {
    let mut app = demo();
    app.type_command("break assign %x3");
    app.press(Key::Ch('c'));
    let fp = app.session.dbg.as_ref().unwrap().fingerprint();
    assert_eq!(app.on_key(Key::Tab), Effect::Redraw);
    assert_eq!(app.view.focus, PaneId::Live);
    app.on_key(Key::BackTab);
    app.on_key(Key::BackTab);
    assert_eq!(app.view.focus, PaneId::Source, "Shift-Tab wraps from the first pane to the last (Source, key 0)");
    app.on_key(Key::BackTab);
    assert_eq!(app.view.focus, PaneId::Why);
    app.on_key(Key::BackTab);
    assert_eq!(app.view.focus, PaneId::Log);
    app.on_key(Key::Ch('4'));
    app.on_key(Key::Ch('z'));
    assert!(app.view.zoom && app.view.focus == PaneId::Hist);
    app.on_key(Key::Ch('1'));
    app.on_key(Key::Ch('j'));
    app.on_key(Key::Ch('j'));
    assert_eq!(app.view.ir_cursor, Some(30), "the IR cursor starts on the current instruction (28)");
    app.on_key(Key::Ch('.'));
    assert_eq!(app.view.ir_cursor, None);
    // v cycles through the vregs of the line under the cursor: %x3 = LDG.E [%rd3 + 0xc].
    app.on_key(Key::Ch('v'));
    assert_eq!(app.view.vreg.as_deref(), Some("%x3"));
    app.on_key(Key::Ch('v'));
    assert_eq!(app.view.vreg.as_deref(), Some("%rd3"));
    app.on_key(Key::Ch('v'));
    assert_eq!(app.view.vreg, None);
    app.on_key(Key::Ch('?'));
    assert_eq!(app.view.mode, Mode::Help);
    app.on_key(Key::Esc);
    assert_eq!(app.view.mode, Mode::Normal);
    assert_eq!(app.session.dbg.as_ref().unwrap().fingerprint(), fp, "view keys left the debugger alone");
    // b and p work on the selected vreg through commands.
    app.on_key(Key::Ch('v'));
    assert_eq!(app.on_key(Key::Ch('b')), Effect::Run("break assign %x3".into()));
    assert_eq!(app.on_key(Key::Ch('p')), Effect::Run("print %x3".into()));
}

#[test]
fn search_finds_and_wraps() {
    let mut app = demo();
    for c in "/FFMA".chars() {
        app.on_key(Key::Ch(c));
    }
    app.on_key(Key::Enter);
    assert_eq!(app.view.ir_cursor, Some(48));
    app.on_key(Key::Ch(']'));
    assert_eq!(app.view.ir_cursor, Some(49));
    app.on_key(Key::Ch('['));
    app.on_key(Key::Ch('['));
    assert_eq!(app.view.ir_cursor, Some(59), "backwards from the first match wraps to the last");
    app.view.search = "NOSUCHTHING".into();
    app.on_key(Key::Ch(']'));
    assert_eq!(app.view.message.as_ref().map(|m| m.1), Some(true));
}

#[test]
fn command_line_editing_history_and_completion() {
    let mut app = demo();
    app.on_key(Key::Ch(':'));
    for c in "brea".chars() {
        app.on_key(Key::Ch(c));
    }
    app.on_key(Key::Tab);
    assert_eq!(app.view.input, "break ");
    for c in "stage al".chars() {
        app.on_key(Key::Ch(c));
    }
    app.on_key(Key::Tab);
    assert_eq!(app.view.input, "break stage alloc ");
    assert_eq!(app.on_key(Key::Enter), Effect::Run("break stage alloc ".into()));
    // Enter closes the command line (issue 27); `:` opens it again, and a `:` typed
    // twice out of habit is not part of the command.
    assert_eq!(app.view.mode, Mode::Normal);
    app.on_key(Key::Ch(':'));
    app.on_key(Key::Ch(':'));
    assert_eq!((app.view.input.as_str(), app.view.mode), ("", Mode::Command));
    for c in "stpe".chars() {
        app.on_key(Key::Ch(c));
    }
    app.on_key(Key::Backspace);
    app.on_key(Key::Left);
    app.on_key(Key::Backspace);
    assert_eq!(app.view.input, "sp");
    app.on_key(Key::Up);
    assert_eq!(app.view.input, "break stage alloc ");
    app.on_key(Key::Down);
    assert_eq!(app.view.input, "sp");
    app.on_key(Key::Ctrl('c'));
    assert_eq!((app.view.input.as_str(), app.view.mode), ("", Mode::Command));
    app.on_key(Key::Esc);
    assert_eq!(app.view.mode, Mode::Normal);
    // Esc and a key arriving together (Alt-key) leave the line and act on the key.
    app.on_key(Key::Ch(':'));
    app.on_key(Key::Alt('s'));
    assert_eq!(app.view.mode, Mode::Normal);
}

#[test]
fn errors_are_logged_with_a_caret_and_do_not_change_state() {
    let mut app = demo();
    app.type_command("brek assign %x3");
    let log: Vec<&str> = app.view.log.iter().map(|l| l.text.as_str()).collect();
    assert_eq!(
        log,
        [
            "(radbg) brek assign %x3",
            "error: unknown command 'brek'",
            "  brek assign %x3",
            "  ^^^^",
            "  = help: did you mean 'break'? (try 'help')"
        ]
    );
    app.type_command("load /no/such/file.ori");
    assert!(app.view.log.last().unwrap().text.contains("cannot read /no/such/file.ori"));
    assert_eq!(cursor(&app), 0);
}

#[test]
fn keys_and_commands_are_recorded_and_replay_to_the_same_state() {
    let path = std::env::temp_dir().join(format!("radbg-tui-rec-{}.radbg", std::process::id()));
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/sessions/demo.ori");
    let mut app = demo();
    app.recorder = Some(Recorder::create(&path, Some(file)).unwrap());
    app.type_command("break assign %x3 if attempt > 0");
    for k in ['c', 'n', 'n', 'S', 'F', 'j', 'z', 'z'] {
        app.press(Key::Ch(k));
    }
    app.type_command("set knob 684=10");
    app.press(Key::Ch('s'));
    let live = app.session.dbg.as_ref().unwrap().fingerprint();
    let text = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = text.lines().skip(2).collect();
    assert_eq!(lines.len(), 8, "only commands are recorded, not view keys: {text}");
    assert_eq!(lines[..5], ["break assign %x3 if attempt > 0", "continue", "next", "next", "reverse-step"]);
    assert_eq!(lines[5], "reverse-finish", "F is recorded as the command it ran");
    assert_eq!(lines[6..], ["set knob 684=10", "step"]);
    let mut s = Session::new();
    let r = replay(&mut s, "rec", &text, false);
    assert!(r.ok, "{:?}\n{}", r.failures, r.transcript);
    assert_eq!(s.dbg.as_ref().unwrap().fingerprint(), live);
    let _ = std::fs::remove_file(path);
}

#[test]
fn help_lists_every_key_and_command() {
    let app = demo();
    let text: String = radbg::ui::tui::draw::help_lines(&app)
        .iter()
        .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect::<String>() + "\n")
        .collect();
    for b in KEYS {
        assert!(text.contains(b.help), "help lacks '{}'", b.help);
    }
    for c in radbg::command::table::COMMANDS {
        assert!(text.contains(c.summary) && text.contains(c.synopsis), "help lacks {}", c.name);
    }
}

/// Every pane, zoomed or not, focused or not, at sizes down to one cell, on the demo
/// and on a failing kernel, at several moments: drawing never panics.
#[test]
fn no_size_or_moment_panics() {
    let sessions = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/sessions"));
    for file in [None, Some("alloc_fail.ori"), Some("abi_7004.ori"), Some("callgraph.ori")] {
        let shot = shots::Shot { name: "x", caption: "", width: 1, height: 1, mono: true, file, steps: &[] };
        let mut app = shots::app_for(&shot, sessions).unwrap();
        for moment in 0..4 {
            match moment {
                1 => app.type_command("step 5"),
                2 => app.type_command("goto 90"),
                3 => app.press(Key::Ch('>')),
                _ => {}
            }
            for p in 0..8u8 {
                app.press(Key::Ch((b'1' + p) as char));
                for zoom in [false, true] {
                    app.view.zoom = zoom;
                    for (w, h) in [(1, 1), (5, 3), (20, 6), (40, 12), (79, 23), (130, 45), (181, 51)] {
                        shots::draw(&mut app, w, h);
                    }
                }
            }
        }
    }
}

#[test]
fn mono_theme_uses_no_colour_at_all() {
    let sessions = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/sessions"));
    let shot = shots::all().into_iter().find(|s| s.mono).unwrap();
    let buf = shots::render_shot(&shot, sessions).unwrap();
    for c in &buf.content {
        assert_eq!((c.fg, c.bg), (ratatui::style::Color::Reset, ratatui::style::Color::Reset), "{c:?}");
    }
}
