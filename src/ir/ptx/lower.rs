//! Lowering one PTX function body to Ori IR: the per-function machinery (scopes,
//! declarations, labels and blocks, emission with provenance); the module level is
//! `module`.
//!
//! Owns: name resolution with PTX scoping (registers declared in nested `{ }` shadow
//! outer ones and get a unique suffix), block formation, and the bookkeeping of
//! parameters. Must not know: the mapping of individual instructions (`inst`,
//! `operand`, `ops`) or anything after import.
//!
//! Blocks: a label starts a block; so does the instruction after a branch (guarded or
//! not), `exit` or `ret`, under a generated label `BBn`. The entry block is generated
//! when the body starts with a label that something branches to, so the entry never
//! has predecessors. Every instruction's `origin` is its PTX line; every vreg's is the
//! line of its `.reg` (or of the instruction that needed a temporary).

use super::abi;
use super::ast::{self, FuncKind as AstKind, Pos, StateSpace, Stmt, Ty, TyKind, VarDecl};
pub(super) use super::names::NameMap;
use super::names::{self, LineIndex, Unique};
use crate::ir::diag::Diagnostic;
use crate::ir::model::*;
use crate::ir::opcode::{Opcode, props};
use crate::ir::sm::Sm;
use crate::ir::span::{BlockSpans, FunctionSpans, InstSpans, Span};

/// A register binding: the vreg and the PTX type it was declared with.
#[derive(Clone, Copy, Debug)]
pub(super) struct RegInfo {
    pub vreg: VRegId,
    pub ty: Ty,
    pub vec: u8,
}

/// What a PTX name in scope stands for.
#[derive(Clone, Debug)]
pub(super) enum Binding {
    Reg(RegInfo),
    /// A `.param` carried in registers: an index into `Fx::params`.
    Param(usize),
    /// A kernel parameter: its offset in the parameter constant bank, size and alignment.
    Kernel {
        offset: u64,
        bytes: u64,
        align: u64,
    },
    /// A variable (hoisted to module scope): its Ori symbol.
    Var(String),
}

/// A parameter in registers: a device function's own parameter or return value, or a
/// call site's argument/return `.param`. Pieces are created on first use for call
/// sites (named by role), eagerly for the function's own.
#[derive(Clone, Debug)]
pub(super) struct ParamSlot {
    pub bytes: u64,
    pub elem: u64,
    pub align: u64,
    pub scalar: bool,
    pub line: u32,
    /// (vreg, width, byte offset, bytes) per piece.
    pub pieces: Vec<(VRegId, u8, u64, u64)>,
}

/// One scope level: single names and `%r<N>` ranges (resolved by splitting digits,
/// so a 100 000-register range costs one entry).
#[derive(Default)]
pub(super) struct Scope<'a> {
    pub singles: NameMap<&'a str, Binding>,
    pub ranges: NameMap<&'a str, (VRegId, u32, Ty, u8)>,
}

/// Module-wide state shared by the functions.
pub(super) struct ModState<'a> {
    pub sm: Sm,
    pub addr64: bool,
    pub funcs: NameMap<&'a str, String>,
    pub globals_by_name: NameMap<&'a str, String>,
    pub globals: Vec<Global>,
    /// Per global: the span of its name in the PTX.
    pub global_spans: Vec<Span>,
    pub symbols: Unique,
    /// Errors and warnings reported so far (see [`MAX_ERRORS`]).
    pub errors: usize,
    pub warnings: usize,
    /// Stub functions standing for call prototypes (indirect calls), by Ori name.
    pub proto_stubs: Vec<Function>,
    pub proto_stub_names: NameMap<String, String>,
}

