//! Seed claims about the ABI, spill code, messages and knobs that issue 24 touched, one
//! test each. Departures are rows of ARCHITECTURE.md, "Where radbg departs from the
//! seeds".
//!
//! | seed | section | sentence | test |
//! |---|---|---|---|
//! | 003 | SMEM Spilling, hard restriction | "Smem spilling should not be enabled when functions use abi." | [`smem_spilling_is_off_when_a_function_uses_the_abi`] |
//! | 003 | SMEM Spilling, activation | "Register class is 3 (UR) or 6 (Tensor/Acc) … Device type is 5" | [`smem_spilling_is_on_in_compile_mode_5_without_the_abi`] |
//! | 001 | Scratch Data Registers | "if vreg.pair_width == 1: // single-width register … goto simple_path"; only `is_def(operand)` is charged | [`seed_001_call_rule_charges_wide_definitions_only`] (knob `radbg.CallCostSeed001`; radbg's default departs) |
//! | 003 | SASS instruction sequences (sub_9850F0) | "IADD addr, spill_base, offset / IMAD addr, addr, stride, 0 / ST [addr], value" | [`spill_code_is_stl_ldl_at_a_frame_offset`] (departure: ptxas's own SASS is `STL [R1+imm]`) |
//! | 003 | Spill Statistics, format strings | "# [est latency = %d] [LSpillB=%d] [LRefillB=%d], [SSpillB=%d], …" and "# [LNonSpillB=%d] [LNonRefillB=%d], [NonSpillSize=%d]" | [`statistics_lines_follow_the_seed_formats`], [`stats_command_prints_the_statistics_lines`] |
//! | 001 | Complete Warning Catalog, 7010 | "Relative 32-bit return address requires a caller-save 64-bit scratch register pair" | [`warning_7010_at_a_relative_call_without_a_scratch_pair`] |
//! | 001 | Return Address Register | "Parameter registers from R%d to R%d overlap with return address register R%d to R%d" fires "when parameter and return address ranges collide" | [`parameter_and_return_address_overlap_is_reported`] |
//! | 001 | Return Address Setup | 7012 fires "always with argument 1 (the return address register)" | [`warning_7012_prints_argument_1`] |
//! | 000 | Knobs | every knob radbg exposes is modelled or marked (issue 24) | [`unmodelled_knobs_are_accepted_with_a_note`] (the sweep is `tests/knob_sweep.rs`) |

use std::path::Path;

use radbg::abi::{AbiCheck, AbiInput, check_relative_calls, report::function_limits, setup};
use radbg::alloc::cost::{CallRule, Costs};
use radbg::alloc::stats::SpillStats;
use radbg::command::{Output, Session, parse_line};
use radbg::engine::{Machine, RunOptions};
use radbg::ir::{KnobKey, KnobValue, Module, Operand, VRegId, parse_str};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn module(name: &str) -> Module {
    radbg::load::load_path(&root().join("sessions").join(name)).unwrap_or_else(|e| panic!("{name}: {e}")).module
}

fn finished(m: Module, opts: RunOptions) -> Machine {
    let mut m = Machine::new(m, opts);
    while m.step().is_some() {}
    m
}

/// Mnemonics with modifiers (`STS.SPILL`) of every spill instruction of function `fi`.
fn spill_code(m: &Machine, fi: usize) -> Vec<String> {
    let a = m.funcs[fi].alloc.as_ref().and_then(|a| a.fatpoint()).expect("allocated");
    a.func
        .blocks
        .iter()
        .flat_map(|b| &b.insts)
        .filter(|i| radbg::alloc::spill::is_spill_code(i))
        .map(|i| format!("{}{}", i.op.mnemonic(), i.mods))
        .collect()
}

fn shared(code: &[String]) -> usize {
    code.iter().filter(|c| c.starts_with("STS") || c.starts_with("LDS")).count()
}

