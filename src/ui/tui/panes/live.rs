//! The live-set pane (`query::live_at` at the IR cursor) with per-file pressure
//! against the budget, over a pressure plot of the whole function
//! (`query::pressure_curve`, `query::budget_of`): one column per range of program
//! points (its maximum), bars above the budget marked, the budget drawn as a line and
//! the cursor's column marked `▼`.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use super::{BARS, digits, empty, put, wrap};
use crate::engine::query;
use crate::ir::RegFile;
use crate::ui::tui::app::App;
use crate::ui::tui::theme::Theme;

/// The file the plot shows: that of the class being allocated, else R.
fn plot_file(app: &App) -> RegFile {
    let Some(d) = app.session.dbg.as_ref() else { return RegFile::R };
    query::status(d)
        .class
        .and_then(|c| crate::ir::RegClass::from_name(&c))
        .map(|c| c.file())
        .filter(|f| crate::analysis::liveness::LIVENESS_FILES.contains(f))
        .unwrap_or(RegFile::R)
}

pub fn title(app: &App) -> String {
    format!("at point {} · plot {}", app.cursor_point(), plot_file(app).prefix())
}

pub fn render(app: &mut App, area: Rect, buf: &mut Buffer) {
    let th = app.theme;
    let (Some(d), Some(fi)) = (app.session.dbg.as_ref(), app.func()) else {
        empty(buf, area, "no function loaded", th.dim);
        return;
    };
    let point = app.cursor_point();
    let Some(lv) = query::live_at(d.machine(), fi, point) else {
        let msg = match super::phase(app, crate::engine::Stage::Liveness) {
            super::Phase::Before => "no liveness yet: it is computed in the liveness stage (s steps)",
            _ => "no liveness at this point",
        };
        empty(buf, area, msg, th.dim);
        return;
    };
    let m = d.machine();
    let file = plot_file(app);
    // Pressure per file, against its budget where one is known.
    let mut spans = vec![Span::styled(format!("point {point} "), th.dim)];
    for (f, p) in &lv.pressure {
        let b = query::budget_of(m, fi, *f);
        let style = if b.is_some_and(|b| *p > b) { th.over } else { th.text };
        let text = match b {
            Some(b) => format!(" {} {p}/{b}", f.prefix()),
            None => format!(" {} {p}", f.prefix()),
        };
        spans.push(Span::styled(text, style));
    }
    buf.set_line(area.x, area.y, &Line::from(spans), area.width);
    // The live set, wrapped, taking at most half of what is left; the plot the rest.
    let set = format!("live after ({}): {}", lv.after.len(), lv.after.join(" "));
    let chunks = wrap(&set, area.width as usize);
    let left = area.height.saturating_sub(1);
    let text_rows = if left >= 6 { (chunks.len() as u16).min(left / 2) } else { left };
    let plot_rows = left - text_rows;
    let n = chunks.len();
    for (i, c) in chunks.into_iter().take(text_rows as usize).enumerate() {
        let last = i + 1 == text_rows as usize && n > text_rows as usize;
        let c = if last { format!("{}…", c.chars().take(area.width as usize - 1).collect::<String>()) } else { c };
        put(buf, area.x, area.y + 1 + i as u16, &c, area.width, th.text);
    }
    if plot_rows < 3 {
        return;
    }
    let budget = query::budget_of(m, fi, file);
    let d = app.session.dbg.as_ref().expect("checked");
    let curve = app.cache.curve(d, fi, file);
    let plot_area = Rect::new(area.x, area.bottom() - plot_rows, area.width, plot_rows);
    plot(buf, plot_area, curve, budget, point, &th);
}

/// Draws a pressure curve into `area`.
pub fn plot(buf: &mut Buffer, area: Rect, curve: &[u32], budget: Option<u32>, cursor: u32, th: &Theme) {
    if curve.is_empty() || area.width < 6 || area.height < 2 {
        return;
    }
    let maxv = curve.iter().copied().max().unwrap_or(0);
    let ymax = maxv.max(budget.unwrap_or(0)).max(1);
    let gw = digits(ymax as u64) + 1;
    let cols = (area.width - gw) as usize;
    let rows = area.height as usize;
    let n = curve.len();
    let x0 = area.x + gw;
    let cursor_col = (cursor as usize).min(n - 1) * cols / n;
    let budget_row = budget.map(|b| ((b as u64 * rows as u64 * 8 / ymax as u64) as usize / 8).min(rows - 1));
    for c in 0..cols {
        let lo = c * n / cols;
        let hi = ((c + 1) * n / cols).max(lo + 1).min(n);
        let v = curve[lo..hi].iter().copied().max().unwrap_or(0);
        let h8 = (v as u64 * rows as u64 * 8 / ymax as u64) as usize;
        let over = budget.is_some_and(|b| v > b);
        for r in 0..rows {
            let fill = h8.saturating_sub(r * 8).min(8);
            let y = area.bottom() - 1 - r as u16;
            let x = x0 + c as u16;
            if fill > 0 {
                let style = if over && budget_row.is_some_and(|br| r >= br) { th.over } else { th.primary };
                put(buf, x, y, &BARS[fill].to_string(), 1, style);
            } else if budget_row == Some(r) {
                put(buf, x, y, "─", 1, th.budget);
            }
        }
        if c == cursor_col {
            let top = area.y;
            let sym = buf.cell((x0 + c as u16, top)).map(|x| x.symbol().to_string()).unwrap_or_default();
            if sym.trim().is_empty() || sym == "─" {
                put(buf, x0 + c as u16, top, "▼", 1, th.current);
            }
        }
    }
    // Axis labels: the top of the scale, and the budget on its line (which wins the
    // top row when it is there).
    let budget_y = budget_row.map(|br| area.bottom() - 1 - br as u16);
    if budget_y != Some(area.y) {
        put(buf, area.x, area.y, &format!("{ymax:>w$}", w = gw as usize - 1), gw, th.dim);
    }
    if let (Some(b), Some(y)) = (budget, budget_y) {
        put(buf, area.x, y, &format!("{b:>w$}", w = gw as usize - 1), gw, th.budget);
    }
    if area.bottom() - 1 != area.y {
        put(buf, area.x, area.bottom() - 1, &format!("{:>w$}", 0, w = gw as usize - 1), gw, th.dim);
    }
}
