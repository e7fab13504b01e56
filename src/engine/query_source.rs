//! Source-line queries: the CUDA line of each program point (through the PTX line each
//! instruction carries and the module's `.loc` table), and the per-line table the
//! Source pane and `list` show — each line's live registers at its peak point, the
//! values it keeps alive at the function's peak, and its spill stores and reloads —
//! what Nsight Compute's source view shows for live registers, here at the cursor of
//! the allocator rather than after the fact.
//!
//! Plain data; reading the CUDA file itself is the front ends' business (`command::
//! source`). Spill code the allocator inserts has no PTX line of its own: a store
//! belongs to the line of the instruction before it (the definition it saves), a reload
//! to the line of the instruction after it (the use it feeds).

use std::collections::BTreeMap;

use crate::engine::machine::Machine;
use crate::ir::{Function, RegFile, VRegId};

/// A (file index, line) of the user's source (`SrcLoc::user`).
pub type UserLine = (u32, u32);

/// The user line of every program point of `f` (spill code attributed to its neighbour).
pub fn point_lines(m: &Machine, f: &Function) -> Vec<Option<UserLine>> {
    let src = &m.module.srcloc;
    let mut out = Vec::with_capacity(f.inst_count());
    for b in &f.blocks {
        let own: Vec<Option<UserLine>> = b.insts.iter().map(|i| i.origin.and_then(|o| src.user_line(o))).collect();
        for (i, inst) in b.insts.iter().enumerate() {
            let line = if own[i].is_some() || !crate::alloc::spill::is_spill_code(inst) {
                own[i]
            } else if inst.ndefs == 0 {
                own[..i].iter().rev().find_map(|x| *x)
            } else {
                own[i + 1..].iter().find_map(|x| *x)
            };
            out.push(line);
        }
    }
    out
}

/// The user line of the first definition of every vreg of `f` (what a value "comes
/// from"): spill code's fresh vregs get the line their reload is attributed to.
pub fn def_lines(m: &Machine, f: &Function) -> Vec<Option<UserLine>> {
    let pts = point_lines(m, f);
    let mut out = vec![None; f.vregs.len()];
    let mut p = 0usize;
    for b in &f.blocks {
        for inst in &b.insts {
            let line = pts.get(p).copied().flatten();
            inst.for_each_def(|r| {
                if let Some(x) = out.get_mut(r.vreg.index())
                    && x.is_none()
                {
                    *x = line;
                }
            });
            p += 1;
        }
    }
    out
}

/// One source line's row.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct SourceRow {
    pub file: u32,
    pub line: u32,
    /// `hot.cu:9`.
    pub label: String,
    /// Program points whose instructions come from this line.
    pub points: Vec<u32>,
    /// The highest R pressure over those points and the first point it is reached at
    /// (None before liveness exists).
    pub peak: Option<(u32, u32)>,
    /// `%f1→R4` for every R vreg live before that point.
    pub live: Vec<String>,
    /// Vregs defined on this line that are live at the function's R peak point.
    pub keeps: Vec<String>,
    /// Spill stores and reloads attributed to this line.
    pub stores: u32,
    pub reloads: u32,
}

/// The per-line table of one function at the cursor.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct SourceTable {
    pub function: String,
    /// The `.file` table (index → name as written).
    pub files: BTreeMap<u32, String>,
    /// Rows in (file, line) order, one per line with code.
    pub rows: Vec<SourceRow>,
    /// The function's R peak (pressure, point), when liveness exists.
    pub peak: Option<(u32, u32)>,
    /// Program points with no source line (compiler-made code, `.loc F 0 C`).
    pub unmapped: usize,
}

