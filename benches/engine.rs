//! The debugger engine at 100k instructions (issue 6's targets): through the command
//! language a person uses, on the synthetic kernel of `benches/alloc.rs`
//! (`--maxrregcount 32`, several SPILL attempts). Measures, best of several runs:
//! a single `step`, a single `reverse-step`, `goto` far back, the `live` and `state`
//! queries (each ≤ 10 ms), `set knob 684=…` re-running the allocation (≤ 1 s), and the
//! memory the trace and checkpoints hold (≤ 1 GB), as peak RSS above the loaded module.
//! Run with `cargo bench --bench engine`.

mod common;

use std::time::{Duration, Instant};

use common::{cores, cpu_ns, ms, peak_kib, reset_peak, rss_kib};
use radbg::command::{Session, parse_line};
use radbg::engine::EventKind;
use radbg::synth::synthetic_kernel;

fn exec(s: &mut Session, line: &str) -> Duration {
    let cmds = parse_line(line).unwrap_or_else(|e| panic!("{line}: {e:?}"));
    let t = Instant::now();
    for c in &cmds {
        if let Err(e) = s.exec(c) {
            panic!("{line}: {e}");
        }
    }
    t.elapsed()
}

/// Best time of `runs` executions of `line`, each preceded by `setup` (untimed).
fn best_of(s: &mut Session, runs: usize, setup: &str, line: &str) -> Duration {
    let mut best = Duration::MAX;
    for _ in 0..runs {
        if !setup.is_empty() {
            exec(s, setup);
        }
        best = best.min(exec(s, line));
    }
    best
}

fn main() {
    let n = 100_000;
    println!("engine benchmarks ({} cores; synthetic kernel of {n} instructions, seed 1, --maxrregcount 32)", cores());
    let mut m = synthetic_kernel(n, 1);
    m.options.maxrregcount = Some(32);
    let mut s = Session::new();
    s.open(m, "synthetic", false);
    reset_peak();
    let before = rss_kib().unwrap_or(0);
    let c0 = cpu_ns();
    let t_run = exec(&mut s, "goto 100000000");
    let cpu_run = cpu_ns().zip(c0).map_or(0.0, |(b, a)| b.saturating_sub(a) as f64 / 1e6);
    let total = s.dbg.as_ref().map_or(0, |d| d.cursor());
    let mem = peak_kib().unwrap_or(0).saturating_sub(before);
    let cps = s.dbg.as_ref().map_or(0, |d| d.checkpoint_count());
    println!(
        "run to the end: {total} events in {:.0} ms ({cpu_run:.0} ms CPU); trace + checkpoints {} MiB ({cps} checkpoints)",
        ms(t_run),
        mem / 1024
    );

    // Positions: an assignment event near the middle of the trace (inside an allocation
    // attempt, so `hist` has a decision to show) and a tenth of the way in.
    let mid = s.dbg.as_ref().map_or(total / 2, |d| {
        let is_assign =
            |e: &radbg::engine::Event| matches!(&e.kind, EventKind::Alloc(radbg::alloc::AllocEvent::Assign(_)));
        d.trace().iter().skip(total / 2).position(|e| is_assign(&e)).map_or(total / 2, |k| total / 2 + k + 1)
    });
    let goto_mid = format!("goto {mid}");
    let t_step = best_of(&mut s, 20, &goto_mid, "step");
    let t_rstep = best_of(&mut s, 20, &goto_mid, "reverse-step");
    let far = total / 10;
    let t_far = best_of(&mut s, 5, &format!("goto {}", total - 10), &format!("goto {far}"));
    let t_live = best_of(&mut s, 20, &goto_mid, "live");
    let t_state = best_of(&mut s, 20, &goto_mid, "state");
    let t_hist = best_of(&mut s, 20, &goto_mid, "hist");
    println!(
        "at event {mid}: step {:.2} ms, reverse-step {:.2} ms, goto {far} from the end {:.2} ms, live {:.2} ms, state {:.2} ms, hist {:.2} ms",
        ms(t_step),
        ms(t_rstep),
        ms(t_far),
        ms(t_live),
        ms(t_state),
        ms(t_hist)
    );

    // A knob change re-runs the allocation and lands on the equivalent event.
    exec(&mut s, &goto_mid);
    let mut best = Duration::MAX;
    let mut best_cpu = f64::MAX;
    for (k, v) in [40, 60, 50].iter().enumerate() {
        reset_peak();
        let c0 = cpu_ns();
        let t = exec(&mut s, &format!("set knob 684={v}"));
        best_cpu = best_cpu.min(cpu_ns().zip(c0).map_or(0.0, |(b, a)| b.saturating_sub(a) as f64 / 1e6));
        best = best.min(t);
        if k == 2 {
            let mem = peak_kib().unwrap_or(0).saturating_sub(before);
            println!(
                "set knob 684=…: re-run {:.0} ms ({best_cpu:.0} ms CPU; best of 3); peak above the module {} MiB",
                ms(best),
                mem / 1024
            );
        }
    }
}
