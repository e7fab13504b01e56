//! The PTX opcode → Ori mnemonic mapping and the operand-role table.
//!
//! Owns: which SASS-flavoured Ori mnemonic each PTX instruction becomes (chosen by
//! its opcode and type), which of its operands are written, the modifiers kept, and
//! the special-register names. Must not know: how operands are resolved or lowered
//! (that is `lower`).
//!
//! Roles: by default the first operand is written and the rest are read, except when
//! the first operand is an address, an immediate or a symbol (stores, reductions,
//! `cp.async`, `mbarrier.init`: nothing is written). Opcodes whose first register
//! operand is read are listed as [`Role::NoDef`]; `wgmma.mma_async` reads and writes
//! its accumulators ([`Role::DefUse`]). A PTX opcode missing from this table still
//! imports by the default rule, with a warning.

use std::borrow::Cow;

use super::ast::{Inst, Ty, TyKind};

/// Which operands an instruction writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Operand 0 is written (when it is a register, vector or `a|b` pair); the rest are read.
    FirstDef,
    /// Every operand is read.
    NoDef,
    /// Operand 0 is written and also read (accumulators).
    DefUse,
}

/// How one PTX instruction maps to Ori.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mapping<'a> {
    /// The Ori mnemonic (upper case; may be one radbg's opcode table lacks).
    pub mnemonic: Cow<'static, str>,
    /// A modifier naming the PTX operation where several map to one mnemonic (`sub`,
    /// written `.SUB`), or naming a variant (`cvt`).
    pub tag: Option<&'a str>,
    pub role: Role,
    /// False when the PTX opcode is not in this table (imported by the default rule).
    pub known: bool,
}

/// Coarse type classes that pick the functional unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    Pred,
    Int,
    F32,
    F64,
    /// f16, bf16 and their x2 forms, and the narrow float formats.
    Half,
}

/// The PTX types among an instruction's modifiers, in order.
pub fn types<'m>(mods: &'m [&str]) -> impl DoubleEndedIterator<Item = Ty> + 'm {
    mods.iter().filter_map(|m| Ty::from_name(m))
}

/// The last type modifier (the operation type of most instructions).
pub fn last_type(mods: &[&str]) -> Option<Ty> {
    types(mods).next_back()
}

/// The class of a type.
pub fn class_of(t: Ty) -> Class {
    match (t.kind, t.bits) {
        (TyKind::Pred, _) => Class::Pred,
        (TyKind::F, 32) => Class::F32,
        (TyKind::F, 64) => Class::F64,
        (TyKind::F | TyKind::OtherFloat, _) => Class::Half,
        _ => Class::Int,
    }
}

/// The class of the last type modifier (the operation type), Int when none.
pub fn op_class(mods: &[&str]) -> Class {
    mods.iter().rev().find_map(|m| Ty::from_name(m)).map(class_of).unwrap_or(Class::Int)
}

/// The state space named among the modifiers (`global`, `shared::cta` ...).
pub fn space_of<'a>(mods: &[&'a str]) -> Option<&'a str> {
    mods.iter()
        .copied()
        .find(|m| matches!(space_base(m), "global" | "shared" | "local" | "const" | "param" | "tex" | "generic"))
}

/// `shared::cta` → `shared`.
pub fn space_base(s: &str) -> &str {
    match s.find(':') {
        Some(k) => &s[..k],
        None => s,
    }
}

/// The mapping of an instruction other than the ones `lower` handles itself (`mov`,
/// `ld`, `st`, `call`, `ret`, `exit`, `bra`, `brx`).
pub fn map<'a>(inst: &Inst<'a>) -> Mapping<'a> {
    map_with(inst.base, &inst.mods())
}

