//! The debugger's memory on a file of many separate entries (issue 25: trace and
//! checkpoints per function). Counted, not timed: what the checkpoints copy rather than
//! share (`Debugger::checkpoint_bytes`, `allocation_checkpoint_bytes`), and whether a
//! snapshot shares the per-function results. Before this, every checkpoint copied every
//! function's results and the checkpoints of every function's allocation stayed: 4.05 GB
//! on the 5 MB file of 614 entries. Time travel across functions, whose allocation
//! checkpoints are dropped and re-taken, must still restore equal states.

use radbg::engine::{Debugger, RunOptions};

/// A kernel with loads, a loop, a branch and stores, `entries` times under other names.
fn many_entries(entries: usize) -> String {
    let mut s = String::from(".version 9.0\n.target sm_90\n.address_size 64\n");
    for e in 0..entries {
        s.push_str(&format!(
            "\n.visible .entry k{e}(\n\t.param .u64 k{e}_param_0,\n\t.param .u32 k{e}_param_1\n)\n{{\n"
        ));
        s.push_str("\t.reg .pred \t%p<4>;\n\t.reg .f32 \t%f<40>;\n\t.reg .b32 \t%r<16>;\n\t.reg .b64 \t%rd<8>;\n\n");
        s.push_str(&format!(
            "\tld.param.u64 \t%rd1, [k{e}_param_0];\n\tld.param.u32 \t%r1, [k{e}_param_1];\n\tcvta.to.global.u64 \t%rd2, %rd1;\n\tmov.u32 \t%r2, %tid.x;\n"
        ));
        s.push_str("\tmul.wide.u32 \t%rd3, %r2, 64;\n\tadd.s64 \t%rd4, %rd2, %rd3;\n");
        for k in 0..8 {
            s.push_str(&format!("\tld.global.f32 \t%f{k}, [%rd4+{}];\n", 4 * k));
        }
        s.push_str("\tmov.u32 \t%r3, 0;\n$L__BB0_loop:\n");
        for k in 0..8 {
            s.push_str(&format!("\tfma.rn.f32 \t%f{}, %f{k}, %f{}, %f{};\n", 8 + k, (k + 1) % 8, (k + 3) % 8));
        }
        for k in 0..8 {
            s.push_str(&format!("\tmul.f32 \t%f{k}, %f{}, %f{};\n", 8 + k, 8 + (k + 5) % 8));
        }
        s.push_str("\tadd.s32 \t%r3, %r3, 1;\n\tsetp.lt.s32 \t%p1, %r3, %r1;\n\t@%p1 bra \t$L__BB0_loop;\n");
        for k in 0..8 {
            s.push_str(&format!("\tst.global.f32 \t[%rd4+{}], %f{k};\n", 4 * k));
        }
        s.push_str("\tret;\n\n}\n");
    }
    s
}

/// The trace holds one `Event` per step, millions on a file of many entries (3.1 M on the
/// 50 MB one, issue 25): an event's size is most of the trace's memory. The rare events
/// with lists or long text box them (`AllocEvent::PreColor`, `BriggsEvent::Build` …); the
/// common ones (an assignment and its constraints, 93 % of the events) set the size. It
/// was 112 bytes.
#[test]
fn an_event_stays_small() {
    use std::mem::size_of;
    let alloc = size_of::<radbg::alloc::AllocEvent>();
    let briggs = size_of::<radbg::alloc::briggs::BriggsEvent>();
    assert!(alloc <= 40 && briggs <= 40, "AllocEvent {alloc} bytes, BriggsEvent {briggs}");
    assert!(size_of::<radbg::engine::Event>() <= 64, "Event: {} bytes", size_of::<radbg::engine::Event>());
}

