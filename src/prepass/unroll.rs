//! `unroll`: ptxas unrolls a small innermost loop whose trip count is warp-uniform four
//! times (issue 23, rule 3; ARCHITECTURE.md, "Rules from the development part's SASS").
//!
//! Evidence (nvdisasm of ptxas 13.0.88 cubins, sm_80). cudpp's `reorderDataKeysOnly`
//! (ptxas 26, radbg 16 before this pass) keeps its PTX loop `$L__BB268_17` (one guarded
//! `ld.shared`/`st.global` pair, a counter from 0 by 16 to a parameter) as four
//! predicated copies in SASS — `@!P3 LDS R17`, `@!P4 LDS R19`, `@!P1 LDS R21`, `@!P2
//! LDS R23`, their four address pairs R6–R13, one `BRA` per four — followed by a
//! two-copy and a one-copy remainder; with `.pragma "nounroll"` on the loop ptxas
//! reports 14. Hand-made loops (a counter, one load, N dependent FMAs, one store; the
//! copies counted by their `STG`s) pin the rule down:
//! - a trip count from constants, parameters, block indices or a load from a uniform
//!   address is unrolled ×4 (7 `STG`: four, then two and one for the rest);
//! - a trip count that depends on the thread (`%tid`, `%laneid`, a load from a
//!   thread's own address) is unrolled too — unless the body both loads from and stores
//!   to global memory (`ld.global`, `.nc` included, and `st.global`: 1 `STG`, kept as
//!   one copy) or holds an atomic or a reduction, global or shared (`red.global.add`,
//!   `atom.global.add`, `red.shared.add`: one `RED`/`ATOM` in SASS; the same loops with
//!   a uniform bound: 8, unrolled; found on the corpus's `histo256`, whose loop of four
//!   `ld.shared` and four `atom.global.add` ptxas keeps as one copy). With `ld.shared`
//!   or no load in its place, and plain stores, the same loop is unrolled; cudpp's loop
//!   above, whose bound comes from `ld.shared` at a thread's address, is one of those.
//!   So is a loop from `%tid.x` that only loads (a dot product: two `ld.global.nc`, an
//!   FMA, the sum stored after the loop — 16 `LDG`, ×4 and the remainders; stop 38,
//!   rule 18): tract's `ggml_matvec_f32_ncols_1` loop of eight `v2` loads becomes 58
//!   `LDG`s at every budget, where radbg kept it as one copy and counted 31 at
//!   `--maxrregcount 64` for ptxas's 62;
//! - a packed-half operation (`add.f16x2`, `mul.f16x2`, `fma.rn.f16x2`) counts twice
//!   towards the body's size: a dot-product loop of eight other instructions and 20
//!   `f16x2` operations is unrolled, with 21 it is kept (and tract's
//!   `ggml_matvec_f16_ncols_2` loop — twelve loads, sixteen `f16x2` operations, six
//!   others — is kept by ptxas, unrolled with integer operations in their place);
//! - a body that loads 32 or more words from global memory is kept: fourteen
//!   `ld.global.nc.v2.f32` (28 words) unrolled, sixteen (32) kept, sixteen scalar loads
//!   unrolled, whether the trip count is the thread's or uniform;
//! - bodies of up to 49 imported instructions (branch included, register copies not:
//!   ptxas propagates them first) are unrolled, from 50 on they are not;
//! - `.pragma "nounroll"` on the header, the function or the module keeps the loop;
//! - the step must be a constant: the exit test compares a counter (a value the body
//!   adds an immediate to, once) with a loop invariant. The same hand-made loop stepping
//!   by 1 or 16 is unrolled (8 `STG`s), by a 32- or 64-bit parameter or by a grid stride
//!   `%nctaid.x * %ntid.x` is not (1 `STG`; `tests/fidelity_unroll.rs`); dlib's
//!   grid-stride `_set_tensor` is one copy in its SASS (ptxas 10 on sm_90; radbg's ×4
//!   gave 18). dfdx's grid-stride
//!   `fill_with_f32` compares the 64-bit zero-extension of its 32-bit counter
//!   (`cvt.u64.u32 %rd9, %r9; setp.lt.u64 %p2, %rd9, %rd6`) and ptxas keeps it as one
//!   copy (one `STG` in its SASS), though its body has no load.
//!
//! Model: a single-block loop (after `ifconvert` has predicated its short branches)
//! ending in a guarded branch to itself, not marked nounroll, whose branch predicate is
//! warp-uniform or whose body has no atomic and does not both load from and store to
//! global memory, whose body has at most [`MAX_BODY`] instructions (packed-half ones
//! counted twice) and loads fewer than [`MAX_LOADED_WORDS`] words, becomes [`FACTOR`]
//! copies of its body and the one back edge. A value the body defines gets a fresh vreg
//! in each copy but the last (`%f1$u1`, `%f1$u2` …), which keeps the original names so
//! what flows round the loop and out of it is unchanged; the copies' exit tests stay (a
//! dead predicate, no R register). Each copy steps the counter from the previous copy's
//! value; ptxas computes each from the value on entry (`IADD3 R8, R0, 0x10`, `IADD3
//! R10, R0, 0x20`, `IADD3 R12, R0, 0x30`, then `IADD3 R0, R0, 0x40` once in cudpp's
//! SASS), but modelled so the development part moved away from ptxas (22 rows closer,
//! 56 further), so it is not. Left out, choices written down here: the remainder
//! copies (their pressure is at most the unrolled body's), and full unrolling of small
//! constant trip counts (ptxas copies a 16-trip body 16 times; modelled as ×4 too).
//!
//! Thread dependence ([`varying`]) is flow-insensitive: a vreg is varying when any def
//! reads a thread-dependent special register (everything but the block and grid
//! indices and sizes), a varying vreg (sources, address registers, the guard), or is an
//! atomic or warp-shuffle result.
//!
//! Owns the unrolling rule; must not know the allocator or the engine.