/// [`map`] for an opcode whose modifiers are already split.
pub fn map_with<'a>(base: &'a str, mods: &[&str]) -> Mapping<'a> {
    let class = op_class(mods);
    let has = |m: &str| mods.contains(&m);
    let m = |mn: &'static str, tag: bool, role: Role| Mapping {
        mnemonic: Cow::Borrowed(mn),
        tag: if tag { Some(base) } else { None },
        role,
        known: true,
    };
    let upper = |role: Role| Mapping { mnemonic: Cow::Owned(base.to_ascii_uppercase()), tag: None, role, known: true };
    use Role::*;
    let arith = |i: &'static str, f: &'static str, d: &'static str, h: &'static str| match class {
        Class::F32 => f,
        Class::F64 => d,
        Class::Half => h,
        _ => i,
    };
    match base {
        "add" => m(arith("IADD3", "FADD", "DADD", "HADD2"), false, FirstDef),
        "sub" | "addc" | "subc" => m(arith("IADD3", "FADD", "DADD", "HADD2"), true, FirstDef),
        "mul" => m(arith("IMAD", "FMUL", "DMUL", "HMUL2"), class == Class::Int, FirstDef),
        "mad" | "fma" => m(arith("IMAD", "FFMA", "DFMA", "HFMA2"), false, FirstDef),
        "madc" | "mul24" | "mad24" | "dp4a" | "dp2a" => m("IMAD", true, FirstDef),
        "sad" => m("IADD3", true, FirstDef),
        "div" | "rem" => m(if class == Class::Int { "IMAD" } else { "MUFU" }, true, FirstDef),
        "abs" => m(arith("IABS", "FADD", "DADD", "HADD2"), class != Class::Int, FirstDef),
        "neg" => m(arith("IADD3", "FADD", "DADD", "HADD2"), true, FirstDef),
        "min" | "max" => m(if class == Class::Int { "IMNMX" } else { "FMNMX" }, true, FirstDef),
        "popc" => m("POPC", false, FirstDef),
        "clz" | "bfind" | "fns" => m("FLO", true, FirstDef),
        "brev" => m("BREV", false, FirstDef),
        "bfe" | "szext" => m("SHF", true, FirstDef),
        "bfi" | "copysign" => m("LOP3", true, FirstDef),
        "bmsk" => m("BMSK", false, FirstDef),
        "and" | "or" | "xor" | "not" | "cnot" => m(if class == Class::Pred { "PLOP3" } else { "LOP3" }, true, FirstDef),
        "lop3" => m("LOP3", false, FirstDef),
        "shl" => m("SHL", false, FirstDef),
        "shr" => m("SHR", false, FirstDef),
        "shf" => m("SHF", false, FirstDef),
        "prmt" => m("PRMT", false, FirstDef),
        "testp" => m("FSETP", true, FirstDef),
        "setp" => m(arith("ISETP", "FSETP", "DSETP", "FSETP"), false, FirstDef),
        // `set` writes 0/-1 (or 0.0/1.0) into a register: a compare feeding a select.
        "set" => m(if class == Class::F32 { "FSEL" } else { "SEL" }, true, FirstDef),
        "selp" => m(if class == Class::F32 { "FSEL" } else { "SEL" }, false, FirstDef),
        "slct" => m("SEL", true, FirstDef),
        "cvt" => cvt(mods),
        "cvta" => {
            // Generic and global addresses coincide on every target ptxas 13 supports,
            // so cvta to/from .global is a plain copy; the other windows add a base.
            if has("global") { m("MOV", true, FirstDef) } else { m("IADD3", true, FirstDef) }
        }
        "rcp" | "sqrt" | "rsqrt" | "sin" | "cos" | "lg2" | "ex2" | "tanh" => m("MUFU", true, FirstDef),
        "vote" => m("VOTE", false, FirstDef),
        "activemask" => m("VOTE", true, FirstDef),
        "match" => m("MATCH", false, FirstDef),
        "shfl" => m("SHFL", false, FirstDef),
        "redux" => m("REDUX", false, FirstDef),
        "elect" => m("ELECT", false, FirstDef),
        "bar" | "barrier" => {
            if has("warp") {
                m("WARPSYNC", false, NoDef)
            } else if has("red") {
                m("BAR", false, FirstDef)
            } else {
                m("BAR", false, NoDef)
            }
        }
        "membar" | "fence" => m("MEMBAR", false, NoDef),
        "nanosleep" => m("NANOSLEEP", false, NoDef),
        "trap" => m("BPT", true, NoDef),
        "brkpt" => m("BPT", false, NoDef),
        "pmevent" => m("PMTRIG", false, NoDef),
        "griddepcontrol" => m("GRIDDEPCONTROL", false, NoDef),
        "setmaxnreg" => m("SETMAXNREG", false, NoDef),
        "atom" => match space_of(mods).map(space_base) {
            Some("global") => m("ATOMG", false, FirstDef),
            Some("shared") => m("ATOMS", false, FirstDef),
            _ => m("ATOM", false, FirstDef),
        },
        "red" => match space_of(mods).map(space_base) {
            Some("shared") => m("ATOMS", true, NoDef),
            _ => m("RED", false, NoDef),
        },
        "prefetch" | "prefetchu" | "discard" | "applypriority" => m("CCTL", true, NoDef),
        "createpolicy" => m("CREATEPOLICY", false, FirstDef),
        "isspacep" => m("QSPC", false, FirstDef),
        "istypep" | "getctarank" | "mapa" | "alloca" | "stacksave" => upper(FirstDef),
        "stackrestore" => m("STACKRESTORE", false, NoDef),
        "cp" => {
            if has("reduce") {
                m("UBLKRED", false, NoDef)
            } else if has("commit_group") {
                m("LDGDEPBAR", false, NoDef)
            } else if has("wait_group") || has("wait_all") {
                m("DEPBAR", false, NoDef)
            } else if has("mbarrier") {
                m("SYNCS", true, NoDef)
            } else if has("bulk") {
                m(if has("tensor") { "UTMALDG" } else { "UBLKCP" }, false, NoDef)
            } else {
                m("LDGSTS", false, NoDef)
            }
        }
        "mbarrier" => m("SYNCS", false, FirstDef),
        "tex" => m("TEX", false, FirstDef),
        "tld4" | "txq" => m("TEX", true, FirstDef),
        "suld" => m("SULD", false, FirstDef),
        "sust" => m("SUST", false, NoDef),
        "sured" => m("SUATOM", true, NoDef),
        "suq" => m("SUQUERY", false, FirstDef),
        "mma" => m(mma_unit(mods), false, FirstDef),
        "wmma" => {
            if has("load") {
                m(mem_mnemonic(mods, "LDG", "LDS", "LD"), true, FirstDef)
            } else if has("store") {
                m(mem_mnemonic(mods, "STG", "STS", "ST"), true, NoDef)
            } else {
                m(mma_unit(mods), true, FirstDef)
            }
        }
        "wgmma" => {
            if has("mma_async") {
                m("WGMMA", false, DefUse)
            } else {
                m("WARPGROUP", false, NoDef)
            }
        }
        "ldmatrix" => m("LDSM", false, FirstDef),
        "stmatrix" => m("STSM", false, NoDef),
        "movmatrix" => m("MOVM", false, FirstDef),
        // `tcgen05.dealloc taddr, ncols` reads its register; the other forms write
        // their first register operand or start with an address.
        "tcgen05" => m("UTC", true, if has("dealloc") { NoDef } else { FirstDef }),
        "tensormap" | "multimem" | "clusterlaunchcontrol" => upper(FirstDef),
        b if is_video(b) => m("VIDEO", true, FirstDef),
        _ => Mapping { mnemonic: Cow::Owned(sanitize_mnemonic(base)), tag: None, role: FirstDef, known: false },
    }
}

