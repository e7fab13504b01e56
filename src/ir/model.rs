//! The Ori IR data model: module, function, block, instruction, virtual register.
//!
//! Architecture invariant: this module knows nothing of register allocation, the
//! debugger or any front end. It holds plain data with public fields; source
//! positions live in a side table ([`crate::ir::span::SourceMap`]) so that
//! `parse(print(m)) == m` compares meaning, not layout. Provenance that is part of
//! the meaning (the line of the original PTX an instruction came from) is kept in
//! `origin` fields and printed as `.loc` directives.
//!
//! Everything is index-based (`VRegId`, block and instruction indices) and ordered
//! (`Vec`), so iteration order is deterministic everywhere.

use crate::ir::abi_spec::AbiSpec;
use crate::ir::opcode::{OpInfo, Opcode};
use crate::ir::sm::Sm;

/// Interned instruction modifiers ([`Inst::mods`]).
pub mod mods;
pub mod names;
pub use mods::{Atom, Mods};

/// A whole Ori IR file: one target, its compile options, knobs and functions.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Module {
    pub sm: Sm,
    pub options: Options,
    /// `.knob NAME = VALUE` / `.knob INDEX = VALUE`, in file order (later wins).
    pub knobs: Vec<KnobSetting>,
    /// Module-scope memory declarations (`.shared`, `.global`, `.const`, `.local`).
    pub globals: Vec<Global>,
    pub functions: Vec<Function>,
    /// CUDA source lines by PTX line (`.file`/`.loc` of imported PTX; empty for Ori IR).
    /// Looked up through each instruction's and vreg's `origin`.
    pub srcloc: crate::ir::srcloc::SourceLines,
}

impl Module {
    /// The module as its Ori IR form keeps it: without what only an import knows — the
    /// CUDA line table (`srcloc`), the loops marked `nounroll` and which functions are
    /// external stubs (limits recorded in ARCHITECTURE.md). A PTX import printed as Ori
    /// IR parses back to this.
    pub fn ori_form(&self) -> Module {
        let mut m = Module { srcloc: Default::default(), ..self.clone() };
        for f in &mut m.functions {
            (f.nounroll, f.nounroll_all, f.external) = (Vec::new(), false, false);
        }
        m
    }

    pub fn function(&self, name: &str) -> Option<usize> {
        self.functions.iter().position(|f| f.name == name)
    }

    /// Replaces function `fi` (ignored when out of range) of a shared module, copying the
    /// rest but never the function being replaced (`Arc::make_mut` would copy the whole
    /// module first; the functions are most of it).
    pub fn replace_function(module: &mut std::sync::Arc<Module>, fi: usize, g: Function) {
        if fi >= module.functions.len() {
            return;
        }
        if let Some(m) = std::sync::Arc::get_mut(module) {
            m.functions[fi] = g;
            return;
        }
        let old = &**module;
        let mut g = Some(g);
        let functions =
            old.functions.iter().enumerate().map(|(i, f)| if i == fi { g.take().expect("once") } else { f.clone() });
        *module = std::sync::Arc::new(Module {
            sm: old.sm.clone(),
            options: old.options.clone(),
            knobs: old.knobs.clone(),
            globals: old.globals.clone(),
            functions: functions.collect(),
            srcloc: old.srcloc.clone(),
        });
    }
}

/// Compile options that are command-line flags in ptxas (seed 000, "External Budget Inputs").
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Options {
    /// `--maxrregcount N`.
    pub maxrregcount: Option<u32>,
    /// `--device-function-maxrregcount N`.
    pub device_function_maxrregcount: Option<u32>,
    /// `--register-usage-level N` (0..=10, default 5 when absent).
    pub register_usage_level: Option<u32>,
    /// `--warn-on-spills`.
    pub warn_on_spills: bool,
    /// The `floor` rule switched off (`set stage floor off`): a budget below ptxas's
    /// lower bound of 24 is taken as given (`alloc::budget::resolve_as`).
    pub budget_floor_off: bool,
    /// The compile mode word of ptxas's context at ctx+896 (seed 000): 0 for a CUDA
    /// compilation, 4 or 5 for OptiX IR. Mode 5 gates SMEM spilling (seed 003).
    pub compile_mode: u32,
}

