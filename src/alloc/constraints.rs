//! Constraint nodes (seed 004, "The 15 Constraint Types"; builder sub_926A30 of seed
//! 000): what each vreg's histogram is filled from.
//!
//! Numbering: seed 004's (the `type` column). Seed 000's own table numbers operand kinds
//! differently (1 register operand, 2 immediate, 3 paired, 4 exclude-one, 5
//! exclude-all-but, 6 below-point, 7 range, 8 phi, 9 barrier, 10–15 extended);
//! [`CType::seed000`] gives each node's seed-000 number and `constraints` shows both.
//!
//! | type | name | arises from (radbg) | histogram effect |
//! |---|---|---|---|
//! | 0 | Point | an assigned vreg of the same file live at a common position | primary[slot(u)..+width(u)] += overlap; hard |
//! | 1 | Exclude-one | a fixed register (R1 stack pointer, R0–R3 under the ABI), a physical operand or a call clobber at a live position | primary[n] += weight; hard |
//! | 2 | Exclude-all-but | a pinned vreg (`.pin`, ABI parameter/return binding) | every start slot but the target; hard |
//! | 3 | Below-point | the ABI's reserved low registers: first usable register | start slots below the target; hard |
//! | 4 | (reserved) | never generated (seed: vtable fallback) | — |
//! | 5 | Paired-low | a vreg flagged as the low half of a pair (pair mode 1) | odd start slots; hard |
//! | 6 | Paired-high | a vreg flagged as the high half (0x800000) | even start slots; hard |
//! | 7 | Aligned-pair | a width-2 vreg | odd start slots; hard |
//! | 8 | Phi-related | operands of a PHI (CSSA) | stride 2 from slot(u)+1: the other parity; soft |
//! | 9, 10 | (reserved) | never generated | — |
//! | 11 | Paired-even-parity | bank-aware mode (knob 627), co-sources, 4 banks (sm < 70) | slots in target's bank; soft |
//! | 12 | Paired-odd-parity | bank-aware mode, co-sources (a pair: its start), 2 banks (sm ≥ 70) | slots of target's parity; soft |
//! | 13 | Paired-parity-group | bank-aware mode, a co-source that is a pair, 4 banks (sm < 70) | slots in either bank of the pair; soft |
//!
//! Co-sources: the register sources of one instruction, and the 64-bit address pair of a
//! global/generic memory operand (not shared/local: ptxas narrows those addresses).
//! Types 11–13 write the bank histogram, a tie-break (`alloc::fatpoint`).
//! | 14 | Paired-parity-extended | a vreg of width ≥ 4 | start slots not a multiple of 4; hard |
//! | 15 | Range | a copy (MOV) between same-width vregs, coalescing on (knob 618) | secondary of every slot but slot(u); tie-break only |
//!
//! "Hard" nodes block the slot outright — whatever the discard threshold, a hard
//! conflict is never chosen; "soft" weights are what the threshold (knob 684) discards.
//! Type-0 and type-1 nodes of live-range overlap are materialised from the slot
//! occupancy when a vreg is assigned (only assigned targets write the histogram), so
//! there is no interference graph; the static nodes below are built once per attempt.

use std::collections::VecDeque;

use crate::alloc::ranges::Ranges;
use crate::ir::{Function, Operand, Reg, RegClass, RegFile, VRegId, opcode::props, vflags};

/// The sixteen node types.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum CType {
    Point = 0,
    ExcludeOne = 1,
    ExcludeAllBut = 2,
    BelowPoint = 3,
    Reserved4 = 4,
    PairedLow = 5,
    PairedHigh = 6,
    AlignedPair = 7,
    Phi = 8,
    Reserved9 = 9,
    Reserved10 = 10,
    EvenParity = 11,
    OddParity = 12,
    ParityGroup = 13,
    ParityExtended = 14,
    Range = 15,
}

impl CType {
    pub const ALL: [CType; 16] = [
        CType::Point,
        CType::ExcludeOne,
        CType::ExcludeAllBut,
        CType::BelowPoint,
        CType::Reserved4,
        CType::PairedLow,
        CType::PairedHigh,
        CType::AlignedPair,
        CType::Phi,
        CType::Reserved9,
        CType::Reserved10,
        CType::EvenParity,
        CType::OddParity,
        CType::ParityGroup,
        CType::ParityExtended,
        CType::Range,
    ];