/// The SIMD video instructions (`vadd`, `vabsdiff4`, `vset2` ...).
fn is_video(b: &str) -> bool {
    let stem = b.trim_end_matches(['2', '4']);
    matches!(stem, "vadd" | "vsub" | "vabsdiff" | "vmin" | "vmax" | "vshl" | "vshr" | "vmad" | "vset" | "vavrg")
}

fn mma_unit(mods: &[&str]) -> &'static str {
    if types(mods).any(|t| matches!(t.kind, TyKind::S | TyKind::U))
        || mods.contains(&"b1")
        || mods.contains(&"s4")
        || mods.contains(&"u4")
    {
        "IMMA"
    } else if types(mods).all(|t| t.kind == TyKind::F && t.bits == 64) && last_type(mods).is_some() {
        "DMMA"
    } else {
        "HMMA"
    }
}

fn mem_mnemonic(mods: &[&str], global: &'static str, shared: &'static str, generic: &'static str) -> &'static str {
    match space_of(mods).map(space_base) {
        Some("global") => global,
        Some("shared") => shared,
        _ => generic,
    }
}

/// `cvt.D.S`: float↔float is F2F, float→int F2I, int→float I2F, int↔int a byte
/// permute (how SASS sign- and zero-extends).
fn cvt<'a>(mods: &[&str]) -> Mapping<'a> {
    let mut tys = types(mods);
    let (d, s) = match (tys.next(), tys.next()) {
        (Some(d), Some(s)) => (d, s),
        (Some(d), None) => (d, d),
        _ => return Mapping { mnemonic: Cow::Borrowed("PRMT"), tag: Some("cvt"), role: Role::FirstDef, known: true },
    };
    let (mn, tag) = match (d.is_float(), s.is_float()) {
        (true, true) => ("F2F", false),
        (false, true) => ("F2I", false),
        (true, false) => ("I2F", false),
        (false, false) => ("PRMT", true),
    };
    Mapping { mnemonic: Cow::Borrowed(mn), tag: tag.then_some("cvt"), role: Role::FirstDef, known: true }
}

/// An upper-case Ori mnemonic from a PTX opcode: letters, digits and `_` only.
pub fn sanitize_mnemonic(base: &str) -> String {
    let mut s: String =
        base.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_uppercase() } else { '_' }).collect();
    if !s.starts_with(|c: char| c.is_ascii_uppercase()) {
        s.insert(0, 'X');
    }
    s
}

