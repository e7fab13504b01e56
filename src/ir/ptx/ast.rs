//! The PTX syntax tree: what the PTX text says, borrowed from the source, before
//! any meaning is given to it.
//!
//! Owns: the shape of modules, functions, declarations, statements and operands, and
//! the PTX type system's sizes (`Ty`). Must not know: Ori IR, register classes or how
//! anything is lowered (that is `lower`); names are not resolved here — an operand
//! `%r1` may turn out to be a register, a parameter, a variable or a special register.

/// A byte offset into the source; the line and column are computed on demand.
pub type Pos = u32;

/// A parsed PTX file.
#[derive(Clone, Debug, Default)]
pub struct PtxModule<'a> {
    /// `.version MAJOR.MINOR`.
    pub version: Option<(u32, u32)>,
    /// The `.target` list (`sm_90a`, `debug`, `texmode_independent` ...), with positions.
    pub targets: Vec<(&'a str, Pos)>,
    /// `.address_size 32|64`.
    pub address_size: Option<u32>,
    pub items: Vec<Item<'a>>,
    /// Module-scope `.pragma` strings (`"nounroll"` applies to every loop of the module).
    pub pragmas: Vec<&'a str>,
}

/// A module-scope item.
#[derive(Clone, Debug)]
pub enum Item<'a> {
    Var(VarDecl<'a>),
    Func(Box<FuncDecl<'a>>),
}

/// PTX state spaces, for declarations and memory instructions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StateSpace {
    Reg,
    Sreg,
    Const,
    Global,
    Local,
    Param,
    Shared,
    /// The PTX 1.x texture space (`.tex`).
    Tex,
}

impl StateSpace {
    pub fn from_name(s: &str) -> Option<StateSpace> {
        Some(match s {
            "reg" => StateSpace::Reg,
            "sreg" => StateSpace::Sreg,
            "const" => StateSpace::Const,
            "global" => StateSpace::Global,
            "local" => StateSpace::Local,
            "param" => StateSpace::Param,
            "shared" => StateSpace::Shared,
            "tex" => StateSpace::Tex,
            _ => return None,
        })
    }
}

/// The kind of a PTX fundamental type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TyKind {
    /// `.bN`: untyped bits.
    B,
    /// `.sN`.
    S,
    /// `.uN`.
    U,
    /// `.f16`, `.f32`, `.f64`.
    F,
    /// `.f16x2`, `.bf16`, `.bf16x2`, `.tf32`, and the narrow float formats (`.e4m3`, `.e2m1x2` ...).
    OtherFloat,
    /// `.pred`.
    Pred,
    /// `.texref`, `.samplerref`, `.surfref`: opaque handles.
    Opaque,
}

/// A PTX type with its size in bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ty {
    pub kind: TyKind,
    pub bits: u16,
}

impl Ty {
    /// Parses a type name without its dot (`u32`, `f16x2`, `e4m3`, `pred`); `None` when
    /// the word is not a type.
    pub fn from_name(s: &str) -> Option<Ty> {
        let t = |kind, bits| Some(Ty { kind, bits });
        match s {
            "pred" => return t(TyKind::Pred, 1),
            "texref" | "samplerref" | "surfref" => return t(TyKind::Opaque, 64),
            "f16x2" => return t(TyKind::OtherFloat, 32),
            "bf16" => return t(TyKind::OtherFloat, 16),
            "bf16x2" => return t(TyKind::OtherFloat, 32),
            "tf32" => return t(TyKind::OtherFloat, 32),
            "s16x2" | "u16x2" => return t(if s.starts_with('s') { TyKind::S } else { TyKind::U }, 32),
            _ => {}
        }
        // The narrow float formats: e4m3, e5m2, e2m3, e3m2, e2m1, ue8m0, ue4m3, with x2/x4.
        if let Some(rest) = s.strip_prefix('e').or_else(|| s.strip_prefix("ue")) {
            let (fmt, mult) = match rest.split_once('x') {
                Some((f, m)) => (f, m.parse::<u16>().ok()?),
                None => (rest, 1),
            };
            let bits = match fmt {
                "4m3" | "5m2" | "8m0" => 8,
                "2m3" | "3m2" => 8,
                "2m1" => 4,
                _ => return None,
            };
            return t(TyKind::OtherFloat, bits * mult);
        }
        let (kind, digits) = match s.as_bytes().first()? {
            b'b' => (TyKind::B, &s[1..]),
            b's' => (TyKind::S, &s[1..]),
            b'u' => (TyKind::U, &s[1..]),
            b'f' => (TyKind::F, &s[1..]),
            _ => return None,
        };
        let bits: u16 = match (kind, digits) {
            (TyKind::F, "16" | "32" | "64") => digits.parse().ok()?,
            (TyKind::B, "8" | "16" | "32" | "64" | "128") => digits.parse().ok()?,
            (TyKind::S | TyKind::U, "8" | "16" | "32" | "64") => digits.parse().ok()?,
            _ => return None,
        };
        t(kind, bits)
    }

