//! Random validator-clean modules (see [`crate::ir::arbitrary`]): declared registers
//! of the right classes and widths, aligned pins, acyclic aliases, sensible ABI
//! descriptors, branches to existing labels, calls to existing device functions and
//! terminated functions. Values are defined before they are read along the layout
//! order (registers are initialised in the entry block), so liveness tests get
//! plausible programs; control flow is otherwise random.

use super::arbitrary::{GenConfig, Rng, next_origin};
use crate::ir::abi_spec::*;
use crate::ir::model::*;
use crate::ir::opcode::Opcode;
use crate::ir::sm::Sm;

/// Register groups of a generated function, by role.
struct Regs {
    r: Vec<VRegId>,
    pairs: Vec<VRegId>,
    quads: Vec<VRegId>,
    preds: Vec<VRegId>,
    ur: Vec<VRegId>,
    up: Vec<VRegId>,
}

pub fn module(rng: &mut Rng, cfg: &GenConfig) -> Module {
    let version = *rng.pick(&[75, 80, 86, 89, 90, 100, 120]);
    let mut m = Module {
        sm: Sm { version, suffix: String::new() },
        options: Options {
            maxrregcount: rng.chance(40).then(|| rng.range(16, 255) as u32),
            device_function_maxrregcount: rng.chance(20).then(|| rng.range(16, 255) as u32),
            register_usage_level: rng.chance(20).then(|| rng.range(0, 10) as u32),
            warn_on_spills: rng.chance(30),
            compile_mode: *rng.pick(&[0, 0, 0, 4, 5]),
            // A session setting (`set stage floor off`), not module text.
            budget_floor_off: false,
        },
        ..Module::default()
    };
    for _ in 0..rng.below(3) {
        let info = rng.pick(crate::knobs::CATALOGUE);
        let value = match info.ty {
            crate::knobs::KnobType::Bool => KnobValue::Bool(rng.chance(50)),
            crate::knobs::KnobType::Int { min, max } => {
                let (lo, hi) = (min.max(-(1 << 40)), max.min(1 << 40));
                KnobValue::Int(rng.range(lo, hi))
            }
            crate::knobs::KnobType::Float { min, max } => {
                let x = min + (max - min) * (rng.below(1001) as f64 / 1000.0);
                KnobValue::Float(if x.is_finite() && x >= min && x <= max { x } else { min })
            }
            crate::knobs::KnobType::Str => KnobValue::Str(String::new()),
        };
        let key = match info.index {
            Some(i) if rng.chance(50) => KnobKey::Index(i),
            _ => KnobKey::Name(info.name.to_string()),
        };
        m.knobs.push(KnobSetting { key, value });
    }
    let mut origin = None;
    for k in 0..rng.below(3) {
        m.globals.push(Global {
            space: *rng.pick(&Space::ALL),
            name: format!("g{k}"),
            size: 4 * (1 + rng.below(1024)),
            align: *rng.pick(&[1, 4, 8, 16]),
            origin: next_origin(rng, &mut origin),
        });
    }
    let nf = 1 + rng.below(cfg.max_functions as u64) as usize;
    // Function 0 is the kernel; the rest are device functions it (or they) may call.
    let names: Vec<String> = (0..nf).map(|k| if k == 0 { "kernel".to_string() } else { format!("dev{k}") }).collect();
    for k in 0..nf {
        let f = function(rng, cfg, k, &names, &m, &mut origin);
        m.functions.push(f);
    }
    m
}

fn decl(f: &mut Function, prefix: &str, count: u32, class: RegClass, width: u8, origin: Option<u32>) -> Vec<VRegId> {
    let d = f.decls.len();
    f.decls.push(RegDecl { prefix: prefix.to_string(), count: Some(count), class, width, origin });
    (0..count)
        .map(|i| {
            let mut v = VReg::new(format!("{prefix}{i}"), class, width, d);
            v.origin = origin;
            f.vregs.push(v);
            VRegId::new(f.vregs.len() - 1)
        })
        .collect()
}

