//! The list schedule fills a global load's stall (issue 23, ARCHITECTURE.md, rule 8):
//! a one-word ALU result the as-late-as-possible rule would hold back is issued in the
//! load's shadow when the schedule would otherwise wait for the load — while at most one
//! global load is in flight. Both kernels are hand-made; what ptxas 13.0.88 does with
//! them (sm_80, nvdisasm) is quoted at each test.

use std::collections::BTreeSet;

/// One `LDG` whose value goes to shared memory, then a chain of shared loads; `tid >> 5`
/// is read only by the next-to-last stores.
const ONE_LOAD: &str = concat!(
    ".version 8.0\n",
    ".target sm_80\n",
    ".address_size 64\n",
    ".extern .shared .align 4 .b8 s[];\n",
    ".visible .entry k(.param .u64 p) {\n",
    ".reg .b32 %r<40>;\n",
    ".reg .b64 %rd<8>;\n",
    ".reg .pred %p<4>;\n",
    "ld.param.u64 %rd1, [p];\n",
    "mov.u32 %r2, %tid.x;\n",
    "mul.wide.u32 %rd2, %r2, 4;\n",
    "add.s64 %rd3, %rd1, %rd2;\n",
    "ld.global.u32 %r3, [%rd3];\n",
    "mov.u32 %r7, s;\n",
    "shl.b32 %r6, %r2, 2;\n",
    "add.s32 %r8, %r7, %r6;\n",
    "st.shared.u32 [%r8], %r3;\n",
    "bar.sync 0;\n",
    "ld.shared.u32 %r10, [%r8];\n",
    "ld.shared.u32 %r11, [%r10];\n",
    "ld.shared.u32 %r12, [%r11];\n",
    "ld.shared.u32 %r13, [%r12];\n",
    "st.global.u32 [%rd3], %r13;\n",
    "shr.u32 %r5, %r2, 5;\n",
    "st.global.u32 [%rd1], %r5;\n",
    "st.global.u32 [%rd1+8], %r2;\n",
    "add.s32 %r14, %r10, %r11;\n",
    "add.s32 %r14, %r14, %r12;\n",
    "st.global.u32 [%rd1+16], %r14;\n",
    "ret;\n",
    "}\n",
);

/// Eight `LDG`s, a min/max network over them, then a loop that reads a shared address
/// (`tid << 5`) and a counter starting at 2, both computed before the loop.
const EIGHT_LOADS: &str = concat!(
    ".version 8.0\n",
    ".target sm_80\n",
    ".address_size 64\n",
    ".shared .align 4 .b8 t[4096];\n",
    ".visible .entry k(.param .u64 p) {\n",
    ".reg .b32 %r<80>;\n",
    ".reg .b64 %rd<8>;\n",
    ".reg .pred %p<4>;\n",
    "ld.param.u64 %rd1, [p];\n",
    "mov.u32 %r1, %tid.x;\n",
    "mul.wide.u32 %rd2, %r1, 32;\n",
    "add.s64 %rd3, %rd1, %rd2;\n",
    "ld.global.u32 %r40, [%rd3];\n",
    "ld.global.u32 %r41, [%rd3+4];\n",
    "ld.global.u32 %r42, [%rd3+8];\n",
    "ld.global.u32 %r43, [%rd3+12];\n",
    "ld.global.u32 %r44, [%rd3+16];\n",
    "ld.global.u32 %r45, [%rd3+20];\n",
    "ld.global.u32 %r46, [%rd3+24];\n",
    "ld.global.u32 %r47, [%rd3+28];\n",
    "max.s32 %r50, %r40, %r41;\n",
    "min.s32 %r51, %r40, %r41;\n",
    "max.s32 %r52, %r42, %r43;\n",
    "min.s32 %r53, %r42, %r43;\n",
    "max.s32 %r54, %r44, %r45;\n",
    "min.s32 %r55, %r44, %r45;\n",
    "max.s32 %r56, %r46, %r47;\n",
    "min.s32 %r57, %r46, %r47;\n",
    "max.s32 %r60, %r50, %r52;\n",
    "min.s32 %r61, %r51, %r53;\n",
    "max.s32 %r62, %r54, %r56;\n",
    "min.s32 %r63, %r55, %r57;\n",
    "shl.b32 %r2, %r1, 5;\n",
    "mov.u32 %r3, t;\n",
    "add.s32 %r4, %r3, %r2;\n",
    "mov.u32 %r20, 2;\n",
    "L:\n",
    "bar.sync 0;\n",
    "st.shared.u32 [%r4], %r60;\n",
    "st.shared.u32 [%r4+4], %r61;\n",
    "st.shared.u32 [%r4+8], %r62;\n",
    "st.shared.u32 [%r4+12], %r63;\n",
    "bar.sync 0;\n",
    "ld.shared.u32 %r60, [%r4+16];\n",
    "ld.shared.u32 %r61, [%r4+20];\n",
    "ld.shared.u32 %r62, [%r4+24];\n",
    "ld.shared.u32 %r63, [%r4+28];\n",
    "shl.b32 %r20, %r20, 1;\n",
    "setp.lt.u32 %p1, %r20, 1024;\n",
    "@%p1 bra L;\n",
    "st.global.u32 [%rd3], %r60;\n",
    "st.global.u32 [%rd3+4], %r61;\n",
    "st.global.u32 [%rd3+8], %r62;\n",
    "st.global.u32 [%rd3+12], %r63;\n",
    "ret;\n",
    "}\n",
);