fn local(code: &[String]) -> usize {
    code.iter().filter(|c| c.starts_with("STL") || c.starts_with("LDL")).count()
}

#[test]
fn smem_spilling_is_on_in_compile_mode_5_without_the_abi() {
    // The control: optix.ori (compile mode 5, no call, no .func) spills its UR class to
    // shared memory.
    let m = finished(module("optix.ori"), RunOptions::default());
    let code = spill_code(&m, 0);
    assert!(shared(&code) > 0 && local(&code) == 0, "{code:?}");
}

#[test]
fn smem_spilling_is_off_when_a_function_uses_the_abi() {
    // optix_abi.ori: the same kernel calling a .func. Compile mode 5 asks for SMEM
    // spilling; the call keeps the spills in local memory.
    let m = finished(module("optix_abi.ori"), RunOptions::default());
    let code = spill_code(&m, 0);
    assert!(!code.is_empty(), "the entry still spills");
    assert_eq!(shared(&code), 0, "{code:?}");
    assert_eq!(local(&code), code.len());
    // Knob 619 (force SMEM spilling) does not override the rule either.
    let mut opts = RunOptions::default();
    opts.set_knob(KnobKey::Index(619), KnobValue::Bool(true)).expect("619 takes a bool");
    let m = finished(module("optix_abi.ori"), opts);
    assert_eq!(shared(&spill_code(&m, 0)), 0);
    // +1590 (SMEM spill enable) reads 0 in the state object.
    let a = m.funcs[0].alloc.as_ref().and_then(|a| a.fatpoint()).expect("allocated");
    assert!(!a.state.smem_spill);
    let note = radbg::alloc::spill::smem_refusal(true, a.config.uses_abi, &a.func).expect("refused");
    assert!(note.contains("Smem spilling should not be enabled when functions use abi."), "{note}");
}

const CALL_KERNEL: &str = "
.target sm_90
.entry k {
  .reg .R %x
  .reg .R %r0
  .reg .R.x2 %rd1
BB0:
  %x = S2R SR_TID.X
  %r0 = S2R SR_LANEID
  %rd1 = CALL f, %r0
  STG.E.64 [R2], %rd1
  STG.E [R2], %x
  EXIT
}
.func f {
BB0:
  RET
}
";

#[test]
fn seed_001_call_rule_charges_wide_definitions_only() {
    let m = parse_str(CALL_KERNEL).expect("parses");
    let f = &m.functions[0];
    let id = |n: &str| VRegId::new(f.vregs.iter().position(|v| &*v.name == n).expect("vreg"));
    let (x, r0, rd1) = (id("%x"), id("%r0"), id("%rd1"));
    let costs = |rule: CallRule| {
        let mut config = radbg::alloc::AllocConfig::simple(90, 255);
        if rule != CallRule::LiveAcross {
            config.knobs.set_str("radbg.CallCostSeed001=1").expect("knob");
        }
        assert_eq!(CallRule::from_knobs(&config.knobs), rule);
        let state = radbg::alloc::state::AllocState::new(&config.knobs, 128);
        let params = radbg::alloc::params::FatPointParams::from_knobs(&config.knobs);
        radbg::alloc::driver::analyse(f, &config, &params, &state).costs
    };
    let plain = |c: &Costs, v: VRegId| c.refs(v).len() as f64 * 15.0;
    let live = costs(CallRule::LiveAcross);
    let seed = costs(CallRule::Seed001 { save_limit: 4.0 });
    // radbg's rule: %x, live across the call on both sides, pays 2 × 2 × 15; the call's
    // own operands pay nothing extra (%rd1 is not live before it, %r0 not after).
    assert_eq!(live.cost[x.index()], plain(&live, x) + 60.0);
    assert_eq!(live.cost[rd1.index()], plain(&live, rd1));
    assert_eq!(live.cost[r0.index()], plain(&live, r0));
    // Seed 001: the 64-bit definition pays 1 × 2 × 15 (live after the call only); the
    // single-width argument and the value merely live across pay nothing.
    assert_eq!(seed.cost[rd1.index()], plain(&seed, rd1) + 30.0);
    assert_eq!(seed.cost[r0.index()], plain(&seed, r0));
    assert_eq!(seed.cost[x.index()], plain(&seed, x));
}

