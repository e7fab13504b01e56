//! Hand-built allocations of Ori IR functions for the independent checker: valid ones
//! pass, and each rule broken on purpose is reported with the right vreg, point and
//! register. Function text is the body of `.entry test` (see `check_util::func`).

mod check_util;

use check_util::Fixture;
use radbg::alloc::check::{CheckError, SlotContent, SpillSlotInfo};
use radbg::ir::{FuncKind, Function, Inst, Opcode, Operand, RegFile, VRegId};

/// The one data-driven helper: the checker's report, one error per line, must be
/// exactly `expected` (empty for a valid allocation).
fn check(fx: Fixture, expected: &str) {
    let got = fx.report();
    let want: String = expected.lines().map(str::trim).filter(|l| !l.is_empty()).map(|l| format!("{l}\n")).collect();
    assert_eq!(got, want, "\n--- got ---\n{got}--- want ---\n{want}");
}

const STRAIGHT: &str = "
  .reg .R %r<3>
  .reg .R.x2 %rd0
BB0:
  %r0 = S2R SR_TID.X
  %r1 = IADD3 %r0, 1, 0
  %r2 = IADD3 %r0, %r1, 0
  STG.E [%rd0], %r2
  EXIT
";

// ---- valid allocations ------------------------------------------------------------

#[test]
fn own_registers_pass() {
    check(Fixture::new(STRAIGHT).own_registers(), "");
}

#[test]
fn reuse_after_death_passes() {
    // %r1 dies at point 2, whose def %r2 may take its register; %r0 dies there too.
    check(Fixture::new(STRAIGHT).assign("%r0=R0 %r1=R1 %r2=R1 %rd0=R2"), "");
}

#[test]
fn dying_source_shares_with_def() {
    let src = "
      .reg .R %r<2>
    BB0:
      %r0 = S2R SR_TID.X
      %r1 = IADD3 %r0, 1, 0
      STG.E [R2], %r1
      EXIT
    ";
    check(Fixture::new(src).assign("%r0=R4 %r1=R4"), "");
}

#[test]
fn barrier_vregs_need_no_register() {
    let src = "
      .reg .B %b0
    BB0:
      %b0 = BMOV 3
      BSYNC %b0
      EXIT
    ";
    check(Fixture::new(src), "");
}

#[test]
fn empty_function_and_empty_blocks_pass() {
    // The validator refuses a function without blocks; the checker takes it anyway.
    check(Fixture::of(Function::new("empty", FuncKind::Device)), "");
    let src = "
      .reg .R %r0
    BB0:
    BB1:
      %r0 = S2R SR_TID.X
    BB2:
    BB3:
      STG.E [R2], %r0
      EXIT
    ";
    check(Fixture::new(src).assign("%r0=R0"), "");
}

#[test]
fn alias_chain_shares_a_register() {
    let src = "
      .reg .R %r<2>
      .alias %r1 = %r0
    BB0:
      %r0 = S2R SR_TID.X
      %r1 = IADD3 %r0, 1, 0
      STG.E [R2], %r0
      STG.E [R2], %r1
      EXIT
    ";
    // The alias takes its parent's register when it has none of its own.
    check(Fixture::new(src).assign("%r0=R6"), "");
    check(Fixture::new(src).assign("%r0=R6 %r1=R6"), "");
    check(
        Fixture::new(src).assign("%r0=R6 %r1=R7"),
        "point 1 (BB0:1): %r1 is an alias of %r0 but sits at R7, not at R6",
    );
}

// ---- rule 1: live vregs are assigned -----------------------------------------------

#[test]
fn unassigned_live_vreg() {
    check(Fixture::new(STRAIGHT).own_registers().assign("%r1=-"), "point 1 (BB0:1): %r1 is live but has no register");
}

#[test]
fn unassigned_dead_def_and_undefined_use() {
    let src = "
      .reg .R %r<2>
    BB0:
      %r0 = S2R SR_TID.X
      STG.E [R2], %r1
      EXIT
    ";
    check(
        Fixture::new(src),
        "
        point 0 (BB0:0): %r0 is live but has no register
        point 1 (BB0:1): %r1 is live but has no register
        ",
    );
}

// ---- rule 2: width, alignment, limits ----------------------------------------------

