//! The output log: every command run from keys or the command line, echoed after the
//! `(radbg)` prompt, and its output — the same text the REPL prints. Anchored at the
//! bottom; scrolling moves back through older lines.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

use super::{empty, put};
use crate::ui::tui::app::{App, LogKind};
use crate::ui::tui::layout::PaneId;

pub fn title(app: &App) -> String {
    match app.view.scroll[PaneId::Log.index()] {
        0 => String::new(),
        n => format!("{n} lines up"),
    }
}

pub fn render(app: &mut App, area: Rect, buf: &mut Buffer) {
    let th = app.theme;
    if app.view.log.is_empty() {
        empty(buf, area, "commands and their output appear here (: types a command, ? lists the keys)", th.dim);
        return;
    }
    let rows = area.height as usize;
    // Scrolled back at most until the oldest line reaches the top.
    let back = app.view.scroll[PaneId::Log.index()].min(app.view.log.len().saturating_sub(rows));
    app.view.scroll[PaneId::Log.index()] = back;
    let log = &app.view.log;
    let end = log.len() - back;
    let start = end.saturating_sub(rows);
    for (i, l) in log[start..end].iter().enumerate() {
        let style = match l.kind {
            LogKind::Command => th.key,
            LogKind::Output => th.text,
            LogKind::Diff if l.text.starts_with("@@") => th.label,
            LogKind::Diff if l.text.starts_with("+++") || l.text.starts_with("---") => th.title,
            LogKind::Diff if l.text.starts_with('+') => th.ok,
            LogKind::Diff if l.text.starts_with('-') => th.over,
            LogKind::Diff => th.text,
            LogKind::Error => th.error,
        };
        put(buf, area.x, area.y + i as u16, &l.text, area.width, style);
    }
}
