//! The pre-allocation stages of imported PTX (`src/prepass/`, issue 13): what each pass
//! does to a small function, and that the engine runs them — one event per pass and
//! function, `switched off` when disabled — only for imported modules.

use std::collections::BTreeSet;

use radbg::engine::{EventKind, Machine, RunOptions};
use radbg::ir::{Module, parse_str};

fn module(body: &str) -> Module {
    module_with("", body)
}

/// A module of one entry `k` with `body`, after module-level declarations `globals`.
fn module_with(globals: &str, body: &str) -> Module {
    parse_str(&format!(".target sm_80\n{globals}\n.entry k {{\n{body}\n}}\n")).expect("test kernel parses")
}

/// Runs pass `name` on the only function of `body`; returns the printed instructions and
/// the pass's summary.
fn run_pass(name: &str, body: &str) -> (Vec<String>, String, Module) {
    run_pass_with("", name, body)
}

fn run_pass_with(globals: &str, name: &str, body: &str) -> (Vec<String>, String, Module) {
    let m = module_with(globals, body);
    let pass = radbg::prepass::PASSES.iter().find(|p| p.name == name).expect("pass exists");
    let ctx = radbg::prepass::PassCtx { module: &m, sm: &m.sm, maxrregcount: None, cap: None };
    let (g, summary) = pass.run_owned(&m.functions[0], &ctx);
    let insts = g.blocks.iter().flat_map(|b| &b.insts).map(|i| radbg::ir::print::print_inst(&g, i)).collect();
    let mut out = m.clone();
    out.functions[0] = g;
    (insts, summary, out)
}

fn check_fold(body: &str, expected: &[&str]) {
    let (insts, summary, _) = run_pass("fold", body);
    assert_eq!(insts, expected, "fold of:\n{body}\nsummary: {summary}");
}

#[test]
fn fold_puts_parameters_and_constants_into_their_uses() {
    let decls = ".reg .R %r<4>\n.reg .R.x2 %rd<4>\nBB0:";
    // A parameter read by arithmetic becomes a constant-bank operand; its LDC goes.
    check_fold(
        &format!("{decls}\n%r0 = S2R SR_TID.X\n%r1 = LDC c[0x0][0x160]\n%r2 = IADD3 %r0, %r1\nSTG.E [%rd0], %r2\nEXIT"),
        &["%r0 = S2R SR_TID.X", "%r2 = IADD3 %r0, c[0x0][0x160]", "STG.E [%rd0], %r2", "EXIT"],
    );
    // Through a MOV chain; a use in an address keeps a register (loaded from the bank).
    check_fold(
        &format!(
            "{decls}\n%rd1 = LDC.64 c[0x0][0x160]\n%rd2 = MOV %rd1\n%r0 = LDG.E [%rd2]\n%rd3 = IADD3.S64 %rd2, %rd0\nSTG.E [%rd3], %r0\nEXIT"
        ),
        &[
            "%rd2 = MOV c[0x0][0x160]",
            "%r0 = LDG.E [%rd2]",
            "%rd3 = IADD3.S64 c[0x0][0x160], %rd0",
            "STG.E [%rd3], %r0",
            "EXIT",
        ],
    );
    // One immediate or constant-bank operand per instruction: the second stays a register.
    check_fold(
        &format!("{decls}\n%r0 = S2R SR_TID.X\n%r1 = MOV 7\n%r2 = IADD3 %r0, 5, %r1\nSTG.E [%rd0], %r2\nEXIT"),
        &["%r0 = S2R SR_TID.X", "%r1 = MOV 7", "%r2 = IADD3 %r0, 5, %r1", "STG.E [%rd0], %r2", "EXIT"],
    );
}

/// The halves of a 64-bit parameter read one at a time (the importer's expansion of a
/// 64-bit multiply) fold too: dlib's `_cuda_add2` multiplies by `size_t` parameters and
/// its SASS (ptxas 13.0.88, nvdisasm) reads both halves from the bank, `IMAD.WIDE.U32 R2,
/// R7, c[0x0][0x190], R8` and `IMAD R7, R7, c[0x0][0x194], R4`, with no register for the
/// parameter. (A 64-bit immediate reaches the IR as two component `MOV`s, which stay.)
#[test]
fn fold_reads_the_halves_of_a_64_bit_parameter_from_the_bank() {
    let decls = ".reg .R %r<4>\n.reg .R.x2 %rd<6>\nBB0:";
    check_fold(
        &format!(
            "{decls}\n%r0 = S2R SR_TID.X\n%rd1 = LDC.64 c[0x0][0x190]\n%r1 = IMAD %r0, %rd1.lo\n\
             %r2 = IMAD %r0, %rd1.hi, %r1\nSTG.E [%rd0], %r2\nEXIT"
        ),
        &[
            "%r0 = S2R SR_TID.X",
            "%r1 = IMAD %r0, c[0x0][0x190]",
            "%r2 = IMAD %r0, c[0x0][0x194], %r1",
            "STG.E [%rd0], %r2",
            "EXIT",
        ],
    );
    // A half used by an instruction that already has its one constant operand stays a
    // register, and the parameter keeps its load for it.
    check_fold(
        &format!(
            "{decls}\n%r0 = S2R SR_TID.X\n%rd1 = LDC.64 c[0x0][0x190]\n%r1 = IMAD %r0, %rd1.hi, 5\nSTG.E [%rd0], %r1\nEXIT"
        ),
        &[
            "%r0 = S2R SR_TID.X",
            "%rd1 = LDC.64 c[0x0][0x190]",
            "%r1 = IMAD %r0, %rd1.hi, 5",
            "STG.E [%rd0], %r1",
            "EXIT",
        ],
    );
}

