//! Return-address placement, setup checks (sub_19D1720: 7006, 7012) and the
//! validator (sub_19CDFF0: 7001–7005, 7008, 7009), seed 001 "Return Address Modes"
//! and "Return Address Validator".
//!
//! Owns: where the return-address pair goes in each mode and which checks each mode
//! runs. Must not know: how parameters are allocated (it receives their placements).
//!
//! Placement (radbg's reading of the seed; every case is one [`RetAddrPlacement`]):
//! - `fixed`: first parameter register + 2 (R6 for R4). An explicit register is a
//!   7006 conflict and is ignored.
//! - `regular Rn`: Rn. Without a register: R20 (the register device functions
//!   return through in real SASS, `RET.REL.NODEC R20`).
//! - `uniform URn`: URn (UR0 without a register); the R file is untouched.
//! - `computed` (and no `retaddr` line at all): the first even register after the
//!   last parameter and return register (the first parameter register, made even,
//!   when there are none). `computed Rn` takes Rn as given and validates it on the
//!   computed path.
//! - `retaddr-before-params` with no explicit register (and a mode other than
//!   `uniform`/`fixed`): the first parameter register made even, withheld before
//!   the parameters, which then start after it. With an explicit register it is the
//!   7006 conflict, and the explicit register wins.
//!
//! Every R-file return address known before parameter allocation (all but the
//! computed one) is withheld from the parameter allocator, so parameters never share
//! a register with it. The seed's parameters are "passed in consecutive R registers";
//! 7004 therefore fires when the return address lies *inside the parameter span*
//! (lowest to highest parameter register), i.e. when it splits the parameter block
//! (for `regular`; `fixed` is the architecture's own split and is not reported).
//!
//! Validation paths (seed: "Mode 2 enters the 7002/7001/7003/7004 path. Modes 3 and 5
//! enter the 7009/7008/7001 path. Mode 1 and mode 5 share the auto-placement path
//! where 7005 fires"): regular → 7002, 7001, 7003, 7004; uniform → 7009, 7008, 7001;
//! computed → 7005, 7008, 7001; fixed and before-params → 7005, 7001.

use crate::abi::AbiCheck;
use crate::abi::catalog::{self, Arg};
use crate::abi::params::{Layout, Placement};
use crate::abi::step;
use crate::ir::abi_spec::{AbiSpec, RetAddrMode};
use crate::ir::model::RegFile;

/// How the return address was placed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum RetAddrPlacement {
    Fixed,
    Regular,
    Uniform,
    Computed,
    BeforeParams,
}

impl RetAddrPlacement {
    pub fn name(self) -> &'static str {
        match self {
            RetAddrPlacement::Fixed => "fixed",
            RetAddrPlacement::Regular => "regular",
            RetAddrPlacement::Uniform => "uniform",
            RetAddrPlacement::Computed => "computed",
            RetAddrPlacement::BeforeParams => "before-params",
        }
    }
}

/// The default register of `regular` without one.
pub const DEFAULT_REGULAR: u32 = 20;
/// The default register of `uniform` without one.
pub const DEFAULT_UNIFORM: u32 = 0;

/// The return-address decision before parameter allocation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    pub placement: RetAddrPlacement,
    pub file: RegFile,
    /// The register, when known before parameter allocation.
    pub reg: Option<u32>,
    /// The explicit register written in the spec (field +24), if any.
    pub explicit: Option<u16>,
    /// Both an explicit register and "before params" (fixed or the flag): 7006.
    pub conflict_7006: bool,
    /// Something the spec said that this placement ignores, for the check detail.
    pub ignored: Option<&'static str>,
}

fn even(r: u32) -> u32 {
    r.saturating_add(1) & !1
}

