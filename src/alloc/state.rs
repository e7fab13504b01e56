//! The allocator state object, modelled on ptxas's 1748-byte object (seed 000,
//! "Allocator State Object Layout"). Fields radbg's model uses are real fields here,
//! each tagged with its ptxas byte offset; [`AllocState::table`] lists every offset the
//! seed documents, with the value in force, and says "not modelled" for the rest —
//! nothing is invented.

use std::fmt::Write;

/// Allocation modes at +1504 (seed 000): 0 normal, 3 CSSA, 5 SMEM, 6 CSSA paired.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AllocMode {
    Normal = 0,
    Cssa = 3,
    Smem = 5,
    CssaPaired = 6,
}

/// Per-class register file descriptor at +880 + 32·class (seed 000, "RegClassDesc").
#[derive(Clone, Debug, PartialEq)]
pub struct ClassDesc {
    /// +0 base register offset.
    pub base: i32,
    /// +4 max regs / budget of the class.
    pub max_regs: i32,
    /// +8 current allocation count (registers used by the committed result).
    pub count: i32,
    /// +12 class active.
    pub active: bool,
    /// +13 class overflow (allocation failed).
    pub overflow: bool,
    /// +14 class spilled.
    pub spilled: bool,
    /// +13 (the byte at alloc + 32·class + 893): high-pressure class, spill weight 3.0.
    pub high_pressure: bool,
}

impl Default for ClassDesc {
    fn default() -> ClassDesc {
        ClassDesc {
            base: 0,
            max_regs: -1,
            count: 0,
            active: false,
            overflow: false,
            spilled: false,
            high_pressure: false,
        }
    }
}

/// The modelled fields of the state object.
#[derive(Clone, Debug, PartialEq)]
pub struct AllocState {
    /// +744 assignment stack: length and the position of the next vreg to assign.
    pub stack_len: u32,
    pub stack_cursor: u32,
    /// +756 hardware register limit of the class being allocated.
    pub hw_limit: i32,
    /// +60 committed histogram scan bound (maxRegs).
    pub max_regs_scan: i32,
    /// +768 the High list's spill-cost threshold (seed 000: "Spill cost exceeds threshold
    /// (alloc+768)"); the seed gives no value: radbg takes twice the spill weight, the
    /// cost of one definition and one use outside loops (read when `radbg.SixLists` has
    /// bit 0).
    pub high_threshold: f64,
    /// +776 spill cost threshold (spill-slot configuration, sub_939BD0).
    pub spill_cost_threshold: f64,
    /// +788 best allocation result of the current round.
    pub best_round: i32,
    /// +865 spill already triggered.
    pub spill_done: bool,
    /// +880.. per-class descriptors, indexed by class id 0..=6.
    pub classes: [ClassDesc; 7],
    /// +1504 allocation mode.
    pub mode: AllocMode,
    /// +1508 spill attempt counter.
    pub attempt: i32,
    /// +1512 spill instruction count (knob 635).
    pub spill_inst_count: i32,
    /// +1524 register budget of the active class.
    pub budget: i32,
    /// +1528 peak register usage.
    pub peak: i32,
    /// +1540 secondary budget limit (knob 633), +1544 tertiary (knob 632).
    pub secondary_budget: i32,
    pub tertiary_budget: i32,
    /// +1548 spill cost multiplier.
    pub spill_cost_mult: f32,
    /// +1556 (budget + 4) & ~3.
    pub max_regs_aligned: i32,
    /// +1560 best result / spill target.
    pub target: i32,
    /// +1564 current max assignment (consumption) this round.
    pub cur_max: i32,
    /// +1568 total spill cost accumulator.
    pub spill_cost_total: f64,
    /// +1576 spill event counter.
    pub spill_events: i32,
    /// +1580 effective budget, +1584 adjusted budget.
    pub effective_budget: i32,
    pub adjusted_budget: i32,
    /// +1588 .. +1594 mode flags.
    pub epoch_aware: bool,
    pub paired_mode: bool,
    pub smem_spill: bool,
    pub bank_aware: bool,
    pub has_spilled: bool,
    /// +720: values the spill code rematerialized so far (issue 23 rule 16; the seed
    /// names the list and its count, radbg fills the count).
    pub remat_count: u32,
    pub precolor_reuse: bool,
    pub abi_compat: bool,
    /// +1624 max threads, +1628 pressure threshold, +1632..+1648 coefficients,
    /// +1656 total threads, +1664..+1712 interpolation points, +1720..+1736 linear model.
    pub budget_model: crate::alloc::budget::FractionModel,
    pub budget_max_threads: i32,
    pub budget_pressure_threshold: i32,
    pub coeff: [f64; 3],
    /// +440 MAC force (knob 628), +441 coalescing (618), +442 MAC vreg order (629).
    pub mac_force: bool,
    pub coalescing: bool,
    pub mac_order: u8,
}

