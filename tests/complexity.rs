//! Issue 25's complexity guard: smaller instances of each shape at two sizes, the whole
//! pipeline (import, every prepass stage, liveness, the allocator, the checker) run
//! through the engine, and the work the growth-prone stages count (`radbg::work`:
//! instructions, dependence edges, candidate buckets, bitvector words) compared —
//! doubling the input must not more than about double it (≤ 2.2×). Deterministic:
//! counts, not wall time.

use radbg::engine::{Machine, RunOptions};
use radbg::ir::span::SourceFile;

/// The work of one whole pipeline run on `ptx` (and the instruction count imported).
fn work_of(ptx: &str, maxrregcount: Option<u32>) -> (u64, usize) {
    let loaded = radbg::load::import_ptx(&SourceFile::new("complexity.ptx", ptx)).expect("imports");
    let insts = loaded.module.functions.iter().map(|f| f.inst_count()).sum();
    let opts = RunOptions { imported: true, maxrregcount, ..RunOptions::default() };
    radbg::work::take();
    let mut m = Machine::new(loaded.module, opts);
    while m.step().is_some() {}
    let stats: Vec<_> = m.funcs.iter().filter_map(|f| f.stats.as_ref()).collect();
    assert!(!stats.is_empty() && stats.iter().all(|s| s.error.is_none()), "the pipeline finished");
    (radbg::work::take(), insts)
}

/// The scale kernel's shape: 48 live values, `n` dependent statements in one loop body
/// (as `../shared/bench/gen_huge_cu.py` writes it, lowered the way NVVM does).
fn scale_kernel(n: usize) -> String {
    const W: usize = 48;
    let mut s = String::from(
        ".version 9.0\n.target sm_90\n.address_size 64\n\n.visible .entry huge(\n\t.param .u64 huge_param_0,\n\t.param .u64 huge_param_1,\n\t.param .u32 huge_param_2\n)\n{\n",
    );
    s.push_str(&format!("\t.reg .pred \t%p<2>;\n\t.reg .b32 \t%r<{}>;\n\t.reg .b64 \t%rd<8>;\n\n", W + 8 + 5 * n));
    s.push_str("\tld.param.u64 \t%rd1, [huge_param_0];\n\tld.param.u64 \t%rd2, [huge_param_1];\n\tld.param.u32 \t%r1, [huge_param_2];\n");
    s.push_str("\tcvta.to.global.u64 \t%rd3, %rd1;\n\tcvta.to.global.u64 \t%rd4, %rd2;\n\tmov.u32 \t%r2, %tid.x;\n");
    s.push_str("\tmul.wide.u32 \t%rd5, %r2, 192;\n\tadd.s64 \t%rd6, %rd3, %rd5;\n\tadd.s64 \t%rd7, %rd4, %rd5;\n");
    let v = |i: usize| format!("%r{}", 8 + i);
    for i in 0..W {
        s.push_str(&format!("\tld.global.nc.u32 \t{}, [%rd6+{}];\n", v(i), 4 * i));
    }
    s.push_str("\tmov.u32 \t%r3, 0;\n$L__BB0_1:\n");
    let mut x: u64 = 7;
    let mut rnd = |m: u64| {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (x >> 33) % m
    };
    let mut t = 8 + W;
    for k in 0..n {
        let (i, b, c) = (k % W, rnd(W as u64) as usize, rnd(W as u64) as usize);
        let (sh, sr, imm) = (1 + rnd(30), 1 + rnd(28), rnd(1 << 31));
        s.push_str(&format!("\tshl.b32 \t%r{t}, {}, {sh};\n", v(b)));
        s.push_str(&format!("\txor.b32 \t%r{}, %r{t}, {};\n", t + 1, v(i)));
        s.push_str(&format!("\tshr.u32 \t%r{}, {}, {sr};\n", t + 2, v(c)));
        s.push_str(&format!("\tadd.s32 \t%r{}, %r{}, %r{};\n", t + 3, t + 1, t + 2));
        s.push_str(&format!("\tadd.s32 \t{}, %r{}, {imm};\n", v(i), t + 3));
        t += 5;
    }
    s.push_str("\tadd.s32 \t%r3, %r3, 1;\n\tsetp.lt.s32 \t%p1, %r3, %r1;\n\t@%p1 bra \t$L__BB0_1;\n");
    for i in 0..W {
        s.push_str(&format!("\tst.global.u32 \t[%rd7+{}], {};\n", 4 * i, v(i)));
    }
    s.push_str("\tret;\n\n}\n");
    s
}