/// Decides the placement from the spec and the first parameter register.
pub fn plan(spec: &AbiSpec, base: u32) -> Plan {
    let mode = spec.ret_addr.map(|r| r.mode);
    let explicit = spec.ret_addr.and_then(|r| r.reg);
    let before = spec.ret_addr_before_params;
    let mut p = Plan {
        placement: RetAddrPlacement::Computed,
        file: RegFile::R,
        reg: explicit.map(u32::from),
        explicit,
        conflict_7006: explicit.is_some() && (before || mode == Some(RetAddrMode::Fixed)),
        ignored: None,
    };
    match mode {
        Some(RetAddrMode::Fixed) => {
            p.placement = RetAddrPlacement::Fixed;
            p.reg = Some(base.saturating_add(2));
            if explicit.is_some() {
                p.ignored = Some("the explicit register (fixed mode places it at first-param + 2)");
            }
        }
        Some(RetAddrMode::Uniform) => {
            p.placement = RetAddrPlacement::Uniform;
            p.file = RegFile::UR;
            p.reg = Some(explicit.map_or(DEFAULT_UNIFORM, u32::from));
            if before {
                p.ignored = Some("retaddr-before-params (a uniform return address takes no R register)");
            }
        }
        Some(RetAddrMode::Regular) | Some(RetAddrMode::Computed) | None if explicit.is_none() && before => {
            p.placement = RetAddrPlacement::BeforeParams;
            p.reg = Some(even(base));
        }
        Some(RetAddrMode::Regular) => {
            p.placement = RetAddrPlacement::Regular;
            p.reg = Some(explicit.map_or(DEFAULT_REGULAR, u32::from));
            if before {
                p.ignored = Some("retaddr-before-params (the explicit register wins)");
            }
        }
        Some(RetAddrMode::Computed) | None => {
            p.placement = RetAddrPlacement::Computed;
            if before {
                p.ignored = Some("retaddr-before-params (the explicit register wins)");
            }
        }
    }
    p
}

impl Plan {
    /// R registers withheld from the parameter allocator: the pair, when it is in
    /// the R file and known before the parameters are placed.
    pub fn pre_occupied(&self) -> Vec<u32> {
        match (self.file, self.reg) {
            (RegFile::R, Some(r)) => vec![r, r.saturating_add(1)],
            _ => Vec::new(),
        }
    }

    /// The final register once parameters and returns are placed.
    pub fn resolve(&self, layout: &Layout, base: u32) -> u32 {
        if let Some(r) = self.reg {
            return r;
        }
        let end = layout
            .params
            .iter()
            .chain(&layout.returns)
            .flatten()
            .map(|p| p.first as u32 + p.count as u32)
            .max()
            .unwrap_or(base);
        even(end.max(base))
    }
}

/// Step 3, sub_19D1720: 7006 (mutual exclusion) and 7012 (the return address
/// classified as scratch). `scratch` is the spec's explicit scratch registers of the
/// return address's file; the seed gates 7012 on "preserved classification active",
/// which an explicit scratch set implies in Ori IR. Seed 001: "The 7012 check fires
/// when [...] both set, always with argument 1 (the return address register)": radbg
/// prints `1 register should not be classified as scratch`, once, whichever halves of
/// the pair are in the set; the record's registers and detail name them.
pub fn setup_checks(plan: &Plan, ra: u32, scratch: &[u16]) -> Vec<AbiCheck> {
    let mut out = Vec::new();
    let c = AbiCheck::new(&catalog::W7006, step::RETADDR_SETUP, "retaddr-before-params")
        .msg(&catalog::W7006, &[])
        .fail(plan.conflict_7006);
    out.push(if plan.conflict_7006 {
        let how = if plan.placement == RetAddrPlacement::Fixed { "fixed mode" } else { "retaddr-before-params" };
        let reg = name(plan.file, plan.explicit.map_or(0, u32::from));
        c.detail(format!("explicit return address {reg} given together with {how}"))
    } else {
        c.detail(format!("return address placement: {}", plan.placement.name()))
    });
    let pair = [ra, ra.saturating_add(1)];
    let hits: Vec<u32> = pair.iter().copied().filter(|&r| scratch.iter().any(|&s| s as u32 == r)).collect();
    let c = AbiCheck::new(&catalog::W7012, step::RETADDR_SETUP, "scratch").msg(&catalog::W7012, &[W7012_ARG.into()]);
    out.push(if hits.is_empty() {
        c.regs(pair.iter().map(|&r| (plan.file, r as u16)))
            .detail(format!("return address {} is not in a scratch set", name(plan.file, ra)))
    } else {
        let names: Vec<String> = hits.iter().map(|&r| name(plan.file, r)).collect();
        c.fail(true).regs(hits.iter().map(|&r| (plan.file, r as u16))).detail(format!(
            "{} {} the return address but {} listed as scratch",
            names.join(" and "),
            if hits.len() > 1 { "hold" } else { "holds" },
            if hits.len() > 1 { "are" } else { "is" }
        ))
    });
    out
}

/// The argument ptxas always prints in 7012 (seed 001: "always with argument 1 (the
/// return address register)").
pub const W7012_ARG: i64 = 1;

