//! Input limits shared by both front ends (Ori IR and PTX) and the loader, so that no
//! input — however large, deep or hostile — exhausts the stack or memory, blocks, or
//! runs for minutes before saying why (issue 28). Each limit is a documented constant;
//! the ones a real kernel could plausibly reach can be raised with an environment
//! variable (read once; an unparsable value is ignored). ARCHITECTURE.md's "Limits"
//! table lists them with the error a user sees.
//!
//! Limits that are facts of the languages (ptxas's 1,048,576 registers per `.reg`
//! declaration, 32-bit immediates) are fixed; the resource budgets are not.

use std::sync::OnceLock;

/// Deepest nesting of any recursive form in either parser: PTX `{ }` scopes,
/// parenthesised and unary constant expressions, initializers, and nested operands
/// (`!`, vectors, `a|b`). Deeper input is an error at its place, never a stack overflow.
/// (Ori IR does not recurse: its braces nest at most `parse::limits::MAX_NESTING`.)
pub const MAX_DEPTH: u32 = 64;

/// Registers one `.reg` declaration (`%r<N>`) may declare: ptxas 13.0 rejects more.
pub const MAX_REGS_PER_DECL: u64 = 1 << 20;

/// Default largest input file, in bytes (256 MiB); raise with `RADBG_MAX_FILE_BYTES`.
pub const DEFAULT_MAX_FILE_BYTES: u64 = 256 << 20;
/// Default most registers a whole module may declare (4,194,304); raise with
/// `RADBG_MAX_REGISTERS`.
pub const DEFAULT_MAX_MODULE_REGS: u64 = 1 << 22;
/// Default memory budget (4 GiB) for the estimate made before the importer and the
/// analyses allocate per-register structures; raise with `RADBG_MAX_MEMORY` (bytes).
pub const DEFAULT_MAX_MEMORY: u64 = 4 << 30;

/// Bytes the pipeline holds per declared register (the vreg, its name, liveness and
/// interference entries, the allocator's per-vreg state), measured on a 1,000,000-
/// register kernel (see ARCHITECTURE.md, "Limits"). The estimate is deliberately
/// conservative: it only has to stop inputs that would certainly not fit.
pub const BYTES_PER_REG: u64 = 1024;
/// Bytes held per declared register of a function other than the largest: its IR (the
/// vreg and its name, ~250 B per register to parse), kept for the whole run by the
/// debugger, while the per-register working data of the analyses and the allocator
/// (the rest of [`BYTES_PER_REG`]) is held for one function at a time (issue 25).
pub const BYTES_PER_REG_HELD: u64 = 256;
/// Bytes the pipeline holds per byte of input text (syntax tree, IR, spans).
pub const BYTES_PER_INPUT_BYTE: u64 = 64;

/// The environment variables that raise the limits.
pub const ENV_MAX_FILE_BYTES: &str = "RADBG_MAX_FILE_BYTES";
pub const ENV_MAX_REGISTERS: &str = "RADBG_MAX_REGISTERS";
pub const ENV_MAX_MEMORY: &str = "RADBG_MAX_MEMORY";

/// The resource limits in force.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    pub max_file_bytes: u64,
    pub max_module_regs: u64,
    pub max_memory: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_file_bytes: DEFAULT_MAX_FILE_BYTES,
            max_module_regs: DEFAULT_MAX_MODULE_REGS,
            max_memory: DEFAULT_MAX_MEMORY,
        }
    }
}

impl Limits {
    /// The defaults with any environment overrides applied.
    pub fn from_env() -> Limits {
        let get = |name: &str, default: u64| {
            std::env::var(name).ok().and_then(|v| parse_size(&v)).filter(|&v| v > 0).unwrap_or(default)
        };
        Limits {
            max_file_bytes: get(ENV_MAX_FILE_BYTES, DEFAULT_MAX_FILE_BYTES),
            max_module_regs: get(ENV_MAX_REGISTERS, DEFAULT_MAX_MODULE_REGS),
            max_memory: get(ENV_MAX_MEMORY, DEFAULT_MAX_MEMORY),
        }
    }

    /// The estimate the loader checks before building a module of `regs` registers
    /// from `input_bytes` bytes of text.
    pub fn estimate(regs: u64, input_bytes: u64) -> u64 {
        Limits::estimate_in(regs, regs, input_bytes)
    }

