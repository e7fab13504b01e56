//! The canonical Ori IR printer: `parse(print(m)) == m` for every module the parser
//! can produce (see `grammar/ori.ebnf`, "Canonical form").
//!
//! It prints program-point numbers (`[N]`), one declaration per `.reg` line, and a
//! `.loc` line wherever the origin changes (origins are one running state through the
//! file: globals, functions, declarations and instructions take the last `.loc`).
//! [`print_inst`] and [`print_operand`] render single lines for the debugger, which
//! adds its own annotations. The printer never panics, even on a module that breaks
//! the model's invariants (a dangling vreg id prints as `%?N`).

use std::fmt::Write;

use crate::ir::abi_spec::*;
use crate::ir::model::*;

/// The module in canonical form.
pub fn print_module(m: &Module) -> String {
    let mut p = Printer { out: String::with_capacity(64 * 1024), loc: None };
    p.module(m);
    p.out
}

/// One function in canonical form (with the module's running `.loc` state reset).
pub fn print_function(f: &Function) -> String {
    let mut p = Printer { out: String::new(), loc: None };
    p.function(f);
    p.out
}

/// One instruction without its program point: `@!%p0 %r1 = IADD3 %r2, -1, 0x10`.
pub fn print_inst(f: &Function, inst: &Inst) -> String {
    let mut s = String::new();
    write_inst(&mut s, f, inst);
    s
}

/// One operand: `%rd0.hi`, `R4`, `[%rd0 + 0x10]`, `c[0x0][0x160]`, `1.5`.
pub fn print_operand(f: &Function, op: &Operand) -> String {
    let mut s = String::new();
    write_operand(&mut s, f, op);
    s
}

/// A register reference as written: `%r3`, `%rd0.lo`, `%q0.2`, `R5`, `PT`.
pub fn print_reg(f: &Function, r: Reg) -> String {
    let mut s = String::new();
    write_reg(&mut s, f, r);
    s
}

struct Printer {
    out: String,
    loc: Option<u32>,
}

impl Printer {
    /// Emits `.loc` when the item's origin differs from the running state.
    fn loc(&mut self, origin: Option<u32>, indent: &str) {
        if origin != self.loc {
            self.loc = origin;
            match origin {
                Some(n) => {
                    let _ = writeln!(self.out, "{indent}.loc {n}");
                }
                None => {
                    let _ = writeln!(self.out, "{indent}.loc none");
                }
            }
        }
    }

    fn module(&mut self, m: &Module) {
        let o = &mut self.out;
        let _ = writeln!(o, ".target {}", m.sm);
        let opts = &m.options;
        if let Some(v) = opts.maxrregcount {
            let _ = writeln!(o, ".option maxrregcount = {v}");
        }
        if let Some(v) = opts.device_function_maxrregcount {
            let _ = writeln!(o, ".option device-function-maxrregcount = {v}");
        }
        if let Some(v) = opts.register_usage_level {
            let _ = writeln!(o, ".option register-usage-level = {v}");
        }
        if opts.warn_on_spills {
            o.push_str(".option warn-on-spills\n");
        }
        if opts.compile_mode != 0 {
            let _ = writeln!(o, ".option compile-mode = {}", opts.compile_mode);
        }
        for k in &m.knobs {
            let key = match &k.key {
                KnobKey::Name(n) => n.clone(),
                KnobKey::Index(i) => i.to_string(),
            };
            let _ = writeln!(o, ".knob {key} = {}", knob_value(&k.value));
        }
        for g in &m.globals {
            self.loc(g.origin, "");
            let _ = writeln!(self.out, ".{} .align {} {}[{}]", g.space.name(), g.align, g.name, g.size);
        }
        for f in &m.functions {
            self.out.push('\n');
            self.function(f);
        }
    }

