//! Vreg lookups the stage tests share.

/// The width of the vreg that holds `name` and is still read: its `NAME$lo` replacement
/// when a stage narrowed it to one register (`zext`, `sext`), else the vreg itself.
pub fn read_width(f: &radbg::ir::Function, name: &str) -> Option<u8> {
    let named = |n: &str| f.vregs.iter().position(|v| &*v.name == n);
    let read = |i: usize| {
        f.blocks.iter().flat_map(|b| &b.insts).any(|inst| {
            inst.operands
                .iter()
                .any(|o| matches!(o, radbg::ir::Operand::Reg(radbg::ir::Reg::V(r)) if r.vreg.index() == i))
        })
    };
    if let Some(i) = named(&format!("{name}$lo")).filter(|&i| read(i)) {
        return Some(f.vregs[i].width);
    }
    named(name).filter(|&i| read(i)).map(|i| f.vregs[i].width)
}