// The knob key and value types belong to the knob catalogue, which sits below the IR
// (tests/layers.rs); the IR re-exports them for `.knob` directives.
pub use crate::knobs::{KnobKey, KnobValue};

#[derive(Clone, Debug, PartialEq)]
pub struct KnobSetting {
    pub key: KnobKey,
    pub value: KnobValue,
}

/// State spaces of memory declarations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Space {
    Shared,
    Global,
    Const,
    Local,
}

impl Space {
    pub const ALL: [Space; 4] = [Space::Shared, Space::Global, Space::Const, Space::Local];
    pub fn name(self) -> &'static str {
        match self {
            Space::Shared => "shared",
            Space::Global => "global",
            Space::Const => "const",
            Space::Local => "local",
        }
    }
}

/// A memory declaration: `.shared .align 16 smem[4096]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Global {
    pub space: Space,
    pub name: String,
    pub size: u64,
    pub align: u32,
    pub origin: Option<u32>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FuncKind {
    /// A kernel (`.entry`).
    Entry,
    /// A device function (`.func`), callable, possibly with an ABI specification.
    Device,
}

/// One function: its directives, ABI specification, registers and blocks.
#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    pub name: String,
    pub kind: FuncKind,
    /// `.maxnreg N`.
    pub maxnreg: Option<u32>,
    /// `.minnctapersm N`.
    pub minnctapersm: Option<u32>,
    /// `.maxntid X[, Y[, Z]]`.
    pub maxntid: Option<Vec<u32>>,
    /// `.reqntid X[, Y[, Z]]`.
    pub reqntid: Option<Vec<u32>>,
    /// `.coroutine`: SUSPEND points must preserve live registers (seed 001, "Coroutine Support").
    pub coroutine: bool,
    /// `.allow-reserved-smem`: the function may use the reserved shared-memory window
    /// (otherwise warning 7801 fires on a use, seed 001 "gb10b Hardware WAR").
    pub allow_reserved_smem: bool,
    /// The per-callee ABI specification (seed 001, "Per-Callee ABI Specification").
    pub abi: Option<AbiSpec>,
    /// Register declarations in file order; every vreg belongs to exactly one.
    pub decls: Vec<RegDecl>,
    /// The virtual registers, indexed by [`VRegId`].
    pub vregs: Vec<VReg>,
    /// Basic blocks in layout order; the first is the entry.
    pub blocks: Vec<Block>,
    pub origin: Option<u32>,
    /// Labels of loop headers marked `.pragma "nounroll"` in the PTX (imported only; not
    /// printed as Ori IR): `prepass::unroll` leaves those loops alone.
    pub nounroll: Vec<String>,
    /// `.pragma "nounroll"` at module or function scope: no loop is unrolled.
    pub nounroll_all: bool,
    /// Known only by its signature (an `.extern` declaration or a call prototype in
    /// PTX): a stub standing for code ptxas does not see either.
    pub external: bool,
    /// A device function's budget from the launch bounds of the entries that call it,
    /// when they all set the same one (`ir::callgraph::inherit_launch_bounds`, imported
    /// PTX only): ptxas compiles a callee with each calling entry, to that entry's budget.
    pub inherited_budget: Option<u32>,
}

impl Function {
    /// Whether the function has launch bounds (`.maxntid` or `.reqntid`).
    pub fn launch_bounded(&self) -> bool {
        self.maxntid.is_some() || self.reqntid.is_some()
    }

