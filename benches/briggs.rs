//! Chaitin-Briggs benchmarks (seed 002) on synthetic kernels (`radbg::synth`, default
//! configuration: insts/20 R vregs reused round-robin, 48 values in flight, loops three
//! deep) of 10k and 100k instructions:
//! - build + colour: the first iteration — liveness, graph build, coalescing, the
//!   simplify/freeze/spill loop and select (target: <= 1 s at 100k);
//! - the whole allocation: every iteration and its spill code, until nothing spills;
//! - peak memory of the whole allocation over the baseline (target: <= 1 GB);
//! - the fat-point allocator on the same kernel and budget, stopped after a time cap.
//!
//! Best of several runs. Run with `cargo bench --bench briggs`.

use std::time::{Duration, Instant};

use radbg::alloc::briggs::{BriggsAlloc, BriggsEvent};
use radbg::alloc::{AllocConfig, FunctionAlloc};
use radbg::synth::{SynthConfig, synthetic_kernel_with};

/// The general-register budget of every run.
const BUDGET: u32 = 64;
/// How long the fat-point allocator may run before it is stopped.
const FAT_CAP: Duration = Duration::from_secs(30);

/// CPU time this process has used (user + system), from `/proc/self/stat` (clock ticks
/// of 10 ms): on a shared machine it is steadier than wall time.
fn cpu_time() -> Duration {
    let s = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let rest = s.rsplit_once(')').map_or("", |r| r.1);
    let f: Vec<&str> = rest.split_whitespace().collect();
    // After the command name come the state (field 3 of proc(5)) ... utime and stime
    // (fields 14 and 15), so indices 11 and 12 here.
    let field = |i: usize| f.get(i).and_then(|x| x.parse::<u64>().ok()).unwrap_or(0);
    let ticks = field(11) + field(12);
    Duration::from_millis(ticks * 10)
}

/// Best wall time and best CPU time over `runs`, and the last result.
fn best<T>(runs: usize, mut f: impl FnMut() -> T) -> (Duration, Duration, T) {
    let (mut wall, mut cpu) = (Duration::MAX, Duration::MAX);
    let mut last = None;
    for _ in 0..runs {
        drop(last.take());
        let (t, c) = (Instant::now(), cpu_time());
        let v = f();
        wall = wall.min(t.elapsed());
        cpu = cpu.min(cpu_time().saturating_sub(c));
        last = Some(v);
    }
    (wall, cpu, last.expect("at least one run"))
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
    println!("Chaitin-Briggs benchmarks (best of N; synthetic kernels, seed 1, budget {BUDGET}, K = 15)");
    println!("  (cpu: process CPU time in 10 ms ticks; wall time suffers on a loaded machine)");
    for &(n, runs) in &[(10_000usize, 5usize), (100_000, 3)] {
        let m = synthetic_kernel_with(SynthConfig::new(n, 1));
        let f = &m.functions[0];
        let config = AllocConfig::simple(m.sm.version, BUDGET);

        let (t_first, c_first, first) = best(runs, || {
            let mut a = BriggsAlloc::new(f.clone(), config.clone());
            let mut build = None;
            while let Some(ev) = a.step() {
                match ev {
                    BriggsEvent::Build(b) => {
                        build = Some((b.nodes, b.edges, b.max_degree, b.density));
                    }
                    BriggsEvent::IterationEnd { spilled, .. } => return (build, spilled.len()),
                    _ => {}
                }
            }
            (build, 0)
        });
        let ((nodes, edges, max_degree, density), spilled) = (first.0.unwrap_or_default(), first.1);
        println!(
            "  {n:>7} insts  build + colour {:>8.1} ms wall {:>8.1} ms cpu  ({nodes} nodes, {edges} edges, \
             max degree {max_degree}, density {:.2}%, {spilled} actual spills)",
            ms(t_first),
            ms(c_first),
            density * 100.0
        );

        let base = status_kib("VmRSS:").unwrap_or(0);
        reset_peak();
        let (t_all, c_all, (a, events)) = best(runs, || {
            let mut a = BriggsAlloc::new(f.clone(), config.clone());
            let mut events = 0u64;
            while a.step().is_some() {
                events += 1;
            }
            (a, events)
        });
        let peak = status_kib("VmHWM:").map_or("n/a".to_string(), |p| format!("{} MiB", p.saturating_sub(base) / 1024));
        let s = a.stats();
        println!(
            "                 whole briggs   {:>8.1} ms wall {:>8.1} ms cpu  ({events} events, {} iterations, \
             {} of {} vregs spilled, {} registers, {} instructions after spill code, ok {}), peak {peak} over base",
            ms(t_all),
            ms(c_all),
            s.iterations,
            s.spilled,
            s.vregs,
            s.registers,
            a.func().inst_count(),
            s.ok
        );
        if let Some(e) = a.failure() {
            println!("                 failure: {e}");
        }
        drop(a);

        let (t, c) = (Instant::now(), cpu_time());
        let mut fa = FunctionAlloc::new(f.clone(), config.clone());
        let mut steps = 0u64;
        let mut capped = false;
        while fa.step().is_some() {
            steps += 1;
            if steps.is_multiple_of(256) && t.elapsed() > FAT_CAP {
                capped = true;
                break;
            }
        }
        let (t_fat, c_fat) = (t.elapsed(), cpu_time().saturating_sub(c));
        if capped {
            println!(
                "                 fatpoint       {:>8.1} ms wall {:>8.1} ms cpu  (stopped after {steps} events, not finished)",
                ms(t_fat),
                ms(c_fat)
            );
        } else {
            let regs = radbg::alloc::stats::registers_used(&fa.func, &|v| fa.slot_of(v));
            println!(
                "                 fatpoint       {:>8.1} ms wall {:>8.1} ms cpu  ({steps} events, {} spilled, {regs} registers, ok {})",
                ms(t_fat),
                ms(c_fat),
                fa.spills.len(),
                fa.failure.is_none()
            );
        }
    }
}
