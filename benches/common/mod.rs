//! Timing and memory helpers shared by the benchmarks (each bench is its own crate and
//! includes this module).
#![allow(dead_code)]

use std::time::{Duration, Instant};

/// Runs `f` `runs` times and returns the best time and the last result (the previous
/// result is dropped before each run so peak memory counts one).
pub fn best<T>(runs: usize, mut f: impl FnMut() -> T) -> (Duration, T) {
    let mut best = Duration::MAX;
    let mut last = None;
    for _ in 0..runs {
        drop(last.take());
        let t = Instant::now();
        let v = f();
        best = best.min(t.elapsed());
        last = Some(v);
    }
    (best, last.expect("at least one run"))
}

/// Resets the peak-RSS counter (Linux: writing 5 to clear_refs resets VmHWM).
pub fn reset_peak() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

fn status_kib(key: &str) -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with(key))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Peak resident set size in KiB since the last reset.
pub fn peak_kib() -> Option<u64> {
    status_kib("VmHWM:")
}

/// Current resident set size in KiB.
pub fn rss_kib() -> Option<u64> {
    status_kib("VmRSS:")
}

pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Number of cores, for the report.
pub fn cores() -> usize {
    std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)
}

/// CPU time of this process so far (all its threads), so figures on a shared machine
/// can be told apart from waiting for a core.
pub fn cpu_ns() -> Option<u64> {
    // The whole process (every thread, including finished ones — the checker runs its
    // spill-slot dataflow on a second thread): user + system time from /proc/self/stat,
    // in clock ticks of 10 ms (CLK_TCK is 100 on Linux x86-64). Time spent by other
    // processes on this shared machine is not counted.
    let s = std::fs::read_to_string("/proc/self/stat").ok()?;
    let rest = &s[s.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    // Fields 14 and 15 of stat(5), counted from the state field (3) after the name.
    let utime: u64 = f.get(11)?.parse().ok()?;
    let stime: u64 = f.get(12)?.parse().ok()?;
    Some((utime + stime) * 10_000_000)
}

/// Runs `f` `runs` times; returns the best wall time, the best CPU time and the last result.
pub fn best_cpu<T>(runs: usize, mut f: impl FnMut() -> T) -> (Duration, Duration, T) {
    let mut best = Duration::MAX;
    let mut best_cpu = Duration::MAX;
    let mut last = None;
    for _ in 0..runs {
        drop(last.take());
        let c = cpu_ns();
        let t = Instant::now();
        let v = f();
        best = best.min(t.elapsed());
        if let (Some(a), Some(b)) = (c, cpu_ns()) {
            best_cpu = best_cpu.min(Duration::from_nanos(b.saturating_sub(a)));
        }
        last = Some(v);
    }
    (best, best_cpu, last.expect("at least one run"))
}
