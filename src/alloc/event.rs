//! Events of the allocation state machine: each call to `FunctionAlloc::step` returns
//! one, carrying enough to explain itself in one line.

use crate::alloc::order::List;
use crate::ir::{Function, RegClass, VRegId};

/// One step of the allocator.
#[derive(Clone, Debug, PartialEq)]
pub enum AllocEvent {
    /// Predicates kept in general registers before the first class (seed 003's
    /// bit-spill, `alloc::bitspill`).
    BitSpill {
        vregs: Vec<VRegId>,
        stores: u32,
        restores: u32,
    },
    ClassStart {
        class: RegClass,
        budget: u32,
        max_regs: u32,
        vregs: u32,
    },
    PreColor(Box<PreColor>),
    AttemptStart {
        class: RegClass,
        attempt: u32,
        spill: bool,
        target: u32,
    },
    Constraints {
        class: RegClass,
        attempt: u32,
        vreg: VRegId,
        nodes: u32,
        interference: u32,
        cost: f64,
    },
    Order {
        class: RegClass,
        attempt: u32,
        sizes: [u32; 6],
        stack: u32,
    },
    Assign(Assign),
    AttemptEnd(Box<AttemptEnd>),
    Best {
        class: RegClass,
        attempt: u32,
        used: u32,
        cost: f64,
        spills: u32,
    },
    Guidance(Box<Guidance>),
    SpillCode {
        class: RegClass,
        /// Each value stored, with its slot's offset.
        vregs: Box<[(VRegId, u32)]>,
        stores: u32,
        loads: u32,
        frame: u32,
        smem: bool,
        /// Chosen values recomputed before each use instead of stored (issue 23 rule
        /// 16), and how many recomputations went in; boxed, and absent when there are
        /// none, so that the event stays small (`tests/engine_memory.rs`).
        remat: Option<Box<(Vec<VRegId>, u32)>>,
    },
    Relive {
        class: RegClass,
        insts: u32,
        vregs: u32,
    },
    ClassEnd {
        class: RegClass,
        ok: bool,
        used: u32,
        attempts: u32,
        message: Option<String>,
    },
    Finalize {
        ok: bool,
        message: Option<String>,
    },
}

/// The class's pinned and pre-allocated vregs before its first attempt ([`AllocEvent::PreColor`], boxed: a rare event whose fields would
/// otherwise size every event of the trace).
#[derive(Clone, Debug, PartialEq)]
pub struct PreColor {
    pub class: RegClass,
    pub pinned: Vec<(VRegId, u16)>,
    pub prealloc: Vec<VRegId>,
    pub note: String,
}

/// An attempt's result ([`AllocEvent::AttemptEnd`], boxed: a rare event whose fields would
/// otherwise size every event of the trace).
#[derive(Clone, Debug, PartialEq)]
pub struct AttemptEnd {
    pub class: RegClass,
    pub attempt: u32,
    pub used: u32,
    pub target: u32,
    pub success: bool,
    pub needs_spill: u32,
    pub line: String,
}

/// The spill guidance's choice after a failed attempt ([`AllocEvent::Guidance`], boxed: a rare event whose fields would
/// otherwise size every event of the trace).
#[derive(Clone, Debug, PartialEq)]
pub struct Guidance {
    pub class: RegClass,
    pub attempt: u32,
    pub target: u32,
    pub queue: u32,
    pub chosen: Vec<VRegId>,
    pub peak_before: u32,
    pub peak_after: u32,
    pub fallback: bool,
}

/// One vreg assignment decision of the fat-point core.
#[derive(Clone, Debug, PartialEq)]
pub struct Assign {
    pub class: RegClass,
    pub attempt: u32,
    /// Position on the assignment stack.
    pub index: u32,
    pub vreg: VRegId,
    pub list: List,
    /// The slot the scan chose (`None`: every slot blocked or discarded).
    pub slot: Option<u16>,
    pub cost: u32,
    pub secondary: u32,
    /// Slots skipped because their cost exceeded the threshold.
    pub discarded: u32,
    pub blocked: u32,
    /// The slot was at or above the budget: marked needs-spill (0x40000), not committed.
    pub needs_spill: bool,
}

