//! The commands of the Graph family of views (`alloc::run::ViewFamily::Graph`, the
//! Chaitin-Briggs allocator): `print`, `constraints`, `hist` and `attempts` as the
//! interference graph's node, neighbours, colour window and iterations, the `graph`
//! command and `diff allocators`.

use crate::alloc::briggs::view as bv;
use crate::command::exec::{Output, Session};
use crate::command::render_graph as render;
use crate::engine::Debugger;
use crate::engine::query as q;
use crate::ir::VRegId;

/// The graph allocator's machine of function `fi`, or why there is none.
fn machine(d: &Debugger, fi: usize) -> Result<&crate::alloc::briggs::BriggsAlloc, String> {
    if d.opts.allocator.views() != crate::alloc::run::ViewFamily::Graph {
        return Err("the Chaitin-Briggs views need 'set allocator briggs'".into());
    }
    q::briggs_of(d.machine(), fi).ok_or_else(|| {
        format!(
            "no Chaitin-Briggs graph for {} yet (step into its alloc stage: 'break stage alloc', 'continue')",
            d.machine().module.functions[fi].name
        )
    })
}

fn dbg(s: &Session) -> Result<&Debugger, String> {
    s.dbg.as_ref().ok_or_else(|| "no file loaded (use 'load FILE')".to_string())
}

pub fn print(s: &Session, fi: usize, v: VRegId) -> Result<Output, String> {
    let d = dbg(s)?;
    // Before its allocation starts, a vreg is shown as without Briggs.
    let Some(b) = q::briggs_of(d.machine(), fi) else {
        let info = crate::engine::query::vreg_info(d, fi, v).ok_or("no such vreg")?;
        return Ok(crate::command::render::vreg(&info));
    };
    let view = q::briggs_vreg(d, fi, b, v).ok_or("no such vreg")?;
    Ok(render::vreg(&view))
}

/// The node to show: the named one, else the current event's.
fn target(s: &Session, named: Option<(usize, VRegId)>) -> Result<(usize, VRegId), String> {
    match named {
        Some(t) => Ok(t),
        None => q::event_node(dbg(s)?).ok_or_else(|| "no current node here (name one: constraints %r12)".to_string()),
    }
}

pub fn neighbours(s: &Session, named: Option<(usize, VRegId)>) -> Result<Output, String> {
    let (fi, v) = target(s, named)?;
    let d = dbg(s)?;
    let b = machine(d, fi)?;
    let name = b.func().vregs.get(v.index()).map_or("?", |r| r.name.as_ref()).to_string();
    let view = bv::neighbours(b, v).ok_or(format!("{name} is not a node of the current graph"))?;
    Ok(render::neighbours(&view))
}

pub fn colours(s: &Session) -> Result<Output, String> {
    let (fi, v) = target(s, None)?;
    let d = dbg(s)?;
    let b = machine(d, fi)?;
    let view = q::briggs_colours(d, b, v).ok_or("no such vreg")?;
    Ok(render::colours(&view))
}

pub fn graph(s: &Session) -> Result<Output, String> {
    let d = dbg(s)?;
    let fi = s.current_func();
    let b = machine(d, fi)?;
    Ok(render::graph(&q::briggs_graph(d, fi, b)))
}

pub fn iterations(s: &Session) -> Result<Output, String> {
    let d = dbg(s)?;
    Ok(render::iterations(&q::briggs_iterations(d, s.current_func())))
}

/// Both allocators on function `fi` with the budget and configuration the pipeline
/// derives for it (`command::alloc_diff`).
pub fn diff_allocators(d: &Debugger, fi: usize) -> Result<Output, String> {
    let name = d.machine().module.functions[fi].name.to_string();
    let diffs = super::alloc_diff::compare_module((*d.loaded()).clone(), d.opts.clone())?;
    let mine: Vec<_> = diffs.into_iter().filter(|x| x.function == name).collect();
    if mine.is_empty() {
        return Err(format!("no allocation of {name} to compare"));
    }
    Ok(render::allocator_diffs(&mine))
}
