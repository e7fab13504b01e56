//! The master ABI setup (seed 001, "Master ABI Setup: sub_19D1AF0"): runs the
//! validation steps in the seed's order ("Validation Order") and gathers placements,
//! pins, fixed registers and roles into an [`AbiResult`].
//!
//! Owns: the order of the steps and the checks of steps 1, 2, 4, 5 and 7. Must not
//! know: allocation (it only says what the allocator must respect).
//!
//! Computation order differs from record order where the seed's data flow needs it:
//! a computed return address depends on the parameter layout, so parameters are
//! allocated first, then the records are emitted in the seven steps' order.

use crate::abi::catalog::{self, Arg};
use crate::abi::classify::{self, RoleInputs};
use crate::abi::params::{self, ABI_RESERVED, MAX_REG_EXCLUSIVE, Placement, SLOTS, ValueRef};
use crate::abi::retaddr::{self, Facts, clamp16};
use crate::abi::{AbiCheck, AbiInput, AbiResult, step};
use crate::ir::abi_spec::{AbiSpec, Available};
use crate::ir::model::{FuncKind, Function, Module, RegFile, VRegId, vflags};
use crate::ir::sm::Sm;

/// Master setup of function `func` (sub_19D1AF0). Never panics: an index out of
/// range gives a disengaged result carrying an error.
pub fn setup(m: &Module, func: usize, input: &AbiInput) -> AbiResult {
    let limit = input.maxreg.min(255);
    let Some(f) = m.functions.get(func) else {
        let mut r = AbiResult::disengaged(limit);
        r.error = Some(format!("no function #{func} (the module has {})", m.functions.len()));
        return r;
    };
    if f.abi.is_none() && f.kind != FuncKind::Device {
        return AbiResult::disengaged(limit);
    }
    let default_spec = AbiSpec::default();
    let spec = f.abi.as_ref().unwrap_or(&default_spec);
    run(f, spec, limit, &input.sm)
}

fn run(f: &Function, spec: &AbiSpec, limit: u32, sm: &Sm) -> AbiResult {
    let base = spec.first_param.map_or(ABI_RESERVED, u32::from);
    let sp = spec.stack_pointer.map_or(1, u32::from);
    let reserved = spec.reserved.map(|(a, b)| (a.min(b) as u32, a.max(b) as u32));
    let avail = match spec.available {
        None => limit.saturating_sub(base),
        Some(Available::Count(n)) => n,
        Some(Available::Computed) => {
            let top = match reserved {
                Some((lo, _)) if lo >= base && lo < limit => lo,
                _ => limit,
            };
            top.saturating_sub(base)
        }
    };
    let avail = avail.min(SLOTS as u32).min(MAX_REG_EXCLUSIVE.saturating_sub(base));

    let plan = retaddr::plan(spec, base);
    // Withheld from parameters: the return address (when known), the reserved
    // range and the stack pointer — registers the allocator keeps fixed.
    let mut withheld = plan.pre_occupied();
    if let Some((lo, hi)) = reserved {
        withheld.extend(lo..=hi.min(base.saturating_add(SLOTS as u32)));
    }
    withheld.push(sp);
    let layout = params::allocate(spec, base, avail, &withheld);
    let ra = plan.resolve(&layout, base);
    let ra_file = plan.file;

    let mut checks = Vec::new();
    // Step 1: regcount vs. abi_minimum -> 7016.
    checks.push(check_7016(limit, sm));
    // Step 2: register reservation overflow -> 7017.
    checks.push(check_7017(reserved, limit));
    // Step 3: return address setup -> 7006, 7012 (sub_19D1720).
    let mut step3 = retaddr::setup_checks(&plan, ra, &classify::explicit_regs(&spec.scratch, ra_file));
    if let (Some(what), Some(first)) = (plan.ignored, step3.first_mut()) {
        first.detail = format!("{}; ignored: {what}", first.detail);
    }
    checks.extend(step3);
    // Step 4: parameter allocation -> 7013, 7014 (sub_19CA730), the size error.
    let mut error = None;
    checks.extend(param_checks(f, spec, &layout, base, reserved, &mut error));
    // Step 5: reserved range vs. retAddr -> 7015 (sub_19C69D0).
    checks.push(check_7015(reserved, ra_file, ra));
    // Step 6: return address validation (sub_19CDFF0).
    checks.extend(retaddr::validate(&Facts {
        placement: plan.placement,
        file: ra_file,
        ra,
        limit,
        stack_pointer: sp,
        range: spec.ret_addr_range,
        has_uniform: sm.has_uniform_registers(),
        params: &layout.params,
    }));
    // Step 7: coroutine SUSPEND validation -> 7011, 7012.
    checks.extend(coroutine_checks(f, spec, ra_file, ra));

    let (pins, bind_checks) = bindings(f, spec, &layout.params, &layout.returns);
    let mut exit_live: Vec<VRegId> = Vec::new();
    for id in spec.returns.iter().filter_map(|v| v.bind) {
        if pins.iter().any(|(p, _)| *p == id) && !exit_live.contains(&id) {
            exit_live.push(id);
        }
    }
    // Binding problems belong to the parameter step: insert them after its records.
    let at = checks.iter().rposition(|c| c.step == step::PARAMS).map_or(checks.len(), |i| i + 1);
    checks.splice(at..at, bind_checks);

    let mut fixed: Vec<(RegFile, u16)> = (0..ABI_RESERVED as u16).map(|r| (RegFile::R, r)).collect();
    let in_file = |file: RegFile, r: u32| r < file.zero_register().map_or(file.arch_size(), |z| z) as u32;
    for r in [ra, ra.saturating_add(1)] {
        if in_file(ra_file, r) {
            fixed.push((ra_file, r as u16));
        }
    }
    if let Some((lo, hi)) = reserved {
        fixed.extend((lo..=hi.min(MAX_REG_EXCLUSIVE - 1)).map(|r| (RegFile::R, r as u16)));
    }
    if in_file(RegFile::R, sp) {
        fixed.push((RegFile::R, sp as u16));
    }
    fixed.sort();
    fixed.dedup();

    let classes = classify::build_roles(&RoleInputs {
        spec,
        params: &layout.params,
        returns: &layout.returns,
        ret_addr: Some((ra_file, ra)),
        stack_pointer: sp,
        reserved,
    });
    if let Some(fail) = layout.failure {
        error = error.or(Some(size_message(f, fail.needed, fail.available)));
    }
    AbiResult {
        engaged: true,
        checks,
        params: layout.params,
        returns: layout.returns,
        ret_addr: Some((ra_file, clamp16(ra))),
        ret_addr_placement: Some(plan.placement),
        pins,
        exit_live,
        fixed,
        error,
        classes,
        limit,
        first_param: base,
        available: avail,
        stack_pointer: clamp16(sp),
    }
}

