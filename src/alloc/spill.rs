//! Spill code generation (seed 003, "Spill Code Generation", sub_94F150; slot setup
//! sub_939BD0, "LMEM Spilling"; "SMEM Spilling").
//!
//! For every spilled vreg: a slot in local memory (or, for UR/tensor classes in OptiX
//! compile mode 5, in shared memory), a store right after each definition (under the
//! definition's guard), and a reload
//! into a fresh short-lived vreg right before each instruction that reads it. Inserted
//! instructions carry the `.SPILL` modifier so they can be told from user code, and the
//! origin (PTX line) of the instruction they serve.

use crate::ir::{Function, Inst, MemRef, Opcode, Operand, VReg, VRegId, vflags};

/// Seed 003, "SMEM Spilling", hard restriction (asserted twice in sub_9539C0), verbatim.
pub const SMEM_ABI_ASSERTION: &str = "Smem spilling should not be enabled when functions use abi.";

/// Whether SMEM spilling may be on for function `f`: `requested` (compile mode 5, or
/// knob 619) unless the function uses the ABI. Seed 003: "Smem spilling should not be
/// enabled when functions use abi. [...] Functions using the GPU calling convention
/// require a stable stack frame in local memory"; activation condition 4, "the function
/// does not use ABI calling conventions". radbg reads "uses abi" as: the function has an
/// engaged ABI (a `.func` with its calling convention, `uses_abi`) or makes a call (its
/// callee's convention governs the frame around the CALL). Where ptxas asserts, radbg
/// keeps the function's spills in local memory and says so (`smem_refusal`).
pub fn smem_allowed(requested: bool, uses_abi: bool, f: &Function) -> bool {
    requested && !uses_abi && !makes_call(f)
}

/// Why SMEM spilling was refused for `f`, or `None` when it was not requested or is allowed.
pub fn smem_refusal(requested: bool, uses_abi: bool, f: &Function) -> Option<String> {
    if !requested || smem_allowed(requested, uses_abi, f) {
        return None;
    }
    let how = if uses_abi { "follows the calling convention" } else { "makes a call" };
    Some(format!("SMEM spilling off for {}: it {how} (seed 003: \"{SMEM_ABI_ASSERTION}\")", f.name))
}

fn makes_call(f: &Function) -> bool {
    f.blocks.iter().flat_map(|b| &b.insts).any(|i| i.info().is(crate::ir::opcode::props::CALL))
}

/// The slot-pool configuration of sub_939BD0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SlotConfig {
    pub bucket: u32,
    pub align: u32,
    pub max_pool: u32,
}

impl SlotConfig {
    /// `cost threshold == 0.0` → 8-byte buckets aligned to 4; otherwise 16/16; 1 MB pool.
    pub fn for_threshold(threshold: f64) -> SlotConfig {
        if threshold == 0.0 {
            SlotConfig { bucket: 8, align: 4, max_pool: 1 << 20 }
        } else {
            SlotConfig { bucket: 16, align: 16, max_pool: 1 << 20 }
        }
    }
}

/// Where spilled values live.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpillMem {
    Local,
    Shared,
}

/// A bump allocator of spill slots.
#[derive(Clone, Debug, PartialEq)]
pub struct SlotPool {
    pub config: SlotConfig,
    /// Next free byte offset.
    pub top: u32,
}

impl SlotPool {
    pub fn new(config: SlotConfig) -> SlotPool {
        SlotPool { config, top: 0 }
    }

    /// Allocates `bytes` aligned to the larger of the pool alignment and the value's
    /// natural alignment (up to the bucket size); `None` when the 1 MB pool is full.
    pub fn alloc(&mut self, bytes: u32) -> Option<u32> {
        let align = self.config.align.max(bytes.min(self.config.bucket)).max(4);
        let off = self.top.div_ceil(align) * align;
        let end = off.checked_add(bytes)?;
        if end > self.config.max_pool {
            return None;
        }
        self.top = end;
        Some(off)
    }

    /// The stack frame: used bytes rounded up to 8.
    pub fn frame(&self) -> u32 {
        self.top.div_ceil(8) * 8
    }
}