impl AllocEvent {
    /// Scope level for `next` / `finish`: 1 = class, 2 = attempt, 3 = one vreg (the
    /// Briggs events answer the same question with iterations, phases and nodes).
    pub fn level(&self) -> u8 {
        match self {
            AllocEvent::Assign(_) | AllocEvent::Constraints { .. } => 3,
            AllocEvent::ClassStart { .. } | AllocEvent::ClassEnd { .. } | AllocEvent::Finalize { .. } => 1,
            _ => 2,
        }
    }

    /// What identifies "the same moment" across two runs (`set` re-runs): class,
    /// attempt, vreg.
    pub fn event_key(&self) -> String {
        match self {
            AllocEvent::Assign(x) => format!("{} {} v{}", x.class.name(), x.attempt, x.vreg.0),
            AllocEvent::Constraints { class, attempt, vreg, .. } => format!("{} {attempt} v{}", class.name(), vreg.0),
            AllocEvent::AttemptStart { class, attempt, .. } => format!("{} {attempt}", class.name()),
            AllocEvent::AttemptEnd(e) => format!("{} {}", e.class.name(), e.attempt),
            other => other.class().map(|c| c.name().to_string()).unwrap_or_default(),
        }
    }

    pub fn class(&self) -> Option<RegClass> {
        match self {
            AllocEvent::ClassStart { class, .. }
            | AllocEvent::AttemptStart { class, .. }
            | AllocEvent::Constraints { class, .. }
            | AllocEvent::Order { class, .. }
            | AllocEvent::Best { class, .. }
            | AllocEvent::SpillCode { class, .. }
            | AllocEvent::Relive { class, .. }
            | AllocEvent::ClassEnd { class, .. } => Some(*class),
            AllocEvent::Assign(a) => Some(a.class),
            AllocEvent::PreColor(p) => Some(p.class),
            AllocEvent::AttemptEnd(e) => Some(e.class),
            AllocEvent::Guidance(g) => Some(g.class),
            AllocEvent::Finalize { .. } => None,
            AllocEvent::BitSpill { .. } => Some(RegClass::P),
        }
    }

