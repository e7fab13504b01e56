//! `why registers`, the pre-allocation stages (issue 13): what each prepass did to the R
//! pressure of an imported PTX function before the allocator saw it, in pipeline order,
//! with one sentence per stage in ptxas's terms.
//!
//! Re-runs the engine's passes on the function as loaded (`Machine::source`), in the
//! engine's order (as in `engine::stages::prepass_step`; a pass never reads another
//! function) with the same context and switched-off set, so the peaks agree with the
//! engine's own prepass. Reads results; never changes the machine.
//! Must not know the allocator.

use serde::Serialize;

use crate::engine::Machine;
use crate::ir::Module;
use crate::prepass::{PASSES, sink};

/// One stage that changed the function or was switched off (the engine's record of it).
pub use crate::prepass::record::StageStep as Step;

/// The stages' effect on one function.
pub struct Stages {
    pub imported_peak: u32,
    pub steps: Vec<Step>,
    pub final_peak: u32,
    pub target: u32,
    /// The SM (`schedule`'s fallback target).
    pub sm_version: u32,
    /// What set the budget the stages fill, in the input's words, when one does
    /// (`alloc::budget::stage_budget`): `--maxrregcount 64`, `.maxnreg 128`, ….
    pub filled: Option<String>,
}

impl Stages {
    /// Whether an explicit budget set the target (`schedule`'s fallback target).
    pub fn budgeted(&self) -> bool {
        self.filled.is_some()
    }
}

/// [`Stages::filled`] for `f`, a function of `module`.
fn filled_by(module: &crate::ir::Module, f: &crate::ir::Function) -> Option<String> {
    use crate::alloc::budget::{BudgetSource as S, resolve_as, stage_budget};
    let n = stage_budget(module, f)?;
    // The value as given, when ptxas raised it to its floor of 24.
    let given = |v: Option<u32>| match v.filter(|&v| v != n) {
        Some(v) => format!("{v} (raised to ptxas's floor)"),
        None => n.to_string(),
    };
    Some(match resolve_as(module, f, false, true).source {
        S::MaxNReg => format!(".maxnreg {}", given(f.maxnreg)),
        S::MaxRegCount => format!("--maxrregcount {}", given(module.options.maxrregcount)),
        S::DeviceFunctionMaxRegCount => {
            format!("--maxrregcount {}", given(module.options.device_function_maxrregcount))
        }
        _ => match (f.minnctapersm, crate::alloc::budget::block_threads(f)) {
            (Some(b), Some(t)) => format!(".minnctapersm {b} at {t} threads per block"),
            _ => format!("a budget of {n}"),
        },
    })
}

/// The stages replayed for function `fi`; `None` on Ori IR input.
pub fn replay(m: &Machine, fi: usize) -> Option<Stages> {
    // A machine whose `source` keeps no functions: a batch run's (nothing to replay), or
    // one that imports them again when asked (`Machine::owning`).
    let held = fi < m.source.functions.len();
    if !m.opts.imported || fi >= m.funcs.len() || !(held || m.reimport.is_some()) {
        return None;
    }
    // Recorded as the engine ran the passes (`radbg why`): nothing to run again.
    if held
        && m.pos.stage > crate::engine::event::Stage::Prepass
        && let Some(rec) = m.funcs.get(fi).and_then(|r| r.stage_record.as_ref())
    {
        return Some(recorded(m, fi, rec));
    }
    // The passes read of the module only its target, options and globals, never another
    // function: replaying `fi` alone gives its steps, where replaying every function for
    // each asked made `why` on a file of many entries quadratic (issue 25: 40 entries
    // 2.5 s, 614 entries over 12 minutes).
    let src = &*m.source;
    let mut module = Module {
        sm: src.sm.clone(),
        options: src.options.clone(),
        knobs: src.knobs.clone(),
        globals: src.globals.clone(),
        functions: vec![m.loaded_function(fi)?.into_owned()],
        srcloc: Default::default(),
    };
    let fi = 0;
    let imported_peak = sink::peak(&module.functions[fi]);
    let mut cur = imported_peak;
    let mut steps = Vec::new();
    for pass in PASSES {
        if m.opts.disabled_passes.contains(pass.name) {
            steps.push(Step::off(pass.name, cur));
            continue;
        }
        for j in 0..module.functions.len() {
            let ctx = crate::engine::stages::pass_ctx(&module, &module.functions[j]);
            let (g, summary) = (pass.run)(&module.functions[j], &ctx);
            let Some(g) = g.filter(|g| *g != module.functions[j]) else { continue };
            if j == fi {
                let peak = sink::peak(&g);
                let (moved, only_loads) = match pass.name {
                    "sink" => crate::prepass::record::moved_lines(&module.functions[j], &g),
                    _ => (None, true),
                };
                steps.push(Step { name: pass.name, off: false, peak, before: cur, summary, moved, only_loads });
                cur = peak;
            }
            module.functions[j] = g;
        }
    }
    let ctx = crate::engine::stages::pass_ctx(&module, &module.functions[fi]);
    let target = sink::target(&ctx);
    let filled = filled_by(&module, &module.functions[fi]);
    Some(Stages { imported_peak, steps, final_peak: cur, target, sm_version: module.sm.version, filled })
}

