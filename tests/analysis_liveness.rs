//! Liveness tests on hand-computed examples: straight line, diamond, loops,
//! irreducible flow, calls, pairs, predicated and component defs, pressure.

mod analysis_builder;

use analysis_builder::{func, v};
use radbg::analysis::{LiveSet, Liveness, cfg, liveness};
use radbg::ir::{Function, RegFile};

/// A set's names sorted by name (ids follow first appearance in the text).
fn names(f: &Function, s: &LiveSet) -> String {
    let mut n: Vec<&str> = s.iter().map(|x| f.vreg(x).name.as_ref()).collect();
    n.sort();
    format!("{{{}}}", n.join(", "))
}

/// Per block `label in {..} out {..}`, then per instruction `[p] before -> after`.
fn dump(f: &Function, l: &Liveness) -> String {
    let mut s = String::new();
    let layout = f.layout();
    for (b, blk) in f.blocks.iter().enumerate() {
        s += &format!("{} in {} out {}\n", blk.label, names(f, &l.live_in(b)), names(f, &l.live_out(b)));
        for i in 0..blk.insts.len() {
            let p = layout.point(b, i);
            s += &format!("[{p}] {} -> {}\n", names(f, &l.live_before(f, p)), names(f, &l.live_after(f, p)));
        }
    }
    s
}

/// Trims lines and sorts the members of every `{..}` group, so expectations may list
/// registers in any order.
fn norm(s: &str) -> String {
    let mut out = String::new();
    for line in s.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let mut rest = line;
        while let Some(open) = rest.find('{') {
            let close = open + rest[open..].find('}').expect("unclosed {");
            let mut items: Vec<&str> = rest[open + 1..close].split(", ").filter(|x| !x.is_empty()).collect();
            items.sort();
            out += &rest[..open];
            out += &format!("{{{}}}", items.join(", "));
            rest = &rest[close + 1..];
        }
        out += rest;
        out.push('\n');
    }
    out
}

/// Checks the dump of `src` with the vregs named in `exit_live` live at exit.
fn check_exit(src: &str, exit_live: &[&str], expected: &str) {
    let f = func(src);
    let c = cfg::build(&f, 8.0);
    let ex: Vec<_> = exit_live.iter().map(|n| v(&f, n)).collect();
    let l = liveness::compute(&f, &c, &ex);
    let got = dump(&f, &l);
    // The block walk agrees with the point queries.
    for b in 0..f.blocks.len() {
        l.walk_block_backward(&f, b, |i, _, after| {
            assert_eq!(after, &l.live_after(&f, f.layout().point(b, i)), "walk vs query at {b}:{i}");
        });
    }
    let want = norm(expected);
    assert_eq!(got, want, "\n--- got ---\n{got}--- want ---\n{want}");
}

fn check(src: &str, expected: &str) {
    check_exit(src, &[], expected)
}

#[test]
fn straight_line() {
    check(
        "BB0:
           %r0 = S2R SR_TID.X
           %r1 = IADD3 %r0, 1, RZ
           STG.E [%rd0 + 0x10], %r1
           EXIT",
        "BB0 in {%rd0} out {}
         [0] {%rd0} -> {%r0, %rd0}
         [1] {%r0, %rd0} -> {%r1, %rd0}
         [2] {%r1, %rd0} -> {}
         [3] {} -> {}",
    );
}

#[test]
fn diamond() {
    check(
        "A:
           %p0 = ISETP.GE.AND %r0, 1, PT
           @%p0 BRA C
         B:
           %r1 = MOV %r2
           BRA D
         C:
           %r1 = MOV 2
         D:
           STG.E [%rd0], %r1
           EXIT",
        "A in {%r0, %r2, %rd0} out {%r2, %rd0}
         [0] {%r0, %r2, %rd0} -> {%r2, %p0, %rd0}
         [1] {%r2, %p0, %rd0} -> {%r2, %rd0}
         B in {%r2, %rd0} out {%r1, %rd0}
         [2] {%r2, %rd0} -> {%r1, %rd0}
         [3] {%r1, %rd0} -> {%r1, %rd0}
         C in {%rd0} out {%r1, %rd0}
         [4] {%rd0} -> {%r1, %rd0}
         D in {%r1, %rd0} out {}
         [5] {%r1, %rd0} -> {}
         [6] {} -> {}",
    );
}

