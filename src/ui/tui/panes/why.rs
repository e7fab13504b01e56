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
        .map(|(f, v)| crate::engine::query::func_ir(d.machine(), f).vreg(v).name.to_string());
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
        let body = l.trim_start();
        let indent = &l[..l.len() - body.len()];
        let w = (area.width as usize).saturating_sub(indent.len() + 2).max(8);
        for (i, part) in wrap(body, w).into_iter().enumerate() {
            out.push(text(format!("{indent}{}{part}", if i == 0 { "" } else { "  " }), style));
        }
    }
    // The last `sweep` as a chart under the text, when there is room.
    let mut area = area;
    if area.height >= 20 && app.session.last_sweep.is_some() {
        let h = (area.height / 2).min(16);
        let chart = Rect { y: area.bottom() - h, height: h, ..area };
        area.height -= h;
        sweep_chart(app, fi, chart, buf);
    }
    let s = app.view.scroll[PaneId::Why.index()];
    app.view.scroll[PaneId::Why.index()] = lines(buf, area, &out, s);
}

/// Registers and spill bytes per swept value for function `fi`, the current budget
/// marked with a vertical line (ratatui `Chart`).
fn sweep_chart(app: &App, fi: usize, area: Rect, buf: &mut Buffer) {
    use ratatui::symbols::Marker;
    use ratatui::widgets::{Axis, Block, Chart, Dataset, GraphType, Widget};
    let th = app.theme;
    let (Some((axis, rows)), Some(d)) = (app.session.last_sweep.as_ref(), app.session.dbg.as_ref()) else { return };
    let fname = &d.machine().module.functions[fi].name;
    let pick = |r: &crate::why::sweep::Row| r.funcs.iter().find(|f| &f.name == fname).cloned();
    let regs: Vec<(f64, f64)> =
        rows.iter().filter_map(|r| pick(r).map(|f| (r.value as f64, f.registers as f64))).collect();
    let spill: Vec<(f64, f64)> =
        rows.iter().filter_map(|r| pick(r).map(|f| (r.value as f64, (f.stores + f.loads) as f64))).collect();
    if regs.is_empty() {
        return;
    }
    let x0 = regs.first().map_or(0.0, |p| p.0);
    let x1 = regs.last().map_or(1.0, |p| p.0).max(x0 + 1.0);
    let ymax = regs.iter().chain(&spill).map(|p| p.1).fold(1.0, f64::max);
    let name = match axis {
        crate::why::sweep::Axis::MaxRegCount => "maxrregcount".to_string(),
        crate::why::sweep::Axis::Knob(k) => k.clone(),
    };
    let current = match axis {
        crate::why::sweep::Axis::MaxRegCount => d.machine().module.options.maxrregcount.map(|b| b as f64),
        crate::why::sweep::Axis::Knob(_) => None,
    };
    let marker: Vec<(f64, f64)> = current.map(|b| vec![(b, 0.0), (b, ymax)]).unwrap_or_default();
    let mut sets = vec![
        Dataset::default()
            .name("registers")
            .marker(Marker::Braille)
            .graph_type(GraphType::Line)
            .style(th.ok)
            .data(&regs),
        Dataset::default()
            .name("spill bytes")
            .marker(Marker::Braille)
            .graph_type(GraphType::Line)
            .style(th.warn)
            .data(&spill),
    ];
    if !marker.is_empty() {
        sets.push(
            Dataset::default()
                .name("budget now")
                .marker(Marker::Braille)
                .graph_type(GraphType::Line)
                .style(th.title)
                .data(&marker),
        );
    }
    let all = (ratatui::layout::Constraint::Ratio(1, 1), ratatui::layout::Constraint::Ratio(1, 1));
    let chart = Chart::new(sets)
        .hidden_legend_constraints(all)
        .block(Block::bordered().border_style(th.border).title(format!(" sweep {name} · {fname} ")))
        .x_axis(Axis::default().style(th.dim).bounds([x0, x1]).labels([format!("{x0}"), format!("{x1}")]))
        .y_axis(Axis::default().style(th.dim).bounds([0.0, ymax]).labels(["0".to_string(), format!("{ymax}")]));
    chart.render(area, buf);
}