    /// The event kind as a short word, for breakpoints and the status bar.
    pub fn kind(&self) -> &'static str {
        match self {
            AllocEvent::BitSpill { .. } => "bit-spill",
            AllocEvent::ClassStart { .. } => "class-start",
            AllocEvent::PreColor(_) => "precolor",
            AllocEvent::AttemptStart { .. } => "attempt-start",
            AllocEvent::Constraints { .. } => "constraints",
            AllocEvent::Order { .. } => "order",
            AllocEvent::Assign(_) => "assign",
            AllocEvent::AttemptEnd(_) => "attempt-end",
            AllocEvent::Best { .. } => "best",
            AllocEvent::Guidance(_) => "guidance",
            AllocEvent::SpillCode { .. } => "spill-code",
            AllocEvent::Relive { .. } => "relive",
            AllocEvent::ClassEnd { .. } => "class-end",
            AllocEvent::Finalize { .. } => "finalize",
        }
    }

    /// One line that explains the event.
    pub fn describe(&self, f: &Function) -> String {
        let name = |v: &VRegId| f.vregs.get(v.index()).map(|r| r.name.as_ref()).unwrap_or("?").to_string();
        let names = |vs: &[VRegId]| {
            let mut s: Vec<String> = vs.iter().take(8).map(name).collect();
            if vs.len() > 8 {
                s.push(format!("… +{}", vs.len() - 8));
            }
            s.join(" ")
        };
        let file = |c: &RegClass| c.file().prefix();
        match self {
            AllocEvent::ClassStart { class, budget, max_regs, vregs } => format!(
                "class {} ({}): {vregs} vregs, budget {budget}, histogram scan 0..{max_regs}",
                class.id(),
                class.name()
            ),
            AllocEvent::PreColor(p) => {
                let PreColor { class, pinned, prealloc, note } = &**p;
                let pins: Vec<String> =
                    pinned.iter().map(|(v, r)| format!("{}→{}{}", name(v), file(class), r)).collect();
                format!(
                    "pre-colour class {}: {} pinned{}{}; pre-allocation {} ({note})",
                    class.name(),
                    pinned.len(),
                    if pins.is_empty() { "" } else { " " },
                    pins.join(" "),
                    prealloc.len()
                )
            }
            AllocEvent::AttemptStart { class, attempt, spill, target } => format!(
                "attempt {attempt} ({}) class {}: target {target}",
                if *spill { "SPILL" } else { "NOSPILL" },
                class.name()
            ),
            AllocEvent::Constraints { vreg, nodes, interference, cost, .. } => format!(
                "constraints of {}: {nodes} node(s), interference {interference}, spill cost {cost:.1}",
                name(vreg)
            ),
            AllocEvent::Order { class, sizes, stack, .. } => format!(
                "six-list order class {}: Unconstrained {} VeryHigh {} High {} LowConf {} LowLate {} LargeVec {} → stack of {stack}",
                class.name(),
                sizes[0],
                sizes[1],
                sizes[2],
                sizes[3],
                sizes[4],
                sizes[5]
            ),
            AllocEvent::Assign(a) => {
                let reg = a.slot.map(|s| format!("{}{}", file(&a.class), s)).unwrap_or_else(|| "no slot".into());
                let mut s = format!("assign {} → {reg} (cost {}", name(&a.vreg), a.cost);
                if a.discarded > 0 {
                    let _ = std::fmt::Write::write_fmt(&mut s, format_args!(", {} discarded", a.discarded));
                }
                s.push(')');
                if a.needs_spill {
                    s.push_str(" needs-spill");
                }
                s
            }
            AllocEvent::AttemptEnd(e) => {
                format!("{} — {}", e.line, if e.success { "fits" } else { "over budget" })
            }
            AllocEvent::Best { class, attempt, used, cost, spills } => format!(
                "best result class {}: attempt {attempt}, used {used}, cost {cost:.1}, {spills} spilled",
                class.name()
            ),
            AllocEvent::Guidance(g) => format!(
                "spill guidance (target {}): queue of {}, spill {} [{}], peak {} → {}{}",
                g.target,
                g.queue,
                g.chosen.len(),
                names(&g.chosen),
                g.peak_before,
                g.peak_after,
                if g.fallback { " (only the vregs marked needs-spill)" } else { "" }
            ),
            AllocEvent::SpillCode { vregs, stores, loads, frame, smem, remat, .. } => {
                let mem = format!(
                    "{} vreg(s) to {}, {stores} store(s), {loads} reload(s), frame {frame} bytes",
                    vregs.len(),
                    if *smem { "SMEM" } else { "LMEM" }
                );
                match remat.as_deref() {
                    Some((remat, recomputed)) => {
                        let re = format!(
                            "{} rematerialized ({}): {recomputed} recomputation(s), no memory",
                            remat.len(),
                            names(remat)
                        );
                        if vregs.is_empty() { format!("spill code: {re}") } else { format!("spill code: {mem}; {re}") }
                    }
                    None => format!("spill code: {mem}"),
                }
            }
            AllocEvent::BitSpill { vregs, stores, restores } => format!(
                "bit-spill: {} predicate(s) kept in general registers ({}): {stores} P2R, {restores} ISETP restore(s)",
                vregs.len(),
                names(vregs)
            ),
            AllocEvent::Relive { insts, vregs, .. } => {
                format!("liveness rebuilt: {insts} instructions, {vregs} vregs")
            }
            AllocEvent::ClassEnd { class, ok, used, attempts, message } => match message {
                Some(m) => format!("class {} failed after {attempts} attempt(s): {m}", class.name()),
                None => format!(
                    "class {} {} with {used} register(s) after {attempts} attempt(s)",
                    class.name(),
                    if *ok { "allocated" } else { "failed" }
                ),
            },
            AllocEvent::Finalize { ok, message } => match message {
                Some(m) => format!("finalize: {m}"),
                None => format!("finalize: {}", if *ok { "allocation committed" } else { "allocation failed" }),
            },
        }
    }
}