use std::collections::{HashMap, HashSet};

use crate::ir::opcode::props;
use crate::ir::{Function, Guard, Inst, Operand, Reg, RegDecl, VReg, VRegId};
use crate::prepass::{Pass, PassCtx};

pub const PASS: Pass = Pass {
    name: "unroll",
    about: "small counted loops unrolled four times, as ptxas does (not a thread-dependent one that loads and stores)",
    run,
    ori: false,
};

/// Copies of the body ptxas makes (module doc: 7 `STG` = 4 + 2 + 1).
pub const FACTOR: usize = 4;

/// The largest body unrolled, in imported instructions with the branch (module doc:
/// 49 unrolled, 50 kept).
pub const MAX_BODY: usize = 49;

/// A body that loads this many words from global memory or more is kept as one copy
/// (module doc: fourteen `v2` loads, 28 words, unrolled; sixteen, 32 words, kept;
/// sixteen scalar loads unrolled).
pub const MAX_LOADED_WORDS: u32 = 32;

/// Special registers that are the same for every thread of a warp: the uniform pass's,
/// and the grid id (which has no uniform datapath read there but is warp-uniform).
fn uniform_special(s: &str) -> bool {
    crate::prepass::uniform::uniform_special(s) || s.starts_with("SR_GRIDID")
}

/// Per vreg: whether its value may differ between the threads of a warp.
pub fn varying(f: &Function) -> Vec<bool> {
    let mut var = vec![false; f.vregs.len()];
    loop {
        let mut changed = false;
        for inst in f.blocks.iter().flat_map(|b| &b.insts) {
            if inst.ndefs == 0 {
                continue;
            }
            let m = inst.op.mnemonic();
            let mut v = inst.info().is(props::UNKNOWN)
                || m.starts_with("ATOM")
                || m == "SHFL"
                || m == "MATCH"
                || inst.uses().iter().any(|o| matches!(o, Operand::Special(s) if !uniform_special(s)));
            if !v {
                inst.for_each_use(|r| v |= var.get(r.vreg.index()).copied().unwrap_or(true));
            }
            if v {
                inst.for_each_def(|r| {
                    if let Some(x) = var.get_mut(r.vreg.index())
                        && !*x
                    {
                        *x = true;
                        changed = true;
                    }
                });
            }
        }
        crate::work::add(f.inst_count() as u64);
        if !changed {
            return var;
        }
    }
}

