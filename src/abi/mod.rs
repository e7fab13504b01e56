//! The ABI engine (seed 001, "GPU ABI & Calling Convention"): what the calling
//! convention fixes before register allocation, and the checks ptxas runs on it.
//!
//! Owns: SM-generation minimums and the master setup (sub_19D1AF0) with its checks
//! 7001–7017 in the seed's validation order ([`setup`]); the parameter/return
//! allocator ([`params`], sub_19CA730); return-address placement and validation
//! ([`retaddr`]); scratch/preserved classification ([`classify`]) and the CALL-site
//! spill-cost effect ([`cost`]); limit propagation over the call graph ([`limits`],
//! sub_19CE590); the 7020 convergent-boundary and 7801 reserved-SMEM checks
//! ([`convergent`]); call-site lowering ([`lower`]); the printed check list
//! ([`report`]). Must not know: how the allocator assigns registers, liveness, the
//! debugger. It reads the IR model and writes only what [`lower_calls`] inserts.
//!
//! # API
//! ```text
//! setup(m: &Module, func: usize, input: &AbiInput) -> AbiResult
//! role(res: &AbiResult, file: RegFile, reg: u16) -> RegRole
//! AbiResult::clobbers(&self) -> Vec<u16>              // R registers a CALL to it may overwrite
//! apply_pins(m: &mut Module, func: usize, res: &AbiResult)
//! bindings::split(f: &mut Function) -> bindings::Split   // entry/exit copies of the bound vregs
//! call_site_cost(op: &CallOperand, params: &CallCostParams) -> f64
//! call_site_cost_explained(op: &CallOperand, params: &CallCostParams) -> CallCost
//! propagate_limits(m: &Module, sm: &Sm, declared: &[Option<u32>]) -> Vec<Option<u32>>
//! check_convergent(m: &Module, func: usize) -> Vec<AbiCheck>
//! check_reserved_smem(m: &Module, func: usize) -> Vec<AbiCheck>
//! check_relative_calls(m: &Module, func: usize) -> Vec<AbiCheck>   // 7010 at CALL.REL
//! lower_calls(m: &mut Module, results: &[Option<AbiResult>]) -> Vec<LoweredCall>
//! report(m: &Module, sm: &Sm) -> String
//! report::check_line(c: &AbiCheck) -> String          // one printed check
//! report::function_limits(m: &Module, sm: &Sm) -> Vec<u32>
//! report::declared_limit(m: &Module, func: usize) -> Option<u32>
//! params::find_contiguous_free(free: &[bool], count: u64, align: u32, base: u32, avail: u32) -> Option<u32>
//! params::allocate(spec: &AbiSpec, base: u32, avail: u32, withheld: &[u32]) -> params::Layout
//! CallCostParams::from_knobs(knobs: &Knobs, high_pressure: bool) -> CallCostParams
//! ```
//!
//! # When the ABI applies
//! The engine is *engaged* for a device function (`.func`) or any function with an
//! `.abi` block (ptxas's `abi_mode_flags`, +16: 0 = no ABI lowering). A kernel
//! without a spec gets an empty, disengaged [`AbiResult`]: no checks, no fixed
//! registers — the allocator's own budget rules apply. A device function without a
//! spec is set up with `AbiSpec::default()`, i.e. all the defaults below.
//!
//! # Defaults radbg chooses where the seed is silent
//! - First parameter register R4 (`first-param`); stack pointer R1.
//! - `available` (parameter slots): the function limit minus the first parameter
//!   register; `available computed` stops at the reserved range if one lies above
//!   the first parameter register. Never past R254, never more than 255 slots.
//! - Alignment: [`params::align_regs`].
//! - Return address: see [`retaddr`] (no `retaddr` line = computed after the
//!   parameters and returns; `regular` without a register = R20; `uniform` without a
//!   register = UR0).
//! - Scratch/preserved convention: see [`classify`] (R16–R31 preserved, the other
//!   R registers from R4 scratch, when the spec names no set for the R file).
//! - 7008's range when `retaddr-range` is absent: R4..R253 (above R0–R3, the pair
//!   below RZ) or UR0..UR61.
//! - The function limit comes from [`AbiInput::maxreg`], clamped to 255.