#[test]
fn misaligned_pair_and_quad() {
    let src = "
      .reg .R.x2 %rd0
      .reg .R.x4 %q0
    BB0:
      %rd0 = LDC.64 c[0x0][0x160]
      %q0 = LDG.E.128 [%rd0]
      STG.E.128 [%rd0], %q0
      EXIT
    ";
    check(Fixture::new(src).assign("%rd0=R0 %q0=R4"), "");
    check(
        Fixture::new(src).assign("%rd0=R3 %q0=R6"),
        "
        point 0 (BB0:0): %rd0 (2 registers) starts at R3, which is not a multiple of 2
        point 1 (BB0:1): %q0 (4 registers) starts at R6, which is not a multiple of 4
        ",
    );
}

#[test]
fn file_end_budget_and_zero_register() {
    let src = "
      .reg .R.x2 %rd0
      .reg .R %r0
      .reg .UR %u0
      .reg .P %p0
      .reg .R.x4 %q0
    BB0:
      %rd0 = LDC.64 c[0x0][0x160]
      %r0 = S2R SR_TID.X
      %u0 = S2UR SR_CTAID.X
      %p0 = ISETP.GE.AND %r0, %u0, PT
      %q0 = LDG.E.128 [%rd0]
      @%p0 STG.E [%rd0], %r0
      STG.E.128 [%rd0], %q0
      EXIT
    ";
    check(Fixture::new(src).assign("%rd0=R0 %r0=R2 %u0=UR0 %p0=P0 %q0=R4").budget(RegFile::R, 8), "");
    check(
        Fixture::new(src).assign("%rd0=R254 %r0=R40 %u0=URZ %p0=PT %q0=R252").budget(RegFile::R, 32),
        "
        point 0 (BB0:0): %rd0 at R254..RZ is beyond the budget of 32 R registers
        point 0 (BB0:0): %rd0 occupies the zero register RZ
        point 1 (BB0:1): %r0 at R40 is beyond the budget of 32 R registers
        point 2 (BB0:2): %u0 occupies the zero register URZ
        point 3 (BB0:3): %p0 occupies the zero register PT
        point 4 (BB0:4): %rd0 and %q0 both live in R254 (after the instruction)
        point 4 (BB0:4): %q0 at R252..RZ is beyond the budget of 32 R registers
        point 4 (BB0:4): %q0 occupies the zero register RZ
        ",
    );
    // Past the end of the file: a uniform quad at UR64 runs to UR67.
    let src = "
      .reg .UR.x4 %u0
    BB0:
      %u0 = S2UR SR_CTAID.X
      STG.E [R2], %u0
      EXIT
    ";
    check(Fixture::new(src).assign("%u0=UR60"), "point 0 (BB0:0): %u0 occupies the zero register URZ");
    check(
        Fixture::new(src).assign("%u0=UR64"),
        "point 0 (BB0:0): %u0 at UR64..UR67 runs past the end of the UR file (64 registers)",
    );
}

// ---- rule 3: no overlap --------------------------------------------------------------

#[test]
fn overlap_of_live_vregs() {
    check(
        Fixture::new(STRAIGHT).assign("%r0=R0 %r1=R0 %r2=R1 %rd0=R2"),
        "point 1 (BB0:1): %r0 and %r1 both live in R0 (after the instruction)",
    );
}

#[test]
fn overlap_counts_whole_ranges() {
    // A quad at R4..R7 overlaps a single at R6.
    let src = "
      .reg .R.x4 %q0
      .reg .R %r0
    BB0:
      %q0 = LDG.E.128 [R2]
      %r0 = S2R SR_TID.X
      STG.E.128 [R2], %q0
      STG.E [R2], %r0
      EXIT
    ";
    check(
        Fixture::new(src).assign("%q0=R4 %r0=R6"),
        "point 1 (BB0:1): %q0 and %r0 both live in R6 (after the instruction)",
    );
}

#[test]
fn dead_def_still_occupies_its_register() {
    let src = "
      .reg .R %r<2>
    BB0:
      %r0 = S2R SR_TID.X
      %r1 = S2R SR_LANEID
      STG.E [R2], %r0
      EXIT
    ";
    check(
        Fixture::new(src).assign("%r0=R0 %r1=R0"),
        "point 1 (BB0:1): %r0 and %r1 both live in R0 (after the instruction)",
    );
}