/// ptxas reads `%ntid` and `%nctaid` from the constant bank (`c[0x0][0x0]`…, `c[0x0][0xc]`…):
/// no `SR_NTID`/`SR_NCTAID` in the SASS (`tests/fidelity_launch_dims.rs` re-measures it).
#[test]
fn fold_reads_launch_dimensions_from_the_bank() {
    let decls = ".reg .R %r<8>\n.reg .R.x2 %rd<2>\nBB0:";
    check_fold(
        &format!(
            "{decls}\n%r0 = S2R SR_TID.X\n%r1 = S2R SR_NTID.X\n%r2 = S2R SR_NCTAID.Y\n%r3 = S2R SR_CTAID.X\n\
             %r4 = IMAD %r3, %r1, %r0\n%r5 = IADD3 %r4, %r2\n%r6 = S2R SR_NTID.Z\n%r7 = IADD3 %r5, %r6\n\
             STG.E [%rd0], %r7\nEXIT"
        ),
        &[
            "%r0 = S2R SR_TID.X",
            "%r3 = S2R SR_CTAID.X",
            "%r4 = IMAD %r3, c[0x0][0x0], %r0",
            "%r5 = IADD3 %r4, c[0x0][0x10]",
            "%r7 = IADD3 %r5, c[0x0][0x8]",
            "STG.E [%rd0], %r7",
            "EXIT",
        ],
    );
    // Two launch dimensions in one instruction: SASS takes one constant operand, so the
    // other keeps its register; a store's data stays a register too.
    check_fold(
        &format!(
            "{decls}\n%r1 = S2R SR_NTID.X\n%r2 = S2R SR_NCTAID.X\n%r3 = IMAD.MUL.LO.S32 %r1, %r2\n\
             STG.E [%rd0], %r3\nSTG.E [%rd0+4], %r1\nEXIT"
        ),
        &[
            "%r1 = S2R SR_NTID.X",
            "%r2 = S2R SR_NCTAID.X",
            "%r3 = IMAD.MUL.LO.S32 c[0x0][0x0], %r2",
            "STG.E [%rd0], %r3",
            "STG.E [%rd0 + 0x4], %r1",
            "EXIT",
        ],
    );
}

#[test]
fn components_start_assembled_values_where_they_are_assembled() {
    let body = ".reg .R %r<4>\n.reg .R.x2 %rd<4>\nBB0:\n%r0 = S2R SR_TID.X\n%r1 = S2R SR_TID.Y\n\
                %rd1.lo = MOV %r0\n%rd1.hi = MOV %r1\nSTG.E.64 [%rd0], %rd1\nEXIT";
    let live_in = |m: &Module| {
        let f = &m.functions[0];
        let c = radbg::analysis::cfg::build(f, 1.0);
        let l = radbg::analysis::liveness::compute(f, &c, &[]);
        l.live_in(0).names(f)
    };
    let before = module(body);
    assert!(live_in(&before).contains("%rd1"), "without the pass the pair is live at entry: {}", live_in(&before));
    let (_, summary, after) = run_pass("components", body);
    assert!(summary.starts_with("1 vreg(s) assembled"), "{summary}");
    assert!(!live_in(&after).contains("%rd1"), "after the pass: {}", live_in(&after));
    // A pair whose half is redefined stays conservative.
    let body2 = body.replace("%rd1.hi = MOV %r1", "%rd1.hi = MOV %r1\n%rd1.hi = MOV %r0");
    let (_, summary, _) = run_pass("components", &body2);
    assert!(summary.starts_with("no vreg"), "{summary}");
}

const SMEM: &str = ".shared .align 16 smem[4096]";

fn check_narrow(body: &str, expected: &[&str]) {
    let (insts, summary, _) = run_pass_with(SMEM, "narrow", body);
    assert_eq!(insts, expected, "narrow of:\n{body}\nsummary: {summary}");
}

#[test]
fn narrow_makes_shared_and_local_addresses_32_bit() {
    let decls = ".reg .R %r<4>\n.reg .R.x2 %rd<8>\nBB0:";
    // NVVM's shared address arithmetic (mov of the window's symbol, mul.wide, add.s64):
    // every value narrows; the loaded index stays whole, its products read no high half.
    check_narrow(
        &format!(
            "{decls}\n%r0 = S2R SR_TID.X\n%rd1 = MOV.U64 smem\n%rd2 = IMAD.MUL.WIDE.S32 %r0, 4\n\
             %rd3 = IADD3.S64 %rd1, %rd2\nSTS.U32 [%rd3 + 0x4], %r0\n%r1 = LDS.U32 [%rd3]\nSTG.E [%rd0], %r1\nEXIT"
        ),
        &[
            "%r0 = S2R SR_TID.X",
            "%rd1$32 = MOV.U32 smem",
            "%rd2$32 = IMAD.MUL.S32 %r0, 4",
            "%rd3$32 = IADD3.S32 %rd1$32, %rd2$32",
            "STS.U32 [%rd3$32 + 0x4], %r0",
            "%r1 = LDS.U32 [%rd3$32]",
            "STG.E [%rd0], %r1",
            "EXIT",
        ],
    );
    // A value also used as a global address, stored as data or shifted right keeps its
    // 64 bits, and so does what feeds it; a wide source of a narrowed def is read as .lo.
    check_narrow(
        &format!(
            "{decls}\n%rd1 = LDG.E.64 [%rd0]\n%rd2 = IADD3.S64 %rd1, 16\n%r1 = LDS.U32 [%rd2]\n\
             %rd3 = IADD3.S64 %rd2, 4\nSTG.E [%rd3], %r1\n%rd4 = IADD3.S64 %rd1, 8\nSTG.E.64 [%rd0], %rd4\n\
             %rd5 = SHF.R.U64 %rd1, 2\n%r2 = LDS.U32 [%rd5]\nSTG.E [%rd0], %r2\nEXIT"
        ),
        &[
            "%rd1 = LDG.E.64 [%rd0]",
            "%rd2 = IADD3.S64 %rd1, 16",
            "%r1 = LDS.U32 [%rd2]",
            "%rd3 = IADD3.S64 %rd2, 4",
            "STG.E [%rd3], %r1",
            "%rd4 = IADD3.S64 %rd1, 8",
            "STG.E.64 [%rd0], %rd4",
            "%rd5 = SHF.R.U64 %rd1, 2",
            "%r2 = LDS.U32 [%rd5]",
            "STG.E [%rd0], %r2",
            "EXIT",
        ],
    );
    check_narrow(
        &format!(
            "{decls}\n%rd1 = LDG.E.64 [%rd0]\n%rd2 = IADD3.S64 %rd1, 16\n%r1 = LDS.U32 [%rd2]\nSTG.E [%rd0], %r1\nEXIT"
        ),
        &[
            "%rd1 = LDG.E.64 [%rd0]",
            "%rd2$32 = IADD3.S32 %rd1.lo, 16",
            "%r1 = LDS.U32 [%rd2$32]",
            "STG.E [%rd0], %r1",
            "EXIT",
        ],
    );
    // The pressure it removes: one register per narrowed address instead of a pair.
    let (_, summary, after) = run_pass_with(
        SMEM,
        "narrow",
        &format!("{decls}\n%r0 = S2R SR_TID.X\n%rd1 = MOV.U64 smem\n%r1 = LDS.U32 [%rd1]\nSTG.E [%rd0], %r1\nEXIT"),
    );
    assert!(summary.starts_with("1 64-bit shared/local address value(s) narrowed"), "{summary}");
    let f = &after.functions[0];
    let width = |name: &str| f.vregs.iter().find(|v| &*v.name == name).map(|v| v.width);
    assert_eq!(width("%rd1$32"), Some(1));
}

