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
    /// A PTX file imported group by group: its text, to import the module as loaded
    /// again instead of holding it (`ir::ptx::stream::Reimport`; the debugger's use).
    pub reimport: Option<crate::ir::ptx::stream::Reimport>,
}

/// Whether a file is PTX: a `.ptx` extension, or (any other name but `.ori`) text whose
/// first directive, after comments and blank lines, is `.version` — the PTX ISA
/// requires it first, and Ori IR has no such directive (both have `.target`).
pub fn is_ptx(path: &std::path::Path, bytes: &[u8]) -> bool {
    if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("ptx")) {
        return true;
    }
    if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("ori")) {
        return false;
    }
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(64 * 1024)]);
    let mut in_block = false;
    for line in text.lines() {
        let mut l = line.trim();
        if in_block {
            match l.find("*/") {
                Some(i) => {
                    l = l[i + 2..].trim();
                    in_block = false;
                }
                None => continue,
            }
        }
        if l.starts_with("/*") {
            in_block = !l.contains("*/");
            continue;
        }
        if l.is_empty() || l.starts_with("//") || l.starts_with('#') || l.starts_with(';') {
            continue;
        }
        return l.starts_with(".version");
    }
    false
}

/// An error when a loaded module has nothing to allocate (an empty file, only
/// declarations): every command that runs the pipeline refuses it, naming the file.
pub fn require_function(loaded: &Loaded) -> Result<(), String> {
    if loaded.module.functions.is_empty() {
        let what = if loaded.imported { "no .entry or .func" } else { "no function" };
        return Err(format!("{}: error: nothing to allocate: {what} in the file", loaded.name));
    }
    Ok(())
}

/// Reads and parses `path`: PTX (by extension or content, `is_ptx`) is imported,
/// everything else is Ori IR.
pub fn load_path(path: &std::path::Path) -> Result<Loaded, String> {
    load_path_named(path, &path.display().to_string())
}

/// Like [`load_path`], naming the file `name` in messages (the path as the user typed it).
pub fn load_path_named(path: &std::path::Path, name: &str) -> Result<Loaded, String> {
    let name = name.to_string();
    let bytes = read_input(path, &name)?;
    let ptx = is_ptx(path, &bytes);
    let file = SourceFile::from_vec(name.clone(), bytes).map_err(|e| e.render())?;
    let loaded = if ptx { import_ptx(&file)? } else { load_ori(&file)? };
    require_function(&loaded)?;
    Ok(loaded)
}

/// The `load` command's loader (scripts, REPL, TUI): only `.ori` and `.ptx` files, and
/// an error shows at most the first diagnostic — one line of the file, cut — and a
/// count, so a replayed script cannot print back a file it was not meant to read
/// (issue 28: a `load` of `/proc/self/environ` printed the environment).
pub fn load_command(path: &std::path::Path, name: &str) -> Result<Loaded, String> {
    let kernel = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("ptx") || e.eq_ignore_ascii_case("ori"));
    if !kernel {
        return Err(format!("cannot load {name}: not an Ori IR (.ori) or PTX (.ptx) file"));
    }
    let bytes = read_input(path, name)?;
    let file = match SourceFile::from_vec(name, bytes) {
        Ok(f) => f,
        Err(e) => return Err(e.diag.render(&e.file)),
    };
    let ptx = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("ptx"));
    if ptx && let Some((r, m)) = import_split(&file.text) {
        return Ok(Loaded { module: m, warnings: String::new(), imported: true, name: file.name, reimport: Some(r) });
    }
    let (result, diags) = if ptx {
        let imp = crate::ir::ptx::import(&file);
        (imp.module.filter(|_| !imp.diags.iter().any(Diagnostic::is_error)), imp.diags)
    } else {
        let (m, map, mut diags) = crate::ir::parse::parse_module(&file);
        if !diags.iter().any(Diagnostic::is_error) {
            diags.extend(crate::ir::validate::validate(&m, &map));
        }
        (Some(m).filter(|_| !diags.iter().any(Diagnostic::is_error)), diags)
    };
    let (errors, warnings) = diag::counts(&diags);
    match result {
        Some(m) => Ok(Loaded {
            module: m,
            warnings: diag::render_all(&diags, &file),
            imported: ptx,
            name: file.name,
            reimport: None,
        }),
        None => {
            let first = diags.iter().find(|d| d.is_error()).map(|d| d.render(&file)).unwrap_or_default();
            let more = if errors > 1 { format!(" ('radbg check {name}' lists them all)") } else { String::new() };
            Err(format!("{first}{name}: {}{more}", diag::summary(errors.max(1), warnings)))
        }
    }
}

