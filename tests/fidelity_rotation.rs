//! Store-data rotation (issue 23, ARCHITECTURE.md "Fidelity", rule 6): ptxas 13.0.88
//! gives the data of a store a register the data of the previous three stores of the
//! block do not hold (five when the data comes straight from a load), nor the addresses
//! of the last three loads, even where a lower one is free. Each case is a hand-made
//! straight-line kernel with the registers ptxas uses and the data registers of its
//! first `STG`s (nvdisasm); radbg must count the same, and without the rule
//! (`radbg.StoreRotation=0`) it packs. When ptxas
//! and nvdisasm are installed the test runs them and checks ptxas still does what is
//! recorded.

mod common;

use std::collections::BTreeSet;
use std::process::Command;

use radbg::fidelity::measure::{Settings, run_file};

/// Twelve `ld.global; [add.f32;] st.global` steps, 256 bytes apart.
fn kernel(add: bool) -> String {
    let mut s = String::from(
        ".version 9.0\n.target sm_80\n.address_size 64\n\
         .visible .entry k(.param .u64 a, .param .u64 b)\n{\n\
         .reg .b32 %r<4>; .reg .f32 %f<40>; .reg .b64 %rd<12>;\n\
         ld.param.u64 %rd1, [a]; ld.param.u64 %rd2, [b];\nmov.u32 %r1, %tid.x;\n\
         cvta.to.global.u64 %rd3, %rd1;\nmul.wide.u32 %rd4, %r1, 4;\nadd.s64 %rd5, %rd3, %rd4;\n\
         cvta.to.global.u64 %rd7, %rd2;\nadd.s64 %rd9, %rd7, %rd4;\n",
    );
    for i in 0..12 {
        let off = 256 * i;
        s.push_str(&format!("ld.global.f32 %f{i}, [%rd5+{off}];\n"));
        let data = if add {
            s.push_str(&format!("add.f32 %f{}, %f{i}, 0f3F800000;\n", 20 + i));
            20 + i
        } else {
            i
        };
        s.push_str(&format!("st.global.f32 [%rd9+{off}], %f{data};\n"));
    }
    s.push_str("ret;\n}\n");
    s
}

/// Three loads from one address, three values computed from them and stored: the data
/// avoid R3, the high half of the loads' address, dead and free (ptxas: R9, R7, R11).
const THREE: &str = ".version 9.0\n.target sm_80\n.address_size 64\n\
    .visible .entry k(.param .u64 a, .param .u64 b)\n{\n\
    .reg .b32 %r<4>; .reg .f32 %f<8>; .reg .b64 %rd<10>;\n\
    ld.param.u64 %rd1, [a]; ld.param.u64 %rd2, [b];\nmov.u32 %r1, %tid.x;\n\
    cvta.to.global.u64 %rd3, %rd1;\nmul.wide.u32 %rd4, %r1, 4;\nadd.s64 %rd5, %rd3, %rd4;\n\
    ld.global.f32 %f0, [%rd5];\nld.global.f32 %f1, [%rd5+4];\nld.global.f32 %f2, [%rd5+8];\n\
    add.f32 %f3, %f0, %f1;\nmul.f32 %f4, %f1, %f2;\nadd.f32 %f5, %f0, %f2;\n\
    cvta.to.global.u64 %rd7, %rd2;\nadd.s64 %rd9, %rd7, %rd4;\n\
    st.global.f32 [%rd9], %f3;\nst.global.f32 [%rd9+4], %f4;\nst.global.f32 [%rd9+8], %f5;\n\
    ret;\n}\n";

/// One 64-bit load converted and stored: the result avoids R3 as above (ptxas: R7).
const CONVERT: &str = ".version 9.0\n.target sm_80\n.address_size 64\n\
    .visible .entry k(.param .u64 a, .param .u64 b)\n{\n\
    .reg .b32 %r<4>; .reg .f32 %f<2>; .reg .b64 %rd<10>;\n\
    ld.param.u64 %rd1, [a]; ld.param.u64 %rd2, [b];\nmov.u32 %r1, %tid.x;\n\
    cvta.to.global.u64 %rd3, %rd1;\nmul.wide.u32 %rd4, %r1, 8;\nadd.s64 %rd5, %rd3, %rd4;\n\
    ld.global.u64 %rd6, [%rd5];\ncvt.rn.f32.u64 %f1, %rd6;\n\
    cvta.to.global.u64 %rd7, %rd2;\nmul.wide.u32 %rd8, %r1, 4;\nadd.s64 %rd9, %rd7, %rd8;\n\
    st.global.f32 [%rd9], %f1;\nret;\n}\n";

