//! The Chaitin-Briggs allocator hosted by the debugger engine (`set allocator briggs`):
//! time travel gives equal states (forward N, back N), replays are identical, Briggs
//! breakpoints fire forward and in reverse, `set allocator` re-runs to the same result
//! as a fresh run, every session kernel's Briggs result passes the independent checker
//! through the engine, fat-point runs produce no Briggs events, and the CLI takes
//! `--allocator` (run, the debugger, `-x`, `--json`, `--record`).

use std::path::Path;
use std::process::Command;

use radbg::alloc::briggs::view as bv;
use radbg::command::Session;
use radbg::command::parse_line;
use radbg::engine::breakpoint::BpKind;
use radbg::engine::query as qb;
use radbg::engine::{AllocatorKind, Debugger, EventKind, RunOptions, Stage, Stop};
use radbg::ir::parse::parse_str;

fn briggs() -> RunOptions {
    RunOptions { allocator: AllocatorKind::Briggs, ..RunOptions::default() }
}

fn debugger(path: &str, opts: RunOptions) -> Debugger {
    let text = std::fs::read_to_string(path).unwrap();
    Debugger::new(parse_str(&text).unwrap(), opts)
}

/// The fingerprint plus every Briggs view at the cursor, so that time travel must
/// restore the graph, the worklists and the colours, not just the position.
fn state(d: &Debugger) -> String {
    let mut s = d.fingerprint();
    let fi = radbg::engine::query::current_func(d);
    if let Some(b) = qb::briggs_of(d.machine(), fi) {
        s.push_str(&format!("{:?}\n", qb::briggs_graph(d, fi, b)));
        if let Some((f, v)) = qb::event_node(d).filter(|x| x.0 == fi) {
            s.push_str(&format!("{:?}\n{:?}\n", bv::neighbours(b, v), qb::briggs_colours(d, b, v)));
            s.push_str(&format!("{:?}\n", qb::briggs_vreg(d, f, b, v)));
        }
    }
    s.push_str(&format!("{:?}\n", qb::briggs_iterations(d, fi)));
    s
}

#[test]
fn forward_then_back_restores_the_state() {
    for path in ["sessions/briggs_k15.ori", "sessions/briggs_moves.ori", "sessions/demo.ori"] {
        let mut d = debugger(path, briggs());
        let mut end = d.clone();
        end.run_to_end();
        let total = end.cursor();
        assert!(total > 30, "{path}: only {total} events");
        assert!(end.trace().iter().any(|e| matches!(e.kind, EventKind::Briggs(_))), "{path}: no Briggs events");
        for start in [0, 1, 9, total / 3, total / 2, total - 5] {
            for n in [1, 3, 40, 600] {
                d.goto(start);
                let before = state(&d);
                let moved = d.step(n);
                d.reverse_step(moved);
                assert_eq!(state(&d), before, "{path}: start {start}, n {n}");
            }
        }
    }
}

#[test]
fn replays_are_identical() {
    let mut a = debugger("sessions/briggs_k15.ori", briggs());
    a.run_to_end();
    let mut b = debugger("sessions/briggs_k15.ori", briggs());
    b.run_to_end();
    assert_eq!(a.trace(), b.trace());
    b.goto(0);
    b.run_to_end();
    assert_eq!(a.trace(), b.trace());
}

#[test]
fn briggs_breakpoints_forward_and_reverse() {
    let mut d = debugger("sessions/briggs_k15.ori", briggs());
    let it = d.add_breakpoint(BpKind::Iteration { number: Some(2) });
    assert_eq!(d.cont(&|| false), Stop::Breakpoint(it));
    assert_eq!(d.current().map(|e| e.kind_name()), Some("iteration-start"));
    let at = d.cursor();
    let sp = d.add_breakpoint(BpKind::Spill { vreg: Some("%s0".into()) });
    assert_eq!(d.reverse_continue(), Stop::Breakpoint(sp));
    assert!(d.machine().describe(d.current().unwrap()).contains("no colour for %s0"));
    assert_eq!(d.cont(&|| false), Stop::Breakpoint(it));
    assert_eq!(d.cursor(), at);
    let asg = d.add_breakpoint(BpKind::Assign { vreg: "%s12".into(), cond: None });
    assert_eq!(d.cont(&|| false), Stop::Breakpoint(asg));
    assert!(d.machine().describe(d.current().unwrap()).contains("colour %s12 = R"));
    // A vreg coalesced into another node stops at that node's colour.
    let mut m = debugger("sessions/briggs_moves.ori", briggs());
    let z = m.add_breakpoint(BpKind::Assign { vreg: "%z".into(), cond: None });
    assert_eq!(m.cont(&|| false), Stop::Breakpoint(z));
    assert!(m.machine().describe(m.current().unwrap()).contains("with %b %z"));
    assert_eq!(m.cont(&|| false), Stop::End);
    assert_eq!(m.reverse_continue(), Stop::Breakpoint(z));
}