fn function(
    rng: &mut Rng,
    cfg: &GenConfig,
    k: usize,
    names: &[String],
    m: &Module,
    origin: &mut Option<u32>,
) -> Function {
    let kind = if k == 0 { FuncKind::Entry } else { FuncKind::Device };
    let mut f = Function::new(names[k].clone(), kind);
    f.origin = next_origin(rng, origin);
    f.maxnreg = rng.chance(20).then(|| rng.range(16, 255) as u32);
    f.minnctapersm = rng.chance(10).then(|| rng.range(1, 8) as u32);
    f.maxntid = rng.chance(30).then(|| (0..1 + rng.below(3)).map(|_| rng.range(1, 1024) as u32).collect());
    f.coroutine = kind == FuncKind::Device && rng.chance(20);
    let scale = 1 + cfg.max_decls as u64;
    let o = next_origin(rng, origin);
    let regs = Regs {
        r: decl(&mut f, "%r", 4 + rng.below(4 * scale) as u32, RegClass::R, 1, o),
        pairs: decl(&mut f, "%rd", 2 + rng.below(scale) as u32, RegClass::R, 2, o),
        quads: decl(&mut f, "%q", 1 + rng.below(2) as u32, RegClass::R, 4, o),
        preds: decl(&mut f, "%p", 1 + rng.below(6) as u32, RegClass::P, 1, o),
        ur: decl(&mut f, "%u", rng.below(4) as u32, RegClass::UR, 1, o),
        up: decl(&mut f, "%up", rng.below(2) as u32, RegClass::UP, 1, o),
    };
    // Pins: aligned, inside the file, never the zero register.
    for &v in regs.r.iter().chain(&regs.pairs).chain(&regs.quads) {
        if rng.chance(5) {
            let w = f.vreg(v).width as u16;
            f.vregs[v.index()].pin = Some(rng.below((250 / w) as u64) as u16 * w);
        }
    }
    for &v in &regs.preds {
        if rng.chance(5) {
            f.vregs[v.index()].pin = Some(rng.below(7) as u16);
        }
    }
    // Aliases point to an earlier register of the same group: no cycles.
    for group in [&regs.r, &regs.pairs] {
        for (i, &v) in group.iter().enumerate().skip(1) {
            if rng.chance(5) {
                f.vregs[v.index()].alias = Some(group[rng.below(i as u64) as usize]);
            }
        }
    }
    for v in 0..f.vregs.len() {
        if rng.chance(5) {
            f.vregs[v].flags = *rng.pick(&[0x200, 0x400, 0x800, 0x4000, 0x40000]);
        }
    }
    if kind == FuncKind::Device && rng.chance(60) {
        f.abi = Some(abi(rng, &f, &regs, m));
    }
    let nb = 1 + rng.below(cfg.max_blocks as u64) as usize;
    let labels: Vec<String> = (0..nb).map(|b| format!("BB{b}")).collect();
    for (b, label) in labels.iter().enumerate() {
        let mut insts = Vec::new();
        if b == 0 {
            init(&mut insts, &regs);
        }
        for _ in 0..rng.below(cfg.max_insts as u64 + 1) {
            insts.push(inst(rng, &f, &regs, names, k, m));
        }
        let last = b + 1 == nb;
        let end = if last {
            Some(if kind == FuncKind::Entry { "EXIT" } else { "RET" })
        } else if rng.chance(40) {
            Some("BRA")
        } else {
            None
        };
        if let Some(op) = end {
            let mut i = Inst::new(Opcode::named(op), vec![], vec![]);
            if op == "BRA" {
                i.operands = Box::new([Operand::Sym(rng.pick(&labels).clone().into())]);
                i.guard = rng
                    .chance(70)
                    .then(|| Guard { reg: Reg::V(RegRef::whole(*rng.pick(&regs.preds))), negated: rng.chance(50) });
            }
            insts.push(i);
        }
        for i in insts.iter_mut() {
            i.origin = next_origin(rng, origin);
        }
        f.blocks.push(Block { label: label.clone(), insts });
    }
    f
}

