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
        let line_start = file.line_start(line).unwrap_or(0) as usize;
        // Byte offset of the caret within the line, on a character boundary.
        let mut at = (span.lo as usize).saturating_sub(line_start).min(text.len());
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        let (shown, caret_col) = window(text, at);
        // Caret length in characters, clipped to the first line and to what is shown.
        let span_end = (span.hi as usize).saturating_sub(line_start).clamp(at, text.len());
        let room = shown.chars().count().saturating_sub(caret_col).max(1);
        let under = text.get(at..span_end).map_or(0, |t| t.chars().take(room).count()).max(1);
        let width = line.to_string().len().max(5);
        let _ = writeln!(out, "{line:>width$} | {}", printable(&shown));
        let pad: String = shown.chars().take(caret_col).map(|c| if c == '\t' { '\t' } else { ' ' }).collect();
        let _ = writeln!(out, "{:>width$} | {pad}{}", "", "^".repeat(under));
        for h in &self.help {
            let _ = writeln!(out, "{:>width$} = help: {h}", "");
        }
        out
    }
}

/// Chooses the part of a line to show: all of it when short, otherwise a window of
/// about [`MAX_SHOWN_LINE`] characters around byte offset `at`, with `...` marks.
/// Returns the text and the caret's column (in characters) within it. Works on a
/// bounded neighbourhood, so a 10 MB line costs no more than a short one.
fn window(text: &str, at: usize) -> (String, usize) {
    if text.len() <= MAX_SHOWN_LINE {
        return (text.to_string(), text[..at].chars().count());
    }
    let half = MAX_SHOWN_LINE / 2;
    // Walk back `half` characters from the caret, and forward up to the limit.
    let start = text[..at].char_indices().rev().nth(half - 1).map_or(0, |(k, _)| k);
    let end = text[at..].char_indices().nth(half).map_or(text.len(), |(k, _)| at + k);
    let mut shown = String::new();
    let mut caret = text[start..at].chars().count();
    if start > 0 {
        shown.push_str("...");
        caret += 3;
    }
    shown.push_str(&text[start..end]);
    if end < text.len() {
        shown.push_str("...");
    }
    (shown, caret)
}

/// Control characters (a NUL in the input) would corrupt a terminal: show them as `?`.
fn printable(text: &str) -> String {
    text.chars().map(|c| if c.is_control() && c != '\t' { '?' } else { c }).collect()
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
