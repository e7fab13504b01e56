//! The ABI pane (`query::abi_view`): the checks of the shown function in seed 001's
//! validation order with code, verdict and message; checks not reached yet are dim,
//! the current event's check highlighted.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use super::{empty, lines, text};
use crate::engine::query;
use crate::ui::tui::app::App;
use crate::ui::tui::layout::PaneId;

pub fn title(app: &App) -> String {
    let (Some(d), Some(fi)) = (app.session.dbg.as_ref(), app.func()) else { return String::new() };
    match query::abi_view(d, fi) {
        Some(v) => {
            let warn = v.checks.iter().filter(|c| c.reached && !c.passed).count();
            format!("{} · {warn} warning(s)", v.function)
        }
        None => String::new(),
    }
}

pub fn render(app: &mut App, area: Rect, buf: &mut Buffer) {
    let th = app.theme;
    let (Some(d), Some(fi)) = (app.session.dbg.as_ref(), app.func()) else {
        empty(buf, area, "no function loaded", th.dim);
        return;
    };
    let Some(v) = query::abi_view(d, fi) else {
        let msg = match super::phase(app, crate::engine::Stage::Abi) {
            super::Phase::Before => "no ABI checks yet: they run after liveness and the uninitialized-register check",
            _ => "no ABI checks ran for this function",
        };
        empty(buf, area, msg, th.dim);
        return;
    };
    if v.checks.is_empty() && v.error.is_none() {
        empty(buf, area, &format!("{}: no ABI spec, the calling convention does not apply", v.function), th.dim);
        return;
    }
    let mut out = Vec::new();
    for (i, c) in v.checks.iter().enumerate() {
        let (verdict, style) = match (c.reached, c.passed) {
            (false, _) => ("  ", th.dim),
            (true, true) => ("ok", th.ok),
            (true, false) => ("!!", th.warn),
        };
        let msg = if c.passed { &c.detail } else { &c.message };
        let code = if c.code == 0 { "----".to_string() } else { c.code.to_string() };
        let mut line = Line::from(vec![
            Span::styled(format!("{code} "), if c.reached { th.text } else { th.dim }),
            Span::styled(format!("{verdict} "), style),
            Span::styled(msg.clone(), if c.reached { th.text } else { th.dim }),
        ]);
        if v.current == Some(i) {
            line = line.patch_style(th.cursor);
        }
        out.push(line);
    }
    if let Some(e) = &v.error {
        out.push(text(format!("error: {e}"), th.error));
    }
    let s = app.view.scroll[PaneId::Abi.index()];
    app.view.scroll[PaneId::Abi.index()] = lines(buf, area, &out, s);
}
