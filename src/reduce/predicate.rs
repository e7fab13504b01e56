//! What `radbg reduce --until PREDICATE` keeps true: the built-in predicates (`fails`,
//! `checker-fault`, `spills`, `registers > N`, `attempts class R >= N`, `warning 70NN`,
//! `differs-from-ptxas [> K %]`, `allocators-differ`) parsed from their text, and their
//! evaluation on one candidate module.
//!
//! Evaluation steps the pipeline machine itself and stops as soon as the answer is
//! known: a failure in the first class decides `fails` without allocating the rest,
//! the first over-budget `Used N registers` decides `registers > N`. Predicates written
//! in the command language (`script FILE.radbg`, any `expect` condition) are evaluated
//! by the layer that owns the command language and reach this module as an
//! [`External`] closure, so data still flows one way.

use std::sync::Arc;

use crate::engine::breakpoint::CmpOp;
use crate::engine::{AllocatorKind, EventKind, Machine, RunOptions};
use crate::ir::{Module, RegClass};

/// A predicate evaluated by a higher layer (a `.radbg` script, an `expect` condition):
/// the candidate module, whether it came from PTX, and the run options.
pub type External = Arc<dyn Fn(&Module, bool, &RunOptions) -> Result<bool, String> + Send + Sync>;

/// A behaviour the reduced kernel must still show.
#[derive(Clone)]
pub enum Predicate {
    /// Register allocation fails in some function.
    Fails,
    /// The independent checker reports an error in some function.
    CheckerFault,
    /// Some function has spill stores or loads.
    Spills,
    /// Some function's `Used N registers` compares so with N.
    Registers(CmpOp, i64),
    /// Some function's number of attempts in class C compares so with N.
    Attempts(RegClass, CmpOp, i64),
    /// The ABI check with this code (70NN) fails somewhere.
    Warning(u32),
    /// radbg's register count differs from the real ptxas's in some function, by more
    /// than `min_pct` percent of ptxas's count when given (ptxas must accept the PTX).
    /// `keep` (set by [`calibrate`] from the input) is the signed difference (radbg −
    /// ptxas) a candidate must still reach: half the input's, in the same direction —
    /// otherwise every reduction ends at a one-instruction kernel where ptxas deletes the
    /// dead instruction and radbg does not, whatever the input's departure was.
    /// `live` (set by [`calibrate`] when the input departs so with dead code removed
    /// too, radbg's `--dce`): a candidate must depart so with dead code removed as well
    /// — else a reduction of a kernel whose departure is not dead code ended at dead
    /// code whose sources are never written (the qrKernel: ptxas 96, radbg 255 with and
    /// without `--dce`, reduced to 20 instructions whose results nothing reads: ptxas 4,
    /// radbg 84, and 6 with `--dce`), a different cause from the input's.
    DiffersFromPtxas { min_pct: Option<f64>, ptxas: String, keep: Option<i64>, live: bool },
    /// The fat-point and Chaitin-Briggs allocators give different registers, spills or
    /// success on some function.
    AllocatorsDiffer,
    /// Evaluated by the command language (`script FILE`, an `expect` condition).
    External { label: String, eval: External },
}

impl std::fmt::Debug for Predicate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text())
    }
}

/// What a predicate's text asks for before it can be evaluated.
#[derive(Clone, Debug)]
pub enum Parsed {
    /// A built-in predicate (ready, apart from `differs-from-ptxas`'s ptxas path).
    Builtin(Predicate),
    /// `differs-from-ptxas [> K %]`: needs a ptxas to run.
    DiffersFromPtxas(Option<f64>),
    /// `script FILE`: a `.radbg` file that must replay without a failure.
    Script(String),
    /// Anything else: an `expect` condition of the command language.
    Expect(String),
}

/// The built-in predicate words, for help and "did you mean".
pub const BUILTINS: &[&str] = &[
    "fails",
    "checker-fault",
    "spills",
    "registers",
    "attempts",
    "warning",
    "differs-from-ptxas",
    "allocators-differ",
    "script",
];