/// The loops `run` unrolls: blocks that branch back to themselves (see module doc).
fn candidates(f: &Function) -> Vec<usize> {
    if f.nounroll_all {
        return Vec::new();
    }
    // The varying vregs are solved when a loop's guard is first asked about (issue 25:
    // the solve walked a 100k-instruction function that has no small loop).
    let solved = std::cell::OnceCell::new();
    let var = || -> &Vec<bool> { solved.get_or_init(|| varying(f)) };
    (0..f.blocks.len())
        .filter(|&b| {
            let blk = &f.blocks[b];
            let Some(br) = blk.insts.last() else { return false };
            let back = br.info().is(props::BRANCH)
                && !br.guard_is_always()
                && br.uses().iter().any(|o| matches!(o, Operand::Sym(s) if **s == *blk.label));
            let uniform = || match br.guard {
                Some(Guard { reg: Reg::V(r), .. }) => !var().get(r.vreg.index()).copied().unwrap_or(true),
                _ => false,
            };
            let plain = || {
                blk.insts[..blk.insts.len() - 1].iter().all(|i| {
                    let p = i.info();
                    !p.is(props::BRANCH)
                        && !p.is(props::EXIT)
                        && !p.is(props::CALL)
                        && !p.is(props::UNKNOWN)
                        && !p.is(props::PHI)
                        && !p.is(props::SUSPEND)
                        && !p.is(props::RESUME)
                })
            };
            let global_load = || blk.insts.iter().any(|i| matches!(i.op.mnemonic(), "LDG" | "LD"));
            let global_store = || blk.insts.iter().any(|i| matches!(i.op.mnemonic(), "STG" | "ST"));
            let atomic = || blk.insts.iter().any(|i| i.info().is(props::ATOMIC));
            // Cheapest first (all are pure): a large body is out before it is walked.
            back && size(blk) <= MAX_BODY
                && plain()
                && counted(blk)
                && !f.nounroll.contains(&blk.label)
                && loaded_words(f, blk) < MAX_LOADED_WORDS
                && (!(global_load() && global_store() || atomic()) || uniform())
        })
        .collect()
}

/// The words a loop body loads from global memory (a `v2` load two, a `v4` four).
fn loaded_words(f: &Function, blk: &crate::ir::Block) -> u32 {
    let words = |r: crate::ir::RegRef| if r.comp.is_some() { 1 } else { u32::from(f.vreg(r.vreg).width) };
    blk.insts
        .iter()
        .filter(|i| matches!(i.op.mnemonic(), "LDG" | "LD"))
        .flat_map(|i| i.defs().iter().filter_map(|d| d.as_vreg()).map(words))
        .sum()
}

/// The body's size as ptxas counts it for unrolling: its instructions but register
/// copies, which ptxas propagates away first (a `mov.f32` in the loop moves the limit by
/// one: 50 imported instructions with it are unrolled, 51 are not).
fn size(blk: &crate::ir::Block) -> usize {
    let copy =
        |i: &&Inst| i.op.mnemonic() == "MOV" && i.guard_is_always() && matches!(i.uses(), [Operand::Reg(Reg::V(_))]);
    // A packed-half operation counts twice (module doc: a loop of 8 other instructions and
    // 20 `f16x2` operations is unrolled, 21 are not; with integer operations in their
    // place tract's `ggml_matvec_f16_ncols_2` loop is unrolled, as it is not with them).
    let packed_half = |i: &&Inst| matches!(i.op.mnemonic(), "HADD2" | "HMUL2" | "HFMA2") && i.has_mod("F16X2");
    blk.insts.len() - blk.insts.iter().filter(copy).count() + blk.insts.iter().filter(packed_half).count()
}

