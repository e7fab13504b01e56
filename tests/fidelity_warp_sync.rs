//! Warp-synchronous operations under a thread-dependent branch (issue 23 rule 19,
//! ARCHITECTURE.md; `analysis::divergence`, `prepass::slowpath::WARP_ROUTINES`): on
//! sm_75–sm_89 ptxas 13.0.88 compiles a `shfl.sync` or `vote.sync` that may run with part
//! of its warp as `BRA.DIV` and a call of a ptxas-internal routine whose registers count
//! in the kernel's; a converged one — at the top level, after an early `return`, under a
//! branch on a parameter — and every one on sm_90 stay inline. Each case is the smallest
//! kernel: one load, the operation (under `if (threadIdx.x < 64)` or not), one store, with
//! the count ptxas reports. When ptxas and nvdisasm are installed the test re-measures the
//! counts and checks which routine the SASS calls.

mod common;

use radbg::fidelity::measure::{Settings, run_file};

/// Where the operation sits.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Place {
    /// Under `if (threadIdx.x < 64)`: part of the warp.
    Divergent,
    /// Straight-line code: the whole warp.
    TopLevel,
    /// Under `if (n > 3)`, `n` a parameter: the whole warp or none of it.
    Uniform,
    /// After `if (threadIdx.x >= 64) return;`: the threads that stay are the warp.
    AfterExit,
}

/// A kernel of `sm` that loads `%f4`, runs `op` (reading `%r5`, its bits, and the
/// predicate `%p2 = %f4 > 0`, writing `%r9`) at `place`, and stores `%f4`. Lane, clamp
/// and member mask are registers (`%r7 = 1`, `%r6 = 31`, `%r8 = -1`), as NVRTC writes
/// `__shfl_down_sync` and `__ballot_sync`.
fn kernel(sm: &str, op: &str, place: Place) -> String {
    let (test, skip) = match place {
        Place::Divergent => ("setp.gt.u32 %p1, %r3, 63;", "@%p1 bra $L__BB0_2;"),
        Place::TopLevel => ("", ""),
        Place::Uniform => ("setp.lt.s32 %p1, %r10, 4;", "@%p1 bra $L__BB0_2;"),
        Place::AfterExit => ("setp.gt.u32 %p1, %r3, 63;", "@%p1 bra $L__BB0_3;"),
    };
    let tail = if place == Place::AfterExit { "$L__BB0_3:\nret;\n" } else { "" };
    format!(
        ".version 9.0\n.target {sm}\n.address_size 64\n\
         .visible .entry k(.param .u64 k_param_0, .param .u64 k_param_1, .param .u32 k_param_2)\n{{\n\
         .reg .pred %p<4>;\n.reg .f32 %f<5>;\n.reg .b32 %r<11>;\n.reg .b64 %rd<10>;\n\
         ld.param.u64 %rd3, [k_param_0];\nld.param.u64 %rd2, [k_param_1];\nld.param.u32 %r10, [k_param_2];\n\
         mov.u32 %r1, %ntid.x;\nmov.u32 %r2, %ctaid.x;\nmov.u32 %r3, %tid.x;\n\
         mad.lo.s32 %r4, %r2, %r1, %r3;\ncvt.s64.s32 %rd1, %r4;\ncvta.to.global.u64 %rd4, %rd3;\n\
         mul.wide.s32 %rd5, %r4, 4;\nadd.s64 %rd6, %rd4, %rd5;\nld.global.f32 %f4, [%rd6];\n\
         {test}\n{skip}\n\
         mov.b32 %r5, %f4;\nsetp.gt.f32 %p2, %f4, 0f00000000;\n\
         mov.u32 %r6, 31;\nmov.u32 %r7, 1;\nmov.u32 %r8, -1;\n{op}\nmov.b32 %f4, %r9;\n\
         $L__BB0_2:\ncvta.to.global.u64 %rd7, %rd2;\nshl.b64 %rd8, %rd1, 2;\nadd.s64 %rd9, %rd7, %rd8;\n\
         st.global.f32 [%rd9], %f4;\nret;\n{tail}}}\n"
    )
}

/// (operation, the routine ptxas calls from a partial warp on sm_80, ptxas's count there).
const OPS: &[(&str, &str, u32)] = &[
    ("shfl.sync.down.b32 %r9|%p3, %r5, %r7, %r6, %r8;", "shflsync_down_p", 10),
    ("shfl.sync.up.b32 %r9|%p3, %r5, %r7, 0, %r8;", "shflsync_up_p", 10),
    ("shfl.sync.bfly.b32 %r9|%p3, %r5, %r7, %r6, %r8;", "shflsync_bfly_p", 10),
    ("shfl.sync.idx.b32 %r9|%p3, %r5, %r7, %r6, %r8;", "shflsync_idx_p", 10),
    ("shfl.sync.down.b32 %r9, %r5, %r7, %r6, %r8;", "shflsync_down", 10),
    ("shfl.sync.bfly.b32 %r9, %r5, %r7, %r6, %r8;", "shflsync_bfly", 10),
    ("vote.sync.ballot.b32 %r9, %p2, %r8;", "votesync_ballot", 10),
    ("vote.sync.any.pred %p3, %p2, %r8;\nselp.b32 %r9, 1, 0, %p3;", "votesync_any", 10),
    ("vote.sync.all.pred %p3, %p2, %r8;\nselp.b32 %r9, 1, 0, %p3;", "votesync_all", 10),
];

