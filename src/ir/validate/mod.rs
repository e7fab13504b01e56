//! Semantic checks of a module: what the model can represent but is wrong. Every
//! diagnostic carries a span when the module came from the parser (looked up in the
//! [`SourceMap`]; modules built in code have no spans and get `None`).
//!
//! Covered here: knobs (via the catalogue in `crate::knobs`) and options, globals,
//! duplicate functions, function directives, register declarations (double
//! declarations, widths, pins, aliases), the `.abi` block's descriptors (shape only:
//! the calling-convention warnings 7001–7017 of seed 001 belong to `crate::abi`),
//! labels and the fall-off-the-end rule. Instructions are checked in `inst.rs`.
//! Knows nothing of liveness or allocation. Diagnostics come out in file order.

mod inst;

use std::collections::{HashMap, HashSet};

use crate::ir::abi_spec::*;
use crate::ir::diag::Diagnostic;
use crate::ir::model::*;
use crate::ir::parse::lex::{file_range, phys_reg};
use crate::ir::span::{FunctionSpans, SourceMap, Span};

/// All problems in a module, errors and warnings, in file order.
pub fn validate(m: &Module, map: &SourceMap) -> Vec<Diagnostic> {
    let mut v = V { m, map, out: Vec::new() };
    v.module();
    // Name sets for symbol checks (lookups only: no iteration order can show).
    let names = Names {
        globals: m.globals.iter().map(|g| g.name.as_str()).collect(),
        functions: m.functions.iter().map(|f| f.name.as_str()).collect(),
    };
    for (k, f) in m.functions.iter().enumerate() {
        let empty = FunctionSpans::default();
        let spans = map.function(k).unwrap_or(&empty);
        let has_spans = map.function(k).is_some();
        let mut attrs = HashMap::new();
        for &(v, kind, span) in &spans.vreg_attrs {
            attrs.entry((v, kind)).or_insert(span);
        }
        let mut fv = FnV { m, f, spans, has_spans, names: &names, attrs, out: &mut v.out, base: 0 };
        fv.function();
    }
    // File order; diagnostics without a span keep their relative order, first.
    v.out.sort_by_key(|d| d.span.map_or(0, |s| s.lo as u64 + 1));
    v.out
}

/// True when the diagnostics contain an error.
pub fn has_errors(diags: &[Diagnostic]) -> bool {
    diags.iter().any(Diagnostic::is_error)
}

struct V<'m> {
    m: &'m Module,
    map: &'m SourceMap,
    out: Vec<Diagnostic>,
}

