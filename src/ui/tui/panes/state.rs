//! The allocator-state pane (`query::state_table`): the modelled fields of ptxas's
//! allocator object by byte offset, those the current event changed marked `*` and
//! highlighted (compared with the table before the event, kept in the cache).

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use super::{clip, empty, lines};
use crate::engine::query;
use crate::ui::tui::app::App;
use crate::ui::tui::layout::PaneId;

pub fn title(app: &App) -> String {
    match app.session.dbg.as_ref() {
        Some(d) => format!("after event {}", d.cursor()),
        None => String::new(),
    }
}

pub fn render(app: &mut App, area: Rect, buf: &mut Buffer) {
    let th = app.theme;
    let Some(d) = app.session.dbg.as_ref() else {
        empty(buf, area, "no function loaded", th.dim);
        return;
    };
    let table = query::state_table(d.machine());
    let before = app.cache.state_before(d);
    let d = app.session.dbg.as_ref().expect("checked");
    let mut changed = 0;
    let mut unread = 0;
    let mut out = Vec::new();
    // Names take what the values leave (values are short: flags, counts, a cost).
    let vw = table.iter().filter_map(|f| f.value.as_deref()).map(|v| v.chars().count()).max().unwrap_or(0).clamp(3, 12);
    let nw = (area.width as usize).saturating_sub(8 + vw + 1).clamp(10, 44);
    for f in table.iter().filter(|f| f.value.is_some()) {
        let v = f.value.as_deref().unwrap_or("");
        let ch = d.cursor() > 0 && before.iter().find(|b| b.0 == f.offset).map(|b| b.1.as_str()) != Some(v);
        changed += usize::from(ch);
        // Issue 24: a value filled in from an unmodelled knob is dimmed and marked.
        let read = crate::knobs::unread_state_field(f.offset).is_none();
        unread += usize::from(!read);
        let style = if ch {
            th.changed
        } else if read {
            th.text
        } else {
            th.dim
        };
        out.push(Line::from(vec![
            Span::styled(if ch { "*" } else { " " }, th.changed),
            Span::styled(format!("+{:<5} ", f.offset), th.dim),
            Span::styled(format!("{:<nw$} ", clip(f.name, nw)), style),
            Span::styled(if read { v.to_string() } else { format!("{v} (unread)") }, style),
        ]));
    }
    let unmodelled = table.len() - out.len();
    out.insert(
        0,
        Line::from(Span::styled(
            format!(
                "{changed} changed by this event · {unmodelled} not modelled · {unread} unread ('state' lists all)"
            ),
            th.dim,
        )),
    );
    let s = app.view.scroll[PaneId::State.index()];
    app.view.scroll[PaneId::State.index()] = lines(buf, area, &out, s);
}
