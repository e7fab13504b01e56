//! The ABI diagnostic catalogue (seed 001, "Complete Warning Catalog"): every message
//! the ABI engine can print, with its decimal code, hex id and emitter, and the
//! printf-style formatting that fills in the arguments.
//!
//! Owns: message texts, exactly as ptxas spells them (including `Register (%s%d)is`
//! without a space and the trailing space of 7017). Must not know: when a message
//! fires — that is the checks' business.

/// One catalogue entry.
#[derive(Debug, PartialEq, Eq)]
pub struct Diag {
    /// Decimal warning code; 0 for the seed's un-numbered ABI messages.
    pub code: u32,
    /// The ptxas function that emits it (seed 001 "Complete Warning Catalog").
    pub emitter: &'static str,
    /// The printf format, verbatim.
    pub format: &'static str,
}

const fn d(code: u32, emitter: &'static str, format: &'static str) -> Diag {
    Diag { code, emitter, format }
}

pub const W7001: Diag = d(7001, "sub_19CDFF0", "ABI return address %d is unaligned");
pub const W7002: Diag = d(7002, "sub_19CDFF0", "Return Address (%d) should be less than %d");
pub const W7003: Diag = d(7003, "sub_19CDFF0", "Return address (%d) should not overlap with the stack pointer (%d)");
pub const W7004: Diag = d(7004, "sub_19CDFF0", "Return Address %d overlaps with parameters in range %d - %d");
pub const W7005: Diag = d(
    7005,
    "sub_19CDFF0",
    "With specified parameters, return address is %d registers and exceeds specified max reg (%d)",
);
pub const W7006: Diag =
    d(7006, "sub_19D1720", "ABI allows either specifying return address or return address before params");
pub const W7008: Diag = d(7008, "sub_19CDFF0", "Return address (%d) should be between %d and %d");
pub const W7009: Diag = d(7009, "sub_19CDFF0", "SM does not support uniform registers for return address");
pub const W7010: Diag =
    d(7010, "sub_13B6DF0", "Relative 32-bit return address requires a caller-save 64-bit scratch register pair");
pub const W7011: Diag =
    d(7011, "sub_19D1AF0", "Register (%s%d)is defined as scratch on SUSPEND but preserved for coroutine function");
pub const W7012: Diag = d(7012, "sub_19D1720", "%d register should not be classified as scratch");
pub const W7013: Diag = d(7013, "sub_19CA730", "%d register used to return value cannot be classified as preserved");
pub const W7014: Diag =
    d(7014, "sub_19CA730", "Reserved register range %d - %d overlaps with parameters in range %d - %d");
pub const W7015: Diag = d(7015, "sub_19C69D0", "Reserved register range %d - %d overlaps with retAddr %d");
pub const W7016: Diag = d(7016, "sub_19D1AF0", "regcount %d specified below abi_minimum of %d");
pub const W7017: Diag =
    d(7017, "sub_19D1AF0", "register available %d for reservation is less than the requested number of registers %d ");
pub const W7020: Diag =
    d(7020, "sub_19D13F0", "Missing proper convergent boundary around func call annotated with allowConvAlloc");
pub const W7801: Diag = d(7801, "sub_19DDEF0", "Function '%s' uses reserved shared memory when not allowed.");

/// Un-numbered: the parameter allocator's size error (sub_19CA730).
pub const SIZE_ERROR: Diag = d(0, "sub_19CA730", "Function %s size requires more registers(%d) than available(%d)");
/// Un-numbered: R0–R3 are the ABI's (seed 001, "Reserved Registers").
pub const RESERVED_R0_R3: Diag = d(0, "allocator", "Registers 0-3 are reserved by ABI and cannot be used for %s");
/// Un-numbered: the single-call checker of a convergent region (sub_19C6400).
pub const MULTIPLE_CALLS: Diag =
    d(0, "sub_19C6400", "Multiple functions calls within the allowConvAlloc convergent boundary");

