//! Chaitin-Briggs benchmarks (seed 002) on synthetic kernels (`radbg::synth`) of 10k and
//! 100k instructions: the first graph build alone, and the whole allocation (build,
//! coalesce, simplify, select, spill code, iterations), with the fat-point allocator's
//! time on the same kernel and budget beside it. Targets: 100k instructions in <= 1 s,
//! peak memory <= 1 GB. Best of several runs. Run with `cargo bench --bench briggs`.

use std::time::{Duration, Instant};

use radbg::alloc::briggs::BriggsAlloc;
use radbg::alloc::briggs::graph;
use radbg::alloc::briggs::select;
use radbg::alloc::ranges::Ranges;
use radbg::alloc::{AllocConfig, FunctionAlloc};
use radbg::analysis::{cfg, liveness};
use radbg::synth::{SynthConfig, synthetic_kernel_with};

fn best<T>(runs: usize, mut f: impl FnMut() -> T) -> (Duration, T) {
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
fn reset_peak() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

fn status_kib(key: &str) -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with(key))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn main() {
    println!("Chaitin-Briggs benchmarks (best of N; synthetic kernels, seed 1, budget 64)");
    for &(n, runs) in &[(10_000usize, 5usize), (100_000, 3)] {
        let m = synthetic_kernel_with(SynthConfig::new(n, 1));
        let f = &m.functions[0];
        let config = AllocConfig::simple(m.sm.version, 64);

        let (t_build, g) = best(runs, || {
            let c = cfg::build(f, 10.0);
            let live = liveness::compute(f, &c, &[]);
            let ranges = Ranges::build(f, &live);
            let windows = select::windows(&config);
            let pins = vec![None; f.vregs.len()];
            graph::build(&graph::BuildInput {
                func: f,
                ranges: &ranges,
                windows: &windows,
                pins: &pins,
                clobbers: &[],
                default_clobbers: &[],
                bank_edges: false,
            })
        });
        println!(
            "  {n:>7} insts: build {:>8.1} ms  ({} nodes, {} edges, max degree {}, density {:.3}%)",
            ms(t_build),
            g.stats.nodes,
            g.stats.edges,
            g.stats.max_degree,
            g.stats.density * 100.0
        );
        drop(g);

        let base = status_kib("VmRSS:").unwrap_or(0);
        reset_peak();
        let (t_all, a) = best(runs, || {
            let mut a = BriggsAlloc::new(f.clone(), config.clone());
            let mut events = 0u64;
            while a.step().is_some() {
                events += 1;
            }
            (a, events)
        });
        let peak = status_kib("VmHWM:").map_or("n/a".to_string(), |p| format!("{} KiB", p.saturating_sub(base)));
        let (a, events) = a;
        let s = a.stats();
        println!(
            "           briggs  {:>8.1} ms  ({} events, {} iterations, {} spilled of {}, {} registers, ok {}), peak {peak} over base",
            ms(t_all),
            events,
            s.iterations,
            s.spilled,
            s.vregs,
            s.registers,
            s.ok
        );
        if let Some(e) = a.failure() {
            println!("           failure: {e}");
        }
        drop(a);

        let (t_fat, fa) = best(runs, || {
            let mut fa = FunctionAlloc::new(f.clone(), config.clone());
            fa.run();
            fa
        });
        let regs = radbg::alloc::stats::registers_used(&fa.func, &|v| fa.slot_of(v));
        println!(
            "           fatpoint{:>8.1} ms  ({} spilled, {} registers, ok {})",
            ms(t_fat),
            fa.spills.len(),
            regs,
            fa.failure.is_none()
        );
    }
}
