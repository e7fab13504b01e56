//! Tensor-core fragments are register tuples the scalars are loaded into (issue 23,
//! ARCHITECTURE.md, rule 11, `prepass::fragments`). Hand-made kernel: a loop loads an A
//! fragment (four words) and two B fragments and issues two `mma.sync.m16n8k16` that read
//! the same A. ptxas 13.0.88 (nvdisasm): `LDG.E R4..R7` then `HMMA.16816.F32 R12, R4,
//! R10, R12` and `HMMA.16816.F32 R8, R4, R18, R8` — the A tuple loaded in place and read
//! by both, each accumulator updated in place (sm_80: 26 registers; sm_90: 28). The
//! importer packs the operand into a fresh quad per `mma` by component moves.

use std::collections::BTreeSet;

use radbg::fidelity::measure::{Settings, run_file};

const KERNEL: &str = concat!(
    ".version 8.0\n",
    ".target sm_80\n",
    ".address_size 64\n",
    ".visible .entry k(.param .u64 a, .param .u64 b, .param .u64 c, .param .u32 n)\n",
    "{\n",
    ".reg .b32 %r<40>;\n",
    ".reg .f32 %f<40>;\n",
    ".reg .b64 %rd<10>;\n",
    ".reg .pred %p<2>;\n",
    "ld.param.u64 %rd1, [a];\n",
    "ld.param.u64 %rd2, [b];\n",
    "ld.param.u64 %rd3, [c];\n",
    "ld.param.u32 %r1, [n];\n",
    "mov.u32 %r2, %tid.x;\n",
    "mul.wide.u32 %rd4, %r2, 16;\n",
    "add.s64 %rd5, %rd1, %rd4;\n",
    "add.s64 %rd6, %rd2, %rd4;\n",
    "mov.f32 %f1, 0f00000000;\n",
    "mov.f32 %f2, 0f00000000;\n",
    "mov.f32 %f3, 0f00000000;\n",
    "mov.f32 %f4, 0f00000000;\n",
    "mov.f32 %f5, 0f00000000;\n",
    "mov.f32 %f6, 0f00000000;\n",
    "mov.f32 %f7, 0f00000000;\n",
    "mov.f32 %f8, 0f00000000;\n",
    "mov.u32 %r3, 0;\n",
    "$L_loop:\n",
    "ld.global.u32 %r10, [%rd5];\n",
    "ld.global.u32 %r11, [%rd5+4];\n",
    "ld.global.u32 %r12, [%rd5+8];\n",
    "ld.global.u32 %r13, [%rd5+12];\n",
    "ld.global.u32 %r14, [%rd6];\n",
    "ld.global.u32 %r15, [%rd6+4];\n",
    "ld.global.u32 %r16, [%rd6+8];\n",
    "ld.global.u32 %r17, [%rd6+12];\n",
    "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r10, %r11, %r12, %r13}, {%r14, %r15}, {%f1, %f2, %f3, %f4};\n",
    "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f5, %f6, %f7, %f8}, {%r10, %r11, %r12, %r13}, {%r16, %r17}, {%f5, %f6, %f7, %f8};\n",
    "add.s64 %rd5, %rd5, 512;\n",
    "add.s64 %rd6, %rd6, 512;\n",
    "add.s32 %r3, %r3, 1;\n",
    "setp.lt.u32 %p1, %r3, %r1;\n",
    "@%p1 bra $L_loop;\n",
    "st.global.v4.f32 [%rd3], {%f1, %f2, %f3, %f4};\n",
    "st.global.v4.f32 [%rd3+16], {%f5, %f6, %f7, %f8};\n",
    "ret;\n",
    "}\n",
);

