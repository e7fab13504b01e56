//! Rendering query results as text and JSON. Only this layer knows the wire format
//! of `--json`; the engine returns plain data.

use std::fmt::Write;

use serde_json::{Value, json};

use crate::command::exec::Output;
use crate::command::parse::Expectation;
use crate::command::table::{self, COMMANDS};
use crate::engine::Machine;
use crate::engine::breakpoint::Breakpoint;
use crate::engine::debugger::RunSummary;
use crate::engine::frames::{Frame, FrameKind};
use crate::engine::query::{self, HistView, LiveView, NodeView, VregInfo};
use crate::engine::{Debugger, Event};
use crate::ir::RegClass;
use crate::knobs::Knobs;

fn out(text: String, json: Value) -> Output {
    Output { text, json, failed: false }
}

/// The JSON of a typed explanation (`why`, `whatif`, `sweep`, `compare`; issue 26: the
/// explanations return data, this layer writes the wire format). Always through a
/// `Value`, whose objects are sorted maps: the keys come out in one order whatever the
/// field order of the answer's struct, and the facts object keeps one value per name.
pub fn answer_json(a: &crate::why::Answer) -> Value {
    serde_json::to_value(a).unwrap_or_else(|e| json!({"error": format!("cannot write the answer as JSON: {e}")}))
}

/// An explanation as a command's output: its text and its answer's JSON.
pub fn explanation(x: &crate::why::Explanation) -> Output {
    out(x.text.trim_end().to_string(), answer_json(&x.answer))
}

pub fn help(topic: Option<&str>) -> Output {
    match topic.and_then(table::find) {
        Some(c) => {
            let mut s = format!("{}\n  {}\n\n{}\n", c.synopsis, c.summary, c.help);
            if !c.aliases.is_empty() {
                let _ = writeln!(s, "aliases: {}", c.aliases.join(", "));
            }
            let _ = write!(s, "examples:\n  {}", c.examples.join("\n  "));
            if c.name == "set" {
                let _ = write!(s, "\n\n{}", knob_catalogue());
            }
            out(s, json!({"command": c.name, "synopsis": c.synopsis, "help": c.help, "examples": c.examples}))
        }
        None => {
            let mut s = String::new();
            if let Some(t) = topic {
                let _ = writeln!(s, "no command '{t}'; the commands are:");
            }
            let mut cats: Vec<_> = COMMANDS.iter().map(|c| c.category).collect();
            cats.sort();
            cats.dedup();
            for cat in cats {
                let _ = writeln!(s, "{}:", cat.name());
                for c in COMMANDS.iter().filter(|c| c.category == cat) {
                    let name = if c.aliases.is_empty() {
                        c.name.to_string()
                    } else {
                        format!("{} ({})", c.name, c.aliases.join(", "))
                    };
                    let _ = writeln!(s, "  {name:<28} {}", c.summary);
                }
            }
            s.push_str("'help COMMAND' explains one");
            let names: Vec<&str> = COMMANDS.iter().map(|c| c.name).collect();
            out(s, json!({"commands": names}))
        }
    }
}

pub fn event_json(n: usize, e: &Event, m: &Machine) -> Value {
    let mut v = json!({
        "event": n,
        "stage": e.stage().name(),
        "kind": e.kind_name(),
        "function": e.func.and_then(|i| m.module.functions.get(i)).map(|f| f.name.to_string()),
        "text": m.describe(e),
    });
    if let crate::engine::EventKind::Briggs(b) = &e.kind {
        v["briggs"] = crate::command::render_graph::event_detail(b, e.func, m);
    }
    v
}

pub fn breakpoints(bps: &[Breakpoint]) -> Output {
    if bps.is_empty() {
        return out("no breakpoints".into(), json!({"breakpoints": []}));
    }
    let mut s = String::from("Num  Enb  Hits  What");
    let mut j = Vec::new();
    for b in bps {
        let mut what = b.describe();
        if b.temporary {
            what.push_str(" (temporary)");
        }
        if b.ignore > 0 {
            let _ = write!(what, " (ignore next {} hit{})", b.ignore, if b.ignore == 1 { "" } else { "s" });
        }
        let _ = write!(s, "\n{:<4} {:<4} {:<5} {what}", b.id, if b.enabled { "y" } else { "n" }, b.hits);
        j.push(json!({"id": b.id, "enabled": b.enabled, "hits": b.hits, "what": b.describe(),
            "temporary": b.temporary, "ignore": b.ignore}));
    }
    out(s, json!({"breakpoints": j}))
}