    /// The `--maxrregcount` that applies to this function: none when it has launch
    /// bounds. Measured on ptxas 13.0.88 (ARCHITECTURE.md, "Fidelity", issue 23 rule 2):
    /// with `.maxntid` the count is the same at every `--maxrregcount`, and the launch
    /// bounds (with `.minnctapersm`) set the budget.
    pub fn cli_maxrregcount(&self, cli: Option<u32>) -> Option<u32> {
        cli.filter(|_| !self.launch_bounded() && self.inherited_budget.is_none())
    }

    pub fn new(name: impl Into<String>, kind: FuncKind) -> Function {
        Function {
            name: name.into(),
            kind,
            maxnreg: None,
            minnctapersm: None,
            maxntid: None,
            reqntid: None,
            coroutine: false,
            allow_reserved_smem: false,
            abi: None,
            decls: Vec::new(),
            vregs: Vec::new(),
            blocks: Vec::new(),
            origin: None,
            nounroll: Vec::new(),
            nounroll_all: false,
            external: false,
            inherited_budget: None,
        }
    }

    pub fn vreg(&self, id: VRegId) -> &VReg {
        &self.vregs[id.index()]
    }

    /// Looks a vreg up by its name (`%r12`). Linear; callers that need many lookups
    /// build their own index.
    pub fn vreg_by_name(&self, name: &str) -> Option<VRegId> {
        self.vregs.iter().position(|v| &*v.name == name).map(VRegId::new)
    }

    pub fn block_by_label(&self, label: &str) -> Option<usize> {
        self.blocks.iter().position(|b| b.label == label)
    }

    /// Drops the spare capacity of the function's vectors (registers, declarations,
    /// blocks, each block's instructions). An importer pushes one at a time and leaves
    /// them up to half empty: on the 50 MB many-entry file about a third of the loaded
    /// IR's instruction, operand and register slots were spare (issue 25), held for as
    /// long as the module is. Contents are unchanged.
    pub fn shrink_to_fit(&mut self) {
        self.decls.shrink_to_fit();
        self.vregs.shrink_to_fit();
        self.blocks.shrink_to_fit();
        for b in &mut self.blocks {
            b.insts.shrink_to_fit();
        }
    }

    /// Total number of instructions.
    pub fn inst_count(&self) -> usize {
        self.blocks.iter().map(|b| b.insts.len()).sum()
    }

    /// Declares a new vreg (and a single-register declaration for it); returns its id.
    pub fn add_vreg(&mut self, name: impl Into<String>, class: RegClass, width: u8) -> VRegId {
        let name = name.into();
        let decl = self.decls.len();
        self.decls.push(RegDecl { prefix: name.clone(), count: None, class, width, origin: None });
        let id = VRegId::new(self.vregs.len());
        self.vregs.push(VReg::new(name, class, width, decl));
        id
    }

    /// Program-point layout: instruction `i` of block `b` is point `block_start[b] + i`.
    pub fn layout(&self) -> Layout {
        let mut block_start = Vec::with_capacity(self.blocks.len() + 1);
        let mut n = 0u32;
        for b in &self.blocks {
            block_start.push(n);
            n += b.insts.len() as u32;
        }
        block_start.push(n);
        Layout { block_start }
    }
}

/// Maps (block, index) to linear program points and back. Program points number the
/// instructions of a function in block layout order, starting at 0.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    /// `block_start[b]` is the point of block `b`'s first instruction; one extra entry
    /// holds the total count.
    pub block_start: Vec<u32>,
}

