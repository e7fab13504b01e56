//! Master-setup behaviour, one case per warning code: which checks fail, with which
//! exact message, in which order. Specs are built in code so each case states only
//! what differs from the defaults.

use radbg::abi::{AbiInput, AbiResult, Placement, RegRole, RetAddrPlacement, role, setup, step};
use radbg::ir::abi_spec::{AbiSpec, AbiValue, Available, RegSet, RetAddr, RetAddrMode};
use radbg::ir::model::{FuncKind, Function, Module, RegClass, RegFile};
use radbg::ir::sm::Sm;

fn v(count: u32, size: u32) -> AbiValue {
    AbiValue { count, size, align: None, bind: None }
}

fn ra(mode: RetAddrMode, reg: Option<u16>) -> Option<RetAddr> {
    Some(RetAddr { mode, reg })
}

fn set(file: RegFile, lo: u16, hi: u16) -> Vec<RegSet> {
    vec![RegSet { file, ranges: vec![(lo, hi)] }]
}

struct Case {
    spec: AbiSpec,
    sm: u32,
    maxreg: u32,
    coroutine: bool,
}

fn case(spec: AbiSpec) -> Case {
    Case { spec, sm: 90, maxreg: 64, coroutine: false }
}

fn run(c: &Case) -> AbiResult {
    let mut f = Function::new("foo", FuncKind::Device);
    f.coroutine = c.coroutine;
    f.abi = Some(c.spec.clone());
    let m = Module { functions: vec![f], ..Module::default() };
    setup(&m, 0, &AbiInput { maxreg: c.maxreg, sm: Sm::new(c.sm) })
}

/// Runs a case and compares the failing checks, as "code: message" lines.
fn check(c: Case, expected: &[&str]) {
    let res = run(&c);
    let got: Vec<String> = res.failures().map(|f| format!("{}: {}", f.code, f.message)).collect();
    assert_eq!(got, expected, "spec {:?}", c.spec);
    // Every step appears, in the seed's order.
    let mut last = 0;
    for chk in &res.checks {
        let i = step::ORDER.iter().position(|s| *s == chk.step).expect("a master-setup step");
        assert!(i >= last, "step {} after {}", chk.step, step::ORDER[last]);
        last = i;
    }
    for s in step::ORDER {
        assert!(res.checks.iter().any(|c| c.step == s), "step {s} missing");
    }
}

#[test]
fn clean_spec_passes_everything() {
    let spec = AbiSpec {
        params: vec![v(1, 4), v(1, 8), v(4, 4)],
        returns: vec![v(1, 8)],
        ret_addr: ra(RetAddrMode::Regular, Some(20)),
        reserved: Some((40, 47)),
        preserved: set(RegFile::R, 24, 31),
        ..AbiSpec::default()
    };
    check(case(spec), &[]);
}

#[test]
fn w7016_regcount_below_minimum() {
    check(
        Case { maxreg: 16, sm: 80, ..case(AbiSpec::default()) },
        &["7016: regcount 16 specified below abi_minimum of 24"],
    );
    check(
        Case { maxreg: 12, sm: 52, ..case(AbiSpec::default()) },
        &["7016: regcount 12 specified below abi_minimum of 16"],
    );
    // Generation > 9 skips the check; generation 4 accepts 16.
    check(Case { maxreg: 12, sm: 100, ..case(AbiSpec::default()) }, &[]);
    check(Case { maxreg: 16, sm: 50, ..case(AbiSpec::default()) }, &[]);
}

#[test]
fn w7017_reservation_overflow() {
    let spec = AbiSpec { reserved: Some((40, 47)), ..AbiSpec::default() };
    check(
        Case { maxreg: 44, ..case(spec) },
        &["7017: register available 4 for reservation is less than the requested number of registers 8 "],
    );
    // A range beyond the register file never panics.
    let spec = AbiSpec { reserved: Some((300, 1000)), ..AbiSpec::default() };
    check(
        case(spec),
        &["7017: register available 0 for reservation is less than the requested number of registers 701 "],
    );
}

