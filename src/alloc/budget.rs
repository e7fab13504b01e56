//! Register budgets per class and the occupancy model (seed 000, "Register Classes",
//! "External Budget Inputs", "Piecewise Budget Fraction Evaluation", "Occupancy formula").
//!
//! The budget of class 1 (and its mirror, class 2) is the minimum of the
//! architectural cap, `--maxrregcount` (or `--device-function-maxrregcount` for device
//! functions), `.maxnreg`, and the launch-bound budget derived from `.maxntid` /
//! `.minnctapersm`; then bumped to the ABI minimum for functions that use the ABI.
//! Classes 3–6 are not exposed to `--maxrregcount`: their budget is the file's cap.
//! Every input that was ignored or overridden leaves a diagnostic with the seed's words.

use crate::ir::{FuncKind, Function, Module, RegFile};
use crate::knobs::Knobs;
// The register file and occupancy model sit below both the pre-allocation stages and the
// allocator (tests/layers.rs); re-exported so `alloc::budget::*` paths keep working.
pub use crate::ir::regfile::{
    GPR_CAP, REGFILE_PER_SM, REPORT_EXTRA, STACK_POINTER, WARP_ALLOC_UNIT, max_warps, max_warps_per_sm, occupancy_top,
    regs_for_occupancy,
};

/// What set a class budget.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BudgetSource {
    ArchCap,
    MaxRegCount,
    DeviceFunctionMaxRegCount,
    MaxNReg,
    LaunchBounds,
    /// The launch bounds of the entries that call a device function.
    CallerLaunchBounds,
    AbiFloor,
}

impl BudgetSource {
    pub fn describe(&self) -> &'static str {
        match self {
            BudgetSource::ArchCap => "the architectural cap",
            BudgetSource::MaxRegCount => "--maxrregcount",
            BudgetSource::DeviceFunctionMaxRegCount => "--device-function-maxrregcount",
            BudgetSource::MaxNReg => ".maxnreg",
            BudgetSource::LaunchBounds => "the launch bounds (.maxntid/.minnctapersm)",
            BudgetSource::CallerLaunchBounds => "the launch bounds of the entries that call it",
            BudgetSource::AbiFloor => "the ABI minimum",
        }
    }
}

/// The fewest registers per thread ptxas 13.0.88 allocates to under any budget
/// ([`resolve_as`], measured).
pub const MIN_BUDGET: u32 = 24;

/// The resolved budget of one function's general register file, with how it came about.
#[derive(Clone, Debug, PartialEq)]
pub struct Budget {
    /// Registers of class 1/2 available (R0 .. R(budget-1)).
    pub gpr: u32,
    pub source: BudgetSource,
    /// ptxas-worded diagnostics about ignored or overridden inputs.
    pub diagnostics: Vec<String>,
    /// The launch-bound budget, when `.maxntid` was given.
    pub launch_bound: Option<u32>,
}

/// The `report` rule for imported PTX: the allocator gets `budget - REPORT_EXTRA`
/// general registers and never R1 (the stack pointer).
pub fn apply_report_rule(c: &mut crate::alloc::AllocConfig) {
    c.gpr_budget = c.gpr_budget.saturating_sub(REPORT_EXTRA).max(STACK_POINTER as u32 + 2);
    if !c.fixed.contains(&(RegFile::R, STACK_POINTER)) {
        c.fixed.push((RegFile::R, STACK_POINTER));
    }
}

/// Threads per block from `.maxntid` / `.reqntid`, if either is given.
pub fn block_threads(f: &Function) -> Option<u32> {
    let dims = f.maxntid.as_ref().or(f.reqntid.as_ref())?;
    Some(dims.iter().fold(1u32, |a, &d| a.saturating_mul(d.max(1))))
}

/// Resolves the general-register budget of a function (seed 000, "External Budget Inputs").
pub fn resolve(m: &Module, f: &Function, uses_abi: bool) -> Budget {
    resolve_as(m, f, uses_abi, false)
}