/// One frame line: number, kind, the event that opened it, what it is.
fn frame_line(d: &Debugger, f: &Frame, i: usize) -> String {
    let what = match f.kind {
        FrameKind::Event => d.current().map(|e| format!("[{}] {}", e.stage().name(), d.machine().describe(e))),
        _ => None,
    };
    format!("#{i:<2} {:<9} #{:<6} {}", f.kind.name(), f.opened, what.unwrap_or_else(|| f.what.clone()))
}

fn frame_json(f: &Frame, i: usize) -> Value {
    json!({"frame": i, "kind": f.kind.name(), "what": f.what, "opened": f.opened})
}

/// `backtrace`: the pipeline stack, innermost first; `>` marks the selected frame.
pub fn backtrace(d: &Debugger, frames: &[Frame], selected: usize) -> Output {
    if frames.is_empty() {
        return out("no stack before the first event (step first)".into(), json!({"frames": []}));
    }
    let lines: Vec<String> = frames
        .iter()
        .enumerate()
        .map(|(i, f)| format!("{}{}", if i == selected { ">" } else { " " }, frame_line(d, f, i)))
        .collect();
    let j: Vec<Value> = frames.iter().enumerate().map(|(i, f)| frame_json(f, i)).collect();
    out(lines.join("\n"), json!({"frames": j, "selected": selected}))
}

/// `frame N`, `up`, `down`: the selected frame and the event that opened it.
pub fn frame(d: &Debugger, frames: &[Frame], i: usize) -> Output {
    let f = &frames[i];
    let mut s = frame_line(d, f, i);
    if f.kind != FrameKind::Event
        && let Some(e) = f.opened.checked_sub(1).and_then(|k| d.trace().get(k))
    {
        let _ = write!(s, "\n    opened by #{} [{}] {}", f.opened, e.stage().name(), d.machine().describe(&e));
    }
    out(s, frame_json(f, i))
}

/// `info registers [CLASS]`: the assignments so far, by class.
pub fn registers(d: &Debugger, fi: usize, class: Option<RegClass>) -> Output {
    let m = d.machine();
    let f = query::func_ir(m, fi);
    let all = query::assignments(m, fi);
    let rows: Vec<&(String, RegClass, String)> = all.iter().filter(|(_, c, _)| class.is_none_or(|k| k == *c)).collect();
    if rows.is_empty() {
        let which = class.map(|c| format!("{} ", c.name())).unwrap_or_default();
        return out(
            format!("{}: no {which}vreg has a register yet (step into the alloc stage)", f.name),
            json!({"function": f.name, "registers": []}),
        );
    }
    let mut s = format!("{}: {} vreg(s) with a register", f.name, rows.len());
    let mut classes: Vec<RegClass> = rows.iter().map(|r| r.1).collect();
    classes.dedup();
    classes.sort_by_key(|c| c.name());
    classes.dedup();
    for c in classes {
        let _ = write!(s, "\n{}:", c.name());
        for (v, _, r) in rows.iter().filter(|r| r.1 == c) {
            let _ = write!(s, "\n  {v:<16} {r}");
        }
    }
    let j: Vec<Value> = rows.iter().map(|(v, c, r)| json!({"vreg": v, "class": c.name(), "register": r})).collect();
    out(s, json!({"function": f.name, "registers": j}))
}

pub fn events(d: &Debugger, n: usize) -> Output {
    let end = d.cursor();
    let start = end.saturating_sub(n);
    let m = d.machine();
    let mut lines = Vec::new();
    let mut j = Vec::new();
    for i in start..end {
        let Some(e) = d.event(i) else { break };
        let e = &*e;
        lines.push(format!("#{} [{}] {}", i + 1, e.stage().name(), m.describe(e)));
        j.push(event_json(i + 1, e, m));
    }
    if lines.is_empty() {
        lines.push("no events yet".into());
    }
    out(lines.join("\n"), json!({"events": j}))
}

