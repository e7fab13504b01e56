//! A rendered buffer as text (for snapshot tests) or as an SVG image with its colours
//! (for `screenshots/`). Both come from the very buffer the terminal would receive.
//!
//! Knows cells and styles only.

use std::fmt::Write;

use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier};

/// The buffer's symbols, one line per row, trailing spaces trimmed.
pub fn to_text(buf: &Buffer) -> String {
    let a = buf.area;
    let mut out = String::new();
    for y in a.top()..a.bottom() {
        let mut line = String::new();
        for x in a.left()..a.right() {
            line.push_str(buf.cell((x, y)).map(|c| c.symbol()).unwrap_or(" "));
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

const FG: &str = "#d4d4d4";
const BG: &str = "#1e1e1e";

/// The 16 ANSI colours as a dark terminal theme shows them.
fn rgb(c: Color, fg: bool) -> String {
    let s = match c {
        Color::Reset => {
            if fg {
                FG
            } else {
                BG
            }
        }
        Color::Black => "#000000",
        Color::Red => "#cd3131",
        Color::Green => "#0dbc79",
        Color::Yellow => "#e5e510",
        Color::Blue => "#2472c8",
        Color::Magenta => "#bc3fbc",
        Color::Cyan => "#11a8cd",
        Color::Gray => "#b0b0b0",
        Color::DarkGray => "#767676",
        Color::LightRed => "#f14c4c",
        Color::LightGreen => "#23d18b",
        Color::LightYellow => "#f5f543",
        Color::LightBlue => "#3b8eea",
        Color::LightMagenta => "#d670d6",
        Color::LightCyan => "#29b8db",
        Color::White => "#e5e5e5",
        Color::Rgb(r, g, b) => return format!("#{r:02x}{g:02x}{b:02x}"),
        Color::Indexed(_) => FG,
    };
    s.to_string()
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// Cell size in pixels at font size 14.
const CW: f32 = 8.4;
const CH: f32 = 17.0;

/// The buffer as an SVG image: a background rectangle per run of equal background,
/// a text element per run of equal style, stretched to the cell grid so any monospace
/// font lines up.
pub fn to_svg(buf: &Buffer) -> String {
    let a = buf.area;
    let (w, h) = (a.width as f32 * CW, a.height as f32 * CH);
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w:.0}" height="{h:.0}" viewBox="0 0 {w:.1} {h:.1}">"#
    );
    let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="{BG}"/>"#);
    let _ = writeln!(
        s,
        r#"<g font-family="DejaVu Sans Mono, Menlo, Consolas, monospace" font-size="14px" xml:space="preserve">"#
    );
    for y in a.top()..a.bottom() {
        let style_of = |x: u16| {
            let c = buf.cell((x, y)).expect("in area");
            let rev = c.modifier.contains(Modifier::REVERSED);
            let (mut fg, mut bg) = (rgb(c.fg, true), rgb(c.bg, false));
            if rev {
                std::mem::swap(&mut fg, &mut bg);
                if c.fg == Color::Reset {
                    bg = FG.to_string();
                }
                if c.bg == Color::Reset {
                    fg = BG.to_string();
                }
            }
            (fg, bg, c.modifier)
        };
        let ty = (y - a.top()) as f32 * CH;
        let mut x = a.left();
        while x < a.right() {
            let (fg, bg, m) = style_of(x);
            let mut end = x + 1;
            while end < a.right() && style_of(end) == (fg.clone(), bg.clone(), m) {
                end += 1;
            }
            let tx = (x - a.left()) as f32 * CW;
            let n = (end - x) as f32;
            if bg != BG {
                let _ = writeln!(
                    s,
                    r#"<rect x="{tx:.1}" y="{ty:.1}" width="{:.1}" height="{CH:.1}" fill="{bg}"/>"#,
                    n * CW
                );
            }
            let text: String = (x..end).map(|i| buf.cell((i, y)).map(|c| c.symbol()).unwrap_or(" ")).collect();
            if !text.trim().is_empty() {
                let mut attrs = String::new();
                if m.contains(Modifier::BOLD) {
                    attrs.push_str(r#" font-weight="bold""#);
                }
                if m.contains(Modifier::ITALIC) {
                    attrs.push_str(r#" font-style="italic""#);
                }
                if m.contains(Modifier::DIM) {
                    attrs.push_str(r#" opacity="0.6""#);
                }
                if m.contains(Modifier::UNDERLINED) {
                    attrs.push_str(r#" text-decoration="underline""#);
                }
                let _ = writeln!(
                    s,
                    r#"<text x="{tx:.1}" y="{:.1}" fill="{fg}" textLength="{:.1}" lengthAdjust="spacingAndGlyphs"{attrs}>{}</text>"#,
                    ty + CH * 0.78,
                    n * CW,
                    esc(&text)
                );
            }
            x = end;
        }
    }
    s.push_str("</g>\n</svg>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::layout::Rect;
    use ratatui::style::Style;

    #[test]
    fn text_and_svg_of_a_small_buffer() {
        let mut b = Buffer::empty(Rect::new(0, 0, 6, 2));
        b.set_string(0, 0, "ab<c", Style::new().fg(Color::Red));
        b.set_string(1, 1, "x", Style::new().add_modifier(Modifier::REVERSED));
        assert_eq!(to_text(&b), "ab<c\n x\n");
        let svg = to_svg(&b);
        assert!(svg.contains(r##"fill="#cd3131""##) && svg.contains("ab&lt;c"), "{svg}");
        assert!(svg.contains(&format!(r#"fill="{FG}""#)), "reverse video paints the background: {svg}");
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    }
}