#[test]
fn set_allocator_reruns_to_the_result_of_a_fresh_run() {
    let mut fresh = debugger("sessions/briggs_k15.ori", briggs());
    fresh.run_to_end();
    let mut d = debugger("sessions/briggs_k15.ori", RunOptions::default());
    d.step(60);
    d.set_options(briggs(), Stage::Budget);
    d.run_to_end();
    assert_eq!(d.trace(), fresh.trace());
    // And back: the fat-point run is the one it was.
    let mut fat = debugger("sessions/briggs_k15.ori", RunOptions::default());
    fat.run_to_end();
    d.set_options(RunOptions::default(), Stage::Budget);
    d.run_to_end();
    assert_eq!(d.trace(), fat.trace());
    assert!(!fat.trace().iter().any(|e| matches!(e.kind, EventKind::Briggs(_))));
}

/// Every function of every session kernel, allocated by Chaitin-Briggs through the
/// engine: a success passes the independent checker (the engine's Check stage reports
/// no fault), a failure says why and keeps no assignment.
#[test]
fn every_session_kernel_passes_the_checker_under_briggs() {
    let mut files: Vec<_> = std::fs::read_dir("sessions")
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "ori"))
        .collect();
    files.sort();
    assert!(files.len() > 20);
    let mut ok = 0;
    for path in &files {
        let loaded = radbg::load::load_path(path).unwrap();
        let mut d = Debugger::new(loaded.module, briggs());
        d.run_to_end();
        let m = d.machine();
        for (fi, r) in m.funcs.iter().enumerate() {
            let name = format!("{}:{}", path.display(), m.module.functions[fi].name);
            let run = r.alloc.as_ref().unwrap_or_else(|| panic!("{name}: no allocation"));
            assert!(r.fatpoint().is_none(), "{name}: the fat-point allocator ran instead");
            let b = run.briggs().unwrap_or_else(|| panic!("{name}: no Briggs result"));
            match b.failure() {
                None => {
                    assert_eq!(r.check_errors.as_deref(), Some(&[][..]), "{name}");
                    assert!(b.check().is_ok(), "{name}: {:?}", b.check());
                    ok += 1;
                }
                Some(msg) => {
                    assert!(msg.starts_with("Briggs allocation"), "{name}: {msg}");
                    let stats = r.stats.as_ref().unwrap();
                    assert_eq!(stats.error.as_deref(), Some(msg), "{name}");
                }
            }
        }
    }
    assert!(ok > 20, "only {ok} successful Briggs allocations");
}

/// The command language on a Briggs run: `expect` on its results, `export` and `--json`
/// carry its events, the queries answer.
#[test]
fn commands_work_on_briggs_results() {
    let dir = std::env::temp_dir().join(format!("radbg-briggs-engine-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let trace = dir.join("trace.json");
    let mut s = Session::new();
    s.base = Path::new("sessions").to_path_buf();
    let script = format!(
        "load briggs_moves.ori; set allocator briggs; break assign %z; continue; graph; hist; constraints; print %z; \
         continue; expect %z == R0; expect ok; expect stats registers == 8; export json {} trace; attempts",
        trace.display()
    );
    let mut outs = Vec::new();
    for cmd in parse_line(&script).unwrap() {
        let o = s.exec(&cmd).unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
        assert!(!o.failed, "{cmd:?}: {}", o.text);
        outs.push(o);
    }
    let graph = &outs[4].json;
    assert_eq!(graph["moves"].as_array().unwrap().len(), 4);
    assert!(outs[5].json["chosen"] == 0, "{}", outs[5].json);
    assert!(outs[6].json["neighbours"].as_array().is_some_and(|n| !n.is_empty()));
    assert_eq!(outs[7].json["node"], "%x");
    let exported: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&trace).unwrap()).unwrap();
    let kinds: Vec<&str> = exported.as_array().unwrap().iter().filter_map(|e| e["kind"].as_str()).collect();
    for k in ["iteration-start", "build", "coalesced", "node-removed", "colour-assigned", "iteration-end"] {
        assert!(kinds.contains(&k), "{k} not exported: {kinds:?}");
    }
    let colour = exported.as_array().unwrap().iter().find(|e| e["kind"] == "colour-assigned").unwrap();
    assert!(colour["briggs"]["vreg"].is_string() && colour["briggs"]["forbidden"].is_array(), "{colour}");
    assert!(outs[13].json["iterations"].as_array().is_some_and(|i| i.len() == 1));
    // Without Briggs the graph command says what it needs.
    let mut f = Session::new();
    f.base = Path::new("sessions").to_path_buf();
    f.exec(&parse_line("load briggs_moves.ori").unwrap()[0]).unwrap();
    let e = f.exec(&parse_line("graph").unwrap()[0]).unwrap_err();
    assert!(e.contains("set allocator briggs"), "{e}");
    std::fs::remove_dir_all(&dir).ok();
}

