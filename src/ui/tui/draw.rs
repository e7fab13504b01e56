//! Drawing a frame: the status bar, each slot's border with its title or tab strip,
//! the panes, the command line, and the overlays (help, completions).
//!
//! Reads the app; the only state it writes back is what panes learn about the
//! screen (the IR window, clamped scroll offsets).

use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Widget};

use crate::command::table::COMMANDS;
use crate::engine::query;
use crate::ui::tui::app::{App, Mode};
use crate::ui::tui::input::{EDIT_KEYS, KEY_HINTS, KEYS};
use crate::ui::tui::layout::{PaneId, Slot, layout};
use crate::ui::tui::panes::{self, clip, put};

/// Smallest screen the layouts are made for.
pub const MIN_WIDTH: u16 = 24;
pub const MIN_HEIGHT: u16 = 6;

/// Draws the whole screen.
pub fn draw(app: &mut App, frame: &mut Frame) {
    let area = frame.area();
    if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
        let msg = format!("radbg needs {MIN_WIDTH}x{MIN_HEIGHT} (q quits)");
        for (i, line) in panes::wrap(&msg, area.width as usize).iter().enumerate().take(area.height as usize) {
            put(frame.buffer_mut(), area.x, area.y + i as u16, line, area.width, app.theme.text);
        }
        return;
    }
    let screen = layout(area, app.view.zoom.then_some(app.view.focus));
    let buf = frame.buffer_mut();
    status_bar(app, screen.status, buf);
    for slot in &screen.slots {
        draw_slot(app, slot, buf);
    }
    if let Some((x, y)) = command_line(app, screen.command, buf) {
        frame.set_cursor_position((x, y));
    }
    let buf = frame.buffer_mut();
    if !app.view.completions.is_empty() && app.view.mode == Mode::Command {
        completions(app, screen.command, buf);
    }
    if app.view.mode == Mode::Help {
        help(app, area, buf);
    }
}

/// The pane a slot shows: the focused one if it is there, else the most recently focused.
pub fn visible(app: &App, slot: &Slot) -> PaneId {
    if slot.panes.contains(&app.view.focus) {
        return app.view.focus;
    }
    app.view.recent.iter().copied().find(|p| slot.panes.contains(p)).unwrap_or(slot.panes[0])
}

fn draw_slot(app: &mut App, slot: &Slot, buf: &mut Buffer) {
    let th = app.theme;
    let shown = visible(app, slot);
    let focused = shown == app.view.focus;
    let mut spans = vec![Span::raw(" ")];
    if slot.panes.len() > 1 {
        for (i, p) in slot.panes.iter().enumerate() {
            if i > 0 {
                spans.push(Span::styled("│", th.border));
            }
            let name = format!(" {} {} ", p.key(), panes::name(app, *p, *p != shown));
            spans.push(Span::styled(name, if *p == shown { th.tab_active } else { th.tab }));
        }
    } else {
        spans.push(Span::styled(format!("{} {}", shown.key(), panes::name(app, shown, false)), th.title));
    }
    let detail = panes::title(app, shown);
    if !detail.is_empty() {
        spans.push(Span::styled(format!(" · {detail}"), th.text));
    }
    if app.view.zoom {
        spans.push(Span::styled(" [zoom: z]", th.dim));
    }
    spans.push(Span::raw(" "));
    let block =
        Block::bordered().border_style(if focused { th.border_focus } else { th.border }).title(Line::from(spans));
    let inner = block.inner(slot.area);
    app.view.rows[shown.index()] = inner.height;
    block.render(slot.area, buf);
    panes::render(app, shown, inner, buf);
}

fn status_bar(app: &App, area: Rect, buf: &mut Buffer) {
    let th = app.theme;
    buf.set_style(area, th.status);
    let right = " ? help ";
    let text = match app.session.dbg.as_ref() {
        None => " radbg │ no file loaded (: load FILE)".to_string(),
        Some(d) => {
            let s = query::status(d);
            let mut t = format!(" radbg │ {} │ {}", s.func, s.stage.name());
            if let Some(c) = &s.class {
                t.push_str(&format!(" │ class {c}"));
            }
            if let Some(n) = s.attempt {
                let mode = match s.spill {
                    Some(true) => " SPILL",
                    Some(false) => " NOSPILL",
                    None => "",
                };
                t.push_str(&format!(" │ attempt {n}{mode}"));
            }
            let end = if s.at_end { " (end)" } else { "" };
            let line = s.line.strip_prefix(&format!("[{}] ", s.func)).unwrap_or(&s.line);
            t.push_str(&format!(" │ event {}{end} │ {line}", s.event));
            t
        }
    };
    let w = area.width.saturating_sub(right.len() as u16);
    put(buf, area.x, area.y, &clip(&text, w as usize), w, th.status);
    put(buf, area.right().saturating_sub(right.len() as u16), area.y, right, right.len() as u16, th.status);
}

