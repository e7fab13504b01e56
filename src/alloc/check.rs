//! The independent allocation checker: given a function (with any spill code the
//! allocator inserted) and the register each vreg got, it re-derives liveness and
//! verifies the allocation against the rules directly, the way regalloc2's checker
//! validates a result without trusting the allocator's own bookkeeping.
//!
//! Owns the [`Allocation`] result type the allocator hands over and [`CheckError`], the
//! bug report. It shares only the IR (`crate::ir`) and the analyses (`crate::analysis`)
//! with the allocator and must not know anything about the allocator's internals
//! (ranges, histograms, constraint nodes, the driver): a second, simpler implementation
//! of the rules is the point.
//!
//! The rules, by the submodule that checks them:
//! - here, per vreg: width alignment, file and budget limits, zero registers, fixed
//!   registers, pins (`Allocation::pins` and `VReg::pin`), alias chains sharing one
//!   register (seed 000, "Assignment": alias propagation);
//! - `interfere`: every live or defined vreg has a register; no two simultaneously live
//!   vregs of one file share a register; physical register operands are not occupied
//!   by a vreg at the side of the instruction that reads or writes them;
//! - `spill`: a forward dataflow over spill slots (every reload reads the value of its
//!   vreg on every path) and the shape of reload temporaries (seed 003, "Spill Code
//!   Generation": a store after each definition, a reload before each use into a
//!   fresh short-lived vreg).
//!
//! Every violation is reported, sorted by program point then vreg id; bad input (ids out
//! of range, alias cycles, tables of the wrong length) is reported, never a panic.

mod avail;
mod interfere;
mod spill;
mod words;

pub use interfere::MAX_OVERLAPS;

use std::collections::BTreeMap;
use std::fmt;

use crate::analysis::{cfg, liveness};
use crate::ir::model::{Function, PhysReg, RegFile, VRegId};

/// An allocation result as the allocator hands it to the checker.
#[derive(Clone, Copy, Debug)]
pub struct Allocation<'a> {
    /// The final IR, including inserted spill code.
    pub func: &'a Function,
    /// Per vreg: the first physical register in its file (`None` = not assigned). A vreg
    /// left unassigned that is an alias (`VReg::alias`) takes its parent's register.
    pub slot: &'a [Option<u16>],
    /// Registers no vreg may occupy (R0–R3 under the ABI, the stack pointer ...).
    pub fixed: &'a [(RegFile, u16)],
    /// Vregs that must sit exactly at a register (hard constraint).
    pub pins: &'a [(VRegId, u16)],
    /// Per spilled vreg: its memory slot and the reload temporaries.
    pub spills: &'a [SpillSlotInfo],
    /// The vregs live when the function leaves (return values).
    pub exit_live: &'a [VRegId],
    /// Per file: registers available (`slot + width` must be `<= budget`). A file not
    /// listed is limited only by its architectural size.
    pub budget: &'a [(RegFile, u32)],
}

/// One spilled vreg: where its value lives in memory and the temporaries its reloads
/// define.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpillSlotInfo {
    pub vreg: VRegId,
    /// Shared memory (STS/LDS, seed 003 "SMEM Spilling") rather than local (STL/LDL).
    pub shared: bool,
    /// Byte offset of the slot (the memory operand offset of its stores and reloads).
    pub offset: u32,
    pub bytes: u32,
    pub temps: Vec<VRegId>,
}

/// A program point with its block and index: `point 12 (BB1:3)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Site {
    pub point: u32,
    pub block: usize,
    pub label: String,
    pub index: usize,
}

impl fmt::Display for Site {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "point {} ({}:{})", self.point, self.label, self.index)
    }
}

/// A vreg by id and name (errors outlive the function they describe).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Named {
    pub id: VRegId,
    pub name: String,
}

impl fmt::Display for Named {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.name.is_empty() { write!(f, "vreg#{}", self.id.0) } else { f.write_str(&self.name) }
    }
}

/// Which side of an instruction a register is occupied at.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Side {
    Before,
    After,
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Side::Before => "before",
            Side::After => "after",
        })
    }
}

/// A spill memory address: `local[0x10]`, `shared[0x40]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemSlot {
    pub shared: bool,
    pub offset: i64,
}

