//! Properties of the ABI engine over arbitrary specs and modules: placements never
//! overlap each other, R0–R3, the reserved range, the return address or the stack
//! pointer, respect their alignment and window, and every check step appears in
//! order; nothing panics on nonsense.

use proptest::prelude::*;
use radbg::abi::params::align_regs;
use radbg::abi::report::function_limits;
use radbg::abi::{
    AbiInput, AbiResult, RegRole, check_convergent, check_reserved_smem, lower_calls, propagate_limits, report, role,
    setup, step,
};
use radbg::ir::abi_spec::{AbiSpec, AbiValue, Available, RegSet, RetAddr, RetAddrMode};
use radbg::ir::arbitrary::{self, GenConfig, Rng};
use radbg::ir::model::{FuncKind, Function, Module, RegFile};
use radbg::ir::sm::Sm;

fn value() -> impl Strategy<Value = AbiValue> {
    (
        prop_oneof![4 => 0u32..6, 1 => 0u32..80, 1 => any::<u32>()],
        prop_oneof![Just(1u32), Just(2), Just(3), Just(4), Just(8), Just(16), any::<u32>()],
        proptest::option::of(prop_oneof![0u32..40, any::<u32>()]),
    )
        .prop_map(|(count, size, align)| AbiValue { count, size, align, bind: None })
}

fn reg() -> impl Strategy<Value = u16> {
    prop_oneof![4 => 0u16..64, 1 => 0u16..300, 1 => any::<u16>()]
}

fn spec() -> impl Strategy<Value = AbiSpec> {
    let mode = prop_oneof![
        Just(RetAddrMode::Fixed),
        Just(RetAddrMode::Regular),
        Just(RetAddrMode::Uniform),
        Just(RetAddrMode::Computed)
    ];
    let available = prop_oneof![(0u32..400).prop_map(Available::Count), Just(Available::Computed)];
    let set = |file| proptest::collection::vec((reg(), reg()), 0..3).prop_map(move |ranges| RegSet { file, ranges });
    (
        proptest::collection::vec(value(), 0..8),
        proptest::collection::vec(value(), 0..4),
        proptest::option::of((mode, proptest::option::of(reg())).prop_map(|(mode, reg)| RetAddr { mode, reg })),
        any::<bool>(),
        proptest::option::of(reg()),
        proptest::option::of(available),
        proptest::option::of((reg(), reg())),
        proptest::option::of(reg()),
        proptest::option::of((reg(), reg())),
        proptest::collection::vec(set(RegFile::R), 0..2),
        proptest::collection::vec(set(RegFile::R), 0..2),
        proptest::collection::vec(set(RegFile::UR), 0..2),
    )
        .prop_map(
            |(
                params,
                returns,
                ret_addr,
                before,
                first,
                available,
                reserved,
                sp,
                range,
                preserved,
                scratch,
                suspend,
            )| {
                AbiSpec {
                    params,
                    returns,
                    ret_addr,
                    ret_addr_before_params: before,
                    first_param: first,
                    available,
                    reserved,
                    stack_pointer: sp,
                    ret_addr_range: range,
                    preserved,
                    scratch,
                    suspend_scratch: suspend,
                }
            },
        )
}

fn run(spec: &AbiSpec, maxreg: u32, sm: u32, coroutine: bool) -> AbiResult {
    let mut f = Function::new("f", FuncKind::Device);
    f.abi = Some(spec.clone());
    f.coroutine = coroutine;
    let m = Module { functions: vec![f], ..Module::default() };
    setup(&m, 0, &AbiInput { maxreg, sm: Sm::new(sm) })
}

