//! The panes under `set allocator briggs`: the constraint pane becomes the current
//! node's neighbour list (`query_briggs::neighbours`), the histogram pane its colour
//! availability (`query_briggs::colours`): one row per colour of the window, taken
//! by a neighbour, blocked by a physical register, free, or chosen; the attempts pane
//! lists the build-and-colour iterations (`query_briggs::iterations`).

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use super::{clip, empty, lines, put, text};
use crate::alloc::briggs::view::{self as bv, ColourState};
use crate::engine::query as qb;
use crate::engine::{AllocatorKind, Debugger};
use crate::ir::VRegId;
use crate::ui::tui::app::App;
use crate::ui::tui::layout::PaneId;

/// Whether the session runs the Chaitin-Briggs allocator (the panes switch).
pub fn active(app: &App) -> bool {
    app.session.dbg.as_ref().is_some_and(|d| d.opts.allocator == AllocatorKind::Briggs)
}

/// The pane names under Briggs (title bars and tab strips).
pub fn pane_name(p: PaneId, short: bool) -> Option<&'static str> {
    match (p, short) {
        (PaneId::Constraints, false) => Some("Neighbours"),
        (PaneId::Constraints, true) => Some("Nbrs"),
        (PaneId::Hist, false) => Some("Colours"),
        (PaneId::Hist, true) => Some("Cols"),
        (PaneId::Attempts, false) => Some("Iterations"),
        (PaneId::Attempts, true) => Some("Iter"),
        _ => None,
    }
}

/// The node shown: the vreg selected in the IR pane, else the current event's node.
fn node(app: &App) -> Option<(&Debugger, usize, VRegId)> {
    let d = app.session.dbg.as_ref()?;
    let fi = app.func()?;
    if let Some(name) = &app.view.vreg {
        let b = qb::briggs_of(d.machine(), fi)?;
        return Some((d, fi, b.func().vreg_by_name(name)?));
    }
    let (f, v) = qb::event_node(d)?;
    Some((d, f, v))
}

pub fn neighbours_title(app: &App) -> String {
    let Some((d, fi, v)) = node(app) else { return String::new() };
    let Some(n) = qb::briggs_of(d.machine(), fi).and_then(|b| bv::neighbours(b, v)) else { return String::new() };
    let sel = if app.view.vreg.is_some() { " (selected)" } else { "" };
    format!("{}{sel}: degree {} / K {}", n.vreg, n.degree, n.k)
}

pub fn render_neighbours(app: &mut App, area: Rect, buf: &mut Buffer) {
    let th = app.theme;
    let Some((d, fi, v)) = node(app) else {
        empty(buf, area, "no current node: the neighbour list appears at a Chaitin-Briggs event", th.dim);
        return;
    };
    let Some(n) = qb::briggs_of(d.machine(), fi).and_then(|b| bv::neighbours(b, v)) else {
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

pub fn colours_title(app: &App) -> String {
    let Some((d, fi, v)) = node(app) else { return String::new() };
    let Some(c) = qb::briggs_of(d.machine(), fi).and_then(|b| qb::briggs_colours(d, b, v)) else {
        return String::new();
    };
    match (c.chosen, c.spilled) {
        (_, true) => format!("{} → no colour (spill)", c.vreg),
        (Some(x), _) => format!("{} → {}", c.vreg, crate::engine::query::reg_name(c.file, x, c.width)),
        (None, _) => format!("{}: {} free", c.vreg, c.available.len()),
    }
}

pub fn render_colours(app: &mut App, area: Rect, buf: &mut Buffer) {
    let th = app.theme;
    let Some((d, fi, v)) = node(app) else {
        empty(buf, area, "no current node: colour availability appears at a Chaitin-Briggs event", th.dim);
        return;
    };
    let Some(c) = qb::briggs_of(d.machine(), fi).and_then(|b| qb::briggs_colours(d, b, v)) else {
        empty(buf, area, "no colour window for this vreg", th.dim);
        return;
    };
    let p = c.file.prefix();
    let head = Line::from(vec![
        Span::styled(format!("{} w{} K {} ", c.vreg, c.width, c.k), th.text),
        Span::styled(format!("mask {} ", c.class_mask), th.budget),
        Span::styled(
            match (c.chosen, c.spilled) {
                (_, true) => "no colour: spill ".to_string(),
                (Some(x), _) => format!("chosen {p}{x} "),
                (None, _) => "not coloured ".to_string(),
            },
            if c.spilled { th.over } else { th.chosen },
        ),
        Span::styled(format!("{} forbidden, {} free", c.forbidden.len(), c.available.len()), th.dim),
    ]);
    buf.set_line(area.x, area.y, &head, area.width);
    // One row per colour: register, a bar, who takes it.
    let rows = area.height.saturating_sub(1) as usize;
    let first = c.chosen.and_then(|x| c.cells.iter().position(|k| k.reg == x)).unwrap_or(0);
    let start = first.saturating_sub(rows / 2).min(c.cells.len().saturating_sub(rows));
    for (i, cell) in c.cells.iter().skip(start).take(rows).enumerate() {
        let y = area.y + 1 + i as u16;
        let (bar, style, what) = match cell.state {
            ColourState::Chosen => ("████", th.chosen, "◀ chosen".to_string()),
            ColourState::Neighbour => ("▓▓▓▓", th.primary, cell.by.join(" ")),
            ColourState::Physical => ("▒▒▒▒", th.warn, "physical".to_string()),
            ColourState::Free => ("····", th.dim, "free".to_string()),
        };
        let mut x = area.x;
        x += put(buf, x, y, &format!("{:<5}", format!("{p}{}", cell.reg)), 6, th.dim);
        x += put(buf, x, y, bar, 4, style);
        x += put(buf, x, y, if cell.start { " " } else { "'" }, 1, th.dim);
        put(
            buf,
            x,
            y,
            &what,
            area.right().saturating_sub(x),
            if cell.state == ColourState::Free { th.dim } else { th.text },
        );
    }
}

pub fn iterations_title(app: &App) -> String {
    let (Some(d), Some(fi)) = (app.session.dbg.as_ref(), app.func()) else { return String::new() };
    let its = qb::briggs_iterations(d, fi);
    format!("{} Briggs iteration(s)", its.len())
}

/// The attempts pane under Briggs: one row per build-and-colour iteration.
pub fn render_iterations(app: &mut App, area: Rect, buf: &mut Buffer) {
    let th = app.theme;
    let (Some(d), Some(fi)) = (app.session.dbg.as_ref(), app.func()) else {
        empty(buf, area, "no function loaded", th.dim);
        return;
    };
    let its = qb::briggs_iterations(d, fi);
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
