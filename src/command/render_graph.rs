//! Rendering the Graph family of views (`alloc::briggs::view`, fed by `engine::query`) as
//! text and JSON:
//! neighbours (`constraints`), colour availability (`hist`), the graph view (`graph`),
//! a vreg (`print`), the iterations (`attempts`) and the allocator diff (`diff
//! allocators`).

use std::fmt::Write;

use serde_json::{Value, json};

use crate::alloc::briggs::BriggsEvent;
use crate::alloc::briggs::view::{BriggsVregView, ColourState, ColourView, GraphView, IterationView, NeighboursView};
use crate::command::exec::Output;

fn out(text: String, json: Value) -> Output {
    Output { text, json, failed: false }
}

fn num(x: f64) -> String {
    if x.is_infinite() { "inf".into() } else { format!("{x:.3}") }
}

fn jnum(x: f64) -> Value {
    if x.is_finite() { json!(x) } else { json!("inf") }
}

fn list(v: &[String]) -> String {
    if v.is_empty() { "-".into() } else { v.join(" ") }
}

pub fn neighbours(n: &NeighboursView) -> Output {
    let mut s = format!(
        "neighbours of {}{}: {} (degree {} / K {}), colour {}",
        n.vreg,
        n.node.as_ref().map(|x| format!(" (node {x})")).unwrap_or_default(),
        n.neighbours.len(),
        n.degree,
        n.k,
        n.colour.as_deref().unwrap_or("none yet")
    );
    for x in &n.neighbours {
        let _ = write!(
            s,
            "\n  {:<14} {:<10} {:<12} degree {}",
            x.name,
            x.colour.as_deref().unwrap_or("-"),
            x.status,
            x.degree
        );
    }
    if !n.physical.is_empty() {
        let _ = write!(s, "\n  physical: {}", n.physical.join(" "));
    }
    out(
        s,
        json!({"vreg": n.vreg, "node": n.node, "colour": n.colour, "degree": n.degree, "k": n.k,
        "neighbours": n.neighbours.iter().map(|x| json!({"vreg": x.name, "colour": x.colour, "status": x.status,
        "degree": x.degree})).collect::<Vec<_>>(), "physical": n.physical}),
    )
}

pub fn colours(c: &ColourView) -> Output {
    let p = c.file.prefix();
    let decided = match (c.chosen, c.spilled) {
        (_, true) => "no colour: actual spill".to_string(),
        (Some(x), _) => format!("chosen {p}{x}"),
        (None, _) => "not coloured yet".to_string(),
    };
    let regs = |v: &[u16]| {
        if v.is_empty() { "-".into() } else { v.iter().map(|r| format!("{p}{r}")).collect::<Vec<_>>().join(" ") }
    };
    let mut s = format!(
        "colours of {} (width {}): K {}, class mask {}, window {}; {decided}",
        c.vreg, c.width, c.k, c.class_mask, c.window_mask
    );
    let _ = write!(s, "\n  forbidden: {}", regs(&c.forbidden));
    let _ = write!(s, "\n  available: {}", regs(&c.available));
    for cell in &c.cells {
        let mut tag = match cell.state {
            ColourState::Chosen => "<- chosen".to_string(),
            ColourState::Neighbour => format!("taken by {}", cell.by.join(" ")),
            ColourState::Physical => "physical".to_string(),
            ColourState::Free => "free".to_string(),
        };
        if cell.state == ColourState::Chosen && !cell.by.is_empty() {
            let _ = write!(tag, " (also {})", cell.by.join(" "));
        }
        let bar = match cell.state {
            ColourState::Chosen => "##",
            ColourState::Neighbour | ColourState::Physical => "xx",
            ColourState::Free => "..",
        };
        let _ = write!(
            s,
            "\n  {:<5} {bar} {}{tag}",
            format!("{p}{}", cell.reg),
            if cell.start { "" } else { "(no start) " }
        );
    }
    out(
        s,
        json!({"vreg": c.vreg, "file": p, "width": c.width, "k": c.k, "class_mask": c.class_mask,
        "window": c.window_mask, "forbidden": c.forbidden, "available": c.available, "chosen": c.chosen,
        "spilled": c.spilled, "colours": c.cells.iter().map(|x| json!({"reg": x.reg, "state": x.state.name(),
        "by": x.by, "start": x.start})).collect::<Vec<_>>()}),
    )
}

fn build_json(b: &Option<BriggsEvent>) -> Value {
    match b {
        Some(BriggsEvent::Build(b)) => json!({"iteration": b.iteration, "nodes": b.nodes, "edges": b.edges,
            "precoloured": b.precoloured, "class_edges": b.class_edges, "bank_edges": b.bank_edges,
            "moves": b.moves, "max_degree": b.max_degree, "avg_degree": b.avg_degree, "density": b.density,
            "k": b.k.iter().map(|(f, k)| json!({"file": f.prefix(), "k": k})).collect::<Vec<_>>()}),
        _ => Value::Null,
    }
}

