//! Lowering a whole module: the target, module-scope variables, every function
//! (definitions, and stubs for declarations and call prototypes), each function's
//! parameter binding and device-function ABI spec, and the spans into the PTX.
//!
//! Owns: the order of functions and globals in the result and the `SourceMap` that
//! points back into the PTX. Must not know: how statements or instructions lower
//! (that is `lower`, `inst`, `operand`).

use std::collections::HashSet;

use super::abi;
use super::ast::{self, FuncKind as AstKind, Item, Pos, PtxModule, StateSpace, Stmt, VarDecl};
use super::lower::{Binding, Fx, ModState, NameMap, ParamSlot, Scope, reg_shape, span};
use super::names::{self, LineIndex, Unique};
use crate::ir::abi_spec::{AbiSpec, AbiValue};
use crate::ir::diag::Diagnostic;
use crate::ir::model::*;
use crate::ir::opcode::Opcode;
use crate::ir::sm::Sm;
use crate::ir::span::{FunctionSpans, InstSpans, SourceMap};

/// Collects a body's labels (recursively) and `.branchtargets` tables, and the labels
/// that branches name.
fn scan<'a>(stmts: &'a [Stmt<'a>], labels: &mut Vec<(&'a str, Pos)>, fx: &mut Fx<'a, '_>, targets: &mut Vec<&'a str>) {
    for s in stmts {
        match s {
            Stmt::Label(n, p) => labels.push((n, *p)),
            Stmt::Block(inner, _) => scan(inner, labels, fx, targets),
            Stmt::BranchTargets { label, targets: t, .. } => {
                targets.extend(t.iter().map(|x| x.0));
                fx.tables.insert(label, t.clone());
            }
            Stmt::CallTargets { label, targets: t, .. } => {
                fx.tables.insert(label, t.clone());
            }
            Stmt::CallPrototype { label, .. } => {
                fx.protos.insert(label, s);
            }
            Stmt::Inst(i) if i.base == "bra" => {
                for o in &i.ops {
                    if let ast::OpKind::Name { name, .. } = o.kind {
                        targets.push(name);
                    }
                }
            }
            _ => {}
        }
    }
}

/// The first statement that is not a declaration (looking into leading scopes).
fn first_code<'a, 'b>(stmts: &'b [Stmt<'a>]) -> Option<&'b Stmt<'a>> {
    for s in stmts {
        match s {
            Stmt::Decl(_)
            | Stmt::Pragma(..)
            | Stmt::BranchTargets { .. }
            | Stmt::CallTargets { .. }
            | Stmt::CallPrototype { .. } => {}
            Stmt::Block(inner, _) => return first_code(inner).or(Some(s)),
            _ => return Some(s),
        }
    }
    None
}

/// Lowers a parsed module. Returns the module and every diagnostic (errors included;
/// the caller decides).
pub(super) fn lower_module<'a>(src: &'a str, m: &'a PtxModule<'a>, diags: &mut Vec<Diagnostic>) -> Lowered {
    lower_module_with(src, &LineIndex::new(src), m, diags, None)
}