/// The trace packs the allocator's per-vreg events (`engine::trace`): on a run of many
/// entries the trace holds a fraction of 64 bytes an event (it held 64 and more: the
/// vector grew by a quarter at a time). These small kernels have few vregs per function,
/// so about half their events are per-vreg ones (93 % on the 50 MB file: 211 → 71 MB).
#[test]
fn the_trace_holds_a_fraction_of_an_event_per_step() {
    let mut d = debugger(40, None);
    d.run_to_end();
    let n = d.trace().len();
    let per_event = d.trace_bytes() / n;
    let event = std::mem::size_of::<radbg::engine::Event>();
    assert!(n > 5000 && per_event * 3 <= event * 2, "{per_event} bytes, {n} events");
    // The allocation events of the finished functions are dropped and replayed from
    // their recipes when read (`Trace::elide`): 9 bytes an event here, 29 when they were
    // held (18 with only their packed bytes dropped).
    assert!(per_event <= 12, "{per_event} bytes an event: the finished functions' events are held");
    // Read back in full, the packed trace is the run's events in order.
    let mut m = radbg::engine::Machine::new(
        radbg::ir::ptx::import_text(&many_entries(40)).module.expect("imports"),
        RunOptions { imported: true, ..RunOptions::default() },
    );
    let fresh: Vec<radbg::engine::Event> = std::iter::from_fn(|| m.step()).collect();
    assert_eq!(d.trace().to_vec(), fresh);
    // Read backwards and out of order too (each read of another function replays it).
    for i in (0..n).rev().step_by(13).chain((0..n).step_by(997)) {
        assert_eq!(d.event(i).as_deref(), Some(&fresh[i]), "event {i}");
    }
}

/// The IR is most of what the debugger holds at the end of a many-entry run (an
/// instruction per PTX line, 1.7 M on the 50 MB file, and 4.9 M operands). Its
/// modifiers, special registers and symbols are interned (`ir::Atom`: a pointer, no
/// heap block per instruction; the instruction was 80 bytes and a 32-byte block beside
/// it, an operand 24 bytes), an opcode is a number (the enum holding an unknown
/// mnemonic's `Box<str>` was 16 bytes), the operands are a boxed slice, and a module as
/// loaded group by group has no spare capacity (the lowering left about a third of its
/// instruction, operand and register slots empty).
#[test]
fn an_instruction_stays_small() {
    use std::mem::size_of;
    assert_eq!(size_of::<radbg::ir::Mods>(), 8);
    assert!(size_of::<radbg::ir::Opcode>() <= 4, "Opcode: {} bytes", size_of::<radbg::ir::Opcode>());
    assert!(size_of::<radbg::ir::Operand>() <= 16, "Operand: {} bytes", size_of::<radbg::ir::Operand>());
    assert!(size_of::<radbg::ir::Inst>() <= 56, "Inst: {} bytes", size_of::<radbg::ir::Inst>());
    let text = many_entries(3);
    let (_, m) = radbg::ir::ptx::stream::Reimport::load(text).expect("imports group by group");
    for f in &m.functions {
        assert_eq!(f.vregs.capacity(), f.vregs.len(), "{}", f.name);
        for b in &f.blocks {
            assert_eq!(b.insts.capacity(), b.insts.len(), "{}", f.name);
        }
    }
    // Equal modifiers are one string, wherever they were read.
    let mut first: std::collections::HashMap<&str, &'static str> = std::collections::HashMap::new();
    for i in m.functions.iter().flat_map(|f| &f.blocks).flat_map(|b| &b.insts) {
        let s = i.mods.as_str();
        assert!(std::ptr::eq(*first.entry(s).or_insert(s), s), "{s} held twice");
    }
    assert!(first.len() > 3, "{:?}", first.keys());
}

fn debugger(entries: usize, maxrregcount: Option<u32>) -> Debugger {
    let imported = radbg::ir::ptx::import_text(&many_entries(entries));
    let module = imported.module.expect("the generated file imports");
    assert_eq!(module.functions.len(), entries);
    Debugger::new(module, RunOptions { imported: true, maxrregcount, ..RunOptions::default() })
}

/// (allocation checkpoint bytes, all checkpoint bytes, events) at the end of the run.
fn held(entries: usize) -> (usize, usize, usize) {
    let mut d = debugger(entries, Some(16));
    d.run_to_end();
    (d.allocation_checkpoint_bytes(), d.checkpoint_bytes(), d.cursor())
}

