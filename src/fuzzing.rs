//! The shared fuzzing entry: whatever the bytes, the parser, validator, printer and
//! diagnostic renderer must not panic, and printing is a fixed point:
//! the printed module parses without errors and prints to the same text; when the
//! input was error-free, the re-parsed module is equal to the first.
//!
//! Used by the cargo-fuzz targets in `fuzz/` (`ori`, `ptx`, `radbg`) and by the bounded
//! random drivers `tests/fuzz.rs`, `tests/ptx_fuzz.rs` and `tests/script_fuzz.rs` that
//! run under `cargo test`. [`import_ptx`] is the same property for the PTX importer,
//! [`replay_script`] for `.radbg` sessions.

use crate::ir::diag::Diagnostic;
use crate::ir::span::SourceFile;

/// Most registers an input the fuzz harness runs may declare (the sum of every `<N>`
/// in it). A module of 2,000,000 registers is valid (the product limit is 4,194,304)
/// and takes seconds — linear, but past libFuzzer's per-input timeout under coverage
/// instrumentation (the first 30-minute run reported exactly that). The product
/// limits themselves are tested by `tests/limits.rs` and `tests/hostile.rs`.
pub const FUZZ_MAX_REGS: u64 = 1 << 17;

/// The registers an input declares at most, counted on its text: every `<digits>`
/// within the per-declaration limit.
pub fn declared_registers(bytes: &[u8]) -> u64 {
    let mut total = 0u64;
    for piece in bytes.split(|&b| b == b'<').skip(1) {
        let digits = piece.iter().take_while(|b| b.is_ascii_digit()).take(20);
        let n = digits.fold(0u64, |n, &d| n.saturating_mul(10).saturating_add(u64::from(d - b'0')));
        // Over the per-declaration limit is an immediate error: worth fuzzing.
        if n <= crate::ir::limits::MAX_REGS_PER_DECL {
            total = total.saturating_add(n);
        }
    }
    total
}

/// Runs the whole front end on `bytes` and panics if a property fails.
pub fn parse_and_check(bytes: &[u8]) {
    if declared_registers(bytes) > FUZZ_MAX_REGS {
        return;
    }
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
    if declared_registers(bytes) > FUZZ_MAX_REGS {
        return;
    }
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
    let m = m.ori_form();
    assert_eq!(m, m2, "the imported module changed in the round trip:\n{text}");
}

/// Most commands of a fuzzed session that are executed: each may run the whole
/// pipeline on the demo kernel, and an input must stay fast for the fuzzer.
pub const SCRIPT_MAX_COMMANDS: usize = 64;

/// A `.radbg` session on arbitrary bytes, replayed on the embedded demo kernel (loads
/// resolve in `sessions/`): no panic, and every echoed command and error line is
/// bounded (issue 28). Every line is parsed; only the first [`SCRIPT_MAX_COMMANDS`]
/// commands run, and `export` lines are dropped so that fuzzing writes no files.
pub fn replay_script(bytes: &[u8]) {
    let text = String::from_utf8_lossy(bytes);
    let mut kept = String::new();
    let mut commands = 0;
    for line in text.lines() {
        let parsed = crate::command::parse_line(line);
        if let Err(e) = &parsed {
            let r = e.render(line);
            assert!(r.lines().all(|l| l.chars().count() <= 2 * crate::util::MAX_SHOWN + 16), "unbounded error: {r}");
        }
        // Commands that write files (`export`, `reduce into FILE`) stay out: mutated, they
        // wrote files with garbled names wherever the mutated path pointed.
        let writes = line.contains("export")
            || parsed.as_ref().is_ok_and(|cs| cs.iter().any(|c| matches!(c, crate::command::Command::Reduce(_))));
        let n = parsed.map_or(1, |c| c.len());
        if writes || commands + n > SCRIPT_MAX_COMMANDS {
            continue;
        }
        commands += n;
        kept.push_str(line);
        kept.push('\n');
    }
    let mut s = crate::command::Session::new();
    s.base = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("sessions");
    let demo = SourceFile::new(crate::demo::DEMO_NAME, crate::demo::DEMO);
    let Ok(loaded) = crate::load::load_ori(&demo) else { panic!("the demo kernel loads") };
    s.open(loaded.module, crate::demo::DEMO_NAME, false);
    s.stop_on_error = bytes.first().is_some_and(|b| b & 1 == 0);
    let json = bytes.first().is_some_and(|b| b & 2 == 0);
    let r = crate::command::script::replay(&mut s, "fuzz.radbg", &kept, json);
    // (An `echo` prints its text as is, which may look like an echoed command.)
    if !json && !kept.contains("echo") {
        for l in r.transcript.lines().filter(|l| l.starts_with("(radbg) ")) {
            assert!(l.chars().count() <= crate::util::MAX_SHOWN + 9, "unbounded echo: {}", &l[..l.len().min(400)]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The input of libFuzzer's timeout in the first `ori` run (two functions of a
    /// million registers each, 24 s under coverage): the harness skips it.
    #[test]
    fn the_harness_skips_modules_of_millions_of_registers() {
        let input = ".target sm_90\n.entry k0 {\n  .reg .R %r<1000000>\nBB0:\n  EXIT\n}\n.entry k1 {\n  .regR .% r<1000000>\nBB0:\n  EXIT\n}\n.entry k7 {\n  .reg .R %r<1000000>\nBB0:\n  EXIT\n}\n";
        assert!(declared_registers(input.as_bytes()) > FUZZ_MAX_REGS);
        assert_eq!(declared_registers(b".reg .R %r<4000000000>"), 0);
        assert_eq!(declared_registers(b"%r<16>, %q<4>"), 20);
        parse_and_check(input.as_bytes());
    }

    /// A mutated session replays no command that writes a file: `reduce` (whose
    /// mutated paths left garbled files in the temporary directory) and `export`.
    #[test]
    fn the_script_harness_writes_no_files() {
        let dir = std::env::temp_dir().join(format!("radbg-fuzz-writes-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let (reduced, exported) = (dir.join("r.ori"), dir.join("e.json"));
        let script = format!(
            "continue\nreduce into {} registers > 0\nexport trace {}\nwhere\n",
            reduced.display(),
            exported.display()
        );
        replay_script(format!("\u{1}{script}").as_bytes());
        assert!(!reduced.exists() && !exported.exists());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
