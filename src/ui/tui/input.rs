//! The key table: every key of the TUI, what it does and how the help screen names
//! it. Keys that change the debugger map to command lines of the `.radbg` language
//! (so they are recorded and replay like typed commands); the rest change view state.
//!
//! Owns key → action mapping only; `app` carries the actions out.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// A key as the table writes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Key {
    Ch(char),
    Ctrl(char),
    /// Alt-c, which is also how a terminal (or tmux) delivers Esc followed quickly by c.
    Alt(char),
    Tab,
    BackTab,
    Up,
    Down,
    Left,
    Right,
    PageUp,
    PageDown,
    Home,
    End,
    Enter,
    Esc,
    Backspace,
    Delete,
    F(u8),
}

impl Key {
    /// How the help screen shows the key.
    pub fn name(self) -> String {
        match self {
            Key::Ch(' ') => "Space".into(),
            Key::Ch(c) => c.to_string(),
            Key::Ctrl(c) => format!("Ctrl-{}", c.to_ascii_uppercase()),
            Key::Alt(c) => format!("Alt-{c}"),
            Key::Tab => "Tab".into(),
            Key::BackTab => "Shift-Tab".into(),
            Key::Up => "Up".into(),
            Key::Down => "Down".into(),
            Key::Left => "Left".into(),
            Key::Right => "Right".into(),
            Key::PageUp => "PgUp".into(),
            Key::PageDown => "PgDn".into(),
            Key::Home => "Home".into(),
            Key::End => "End".into(),
            Key::Enter => "Enter".into(),
            Key::Esc => "Esc".into(),
            Key::Backspace => "Backspace".into(),
            Key::Delete => "Delete".into(),
            Key::F(n) => format!("F{n}"),
        }
    }

    /// The table's key for a terminal key event.
    pub fn from_event(k: KeyEvent) -> Option<Key> {
        let ctrl = k.modifiers.contains(KeyModifiers::CONTROL);
        Some(match k.code {
            KeyCode::Char(c) if ctrl => Key::Ctrl(c.to_ascii_lowercase()),
            KeyCode::Char(c) if k.modifiers.contains(KeyModifiers::ALT) => Key::Alt(c),
            KeyCode::Char(c) => Key::Ch(c),
            KeyCode::Tab if k.modifiers.contains(KeyModifiers::SHIFT) => Key::BackTab,
            KeyCode::Tab => Key::Tab,
            KeyCode::BackTab => Key::BackTab,
            KeyCode::Up => Key::Up,
            KeyCode::Down => Key::Down,
            KeyCode::Left => Key::Left,
            KeyCode::Right => Key::Right,
            KeyCode::PageUp => Key::PageUp,
            KeyCode::PageDown => Key::PageDown,
            KeyCode::Home => Key::Home,
            KeyCode::End => Key::End,
            KeyCode::Enter => Key::Enter,
            KeyCode::Esc => Key::Esc,
            KeyCode::Backspace => Key::Backspace,
            KeyCode::Delete => Key::Delete,
            KeyCode::F(n) => Key::F(n),
            _ => return None,
        })
    }
}

/// What a key does outside the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Run this command line.
    Cmd(&'static str),
    /// Set a breakpoint on the selected vreg's assignment.
    BreakOnVreg,
    /// `print` the selected vreg.
    PrintVreg,
    /// Cycle the selected vreg through those of the instruction under the IR cursor.
    SelectVreg,
    /// Put the IR cursor back on the current instruction and follow it.
    Follow,
    EditCommand,
    Search,
    SearchNext,
    SearchPrev,
    FocusNext,
    FocusPrev,
    Focus(u8),
    Zoom,
    Scroll(i8),
    Page(i8),
    Top,
    Bottom,
    Help,
    Redraw,
    Interrupt,
    Quit,
}

/// One row of the key table.
pub struct Binding {
    pub keys: &'static [Key],
    pub action: Action,
    pub help: &'static str,
}

const fn b(keys: &'static [Key], action: Action, help: &'static str) -> Binding {
    Binding { keys, action, help }
}

use Action as A;
use Key as K;