    pub fn name(self) -> &'static str {
        match self {
            CType::Point => "Point",
            CType::ExcludeOne => "Exclude-one",
            CType::ExcludeAllBut => "Exclude-all-but",
            CType::BelowPoint => "Below-point",
            CType::Reserved4 | CType::Reserved9 | CType::Reserved10 => "(reserved)",
            CType::PairedLow => "Paired-low",
            CType::PairedHigh => "Paired-high",
            CType::AlignedPair => "Aligned-pair",
            CType::Phi => "Phi-related",
            CType::EvenParity => "Paired-even-parity",
            CType::OddParity => "Paired-odd-parity",
            CType::ParityGroup => "Paired-parity-group",
            CType::ParityExtended => "Paired-parity-extended",
            CType::Range => "Range",
        }
    }

    /// Whether the node blocks slots outright (see the module table).
    pub fn is_hard(self) -> bool {
        matches!(
            self,
            CType::Point
                | CType::ExcludeOne
                | CType::ExcludeAllBut
                | CType::BelowPoint
                | CType::PairedLow
                | CType::PairedHigh
                | CType::AlignedPair
                | CType::ParityExtended
        )
    }

    /// Whether the node writes the secondary histogram (type 15 only).
    pub fn is_secondary(self) -> bool {
        self == CType::Range
    }

    /// The type with seed 004's number (radbg's numbering), if `n` is one.
    pub fn from_number(n: u8) -> Option<CType> {
        CType::ALL.get(n as usize).copied()
    }

    /// The same node in seed 000's table ("Constraint System", sub_926A30), which
    /// numbers operand kinds differently: `(number, name)`, or `None` where seed 000 has
    /// no counterpart (the reserved types). Seed 000's 10–15 are only "Extended:
    /// additional constraint variants", where seed 004's parity types fall.
    pub fn seed000(self) -> Option<(&'static str, &'static str)> {
        Some(match self {
            CType::Point => ("0", "Point interference"),
            CType::ExcludeOne => ("4", "Exclude-one"),
            CType::ExcludeAllBut => ("5", "Exclude-all-but"),
            CType::BelowPoint => ("6", "Below-point"),
            CType::PairedLow | CType::PairedHigh | CType::AlignedPair => ("3", "Paired register"),
            CType::Phi => ("8", "Phi-related"),
            CType::EvenParity | CType::OddParity | CType::ParityGroup | CType::ParityExtended => ("10-15", "Extended"),
            CType::Range => ("7", "Range"),
            CType::Reserved4 | CType::Reserved9 | CType::Reserved10 => return None,
        })
    }
}

/// What a node points at.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Target {
    VReg(VRegId),
    /// A physical register (slot) of the vreg's file.
    Phys(u16),
}

/// One constraint node (24 bytes in ptxas: type, target, weight).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Node {
    pub ty: CType,
    pub target: Target,
    pub weight: u32,
}

/// Static constraint nodes of every vreg of one class, built once per attempt.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Constraints {
    start: Vec<u32>,
    nodes: Vec<Node>,
    /// Bank-aware mode: slots `0..limit` the bank-parity tie-break may choose among
    /// (`bank_limit`); `None` otherwise.
    pub bank_limit: Option<u16>,
    /// Store-data rotation (issue 23 rule 6, `rotation`): per vreg, the data vregs of the
    /// nearby stores of its block (with their widths), CSR like `nodes`.
    rot_start: Vec<u32>,
    rot: Vec<(VRegId, u8)>,
}

impl Constraints {
    pub fn of(&self, v: VRegId) -> &[Node] {
        if v.index() + 1 >= self.start.len() {
            return &[];
        }
        &self.nodes[self.start[v.index()] as usize..self.start[v.index() + 1] as usize]
    }

    pub fn total(&self) -> usize {
        self.nodes.len()
    }

    /// The store-data vregs `v` rotates against (empty unless `v` is a store's data).
    pub fn rotation_of(&self, v: VRegId) -> &[(VRegId, u8)] {
        if v.index() + 1 >= self.rot_start.len() {
            return &[];
        }
        &self.rot[self.rot_start[v.index()] as usize..self.rot_start[v.index() + 1] as usize]
    }
}

