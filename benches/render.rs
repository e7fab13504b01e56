//! TUI frame time on a 100k-instruction kernel (target: a frame in ≤ 5 ms).
//!
//! Builds a generated kernel (Ori text through the real parser), runs the debugger to
//! an assignment in the middle of the first attempt, then times, best of several runs:
//! a redraw at 80×24, 120×40 and 200×60; a step followed by a redraw; a reverse step
//! followed by a redraw; paging the IR cursor through the function; a search. Peak RSS comes
//! from `/proc/self/status` (VmHWM), reset through `/proc/self/clear_refs`.
//!
//! Run: `cargo bench --bench render`.

use std::fmt::Write;
use std::time::{Duration, Instant};

use radbg::command::Session;
use radbg::ui::tui::input::Key;
use radbg::ui::tui::{App, Theme, shots};

/// A kernel of about `insts` instructions: blocks of 24, a loop back edge every few
/// blocks, 5000 R vregs reused round-robin, 40 values in flight (so it fits in the
/// budget of 64 and the first attempt is the interesting one).
fn kernel(insts: usize, seed: u64) -> String {
    const VREGS: usize = 5000;
    const LIVE: usize = 40;
    let mut r = radbg::ir::arbitrary::Rng::from_state(seed);
    let mut s = String::new();
    s.push_str(".target sm_90\n.option maxrregcount = 64\n.entry synth {\n  .maxntid 128\n");
    let _ = writeln!(s, "  .reg .R %v<{VREGS}>\n  .reg .R.x2 %a<2>\n  .reg .P %p<2>\nBLK0:");
    s.push_str("  %a0 = LDC.64 c[0x0][0x210]\n");
    let mut pool: Vec<usize> = Vec::new();
    let mut next = 0usize;
    for i in 0..LIVE {
        let _ = writeln!(s, "  %v{next} = LDG.E [%a0 + {:#x}]", i * 4);
        pool.push(next);
        next += 1;
    }
    let mut count = LIVE + 1;
    let mut block = 1;
    let ops = ["IADD3", "FFMA", "IMAD", "FADD", "LOP3.LUT"];
    while count + 4 < insts {
        let _ = writeln!(s, "BLK{block}:");
        for _ in 0..24 {
            let a = pool[r.index(pool.len())];
            let b = pool[r.index(pool.len())];
            let c = pool[r.index(pool.len())];
            let op = ops[r.index(ops.len())];
            let dst = next % VREGS;
            next += 1;
            let _ = writeln!(s, "  %v{dst} = {op} %v{a}, %v{b}, %v{c}");
            let k = r.index(pool.len());
            pool[k] = dst;
            count += 1;
        }
        if block % 6 == 0 {
            let a = pool[r.index(pool.len())];
            let _ = writeln!(s, "  %p0 = ISETP.LT.AND %v{a}, 1000, PT\n  @%p0 BRA BLK{}", block - 2);
            count += 2;
        } else if block % 5 == 0 {
            let a = pool[r.index(pool.len())];
            let _ = writeln!(s, "  STG.E [%a0 + 0x100], %v{a}");
            count += 1;
        }
        block += 1;
    }
    let _ = writeln!(s, "BLK{block}:");
    for v in &pool {
        let _ = writeln!(s, "  STG.E [%a0], %v{v}");
    }
    s.push_str("  EXIT\n}\n");
    s
}

fn best_of(n: usize, mut f: impl FnMut()) -> Duration {
    (0..n)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .min()
        .unwrap_or_default()
}

fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1e3)
}

fn reset_peak() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

fn peak_mib() -> String {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kb: u64 = status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    format!("{:.1} MiB", kb as f64 / 1024.0)
}

fn main() {
    let text = kernel(100_000, 7);
    let t = Instant::now();
    let file = radbg::ir::span::SourceFile::new("synth100k.ori", &text);
    let loaded = radbg::load::load_ori(&file).expect("generated kernel parses");
    let insts: usize = loaded.module.functions.iter().map(|f| f.inst_count()).sum();
    println!("kernel: {insts} instructions, parsed in {}", ms(t.elapsed()));
    let mut s = Session::new();
    s.open(loaded.module, "synth100k.ori", false);
    let mut app = App::new(s, Theme::colour());
    let t = Instant::now();
    app.execute("break assign %v2500");
    app.execute("continue");
    println!("reached {} in {}", app.view.log.last().map(|l| l.text.as_str()).unwrap_or("?"), ms(t.elapsed()));
    app.execute("delete");
    for (w, h) in [(80, 24), (120, 40), (200, 60)] {
        reset_peak();
        shots::draw(&mut app, w, h);
        let d = best_of(20, || {
            shots::draw(&mut app, w, h);
        });
        println!("redraw {w}x{h}: {} (peak RSS {})", ms(d), peak_mib());
    }
    // Every pane visible in turn at 120×40 (the tabbed slot shows one at a time).
    for (key, name) in [('3', "constraints"), ('5', "state"), ('6', "attempts"), ('7', "abi")] {
        app.press(Key::Ch(key));
        shots::draw(&mut app, 120, 40);
        let d = best_of(20, || {
            shots::draw(&mut app, 120, 40);
        });
        println!("redraw 120x40 with {name} in front: {}", ms(d));
    }
    app.press(Key::Ch('1'));
    // A command, then the first frame after it (cold: the queries it changed run again).
    for (cmd, runs) in [("step", 20), ("next", 10), ("reverse-step", 3)] {
        let (mut exec, mut frame) = (Duration::MAX, Duration::MAX);
        for _ in 0..runs {
            let t = Instant::now();
            app.execute(cmd);
            exec = exec.min(t.elapsed());
            let t = Instant::now();
            shots::draw(&mut app, 200, 60);
            frame = frame.min(t.elapsed());
        }
        let warm = best_of(10, || {
            shots::draw(&mut app, 200, 60);
        });
        println!(
            "{cmd}: command {} (engine), then the first frame at 200x60 {}, the next ones {}",
            ms(exec),
            ms(frame),
            ms(warm)
        );
    }
    let d = best_of(50, || {
        app.press(Key::PageDown);
        shots::draw(&mut app, 200, 60);
    });
    println!("page down the IR + redraw 200x60: {}", ms(d));
    let d = best_of(5, || {
        app.view.search = "FADD".into();
        app.press(Key::Ch(']'));
        shots::draw(&mut app, 200, 60);
    });
    println!("search the next FADD + redraw 200x60: {}", ms(d));
    println!("peak RSS {}", peak_mib());
}
