//! Random Ori IR modules for property tests and fuzzing: [`module`] draws any module
//! the printer and parser must round-trip (every syntactic feature, nonsense
//! allowed); with [`GenConfig::valid`] it draws only modules the validator accepts
//! (declared registers of the right class, existing labels, terminated blocks), the
//! input other layers' property tests want.
//!
//! Deterministic: a module is a function of the seed and the configuration, so a
//! failing case is reproduced by its seed. No dependency on proptest (tests wrap
//! the seed in a strategy). Knows the model, not the parser.

use crate::ir::abi_spec::*;
use crate::ir::model::*;
use crate::ir::opcode::{OPCODES, Opcode};
use crate::ir::sm::Sm;

/// SplitMix64: small, fast, good enough for test inputs.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x5DEE_CE66_D1CE_4E5B)
    }
    /// A generator whose state is exactly `state` (no seed mixing), for callers that
    /// fixed their sequences before sharing this type (`synth`, benches).
    pub fn from_state(state: u64) -> Rng {
        Rng(state)
    }
    /// Uniform in `0..n` as an index (0 when `n == 0`).
    pub fn index(&mut self, n: usize) -> usize {
        self.below(n as u64) as usize
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (0 when `n == 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 { 0 } else { self.next_u64() % n }
    }
    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo + 1) as u64) as i64
    }
    /// True with probability `pct`/100.
    pub fn chance(&mut self, pct: u64) -> bool {
        self.below(100) < pct
    }
    pub fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len() as u64) as usize]
    }
}

/// Size and shape of generated modules.
#[derive(Clone, Debug)]
pub struct GenConfig {
    pub max_functions: usize,
    pub max_blocks: usize,
    pub max_insts: usize,
    pub max_decls: usize,
    /// Only modules that parse *and* validate without errors.
    pub valid: bool,
}

impl Default for GenConfig {
    fn default() -> GenConfig {
        GenConfig { max_functions: 3, max_blocks: 5, max_insts: 8, max_decls: 8, valid: false }
    }
}

/// A random module (see the module doc).
pub fn module(rng: &mut Rng, cfg: &GenConfig) -> Module {
    if cfg.valid {
        return super::arbitrary_valid::module(rng, cfg);
    }
    let mut m = Module {
        sm: sm(rng),
        options: Options {
            maxrregcount: rng.chance(30).then(|| rng.range(0, 300) as u32),
            device_function_maxrregcount: rng.chance(20).then(|| rng.range(0, 300) as u32),
            register_usage_level: rng.chance(20).then(|| rng.range(0, 12) as u32),
            warn_on_spills: rng.chance(20),
            compile_mode: if rng.chance(20) { *rng.pick(&[4, 5, 7]) } else { 0 },
            // A session setting (`set stage floor off`), not module text.
            budget_floor_off: false,
        },
        ..Module::default()
    };
    for _ in 0..rng.below(4) {
        let key = if rng.chance(50) {
            KnobKey::Index(rng.range(0, 65535) as u32)
        } else {
            KnobKey::Name(format!(
                "{}{}",
                rng.pick(&["RegAlloc", "Knob_", "x", "Spill-Mode", "radbg.W"]),
                rng.below(100)
            ))
        };
        m.knobs.push(KnobSetting { key, value: knob_value(rng) });
    }
    let mut origin = None;
    for k in 0..rng.below(3) {
        m.globals.push(Global {
            space: *rng.pick(&Space::ALL),
            name: format!("{}{k}", rng.pick(&["smem", "gbuf", "$tab", "c", "lut.x"])),
            size: rng.below(1 << 20),
            align: *rng.pick(&[1, 4, 16, 3]),
            origin: next_origin(rng, &mut origin),
        });
    }
    let nf = 1 + rng.below(cfg.max_functions as u64) as usize;
    for k in 0..nf {
        let f = function(rng, cfg, k, &m, &mut origin);
        m.functions.push(f);
    }
    m
}

pub(super) fn sm(rng: &mut Rng) -> Sm {
    let v = *rng.pick(&[35, 52, 61, 75, 80, 86, 89, 90, 100, 120]);
    Sm { version: v, suffix: rng.pick(&["", "", "a", "f"]).to_string() }
}

fn knob_value(rng: &mut Rng) -> KnobValue {
    match rng.below(4) {
        0 => KnobValue::Int(rng.range(-(1 << 53), 1 << 53)),
        1 => {
            let x = rng.range(-1_000_000, 1_000_000) as f64 / *rng.pick(&[1.0, 7.0, 1e9, 1e-200]);
            KnobValue::Float(x)
        }
        2 => KnobValue::Bool(rng.chance(50)),
        _ => {
            let parts = ["a", " ", "\"", "\\", "\n", "\t", "é", "//", "/*", "x=1", "\0", "}"];
            KnobValue::Str((0..rng.below(5)).map(|_| *rng.pick(&parts)).collect())
        }
    }
}

/// The running `.loc` state: mostly unchanged, sometimes a new line or none.
pub(super) fn next_origin(rng: &mut Rng, cur: &mut Option<u32>) -> Option<u32> {
    match rng.below(10) {
        0 => *cur = None,
        1..=3 => *cur = Some(rng.below(5000) as u32),
        _ => {}
    }
    *cur
}

pub(super) fn phys(rng: &mut Rng, file: RegFile) -> PhysReg {
    PhysReg { file, index: rng.below(file.arch_size() as u64) as u16 }
}

fn function(rng: &mut Rng, cfg: &GenConfig, k: usize, m: &Module, origin: &mut Option<u32>) -> Function {
    let kind = if rng.chance(50) { FuncKind::Entry } else { FuncKind::Device };
    let mut f = Function::new(format!("{}{k}", rng.pick(&["kern", "dev_", "$f", "f.x"])), kind);
    f.origin = next_origin(rng, origin);
    f.maxnreg = rng.chance(30).then(|| rng.range(0, 300) as u32);
    f.minnctapersm = rng.chance(20).then(|| rng.range(0, 32) as u32);
    f.maxntid = rng.chance(20).then(|| (0..1 + rng.below(4)).map(|_| rng.range(0, 1024) as u32).collect());
    f.reqntid = rng.chance(10).then(|| (0..1 + rng.below(3)).map(|_| rng.range(0, 1024) as u32).collect());
    f.coroutine = rng.chance(15);
    f.allow_reserved_smem = rng.chance(15);
    for d in 0..rng.below(cfg.max_decls as u64 + 1) as usize {
        let class = *rng.pick(&RegClass::ALL);
        let width = *rng.pick(&[1u8, 1, 2, 4, 8, 16]);
        let count = rng.chance(60).then(|| rng.below(6) as u32);
        let prefix = match count {
            Some(_) => format!("%{}{d}_", rng.pick(&["r", "rd", "$r", "p", "Q"])),
            None => format!("%{}{d}", rng.pick(&["s", "sp", "x_", "$t"])),
        };
        let dorigin = next_origin(rng, origin);
        let decl = f.decls.len();
        f.decls.push(RegDecl { prefix: prefix.clone(), count, class, width, origin: dorigin });
        let names: Vec<String> = match count {
            None => vec![prefix],
            Some(c) => (0..c).map(|i| format!("{prefix}{i}")).collect(),
        };
        for name in names {
            let mut v = VReg::new(name, class, width, decl);
            v.origin = dorigin;
            f.vregs.push(v);
        }
    }
    let nv = f.vregs.len() as u64;
    for v in 0..f.vregs.len() {
        if rng.chance(15) {
            let file = f.vregs[v].class.file();
            f.vregs[v].pin = Some(phys(rng, file).index);
        }
        if nv > 0 && rng.chance(10) {
            f.vregs[v].alias = Some(VRegId(rng.below(nv) as u32));
        }
        if rng.chance(10) {
            f.vregs[v].flags = rng.next_u64() >> rng.below(64);
        }
    }
    if rng.chance(30) {
        f.abi = Some(abi(rng, nv));
    }
    let nb = rng.below(cfg.max_blocks as u64 + 1) as usize;
    let labels: Vec<String> =
        (0..nb).map(|b| format!("{}{b}", rng.pick(&["BB", "$L__BB0_", "loop.", "_exit"]))).collect();
    for label in &labels {
        let mut insts = Vec::new();
        for _ in 0..rng.below(cfg.max_insts as u64 + 1) {
            insts.push(inst(rng, &f, &labels, m, origin));
        }
        f.blocks.push(Block { label: label.clone(), insts });
    }
    f
}

fn abi_value(rng: &mut Rng, nv: u64) -> AbiValue {
    AbiValue {
        count: rng.range(0, 8) as u32,
        size: *rng.pick(&[1, 2, 4, 8, 16, 3]),
        align: rng.chance(30).then(|| *rng.pick(&[4, 8, 16, 6])),
        bind: (nv > 0 && rng.chance(50)).then(|| VRegId(rng.below(nv) as u32)),
    }
}

fn reg_range(rng: &mut Rng, file: RegFile) -> (u16, u16) {
    (phys(rng, file).index, phys(rng, file).index)
}

fn reg_set(rng: &mut Rng) -> RegSet {
    let file = *rng.pick(&RegFile::ALL);
    RegSet { file, ranges: (0..1 + rng.below(3)).map(|_| reg_range(rng, file)).collect() }
}

fn abi(rng: &mut Rng, nv: u64) -> AbiSpec {
    let mode = *rng.pick(&[RetAddrMode::Fixed, RetAddrMode::Regular, RetAddrMode::Uniform, RetAddrMode::Computed]);
    let file = if mode == RetAddrMode::Uniform { RegFile::UR } else { RegFile::R };
    AbiSpec {
        params: (0..rng.below(4)).map(|_| abi_value(rng, nv)).collect(),
        returns: (0..rng.below(3)).map(|_| abi_value(rng, nv)).collect(),
        ret_addr: rng.chance(60).then(|| RetAddr { mode, reg: rng.chance(50).then(|| phys(rng, file).index) }),
        ret_addr_before_params: rng.chance(30),
        first_param: rng.chance(30).then(|| phys(rng, RegFile::R).index),
        available: rng
            .chance(40)
            .then(|| if rng.chance(30) { Available::Computed } else { Available::Count(rng.range(0, 255) as u32) }),
        reserved: rng.chance(30).then(|| reg_range(rng, RegFile::R)),
        stack_pointer: rng.chance(30).then(|| phys(rng, RegFile::R).index),
        ret_addr_range: rng.chance(30).then(|| reg_range(rng, RegFile::R)),
        preserved: (0..rng.below(3)).map(|_| reg_set(rng)).collect(),
        scratch: (0..rng.below(3)).map(|_| reg_set(rng)).collect(),
        suspend_scratch: (0..rng.below(2)).map(|_| reg_set(rng)).collect(),
    }
}

fn reg(rng: &mut Rng, f: &Function) -> Reg {
    if f.vregs.is_empty() || rng.chance(20) {
        let file = *rng.pick(&RegFile::ALL);
        return Reg::P(phys(rng, file));
    }
    let v = rng.below(f.vregs.len() as u64) as u32;
    let comp = rng.chance(20).then(|| rng.below(18) as u8);
    Reg::V(RegRef { vreg: VRegId(v), comp })
}

fn operand(rng: &mut Rng, f: &Function, labels: &[String], m: &Module) -> Operand {
    match rng.below(10) {
        0..=3 => Operand::Reg(reg(rng, f)),
        4 => Operand::Imm(rng.range(crate::ir::parse::lex::IMM_MIN, crate::ir::parse::lex::IMM_MAX)),
        5 => Operand::Imm(rng.range(-300, 300)),
        6 => Operand::FImm(if rng.chance(50) {
            (rng.range(-1000, 1000) as f32 / 8.0).to_bits()
        } else {
            rng.next_u64() as u32
        }),
        7 => {
            let base = rng.chance(70).then(|| reg(rng, f));
            let index = if base.is_some() && rng.chance(30) { Some(reg(rng, f)) } else { None };
            let sym = rng.chance(20).then(|| sym(rng, labels, m).into());
            let offset = if rng.chance(50) { rng.range(-64, 4096) } else { 0 };
            Operand::Mem(Box::new(MemRef { base, index, sym, offset }))
        }
        8 => {
            if rng.chance(50) {
                Operand::CBank { bank: rng.below(256) as u8, offset: rng.next_u64() as u32 }
            } else {
                Operand::Special(rng.pick(&["SR_TID.X", "SR_CTAID.Y", "SR_LANEID", "SR_CLOCKLO"]).to_string().into())
            }
        }
        _ => Operand::Sym(sym(rng, labels, m).into()),
    }
}

fn sym(rng: &mut Rng, labels: &[String], m: &Module) -> String {
    match rng.below(3) {
        0 if !labels.is_empty() => rng.pick(labels).clone(),
        1 if !m.globals.is_empty() => rng.pick(&m.globals).name.to_string(),
        _ => rng.pick(&["foo", "c", "$L__x", "vprintf", "R2P", "BB"]).to_string(),
    }
}

fn inst(rng: &mut Rng, f: &Function, labels: &[String], m: &Module, origin: &mut Option<u32>) -> Inst {
    let op = if rng.chance(90) {
        Opcode::known(rng.below(OPCODES.len() as u64) as u16)
    } else {
        Opcode::unknown(rng.pick::<&str>(&["FROB", "XYZ_2", "QQ9"]))
    };
    let nmods = rng.below(3);
    let mods: String =
        (0..nmods).map(|_| format!(".{}", rng.pick(&["WIDE", "U32", "64", "E", "GE", "AND", "x_1", "lo"]))).collect();
    let ndefs = rng.below(3) as usize;
    let nuses = rng.below(4) as usize;
    let operands: Box<[Operand]> = (0..ndefs + nuses).map(|_| operand(rng, f, labels, m)).collect();
    let guard = rng.chance(20).then(|| Guard { reg: reg(rng, f), negated: rng.chance(50) });
    Inst { guard, op, mods: mods.into(), operands, ndefs: ndefs as u8, origin: next_origin(rng, origin) }
}

/// The property every module from [`module`] has: what the printer writes, the
/// parser reads back equal. Returns the printed text and a description of the first
/// difference, if any.
pub fn round_trip(m: &Module) -> Result<String, String> {
    let text = crate::ir::print::print_module(m);
    let file = crate::ir::span::SourceFile::new("<printed>", text.clone());
    let (m2, _, diags) = crate::ir::parse::parse_module(&file);
    if let Some(d) = diags.iter().find(|d| d.is_error()) {
        return Err(format!("printed module does not parse:\n{}\n{text}", d.render(&file)));
    }
    if &m2 != m {
        let a = format!("{m:#?}");
        let b = format!("{m2:#?}");
        let diff = similar::TextDiff::from_lines(&a, &b);
        let shown: String = diff
            .iter_all_changes()
            .filter(|c| c.tag() != similar::ChangeTag::Equal)
            .take(20)
            .map(|c| format!("{}{}", c.tag(), c))
            .collect();
        return Err(format!("round trip changed the module:\n{shown}\n--- printed:\n{text}"));
    }
    Ok(text)
}
