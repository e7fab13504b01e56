//! Hand-checked graphs for the Chaitin-Briggs allocator (seed 002): a K+1 clique spills
//! exactly one node, a diamond of moves coalesces, Briggs and George disagree both ways,
//! colour masks and windows, pre-colours, rematerialization, lazy reload, spill-slot
//! coalescing, determinism and stepping. Every successful result goes through the
//! independent checker (`alloc::check`). Function text is the body of `.entry test`.

mod briggs_util;

use briggs_util::{alloc, func, run, summary};
use radbg::alloc::AllocConfig;
use radbg::alloc::briggs::coalesce::{briggs_ok, george_ok};
use radbg::alloc::briggs::simplify::weight;
use radbg::alloc::briggs::{BriggsAlloc, BriggsEvent};
use radbg::ir::VRegId;

/// The one data-driven helper: the run's summary (see `briggs_util::summary`) must be
/// exactly `expected`.
fn check(src: &str, knobs: &[&str], budget: u32, expected: &str) {
    let a = run(src, knobs, budget);
    let got = summary(&a);
    let want: String = expected.lines().map(str::trim).filter(|l| !l.is_empty()).map(|l| format!("{l}\n")).collect();
    assert_eq!(got, want, "\n--- got ---\n{got}--- want ---\n{want}");
}

/// `n` 32-bit values loaded at once, then stored in reverse order: an n-clique at the
/// last load (constant-bank loads and a store base outside every window keep it pure).
fn clique(n: usize) -> String {
    clique_with(n, "", "", 1)
}

/// [`clique`] with extra declarations and instructions before and after it, and each
/// value stored `uses` times.
fn clique_with(n: usize, before: &str, after: &str, uses: usize) -> String {
    let mut s = format!("  .reg .R %v<{n}>\n{before}");
    if !before.contains("BB0:") {
        s.push_str("BB0:\n");
    }
    for i in 0..n {
        s.push_str(&format!("  %v{i} = LDC c[0x0][{:#x}]\n", 0x100 + 4 * i));
    }
    for i in (0..n).rev() {
        for _ in 0..uses {
            s.push_str(&format!("  STG.E [R200 + {:#x}], %v{i}\n", 4 * i));
        }
    }
    s.push_str(after);
    s.push_str("  EXIT\n");
    s
}

#[test]
fn k_plus_one_clique_spills_exactly_one_node() {
    check(
        &clique(4),
        &["radbg.BriggsK=4"],
        64,
        "
        ok iterations=1 spilled=0 registers=4
        %v0 = R3
        %v1 = R2
        %v2 = R1
        %v3 = R0
        ",
    );
    check(
        &clique(5),
        &["radbg.BriggsK=4"],
        64,
        "
        ok iterations=2 spilled=1 registers=4
        spilled: %v0
        remats=0 reloads=1 stores=1 frame=4
        ",
    );
    // The default K = 15 (seed 002's table).
    check(&clique(15), &[], 255, "ok iterations=1 spilled=0 registers=15");
    check(
        &clique(16),
        &[],
        255,
        "
        ok iterations=2 spilled=1 registers=15
        spilled: %v0
        remats=0 reloads=1 stores=1 frame=4
        ",
    );
}

#[test]
fn clique_spill_is_the_cheapest_candidate_and_code_is_lazy() {
    let a = run(&clique(16), &[], 255);
    let ev: Vec<String> = events(&clique(16), &[], 255)
        .iter()
        .filter(|l| l.contains("spill candidate") || l.contains("actual spill") || l.contains("spill code"))
        .cloned()
        .collect();
    assert!(ev.iter().any(|l| l.contains("spill candidate %v0")), "{ev:#?}");
    assert!(ev.iter().any(|l| l.contains("no colour for %v0")), "{ev:#?}");
    assert!(ev.iter().any(|l| l.contains("spill code 1: [%v0@0x0] 1 stores, 1 reloads")), "{ev:#?}");
    assert_eq!(a.frame_bytes(), 4);
}