/// `R20`, `UR4`.
pub fn name(file: RegFile, r: u32) -> String {
    format!("{}{}", file.prefix(), r)
}

/// What the validator reads.
pub struct Facts<'a> {
    pub placement: RetAddrPlacement,
    pub file: RegFile,
    pub ra: u32,
    pub limit: u32,
    pub stack_pointer: u32,
    /// `retaddr-range`, or `None` for the file's default.
    pub range: Option<(u16, u16)>,
    pub has_uniform: bool,
    pub params: &'a [Option<Placement>],
}

/// The 7008 range when the spec gives none: above R0–R3 with the pair below RZ, or
/// the whole UR file below URZ.
pub fn default_range(file: RegFile) -> (u32, u32) {
    match file {
        RegFile::UR => (0, 61),
        _ => (4, 253),
    }
}

/// Step 6, sub_19CDFF0, by placement (see the module doc for the paths). 7005's
/// "return address is %d registers" is filled with the register count the pair
/// needs (return address + 2), compared against the limit.
pub fn validate(f: &Facts) -> Vec<AbiCheck> {
    let ra = f.ra;
    let pair = [(f.file, clamp16(ra)), (f.file, clamp16(ra.saturating_add(1)))];
    let new = |d: &catalog::Diag, field: &'static str| AbiCheck::new(d, step::RETADDR_VALIDATE, field).regs(pair);
    let mut out = Vec::new();
    let c7001 = || {
        let odd = ra & 1 != 0;
        new(&catalog::W7001, "retaddr").msg(&catalog::W7001, &[Arg::Int(ra as i64)]).fail(odd).detail(format!(
            "{} is {}",
            name(f.file, ra),
            if odd { "odd: a 64-bit pair needs an even register" } else { "even" }
        ))
    };
    let c7005 = || {
        let needed = ra.saturating_add(2);
        let bad = needed > f.limit;
        new(&catalog::W7005, "param")
            .msg(&catalog::W7005, &[Arg::Int(needed as i64), Arg::Int(f.limit as i64)])
            .fail(bad)
            .detail(format!(
                "pair {}:{} needs {needed} registers, limit {}",
                name(f.file, ra),
                name(f.file, ra.saturating_add(1)),
                f.limit
            ))
    };
    let c7008 = || {
        let (lo, hi) = f.range.map_or(default_range(f.file), |(a, b)| (a as u32, b as u32));
        let bad = ra < lo || ra > hi;
        new(&catalog::W7008, "retaddr-range")
            .msg(&catalog::W7008, &[Arg::Int(ra as i64), Arg::Int(lo as i64), Arg::Int(hi as i64)])
            .fail(bad)
            .detail(format!(
                "{} {} {}..{}{}",
                name(f.file, ra),
                if bad { "outside" } else { "within" },
                lo,
                hi,
                if f.range.is_none() { " (default range)" } else { "" }
            ))
    };
    match f.placement {
        RetAddrPlacement::Regular => {
            let bad = ra >= f.limit;
            out.push(
                new(&catalog::W7002, "retaddr")
                    .msg(&catalog::W7002, &[Arg::Int(ra as i64), Arg::Int(f.limit as i64)])
                    .fail(bad)
                    .detail(format!("R{ra} {} limit {}", if bad { "≥" } else { "<" }, f.limit)),
            );
            out.push(c7001());
            let sp = f.stack_pointer;
            let bad = sp == ra || sp == ra.saturating_add(1);
            out.push(
                new(&catalog::W7003, "stack-pointer")
                    .msg(&catalog::W7003, &[Arg::Int(ra as i64), Arg::Int(sp as i64)])
                    .fail(bad)
                    .detail(format!(
                        "stack pointer R{sp} {} R{ra}:R{}",
                        if bad { "inside" } else { "outside" },
                        ra + 1
                    )),
            );
            let c = new(&catalog::W7004, "retaddr");
            out.push(match param_span(f.params) {
                Some((lo, hi)) => {
                    let bad = ra <= hi && ra.saturating_add(1) >= lo;
                    c.msg(&catalog::W7004, &[Arg::Int(ra as i64), Arg::Int(lo as i64), Arg::Int(hi as i64)])
                        .fail(bad)
                        .detail(format!(
                            "R{ra}:R{} {} the parameter block R{lo}..R{hi}",
                            ra.saturating_add(1),
                            if bad { "splits" } else { "lies outside" }
                        ))
                }
                None => c.detail("no parameter in registers"),
            });
        }
        RetAddrPlacement::Uniform => {
            let bad = !f.has_uniform;
            out.push(new(&catalog::W7009, "retaddr").msg(&catalog::W7009, &[]).fail(bad).detail(if bad {
                "the target has no uniform registers (needs sm_75+)"
            } else {
                "target has uniform registers"
            }));
            out.push(c7008());
            out.push(c7001());
        }
        RetAddrPlacement::Computed => {
            out.push(c7005());
            out.push(c7008());
            out.push(c7001());
            // Seed 001, "Return Address Register": "Parameter registers from R%d to R%d
            // overlap with return address register R%d to R%d" fires when the ranges
            // collide. Only here can they: every other R-file return address is
            // withheld from the parameter allocator, and a computed one without a
            // register is placed after the parameters; `computed Rn` is taken as given.
            let c = new(&catalog::PARAM_RETADDR_OVERLAP, "retaddr");
            out.push(match param_span(f.params) {
                Some((lo, hi)) => {
                    let bad = f.file == RegFile::R && ra <= hi && ra.saturating_add(1) >= lo;
                    c.msg(
                        &catalog::PARAM_RETADDR_OVERLAP,
                        &[
                            Arg::Int(lo as i64),
                            Arg::Int(hi as i64),
                            Arg::Int(ra as i64),
                            Arg::Int(ra.saturating_add(1) as i64),
                        ],
                    )
                    .fail(bad)
                    .detail(format!(
                        "parameters R{lo}..R{hi} {} the return address R{ra}:R{}",
                        if bad { "overlap" } else { "lie clear of" },
                        ra.saturating_add(1)
                    ))
                }
                None => c.detail("no parameter in registers"),
            });
        }
        RetAddrPlacement::Fixed | RetAddrPlacement::BeforeParams => {
            out.push(c7005());
            out.push(c7001());
        }
    }
    if f.file == RegFile::R && ra < crate::abi::params::ABI_RESERVED {
        out.push(
            new(&catalog::RESERVED_R0_R3, "retaddr")
                .msg(&catalog::RESERVED_R0_R3, &["return address".into()])
                .fail(true)
                .detail(format!("return address R{ra} lies in R0–R3")),
        );
    }
    out
}