#[test]
fn ifconvert_predicates_short_guarded_blocks_and_merges_their_joins() {
    let decls = ".reg .R %r<8>\n.reg .R.x2 %rd<4>\n.reg .P %p<4>";
    // Two triangles in a row: both bodies take the inverse guard, the joins merge, one
    // block is left.
    let body = format!(
        "{decls}\nBB0:\n%r0 = S2R SR_TID.X\n%p0 = ISETP.GE.AND %r0, 16, PT\n@%p0 BRA BB2\nBB1:\n\
         %r1 = LDG.E [%rd0]\n%r2 = IADD3 %r2, %r1\nBB2:\n%p1 = ISETP.GE.AND %r0, 32, PT\n@!%p1 BRA BB4\nBB3:\n\
         %r3 = LDG.E [%rd0 + 0x4]\n%r2 = IADD3 %r2, %r3\nBB4:\nSTG.E [%rd0], %r2\nEXIT"
    );
    let (insts, summary, after) = run_pass("ifconvert", &body);
    assert_eq!(
        insts,
        [
            "%r0 = S2R SR_TID.X",
            "%p0 = ISETP.GE.AND %r0, 16, PT",
            "@!%p0 %r1 = LDG.E [%rd0]",
            "@!%p0 %r2 = IADD3 %r2, %r1",
            "%p1 = ISETP.GE.AND %r0, 32, PT",
            "@%p1 %r3 = LDG.E [%rd0 + 0x4]",
            "@%p1 %r2 = IADD3 %r2, %r3",
            "STG.E [%rd0], %r2",
            "EXIT",
        ],
        "{summary}"
    );
    assert_eq!(after.functions[0].blocks.len(), 1, "{summary}");
    assert!(
        summary.starts_with("2 guarded block(s) predicated (4 instruction(s)), 2 join block(s) merged"),
        "{summary}"
    );
    // A join another branch names stays a block of its own.
    let named = body.replace("STG.E [%rd0], %r2\nEXIT", "STG.E [%rd0], %r2\n@%p0 BRA BB4\nEXIT");
    let (_, _, after) = run_pass("ifconvert", &named);
    assert_eq!(after.functions[0].blocks.len(), 2);
    // Warp-synchronous bodies and bodies longer than MAX_BODY keep their branch.
    let shfl = body.replace("%r1 = LDG.E [%rd0]", "%r1 = SHFL.DOWN %r2, 1, 31");
    let (_, summary, _) = run_pass("ifconvert", &shfl);
    assert!(summary.starts_with("1 guarded block(s) predicated"), "{summary}");
    let long =
        body.replace("%r1 = LDG.E [%rd0]\n", &"%r1 = LDG.E [%rd0]\n".repeat(radbg::prepass::ifconvert::MAX_BODY));
    let (_, summary, _) = run_pass("ifconvert", &long);
    assert!(summary.starts_with("1 guarded block(s) predicated"), "{summary}");
}

fn prepass_events(imported: bool, disabled: &[&str]) -> Vec<String> {
    let m = module(
        ".reg .R %r<4>\n.reg .R.x2 %rd<2>\nBB0:\n%r1 = LDC c[0x0][0x160]\n%r2 = IADD3 %r1, 1\nSTG.E [%rd0], %r2\nEXIT",
    );
    let opts = RunOptions {
        imported,
        disabled_passes: disabled.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>(),
        ..RunOptions::default()
    };
    let mut mach = Machine::new(m, opts);
    let mut out = Vec::new();
    while let Some(e) = mach.step() {
        if let EventKind::Prepass { pass, summary } = &e.kind {
            out.push(format!("{pass}: {}", summary.split(':').next().unwrap_or("")));
        }
    }
    out
}

#[test]
fn the_engine_runs_the_stages_only_on_imported_ptx_and_switches_them_off() {
    assert!(prepass_events(false, &[]).is_empty());
    let all = prepass_events(true, &[]);
    let names: Vec<&str> = all.iter().map(|s| s.split(':').next().unwrap()).collect();
    assert_eq!(names, radbg::prepass::stage_names(), "{all:?}");
    let off = prepass_events(true, &["fold", "report"]);
    assert!(off.contains(&"fold: switched off".to_string()), "{off:?}");
    assert!(off.contains(&"report: switched off".to_string()), "{off:?}");
}

#[test]
fn sink_interleaves_hoisted_loads_only_as_far_as_the_register_target_needs() {
    // 16 hoisted 64-bit loads then a reduction chain: peak 34 registers + 3 > 32.
    let mut body = String::from(".reg .R.x2 %rd<40>\nBB0:\n");
    for k in 1..=16 {
        body.push_str(&format!("%rd{k} = LDG.E.U64 [%rd0 + 0x{:x}]\n", 8 * k));
    }
    body.push_str("%rd20 = IMNMX.MAX.S64 %rd1, %rd2\n");
    for k in 3..=16 {
        body.push_str(&format!("%rd{} = IMNMX.MAX.S64 %rd{}, %rd{k}\n", 18 + k, 17 + k));
    }
    body.push_str("STG.E.64 [%rd0], %rd34\nEXIT");
    let (insts, summary, _) = run_pass("sink", &body);
    assert!(summary.contains("sunk to their first use") && summary.contains("target 32"), "{summary}");
    // The last load now sits right before the instruction that first reads it.
    let at = |needle: &str| insts.iter().position(|i| i.starts_with(needle)).unwrap_or(usize::MAX);
    assert_eq!(at("%rd16 = LDG"), at("%rd34 = IMNMX") - 1, "{insts:#?}");
    // A function that already fits is left alone.
    let small = ".reg .R.x2 %rd<4>\nBB0:\n%rd1 = LDG.E.U64 [%rd0]\n%rd2 = LDG.E.U64 [%rd0 + 0x8]\n\
                 %rd3 = IMNMX.MAX.S64 %rd1, %rd2\nSTG.E.64 [%rd0], %rd3\nEXIT";
    let (_, summary, _) = run_pass("sink", small);
    assert!(summary.starts_with("fits the register target 32"), "{summary}");
}