/// Inputs of the builder that come from outside the IR.
pub struct BuildInput<'a> {
    pub class: RegClass,
    /// Pinned vregs: (vreg, register).
    pub pins: &'a [(VRegId, u16)],
    /// Registers of the file nobody may use (R1 stack pointer, ABI reserved ...).
    pub fixed: &'a [u16],
    /// First register usable by ordinary vregs under the ABI (R4), if any.
    pub first_free: Option<u16>,
    pub coalescing: bool,
    pub bank_aware: bool,
    pub sm_version: u32,
    /// Block frequency of each block, for soft weights.
    pub freq: &'a [f64],
    /// Pool size of the store-data rotation (`radbg.StoreRotation`); only in bank-aware
    /// mode, whose limit bounds it. 0 or 1: off.
    pub store_rotation: u32,
    /// The peak R pressure of every vreg (`Ranges::pressure` of the R file) when the
    /// caller has it (the attempt computes the same pressure for its interference);
    /// `None`: computed here when the bank limit needs it.
    pub r_peak: Option<u32>,
}

/// Builds the static nodes of every vreg of `input.class` (alias roots only).
///
/// The nodes are gathered in one flat list of (vreg, node) and grouped by vreg with a
/// counting sort (a `Vec` per vreg was an allocation and a free per vreg with nodes, four
/// times per scale-kernel run at 32: issue 25); each vreg's list is then sorted and its
/// duplicates merged, which does not depend on the order the nodes were found in.
pub fn build(f: &Function, ranges: &Ranges, input: &BuildInput) -> Constraints {
    let n = f.vregs.len();
    let mut found: Vec<(u32, Node)> = Vec::new();
    let in_class = |v: VRegId| f.vreg(v).class == input.class && ranges.is_root(v);
    for (i, vr) in f.vregs.iter().enumerate() {
        let v = VRegId::new(i);
        if !in_class(v) {
            continue;
        }
        let mut push = |nd: Node| found.push((i as u32, nd));
        for &r in input.fixed {
            push(Node { ty: CType::ExcludeOne, target: Target::Phys(r), weight: 1 });
        }
        if let Some(ff) = input.first_free {
            push(Node { ty: CType::BelowPoint, target: Target::Phys(ff), weight: 1 });
        }
        if let Some(&(_, reg)) = input.pins.iter().find(|(p, _)| *p == v) {
            push(Node { ty: CType::ExcludeAllBut, target: Target::Phys(reg), weight: 1 });
        } else if let Some(reg) = vr.pin {
            push(Node { ty: CType::ExcludeAllBut, target: Target::Phys(reg), weight: 1 });
        }
        let mode = (vr.flags & vflags::PAIR_MODE_MASK) >> vflags::PAIR_MODE_SHIFT;
        if vr.flags & vflags::PAIR_HI != 0 {
            push(Node { ty: CType::PairedHigh, target: Target::VReg(v), weight: 1 });
        } else if mode == 1 {
            push(Node { ty: CType::PairedLow, target: Target::VReg(v), weight: 1 });
        }
        match vr.width {
            1 => {}
            2 => push(Node { ty: CType::AlignedPair, target: Target::VReg(v), weight: 1 }),
            _ => push(Node { ty: CType::ParityExtended, target: Target::VReg(v), weight: 1 }),
        }
    }
    // Instruction-derived nodes: copies (15), phis (8), co-sources in bank-aware mode (11-13).
    // Co-sources are R registers: another file's class gets none of them.
    let bank_aware = input.bank_aware && input.class.file() == RegFile::R;
    let root = |r: VRegId| ranges.root[r.index()];
    let mut srcs: Vec<VRegId> = Vec::new();
    for (b, block) in f.blocks.iter().enumerate() {
        let w = input.freq.get(b).copied().unwrap_or(1.0).round().max(1.0) as u32;
        for inst in &block.insts {
            let info = inst.info();
            if input.coalescing
                && info.is(props::MOVE)
                && inst.ndefs == 1
                && let (Some(d), Some(s)) = (inst.defs()[0].as_vreg(), inst.uses().first().and_then(Operand::as_vreg))
            {
                let (d, s) = (root(d.vreg), root(s.vreg));
                let same = d != s
                    && f.vreg(d).width == f.vreg(s).width
                    && f.vreg(d).file() == f.vreg(s).file()
                    && f.vreg(d).file() != RegFile::B;
                if same {
                    let wt = ranges.length(d).min(ranges.length(s)).max(1);
                    if in_class(d) {
                        found.push((d.0, Node { ty: CType::Range, target: Target::VReg(s), weight: wt }));
                    }
                    if in_class(s) {
                        found.push((s.0, Node { ty: CType::Range, target: Target::VReg(d), weight: wt }));
                    }
                }
            }
            if info.is(props::PHI)
                && inst.ndefs == 1
                && let Some(d) = inst.defs()[0].as_vreg()
            {
                let d = root(d.vreg);
                for s in inst.uses().iter().filter_map(Operand::as_vreg) {
                    let s = root(s.vreg);
                    if s != d && f.vreg(s).file() == f.vreg(d).file() {
                        if in_class(d) {
                            found.push((d.0, Node { ty: CType::Phi, target: Target::VReg(s), weight: w }));
                        }
                        if in_class(s) {
                            found.push((s.0, Node { ty: CType::Phi, target: Target::VReg(d), weight: w }));
                        }
                    }
                }
            }
            if bank_aware {
                srcs.clear();
                srcs.extend(inst.uses().iter().filter_map(|o| match o {
                    Operand::Reg(Reg::V(r)) if f.vreg(r.vreg).file() == RegFile::R => Some(root(r.vreg)),
                    _ => None,
                }));
                // A 64-bit address pair of a global/generic access is read beside the
                // data (measured: the scalar data of `STG` is in an odd register 737 times
                // out of 810 in the corpus SASS, beside an even address pair). Shared and
                // local addresses are not: ptxas narrows them to 32 bits (`STS` data odd
                // 119 of 292).
                if !matches!(inst.op.mnemonic(), "STS" | "STL" | "LDS" | "LDL" | "ATOMS") {
                    srcs.extend(
                        inst.address_vregs()
                            .filter(|r| f.vreg(r.vreg).file() == RegFile::R && f.vreg(r.vreg).width >= 2)
                            .map(|r| root(r.vreg)),
                    );
                }
                for (i, &a) in srcs.iter().enumerate() {
                    for &b2 in &srcs[i + 1..] {
                        if a == b2 {
                            continue;
                        }
                        for (x, y) in [(a, b2), (b2, a)] {
                            if !in_class(x) {
                                continue;
                            }
                            // With 2 banks (sm ≥ 70) a pair is read from its even
                            // register's bank: the other co-source prefers odd (type 12 on
                            // the pair's start); with 4 banks, either bank of the pair.
                            let ty = if f.vreg(y).width >= 2 && input.sm_version < 70 {
                                CType::ParityGroup
                            } else if input.sm_version < 70 {
                                CType::EvenParity
                            } else {
                                CType::OddParity
                            };
                            found.push((x.0, Node { ty, target: Target::VReg(y), weight: w }));
                        }
                    }
                }
            }
        }
    }
    let (group, mut per) = crate::alloc::ranges::group_by_key(&found, n, |&(v, nd)| (v, nd));
    drop(found);
    let mut start = Vec::with_capacity(n + 1);
    let mut nodes = Vec::with_capacity(per.len());
    for v in 0..n {
        start.push(nodes.len() as u32);
        let list = &mut per[group[v] as usize..group[v + 1] as usize];
        // Merge duplicates (same type and target): weights add, as repeated constraints
        // accumulate in ptxas's histogram.
        list.sort_unstable_by_key(|nd| (nd.ty, nd.target));
        let first = nodes.len();
        for &nd in list.iter() {
            let same =
                nodes.len() > first && nodes.last().is_some_and(|l: &Node| l.ty == nd.ty && l.target == nd.target);
            if same {
                let last = nodes.last_mut().expect("non-empty");
                last.weight = last.weight.saturating_add(nd.weight);
            } else {
                nodes.push(nd);
            }
        }
    }
    start.push(nodes.len() as u32);
    let bank_limit = (input.bank_aware && input.class.file() == RegFile::R).then(|| {
        let peak =
            input.r_peak.unwrap_or_else(|| ranges.pressure(f, RegFile::R, |_| true).into_iter().max().unwrap_or(0));
        bank_limit(input.sm_version, peak)
    });
    let (rot_start, rot) = match bank_limit {
        Some(_) if input.store_rotation > 1 => rotation(f, ranges, input.class, input.store_rotation as usize),
        _ => (Vec::new(), Vec::new()),
    };
    Constraints { start, nodes, bank_limit, rot_start, rot }
}