/// [`lower_module`] with the line index of `src` made once by the caller (`stream`
/// lowers a file group by group: an index per group was a scan of the whole file each).
/// With `seed`, the module-scope names claimed so far by the whole file (every
/// function's and module variable's, which `m`'s names are among and keep as written,
/// and what the functions before `m`'s in the file hoisted): `m`'s functions and
/// variables take their names as they are, and what its bodies hoist is named as the
/// whole import names it, then added to `seed` (`stream::Plan::import_all`).
pub(super) fn lower_module_with<'a>(
    src: &'a str,
    lines: &LineIndex,
    m: &'a PtxModule<'a>,
    diags: &mut Vec<Diagnostic>,
    mut seed: Option<&mut Unique>,
) -> Lowered {
    let mut module = Module::default();
    let mut map = SourceMap::default();
    let target = m.targets.iter().find(|(t, _)| t.starts_with("sm_"));
    match target {
        Some((t, pos)) => match Sm::parse(t) {
            Ok(sm) => module.sm = sm,
            Err(e) => diags.push(Diagnostic::error(span(*pos, *pos + t.len() as u32), e)),
        },
        None => {
            let at = m.targets.first().map(|t| t.1).unwrap_or(0);
            diags.push(Diagnostic::error(span(at, at + 1), "expected a '.target sm_XX' directive naming the SM"));
        }
    }
    let mut ms = ModState {
        sm: module.sm.clone(),
        addr64: m.address_size != Some(32),
        funcs: NameMap::default(),
        globals_by_name: NameMap::default(),
        globals: Vec::new(),
        global_spans: Vec::new(),
        symbols: seed.as_deref_mut().map(std::mem::take).unwrap_or_default(),
        errors: 0,
        warnings: 0,
        proto_stubs: Vec::new(),
        proto_stub_names: NameMap::default(),
    };
    // Pass 1: module-scope names (functions may be called before they are defined).
    for it in &m.items {
        match it {
            Item::Func(f) => {
                if !ms.funcs.contains_key(f.name) {
                    let n = match seed {
                        Some(_) => f.name.to_string(),
                        None => ms.symbols.claim(&names::symbol_base(f.name)),
                    };
                    ms.funcs.insert(f.name, n);
                }
            }
            Item::Var(v) => {
                for n in &v.names {
                    if ms.globals_by_name.contains_key(n.name) {
                        continue;
                    }
                    let name = match seed {
                        Some(_) => n.name.to_string(),
                        None => ms.symbols.claim(&names::symbol_base(n.name)),
                    };
                    ms.globals_by_name.insert(n.name, name.clone());
                    let space = match v.space {
                        StateSpace::Shared => Space::Shared,
                        StateSpace::Local => Space::Local,
                        StateSpace::Const => Space::Const,
                        _ => Space::Global,
                    };
                    let align = v.align.unwrap_or(v.elem_bytes().min(1 << 16) as u32).max(1);
                    let size = n.size_bytes(v.elem_bytes());
                    ms.globals.push(Global { space, name, size, align, origin: Some(lines.line(n.pos)) });
                    ms.global_spans.push(span(n.pos, n.pos + n.name.len() as u32));
                }
            }
        }
    }
    // Pass 2: functions with bodies (a prototype followed by its definition is one function).
    let with_body: HashSet<&str> = m
        .items
        .iter()
        .filter_map(|it| if let Item::Func(f) = it { f.body.as_ref().map(|_| f.name) } else { None })
        .collect();
    let mut defined: HashSet<&str> = HashSet::new();
    let mut stubs = Vec::new();
    for it in &m.items {
        let Item::Func(fd) = it else { continue };
        let Some(body) = &fd.body else {
            // A declaration only (`.extern`, or a prototype of a function defined
            // elsewhere in the file): a stub stands for it so calls resolve.
            if !with_body.contains(&fd.name) && defined.insert(fd.name) {
                let name = ms.funcs.get(fd.name).cloned().unwrap_or_else(|| fd.name.to_string());
                stubs.push(name.clone());
                module.functions.push(stub_function(name, &fd.rets, &fd.params, lines.line(fd.pos)));
                let at = span(fd.name_pos, fd.name_pos + fd.name.len() as u32);
                map.functions.push(FunctionSpans { name: at, close: at, ..FunctionSpans::default() });
            }
            continue;
        };
        if !defined.insert(fd.name) {
            let p = fd.name_pos;
            diags.push(Diagnostic::error(span(p, p + fd.name.len() as u32), "function defined twice"));
            continue;
        }
        let (mut f, spans) = lower_function(src, lines, &mut ms, diags, fd, body);
        // `.pragma "nounroll"` at module scope or in the header covers every loop.
        f.nounroll_all |= m.pragmas.iter().chain(&fd.pragmas).any(|&p| p == NOUNROLL);
        module.functions.push(f);
        map.functions.push(spans);
    }
    for f in &ms.proto_stubs {
        map.functions.push(FunctionSpans::default());
        stubs.push(f.name.to_string());
    }
    module.functions.append(&mut ms.proto_stubs);
    // One call graph for both: the launch bounds callees inherit, then the order.
    let graph = crate::ir::callgraph::callees(&module.functions);
    crate::ir::callgraph::inherit_launch_bounds(&mut module.functions, &graph);
    callees_first(&mut module.functions, &mut map.functions, &graph);
    module.globals = std::mem::take(&mut ms.globals);
    map.globals = std::mem::take(&mut ms.global_spans);
    if let Some(seed) = seed {
        *seed = std::mem::take(&mut ms.symbols);
    }
    map.target = target.map(|(t, pos)| span(*pos, *pos + t.len() as u32));
    Lowered { module, map, stubs }
}