pub fn ir(d: &Debugger, fi: usize, point: Option<u32>, count: u32) -> Output {
    let m = d.machine();
    let f = query::func_ir(m, fi);
    let total = f.layout().len();
    let center = point.or_else(|| crate::command::exec::current_point(d, fi)).unwrap_or(0);
    let start = if point.is_some() { center } else { center.saturating_sub(count / 2) };
    let lines = query::ir_lines(m, fi, start..start.saturating_add(count).min(total));
    let mut s = format!("function {} ({} instructions)", f.name, total);
    let mut j = Vec::new();
    for l in &lines {
        if let Some(label) = &l.label {
            let _ = write!(s, "\n{label}:");
        }
        let mark = if l.spill { "*" } else { " " };
        let cur = if Some(l.point) == crate::command::exec::current_point(d, fi) { ">" } else { " " };
        let regs: Vec<String> = l.assigned.iter().map(|(v, r)| format!("{v}→{r}")).collect();
        let _ = write!(s, "\n{cur}{mark}[{:>4}] {:<48}", l.point, l.text);
        if !regs.is_empty() {
            let _ = write!(s, " ; {}", regs.join(" "));
        }
        // Imported PTX: the PTX line beside each instruction (as the TUI's IR pane shows).
        if let Some(o) = l.origin.filter(|_| d.opts.imported) {
            let _ = write!(s, "  // PTX line {o}");
            if let Some(src) = &l.source {
                let _ = write!(s, " {src}");
            }
        }
        let s2 = s.trim_end().to_string();
        s = s2;
        j.push(json!({"point": l.point, "label": l.label, "text": l.text, "spill": l.spill,
            "assigned": l.assigned.iter().map(|(v, r)| json!([v, r])).collect::<Vec<_>>(), "origin": l.origin,
            "source": l.source}));
    }
    out(s, json!({"function": f.name, "lines": j}))
}

pub fn vreg(i: &VregInfo) -> Output {
    let mut s = format!("{} class {} width {}", i.name, i.class, i.width);
    let _ = write!(
        s,
        "\n  flags 0x{:x}{}",
        i.flags,
        if i.flag_names.is_empty() { String::new() } else { format!(" ({})", i.flag_names.join(", ")) }
    );
    let _ = write!(s, "\n  spill cost {:.1}", i.cost);
    let _ = write!(s, "\n  register {}", i.slot.as_deref().unwrap_or("unassigned"));
    if let Some(o) = i.origin {
        let _ = write!(s, "\n  source line {o}");
    }
    if let Some(src) = &i.source {
        let _ = write!(s, "\n  defined at {src}");
    }
    if let Some(x) = &i.stands_for {
        let _ = write!(s, "\n  stands for {x}");
    }
    let _ = write!(s, "\n  constraints: {}", i.constraints.len());
    for n in &i.constraints {
        let _ = write!(s, "\n    {}", node_line(n));
    }
    let _ = write!(s, "\n  history:");
    if i.history.is_empty() {
        s.push_str(" none yet");
    }
    for h in &i.history {
        let _ = write!(s, "\n    {h}");
    }
    out(
        s,
        json!({"name": i.name, "class": i.class, "width": i.width, "flags": i.flags, "flag_names": i.flag_names,
        "cost": i.cost, "register": i.slot, "constraints": i.constraints.iter().map(node_json).collect::<Vec<_>>(),
        "history": i.history, "origin": i.origin, "source": i.source, "stands_for": i.stands_for}),
    )
}

fn node_line(n: &NodeView) -> String {
    format!(
        "type {:>2} {:<22} {:<28} target {:<10} weight {:<6} {}",
        n.ty,
        n.name,
        seed000_label(n.ty),
        n.target,
        n.weight,
        if n.secondary {
            "secondary"
        } else if n.hard {
            "hard"
        } else {
            "soft"
        }
    )
}

/// The node's number and name in seed 000's table (the `type` column is seed 004's).
fn seed000_label(ty: u8) -> String {
    match crate::alloc::constraints::CType::from_number(ty).and_then(|t| t.seed000()) {
        Some((num, name)) => format!("(seed 000: {num} {name})"),
        None => "(seed 000: none)".into(),
    }
}