fn check_invariants(spec: &AbiSpec, res: &AbiResult) -> Result<(), TestCaseError> {
    let base = res.first_param;
    let mut taken: Vec<(u16, &'static str)> = Vec::new();
    let values = spec.params.iter().zip(&res.params).chain(spec.returns.iter().zip(&res.returns));
    for (v, p) in values {
        let Some(p) = p else { continue };
        let align = align_regs(v) as u16;
        prop_assert!(p.count > 0 && p.count as u64 == v.regs(), "count {p:?} for {v:?}");
        prop_assert_eq!(p.align as u16, align);
        prop_assert!([1, 2, 4].contains(&align));
        prop_assert_eq!(p.first % align, 0, "misaligned {:?}", p);
        prop_assert!(p.first >= 4, "{p:?} in R0-R3");
        prop_assert!(p.last() <= 254, "{p:?} past R254");
        prop_assert!(p.first as u32 >= base && (p.last() as u32) < base + res.available, "{p:?} outside window");
        for r in p.regs() {
            prop_assert!(!taken.iter().any(|(t, _)| *t == r), "R{r} placed twice");
            taken.push((r, "value"));
            if let Some((lo, hi)) = spec.reserved {
                prop_assert!(!(lo.min(hi)..=lo.max(hi)).contains(&r), "R{r} in the reserved range");
            }
            if let Some((RegFile::R, ra)) = res.ret_addr {
                prop_assert!(r != ra && r as u32 != ra as u32 + 1, "R{r} is the return address R{ra}");
            }
            prop_assert!(r != res.stack_pointer, "R{r} is the stack pointer");
            let rl = role(res, RegFile::R, r);
            prop_assert!(rl == RegRole::Param || rl == RegRole::Return, "R{r} has role {rl:?}");
        }
    }
    // Without the size error every value that needs registers is placed.
    if res.error.is_none() {
        let all = res.params.iter().chain(&res.returns);
        let needs = spec.params.iter().chain(&spec.returns).map(|v| v.regs() > 0);
        for (p, needs) in all.zip(needs) {
            prop_assert_eq!(p.is_some(), needs);
        }
    }
    // Every step, in order.
    let mut last = 0;
    for c in &res.checks {
        let i = step::ORDER.iter().position(|s| *s == c.step).expect("known step");
        prop_assert!(i >= last, "{} after {}", c.step, step::ORDER[last]);
        last = i;
        prop_assert!(!c.passed || !c.detail.is_empty(), "passing check without detail: {c:?}");
    }
    for s in step::ORDER {
        prop_assert!(res.checks.iter().any(|c| c.step == s), "missing step {s}");
    }
    // R0-R3 are always fixed.
    for r in 0..4 {
        prop_assert!(res.fixed.contains(&(RegFile::R, r)));
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1024, ..ProptestConfig::default() })]

    #[test]
    fn placements_never_overlap_and_respect_alignment(
        spec in spec(),
        maxreg in prop_oneof![16u32..256, any::<u32>()],
        sm in prop_oneof![Just(35u32), Just(52), Just(61), Just(75), Just(86), Just(90), Just(100), Just(120)],
        coroutine in any::<bool>(),
    ) {
        let res = run(&spec, maxreg, sm, coroutine);
        check_invariants(&spec, &res)?;
    }

    #[test]
    fn arbitrary_modules_never_panic(seed in any::<u64>(), sm in prop_oneof![Just(52u32), Just(60), Just(90)]) {
        let cfg = GenConfig { max_functions: 4, ..GenConfig::default() };
        let mut m = arbitrary::module(&mut Rng::new(seed), &cfg);
        let sm = Sm::new(sm);
        let _ = report(&m, &sm);
        let limits = function_limits(&m, &sm);
        let declared: Vec<Option<u32>> = limits.iter().map(|&l| Some(l)).collect();
        prop_assert_eq!(propagate_limits(&m, &sm, &declared).len(), m.functions.len());
        let results: Vec<Option<AbiResult>> = (0..m.functions.len())
            .map(|i| {
                let _ = check_convergent(&m, i);
                let _ = check_reserved_smem(&m, i);
                let r = setup(&m, i, &AbiInput { maxreg: limits[i], sm: sm.clone() });
                r.engaged.then_some(r)
            })
            .collect();
        let before = m.clone();
        let lowered = lower_calls(&mut m, &results);
        // Lowering inserts exactly the MOVs it reports, and is idempotent.
        let added: usize = lowered.iter().map(|l| l.moves_before + l.moves_after).sum();
        let count = |m: &Module| m.functions.iter().map(|f| f.inst_count()).sum::<usize>();
        prop_assert_eq!(count(&m), count(&before) + added);
        let once = m.clone();
        prop_assert!(lower_calls(&mut m, &results).is_empty());
        prop_assert_eq!(m, once);
    }
}

