//! Short interned strings, one pointer wide: an instruction's modifiers (`.WIDE.U32`),
//! and an operand's special register (`SR_TID.X`) or symbol (a label, a function, a
//! variable).
//!
//! A module holds a handful of distinct modifier strings (62 across the 174k
//! instructions of the 5 MB many-entry file after the prepasses) but every instruction
//! carried its own `Box<str>`: 16 bytes in the instruction and a 32-byte heap block
//! beside it, about a sixth of the IR (issue 25). Each distinct string is leaked once
//! for the process's lifetime, so the table is bounded by the distinct strings ever
//! read, not by the instructions; an [`Atom`] is 8 bytes (a thin reference to the leaked
//! `&str`) and `Copy`. An operand's `Box<str>` made every [`crate::ir::Operand`] 24 bytes
//! where its other variants need 16: as atoms, the 4.9 M operands of the 50 MB
//! many-entry file take a third less. Labels and symbols are per file, so the table
//! grows with the distinct names of the files a process reads (as the modifiers' does).
//!
//! It derefs to `str` and is built with `.into()` from `&str`, `String` and `Box<str>`,
//! so the code written for `Box<str>` (`inst.mods = ".64".into()`, `&inst.mods`,
//! `inst.mods.contains(..)`) keeps compiling; `Debug` and `Display` print the string as
//! `Box<str>` did, so traces and transcripts are unchanged.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

#[derive(Clone, Copy)]
pub struct Atom(&'static &'static str);

/// An instruction's modifiers, including their leading dots (`.WIDE.U32`).
pub type Mods = Atom;

/// The distinct modifier strings seen so far, each leaked once.
fn table() -> &'static Mutex<HashMap<&'static str, Atom>> {
    static TABLE: OnceLock<Mutex<HashMap<&'static str, Atom>>> = OnceLock::new();
    TABLE.get_or_init(|| Mutex::new(HashMap::new()))
}

impl Atom {
    /// No modifiers (taken without the table's lock).
    pub const EMPTY: Atom = Atom(&"");

    /// The interned copy of `s`.
    pub fn new(s: &str) -> Atom {
        if s.is_empty() {
            return Atom::EMPTY;
        }
        // A poisoned lock still holds a consistent table: entries are inserted whole.
        let mut t = table().lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(&m) = t.get(s) {
            return m;
        }
        let text: &'static str = Box::leak(s.into());
        let m = Atom(Box::leak(Box::new(text)));
        t.insert(text, m);
        m
    }

    pub fn as_str(&self) -> &'static str {
        self.0
    }

    /// How many distinct non-empty modifier strings the process has interned.
    pub fn interned() -> usize {
        table().lock().unwrap_or_else(std::sync::PoisonError::into_inner).len()
    }
}

impl Default for Atom {
    fn default() -> Atom {
        Atom::EMPTY
    }
}

impl std::ops::Deref for Atom {
    type Target = str;
    fn deref(&self) -> &str {
        self.0
    }
}

impl AsRef<str> for Atom {
    fn as_ref(&self) -> &str {
        self.0
    }
}

impl std::borrow::Borrow<str> for Atom {
    fn borrow(&self) -> &str {
        self.0
    }
}

impl From<&str> for Atom {
    fn from(s: &str) -> Atom {
        Atom::new(s)
    }
}

impl From<&String> for Atom {
    fn from(s: &String) -> Atom {
        Atom::new(s)
    }
}

impl From<String> for Atom {
    fn from(s: String) -> Atom {
        Atom::new(&s)
    }
}

impl From<Box<str>> for Atom {
    fn from(s: Box<str>) -> Atom {
        Atom::new(&s)
    }
}

impl From<Atom> for Box<str> {
    fn from(m: Atom) -> Box<str> {
        (*m.0).into()
    }
}

impl From<Atom> for String {
    fn from(m: Atom) -> String {
        m.0.to_string()
    }
}

impl PartialEq for Atom {
    fn eq(&self, other: &Atom) -> bool {
        std::ptr::eq(self.0, other.0) || self.0 == other.0
    }
}

impl Eq for Atom {}

impl PartialEq<str> for Atom {
    fn eq(&self, other: &str) -> bool {
        *self.0 == other
    }
}

impl PartialEq<&str> for Atom {
    fn eq(&self, other: &&str) -> bool {
        *self.0 == *other
    }
}

impl PartialEq<Atom> for str {
    fn eq(&self, other: &Atom) -> bool {
        self == *other.0
    }
}

impl PartialEq<Atom> for &str {
    fn eq(&self, other: &Atom) -> bool {
        *self == *other.0
    }
}

impl std::hash::Hash for Atom {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.0.hash(h);
    }
}

impl PartialOrd for Atom {
    fn partial_cmp(&self, other: &Atom) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Atom {
    fn cmp(&self, other: &Atom) -> std::cmp::Ordering {
        self.0.cmp(other.0)
    }
}

impl std::fmt::Debug for Atom {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.0, f)
    }
}

impl std::fmt::Display for Atom {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::Atom;

    #[test]
    fn equal_strings_share_one_copy() {
        let a = Atom::from(".E.64");
        let b = Atom::from(String::from(".E.64"));
        assert!(std::ptr::eq(a.as_str(), b.as_str()));
        assert_eq!(a, b);
        assert_ne!(a, Atom::from(".E.32"));
        assert!(std::ptr::eq(Atom::from("").as_str(), Atom::EMPTY.as_str()));
    }

    #[test]
    fn prints_and_compares_as_the_string() {
        let m: Atom = ".WIDE.U32".into();
        assert_eq!(format!("{m:?}"), format!("{:?}", Box::<str>::from(".WIDE.U32")));
        assert_eq!(format!("{m}"), ".WIDE.U32");
        assert!(m == ".WIDE.U32" && *".WIDE.U32" == m && m.starts_with(".WIDE"));
        assert_eq!(Box::<str>::from(m), ".WIDE.U32".into());
    }
}