    fn function(&mut self, f: &Function) {
        self.loc(f.origin, "");
        let kind = match f.kind {
            FuncKind::Entry => "entry",
            FuncKind::Device => "func",
        };
        let o = &mut self.out;
        let _ = writeln!(o, ".{kind} {} {{", f.name);
        if let Some(v) = f.maxnreg {
            let _ = writeln!(o, "  .maxnreg {v}");
        }
        if let Some(v) = f.minnctapersm {
            let _ = writeln!(o, "  .minnctapersm {v}");
        }
        for (name, dims) in [("maxntid", &f.maxntid), ("reqntid", &f.reqntid)] {
            if let Some(d) = dims {
                let list: Vec<String> = d.iter().map(u32::to_string).collect();
                let _ = writeln!(o, "  .{name} {}", list.join(", "));
            }
        }
        if f.coroutine {
            o.push_str("  .coroutine\n");
        }
        if f.allow_reserved_smem {
            o.push_str("  .allow-reserved-smem\n");
        }
        for d in &f.decls {
            self.loc(d.origin, "  ");
            let width = if d.width == 1 { String::new() } else { format!(".x{}", d.width) };
            let count = d.count.map_or(String::new(), |c| format!("<{c}>"));
            let _ = writeln!(self.out, "  .reg .{}{width} {}{count}", d.class.name(), d.prefix);
        }
        let o = &mut self.out;
        for v in &f.vregs {
            if let Some(p) = v.pin {
                let _ = writeln!(o, "  .pin {} = {}", v.name, PhysReg { file: v.class.file(), index: p });
            }
            if let Some(a) = v.alias {
                let _ = writeln!(o, "  .alias {} = {}", v.name, vreg_name(f, a));
            }
            if v.flags != 0 {
                let _ = writeln!(o, "  .flags {} = {:#x}", v.name, v.flags);
            }
        }
        if let Some(abi) = &f.abi {
            write_abi(o, f, abi);
        }
        let mut point = 0u32;
        for b in &f.blocks {
            let _ = writeln!(self.out, "{}:", b.label);
            for inst in &b.insts {
                self.loc(inst.origin, "  ");
                let _ = write!(self.out, "  [{point}] ");
                write_inst(&mut self.out, f, inst);
                self.out.push('\n');
                point += 1;
            }
        }
        self.out.push_str("}\n");
    }
}

fn write_abi(o: &mut String, f: &Function, abi: &AbiSpec) {
    o.push_str("  .abi {\n");
    for (kw, list) in [("param", &abi.params), ("return", &abi.returns)] {
        for v in list {
            let _ = write!(o, "    {kw} {}x{}", v.count, v.size);
            if let Some(a) = v.align {
                let _ = write!(o, " align {a}");
            }
            if let Some(b) = v.bind {
                let _ = write!(o, " = {}", vreg_name(f, b));
            }
            o.push('\n');
        }
    }
    if let Some(ra) = abi.ret_addr {
        let _ = write!(o, "    retaddr {}", ra.mode.name());
        if let Some(r) = ra.reg {
            let file = if ra.mode == RetAddrMode::Uniform { RegFile::UR } else { RegFile::R };
            let _ = write!(o, " {}", PhysReg { file, index: r });
        }
        o.push('\n');
    }
    if abi.ret_addr_before_params {
        o.push_str("    retaddr-before-params\n");
    }
    let r = |index| PhysReg { file: RegFile::R, index };
    if let Some(p) = abi.first_param {
        let _ = writeln!(o, "    first-param {}", r(p));
    }
    match abi.available {
        Some(Available::Count(n)) => {
            let _ = writeln!(o, "    available {n}");
        }
        Some(Available::Computed) => o.push_str("    available computed\n"),
        None => {}
    }
    if let Some((lo, hi)) = abi.reserved {
        let _ = writeln!(o, "    reserved {}", range(RegFile::R, lo, hi));
    }
    if let Some(p) = abi.stack_pointer {
        let _ = writeln!(o, "    stack-pointer {}", r(p));
    }
    if let Some((lo, hi)) = abi.ret_addr_range {
        let _ = writeln!(o, "    retaddr-range {}", range(RegFile::R, lo, hi));
    }
    for (kw, sets) in
        [("preserved", &abi.preserved), ("scratch", &abi.scratch), ("suspend-scratch", &abi.suspend_scratch)]
    {
        for s in sets {
            let list: Vec<String> = s.ranges.iter().map(|&(lo, hi)| range(s.file, lo, hi)).collect();
            let _ = writeln!(o, "    {kw} {} {}", s.file.prefix(), list.join(", "));
        }
    }
    o.push_str("  }\n");
}

fn range(file: RegFile, lo: u16, hi: u16) -> String {
    let p = |index| PhysReg { file, index };
    if lo == hi { p(lo).to_string() } else { format!("{}..{}", p(lo), p(hi)) }
}

fn vreg_name(f: &Function, id: VRegId) -> String {
    match f.vregs.get(id.index()) {
        Some(v) => v.name.to_string(),
        None => format!("%?{}", id.0),
    }
}

