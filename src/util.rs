//! Small helpers shared across layers: edit distance for "did you mean" hints, cutting
//! long lines for display, the thread's CPU time and where the corpus cache is.

/// Edit distance between two strings, by characters, counting an adjacent
/// transposition as one edit (optimal string alignment distance).
pub fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let w = b.len() + 1;
    let mut d = vec![0usize; (a.len() + 1) * w];
    for i in 0..=a.len() {
        d[i * w] = i;
    }
    for (j, cell) in d.iter_mut().enumerate().take(w) {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[(i - 1) * w + j] + 1).min(d[i * w + j - 1] + 1).min(d[(i - 1) * w + j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[(i - 2) * w + j - 2] + 1);
            }
            d[i * w + j] = v;
        }
    }
    d[a.len() * w + b.len()]
}

/// Longest word [`closest`] looks for a near miss of.
pub const MAX_TYPO_LEN: usize = 256;

/// The candidate closest to `word`, if it is close enough to be a plausible typo
/// (distance at most a third of the word's length, and at least 1 allowed).
/// Ties go to the earliest candidate, so the answer is deterministic.
pub fn closest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    // A word this long is no typo, and the distance costs its length per candidate
    // (a 100,000-character vreg name took seconds; issue 28).
    if word.len() > MAX_TYPO_LEN {
        return None;
    }
    let limit = (word.chars().count() / 3).max(1);
    let lower = word.to_lowercase();
    let mut best: Option<(usize, &'a str)> = None;
    for c in candidates {
        let d = edit_distance(&lower, &c.to_lowercase());
        if d <= limit && best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c)
}

/// CPU time the calling thread has run, in seconds, from `/proc/thread-self/schedstat`
/// (`None` where that file does not exist). Timings reported beside another tool's use
/// it, so that a machine shared with other work does not inflate radbg's side.
pub fn thread_cpu_seconds() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = s.split_whitespace().next()?.parse().ok()?;
    Some(ns as f64 / 1e9)
}

/// The real-kernel corpus cache (`/work/shared/corpus/build.sh` fills it: the PTX, the
/// oracle, the installed ptxas): `$RADBG_CORPUS_CACHE`, else `~/.cache/radbg-corpus`.
/// Here, below every layer, because `fidelity`, `why compare` and `reduce` all look there.
pub fn corpus_cache() -> Option<std::path::PathBuf> {
    match std::env::var("RADBG_CORPUS_CACHE") {
        Ok(d) => Some(std::path::PathBuf::from(d)),
        Err(_) => std::env::var("HOME").ok().map(|h| std::path::PathBuf::from(h).join(".cache/radbg-corpus")),
    }
}

/// A deterministic pseudo-random source for tests (Knuth's 64-bit LCG): each call gives
/// a number below its argument. The same seed gives the same sequence on every machine.
#[cfg(test)]
pub(crate) fn lcg(seed: u64) -> impl FnMut(u64) -> u64 {
    let mut x = seed;
    move |n: u64| {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (x >> 33) % n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distance_and_suggestions() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(closest("stpe", ["step", "stats", "state"]), Some("step"));
        assert_eq!(closest("zzzzzz", ["step", "stats"]), None);
    }
}

/// Widest a command line, echo or error line is shown, in characters: longer lines
/// are cut with "…" (issue 28: a 100 KB line echoed per error made megabytes).
pub const MAX_SHOWN: usize = 160;

/// `text` cut to at most `width` characters, with "…" in place of the rest.
pub fn clip(text: &str, width: usize) -> String {
    match text.char_indices().nth(width) {
        None => text.to_string(),
        Some((k, _)) => format!("{}…", &text[..k]),
    }
}

/// A window of at most about `width` characters of `text` around byte offset `at`
/// (clamped onto a character boundary), with "…" where it was cut; returns the shown
/// text and the column, in characters, of `at` within it. A short line comes back whole.
/// Works on a bounded neighbourhood, so a 10 MB line costs no more than a short one.
pub fn window(text: &str, at: usize, width: usize) -> (String, usize) {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    if text.len() <= width {
        return (text.to_string(), text[..at].chars().count());
    }
    let half = (width / 2).max(1);
    let start = text[..at].char_indices().rev().nth(half - 1).map_or(0, |(k, _)| k);
    let end = text[at..].char_indices().nth(half).map_or(text.len(), |(k, _)| at + k);
    let mut shown = String::new();
    let mut col = text[start..at].chars().count();
    if start > 0 {
        shown.push('…');
        col += 1;
    }
    shown.push_str(&text[start..end]);
    if end < text.len() {
        shown.push('…');
    }
    (shown, col)
}

#[cfg(test)]
mod cut_tests {
    use super::*;

    #[test]
    fn clip_and_window_keep_the_place_in_view() {
        assert_eq!(clip("abcdef", 3), "abc…");
        assert_eq!(clip("abc", 3), "abc");
        assert_eq!(window("short", 2, 160), ("short".to_string(), 2));
        let line = format!("{}X{}", "a".repeat(100_000), "b".repeat(100_000));
        let (shown, col) = window(&line, 100_000, 160);
        assert!(shown.chars().count() <= 163, "{}", shown.len());
        assert_eq!(shown.chars().nth(col), Some('X'));
        assert!(shown.starts_with('…') && shown.ends_with('…'));
    }
}