/// A kernel body with loads, a loop, a branch and stores (NVVM style), `copies` times
/// in one function, each copy's labels its own.
fn repeated_body(copies: usize) -> String {
    let mut s = String::from(
        ".version 9.0\n.target sm_90\n.address_size 64\n\n.visible .entry rep(\n\t.param .u64 rep_param_0,\n\t.param .u32 rep_param_1\n)\n{\n",
    );
    s.push_str("\t.reg .pred \t%p<4>;\n\t.reg .f32 \t%f<40>;\n\t.reg .b32 \t%r<16>;\n\t.reg .b64 \t%rd<8>;\n\n");
    s.push_str("\tld.param.u64 \t%rd1, [rep_param_0];\n\tld.param.u32 \t%r1, [rep_param_1];\n\tcvta.to.global.u64 \t%rd2, %rd1;\n\tmov.u32 \t%r2, %tid.x;\n");
    for c in 0..copies {
        s.push_str(&format!("\tmul.wide.u32 \t%rd3, %r2, {};\n\tadd.s64 \t%rd4, %rd2, %rd3;\n", 64 + 4 * c));
        for k in 0..8 {
            s.push_str(&format!("\tld.global.f32 \t%f{k}, [%rd4+{}];\n", 4 * k));
        }
        s.push_str(&format!("\tmov.u32 \t%r3, 0;\n$L__BB0_{c}_loop:\n"));
        for k in 0..8 {
            s.push_str(&format!("\tfma.rn.f32 \t%f{}, %f{k}, %f{}, %f{};\n", 8 + k, (k + 1) % 8, (k + 3) % 8));
        }
        for k in 0..8 {
            s.push_str(&format!("\tmul.f32 \t%f{k}, %f{}, %f{};\n", 8 + k, 8 + (k + 5) % 8));
        }
        s.push_str(&format!(
            "\tadd.s32 \t%r3, %r3, 1;\n\tsetp.lt.s32 \t%p1, %r3, %r1;\n\t@%p1 bra \t$L__BB0_{c}_loop;\n"
        ));
        s.push_str(&format!("\tsetp.eq.s32 \t%p2, %r2, {c};\n\t@%p2 bra \t$L__BB0_{c}_skip;\n"));
        for k in 0..8 {
            s.push_str(&format!("\tst.global.f32 \t[%rd4+{}], %f{k};\n", 4 * k));
        }
        s.push_str(&format!("$L__BB0_{c}_skip:\n"));
    }
    s.push_str("\tret;\n\n}\n");
    s
}

/// A warp reduction `steps` times on sm_80, each shuffle under its own `if (tid < k)`:
/// every one is a routine call (`slowpath`, rule 19) found by `analysis::divergence`.
fn divergent_shuffles(steps: usize) -> String {
    let mut s = String::from(
        ".version 9.0\n.target sm_80\n.address_size 64\n\n.visible .entry sh(\n\t.param .u64 sh_param_0\n)\n{\n",
    );
    s.push_str(&format!(
        "\t.reg .pred \t%p<{}>;\n\t.reg .b32 \t%r<{}>;\n\t.reg .b64 \t%rd<4>;\n\n",
        2 * steps + 2,
        steps + 4
    ));
    s.push_str("\tld.param.u64 \t%rd1, [sh_param_0];\n\tcvta.to.global.u64 \t%rd2, %rd1;\n\tmov.u32 \t%r1, %tid.x;\n");
    s.push_str("\tmul.wide.u32 \t%rd3, %r1, 4;\n\tadd.s64 \t%rd3, %rd2, %rd3;\n\tld.global.u32 \t%r3, [%rd3];\n");
    for k in 0..steps {
        s.push_str(&format!("\tsetp.gt.u32 \t%p{}, %r1, {};\n\t@%p{} bra \t$L__BB0_{k};\n", 2 * k, 64 + k, 2 * k));
        s.push_str(&format!(
            "\tshfl.sync.down.b32 \t%r{}|%p{}, %r3, 1, 31, -1;\n\tadd.s32 \t%r3, %r3, %r{};\n",
            4 + k,
            2 * k + 1,
            4 + k
        ));
        s.push_str(&format!("$L__BB0_{k}:\n"));
    }
    s.push_str("\tst.global.u32 \t[%rd3], %r3;\n\tret;\n\n}\n");
    s
}