/// [`resolve`], with `measured`: launch bounds as ptxas 13.0.88 treats them (imported
/// PTX, which radbg measures against it), else as seed 000 states (Ori IR, whose
/// sessions exercise the seed's rule). Measured (issue 23 rule 2): with `.maxntid` the
/// count is the same at every `--maxrregcount` (a 54-register kernel: 54 at 24, 32, 40
/// and none; with `.maxntid 1024` and `.minnctapersm 2`, 32 with spills at each) and
/// ptxas prints no ".minnctapersm ignored" line: the launch bounds, `.minnctapersm`
/// included, replace `--maxrregcount`. Seed 000 says `.minnctapersm` is ignored when
/// `--maxrregcount` is given.
pub fn resolve_as(m: &Module, f: &Function, uses_abi: bool, measured: bool) -> Budget {
    let mut diagnostics = Vec::new();
    let mut gpr = GPR_CAP;
    let mut source = BudgetSource::ArchCap;

    // The CLI cap: --device-function-maxrregcount overrides --maxrregcount for device
    // functions (ptxas: "for -c compilations"; radbg treats every module as one).
    let mut cli = m.options.maxrregcount.map(|n| (n, BudgetSource::MaxRegCount));
    // Measured: launch bounds replace --maxrregcount ([`resolve_as`]).
    if measured
        && f.launch_bounded()
        && let Some((n, _)) = cli.take()
    {
        diagnostics.push(format!("--maxrregcount {n} ignored for {}: its launch bounds set the budget", f.name));
    }
    if f.kind == FuncKind::Device
        && let Some(d) = m.options.device_function_maxrregcount
    {
        if let Some((g, _)) = cli {
            diagnostics.push(format!("Overriding global maxrregcount {g} with entry-specific value {d} {}", f.name));
        }
        cli = Some((d, BudgetSource::DeviceFunctionMaxRegCount));
    }
    // Measured: a device function whose calling entries all have the same launch-bound
    // budget is compiled to it, whatever `--maxrregcount` says (`ir::callgraph::inherit_launch_bounds`).
    if measured
        && f.kind == FuncKind::Device
        && let Some(b) = f.inherited_budget
    {
        if let Some((n, BudgetSource::MaxRegCount)) = cli {
            diagnostics.push(format!(
                "Overriding global maxrregcount {n} with entry-specific value {b} computed using thread count ({})",
                f.name
            ));
            cli = None;
        }
        if b < gpr {
            gpr = b;
            source = BudgetSource::CallerLaunchBounds;
        }
    }
    if let Some((n, src)) = cli.clone() {
        if n > GPR_CAP {
            diagnostics.push(format!("Too big maxrregcount value specified {n}, will be ignored"));
        } else if f.maxnreg.is_none() {
            gpr = n;
            source = src;
        }
    }
    // `.maxnreg` takes precedence over the CLI value (no --override-directive-values).
    if let Some(n) = f.maxnreg {
        if let Some((c, _)) = cli.filter(|(c, _)| *c <= GPR_CAP)
            && c != n
        {
            diagnostics.push(format!(".maxnreg {n} takes precedence over --maxrregcount {c} for {}", f.name));
        }
        if n.min(GPR_CAP) < gpr || source == BudgetSource::ArchCap {
            gpr = n.min(GPR_CAP);
            source = BudgetSource::MaxNReg;
        }
    }
    // Launch bounds: `.minnctapersm` is ignored when -maxrregcount is given (seed 000;
    // when `measured`, the option is already gone).
    let mut launch_bound = None;
    if let Some(threads) = block_threads(f) {
        let blocks = match (f.minnctapersm, m.options.maxrregcount) {
            (Some(_), Some(_)) if !measured => {
                diagnostics.push(".minnctapersm ignored if -maxrregcount option is used".to_string());
                1
            }
            // Measured: more threads than an SM holds (`.maxntid 1024` with
            // `.minnctapersm 4` on sm_80) and ptxas drops `.minnctapersm` with this line.
            (Some(_), _) if measured && minnctapersm_out_of_range(m, f) => {
                diagnostics.push(format!(
                    "Value of threads per SM for entry {} is out of range. .minnctapersm will be ignored",
                    f.name
                ));
                1
            }
            (Some(b), _) => b,
            (None, _) => 1,
        };
        let lb = regs_for_occupancy(threads, blocks);
        launch_bound = Some(lb);
        if lb < gpr {
            gpr = lb;
            source = BudgetSource::LaunchBounds;
        }
    } else if f.minnctapersm.is_some() {
        diagnostics.push(".minnctapersm is ignored when neither .maxntid nor .reqntid is specified".to_string());
    }
    // Measured: ptxas raises a budget below 24 to 24 on every profile (sm_75 … sm_120),
    // with its own line for `--maxrregcount` ("For profile sm_80 …") and `.maxnreg`
    // ("For entry k …"). Launch bounds in range never ask for fewer than 32. The rule
    // `floor` (`set stage floor off`) lets a session study smaller budgets anyway.
    if measured && !m.options.budget_floor_off && gpr < MIN_BUDGET {
        let whose = match source {
            BudgetSource::MaxNReg => format!("entry {}", f.name),
            _ => format!("profile {}", m.sm),
        };
        diagnostics
            .push(format!("For {whose} adjusting per thread register count of {gpr} to lower bound of {MIN_BUDGET}"));
        gpr = MIN_BUDGET;
    }
    // Values below the ABI floor are bumped up silently in ptxas; radbg says so.
    if uses_abi
        && let Some(min) = m.sm.abi_minimum()
        && gpr < min
    {
        diagnostics.push(format!("register budget {gpr} raised to the ABI minimum of {min}"));
        gpr = min;
        source = BudgetSource::AbiFloor;
    }
    Budget { gpr, source, diagnostics, launch_bound }
}