#[test]
fn the_checkpoints_held_do_not_grow_with_the_entries() {
    let (alloc_small, all_small, events_small) = held(8);
    let (alloc_large, all_large, events_large) = held(32);
    assert!(events_large > 3 * events_small, "{events_small} → {events_large} events");
    // The allocation's checkpoints are the last function's only: the same function (a
    // checkpoint's pointers to the chunks of results add a byte per 8 functions).
    assert!(alloc_small > 0, "--maxrregcount 16 spills: attempts are checkpointed");
    assert!(
        alloc_large <= alloc_small + alloc_small / 100,
        "checkpoints of an allocation held for one function only: {alloc_small} → {alloc_large} bytes"
    );
    // The rest share the module and the per-function results: a few KiB per function
    // (its budget event's checkpoint, a periodic one), not a copy of every function's.
    let per_entry = (all_large - alloc_large).saturating_sub(all_small - alloc_small) / 24;
    assert!(per_entry <= 4096, "{per_entry} bytes of checkpoints per added entry ({all_small} → {all_large})");
}

#[test]
fn a_snapshot_shares_the_results_of_the_functions_not_in_hand() {
    let mut d = debugger(200, None);
    d.run_to_end();
    d.goto(d.cursor() / 2);
    let before = d.machine().snapshot();
    d.step(200);
    let changed = d.machine().funcs.unshared_chunks(&before.funcs);
    assert!(changed <= 2, "{changed} chunks of results copied by 200 events");
}

#[test]
fn time_travel_across_functions_restores_the_states() {
    let mut d = debugger(6, Some(16));
    let mut end = d.clone();
    end.run_to_end();
    let total = end.cursor();
    let marks: Vec<usize> = (1..total).step_by(37).chain([total - 1, total]).collect();
    let mut seen = Vec::new();
    for &k in &marks {
        d.goto(k);
        seen.push(d.fingerprint());
    }
    // Backwards from the end: each function's allocation checkpoints are dropped when
    // another's are taken, and re-taken by the replay from its budget event.
    for (k, fp) in marks.iter().zip(&seen).rev() {
        d.goto(*k);
        assert_eq!(&d.fingerprint(), fp, "back at event {k} of {total}");
    }
    for (k, fp) in marks.iter().zip(&seen) {
        d.reverse_step(3);
        d.goto(*k);
        assert_eq!(&d.fingerprint(), fp, "forward again at event {k}");
    }
    assert_eq!(d.trace(), end.trace());
}

/// The finished allocations held in full after the run and at each function's budget
/// event: the previous function's (and the one before it at the end), however many
/// functions there are.
fn held_allocations(entries: usize) -> (usize, usize, usize) {
    let mut d = debugger(entries, Some(16));
    let mut most = 0;
    while d.step(1) == 1 {
        if matches!(d.current().map(|e| &e.kind), Some(radbg::engine::EventKind::Budget { .. })) {
            most = most.max(d.machine().held_allocations());
        }
    }
    (most, d.machine().held_allocations(), d.checkpoint_held_allocations())
}

#[test]
fn the_finished_allocations_held_do_not_grow_with_the_entries() {
    let (during_small, end_small, cps_small) = held_allocations(4);
    let (during_large, end_large, cps_large) = held_allocations(24);
    assert!(during_small <= 1 && during_large <= 1, "at a budget event: {during_small}, {during_large}");
    assert!(end_small <= 2 && end_large <= 2, "at the end: {end_small}, {end_large}");
    // A checkpoint keeps the finished allocations as recipes: one at each budget event
    // kept the previous function's, that is all of them.
    assert!(cps_small <= 2 && cps_large <= 2, "in the checkpoints: {cps_small}, {cps_large}");
}