fn write_inst(o: &mut String, f: &Function, inst: &Inst) {
    if let Some(g) = inst.guard {
        o.push('@');
        if g.negated {
            o.push('!');
        }
        write_reg(o, f, g.reg);
        o.push(' ');
    }
    let ndefs = (inst.ndefs as usize).min(inst.operands.len());
    for (k, op) in inst.operands[..ndefs].iter().enumerate() {
        if k > 0 {
            o.push_str(", ");
        }
        write_operand(o, f, op);
    }
    if ndefs > 0 {
        o.push_str(" = ");
    }
    o.push_str(inst.op.mnemonic());
    o.push_str(&inst.mods);
    for (k, op) in inst.operands[ndefs..].iter().enumerate() {
        o.push_str(if k == 0 { " " } else { ", " });
        write_operand(o, f, op);
    }
}

fn write_reg(o: &mut String, f: &Function, r: Reg) {
    match r {
        Reg::P(p) => {
            let _ = write!(o, "{p}");
        }
        Reg::V(RegRef { vreg, comp }) => {
            match f.vregs.get(vreg.index()) {
                Some(v) => o.push_str(&v.name),
                None => {
                    let _ = write!(o, "%?{}", vreg.0);
                }
            }
            let wide2 = f.vregs.get(vreg.index()).is_some_and(|v| v.width == 2);
            match comp {
                None => {}
                Some(0) if wide2 => o.push_str(".lo"),
                Some(1) if wide2 => o.push_str(".hi"),
                Some(c) => {
                    let _ = write!(o, ".{c}");
                }
            }
        }
    }
}

fn write_operand(o: &mut String, f: &Function, op: &Operand) {
    match op {
        Operand::Reg(r) => write_reg(o, f, *r),
        Operand::Imm(v) => write_int(o, *v),
        Operand::FImm(bits) => write_float(o, *bits),
        Operand::Mem(m) => write_mem(o, f, m),
        Operand::CBank { bank, offset } => {
            let _ = write!(o, "c[{bank:#x}][{offset:#x}]");
        }
        Operand::Special(s) | Operand::Sym(s) => o.push_str(s),
    }
}

/// Small integers in decimal, large ones (masks, addresses) in hexadecimal.
fn write_int(o: &mut String, v: i64) {
    if (-65535..=65535).contains(&v) {
        let _ = write!(o, "{v}");
    } else if v < 0 {
        let _ = write!(o, "-{:#x}", v.unsigned_abs());
    } else {
        let _ = write!(o, "{v:#x}");
    }
}

/// A float as its shortest decimal when that reads back to the same bits and looks
/// like a float to the parser; otherwise (NaN, infinities, `1e-7`) as `0fXXXXXXXX`.
fn write_float(o: &mut String, bits: u32) {
    let x = f32::from_bits(bits);
    if x.is_finite() {
        let s = format!("{x:?}");
        let digits_ok = s.trim_start_matches('-').starts_with(|c: char| c.is_ascii_digit());
        if digits_ok && s.contains('.') && s.parse::<f32>().is_ok_and(|y| y.to_bits() == bits) {
            o.push_str(&s);
            return;
        }
    }
    let _ = write!(o, "0f{bits:08X}");
}

fn write_mem(o: &mut String, f: &Function, m: &MemRef) {
    o.push('[');
    let mut parts = 0;
    let mut sep = |o: &mut String| {
        if parts > 0 {
            o.push_str(" + ");
        }
        parts += 1;
    };
    if let Some(s) = &m.sym {
        sep(o);
        o.push_str(s);
    }
    if let Some(r) = m.base {
        sep(o);
        write_reg(o, f, r);
    }
    if let Some(r) = m.index {
        sep(o);
        write_reg(o, f, r);
    }
    if m.offset != 0 || parts == 0 {
        if parts == 0 {
            if m.offset < 0 {
                let _ = write!(o, "-{:#x}", m.offset.unsigned_abs());
            } else {
                let _ = write!(o, "{:#x}", m.offset);
            }
        } else if m.offset < 0 {
            let _ = write!(o, " - {:#x}", m.offset.unsigned_abs());
        } else {
            let _ = write!(o, " + {:#x}", m.offset);
        }
    }
    o.push(']');
}

/// A knob value as the parser reads it back.
fn knob_value(v: &KnobValue) -> String {
    match v {
        KnobValue::Int(i) => i.to_string(),
        KnobValue::Float(x) => {
            let s = format!("{x:?}");
            if s.contains(['.', 'e', 'E']) { s } else { format!("{s}.0") }
        }
        KnobValue::Bool(b) => b.to_string(),
        KnobValue::Str(s) => {
            let mut out = String::from("\"");
            for c in s.chars() {
                match c {
                    '"' => out.push_str("\\\""),
                    '\\' => out.push_str("\\\\"),
                    '\n' => out.push_str("\\n"),
                    '\t' => out.push_str("\\t"),
                    '\0' => out.push_str("\\0"),
                    c => out.push(c),
                }
            }
            out.push('"');
            out
        }
    }
}