#[test]
fn loop_carries_values_around_the_back_edge() {
    check(
        "E:
           %r0 = MOV 0
           %r1 = MOV 0
         H:
           %r1 = IADD3 %r1, %r0, RZ
           %r0 = IADD3 %r0, 1, RZ
           %p0 = ISETP.LT.AND %r0, 8, PT
           @%p0 BRA H
         X:
           STG.E [%rd0], %r1
           EXIT",
        "E in {%rd0} out {%r0, %r1, %rd0}
         [0] {%rd0} -> {%r0, %rd0}
         [1] {%r0, %rd0} -> {%r0, %r1, %rd0}
         H in {%r0, %r1, %rd0} out {%r0, %r1, %rd0}
         [2] {%r0, %r1, %rd0} -> {%r0, %r1, %rd0}
         [3] {%r0, %r1, %rd0} -> {%r0, %r1, %rd0}
         [4] {%r0, %r1, %rd0} -> {%r0, %r1, %p0, %rd0}
         [5] {%r0, %r1, %p0, %rd0} -> {%r0, %r1, %rd0}
         X in {%r1, %rd0} out {}
         [6] {%r1, %rd0} -> {}
         [7] {} -> {}",
    );
}

#[test]
fn irreducible_flow_converges() {
    // Two entries into the B/C cycle; %r5 is read in B and written nowhere, so it is
    // live everywhere on the cycle and at entry.
    check(
        "A:
           @%p0 BRA C
         B:
           %r0 = IADD3 %r5, 1, RZ
         C:
           %r1 = IADD3 %r0, 1, RZ
           @%p0 BRA B
         D:
           STG.E [%rd0], %r1
           EXIT",
        "A in {%r0, %r5, %p0, %rd0} out {%r0, %r5, %p0, %rd0}
         [0] {%r0, %r5, %p0, %rd0} -> {%r0, %r5, %p0, %rd0}
         B in {%r5, %p0, %rd0} out {%r0, %r5, %p0, %rd0}
         [1] {%r5, %p0, %rd0} -> {%r0, %r5, %p0, %rd0}
         C in {%r0, %r5, %p0, %rd0} out {%r1, %r5, %p0, %rd0}
         [2] {%r0, %r5, %p0, %rd0} -> {%r1, %r5, %p0, %rd0}
         [3] {%r1, %r5, %p0, %rd0} -> {%r1, %r5, %p0, %rd0}
         D in {%r1, %rd0} out {}
         [4] {%r1, %rd0} -> {}
         [5] {} -> {}",
    );
}

#[test]
fn calls_read_arguments_and_define_results() {
    check(
        "BB0:
           %r0 = MOV 1
           %r1 = MOV 2
           %r2 = CALL callee, %r0, %r1
           STG.E [%rd0], %r2
           EXIT",
        "BB0 in {%rd0} out {}
         [0] {%rd0} -> {%r0, %rd0}
         [1] {%r0, %rd0} -> {%r0, %r1, %rd0}
         [2] {%r0, %r1, %rd0} -> {%r2, %rd0}
         [3] {%r2, %rd0} -> {}
         [4] {} -> {}",
    );
}

#[test]
fn component_defs_and_predicated_defs_do_not_kill() {
    // %r0 is defined twice, so its predicated def keeps the older value live.
    check(
        "BB0:
           %rd1.lo = MOV 1
           %rd1.hi = MOV 2
           @%p0 %r0 = MOV 3
           STG.E [%rd1], %r0
           %r0 = MOV 4
           STG.E [%rd1], %r0
           EXIT",
        "BB0 in {%r0, %p0, %rd1} out {}
         [0] {%r0, %p0, %rd1} -> {%r0, %p0, %rd1}
         [1] {%r0, %p0, %rd1} -> {%r0, %p0, %rd1}
         [2] {%r0, %p0, %rd1} -> {%r0, %rd1}
         [3] {%r0, %rd1} -> {%rd1}
         [4] {%rd1} -> {%r0, %rd1}
         [5] {%r0, %rd1} -> {}
         [6] {} -> {}",
    );
}

#[test]
fn a_single_predicated_def_kills() {
    // No older value exists for a vreg defined once: the predicated def ends its range.
    check(
        "BB0:
           @%p0 %r0 = MOV 3
           @%p0 STG.E [%rd1], %r0
           EXIT",
        "BB0 in {%p0, %rd1} out {}
         [0] {%p0, %rd1} -> {%r0, %p0, %rd1}
         [1] {%r0, %p0, %rd1} -> {}
         [2] {} -> {}",
    );
}

