//! Sweep: the table people build by looping `ptxas -v` over `--maxrregcount` — for each
//! value of a budget or knob, registers, spill bytes, attempts and occupancy per
//! function, with the knees marked (fewest registers with no spill; best occupancy with
//! no spill). Runs are independent, so they are spread over the cores with
//! `std::thread::scope` (results re-ordered by value: output never depends on timing).
//!
//! Knows run options; must not know about the front ends (the SVG chart is plain text).

use serde::Serialize;

use crate::engine::RunOptions;
use crate::ir::Module;
use crate::why::whatif::{Figures, figures};
use crate::why::{Answer, Explanation, Facts, WhatIf, table};

/// What is swept.
#[derive(Clone, Debug, PartialEq)]
pub enum Axis {
    MaxRegCount,
    Knob(String),
}

/// The budgets swept when none are given.
pub const DEFAULT_BUDGETS: &[u32] = &[16, 24, 32, 40, 48, 56, 64, 72, 80, 96, 128, 168, 255];

/// One swept value and the figures of every function at it.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub value: i64,
    pub funcs: Vec<Figures>,
}

/// A sweep as tools read it (`--json`): every row of every function, and its knees.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SweepAnswer {
    /// What was swept: `maxrregcount` or the knob's name.
    pub sweep: String,
    pub functions: Vec<FunctionSweep>,
    /// The first function's knees (`expect why`); not part of the JSON.
    #[serde(skip)]
    pub facts: Facts,
}

/// One function's rows and knees (by swept value).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FunctionSweep {
    pub function: String,
    pub rows: Vec<RowAnswer>,
    pub knee_registers: Option<i64>,
    pub knee_occupancy: Option<i64>,
}

/// One function's figures at one swept value.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RowAnswer {
    pub value: i64,
    pub registers: u32,
    pub spill_stores: u32,
    pub spill_loads: u32,
    pub attempts: u32,
    pub warps: u32,
    pub failed: bool,
}

/// A note when a `maxrregcount` sweep of imported PTX goes below ptxas's floor: those
/// rows ran at the floor (`alloc::budget::MIN_BUDGET`, the rule `floor`), so they repeat
/// its figures.
pub fn floor_note(axis: &Axis, values: &[i64], opts: &RunOptions) -> Option<String> {
    let floor = i64::from(crate::alloc::budget::MIN_BUDGET);
    (matches!(axis, Axis::MaxRegCount) && opts.stage_on("floor") && values.iter().any(|&v| v < floor)).then(|| {
        format!(
            "budgets below {floor} ran at {floor}: ptxas raises a smaller one to its floor \
             (`set stage floor off` studies them as given)"
        )
    })
}

/// Parses `A..B` or `A..B:STEP` (inclusive).
pub fn parse_range(s: &str) -> Result<Vec<i64>, String> {
    let (range, step) = match s.split_once(':') {
        Some((r, st)) => (r, st.trim().parse::<i64>().map_err(|_| format!("bad step '{st}' in '{s}'"))?),
        None => (s, 1),
    };
    let (a, b) = range.split_once("..").ok_or_else(|| format!("expected A..B, found '{s}'"))?;
    let a: i64 = a.trim().parse().map_err(|_| format!("bad start '{a}' in '{s}'"))?;
    let b: i64 = b.trim().parse().map_err(|_| format!("bad end '{b}' in '{s}'"))?;
    if step <= 0 || b < a {
        return Err(format!("empty range '{s}' (need A <= B and a positive step)"));
    }
    if (b - a) / step >= 1024 {
        return Err(format!("range '{s}' has more than 1024 values"));
    }
    Ok((a..=b).step_by(step as usize).collect())
}

/// Parses a `--maxrregcount` range: [`parse_range`], every value in 1..=65535.
pub fn budget_range(s: &str) -> Result<Vec<i64>, String> {
    let values = parse_range(s)?;
    if values.first().is_some_and(|&v| v < 1) || values.last().is_some_and(|&v| v > 65535) {
        return Err(format!("maxrregcount must be at least 1 and at most 65535, found '{s}'"));
    }
    Ok(values)
}