#[test]
fn diamond_of_moves_coalesces() {
    let src = "
      .reg .R %a
      .reg .R %b
      .reg .P %p
    BB0:
      %a = S2R SR_TID.X
      %p = ISETP.GE.AND %a, 32, PT
      @%p BRA BB2
    BB1:
      %b = MOV %a
      BRA BB3
    BB2:
      %b = MOV %a
    BB3:
      STG.E [R2], %b
      EXIT
    ";
    check(
        src,
        &[],
        255,
        "
        ok iterations=1 spilled=0 registers=1
        coalesced 2/2
        %a = R0
        %b = R0 alias %a
        %p = P0
        ",
    );
    let lines = events(src, &[], 255);
    assert!(lines.iter().any(|l| l.contains("coalesce [3] %b into %a (Briggs, round 1)")), "{lines:#?}");
}

#[test]
fn interfering_move_is_constrained() {
    // %a stays live after the copy: the nodes interfere (position runs overlap).
    let src = "
      .reg .R %a
      .reg .R %b
    BB0:
      %a = S2R SR_TID.X
      %b = MOV %a
      %b = IADD3 %b, 1, RZ
      STG.E [R2], %a
      STG.E [R2], %b
      EXIT
    ";
    check(
        src,
        &[],
        255,
        "
        ok iterations=1 spilled=0 registers=2
        %a = R1
        %b = R0
        ",
    );
    let a = run(src, &[], 255);
    let w = a.worklists();
    assert_eq!(w.moves.len(), 1);
    assert_eq!(w.moves[0].state, radbg::alloc::briggs::MoveState::Constrained);
}

/// George accepts what Briggs refuses (K = 2): %t1 and %t2 (both of degree 3) neighbour
/// both ends of the move.
const GEORGE_ONLY: &str = "
  .reg .R %t<2>
  .reg .R %x
  .reg .R %y
BB0:
  %t0 = S2R SR_TID.X
  %t1 = S2R SR_TID.Y
  %x = S2R SR_LANEID
  %y = MOV %x
  STG.E [R2], %y
  STG.E [R2], %t0
  STG.E [R2], %t1
  EXIT
";

/// Briggs accepts what George refuses (K = 2): %t, of degree 2, neighbours %y only.
const BRIGGS_ONLY: &str = "
  .reg .R %x
  .reg .R %y
  .reg .R %t
  .reg .R %u
BB0:
  %x = S2R SR_LANEID
  %y = MOV %x
  %t = S2R SR_TID.X
  STG.E [R2], %y
  %u = S2R SR_TID.Y
  STG.E [R2], %t
  STG.E [R2], %u
  EXIT
";

fn criteria(src: &str) -> (bool, bool) {
    let f = func(src);
    let mut config = AllocConfig::simple(90, 64);
    config.knobs.set_str("radbg.BriggsK=2").expect("knob");
    let mut a = BriggsAlloc::new(f, config);
    // Step to the build: the graph before any coalescing.
    while let Some(ev) = a.step() {
        if matches!(ev, BriggsEvent::Build(_)) {
            break;
        }
    }
    let id = |n: &str| a.func().vreg_by_name(n).expect("vreg").0;
    let (x, y) = (id("%x"), id("%y"));
    let nx: Vec<u32> = a.neighbours(VRegId(x)).iter().map(|n| n.0.0).collect();
    let ny: Vec<u32> = a.neighbours(VRegId(y)).iter().map(|n| n.0.0).collect();
    let degree = |v: u32| a.neighbours(VRegId(v)).iter().map(|n| weight(1, a.func().vreg(n.0).width)).sum::<u32>();
    let high = |v: u32| degree(v) >= 2;
    (briggs_ok(&nx, &ny, |_| true, high, |_| 1, 2), george_ok(&nx, &ny, |_| true, high))
}

