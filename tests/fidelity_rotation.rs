//! Store-data rotation (issue 23, ARCHITECTURE.md "Fidelity", rule 6): ptxas 13.0.88
//! gives the data of a store a register the data of the previous three stores of the
//! block do not hold (five when the data comes straight from a load), even where a lower
//! one is free. Each case is a hand-made straight-line kernel of twelve stores with the
//! registers ptxas uses and the data registers of its first `STG`s (nvdisasm); radbg must
//! count the same, and without the rule (`radbg.StoreRotation=0`) it packs. When ptxas
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

/// (what, kernel, ptxas's count, the data registers of ptxas's first seven STGs).
fn cases() -> Vec<(&'static str, String, u32, &'static str)> {
    vec![
        ("sums of loads", kernel(true), 16, "R7 R9 R11 R13 R7 R9 R11"),
        ("loads copied", kernel(false), 20, "R7 R9 R11 R13 R15 R17 R7"),
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
    for (what, text, ptxas, _) in cases() {
        assert_eq!(count(&text, None), ptxas, "{what}");
        // Without the rule every data value takes the lowest free odd register.
        assert_eq!(count(&text, Some(0)), 10, "{what}: without the rotation");
    }
}

#[test]
fn the_recorded_ptxas_registers_are_ptxas_s() {
    let (Some(ptxas), Some(nvdisasm)) = (common::ptxas::ptxas(), common::ptxas::nvdisasm()) else {
        eprintln!("ptxas 13.0.88 or nvdisasm not found: the recorded registers are not re-measured");
        return;
    };
    let dir = std::env::temp_dir().join(format!("radbg-rotation-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mut wrong = Vec::new();
    for (i, (what, text, want, data)) in cases().into_iter().enumerate() {
        let (ptx, cubin) = (dir.join(format!("k{i}.ptx")), dir.join(format!("k{i}.cubin")));
        std::fs::write(&ptx, text).expect("writes");
        let (used, log) = common::ptxas::used_registers(&ptxas, &ptx);
        if used != Some(want) {
            wrong.push(format!("{what}: ptxas {used:?}, recorded {want}: {log}"));
        }
        let out = Command::new(&ptxas).args(["-arch=sm_80", "-o"]).arg(&cubin).arg(&ptx).output().expect("ptxas runs");
        assert!(out.status.success(), "{what}: {}", String::from_utf8_lossy(&out.stderr));
        let sass = Command::new(&nvdisasm).arg("-c").arg(&cubin).output().expect("nvdisasm runs");
        let regs: Vec<String> = String::from_utf8_lossy(&sass.stdout)
            .lines()
            .filter(|l| l.contains("STG"))
            .filter_map(|l| l.split(';').next()?.rsplit(", ").next().map(|r| r.trim().to_string()))
            .take(7)
            .collect();
        if regs.join(" ") != data {
            wrong.push(format!("{what}: ptxas's STG data {regs:?}, recorded {data}"));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(wrong.is_empty(), "{wrong:#?}");
}
