//! The fat-point core (seed 000, "Core Fat-Point Allocator: sub_957160"): fill a
//! vreg's 512-slot primary and secondary histograms from its constraint nodes and the
//! current slot occupancy, then scan `0..min(maxRegs, 512)` for the cheapest slot.
//!
//! Scan rule, as the seed gives it: skip slots whose primary cost exceeds the discard
//! threshold (knob 684); take the minimum primary cost; on a tie, the smaller
//! secondary cost; on a further tie, the lowest slot. The primary holds, besides the
//! hard weights, seed 000's type-7 interval interference (`radbg.IntervalInterference`,
//! on by default): per slot, how many times an assigned vreg takes it inside the holes
//! of the vreg's live range — an interference *count*, as the seed calls the primary
//! ("Per-physical-register interference count"), not a number of positions, which
//! would grow with the kernel's length and make a fixed threshold of 50 discard most
//! slots of long kernels (measured: ARCHITECTURE.md, "Where radbg departs from the
//! seeds"). That weight is what the threshold discards on real kernels; it is not
//! minimised unless asked (`Histogram::interval_cost`). radbg adds one rule the seed
//! leaves implicit: a slot with a *hard* conflict (two simultaneously live vregs, a
//! fixed register, a pin elsewhere, a misaligned start) is never a candidate, whatever
//! the threshold — hard weights go to a separate blocked mask, so raising knob 684
//! cannot make an allocation invalid. Pairs start on even slots, quads and wider on
//! multiples of four.
//!
//! The bank-parity nodes (types 11–13, bank-aware mode, knob 627) write their own
//! histogram, `bank`, which the scan reads as the first tie-break among slots of equal
//! primary cost *below a limit* — the budget, and the most registers that keep the
//! occupancy of the function's packed count (`constraints::bank_limit`) — not into the
//! primary cost as the seed's table has it. Measured on the corpus (ARCHITECTURE.md,
//! "Fidelity", step 10): ptxas 13.0.88 names registers above its own peak live (odd
//! registers only, even ones left free: bank spreading) but never past that limit on 44
//! of 46 functions; as primary cost the parity weights (block frequencies) pass the
//! discard threshold in loops and push values above the budget, and the corpus spilled
//! where ptxas does not.

use crate::alloc::constraints::{CType, Node, Target};
use crate::alloc::occupancy::Occupancy;

/// Histogram capacity: 512 DWORDs (the sentinel pair is not modelled).
pub const SLOTS: usize = 512;

/// Why a register slot is blocked for the current vreg.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Block {
    Free,
    /// Held by an assigned vreg at a common position (type 0).
    VReg,
    /// A physical use or clobber, or a fixed register (type 1).
    Phys,
}

/// The two histograms of one vreg, plus what is blocked.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Histogram {
    /// Every weight written to the primary histogram (hard and soft), as shown.
    pub primary: Vec<u32>,
    /// The soft part of `primary`: what the scan compares against the threshold and
    /// minimises (hard weights block instead). At every start slot the scan may choose
    /// (nothing hard on it) `soft[s] == primary[s]`, so the threshold test is the seed's
    /// `primary[slot] > threshold` there.
    pub soft: Vec<u32>,
    /// The interval interference written into `primary` (and `soft`): per slot, the
    /// number of stretches inside the holes of the vreg's live range where an assigned
    /// vreg holds it (seed 000 constraint type 7, "Range: interference over an interval
    /// of program points"). Kept apart for display.
    pub interval: Vec<u32>,
    /// Whether the scan minimises the interval weight too (else it only discards).
    pub interval_cost: bool,
    pub secondary: Vec<u32>,
    /// Bank-parity weights (types 11–13): a tie-break below `limit` only.
    pub bank: Vec<u32>,
    /// Store-data rotation (issue 23 rule 6): per register, how many data vregs of the
    /// nearby stores hold it. The first tie-break below `limit`, before `bank`.
    pub rotate: Vec<u32>,
    /// Slots `0..limit` are within the budget (the scan bound `n` is budget + 7 outside
    /// the CSSA modes, `max_regs`); the bank tie-break applies there only.
    pub limit: usize,
    /// Per register: why it cannot hold any part of the vreg.
    pub blocked: Vec<Block>,
    /// Per start slot: false where a start-slot node (types 2, 3, 5, 6, 7, 14) forbids it.
    pub start_ok: Vec<bool>,
}