/// One row of the state table.
#[derive(Clone, Debug, PartialEq)]
pub struct StateField {
    pub offset: u32,
    pub width: u8,
    pub name: &'static str,
    /// The value, or `None` when radbg does not model the field.
    pub value: Option<String>,
}

impl AllocState {
    /// The constructor's initial values (sub_947150), before a class is set up.
    pub fn new(knobs: &crate::knobs::Knobs, total_threads: u32) -> AllocState {
        use crate::knobs as k;
        AllocState {
            stack_len: 0,
            stack_cursor: 0,
            hw_limit: -1,
            max_regs_scan: 0,
            high_threshold: 2.0 * knobs.float("radbg.SpillWeight"),
            spill_cost_threshold: -1.0,
            best_round: -1,
            spill_done: false,
            classes: Default::default(),
            mode: AllocMode::Normal,
            attempt: 0,
            spill_inst_count: knobs.int(k::SPILL_INST_COUNT) as i32,
            budget: -1,
            peak: 0,
            secondary_budget: knobs.int(k::SECONDARY_BUDGET) as i32,
            tertiary_budget: knobs.int(k::TERTIARY_BUDGET) as i32,
            spill_cost_mult: knobs.float(k::SPILL_COST_MULT) as f32,
            max_regs_aligned: -1,
            target: -1,
            cur_max: 0,
            spill_cost_total: 0.0,
            spill_events: 0,
            effective_budget: 0,
            adjusted_budget: 0,
            epoch_aware: knobs.bool(k::EPOCH_AWARE),
            paired_mode: knobs.bool(k::PAIRED_MODE),
            smem_spill: knobs.bool(k::SMEM_SPILL),
            bank_aware: knobs.bool(k::BANK_AWARE),
            has_spilled: false,
            remat_count: 0,
            precolor_reuse: knobs.bool(k::PRECOLOR_REUSE),
            abi_compat: knobs.bool(k::ABI_COMPAT),
            budget_model: crate::alloc::budget::FractionModel::new(knobs, total_threads),
            budget_max_threads: knobs.int("RegTgtMaxThreads") as i32,
            budget_pressure_threshold: knobs.int("RegTgtPressureThreshold") as i32,
            coeff: [knobs.float("RegTgtCoeffA"), knobs.float("RegTgtCoeffB"), knobs.float("RegTgtCoeffC")],
            mac_force: knobs.bool(k::MAC_FORCE),
            coalescing: knobs.bool(k::COALESCING),
            mac_order: knobs.int(k::MAC_ORDER) as u8,
        }
    }