/// `entries` separate kernels, each the first copy of `repeated_body` renamed.
fn many_entries(entries: usize) -> String {
    let one = repeated_body(1);
    let at = one.find(".visible").expect("an entry");
    let mut s = one[..at].to_string();
    for e in 0..entries {
        s.push_str(&one[at..].replace("rep", &format!("rep{e}")));
    }
    s
}

fn assert_linear(shape: &str, small: (u64, usize), large: (u64, usize)) {
    let (a, b) = (small.0 as f64, large.0 as f64);
    let grow = large.1 as f64 / small.1 as f64;
    assert!((1.8..=2.2).contains(&grow), "{shape}: the input should double ({} → {} instructions)", small.1, large.1);
    let ratio = b / a;
    assert!(
        ratio <= 2.2,
        "{shape}: {} → {} instructions made the counted work grow {ratio:.2}× ({a} → {b}); at most 2.2× expected",
        small.1,
        large.1
    );
}

#[test]
fn scale_kernel_work_grows_linearly() {
    for budget in [None, Some(64), Some(32)] {
        let small = work_of(&scale_kernel(1500), budget);
        let large = work_of(&scale_kernel(3000), budget);
        assert_linear(&format!("scale kernel at {budget:?}"), small, large);
    }
}

/// Liveness keeps each block's sets as sorted index vectors (`analysis::sparse`): with
/// the dense per-block bitvectors it had before, one solve cost blocks × the vregs live
/// across blocks, and a body repeated k times has k times both (2.72× per doubling here).
#[test]
fn repeated_body_work_grows_linearly() {
    let small = work_of(&repeated_body(60), None);
    let large = work_of(&repeated_body(120), None);
    assert_linear("repeated body", small, large);
}

#[test]
fn divergent_shuffles_work_grows_linearly() {
    let (small, large) = (work_of(&divergent_shuffles(200), None), work_of(&divergent_shuffles(400), None));
    assert_linear("divergent shuffles", small, large);
}

#[test]
fn many_entries_work_grows_linearly() {
    let small = work_of(&many_entries(60), None);
    let large = work_of(&many_entries(120), None);
    assert_linear("many entries", small, large);
}

/// The counter does see the work: the liveness solver counts the members of the sets
/// each sweep reads, the list scheduler its picks and dependence edges — the dense live
/// set per instruction the schedule stage kept before issue 25, or the dense per-block
/// liveness sets, would have shown in the tests above.
#[test]
fn the_counter_counts() {
    let (w, n) = work_of(&scale_kernel(200), None);
    assert!(w as usize > n, "work {w} for {n} instructions");
}

/// `radbg run`'s way through a module of separate entries: one machine per call group
/// (`engine::machine::GroupSplit`), each group's data freed before the next. The work
/// must stay linear in the entries, and equal the whole-module run's (the same stages
/// run on the same functions).
#[test]
fn many_entries_run_group_by_group_work_grows_linearly() {
    use radbg::engine::machine::GroupSplit;
    let streamed = |ptx: &str| -> (u64, usize) {
        let loaded = radbg::load::import_ptx(&SourceFile::new("complexity.ptx", ptx)).expect("imports");
        let insts = loaded.module.functions.iter().map(|f| f.inst_count()).sum();
        let opts = RunOptions { imported: true, batch: true, ..RunOptions::default() };
        radbg::work::take();
        let split = GroupSplit::without_source_lines(loaded.module);
        assert_eq!(split.len(), ptx.matches(".entry").count(), "one group per entry");
        for (_, m) in split {
            let mut mach = Machine::new(m, opts.clone());
            while mach.step().is_some() {}
            assert!(mach.funcs.iter().all(|f| f.stats.as_ref().is_some_and(|s| s.error.is_none())));
        }
        (radbg::work::take(), insts)
    };
    let small = streamed(&many_entries(60));
    let large = streamed(&many_entries(120));
    assert_eq!(small.0, work_of(&many_entries(60), None).0, "the same work as one machine for the module");
    assert_linear("many entries, group by group", small, large);
}