    /// Bytes of one value (at least 1).
    pub fn bytes(self) -> u64 {
        u64::from(self.bits).div_ceil(8).max(1)
    }

    pub fn is_float(self) -> bool {
        matches!(self.kind, TyKind::F | TyKind::OtherFloat)
    }
}

/// A variable, register or parameter declaration: `.reg .b32 %r<10>, %x;`,
/// `.shared .align 16 .b8 smem[4096];`, `.param .align 8 .b8 retval0[24];`.
#[derive(Clone, Debug)]
pub struct VarDecl<'a> {
    pub pos: Pos,
    pub space: StateSpace,
    /// `.align N`.
    pub align: Option<u32>,
    /// Vector length of `.v2`/`.v4`/`.v8` types, 1 for scalars.
    pub vec: u8,
    pub ty: Ty,
    /// `.extern` (for variables: an unsized external declaration).
    pub external: bool,
    pub names: Vec<VarName<'a>>,
}

/// One declared name of a [`VarDecl`].
#[derive(Clone, Debug)]
pub struct VarName<'a> {
    pub name: &'a str,
    pub pos: Pos,
    /// Array dimensions; `None` for an unsized dimension (`[]`).
    pub dims: Vec<Option<u64>>,
    /// `%r<N>`: a parameterized range of N registers.
    pub range: Option<u32>,
    /// Number of scalar values in the initializer, if any.
    pub init_count: Option<u64>,
}

impl VarDecl<'_> {
    /// Bytes of one element of the declared type (vector included).
    pub fn elem_bytes(&self) -> u64 {
        self.ty.bytes() * u64::from(self.vec)
    }
}

impl VarName<'_> {
    /// Total bytes of the named object of a declaration whose elements are `elem` bytes.
    pub fn size_bytes(&self, elem: u64) -> u64 {
        let mut n: u64 = 1;
        let mut unsized_dim = false;
        for d in &self.dims {
            match d {
                Some(d) => n = n.saturating_mul(*d),
                None => unsized_dim = true,
            }
        }
        if unsized_dim {
            // An unsized dimension takes its extent from the initializer (or is 0).
            let init = self.init_count.unwrap_or(0);
            n = if n == 0 { 0 } else { init.div_ceil(n) * n };
        }
        n.saturating_mul(elem)
    }
}

/// `.entry` or `.func`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FuncKind {
    Entry,
    Func,
}

