//! Statistics in ptxas's own `-v` wording (seed 003, "Spill Statistics"), line for
//! line, so people and scripts can compare radbg's figures with ptxas's.

use crate::ir::{FuncKind, Function, RegFile, opcode::props};

/// The figures of one allocated function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FunctionStats {
    pub name: String,
    pub kind: FuncKind,
    /// General registers used (the `Used %d registers` figure).
    pub registers: u32,
    pub barriers: u32,
    pub stack_frame: u32,
    pub spill_stores: u32,
    pub spill_loads: u32,
    /// The fatal error when allocation failed.
    pub error: Option<String>,
}

impl FunctionStats {
    /// `ptxas info` / `ptxas warning` / `ptxas error` lines, as `ptxas -v` prints them.
    pub fn lines(&self, sm: &str, warn_on_spills: bool) -> Vec<String> {
        let mut out = Vec::new();
        match self.kind {
            FuncKind::Entry => out.push(format!("ptxas info    : Compiling entry function '{}' for '{sm}'", self.name)),
            FuncKind::Device => out.push(format!("ptxas info    : Compiling function '{}' for '{sm}'", self.name)),
        }
        if let Some(e) = &self.error {
            out.push(format!("ptxas error   : {e}"));
            return out;
        }
        out.push(format!("ptxas info    : Function properties for {}", self.name));
        out.push(format!(
            "    {} bytes stack frame, {} bytes spill stores, {} bytes spill loads",
            self.stack_frame, self.spill_stores, self.spill_loads
        ));
        if warn_on_spills && (self.spill_stores > 0 || self.spill_loads > 0) {
            out.push(format!(
                "ptxas warning : Registers are spilled to local memory in function '{}', {} bytes spill stores, {} bytes spill loads",
                self.name, self.spill_stores, self.spill_loads
            ));
        }
        if self.kind == FuncKind::Entry {
            out.push(format!("ptxas info    : Used {} registers, used {} barriers", self.registers, self.barriers));
        }
        out
    }
}

/// Seed 003's statistics object, the spill counters at DWORDs [12]..[20] ("Spill
/// Statistics"), which sub_A3A7E0 prints as two `#` lines ([`SpillStats::lines`]).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct SpillStats {
    /// radbg's estimate: the sum over instructions of their latency times their block's
    /// frequency (the seed gives the field, not ptxas's estimate; radbg takes the list
    /// scheduler's per-instruction latencies, `prepass::list::latency`).
    pub est_latency: u64,
    /// [12] LSpillB / [13] LRefillB: local-memory spill store / reload bytes.
    pub lspill_b: u32,
    pub lrefill_b: u32,
    /// [15] SSpillB / [14] SRefillB: shared-memory spill store / reload bytes.
    pub sspill_b: u32,
    pub srefill_b: u32,
    /// [16] LowLmemSpillSize: radbg reads "low bound" as the local spill slots' bytes
    /// without alignment padding.
    pub low_lmem_spill_size: u32,
    /// [17] FrameLmemSpillSize: the local spill area of the frame, padding included.
    pub frame_lmem_spill_size: u32,
    /// [18] LNonSpillB / [19] LNonRefillB: bytes the program itself stores to and loads
    /// from local memory (STL/LDL without `.SPILL`).
    pub lnonspill_b: u32,
    pub lnonrefill_b: u32,
    /// [20] NonSpillSize: the `.local` variables' bytes.
    pub nonspill_size: u32,
}

impl SpillStats {
    /// The counters of function `f` after spill code: `freq` its block frequencies,
    /// `latency` the per-instruction latency, `slots` the spilled vregs' local slot
    /// bytes, `frame` the local spill area, `nonspill_size` the `.local` variables' bytes.
    pub fn of(
        f: &Function,
        freq: &[f64],
        latency: &dyn Fn(&crate::ir::Inst) -> u32,
        slots: &[u32],
        frame: u32,
        nonspill_size: u32,
    ) -> SpillStats {
        let mut s = SpillStats {
            low_lmem_spill_size: slots.iter().sum(),
            frame_lmem_spill_size: frame,
            nonspill_size,
            ..SpillStats::default()
        };
        let mut latency_sum = 0.0f64;
        for (b, block) in f.blocks.iter().enumerate() {
            let fr = freq.get(b).copied().unwrap_or(1.0);
            for inst in &block.insts {
                latency_sum += latency(inst) as f64 * fr;
                let bytes = |ops: &[crate::ir::Operand]| {
                    ops.iter().filter_map(|o| o.as_vreg()).map(|r| f.vreg(r.vreg).width as u32 * 4).sum::<u32>()
                };
                let spill = inst.has_mod("SPILL");
                let counter = match (inst.op.mnemonic(), spill) {
                    ("STL", true) => &mut s.lspill_b,
                    ("LDL", true) => &mut s.lrefill_b,
                    ("STS", true) => &mut s.sspill_b,
                    ("LDS", true) => &mut s.srefill_b,
                    ("STL", false) => &mut s.lnonspill_b,
                    ("LDL", false) => &mut s.lnonrefill_b,
                    _ => continue,
                };
                *counter += if inst.ndefs == 0 { bytes(inst.uses()) } else { bytes(inst.defs()) };
            }
        }
        s.est_latency = latency_sum.round().clamp(0.0, u64::MAX as f64) as u64;
        s
    }

