//! The knob catalogue: every knob the seeds name, with its OCG index, type, default
//! and what it changes in radbg's model, plus the constants radbg exposes as knobs
//! because the seeds leave them doubtful (those have no ptxas index and a name
//! radbg assigned, marked `radbg: true`).
//!
//! Knobs are set in Ori IR (`.knob 684 = 50`), on the command line
//! (`--knob RegAllocThresholdForDiscardConflicts=50`) and in sessions (`set knob`).
//! [`Knobs`] is the resolved, type-checked set the pipeline reads.

use std::collections::BTreeMap;
use std::fmt;

// The key and value types live here rather than in `ir` (which re-exports them): the
// catalogue sits below the IR, whose `.knob` validation reads it (tests/layers.rs).

/// A knob named by its ptxas name or its OCG index.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum KnobKey {
    Name(String),
    Index(u32),
}

/// A knob value as written; its type is checked against the knob catalogue.
#[derive(Clone, Debug, PartialEq)]
pub enum KnobValue {
    Int(i64),
    Float(f64),
    Bool(bool),
    Str(String),
}

/// The type of a knob's value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum KnobType {
    Bool,
    /// An integer within an inclusive range.
    Int {
        min: i64,
        max: i64,
    },
    /// A float within an inclusive range.
    Float {
        min: f64,
        max: f64,
    },
    /// A free-form string (ptxas `STR` knobs).
    Str,
}

impl KnobType {
    pub fn name(&self) -> &'static str {
        match self {
            KnobType::Bool => "bool",
            KnobType::Int { .. } => "int",
            KnobType::Float { .. } => "float",
            KnobType::Str => "string",
        }
    }
}

/// Whether radbg's model reads a knob (issue 24: no knob is silently inert).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Model {
    /// radbg reads it: a change shows in the events, assignments or figures of some
    /// kernel (`tests/knob_sweep.rs` proves it for every such knob).
    Modelled,
    /// radbg does not model what the knob controls; it is accepted (a ptxas command
    /// line or `.knob` line may carry it) and changes nothing. The text says why.
    NotModelled(&'static str),
}

/// One catalogue entry.
#[derive(Debug)]
pub struct KnobInfo {
    /// The OCG knob index, where the seeds give one.
    pub index: Option<u32>,
    pub name: &'static str,
    pub ty: KnobType,
    pub default: Default,
    /// What the knob changes in radbg's model (and the seed it comes from).
    pub effect: &'static str,
    /// True when the name (and the knob itself) is radbg's, not ptxas's.
    pub radbg: bool,
    /// Modelled, or not and why.
    pub model: Model,
    /// Where it acts: radbg's stage and the seed section (for an unmodelled knob,
    /// where ptxas reads it according to the seed).
    pub acts: &'static str,
    /// A knob this one acts only with (its name and the value that enables it), and why
    /// that is off by default: setting this one without it gets a note, never silence.
    pub needs: Option<(&'static str, i64, &'static str)>,
}

impl KnobInfo {
    /// radbg reads this knob at `acts` (stage — seed section).
    const fn live(mut self, acts: &'static str) -> KnobInfo {
        self.model = Model::Modelled;
        self.acts = acts;
        self
    }

    /// It acts only with knob `name` at `value` or more (`why` says why it needs it).
    const fn needs(mut self, name: &'static str, value: i64, why: &'static str) -> KnobInfo {
        self.needs = Some((name, value, why));
        self
    }

    /// radbg does not model this knob: ptxas reads it at `acts`; `why` says what radbg lacks.
    const fn inert(mut self, acts: &'static str, why: &'static str) -> KnobInfo {
        self.model = Model::NotModelled(why);
        self.acts = acts;
        self
    }

    pub fn modelled(&self) -> bool {
        self.model == Model::Modelled
    }

    /// The values it takes: `0..=3`, `0.0..=1000000.0`, `bool`, `string`.
    pub fn range(&self) -> String {
        match self.ty {
            KnobType::Bool => "bool".into(),
            KnobType::Int { min, max } => format!("{min}..={max}"),
            KnobType::Float { min, max } => format!("{min:?}..={max:?}"),
            KnobType::Str => "string".into(),
        }
    }

    /// `384` or `radbg.LoopWeight`: how messages name the knob.
    pub fn label(&self) -> String {
        match self.index {
            Some(i) => format!("{i} {}", self.name),
            None => self.name.to_string(),
        }
    }