impl Layout {
    pub fn point(&self, block: usize, index: usize) -> u32 {
        self.block_start[block] + index as u32
    }
    pub fn len(&self) -> u32 {
        *self.block_start.last().unwrap_or(&0)
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The (block, index) of a program point; `None` past the end.
    pub fn locate(&self, point: u32) -> Option<(usize, usize)> {
        if point >= self.len() {
            return None;
        }
        // The last block whose start is <= point and that is non-empty.
        let b = self.block_start.partition_point(|&s| s <= point) - 1;
        let mut b = b.min(self.block_start.len() - 2);
        while self.block_start[b + 1] <= point {
            b += 1;
        }
        Some((b, (point - self.block_start[b]) as usize))
    }
}

/// A register declaration: `.reg .R %r<32>` (a range `%r0..%r31`) or `.reg .R.x2 %rd`.
#[derive(Clone, Debug, PartialEq)]
pub struct RegDecl {
    /// The name prefix; for a single declaration, the whole name.
    pub prefix: String,
    /// `Some(n)` for a range `prefix<n>`, `None` for a single register.
    pub count: Option<u32>,
    pub class: RegClass,
    pub width: u8,
    pub origin: Option<u32>,
}

/// Index of a virtual register within its function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct VRegId(pub u32);

impl VRegId {
    pub fn new(i: usize) -> VRegId {
        VRegId(i as u32)
    }
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Flag bits of the vreg flags qword (seed 000, "Virtual Register Object Layout", +48).
pub mod vflags {
    /// Pre-assigned / fixed register.
    pub const PREASSIGNED: u64 = 0x200;
    /// Coalesced source.
    pub const COALESCED_SRC: u64 = 0x400;
    /// Coalesced target.
    pub const COALESCED_DST: u64 = 0x800;
    /// Already spilled: prevents the same vreg from being spilled again.
    pub const SPILLED: u64 = 0x4000;
    /// Needs spill: set by the assignment budget check (seed 003, "Spill Trigger").
    pub const NEEDS_SPILL: u64 = 0x40000;
    /// Constrained to architecture limit.
    pub const ARCH_LIMITED: u64 = 0x400000;
    /// Hi half of a pair.
    pub const PAIR_HI: u64 = 0x800000;
    /// Special handling.
    pub const SPECIAL: u64 = 0x8000000;
    /// radbg: assembled from component defs, each component defined once in one block;
    /// liveness starts the value at the first of them (set by the `components` prepass
    /// on imported PTX, `crate::analysis::liveness::comp_kills`).
    pub const ASSEMBLED: u64 = 0x1_0000_0000;
    /// Pair mode field, bits 20..21: 0 single, 1 lo half, 3 double width.
    pub const PAIR_MODE_SHIFT: u32 = 20;
    pub const PAIR_MODE_MASK: u64 = 0x300000;

    /// Named bits, for decoding a flags word in the debugger.
    pub const NAMES: &[(u64, &str)] = &[
        (PREASSIGNED, "preassigned"),
        (COALESCED_SRC, "coalesced-src"),
        (COALESCED_DST, "coalesced-dst"),
        (SPILLED, "spilled"),
        (NEEDS_SPILL, "needs-spill"),
        (ARCH_LIMITED, "arch-limited"),
        (PAIR_HI, "pair-hi"),
        (SPECIAL, "special"),
        (ASSEMBLED, "assembled"),
    ];
}

/// A virtual register.
#[derive(Clone, Debug, PartialEq)]
pub struct VReg {
    /// Shared with the vregs of the same name in other functions (`names`).
    pub name: std::sync::Arc<str>,
    pub class: RegClass,
    /// Width in 32-bit registers: 1, 2 (pair), 4 (quad), 8 or 16 (large vector).
    pub width: u8,
    /// Pre-assignment to a physical register of the class's file (`.pin %r0 = R4`).
    pub pin: Option<u16>,
    /// Alias parent: the vreg this one was coalesced into (`.alias %r7 = %r2`).
    pub alias: Option<VRegId>,
    /// Initial flag bits (see [`vflags`]).
    pub flags: u64,
    /// The declaration this vreg came from (index into `Function::decls`).
    pub decl: usize,
    pub origin: Option<u32>,
}

impl VReg {
    /// The name of a vreg derived from `base`: `base` + `tag` + `k` (`%r5$rl0`, `%r5$w2`).
    /// Built by hand: passes derive tens of thousands of names, and `format!` costs
    /// several times more than the copy.
    pub fn derived_name(base: &str, tag: &str, k: usize) -> String {
        let mut digits = [0u8; 20];
        let (mut n, mut i) = (k, digits.len());
        loop {
            i -= 1;
            digits[i] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        let mut s = String::with_capacity(base.len() + tag.len() + digits.len() - i);
        s.push_str(base);
        s.push_str(tag);
        s.extend(digits[i..].iter().map(|&d| d as char));
        s
    }

    pub fn new(name: String, class: RegClass, width: u8, decl: usize) -> VReg {
        VReg { name: names::intern(&name), class, width, pin: None, alias: None, flags: 0, decl, origin: None }
    }
    pub fn file(&self) -> RegFile {
        self.class.file()
    }
}

/// Register classes (seed 000, "Register Classes"), plus the barrier files the
/// allocator skips. The class id is the `reg_type` at vreg+64.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RegClass {
    /// Class 1: general-purpose registers R0..R254.
    R,
    /// Class 2: GPR variant, allocated after class 1 into the same file.
    RAlt,
    /// Class 3: uniform registers UR0..UR62.
    UR,
    /// Class 4: uniform variant, allocated after class 3 into the same file.
    URExt,
    /// Class 5: predicates P0..P6.
    P,
    /// Class 5: uniform predicates UP0..UP6 (their own file).
    UP,
    /// Class 6: tensor / accumulator registers.
    T,
    /// Barrier registers (reg_type 9): excluded from liveness and allocation.
    B,
    /// Uniform barrier registers (reg_type 9).
    UB,
}

impl RegClass {
    pub const ALL: [RegClass; 9] = [
        RegClass::R,
        RegClass::RAlt,
        RegClass::UR,
        RegClass::URExt,
        RegClass::P,
        RegClass::UP,
        RegClass::T,
        RegClass::B,
        RegClass::UB,
    ];