/// The `N bytes stack frame` radbg reports for `body` (Ori IR with a `.local` array).
fn frame_of(body: &str, imported: bool, disabled: &[&str]) -> u32 {
    let m = parse_str(&format!(
        ".target sm_80\n.local .align 16 depot[256]\n.local .align 8 other[8]\n.entry k {{\n{body}\n}}\n"
    ))
    .expect("test kernel parses");
    let opts = RunOptions {
        imported,
        disabled_passes: disabled.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>(),
        ..RunOptions::default()
    };
    let mut mach = Machine::new(m, opts);
    while mach.step().is_some() {}
    mach.funcs[0].stats.as_ref().expect("stats").stack_frame
}

#[test]
fn the_frame_holds_the_local_arrays_a_function_addresses() {
    let body = ".reg .R.x2 %rd<2>\n.reg .R %r<2>\nBB0:\n%rd0 = MOV.U64 depot\n%r0 = S2R SR_TID.X\n\
                STL [%rd0], %r0\nEXIT";
    // The 256-byte depot it names; not `other`, which it does not.
    assert_eq!(frame_of(body, true, &[]), 256);
    // Ori IR input and the `report` rule switched off keep radbg's spill-only frame.
    assert_eq!(frame_of(body, false, &[]), 0);
    assert_eq!(frame_of(body, true, &["report"]), 0);
    // Variables then spill slots, rounded up to the variables' alignment (local_lut on
    // sm_90 at 32: 256 + 8 bytes of spills → 272).
    let check = |local, align, spill, want| assert_eq!(radbg::alloc::stats::frame_bytes(local, align, spill), want);
    check(256, 16, 0, 256);
    check(256, 16, 8, 272);
    check(0, 1, 24, 24);
    check(12, 4, 0, 12);
}

#[test]
fn an_entry_that_spills_reports_its_whole_budget() {
    let check = |reported, stores, budget, want| {
        assert_eq!(radbg::alloc::stats::spilling_report(reported, stores, budget), want, "{reported} {stores} {budget}")
    };
    check(31, 148, 32, 32);
    check(63, 8, 64, 64);
    check(28, 0, 64, 28);
    check(255, 7376, 255, 255);
}

/// The register radbg gives each of `names` in `body` (sm_90, imported PTX rules on),
/// with the `banks` rule on or off.
fn slots_of(body: &str, names: &[&str], banks: bool) -> Vec<u16> {
    let m = parse_str(&format!(".target sm_90\n.entry k {{\n{body}\n}}\n")).expect("test kernel parses");
    let disabled: BTreeSet<String> = if banks { BTreeSet::new() } else { ["banks".to_string()].into() };
    let mut mach = Machine::new(m, RunOptions { imported: true, disabled_passes: disabled, ..RunOptions::default() });
    while mach.step().is_some() {}
    let f = &mach.module.functions[0];
    let a = mach.funcs[0].alloc.as_ref().expect("allocated");
    names
        .iter()
        .map(|n| {
            let v = f.vregs.iter().position(|v| &*v.name == *n).expect("vreg exists");
            a.slot_of(radbg::ir::VRegId::new(v)).expect("assigned")
        })
        .collect()
}

#[test]
fn banks_put_store_data_beside_a_global_address_pair_in_an_odd_register() {
    // Two values stored through a 64-bit address: packed they take R0 and R2 (R1 is the
    // stack pointer); with the `banks` rule each goes to an odd register (ptxas: the
    // scalar data of STG is odd 737 times in 810 in the corpus SASS).
    let body = ".reg .R %r<4>\n.reg .R.x2 %rd<2>\nBB0:\n%rd0 = LDG.E.64 [%rd1]\n%r0 = S2R SR_TID.X\n\
                %r1 = IADD3 %r0, 1, 0\nSTG.E [%rd0], %r0\nSTG.E [%rd0 + 0x4], %r1\nEXIT";
    let off = slots_of(body, &["%r0", "%r1"], false);
    let on = slots_of(body, &["%r0", "%r1"], true);
    assert!(off.iter().any(|s| s % 2 == 0), "{off:?}");
    assert!(on.iter().all(|s| s % 2 == 1), "{on:?} (off: {off:?})");
}

#[test]
fn schedule_lowers_pressure_over_the_target() {
    // Eight values computed up front, each stored later: 8 live at once + the address pair.
    let mut body = String::from(".reg .R %r<10>\n.reg .R.x2 %rd<2>\nBB0:\n%r9 = S2R SR_TID.X\n");
    for k in 0..8 {
        body.push_str(&format!("%r{k} = IADD3 %r9, {}, 0\n", k + 1));
    }
    for k in 0..8 {
        body.push_str(&format!("STG.E [%rd0 + 0x{:x}], %r{k}\n", 4 * k));
    }
    body.push_str("EXIT");
    let m = module(&body);
    let pass = radbg::prepass::PASSES.iter().find(|p| p.name == "schedule").expect("pass exists");
    let peak = |f: &radbg::ir::Function| {
        let c = radbg::analysis::cfg::build(f, 1.0);
        radbg::analysis::liveness::compute(f, &c, &[]).max_pressure(f, radbg::ir::RegFile::R).0
    };
    let before = peak(&m.functions[0]);
    // Budget 8: the allocator gets 6 registers; the schedule interleaves values and stores.
    let ctx = radbg::prepass::PassCtx { module: &m, sm: &m.sm, maxrregcount: Some(8), cap: None };
    let (g, summary) = pass.run_owned(&m.functions[0], &ctx);
    assert!(summary.contains("for pressure over the target"), "{summary}");
    assert!(peak(&g) < before, "{} !< {before}: {summary}", peak(&g));
}

