//! Breakpoints and watchpoints: what makes `continue` stop.
//!
//! Kinds: a vreg's assignment (with an optional condition such as `slot >= 32` or
//! `attempt > 0`), a vreg being marked for spilling, an attempt (number, class,
//! NOSPILL/SPILL), a stage, an ABI warning code, allocation failure, a checker fault,
//! and a watchpoint on an allocator state field by offset (`watch +1564`).
//!
//! Under the Chaitin-Briggs allocator (seed 002) `assign %x` stops where select colours
//! %x (`slot` is the colour), `spill %x` where select finds no colour for it (an actual
//! spill), `fail` at a failed finalization, and `iteration [N]` at the start of each
//! (or the N-th) build–colour iteration.

use crate::alloc::AllocEvent;
use crate::alloc::briggs::BriggsEvent;
use crate::engine::event::{Event, EventKind, Stage};
use crate::ir::{Module, RegClass};

/// A comparison in a breakpoint condition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmpOp {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

impl CmpOp {
    pub fn parse(s: &str) -> Option<CmpOp> {
        Some(match s {
            "<" => CmpOp::Lt,
            "<=" => CmpOp::Le,
            ">" => CmpOp::Gt,
            ">=" => CmpOp::Ge,
            "==" | "=" => CmpOp::Eq,
            "!=" => CmpOp::Ne,
            _ => return None,
        })
    }
    pub fn text(self) -> &'static str {
        match self {
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
            CmpOp::Eq => "==",
            CmpOp::Ne => "!=",
        }
    }
    pub fn eval(self, a: i64, b: i64) -> bool {
        match self {
            CmpOp::Lt => a < b,
            CmpOp::Le => a <= b,
            CmpOp::Gt => a > b,
            CmpOp::Ge => a >= b,
            CmpOp::Eq => a == b,
            CmpOp::Ne => a != b,
        }
    }
}

/// Variables a condition may test.
pub const COND_VARS: &[&str] = &["slot", "attempt", "cost", "discarded"];

/// `VAR OP NUMBER` terms joined by `&&`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Condition {
    pub terms: Vec<(String, CmpOp, i64)>,
}

impl Condition {
    pub fn text(&self) -> String {
        self.terms.iter().map(|(v, o, n)| format!("{v} {} {n}", o.text())).collect::<Vec<_>>().join(" && ")
    }
}

