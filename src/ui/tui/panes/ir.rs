//! The IR pane (`query::ir_lines`, asked only for the visible window so a 100k-line
//! function costs what fits on screen): program points, block labels, the current
//! instruction (`>`), inserted spill code (`*`), assignments so far as `%r12→R7`, the
//! source (PTX) line on the right, the IR cursor and search matches highlighted.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;

use super::{clip, digits, empty, put};
use crate::engine::query::{self, IrLine};
use crate::ui::tui::app::App;

pub fn title(app: &App) -> String {
    let (Some(d), Some(fi)) = (app.session.dbg.as_ref(), app.func()) else { return String::new() };
    let f = query::func_ir(d.machine(), fi);
    let follow = if app.view.ir_cursor.is_none() { "" } else { " (. follows)" };
    format!("{} · {} insts · point {}{follow}", f.name, query::ir_len(d.machine(), fi), app.cursor_point())
}

/// Rows the lines take (a block's first instruction is preceded by its label).
fn rows_of(lines: &[IrLine]) -> Vec<(usize, bool)> {
    let mut rows = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        if l.label.is_some() {
            rows.push((i, true));
        }
        rows.push((i, false));
    }
    rows
}

/// The lines shown with `top` as the first point.
fn window(app: &App, fi: usize, top: u32, height: u16) -> Vec<IrLine> {
    let d = app.session.dbg.as_ref().expect("checked");
    query::ir_lines(d.machine(), fi, top..top.saturating_add(height as u32))
}

pub fn render(app: &mut App, area: Rect, buf: &mut Buffer) {
    let th = app.theme;
    let (Some(_), Some(fi)) = (app.session.dbg.as_ref(), app.func()) else {
        empty(buf, area, "no function loaded", th.dim);
        return;
    };
    let len = app.ir_len();
    if len == 0 {
        empty(buf, area, "(no instructions)", th.dim);
        return;
    }
    let h = area.height;
    app.view.ir_rows = h;
    let cursor = app.cursor_point().min(len - 1);
    let current = app.current_point();
    // Keep the cursor in view: scroll minimally, or re-centre when following jumped.
    let mut top = app.view.ir_top.min(len - 1);
    let visible = |top: u32| top <= cursor && cursor < top + h as u32;
    if !visible(top) {
        top = if app.view.ir_cursor.is_none() || cursor < top {
            cursor.saturating_sub(if app.view.ir_cursor.is_none() { h as u32 / 3 } else { 0 })
        } else {
            cursor + 1 - h as u32
        };
    }
    let mut lines = window(app, fi, top, h);
    // Labels take rows too: move down until the cursor's row fits.
    for _ in 0..4 {
        let rows = rows_of(&lines);
        let Some(r) = rows.iter().position(|(i, lab)| !lab && lines[*i].point == cursor) else { break };
        if r < h as usize {
            break;
        }
        let skip_points = rows[..=r - h as usize].iter().filter(|(_, lab)| !lab).count() as u32;
        top += skip_points.max(1);
        lines = window(app, fi, top, h);
    }
    app.view.ir_top = top;
    let pw = digits(len.saturating_sub(1) as u64);
    let ow = lines.iter().filter_map(origin_text).map(|o| o.chars().count() as u16 + 1).max().unwrap_or(0);
    let fixed = 2 + pw + 1;
    let avail = area.width.saturating_sub(fixed + if ow > 0 { ow + 1 } else { 0 });
    let max_text = lines.iter().map(|l| l.text.chars().count()).max().unwrap_or(0) as u16;
    let max_asg = lines.iter().map(|l| assigned_text(l).chars().count()).max().unwrap_or(0) as u16;
    // The instruction text comes first; assignments take what is left (at least a few columns).
    let tw = max_text.min(avail.saturating_sub((max_asg + 1).min(14)));
    let pat = app.view.search.clone();
    let mut y = area.y;
    for (i, is_label) in rows_of(&lines) {
        if y >= area.bottom() {
            break;
        }
        let l = &lines[i];
        if is_label {
            put(buf, area.x, y, &format!("{}:", l.label.as_deref().unwrap_or("")), area.width, th.label);
            y += 1;
            continue;
        }
        let row = Rect::new(area.x, y, area.width, 1);
        let is_cur = current == Some(l.point);
        let base = if is_cur { th.current } else { th.text };
        let mut x = area.x;
        x += put(buf, x, y, if is_cur { ">" } else { " " }, 1, th.current);
        x += put(buf, x, y, if l.spill { "*" } else { " " }, 1, th.spill);
        x += put(buf, x, y, &format!("{:>w$} ", l.point, w = pw as usize), pw + 1, th.dim);
        let text = clip(&l.text, tw as usize);
        put(buf, x, y, &text, tw, if l.spill { th.spill } else { base });
        if !pat.is_empty() {
            highlight(buf, x, y, &text, &pat, th.search);
        }
        x += tw + 1;
        let asg = assigned_text(l);
        let aw = area.right().saturating_sub(x + if ow > 0 { ow + 1 } else { 0 });
        if !asg.is_empty() && aw > 0 {
            put(buf, x, y, &clip(&asg, aw as usize), aw, th.assigned);
        }
        if let Some(s) = origin_text(l) {
            let n = s.chars().count() as u16;
            let ox = area.right().saturating_sub(n);
            put(buf, ox, y, &s, n, th.dim);
        }
        if l.point == cursor {
            buf.set_style(row, th.cursor);
        }
        y += 1;
    }
}

/// `L40`, or `L40 hot.cu:9` for PTX with `.loc`: the lines an instruction comes from.
fn origin_text(l: &IrLine) -> Option<String> {
    let o = l.origin?;
    Some(match &l.source {
        Some(src) => format!("L{o} {src}"),
        None => format!("L{o}"),
    })
}

fn assigned_text(l: &IrLine) -> String {
    l.assigned.iter().map(|(v, r)| format!("{v}→{r}")).collect::<Vec<_>>().join(" ")
}

/// Highlights occurrences of `pat` in `text` drawn at (x, y).
fn highlight(buf: &mut Buffer, x: u16, y: u16, text: &str, pat: &str, style: Style) {
    let mut from = 0;
    while let Some(i) = text[from..].find(pat) {
        let start = text[..from + i].chars().count() as u16;
        let n = pat.chars().count() as u16;
        buf.set_style(Rect::new(x + start, y, n, 1), style);
        from += i + pat.len().max(1);
    }
}