#[test]
fn two_dead_defs_of_one_instruction_conflict() {
    let src = "
      .reg .R %r0
      .reg .P %p0
    BB0:
      %r0, %p0 = IADD3 R4, 1, 0
      EXIT
    ";
    check(Fixture::new(src).assign("%r0=R0 %p0=P0"), "");
    let src = "
      .reg .R %r<2>
    BB0:
      %r0, %r1 = IADD3 R4, 1, 0
      EXIT
    ";
    check(
        Fixture::new(src).assign("%r0=R0 %r1=R0"),
        "point 0 (BB0:0): %r0 and %r1 both live in R0 (after the instruction)",
    );
}

#[test]
fn files_are_separate() {
    let src = "
      .reg .R %r0
      .reg .UR %u0
      .reg .P %p0
    BB0:
      %r0 = S2R SR_TID.X
      %u0 = S2UR SR_CTAID.X
      %p0 = ISETP.GE.AND %r0, %u0, PT
      @%p0 STG.E [R2], %r0
      EXIT
    ";
    check(Fixture::new(src).assign("%r0=R0 %u0=UR0 %p0=P0"), "");
}

#[test]
fn predicated_def_does_not_end_the_old_value() {
    let src = "
      .reg .R %r<2>
      .reg .P %p0
    BB0:
      %r0 = S2R SR_TID.X
      %p0 = ISETP.GE.AND %r0, 1, PT
      %r1 = S2R SR_LANEID
      @%p0 %r0 = MOV %r1
      STG.E [R2], %r0
      EXIT
    ";
    // %r0's value survives the guarded MOV, so it overlaps %r1 from %r1's def on.
    check(
        Fixture::new(src).assign("%r0=R0 %r1=R0 %p0=P0"),
        "point 2 (BB0:2): %r0 and %r1 both live in R0 (after the instruction)",
    );
    // Unguarded, the MOV ends %r0's old value (dead since point 1) and %r1 may share
    // its register.
    let plain = src.replace("@%p0 %r0 = MOV", "%r0 = MOV");
    check(Fixture::new(&plain).assign("%r0=R0 %r1=R0 %p0=P0"), "");
}

#[test]
fn component_def_does_not_end_the_pair() {
    let src = "
      .reg .R.x2 %rd0
      .reg .R %r0
    BB0:
      %rd0 = LDC.64 c[0x0][0x160]
      %r0 = S2R SR_TID.X
      %rd0.lo = IADD3 %r0, 1, 0
      STG.E [%rd0], %r0
      EXIT
    ";
    check(Fixture::new(src).assign("%rd0=R0 %r0=R2"), "");
    check(
        Fixture::new(src).assign("%rd0=R0 %r0=R1"),
        "point 1 (BB0:1): %rd0 and %r0 both live in R1 (after the instruction)",
    );
}

#[test]
fn overlap_across_a_diamond() {
    // %r1 is live around the diamond; %r2 lives only in BB1, %r3 only in BB2.
    let src = "
      .reg .R %r<4>
      .reg .P %p0
    BB0:
      %r0 = S2R SR_TID.X
      %r1 = S2R SR_LANEID
      %p0 = ISETP.GE.AND %r0, 1, PT
      @%p0 BRA BB2
    BB1:
      %r2 = IADD3 %r0, 1, 0
      STG.E [R2], %r2
      BRA BB3
    BB2:
      %r3 = IADD3 %r0, 2, 0
      STG.E [R2], %r3
    BB3:
      STG.E [R2], %r1
      EXIT
    ";
    check(Fixture::new(src).assign("%r0=R8 %r1=R9 %r2=R10 %r3=R10 %p0=P0"), "");
    check(
        Fixture::new(src).assign("%r0=R8 %r1=R9 %r2=R10 %r3=R9 %p0=P0"),
        "point 7 (BB2:0): %r1 and %r3 both live in R9 (after the instruction)",
    );
}

#[test]
fn exit_live_values_stay_live_to_the_exit() {
    let src = "
      .reg .R %r<2>
    BB0:
      %r0 = S2R SR_TID.X
      %r1 = S2R SR_LANEID
      STG.E [R2], %r1
      RET
    ";
    check(Fixture::new(src).assign("%r0=R0 %r1=R0"), "");
    check(
        Fixture::new(src).assign("%r0=R0 %r1=R0").exit_live("%r0"),
        "point 1 (BB0:1): %r0 and %r1 both live in R0 (after the instruction)",
    );
}

// ---- rule 4: fixed registers and pins ------------------------------------------------