/// `radbg run` on a PTX file of separate entries imports one call group at a time
/// (`ir::ptx::stream`; issue 25): each group alone is exactly its functions of the whole
/// import, what is held at once (the largest group) does not grow with the file, and the
/// work stays linear.
#[test]
fn many_entries_import_group_by_group() {
    let streamed = |ptx: &str| -> ((u64, usize), usize) {
        let whole = radbg::ir::ptx::import_text(ptx).module.expect("imports");
        let plan = radbg::ir::ptx::stream::plan(ptx).expect("splits");
        assert_eq!(plan.len(), ptx.matches(".entry").count(), "one group per entry");
        let opts = RunOptions { imported: true, batch: true, ..RunOptions::default() };
        let (mut insts, mut largest) = (0, 0);
        radbg::work::take();
        for k in 0..plan.len() {
            let m = plan.import(k).expect("a group imports alone");
            let want: Vec<_> = plan.ids(k).iter().map(|&i| whole.functions[i].clone()).collect();
            assert_eq!(m.functions, want, "group {k}");
            let n: usize = m.functions.iter().map(|f| f.inst_count()).sum();
            (insts, largest) = (insts + n, largest.max(n));
            let mut mach = Machine::new(m, opts.clone());
            while mach.step().is_some() {}
        }
        ((radbg::work::take(), insts), largest)
    };
    let (small, held_small) = streamed(&many_entries(60));
    let (large, held_large) = streamed(&many_entries(120));
    assert_eq!(held_small, held_large, "the largest group held at once");
    assert_linear("many entries, imported group by group", small, large);
}

/// A budget sweep's rows, each as a separate run at that budget would give it.
fn separate_rows(module: &radbg::ir::Module, budgets: &[i64]) -> Vec<Vec<radbg::why::whatif::Figures>> {
    budgets
        .iter()
        .map(|&b| {
            let opts =
                RunOptions { imported: true, maxrregcount: Some(b as u32), skip_check: true, ..RunOptions::default() };
            let mut m = Machine::new(module.clone(), opts);
            while m.step().is_some() {}
            radbg::why::whatif::figures(&m)
        })
        .collect()
}

fn sweep_rows(module: &radbg::ir::Module, budgets: &[i64], jobs: usize) -> Vec<Vec<radbg::why::whatif::Figures>> {
    let opts = RunOptions { imported: true, ..RunOptions::default() };
    let rows = radbg::why::sweep::run(module, &opts, &radbg::why::sweep::Axis::MaxRegCount, budgets, jobs)
        .expect("the sweep runs");
    assert_eq!(rows.iter().map(|r| r.value).collect::<Vec<_>>(), budgets, "one row per budget, in order");
    rows.into_iter().map(|r| r.funcs).collect()
}

/// A sweep of imported PTX shares the prepasses between the budgets that make the same
/// scheduling decisions (`prepass::target_span`, `engine::sweep`): every row must still
/// be exactly what a separate run at its budget gives — on kernels where `sink` and
/// `schedule` act (the scale kernel's shape, a repeated body with loads and loops, calls).
#[test]
fn a_shared_sweep_gives_each_budget_what_a_separate_run_gives() {
    let mut kernels = vec![("scale", scale_kernel(120)), ("repeat", repeated_body(3))];
    for name in ["device_calls", "triton_style", "basic"] {
        let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/ptx/{name}.ptx"));
        kernels.push((name, std::fs::read_to_string(p).expect("fixture")));
    }
    let budgets: Vec<i64> = (1..=100).step_by(3).chain([128, 200, 255]).collect();
    for (name, ptx) in kernels {
        let module = radbg::load::import_ptx(&SourceFile::new("sweep.ptx", &ptx)).expect("imports").module;
        let want = separate_rows(&module, &budgets);
        for jobs in [1, 3] {
            let got = sweep_rows(&module, &budgets, jobs);
            for (k, b) in budgets.iter().enumerate() {
                assert_eq!(got[k], want[k], "{name} at --maxrregcount {b} (jobs {jobs})");
            }
        }
    }
}

