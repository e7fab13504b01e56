//! The source map: on printed (canonical) text, every span points at exactly the
//! text the printer wrote for that item, so the debugger can map any instruction,
//! operand, label, function or declaration back to its line and column.

use radbg::ir::arbitrary::{self, GenConfig, Rng};
use radbg::ir::parse::parse_module;
use radbg::ir::print::{print_inst, print_module, print_operand};
use radbg::ir::span::SourceFile;

fn check_spans(text: &str) {
    let file = SourceFile::new("s.ori", text);
    let (m, map, diags) = parse_module(&file);
    assert!(diags.iter().all(|d| !d.is_error()), "{:?}", diags);
    assert_eq!(map.functions.len(), m.functions.len());
    for (k, f) in m.functions.iter().enumerate() {
        let fs = &map.functions[k];
        assert_eq!(file.slice(fs.name), f.name);
        assert_eq!(fs.decls.len(), f.decls.len());
        for (d, decl) in f.decls.iter().enumerate() {
            assert_eq!(file.slice(fs.decls[d]), decl.prefix);
        }
        assert_eq!(fs.vregs.len(), f.vregs.len());
        assert_eq!(fs.blocks.len(), f.blocks.len());
        for (b, block) in f.blocks.iter().enumerate() {
            assert_eq!(file.slice(fs.blocks[b].label), block.label);
            for (i, inst) in block.insts.iter().enumerate() {
                let s = fs.inst(b, i).unwrap();
                assert_eq!(file.slice(s.span), print_inst(f, inst), "instruction span");
                let mnemonic = format!("{}{}", inst.op.mnemonic(), inst.mods);
                assert_eq!(file.slice(s.mnemonic), mnemonic);
                for (o, op) in inst.operands.iter().enumerate() {
                    let os = fs.operand(b, i, o).unwrap();
                    assert_eq!(file.slice(os), print_operand(f, op), "operand {o} of {}", print_inst(f, inst));
                }
                assert_eq!(fs.operand(b, i, inst.operands.len()), None);
                // The line of an instruction is where its `[N]` program point is printed.
                let (line, _) = file.line_col(s.span.lo);
                let point = m.functions[k].layout().point(b, i);
                assert!(file.line_text(line).trim_start().starts_with(&format!("[{point}] ")));
            }
        }
    }
}

#[test]
fn spans_of_printed_random_modules() {
    let cfg = GenConfig::default();
    for seed in 0..200 {
        let m = arbitrary::module(&mut Rng::new(seed), &cfg);
        check_spans(&print_module(&m));
    }
}

#[test]
fn spans_of_printed_sessions() {
    for name in ["demo", "abi_modes", "pairs_quads", "optix"] {
        let text = std::fs::read_to_string(format!("sessions/{name}.ori")).unwrap();
        let (m, _, _) = parse_module(&SourceFile::new(name, text));
        check_spans(&print_module(&m));
    }
}

#[test]
fn spans_in_hand_written_text_point_at_the_line() {
    let text = ".target sm_90\n.entry k {\n  .reg .R %r<2>\nBB0:\n  %r0 = MOV 1   // one\n\n  /* two */ %r1 = IADD3 %r0, 2, RZ\n  EXIT\n}\n";
    let file = SourceFile::new("h.ori", text);
    let (_, map, diags) = parse_module(&file);
    assert!(diags.is_empty());
    let fs = &map.functions[0];
    let lines: Vec<(usize, usize)> = (0..3).map(|i| file.line_col(fs.inst(0, i).unwrap().span.lo)).collect();
    assert_eq!(lines, vec![(5, 3), (7, 13), (8, 3)]);
    assert_eq!(file.slice(fs.inst(0, 1).unwrap().span), "%r1 = IADD3 %r0, 2, RZ");
    assert_eq!(file.slice(fs.operand(0, 1, 1).unwrap()), "%r0");
    assert_eq!(file.slice(fs.vregs[1]), "%r");
}