/// Defines every register once at the top of the entry block.
fn init(insts: &mut Vec<Inst>, regs: &Regs) {
    let zero = || Operand::Reg(Reg::P(PhysReg { file: RegFile::R, index: 255 }));
    for &v in &regs.r {
        insts.push(Inst::new(Opcode::named("MOV"), vec![Operand::vreg(v)], vec![zero()]));
    }
    for (k, &v) in regs.pairs.iter().enumerate() {
        let cb = Operand::CBank { bank: 0, offset: 0x160 + 8 * k as u32 };
        let mut i = Inst::new(Opcode::named("LDC"), vec![Operand::vreg(v)], vec![cb]);
        i.mods = ".64".into();
        insts.push(i);
    }
    for &v in &regs.quads {
        let addr = MemRef { base: Some(Reg::V(RegRef::whole(regs.r[0]))), index: None, sym: None, offset: 0 };
        let mut i = Inst::new(Opcode::named("LDS"), vec![Operand::vreg(v)], vec![Operand::Mem(Box::new(addr))]);
        i.mods = ".128".into();
        insts.push(i);
    }
    let pt = || Operand::Reg(Reg::P(PhysReg { file: RegFile::P, index: 7 }));
    for &v in &regs.preds {
        let mut i = Inst::new(
            Opcode::named("ISETP"),
            vec![Operand::vreg(v)],
            vec![Operand::vreg(regs.r[0]), Operand::Imm(0), pt()],
        );
        i.mods = ".NE.AND".into();
        insts.push(i);
    }
    for &v in &regs.ur {
        let cb = Operand::CBank { bank: 0, offset: 0x200 };
        insts.push(Inst::new(Opcode::named("ULDC"), vec![Operand::vreg(v)], vec![cb]));
    }
    let upt = || Operand::Reg(Reg::P(PhysReg { file: RegFile::UP, index: 7 }));
    for &v in &regs.up {
        let urz = Operand::Reg(Reg::P(PhysReg { file: RegFile::UR, index: 63 }));
        let mut i = Inst::new(Opcode::named("UISETP"), vec![Operand::vreg(v)], vec![urz.clone(), urz, upt()]);
        i.mods = ".EQ.AND".into();
        insts.push(i);
    }
}

fn abi(rng: &mut Rng, f: &Function, regs: &Regs, _m: &Module) -> AbiSpec {
    let value = |rng: &mut Rng, group: &[VRegId]| {
        let v = *rng.pick(group);
        let (count, size) = match f.vreg(v).width {
            1 => (1, 4),
            2 => *rng.pick(&[(1, 8), (2, 4)]),
            _ => *rng.pick(&[(4, 4), (2, 8), (1, 16)]),
        };
        AbiValue {
            count,
            size,
            align: *rng.pick(&[None, Some(4), Some(8), Some(16)]),
            bind: rng.chance(70).then_some(v),
        }
    };
    let params = (0..rng.below(4))
        .map(|_| {
            let g = *rng.pick(&[&regs.r[..], &regs.pairs[..], &regs.quads[..]]);
            value(rng, g)
        })
        .collect();
    let returns = (0..rng.below(2)).map(|_| value(rng, &regs.r)).collect();
    let mode = *rng.pick(&[RetAddrMode::Fixed, RetAddrMode::Regular, RetAddrMode::Uniform, RetAddrMode::Computed]);
    let reg = match mode {
        RetAddrMode::Regular => Some(2 * rng.range(10, 120) as u16),
        RetAddrMode::Uniform => Some(2 * rng.range(1, 30) as u16),
        _ => None,
    };
    let range = |rng: &mut Rng, top: u16| {
        let lo = rng.below(top as u64) as u16;
        (lo, lo + rng.below((top - lo) as u64 + 1) as u16)
    };
    let set = |rng: &mut Rng| {
        let file = *rng.pick(&[RegFile::R, RegFile::UR]);
        let top = if file == RegFile::R { 254 } else { 62 };
        RegSet { file, ranges: (0..1 + rng.below(2)).map(|_| range(rng, top)).collect() }
    };
    AbiSpec {
        params,
        returns,
        ret_addr: Some(RetAddr { mode, reg }),
        ret_addr_before_params: mode == RetAddrMode::Fixed && rng.chance(50),
        first_param: rng.chance(50).then_some(4),
        available: rng
            .chance(50)
            .then(|| if rng.chance(30) { Available::Computed } else { Available::Count(rng.range(24, 255) as u32) }),
        reserved: rng.chance(30).then(|| range(rng, 254)),
        stack_pointer: rng.chance(50).then_some(1),
        ret_addr_range: rng.chance(30).then_some((4, 63)),
        preserved: (0..rng.below(2)).map(|_| set(rng)).collect(),
        scratch: (0..rng.below(2)).map(|_| set(rng)).collect(),
        suspend_scratch: if f.coroutine { (0..rng.below(2)).map(|_| set(rng)).collect() } else { Vec::new() },
    }
}

