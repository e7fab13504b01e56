//! A bounded fuzz driver for the PTX importer under `cargo test`: mutated hand-written
//! PTX and randomly generated instruction soup go through
//! `radbg::fuzzing::import_ptx`, which must not panic, and whose imported modules
//! must validate and round-trip through the Ori printer and parser. Deterministic
//! for a seed (`RADBG_FUZZ_SEED`); runs for `RADBG_FUZZ_SECS` seconds (default 3).
//! The kept crash corpus (`tests/fuzz_crashes/ptx/`) is replayed first. The input
//! being run is kept in `target/ptx-fuzz-current.ptx` (an abort leaves it behind); a
//! failing input is written to `target/ptx-fuzz-failure.ptx`.

use std::path::Path;
use std::time::{Duration, Instant};

/// xorshift64*: a small deterministic generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 { 0 } else { (self.next() % n as u64) as usize }
    }
    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }
}

const TOKENS: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    "(",
    ")",
    ";",
    ",",
    "|",
    "@",
    "!",
    "_",
    ".reg",
    ".param",
    ".b32",
    ".b64",
    ".pred",
    ".v4",
    ".f32",
    ".align 16",
    "%r1",
    "%rd1",
    "%p1",
    "%f1",
    "%tid.x",
    "0f3F800000",
    "0d3FF0000000000000",
    "-1",
    "0xFFFFFFFFFF",
    "$L__BB0_1",
    "$L__BB0_1:",
    "ret;",
    "exit;",
    "bra $L__BB0_1;",
    "call.uni (retval0), f, (param0);",
    "{%f1, %f2, %f3, %f4}",
    "[%rd1+-8]",
    "ld.param.u64",
    "st.param.b32",
    "mov.b64",
    "//",
    "/*",
    "*/",
    "\"",
    "\n",
    ".entry",
    ".func",
    ".target sm_90",
    ".version 8.0",
    "::",
    "<",
    ">",
    "<1000000>",
    "WARP_SZ",
    "(1<<3)",
    ".branchtargets",
    ".callprototype",
    "brx.idx",
    "%r<4>",
    "@!%p1",
    "ld.global.v4.f32",
    "wgmma.mma_async",
    "é",
    "→",
    "\u{0}",
    "@@DWARF",
    "%r1+4",
    "{%r1}",
    ".b0",
    "0d",
    "0f",
    "1e",
    ".v8",
    ".x4",
    "[]",
];

fn mutate(rng: &mut Rng, seed: &[u8], other: &[u8]) -> Vec<u8> {
    let mut v = seed.to_vec();
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(v.len() + 1);
        match rng.below(8) {
            0 if !v.is_empty() => {
                let k = rng.below(v.len());
                v[k] = rng.next() as u8;
            }
            1 => v.insert(at, *rng.pick(b"{}[]();,.%@!|_0123456789abcxyz \n\t-+<>\"/*")),
            2 if !v.is_empty() => {
                let len = rng.below(16).min(v.len() - at.min(v.len()));
                v.drain(at.min(v.len())..at.min(v.len()) + len);
            }
            3 => {
                let t = rng.pick(TOKENS).as_bytes().to_vec();
                v.splice(at..at, t);
            }
            4 => v.truncate(at),
            5 if !other.is_empty() => {
                let a = rng.below(other.len());
                let b = (a + rng.below(200)).min(other.len());
                v.splice(at..at, other[a..b].iter().copied());
            }
            6 if !v.is_empty() => {
                // Duplicate a slice (lines of instructions, nested scopes).
                let a = rng.below(v.len());
                let b = (a + rng.below(120)).min(v.len());
                let piece = v[a..b].to_vec();
                let at = rng.below(v.len() + 1);
                v.splice(at..at, piece);
            }
            _ => {
                let n = rng.below(3) + 1;
                for _ in 0..n {
                    if let Some(p) = v.iter().position(|&c| c == b';') {
                        let q = rng.below(v.len() - p);
                        v.swap(p, p + q);
                    }
                }
            }
        }
    }
    v
}

