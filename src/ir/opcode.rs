//! The opcode table: every mnemonic Ori IR knows, its Ori opcode number where a seed
//! names one, and the properties analyses and the allocator rely on.
//!
//! The seeds reuse numbers for different things (seed 001 calls 77 `LD` where seed
//! 000 calls it `EXIT`; seeds 001 and 003 give 183/288 to both SUSPEND/RESUME and
//! STL/LDL; MOV is 19, 130 or 195 depending on the page). radbg's choice, recorded
//! in ARCHITECTURE.md ("Opcode numbers"): the numbers the *allocator* seeds key on
//! win (000 and 003: the pre-allocation mask, CALL 97, EXIT 77, PHI 195, STL 183,
//! LDL 288), then seed 004 (BRA 67), then seed 001 (SUSPEND 124 from its
//! `0x7C` test, CALL-lowering numbers not reused). Numbers nobody names are `None`.
//! Behaviour never depends on a number, only on the properties below.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use crate::ir::Atom;

/// Property bits of an opcode.
pub mod props {
    /// Writes memory.
    pub const STORE: u32 = 1 << 0;
    /// Reads memory.
    pub const LOAD: u32 = 1 << 1;
    /// Synchronisation: BAR, MEMBAR, fences, warp sync.
    pub const BARRIER: u32 = 1 << 2;
    /// Branch (conditional when guarded); its label operand is a successor.
    pub const BRANCH: u32 = 1 << 3;
    /// Leaves the function: EXIT, RET.
    pub const EXIT: u32 = 1 << 4;
    /// Call-like: clobbers caller-saved registers (seed 004 backward-walk special case).
    pub const CALL: u32 = 1 << 5;
    /// Texture / surface operation with side effects.
    pub const TEXTURE: u32 = 1 << 6;
    /// Atomic read-modify-write.
    pub const ATOMIC: u32 = 1 << 7;
    /// Any other side effect (must never be removed by DCE).
    pub const SIDE: u32 = 1 << 8;
    /// A register copy (coalescing candidate).
    pub const MOVE: u32 = 1 << 9;
    /// A CSSA phi.
    pub const PHI: u32 = 1 << 10;
    /// Spill store inserted by the allocator.
    pub const SPILL_STORE: u32 = 1 << 11;
    /// Spill reload inserted by the allocator.
    pub const SPILL_LOAD: u32 = 1 << 12;
    /// Coroutine suspend point.
    pub const SUSPEND: u32 = 1 << 13;
    /// Coroutine resume point.
    pub const RESUME: u32 = 1 << 14;
    /// Multi-source / predicated special (seed 004 opcode 188/190 case).
    pub const MULTI_SOURCE: u32 = 1 << 15;
    /// Not in the table: imported as-is, treated as having side effects.
    pub const UNKNOWN: u32 = 1 << 16;
    /// Indirect branch whose targets are its label operands (BRX).
    pub const INDIRECT: u32 = 1 << 17;

    /// Properties that make an instruction undeletable.
    pub const SIDE_EFFECTS: u32 =
        STORE | BARRIER | BRANCH | EXIT | CALL | TEXTURE | ATOMIC | SIDE | SUSPEND | RESUME | UNKNOWN | SPILL_STORE;
}

use props::*;

/// Static facts about one mnemonic.
#[derive(Debug)]
pub struct OpInfo {
    pub name: &'static str,
    /// The Ori opcode number, where a seed names one.
    pub ori: Option<u16>,
    pub props: u32,
    /// One line saying what it does, for `help` and the IR pane.
    pub summary: &'static str,
}

impl OpInfo {
    pub fn is(&self, p: u32) -> bool {
        self.props & p != 0
    }
    pub fn has_side_effects(&self) -> bool {
        self.props & SIDE_EFFECTS != 0
    }
}

const fn op(name: &'static str, ori: Option<u16>, props: u32, summary: &'static str) -> OpInfo {
    OpInfo { name, ori, props, summary }
}

