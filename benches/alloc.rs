//! The fat-point allocator on synthetic kernels of 10k and 100k instructions under a
//! budget that forces several SPILL attempts: the whole pipeline (all classes, all
//! attempts, the checker) — target ≤ 1 s at 100k, peak memory ≤ 1 GB — plus the
//! debugger's costs at 100k: a single step, a reverse step, a query, and a knob re-run.
//! Run with `cargo bench --bench alloc`.

mod common;

use common::{best, best_cpu, cores, ms, peak_kib, reset_peak};
use radbg::engine::{Debugger, Machine, RunOptions, Stage, query};
use radbg::ir::{KnobKey, KnobValue};
use radbg::synth::synthetic_kernel;

fn main() {
    println!("allocator benchmarks ({} cores; synthetic kernels, seed 1, --maxrregcount 32)", cores());
    for &(n, runs) in &[(10_000usize, 5usize), (100_000, 3)] {
        let mut m = synthetic_kernel(n, 1);
        m.options.maxrregcount = Some(32);
        let insts: usize = m.functions.iter().map(|f| f.inst_count()).sum();
        // One input per run, copied before the clock starts: the pipeline is timed, not
        // copying its input.
        let mut inputs: Vec<_> = (0..runs).map(|_| m.clone()).collect();
        reset_peak();
        let base = common::rss_kib().unwrap_or(0);
        let (t, cpu, mach) = best_cpu(runs, || {
            let mut mach = Machine::new(inputs.pop().expect("one input per run"), RunOptions::default());
            while mach.step().is_some() {}
            mach
        });
        let peak = peak_kib().unwrap_or(0).saturating_sub(base);
        let a = mach.funcs[0].fatpoint().expect("allocated");
        let attempts = a.records.len();
        let stats = mach.funcs[0].stats.clone().expect("stats");
        println!(
            "{insts:>7} insts: whole pipeline {:8.1} ms ({:.1} ms CPU), {attempts} attempt(s), {} registers, {} B spill stores, peak +{} MiB, checker {}",
            ms(t),
            ms(cpu),
            stats.registers,
            stats.spill_stores,
            peak / 1024,
            if mach.funcs[0].check_errors.as_ref().is_some_and(|e| e.is_empty()) { "clean" } else { "FAULTS" }
        );
        if n == 100_000 {
            let mut d = Debugger::new(m.clone(), RunOptions::default());
            reset_peak();
            let before = common::rss_kib().unwrap_or(0);
            let (t_all, _) = best(1, || d.run_to_end());
            let total = d.cursor();
            let trace_mem = peak_kib().unwrap_or(0).saturating_sub(before);
            let mid = total / 2;
            d.goto(mid);
            let (t_step, _) = best(20, || {
                d.step(1);
                d.reverse_step(1);
            });
            let (t_rev, _) = best(20, || {
                d.reverse_step(1);
                d.step(1);
            });
            let (t_q, _) = best(20, || {
                let m = d.machine();
                let _ = query::live_at(m, 0, 1000);
                let _ = query::histogram(m);
                let _ = query::state_table(m);
            });
            let mut opts = RunOptions::default();
            opts.set_knob(KnobKey::Index(684), KnobValue::Int(40)).expect("684 is in range");
            let (t_knob, _) = best(1, || d.set_options(opts.clone(), Stage::Budget));
            println!(
                "{insts:>7} insts: {total} events in {:.0} ms, trace+checkpoints {} MiB; step+back {:.2} ms, back+step {:.2} ms, queries {:.2} ms, knob re-run {:.0} ms",
                ms(t_all),
                trace_mem / 1024,
                ms(t_step),
                ms(t_rev),
                ms(t_q),
                ms(t_knob)
            );
        }
    }
}