#[test]
fn w7006_retaddr_and_before_params() {
    let spec = AbiSpec { ret_addr: ra(RetAddrMode::Fixed, Some(8)), ..AbiSpec::default() };
    check(case(spec), &["7006: ABI allows either specifying return address or return address before params"]);
    let spec =
        AbiSpec { ret_addr: ra(RetAddrMode::Regular, Some(20)), ret_addr_before_params: true, ..AbiSpec::default() };
    check(case(spec), &["7006: ABI allows either specifying return address or return address before params"]);
}

#[test]
fn w7012_retaddr_classified_scratch() {
    let spec = AbiSpec {
        ret_addr: ra(RetAddrMode::Regular, Some(20)),
        scratch: set(RegFile::R, 16, 23),
        ..AbiSpec::default()
    };
    check(
        case(spec),
        // Seed 001: "always with argument 1 (the return address register)", one record.
        &["7012: 1 register should not be classified as scratch"],
    );
}

#[test]
fn w7013_return_register_preserved() {
    let spec = AbiSpec {
        params: vec![v(1, 4)],
        returns: vec![v(1, 4)],
        preserved: set(RegFile::R, 5, 5),
        ..AbiSpec::default()
    };
    check(case(spec), &["7013: 5 register used to return value cannot be classified as preserved"]);
}

#[test]
fn w7014_reserved_splits_parameters() {
    let spec = AbiSpec { params: vec![v(4, 4), v(4, 4)], reserved: Some((8, 11)), ..AbiSpec::default() };
    check(case(spec.clone()), &["7014: Reserved register range 8 - 11 overlaps with parameters in range 4 - 15"]);
    let res = run(&case(spec));
    assert_eq!(res.params[1], Some(Placement { first: 12, count: 4, align: 4 }));
    // A reserved range at the start of the parameter area just moves the parameters.
    let spec = AbiSpec { params: vec![v(1, 4)], reserved: Some((4, 7)), ..AbiSpec::default() };
    check(case(spec), &[]);
}

#[test]
fn w7015_reserved_holds_retaddr() {
    let spec = AbiSpec { ret_addr: ra(RetAddrMode::Regular, Some(20)), reserved: Some((21, 23)), ..AbiSpec::default() };
    check(case(spec), &["7015: Reserved register range 21 - 23 overlaps with retAddr 20"]);
}

#[test]
fn w7001_to_w7004_regular_path() {
    let regular = |r| AbiSpec { ret_addr: ra(RetAddrMode::Regular, Some(r)), ..AbiSpec::default() };
    check(case(regular(21)), &["7001: ABI return address 21 is unaligned"]);
    check(case(regular(70)), &["7002: Return Address (70) should be less than 64"]);
    check(
        case(AbiSpec { stack_pointer: Some(21), ..regular(20) }),
        &["7003: Return address (20) should not overlap with the stack pointer (21)"],
    );
    check(
        case(AbiSpec { params: vec![v(4, 4), v(4, 4)], ..regular(8) }),
        &["7004: Return Address 8 overlaps with parameters in range 4 - 15"],
    );
    check(case(regular(2)), &["0: Registers 0-3 are reserved by ABI and cannot be used for return address"]);
    check(
        case(AbiSpec { stack_pointer: Some(3), ..regular(2) }),
        &[
            "7003: Return address (2) should not overlap with the stack pointer (3)",
            "0: Registers 0-3 are reserved by ABI and cannot be used for return address",
        ],
    );
}

#[test]
fn w7005_computed_exceeds_limit() {
    let spec = |n| AbiSpec { params: vec![v(n, 4)], ..AbiSpec::default() };
    check(Case { maxreg: 24, ..case(spec(18)) }, &[]);
    check(
        Case { maxreg: 24, ..case(spec(19)) },
        &["7005: With specified parameters, return address is 26 registers and exceeds specified max reg (24)"],
    );
    let res = run(&Case { maxreg: 24, ..case(spec(18)) });
    assert_eq!(res.ret_addr, Some((RegFile::R, 22)));
    assert_eq!(res.ret_addr_placement, Some(RetAddrPlacement::Computed));
}