/// The parameter span: lowest to highest register holding a parameter.
pub fn param_span(params: &[Option<Placement>]) -> Option<(u32, u32)> {
    let regs = params.iter().flatten().filter(|p| p.count > 0);
    let lo = regs.clone().map(|p| p.first as u32).min()?;
    let hi = regs.map(|p| p.last() as u32).max()?;
    Some((lo, hi))
}

pub(crate) fn clamp16(r: u32) -> u16 {
    r.min(u16::MAX as u32) as u16
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::abi_spec::RetAddr;

    fn spec(mode: Option<RetAddrMode>, reg: Option<u16>, before: bool) -> AbiSpec {
        AbiSpec {
            ret_addr: mode.map(|mode| RetAddr { mode, reg }),
            ret_addr_before_params: before,
            ..AbiSpec::default()
        }
    }

    #[test]
    fn placement_per_mode() {
        use RetAddrMode::*;
        let p = |m, r, b| {
            let p = plan(&spec(m, r, b), 4);
            (p.placement, p.file, p.reg, p.conflict_7006)
        };
        assert_eq!(p(Some(Fixed), None, false), (RetAddrPlacement::Fixed, RegFile::R, Some(6), false));
        assert_eq!(p(Some(Fixed), Some(8), false), (RetAddrPlacement::Fixed, RegFile::R, Some(6), true));
        assert_eq!(p(Some(Regular), Some(20), true), (RetAddrPlacement::Regular, RegFile::R, Some(20), true));
        assert_eq!(p(Some(Regular), None, false), (RetAddrPlacement::Regular, RegFile::R, Some(20), false));
        assert_eq!(p(Some(Regular), None, true), (RetAddrPlacement::BeforeParams, RegFile::R, Some(4), false));
        assert_eq!(p(Some(Uniform), Some(6), false), (RetAddrPlacement::Uniform, RegFile::UR, Some(6), false));
        assert_eq!(p(None, None, false), (RetAddrPlacement::Computed, RegFile::R, None, false));
        assert_eq!(p(None, None, true), (RetAddrPlacement::BeforeParams, RegFile::R, Some(4), false));
        assert_eq!(plan(&spec(None, None, true), 5).reg, Some(6));
    }
}
