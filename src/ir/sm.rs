//! Target SM architectures and the ABI generation they dispatch to (seed 001,
//! "SM Generation Dispatch").

use std::fmt;

/// A target such as `sm_90a`: the numeric version and an optional suffix letter.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Sm {
    /// `major * 10 + minor`, e.g. 90 for sm_90, 100 for sm_100.
    pub version: u32,
    /// `"a"`, `"f"` or empty.
    pub suffix: String,
}

impl Default for Sm {
    fn default() -> Sm {
        Sm { version: 90, suffix: String::new() }
    }
}

impl Sm {
    pub const MIN_VERSION: u32 = 10;
    pub const MAX_VERSION: u32 = 130;

    pub fn new(version: u32) -> Sm {
        Sm { version, suffix: String::new() }
    }

    /// Parses `sm_90`, `sm_90a`, `sm_100f`, `compute_80` is not accepted.
    pub fn parse(s: &str) -> Result<Sm, String> {
        let rest = s.strip_prefix("sm_").ok_or_else(|| format!("expected a target like sm_90, found '{s}'"))?;
        let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
        let suffix = &rest[digits.len()..];
        if digits.is_empty() || digits.len() > 3 {
            return Err(format!("expected a target like sm_90, found '{s}'"));
        }
        if !(suffix.is_empty() || suffix == "a" || suffix == "f") {
            return Err(format!("unknown target suffix '{suffix}' in '{s}' (expected a or f)"));
        }
        let version: u32 = digits.parse().map_err(|_| format!("bad target '{s}'"))?;
        if !(Sm::MIN_VERSION..=Sm::MAX_VERSION).contains(&version) {
            return Err(format!("target '{s}' out of range (sm_{} .. sm_{})", Sm::MIN_VERSION, Sm::MAX_VERSION));
        }
        Ok(Sm { version, suffix: suffix.to_string() })
    }

    /// The ABI generation (seed 001): 3 Kepler, 4 Maxwell, 5 Pascal..Ada, 9 Hopper,
    /// 10 for Blackwell and later (">9"), and 2 for anything older than Kepler.
    pub fn generation(&self) -> u32 {
        match self.version {
            0..=34 => 2,
            35..=49 => 3,
            50..=59 => 4,
            60..=89 => 5,
            90..=99 => 9,
            _ => 10,
        }
    }

    /// The ABI minimum register count (seed 001): 16 for generations 3-4, 24 for
    /// 5-9, none outside 3..=9.
    pub fn abi_minimum(&self) -> Option<u32> {
        match self.generation() {
            3..=4 => Some(16),
            5..=9 => Some(24),
            _ => None,
        }
    }

    /// Whether the SM has uniform registers (sm_75 and later, seed 001).
    pub fn has_uniform_registers(&self) -> bool {
        self.version >= 75
    }
}

impl fmt::Display for Sm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "sm_{}{}", self.version, self.suffix)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generations_follow_seed_001() {
        let g = |s: &str| Sm::parse(s).unwrap().generation();
        assert_eq!(g("sm_35"), 3);
        assert_eq!(g("sm_53"), 4);
        assert_eq!(g("sm_60"), 5);
        assert_eq!(g("sm_89"), 5);
        assert_eq!(g("sm_90a"), 9);
        assert_eq!(g("sm_100"), 10);
        assert_eq!(Sm::parse("sm_100").unwrap().abi_minimum(), None);
        assert_eq!(Sm::parse("sm_52").unwrap().abi_minimum(), Some(16));
        assert_eq!(Sm::parse("sm_80").unwrap().abi_minimum(), Some(24));
    }

    #[test]
    fn bad_targets_are_errors() {
        assert!(Sm::parse("sm_x").is_err());
        assert!(Sm::parse("sm_9000").is_err());
        assert!(Sm::parse("sm_90z").is_err());
        assert!(Sm::parse("compute_90").is_err());
        assert_eq!(Sm::parse("sm_90a").unwrap().to_string(), "sm_90a");
    }
}
