//! The terminal UI (ratatui + crossterm): panes that each render one engine query, a
//! status bar, a command line speaking the `.radbg` language, keyboard only.
//!
//! Layout: `app` (view state, keys → actions → command lines), `input` (the key
//! table), `layout` (geometry per terminal size), `draw` (the frame), `panes/` (one
//! file per pane), `cache` (query results kept between frames), `theme` (16 colours
//! or none), `term` (raw mode, restore on panic and signals), `snapshot` (a buffer as
//! text or SVG, for tests and screenshots), `shots` (the screenshot scenarios).
//!
//! The event loop redraws only after a key, a resize or a command; a command runs
//! with a watcher thread that turns Ctrl-C (or a terminating signal) into
//! `Session::interrupt`, which `continue` polls, and says "running" when it is slow.

pub mod app;
pub mod cache;
pub mod draw;
pub mod input;
pub mod layout;
pub mod panes;
pub mod shots;
pub mod snapshot;
pub mod term;
pub mod theme;

use std::io::Write;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crossterm::event::{self, Event, KeyEventKind};
use ratatui::Terminal;
use ratatui::backend::{Backend, CrosstermBackend};

pub use app::{App, Effect, Mode};
pub use theme::Theme;

/// Draws one frame of `app` on any backend (the real terminal, or `TestBackend`).
pub fn render<B: Backend>(terminal: &mut Terminal<B>, app: &mut App) -> Result<(), B::Error> {
    terminal.draw(|f| draw::draw(app, f))?;
    Ok(())
}

/// Loads the command history shared with the REPL (rustyline's file format).
fn load_history(path: &std::path::Path) -> Vec<String> {
    let Ok(text) = std::fs::read_to_string(path) else { return Vec::new() };
    text.lines()
        .filter(|l| !l.starts_with("#V2") && !l.trim().is_empty())
        .map(|l| l.replace("\\n", "\n").replace("\\\\", "\\"))
        .collect()
}

fn save_history(path: &std::path::Path, old: usize, all: &[String]) {
    let new = &all[old.min(all.len())..];
    if new.is_empty() {
        return;
    }
    if let Some(d) = path.parent() {
        let _ = std::fs::create_dir_all(d);
    }
    let fresh = !path.exists();
    if let Ok(mut f) = std::fs::OpenOptions::new().create(true).append(true).open(path) {
        if fresh {
            let _ = writeln!(f, "#V2");
        }
        for l in new {
            let _ = writeln!(f, "{}", l.replace('\\', "\\\\").replace('\n', "\\n"));
        }
    }
}

/// Runs the TUI on the real terminal until `q`, `quit` or a terminating signal.
pub fn run(mut app: App, history: Option<std::path::PathBuf>) -> ExitCode {
    let loaded = history.as_deref().map(load_history).unwrap_or_default();
    let old = loaded.len();
    app.view.history = loaded;
    let signals = match term::Signals::register() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("radbg: cannot install signal handlers: {e}");
            return ExitCode::FAILURE;
        }
    };
    let result = {
        let guard = match term::Guard::enter() {
            Ok(g) => g,
            Err(e) => {
                eprintln!("radbg: cannot set up the terminal: {e}");
                return ExitCode::FAILURE;
            }
        };
        exit_on_hang_up();
        let r = event_loop(&mut app, &signals);
        drop(guard);
        r
    };
    if let Some(h) = &history {
        save_history(h, old, &app.view.history);
    }
    if let Err(e) = result {
        eprintln!("radbg: terminal error: {e}");
        return ExitCode::FAILURE;
    }
    match signals.exit_code() {
        0 => ExitCode::SUCCESS,
        n => {
            eprintln!("radbg: stopped by a signal; terminal restored");
            ExitCode::from(n)
        }
    }
}