impl fmt::Display for MemSlot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let space = if self.shared { "shared" } else { "local" };
        if self.offset < 0 {
            write!(f, "{space}[-{:#x}]", self.offset.unsigned_abs())
        } else {
            write!(f, "{space}[{:#x}]", self.offset)
        }
    }
}

/// What a reload found in (one 32-bit word of) its slot instead of the value it needed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SlotContent {
    /// On some path from the entry the slot is never written.
    NeverWritten,
    /// The paths reaching the reload leave different values in the slot.
    Disagree,
    /// The slot was last written by a spill store of something other than a vreg.
    Overwritten,
    /// The slot held this vreg, but the vreg was redefined after its last store.
    Stale(Named),
    /// The slot holds component `.1` of this vreg (0 for a 32-bit vreg).
    Holds(Named, u8),
}

/// One violation of the allocation rules: the vreg(s), the program point, the register.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CheckError {
    /// Input the checker cannot interpret (ids out of range, alias cycles, ...).
    Malformed { at: Option<Site>, what: String },
    /// Rule 1: a vreg live (or defined) at `at` has no register.
    Unassigned { at: Site, vreg: Named },
    /// Rule 2: a pair not on an even register, a quad or wider not on a multiple of 4.
    Misaligned { at: Site, vreg: Named, reg: PhysReg, width: u8 },
    /// Rule 2: the range runs past the end of the register file.
    OutsideFile { at: Site, vreg: Named, reg: PhysReg, width: u8 },
    /// Rule 2: the range ends above the file's budget.
    OverBudget { at: Site, vreg: Named, reg: PhysReg, width: u8, budget: u32 },
    /// Rule 2: the range covers the zero register `reg` (RZ, URZ, PT, UPT).
    ZeroRegister { at: Site, vreg: Named, reg: PhysReg },
    /// Rule 4: the range covers a fixed register.
    Fixed { at: Site, vreg: Named, reg: PhysReg },
    /// Rule 4: a pinned vreg is not at its pin.
    Pin { at: Site, vreg: Named, pin: PhysReg, actual: Option<PhysReg> },
    /// An alias (coalesced vreg) with a register different from its parent's.
    AliasMismatch { at: Site, vreg: Named, parent: Named, reg: PhysReg, parent_reg: PhysReg },
    /// Rule 3: two simultaneously live vregs share `reg` at `side` of the instruction.
    Overlap { at: Site, side: Side, a: Named, b: Named, reg: PhysReg },
    /// Rule 3: more than `limit` distinct overlapping pairs; only the first `limit`
    /// found are listed (a wholly broken allocation must not exhaust memory).
    TooManyOverlaps { limit: usize },
    /// Rule 5: the instruction reads (`Before`) or writes (`After`) physical `reg`
    /// while `vreg` occupies it.
    PhysOperand { at: Site, side: Side, vreg: Named, reg: PhysReg },
    /// Rule 6: a reload into `temp` (a temporary of `of`) does not read `of`'s value.
    BadReload { at: Site, temp: Named, of: Named, slot: MemSlot, found: SlotContent },
    /// Rule 6: a spill store (`store`) or reload whose address is inside no spill slot.
    StraySpill { at: Site, store: bool, slot: MemSlot },
    /// Rule 6: a spill reload that defines neither a spilled vreg nor a temporary.
    ReloadNotTemp { at: Site, vreg: Named },
    /// Rule 6: a temporary with `defs` definitions instead of exactly one.
    TempDefs { at: Site, temp: Named, of: Named, defs: u32 },
    /// Rule 6: a temporary defined by something other than a spill reload.
    TempNotReload { at: Site, temp: Named, of: Named },
    /// Rule 6: a use of a temporary not preceded by its reload in the same block.
    TempUse { at: Site, temp: Named, of: Named, def: Site },
}

impl CheckError {
    /// The program point the violation is reported at (`None` for input errors without
    /// a place).
    pub fn site(&self) -> Option<&Site> {
        use CheckError::*;
        match self {
            Malformed { at, .. } => at.as_ref(),
            TooManyOverlaps { .. } => None,
            Unassigned { at, .. }
            | Misaligned { at, .. }
            | OutsideFile { at, .. }
            | OverBudget { at, .. }
            | ZeroRegister { at, .. }
            | Fixed { at, .. }
            | Pin { at, .. }
            | AliasMismatch { at, .. }
            | Overlap { at, .. }
            | PhysOperand { at, .. }
            | BadReload { at, .. }
            | StraySpill { at, .. }
            | ReloadNotTemp { at, .. }
            | TempDefs { at, .. }
            | TempNotReload { at, .. }
            | TempUse { at, .. } => Some(at),
        }
    }