/// The scale kernel (400 steps) and the work of sweeping one budget and sixteen budgets
/// of one span over it (200..216, all far above what it needs).
fn sweep_one_and_sixteen() -> (radbg::ir::Module, u64, u64) {
    let module = radbg::load::import_ptx(&SourceFile::new("sweep.ptx", scale_kernel(400))).expect("imports").module;
    let budgets: Vec<i64> = (200..216).collect();
    let work = |values: &[i64]| {
        radbg::work::take();
        sweep_rows(&module, values, 1);
        radbg::work::take()
    };
    let (one, sixteen) = (work(&budgets[..1]), work(&budgets));
    (module, one, sixteen)
}

/// The sharing itself, counted: budgets far above what the scale kernel needs all
/// schedule alike, so a sweep of sixteen of them runs the prepasses and the stages
/// before the ABI stage once and only the allocation per row — the work past the first
/// row is fifteen allocations, not fifteen whole runs (it was, before issue 25's sweep
/// sharing).
#[test]
fn a_sweep_runs_the_prepasses_once_per_span_of_budgets() {
    let (module, one, sixteen) = sweep_one_and_sixteen();
    // The work of one row from the ABI stage on (the allocation; its liveness counts).
    let opts = RunOptions { imported: true, maxrregcount: Some(200), skip_check: true, ..RunOptions::default() };
    let mut m = Machine::new(module.clone(), opts);
    while m.pos.stage < radbg::engine::Stage::Abi && m.step().is_some() {}
    radbg::work::take();
    while m.step().is_some() {}
    let alloc = radbg::work::take();
    assert!(alloc > 0 && one > 2 * alloc, "the prepasses count: one row {one}, its allocation {alloc}");
    assert!(
        sixteen - one <= 15 * alloc + alloc / 2,
        "fifteen more budgets cost {} units of work, fifteen allocations {}: the prepasses ran again",
        sixteen - one,
        15 * alloc
    );
}

/// The allocator's start that does not read the budget (predicates demoted, CFG,
/// liveness, live ranges, costs: `alloc::driver::Prepared`) is made once per span of a
/// sweep too: past the first row, a row of the span costs its allocation without that
/// start (each row made it again before).
#[test]
fn a_sweep_prepares_the_allocator_once_per_span_of_budgets() {
    let (module, one, sixteen) = sweep_one_and_sixteen();
    // One row from the allocation stage on, and the allocator's start alone (the step
    // that starts it: its first event).
    let opts = RunOptions { imported: true, maxrregcount: Some(200), skip_check: true, ..RunOptions::default() };
    let mut m = Machine::new(module.clone(), opts);
    while m.pos.stage < radbg::engine::Stage::Alloc && m.step().is_some() {}
    radbg::work::take();
    m.step();
    let start = radbg::work::take();
    while m.step().is_some() {}
    let alloc = start + radbg::work::take();
    assert!(start > 0 && start <= alloc, "the start counts: {start} of {alloc}");
    assert!(
        sixteen - one <= 15 * (alloc - start) + start / 2,
        "fifteen more budgets cost {} units of work, fifteen allocations without their start {}: the start was made again",
        sixteen - one,
        15 * (alloc - start)
    );
}

/// The allocator's start solves liveness once when no predicate is demoted: the
/// demotion's check (P pressure within the P file) and the analysis share the solve
/// (each made its own).
#[test]
fn the_allocator_starts_with_one_liveness_solve() {
    let module = radbg::load::import_ptx(&SourceFile::new("start.ptx", scale_kernel(400))).expect("imports").module;
    let opts = RunOptions { imported: true, skip_check: true, ..RunOptions::default() };
    let mut m = Machine::new(module, opts);
    while m.pos.stage < radbg::engine::Stage::Alloc && m.step().is_some() {}
    radbg::work::take();
    m.step();
    let start = radbg::work::take();
    let f = &m.module.functions[0];
    let c = radbg::analysis::cfg::build(f, 1.0);
    radbg::analysis::liveness::compute_defined(f, &c, &[]);
    let one = radbg::work::take();
    assert!(one > 0 && start <= one + one / 2, "the start counts {start}, one solve {one}");
}