    /// The note a setting of this knob gets when the knob it needs is below the value
    /// that enables it (`enabled` gives that knob's value among the knobs in force).
    pub fn needs_note(&self, enabled: impl Fn(&'static str) -> i64) -> Option<String> {
        let (name, value, why) = self.needs?;
        (enabled(name) < value).then(|| {
            format!("knob {} acts only with {name}={value} ({why}); without it the value changes nothing", self.label())
        })
    }

    /// The note a setting of this knob gets wherever a knob is set — `set knob`,
    /// `--knob`, an Ori `.knob` line, `sweep`, `whatif knob`, the `knobs` listing — with
    /// `in_force` the knobs the run would use: not modelled, or acting only with a knob
    /// `in_force` leaves below its enabling value; `None` when the setting acts (issue 24:
    /// no knob a user can touch is silently inert).
    pub fn setting_note(&self, in_force: &Knobs) -> Option<String> {
        self.not_modelled_note().or_else(|| self.needs_note(|n| in_force.int(n)))
    }

    /// The note a setting of an unmodelled knob gets (`set knob`, `--knob`, `knobs`),
    /// `None` for a modelled one.
    pub fn not_modelled_note(&self) -> Option<String> {
        match self.model {
            Model::Modelled => None,
            Model::NotModelled(why) => {
                Some(format!("knob {} is not modelled by radbg ({why}); accepted, it changes nothing", self.label()))
            }
        }
    }
}

/// A default value (const-constructible mirror of [`KnobValue`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Default {
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(&'static str),
}

impl Default {
    fn value(self) -> KnobValue {
        match self {
            Default::Bool(b) => KnobValue::Bool(b),
            Default::Int(i) => KnobValue::Int(i),
            Default::Float(f) => KnobValue::Float(f),
            Default::Str(s) => KnobValue::Str(s.to_string()),
        }
    }
}

const fn k(index: u32, name: &'static str, ty: KnobType, default: Default, effect: &'static str) -> KnobInfo {
    KnobInfo {
        index: Some(index),
        name,
        ty,
        default,
        effect,
        radbg: false,
        model: Model::Modelled,
        acts: "",
        needs: None,
    }
}

const fn r(name: &'static str, ty: KnobType, default: Default, effect: &'static str) -> KnobInfo {
    KnobInfo { index: None, name, ty, default, effect, radbg: true, model: Model::Modelled, acts: "", needs: None }
}

const BOOL: KnobType = KnobType::Bool;
const fn int(min: i64, max: i64) -> KnobType {
    KnobType::Int { min, max }
}
const fn float(min: f64, max: f64) -> KnobType {
    KnobType::Float { min, max }
}

// Indices the seeds name; names in brackets are radbg's where the seed gives only
// the index (noted in `effect`).
pub const THRESHOLD_DISCARD: u32 = 684;
pub const NUM_SPILL_TRIALS: u32 = 639;
pub const NO_RETARGET: u32 = 638;
pub const SPILL_COST_MULT: u32 = 680;
pub const COALESCING: u32 = 618;
pub const SMEM_SPILL: u32 = 619;
pub const BANK_AWARE: u32 = 627;
pub const MAC_FORCE: u32 = 628;
pub const MAC_ORDER: u32 = 629;
pub const PREF_MAC_OPERANDS: u32 = 646;
/// `radbg.CalleeClobbers` (issue 23 rule 7): module callees clobber what their allocation writes.
pub const CALLEE_CLOBBERS: &str = "radbg.CalleeClobbers";
pub const EST_LOOP_ITERS: u32 = 623;

/// Whether a knob changes the CFG's block frequencies (the loop weight), so a change
/// re-runs the pipeline from its first stage rather than from the budget.
pub fn affects_cfg(info: &KnobInfo) -> bool {
    info.name == "radbg.LoopWeight" || info.index == Some(EST_LOOP_ITERS)
}
pub const SPILL_INST_COUNT: u32 = 635;
pub const PRECOLOR_REUSE: u32 = 636;
pub const ABI_COMPAT: u32 = 649;
pub const EPOCH_AWARE: u32 = 682;
pub const PAIRED_MODE: u32 = 683;
pub const SECONDARY_BUDGET: u32 = 633;
pub const TERTIARY_BUDGET: u32 = 632;

/// The catalogue, ordered by index (radbg-only knobs last, by name).
pub static CATALOGUE: &[KnobInfo] = &[
    k(
        381,
        "HoistInvariantsPolicy",
        int(0, 3),
        Default::Int(1),
        "seed 000: HoistInvariants policy 0=always, 1=inner loops, 3=never (seed calls it 'not yet decoded'; name is radbg's)",
    )
    .inert("pre-pass loop-invariant hoisting — seed 000 'Knobs'", "radbg has no hoisting pass"),
    k(
        443,
        "RegAllocMacOperandMatch",
        BOOL,
        Default::Bool(true),
        "seed 000 pre-allocation: second knob matched on the knob-646 path (name is radbg's)",
    )
    .inert("pre-allocation, knob-646 path — seed 000 'Pre-Allocation'", "radbg's MAC pre-allocation takes every eligible operand; the seed does not say what this second match tests"),
    k(
        456,
        "SplitLiveRangesBudget",
        int(0, 1 << 20),
        Default::Int(0),
        "seed 004: OriSplitLiveRanges gate; 0 = off in radbg (name is radbg's)",
    )
    .inert("OriSplitLiveRanges — seed 004 'Live-Range Splitting'", "radbg does not split live ranges before allocation"),
    k(
        487,
        "NumOptPhasesBudget",
        int(0, 1 << 20),
        Default::Int(1000),
        "seed 000: budget counter gating ConvertMemoryToRegisterOrUniform; 0 disables the pass",
    )
    .inert("ConvertMemoryToRegisterOrUniform — seed 000 'Knobs'", "radbg has no memory-to-register pass"),
    k(529, "RegAllocCoalesceMaxDepth", int(0, 1 << 16), Default::Int(8), "seed 000: coalescing depth limit")
    .inert("coalescing infrastructure — seed 000 'Coalescing'", "radbg coalesces through copy-affinity constraints (types 5, 6, 15), which have no depth limit"),
    k(530, "RegAllocCoalesceMaxWidth", int(0, 1 << 16), Default::Int(4), "seed 000: coalescing width limit")
    .inert("coalescing infrastructure — seed 000 'Coalescing'", "radbg coalesces through copy-affinity constraints (types 5, 6, 15), which have no width limit"),
    k(531, "RegAllocCoalesceMaxFanout", int(0, 1 << 16), Default::Int(16), "seed 000: coalescing fan-out limit")
    .inert("coalescing infrastructure — seed 000 'Coalescing'", "radbg coalesces through copy-affinity constraints (types 5, 6, 15), which have no fan-out limit"),
    k(
        618,
        "RegAllocCoalescing",
        BOOL,
        Default::Bool(true),
        "seed 000 (+441): copy-affinity constraints (types 5, 6, 15) are built only when on",
    )
    .live("constraints: copy affinities (types 5, 6, 15) — seed 000 'Coalescing' (+441)"),
    k(
        619,
        "RegAllocSmemSpill",
        BOOL,
        Default::Bool(false),
        "seed 000 (+1590): force SMEM spilling of UR/tensor classes even outside compile mode 5 (name is radbg's)",
    )
    .inert(
        "spill code: SMEM spilling of UR/tensor classes — seed 003 'SMEM Spilling' (+1590)",
        "seed 000 forces +1590 on for every function of more than one block without the ABI, so the knob could only act on a single-block function whose UR or tensor class spills; compile mode 5 (`.option compile_mode = 5`) is what radbg models",
    ),
    k(
        622,
        "RegAllocGuidanceWalk",
        BOOL,
        Default::Bool(true),
        "seed 003: gates the guidance instruction walk (+10704); off = guidance takes only the vregs marked needs-spill (name is radbg's)",
    )
    .live("spill guidance: the instruction walk — seed 003 'Spill Guidance' (+10704)"),
    k(
        623,
        "RegAllocEstimatedLoopIterations",
        KnobType::Str,
        Default::Str(""),
        "seed 000/003: loop iteration estimate; an integer here replaces radbg.LoopWeight in block frequencies",
    )
    .live("cfg: block frequencies, and the High-list threshold (+776) — seeds 000/003 'Cost model'"),
    k(
        627,
        "RegAllocBankAware",
        BOOL,
        Default::Bool(false),
        "seed 000 (+1591): bank-aware allocation; builds parity constraints (types 11-13) between co-sources (name is radbg's)",
    )
    .live("constraints: bank parity (types 11-13) — seed 000 (+1591), seed 004 constraint types"),
    k(628, "RegAllocMacForce", BOOL, Default::Bool(false), "seed 000: forces the MAC pre-allocation path")
    .live("pre-allocation — seed 000 'Pre-Allocation' (+440)"),
    k(
        629,
        "RegAllocMacVregAllocOrder",
        int(0, 2),
        Default::Int(0),
        "seed 000: vreg order during MAC allocation; non-zero enables pre-allocation",
    )
    .live("pre-allocation — seed 000 'Pre-Allocation' (+442)"),
    k(
        632,
        "RegAllocTertiaryBudget",
        int(0, 255),
        Default::Int(0),
        "seed 000 (+1544): tertiary budget limit, 0 = none (name is radbg's)",
    )
    .inert("budget — seed 000 state +1544", "the value is shown in the state pane; nothing in radbg's allocator reads it"),
    k(
        633,
        "RegAllocSecondaryBudget",
        int(0, 255),
        Default::Int(0),
        "seed 000 (+1540): secondary budget limit, 0 = none (name is radbg's)",
    )
    .inert("budget — seed 000 state +1540", "the value is shown in the state pane; nothing in radbg's allocator reads it"),
    k(
        635,
        "RegAllocSpillInstCount",
        int(0, 1 << 20),
        Default::Int(44),
        "seed 000 (+1512): spill instruction count (name is radbg's)",
    )
    .inert("spill — seed 000 state +1512", "the value is shown in the state pane; nothing in radbg's allocator reads it"),
    k(636, "RegAllocPrecolorReuse", BOOL, Default::Bool(true), "seed 000 (+1593): pre-colour reuse (name is radbg's)")
    .inert("pre-colouring — seed 000 state +1593", "the value is shown in the state pane; nothing in radbg's allocator reads it"),
    k(
        638,
        "RegAllocNoRetargetPrefs",
        BOOL,
        Default::Bool(false),
        "seed 000/003: when set, SPILL attempts keep the target at the budget instead of lowering it to used-1",
    )
    .live("retry loop: the SPILL attempts' target — seeds 000/003 'Retry loop'"),
    k(
        639,
        "RegAllocNumNonSpillTrials",
        int(0, 64),
        Default::Int(4),
        "seed 000/003: number of SPILL attempts after the NOSPILL attempt (the seeds disagree whether 638 or 639 bounds the loop; radbg uses 639)",
    )
    .live("retry loop: number of SPILL attempts — seeds 000/003 'Retry loop'"),
    k(
        646,
        "RegAllocPrefMacOperands",
        int(0, 3),
        Default::Int(0),
        "seed 000: MAC operand preference 1=read, 2=write, 3=both; pre-assigns operands of eligible opcodes",
    )
    .live("pre-allocation — seed 000 'Pre-Allocation'"),
    k(649, "RegAllocAbiCompat", BOOL, Default::Bool(true), "seed 000 (+1594): ABI compatibility (name is radbg's)")
    .inert("ABI — seed 000 state +1594", "the value is shown in the state pane; nothing in radbg's allocator reads it"),
    k(
        680,
        "RegAllocSpillCostMultiplier",
        float(0.0, 1e6),
        Default::Float(4.0),
        "seed 000 (+1548): spill cost multiplier, scaled by --register-usage-level; also the save-chain bound of seed 001",
    )
    .live("spill cost (+1548, scaled by --register-usage-level) — seed 000 state; seed 001 save-chain bound"),
    k(
        682,
        "RegAllocEpochAware",
        BOOL,
        Default::Bool(false),
        "seed 000 (+1588): epoch-aware allocation (name is radbg's)",
    )
    .inert(
        "mode flag +1588 — seed 000 'Allocator State Object Layout'",
        "shown in the state pane; forced on for more than one block (seed 000), and nothing in radbg's allocator reads it",
    ),
    k(
        683,
        "RegAllocPairedMode",
        BOOL,
        Default::Bool(false),
        "seed 000 (+1589): paired-register allocation mode (name is radbg's)",
    )
    .inert(
        "mode flag +1589 (allocation mode 6, CSSA paired) — seed 000",
        "it selects the CSSA-paired mode of a function with PHIs, and such a function has more than one block, where seed 000 forces the flag on anyway",
    ),
    k(
        684,
        "RegAllocThresholdForDiscardConflicts",
        int(0, 1 << 30),
        Default::Int(50),
        "seed 000: the fat-point scan skips slots whose primary cost exceeds this",
    )
    .live(
        "fat-point scan: discard threshold, compared with the interval interference of seed 000's type 7 (radbg.IntervalInterference, on by default) — seed 000 'Core Fat-Point Allocator'",
    )
    .needs(
        "radbg.IntervalInterference",
        1,
        "the interval interference of seed 000's type 7 is the only primary weight it is compared with on kernels without phis",
    ),
    k(
        934,
        "UseNewLoopInvariantRoutineForHoisting",
        BOOL,
        Default::Bool(false),
        "seed 000: selects the new LICM routine",
    )
    .inert("pre-pass loop-invariant hoisting — seed 000 'Knobs'", "radbg has no hoisting pass"),
    r(
        "radbg.LoopWeight",
        int(1, 1000),
        Default::Int(8),
        "block frequency of a loop body relative to its preheader: freq = LoopWeight^depth (seeds give no scheme)",
    )
    .live("cfg: block frequencies (spill costs, guidance) — radbg's scheme, seeds give none"),
    r("radbg.SpillWeight", float(0.0, 1e6), Default::Float(15.0), "seed 003: base spill cost weight per reference")
    .live("spill cost: 15.0 per reference — seed 003 'Cost model'"),
    r(
        "radbg.SpillWeightHighPressure",
        float(0.0, 1e6),
        Default::Float(3.0),
        "seed 003: spill weight for a class under high pressure (+893 flag)",
    )
    .live("spill cost of a high-pressure class (+893) — seed 003 'Cost model'"),
    r(
        "radbg.CallCostSeed001",
        BOOL,
        Default::Bool(false),
        "seed 001 (adjust_spill_cost_for_abi): charge only a CALL's own definitions wider than one register instead of every vreg live across the call (radbg's default, a documented departure)",
    )
    .live("spill cost at CALLs — seed 001 'Scratch Data Registers'"),
    r(
        "radbg.BitSpill",
        BOOL,
        Default::Bool(true),
        "seed 003 (instruction type 10, bit-spill): predicates beyond the P file live in general registers (P2R after each def, ISETP.NE before each read) instead of local memory",
    )
    .live("before the first class: predicates beyond the P file — seed 003 instruction type 10"),
    r(
        "radbg.TensorRegs",
        int(0, 256),
        Default::Int(0),
        "size of the tensor/accumulator file (class 6); 0 = per-arch default (the seed says 'per-arch' without numbers)",
    )
    .live("budget: size of class 6 — seed 000 register classes"),
    r("RegTgtCoeffA", float(0.0, 1.0), Default::Float(0.2), "seed 000 (+1632): budget-fraction coefficient A")
    .inert("budget-fraction model +1632 — seed 000 'Piecewise Budget Fraction Evaluation'", "the model is evaluated and shown in the state pane, but radbg's spill trigger is the register count, not this fraction"),
    r("RegTgtCoeffB", float(0.0, 1.0), Default::Float(1.0), "seed 000 (+1640): budget-fraction coefficient B")
    .inert("budget-fraction model +1640 — seed 000 'Piecewise Budget Fraction Evaluation'", "the model is evaluated and shown in the state pane, but radbg's spill trigger is the register count, not this fraction"),
    r("RegTgtCoeffC", float(0.0, 1.0), Default::Float(0.3), "seed 000 (+1648): budget-fraction coefficient C")
    .inert("budget-fraction model +1648 — seed 000 'Piecewise Budget Fraction Evaluation'", "the model is evaluated and shown in the state pane, but radbg's spill trigger is the register count, not this fraction"),
    r(
        "RegTgtMaxThreads",
        int(1, 4096),
        Default::Int(119),
        "seed 000 (+1624): max threads per block of the budget model",
    )
    .inert("budget-fraction model +1624 — seed 000 'Piecewise Budget Fraction Evaluation'", "the model is evaluated and shown in the state pane, but radbg's spill trigger is the register count, not this fraction"),
    r(
        "RegTgtPressureThreshold",
        int(1, 4096),
        Default::Int(160),
        "seed 000 (+1628): pressure threshold of the budget model",
    )
    .inert("budget-fraction model +1628 — seed 000 'Piecewise Budget Fraction Evaluation'", "the model is evaluated and shown in the state pane, but radbg's spill trigger is the register count, not this fraction"),
    r(
        "radbg.BriggsK",
        int(0, 255),
        Default::Int(0),
        "seed 002: colours per register file of the Chaitin-Briggs allocator; 0 = the seed's per-architecture table (K=15 on SM 70-100), lowered by the budget",
    )
    .live("Chaitin-Briggs allocator (--allocator briggs) — seed 002"),
    r(
        "radbg.BriggsKTheoretical",
        BOOL,
        Default::Bool(false),
        "seed 002 (doubtful K=15 on SM 90+): take the table's theoretical maximum (16, or 21 from SM 90) instead of its actual K",
    )
    .live("Chaitin-Briggs allocator (--allocator briggs) — seed 002"),
    r(
        "radbg.BriggsCoalesceFactor",
        float(0.01, 100.0),
        Default::Float(0.8),
        "seed 002: COALESCE_FACTOR (0xCCCCCCCCCCCCCCCD) in priority = spill_cost / (degree x factor)",
    )
    .live("Chaitin-Briggs allocator (--allocator briggs) — seed 002"),
    r(
        "radbg.BriggsLoopDepthBase",
        float(1.0, 100.0),
        Default::Float(1.5),
        "seed 002: LOOP_DEPTH_BASE of the spill cost's loop multiplier base^depth",
    )
    .live("Chaitin-Briggs allocator (--allocator briggs) — seed 002"),
    r(
        "radbg.BriggsMemLatency",
        float(0.0, 1000.0),
        Default::Float(0.0),
        "seed 002: memory latency of the spill cost in cycles; 0 = estimate from the working set (4 L1, 10 L2, 40/100 beyond)",
    )
    .live("Chaitin-Briggs allocator (--allocator briggs) — seed 002"),
    r(
        "radbg.BriggsBackEdgeProb",
        float(0.0, 0.999),
        Default::Float(0.9),
        "seed 002: loop back-edge probability of the block frequencies; a loop body runs 1/(1-p) times its preheader",
    )
    .live("Chaitin-Briggs allocator (--allocator briggs) — seed 002"),
    r(
        "radbg.BriggsUniformCostFactor",
        float(0.0, 100.0),
        Default::Float(1.5),
        "seed 002: spill cost multiplier of uniform registers",
    )
    .live("Chaitin-Briggs allocator (--allocator briggs) — seed 002"),
    r(
        "radbg.BriggsCoalesceRounds",
        int(0, 1000),
        Default::Int(10),
        "seed 002: MAX_COALESCE_ITERATIONS, rounds of iterated conservative coalescing",
    )
    .live("Chaitin-Briggs allocator (--allocator briggs) — seed 002"),
    r(
        "radbg.BriggsGeorge",
        BOOL,
        Default::Bool(false),
        "seed 002: also accept coalesces by George's test when Briggs's refuses (the seed: 'likely NOT used')",
    )
    .live("Chaitin-Briggs allocator (--allocator briggs) — seed 002"),
    r(
        "radbg.BriggsBankEdges",
        BOOL,
        Default::Bool(false),
        "seed 002: add the bank-conflict edges of same_memory_bank (vreg ids equal modulo 32) - doubtful, off by default",
    )
    .live("Chaitin-Briggs allocator (--allocator briggs) — seed 002"),
    r(
        "radbg.BriggsMaxIterations",
        int(1, 1000),
        Default::Int(12),
        "seed 002: build-colour-spill iterations before the Chaitin-Briggs allocator gives up (the seed's maximum seen is 12)",
    )
    .live("Chaitin-Briggs allocator (--allocator briggs) — seed 002"),
    r(
        "radbg.BriggsLazyReload",
        BOOL,
        Default::Bool(true),
        "seed 002: lazy reload - reuse a reloaded value within its block instead of reloading before every use",
    )
    .live("Chaitin-Briggs allocator (--allocator briggs) — seed 002"),
    r("radbg.BriggsRemat", BOOL, Default::Bool(true), "seed 002: rematerialize constants where cheaper than a reload")
    .live("Chaitin-Briggs allocator (--allocator briggs) — seed 002"),
    r(
        "radbg.BriggsSlotCoalescing",
        BOOL,
        Default::Bool(true),
        "seed 002: spill-slot coalescing - share slots between spilled vregs whose live ranges do not overlap",
    )
    .live("Chaitin-Briggs allocator (--allocator briggs) — seed 002"),
    r(
        "radbg.IntervalInterference",
        int(0, 2),
        Default::Int(1),
        "seed 000 (type 7 'Range: interference over an interval'): per slot, how many times an assigned vreg takes it inside a vreg's live-range holes, on the primary histogram; 0 off, 1 compared with knob 684 (discard; default), 2 also minimised (the seed's cost = primary)",
    )
    .live("fat-point histogram fill: interval interference (type 7) on the primary histogram — seed 000"),
    r(
        "radbg.StoreRotation",
        int(0, 16),
        Default::Int(4),
        "issue 23 rule 6 (ptxas's SASS; the seeds are silent): with bank-aware allocation on, the data of a store (STG, STS, ST, RED, ATOM) takes a register not held by the data of the previous N-1 stores of its block (N+1 after a load) nor by the addresses of its last N-1 loads, below the bank limit — ptxas rotates store data through four registers; 0 or 1 off",
    )
    .live("fat-point scan: first tie-break below the bank limit (alloc::constraints rotation lists) — ARCHITECTURE.md, issue 23 rule 6"),
    r(
        "radbg.SpillRemat",
        BOOL,
        Default::Bool(true),
        "issue 23 rule 16 (ptxas's SASS; seed 000 names the allocator's rematerialization lists, +696 and +1128, not what they hold): a value guidance chooses to spill whose one def reads no register (a launch-invariant special register, a constant-bank word, an immediate) is recomputed right before each instruction that reads it instead of stored to local memory: no spill bytes; off: every chosen value gets a slot",
    )
    .live("spill code: rematerialization of register-free defs (alloc::spill::rematerialize) — ARCHITECTURE.md, issue 23 rule 16"),
    r(
        "radbg.CalleeClobbers",
        BOOL,
        Default::Bool(true),
        "issue 23 rule 7 (ptxas's SASS; seed 001 is silent): a call to a function of the module allocated before its caller clobbers, of the convention's scratch registers, only those the callee's allocation writes (ptxas allocates such a callee with the kernel: values live across the call stay in scratch registers it does not touch); off: every scratch register below the callee's limit",
    )
    .live("call clobbers of module-defined callees (engine::machine::stages::abi_config) — ARCHITECTURE.md, issue 23 rule 7"),
    r(
        "radbg.SixLists",
        int(0, 7),
        Default::Int(0),
        "seed 000 six lists, bit per rule: 1 High = spill cost x (+1548)/4 over +768 (else interference over budget), 2 Low lists by cost/interference ratio (else first position), 4 stack popped in reverse (else from the bottom)",
    )
    .live("simplify-select order: the six lists and the stack — seed 000 'Six lists'"),
];

/// State-object fields (seed 000 byte offsets, inclusive ranges) that radbg fills in
/// from a knob and shows, but that nothing in its model reads, because the knob is not
/// modelled (issue 24: the state pane marks them instead of showing them as live).
pub const UNREAD_STATE_FIELDS: &[(u32, u32, &str)] = &[
    (1512, 1512, "RegAllocSpillInstCount"),
    (1540, 1540, "RegAllocSecondaryBudget"),
    (1544, 1544, "RegAllocTertiaryBudget"),
    (1593, 1593, "RegAllocPrecolorReuse"),
    (1594, 1594, "RegAllocAbiCompat"),
    // The budget-fraction model: +1624 max threads .. +1736 the linear model's slope.
    (1624, 1743, "RegTgtCoeffA"),
];

/// Why the state field at `offset` is shown but not read, or `None` when radbg's model
/// reads it (or does not model it at all: those show "(not modelled)").
pub fn unread_state_field(offset: u32) -> Option<String> {
    let (_, _, knob) = UNREAD_STATE_FIELDS.iter().find(|(lo, hi, _)| (*lo..=*hi).contains(&offset))?;
    let info = CATALOGUE.iter().find(|k| k.name == *knob)?;
    if info.modelled() {
        return None;
    }
    Some(if offset >= 1624 {
        "shown, not read: the budget-fraction model is not modelled".to_string()
    } else {
        format!("shown, not read: knob {} is not modelled", info.label())
    })
}

/// Finds a catalogue entry by name (exact) or index.
pub fn find(key: &KnobKey) -> Option<&'static KnobInfo> {
    match key {
        KnobKey::Name(n) => CATALOGUE.iter().find(|k| k.name == n),
        KnobKey::Index(i) => CATALOGUE.iter().find(|k| k.index == Some(*i)),
    }
}

