//! The Source pane (`engine::query_source::source_table`): the CUDA source of imported
//! PTX, one row per line — its live R pressure at its peak point, spill stores (S) and
//! reloads (L), the code, and the values it keeps alive at the function's peak — with
//! the line of the IR cursor marked and its live registers spelled out at the bottom.
//! The code comes from the file the PTX's `.file` names (found at load, `--source-dir`);
//! without it, the same rows by line number. What Nsight Compute's source view shows
//! for live registers, here as the allocation stands at the cursor.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

use super::{clip, empty, put, wrap};
use crate::engine::query_source::{self, SourceRow};
use crate::ui::tui::app::App;

pub fn title(app: &App) -> String {
    let Some(d) = app.session.dbg.as_ref() else { return String::new() };
    let src = &d.machine().module.srcloc;
    let Some((&n, _)) = src.files.iter().next() else { return "no .loc".into() };
    match app.session.sources.get(&n) {
        Some(_) => src.short_name(n),
        None => format!("{} not found: --source-dir DIR", src.short_name(n)),
    }
}

pub fn render(app: &mut App, area: Rect, buf: &mut Buffer) {
    let th = app.theme;
    let (Some(d), Some(fi)) = (app.session.dbg.as_ref(), app.func()) else {
        empty(buf, area, "no function loaded", th.dim);
        return;
    };
    let m = d.machine();
    if m.module.srcloc.is_empty() {
        empty(
            buf,
            area,
            "no CUDA source lines: the PTX has no .loc directives (compile with -lineinfo; Ori IR has none)",
            th.dim,
        );
        return;
    }
    let t = query_source::source_table(m, fi);
    let point = app.cursor_point();
    let f = query_source::point_lines(m, crate::engine::query::func_ir(m, fi));
    let here = f.get(point as usize).copied().flatten();
    // The rows shown: every line of the function's span when the file was found, else
    // the lines with code.
    let file = here.map(|h| h.0).or_else(|| t.rows.first().map(|r| r.file)).unwrap_or(1);
    let rows: Vec<&SourceRow> = t.rows.iter().filter(|r| r.file == file).collect();
    let text = app.session.sources.get(&file);
    let lines: Vec<u32> = match (text, rows.first(), rows.last()) {
        (Some(_), Some(a), Some(b)) => (a.line..=b.line).collect(),
        _ => rows.iter().map(|r| r.line).collect(),
    };
    // Header, the table, and two rows of detail for the cursor's line.
    let head = match t.peak {
        Some((p, at)) => {
            format!("line live spill  code   (R peak {p} at point {at}; ← values defined here live there)")
        }
        None => "line live spill  code   (no liveness yet)".to_string(),
    };
    put(buf, area.x, area.y, &head, area.width, th.title);
    let detail_rows: u16 = if area.height >= 10 { 3 } else { 0 };
    let body = area.height.saturating_sub(1 + detail_rows);
    let cur = here.filter(|h| h.0 == file).and_then(|h| lines.iter().position(|&l| l == h.1));
    let top = match cur {
        Some(c) if c >= body as usize => c - body as usize / 2,
        _ => 0,
    }
    .min(lines.len().saturating_sub(body as usize));
    let lw = lines.iter().map(|l| l.to_string().len()).max().unwrap_or(1).max(4);
    let keeps_w: usize = rows.iter().map(|r| r.keeps.join(" ").chars().count()).max().unwrap_or(0).min(28);
    for (i, &line) in lines.iter().enumerate().skip(top).take(body as usize) {
        let y = area.y + 1 + (i - top) as u16;
        let row = rows.iter().find(|r| r.line == line);
        let is_cur = cur == Some(i);
        let live = row.and_then(|r| r.peak).map(|(p, _)| p.to_string()).unwrap_or_default();
        let marks = row.map(crate::command::source::marks).unwrap_or_default();
        let code = match text {
            Some(x) => x.lines.get(line as usize - 1).map(|c| c.trim_end().to_string()).unwrap_or_default(),
            None => String::new(),
        };
        let mut x = area.x;
        x += put(buf, x, y, if is_cur { ">" } else { " " }, 1, th.current);
        x += put(buf, x, y, &format!("{line:>lw$} "), lw as u16 + 1, th.dim);
        let over = row.and_then(|r| r.peak).is_some_and(|(p, _)| t.peak.is_some_and(|(fp, _)| p == fp));
        x += put(buf, x, y, &format!("{live:>4} "), 5, if over { th.over } else { th.text });
        x += put(buf, x, y, &format!("{marks:<6}"), 6, th.spill);
        let keeps = row.map(|r| r.keeps.join(" ")).unwrap_or_default();
        let kw = if keeps_w > 0 { keeps_w as u16 + 3 } else { 0 };
        let cw = area.right().saturating_sub(x + kw);
        let code_style = if row.is_some() { th.text } else { th.dim };
        put(buf, x, y, &clip(&code, cw as usize), cw, code_style);
        if !keeps.is_empty() && kw > 0 {
            let kx = area.right().saturating_sub(kw);
            put(buf, kx, y, &format!(" ← {}", clip(&keeps, keeps_w)), kw, th.assigned);
        }
        if is_cur {
            buf.set_style(Rect::new(area.x, y, area.width, 1), th.cursor);
        }
    }
    if detail_rows == 0 {
        return;
    }
    let detail = match here.and_then(|h| t.rows.iter().find(|r| (r.file, r.line) == h)) {
        Some(r) => match r.peak {
            Some((p, at)) => format!(
                "{} (point {point}): peak {p} at point {at}, live there: {}{}",
                r.label,
                if r.live.is_empty() { "-".to_string() } else { r.live.join(" ") },
                if r.keeps.is_empty() {
                    String::new()
                } else {
                    format!("; keeps alive at the function's peak: {}", r.keeps.join(" "))
                }
            ),
            None => format!("{} (point {point}): no liveness yet", r.label),
        },
        None => format!("point {point} has no source line (compiler-made or spill code)"),
    };
    // Right under the table when it is shorter than the pane.
    let shown = lines.len().saturating_sub(top).min(body as usize) as u16;
    let y0 = (area.y + 1 + shown + 1).min(area.bottom() - detail_rows);
    for (k, chunk) in wrap(&detail, area.width as usize).into_iter().take(detail_rows as usize).enumerate() {
        put(buf, area.x, y0 + k as u16, &chunk, area.width, th.dim);
    }
}