impl Histogram {
    fn new(n: usize) -> Histogram {
        let mut h = Histogram {
            primary: Vec::new(),
            soft: Vec::new(),
            interval: Vec::new(),
            interval_cost: true,
            secondary: Vec::new(),
            bank: Vec::new(),
            rotate: Vec::new(),
            limit: 0,
            blocked: Vec::new(),
            start_ok: Vec::new(),
        };
        h.reset(n);
        h
    }

    /// Empties the histograms for `n` slots, keeping their buffers (the allocator fills
    /// one histogram per vreg per attempt: reusing it saves five allocations each time).
    fn reset(&mut self, n: usize) {
        fn refill<T: Copy>(v: &mut Vec<T>, n: usize, x: T) {
            v.clear();
            v.resize(n, x);
        }
        refill(&mut self.primary, n, 0);
        refill(&mut self.soft, n, 0);
        refill(&mut self.interval, n, 0);
        refill(&mut self.secondary, n, 0);
        refill(&mut self.bank, n, 0);
        refill(&mut self.rotate, n, 0);
        self.limit = n.saturating_sub(7);
        refill(&mut self.blocked, n, Block::Free);
        refill(&mut self.start_ok, n, true);
    }
}

/// The scan bound `maxRegs = max(hw_limit + 7, (budget + 4) & ~3)`, widened ×2 (or ×4
/// with the 0x40 mode bit) in the CSSA modes 3 and 6, clamped to the histogram.
pub fn max_regs(hw_limit: u32, budget: u32, cssa_widen: Option<u32>) -> u32 {
    let m = (hw_limit + 7).max((budget + 4) & !3);
    (m * cssa_widen.unwrap_or(1)).min(SLOTS as u32)
}

/// Required start alignment for a width.
pub fn alignment(width: u8) -> u32 {
    match width {
        0 | 1 => 1,
        2 => 2,
        _ => 4,
    }
}

/// Inputs of a histogram fill.
pub struct FillInput<'a> {
    pub width: u8,
    pub segs: &'a [(u32, u32)],
    pub nodes: &'a [Node],
    pub occ: &'a Occupancy,
    /// Current slot of every vreg (alias roots), `None` when unassigned.
    pub slot_of: &'a dyn Fn(crate::ir::VRegId) -> Option<u16>,
    /// Number of slots to fill (maxRegs).
    pub n: usize,
    /// Bank-aware mode: the slots the bank tie-break may choose among
    /// (`constraints::bank_limit`), besides the budget.
    pub bank_limit: Option<u16>,
    /// The data vregs of the stores this vreg's store rotates against, with their widths
    /// (`constraints::Constraints::rotation_of`; empty when it is no store's data).
    pub rotation: &'a [(crate::ir::VRegId, u8)],
    /// The interval interference (seed 000 type 7): 0 not written, 1 written into the
    /// primary histogram (compared with the threshold), 2 also minimised.
    pub interval: u8,
}

/// Fills the histograms (sub_957020 in the seed's pseudocode).
pub fn fill(input: &FillInput) -> Histogram {
    let mut h = Histogram::new(0);
    fill_into(&mut h, input);
    h
}