/// A random but mostly well-formed kernel: declarations, then instructions of many
/// shapes over the declared registers.
fn soup(rng: &mut Rng) -> String {
    let mut s = String::from(".version 8.0\n.target sm_90a\n.address_size 64\n.shared .align 16 .b8 sm[256];\n");
    s.push_str(".func (.param .b32 r) g(.param .b64 a, .param .align 16 .b8 b[16]) {\n .reg .b32 %x;\n");
    s.push_str(" ld.param.b32 %x, [b+4];\n st.param.b32 [r], %x;\n ret;\n}\n");
    s.push_str(".visible .entry k(.param .u64 k_p0, .param .u32 k_p1) {\n");
    s.push_str(" .reg .pred %p<4>;\n .reg .b16 %h<4>;\n .reg .b32 %r<8>;\n .reg .f32 %f<8>;\n .reg .b64 %rd<6>;\n .reg .f64 %fd<4>;\n");
    let r = |rng: &mut Rng| format!("%r{}", rng.below(8));
    let f = |rng: &mut Rng| format!("%f{}", rng.below(8));
    let rd = |rng: &mut Rng| format!("%rd{}", rng.below(6));
    let fd = |rng: &mut Rng| format!("%fd{}", rng.below(4));
    let p = |rng: &mut Rng| format!("%p{}", rng.below(4));
    let imm = |rng: &mut Rng| {
        (*rng.pick(&["0", "-1", "7", "0xFF", "0f3F800000", "4294967296", "0d4000000000000000", "(2*8)"])).to_string()
    };
    let n = 5 + rng.below(40);
    s.push_str("$L0:\n");
    for k in 0..n {
        let g = if rng.below(5) == 0 {
            format!("@{}{} ", if rng.below(2) == 0 { "!" } else { "" }, p(rng))
        } else {
            String::new()
        };
        let line = match rng.below(27) {
            22 => format!("add.u32 {}, {}+4, {};", r(rng), r(rng), r(rng)),
            23 => format!("mov.v2.u32 {{{}, {}}}, {{{}, {}}};", r(rng), r(rng), r(rng), r(rng)),
            24 => format!("vadd.u32.u32.u32.add {}, {}.b1, {}.h0, {};", r(rng), r(rng), r(rng), r(rng)),
            25 => format!("st.global.v4.b64 [{}], {{{}, {}, {}, {}}};", rd(rng), rd(rng), rd(rng), rd(rng), rd(rng)),
            26 => format!("ld.param.v2.u32 {{{}, {}}}, [k_p0];", r(rng), r(rng)),
            0 => format!("add.s32 {}, {}, {};", r(rng), r(rng), imm(rng)),
            1 => format!("fma.rn.f32 {}, {}, {}, {};", f(rng), f(rng), f(rng), f(rng)),
            2 => format!("setp.lt.s32 {}|{}, {}, {};", p(rng), p(rng), r(rng), r(rng)),
            3 => format!("ld.global.v4.f32 {{{}, _, {}, {}}}, [{}+16];", f(rng), f(rng), f(rng), rd(rng)),
            4 => format!("st.shared.v2.u32 [sm+8], {{{}, {}}};", r(rng), imm(rng)),
            5 => format!("mov.b64 {{{}, {}}}, {};", r(rng), r(rng), rd(rng)),
            6 => format!("mov.b64 {}, {};", rd(rng), imm(rng)),
            7 => format!("add.f64 {}, {}, {};", fd(rng), fd(rng), imm(rng)),
            8 => format!("mov.u32 {}, %laneid;", r(rng)),
            9 => format!("ld.param.u32 {}, [k_p1];", r(rng)),
            10 => format!("mul.wide.s32 {}, {}, {};", rd(rng), r(rng), imm(rng)),
            11 => format!("bra $L{};", rng.below(3)),
            12 => format!("$L{}:", k % 3 + 1),
            13 => format!("mov.b32 {{%h{}, %h{}}}, {};", rng.below(4), rng.below(4), r(rng)),
            14 => "{ .reg .b32 %r<2>; mov.u32 %r1, 3; }".to_string(),
            15 => format!(
                "{{ .param .b64 pa; st.param.b64 [pa], {}; .param .align 16 .b8 pb[16]; st.param.v4.b32 [pb], {{{}, {}, {}, {}}}; .param .b32 pr; call.uni (pr), g, (pa, pb); ld.param.b32 {}, [pr]; }}",
                rd(rng),
                r(rng),
                r(rng),
                r(rng),
                r(rng),
                r(rng)
            ),
            16 => format!("shfl.sync.bfly.b32 {}|{}, {}, 1, 31, -1;", r(rng), p(rng), r(rng)),
            17 => format!("selp.f32 {}, {}, {}, {};", f(rng), f(rng), imm(rng), p(rng)),
            18 => format!("and.pred {}, {}, !{};", p(rng), p(rng), p(rng)),
            19 => format!("atom.global.add.u32 {}, [{}], {};", r(rng), rd(rng), r(rng)),
            20 => format!("cvt.rn.f32.s32 {}, {};", f(rng), r(rng)),
            _ => "ret;".to_string(),
        };
        s.push_str(&g);
        s.push_str(&line);
        s.push('\n');
    }
    s.push_str("$L1:\n$L2:\n$L3:\n ret;\n}\n");
    s
}