/// `why registers` for every function of a file of separate entries (what `radbg why`
/// asks): the stages' replay re-ran every pass on every function of the module for each
/// function asked (614 entries: over 12 minutes); the work must stay linear.
#[test]
fn why_registers_of_every_entry_grows_linearly() {
    let work = |ptx: &str| -> (u64, usize) {
        let loaded = radbg::load::import_ptx(&SourceFile::new("why.ptx", ptx)).expect("imports");
        let n = loaded.module.functions.len();
        let insts = loaded.module.functions.iter().map(|f| f.inst_count()).sum();
        let mut d = radbg::engine::Debugger::new(loaded.module, RunOptions { imported: true, ..RunOptions::default() });
        d.run_to_end();
        radbg::work::take();
        for fi in 0..n {
            let q = radbg::why::WhyCmd::Registers(None);
            radbg::why::answer_in(&d, "why.ptx", fi, &q, None).expect("answers");
        }
        (radbg::work::take(), insts)
    };
    assert_linear("why registers, many entries", work(&many_entries(30)), work(&many_entries(60)));
}

/// `radbg run`, `why` and `sweep` on a file of separate entries run one call group at a
/// time (`cli::stream`), the groups spread over `--jobs` threads; their output must be
/// the whole module's, byte for byte, whatever the number of threads (standard input is
/// never streamed: it gives the whole module's run to compare with).
#[test]
fn run_why_and_sweep_group_by_group_print_what_the_whole_module_gives() {
    use std::io::Write;
    let ptx = many_entries(12);
    let dir = std::env::temp_dir().join(format!("radbg-complexity-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("many.ptx");
    std::fs::write(&file, &ptx).expect("writes");
    let radbg = |args: &[&str], stdin: bool| -> String {
        let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_radbg"));
        c.args(args).stdout(std::process::Stdio::piped()).stdin(std::process::Stdio::piped());
        let mut child = c.spawn().expect("runs");
        let mut input = child.stdin.take().expect("stdin");
        if stdin {
            input.write_all(ptx.as_bytes()).expect("writes stdin");
        }
        drop(input);
        let out = child.wait_with_output().expect("runs");
        assert!(out.status.success(), "radbg {args:?} failed");
        String::from_utf8(out.stdout).expect("utf-8")
    };
    let f = file.to_string_lossy().to_string();
    // `run --json` and `why` name the file (and `why` pads its columns to the name).
    let norm = |s: &str| s.replace(f.as_str(), "-").split_whitespace().collect::<Vec<_>>().join(" ");
    for args in [
        vec!["sweep", "--all", "--json"],
        vec!["sweep", "--maxrregcount", "20..40:4"],
        vec!["run"],
        vec!["run", "--json"],
        vec!["run", "--maxrregcount", "24"],
        vec!["why"],
    ] {
        let whole = radbg(&[args.clone(), vec!["-"]].concat(), true);
        for jobs in ["1", "3"] {
            let streamed = radbg(&[args.clone(), vec!["--jobs", jobs, f.as_str()]].concat(), false);
            assert!(streamed.contains("rep11"), "every entry: radbg {args:?} --jobs {jobs}");
            assert_eq!(norm(&streamed), norm(&whole), "radbg {args:?} --jobs {jobs}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `radbg compare` on a file of separate entries runs radbg's side one call group at a
/// time (`cli::stream`); each entry's row must be the one the entry gets compared on its
/// own (a file of one group is never split: the whole module's run), and the status the
/// same. ptxas is a stand-in script that reports 20 registers for every entry of the
/// file it is given (no real ptxas needed; its cache off).
#[cfg(unix)]
#[test]
fn compare_group_by_group_gives_each_entry_its_own_row() {
    use std::os::unix::fs::PermissionsExt;
    let n = 12;
    let dir = std::env::temp_dir().join(format!("radbg-complexity-compare-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("many.ptx");
    std::fs::write(&file, many_entries(n)).expect("writes");
    let ptxas = dir.join("ptxas");
    let script = "#!/bin/sh\n\
        case \"$1\" in --version) echo stand-in; exit 0;; --help) echo \"'sm_90'\"; exit 0;; esac\n\
        for a; do case \"$a\" in *.ptx) f=\"$a\";; esac; done\n\
        for e in $(grep -o '\\.entry [A-Za-z0-9_]*' \"$f\" | sed 's/.entry //'); do\n\
        echo \"ptxas info    : Compiling entry function '$e' for 'sm_90'\"\n\
        echo \"ptxas info    : Function properties for $e\"\n\
        echo \"    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\"\n\
        echo \"ptxas info    : Used 20 registers, used 0 barriers\"\n\
        done\n";
    std::fs::write(&ptxas, script).expect("writes");
    std::fs::set_permissions(&ptxas, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let exe = ptxas.to_string_lossy().to_string();
    let compare = |path: &std::path::Path, extra: &[&str]| -> (Vec<String>, Option<i32>) {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_radbg"))
            .args(["compare", "--ptxas", exe.as_str()])
            .args(extra)
            .arg(path)
            .env("RADBG_PTXAS_CACHE", "off")
            .output()
            .expect("runs");
        let text = String::from_utf8(out.stdout).expect("utf-8");
        // The rows, columns as words (their padding follows the longest name).
        let rows = text
            .lines()
            .filter(|l| l.trim_start().starts_with("rep"))
            .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "));
        (rows.collect(), out.status.code())
    };
    let one = repeated_body(1);
    let at = one.find(".visible").expect("an entry");
    for extra in [&[][..], &["--maxrregcount", "24"][..]] {
        let (rows, status) = compare(&file, extra);
        assert_eq!(rows.len(), n, "every entry compared: {rows:?}");
        let mut statuses = Vec::new();
        for (k, row) in rows.iter().enumerate() {
            let alone = dir.join(format!("rep{k}.ptx"));
            std::fs::write(&alone, format!("{}{}", &one[..at], one[at..].replace("rep", &format!("rep{k}"))))
                .expect("writes");
            let (own, st) = compare(&alone, extra);
            assert_eq!(own, vec![row.clone()], "rep{k} {extra:?}");
            statuses.push(st);
        }
        assert!(statuses.iter().all(|&st| st == status), "{status:?} against {statuses:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `radbg fidelity` runs a file of separate entries one call group at a time
/// (`fidelity::measure::run_file`; issue 25): every function's figures are the whole
/// module's, in the whole module's order, and the work is the same.
#[test]
fn fidelity_group_by_group_measures_what_the_whole_module_gives() {
    use radbg::fidelity::measure::{Settings, run_file, run_file_whole};
    let ptx = many_entries(12);
    assert!(radbg::ir::ptx::stream::plan(&ptx).is_some_and(|p| p.len() == 12), "one group per entry");
    let settings = Settings::default();
    for budget in [None, Some(32)] {
        radbg::work::take();
        let streamed = run_file("many.ptx", &ptx, "sm_90", budget, &settings).expect("runs");
        let streamed_work = radbg::work::take();
        let whole = run_file_whole("many.ptx", &ptx, "sm_90", budget, &settings).expect("runs");
        assert_eq!(radbg::work::take(), streamed_work, "the same stages on the same functions");
        assert_eq!(streamed.funcs.len(), 12);
        assert_eq!(streamed.funcs, whole.funcs, "budget {budget:?}");
    }
}

/// The same on every corpus and gate-cache file of two or more functions, when the
/// caches are there (skipped, saying so, when not). Minutes in a release build:
/// `cargo test --release --test complexity -- --ignored`.
#[test]
#[ignore = "minutes: every multi-function file of the corpus and gate caches, twice"]
fn fidelity_group_by_group_on_the_real_kernels() {
    use radbg::fidelity::measure::{Settings, run_file, run_file_whole};
    let home = std::env::var_os("HOME").map(std::path::PathBuf::from).unwrap_or_default();
    let mut files = Vec::new();
    for dir in [home.join(".cache/radbg-corpus/ptx"), home.join(".cache/radbg-gate/ptx")] {
        let Ok(rd) = std::fs::read_dir(&dir) else { continue };
        files.extend(rd.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().is_some_and(|x| x == "ptx")));
    }
    if files.is_empty() {
        eprintln!("no corpus or gate cache: skipped");
        return;
    }
    files.sort();
    let settings = Settings::default();
    let mut compared = 0;
    for p in files {
        let Ok(text) = std::fs::read_to_string(&p) else { continue };
        if text.matches(".entry").count() + text.matches(".func").count() < 2 {
            continue;
        }
        let name = p.display().to_string();
        let sm = if name.contains("sm_80") { "sm_80" } else { "sm_90" };
        for budget in [None, Some(32)] {
            let streamed = run_file(&name, &text, sm, budget, &settings).map(|r| r.funcs);
            let whole = run_file_whole(&name, &text, sm, budget, &settings).map(|r| r.funcs);
            assert_eq!(streamed, whole, "{name} at {budget:?}");
        }
        compared += 1;
    }
    eprintln!("{compared} files compared");
}
