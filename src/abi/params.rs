//! The parameter and return-value register allocator (seed 001, "Parameter Register
//! Allocator: sub_19CA730" and "find_contiguous_free: Inlined Bitmap Scan").
//!
//! Owns: the 255-slot free list indexed relative to the first parameter register,
//! the alignment rule, `find_contiguous_free` exactly as the seed's pseudocode, and
//! the size error. Must not know: the return-address modes (the caller pre-occupies
//! the registers the return address, the reserved range and the stack pointer
//! take) or any diagnostics other than the size failure it reports back.

use crate::ir::abi_spec::{AbiSpec, AbiValue};

/// Slots in the free list: v103[31] + v104 + v105 + v106 = 255 bytes (seed 001,
/// "2048-Bit Free-List Bitmap").
pub const SLOTS: usize = 255;

/// Registers R0–R3 are the ABI's on every generation (seed 001, "Reserved Registers").
pub const ABI_RESERVED: u32 = 4;

/// One past the last allocatable R register (R254; R255 is RZ).
pub const MAX_REG_EXCLUSIVE: u32 = 255;

/// Where a parameter or return value lives: `count` consecutive R registers from
/// `first`, with `first` a multiple of `align` registers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Placement {
    pub first: u16,
    pub count: u16,
    /// Alignment in registers: 1, 2 or 4.
    pub align: u8,
}

impl Placement {
    /// The last register (inclusive). Only meaningful for `count > 0`.
    pub fn last(&self) -> u16 {
        self.first + self.count.saturating_sub(1)
    }
    pub fn contains(&self, r: u16) -> bool {
        self.count > 0 && self.first <= r && r <= self.last()
    }
    pub fn regs(&self) -> impl Iterator<Item = u16> + use<> {
        self.first..self.first + self.count
    }
}

/// The byte-per-slot free list of sub_19CA730, as booleans (`true` = 0xFF = free).
/// Slot `i` stands for register `base + i`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FreeList {
    pub base: u32,
    pub free: [bool; SLOTS],
}

impl FreeList {
    /// All slots free except those that would name R0–R3. The seed's pseudocode says
    /// `clear_bits(bitmap, 0, 3) // R0-R3 always reserved` while also indexing the
    /// bitmap relative to the first parameter register; radbg follows the comment
    /// (the registers R0–R3, whatever slots they fall on), since clearing relative
    /// slots 0–3 would forbid R4–R7 under the default base.
    pub fn new(base: u32) -> FreeList {
        let mut free = [true; SLOTS];
        for r in base..ABI_RESERVED.min(base.saturating_add(SLOTS as u32)) {
            free[(r - base) as usize] = false;
        }
        FreeList { base, free }
    }

    /// Marks an absolute register occupied (ignored outside the list).
    pub fn occupy_reg(&mut self, reg: u32) {
        if reg >= self.base && ((reg - self.base) as usize) < SLOTS {
            self.free[(reg - self.base) as usize] = false;
        }
    }

    /// Zeroes `count` slots from `offset` (the inlined memset after a find).
    pub fn occupy(&mut self, offset: u32, count: u32) {
        for s in offset..offset.saturating_add(count) {
            if (s as usize) < SLOTS {
                self.free[s as usize] = false;
            }
        }
    }
}

/// Alignment of a value in registers (1, 2 or 4).
///
/// The seed: `align = min(type_width, 16) / 4`, with the descriptor's alignment hint
/// clamped to [4, 16] bytes. radbg's choice (the seed does not define `type_width`
/// for arrays): an explicit `align N` is clamped to 4..=16; without one the natural
/// alignment is the total size in bytes (a `4x4` float4 is 16 bytes, quad-aligned,
/// as the seed's "16-byte parameters require 4-register-aligned bases" says), capped
/// at 16. Either is then rounded down to a power of two (`align 12` acts as 8), so
/// the negative-mask trick of the seed stays a valid alignment.
pub fn align_regs(v: &AbiValue) -> u32 {
    let bytes = match v.align {
        Some(a) => a as u64,
        None => v.bytes().min(16),
    };
    let bytes = bytes.clamp(4, 16) as u32;
    let pow2 = 1u32 << (31 - bytes.leading_zeros());
    pow2 / 4
}