fn radbg(text: &str, sm: &str) -> u32 {
    let run = run_file("k.ptx", text, sm, None, &Settings::default()).expect("runs");
    let f = &run.funcs[0];
    assert!(f.faults.is_empty(), "{:?}", f.faults);
    f.registers
}

/// The summary of the `slowpath` stage on the imported kernel (it names each routine).
fn calls(text: &str) -> String {
    let (m, _) = radbg::ir::ptx::import_str("k.ptx", text).expect("imports");
    let sm = if text.contains(".target sm_90") {
        "sm_90"
    } else if text.contains(".target sm_86") {
        "sm_86"
    } else {
        "sm_80"
    };
    let sm = radbg::ir::Sm::parse(sm).expect("sm");
    let ctx = radbg::prepass::PassCtx { module: &m, sm: &sm, maxrregcount: None, cap: None };
    radbg::prepass::slowpath::PASS.run_owned(&m.functions[0], &ctx).1
}

#[test]
fn a_partial_warp_s_operation_calls_its_routine_and_counts_like_ptxas() {
    let mut wrong = Vec::new();
    for &(op, routine, ptxas) in OPS {
        let text = kernel("sm_80", op, Place::Divergent);
        assert!(calls(&text).contains(&format!("__cuda_sm70_{routine})")), "{op}: {}", calls(&text));
        let got = radbg(&text, "sm_80");
        if got != ptxas {
            wrong.push(format!("{op}: radbg {got}, ptxas {ptxas}"));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

#[test]
fn a_whole_warp_s_operation_and_every_one_on_sm_90_stays_inline() {
    for &(op, _, _) in OPS {
        for place in [Place::TopLevel, Place::Uniform, Place::AfterExit] {
            let text = kernel("sm_80", op, place);
            assert!(!calls(&text).contains("__cuda_sm70"), "{op} {place:?}: {}", calls(&text));
        }
        let text = kernel("sm_90", op, Place::Divergent);
        assert!(!calls(&text).contains("__cuda_sm70"), "{op} on sm_90: {}", calls(&text));
    }
    let text = kernel("sm_80", OPS[0].0, Place::Divergent);
    let (mut with, mut without) = (text.clone(), text);
    with = with.replace("sm_80", "sm_86");
    without = without.replace("sm_80", "sm_90");
    assert!(calls(&with).contains("__cuda_sm70_shflsync_down_p"));
    assert!(!calls(&without).contains("__cuda_sm70"));
}

#[test]
fn ptxas_calls_the_routines_where_radbg_does() {
    let Some(common::ptxas::SassTools { ptxas, nvdisasm, dir }) =
        common::ptxas::sass_tools("warp-sync", "the warp-synchronous routines")
    else {
        return;
    };
    for (i, &(op, routine, want)) in OPS.iter().enumerate() {
        let text = kernel("sm_80", op, Place::Divergent);
        let file = dir.join(format!("d{i}.ptx"));
        std::fs::write(&file, &text).expect("writes");
        let (used, log) = common::ptxas::used_registers(&ptxas, &file);
        assert_eq!(used, Some(want), "{op}: {log}");
        let sass = common::ptxas::sass_for(&ptxas, &nvdisasm, &dir, &format!("d{i}"), &text, "sm_80");
        assert!(sass.contains(&format!("__cuda_sm70_{routine})")), "{op}:\n{sass}");
        for place in [Place::TopLevel, Place::Uniform, Place::AfterExit] {
            let sass = common::ptxas::sass_for(
                &ptxas,
                &nvdisasm,
                &dir,
                &format!("c{i}"),
                &kernel("sm_80", op, place),
                "sm_80",
            );
            assert!(!sass.contains("CALL"), "{op} {place:?}:\n{sass}");
        }
        let sass = common::ptxas::sass_for(
            &ptxas,
            &nvdisasm,
            &dir,
            &format!("h{i}"),
            &kernel("sm_90", op, Place::Divergent),
            "sm_90",
        );
        assert!(!sass.contains("CALL") && sass.contains("WARPSYNC"), "{op} on sm_90:\n{sass}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn why_registers_names_the_routine_a_clobbered_register_belongs_to() {
    let dir = std::env::temp_dir().join(format!("radbg-warp-why-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    // Three shuffles under the branch: the clobbers are at the peak.
    let op = "shfl.sync.down.b32 %r9|%p3, %r5, %r7, %r6, %r8;\nmov.b32 %r5, %r9;\n\
              shfl.sync.down.b32 %r9|%p3, %r5, %r7, %r6, %r8;\nmov.b32 %r5, %r9;\n\
              shfl.sync.down.b32 %r9|%p3, %r5, %r7, %r6, %r8;";
    let file = dir.join("k.ptx");
    std::fs::write(&file, kernel("sm_80", op, Place::Divergent)).expect("writes");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_radbg")).arg("why").arg(&file).output().expect("runs");
    let _ = std::fs::remove_dir_all(&dir);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("ptxas's internal routine __cuda_sm70_shflsync_down_p clobbers, called for the sync.down.b32"),
        "{text}"
    );
    assert!(text.contains("3 call(s) of ptxas-internal routines (3× __cuda_sm70_shflsync_down_p)"), "{text}");
}
