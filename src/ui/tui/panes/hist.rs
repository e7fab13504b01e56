//! The histogram pane (`query::histogram`): the fat-point primary cost per slot as
//! bars, the secondary cost beside it when there is room (else in a band under it),
//! the discard threshold as a line, the budget boundary, and a marker row: `▲` the chosen slot, `×` blocked by a
//! hard constraint, `-` discarded by the threshold, `!` over budget, `r` held by a nearby store's data or a
//! recent load's address (the store-data rotation, issue 23 rule 6), `b` a bank conflict with a co-source (the
//! bank tie-break, knob 627, below the bank limit shown in the header). Under a
//! Graph-family run (Chaitin-Briggs) it shows the node's colour window instead
//! (`query::briggs_colours`): one row per colour, taken by a neighbour, blocked by a
//! physical register, free, or chosen.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use super::{BARS, digits, empty, put};
use crate::alloc::briggs::view::ColourState;
use crate::engine::query;
use crate::ui::tui::app::App;

/// The pane title: for a Graph-family run (Chaitin-Briggs), the node and its colour.
pub fn title(app: &App) -> String {
    if super::graph_views(app) {
        return colours_title(app);
    }
    let Some(h) = app.session.dbg.as_ref().and_then(|d| query::histogram(d.machine())) else { return String::new() };
    match h.chosen {
        Some(c) => format!("{} → {}", h.vreg, query::reg_name(h.file, c, h.width)),
        None => format!("{} → none", h.vreg),
    }
}

