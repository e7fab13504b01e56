//! PTX import speed: the largest corpus file (when the corpus cache exists) and a
//! generated 3.5 MB, ~100k-instruction kernel. Best of several runs; peak RSS from
//! `/proc/self/status` (VmHWM), reset through `/proc/self/clear_refs` before each.

use std::fmt::Write;
use std::time::{Duration, Instant};

/// A register-heavy kernel in NVVM style: an unrolled loop body of loads, FMAs,
/// integer address arithmetic, predicates and branches, repeated to `target` bytes.
fn generate(target: usize) -> String {
    let mut s = String::with_capacity(target + 4096);
    s.push_str(".version 8.5\n.target sm_90\n.address_size 64\n\n");
    s.push_str(".visible .entry big(\n\t.param .u64 big_param_0,\n\t.param .u64 big_param_1,\n\t.param .u32 big_param_2\n)\n{\n");
    let header = s.len();
    let (mut f, mut r, mut rd, mut p) = (1usize, 4usize, 4usize, 1usize);
    let mut b = 0;
    while s.len() < target {
        let _ = writeln!(s, "$L__BB0_{b}:");
        let _ = writeln!(s, "\tmad.lo.s32 \t%r{}, %r3, %r1, %r2;", r);
        let _ = writeln!(s, "\tmul.wide.s32 \t%rd{}, %r{}, 4;", rd, r);
        let _ = writeln!(s, "\tadd.s64 \t%rd{}, %rd3, %rd{};", rd + 1, rd);
        for k in 0..8 {
            let _ = writeln!(s, "\tld.global.f32 \t%f{}, [%rd{}+{}];", f + k, rd + 1, k * 4);
        }
        for k in 0..8 {
            let _ = writeln!(s, "\tfma.rn.f32 \t%f{}, %f{}, %f{}, 0f3F800000;", f + 8 + k, f + k, f + (k + 1) % 8);
        }
        for k in 0..8 {
            let _ = writeln!(s, "\tmul.f32 \t%f{}, %f{}, %f{};", f + 16 + k, f + 8 + k, f + 8 + (k + 3) % 8);
        }
        let _ =
            writeln!(s, "\tld.global.v4.f32 \t{{%f{}, %f{}, %f{}, %f{}}}, [%rd{}+32];", f, f + 1, f + 2, f + 3, rd + 1);
        for k in 0..8 {
            let _ = writeln!(s, "\tst.global.f32 \t[%rd{}+{}], %f{};", rd + 1, k * 4, f + 16 + k);
        }
        let _ = writeln!(s, "\tadd.s32 \t%r{}, %r{}, {};", r + 1, r, b + 1);
        let _ = writeln!(s, "\tsetp.lt.s32 \t%p{}, %r{}, %r1;", p, r + 1);
        let _ = writeln!(s, "\t@%p{} bra \t$L__BB0_{};", p, b + 1);
        let _ = writeln!(s, "\tshl.b32 \t%r{}, %r{}, 2;", r + 2, r + 1);
        let _ = writeln!(s, "\tbar.sync \t0;");
        f += 24;
        r += 8;
        rd += 4;
        p += 2;
        b += 1;
    }
    let _ = writeln!(s, "$L__BB0_{b}:\n\tret;\n\n}}");
    let decls = format!(
        "\t.reg .pred \t%p<{}>;\n\t.reg .f32 \t%f<{}>;\n\t.reg .b32 \t%r<{}>;\n\t.reg .b64 \t%rd<{}>;\n\n",
        p + 1,
        f + 24,
        r + 8,
        rd + 4
    );
    s.insert_str(header, &decls);
    s
}

fn peak_rss_kb() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// CPU time of this thread so far (nanoseconds on the CPU, from the scheduler): on
/// a shared machine it says what the import costs apart from waiting for a core.
fn cpu_ns() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    s.split_whitespace().next()?.parse().ok()
}

fn reset_peak() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

fn measure(name: &str, src: &str, runs: usize) {
    let mut best = Duration::MAX;
    let mut best_cpu = u64::MAX;
    let mut insts = 0;
    let mut rss = None;
    for _ in 0..runs {
        reset_peak();
        let c0 = cpu_ns();
        let t = Instant::now();
        let imp = radbg::ir::ptx::import_text(src);
        let el = t.elapsed();
        if let (Some(a), Some(b)) = (c0, cpu_ns()) {
            best_cpu = best_cpu.min(b.saturating_sub(a));
        }
        rss = rss.max(peak_rss_kb());
        let Some(m) = imp.module else {
            let first = imp.diags.first().map(|d| d.message.clone()).unwrap_or_default();
            println!("{name}: import failed: {first}");
            return;
        };
        insts = m.functions.iter().map(|f| f.inst_count()).sum();
        best = best.min(el);
    }
    let cpu = if best_cpu == u64::MAX { "?".to_string() } else { format!("{:.1}", best_cpu as f64 / 1e6) };
    println!(
        "{name}: {:.2} MB, {insts} Ori instructions: import {:.1} ms wall, {cpu} ms CPU (best of {runs}), {:.1} MB/s, peak RSS {} MB",
        src.len() as f64 / 1e6,
        best.as_secs_f64() * 1e3,
        src.len() as f64 / 1e6 / best.as_secs_f64(),
        rss.map(|k| format!("{:.0}", k as f64 / 1024.0)).unwrap_or_else(|| "?".into())
    );
}

