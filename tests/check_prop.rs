//! Property tests of the independent checker on random straight-line and diamond
//! functions (written as Ori text and parsed):
//! - a trivial reference allocator (every vreg its own registers) always passes, and so
//!   does swapping two vregs' registers;
//! - giving a vreg the register of another that is simultaneously live always fails with
//!   an overlap naming both; sharing a register between vregs never simultaneously live
//!   passes (no false alarms);
//! - spill code built by a reference spiller (a store after every def, a reload into a
//!   fresh temporary before every use) passes; a reload redirected to another vreg's
//!   slot fails; deleting a store fails exactly when a reload depends on it;
//! - arbitrary garbage allocations never panic and give the same report twice.

mod check_util;

use std::collections::BTreeSet;

use check_util::{Fixture, func};
use proptest::prelude::*;
use radbg::alloc::check::{CheckError, SpillSlotInfo};
use radbg::analysis::{cfg, liveness};
use radbg::ir::{Function, RegFile, VRegId};

/// One instruction line: `[@guard] [defs =] OP srcs`.
#[derive(Clone, Debug)]
struct Line {
    guard: Option<String>,
    defs: Vec<String>,
    op: &'static str,
    srcs: Vec<String>,
}

impl Line {
    fn new(defs: &[String], op: &'static str, srcs: &[String]) -> Line {
        Line { guard: None, defs: defs.to_vec(), op, srcs: srcs.to_vec() }
    }
    fn text(&self) -> String {
        let mut t = String::new();
        if let Some(g) = &self.guard {
            t += &format!("@{g} ");
        }
        if !self.defs.is_empty() {
            t += &format!("{} = ", self.defs.join(", "));
        }
        t += self.op;
        if !self.srcs.is_empty() {
            t += &format!(" {}", self.srcs.join(", "));
        }
        t
    }
}

/// A random function before rendering: vreg counts per kind and the blocks' lines
/// (block 0 starts with a prologue defining every vreg, so every use is reached by a def
/// on every path).
#[derive(Clone, Debug)]
struct Shape {
    nr: usize,
    nrd: usize,
    np: usize,
    nu: usize,
    diamond: bool,
    bodies: Vec<Vec<Line>>,
}

/// One random instruction from a template number and four operand picks.
fn line(s: &Shape, t: u8, k: [usize; 4]) -> Line {
    let r = |i: usize| format!("%r{}", k[i] % s.nr);
    let rd = |i: usize| format!("%rd{}", k[i] % s.nrd);
    let p = |i: usize| format!("%p{}", k[i] % s.np);
    let u = |i: usize| format!("%u{}", k[i] % s.nu);
    let z = "0".to_string();
    match t % 9 {
        0 => Line::new(&[r(0)], "IADD3", &[r(1), r(2), z]),
        1 => Line { guard: Some(p(3)), ..Line::new(&[r(0)], "MOV", &[r(1)]) },
        2 => Line::new(&[rd(0)], "IMAD.WIDE", &[r(1), "4".into(), rd(2)]),
        3 => Line::new(&[format!("{}.lo", rd(0))], "IADD3", &[r(1), "1".into(), z]),
        4 => Line::new(&[p(0)], "ISETP.GE.AND", &[r(1), r(2), "PT".into()]),
        5 => Line::new(&[u(0)], "S2UR", &["SR_CTAID.X".into()]),
        6 => Line::new(&[r(0)], "IADD3", &[r(1), u(2), z]),
        7 => Line::new(&[], "STG.E", &[format!("[{}]", rd(0)), r(1)]),
        _ => Line::new(&[r(0)], "IADD3", &[format!("{}.hi", rd(1)), r(2), z]),
    }
}

