//! The panes, one file each, each drawing one engine query into the area inside its
//! border: IR (`ir_lines`), live set and pressure (`live_at`, `pressure_curve`),
//! constraint nodes (`constraints_of`), histograms (`histogram`), allocator state
//! (`state_table`), attempts (`attempts`), ABI checks (`abi_view`), the output log and
//! the Why pane (`why::answer_in` on the finished run) and the CUDA source
//! (`query_source::source_table`).
//!
//! A pane gives a title (shown in its border or tab strip) and renders; both read the
//! session only through `engine::query`.

pub mod abi;
pub mod attempts;
pub mod constraints;
pub mod hist;
pub mod ir;
pub mod live;
pub mod log;
pub mod source;
pub mod state;
pub mod why;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::ui::tui::app::App;
use crate::ui::tui::layout::PaneId;

/// The detail after a pane's name in its title.
pub fn title(app: &App, p: PaneId) -> String {
    match p {
        PaneId::Ir => ir::title(app),
        PaneId::Live => live::title(app),
        PaneId::Constraints => constraints::title(app),
        PaneId::Hist => hist::title(app),
        PaneId::State => state::title(app),
        PaneId::Attempts => attempts::title(app),
        PaneId::Abi => abi::title(app),
        PaneId::Log => log::title(app),
        PaneId::Why => why::title(app),
        PaneId::Source => source::title(app),
    }
}

/// A pane's name as its title bar and tab strip show it (under a Graph-family run the
/// constraint, histogram and attempts panes are named for what they show then).
pub fn name(app: &App, p: PaneId, short: bool) -> &'static str {
    match graph_pane_name(p, short).filter(|_| graph_views(app)) {
        Some(n) => n,
        None if short => p.short(),
        None => p.title(),
    }
}

/// Draws pane `p` inside `area` (already inside the border).
pub fn render(app: &mut App, p: PaneId, area: Rect, buf: &mut Buffer) {
    if area.width == 0 || area.height == 0 {
        return;
    }
    match p {
        PaneId::Ir => ir::render(app, area, buf),
        PaneId::Live => live::render(app, area, buf),
        PaneId::Constraints => constraints::render(app, area, buf),
        PaneId::Hist => hist::render(app, area, buf),
        PaneId::State => state::render(app, area, buf),
        PaneId::Attempts => attempts::render(app, area, buf),
        PaneId::Abi => abi::render(app, area, buf),
        PaneId::Log => log::render(app, area, buf),
        PaneId::Why => why::render(app, area, buf),
        PaneId::Source => source::render(app, area, buf),
    }
}

/// Writes `text` at (x, y), at most `max` columns and never past the buffer's edge;
/// returns the columns used.
pub fn put(buf: &mut Buffer, x: u16, y: u16, text: &str, max: u16, style: Style) -> u16 {
    let a = buf.area;
    if y < a.top() || y >= a.bottom() || x < a.left() || x >= a.right() {
        return 0;
    }
    let max = max.min(a.right() - x);
    if max == 0 {
        return 0;
    }
    let (end, _) = buf.set_stringn(x, y, text, max as usize, style);
    end.saturating_sub(x)
}

/// Draws `lines` from `scroll` on, one per row, clipped to the area. Returns the
/// scroll actually used (clamped so the last page stays full).
pub fn lines(buf: &mut Buffer, area: Rect, lines: &[Line], scroll: usize) -> usize {
    let rows = area.height as usize;
    let scroll = scroll.min(lines.len().saturating_sub(rows));
    for (i, l) in lines.iter().skip(scroll).take(rows).enumerate() {
        buf.set_line(area.x, area.y + i as u16, l, area.width);
    }
    scroll
}

/// A line of one styled text.
pub fn text(s: impl Into<String>, style: Style) -> Line<'static> {
    Line::from(Span::styled(s.into(), style))
}

/// Truncates to `w` characters, marking the cut with `…`.
pub fn clip(s: &str, w: usize) -> String {
    if s.chars().count() <= w {
        return s.to_string();
    }
    if w == 0 {
        return String::new();
    }
    let mut out: String = s.chars().take(w - 1).collect();
    out.push('…');
    out
}

/// Where the cursor is against a stage, so an empty pane says "not yet" only when the
/// stage is still to come (issue 27: at the end of the pipeline the panes said "yet").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Before,
    In,
    After,
}

pub fn phase(app: &App, stage: crate::engine::Stage) -> Phase {
    let Some(d) = app.session.dbg.as_ref() else { return Phase::Before };
    match d.current().map(|e| e.stage()) {
        _ if d.at_end() => Phase::After,
        None => Phase::Before,
        Some(s) if s < stage => Phase::Before,
        Some(s) if s == stage => Phase::In,
        Some(_) => Phase::After,
    }
}

/// A message centred-left in the area, for panes with nothing to show yet.
pub fn empty(buf: &mut Buffer, area: Rect, msg: &str, style: Style) {
    for (y, chunk) in (area.y..area.bottom()).zip(wrap(msg, area.width as usize)) {
        put(buf, area.x, y, &chunk, area.width, style);
    }
}

/// Greedy word wrap.
pub fn wrap(s: &str, w: usize) -> Vec<String> {
    let w = w.max(1);
    let mut out = Vec::new();
    let mut cur = String::new();
    for word in s.split(' ') {
        let need = if cur.is_empty() { word.chars().count() } else { cur.chars().count() + 1 + word.chars().count() };
        if need > w && !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
        if !cur.is_empty() {
            cur.push(' ');
        }
        cur.push_str(word);
        while cur.chars().count() > w {
            let head: String = cur.chars().take(w).collect();
            cur = cur.chars().skip(w).collect();
            out.push(head);
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// Eighth blocks for bars, index 0 (empty) to 8 (full).
pub const BARS: [char; 9] = [' ', '▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

/// Decimal digits of `n`.
pub fn digits(n: u64) -> u16 {
    n.max(1).ilog10() as u16 + 1
}

/// Whether the session's allocator offers the Graph family of views (`alloc::run::ViewFamily`):
/// the constraint pane then lists the current node's neighbours, the histogram pane its
/// colour window, the attempts pane the build-and-colour iterations.
pub fn graph_views(app: &App) -> bool {
    app.session.dbg.as_ref().is_some_and(|d| d.opts.allocator.views() == crate::alloc::run::ViewFamily::Graph)
}

/// The pane names under a Graph-family run (title bars and tab strips).
fn graph_pane_name(p: PaneId, short: bool) -> Option<&'static str> {
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
pub(super) fn graph_node(app: &App) -> Option<(&crate::engine::Debugger, usize, crate::ir::VRegId)> {
    let d = app.session.dbg.as_ref()?;
    let fi = app.func()?;
    if let Some(name) = &app.view.vreg {
        let b = crate::engine::query::briggs_of(d.machine(), fi)?;
        return Some((d, fi, b.func().vreg_by_name(name)?));
    }
    let (f, v) = crate::engine::query::event_node(d)?;
    Some((d, f, v))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrapping_and_clipping() {
        assert_eq!(wrap("a bb ccc dddd", 6), vec!["a bb", "ccc", "dddd"]);
        assert_eq!(wrap("abcdefgh", 3), vec!["abc", "def", "gh"]);
        assert_eq!(clip("abcdef", 4), "abc…");
        assert_eq!(clip("abc", 4), "abc");
        assert_eq!(digits(0), 1);
        assert_eq!(digits(99999), 5);
    }
}