fn node_json(n: &NodeView) -> Value {
    let s000 = crate::alloc::constraints::CType::from_number(n.ty).and_then(|t| t.seed000());
    json!({"type": n.ty, "name": n.name, "target": n.target, "weight": n.weight, "hard": n.hard, "secondary": n.secondary,
        "seed000": s000.map(|(num, name)| json!({"type": num, "name": name}))})
}

pub fn constraints(name: &str, nodes: &[NodeView]) -> Output {
    let mut s =
        format!("constraints of {name}: {} (types numbered as seed 004; seed 000's number beside)", nodes.len());
    for n in nodes {
        let _ = write!(s, "\n  {}", node_line(n));
    }
    out(s, json!({"vreg": name, "nodes": nodes.iter().map(node_json).collect::<Vec<_>>()}))
}

pub fn live(l: &LiveView) -> Output {
    let mut s = format!("point {}", l.point);
    if let (Some(o), Some(src)) = (l.origin, &l.source) {
        let _ = write!(s, " (PTX line {o}, {src})");
    }
    let _ = write!(s, "\n  live before: {}", if l.before.is_empty() { "-".into() } else { l.before.join(" ") });
    let _ = write!(s, "\n  live after:  {}", if l.after.is_empty() { "-".into() } else { l.after.join(" ") });
    let p: Vec<String> = l.pressure.iter().map(|(f, n)| format!("{} {n}", f.prefix())).collect();
    let _ = write!(s, "\n  pressure:    {}", p.join(", "));
    if !l.defined.is_empty() {
        let d: Vec<String> = l.defined.iter().map(|(v, src)| format!("{v} {src}")).collect();
        let _ = write!(s, "\n  defined at:  {}", d.join(", "));
    }
    out(
        s,
        json!({"point": l.point, "origin": l.origin, "source": l.source, "before": l.before, "after": l.after,
        "defined": l.defined.iter().map(|(v, src)| json!([v, src])).collect::<Vec<_>>(),
        "pressure": l.pressure.iter().map(|(f, n)| json!({"file": f.prefix(), "pressure": n})).collect::<Vec<_>>()}),
    )
}

pub fn histogram(h: &HistView) -> Output {
    let mut s = format!(
        "histograms of {} (width {}): threshold {}, budget {}, chosen {}",
        h.vreg,
        h.width,
        h.threshold,
        h.budget,
        h.chosen.map(|c| format!("{}{c}", h.file.prefix())).unwrap_or_else(|| "none".into())
    );
    let rotated = h.rotate.iter().any(|&r| r > 0);
    if let (Some(c), Some((lower, tie))) = (h.chosen, h.passed) {
        let p = h.file.prefix();
        let _ = write!(s, "\n  {p}{c} rather than {p}{lower}: {}", tie.text(&format!("{p}{lower}")));
    }
    if let Some(l) = h.bank_limit {
        let _ = write!(
            s,
            "\n  {}bank weights (co-sources in one bank) break ties between equal costs below {}{l}",
            if rotated { "rotation (registers of nearby stores' data), then " } else { "" },
            h.file.prefix()
        );
    }
    // Show the slots up to the scan bound, compactly: only non-trivial ones and the chosen.
    s.push_str(if rotated {
        "\n  slot  primary secondary  bank rotate"
    } else if h.bank_limit.is_some() {
        "\n  slot  primary secondary  bank"
    } else {
        "\n  slot  primary secondary"
    });
    let mut rows = 0;
    for slot in 0..h.primary.len() {
        let interesting = h.primary[slot] > 0
            || h.secondary[slot] > 0
            || h.bank[slot] > 0
            || h.rotate.get(slot).is_some_and(|&r| r > 0)
            || h.blocked[slot]
            || Some(slot as u16) == h.chosen;
        if !interesting || rows > 64 {
            continue;
        }
        rows += 1;
        let mut tags = Vec::new();
        if h.blocked[slot] {
            tags.push("blocked");
        }
        if h.discarded.contains(&(slot as u16)) {
            tags.push("discarded");
        }
        if Some(slot as u16) == h.chosen {
            tags.push("<- chosen");
        }
        if slot as u32 >= h.budget {
            tags.push("over budget");
        }
        let slot_name = format!("{}{slot}", h.file.prefix());
        let _ = if rotated {
            write!(
                s,
                "\n  {slot_name:<5} {:>7} {:>9} {:>5} {:>6}  {}",
                h.primary[slot],
                h.secondary[slot],
                h.bank[slot],
                h.rotate[slot],
                tags.join(" ")
            )
        } else if h.bank_limit.is_some() {
            write!(
                s,
                "\n  {slot_name:<5} {:>7} {:>9} {:>5}  {}",
                h.primary[slot],
                h.secondary[slot],
                h.bank[slot],
                tags.join(" ")
            )
        } else {
            write!(s, "\n  {slot_name:<5} {:>7} {:>9}  {}", h.primary[slot], h.secondary[slot], tags.join(" "))
        };
    }
    let free = (0..h.primary.len()).filter(|&i| h.primary[i] == 0 && !h.blocked[i]).count();
    let _ = write!(s, "\n  ({free} of {} slots free of any cost)", h.primary.len());
    out(
        s,
        json!({"vreg": h.vreg, "width": h.width, "threshold": h.threshold, "budget": h.budget, "chosen": h.chosen,
        "primary": h.primary, "secondary": h.secondary, "blocked": h.blocked, "discarded": h.discarded,
        "bank": h.bank, "bank_limit": h.bank_limit, "rotate": h.rotate}),
    )
}