fn run_one(input: &[u8]) -> Result<(), String> {
    std::panic::catch_unwind(|| radbg::fuzzing::import_ptx(input)).map_err(|e| {
        let msg = e.downcast_ref::<String>().cloned().or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()));
        msg.unwrap_or_else(|| "panic".into())
    })
}

#[test]
fn the_importer_survives_mutated_and_generated_ptx() {
    let secs: u64 = std::env::var("RADBG_FUZZ_SECS").ok().and_then(|s| s.parse().ok()).unwrap_or(3);
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ptx");
    let mut seeds: Vec<Vec<u8>> = std::fs::read_dir(&dir)
        .expect("tests/ptx exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "ptx"))
        .filter_map(|p| std::fs::read(p).ok())
        .collect();
    seeds.sort();
    assert!(!seeds.is_empty());
    let seed: u64 = std::env::var("RADBG_FUZZ_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(0);
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ seed.wrapping_mul(0x2545_F491_4F6C_DD1D));
    let current = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/ptx-fuzz-current.ptx");
    let start = Instant::now();
    let mut runs = 0usize;
    while start.elapsed() < Duration::from_secs(secs) || runs < 50 {
        let input = if runs % 4 == 3 {
            soup(&mut rng).into_bytes()
        } else {
            let a = rng.below(seeds.len());
            let b = rng.below(seeds.len());
            mutate(&mut rng, &seeds[a], &seeds[b])
        };
        let _ = std::fs::write(&current, &input);
        let t = Instant::now();
        if let Err(msg) = run_one(&input) {
            let out = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/ptx-fuzz-failure.ptx");
            let _ = std::fs::write(&out, &input);
            panic!("run {runs}: {msg}\n(input written to {})", out.display());
        }
        assert!(t.elapsed() < Duration::from_secs(5), "run {runs} took {:?}", t.elapsed());
        runs += 1;
    }
    eprintln!("ptx fuzz: {runs} inputs in {:?} (seed {seed})", start.elapsed());
}

#[test]
fn the_crash_corpus_imports_clean() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz_crashes/ptx");
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().filter_map(|e| e.ok().map(|e| e.path())).collect();
    files.sort();
    assert!(!files.is_empty());
    for f in files {
        let input = std::fs::read(&f).unwrap();
        if let Err(msg) = run_one(&input) {
            panic!("{}: {msg}", f.display());
        }
    }
}
