//! `radbg why` reads what each prepass did from the engine's record
//! (`RunOptions::record_stages`, `prepass::record`) instead of replaying the passes
//! (issue 25): its answers must be the replay's, byte for byte — on kernels where `sink`
//! moves loads, where `schedule` issues them early, under budgets, and with stages
//! switched off.

use std::collections::BTreeSet;

use radbg::engine::{Debugger, RunOptions};
use radbg::ir::span::SourceFile;
use radbg::why::{self, WhyCmd};

/// NVVM style: `n` loads hoisted to the top of the block, then a chain of uses, then a
/// second function with a short loop (two call-free entries in one file).
fn hoisted(n: usize) -> String {
    let mut s = String::from(".version 9.0\n.target sm_90\n.address_size 64\n\n");
    s.push_str(".visible .entry hoisted(\n\t.param .u64 p0,\n\t.param .u64 p1\n)\n{\n");
    s.push_str(&format!("\t.reg .f32 \t%f<{}>;\n\t.reg .b64 \t%rd<8>;\n\t.reg .b32 \t%r<4>;\n\n", 2 * n + 2));
    s.push_str("\tld.param.u64 \t%rd1, [p0];\n\tld.param.u64 \t%rd2, [p1];\n\tcvta.to.global.u64 \t%rd3, %rd1;\n");
    s.push_str("\tcvta.to.global.u64 \t%rd4, %rd2;\n\tmov.u32 \t%r1, %tid.x;\n\tmul.wide.u32 \t%rd5, %r1, 4;\n");
    s.push_str("\tadd.s64 \t%rd6, %rd3, %rd5;\n\tadd.s64 \t%rd7, %rd4, %rd5;\n");
    for k in 0..n {
        s.push_str(&format!("\tld.global.f32 \t%f{k}, [%rd6+{}];\n", 4 * k));
    }
    s.push_str(&format!("\tmov.f32 \t%f{n}, 0f00000000;\n"));
    for k in 0..n {
        s.push_str(&format!("\tfma.rn.f32 \t%f{}, %f{k}, %f{k}, %f{};\n", n + k + 1, n + k));
    }
    s.push_str(&format!("\tst.global.f32 \t[%rd7], %f{};\n\tret;\n}}\n\n", 2 * n));
    s.push_str(".visible .entry looped(\n\t.param .u64 q0,\n\t.param .u32 q1\n)\n{\n");
    s.push_str("\t.reg .pred \t%p<2>;\n\t.reg .f32 \t%f<8>;\n\t.reg .b32 \t%r<4>;\n\t.reg .b64 \t%rd<4>;\n\n");
    s.push_str("\tld.param.u64 \t%rd1, [q0];\n\tld.param.u32 \t%r1, [q1];\n\tcvta.to.global.u64 \t%rd2, %rd1;\n");
    s.push_str("\tld.global.f32 \t%f1, [%rd2];\n\tld.global.f32 \t%f2, [%rd2+4];\n\tmov.u32 \t%r2, 0;\n$L__BB1_1:\n");
    s.push_str("\tfma.rn.f32 \t%f1, %f1, %f2, %f2;\n\tadd.s32 \t%r2, %r2, 1;\n\tsetp.lt.s32 \t%p1, %r2, %r1;\n");
    s.push_str("\t@%p1 bra \t$L__BB1_1;\n\tst.global.f32 \t[%rd2], %f1;\n\tret;\n}\n");
    s
}

/// Every function's `why registers` answer (text and JSON), with and without the record.
fn answers(ptx: &str, opts: &RunOptions) -> Vec<String> {
    let loaded = radbg::load::import_ptx(&SourceFile::new("rec.ptx", ptx)).expect("imports");
    let mut d = Debugger::new(loaded.module, RunOptions { imported: true, ..opts.clone() });
    d.run_to_end();
    // With the option every function has a record (so the answer below comes from it).
    assert!(d.machine().funcs.iter().all(|f| f.stage_record.is_some() == opts.record_stages));
    (0..d.machine().module.functions.len())
        .map(|fi| {
            let x = why::answer_in(&d, "rec.ptx", fi, &WhyCmd::Registers(None), None).expect("answers");
            format!("{}\n{}", x.text, radbg::command::render::answer_json(&x.answer))
        })
        .collect()
}

#[test]
fn the_record_answers_as_the_replay() {
    let mut seen_sink = false;
    for n in [8, 40] {
        let ptx = hoisted(n);
        for budget in [None, Some(64), Some(32), Some(24)] {
            for off in [&[][..], &["sink"], &["schedule", "fold"]] {
                let opts = RunOptions {
                    maxrregcount: budget,
                    disabled_passes: off.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>(),
                    ..RunOptions::default()
                };
                let replayed = answers(&ptx, &opts);
                let recorded = answers(&ptx, &RunOptions { record_stages: true, ..opts.clone() });
                assert_eq!(recorded, replayed, "n {n}, budget {budget:?}, off {off:?}");
                seen_sink |= replayed.iter().any(|a| a.contains("interleaves"));
            }
        }
    }
    // The kernels do exercise `sink`'s moved-lines sentence.
    assert!(seen_sink, "no sink step seen");
}