#[test]
fn fold_gives_a_shuffle_its_lane_clamp_and_mask_as_immediates() {
    // shfl.sync.down.b32 with lane 1, clamp 31, mask -1 from `mov`s: SASS
    // `SHFL.DOWN P0, R7, R5, 0x1, 0x1f` — all three immediates, no register kept.
    let decls = ".reg .R %r<8>\n.reg .P %p<2>\n.reg .R.x2 %rd<2>\nBB0:";
    check_fold(
        &format!(
            "{decls}\n%r0 = S2R SR_TID.X\n%r1 = MOV 1\n%r2 = MOV 31\n%r3 = MOV -1\n\
             %r4, %p0 = SHFL.SYNC.DOWN.B32 %r0, %r1, %r2, %r3\nSTG.E [%rd0], %r4\nEXIT"
        ),
        &["%r0 = S2R SR_TID.X", "%r4, %p0 = SHFL.SYNC.DOWN.B32 %r0, 1, 31, -1", "STG.E [%rd0], %r4", "EXIT"],
    );
    // The shuffled value itself stays a register, and a vote keeps its predicate but
    // not its member mask.
    check_fold(
        &format!(
            "{decls}\n%r1 = MOV 5\n%r3 = MOV -1\n%r4, %p0 = SHFL.SYNC.IDX.B32 %r1, 0, 31, %r3\n\
             %p1 = ISETP.NE.S32 %r4, 0\n%r5 = VOTE.SYNC.BALLOT.B32 %p1, %r3\nSTG.E [%rd0], %r5\nEXIT"
        ),
        &[
            "%r1 = MOV 5",
            "%r4, %p0 = SHFL.SYNC.IDX.B32 %r1, 0, 31, -1",
            "%p1 = ISETP.NE.S32 %r4, 0",
            "%r5 = VOTE.SYNC.BALLOT.B32 %p1, -1",
            "STG.E [%rd0], %r5",
            "EXIT",
        ],
    );
}

#[test]
fn an_entry_that_calls_reports_at_least_the_abi_minimum() {
    let check = |reported, calls, want| {
        assert_eq!(radbg::alloc::stats::calling_report(reported, calls, 24), want, "{reported} {calls}")
    };
    check(16, true, 24);
    check(30, true, 30);
    check(16, false, 16);
    // End to end: a tiny imported kernel that calls an external function (numba's NRT
    // kernels calling `__assertfail`: ptxas 24) and the same kernel without the call.
    let ptx = |call: bool| {
        format!(
            ".version 8.5\n.target sm_80\n.address_size 64\n\
             .extern .func __assertfail(.param .b64 a);\n\
             .visible .entry k(.param .u64 p)\n{{\n.reg .b64 %rd<3>;\n\
             ld.param.u64 %rd1, [p];\nld.global.u64 %rd2, [%rd1];\n{}st.global.u64 [%rd1], %rd2;\nret;\n}}\n",
            if call {
                "{\n.param .b64 param0;\nst.param.b64 [param0+0], %rd1;\ncall.uni __assertfail, (param0);\n}\n"
            } else {
                ""
            }
        )
    };
    let regs = |src: &str| {
        let (m, _) = radbg::ir::ptx::import_str("k.ptx", src).expect("imports");
        let mut mach = Machine::new(m, RunOptions { imported: true, ..RunOptions::default() });
        while mach.step().is_some() {}
        let k = mach.module.functions.iter().position(|f| f.name == "k").expect("entry k");
        mach.funcs[k].stats.as_ref().expect("stats").registers
    };
    assert_eq!(regs(&ptx(true)), 24);
    assert!(regs(&ptx(false)) < 24, "{}", regs(&ptx(false)));
}

/// `body` scheduled by `schedule` under `budget`; returns the printed order and the R
/// peak before and after.
fn scheduled(body: &str, budget: Option<u32>) -> (Vec<String>, u32, u32) {
    scheduled_with("", body, budget)
}

fn scheduled_with(globals: &str, body: &str, budget: Option<u32>) -> (Vec<String>, u32, u32) {
    let m = module_with(globals, body);
    let k = m.functions.iter().position(|f| f.name == "k").expect("entry k");
    let pass = radbg::prepass::PASSES.iter().find(|p| p.name == "schedule").expect("pass exists");
    let peak = |f: &radbg::ir::Function| {
        let c = radbg::analysis::cfg::build(f, 1.0);
        radbg::analysis::liveness::compute(f, &c, &[]).max_pressure(f, radbg::ir::RegFile::R).0
    };
    let ctx = radbg::prepass::PassCtx { module: &m, sm: &m.sm, maxrregcount: budget, cap: None };
    let (g, _) = pass.run_owned(&m.functions[k], &ctx);
    let insts = g.blocks.iter().flat_map(|b| &b.insts).map(|i| radbg::ir::print::print_inst(&g, i)).collect();
    (insts, peak(&m.functions[k]), peak(&g))
}

#[test]
fn schedule_issues_loads_first_and_store_addresses_as_they_are_due() {
    // cub_block_reduce's shape: sixteen loads, then per value `tid + 128k`, a shift, an
    // add and a store. ptxas issues the loads first and computes the addresses a few
    // at a time between the stores; filling the loads' latency with every ready
    // instruction would compute all sixteen addresses first.
    let mut body = String::from(".reg .R %r<70>\n.reg .R.x2 %rd<2>\nBB0:\n%r0 = S2R SR_TID.X\n");
    for k in 1..=16 {
        body.push_str(&format!("%r{k} = LDG.E [%rd0 + 0x{:x}]\n", 0x200 * k));
        body.push_str(&format!("%r{} = IADD3 %r0, {}, RZ\n", 16 + k, 128 * k));
    }
    for k in 1..=16 {
        body.push_str(&format!("%r{} = SHR.S32 %r{}, 5\n", 32 + k, 16 + k));
        body.push_str(&format!("%r{} = IADD3 %r{}, %r{}, RZ\n", 48 + k, 32 + k, 16 + k));
        body.push_str(&format!("STS [%r{}], %r{k}\n", 48 + k));
    }
    body.push_str("EXIT");
    let (insts, _, after) = scheduled(&body, Some(64));
    let at = |needle: &str| insts.iter().position(|i| i.starts_with(needle)).expect(needle);
    // Every load before any address arithmetic …
    assert!(at("%r16 = LDG") < at("%r17 = IADD3"), "{insts:#?}");
    // … and the last addresses completed after the first stores.
    assert!(at("%r64 = IADD3") > at("STS [%r49]"), "{insts:#?}");
    // Sixteen loaded values, the address pair, tid and some addresses: not all sixteen
    // (35, breadth first).
    assert!(after <= 16 + 3 + 10, "peak {after}: {insts:#?}");
}

