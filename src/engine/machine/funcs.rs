//! The per-function results of a [`Machine`](super::Machine) as a persistent vector:
//! chunks of shared results, so a snapshot (a debugger checkpoint) copies a pointer per
//! chunk, not every function's results, and a write copies only the chunk's pointers and
//! the one result it changes (issue 25: on a file of 614 entries a checkpoint copied all
//! 614 results — their sweep lists and statistics' strings — and the debugger's ~2,600
//! checkpoints held 2.9 GB of such copies).

use std::ops::{Index, IndexMut};
use std::sync::Arc;

use super::FuncResult;

/// Results per chunk: a write after a snapshot copies this many pointers.
const CHUNK: usize = 64;

/// `FuncResult`s by function index, shared between snapshots until written.
#[derive(Clone, Debug, Default)]
pub struct Funcs {
    chunks: Vec<Arc<Vec<Arc<FuncResult>>>>,
    len: usize,
}

impl Funcs {
    /// `n` empty results.
    pub fn new(n: usize) -> Funcs {
        let empty = Arc::new(FuncResult::default());
        let chunks = (0..n.div_ceil(CHUNK)).map(|c| Arc::new(vec![empty.clone(); CHUNK.min(n - c * CHUNK)])).collect();
        Funcs { chunks, len: n }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn get(&self, i: usize) -> Option<&FuncResult> {
        self.chunks.get(i / CHUNK).and_then(|c| c.get(i % CHUNK)).map(|r| &**r)
    }

    pub fn first(&self) -> Option<&FuncResult> {
        self.get(0)
    }

    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &FuncResult> + ExactSizeIterator + Clone {
        Iter { funcs: self, front: 0, back: self.len }
    }

    /// How many chunks this and `other` do not share (for tests of sharing).
    pub fn unshared_chunks(&self, other: &Funcs) -> usize {
        self.chunks.iter().zip(&other.chunks).filter(|(a, b)| !Arc::ptr_eq(a, b)).count()
            + self.chunks.len().abs_diff(other.chunks.len())
    }
}

impl Index<usize> for Funcs {
    type Output = FuncResult;

    fn index(&self, i: usize) -> &FuncResult {
        &self.chunks[i / CHUNK][i % CHUNK]
    }
}

impl IndexMut<usize> for Funcs {
    /// Copies the chunk's pointers and the result itself when a snapshot shares them.
    fn index_mut(&mut self, i: usize) -> &mut FuncResult {
        assert!(i < self.len, "function {i} of {}", self.len);
        let chunk = Arc::make_mut(&mut self.chunks[i / CHUNK]);
        Arc::make_mut(&mut chunk[i % CHUNK])
    }
}

/// In order, by index.
#[derive(Clone)]
struct Iter<'a> {
    funcs: &'a Funcs,
    front: usize,
    back: usize,
}

impl<'a> Iterator for Iter<'a> {
    type Item = &'a FuncResult;

    fn next(&mut self) -> Option<&'a FuncResult> {
        if self.front >= self.back {
            return None;
        }
        self.front += 1;
        Some(&self.funcs[self.front - 1])
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.back - self.front, Some(self.back - self.front))
    }
}

impl DoubleEndedIterator for Iter<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        if self.front >= self.back {
            return None;
        }
        self.back -= 1;
        Some(&self.funcs[self.back])
    }
}

impl ExactSizeIterator for Iter<'_> {}

impl<'a> IntoIterator for &'a Funcs {
    type Item = &'a FuncResult;
    type IntoIter = Box<dyn DoubleEndedIterator<Item = &'a FuncResult> + 'a>;

    fn into_iter(self) -> Self::IntoIter {
        Box::new(self.iter())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_write_after_a_copy_leaves_the_copy_and_other_chunks_alone() {
        let mut a = Funcs::new(200);
        a[3].uninit = Some("x".into());
        let b = a.clone();
        a[130].uninit = Some("y".into());
        assert_eq!(b[130].uninit, None);
        assert_eq!(a[130].uninit.as_deref(), Some("y"));
        assert_eq!(a[3].uninit.as_deref(), Some("x"));
        assert_eq!(a.unshared_chunks(&b), 1);
        assert_eq!(a.iter().len(), 200);
        assert_eq!(a.iter().filter(|r| r.uninit.is_some()).count(), 2);
        assert_eq!(a.iter().rev().position(|r| r.uninit.is_some()), Some(69));
        assert!(a.get(200).is_none() && Funcs::new(0).is_empty());
    }
}
