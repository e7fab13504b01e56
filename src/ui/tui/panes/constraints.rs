//! The constraint-node pane (`query::constraints_of`) of the selected vreg, or of the
//! one being allocated: type 0–15 (seed 004's number, with seed 000's beside it) with its
//! name, target, weight, and whether the node is hard, soft or secondary. Under a Graph-family run (Chaitin-Briggs) it lists the
//! current node's neighbours with their colours instead (`alloc::briggs::view::neighbours`).

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use super::{clip, empty, lines, text};
use crate::alloc::briggs::view as bv;
use crate::engine::query;
use crate::ui::tui::app::App;
use crate::ui::tui::layout::PaneId;

/// The pane title: for a Graph-family run (Chaitin-Briggs), the node, its degree and K.
pub fn title(app: &App) -> String {
    if super::graph_views(app) {
        return neighbours_title(app);
    }
    match app.vreg_name() {
        Some(v) if app.view.vreg.is_some() => format!("{v} (selected)"),
        Some(v) => v,
        None => String::new(),
    }
}

pub fn render(app: &mut App, area: Rect, buf: &mut Buffer) {
    if super::graph_views(app) {
        return render_neighbours(app, area, buf);
    }
    let th = app.theme;
    let (Some(d), Some(fi)) = (app.session.dbg.as_ref(), app.func()) else {
        empty(buf, area, "no function loaded", th.dim);
        return;
    };
    let Some(name) = app.vreg_name() else {
        empty(buf, area, "no vreg is being allocated here (v on an IR line selects one)", th.dim);
        return;
    };
    let f = query::func_ir(d.machine(), fi);
    let Some(v) = f.vreg_by_name(&name) else {
        empty(buf, area, &format!("{name} is not in function {}", f.name), th.dim);
        return;
    };
    let nodes = query::constraints_of(d.machine(), fi, v);
    if nodes.is_empty() {
        let why = if query::alloc_of(d.machine(), fi).is_none() { " (allocation has not started)" } else { "" };
        empty(buf, area, &format!("{name}: no constraint nodes{why}"), th.dim);
        return;
    }
    let tw = nodes.iter().map(|n| n.target.chars().count()).max().unwrap_or(6).clamp(6, 14);
    // Two numberings (issue 24): `ty` is seed 004's type, `000` the same node in seed 000's table.
    let mut out = vec![text(format!("ty 000 {:<18} {:<tw$} {:>6} kind", "name", "target", "weight"), th.dim)];
    for n in &nodes {
        let (kind, style) = if n.secondary {
            ("secondary", th.dim)
        } else if n.hard {
            ("hard", th.warn)
        } else {
            ("soft", th.text)
        };
        out.push(Line::from(vec![
            Span::styled(format!("{:>2} {:>3} {:<18} ", n.ty, n.seed000.unwrap_or("-"), clip(n.name, 18)), style),
            Span::styled(format!("{:<tw$} ", clip(&n.target, tw)), th.assigned),
            Span::styled(format!("{:>6} {kind}", n.weight), style),
        ]));
    }
    let s = app.view.scroll[PaneId::Constraints.index()];
    app.view.scroll[PaneId::Constraints.index()] = lines(buf, area, &out, s);
}

fn neighbours_title(app: &App) -> String {
    let Some((d, fi, v)) = super::graph_node(app) else { return String::new() };
    let Some(n) = query::briggs_of(d.machine(), fi).and_then(|b| bv::neighbours(b, v)) else { return String::new() };
    let sel = if app.view.vreg.is_some() { " (selected)" } else { "" };
    format!("{}{sel}: degree {} / K {}", n.vreg, n.degree, n.k)
}

fn render_neighbours(app: &mut App, area: Rect, buf: &mut Buffer) {
    let th = app.theme;
    let Some((d, fi, v)) = super::graph_node(app) else {
        empty(buf, area, "no current node: the neighbour list appears at a Chaitin-Briggs event", th.dim);
        return;
    };
    let Some(n) = query::briggs_of(d.machine(), fi).and_then(|b| bv::neighbours(b, v)) else {
        empty(buf, area, "not a node of the current interference graph", th.dim);
        return;
    };
    let mut out = vec![text(
        format!(
            "{}{} colour {} · {} neighbours",
            n.vreg,
            n.node.as_ref().map(|x| format!(" (node {x})")).unwrap_or_default(),
            n.colour.as_deref().unwrap_or("-"),
            n.neighbours.len()
        ),
        th.text,
    )];
    out.push(text(format!("{:<14} {:<9} {:<12} degree", "neighbour", "colour", "status"), th.dim));
    for x in &n.neighbours {
        let style = if x.colour.is_some() { th.assigned } else { th.text };
        out.push(Line::from(vec![
            Span::styled(format!("{:<14} ", clip(&x.name, 14)), th.text),
            Span::styled(format!("{:<9} ", x.colour.as_deref().unwrap_or("-")), style),
            Span::styled(format!("{:<12} {}", x.status, x.degree), th.dim),
        ]));
    }
    if !n.physical.is_empty() {
        out.push(text(format!("physical: {}", n.physical.join(" ")), th.warn));
    }
    let s = app.view.scroll[PaneId::Constraints.index()];
    app.view.scroll[PaneId::Constraints.index()] = lines(buf, area, &out, s);
}
