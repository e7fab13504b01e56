//! A bounded fuzzer that runs under `cargo test`: 2,000+ random and mutated inputs
//! through `radbg::fuzzing::parse_and_check` (parse, validate, render, print,
//! re-parse; no panics, printing is a fixed point, valid modules round-trip).
//! Deterministic (fixed seeds), a few seconds. The kept crash corpus
//! (`tests/fuzz_crashes/ori/`) is replayed first; `timed_mutation` runs on for
//! `RADBG_FUZZ_SECS` seconds (default 3) from `RADBG_FUZZ_SEED`, keeping the input
//! being run in `target/ori-fuzz-current.ori` so an abort leaves it behind. The
//! open-ended version is the cargo-fuzz target in `fuzz/`.

use radbg::fuzzing::parse_and_check;
use radbg::ir::arbitrary::{self, GenConfig, Rng};

/// Fragments that make mutations likely to reach deep parser states.
const TOKENS: &[&str] = &[
    "\n",
    " ",
    ",",
    "=",
    "[",
    "]",
    "{",
    "}",
    "@",
    "!",
    "%",
    "%r0",
    "%rd0.hi",
    "%q.3",
    "R5",
    "RZ",
    "PT",
    "UR4",
    "0x10",
    "-1",
    "1.5",
    "0f3F800000",
    "c[0x0][0x160]",
    "SR_TID.X",
    ".reg .R %r<4>\n",
    ".pin %r0 = R4\n",
    ".abi {\n",
    "param 1x4 = %a0\n",
    "retaddr regular R20\n",
    "BB0:\n",
    "EXIT\n",
    "RET\n",
    "BRA BB0\n",
    "CALL foo\n",
    "IADD3",
    ".WIDE",
    "LDG.E.64",
    "[%rd0 + 0x10]",
    "//",
    "/*",
    "*/",
    "\"",
    ".loc 3\n",
    ".entry k {\n",
    ".func f {\n",
    ".target sm_90\n",
    ".knob 684 = 50\n",
    ".option maxrregcount = 32\n",
    "\0",
    "é",
    "\r\n",
    "<4000000000>",
    "99999999999999999999",
];

fn sessions() -> Vec<Vec<u8>> {
    let mut paths: Vec<_> = std::fs::read_dir("sessions").unwrap().map(|e| e.unwrap().path()).collect();
    paths.extend(std::fs::read_dir("tests/diag").unwrap().map(|e| e.unwrap().path()));
    paths.sort();
    paths.iter().filter(|p| p.extension().is_some_and(|e| e == "ori")).map(|p| std::fs::read(p).unwrap()).collect()
}

fn mutate(rng: &mut Rng, input: &[u8]) -> Vec<u8> {
    let mut v = input.to_vec();
    for _ in 0..1 + rng.below(8) {
        let at = rng.below(v.len() as u64 + 1) as usize;
        match rng.below(7) {
            0 if !v.is_empty() => {
                let k = at.min(v.len() - 1);
                v[k] = rng.next_u64() as u8;
            }
            1 if !v.is_empty() => {
                let end = (at + 1 + rng.below(40) as usize).min(v.len());
                v.drain(at.min(end)..end);
            }
            2 => {
                let t = rng.pick(TOKENS);
                v.splice(at..at, t.bytes());
            }
            3 => v.truncate(at),
            4 if !v.is_empty() => {
                // Duplicate a slice (repeated lines, nested blocks).
                let start = at.min(v.len() - 1);
                let end = (start + 1 + rng.below(200) as usize).min(v.len());
                let piece = v[start..end].to_vec();
                v.splice(start..start, piece);
            }
            5 => {
                let n = rng.below(64) as usize;
                let bytes: Vec<u8> = (0..n).map(|_| *rng.pick(b" \n%[]{}@.,=-0123456789abcxRZPU_$:\"/*")).collect();
                v.splice(at..at, bytes);
            }
            _ if !v.is_empty() => {
                let (a, b) = (at.min(v.len() - 1), rng.below(v.len() as u64) as usize);
                v.swap(a, b);
            }
            _ => {}
        }
    }
    v
}

#[test]
fn mutated_sessions() {
    let corpus = sessions();
    assert!(corpus.len() >= 12);
    let mut rng = Rng::new(2024);
    for _ in 0..1500 {
        let base = rng.pick(&corpus).clone();
        let input = mutate(&mut rng, &base);
        parse_and_check(&input);
    }
}

#[test]
fn random_token_soup_and_bytes() {
    let mut rng = Rng::new(7);
    for k in 0..500 {
        let input: Vec<u8> = if k % 2 == 0 {
            (0..rng.below(400)).flat_map(|_| rng.pick(TOKENS).bytes().collect::<Vec<_>>()).collect()
        } else {
            (0..rng.below(300)).map(|_| rng.next_u64() as u8).collect()
        };
        parse_and_check(&input);
    }
}

#[test]
fn printed_random_modules_and_their_mutations() {
    let mut rng = Rng::new(99);
    let cfg = GenConfig::default();
    for _ in 0..200 {
        let m = arbitrary::module(&mut rng, &cfg);
        let text = radbg::ir::print::print_module(&m);
        parse_and_check(text.as_bytes());
        parse_and_check(&mutate(&mut rng, text.as_bytes()));
    }
}

#[test]
fn the_crash_corpus_parses_clean() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz_crashes/ori");
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    assert!(!files.is_empty());
    for f in files {
        parse_and_check(&std::fs::read(&f).unwrap());
    }
}

#[test]
fn timed_mutation() {
    use std::time::{Duration, Instant};
    let secs: u64 = std::env::var("RADBG_FUZZ_SECS").ok().and_then(|s| s.parse().ok()).unwrap_or(3);
    let seed: u64 = std::env::var("RADBG_FUZZ_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(28);
    let corpus = sessions();
    let current = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/ori-fuzz-current.ori");
    let mut rng = Rng::new(seed);
    let start = Instant::now();
    let mut runs = 0usize;
    while start.elapsed() < Duration::from_secs(secs) || runs < 100 {
        let base = rng.pick(&corpus).clone();
        let mut input = mutate(&mut rng, &base);
        if runs % 8 == 7 {
            // Stack mutations: the deep and repeated inputs a single edit rarely makes.
            input = mutate(&mut rng, &input);
            input = mutate(&mut rng, &input);
        }
        let _ = std::fs::write(&current, &input);
        parse_and_check(&input);
        runs += 1;
    }
    eprintln!("ori fuzz: {runs} inputs in {:?} (seed {seed})", start.elapsed());
}
