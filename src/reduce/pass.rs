//! The shape of a reduction pass: it looks at the current text, numbers the things it
//! could remove or simplify (functions, instructions, operands ...), and builds the
//! candidate text with a contiguous range of them removed. The search (`search`) picks
//! the ranges; every candidate is re-parsed and validated before it is tested.

use std::ops::Range;

/// A reduction pass, in the spirit of llvm-reduce's delta passes.
pub trait Pass: Sync {
    /// The name the progress line shows.
    fn name(&self) -> &'static str;
    /// The items of `text` this pass can act on (`None` when the text does not parse).
    fn prepare<'a>(&self, text: &'a str) -> Option<Box<dyn Items + 'a>>;
    /// Whether the pass rewrites types or widths, so that radbg's loader accepting a
    /// candidate does not mean ptxas does (`cvt.rn.f32.f64` narrowed is `cvt.rn.f32.f32`,
    /// which ptxas refuses): the search then has the real ptxas check its candidates.
    fn rewrites_types(&self) -> bool {
        false
    }
}

/// The numbered items of one text.
pub trait Items {
    fn count(&self) -> usize;
    /// The text with the items in `range` removed (or simplified); `None` when that
    /// changes nothing.
    fn apply(&self, range: Range<usize>) -> Option<String>;
    /// The text with every item *outside* `range` removed (the first cuts of a large
    /// kernel, `reduce::slices`); `None` when that changes nothing or the pass has no
    /// such form.
    fn keep(&self, range: Range<usize>) -> Option<String> {
        let _ = range;
        None
    }
}

/// A replacement of `start..end` in the text by `with`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edit {
    pub start: usize,
    pub end: usize,
    pub with: String,
}

impl Edit {
    pub fn delete(start: usize, end: usize) -> Edit {
        Edit { start, end, with: String::new() }
    }
}

/// Items that are text edits, one edit (or a few) per item.
pub struct EditItems<'a> {
    pub text: &'a str,
    pub items: Vec<Vec<Edit>>,
}

impl Items for EditItems<'_> {
    fn count(&self) -> usize {
        self.items.len()
    }

    fn apply(&self, range: Range<usize>) -> Option<String> {
        let mut edits: Vec<&Edit> = self.items.get(range)?.iter().flatten().collect();
        if edits.is_empty() {
            return None;
        }
        edits.sort_by_key(|e| (e.start, e.end));
        Some(splice(self.text, &edits))
    }

    fn keep(&self, range: Range<usize>) -> Option<String> {
        let (before, after) = (self.items.get(..range.start)?, self.items.get(range.end..)?);
        let mut edits: Vec<&Edit> = before.iter().chain(after).flatten().collect();
        if edits.is_empty() {
            return None;
        }
        edits.sort_by_key(|e| (e.start, e.end));
        Some(splice(self.text, &edits))
    }
}

/// Applies sorted edits; an edit overlapping an earlier one is dropped (the earlier one
/// already removed its text).
pub fn splice(text: &str, edits: &[&Edit]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for e in edits {
        if e.start < at || e.end > text.len() || !text.is_char_boundary(e.start) || !text.is_char_boundary(e.end) {
            continue;
        }
        out.push_str(&text[at..e.start]);
        out.push_str(&e.with);
        at = e.end;
    }
    out.push_str(&text[at..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splice_applies_in_order_and_skips_overlaps() {
        let t = "abcdefgh";
        let a = Edit::delete(1, 3);
        let b = Edit { start: 2, end: 4, with: "X".into() };
        let c = Edit { start: 5, end: 6, with: "YY".into() };
        assert_eq!(splice(t, &[&a, &b, &c]), "adeYYgh");
    }
}
