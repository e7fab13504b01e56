//! Pre-allocation stages for imported PTX (issue 13): what ptxas 13.0.88 does to a
//! function before and around register allocation that changes register pressure,
//! modelled as passes the debugger steps through (seed 000, "Pipeline Position":
//! hoisting, ConvertMemoryToRegisterOrUniform, pre-colouring, instruction lowering; and
//! measured ptxas behaviour where the seeds are silent — ARCHITECTURE.md, "Fidelity").
//!
//! Each pass is a function `(&Function, &PassCtx) -> (Option<Function>, summary)`, `None`
//! when it leaves the function as it is (issue 25: a pass that changed nothing cloned the
//! whole function, the engine compared the copy with the original and dropped it — a
//! fifth of a run on the scale kernel went to copies, compares and frees); the engine
//! (`engine::stages::prepass_step`) runs them in [`PASSES`] order, one event per pass
//! and function, and skips a pass the user switched off (`set stage NAME off`,
//! `--disable-stage NAME`). The passes run only on modules imported from PTX
//! (`RunOptions::imported`): the Ori IR kernels of `sessions/` are ptxas's input *after*
//! these stages and must not change — except `webs` ([`Pass::ori`]), which only splits a
//! name reused for unrelated values, something ptxas's own IR never has.
//!
//! Owns the pass list and the passes; must not know the allocator or the engine.
//! `report` names no pass here: it is the `Used N registers` rule in `alloc::budget` /
//! `alloc::stats`, switched by the same mechanism.

pub mod components;
pub mod expand;
pub mod extend;
pub mod fold;
pub mod fragments;
pub mod ifconvert;
pub mod list;
pub mod narrow;
pub mod order;
pub mod record;
pub mod remat;
pub mod schedule;
pub mod sink;
pub mod slowpath;
pub mod target_span;
pub mod texture;
pub mod uniform;
pub mod unroll;
pub mod vectorize;
pub mod webs;

use crate::ir::{Function, Module, Sm};

/// What a pass may know besides the function: the target and the budget.
pub struct PassCtx<'a> {
    pub module: &'a Module,
    pub sm: &'a Sm,
    /// The explicit budget the stages fill, when there is one: `--maxrregcount` for a
    /// function without launch bounds, `.maxnreg`, or the launch budget of `.maxntid`
    /// with `.minnctapersm` (`alloc::budget::stage_budget`, issue 23 rule 10).
    pub maxrregcount: Option<u32>,
    /// The budget launch bounds set: no target the stages aim at goes above it
    /// (`alloc::budget::prepass_cap`).
    pub cap: Option<u32>,
}

/// One pre-allocation pass.
pub struct Pass {
    pub name: &'static str,
    /// One line for `help` and the stage list.
    pub about: &'static str,
    /// The pass on one function: the new function, `None` when it is unchanged; and the
    /// one-line summary.
    pub run: fn(&Function, &PassCtx) -> (Option<Function>, String),
    /// Runs on Ori IR input too (not only on imported PTX): a pass that makes the input
    /// what ptxas's allocator would be handed anyway (`webs`). On Ori IR its event shows
    /// only when it changes something or is switched off.
    pub ori: bool,
}

impl Pass {
    /// The pass on `f`, the function always returned (a copy of `f` when unchanged): for
    /// callers that keep both.
    pub fn run_owned(&self, f: &Function, ctx: &PassCtx) -> (Function, String) {
        let (g, summary) = (self.run)(f, ctx);
        (g.unwrap_or_else(|| f.clone()), summary)
    }
}

/// The passes, in pipeline order.
pub const PASSES: &[Pass] = &[
    fragments::PASS,
    components::PASS,
    webs::PASS,
    expand::PASS,
    fold::PASS,
    narrow::PASS,
    extend::ZEXT,
    vectorize::PASS,
    remat::PASS,
    ifconvert::PASS,
    unroll::PASS,
    sink::PASS,
    schedule::PASS,
    slowpath::PASS,
];

/// Stage names that switch a fidelity rule rather than a pass (`set stage report off`).
pub const RULES: &[(&str, &str)] = &[
    ("report", "the `Used N registers` report: highest R + 3, R1 the stack pointer"),
    ("banks", "bank-aware allocation (knob 627): co-sources in different register banks, below the budget"),
    ("floor", "a budget below 24 (--maxrregcount, .maxnreg) raised to 24, as ptxas does on every profile"),
];

/// Every switchable stage name: the passes, then the rules.
pub fn stage_names() -> Vec<&'static str> {
    PASSES.iter().map(|p| p.name).chain(RULES.iter().map(|r| r.0)).collect()
}