#[test]
fn fixed_register_is_never_occupied() {
    check(Fixture::new(STRAIGHT).assign("%r0=R4 %r1=R5 %r2=R6 %rd0=R8").fixed("R0 R1 R2 R3"), "");
    check(
        Fixture::new(STRAIGHT).assign("%r0=R4 %r1=R5 %r2=R6 %rd0=R0").fixed("R0 R1 R2 R3"),
        "
        point 3 (BB0:3): %rd0 occupies fixed register R0
        point 3 (BB0:3): %rd0 occupies fixed register R1
        ",
    );
}

#[test]
fn pins_hold() {
    // own_registers: %r0=R8 %r1=R9 %r2=R10 %rd0=R12.
    let fx = Fixture::new(STRAIGHT).own_registers();
    check(fx.clone().pin("%r0=R8"), "");
    check(fx.clone().pin("%r1=R7"), "point 1 (BB0:1): %r1 is pinned to R7 but sits at R9");
    check(
        fx.pin("%r2=R10").assign("%r2=-"),
        "
        point 2 (BB0:2): %r2 is live but has no register
        point 2 (BB0:2): %r2 is pinned to R10 but has no register
        ",
    );
    // A `.pin` in the IR counts too.
    let ir = STRAIGHT.replace(".reg .R.x2 %rd0", ".reg .R.x2 %rd0\n.pin %r2 = R12");
    check(Fixture::new(&ir).own_registers(), "point 2 (BB0:2): %r2 is pinned to R12 but sits at R10");
}

// ---- rule 5: physical register operands ----------------------------------------------

#[test]
fn physical_operands_are_free() {
    let src = "
      .reg .R %r<2>
    BB0:
      %r0 = S2R SR_TID.X
      R4 = MOV 7
      %r1 = IADD3 %r0, R5, 0
      STG.E [R1 + 0x10], %r1
      EXIT
    ";
    check(Fixture::new(src).assign("%r0=R0 %r1=R0"), "");
    check(
        Fixture::new(src).assign("%r0=R4 %r1=R5"),
        "point 1 (BB0:1): the instruction writes R4 while %r0 occupies it",
    );
    check(Fixture::new(src).assign("%r0=R5 %r1=R6"), "point 2 (BB0:2): the instruction reads R5 while %r0 occupies it");
    // An address register is a read too.
    check(Fixture::new(src).assign("%r0=R0 %r1=R1"), "point 3 (BB0:3): the instruction reads R1 while %r1 occupies it");
}

#[test]
fn physical_guard_is_a_read() {
    let src = "
      .reg .P %p0
    BB0:
      %p0 = ISETP.GE.AND R4, 1, PT
      @P0 STG.E [R2], R3
      STG.E [R2], R3
      @%p0 EXIT
      EXIT
    ";
    check(Fixture::new(src).assign("%p0=P1"), "");
    check(Fixture::new(src).assign("%p0=P0"), "point 1 (BB0:1): the instruction reads P0 while %p0 occupies it");
}

// ---- rule 6: spill code --------------------------------------------------------------

/// %r1 spilled to local[0x10]: stored after its def, reloaded into %t0 / %t1 before
/// each use. Points: BB0 0-4, BB1 5-7, BB2 8, BB3 9-12.
const SPILLED: &str = "
  .reg .R %r<2>
  .reg .P %p0
  .reg .R %t<2>
BB0:
  %r0 = S2R SR_TID.X
  %r1 = IADD3 %r0, 1, 0
  STL.SPILL [R1 + 0x10], %r1
  %p0 = ISETP.GE.AND %r0, 1, PT
  @%p0 BRA BB2
BB1:
  %t0 = LDL.SPILL [R1 + 0x10]
  STG.E [R2], %t0
  BRA BB3
BB2:
  %r0 = IADD3 %r0, 4, 0
BB3:
  %t1 = LDL.SPILL [R1 + 0x10]
  STG.E [R2], %t1
  STG.E [R2], %r0
  EXIT
";

fn spilled(src: &str) -> Fixture {
    Fixture::new(src).own_registers().spill("%r1", false, 0x10, 4, "%t0 %t1")
}

#[test]
fn valid_spill_code_passes() {
    check(spilled(SPILLED), "");
}

