//! Liveness benchmarks on synthetic kernels (`radbg::synth`): CFG build and liveness
//! solve for 10k / 100k / 1M instructions (target: 100k in <= 50 ms), point queries
//! at 100k (target: <= 1 ms), pressure curve, and peak memory. Best of several runs.
//! Run with `cargo bench --bench liveness`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use radbg::analysis::{cfg, liveness};
use radbg::ir::RegFile;
use radbg::synth::synthetic_kernel;

fn best<T>(runs: usize, mut f: impl FnMut() -> T) -> (Duration, T) {
    let mut best = Duration::MAX;
    let mut last = None;
    for _ in 0..runs {
        drop(last.take()); // drop the previous result first so peak memory counts one
        let t = Instant::now();
        let v = f();
        best = best.min(t.elapsed());
        last = Some(v);
    }
    (best, last.expect("at least one run"))
}

/// Resets the peak-RSS counter (Linux: writing 5 to clear_refs resets VmHWM).
fn reset_peak() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

/// Peak resident set size in KiB, if the kernel reports it.
fn peak_kib() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn rss_kib() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn main() {
    println!("liveness benchmarks (best of N; synthetic kernels, seed 1)");
    for &(n, runs) in &[(10_000usize, 10usize), (100_000, 7), (1_000_000, 3)] {
        let m = synthetic_kernel(n, 1);
        let f = &m.functions[0];
        let (t_cfg, c) = best(runs, || cfg::build(f, 8.0));
        let base = rss_kib().unwrap_or(0);
        reset_peak();
        let (t_live, l) = best(runs, || liveness::compute(f, &c, &[]));
        let peak = peak_kib().map_or("n/a".to_string(), |p| format!("{} KiB over base", p.saturating_sub(base)));
        let sweeps = l.sweeps(RegFile::R).len();
        let (t_curve, (maxp, _)) = best(runs, || l.max_pressure(f, RegFile::R));
        println!(
            "{:>9} insts  {:>6} blocks  {:>6} vregs  {:>4} loops | cfg {:>8.2} ms | liveness {:>8.2} ms ({} R sweeps, peak {}) | R pressure curve {:>8.2} ms (max {})",
            f.inst_count(),
            f.blocks.len(),
            f.vregs.len(),
            c.loops.len(),
            ms(t_cfg),
            ms(t_live),
            sweeps,
            peak,
            ms(t_curve),
            maxp,
        );

        if n == 100_000 {
            // Point queries spread over the function, including the worst case (the
            // first instruction of a chunk, furthest from its checkpoint).
            let len = l.len();
            let points: Vec<u32> = (0..1000u32).map(|i| (i as u64 * 7919 % len as u64) as u32).collect();
            let mut worst = Duration::ZERO;
            let mut total = Duration::ZERO;
            for &p in &points {
                let (t, s) = best(3, || l.live_before(f, p));
                black_box(s);
                worst = worst.max(t);
                total += t;
            }
            let (t_p, _) = best(3, || black_box(l.pressure(f, points[0], RegFile::R)));
            println!(
                "          point query live_before at 100k: mean {:.1} us, worst {:.1} us over {} points; pressure {:.1} us",
                total.as_secs_f64() * 1e6 / points.len() as f64,
                worst.as_secs_f64() * 1e6,
                points.len(),
                t_p.as_secs_f64() * 1e6,
            );
        }
    }
}
