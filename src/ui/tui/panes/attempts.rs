//! The attempts pane (`query::attempts`, `query::status`): each class's NOSPILL and
//! SPILL attempts with target, registers used, vregs over budget, whether it fit, the
//! best one, and the attempt in progress.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use super::{empty, lines, text};
use crate::engine::query;
use crate::ui::tui::app::App;
use crate::ui::tui::layout::PaneId;

pub fn title(app: &App) -> String {
    let (Some(d), Some(fi)) = (app.session.dbg.as_ref(), app.func()) else { return String::new() };
    let n = query::attempts(d.machine(), fi).len();
    format!("{n} so far")
}

pub fn render(app: &mut App, area: Rect, buf: &mut Buffer) {
    let th = app.theme;
    let (Some(d), Some(fi)) = (app.session.dbg.as_ref(), app.func()) else {
        empty(buf, area, "no function loaded", th.dim);
        return;
    };
    let recs = query::attempts(d.machine(), fi);
    let st = query::status(d);
    let mut out = vec![text("class  #  mode     target used over result", th.dim)];
    // While a class is still retrying, its best so far is not yet a result.
    let running = |c: crate::ir::RegClass| {
        st.stage == crate::engine::Stage::Alloc
            && st.class.as_deref() == Some(c.name())
            && st.attempt.is_some_and(|n| !recs.iter().any(|r| r.class == c && r.number == n))
    };
    for r in &recs {
        let best =
            crate::alloc::attempt::best_of(&recs, r.class).is_some_and(|b| b.number == r.number) && !running(r.class);
        let (res, style) = if r.success { ("fits", th.ok) } else { ("over", th.over) };
        out.push(Line::from(vec![
            Span::styled(
                format!(
                    "{:<6} {:<2} {:<8} {:>6} {:>4} {:>4} ",
                    r.class.name(),
                    r.number,
                    if r.spill { "SPILL" } else { "NOSPILL" },
                    r.target,
                    r.used,
                    r.needs_spill.len()
                ),
                th.text,
            ),
            Span::styled(res, style),
            Span::styled(if best { " best" } else { "" }, th.chosen),
        ]));
    }
    // The attempt under way, once it has started and has no record yet.
    if let (Some(c), Some(n)) = (&st.class, st.attempt)
        && st.stage == crate::engine::Stage::Alloc
        && !recs.iter().any(|r| r.class.name() == c && r.number == n)
    {
        let mode = match st.spill {
            Some(true) => "SPILL",
            Some(false) => "NOSPILL",
            None => "",
        };
        out.push(text(format!("{c:<6} {n:<2} {mode:<8} … in progress"), th.current));
    }
    if out.len() == 1 {
        let msg = match super::phase(app, crate::engine::Stage::Alloc) {
            super::Phase::After => "no attempts: this function's allocation ran none",
            _ => "no attempts yet: they start in the alloc stage",
        };
        empty(buf, area, msg, th.dim);
        return;
    }
    let s = app.view.scroll[PaneId::Attempts.index()];
    app.view.scroll[PaneId::Attempts.index()] = lines(buf, area, &out, s);
}