#[test]
fn briggs_and_george_disagree_both_ways() {
    assert_eq!(criteria(GEORGE_ONLY), (false, true));
    assert_eq!(criteria(BRIGGS_ONLY), (true, false));
    // The machine follows: Briggs alone refuses the first, George (knob) takes it.
    let coalesce = |src: &str, knobs: &[&str]| {
        let ev = events(src, knobs, 64);
        let first = ev.iter().position(|l| l.contains("iteration 1 done")).unwrap_or(ev.len());
        ev[..first].iter().filter(|l| l.contains("coalesce [")).cloned().collect::<Vec<_>>()
    };
    assert!(coalesce(GEORGE_ONLY, &["radbg.BriggsK=2"]).is_empty());
    assert_eq!(
        coalesce(GEORGE_ONLY, &["radbg.BriggsK=2", "radbg.BriggsGeorge=1"]),
        vec!["briggs: coalesce [3] %y into %x (George, round 1), merged degree 2".to_string()]
    );
    assert_eq!(
        coalesce(BRIGGS_ONLY, &["radbg.BriggsK=2"]),
        vec!["briggs: coalesce [1] %y into %x (Briggs, round 1), merged degree 1".to_string()]
    );
}

#[test]
fn pairs_take_even_colours_and_quads_multiples_of_four() {
    let src = "
      .reg .R %r0
      .reg .R.x2 %d
      .reg .R.x4 %q
    BB0:
      %r0 = S2R SR_TID.X
      %d = LDC.64 c[0x0][0x160]
      %q = LDG.E.128 [%d]
      STG.E [%d], %r0
      STG.E.128 [%d + 0x10], %q
      EXIT
    ";
    check(
        src,
        &[],
        255,
        "
        ok iterations=1 spilled=0 registers=8
        %d = R2..R3
        %q = R4..R7
        %r0 = R0
        ",
    );
}

#[test]
fn colour_mask_and_window_follow_k_and_budget() {
    let a = alloc(&clique(3), &[], 255);
    let m = a.colour_mask(a.func().vreg_by_name("%v0").expect("vreg"));
    assert_eq!(m.window.hex(), "0x7FFF");
    let b = alloc(&clique(3), &["radbg.BriggsKTheoretical=1"], 255);
    assert_eq!(b.colour_mask(VRegId(0)).window.hex(), "0x1FFFFF"); // K = 21 on SM 90
    let c = alloc(&clique(3), &[], 10);
    assert_eq!(c.colour_mask(VRegId(0)).window.hex(), "0x3FF"); // the budget lowers K
}

#[test]
fn select_reports_the_colours_neighbours_forbid() {
    let mut a = alloc(&clique(3), &[], 255);
    let mut seen = Vec::new();
    while let Some(ev) = a.step() {
        if let BriggsEvent::ColourAssigned { vreg, colour, forbidden, .. } = &ev {
            // At this moment the mask of the node equals what the event says.
            seen.push((a.func().vreg(*vreg).name.to_string(), *colour, forbidden.clone()));
            let m = a.colour_mask(*vreg);
            assert!(m.available.contains(colour) || !m.forbidden().contains(colour));
        }
    }
    assert_eq!(seen.len(), 3);
    // Coloured last, one value sees its two neighbours' colours.
    let last = seen.last().expect("one");
    assert_eq!(last.2.len(), 2, "{seen:?}");
}

#[test]
fn pins_are_precoloured_and_respected() {
    let src = "
      .reg .R %r<3>
      .pin %r1 = R0
    BB0:
      %r0 = S2R SR_TID.X
      %r1 = S2R SR_TID.Y
      %r2 = IADD3 %r0, %r1, RZ
      STG.E [R2], %r2
      EXIT
    ";
    check(
        src,
        &[],
        255,
        "
        ok iterations=1 spilled=0 registers=2
        %r0 = R1
        %r1 = R0
        %r2 = R0
        ",
    );
}

