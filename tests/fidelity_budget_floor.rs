//! Budgets ptxas 13.0.88 does not take as given (stop 38; `alloc::budget::resolve_as`,
//! measured): a `--maxrregcount` or `.maxnreg` below 24 is raised to 24 on every profile
//! (sm_75 … sm_120), and a `.minnctapersm` that asks for more threads than an SM holds is
//! ignored — each with ptxas's own line, which radbg prints the same way. When ptxas is
//! installed the last test checks its lines and counts.

mod common;

/// A dot product whose natural count is above 24: `directives` go after the entry's
/// parameter list.
fn kernel(directives: &str) -> String {
    let body: String = (0..4)
        .map(|j| {
            format!(
                "ld.global.nc.v2.f32 {{%f{a}, %f{b}}}, [%rd5+{o}];\nld.global.nc.v2.f32 {{%f{c}, %f{d}}}, [%rd6+{o}];\n\
                 fma.rn.f32 %f3, %f{a}, %f{c}, %f3;\nfma.rn.f32 %f3, %f{b}, %f{d}, %f3;\n",
                a = 10 + 4 * j,
                b = 11 + 4 * j,
                c = 12 + 4 * j,
                d = 13 + 4 * j,
                o = 2048 * j
            )
        })
        .collect();
    format!(
        ".version 8.8\n.target sm_80\n.address_size 64\n\
         .visible .entry k(.param .u64 a, .param .u64 b, .param .u32 n)\n{directives}\n{{\n\
         .reg .pred %p<4>; .reg .b32 %r<12>; .reg .f32 %f<40>; .reg .b64 %rd<12>;\n\
         ld.param.u64 %rd7, [a]; ld.param.u64 %rd8, [b]; ld.param.u32 %r9, [n];\n\
         cvta.to.global.u64 %rd1, %rd7; cvta.to.global.u64 %rd2, %rd8;\n\
         mov.u32 %r5, %tid.x;\nmov.f32 %f3, 0f00000000;\n\
         setp.ge.u32 %p3, %r5, %r9; @%p3 bra $END;\n\
         $LOOP:\nmul.wide.u32 %rd4, %r5, 8;\nadd.s64 %rd5, %rd1, %rd4;\nadd.s64 %rd6, %rd2, %rd4;\n\
         {body}add.s32 %r5, %r5, 1024;\nsetp.lt.u32 %p1, %r5, %r9;\n@%p1 bra $LOOP;\n\
         $END:\nmul.wide.u32 %rd4, %r9, 4;\nadd.s64 %rd6, %rd2, %rd4;\nst.global.f32 [%rd6], %f3;\nret;\n}}\n"
    )
}

/// radbg's budget for the kernel with `directives` under `--maxrregcount` `cli`, as it
/// resolves imported PTX, and its lines.
fn budget(directives: &str, cli: Option<u32>) -> (u32, Vec<String>) {
    let (mut m, _) = radbg::ir::ptx::import_str("k.ptx", &kernel(directives)).expect("imports");
    m.options.maxrregcount = cli;
    let b = radbg::alloc::budget::resolve_as(&m, &m.functions[0], false, true);
    (b.gpr, b.diagnostics)
}

const CLI_LINE: &str = "For profile sm_80 adjusting per thread register count of 16 to lower bound of 24";
const MAXNREG_LINE: &str = "For entry k adjusting per thread register count of 16 to lower bound of 24";
const RANGE_LINE: &str = "Value of threads per SM for entry k is out of range. .minnctapersm will be ignored";

#[test]
fn a_budget_below_24_is_raised_to_24_with_ptxas_s_line() {
    assert_eq!(budget("", Some(16)), (24, vec![CLI_LINE.to_string()]));
    assert_eq!(budget("", Some(24)), (24, vec![]));
    assert_eq!(budget("", Some(23)).0, 24);
    assert_eq!(budget(".maxnreg 16", None), (24, vec![MAXNREG_LINE.to_string()]));
    // The seed's reading (Ori IR sessions) takes the budget as given.
    let (mut m, _) = radbg::ir::ptx::import_str("k.ptx", &kernel("")).expect("imports");
    m.options.maxrregcount = Some(16);
    assert_eq!(radbg::alloc::budget::resolve_as(&m, &m.functions[0], false, false).gpr, 16);
}

