//! Vreg names shared across functions: one `Arc<str>` per distinct name in use.
//!
//! Within a function every vreg has its own name, but across the functions of a file the
//! same names come back (`%r1`, `%rd4`, `%f12` in every entry): the 50 MB many-entry file
//! holds 1.85 M vregs whose names were each a `String` (24 bytes) and a 32-byte heap
//! block (issue 25). Here a vreg holds a 16-byte `Arc<str>` and the text is shared by
//! every vreg of that name. The table keeps only names still in use: it is swept of the
//! ones no vreg holds any more (their count back to the table's own) when it has doubled
//! since the last sweep, so a file's names go when its module does — nothing is leaked.

use std::collections::HashSet;
use std::sync::{Arc, Mutex, OnceLock};

struct Table {
    names: HashSet<Arc<str>>,
    /// The table's size after the last sweep: the next one comes at twice it.
    swept: usize,
}

fn table() -> &'static Mutex<Table> {
    static TABLE: OnceLock<Mutex<Table>> = OnceLock::new();
    TABLE.get_or_init(|| Mutex::new(Table { names: HashSet::new(), swept: 0 }))
}

/// The shared copy of `s`.
pub fn intern(s: &str) -> Arc<str> {
    // A poisoned lock still holds a consistent table: entries are inserted whole.
    let mut t = table().lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(n) = t.names.get(s) {
        return Arc::clone(n);
    }
    if t.names.len() >= 2 * t.swept + 4096 {
        t.names.retain(|n| Arc::strong_count(n) > 1);
        t.swept = t.names.len();
    }
    let n: Arc<str> = Arc::from(s);
    t.names.insert(Arc::clone(&n));
    n
}

/// How many names the table holds (those in use, and any not yet swept).
pub fn held() -> usize {
    table().lock().unwrap_or_else(std::sync::PoisonError::into_inner).names.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_names_share_one_text_and_unused_ones_are_swept() {
        let a = intern("%names_test_a");
        let b = intern(&String::from("%names_test_a"));
        assert!(Arc::ptr_eq(&a, &b));
        // Names no vreg holds go at a sweep: fill past the next sweep point with
        // short-lived names, and the table stays bounded.
        for k in 0..50_000 {
            drop(intern(&format!("%names_test_tmp{k}")));
        }
        assert!(held() < 50_000, "{} names held", held());
        assert!(Arc::ptr_eq(&a, &intern("%names_test_a")), "a name in use stays shared");
    }
}
