//! Parameters and calls: `ld.param`/`st.param` of kernel parameters (the constant
//! bank), of a device function's own parameters and return values, and of call-site
//! `.param` variables (registers), and `call` itself.
//!
//! Owns: the copies between PTX parameter bytes and the registers that carry them,
//! and the Ori CALL form (`%r = CALL f, %a0, %a1`; for an indirect call the address
//! register comes first, then the callee symbol). Must not know: how the ABI engine
//! places the registers (`crate::abi`).

use super::abi;
use super::ast::{Inst as AstInst, MemItem, OpKind, Operand as AstOp, Ty};
use super::inst::{is_space, vec_len};
use super::lower::{Binding, Fx};
use super::operand::{Around, RZ, Res, VecMode, comp_of, sel_extract, sel_insert};
use super::ops;
use crate::ir::model::*;

/// Size modifier of a constant-bank load of `bits` bits.
fn size_mod(bits: u32, ty: Option<Ty>) -> String {
    let signed = ty.is_some_and(|t| t.kind == super::ast::TyKind::S);
    match bits {
        8 => if signed { ".S8" } else { ".U8" }.into(),
        16 => if signed { ".S16" } else { ".U16" }.into(),
        64 => ".64".into(),
        128 => ".128".into(),
        256 => ".256".into(),
        _ => String::new(),
    }
}

