//! Parser throughput and memory: generates kernels of 10k, 100k and 1M instructions
//! in canonical Ori IR, parses each several times and prints the best MB/s and the
//! peak resident memory relative to the file size. Targets (issue 2): at least 50
//! MB/s, memory under 20x the file size.
//!
//! Peak RSS is `VmHWM` from /proc/self/status, reset before each measurement by
//! writing 5 to /proc/self/clear_refs (Linux; elsewhere memory is reported as n/a).

use std::fmt::Write;
use std::time::Instant;

use radbg::ir::parse::parse_module;
use radbg::ir::span::SourceFile;

/// A kernel of `n` instructions: blocks of 16 with loads, integer and float math,
/// compares, guarded branches and stores over 256 declared registers.
fn kernel(n: usize) -> String {
    let mut s = String::with_capacity(n * 40);
    s.push_str(".target sm_90\n.option maxrregcount = 64\n\n.entry bench {\n");
    s.push_str("  .reg .R %r<192>\n  .reg .R.x2 %rd<32>\n  .reg .R.x4 %q<8>\n  .reg .P %p<6>\n");
    let blocks = n.div_ceil(16);
    let mut point = 0;
    for b in 0..blocks {
        let _ = writeln!(s, "BB{b}:");
        for i in 0..16 {
            if point == n {
                break;
            }
            let r = |k: usize| (b * 7 + i * 3 + k * 11) % 192;
            let line = match i {
                15 if b + 1 == blocks => "EXIT".to_string(),
                15 => format!("@%p{} BRA BB{}", b % 6, (b * 5 + 1) % blocks),
                0 => format!("%r{} = LDG.E [%rd{} + 0x{:x}]", r(0), b % 32, (i * 4) % 256),
                1 => format!("%rd{} = IMAD.WIDE %r{}, 4, %rd{}", (b + 1) % 32, r(1), b % 32),
                2 | 7 => format!("%r{} = FFMA %r{}, %r{}, %r{}", r(0), r(1), r(2), r(3)),
                3 | 8 => format!("%r{}, %p{} = IADD3 %r{}, -{}, RZ", r(4), b % 6, r(5), i + 1),
                4 => format!("%p{} = ISETP.GE.AND %r{}, %r{}, PT", b % 6, r(6), r(7)),
                5 => format!("@!%p{} %r{} = SEL %r{}, 0x3f800000, %p{}", (b + 1) % 6, r(8), r(9), (b + 2) % 6),
                6 => format!("%q{} = LDS.128 [%r{} + 0x10]", b % 8, r(10)),
                9 => format!("%r{} = FADD %q{}.2, %rd{}.lo", r(11), b % 8, b % 32),
                10 => format!("%r{} = MOV c[0x0][0x{:x}]", r(12), 0x160 + (i * 4)),
                11 => format!("%r{} = S2R SR_TID.X", r(13)),
                12 => format!("%r{} = LOP3.LUT %r{}, %r{}, 0xff, 0xc0", r(14), r(15), r(16)),
                13 => format!("%r{} = FMUL %r{}, 1.5", r(17), r(18)),
                _ => format!("STG.E [%rd{}], %r{}", b % 32, r(19)),
            };
            let _ = writeln!(s, "  [{point}] {line}");
            point += 1;
        }
    }
    s.push_str("}\n");
    s
}

fn status_kb(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn reset_peak() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

/// CPU time this thread has spent running, in seconds (/proc/self/schedstat: the
/// machine may be shared, so wall-clock time alone would measure the neighbours too).
fn cpu_seconds() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = s.split_whitespace().next()?.parse().ok()?;
    Some(ns as f64 / 1e9)
}

/// One parse in a fresh process (`parse --child N`), so the allocator holds no memory
/// from earlier runs: prints the peak RSS growth in bytes and the file size.
fn child(n: usize) {
    let file = SourceFile::new("bench.ori", kernel(n));
    let before = status_kb("VmRSS:").unwrap_or(0);
    let ok = reset_peak();
    let parsed = parse_module(&file);
    let peak = status_kb("VmHWM:").unwrap_or(0);
    assert_eq!(parsed.0.functions[0].inst_count(), n);
    if ok {
        println!("{} {}", peak.saturating_sub(before) * 1024, file.text.len());
    } else {
        println!("n/a {}", file.text.len());
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(k) = args.iter().position(|a| a == "--child") {
        child(args[k + 1].parse().expect("instruction count"));
        return;
    }
    println!(
        "{:>9} {:>10} {:>8} {:>10} {:>8} {:>10} {:>11} {:>9}",
        "insts", "bytes", "wall ms", "wall MB/s", "cpu ms", "cpu MB/s", "peak RSS MB", "RSS/file"
    );
    for &n in &[10_000usize, 100_000, 1_000_000] {
        let text = kernel(n);
        let file = SourceFile::new("bench.ori", text);
        let bytes = file.text.len();
        // Sanity: the generated kernel parses cleanly to the requested size.
        let (m, _, diags) = parse_module(&file);
        assert!(diags.is_empty(), "{}", diags[0].render(&file));
        assert_eq!(m.functions[0].inst_count(), n);
        drop(m);
        let runs = if n >= 1_000_000 { 5 } else { 9 };
        let (mut best_wall, mut best_cpu) = (f64::MAX, f64::MAX);
        for _ in 0..runs {
            let c0 = cpu_seconds();
            let t = Instant::now();
            let parsed = parse_module(&file);
            let wall = t.elapsed().as_secs_f64();
            let c1 = cpu_seconds();
            drop(parsed);
            best_wall = best_wall.min(wall);
            if let (Some(a), Some(b)) = (c0, c1) {
                best_cpu = best_cpu.min(b - a);
            }
        }
        let exe = std::env::current_exe().expect("own path");
        let out = std::process::Command::new(exe).args(["--child", &n.to_string()]).output().expect("child run");
        let line = String::from_utf8_lossy(&out.stdout).to_string();
        let mut it = line.split_whitespace();
        let (peak, ratio) = match it.next().and_then(|p| p.parse::<f64>().ok()) {
            Some(p) => (format!("{:.1}", p / 1e6), format!("{:.2}x", p / bytes as f64)),
            None => ("n/a".to_string(), "n/a".to_string()),
        };
        let cpu = if best_cpu < f64::MAX { format!("{:.1}", best_cpu * 1e3) } else { "n/a".to_string() };
        let cpu_mbs =
            if best_cpu < f64::MAX { format!("{:.1}", bytes as f64 / best_cpu / 1e6) } else { "n/a".to_string() };
        println!(
            "{n:>9} {bytes:>10} {:>8.1} {:>10.1} {cpu:>8} {cpu_mbs:>10} {peak:>11} {ratio:>9}",
            best_wall * 1e3,
            bytes as f64 / best_wall / 1e6
        );
    }
    println!("best of several runs; peak RSS: growth of VmHWM during one parse in a fresh process");
    // Figures from a shared machine are only comparable with its load alongside.
    if let Ok(load) = std::fs::read_to_string("/proc/loadavg") {
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        println!("load average {} on {cpus} CPUs", load.split_whitespace().take(3).collect::<Vec<_>>().join(" "));
    }
}
