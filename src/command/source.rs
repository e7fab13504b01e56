//! `source-view` / `list`: the CUDA source of imported PTX beside each line's live
//! registers at its peak point, the values it keeps alive at the function's peak and
//! its spill stores and reloads (the table is `engine::query_source`'s). Also finding
//! and reading the CUDA files a PTX `.file` table names, for this command and the
//! TUI's Source pane.
//!
//! Where a file is looked for, in order (the first readable one wins, so the answer is
//! the same every time): `--source-dir DIR` joined with the name as written, then with
//! its last component; the name as written (absolute, or relative to the working
//! directory); the PTX file's directory joined with the name, then with its last
//! component. A file that is not found, not UTF-8 or larger than [`MAX_SOURCE`] leaves
//! the table by line number.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::json;

use crate::command::Output;
use crate::engine::query_source::SourceTable;
use crate::ir::srcloc::SourceLines;

/// Larger source files are not read (a generated file of that size is no help on screen).
pub const MAX_SOURCE: u64 = 16 << 20;

/// One CUDA file found for a `.file` entry.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct SourceText {
    pub path: PathBuf,
    pub lines: Vec<String>,
}

/// The CUDA files of a module by `.file` index (only those found).
pub type Texts = BTreeMap<u32, SourceText>;

/// The candidate paths of a `.file` name, in lookup order.
pub fn candidates(name: &str, ptx: Option<&Path>, source_dir: Option<&Path>) -> Vec<PathBuf> {
    let written = Path::new(name);
    let last = written.file_name().map(Path::new);
    let mut out = Vec::new();
    if let Some(d) = source_dir {
        if written.is_relative() {
            out.push(d.join(written));
        }
        if let Some(l) = last {
            out.push(d.join(l));
        }
    }
    out.push(written.to_path_buf());
    if let Some(dir) = ptx.and_then(Path::parent) {
        if written.is_relative() {
            out.push(dir.join(written));
        }
        if let Some(l) = last {
            out.push(dir.join(l));
        }
    }
    out.dedup();
    out
}

/// Reads the files a module's `.file` table names, where they can be found.
pub fn load(src: &SourceLines, ptx: Option<&Path>, source_dir: Option<&Path>) -> Texts {
    let mut out = Texts::new();
    for (&n, name) in &src.files {
        for p in candidates(name, ptx, source_dir) {
            let small = std::fs::metadata(&p).is_ok_and(|m| m.is_file() && m.len() <= MAX_SOURCE);
            if !small {
                continue;
            }
            if let Ok(text) = std::fs::read_to_string(&p) {
                out.insert(n, SourceText { path: p, lines: text.lines().map(|l| l.replace('\t', "    ")).collect() });
                break;
            }
        }
    }
    out
}

/// The line range shown: `count` lines centred on `center`, else every line from the
/// first to the last line with code of the function.
fn range(rows: &[&crate::engine::query_source::SourceRow], center: Option<u32>, count: u32) -> (u32, u32) {
    let first = rows.iter().map(|r| r.line).min().unwrap_or(1);
    let last = rows.iter().map(|r| r.line).max().unwrap_or(first);
    match center {
        Some(c) => {
            let lo = c.saturating_sub(count / 2).max(1);
            (lo, lo.saturating_add(count.max(1) - 1))
        }
        None => (first, last),
    }
}