    /// The (first) vreg the violation is about.
    pub fn vreg(&self) -> Option<VRegId> {
        use CheckError::*;
        match self {
            Malformed { .. } | StraySpill { .. } | TooManyOverlaps { .. } => None,
            Unassigned { vreg, .. }
            | Misaligned { vreg, .. }
            | OutsideFile { vreg, .. }
            | OverBudget { vreg, .. }
            | ZeroRegister { vreg, .. }
            | Fixed { vreg, .. }
            | Pin { vreg, .. }
            | AliasMismatch { vreg, .. }
            | PhysOperand { vreg, .. }
            | ReloadNotTemp { vreg, .. } => Some(vreg.id),
            Overlap { a, .. } => Some(a.id),
            BadReload { temp, .. } | TempDefs { temp, .. } | TempNotReload { temp, .. } | TempUse { temp, .. } => {
                Some(temp.id)
            }
        }
    }

    /// Rank of the variant, the last sort key among errors at one point and vreg.
    fn rank(&self) -> u8 {
        use CheckError::*;
        match self {
            Malformed { .. } => 0,
            Unassigned { .. } => 1,
            Misaligned { .. } => 2,
            OutsideFile { .. } => 3,
            OverBudget { .. } => 4,
            ZeroRegister { .. } => 5,
            Fixed { .. } => 6,
            Pin { .. } => 7,
            AliasMismatch { .. } => 8,
            Overlap { .. } | TooManyOverlaps { .. } => 9,
            PhysOperand { .. } => 10,
            BadReload { .. } => 11,
            StraySpill { .. } => 12,
            ReloadNotTemp { .. } => 13,
            TempDefs { .. } => 14,
            TempNotReload { .. } => 15,
            TempUse { .. } => 16,
        }
    }

    /// Deterministic order: point (placeless first), vreg, kind, then the second vreg or
    /// the register.
    fn sort_key(&self) -> (Option<u32>, Option<VRegId>, u8, u32, u16) {
        let second = match self {
            CheckError::Overlap { b, .. } => b.id.0,
            CheckError::PhysOperand { side, .. } => *side as u32,
            _ => 0,
        };
        let reg = match self {
            CheckError::Overlap { reg, .. } | CheckError::PhysOperand { reg, .. } | CheckError::Fixed { reg, .. } => {
                reg.index
            }
            _ => 0,
        };
        (self.site().map(|s| s.point), self.vreg(), self.rank(), second, reg)
    }
}

/// `R4..R7` for a range of `width` registers starting at `reg`, `R4` for one.
fn range_name(reg: PhysReg, width: u8) -> String {
    if width <= 1 {
        return reg.to_string();
    }
    let last = PhysReg { file: reg.file, index: reg.index.saturating_add(width as u16 - 1) };
    format!("{reg}..{last}")
}

