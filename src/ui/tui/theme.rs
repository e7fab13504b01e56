//! Styles of the TUI: the 16 ANSI colours only (they survive SSH, tmux and every
//! terminal palette), or none at all when `NO_COLOR` is set — then emphasis is carried
//! by reverse video, bold, dim and underline, so nothing depends on colour alone.
//!
//! Owns styles; knows nothing of panes or the debugger.

use ratatui::style::{Color, Modifier, Style};

/// Every style the panes use, by meaning.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Theme {
    pub colour: bool,
    pub text: Style,
    pub dim: Style,
    pub title: Style,
    pub border: Style,
    pub border_focus: Style,
    /// The current event's instruction.
    pub current: Style,
    /// The IR cursor (the point the live set is shown at).
    pub cursor: Style,
    /// Spill code inserted by the allocator.
    pub spill: Style,
    /// `%r12→R7`.
    pub assigned: Style,
    pub label: Style,
    pub error: Style,
    pub ok: Style,
    pub warn: Style,
    pub primary: Style,
    pub secondary: Style,
    pub threshold: Style,
    pub chosen: Style,
    pub budget: Style,
    /// Above the budget.
    pub over: Style,
    /// A state field the current event changed.
    pub changed: Style,
    pub tab: Style,
    pub tab_active: Style,
    pub status: Style,
    pub search: Style,
    pub key: Style,
}

impl Theme {
    /// The 16-colour theme.
    pub fn colour() -> Theme {
        let fg = |c: Color| Style::new().fg(c);
        Theme {
            colour: true,
            text: Style::new(),
            dim: fg(Color::DarkGray),
            title: fg(Color::Cyan).add_modifier(Modifier::BOLD),
            border: fg(Color::DarkGray),
            border_focus: fg(Color::Cyan).add_modifier(Modifier::BOLD),
            current: fg(Color::Yellow).add_modifier(Modifier::BOLD),
            cursor: Style::new().bg(Color::Blue).fg(Color::White),
            spill: fg(Color::Magenta),
            assigned: fg(Color::Green),
            label: fg(Color::Cyan),
            error: fg(Color::Red).add_modifier(Modifier::BOLD),
            ok: fg(Color::Green),
            warn: fg(Color::Yellow),
            primary: fg(Color::Blue),
            secondary: fg(Color::Cyan),
            threshold: fg(Color::Red),
            chosen: fg(Color::Green).add_modifier(Modifier::BOLD),
            budget: fg(Color::Yellow),
            over: fg(Color::Red),
            changed: fg(Color::Yellow).add_modifier(Modifier::BOLD),
            tab: fg(Color::Gray),
            tab_active: Style::new().bg(Color::Cyan).fg(Color::Black).add_modifier(Modifier::BOLD),
            status: Style::new().bg(Color::Blue).fg(Color::White),
            search: Style::new().bg(Color::Yellow).fg(Color::Black),
            key: fg(Color::Yellow).add_modifier(Modifier::BOLD),
        }
    }

    /// No colour: attributes only.
    pub fn mono() -> Theme {
        let m = |x: Modifier| Style::new().add_modifier(x);
        Theme {
            colour: false,
            text: Style::new(),
            dim: m(Modifier::DIM),
            title: m(Modifier::BOLD),
            border: Style::new(),
            border_focus: m(Modifier::BOLD),
            current: m(Modifier::BOLD),
            cursor: m(Modifier::REVERSED),
            spill: m(Modifier::ITALIC),
            assigned: Style::new(),
            label: m(Modifier::BOLD),
            error: m(Modifier::BOLD),
            ok: Style::new(),
            warn: m(Modifier::BOLD),
            primary: Style::new(),
            secondary: m(Modifier::DIM),
            threshold: m(Modifier::BOLD),
            chosen: m(Modifier::BOLD | Modifier::REVERSED),
            budget: m(Modifier::BOLD),
            over: m(Modifier::BOLD),
            changed: m(Modifier::BOLD | Modifier::UNDERLINED),
            tab: Style::new(),
            tab_active: m(Modifier::REVERSED | Modifier::BOLD),
            status: m(Modifier::REVERSED),
            search: m(Modifier::UNDERLINED | Modifier::BOLD),
            key: m(Modifier::BOLD),
        }
    }

    /// Colour unless `NO_COLOR` is set (to anything non-empty).
    pub fn from_env() -> Theme {
        if crate::ui::colour_wanted() { Theme::colour() } else { Theme::mono() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The colour theme uses only the 16 named ANSI colours (no RGB, no 256-colour index).
    #[test]
    fn sixteen_colours_only_and_mono_has_none() {
        let styles = |t: &Theme| {
            vec![
                t.text,
                t.dim,
                t.title,
                t.border,
                t.border_focus,
                t.current,
                t.cursor,
                t.spill,
                t.assigned,
                t.label,
                t.error,
                t.ok,
                t.warn,
                t.primary,
                t.secondary,
                t.threshold,
                t.chosen,
                t.budget,
                t.over,
                t.changed,
                t.tab,
                t.tab_active,
                t.status,
                t.search,
                t.key,
            ]
        };
        for s in styles(&Theme::colour()) {
            for c in [s.fg, s.bg].into_iter().flatten() {
                assert!(!matches!(c, Color::Rgb(..) | Color::Indexed(_)), "{c:?}");
            }
        }
        for s in styles(&Theme::mono()) {
            assert_eq!((s.fg, s.bg), (None, None));
        }
    }
}