pub fn state(d: &Debugger, only: Option<u32>) -> Output {
    let now = query::state_table(d.machine());
    let before: Vec<(u32, String)> = if d.cursor() > 0 { d.state_at(d.cursor() - 1) } else { Vec::new() };
    let mut s = String::new();
    let mut j = Vec::new();
    for f in &now {
        if only.is_some_and(|o| o != f.offset) {
            continue;
        }
        let v = f.value.clone().unwrap_or_else(|| "(not modelled)".into());
        let changed = f.value.is_some()
            && d.cursor() > 0
            && before.iter().find(|b| b.0 == f.offset).map(|b| &b.1) != f.value.as_ref();
        // Issue 24: a value filled in from an unmodelled knob is marked, not shown as live.
        let unread = f.value.as_ref().and(crate::knobs::unread_state_field(f.offset));
        let v = match &unread {
            Some(n) => format!("{v}  ({n})"),
            None => v,
        };
        let _ =
            writeln!(s, "{}+{:<5} {:>2}B  {:<46} {}", if changed { "*" } else { " " }, f.offset, f.width, f.name, v);
        j.push(json!({"offset": f.offset, "width": f.width, "name": f.name, "value": f.value, "changed": changed,
            "modelled": f.value.is_some() && unread.is_none(), "unread": unread}));
    }
    if s.is_empty() {
        s = format!("no field at +{}", only.unwrap_or(0));
    }
    out(s.trim_end().to_string(), json!({"state": j}))
}

pub fn attempts(d: &Debugger, fi: usize, class: Option<RegClass>) -> Output {
    let recs = query::attempts(d.machine(), fi);
    let mut s = String::from("class  #  mode     target  used  over-budget  result");
    let mut j = Vec::new();
    for r in recs.iter().filter(|r| class.is_none_or(|c| c == r.class)) {
        let best = crate::alloc::attempt::best_of(&recs, r.class).is_some_and(|b| b.number == r.number);
        let _ = write!(
            s,
            "\n{:<6} {:<2} {:<8} {:<7} {:<5} {:<12} {}{}",
            r.class.name(),
            r.number,
            if r.spill { "SPILL" } else { "NOSPILL" },
            r.target,
            r.used,
            r.needs_spill.len(),
            if r.success { "fits" } else { "over" },
            if best { "  (best)" } else { "" }
        );
        j.push(
            json!({"class": r.class.name(), "attempt": r.number, "spill": r.spill, "target": r.target, "used": r.used,
            "over_budget": r.needs_spill.len(), "success": r.success, "best": best}),
        );
    }
    if j.is_empty() {
        s = "no attempts yet".into();
    }
    out(s, json!({"attempts": j}))
}