/// The module's settings without its functions: what `whatif::apply` changes for a row
/// (only the run options on either axis), so a row needs no copy of the functions.
fn settings_only(module: &Module) -> Module {
    Module {
        sm: module.sm.clone(),
        options: module.options.clone(),
        knobs: module.knobs.clone(),
        globals: Vec::new(),
        functions: Vec::new(),
        srcloc: Default::default(),
    }
}
/// Runs the sweep over `values`, on up to `threads` threads.
pub fn run(
    module: &Module,
    base: &RunOptions,
    axis: &Axis,
    values: &[i64],
    threads: usize,
) -> Result<Vec<Row>, String> {
    let what = |v: i64| -> Result<WhatIf, String> {
        Ok(match axis {
            Axis::MaxRegCount => WhatIf::MaxRegCount(v.clamp(1, 65535) as u32),
            Axis::Knob(name) => {
                WhatIf::Knob(crate::engine::settings::knob(&format!("{name}={v}")).map_err(|e| e.to_string())?)
            }
        })
    };
    // The stages before the ABI stage (CFG, liveness, DCE, the uninitialized check, and
    // on Ori IR the `webs` prepass) do not depend on the budget or on most knobs: run
    // them once and start every row from a copy. Imported PTX's prepasses schedule to
    // the budget, and the loop-weight knobs change the CFG: those rows start afresh.
    let shared = !base.imported
        && match axis {
            Axis::MaxRegCount => true,
            Axis::Knob(name) => {
                crate::engine::settings::knob(&format!("{name}={}", values.first().copied().unwrap_or(0)))
                    .is_ok_and(|k| k.restart_stage() > crate::engine::Stage::Prepass)
            }
        };
    // On imported PTX only `sink` and `schedule` read the budget (`PassCtx::maxrregcount`);
    // the passes before them run once for a budget sweep and each row starts at `sink`.
    let budget_pass = crate::prepass::PASSES.iter().position(|p| p.name == "sink");
    let shared_prepass = base.imported && matches!(axis, Axis::MaxRegCount) && budget_pass.is_some();
    let mut base = base.clone();
    base.skip_check = true;
    let prefix = (shared || shared_prepass).then(|| {
        let mut m = crate::engine::Machine::new(module.clone(), base.clone());
        if shared {
            while m.pos.stage < crate::engine::Stage::Abi && m.step().is_some() {}
        } else {
            let first = budget_pass.unwrap_or(0);
            while m.pos.stage == crate::engine::Stage::Prepass && m.pos.sub < first && m.step().is_some() {}
        }
        m
    });
    let one = |v: i64| -> Result<Row, String> {
        let mut opts = base.clone();
        // Only the run options change on either axis (`whatif::apply` touches the module
        // for launch bounds alone): the settings are enough, not a copy of the functions.
        let mut header = settings_only(module);
        crate::why::whatif::apply(&what(v)?, &mut opts, &mut header, 0)?;
        // Only the finished machine is read: step it without keeping the event trace
        // (hundreds of MB at 100k instructions, allocated and freed per row).
        let mut mach = match &prefix {
            Some(p) => {
                let mut mach = p.clone();
                mach.retarget(&opts);
                mach
            }
            None => crate::engine::Machine::new(module.clone(), opts),
        };
        while mach.step().is_some() {}
        Ok(Row { value: v, funcs: figures(&mach) })
    };
    let threads = threads.clamp(1, values.len().max(1));
    // A budget sweep of imported PTX: the rows whose budgets give the same schedule share
    // the stages up to the ABI stage (`engine::sweep`).
    if let (true, Some(prefix)) = (shared_prepass, &prefix) {
        let mut opts = Vec::with_capacity(values.len());
        for &v in values {
            let mut o = base.clone();
            let mut header = settings_only(module);
            crate::why::whatif::apply(&what(v)?, &mut o, &mut header, 0)?;
            opts.push(o);
        }
        let finish = |mut mach: crate::engine::Machine| {
            while mach.step().is_some() {}
            figures(&mach)
        };
        let funcs = crate::engine::sweep::rows(prefix, &opts, threads, &finish);
        return values
            .iter()
            .zip(funcs)
            .map(|(&value, funcs)| {
                funcs.map(|funcs| Row { value, funcs }).ok_or(format!("the run at {value} did not finish"))
            })
            .collect();
    }
    let mut rows: Vec<Result<Row, String>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|k| {
                let one = &one;
                s.spawn(move || values.iter().skip(k).step_by(threads).map(|&v| one(v)).collect::<Vec<_>>())
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().unwrap_or_default()).collect()
    });
    rows.sort_by_key(|r| r.as_ref().map(|r| r.value).unwrap_or(i64::MIN));
    rows.into_iter().collect()
}

