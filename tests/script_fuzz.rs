//! A bounded fuzz driver for `.radbg` sessions under `cargo test`: the kept crash
//! corpus (`tests/fuzz_crashes/radbg/`), then mutated session files and random
//! command soup through `radbg::fuzzing::replay_script` (replayed on the demo kernel:
//! no panic, bounded echo and error lines). Deterministic for a seed
//! (`RADBG_FUZZ_SEED`); runs for `RADBG_FUZZ_SECS` seconds (default 3). The input
//! being run is kept in `target/script-fuzz-current.radbg`, so an abort leaves it
//! behind; a failing input is written to `target/script-fuzz-failure.radbg`.

use std::path::Path;
use std::time::{Duration, Instant};

use radbg::ir::arbitrary::Rng;

const WORDS: &[&str] = &[
    "step",
    "s",
    "next",
    "n",
    "continue",
    "c",
    "reverse-step",
    "rs",
    "finish",
    "where",
    "print",
    "p",
    "break",
    "delete",
    "watch",
    "ir",
    "live",
    "constraints",
    "hist",
    "state",
    "attempts",
    "abi",
    "stats",
    "knobs",
    "set",
    "diff",
    "why",
    "what-if",
    "sweep",
    "expect",
    "echo",
    "help",
    "load",
    "run",
    "goto",
    "func",
    "%r0",
    "%r1",
    "%p0",
    "R5",
    "assign",
    "stage",
    "attempt",
    "fail",
    "maxrregcount",
    "knob",
    "sm",
    "sm_90",
    "stop-on-error",
    "on",
    "off",
    "0",
    "1",
    "-1",
    "99999999999999999999",
    "==",
    "!=",
    "<=",
    "1..255",
    "684=10",
    "registers",
    "spill-stores",
    ";",
    "#",
    "demo.ori",
    "abi_7001.ori",
    "/dev/zero",
    "../README.md",
    "é",
    "\u{0}",
    "\t",
    "launch",
    "1024",
    "fits",
    "allocator",
    "briggs",
    "fatpoint",
    "dce",
    "cursor",
];

fn sessions() -> Vec<Vec<u8>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut paths: Vec<_> = std::fs::read_dir(root.join("sessions")).unwrap().map(|e| e.unwrap().path()).collect();
    paths.sort();
    paths.iter().filter(|p| p.extension().is_some_and(|e| e == "radbg")).map(|p| std::fs::read(p).unwrap()).collect()
}

fn mutate(rng: &mut Rng, input: &[u8]) -> Vec<u8> {
    let mut v = input.to_vec();
    for _ in 0..1 + rng.below(6) {
        let at = rng.below(v.len() as u64 + 1) as usize;
        match rng.below(6) {
            0 if !v.is_empty() => {
                let k = at.min(v.len() - 1);
                v[k] = rng.next_u64() as u8;
            }
            1 if !v.is_empty() => {
                let end = (at + 1 + rng.below(40) as usize).min(v.len());
                v.drain(at.min(end)..end);
            }
            2 => {
                let mut t = rng.pick(WORDS).to_string();
                t.push(' ');
                v.splice(at..at, t.into_bytes());
            }
            3 if !v.is_empty() => {
                let start = at.min(v.len() - 1);
                let end = (start + 1 + rng.below(120) as usize).min(v.len());
                let piece = v[start..end].to_vec();
                v.splice(start..start, piece);
            }
            4 => v.truncate(at),
            _ => {
                let n = rng.below(20) as usize;
                let bytes: Vec<u8> = (0..n).map(|_| *rng.pick(b" \n;#%=.0123456789abcxrRPU_-<>!")).collect();
                v.splice(at..at, bytes);
            }
        }
    }
    v
}

fn soup(rng: &mut Rng) -> Vec<u8> {
    let mut s = String::new();
    for _ in 0..rng.below(30) {
        for _ in 0..1 + rng.below(5) {
            let w: &&str = rng.pick(WORDS);
            s.push_str(w);
            s.push(' ');
        }
        s.push_str(if rng.below(3) == 0 { "; " } else { "\n" });
    }
    s.into_bytes()
}

fn run_one(input: &[u8]) -> Result<(), String> {
    std::panic::catch_unwind(|| radbg::fuzzing::replay_script(input)).map_err(|e| {
        let msg = e.downcast_ref::<String>().cloned().or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()));
        msg.unwrap_or_else(|| "panic".into())
    })
}

fn fail(input: &[u8], what: &str) -> ! {
    let out = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/script-fuzz-failure.radbg");
    let _ = std::fs::write(&out, input);
    panic!("{what}\n(input written to {})", out.display());
}

#[test]
fn the_crash_corpus_replays_clean() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz_crashes/radbg");
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    assert!(!files.is_empty());
    for f in files {
        let input = std::fs::read(&f).unwrap();
        if let Err(msg) = run_one(&input) {
            fail(&input, &format!("{}: {msg}", f.display()));
        }
    }
}

#[test]
fn sessions_survive_mutation_and_soup() {
    let secs: u64 = std::env::var("RADBG_FUZZ_SECS").ok().and_then(|s| s.parse().ok()).unwrap_or(3);
    let seed: u64 = std::env::var("RADBG_FUZZ_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(28);
    let corpus = sessions();
    assert!(corpus.len() >= 10);
    let current = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/script-fuzz-current.radbg");
    let mut rng = Rng::new(seed);
    let start = Instant::now();
    let mut runs = 0usize;
    while start.elapsed() < Duration::from_secs(secs) || runs < 40 {
        let input = if runs % 4 == 3 {
            soup(&mut rng)
        } else {
            let base = rng.pick(&corpus).clone();
            mutate(&mut rng, &base)
        };
        let _ = std::fs::write(&current, &input);
        let t = Instant::now();
        if let Err(msg) = run_one(&input) {
            fail(&input, &format!("run {runs}: {msg}"));
        }
        if t.elapsed() > Duration::from_secs(20) {
            fail(&input, &format!("run {runs} took {:?}", t.elapsed()));
        }
        runs += 1;
    }
    eprintln!("script fuzz: {runs} inputs in {:?} (seed {seed})", start.elapsed());
}