    /// Every field the seed documents, by offset, with the value in force.
    pub fn table(&self) -> Vec<StateField> {
        let mut t = Vec::with_capacity(160);
        let mut add = |offset: u32, width: u8, name: &'static str, value: Option<String>| {
            t.push(StateField { offset, width, name, value })
        };
        let b = |x: bool| Some(u8::from(x).to_string());
        let i = |x: i32| Some(x.to_string());
        let d = |x: f64| Some(format!("{x:.4}"));
        // Header and the arena-backed tables radbg has no counterpart for.
        add(0, 8, "vtable pointer (strategy dispatch)", None);
        add(8, 8, "compilation context", None);
        add(16, 8, "secondary vtable", None);
        add(24, 8, "function object pointer", None);
        add(32, 8, "pre-alloc candidate list A head", None);
        add(40, 8, "pre-alloc candidate list B head", None);
        add(48, 4, "pre-alloc candidate count A", None);
        add(60, 4, "committed histogram bound maxRegs", i(self.max_regs_scan));
        add(72, 24, "LowConf list", None);
        add(96, 24, "LowLate list", None);
        add(120, 24, "High list", None);
        add(144, 24, "VeryHigh list", None);
        add(168, 24, "Unconstrained list", None);
        add(224, 8, "exclusion set arena node", None);
        add(240, 24, "pre-alloc hash table A", None);
        add(280, 24, "pre-alloc hash table B", None);
        add(320, 24, "pre-alloc hash table C", None);
        add(360, 24, "exclusion set", None);
        add(440, 1, "MAC force pre-alloc flag (knob 628)", b(self.mac_force));
        add(441, 1, "coalescing enable flag (knob 618)", b(self.coalescing));
        add(442, 1, "MAC vreg alloc order (knob 629)", Some(self.mac_order.to_string()));
        add(443, 1, "per-class mode flag", None);
        add(448, 8, "bitvector set count", Some("6".into()));
        add(456, 240, "per-class bitvector sets (classes 1-6)", None);
        add(696, 24, "remat candidate list", None);
        add(720, 4, "remat candidate list: count", Some(self.remat_count.to_string()));
        add(736, 8, "register linked list: secondary head", None);
        add(744, 8, "assignment stack (length / cursor)", Some(format!("{} / {}", self.stack_len, self.stack_cursor)));
        add(752, 1, "register list initialized flag", b(self.stack_len > 0));
        add(756, 4, "hardware register limit", i(self.hw_limit));
        add(760, 4, "secondary HW limit", None);
        add(764, 4, "pre-alloc constraint count", None);
        add(768, 8, "High list spill-cost threshold (radbg's value)", d(self.high_threshold));
        add(776, 8, "spill cost threshold", d(self.spill_cost_threshold));
        add(788, 4, "best allocation result (round)", i(self.best_round));
        add(792, 1, "allocation-in-progress flag", b(self.stack_cursor < self.stack_len));
        add(800, 1, "retry-active flag", b(self.attempt > 0));
        add(808, 4, "live range interference state", None);
        add(824, 1, "pre-coloring done flag", None);
        add(832, 8, "per-function spill info array", None);
        add(864, 1, "bank conflict awareness flag", b(self.bank_aware));
        add(865, 1, "spill-already-triggered flag", b(self.spill_done));
        add(872, 8, "debug / trace output state", None);
        for (c, desc) in self.classes.iter().enumerate() {
            let base = 880 + 32 * c as u32;
            add(base, 4, CLASS_FIELD_NAMES[c][0], i(desc.base));
            add(base + 4, 4, CLASS_FIELD_NAMES[c][1], i(desc.max_regs));
            add(base + 8, 4, CLASS_FIELD_NAMES[c][2], i(desc.count));
            add(base + 12, 1, CLASS_FIELD_NAMES[c][3], b(desc.active));
            add(base + 13, 1, CLASS_FIELD_NAMES[c][4], b(desc.overflow || desc.high_pressure));
            add(base + 14, 1, CLASS_FIELD_NAMES[c][5], b(desc.spilled));
            add(base + 16, 4, CLASS_FIELD_NAMES[c][6], None);
            add(base + 24, 8, CLASS_FIELD_NAMES[c][7], None);
        }
        add(1128, 144, "per-class rematerialization lists", None);
        add(1272, 8, "back-pointer to compilation context", None);
        add(1280, 64, "coalesce list A", None);
        add(1344, 64, "coalesce list B", None);
        add(1408, 32, "interference graph hash table", None);
        add(1440, 64, "remat exclusion / candidates", None);
        add(1504, 4, "allocation mode", Some(format!("{} ({:?})", self.mode as i32, self.mode)));
        add(1508, 4, "spill attempt counter", i(self.attempt));
        add(1512, 4, "spill instruction count (knob 635)", i(self.spill_inst_count));
        add(1516, 4, "budget lower bound", None);
        add(1524, 4, "register budget", i(self.budget));
        add(1528, 4, "peak register usage", i(self.peak));
        add(1532, 16, "strategy parameters", None);
        add(1540, 4, "secondary budget limit (knob 633)", i(self.secondary_budget));
        add(1544, 4, "tertiary budget limit (knob 632)", i(self.tertiary_budget));
        add(
            1548,
            4,
            "spill cost multiplier (read by the High list under radbg.SixLists=1)",
            Some(format!("{:.4}", self.spill_cost_mult)),
        );
        add(1552, 4, "rollback sentinel", None);
        add(1556, 4, "max regs aligned (budget+4)&~3", i(self.max_regs_aligned));
        add(1560, 4, "best result / spill target", i(self.target));
        add(1564, 4, "current max assignment", i(self.cur_max));
        add(1568, 8, "total spill cost", d(self.spill_cost_total));
        add(1576, 4, "spill event counter", i(self.spill_events));
        add(1580, 4, "effective budget", i(self.effective_budget));
        add(1584, 4, "adjusted budget", i(self.adjusted_budget));
        add(1588, 1, "epoch-aware allocation (knob 682)", b(self.epoch_aware));
        add(1589, 1, "paired-register mode (knob 683)", b(self.paired_mode));
        add(1590, 1, "SMEM spill enable (knob 619)", b(self.smem_spill));
        add(1591, 1, "bank-aware allocation (knob 627)", b(self.bank_aware));
        add(1592, 1, "has-spilled flag", b(self.has_spilled));
        add(1593, 1, "precolor reuse (knob 636)", b(self.precolor_reuse));
        add(1594, 1, "ABI compatibility (knob 649)", b(self.abi_compat));
        add(1600, 8, "function object pair pointer", None);
        add(1608, 8, "budget model: auxiliary pointer", None);
        add(1616, 8, "budget model: occupancy upper bound", None);
        add(1624, 4, "max threads per block", i(self.budget_max_threads));
        add(1628, 4, "pressure threshold", i(self.budget_pressure_threshold));
        add(1632, 8, "interpolation coefficient A", d(self.coeff[0]));
        add(1640, 8, "interpolation coefficient B", d(self.coeff[1]));
        add(1648, 8, "interpolation coefficient C", d(self.coeff[2]));
        let m = &self.budget_model;
        add(1656, 8, "total threads", d(m.total_threads));
        for (k, name) in INTERP_NAMES.iter().enumerate() {
            add(1664 + 8 * k as u32, 8, name, d(m.points[k]));
        }
        add(1720, 8, "linear model: x_min", d(m.x_min));
        add(1728, 8, "linear model: y_min", d(m.y_min));
        add(1736, 8, "linear model: slope", Some(format!("{:.6}", m.slope)));
        add(1744, 8, "budget model: tail sentinel", None);
        t
    }

    /// The table as text, one field per line; `only` restricts it to one offset.
    pub fn render(&self, only: Option<u32>) -> String {
        let mut s = String::new();
        for f in self.table() {
            if only.is_some_and(|o| o != f.offset) {
                continue;
            }
            let v = f.value.unwrap_or_else(|| "(not modelled)".into());
            let _ = writeln!(s, "+{:<5} {:>2}B  {:<44} {}", f.offset, f.width, f.name, v);
        }
        s
    }
}

