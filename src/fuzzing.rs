//! The shared fuzzing entry: whatever the bytes, the parser, validator, printer and
//! diagnostic renderer must not panic, and printing is a fixed point:
//! the printed module parses without errors and prints to the same text; when the
//! input was error-free, the re-parsed module is equal to the first.
//!
//! Used by the cargo-fuzz targets in `fuzz/` (`ori`, `ptx`) and by the bounded
//! random drivers `tests/fuzz.rs` and `tests/ptx_fuzz.rs` that run under `cargo test`.
//! [`import_ptx`] is the same property for the PTX importer.

use crate::ir::diag::Diagnostic;
use crate::ir::span::SourceFile;

/// Runs the whole front end on `bytes` and panics if a property fails.
pub fn parse_and_check(bytes: &[u8]) {
    let file = match SourceFile::from_bytes("fuzz.ori", bytes) {
        Ok(f) => f,
        Err(e) => {
            let _ = e.render();
            return;
        }
    };
    let (m, map, diags) = crate::ir::parse::parse_module(&file);
    for d in &diags {
        let _ = d.render(&file);
    }
    let vdiags = crate::ir::validate::validate(&m, &map);
    for d in &vdiags {
        let _ = d.render(&file);
    }
    let text = crate::ir::print::print_module(&m);
    let printed = SourceFile::new("printed.ori", text.clone());
    let (m2, _, diags2) = crate::ir::parse::parse_module(&printed);
    if let Some(d) = diags2.iter().find(|d| d.is_error()) {
        panic!("the printed module does not parse:\n{}\n{text}", d.render(&printed));
    }
    let text2 = crate::ir::print::print_module(&m2);
    assert_eq!(text, text2, "printing is not a fixed point");
    let clean = !diags.iter().chain(&vdiags).any(Diagnostic::is_error);
    if clean {
        assert_eq!(m, m2, "a valid module changed in the round trip:\n{text}");
    }
    for f in &m.functions {
        for b in &f.blocks {
            for inst in &b.insts {
                let _ = crate::ir::encoding::encode_inst(f, inst);
            }
        }
    }
}

/// The PTX importer on arbitrary bytes: it must not panic; diagnostics must render;
/// a module it returns must validate without errors and print to Ori IR that parses
/// back to an equal module.
pub fn import_ptx(bytes: &[u8]) {
    let file = match SourceFile::from_bytes("fuzz.ptx", bytes) {
        Ok(f) => f,
        Err(e) => {
            let _ = e.render();
            return;
        }
    };
    let imp = crate::ir::ptx::import(&file);
    for d in &imp.diags {
        let _ = d.render(&file);
    }
    let Some(m) = imp.module else {
        assert!(imp.diags.iter().any(Diagnostic::is_error), "an import without a module must say why");
        return;
    };
    let vdiags = crate::ir::validate::validate(&m, &crate::ir::span::SourceMap::default());
    if let Some(d) = vdiags.iter().find(|d| d.is_error()) {
        panic!("the imported module is invalid: {}", d.message);
    }
    let text = crate::ir::print::print_module(&m);
    let printed = SourceFile::new("imported.ori", text.clone());
    let (m2, _, diags2) = crate::ir::parse::parse_module(&printed);
    if let Some(d) = diags2.iter().find(|d| d.is_error()) {
        panic!("the imported module does not re-parse:\n{}\n{text}", d.render(&printed));
    }
    // The Ori form keeps PTX lines (`.loc`), not the CUDA line table of `.file`/`.loc`.
    let m = crate::ir::Module { srcloc: Default::default(), ..m };
    assert_eq!(m, m2, "the imported module changed in the round trip:\n{text}");
}
