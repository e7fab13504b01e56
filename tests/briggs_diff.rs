//! The allocator diff (`alloc::compare`) and `radbg diff-alloc`: both allocators on one
//! function and budget, spilled sets split three ways, the verdict rules, JSON shape, and
//! the command line's exit codes.

mod briggs_util;

use briggs_util::func;
use clap::Parser;
use radbg::alloc::AllocConfig;
use radbg::alloc::compare::{Verdict, compare};
use radbg::cli::{Cli, run};
use std::process::ExitCode;

fn diff(src: &str, budget: u32, knobs: &[&str]) -> radbg::alloc::compare::AllocDiff {
    let mut c = AllocConfig::simple(90, budget);
    for k in knobs {
        c.knobs.set_str(k).expect("knob");
    }
    compare(&func(src), &c)
}

/// Twenty values live at once: the fat-point allocator fits them in a budget of 32, the
/// Chaitin-Briggs allocator (K = 15) must spill five.
fn twenty() -> String {
    let mut s = String::from("  .reg .R %v<20>\nBB0:\n");
    for i in 0..20 {
        s.push_str(&format!("  %v{i} = LDC c[0x0][{:#x}]\n", 0x100 + 4 * i));
    }
    for i in (0..20).rev() {
        s.push_str(&format!("  STG.E [R200 + {:#x}], %v{i}\n", 4 * i));
    }
    s.push_str("  EXIT\n");
    s
}

#[test]
fn k15_against_a_larger_budget() {
    let d = diff(&twenty(), 32, &[]);
    assert!(d.fatpoint.ok && d.briggs.ok);
    assert_eq!(d.fatpoint.spilled.len(), 0);
    assert_eq!(d.briggs.spilled.len(), 5);
    assert_eq!(d.only_briggs.len(), 5);
    assert!(d.only_fatpoint.is_empty() && d.both.is_empty());
    assert_eq!(d.verdict, Verdict::FatPoint);
    assert!(d.answer.starts_with("no: estimated spill cost"), "{}", d.answer);
    assert!(d.assignment_diff.starts_with("--- fatpoint\n+++ briggs\n"), "{}", d.assignment_diff);
    assert!(d.assignment_diff.contains("+%v0 → spilled"), "{}", d.assignment_diff);
    // With K at the budget both fit without spilling.
    let e = diff(&twenty(), 32, &["radbg.BriggsK=32"]);
    assert!(e.briggs.spilled.is_empty());
    assert_ne!(e.verdict, Verdict::FatPoint);
}

#[test]
fn neither_fits_and_json_shape() {
    // A budget of 4 cannot hold a quad and the pair that addresses it, read together by
    // one store: no spill can help, both allocators fail.
    let src = "
      .reg .R.x4 %q
      .reg .R.x2 %a
    BB0:
      %a = LDC.64 c[0x0][0x160]
      %q = LDG.E.128 [%a]
      STG.E.128 [%a + 0x10], %q
      EXIT
    ";
    let d = diff(src, 4, &[]);
    assert!(!d.fatpoint.ok && !d.briggs.ok);
    assert_eq!(d.verdict, Verdict::NeitherFits);
    let j = radbg::command::alloc_diff::diff_json(&d);
    assert_eq!(j["verdict"], "neither");
    assert_eq!(j["fatpoint"]["ok"], false);
    assert!(j["briggs"]["failure"].as_str().is_some_and(|m| m.starts_with("Briggs allocation")));
    assert!(d.text().contains("would graph colouring have done better here? no: neither allocator fits"));
}

#[test]
fn identical_assignments_say_so() {
    let src = "
      .reg .R %r
    BB0:
      %r = S2R SR_TID.X
      STG.E [R200], %r
      EXIT
    ";
    let d = diff(src, 255, &[]);
    assert!(d.assignment_diff.is_empty());
    assert!(d.text().contains("assignments: identical"));
    assert_eq!(d.verdict, Verdict::Same);
}

fn cli(args: &[&str]) -> ExitCode {
    let root = env!("CARGO_MANIFEST_DIR");
    let mut argv: Vec<String> = vec!["radbg".into(), "diff-alloc".into()];
    argv.extend(args.iter().map(|a| a.replace("{root}", root)));
    run(Cli::try_parse_from(argv).expect("arguments parse"))
}

#[test]
fn command_line_exit_codes() {
    assert_eq!(cli(&["{root}/sessions/briggs_remat.ori"]), ExitCode::SUCCESS);
    assert_eq!(cli(&["{root}/sessions/briggs_k15.ori", "--json", "--knob", "radbg.BriggsK=20"]), ExitCode::SUCCESS);
    assert_eq!(cli(&["{root}/sessions/briggs_moves.ori", "--function", "nope"]), ExitCode::FAILURE);
    // A knob value out of range is bad usage, refused by clap's value parser (the
    // parser `set knob` uses) before anything runs.
    let e = Cli::try_parse_from(["radbg", "diff-alloc", "briggs_moves.ori", "--knob", "radbg.BriggsK=-1"]).unwrap_err();
    assert_eq!(e.exit_code(), 2);
    assert!(e.to_string().contains("'--knob <NAME=VALUE>': knob radbg.BriggsK value -1 is out of range"), "{e}");
    assert_eq!(cli(&["{root}/sessions/does_not_exist.ori"]), ExitCode::FAILURE);
}