const INTERP_NAMES: [&str; 7] = [
    "interpolation point [0] y0",
    "interpolation point [1] x1 (max threads)",
    "interpolation point [2] y1",
    "interpolation point [3] x2 (threshold)",
    "interpolation point [4] y2",
    "interpolation point [5] x3 (255 - adjustment)",
    "interpolation point [6] y3",
];

macro_rules! class_names {
    ($($c:literal),*) => {
        [$([
            concat!("class ", $c, " base register offset"),
            concat!("class ", $c, " max regs"),
            concat!("class ", $c, " current allocation count"),
            concat!("class ", $c, " active flag"),
            concat!("class ", $c, " overflow / high-pressure flag"),
            concat!("class ", $c, " spill flag"),
            concat!("class ", $c, " phase id begin/end"),
            concat!("class ", $c, " auxiliary link"),
        ]),*]
    };
}

const CLASS_FIELD_NAMES: [[&str; 8]; 7] = class_names!("0", "1", "2", "3", "4", "5", "6");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_sorted_by_offset_and_marks_unmodelled_fields() {
        let s = AllocState::new(&crate::knobs::Knobs::new(), 128);
        let t = s.table();
        for w in t.windows(2) {
            assert!(w[0].offset < w[1].offset, "{} then {}", w[0].offset, w[1].offset);
        }
        let f = |o| t.iter().find(|f| f.offset == o).unwrap().value.clone();
        assert_eq!(f(1548), Some("4.0000".into()));
        assert_eq!(f(1512), Some("44".into()));
        assert_eq!(f(0), None);
        assert!(s.render(Some(1548)).contains("spill cost multiplier"));
    }
}