impl Predicate {
    /// The predicate as the user would write it.
    pub fn text(&self) -> String {
        match self {
            Predicate::Fails => "fails".into(),
            Predicate::CheckerFault => "checker-fault".into(),
            Predicate::Spills => "spills".into(),
            Predicate::Registers(op, n) => format!("registers {} {n}", op.text()),
            Predicate::Attempts(c, op, n) => format!("attempts class {} {} {n}", c.name(), op.text()),
            Predicate::Warning(c) => format!("warning {c}"),
            Predicate::DiffersFromPtxas { min_pct, keep, live, .. } => {
                let mut t = "differs-from-ptxas".to_string();
                if let Some(k) = min_pct {
                    t.push_str(&format!(" > {k} %"));
                }
                let dce = if *live { ", with dead code removed too" } else { "" };
                match keep {
                    Some(k) if *k > 0 => t.push_str(&format!(" (radbg at least {k} over{dce})")),
                    Some(k) => t.push_str(&format!(" (radbg at least {} under{dce})", -k)),
                    None => {}
                }
                t
            }
            Predicate::AllocatorsDiffer => "allocators-differ".into(),
            Predicate::External { label, .. } => label.clone(),
        }
    }

    /// Whether the predicate needs PTX text (the real ptxas reads it).
    pub fn needs_ptx(&self) -> bool {
        matches!(self, Predicate::DiffersFromPtxas { .. })
    }
}

/// Parses a predicate's text. Built-ins are recognised by their first word; any other
/// text is handed on as an `expect` condition (the command language checks it).
pub fn parse(text: &str) -> Result<Parsed, String> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let Some(&first) = words.first() else {
        return Err("--until needs a predicate (fails, spills, registers > N, ...)".into());
    };
    let extra = |n: usize| -> Result<(), String> {
        match words.get(n) {
            Some(w) => Err(format!("unexpected '{w}' after '{}'", words[..n].join(" "))),
            None => Ok(()),
        }
    };
    let cmp = |w: Option<&&str>| -> Result<CmpOp, String> {
        let w = w.ok_or_else(|| format!("'{text}' needs a comparison (== != < <= > >=) and a number"))?;
        CmpOp::parse(w).ok_or_else(|| format!("expected a comparison (== != < <= > >=), found '{w}'"))
    };
    let num = |w: Option<&&str>| -> Result<i64, String> {
        let w = w.ok_or_else(|| format!("'{text}' needs a number"))?;
        w.parse().map_err(|_| format!("expected a number, found '{w}'"))
    };
    Ok(match first {
        "fails" => {
            extra(1)?;
            Parsed::Builtin(Predicate::Fails)
        }
        "checker-fault" => {
            extra(1)?;
            Parsed::Builtin(Predicate::CheckerFault)
        }
        "spills" => {
            extra(1)?;
            Parsed::Builtin(Predicate::Spills)
        }
        "allocators-differ" => {
            extra(1)?;
            Parsed::Builtin(Predicate::AllocatorsDiffer)
        }
        "registers" => {
            extra(3)?;
            Parsed::Builtin(Predicate::Registers(cmp(words.get(1))?, num(words.get(2))?))
        }
        "attempts" => {
            if words.get(1) != Some(&"class") {
                return Err("usage: attempts class R OP N (e.g. attempts class R >= 3)".into());
            }
            extra(5)?;
            let c = words.get(2).ok_or("attempts class needs a register class")?;
            let class = RegClass::from_name(c).ok_or_else(|| format!("unknown register class '{c}' (R UR P ...)"))?;
            Parsed::Builtin(Predicate::Attempts(class, cmp(words.get(3))?, num(words.get(4))?))
        }
        "warning" => {
            extra(2)?;
            let w = words.get(1).ok_or("warning needs a code (7001-7020, 7801)")?;
            let code: u32 = w.parse().map_err(|_| format!("expected a warning code like 7005, found '{w}'"))?;
            if !(7001..=7999).contains(&code) {
                return Err(format!("{code} is not an ABI warning code (7001-7020, 7801)"));
            }
            Parsed::Builtin(Predicate::Warning(code))
        }
        "differs-from-ptxas" => {
            // `differs-from-ptxas`, `... > K %`, `... > K%`.
            let rest = words[1..].join(" ");
            let rest = rest.trim();
            if rest.is_empty() {
                return Ok(Parsed::DiffersFromPtxas(None));
            }
            let k = rest
                .strip_prefix('>')
                .map(|r| r.trim().trim_end_matches('%').trim())
                .ok_or_else(|| format!("usage: differs-from-ptxas [> K %], found '{rest}'"))?;
            let k: f64 = k.parse().map_err(|_| format!("expected a percentage, found '{k}'"))?;
            if !(0.0..=1000.0).contains(&k) {
                return Err(format!("percentage {k} is out of range 0..=1000"));
            }
            Parsed::DiffersFromPtxas(Some(k))
        }
        "script" => {
            extra(2)?;
            let f = words.get(1).ok_or("script needs a .radbg file")?;
            Parsed::Script((*f).to_string())
        }
        _ => Parsed::Expect(text.trim().to_string()),
    })
}

