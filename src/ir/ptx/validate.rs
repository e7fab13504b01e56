//! PTX that ptxas rejects and the lowering would let through, checked on the syntax tree
//! before lowering (issue 29: `radbg reduce` made such PTX — `cvt.rn.f32.f32` from a
//! narrowed `cvt.rn.f32.f64`, a call with more arguments than its callee has
//! parameters — and the reduced kernel then failed in ptxas).
//!
//! Owns three rules, each matched against ptxas 13.0.88 on hand-made kernels
//! (`tests/ptx_reject/`, `tests/ptx_reject.rs` runs ptxas on them when it is installed):
//! - `cvt`'s rounding modifiers (PTX ISA, `cvt`): integer to integer and float widening
//!   take none; a float of the same type takes only an integer rounding (`.rni` ...);
//!   float narrowing and integer to float need a float rounding (`.rn` ...); float to
//!   integer needs an integer rounding. ptxas: "Illegal rounding modifier" / "Rounding
//!   modifier required for instruction 'cvt'".
//! - A direct call passes as many arguments and takes as many return values as the
//!   callee declares. ptxas: "Call has wrong number of parameters".
//! - A register operand's declared type fits the instruction's type (PTX ISA, "Type
//!   Information for Instructions and Operands"): the same size, and a float type only
//!   with a float or bit-size register, an integer type only with an integer or
//!   bit-size register, `.pred` only with a predicate; `ld`, `st` and `cvt` relax the
//!   size of integer and bit-size registers to "at least as wide"; the elements of a
//!   vector operand all have the same size. ptxas: "Arguments mismatch for instruction
//!   'add'", "Incompatible elements of vector expression".
//! - A `.func` declared without `.extern` is defined in the module, called or not
//!   (`radbg reduce` deleted definitions and left their prototypes). ptxas, with or
//!   without `-c`: "Unresolved extern function 'f'"; an `.extern` prototype is left to
//!   ptxas (legal with `-c`, and without it when nothing calls it).
//!
//! Must not reject PTX ptxas accepts: every rule applies only where its shape is plain
//! (known type words and modifiers, operands that are declared scalar registers) and
//! says nothing otherwise — special registers, parameters, symbols, immediates, packed
//! and narrow float formats, vector registers and indirect calls are left to ptxas.

use std::collections::HashMap;

use super::ast::{FuncDecl, FuncKind, Inst, Item, OpKind, Operand, PtxModule, StateSpace, Stmt, Ty, TyKind};
use super::ops;
use crate::ir::diag::Diagnostic;
use crate::ir::span::Span;

/// At most this many errors from the checks (the rest would repeat the first).
const MAX_ERRORS: usize = 20;

/// The problems of `ast` (empty when none), at the offending instruction or operand.
pub fn check(src: &str, ast: &PtxModule<'_>) -> Vec<Diagnostic> {
    let mut sigs: HashMap<&str, (usize, usize)> = HashMap::new();
    for item in &ast.items {
        if let Item::Func(f) = item {
            sigs.insert(f.name, (f.rets.len(), f.params.len()));
        }
    }
    let mut c = Checker { src, sigs, scopes: Vec::new(), out: Vec::new() };
    let defined: std::collections::HashSet<&str> = ast
        .items
        .iter()
        .filter_map(|it| match it {
            Item::Func(f) if f.body.is_some() => Some(f.name),
            _ => None,
        })
        .collect();
    for item in &ast.items {
        if let Item::Func(f) = item {
            if f.body.is_none() && !f.external && f.kind == FuncKind::Func && !defined.contains(f.name) {
                c.error(
                    f.name_pos,
                    f.name.len(),
                    format!(
                        "function {} is declared but never defined (ptxas: Unresolved extern function; \
                         declare it .extern if it is defined elsewhere)",
                        f.name
                    ),
                );
            }
            c.func(f);
        }
    }
    c.out
}

/// Register declarations in scope: exact names, and `%r<N>` ranges by prefix
/// (`None`: a vector register or a type these rules do not judge).
#[derive(Default)]
struct Scope<'a> {
    names: HashMap<&'a str, Option<Ty>>,
    ranges: HashMap<&'a str, Option<Ty>>,
}