/// The mnemonics of the function's instructions after `schedule`, in layout order.
fn scheduled(ptx: &str) -> Vec<String> {
    let (mut m, _) = radbg::ir::ptx::import_str("t.ptx", ptx).expect("imports");
    radbg::prepass::apply(&mut m, &BTreeSet::new(), &["fold", "schedule"]);
    let f = &m.functions[0];
    f.blocks
        .iter()
        .flat_map(|b| &b.insts)
        .map(|i| radbg::ir::print::print_inst(f, i))
        .map(|s| {
            let words: Vec<&str> = s.split_whitespace().collect();
            let at = words.iter().position(|w| *w == "=").map_or(0, |i| i + 1);
            words[at..].join(" ")
        })
        .collect()
}

fn at(ops: &[String], prefix: &str) -> usize {
    ops.iter().position(|o| o.starts_with(prefix)).unwrap_or_else(|| panic!("no {prefix} in {ops:?}"))
}

/// ptxas: `LDG.E R0, [R2.64]`, then `SHF.R.U32.HI R11, RZ, 0x5, R15` before the `STS`
/// that waits for R0 and the `BAR.SYNC`.
#[test]
fn an_alu_result_fills_a_single_global_loads_shadow() {
    let ops = scheduled(ONE_LOAD);
    // Without the fill the shift waits for its as-late-as-possible start, after the shared
    // loads (the critical path); with it, it goes while the schedule waits for the load.
    assert!(at(&ops, "LDG.E.U32") < at(&ops, "SHR.U32"), "{ops:?}");
    assert!(at(&ops, "SHR.U32") < at(&ops, "STS.U32"), "{ops:?}");
}

/// ptxas: the eight `LDG.E`, then `IMNMX R10, R0, R5, !PT` at once; the counter
/// (`IMAD.MOV.U32 R8, RZ, RZ, 0x2`) is issued after the network, just before the loop.
#[test]
fn behind_eight_loads_in_flight_the_loads_readers_go_first() {
    let ops = scheduled(EIGHT_LOADS);
    let last_load = ops.iter().rposition(|o| o.starts_with("LDG.E.U32")).expect("loads");
    let first_reader = at(&ops, "IMNMX");
    assert_eq!(first_reader, last_load + 1, "{ops:?}");
    assert!(at(&ops, "MOV.U32 2") > first_reader, "{ops:?}");
}