/// The most registers the pre-allocation stages may aim at (`prepass::PassCtx::cap`):
/// the budget launch bounds set, as ptxas treats them ([`resolve_as`] measured), when the
/// function has them. Measured: deepspeed's `dequant_reduce` kernels (`.maxntid 1024`:
/// 64 registers) were scheduled for latency up to 72, the occupancy step above their
/// need, and spilled where ptxas fits 64; aimed at the launch budget itself instead
/// (`PassCtx::maxrregcount`), the kernels that need 24–47 were filled to 43–64 where ptxas
/// reports 32–51 (ARCHITECTURE.md, issue 23 rule 4). So a cap, not a target.
pub fn prepass_cap(m: &Module, f: &Function) -> Option<u32> {
    let b = resolve_as(m, f, false, true);
    let bounded =
        (f.launch_bounded() && b.source == BudgetSource::LaunchBounds) || b.source == BudgetSource::CallerLaunchBounds;
    bounded.then_some(b.gpr)
}

/// The budget the pre-allocation stages fill (`prepass::PassCtx::maxrregcount`): an
/// explicit register budget — `--maxrregcount` (or `--device-function-maxrregcount`),
/// `.maxnreg`, or launch bounds with `.minnctapersm` — as ptxas resolves it
/// ([`resolve_as`] measured); `None` at the default and for `.maxntid`/`.reqntid` alone,
/// which only cap ([`prepass_cap`]).
///
/// Measured (issue 23 rule 10, ARCHITECTURE.md): ptxas 13.0.88 compiles a kernel with
/// `.maxntid 256` and `.minnctapersm k` exactly as the same kernel without them under
/// `--maxrregcount` of the launch budget (tract's `mul_mat_q40_32_8_false`: 205, 128 +
/// 44 B spill, 80 + 48 B at k = 1, 2, 3 and at 255, 128, 80; without either, 111; with
/// `.maxntid 256` alone, 110); eight development kernels with `.minnctapersm` report
/// their count at `--maxrregcount 255` (255, 255, 205, 255, 255, 160, 38, 48), not the
/// default's (191, 189, 111, 187, 199, 134, 32, 48). `.maxnreg 255` and `.maxnreg 128`
/// give 205 and 128 + 44 B the same way. Seed 000 says only that `.minnctapersm`
/// "drives the occupancy target".
pub fn stage_budget(m: &Module, f: &Function) -> Option<u32> {
    let b = resolve_as(m, f, false, true);
    let explicit =
        matches!(b.source, BudgetSource::MaxRegCount | BudgetSource::DeviceFunctionMaxRegCount | BudgetSource::MaxNReg)
            || (f.launch_bounded() && f.minnctapersm.is_some() && !minnctapersm_out_of_range(m, f));
    explicit.then_some(b.gpr)
}

/// Whether `.minnctapersm` asks for more threads than an SM holds (`.maxntid 1024` with
/// `.minnctapersm 4` on sm_80: 4096 > 2048), which ptxas 13.0.88 ignores with "Value of
/// threads per SM for entry k is out of range. .minnctapersm will be ignored" (measured).
pub fn minnctapersm_out_of_range(m: &Module, f: &Function) -> bool {
    match (block_threads(f), f.minnctapersm) {
        (Some(threads), Some(b)) => threads.saturating_mul(b) > max_warps_per_sm(m.sm.version) * 32,
        _ => false,
    }
}

