//! Diagnostics: severity, span, message and help lines, rendered as
//!
//! ```text
//! demo.ori:12:15: error: undeclared register %r99
//!    12 |   %r1 = IADD3 %r99, %r2, RZ
//!       |               ^^^^
//!       = help: did you mean %r9?
//! ```
//!
//! Shared by every text front end (Ori IR, PTX import, the `.radbg` command
//! language), so it knows nothing of any of them: only [`Span`] and [`SourceFile`].
//! Messages are lower case, without a trailing period, and say what was expected.

use std::fmt::{self, Write};

use crate::ir::span::{SourceFile, Span};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Error,
    Warning,
    Note,
}

impl Severity {
    pub fn name(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    pub span: Option<Span>,
    pub message: String,
    pub help: Vec<String>,
}

/// Source lines longer than this many characters are shown as a window around the
/// caret, so a 10 MB line does not become a 10 MB diagnostic.
pub const MAX_SHOWN_LINE: usize = 160;

impl Diagnostic {
    pub fn new(severity: Severity, span: Option<Span>, message: impl Into<String>) -> Diagnostic {
        Diagnostic { severity, span, message: message.into(), help: Vec::new() }
    }
    pub fn error(span: impl Into<Option<Span>>, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(Severity::Error, span.into(), message)
    }
    pub fn warning(span: impl Into<Option<Span>>, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(Severity::Warning, span.into(), message)
    }
    pub fn note(span: impl Into<Option<Span>>, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(Severity::Note, span.into(), message)
    }
    /// Adds a `= help:` line.
    pub fn with_help(mut self, help: impl Into<String>) -> Diagnostic {
        self.help.push(help.into());
        self
    }
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// Renders the diagnostic against the file its span points into.
    pub fn render(&self, file: &SourceFile) -> String {
        let mut out = String::new();
        let Some(span) = self.span else {
            let _ = writeln!(out, "{}: {}: {}", file.name, self.severity, self.message);
            for h in &self.help {
                let _ = writeln!(out, "      = help: {h}");
            }
            return out;
        };
        let (line, col) = file.line_col(span.lo);
        let _ = writeln!(out, "{}:{}:{}: {}: {}", file.name, line, col, self.severity, self.message);
        let text = file.line_text(line);
        // Caret length in characters, clipped to the first line of the span.
        let line_start = file.line_start(line).unwrap_or(0) as usize;
        let line_end = line_start + text.len();
        let hi = (span.hi as usize).clamp(span.lo as usize, line_end.max(span.lo as usize));
        let under = file.slice(Span::new(span.lo as usize, hi.min(line_end))).chars().count().max(1);
        let chars: Vec<char> = text.chars().collect();
        let (shown, caret_col) = window(&chars, col - 1, under);
        let width = line.to_string().len().max(5);
        let _ = writeln!(out, "{line:>width$} | {}", printable(&shown));
        let pad: String = shown.iter().take(caret_col).map(|&c| if c == '\t' { '\t' } else { ' ' }).collect();
        let carets = "^".repeat(under.min(shown.len().saturating_sub(caret_col)).max(1));
        let _ = writeln!(out, "{:>width$} | {pad}{carets}", "");
        for h in &self.help {
            let _ = writeln!(out, "{:>width$} = help: {h}", "");
        }
        out
    }
}

/// Chooses the part of a long line to show: everything when short, otherwise a
/// window around the caret with `...` marks. Returns the characters and the caret's
/// column within them.
fn window(chars: &[char], col: usize, under: usize) -> (Vec<char>, usize) {
    let col = col.min(chars.len());
    if chars.len() <= MAX_SHOWN_LINE {
        return (chars.to_vec(), col);
    }
    let start = col.saturating_sub(MAX_SHOWN_LINE / 2);
    let end = (col + under.min(MAX_SHOWN_LINE / 2) + 20).min(chars.len()).max(col);
    let mut shown = Vec::new();
    let mut caret = col - start;
    if start > 0 {
        shown.extend("...".chars());
        caret += 3;
    }
    shown.extend_from_slice(&chars[start..end]);
    if end < chars.len() {
        shown.extend("...".chars());
    }
    (shown, caret)
}

/// Control characters (a NUL in the input) would corrupt a terminal: show them as `?`.
fn printable(chars: &[char]) -> String {
    chars.iter().map(|&c| if c.is_control() && c != '\t' { '?' } else { c }).collect()
}

/// Renders many diagnostics, in order, separated by nothing (each ends with a newline).
pub fn render_all(diags: &[Diagnostic], file: &SourceFile) -> String {
    diags.iter().map(|d| d.render(file)).collect()
}

/// Counts errors and warnings, for a closing summary line.
pub fn counts(diags: &[Diagnostic]) -> (usize, usize) {
    let errors = diags.iter().filter(|d| d.severity == Severity::Error).count();
    let warnings = diags.iter().filter(|d| d.severity == Severity::Warning).count();
    (errors, warnings)
}

/// "2 errors, 1 warning".
pub fn summary(errors: usize, warnings: usize) -> String {
    let plural = |n: usize, w: &str| if n == 1 { format!("1 {w}") } else { format!("{n} {w}s") };
    match (errors, warnings) {
        (0, 0) => "no problems".to_string(),
        (e, 0) => plural(e, "error"),
        (0, w) => plural(w, "warning"),
        (e, w) => format!("{}, {}", plural(e, "error"), plural(w, "warning")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(text: &str, span: Span, expected: &str) {
        let f = SourceFile::new("demo.ori", text);
        let d = Diagnostic::error(span, "undeclared register %r99").with_help("did you mean %r9?");
        assert_eq!(d.render(&f), expected);
    }

    #[test]
    fn renders_like_the_brief() {
        let text = "\n\n\n\n\n\n\n\n\n\n\n  %r1 = IADD3 %r99, %r2, RZ\n";
        let at = text.find("%r99").unwrap();
        check(
            text,
            Span::new(at, at + 4),
            "demo.ori:12:15: error: undeclared register %r99\n   12 |   %r1 = IADD3 %r99, %r2, RZ\n      |               ^^^^\n      = help: did you mean %r9?\n",
        );
    }

    #[test]
    fn caret_at_end_of_line_and_tabs() {
        check(
            "\tEXIT x",
            Span::new(7, 7),
            "demo.ori:1:8: error: undeclared register %r99\n    1 | \tEXIT x\n      | \t      ^\n      = help: did you mean %r9?\n",
        );
    }

    #[test]
    fn long_lines_are_windowed() {
        let text = format!("{}%r99{}", "a".repeat(100_000), "b".repeat(100_000));
        let f = SourceFile::new("x.ori", text);
        let d = Diagnostic::error(Span::new(100_000, 100_004), "bad");
        let r = d.render(&f);
        assert!(r.len() < 600, "{r}");
        assert!(r.contains("...aaaa"));
        assert!(r.contains("%r99bbb"));
        let caret_line = r.lines().nth(2).unwrap();
        let src_line = r.lines().nth(1).unwrap();
        assert_eq!(&src_line[caret_line.find('^').unwrap()..][..4], "%r99");
    }

    #[test]
    fn summary_words() {
        assert_eq!(summary(1, 0), "1 error");
        assert_eq!(summary(2, 1), "2 errors, 1 warning");
        assert_eq!(summary(0, 3), "3 warnings");
    }
}