/// What was inserted for one spilled vreg.
#[derive(Clone, Debug, PartialEq)]
pub struct SpilledVreg {
    pub vreg: VRegId,
    pub mem: SpillMem,
    pub offset: u32,
    pub bytes: u32,
    pub stores: u32,
    pub reloads: u32,
    /// The reload temporaries created for its uses.
    pub temps: Vec<VRegId>,
    /// Origins (source lines) of the instructions that got spill code.
    pub origins: Vec<u32>,
}

fn width_mod(width: u8) -> &'static str {
    match width {
        1 => ".SPILL",
        2 => ".64.SPILL",
        4 => ".128.SPILL",
        _ => ".V.SPILL",
    }
}

/// Inserts spill code for `spilled` (each with its slot) into `f`. Vreg ids of existing
/// vregs are unchanged; reload temporaries are appended. Returns one record per vreg.
pub fn insert(f: &mut Function, spilled: &[(VRegId, SpillMem, u32)]) -> Vec<SpilledVreg> {
    let mut recs: Vec<SpilledVreg> = spilled
        .iter()
        .map(|&(v, mem, offset)| SpilledVreg {
            vreg: v,
            mem,
            offset,
            bytes: f.vreg(v).width as u32 * 4,
            stores: 0,
            reloads: 0,
            temps: Vec::new(),
            origins: Vec::new(),
        })
        .collect();
    let mut slot_index: Vec<Option<usize>> = vec![None; f.vregs.len()];
    for (i, s) in spilled.iter().enumerate() {
        if let Some(x) = slot_index.get_mut(s.0.index()) {
            *x = Some(i);
        }
    }
    let index_of = |v: VRegId| slot_index.get(v.index()).copied().flatten();
    for &(v, _, _) in spilled {
        f.vregs[v.index()].flags |= vflags::SPILLED;
    }
    // Per block, how many reloads and stores go in (one cheap walk), so that every
    // vector grows once: the function can gain tens of thousands of instructions and
    // temporaries, and growing by doubling copies them repeatedly.
    let mut per_rec = vec![0usize; recs.len()];
    let extra: Vec<(usize, usize)> = f
        .blocks
        .iter()
        .map(|blk| {
            let (mut reloads, mut stores) = (0, 0);
            for inst in &blk.insts {
                inst.for_each_use(|r| {
                    if let Some(i) = index_of(r.vreg) {
                        reloads += 1;
                        per_rec[i] += 1;
                    }
                });
                inst.for_each_def(|r| {
                    if let Some(i) = index_of(r.vreg) {
                        stores += 1;
                        per_rec[i] += 1;
                    }
                });
            }
            (reloads, stores)
        })
        .collect();
    for (rec, &n) in recs.iter_mut().zip(&per_rec) {
        rec.temps.reserve(n);
        rec.origins.reserve(n);
    }
    let temps: usize = extra.iter().map(|e| e.0).sum();
    f.vregs.reserve(temps);
    f.decls.reserve(temps);
    let ops = (Opcode::named("LDL"), Opcode::named("LDS"), Opcode::named("STL"), Opcode::named("STS"));
    // Which defs end the vreg's older value: the liveness's own rule (a whole def that
    // always executes, a guarded def of a vreg defined once, the first component def of
    // an assembled vreg). Any other def — one component of a wide vreg, a guarded def —
    // keeps the older value (seed 004, "Backward Walk Live Set Update Rule").
    let single = crate::analysis::liveness::single_defs(f);
    let comp_kill = crate::analysis::liveness::comp_kills(f);
    let partial = |inst: &Inst, r: crate::ir::model::RegRef| match r.comp {
        None => !crate::analysis::liveness::kills(inst) && !single.get(r.vreg.index()).copied().unwrap_or(false),
        Some(c) => comp_kill.get(r.vreg.index()).is_none_or(|&k| k != c),
    };
    for (b, &(reloads, stores)) in extra.iter().enumerate() {
        let old = std::mem::take(&mut f.blocks[b].insts);
        let mut out = Vec::with_capacity(old.len() + reloads + stores);
        // Per spilled vreg: where in `out` its last store went (this block), while its
        // register still holds what the slot holds.
        let mut stored_at: Vec<Option<usize>> = vec![None; recs.len()];
        for mut inst in old {
            // A def that keeps the older value reads it: written straight into the
            // spilled vreg, the vreg would stay live from its previous def down to here
            // and spilling it would free nothing there (a 64-bit value rebuilt from its
            // halves, `mov.b64 %rd, {%r1, %r2}`, under an if-converted guard: a boojum
            // barycentric kernel failed at 32 registers; `tests/regress/`). So the vreg
            // is first reloaded into itself — an unguarded whole def, which kills — and
            // the instruction's reads of it read that register; unless its last store
            // was a moment ago (then the register still holds the slot's value).
            let mut refill: Vec<usize> = Vec::new();
            inst.for_each_def(|r| {
                if let Some(i) = index_of(r.vreg)
                    && partial(&inst, r)
                    && !refill.contains(&i)
                {
                    refill.push(i);
                }
            });
            for &i in &refill {
                if stored_at[i].is_some_and(|at| out.len() - at <= 3) {
                    continue;
                }
                let rec = &mut recs[i];
                let width = f.vregs[rec.vreg.index()].width;
                out.push(reload(rec, (&ops.0, &ops.1), rec.vreg, width, inst.origin));
                rec.reloads += 1;
                if let Some(o) = inst.origin {
                    rec.origins.push(o);
                }
            }
            // Reloads for the vregs this instruction reads.
            let mut reads: Vec<usize> = Vec::new();
            inst.for_each_use(|r| {
                if let Some(i) = index_of(r.vreg)
                    && !reads.contains(&i)
                    && !refill.contains(&i)
                {
                    reads.push(i);
                }
            });
            for &i in &reads {
                let rec = &mut recs[i];
                let t = temporary(f, rec.vreg, "$rl", rec.temps.len(), inst.origin);
                let width = f.vregs[rec.vreg.index()].width;
                rec.temps.push(t);
                rec.reloads += 1;
                if let Some(o) = inst.origin {
                    rec.origins.push(o);
                }
                out.push(reload(rec, (&ops.0, &ops.1), t, width, inst.origin));
                rename_uses(&mut inst, rec.vreg, t);
            }
            // Stores after the definitions of spilled vregs.
            let mut writes: Vec<usize> = Vec::new();
            inst.for_each_def(|r| {
                if let Some(i) = index_of(r.vreg)
                    && !writes.contains(&i)
                {
                    writes.push(i);
                }
            });
            let (origin, guard) = (inst.origin, inst.guard);
            out.push(inst);
            for i in writes {
                let rec = &mut recs[i];
                let width = f.vregs[rec.vreg.index()].width;
                let op = match rec.mem {
                    SpillMem::Local => ops.2,
                    SpillMem::Shared => ops.3,
                };
                let mut st = Inst::new(
                    op,
                    vec![],
                    vec![
                        Operand::Mem(Box::new(MemRef {
                            base: None,
                            index: None,
                            sym: None,
                            offset: rec.offset as i64,
                        })),
                        Operand::vreg(rec.vreg),
                    ],
                );
                st.mods = width_mod(width).into();
                // A guarded def writes the register only where its guard holds; the store
                // shares the guard, so elsewhere the slot keeps the value it had (the
                // register then holds nothing of the vreg).
                st.guard = guard;
                st.origin = origin;
                stored_at[i] = Some(out.len());
                out.push(st);
                rec.stores += 1;
                if let Some(o) = origin {
                    rec.origins.push(o);
                }
            }
        }
        f.blocks[b].insts = out;
    }
    recs
}