    /// The class name as written in `.reg .NAME`.
    pub fn name(self) -> &'static str {
        match self {
            RegClass::R => "R",
            RegClass::RAlt => "Ralt",
            RegClass::UR => "UR",
            RegClass::URExt => "URext",
            RegClass::P => "P",
            RegClass::UP => "UP",
            RegClass::T => "T",
            RegClass::B => "B",
            RegClass::UB => "UB",
        }
    }

    pub fn from_name(s: &str) -> Option<RegClass> {
        RegClass::ALL.into_iter().find(|c| c.name() == s)
    }

    /// The allocator class id 1..=6, or 9 (the barrier `reg_type`).
    pub fn id(self) -> u8 {
        match self {
            RegClass::R => 1,
            RegClass::RAlt => 2,
            RegClass::UR => 3,
            RegClass::URExt => 4,
            RegClass::P | RegClass::UP => 5,
            RegClass::T => 6,
            RegClass::B | RegClass::UB => 9,
        }
    }

    pub fn file(self) -> RegFile {
        match self {
            RegClass::R | RegClass::RAlt => RegFile::R,
            RegClass::UR | RegClass::URExt => RegFile::UR,
            RegClass::P => RegFile::P,
            RegClass::UP => RegFile::UP,
            RegClass::T => RegFile::T,
            RegClass::B => RegFile::B,
            RegClass::UB => RegFile::UB,
        }
    }

    /// Whether the allocator assigns this class (barriers are handled elsewhere).
    pub fn is_allocatable(self) -> bool {
        self.id() <= 6
    }
}

/// Physical register files. Several classes can share one file (R and R-alt).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RegFile {
    R,
    UR,
    P,
    UP,
    T,
    B,
    UB,
}

impl RegFile {
    pub const ALL: [RegFile; 7] =
        [RegFile::R, RegFile::UR, RegFile::P, RegFile::UP, RegFile::T, RegFile::B, RegFile::UB];