#[test]
fn spill_code_is_stl_ldl_at_a_frame_offset() {
    // radbg's spill code addresses a slot by an immediate frame offset (no IADD/IMAD
    // address sequence): what ptxas 13.0.88 really emits (`STL [R1+0xf0], RZ`, every
    // one of sgemm_8x8's 1298 spill STL/LDL at sm_90 --maxrregcount 32, nvdisasm).
    let m = finished(module("demo.ori"), RunOptions { maxrregcount: Some(24), ..RunOptions::default() });
    let a = m.funcs[0].alloc.as_ref().and_then(|a| a.fatpoint()).expect("allocated");
    let mut n = 0;
    for inst in a.func.blocks.iter().flat_map(|b| &b.insts) {
        if !radbg::alloc::spill::is_spill_code(inst) {
            assert!(!(inst.mods.contains("SPILL")), "only STL/LDL/STS/LDS carry .SPILL: {}", inst.op.mnemonic());
            continue;
        }
        n += 1;
        assert!(matches!(inst.op.mnemonic(), "STL" | "LDL"), "{}", inst.op.mnemonic());
        let mem = inst.operands.iter().find_map(|o| match o {
            Operand::Mem(m) => Some(m),
            _ => None,
        });
        let mem = mem.expect("a memory operand");
        assert!(mem.base.is_none() && mem.index.is_none() && mem.sym.is_none() && mem.offset >= 0);
    }
    assert!(n > 0, "demo.ori spills at 24");
}

#[test]
fn statistics_lines_follow_the_seed_formats() {
    let s = SpillStats {
        est_latency: 120,
        lspill_b: 8,
        lrefill_b: 12,
        sspill_b: 4,
        srefill_b: 4,
        low_lmem_spill_size: 8,
        frame_lmem_spill_size: 16,
        lnonspill_b: 32,
        lnonrefill_b: 64,
        nonspill_size: 256,
    };
    assert_eq!(
        s.lines(),
        [
            "# [est latency = 120] [LSpillB=8] [LRefillB=12], [SSpillB=4], [SRefillB=4], [LowLmemSpillSize=8] [FrameLmemSpillSize=16]"
                .to_string(),
            "# [LNonSpillB=32] [LNonRefillB=64], [NonSpillSize=256]".to_string(),
        ]
    );
}

#[test]
fn stats_command_prints_the_statistics_lines() {
    let mut s = session();
    run(&mut s, "load demo.ori");
    run(&mut s, "continue");
    let out = run(&mut s, "stats");
    let lines: Vec<&str> = out.text.lines().collect();
    let spill = lines.iter().find(|l| l.contains("bytes spill stores")).expect("-v line");
    let stores: u32 =
        spill.split(", ").nth(1).and_then(|p| p.split(' ').next()).and_then(|n| n.parse().ok()).expect("n");
    let seed = lines.iter().find(|l| l.starts_with("# [est latency = ")).expect("first statistics line");
    assert!(seed.contains(&format!("[LSpillB={stores}]")), "{seed} vs {spill}");
    assert!(lines.iter().any(|l| l.starts_with("# [LNonSpillB=")), "{}", out.text);
}

/// Runs one command line in a session rooted at `sessions/`.
fn run(s: &mut Session, line: &str) -> Output {
    let mut last = None;
    for cmd in parse_line(line).unwrap_or_else(|e| panic!("{line}: {e:?}")) {
        last = Some(s.exec(&cmd).unwrap_or_else(|e| panic!("{line}: {e}")));
    }
    last.expect("one command")
}

fn session() -> Session {
    let mut s = Session::new();
    s.base = root().join("sessions");
    s
}