pub mod bindings;
pub mod catalog;
pub mod classify;
pub mod convergent;
pub mod cost;
pub mod limits;
pub mod lower;
pub mod params;
pub mod relcall;
pub mod report;
pub mod retaddr;
mod setup;

pub use classify::RegRoles;
pub use convergent::{check_convergent, check_reserved_smem};
pub use cost::{CallCost, CallCostParams, CallOperand, CostPath, call_site_cost, call_site_cost_explained};
pub use limits::propagate_limits;
pub use lower::{LoweredCall, lower_calls};
pub use params::Placement;
pub use relcall::check_relative_calls;
pub use report::report;
pub use retaddr::RetAddrPlacement;
pub use setup::{apply_pins, setup};

use crate::ir::model::{RegFile, VRegId};
use crate::ir::sm::Sm;

/// What the master setup needs besides the module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AbiInput {
    /// The function's register limit after budget resolution (`regcount` of 7016,
    /// `max_reg` of 7002/7005). Values above 255 are treated as 255.
    pub maxreg: u32,
    pub sm: Sm,
}

/// The seven validation steps of sub_19D1AF0 (seed 001, "Validation Order"), and the
/// two checks that run outside it.
pub mod step {
    pub const REGCOUNT: &str = "regcount";
    pub const RESERVATION: &str = "reservation";
    pub const RETADDR_SETUP: &str = "retaddr-setup";
    pub const PARAMS: &str = "params";
    pub const RESERVED_VS_RETADDR: &str = "reserved-vs-retaddr";
    pub const RETADDR_VALIDATE: &str = "retaddr-validate";
    pub const COROUTINE: &str = "coroutine";
    pub const CONVERGENT: &str = "convergent";
    pub const RESERVED_SMEM: &str = "reserved-smem";
    /// Warning 7010 at a relative call (sub_13B6DF0, outside the master setup).
    pub const RELATIVE_CALL: &str = "relative-call";
    /// The seven steps of the master setup, in order.
    pub const ORDER: [&str; 7] =
        [REGCOUNT, RESERVATION, RETADDR_SETUP, PARAMS, RESERVED_VS_RETADDR, RETADDR_VALIDATE, COROUTINE];
}

/// One check of one step: the verdict, the exact ptxas message and what it involves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AbiCheck {
    /// Decimal code (7016); 0 for the seed's un-numbered messages (the size error,
    /// "Registers 0-3 are reserved", the multiple-calls warning).
    pub code: u32,
    /// Hex id (0x1B68 for 7016).
    pub hex: u32,
    /// Which step ran it ([`step`]).
    pub step: &'static str,
    /// The ptxas message with its arguments filled in. Filled for passing checks too
    /// where the arguments are known, so the debugger can show what would be said.
    pub message: String,
    pub passed: bool,
    /// Registers involved.
    pub regs: Vec<(RegFile, u16)>,
    /// The spec field (or directive) that caused it: "retaddr", "reserved", "param" …
    pub field: &'static str,
    /// One plain line: why it passed or what failed.
    pub detail: String,
}

impl AbiCheck {
    pub(crate) fn new(diag: &catalog::Diag, step: &'static str, field: &'static str) -> AbiCheck {
        AbiCheck {
            code: diag.code,
            hex: catalog::hex(diag.code),
            step,
            message: String::new(),
            passed: true,
            regs: Vec::new(),
            field,
            detail: String::new(),
        }
    }
    pub(crate) fn msg(mut self, diag: &catalog::Diag, args: &[catalog::Arg]) -> AbiCheck {
        self.message = diag.format(args);
        self
    }
    pub(crate) fn fail(mut self, failed: bool) -> AbiCheck {
        self.passed = !failed;
        self
    }
    pub(crate) fn regs(mut self, regs: impl IntoIterator<Item = (RegFile, u16)>) -> AbiCheck {
        self.regs = regs.into_iter().collect();
        self
    }
    pub(crate) fn detail(mut self, d: impl Into<String>) -> AbiCheck {
        self.detail = d.into();
        self
    }
}