    /// Physical register name prefix (`R5`, `UR3`, `P0`, `UP1`, `T7`, `B2`, `UB0`).
    pub fn prefix(self) -> &'static str {
        match self {
            RegFile::R => "R",
            RegFile::UR => "UR",
            RegFile::P => "P",
            RegFile::UP => "UP",
            RegFile::T => "T",
            RegFile::B => "B",
            RegFile::UB => "UB",
        }
    }

    /// `R4`, or `R4:R5` for a pair, `R8..R11` for wider.
    pub fn reg_name(self, slot: u16, width: u8) -> String {
        let p = self.prefix();
        match width {
            0 | 1 => format!("{p}{slot}"),
            2 => format!("{p}{slot}:{p}{}", slot + 1),
            w => format!("{p}{slot}..{p}{}", slot + w as u16 - 1),
        }
    }

    pub fn index(self) -> usize {
        self as usize
    }

    /// Architectural number of registers including the zero/true register where one
    /// exists (seed 000: R0..R254 + RZ, UR0..UR62 + URZ, P0..P6 + PT).
    pub fn arch_size(self) -> u16 {
        match self {
            RegFile::R => 256,
            RegFile::UR => 64,
            RegFile::P | RegFile::UP => 8,
            RegFile::T => 256,
            RegFile::B | RegFile::UB => 16,
        }
    }

    /// The zero (RZ, URZ) or true (PT, UPT) register, which is never allocated.
    pub fn zero_register(self) -> Option<u16> {
        match self {
            RegFile::R => Some(255),
            RegFile::UR => Some(63),
            RegFile::P | RegFile::UP => Some(7),
            _ => None,
        }
    }

    /// Name of the zero register as written (`RZ`, `URZ`, `PT`, `UPT`).
    pub fn zero_name(self) -> Option<&'static str> {
        match self {
            RegFile::R => Some("RZ"),
            RegFile::UR => Some("URZ"),
            RegFile::P => Some("PT"),
            RegFile::UP => Some("UPT"),
            _ => None,
        }
    }

    /// Whether values of this file take part in liveness (barriers do not, seed 004).
    pub fn has_liveness(self) -> bool {
        !matches!(self, RegFile::B | RegFile::UB)
    }
}

/// A physical register operand (`R1`, `RZ`, `PT`, `UR4`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PhysReg {
    pub file: RegFile,
    pub index: u16,
}

impl PhysReg {
    pub fn is_zero(self) -> bool {
        self.file.zero_register() == Some(self.index)
    }
}

impl std::fmt::Display for PhysReg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.is_zero() {
            f.write_str(self.file.zero_name().unwrap_or("?"))
        } else {
            write!(f, "{}{}", self.file.prefix(), self.index)
        }
    }
}

/// A basic block: a label and its instructions. Control falls through to the next
/// block in layout order unless the last instruction is an unconditional transfer.
#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    pub label: String,
    pub insts: Vec<Inst>,
}

/// A reference to a virtual register, optionally to one 32-bit component of a wide
/// one (`%rd0.lo`, `%rd0.hi`, `%q0.2`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RegRef {
    pub vreg: VRegId,
    pub comp: Option<u8>,
}

impl RegRef {
    pub fn whole(vreg: VRegId) -> RegRef {
        RegRef { vreg, comp: None }
    }
}

/// A register operand: virtual or physical.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Reg {
    V(RegRef),
    P(PhysReg),
}

/// A guard predicate: `@%p0` or `@!%p0` (or `@PT`, `@!P1`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Guard {
    pub reg: Reg,
    pub negated: bool,
}

/// A memory operand: `[%rd1 + 0x10]`, `[R1 + 8]`, `[%r2 + %ur3 - 4]`, `[smem + 16]`.
#[derive(Clone, Debug, PartialEq)]
pub struct MemRef {
    pub base: Option<Reg>,
    /// A second (usually uniform) address register.
    pub index: Option<Reg>,
    /// A variable or label the address is relative to.
    pub sym: Option<Box<str>>,
    pub offset: i64,
}

