//! Call-site lowering (seed 001, "Pass 2 -- Instruction Lowering", CALL lowering,
//! and "Call Instruction ABI Lowering: sub_19D41E0"): arguments move into fresh
//! vregs pinned to the callee's parameter registers right before the CALL, results
//! come out of fresh vregs pinned to its return registers right after it.
//!
//! Owns: the rewrite of CALL instructions and the vregs and MOVs it inserts. Must
//! not know: how placements were computed (it reads [`AbiResult`]s) or allocation.
//!
//! The Ori IR call form: `%d0, %d1 = CALL[.MODS] callee, %a0, %a1, ...` — the first
//! symbol source operand names the callee, the sources after it are the arguments
//! (matched to parameter descriptors in order) and the destinations are the results
//! (matched to return descriptors). Every placed register gets its own 32-bit vreg
//! (`%abi_c0_p1_0`: call 0 of the function, parameter 1, register 0), so parameters
//! of any size (a `3x4` takes three) and alignment need no wide vreg; a wide
//! argument is split by component (`%rd0.lo`, `%rd0.hi`), an immediate is
//! sign-extended into the upper registers and a constant-bank operand advances by
//! 4 bytes per register. The argument MOVs are unguarded (they only write fresh
//! vregs); the result MOVs carry the CALL's guard. A lowered CALL gets the modifier
//! `.ABI` so that lowering twice changes nothing. What cannot be matched (missing or
//! extra arguments, stack-passed values, width mismatches) is left in place and
//! described in [`LoweredCall::notes`].

use std::collections::{BTreeMap, BTreeSet};

use crate::abi::AbiResult;
use crate::ir::model::{Function, Inst, Module, Operand, PhysReg, Reg, RegClass, RegFile, RegRef, VRegId, vflags};
use crate::ir::opcode::{Opcode, props};

/// The modifier marking a lowered CALL.
pub const LOWERED_MOD: &str = "ABI";

/// What lowering did at one call site.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoweredCall {
    pub func: usize,
    pub block: usize,
    /// Index of the CALL in its block after lowering; the argument MOVs sit at
    /// `inst - moves_before .. inst`, the result MOVs at `inst + 1 ..= inst + moves_after`.
    pub inst: usize,
    pub callee: usize,
    pub moves_before: usize,
    pub moves_after: usize,
    /// The fresh vregs and the R register each is pinned to: arguments, then results.
    pub pinned: Vec<(VRegId, u16)>,
    /// Anything left as it was, and why.
    pub notes: Vec<String>,
}

/// Lowers every CALL in the module whose callee has an engaged ABI result
/// (`results[callee]`) placing at least one value in registers. Returns the call
/// sites in function, block, instruction order.
pub fn lower_calls(m: &mut Module, results: &[Option<AbiResult>]) -> Vec<LoweredCall> {
    let mut names: BTreeMap<String, usize> = BTreeMap::new();
    for (i, f) in m.functions.iter().enumerate() {
        names.entry(f.name.to_string()).or_insert(i);
    }
    let mut out = Vec::new();
    for (fi, f) in m.functions.iter_mut().enumerate() {
        let mut taken: BTreeSet<String> = f.vregs.iter().map(|v| v.name.to_string()).collect();
        let mut serial = 0usize;
        for b in 0..f.blocks.len() {
            let mut i = 0;
            while i < f.blocks[b].insts.len() {
                let inst = &f.blocks[b].insts[i];
                let target = match target(inst, &names) {
                    Some((sym_at, c)) => results
                        .get(c)
                        .and_then(Option::as_ref)
                        .filter(|r| r.engaged && r.params.iter().chain(&r.returns).any(Option::is_some))
                        .map(|r| (sym_at, c, r)),
                    None => None,
                };
                let Some((sym_at, c, res)) = target else {
                    i += 1;
                    continue;
                };
                let mut site = Site { f, taken: &mut taken, serial, notes: Vec::new(), pinned: Vec::new() };
                let (pre, call, post) = site.lower(b, i, sym_at, res);
                let Site { notes, pinned, .. } = site;
                let (npre, npost) = (pre.len(), post.len());
                let block = &mut f.blocks[b].insts;
                block.splice(i..=i, pre.into_iter().chain(std::iter::once(call)).chain(post));
                out.push(LoweredCall {
                    func: fi,
                    block: b,
                    inst: i + npre,
                    callee: c,
                    moves_before: npre,
                    moves_after: npost,
                    pinned,
                    notes,
                });
                serial += 1;
                i += npre + 1 + npost;
            }
        }
    }
    out
}