#[test]
fn a_guard_local_value_may_be_rewritten_a_half_at_a_time() {
    // The shape of an if-converted 64-bit multiply (`expand`): a whole guarded def, then
    // its high half rewritten under the same guard. No older value of %rd2 is read, so its
    // first def ends its range (it is not live on entry to the block).
    check(
        "BB0:
           @%p0 %rd2 = IMAD.WIDE.U32 %r0, %r1
           @%p0 %rd2.hi = IADD3 %rd2.hi, %r1
           @%p0 STG.E [%rd1], %rd2
           EXIT",
        "BB0 in {%r0, %r1, %p0, %rd1} out {}
         [0] {%r0, %r1, %p0, %rd1} -> {%r1, %p0, %rd1, %rd2}
         [1] {%r1, %p0, %rd1, %rd2} -> {%p0, %rd1, %rd2}
         [2] {%p0, %rd1, %rd2} -> {}
         [3] {} -> {}",
    );
    // A half read first (an older value) keeps the vreg live into the block (its one
    // whole def still ends the range above it).
    check(
        "BB0:
           @%p0 %r2 = IADD3 %rd2.hi, %r1
           @%p0 %rd2 = IMAD.WIDE.U32 %r0, %r1
           @%p0 STG.E [%rd1], %rd2
           EXIT",
        "BB0 in {%r0, %r1, %p0, %rd1, %rd2} out {}
         [0] {%r0, %r1, %p0, %rd1, %rd2} -> {%r0, %r1, %p0, %rd1}
         [1] {%r0, %r1, %p0, %rd1} -> {%p0, %rd1, %rd2}
         [2] {%p0, %rd1, %rd2} -> {}
         [3] {} -> {}",
    );
}

#[test]
fn exit_live_registers_are_live_at_every_exit() {
    check_exit(
        "BB0:
           %r0 = MOV 1
           @%p0 RET
           %r0 = MOV 2
           RET",
        &["%r0"],
        "BB0 in {%p0} out {%r0}
         [0] {%p0} -> {%r0, %p0}
         [1] {%r0, %p0} -> {}
         [2] {} -> {%r0}
         [3] {%r0} -> {%r0}",
    );
}

#[test]
fn barrier_registers_take_no_part() {
    check(
        "BB0:
           %b0 = BMOV %r0
           BSYNC %b0
           EXIT",
        "BB0 in {%r0} out {}
         [0] {%r0} -> {}
         [1] {} -> {}
         [2] {} -> {}",
    );
}

#[test]
fn files_are_solved_independently_with_sweep_records() {
    let f = func(
        "E:
           %r0 = MOV 0
           %u0 = UMOV 0
         H:
           %r0 = IADD3 %r0, %u0, RZ
           %p0 = ISETP.LT.AND %r0, 8, PT
           @%p0 BRA H
         X:
           EXIT",
    );
    let c = cfg::build(&f, 8.0);
    let l = liveness::compute(&f, &c, &[]);
    let files: Vec<RegFile> = l.files().iter().map(|x| x.file).collect();
    assert_eq!(files, vec![RegFile::R, RegFile::UR, RegFile::P]);
    // Visiting X, H, E: the first sweep sets H's and E's sets; the second sweep finds
    // H's live-out grown through the back edge; the third changes nothing.
    let changed = |file| l.sweeps(file).iter().map(|s| s.changed.clone()).collect::<Vec<_>>();
    assert_eq!(changed(RegFile::R), vec![vec![1, 0], vec![1], vec![]]);
    assert_eq!(changed(RegFile::UR), vec![vec![1, 0], vec![1], vec![]]);
    assert_eq!(changed(RegFile::P), vec![Vec::<usize>::new()]);
    assert!(l.sweeps(RegFile::T).is_empty());
}

#[test]
fn pressure_counts_widths_and_dead_defs() {
    let f = func(
        "BB0:
           %rd0 = MOV 0
           %q0 = LDG.E.128 [%rd0]
           %r0 = IADD3 %q0.0, %q0.1, RZ
           %r1 = MOV %r0
           %r9 = MOV 1
           STG.E [%rd0], %r1
           EXIT",
    );
    let c = cfg::build(&f, 8.0);
    let l = liveness::compute(&f, &c, &[]);
    // [0] def rd0 (2). [1] rd0 + q0 = 6. [2] before: rd0 q0 = 6, after: rd0 r0 = 3.
    // [3] r0 dies, r1 born: 3. [4] dead def %r9: rd0 r1 + r9 = 4. [5] before 3.
    let curve = l.pressure_curve(&f, RegFile::R);
    assert_eq!(curve, vec![2, 6, 6, 3, 4, 3, 0]);
    for (p, &want) in curve.iter().enumerate() {
        assert_eq!(l.pressure(&f, p as u32, RegFile::R), want, "point {p}");
    }
    assert_eq!(l.max_pressure(&f, RegFile::R), (6, 1));
    assert_eq!(l.max_pressure(&f, RegFile::P), (0, 0));
    assert_eq!(l.pressure(&f, 99, RegFile::R), 0);
    assert!(l.live_before(&f, 99).is_empty());
}