/// `fill` into an existing histogram, reusing its buffers.
pub fn fill_into(h: &mut Histogram, input: &FillInput) {
    let n = input.n.min(SLOTS);
    h.reset(n);
    if let Some(l) = input.bank_limit {
        h.limit = h.limit.min(l as usize);
    }
    // Types 0 and 1 from the occupancy: overlap with assigned vregs and physical uses.
    // One pass over the occupancy for all slots (word-major rows), not one per slot;
    // `primary` is still all zero here, so it takes the type-0 counts directly.
    input.occ.add_vreg_conflicts(input.segs, &mut h.primary);
    for (b, &p) in h.blocked.iter_mut().zip(&h.primary) {
        if p > 0 {
            *b = Block::VReg;
        }
    }
    // Interval interference (seed 000 type 7): a slot an assigned vreg holds inside this
    // vreg's holes — between two of its runs, where it is not live — does not conflict,
    // but is contested over the vreg's interval: the weight is soft, so knob 684 can
    // discard the slot and the minimum prefers a slot free over the whole interval.
    // It counts interferences (held stretches per hole), not positions: counted in
    // positions, a hole of a few hundred instructions outweighed the threshold in almost
    // every busy slot, the vreg took the last free register below the budget, and a
    // later vreg found none (two kernels of the dev gate failed at 32 that way).
    h.interval_cost = input.interval >= 2;
    if input.interval >= 1 && input.segs.len() > 1 {
        let holes: Vec<(u32, u32)> =
            input.segs.windows(2).filter(|w| w[1].0 > w[0].1 + 1).map(|w| (w[0].1 + 1, w[1].0 - 1)).collect();
        input.occ.add_vreg_stretches(&holes, &mut h.interval);
        for ((p, s), &x) in h.primary.iter_mut().zip(h.soft.iter_mut()).zip(&h.interval) {
            *p += x;
            *s += x;
        }
    }
    // Store-data rotation (issue 23 rule 6): the registers the nearby stores' data hold.
    for &(t, w) in input.rotation {
        if let Some(s) = (input.slot_of)(t) {
            for r in (s as usize..s as usize + w.max(1) as usize).filter(|&r| r < n) {
                h.rotate[r] += 1;
            }
        }
    }
    let phys = !input.occ.no_phys();
    for s in (0..n).filter(|_| phys) {
        let p = input.occ.phys_conflicts(s, input.segs);
        if p > 0 {
            h.primary[s] += p;
            if h.blocked[s] == Block::Free {
                h.blocked[s] = Block::Phys;
            }
        }
    }
    for nd in input.nodes {
        let target_slot = match nd.target {
            Target::Phys(r) => Some(r as usize),
            Target::VReg(t) => (input.slot_of)(t).map(|s| s as usize),
        };
        match nd.ty {
            CType::ExcludeOne => {
                if let Some(r) = target_slot.filter(|&r| r < n) {
                    h.primary[r] += nd.weight;
                    if h.blocked[r] == Block::Free {
                        h.blocked[r] = Block::Phys;
                    }
                }
            }
            CType::ExcludeAllBut => {
                for s in 0..n {
                    if Some(s) != target_slot {
                        h.start_ok[s] = false;
                        h.primary[s] += nd.weight;
                    }
                }
            }
            CType::BelowPoint => {
                for s in 0..target_slot.unwrap_or(0).min(n) {
                    h.start_ok[s] = false;
                    h.primary[s] += nd.weight;
                }
            }
            CType::PairedLow | CType::AlignedPair => {
                for s in (1..n).step_by(2) {
                    h.start_ok[s] = false;
                    h.primary[s] += nd.weight;
                }
            }
            CType::PairedHigh => {
                for s in (0..n).step_by(2) {
                    h.start_ok[s] = false;
                    h.primary[s] += nd.weight;
                }
            }
            CType::ParityExtended => {
                for s in (0..n).filter(|s| s % 4 != 0) {
                    h.start_ok[s] = false;
                    h.primary[s] += nd.weight;
                }
            }
            CType::Phi => {
                if let Some(t) = target_slot {
                    for s in ((t + 1) % 2..n).step_by(2) {
                        h.primary[s] += nd.weight;
                        h.soft[s] += nd.weight;
                    }
                }
            }
            CType::EvenParity => {
                if let Some(t) = target_slot {
                    for s in (t % 4..n).step_by(4) {
                        h.bank[s] += nd.weight;
                    }
                }
            }
            CType::OddParity => {
                if let Some(t) = target_slot {
                    for s in (t % 2..n).step_by(2) {
                        h.bank[s] += nd.weight;
                    }
                }
            }
            CType::ParityGroup => {
                if let Some(t) = target_slot {
                    for s in (0..n).filter(|s| s % 4 == t % 4 || s % 4 == (t + 1) % 4) {
                        h.bank[s] += nd.weight;
                    }
                }
            }
            CType::Range => {
                if let Some(t) = target_slot {
                    for s in 0..n {
                        if s != t {
                            h.secondary[s] += nd.weight;
                        }
                    }
                }
            }
            CType::Point | CType::Reserved4 | CType::Reserved9 | CType::Reserved10 => {}
        }
    }
}

/// Why the scan passed over a lower slot of the same primary cost (issue 23: placement
/// is a decision the debugger shows): the criterion on which the chosen slot won.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tie {
    /// The store-data rotation (issue 23 rule 6): the lower slot held a nearby store's data
    /// or a recent load's address.
    Rotation,
    /// Bank parity (types 11–13): the lower slot shared a bank with a co-source.
    Parity,
    /// The secondary histogram (type 15, a copy's other side elsewhere).
    Secondary,
}

impl Tie {
    /// Why `lower` (a register name) was passed over, in words.
    pub fn text(self, lower: &str) -> String {
        match self {
            Tie::Rotation => {
                format!("{lower} holds the data of a nearby store or a recent load's address (store-data rotation)")
            }
            Tie::Parity => format!("{lower} shares a bank with a register read beside this value (bank parity)"),
            Tie::Secondary => "a copy prefers the register of its other side (secondary cost)".to_string(),
        }
    }
}