fn event_loop(app: &mut App, signals: &term::Signals) -> std::io::Result<()> {
    let mut terminal = Terminal::new(CrosstermBackend::new(std::io::stdout()))?;
    terminal.clear()?;
    let mut dirty = true;
    let mut queued: Vec<Event> = Vec::new();
    loop {
        if signals.pending() || app.view.quit {
            return Ok(());
        }
        if dirty {
            render(&mut terminal, app)?;
            dirty = false;
        }
        let ev = if !queued.is_empty() {
            queued.remove(0)
        } else if event::poll(Duration::from_millis(200))? {
            event::read()?
        } else {
            continue;
        };
        match ev {
            Event::Key(k) if k.kind != KeyEventKind::Release => {
                let Some(key) = input::Key::from_event(k) else { continue };
                match app.on_key(key) {
                    Effect::None => dirty = app.view.quit,
                    Effect::Redraw => dirty = true,
                    Effect::Run(line) => {
                        let (events, painted) = run_watched(app, &line, signals);
                        queued.extend(events);
                        if painted {
                            // The banner was written behind ratatui's back: redraw everything.
                            terminal.clear()?;
                        }
                        dirty = true;
                    }
                }
            }
            Event::Resize(..) => dirty = true,
            _ => {}
        }
    }
}

/// Whether the terminal went away (a tmux session killed, a pty closed): a hung-up tty
/// refuses terminal ioctls, which is what `is_terminal` asks.
fn hung_up() -> bool {
    use std::io::IsTerminal;
    !std::io::stdin().is_terminal()
}

/// Ends the process when the terminal goes away without a SIGHUP reaching radbg: reads
/// of a hung-up tty return end-of-file at once, and crossterm's event poll then spins
/// inside itself without returning to the event loop (found driving the TUI in tmux:
/// `kill-session` left radbg at 100 % CPU). Nothing is left to draw on or to read
/// from, so it exits as SIGHUP would (status 129); this session's command history is
/// not saved.
fn exit_on_hang_up() {
    std::thread::spawn(|| {
        loop {
            std::thread::sleep(Duration::from_millis(250));
            if hung_up() {
                std::process::exit(129);
            }
        }
    });
}

/// How long a command runs before the status bar says so.
const BANNER_AFTER: Duration = Duration::from_millis(150);

/// Runs a command while a watcher thread reads the keyboard: Ctrl-C (or a
/// terminating signal) interrupts it; other events (Esc leaving the command line
/// included) are handed back to be processed afterwards, in order. When the command
/// takes longer than [`BANNER_AFTER`], the watcher writes a "running" banner over the
/// status bar (quick commands never flash it); the second result says it did.
fn run_watched(app: &mut App, line: &str, signals: &term::Signals) -> (Vec<Event>, bool) {
    let interrupt = app.session.interrupt.clone();
    let done = Arc::new(AtomicBool::new(false));
    let painted = Arc::new(AtomicBool::new(false));
    let queue = Arc::new(Mutex::new(Vec::new()));
    let banner = format!(" radbg │ running: {} … (Ctrl-C interrupts)", line.trim());
    std::thread::scope(|s| {
        let (done2, queue2, int2, painted2) = (done.clone(), queue.clone(), interrupt.clone(), painted.clone());
        s.spawn(move || {
            let start = std::time::Instant::now();
            while !done2.load(Ordering::SeqCst) {
                if signals.pending() {
                    int2.store(true, Ordering::SeqCst);
                }
                if !painted2.load(Ordering::SeqCst) && start.elapsed() >= BANNER_AFTER {
                    paint_banner(&banner);
                    painted2.store(true, Ordering::SeqCst);
                }
                if !event::poll(Duration::from_millis(20)).unwrap_or(false) {
                    continue;
                }
                let Ok(ev) = event::read() else { break };
                let stop = matches!(&ev, Event::Key(k) if input::Key::from_event(*k) == Some(input::Key::Ctrl('c')));
                if stop {
                    int2.store(true, Ordering::SeqCst);
                } else if let Ok(mut q) = queue2.lock() {
                    q.push(ev);
                }
            }
        });
        app.execute(line);
        done.store(true, Ordering::SeqCst);
    });
    let events = queue.lock().map(|mut q| std::mem::take(&mut *q)).unwrap_or_default();
    (events, painted.load(Ordering::SeqCst))
}

/// Writes the banner on the top row in reverse video (readable with or without colour).
fn paint_banner(text: &str) {
    use crossterm::{cursor, queue, style};
    let width = crossterm::terminal::size().map(|s| s.0 as usize).unwrap_or(80);
    let shown: String = text.chars().chain(std::iter::repeat(' ')).take(width).collect();
    let mut out = std::io::stdout();
    let _ = queue!(
        out,
        cursor::MoveTo(0, 0),
        style::SetAttribute(style::Attribute::Reverse),
        style::Print(shown),
        style::SetAttribute(style::Attribute::Reset)
    );
    let _ = out.flush();
}