fn main() {
    let files = radbg::fidelity::corpus_ptx_files().unwrap_or_default();
    match files.iter().max_by_key(|p| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0)) {
        Some(big) => {
            let src = std::fs::read_to_string(big).expect("readable");
            let name = big.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            measure(&format!("largest corpus file {name}"), &src, 10);
        }
        None => {
            println!("corpus cache absent ($RADBG_CORPUS_CACHE or ~/.cache/radbg-corpus): skipping the corpus figure")
        }
    }
    let generated = generate(3_500_000);
    measure("generated kernel", &generated, 5);
    pipeline_vs_ptxas("generated kernel", &generated, 3);
    // One block of 20 000 hoisted shared loads summed in order: the worst case of the
    // passes that move instructions one at a time (`sink`, `schedule`'s early issue,
    // `vectorize`); over a minute before they kept their order in `prepass::order`.
    pipeline_vs_ptxas("20 000 hoisted loads in one block", &hoisted_loads(20_000), 3);
}

fn hoisted_loads(n: usize) -> String {
    let mut s = format!(
        ".version 8.5\n.target sm_90\n.address_size 64\n.visible .entry hoisted(.param .u64 out)\n{{\n\
         .reg .b32 %r<8>;\n.reg .f32 %f<{}>;\n.reg .b64 %rd<4>;\n.shared .align 16 .b8 sm[{}];\n\
         ld.param.u64 %rd1, [out];\nmov.u32 %r1, %tid.x;\nshl.b32 %r2, %r1, 4;\nmov.u32 %r3, sm;\nadd.s32 %r4, %r3, %r2;\n",
        n + 2,
        4 * 8192 + 64
    );
    // Offsets wrap at 32 KiB: a block's shared memory is at most 48 KiB.
    for k in 0..n {
        s.push_str(&format!("ld.shared.f32 %f{}, [%r4+{}];\n", k + 1, 4 * (k % 8192)));
    }
    s.push_str("mov.f32 %f0, 0f00000000;\n");
    for k in 0..n {
        s.push_str(&format!("add.f32 %f0, %f0, %f{};\n", k + 1));
    }
    s.push_str("cvta.to.global.u64 %rd2, %rd1;\nst.global.f32 [%rd2], %f0;\nret;\n}\n");
    s
}

fn pipeline_vs_ptxas(name: &str, src: &str, runs: usize) {
    let mut best = Duration::MAX;
    let mut best_cpu = u64::MAX;
    let mut regs = 0;
    for _ in 0..runs {
        let c0 = cpu_ns();
        let t = Instant::now();
        let Ok((m, _)) = radbg::ir::ptx::import_str("bench.ptx", src) else {
            println!("{name}: import failed");
            return;
        };
        let opts = radbg::engine::RunOptions { imported: true, ..radbg::engine::RunOptions::default() };
        let mut mach = radbg::engine::Machine::new(m, opts);
        while mach.step().is_some() {}
        best = best.min(t.elapsed());
        if let (Some(a), Some(b)) = (c0, cpu_ns()) {
            best_cpu = best_cpu.min(b.saturating_sub(a));
        }
        regs = mach.funcs.first().and_then(|f| f.stats.as_ref()).map_or(0, |s| s.registers);
        drop(mach);
    }
    let cpu = best_cpu as f64 / 1e6;
    println!(
        "{name}: import + whole pipeline {:.0} ms wall, {cpu:.0} ms CPU (best of {runs}), {regs} registers",
        best.as_secs_f64() * 1e3
    );
    // `RADBG_PTXAS` when set, else `ptxas` on PATH, else the one the corpus build installs.
    let explicit = std::env::var_os("RADBG_PTXAS").map(std::path::PathBuf::from);
    let Some(ptxas) = radbg::why::compare::find(explicit.as_deref()).exe else {
        println!("{name}: ptxas not found (PATH, RADBG_PTXAS): no ratio");
        return;
    };
    let path = std::env::temp_dir().join(format!("radbg-bench-{}.ptx", std::process::id()));
    if std::fs::write(&path, src).is_err() {
        return;
    }
    let t = Instant::now();
    let out = std::process::Command::new(&ptxas).args(["-v", "-arch=sm_90", "-o", "/dev/null"]).arg(&path).output();
    let el = t.elapsed();
    let _ = std::fs::remove_file(&path);
    match out {
        Ok(o) if o.status.success() => {
            let used = String::from_utf8_lossy(&o.stderr)
                .lines()
                .find(|l| l.contains("Used"))
                .map(|l| l.trim().to_string())
                .unwrap_or_default();
            println!(
                "{name}: ptxas -v {:.0} ms ({used}); radbg is {:.1}x faster (wall), {:.1}x (radbg CPU vs ptxas wall)",
                el.as_secs_f64() * 1e3,
                el.as_secs_f64() / best.as_secs_f64(),
                el.as_secs_f64() * 1e3 / cpu.max(1e-3)
            );
        }
        Ok(o) => println!("{name}: ptxas failed: {}", String::from_utf8_lossy(&o.stderr).lines().next().unwrap_or("")),
        Err(e) => println!("{name}: ptxas did not run: {e}"),
    }
}