#[test]
fn fixed_registers_and_first_free_shift_the_window() {
    let f = func(&clique(3));
    let mut config = AllocConfig::simple(90, 64);
    config.first_free = Some(4);
    config.fixed = vec![(radbg::ir::RegFile::R, 5)];
    let mut a = BriggsAlloc::new(f, config);
    a.run();
    assert!(a.check().is_ok(), "{:?}", a.check());
    assert_eq!(a.colour_mask(VRegId(0)).window.to_vec(), vec![4, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19]);
    let regs: Vec<Option<u16>> = (0..a.func().vregs.len()).map(|i| a.slot_of(VRegId::new(i))).collect();
    assert!(regs.iter().flatten().all(|&r| r >= 4 && r != 5), "{regs:?}");
}

#[test]
fn constants_are_rematerialized_instead_of_reloaded() {
    // 15 values and a constant live at once: K = 15 leaves the constant (lowest id among
    // equal priorities) to spill, and a MOV of an immediate is recomputed, not reloaded.
    let src = clique_with(15, "  .reg .R %k\nBB0:\n  %k = MOV 0x1234\n", "  STG.E [R200], %k\n", 1);
    let src = src.replace("  .reg .R %v<15>\n  .reg .R %k\n", "  .reg .R %k\n  .reg .R %v<15>\n");
    check(
        &src,
        &[],
        255,
        "
        ok iterations=2 spilled=1 registers=15
        spilled: %k
        remats=1 reloads=0 stores=0 frame=0
        ",
    );
    // With rematerialization off it is stored and reloaded.
    check(
        &src,
        &["radbg.BriggsRemat=0"],
        255,
        "
        ok iterations=2 spilled=1 registers=15
        spilled: %k
        remats=0 reloads=1 stores=1 frame=4
        ",
    );
}

#[test]
fn lazy_reload_reuses_a_reload_within_its_block() {
    // %k is read twice at the end: one reload serves both (phase 4), unless eager.
    // Every value is read twice, so %k (the lowest id) is the cheapest candidate.
    let src =
        clique_with(15, "  .reg .R %k\nBB0:\n  %k = S2R SR_TID.X\n", "  STG.E [R200], %k\n  STG.E [R200 + 4], %k\n", 2);
    let src = src.replace("  .reg .R %v<15>\n  .reg .R %k\n", "  .reg .R %k\n  .reg .R %v<15>\n");
    check(
        &src,
        &[],
        255,
        "
        ok iterations=2 spilled=1 registers=15
        spilled: %k
        remats=0 reloads=1 stores=1 frame=4
        ",
    );
    check(
        &src,
        &["radbg.BriggsLazyReload=0"],
        255,
        "
        ok iterations=2 spilled=1 registers=15
        spilled: %k
        remats=0 reloads=2 stores=1 frame=4
        ",
    );
}

#[test]
fn spill_slots_are_shared_by_disjoint_live_ranges() {
    // Two 5-cliques one after the other, K = 4: one value of each spills; their live
    // ranges are disjoint, so they share one slot unless slot coalescing is off.
    let second: String = (0..5)
        .map(|i| format!("  %w{i} = LDC c[0x0][{:#x}]\n", 0x200 + 4 * i))
        .chain((0..5).rev().map(|i| format!("  STG.E [R200 + {:#x}], %w{i}\n", 0x40 + 4 * i)))
        .collect();
    let src = clique_with(5, "  .reg .R %w<5>\n", &second, 1);
    let a = run(&src, &["radbg.BriggsK=4"], 64);
    assert_eq!(a.spilled().len(), 2);
    assert_eq!(a.frame_bytes(), 4);
    let b = run(&src, &["radbg.BriggsK=4", "radbg.BriggsSlotCoalescing=0"], 64);
    assert_eq!(b.spilled().len(), 2);
    assert_eq!(b.frame_bytes(), 8);
}