fn checks(m: &Module) -> Vec<AbiCheck> {
    let limits = function_limits(m, &m.sm);
    let mut out = Vec::new();
    for (i, f) in m.functions.iter().enumerate() {
        if f.abi.is_some() || f.kind == radbg::ir::FuncKind::Device {
            out.extend(setup(m, i, &AbiInput { maxreg: limits[i], sm: m.sm.clone() }).checks);
        }
        out.extend(check_relative_calls(m, i));
    }
    out
}

#[test]
fn warning_7010_at_a_relative_call_without_a_scratch_pair() {
    let m = module("abi_7010.ori");
    let c: Vec<AbiCheck> = checks(&m).into_iter().filter(|c| c.code == 7010).collect();
    assert_eq!(c.len(), 1);
    assert!(!c[0].passed);
    assert_eq!(c[0].message, "Relative 32-bit return address requires a caller-save 64-bit scratch register pair");
    // The control: the default convention (R16-R31 preserved, the rest scratch) leaves
    // R8:R9 for the return offset.
    let text = std::fs::read_to_string(root().join("sessions/abi_7010.ori")).expect("read");
    let m = parse_str(&text.replace("    preserved R R8..R254\n", "")).expect("parses");
    let c: Vec<AbiCheck> = checks(&m).into_iter().filter(|c| c.code == 7010).collect();
    assert_eq!(c.len(), 1);
    assert!(c[0].passed, "{}", c[0].detail);
    // A plain CALL is not relative: no record.
    let m = parse_str(&text.replace("CALL.REL", "CALL")).expect("parses");
    assert!(checks(&m).iter().all(|c| c.code != 7010));
}

#[test]
fn parameter_and_return_address_overlap_is_reported() {
    let m = module("abi_param_retaddr.ori");
    let bad: Vec<AbiCheck> = checks(&m).into_iter().filter(|c| !c.passed).collect();
    assert_eq!(bad.len(), 1, "{bad:?}");
    assert_eq!(bad[0].message, "Parameter registers from R4 to R8 overlap with return address register R6 to R7");
    // With the return address after the parameters there is no overlap.
    let text = std::fs::read_to_string(root().join("sessions/abi_param_retaddr.ori")).expect("read");
    let m = parse_str(&text.replace("retaddr computed R6", "retaddr computed R10")).expect("parses");
    assert!(checks(&m).iter().all(|c| c.passed));
}

#[test]
fn warning_7012_prints_argument_1() {
    let m = module("abi_7012.ori");
    let bad: Vec<AbiCheck> = checks(&m).into_iter().filter(|c| c.code == 7012 && !c.passed).collect();
    // One record per check (return-address setup, and SUSPEND in the coroutine), each
    // with the argument 1 though the pair is R20:R21.
    assert_eq!(bad.len(), 2, "{bad:?}");
    for c in &bad {
        assert_eq!(c.message, "1 register should not be classified as scratch");
        assert_eq!(c.regs.len(), 2, "both halves named: {:?}", c.regs);
        assert!(c.detail.contains("R20") && c.detail.contains("R21"), "{}", c.detail);
    }
}

#[test]
fn unmodelled_knobs_are_accepted_with_a_note() {
    let mut s = session();
    run(&mut s, "load saxpy.ori");
    let out = run(&mut s, "set knob 381=2");
    assert!(!out.failed, "{}", out.text);
    assert!(out.text.contains("is not modelled by radbg"), "{}", out.text);
    let out = run(&mut s, "set knob 684=10");
    assert!(!out.text.contains("not modelled"), "{}", out.text);
    let out = run(&mut s, "knobs all");
    let row = out.text.lines().find(|l| l.contains("HoistInvariantsPolicy")).expect("row");
    assert!(row.contains(" NO ") && row.contains("0..=3"), "{row}");
    let help = run(&mut s, "help set");
    assert!(help.text.contains("RegAllocThresholdForDiscardConflicts"), "{}", help.text);
}