/// What a breakpoint stops on.
#[derive(Clone, Debug, PartialEq)]
pub enum BpKind {
    Assign {
        vreg: String,
        cond: Option<Condition>,
    },
    Spill {
        vreg: Option<String>,
    },
    Attempt {
        number: Option<u32>,
        class: Option<RegClass>,
        spill: Option<bool>,
    },
    Stage(Stage),
    Abi(u32),
    Fail,
    Checker,
    Watch {
        offset: u32,
    },
    /// The start of a Chaitin-Briggs iteration (any, or the N-th).
    Iteration {
        number: Option<u32>,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub struct Breakpoint {
    pub id: u32,
    pub kind: BpKind,
    pub enabled: bool,
    pub hits: u32,
    /// Deleted at its first stop (`tbreak`).
    pub temporary: bool,
    /// Hits still to pass over without stopping (`ignore N COUNT`); each passed hit
    /// counts in `hits`, as in gdb.
    pub ignore: u32,
}

impl Breakpoint {
    /// How the breakpoint reads in `info breakpoints`.
    pub fn describe(&self) -> String {
        match &self.kind {
            BpKind::Assign { vreg, cond } => match cond {
                Some(c) => format!("assign {vreg} if {}", c.text()),
                None => format!("assign {vreg}"),
            },
            BpKind::Spill { vreg } => format!("spill {}", vreg.as_deref().unwrap_or("(any)")),
            BpKind::Attempt { number, class, spill } => {
                let mut s = "attempt".to_string();
                if let Some(n) = number {
                    s.push_str(&format!(" {n}"));
                }
                if let Some(c) = class {
                    s.push_str(&format!(" class {}", c.name()));
                }
                if let Some(sp) = spill {
                    s.push_str(if *sp { " SPILL" } else { " NOSPILL" });
                }
                s
            }
            BpKind::Stage(st) => format!("stage {}", st.name()),
            BpKind::Abi(code) => format!("abi {code}"),
            BpKind::Fail => "fail".to_string(),
            BpKind::Checker => "checker".to_string(),
            BpKind::Watch { offset } => format!("watch +{offset}"),
            BpKind::Iteration { number: Some(n) } => format!("iteration {n}"),
            BpKind::Iteration { number: None } => "iteration".to_string(),
        }
    }

    /// Whether an event triggers this (non-watch) breakpoint. `module` names vregs.
    pub fn matches(&self, ev: &Event, prev: Option<&Event>, module: &Module) -> bool {
        if !self.enabled {
            return false;
        }
        let vname = |id: crate::ir::VRegId| {
            ev.func
                .and_then(|f| module.functions.get(f))
                .and_then(|f| f.vregs.get(id.index()))
                .map(|v| v.name.to_string())
                .unwrap_or_default()
        };
        match (&self.kind, &ev.kind) {
            (BpKind::Assign { vreg, cond }, EventKind::Alloc(AllocEvent::Assign(a))) => {
                vname(a.vreg) == *vreg
                    && cond.as_ref().is_none_or(|c| {
                        c.terms.iter().all(|(var, op, n)| {
                            let x = match var.as_str() {
                                "slot" => a.slot.map(i64::from).unwrap_or(-1),
                                "attempt" => a.attempt as i64,
                                "cost" => a.cost as i64,
                                "discarded" => a.discarded as i64,
                                _ => return false,
                            };
                            op.eval(x, *n)
                        })
                    })
            }
            (BpKind::Spill { vreg }, EventKind::Alloc(AllocEvent::Assign(a))) => {
                a.needs_spill && vreg.as_ref().is_none_or(|v| vname(a.vreg) == *v)
            }
            (BpKind::Spill { vreg }, EventKind::Alloc(AllocEvent::Guidance(g))) => {
                !g.chosen.is_empty() && vreg.as_ref().is_none_or(|v| g.chosen.iter().any(|c| vname(*c) == *v))
            }
            (
                BpKind::Attempt { number, class, spill },
                EventKind::Alloc(AllocEvent::AttemptStart { class: c, attempt, spill: s, .. }),
            ) => number.is_none_or(|n| n == *attempt) && class.is_none_or(|k| k == *c) && spill.is_none_or(|x| x == *s),
            (BpKind::Stage(st), _) => {
                ev.stage() == *st && prev.is_none_or(|p| p.stage() != ev.stage() || p.func != ev.func)
            }
            (BpKind::Abi(code), EventKind::AbiCheck { code: c, passed, .. }) => c == code && !passed,
            (BpKind::Fail, EventKind::Alloc(AllocEvent::ClassEnd { ok: false, .. })) => true,
            (BpKind::Fail, EventKind::AbiError { .. }) => true,
            (BpKind::Checker, EventKind::Check { errors }) => !errors.is_empty(),
            (kind, EventKind::Briggs(b)) => briggs_matches(kind, b, &vname),
            _ => false,
        }
    }
}

/// Whether a Chaitin-Briggs event triggers a breakpoint of this kind.
fn briggs_matches(kind: &BpKind, ev: &BriggsEvent, vname: &dyn Fn(crate::ir::VRegId) -> String) -> bool {
    match (kind, ev) {
        (BpKind::Assign { vreg, cond }, BriggsEvent::ColourAssigned { vreg: v, colour, forbidden, members }) => {
            (vname(*v) == *vreg || members.iter().any(|m| vname(*m) == *vreg))
                && cond.as_ref().is_none_or(|c| {
                    c.terms.iter().all(|(var, op, n)| match var.as_str() {
                        "slot" => op.eval(*colour as i64, *n),
                        "discarded" => op.eval(forbidden.len() as i64, *n),
                        _ => false,
                    })
                })
        }
        (BpKind::Spill { vreg }, BriggsEvent::ActualSpill { vreg: v, members, .. }) => {
            vreg.as_ref().is_none_or(|x| vname(*v) == *x || members.iter().any(|m| vname(*m) == *x))
        }
        (BpKind::Iteration { number }, BriggsEvent::IterationStart { n, .. }) => number.is_none_or(|k| k == *n),
        (BpKind::Fail, BriggsEvent::Finalize { ok: false, .. }) => true,
        _ => false,
    }
}