#[test]
fn w7008_w7009_uniform_path() {
    let uniform = |r| AbiSpec { ret_addr: ra(RetAddrMode::Uniform, Some(r)), ..AbiSpec::default() };
    check(Case { sm: 70, ..case(uniform(4)) }, &["7009: SM does not support uniform registers for return address"]);
    check(case(uniform(4)), &[]);
    check(case(uniform(62)), &["7008: Return address (62) should be between 0 and 61"]);
    check(case(uniform(5)), &["7001: ABI return address 5 is unaligned"]);
    let spec = AbiSpec { ret_addr_range: Some((4, 10)), params: vec![v(8, 4)], ..AbiSpec::default() };
    check(case(spec), &["7008: Return address (12) should be between 4 and 10"]);
}

#[test]
fn w7011_w7012_coroutine() {
    let spec = AbiSpec {
        ret_addr: ra(RetAddrMode::Regular, Some(20)),
        preserved: set(RegFile::R, 16, 19),
        suspend_scratch: vec![RegSet { file: RegFile::R, ranges: vec![(18, 18), (21, 21)] }],
        ..AbiSpec::default()
    };
    check(
        Case { coroutine: true, ..case(spec.clone()) },
        &[
            "7011: Register (R18)is defined as scratch on SUSPEND but preserved for coroutine function",
            "7012: 1 register should not be classified as scratch",
        ],
    );
    // Not a coroutine: the SUSPEND classification does not apply.
    check(case(spec), &[]);
}

#[test]
fn size_error_and_r0_r3() {
    let spec = AbiSpec { params: vec![v(1, 4), v(30, 4), v(1, 4)], returns: vec![v(1, 4)], ..AbiSpec::default() };
    let c = Case { maxreg: 24, ..case(spec) };
    check(c, &["0: Function foo size requires more registers(34) than available(20)"]);
    let res =
        run(&Case { maxreg: 24, ..case(AbiSpec { params: vec![v(1, 4), v(30, 4), v(1, 4)], ..AbiSpec::default() }) });
    assert_eq!(res.params, vec![Some(Placement { first: 4, count: 1, align: 1 }), None, None]);
    assert_eq!(res.error.as_deref(), Some("Function foo size requires more registers(34) than available(20)"));

    let spec = AbiSpec { first_param: Some(2), params: vec![v(1, 4)], ..AbiSpec::default() };
    check(case(spec.clone()), &["0: Registers 0-3 are reserved by ABI and cannot be used for parameters"]);
    assert_eq!(run(&case(spec)).params, vec![Some(Placement { first: 4, count: 1, align: 1 })]);
}

