//! Every real kernel of the corpus cache imports without errors, prints to Ori IR
//! that re-parses to an equal module, and validates with no errors. Skips (with a
//! message) when the cache is absent: `../shared/corpus/build.sh` builds it.

/// Imports, prints, re-parses (which validates) and compares one PTX text.
pub fn round_trip(name: &str, text: &str) -> Result<usize, String> {
    let (m, _) = radbg::ir::ptx::import_str(name, text)?;
    let printed = radbg::ir::print_module(&m);
    // What only the import knows (`Module::ori_form`) is not in the Ori text.
    let m = m.ori_form();
    let (m2, _, _) = radbg::ir::parse::parse_named(&format!("{name}.ori"), &printed)?;
    if m != m2 {
        for (f, g) in m.functions.iter().zip(&m2.functions) {
            if f != g {
                return Err(format!("{name}: function {} changed in the round trip", f.name));
            }
        }
        return Err(format!("{name}: the module changed in the round trip"));
    }
    Ok(m.functions.iter().map(|f| f.inst_count()).sum())
}

#[test]
fn every_corpus_kernel_imports_and_round_trips() {
    let Some(files) = radbg::fidelity::corpus_ptx_files().filter(|f| !f.is_empty()) else {
        assert!(std::env::var("CI").as_deref() != Ok("true"), "corpus cache absent under CI: .ci/run builds it");
        eprintln!("corpus cache absent (run ../shared/corpus/build.sh): skipping the PTX corpus round trip");
        return;
    };
    let mut failures = Vec::new();
    for path in &files {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path).expect("corpus files are UTF-8");
        if let Err(e) = round_trip(&name, &text) {
            failures.push(e);
        }
    }
    assert!(failures.is_empty(), "{} of {} corpus files failed:\n{}", failures.len(), files.len(), failures.join("\n"));
}