    /// The two lines of sub_A3A7E0, with the seed's format strings (seed 003, "Format
    /// strings"; the seed wraps the first after `[SSpillB=%d],`, radbg prints it whole).
    pub fn lines(&self) -> [String; 2] {
        [
            format!(
                "# [est latency = {}] [LSpillB={}] [LRefillB={}], [SSpillB={}], [SRefillB={}], [LowLmemSpillSize={}] [FrameLmemSpillSize={}]",
                self.est_latency,
                self.lspill_b,
                self.lrefill_b,
                self.sspill_b,
                self.srefill_b,
                self.low_lmem_spill_size,
                self.frame_lmem_spill_size
            ),
            format!(
                "# [LNonSpillB={}] [LNonRefillB={}], [NonSpillSize={}]",
                self.lnonspill_b, self.lnonrefill_b, self.nonspill_size
            ),
        ]
    }
}

/// General registers a function uses: one past the highest R register any vreg or
/// physical operand occupies.
pub fn registers_used(f: &Function, slot_of: &dyn Fn(crate::ir::VRegId) -> Option<u16>) -> u32 {
    let mut top = 0u32;
    for (i, v) in f.vregs.iter().enumerate() {
        if v.file() != RegFile::R {
            continue;
        }
        if let Some(s) = slot_of(crate::ir::VRegId::new(i)) {
            top = top.max(s as u32 + v.width as u32);
        }
    }
    for inst in f.blocks.iter().flat_map(|b| &b.insts) {
        for op in &inst.operands {
            if let crate::ir::Operand::Reg(crate::ir::Reg::P(p)) = op
                && p.file == RegFile::R
                && !p.is_zero()
            {
                top = top.max(p.index as u32 + 1);
            }
        }
    }
    top
}

/// ptxas's `Used N registers` from radbg's one-past-the-highest-register figure `top`:
/// highest register + 3, the stack pointer R1 counting as used (`alloc::budget::REPORT_EXTRA`).
pub fn ptxas_reported(top: u32) -> u32 {
    top.max(crate::alloc::budget::STACK_POINTER as u32 + 1) + crate::alloc::budget::REPORT_EXTRA
}

/// Bytes a device function under the calling convention saves and restores in its
/// frame, which ptxas's `-v` counts as spill stores and loads. Only a function that
/// itself calls saves: values live across its calls sit in preserved (callee-saved)
/// registers, which it must save for its own caller (4 bytes each), and its return
/// address must survive the inner call (8 bytes). A leaf takes scratch registers above
/// the preserved range instead of saving (seed 001's default convention: R16–R31
/// preserved, the rest scratch). Measured on the corpus: the recursive `fib` reports 20
/// bytes of spill stores and loads at every budget, the leaf device functions 0 even
/// with a dozen parameters (ARCHITECTURE.md, "Fidelity").
pub fn abi_save_bytes(f: &Function, slot_of: &dyn Fn(crate::ir::VRegId) -> Option<u16>, preserved: &[u16]) -> u32 {
    if !f.blocks.iter().flat_map(|b| &b.insts).any(|i| i.info().is(props::CALL)) {
        return 0;
    }
    let mut used = std::collections::BTreeSet::new();
    for (i, v) in f.vregs.iter().enumerate() {
        if v.file() != RegFile::R {
            continue;
        }
        if let Some(s) = slot_of(crate::ir::VRegId::new(i)) {
            used.extend((s..s + v.width as u16).filter(|r| preserved.contains(r)));
        }
    }
    4 * used.len() as u32 + 8
}

