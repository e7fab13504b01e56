//! Operands: resolving PTX names, immediates, addresses, and the grouping of vector
//! operands into wide temporaries.
//!
//! Owns: how one PTX operand becomes Ori operands plus the copies around the
//! instruction that reads or writes it. Must not know: which instruction it serves
//! (the caller says whether an operand is read or written and how vectors are typed).
//!
//! Vector operands: `{%f1, %f2, %f3, %f4}` of a `.v4` load needs four consecutive,
//! aligned registers, so the load defines a quad temporary `%v4tmpN` and component
//! moves unpack it (`%f1 = MOV %v4tmp0.0`); a vector that is read is packed into the
//! temporary first. Elements narrower than 32 bits share a register and move through
//! byte permutes (`PRMT`); 64-bit elements take two components. Temporaries are at
//! most 16 registers wide: longer vectors (wgmma accumulators) use several. Guarded
//! instructions guard their unpacking moves too, so a false predicate changes
//! nothing.
//!
//! Immediates: 32-bit values stay immediates; a 64-bit operand whose value does not
//! fit a sign-extended 32-bit immediate, and every `0d` double, is built in a pair
//! temporary `%k64tmpN` by two component moves.

use super::ast::{Lit, MemItem, OpKind, Operand as AstOp, Pos, Ty, TyKind};
use super::lower::{Binding, Fx, RegInfo};
use super::ops;
use crate::ir::model::*;

/// What a name resolved to.
#[derive(Clone, Debug)]
pub(super) enum Res {
    Reg(RegRef),
    /// A parameter (device-function, call-site or kernel): named, not read, here.
    Param,
    Sym(String),
    Special(String, bool),
}

/// Components from this value up are video selectors (`.b0`-`.b3`, `.h0`, `.h1`).
pub(super) const SELECTOR: u8 = 100;

/// How the elements of a vector operand are sized.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum VecMode {
    /// Every element has this many bits (the `.vN` type of a memory instruction).
    Typed(u16),
    /// Each element is as wide as its register (tensor-core fragments).
    Regs,
}

/// Copies to place around an instruction.
#[derive(Default)]
pub(super) struct Around {
    pub pre: Vec<Inst>,
    pub post: Vec<Inst>,
}

pub(super) const RZ: Operand = Operand::Reg(Reg::P(PhysReg { file: RegFile::R, index: 255 }));

/// Smallest and largest 32-bit immediates Ori accepts (signed or unsigned).
pub(super) const IMM_MIN: i64 = -(1 << 31);
pub(super) const IMM_MAX: i64 = (1 << 32) - 1;

/// A 32-bit immediate from a 64-bit value: kept when it fits, else its low 32 bits.
pub(super) fn fit32(v: i64) -> i64 {
    if (IMM_MIN..=IMM_MAX).contains(&v) { v } else { i64::from(v as u32) }
}

/// `PRMT` selector extracting `bits` (8 or 16) at `byte`, zero-extended (RZ is the
/// second source).
pub(super) fn sel_extract(byte: u32, bits: u16) -> i64 {
    let mut nib = [4u32; 4];
    for (k, n) in nib.iter_mut().enumerate().take((bits / 8).max(1) as usize) {
        *n = byte + k as u32;
    }
    i64::from(nib[0] | nib[1] << 4 | nib[2] << 8 | nib[3] << 12)
}

/// `PRMT` selector inserting the low `bits` of the first source at `byte` of the
/// second source.
pub(super) fn sel_insert(byte: u32, bits: u16) -> i64 {
    let mut nib = [4u32, 5, 6, 7];
    for k in 0..(bits / 8).max(1) as usize {
        if let Some(n) = nib.get_mut(byte as usize + k) {
            *n = k as u32;
        }
    }
    i64::from(nib[0] | nib[1] << 4 | nib[2] << 8 | nib[3] << 12)
}

/// Component `k` of a register of `width` (the whole register when it is single).
pub(super) fn comp_of(r: RegRef, width: u8, k: u8) -> RegRef {
    if width <= 1 { r } else { RegRef { vreg: r.vreg, comp: Some(k) } }
}