pub fn graph(g: &GraphView) -> Output {
    let mut s = format!(
        "graph of {}: iteration {}, current node {}",
        g.function,
        g.iteration,
        g.current.as_deref().unwrap_or("-")
    );
    if let Some(BriggsEvent::Build(b)) = &g.built {
        let crate::alloc::briggs::event::Build {
            nodes,
            edges,
            precoloured,
            moves,
            max_degree,
            avg_degree,
            density,
            ..
        } = &**b;
        let ks: Vec<String> = g.k.iter().map(|(f, k)| format!("{}={k}", f.prefix())).collect();
        let _ = write!(
            s,
            "\n  built: {nodes} nodes, {edges} edges, {precoloured} pre-coloured, {moves} moves, degree max {max_degree} avg {avg_degree:.2}, density {:.2}%, K {}",
            density * 100.0,
            ks.join(" ")
        );
    }
    let _ = write!(
        s,
        "\n  now:   {} nodes, {} edges, {} merged by coalescing, {} coloured",
        g.nodes_now, g.edges_now, g.merged, g.coloured
    );
    let _ = write!(s, "\n  stack ({}, top last): {}", g.stack.len(), list(&g.stack));
    let _ = write!(s, "\n  simplify ({}): {}", g.simplify.len(), list(&g.simplify));
    let _ = write!(s, "\n  freeze ({}): {}", g.freeze.len(), list(&g.freeze));
    let _ = write!(s, "\n  spill ({}): {}", g.spill.len(), list(&g.spill));
    let _ = write!(s, "\n  moves ({}):", g.moves.len());
    if g.moves.is_empty() {
        s.push_str(" -");
    }
    for m in &g.moves {
        let _ = write!(s, "\n    [{}] {} = MOV {}  {}", m.point, m.dst, m.src, m.state.name());
    }
    if !g.spilled.is_empty() {
        let _ = write!(s, "\n  spilled so far: {}", g.spilled.join(" "));
    }
    out(
        s,
        json!({"function": g.function, "iteration": g.iteration, "current": g.current, "built": build_json(&g.built),
        "now": {"nodes": g.nodes_now, "edges": g.edges_now, "merged": g.merged, "coloured": g.coloured},
        "stack": g.stack, "simplify": g.simplify, "freeze": g.freeze, "spill": g.spill,
        "moves": g.moves.iter().map(|m| json!({"point": m.point, "dst": m.dst, "src": m.src, "state": m.state.name()})).collect::<Vec<_>>(),
        "spilled": g.spilled}),
    )
}

pub fn vreg(v: &BriggsVregView) -> Output {
    let mut s = format!("{} class {} width {}", v.name, v.class, v.width);
    if let Some(n) = &v.node_name {
        let _ = write!(s, "\n  node {n}");
    }
    match &v.node {
        Some(n) => {
            let _ = write!(
                s,
                "\n  degree {} / K {} ({} high-degree neighbours, {}), {} neighbours\n  spill cost {}, priority {}\n  status {}{}",
                n.degree,
                n.k,
                n.high_neighbours,
                if n.briggs_safe { "Briggs-safe" } else { "not Briggs-safe" },
                n.neighbours,
                num(n.cost),
                num(n.priority),
                n.status,
                if n.candidate { " (optimistic spill candidate)" } else { "" }
            );
        }
        None => s.push_str("\n  not in the current graph"),
    }
    let _ = write!(s, "\n  colour {}", v.colour.as_deref().unwrap_or("none"));
    if v.spilled {
        s.push_str("\n  spilled");
    }
    let _ = write!(s, "\n  history:");
    if v.history.is_empty() {
        s.push_str(" none yet");
    }
    for h in &v.history {
        let _ = write!(s, "\n    {h}");
    }
    let node = v.node.as_ref().map(|n| {
        json!({"degree": n.degree, "k": n.k, "high_neighbours": n.high_neighbours, "briggs_safe": n.briggs_safe,
        "cost": jnum(n.cost), "priority": jnum(n.priority), "status": n.status, "candidate": n.candidate,
        "neighbours": n.neighbours})
    });
    out(
        s,
        json!({"name": v.name, "class": v.class, "width": v.width, "node": v.node_name, "graph": node,
        "register": v.colour, "spilled": v.spilled, "history": v.history}),
    )
}

