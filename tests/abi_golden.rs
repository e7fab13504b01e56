//! Golden tests of the ABI check list (`radbg check`) on the session kernels
//! `sessions/abi_*.ori`: the exact messages, verdicts and order. Regenerate the
//! expected files with `UPDATE_EXPECT=1 cargo test --test abi_golden`.
//!
//! Besides the text, each file must do what its name says: `abi_NNNN.ori` fails
//! check NNNN, `abi_clean.ori` fails nothing.

mod common;

use std::path::PathBuf;

use common::{assert_golden, golden};

use radbg::abi::report::function_limits;
use radbg::abi::{AbiCheck, AbiInput, check_convergent, check_reserved_smem, lower_calls, report, setup};
use radbg::ir::{Module, parse_str, print_module};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn sessions() -> Vec<(String, Module)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join("sessions"))
        .expect("sessions/")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            name.starts_with("abi_") && name.ends_with(".ori")
        })
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let stem = p.file_stem().and_then(|s| s.to_str()).unwrap_or("").to_string();
            let text = std::fs::read_to_string(&p).expect("read session");
            let m = parse_str(&text).unwrap_or_else(|e| panic!("{} does not parse:\n{e}", p.display()));
            (stem, m)
        })
        .collect()
}

/// Every check `radbg check` runs on the module.
fn all_checks(m: &Module) -> Vec<AbiCheck> {
    let limits = function_limits(m, &m.sm);
    let mut out = Vec::new();
    for (i, f) in m.functions.iter().enumerate() {
        if f.abi.is_some() {
            out.extend(setup(m, i, &AbiInput { maxreg: limits[i], sm: m.sm.clone() }).checks);
        }
        out.extend(check_convergent(m, i));
        out.extend(check_reserved_smem(m, i));
        out.extend(radbg::abi::check_relative_calls(m, i));
    }
    out
}

#[test]
fn session_reports_match_and_trigger_their_code() {
    let sessions = sessions();
    assert!(sessions.len() >= 20, "expected the abi_* session kernels, found {}", sessions.len());
    let mut problems = Vec::new();
    for (stem, m) in &sessions {
        let text = report(m, &m.sm);
        problems.extend(golden(&root().join("tests/abi_golden").join(format!("{stem}.txt")), &text));
        let failed: Vec<AbiCheck> = all_checks(m).into_iter().filter(|c| !c.passed).collect();
        let wanted = stem.trim_start_matches("abi_");
        let ok = match wanted {
            "clean" | "lower" => failed.is_empty(),
            "size" => failed.iter().any(|c| c.message.contains("size requires more registers")),
            "reserved_r0_r3" => {
                failed.iter().filter(|c| c.message.starts_with("Registers 0-3 are reserved")).count() == 2
            }
            "multicall" => failed.iter().any(|c| c.message.starts_with("Multiple functions calls")),
            "param_retaddr" => failed.iter().any(|c| c.message.starts_with("Parameter registers from R")),
            code => {
                let code: u32 = code.parse().unwrap_or_else(|_| panic!("session {stem}: unexpected name"));
                failed.iter().any(|c| c.code == code)
            }
        };
        if !ok {
            let got: Vec<String> = failed.iter().map(|c| format!("{} {}", c.code, c.message)).collect();
            problems.push(format!("{stem}: does not trigger what its name says; failures: {got:?}"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn lowering_golden() {
    let text = std::fs::read_to_string(root().join("sessions/abi_lower.ori")).expect("read abi_lower.ori");
    let mut m = parse_str(&text).expect("abi_lower.ori parses");
    let limits = function_limits(&m, &m.sm);
    let results: Vec<_> = (0..m.functions.len())
        .map(|i| {
            let r = setup(&m, i, &AbiInput { maxreg: limits[i], sm: m.sm.clone() });
            r.engaged.then_some(r)
        })
        .collect();
    let lowered = lower_calls(&mut m, &results);
    let mut out = print_module(&m);
    out.push_str("\n// lowered call sites\n");
    for l in &lowered {
        out.push_str(&format!(
            "// {}: block {} inst {} -> {} ({} before, {} after) pins {:?}\n",
            m.functions[l.func].name,
            l.block,
            l.inst,
            m.functions[l.callee].name,
            l.moves_before,
            l.moves_after,
            l.pinned.iter().map(|(v, r)| format!("{}=R{r}", m.functions[l.func].vreg(*v).name)).collect::<Vec<_>>()
        ));
        for n in &l.notes {
            out.push_str(&format!("//   note: {n}\n"));
        }
    }
    assert_golden(&root().join("tests/abi_golden/abi_lower.lowered.ori"), &out);
    // The lowered text parses back, and lowering again changes nothing.
    let mut again = parse_str(&print_module(&m)).expect("lowered module parses");
    assert_eq!(again, m);
    assert!(lower_calls(&mut again, &results).is_empty());
    assert_eq!(again, m);
}
