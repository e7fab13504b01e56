//! Instruction checks: register references (declared, component in range), guard and
//! address classes, destinations, labels, callees and symbols, and a small table of
//! operand classes and widths for common opcodes (predicate-defining compares,
//! uniform-datapath ops, 64-bit ops).

use std::collections::HashMap;

use super::FnV;
use crate::ir::model::*;
use crate::ir::opcode::{OPCODES, props};
use crate::ir::span::Span;

/// What the class table requires of an opcode's operands.
#[derive(Clone, Copy, PartialEq)]
enum Rule {
    /// Register destinations are predicates (P or UP).
    PredDefs,
    /// Register destinations are not predicates.
    ValueDefs,
    /// Register destinations are in the uniform files (UR or UP).
    UniformDefs,
    /// Destinations and register sources are 64-bit (double precision).
    Wide64,
    /// Register sources are 64-bit.
    Wide64Srcs,
    /// The first source is not a predicate (the register R2P splits into predicates).
    ValueSrc0,
    /// At least one source is a predicate (the predicates P2R packs).
    PredSrc,
}

use Rule::*;

/// Sorted by mnemonic (a test checks the order and that every name is an opcode).
static CLASS_RULES: &[(&str, &[Rule])] = &[
    ("DADD", &[Wide64]),
    ("DFMA", &[Wide64]),
    ("DMUL", &[Wide64]),
    ("DSETP", &[PredDefs, Wide64Srcs]),
    ("FSETP", &[PredDefs]),
    ("ISETP", &[PredDefs]),
    ("P2R", &[ValueDefs, PredSrc]),
    ("PLOP3", &[PredDefs]),
    ("R2P", &[PredDefs, ValueSrc0]),
    ("S2R", &[ValueDefs]),
    ("S2UR", &[UniformDefs, ValueDefs]),
    ("UIADD3", &[UniformDefs]),
    ("UIMAD", &[UniformDefs]),
    ("UISETP", &[PredDefs, UniformDefs]),
    ("ULDC", &[UniformDefs, ValueDefs]),
    ("ULOP3", &[UniformDefs]),
    ("UMOV", &[UniformDefs]),
    ("USEL", &[UniformDefs]),
    ("USHF", &[UniformDefs]),
];

fn rules(mnemonic: &str) -> &'static [Rule] {
    CLASS_RULES.binary_search_by(|(n, _)| n.cmp(&mnemonic)).map_or(&[], |k| CLASS_RULES[k].1)
}

/// The register file and effective width (in 32-bit registers) of a register operand.
fn reg_shape(f: &Function, r: Reg) -> Option<(RegFile, u8, Option<&VReg>)> {
    match r {
        Reg::P(p) => Some((p.file, 1, None)),
        Reg::V(rr) => {
            let v = f.vregs.get(rr.vreg.index())?;
            Some((v.class.file(), if rr.comp.is_some() { 1 } else { v.width }, Some(v)))
        }
    }
}

/// `.x4` for a whole register, "one 32-bit component" for `%q0.2`.
fn shape_text(r: Reg, width: u8) -> String {
    match r {
        Reg::V(RegRef { comp: Some(_), .. }) => "one 32-bit component".to_string(),
        _ => format!(".x{width}"),
    }
}

fn is_pred(file: RegFile) -> bool {
    matches!(file, RegFile::P | RegFile::UP)
}

fn operand_kind(op: &Operand) -> &'static str {
    match op {
        Operand::Reg(_) => "a register",
        Operand::Imm(_) => "an immediate",
        Operand::FImm(_) => "a float immediate",
        Operand::Mem(_) => "an address",
        Operand::CBank { .. } => "a constant-bank operand",
        Operand::Special(_) => "a special register",
        Operand::Sym(_) => "a symbol",
    }
}

