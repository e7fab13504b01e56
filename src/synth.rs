//! A deterministic generator of large, realistic-looking kernels for benchmarks and
//! stress tests: thousands of vregs, nested loops, if/else diamonds, pairs and quads,
//! predicates and predicated instructions, uniform registers, loads, stores and
//! branches. The same configuration always yields the same module (a splitmix64 PRNG;
//! no `rand`).
//!
//! Owns nothing but generation: it builds `ir::model` values directly and knows no
//! analysis. The register-pressure knob is `SynthConfig::max_live`: the generator keeps
//! a pool of that many values "in flight" and reads its operands from it, so roughly
//! that many 32-bit values are live at once.

use crate::ir::arbitrary::Rng;
use crate::ir::model::{
    Block, FuncKind, Function, Guard, Inst, MemRef, Module, Operand, PhysReg, Reg, RegClass, RegDecl, RegFile, RegRef,
    VReg, VRegId,
};
use crate::ir::opcode::Opcode;
use crate::ir::sm::Sm;

/// Bound on structural nesting (loops and diamonds) so generation recursion stays shallow.
const MAX_NEST: u32 = 8;

/// What to generate.
#[derive(Clone, Debug, PartialEq)]
pub struct SynthConfig {
    /// Instructions to generate: the result has at least this many, and a few dozen more
    /// at most (open loops and diamonds are closed after the budget runs out).
    pub insts: usize,
    /// 32-bit R vregs; a tenth as many pairs, a fiftieth as many quads, plus 16
    /// predicates and 32 uniform registers.
    pub vregs: usize,
    /// Values kept in flight: the target register pressure (in vregs).
    pub max_live: usize,
    /// Maximum loop nesting depth.
    pub loop_depth: u32,
    /// Average straight-line block length.
    pub block_len: usize,
    pub seed: u64,
}

impl SynthConfig {
    /// The defaults for `insts` instructions: `insts / 20` R vregs (at least 64, at most
    /// 20000), 48 values in flight, loops nested up to 3 deep, blocks of about 24.
    pub fn new(insts: usize, seed: u64) -> SynthConfig {
        SynthConfig { insts, vregs: (insts / 20).clamp(64, 20_000), max_live: 48, loop_depth: 3, block_len: 24, seed }
    }
}

/// A kernel of about `insts` instructions with the default configuration.
pub fn synthetic_kernel(insts: usize, seed: u64) -> Module {
    synthetic_kernel_with(SynthConfig::new(insts, seed))
}

/// A kernel generated from `cfg`.
pub fn synthetic_kernel_with(cfg: SynthConfig) -> Module {
    let mut g = Gen::new(&cfg);
    g.entry();
    while g.count < cfg.insts.saturating_sub(1) {
        g.region(cfg.insts - 1, 0, 0);
    }
    g.inst(Inst::new(Opcode::named("EXIT"), vec![], vec![]));
    let f = g.f;
    let mut m = Module { sm: Sm::new(90), ..Module::default() };
    m.functions.push(f);
    m
}

struct Gen {
    f: Function,
    rng: Rng,
    count: usize,
    labels: usize,
    block_len: usize,
    max_depth: u32,
    // Vreg id ranges per kind.
    r: (usize, usize),
    rd: (usize, usize),
    q: (usize, usize),
    p: (usize, usize),
    ur: (usize, usize),
    /// Values in flight (32-bit R vregs), most recent last.
    pool: Vec<VRegId>,
    max_live: usize,
    /// Pairs holding addresses.
    addrs: Vec<VRegId>,
    /// Uniform registers defined so far (read only once defined).
    urs: Vec<VRegId>,
    next_r: usize,
}

fn reg(v: VRegId) -> Operand {
    Operand::vreg(v)
}

fn comp(v: VRegId, c: u8) -> Operand {
    Operand::Reg(Reg::V(RegRef { vreg: v, comp: Some(c) }))
}