#[test]
fn long_blocks_answer_queries_from_checkpoints() {
    // 1000 instructions in one block chaining values; every query must equal a plain
    // backward walk from the block end.
    let mut src = String::from("BB0:\n %r0 = MOV 0\n");
    for i in 1..1000 {
        src += &format!(" %r{} = IADD3 %r{}, %r{}, RZ\n", i % 37, (i + 5) % 37, (i * 7) % 37);
    }
    src += " STG.E [%rd0], %r3\n EXIT\n";
    let f = func(&src);
    let c = cfg::build(&f, 8.0);
    let l = liveness::compute(&f, &c, &[]);
    let mut after = Vec::new();
    l.walk_block_backward(&f, 0, |_, _, a| after.push(a.clone()));
    after.reverse();
    // A converged partial solve has no checkpoints: its queries walk from the block end.
    let partial = liveness::compute_partial(&f, &c, &[], 99);
    for (p, a) in after.iter().enumerate() {
        assert_eq!(&l.live_after(&f, p as u32), a, "point {p}");
        assert_eq!(&partial.live_after(&f, p as u32), a, "point {p} without checkpoints");
    }
}

#[test]
fn partial_solves_replay_the_sweeps() {
    let f = func(
        "E:
           %r0 = MOV 0
         H:
           %r0 = IADD3 %r0, %r1, RZ
           %p0 = ISETP.LT.AND %r0, 8, PT
           @%p0 BRA H
         X:
           RET",
    );
    let c = cfg::build(&f, 8.0);
    let ex = [v(&f, "%r0")];
    let full = liveness::compute(&f, &c, &ex);
    let at = |n| liveness::compute_partial(&f, &c, &ex, n);
    let sets = |l: &Liveness| (0..3).map(|b| (names(&f, &l.live_in(b)), names(&f, &l.live_out(b)))).collect::<Vec<_>>();
    let s = |a: &str, b: &str| (a.to_string(), b.to_string());
    // Before any sweep only the exit block's live-out is seeded.
    assert_eq!(sets(&at(0)), vec![s("{}", "{}"), s("{}", "{}"), s("{}", "{%r0}")]);
    // Sweep 1 visits X, H, E: H does not see its own live-in through the back edge yet.
    assert_eq!(sets(&at(1)), vec![s("{%r1}", "{%r0, %r1}"), s("{%r0, %r1}", "{%r0}"), s("{%r0}", "{%r0}")]);
    assert_eq!(at(1).sweeps(RegFile::R).len(), 1);
    assert_eq!(sets(&at(2)), sets(&full));
    assert_eq!(sets(&at(99)), sets(&full));
    assert_eq!(at(99).sweeps(RegFile::R), full.sweeps(RegFile::R));
}

#[test]
fn a_spill_refill_keeps_an_assembled_vreg_assembled() {
    // Issue 22 (a blender-cycles .func failed at --maxrregcount 64): the spill code
    // reloads a spilled vreg into itself before a component def that keeps the rest of
    // it. That whole def restores the same value; it must not make the vreg "defined in
    // other ways", or the vreg is live from the entry (here: around the loop and across
    // the call, where only callee-saved registers are left).
    let src = "A:
           %r0 = S2R SR_TID.X
         L:
           %r1 = IADD3 %r0, 1, RZ
           %rd0.lo = MOV %r1
           STL.64.SPILL [0x8], %rd0
           %r2 = IADD3 %r1, 2, RZ
           %rd0 = LDL.64.SPILL [0x8]
           %rd0.hi = MOV %r2
           STG.E.64 [%rd1], %rd0
           %p0 = ISETP.GE.AND %r2, 9, PT
           @%p0 BRA L
         B:
           EXIT";
    let mut f = func(src);
    let rd0 = v(&f, "%rd0");
    f.vregs[rd0.index()].flags |= radbg::ir::model::vflags::ASSEMBLED;
    assert_eq!(liveness::comp_kills(&f)[rd0.index()], 0, "the .lo def still starts %rd0");
    let c = cfg::build(&f, 8.0);
    let l = liveness::compute(&f, &c, &[]);
    assert!(!l.live_in(1).iter().any(|x| x == rd0), "%rd0 is not live around the loop");
    // A reload that is not spill code is another value: the vreg is no longer assembled.
    let mut g = func(&src.replace("LDL.64.SPILL [0x8]", "LDL.64 [0x8]"));
    g.vregs[rd0.index()].flags |= radbg::ir::model::vflags::ASSEMBLED;
    assert_eq!(liveness::comp_kills(&g)[rd0.index()], liveness::NO_COMP);
}