pub fn render(app: &mut App, area: Rect, buf: &mut Buffer) {
    if super::graph_views(app) {
        return render_colours(app, area, buf);
    }
    let th = app.theme;
    let Some(h) = app.session.dbg.as_ref().and_then(|d| query::histogram(d.machine())) else {
        let msg = match super::phase(app, crate::engine::Stage::Alloc) {
            super::Phase::Before => "no assignment decision yet: the histograms appear at an 'assign' event",
            super::Phase::In => {
                "no decision at this event: the histograms appear at an 'assign' event (n steps to the next)"
            }
            super::Phase::After => {
                "allocation is over: no decision at the cursor (break assign %VREG then rc, or S, goes back to one)"
            }
        };
        empty(buf, area, msg, th.dim);
        return;
    };
    let n = h.primary.len();
    let free = (0..n).filter(|&i| h.primary[i] == 0 && !h.blocked[i]).count();
    let p = h.file.prefix();
    let head = Line::from(vec![
        Span::styled(format!("{} w{} ", h.vreg, h.width), th.text),
        Span::styled(format!("threshold {} ", h.threshold), th.threshold),
        Span::styled(format!("budget {} ", h.budget), th.budget),
        Span::styled(
            format!("chosen {} ", h.chosen.map(|c| format!("{p}{c}")).unwrap_or_else(|| "none".into())),
            th.chosen,
        ),
        Span::styled(format!("{free}/{n} free"), th.dim),
        Span::styled(h.bank_limit.map(|l| format!(" banks<{p}{l}")).unwrap_or_default(), th.dim),
    ]);
    buf.set_line(area.x, area.y, &head, area.width);
    if n == 0 || area.height < 5 {
        return;
    }
    let max_of = |v: &[u32]| v.iter().copied().max().unwrap_or(0);
    let gw = digits(max_of(&h.primary).max(max_of(&h.secondary)).max(h.threshold).max(1) as u64) + 1;
    let avail = area.width.saturating_sub(gw) as usize;
    let cw = if avail >= 2 * n { 2 } else { 1 };
    let shown = (avail / cw).min(n);
    if shown == 0 {
        return;
    }
    // A window of slots around the chosen one when they do not all fit.
    let focus = h.chosen.map(|c| c as usize).unwrap_or(0);
    let first = focus.saturating_sub(shown / 2).min(n - shown);
    let rows = (area.height - 3) as usize;
    let y_bottom = area.y + rows as u16;
    let x0 = area.x + gw;
    // Secondary cost beside the primary when two columns per slot fit; else in a
    // band of its own under it, on its own scale.
    let stacked = cw == 1 && rows >= 6;
    let (rp, rs) = if stacked { (rows - rows / 3, rows / 3) } else { (rows, 0) };
    let yp_bottom = area.y + rp as u16;
    let ymax =
        if stacked { max_of(&h.primary) } else { max_of(&h.primary).max(max_of(&h.secondary)) }.max(h.threshold).max(1);
    let ymax2 = max_of(&h.secondary).max(1);
    let thr_row = ((h.threshold as u64 * rp as u64 * 8 / ymax as u64) as usize / 8).min(rp - 1);
    let column = |buf: &mut Buffer, x: u16, bottom: u16, rows: usize, v: u32, top: u32, style, thr: Option<usize>| {
        let h8 = (v as u64 * rows as u64 * 8 / top as u64) as usize;
        for r in 0..rows {
            let fill = h8.saturating_sub(r * 8).min(8);
            let y = bottom - r as u16;
            if fill > 0 {
                put(buf, x, y, &BARS[fill].to_string(), 1, style);
            } else if thr == Some(r) {
                put(buf, x, y, "┈", 1, th.threshold);
            }
        }
    };
    let bars_end = x0 + (shown * cw) as u16;
    if stacked && bars_end + 16 <= area.right() {
        put(buf, bars_end + 1, yp_bottom + 1, "secondary cost", 14, th.secondary);
    }
    let mut label_end = 0;
    for (k, s) in (first..first + shown).enumerate() {
        let x = x0 + (k * cw) as u16;
        let chosen = h.chosen == Some(s as u16);
        let pstyle = if chosen { th.chosen } else { th.primary };
        column(buf, x, yp_bottom, rp, h.primary[s], ymax, pstyle, Some(thr_row));
        if cw == 2 {
            column(buf, x + 1, yp_bottom, rp, h.secondary[s], ymax, th.secondary, Some(thr_row));
        } else if rs > 0 {
            column(buf, x, y_bottom, rs, h.secondary[s], ymax2, th.secondary, None);
        }
        let (mark, style) = if chosen {
            ("▲", th.chosen)
        } else if h.blocked[s] {
            ("×", th.dim)
        } else if h.discarded.contains(&(s as u16)) {
            ("-", th.threshold)
        } else if s as u32 >= h.budget {
            ("!", th.over)
        } else if h.rotate.get(s).is_some_and(|&r| r > 0) && h.bank_limit.is_some_and(|l| (s as u32) < l) {
            ("r", th.threshold)
        } else if h.bank[s] > 0 && h.bank_limit.is_some_and(|l| (s as u32) < l) {
            ("b", th.threshold)
        } else {
            ("·", th.dim)
        };
        put(buf, x, y_bottom + 1, mark, 1, style);
        // Slot numbers on round slots, where they do not run into the previous one.
        let step = if cw == 2 { 4 } else { 8 };
        if s % step == 0 && x >= label_end {
            let label = if s == first { format!("{p}{s}") } else { s.to_string() };
            let room = area.right().saturating_sub(x);
            label_end = x + put(buf, x, y_bottom + 2, &label, room.min(label.len() as u16), th.dim) + 1;
        }
    }
    // The budget boundary in the marker row, when it falls inside the window.
    if cw == 2 && (first + 1..first + shown).contains(&(h.budget as usize)) {
        let x = x0 + ((h.budget as usize - first) * cw) as u16;
        put(buf, x.saturating_sub(1), y_bottom + 1, "|", 1, th.budget);
    }
    put(buf, area.x, area.y + 1, &format!("{ymax:>w$}", w = gw as usize - 1), gw, th.dim);
    let ty = yp_bottom - thr_row as u16;
    if ty > area.y + 1 {
        put(buf, area.x, ty, &format!("{:>w$}", h.threshold, w = gw as usize - 1), gw, th.threshold);
    }
    if rs > 0 {
        put(buf, area.x, yp_bottom + 1, &format!("{ymax2:>w$}", w = gw as usize - 1), gw, th.secondary);
    }
}

fn colours_title(app: &App) -> String {
    let Some((d, fi, v)) = super::graph_node(app) else { return String::new() };
    let Some(c) = query::briggs_of(d.machine(), fi).and_then(|b| query::briggs_colours(d, b, v)) else {
        return String::new();
    };
    match (c.chosen, c.spilled) {
        (_, true) => format!("{} → no colour (spill)", c.vreg),
        (Some(x), _) => format!("{} → {}", c.vreg, crate::engine::query::reg_name(c.file, x, c.width)),
        (None, _) => format!("{}: {} free", c.vreg, c.available.len()),
    }
}

fn render_colours(app: &mut App, area: Rect, buf: &mut Buffer) {
    let th = app.theme;
    let Some((d, fi, v)) = super::graph_node(app) else {
        empty(buf, area, "no current node: colour availability appears at a Chaitin-Briggs event", th.dim);
        return;
    };
    let Some(c) = query::briggs_of(d.machine(), fi).and_then(|b| query::briggs_colours(d, b, v)) else {
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