/// Finds an entry by a user-typed string: a name or a decimal index.
pub fn find_str(s: &str) -> Option<&'static KnobInfo> {
    match s.parse::<u32>() {
        Ok(i) => find(&KnobKey::Index(i)),
        Err(_) => find(&KnobKey::Name(s.to_string())),
    }
}

/// The closest knob name to a misspelt one, for "did you mean".
pub fn suggest(s: &str) -> Option<&'static str> {
    crate::util::closest(s, CATALOGUE.iter().map(|k| k.name))
}

/// Why a knob setting was refused.
#[derive(Clone, Debug, PartialEq)]
pub enum KnobError {
    Unknown { key: String, suggestion: Option<&'static str> },
    WrongType { name: &'static str, expected: &'static str, found: String },
    OutOfRange { name: &'static str, value: String, min: String, max: String },
}

impl fmt::Display for KnobError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KnobError::Unknown { key, suggestion } => {
                write!(f, "unknown knob '{key}'")?;
                if let Some(s) = suggestion {
                    write!(f, " (did you mean '{s}'?)")?;
                }
                Ok(())
            }
            KnobError::WrongType { name, expected, found } => {
                let article = if expected.starts_with(['a', 'e', 'i', 'o', 'u']) { "an" } else { "a" };
                write!(f, "knob {name} takes {article} {expected} value, not '{found}'")
            }
            KnobError::OutOfRange { name, value, min, max } => {
                write!(f, "knob {name} value {value} is out of range {min}..={max}")
            }
        }
    }
}