/// What a physical register is for, under the ABI of one function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RegRole {
    /// Not constrained by the ABI.
    Free,
    /// Caller-saved: a callee may clobber it.
    Scratch,
    /// Callee-saved: a callee must restore it.
    Preserved,
    /// Carries (part of) a parameter.
    Param,
    /// Carries (part of) a return value.
    Return,
    /// The return address pair.
    RetAddr,
    /// The stack pointer.
    StackPointer,
    /// R0–R3, the `reserved` range, the zero register: never allocated.
    Reserved,
}

impl RegRole {
    pub fn name(self) -> &'static str {
        match self {
            RegRole::Free => "free",
            RegRole::Scratch => "scratch",
            RegRole::Preserved => "preserved",
            RegRole::Param => "param",
            RegRole::Return => "return",
            RegRole::RetAddr => "retaddr",
            RegRole::StackPointer => "stack-pointer",
            RegRole::Reserved => "reserved",
        }
    }
}

/// Everything the master setup decided for one function.
#[derive(Clone, Debug, PartialEq)]
pub struct AbiResult {
    /// Whether the ABI applies at all (see the module doc).
    pub engaged: bool,
    /// Every check, in the seed's validation order, pass or fail.
    pub checks: Vec<AbiCheck>,
    /// Per parameter descriptor: its registers, or `None` (stack / not placed).
    pub params: Vec<Option<Placement>>,
    /// Per return descriptor.
    pub returns: Vec<Option<Placement>>,
    /// The resolved return address (a pair: reg, reg+1).
    pub ret_addr: Option<(RegFile, u16)>,
    /// How the return address was placed.
    pub ret_addr_placement: Option<RetAddrPlacement>,
    /// Bound vregs (`param 1x4 = %a0`) and the register each is pinned to.
    pub pins: Vec<(VRegId, u16)>,
    /// The bound return-value vregs that were pinned: live out of the function's exits.
    pub exit_live: Vec<VRegId>,
    /// Registers the allocator must never assign, sorted: R0–R3, the return address,
    /// the reserved range, the stack pointer (only registers inside the file).
    pub fixed: Vec<(RegFile, u16)>,
    /// The size error (`Function %s size requires more registers(%d) than available(%d)`).
    pub error: Option<String>,
    /// The role of every register.
    pub classes: RegRoles,
    /// The function limit used (`AbiInput::maxreg`, at most 255).
    pub limit: u32,
    /// The first parameter register and the parameter slots available from it.
    pub first_param: u32,
    pub available: u32,
    pub stack_pointer: u16,
}

impl AbiResult {
    /// The result for a function the ABI does not apply to.
    pub fn disengaged(limit: u32) -> AbiResult {
        AbiResult {
            engaged: false,
            checks: Vec::new(),
            params: Vec::new(),
            returns: Vec::new(),
            ret_addr: None,
            ret_addr_placement: None,
            pins: Vec::new(),
            exit_live: Vec::new(),
            fixed: Vec::new(),
            error: None,
            classes: RegRoles::new(),
            limit: limit.min(255),
            first_param: params::ABI_RESERVED,
            available: 0,
            stack_pointer: 1,
        }
    }

    /// The checks that failed.
    pub fn failures(&self) -> impl Iterator<Item = &AbiCheck> {
        self.checks.iter().filter(|c| !c.passed)
    }

    /// The R registers a CALL to this function may overwrite, ascending (seed 001,
    /// "Scratch Data Registers": scratch registers must be saved by the caller):
    /// parameter, return-value and return-address registers, and the scratch
    /// registers below the callee's limit (a callee cannot write registers above its
    /// own limit). Empty for a disengaged result.
    pub fn clobbers(&self) -> Vec<u16> {
        if !self.engaged {
            return Vec::new();
        }
        (0..RegFile::R.arch_size())
            .filter(|&r| match self.classes.get(RegFile::R, r) {
                RegRole::Param | RegRole::Return | RegRole::RetAddr => true,
                RegRole::Scratch => (r as u32) < self.limit,
                _ => false,
            })
            .collect()
    }
}

/// The role of a register under `res` (Free outside the file).
pub fn role(res: &AbiResult, file: RegFile, reg: u16) -> RegRole {
    res.classes.get(file, reg)
}