/// A fresh temporary of `of`'s class and width, named `of` + `tag` + `k` (`%x$rl0`),
/// flagged spilled, serving the instruction at `origin`. Only what the temporary inherits
/// is read (no clone of the whole vreg).
fn temporary(f: &mut Function, of: VRegId, tag: &str, k: usize, origin: Option<u32>) -> VRegId {
    let (name, class, width) = {
        let o = &f.vregs[of.index()];
        (VReg::derived_name(&o.name, tag, k), o.class, o.width)
    };
    let t = VRegId::new(f.vregs.len());
    let mut tv = VReg::new(name.clone(), class, width, f.decls.len());
    tv.flags = vflags::SPILLED;
    tv.origin = origin;
    f.decls.push(crate::ir::RegDecl { prefix: name, count: None, class, width, origin });
    f.vregs.push(tv);
    t
}

/// A spill reload of `rec`'s slot into `dest` (a reload temporary, or the spilled vreg
/// itself before a def that keeps its older value), `width` registers wide, from the
/// instruction at `origin`. `loads` are the LDL and LDS opcodes.
fn reload(rec: &SpilledVreg, loads: (&Opcode, &Opcode), dest: VRegId, width: u8, origin: Option<u32>) -> Inst {
    let op = match rec.mem {
        SpillMem::Local => loads.0,
        SpillMem::Shared => loads.1,
    };
    let slot = MemRef { base: None, index: None, sym: None, offset: rec.offset as i64 };
    let mut ld = Inst::new(*op, vec![Operand::vreg(dest)], vec![Operand::Mem(Box::new(slot))]);
    ld.mods = width_mod(width).into();
    ld.origin = origin;
    ld
}