/// Reads an input file within the limits (`ir::limits`): `-` is standard input; any
/// other path must be a regular file (a FIFO would block forever, `/dev/zero` never
/// ends) no larger than the file-size limit. Reads at most one byte past the limit, so
/// a file that grows (or lies about its size, like those in /proc) cannot exhaust memory.
pub fn read_input(path: &std::path::Path, name: &str) -> Result<Vec<u8>, String> {
    use std::io::Read;
    let limits = crate::ir::limits::current();
    let max = limits.max_file_bytes;
    let too_big = || {
        format!(
            "cannot read {name}: larger than the limit of {} (set {}=BYTES to raise it)",
            crate::ir::limits::human(max),
            crate::ir::limits::ENV_MAX_FILE_BYTES
        )
    };
    let mut buf = Vec::new();
    if path.as_os_str() == "-" {
        std::io::stdin()
            .lock()
            .take(max.saturating_add(1))
            .read_to_end(&mut buf)
            .map_err(|e| format!("cannot read standard input: {e}"))?;
    } else {
        let meta = std::fs::metadata(path).map_err(|e| format!("cannot read {name}: {e}"))?;
        if !meta.is_file() {
            return Err(format!("cannot read {name}: {} (give '-' to read standard input)", kind_of(&meta)));
        }
        if meta.len() > max {
            return Err(too_big());
        }
        let f = std::fs::File::open(path).map_err(|e| format!("cannot read {name}: {e}"))?;
        // The size and one byte to see the end: no doubling slack (a 50 MB file was
        // read into 64 MB).
        buf.reserve_exact(usize::try_from(meta.len()).unwrap_or(0).saturating_add(1));
        f.take(max.saturating_add(1)).read_to_end(&mut buf).map_err(|e| format!("cannot read {name}: {e}"))?;
    }
    if buf.len() as u64 > max {
        return Err(too_big());
    }
    Ok(buf)
}

/// What a non-regular file is, for the refusal message.
fn kind_of(meta: &std::fs::Metadata) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    let t = meta.file_type();
    if t.is_dir() {
        "a directory, not a file"
    } else if t.is_fifo() {
        "a FIFO, not a regular file"
    } else if t.is_char_device() || t.is_block_device() {
        "a device, not a regular file"
    } else if t.is_socket() {
        "a socket, not a regular file"
    } else {
        "not a regular file"
    }
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
    Ok(Loaded { module: m, warnings: rendered, imported, name: file.name.to_string(), reimport: None })
}

/// A PTX file of two or more call groups imported group by group and put together
/// (`ir::ptx::stream::Plan::import_all`: the whole import's module, without the whole
/// file's syntax tree held beside its IR — issue 25, loading the 50 MB file of 6,138
/// entries peaked at 1.3 GB); `None` when the file is not split or a group has anything
/// to report (the whole import then reports it).
fn import_split(text: &std::sync::Arc<String>) -> Option<(crate::ir::ptx::stream::Reimport, Module)> {
    // One function (the scale kernel): no split, and no second parse.
    if text.matches(".entry").count() + text.matches(".func").count() < 2 {
        return None;
    }
    crate::ir::ptx::stream::Reimport::load(text.clone())
}

/// Imports PTX (the importer validates the Ori IR it produces); a file of several call
/// groups one group at a time when nothing is to be reported ([`import_split`]).
pub fn import_ptx(file: &SourceFile) -> Result<Loaded, String> {
    if let Some((r, m)) = import_split(&file.text) {
        let name = file.name.to_string();
        return Ok(Loaded { module: m, warnings: String::new(), imported: true, name, reimport: Some(r) });
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn ptx_by_extension_or_content() {
        let ptx = b"// Generated by NVIDIA NVVM Compiler\n\n/* a\n block */\n.version 8.0\n.target sm_80\n";
        assert!(is_ptx(Path::new("k.ptx"), b""));
        assert!(is_ptx(Path::new("k.txt"), ptx));
        assert!(is_ptx(Path::new("kernel"), ptx));
        assert!(!is_ptx(Path::new("k.ori"), ptx), "an .ori name is Ori IR whatever it holds");
        assert!(!is_ptx(Path::new("k.txt"), b"// an Ori file\n.target sm_80\n.func f {\n}\n"));
        assert!(!is_ptx(Path::new("demo"), crate::demo::DEMO.as_bytes()));
    }
}