/// The table. Sorted by name so lookup is a binary search (a test checks the order).
pub static OPCODES: &[OpInfo] = &[
    op("AL2P", Some(51), LOAD, "attribute-to-patch address (pre-allocation wide set)"),
    op("ATOM", Some(50), ATOMIC | LOAD | STORE, "generic atomic"),
    op("ATOMG", Some(185), ATOMIC | LOAD | STORE, "global atomic"),
    op("ATOMS", None, ATOMIC | LOAD | STORE, "shared atomic"),
    op("BAR", Some(159), BARRIER, "CTA barrier"),
    op("BMOV", None, SIDE, "barrier register move"),
    op("BMSK", None, 0, "bitfield mask"),
    op("BRA", Some(67), BRANCH, "branch"),
    op("BREV", None, 0, "bit reverse"),
    op("BRX", None, BRANCH | INDIRECT, "indirect branch to one of its label operands"),
    op("BSSY", None, BARRIER, "push convergence barrier"),
    op("BSYNC", None, BARRIER, "wait on convergence barrier"),
    op("CALL", Some(97), CALL, "call a function"),
    op("CCTL", None, SIDE, "cache control"),
    op("CCTLT", Some(110), SIDE, "texture cache control (pre-allocation wide set)"),
    op("CONVALLOC", None, SIDE, "convergent allocation boundary"),
    op("CS2R", None, 0, "special register to register pair"),
    op("DADD", None, 0, "f64 add"),
    op("DFMA", None, 0, "f64 fused multiply-add"),
    op("DMUL", None, 0, "f64 multiply"),
    op("DSETP", None, 0, "f64 compare to predicate"),
    op("EXIT", Some(77), EXIT, "thread exit"),
    op("F2F", None, 0, "float conversion"),
    op("F2I", None, 0, "float to integer"),
    op("FADD", None, 0, "f32 add"),
    op("FCHK", None, 0, "division range check"),
    op("FENCE_T", Some(279), BARRIER, "memory fence (pre-allocation wide set)"),
    op("FFMA", None, 0, "f32 fused multiply-add"),
    op("FLO", None, 0, "find leading one"),
    op("FMNMX", None, 0, "f32 min/max"),
    op("FMUL", None, 0, "f32 multiply"),
    op("FSEL", None, 0, "f32 select"),
    op("FSETP", None, 0, "f32 compare to predicate"),
    op("HADD2", None, 0, "f16x2 add"),
    op("HFMA2", None, 0, "f16x2 fused multiply-add"),
    op("HMMA", None, 0, "tensor-core matrix multiply-accumulate (f16)"),
    op("HMUL2", None, 0, "f16x2 multiply"),
    op("I2F", None, 0, "integer to float"),
    op("IABS", None, 0, "integer absolute value"),
    op("IADD3", None, 0, "three-input integer add"),
    op("IMAD", Some(283), 0, "integer multiply-add"),
    op("IMMA", None, 0, "tensor-core matrix multiply-accumulate (integer)"),
    op("IMNMX", None, 0, "integer min/max"),
    op("ISETP", Some(20), 0, "integer compare to predicate"),
    op("LD", None, LOAD, "generic load"),
    op("LDC", None, LOAD, "constant-bank load"),
    op("LDG", None, LOAD, "global load"),
    op("LDGSTS", None, LOAD | STORE, "asynchronous global-to-shared copy"),
    op("LDL", Some(288), LOAD | SPILL_LOAD, "local-memory load (spill reload)"),
    op("LDS", None, LOAD, "shared load"),
    op("LDSM", None, LOAD, "shared load matrix"),
    op("LEA", None, 0, "load effective address"),
    op("LOP3", Some(272), 0, "three-input logic operation"),
    op("MATCH", None, 0, "warp match"),
    op("MEMBAR", Some(111), BARRIER, "memory barrier (pre-allocation wide set)"),
    op("MOV", Some(19), MOVE, "register move"),
    op("MUFU", None, 0, "multi-function unit (rcp, sqrt, ex2 ...)"),
    op("NANOSLEEP", None, SIDE, "sleep"),
    op("NOP", None, 0, "no operation"),
    op("P2R", None, 0, "predicates to register"),
    op("PHI", Some(195), PHI, "CSSA phi"),
    op("PLOP3", None, 0, "three-input predicate logic"),
    op("POPC", None, 0, "population count"),
    op("PRMT", None, 0, "byte permute"),
    op("R2P", Some(22), 0, "register to predicates (pre-allocation mask)"),
    op("RED", None, ATOMIC | STORE, "global reduction"),
    op("RESUME", None, RESUME, "coroutine resume point"),
    op("RET", Some(72), EXIT, "return from a device function"),
    op("S2R", None, 0, "special register to register"),
    op("S2UR", None, 0, "special register to uniform register"),
    op("SEL", Some(352), 0, "select (pre-allocation mask)"),
    op("SETMAXNREG", None, SIDE, "per-warp register pool adjustment"),
    op("SHF", None, 0, "funnel shift"),
    op("SHFL", Some(137), 0, "warp shuffle"),
    op("SHL", Some(139), 0, "shift left"),
    op("SHR", None, 0, "shift right"),
    op("ST", Some(16), STORE, "generic store"),
    op("STG", None, STORE, "global store"),
    op("STL", Some(183), STORE | SPILL_STORE, "local-memory store (spill store)"),
    op("STS", None, STORE, "shared store"),
    op("SUATOM", Some(114), ATOMIC | TEXTURE, "surface atomic (pre-allocation wide set)"),
    op("SULD", Some(112), LOAD | TEXTURE, "surface load (pre-allocation wide set)"),
    op("SUSPEND", Some(124), SUSPEND, "coroutine suspend point"),
    op("SUST", Some(113), STORE | TEXTURE, "surface store (pre-allocation wide set)"),
    op("TEX", Some(83), TEXTURE | LOAD, "texture fetch (pre-allocation mask)"),
    op("TLD", None, TEXTURE | LOAD, "texture load"),
    op("UFMUL", Some(297), 0, "uniform f32 multiply (pre-allocation mask)"),
    op("UIADD3", None, 0, "uniform three-input add"),
    op("UIMAD", None, 0, "uniform multiply-add"),
    op("UISETP", Some(289), 0, "uniform compare (pre-allocation wide set)"),
    op("ULDC", None, LOAD, "uniform constant load"),
    op("ULOP3", None, 0, "uniform logic operation"),
    op("UMOV", None, MOVE, "uniform move"),
    op("USEL", None, 0, "uniform select"),
    op("USHF", None, 0, "uniform funnel shift"),
    op("VOTE", None, 0, "warp vote"),
    op("WARPSYNC", None, BARRIER, "warp synchronisation"),
    op("WGMMA", None, SIDE, "warpgroup matrix multiply-accumulate"),
    op("XMAD", None, 0, "16-bit multiply-add (Maxwell)"),
];