#[test]
fn reload_from_the_wrong_slot() {
    let wrong = SPILLED.replace("%t1 = LDL.SPILL [R1 + 0x10]", "%t1 = LDL.SPILL [R1 + 0x20]");
    check(
        spilled(&wrong).spill("%r0", false, 0x20, 4, ""),
        "point 9 (BB3:0): reload of %t1 (temp of %r1) from local[0x20]: the slot is not written on some path to here",
    );
    // The other slot does hold a value, but of another vreg: a stale %r0 on the path
    // through BB2 (which redefines %r0), the current %r0 on the other — never %r1.
    let other = wrong.replace("%p0 = ISETP", "STL.SPILL [R1 + 0x20], %r0\n%p0 = ISETP");
    let errs = spilled(&other).spill("%r0", false, 0x20, 4, "").errors();
    assert_eq!(errs.len(), 1, "{errs:?}");
    match &errs[0] {
        CheckError::BadReload { temp, of, found: SlotContent::Stale(v), .. } => {
            assert_eq!((temp.name.as_str(), of.name.as_str(), v.name.as_str()), ("%t1", "%r1", "%r0"));
        }
        e => panic!("unexpected {e}"),
    }
}

#[test]
fn reload_of_another_vregs_value() {
    let src = "
      .reg .R %r<2>
      .reg .R %t0
    BB0:
      %r0 = S2R SR_TID.X
      %r1 = S2R SR_LANEID
      STL.SPILL [R1 + 0x0], %r0
      STL.SPILL [R1 + 0x4], %r1
      %t0 = LDL.SPILL [R1 + 0x4]
      STG.E [R2], %t0
      EXIT
    ";
    let fx = Fixture::new(src).own_registers().spill("%r0", false, 0, 4, "%t0").spill("%r1", false, 4, 4, "");
    check(fx, "point 4 (BB0:4): reload of %t0 (temp of %r0) from local[0x4]: the slot holds %r1 (component 0)");
}

#[test]
fn reload_after_redefinition_without_store() {
    let src = SPILLED.replace("%r0 = IADD3 %r0, 4, 0", "%r1 = IADD3 %r0, 4, 0");
    check(
        spilled(&src),
        "point 9 (BB3:0): reload of %t1 (temp of %r1) from local[0x10]: %r1 was redefined after its last store to the slot",
    );
    // Storing again after the redefinition repairs it.
    let src = SPILLED.replace("%r0 = IADD3 %r0, 4, 0", "%r1 = IADD3 %r0, 4, 0\nSTL.SPILL [R1 + 0x10], %r1");
    check(spilled(&src), "");
}

#[test]
fn reload_on_a_path_where_the_slot_was_never_written() {
    // The store moves into BB1, so the path through BB2 reaches the reload in BB3 with an
    // empty slot.
    let src = SPILLED
        .replace("STL.SPILL [R1 + 0x10], %r1\n", "")
        .replace("%t0 = LDL.SPILL [R1 + 0x10]", "STL.SPILL [R1 + 0x10], %r1\n%t0 = LDL.SPILL [R1 + 0x10]");
    check(
        spilled(&src),
        "point 9 (BB3:0): reload of %t1 (temp of %r1) from local[0x10]: the slot is not written on some path to here",
    );
}

/// A value defined on one path only (NVVM's if-else joins and loop heads): on the other
/// path the program reads an undefined value, so the empty slot there is no error (issue
/// 22, found on real kernels). A def without its store on that path still is, and so is
/// an empty word of another vreg's slot.
#[test]
fn reload_of_a_value_undefined_on_some_path() {
    let src = "
      .reg .R %r<2>
      .reg .P %p0
      .reg .R %t0
    BB0:
      %r0 = S2R SR_TID.X
      %p0 = ISETP.GE.AND %r0, 1, PT
      @%p0 BRA BB2
    BB1:
      %r1 = IADD3 %r0, 1, 0
      STL.SPILL [R1 + 0x10], %r1
    BB2:
      %t0 = LDL.SPILL [R1 + 0x10]
      STG.E [R2], %t0
      EXIT
    ";
    let fx = |s: &str| Fixture::new(s).own_registers().spill("%r1", false, 0x10, 4, "%t0");
    check(fx(src), "");
    let unstored = src.replace("STL.SPILL [R1 + 0x10], %r1\n", "");
    check(
        fx(&unstored),
        "point 4 (BB2:0): reload of %t0 (temp of %r1) from local[0x10]: the slot is not written on some path to here",
    );
    // A reload from a slot of another vreg (%r0's, never stored) is wrong on every path.
    let other = src.replace("%t0 = LDL.SPILL [R1 + 0x10]", "%t0 = LDL.SPILL [R1 + 0x20]");
    check(
        fx(&other).spill("%r0", false, 0x20, 4, ""),
        "point 5 (BB2:0): reload of %t0 (temp of %r1) from local[0x20]: the slot is not written on some path to here",
    );
}