/// The function being lowered.
pub(super) struct Fx<'a, 'm> {
    pub src: &'a str,
    pub lines: &'m LineIndex,
    pub ms: &'m mut ModState<'a>,
    pub diags: &'m mut Vec<Diagnostic>,
    pub f: Function,
    pub kind: AstKind,
    pub scopes: Vec<Scope<'a>>,
    pub vnames: Unique,
    pub labels: NameMap<&'a str, String>,
    /// Every Ori label of the function (PTX labels and generated ones).
    pub label_names: Unique,
    /// `.branchtargets` and `.calltargets` lists by label.
    pub tables: NameMap<&'a str, Vec<(&'a str, Pos)>>,
    /// `.callprototype`s by label.
    pub protos: NameMap<&'a str, &'a Stmt<'a>>,
    /// Parameters whose address is taken, as module variables (by PTX name).
    pub param_globals: NameMap<&'a str, String>,
    pub params: Vec<ParamSlot>,
    /// Own return values (indices into `params`), read by `ret`.
    pub rets: Vec<usize>,
    /// Own return values in `.reg` space (old-style), read by `ret`.
    pub ret_regs: Vec<VRegId>,
    /// The current block takes no more instructions (after a branch or exit).
    pub closed: bool,
    pub line: u32,
    pub counters: NameMap<&'static str, u32>,
    pub label_counter: u32,
    /// Spans into the PTX of everything emitted (the validator reports through them).
    pub spans: FunctionSpans,
    /// Spans of the statement being lowered, stamped on what it emits.
    pub cur: InstSpans,
    /// Each Ori mnemonic's opcode, looked up once per function: the table's binary search
    /// by name per instruction was 2 % of importing the scale kernel (issue 25).
    pub opcodes: NameMap<String, crate::ir::opcode::Opcode>,
    /// The generic path's lowering of each (opcode, modifier text) seen
    /// (`inst::Shape`).
    pub shapes: NameMap<(&'a str, &'a str), std::rc::Rc<super::inst::Shape<'a>>>,
    /// Registers holding a kernel parameter's address plus a constant
    /// (`super::paramptr`): a parameter load through one reads the bank.
    pub param_ptrs: NameMap<&'a str, (&'a str, i64)>,
}

impl<'a, 'm> Fx<'a, 'm> {
    pub fn error(&mut self, pos: Pos, msg: impl Into<String>) {
        self.ms.errors += 1;
        if self.ms.errors > MAX_ERRORS {
            return;
        }
        let len = names::token_len(self.src, pos);
        let mut d = Diagnostic::error(span(pos, pos + len), msg);
        if self.ms.errors == MAX_ERRORS {
            d = d.with_help(format!("stopping after {MAX_ERRORS} errors"));
        }
        self.diags.push(d);
    }

    pub fn warn(&mut self, pos: Pos, msg: impl Into<String>) {
        self.ms.warnings += 1;
        if self.ms.warnings > MAX_ERRORS {
            return;
        }
        let len = names::token_len(self.src, pos);
        self.diags.push(Diagnostic::warning(span(pos, pos + len), msg));
    }

    pub fn line_of(&self, pos: Pos) -> u32 {
        self.lines.line(pos)
    }

    /// Appends an instruction to the current block (opening a generated block after
    /// a branch or exit), stamped with the current PTX line.
    pub fn emit(&mut self, mut inst: Inst) {
        inst.origin = Some(self.line);
        if self.closed || self.f.blocks.is_empty() {
            let label = self.fresh_label();
            let at = self.cur.span.lo;
            self.push_block(label, span(at, at));
            self.closed = false;
        }
        let info = inst.info();
        let ends = info.is(props::BRANCH) || info.is(props::EXIT);
        self.f.blocks.last_mut().expect("a block was opened").insts.push(inst);
        self.spans.insts.push(self.cur);
        if ends {
            self.closed = true;
        }
    }

    /// Opens a block (and its span).
    pub fn push_block(&mut self, label: String, at: Span) {
        self.f.blocks.push(Block { label, insts: Vec::new() });
        self.spans.blocks.push(BlockSpans { label: at, first_inst: self.spans.insts.len() as u32 });
    }

    pub fn fresh_label(&mut self) -> String {
        loop {
            let l = format!("BB{}", self.label_counter);
            self.label_counter += 1;
            if !self.label_names.contains(&l) {
                self.label_names.insert(&l);
                return l;
            }
        }
    }

    /// A fresh temporary vreg named `%{stem}{N}`.
    pub fn temp(&mut self, stem: &'static str, class: RegClass, width: u8) -> VRegId {
        let n = self.counters.entry(stem).or_insert(0);
        let mut name = format!("%{stem}{n}");
        *n += 1;
        while self.vnames.contains(&name) {
            let n = self.counters.entry(stem).or_insert(0);
            name = format!("%{stem}{n}");
            *n += 1;
        }
        self.vnames.insert(&name);
        self.add_single(name, class, width)
    }

    fn add_single(&mut self, name: String, class: RegClass, width: u8) -> VRegId {
        let at = span(self.cur.span.lo, self.cur.span.lo);
        self.spans.decls.push(at);
        self.spans.vregs.push(at);
        let id = self.f.add_vreg(name, class, width);
        self.f.decls.last_mut().expect("just added").origin = Some(self.line);
        self.f.vregs[id.index()].origin = Some(self.line);
        id
    }