fn rz() -> Operand {
    Operand::Reg(Reg::P(PhysReg { file: RegFile::R, index: 255 }))
}

fn pt() -> Operand {
    Operand::Reg(Reg::P(PhysReg { file: RegFile::P, index: 7 }))
}

fn mem(base: VRegId, offset: i64) -> Operand {
    Operand::Mem(Box::new(MemRef { base: Some(Reg::V(RegRef::whole(base))), index: None, sym: None, offset }))
}

fn op(name: &str, mods: &str, defs: Vec<Operand>, uses: Vec<Operand>) -> Inst {
    let mut i = Inst::new(Opcode::named(name), defs, uses);
    i.mods = mods.into();
    i
}

impl Gen {
    fn new(cfg: &SynthConfig) -> Gen {
        let mut f = Function::new("synth", FuncKind::Entry);
        let nr = cfg.vregs.max(8);
        let decl = |f: &mut Function, prefix: &str, n: usize, class: RegClass, width: u8| {
            let d = f.decls.len();
            f.decls.push(RegDecl { prefix: prefix.to_string(), count: Some(n as u32), class, width, origin: None });
            let start = f.vregs.len();
            for i in 0..n {
                f.vregs.push(VReg::new(format!("{prefix}{i}"), class, width, d));
            }
            (start, start + n)
        };
        let r = decl(&mut f, "%r", nr, RegClass::R, 1);
        let rd = decl(&mut f, "%rd", (nr / 10).max(4), RegClass::R, 2);
        let q = decl(&mut f, "%q", (nr / 50).max(2), RegClass::R, 4);
        let p = decl(&mut f, "%p", 16, RegClass::P, 1);
        let ur = decl(&mut f, "%ur", 32, RegClass::UR, 1);
        f.blocks.push(Block { label: "BB0".to_string(), insts: Vec::new() });
        Gen {
            f,
            rng: Rng::from_state(cfg.seed ^ 0x005E_ED0F_A11A),
            count: 0,
            labels: 1,
            block_len: cfg.block_len.max(2),
            max_depth: cfg.loop_depth,
            r,
            rd,
            q,
            p,
            ur,
            pool: Vec::new(),
            max_live: cfg.max_live.max(2),
            addrs: Vec::new(),
            urs: Vec::new(),
            next_r: 0,
        }
    }

    fn pick(&mut self, range: (usize, usize)) -> VRegId {
        VRegId::new(range.0 + self.rng.index(range.1 - range.0))
    }

    fn inst(&mut self, i: Inst) {
        self.f.blocks.last_mut().expect("a block").insts.push(i);
        self.count += 1;
    }

    fn new_block(&mut self) -> String {
        let label = format!("BB{}", self.labels);
        self.labels += 1;
        self.f.blocks.push(Block { label: label.clone(), insts: Vec::new() });
        label
    }

    fn start_block(&mut self, label: &str) {
        self.f.blocks.push(Block { label: label.to_string(), insts: Vec::new() });
    }

    fn fresh_label(&mut self) -> String {
        let label = format!("BB{}", self.labels);
        self.labels += 1;
        label
    }

    /// A fresh R vreg to define (round robin: vregs are reused, like non-SSA code).
    fn def_r(&mut self) -> VRegId {
        let n = self.r.1 - self.r.0;
        let v = VRegId::new(self.r.0 + self.next_r % n);
        self.next_r += 1 + self.rng.index(3);
        v
    }

    /// An operand value from the pool, biased toward recent values.
    fn use_r(&mut self) -> Operand {
        if self.pool.is_empty() {
            return Operand::Imm(self.rng.index(100) as i64);
        }
        let n = self.pool.len();
        let k = if self.rng.chance(70) { n - 1 - self.rng.index(n.min(8)) } else { self.rng.index(n) };
        reg(self.pool[k])
    }