/// The source table of function `fi` as the allocation stands at the cursor.
pub fn source_table(m: &Machine, fi: usize) -> SourceTable {
    let f = m.func_ir(fi);
    let src = &m.module.srcloc;
    let pts = point_lines(m, f);
    let defs = def_lines(m, f);
    let live = m.liveness_of(fi);
    let alloc = m.run_of(fi).and_then(crate::alloc::run::AllocRun::fatpoint);
    let curve = live.map(|l| l.pressure_curve(f, RegFile::R)).unwrap_or_default();
    let fpeak = curve.iter().enumerate().max_by_key(|(i, c)| (**c, std::cmp::Reverse(*i))).map(|(i, c)| (*c, i as u32));
    let mut rows: BTreeMap<UserLine, SourceRow> = BTreeMap::new();
    let mut unmapped = 0;
    let layout = f.layout();
    for (p, line) in pts.iter().enumerate() {
        let p = p as u32;
        let Some(key) = *line else {
            unmapped += 1;
            continue;
        };
        let row = rows.entry(key).or_insert_with(|| SourceRow {
            file: key.0,
            line: key.1,
            label: src.label_of(key),
            ..SourceRow::default()
        });
        row.points.push(p);
        if let Some(&c) = curve.get(p as usize)
            && row.peak.is_none_or(|(best, _)| c > best)
        {
            row.peak = Some((c, p));
        }
        if let Some((b, i)) = layout.locate(p) {
            let inst = &f.blocks[b].insts[i];
            if crate::alloc::spill::is_spill_code(inst) {
                if inst.ndefs == 0 {
                    row.stores += 1;
                } else {
                    row.reloads += 1;
                }
            }
        }
    }
    let name = |v: VRegId| {
        let vr = f.vreg(v);
        match alloc.and_then(|a| a.slot_of(v)) {
            Some(s) => format!("{}→{}", vr.name, vr.file().reg_name(s, vr.width)),
            None => vr.name.to_string(),
        }
    };
    // What a point holds: the values live into it and those it defines or keeps live
    // out of it (the pressure query's `max(before, after + defs)`, as `why registers`).
    let held = |l: &crate::analysis::Liveness, p: u32| -> Vec<VRegId> {
        let mut v: Vec<VRegId> = l.live_before(f, p).iter().chain(l.live_after(f, p).iter()).collect();
        if let Some((b, i)) = layout.locate(p) {
            f.blocks[b].insts[i].for_each_def(|r| v.push(r.vreg));
        }
        v.sort();
        v.dedup();
        v.retain(|x| f.vreg(*x).file() == RegFile::R);
        v
    };
    if let Some(l) = live {
        for row in rows.values_mut() {
            if let Some((_, p)) = row.peak {
                row.live = held(l, p).into_iter().map(name).collect();
            }
        }
        if let Some((_, p)) = fpeak {
            for v in held(l, p) {
                if let Some(Some(key)) = defs.get(v.index())
                    && let Some(row) = rows.get_mut(key)
                {
                    row.keeps.push(f.vreg(v).name.to_string());
                }
            }
        }
    }
    SourceTable {
        function: f.name.to_string(),
        files: src.files.clone(),
        rows: rows.into_values().collect(),
        peak: fpeak,
        unmapped,
    }
}

/// What an importer- or prepass-made vreg name stands for, with its PTX and CUDA line:
/// `%rd16$32` is the 32-bit form of PTX `%rd16` (prepass `narrow`), `%v4tmp0` the
/// vector operand of one PTX instruction (its elements are the PTX registers its
/// component moves read or write), `%k64tmp0` a 64-bit constant built in a pair.
pub fn stands_for(m: &Machine, f: &Function, v: VRegId) -> Option<String> {
    let vr = f.vregs.get(v.index())?;
    let src = &m.module.srcloc;
    let at = |o: Option<u32>| match o {
        Some(o) => match src.label(o) {
            Some(s) => format!("PTX line {o} ({s})"),
            None => format!("PTX line {o}"),
        },
        None => "an unknown line".to_string(),
    };
    // The first instruction that defines (else reads) it: a vreg's own origin is its
    // declaration's line, the top of the function for PTX registers.
    let first_ref = || {
        let insts = || f.blocks.iter().flat_map(|b| &b.insts);
        let defines = |i: &crate::ir::Inst| {
            let mut hit = false;
            i.for_each_def(|r| hit |= r.vreg == v);
            hit
        };
        let reads = |i: &crate::ir::Inst| {
            let mut hit = false;
            i.for_each_use(|r| hit |= r.vreg == v);
            hit
        };
        insts().find(|i| defines(i)).or_else(|| insts().find(|i| reads(i))).and_then(|i| i.origin)
    };
    if let Some(stem) = vr.name.strip_suffix("$32")
        && f.vregs.iter().any(|x| &*x.name == stem)
    {
        return Some(format!(
            "the 32-bit form of PTX register {stem} (narrowed: used only as a shared/local address), defined at {}",
            at(first_ref().or(vr.origin))
        ));
    }
    // `%r5$rl0`: a reload temporary of the spill code; `%r5$w2`: one web (a separately
    // allocatable piece) of `%r5`. The tag ends in digits only.
    for (tag, what) in [("$rl", "a reload of"), ("$w", "a web (separately allocated piece) of")] {
        if let Some((stem, k)) = vr.name.rsplit_once(tag)
            && !k.is_empty()
            && k.bytes().all(|b| b.is_ascii_digit())
            && f.vregs.iter().any(|x| &*x.name == stem)
        {
            return Some(format!("{what} {stem}, at {}", at(first_ref().or(vr.origin))));
        }
    }
    // `%slow8`: a register a ptxas-internal routine clobbers at its call (`slowpath`).
    if let Some(k) = vr.name.strip_prefix("%slow")
        && !k.is_empty()
        && k.bytes().all(|b| b.is_ascii_digit())
    {
        let call = f.blocks.iter().flat_map(|b| &b.insts).find(|i| {
            let mut hit = false;
            i.for_each_def(|r| hit |= r.vreg == v);
            hit
        })?;
        let rt = crate::prepass::slowpath::routine_called(f, call)?;
        return Some(format!(
            "a register ptxas's internal routine {} clobbers, called for the {} at {}",
            rt.name,
            call.mods.trim_start_matches('.').to_ascii_lowercase(),
            at(call.origin)
        ));
    }
    let bare = vr.name.trim_start_matches('%');
    let kind = if let Some(rest) = bare.strip_prefix("k64tmp") {
        rest.bytes().all(|b| b.is_ascii_digit()).then_some("k64")
    } else {
        let t = bare.strip_prefix('v')?;
        let (w, n) = t.split_once("tmp")?;
        (w.bytes().all(|b| b.is_ascii_digit()) && n.bytes().all(|b| b.is_ascii_digit())).then_some("vec")
    }?;
    // The instructions that reference it: component moves and the one PTX instruction.
    let mut first = None;
    let mut elems: Vec<String> = Vec::new();
    for inst in f.blocks.iter().flat_map(|b| &b.insts) {
        let mut uses_it = false;
        inst.for_each_def(|r| uses_it |= r.vreg == v);
        inst.for_each_use(|r| uses_it |= r.vreg == v);
        if !uses_it {
            continue;
        }
        first = first.or(inst.origin);
        if inst.op.mnemonic() == "MOV" {
            let mut note = |r: crate::ir::RegRef| {
                let n = &f.vreg(r.vreg).name;
                if r.vreg != v && !elems.iter().any(|e| **e == **n) {
                    elems.push(n.to_string());
                }
            };
            inst.for_each_def(&mut note);
            inst.for_each_use(&mut note);
        }
    }
    Some(match kind {
        "k64" => format!("a 64-bit constant built in a register pair for {}", at(first)),
        _ if elems.is_empty() => format!("the vector operand of {}", at(first)),
        _ => format!("the vector operand {{{}}} of {}", elems.join(", "), at(first)),
    })
}