fn radbg(args: &[&str], stdin: &str) -> (bool, String, String) {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_radbg"))
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    (out.status.success(), String::from_utf8_lossy(&out.stdout).into(), String::from_utf8_lossy(&out.stderr).into())
}

#[test]
fn the_cli_takes_allocator() {
    let (ok, out, err) = radbg(&["run", "--allocator", "briggs", "sessions/briggs_k15.ori"], "");
    assert!(ok, "{err}");
    assert!(out.contains("56 bytes stack frame, 92 bytes spill stores"), "{out}");
    let (ok, out, _) = radbg(&["run", "sessions/briggs_k15.ori"], "");
    assert!(ok && out.contains("Used 26 registers"), "{out}");
    let (ok, _, err) = radbg(&["run", "--allocator", "linear", "sessions/briggs_k15.ori"], "");
    assert!(!ok && err.contains("linear"), "{err}");
    // The debugger (REPL without a terminal) and -x.
    let (ok, out, err) = radbg(&["sessions/briggs_moves.ori", "--allocator", "briggs"], "continue\nstats\n");
    assert!(ok, "{err}");
    assert!(out.contains("Used 8 registers"), "{out}");
    let dir = std::env::temp_dir().join(format!("radbg-briggs-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join("s.radbg");
    std::fs::write(&script, "break iteration\ncontinue\nwhere\n").unwrap();
    let s = script.display().to_string();
    let (ok, out, err) = radbg(&["sessions/briggs_k15.ori", "--allocator", "briggs", "-x", &s, "--json"], "");
    assert!(ok, "{err}");
    assert!(out.contains("\"kind\": \"iteration-start\"") || out.contains("\"kind\":\"iteration-start\""), "{out}");
    // --record starts the recording with the allocator.
    let rec = dir.join("rec.radbg");
    let r = rec.display().to_string();
    let (ok, _, err) =
        radbg(&["sessions/briggs_moves.ori", "--allocator", "briggs", "--repl", "--record", &r], "step\nquit\n");
    assert!(ok, "{err}");
    let text = std::fs::read_to_string(&rec).unwrap();
    assert!(text.contains("set allocator briggs"), "{text}");
    std::fs::remove_dir_all(&dir).ok();
}

/// Every query at every event of a few kernels (one that spills over several
/// iterations, one with ABI calls that fails under Briggs, the demo) answers or says
/// why; none panics.
#[test]
fn queries_answer_at_every_event() {
    for file in ["briggs_k15.ori", "abi_lower.ori", "demo.ori", "briggs_remat.ori"] {
        let mut s = Session::new();
        s.base = Path::new("sessions").to_path_buf();
        for line in [format!("load {file}"), "set allocator briggs".into()] {
            s.exec(&parse_line(&line).unwrap()[0]).unwrap();
        }
        let mut n = 0;
        loop {
            for q in ["graph", "hist", "constraints", "attempts", "live", "ir", "stats", "where", "events 2"] {
                let _ = s.exec(&parse_line(q).unwrap()[0]);
            }
            let d = s.dbg.as_ref().unwrap();
            if let Some((fi, v)) = qb::event_node(d) {
                let name = radbg::engine::query::func_ir(d.machine(), fi).vregs[v.index()].name.to_string();
                for q in [format!("print {name}"), format!("constraints {name}"), format!("expect {name} == spilled")] {
                    let _ = s.exec(&parse_line(&q).unwrap()[0]);
                }
            }
            if s.dbg.as_ref().unwrap().at_end() {
                break;
            }
            s.exec(&parse_line("step 3").unwrap()[0]).unwrap();
            n += 1;
        }
        assert!(n > 5, "{file}");
        let _ = s.exec(&parse_line("diff allocators").unwrap()[0]);
    }
}

/// After a Chaitin-Briggs run that inserted spill code, `live` and the Live pane answer
/// for the IR it ended with (the machine keeps no liveness of its own; the engine solves
/// it once at the end), not "no liveness at this point".
#[test]
fn liveness_after_a_briggs_run_with_spill_code() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("sessions/briggs_k15.ori");
    let loaded = radbg::load::load_path(&path).unwrap();
    let mut d = Debugger::new(loaded.module, briggs());
    d.run_to_end();
    let m = d.machine();
    let f = radbg::engine::query::func_ir(m, 0);
    assert!(f.inst_count() > m.module.functions[0].inst_count(), "briggs_k15 spills under Briggs");
    let live = radbg::engine::query::liveness_of(m, 0).expect("liveness of the final IR");
    let curve = live.pressure_curve(f, radbg::ir::RegFile::R);
    assert_eq!(curve.len(), f.layout().len() as usize, "one pressure per point of the final IR");
    assert!(curve.iter().any(|&p| p > 0));
}
