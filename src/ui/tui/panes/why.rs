//! The Why pane: follows the cursor. At an event about a vreg (an assignment, its
//! constraint list) it explains that vreg — its final register or spill, defining and
//! last-use lines, the decision that marked it, the spill code (`why spill`); otherwise
//! `why registers` of the current function. Answers come from the finished run, which
//! the TUI cache keeps until the run changes (never from the cursor's half-done state).

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

use super::{empty, lines, text, wrap};
use crate::ui::tui::app::App;
use crate::ui::tui::layout::PaneId;

/// What the pane explains at the cursor: `Some(vreg name)` or the function's registers.
fn subject(app: &App) -> Option<(usize, Option<String>)> {
    let d = app.session.dbg.as_ref()?;
    let fi = app.func()?;
    let v = crate::command::exec::event_vreg(d)
        .filter(|(f, _)| *f == fi)
        .map(|(f, v)| crate::engine::query::func_ir(d.machine(), f).vreg(v).name.clone());
    Some((fi, v))
}

pub fn title(app: &App) -> String {
    match subject(app) {
        Some((_, Some(v))) => format!("vreg {v}"),
        Some((fi, None)) => {
            let d = app.session.dbg.as_ref().expect("subject has a debugger");
            format!("registers of {}", d.machine().module.functions[fi].name)
        }
        None => String::new(),
    }
}

pub fn render(app: &mut App, area: Rect, buf: &mut Buffer) {
    let th = app.theme;
    let Some((fi, v)) = subject(app) else {
        empty(buf, area, "no function loaded", th.dim);
        return;
    };
    let file = app.session.file.clone().unwrap_or_default();
    let answer = {
        let d = app.session.dbg.as_ref().expect("subject has a debugger");
        app.cache.why_text(d, &file, fi, v.as_deref())
    };
    // Long lines wrap (continuations indented) so nothing is cut at 80 columns.
    let mut out = Vec::new();
    for l in answer.lines() {
        let style = if l.contains("FAILED") || l.contains("fits: NO") {
            th.error
        } else if !l.starts_with(' ') {
            th.title
        } else {
            th.text
        };
        for (i, part) in wrap(l, area.width.max(8) as usize - 2).into_iter().enumerate() {
            out.push(text(if i == 0 { part } else { format!("  {part}") }, style));
        }
    }
    let s = app.view.scroll[PaneId::Why.index()];
    app.view.scroll[PaneId::Why.index()] = lines(buf, area, &out, s);
}