/// An instruction operand.
#[derive(Clone, Debug, PartialEq)]
pub enum Operand {
    Reg(Reg),
    /// An integer immediate; the parser keeps it within 32 bits (signed or unsigned).
    Imm(i64),
    /// A 32-bit float immediate, by its bits (`0f3F800000`, or written `1.5`).
    FImm(u32),
    Mem(Box<MemRef>),
    /// A constant-bank operand `c[BANK][OFFSET]`.
    CBank {
        bank: u8,
        offset: u32,
    },
    /// A special register (`SR_TID.X`, `SR_LANEID`, `SR_CLOCKLO` ...).
    Special(Atom),
    /// A label (branches), a function (calls) or a variable (address of).
    Sym(Atom),
}

impl Operand {
    pub fn vreg(v: VRegId) -> Operand {
        Operand::Reg(Reg::V(RegRef::whole(v)))
    }

    /// The virtual registers this operand reads or writes as a register operand
    /// (not including address registers of a memory operand).
    pub fn as_vreg(&self) -> Option<RegRef> {
        match self {
            Operand::Reg(Reg::V(r)) => Some(*r),
            _ => None,
        }
    }
}

/// One instruction: `[@guard] [defs =] MNEMONIC[.MODS] [uses]`.
///
/// `operands[..ndefs]` are the destinations, `operands[ndefs..]` the sources. Address
/// registers inside memory operands and the guard predicate are always reads.
#[derive(Clone, Debug, PartialEq)]
pub struct Inst {
    pub guard: Option<Guard>,
    pub op: Opcode,
    /// Modifiers including their leading dots (`.WIDE.U32`), possibly empty: interned
    /// (derefs to `str`, built with `.into()`), not a heap block per instruction.
    pub mods: Mods,
    /// A boxed slice, not a `Vec`: no spare capacity and 8 bytes less per instruction
    /// (issue 25); the few passes that add or remove operands rebuild it.
    pub operands: Box<[Operand]>,
    pub ndefs: u8,
    /// The line of the original source (PTX) this instruction came from.
    pub origin: Option<u32>,
}

/// Whether `m` equals one of the parts of `mods` split at `.` (what
/// `mods.split('.').any(|x| x == m)` says, the empty parts included).
fn mods_have(mods: &str, m: &str) -> bool {
    let (s, m) = (mods.as_bytes(), m.as_bytes());
    let mut start = 0;
    loop {
        let end = s[start..].iter().position(|&b| b == b'.').map_or(s.len(), |p| start + p);
        if &s[start..end] == m {
            return true;
        }
        if end == s.len() {
            return false;
        }
        start = end + 1;
    }
}

impl Inst {
    pub fn new(op: Opcode, defs: Vec<Operand>, uses: Vec<Operand>) -> Inst {
        let ndefs = defs.len() as u8;
        let mut operands = Vec::with_capacity(defs.len() + uses.len());
        operands.extend(defs);
        operands.extend(uses);
        Inst { guard: None, op, mods: Mods::EMPTY, operands: operands.into(), ndefs, origin: None }
    }

    pub fn defs(&self) -> &[Operand] {
        &self.operands[..self.ndefs as usize]
    }

    pub fn uses(&self) -> &[Operand] {
        &self.operands[self.ndefs as usize..]
    }

