//! The synthetic kernel generator: deterministic, well-formed (every branch target
//! exists, nothing read before it is written), and the configuration knobs matter.

use radbg::analysis::{cfg, liveness, uninit};
use radbg::ir::{Operand, RegFile};
use radbg::synth::{SynthConfig, synthetic_kernel, synthetic_kernel_with};

#[test]
fn generation_is_deterministic_and_seeded() {
    assert_eq!(synthetic_kernel(3000, 7), synthetic_kernel(3000, 7));
    assert_ne!(synthetic_kernel(3000, 7), synthetic_kernel(3000, 8));
}

#[test]
fn kernels_are_well_formed_and_have_the_requested_size() {
    for (n, seed) in [(50, 1), (2000, 2), (20_000, 3)] {
        let m = synthetic_kernel(n, seed);
        let f = &m.functions[0];
        let count = f.inst_count();
        assert!(count >= n && count <= n + 64, "{count} instructions for {n}");
        for b in &f.blocks {
            for i in &b.insts {
                for o in &i.operands {
                    if let Operand::Sym(l) = o {
                        assert!(f.block_by_label(l).is_some(), "unknown label {l}");
                    }
                }
            }
        }
        let c = cfg::build(f, 8.0);
        let l = liveness::compute(f, &c, &[]);
        assert!(l.live_in(0).is_empty(), "nothing is read before it is written: {:?}", l.live_in(0));
        assert!(uninit::find(f, &c, &l, &[]).is_none());
        if n >= 2000 {
            assert!(c.loops.iter().any(|l| l.depth >= 2), "nested loops");
            let files: Vec<RegFile> = l.files().iter().map(|x| x.file).collect();
            assert_eq!(files, vec![RegFile::R, RegFile::UR, RegFile::P]);
        }
    }
}

#[test]
fn max_live_controls_pressure() {
    let pressure = |max_live| {
        let m = synthetic_kernel_with(SynthConfig { max_live, ..SynthConfig::new(5000, 4) });
        let f = &m.functions[0];
        let c = cfg::build(f, 8.0);
        liveness::compute(f, &c, &[]).max_pressure(f, RegFile::R).0
    };
    let (lo, hi) = (pressure(16), pressure(160));
    assert!(lo < hi, "pressure {lo} with 16 in flight, {hi} with 160");
}

#[test]
fn kernels_print_and_parse_back_unchanged() {
    use radbg::ir::parse::parse_module;
    use radbg::ir::span::SourceFile;
    let m = synthetic_kernel(3000, 5);
    let text = radbg::ir::print_module(&m);
    let (back, _, diags) = parse_module(&SourceFile::new("synth.ori", text));
    assert!(diags.iter().all(|d| !d.is_error()), "{diags:?}");
    assert_eq!(back, m);
}