/// Per vreg of `f`: whether it is a 64-bit R value a pass may rewrite into one register —
/// not pinned, not an ABI parameter or return, and in no alias chain (a chain shares a
/// register: it is left as it is). `narrow` and `zext` start from it.
pub(crate) fn free_pairs(f: &Function) -> Vec<bool> {
    let mut ok: Vec<bool> = f
        .vregs
        .iter()
        .map(|v| v.class == crate::ir::RegClass::R && v.width == 2 && v.pin.is_none() && v.alias.is_none())
        .collect();
    if let Some(abi) = &f.abi {
        for b in abi.params.iter().chain(&abi.returns).filter_map(|p| p.bind) {
            ok[b.index()] = false;
        }
    }
    for v in f.vregs.iter().filter_map(|v| v.alias) {
        ok[v.index()] = false;
    }
    ok
}

/// For each of `vs` (64-bit vregs of `f`), a new one-register R vreg in `g` (a copy of
/// `f` being rewritten) named after it with `suffix`, with its flags and origin; indexed
/// by the old vreg's id (`narrow`'s `%x$32`, `zext`'s `%x$lo`).
pub(crate) fn one_register_vregs(
    f: &Function,
    g: &mut Function,
    vs: &[crate::ir::VRegId],
    suffix: &str,
) -> Vec<Option<crate::ir::VRegId>> {
    let mut to = vec![None; f.vregs.len()];
    for &v in vs {
        let o = &f.vregs[v.index()];
        let id = g.add_vreg(format!("{}{suffix}", o.name), crate::ir::RegClass::R, 1);
        let nv = &mut g.vregs[id.index()];
        nv.flags = o.flags;
        nv.origin = o.origin;
        to[v.index()] = Some(id);
    }
    to
}

/// Reorders `insts` to `order`, a permutation of its indices.
pub(crate) fn permute(insts: &mut Vec<crate::ir::Inst>, order: impl IntoIterator<Item = usize>) {
    let mut slots: Vec<Option<crate::ir::Inst>> = std::mem::take(insts).into_iter().map(Some).collect();
    *insts = order.into_iter().map(|k| slots[k].take().expect("a permutation")).collect();
}

/// How many instructions write each vreg of `f` (whole or in part).
pub(crate) fn def_counts(f: &Function) -> Vec<u32> {
    let mut defs = vec![0u32; f.vregs.len()];
    for inst in f.blocks.iter().flat_map(|b| &b.insts) {
        inst.for_each_def(|r| defs[r.vreg.index()] += 1);
    }
    defs
}

/// Makes new R vregs `PREFIXn`, `n` the first free number from the vreg count — the
/// names taken are looked up in a set built once, not by a scan of every vreg per name
/// (quadratic in a function that needs many).
pub(crate) struct FreshVregs {
    prefix: &'static str,
    taken: std::collections::HashSet<String>,
    /// Every number from the vreg count at the last call up to this one is taken.
    next: usize,
}

impl FreshVregs {
    pub(crate) fn new(f: &Function, prefix: &'static str) -> FreshVregs {
        crate::work::add(f.vregs.len() as u64);
        let taken = f.vregs.iter().filter(|v| v.name.starts_with(prefix)).map(|v| v.name.to_string()).collect();
        FreshVregs { prefix, taken, next: 0 }
    }

    /// A new R vreg of `width` in `f` (the function `new` was given, grown only here).
    pub(crate) fn make(&mut self, f: &mut Function, width: u8) -> crate::ir::VRegId {
        let mut n = f.vregs.len().max(self.next);
        while self.taken.contains(&format!("{}{n}", self.prefix)) {
            n += 1;
            crate::work::add(1);
        }
        crate::work::add(1);
        let name = format!("{}{n}", self.prefix);
        self.taken.insert(name.clone());
        self.next = n + 1;
        f.add_vreg(name, crate::ir::RegClass::R, width)
    }
}

/// The names of the first six of `vs` in `f`, then "and N more": how a pass summary
/// names the vregs it changed.
pub(crate) fn name_list(f: &Function, vs: &[crate::ir::VRegId]) -> String {
    let mut s = vs.iter().take(6).map(|&v| f.vreg(v).name.as_ref()).collect::<Vec<_>>().join(", ");
    if vs.len() > 6 {
        s.push_str(&format!(" and {} more", vs.len() - 6));
    }
    s
}

/// Runs every pass not in `disabled` on every function of `m` (for callers outside the
/// engine, like the fidelity report's naive estimate).
pub fn apply(m: &mut Module, disabled: &std::collections::BTreeSet<String>, passes: &[&str]) {
    for p in PASSES.iter().filter(|p| passes.contains(&p.name) && !disabled.contains(p.name)) {
        for fi in 0..m.functions.len() {
            let maxrregcount = m.functions[fi].cli_maxrregcount(m.options.maxrregcount);
            // No launch-bound cap here: it is the allocator's budget rule
            // (`alloc::budget::prepass_cap`, a sibling this layer does not know); the
            // engine passes it, and no caller of `apply` runs a target-reading pass on a
            // launch-bounded function.
            let ctx = PassCtx { module: m, sm: &m.sm, maxrregcount, cap: None };
            if let (Some(f), _) = (p.run)(&m.functions[fi], &ctx) {
                m.functions[fi] = f;
            }
        }
    }
}