/// Number of physical registers of a file that the allocator may use for a class
/// (seed 000: 255 GPR, 63 UR, 7 P/UP; tensor per-arch, a knob in radbg).
pub fn file_cap(file: RegFile, knobs: &Knobs) -> u32 {
    match file {
        RegFile::R => GPR_CAP,
        RegFile::UR => 63,
        RegFile::P | RegFile::UP => 7,
        RegFile::T => match knobs.int("radbg.TensorRegs") {
            0 => 64,
            n => n as u32,
        },
        RegFile::B | RegFile::UB => 16,
    }
}

/// Seed 000's spill-cost multiplier at +1548 (knob 680, default 4.0) scaled by
/// `--register-usage-level` (0..=10, default 5): level 5 leaves it as is, each level
/// above adds a fifth, each below removes one. Higher levels make spilling look more
/// expensive, so more vregs are classified High and kept in registers.
pub fn spill_cost_multiplier(knobs: &Knobs, usage_level: Option<u32>) -> f64 {
    let base = knobs.float(crate::knobs::SPILL_COST_MULT);
    let level = usage_level.unwrap_or(5).min(10) as f64;
    base * (1.0 + (level - 5.0) / 5.0).max(0.0)
}

/// The piecewise-linear budget fraction of seed 000 ("Piecewise Budget Fraction
/// Evaluation"), evaluated exactly as sub_937E90 does.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FractionModel {
    pub total_threads: f64,
    /// Interleaved (y0, x1, y1, x2, y2, x3, y3) at +1664 .. +1712.
    pub points: [f64; 7],
    /// Linear fast path: x_min (+1720), y_min (+1728), slope (+1736).
    pub x_min: f64,
    pub y_min: f64,
    pub slope: f64,
}

impl FractionModel {
    pub fn new(knobs: &Knobs, total_threads: u32) -> FractionModel {
        let a = knobs.float("RegTgtCoeffA");
        let b = knobs.float("RegTgtCoeffB");
        let c = knobs.float("RegTgtCoeffC");
        let max_threads = knobs.int("RegTgtMaxThreads") as f64;
        let threshold = knobs.int("RegTgtPressureThreshold") as f64;
        // x3 = 255 minus the profile adjustment; radbg's profile adjusts by 0.
        let x3 = GPR_CAP as f64;
        let min_occ = total_threads as f64;
        let max_occ = x3;
        let slope = if max_occ > min_occ { (b - c) / (max_occ - min_occ) } else { 0.0 };
        FractionModel {
            total_threads: total_threads as f64,
            points: [a, max_threads, a, threshold, a, x3, b],
            x_min: min_occ,
            y_min: c,
            slope,
        }
    }

    /// `evaluate_budget_fraction(alloc, reg_count)`.
    pub fn fraction(&self, reg_count: u32) -> f64 {
        let x = reg_count as f64;
        let [y0, x1, y1, x2, y2, x3, y3] = self.points;
        let t = self.total_threads;
        if t > x {
            return y0;
        }
        if x1 > x {
            return if x1 > t { y0 + (y1 - y0) / (x1 - t) * (x - t) } else { y0 };
        }
        if x2 > x {
            return y1 + (y2 - y1) / (x2 - x1) * (x - x1);
        }
        if x3 > x {
            return y2 + (y3 - y2) / (x3 - x2) * (x - x2);
        }
        y3
    }