    /// Resolves a name through the scopes, innermost first.
    pub fn lookup(&self, name: &str) -> Option<Binding> {
        // `%r12` may be element 12 of a range `%r` (or element 2 of `%r1`).
        let bytes = name.as_bytes();
        let mut k = bytes.len();
        while k > 0 && bytes[k - 1].is_ascii_digit() {
            k -= 1;
        }
        for s in self.scopes.iter().rev() {
            // One scope cannot declare a name twice, so ranges and singles of a scope
            // never overlap: probing ranges first saves a miss for range members.
            let mut split = k;
            while split < bytes.len() && !s.ranges.is_empty() {
                let digits = &name[split..];
                if (digits.len() == 1 || !digits.starts_with('0'))
                    && let Some(&(first, count, ty, vec)) = s.ranges.get(&name[..split])
                    && let Ok(i) = digits.parse::<u32>()
                    && i < count
                {
                    return Some(Binding::Reg(RegInfo { vreg: VRegId(first.0 + i), ty, vec }));
                }
                split += 1;
            }
            if let Some(b) = s.singles.get(name) {
                return Some(b.clone());
            }
        }
        None
    }

    /// Declares `.reg` names in the current scope.
    pub fn declare_regs(&mut self, d: &VarDecl<'a>) {
        let line = self.line_of(d.pos);
        let Some((class, width)) = reg_shape(d.ty, d.vec) else {
            self.error(d.pos, format!("a register of {} bits is wider than 512", u32::from(d.ty.bits) * d.vec as u32));
            return;
        };
        for n in &d.names {
            if !n.dims.is_empty() {
                self.error(n.pos, "registers cannot be arrays");
                continue;
            }
            let base = names::vreg_base(n.name);
            match n.range {
                Some(count) => {
                    if count as u64 > MAX_RANGE || self.f.vregs.len() + count as usize > MAX_VREGS {
                        self.error(n.pos, format!("too many registers: at most {MAX_VREGS} per function"));
                        continue;
                    }
                    let prefix = self.vnames.claim_range(&base, count);
                    let decl = self.f.decls.len();
                    let at = span(n.pos, n.pos + n.name.len() as u32);
                    self.spans.decls.push(at);
                    self.spans.vregs.extend(std::iter::repeat_n(at, count as usize));
                    self.f.decls.push(RegDecl {
                        prefix: prefix.clone(),
                        count: Some(count),
                        class,
                        width,
                        origin: Some(line),
                    });
                    let first = VRegId::new(self.f.vregs.len());
                    for i in 0..count {
                        let mut v = VReg::new(names::indexed(&prefix, i), class, width, decl);
                        v.origin = Some(line);
                        self.f.vregs.push(v);
                    }
                    self.scopes.last_mut().expect("a scope").ranges.insert(n.name, (first, count, d.ty, d.vec));
                }
                None => {
                    if self.f.vregs.len() + 1 > MAX_VREGS {
                        self.error(n.pos, format!("too many registers: at most {MAX_VREGS} per function"));
                        continue;
                    }
                    let name = self.vnames.claim(&base);
                    let decl = self.f.decls.len();
                    let at = span(n.pos, n.pos + n.name.len() as u32);
                    self.spans.decls.push(at);
                    self.spans.vregs.push(at);
                    self.f.decls.push(RegDecl { prefix: name.clone(), count: None, class, width, origin: Some(line) });
                    let id = VRegId::new(self.f.vregs.len());
                    let mut v = VReg::new(name, class, width, decl);
                    v.origin = Some(line);
                    self.f.vregs.push(v);
                    let info = RegInfo { vreg: id, ty: d.ty, vec: d.vec };
                    self.scopes.last_mut().expect("a scope").singles.insert(n.name, Binding::Reg(info));
                }
            }
        }
    }

    /// A variable declared inside a function: hoisted to module scope under a unique
    /// name, bound in the current scope.
    pub fn declare_var(&mut self, d: &VarDecl<'a>) {
        let space = match d.space {
            StateSpace::Shared => Space::Shared,
            StateSpace::Local => Space::Local,
            StateSpace::Const => Space::Const,
            _ => Space::Global,
        };
        for n in &d.names {
            let name = self.ms.symbols.claim(&names::symbol_base(n.name));
            let size = n.size_bytes(d.elem_bytes());
            let align = d.align.unwrap_or(d.elem_bytes().min(u64::from(u32::MAX)) as u32).max(1);
            self.ms.globals.push(Global { space, name: name.clone(), size, align, origin: Some(self.line_of(n.pos)) });
            self.ms.global_spans.push(span(n.pos, n.pos + n.name.len() as u32));
            self.scopes.last_mut().expect("a scope").singles.insert(n.name, Binding::Var(name));
        }
    }