impl FnV<'_, '_> {
    pub(super) fn inst(&mut self, b: usize, i: usize, ins: &Inst, labels: &HashMap<&str, usize>) {
        let f = self.f;
        let sp = self.spans.inst(b, i).copied();
        let whole = sp.map(|s| s.span);
        let mnem = sp.map(|s| s.mnemonic).or(whole);
        let opspan = |this: &Self, k: usize| this.spans.operand(b, i, k).or(whole);
        let name = ins.op.mnemonic();
        if !ins.op.is_known() {
            let hint = self.suggest(name, OPCODES.iter().map(|o| o.name));
            let d = self.warn(mnem, format!("unknown mnemonic {name}: radbg treats it as having side effects"));
            if let Some(s) = hint {
                d.help.push(format!("did you mean {s}?"));
            }
        }
        let ndefs = ins.ndefs as usize;
        if ndefs > ins.operands.len() {
            self.err(whole, format!("{name} claims {ndefs} destinations but has {} operands", ins.operands.len()));
            return;
        }
        if let Some(g) = ins.guard {
            let gspan = sp.map(|s| s.guard).or(whole);
            if self.reg_ref(g.reg, gspan) {
                let (file, _, _) = reg_shape(f, g.reg).expect("checked by reg_ref");
                if !is_pred(file) {
                    self.err(
                        gspan,
                        format!(
                            "guard {} must be a predicate (P or UP) register",
                            crate::ir::print::print_reg(f, g.reg)
                        ),
                    );
                }
            }
        }
        for (k, op) in ins.operands.iter().enumerate() {
            let span = opspan(self, k);
            let is_def = k < ndefs;
            match op {
                Operand::Reg(r) => {
                    self.reg_ref(*r, span);
                }
                Operand::Mem(m) => self.mem(m, span),
                _ if is_def => {
                    self.err(
                        span,
                        format!(
                            "destination {} of {name} must be a register or an address, not {}",
                            k + 1,
                            operand_kind(op)
                        ),
                    );
                }
                _ => {}
            }
        }
        self.symbols(ins, labels, &|this: &Self, k| opspan(this, k), whole);
        let info = ins.info();
        if info.is(props::SUSPEND | props::RESUME) && !f.coroutine {
            self.warn(mnem, format!("{name} in {}, which is not a .coroutine", f.name));
        }
        self.class_rules(ins, &|this: &Self, k| opspan(this, k));
        self.width_mods(ins, &|this: &Self, k| opspan(this, k));
    }

    /// A register reference exists and its component is in range; false if not.
    fn reg_ref(&mut self, r: Reg, span: Option<Span>) -> bool {
        let Reg::V(rr) = r else { return true };
        let Some(v) = self.f.vregs.get(rr.vreg.index()) else {
            self.err(span, format!("register id {} is not declared in function {}", rr.vreg.0, self.f.name));
            return false;
        };
        if let Some(c) = rr.comp {
            if v.width == 1 {
                self.err(span, format!("{} is a single 32-bit register: it has no components", v.name))
                    .help
                    .push(format!("write {} without a component", v.name));
                return false;
            }
            if c >= v.width {
                let shown = crate::ir::print::print_reg(self.f, r);
                self.err(span, format!("component {shown} is out of range: {} has {} registers", v.name, v.width));
                return false;
            }
        }
        true
    }

    fn mem(&mut self, m: &MemRef, span: Option<Span>) {
        if m.index.is_some() && m.base.is_none() {
            self.err(span, "address has an index register but no base register");
        }
        for r in [m.base, m.index].into_iter().flatten() {
            if !self.reg_ref(r, span) {
                continue;
            }
            let (file, _, _) = reg_shape(self.f, r).expect("checked by reg_ref");
            if !matches!(file, RegFile::R | RegFile::UR) {
                let shown = crate::ir::print::print_reg(self.f, r);
                self.err(span, format!("address register {shown} must be an R or UR register"));
            }
        }
        let module = self.m;
        if let Some(s) = &m.sym
            && !self.names.globals.contains(&**s)
        {
            let hint = self.suggest(s, module.globals.iter().map(|g| g.name.as_str()));
            let d = self.err(span, format!("unknown variable {s} in address"));
            if let Some(c) = hint {
                d.help.push(format!("did you mean {c}?"));
            }
        }
    }

    /// Branch targets are labels, call targets are functions, other symbols name a
    /// variable, a label or a function.
    fn symbols(
        &mut self,
        ins: &Inst,
        labels: &HashMap<&str, usize>,
        opspan: &dyn Fn(&Self, usize) -> Option<Span>,
        whole: Option<Span>,
    ) {
        let m = self.m;
        let f = self.f;
        let info = ins.info();
        let name = ins.op.mnemonic();
        let syms: Vec<(usize, &str)> = ins
            .operands
            .iter()
            .enumerate()
            .skip(ins.ndefs as usize)
            .filter_map(|(k, op)| match op {
                Operand::Sym(s) => Some((k, &**s)),
                _ => None,
            })
            .collect();
        let label_names = || f.blocks.iter().map(|b| b.label.as_str());
        if info.is(props::BRANCH) {
            if syms.is_empty() {
                self.err(whole, format!("{name} needs a target label"));
            }
            for (k, s) in syms {
                if !labels.contains_key(s) {
                    let span = opspan(self, k);
                    let hint = self.suggest(s, label_names());
                    let d = self.err(span, format!("branch to unknown label {s} in function {}", f.name));
                    if let Some(c) = hint {
                        d.help.push(format!("did you mean {c}?"));
                    }
                }
            }
        } else if info.is(props::CALL) {
            let Some(&(k, callee)) = syms.first() else {
                self.err(whole, format!("{name} needs a target function"));
                return;
            };
            if !self.names.functions.contains(callee) {
                let span = opspan(self, k);
                let hint = self.suggest(callee, m.functions.iter().map(|f| f.name.as_str()));
                let d = self.err(span, format!("call to unknown function {callee}"));
                if let Some(c) = hint {
                    d.help.push(format!("did you mean {c}?"));
                }
            }
        } else {
            for (k, s) in syms {
                let known =
                    labels.contains_key(s) || self.names.globals.contains(s) || self.names.functions.contains(s);
                if !known {
                    let span = opspan(self, k);
                    let all = m.globals.iter().map(|g| g.name.as_str()).chain(label_names());
                    let hint = self.suggest(s, all);
                    let d = self.err(span, format!("unknown symbol {s}: not a variable, label or function"));
                    if let Some(c) = hint {
                        d.help.push(format!("did you mean {c}?"));
                    }
                }
            }
        }
    }