#[test]
fn the_a_fragment_is_one_tuple_read_by_both_mmas() {
    let (mut m, _) = radbg::ir::ptx::import_str("k.ptx", KERNEL).expect("imports");
    radbg::prepass::apply(&mut m, &BTreeSet::new(), &["fragments"]);
    let f = &m.functions[0];
    let insts: Vec<String> =
        f.blocks.iter().flat_map(|b| b.insts.iter().map(|i| radbg::ir::print::print_inst(f, i))).collect();
    let mmas: Vec<&String> = insts.iter().filter(|s| s.contains("HMMA")).collect();
    assert_eq!(mmas.len(), 2, "{insts:#?}");
    let a_of = |s: &str| s.split_whitespace().nth(3).map(|w| w.trim_end_matches(',').to_string());
    assert_eq!(a_of(mmas[0]), a_of(mmas[1]), "both read one A tuple: {mmas:#?}");
    let a = a_of(mmas[0]).expect("an A operand");
    // The loads write the tuple's components; nothing packs them.
    let loads = insts.iter().filter(|s| s.starts_with(&format!("{a}.")) && s.contains("LDG")).count();
    assert_eq!(loads, 4, "{insts:#?}");
    assert!(!insts.iter().any(|s| s.starts_with(&format!("{a}.")) && s.contains("= MOV")), "{insts:#?}");
}

#[test]
fn fragments_bring_the_count_toward_ptxas() {
    let count = |disabled: &[&str]| {
        let settings = Settings {
            disabled_passes: disabled.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>(),
            ..Default::default()
        };
        let run = run_file("k.ptx", KERNEL, "sm_80", None, &settings).expect("runs");
        assert!(run.funcs[0].faults.is_empty(), "{:?}", run.funcs[0].faults);
        run.funcs[0].registers
    };
    // ptxas: 26. Without the stage the A scalars and a quad copy of them are live
    // together at each mma.
    let (off, on) = (count(&["fragments"]), count(&[]));
    assert!(on + 4 <= off, "without the stage {off}, with it {on}");
    assert!(on >= 26, "not below ptxas: {on}");
}

/// A `wgmma.m64n64k16` loop with 32 f32 accumulators (hand-made, sm_90a), zeroed before
/// the loop and stored after it. The importer packs the accumulator into two 16-wide
/// temporaries that `WGMMA` updates in place; ptxas 13.0.88 reports 58 registers.
fn wgmma_kernel() -> String {
    let acc: Vec<String> = (1..=32).map(|i| format!("%f{i}")).collect();
    let mut s = String::from(
        ".version 8.0\n.target sm_90a\n.address_size 64\n\
         .visible .entry k(.param .u64 a, .param .u64 b, .param .u64 c, .param .u32 n)\n{\n\
         .reg .b32 %r<40>;\n.reg .f32 %f<80>;\n.reg .b64 %rd<20>;\n.reg .pred %p<2>;\n\
         ld.param.u64 %rd1, [a];\nld.param.u64 %rd2, [b];\nld.param.u64 %rd3, [c];\nld.param.u32 %r1, [n];\n",
    );
    for a in &acc {
        s.push_str(&format!("mov.f32 {a}, 0f00000000;\n"));
    }
    s.push_str(&format!(
        "mov.u32 %r3, 0;\n$L_loop:\nadd.s64 %rd1, %rd1, 2;\nadd.s64 %rd2, %rd2, 2;\nwgmma.fence.sync.aligned;\n\
         wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{{}}}, %rd1, %rd2, 1, 1, 1, 0, 0;\n\
         wgmma.commit_group.sync.aligned;\nwgmma.wait_group.sync.aligned 0;\nadd.s32 %r3, %r3, 1;\n\
         setp.lt.u32 %p1, %r3, %r1;\n@%p1 bra $L_loop;\nmov.u32 %r4, %tid.x;\nmul.wide.u32 %rd4, %r4, 128;\n\
         add.s64 %rd5, %rd3, %rd4;\n",
        acc.join(", ")
    ));
    for (k, a) in acc.iter().enumerate() {
        s.push_str(&format!("st.global.f32 [%rd5+{}], {a};\n", 4 * k));
    }
    s.push_str("ret;\n}\n");
    s
}

#[test]
fn a_packed_wgmma_accumulator_starts_where_it_is_packed() {
    let run = run_file("wg.ptx", &wgmma_kernel(), "sm_90a", None, &Settings::default()).expect("runs");
    let f = &run.funcs[0];
    assert!(f.faults.is_empty(), "{:?}", f.faults);
    // Before rule 12 the temporaries were live around the whole loop beside the 32
    // scalars: 80 registers. Not below ptxas's 58.
    assert!((58..=72).contains(&f.registers), "{}", f.registers);
}