    /// The estimate for a module of `total` registers of which its largest function
    /// declares `largest`: [`BYTES_PER_REG`] for the largest function's, whose working
    /// data is the most held at once, [`BYTES_PER_REG_HELD`] for the others'. A file of
    /// 6,138 entries (1.63 M registers, at most 499 in one, 50 MB) was refused at 4.5 GiB
    /// by the estimate that charged every register 1 KiB; now 3.6 GiB, and the debugger
    /// holds 1.6 GB of it to the end of `continue`.
    pub fn estimate_in(total: u64, largest: u64, input_bytes: u64) -> u64 {
        let largest = largest.min(total);
        largest
            .saturating_mul(BYTES_PER_REG)
            .saturating_add((total - largest).saturating_mul(BYTES_PER_REG_HELD))
            .saturating_add(input_bytes.saturating_mul(BYTES_PER_INPUT_BYTE))
    }
}

/// The limits of this process (environment read once, so a run is deterministic).
pub fn current() -> Limits {
    static L: OnceLock<Limits> = OnceLock::new();
    *L.get_or_init(Limits::from_env)
}

/// The error for a module that would declare `regs` registers in all (from
/// `input_bytes` of text), if that is over the register limit or the memory budget:
/// checked at each declaration, before the registers are allocated.
pub fn check_module_regs(regs: u64, input_bytes: usize) -> Option<String> {
    check_module_regs_in(regs, regs, input_bytes)
}

/// [`check_module_regs`] for a module whose largest function declares `largest` of its
/// `regs` registers ([`Limits::estimate_in`]).
pub fn check_module_regs_in(regs: u64, largest: u64, input_bytes: usize) -> Option<String> {
    let l = current();
    if regs > l.max_module_regs {
        return Some(format!(
            "the module declares more than {} registers, the limit per module (set {ENV_MAX_REGISTERS}=N to raise it)",
            l.max_module_regs
        ));
    }
    let need = Limits::estimate_in(regs, largest, input_bytes as u64);
    if need > l.max_memory {
        return Some(format!(
            "{regs} registers need about {} of memory, over the budget of {} (set {ENV_MAX_MEMORY}=BYTES to raise it)",
            human_approx(need),
            human(l.max_memory)
        ));
    }
    None
}

/// A size rounded to a whole MiB or GiB, for estimates.
fn human_approx(bytes: u64) -> String {
    if bytes >= 1 << 30 {
        format!("{} GiB", bytes.div_ceil(1 << 30))
    } else {
        format!("{} MiB", bytes.div_ceil(1 << 20))
    }
}

/// `1234`, `256M`, `4G`, `64k` (binary multiples).
pub fn parse_size(s: &str) -> Option<u64> {
    let s = s.trim();
    let (digits, shift) = match s.char_indices().last()? {
        (k, 'k' | 'K') => (&s[..k], 10),
        (k, 'm' | 'M') => (&s[..k], 20),
        (k, 'g' | 'G') => (&s[..k], 30),
        _ => (s, 0),
    };
    let v: u64 = digits.parse().ok()?;
    v.checked_mul(1u64 << shift)
}

/// "256 MiB", "4 GiB", "1000 bytes": a size for messages.
pub fn human(bytes: u64) -> String {
    for (shift, unit) in [(30, "GiB"), (20, "MiB"), (10, "KiB")] {
        if bytes >= 1 << shift && bytes.is_multiple_of(1 << shift) {
            return format!("{} {unit}", bytes >> shift);
        }
    }
    format!("{bytes} bytes")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_and_print() {
        assert_eq!(parse_size("256M"), Some(256 << 20));
        assert_eq!(parse_size("4g"), Some(4 << 30));
        assert_eq!(parse_size("1000"), Some(1000));
        assert_eq!(parse_size("x"), None);
        assert_eq!(parse_size("99999999999999999999G"), None);
        assert_eq!(human(256 << 20), "256 MiB");
        assert_eq!(human(1000), "1000 bytes");
    }

    #[test]
    fn registers_spread_over_many_functions_are_charged_their_ir_only() {
        // The 50 MB file of 6,138 entries: under the default budget; the same registers
        // in one function are not.
        let (total, largest, bytes) = (1_633_342, 499, 50_017_263);
        assert!(Limits::estimate_in(total, largest, bytes) < DEFAULT_MAX_MEMORY);
        assert!(Limits::estimate(total, bytes) > DEFAULT_MAX_MEMORY);
        assert_eq!(Limits::estimate_in(1000, 1000, 10), Limits::estimate(1000, 10));
        assert_eq!(Limits::estimate_in(1000, 5000, 10), Limits::estimate(1000, 10));
        assert_eq!(Limits::estimate_in(1000, 0, 0), 1000 * BYTES_PER_REG_HELD);
    }
}