    fn class_rules(&mut self, ins: &Inst, opspan: &dyn Fn(&Self, usize) -> Option<Span>) {
        let f = self.f;
        let name = ins.op.mnemonic();
        let ndefs = ins.ndefs as usize;
        for &rule in rules(name) {
            for (k, op) in ins.operands.iter().enumerate() {
                let Operand::Reg(r) = op else { continue };
                let Some((file, width, _)) = reg_shape(f, *r) else { continue };
                let shown = || crate::ir::print::print_reg(f, *r);
                let is_def = k < ndefs;
                let msg = match rule {
                    PredDefs if is_def && !is_pred(file) => {
                        Some(format!("{name} defines predicates: destination {} must be a P or UP register", shown()))
                    }
                    ValueDefs if is_def && is_pred(file) => {
                        Some(format!("{name} defines a value: destination {} must not be a predicate", shown()))
                    }
                    UniformDefs if is_def && !matches!(file, RegFile::UR | RegFile::UP) => Some(format!(
                        "{name} runs on the uniform datapath: destination {} must be a UR or UP register",
                        shown()
                    )),
                    Wide64 | Wide64Srcs if (rule == Wide64 || !is_def) && !is_pred(file) && width != 2 => {
                        let is = shape_text(*r, width);
                        Some(format!("{name} works on 64-bit values: {} is {is}, expected a pair (.x2)", shown()))
                    }
                    ValueSrc0 if k == ndefs && is_pred(file) => Some(format!(
                        "{name} splits a register into predicates: its source {} must not be a predicate",
                        shown()
                    )),
                    _ => None,
                };
                if let Some(msg) = msg {
                    let span = opspan(self, k);
                    self.err(span, msg);
                }
            }
            if rule == PredSrc {
                let any = ins.uses().iter().any(|op| match op {
                    Operand::Reg(r) => reg_shape(f, *r).is_some_and(|(file, _, _)| is_pred(file)),
                    _ => false,
                });
                if !any {
                    let span = self.spans_whole(ins, opspan);
                    self.err(span, format!("{name} packs predicates into a register: expected a predicate source"));
                }
            }
        }
    }

    fn spans_whole(&self, ins: &Inst, opspan: &dyn Fn(&Self, usize) -> Option<Span>) -> Option<Span> {
        opspan(self, ins.ndefs as usize).or_else(|| opspan(self, 0))
    }

    /// Width modifiers: `.64`/`.128` loads and stores move pairs/quads; `.WIDE`
    /// produces a pair.
    fn width_mods(&mut self, ins: &Inst, opspan: &dyn Fn(&Self, usize) -> Option<Span>) {
        let f = self.f;
        let info = ins.info();
        let name = ins.op.mnemonic();
        let want = if ins.has_mod("128") {
            4
        } else if ins.has_mod("64") {
            2
        } else {
            0
        };
        let check = |this: &mut Self, k: usize, want: u8, why: &str| {
            let Some(Operand::Reg(r)) = ins.operands.get(k) else { return };
            let Some((file, width, Some(_))) = reg_shape(f, *r) else { return };
            if file != RegFile::P && file != RegFile::UP && width != want {
                let shown = crate::ir::print::print_reg(f, *r);
                let span = opspan(this, k);
                let is = shape_text(*r, width);
                this.err(span, format!("{name}{} {why}: {shown} is {is}, expected .x{want}", ins.mods));
            }
        };
        if want > 0 && info.is(props::LOAD) && !info.is(props::STORE) && ins.ndefs > 0 {
            check(self, 0, want, "loads a wider value");
        }
        if want > 0 && info.is(props::STORE) && !info.is(props::LOAD) && ins.operands.len() > ins.ndefs as usize {
            check(self, ins.operands.len() - 1, want, "stores a wider value");
        }
        if ins.has_mod("WIDE") && ins.ndefs > 0 {
            check(self, 0, 2, "produces a 64-bit result");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn class_rules_are_sorted_opcodes() {
        for w in CLASS_RULES.windows(2) {
            assert!(w[0].0 < w[1].0, "{} must sort before {}", w[0].0, w[1].0);
        }
        for (n, _) in CLASS_RULES {
            assert!(crate::ir::opcode::lookup(n).is_some(), "{n} is not in the opcode table");
        }
    }
}