/// (what, kernel, ptxas's count, the data registers of ptxas's first STGs, radbg's
/// count without the rule).
fn cases() -> Vec<(&'static str, String, u32, &'static str, u32)> {
    vec![
        ("sums of loads", kernel(true), 16, "R7 R9 R11 R13 R7 R9 R11", 10),
        ("loads copied", kernel(false), 20, "R7 R9 R11 R13 R15 R17 R7", 10),
        ("three sums after three loads", THREE.to_string(), 14, "R9 R7 R11", 12),
        ("a converted load", CONVERT.to_string(), 10, "R7", 8),
    ]
}

fn count(text: &str, rotation: Option<i64>) -> u32 {
    let mut settings = Settings { disabled_passes: BTreeSet::new(), ..Default::default() };
    if let Some(n) = rotation {
        settings.knobs.push(radbg::engine::ResolvedKnob::parse(&format!("radbg.StoreRotation={n}")).expect("knob"));
    }
    let run = run_file("k.ptx", text, "sm_80", None, &settings).expect("runs");
    assert!(run.funcs[0].faults.is_empty(), "{:?}", run.funcs[0].faults);
    run.funcs[0].registers
}

#[test]
fn radbg_rotates_store_data_as_ptxas_does() {
    for (what, text, ptxas, _, packed) in cases() {
        assert_eq!(count(&text, None), ptxas, "{what}");
        // Without the rule every data value takes the lowest free odd register.
        assert_eq!(count(&text, Some(0)), packed, "{what}: without the rotation");
    }
}

#[test]
fn the_recorded_ptxas_registers_are_ptxas_s() {
    let Some(common::ptxas::SassTools { ptxas, nvdisasm, dir }) =
        common::ptxas::sass_tools("rotation", "the recorded registers")
    else {
        return;
    };
    let mut wrong = Vec::new();
    for (i, (what, text, want, data, _)) in cases().into_iter().enumerate() {
        let ptx = dir.join(format!("k{i}.ptx"));
        std::fs::write(&ptx, &text).expect("writes");
        let (used, log) = common::ptxas::used_registers(&ptxas, &ptx);
        if used != Some(want) {
            wrong.push(format!("{what}: ptxas {used:?}, recorded {want}: {log}"));
        }
        let sass = common::ptxas::sass(&ptxas, &nvdisasm, &dir, &format!("k{i}"), &text);
        let regs: Vec<String> = sass
            .lines()
            .filter(|l| l.contains("STG"))
            .filter_map(|l| l.split(';').next()?.rsplit(", ").next().map(|r| r.trim().to_string()))
            .take(data.split(' ').count())
            .collect();
        if regs.join(" ") != data {
            wrong.push(format!("{what}: ptxas's STG data {regs:?}, recorded {data}"));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(wrong.is_empty(), "{wrong:#?}");
}

#[test]
fn why_names_the_rotation_that_placed_a_value_high() {
    let dir = std::env::temp_dir().join(format!("radbg-rotation-why-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let ptx = dir.join("k.ptx");
    std::fs::write(&ptx, kernel(true)).expect("writes");
    let out = Command::new(env!("CARGO_BIN_EXE_radbg")).arg("why").arg(&ptx).output().expect("radbg runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("placement: 12 value(s) took a register above a lower one"), "{text}");
    assert!(text.contains("in R13, not R7: R7 holds the data of a nearby store"), "{text}");
    // The debugger's histogram and `why spill` say the same for one value.
    let script = dir.join("s.radbg");
    std::fs::write(&script, "break assign %f23\ncontinue\nhistogram\nwhy spill %f23\n").expect("writes");
    let out = Command::new(env!("CARGO_BIN_EXE_radbg")).arg(&ptx).arg("-x").arg(&script).output().expect("radbg runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("R13 rather than R7: R7 holds the data of a nearby store"), "{text}");
    assert!(text.contains("slot  primary secondary  bank rotate"), "{text}");
    assert!(text.contains("it holds R13, not R7: R7 holds the data of a nearby store"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}