/// Evaluates `pred` on a candidate: its text (PTX for `differs-from-ptxas`), its
/// module, whether it was imported from PTX, and the run options.
pub fn eval(pred: &Predicate, text: &str, module: &Module, opts: &RunOptions) -> Result<bool, String> {
    match pred {
        Predicate::External { eval, .. } => eval(module, opts.imported, opts),
        Predicate::AllocatorsDiffer => {
            let mut a = opts.clone();
            a.allocator = AllocatorKind::FatPoint;
            let mut b = opts.clone();
            b.allocator = AllocatorKind::Briggs;
            Ok(figures(module, &a)? != figures(module, &b)?)
        }
        Predicate::DiffersFromPtxas { min_pct, ptxas, keep, live } => {
            let ours = figures(module, opts)?;
            let sm = opts.sm.clone().unwrap_or_else(|| module.sm.clone()).to_string();
            let budget = opts.maxrregcount;
            let Ok(theirs) = crate::reduce::ptxas::run(ptxas, text, &sm, budget) else {
                // ptxas rejects the candidate: not a kernel that shows the difference.
                return Ok(false);
            };
            if !departs(&ours, &theirs, *min_pct, *keep) {
                return Ok(false);
            }
            // Only then the second run, with dead code removed.
            Ok(!*live || departs(&figures(module, &with_dce(opts))?, &theirs, *min_pct, *keep))
        }
        _ => run_builtin(pred, module, opts),
    }
}

/// `opts` with radbg's dead-code elimination on (`--dce`), as ptxas always does.
pub(crate) fn with_dce(opts: &RunOptions) -> RunOptions {
    let mut o = opts.clone();
    o.dce = true;
    o
}

/// One function's figures from radbg: name, registers, spill bytes, failed.
pub(crate) type Figures = Vec<(String, u32, u32, bool)>;

/// Whether some function departs: radbg failed where ptxas did not, or the register
/// counts differ (by more than `min_pct` % of ptxas's, and at least `keep` signed).
pub(crate) fn departs(
    ours: &Figures,
    theirs: &[crate::why::compare::PtxasFigures],
    min_pct: Option<f64>,
    keep: Option<i64>,
) -> bool {
    ours.iter().any(|(name, regs, _, failed)| {
        let Some(t) = theirs.iter().find(|t| &t.name == name) else { return false };
        let Some(tr) = t.registers else { return *failed };
        if *failed {
            return true;
        }
        let signed = i64::from(*regs) - i64::from(tr);
        let far = match keep {
            Some(k) if k > 0 => signed >= k,
            Some(k) if k < 0 => signed <= k,
            _ => true,
        };
        let wide = match min_pct {
            None => signed != 0,
            Some(k) => signed.abs() as f64 * 100.0 > k * f64::from(tr.max(1)),
        };
        far && wide
    })
}