/// Ori modifiers from PTX ones: upper case, `::` joined by `_` (`.SHARED_CTA`), each
/// with its leading dot; the tag and `extra` words first. `drop` removes modifiers
/// the mnemonic already says.
pub fn ori_mods(tag: Option<&str>, extra: &[&str], mods: &[&str], drop: impl Fn(&str) -> bool) -> String {
    let mut out = String::with_capacity(24);
    let words = tag.into_iter().chain(extra.iter().copied()).chain(mods.iter().copied().filter(|m| !drop(m)));
    for m in words {
        out.push('.');
        let mut colon = false;
        for c in m.chars() {
            // `a::b` becomes `A_B`.
            if c == ':' {
                if !colon {
                    out.push('_');
                }
                colon = true;
                continue;
            }
            colon = false;
            out.push(c.to_ascii_uppercase());
        }
    }
    out
}

/// The Ori special register for a PTX one (`%tid` + component `x` → `SR_TID.X`), and
/// whether it is 64 bits wide (read with CS2R).
pub fn special_register(name: &str, comp: Option<u8>) -> Option<(String, bool)> {
    let base = name.strip_prefix('%')?;
    let xyz = |c: Option<u8>| match c {
        Some(0) => Some("X"),
        Some(1) => Some("Y"),
        Some(2) => Some("Z"),
        _ => None,
    };
    let vec3 = ["tid", "ntid", "ctaid", "nctaid", "clusterid", "nclusterid", "cluster_ctaid", "cluster_nctaid"];
    if vec3.contains(&base) {
        let c = xyz(comp)?;
        return Some((format!("SR_{}.{c}", base.to_ascii_uppercase()), false));
    }
    if comp.is_some() {
        return None;
    }
    let fixed = match base {
        "clock" => Some(("SR_CLOCKLO", false)),
        "clock_hi" => Some(("SR_CLOCKHI", false)),
        "clock64" => Some(("SR_CLOCKLO", true)),
        "globaltimer" => Some(("SR_GLOBALTIMERLO", true)),
        "globaltimer_lo" => Some(("SR_GLOBALTIMERLO", false)),
        "globaltimer_hi" => Some(("SR_GLOBALTIMERHI", false)),
        "lanemask_eq" => Some(("SR_EQMASK", false)),
        "lanemask_le" => Some(("SR_LEMASK", false)),
        "lanemask_lt" => Some(("SR_LTMASK", false)),
        "lanemask_ge" => Some(("SR_GEMASK", false)),
        "lanemask_gt" => Some(("SR_GTMASK", false)),
        _ => None,
    };
    if let Some((n, wide)) = fixed {
        return Some((n.to_string(), wide));
    }
    let scalar = [
        "laneid",
        "warpid",
        "nwarpid",
        "smid",
        "nsmid",
        "gridid",
        "total_smem_size",
        "aggr_smem_size",
        "dynamic_smem_size",
        "reserved_smem_offset_begin",
        "reserved_smem_offset_end",
        "reserved_smem_offset_cap",
        "reserved_smem_offset_0",
        "reserved_smem_offset_1",
        "is_explicit_cluster",
        "cluster_ctarank",
        "cluster_nctarank",
        "current_graph_exec",
    ];
    let pm = base.strip_prefix("pm").is_some_and(|d| matches!(d, "0" | "1" | "2" | "3" | "4" | "5" | "6" | "7"));
    let pm64 = base.strip_prefix("pm").and_then(|d| d.strip_suffix("_64")).is_some_and(|d| d.len() == 1);
    let envreg = base.strip_prefix("envreg").is_some_and(|d| !d.is_empty() && d.parse::<u32>().is_ok_and(|n| n < 32));
    if scalar.contains(&base) || pm || envreg {
        return Some((format!("SR_{}", base.to_ascii_uppercase()), false));
    }
    if pm64 || base == "current_graph_exec" {
        return Some((format!("SR_{}", base.to_ascii_uppercase()), true));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::ptx::ast::Inst;

    fn check(text: &str, want: (&str, Option<&str>, Role, bool)) {
        let (base, mods_text) = text.split_at(text.find('.').unwrap_or(text.len()));
        let inst = Inst { pos: 0, end: 0, guard: None, base, mods_text, ops: Vec::new() };
        let got = map(&inst);
        let tag = got.tag.map(|t| t.to_ascii_uppercase());
        assert_eq!((got.mnemonic.as_ref(), tag.as_deref(), got.role, got.known), want, "mapping of {text}");
    }

    #[test]
    fn opcode_mapping_follows_the_type() {
        use Role::*;
        check("add.s32", ("IADD3", None, FirstDef, true));
        check("add.f32", ("FADD", None, FirstDef, true));
        check("add.rn.f64", ("DADD", None, FirstDef, true));
        check("sub.f16x2", ("HADD2", Some("SUB"), FirstDef, true));
        check("mad.lo.s32", ("IMAD", None, FirstDef, true));
        check("fma.rn.f64", ("DFMA", None, FirstDef, true));
        check("setp.ge.s32", ("ISETP", None, FirstDef, true));
        check("setp.lt.f32", ("FSETP", None, FirstDef, true));
        check("and.pred", ("PLOP3", Some("AND"), FirstDef, true));
        check("and.b32", ("LOP3", Some("AND"), FirstDef, true));
        check("cvt.rn.f32.s32", ("I2F", None, FirstDef, true));
        check("cvt.rzi.s32.f32", ("F2I", None, FirstDef, true));
        check("cvt.u64.u32", ("PRMT", Some("CVT"), FirstDef, true));
        check("bar.sync", ("BAR", None, NoDef, true));
        check("bar.red.popc.u32", ("BAR", None, FirstDef, true));
        check("bar.warp.sync", ("WARPSYNC", None, NoDef, true));
        check("atom.global.add.u32", ("ATOMG", None, FirstDef, true));
        check("atom.shared::cta.add.u32", ("ATOMS", None, FirstDef, true));
        check("red.global.add.f32", ("RED", None, NoDef, true));
        check("shfl.sync.down.b32", ("SHFL", None, FirstDef, true));
        check("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", ("HMMA", None, FirstDef, true));
        check("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32", ("IMMA", None, FirstDef, true));
        check("wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16", ("WGMMA", None, DefUse, true));
        check("ldmatrix.sync.aligned.m8n8.x4.shared.b16", ("LDSM", None, FirstDef, true));
        check("cp.async.ca.shared.global", ("LDGSTS", None, NoDef, true));
        check("cp.async.wait_group", ("DEPBAR", None, NoDef, true));
        check("setmaxnreg.inc.sync.aligned.u32", ("SETMAXNREG", None, NoDef, true));
        check("frobnicate.b32", ("FROBNICATE", None, FirstDef, false));
        check("vabsdiff4.u32.u32.u32", ("VIDEO", Some("VABSDIFF4"), FirstDef, true));
        check("tcgen05.dealloc.cta_group::1.sync.aligned.b32", ("UTC", Some("TCGEN05"), NoDef, true));
        check("tcgen05.ld.sync.aligned.16x64b.x4.b32", ("UTC", Some("TCGEN05"), FirstDef, true));
        check("set.eq.u32.s32", ("SEL", Some("SET"), FirstDef, true));
    }

    #[test]
    fn modifiers_and_special_registers() {
        assert_eq!(ori_mods(Some("SUB"), &[], &["shared::cta", "u32"], |_| false), ".SUB.SHARED_CTA.U32");
        assert_eq!(ori_mods(None, &["E"], &["global", "f32"], |m| m == "global"), ".E.F32");
        assert_eq!(special_register("%tid", Some(0)), Some(("SR_TID.X".into(), false)));
        assert_eq!(special_register("%clock64", None), Some(("SR_CLOCKLO".into(), true)));
        assert_eq!(special_register("%laneid", None), Some(("SR_LANEID".into(), false)));
        assert_eq!(special_register("%envreg3", None), Some(("SR_ENVREG3".into(), false)));
        assert_eq!(special_register("%tid", None), None);
        assert_eq!(special_register("%r1", None), None);
        assert_eq!(sanitize_mnemonic("tcgen05"), "TCGEN05");
    }
}