impl fmt::Display for CheckError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use CheckError::*;
        if let Some(at) = self.site() {
            write!(f, "{at}: ")?;
        }
        match self {
            Malformed { what, .. } => write!(f, "malformed input: {what}"),
            Unassigned { vreg, .. } => write!(f, "{vreg} is live but has no register"),
            Misaligned { vreg, reg, width, .. } => {
                let align = align_of(*width);
                write!(f, "{vreg} ({width} registers) starts at {reg}, which is not a multiple of {align}")
            }
            OutsideFile { vreg, reg, width, .. } => write!(
                f,
                "{vreg} at {} runs past the end of the {} file ({} registers)",
                range_name(*reg, *width),
                reg.file.prefix(),
                reg.file.arch_size()
            ),
            OverBudget { vreg, reg, width, budget, .. } => write!(
                f,
                "{vreg} at {} is beyond the budget of {budget} {} registers",
                range_name(*reg, *width),
                reg.file.prefix()
            ),
            ZeroRegister { vreg, reg, .. } => write!(f, "{vreg} occupies the zero register {reg}"),
            Fixed { vreg, reg, .. } => write!(f, "{vreg} occupies fixed register {reg}"),
            Pin { vreg, pin, actual: Some(a), .. } => write!(f, "{vreg} is pinned to {pin} but sits at {a}"),
            Pin { vreg, pin, actual: None, .. } => write!(f, "{vreg} is pinned to {pin} but has no register"),
            AliasMismatch { vreg, parent, reg, parent_reg, .. } => {
                write!(f, "{vreg} is an alias of {parent} but sits at {reg}, not at {parent_reg}")
            }
            Overlap { side, a, b, reg, .. } => write!(f, "{a} and {b} both live in {reg} ({side} the instruction)"),
            TooManyOverlaps { limit } => {
                write!(f, "more than {limit} pairs of vregs share registers; only the first {limit} found are listed")
            }
            PhysOperand { side: Side::Before, vreg, reg, .. } => {
                write!(f, "the instruction reads {reg} while {vreg} occupies it")
            }
            PhysOperand { side: Side::After, vreg, reg, .. } => {
                write!(f, "the instruction writes {reg} while {vreg} occupies it")
            }
            BadReload { temp, of, slot, found, .. } => {
                write!(f, "reload of {temp} (temp of {of}) from {slot}: ")?;
                match found {
                    SlotContent::NeverWritten => f.write_str("the slot is not written on some path to here"),
                    SlotContent::Disagree => f.write_str("the paths to here leave different values in the slot"),
                    SlotContent::Overwritten => f.write_str("the slot was overwritten by a store of a non-register"),
                    SlotContent::Stale(v) => write!(f, "{v} was redefined after its last store to the slot"),
                    SlotContent::Holds(v, c) => write!(f, "the slot holds {v} (component {c})"),
                }
            }
            StraySpill { store: true, slot, .. } => write!(f, "spill store to {slot}, which is in no spill slot"),
            StraySpill { store: false, slot, .. } => write!(f, "spill reload from {slot}, which is in no spill slot"),
            ReloadNotTemp { vreg, .. } => {
                write!(f, "spill reload defines {vreg}, which is neither a spilled vreg nor a reload temporary")
            }
            TempDefs { temp, of, defs, .. } => {
                write!(f, "reload temporary {temp} of {of} has {defs} definitions, expected exactly one")
            }
            TempNotReload { temp, of, .. } => {
                write!(f, "reload temporary {temp} of {of} is defined by an instruction that is not a spill reload")
            }
            TempUse { temp, of, def, .. } => {
                write!(f, "use of reload temporary {temp} of {of} is not preceded by its reload ({def}) in its block")
            }
        }
    }
}

impl std::error::Error for CheckError {}

/// Register alignment a width demands: pairs even, quads and wider a multiple of 4.
pub fn align_of(width: u8) -> u16 {
    match width {
        2 => 2,
        w if w >= 4 => 4,
        _ => 1,
    }
}

/// Checks `a` against every rule; `Err` holds all violations, sorted by point then vreg.
pub fn check(a: &Allocation) -> Result<(), Vec<CheckError>> {
    let errors = check_all(a);
    if errors.is_empty() { Ok(()) } else { Err(errors) }
}

/// Shared read-only context of one check.
pub(crate) struct Ctx<'a> {
    pub f: &'a Function,
    pub layout: crate::ir::model::Layout,
}

impl Ctx<'_> {
    pub fn named(&self, v: VRegId) -> Named {
        Named { id: v, name: self.f.vregs.get(v.index()).map(|r| r.name.to_string()).unwrap_or_default() }
    }

    pub fn site(&self, block: usize, index: usize) -> Site {
        let label = self.f.blocks.get(block).map(|b| b.label.clone()).unwrap_or_default();
        let point = self.layout.block_start.get(block).map_or(0, |s| s + index as u32);
        Site { point, block, label, index }
    }

    pub fn site_of(&self, point: u32) -> Option<Site> {
        self.layout.locate(point).map(|(b, i)| self.site(b, i))
    }
}

/// Per vreg: its alias root (the value it belongs to) and its effective register.
pub(crate) struct Values {
    pub root: Vec<u32>,
    pub reg: Vec<Option<u16>>,
}

