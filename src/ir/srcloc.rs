//! CUDA source lines of imported PTX: the `.file N "name"` table and the `.loc` state
//! that holds at each PTX line.
//!
//! Owns: reading `.file`/`.loc` out of PTX text and answering "which source line does
//! PTX line N come from". Every instruction and vreg already carries its PTX line
//! (`origin`); the source line is looked up through it, so the IR model, the printer
//! and every pass that copies an `origin` (spill code, prepass moves) carry the source
//! line along without a second field. Must not know PTX syntax beyond these two
//! directives, nor the IR.
//!
//! The rules (PTX ISA, "Debugging Directives"):
//! - `.loc F L C` sets the location of the instructions that follow it, up to the next
//!   `.loc` or the end of the function body (a function without a `.loc` has none).
//! - `.loc F 0 C` is a compiler-made instruction with no source line.
//! - `.loc F L C, function_name LABEL, inlined_at F2 L2 C2`: code of an inlined
//!   function; the user's own line is the call site `F2:L2` (the last `inlined_at` when
//!   a line names several), which is what radbg groups by. The inlined line is kept.
//! - `.file N "name"` may come anywhere in the module (NVRTC puts it at the end), so
//!   the table is read from the whole text before a name is needed.

use std::collections::BTreeMap;

/// A source location as `.loc` gives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SrcLoc {
    pub file: u32,
    pub line: u32,
    pub col: u32,
    /// The call site (`file`, `line`) when the code was inlined.
    pub inlined_at: Option<(u32, u32)>,
}

impl SrcLoc {
    /// The line in the user's own function: the call site of inlined code, else the
    /// line itself.
    pub fn user(&self) -> (u32, u32) {
        self.inlined_at.unwrap_or((self.file, self.line))
    }
}

/// The `.file` table and the `.loc` state by PTX line of one PTX module.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct SourceLines {
    /// `.file` index → the name as written (often an absolute path).
    pub files: BTreeMap<u32, String>,
    /// `(first PTX line, location)`: the location from that line on, sorted by line.
    runs: Vec<(u32, Option<SrcLoc>)>,
}

impl SourceLines {
    /// Reads `.file` and `.loc` from PTX text. Never fails: a malformed directive is
    /// ignored here (the PTX parser reports what it cannot read).
    pub fn scan(text: &str) -> SourceLines {
        let mut s = SourceLines::default();
        let mut cur: Option<SrcLoc> = None;
        let mut depth: i64 = 0;
        let mut in_comment = false;
        for (i, raw) in text.lines().enumerate() {
            let line_no = u32::try_from(i + 1).unwrap_or(u32::MAX);
            let code = strip_comments(raw, &mut in_comment);
            let t = code.trim_start();
            let before = cur;
            if let Some(rest) = directive(t, ".file") {
                if let Some((n, name)) = parse_file(rest) {
                    s.files.insert(n, name);
                }
                // A file name may hold braces: they are not the module's.
                continue;
            } else if let Some(l) = directive(t, ".loc").and_then(parse_loc) {
                cur = (l.line > 0).then_some(l);
            }
            // Braces are ASCII: a byte walk sees every one.
            for c in code.bytes() {
                match c {
                    b'{' => depth += 1,
                    b'}' => {
                        depth -= 1;
                        if depth <= 0 {
                            depth = 0;
                            cur = None;
                        }
                    }
                    _ => {}
                }
            }
            if cur != before || (s.runs.is_empty() && cur.is_some()) {
                s.runs.push((line_no, cur));
            }
        }
        if !s.runs.iter().any(|(_, l)| l.is_some()) {
            s.runs.clear();
        }
        s
    }

    /// Whether the PTX had any `.loc` with a line.
    pub fn is_empty(&self) -> bool {
        self.runs.is_empty()
    }

    /// The location that holds at PTX line `ptx_line`.
    pub fn at(&self, ptx_line: u32) -> Option<SrcLoc> {
        let i = self.runs.partition_point(|(l, _)| *l <= ptx_line);
        i.checked_sub(1).and_then(|i| self.runs[i].1)
    }

    /// The user line (see [`SrcLoc::user`]) of PTX line `ptx_line`.
    pub fn user_line(&self, ptx_line: u32) -> Option<(u32, u32)> {
        self.at(ptx_line).map(|l| l.user())
    }

    /// The file's name as written in `.file`.
    pub fn file_name(&self, file: u32) -> Option<&str> {
        self.files.get(&file).map(String::as_str)
    }

    /// The file's last path component (`hotspot.cu`), or `file#N` without a `.file`.
    pub fn short_name(&self, file: u32) -> String {
        match self.file_name(file) {
            Some(n) => n.rsplit(['/', '\\']).next().unwrap_or(n).to_string(),
            None => format!("file#{file}"),
        }
    }

    /// `hotspot.cu:142` for a (file, line).
    pub fn label_of(&self, (file, line): (u32, u32)) -> String {
        format!("{}:{line}", self.short_name(file))
    }

    /// `hotspot.cu:142` for the user line of PTX line `ptx_line`, with the inlined
    /// line after it (`hotspot.cu:142 [inlined hotspot.cu:12]`) for inlined code.
    pub fn label(&self, ptx_line: u32) -> Option<String> {
        let l = self.at(ptx_line)?;
        let mut s = self.label_of(l.user());
        if l.inlined_at.is_some() {
            s.push_str(&format!(" [inlined {}]", self.label_of((l.file, l.line))));
        }
        Some(s)
    }
}