/// ptxas's `Used N registers` of an entry that spills: its budget. Measured on the
/// corpus oracle: every one of the 25 entries ptxas spills reports exactly its budget
/// (15 at `--maxrregcount 32`, 8 at 64, 2 at the default's 255), where radbg's
/// highest-register figure fell one short under pair alignment (ARCHITECTURE.md,
/// "Fidelity", step 9).
pub fn spilling_report(reported: u32, spill_stores: u32, budget: u32) -> u32 {
    if spill_stores > 0 { reported.max(budget) } else { reported }
}

/// ptxas's `Used N registers` of an entry that makes a call: at least the ABI minimum
/// (seed 001: 24 registers on generations 5–9), whatever its own allocation needs — the
/// callee's registers are the caller's. Measured on both oracles (ARCHITECTURE.md,
/// "Fidelity", step 16): every entry with a call in its body reports 24 or more, and
/// the 21 whose own figure is lower (numba's ten NRT kernels calling `__assertfail` or
/// `vprintf` on sm_80 and sm_90, the corpus's abi_kernel) report exactly 24.
pub fn calling_report(reported: u32, calls: bool, abi_minimum: u32) -> u32 {
    if calls { reported.max(abi_minimum) } else { reported }
}

/// ptxas's `Used N registers` of a function that calls functions defined in the same
/// module: at least each callee's figure (issue 23 rule 5). ptxas compiles such a callee
/// with the kernel (`CALL.REL.NOINC` to it in the SASS) and the kernel's count covers
/// it: measured with one entry calling one `.func` that keeps 40 loaded values live
/// (volatile loads, stores in reverse order), ptxas reports 48 for the entry, whose own
/// body needs a handful; the same entry calling a `.func` with 2 such values reports 12,
/// not the ABI minimum of 24 `calling_report` gives calls to external functions.
pub fn callees_report(reported: u32, callees: impl IntoIterator<Item = u32>) -> u32 {
    callees.into_iter().fold(reported, u32::max)
}

/// ptxas's `N bytes stack frame` of a function whose `.local` variables take
/// `local` bytes at alignment `align` and whose spill slots take `spill` bytes: the
/// variables, then the spill area, the whole rounded up to the variables' alignment.
/// Measured (ARCHITECTURE.md, "Fidelity", step 8): local_lut's 256-byte `.align 16`
/// depot reports 256 at every budget without spills and 272 with 8 bytes of spill
/// stores (sm_90, `--maxrregcount 32`).
pub fn frame_bytes(local: u64, align: u32, spill: u32) -> u32 {
    let a = align.max(1) as u64;
    let total = local + spill as u64;
    if local == 0 {
        return spill;
    }
    u32::try_from(total.div_ceil(a) * a).unwrap_or(u32::MAX)
}

/// The `.local` variables function `f` addresses (PTX's `__local_depotN`, imported as
/// module-level `.local` globals): their total size and largest alignment, each
/// counted once.
pub fn local_vars(globals: &[crate::ir::model::Global], f: &Function) -> (u64, u32) {
    let mut named = std::collections::BTreeSet::new();
    for inst in f.blocks.iter().flat_map(|b| &b.insts) {
        for op in &inst.operands {
            match op {
                crate::ir::Operand::Sym(s) => {
                    named.insert(&**s);
                }
                crate::ir::Operand::Mem(m) => {
                    if let Some(s) = &m.sym {
                        named.insert(&**s);
                    }
                }
                _ => {}
            }
        }
    }
    let mut size = 0u64;
    let mut align = 1u32;
    for g in globals.iter().filter(|g| g.space == crate::ir::model::Space::Local && named.contains(g.name.as_str())) {
        size = size.div_ceil(g.align.max(1) as u64) * g.align.max(1) as u64 + g.size;
        align = align.max(g.align);
    }
    (size, align)
}

/// Named barriers a function uses: one past the highest immediate barrier id of its
/// BAR instructions (bar 0 when written without one), plus barrier-register vregs.
pub fn barriers_used(f: &Function) -> u32 {
    let mut n = 0u32;
    for inst in f.blocks.iter().flat_map(|b| &b.insts) {
        if inst.info().is(props::BARRIER) && inst.op.mnemonic() == "BAR" {
            let id = inst.uses().iter().find_map(|o| match o {
                crate::ir::Operand::Imm(i) => Some(*i),
                _ => None,
            });
            n = n.max(id.unwrap_or(0).clamp(0, 15) as u32 + 1);
        }
    }
    let bregs = f.vregs.iter().filter(|v| v.file() == RegFile::B).map(|v| v.width as u32).sum::<u32>();
    n.max(bregs)
}