/// Reorders the functions (and their spans, in step) so that every function comes after
/// the functions it calls — a depth-first post-order from each function in file order,
/// a cycle cut where it closes — and otherwise keeps file order. ptxas compiles a
/// callee with the kernels that call it, and an entry's `Used N registers` counts its
/// callees' registers (issue 23 rule 5, `alloc::stats::calling_report`): the engine
/// works through the functions in module order, so a callee's figures must exist when
/// its callers' are reported. NVRTC writes prototypes first and the definitions after
/// the kernels that call them (blender's 240 `.func`s follow its 61 entries).
fn callees_first(funcs: &mut Vec<Function>, spans: &mut Vec<FunctionSpans>, callees: &[Vec<usize>]) {
    let n = funcs.len();
    let (mut state, mut order) = (vec![0u8; n], Vec::with_capacity(n));
    for root in 0..n {
        if state[root] != 0 {
            continue;
        }
        // (function, next callee to visit); state 1 = on the stack, 2 = placed.
        let mut stack = vec![(root, 0usize)];
        state[root] = 1;
        while let Some(&mut (f, ref mut k)) = stack.last_mut() {
            if let Some(&c) = callees[f].get(*k) {
                *k += 1;
                if state[c] == 0 {
                    state[c] = 1;
                    stack.push((c, 0));
                }
            } else {
                state[f] = 2;
                order.push(f);
                stack.pop();
            }
        }
    }
    if order.iter().enumerate().all(|(i, &f)| i == f) || spans.len() != n {
        return;
    }
    let mut fs: Vec<Option<Function>> = std::mem::take(funcs).into_iter().map(Some).collect();
    let mut ss: Vec<Option<FunctionSpans>> = std::mem::take(spans).into_iter().map(Some).collect();
    for &i in &order {
        funcs.extend(fs[i].take());
        spans.extend(ss[i].take());
    }
}

/// What lowering a module produces.
pub(super) struct Lowered {
    pub module: Module,
    pub map: SourceMap,
    /// Names of the stub functions (declarations and call prototypes).
    pub stubs: Vec<String>,
}

/// A stub for a function known only by its signature (an `.extern` declaration or a
/// `.callprototype`): its ABI spec, derived as for a definition, and a lone `RET`.
/// Its register use means nothing; it exists so that calls resolve and the ABI of
/// the callee is visible.
pub(super) fn stub_function(name: String, rets: &[ast::Param], params: &[ast::Param], line: u32) -> Function {
    let mut f = Function::new(name, FuncKind::Device);
    f.origin = Some(line);
    f.external = true;
    let mut spec = AbiSpec::default();
    let mut used = Unique::default();
    for (list, stem, is_ret) in [(params, "param", false), (rets, "ret", true)] {
        for (k, p) in list.iter().enumerate() {
            let mut values = Vec::new();
            if p.space == StateSpace::Reg {
                let Some((class, width)) = reg_shape(p.ty, p.vec) else { continue };
                let id = f.add_vreg(used.claim(&names::vreg_base(p.name)), class, width);
                let size = (p.ty.bytes() as u32).max(1);
                values.push(AbiValue { count: u32::from(p.vec.max(1)), size, align: None, bind: Some(id) });
            } else {
                let scalar = p.array.is_none() && p.vec == 1;
                for (j, piece) in abi::pieces(p.bytes(), p.elem_bytes(), p.alignment(), scalar).iter().enumerate() {
                    let want = if j == 0 { format!("%{stem}{k}") } else { format!("%{stem}{k}_p{j}") };
                    let id = f.add_vreg(used.claim(&want), RegClass::R, piece.width);
                    values.push(AbiValue { bind: Some(id), ..piece.value });
                }
            }
            if is_ret { spec.returns.extend(values) } else { spec.params.extend(values) }
        }
    }
    for d in &mut f.decls {
        d.origin = Some(line);
    }
    for v in &mut f.vregs {
        v.origin = Some(line);
    }
    f.abi = Some(spec);
    let mut ret = Inst::new(Opcode::named("RET"), Vec::new(), Vec::new());
    ret.origin = Some(line);
    f.blocks.push(Block { label: "BB0".into(), insts: vec![ret] });
    f
}

/// The pragma that keeps ptxas from unrolling a loop (PTX ISA, "Performance-Tuning
/// Directives"); `prepass::unroll` honours it.
pub const NOUNROLL: &str = "nounroll";

