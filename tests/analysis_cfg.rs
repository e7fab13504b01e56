//! CFG tests: edges, RPO, dominators, natural loops and frequencies on hand-computed
//! examples.

mod analysis_builder;

use analysis_builder::func;
use radbg::analysis::cfg::{self, Cfg};

/// One line per block: `label -> succs | idom | depth | freq`, then loops and exits.
fn dump(f: &radbg::ir::Function, c: &Cfg) -> String {
    let mut s = String::new();
    let name = |b: usize| f.blocks[b].label.clone();
    for b in 0..f.blocks.len() {
        let succ: Vec<String> = c.succs[b].iter().map(|&x| name(x)).collect();
        let idom = c.idom[b].map_or("-".to_string(), name);
        let reach = if c.reachable[b] { "" } else { " unreachable" };
        s += &format!(
            "{} -> [{}] idom {} depth {} freq {}{}\n",
            name(b),
            succ.join(" "),
            idom,
            c.loop_depth[b],
            c.freq[b],
            reach
        );
    }
    let rpo: Vec<String> = c.rpo.iter().map(|&b| name(b)).collect();
    s += &format!("rpo {}\n", rpo.join(" "));
    for l in &c.loops {
        let blocks: Vec<String> = l.blocks.iter().map(|&b| name(b)).collect();
        s += &format!("loop {} [{}] depth {} parent {:?}\n", name(l.header), blocks.join(" "), l.depth, l.parent);
    }
    let exits: Vec<String> = c.exits.iter().map(|&b| name(b)).collect();
    s += &format!("exits {}\n", exits.join(" "));
    s
}

fn check(src: &str, expected: &str) {
    let f = func(src);
    let c = cfg::build(&f, 8.0);
    let got = dump(&f, &c);
    let want: String = expected.lines().map(str::trim).filter(|l| !l.is_empty()).map(|l| format!("{l}\n")).collect();
    assert_eq!(got, want, "\n--- got ---\n{got}--- want ---\n{want}");
}

#[test]
fn straight_line_and_fall_off() {
    check(
        "A:\n %r0 = MOV 1\nB:\n %r1 = MOV %r0\n",
        "A -> [B] idom - depth 0 freq 1
         B -> [] idom A depth 0 freq 1
         rpo A B
         exits B",
    );
}

#[test]
fn diamond() {
    check(
        "A:
           %p0 = ISETP.GE.AND %r0, 1, PT
           @%p0 BRA C
         B:
           %r1 = MOV 1
           BRA D
         C:
           %r1 = MOV 2
         D:
           EXIT",
        "A -> [C B] idom - depth 0 freq 1
         B -> [D] idom A depth 0 freq 1
         C -> [D] idom A depth 0 freq 1
         D -> [] idom A depth 0 freq 1
         rpo A B C D
         exits D",
    );
}

#[test]
fn nested_loops_get_depth_and_frequency() {
    check(
        "E:
           %r0 = MOV 0
         H1:
           %r1 = MOV 0
         H2:
           %r1 = IADD3 %r1, 1, RZ
           %p0 = ISETP.LT.AND %r1, 4, PT
           @%p0 BRA H2
         L1:
           %r0 = IADD3 %r0, 1, RZ
           %p1 = ISETP.LT.AND %r0, 4, PT
           @%p1 BRA H1
         X:
           EXIT",
        "E -> [H1] idom - depth 0 freq 1
         H1 -> [H2] idom E depth 1 freq 8
         H2 -> [H2 L1] idom H1 depth 2 freq 64
         L1 -> [H1 X] idom H2 depth 1 freq 8
         X -> [] idom L1 depth 0 freq 1
         rpo E H1 H2 L1 X
         loop H1 [H1 H2 L1] depth 1 parent None
         loop H2 [H2] depth 2 parent Some(0)
         exits X",
    );
}

#[test]
fn irreducible_cycle_forms_no_natural_loop() {
    // A branches into both B and C; B <-> C is a cycle with two entries.
    check(
        "A:
           @%p0 BRA C
         B:
           %r0 = MOV 1
         C:
           %r1 = MOV 2
           @%p1 BRA B
         D:
           EXIT",
        "A -> [C B] idom - depth 0 freq 1
         B -> [C] idom A depth 0 freq 1
         C -> [B D] idom A depth 0 freq 1
         D -> [] idom C depth 0 freq 1
         rpo A C D B
         exits D",
    );
}

#[test]
fn guarded_exit_falls_through_and_unknown_labels_are_ignored() {
    check(
        "A:
           @%p0 EXIT
         B:
           @%p0 BRA NOWHERE
           BRX %r0, A, C, A
         C:
           RET
         D:
           EXIT",
        "A -> [B] idom - depth 1 freq 8
         B -> [A C] idom A depth 1 freq 8
         C -> [] idom B depth 0 freq 1
         D -> [] idom - depth 0 freq 1 unreachable
         rpo A B C
         loop A [A B] depth 1 parent None
         exits A C D",
    );
}

#[test]
fn empty_function_and_empty_blocks() {
    let f = radbg::ir::Function::new("e", radbg::ir::FuncKind::Entry);
    let c = cfg::build(&f, 8.0);
    assert!(c.rpo.is_empty() && c.exits.is_empty() && c.loops.is_empty());
    check(
        "A:\nB:\n EXIT\n",
        "A -> [B] idom - depth 0 freq 1
         B -> [] idom A depth 0 freq 1
         rpo A B
         exits B",
    );
}

#[test]
fn long_chains_do_not_overflow_the_stack() {
    let mut src = String::new();
    for i in 0..50_000 {
        src += &format!("B{i}:\n %r0 = MOV {i}\n");
    }
    let f = func(&src);
    let c = cfg::build(&f, 8.0);
    assert_eq!(c.rpo.len(), 50_000);
    assert_eq!(c.idom[49_999], Some(49_998));
    assert!(c.dominates(0, 49_999) && !c.dominates(49_999, 0));
}

#[test]
fn innermost_loop_and_loop_weight_knobs() {
    let f = func("E:\n %r0 = MOV 0\nH1:\n %r1 = MOV 0\nH2:\n @%p0 BRA H2\nL1:\n @%p1 BRA H1\nX:\n EXIT\n");
    let c = cfg::build(&f, 3.0);
    let inner: Vec<Option<usize>> = (0..5).map(|b| c.innermost_loop(b)).collect();
    assert_eq!(inner, vec![None, Some(0), Some(1), Some(0), None]);
    assert_eq!(c.freq, vec![1.0, 3.0, 9.0, 3.0, 1.0]);

    let mut k = radbg::knobs::Knobs::new();
    assert_eq!(cfg::loop_weight(&k), 8.0);
    k.set_str("radbg.LoopWeight=5").unwrap();
    assert_eq!(cfg::loop_weight(&k), 5.0);
    k.set_str("RegAllocEstimatedLoopIterations=12").unwrap();
    assert_eq!(cfg::loop_weight(&k), 12.0);
}