/// The knees of one function: (fewest registers with no spill, best occupancy with no
/// spill), as row indices.
pub fn knees(rows: &[Row], fi: usize) -> (Option<usize>, Option<usize>) {
    let clean = |r: &Row| r.funcs.get(fi).is_some_and(|f| !f.failed && f.stores == 0 && f.loads == 0);
    let regs = (0..rows.len()).filter(|&i| clean(&rows[i])).min_by_key(|&i| (rows[i].funcs[fi].registers, i));
    let occ = (0..rows.len()).filter(|&i| clean(&rows[i])).min_by_key(|&i| (u32::MAX - rows[i].funcs[fi].warps, i));
    (regs, occ)
}

/// The figures a row shows for one function (what "something changes" compares).
fn shown(f: &Figures) -> (u32, u32, u32, u32, u32, bool) {
    (f.registers, f.stores, f.loads, f.attempts, f.warps, f.failed)
}

/// The rows of function `fi` the condensed table prints: `(first, last)` index pairs of
/// runs of consecutive values with the same figures; with `all`, every row alone.
pub fn runs(rows: &[Row], fi: usize, all: bool) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = Vec::new();
    for (i, r) in rows.iter().enumerate() {
        let same =
            !all && out.last().is_some_and(|&(a, _)| rows[a].funcs.get(fi).map(shown) == r.funcs.get(fi).map(shown));
        match out.last_mut() {
            Some(last) if same => last.1 = i,
            _ => out.push((i, i)),
        }
    }
    out
}

/// The table with knee marks, per function: only the rows where something changes (a
/// run of values with the same figures is one row, `40..47`), or every row with `all`.
pub fn render(rows: &[Row], axis: &Axis, all: bool) -> Explanation {
    let name = match axis {
        Axis::MaxRegCount => "maxrregcount".to_string(),
        Axis::Knob(k) => k.clone(),
    };
    let nf = rows.first().map(|r| r.funcs.len()).unwrap_or(0);
    let mut t = String::new();
    let mut fj = Vec::new();
    for fi in 0..nf {
        let fname = &rows[0].funcs[fi].name;
        let (kr, ko) = knees(rows, fi);
        t.push_str(&format!("sweep {name} for {fname}:\n"));
        let mut tab = vec![
            [name.as_str(), "registers", "spill st B", "spill ld B", "attempts", "warps/SM", ""]
                .map(String::from)
                .to_vec(),
        ];
        let runs = runs(rows, fi, all);
        for &(a, b) in &runs {
            let f = &rows[a].funcs[fi];
            let mut mark = Vec::new();
            if kr.is_some_and(|k| (a..=b).contains(&k)) {
                mark.push("← fewest registers, no spill");
            }
            if ko.is_some_and(|k| (a..=b).contains(&k)) {
                mark.push("← best occupancy, no spill");
            }
            let value =
                if a == b { rows[a].value.to_string() } else { format!("{}..{}", rows[a].value, rows[b].value) };
            tab.push(vec![
                value,
                format!("{}{}", f.registers, if f.failed { " FAILED" } else { "" }),
                f.stores.to_string(),
                f.loads.to_string(),
                f.attempts.to_string(),
                f.warps.to_string(),
                mark.join(" "),
            ]);
        }
        t.push_str(&table(&tab));
        if runs.len() < rows.len() {
            t.push_str(&format!(
                "  ({} values in {} row{}: values with the same figures share a row; --all lists each)\n",
                rows.len(),
                runs.len(),
                if runs.len() == 1 { "" } else { "s" }
            ));
        }
        if kr.is_none() {
            t.push_str("  no value avoids spilling\n");
        }
        fj.push(FunctionSweep {
            function: fname.clone(),
            rows: rows
                .iter()
                .map(|r| {
                    let f = &r.funcs[fi];
                    RowAnswer {
                        value: r.value,
                        registers: f.registers,
                        spill_stores: f.stores,
                        spill_loads: f.loads,
                        attempts: f.attempts,
                        warps: f.warps,
                        failed: f.failed,
                    }
                })
                .collect(),
            knee_registers: kr.map(|i| rows[i].value),
            knee_occupancy: ko.map(|i| rows[i].value),
        });
    }
    let facts = match rows.first().map(|_| knees(rows, 0)) {
        Some((kr, ko)) => vec![
            ("knee-registers".to_string(), kr.map(|i| rows[i].value).unwrap_or(0)),
            ("knee-occupancy".to_string(), ko.map(|i| rows[i].value).unwrap_or(0)),
        ],
        None => Vec::new(),
    };
    Explanation { text: t, answer: Answer::Sweep(SweepAnswer { sweep: name, functions: fj, facts: Facts(facts) }) }
}