#[test]
fn an_earlier_function_replayed_answers_as_the_run_that_finished_it() {
    // While each function's allocation is still held (its statistics event), what a
    // query reads from it; and the state at an event inside its allocation.
    let mut d = debugger(5, Some(16));
    let mut fresh = Vec::new();
    let mut inside = Vec::new();
    while d.step(1) == 1 {
        let ev = d.current().cloned().expect("applied");
        match (&ev.kind, ev.func) {
            (radbg::engine::EventKind::Stats { .. }, Some(fi)) => {
                let a = d.machine().funcs[fi].alloc.as_deref().expect("finished");
                fresh.push((fi, a.fingerprint(), a.assignment_lines(), a.spilled_names(), d.machine().describe(&ev)));
            }
            (radbg::engine::EventKind::Alloc(_), Some(fi)) if inside.len() == fi => {
                inside.push((d.cursor() + 7, String::new()));
            }
            _ => {}
        }
        if let Some(last) = inside.last_mut()
            && last.0 == d.cursor()
        {
            last.1 = d.fingerprint();
        }
    }
    assert_eq!(fresh.len(), 5);
    let machine = d.machine();
    assert!(machine.funcs[0].alloc.as_ref().is_some_and(|a| !a.is_held()), "left as a recipe");
    for (fi, fp, lines, spilled, _) in &fresh {
        let a = machine.funcs[*fi].alloc.as_deref().expect("finished");
        assert_eq!(&a.fingerprint(), fp, "function {fi} replayed");
        assert_eq!(&a.assignment_lines(), lines);
        assert_eq!(&a.spilled_names(), spilled);
    }
    // Back into each function's allocation, then forward to its statistics event.
    for (k, fp) in inside.iter().rev() {
        d.goto(*k);
        assert_eq!(&d.fingerprint(), fp, "back at event {k}");
    }
    let stats: Vec<usize> = (0..d.trace().len())
        .filter(|&i| d.event(i).is_some_and(|e| matches!(e.kind, radbg::engine::EventKind::Stats { .. })))
        .map(|i| i + 1)
        .collect();
    for (k, (_, _, _, _, text)) in stats.iter().zip(&fresh) {
        d.goto(*k);
        let ev = d.current().cloned().expect("applied");
        assert_eq!(&d.machine().describe(&ev), text);
    }
}

#[test]
fn going_back_into_an_allocation_keeps_the_previous_function_s_held() {
    // At the third function's statistics, then back to the start of its allocation: the
    // second function's allocation, held by the machine going back, is taken over by the
    // restored one (the checkpoint keeps it as a recipe), not replayed again.
    let mut d = debugger(4, Some(16));
    let trace_of = |d: &Debugger, kind: fn(&radbg::engine::EventKind) -> bool, fi: usize| {
        d.trace().iter().position(|e| e.func == Some(fi) && kind(&e.kind)).map(|i| i + 1)
    };
    d.run_to_end();
    let stats = trace_of(&d, |k| matches!(k, radbg::engine::EventKind::Stats { .. }), 2).expect("stats of f2");
    let start = trace_of(&d, |k| matches!(k, radbg::engine::EventKind::Alloc(_)), 2).expect("allocation of f2");
    d.goto(stats);
    // A query about the second function (its last events on screen) replays it.
    let lines = d.machine().funcs[1].alloc.as_deref().map(|a| a.assignment_lines());
    assert!(lines.is_some_and(|l| !l.is_empty()));
    assert!(d.machine().funcs[1].alloc.as_ref().is_some_and(|a| a.is_held()), "held at f2's statistics");
    d.goto(start + 2);
    assert!(d.machine().funcs[1].alloc.as_ref().is_some_and(|a| a.is_held()), "still held after going back");
    assert_eq!(d.checkpoint_held_allocations(), 0, "the checkpoints keep recipes");
}

#[test]
fn reverse_steps_inside_the_prepasses_rebuild_only_the_functions_they_touch() {
    // The prepasses run pass by pass over every function, with no checkpoint after the
    // start: going back there rebuilt the whole module by replaying from the start. Now
    // the functions the skipped events touched are rebuilt alone; the module, position
    // and every later event must be what a fresh run gives.
    let mut d = debugger(12, None);
    let mut end = d.clone();
    end.run_to_end();
    let prepass = |e: &radbg::engine::Event| matches!(e.kind, radbg::engine::EventKind::Prepass { .. });
    let last = end.trace().iter().position(|e| !prepass(&e)).expect("stages after the prepasses");
    assert!(last > 100, "{last} prepass events");
    d.goto(last);
    for back in [1, 1, 2, 1, 13, 1, 40, 3] {
        let rewinds = d.prepass_rewinds();
        d.reverse_step(back);
        let k = d.cursor();
        // A few events back touch a few functions: rebuilt alone, not replayed.
        assert!(back > 3 || d.prepass_rewinds() == rewinds + 1, "{back} back to event {k} replayed from the start");
        let mut fresh = debugger(12, None);
        fresh.goto(k);
        assert_eq!(d.machine().pos, fresh.machine().pos, "position at event {k}");
        assert!(d.machine().module == fresh.machine().module, "module at event {k}");
        assert_eq!(d.fingerprint(), fresh.fingerprint(), "state at event {k}");
    }
    d.run_to_end();
    assert_eq!(d.trace(), end.trace());
    assert_eq!(d.fingerprint(), end.fingerprint());
}

