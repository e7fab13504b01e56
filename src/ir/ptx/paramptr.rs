//! Registers that hold a kernel parameter's address plus a constant, so that a parameter
//! load through them (`ld.param.u64 %rd8, [%rd4+-88]`) is the constant-bank read it is.
//!
//! NVRTC passes a large by-value struct (bart's `im2col_descriptor`, CUB's dispatch
//! parameters) by taking its address once and loading each field through it:
//!
//! ```text
//! mov.b64  %rd66, k_param_0;
//! add.s64  %rd4, %rd66, 200;
//! ld.param.u64  %rd8, [%rd4+-88];
//! ```
//!
//! ptxas 13.0.88 reads each such field from the bank where it is used, as it does for
//! `ld.param [k_param_0+112]`: in the development part's SASS (nvdisasm, bart
//! `num_gpu_conv`, sm_80) the field at `%rd4 - 152` (parameter offset 48) is
//! `c[0x0][0x190]` in `I2F.U32.RP R0, c[0x0][0x190]` and `IMAD R7, R7, c[0x0][0x190], RZ`,
//! never a register loaded at the entry. radbg imported these loads as `LDC.PARAM` from a
//! register address, so every field stayed live in a register pair from the entry to its
//! last use (bart `kern_im2col_valid<3, unsigned long>`: 12 pairs across the whole
//! function; radbg 48 registers, ptxas 26).
//!
//! Only a register with exactly one definition in the function qualifies — an unguarded
//! 64-bit `mov` of a kernel parameter's name or an unguarded 64-bit `add` of a
//! qualifying register and an integer immediate — and only in a function whose nested
//! blocks declare nothing (one scope: a name means one register). Anything else that
//! names the register as a destination (a second definition, a vector or pair
//! destination, a call's return list) leaves it an ordinary register.

use super::ast::{Inst, Lit, MemItem, OpKind, Operand, Stmt};
use super::names::NameMap;

/// The registers of `body` that hold `param + offset` for a kernel parameter `param`
/// (`is_kernel_param`), by register name.
pub(super) fn param_pointers<'a>(
    body: &'a [Stmt<'a>],
    is_kernel_param: impl Fn(&str) -> bool,
) -> NameMap<&'a str, (&'a str, i64)> {
    let mut insts = Vec::new();
    if !flatten(body, &mut insts, false) {
        return NameMap::default();
    }
    // How many times each name is (or may be) a destination.
    let mut defs: NameMap<&'a str, u32> = NameMap::default();
    for i in &insts {
        if let Some(Operand { kind: OpKind::Name { name, .. }, .. }) = i.ops.first() {
            *defs.entry(name).or_insert(0) += 1;
        }
        for o in &i.ops {
            mark_compound(o, &mut defs);
        }
    }
    let mut ptrs: NameMap<&'a str, (&'a str, i64)> = NameMap::default();
    for i in &insts {
        if i.guard.is_some() || !is_64bit(i.mods_text) {
            continue;
        }
        let Some(dst) = whole_name(i.ops.first()) else { continue };
        if defs.get(dst) != Some(&1) {
            continue;
        }
        let value = match (i.base, &i.ops[1..]) {
            ("mov", [src]) => whole_name(Some(src)).filter(|&p| is_kernel_param(p)).map(|p| (p, 0)),
            ("add", [a, b]) => match (whole_name(Some(a)), int(b), whole_name(Some(b)), int(a)) {
                (Some(q), Some(k), _, _) | (_, _, Some(q), Some(k)) => {
                    ptrs.get(q).and_then(|&(p, off)| Some((p, off.checked_add(k)?)))
                }
                _ => None,
            },
            _ => None,
        };
        if let Some(v) = value {
            ptrs.insert(dst, v);
        }
    }
    ptrs
}

/// The instructions of `body` in order, nested blocks included; false when a nested
/// block declares anything (a second scope).
fn flatten<'a>(body: &'a [Stmt<'a>], out: &mut Vec<&'a Inst<'a>>, nested: bool) -> bool {
    for s in body {
        match s {
            Stmt::Inst(i) => out.push(i),
            Stmt::Decl(_) if nested => return false,
            Stmt::Block(inner, _) if !flatten(inner, out, true) => return false,
            _ => {}
        }
    }
    true
}

/// Names inside vectors, pairs, lists and negations may be destinations the first
/// operand does not show: each counts as two definitions, which disqualifies it.
fn mark_compound<'a>(o: &'a Operand<'a>, defs: &mut NameMap<&'a str, u32>) {
    let inner: Vec<&'a Operand<'a>> = match &o.kind {
        OpKind::Vector(v) | OpKind::List(v) => v.iter().collect(),
        OpKind::Pair(a, b) => vec![&**a, &**b],
        OpKind::Mem(items) => items
            .iter()
            .filter_map(|m| match m {
                MemItem::Other(o) => Some(o),
                MemItem::Addr { .. } => None,
            })
            .collect(),
        _ => return,
    };
    for x in inner {
        if let OpKind::Name { name, .. } = &x.kind {
            *defs.entry(name).or_insert(0) += 2;
        }
        mark_compound(x, defs);
    }
}

fn whole_name<'a>(o: Option<&'a Operand<'a>>) -> Option<&'a str> {
    match &o?.kind {
        OpKind::Name { name, comp: None } => Some(name),
        _ => None,
    }
}

fn int(o: &Operand<'_>) -> Option<i64> {
    match o.kind {
        OpKind::Imm(Lit::Int(k)) => Some(k),
        _ => None,
    }
}

/// A 64-bit integer or untyped operation (`.b64`, `.u64`, `.s64`).
fn is_64bit(mods: &str) -> bool {
    mods.split('.').any(|m| matches!(m, "b64" | "u64" | "s64"))
}