pub fn abi(d: &Debugger, fi: usize) -> Output {
    let m = d.machine();
    let f = &m.module.functions[fi];
    let Some(res) = m.funcs[fi].abi.as_ref() else {
        return out(format!("no ABI checks for {} yet (they run after liveness)", f.name), json!({"checks": []}));
    };
    if res.checks.is_empty() {
        return out(format!("{}: the ABI does not apply (no spec)", f.name), json!({"checks": []}));
    }
    let mut s = format!("ABI checks of {}:", f.name);
    let mut j = Vec::new();
    for c in &res.checks {
        s.push('\n');
        s.push_str(crate::abi::report::check_line(c).trim_end());
        j.push(json!({"code": c.code, "hex": format!("0x{:X}", c.hex), "step": c.step, "passed": c.passed,
            "message": c.message, "detail": c.detail, "field": c.field}));
    }
    if let Some(e) = &res.error {
        let _ = write!(s, "\n  error: {e}");
    }
    out(s, json!({"function": f.name, "checks": j, "error": res.error}))
}

pub fn stats(d: &Debugger) -> Output {
    let m = d.machine();
    let mut lines = Vec::new();
    for (fi, r) in m.funcs.iter().enumerate() {
        if let Some(st) = &r.stats {
            lines.extend(st.lines(&m.module.sm.to_string(), m.module.options.warn_on_spills));
            // Seed 003's statistics lines (sub_A3A7E0), after the function's `-v` lines.
            if let (Some(a), Some(f)) = (r.alloc.as_deref().and_then(|a| a.fatpoint()), m.module.functions.get(fi))
                && a.failure.is_none()
            {
                lines.extend(spill_stats(m, a, f).lines());
                let requested = a.config.smem_spill || a.config.knobs.bool(crate::knobs::SMEM_SPILL);
                if let Some(n) = crate::alloc::spill::smem_refusal(requested, a.config.uses_abi, &a.func) {
                    lines.push(format!("note: {n}"));
                }
            }
        }
    }
    if lines.is_empty() {
        return out("no statistics yet (they come after each function's allocation)".into(), json!({"lines": []}));
    }
    out(lines.join("\n"), json!({"lines": lines}))
}

/// Seed 003's spill counters of a finished allocation.
fn spill_stats(
    m: &crate::engine::Machine,
    a: &crate::alloc::FunctionAlloc,
    f: &crate::ir::Function,
) -> crate::alloc::stats::SpillStats {
    let slots: Vec<u32> =
        a.spills.iter().filter(|s| s.mem == crate::alloc::spill::SpillMem::Local).map(|s| s.bytes).collect();
    let (local, _) = crate::alloc::stats::local_vars(&m.module.globals, f);
    crate::alloc::stats::SpillStats::of(
        &a.func,
        &a.analysis.cfg.freq,
        &crate::prepass::list::latency,
        &slots,
        a.pool_local.frame(),
        u32::try_from(local).unwrap_or(u32::MAX),
    )
}

pub fn knobs(k: &Knobs, all: bool) -> Output {
    let mut s = String::new();
    let mut j = Vec::new();
    // A listed knob that acts only with another one the run leaves off says so under the
    // table (issue 24); an unmodelled one says so in its row.
    let mut notes = Vec::new();
    for (info, v, set) in k.all() {
        if !all && !set {
            continue;
        }
        let _ = writeln!(s, "{}{}", if set { "*" } else { " " }, knob_line(info, &crate::knobs::show(&v)));
        let needs = info.needs_note(|n| k.int(n));
        j.push(json!({"index": info.index, "name": info.name, "value": crate::knobs::show(&v), "set": set,
            "type": info.ty.name(), "range": info.range(), "modelled": info.modelled(), "acts": info.acts,
            "not_modelled": match info.model { crate::knobs::Model::NotModelled(why) => Some(why), _ => None },
            "needs": needs}));
        notes.extend(needs);
    }
    if s.is_empty() {
        s = "all knobs at their defaults ('knobs all' lists them)".into();
    } else {
        s = format!("{}\n{s}", knob_header());
    }
    for n in notes {
        let _ = write!(s, "\nnote: {n}");
    }
    out(s.trim_end().to_string(), json!({"knobs": j}))
}

/// The column heads of [`knob_line`] (behind the one-character `*` column).
fn knob_header() -> String {
    format!(" {:>4} {:<40} {:<8} {:<23} {:<5}  where it acts", "idx", "name", "value", "range", "model")
}

