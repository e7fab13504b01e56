//! Scratch / preserved classification and the per-register role map (seed 001,
//! "Scratch Data Registers", "Reserved Registers").
//!
//! Owns: the effective scratch and preserved sets of a spec and the [`RegRoles`] map.
//! Must not know: spill costs (see `cost`), how roles are checked (see `setup`).
//!
//! The convention, per register file:
//! - the spec names neither a `scratch` nor a `preserved` set for the file: for R,
//!   radbg's default, modelled on NVIDIA's ABI: **R16–R31 preserved (callee-saved),
//!   every other R register from R4 to R254 scratch (caller-saved)**; for the other
//!   files nothing is classified (the seed's classification covers GPRs; uniform
//!   registers are exempt at CALL sites);
//! - the spec names only one of the two sets: the allocatable registers of the file
//!   not in it take the other class (R from R4);
//! - the spec names both: exactly as written; a register in both is preserved.
//!
//! Role precedence (strongest first): stack pointer, return address, parameter,
//! return value, reserved (R0–R3, the `reserved` range, zero registers), preserved,
//! scratch, free.

use std::collections::BTreeSet;

use crate::abi::RegRole;
use crate::abi::params::{ABI_RESERVED, Placement};
use crate::ir::abi_spec::{AbiSpec, RegSet};
use crate::ir::model::RegFile;

/// The files the classification covers.
const CLASSIFIED: [RegFile; 4] = [RegFile::R, RegFile::UR, RegFile::P, RegFile::UP];

/// The default convention's preserved range of R.
pub const DEFAULT_PRESERVED: (u16, u16) = (16, 31);

/// The role of every register of every file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegRoles {
    roles: Vec<Vec<RegRole>>,
}

impl Default for RegRoles {
    fn default() -> RegRoles {
        RegRoles::new()
    }
}

impl RegRoles {
    /// Everything free.
    pub fn new() -> RegRoles {
        RegRoles { roles: RegFile::ALL.iter().map(|f| vec![RegRole::Free; f.arch_size() as usize]).collect() }
    }

    /// The role of a register; `Free` outside the file.
    pub fn get(&self, file: RegFile, reg: u16) -> RegRole {
        self.roles[file.index()].get(reg as usize).copied().unwrap_or(RegRole::Free)
    }

    /// Sets a role, ignoring registers outside the file.
    pub fn set(&mut self, file: RegFile, reg: u32, role: RegRole) {
        if let Some(slot) = self.roles[file.index()].get_mut(reg as usize) {
            *slot = role;
        }
    }

    /// The registers of `file` with `role`, ascending.
    pub fn regs_with(&self, file: RegFile, role: RegRole) -> Vec<u16> {
        self.roles[file.index()].iter().enumerate().filter(|(_, r)| **r == role).map(|(i, _)| i as u16).collect()
    }

    /// Compact ranges of the registers of `file` with `role`: `[(16, 31), (40, 40)]`.
    pub fn ranges(&self, file: RegFile, role: RegRole) -> Vec<(u16, u16)> {
        ranges(&self.regs_with(file, role))
    }
}

/// Collapses an ascending list into inclusive ranges.
pub fn ranges(regs: &[u16]) -> Vec<(u16, u16)> {
    let mut out: Vec<(u16, u16)> = Vec::new();
    for &r in regs {
        match out.last_mut() {
            Some((_, hi)) if *hi + 1 == r => *hi = r,
            _ => out.push((r, r)),
        }
    }
    out
}

/// The allocatable registers a class may cover: R4..R254 for R (R0–R3 are the ABI's),
/// everything below the zero register otherwise.
fn classifiable(file: RegFile) -> std::ops::Range<u32> {
    let lo = if file == RegFile::R { ABI_RESERVED } else { 0 };
    let hi = file.zero_register().map_or(file.arch_size(), |z| z) as u32;
    lo..hi
}

fn explicit(sets: &[RegSet], file: RegFile) -> Option<BTreeSet<u16>> {
    let mut any = false;
    let mut out = BTreeSet::new();
    for s in sets.iter().filter(|s| s.file == file) {
        any = true;
        // Ranges may be reversed or beyond the file in a bad spec; clip, never loop long.
        for &(a, b) in &s.ranges {
            let (lo, hi) = (a.min(b) as u32, (a.max(b) as u32).min(file.arch_size() as u32 - 1));
            out.extend((lo..=hi).map(|r| r as u16));
        }
    }
    any.then_some(out)
}

/// The effective preserved and scratch registers of one file, ascending.
pub fn effective_sets(spec: &AbiSpec, file: RegFile) -> (Vec<u16>, Vec<u16>) {
    let p = explicit(&spec.preserved, file);
    let s = explicit(&spec.scratch, file);
    let all = || classifiable(file).map(|r| r as u16);
    let (preserved, scratch): (BTreeSet<u16>, BTreeSet<u16>) = match (p, s) {
        (None, None) if file == RegFile::R => {
            let (lo, hi) = DEFAULT_PRESERVED;
            let p: BTreeSet<u16> = (lo..=hi).collect();
            let s = all().filter(|r| !p.contains(r)).collect();
            (p, s)
        }
        (None, None) => (BTreeSet::new(), BTreeSet::new()),
        (Some(p), None) => {
            let s = all().filter(|r| !p.contains(r)).collect();
            (p, s)
        }
        (None, Some(s)) => {
            let p = all().filter(|r| !s.contains(r)).collect();
            (p, s)
        }
        (Some(p), Some(s)) => {
            let s = s.difference(&p).copied().collect();
            (p, s)
        }
    };
    (preserved.into_iter().collect(), scratch.into_iter().collect())
}

