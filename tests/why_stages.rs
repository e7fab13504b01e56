//! `why registers` on imported PTX (issue 13): the section on what the pre-allocation
//! stages did to the R pressure, its facts, and that its peaks agree with the engine's
//! own prepass (same passes, order, context and switched-off set).

use radbg::analysis::{cfg, liveness};
use radbg::engine::{Machine, RunOptions, Stage};
use radbg::ir::span::SourceFile;
use radbg::ir::{Function, RegFile};
use radbg::why::{Ctx, registers, stages};

/// A kernel whose `n` loads sit NVVM-style at the top of the block (PTX lines 11..11+n),
/// summed by a chain of adds below them, the sum stored once.
fn hoisted(n: usize) -> String {
    let mut t = String::from(
        ".version 8.0\n.target sm_80\n.address_size 64\n\n.visible .entry hoist(.param .u64 p_in, .param .u64 p_out)\n{\n",
    );
    t.push_str(&format!("  .reg .f32 %f<{}>;\n  .reg .b64 %rd<3>;\n", 2 * n));
    t.push_str("  ld.param.u64 %rd1, [p_in];\n  ld.param.u64 %rd2, [p_out];\n");
    for i in 0..n {
        t.push_str(&format!("  ld.global.f32 %f{i}, [%rd1+{}];\n", 4 * i));
    }
    t.push_str(&format!("  add.f32 %f{n}, %f0, %f1;\n"));
    for i in 2..n {
        t.push_str(&format!("  add.f32 %f{}, %f{}, %f{i};\n", n + i - 1, n + i - 2));
    }
    t.push_str(&format!("  st.global.f32 [%rd2], %f{};\n  ret;\n}}\n", 2 * n - 2));
    t
}

fn run(ptx: &str, opts: RunOptions) -> (Machine, Vec<radbg::engine::Event>) {
    let loaded = radbg::load::import_ptx(&SourceFile::new("k.ptx", ptx)).expect("test PTX imports");
    assert!(loaded.imported);
    radbg::why::run_module(loaded.module, RunOptions { imported: true, ..opts })
}

/// The R pressure peak, measured as `prepass::sink` measures it.
fn peak(f: &Function) -> u32 {
    liveness::compute(f, &cfg::build(f, 1.0), &[]).max_pressure(f, RegFile::R).0
}

/// The R peak of each function right after the engine's prepass stage.
fn engine_peaks(ptx: &str, opts: RunOptions) -> Vec<u32> {
    let loaded = radbg::load::import_ptx(&SourceFile::new("k.ptx", ptx)).expect("test PTX imports");
    let mut m = Machine::new(loaded.module, RunOptions { imported: true, ..opts });
    while m.pos.stage == Stage::Prepass && m.step().is_some() {}
    m.module.functions.iter().map(peak).collect()
}

fn check(n: usize, disabled: &[&str], expected: &[&str], facts: &[(&str, i64)]) {
    let ptx = hoisted(n);
    let opts =
        RunOptions { disabled_passes: disabled.iter().map(|s| s.to_string()).collect(), ..RunOptions::default() };
    let (m, trace) = run(&ptx, opts.clone());
    let cx = Ctx { m: &m, trace: (&trace).into(), file: "k.ptx", d: None };
    let e = registers::explain(&cx, 0);
    for line in expected {
        assert!(e.text.contains(line), "missing {line:?} in:\n{}", e.text);
    }
    for (name, v) in facts {
        assert_eq!(e.fact(name), Some(*v), "fact {name}; facts: {}", e.fact_names());
    }
    // The replay agrees with the engine's own prepass.
    let st = stages::replay(&m, 0).expect("imported");
    assert_eq!(st.final_peak, engine_peaks(&ptx, opts)[0], "{}", e.text);
    let json = serde_json::to_value(&e.answer).expect("an answer serializes");
    assert_eq!(json["prepass"]["peak_after"], st.final_peak);
}

#[test]
fn sink_interleaves_the_hoisted_loads() {
    check(
        40,
        &[],
        &[
            "before allocation: the PTX as imported has R peak",
            "ptxas's scheduler interleaves the 15 loads NVVM hoisted to the top of the block (lines 36–50)",
            "to fit its register target 32",
            "  sink       43 → 29 (-14)",
            "the allocator then starts from peak 29",
        ],
        &[("prepass-peak-before", 43), ("prepass-peak-after", 29), ("prepass-sink-peak", 29)],
    );
}

#[test]
fn a_switched_off_stage_is_named_and_leaves_the_peak() {
    check(40, &["sink", "schedule"], &["  sink       switched off", "  schedule   switched off"], &[]);
}

#[test]
fn ori_input_has_no_section() {
    let src = ".target sm_80\n.entry k {\n.reg .R %r<2>\nBB0:\n%r0 = S2R SR_TID.X\nEXIT\n}\n";
    let m = radbg::ir::parse_str(src).expect("parses");
    let (m, trace) = radbg::why::run_module(m, RunOptions::default());
    let cx = Ctx { m: &m, trace: (&trace).into(), file: "k.ori", d: None };
    let e = registers::explain(&cx, 0);
    assert!(!e.text.contains("before allocation"), "{}", e.text);
    assert!(e.fact("prepass-peak-before").is_none());
    assert!(serde_json::to_value(&e.answer).expect("an answer serializes").get("prepass").is_none());
    assert!(stages::replay(&m, 0).is_none());
}