/// The text and JSON of `source-view [LINE]`.
pub fn render(t: &SourceTable, texts: &Texts, src: &SourceLines, center: Option<u32>, count: u32) -> Output {
    let mut s = format!("source of {}", t.function);
    match t.peak {
        Some((p, at)) => {
            let _ = write!(s, " (R peak {p} at point {at})");
        }
        None => s.push_str(" (no liveness yet: step past the liveness stage for live registers)"),
    }
    if t.rows.is_empty() {
        s.push_str("\n  no CUDA source lines: the PTX has no .loc (compile with -lineinfo)");
        return Output { text: s, json: json!({"function": t.function, "files": [], "rows": []}), failed: false };
    }
    let mut files_json = Vec::new();
    let mut rows_json = Vec::new();
    let files: Vec<u32> = {
        let mut v: Vec<u32> = t.rows.iter().map(|r| r.file).collect();
        v.dedup();
        v
    };
    for file in files {
        let rows: Vec<_> = t.rows.iter().filter(|r| r.file == file).collect();
        let text = texts.get(&file);
        let name = src.short_name(file);
        match text {
            Some(x) => {
                let _ = write!(s, "\n{name} ({})", shown(&x.path).display());
            }
            None => {
                let _ = write!(
                    s,
                    "\n{name}: not found (looked for {}); lines by number — point at it with --source-dir DIR",
                    src.file_name(file).unwrap_or("?")
                );
            }
        }
        files_json.push(json!({"file": name, "name": src.file_name(file), "path": text.map(|x| shown(&x.path).display().to_string())}));
        let (lo, hi) = range(&rows, center, count);
        let _ = write!(s, "\n  line  live  spill  code");
        for line in lo..=hi {
            let row = rows.iter().find(|r| r.line == line);
            let code = text.and_then(|x| x.lines.get(line as usize - 1)).map(|c| c.trim_end());
            if row.is_none() && (code.is_none() || text.is_none()) {
                continue;
            }
            let live = row.and_then(|r| r.peak).map(|(p, _)| p.to_string()).unwrap_or_default();
            let spill = row.map(marks).unwrap_or_default();
            let _ = write!(
                s,
                "\n  {line:>4}  {live:>4}  {spill:<5}  {}",
                code.unwrap_or(if row.is_some() { "(code)" } else { "" })
            );
            let Some(r) = row else { continue };
            if let Some((_, p)) = r.peak {
                let _ = write!(
                    s,
                    "\n                     at point {p}: {}",
                    if r.live.is_empty() { "-".into() } else { r.live.join(" ") }
                );
            }
            if !r.keeps.is_empty() {
                let _ = write!(s, "\n                     keeps alive at the peak: {}", r.keeps.join(" "));
            }
            rows_json.push(json!({"file": name, "line": r.line, "code": code, "points": r.points,
                "peak": r.peak.map(|(p, _)| p), "peak_point": r.peak.map(|(_, at)| at), "live": r.live,
                "keeps": r.keeps, "stores": r.stores, "reloads": r.reloads}));
        }
    }
    if t.unmapped > 0 {
        let _ = write!(s, "\n  ({} instruction(s) with no source line: compiler-made or spill code)", t.unmapped);
    }
    Output {
        text: s,
        json: json!({"function": t.function, "peak": t.peak.map(|(p, _)| p), "peak_point": t.peak.map(|(_, at)| at),
            "files": files_json, "rows": rows_json, "unmapped": t.unmapped}),
        failed: false,
    }
}

/// A found path as shown: relative to the working directory when it is below it.
fn shown(p: &Path) -> PathBuf {
    match std::env::current_dir() {
        Ok(cwd) => p.strip_prefix(&cwd).map(Path::to_path_buf).unwrap_or_else(|_| p.to_path_buf()),
        Err(_) => p.to_path_buf(),
    }
}

/// `S2 L1`: spill stores and reloads of a line.
pub fn marks(r: &&crate::engine::query_source::SourceRow) -> String {
    let mut m = String::new();
    if r.stores > 0 {
        let _ = write!(m, "S{}", r.stores);
    }
    if r.reloads > 0 {
        if !m.is_empty() {
            m.push(' ');
        }
        let _ = write!(m, "L{}", r.reloads);
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_huge_line_number_lists_nothing_without_overflow() {
        let t = SourceTable {
            function: "k".into(),
            rows: vec![crate::engine::query_source::SourceRow { file: 1, line: 3, ..Default::default() }],
            ..Default::default()
        };
        let out = render(&t, &Texts::new(), &SourceLines::default(), Some(u32::MAX), 10);
        assert!(!out.text.contains("     3"), "{}", out.text);
    }

    #[test]
    fn lookup_order_prefers_the_source_dir_then_the_name_then_the_ptx_directory() {
        let c = candidates("/abs/k/hot.cu", Some(Path::new("/ptx/k.ptx")), Some(Path::new("/src")));
        assert_eq!(c, vec![PathBuf::from("/src/hot.cu"), PathBuf::from("/abs/k/hot.cu"), PathBuf::from("/ptx/hot.cu")]);
        let c = candidates("sub/hot.cu", Some(Path::new("k.ptx")), None);
        assert_eq!(c, vec![PathBuf::from("sub/hot.cu"), PathBuf::from("hot.cu")]);
    }
}