impl<'a> Fx<'a, '_> {
    /// The parameter named by `[name + offset]`, if the address is that simple.
    fn param_addr(&self, op: &'a AstOp<'a>) -> Option<(&'a str, i64)> {
        let OpKind::Mem(items) = &op.kind else { return None };
        match items.as_slice() {
            [MemItem::Addr { names, offset, .. }] if names.len() == 1 && names[0].1.is_none() => {
                Some((names[0].0, *offset))
            }
            _ => None,
        }
    }

    pub(super) fn ld_param(&mut self, i: &'a AstInst<'a>) {
        let mods = i.mods();
        let guard = self.guard(&i.guard);
        let ty = ops::last_type(&mods);
        let bits = ty.map(|t| t.bits).unwrap_or(32);
        let n = vec_len(&mods);
        // `[%rd4+-88]` with `%rd4` a kernel parameter's address plus a constant reads the
        // bank as `[k_param_0+112]` does (`super::paramptr`) — when the word is inside the
        // parameter; an address outside it stays a load through the register.
        let addr = self.param_addr(&i.ops[1]).map(|(name, off)| {
            if let Some(&(param, base)) = self.param_ptrs.get(name)
                && let Some(at) = base.checked_add(off)
                && let Some(Binding::Kernel { bytes, .. }) = self.lookup(param)
                && u64::try_from(at).is_ok_and(|at| at < bytes)
            {
                (param, at)
            } else {
                (name, off)
            }
        });
        let binding = addr.and_then(|(name, off)| self.lookup(name).map(|b| (b, off)));
        match binding {
            Some((Binding::Kernel { offset, .. }, off)) => {
                let base = u64::from(abi::kernel_param_base(self.ms.sm.version));
                let at = base as i64 + offset as i64 + off;
                let Ok(at) = u32::try_from(at) else {
                    self.error(i.ops[1].pos, "parameter offset out of range");
                    return;
                };
                let mode = if n > 1 { VecMode::Typed(bits) } else { VecMode::Regs };
                let mut around = Around::default();
                let mut defs = Vec::new();
                self.def_op(&i.ops[0], ty, mode, &mut defs, &mut around);
                let mods = size_mod(u32::from(bits) * u32::from(n), ty);
                let inst = self.mk("LDC", mods, defs, vec![Operand::CBank { bank: 0, offset: at }]);
                self.finish(inst, guard, around);
            }
            Some((Binding::Param(slot), off)) => {
                let elems: Vec<&'a AstOp<'a>> = match &i.ops[0].kind {
                    OpKind::Vector(v) => v.iter().collect(),
                    _ => vec![&i.ops[0]],
                };
                for (k, e) in elems.into_iter().enumerate() {
                    let at = off + i64::from(bits / 8).max(1) * k as i64;
                    if matches!(e.kind, OpKind::Sink) {
                        continue;
                    }
                    let mut defs = Vec::new();
                    let mut around = Around::default();
                    self.def_op(e, ty, VecMode::Regs, &mut defs, &mut around);
                    let Some(Operand::Reg(Reg::V(dst))) = defs.first().cloned() else { continue };
                    self.param_copy(slot, at, bits, ParamDir::Load(dst), guard, e.pos);
                }
            }
            _ => {
                // An address in a register: a generic parameter load.
                let mn = if self.kind == super::ast::FuncKind::Entry { "LDC" } else { "LD" };
                let mods = ops::ori_mods(Some("param"), &[], &mods, is_space);
                let mode = if n > 1 { VecMode::Typed(bits) } else { VecMode::Regs };
                let mut around = Around::default();
                let (mut defs, mut uses) = (Vec::new(), Vec::new());
                self.def_op(&i.ops[0], ty, mode, &mut defs, &mut around);
                for op in &i.ops[1..] {
                    self.use_op(op, ty, mode, &mut uses, &mut around);
                }
                let inst = self.mk(mn, mods, defs, uses);
                self.finish(inst, guard, around);
            }
        }
    }

    pub(super) fn st_param(&mut self, i: &'a AstInst<'a>) {
        let mods = i.mods();
        let guard = self.guard(&i.guard);
        let ty = ops::last_type(&mods);
        let bits = ty.map(|t| t.bits).unwrap_or(32);
        let binding = self.param_addr(&i.ops[0]).and_then(|(name, off)| self.lookup(name).map(|b| (b, off)));
        let Some((Binding::Param(slot), off)) = binding else {
            if let Some((Binding::Kernel { .. }, _)) = binding {
                self.error(i.ops[0].pos, "a kernel cannot store to its own parameters");
            } else {
                self.error(i.ops[0].pos, "st.param needs a .param variable (a call argument or return value)");
            }
            return;
        };
        let elems: Vec<&'a AstOp<'a>> = match &i.ops[1].kind {
            OpKind::Vector(v) => v.iter().collect(),
            _ => vec![&i.ops[1]],
        };
        for (k, e) in elems.into_iter().enumerate() {
            let at = off + i64::from(bits / 8).max(1) * k as i64;
            let mut around = Around::default();
            let Some(v) = self.use_scalar(e, ty, &mut around) else { continue };
            for p in around.pre {
                self.emit(p);
            }
            self.param_copy(slot, at, bits, ParamDir::Store(v), guard, e.pos);
        }
    }

    /// Copies `bits` between a register value and a parameter slot at byte `at`.
    fn param_copy(&mut self, slot: usize, at: i64, bits: u16, dir: ParamDir, guard: Option<Guard>, pos: u32) {
        let bytes = u64::from(bits / 8).max(1);
        let size = self.params[slot].bytes;
        if at < 0 || at as u64 + bytes > size {
            self.error(pos, format!("access of {bytes} bytes at offset {at} is outside the {size}-byte parameter"));
            return;
        }
        let at = at as u64;
        let stem = if matches!(dir, ParamDir::Store(_)) { "arg" } else { "rv" };
        let pieces = self.pieces(slot, stem);
        let piece_at = |b: u64| pieces.iter().find(|p| b >= p.2 && b < p.2 + 4 * u64::from(p.1)).copied();
        let mut out = Vec::new();
        if bits >= 32 {
            if !at.is_multiple_of(4) {
                self.error(pos, format!("a {bits}-bit parameter access must be 4-byte aligned (offset {at})"));
                return;
            }
            let words = (bits / 32) as u8;
            // The whole piece at once when the access covers exactly one piece.
            if let Some(p) = piece_at(at)
                && p.2 == at
                && p.1 == words
            {
                match &dir {
                    ParamDir::Load(d) if d.comp.is_none() && self.width_of(d.vreg) == words => {
                        out.push(self.mk(
                            "MOV",
                            String::new(),
                            vec![Operand::Reg(Reg::V(*d))],
                            vec![Operand::vreg(p.0)],
                        ));
                    }
                    ParamDir::Store(Operand::Reg(Reg::V(s))) if s.comp.is_none() && self.width_of(s.vreg) == words => {
                        out.push(self.mk(
                            "MOV",
                            String::new(),
                            vec![Operand::vreg(p.0)],
                            vec![Operand::Reg(Reg::V(*s))],
                        ));
                    }
                    _ => {}
                }
            }
            if out.is_empty() {
                for j in 0..words {
                    let Some(p) = piece_at(at + 4 * u64::from(j)) else { continue };
                    let pr = comp_of(RegRef::whole(p.0), p.1, ((at + 4 * u64::from(j) - p.2) / 4) as u8);
                    match &dir {
                        ParamDir::Load(d) => {
                            let dw = self.width_of(d.vreg);
                            let dd = if d.comp.is_some() || words == 1 { *d } else { comp_of(*d, dw, j) };
                            out.push(self.mk(
                                "MOV",
                                String::new(),
                                vec![Operand::Reg(Reg::V(dd))],
                                vec![Operand::Reg(Reg::V(pr))],
                            ));
                        }
                        ParamDir::Store(v) => {
                            let s = match v {
                                Operand::Imm(_) => self.imm_word(v, j),
                                Operand::Reg(_) => self.word_of(v, j, words),
                                other => other.clone(),
                            };
                            out.push(self.mk("MOV", String::new(), vec![Operand::Reg(Reg::V(pr))], vec![s]));
                        }
                    }
                }
            }
        } else {
            let Some(p) = piece_at(at) else { return };
            let pr = comp_of(RegRef::whole(p.0), p.1, ((at - p.2) / 4) as u8);
            let byte = (at % 4) as u32;
            match dir {
                ParamDir::Load(d) => {
                    out.push(self.mk(
                        "PRMT",
                        String::new(),
                        vec![Operand::Reg(Reg::V(d))],
                        vec![Operand::Reg(Reg::V(pr)), Operand::Imm(sel_extract(byte, bits)), RZ],
                    ));
                }
                ParamDir::Store(v) => {
                    // The first bytes of a word start from zero (so a lone byte
                    // argument reads no undefined register); later ones insert.
                    let old = if byte == 0 { RZ } else { Operand::Reg(Reg::V(pr)) };
                    out.push(self.mk(
                        "PRMT",
                        String::new(),
                        vec![Operand::Reg(Reg::V(pr))],
                        vec![v, Operand::Imm(sel_insert(byte, bits)), old],
                    ));
                }
            }
        }
        for mut m in out {
            m.guard = guard;
            self.emit(m);
        }
    }

    pub(super) fn call(&mut self, i: &'a AstInst<'a>) {
        let mods = i.mods();
        let guard = self.guard(&i.guard);
        let mut ops = i.ops.iter().peekable();
        let rets: &[AstOp<'a>] = match ops.peek().map(|o| &o.kind) {
            Some(OpKind::List(l)) => {
                ops.next();
                l
            }
            _ => &[],
        };
        let Some(target) = ops.next() else {
            self.error(i.pos, "call needs a function");
            return;
        };
        let args: &[AstOp<'a>] = match ops.peek().map(|o| &o.kind) {
            Some(OpKind::List(l)) => {
                ops.next();
                l
            }
            _ => &[],
        };
        // A trailing `.callprototype` or `.calltargets` label says whom an indirect
        // call reaches.
        let via = ops.next();
        let mut around = Around::default();
        let (mut defs, mut uses) = (Vec::new(), Vec::new());
        for r in rets {
            self.call_value(r, "rv", true, &mut defs, &mut around);
        }
        match &target.kind {
            OpKind::Name { name, comp } => match self.lookup(name) {
                Some(Binding::Reg(_)) => {
                    // Indirect: the address register is read; the callee symbol (the
                    // first call target, or a stub carrying the prototype's ABI)
                    // follows it, so the arguments still come right after the symbol.
                    if let Some(Res::Reg(r)) = self.resolve(name, *comp, target.pos) {
                        uses.push(Operand::Reg(Reg::V(r)));
                    }
                    let callee = match via.map(|o| &o.kind) {
                        Some(OpKind::Name { name: l, .. }) => match self.tables.get(l) {
                            Some(t) => t.first().and_then(|(f, _)| self.ms.funcs.get(f).cloned()),
                            None => self.proto_stub(l),
                        },
                        _ => None,
                    };
                    match callee {
                        Some(c) => uses.push(Operand::Sym(c.into())),
                        None => {
                            self.error(target.pos, "an indirect call needs a .callprototype or .calltargets label");
                            return;
                        }
                    }
                }
                _ => match self.ms.funcs.get(name) {
                    Some(f) => uses.push(Operand::Sym(f.clone().into())),
                    None => {
                        self.error(target.pos, format!("call of undeclared function {name}"));
                        return;
                    }
                },
            },
            _ => {
                self.error(target.pos, "expected the function to call");
                return;
            }
        }
        for a in args {
            self.call_value(a, "arg", false, &mut uses, &mut around);
        }
        if defs.len() + uses.len() > 255 {
            self.error(i.pos, "too many call operands after lowering (at most 255)");
            return;
        }
        let mods = ops::ori_mods(None, &[], &mods, |_| false);
        let inst = self.mk("CALL", mods, defs, uses);
        self.finish(inst, guard, around);
    }

    /// One argument or return value of a call: a `.param` (its registers), a register,
    /// or (arguments only) an immediate.
    fn call_value(
        &mut self,
        op: &'a AstOp<'a>,
        stem: &'static str,
        is_def: bool,
        out: &mut Vec<Operand>,
        around: &mut Around,
    ) {
        if let OpKind::Name { name, comp: None } = op.kind
            && let Some(Binding::Param(slot)) = self.lookup(name)
        {
            for p in self.pieces(slot, stem) {
                out.push(Operand::vreg(p.0));
            }
            return;
        }
        if is_def {
            self.def_op(op, None, VecMode::Regs, out, around);
        } else {
            self.use_op(op, None, VecMode::Regs, out, around);
        }
    }
}

/// The direction of a parameter copy.
enum ParamDir {
    Load(RegRef),
    Store(Operand),
}
