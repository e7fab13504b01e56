//! `radbg reduce` (issue 29): hand-made and session kernels reduced under each
//! predicate to a known small result — the output parses, validates and still shows
//! the predicate, within a size bound — and the result does not depend on the number
//! of threads.

use std::path::{Path, PathBuf};

use radbg::engine::RunOptions;
use radbg::reduce::{Config, Format, Outcome, Predicate, predicate, subject};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn session(name: &str) -> String {
    std::fs::read_to_string(root().join("sessions").join(name)).expect("session kernel")
}

fn pred(text: &str) -> Predicate {
    radbg::command::reduce::build(text, &root().join("sessions"), None).expect("predicate")
}

fn cfg(opts: RunOptions, jobs: usize) -> Config {
    let mut c = Config::new(opts);
    c.jobs = jobs;
    c
}

/// Reduces and checks the result: it loads, still shows the predicate, and has at most
/// `max_insts` instructions.
fn reduce_to(format: Format, text: &str, p: &str, opts: RunOptions, max_insts: usize) -> Outcome {
    let pr = pred(p);
    let o = radbg::reduce::reduce(format, text, &pr, &cfg(opts.clone(), 2), &mut |_| {}).expect("reduces");
    let loaded = subject::load(format, &o.text).unwrap_or_else(|e| panic!("{p}: the result does not load: {e}"));
    let mut run = opts;
    run.imported = format == Format::Ptx;
    assert!(predicate::eval(&pr, &o.text, &loaded.module, &run).expect("evaluates"), "{p}: lost on\n{}", o.text);
    assert!(o.insts <= max_insts, "{p}: {} instructions left (at most {max_insts}):\n{}", o.insts, o.text);
    assert_eq!(o.insts, loaded.insts);
    o
}

/// A PTX kernel whose sixteen loaded values are all live at one point (their sum): its
/// register count comes from that point alone.
const PTX: &str = "\
.version 8.0
.target sm_80
.address_size 64

.visible .entry sum16(
\t.param .u64 sum16_in,
\t.param .u64 sum16_out,
\t.param .u32 sum16_n
)
{
\t.reg .pred \t%p<2>;
\t.reg .b32 \t%r<40>;
\t.reg .b64 \t%rd<8>;

\tld.param.u64 \t%rd1, [sum16_in];
\tld.param.u64 \t%rd2, [sum16_out];
\tld.param.u32 \t%r1, [sum16_n];
\tcvta.to.global.u64 \t%rd3, %rd1;
\tmov.u32 \t%r2, %tid.x;
\tsetp.ge.u32 \t%p1, %r2, %r1;
\t@%p1 bra \t$L__BB0_2;
\tmul.wide.u32 \t%rd4, %r2, 64;
\tadd.s64 \t%rd5, %rd3, %rd4;
\tld.global.v4.u32 \t{%r3, %r4, %r5, %r6}, [%rd5];
\tld.global.v4.u32 \t{%r7, %r8, %r9, %r10}, [%rd5+16];
\tld.global.v4.u32 \t{%r11, %r12, %r13, %r14}, [%rd5+32];
\tld.global.v4.u32 \t{%r15, %r16, %r17, %r18}, [%rd5+48];
\tmul.lo.s32 \t%r19, %r3, %r18;
\tmul.lo.s32 \t%r20, %r4, %r17;
\tmul.lo.s32 \t%r21, %r5, %r16;
\tmul.lo.s32 \t%r22, %r6, %r15;
\tmul.lo.s32 \t%r23, %r7, %r14;
\tmul.lo.s32 \t%r24, %r8, %r13;
\tmul.lo.s32 \t%r25, %r9, %r12;
\tmul.lo.s32 \t%r26, %r10, %r11;
\tadd.s32 \t%r27, %r19, %r20;
\tadd.s32 \t%r28, %r21, %r22;
\tadd.s32 \t%r29, %r23, %r24;
\tadd.s32 \t%r30, %r25, %r26;
\tadd.s32 \t%r31, %r27, %r28;
\tadd.s32 \t%r32, %r29, %r30;
\tadd.s32 \t%r33, %r31, %r32;
\tcvta.to.global.u64 \t%rd6, %rd2;
\tmul.wide.u32 \t%rd7, %r2, 4;
\tadd.s64 \t%rd6, %rd6, %rd7;
\tst.global.u32 \t[%rd6], %r33;

$L__BB0_2:
\tret;
}
";