/// Whether the loop `blk` (a block branching back to itself) has a computable trip
/// count: its branch's predicate is set once, unguarded, by an `ISETP` of a counter
/// against a loop invariant, where the counter is set once, unguarded, by an `IADD3` of
/// itself and an invariant step (module doc).
fn counted(blk: &crate::ir::Block) -> bool {
    let Some(Guard { reg: Reg::V(p), .. }) = blk.insts.last().and_then(|b| b.guard) else { return false };
    let defs_of = |v: VRegId| {
        blk.insts.iter().filter(move |i| {
            let mut d = false;
            i.for_each_def(|r| d |= r.vreg == v);
            d
        })
    };
    let single = |v: VRegId| {
        let mut it = defs_of(v);
        match (it.next(), it.next()) {
            (Some(i), None) if i.guard_is_always() && i.ndefs == 1 => Some(i),
            _ => None,
        }
    };
    let invariant = |o: &Operand| match o {
        Operand::Imm(_) | Operand::CBank { .. } => true,
        Operand::Reg(Reg::V(r)) => defs_of(r.vreg).next().is_none(),
        _ => false,
    };
    // The step must be a constant: ptxas keeps a loop whose step is a register or a
    // parameter (a grid stride `%nctaid.x * %ntid.x`, a 32- or 64-bit parameter: one
    // `STG` in each hand-made loop's SASS) and unrolls the same loops stepping by an
    // immediate (eight `STG`s: ×4, ×2, ×1 and the remainder's). Module doc.
    let step = |o: &Operand| matches!(o, Operand::Imm(_));
    let counter = |o: &Operand| {
        let Operand::Reg(Reg::V(r)) = o else { return false };
        let Some(inc) = single(r.vreg) else { return false };
        let u = inc.uses();
        inc.op.mnemonic() == "IADD3" && u.len() == 2 && ((u[0] == *o && step(&u[1])) || (u[1] == *o && step(&u[0])))
    };
    let Some(test) = single(p.vreg) else { return false };
    let u = test.uses();
    test.op.mnemonic() == "ISETP"
        && u.len() == 2
        && ((counter(&u[0]) && invariant(&u[1])) || (counter(&u[1]) && invariant(&u[0])))
}

/// A fresh vreg like `v`, named `v$uK`, with its own declaration.
fn fresh(g: &mut Function, taken: &mut std::collections::HashSet<String>, v: VRegId, k: usize) -> VRegId {
    let o = g.vregs[v.index()].clone();
    let mut n = k;
    let mut name = VReg::derived_name(&o.name, "$u", n);
    while taken.contains(&name) {
        n += FACTOR;
        name = VReg::derived_name(&o.name, "$u", n);
    }
    taken.insert(name.clone());
    let id = VRegId::new(g.vregs.len());
    let mut nv = VReg::new(name.clone(), o.class, o.width, g.decls.len());
    nv.flags = o.flags;
    nv.origin = o.origin;
    g.decls.push(RegDecl { prefix: name, count: None, class: o.class, width: o.width, origin: o.origin });
    g.vregs.push(nv);
    id
}

/// The vregs of `body` that each copy may define afresh: written whole by unguarded
/// instructions only, not pinned or aliased. A value written in part, or under a guard
/// and read before its def in the body or after the loop, keeps its name in every copy
/// (a renamed copy would not hold the old value where the guard is false). The one
/// exception to "whole": a vector operand the importer assembles from its components
/// (`ASSEMBLED`: `st.global.v4.f32 [..], {%f45, ..}` is four component `MOV`s into
/// `%v4tmp`, then the store), written by unguarded defs only, not read before them in the
/// body nor after the loop — each copy writes all of it again, so a copy of its own
/// holds the same values. Kept under one name, the four copies' groups made it one web
/// live around the loop (faiss's `assignAlongColumns`: four quads of store data live
/// through the unrolled loop, 56 registers where ptxas uses 32).
fn renamable(f: &Function, body: &[Inst], live_out: &dyn Fn(VRegId) -> bool) -> HashSet<VRegId> {
    // Per vreg the body writes: (whole, partial, guarded, read before its first def);
    // only the body's vregs, not a table of the function's (a loop costs its own size).
    let mut seen: HashMap<VRegId, [bool; 4]> = HashMap::new();
    let mut exposed: HashSet<VRegId> = HashSet::new();
    for inst in body {
        inst.for_each_use(|r| {
            if !seen.contains_key(&r.vreg) {
                exposed.insert(r.vreg);
            }
        });
        inst.for_each_def(|r| {
            let e = seen.entry(r.vreg).or_default();
            e[if r.comp.is_some() { 1 } else { 0 }] = true;
            e[2] |= !inst.guard_is_always();
        });
    }
    seen.into_iter()
        .filter(|&(v, [whole, partial, guarded, _])| {
            let vr = f.vreg(v);
            let assembled = vr.flags & crate::ir::model::vflags::ASSEMBLED != 0
                && partial
                && !whole
                && !guarded
                && !exposed.contains(&v)
                && !live_out(v);
            (whole && !partial || assembled)
                && vr.pin.is_none()
                && vr.alias.is_none()
                && !(guarded && (exposed.contains(&v) || live_out(v)))
        })
        .map(|(v, _)| v)
        .collect()
}