/// The explicit registers of `file` in a list of sets (no defaults), ascending.
pub fn explicit_regs(sets: &[RegSet], file: RegFile) -> Vec<u16> {
    explicit(sets, file).map(|s| s.into_iter().collect()).unwrap_or_default()
}

/// What the role map is built from.
pub struct RoleInputs<'a> {
    pub spec: &'a AbiSpec,
    pub params: &'a [Option<Placement>],
    pub returns: &'a [Option<Placement>],
    pub ret_addr: Option<(RegFile, u32)>,
    pub stack_pointer: u32,
    pub reserved: Option<(u32, u32)>,
}

/// Builds the role map, weakest role first so stronger ones overwrite.
pub fn build_roles(inp: &RoleInputs) -> RegRoles {
    let mut roles = RegRoles::new();
    for file in CLASSIFIED {
        let (preserved, scratch) = effective_sets(inp.spec, file);
        for r in scratch {
            roles.set(file, r as u32, RegRole::Scratch);
        }
        for r in preserved {
            roles.set(file, r as u32, RegRole::Preserved);
        }
    }
    for file in RegFile::ALL {
        if let Some(z) = file.zero_register() {
            roles.set(file, z as u32, RegRole::Reserved);
        }
    }
    for r in 0..ABI_RESERVED {
        roles.set(RegFile::R, r, RegRole::Reserved);
    }
    if let Some((lo, hi)) = inp.reserved {
        for r in lo..=hi.min(255) {
            roles.set(RegFile::R, r, RegRole::Reserved);
        }
    }
    for p in inp.returns.iter().flatten() {
        for r in p.regs() {
            roles.set(RegFile::R, r as u32, RegRole::Return);
        }
    }
    for p in inp.params.iter().flatten() {
        for r in p.regs() {
            roles.set(RegFile::R, r as u32, RegRole::Param);
        }
    }
    if let Some((file, ra)) = inp.ret_addr {
        roles.set(file, ra, RegRole::RetAddr);
        roles.set(file, ra.saturating_add(1), RegRole::RetAddr);
    }
    roles.set(RegFile::R, inp.stack_pointer, RegRole::StackPointer);
    roles
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(file: RegFile, ranges: &[(u16, u16)]) -> RegSet {
        RegSet { file, ranges: ranges.to_vec() }
    }

    #[test]
    fn default_convention_and_complements() {
        let spec = AbiSpec::default();
        let (p, s) = effective_sets(&spec, RegFile::R);
        assert_eq!(ranges(&p), vec![(16, 31)]);
        assert_eq!(ranges(&s), vec![(4, 15), (32, 254)]);
        assert_eq!(effective_sets(&spec, RegFile::UR), (vec![], vec![]));

        let spec = AbiSpec { preserved: vec![set(RegFile::R, &[(20, 23)])], ..AbiSpec::default() };
        let (p, s) = effective_sets(&spec, RegFile::R);
        assert_eq!(ranges(&p), vec![(20, 23)]);
        assert_eq!(ranges(&s), vec![(4, 19), (24, 254)]);

        let spec = AbiSpec { scratch: vec![set(RegFile::UR, &[(0, 9)])], ..AbiSpec::default() };
        let (p, s) = effective_sets(&spec, RegFile::UR);
        assert_eq!(ranges(&s), vec![(0, 9)]);
        assert_eq!(ranges(&p), vec![(10, 62)]);

        // Both given, overlapping and reversed / out-of-file ranges: preserved wins, clipped.
        let spec = AbiSpec {
            preserved: vec![set(RegFile::P, &[(3, 1)])],
            scratch: vec![set(RegFile::P, &[(0, 40)])],
            ..AbiSpec::default()
        };
        let (p, s) = effective_sets(&spec, RegFile::P);
        assert_eq!(p, vec![1, 2, 3]);
        assert_eq!(s, vec![0, 4, 5, 6, 7]);
    }

    #[test]
    fn role_precedence() {
        let spec = AbiSpec::default();
        let params = [Some(Placement { first: 4, count: 2, align: 2 })];
        let returns = [Some(Placement { first: 16, count: 1, align: 1 })];
        let roles = build_roles(&RoleInputs {
            spec: &spec,
            params: &params,
            returns: &returns,
            ret_addr: Some((RegFile::R, 20)),
            stack_pointer: 1,
            reserved: Some((40, 43)),
        });
        let r = |i| roles.get(RegFile::R, i);
        assert_eq!(r(0), RegRole::Reserved);
        assert_eq!(r(1), RegRole::StackPointer);
        assert_eq!(r(4), RegRole::Param);
        assert_eq!(r(6), RegRole::Scratch);
        assert_eq!(r(16), RegRole::Return);
        assert_eq!(r(17), RegRole::Preserved);
        assert_eq!(r(21), RegRole::RetAddr);
        assert_eq!(r(41), RegRole::Reserved);
        assert_eq!(r(255), RegRole::Reserved);
        assert_eq!(roles.get(RegFile::R, 999), RegRole::Free);
        assert_eq!(roles.get(RegFile::UR, 3), RegRole::Free);
    }
}