fn check_7016(limit: u32, sm: &Sm) -> AbiCheck {
    let c = AbiCheck::new(&catalog::W7016, step::REGCOUNT, "maxreg");
    match sm.abi_minimum() {
        Some(min) => {
            let low = limit < min;
            c.msg(&catalog::W7016, &[limit.into(), min.into()]).fail(low).detail(format!(
                "regcount {limit} {} abi minimum {min} ({sm}, generation {})",
                if low { "<" } else { "≥" },
                sm.generation()
            ))
        }
        None => c.detail(format!("{sm} (generation {}): no ABI minimum", sm.generation())),
    }
}

fn check_7017(reserved: Option<(u32, u32)>, limit: u32) -> AbiCheck {
    let c = AbiCheck::new(&catalog::W7017, step::RESERVATION, "reserved");
    let Some((lo, hi)) = reserved else {
        return c.detail("no reserved range");
    };
    let requested = hi - lo + 1;
    let available = limit.saturating_sub(lo);
    let bad = available < requested;
    c.msg(&catalog::W7017, &[available.into(), requested.into()])
        .fail(bad)
        .regs((lo..=hi.min(MAX_REG_EXCLUSIVE - 1)).map(|r| (RegFile::R, r as u16)))
        .detail(format!("R{lo}..R{hi} requests {requested}; {available} registers from R{lo} up to the limit {limit}"))
}

fn size_message(f: &Function, needed: u64, available: u32) -> String {
    catalog::SIZE_ERROR.format(&[
        f.name.as_str().into(),
        Arg::Int(i64::try_from(needed).unwrap_or(i64::MAX)),
        available.into(),
    ])
}

fn r_regs(p: &Placement) -> impl Iterator<Item = (RegFile, u16)> + use<> {
    p.regs().map(|r| (RegFile::R, r))
}