/// Round tick values from 0 to at least `max`: steps of 1, 2 or 5 × 10^k, about five.
pub fn ticks(max: f64) -> Vec<f64> {
    ticks_n(max, 5.0)
}

/// [`ticks`] with about `n` steps.
fn ticks_n(max: f64, n: f64) -> Vec<f64> {
    let max = if max > 0.0 { max } else { 1.0 };
    let raw = max / n;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0].iter().map(|m| m * mag).find(|s| *s >= raw).unwrap_or(10.0 * mag).max(1.0);
    let n = (max / step).ceil() as usize;
    (0..=n).map(|k| k as f64 * step).collect()
}

/// Tick values over `[lo, hi]` for the swept axis (round steps, within the range).
fn x_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let span = (hi - lo).max(1.0);
    let t = ticks_n(span, 8.0);
    let step = t.get(1).copied().unwrap_or(1.0);
    let first = (lo / step).ceil() * step;
    let mut out = Vec::new();
    let mut x = first;
    while x <= hi + 1e-9 {
        out.push(x);
        x += step;
    }
    out
}

/// Escapes text for SVG.
fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// The chart: one panel per function, each with registers (top, blue) and spill bytes
/// stored + loaded (bottom, red) on their own y axes starting at zero with round ticks,
/// the swept value on a shared x axis with ticks, and the knees as vertical lines with
/// labels on rows of their own above the plots (never over each other or the lines).
pub fn svg(rows: &[Row], axis: &Axis) -> String {
    let name = match axis {
        Axis::MaxRegCount => "--maxrregcount".to_string(),
        Axis::Knob(k) => format!("knob {k}"),
    };
    let nf = rows.first().map(|r| r.funcs.len()).unwrap_or(0);
    let (w, left, right) = (760.0f64, 78.0f64, 24.0f64);
    let (title_h, panel_h) = (44.0f64, 330.0f64);
    let h = title_h + panel_h * nf.max(1) as f64 + 8.0;
    let xs: Vec<f64> = rows.iter().map(|r| r.value as f64).collect();
    let x0 = xs.first().copied().unwrap_or(0.0);
    let x1 = xs.last().copied().unwrap_or(1.0).max(x0 + 1.0);
    let px = |x: f64| left + (x - x0) / (x1 - x0) * (w - left - right);
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" font-family=\"DejaVu Sans, sans-serif\" font-size=\"12\">\n\
         <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n\
         <text x=\"{left}\" y=\"22\" font-size=\"15\" font-weight=\"bold\">Registers and spill bytes by {}</text>\n\
         <text x=\"{left}\" y=\"38\" fill=\"#555\">one panel per function · <tspan fill=\"#1f5fbf\">registers</tspan> · <tspan fill=\"#bf1f1f\">spill bytes (stored + loaded)</tspan> · <tspan fill=\"#2a7d3a\">knees</tspan></text>\n",
        esc(&name)
    );
    for fi in 0..nf {
        let oy = title_h + panel_h * fi as f64;
        let fname = rows.first().and_then(|r| r.funcs.get(fi)).map(|f| f.name.to_string()).unwrap_or_default();
        let regs: Vec<f64> = rows.iter().map(|r| r.funcs.get(fi).map_or(0.0, |f| f.registers as f64)).collect();
        let spill: Vec<f64> =
            rows.iter().map(|r| r.funcs.get(fi).map_or(0.0, |f| (f.stores + f.loads) as f64)).collect();
        // Panel frame and name.
        s.push_str(&format!(
            "<rect x=\"4\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"none\" stroke=\"#ccc\"/>\n\
             <text x=\"12\" y=\"{:.1}\" font-size=\"13\" font-weight=\"bold\">{}</text>\n",
            oy + 4.0,
            w - 8.0,
            panel_h - 8.0,
            oy + 22.0,
            esc(&fname)
        ));
        // Two label rows for the knees, then the two plots.
        let label_y = [oy + 40.0, oy + 54.0];
        let (rt, rb) = (oy + 66.0, oy + 186.0);
        let (st, sb) = (oy + 214.0, oy + 290.0);
        let plot = |s: &mut String, top: f64, bottom: f64, ys: &[f64], colour: &str, label: &str| {
            let t = ticks(ys.iter().copied().fold(0.0, f64::max));
            let ymax = t.last().copied().unwrap_or(1.0).max(1.0);
            let py = |y: f64| bottom - y / ymax * (bottom - top);
            for &v in &t {
                let y = py(v);
                s.push_str(&format!(
                    "<line x1=\"{left}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\" stroke=\"{}\"/>\
                     <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{v}</text>\n",
                    w - right,
                    if v == 0.0 { "#000" } else { "#e6e6e6" },
                    left - 6.0,
                    y + 4.0
                ));
            }
            s.push_str(&format!(
                "<line x1=\"{left}\" y1=\"{top:.1}\" x2=\"{left}\" y2=\"{bottom:.1}\" stroke=\"#000\"/>\n\
                 <text transform=\"translate(18 {:.1}) rotate(-90)\" text-anchor=\"middle\" fill=\"{colour}\">{label}</text>\n",
                (top + bottom) / 2.0
            ));
            let pts: Vec<String> = xs.iter().zip(ys).map(|(&x, &y)| format!("{:.1},{:.1}", px(x), py(y))).collect();
            s.push_str(&format!(
                "<polyline fill=\"none\" stroke=\"{colour}\" stroke-width=\"2\" points=\"{}\"/>\n",
                pts.join(" ")
            ));
            if xs.len() <= 64 {
                for (&x, &y) in xs.iter().zip(ys) {
                    s.push_str(&format!(
                        "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"2.5\" fill=\"{colour}\"/>",
                        px(x),
                        py(y)
                    ));
                }
                s.push('\n');
            }
        };
        plot(&mut s, rt, rb, &regs, "#1f5fbf", "registers");
        plot(&mut s, st, sb, &spill, "#bf1f1f", "spill bytes");
        // The shared x axis: ticks under both plots, labels under the bottom one.
        for x in x_ticks(x0, x1) {
            let cx = px(x);
            s.push_str(&format!(
                "<line x1=\"{cx:.1}\" y1=\"{rb:.1}\" x2=\"{cx:.1}\" y2=\"{:.1}\" stroke=\"#000\"/>\
                 <line x1=\"{cx:.1}\" y1=\"{sb:.1}\" x2=\"{cx:.1}\" y2=\"{:.1}\" stroke=\"#000\"/>\
                 <text x=\"{cx:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{x}</text>\n",
                rb + 4.0,
                sb + 4.0,
                sb + 17.0
            ));
        }
        s.push_str(&format!(
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" fill=\"#555\">{}</text>\n",
            (left + w - right) / 2.0,
            sb + 32.0,
            esc(&name)
        ));
        // Knees: one vertical line each through both plots; the labels (which name the
        // value) on rows of their own above the plots, anchored away from the nearer
        // edge so they stay inside the panel and never cross a line or each other.
        let (kr, ko) = knees(rows, fi);
        let mut marks: Vec<(usize, String)> = Vec::new();
        match (kr, ko) {
            (Some(a), Some(b)) if a == b => {
                marks.push((a, format!("fewest registers and best occupancy without spills: {}", rows[a].value)))
            }
            _ => {
                if let Some(a) = kr {
                    marks.push((a, format!("fewest registers without spills: {} ({} regs)", rows[a].value, regs[a])));
                }
                if let Some(b) = ko {
                    marks.push((b, format!("best occupancy without spills: {}", rows[b].value)));
                }
            }
        }
        if marks.is_empty() {
            s.push_str(&format!(
                "<text x=\"{left}\" y=\"{:.1}\" fill=\"#bf1f1f\">every value spills</text>\n",
                label_y[0]
            ));
        }
        for (k, (i, label)) in marks.iter().enumerate() {
            let cx = px(xs[*i]);
            let y = label_y[k.min(1)];
            let anchor = if cx > (left + w - right) / 2.0 { ("end", cx - 4.0) } else { ("start", cx + 4.0) };
            s.push_str(&format!(
                "<line x1=\"{cx:.1}\" y1=\"{:.1}\" x2=\"{cx:.1}\" y2=\"{sb:.1}\" stroke=\"#2a7d3a\" stroke-dasharray=\"4 3\"/>\
                 <text x=\"{:.1}\" y=\"{y:.1}\" text-anchor=\"{}\" fill=\"#2a7d3a\">{}</text>\n",
                rt - 4.0,
                anchor.1,
                anchor.0,
                esc(label)
            ));
        }
    }
    s.push_str("</svg>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::{Axis, Row};
    use crate::why::whatif::Figures;

    fn row(value: i64, funcs: &[(&str, u32, u32, u32)]) -> Row {
        let funcs = funcs
            .iter()
            .map(|&(n, registers, stores, warps)| Figures {
                name: n.to_string(),
                registers,
                stores,
                loads: stores,
                frame: 0,
                attempts: 1,
                warps,
                failed: false,
            })
            .collect();
        Row { value, funcs }
    }

    /// Knees at different values get their own label rows; every function a panel.
    #[test]
    fn chart_has_a_panel_per_function_and_labels_on_their_own_rows() {
        let rows = vec![
            row(16, &[("a", 16, 40, 64), ("b", 8, 0, 64)]),
            row(24, &[("a", 20, 0, 48), ("b", 8, 0, 64)]),
            row(32, &[("a", 22, 0, 64), ("b", 8, 0, 64)]),
            row(40, &[("a", 22, 0, 64), ("b", 8, 0, 64)]),
        ];
        let svg = super::svg(&rows, &Axis::MaxRegCount);
        assert!(svg.contains(">a</text>") && svg.contains(">b</text>"), "{svg}");
        let label_y = |what: &str| {
            let i = svg.find(what).unwrap_or_else(|| panic!("{what} in {svg}"));
            let tag = &svg[svg[..i].rfind("<text").unwrap()..i];
            tag.split("y=\"").nth(1).and_then(|r| r.split('"').next()).unwrap().to_string()
        };
        assert_ne!(label_y("fewest registers without spills: 24"), label_y("best occupancy without spills: 32"));
        let t = super::render(&rows, &Axis::MaxRegCount, false);
        assert!(t.text.contains("32..40"), "{}", t.text);
        assert!(super::render(&rows, &Axis::MaxRegCount, true).text.contains("\n  40  "));
    }

    #[test]
    fn ticks_are_round_and_reach_the_maximum() {
        assert_eq!(super::ticks(0.0), vec![0.0, 1.0]);
        assert_eq!(super::ticks(7.0), vec![0.0, 2.0, 4.0, 6.0, 8.0]);
        assert_eq!(super::ticks(46.0), vec![0.0, 10.0, 20.0, 30.0, 40.0, 50.0]);
        assert_eq!(super::ticks(1200.0), vec![0.0, 500.0, 1000.0, 1500.0]);
        assert_eq!(super::x_ticks(16.0, 128.0), vec![20.0, 40.0, 60.0, 80.0, 100.0, 120.0]);
    }
}
