//! The regression kernels checked with `radbg reduce` (issue 29): every kernel in
//! `tests/regress/` (issue 22's, `.ptx` or `.ori`) names in a header line
//!
//! ```text
//! // reduce: PREDICATE [--sm SM] [--maxrregcount N] [--removable N]
//! ```
//!
//! what it shows — a built-in predicate, an `expect` condition or `script FILE.radbg`
//! (beside the kernel) — and reducing it under that predicate must keep it: the result
//! still shows the predicate and has at most [`SLACK`] instructions fewer, so the kernel
//! is already as small as its behaviour allows. A kernel without the line fails, saying
//! to add one. `--removable N` records a kernel known to be larger than that (N
//! instructions can go and the predicate still holds): the test then holds it to N, so
//! it notices when the kernel or the reducer changes, and the line says which kernel is
//! still to trim.

use std::path::{Path, PathBuf};
use std::time::Duration;

use radbg::engine::RunOptions;
use radbg::reduce::{Config, Format, predicate, subject};

/// Instructions a reduction may still remove from a regression kernel.
const SLACK: usize = 2;

/// The header line's predicate, run options and the instructions a reduction may remove.
fn header(name: &str, text: &str) -> Result<(String, RunOptions, usize), String> {
    let line = text
        .lines()
        .take_while(|l| l.starts_with("//") || l.trim().is_empty())
        .find_map(|l| l.strip_prefix("// reduce:"))
        .ok_or_else(|| {
            format!(
                "{name}: no '// reduce: PREDICATE [--sm SM] [--maxrregcount N]' line in its header comment: \
                 add one naming what the kernel shows (see tests/reduce_regress.rs)"
            )
        })?;
    let (pred, opts) = match line.find(" --") {
        Some(i) => (&line[..i], &line[i..]),
        None => (line, ""),
    };
    let mut run = RunOptions::default();
    let mut slack = SLACK;
    let mut words = opts.split_whitespace();
    while let Some(w) = words.next() {
        let value = words.next().ok_or_else(|| format!("{name}: '// reduce:' option {w} needs a value"))?;
        match w {
            "--sm" => run.sm = Some(radbg::ir::Sm::parse(value).map_err(|e| format!("{name}: --sm {value}: {e}"))?),
            "--maxrregcount" => {
                let n = value.parse().map_err(|_| format!("{name}: --maxrregcount {value}: not a number"))?;
                run.maxrregcount = Some(n);
            }
            "--removable" => {
                slack = value.parse().map_err(|_| format!("{name}: --removable {value}: not a number"))?;
            }
            _ => return Err(format!("{name}: unknown '// reduce:' option {w} (--sm, --maxrregcount, --removable)")),
        }
    }
    Ok((pred.trim().to_string(), run, slack))
}

#[test]
fn every_regression_kernel_is_already_reduced() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/regress");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/regress")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "ptx" || x == "ori"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no regression kernels in {}", dir.display());
    let mut problems = Vec::new();
    for path in &files {
        let name = path.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
        let text = std::fs::read_to_string(path).expect("reads");
        if let Err(e) = check(&name, &dir, &text) {
            problems.push(e);
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

fn check(name: &str, dir: &Path, text: &str) -> Result<(), String> {
    let (pred_text, opts, slack) = header(name, text)?;
    let pred = radbg::command::reduce::build(&pred_text, dir, None).map_err(|e| format!("{name}: {e}"))?;
    let format = Format::detect(name, text);
    let mut cfg = Config::new(opts.clone());
    cfg.jobs = 2;
    // A bound, so a kernel that reduces far cannot hold the test up.
    cfg.timeout = Some(Duration::from_secs(300));
    let o = radbg::reduce::reduce(format, text, &pred, &cfg, &mut |_| {}).map_err(|e| format!("{name}: {e}"))?;
    let loaded = subject::load(format, &o.text).map_err(|e| format!("{name}: the result does not load: {e}"))?;
    let run = RunOptions { imported: format == Format::Ptx, ..opts };
    if !predicate::eval(&pred, &o.text, &loaded.module, &run).unwrap_or(false) {
        return Err(format!("{name}: the reduced kernel no longer shows '{pred_text}':\n{}", o.text));
    }
    if o.insts + slack < o.start_insts {
        return Err(format!(
            "{name}: reduce keeps '{pred_text}' with {} of its {} instructions (at most {slack} may go) — \
             not reduced yet; the reduced kernel:\n{}",
            o.insts, o.start_insts, o.text
        ));
    }
    Ok(())
}

#[test]
fn a_kernel_without_the_header_line_is_named() {
    let e = header("k.ptx", "// a kernel\n.version 8.0\n").expect_err("no line");
    assert!(e.contains("k.ptx: no '// reduce: PREDICATE"), "{e}");
    let (p, o, n) =
        header("k.ptx", "// a kernel\n// reduce: registers > 12 --maxrregcount 32\n.version 8.0\n").expect("parses");
    assert_eq!((p.as_str(), o.maxrregcount, n), ("registers > 12", Some(32), SLACK));
    let (_, _, n) = header("k.ptx", "// reduce: fails --removable 5\n").expect("parses");
    assert_eq!(n, 5);
    assert!(
        header("k.ptx", "// reduce: fails --frob 1\n")
            .expect_err("unknown")
            .contains("unknown '// reduce:' option --frob")
    );
}