/// A reload in a block no path from the entry reaches never executes: it is not an error,
/// whatever the slot holds (found by the allocator's property test: spill code in dead
/// blocks of a random module was rejected). A reachable reload on a bad path still is.
#[test]
fn reloads_in_unreachable_blocks_are_not_checked() {
    let src = "
      .reg .R %r1
      .reg .R %t<2>
    BB0:
      %r1 = S2R SR_TID.X
      STL.SPILL [R1 + 0x8], %r1
      BRA BB2
    BB1:
      %t0 = LDL.SPILL [R1 + 0x8]
      STG.E [R2], %t0
      BRA BB0
    BB2:
      %t1 = LDL.SPILL [R1 + 0x8]
      STG.E [R2], %t1
      EXIT
    ";
    let fx = |s: &str| Fixture::new(s).own_registers().spill("%r1", false, 8, 4, "%t0 %t1");
    check(fx(src), "");
    // The same reload made reachable by a branch from the entry, before the store.
    let reachable = src.replace("%r1 = S2R SR_TID.X\n", "%r1 = S2R SR_TID.X\n      @PT BRA BB1\n    BBS:\n");
    check(
        fx(&reachable),
        "point 4 (BB1:0): reload of %t0 (temp of %r1) from local[0x8]: the slot is not written on some path to here",
    );
}

#[test]
fn paths_disagree_on_the_slot() {
    // Both paths write the slot, but with different vregs.
    let src = SPILLED.replace("%r0 = IADD3 %r0, 4, 0", "%r0 = IADD3 %r0, 4, 0\nSTL.SPILL [R1 + 0x10], %r0");
    check(
        spilled(&src),
        "point 10 (BB3:0): reload of %t1 (temp of %r1) from local[0x10]: the paths to here leave different values in the slot",
    );
}

#[test]
fn spill_in_a_loop() {
    // The loop redefines %r1 and stores it again before the back edge: valid. Without
    // the store the reload at the loop head sees a stale value on the back edge.
    let src = "
      .reg .R %r1
      .reg .R %t0
      .reg .P %p0
    BB0:
      %r1 = S2R SR_TID.X
      STL.SPILL [R1 + 0x8], %r1
    BB1:
      %t0 = LDL.SPILL [R1 + 0x8]
      %r1 = IADD3 %t0, 1, 0
      STL.SPILL [R1 + 0x8], %r1
      %p0 = ISETP.GE.AND %r1, 9, PT
      @%p0 BRA BB1
    BB2:
      EXIT
    ";
    let fx = |s: &str| Fixture::new(s).own_registers().spill("%r1", false, 8, 4, "%t0");
    check(fx(src), "");
    let broken = src.replace("%r1 = IADD3 %t0, 1, 0\n      STL.SPILL [R1 + 0x8], %r1", "%r1 = IADD3 %t0, 1, 0");
    check(
        fx(&broken),
        "point 2 (BB1:0): reload of %t0 (temp of %r1) from local[0x8]: %r1 was redefined after its last store to the slot",
    );
}

#[test]
fn wide_and_shared_spills() {
    let src = "
      .reg .R.x2 %rd0
      .reg .UR %u0
      .reg .R.x2 %rd9
      .reg .R.x2 %t0
    BB0:
      %rd0 = LDC.64 c[0x0][0x160]
      STS.SPILL [0x40], %rd0
      %u0 = S2UR SR_CTAID.X
      %rd9 = LDS.SPILL [0x40]
      %t0.hi = LDS.SPILL [HI]
      %t0.lo = LDS.SPILL [LO]
      STG.E [%rd9], %t0
      EXIT
    ";
    let fx = |hi: &str, lo: &str| {
        Fixture::new(&src.replace("HI", hi).replace("LO", lo)).own_registers().spill("%rd0", true, 0x40, 8, "%rd9 %t0")
    };
    // Each half reads the right component, but %t0 is defined twice (once per half):
    // the checker wants one reload per temporary.
    check(fx("0x44", "0x40"), "point 4 (BB0:4): reload temporary %t0 of %rd0 has 2 definitions, expected exactly one");
    // Halves swapped: the high word is read into the low half and vice versa.
    check(
        fx("0x40", "0x44"),
        "
        point 4 (BB0:4): reload of %t0 (temp of %rd0) from shared[0x40]: the slot holds %rd0 (component 0)
        point 4 (BB0:4): reload temporary %t0 of %rd0 has 2 definitions, expected exactly one
        point 5 (BB0:5): reload of %t0 (temp of %rd0) from shared[0x44]: the slot holds %rd0 (component 1)
        ",
    );
}