impl V<'_> {
    fn module(&mut self) {
        let m = self.m;
        // The knobs the file sets, for the notes below (a bad line is reported on its own).
        let mut in_force = crate::knobs::Knobs::new();
        for setting in &m.knobs {
            let _ = in_force.set(&setting.key, &setting.value);
        }
        for (k, setting) in m.knobs.iter().enumerate() {
            let spans = self.map.knobs.get(k);
            let key_span = spans.map(|s| s.key);
            let Some(info) = crate::knobs::find(&setting.key) else {
                let mut d = Diagnostic::error(key_span, format!("unknown knob {}", key_text(&setting.key)));
                if let KnobKey::Name(n) = &setting.key
                    && let Some(s) = crate::knobs::suggest(n)
                {
                    d = d.with_help(format!("did you mean {s}?"));
                }
                self.out.push(d);
                continue;
            };
            if let Err(e) = crate::knobs::check(info, &setting.value) {
                let msg = match e {
                    crate::knobs::KnobError::WrongType { name, expected, found } => {
                        let article = if expected.starts_with(['a', 'e', 'i', 'o', 'u']) { "an" } else { "a" };
                        format!("knob {name} takes {article} {expected} value, not '{found}'")
                    }
                    other => lower_first(&other.to_string()),
                };
                self.out.push(Diagnostic::error(spans.map(|s| s.value), msg));
            } else if let Some(n) = info.setting_note(&in_force) {
                // Issue 24: a knob radbg does not model, or one that acts only with a knob
                // the file leaves off, is accepted with a note at its line, never silently.
                self.out.push(Diagnostic::note(key_span, n));
            }
        }
        let o = &m.options;
        let opt = |name| self.map.option(name);
        for (name, v) in
            [("maxrregcount", o.maxrregcount), ("device-function-maxrregcount", o.device_function_maxrregcount)]
        {
            match v {
                Some(0) => self.out.push(Diagnostic::error(opt(name), format!("{name} must be at least 1"))),
                // seed 000, "External Budget Inputs": ptxas ignores values over 255.
                Some(n) if n > 255 => self.out.push(Diagnostic::warning(
                    opt(name),
                    format!("{name} {n} is over 255: ptxas ignores it (\"Too big maxrregcount value specified\")"),
                )),
                _ => {}
            }
        }
        if let Some(n) = o.register_usage_level
            && n > 10
        {
            self.out.push(Diagnostic::error(
                opt("register-usage-level"),
                format!("register-usage-level {n} is out of range 0..=10"),
            ));
        }
        if ![0, 4, 5].contains(&o.compile_mode) {
            self.out.push(Diagnostic::warning(
                opt("compile-mode"),
                format!("compile-mode {} is not one radbg models: 0 (CUDA), 4 or 5 (OptiX IR)", o.compile_mode),
            ));
        }
        let mut seen: HashMap<&str, usize> = HashMap::new();
        for (k, g) in m.globals.iter().enumerate() {
            let span = self.map.globals.get(k).copied();
            if let Some(&first) = seen.get(g.name.as_str()) {
                self.out.push(
                    Diagnostic::error(span, format!("variable {} is declared twice", g.name))
                        .with_help(format!("the first is declaration {} of the module", first + 1)),
                );
            } else {
                seen.insert(&g.name, k);
            }
            if !g.align.is_power_of_two() {
                self.out.push(Diagnostic::error(
                    span,
                    format!("alignment {} of {} is not a power of two", g.align, g.name),
                ));
            }
            if looks_like_register(&g.name) {
                self.out.push(Diagnostic::error(span, format!("variable name {} would read as a register", g.name)));
            }
        }
        let mut fseen: HashMap<&str, ()> = HashMap::new();
        for (k, f) in m.functions.iter().enumerate() {
            let span = self.map.function(k).map(|s| s.name);
            if fseen.insert(&f.name, ()).is_some() {
                self.out.push(Diagnostic::error(span, format!("function {} is defined twice", f.name)));
            }
            if looks_like_register(&f.name) {
                self.out.push(Diagnostic::error(span, format!("function name {} would read as a register", f.name)));
            }
        }
    }
}

fn key_text(k: &KnobKey) -> String {
    match k {
        KnobKey::Name(n) => n.clone(),
        KnobKey::Index(i) => i.to_string(),
    }
}

/// Messages start lower case (the knob catalogue's do already; this guards it).
fn lower_first(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_lowercase().chain(c).collect(),
        None => String::new(),
    }
}

/// A name the parser would read as a register or special register, not a symbol.
fn looks_like_register(name: &str) -> bool {
    phys_reg(name).is_some() || name.starts_with("SR_")
}

/// The module's variable and function names.
pub(super) struct Names<'m> {
    pub globals: HashSet<&'m str, crate::ir::parse::FnvBuild>,
    pub functions: HashSet<&'m str, crate::ir::parse::FnvBuild>,
}

/// "Did you mean" costs an edit distance per candidate: offered while there are
/// fewer than this many diagnostics, for names and candidate lists of sane size.
const SUGGESTION_BUDGET: usize = 200;
const MAX_CANDIDATES: usize = 4096;