struct Checker<'a, 's> {
    src: &'s str,
    sigs: HashMap<&'a str, (usize, usize)>,
    scopes: Vec<Scope<'a>>,
    out: Vec<Diagnostic>,
}

/// How an operand's register type must fit the instruction type.
#[derive(Clone, Copy, PartialEq)]
enum Fit {
    /// The same size; float with float or bit-size, integer with integer or bit-size.
    Exact,
    /// `ld`, `st`, `cvt`: integer and bit-size registers may be wider.
    Relaxed,
}

fn kind_name(t: Ty) -> String {
    let k = match t.kind {
        TyKind::B => "b",
        TyKind::S => "s",
        TyKind::U => "u",
        TyKind::F => "f",
        TyKind::Pred => return ".pred".into(),
        TyKind::OtherFloat | TyKind::Opaque => "?",
    };
    format!(".{k}{}", t.bits)
}

/// Whether a register of type `reg` may stand where the instruction works on `want`;
/// `None` when the rules do not judge these types.
fn fits(reg: Ty, want: Ty, fit: Fit) -> Option<bool> {
    use TyKind::*;
    let judged = |t: Ty| matches!(t.kind, B | S | U | F | Pred);
    if !judged(reg) || !judged(want) {
        return None;
    }
    if reg.kind == Pred || want.kind == Pred {
        return (fit == Fit::Exact).then_some(reg.kind == want.kind);
    }
    let kinds = match want.kind {
        F => matches!(reg.kind, F | B),
        S | U => matches!(reg.kind, S | U | B),
        _ => true,
    };
    let size = match (fit, reg.kind) {
        (Fit::Relaxed, B | S | U) => reg.bits >= want.bits,
        _ => reg.bits == want.bits,
    };
    Some(kinds && size)
}

/// The rounding modifiers of `cvt`, and whether every other modifier is one the rule knows.
struct Rounding<'m> {
    float: Option<&'m str>,
    int: Option<&'m str>,
    plain: bool,
}

fn rounding<'m>(mods: &[&'m str]) -> Rounding<'m> {
    let mut r = Rounding { float: None, int: None, plain: true };
    for &m in mods {
        match m {
            "rn" | "rz" | "rm" | "rp" => r.float = Some(m),
            "rni" | "rzi" | "rmi" | "rpi" => r.int = Some(m),
            "ftz" | "sat" => {}
            _ if Ty::from_name(m).is_some() => {}
            _ => r.plain = false,
        }
    }
    r
}