impl std::error::Error for KnobError {}

fn key_string(key: &KnobKey) -> String {
    match key {
        KnobKey::Name(n) => n.clone(),
        KnobKey::Index(i) => i.to_string(),
    }
}

/// Checks a value against an entry's type, converting where it is unambiguous (an
/// integer written for a float knob, 0/1 for a bool).
pub fn check(info: &'static KnobInfo, value: &KnobValue) -> Result<KnobValue, KnobError> {
    let shown = match value {
        KnobValue::Int(i) => i.to_string(),
        KnobValue::Float(x) => x.to_string(),
        KnobValue::Bool(b) => b.to_string(),
        KnobValue::Str(s) => s.clone(),
    };
    let wrong = || KnobError::WrongType { name: info.name, expected: info.ty.name(), found: shown.clone() };
    match (info.ty, value) {
        (KnobType::Bool, KnobValue::Bool(b)) => Ok(KnobValue::Bool(*b)),
        (KnobType::Bool, KnobValue::Int(i)) if *i == 0 || *i == 1 => Ok(KnobValue::Bool(*i == 1)),
        (KnobType::Int { min, max }, KnobValue::Int(i)) => {
            if *i < min || *i > max {
                Err(KnobError::OutOfRange { name: info.name, value: shown, min: min.to_string(), max: max.to_string() })
            } else {
                Ok(KnobValue::Int(*i))
            }
        }
        (KnobType::Float { min, max }, KnobValue::Float(_) | KnobValue::Int(_)) => {
            let x = match value {
                KnobValue::Float(x) => *x,
                KnobValue::Int(i) => *i as f64,
                _ => unreachable!(),
            };
            if !x.is_finite() || x < min || x > max {
                Err(KnobError::OutOfRange { name: info.name, value: shown, min: min.to_string(), max: max.to_string() })
            } else {
                Ok(KnobValue::Float(x))
            }
        }
        (KnobType::Str, v) => Ok(KnobValue::Str(match v {
            KnobValue::Str(s) => s.clone(),
            _ => shown,
        })),
        _ => Err(wrong()),
    }
}