#[test]
fn reload_reads_the_right_half() {
    let src = "
      .reg .R.x2 %rd0
      .reg .R %t<2>
    BB0:
      %rd0 = LDC.64 c[0x0][0x160]
      STL.SPILL [R1 + 0x0], %rd0
      %t0 = LDL.SPILL [R1 + 0x4]
      %t1 = LDL.SPILL [R1 + 0x0]
      STG.E [R2], %t0
      STG.E [R2], %t1
      EXIT
    ";
    // 32-bit temporaries of a pair: the position in the slot decides the component.
    check(Fixture::new(src).own_registers().spill("%rd0", false, 0, 8, "%t0 %t1"), "");
    // A local access to a slot that is in shared memory is no access to it.
    check(
        Fixture::new(src).own_registers().spill("%rd0", true, 0, 8, "%t0 %t1"),
        "
        point 1 (BB0:1): spill store to local[0x0], which is in no spill slot
        point 2 (BB0:2): spill reload from local[0x4], which is in no spill slot
        point 3 (BB0:3): spill reload from local[0x0], which is in no spill slot
        ",
    );
}

#[test]
fn temporaries_are_reloaded_once_before_their_uses() {
    let src = "
      .reg .R %r1
      .reg .R %t<3>
    BB0:
      %r1 = S2R SR_TID.X
      STL.SPILL [R1 + 0x10], %r1
      %t0 = LDL.SPILL [R1 + 0x10]
      %t1 = MOV %r1
    BB1:
      STG.E [R2], %t0
      %t2 = LDL.SPILL [R1 + 0x10]
      %t2 = LDL.SPILL [R1 + 0x10]
      STG.E [R2], %t1
      STG.E [R2], %t2
      EXIT
    ";
    check(
        Fixture::new(src).own_registers().spill("%r1", false, 0x10, 4, "%t0 %t1 %t2"),
        "
        point 3 (BB0:3): reload temporary %t1 of %r1 is defined by an instruction that is not a spill reload
        point 4 (BB1:0): use of reload temporary %t0 of %r1 is not preceded by its reload (point 2 (BB0:2)) in its block
        point 5 (BB1:1): reload temporary %t2 of %r1 has 2 definitions, expected exactly one
        point 7 (BB1:3): use of reload temporary %t1 of %r1 is not preceded by its reload (point 3 (BB0:3)) in its block
        ",
    );
}

#[test]
fn reload_into_a_vreg_that_is_no_temporary() {
    let src = "
      .reg .R %r<3>
    BB0:
      %r1 = S2R SR_TID.X
      STL.SPILL [R1 + 0x10], %r1
      %r2 = LDL.SPILL [R1 + 0x10]
      %r1 = LDL.SPILL [R1 + 0x10]
      STG.E [R2], %r2
      STG.E [R2], %r1
      EXIT
    ";
    // Reloading the spilled vreg itself is fine; a vreg that is neither is reported.
    check(
        Fixture::new(src).own_registers().spill("%r1", false, 0x10, 4, ""),
        "point 2 (BB0:2): spill reload defines %r2, which is neither a spilled vreg nor a reload temporary",
    );
}

// ---- rule 7: all violations, in order, never a panic ---------------------------------

#[test]
fn all_violations_in_point_then_vreg_order() {
    let fx = Fixture::new(STRAIGHT).assign("%r0=R0 %r1=R0 %r2=R0 %rd0=R1").fixed("R1").pin("%r2=R3");
    check(
        fx,
        "
        point 1 (BB0:1): %r0 and %r1 both live in R0 (after the instruction)
        point 2 (BB0:2): %r2 is pinned to R3 but sits at R0
        point 3 (BB0:3): %rd0 (2 registers) starts at R1, which is not a multiple of 2
        point 3 (BB0:3): %rd0 occupies fixed register R1
        ",
    );
}