fn shape() -> impl Strategy<Value = Shape> {
    let counts = (1usize..6, 1usize..3, 1usize..3, 1usize..3, any::<bool>());
    let body = prop::collection::vec((any::<u8>(), any::<[usize; 4]>()), 0..10);
    (counts, prop::collection::vec(body, 4), prop::collection::vec(any::<usize>(), 0..4)).prop_map(
        |((nr, nrd, np, nu, diamond), raw, tail)| {
            let mut s = Shape { nr, nrd, np, nu, diamond, bodies: Vec::new() };
            let nblocks = if diamond { 4 } else { 1 };
            let mut bodies: Vec<Vec<Line>> =
                raw.iter().take(nblocks).map(|b| b.iter().map(|&(t, k)| line(&s, t, k)).collect()).collect();
            let mut prologue = Vec::new();
            for i in 0..nr {
                prologue.push(Line::new(&[format!("%r{i}")], "S2R", &["SR_TID.X".into()]));
            }
            for i in 0..nrd {
                prologue.push(Line::new(&[format!("%rd{i}")], "LDC.64", &["c[0x0][0x160]".into()]));
            }
            for i in 0..np {
                prologue.push(Line::new(&[format!("%p{i}")], "ISETP.GE.AND", &["%r0".into(), "1".into(), "PT".into()]));
            }
            for i in 0..nu {
                prologue.push(Line::new(&[format!("%u{i}")], "S2UR", &["SR_CTAID.X".into()]));
            }
            bodies[0].splice(0..0, prologue);
            for v in tail {
                let last = bodies.len() - 1;
                bodies[last].push(Line::new(&[], "STG.E", &["[%rd0]".into(), format!("%r{}", v % nr)]));
            }
            s.bodies = bodies;
            s
        },
    )
}

/// Renders an `.entry` body; `extra` temporaries `%s<n>` are declared too.
fn render(s: &Shape, bodies: &[Vec<Line>], extra: usize) -> String {
    let mut t =
        format!(".reg .R %r<{}>\n.reg .R.x2 %rd<{}>\n.reg .P %p<{}>\n.reg .UR %u<{}>\n", s.nr, s.nrd, s.np, s.nu);
    if extra > 0 {
        t += &format!(".reg .R %s<{extra}>\n");
    }
    for (b, body) in bodies.iter().enumerate() {
        t += &format!("BB{b}:\n");
        for l in body {
            t += &l.text();
            t += "\n";
        }
        if s.diamond {
            match b {
                0 => t += "@%p0 BRA BB2\n",
                1 => t += "BRA BB3\n",
                _ => {}
            }
        }
    }
    t += "EXIT\n";
    t
}

/// Pairs of vregs of one file and width that occupy registers at a common side of a
/// common instruction, computed from the liveness analysis directly.
fn co_live(f: &Function) -> BTreeSet<(u32, u32)> {
    let g = cfg::build(f, 1.0);
    let live = liveness::compute(f, &g, &[]);
    let mut pairs = BTreeSet::new();
    let layout = f.layout();
    for (b, blk) in f.blocks.iter().enumerate() {
        for (i, inst) in blk.insts.iter().enumerate() {
            let p = layout.point(b, i);
            let before: Vec<VRegId> = live.live_before(f, p).iter().collect();
            let mut after: Vec<VRegId> = live.live_after(f, p).iter().collect();
            inst.for_each_def(|r| after.push(r.vreg));
            for set in [before, after] {
                for &x in &set {
                    for &y in &set {
                        let (vx, vy) = (f.vreg(x), f.vreg(y));
                        if x < y && vx.file() == vy.file() && vx.width == vy.width {
                            pairs.insert((x.0, y.0));
                        }
                    }
                }
            }
        }
    }
    pairs
}

/// Same-file, same-width pairs of allocatable vregs.
fn compatible(f: &Function) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    for (i, a) in f.vregs.iter().enumerate() {
        for (j, b) in f.vregs.iter().enumerate().skip(i + 1) {
            if a.file() == b.file() && a.width == b.width && a.class.is_allocatable() {
                out.push((i as u32, j as u32));
            }
        }
    }
    out
}