/// A kernel `main` calling a device function `callee` (with `spec`) once, with the
/// given arguments and results drawn from a fixed set of registers.
fn call_module(spec: AbiSpec, args: &[u8], defs: &[u8], guarded: bool) -> Module {
    use radbg::ir::model::{Block, Guard, Inst, Operand, Reg, RegClass, RegRef};
    use radbg::ir::opcode::Opcode;
    let mut k = Function::new("main", FuncKind::Entry);
    let r = k.add_vreg("%r", RegClass::R, 1);
    let rd = k.add_vreg("%rd", RegClass::R, 2);
    let q = k.add_vreg("%q", RegClass::R, 4);
    let p = k.add_vreg("%p", RegClass::P, 1);
    let operand = |x: u8| match x % 7 {
        0 => Operand::vreg(r),
        1 => Operand::vreg(rd),
        2 => Operand::vreg(q),
        3 => Operand::Reg(Reg::V(RegRef { vreg: q, comp: Some(2) })),
        4 => Operand::Imm(-(x as i64)),
        5 => Operand::CBank { bank: 0, offset: 0x160 },
        _ => Operand::Imm(x as i64),
    };
    let mut uses = vec![Operand::Sym("callee".into())];
    uses.extend(args.iter().map(|&a| operand(a)));
    let defs: Vec<Operand> = defs.iter().map(|&d| operand(d % 4)).collect();
    let mut call = Inst::new(Opcode::named("CALL"), defs, uses);
    if guarded {
        call.guard = Some(Guard { reg: Reg::V(RegRef::whole(p)), negated: false });
    }
    k.blocks.push(Block { label: "BB0".into(), insts: vec![call, Inst::new(Opcode::named("EXIT"), vec![], vec![])] });
    let mut f = Function::new("callee", FuncKind::Device);
    f.abi = Some(spec);
    f.blocks.push(Block { label: "BB0".into(), insts: vec![Inst::new(Opcode::named("RET"), vec![], vec![])] });
    Module { functions: vec![k, f], ..Module::default() }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn lowering_pins_arguments_to_parameter_registers(
        spec in spec(),
        args in proptest::collection::vec(any::<u8>(), 0..6),
        defs in proptest::collection::vec(any::<u8>(), 0..3),
        guarded in any::<bool>(),
    ) {
        let mut m = call_module(spec, &args, &defs, guarded);
        let res = setup(&m, 1, &AbiInput { maxreg: 64, sm: Sm::new(90) });
        let any_placed = res.params.iter().chain(&res.returns).any(Option::is_some);
        let results = vec![None, Some(res.clone())];
        let lowered = lower_calls(&mut m, &results);
        prop_assert_eq!(lowered.len(), usize::from(any_placed));
        let Some(l) = lowered.first() else { return Ok(()) };
        let f = &m.functions[0];
        let insts = &f.blocks[0].insts;
        prop_assert_eq!(insts.len(), 2 + l.moves_before + l.moves_after);
        let call = &insts[l.inst];
        prop_assert!(call.has_mod("ABI"));
        // Each matched parameter's registers are carried, in order, by vregs pinned to them.
        let mut expected = Vec::new();
        for p in res.params.iter().take(args.len()).flatten() {
            expected.extend(p.regs());
        }
        let pinned_args: Vec<u16> = call.uses().iter()
            .filter_map(|op| op.as_vreg())
            .filter_map(|r| f.vreg(r.vreg).pin)
            .collect();
        prop_assert_eq!(pinned_args, expected);
        for (v, reg) in &l.pinned {
            prop_assert_eq!(f.vreg(*v).pin, Some(*reg));
            prop_assert_eq!(f.vreg(*v).width, 1);
        }
        // The MOVs before the CALL are unguarded, those after carry its guard.
        for mv in &insts[..l.inst] {
            prop_assert!(mv.guard.is_none());
        }
        for mv in &insts[l.inst + 1..l.inst + 1 + l.moves_after] {
            prop_assert_eq!(mv.guard, call.guard);
        }
        // The lowered kernel is printable and parseable (the callee's random spec is
        // dropped: its round trip is the parser's business), and lowering twice
        // changes nothing.
        let mut printable = m.clone();
        printable.functions[1].abi = None;
        let text = radbg::ir::print_module(&printable);
        let back = radbg::ir::parse_str(&text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        prop_assert_eq!(&back, &printable);
        let once = m.clone();
        prop_assert!(lower_calls(&mut m, &results).is_empty());
        prop_assert_eq!(m, once);
    }
}