/// Parses a value typed by a person (`50`, `4.0`, `true`, `off`, `"text"`).
pub fn parse_value(s: &str) -> KnobValue {
    let t = s.trim();
    match t {
        "true" | "on" | "yes" => return KnobValue::Bool(true),
        "false" | "off" | "no" => return KnobValue::Bool(false),
        _ => {}
    }
    if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X"))
        && let Ok(i) = i64::from_str_radix(h, 16)
    {
        return KnobValue::Int(i);
    }
    if let Ok(i) = t.parse::<i64>() {
        return KnobValue::Int(i);
    }
    if let Ok(x) = t.parse::<f64>() {
        return KnobValue::Float(x);
    }
    KnobValue::Str(t.trim_matches('"').to_string())
}

/// The knobs in force: catalogue defaults overridden by settings. Ordered by name.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Knobs {
    set: BTreeMap<&'static str, KnobValue>,
}

impl Knobs {
    pub fn new() -> Knobs {
        Knobs::default()
    }

    /// Sets a knob by key, type-checked.
    pub fn set(&mut self, key: &KnobKey, value: &KnobValue) -> Result<&'static KnobInfo, KnobError> {
        let info = find(key).ok_or_else(|| KnobError::Unknown {
            key: key_string(key),
            suggestion: match key {
                KnobKey::Name(n) => suggest(n),
                KnobKey::Index(_) => None,
            },
        })?;
        let v = check(info, value)?;
        self.set.insert(info.name, v);
        Ok(info)
    }

    /// Sets a knob already resolved and checked (`engine::settings::ResolvedKnob`).
    pub fn set_checked(&mut self, info: &'static KnobInfo, value: KnobValue) {
        self.set.insert(info.name, value);
    }

    /// Sets a knob from `NAME=VALUE` or `INDEX=VALUE` text.
    pub fn set_str(&mut self, assignment: &str) -> Result<&'static KnobInfo, KnobError> {
        let (k, v) = assignment.split_once('=').ok_or_else(|| KnobError::WrongType {
            name: "?",
            expected: "NAME=VALUE",
            found: assignment.to_string(),
        })?;
        let k = k.trim();
        let key = match k.parse::<u32>() {
            Ok(i) => KnobKey::Index(i),
            Err(_) => KnobKey::Name(k.to_string()),
        };
        self.set(&key, &parse_value(v))
    }

    /// Removes an override, restoring the default.
    pub fn reset(&mut self, name: &str) {
        self.set.remove(name);
    }

    fn value(&self, info: &'static KnobInfo) -> KnobValue {
        self.set.get(info.name).cloned().unwrap_or_else(|| info.default.value())
    }

    fn info(key: impl Into<KnobRef>) -> &'static KnobInfo {
        let key: KnobRef = key.into();
        let found = match key {
            KnobRef::Index(i) => CATALOGUE.iter().find(|k| k.index == Some(i)),
            KnobRef::Name(n) => CATALOGUE.iter().find(|k| k.name == n),
        };
        found.unwrap_or_else(|| panic!("knob {key:?} is not in the catalogue"))
    }

    /// An integer knob's value. Panics on a key not in the catalogue (a bug).
    pub fn int(&self, key: impl Into<KnobRef>) -> i64 {
        match self.value(Knobs::info(key)) {
            KnobValue::Int(i) => i,
            KnobValue::Bool(b) => b as i64,
            KnobValue::Float(x) => x as i64,
            KnobValue::Str(s) => s.parse().unwrap_or(0),
        }
    }

    pub fn float(&self, key: impl Into<KnobRef>) -> f64 {
        match self.value(Knobs::info(key)) {
            KnobValue::Float(x) => x,
            KnobValue::Int(i) => i as f64,
            KnobValue::Bool(b) => b as i64 as f64,
            KnobValue::Str(s) => s.parse().unwrap_or(0.0),
        }
    }

    pub fn bool(&self, key: impl Into<KnobRef>) -> bool {
        match self.value(Knobs::info(key)) {
            KnobValue::Bool(b) => b,
            KnobValue::Int(i) => i != 0,
            KnobValue::Float(x) => x != 0.0,
            KnobValue::Str(s) => !s.is_empty(),
        }
    }

    pub fn str(&self, key: impl Into<KnobRef>) -> String {
        match self.value(Knobs::info(key)) {
            KnobValue::Str(s) => s,
            KnobValue::Int(i) => i.to_string(),
            KnobValue::Float(x) => x.to_string(),
            KnobValue::Bool(b) => b.to_string(),
        }
    }

    /// Every knob with its value in force and whether it was overridden.
    pub fn all(&self) -> Vec<(&'static KnobInfo, KnobValue, bool)> {
        CATALOGUE.iter().map(|k| (k, self.value(k), self.set.contains_key(k.name))).collect()
    }

    /// Only the overridden knobs, by name.
    pub fn overrides(&self) -> impl Iterator<Item = (&'static str, &KnobValue)> {
        self.set.iter().map(|(k, v)| (*k, v))
    }
}