fn lower_function<'a>(
    src: &'a str,
    lines: &LineIndex,
    ms: &mut ModState<'a>,
    diags: &mut Vec<Diagnostic>,
    fd: &'a ast::FuncDecl<'a>,
    body: &'a [Stmt<'a>],
) -> (Function, FunctionSpans) {
    let kind = if fd.kind == AstKind::Entry { FuncKind::Entry } else { FuncKind::Device };
    let name = ms.funcs.get(fd.name).cloned().unwrap_or_else(|| fd.name.to_string());
    let mut f = Function::new(name, kind);
    f.origin = Some(lines.line(fd.pos));
    f.maxnreg = fd.maxnreg;
    f.maxntid = fd.maxntid.clone();
    f.reqntid = fd.reqntid.clone();
    f.minnctapersm = fd.minnctapersm;
    let mut fx = Fx {
        src,
        lines,
        ms,
        diags,
        f,
        kind: fd.kind,
        scopes: vec![Scope::default()],
        vnames: Unique::default(),
        labels: NameMap::default(),
        label_names: Unique::default(),
        tables: NameMap::default(),
        protos: NameMap::default(),
        param_globals: NameMap::default(),
        params: Vec::new(),
        rets: Vec::new(),
        ret_regs: Vec::new(),
        closed: false,
        line: lines.line(fd.pos),
        counters: NameMap::default(),
        label_counter: 0,
        spans: FunctionSpans {
            name: span(fd.name_pos, fd.name_pos + fd.name.len() as u32),
            close: span(fd.close, fd.close + 1),
            directives: fd.directives.iter().map(|&(n, p, len)| (n, span(p, p + len))).collect(),
            ..FunctionSpans::default()
        },
        cur: InstSpans::default(),
        opcodes: NameMap::default(),
        shapes: NameMap::default(),
        param_ptrs: NameMap::default(),
    };
    // Labels first: branches may jump forward.
    let (mut labels, mut targets) = (Vec::new(), Vec::new());
    scan(body, &mut labels, &mut fx, &mut targets);
    for (l, pos) in &labels {
        if fx.labels.contains_key(l) {
            fx.error(*pos, format!("label {l} defined twice"));
            continue;
        }
        let n = fx.label_names.claim(&names::symbol_base(l));
        fx.labels.insert(l, n);
    }
    fx.params_and_abi(fd);
    if fd.kind == AstKind::Entry {
        let ptrs = super::paramptr::param_pointers(body, |p| matches!(fx.lookup(p), Some(Binding::Kernel { .. })));
        fx.param_ptrs = ptrs;
    }
    // The entry block: generated when the body starts with a branch target.
    if let Some(Stmt::Label(l, _)) = first_code(body)
        && targets.contains(l)
    {
        let label = fx.fresh_label();
        fx.push_block(label, span(fd.pos, fd.pos));
    }
    fx.stmts(body);
    fx.finish_body(&targets);
    fx.narrow_returns();
    (fx.f, fx.spans)
}

impl Fx<'_, '_> {
    /// A return value only partly written (a struct whose padding is never stored,
    /// `st.param.b32 [func_retval0+16]` of a 24-byte return) is read by `RET` only in
    /// the components the function writes somewhere, so the padding does not look
    /// like an uninitialized register. Flow-insensitive: any write anywhere counts.
    fn narrow_returns(&mut self) {
        const WHOLE: u32 = u32::MAX;
        let mut carriers: Vec<VRegId> = self.ret_regs.clone();
        for &r in &self.rets {
            carriers.extend(self.params[r].pieces.iter().map(|p| p.0));
        }
        if carriers.is_empty() {
            return;
        }
        let mut written: NameMap<u32, u32> = NameMap::default();
        for v in &carriers {
            written.insert(v.0, 0);
        }
        for b in &self.f.blocks {
            for i in &b.insts {
                i.for_each_def(|r| {
                    if let Some(m) = written.get_mut(&r.vreg.0) {
                        *m = match r.comp {
                            None => WHOLE,
                            Some(c) if c < 32 => *m | (1 << c),
                            Some(_) => WHOLE,
                        };
                    }
                });
            }
        }
        for b in &mut self.f.blocks {
            for i in &mut b.insts {
                if i.op.mnemonic() != "RET" {
                    continue;
                }
                let mut ops = Vec::with_capacity(i.operands.len());
                for op in std::mem::take(&mut i.operands) {
                    match op {
                        Operand::Reg(Reg::V(RegRef { vreg, comp: None })) => match written.get(&vreg.0) {
                            Some(&m) if m != WHOLE && m != 0 => {
                                ops.extend(
                                    (0..32u8)
                                        .filter(|c| m & (1 << c) != 0)
                                        .map(|c| Operand::Reg(Reg::V(RegRef { vreg, comp: Some(c) }))),
                                );
                            }
                            _ => ops.push(op),
                        },
                        other => ops.push(other),
                    }
                }
                i.operands = ops.into();
            }
        }
    }

