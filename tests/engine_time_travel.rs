//! Time travel: stepping forward N events and back N restores an equal state, for many
//! N, on the demo kernel and a kernel with ABI calls; reverse-continue finds breakpoints.

use radbg::engine::breakpoint::BpKind;
use radbg::engine::{Debugger, RunOptions, Stop};
use radbg::ir::parse::parse_str;

fn debugger(path: &str) -> Debugger {
    let text = std::fs::read_to_string(path).unwrap();
    Debugger::new(parse_str(&text).unwrap(), RunOptions::default())
}

#[test]
fn forward_then_back_restores_the_state() {
    for path in ["sessions/demo.ori", "sessions/abi_lower.ori"] {
        let mut d = debugger(path);
        let mut end = d.clone();
        end.run_to_end();
        let total = end.cursor();
        assert!(total > 50, "{path}: only {total} events");
        for start in [0, 1, 7, total / 3, total / 2, total - 5] {
            for n in [1, 3, 40, 600] {
                d.goto(start);
                let before = d.fingerprint();
                let moved = d.step(n);
                d.reverse_step(moved);
                assert_eq!(d.fingerprint(), before, "{path}: start {start}, n {n}");
            }
        }
    }
}

#[test]
fn replays_are_identical() {
    let mut a = debugger("sessions/demo.ori");
    a.run_to_end();
    let mut b = debugger("sessions/demo.ori");
    b.run_to_end();
    assert_eq!(a.trace(), b.trace());
    b.goto(0);
    b.run_to_end();
    assert_eq!(a.trace(), b.trace());
}

#[test]
fn breakpoints_forward_and_reverse() {
    let mut d = debugger("sessions/demo.ori");
    let id = d.add_breakpoint(BpKind::Attempt { number: None, class: None, spill: Some(true) });
    assert_eq!(d.cont(&|| false), Stop::Breakpoint(id));
    let at = d.cursor();
    d.step(20);
    assert_eq!(d.reverse_continue(), Stop::Breakpoint(id));
    assert_eq!(d.cursor(), at);
    assert_eq!(d.reverse_continue(), Stop::Start);
    assert_eq!(d.cursor(), 0);
}