/// A knob reference in code: an index or a name.
#[derive(Clone, Copy, Debug)]
pub enum KnobRef {
    Index(u32),
    Name(&'static str),
}

impl From<u32> for KnobRef {
    fn from(i: u32) -> KnobRef {
        KnobRef::Index(i)
    }
}

impl From<&'static str> for KnobRef {
    fn from(n: &'static str) -> KnobRef {
        KnobRef::Name(n)
    }
}

/// Formats a value for display.
pub fn show(v: &KnobValue) -> String {
    match v {
        KnobValue::Int(i) => i.to_string(),
        KnobValue::Float(x) => format!("{x:?}"),
        KnobValue::Bool(b) => b.to_string(),
        KnobValue::Str(s) => format!("{s:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catalogue_indices_and_names_are_unique() {
        let mut names: Vec<_> = CATALOGUE.iter().map(|k| k.name).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), CATALOGUE.len());
        let mut idx: Vec<_> = CATALOGUE.iter().filter_map(|k| k.index).collect();
        let n = idx.len();
        idx.sort();
        idx.dedup();
        assert_eq!(idx.len(), n);
        for k in CATALOGUE {
            check(k, &k.default.value()).unwrap_or_else(|e| panic!("default of {} invalid: {e}", k.name));
        }
    }

    #[test]
    fn set_by_name_or_index_and_type_check() {
        let mut k = Knobs::new();
        assert_eq!(k.int(THRESHOLD_DISCARD), 50);
        k.set_str("684=7").unwrap();
        assert_eq!(k.int(THRESHOLD_DISCARD), 7);
        k.set_str("RegAllocThresholdForDiscardConflicts = 9").unwrap();
        assert_eq!(k.int(684), 9);
        assert!(matches!(k.set_str("684=true"), Err(KnobError::WrongType { .. })));
        assert!(matches!(k.set_str("684=-1"), Err(KnobError::OutOfRange { .. })));
        let e = k.set_str("RegAllocThresholdForDiscardConflict=1").unwrap_err();
        assert_eq!(
            e.to_string(),
            "unknown knob 'RegAllocThresholdForDiscardConflict' (did you mean 'RegAllocThresholdForDiscardConflicts'?)"
        );
        k.set_str("680=2").unwrap();
        assert_eq!(k.float(SPILL_COST_MULT), 2.0);
    }

    #[test]
    fn the_discard_threshold_says_it_needs_interval_interference() {
        let info = find_str("684").expect("684");
        let off = info.needs_note(|_| 0).expect("a note without the enabler");
        assert!(off.contains("radbg.IntervalInterference=1") && off.contains("changes nothing"), "{off}");
        assert_eq!(info.needs_note(|n| if n == "radbg.IntervalInterference" { 1 } else { 0 }), None);
        assert_eq!(
            info.needs_note(|n| if n == "radbg.IntervalInterference" { 2 } else { 0 }),
            None,
            "2 enables it too"
        );
        // On by default: the catalogue's own default enables it.
        assert_eq!(info.needs_note(|n| Knobs::new().int(n)), None);
        assert_eq!(find_str("639").expect("639").needs_note(|_| 0), None, "a knob that needs nothing");
    }

    #[test]
    fn a_setting_note_says_not_modelled_or_needs() {
        let mut k = Knobs::new();
        let hoist = find_str("381").expect("381");
        assert!(hoist.setting_note(&k).is_some_and(|n| n.contains("not modelled")));
        let discard = find_str("684").expect("684");
        assert_eq!(discard.setting_note(&k), None, "the interval interference is on by default");
        k.set_str("radbg.IntervalInterference=0").unwrap();
        assert!(discard.setting_note(&k).is_some_and(|n| n.contains("acts only with radbg.IntervalInterference=1")));
        assert_eq!(find_str("639").expect("639").setting_note(&k), None);
    }

    #[test]
    fn every_knob_says_whether_and_where_it_acts() {
        for k in CATALOGUE {
            assert!(!k.acts.is_empty(), "knob {} does not say where it acts", k.name);
            match k.model {
                Model::Modelled => assert!(k.not_modelled_note().is_none()),
                Model::NotModelled(why) => {
                    assert!(!why.is_empty());
                    let note = k.not_modelled_note().unwrap_or_default();
                    assert!(note.contains("not modelled") && note.contains(k.name), "{note}");
                }
            }
        }
        let hoist = find_str("381").expect("catalogued");
        assert!(!hoist.modelled());
        assert!(find_str("684").expect("catalogued").modelled());
        assert_eq!(find_str("629").expect("catalogued").range(), "0..=2");
    }

    #[test]
    fn unread_state_fields_are_those_of_unmodelled_knobs() {
        assert!(unread_state_field(1512).is_some_and(|n| n.contains("635")));
        assert!(unread_state_field(1700).is_some_and(|n| n.contains("budget-fraction")));
        assert_eq!(unread_state_field(1548), None);
        assert_eq!(unread_state_field(1524), None);
        for (_, _, knob) in UNREAD_STATE_FIELDS {
            assert!(CATALOGUE.iter().any(|k| k.name == *knob && !k.modelled()), "{knob}");
        }
    }
}