/// Index of the entry used for mnemonics not in the table.
pub const UNKNOWN_INFO: OpInfo = op("?", None, UNKNOWN, "opcode radbg does not know");

/// An opcode: an entry of [`OPCODES`] or a mnemonic radbg does not know, as one
/// 32-bit number: below `OPCODES.len()` the entry's index, above it an index into the
/// process's table of unknown mnemonics (each interned once, as [`crate::ir::Atom`]s
/// are). Four bytes rather than the 16 of an enum holding a `Box<str>`: 8 bytes off
/// every instruction (issue 25, the IR of a many-entry file).
/// Ordered as the enum it replaces was: every known opcode by its index, then the
/// unknown ones by name.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Opcode(u32);

/// The unknown mnemonics seen so far, by number (less `OPCODES.len()`), and their numbers.
type UnknownTable = (Vec<Atom>, HashMap<Atom, u32>);

fn unknown_table() -> &'static Mutex<UnknownTable> {
    static TABLE: OnceLock<Mutex<UnknownTable>> = OnceLock::new();
    TABLE.get_or_init(|| Mutex::new((Vec::new(), HashMap::new())))
}

impl Opcode {
    /// Looks a mnemonic up (case-sensitive, upper case); unknown ones are kept by name.
    pub fn from_mnemonic(name: &str) -> Opcode {
        match lookup(name) {
            Some(i) => Opcode::known(i as u16),
            None => Opcode::unknown(name),
        }
    }

    /// Entry `i` of [`OPCODES`].
    pub fn known(i: u16) -> Opcode {
        debug_assert!(usize::from(i) < OPCODES.len(), "opcode {i} not in the table");
        Opcode(u32::from(i))
    }

    /// A mnemonic radbg does not know (looked up by [`Opcode::from_mnemonic`] first where
    /// it may be known).
    pub fn unknown(name: &str) -> Opcode {
        let name = Atom::new(name);
        // A poisoned lock still holds a consistent table: entries are inserted whole.
        let mut t = unknown_table().lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(&k) = t.1.get(&name) {
            return Opcode(k);
        }
        let k = u32::try_from(OPCODES.len() + t.0.len()).expect("fewer than 2^32 mnemonics");
        t.0.push(name);
        t.1.insert(name, k);
        Opcode(k)
    }

    /// The opcode for a mnemonic that must be in the table.
    ///
    /// # Panics
    /// If the name is not in [`OPCODES`] (a programming error, caught by tests).
    pub fn named(name: &str) -> Opcode {
        Opcode::known(lookup(name).unwrap_or_else(|| panic!("opcode {name} not in table")) as u16)
    }