/// The outcome of a scan.
#[derive(Clone, Debug, PartialEq)]
pub struct Decision {
    /// The chosen start slot, `None` when every slot was blocked or discarded.
    pub slot: Option<u16>,
    /// Primary cost of the choice (summed over the registers it covers).
    pub cost: u32,
    pub secondary: u32,
    /// Feasible start slots skipped because their cost exceeded the threshold.
    pub discarded: Vec<u16>,
    /// Start slots blocked by hard constraints.
    pub blocked: u32,
    /// Every slot within the budget was discarded: the cheapest of them was taken.
    pub relaxed: bool,
    /// In bank-aware mode: the lowest slot of the same primary cost that the scan passed
    /// over for a tie-break, and which one (`None` when the lowest such slot was chosen).
    pub passed: Option<(u16, Tie)>,
}

/// Scans for the cheapest start slot of a vreg of `width`.
///
/// Seed 000: `if primary[slot] > threshold: continue`, and `best_slot == -1` is the
/// fatal error. radbg's departure (ARCHITECTURE.md, "Where radbg departs from the
/// seeds"): when the threshold discarded every slot within the budget that the vreg
/// could take, the scan takes the slot it would take without the threshold instead of
/// reporting none or a slot over the budget (which
/// would mark the vreg needs-spill and, on the corpus, fail allocations ptxas completes)
/// — `Decision::relaxed` says so. A lower knob 684 therefore moves values to less
/// contested slots where the budget has some, and never leaves a vreg without a slot
/// the budget had room for (later vregs may still find less room).
pub fn scan(h: &Histogram, width: u8, threshold: u32) -> Decision {
    let w = width.max(1) as usize;
    let d = scan_once(h, width, threshold);
    let fits = |s: usize| s + w <= h.limit;
    if d.slot.is_some_and(|s| fits(s as usize)) || !d.discarded.iter().any(|&s| fits(s as usize)) {
        return d;
    }
    let mut relaxed = scan_once(h, width, u32::MAX);
    relaxed.discarded = d.discarded;
    relaxed.relaxed = true;
    relaxed
}

fn scan_once(h: &Histogram, width: u8, threshold: u32) -> Decision {
    // Bank weights order slots below the limit only (module doc); without any, the
    // seed's rule exactly. (An OR over all weights: it vectorises, an early-exit `any`
    // does not.)
    let banked = h.bank.iter().fold(0, |a, &b| a | b) != 0 || h.rotate.iter().fold(0, |a, &b| a | b) != 0;
    let n = h.primary.len();
    let lengths = [h.start_ok.len(), h.blocked.len(), h.soft.len(), h.secondary.len(), h.bank.len(), h.rotate.len()];
    if width <= 1 && banked && lengths.iter().all(|&l| l == n) {
        return scan_single_banked(h, threshold);
    }
    scan_plain(h, width, threshold, banked)
}

/// The scan of a single register in bank-aware mode (most vregs of a bank-aware run):
/// [`scan_plain`]'s rule and [`passed_over`]'s answer for width 1, over slices of one
/// known length, each slot's order computed once (issue 25: the span loops and the
/// second pass of `passed_over` were most of the scan at 64 and 32 registers).
fn scan_single_banked(h: &Histogram, threshold: u32) -> Decision {
    let n = h.primary.len();
    let (ok, bl, soft, sec) = (&h.start_ok[..n], &h.blocked[..n], &h.soft[..n], &h.secondary[..n]);
    let (bank, rot) = (&h.bank[..n], &h.rotate[..n]);
    let minimise_interval = h.interval_cost || h.interval.len() != n;
    let limit = h.limit;
    let mut best: Option<(u32, u64, u32, usize)> = None;
    let mut discarded = Vec::new();
    let mut blocked = 0;
    // The order of slot `s` (free and within the threshold): `rank` for width 1.
    let key = |s: usize| -> (u32, u64, u32) {
        let cost = if minimise_interval { soft[s] } else { soft[s] - h.interval[s] };
        let b = if s < limit { ((rot[s] as u64) << 32) | bank[s] as u64 } else { u64::MAX };
        (cost, b, sec[s])
    };
    let mut s = 0;
    while s < n {
        // From the limit on every slot's bank key is the largest: none beats a choice
        // of cost 0 below the limit, so the rest is only counted (the scan bound is
        // budget + 7, 262 slots at the default budget, the limit near the peak).
        if s >= limit && best.is_some_and(|(c, b, _, _)| c == 0 && b != u64::MAX) {
            break;
        }
        if !ok[s] || bl[s] != Block::Free {
            blocked += 1;
        } else if soft[s] > threshold {
            discarded.push(s as u16);
        } else if best.is_none_or(|(c, b, x, _)| (c, b, x) != (0, 0, 0)) {
            let k = key(s);
            if best.is_none_or(|(c, b, x, _)| k < (c, b, x)) {
                best = Some((k.0, k.1, k.2, s));
            }
        }
        s += 1;
    }
    blocked += count_rest(&ok[s..], &bl[s..], &soft[s..], threshold, s, &mut discarded);
    let Some((cost, bkey, bsec, slot)) = best else {
        return Decision { slot: None, cost: 0, secondary: 0, discarded, blocked, relaxed: false, passed: None };
    };
    // `passed_over`: the lowest slot below the choice, of the same cost, that lost on
    // the first criterion any such slot lost on.
    let mut passed: Option<(u16, Tie)> = None;
    for s in 0..slot.min(limit) {
        if !ok[s] || bl[s] != Block::Free || soft[s] > threshold {
            continue;
        }
        let (c, k, x) = key(s);
        if c != cost {
            continue;
        }
        let tie = if k >> 32 > bkey >> 32 {
            Tie::Rotation
        } else if k & u32::MAX as u64 > bkey & u32::MAX as u64 {
            Tie::Parity
        } else if x > bsec {
            Tie::Secondary
        } else {
            continue;
        };
        let rank = |t: Tie| t as u8;
        if passed.is_none_or(|(_, t)| rank(tie) < rank(t)) {
            passed = Some((s as u16, tie));
        }
    }
    Decision { slot: Some(slot as u16), cost, secondary: bsec, discarded, blocked, relaxed: false, passed }
}