/// Checks of one function.
pub(super) struct FnV<'m, 'o> {
    m: &'m Module,
    f: &'m Function,
    spans: &'m FunctionSpans,
    /// False for modules built in code: spans are then all `None`.
    has_spans: bool,
    names: &'o Names<'m>,
    /// The first `.pin`/`.alias`/`.flags` line of each vreg, by kind.
    attrs: HashMap<(u32, &'static str), Span>,
    out: &'o mut Vec<Diagnostic>,
    /// Diagnostics counted as before `out` (`suggest`'s budget): those of the instructions
    /// checked on another thread ahead of these.
    base: usize,
}

/// Instructions of a function from which half of them are checked on a second thread
/// (issue 25: the checks were a twentieth of importing the scale kernel, 99.5k
/// instructions, with the other core idle); below it a thread costs more than it saves.
const SPLIT_INSTS: usize = 20_000;

impl<'m> FnV<'m, '_> {
    /// The closest candidate to a misspelt name, within the suggestion budget.
    pub(super) fn suggest<'c>(&self, word: &str, candidates: impl Iterator<Item = &'c str>) -> Option<&'c str> {
        if self.base + self.out.len() >= SUGGESTION_BUDGET || word.len() > 32 {
            return None;
        }
        let list: Vec<&str> = candidates.take(MAX_CANDIDATES + 1).collect();
        if list.len() > MAX_CANDIDATES {
            return None;
        }
        crate::util::closest(word, list)
    }

    fn attr_span(&self, v: usize, kind: &'static str) -> Option<Span> {
        self.attrs.get(&(v as u32, kind)).copied()
    }

    fn opt(&self, s: Option<Span>) -> Option<Span> {
        if self.has_spans { s } else { None }
    }

    fn err(&mut self, span: Option<Span>, msg: impl Into<String>) -> &mut Diagnostic {
        let span = self.opt(span);
        self.out.push(Diagnostic::error(span, msg));
        self.out.last_mut().expect("just pushed")
    }

    fn warn(&mut self, span: Option<Span>, msg: impl Into<String>) -> &mut Diagnostic {
        let span = self.opt(span);
        self.out.push(Diagnostic::warning(span, msg));
        self.out.last_mut().expect("just pushed")
    }

    fn vreg_span(&self, v: usize) -> Option<Span> {
        self.spans.vregs.get(v).copied()
    }

    fn function(&mut self) {
        let f = self.f;
        let name_span = Some(self.spans.name);
        if f.blocks.is_empty() {
            self.err(name_span, format!("function {} has no blocks: expected a label and instructions", f.name));
        }
        for (d, v) in [("maxnreg", f.maxnreg), ("minnctapersm", f.minnctapersm)] {
            let span = self.spans.directive(d);
            match v {
                Some(0) => {
                    self.err(span, format!(".{d} must be at least 1"));
                }
                Some(n) if d == "maxnreg" && n > 255 => {
                    self.warn(span, format!(".maxnreg {n} is over the 255-register limit of the R file"));
                }
                _ => {}
            }
        }
        for (d, dims) in [("maxntid", &f.maxntid), ("reqntid", &f.reqntid)] {
            let Some(dims) = dims else { continue };
            let span = self.spans.directive(d);
            if dims.len() > 3 {
                self.err(span, format!(".{d} has {} dimensions: expected at most 3 (x, y, z)", dims.len()));
            }
            if dims.contains(&0) {
                self.err(span, format!(".{d} dimensions must be at least 1"));
            }
        }
        self.registers();
        if let Some(abi) = &f.abi {
            self.abi(abi);
        }
        self.blocks();
        let labels: HashMap<&str, usize> =
            f.blocks.iter().enumerate().rev().map(|(k, b)| (b.label.as_str(), k)).collect();
        let total: usize = f.blocks.iter().map(|b| b.insts.len()).sum();
        if total < SPLIT_INSTS {
            self.insts(0, total, &labels);
            return;
        }
        // A large function: the second half of its instructions is checked on a second
        // thread into its own list, appended after the first half's. The only state one
        // instruction's check reads from the others' is how many diagnostics came before
        // (`suggest`'s budget): when the first half adds any, the second half is checked
        // again after it, so the result is always the one-thread check's.
        let mid = total / 2;
        let before = self.out.len();
        let (attrs, names, spans, has_spans) = (self.attrs.clone(), self.names, self.spans, self.has_spans);
        let (m, labels) = (self.m, &labels);
        let second = std::thread::scope(|s| {
            let h = s.spawn(move || {
                let mut out: Vec<Diagnostic> = Vec::new();
                let mut fv = FnV { m, f, spans, has_spans, names, attrs, out: &mut out, base: before };
                fv.insts(mid, total, labels);
                out
            });
            self.insts(0, mid, labels);
            match h.join() {
                Ok(out) => out,
                Err(p) => std::panic::resume_unwind(p),
            }
        });
        if self.out.len() == before {
            self.out.extend(second);
        } else {
            self.insts(mid, total, labels);
        }
    }

    /// Checks the instructions `from..to` of the function (counted across its blocks
    /// in layout order).
    fn insts(&mut self, from: usize, to: usize, labels: &HashMap<&str, usize>) {
        let f = self.f;
        let mut at = 0;
        for (b, block) in f.blocks.iter().enumerate() {
            let n = block.insts.len();
            if at + n > from && at < to {
                let (lo, hi) = (from.saturating_sub(at), (to - at).min(n));
                for (i, ins) in block.insts.iter().enumerate().take(hi).skip(lo) {
                    self.inst(b, i, ins, labels);
                }
            }
            at += n;
        }
    }

    fn registers(&mut self) {
        let f = self.f;
        let uniform_ok = self.m.sm.has_uniform_registers();
        // Sized once: growing it rehashed every name again (issue 25: 100k vregs). The
        // parser's word-at-a-time hash, not SipHash (a twentieth of importing the scale
        // kernel): only lookups, nothing iterates the map, so no order can show.
        let mut first: HashMap<&str, usize, crate::ir::parse::FnvBuild> =
            HashMap::with_capacity_and_hasher(f.vregs.len(), Default::default());
        for (k, v) in f.vregs.iter().enumerate() {
            let span = self.vreg_span(k);
            if let Some(&prev) = first.get(v.name.as_ref()) {
                let prev_decl = f.vregs[prev].decl;
                let shown = f.decls.get(prev_decl).map_or(String::new(), decl_text);
                self.err(span, format!("register {} is declared twice", v.name))
                    .help
                    .push(format!("it is already declared by .reg {shown}"));
            } else {
                first.insert(&v.name, k);
            }
        }
        for (k, d) in f.decls.iter().enumerate() {
            let span = self.spans.decls.get(k).copied();
            if ![1, 2, 4, 8, 16].contains(&d.width) {
                self.err(span, format!("register width {} of {} must be 1, 2, 4, 8 or 16", d.width, d.prefix));
            }
            if d.width > 1 && matches!(d.class, RegClass::P | RegClass::UP | RegClass::B | RegClass::UB) {
                self.err(
                    span,
                    format!(".{} registers are single: {} cannot be .x{}", d.class.name(), d.prefix, d.width),
                );
            }
            if !uniform_ok && matches!(d.class, RegClass::UR | RegClass::URExt | RegClass::UP) {
                self.err(span, format!("uniform registers ({}) need sm_75 or later, not {}", d.prefix, self.m.sm));
            }
        }
        for (k, v) in f.vregs.iter().enumerate() {
            if let Some(pin) = v.pin {
                self.pin(k, v, pin);
            }
            if let Some(a) = v.alias {
                self.alias(k, v, a);
            }
        }
        self.alias_cycles();
    }

    fn pin(&mut self, k: usize, v: &VReg, pin: u16) {
        let span = self.attr_span(k, "pin").or(self.vreg_span(k));
        let file = v.class.file();
        let reg = PhysReg { file, index: pin };
        if pin >= file.arch_size() {
            self.err(
                span,
                format!("pin {reg} of {} is outside the {} file ({})", v.name, file.prefix(), file_range(file)),
            );
            return;
        }
        if reg.is_zero() {
            self.err(span, format!("{} cannot be pinned to {reg}: it is the constant zero/true register", v.name));
            return;
        }
        // Wide values sit in aligned register groups (seed 001: 8-byte values even,
        // 16-byte values 4-aligned); radbg caps the alignment at 4 for x8 and x16.
        let align = (v.width as u16).clamp(1, 4);
        if !pin.is_multiple_of(align) {
            self.err(span, format!("{} is .x{}: its pin {reg} must be a multiple of {align}", v.name, v.width));
        }
        let limit = file.zero_register().unwrap_or(file.arch_size());
        if pin as u32 + v.width as u32 > limit as u32 {
            self.err(
                span,
                format!("{} (.x{}) pinned at {reg} runs past the end of the {} file", v.name, v.width, file.prefix()),
            );
        }
    }

    fn alias(&mut self, k: usize, v: &VReg, a: VRegId) {
        let f = self.f;
        let span = self.attr_span(k, "alias").or(self.vreg_span(k));
        let Some(parent) = f.vregs.get(a.index()) else {
            self.err(span, format!("alias parent of {} is not a register of function {}", v.name, f.name));
            return;
        };
        if parent.class.file() != v.class.file() {
            self.err(
                span,
                format!(
                    "{} (class {}) cannot alias {} (class {}): they are in different register files",
                    v.name,
                    v.class.name(),
                    parent.name,
                    parent.class.name()
                ),
            );
        } else if parent.width != v.width {
            self.warn(
                span,
                format!("{} (.x{}) aliases {} of a different width (.x{})", v.name, v.width, parent.name, parent.width),
            );
        }
    }

    /// Alias cycles, found in one pass over all chains (each vreg is walked once):
    /// a cycle is reported once, at its smallest member.
    fn alias_cycles(&mut self) {
        let f = self.f;
        // 0 unvisited, 1 on the current path, 2 finished.
        let mut state = vec![0u8; f.vregs.len()];
        let mut path = Vec::new();
        for start in 0..f.vregs.len() {
            path.clear();
            let mut cur = start;
            while state[cur] == 0 {
                state[cur] = 1;
                path.push(cur);
                match f.vregs[cur].alias {
                    Some(a) if a.index() < f.vregs.len() => cur = a.index(),
                    _ => break,
                }
            }
            if state[cur] == 1 && f.vregs[*path.last().unwrap_or(&cur)].alias.is_some_and(|a| a.index() == cur) {
                // `cur` is on the path: the cycle is path[pos..].
                let pos = path.iter().position(|&p| p == cur).unwrap_or(0);
                let cycle = &path[pos..];
                let least = *cycle.iter().min().unwrap_or(&cur);
                let at = cycle.iter().position(|&p| p == least).unwrap_or(0);
                let mut names: Vec<String> =
                    cycle[at..].iter().chain(&cycle[..at]).map(|&p| f.vregs[p].name.to_string()).collect();
                names.push(f.vregs[least].name.to_string());
                let span = self.attr_span(least, "alias").or(self.vreg_span(least));
                self.err(span, format!("alias cycle: {}", names.join(" -> ")));
            }
            for &p in &path {
                state[p] = 2;
            }
        }
    }

    fn abi(&mut self, abi: &AbiSpec) {
        let f = self.f;
        let spans = self.spans.abi.clone().unwrap_or_default();
        let block = Some(spans.block);
        if f.kind == FuncKind::Entry {
            self.warn(
                block,
                format!("kernel {} is an .entry: it has no calling convention, so .abi is ignored", f.name),
            );
        }
        for (kw, list, sl) in [("param", &abi.params, &spans.params), ("return", &abi.returns, &spans.returns)] {
            for (k, v) in list.iter().enumerate() {
                let span = sl.get(k).copied().or(block);
                let what = format!("{kw} {} ({}x{})", k + 1, v.count, v.size);
                if v.count == 0 {
                    self.err(span, format!("{what} has no elements: the count must be at least 1"));
                }
                if ![1, 2, 4, 8, 16].contains(&v.size) {
                    self.err(span, format!("{what}: element size must be 1, 2, 4, 8 or 16 bytes"));
                }
                if let Some(a) = v.align
                    && !(a.is_power_of_two() && (4..=16).contains(&a))
                {
                    self.err(span, format!("{what}: alignment {a} must be 4, 8 or 16"));
                }
                if let Some(b) = v.bind {
                    match f.vregs.get(b.index()) {
                        None => {
                            self.err(span, format!("{what} is bound to a register that does not exist"));
                        }
                        Some(r) => {
                            if r.class.file() != RegFile::R {
                                self.err(
                                    span,
                                    format!(
                                        "{what} is bound to {} of class {}: ABI values live in R registers",
                                        r.name,
                                        r.class.name()
                                    ),
                                );
                            } else if v.count > 0 && r.width as u64 != v.regs() {
                                self.err(
                                    span,
                                    format!(
                                        "{what} needs {} but {} is .x{}",
                                        plural(v.regs(), "register"),
                                        r.name,
                                        r.width
                                    ),
                                );
                            }
                        }
                    }
                }
            }
        }
        let field = |n| spans.field(n).or(block);
        if let Some(ra) = abi.ret_addr
            && let Some(r) = ra.reg
        {
            let file = if ra.mode == RetAddrMode::Uniform { RegFile::UR } else { RegFile::R };
            let limit = file.zero_register().unwrap_or(0);
            if r >= limit {
                self.err(
                    field("retaddr"),
                    format!(
                        "return-address register {} is out of range ({})",
                        PhysReg { file, index: r },
                        file_range(file)
                    ),
                );
            }
        }
        for (n, reg) in [("first-param", abi.first_param), ("stack-pointer", abi.stack_pointer)] {
            if let Some(r) = reg
                && r > 254
            {
                self.err(field(n), format!("{n} register R{r} is above R254"));
            }
        }
        if let Some(Available::Count(n)) = abi.available
            && n > 255
        {
            self.err(field("available"), format!("available {n} is more than the 255 registers of the R file"));
        }
        for (n, range) in [("reserved", abi.reserved), ("retaddr-range", abi.ret_addr_range)] {
            if let Some((lo, hi)) = range {
                self.range(field(n), n, RegFile::R, lo, hi);
            }
        }
        for (n, sets, sl) in [
            ("preserved", &abi.preserved, &spans.preserved),
            ("scratch", &abi.scratch, &spans.scratch),
            ("suspend-scratch", &abi.suspend_scratch, &spans.suspend_scratch),
        ] {
            for (k, s) in sets.iter().enumerate() {
                let span = sl.get(k).copied().or(block);
                if s.ranges.is_empty() {
                    self.err(span, format!("{n} set has no registers"));
                }
                for &(lo, hi) in &s.ranges {
                    self.range(span, n, s.file, lo, hi);
                }
            }
        }
        if !f.coroutine && !abi.suspend_scratch.is_empty() {
            let span = spans.suspend_scratch.first().copied().or(block);
            self.warn(span, format!("suspend-scratch only matters in a .coroutine, and {} is not one", f.name));
        }
    }

    fn range(&mut self, span: Option<Span>, what: &str, file: RegFile, lo: u16, hi: u16) {
        let p = |index| PhysReg { file, index };
        let top = file.zero_register().unwrap_or(file.arch_size()) - 1;
        if lo > hi {
            self.err(span, format!("{what} range {}..{} is empty: its start is above its end", p(lo), p(hi)));
        }
        if lo.max(hi) > top {
            self.err(
                span,
                format!(
                    "{what} range reaches {}: register numbers above {} are not allocatable",
                    p(lo.max(hi)),
                    p(top)
                ),
            );
        }
    }

    fn blocks(&mut self) {
        let f = self.f;
        let mut seen: HashMap<&str, usize> = HashMap::new();
        for (k, b) in f.blocks.iter().enumerate() {
            let span = self.spans.blocks.get(k).map(|s| s.label);
            if seen.insert(&b.label, k).is_some() {
                self.err(span, format!("label {} is defined twice", b.label));
            }
            if looks_like_register(&b.label) || b.label.is_empty() {
                self.err(span, format!("label {} would read as a register in a branch", b.label));
            }
        }
        // seed 004: control falls through to the next block; after the last one there is none.
        if let Some(last) = f.blocks.last()
            && !last.insts.last().is_some_and(Inst::is_terminator)
        {
            let b = f.blocks.len() - 1;
            let span = match last.insts.len() {
                0 => self.spans.blocks.get(b).map(|s| s.label),
                n => self.spans.inst(b, n - 1).map(|s| s.span),
            };
            self.err(
                span,
                format!(
                    "control falls off the end of function {}: block {} must end in EXIT, RET or an unconditional BRA",
                    f.name, last.label
                ),
            );
        }
    }
}

