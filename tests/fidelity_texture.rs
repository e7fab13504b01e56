//! A texture fetch writes only the components read, and reads its handle from the bank
//! (issue 23, ARCHITECTURE.md "Fidelity", stop 31; `prepass::texture`). ptxas 13.0.88's
//! `TEX` has a write mask and two destination fields (a register or a pair each): ffmpeg's
//! bicubic scalers fetch `tex.2d.v4` sixteen times and read `.x` only — `TEX.SCR.LL RZ, R4,
//! R18, R2, 0x0, 0x58, 2D, 0x1` — where radbg gave each fetch an aligned quad and kept the
//! handle's `LDC.64` in a pair, and spilled under `--maxrregcount 32` where ptxas does not.
//! A hand-made kernel with one fetch of each shape: `.x` only, `.x .y`, `.x .w`, all four.
//! When ptxas and nvdisasm are installed the test compiles it and checks ptxas's forms.
//! The pass is written but not in the pass list (measured, not kept: ARCHITECTURE.md
//! "Stop 31"); these tests hold the rule and its evidence for when it is.

mod common;

use std::collections::BTreeSet;

fn kernel(sm: &str) -> String {
    format!(
        ".version 9.0\n.target {sm}\n.address_size 64\n\
         .visible .entry k(.param .u64 t, .param .u64 out, .param .f32 x)\n{{\n\
         .reg .f32 %f<40>; .reg .b64 %rd<8>; .reg .b32 %r<4>;\n\
         ld.param.u64 %rd1, [t]; ld.param.u64 %rd2, [out]; ld.param.f32 %f1, [x];\n\
         cvta.to.global.u64 %rd3, %rd2;\n\
         mov.u32 %r1, %tid.x; cvt.rn.f32.u32 %f2, %r1;\n\
         tex.2d.v4.f32.f32 {{%f10, %f11, %f12, %f13}}, [%rd1, {{%f2, %f1}}];\n\
         add.f32 %f3, %f2, 0f3F800000;\n\
         tex.2d.v4.f32.f32 {{%f14, %f15, %f16, %f17}}, [%rd1, {{%f3, %f1}}];\n\
         add.f32 %f4, %f3, 0f3F800000;\n\
         tex.2d.v4.f32.f32 {{%f18, %f19, %f20, %f21}}, [%rd1, {{%f4, %f1}}];\n\
         add.f32 %f5, %f4, 0f3F800000;\n\
         tex.2d.v4.f32.f32 {{%f22, %f23, %f24, %f25}}, [%rd1, {{%f5, %f1}}];\n\
         add.f32 %f30, %f10, %f14;\nadd.f32 %f30, %f30, %f15;\n\
         add.f32 %f30, %f30, %f18;\nadd.f32 %f30, %f30, %f21;\n\
         add.f32 %f30, %f30, %f22;\nadd.f32 %f30, %f30, %f23;\n\
         add.f32 %f30, %f30, %f24;\nadd.f32 %f30, %f30, %f25;\n\
         mul.wide.u32 %rd4, %r1, 4;\nadd.s64 %rd5, %rd3, %rd4;\n\
         st.global.f32 [%rd5], %f30;\nret;\n}}\n"
    )
}

/// The function after `fold` and, when `on`, the `texture` pass (written, not in the pass
/// list: it runs here by itself), printed.
fn after_texture(text: &str, on: bool) -> (radbg::ir::Function, Vec<String>) {
    let (mut m, _) = radbg::ir::ptx::import_str("k.ptx", text).expect("imports");
    radbg::prepass::apply(&mut m, &BTreeSet::new(), &["fold"]);
    let f = if on {
        let ctx = radbg::prepass::PassCtx { module: &m, sm: &m.sm, maxrregcount: None, cap: None };
        radbg::prepass::texture::PASS.run_owned(&m.functions[0], &ctx).0
    } else {
        m.functions.remove(0)
    };
    let lines = f.blocks.iter().flat_map(|b| &b.insts).map(|i| radbg::ir::print::print_inst(&f, i)).collect();
    (f, lines)
}

/// The widths of each fetch's destinations, in program order.
fn fetch_widths(f: &radbg::ir::Function) -> Vec<Vec<u8>> {
    f.blocks
        .iter()
        .flat_map(|b| &b.insts)
        .filter(|i| i.op.mnemonic() == "TEX")
        .map(|i| i.defs().iter().filter_map(|d| d.as_vreg()).map(|r| f.vreg(r.vreg).width).collect())
        .collect()
}

#[test]
fn a_fetch_writes_one_register_or_pair_per_group_of_components_read() {
    for sm in ["sm_80", "sm_90"] {
        let (before, _) = after_texture(&kernel(sm), false);
        assert_eq!(fetch_widths(&before), [[4], [4], [4], [4]], "{sm}: the importer's quads");
        let (f, lines) = after_texture(&kernel(sm), true);
        // `.x`: one register; `.x .y`: a pair; `.x .w`: two registers; all four: two pairs.
        assert_eq!(fetch_widths(&f), [vec![1], vec![2], vec![1, 1], vec![2, 2]], "{sm}:\n{}", lines.join("\n"));
        // The handle is the parameter's bank word, its LDC gone.
        assert!(
            lines.iter().filter(|l| l.contains("TEX")).all(|l| l.contains("c[0x0][")),
            "{sm}:\n{}",
            lines.join("\n")
        );
        // (On sm_90 the store's address adds a parameter pair loaded by its own LDC.64,
        // rule 9; the handle's word is not loaded.)
        let handle = lines
            .iter()
            .find(|l| l.contains("TEX"))
            .and_then(|l| l.split_whitespace().find(|w| w.starts_with("c[0x0][")));
        let handle = handle.expect("a fetch").trim_end_matches(',');
        assert!(!lines.iter().any(|l| l.contains("LDC") && l.contains(handle)), "{sm}:\n{}", lines.join("\n"));
    }
}

#[test]
fn ptxas_masks_the_fetches_and_reads_the_handle_from_the_bank() {
    let Some(common::ptxas::SassTools { ptxas, nvdisasm, dir }) =
        common::ptxas::sass_tools("texture", "the fetch forms")
    else {
        return;
    };
    let sass = common::ptxas::sass_for(&ptxas, &nvdisasm, &dir, "k_sm_80", &kernel("sm_80"), "sm_80");
    let _ = std::fs::remove_dir_all(&dir);
    let tex: Vec<String> = sass
        .lines()
        .filter_map(|l| l.split_once("TEX").map(|(_, r)| format!("TEX{}", r.split(';').next().unwrap_or(""))))
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect();
    assert_eq!(tex.len(), 4, "{sass}");
    // `.x` only: mask 0x1, the second field RZ; `.x .y`: mask 0x3; all four: no mask, two
    // destination fields; the handle is the parameter's word (0x160 / 4 = 0x58).
    assert!(tex.iter().any(|t| t.contains(" RZ,") && t.ends_with("0x1")), "{tex:#?}");
    assert!(tex.iter().any(|t| t.ends_with("0x3")), "{tex:#?}");
    assert!(tex.iter().any(|t| t.ends_with("2D") && !t.contains(" RZ,")), "{tex:#?}");
    assert!(tex.iter().all(|t| t.contains("0x58")), "{tex:#?}");
    assert!(!sass.contains("c[0x0][0x160]"), "the handle is not loaded into a register:\n{sass}");
}