/// Store-data rotation (issue 23 rule 6). ptxas gives the data of a store a register the
/// data of the previous three stores of the block do not hold, nor the addresses of its
/// last three loads, even where one of them is free and lower: hand-made chains of `ld; add; st` (sm_80 and sm_90; `st.global`,
/// `st.shared`, `red.global`) put the sums in R7, R9, R11, R13, R7, R9 … whatever the
/// distance between the stores and the pressure around them (with 20 more values live,
/// R25, R27, R29, then R26: below the occupancy limit, the rotation before the parity).
/// Over the development part's SASS, a store's data register is the one the store `d`
/// before used, redefined in between, for d = 1, 2, 3, 4, 5: 1.4, 2.3, 3.4, 19.5, 5.0 %
/// of 15,190 / 10,659 / 7,407 / 4,847 / 3,350 store pairs (ARCHITECTURE.md, issue 23 rule
/// 6). A store's data is almost never in a register a load read its address from last
/// (43 of 11,750 store data registers defined between, 0.4 %). The seeds are silent; a likely cause is that a store reads its data after issue,
/// so overwriting it soon would wait on the store. Modelled as a soft, symmetric relation
/// between the data vregs of stores fewer than `pool` apart in a block (six after a load),
/// and between a store's data and the addresses of the block's last `pool - 1` loads: the fat-point
/// scan's first tie-break below the bank limit (`fatpoint::scan`), so it never costs a
/// register over that limit and never a spill. Spill stores (seed 003's STL) are not
/// stores of the program and take no part.
fn rotation(f: &Function, ranges: &Ranges, class: RegClass, pool: usize) -> (Vec<u32>, Vec<(VRegId, u8)>) {
    let root = |r: VRegId| ranges.root[r.index()];
    let in_class = |v: &VRegId| f.vreg(*v).class == class && ranges.is_root(*v);
    // Data straight from a load rotates through six registers, computed data through
    // `pool` (hand-made copies: R7, R9 … R17, R7; sums: R7 … R13, R7).
    let loaded_pool = pool + 2;
    let mut per: Vec<Vec<(VRegId, u8)>> = vec![Vec::new(); f.vregs.len()];
    let mut relate = |a: VRegId, b: VRegId| {
        if a != b {
            per[a.index()].push((b, f.vreg(b).width));
            per[b.index()].push((a, f.vreg(a).width));
        }
    };
    // Per vreg: defined (last, in this block) by a load.
    let mut loaded = vec![false; f.vregs.len()];
    for block in &f.blocks {
        // The data vregs of the block's last stores and the address vregs of its last
        // loads, newest last.
        let mut recent: VecDeque<Vec<VRegId>> = VecDeque::new();
        let mut addrs: VecDeque<Vec<VRegId>> = VecDeque::new();
        for inst in &block.insts {
            let info = inst.info();
            if !info.is(props::STORE) || info.is(props::SPILL_STORE) || inst.op.mnemonic() == "STL" {
                let load = info.is(props::LOAD) && !info.is(props::SPILL_LOAD);
                for d in inst.defs().iter().filter_map(Operand::as_vreg) {
                    loaded[root(d.vreg).index()] = load;
                }
                if load {
                    let a: Vec<VRegId> = inst.address_vregs().map(|r| root(r.vreg)).filter(in_class).collect();
                    if !a.is_empty() {
                        addrs.push_back(a);
                        if addrs.len() >= pool {
                            addrs.pop_front();
                        }
                    }
                }
                continue;
            }
            let data: Vec<VRegId> =
                inst.uses().iter().filter_map(Operand::as_vreg).map(|r| root(r.vreg)).filter(in_class).collect();
            let reach = if data.iter().any(|v| loaded[v.index()]) { loaded_pool } else { pool } - 1;
            for &a in &data {
                // The registers the last loads read their addresses from (hand-made:
                // a sum stored after three loads from R2:R3 goes to R9, not R3).
                for &b in addrs.iter().flatten() {
                    relate(a, b);
                }
                for &b in recent.iter().rev().take(reach).flatten() {
                    relate(a, b);
                }
            }
            recent.push_back(data);
            if recent.len() > loaded_pool {
                recent.pop_front();
            }
        }
    }
    let mut start = Vec::with_capacity(per.len() + 1);
    let mut out = Vec::new();
    for mut list in per {
        start.push(out.len() as u32);
        list.sort_unstable();
        list.dedup();
        out.extend(list);
    }
    start.push(out.len() as u32);
    (start, out)
}