/// Fixes what `differs-from-ptxas` keeps from the input: half the largest signed
/// difference (radbg − ptxas, at least one register) among the functions that depart
/// by more than the percentage, so the reduced kernel departs the same way. Returns
/// the predicate and, when it ran radbg and ptxas to find out, whether the input
/// shows it (the search then need not run them again), and the function (with its
/// call group) the search first tries alone. Per-function predicates and
/// `differs-from-ptxas` look group by group, smallest first (`focus`), so a large file
/// is never run whole when a part of it shows the predicate; other predicates come
/// back unchanged.
pub fn calibrate(pred: &Predicate, text: &str, module: &Module, opts: &RunOptions) -> Calibrated {
    let none = |p: &Predicate, holds| Calibrated {
        pred: p.clone(),
        holds,
        focus: None,
        group: Vec::new(),
        callees: Vec::new(),
    };
    if is_per_function(pred) {
        return crate::reduce::focus::per_function(pred, module, opts);
    }
    let Predicate::DiffersFromPtxas { min_pct, ptxas, keep: None, .. } = pred else { return none(pred, None) };
    if let Some(c) = crate::reduce::focus::differs(pred, text, module, opts) {
        return c;
    }
    // ptxas rejected a part of the file: the whole file decides.
    let sm = opts.sm.clone().unwrap_or_else(|| module.sm.clone()).to_string();
    let Ok(ours) = figures(module, opts) else { return none(pred, None) };
    let Ok(theirs) = crate::reduce::ptxas::run(ptxas, text, &sm, opts.maxrregcount) else {
        // ptxas rejects the input: nothing that shows the predicate.
        return none(pred, Some(false));
    };
    let (keep, widest) = widest(&ours, &theirs, *min_pct);
    let holds = departs(&ours, &theirs, *min_pct, keep);
    let live = holds && figures(module, &with_dce(opts)).is_ok_and(|d| departs(&d, &theirs, *min_pct, keep));
    Calibrated {
        pred: Predicate::DiffersFromPtxas { min_pct: *min_pct, ptxas: ptxas.clone(), keep, live },
        holds: Some(holds),
        focus: widest,
        group: Vec::new(),
        callees: Vec::new(),
    }
}

/// The widest departure (by more than `min_pct` %) of the functions radbg allocated: the
/// `keep` it gives (half of it, signed, at least one register) and the function's name.
/// The first of the widest, so the choice depends on nothing but the input.
pub(crate) fn widest(
    ours: &Figures,
    theirs: &[crate::why::compare::PtxasFigures],
    min_pct: Option<f64>,
) -> (Option<i64>, Option<String>) {
    let widest = ours
        .iter()
        .filter(|o| !o.3)
        .filter_map(|(name, regs, _, _)| {
            let t = theirs.iter().find(|t| &t.name == name)?.registers?;
            let d = i64::from(*regs) - i64::from(t);
            let wide = min_pct.is_none_or(|k| d.abs() as f64 * 100.0 > k * f64::from(t.max(1)));
            wide.then_some((d, name))
        })
        .fold(None, |best: Option<(i64, &String)>, x| match best {
            Some(b) if b.0.abs() >= x.0.abs() => Some(b),
            _ => Some(x),
        });
    let keep = widest.filter(|d| d.0 != 0).map(|(d, _)| if d > 0 { (d / 2).max(1) } else { (d / 2).min(-1) });
    (keep, widest.map(|(_, n)| n.clone()))
}

/// What [`calibrate`] found.
pub struct Calibrated {
    pub pred: Predicate,
    /// Whether the input shows the predicate, when calibrating ran the pipeline.
    pub holds: Option<bool>,
    /// The function that shows it most.
    pub focus: Option<String>,
    /// The functions of the focus's call group (empty when not known): what the search
    /// keeps when it first tries the focus alone.
    pub group: Vec<String>,
    /// The focus with the functions it calls, transitively, when that is fewer than its
    /// group (else empty): tried before the group.
    pub callees: Vec<String>,
}