fn param_checks(
    f: &Function,
    spec: &AbiSpec,
    layout: &params::Layout,
    base: u32,
    reserved: Option<(u32, u32)>,
    error: &mut Option<String>,
) -> Vec<AbiCheck> {
    let mut out = Vec::new();
    if base < ABI_RESERVED {
        out.push(
            AbiCheck::new(&catalog::RESERVED_R0_R3, step::PARAMS, "first-param")
                .msg(&catalog::RESERVED_R0_R3, &["parameters".into()])
                .fail(true)
                .regs((base..ABI_RESERVED).map(|r| (RegFile::R, r as u16)))
                .detail(format!("first-param R{base} lies in R0–R3; parameters start at R4")),
        );
    }
    // 7013: a return register in the explicit preserved set.
    let preserved = classify::explicit_regs(&spec.preserved, RegFile::R);
    let ret_regs: Vec<u16> = layout.returns.iter().flatten().flat_map(|p| p.regs()).collect();
    let hits: Vec<u16> = ret_regs.iter().copied().filter(|r| preserved.contains(r)).collect();
    if hits.is_empty() {
        out.push(
            AbiCheck::new(&catalog::W7013, step::PARAMS, "preserved")
                .detail(format!("{} return register(s), none in a preserved set", ret_regs.len())),
        );
    }
    for r in hits {
        out.push(
            AbiCheck::new(&catalog::W7013, step::PARAMS, "preserved")
                .msg(&catalog::W7013, &[r.into()])
                .fail(true)
                .regs([(RegFile::R, r)])
                .detail(format!("R{r} returns a value but is listed as preserved")),
        );
    }
    // 7014: the reserved range against the parameter span. Parameters never take a
    // reserved register (they are withheld), so the range overlaps only by splitting
    // the block of consecutive parameter registers.
    let c7014 = AbiCheck::new(&catalog::W7014, step::PARAMS, "reserved");
    out.push(match (reserved, retaddr::param_span(&layout.params)) {
        (None, _) => c7014.detail("no reserved range"),
        (Some((lo, hi)), None) => c7014.detail(format!("R{lo}..R{hi}; no parameter in registers")),
        (Some((lo, hi)), Some((plo, phi))) => {
            let bad = lo <= phi && hi >= plo;
            c7014
                .msg(&catalog::W7014, &[lo.into(), hi.into(), plo.into(), phi.into()])
                .fail(bad)
                .regs((lo.max(plo)..=hi.min(phi)).map(|r| (RegFile::R, r as u16)))
                .detail(format!(
                    "reserved R{lo}..R{hi} {} the parameter block R{plo}..R{phi}",
                    if bad { "splits" } else { "lies outside" }
                ))
        }
    });
    // The size error of sub_19CA730.
    let c = AbiCheck::new(&catalog::SIZE_ERROR, step::PARAMS, "param");
    out.push(match layout.failure {
        Some(fail) => {
            let msg = size_message(f, fail.needed, fail.available);
            *error = Some(msg.clone());
            let (what, field) = match fail.value {
                ValueRef::Param(i) => (format!("parameter #{i}"), "param"),
                ValueRef::Return(i) => (format!("return value #{i}"), "return"),
            };
            AbiCheck { field, message: msg, ..c }.fail(true).detail(format!(
                "{what} does not fit in {} slots from R{base}; it and every later value go on the stack",
                fail.available
            ))
        }
        None => {
            let used: u32 = layout.params.iter().chain(&layout.returns).flatten().map(|p| p.count as u32).sum();
            c.detail(format!(
                "{} parameter(s) and {} return value(s) in {used} registers from R{base}",
                layout.params.iter().flatten().count(),
                layout.returns.iter().flatten().count()
            ))
        }
    });
    out
}

fn check_7015(reserved: Option<(u32, u32)>, file: RegFile, ra: u32) -> AbiCheck {
    let c = AbiCheck::new(&catalog::W7015, step::RESERVED_VS_RETADDR, "reserved");
    let Some((lo, hi)) = reserved else {
        return c.detail("no reserved range");
    };
    let c = c.msg(&catalog::W7015, &[lo.into(), hi.into(), Arg::Int(ra as i64)]);
    if file != RegFile::R {
        return c.detail(format!("return address is {}; the reserved range is in R", retaddr::name(file, ra)));
    }
    let bad = (lo..=hi).contains(&ra) || (lo..=hi).contains(&ra.saturating_add(1));
    c.fail(bad).regs([(file, clamp16(ra)), (file, clamp16(ra.saturating_add(1)))]).detail(format!(
        "R{ra}:R{} {} R{lo}..R{hi}",
        ra.saturating_add(1),
        if bad { "inside" } else { "outside" }
    ))
}