/// One catalogue row (issue 24): index, name, value, range, whether radbg models it,
/// and where it acts (stage and seed section) — for an unmodelled knob, why not.
fn knob_line(info: &crate::knobs::KnobInfo, value: &str) -> String {
    let idx = info.index.map(|i| i.to_string()).unwrap_or_else(|| "-".into());
    let (model, acts) = match info.model {
        crate::knobs::Model::Modelled => ("yes", info.acts.to_string()),
        crate::knobs::Model::NotModelled(why) => ("NO", format!("{} — not modelled: {why}", info.acts)),
    };
    format!("{idx:>4} {:<40} {value:<8} {:<23} {model:<5}  {acts}", info.name, info.range())
}

/// The catalogue for `help set`: every knob with its default.
fn knob_catalogue() -> String {
    let mut s = format!("knobs ('NO' = accepted, not modelled by radbg, changes nothing):\n{}", knob_header());
    for info in crate::knobs::CATALOGUE {
        let d = crate::knobs::Knobs::new().all().into_iter().find(|(i, _, _)| i.name == info.name).map(|x| x.1);
        let _ = write!(s, "\n {}", knob_line(info, &d.map(|v| crate::knobs::show(&v)).unwrap_or_default()));
    }
    s
}

fn unified(a: &str, b: &str, la: &str, lb: &str) -> String {
    let diff = similar::TextDiff::from_lines(a, b);
    let text = diff.unified_diff().context_radius(2).header(la, lb).to_string();
    if text.is_empty() { "(identical)".to_string() } else { text.trim_end().to_string() }
}

pub fn diff_attempts(d: &Debugger, fi: usize, class: RegClass, a: u32, b: u32) -> Result<Output, String> {
    let recs = query::attempts(d.machine(), fi);
    let find = |n: u32| {
        recs.iter().find(|r| r.class == class && r.number == n).ok_or(format!(
            "no attempt {n} of class {} so far ({} attempt(s))",
            class.name(),
            recs.iter().filter(|r| r.class == class).count()
        ))
    };
    let (ra, rb) = (find(a)?, find(b)?);
    let f = query::func_ir(d.machine(), fi);
    let lines = |r: &crate::alloc::attempt::AttemptRecord| {
        let mut s = format!("used {} target {} {}\n", r.used, r.target, if r.success { "fits" } else { "over budget" });
        for (v, slot) in &r.assignment {
            let vr = f.vreg(*v);
            let reg = slot
                .map(|x| query::reg_name(vr.file(), x, vr.width))
                .unwrap_or_else(|| if r.needs_spill.contains(v) { "needs-spill".into() } else { "-".into() });
            let _ = writeln!(s, "{} → {reg}", vr.name);
        }
        s
    };
    let (ta, tb) = (lines(ra), lines(rb));
    let text = unified(&ta, &tb, &format!("attempt {a}"), &format!("attempt {b}"));
    let changed: Vec<String> = ra
        .assignment
        .iter()
        .zip(&rb.assignment)
        .filter(|(x, y)| x.1 != y.1)
        .map(|(x, _)| f.vreg(x.0).name.to_string())
        .collect();
    Ok(out(
        text,
        json!({"class": class.name(), "a": a, "b": b, "used": [ra.used, rb.used], "target": [ra.target, rb.target],
        "changed": changed, "over_budget": [ra.needs_spill.len(), rb.needs_spill.len()]}),
    ))
}

pub fn diff_runs(before: &RunSummary, after: &RunSummary) -> Output {
    let text_of = |r: &RunSummary| {
        let mut s = String::new();
        for f in &r.functions {
            let _ = writeln!(s, "function {}", f.name);
            for l in &f.stats {
                let _ = writeln!(s, "  {}", l.trim());
            }
            let _ =
                writeln!(s, "  spilled: {}", if f.spilled.is_empty() { "-".to_string() } else { f.spilled.join(" ") });
            for a in &f.assignments {
                let _ = writeln!(s, "  {a}");
            }
        }
        s
    };
    let text = unified(&text_of(before), &text_of(after), "before", "after");
    out(
        text,
        json!({"before": before.functions.iter().map(|f| json!({"name": f.name, "stats": f.stats, "spilled": f.spilled})).collect::<Vec<_>>(),
        "after": after.functions.iter().map(|f| json!({"name": f.name, "stats": f.stats, "spilled": f.spilled})).collect::<Vec<_>>()}),
    )
}