/// Replaces every read of `from` in `inst` (sources, guard, address registers) by `to`,
/// keeping component selections. Destinations are left alone.
fn rename_uses(inst: &mut Inst, from: VRegId, to: VRegId) {
    inst.for_each_use_mut(|r| {
        if r.vreg == from {
            r.vreg = to;
        }
    });
}

/// A spilled vreg recomputed before each use instead of stored (seed 000: ptxas's
/// allocator keeps rematerialization candidate lists per class, +696 and +1128–1271,
/// populated before the allocation loop; which values qualify the seed does not say).
/// radbg's choice (ARCHITECTURE.md, issue 23 rule 16): a value whose one def reads no
/// register — a launch-invariant special register (`S2R SR_CTAID.X`: ggml's
/// `ggml_matvec_f32` under `--maxrregcount 32` reads `SR_CTAID.X` and `SR_CTAID.Y` twice
/// each rather than spilling them), a constant-bank word or an immediate — costs one
/// instruction per use and no memory, so it is rematerialized.
#[derive(Clone, Debug, PartialEq)]
pub struct Remat {
    pub vreg: VRegId,
    /// The temporaries, one per instruction that reads the value, each defined by a copy
    /// of the value's def right before that instruction.
    pub temps: Vec<VRegId>,
    /// Origins (source lines) of the instructions that got a recomputation.
    pub origins: Vec<u32>,
}

/// Special registers that hold the same value wherever a thread reads them.
fn invariant_special(s: &str) -> bool {
    ["SR_TID", "SR_CTAID", "SR_NTID", "SR_NCTAID", "SR_LANEID", "SR_CLUSTERID", "SR_NCLUSTERID"]
        .iter()
        .any(|p| s.starts_with(p))
}

/// Of `vs`, those that can be rematerialized, each with its def (see [`Remat`]).
pub fn rematerializable(f: &Function, vs: &[VRegId]) -> Vec<(VRegId, Inst)> {
    let mut want = vec![false; f.vregs.len()];
    for v in vs {
        want[v.index()] = true;
    }
    let mut defs: Vec<(u32, Option<&Inst>)> = vec![(0, None); f.vregs.len()];
    for inst in f.blocks.iter().flat_map(|b| &b.insts) {
        inst.for_each_def(|r| {
            if want[r.vreg.index()] {
                let d = &mut defs[r.vreg.index()];
                d.0 += if r.comp.is_none() { 1 } else { 2 };
                d.1 = Some(inst);
            }
        });
    }
    vs.iter()
        .filter_map(|&v| {
            let (n, inst) = defs[v.index()];
            let inst = inst?;
            let m = inst.op.mnemonic();
            let ok = n == 1
                && inst.ndefs == 1
                && inst.guard_is_always()
                && !inst.has_side_effects()
                && f.vreg(v).alias.is_none()
                && f.vreg(v).pin.is_none()
                && match (m, inst.uses()) {
                    ("S2R", [Operand::Special(s)]) => invariant_special(s),
                    ("LDC", [Operand::CBank { .. }]) => true,
                    ("MOV", [Operand::Imm(_) | Operand::FImm(_) | Operand::CBank { .. }]) => true,
                    _ => false,
                };
            ok.then(|| (v, inst.clone()))
        })
        .collect()
}