/// `find_contiguous_free` of seed 001, line by line (the seed's `for i in 1 ..
/// count-1` includes `count-1`, or the last register of the run would go unchecked).
/// Returns the offset from `base` of the first of `count` free slots whose absolute
/// register `base + offset` is a multiple of `align`, or `None` (-1).
///
/// `align` must be a power of two (1, 2 or 4 from [`align_regs`]); `avail` is
/// clamped to the list length so the scan never reads past it.
pub fn find_contiguous_free(free: &[bool], count: u64, align: u32, base: u32, avail: u32) -> Option<u32> {
    let avail = (avail as i64).min(free.len() as i64);
    let align = align.max(1) as i64;
    let base = base as i64;
    let count = count as i64;
    let neg_mask = -align; // e.g. -2 = 0xFFFFFFFE
    let aligned = |next: i64| (neg_mask & (align - 1 + base + next)) - base;
    let mut offset = aligned(0); // first aligned slot
    while offset < avail {
        // Phase 1: find an aligned slot whose byte is free.
        if !free[offset as usize] {
            offset = aligned(offset + 1);
            continue;
        }
        // Bounds check: would count registers fit?
        if offset + count > avail {
            return None;
        }
        // Phase 2: verify all count slots are contiguous-free.
        if count == 1 {
            return Some(offset as u32);
        }
        let mut ok = true;
        for i in 1..count {
            if !free[(offset + i) as usize] {
                // Jump past the gap to the next aligned position.
                offset = aligned(offset + i + 1);
                ok = false;
                break;
            }
        }
        if ok {
            return Some(offset as u32);
        }
    }
    None
}

/// Which value failed to fit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueRef {
    Param(usize),
    Return(usize),
}

/// The size failure: `Function %s size requires more registers(%d) than available(%d)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SizeFailure {
    pub value: ValueRef,
    /// Slots the layout would need for the failing value to fit after everything
    /// already placed (always more than `available`).
    pub needed: u64,
    pub available: u32,
}

/// The result of [`allocate`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    pub params: Vec<Option<Placement>>,
    pub returns: Vec<Option<Placement>>,
    pub failure: Option<SizeFailure>,
}

/// sub_19CA730: parameters first, then return values, each in the first aligned run
/// of free slots of the one shared free list (seed: "both parameter and return value
/// allocation in a single bitmap"). Returns are placed after the parameters in
/// allocation order, so a return can fill an alignment hole the parameters left
/// (`param 1x4`, `param 1x8`, `return 1x4` gives R4, R6..R7, R5).
///
/// `withheld` are absolute registers taken before the scan (the return address when
/// known, the reserved range, the stack pointer). On the first value that does not fit, the
/// allocator stops ("return FAILURE"): that value and all later ones stay `None`
/// (passed on the stack). The seed's pseudocode checks only parameters and reuses
/// the last parameter's alignment for returns; radbg gives each return its own
/// alignment and the same size error. Zero-size values need no register and get
/// `None` without an error.
pub fn allocate(spec: &AbiSpec, base: u32, avail: u32, withheld: &[u32]) -> Layout {
    let mut list = FreeList::new(base);
    for &r in withheld {
        list.occupy_reg(r);
    }
    // Slot `i` is register `base + i`; nothing may land on RZ (R255) or beyond.
    let avail = avail.min(SLOTS as u32).min(MAX_REG_EXCLUSIVE.saturating_sub(base));
    let mut layout =
        Layout { params: vec![None; spec.params.len()], returns: vec![None; spec.returns.len()], failure: None };
    let values = spec
        .params
        .iter()
        .enumerate()
        .map(|(i, v)| (ValueRef::Param(i), v))
        .chain(spec.returns.iter().enumerate().map(|(i, v)| (ValueRef::Return(i), v)));
    for (which, v) in values {
        let count = v.regs();
        if count == 0 {
            continue;
        }
        let align = align_regs(v);
        match find_contiguous_free(&list.free, count, align, base, avail) {
            Some(offset) => {
                let p = Placement { first: (base + offset) as u16, count: count as u16, align: align as u8 };
                list.occupy(offset, count as u32);
                match which {
                    ValueRef::Param(i) => layout.params[i] = Some(p),
                    ValueRef::Return(i) => layout.returns[i] = Some(p),
                }
            }
            None => {
                layout.failure =
                    Some(SizeFailure { value: which, needed: needed(&list, count, align), available: avail });
                break;
            }
        }
    }
    layout
}

