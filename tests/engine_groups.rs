//! The debugger's ABI stage on a module of several call groups (issue 25): each
//! function's ABI setup and checks are computed on its call group alone, not on the
//! whole module (whose every function's name they index: O(n² log n) on a file of many
//! entries). The results must be the ones the whole module gives.

use radbg::abi::{self, AbiInput, report::function_limits};
use radbg::engine::{Debugger, RunOptions};

/// `device_calls.ptx` (calls, an extern, a prototype) with a device function nobody
/// calls, independent entries, and one entry that calls that device function.
fn module() -> radbg::ir::Module {
    let mut text = [include_str!("ptx/device_calls.ptx"), include_str!("engine_groups/independent.ptx.txt")].concat();
    text.push_str(
        "\n.visible .entry user(.param .u64 user_param_0)\n{\n\t.reg .b32 \t%r<4>;\n\t.reg .b64 \t%rd<3>;\n\tld.param.u64 \t%rd1, [user_param_0];\n\tcvta.to.global.u64 \t%rd2, %rd1;\n\tmov.u32 \t%r1, %tid.x;\n\t{\n\t.param .b32 param0;\n\tst.param.b32 \t[param0+0], %r1;\n\t.param .b32 retval0;\n\tcall.uni (retval0), lone, (param0);\n\tld.param.b32 \t%r2, [retval0+0];\n\t}\n\tst.global.u32 \t[%rd2], %r2;\n\tret;\n}\n",
    );
    radbg::ir::ptx::import_text(&text).module.expect("imports")
}

#[test]
fn each_function_s_abi_is_the_whole_module_s() {
    let m = module();
    assert!(radbg::engine::machine::call_groups(&m).len() >= 4, "several groups");
    let mut d = Debugger::new(m.clone(), RunOptions { imported: true, ..RunOptions::default() });
    d.run_to_end();
    // What the ABI stage gives each function on the whole module after the prepasses
    // (the module the stage read, from a run stopped at its first event).
    let mut at_abi = Debugger::new(m, RunOptions { imported: true, ..RunOptions::default() });
    at_abi.advance_to(&radbg::engine::debugger::Target::Kind(radbg::engine::breakpoint::BpKind::Stage(
        radbg::engine::Stage::Abi,
    )));
    let whole = at_abi.machine().module.clone();
    let limits = function_limits(&whole, &whole.sm);
    let mut engaged = 0;
    for (fi, &maxreg) in limits.iter().enumerate() {
        let input = AbiInput { maxreg, sm: whole.sm.clone() };
        let mut want = abi::setup(&whole, fi, &input);
        want.checks.extend(abi::check_convergent(&whole, fi));
        want.checks.extend(abi::check_reserved_smem(&whole, fi));
        want.checks.extend(abi::check_relative_calls(&whole, fi));
        engaged += usize::from(want.engaged);
        let got = d.machine().funcs[fi].abi.as_deref().expect("the ABI stage ran");
        // Call lowering later moves the pins, exit values and fixed registers to the
        // bindings' twins: the rest is the stage's.
        let name = &whole.functions[fi].name;
        assert_eq!(got.checks, want.checks, "{name}");
        assert_eq!(
            (got.engaged, &got.params, &got.returns, got.ret_addr, &got.error, &got.classes),
            (want.engaged, &want.params, &want.returns, want.ret_addr, &want.error, &want.classes),
            "{name}"
        );
        assert_eq!(
            (got.limit, got.first_param, got.available, got.stack_pointer),
            (want.limit, want.first_param, want.available, want.stack_pointer),
            "{name}"
        );
    }
    assert!(engaged >= 3, "device functions under the convention: {engaged}");
}

/// An entry (or, with `callee`, an entry calling that `.func`) with a `.local` depot
/// named as NVCC names every kernel's first one: the whole import hoists each to module
/// scope under a name unique over the file (`__local_depot0`, `__local_depot0_1`, ...).
fn depot_entry(name: &str, callee: Option<&str>) -> String {
    let call = callee.map_or(String::new(), |c| {
        format!(
            "\t{{\n\t.param .b32 param0;\n\tst.param.b32 \t[param0+0], %r1;\n\t.param .b32 retval0;\n\tcall.uni (retval0), {c}, (param0);\n\tld.param.b32 \t%r1, [retval0+0];\n\t}}\n"
        )
    });
    format!(
        "\n.visible .entry {name}(.param .u64 {name}_param_0)\n{{\n\t.local .align 4 .b8 \t__local_depot0[16];\n\t.reg .b64 \t%SPL;\n\t.reg .b32 \t%r<4>;\n\t.reg .b64 \t%rd<4>;\n\tmov.u64 \t%SPL, __local_depot0;\n\tld.param.u64 \t%rd1, [{name}_param_0];\n\tcvta.to.global.u64 \t%rd2, %rd1;\n\tmov.u32 \t%r1, %tid.x;\n{call}\tst.local.u32 \t[%SPL], %r1;\n\tld.local.u32 \t%r2, [%SPL];\n\tld.global.u32 \t%r3, [gcount];\n\tadd.s32 \t%r2, %r2, %r3;\n\tst.global.u32 \t[%rd2], %r2;\n\tret;\n}}\n"
    )
}

