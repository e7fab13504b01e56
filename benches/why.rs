//! `why` benchmarks on a synthetic kernel (`radbg::synth`) of 100k instructions:
//! - `why registers` on the finished run (target <= 50 ms);
//! - `why spill %v` on a spilled vreg (target <= 10 ms; without the histogram and
//!   guidance replays, which need a debugger: those are timed separately);
//! - a sweep of 16 budgets on both cores (target <= 10 s).
//!
//! Best of several runs. Run with `cargo bench --bench why` (`WHY_BENCH_INSTS=N` to
//! change the size).

mod common;

use std::time::{Duration, Instant};

use radbg::engine::{Debugger, RunOptions};
use radbg::why::{self, Ctx, WhyCmd};

fn best<T>(runs: usize, mut f: impl FnMut() -> T) -> (Duration, T) {
    let mut t = Duration::MAX;
    let mut last = None;
    for _ in 0..runs {
        drop(last.take());
        let s = Instant::now();
        let v = f();
        t = t.min(s.elapsed());
        last = Some(v);
    }
    (t, last.expect("one run"))
}

fn main() {
    let insts: usize = std::env::var("WHY_BENCH_INSTS").ok().and_then(|s| s.parse().ok()).unwrap_or(100_000);
    let mut module = radbg::synth::synthetic_kernel(insts, 1);
    module.options.maxrregcount = Some(64);
    let n = module.functions[0].inst_count();
    let s = Instant::now();
    let mut d = Debugger::new(module.clone(), RunOptions::default());
    d.run_to_end();
    println!("why: {n} instructions, pipeline to the end with a trace: {:.2?}", s.elapsed());
    let cx = Ctx::of(&d, "synth.ori");
    let (t, x) = best(5, || why::registers::explain(&cx, 0));
    println!("why registers: {:.2?} (target 50 ms); peak {:?}, registers {:?}", t, x.fact("peak"), x.fact("registers"));
    let a = cx.alloc(0).expect("allocated");
    let files = [radbg::ir::RegFile::R, radbg::ir::RegFile::UR, radbg::ir::RegFile::P];
    let (t, _) = best(5, || why::registers::curves(&a.func, &a.analysis.live, &files));
    println!("  (the fallback walk for aliased functions, 3 files: {:.2?})", t);
    let (t, _) = best(5, || why::registers::report(&cx, 0));
    println!("  of which the report (curves, peak sets, breakdown): {:.2?}", t);
    let v = a
        .spills
        .first()
        .map(|s| a.func.vreg(s.vreg).name.to_string())
        .unwrap_or_else(|| a.func.vregs[0].name.to_string());
    let plain = Ctx { d: None, ..Ctx::of(&d, "synth.ori") };
    let (t, _) = best(5, || why::answer(&WhyCmd::Spill(v.clone()), &plain, 0));
    println!("why spill {v}: {:.2?} (target 10 ms)", t);
    let (t, _) = best(3, || why::answer(&WhyCmd::Spill(v.clone()), &cx, 0));
    println!("why spill {v} with the histogram and guidance replays: {:.2?}", t);
    if std::env::var_os("WHY_BENCH_NO_SWEEP").is_some() {
        return;
    }
    let values: Vec<i64> = (0..16).map(|i| 24 + 8 * i).collect();
    let axis = why::sweep::Axis::MaxRegCount;
    let cpu0 = common::cpu_ns();
    let (t, rows) = best(1, || why::sweep::run(&module, &RunOptions::default(), &axis, &values, 2).expect("sweep"));
    let cpu = common::cpu_ns().zip(cpu0).map(|(b, a)| Duration::from_nanos(b.saturating_sub(a)));
    println!(
        "sweep of 16 budgets on 2 threads: {:.2?} (target 10 s), {:.2?} CPU over both threads; {} rows",
        t,
        cpu.unwrap_or_default(),
        rows.len()
    );
}
