//! Loading a kernel file for the pipeline: Ori IR (`.ori`) parsed and validated, or
//! PTX (`.ptx`) imported. Errors come back rendered (`file:line:col`, caret, help).

use crate::ir::Module;
use crate::ir::diag::{self, Diagnostic};
use crate::ir::span::SourceFile;

/// A loaded module and what the loader said about it.
pub struct Loaded {
    pub module: Module,
    /// Rendered warnings (empty when clean).
    pub warnings: String,
    /// True when the module was imported from PTX (the prepass stages apply).
    pub imported: bool,
    pub name: String,
}

/// Reads and parses `path`; `.ptx` files are imported, everything else is Ori IR.
pub fn load_path(path: &std::path::Path) -> Result<Loaded, String> {
    load_path_named(path, &path.display().to_string())
}

/// Like [`load_path`], naming the file `name` in messages (the path as the user typed it).
pub fn load_path_named(path: &std::path::Path, name: &str) -> Result<Loaded, String> {
    let name = name.to_string();
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {name}: {e}"))?;
    let file = SourceFile::from_bytes(name.clone(), &bytes).map_err(|e| e.render())?;
    if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("ptx")) {
        return import_ptx(&file);
    }
    load_ori(&file)
}

/// Parses and validates Ori IR text.
pub fn load_ori(file: &SourceFile) -> Result<Loaded, String> {
    let (m, map, mut diags) = crate::ir::parse::parse_module(file);
    if !diags.iter().any(Diagnostic::is_error) {
        diags.extend(crate::ir::validate::validate(&m, &map));
    }
    finish(file, m, diags, false)
}

fn finish(file: &SourceFile, m: Module, diags: Vec<Diagnostic>, imported: bool) -> Result<Loaded, String> {
    let rendered = diag::render_all(&diags, file);
    let (errors, warnings) = diag::counts(&diags);
    if errors > 0 {
        return Err(format!("{rendered}{}: {}", file.name, diag::summary(errors, warnings)));
    }
    Ok(Loaded { module: m, warnings: rendered, imported, name: file.name.clone() })
}

/// Imports PTX (the importer validates the Ori IR it produces).
pub fn import_ptx(file: &SourceFile) -> Result<Loaded, String> {
    let imp = crate::ir::ptx::import(file);
    match imp.module {
        Some(m) if !imp.diags.iter().any(Diagnostic::is_error) => finish(file, m, imp.diags, true),
        _ => {
            let rendered = diag::render_all(&imp.diags, file);
            let (errors, warnings) = diag::counts(&imp.diags);
            Err(format!("{rendered}{}: {}", file.name, diag::summary(errors.max(1), warnings)))
        }
    }
}