pub fn diff_state(d: &Debugger, a: usize, b: usize) -> Output {
    let ta = d.state_at(a);
    let tb = d.state_at(b);
    let text_of = |t: &[(u32, String)]| t.iter().map(|(o, v)| format!("+{o} {v}\n")).collect::<String>();
    let text = unified(&text_of(&ta), &text_of(&tb), &format!("event {a}"), &format!("event {b}"));
    let changed: Vec<Value> = ta
        .iter()
        .zip(&tb)
        .filter(|(x, y)| x.1 != y.1)
        .map(|(x, y)| json!({"offset": x.0, "before": x.1, "after": y.1}))
        .collect();
    out(text, json!({"a": a, "b": b, "changed": changed}))
}

pub fn expectation_text(e: &Expectation) -> String {
    match e {
        Expectation::Assigned(v, r) => format!("{v} == {r}"),
        Expectation::Attempts(c, op, n) => format!("attempts class {} {} {n}", c.name(), op.text()),
        Expectation::Abi(code) => format!("abi {code}"),
        Expectation::Stats(f, op, n) => format!("stats {f} {} {n}", op.text()),
        Expectation::Fails => "allocation fails".into(),
        Expectation::Ok => "allocation succeeds".into(),
        Expectation::Event(k) => format!("event {k}"),
        Expectation::Cursor(op, n) => format!("cursor {} {n}", op.text()),
        Expectation::Why(q, f, op, n) => format!("why {} {f} {} {n}", q.text(), op.text()),
    }
}

#[cfg(test)]
mod tests {
    use crate::why::{Answer, Facts, fail, launch, spill};

    fn facts(v: &[(&str, i64)]) -> Facts {
        Facts(v.iter().map(|(k, v)| (k.to_string(), *v)).collect())
    }

    /// The wire format of a typed answer: keys sorted whatever the struct's field
    /// order, the question as `"why"`, an absent value as `null`, facts as one object.
    #[test]
    fn an_answer_is_written_with_sorted_keys_and_its_question() {
        let a = Answer::Launch(launch::LaunchAnswer {
            function: "k".into(),
            threads: 1024,
            blocks_per_sm: 1,
            fits: true,
            problem: None,
            registers: 32,
            block_registers: 32768,
            largest_block: 2048,
            fitting_maxrregcount: None,
            facts: facts(&[("fits", 1), ("registers", 32)]),
        });
        assert_eq!(
            super::answer_json(&a).to_string(),
            "{\"block_registers\":32768,\"blocks_per_sm\":1,\"facts\":{\"fits\":1,\"registers\":32},\
             \"fits\":true,\"fitting_maxrregcount\":null,\"function\":\"k\",\"largest_block\":2048,\
             \"problem\":null,\"registers\":32,\"threads\":1024,\"why\":\"launch\"}"
        );
    }

    /// Parts a `why spill` has nothing to say about are left out (not `null`); a fact
    /// named twice keeps its later value, as a map does; `why fail` on a function with
    /// no allocation is the short form.
    #[test]
    fn absent_parts_are_left_out_and_facts_are_a_map() {
        let a = Answer::Spill(spill::SpillAnswer {
            function: "k".into(),
            vreg: "%r1".into(),
            spilled: false,
            marked: None,
            histogram: None,
            alternative: None,
            guidance: None,
            code: None,
            facts: facts(&[("spilled", 0), ("b", 1), ("spilled", 2)]),
        });
        assert_eq!(
            super::answer_json(&a).to_string(),
            "{\"facts\":{\"b\":1,\"spilled\":2},\"function\":\"k\",\"spilled\":false,\"vreg\":\"%r1\",\"why\":\"spill\"}"
        );
        let f =
            Answer::Fail(fail::FailAnswer::NotAllocated(fail::NotAllocated { function: "k".into(), allocated: false }));
        assert_eq!(super::answer_json(&f).to_string(), "{\"allocated\":false,\"function\":\"k\",\"why\":\"fail\"}");
        assert!(f.facts().0.is_empty());
    }
}