    pub fn info(&self) -> &'static OpInfo {
        static UNKNOWN: OpInfo = UNKNOWN_INFO;
        OPCODES.get(self.0 as usize).unwrap_or(&UNKNOWN)
    }

    pub fn mnemonic(&self) -> &'static str {
        match OPCODES.get(self.0 as usize) {
            Some(o) => o.name,
            None => {
                let t = unknown_table().lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                t.0[self.0 as usize - OPCODES.len()].as_str()
            }
        }
    }

    pub fn is_known(&self) -> bool {
        (self.0 as usize) < OPCODES.len()
    }
}

impl PartialOrd for Opcode {
    fn partial_cmp(&self, other: &Opcode) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Opcode {
    fn cmp(&self, other: &Opcode) -> std::cmp::Ordering {
        match (self.is_known(), other.is_known()) {
            (true, true) => self.0.cmp(&other.0),
            (false, false) => self.mnemonic().cmp(other.mnemonic()),
            (true, false) => std::cmp::Ordering::Less,
            (false, true) => std::cmp::Ordering::Greater,
        }
    }
}

/// Printed as the enum it replaces was (`Known(12)`, `Unknown("FROB")`), so traces and
/// transcripts that show an opcode are unchanged.
impl std::fmt::Debug for Opcode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.is_known() {
            f.debug_tuple("Known").field(&self.0).finish()
        } else {
            f.debug_tuple("Unknown").field(&self.mnemonic()).finish()
        }
    }
}

/// Binary search of the table by name.
pub fn lookup(name: &str) -> Option<usize> {
    OPCODES.binary_search_by(|o| o.name.cmp(name)).ok()
}

/// The pre-allocation eligibility mask of seed 000 ("Opcode eligibility bitmask"):
/// bits {0, 28, 55, 61} of `0x2080000010000001`, tested as `mask >> (opcode - 22)`.
pub const PREALLOC_MASK: u64 = 0x2080000010000001;

/// The narrow test of seed 000: bitmask plus opcodes 297 (UFMUL) and 352 (SEL).
pub fn prealloc_eligible_narrow(ori: u16) -> bool {
    let shifted = (ori as u32).wrapping_sub(22);
    if shifted < 62 && (PREALLOC_MASK >> shifted) & 1 == 1 {
        return true;
    }
    ori == 297 || ori == 352
}

/// The wide test: narrow plus AL2P (51), 110..=114, FENCE_T (279), UISETP (289).
pub fn prealloc_eligible_wide(ori: u16) -> bool {
    prealloc_eligible_narrow(ori) || ori == 51 || (110..=114).contains(&ori) || ori == 279 || ori == 289
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_sorted_and_unique() {
        for w in OPCODES.windows(2) {
            assert!(w[0].name < w[1].name, "{} must sort before {}", w[0].name, w[1].name);
        }
    }

    #[test]
    fn prealloc_sets_match_seed() {
        let narrow: Vec<u16> = (0..400).filter(|&o| prealloc_eligible_narrow(o)).collect();
        assert_eq!(narrow, vec![22, 50, 77, 83, 297, 352]);
        let wide: Vec<u16> = (0..400).filter(|&o| prealloc_eligible_wide(o)).collect();
        assert_eq!(wide, vec![22, 50, 51, 77, 83, 110, 111, 112, 113, 114, 279, 289, 297, 352]);
    }

    #[test]
    fn orders_and_prints_as_the_enum_it_replaced() {
        // Interned in the other order than their names sort: the order is by name.
        let (z, a) = (Opcode::from_mnemonic("ZZ_UNSEEN"), Opcode::from_mnemonic("AA_UNSEEN"));
        let (first, last) = (Opcode::known(0), Opcode::known(OPCODES.len() as u16 - 1));
        assert!(first < last && last < a && a < z, "{first:?} {last:?} {a:?} {z:?}");
        assert_eq!(Opcode::from_mnemonic("ZZ_UNSEEN"), z);
        assert_eq!(format!("{a:?}"), "Unknown(\"AA_UNSEEN\")");
        assert_eq!(format!("{first:?}"), "Known(0)");
    }

    #[test]
    fn unknown_mnemonics_have_side_effects() {
        let op = Opcode::from_mnemonic("FROB");
        assert!(!op.is_known());
        assert!(op.info().has_side_effects());
        assert_eq!(op.mnemonic(), "FROB");
    }
}
