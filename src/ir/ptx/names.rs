//! Names and positions for the importer: PTX names made legal and unique as Ori
//! names, and byte offsets turned into lines.
//!
//! Owns: the rules that keep every imported name re-parseable — a vreg name is `%`
//! followed by `[A-Za-z0-9_$]`; a symbol or label must not read as a physical
//! register (`R5`, `PT`, `B1`), a special register (`SR_...`) or a constant bank
//! (`c`); names longer than the Ori limit are shortened with a hash. Must not know
//! PTX syntax or Ori instructions.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// The longest name Ori accepts is 1024 bytes; longer PTX names keep a prefix and a
/// hash of the whole name so that distinct names stay distinct.
pub const MAX_NAME: usize = 1000;

/// Whether a bare word would be read by the Ori parser as something other than a
/// symbol: a physical register, the zero/true registers, a special register, `c`.
pub fn reserved_in_ori(name: &str) -> bool {
    if matches!(name, "RZ" | "URZ" | "PT" | "UPT" | "c") || name.starts_with("SR_") {
        return true;
    }
    for prefix in ["UR", "UP", "UB", "R", "P", "T", "B"] {
        if let Some(d) = name.strip_prefix(prefix)
            && !d.is_empty()
            && d.bytes().all(|b| b.is_ascii_digit())
        {
            return true;
        }
    }
    false
}

/// FNV-1a as a `Hasher`: the importer's maps are keyed by short names and only
/// looked up, never iterated, so a fast non-cryptographic hash is safe.
#[derive(Default)]
pub struct Fnv(u64);

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        let mut h = if self.0 == 0 { 0xcbf2_9ce4_8422_2325 } else { self.0 };
        for &b in bytes {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        self.0 = h;
    }
}

/// A hash map for name lookups (never iterated: order cannot show).
pub type NameMap<K, V> = HashMap<K, V, BuildHasherDefault<Fnv>>;

/// FNV-1a, for the deterministic suffix of shortened names.
fn fnv(s: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in s.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

fn shorten(s: &str) -> String {
    if s.len() <= MAX_NAME {
        return s.to_string();
    }
    let mut cut = MAX_NAME - 17;
    while !s.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}${:016x}", &s[..cut], fnv(s))
}

/// The Ori form of a PTX symbol (function, variable or label): PTX identifiers may
/// start with `%`, which Ori symbols cannot.
pub fn symbol_base(ptx: &str) -> String {
    let s = match ptx.strip_prefix('%') {
        Some(rest) => format!("pct_{rest}"),
        None => ptx.to_string(),
    };
    let s = shorten(&s);
    if reserved_in_ori(&s) { format!("{s}_") } else { s }
}

/// The Ori form of a PTX register name: `%r1` stays, `$r1` becomes `%$r1`, `x` `%x`.
pub fn vreg_base(ptx: &str) -> String {
    let s = if ptx.starts_with('%') { ptx.to_string() } else { format!("%{ptx}") };
    shorten(&s)
}

/// A set of names in use that hands out unique ones. It stores 64-bit hashes of the
/// names, not the names: a hash collision can only make a free name look taken,
/// which renames something that did not need it — never a duplicate.
#[derive(Default)]
pub struct Unique {
    used: HashSet<u64, BuildHasherDefault<Fnv>>,
    /// Per wanted name (by hash): the suffix to try next, so that the k-th duplicate
    /// costs one probe, not k (thousands of call sites each declare `temp_param_reg`).
    next: HashMap<u64, u32, BuildHasherDefault<Fnv>>,
}

fn hash_indexed(prefix: &str, index: Option<u32>) -> u64 {
    let mut h = Fnv::default();
    h.write(prefix.as_bytes());
    if let Some(i) = index {
        let mut buf = [0u8; 10];
        h.write(digits(i, &mut buf));
    }
    h.finish()
}

/// The decimal digits of `i` in `buf`.
fn digits(mut i: u32, buf: &mut [u8; 10]) -> &[u8] {
    let mut k = buf.len();
    loop {
        k -= 1;
        buf[k] = b'0' + (i % 10) as u8;
        i /= 10;
        if i == 0 {
            return &buf[k..];
        }
    }
}

/// `prefix` followed by the decimal `i`, without the formatting machinery.
pub fn indexed(prefix: &str, i: u32) -> String {
    let mut buf = [0u8; 10];
    let d = digits(i, &mut buf);
    let mut s = String::with_capacity(prefix.len() + d.len());
    s.push_str(prefix);
    // ASCII digits: pushed as bytes' text, not char by char.
    s.push_str(std::str::from_utf8(d).unwrap_or_default());
    s
}

impl Unique {
    pub fn contains(&self, s: &str) -> bool {
        self.used.contains(&hash_indexed(s, None))
    }