/// Un-numbered: the return-address register validated against the parameter ranges
/// (seed 001, "Return Address Register": "fires when parameter and return address
/// ranges collide"). The seed names no emitter; radbg runs it in the validator
/// (sub_19CDFF0) on the computed path, the one path where 7004 does not look.
pub const PARAM_RETADDR_OVERLAP: Diag =
    d(0, "sub_19CDFF0", "Parameter registers from R%d to R%d overlap with return address register R%d to R%d");

/// Every entry, numbered ones by code, then the un-numbered ones.
pub const CATALOG: &[&Diag] = &[
    &W7001,
    &W7002,
    &W7003,
    &W7004,
    &W7005,
    &W7006,
    &W7008,
    &W7009,
    &W7010,
    &W7011,
    &W7012,
    &W7013,
    &W7014,
    &W7015,
    &W7016,
    &W7017,
    &W7020,
    &W7801,
    &SIZE_ERROR,
    &RESERVED_R0_R3,
    &MULTIPLE_CALLS,
    &PARAM_RETADDR_OVERLAP,
];

/// The hex id ptxas's context-attached emitter uses: `0x1B59 + (code - 7001)`
/// (seed 001). That is the code itself read in hex (7001 = 0x1B59); 0 stays 0.
pub fn hex(code: u32) -> u32 {
    if code == 0 { 0 } else { 0x1B59 + (code - 7001) }
}

/// A printf argument.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Arg {
    Int(i64),
    Str(String),
}

impl From<i64> for Arg {
    fn from(v: i64) -> Arg {
        Arg::Int(v)
    }
}
impl From<u32> for Arg {
    fn from(v: u32) -> Arg {
        Arg::Int(v as i64)
    }
}
impl From<u16> for Arg {
    fn from(v: u16) -> Arg {
        Arg::Int(v as i64)
    }
}
impl From<&str> for Arg {
    fn from(v: &str) -> Arg {
        Arg::Str(v.to_string())
    }
}
impl From<String> for Arg {
    fn from(v: String) -> Arg {
        Arg::Str(v)
    }
}

impl Diag {
    /// Fills `%d` and `%s` in order. Surplus conversions print `?` and surplus
    /// arguments are ignored, so a wrong call shows in the text instead of panicking.
    pub fn format(&self, args: &[Arg]) -> String {
        let mut out = String::with_capacity(self.format.len() + 16);
        let mut it = args.iter();
        let mut chars = self.format.chars().peekable();
        while let Some(c) = chars.next() {
            if c == '%' && matches!(chars.peek(), Some('d') | Some('s')) {
                chars.next();
                match it.next() {
                    Some(Arg::Int(v)) => out.push_str(&v.to_string()),
                    Some(Arg::Str(s)) => out.push_str(s),
                    None => out.push('?'),
                }
            } else {
                out.push(c);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_ids_follow_the_seed_range() {
        assert_eq!(hex(7001), 0x1B59);
        assert_eq!(hex(7016), 0x1B68);
        assert_eq!(hex(7017), 0x1B69);
        assert_eq!(hex(7020), 7020);
        assert_eq!(hex(7801), 7801);
        assert_eq!(hex(0), 0);
    }

    #[test]
    fn formatting_keeps_odd_spacing() {
        assert_eq!(
            W7011.format(&["R".into(), 20u32.into()]),
            "Register (R20)is defined as scratch on SUSPEND but preserved for coroutine function"
        );
        assert_eq!(
            W7017.format(&[8u32.into(), 16u32.into()]),
            "register available 8 for reservation is less than the requested number of registers 16 "
        );
        assert_eq!(W7002.format(&[70u32.into()]), "Return Address (70) should be less than ?");
    }

    #[test]
    fn codes_are_sorted_and_unique() {
        let codes: Vec<u32> = CATALOG.iter().map(|d| d.code).filter(|&c| c != 0).collect();
        assert!(codes.windows(2).all(|w| w[0] < w[1]));
    }
}