/// The text after a directive name (`.loc` matches `.loc\t1 2 3`, not `.location`).
fn directive<'a>(t: &'a str, name: &str) -> Option<&'a str> {
    let rest = t.strip_prefix(name)?;
    rest.starts_with(|c: char| c.is_whitespace()).then_some(rest)
}

/// Drops `//` and `/* */` comments (outside strings), tracking block comments across
/// lines.
fn strip_comments<'a>(line: &'a str, in_comment: &mut bool) -> std::borrow::Cow<'a, str> {
    // Most lines have no comment: no copy (issue 25: a copy per line of a 100k-line file).
    if !*in_comment && !line.contains('/') {
        return std::borrow::Cow::Borrowed(line);
    }
    let mut out = String::with_capacity(line.len());
    let mut in_str = false;
    let b = line.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if *in_comment {
            if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                *in_comment = false;
                i += 2;
            } else {
                i += 1;
            }
            continue;
        }
        match b[i] {
            b'"' => in_str = !in_str,
            b'/' if !in_str && b.get(i + 1) == Some(&b'/') => break,
            b'/' if !in_str && b.get(i + 1) == Some(&b'*') => {
                *in_comment = true;
                i += 2;
                continue;
            }
            _ => {}
        }
        // Byte-wise copy is safe: only ASCII bytes are inspected, others pass through.
        let ch_len = line[i..].chars().next().map_or(1, char::len_utf8);
        out.push_str(&line[i..i + ch_len]);
        i += ch_len;
    }
    std::borrow::Cow::Owned(out)
}

/// `1 "x.cu"` or `1 "x.cu", 1700000000, 1234` → (1, "x.cu").
fn parse_file(rest: &str) -> Option<(u32, String)> {
    let rest = rest.trim_start();
    let (n, after) = rest.split_once(|c: char| c.is_whitespace())?;
    let n: u32 = n.parse().ok()?;
    let after = after.trim_start().strip_prefix('"')?;
    let (name, _) = after.split_once('"')?;
    Some((n, name.to_string()))
}

/// `1 5 0` or `1 3 5, function_name $L__info_string0, inlined_at 1 11 9`.
fn parse_loc(rest: &str) -> Option<SrcLoc> {
    let mut parts = rest.split(',');
    let head: Vec<u32> = parts.next()?.split_whitespace().map_while(|w| w.parse().ok()).collect();
    let (&file, &line) = (head.first()?, head.get(1)?);
    let col = head.get(2).copied().unwrap_or(0);
    let mut inlined_at = None;
    for p in parts {
        let mut w = p.split_whitespace();
        if w.next() == Some("inlined_at") {
            let nums: Vec<u32> = w.map_while(|x| x.parse().ok()).collect();
            if let (Some(&f), Some(&l)) = (nums.first(), nums.get(1))
                && l > 0
            {
                inlined_at = Some((f, l));
            }
        }
    }
    Some(SrcLoc { file, line, col, inlined_at })
}

#[cfg(test)]
mod tests {
    use super::*;

    const PTX: &str = "\
.version 9.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 p)
{
\t.reg .b32 %r<4>;
\t.loc\t1 5 0
\tmov.u32 %r1, %tid.x;
\t.loc\t1 6 5 // a comment
\tadd.s32 %r2, %r1, 1;
\t.loc 1 0 5
\tadd.s32 %r3, %r1, 2;
\t.loc 1 3 5, function_name $L__info_string0, inlined_at 1 11 9
\tadd.s32 %r3, %r3, 2;
\t/* .loc 1 99 1 */ ret;
}
.visible .entry j()
{
\tret;
}
\t.file\t1 \"/tmp/x/hot.cu\", 1700000000, 120
";

    #[test]
    fn locations_follow_loc_until_the_function_ends() {
        let s = SourceLines::scan(PTX);
        assert_eq!(s.file_name(1), Some("/tmp/x/hot.cu"));
        assert_eq!(s.at(6), None, "before the first .loc");
        assert_eq!(s.at(8).map(|l| (l.line, l.col)), Some((5, 0)));
        assert_eq!(s.label(10).as_deref(), Some("hot.cu:6"));
        assert_eq!(s.at(12), None, "line 0 is no line");
        assert_eq!(s.user_line(14), Some((1, 11)), "inlined code belongs to its call site");
        assert_eq!(s.label(14).as_deref(), Some("hot.cu:11 [inlined hot.cu:3]"));
        assert_eq!(s.user_line(15), Some((1, 11)), "a .loc inside a comment is no .loc");
        assert_eq!(s.at(19), None, "the next function starts without a location");
    }

    #[test]
    fn no_loc_is_empty_and_bad_directives_are_ignored() {
        assert!(SourceLines::scan(".version 9.0\n.file x\n.loc\n.loc a b\n").is_empty());
        let s = SourceLines::scan("{\n.loc 2 7 1\nret;\n}\n");
        assert_eq!(s.label(3).as_deref(), Some("file#2:7"));
        // Nested scopes keep the location; braces in a file name are not scopes.
        let s = SourceLines::scan(".file 1 \"x{.cu\"\n{\n.loc 1 4 1\n{\n.reg .b32 %t;\n}\nret;\n}\n{\nret;\n}\n");
        assert_eq!(s.label(7).as_deref(), Some("x{.cu:4"));
        assert_eq!(s.at(10), None, "the second function starts without a location");
    }
}
