//! The histogram pane (`query::histogram`): the fat-point primary cost per slot as
//! bars (secondary cost beside it when there is room), the discard threshold as a
//! line, the budget boundary, and a marker row: `▲` the chosen slot, `×` blocked by a
//! hard constraint, `-` discarded by the threshold, `!` over budget.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use super::{BARS, digits, empty, put};
use crate::engine::query;
use crate::ui::tui::app::App;

pub fn title(app: &App) -> String {
    let Some(h) = app.session.dbg.as_ref().and_then(|d| query::histogram(d.machine())) else { return String::new() };
    match h.chosen {
        Some(c) => format!("{} → {}", h.vreg, query::reg_name(h.file, c, h.width)),
        None => format!("{} → none", h.vreg),
    }
}

pub fn render(app: &mut App, area: Rect, buf: &mut Buffer) {
    let th = app.theme;
    let Some(h) = app.session.dbg.as_ref().and_then(|d| query::histogram(d.machine())) else {
        empty(buf, area, "no assignment decision yet: the histograms appear at an 'assign' event", th.dim);
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
    ]);
    buf.set_line(area.x, area.y, &head, area.width);
    if n == 0 || area.height < 5 {
        return;
    }
    let maxv = h.primary.iter().chain(&h.secondary).copied().max().unwrap_or(0);
    let ymax = maxv.max(h.threshold).max(1);
    let gw = digits(ymax as u64) + 1;
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
    let thr_row = ((h.threshold as u64 * rows as u64 * 8 / ymax as u64) as usize / 8).min(rows - 1);
    let height = |v: u32| (v as u64 * rows as u64 * 8 / ymax as u64) as usize;
    let mut label_end = 0;
    for (k, s) in (first..first + shown).enumerate() {
        let x = x0 + (k * cw) as u16;
        let chosen = h.chosen == Some(s as u16);
        let bars = [(h.primary[s], if chosen { th.chosen } else { th.primary }), (h.secondary[s], th.secondary)];
        for (j, (v, style)) in bars.iter().take(cw).enumerate() {
            let h8 = height(*v);
            for r in 0..rows {
                let fill = h8.saturating_sub(r * 8).min(8);
                let y = y_bottom - r as u16;
                if fill > 0 {
                    put(buf, x + j as u16, y, &BARS[fill].to_string(), 1, *style);
                } else if r == thr_row {
                    put(buf, x + j as u16, y, "┈", 1, th.threshold);
                }
            }
        }
        let (mark, style) = if chosen {
            ("▲", th.chosen)
        } else if h.blocked[s] {
            ("×", th.dim)
        } else if h.discarded.contains(&(s as u16)) {
            ("-", th.threshold)
        } else if s as u32 >= h.budget {
            ("!", th.over)
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
    let ty = y_bottom - thr_row as u16;
    if ty > area.y + 1 {
        put(buf, area.x, ty, &format!("{:>w$}", h.threshold, w = gw as usize - 1), gw, th.threshold);
    }
}