/// [`replay`]'s answer from the engine's record of the passes.
fn recorded(m: &Machine, fi: usize, rec: &crate::prepass::record::StageRecord) -> Stages {
    let src = &*m.source;
    let ctx = crate::engine::stages::pass_ctx(src, &src.functions[fi]);
    let steps = rec
        .steps
        .iter()
        .map(|s| Step {
            name: s.name,
            off: s.off,
            peak: s.peak,
            before: s.before,
            summary: s.summary.clone(),
            moved: s.moved,
            only_loads: s.only_loads,
        })
        .collect();
    Stages {
        imported_peak: rec.imported_peak,
        steps,
        final_peak: rec.current(),
        target: sink::target(&ctx),
        sm_version: src.sm.version,
        filled: filled_by(src, &src.functions[fi]),
    }
}

/// The sentence for one stage, in the user's terms.
fn sentence(s: &Step, st: &Stages) -> String {
    let change = format!("peak {} → {}", s.before, s.peak);
    match s.name {
        "sink" => match s.moved {
            Some((n, lo, hi)) => format!(
                "ptxas's scheduler interleaves the {n} {what} NVVM hoisted to the top of the block \
                 (lines {lo}–{hi}) with their uses: {change}, to fit its register target {}",
                st.target,
                what = if s.only_loads { "loads" } else { "loads and values" }
            ),
            None => format!("ptxas's scheduler interleaves hoisted loads with their uses: {change}"),
        },
        "schedule" if s.peak >= s.before => {
            let need = s.before + crate::alloc::budget::REPORT_EXTRA + 1;
            let t = crate::prepass::schedule::occupancy_fallback(st.target, st.sm_version, st.budgeted(), need);
            if let (true, Some(what)) = (t == st.target, &st.filled) {
                format!(
                    "ptxas's scheduler issues loads early to hide their latency, up to the budget {t} that {what} \
                     sets (ptxas fills an explicit budget; at the default it aims at occupancy)"
                )
            } else if t == st.target {
                format!("ptxas's scheduler issues loads early to hide their latency, up to the target {t}")
            } else {
                format!(
                    "ptxas's scheduler issues loads early to hide their latency: its occupancy target {} is out of \
                     reach ({need} needed), so up to {t}, the most registers that keep the same resident warps",
                    st.target
                )
            }
        }
        "schedule" => {
            format!("ptxas's scheduler reorders the block to bring the pressure toward the target {}", st.target)
        }
        "narrow" => "ptxas addresses shared memory with 32-bit registers".to_string(),
        "zext" => "ptxas keeps a 64-bit value whose high word is known zero in one register and reads RZ for the high word".to_string(),
        "remat" => "ptxas computes cheap values (an add of a constant, a shift, a mask) where they are used, from registers live there anyway".to_string(),
        "vectorize" => "ptxas loads adjacent shared-memory words together (LDS.64, LDS.128): they arrive, and stay live, together".to_string(),
        "fold" => {
            "ptxas folds parameters and constants into instructions as c[0x0][..] operands and immediates".to_string()
        }
        "expand" => {
            "ptxas expands divisions, 64-bit multiplies and predicated FP64 operations into sequences with temporaries of their own".to_string()
        }
        "slowpath" => "ptxas calls internal routines for these operations (div.rn.f32, sqrt.rn.f32, rcp.rn.f32, \
                       64-bit div/rem, …; on sm_75–sm_89 a shfl.sync or vote.sync under a thread-dependent \
                       branch), allocated with the kernel: each call clobbers the routine's registers"
            .to_string(),
        "webs" => "a name PTX reuses for unrelated values becomes one value each, as in ptxas's own IR".to_string(),
        "components" => "ptxas builds a 64-bit value from its two 32-bit halves in place".to_string(),
        "fragments" => "ptxas loads a tensor-core fragment straight into its register tuple and reads it in place at every MMA".to_string(),
        "ifconvert" => "ptxas turns short branches into predicated instructions".to_string(),
        "unroll" => "ptxas unrolls small counted loops four times (not those marked .pragma \"nounroll\"): \
                     the copies' values are live together once their loads are issued early"
            .to_string(),
        // A stage without a sentence of its own says what the pass list says of it.
        name => crate::prepass::PASSES.iter().find(|p| p.name == name).map_or_else(String::new, |p| p.about.to_string()),
    }
}