#[test]
fn fails_keeps_the_mma_and_little_else() {
    let o = reduce_to(Format::Ori, &session("alloc_fail.ori"), "fails", RunOptions::default(), 3);
    assert!(o.text.contains("WGMMA"), "{}", o.text);
}

#[test]
fn attempts_in_a_class() {
    reduce_to(Format::Ori, &session("alloc_fail.ori"), "attempts class R >= 3", RunOptions::default(), 3);
}

#[test]
fn spills_under_a_budget() {
    let o = reduce_to(Format::Ori, &session("sgemm_spill.ori"), "spills", RunOptions::default(), 40);
    assert!(o.insts * 3 <= o.start_insts, "{} of {}", o.insts, o.start_insts);
}

#[test]
fn registers_above_a_count_on_ori() {
    let o = reduce_to(Format::Ori, &session("demo.ori"), "registers > 24", RunOptions::default(), 40);
    assert!(o.insts * 2 <= o.start_insts, "{} of {}", o.insts, o.start_insts);
}

#[test]
fn registers_above_a_count_on_ptx_stays_ptx() {
    let o = reduce_to(Format::Ptx, PTX, "registers > 12", RunOptions::default(), 16);
    assert!(o.text.starts_with(".version 8.0"), "{}", o.text);
    assert!(radbg::ir::ptx::parse::parse_module(&o.text).is_ok());
    // The guard, the branch and the parameters go; what is left reads values that
    // nothing defines any more, live from the entry (which is what "registers > 12" asks).
    assert!(!o.text.contains("setp"), "{}", o.text);
    assert!(!o.text.contains(".param"), "{}", o.text);
}

#[test]
fn abi_warning() {
    // A function of one RET: nothing to remove, and the result is still the input.
    let o = reduce_to(Format::Ori, &session("abi_7005.ori"), "warning 7005", RunOptions::default(), 1);
    assert!(o.text.contains(".abi"), "{}", o.text);
}

#[test]
fn allocators_differ() {
    reduce_to(Format::Ori, &session("briggs_k15.ori"), "allocators-differ", RunOptions::default(), 40);
}

#[test]
fn an_expect_condition() {
    reduce_to(Format::Ori, &session("demo.ori"), "stats spill-stores > 0", RunOptions::default(), 40);
}