pub fn iterations(its: &[IterationView]) -> Output {
    if its.is_empty() {
        return out("no Briggs iterations yet".into(), json!({"iterations": []}));
    }
    let mut s = String::from("iter  insts  nodes  edges  coalesced  simplified  frozen  candidates  coloured  spilled");
    let mut j = Vec::new();
    for it in its {
        let _ = write!(
            s,
            "\n{:<5} {:<6} {:<6} {:<6} {:<10} {:<11} {:<7} {:<11} {:<9} {}",
            it.n,
            it.insts,
            it.nodes,
            it.edges,
            it.coalesced,
            it.removed,
            it.frozen,
            it.candidates,
            it.coloured,
            if it.finished { list(&it.spilled) } else { "(in progress)".into() }
        );
        if let Some(sc) = &it.spill_code {
            let _ = write!(s, "\n      {sc}");
        }
        j.push(json!({"iteration": it.n, "insts": it.insts, "vregs": it.vregs, "nodes": it.nodes, "edges": it.edges,
            "coalesced": it.coalesced, "simplified": it.removed, "frozen": it.frozen, "candidates": it.candidates,
            "coloured": it.coloured, "actual_spills": it.actual_spills, "spilled": it.spilled,
            "spill_code": it.spill_code, "finished": it.finished}));
    }
    out(s, json!({"iterations": j}))
}

pub fn allocator_diffs(diffs: &[crate::alloc::compare::AllocDiff]) -> Output {
    let text: String = diffs.iter().map(|d| d.text()).collect();
    out(
        text.trim_end().to_string(),
        json!({"diffs": diffs.iter().map(super::alloc_diff::diff_json).collect::<Vec<_>>()}),
    )
}

/// The fields of a Chaitin-Briggs event for `--json` and `export` (vregs by name).
pub fn event_detail(ev: &BriggsEvent, func: Option<usize>, m: &crate::engine::Machine) -> Value {
    let f = func.filter(|&i| i < m.module.functions.len()).map(|i| crate::engine::query::func_ir(m, i));
    let name = |v: &crate::ir::VRegId| {
        f.and_then(|f| f.vregs.get(v.index())).map_or_else(|| format!("vreg#{}", v.0), |r| r.name.to_string())
    };
    let names = |vs: &[crate::ir::VRegId]| vs.iter().map(name).collect::<Vec<_>>();
    match ev {
        BriggsEvent::IterationStart { n, insts, vregs } => json!({"iteration": n, "insts": insts, "vregs": vregs}),
        BriggsEvent::Build(_) => build_json(&Some(ev.clone())),
        BriggsEvent::Coalesced { keep, removed, criterion, round, point, degree } => {
            json!({"keep": name(keep), "removed": name(removed), "criterion": criterion.name(), "round": round,
            "point": point, "degree": degree})
        }
        BriggsEvent::Worklists { simplify, freeze, spill, coalesced } => {
            json!({"simplify": simplify, "freeze": freeze, "spill": spill, "coalesced": coalesced})
        }
        BriggsEvent::NodeRemoved { vreg, degree, k, high_neighbours, briggs_safe } => {
            json!({"vreg": name(vreg), "degree": degree, "k": k, "high_neighbours": high_neighbours,
            "briggs_safe": briggs_safe})
        }
        BriggsEvent::Frozen { vreg, moves, degree, to_simplify } => {
            json!({"vreg": name(vreg), "moves": moves, "degree": degree, "to_simplify": to_simplify})
        }
        BriggsEvent::SpillCandidate { vreg, cost, degree, priority } => {
            json!({"vreg": name(vreg), "cost": jnum(*cost), "degree": degree, "priority": jnum(*priority)})
        }
        BriggsEvent::ColourAssigned { vreg, colour, forbidden, members } => {
            json!({"vreg": name(vreg), "colour": colour, "forbidden": forbidden, "members": names(members)})
        }
        BriggsEvent::ActualSpill { vreg, forbidden, candidate, members } => {
            json!({"vreg": name(vreg), "forbidden": forbidden, "candidate": candidate, "members": names(members)})
        }
        BriggsEvent::IterationEnd { n, spilled, coloured } => {
            json!({"iteration": n, "spilled": names(spilled), "coloured": coloured})
        }
        BriggsEvent::SpillCode(c) => {
            let crate::alloc::briggs::event::SpillCode {
                iteration,
                vregs,
                eager,
                evicted,
                stores,
                reloads,
                eliminated,
                remats,
                frame,
            } = &**c;
            json!({"iteration": iteration,
            "vregs": vregs.iter().map(|(v, o)| json!({"vreg": name(v), "offset": o})).collect::<Vec<_>>(),
            "eager": names(eager),
            "evicted": evicted.iter().map(|(v, t)| json!({"for": name(v), "spilled": name(t)})).collect::<Vec<_>>(),
            "stores": stores, "reloads": reloads, "eliminated": eliminated, "remats": remats, "frame": frame})
        }
        BriggsEvent::Finalize { ok, iterations, spilled, registers, message } => {
            json!({"ok": ok, "iterations": iterations, "spilled": spilled, "registers": registers, "message": message})
        }
    }
}