/// The slots of a single register past the scan's choice, only counted: how many are
/// blocked (returned) and, pushed on `discarded` (as slot `first + i`), the free ones over
/// the threshold. The count is a sum over the slices and the discards are looked for only
/// when some slot is over the threshold (rare), so the loop vectorises (issue 25: up to
/// 260 slots per vreg at the default budget).
fn count_rest(ok: &[bool], bl: &[Block], soft: &[u32], threshold: u32, first: usize, discarded: &mut Vec<u16>) -> u32 {
    let blocked: u32 = ok.iter().zip(bl).map(|(&o, &b)| u32::from(!(o & (b == Block::Free)))).sum();
    if soft.iter().fold(false, |a, &x| a | (x > threshold)) {
        for (i, ((&o, &b), &x)) in ok.iter().zip(bl).zip(soft).enumerate() {
            if o && b == Block::Free && x > threshold {
                discarded.push((first + i) as u16);
            }
        }
    }
    blocked
}

/// The scan rule over start slots of any width (`scan_once` without its bank-aware
/// single-register path).
fn scan_plain(h: &Histogram, width: u8, threshold: u32, banked: bool) -> Decision {
    let n = h.primary.len();
    let w = width.max(1) as usize;
    let align = alignment(width) as usize;
    let mut best: Option<(u32, u64, u32, usize)> = None;
    let mut discarded = Vec::new();
    let mut blocked = 0;
    let single = w == 1
        && !banked
        && [h.start_ok.len(), h.blocked.len(), h.soft.len(), h.secondary.len()].iter().all(|&l| l == n);
    if single {
        // Single registers, most vregs: the rule below without the span loops, over
        // slices of one known length (no bounds checks in the loop).
        let (ok, bl, soft, sec) = (&h.start_ok[..n], &h.blocked[..n], &h.soft[..n], &h.secondary[..n]);
        let ic = h.interval_cost || h.interval.len() != n;
        let mut s = 0;
        while s < n {
            let c = if ic { soft[s] } else { soft[s] - h.interval[s] };
            if !ok[s] || bl[s] != Block::Free {
                blocked += 1;
            } else if soft[s] > threshold {
                discarded.push(s as u16);
            } else if best.is_none_or(|(bc, _, bs, _)| c < bc || (c == bc && sec[s] < bs)) {
                best = Some((c, 0, sec[s], s));
                if c == 0 && sec[s] == 0 {
                    s += 1;
                    break;
                }
            }
            s += 1;
        }
        // A candidate of cost 0 and secondary 0 cannot be beaten (a tie keeps the lower
        // slot): the rest of the slots are only counted, blocked or discarded — the
        // scan's hottest loop (issue 25: 13 % of a 16-budget sweep), most vregs taking
        // a free low slot.
        blocked += count_rest(&ok[s..], &bl[s..], &soft[s..], threshold, s, &mut discarded);
    }
    let mut s = if single { n } else { 0 };
    while s + w <= n {
        let covered = s..s + w;
        if !h.start_ok[s] || covered.clone().any(|r| h.blocked[r] != Block::Free) {
            blocked += 1;
            s += align;
            continue;
        }
        let full: u32 = covered.clone().map(|r| h.soft[r]).sum();
        if full > threshold {
            discarded.push(s as u16);
            s += align;
            continue;
        }
        // Nothing beats a candidate of (0, 0, 0) (a tie keeps the lower slot): the rest
        // is only counted, as in the single-register loop.
        if best.is_some_and(|(c, b, sec, _)| (c, b, sec) == (0, 0, 0)) {
            s += align;
            continue;
        }
        let (cost, bank, sec) = rank(h, s, w, full, banked);
        let better = match best {
            None => true,
            Some((bc, bb, bs, _)) => (cost, bank, sec) < (bc, bb, bs),
        };
        if better {
            best = Some((cost, bank, sec, s));
        }
        s += align;
    }
    match best {
        Some((cost, key, secondary, slot)) => {
            let passed = if banked { passed_over(h, w, align, threshold, (cost, key, secondary, slot)) } else { None };
            Decision { slot: Some(slot as u16), cost, secondary, discarded, blocked, relaxed: false, passed }
        }
        None => Decision { slot: None, cost: 0, secondary: 0, discarded, blocked, relaxed: false, passed: None },
    }
}

