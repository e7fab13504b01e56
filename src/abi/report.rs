//! The printed ABI check list (`radbg check FILE`): for every function with an ABI
//! spec, each check of the master setup in order with its verdict, the placements,
//! and the 7020 / 7801 checks; other functions appear only when one of those fails.
//!
//! Owns: the text layout and the simple limit used when no allocator budget is at
//! hand ([`declared_limit`]). Must not know: the allocator's budget resolution
//! (seed 000) — the lead may swap [`function_limits`] for it.

use std::fmt::Write;

use crate::abi::classify::ranges;
use crate::abi::{AbiCheck, AbiInput, AbiResult, Placement, check_convergent, check_reserved_smem, setup, step};
use crate::abi::{limits::propagate_limits, retaddr};
use crate::ir::model::{FuncKind, Function, Module, RegFile};
use crate::ir::sm::Sm;

/// A function's own limit: `.maxnreg`, else `--device-function-maxrregcount` (device
/// functions) or `--maxrregcount`.
pub fn declared_limit(m: &Module, func: usize) -> Option<u32> {
    let f = m.functions.get(func)?;
    f.maxnreg.or(match f.kind {
        FuncKind::Device => m.options.device_function_maxrregcount.or(m.options.maxrregcount),
        FuncKind::Entry => m.options.maxrregcount,
    })
}

/// The limit of every function: declared limits through [`propagate_limits`], 255
/// where nothing constrains a function, at most 255.
pub fn function_limits(m: &Module, sm: &Sm) -> Vec<u32> {
    let declared: Vec<Option<u32>> = (0..m.functions.len()).map(|i| declared_limit(m, i)).collect();
    propagate_limits(m, sm, &declared).into_iter().map(|l| l.unwrap_or(255).min(255)).collect()
}

fn kind(f: &Function) -> &'static str {
    match f.kind {
        FuncKind::Entry => ".entry",
        FuncKind::Device => ".func",
    }
}

/// One check as `radbg check` prints it: step number and name, code, hex id,
/// verdict, field, then the detail (pass) or the message with the detail on a second
/// line (fail). Ends with a newline.
pub fn check_line(c: &AbiCheck) -> String {
    let mut out = String::new();
    let n = step::ORDER.iter().position(|s| *s == c.step).map_or("-".to_string(), |i| (i + 1).to_string());
    let (code, hex) =
        if c.code == 0 { ("-".to_string(), "-".to_string()) } else { (c.code.to_string(), format!("0x{:X}", c.hex)) };
    let verdict = if c.passed { "pass" } else { "FAIL" };
    let text = if c.passed || c.message.is_empty() { &c.detail } else { &c.message };
    let _ = writeln!(out, "  {n} {:<19} {code:>4} {hex:>6}  {verdict}  {:<21} {text}", c.step, c.field);
    if !c.passed && !c.message.is_empty() && !c.detail.is_empty() {
        let _ = writeln!(out, "{:<61}{}", "", c.detail);
    }
    out
}

fn placement(p: &Option<Placement>) -> String {
    match p {
        Some(p) if p.count == 1 => format!("R{}", p.first),
        Some(p) => format!("R{}..R{}", p.first, p.last()),
        None => "stack".to_string(),
    }
}

fn values(
    f: &Function,
    what: &str,
    placed: &[Option<Placement>],
    binds: &[Option<crate::ir::model::VRegId>],
) -> String {
    if placed.is_empty() {
        return format!("  {what}: none\n");
    }
    let items: Vec<String> = placed
        .iter()
        .zip(binds)
        .enumerate()
        .map(|(i, (p, b))| {
            let bound = b.and_then(|id| f.vregs.get(id.index())).map_or(String::new(), |v| format!(" = {}", v.name));
            format!("#{i} {}{bound}", placement(p))
        })
        .collect();
    format!("  {what}: {}\n", items.join(", "))
}

fn reg_list(regs: &[(RegFile, u16)]) -> String {
    let mut parts = Vec::new();
    for file in RegFile::ALL {
        let rs: Vec<u16> = regs.iter().filter(|(f, _)| *f == file).map(|(_, r)| *r).collect();
        for (lo, hi) in ranges(&rs) {
            let p = file.prefix();
            parts.push(if lo == hi { format!("{p}{lo}") } else { format!("{p}{lo}..{p}{hi}") });
        }
    }
    if parts.is_empty() { "none".to_string() } else { parts.join(", ") }
}

/// The layout lines after a function's checks.
fn summary(out: &mut String, f: &Function, res: &AbiResult) {
    let spec = f.abi.clone().unwrap_or_default();
    let binds = |v: &[crate::ir::abi_spec::AbiValue]| v.iter().map(|v| v.bind).collect::<Vec<_>>();
    out.push_str(&values(f, "params", &res.params, &binds(&spec.params)));
    out.push_str(&values(f, "returns", &res.returns, &binds(&spec.returns)));
    if let (Some((file, ra)), Some(how)) = (res.ret_addr, res.ret_addr_placement) {
        let _ = writeln!(
            out,
            "  return address: {}:{} ({})",
            retaddr::name(file, ra as u32),
            retaddr::name(file, ra as u32 + 1),
            how.name()
        );
    }
    let _ = writeln!(out, "  stack pointer: R{}", res.stack_pointer);
    let _ = writeln!(out, "  fixed: {}", reg_list(&res.fixed));
    use crate::abi::RegRole::{Preserved, Scratch};
    let roles = |role| {
        reg_list(&res.classes.regs_with(RegFile::R, role).into_iter().map(|r| (RegFile::R, r)).collect::<Vec<_>>())
    };
    let _ = writeln!(out, "  scratch: {}", roles(Scratch));
    let _ = writeln!(out, "  preserved: {}", roles(Preserved));
    if let Some(e) = &res.error {
        let _ = writeln!(out, "  error: {e}");
    }
}

/// The ABI check list of the whole module.
pub fn report(m: &Module, sm: &Sm) -> String {
    let limits = function_limits(m, sm);
    let mut out = String::new();
    let (mut functions, mut warnings) = (0usize, 0usize);
    for (i, f) in m.functions.iter().enumerate() {
        let extra: Vec<AbiCheck> = check_convergent(m, i)
            .into_iter()
            .chain(check_reserved_smem(m, i))
            .chain(crate::abi::check_relative_calls(m, i))
            .collect();
        let res = f.abi.as_ref().map(|_| setup(m, i, &AbiInput { maxreg: limits[i], sm: sm.clone() }));
        if res.is_none() && extra.iter().all(|c| c.passed) {
            continue;
        }
        if !out.is_empty() {
            out.push('\n');
        }
        let _ = writeln!(
            out,
            "function {} ({}, {sm}, generation {}, limit {})",
            f.name,
            kind(f),
            sm.generation(),
            limits[i]
        );
        let checks: Vec<&AbiCheck> = res.iter().flat_map(|r| &r.checks).chain(&extra).collect();
        for c in &checks {
            out.push_str(&check_line(c));
        }
        warnings += checks.iter().filter(|c| !c.passed).count();
        if let Some(res) = &res {
            functions += 1;
            summary(&mut out, f, res);
        }
    }
    if !out.is_empty() {
        out.push('\n');
    }
    let _ = writeln!(out, "{functions} function(s) with an ABI spec, {warnings} failed check(s)");
    out
}