#[test]
fn a_script_that_must_pass() {
    let dir = std::env::temp_dir().join(format!("radbg-reduce-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let script = dir.join("spill.radbg");
    std::fs::write(&script, "continue\nexpect stats spill-loads >= 8\n").expect("script");
    let p = format!("script {}", script.display());
    reduce_to(Format::Ori, &session("demo.ori"), &p, RunOptions::default(), 40);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn run_options_take_part() {
    // Under a budget of 8 the SGEMM kernel fails to allocate; by default it fits.
    let opts = RunOptions { maxrregcount: Some(8), ..RunOptions::default() };
    let o = reduce_to(Format::Ori, &session("sgemm_spill.ori"), "fails", opts, 12);
    assert!(o.insts * 5 <= o.start_insts, "{} of {}", o.insts, o.start_insts);
    let e = radbg::reduce::reduce(
        Format::Ori,
        &session("sgemm_spill.ori"),
        &pred("fails"),
        &cfg(RunOptions::default(), 1),
        &mut |_| {},
    )
    .expect_err("it fits by default");
    assert!(e.contains("does not show 'fails'"), "{e}");
}

#[test]
fn the_result_does_not_depend_on_the_thread_count() {
    for (format, text, p) in
        [(Format::Ori, session("sgemm_spill.ori"), "spills"), (Format::Ptx, PTX.to_string(), "registers > 12")]
    {
        let pr = pred(p);
        let one = radbg::reduce::reduce(format, &text, &pr, &cfg(RunOptions::default(), 1), &mut |_| {}).expect("1");
        let two = radbg::reduce::reduce(format, &text, &pr, &cfg(RunOptions::default(), 2), &mut |_| {}).expect("2");
        let three = radbg::reduce::reduce(format, &text, &pr, &cfg(RunOptions::default(), 3), &mut |_| {}).expect("3");
        assert_eq!(one.text, two.text, "{p}: jobs 1 vs 2");
        assert_eq!(one.text, three.text, "{p}: jobs 1 vs 3");
    }
}

#[test]
fn a_time_budget_returns_the_best_so_far() {
    let mut c = cfg(RunOptions::default(), 1);
    c.timeout = Some(std::time::Duration::ZERO);
    let o = radbg::reduce::reduce(Format::Ori, &session("sgemm_spill.ori"), &pred("spills"), &c, &mut |_| {})
        .expect("reduces");
    assert!(o.timed_out);
    assert_eq!(o.insts, o.start_insts);
    assert!(subject::load(Format::Ori, &o.text).is_ok());
}

#[test]
fn bad_predicates_are_refused_with_a_reason() {
    let base = Path::new(".");
    let err = |t: &str| radbg::command::reduce::build(t, base, None).expect_err(t);
    assert!(err("registers >").contains("needs a number"));
    assert!(err("attempts class Q >= 2").contains("unknown register class 'Q'"));
    assert!(err("warning 12").contains("not an ABI warning code"));
    assert!(err("frobnicate").contains("unknown predicate 'frobnicate'"));
    assert!(err("script /nonexistent/x.radbg").contains("cannot read"));
    let e = radbg::command::reduce::build("differs-from-ptxas", base, Some(Path::new("/nonexistent/ptxas")))
        .expect_err("no ptxas there");
    assert!(e.contains("cannot run"), "{e}");
}

#[test]
fn a_checker_fault_keeps_the_two_clashing_pins() {
    // radbg's own allocations pass the checker on every kernel of every set (the gate
    // counts 0 faults), so the fault comes from the input: two taps live across the
    // whole loop, both pinned to R10. The allocator honours pins; the checker reports
    // both live in R10. What must remain: the two pins and one use of each.
    let text =
        session("demo.ori").replace("  .reg .P %p<4>\n", "  .reg .P %p<4>\n  .pin %tap3 = R10\n  .pin %tap9 = R10\n");
    assert!(text.contains(".pin %tap9"), "the declaration line moved in demo.ori");
    let o = reduce_to(Format::Ori, &text, "checker-fault", RunOptions::default(), 3);
    assert!(o.start_insts > 80, "{}", o.start_insts);
    for pin in [".pin %tap3 = R10", ".pin %tap9 = R10"] {
        assert!(o.text.contains(pin), "{pin} lost:\n{}", o.text);
    }
}

#[test]
fn a_kernel_that_does_not_show_the_predicate_is_refused() {
    // The session kernels pass the checker (tests/alloc_checker.rs): nothing to reduce.
    let e = radbg::reduce::reduce(
        Format::Ori,
        &session("demo.ori"),
        &pred("checker-fault"),
        &cfg(RunOptions::default(), 2),
        &mut |_| {},
    )
    .expect_err("the checker passes");
    assert_eq!(e, "the input does not show 'checker-fault': nothing to reduce");
}

/// A predicate on the imported module's printed Ori IR: some line holds `needle`.
fn printed_has(needle: &'static str) -> Predicate {
    Predicate::External {
        label: format!("has {needle}"),
        eval: std::sync::Arc::new(move |m, _, _| Ok(radbg::ir::print::print_module(m).contains(needle))),
    }
}

fn reduce_with(format: Format, text: &str, p: &Predicate) -> Outcome {
    let o = radbg::reduce::reduce(format, text, p, &cfg(RunOptions::default(), 2), &mut |_| {}).expect("reduces");
    let loaded = subject::load(format, &o.text).unwrap_or_else(|e| panic!("the result does not load: {e}"));
    let run = RunOptions { imported: format == Format::Ptx, ..RunOptions::default() };
    assert!(predicate::eval(p, &o.text, &loaded.module, &run).expect("evaluates"), "lost on\n{}", o.text);
    o
}

/// Vector loads and double-precision arithmetic: what the width passes simplify.
const WIDE: &str = "\
.version 8.0
.target sm_80
.address_size 64

.visible .entry wide(
\t.param .u64 wide_p
)
{
\t.reg .f32 \t%f<10>;
\t.reg .f64 \t%fd<16>;
\t.reg .b64 \t%rd<3>;

\tld.param.u64 \t%rd1, [wide_p];
\tcvta.to.global.u64 \t%rd2, %rd1;
\tld.global.v4.f32 \t{%f1, %f2, %f3, %f4}, [%rd2];
\tld.global.v4.f32 \t{%f5, %f6, %f7, %f8}, [%rd2+16];
\tcvt.f64.f32 \t%fd1, %f1;
\tcvt.f64.f32 \t%fd2, %f2;
\tcvt.f64.f32 \t%fd3, %f3;
\tcvt.f64.f32 \t%fd4, %f4;
\tcvt.f64.f32 \t%fd5, %f5;
\tcvt.f64.f32 \t%fd6, %f6;
\tcvt.f64.f32 \t%fd7, %f7;
\tcvt.f64.f32 \t%fd8, %f8;
\tfma.rn.f64 \t%fd9, %fd2, %fd1, 0d3FF0000000000000;
\tfma.rn.f64 \t%fd10, %fd3, %fd9, 0d3FF0000000000000;
\tfma.rn.f64 \t%fd11, %fd4, %fd10, 0d3FF0000000000000;
\tfma.rn.f64 \t%fd12, %fd5, %fd11, 0d3FF0000000000000;
\tfma.rn.f64 \t%fd13, %fd6, %fd12, 0d3FF0000000000000;
\tfma.rn.f64 \t%fd14, %fd7, %fd13, 0d3FF0000000000000;
\tfma.rn.f64 \t%fd15, %fd8, %fd14, 0d3FF0000000000000;
\tcvt.rn.f32.f64 \t%f9, %fd15;
\tst.global.f32 \t[%rd2], %f9;
\tret;
}
";

#[test]
fn a_vector_load_becomes_scalar() {
    // Any global load will do: the two .v4 loads end as one scalar load.
    let o = reduce_with(Format::Ptx, WIDE, &printed_has("LDG"));
    assert_eq!(o.insts, 1, "{}", o.text);
    assert!(o.text.contains("\tld.global.f32 \t%f"), "{}", o.text);
    assert!(!o.text.contains(".v4") && !o.text.contains(".v2"), "{}", o.text);
}

#[test]
fn double_arithmetic_becomes_single() {
    // Any fused multiply-add will do: the .f64 family and its FMA end 32-bit.
    let o = reduce_with(Format::Ptx, WIDE, &printed_has("FMA"));
    assert_eq!(o.insts, 1, "{}", o.text);
    assert!(o.text.contains("\tfma.rn.f32 \t%fd"), "{}", o.text);
    assert!(o.text.contains(".reg .f32 \t%fd<"), "{}", o.text);
    assert!(!o.text.contains("f64") && !o.text.contains("0d"), "{}", o.text);
}

/// A wide register loaded whole and read by components (Ori IR).
const WIDE_ORI: &str = "\
.target sm_90
.entry widths {
  .reg .R %r<2>
  .reg .R.x2 %rd<1>
  .reg .R.x4 %q
BB0:
  %rd0 = LDC.64 c[0x0][0x160]
  %q = LDG.E.128 [%rd0]
  %r0 = IADD3 %q.0, %q.1, %q.2
  %r1 = IADD3 %r0, %q.3, RZ
  STG.E [%rd0], %r1
  EXIT
}
";

#[test]
fn a_quad_register_becomes_single() {
    let o = reduce_with(Format::Ori, WIDE_ORI, &printed_has("LDG"));
    // The load and the EXIT every Ori function ends with; the address pair narrows too.
    assert_eq!(o.insts, 2, "{}", o.text);
    assert!(o.text.contains(".reg .R %q\n"), "{}", o.text);
    assert!(o.text.contains("LDG.E ["), "{}", o.text);
    assert!(!o.text.contains(".x4") && !o.text.contains(".x2") && !o.text.contains(".128"), "{}", o.text);
}

/// A loop whose body is eight unrolled copies of (load, multiply-add, xor).
const LOOP: &str = ".version 8.0
.target sm_80
.address_size 64

.visible .entry loop(
\t.param .u64 loop_p
)
{
\t.reg .pred \t%p<2>;
\t.reg .b32 \t%r<60>;
\t.reg .b64 \t%rd<3>;

\tld.param.u64 \t%rd1, [loop_p];
\tcvta.to.global.u64 \t%rd2, %rd1;
\tmov.u32 \t%r1, %tid.x;
\tmov.u32 \t%r2, 0;
$L__BB0_1:
\tld.global.u32 \t%r3, [%rd2+0];
\tmad.lo.s32 \t%r4, %r3, %r1, %r2;
\txor.b32 \t%r5, %r4, %r3;
\tld.global.u32 \t%r6, [%rd2+4];
\tmad.lo.s32 \t%r7, %r6, %r5, %r2;
\txor.b32 \t%r8, %r7, %r6;
\tld.global.u32 \t%r9, [%rd2+8];
\tmad.lo.s32 \t%r10, %r9, %r8, %r2;
\txor.b32 \t%r11, %r10, %r9;
\tld.global.u32 \t%r12, [%rd2+12];
\tmad.lo.s32 \t%r13, %r12, %r11, %r2;
\txor.b32 \t%r14, %r13, %r12;
\tld.global.u32 \t%r15, [%rd2+16];
\tmad.lo.s32 \t%r16, %r15, %r14, %r2;
\txor.b32 \t%r17, %r16, %r15;
\tld.global.u32 \t%r18, [%rd2+20];
\tmad.lo.s32 \t%r19, %r18, %r17, %r2;
\txor.b32 \t%r20, %r19, %r18;
\tld.global.u32 \t%r21, [%rd2+24];
\tmad.lo.s32 \t%r22, %r21, %r20, %r2;
\txor.b32 \t%r23, %r22, %r21;
\tld.global.u32 \t%r24, [%rd2+28];
\tmad.lo.s32 \t%r25, %r24, %r23, %r2;
\txor.b32 \t%r26, %r25, %r24;
\tadd.s32 \t%r2, %r2, %r26;
\tsetp.lt.u32 \t%p1, %r2, 1000;
\t@%p1 bra \t$L__BB0_1;
\tst.global.u32 \t[%rd2], %r2;
\tret;
}
";

#[test]
fn a_loop_is_made_straight_and_its_copies_go_whole() {
    let o = reduce_to(Format::Ptx, LOOP, "registers > 12", RunOptions::default(), 6);
    assert!(!o.text.contains("bra") && !o.text.contains("setp") && !o.text.contains("$L__"), "{}", o.text);
}

/// A predicate on the imported module's printed Ori IR: it holds every one of `needles`.
fn printed_has_all(needles: &'static [&'static str]) -> Predicate {
    Predicate::External {
        label: format!("has {}", needles.join(" and ")),
        eval: std::sync::Arc::new(move |m, _, _| {
            let p = radbg::ir::print::print_module(m);
            Ok(needles.iter().all(|n| p.contains(n)))
        }),
    }
}

/// The real ptxas, when installed; `None` (with a note) otherwise — a failure under
/// `CI=true`, as for the other tests that need it (tests/why.rs).
fn real_ptxas() -> Option<String> {
    match radbg::reduce::ptxas::find(None) {
        Ok(p) => Some(p),
        Err(e) => {
            assert!(std::env::var("CI").as_deref() != Ok("true"), "no ptxas under CI: .ci/run builds the corpus");
            eprintln!("skipped: {e}");
            None
        }
    }
}

#[test]
fn narrowed_ptx_is_checked_by_the_real_ptxas() {
    let Some(exe) = real_ptxas() else { return };
    let accepted = |t: &str| radbg::reduce::ptxas::run(&exe, t, "sm_80", None).is_ok();
    // A fused multiply-add and a rounded conversion: narrowing the .f64 family turns
    // `cvt.rn.f32.f64` into `cvt.rn.f32.f32`, which ptxas refuses ("Illegal rounding
    // modifier") and, since ir/ptx/validate.rs, radbg's loader too: even without ptxas
    // the narrowing does not go through.
    let p = printed_has_all(&["FMA", "F2F.RN"]);
    let unchecked = reduce_with(Format::Ptx, WIDE, &p);
    assert!(accepted(&unchecked.text), "ptxas rejects the result reduced without it:\n{}", unchecked.text);
    assert!(unchecked.text.contains("cvt.rn.f32.f64"), "{}", unchecked.text);
    let mut c = cfg(RunOptions::default(), 2);
    c.ptxas = Some(exe.clone());
    let checked = radbg::reduce::reduce(Format::Ptx, WIDE, &p, &c, &mut |_| {}).expect("reduces");
    assert!(accepted(&checked.text), "ptxas rejects the result:\n{}", checked.text);
    assert_eq!(checked.ptxas_note, None);
    assert!(checked.text.contains("cvt.rn.f32.f64"), "{}", checked.text);
    // The vector loads still narrow (ptxas accepts those), and the result is still small.
    assert!(checked.insts <= unchecked.insts + 2, "{} vs {}", checked.insts, unchecked.insts);
}

/// A stand-in for ptxas that rejects any PTX without `keep_me` (a shell script, so the
/// fallback below is tested on every machine).
fn picky_ptxas(dir: &Path) -> String {
    use std::os::unix::fs::PermissionsExt;
    let exe = dir.join("picky-ptxas");
    // Called as `ptxas -v -arch=SM INPUT -o OUTPUT [--maxrregcount=N]`.
    std::fs::write(&exe, "#!/bin/sh\ngrep -q keep_me \"$3\" || { echo 'error: no keep_me'; exit 1; }\n")
        .expect("script");
    std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    exe.display().to_string()
}

#[test]
fn a_result_ptxas_rejects_is_not_the_result() {
    let dir = std::env::temp_dir().join(format!("radbg-reduce-picky-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    // The sum kernel with a parameter only this ptxas insists on: the parameter pass
    // deletes it (radbg's loader does not mind), so the last round's result is rejected
    // and the result is the latest round's start that still has it.
    let text = PTX.replace("\t.param .u32 sum16_n\n", "\t.param .u32 sum16_n,\n\t.param .u32 keep_me\n");
    let mut c = cfg(RunOptions::default(), 2);
    c.ptxas = Some(picky_ptxas(&dir));
    let pr = pred("registers > 12");
    let o = radbg::reduce::reduce(Format::Ptx, &text, &pr, &c, &mut |_| {}).expect("reduces");
    assert!(o.text.contains("keep_me"), "{}", o.text);
    assert!(
        o.ptxas_note.as_deref().is_some_and(|n| n.contains("ptxas rejects the reduced kernel")),
        "{:?}",
        o.ptxas_note
    );
    let loaded = subject::load(Format::Ptx, &o.text).expect("loads");
    assert_eq!(o.insts, loaded.insts);
    let run = RunOptions { imported: true, ..RunOptions::default() };
    assert!(predicate::eval(&pr, &o.text, &loaded.module, &run).expect("evaluates"), "lost on\n{}", o.text);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_search_starts_from_the_smallest_call_group_that_shows_the_predicate() {
    // The sum kernel first, then a smaller kernel that calls a device function.
    let text = format!(
        "{PTX}
.func (.param .b32 twice_ret) twice(.param .b32 twice_a)
{{
\t.reg .b32 \t%r<3>;
\tld.param.u32 \t%r1, [twice_a];
\tadd.s32 \t%r2, %r1, %r1;
\tst.param.b32 \t[twice_ret], %r2;
\tret;
}}

.visible .entry small(
\t.param .u64 small_p
)
{{
\t.reg .b32 \t%r<3>;
\t.reg .b64 \t%rd<3>;
\tld.param.u64 \t%rd1, [small_p];
\tcvta.to.global.u64 \t%rd2, %rd1;
\tmov.u32 \t%r1, %tid.x;
\t{{
\t.param .b32 pa;
\t.param .b32 pr;
\tst.param.b32 \t[pa], %r1;
\tcall.uni (pr), twice, (pa);
\tld.param.b32 \t%r2, [pr];
\t}}
\tst.global.u32 \t[%rd2], %r2;
\tret;
}}
"
    );
    let loaded = subject::load(Format::Ptx, &text).expect("loads");
    let opts = RunOptions { imported: true, ..RunOptions::default() };
    let groups = radbg::reduce::focus::groups_smallest_first(&loaded.module);
    let names = |g: &[usize]| g.iter().map(|&i| loaded.module.functions[i].name.to_string()).collect::<Vec<_>>();
    assert_eq!(groups.iter().map(|g| names(g)).collect::<Vec<_>>(), [vec!["twice", "small"], vec!["sum16"]]);
    // Both groups have a register: the smaller one, with its callee, is where the search starts.
    let c = predicate::calibrate(&pred("registers > 0"), &text, &loaded.module, &opts);
    assert_eq!(c.holds, Some(true));
    assert_eq!(c.group, ["twice", "small"]);
    // Only the sum kernel allocates predicates.
    let c = predicate::calibrate(&pred("attempts class P >= 1"), &text, &loaded.module, &opts);
    assert_eq!((c.holds, c.focus.as_deref()), (Some(true), Some("sum16")));
    let o =
        radbg::reduce::reduce(Format::Ptx, &text, &pred("registers > 0"), &cfg(RunOptions::default(), 2), &mut |_| {})
            .expect("reduces");
    assert!(!o.text.contains("sum16"), "{}", o.text);
    assert!(o.insts <= 3, "{}", o.text);
}

/// A kernel of more than `reduce::slices::MIN_INSTS` instructions: a long chain of adds
/// with one population count in its middle.
fn long_chain(n: usize) -> String {
    let mut s = String::from(
        ".version 8.0\n.target sm_80\n.address_size 64\n\n.visible .entry chain(\n\t.param .u64 chain_p\n)\n{\n",
    );
    s.push_str(&format!("\t.reg .b32 \t%r<{}>;\n\t.reg .b64 \t%rd<3>;\n\n", n + 2));
    s.push_str("\tld.param.u64 \t%rd1, [chain_p];\n\tcvta.to.global.u64 \t%rd2, %rd1;\n");
    for i in 1..=n {
        if i == n * 2 / 3 {
            s.push_str(&format!("\tpopc.b32 \t%r{i}, %r{};\n", i - 1));
        } else {
            s.push_str(&format!("\tadd.s32 \t%r{i}, %r{}, 1;\n", i - 1));
        }
    }
    s.push_str(&format!("\tst.global.u32 \t[%rd2], %r{n};\n\tret;\n}}\n"));
    s
}

#[test]
fn a_large_kernel_is_cut_to_one_slice_first() {
    let text = long_chain(3_000);
    let p = printed_has("POPC");
    let mut slices = Vec::new();
    let mut c = cfg(RunOptions::default(), 2);
    let two = radbg::reduce::reduce(Format::Ptx, &text, &p, &c, &mut |pr| {
        if pr.pass == "slices" {
            slices.push(pr.insts);
        }
    })
    .expect("reduces");
    // The slice holding the popc (a sixteenth: 188 instructions) before any pass.
    assert!(slices.iter().any(|&n| n <= 3_004 / 16 + 1), "slices seen: {slices:?}");
    assert_eq!(two.insts, 1, "{}", two.text);
    assert!(two.text.contains("\tpopc.b32 \t%r"), "{}", two.text);
    c.jobs = 1;
    let one = radbg::reduce::reduce(Format::Ptx, &text, &p, &c, &mut |_| {}).expect("reduces");
    assert_eq!(one.text, two.text, "jobs 1 vs 2");
}

/// A stand-in for ptxas that counts its runs (a line each in `dir/runs`) and reports
/// `Used 8 registers` for kernel `k`; its `--version` names its own text, so the
/// ptxas cache never mixes its answers with another script's.
fn counting_ptxas(dir: &Path) -> String {
    use std::os::unix::fs::PermissionsExt;
    let exe = dir.join("counting-ptxas");
    let runs = dir.join("runs");
    let script = format!(
        "#!/bin/sh\ncase \"$1\" in --version) echo \"counting ptxas $(cksum < \"$0\")\"; exit 0;; esac\n\
         echo run >> '{}'\n\
         printf \"ptxas info    : Compiling entry function 'k' for 'sm_80'\\nptxas info    : Used 8 registers\\n\"\n",
        runs.display()
    );
    std::fs::write(&exe, script).expect("script");
    std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    exe.display().to_string()
}

/// `k` stores an unwritten register and computes sixteen sums nothing reads, of
/// registers nothing writes: radbg keeps them without `--dce` (38 registers at sm_80)
/// and not with it (8); ptxas deletes them.
fn dead_sums() -> String {
    let mut s = String::from(
        ".version 8.0\n.target sm_80\n.address_size 64\n\n.visible .entry k(.param .u64 k_p)\n{\n\
         \t.reg .b32 %r<64>;\n\t.reg .b64 %rd<2>;\n\tld.param.u64 %rd1, [k_p];\n\tst.global.u32 [%rd1], %r1;\n",
    );
    for i in 0..16 {
        s.push_str(&format!("\tadd.s32 %r{}, %r{}, %r{};\n", 40 + i, 2 + 2 * i, 3 + 2 * i));
    }
    s.push_str("\tret;\n}\n");
    s
}

#[test]
fn a_departure_only_dead_code_makes_does_not_count_when_the_input_departs_without_it() {
    let dir = std::env::temp_dir().join(format!("radbg-reduce-live-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let ptxas = counting_ptxas(&dir);
    let text = dead_sums();
    let module = subject::load(Format::Ptx, &text).expect("loads").module;
    let opts = RunOptions { imported: true, ..RunOptions::default() };
    let p = |live| Predicate::DiffersFromPtxas { min_pct: Some(10.0), ptxas: ptxas.clone(), keep: Some(10), live };
    // Radbg's 38 against ptxas's 8: it departs; with dead code removed, 8 against 8.
    assert!(predicate::eval(&p(false), &text, &module, &opts).expect("evaluates"));
    assert!(!predicate::eval(&p(true), &text, &module, &opts).expect("evaluates"));
    assert!(p(true).text().ends_with("(radbg at least 10 over, with dead code removed too)"), "{}", p(true).text());
    // The input's own departure is dead code alone: calibrating does not ask for `live`.
    let bare = Predicate::DiffersFromPtxas { min_pct: Some(10.0), ptxas: ptxas.clone(), keep: None, live: false };
    let cal = predicate::calibrate(&bare, &text, &module, &opts);
    let Predicate::DiffersFromPtxas { live, keep, .. } = cal.pred else { panic!("not differs-from-ptxas") };
    assert_eq!((live, keep, cal.holds), (false, Some(15), Some(true)));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn ptxas_answers_a_text_it_has_seen_from_the_cache() {
    if radbg::ptxas_cache::dir().is_none() {
        eprintln!("skipped: RADBG_PTXAS_CACHE is off");
        return;
    }
    let dir = std::env::temp_dir().join(format!("radbg-reduce-cache-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let ptxas = counting_ptxas(&dir);
    // A text no earlier run of this test has seen (the cache outlives the process).
    let text = format!("{}// {:?} {}\n", dead_sums(), std::time::SystemTime::now(), std::process::id());
    let first = radbg::reduce::ptxas::run(&ptxas, &text, "sm_80", None).expect("runs");
    let second = radbg::reduce::ptxas::run(&ptxas, &text, "sm_80", None).expect("runs");
    assert_eq!(first, second);
    assert_eq!(first[0].registers, Some(8));
    let runs = |d: &Path| std::fs::read_to_string(d.join("runs")).unwrap_or_default().lines().count();
    assert_eq!(runs(&dir), 1, "the second answer came from the cache");
    // Another budget is another question.
    radbg::reduce::ptxas::run(&ptxas, &text, "sm_80", Some(32)).expect("runs");
    assert_eq!(runs(&dir), 2);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn differs_from_ptxas_reduces_to_what_keeps_radbg_over() {
    // The stand-in ptxas says 8 registers for `k` whatever the text; radbg counts the
    // sixteen sums nothing reads (38 at sm_80). `> 50 %` holds while radbg says more
    // than 12 — and calibration asks radbg to stay at least half the input's 30 over
    // (23 or more), so the result keeps about ten of the sums, two unwritten values
    // each, and nothing else.
    let dir = std::env::temp_dir().join(format!("radbg-reduce-differs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let ptxas = counting_ptxas(&dir);
    let p = radbg::command::reduce::build("differs-from-ptxas > 50 %", &root(), Some(Path::new(&ptxas)))
        .expect("predicate");
    let text = dead_sums();
    let o =
        radbg::reduce::reduce(Format::Ptx, &text, &p, &cfg(RunOptions::default(), 2), &mut |_| {}).expect("reduces");
    let loaded = subject::load(Format::Ptx, &o.text).expect("the result loads");
    let opts = RunOptions { imported: true, ..RunOptions::default() };
    assert!(predicate::eval(&p, &o.text, &loaded.module, &opts).expect("evaluates"), "lost on\n{}", o.text);
    assert!(o.insts <= 10 && o.start_insts == 19, "{} of {}:\n{}", o.insts, o.start_insts, o.text);
    assert!(!o.text.contains("ld.param") && !o.text.contains("st.global"), "{}", o.text);
    let _ = std::fs::remove_dir_all(&dir);
}