/// A function: header, performance directives and (unless a prototype) a body.
#[derive(Clone, Debug)]
pub struct FuncDecl<'a> {
    pub pos: Pos,
    pub kind: FuncKind,
    pub name: &'a str,
    pub name_pos: Pos,
    /// `.extern`: declared here, defined elsewhere.
    pub external: bool,
    /// Return parameters (`.func (.param .b32 r) f(...)`).
    pub rets: Vec<Param<'a>>,
    pub params: Vec<Param<'a>>,
    pub maxnreg: Option<u32>,
    pub maxntid: Option<Vec<u32>>,
    pub reqntid: Option<Vec<u32>>,
    pub minnctapersm: Option<u32>,
    /// `None` for a declaration without a body.
    pub body: Option<Vec<Stmt<'a>>>,
    /// The closing `}` of the body (the header's start for a declaration).
    pub close: Pos,
    /// The opening `{` of the body (the header's start for a declaration): where
    /// `parse::parse_body` reads it again when the body was dropped
    /// (`parse::parse_skeleton`).
    pub open: Pos,
    /// Where each of `.maxntid`, `.reqntid`, `.minnctapersm`, `.maxnreg` is written:
    /// (name without the dot, start, length).
    pub directives: Vec<(&'static str, Pos, u32)>,
    /// `.pragma` strings between the header and the body (`"nounroll"`: every loop of
    /// the function).
    pub pragmas: Vec<&'a str>,
}

/// One formal parameter: `.param .align 8 .b8 p[24]`, `.param .u64 .ptr.global p`,
/// `.reg .b32 %r` (register parameters of old-style device functions).
#[derive(Clone, Debug)]
pub struct Param<'a> {
    pub pos: Pos,
    pub space: StateSpace,
    pub align: Option<u32>,
    pub vec: u8,
    pub ty: Ty,
    pub name: &'a str,
    /// `Some(n)` for an array parameter `p[n]` (`Some(0)` for `p[]`).
    pub array: Option<u64>,
}

impl Param<'_> {
    /// Bytes of one element (vector included).
    pub fn elem_bytes(&self) -> u64 {
        self.ty.bytes() * u64::from(self.vec)
    }
    /// Total bytes.
    pub fn bytes(&self) -> u64 {
        self.elem_bytes() * self.array.unwrap_or(1)
    }
    /// The alignment in bytes: `.align` if given, else natural.
    pub fn alignment(&self) -> u64 {
        self.align.map(u64::from).unwrap_or(self.elem_bytes()).max(1)
    }
}