#[test]
fn placements_roles_pins_and_fixed() {
    let mut f = Function::new("bar", FuncKind::Device);
    let a = f.add_vreg("%a", RegClass::R, 2);
    let r = f.add_vreg("%ret", RegClass::R, 1);
    f.abi = Some(AbiSpec {
        params: vec![AbiValue { bind: Some(a), ..v(1, 8) }, v(1, 4)],
        returns: vec![AbiValue { bind: Some(r), ..v(1, 4) }],
        ret_addr_before_params: true,
        reserved: Some((40, 41)),
        ..AbiSpec::default()
    });
    let mut m = Module { functions: vec![f], ..Module::default() };
    let res = setup(&m, 0, &AbiInput { maxreg: 64, sm: Sm::new(90) });
    assert!(res.failures().next().is_none(), "{:?}", res.failures().collect::<Vec<_>>());
    // Return address R4:R5 before the parameters; the pair goes to R6, the single to R8.
    assert_eq!(res.ret_addr, Some((RegFile::R, 4)));
    assert_eq!(
        res.params,
        vec![Some(Placement { first: 6, count: 2, align: 2 }), Some(Placement { first: 8, count: 1, align: 1 })]
    );
    assert_eq!(res.returns, vec![Some(Placement { first: 9, count: 1, align: 1 })]);
    assert_eq!(res.pins, vec![(a, 6), (r, 9)]);
    assert_eq!(res.exit_live, vec![r]);
    // A call clobbers the parameter, return and return-address registers and the
    // scratch registers below the limit; never R0-R3, the reserved or preserved ones.
    let clobbers = res.clobbers();
    assert_eq!(&clobbers[..8], &[4, 5, 6, 7, 8, 9, 10, 11]);
    assert!(!clobbers.contains(&16) && !clobbers.contains(&40) && !clobbers.contains(&64));
    assert_eq!(clobbers.last(), Some(&63));
    let fixed: Vec<u16> = res.fixed.iter().map(|(_, r)| *r).collect();
    assert_eq!(fixed, vec![0, 1, 2, 3, 4, 5, 40, 41]);
    assert_eq!(role(&res, RegFile::R, 1), RegRole::StackPointer);
    assert_eq!(role(&res, RegFile::R, 5), RegRole::RetAddr);
    assert_eq!(role(&res, RegFile::R, 7), RegRole::Param);
    assert_eq!(role(&res, RegFile::R, 9), RegRole::Return);
    assert_eq!(role(&res, RegFile::R, 10), RegRole::Scratch);
    assert_eq!(role(&res, RegFile::R, 20), RegRole::Preserved);
    assert_eq!(role(&res, RegFile::R, 40), RegRole::Reserved);
    radbg::abi::apply_pins(&mut m, 0, &res);
    assert_eq!(m.functions[0].vregs[a.index()].pin, Some(6));
    assert_eq!(m.functions[0].vregs[a.index()].flags & radbg::ir::model::vflags::PREASSIGNED, 0x200);
}

#[test]
fn bad_bindings_are_reported_not_pinned() {
    let mut f = Function::new("bar", FuncKind::Device);
    let p = f.add_vreg("%p", RegClass::P, 1);
    f.abi = Some(AbiSpec {
        params: vec![
            AbiValue { bind: Some(p), ..v(1, 4) },
            AbiValue { bind: Some(radbg::ir::model::VRegId(99)), ..v(1, 4) },
        ],
        ..AbiSpec::default()
    });
    let m = Module { functions: vec![f], ..Module::default() };
    let res = setup(&m, 0, &AbiInput { maxreg: 64, sm: Sm::new(90) });
    assert!(res.pins.is_empty());
    let msgs: Vec<&str> = res.failures().map(|c| c.message.as_str()).collect();
    assert_eq!(
        msgs,
        vec![
            "radbg: parameter #0 is bound to %p of class P, not an R register",
            "radbg: parameter #1 is bound to vreg #99 which does not exist"
        ]
    );
}

#[test]
fn disengaged_and_out_of_range() {
    let m = Module { functions: vec![Function::new("k", FuncKind::Entry)], ..Module::default() };
    let res = setup(&m, 0, &AbiInput { maxreg: 64, sm: Sm::new(90) });
    assert!(!res.engaged && res.checks.is_empty() && res.fixed.is_empty());
    let res = setup(&m, 5, &AbiInput { maxreg: 64, sm: Sm::new(90) });
    assert!(res.error.unwrap().contains("no function #5"));
    // A device function without a spec gets the defaults.
    let m = Module { functions: vec![Function::new("d", FuncKind::Device)], ..Module::default() };
    let res = setup(&m, 0, &AbiInput { maxreg: 64, sm: Sm::new(90) });
    assert!(res.engaged && res.failures().next().is_none());
    assert_eq!(res.ret_addr, Some((RegFile::R, 4)));
    assert_eq!((res.first_param, res.available), (4, 60));
}

#[test]
fn available_computed_stops_at_reserved() {
    let spec = AbiSpec {
        params: vec![v(8, 4), v(8, 4)],
        available: Some(Available::Computed),
        reserved: Some((12, 15)),
        ..AbiSpec::default()
    };
    let res = run(&case(spec));
    assert_eq!(res.available, 8);
    assert_eq!(res.error.as_deref(), Some("Function foo size requires more registers(20) than available(8)"));
}
