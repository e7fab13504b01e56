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
