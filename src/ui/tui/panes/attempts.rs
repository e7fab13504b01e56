//! The attempts pane (`query::attempts`, `query::status`): each class's NOSPILL and
//! SPILL attempts with target, registers used, vregs over budget, whether it fit, the
//! best one, and the attempt in progress. Under a Graph-family run (Chaitin-Briggs) it
//! lists the build-and-colour iterations instead (`query::briggs_iterations`).

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use super::{empty, lines, text};
use crate::engine::query;
use crate::ui::tui::app::App;
use crate::ui::tui::layout::PaneId;

/// The pane title: for a Graph-family run (Chaitin-Briggs), the iterations so far.
pub fn title(app: &App) -> String {
    if super::graph_views(app) {
        return iterations_title(app);
    }
    let (Some(d), Some(fi)) = (app.session.dbg.as_ref(), app.func()) else { return String::new() };
    let n = query::attempts(d.machine(), fi).len();
    format!("{n} so far")
}

pub fn render(app: &mut App, area: Rect, buf: &mut Buffer) {
    if super::graph_views(app) {
        return render_iterations(app, area, buf);
    }
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
        let best = query::is_best(&recs, r) && !running(r.class);
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

fn iterations_title(app: &App) -> String {
    let (Some(d), Some(fi)) = (app.session.dbg.as_ref(), app.func()) else { return String::new() };
    let its = query::briggs_iterations(d, fi);
    format!("{} Briggs iteration(s)", its.len())
}

/// The attempts pane under Briggs: one row per build-and-colour iteration.
fn render_iterations(app: &mut App, area: Rect, buf: &mut Buffer) {
    let th = app.theme;
    let (Some(d), Some(fi)) = (app.session.dbg.as_ref(), app.func()) else {
        empty(buf, area, "no function loaded", th.dim);
        return;
    };
    let its = query::briggs_iterations(d, fi);
    if its.is_empty() {
        let msg = match super::phase(app, crate::engine::Stage::Alloc) {
            super::Phase::After => "no Briggs iterations: this function's allocation ran none",
            _ => "no Briggs iterations yet: they start in the alloc stage",
        };
        empty(buf, area, msg, th.dim);
        return;
    }
    let mut out = vec![text("it nodes edges coal simp frz cand col spilled", th.dim)];
    for it in &its {
        let spilled = if !it.finished {
            "…".to_string()
        } else if it.spilled.is_empty() {
            "-".to_string()
        } else {
            it.spilled.join(" ")
        };
        let style = if it.finished && it.spilled.is_empty() { th.ok } else { th.text };
        out.push(text(
            format!(
                "{:<2} {:<5} {:<5} {:<4} {:<4} {:<3} {:<4} {:<3} {spilled}",
                it.n, it.nodes, it.edges, it.coalesced, it.removed, it.frozen, it.candidates, it.coloured
            ),
            style,
        ));
    }
    let s = app.view.scroll[PaneId::Attempts.index()];
    app.view.scroll[PaneId::Attempts.index()] = lines(buf, area, &out, s);
}