    /// A call site's `.param`: registers made on first use.
    pub fn declare_call_param(&mut self, d: &VarDecl<'a>) {
        for n in &d.names {
            let bytes = n.size_bytes(d.elem_bytes());
            let slot = ParamSlot {
                bytes,
                elem: d.elem_bytes(),
                align: d.align.map(u64::from).unwrap_or(d.elem_bytes()).max(1),
                scalar: n.dims.is_empty() && d.vec == 1,
                line: self.line_of(n.pos),
                pieces: Vec::new(),
            };
            self.params.push(slot);
            let idx = self.params.len() - 1;
            self.scopes.last_mut().expect("a scope").singles.insert(n.name, Binding::Param(idx));
        }
    }

    /// What `ret` reads: every register carrying a return value.
    pub fn ret_uses(&mut self) -> Vec<Operand> {
        let mut uses: Vec<Operand> = self.ret_regs.iter().map(|&v| Operand::vreg(v)).collect();
        for r in self.rets.clone() {
            for p in self.pieces(r, "ret") {
                uses.push(Operand::vreg(p.0));
            }
        }
        uses
    }

    /// The pieces of a parameter slot, creating them (named `%{stem}N`) if needed.
    pub fn pieces(&mut self, slot: usize, stem: &'static str) -> Vec<(VRegId, u8, u64, u64)> {
        if self.params[slot].pieces.is_empty() && self.params[slot].bytes > 0 {
            let s = self.params[slot].clone();
            let saved = self.line;
            self.line = s.line;
            let n = *self.counters.entry(stem).or_insert(0);
            self.counters.insert(stem, n + 1);
            let ps = abi::pieces(s.bytes, s.elem, s.align, s.scalar);
            let mut out = Vec::new();
            for (k, p) in ps.iter().enumerate() {
                let want = if k == 0 { format!("%{stem}{n}") } else { format!("%{stem}{n}_p{k}") };
                let name = self.vnames.claim(&want);
                let id = self.add_single(name, RegClass::R, p.width);
                out.push((id, p.width, p.offset, p.bytes));
            }
            self.line = saved;
            self.params[slot].pieces = out;
        }
        self.params[slot].pieces.clone()
    }

    /// Lowers the statements of one scope.
    pub fn stmts(&mut self, stmts: &'a [Stmt<'a>]) {
        for s in stmts {
            match s {
                Stmt::Label(name, pos) => {
                    let label = self.labels.get(name).cloned().unwrap_or_else(|| name.to_string());
                    self.push_block(label, span(*pos, *pos + name.len() as u32));
                    self.closed = false;
                    self.line = self.line_of(*pos);
                }
                Stmt::Pragma(strings, _) => {
                    // In a body, "nounroll" names the loop headed by the current block.
                    if strings.contains(&super::module::NOUNROLL)
                        && let Some(b) = self.f.blocks.last()
                        && !self.f.nounroll.contains(&b.label)
                    {
                        let label = b.label.clone();
                        self.f.nounroll.push(label);
                    }
                }
                Stmt::Decl(d) => {
                    self.line = self.line_of(d.pos);
                    self.cur = InstSpans { span: span(d.pos, d.pos + 1), ..InstSpans::default() };
                    match d.space {
                        StateSpace::Reg => self.declare_regs(d),
                        StateSpace::Param => self.declare_call_param(d),
                        StateSpace::Sreg => self.error(d.pos, "special registers cannot be declared"),
                        _ => self.declare_var(d),
                    }
                }
                Stmt::Inst(i) => {
                    self.line = self.line_of(i.pos);
                    self.cur = self.inst_spans(i);
                    self.inst(i);
                }
                Stmt::Block(inner, _) => {
                    self.scopes.push(Scope::default());
                    self.stmts(inner);
                    self.scopes.pop();
                }
                Stmt::BranchTargets { .. } | Stmt::CallTargets { .. } | Stmt::CallPrototype { .. } => {}
            }
        }
    }
}

pub(super) fn span(lo: u32, hi: u32) -> Span {
    Span::new(lo as usize, hi as usize)
}

/// Most errors (and, separately, warnings) reported: past this the import goes on to
/// its end (it fails anyway) but says no more, so bad input cannot flood the output.
pub const MAX_ERRORS: usize = 100;

