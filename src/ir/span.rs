//! Source positions: byte spans, source files with line tables, and the side table
//! ([`SourceMap`]) that maps every parsed item of a [`crate::ir::Module`] back to its
//! place in the text.
//!
//! Positions are kept out of the model on purpose: `parse(print(m)) == m` compares
//! meaning, not layout, and passes that rewrite the IR never have to maintain spans.
//! This module knows nothing of Ori syntax beyond which items exist; it is shared
//! with every other text front end (PTX import, the `.radbg` command language).

use std::fmt;

/// A half-open byte range `lo..hi` into a [`SourceFile`]'s text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Span {
    pub lo: u32,
    pub hi: u32,
}

impl Span {
    pub fn new(lo: usize, hi: usize) -> Span {
        Span { lo: lo as u32, hi: hi.max(lo) as u32 }
    }
    /// An empty span at one offset (a caret with nothing under it).
    pub fn at(offset: usize) -> Span {
        Span::new(offset, offset)
    }
    pub fn len(self) -> usize {
        (self.hi - self.lo) as usize
    }
    pub fn is_empty(self) -> bool {
        self.hi == self.lo
    }
    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        Span { lo: self.lo.min(other.lo), hi: self.hi.max(other.hi) }
    }
}

impl fmt::Display for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}..{}", self.lo, self.hi)
    }
}

/// The largest text a [`SourceFile`] can hold: spans are 32-bit byte offsets.
pub const MAX_FILE_BYTES: usize = u32::MAX as usize - 1;

/// A named text with a line table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceFile {
    pub name: String,
    /// Shared, not copied, with what keeps the text after the load (the debugger's
    /// `ir::ptx::stream::Reimport`): the 50 MB many-entry file's load held four copies of
    /// its text at once (issue 25).
    pub text: std::sync::Arc<String>,
    /// Byte offset of the first character of every line (the first is 0).
    line_starts: Vec<u32>,
}

/// Why bytes could not become a [`SourceFile`]; `diag` has a span into `file`
/// (the readable prefix, with replacement characters after it) so it renders with
/// the usual `file:line:col` and caret.
#[derive(Clone, Debug)]
pub struct DecodeError {
    pub file: SourceFile,
    pub diag: crate::ir::diag::Diagnostic,
}

impl DecodeError {
    pub fn render(&self) -> String {
        self.diag.render(&self.file)
    }
}

impl SourceFile {
    /// A file from text. Text longer than [`MAX_FILE_BYTES`] is truncated (callers
    /// that read files use [`SourceFile::from_bytes`], which reports it instead).
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> SourceFile {
        let mut text = text.into();
        if text.len() > MAX_FILE_BYTES {
            let mut cut = MAX_FILE_BYTES;
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            text.truncate(cut);
        }
        let mut line_starts = vec![0u32];
        line_starts.extend(text.bytes().enumerate().filter(|&(_, b)| b == b'\n').map(|(i, _)| i as u32 + 1));
        SourceFile { name: name.into(), text: std::sync::Arc::new(text), line_starts }
    }

    /// Like [`SourceFile::from_bytes`], taking the bytes read: valid UTF-8 becomes the
    /// text without a copy (a file's bytes, its text and the text a loader keeps were
    /// three copies of a 50 MB file at the load's peak, issue 25).
    pub fn from_vec(name: impl Into<String>, bytes: Vec<u8>) -> Result<SourceFile, Box<DecodeError>> {
        if bytes.len() > MAX_FILE_BYTES {
            return SourceFile::from_bytes(name, &bytes);
        }
        match String::from_utf8(bytes) {
            Ok(text) => Ok(SourceFile::new(name, text)),
            Err(e) => SourceFile::from_bytes(name, e.as_bytes()),
        }
    }