#[test]
fn unspillable_values_fail_with_a_clear_message() {
    // Three values live on entry (read before any definition) with K = 2: none can be
    // spilled (no definition to store after), so allocation fails naming one.
    let src = "
      .reg .R %r<3>
    BB0:
      STG.E [R2], %r0
      STG.E [R2], %r1
      STG.E [R2], %r2
      EXIT
    ";
    let a = alloc(src, &["radbg.BriggsK=2"], 64);
    let mut a = a;
    a.run();
    let msg = a.failure().expect("a failure").to_string();
    assert!(msg.starts_with("Briggs allocation failed: %r"), "{msg}");
    assert!(msg.contains("K=2 R colours and it cannot be spilled"), "{msg}");
    assert_eq!(a.slot_of(VRegId(0)), None);
}

#[test]
fn iterations_are_bounded_by_the_knob() {
    let mut a = alloc(&clique(16), &["radbg.BriggsMaxIterations=1"], 255);
    a.run();
    assert!(a.failure().is_some_and(|m| m.contains("did not converge within 1 iterations")), "{:?}", a.failure());
}

#[test]
fn snapshots_replay_identically() {
    let src = clique(16);
    let mut a = alloc(&src, &[], 255);
    for _ in 0..25 {
        a.step();
    }
    let mut b = a.snapshot();
    let rest_a: Vec<BriggsEvent> = std::iter::from_fn(|| a.step()).collect();
    let rest_b: Vec<BriggsEvent> = std::iter::from_fn(|| b.step()).collect();
    assert_eq!(rest_a, rest_b);
    assert!(a.is_done() && b.is_done());
    assert_eq!(a.stats(), b.stats());
}

#[test]
fn queries_answer_mid_run() {
    let mut a = alloc(&clique(16), &[], 255);
    let mut saw_stack = false;
    let mut saw_lists = false;
    while let Some(ev) = a.step() {
        match ev {
            BriggsEvent::Worklists { simplify, spill, .. } => {
                let w = a.worklists();
                assert_eq!(w.simplify.len() as u32, simplify);
                assert_eq!(w.spill.len() as u32, spill);
                saw_lists = true;
            }
            BriggsEvent::NodeRemoved { vreg, .. } | BriggsEvent::SpillCandidate { vreg, .. } => {
                assert_eq!(a.current_node(), Some(vreg));
                assert_eq!(a.simplify_stack().last(), Some(&vreg));
                saw_stack = true;
            }
            _ => {}
        }
    }
    assert!(saw_stack && saw_lists);
}

#[test]
fn bank_edges_knob_adds_edges_between_ids_equal_modulo_32() {
    let mut src = String::from("  .reg .R %r<40>\nBB0:\n");
    for i in 0..40 {
        src.push_str(&format!("  %r{i} = S2R SR_TID.X\n  STG.E [R2], %r{i}\n"));
    }
    src.push_str("  EXIT\n");
    let off = run(&src, &[], 255).stats();
    let on = run(&src, &["radbg.BriggsBankEdges=1"], 255).stats();
    assert_eq!(off.edges, 0);
    assert_eq!((on.bank_edges, on.edges), (8, 8)); // ids 0/32 .. 7/39
}

#[test]
fn stats_figures_and_text_agree() {
    let a = run(&clique(16), &[], 255);
    let s = a.stats();
    assert_eq!(s.spilled, 1);
    assert_eq!(s.iterations, 2);
    assert_eq!(s.k, [(radbg::ir::RegFile::R, 15)]);
    let text = s.lines().join("\n");
    assert!(text.contains("spilling: 1/16 vregs (6.2%)"), "{text}");
    assert!(text.contains("15 registers"), "{text}");
}

/// Every event of a run, described.
fn events(src: &str, knobs: &[&str], budget: u32) -> Vec<String> {
    let mut a = alloc(src, knobs, budget);
    let mut out = Vec::new();
    while let Some(ev) = a.step() {
        out.push(ev.describe(a.func()));
    }
    out
}
