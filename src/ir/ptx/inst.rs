//! Instructions: one PTX instruction becomes one Ori instruction (plus the copies its
//! operands need), with the PTX line as origin.
//!
//! Owns: the instructions with their own rules — `mov` (special registers, packing,
//! 64-bit constants), `ld`/`st` (state spaces), `ret`, `exit`, `bra`, `brx` — and
//! the generic path driven by the role table of `ops`; `.param` accesses and `call`
//! are in `call`. Must not know: scopes or blocks (`lower`).
//!
//! Parameters: a kernel's `ld.param` reads `c[0x0][BASE + offset]` (BASE per target,
//! see `abi::kernel_param_base`); a device function's `ld.param` of its own parameter
//! is a MOV from the bound vreg, its `st.param` of the return value a MOV into the
//! bound return vreg; at a call site the `st.param`s fill fresh `%argN` vregs that
//! become the CALL's sources, and the returned `%rvN` vregs its destinations, read by
//! the `ld.param`s after it.

use super::ast::{Inst as AstInst, Lit, OpKind, Operand as AstOp, Ty};
use super::lower::Fx;
use super::operand::{Around, RZ, Res, VecMode, comp_of, sel_extract, sel_insert};
use super::ops::{self, Role};
use crate::ir::model::*;

/// The vector length of a `.v2`/`.v4`/`.v8` modifier, 1 without one.
pub(super) fn vec_len(mods: &[&str]) -> u8 {
    mods.iter().find_map(|m| m.strip_prefix('v').and_then(|d| d.parse::<u8>().ok())).unwrap_or(1)
}

pub(super) fn space_base(mods: &[&str]) -> Option<&'static str> {
    let s = ops::space_of(mods)?;
    Some(match ops::space_base(s) {
        "global" => "global",
        "shared" => "shared",
        "local" => "local",
        "const" => "const",
        "param" => "param",
        "tex" => "tex",
        _ => "generic",
    })
}

pub(super) fn is_space(m: &str) -> bool {
    matches!(ops::space_base(m), "global" | "shared" | "local" | "const" | "param" | "generic")
}

/// An instruction kind's lowering by the generic path ([`Fx::generic`]): the opcode
/// mapping, the operand type for immediates, how vector elements are sized, and the Ori
/// modifiers.
pub(super) struct Shape<'a> {
    map: ops::Mapping<'a>,
    ty: Option<Ty>,
    mode: VecMode,
    mods: crate::ir::Mods,
}