#[test]
fn schedule_reorders_the_regions_between_calls() {
    // A call in the block keeps its place; the loads before it are still scheduled.
    let body = ".reg .R %r<8>\n.reg .R.x2 %rd<2>\nBB0:\n%r0 = S2R SR_TID.X\n%r1 = IADD3 %r0, 1, RZ\n\
                %r2 = LDG.E [%rd0]\n%r3 = IADD3 %r1, %r2, RZ\nSTG.E [%rd0], %r3\n\
                %r4 = CALL helper, %r3\nEXIT";
    let (insts, _, _) = scheduled_with(".func helper {\n.reg .R %r<1>\nBB0:\nRET\n}\n", body, Some(64));
    let at = |needle: &str| insts.iter().position(|i| i.contains(needle)).expect(needle);
    assert!(at("%r2 = LDG") < at("%r1 = IADD3"), "the load goes first: {insts:#?}");
    assert!(at("STG") < at("CALL"), "{insts:#?}");
}

#[test]
fn expand_computes_a_guarded_fp64_operation_into_a_new_pair_and_selects() {
    // ptxas never predicates an FP64 operation (cub_warp_reduce: `@p add.f64 d, d, r`
    // is `DADD` into a new pair + `FSEL` of each half).
    let body = ".reg .R.x2 %fd<4>\n.reg .R.x2 %rd<2>\n.reg .P %p<2>\n.reg .R %r<2>\nBB0:\n\
                %r0 = S2R SR_TID.X\n%p0 = ISETP.NE.S32 %r0, 0\n%fd0 = LDG.E.64 [%rd0]\n%fd1 = LDG.E.64 [%rd0 + 0x8]\n\
                @%p0 %fd0 = DADD.F64 %fd0, %fd1\nSTG.E.64 [%rd0], %fd0\nEXIT";
    let (insts, summary, _) = run_pass("expand", body);
    assert!(summary.contains("1 guarded FP64 operation(s) expanded"), "{summary}");
    let at = |needle: &str| insts.iter().position(|i| i.contains(needle)).expect(needle);
    let op = &insts[at("DADD")];
    assert!(!op.starts_with('@') && !op.starts_with("%fd0 ="), "unguarded into a temporary: {insts:#?}");
    assert!(insts[at("DADD") + 1].starts_with("@%p0 %fd0 = MOV"), "{insts:#?}");
    // An unguarded FP64 operation stays as it is.
    let (_, summary, _) = run_pass("expand", &body.replace("@%p0 %fd0 = DADD", "%fd0 = DADD"));
    assert!(summary.starts_with("no integer divide"), "{summary}");
}

#[test]
fn fold_carries_constant_adds_into_address_offsets() {
    // conv5x5's shape: `a = b - 12; c = a + x; ld [c]`, `d = b + 16; ld [d]`: SASS keeps
    // no register for `a` or `d`, and loads `[c' - 0xc]` with `c' = b + x`.
    let decls = ".reg .R %r<8>\n.reg .R.x2 %rd<10>\nBB0:";
    let (insts, summary, _) = run_pass(
        "fold",
        &format!(
            "{decls}\n%rd1 = LDG.E.64 [%rd0]\n%rd2 = LDG.E.64 [%rd0 + 0x8]\n%rd3 = IADD3.S64 %rd1, -12\n\
             %rd4 = IADD3.S64 %rd3, %rd2\n%r0 = LDG.E [%rd4]\n%rd5 = IADD3.S64 %rd1, 16\n%r1 = LDG.E [%rd5 + 0x4]\n\
             %r2 = IADD3 %r0, %r1, RZ\nSTG.E [%rd0], %r2\nEXIT"
        ),
    );
    assert!(summary.contains("3 constant add(s) carried into address offsets"), "{summary}");
    assert_eq!(
        insts,
        [
            "%rd1 = LDG.E.64 [%rd0]",
            "%rd2 = LDG.E.64 [%rd0 + 0x8]",
            "%rd4 = IADD3.S64 %rd1, %rd2",
            "%r0 = LDG.E [%rd4 - 0xc]",
            "%r1 = LDG.E [%rd1 + 0x14]",
            "%r2 = IADD3 %r0, %r1, RZ",
            "STG.E [%rd0], %r2",
            "EXIT"
        ]
    );
    // A value also read as data keeps its register and its add.
    let (insts, _, _) = run_pass(
        "fold",
        &format!(
            "{decls}\n%rd1 = LDG.E.64 [%rd0]\n%rd3 = IADD3.S64 %rd1, 8\n%r0 = LDG.E [%rd3]\n\
             STG.E.64 [%rd0], %rd3\nSTG.E [%rd0 + 0x8], %r0\nEXIT"
        ),
    );
    assert!(
        insts.contains(&"%rd3 = IADD3.S64 %rd1, 8".to_string()) && insts.contains(&"%r0 = LDG.E [%rd3]".to_string()),
        "{insts:#?}"
    );
}

