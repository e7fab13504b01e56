//! How PTX parameters become registers: the device-function ABI descriptors of seed
//! 001 and the kernel-parameter constant-bank layout.
//!
//! Owns: splitting a `.param` into register pieces with their `count x size`
//! descriptors (seed 001, "Parameter Passing", "Parameter/Return Descriptor Entry"),
//! and the constant-bank base of kernel parameters per target. Must not know: vregs,
//! instructions, or the parameter allocator itself (that is `crate::abi`).
//!
//! A device-function parameter occupies `ceil(bytes / 4)` consecutive R registers,
//! aligned to its alignment (4, 8 or 16 bytes → 1, 2 or 4 registers). radbg binds each
//! piece to a vreg whose width never exceeds the parameter's alignment, so that the
//! registers the ABI engine pins a piece to are always legal for the vreg (a pair is
//! even-aligned, a quad 4-aligned): `.b64` → one pair (`1x8`), `.align 16 .b8 p[16]` →
//! one quad (`4x4 align 16`), `.align 4 .b8 p[16]` → four singles (`1x4` each),
//! `.align 8 .b8 p[24]` → three pairs. ptxas keeps one descriptor per parameter;
//! splitting places the pieces identically except when an earlier parameter left an
//! alignment hole the smaller pieces could fill (documented as a gap).

use crate::ir::abi_spec::AbiValue;

/// One register piece of a parameter: its byte offset in the parameter, its width in
/// registers (1, 2 or 4) and its ABI descriptor (unbound).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Piece {
    pub offset: u64,
    pub bytes: u64,
    pub width: u8,
    pub value: AbiValue,
}

/// Most registers one parameter may take: beyond this it would not fit the register
/// file (255) anyway, and ptxas passes it on the stack.
pub const MAX_PARAM_REGS: u64 = 255;

/// Splits a parameter of `bytes` bytes, whose elements are `elem` bytes and whose
/// alignment is `align` bytes (`.align`, else natural), into register pieces.
/// `scalar` is true for a non-array, non-vector parameter (its descriptor keeps the
/// type's size: `.b64` is `1x8`).
pub fn pieces(bytes: u64, elem: u64, align: u64, scalar: bool) -> Vec<Piece> {
    let regs = bytes.div_ceil(4).min(MAX_PARAM_REGS);
    let align_regs = match align {
        0..=7 => 1,
        8..=15 => 2,
        _ => 4,
    };
    let mut out = Vec::new();
    let mut reg = 0u64;
    while reg < regs {
        let left = regs - reg;
        let width = [4u64, 2, 1].into_iter().find(|&w| w <= align_regs && w <= left).unwrap_or(1);
        let offset = reg * 4;
        let piece_bytes = (width * 4).min(bytes - offset);
        let size = if scalar {
            elem.min(piece_bytes).max(1)
        } else if elem >= 4 && piece_bytes % elem.min(8) == 0 {
            elem.min(8).min(piece_bytes)
        } else if piece_bytes % 4 == 0 {
            4
        } else {
            elem.clamp(1, 4).min(piece_bytes)
        };
        let size = if piece_bytes % size == 0 { size } else { 1 };
        let natural = size.max(4);
        // The first piece carries the parameter's own alignment; the rest follow it.
        let piece_align = if reg == 0 { (width * 4).max(align.min(16)) } else { width * 4 };
        out.push(Piece {
            offset,
            bytes: piece_bytes,
            width: width as u8,
            value: AbiValue {
                count: (piece_bytes / size) as u32,
                size: size as u32,
                align: (piece_align > natural).then_some(piece_align as u32),
                bind: None,
            },
        });
        reg += width;
    }
    out
}

/// The constant-bank offset where kernel parameters start (`c[0x0][BASE]`): 0x20 on
/// Fermi and older, 0x140 from Kepler through Pascal, 0x160 on Volta through Ada,
/// 0x210 on Hopper and 0x380 on Blackwell and later — the offsets ptxas's SASS uses
/// for the first parameter on each generation.
pub fn kernel_param_base(sm_version: u32) -> u32 {
    match sm_version {
        0..=29 => 0x20,
        30..=69 => 0x140,
        70..=89 => 0x160,
        90..=99 => 0x210,
        _ => 0x380,
    }
}

/// Lays kernel parameters out in the constant bank: each at the next multiple of its
/// alignment. Returns the offsets (relative to the base).
pub fn kernel_param_offsets(params: &[(u64, u64)]) -> Vec<u64> {
    let mut off = 0u64;
    params
        .iter()
        .map(|&(bytes, align)| {
            let a = align.clamp(1, 256);
            off = off.div_ceil(a) * a;
            let here = off;
            off = off.saturating_add(bytes);
            here
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (bytes, elem, align, scalar) → "COUNTxSIZE[ align A]/width" per piece.
    fn check(bytes: u64, elem: u64, align: u64, scalar: bool, want: &[&str]) {
        let got: Vec<String> = pieces(bytes, elem, align, scalar)
            .iter()
            .map(|p| {
                let a = p.value.align.map(|a| format!(" align {a}")).unwrap_or_default();
                format!("{}x{}{a}/{}", p.value.count, p.value.size, p.width)
            })
            .collect();
        assert_eq!(got, want, "bytes {bytes} elem {elem} align {align}");
    }

    #[test]
    fn parameters_split_into_aligned_pieces() {
        check(4, 4, 4, true, &["1x4/1"]);
        check(8, 8, 8, true, &["1x8/2"]);
        check(2, 2, 2, true, &["1x2/1"]);
        check(1, 1, 1, true, &["1x1/1"]);
        check(16, 1, 16, false, &["4x4 align 16/4"]);
        check(16, 1, 4, false, &["1x4/1", "1x4/1", "1x4/1", "1x4/1"]);
        check(24, 1, 8, false, &["2x4 align 8/2", "2x4 align 8/2", "2x4 align 8/2"]);
        check(24, 8, 8, false, &["1x8/2", "1x8/2", "1x8/2"]);
        check(3, 1, 1, false, &["3x1/1"]);
        check(12, 1, 16, false, &["2x4 align 16/2", "1x4/1"]);
        check(0, 1, 4, false, &[]);
    }

    #[test]
    fn kernel_parameters_are_aligned_in_the_bank() {
        assert_eq!(kernel_param_offsets(&[(8, 8), (4, 4), (8, 8), (16, 4)]), vec![0, 8, 16, 24]);
        assert_eq!(kernel_param_base(90), 0x210);
        assert_eq!(kernel_param_base(80), 0x160);
        assert_eq!(kernel_param_base(52), 0x140);
        assert_eq!(kernel_param_base(100), 0x380);
    }
}