fn inst(rng: &mut Rng, f: &Function, regs: &Regs, names: &[String], k: usize, m: &Module) -> Inst {
    let r = |rng: &mut Rng| Operand::vreg(*rng.pick(&regs.r));
    let rd = |rng: &mut Rng| Operand::vreg(*rng.pick(&regs.pairs));
    let p = |rng: &mut Rng| Operand::vreg(*rng.pick(&regs.preds));
    let rz = Operand::Reg(Reg::P(PhysReg { file: RegFile::R, index: 255 }));
    let mem = |rng: &mut Rng, base: Operand, sym: Option<&str>| {
        let Operand::Reg(b) = base else { unreachable!("a register") };
        Operand::Mem(Box::new(MemRef {
            base: Some(b),
            index: None,
            sym: sym.map(Into::into),
            offset: 4 * rng.range(-4, 64),
        }))
    };
    let (op, mods, defs, uses): (&str, &str, Vec<Operand>, Vec<Operand>) = match rng.below(17) {
        0 => ("IADD3", "", vec![r(rng)], vec![r(rng), Operand::Imm(rng.range(-100, 100)), rz]),
        1 => ("FFMA", "", vec![r(rng)], vec![r(rng), r(rng), r(rng)]),
        2 => (
            "ISETP",
            ".GE.AND",
            vec![p(rng)],
            vec![r(rng), r(rng), Operand::Reg(Reg::P(PhysReg { file: RegFile::P, index: 7 }))],
        ),
        3 => {
            let base = rd(rng);
            ("LDG", ".E", vec![r(rng)], vec![mem(rng, base, None)])
        }
        4 => {
            let base = rd(rng);
            ("STG", ".E", vec![], vec![mem(rng, base, None), r(rng)])
        }
        5 => ("IMAD", ".WIDE", vec![rd(rng)], vec![r(rng), Operand::Imm(4), rd(rng)]),
        6 => ("DADD", "", vec![rd(rng)], vec![rd(rng), rd(rng)]),
        7 => {
            let q = *rng.pick(&regs.quads);
            ("MOV", "", vec![r(rng)], vec![Operand::Reg(Reg::V(RegRef { vreg: q, comp: Some(rng.below(4) as u8) }))])
        }
        8 => {
            let d = *rng.pick(&regs.pairs);
            ("MOV", "", vec![Operand::Reg(Reg::V(RegRef { vreg: d, comp: Some(rng.below(2) as u8) }))], vec![r(rng)])
        }
        9 => ("S2R", "", vec![r(rng)], vec![Operand::Special("SR_TID.X".into())]),
        10 => ("LDC", "", vec![r(rng)], vec![Operand::CBank { bank: 0, offset: 0x160 + 4 * rng.below(64) as u32 }]),
        11 if !m.globals.is_empty() => {
            let g = rng.pick(&m.globals).name.to_string();
            let base = r(rng);
            ("LDS", "", vec![r(rng)], vec![mem(rng, base, Some(&g))])
        }
        12 => ("P2R", "", vec![r(rng)], vec![p(rng), Operand::Imm(1)]),
        13 if !regs.ur.is_empty() => {
            let u = Operand::vreg(*rng.pick(&regs.ur));
            (
                "UIADD3",
                "",
                vec![u.clone()],
                vec![u, Operand::Imm(1), Operand::Reg(Reg::P(PhysReg { file: RegFile::UR, index: 63 }))],
            )
        }
        14 if k + 1 < names.len() => {
            // Calls go "down" the list (no recursion): dev(k+1).. are the callees.
            let callee = &names[k + 1 + rng.below((names.len() - k - 1) as u64) as usize];
            ("CALL", ".ABS.NOINC", vec![r(rng)], vec![Operand::Sym(callee.clone().into()), r(rng)])
        }
        15 if f.coroutine => (*rng.pick(&["SUSPEND", "RESUME"]), "", vec![], vec![]),
        _ => ("FMUL", "", vec![r(rng)], vec![r(rng), Operand::FImm((rng.range(-64, 64) as f32 / 4.0).to_bits())]),
    };
    let mut i = Inst::new(Opcode::named(op), defs, uses);
    i.mods = mods.into();
    if rng.chance(15) {
        let reg = if !regs.up.is_empty() && rng.chance(20) { *rng.pick(&regs.up) } else { *rng.pick(&regs.preds) };
        i.guard = Some(Guard { reg: Reg::V(RegRef::whole(reg)), negated: rng.chance(50) });
    }
    i
}