/// The section's text; empty on Ori IR input.
pub fn text(st: &Stages) -> String {
    let mut t = format!("before allocation: the PTX as imported has R peak {}\n", st.imported_peak);
    for s in &st.steps {
        if s.off {
            t.push_str(&format!("  {:<10} switched off\n", s.name));
            continue;
        }
        let d = s.peak as i64 - s.before as i64;
        t.push_str(&format!("  {:<10} {} → {} ({d:+}): {}\n", s.name, s.before, s.peak, sentence(s, st)));
        t.push_str(&format!("  {:<10} ({})\n", "", s.summary));
    }
    t.push_str(&format!("the allocator then starts from peak {}\n", st.final_peak));
    t
}

/// Facts for `expect`.
pub fn facts(st: &Stages) -> Vec<(String, i64)> {
    let mut v = vec![
        ("prepass-peak-before".to_string(), st.imported_peak as i64),
        ("prepass-peak-after".to_string(), st.final_peak as i64),
    ];
    for s in st.steps.iter().filter(|s| !s.off) {
        v.push((format!("prepass-{}-peak", s.name), s.peak as i64));
    }
    v
}

/// The section as tools read it (the `prepass` object of `why registers --json`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StagesAnswer {
    pub peak_before: u32,
    pub peak_after: u32,
    pub target: u32,
    pub stages: Vec<StepAnswer>,
}

/// One stage of [`StagesAnswer`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StepAnswer {
    pub stage: &'static str,
    pub off: bool,
    pub before: u32,
    pub peak: u32,
    pub summary: String,
    /// For `sink`: how many instructions moved and their PTX line range.
    pub moved: Option<Moved>,
}

/// Instructions `sink` moved: their count and first and last PTX line.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Moved {
    pub count: usize,
    pub lines: [u32; 2],
}

/// The typed answer of the section.
pub fn answer(st: &Stages) -> StagesAnswer {
    StagesAnswer {
        peak_before: st.imported_peak,
        peak_after: st.final_peak,
        target: st.target,
        stages: st
            .steps
            .iter()
            .map(|s| StepAnswer {
                stage: s.name,
                off: s.off,
                before: s.before,
                peak: s.peak,
                summary: s.summary.clone(),
                moved: s.moved.map(|(count, lo, hi)| Moved { count, lines: [lo, hi] }),
            })
            .collect(),
    }
}