impl<'a> Fx<'a, '_> {
    /// Lowers one instruction.
    pub fn inst(&mut self, i: &'a AstInst<'a>) {
        match i.base {
            "mov" => self.mov(i),
            "ld" | "ldu" => self.load(i),
            "st" => self.store(i),
            "call" => self.call(i),
            "ret" | "exit" => self.leave(i),
            "bra" => self.branch(i),
            "brx" => self.branch_indirect(i),
            _ => self.generic(i),
        }
    }

    /// Emits the copies before, the instruction, then the copies after (guarded like it).
    pub(super) fn finish(&mut self, mut inst: Inst, guard: Option<Guard>, around: Around) {
        for p in around.pre {
            self.emit(p);
        }
        inst.guard = guard;
        self.emit(inst);
        for mut p in around.post {
            p.guard = guard;
            self.emit(p);
        }
    }

    /// Builds the instruction from its operands (destinations first) and emits it
    /// with its copies; more than 255 operands is an error (the Ori limit).
    #[allow(clippy::too_many_arguments)]
    fn finish_ops(
        &mut self,
        mnemonic: &str,
        mods: impl Into<crate::ir::Mods>,
        operands: Vec<Operand>,
        ndefs: usize,
        guard: Option<Guard>,
        around: Around,
        pos: u32,
    ) {
        if operands.len() > 255 {
            self.error(pos, "too many operands after lowering (at most 255)");
            return;
        }
        let op = match self.opcodes.get(mnemonic) {
            Some(op) => *op,
            None => {
                let op = crate::ir::opcode::Opcode::from_mnemonic(mnemonic);
                self.opcodes.insert(mnemonic.to_string(), op);
                op
            }
        };
        let inst =
            Inst { guard: None, op, mods: mods.into(), operands: operands.into(), ndefs: ndefs as u8, origin: None };
        self.finish(inst, guard, around);
    }

    /// What [`Fx::generic`] derives from an instruction's opcode and modifiers alone,
    /// made once per distinct (opcode, modifier text) of the function.
    fn shape(&self, i: &'a AstInst<'a>) -> Shape<'a> {
        let mods = i.mods();
        let map = ops::map_with(i.base, &mods);
        let first = ops::types(&mods).next();
        let last = ops::last_type(&mods);
        // The operand type for immediates: cvt reads its source type.
        let ty = if i.base == "cvt" { ops::types(&mods).nth(1).or(first) } else { last };
        let vty = if matches!(i.base, "tex" | "tld4" | "suld" | "sust" | "sured") { first } else { last };
        let mode = match (vec_len(&mods), vty) {
            (n, Some(t)) if n > 1 => VecMode::Typed(t.bits),
            _ => VecMode::Regs,
        };
        let extra: &[&str] =
            if self.ms.addr64 && matches!(map.mnemonic.as_ref(), "ATOMG" | "RED" | "ATOM") { &["E"] } else { &[] };
        let drop_space = matches!(i.base, "atom" | "red" | "wmma");
        // `.wide` of 16-bit sources yields 32 bits: an ordinary multiply (Ori's `.WIDE`
        // means a 64-bit result).
        let narrow_wide = last.is_some_and(|t| t.bits <= 16);
        let ori = ops::ori_mods(map.tag, extra, &mods, |m| (drop_space && is_space(m)) || (narrow_wide && m == "wide"));
        Shape { map, ty, mode, mods: ori.into() }
    }

    fn generic(&mut self, i: &'a AstInst<'a>) {
        // The modifiers' split, the opcode mapping, the types and the Ori modifiers
        // depend on the opcode and its modifier text alone: looked up, not remade, for
        // every instruction after the first of its kind (issue 25: ~130 M instructions
        // of importing the scale kernel, whose 99.5k instructions have a few dozen kinds).
        let key = (i.base, i.mods_text);
        let shape = match self.shapes.get(&key) {
            Some(s) => s.clone(),
            None => {
                let s = std::rc::Rc::new(self.shape(i));
                self.shapes.insert(key, s.clone());
                s
            }
        };
        let map = &shape.map;
        if !map.known {
            self.warn(
                i.pos,
                format!(
                    "unknown PTX instruction '{}': imported as {} with operand 0 written and the rest read",
                    i.base, map.mnemonic
                ),
            );
        }
        let guard = self.guard(&i.guard);
        let (ty, mode) = (shape.ty, shape.mode);
        let mut around = Around::default();
        // Destinations first, then sources, in one vector.
        let mut opv = Vec::with_capacity(i.ops.len() + 1);
        let mut ndefs = 0;
        let first_def = map.role != Role::NoDef && i.ops.first().is_some_and(|o| self.is_def_shaped(o));
        for (k, op) in i.ops.iter().enumerate() {
            if k == 0 && first_def {
                if map.role == Role::DefUse {
                    let mut uses = Vec::new();
                    self.inout(op, mode, &mut opv, &mut uses, &mut around);
                    ndefs = opv.len();
                    opv.extend(uses);
                } else {
                    self.def_op(op, ty, mode, &mut opv, &mut around);
                    ndefs = opv.len();
                }
            } else {
                self.use_op(op, ty, mode, &mut opv, &mut around);
            }
        }
        self.finish_ops(&map.mnemonic, shape.mods, opv, ndefs, guard, around, i.pos);
    }

    fn mov(&mut self, i: &'a AstInst<'a>) {
        let mods = i.mods();
        let guard = self.guard(&i.guard);
        let [d, a] = &i.ops[..] else {
            self.error(i.pos, "mov takes a destination and a source");
            return;
        };
        let ty = ops::last_type(&mods);
        let mods = ops::ori_mods(None, &[], &mods, |_| false);
        let mut around = Around::default();
        match (&d.kind, &a.kind) {
            (OpKind::Vector(dst), OpKind::Vector(src)) => {
                // Vector to vector (a permutation, possibly of the same registers):
                // through temporaries, so no element is overwritten before it is read.
                let bits = ty.map(|t| t.bits).unwrap_or(32);
                let packed = self.pack(src, ty, VecMode::Typed(bits), &mut around);
                let fresh = self.unpack(dst, ty, VecMode::Typed(bits), &mut around);
                for p in std::mem::take(&mut around.pre) {
                    self.emit(p);
                }
                if fresh.len() == packed.len() {
                    for (f, p) in fresh.into_iter().zip(packed) {
                        let mut m = self.mk("MOV", mods.clone(), vec![f], vec![p]);
                        m.guard = guard;
                        self.emit(m);
                    }
                } else {
                    self.error(d.pos, "the two vectors of mov differ in size");
                }
                for mut p in std::mem::take(&mut around.post) {
                    p.guard = guard;
                    self.emit(p);
                }
            }
            (OpKind::Vector(elems), _) => {
                // Unpack: `mov.b64 {%r1, %r2}, %rd1`.
                let bits = ty.map(|t| u32::from(t.bits)).unwrap_or(32) / elems.len().max(1) as u32;
                let Some(src) = self.use_scalar(a, ty, &mut around) else { return };
                for e in &around.pre {
                    self.emit(e.clone());
                }
                around.pre.clear();
                self.split_value(elems, bits as u16, &src, guard);
            }
            (_, OpKind::Vector(elems)) => {
                // Pack: `mov.b64 %rd1, {%r1, %r2}`.
                let bits = ty.map(|t| u32::from(t.bits)).unwrap_or(32) / elems.len().max(1) as u32;
                let mut defs = Vec::new();
                self.def_op(d, ty, VecMode::Regs, &mut defs, &mut around);
                let Some(Operand::Reg(Reg::V(dst))) = defs.first().cloned() else { return };
                self.join_value(dst, elems, bits as u16, ty, guard);
            }
            (_, OpKind::Name { name, comp }) => {
                let mut defs = Vec::new();
                self.def_op(d, ty, VecMode::Regs, &mut defs, &mut around);
                match self.resolve(name, *comp, a.pos) {
                    Some(Res::Special(sr, wide)) => {
                        let mn = if wide { "CS2R" } else { "S2R" };
                        let inst = self.mk(mn, String::new(), defs, vec![Operand::Special(sr.into())]);
                        self.finish(inst, guard, around);
                    }
                    Some(Res::Reg(r)) => {
                        let inst = self.mk("MOV", mods, defs, vec![Operand::Reg(Reg::V(r))]);
                        self.finish(inst, guard, around);
                    }
                    Some(Res::Sym(s)) => {
                        let inst = self.mk("MOV", mods, defs, vec![Operand::Sym(s.into())]);
                        self.finish(inst, guard, around);
                    }
                    Some(Res::Param) => {
                        let s = self.param_global(name);
                        let inst = self.mk("MOV", mods, defs, vec![Operand::Sym(s.into())]);
                        self.finish(inst, guard, around);
                    }
                    None => {}
                }
            }
            (_, OpKind::Imm(lit)) => {
                let mut defs = Vec::new();
                self.def_op(d, ty, VecMode::Regs, &mut defs, &mut around);
                let Some(Operand::Reg(Reg::V(dst))) = defs.first().cloned() else { return };
                let wide = self.width_of(dst.vreg) >= 2 && dst.comp.is_none();
                let bits64 = match *lit {
                    Lit::Int(v) if wide && !(i64::from(i32::MIN)..=i64::from(i32::MAX)).contains(&v) => Some(v as u64),
                    Lit::F64(b) if wide => Some(b),
                    Lit::Float(x) if wide && ty.is_some_and(|t| t.is_float()) => Some(x.to_bits()),
                    Lit::F32(b) if wide && ty.is_some_and(|t| t.bits == 64) => {
                        Some(f64::from(f32::from_bits(b)).to_bits())
                    }
                    _ => None,
                };
                match bits64 {
                    // A 64-bit constant: two component moves into .lo and .hi.
                    Some(bits) => {
                        for (k, half) in [bits as u32, (bits >> 32) as u32].into_iter().enumerate() {
                            let r = RegRef { vreg: dst.vreg, comp: Some(k as u8) };
                            let mut m = self.mk(
                                "MOV",
                                mods.clone(),
                                vec![Operand::Reg(Reg::V(r))],
                                vec![Operand::Imm(i64::from(half))],
                            );
                            m.guard = guard;
                            self.emit(m);
                        }
                    }
                    None => {
                        let src = self.imm(*lit, ty, &mut around);
                        let inst = self.mk("MOV", mods, defs, vec![src]);
                        self.finish(inst, guard, around);
                    }
                }
            }
            _ => {
                let mut defs = Vec::new();
                self.def_op(d, ty, VecMode::Regs, &mut defs, &mut around);
                let mut uses = Vec::new();
                self.use_op(a, ty, VecMode::Regs, &mut uses, &mut around);
                let inst = self.mk("MOV", mods, defs, uses);
                self.finish(inst, guard, around);
            }
        }
    }

    /// `mov {a, b}, x`: element k of `bits` bits from `src`.
    fn split_value(&mut self, elems: &'a [AstOp<'a>], bits: u16, src: &Operand, guard: Option<Guard>) {
        for (k, e) in elems.iter().enumerate() {
            let mut defs = Vec::new();
            let mut around = Around::default();
            self.def_op(e, None, VecMode::Regs, &mut defs, &mut around);
            let Some(Operand::Reg(Reg::V(dst))) = defs.first().cloned() else { continue };
            let bit = u32::from(bits) * k as u32;
            let mut out = Vec::new();
            if bits >= 32 {
                let words = (bits / 32) as u8;
                let dw = self.width_of(dst.vreg);
                for j in 0..words {
                    let word = (bit / 32) as u8 + j;
                    let s = self.word_of(src, word, 2);
                    let s = match (src, s) {
                        (Operand::Imm(_), _) => self.imm_word(src, word),
                        (_, s) => s,
                    };
                    let d = if dst.comp.is_some() || words == 1 { dst } else { comp_of(dst, dw, j) };
                    out.push(self.mk("MOV", String::new(), vec![Operand::Reg(Reg::V(d))], vec![s]));
                }
            } else {
                let s = self.word_of(src, (bit / 32) as u8, 2);
                let sel = sel_extract((bit % 32) / 8, bits);
                out.push(self.mk(
                    "PRMT",
                    String::new(),
                    vec![Operand::Reg(Reg::V(dst))],
                    vec![s, Operand::Imm(sel), RZ],
                ));
            }
            for mut m in out {
                m.guard = guard;
                self.emit(m);
            }
        }
    }

    /// Word `w` of an immediate (a 64-bit value's high word is its sign extension).
    pub(super) fn imm_word(&self, v: &Operand, w: u8) -> Operand {
        match v {
            Operand::Imm(x) => {
                let x = *x as u64;
                Operand::Imm(i64::from((x >> (32 * u32::from(w.min(1)))) as u32))
            }
            o => o.clone(),
        }
    }

    /// `mov x, {a, b}`: element k of `bits` bits into `dst`.
    fn join_value(&mut self, dst: RegRef, elems: &'a [AstOp<'a>], bits: u16, ty: Option<Ty>, guard: Option<Guard>) {
        let dw = self.width_of(dst.vreg);
        for (k, e) in elems.iter().enumerate() {
            let mut around = Around::default();
            let ety = ty.map(|t| Ty { kind: t.kind, bits });
            let Some(v) = self.use_scalar(e, ety, &mut around) else { continue };
            let bit = u32::from(bits) * k as u32;
            let mut out = around.pre;
            if bits >= 32 {
                let words = (bits / 32) as u8;
                for j in 0..words {
                    let d = comp_of(dst, dw, (bit / 32) as u8 + j);
                    let s = self.word_of(&v, j, words);
                    out.push(self.mk("MOV", String::new(), vec![Operand::Reg(Reg::V(d))], vec![s]));
                }
            } else {
                let d = comp_of(dst, dw, (bit / 32) as u8);
                // The first element of a word starts from zero; later ones insert.
                let old = if bit.is_multiple_of(32) { RZ } else { Operand::Reg(Reg::V(d)) };
                let sel = sel_insert((bit % 32) / 8, bits);
                out.push(self.mk(
                    "PRMT",
                    String::new(),
                    vec![Operand::Reg(Reg::V(d))],
                    vec![v, Operand::Imm(sel), old],
                ));
            }
            for mut m in out {
                m.guard = guard;
                self.emit(m);
            }
        }
    }

    fn load(&mut self, i: &'a AstInst<'a>) {
        let mods = i.mods();
        if i.ops.len() < 2 || !matches!(i.ops[1].kind, OpKind::Mem(_)) {
            self.error(i.pos, "expected a destination and an address [..]");
            return;
        }
        let space = space_base(&mods);
        if space == Some("param") {
            return self.ld_param(i);
        }
        let guard = self.guard(&i.guard);
        let ty = ops::last_type(&mods);
        let mode = match (vec_len(&mods), ty) {
            (n, Some(t)) if n > 1 => VecMode::Typed(t.bits),
            _ => VecMode::Regs,
        };
        let (mn, tag) = match (i.base, space) {
            ("ldu", _) => ("LDG", Some("ldu")),
            (_, Some("global")) => ("LDG", None),
            (_, Some("shared")) => ("LDS", None),
            (_, Some("local")) => ("LDL", None),
            (_, Some("const")) => ("LDC", None),
            _ => ("LD", None),
        };
        let extra: &[&str] = if self.ms.addr64 && matches!(mn, "LDG" | "LD") { &["E"] } else { &[] };
        let mods = ops::ori_mods(tag, extra, &mods, is_space);
        let mut around = Around::default();
        let mut opv = Vec::with_capacity(i.ops.len());
        self.def_op(&i.ops[0], ty, mode, &mut opv, &mut around);
        let ndefs = opv.len();
        for op in &i.ops[1..] {
            self.use_op(op, ty, mode, &mut opv, &mut around);
        }
        self.finish_ops(mn, mods, opv, ndefs, guard, around, i.pos);
    }

    fn store(&mut self, i: &'a AstInst<'a>) {
        let mods = i.mods();
        if i.ops.len() < 2 || !matches!(i.ops[0].kind, OpKind::Mem(_)) {
            self.error(i.pos, "expected an address [..] and a value");
            return;
        }
        let space = space_base(&mods);
        if space == Some("param") {
            return self.st_param(i);
        }
        let guard = self.guard(&i.guard);
        let ty = ops::last_type(&mods);
        let mode = match (vec_len(&mods), ty) {
            (n, Some(t)) if n > 1 => VecMode::Typed(t.bits),
            _ => VecMode::Regs,
        };
        let mn = match space {
            Some("global") => "STG",
            Some("shared") => "STS",
            Some("local") => "STL",
            _ => "ST",
        };
        let extra: &[&str] = if self.ms.addr64 && matches!(mn, "STG" | "ST") { &["E"] } else { &[] };
        let mods = ops::ori_mods(None, extra, &mods, is_space);
        let mut around = Around::default();
        let mut opv = Vec::with_capacity(i.ops.len());
        for op in &i.ops {
            self.use_op(op, ty, mode, &mut opv, &mut around);
        }
        self.finish_ops(mn, mods, opv, 0, guard, around, i.pos);
    }

    /// `ret` (RET reading the return registers; EXIT in a kernel) and `exit`.
    fn leave(&mut self, i: &'a AstInst<'a>) {
        let mods = i.mods();
        let guard = self.guard(&i.guard);
        let mods = ops::ori_mods(None, &[], &mods, |_| false);
        let inst = if i.base == "exit" || self.kind == super::ast::FuncKind::Entry {
            self.mk("EXIT", mods, Vec::new(), Vec::new())
        } else {
            let uses = self.ret_uses();
            self.mk("RET", mods, Vec::new(), uses)
        };
        self.finish(inst, guard, Around::default());
    }

    fn branch(&mut self, i: &'a AstInst<'a>) {
        let mods = i.mods();
        let guard = self.guard(&i.guard);
        let [t] = &i.ops[..] else {
            self.error(i.pos, "bra takes one label");
            return;
        };
        let OpKind::Name { name, comp: None } = t.kind else {
            self.error(t.pos, "expected a label");
            return;
        };
        let Some(l) = self.labels.get(name).cloned() else {
            self.unknown_label(t.pos, name);
            return;
        };
        let mods = ops::ori_mods(None, &[], &mods, |_| false);
        let inst = self.mk("BRA", mods, Vec::new(), vec![Operand::Sym(l.into())]);
        self.finish(inst, guard, Around::default());
    }

    fn unknown_label(&mut self, pos: u32, name: &str) {
        // A suggestion costs an edit distance per label: offered for the first errors
        // of a function of reasonable size only.
        let hint = if self.labels.len() <= 4096 && self.ms.errors < 10 {
            let mut known: Vec<&str> = self.labels.keys().copied().collect();
            known.sort_unstable();
            crate::util::closest(name, known.iter().copied()).map(|c| format!(" (did you mean {c}?)"))
        } else {
            None
        };
        self.error(pos, format!("unknown label {name}{}", hint.unwrap_or_default()));
    }

    /// `brx.idx %r, table`: BRX reading the index, with every target as a label.
    fn branch_indirect(&mut self, i: &'a AstInst<'a>) {
        let mods = i.mods();
        let guard = self.guard(&i.guard);
        let [idx, tbl] = &i.ops[..] else {
            self.error(i.pos, "brx.idx takes an index and a .branchtargets label");
            return;
        };
        let mut around = Around::default();
        let mut uses = Vec::new();
        self.use_op(idx, None, VecMode::Regs, &mut uses, &mut around);
        let OpKind::Name { name, .. } = tbl.kind else {
            self.error(tbl.pos, "expected a .branchtargets label");
            return;
        };
        let Some(targets) = self.tables.get(name).cloned() else {
            self.error(tbl.pos, format!("{name} is not a .branchtargets list"));
            return;
        };
        for (t, pos) in targets {
            match self.labels.get(t) {
                Some(l) => uses.push(Operand::Sym(l.clone().into())),
                None => self.unknown_label(pos, t),
            }
        }
        let mods = ops::ori_mods(None, &[], &mods, |_| false);
        let inst = self.mk("BRX", mods, Vec::new(), uses);
        self.finish(inst, guard, around);
    }
}
