//! Entry and exit copies of a function's own parameter and return bindings (seed 001,
//! "Parameter Passing": the parameters arrive in R registers from the first parameter
//! register up; the return values leave in the same range).
//!
//! Owns: giving each bound vreg (`param 1x4 = %a0`, `return 1x4 = %r0`) a short pinned
//! twin — `%a0$in`, defined at the function's entry and copied into `%a0` by the first
//! instruction; `%r0$out`, copied from `%r0` right before each `RET`/`EXIT` — and moving the
//! `.abi` binding onto the twin. Must not know: where the registers are (that is
//! [`crate::abi::setup`]) or how the allocator assigns them.
//!
//! Why: the ABI pins a bound vreg to its register for its whole live range. Where the
//! body keeps a parameter alive across a CALL, or writes a return value while a
//! parameter is still live, two pinned vregs then claim one register at one point:
//! a device function that calls another passes its callee's first argument in R4
//! while its own first parameter, pinned to R4, is still live — the checker's
//! `%param0 and %abi_c0_p0_0 both live in R4` on real code. ptxas's SASS moves such
//! a parameter out of R4 (`MOV R16, R4` before the `CALL.REL.NOINC`): the register is
//! the convention's only at the boundary. The twins model exactly that; a copy whose
//! source dies at it costs no register, and the allocator may give both the same one.

use crate::ir::model::{Function, Inst, Operand, Reg, RegClass, VRegId, vflags};
use crate::ir::opcode::{Opcode, props};

/// What [`split`] did: `(bound vreg, its pinned twin)`, parameters then returns.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Split {
    pub params: Vec<(VRegId, VRegId)>,
    pub returns: Vec<(VRegId, VRegId)>,
}

impl Split {
    /// The twin that now carries `v`'s binding, if `v` was split.
    pub fn twin(&self, v: VRegId) -> Option<VRegId> {
        self.params.iter().chain(&self.returns).find(|(old, _)| *old == v).map(|&(_, new)| new)
    }
}

/// Gives every bound parameter and return vreg of `f` its pinned twin and rebinds the
/// function's `.abi` spec to the twins. A function without a spec, or without blocks,
/// is left alone, and so is a binding the body never reads (parameter) or writes
/// (return value). Idempotent: a binding that is already a twin (`$in`/`$out`) is kept.
pub fn split(f: &mut Function) -> Split {
    let mut out = Split::default();
    let Some(spec) = f.abi.clone() else { return out };
    if f.blocks.is_empty() {
        return out;
    }
    let mov = Opcode::named("MOV");
    // A binding the body never reads (a parameter) or never writes (a return value)
    // needs no twin: it has no range to collide with.
    let (mut read, mut written) = (vec![false; f.vregs.len()], vec![false; f.vregs.len()]);
    for i in f.blocks.iter().flat_map(|b| &b.insts) {
        i.for_each_use(|r| read[r.vreg.index()] = true);
        i.for_each_def(|r| written[r.vreg.index()] = true);
    }
    let mut entry = Vec::new();
    let mut params = spec.params.clone();
    for p in &mut params {
        let Some(v) = p.bind.filter(|v| read.get(v.index()) == Some(&true) && !is_twin(f, *v, "$in")) else {
            continue;
        };
        let twin = twin_of(f, v, "$in");
        entry.push(Inst::new(mov, vec![Operand::vreg(v)], vec![Operand::vreg(twin)]));
        p.bind = Some(twin);
        out.params.push((v, twin));
    }
    let mut returns = spec.returns.clone();
    for r in &mut returns {
        let Some(v) = r.bind.filter(|v| written.get(v.index()) == Some(&true) && !is_twin(f, *v, "$out")) else {
            continue;
        };
        let twin = twin_of(f, v, "$out");
        r.bind = Some(twin);
        out.returns.push((v, twin));
    }
    if !entry.is_empty() {
        let origin = f.blocks[0].insts.first().and_then(|i| i.origin);
        for i in &mut entry {
            i.origin = origin;
        }
        f.blocks[0].insts.splice(0..0, entry);
    }
    if !out.returns.is_empty() {
        for b in &mut f.blocks {
            let mut i = 0;
            while i < b.insts.len() {
                if !b.insts[i].info().is(props::EXIT) {
                    i += 1;
                    continue;
                }
                let ret = &mut b.insts[i];
                let (guard, origin) = (ret.guard, ret.origin);
                // The RET reads the twins, so they (not the bodies' vregs) are what is
                // live out of the exits.
                for op in ret.operands.iter_mut() {
                    if let Operand::Reg(Reg::V(r)) = op
                        && let Some(t) = out.returns.iter().find(|(old, _)| *old == r.vreg).map(|p| p.1)
                    {
                        r.vreg = t;
                    }
                }
                let copies: Vec<Inst> = out
                    .returns
                    .iter()
                    .map(|&(v, t)| {
                        let mut c = Inst::new(mov, vec![Operand::vreg(t)], vec![Operand::vreg(v)]);
                        c.guard = guard;
                        c.origin = origin;
                        c
                    })
                    .collect();
                let n = copies.len();
                b.insts.splice(i..i, copies);
                i += n + 1;
            }
        }
    }
    if let Some(a) = f.abi.as_mut() {
        a.params = params;
        a.returns = returns;
    }
    out
}