fn run(f: &Function, _ctx: &PassCtx) -> (Option<Function>, String) {
    let loops = candidates(f);
    if loops.is_empty() {
        return (None, "no small counted loop to unroll".to_string());
    }
    let live = crate::analysis::liveness::compute(f, &crate::analysis::cfg::build(f, 1.0), &[]);
    let mut g = f.clone();
    let mut taken: std::collections::HashSet<String> = f.vregs.iter().map(|v| v.name.to_string()).collect();
    let mut made = 0usize;
    for &b in &loops {
        let body = &f.blocks[b].insts[..f.blocks[b].insts.len() - 1];
        let out = live.live_out(b);
        let ok = renamable(f, body, &|v| out.contains(v));
        let mut insts = Vec::with_capacity(body.len() * FACTOR + 1);
        // The name each original vreg has at this point of the unrolled body.
        let mut now: HashMap<VRegId, VRegId> = HashMap::new();
        for k in 0..FACTOR {
            let last = k + 1 == FACTOR;
            // The vregs this copy has already renamed (an assembled one is written by
            // several component defs: the first makes its new name, the rest write it).
            let mut renamed: HashSet<VRegId> = HashSet::new();
            for inst in body {
                let mut c = inst.clone();
                c.for_each_use_mut(|r| {
                    if let Some(&n) = now.get(&r.vreg) {
                        r.vreg = n;
                    }
                });
                for o in c.operands.iter_mut().take(c.ndefs as usize) {
                    if let Operand::Reg(Reg::V(r)) = o
                        && ok.contains(&r.vreg)
                    {
                        if !renamed.insert(r.vreg) {
                            // Another component of a vreg this copy renamed.
                            if let Some(&n) = now.get(&r.vreg) {
                                r.vreg = n;
                            }
                            continue;
                        }
                        if last {
                            now.remove(&r.vreg);
                        } else {
                            let n = fresh(&mut g, &mut taken, r.vreg, k + 1);
                            made += 1;
                            now.insert(r.vreg, n);
                            r.vreg = n;
                        }
                    }
                }
                insts.push(c);
            }
        }
        insts.push(f.blocks[b].insts[f.blocks[b].insts.len() - 1].clone());
        crate::work::add(insts.len() as u64);
        g.blocks[b].insts = insts;
    }
    let labels: Vec<&str> = loops.iter().map(|&b| f.blocks[b].label.as_str()).collect();
    let shown = labels.iter().take(6).copied().collect::<Vec<_>>().join(", ");
    let more = if labels.len() > 6 { format!(" and {} more", labels.len() - 6) } else { String::new() };
    (
        Some(g),
        format!(
            "{} loop(s) unrolled ×{FACTOR} ({shown}{more}): the body copied, {} value(s) renamed in each copy but the last",
            loops.len(),
            made / (FACTOR - 1)
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Module;

    fn import(src: &str) -> Module {
        crate::ir::ptx::import_str("k.ptx", src).expect("imports").0
    }

    fn run_on(src: &str) -> (Function, String) {
        let m = import(src);
        let ctx = PassCtx { module: &m, sm: &m.sm, maxrregcount: None, cap: None };
        PASS.run_owned(&m.functions[0], &ctx)
    }

    /// A counter from `start` to the parameter `n`, one load, two FMAs, one store.
    fn kernel(start: &str, pragma: &str) -> String {
        format!(
            ".version 8.8\n.target sm_80\n.address_size 64\n\
             .visible .entry k(.param .u64 a, .param .u32 n)\n{{\n\
             .reg .pred %p<4>; .reg .b32 %r<10>; .reg .f32 %f<6>; .reg .b64 %rd<10>;\n\
             ld.param.u64 %rd7, [a]; ld.param.u32 %r3, [n];\n\
             cvta.to.global.u64 %rd1, %rd7;\n\
             mov.u32 %r5, {start};\n\
             setp.ge.u32 %p3, %r5, %r3; @%p3 bra $END;\n\
             $LOOP:\n{pragma}\n\
             mul.wide.u32 %rd4, %r5, 4; add.s64 %rd5, %rd1, %rd4;\n\
             ld.global.f32 %f1, [%rd5]; fma.rn.f32 %f2, %f1, %f1, 0f3F800000;\n\
             st.global.f32 [%rd5], %f2;\n\
             add.s32 %r5, %r5, 1; setp.lt.u32 %p1, %r5, %r3; @%p1 bra $LOOP;\n\
             $END:\nret;\n}}\n"
        )
    }

    fn loads(f: &Function) -> usize {
        f.blocks.iter().flat_map(|b| &b.insts).filter(|i| i.op.mnemonic() == "LDG").count()
    }

    #[test]
    fn uniform_trip_count_is_unrolled_four_times() {
        let (g, summary) = run_on(&kernel("0", ""));
        assert_eq!(loads(&g), 4, "{summary}");
        assert!(summary.starts_with("1 loop(s) unrolled ×4"), "{summary}");
        // Copies 1–3 define fresh names; the last keeps the originals.
        assert!(g.vreg_by_name("%f1$u1").is_some() && g.vreg_by_name("%f1$u3").is_some());
        assert!(g.vreg_by_name("%f1$u4").is_none());
        let body = &g.blocks.iter().find(|b| b.label.contains("LOOP")).expect("loop").insts;
        let last_ld = body.iter().rposition(|i| i.op.mnemonic() == "LDG").expect("a load");
        assert_eq!(body[last_ld].defs()[0].as_vreg().map(|r| g.vreg(r.vreg).name.to_string()), Some("%f1".into()));
    }

    /// A vector store's operand is assembled from its components (four `MOV`s into a
    /// `%v4tmp`); each copy but the last writes a quad of its own, so the quads' live
    /// ranges end at their stores instead of joining into one web around the loop.
    #[test]
    fn a_vector_operand_gets_a_name_in_each_copy() {
        let src =
            kernel("0", "").replace("st.global.f32 [%rd5], %f2;", "st.global.v4.f32 [%rd5], {%f2, %f1, %f2, %f1};");
        // `components` marks the quad assembled (it runs first in the pipeline).
        let m = import(&src);
        let ctx = PassCtx { module: &m, sm: &m.sm, maxrregcount: None, cap: None };
        let (f, _) = crate::prepass::components::PASS.run_owned(&m.functions[0], &ctx);
        let (g, summary) = PASS.run_owned(&f, &ctx);
        let body = &g.blocks.iter().find(|b| b.label.contains("LOOP")).expect("loop").insts;
        let stored: Vec<String> = body
            .iter()
            .filter(|i| i.op.mnemonic() == "STG")
            .filter_map(|i| i.uses().iter().find_map(|o| o.as_vreg()))
            .map(|r| g.vreg(r.vreg).name.to_string())
            .collect();
        assert_eq!(stored.len(), 4, "{summary}");
        let distinct: HashSet<&String> = stored.iter().collect();
        assert_eq!(distinct.len(), 4, "one quad per copy: {stored:?}");
        // Every component def of a copy's quad writes that copy's name.
        for (k, name) in stored.iter().enumerate() {
            let v = g.vreg_by_name(name).expect("named");
            let defs =
                body.iter().filter(|i| i.defs().iter().any(|o| o.as_vreg().is_some_and(|r| r.vreg == v))).count();
            assert_eq!(defs, 4, "copy {k}: {name} has its four component defs");
        }
        // The quads are live only from their first component def to their store.
        let live = crate::analysis::liveness::compute(&g, &crate::analysis::cfg::build(&g, 1.0), &[]);
        let lb = g.blocks.iter().position(|b| b.label.contains("LOOP")).expect("loop");
        let entry = live.live_in(lb).names(&g);
        assert!(
            !stored.iter().any(|n| entry.split([' ', ',', '{', '}']).any(|x| x == n)),
            "live into the loop: {entry}"
        );
    }

    #[test]
    fn thread_dependent_trip_count_with_a_global_load_is_kept() {
        for start in ["%tid.x", "%laneid"] {
            let (g, summary) = run_on(&kernel(start, ""));
            assert_eq!(loads(&g), 1, "{start}: {summary}");
        }
        let (g, _) = run_on(&kernel("%ctaid.x", ""));
        assert_eq!(loads(&g), 4, "a block index is warp-uniform");
        // The same loop reading shared memory instead is unrolled.
        let shared = kernel("%tid.x", "")
            .replace("ld.global.f32 %f1, [%rd5]", "cvt.u32.u64 %r7, %rd5; ld.shared.f32 %f1, [%r7]");
        let (g, summary) = run_on(&shared);
        let lds = g.blocks.iter().flat_map(|b| &b.insts).filter(|i| i.op.mnemonic() == "LDS").count();
        assert_eq!(lds, 4, "{summary}");
        // With a reduction in place of the store it is kept (ptxas: one RED), whether
        // global or shared; with a uniform bound it is unrolled.
        for red in ["red.global.add.f32 [%rd5], %f2;", "red.shared.add.f32 [%r7], %f2;"] {
            let reduced = shared.replace("st.global.f32 [%rd5], %f2;", red);
            assert!(reduced.contains(red), "the kernel's store moved");
            let (g, summary) = run_on(&reduced);
            let lds = g.blocks.iter().flat_map(|b| &b.insts).filter(|i| i.op.mnemonic() == "LDS").count();
            assert_eq!(lds, 1, "{red}: {summary}");
            let (g, summary) = run_on(&reduced.replace("%tid.x", "%ctaid.x"));
            let lds = g.blocks.iter().flat_map(|b| &b.insts).filter(|i| i.op.mnemonic() == "LDS").count();
            assert_eq!(lds, 4, "{red} with a uniform bound: {summary}");
        }
    }

    #[test]
    fn nounroll_pragma_is_honoured_at_every_scope() {
        let (g, summary) = run_on(&kernel("0", ".pragma \"nounroll\";"));
        assert_eq!(loads(&g), 1, "{summary}");
        let src = kernel("0", "").replace(".address_size 64\n", ".address_size 64\n.pragma \"nounroll\";\n");
        let (g, _) = run_on(&src);
        assert_eq!(loads(&g), 1, "module scope");
    }

    #[test]
    fn a_trip_count_it_cannot_compute_is_kept() {
        // dfdx's grid-stride shape: the 32-bit counter widened before the test.
        let src = kernel("0", "").replace(
            "setp.lt.u32 %p1, %r5, %r3;",
            "cvt.u64.u32 %rd9, %r5; cvt.u64.u32 %rd8, %r3; setp.lt.u64 %p1, %rd9, %rd8;",
        );
        let (g, summary) = run_on(&src);
        assert_eq!(loads(&g), 1, "{summary}");
    }

    #[test]
    fn a_step_that_is_not_a_constant_is_kept() {
        for step in ["%r3", "%r9"] {
            let src = kernel("0", "").replace("add.s32 %r5, %r5, 1;", &format!("add.s32 %r5, %r5, {step};"));
            let src = src.replace("mov.u32 %r5, 0;", "mov.u32 %r5, 0; mov.u32 %r9, %nctaid.x;");
            let (g, summary) = run_on(&src);
            assert_eq!(loads(&g), 1, "step {step}: {summary}");
        }
        let (g, summary) = run_on(&kernel("0", "").replace("add.s32 %r5, %r5, 1;", "add.s32 %r5, %r5, 16;"));
        assert_eq!(loads(&g), 4, "step 16: {summary}");
    }

    #[test]
    fn long_bodies_are_kept() {
        let fmas: String = (0..MAX_BODY).map(|_| "fma.rn.f32 %f2, %f2, %f1, 0f3F800000;\n").collect();
        let src = kernel("0", "").replace("st.global.f32", &format!("{fmas}st.global.f32"));
        let (g, _) = run_on(&src);
        assert_eq!(loads(&g), 1);
    }
}
