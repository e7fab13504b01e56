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
    let log = &app.view.log;
    if log.is_empty() {
        empty(buf, area, "commands and their output appear here (: types a command, ? lists the keys)", th.dim);
        return;
    }
    let rows = area.height as usize;
    let back = app.view.scroll[PaneId::Log.index()].min(log.len().saturating_sub(1));
    let end = log.len() - back;
    let start = end.saturating_sub(rows);
    for (i, l) in log[start..end].iter().enumerate() {
        let style = match l.kind {
            LogKind::Command => th.key,
            LogKind::Output => th.text,
            LogKind::Error => th.error,
        };
        put(buf, area.x, area.y + i as u16, &l.text, area.width, style);
    }
}