fn plural(n: u64, what: &str) -> String {
    if n == 1 { format!("1 {what}") } else { format!("{n} {what}s") }
}

/// `%r<16>` / `.R.x2 %rd` as declared, for messages.
fn decl_text(d: &RegDecl) -> String {
    let width = if d.width == 1 { String::new() } else { format!(".x{}", d.width) };
    let count = d.count.map_or(String::new(), |c| format!("<{c}>"));
    format!(".{}{width} {}{count}", d.class.name(), d.prefix)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::span::SourceFile;

    /// `validate` on one function of `n` moves, those at `bad` with an unknown mnemonic
    /// (`MOVX`: a warning with a "did you mean" while the budget lasts).
    fn diags(n: usize, bad: &[usize]) -> Vec<Diagnostic> {
        let body: String =
            (0..n).map(|k| if bad.contains(&k) { "  %r1 = MOVX %r0\n" } else { "  %r1 = MOV %r0\n" }).collect();
        let text = format!(".target sm_90\n.entry k {{\n  .reg .R %r<2>\nBB0:\n{body}  EXIT\n}}\n");
        let file = SourceFile::new("big.ori", text);
        let (m, map, d) = crate::ir::parse::parse_module(&file);
        assert!(d.iter().all(|d| !d.is_error()), "{:?}", d.first());
        validate(&m, &map)
    }

    #[test]
    fn a_large_function_checks_as_one_thread_does() {
        let n = SPLIT_INSTS + 101;
        // Only the second half (checked on the other thread) warns: its hint is given.
        let v = diags(n, &[n - 5]);
        assert_eq!(v.len(), 1);
        assert!(!v[0].help.is_empty(), "{:?}", v[0]);
        // The first half uses up the hints' budget: the second half's warning gets none,
        // as in one thread (it is checked again after the first half).
        let bad: Vec<usize> = (0..SUGGESTION_BUDGET + 5).chain([n - 5]).collect();
        let v = diags(n, &bad);
        assert_eq!(v.len(), bad.len());
        assert!(!v[0].help.is_empty(), "{:?}", v[0]);
        assert!(v.last().is_some_and(|d| d.help.is_empty()), "{:?}", v.last());
        // In file order.
        let los: Vec<u64> = v.iter().map(|d| d.span.map_or(0, |s| s.lo as u64)).collect();
        assert!(los.windows(2).all(|w| w[0] < w[1]));
    }
}