/// The scan's order of a free, undiscarded start slot `s` (`full`: its soft cost): the
/// primary cost it minimises, then — in bank-aware mode, below the limit — the rotation
/// weight (issue 23 rule 6: with 20 values live ptxas took an even register before
/// repeating an odd one) in the high word and the parity weight in the low one (past the
/// limit: last), then the secondary cost.
fn rank(h: &Histogram, s: usize, w: usize, full: u32, banked: bool) -> (u32, u64, u32) {
    let covered = s..s + w;
    let cost = if h.interval_cost || h.interval.len() != h.primary.len() {
        full
    } else {
        full - covered.clone().map(|r| h.interval[r]).sum::<u32>()
    };
    let bank: u64 = match (banked, s + w <= h.limit) {
        (false, _) => 0,
        (true, true) => {
            let rot: u64 = covered.clone().map(|r| h.rotate.get(r).copied().unwrap_or(0) as u64).sum();
            let par: u64 = covered.clone().map(|r| h.bank[r] as u64).sum();
            (rot << 32) | par.min(u32::MAX as u64)
        }
        (true, false) => u64::MAX,
    };
    (cost, bank, covered.map(|r| h.secondary[r]).sum())
}

/// A candidate below the chosen `slot` with the same primary cost, and the tie-break it
/// lost on: the lowest one that lost on the first criterion of the scan's order
/// (rotation, parity, secondary) that any lost on — the reason worth naming.
fn passed_over(
    h: &Histogram,
    w: usize,
    align: usize,
    threshold: u32,
    (cost, key, sec, slot): (u32, u64, u32, usize),
) -> Option<(u16, Tie)> {
    let lost = (0..slot).step_by(align).filter_map(|s| {
        if s + w > h.limit || !h.start_ok[s] || (s..s + w).any(|r| h.blocked[r] != Block::Free) {
            return None;
        }
        let full: u32 = (s..s + w).map(|r| h.soft[r]).sum();
        if full > threshold {
            return None;
        }
        let (c, k, s_sec) = rank(h, s, w, full, true);
        let tie = if c != cost {
            return None;
        } else if k >> 32 > key >> 32 {
            Tie::Rotation
        } else if k & u32::MAX as u64 > key & u32::MAX as u64 {
            Tie::Parity
        } else if s_sec > sec {
            Tie::Secondary
        } else {
            return None;
        };
        Some((s as u16, tie))
    });
    let order = |t: Tie| match t {
        Tie::Rotation => 0,
        Tie::Parity => 1,
        Tie::Secondary => 2,
    };
    lost.min_by_key(|&(s, t)| (order(t), s))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::VRegId;

    fn hist(n: usize) -> Histogram {
        Histogram::new(n)
    }

    /// The scan rule written plainly (every slot compared, no early stop): the fast
    /// loops must give the same slot, discarded list and blocked count.
    fn reference(h: &Histogram, width: u8, threshold: u32) -> Decision {
        let (n, w, align) = (h.primary.len(), width.max(1) as usize, alignment(width) as usize);
        let (mut best, mut discarded, mut blocked) = (None::<(u32, u32, u32, usize)>, Vec::new(), 0);
        for s in (0..n).step_by(align).filter(|s| s + w <= n) {
            let r = s..s + w;
            if !h.start_ok[s] || r.clone().any(|x| h.blocked[x] != Block::Free) {
                blocked += 1;
                continue;
            }
            let full: u32 = r.clone().map(|x| h.soft[x]).sum();
            if full > threshold {
                discarded.push(s as u16);
                continue;
            }
            let cost = if h.interval_cost { full } else { full - r.clone().map(|x| h.interval[x]).sum::<u32>() };
            let sec: u32 = r.map(|x| h.secondary[x]).sum();
            if best.is_none_or(|(c, _, bs, _)| (cost, sec) < (c, bs)) {
                best = Some((cost, 0, sec, s));
            }
        }
        let (slot, cost, secondary) = best.map_or((None, 0, 0), |(c, _, s, slot)| (Some(slot as u16), c, s));
        Decision { slot, cost, secondary, discarded, blocked, relaxed: false, passed: None }
    }

    #[test]
    fn the_fast_scan_is_the_plain_rule() {
        // Deterministic pseudo-random histograms: costs of 0 common (the early stop),
        // discards and blocks spread over the whole range after it.
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = |m: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % m) as u32
        };
        for case in 0..400 {
            let n = 8 + next(60) as usize;
            let mut h = hist(n);
            h.interval_cost = case % 3 != 0;
            for s in 0..n {
                h.interval[s] = if next(4) == 0 { next(3) } else { 0 };
                h.soft[s] = h.interval[s] + if next(3) == 0 { next(80) } else { 0 };
                h.primary[s] = h.soft[s];
                h.secondary[s] = if next(3) == 0 { next(5) } else { 0 };
                if next(5) == 0 {
                    h.blocked[s] = Block::VReg;
                }
                h.start_ok[s] = next(7) != 0;
            }
            for width in [1, 2, 4] {
                for threshold in [0, 20, 50, u32::MAX] {
                    assert_eq!(scan_once(&h, width, threshold), reference(&h, width, threshold), "case {case}");
                }
            }
        }
    }

    #[test]
    fn the_banked_single_register_scan_is_the_plain_rule() {
        // Random bank-aware histograms: the width-1 path must choose the slot, and name
        // the slot passed over, exactly as the span loop and `passed_over` do.
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = |m: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % m) as u32
        };
        let mut passed = 0;
        for case in 0..600 {
            let n = 4 + next(70) as usize;
            let mut h = hist(n);
            h.interval_cost = case % 3 != 0;
            h.limit = next(n as u64 + 1) as usize;
            for s in 0..n {
                h.interval[s] = if next(4) == 0 { next(3) } else { 0 };
                h.soft[s] = h.interval[s] + if next(2) == 0 { next(4) } else { 0 };
                h.primary[s] = h.soft[s];
                h.secondary[s] = if next(3) == 0 { next(3) } else { 0 };
                h.bank[s] = if next(2) == 0 { next(3) } else { 0 };
                h.rotate[s] = if next(4) == 0 { next(2) } else { 0 };
                if next(6) == 0 {
                    h.blocked[s] = Block::VReg;
                }
                h.start_ok[s] = next(9) != 0;
            }
            h.bank[n - 1] = 1;
            for threshold in [0, 2, 50, u32::MAX] {
                let want = scan_plain(&h, 1, threshold, true);
                passed += usize::from(want.passed.is_some());
                assert_eq!(scan_single_banked(&h, threshold), want, "case {case}");
                assert_eq!(scan_once(&h, 1, threshold), want, "case {case}");
            }
        }
        assert!(passed > 100, "the cases pass over lower slots ({passed})");
    }

    #[test]
    fn picks_lowest_free_slot_and_aligns_pairs() {
        let mut h = hist(8);
        h.blocked[0] = Block::VReg;
        assert_eq!(scan(&h, 1, 50).slot, Some(1));
        assert_eq!(scan(&h, 2, 50).slot, Some(2));
        h.blocked[5] = Block::Phys;
        assert_eq!(scan(&h, 4, 50).slot, None);
    }

    #[test]
    fn threshold_discards_soft_cost_but_never_admits_hard_conflicts() {
        let mut h = hist(4);
        h.soft = vec![60, 70, 3, 3];
        h.blocked[2] = Block::VReg;
        let d = scan(&h, 1, 50);
        assert_eq!(d.slot, Some(3));
        assert_eq!(d.discarded, vec![0, 1]);
        // A huge threshold admits soft costs, never the blocked slot 2.
        let d = scan(&h, 1, u32::MAX);
        assert_eq!(d.slot, Some(3));
        h.soft[3] = 90;
        assert_eq!(scan(&h, 1, u32::MAX).slot, Some(0));
    }

    #[test]
    fn secondary_breaks_ties() {
        let mut h = hist(4);
        h.secondary = vec![5, 1, 5, 5];
        assert_eq!(scan(&h, 1, 50).slot, Some(1));
    }

    #[test]
    fn bank_weights_break_ties_below_the_limit_only() {
        let mut h = hist(12);
        h.limit = 4;
        // Slots 0 and 2 share a bank with a co-source: the free slot 1 wins over slot 0.
        h.bank = vec![3, 0, 3, 0, 3, 0, 3, 0, 3, 0, 3, 0];
        assert_eq!(scan(&h, 1, 50).slot, Some(1));
        // Below the limit only: with 0..4 taken, the lowest slot, whatever its bank.
        for s in 0..4 {
            h.blocked[s] = Block::VReg;
        }
        assert_eq!(scan(&h, 1, 50).slot, Some(4));
        // The primary cost still comes first.
        let mut h = hist(4);
        h.bank = vec![0, 5, 0, 5];
        h.soft = vec![2, 0, 2, 0];
        assert_eq!(scan(&h, 1, 50).slot, Some(1));
    }

    #[test]
    fn store_rotation_comes_before_the_parity_and_stays_below_the_limit() {
        // Odd slots preferred (a co-source in an even bank); 1 and 3 hold the data of
        // the previous stores: 5 is taken, not 1.
        let mut h = hist(12);
        h.limit = 8;
        h.bank = vec![3, 0, 3, 0, 3, 0, 3, 0, 3, 0, 3, 0];
        h.rotate = vec![0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0];
        assert_eq!(scan(&h, 1, 50).slot, Some(5));
        // Every odd slot below the limit rotated: an even one before repeating an odd
        // one (ptxas with 20 values live: R25, R27, R29, then R26).
        h.rotate = vec![0, 1, 0, 1, 0, 1, 0, 1, 0, 0, 0, 0];
        assert_eq!(scan(&h, 1, 50).slot, Some(0));
        // Never past the limit: with 0..8 all rotated, the lowest of them.
        h.rotate = vec![1; 12];
        for s in 8..12 {
            h.rotate[s] = 0;
        }
        assert_eq!(scan(&h, 1, 50).slot, Some(1));
        // The primary cost still comes first.
        let mut h = hist(4);
        h.rotate = vec![0, 1, 0, 1];
        h.soft = vec![2, 0, 2, 0];
        assert_eq!(scan(&h, 1, 50).slot, Some(1));
    }

    #[test]
    fn bank_limit_is_the_last_count_at_the_packed_occupancy() {
        use crate::alloc::constraints::bank_limit;
        // softmax32: peak 39 live + R1 + 2 = 42 registers, 42 warps up to 48; slots R0..R45.
        assert_eq!(bank_limit(80, 39), 46);
        // Anything that fits full occupancy (64 warps) may spread to 32 registers.
        assert_eq!(bank_limit(80, 10), 30);
        // At the edge: peak 29 + R1 + 2 = 32 registers packed, still full occupancy (R1
        // counted once: twice made it 33, the next step, and let bank parity spread a
        // 32-register kernel to 40).
        assert_eq!(bank_limit(80, 29), 30);
        assert_eq!(bank_limit(80, 30), 38);
        assert_eq!(bank_limit(90, 300), 253);
    }

    #[test]
    fn fill_applies_node_types() {
        let occ = Occupancy::new(8, 16);
        let nodes = [
            Node { ty: CType::AlignedPair, target: Target::VReg(VRegId(0)), weight: 1 },
            Node { ty: CType::Range, target: Target::VReg(VRegId(1)), weight: 7 },
        ];
        let slot_of = |v: VRegId| if v.0 == 1 { Some(4) } else { None };
        let h = fill(&FillInput {
            width: 2,
            segs: &[(0, 3)],
            nodes: &nodes,
            occ: &occ,
            slot_of: &slot_of,
            n: 8,
            bank_limit: None,
            rotation: &[],
            interval: 2,
        });
        assert!(!h.start_ok[1] && h.start_ok[2]);
        assert_eq!(h.secondary[4], 0);
        assert_eq!(h.secondary[2], 7);
        assert_eq!(scan(&h, 2, 50).slot, Some(4));
        assert_eq!(max_regs(32, 32, None), 39);
        assert_eq!(max_regs(255, 255, Some(4)), 512);
    }
}