#[test]
fn minnctapersm_beyond_the_sm_is_ignored() {
    // 1024 threads × 4 blocks > 2048 threads per SM: the launch bound is 1024 threads' 64.
    let (gpr, lines) = budget(".maxntid 1024, 1, 1\n.minnctapersm 4", None);
    assert_eq!((gpr, lines), (64, vec![RANGE_LINE.to_string()]));
    // In range (× 2 = 2048): 32, no line; and it is an explicit budget the stages fill.
    assert_eq!(budget(".maxntid 1024, 1, 1\n.minnctapersm 2", None), (32, vec![]));
    let staged = |d: &str| {
        let (m, _) = radbg::ir::ptx::import_str("k.ptx", &kernel(d)).expect("imports");
        radbg::alloc::budget::stage_budget(&m, &m.functions[0])
    };
    assert_eq!(staged(".maxntid 1024, 1, 1\n.minnctapersm 2"), Some(32));
    assert_eq!(staged(".maxntid 1024, 1, 1\n.minnctapersm 4"), None, "ignored: .maxntid alone only caps");
}

#[test]
fn ptxas_prints_the_same_lines_and_counts() {
    let Some((ptxas, dir)) = common::ptxas::ptxas_in("floor", "its budget lines are") else {
        return;
    };
    let run = |name: &str, directives: &str, args: &[&str]| {
        let file = dir.join(format!("{name}.ptx"));
        std::fs::write(&file, kernel(directives)).expect("writes");
        let out = std::process::Command::new(&ptxas)
            .args(["-arch=sm_80", "-v", "-o", "/dev/null"])
            .args(args)
            .arg(&file)
            .output()
            .expect("ptxas runs");
        String::from_utf8_lossy(&out.stderr).to_string()
    };
    let cli = run("cli", "", &["--maxrregcount", "16"]);
    let maxnreg = run("maxnreg", ".maxnreg 16", &[]);
    let range = run("range", ".maxntid 1024, 1, 1\n.minnctapersm 4", &[]);
    let _ = std::fs::remove_dir_all(&dir);
    assert!(cli.contains(CLI_LINE) && cli.contains("Used 24 registers"), "{cli}");
    assert!(maxnreg.contains(MAXNREG_LINE) && maxnreg.contains("Used 24 registers"), "{maxnreg}");
    assert!(range.contains(RANGE_LINE), "{range}");
}

#[test]
fn why_names_the_raised_budget_and_the_floor_can_be_switched_off() {
    let dir = std::env::temp_dir().join(format!("radbg-floor-why-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("k.ptx");
    std::fs::write(&file, kernel("")).expect("writes");
    let why = |extra: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_radbg"))
            .arg("why")
            .arg(&file)
            .args(["--maxrregcount", "10"])
            .args(extra)
            .output()
            .expect("radbg runs");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).to_string()
    };
    let (on, off) = (why(&[]), why(&["--disable-stage", "floor"]));
    let _ = std::fs::remove_dir_all(&dir);
    assert!(on.contains("budget: 24 registers, set by --maxrregcount 10"), "{on}");
    assert!(on.contains("For profile sm_80 adjusting per thread register count of 10 to lower bound of 24"), "{on}");
    assert!(on.contains("--maxrregcount 10 (raised to ptxas's floor)"), "{on}");
    assert!(off.contains("budget: 10 registers, set by --maxrregcount 10"), "{off}");
    assert!(!off.contains("lower bound"), "{off}");
}

#[test]
fn a_sweep_below_the_floor_says_those_rows_ran_at_it() {
    use radbg::why::sweep::{Axis, floor_note};
    let imported = radbg::engine::RunOptions { imported: true, ..Default::default() };
    let note = floor_note(&Axis::MaxRegCount, &[16, 20, 24], &imported).expect("a note");
    assert!(note.starts_with("budgets below 24 ran at 24"), "{note}");
    assert_eq!(floor_note(&Axis::MaxRegCount, &[24, 32], &imported), None, "nothing below the floor");
    let mut off = imported.clone();
    off.disabled_passes.insert("floor".to_string());
    assert_eq!(floor_note(&Axis::MaxRegCount, &[16], &off), None, "the floor switched off");
    let ori = radbg::engine::RunOptions::default();
    assert_eq!(floor_note(&Axis::MaxRegCount, &[16], &ori), None, "Ori IR takes any budget");
}
