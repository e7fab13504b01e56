//! Terminal setup and restore. The terminal is always given back sane: on normal exit
//! (the guard's `Drop`), on panic (a hook restores it before the panic message is
//! printed), and on SIGTERM, SIGHUP (the SSH connection dropped) or SIGINT (flags the
//! event loop polls; it then returns normally and the guard restores).
//!
//! No mouse capture: the terminal's own selection and scrollback keep working.

use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crossterm::{cursor, execute, terminal};

/// True while radbg owns the terminal (raw mode, alternate screen).
static ACTIVE: AtomicBool = AtomicBool::new(false);

/// Puts the terminal back: cooked mode, main screen, visible cursor. Idempotent.
pub fn restore() {
    if ACTIVE.swap(false, Ordering::SeqCst) {
        let _ = terminal::disable_raw_mode();
        let mut out = std::io::stdout();
        let _ = execute!(out, terminal::LeaveAlternateScreen, cursor::Show);
        let _ = out.flush();
    }
}

/// Owns the terminal while alive.
pub struct Guard {
    _private: (),
}

impl Guard {
    /// Raw mode, alternate screen, hidden cursor, and a panic hook that restores first.
    pub fn enter() -> std::io::Result<Guard> {
        install_panic_hook();
        terminal::enable_raw_mode()?;
        ACTIVE.store(true, Ordering::SeqCst);
        let mut out = std::io::stdout();
        if let Err(e) = execute!(out, terminal::EnterAlternateScreen, cursor::Hide) {
            restore();
            return Err(e);
        }
        Ok(Guard { _private: () })
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        restore();
    }
}

fn install_panic_hook() {
    static INSTALLED: AtomicBool = AtomicBool::new(false);
    if INSTALLED.swap(true, Ordering::SeqCst) {
        return;
    }
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        restore();
        previous(info);
    }));
}

/// Signals that end the TUI, as flags.
pub struct Signals {
    pub terminate: Arc<AtomicBool>,
    pub interrupt: Arc<AtomicBool>,
    ids: Vec<signal_hook::SigId>,
}

impl Signals {
    /// SIGTERM and SIGHUP set `terminate`; SIGINT (only sent from outside: in raw mode
    /// Ctrl-C is a key) sets `interrupt`.
    pub fn register() -> std::io::Result<Signals> {
        use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
        let terminate = Arc::new(AtomicBool::new(false));
        let interrupt = Arc::new(AtomicBool::new(false));
        let mut ids = Vec::new();
        for s in [SIGTERM, SIGHUP] {
            ids.push(signal_hook::flag::register(s, terminate.clone())?);
        }
        ids.push(signal_hook::flag::register(SIGINT, interrupt.clone())?);
        Ok(Signals { terminate, interrupt, ids })
    }

    /// A signal asked radbg to stop.
    pub fn pending(&self) -> bool {
        self.terminate.load(Ordering::SeqCst) || self.interrupt.load(Ordering::SeqCst)
    }

    /// The exit status a shell expects after the signal (128 + number).
    pub fn exit_code(&self) -> u8 {
        if self.terminate.load(Ordering::SeqCst) {
            128 + 15
        } else if self.interrupt.load(Ordering::SeqCst) {
            128 + 2
        } else {
            0
        }
    }
}

impl Drop for Signals {
    fn drop(&mut self) {
        for id in self.ids.drain(..) {
            signal_hook::low_level::unregister(id);
        }
    }
}