/// Slots needed to place `count` more registers after the highest occupied slot.
fn needed(list: &FreeList, count: u64, align: u32) -> u64 {
    let base = list.base as u64;
    let align = align.max(1) as u64;
    let next = list.free.iter().rposition(|f| !f).map_or(0, |i| i as u64 + 1);
    let start = (base + next).div_ceil(align) * align - base;
    start + count
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(base: u32, occupied: &[u32]) -> FreeList {
        let mut l = FreeList::new(base);
        for &o in occupied {
            l.free[o as usize] = false;
        }
        l
    }

    /// (base, occupied offsets, count, align, avail) -> offset
    fn check(base: u32, occupied: &[u32], count: u64, align: u32, avail: u32, expected: Option<u32>) {
        let l = list(base, occupied);
        assert_eq!(
            find_contiguous_free(&l.free, count, align, base, avail),
            expected,
            "base {base} occupied {occupied:?} count {count} align {align} avail {avail}"
        );
    }

    #[test]
    fn find_contiguous_free_hand_worked() {
        // Empty list from R4: everything lands at offset 0 (R4 is 1-, 2- and 4-aligned).
        check(4, &[], 1, 1, 20, Some(0));
        check(4, &[], 2, 2, 20, Some(0));
        check(4, &[], 4, 4, 20, Some(0));
        // Slot 0 (R4) taken: a single goes to R5, a pair skips the odd R5 to R6,
        // a quad jumps to R8.
        check(4, &[0], 1, 1, 20, Some(1));
        check(4, &[0], 2, 2, 20, Some(2));
        check(4, &[0], 4, 4, 20, Some(4));
        // Gap skipping: quad at R8 blocked by R10 (offset 6) -> next aligned R12.
        check(4, &[0, 6], 4, 4, 20, Some(8));
        // Gap at the last register of the run is caught (inclusive count-1).
        check(4, &[3], 4, 4, 20, Some(4));
        // Odd base: R5 first parameter register; a pair must start at R6 (offset 1).
        check(5, &[], 2, 2, 20, Some(1));
        check(5, &[], 4, 4, 20, Some(3));
        // Bounds: a run that would pass `avail` fails at once.
        check(4, &[], 5, 1, 4, None);
        check(4, &[0, 1, 2], 2, 2, 4, None);
        check(4, &[], 4, 4, 4, Some(0));
        // Everything occupied -> exhausted.
        check(4, &[0, 1, 2, 3], 1, 1, 4, None);
        // avail larger than the list is clamped, never read past.
        check(4, &[], 3, 1, 10_000, Some(0));
        check(4, &[], 300, 1, 10_000, None);
    }

    #[test]
    fn r0_r3_are_never_free() {
        let l = FreeList::new(0);
        assert_eq!(&l.free[..5], &[false, false, false, false, true]);
        assert_eq!(find_contiguous_free(&l.free, 1, 1, 0, 10), Some(4));
        let l = FreeList::new(2);
        assert_eq!(find_contiguous_free(&l.free, 2, 2, 2, 10), Some(2)); // R4
    }

    fn v(count: u32, size: u32, align: Option<u32>) -> AbiValue {
        AbiValue { count, size, align, bind: None }
    }

    #[test]
    fn alignment_rule() {
        assert_eq!(align_regs(&v(1, 4, None)), 1);
        assert_eq!(align_regs(&v(1, 8, None)), 2);
        assert_eq!(align_regs(&v(4, 4, None)), 4);
        assert_eq!(align_regs(&v(3, 4, None)), 2);
        assert_eq!(align_regs(&v(1, 2, None)), 1);
        assert_eq!(align_regs(&v(10, 4, None)), 4);
        assert_eq!(align_regs(&v(4, 4, Some(4))), 1);
        assert_eq!(align_regs(&v(1, 4, Some(64))), 4);
        assert_eq!(align_regs(&v(1, 4, Some(12))), 2);
        assert_eq!(align_regs(&v(1, 4, Some(0))), 1);
    }

    #[test]
    fn params_then_returns_and_size_failure() {
        let spec = AbiSpec {
            params: vec![v(1, 4, None), v(1, 8, None), v(4, 4, None)],
            returns: vec![v(1, 4, None)],
            ..AbiSpec::default()
        };
        let l = allocate(&spec, 4, 60, &[]);
        let p = |first, count, align| Some(Placement { first, count, align });
        assert_eq!(l.params, vec![p(4, 1, 1), p(6, 2, 2), p(8, 4, 4)]);
        assert_eq!(l.returns, vec![p(5, 1, 1)]);
        assert_eq!(l.failure, None);
        // Only 8 slots: the quad needs R8..R11 = offsets 4..7 -> fits; a second quad does not.
        let spec2 = AbiSpec { params: vec![v(4, 4, None), v(4, 4, None), v(1, 4, None)], ..AbiSpec::default() };
        let l = allocate(&spec2, 4, 6, &[]);
        assert_eq!(l.params, vec![p(4, 4, 4), None, None]);
        assert_eq!(l.failure, Some(SizeFailure { value: ValueRef::Param(1), needed: 8, available: 6 }));
        // A pre-occupied return address at R6:R7 splits the parameter space.
        let l = allocate(&spec, 4, 60, &[6, 7]);
        assert_eq!(l.params, vec![p(4, 1, 1), p(8, 2, 2), p(12, 4, 4)]);
        assert_eq!(l.returns, vec![p(5, 1, 1)]);
    }

    #[test]
    fn huge_values_fail_without_overflow() {
        let spec = AbiSpec { params: vec![v(u32::MAX, u32::MAX, Some(u32::MAX))], ..AbiSpec::default() };
        let l = allocate(&spec, 4, u32::MAX, &[]);
        assert_eq!(l.params, vec![None]);
        assert!(l.failure.unwrap().needed > 255);
        let l = allocate(&spec, u32::MAX, 10, &[]);
        assert_eq!(l.params, vec![None]);
    }
}
