//! Property tests of the Chaitin-Briggs allocator on random kernels: structured ones
//! from `radbg::synth` (loops, diamonds, pairs, quads, predicates, predicated copies,
//! uniform registers) and arbitrary valid modules from `radbg::ir::arbitrary`, under
//! random K, budgets and spill-code knobs.
//!
//! - every successful colouring passes the independent checker — registers never
//!   shared by simultaneously live values, alignment, budget, pins, physical operands,
//!   and spill code that keeps every path reading the slot it wrote (the checker's
//!   spill-slot dataflow);
//! - coalescing never joins interfering vregs (checked on the final IR with the alias
//!   links the allocator added taken out);
//! - a failed allocation says why and keeps no assignment;
//! - the machine is deterministic and never panics.

mod briggs_util;

use proptest::prelude::*;
use radbg::alloc::AllocConfig;
use radbg::alloc::briggs::{BriggsAlloc, BriggsEvent};
use radbg::ir::arbitrary::{GenConfig, Rng, module};
use radbg::ir::{Function, VRegId};
use radbg::synth::{SynthConfig, synthetic_kernel_with};

/// Upper bound on events, so that a bug shows as a failure rather than a hang.
const MAX_EVENTS: usize = 2_000_000;

fn config(k: u32, budget: u32, lazy: bool, remat: bool, george: bool) -> AllocConfig {
    let mut c = AllocConfig::simple(90, budget);
    for s in [
        format!("radbg.BriggsK={k}"),
        format!("radbg.BriggsLazyReload={}", lazy as u8),
        format!("radbg.BriggsRemat={}", remat as u8),
        format!("radbg.BriggsGeorge={}", george as u8),
    ] {
        c.knobs.set_str(&s).expect("knob");
    }
    c
}

fn run_all(f: &Function, c: &AllocConfig) -> Result<(BriggsAlloc, Vec<BriggsEvent>), TestCaseError> {
    let mut a = BriggsAlloc::new(f.clone(), c.clone());
    let mut events = Vec::new();
    while let Some(ev) = a.step() {
        // Describing never panics, whatever the event.
        let _ = ev.describe(a.func());
        events.push(ev);
        prop_assert!(events.len() < MAX_EVENTS, "no end after {MAX_EVENTS} events");
    }
    Ok((a, events))
}

fn properties(a: &BriggsAlloc) -> Result<(), TestCaseError> {
    match a.failure() {
        None => briggs_util::verify(a),
        Some(m) => {
            prop_assert!(m.starts_with("Briggs allocation"), "{m}");
            prop_assert!((0..a.func().vregs.len()).all(|i| a.slot_of(VRegId::new(i)).is_none()));
        }
    }
    Ok(())
}

fn synth_kernel(seed: u64, insts: usize, vregs: usize, live: usize, depth: u32) -> Function {
    let cfg = SynthConfig { insts, vregs, max_live: live, loop_depth: depth, block_len: 6, seed };
    synthetic_kernel_with(cfg).functions.into_iter().next().expect("a function")
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn synthetic_kernels_colour_validly(
        seed in any::<u64>(),
        insts in 20usize..260,
        vregs in 8usize..40,
        live in 2usize..24,
        depth in 0u32..3,
        k in prop_oneof![Just(0u32), 4u32..24],
        budget in prop_oneof![Just(255u32), 8u32..64],
        lazy in any::<bool>(),
        remat in any::<bool>(),
        george in any::<bool>(),
    ) {
        let f = synth_kernel(seed, insts, vregs, live, depth);
        let (a, _) = run_all(&f, &config(k, budget, lazy, remat, george))?;
        properties(&a)?;
    }

    #[test]
    fn arbitrary_valid_modules_never_break_the_rules(seed in any::<u64>(), k in 2u32..16) {
        let cfg = GenConfig { max_functions: 2, max_blocks: 6, max_insts: 10, max_decls: 8, valid: true };
        let m = module(&mut Rng::new(seed), &cfg);
        for f in &m.functions {
            let (a, _) = run_all(f, &config(k, 64, true, true, false))?;
            properties(&a)?;
        }
    }

    #[test]
    fn runs_are_deterministic(seed in any::<u64>(), insts in 20usize..160, k in 4u32..16) {
        let f = synth_kernel(seed, insts, 24, 12, 2);
        let c = config(k, 255, true, true, false);
        let (a, ea) = run_all(&f, &c)?;
        let (b, eb) = run_all(&f, &c)?;
        prop_assert_eq!(ea, eb);
        prop_assert_eq!(a.stats(), b.stats());
        prop_assert_eq!(radbg::ir::print::print_function(a.func()), radbg::ir::print::print_function(b.func()));
    }
}
