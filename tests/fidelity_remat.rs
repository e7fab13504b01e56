//! Spilled values that read no register are recomputed, not stored (issue 23,
//! ARCHITECTURE.md, rule 16). A hand-made kernel reads `%ctaid.x`, `%ctaid.y` and
//! `%tid.x`, uses them before a loop that keeps 24 accumulators live and again after it:
//! under `--maxrregcount 32` ptxas 13.0.88 reads `SR_CTAID.X` and `SR_CTAID.Y` a second
//! time after the loop (`S2R R22, SR_CTAID.X`) rather than keeping them (the same as
//! ggml's `ggml_matvec_f32` in the development SASS). radbg's guidance takes such values
//! first (they cost no memory) and its spill code repeats their def before each use.
//! When ptxas and nvdisasm are installed, the last test re-measures the SASS.

mod common;

use radbg::fidelity::measure::{Settings, run_file};

fn kernel() -> String {
    let n = 24;
    let mut s = String::from(
        ".version 9.0\n.target sm_80\n.address_size 64\n\
         .visible .entry k(.param .u64 k_a, .param .u64 k_b, .param .u32 k_n)\n{\n\
         .reg .pred %p<4>; .reg .f32 %f<200>; .reg .b32 %r<40>; .reg .b64 %rd<80>;\n\
         ld.param.u64 %rd1, [k_a]; cvta.to.global.u64 %rd2, %rd1;\n\
         ld.param.u64 %rd3, [k_b]; cvta.to.global.u64 %rd4, %rd3;\n\
         ld.param.u32 %r9, [k_n];\n\
         mov.u32 %r1, %ctaid.x; mov.u32 %r2, %ctaid.y; mov.u32 %r3, %tid.x;\n\
         mad.lo.s32 %r4, %r1, 4096, %r2;\n\
         mul.wide.u32 %rd5, %r4, 4; add.s64 %rd6, %rd2, %rd5;\n",
    );
    for i in 1..=n {
        s.push_str(&format!("mov.f32 %f{i}, 0f00000000;\n"));
    }
    s.push_str("mov.u32 %r10, 0;\nLOOP:\n");
    for i in 0..n {
        s.push_str(&format!("ld.volatile.global.f32 %f{}, [%rd6+{}];\n", i + 101, i * 4));
    }
    for i in 1..=n {
        s.push_str(&format!("add.f32 %f{i}, %f{i}, %f{};\n", i + 100));
    }
    s.push_str("add.s32 %r10, %r10, 1; setp.lt.u32 %p1, %r10, %r9; @%p1 bra LOOP;\nadd.f32 %f60, %f1, %f2;\n");
    let mut k = 60;
    for i in 3..=n {
        s.push_str(&format!("add.f32 %f{}, %f{k}, %f{i};\n", k + 1));
        k += 1;
    }
    s.push_str(&format!(
        "add.s32 %r5, %r1, %r3; add.s32 %r6, %r5, %r2;\n\
         mul.wide.u32 %rd7, %r6, 4; add.s64 %rd8, %rd4, %rd7; st.global.f32 [%rd8], %f{k};\nret;\n}}\n"
    ));
    s
}

fn spill_bytes(remat: bool) -> (u32, u32) {
    let knobs =
        vec![radbg::engine::ResolvedKnob::parse(&format!("radbg.SpillRemat={}", u8::from(remat))).expect("a knob")];
    let settings = Settings { knobs, ..Settings::default() };
    let run = run_file("k.ptx", &kernel(), "sm_80", Some(32), &settings).expect("runs");
    let f = &run.funcs[0];
    assert!(f.faults.is_empty(), "{:?}", f.faults);
    (f.spill_stores, f.registers)
}

#[test]
fn the_block_indices_are_recomputed_instead_of_stored() {
    let (on, regs_on) = spill_bytes(true);
    let (off, _) = spill_bytes(false);
    assert!(on < off, "with rematerialization {on} B stored, without {off} B");
    assert!(regs_on <= 32);
}

#[test]
fn why_spill_and_the_event_say_the_value_is_recomputed() {
    let dir = std::env::temp_dir().join(format!("radbg-remat-why-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let ptx = dir.join("k.ptx");
    std::fs::write(&ptx, kernel()).expect("writes");
    let script = dir.join("s.radbg");
    std::fs::write(&script, "set maxrregcount 32\ncontinue\nwhy spill %r1\nexpect why spill %r1 rematerialized == 1\n")
        .expect("writes");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_radbg"))
        .arg(&ptx)
        .arg("-x")
        .arg(&script)
        .output()
        .expect("radbg runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("why spill %r1: rematerialized"), "{text}");
    assert!(text.contains("its def (S2R SR_CTAID.X) reads no register"), "{text}");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_radbg"))
        .args(["run", "--events", "--maxrregcount", "32"])
        .arg(&ptx)
        .output()
        .expect("radbg runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("rematerialized (%r2 %r1)"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn ptxas_reads_the_block_index_again_after_the_loop() {
    let (Some(ptxas), Some(nvdisasm)) = (common::ptxas::ptxas(), common::ptxas::nvdisasm()) else {
        eprintln!("ptxas 13.0.88 or nvdisasm not found: the rematerialized block index is not re-measured");
        return;
    };
    let dir = std::env::temp_dir().join(format!("radbg-remat-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let (ptx, cubin) = (dir.join("k.ptx"), dir.join("k.cubin"));
    std::fs::write(&ptx, kernel()).expect("writes");
    let out = std::process::Command::new(&ptxas)
        .args(["-arch=sm_80", "--maxrregcount=32", "-o"])
        .arg(&cubin)
        .arg(&ptx)
        .output()
        .expect("ptxas runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let sass = std::process::Command::new(&nvdisasm).arg("-c").arg(&cubin).output().expect("nvdisasm runs");
    let sass = String::from_utf8_lossy(&sass.stdout).to_string();
    let _ = std::fs::remove_dir_all(&dir);
    let reads = sass.lines().filter(|l| l.contains("S2R") && l.contains("SR_CTAID.X")).count();
    assert!(reads >= 2, "{sass}");
}