    /// Decodes bytes read from a file: invalid UTF-8 and oversized files are errors
    /// with a position (the offending byte), never a panic.
    pub fn from_bytes(name: impl Into<String>, bytes: &[u8]) -> Result<SourceFile, Box<DecodeError>> {
        let name = name.into();
        if bytes.len() > MAX_FILE_BYTES {
            let file = SourceFile::new(name, String::new());
            let diag = crate::ir::diag::Diagnostic::error(
                None,
                format!("file is {} bytes, over the limit of {} bytes", bytes.len(), MAX_FILE_BYTES),
            );
            return Err(Box::new(DecodeError { file, diag }));
        }
        match std::str::from_utf8(bytes) {
            Ok(s) => Ok(SourceFile::new(name, s)),
            Err(e) => {
                let at = e.valid_up_to();
                let file = SourceFile::new(name, String::from_utf8_lossy(bytes).into_owned());
                let diag = crate::ir::diag::Diagnostic::error(
                    Some(Span::new(at, at + 1)),
                    format!("invalid UTF-8: byte 0x{:02X} is not part of a valid character", bytes[at]),
                );
                Err(Box::new(DecodeError { file, diag }))
            }
        }
    }

    /// Number of lines (a trailing newline does not start a counted line).
    pub fn line_count(&self) -> usize {
        if self.text.ends_with('\n') { self.line_starts.len() - 1 } else { self.line_starts.len() }
    }

    /// 1-based line and column (in characters) of a byte offset. Offsets past the
    /// end clamp to the end; offsets inside a character count from its start.
    pub fn line_col(&self, offset: u32) -> (usize, usize) {
        let offset = (offset as usize).min(self.text.len());
        let line = self.line_starts.partition_point(|&s| s as usize <= offset) - 1;
        let start = self.line_starts[line] as usize;
        let mut end = offset;
        while !self.text.is_char_boundary(end) {
            end -= 1;
        }
        (line + 1, self.text[start..end].chars().count() + 1)
    }

    /// The text of a 1-based line without its line terminator; empty when out of range.
    pub fn line_text(&self, line: usize) -> &str {
        if line == 0 || line > self.line_starts.len() {
            return "";
        }
        let start = self.line_starts[line - 1] as usize;
        let end = self.line_starts.get(line).map_or(self.text.len(), |&e| e as usize - 1);
        self.text[start..end].strip_suffix('\r').unwrap_or(&self.text[start..end])
    }

    /// Byte offset where a 1-based line starts.
    pub fn line_start(&self, line: usize) -> Option<u32> {
        self.line_starts.get(line.checked_sub(1)?).copied()
    }

    /// The text under a span (clamped to the file, empty if it splits a character).
    pub fn slice(&self, span: Span) -> &str {
        let hi = (span.hi as usize).min(self.text.len());
        let lo = (span.lo as usize).min(hi);
        self.text.get(lo..hi).unwrap_or("")
    }
}

