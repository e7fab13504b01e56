//! An instruction's modifiers (`.WIDE.U32`) as one interned string: a pointer, not a
//! heap block per instruction.
//!
//! A module holds a handful of distinct modifier strings (62 across the 174k
//! instructions of the 5 MB many-entry file after the prepasses) but every instruction
//! carried its own `Box<str>`: 16 bytes in the instruction and a 32-byte heap block
//! beside it, about a sixth of the IR (issue 25). Each distinct string is leaked once
//! for the process's lifetime, so the table is bounded by the distinct modifiers ever
//! read, not by the instructions; a `Mods` is 8 bytes (a thin reference to the leaked
//! `&str`) and `Copy`.
//!
//! It derefs to `str` and is built with `.into()` from `&str`, `String` and `Box<str>`,
//! so the code written for `Box<str>` (`inst.mods = ".64".into()`, `&inst.mods`,
//! `inst.mods.contains(..)`) keeps compiling; `Debug` and `Display` print the string as
//! `Box<str>` did, so traces and transcripts are unchanged.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

#[derive(Clone, Copy)]
pub struct Mods(&'static &'static str);

/// The distinct modifier strings seen so far, each leaked once.
fn table() -> &'static Mutex<HashMap<&'static str, Mods>> {
    static TABLE: OnceLock<Mutex<HashMap<&'static str, Mods>>> = OnceLock::new();
    TABLE.get_or_init(|| Mutex::new(HashMap::new()))
}

impl Mods {
    /// No modifiers (taken without the table's lock).
    pub const EMPTY: Mods = Mods(&"");

    /// The interned copy of `s`.
    pub fn new(s: &str) -> Mods {
        if s.is_empty() {
            return Mods::EMPTY;
        }
        // A poisoned lock still holds a consistent table: entries are inserted whole.
        let mut t = table().lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(&m) = t.get(s) {
            return m;
        }
        let text: &'static str = Box::leak(s.into());
        let m = Mods(Box::leak(Box::new(text)));
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

impl Default for Mods {
    fn default() -> Mods {
        Mods::EMPTY
    }
}

impl std::ops::Deref for Mods {
    type Target = str;
    fn deref(&self) -> &str {
        self.0
    }
}

impl AsRef<str> for Mods {
    fn as_ref(&self) -> &str {
        self.0
    }
}

impl std::borrow::Borrow<str> for Mods {
    fn borrow(&self) -> &str {
        self.0
    }
}

impl From<&str> for Mods {
    fn from(s: &str) -> Mods {
        Mods::new(s)
    }
}

impl From<&String> for Mods {
    fn from(s: &String) -> Mods {
        Mods::new(s)
    }
}

impl From<String> for Mods {
    fn from(s: String) -> Mods {
        Mods::new(&s)
    }
}

impl From<Box<str>> for Mods {
    fn from(s: Box<str>) -> Mods {
        Mods::new(&s)
    }
}

impl From<Mods> for Box<str> {
    fn from(m: Mods) -> Box<str> {
        (*m.0).into()
    }
}

impl From<Mods> for String {
    fn from(m: Mods) -> String {
        m.0.to_string()
    }
}

impl PartialEq for Mods {
    fn eq(&self, other: &Mods) -> bool {
        std::ptr::eq(self.0, other.0) || self.0 == other.0
    }
}

impl Eq for Mods {}

impl PartialEq<str> for Mods {
    fn eq(&self, other: &str) -> bool {
        *self.0 == other
    }
}

impl PartialEq<&str> for Mods {
    fn eq(&self, other: &&str) -> bool {
        *self.0 == *other
    }
}

impl PartialEq<Mods> for str {
    fn eq(&self, other: &Mods) -> bool {
        self == *other.0
    }
}

impl PartialEq<Mods> for &str {
    fn eq(&self, other: &Mods) -> bool {
        *self == *other.0
    }
}

impl std::hash::Hash for Mods {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.0.hash(h);
    }
}

impl PartialOrd for Mods {
    fn partial_cmp(&self, other: &Mods) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Mods {
    fn cmp(&self, other: &Mods) -> std::cmp::Ordering {
        self.0.cmp(other.0)
    }
}

impl std::fmt::Debug for Mods {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.0, f)
    }
}

impl std::fmt::Display for Mods {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::Mods;

    #[test]
    fn equal_strings_share_one_copy() {
        let a = Mods::from(".E.64");
        let b = Mods::from(String::from(".E.64"));
        assert!(std::ptr::eq(a.as_str(), b.as_str()));
        assert_eq!(a, b);
        assert_ne!(a, Mods::from(".E.32"));
        assert!(std::ptr::eq(Mods::from("").as_str(), Mods::EMPTY.as_str()));
    }

    #[test]
    fn prints_and_compares_as_the_string() {
        let m: Mods = ".WIDE.U32".into();
        assert_eq!(format!("{m:?}"), format!("{:?}", Box::<str>::from(".WIDE.U32")));
        assert_eq!(format!("{m}"), ".WIDE.U32");
        assert!(m == ".WIDE.U32" && *".WIDE.U32" == m && m.starts_with(".WIDE"));
        assert_eq!(Box::<str>::from(m), ".WIDE.U32".into());
    }
}