/// The return address of a function that calls (seed 001, "Return Address Register"): a
/// CALL writes the callee's return address into the callee's return-address register,
/// and its parameters and return values may lie over the caller's own, so the caller's
/// return address is a value it must keep elsewhere across its calls, not a register
/// fixed for its whole body (issue 22: `%abi_c0_r0_0 occupies fixed register R8` on a
/// `.func` calling a `.func` whose return value lands on the caller's return address).
/// Adds the pair `%retaddr`, copied at the entry from `%retaddr$in` and before every
/// `RET` into `%retaddr$out`, which the `RET` reads; returns the two pinned twins. `None`
/// when the function has no blocks or a `%retaddr` already.
pub fn split_ret_addr(f: &mut Function) -> Option<(VRegId, VRegId)> {
    if f.blocks.is_empty() || f.vregs.iter().any(|v| &*v.name == "%retaddr") {
        return None;
    }
    let mov = Opcode::named("MOV");
    let body = f.add_vreg("%retaddr", RegClass::R, 2);
    let pin_in = f.add_vreg("%retaddr$in", RegClass::R, 2);
    let pin_out = f.add_vreg("%retaddr$out", RegClass::R, 2);
    let mut first = Inst::new(mov, vec![Operand::vreg(body)], vec![Operand::vreg(pin_in)]);
    first.origin = f.blocks[0].insts.first().and_then(|i| i.origin);
    f.blocks[0].insts.insert(0, first);
    for b in &mut f.blocks {
        let mut i = 0;
        while i < b.insts.len() {
            if b.insts[i].op.mnemonic() != "RET" {
                i += 1;
                continue;
            }
            let ops = &mut b.insts[i].operands;
            *ops = std::mem::take(ops).into_iter().chain([Operand::vreg(pin_out)]).collect();
            let mut c = Inst::new(mov, vec![Operand::vreg(pin_out)], vec![Operand::vreg(body)]);
            c.guard = b.insts[i].guard;
            c.origin = b.insts[i].origin;
            b.insts.insert(i, c);
            i += 2;
        }
    }
    Some((pin_in, pin_out))
}

fn is_twin(f: &Function, v: VRegId, suffix: &str) -> bool {
    f.vregs.get(v.index()).is_some_and(|r| r.name.ends_with(suffix))
}

/// A fresh vreg of `v`'s class and width named `v` + `suffix` (made unique).
fn twin_of(f: &mut Function, v: VRegId, suffix: &str) -> VRegId {
    let (name, class, width, flags) = {
        let r = &f.vregs[v.index()];
        (r.name.to_string(), r.class, r.width, r.flags)
    };
    let mut n = format!("{name}{suffix}");
    let mut k = 0;
    while f.vregs.iter().any(|r| *r.name == *n) {
        k += 1;
        n = format!("{name}{suffix}{k}");
    }
    let id = f.add_vreg(n, class, width);
    // The twin inherits the binding's meaning (an aligned pair stays aligned); the
    // body's vreg keeps its own flags but is no longer pre-assigned.
    f.vregs[id.index()].flags = flags & !vflags::ASSEMBLED;
    id
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::parse::parse_str;

    fn func(src: &str) -> Function {
        let m = parse_str(src).expect("parses");
        m.functions.into_iter().next().expect("one function")
    }

    const SRC: &str = ".target sm_90\n.func f {\n  .reg .R %a\n  .reg .R %r\n  .abi {\n    param 1x4 = %a\n    return 1x4 = %r\n  }\nBB0:\n  %r = IADD3 %a, 1, RZ\n  RET %r\n}\n";

    #[test]
    fn parameters_are_copied_at_entry_and_returns_before_ret() {
        let mut f = func(SRC);
        let s = split(&mut f);
        assert_eq!(s.params.len(), 1);
        assert_eq!(s.returns.len(), 1);
        let spec = f.abi.as_ref().expect("spec");
        let pin_in = spec.params[0].bind.expect("bound");
        let pin_out = spec.returns[0].bind.expect("bound");
        assert_eq!(&*f.vregs[pin_in.index()].name, "%a$in");
        assert_eq!(&*f.vregs[pin_out.index()].name, "%r$out");
        let insts = &f.blocks[0].insts;
        assert_eq!(insts.len(), 4, "entry copy, body, exit copy, RET");
        assert_eq!(insts[0].uses()[0], Operand::vreg(pin_in));
        assert_eq!(insts[2].defs()[0], Operand::vreg(pin_out));
        assert_eq!(insts[3].uses()[0], Operand::vreg(pin_out));
    }

    #[test]
    fn splitting_twice_changes_nothing() {
        let mut f = func(SRC);
        split(&mut f);
        let once = f.clone();
        let s = split(&mut f);
        assert_eq!(s, Split::default());
        assert_eq!(f, once);
    }
}