/// How far bank-aware allocation may spread a function whose peak R pressure is `peak`:
/// up to the most registers that keep the resident warps of its packed count (peak +
/// R1 + the report's 2, `alloc::budget::REPORT_EXTRA`), as slots (one past the highest).
/// Measured with nvdisasm on the corpus cubins (ARCHITECTURE.md, "Fidelity", step 10):
/// ptxas's count lies between its packed count (peak live + 2) and that limit on 44 of 46
/// functions, at the limit on 14 (softmax32 packed 42, 48 = the last count at 42 warps).
pub fn bank_limit(sm_version: u32, peak: u32) -> u16 {
    use crate::alloc::budget::{GPR_CAP, REPORT_EXTRA, occupancy_top};
    // The peak's values and R1 fill R0..R(peak); the report adds 2 to the highest + 1.
    let packed = (peak + 1 + REPORT_EXTRA).min(GPR_CAP);
    (occupancy_top(sm_version, packed) - REPORT_EXTRA) as u16
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::{cfg, liveness};

    fn rotation_lists(text: &str, pool: u32) -> Vec<(String, Vec<String>)> {
        let m = crate::ir::parse::parse_str(text).expect("parses");
        let f = &m.functions[0];
        let c = cfg::build(f, 8.0);
        let live = liveness::compute(f, &c, &[]);
        let ranges = Ranges::build(f, &live);
        let class = f.vregs.iter().find(|v| v.name.starts_with("%d")).expect("a data vreg").class;
        let input = BuildInput {
            class,
            pins: &[],
            fixed: &[1],
            first_free: None,
            coalescing: false,
            bank_aware: true,
            sm_version: 80,
            freq: &c.freq,
            store_rotation: pool,
            r_peak: None,
        };
        let k = build(f, &ranges, &input);
        let name = |v: VRegId| f.vreg(v).name.to_string();
        (0..f.vregs.len())
            .map(VRegId::new)
            .filter(|&v| !k.rotation_of(v).is_empty())
            .map(|v| (name(v), k.rotation_of(v).iter().map(|&(t, _)| name(t)).collect()))
            .collect()
    }

    /// Seven stores of computed data; the fifth stores a loaded value.
    const STORES: &str = ".target sm_80\n.entry k {\n  .reg .R %d<8>\n  .reg .R.x2 %a<1>\nBB0:\n  \
        %a0 = LDC.64 c[0x0][0x160]\n  %d0 = IADD3 %a0.lo, 1, RZ\n  STG.E [%a0], %d0\n  \
        %d1 = IADD3 %a0.lo, 2, RZ\n  STG.E [%a0 + 0x4], %d1\n  %d2 = IADD3 %a0.lo, 3, RZ\n  \
        STG.E [%a0 + 0x8], %d2\n  %d3 = IADD3 %a0.lo, 4, RZ\n  STG.E [%a0 + 0xc], %d3\n  \
        %d4 = LDG.E [%a0 + 0x40]\n  STG.E [%a0 + 0x10], %d4\n  %d5 = IADD3 %a0.lo, 6, RZ\n  \
        STG.E [%a0 + 0x14], %d5\n  EXIT\n}\n";

    #[test]
    fn store_data_rotates_against_the_previous_three_stores_or_five_after_a_load() {
        let lists = rotation_lists(STORES, 4);
        let of = |n: &str| lists.iter().find(|(v, _)| v == n).map(|(_, l)| l.join(" ")).unwrap_or_default();
        assert_eq!(of("%d0"), "%d1 %d2 %d3 %d4", "{lists:?}");
        // %d4 came from a load: it reaches back five stores (all four before it), and
        // the load's address %a0 is read just before it is stored.
        assert_eq!(of("%d4"), "%d0 %d1 %d2 %d3 %d5 %a0");
        assert_eq!(of("%d5"), "%d2 %d3 %d4 %a0");
        assert!(rotation_lists(STORES, 0).is_empty() && rotation_lists(STORES, 1).is_empty());
    }
}