/// Draws the bottom row; returns where the terminal cursor goes when typing.
fn command_line(app: &App, area: Rect, buf: &mut Buffer) -> Option<(u16, u16)> {
    let th = app.theme;
    let v = &app.view;
    match v.mode {
        Mode::Command | Mode::Search => {
            let prompt = if v.mode == Mode::Command { "(radbg) " } else { "/" };
            let x = area.x + put(buf, area.x, area.y, prompt, area.width, th.key);
            let room = area.right().saturating_sub(x);
            // Scroll the line so the cursor stays visible.
            let before = v.input[..v.input_pos].chars().count() as u16;
            let skip = before.saturating_sub(room.saturating_sub(1));
            let shown: String = v.input.chars().skip(skip as usize).collect();
            let used = put(buf, x, area.y, &shown, room, th.text);
            if v.mode == Mode::Command
                && let Some(h) = crate::ui::complete::hint(&v.input, v.input_pos)
            {
                put(buf, x + used, area.y, &h, room.saturating_sub(used), th.dim);
            }
            Some((x + before - skip, area.y))
        }
        _ => {
            match &v.message {
                Some((m, err)) => {
                    put(
                        buf,
                        area.x,
                        area.y,
                        &clip(m, area.width as usize),
                        area.width,
                        if *err { th.error } else { th.text },
                    );
                }
                None => {
                    put(buf, area.x, area.y, &clip(KEY_HINTS, area.width as usize), area.width, th.dim);
                }
            }
            None
        }
    }
}

fn completions(app: &App, cmd: Rect, buf: &mut Buffer) {
    let th = app.theme;
    let c = &app.view.completions;
    let w = c.iter().map(|s| s.chars().count()).max().unwrap_or(1) as u16 + 2;
    let per_row = ((cmd.width.saturating_sub(2)) / w).max(1) as usize;
    let rows = c.len().div_ceil(per_row).min(8) as u16;
    let area = Rect::new(cmd.x, cmd.y.saturating_sub(rows + 2), cmd.width, rows + 2);
    Clear.render(area, buf);
    let title = format!(" {} completions (Tab) ", c.len());
    let block = Block::bordered().border_style(th.border_focus).title(title);
    let inner = block.inner(area);
    block.render(area, buf);
    for (i, s) in c.iter().take(per_row * rows as usize).enumerate() {
        let x = inner.x + (i % per_row) as u16 * w;
        let y = inner.y + (i / per_row) as u16;
        put(buf, x, y, s, w.min(inner.right().saturating_sub(x)), th.text);
    }
}

/// Every line of the help screen: keys (from the key table) and commands (from the
/// command table), so it cannot drift from what the keys and commands do.
pub fn help_lines(app: &App) -> Vec<Line<'static>> {
    let th = app.theme;
    let mut out = vec![Line::from(Span::styled("Keys", th.title))];
    for b in KEYS {
        let keys = b.keys.iter().map(|k| k.name()).collect::<Vec<_>>().join(" ");
        out.push(Line::from(vec![Span::styled(format!("  {keys:<14}"), th.key), Span::raw(b.help)]));
    }
    out.push(Line::raw(""));
    out.push(Line::from(Span::styled("Command line (after :)", th.title)));
    for (k, h) in EDIT_KEYS {
        out.push(Line::from(vec![Span::styled(format!("  {k:<22}"), th.key), Span::raw(*h)]));
    }
    out.push(Line::raw(""));
    out.push(Line::from(Span::styled("Commands (type them after :, 'help COMMAND' explains one)", th.title)));
    for c in COMMANDS {
        let aliases = if c.aliases.is_empty() { String::new() } else { format!("  ({})", c.aliases.join(", ")) };
        out.push(Line::from(vec![Span::styled(format!("  {}", c.name), th.key), Span::styled(aliases, th.dim)]));
        out.push(Line::from(vec![Span::raw("      "), Span::raw(c.summary)]));
        out.push(Line::from(vec![Span::raw("      "), Span::styled(c.synopsis, th.dim)]));
    }
    out
}

fn help(app: &mut App, area: Rect, buf: &mut Buffer) {
    let th = app.theme;
    let margin = if area.width > 90 { 4 } else { 0 };
    let r =
        Rect::new(area.x + margin, area.y + 1, area.width.saturating_sub(2 * margin), area.height.saturating_sub(2));
    Clear.render(r, buf);
    let block = Block::bordered()
        .border_style(th.border_focus)
        .title(Line::from(Span::styled(" Help · j/k/PgDn scroll · Esc closes ", th.title)));
    let inner = block.inner(r);
    block.render(r, buf);
    let lines = help_lines(app);
    app.view.help_scroll = panes::lines(buf, inner, &lines, app.view.help_scroll);
}