/// A statement of a function body.
#[derive(Clone, Debug)]
pub enum Stmt<'a> {
    Label(&'a str, Pos),
    /// `.pragma "a", "b";` in a body: `"nounroll"` there applies to the loop whose
    /// header block it is in (PTX ISA, "Performance-Tuning Directives").
    Pragma(Vec<&'a str>, Pos),
    Decl(VarDecl<'a>),
    Inst(Inst<'a>),
    /// A nested `{ ... }` scope.
    Block(Vec<Stmt<'a>>, Pos),
    /// `label: .branchtargets L1, L2;` (for `brx.idx`).
    BranchTargets {
        label: &'a str,
        targets: Vec<(&'a str, Pos)>,
        pos: Pos,
    },
    /// `label: .calltargets f1, f2;` (for indirect calls).
    CallTargets {
        label: &'a str,
        targets: Vec<(&'a str, Pos)>,
        pos: Pos,
    },
    /// `label: .callprototype (...) _ (...);` (for indirect calls).
    CallPrototype {
        label: &'a str,
        rets: Vec<Param<'a>>,
        params: Vec<Param<'a>>,
        pos: Pos,
    },
}

/// The guard of an instruction: `@%p` or `@!%p`.
#[derive(Clone, Debug)]
pub struct GuardAst<'a> {
    pub negated: bool,
    pub name: &'a str,
    pub pos: Pos,
}

/// One instruction.
#[derive(Clone, Debug)]
pub struct Inst<'a> {
    pub pos: Pos,
    /// Just after the terminating `;`.
    pub end: Pos,
    pub guard: Option<GuardAst<'a>>,
    /// The opcode without modifiers (`ld`, `setp`, `mma`).
    pub base: &'a str,
    /// The modifiers as written, with their dots (`.global.v4.f32`); see [`Inst::mods`].
    pub mods_text: &'a str,
    pub ops: Vec<Operand<'a>>,
}

impl<'a> Inst<'a> {
    /// The modifiers without their leading dots (`global`, `v4`, `f32`, `shared::cta`),
    /// split on demand into a small array on the stack.
    pub fn mods(&self) -> Mods<'a> {
        let mut m = Mods { buf: [""; MAX_MODS], len: 0 };
        for w in self.mods_text.split('.').skip(1) {
            if (m.len as usize) < MAX_MODS {
                m.buf[m.len as usize] = w;
                m.len += 1;
            }
        }
        m
    }
}

/// Most modifiers one instruction may carry (the parser rejects more).
pub const MAX_MODS: usize = 24;

/// An instruction's modifiers, inline (no allocation per instruction).
#[derive(Clone, Copy, Debug)]
pub struct Mods<'a> {
    buf: [&'a str; MAX_MODS],
    len: u8,
}

impl<'a> std::ops::Deref for Mods<'a> {
    type Target = [&'a str];
    fn deref(&self) -> &[&'a str] {
        &self.buf[..self.len as usize]
    }
}

/// A literal value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Lit {
    /// An integer (64-bit two's complement; `0xFFFFFFFFFFFFFFFF` is -1).
    Int(i64),
    /// `0fXXXXXXXX`: f32 bits.
    F32(u32),
    /// `0dXXXXXXXXXXXXXXXX`: f64 bits.
    F64(u64),
    /// A decimal floating-point literal (`1.5`), double precision.
    Float(f64),
}

/// An operand with its position.
#[derive(Clone, Debug)]
pub struct Operand<'a> {
    pub pos: Pos,
    pub kind: OpKind<'a>,
}

/// What an operand looks like.
#[derive(Clone, Debug)]
pub enum OpKind<'a> {
    /// A name, possibly with a vector component (`%r1`, `%tid.x`, `%v.y`, `$L__BB0_1`).
    Name {
        name: &'a str,
        comp: Option<u8>,
    },
    Imm(Lit),
    /// `name+offset` (the address of a variable plus a constant).
    NameOffset {
        name: &'a str,
        offset: i64,
    },
    /// `!%p`.
    Not(Box<Operand<'a>>),
    /// `{a, b, c, d}`.
    Vector(Vec<Operand<'a>>),
    /// `_`: a discarded value.
    Sink,
    /// `[ ... ]`: an address, possibly followed by further items (`[tex, {%f1, %f2}]`).
    Mem(Vec<MemItem<'a>>),
    /// `a|b`: two destinations (`setp`, `shfl`).
    Pair(Box<Operand<'a>>, Box<Operand<'a>>),
    /// `( ... )`: the return or argument list of `call`.
    List(Vec<Operand<'a>>),
}

/// One comma-separated item inside `[ ... ]`.
#[derive(Clone, Debug)]
pub enum MemItem<'a> {
    /// `name (+|- name)* (+|- const)*`: an address.
    Addr { names: AddrNames<'a>, offset: i64, pos: Pos },
    /// Any other operand (a vector of coordinates, ...).
    Other(Operand<'a>),
}

/// The names of an address (at most two: base and index, or a variable), inline.
#[derive(Clone, Copy, Debug, Default)]
pub struct AddrNames<'a> {
    items: [(&'a str, Option<u8>, Pos); 2],
    len: u8,
}

impl<'a> AddrNames<'a> {
    /// Adds a name; false when the address already has two.
    pub fn push(&mut self, name: &'a str, comp: Option<u8>, pos: Pos) -> bool {
        if self.len as usize >= self.items.len() {
            return false;
        }
        self.items[self.len as usize] = (name, comp, pos);
        self.len += 1;
        true
    }
}

impl<'a> std::ops::Deref for AddrNames<'a> {
    type Target = [(&'a str, Option<u8>, Pos)];
    fn deref(&self) -> &Self::Target {
        &self.items[..self.len as usize]
    }
}