    /// Claims `want` if free, else the first free `want_N` (N = 1, 2, ...).
    pub fn claim(&mut self, want: &str) -> String {
        if self.used.insert(hash_indexed(want, None)) {
            return want.to_string();
        }
        let stem = format!("{want}_");
        let key = hash_indexed(want, None);
        let mut n = self.next.get(&key).copied().unwrap_or(1);
        loop {
            if self.used.insert(hash_indexed(&stem, Some(n))) {
                self.next.insert(key, n + 1);
                return indexed(&stem, n);
            }
            n += 1;
        }
    }

    /// Claims a prefix for a range `prefix0 .. prefix{count-1}`: every generated name
    /// must be free. Returns the prefix used.
    pub fn claim_range(&mut self, want: &str, count: u32) -> String {
        let key = hash_indexed(want, Some(u32::MAX));
        let mut n = self.next.get(&key).copied().unwrap_or(0);
        let mut prefix = if n == 0 { want.to_string() } else { format!("{want}_{n}_") };
        loop {
            if !self.used.contains(&hash_indexed(&prefix, None)) {
                // Each name's hash goes in as it is checked (one probe per name, where a
                // check of every name then an insert of every name took two), from the
                // prefix's hash state (the prefix is hashed once, not per name); a name
                // found taken takes this try's inserts back out. A hash equal to one this
                // try inserted is not a taken name (the two-pass form checked before
                // inserting any): the walk goes on.
                let mut at = Fnv::default();
                at.write(prefix.as_bytes());
                let state = at.0;
                let hash = |i: u32| {
                    let mut h = Fnv(state);
                    let mut buf = [0u8; 10];
                    h.write(digits(i, &mut buf));
                    h.finish()
                };
                self.used.reserve(count as usize);
                let mut i = 0;
                while i < count {
                    let h = hash(i);
                    if !self.used.insert(h) && !(0..i).any(|j| hash(j) == h) {
                        break;
                    }
                    i += 1;
                }
                if i == count {
                    self.next.insert(key, n + 1);
                    return prefix;
                }
                for j in 0..i {
                    self.used.remove(&hash(j));
                }
            }
            n += 1;
            prefix = format!("{want}_{n}_");
        }
    }

    pub fn insert(&mut self, s: &str) {
        self.used.insert(hash_indexed(s, None));
    }
}

/// Byte offset → 1-based line and column.
pub struct LineIndex {
    starts: Vec<u32>,
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        let mut starts = vec![0u32];
        starts.extend(text.bytes().enumerate().filter(|&(_, b)| b == b'\n').map(|(i, _)| i as u32 + 1));
        LineIndex { starts }
    }

    pub fn line(&self, pos: u32) -> u32 {
        self.starts.partition_point(|&s| s <= pos) as u32
    }
}

/// Length of the token at `pos`, for the caret under a diagnostic.
pub fn token_len(text: &str, pos: u32) -> u32 {
    let rest = text.get(pos as usize..).unwrap_or("");
    // An address `[ ... ]` on one line is one token.
    if rest.starts_with('[')
        && let Some(end) = rest.find([']', '\n', ';'])
        && rest.as_bytes()[end] == b']'
    {
        return end as u32 + 1;
    }
    let n = rest
        .char_indices()
        .find(|&(i, c)| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '%' | '.') || (i == 0 && c == '@')))
        .map(|(i, _)| i)
        .unwrap_or(rest.len());
    n.max(1) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_become_legal_ori() {
        assert!(reserved_in_ori("R5") && reserved_in_ori("PT") && reserved_in_ori("SR_X") && reserved_in_ori("UB0"));
        assert!(!reserved_in_ori("RX5") && !reserved_in_ori("BB0") && !reserved_in_ori("$L__BB0_1"));
        assert_eq!(symbol_base("B1"), "B1_");
        assert_eq!(symbol_base("%foo"), "pct_foo");
        assert_eq!(vreg_base("$r1"), "%$r1");
        assert_eq!(vreg_base("temp_param_reg"), "%temp_param_reg");
        let long = "x".repeat(2000);
        assert_eq!(symbol_base(&long).len(), MAX_NAME);
        let mut u = Unique::default();
        assert_eq!(u.claim("%a"), "%a");
        assert_eq!(u.claim("%a"), "%a_1");
        assert_eq!(u.claim_range("%r", 3), "%r");
        assert_eq!(u.claim_range("%r", 2), "%r_1_");
        // A range whose third name is taken: the try's first two names are given back.
        let mut u = Unique::default();
        u.insert("%q2");
        assert_eq!(u.claim_range("%q", 4), "%q_1_");
        assert!(!u.contains("%q0") && !u.contains("%q1") && u.contains("%q2") && !u.contains("%q3"));
        assert!(u.contains("%q_1_0") && u.contains("%q_1_3") && !u.contains("%q_1_4"));
        let li = LineIndex::new("a\nbc\n\nd");
        assert_eq!((li.line(0), li.line(2), li.line(5), li.line(6)), (1, 2, 3, 4));
    }
}