    fn push_pool(&mut self, v: VRegId) {
        if let Some(i) = self.pool.iter().position(|&x| x == v) {
            self.pool.remove(i);
        }
        self.pool.push(v);
        if self.pool.len() > self.max_live {
            let k = self.rng.index(self.pool.len() / 2 + 1);
            self.pool.remove(k);
        }
    }

    fn addr(&mut self) -> VRegId {
        if self.addrs.is_empty() || self.rng.chance(5) {
            let a = self.pick(self.rd);
            let off = 0x160 + 8 * self.rng.index(16) as u32;
            self.inst(op("LDC", ".64", vec![reg(a)], vec![Operand::CBank { bank: 0, offset: off }]));
            self.addrs.push(a);
            if self.addrs.len() > 6 {
                self.addrs.remove(0);
            }
        }
        self.addrs[self.rng.index(self.addrs.len())]
    }

    fn entry(&mut self) {
        let t = self.def_r();
        self.inst(op("S2R", "", vec![reg(t)], vec![Operand::Special("SR_TID.X".into())]));
        self.push_pool(t);
        let u = VRegId::new(self.ur.0);
        self.inst(op("ULDC", "", vec![reg(u)], vec![Operand::CBank { bank: 0, offset: 0x150 }]));
        self.urs.push(u);
        for _ in 0..4 {
            let a = self.addr();
            let v = self.def_r();
            self.inst(op("LDG", ".E", vec![reg(v)], vec![mem(a, 0)]));
            self.push_pool(v);
        }
    }

    /// One straight-line instruction of a random kind.
    fn body_inst(&mut self) {
        let k = self.rng.index(100);
        match k {
            0..=39 => {
                let d = self.def_r();
                let (a, b) = (self.use_r(), self.use_r());
                let name = ["IADD3", "FFMA", "IMAD", "LOP3"][self.rng.index(4)];
                self.inst(op(name, "", vec![reg(d)], vec![a, b, rz()]));
                self.push_pool(d);
            }
            40..=47 => {
                let d = self.def_r();
                let a = self.addr();
                let off = 4 * self.rng.index(64) as i64;
                self.inst(op("LDG", ".E", vec![reg(d)], vec![mem(a, off)]));
                self.push_pool(d);
            }
            48..=53 => {
                let a = self.addr();
                let v = self.use_r();
                let off = 4 * self.rng.index(64) as i64;
                self.inst(op("STG", ".E", vec![mem(a, off)], vec![v]));
            }
            54..=59 => {
                // A pair: loaded, combined, and consumed by halves.
                let d = self.pick(self.rd);
                let a = self.addr();
                self.inst(op("LDG", ".E.64", vec![reg(d)], vec![mem(a, 8)]));
                let e = self.pick(self.rd);
                self.inst(op("DADD", "", vec![reg(e)], vec![reg(d), reg(d)]));
                let r = self.def_r();
                self.inst(op("IADD3", "", vec![reg(r)], vec![comp(e, 0), comp(e, 1), rz()]));
                self.push_pool(r);
            }
            60..=63 => {
                // A quad.
                let qv = self.pick(self.q);
                let a = self.addr();
                self.inst(op("LDG", ".E.128", vec![reg(qv)], vec![mem(a, 16)]));
                let r = self.def_r();
                let c = self.rng.index(4) as u8;
                let x = self.use_r();
                self.inst(op("FFMA", "", vec![reg(r)], vec![comp(qv, c), comp(qv, 3 - c), x]));
                self.push_pool(r);
            }
            64..=71 => {
                // A predicate and a predicated move.
                let p = self.pick(self.p);
                let (a, b) = (self.use_r(), self.use_r());
                self.inst(op("ISETP", ".GE.AND", vec![reg(p)], vec![a, b, pt()]));
                // A select: an unconditional def, then a predicated overwrite (which does
                // not end the first value's range).
                let d = self.def_r();
                let x = self.use_r();
                self.inst(op("MOV", "", vec![reg(d)], vec![x]));
                let y = self.use_r();
                let mut i = op("MOV", "", vec![reg(d)], vec![y]);
                i.guard = Some(Guard { reg: Reg::V(RegRef::whole(p)), negated: self.rng.chance(50) });
                self.inst(i);
                self.push_pool(d);
            }
            72..=77 => {
                let u = self.pick(self.ur);
                let w = self.urs[self.rng.index(self.urs.len())];
                self.inst(op("UIADD3", "", vec![reg(u)], vec![reg(w), Operand::Imm(1), Operand::Imm(0)]));
                if !self.urs.contains(&u) {
                    self.urs.push(u);
                }
                let d = self.def_r();
                let x = self.use_r();
                self.inst(op("IADD3", "", vec![reg(d)], vec![x, reg(u), rz()]));
                self.push_pool(d);
            }
            _ => {
                let d = self.def_r();
                let x = self.use_r();
                self.inst(op("MOV", "", vec![reg(d)], vec![x]));
                self.push_pool(d);
            }
        }
    }