/// Rematerializes `list` (from [`rematerializable`]) in `f`: each value's def goes, and
/// a copy of it into a fresh temporary comes right before every instruction that reads
/// the value. Returns one record per vreg.
pub fn rematerialize(f: &mut Function, list: &[(VRegId, Inst)]) -> Vec<Remat> {
    let mut index: Vec<Option<usize>> = vec![None; f.vregs.len()];
    for (i, (v, _)) in list.iter().enumerate() {
        index[v.index()] = Some(i);
    }
    let mut recs: Vec<Remat> =
        list.iter().map(|(v, _)| Remat { vreg: *v, temps: Vec::new(), origins: Vec::new() }).collect();
    for (v, _) in list {
        f.vregs[v.index()].flags |= vflags::SPILLED;
    }
    for b in 0..f.blocks.len() {
        let old = std::mem::take(&mut f.blocks[b].insts);
        let mut out = Vec::with_capacity(old.len());
        for mut inst in old {
            let mut defines = false;
            inst.for_each_def(|r| defines |= index.get(r.vreg.index()).copied().flatten().is_some());
            if defines {
                continue;
            }
            let mut reads: Vec<usize> = Vec::new();
            inst.for_each_use(|r| {
                if let Some(i) = index.get(r.vreg.index()).copied().flatten()
                    && !reads.contains(&i)
                {
                    reads.push(i);
                }
            });
            for i in reads {
                let (v, def) = &list[i];
                let rec = &mut recs[i];
                let t = temporary(f, *v, "$rm", rec.temps.len(), inst.origin);
                let mut copy = def.clone();
                copy.operands[0] = Operand::vreg(t);
                copy.origin = inst.origin;
                out.push(copy);
                rename_uses(&mut inst, *v, t);
                rec.temps.push(t);
                if let Some(o) = inst.origin {
                    rec.origins.push(o);
                }
            }
            out.push(inst);
        }
        f.blocks[b].insts = out;
    }
    recs
}

/// Whether an instruction is spill code inserted by the allocator.
pub fn is_spill_code(inst: &Inst) -> bool {
    matches!(inst.op.mnemonic(), "STL" | "LDL" | "STS" | "LDS") && inst.has_mod("SPILL")
}

/// Spill traffic of a function in bytes: (stores, loads), counting inserted spill code.
pub fn traffic(f: &Function) -> (u32, u32) {
    let (mut st, mut ld) = (0, 0);
    for inst in f.blocks.iter().flat_map(|b| &b.insts) {
        if !is_spill_code(inst) {
            continue;
        }
        let bytes = |op: &Operand| op.as_vreg().map(|r| f.vreg(r.vreg).width as u32 * 4).unwrap_or(0);
        if inst.ndefs == 0 {
            st += inst.uses().iter().map(bytes).sum::<u32>();
        } else {
            ld += inst.defs().iter().map(bytes).sum::<u32>();
        }
    }
    (st, ld)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slot_configs_follow_seed() {
        let mut p = SlotPool::new(SlotConfig::for_threshold(0.0));
        assert_eq!(p.alloc(4), Some(0));
        assert_eq!(p.alloc(8), Some(8));
        assert_eq!(p.alloc(4), Some(16));
        assert_eq!(p.frame(), 24);
        let mut q = SlotPool::new(SlotConfig::for_threshold(1.0));
        assert_eq!(q.alloc(4), Some(0));
        assert_eq!(q.alloc(4), Some(16));
        let mut full = SlotPool::new(SlotConfig { bucket: 8, align: 4, max_pool: 8 });
        assert_eq!(full.alloc(8), Some(0));
        assert_eq!(full.alloc(4), None);
    }
}