    /// Trailing labels nothing branches to (`$LDWend_foo:` of old PTX) are dropped;
    /// a body that can still fall off its end gets the implicit `ret` PTX gives it.
    fn finish_body(&mut self, targets: &[&str]) {
        while self.f.blocks.len() > 1
            && self.f.blocks.last().is_some_and(|b| b.insts.is_empty())
            && !targets.iter().any(|t| {
                self.labels.get(t).is_some_and(|l| *l == self.f.blocks.last().map_or("", |b| b.label.as_str()))
            })
        {
            self.f.blocks.pop();
            self.spans.blocks.pop();
        }
        let falls_off = match self.f.blocks.last().and_then(|b| b.insts.last()) {
            Some(i) => !i.is_terminator(),
            None => true,
        };
        if falls_off {
            let ret = if self.kind == AstKind::Entry {
                self.mk("EXIT", String::new(), Vec::new(), Vec::new())
            } else {
                let uses = self.ret_uses();
                self.mk("RET", String::new(), Vec::new(), uses)
            };
            let close = self.spans.close;
            if self.f.blocks.is_empty() {
                let label = self.fresh_label();
                self.push_block(label, close);
            }
            let mut ret = ret;
            ret.origin = Some(self.line);
            self.f.blocks.last_mut().expect("a block").insts.push(ret);
            self.spans.insts.push(InstSpans { span: close, guard: close, mnemonic: close, first_operand: 0 });
        }
    }
}

impl<'a> Fx<'a, '_> {
    /// Binds the function's parameters: kernel parameters to their constant-bank
    /// offsets, device-function parameters and returns to vregs with an ABI spec.
    fn params_and_abi(&mut self, fd: &'a ast::FuncDecl<'a>) {
        if fd.kind == AstKind::Entry {
            let shapes: Vec<(u64, u64)> = fd.params.iter().map(|p| (p.bytes(), p.alignment())).collect();
            let offs = abi::kernel_param_offsets(&shapes);
            for (p, off) in fd.params.iter().zip(offs) {
                if p.space == StateSpace::Reg {
                    self.error(p.pos, "kernel parameters must be in .param space");
                    continue;
                }
                self.scopes[0]
                    .singles
                    .insert(p.name, Binding::Kernel { offset: off, bytes: p.bytes(), align: p.alignment() });
            }
            if !fd.rets.is_empty() {
                self.error(fd.pos, "a kernel (.entry) cannot return values");
            }
            return;
        }
        let mut spec = AbiSpec::default();
        for (list, stem, is_ret) in [(&fd.params, "param", false), (&fd.rets, "ret", true)] {
            for p in list.iter() {
                self.line = self.line_of(p.pos);
                let values = if p.space == StateSpace::Reg {
                    // An old-style register parameter is its own carrier.
                    let d = VarDecl {
                        pos: p.pos,
                        space: StateSpace::Reg,
                        align: None,
                        vec: p.vec,
                        ty: p.ty,
                        external: false,
                        names: vec![ast::VarName {
                            name: p.name,
                            pos: p.pos,
                            dims: Vec::new(),
                            range: None,
                            init_count: None,
                        }],
                    };
                    self.declare_regs(&d);
                    let Some(Binding::Reg(r)) = self.lookup(p.name) else { continue };
                    if is_ret {
                        self.ret_regs.push(r.vreg);
                    }
                    let size = (p.ty.bytes() as u32).max(1);
                    vec![AbiValue { count: u32::from(p.vec.max(1)), size, align: None, bind: Some(r.vreg) }]
                } else {
                    let slot = ParamSlot {
                        bytes: p.bytes(),
                        elem: p.elem_bytes(),
                        align: p.alignment(),
                        scalar: p.array.is_none() && p.vec == 1,
                        line: self.line,
                        pieces: Vec::new(),
                    };
                    self.params.push(slot);
                    let idx = self.params.len() - 1;
                    if p.name != "_" {
                        self.scopes[0].singles.insert(p.name, Binding::Param(idx));
                    }
                    if is_ret {
                        self.rets.push(idx);
                    }
                    let ps = self.pieces(idx, stem);
                    let descs = abi::pieces(p.bytes(), p.elem_bytes(), p.alignment(), p.array.is_none() && p.vec == 1);
                    descs.iter().zip(ps).map(|(d, (v, ..))| AbiValue { bind: Some(v), ..d.value }).collect()
                };
                if is_ret { spec.returns.extend(values) } else { spec.params.extend(values) }
            }
        }
        self.f.abi = Some(spec);
    }
}