fn check_all(a: &Allocation) -> Vec<CheckError> {
    let f = a.func;
    let ctx = Ctx { f, layout: f.layout() };
    let n = f.vregs.len();
    let mut errors = Vec::new();

    if a.slot.len() != n {
        errors.push(CheckError::Malformed {
            at: None,
            what: format!("the register table has {} entries for {} vregs", a.slot.len(), n),
        });
    }
    // Pins from the allocator and from the IR (`.pin`), per vreg, in a deterministic order.
    let mut pins: BTreeMap<u32, Vec<u16>> = BTreeMap::new();
    for &(v, r) in a.pins {
        if v.index() < n {
            pins.entry(v.0).or_default().push(r);
        } else {
            errors.push(CheckError::Malformed { at: None, what: format!("pin of vreg#{} (out of range) to {r}", v.0) });
        }
    }
    for (i, v) in f.vregs.iter().enumerate() {
        if let Some(p) = v.pin {
            pins.entry(i as u32).or_default().push(p);
        }
    }
    for list in pins.values_mut() {
        list.sort_unstable();
        list.dedup();
    }
    for &v in a.exit_live {
        if v.index() >= n {
            errors.push(CheckError::Malformed { at: None, what: format!("exit-live vreg#{} is out of range", v.0) });
        }
    }
    for &(file, r) in a.fixed {
        if r >= file.arch_size() {
            errors.push(CheckError::Malformed {
                at: None,
                what: format!("fixed register {}{r} is outside its file", file.prefix()),
            });
        }
    }

    let vals = resolve_aliases(&ctx, a.slot, &mut errors);

    // Liveness is recomputed here from the final IR: the checker trusts no range the
    // allocator kept (seed 004, "Iterative Fixed-Point Solver", via crate::analysis).
    let graph = cfg::build(f, 1.0);
    // The spill-slot dataflow needs neither liveness nor the interference walk: it runs
    // on the second core meanwhile (the errors are sorted below, so the result does not
    // depend on which finishes first).
    let spill_errors = std::thread::scope(|scope| {
        let spills = scope.spawn(|| {
            let mut e = Vec::new();
            spill::check(&ctx, &graph, a.spills, &vals, &mut e);
            e
        });
        // No point-query checkpoints: the walk goes block by block from each live-out.
        // The allocator's view: live only where defined (`Liveness::restrict_to_defined`).
        let live = liveness::compute_defined(f, &graph, a.exit_live);
        let walk = interfere::walk(&ctx, &live, &vals);
        errors.extend(walk.errors);
        per_vreg(&ctx, a, &vals, &walk.first_seen, &pins, &mut errors);
        spills.join()
    });
    match spill_errors {
        Ok(e) => errors.extend(e),
        Err(_) => errors.push(CheckError::Malformed { at: None, what: "the spill-slot check panicked".to_string() }),
    }

    // The text breaks ties, so equal reports end up adjacent and the order is total.
    errors.sort_by_cached_key(|e| (e.sort_key(), e.to_string()));
    errors.dedup();
    errors
}

/// Follows `VReg::alias` links to each vreg's root (seed 000, "Assignment": aliases share
/// their parent's register). Cycles, links out of range and links across register files
/// are reported and cut, so every vreg still gets a root.
fn resolve_aliases(ctx: &Ctx, slot: &[Option<u16>], errors: &mut Vec<CheckError>) -> Values {
    let f = ctx.f;
    let n = f.vregs.len();
    let own = |v: usize| slot.get(v).copied().flatten();
    let parent = |v: usize| -> Option<usize> {
        let p = f.vregs[v].alias?.index();
        (p < n && f.vregs[p].file() == f.vregs[v].file()).then_some(p)
    };
    for v in &f.vregs {
        if let Some(p) = v.alias {
            if p.index() >= n {
                errors.push(CheckError::Malformed {
                    at: None,
                    what: format!("{} is an alias of vreg#{}, which does not exist", v.name, p.0),
                });
            } else if f.vregs[p.index()].file() != v.file() {
                errors.push(CheckError::Malformed {
                    at: None,
                    what: format!("{} is an alias of {} in another register file", v.name, ctx.named(p)),
                });
            }
        }
    }

    const TODO: u8 = 0;
    const BUSY: u8 = 1;
    const DONE: u8 = 2;
    let mut state = vec![TODO; n];
    let mut root: Vec<u32> = (0..n as u32).collect();
    let mut reg: Vec<Option<u16>> = (0..n).map(own).collect();
    let mut path = Vec::new();
    for start in 0..n {
        if state[start] == DONE {
            continue;
        }
        path.clear();
        let mut x = start;
        // Walk up to a resolved vreg, a root, or back into the current path (a cycle).
        let (base_root, base_reg) = loop {
            if state[x] == DONE {
                break (root[x], reg[x]);
            }
            if state[x] == BUSY {
                errors.push(CheckError::Malformed {
                    at: None,
                    what: format!("the alias chain of {} is a cycle", ctx.named(VRegId::new(x))),
                });
                // Cut the cycle: every vreg on it becomes its own root.
                let k = path.iter().position(|&y| y == x).unwrap_or(0);
                for &y in &path[k..] {
                    state[y] = DONE;
                }
                path.truncate(k);
                break (root[x], reg[x]);
            }
            state[x] = BUSY;
            path.push(x);
            match parent(x) {
                Some(p) => x = p,
                None => {
                    path.pop();
                    state[x] = DONE;
                    break (x as u32, own(x));
                }
            }
        };
        let mut g = base_reg;
        for &y in path.iter().rev() {
            root[y] = base_root;
            g = own(y).or(g);
            reg[y] = g;
            state[y] = DONE;
        }
    }
    Values { root, reg }
}