    fn straight(&mut self, limit: usize) {
        let n = (self.block_len / 2 + self.rng.index(self.block_len)).max(1);
        for _ in 0..n {
            if self.count >= limit {
                break;
            }
            self.body_inst();
        }
    }

    fn cond(&mut self) -> Guard {
        let p = self.pick(self.p);
        let (a, b) = (self.use_r(), self.use_r());
        self.inst(op("ISETP", ".LT.AND", vec![reg(p)], vec![a, b, pt()]));
        Guard { reg: Reg::V(RegRef::whole(p)), negated: self.rng.chance(30) }
    }

    fn branch(&mut self, guard: Option<Guard>, target: &str) {
        let mut i = op("BRA", "", vec![], vec![Operand::Sym(target.into())]);
        i.guard = guard;
        self.inst(i);
    }

    /// A sequence of constructs until `limit` instructions or a random stop. `depth` is
    /// the loop depth, `nest` the structural nesting (bounded so recursion stays shallow).
    fn region(&mut self, limit: usize, depth: u32, nest: u32) {
        let pieces = 1 + self.rng.index(4);
        for _ in 0..pieces {
            if self.count >= limit {
                return;
            }
            let k = self.rng.index(10);
            if k < 3 && depth < self.max_depth && nest < MAX_NEST {
                self.looped(limit, depth, nest);
            } else if k < 5 && nest < MAX_NEST {
                self.diamond(limit, depth, nest);
            } else {
                self.straight(limit);
            }
        }
    }

    fn looped(&mut self, limit: usize, depth: u32, nest: u32) {
        // An induction variable carried around the loop, initialised before it.
        let iv = self.def_r();
        self.inst(op("MOV", "", vec![reg(iv)], vec![Operand::Imm(0)]));
        self.new_block();
        let header = self.f.blocks.last().map(|b| b.label.clone()).unwrap_or_default();
        self.straight(limit);
        self.region(limit, depth + 1, nest + 1);
        self.inst(op("IADD3", "", vec![reg(iv)], vec![reg(iv), Operand::Imm(1), rz()]));
        let g = self.cond();
        self.branch(Some(g), &header);
        self.push_pool(iv);
        self.new_block();
    }

    fn diamond(&mut self, limit: usize, depth: u32, nest: u32) {
        let g = self.cond();
        let els = self.fresh_label();
        let join = self.fresh_label();
        self.branch(Some(g), &els);
        // Values defined on one arm are not defined on the other, nor after the join:
        // each arm starts from, and the join returns to, the values in flight before.
        let saved = (self.pool.clone(), self.addrs.clone(), self.urs.clone());
        self.new_block();
        self.region(limit, depth, nest + 1);
        self.branch(None, &join);
        (self.pool, self.addrs, self.urs) = saved.clone();
        self.start_block(&els);
        self.region(limit, depth, nest + 1);
        (self.pool, self.addrs, self.urs) = saved;
        self.start_block(&join);
    }
}