/// Most registers one range may declare, and one function in total (the Ori parser's
/// limits).
pub const MAX_RANGE: u64 = 1 << 20;
pub const MAX_VREGS: usize = 1 << 22;

/// Register class and width (in 32-bit registers) of a PTX register type.
pub(super) fn reg_shape(ty: Ty, vec: u8) -> Option<(RegClass, u8)> {
    if ty.kind == TyKind::Pred {
        return Some((RegClass::P, 1));
    }
    let bits = u32::from(ty.bits) * u32::from(vec.max(1));
    let width = match bits {
        0..=32 => 1,
        33..=64 => 2,
        65..=128 => 4,
        129..=256 => 8,
        257..=512 => 16,
        _ => return None,
    };
    Some((RegClass::R, width))
}

impl<'a> Fx<'a, '_> {
    /// A parameter named as a symbol (its address taken, `mov.u64 %rd1, p_param_0`):
    /// a module variable stands for it — `.const` for a kernel parameter (it lives in
    /// the constant bank), `.local` for a device function's or a call site's.
    pub fn param_global(&mut self, name: &'a str) -> String {
        if let Some(g) = self.param_globals.get(name) {
            return g.clone();
        }
        let (space, size, align) = match self.lookup(name) {
            Some(Binding::Kernel { bytes, align, .. }) => (Space::Const, bytes, align),
            Some(Binding::Param(i)) => (Space::Local, self.params[i].bytes, self.params[i].align),
            _ => (Space::Local, 0, 1),
        };
        let g = self.ms.symbols.claim(&names::symbol_base(name));
        let align = align.clamp(1, 1 << 16) as u32;
        self.ms.globals.push(Global { space, name: g.clone(), size, align, origin: Some(self.line) });
        self.ms.global_spans.push(self.cur.span);
        self.param_globals.insert(name, g.clone());
        g
    }

    /// The stub function standing for a `.callprototype` (created once per label).
    pub fn proto_stub(&mut self, label: &'a str) -> Option<String> {
        let key = format!("{}\u{0}{label}", self.f.name);
        let Some(Stmt::CallPrototype { rets, params, pos, .. }) = self.protos.get(label).copied() else { return None };
        if let Some(f) = self.ms.proto_stub_names.get(&key) {
            return Some(f.clone());
        }
        let name = self.ms.symbols.claim(&names::symbol_base(label));
        let stub = super::module::stub_function(name.clone(), rets, params, self.line_of(*pos));
        self.ms.proto_stubs.push(stub);
        self.ms.proto_stub_names.insert(key, name.clone());
        Some(name)
    }

    /// Spans of a PTX instruction: the whole statement, its guard and its opcode.
    fn inst_spans(&self, i: &ast::Inst<'a>) -> InstSpans {
        let whole = span(i.pos, i.end);
        let mn_lo = (i.base.as_ptr() as usize).saturating_sub(self.src.as_ptr() as usize);
        let mnemonic = Span::new(mn_lo, mn_lo + i.base.len() + i.mods_text.len());
        let guard = match &i.guard {
            Some(g) => span(g.pos, g.pos + g.name.len() as u32),
            None => span(i.pos, i.pos),
        };
        InstSpans { span: whole, guard, mnemonic, first_operand: 0 }
    }

    /// The guard of an instruction, resolved.
    pub fn guard(&mut self, g: &Option<ast::GuardAst<'a>>) -> Option<Guard> {
        let g = g.as_ref()?;
        match self.lookup(g.name) {
            Some(Binding::Reg(r)) if self.f.vregs[r.vreg.index()].class == RegClass::P => {
                Some(Guard { reg: Reg::V(RegRef::whole(r.vreg)), negated: g.negated })
            }
            Some(_) => {
                self.error(g.pos, format!("guard {} is not a predicate register", g.name));
                None
            }
            None => {
                self.error(g.pos, format!("undeclared predicate {}", g.name));
                None
            }
        }
    }

    /// An Ori instruction from parts.
    pub fn mk(&self, mnemonic: &str, mods: String, defs: Vec<Operand>, uses: Vec<Operand>) -> Inst {
        let ndefs = defs.len() as u8;
        let operands = if uses.is_empty() {
            defs
        } else if defs.is_empty() {
            uses
        } else {
            let mut v = Vec::with_capacity(defs.len() + uses.len());
            v.extend(defs);
            v.extend(uses);
            v
        };
        Inst {
            guard: None,
            op: Opcode::from_mnemonic(mnemonic),
            mods: mods.into(),
            operands: operands.into(),
            ndefs,
            origin: None,
        }
    }
}