/// The per-vreg rules (2, 4 and alias sharing) for every vreg that occupies a register
/// somewhere; reported at the first program point it occupies.
fn per_vreg(
    ctx: &Ctx,
    a: &Allocation,
    vals: &Values,
    first_seen: &[Option<u32>],
    pins: &BTreeMap<u32, Vec<u16>>,
    errors: &mut Vec<CheckError>,
) {
    let f = ctx.f;
    let budget = |file: RegFile| a.budget.iter().find(|(bf, _)| *bf == file).map(|&(_, b)| b);
    for (i, v) in f.vregs.iter().enumerate() {
        let id = VRegId::new(i);
        let Some(at) = first_seen.get(i).copied().flatten().and_then(|p| ctx.site_of(p)) else {
            continue;
        };
        if !v.class.is_allocatable() {
            continue;
        }
        let file = v.file();
        let my_pins = pins.get(&(i as u32)).map_or(&[][..], Vec::as_slice);
        let Some(first) = vals.reg[i] else {
            // Unassigned: reported by the interference walk too.
            for &pr in my_pins {
                let pin = PhysReg { file, index: pr };
                errors.push(CheckError::Pin { at: at.clone(), vreg: ctx.named(id), pin, actual: None });
            }
            continue;
        };
        let width = v.width.max(1);
        let reg = PhysReg { file, index: first };
        let end = first as u32 + width as u32;
        if first % align_of(width) != 0 {
            errors.push(CheckError::Misaligned { at: at.clone(), vreg: ctx.named(id), reg, width });
        }
        if end > file.arch_size() as u32 {
            errors.push(CheckError::OutsideFile { at: at.clone(), vreg: ctx.named(id), reg, width });
        }
        if let Some(b) = budget(file)
            && end > b
        {
            errors.push(CheckError::OverBudget { at: at.clone(), vreg: ctx.named(id), reg, width, budget: b });
        }
        if let Some(z) = file.zero_register()
            && (first as u32..end).contains(&(z as u32))
        {
            errors.push(CheckError::ZeroRegister {
                at: at.clone(),
                vreg: ctx.named(id),
                reg: PhysReg { file, index: z },
            });
        }
        let mut fixed: Vec<u16> = a
            .fixed
            .iter()
            .filter(|(ff, r)| *ff == file && (first as u32..end).contains(&(*r as u32)))
            .map(|x| x.1)
            .collect();
        fixed.sort_unstable();
        fixed.dedup();
        for r in fixed {
            errors.push(CheckError::Fixed { at: at.clone(), vreg: ctx.named(id), reg: PhysReg { file, index: r } });
        }
        for &pr in my_pins {
            if pr != first {
                let pin = PhysReg { file, index: pr };
                errors.push(CheckError::Pin { at: at.clone(), vreg: ctx.named(id), pin, actual: Some(reg) });
            }
        }
        if let (Some(own), Some(p)) = (a.slot.get(i).copied().flatten(), v.alias)
            && f.vregs.get(p.index()).is_some_and(|pv| pv.file() == file)
            && let Some(pr) = vals.reg[p.index()]
            && pr != own
            && vals.root[i] != i as u32
        {
            errors.push(CheckError::AliasMismatch {
                at: at.clone(),
                vreg: ctx.named(id),
                parent: ctx.named(p),
                reg: PhysReg { file, index: own },
                parent_reg: PhysReg { file, index: pr },
            });
        }
    }
}
