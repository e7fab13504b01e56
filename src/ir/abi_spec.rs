//! The per-callee ABI specification as written in Ori IR (seed 001, "Per-Callee ABI
//! Specification" and "Parameter/Return Descriptor Entry"). Plain data; the checks
//! and the parameter allocator live in `crate::abi`.

use crate::ir::model::{RegFile, VRegId};

/// An `.abi { ... }` block of a device function.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct AbiSpec {
    /// Parameter descriptors in order (`param 4x4 align 16`).
    pub params: Vec<AbiValue>,
    /// Return-value descriptors in order (`return 1x8`).
    pub returns: Vec<AbiValue>,
    /// Return-address placement (`retaddr regular R20`); `None` when not specified.
    pub ret_addr: Option<RetAddr>,
    /// `retaddr-before-params` (field +40).
    pub ret_addr_before_params: bool,
    /// `first-param R4` (field +32); `None` means the default, R4.
    pub first_param: Option<u16>,
    /// `available N` / `available computed` (field +36); `None` means the target default.
    pub available: Option<Available>,
    /// `reserved R40..R47`: the reserved register range (warnings 7014, 7015, 7017).
    pub reserved: Option<(u16, u16)>,
    /// `stack-pointer R1` (warning 7003); `None` means R1.
    pub stack_pointer: Option<u16>,
    /// `retaddr-range R4..R63`: the range the target allows for the return address
    /// (warning 7008); `None` derives it from the register file.
    pub ret_addr_range: Option<(u16, u16)>,
    /// `preserved R R16..R31` (callee-saved), per file.
    pub preserved: Vec<RegSet>,
    /// `scratch R R4..R15` (caller-saved), per file.
    pub scratch: Vec<RegSet>,
    /// `suspend-scratch R R8..R9`: registers scratch at SUSPEND points (warning 7011).
    pub suspend_scratch: Vec<RegSet>,
}

/// One parameter or return value: `element_count x element_size`, aligned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AbiValue {
    pub count: u32,
    /// Bytes per element.
    pub size: u32,
    /// Alignment in bytes (clamped to 4..=16 by the allocator); `None` = natural.
    pub align: Option<u32>,
    /// The vreg that carries this value in the function body (`param 1x8 = %rd0`):
    /// the ABI engine pins it to the registers the parameter allocator chooses.
    pub bind: Option<VRegId>,
}

impl AbiValue {
    /// Total bytes, `count * size`.
    pub fn bytes(&self) -> u64 {
        self.count as u64 * self.size as u64
    }
    /// Registers needed: `(bytes + 3) >> 2`.
    pub fn regs(&self) -> u64 {
        self.bytes().div_ceil(4)
    }
}

/// Return-address modes (field +28): 1 fixed, 2 regular, 3 uniform, 5 computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum RetAddrMode {
    Fixed,
    Regular,
    Uniform,
    Computed,
}

impl RetAddrMode {
    pub fn value(self) -> u32 {
        match self {
            RetAddrMode::Fixed => 1,
            RetAddrMode::Regular => 2,
            RetAddrMode::Uniform => 3,
            RetAddrMode::Computed => 5,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            RetAddrMode::Fixed => "fixed",
            RetAddrMode::Regular => "regular",
            RetAddrMode::Uniform => "uniform",
            RetAddrMode::Computed => "computed",
        }
    }
    pub fn from_name(s: &str) -> Option<RetAddrMode> {
        [RetAddrMode::Fixed, RetAddrMode::Regular, RetAddrMode::Uniform, RetAddrMode::Computed]
            .into_iter()
            .find(|m| m.name() == s)
    }
}

/// `retaddr MODE [REG]`: the mode and, where given, the explicit register (field +24).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RetAddr {
    pub mode: RetAddrMode,
    /// An explicit register number (R for regular/fixed/computed, UR for uniform).
    pub reg: Option<u16>,
}

/// `available N` or `available computed` (field +36: -1 default, -2 computed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Available {
    Count(u32),
    Computed,
}

/// A set of registers of one file, as inclusive ranges in ascending order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegSet {
    pub file: RegFile,
    pub ranges: Vec<(u16, u16)>,
}

impl RegSet {
    pub fn contains(&self, r: u16) -> bool {
        self.ranges.iter().any(|&(lo, hi)| lo <= r && r <= hi)
    }
    /// Every register of the set, ascending.
    pub fn iter(&self) -> impl Iterator<Item = u16> + '_ {
        self.ranges.iter().flat_map(|&(lo, hi)| lo..=hi)
    }
}