/// The reference spiller (seed 003, "Spill Code Generation"): each spilled `%r{v}` at
/// `offset` gets a store after every def and a reload into a fresh `%s` temporary before
/// every instruction that reads it. Returns the bodies, the number of temporaries and per
/// spill its temporaries.
fn spill_bodies(s: &Shape, spills: &[(usize, u32)]) -> (Vec<Vec<Line>>, usize, Vec<Vec<usize>>) {
    let mut ntemps = 0;
    let mut temps = vec![Vec::new(); spills.len()];
    let mut bodies = Vec::new();
    for body in &s.bodies {
        let mut out = Vec::new();
        for l in body {
            let mut l = l.clone();
            for (k, &(v, off)) in spills.iter().enumerate() {
                let name = format!("%r{v}");
                if l.srcs.contains(&name) {
                    let t = format!("%s{ntemps}");
                    temps[k].push(ntemps);
                    ntemps += 1;
                    out.push(Line::new(std::slice::from_ref(&t), "LDL.SPILL", &[format!("[R1 + {off}]")]));
                    for src in &mut l.srcs {
                        if *src == name {
                            *src = t.clone();
                        }
                    }
                }
            }
            let defs = l.defs.clone();
            out.push(l);
            for &(v, off) in spills {
                let name = format!("%r{v}");
                if defs.contains(&name) {
                    out.push(Line::new(&[], "STL.SPILL", &[format!("[R1 + {off}]"), name]));
                }
            }
        }
        bodies.push(out);
    }
    (bodies, ntemps, temps)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn own_registers_always_pass(s in shape()) {
        let fx = Fixture::new(&render(&s, &s.bodies, 0)).own_registers();
        prop_assert_eq!(fx.report(), "");
    }

    #[test]
    fn swapping_registers_passes(s in shape(), pick in any::<prop::sample::Index>()) {
        let mut fx = Fixture::new(&render(&s, &s.bodies, 0)).own_registers();
        let pairs = compatible(&fx.f);
        if !pairs.is_empty() {
            let (a, b) = pairs[pick.index(pairs.len())];
            fx.slot.swap(a as usize, b as usize);
        }
        prop_assert_eq!(fx.report(), "");
    }

    #[test]
    fn sharing_with_a_live_vreg_fails(s in shape(), pick in any::<prop::sample::Index>()) {
        let mut fx = Fixture::new(&render(&s, &s.bodies, 0)).own_registers();
        let pairs: Vec<(u32, u32)> = co_live(&fx.f).into_iter().collect();
        prop_assume!(!pairs.is_empty());
        let (a, b) = pairs[pick.index(pairs.len())];
        fx.slot[b as usize] = fx.slot[a as usize];
        let errs = fx.errors();
        let found = errs.iter().any(|e| matches!(e, CheckError::Overlap { a: x, b: y, .. }
            if (x.id.0, y.id.0) == (a, b)));
        prop_assert!(found, "no overlap of {} and {} in {:#?}", a, b, errs);
    }

    #[test]
    fn sharing_with_a_dead_vreg_passes(s in shape(), pick in any::<prop::sample::Index>()) {
        let mut fx = Fixture::new(&render(&s, &s.bodies, 0)).own_registers();
        let live = co_live(&fx.f);
        let pairs: Vec<(u32, u32)> = compatible(&fx.f).into_iter().filter(|p| !live.contains(p)).collect();
        prop_assume!(!pairs.is_empty());
        let (a, b) = pairs[pick.index(pairs.len())];
        fx.slot[b as usize] = fx.slot[a as usize];
        prop_assert_eq!(fx.report(), "");
    }

    #[test]
    fn reference_spill_code_passes(s in shape(), v in any::<prop::sample::Index>(), w in any::<prop::sample::Index>()) {
        let (v, w) = (v.index(s.nr), w.index(s.nr));
        let spills: Vec<(usize, u32)> = if v == w { vec![(v, 0)] } else { vec![(v, 0), (w, 4)] };
        let (bodies, ntemps, temps) = spill_bodies(&s, &spills);
        let src = render(&s, &bodies, ntemps);
        let mut fx = Fixture::new(&src).own_registers();
        for (k, &(x, off)) in spills.iter().enumerate() {
            let temps = temps[k].iter().map(|t| fx.id(&format!("%s{t}"))).collect();
            fx.spills.push(SpillSlotInfo { vreg: fx.id(&format!("%r{x}")), shared: false, offset: off, bytes: 4, temps });
        }
        prop_assert_eq!(fx.report(), "", "{}", src);
        let with = |text: &str| {
            let mut bx = Fixture::new(text).own_registers();
            bx.spills = fx.spills.clone();
            bx.errors()
        };

        // Redirect one reload to the other vreg's slot: it reads the wrong value.
        if spills.len() == 2 && !temps[0].is_empty() {
            let errs = with(&src.replacen("LDL.SPILL [R1 + 0]", "LDL.SPILL [R1 + 4]", 1));
            prop_assert!(errs.iter().any(|e| matches!(e, CheckError::BadReload { .. })), "{:#?}", errs);
        }

        // Delete a store (straight-line code): it fails exactly when a reload from that
        // slot follows before the slot's next store.
        if !s.diamond {
            let lines: Vec<&str> = src.lines().collect();
            let stores: Vec<usize> = (0..lines.len()).filter(|&i| lines[i].starts_with("STL.SPILL")).collect();
            for &del in stores.iter().take(3) {
                let slot = lines[del].split(']').next().unwrap_or("").to_string();
                let slot = format!("{}]", &slot[slot.find('[').unwrap_or(0)..]);
                let mut depends = false;
                for l in &lines[del + 1..] {
                    if l.contains(&slot) && l.starts_with("STL") {
                        break;
                    }
                    if l.contains(&slot) && l.contains("LDL") {
                        depends = true;
                        break;
                    }
                }
                let cut: String =
                    lines.iter().enumerate().filter(|&(i, _)| i != del).map(|(_, l)| format!("{l}\n")).collect();
                let errs = with(&cut);
                let bad = errs.iter().any(|e| matches!(e, CheckError::BadReload { .. }));
                prop_assert_eq!(bad, depends, "{:#?}\n{}", errs, cut);
                prop_assert!(errs.iter().all(|e| matches!(e, CheckError::BadReload { .. })), "{:#?}", errs);
            }
        }
    }

    #[test]
    fn garbage_never_panics_and_is_deterministic(
        s in shape(),
        slots in prop::collection::vec(prop::option::of(any::<u16>()), 0..30),
        pins in prop::collection::vec((0u32..40, any::<u16>()), 0..4),
        fixed in prop::collection::vec((0usize..7, 0u16..300), 0..4),
        spills in prop::collection::vec((0u32..40, any::<bool>(), 0u32..64, 0u32..80, prop::collection::vec(0u32..40, 0..3)), 0..3),
        exit_live in prop::collection::vec(0u32..40, 0..3),
        budget in prop::collection::vec((0usize..7, 0u32..300), 0..3),
        aliases in prop::collection::vec((0usize..40, 0u32..40), 0..3),
    ) {
        let mut f = func(&render(&s, &s.bodies, 0));
        let n = f.vregs.len();
        for (v, p) in aliases {
            if v < n {
                f.vregs[v].alias = Some(VRegId(p));
            }
        }
        let mut fx = Fixture::of(f);
        fx.slot = slots;
        fx.pins = pins.into_iter().map(|(v, r)| (VRegId(v), r)).collect();
        fx.fixed = fixed.into_iter().map(|(k, r)| (RegFile::ALL[k], r)).collect();
        fx.spills = spills.into_iter().map(|(v, shared, offset, bytes, temps)| SpillSlotInfo {
            vreg: VRegId(v), shared, offset, bytes, temps: temps.into_iter().map(VRegId).collect(),
        }).collect();
        fx.exit_live = exit_live.into_iter().map(VRegId).collect();
        fx.budget = budget.into_iter().map(|(k, b)| (RegFile::ALL[k], b)).collect();
        let first = fx.errors();
        prop_assert_eq!(first, fx.errors());
    }
}