fn coroutine_checks(f: &Function, spec: &AbiSpec, ra_file: RegFile, ra: u32) -> Vec<AbiCheck> {
    let c7011 = || AbiCheck::new(&catalog::W7011, step::COROUTINE, "suspend-scratch");
    let c7012 = || AbiCheck::new(&catalog::W7012, step::COROUTINE, "suspend-scratch");
    if !f.coroutine {
        return vec![c7011().detail("not a coroutine"), c7012().detail("not a coroutine")];
    }
    let mut out = Vec::new();
    for file in RegFile::ALL {
        let (preserved, _) = classify::effective_sets(spec, file);
        let suspend = classify::explicit_regs(&spec.suspend_scratch, file);
        for r in preserved.iter().filter(|r| suspend.contains(r)) {
            out.push(
                c7011()
                    .msg(&catalog::W7011, &[file.prefix().into(), (*r).into()])
                    .fail(true)
                    .regs([(file, *r)])
                    .detail(format!("{}{r} is preserved but scratch at SUSPEND", file.prefix())),
            );
        }
    }
    if out.is_empty() {
        out.push(c7011().detail("no preserved register is scratch at SUSPEND"));
    }
    let suspend = classify::explicit_regs(&spec.suspend_scratch, ra_file);
    let hits: Vec<u32> = [ra, ra.saturating_add(1)].into_iter().filter(|r| suspend.contains(&clamp16(*r))).collect();
    // 7012 prints argument 1 whatever the register (seed 001, sub_19D1720; radbg does
    // the same on this path): one record, the registers in its detail.
    let c = c7012().msg(&catalog::W7012, &[Arg::Int(retaddr::W7012_ARG)]);
    out.push(if hits.is_empty() {
        c.detail(format!("return address {} survives SUSPEND", retaddr::name(ra_file, ra)))
    } else {
        let names: Vec<String> = hits.iter().map(|&r| retaddr::name(ra_file, r)).collect();
        c.fail(true).regs(hits.iter().map(|&r| (ra_file, clamp16(r)))).detail(format!(
            "{} {} the return address but {} scratch at SUSPEND",
            names.join(" and "),
            if hits.len() > 1 { "hold" } else { "holds" },
            if hits.len() > 1 { "are" } else { "is" }
        ))
    });
    out
}

/// Pins for bound vregs (`param 1x8 = %rd0`), and un-numbered checks for bindings
/// radbg cannot honour (a vreg of another file or width than its registers).
fn bindings(
    f: &Function,
    spec: &AbiSpec,
    params: &[Option<Placement>],
    returns: &[Option<Placement>],
) -> (Vec<(VRegId, u16)>, Vec<AbiCheck>) {
    let mut pins = Vec::new();
    let mut checks = Vec::new();
    let values = spec
        .params
        .iter()
        .zip(params)
        .enumerate()
        .map(|(i, (v, p))| ("parameter", "param", i, v, p))
        .chain(spec.returns.iter().zip(returns).enumerate().map(|(i, (v, p))| ("return value", "return", i, v, p)));
    for (what, field, i, v, p) in values {
        let (Some(id), Some(p)) = (v.bind, p) else { continue };
        const NOT_PINNED: &str = "not pinned: the vreg must be an R register as wide as its placement";
        let problem = match f.vregs.get(id.index()) {
            None => Some((format!("{what} #{i} is bound to vreg #{} which does not exist", id.0), NOT_PINNED)),
            Some(vr) if vr.file() != RegFile::R => Some((
                format!("{what} #{i} is bound to {} of class {}, not an R register", vr.name, vr.class.name()),
                NOT_PINNED,
            )),
            Some(vr) if vr.width as u16 != p.count => Some((
                format!(
                    "{what} #{i} takes {} register(s) R{}..R{} but {} is {} wide",
                    p.count,
                    p.first,
                    p.last(),
                    vr.name,
                    vr.width
                ),
                NOT_PINNED,
            )),
            Some(vr) => {
                pins.push((id, p.first));
                vr.pin.filter(|&old| old != p.first).map(|old| {
                    (
                        format!(
                            "{} is pinned to R{old} in the body; the ABI places {what} #{i} at R{}",
                            vr.name, p.first
                        ),
                        "the ABI's register replaces the body's pin",
                    )
                })
            }
        };
        if let Some((text, detail)) = problem {
            checks.push(AbiCheck {
                code: 0,
                hex: 0,
                step: step::PARAMS,
                message: format!("radbg: {text}"),
                passed: false,
                regs: r_regs(p).collect(),
                field,
                detail: detail.to_string(),
            });
        }
    }
    (pins, checks)
}

/// Writes `res.pins` into the function's vregs (pin + the pre-assigned flag of seed
/// 000, 0x200). Ignores ids out of range.
pub fn apply_pins(m: &mut Module, func: usize, res: &AbiResult) {
    let Some(f) = m.functions.get_mut(func) else { return };
    for &(id, reg) in &res.pins {
        if let Some(v) = f.vregs.get_mut(id.index()) {
            v.pin = Some(reg);
            v.flags |= vflags::PREASSIGNED;
        }
    }
}