#[test]
fn everything_in_one_register_is_bounded() {
    // 600 co-live vregs in R0: 179700 overlapping pairs, more than the checker lists.
    let n = 600;
    let mut src = format!(".reg .R %r<{n}>\nBB0:\n");
    for i in 0..n {
        src += &format!("%r{i} = S2R SR_TID.X\n");
    }
    for i in 0..n {
        src += &format!("STG.E [R2], %r{i}\n");
    }
    src += "EXIT\n";
    let mut fx = Fixture::new(&src);
    fx.slot = vec![Some(0); n];
    let errs = fx.errors();
    assert_eq!(errs.len(), radbg::alloc::check::MAX_OVERLAPS + 1);
    assert_eq!(
        errs[0].to_string(),
        "more than 100000 pairs of vregs share registers; only the first 100000 found are listed"
    );
}

#[test]
fn malformed_input_is_reported_not_a_panic() {
    let mut fx = Fixture::new(STRAIGHT).own_registers();
    let (r0, r1) = (fx.id("%r0"), fx.id("%r1"));
    fx.f.vregs[r0.index()].alias = Some(r1);
    fx.f.vregs[r1.index()].alias = Some(r0);
    fx.slot.pop();
    fx.pins.push((VRegId(999), 3));
    fx.exit_live.push(VRegId(77));
    fx.fixed.push((RegFile::P, 9));
    fx.spills.push(SpillSlotInfo { vreg: VRegId(500), shared: false, offset: 0, bytes: 4, temps: vec![] });
    fx.spills.push(SpillSlotInfo { vreg: r0, shared: false, offset: 0, bytes: u32::MAX, temps: vec![VRegId(600)] });
    let text: Vec<String> = fx.errors().iter().map(|e| e.to_string()).collect();
    for want in [
        "malformed input: the register table has 3 entries for 4 vregs",
        "malformed input: pin of vreg#999 (out of range) to 3",
        "malformed input: exit-live vreg#77 is out of range",
        "malformed input: fixed register P9 is outside its file",
        "malformed input: the alias chain of %r0 is a cycle",
        "malformed input: spill slot 0 is for vreg#500, which does not exist",
        "malformed input: reload temporary vreg#600 of %r0 does not exist",
        "malformed input: spill slot of %r0 is 4294967295 bytes (more than 4096)",
        "point 3 (BB0:3): %rd0 is live but has no register",
    ] {
        assert!(text.iter().any(|t| t == want), "missing {want:?} in {text:#?}");
    }
}

#[test]
fn operands_out_of_range_do_not_panic() {
    let mut fx = Fixture::new(STRAIGHT).own_registers();
    // Instructions naming vregs that do not exist, a spill store of one, a spill reload
    // without a destination and one without an address.
    let mov = Inst::new(Opcode::named("MOV"), vec![Operand::vreg(VRegId(40))], vec![Operand::vreg(VRegId(41))]);
    let mut stl = Inst::new(Opcode::named("STL"), vec![], vec![Operand::vreg(VRegId(42))]);
    stl.mods = ".SPILL".into();
    let mut ldl = Inst::new(Opcode::named("LDL"), vec![], vec![]);
    ldl.mods = ".SPILL".into();
    fx.f.blocks[0].insts.splice(1..1, [mov, stl, ldl]);
    fx.slot = vec![Some(300); 2];
    fx.spills.push(SpillSlotInfo { vreg: VRegId(0), shared: false, offset: 0, bytes: 4, temps: vec![VRegId(0)] });
    // Extreme offsets and a zero width.
    let src = "
      .reg .R %r0
      .reg .R %t0
    BB0:
      %r0 = S2R SR_TID.X
      STL.SPILL [R1 + 0x10], %r0
      %t0 = LDL.SPILL [R1 + 0x10]
      STG.E [R2], %t0
      EXIT
    ";
    for off in [i64::MAX, i64::MIN, -4] {
        let mut x = Fixture::new(src).own_registers().spill("%r0", false, 0x10, 4, "%t0");
        for inst in &mut x.f.blocks[0].insts[1..3] {
            for op in &mut inst.operands {
                if let Operand::Mem(m) = op {
                    m.offset = off;
                }
            }
        }
        x.f.vregs[1].width = 0;
        assert!(!x.errors().is_empty());
    }
    let errs = fx.errors();
    assert!(
        errs.iter().any(|e| e.to_string() == "point 2 (BB0:2): malformed input: spill store without a memory operand")
    );
    assert!(
        errs.iter().any(|e| e.to_string() == "point 3 (BB0:3): malformed input: spill reload without a memory operand")
    );
}