    pub fn info(&self) -> &'static OpInfo {
        self.op.info()
    }

    /// Whether `m` is one of the dot-separated parts of `mods` (`mods.split('.')`'s
    /// parts). A byte walk: `split` set up a searcher per call, and `has_side_effects`
    /// asks twice per instruction in every pass that reads it (issue 25: ~5 % of the
    /// instructions executed on the scale kernel).
    pub fn has_mod(&self, m: &str) -> bool {
        mods_have(&self.mods, m)
    }

    /// The virtual registers the memory operands read their addresses from (base and
    /// index), in operand order.
    pub fn address_vregs(&self) -> impl Iterator<Item = RegRef> + '_ {
        self.operands
            .iter()
            .filter_map(|o| match o {
                Operand::Mem(m) => Some([m.base, m.index]),
                _ => None,
            })
            .flatten()
            .filter_map(|r| match r {
                Some(Reg::V(r)) => Some(r),
                _ => None,
            })
    }

    /// Calls `f` for every virtual register this instruction reads, with the
    /// component it reads: guard, source registers and all address registers
    /// (including those of memory operands in the destination list, like a store's
    /// address when written as a destination).
    pub fn for_each_use(&self, mut f: impl FnMut(RegRef)) {
        if let Some(Guard { reg: Reg::V(r), .. }) = self.guard {
            f(r);
        }
        for (i, op) in self.operands.iter().enumerate() {
            match op {
                Operand::Reg(Reg::V(r)) if i >= self.ndefs as usize => f(*r),
                Operand::Mem(m) => {
                    if let Some(Reg::V(r)) = m.base {
                        f(r);
                    }
                    if let Some(Reg::V(r)) = m.index {
                        f(r);
                    }
                }
                _ => {}
            }
        }
    }

    /// Calls `f` with a mutable reference to every virtual register this instruction
    /// reads, in the order of [`Inst::for_each_use`] (spill code renames reads with it).
    pub fn for_each_use_mut(&mut self, mut f: impl FnMut(&mut RegRef)) {
        if let Some(Guard { reg: Reg::V(r), .. }) = self.guard.as_mut() {
            f(r);
        }
        let nd = self.ndefs as usize;
        for (i, op) in self.operands.iter_mut().enumerate() {
            match op {
                Operand::Reg(Reg::V(r)) if i >= nd => f(r),
                Operand::Mem(m) => {
                    if let Some(Reg::V(r)) = m.base.as_mut() {
                        f(r);
                    }
                    if let Some(Reg::V(r)) = m.index.as_mut() {
                        f(r);
                    }
                }
                _ => {}
            }
        }
    }

    /// Calls `f` for every virtual register this instruction writes.
    pub fn for_each_def(&self, mut f: impl FnMut(RegRef)) {
        for op in self.defs() {
            if let Operand::Reg(Reg::V(r)) = op {
                f(*r);
            }
        }
    }

    /// Whether the instruction must be kept even when its results are dead (seed 004,
    /// "Side-Effect Preservation"): stores, barriers, control flow, calls, textures
    /// with side effects, volatile accesses, and opcodes radbg does not know.
    pub fn has_side_effects(&self) -> bool {
        self.info().has_side_effects() || self.has_mod("VOLATILE") || self.has_mod("SYS")
    }

    /// Whether control never falls through past this instruction.
    pub fn is_terminator(&self) -> bool {
        let i = self.info();
        if i.is(crate::ir::opcode::props::EXIT) {
            // A guarded EXIT/RET lets the other threads fall through.
            return self.guard_is_always();
        }
        if i.is(crate::ir::opcode::props::BRANCH) {
            return self.guard_is_always();
        }
        false
    }

    /// True when the instruction has no guard or is guarded by `@PT`.
    pub fn guard_is_always(&self) -> bool {
        match self.guard {
            None => true,
            Some(Guard { reg: Reg::P(p), negated: false }) => p.is_zero(),
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::VReg;

    #[test]
    fn mods_have_is_split_any() {
        let words =
            ["", ".", "..", ".SYS", "SYS", ".E.SYS", ".SYS.E", ".E.VOLATILE.64", ".ES", ".SYSX", "A.B", ".A..B."];
        for mods in words {
            for m in ["", "SYS", "VOLATILE", "E", "A", "B", "A.B", ".", "X", "64", "ES"] {
                assert_eq!(super::mods_have(mods, m), mods.split('.').any(|x| x == m), "{mods:?} {m:?}");
            }
        }
    }

    #[test]
    fn derived_names_match_format() {
        for k in [0usize, 7, 10, 99, 12345, usize::MAX] {
            assert_eq!(VReg::derived_name("%r5", "$rl", k), format!("%r5$rl{k}"));
        }
        assert_eq!(VReg::derived_name("", "", 3), "3");
    }
}