    /// The spill-round predicate of sub_937E90:
    /// `pair_penalty + demanded + live_count > (range + 1) * fraction`.
    pub fn needs_spill(&self, pair_penalty: u32, demanded: u32, live_count: u32, range: u32) -> bool {
        let f = self.fraction(range + 1);
        (pair_penalty + demanded + live_count) as f64 > (range + 1) as f64 * f
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{FuncKind, Function, Module, Sm};

    fn module(maxrreg: Option<u32>) -> Module {
        let mut m = Module { sm: Sm::new(90), ..Module::default() };
        m.options.maxrregcount = maxrreg;
        m
    }

    #[test]
    fn budget_inputs_in_seed_order() {
        let mut f = Function::new("k", FuncKind::Entry);
        assert_eq!(resolve(&module(None), &f, false).gpr, 255);
        assert_eq!(resolve(&module(Some(64)), &f, false).gpr, 64);
        let b = resolve(&module(Some(300)), &f, false);
        assert_eq!(b.gpr, 255);
        assert_eq!(b.diagnostics, vec!["Too big maxrregcount value specified 300, will be ignored"]);
        f.maxnreg = Some(40);
        let b = resolve(&module(Some(64)), &f, false);
        assert_eq!((b.gpr, b.source), (40, BudgetSource::MaxNReg));
        f.maxnreg = None;
        f.maxntid = Some(vec![256]);
        f.minnctapersm = Some(4);
        let b = resolve(&module(None), &f, false);
        assert_eq!((b.gpr, b.source), (64, BudgetSource::LaunchBounds));
        let b = resolve(&module(Some(128)), &f, false);
        assert!(b.diagnostics.iter().any(|d| d.contains("ignored if -maxrregcount")));
        assert_eq!(b.gpr, 128);
    }

    #[test]
    fn measured_launch_bounds_replace_maxrregcount() {
        // ptxas 13.0.88 with `.maxntid` gives the same count at every --maxrregcount
        // (a 54-register kernel: 54 at 24, 32, 40 and none; with `.maxntid 1024` and
        // `.minnctapersm 2`, 32 with spills at each): the launch bounds decide.
        let mut f = Function::new("k", FuncKind::Entry);
        f.maxntid = Some(vec![256]);
        f.minnctapersm = Some(4);
        let resolve = |m: &Module, f: &Function, abi: bool| resolve_as(m, f, abi, true);
        for cli in [24, 128] {
            let b = resolve(&module(Some(cli)), &f, false);
            assert_eq!((b.gpr, b.source), (64, BudgetSource::LaunchBounds), "--maxrregcount {cli}");
            assert!(b.diagnostics.iter().any(|d| d.contains(&format!("--maxrregcount {cli} ignored"))));
        }
        f.maxntid = Some(vec![1024]);
        f.minnctapersm = Some(2);
        assert_eq!(resolve(&module(Some(128)), &f, false).gpr, 32);
        f.minnctapersm = None;
        assert_eq!(resolve(&module(Some(24)), &f, false).gpr, 64);
    }

    #[test]
    fn explicit_budgets_are_filled_launch_bounds_alone_cap() {
        let mut f = Function::new("k", FuncKind::Entry);
        assert_eq!(stage_budget(&module(None), &f), None);
        assert_eq!(stage_budget(&module(Some(64)), &f), Some(64));
        // ptxas ignores a --maxrregcount above the cap: no budget then.
        assert_eq!(stage_budget(&module(Some(300)), &f), None);
        f.maxnreg = Some(255);
        assert_eq!(stage_budget(&module(None), &f), Some(255));
        f.maxnreg = None;
        f.maxntid = Some(vec![256]);
        assert_eq!(stage_budget(&module(Some(64)), &f), None, ".maxntid replaces --maxrregcount and only caps");
        assert_eq!(prepass_cap(&module(None), &f), None, "256 threads allow every register");
        // `.minnctapersm 1` at 256 threads allows all 255: still a budget the stages fill.
        f.minnctapersm = Some(1);
        assert_eq!(stage_budget(&module(None), &f), Some(255));
        f.minnctapersm = Some(2);
        assert_eq!(stage_budget(&module(Some(32)), &f), Some(128));
        // Without launch bounds `.minnctapersm` is ignored.
        f.maxntid = None;
        assert_eq!(stage_budget(&module(None), &f), None);
    }

    #[test]
    fn abi_floor_bumps_low_budgets() {
        let f = Function::new("d", FuncKind::Device);
        let b = resolve(&module(Some(16)), &f, true);
        assert_eq!((b.gpr, b.source), (24, BudgetSource::AbiFloor));
    }

    #[test]
    fn occupancy_is_monotone_and_granular() {
        assert_eq!(max_warps(90, 32), 64);
        assert_eq!(max_warps(90, 64), 32);
        assert_eq!(max_warps(90, 65), 28);
        assert_eq!(max_warps(90, 255), 8);
        assert_eq!(regs_for_occupancy(1024, 1), 64);
        assert_eq!(regs_for_occupancy(128, 8), 64);
    }

    #[test]
    fn fraction_follows_the_piecewise_table() {
        let k = Knobs::new();
        let m = FractionModel::new(&k, 32);
        assert_eq!(m.fraction(10), 0.2);
        assert_eq!(m.fraction(255), 1.0);
        let mid = m.fraction(200);
        assert!(mid > 0.2 && mid < 1.0);
    }
}