#[test]
fn vectorize_merges_aligned_adjacent_shared_loads() {
    let globals = ".shared .align 4 tile[2048]";
    // sgemm's fragment read: `tile + (tid & 15) * 16`, four floats at +0..+12 and four
    // at +256..+268, FMAs between them.
    let decls = ".reg .R %r<20>\n.reg .R.x2 %rd<2>\nBB0:";
    let frag = "%r0 = S2R SR_TID.X\n%r1 = LOP3.AND %r0, 15\n%r2 = SHL %r1, 4\n%r3 = IADD3 tile, %r2";
    let body = format!(
        "{decls}\n{frag}\n%r4 = LDS.F32 [%r3]\n%r5 = LDS.F32 [%r3 + 0x4]\n%r12 = FMUL %r4, %r5\n\
         %r6 = LDS.F32 [%r3 + 0x8]\n%r7 = LDS.F32 [%r3 + 0xc]\n%r13 = FFMA %r6, %r7, %r12\n\
         %r8 = LDS.F32 [%r3 + 0x100]\n%r9 = LDS.F32 [%r3 + 0x104]\n%r14 = FFMA %r8, %r9, %r13\nSTG.E [%rd0], %r14\nEXIT"
    );
    let (insts, summary, _) = run_pass_with(globals, "vectorize", &body);
    let lds: Vec<&String> = insts.iter().filter(|i| i.contains("LDS")).collect();
    assert_eq!(lds.len(), 2, "{insts:#?}");
    assert!(lds[0].ends_with("LDS.128 [%r3]"), "{insts:#?}");
    assert!(lds[1].ends_with("LDS.64 [%r3 + 0x100]"), "{insts:#?}");
    // The quad's components unpack right after it, in offset order, before any use.
    let at = |needle: &str| insts.iter().position(|i| i.starts_with(needle)).expect(needle);
    assert!(at("%r7 = MOV") < at("%r12 = FMUL"), "{insts:#?}");
    assert!(insts[at("%r6 = MOV")].ends_with(".2"), "{insts:#?}");
    assert_eq!(summary, "6 scalar shared load(s) merged into 1 LDS.128 and 1 LDS.64");

    // A store between the loads, an index whose alignment is unknown, or a misaligned
    // start keeps them scalar.
    let stored = format!(
        "{decls}\n{frag}\n%r4 = LDS.F32 [%r3]\n%r5 = LDS.F32 [%r3 + 0x4]\nSTS [%r3], %r0\n\
         %r6 = LDS.F32 [%r3 + 0x8]\n%r7 = LDS.F32 [%r3 + 0xc]\n%r12 = FADD %r4, %r5\n%r13 = FADD %r6, %r7\n\
         %r14 = FADD %r12, %r13\nSTG.E [%rd0], %r14\nEXIT"
    );
    let (insts, _, _) = run_pass_with(globals, "vectorize", &stored);
    assert!(insts.iter().any(|i| i.ends_with("LDS.64 [%r3]")), "{insts:#?}");
    assert!(insts.iter().any(|i| i.ends_with("LDS.64 [%r3 + 0x8]")), "{insts:#?}");
    let unaligned = body.replace("%r2 = SHL %r1, 4", "%r2 = SHL %r1, 1");
    let (insts, summary, _) = run_pass_with(globals, "vectorize", &unaligned);
    assert_eq!(insts.iter().filter(|i| i.contains("LDS.F32")).count(), 6, "{insts:#?}");
    assert_eq!(summary, "no adjacent shared loads to merge");
    let odd = body.replace("[%r3]", "[%r3 + 0x4]").replace("[%r3 + 0x4]\n%r12", "[%r3 + 0x10]\n%r12");
    let (insts, _, _) = run_pass_with(globals, "vectorize", &odd);
    assert!(!insts.iter().any(|i| i.contains("LDS.128")), "{insts:#?}");
}

#[test]
fn schedule_fills_the_next_occupancy_step_when_the_target_is_out_of_reach() {
    use radbg::prepass::schedule::occupancy_fallback;
    // sm_80, 64 warps at ≤ 32 registers. Within reach, the target stays.
    assert_eq!(occupancy_fallback(32, 80, false, 30), 32);
    // sgemm_8x8 needs 90: 21 resident warps, which 96 registers still keep.
    assert_eq!(occupancy_fallback(32, 80, false, 90), 96);
    // softmax32's 42 (42 warps) → 48, ptxas's count.
    assert_eq!(occupancy_fallback(32, 80, false, 42), 48);
    // A budget is a cap, never given up.
    assert_eq!(occupancy_fallback(64, 80, true, 90), 64);

    // End to end: forty accumulators live through a block (no order frees them) that
    // loads twenty more values and adds them in; the latency schedule issues loads early
    // up to the step, not only up to 32.
    let mut body = String::from(".reg .R %r<200>\n.reg .R.x2 %rd<2>\nBB0:\n");
    for k in 0..40 {
        body.push_str(&format!("%r{k} = LDG.E [%rd0 + 0x{:x}]\n", 4 * k));
    }
    body.push_str("BB1:\n");
    for k in 0..20 {
        body.push_str(&format!("%r{} = LDG.E [%rd0 + 0x{:x}]\n", 100 + k, 0x1000 + 4 * k));
        body.push_str(&format!("%r{k} = FADD %r{k}, %r{}\n", 100 + k));
    }
    for k in 0..40 {
        body.push_str(&format!("STG.E [%rd0 + 0x{:x}], %r{k}\n", 0x2000 + 4 * k));
    }
    body.push_str("EXIT");
    let (_, before, after) = scheduled(&body, None);
    assert!(before + 3 > 40, "the test needs an unreachable target: peak {before}");
    let top = occupancy_fallback(32, 80, false, before + 3);
    assert!(after > before && after + 3 <= top, "peak {before} → {after}, step {top}");
}

#[test]
fn remat_computes_cheap_values_just_before_their_first_use() {
    // cub_block_reduce's shape: `tid + 128` and `tid + 256` computed at the top, used
    // after a store; tid stays live to the end, so both move down.
    let decls = ".reg .R %r<20>\n.reg .R.x2 %rd<2>\nBB0:";
    let body = format!(
        "{decls}\n%r0 = S2R SR_TID.X\n%r1 = IADD3 %r0, 128, RZ\n%r2 = IADD3 %r0, 256, RZ\n%r3 = SHL %r0, 2\n\
         %r4 = LDG.E [%rd0]\nSTS [%r3], %r4\n%r5 = SHL %r1, 2\nSTS [%r5], %r4\n%r6 = SHL %r2, 2\nSTS [%r6], %r0\nEXIT"
    );
    let (insts, summary, _) = run_pass("remat", &body);
    let at = |needle: &str| insts.iter().position(|i| i.starts_with(needle)).expect(needle);
    assert_eq!(at("%r1 = IADD3") + 1, at("%r5 = SHL"), "{insts:#?}");
    assert_eq!(at("%r2 = IADD3") + 1, at("%r6 = SHL"), "{insts:#?}");
    // A shift is cheap too: past the load, to its store.
    assert_eq!(at("%r3 = SHL") + 1, at("STS [%r3]"), "{insts:#?}");
    assert!(at("%r4 = LDG") < at("%r3 = SHL"), "{insts:#?}");
    assert!(summary.starts_with("3 cheap value(s) computed just before their first use"), "{summary}");

    // A chain moves together: the shift goes to its store, the add (read again later)
    // along to the shift.
    let chain = format!(
        "{decls}\n%r0 = S2R SR_TID.X\n%r1 = IADD3 %r0, 128, RZ\n%r2 = SHL %r1, 2\n%r4 = LDG.E [%rd0]\n\
         %r5 = LDG.E [%rd0 + 0x4]\nSTS [%r0], %r5\nSTS [%r2], %r4\nSTS [%r1], %r0\nEXIT"
    );
    let (insts, _, _) = run_pass("remat", &chain);
    let at = |needle: &str| insts.iter().position(|i| i.starts_with(needle)).expect(needle);
    assert_eq!((at("%r1 = IADD3") + 1, at("%r2 = SHL") + 1), (at("%r2 = SHL"), at("STS [%r2]")), "{insts:#?}");

    // Not when the source dies before the use (moving would only trade one register for
    // another), not past a redefinition, not for a large immediate or a non-cheap op.
    let dies = format!(
        "{decls}\n%r0 = S2R SR_TID.X\n%r1 = IADD3 %r0, 128, RZ\n%r4 = LDG.E [%rd0]\n%r7 = IADD3 %r4, 1, RZ\n\
         STS [%r7], %r4\nSTS [%r1], %r4\nEXIT"
    );
    let (insts, _, _) = run_pass("remat", &dies);
    assert_eq!(insts[1], "%r1 = IADD3 %r0, 128, RZ", "{insts:#?}");
    for cheap_not in ["%r1 = IADD3 %r0, 4096, RZ", "%r1 = IMAD %r0, %r0, RZ"] {
        let body = format!(
            "{decls}\n%r0 = S2R SR_TID.X\n{cheap_not}\n%r4 = LDG.E [%rd0]\nSTS [%r0], %r4\nSTS [%r1], %r0\nEXIT"
        );
        let (insts, summary, _) = run_pass("remat", &body);
        assert_eq!(insts[1], cheap_not, "{insts:#?}");
        assert_eq!(summary, "no cheap value to compute later");
    }
}