impl<'a> Checker<'a, '_> {
    fn error(&mut self, pos: u32, len: usize, msg: String) {
        if self.out.len() < MAX_ERRORS {
            let lo = (pos as usize).min(self.src.len());
            let hi = (lo + len).min(self.src.len());
            self.out.push(Diagnostic::error(Span::new(lo, hi), msg));
        }
    }

    fn inst_error(&mut self, i: &Inst<'_>, msg: String) {
        self.error(i.pos, (i.end.saturating_sub(i.pos)) as usize, msg);
    }

    fn func(&mut self, f: &FuncDecl<'a>) {
        let Some(body) = &f.body else { return };
        self.scopes.clear();
        self.block(body);
    }

    fn block(&mut self, stmts: &[Stmt<'a>]) {
        self.scopes.push(Scope::default());
        for st in stmts {
            match st {
                Stmt::Decl(d) if d.space == StateSpace::Reg => {
                    let ty = (d.vec == 1).then_some(d.ty);
                    if let Some(scope) = self.scopes.last_mut() {
                        for n in &d.names {
                            if n.range.is_some() {
                                scope.ranges.insert(n.name, ty);
                            } else {
                                scope.names.insert(n.name, ty);
                            }
                        }
                    }
                }
                Stmt::Block(inner, _) => self.block(inner),
                Stmt::Inst(i) => self.inst(i),
                _ => {}
            }
        }
        self.scopes.pop();
    }

    /// The declared type of register `name`, innermost scope first (`%r12` is in the
    /// range `%r<N>`); `None` for anything else or a type the rules do not judge.
    fn reg_ty(&self, name: &str) -> Option<Ty> {
        let stem = name.trim_end_matches(|c: char| c.is_ascii_digit());
        let numbered = stem.len() < name.len();
        for s in self.scopes.iter().rev() {
            if let Some(t) = s.names.get(name) {
                return *t;
            }
            if numbered && let Some(t) = s.ranges.get(stem) {
                return *t;
            }
        }
        None
    }

    /// Whether `name` is a register declared in scope (of any type).
    fn declared(&self, name: &str) -> bool {
        let stem = name.trim_end_matches(|c: char| c.is_ascii_digit());
        self.scopes
            .iter()
            .any(|s| s.names.contains_key(name) || (stem.len() < name.len() && s.ranges.contains_key(stem)))
    }

    /// Checks one operand (a register, or each element of a vector) against `want`.
    fn operand(&mut self, i: &Inst<'_>, op: &Operand<'_>, want: Ty, fit: Fit) {
        match &op.kind {
            OpKind::Name { name, comp: None } => {
                let Some(reg) = self.reg_ty(name) else { return };
                if fits(reg, want, fit) == Some(false) {
                    let msg = format!(
                        "arguments mismatch for instruction '{}': {name} is {}, the instruction works on {} (ptxas rejects it)",
                        i.base,
                        kind_name(reg),
                        kind_name(want)
                    );
                    self.error(op.pos, name.len(), msg);
                }
            }
            OpKind::Vector(elems) => {
                let tys: Vec<(Ty, &Operand<'_>)> = elems
                    .iter()
                    .filter_map(|e| match &e.kind {
                        OpKind::Name { name, comp: None } => self.reg_ty(name).map(|t| (t, e)),
                        _ => None,
                    })
                    .collect();
                if let Some(&(first, _)) = tys.first()
                    && let Some(&(other, e)) = tys.iter().find(|(t, _)| t.bits != first.bits)
                {
                    let msg = format!(
                        "incompatible elements of vector expression: {} and {} registers in one vector (ptxas rejects it)",
                        kind_name(first),
                        kind_name(other)
                    );
                    self.error(e.pos, 1, msg);
                    return;
                }
                for e in elems {
                    self.operand(i, e, want, fit);
                }
            }
            _ => {}
        }
    }

    fn inst(&mut self, i: &Inst<'_>) {
        let mods = i.mods();
        match i.base {
            "cvt" => self.cvt(i, &mods),
            "call" => self.call(i),
            "ld" | "ldu" | "st" => {
                let Some(want) = ops::last_type(&mods) else { return };
                let value = if i.base == "st" { i.ops.last() } else { i.ops.first() };
                if let Some(v) = value
                    && i.ops.len() == 2
                {
                    self.operand(i, v, want, Fit::Relaxed);
                }
            }
            "add" | "sub" | "mul" | "mad" | "fma" | "div" | "rem" | "min" | "max" | "neg" | "abs" | "and" | "or"
            | "xor" | "not" | "cnot" | "mov" | "cvta" => {
                // One operation type for every operand (not `.wide`, whose result is
                // twice as wide; not `mov`'s packing forms, whose vectors are checked
                // by nothing here).
                let mut types = ops::types(&mods);
                let (Some(want), None) = (types.next(), types.next()) else { return };
                if mods.contains(&"wide") || i.ops.iter().any(|o| matches!(o.kind, OpKind::Vector(_))) {
                    return;
                }
                for op in &i.ops {
                    self.operand(i, op, want, Fit::Exact);
                }
            }
            "setp" | "selp" => {
                let mut types = ops::types(&mods);
                let (Some(want), None) = (types.next(), types.next()) else { return };
                let pred = Ty { kind: TyKind::Pred, bits: 1 };
                let (data, preds): (&[usize], &[usize]) =
                    if i.base == "setp" { (&[1, 2], &[3]) } else { (&[0, 1, 2], &[3]) };
                for &k in data {
                    if let Some(op) = i.ops.get(k) {
                        self.operand(i, op, want, Fit::Exact);
                    }
                }
                for &k in preds {
                    if let Some(op) = i.ops.get(k) {
                        self.operand(i, op, pred, Fit::Exact);
                    }
                }
            }
            "shl" | "shr" => {
                let mut types = ops::types(&mods);
                let (Some(want), None) = (types.next(), types.next()) else { return };
                for op in i.ops.iter().take(2) {
                    self.operand(i, op, want, Fit::Exact);
                }
                // The shift amount is always `.u32`.
                if let Some(op) = i.ops.get(2) {
                    self.operand(i, op, Ty { kind: TyKind::U, bits: 32 }, Fit::Exact);
                }
            }
            _ => {}
        }
    }

    fn cvt(&mut self, i: &Inst<'_>, mods: &[&str]) {
        let tys: Vec<Ty> = ops::types(mods).collect();
        let [dst, src] = tys[..] else { return };
        let scalar = |t: Ty| matches!(t.kind, TyKind::S | TyKind::U | TyKind::F);
        if !scalar(dst) || !scalar(src) || i.ops.len() != 2 {
            return;
        }
        let r = rounding(mods);
        if r.plain {
            let (df, sf) = (dst.kind == TyKind::F, src.kind == TyKind::F);
            let which = format!("cvt.{}.{}", &kind_name(dst)[1..], &kind_name(src)[1..]);
            // (float rounding allowed, required; integer rounding allowed, required)
            let (fa, fr, ia, ir) = match (df, sf) {
                (false, false) => (false, false, false, false),
                (true, true) if dst.bits == src.bits => (false, false, true, false),
                (true, true) if dst.bits < src.bits => (true, true, false, false),
                (true, true) => (false, false, false, false),
                (false, true) => (false, false, true, true),
                (true, false) => (true, true, false, false),
            };
            let bad = match (r.float, r.int) {
                (Some(m), _) if !fa => Some(format!("illegal rounding modifier '.{m}' for {which} (ptxas rejects it)")),
                (_, Some(m)) if !ia => Some(format!("illegal rounding modifier '.{m}' for {which} (ptxas rejects it)")),
                (None, _) if fr => Some(format!(
                    "rounding modifier required for {which}: one of .rn, .rz, .rm, .rp (ptxas rejects it)"
                )),
                (_, None) if ir => Some(format!(
                    "rounding modifier required for {which}: one of .rni, .rzi, .rmi, .rpi (ptxas rejects it)"
                )),
                _ => None,
            };
            if let Some(msg) = bad {
                self.inst_error(i, msg);
                return;
            }
        }
        self.operand(i, &i.ops[0], dst, Fit::Relaxed);
        self.operand(i, &i.ops[1], src, Fit::Relaxed);
    }

    /// A direct call's return values and arguments against the callee's declaration.
    fn call(&mut self, i: &Inst<'_>) {
        let mut ops = i.ops.iter().peekable();
        let rets = match ops.peek().map(|o| &o.kind) {
            Some(OpKind::List(l)) => {
                ops.next();
                l.len()
            }
            _ => 0,
        };
        let Some(target) = ops.next() else { return };
        let OpKind::Name { name, comp: None } = target.kind else { return };
        // An indirect call (through a register) has a prototype, not a declaration.
        if self.declared(name) {
            return;
        }
        let args = match ops.peek().map(|o| &o.kind) {
            Some(OpKind::List(l)) => l.len(),
            _ => 0,
        };
        let Some(&(want_rets, want_args)) = self.sigs.get(name) else { return };
        if (rets, args) != (want_rets, want_args) {
            let msg = format!(
                "call has wrong number of parameters: {name} takes {want_args} argument{} and returns {want_rets} value{}, the call passes {args} and takes {rets} (ptxas rejects it)",
                if want_args == 1 { "" } else { "s" },
                if want_rets == 1 { "" } else { "s" },
            );
            self.inst_error(i, msg);
        }
    }
}