/// A `.func` with a depot of its own.
fn depot_func(name: &str) -> String {
    format!(
        "\n.func  (.param .b32 {name}_ret) {name}(.param .b32 {name}_param_0)\n{{\n\t.local .align 4 .b8 \t__local_depot0[8];\n\t.reg .b64 \t%SPL;\n\t.reg .b32 \t%r<4>;\n\tmov.u64 \t%SPL, __local_depot0;\n\tld.param.b32 \t%r1, [{name}_param_0];\n\tst.local.u32 \t[%SPL], %r1;\n\tld.local.u32 \t%r2, [%SPL];\n\tadd.s32 \t%r3, %r2, 1;\n\tst.param.b32 \t[{name}_ret+0], %r3;\n\tret;\n}}\n"
    )
}

/// A file of several call groups whose bodies hoist module-scope names.
fn depot_file(callee_last: bool) -> String {
    let mut t = String::from(".version 8.0\n.target sm_80\n.address_size 64\n\n.global .align 4 .u32 gcount;\n");
    t.push_str(&depot_entry("first", None));
    if !callee_last {
        t.push_str(&depot_func("helper"));
    }
    t.push_str(&depot_entry("caller", Some("helper")));
    if callee_last {
        t.push_str(&depot_func("helper"));
    }
    for k in 0..3 {
        t.push_str(&depot_entry(&format!("solo{k}"), None));
    }
    t
}

#[test]
fn a_file_loaded_group_by_group_is_the_whole_import() {
    use radbg::ir::ptx::stream::Reimport;
    for callee_last in [false, true] {
        let text = depot_file(callee_last);
        let whole = radbg::ir::ptx::import_text(&text).module.expect("imports");
        let names: Vec<&str> = whole.globals.iter().map(|g| g.name.as_str()).collect();
        assert!(names.contains(&"__local_depot0_3"), "{names:?}");
        match Reimport::load(text.clone()) {
            Some((r, m)) => {
                assert!(!callee_last, "a callee after its caller is moved by the whole import: not split");
                assert_eq!(m, whole);
                assert_eq!(r.module().as_ref(), Some(&whole));
                for fi in 0..whole.functions.len() {
                    assert_eq!(r.function(fi).as_ref(), Some(&whole.functions[fi]), "function {fi}");
                }
            }
            None => assert!(callee_last, "splits"),
        }
        // The loader gives the whole import's module either way.
        let dir = std::env::temp_dir().join(format!("radbg-engine-groups-{}-{callee_last}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let path = dir.join("depots.ptx");
        std::fs::write(&path, &text).expect("write");
        let loaded = radbg::load::load_path(&path).expect("loads");
        assert_eq!(loaded.module, whole);
        assert_eq!(loaded.reimport.is_some(), !callee_last);
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// The bench's many-entry files (`benches/scale.rs`; `RADBG_GROUPS_FILE` names another)
/// load group by group as the whole import loads them. Ignored: the files are generated
/// and the 50 MB one takes a minute.
#[test]
#[ignore]
fn the_bench_files_load_as_the_whole_import() {
    let home = std::env::var("HOME").unwrap_or_default();
    let files = match std::env::var("RADBG_GROUPS_FILE") {
        Ok(f) => vec![std::path::PathBuf::from(f)],
        Err(_) => vec![std::path::Path::new(&home).join(".cache/radbg-bench/many5.ptx")],
    };
    for path in files.into_iter().filter(|p| p.exists()) {
        let loaded = radbg::load::load_path(&path).expect("loads");
        assert!(loaded.reimport.is_some(), "{} splits", path.display());
        let text = std::fs::read_to_string(&path).expect("reads");
        let whole = radbg::ir::ptx::import_text(&text).module.expect("imports");
        assert!(loaded.module == whole, "{}", path.display());
    }
}