/// The generated file's debugger as the REPL opens a file of several call groups: the
/// module imported group by group, its text kept instead of the module as loaded.
fn debugger_reimporting(entries: usize, maxrregcount: Option<u32>) -> Debugger {
    let (r, module) = radbg::ir::ptx::stream::Reimport::load(many_entries(entries)).expect("splits");
    let opts = RunOptions { imported: true, maxrregcount, ..RunOptions::default() };
    Debugger::with_reimport(module, opts, Some(r))
}

#[test]
fn a_debugger_that_imports_again_holds_one_copy_of_the_ir() {
    // Before: the module as loaded stayed beside the copy the stages rewrite (460 MB of
    // the 50 MB many-entry file's 1.5 GB); the first prepass copied all of it.
    let one: usize = {
        let d = debugger(10, None);
        d.machine().module.functions.iter().map(|f| f.inst_count()).sum()
    };
    let mut held = debugger(10, None);
    let mut lean = debugger_reimporting(10, None);
    assert!(held.holds_loaded() && !lean.holds_loaded());
    assert_eq!(lean.held_ir_insts(), one, "at the start");
    let mut most = 0;
    while lean.step(1) == 1 {
        most = most.max(lean.held_ir_insts());
    }
    held.run_to_end();
    assert!(held.held_ir_insts() > one, "the held debugger keeps the loaded copy too");
    // One copy, which the prepasses and lowering rewrite (spill code adds a few).
    let end: usize = lean.machine().module.functions.iter().map(|f| f.inst_count()).sum();
    assert_eq!(lean.held_ir_insts(), end);
    assert!(most <= one.max(end) + one / 10, "{most} instructions held at most, one copy {one}");
    assert_eq!(lean.trace(), held.trace());
    assert_eq!(lean.fingerprint(), held.fingerprint());
    assert!(*lean.loaded() == *held.loaded(), "the module as loaded, imported again");
}

#[test]
fn going_back_without_the_loaded_module_gives_the_same_states() {
    // To the start (the start checkpoint is rebuilt from the text), inside the
    // prepasses (the functions touched are imported again with their call group), and
    // across allocations: every state as the debugger that holds the module gives it.
    let mut held = debugger(12, Some(16));
    let mut lean = debugger_reimporting(12, Some(16));
    let mut end = held.clone();
    end.run_to_end();
    let total = end.cursor();
    let prepass = |e: &radbg::engine::Event| matches!(e.kind, radbg::engine::EventKind::Prepass { .. });
    let last = end.trace().iter().position(|e| !prepass(&e)).expect("stages after the prepasses");
    let marks: Vec<usize> =
        [total, last, last - 1, last - 3, last - 40, 5, 1, 0, last + 17, total / 2, total / 3, total - 1].into();
    for k in marks {
        held.goto(k);
        lean.goto(k);
        assert_eq!(lean.cursor(), held.cursor());
        assert!(lean.machine().module == held.machine().module, "module at event {k}");
        assert_eq!(lean.fingerprint(), held.fingerprint(), "state at event {k}");
        if k > 0 && k <= last {
            for fi in [0, 5, 11] {
                let text = |d: &Debugger| {
                    radbg::why::stages::replay(d.machine(), fi).map(|s| {
                        let steps: Vec<_> =
                            s.steps.iter().map(|x| (x.name, x.off, x.peak, x.before, x.summary.clone())).collect();
                        format!("{} {} {} {steps:?}", s.imported_peak, s.final_peak, s.target)
                    })
                };
                let (a, b) = (text(&lean), text(&held));
                assert!(a.is_some());
                assert_eq!(a, b, "why's stages of function {fi} at event {k}");
            }
        }
    }
    assert!(lean.prepass_rewinds() > 0, "reverse steps in the prepasses rebuilt the touched functions");
    // A change that re-runs from the start: the start rebuilt from the text.
    let mut opts = held.opts.clone();
    opts.maxrregcount = Some(24);
    held.goto(total / 2);
    lean.goto(total / 2);
    assert_eq!(
        lean.set_options(opts.clone(), radbg::engine::Stage::Prepass),
        held.set_options(opts, radbg::engine::Stage::Prepass)
    );
    assert_eq!(lean.fingerprint(), held.fingerprint());
    lean.run_to_end();
    held.run_to_end();
    assert_eq!(lean.trace(), held.trace());
    assert_eq!(lean.fingerprint(), held.fingerprint());
    assert!(!lean.holds_loaded());
}