/// Registers, spill bytes and failure of every function after a whole run.
pub(crate) fn figures(module: &Module, opts: &RunOptions) -> Result<Figures, String> {
    let mut o = opts.clone();
    o.skip_check = true;
    // Only the statistics are read: each function's working data goes with its run.
    o.batch = true;
    let mut m = Machine::new(module.clone(), o);
    while m.step().is_some() {}
    Ok(m.funcs
        .iter()
        .filter_map(|r| r.stats.as_ref())
        .map(|s| (s.name.to_string(), s.registers, s.spill_stores + s.spill_loads, s.error.is_some()))
        .collect())
}

/// The predicates one function's run decides (so the search can try that function alone
/// first, the way `differs-from-ptxas` focuses on the function that departs most).
fn is_per_function(pred: &Predicate) -> bool {
    matches!(
        pred,
        Predicate::Fails
            | Predicate::CheckerFault
            | Predicate::Spills
            | Predicate::Registers(..)
            | Predicate::Attempts(..)
            | Predicate::Warning(_)
    )
}

/// Runs the pipeline until `pred` is decided.
fn run_builtin(pred: &Predicate, module: &Module, opts: &RunOptions) -> Result<bool, String> {
    Ok(decided_in(pred, module, opts).0)
}

/// Runs the pipeline until `pred` is decided: the answer, and the function whose event
/// decided it.
pub(crate) fn decided_in(pred: &Predicate, module: &Module, opts: &RunOptions) -> (bool, Option<usize>) {
    let mut o = opts.clone();
    // Only `checker-fault` reads the checker; the others skip it (as a sweep row does).
    o.skip_check = !matches!(pred, Predicate::CheckerFault);
    // Only `attempts` reads a function's allocation after its statistics; the others let
    // it go with its run, as `radbg run` does.
    o.batch = !matches!(pred, Predicate::Attempts(..));
    let mut m = Machine::new(module.clone(), o);
    while let Some(ev) = m.step() {
        if let Some(v) = decide(pred, &m, ev.func, &ev.kind) {
            return (v, ev.func);
        }
    }
    (false, None)
}

/// The answer after event `kind` when it settles the predicate (`Some(true)`), else
/// `None`; a run that ends undecided answers false.
fn decide(pred: &Predicate, m: &Machine, func: Option<usize>, kind: &EventKind) -> Option<bool> {
    use crate::alloc::AllocEvent as A;
    let stats = || func.and_then(|fi| m.funcs.get(fi)).and_then(|r| r.stats.as_ref());
    match (pred, kind) {
        (Predicate::Fails, EventKind::Alloc(A::ClassEnd { ok: false, .. } | A::Finalize { ok: false, .. })) => {
            Some(true)
        }
        (Predicate::Fails, EventKind::Stats { .. }) => stats().is_some_and(|s| s.error.is_some()).then_some(true),
        (Predicate::CheckerFault, EventKind::Check { errors }) => (!errors.is_empty()).then_some(true),
        (Predicate::Spills, EventKind::Stats { .. }) => {
            stats().is_some_and(|s| s.spill_stores + s.spill_loads > 0).then_some(true)
        }
        (Predicate::Registers(op, n), EventKind::Stats { .. }) => {
            stats().is_some_and(|s| s.error.is_none() && op.eval(i64::from(s.registers), *n)).then_some(true)
        }
        (Predicate::Attempts(class, op, n), EventKind::Stats { .. }) => {
            let fi = func?;
            let count = crate::engine::query::attempts(m, fi).iter().filter(|r| r.class == *class).count() as i64;
            op.eval(count, *n).then_some(true)
        }
        (Predicate::Warning(code), EventKind::AbiCheck { code: c, passed: false, .. }) => (c == code).then_some(true),
        // Past the ABI stage no warning can come any more.
        (Predicate::Warning(_), EventKind::Budget { .. }) => Some(false),
        _ => None,
    }
}