impl<'a> Fx<'a, '_> {
    pub fn width_of(&self, v: VRegId) -> u8 {
        self.f.vregs[v.index()].width
    }

    /// Resolves a name (with an optional vector component).
    pub fn resolve(&mut self, name: &'a str, comp: Option<u8>, pos: Pos) -> Option<Res> {
        if let Some(b) = self.lookup(name) {
            return match b {
                Binding::Reg(r) => self.element(r, comp, name, pos).map(Res::Reg),
                Binding::Param(_) | Binding::Kernel { .. } => Some(Res::Param),
                Binding::Var(s) => Some(Res::Sym(s)),
            };
        }
        if let Some(s) = self.ms.globals_by_name.get(name).or_else(|| self.ms.funcs.get(name)) {
            return Some(Res::Sym(s.clone()));
        }
        if let Some(l) = self.labels.get(name) {
            return Some(Res::Sym(l.clone()));
        }
        if let Some((sr, wide)) = ops::special_register(name, comp) {
            return Some(Res::Special(sr, wide));
        }
        if name.starts_with('%') && ops::special_register(name, Some(0)).is_some() && comp.is_none() {
            self.error(pos, format!("special register {name} needs a component (.x, .y or .z)"));
        } else {
            let msg = match self.range_hint(name) {
                Some(h) => format!("undeclared register {name}: {h}"),
                None => format!("undeclared name {name}"),
            };
            self.error(pos, msg);
        }
        None
    }

    /// "%r<3> declares %r0 to %r2" when `name` is past the end of a range in scope.
    fn range_hint(&self, name: &str) -> Option<String> {
        let k = name.len() - name.bytes().rev().take_while(u8::is_ascii_digit).count();
        for split in k..name.len() {
            for s in self.scopes.iter().rev() {
                if let Some(&(_, count, ..)) = s.ranges.get(&name[..split]) {
                    let p = &name[..split];
                    return Some(if count == 0 {
                        format!("{p}<0> declares no registers")
                    } else {
                        format!("{p}<{count}> declares {p}0 to {p}{}", count - 1)
                    });
                }
            }
        }
        None
    }

    /// A register, or one element of a vector-typed register (`%v.y`).
    fn element(&mut self, r: RegInfo, comp: Option<u8>, name: &str, pos: Pos) -> Option<RegRef> {
        let Some(c) = comp else { return Some(RegRef::whole(r.vreg)) };
        if c >= SELECTOR {
            // A video selector (`.b1`, `.h0`) picks bytes inside the register: the
            // whole register is read.
            return Some(RegRef::whole(r.vreg));
        }
        if r.vec <= 1 {
            self.error(
                pos,
                format!(
                    "{name} is not a vector register: it has no component .{}",
                    "xyzw".as_bytes()[c as usize] as char
                ),
            );
            return None;
        }
        if c >= r.vec {
            self.error(pos, format!("{name} has only {} elements", r.vec));
            return None;
        }
        if r.ty.bits != 32 {
            self.error(
                pos,
                format!("elements of {}-bit vector registers are not supported (only 32-bit elements)", r.ty.bits),
            );
            return None;
        }
        Some(RegRef { vreg: r.vreg, comp: Some(c) })
    }

    /// A 64-bit constant built in a pair temporary.
    pub fn const64(&mut self, bits: u64, around: &mut Around) -> Operand {
        let t = self.temp("k64tmp", RegClass::R, 2);
        for (k, half) in [bits as u32, (bits >> 32) as u32].into_iter().enumerate() {
            let i = self.mk(
                "MOV",
                String::new(),
                vec![Operand::Reg(Reg::V(RegRef { vreg: t, comp: Some(k as u8) }))],
                vec![Operand::Imm(i64::from(half))],
            );
            around.pre.push(i);
        }
        Operand::vreg(t)
    }

    /// An immediate operand of an instruction whose operand type is `ty`.
    pub fn imm(&mut self, lit: Lit, ty: Option<Ty>, around: &mut Around) -> Operand {
        let bits = ty.map(|t| t.bits).unwrap_or(32);
        let float = ty.is_some_and(|t| t.is_float());
        let f64ty = ty.is_some_and(|t| t.kind == TyKind::F && t.bits == 64);
        match lit {
            Lit::Int(v) => {
                if bits == 64 && !(i64::from(i32::MIN)..=i64::from(i32::MAX)).contains(&v) {
                    self.const64(v as u64, around)
                } else {
                    Operand::Imm(fit32(v))
                }
            }
            Lit::F32(b) => {
                if f64ty {
                    self.const64(f64::from(f32::from_bits(b)).to_bits(), around)
                } else {
                    Operand::FImm(b)
                }
            }
            Lit::F64(b) => {
                if bits == 64 {
                    self.const64(b, around)
                } else if float {
                    Operand::FImm((f64::from_bits(b) as f32).to_bits())
                } else {
                    Operand::Imm(fit32(b as i64))
                }
            }
            Lit::Float(x) => {
                if bits == 64 && float {
                    self.const64(x.to_bits(), around)
                } else if bits == 64 {
                    self.const64(x as i64 as u64, around)
                } else if float || ty.is_none() {
                    Operand::FImm((x as f32).to_bits())
                } else {
                    Operand::Imm(fit32(x as i64))
                }
            }
        }
    }

    /// A read operand (not a vector or an address). Special registers are read into a
    /// temporary with S2R (CS2R for 64-bit ones); `!%p` into a negated copy.
    pub fn use_scalar(&mut self, op: &'a AstOp<'a>, ty: Option<Ty>, around: &mut Around) -> Option<Operand> {
        match &op.kind {
            OpKind::Name { name, comp } => match self.resolve(name, *comp, op.pos)? {
                Res::Reg(r) => Some(Operand::Reg(Reg::V(r))),
                Res::Sym(s) => Some(Operand::Sym(s.into())),
                Res::Param => Some(Operand::Sym(self.param_global(name).into())),
                Res::Special(sr, wide) => {
                    let t = self.temp("sr", RegClass::R, if wide { 2 } else { 1 });
                    let mn = if wide { "CS2R" } else { "S2R" };
                    around.pre.push(self.mk(
                        mn,
                        String::new(),
                        vec![Operand::vreg(t)],
                        vec![Operand::Special(sr.into())],
                    ));
                    Some(Operand::vreg(t))
                }
            },
            OpKind::Imm(l) => Some(self.imm(*l, ty, around)),
            OpKind::NameOffset { name, offset } => {
                let sym = match self.resolve(name, None, op.pos)? {
                    Res::Sym(s) => s,
                    Res::Param => self.param_global(name),
                    Res::Reg(r) => {
                        // `%r1+1` is an operand PTX allows: the sum, in a temporary.
                        let off = self.offset32(*offset, op.pos)?;
                        let t = self.temp("sum", RegClass::R, self.width_of(r.vreg));
                        around.pre.push(self.mk(
                            "IADD3",
                            String::new(),
                            vec![Operand::vreg(t)],
                            vec![Operand::Reg(Reg::V(r)), Operand::Imm(off)],
                        ));
                        return Some(Operand::vreg(t));
                    }
                    Res::Special(..) => {
                        self.error(op.pos, format!("{name}+offset: a special register takes no offset"));
                        return None;
                    }
                };
                let w = if self.ms.addr64 { 2 } else { 1 };
                let t = self.temp("addr", RegClass::R, w);
                let off = self.offset32(*offset, op.pos)?;
                around.pre.push(self.mk(
                    "IADD3",
                    ".ADDR".into(),
                    vec![Operand::vreg(t)],
                    vec![Operand::Sym(sym.into()), Operand::Imm(off)],
                ));
                Some(Operand::vreg(t))
            }
            OpKind::Not(inner) => {
                if let OpKind::Imm(Lit::Int(v)) = inner.kind {
                    return Some(Operand::Imm(i64::from(v == 0)));
                }
                let src = self.use_scalar(inner, ty, around)?;
                let t = self.temp("np", RegClass::P, 1);
                around.pre.push(self.mk("PLOP3", ".NOT".into(), vec![Operand::vreg(t)], vec![src]));
                Some(Operand::vreg(t))
            }
            OpKind::Sink => None,
            OpKind::Pair(..) => {
                self.error(op.pos, "an 'a|b' pair can only be written, not read");
                None
            }
            OpKind::List(_) => {
                self.error(op.pos, "a parenthesised list is only allowed in call");
                None
            }
            OpKind::Vector(_) | OpKind::Mem(_) => {
                self.error(op.pos, "expected a scalar operand here");
                None
            }
        }
    }

    pub fn offset32(&mut self, v: i64, pos: Pos) -> Option<i64> {
        if (IMM_MIN..=IMM_MAX).contains(&v) {
            Some(v)
        } else {
            self.error(pos, format!("offset {v} does not fit in 32 bits"));
            None
        }
    }

    /// Any read operand: scalars, vectors (packed into temporaries) and addresses.
    pub fn use_op(
        &mut self,
        op: &'a AstOp<'a>,
        ty: Option<Ty>,
        mode: VecMode,
        uses: &mut Vec<Operand>,
        around: &mut Around,
    ) {
        match &op.kind {
            OpKind::Vector(elems) => {
                let temps = self.pack(elems, ty, mode, around);
                uses.extend(temps);
            }
            OpKind::Mem(items) => self.mem(items, uses, around),
            _ => {
                if let Some(o) = self.use_scalar(op, ty, around) {
                    uses.push(o);
                }
            }
        }
    }

    /// `[addr (, item)*]`: a memory operand, then any further items as read operands.
    pub fn mem(&mut self, items: &'a [MemItem<'a>], uses: &mut Vec<Operand>, around: &mut Around) {
        for (k, item) in items.iter().enumerate() {
            match item {
                MemItem::Addr { names, offset, pos }
                    if k == 0 || !names.is_empty() && *offset != 0 || names.len() > 1 =>
                {
                    if let Some(m) = self.memref(names, *offset, *pos) {
                        uses.push(Operand::Mem(Box::new(m)));
                    }
                }
                MemItem::Addr { names, offset, pos } => {
                    // A further plain name (`[tex, sampler, ...]`): a read operand.
                    match names.first() {
                        Some(&(n, c, p)) => match self.resolve(n, c, p) {
                            Some(Res::Reg(r)) => uses.push(Operand::Reg(Reg::V(r))),
                            Some(Res::Sym(s)) => uses.push(Operand::Sym(s.into())),
                            Some(_) => uses.push(Operand::Sym(self.param_global(n).into())),
                            None => {}
                        },
                        None => {
                            if let Some(v) = self.offset32(*offset, *pos) {
                                uses.push(Operand::Imm(v));
                            }
                        }
                    }
                }
                MemItem::Other(o) => self.use_op(o, None, VecMode::Regs, uses, around),
            }
        }
    }

    /// An address: registers become base and index, one variable or label the symbol.
    pub fn memref(&mut self, names: &[(&'a str, Option<u8>, Pos)], offset: i64, pos: Pos) -> Option<MemRef> {
        let mut m = MemRef { base: None, index: None, sym: None, offset: self.offset32(offset, pos)? };
        for &(n, c, p) in names {
            match self.resolve(n, c, p)? {
                Res::Reg(r) => {
                    if m.base.is_none() {
                        m.base = Some(Reg::V(r));
                    } else {
                        m.index = Some(Reg::V(r));
                    }
                }
                Res::Sym(s) if m.sym.is_none() => m.sym = Some(s.into()),
                Res::Param if m.sym.is_none() => m.sym = Some(self.param_global(n).into()),
                Res::Special(..) => {
                    self.error(p, format!("special register {n} cannot be an address"));
                    return None;
                }
                _ => {
                    self.error(p, "an address names at most one variable");
                    return None;
                }
            }
        }
        Some(m)
    }

    /// A written operand: a register, an `a|b` pair, a sink, or a vector (unpacked
    /// from temporaries after the instruction).
    pub fn def_op(
        &mut self,
        op: &'a AstOp<'a>,
        ty: Option<Ty>,
        mode: VecMode,
        defs: &mut Vec<Operand>,
        around: &mut Around,
    ) {
        match &op.kind {
            OpKind::Name { name, comp } => match self.resolve(name, *comp, op.pos) {
                Some(Res::Reg(r)) => defs.push(Operand::Reg(Reg::V(r))),
                Some(_) => self.error(op.pos, format!("{name} is not a register and cannot be written")),
                None => {}
            },
            OpKind::Pair(a, b) => {
                self.def_op(a, ty, mode, defs, around);
                self.def_op(b, ty, mode, defs, around);
            }
            OpKind::Sink => {}
            OpKind::Vector(elems) => {
                let temps = self.unpack(elems, ty, mode, around);
                defs.extend(temps);
            }
            _ => self.error(op.pos, "expected a register to write"),
        }
    }

    /// Whether an operand in the first position is a destination by its shape.
    pub fn is_def_shaped(&self, op: &AstOp<'a>) -> bool {
        match &op.kind {
            OpKind::Name { name, .. } => matches!(self.lookup(name), Some(Binding::Reg(_))),
            OpKind::Vector(_) | OpKind::Pair(..) | OpKind::Sink => true,
            _ => false,
        }
    }
}

/// Where one vector element lives in the temporaries.
#[derive(Clone, Copy, Debug)]
struct Slot {
    chunk: usize,
    /// First word within the chunk.
    word: u32,
    /// Byte within the word (sub-word elements).
    byte: u32,
    bits: u16,
}

impl<'a> Fx<'a, '_> {
    /// The bits of each element of a vector operand.
    fn elem_bits(&mut self, elems: &'a [AstOp<'a>], mode: VecMode) -> Vec<u16> {
        elems
            .iter()
            .map(|e| match mode {
                VecMode::Typed(b) => b.max(1),
                VecMode::Regs => match &e.kind {
                    OpKind::Name { name, comp } => match self.lookup(name) {
                        Some(Binding::Reg(r)) if comp.is_none() => {
                            u16::from(self.f.vregs[r.vreg.index()].width.max(1)) * 32
                        }
                        _ => 32,
                    },
                    _ => 32,
                },
            })
            .collect()
    }

    /// Lays elements out in temporaries of at most 16 registers; `None` when an
    /// element would straddle two temporaries.
    fn layout(bits: &[u16]) -> Option<(Vec<Slot>, Vec<u8>)> {
        let mut slots = Vec::new();
        let mut starts = Vec::new();
        let mut bit = 0u32;
        for &b in bits {
            // Elements of 32 bits or more start on a word boundary.
            if b >= 32 && !bit.is_multiple_of(32) {
                bit = bit.div_ceil(32) * 32;
            }
            starts.push(bit);
            bit += u32::from(b);
        }
        let words = bit.div_ceil(32).max(1);
        let mut chunks: Vec<(u32, u8)> = Vec::new();
        let mut w = 0u32;
        while w < words {
            let left = words - w;
            let width = [16u32, 8, 4, 2, 1].into_iter().find(|&c| c <= left).unwrap_or(1);
            chunks.push((w, width as u8));
            w += width;
        }
        for (k, &s) in starts.iter().enumerate() {
            let word = s / 32;
            let last = (s + u32::from(bits[k]).max(1) - 1) / 32;
            let c = chunks.iter().position(|&(start, wd)| word >= start && word < start + u32::from(wd))?;
            if last >= chunks[c].0 + u32::from(chunks[c].1) {
                return None;
            }
            slots.push(Slot { chunk: c, word: word - chunks[c].0, byte: (s % 32) / 8, bits: bits[k] });
        }
        Some((slots, chunks.into_iter().map(|c| c.1).collect()))
    }

    fn vec_temps(&mut self, widths: &[u8]) -> Vec<VRegId> {
        widths
            .iter()
            .map(|&w| {
                let stem = match w {
                    1 => "vtmp",
                    2 => "v2tmp",
                    4 => "v4tmp",
                    8 => "v8tmp",
                    _ => "v16tmp",
                };
                self.temp(stem, RegClass::R, w)
            })
            .collect()
    }

    /// A vector that is read: packed into temporaries (returned as operands). A single
    /// element that already fills its temporary is used as is.
    pub fn pack(&mut self, elems: &'a [AstOp<'a>], ty: Option<Ty>, mode: VecMode, around: &mut Around) -> Vec<Operand> {
        let bits = self.elem_bits(elems, mode);
        if let [e] = elems
            && bits[0] >= 32
        {
            let mut out = Vec::new();
            self.use_op(e, ty, mode, &mut out, around);
            return out;
        }
        let Some((slots, widths)) = Self::layout(&bits) else {
            // Cannot group: every element becomes its own operand.
            let mut out = Vec::new();
            for e in elems {
                self.use_op(e, ty, mode, &mut out, around);
            }
            return out;
        };
        let temps = self.vec_temps(&widths);
        let mut started = vec![false; widths.iter().map(|&w| w as usize).sum::<usize>() + 16];
        for (e, s) in elems.iter().zip(&slots) {
            if matches!(e.kind, OpKind::Sink) {
                continue;
            }
            let Some(v) = self.use_scalar(e, ty, around) else { continue };
            let t = temps[s.chunk];
            let tw = widths[s.chunk];
            if s.bits >= 32 {
                let words = (s.bits / 32) as u8;
                let whole = words == tw
                    && matches!(v, Operand::Reg(Reg::V(r)) if r.comp.is_none() && self.width_of(r.vreg) == tw);
                if whole {
                    around.pre.push(self.mk("MOV", String::new(), vec![Operand::vreg(t)], vec![v]));
                    continue;
                }
                for j in 0..words {
                    let src = self.word_of(&v, j, words);
                    let dst = comp_of(RegRef::whole(t), tw, s.word as u8 + j);
                    around.pre.push(self.mk("MOV", String::new(), vec![Operand::Reg(Reg::V(dst))], vec![src]));
                }
            } else {
                let dst = comp_of(RegRef::whole(t), tw, s.word as u8);
                let key = temps[..s.chunk].len() * 16 + s.word as usize;
                let old = if started.get(key).copied().unwrap_or(true) { Operand::Reg(Reg::V(dst)) } else { RZ };
                if let Some(x) = started.get_mut(key) {
                    *x = true;
                }
                let sel = sel_insert(s.byte, s.bits);
                around.pre.push(self.mk(
                    "PRMT",
                    String::new(),
                    vec![Operand::Reg(Reg::V(dst))],
                    vec![v, Operand::Imm(sel), old],
                ));
            }
        }
        temps.into_iter().map(Operand::vreg).collect()
    }

    /// Word `j` of a `words`-word value: a component of a wide register, or the
    /// matching 32 bits of an immediate.
    pub fn word_of(&self, v: &Operand, j: u8, words: u8) -> Operand {
        match v {
            Operand::Reg(Reg::V(r)) => {
                if r.comp.is_some() || words == 1 {
                    Operand::Reg(Reg::V(*r))
                } else {
                    Operand::Reg(Reg::V(comp_of(*r, self.width_of(r.vreg), j)))
                }
            }
            Operand::Imm(x) => Operand::Imm(if j == 0 {
                *x
            } else if *x < 0 {
                i64::from(u32::MAX)
            } else {
                0
            }),
            other => other.clone(),
        }
    }

    /// A vector that is written: the instruction defines temporaries (returned) and
    /// component moves unpack them into the elements after it.
    pub fn unpack(
        &mut self,
        elems: &'a [AstOp<'a>],
        ty: Option<Ty>,
        mode: VecMode,
        around: &mut Around,
    ) -> Vec<Operand> {
        let bits = self.elem_bits(elems, mode);
        if let [e] = elems
            && bits[0] >= 32
        {
            let mut out = Vec::new();
            self.def_op(e, ty, mode, &mut out, around);
            return out;
        }
        let Some((slots, widths)) = Self::layout(&bits) else {
            let mut out = Vec::new();
            for e in elems {
                self.def_op(e, ty, mode, &mut out, around);
            }
            return out;
        };
        let temps = self.vec_temps(&widths);
        self.unpack_into(elems, &slots, &temps, &widths, around);
        temps.into_iter().map(Operand::vreg).collect()
    }

    fn unpack_into(
        &mut self,
        elems: &'a [AstOp<'a>],
        slots: &[Slot],
        temps: &[VRegId],
        widths: &[u8],
        around: &mut Around,
    ) {
        for (e, s) in elems.iter().zip(slots) {
            let dst = match &e.kind {
                OpKind::Sink => continue,
                OpKind::Name { name, comp } => match self.resolve(name, *comp, e.pos) {
                    Some(Res::Reg(r)) => r,
                    Some(_) => {
                        self.error(e.pos, format!("{name} is not a register and cannot be written"));
                        continue;
                    }
                    None => continue,
                },
                _ => {
                    self.error(e.pos, "expected a register in the vector");
                    continue;
                }
            };
            let t = temps[s.chunk];
            let tw = widths[s.chunk];
            if s.bits >= 32 {
                let words = (s.bits / 32) as u8;
                let dw = self.width_of(dst.vreg);
                if words == tw && dst.comp.is_none() && dw == tw {
                    around.post.push(self.mk(
                        "MOV",
                        String::new(),
                        vec![Operand::Reg(Reg::V(dst))],
                        vec![Operand::vreg(t)],
                    ));
                    continue;
                }
                for j in 0..words {
                    let d = if dst.comp.is_some() || words == 1 { dst } else { comp_of(dst, dw, j) };
                    let src = comp_of(RegRef::whole(t), tw, s.word as u8 + j);
                    around.post.push(self.mk(
                        "MOV",
                        String::new(),
                        vec![Operand::Reg(Reg::V(d))],
                        vec![Operand::Reg(Reg::V(src))],
                    ));
                }
            } else {
                let src = comp_of(RegRef::whole(t), tw, s.word as u8);
                let sel = sel_extract(s.byte, s.bits);
                around.post.push(self.mk(
                    "PRMT",
                    String::new(),
                    vec![Operand::Reg(Reg::V(dst))],
                    vec![Operand::Reg(Reg::V(src)), Operand::Imm(sel), RZ],
                ));
            }
        }
    }

    /// A vector that is read and written (wgmma accumulators): packed into
    /// temporaries before, the same temporaries unpacked after.
    pub fn inout(
        &mut self,
        op: &'a AstOp<'a>,
        mode: VecMode,
        defs: &mut Vec<Operand>,
        uses: &mut Vec<Operand>,
        around: &mut Around,
    ) {
        match &op.kind {
            OpKind::Vector(elems) if elems.len() > 1 => {
                let bits = self.elem_bits(elems, mode);
                let Some((slots, widths)) = Self::layout(&bits) else {
                    self.def_op(op, None, mode, defs, around);
                    self.use_op(op, None, mode, uses, around);
                    return;
                };
                let packed = self.pack(elems, None, mode, around);
                let temps: Vec<VRegId> = packed.iter().filter_map(|o| o.as_vreg().map(|r| r.vreg)).collect();
                if temps.len() != widths.len() {
                    // A single element used directly.
                    self.def_op(op, None, mode, defs, around);
                    uses.extend(packed);
                    return;
                }
                self.unpack_into(elems, &slots, &temps, &widths, around);
                defs.extend(temps.iter().map(|&t| Operand::vreg(t)));
                uses.extend(packed);
            }
            _ => {
                self.def_op(op, None, mode, defs, around);
                self.use_op(op, None, mode, uses, around);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permute_selectors() {
        assert_eq!(sel_extract(0, 16), 0x4410);
        assert_eq!(sel_extract(2, 16), 0x4432);
        assert_eq!(sel_extract(3, 8), 0x4443);
        assert_eq!(sel_insert(0, 16), 0x7610);
        assert_eq!(sel_insert(2, 16), 0x1054);
        assert_eq!(sel_insert(1, 8), 0x7604);
    }

    #[test]
    fn vectors_lay_out_in_power_of_two_temporaries() {
        let (slots, widths) = Fx::layout(&[32, 32, 32, 32]).unwrap();
        assert_eq!(widths, vec![4]);
        assert_eq!(slots.iter().map(|s| s.word).collect::<Vec<_>>(), vec![0, 1, 2, 3]);
        let (_, widths) = Fx::layout(&[32; 12]).unwrap();
        assert_eq!(widths, vec![8, 4]);
        let (slots, widths) = Fx::layout(&[16, 16, 16, 16]).unwrap();
        assert_eq!(widths, vec![2]);
        assert_eq!(slots.iter().map(|s| (s.word, s.byte)).collect::<Vec<_>>(), vec![(0, 0), (0, 2), (1, 0), (1, 2)]);
        let (_, widths) = Fx::layout(&[64, 64]).unwrap();
        assert_eq!(widths, vec![4]);
        assert!(Fx::layout(&[32, 64]).is_none());
    }
}
