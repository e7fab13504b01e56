//! The uninitialized-register detector (seed 004, "Uninitialized Register Detector",
//! sub_A0B5E0, warning 0x1E14): registers live on entry to the function that nothing
//! defines there.
//!
//! Owns the warning; knows liveness and the CFG, not allocation.
//!
//! ptxas walks the entry block's live-in set and reports every register whose
//! descriptor lacks the 0x20 flag (at +48, the vreg flags word). radbg does the same
//! with `defined_at_entry` (ABI parameters and pinned vregs, passed by the caller) and
//! the 0x20 flag both counting as "defined", then finds where each candidate is first
//! read: a forward "maybe undefined" dataflow, per 32-bit component so that a pair
//! built half by half (`%rd0.lo = ..; %rd0.hi = ..`) is recognised as initialized even
//! though liveness (where a component def does not kill) keeps it live from entry.
//! A register is reported when some read may see an undefined component; its point is
//! the first such read in program-point order.

use crate::analysis::bits;
use crate::analysis::cfg::Cfg;
use crate::analysis::liveness::{Liveness, kills};
use crate::ir::model::{Function, Inst, VRegId};
use crate::ir::opcode::props;

/// Seed 004: the descriptor flag (vreg flags word, +48) marking a register as defined.
pub const DEFINED_FLAG: u64 = 0x20;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UninitWarning {
    pub function: String,
    /// The registers and the first program point that may read them undefined, by vreg id.
    pub regs: Vec<(VRegId, u32)>,
    /// Exactly `Found %d potentially uninitialized register(s) in function %s`.
    pub message: String,
}

impl UninitWarning {
    /// One line per register: `%r3 first read at [12] (BB1+2)`.
    pub fn details(&self, f: &Function) -> Vec<String> {
        let layout = f.layout();
        self.regs
            .iter()
            .map(|&(v, p)| {
                let name = f.vregs.get(v.index()).map_or("?", |r| r.name.as_ref());
                match layout.locate(p) {
                    Some((b, i)) => format!("{name} first read at [{p}] ({}+{i})", f.blocks[b].label),
                    None => format!("{name} first read at [{p}]"),
                }
            })
            .collect()
    }
}

/// The warning for `f`, or `None` when every register live on entry is defined there.
pub fn find(f: &Function, cfg: &Cfg, live: &Liveness, defined_at_entry: &[VRegId]) -> Option<UninitWarning> {
    if f.blocks.is_empty() {
        return None;
    }
    // The detector keeps the conservative reading of predicated defs (a predicated def
    // never kills), so a vreg defined only under a guard and read unguarded is reported.
    let exit: Vec<VRegId> = live.exit_live().iter().collect();
    let conservative = crate::analysis::liveness::compute_conservative(f, cfg, &exit);
    let cands: Vec<VRegId> = conservative
        .live_in(0)
        .iter()
        .filter(|v| !defined_at_entry.contains(v))
        .filter(|v| f.vregs.get(v.index()).is_some_and(|r| r.flags & DEFINED_FLAG == 0))
        .collect();
    if cands.is_empty() {
        return None;
    }
    // One bit per (candidate, component).
    let mut base = vec![usize::MAX; f.vregs.len()];
    let mut nbits = 0usize;
    for &v in &cands {
        base[v.index()] = nbits;
        nbits += f.vreg(v).width.max(1) as usize;
    }
    let width = |v: VRegId| f.vreg(v).width.max(1) as usize;
    let words = bits::words_for(nbits);
    let nb = f.blocks.len();

    // Forward may-be-undefined: everything undefined on entry; a def of a component
    // that always executes defines it; meet is union.
    let mut inn = vec![0u64; nb * words];
    let mut out = vec![0u64; nb * words];
    let mut changed = true;
    while changed {
        changed = false;
        for &b in &cfg.rpo {
            let mut cur = vec![0u64; words];
            if b == 0 {
                for i in 0..nbits {
                    bits::set(&mut cur, i);
                }
            }
            for &p in &cfg.preds[b] {
                bits::or(&mut cur, &out[p * words..(p + 1) * words]);
            }
            inn[b * words..(b + 1) * words].copy_from_slice(&cur);
            for inst in &f.blocks[b].insts {
                define(inst, &base, width, &mut cur);
            }
            if bits::or_if_changed(&mut out[b * words..(b + 1) * words], &cur) {
                changed = true;
            }
        }
    }

    // First read of a possibly undefined component, in program-point order.
    let layout = f.layout();
    let mut first: Vec<Option<u32>> = vec![None; cands.len()];
    let exit_live: Vec<VRegId> = live.exit_live().iter().collect();
    for &b in &cfg.rpo {
        let mut cur = inn[b * words..(b + 1) * words].to_vec();
        for (i, inst) in f.blocks[b].insts.iter().enumerate() {
            let p = layout.point(b, i);
            let mut read = |v: VRegId, comp: Option<u8>| {
                let Some(&k) = base.get(v.index()) else { return };
                if k == usize::MAX {
                    return;
                }
                let w = width(v);
                let undefined = match comp {
                    Some(c) if (c as usize) < w => bits::test(&cur, k + c as usize),
                    _ => (0..w).any(|c| bits::test(&cur, k + c)),
                };
                if undefined {
                    let ci = cands.binary_search(&v).unwrap_or(0);
                    if first[ci].is_none_or(|q| p < q) {
                        first[ci] = Some(p);
                    }
                }
            };
            inst.for_each_use(|r| read(r.vreg, r.comp));
            if inst.info().is(props::EXIT) {
                for &v in &exit_live {
                    read(v, None);
                }
            }
            define(inst, &base, width, &mut cur);
        }
        // Falling off the end or leaving through a terminating EXIT reads exit-live
        // registers at the block end; record them at the block's last instruction.
        if cfg.exits.contains(&b) && !f.blocks[b].insts.is_empty() {
            let p = layout.point(b, f.blocks[b].insts.len() - 1);
            for &v in &exit_live {
                if let Some(&k) = base.get(v.index())
                    && k != usize::MAX
                    && (0..width(v)).any(|c| bits::test(&cur, k + c))
                {
                    let ci = cands.binary_search(&v).unwrap_or(0);
                    if first[ci].is_none_or(|q| p < q) {
                        first[ci] = Some(p);
                    }
                }
            }
        }
    }

    let regs: Vec<(VRegId, u32)> = cands.iter().zip(&first).filter_map(|(&v, p)| p.map(|p| (v, p))).collect();
    if regs.is_empty() {
        return None;
    }
    let message = format!("Found {} potentially uninitialized register(s) in function {}", regs.len(), f.name);
    Some(UninitWarning { function: f.name.to_string(), regs, message })
}

/// Clears the bits of the components `inst` always defines.
fn define(inst: &Inst, base: &[usize], width: impl Fn(VRegId) -> usize, cur: &mut [u64]) {
    if !kills(inst) {
        return;
    }
    inst.for_each_def(|r| {
        let Some(&k) = base.get(r.vreg.index()) else { return };
        if k == usize::MAX {
            return;
        }
        let w = width(r.vreg);
        match r.comp {
            Some(c) if (c as usize) < w => bits::clear(cur, k + c as usize),
            Some(_) => {}
            None => (0..w).for_each(|c| bits::clear(cur, k + c)),
        }
    });
}