/// A vreg's name is shared with the vregs of the same name in other functions (issue 25:
/// 1.85 M names on the 50 MB file, each a `String` and a heap block of its own before):
/// `%r1` of every entry is one text.
#[test]
fn the_rewritten_functions_have_no_spare_register_slots() {
    // The prepasses that add vregs (the slow paths, the webs) grew the vectors by
    // doubling, and the module keeps every function to the end of the run: 10 MB of the
    // 50 MB many-entry file's debugger were empty register slots.
    // Divisions and square roots: their slow paths add vregs one at a time.
    let text = many_entries(4)
        .replace("\tmul.f32 \t%f0,", "\tdiv.rn.f32 \t%f0,")
        .replace("\tmul.f32 \t%f1,", "\tsqrt.rn.f32 \t%f1, %f1;\n\tmul.f32 \t%f1,");
    let (r, module) = radbg::ir::ptx::stream::Reimport::load(text).expect("splits");
    let opts = RunOptions { imported: true, ..RunOptions::default() };
    let mut d = Debugger::with_reimport(module, opts, Some(r));
    d.run_to_end();
    let m = &d.machine().module;
    let added: usize = m.functions.iter().map(|f| f.vregs.len()).sum();
    assert!(added > 4 * 60, "{added} vregs: the prepasses ran");
    for f in &m.functions {
        assert_eq!(f.vregs.capacity(), f.vregs.len(), "{}", f.name);
        assert_eq!(f.decls.capacity(), f.decls.len(), "{}", f.name);
    }
}

#[test]
fn equal_vreg_names_across_functions_are_one_text() {
    let imported = radbg::ir::ptx::import_text(&many_entries(3));
    let module = imported.module.expect("the generated file imports");
    let find = |fi: usize| module.functions[fi].vregs.iter().find(|v| &*v.name == "%r1").expect("%r1").name.clone();
    let (a, b, c) = (find(0), find(1), find(2));
    assert!(std::sync::Arc::ptr_eq(&a, &b) && std::sync::Arc::ptr_eq(&b, &c));
}

/// The pipeline's CFG and liveness of a function are dropped once its uninit stage has
/// passed (the debugger held every function's, 52 MB of the 50 MB many-entry file's
/// run), and a query computes the same liveness again.
#[test]
fn a_function_past_its_liveness_stages_holds_no_liveness_and_answers_the_same() {
    let mut d = debugger(6, Some(16));
    let mut at_stage: Vec<Option<String>> = vec![None; 6];
    while d.step(1) == 1 {
        let Some(ev) = d.current().cloned() else { break };
        let Some(fi) = ev.func else { continue };
        let m = d.machine();
        match ev.kind {
            radbg::engine::EventKind::BlockRebuild { .. } => {
                at_stage[fi] = m.liveness_of(fi).map(|l| format!("{l:?}"));
                assert!(at_stage[fi].is_some(), "function {fi} has its liveness at its liveness stage");
            }
            radbg::engine::EventKind::Budget { .. } => {
                let held = m.funcs.iter().filter(|r| r.live.is_some() || r.cfg.is_some()).count();
                assert_eq!(held, 0, "no function holds its pipeline liveness at function {fi}'s budget");
                assert_eq!(m.liveness_of(fi).map(|l| format!("{l:?}")), at_stage[fi], "function {fi}");
            }
            _ => {}
        }
    }
    assert!(at_stage.iter().all(Option::is_some));
}