/// Every key of the main screen, in the order the help screen lists them.
pub static KEYS: &[Binding] = &[
    b(&[K::Ch('s')], A::Cmd("step"), "step: advance one event"),
    b(&[K::Ch('S')], A::Cmd("reverse-step"), "reverse-step: go back one event"),
    b(&[K::Ch('n')], A::Cmd("next"), "next: the next event at the same level (next assignment, attempt …)"),
    b(&[K::Ch('N')], A::Cmd("reverse-next"), "reverse-next: the previous event at the same level"),
    b(&[K::Ch('f')], A::Cmd("finish"), "finish: to the end of the current attempt, class or stage"),
    b(&[K::Ch('F')], A::Cmd("reverse-finish"), "reverse-finish: back to where the enclosing frame began"),
    b(&[K::Ch('c')], A::Cmd("continue"), "continue: to the next breakpoint or the end (Ctrl-C interrupts)"),
    b(&[K::Ch('C')], A::Cmd("reverse-continue"), "reverse-continue: back to the previous breakpoint hit"),
    b(&[K::Ch('<')], A::Cmd("goto 0"), "go to the start of the pipeline"),
    b(&[K::Ch('>')], A::Cmd("goto 100000000"), "go to the end of the pipeline"),
    b(&[K::Ch('b')], A::BreakOnVreg, "break on the selected vreg's assignment"),
    b(&[K::Ch('p')], A::PrintVreg, "print the selected vreg (in the log)"),
    b(&[K::Ch('v')], A::SelectVreg, "select the next vreg of the instruction under the IR cursor"),
    b(&[K::Ch('.')], A::Follow, "IR cursor back on the current instruction (and follow it)"),
    b(&[K::Ch(':')], A::EditCommand, "type a command (the .radbg language, with Tab completion)"),
    b(&[K::Ch('/')], A::Search, "search the IR"),
    b(&[K::Ch(']')], A::SearchNext, "next search match"),
    b(&[K::Ch('[')], A::SearchPrev, "previous search match"),
    b(&[K::Tab], A::FocusNext, "focus the next pane"),
    b(&[K::BackTab], A::FocusPrev, "focus the previous pane"),
    b(&[K::Ch('1')], A::Focus(0), "focus IR"),
    b(&[K::Ch('2')], A::Focus(1), "focus live set and pressure"),
    b(&[K::Ch('3')], A::Focus(2), "focus constraints"),
    b(&[K::Ch('4')], A::Focus(3), "focus histogram"),
    b(&[K::Ch('5')], A::Focus(4), "focus allocator state"),
    b(&[K::Ch('6')], A::Focus(5), "focus attempts"),
    b(&[K::Ch('7')], A::Focus(6), "focus ABI checks"),
    b(&[K::Ch('8')], A::Focus(7), "focus the output log"),
    b(&[K::Ch('9')], A::Focus(8), "focus Why: explains the vreg at the cursor, else the register count"),
    b(&[K::Ch('0')], A::Focus(9), "focus Source: CUDA lines with live registers and spills (PTX with .loc)"),
    b(&[K::Ch('z')], A::Zoom, "zoom the focused pane (again: unzoom)"),
    b(&[K::Ch('j'), K::Down], A::Scroll(1), "move down in the focused pane (IR: the cursor)"),
    b(&[K::Ch('k'), K::Up], A::Scroll(-1), "move up in the focused pane"),
    b(&[K::PageDown, K::Ctrl('d')], A::Page(1), "page down"),
    b(&[K::PageUp, K::Ctrl('u')], A::Page(-1), "page up"),
    b(&[K::Ch('g'), K::Home], A::Top, "top of the focused pane"),
    b(&[K::Ch('G'), K::End], A::Bottom, "bottom of the focused pane"),
    b(&[K::Ch('?'), K::F(1)], A::Help, "this help (Esc or q closes it)"),
    b(&[K::Ctrl('l')], A::Redraw, "redraw the screen"),
    b(&[K::Ctrl('c')], A::Interrupt, "interrupt a running command"),
    b(&[K::Ch('q')], A::Quit, "quit"),
];

/// Keys of the command line (and the search prompt), for the help screen.
pub static EDIT_KEYS: &[(&str, &str)] = &[
    ("Enter", "run the command (search: jump to the first match)"),
    ("Esc", "leave the command line"),
    ("Tab", "complete a command, vreg, knob, breakpoint, stage or file name"),
    ("Up/Down", "command history"),
    ("Left/Right Home/End", "move in the line (also Ctrl-A, Ctrl-E)"),
    ("Backspace Delete", "delete the character before, under the cursor"),
    ("Ctrl-U Ctrl-K Ctrl-W", "delete to the start, to the end, the word before"),
    ("PgUp/PgDn", "scroll the output log"),
];

/// The action bound to a key.
pub fn action_for(key: Key) -> Option<Action> {
    KEYS.iter().find(|b| b.keys.contains(&key)).map(|b| b.action)
}

/// The one-line reminder shown at the bottom when the command line is idle (fits 80
/// columns; `?` lists the rest).
pub const KEY_HINTS: &str = "s n f c: step next finish cont  S N F C: back  : cmd  / find  ? keys  q quit";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_key_is_bound_twice() {
        let mut seen = Vec::new();
        for b in KEYS {
            for k in b.keys {
                assert!(!seen.contains(k), "{k:?} bound twice");
                seen.push(*k);
            }
        }
    }

    #[test]
    fn command_keys_run_commands_of_the_language() {
        for b in KEYS {
            if let Action::Cmd(line) = b.action {
                crate::command::parse_line(line).unwrap_or_else(|e| panic!("{line}: {}", e.render(line)));
            }
        }
        assert_eq!(action_for(Key::Ch('s')), Some(Action::Cmd("step")));
        assert_eq!(action_for(Key::Down), Some(Action::Scroll(1)));
        assert_eq!(action_for(Key::Ch('x')), None);
        assert!(KEY_HINTS.chars().count() <= 78, "the key reminder fits an 80-column terminal");
    }
}
