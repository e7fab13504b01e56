//! Test support for the Chaitin-Briggs allocator: functions from Ori IR text (the real
//! parser), runs that must pass the independent checker, the check that coalescing never
//! merged interfering vregs, and a compact summary of a result for data-driven tests.
#![allow(dead_code)]

use radbg::alloc::AllocConfig;
use radbg::alloc::briggs::BriggsAlloc;
use radbg::alloc::ranges::Ranges;
use radbg::analysis::{cfg, liveness};
use radbg::ir::{Function, VRegId, parse_str};

/// Parses Ori IR text and returns its first function. Text without a `.entry`/`.func`
/// header is the body of `.entry test` on sm_90.
pub fn func(text: &str) -> Function {
    let src = if text.contains(".entry") || text.contains(".func") {
        text.to_string()
    } else {
        format!(".target sm_90\n.entry test {{\n{text}\n}}\n")
    };
    let m = parse_str(&src).unwrap_or_else(|e| panic!("test input does not parse:\n{e}\n{src}"));
    m.functions.into_iter().next().expect("a function")
}

/// A machine for `src` with a general-register budget and `NAME=VALUE` knobs, not run.
pub fn alloc(src: &str, knobs: &[&str], budget: u32) -> BriggsAlloc {
    let mut config = AllocConfig::simple(90, budget);
    for k in knobs {
        config.knobs.set_str(k).unwrap_or_else(|e| panic!("knob {k}: {e}"));
    }
    BriggsAlloc::new(func(src), config)
}

/// Runs to the end; a successful result must pass the checker and coalesce soundly.
pub fn run(src: &str, knobs: &[&str], budget: u32) -> BriggsAlloc {
    let mut a = alloc(src, knobs, budget);
    a.run();
    verify(&a);
    a
}

/// The checks every successful result must pass.
pub fn verify(a: &BriggsAlloc) {
    if a.failure().is_none() {
        if let Err(errors) = a.check() {
            let text: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
            panic!(
                "checker rejects the Briggs result:\n{}\n{}",
                text.join("\n"),
                radbg::ir::print::print_function(a.func())
            );
        }
        coalescing_is_sound(a);
    }
}

/// Coalescing never joined interfering vregs: with the alias links the allocator added
/// removed, no two vregs it merged are live at a common position.
pub fn coalescing_is_sound(a: &BriggsAlloc) {
    let mut f = a.func().clone();
    let orig = a.original();
    let mut merged: Vec<(usize, usize)> = Vec::new();
    for (i, v) in f.vregs.iter_mut().enumerate() {
        let before = orig.vregs.get(i).and_then(|o| o.alias);
        if v.alias != before
            && let Some(to) = v.alias
        {
            merged.push((i, to.index()));
            v.alias = before;
        }
    }
    if merged.is_empty() {
        return;
    }
    let c = cfg::build(&f, 1.0);
    let live = liveness::compute(&f, &c, &a.config().exit_live);
    let ranges = Ranges::build(&f, &live);
    // Groups: every vreg merged into the same node, with the node itself.
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for &(x, to) in &merged {
        match groups.iter_mut().find(|g| g[0] == to) {
            Some(g) => g.push(x),
            None => groups.push(vec![to, x]),
        }
    }
    for g in &groups {
        for (i, &x) in g.iter().enumerate() {
            for &y in &g[i + 1..] {
                let o = ranges.overlap(ranges.root[x], ranges.root[y]);
                assert_eq!(o, 0, "coalesced {} and {} interfere", f.vregs[x].name, f.vregs[y].name);
            }
        }
    }
}

fn reg(a: &BriggsAlloc, v: VRegId) -> String {
    let vr = a.func().vreg(v);
    match a.slot_of(v) {
        None => "-".into(),
        Some(s) if vr.width > 1 => format!("{p}{s}..{p}{}", s + vr.width as u16 - 1, p = vr.file().prefix()),
        Some(s) => format!("{}{s}", vr.file().prefix()),
    }
}

/// `ok iterations=N spilled=S registers=R`, then (when there are any) the spilled vregs,
/// coalesced moves, spill code figures, and for functions of at most four vregs every
/// assignment (`%r0 = R4`, `alias %x` when coalesced), sorted by name.
pub fn summary(a: &BriggsAlloc) -> String {
    let s = a.stats();
    let mut out = format!(
        "{} iterations={} spilled={} registers={}\n",
        if s.ok { "ok" } else { "FAILED" },
        s.iterations,
        s.spilled,
        s.registers
    );
    if let Some(m) = &s.failure {
        out.push_str(&format!("error: {m}\n"));
    }
    let orig = a.original();
    if !a.spilled().is_empty() {
        let names: Vec<String> = a.spilled().iter().map(|v| orig.vreg(*v).name.to_string()).collect();
        out.push_str(&format!("spilled: {}\n", names.join(" ")));
    }
    if s.coalesced > 0 {
        out.push_str(&format!("coalesced {}/{}\n", s.coalesced, s.moves));
    }
    if s.spilled > 0 {
        out.push_str(&format!(
            "remats={} reloads={} stores={} frame={}\n",
            s.remats, s.reloads, s.stores, s.frame_bytes
        ));
    }
    let vregs: Vec<usize> = (0..orig.vregs.len()).filter(|&i| orig.vregs[i].class.is_allocatable()).collect();
    if vregs.len() <= 4 {
        let mut lines: Vec<String> = vregs
            .iter()
            .map(|&i| {
                let v = VRegId::new(i);
                let mut l = format!("{} = {}", orig.vregs[i].name, reg(a, v));
                if let Some(to) = a.func().vregs[i].alias.filter(|_| orig.vregs[i].alias.is_none()) {
                    l.push_str(&format!(" alias {}", orig.vreg(to).name));
                }
                l
            })
            .collect();
        lines.sort();
        for l in lines {
            out.push_str(&l);
            out.push('\n');
        }
    }
    out
}