/// The callee of a not-yet-lowered CALL and the operand index of its symbol.
fn target(inst: &Inst, names: &BTreeMap<String, usize>) -> Option<(usize, usize)> {
    if !inst.info().is(props::CALL) || inst.has_mod(LOWERED_MOD) {
        return None;
    }
    let nd = inst.ndefs as usize;
    inst.operands.iter().enumerate().skip(nd).find_map(|(k, op)| match op {
        Operand::Sym(s) => names.get(&**s).map(|&c| (k, c)),
        _ => None,
    })
}

struct Site<'a> {
    f: &'a mut Function,
    taken: &'a mut BTreeSet<String>,
    serial: usize,
    notes: Vec<String>,
    pinned: Vec<(VRegId, u16)>,
}

impl Site<'_> {
    /// A fresh 32-bit R vreg pinned to `reg`.
    fn fresh(&mut self, kind: char, value: usize, part: usize, reg: u16) -> VRegId {
        let stem = format!("%abi_c{}_{kind}{value}_{part}", self.serial);
        let mut name = stem.clone();
        let mut n = 0;
        while self.taken.contains(&name) {
            n += 1;
            name = format!("{stem}_{n}");
        }
        self.taken.insert(name.clone());
        let id = self.f.add_vreg(name, RegClass::R, 1);
        let v = &mut self.f.vregs[id.index()];
        v.pin = Some(reg);
        v.flags |= vflags::PREASSIGNED;
        self.pinned.push((id, reg));
        id
    }

    fn width(&self, r: RegRef) -> u8 {
        if r.comp.is_some() { 1 } else { self.f.vregs.get(r.vreg.index()).map_or(1, |v| v.width) }
    }

    /// Register `j` of an argument operand.
    fn part(&mut self, arg: &Operand, j: usize, k: usize) -> Operand {
        match arg {
            // Component 0 of a whole wide vreg: the 32-bit vreg takes `.lo` / `.0`.
            Operand::Reg(Reg::V(r)) if j == 0 && self.width(*r) > 1 => {
                Operand::Reg(Reg::V(RegRef { vreg: r.vreg, comp: Some(0) }))
            }
            _ if j == 0 => arg.clone(),
            Operand::Reg(Reg::V(r)) if (j as u8) < self.width(*r) => {
                Operand::Reg(Reg::V(RegRef { vreg: r.vreg, comp: Some(j as u8) }))
            }
            Operand::Reg(Reg::P(p)) if p.file == RegFile::R => {
                let index = if p.is_zero() { p.index } else { (p.index as usize + j).min(255) as u16 };
                Operand::Reg(Reg::P(PhysReg { file: p.file, index }))
            }
            Operand::Imm(v) => Operand::Imm(if *v < 0 { -1 } else { 0 }),
            Operand::CBank { bank, offset } => {
                Operand::CBank { bank: *bank, offset: offset.saturating_add(4 * j as u32) }
            }
            _ => {
                if j == 1 {
                    self.notes.push(format!("argument #{k} is narrower than its parameter; upper registers set to 0"));
                }
                Operand::Imm(0)
            }
        }
    }

    /// Returns the argument MOVs, the rewritten CALL and the result MOVs.
    fn lower(&mut self, b: usize, i: usize, sym_at: usize, res: &AbiResult) -> (Vec<Inst>, Inst, Vec<Inst>) {
        let call = self.f.blocks[b].insts[i].clone();
        let nd = call.ndefs as usize;
        let mov = Opcode::named("MOV");
        let mut pre = Vec::new();
        let mut post = Vec::new();
        // Arguments.
        let args: Vec<Operand> = call.operands[sym_at + 1..].to_vec();
        let mut new_args = Vec::new();
        for (k, arg) in args.iter().enumerate() {
            match res.params.get(k) {
                Some(Some(p)) => {
                    if let Operand::Reg(Reg::V(r)) = arg
                        && self.width(*r) as u16 > p.count
                    {
                        self.notes.push(format!(
                            "argument #{k} is {} registers wide, its parameter {}; the rest is dropped",
                            self.width(*r),
                            p.count
                        ));
                    }
                    for (j, reg) in p.regs().enumerate() {
                        let src = self.part(arg, j, k);
                        let id = self.fresh('p', k, j, reg);
                        let mut m = Inst::new(mov, vec![Operand::vreg(id)], vec![src]);
                        m.origin = call.origin;
                        pre.push(m);
                        new_args.push(Operand::vreg(id));
                    }
                }
                Some(None) => {
                    self.notes.push(format!("parameter #{k} is passed on the stack; argument left in place"));
                    new_args.push(arg.clone());
                }
                None => {
                    self.notes.push(format!("argument #{k} has no parameter descriptor; left in place"));
                    new_args.push(arg.clone());
                }
            }
        }
        for k in args.len()..res.params.len() {
            self.notes.push(format!("parameter #{k} has no argument"));
        }
        // Results.
        let mut new_defs = Vec::new();
        for (k, def) in call.operands[..nd].iter().enumerate() {
            match (res.returns.get(k), def) {
                (Some(Some(p)), Operand::Reg(Reg::V(r))) => {
                    let w = self.width(*r) as u16;
                    if w != p.count {
                        self.notes.push(format!(
                            "result #{k} is {w} registers wide, its return value {}; only the overlap is copied",
                            p.count
                        ));
                    }
                    for (j, reg) in p.regs().enumerate() {
                        let id = self.fresh('r', k, j, reg);
                        new_defs.push(Operand::vreg(id));
                        if (j as u16) >= w {
                            continue;
                        }
                        let dst = if j == 0 && w == 1 { *r } else { RegRef { vreg: r.vreg, comp: Some(j as u8) } };
                        let mut m = Inst::new(mov, vec![Operand::Reg(Reg::V(dst))], vec![Operand::vreg(id)]);
                        m.guard = call.guard;
                        m.origin = call.origin;
                        post.push(m);
                    }
                    // The CALL defined the whole wide result; its component copies now do,
                    // and a component def does not kill (seed 004): without the mark the
                    // result would be live — and blocked by every call's pinned registers —
                    // from the function's entry (found on CuPy's Lomb-Scargle kernel, whose
                    // four calls left a returned pair with no slot at any budget).
                    if w >= 2
                        && call.guard_is_always()
                        && let Some(v) = self.f.vregs.get_mut(r.vreg.index())
                    {
                        v.flags |= vflags::ASSEMBLED;
                    }
                }
                (Some(None), _) => {
                    self.notes.push(format!("return value #{k} is passed on the stack; result left in place"));
                    new_defs.push(def.clone());
                }
                (Some(Some(_)), _) => {
                    self.notes.push(format!("result #{k} is not a virtual register; left in place"));
                    new_defs.push(def.clone());
                }
                (None, _) => {
                    self.notes.push(format!("result #{k} has no return descriptor; left in place"));
                    new_defs.push(def.clone());
                }
            }
        }
        let mut new_call = call.clone();
        new_call.ndefs = new_defs.len().min(u8::MAX as usize) as u8;
        let mut operands = new_defs;
        operands.extend(call.operands[nd..=sym_at].iter().cloned());
        operands.extend(new_args);
        new_call.operands = operands.into();
        new_call.mods = format!("{}.{LOWERED_MOD}", call.mods).into();
        (pre, new_call, post)
    }
}