#[cfg(test)]
mod tests {
    use crate::engine::{Machine, RunOptions};

    const PTX: &str = ".version 8.0\n.target sm_80\n.address_size 64\n\
.visible .entry k(.param .u64 p)\n{\n.reg .f32 %f<5>;\n.reg .b64 %rd<2>;\n\
.loc 1 3 1\nld.param.u64 %rd1, [p];\n\
.loc 1 4 1\nld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1];\n\
.loc 1 5 1\nadd.f32 %f1, %f1, %f4;\nst.global.f32 [%rd1], %f1;\nret;\n}\n.file 1 \"k.cu\"\n";

    #[test]
    fn synthetic_names_say_what_they_stand_for() {
        let (m, _) = crate::ir::ptx::import_str("k.ptx", PTX).unwrap();
        let machine = Machine::new(m, RunOptions { imported: true, ..RunOptions::default() });
        let f = &machine.module.functions[0];
        let v = f.vregs.iter().position(|v| v.name.contains("v4tmp")).expect("a vector temporary");
        let s = super::stands_for(&machine, f, crate::ir::VRegId::new(v)).unwrap();
        assert_eq!(s, "the vector operand {%f1, %f2, %f3, %f4} of PTX line 11 (k.cu:4)");
        let mut g = f.clone();
        let base = g.vreg_by_name("%f1").unwrap();
        let w = g.add_vreg("%f1$rl0".to_string(), crate::ir::RegClass::R, 1);
        assert!(super::stands_for(&machine, &g, w).unwrap().starts_with("a reload of %f1"));
        // A narrowed register is placed at its defining instruction, not its declaration.
        let m = crate::ir::parse_str(
            ".target sm_80\n.entry k {\n  .reg .R.x2 %rd1\n  .reg .R %rd1$32\nBB0:\n  .loc 7\n  %rd1$32 = MOV 0x0\n  EXIT\n}\n",
        )
        .unwrap();
        let machine = Machine::new(m, RunOptions::default());
        let f = &machine.module.functions[0];
        let n = f.vreg_by_name("%rd1$32").unwrap();
        assert_eq!(
            super::stands_for(&machine, f, n).unwrap(),
            "the 32-bit form of PTX register %rd1 (narrowed: used only as a shared/local address), defined at PTX line 7"
        );
        assert_eq!(super::stands_for(&machine, &g, base), None);
    }
}