#[test]
fn vectorize_never_moves_a_load_above_a_read_of_its_old_value() {
    // In a loop, `%r5` is read (the previous iteration's value) before its one def:
    // merging it into a load at `%r4`'s place would overwrite it first.
    let globals = ".shared .align 4 tile[2048]";
    let body = ".reg .R %r<20>\n.reg .R.x2 %rd<2>\nBB0:\n%r3 = MOV tile\nBB1:\n%r4 = LDS.F32 [%r3]\n\
                %r9 = FADD %r5, %r4\n%r5 = LDS.F32 [%r3 + 0x4]\nSTG.E [%rd0], %r9\nBRA BB1";
    let (insts, summary, _) = run_pass_with(globals, "vectorize", body);
    assert_eq!(summary, "no adjacent shared loads to merge", "{insts:#?}");
}

/// A register-tiled product in PTX as NVVM writes it: a thread reads four floats of a
/// shared row one at a time (`[%r5]` .. `[%r5+12]`) and computes `tid + 128` at the top.
const FRAGMENT_PTX: &str = r#"
.version 8.5
.target sm_80
.address_size 64
.visible .entry frag(.param .u64 out)
{
    .reg .b32 %r<20>;
    .reg .f32 %f<20>;
    .reg .b64 %rd<8>;
    .shared .align 4 .b8 tile[2048];
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd2, %rd1;
    mov.u32 %r1, %tid.x;
    add.s32 %r9, %r1, 128;
    and.b32 %r2, %r1, 15;
    shl.b32 %r3, %r2, 4;
    mov.u32 %r4, tile;
    add.s32 %r5, %r4, %r3;
    ld.shared.f32 %f1, [%r5];
    ld.shared.f32 %f2, [%r5+4];
    ld.shared.f32 %f3, [%r5+8];
    ld.shared.f32 %f4, [%r5+12];
    mul.f32 %f5, %f1, %f2;
    fma.rn.f32 %f6, %f3, %f4, %f5;
    mul.wide.u32 %rd5, %r9, 4;
    add.s64 %rd6, %rd2, %rd5;
    st.global.f32 [%rd6], %f5;
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd4, %rd2, %rd3;
    st.global.f32 [%rd4], %f6;
    ret;
}
"#;

#[test]
fn vectorize_and_remat_run_through_the_whole_pipeline_with_the_checker_passing() {
    let file = radbg::ir::span::SourceFile::new("frag.ptx", FRAGMENT_PTX.to_string());
    let imp = radbg::ir::ptx::import(&file);
    let m = imp
        .module
        .unwrap_or_else(|| panic!("imports: {:?}", imp.diags.iter().map(|d| d.render(&file)).collect::<Vec<_>>()));
    for budget in [None, Some(32)] {
        let opts = RunOptions { imported: true, maxrregcount: budget, ..RunOptions::default() };
        let mut mach = Machine::new(m.clone(), opts);
        let mut events = Vec::new();
        while let Some(e) = mach.step() {
            if let EventKind::Prepass { pass, summary } = &e.kind {
                events.push(format!("{pass}: {summary}"));
            }
        }
        let has = |p: &str| events.iter().any(|e| e.starts_with(p));
        assert!(has("vectorize: 4 scalar shared load(s) merged into 1 LDS.128"), "{events:#?}");
        assert!(has("remat: 1 cheap value(s) computed just before their first use: %r9"), "{events:#?}");
        let r = &mach.funcs[0];
        let a = r.alloc.as_ref().expect("allocated");
        assert!(a.failure().is_none(), "{:?}", a.failure());
        assert_eq!(r.check_errors.as_deref(), Some(&[][..]), "checker");
    }
}

#[test]
fn the_latency_schedule_never_aims_above_the_launch_bounds() {
    use radbg::prepass::schedule::latency_target;
    // deepspeed's dequant_reduce shape: `.maxntid 1024` leaves 64 registers; a function
    // that needs 67 was scheduled up to the next occupancy step, 72, and spilled.
    let ptx = |bounds: &str| {
        format!(
            ".version 8.8\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 p){bounds}\n{{\n\
             .reg .b64 %rd<2>;\nld.param.u64 %rd1, [p];\nret;\n}}\n"
        )
    };
    let (m, _) = radbg::ir::ptx::import_str("k.ptx", &ptx("\n.maxntid 1024, 1, 1")).expect("imports");
    let cap = radbg::alloc::budget::prepass_cap(&m, &m.functions[0]);
    assert_eq!(cap, Some(64));
    let ctx = radbg::prepass::PassCtx { module: &m, sm: &m.sm, maxrregcount: None, cap };
    assert_eq!(latency_target(&ctx, 67), 64);
    let free = radbg::prepass::PassCtx { module: &m, sm: &m.sm, maxrregcount: None, cap: None };
    assert_eq!(latency_target(&free, 67), 72);
    // Without launch bounds there is no cap.
    let (m, _) = radbg::ir::ptx::import_str("k.ptx", &ptx("")).expect("imports");
    assert_eq!(radbg::alloc::budget::prepass_cap(&m, &m.functions[0]), None);
}