/// Spans of module-level items.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SourceMap {
    /// The `.target` directive.
    pub target: Option<Span>,
    /// Options by name as written (`maxrregcount`): the whole directive.
    pub options: Vec<(&'static str, Span)>,
    /// Per knob setting (index into `Module::knobs`): key and value spans.
    pub knobs: Vec<KnobSpans>,
    /// Per global (index into `Module::globals`): its name.
    pub globals: Vec<Span>,
    /// Per function (index into `Module::functions`).
    pub functions: Vec<FunctionSpans>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KnobSpans {
    pub key: Span,
    pub value: Span,
}

/// Spans inside one function.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FunctionSpans {
    /// The function's name in its `.entry`/`.func` line.
    pub name: Span,
    /// The closing brace (where a block that falls off the end is reported).
    pub close: Span,
    /// Function directives by name as written (`maxnreg`, `maxntid` ...).
    pub directives: Vec<(&'static str, Span)>,
    /// Per declaration (index into `Function::decls`): the declared name.
    pub decls: Vec<Span>,
    /// Per vreg: the declared name of its declaration.
    pub vregs: Vec<Span>,
    /// Per vreg with a `.pin`, `.alias` or `.flags` line: (vreg, kind, span of the line).
    pub vreg_attrs: Vec<(u32, &'static str, Span)>,
    pub abi: Option<AbiSpans>,
    /// Per block: label span and index of its first instruction in `insts`.
    pub blocks: Vec<BlockSpans>,
    /// Per instruction in layout order (program point).
    pub insts: Vec<InstSpans>,
    /// Operand spans of all instructions, flat; see [`InstSpans::first_operand`].
    pub operands: Vec<Span>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BlockSpans {
    pub label: Span,
    pub first_inst: u32,
}

/// Spans of one instruction.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct InstSpans {
    /// The whole instruction (after any `[N]` point number).
    pub span: Span,
    /// The guard predicate (`@!%p0`), or empty at the instruction start when none.
    pub guard: Span,
    /// The mnemonic with its modifiers.
    pub mnemonic: Span,
    /// Index of the first operand's span in [`FunctionSpans::operands`].
    pub first_operand: u32,
}

/// Spans of an `.abi { }` block.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AbiSpans {
    pub block: Span,
    pub params: Vec<Span>,
    pub returns: Vec<Span>,
    /// Single-valued entries by keyword (`retaddr`, `first-param` ...): the whole line.
    pub fields: Vec<(&'static str, Span)>,
    /// Per `preserved` / `scratch` / `suspend-scratch` set, in order of each list.
    pub preserved: Vec<Span>,
    pub scratch: Vec<Span>,
    pub suspend_scratch: Vec<Span>,
}

impl AbiSpans {
    pub fn field(&self, name: &str) -> Option<Span> {
        self.fields.iter().find(|(n, _)| *n == name).map(|&(_, s)| s)
    }
}

impl FunctionSpans {
    pub fn directive(&self, name: &str) -> Option<Span> {
        self.directives.iter().find(|(n, _)| *n == name).map(|&(_, s)| s)
    }

    /// Spans of instruction `index` of block `block`.
    pub fn inst(&self, block: usize, index: usize) -> Option<&InstSpans> {
        let b = self.blocks.get(block)?;
        self.insts.get(b.first_inst as usize + index)
    }

    /// The span of operand `op` of instruction `index` of block `block`.
    pub fn operand(&self, block: usize, index: usize, op: usize) -> Option<Span> {
        let i = self.inst(block, index)?;
        // Operands are counted up to the next instruction's first operand.
        let next = self.insts.get(self.blocks[block].first_inst as usize + index + 1).map(|n| n.first_operand);
        let at = i.first_operand as usize + op;
        if next.is_some_and(|n| at >= n as usize) {
            return None;
        }
        self.operands.get(at).copied()
    }

    /// The first `.pin`/`.alias`/`.flags` line of a vreg of that kind.
    pub fn vreg_attr(&self, vreg: u32, kind: &str) -> Option<Span> {
        self.vreg_attrs.iter().find(|(v, k, _)| *v == vreg && *k == kind).map(|&(_, _, s)| s)
    }
}

impl SourceMap {
    pub fn function(&self, f: usize) -> Option<&FunctionSpans> {
        self.functions.get(f)
    }
    pub fn option(&self, name: &str) -> Option<Span> {
        self.options.iter().find(|(n, _)| *n == name).map(|&(_, s)| s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_columns() {
        let f = SourceFile::new("t.ori", "ab\ncé d\r\n\nx");
        assert_eq!(f.line_col(0), (1, 1));
        assert_eq!(f.line_col(3), (2, 1));
        assert_eq!(f.line_col(6), (2, 3)); // 'é' is two bytes but one column
        assert_eq!(f.line_text(2), "cé d");
        assert_eq!(f.line_text(3), "");
        assert_eq!(f.line_text(4), "x");
        assert_eq!(f.line_text(9), "");
        assert_eq!(f.line_col(1000), (4, 2));
        assert_eq!(f.line_count(), 4);
    }

    #[test]
    fn invalid_utf8_has_a_position() {
        let e = SourceFile::from_bytes("b.ori", b"ok\nab\xffc").unwrap_err();
        assert_eq!(
            e.render().lines().next().unwrap(),
            "b.ori:2:3: error: invalid UTF-8: byte 0xFF is not part of a valid character"
        );
    }
}
