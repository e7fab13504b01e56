//! Test support for the allocation checker: functions from Ori IR text (the real parser),
//! and a fixture holding an allocation of one, built up with `assign`, `pin`, `spill` ...
#![allow(dead_code)]

use radbg::alloc::check::{Allocation, CheckError, SpillSlotInfo, check};
use radbg::ir::{Function, PhysReg, RegFile, VRegId, parse_str};

/// A physical register name (`R4`, `RZ`, `UR3`, `URZ`, `P0`, `PT`, `UP1`, `UPT`, `T3`).
pub fn phys(tok: &str) -> Option<PhysReg> {
    let zero = [("RZ", RegFile::R), ("URZ", RegFile::UR), ("PT", RegFile::P), ("UPT", RegFile::UP)];
    if let Some(&(_, file)) = zero.iter().find(|(n, _)| *n == tok) {
        return Some(PhysReg { file, index: file.zero_register()? });
    }
    let files = [("UR", RegFile::UR), ("UP", RegFile::UP), ("UB", RegFile::UB), ("R", RegFile::R)];
    let files2 = [("P", RegFile::P), ("T", RegFile::T), ("B", RegFile::B)];
    for (p, file) in files.into_iter().chain(files2) {
        if let Some(n) = tok.strip_prefix(p)
            && !n.is_empty()
            && n.bytes().all(|c| c.is_ascii_digit())
        {
            return Some(PhysReg { file, index: n.parse().ok()? });
        }
    }
    None
}

/// Parses Ori IR text with the real parser and validator and returns its first
/// function. Text without a `.entry`/`.func` header is the body of `.entry test`.
pub fn func(text: &str) -> Function {
    let src = if text.contains(".entry") || text.contains(".func") {
        text.to_string()
    } else {
        format!(".target sm_90\n.entry test {{\n{text}\n}}\n")
    };
    let m = parse_str(&src).unwrap_or_else(|e| panic!("test input does not parse:\n{e}\n{src}"));
    m.functions.into_iter().next().expect("a function")
}

/// A function plus everything an [`Allocation`] borrows.
#[derive(Clone, Debug)]
pub struct Fixture {
    pub f: Function,
    pub slot: Vec<Option<u16>>,
    pub fixed: Vec<(RegFile, u16)>,
    pub pins: Vec<(VRegId, u16)>,
    pub spills: Vec<SpillSlotInfo>,
    pub exit_live: Vec<VRegId>,
    pub budget: Vec<(RegFile, u32)>,
}

impl Fixture {
    pub fn new(src: &str) -> Fixture {
        Fixture::of(func(src))
    }

    pub fn of(f: Function) -> Fixture {
        let n = f.vregs.len();
        Fixture {
            f,
            slot: vec![None; n],
            fixed: Vec::new(),
            pins: Vec::new(),
            spills: Vec::new(),
            exit_live: Vec::new(),
            budget: Vec::new(),
        }
    }

    pub fn id(&self, name: &str) -> VRegId {
        self.f.vreg_by_name(name).unwrap_or_else(|| panic!("no vreg {name}"))
    }

    /// `"%r0=R4 %rd0=R6"`: assigns registers (`-` leaves one unassigned).
    pub fn assign(mut self, spec: &str) -> Fixture {
        for item in spec.split_whitespace() {
            let (v, r) = item.split_once('=').expect("name=REG");
            let id = self.id(v);
            self.slot[id.index()] = if r == "-" { None } else { Some(phys(r).expect("register").index) };
        }
        self
    }

    /// Gives every allocatable vreg its own registers, in id order, aligned (the trivial
    /// reference allocator). R registers start at R8 so that tests may name R0..R7 as
    /// physical operands.
    pub fn own_registers(mut self) -> Fixture {
        let mut next = [0u16; 7];
        next[RegFile::R.index()] = 8;
        for (i, v) in self.f.vregs.iter().enumerate() {
            if !v.class.is_allocatable() {
                continue;
            }
            let k = v.file().index();
            let align = radbg::alloc::check::align_of(v.width);
            let first = next[k].div_ceil(align) * align;
            self.slot[i] = Some(first);
            next[k] = first + v.width as u16;
        }
        self
    }

    pub fn fixed(mut self, regs: &str) -> Fixture {
        self.fixed.extend(regs.split_whitespace().map(|r| {
            let p = phys(r).expect("register");
            (p.file, p.index)
        }));
        self
    }

    pub fn pin(mut self, spec: &str) -> Fixture {
        for item in spec.split_whitespace() {
            let (v, r) = item.split_once('=').expect("name=REG");
            let id = self.id(v);
            self.pins.push((id, phys(r).expect("register").index));
        }
        self
    }

    pub fn budget(mut self, file: RegFile, n: u32) -> Fixture {
        self.budget.push((file, n));
        self
    }

    pub fn exit_live(mut self, names: &str) -> Fixture {
        let ids: Vec<VRegId> = names.split_whitespace().map(|n| self.id(n)).collect();
        self.exit_live.extend(ids);
        self
    }

    /// A spilled vreg with its slot and temps (`"%t0 %t1"`).
    pub fn spill(mut self, vreg: &str, shared: bool, offset: u32, bytes: u32, temps: &str) -> Fixture {
        let temps = temps.split_whitespace().map(|n| self.id(n)).collect();
        self.spills.push(SpillSlotInfo { vreg: self.id(vreg), shared, offset, bytes, temps });
        self
    }

    pub fn alloc(&self) -> Allocation<'_> {
        Allocation {
            func: &self.f,
            slot: &self.slot,
            fixed: &self.fixed,
            pins: &self.pins,
            spills: &self.spills,
            exit_live: &self.exit_live,
            budget: &self.budget,
        }
    }

    pub fn errors(&self) -> Vec<CheckError> {
        check(&self.alloc()).err().unwrap_or_default()
    }

    /// The errors as text, one per line (empty when the allocation passes).
    pub fn report(&self) -> String {
        self.errors().iter().map(|e| format!("{e}\n")).collect()
    }
}
