//! After an iteration: how the vregs that got no colour change the spill plan (new
//! spills, lazy spill code made eager, neighbours spilled to make room) or end the
//! allocation with a failure naming the vreg.
//!
//! Part of the machine (it reads its private state); knows nothing of the UI.

use crate::alloc::briggs::RegSet;
use crate::alloc::briggs::machine::BriggsAlloc;
use crate::alloc::briggs::select;
use crate::alloc::briggs::simplify::Status;
use crate::alloc::briggs::spill::PlanEntry;
use crate::ir::{RegFile, VRegId};

/// How an uncolourable node that cannot shrink itself gets room.
enum Evict {
    /// Spill this neighbour (an original vreg).
    Spill(u32),
    /// Switch this plan entry to eager reloads.
    Eager(usize),
}

impl BriggsAlloc {
    /// Turns this iteration's uncoloured vregs into plan changes (or a failure).
    pub(super) fn plan_spills(&mut self, members: &[u32]) {
        self.new_now.clear();
        self.eager_now.clear();
        self.evicted_now.clear();
        let lazy = self.params.spill.lazy;
        let norig = self.original.vregs.len();
        let mut stuck: Vec<(u32, Option<VRegId>)> = Vec::new();
        for &m in members {
            let mi = m as usize;
            let entry = self.entry_of(m);
            let unspillable = self.work.as_ref().is_none_or(|w| w.unspillable.get(mi).copied().unwrap_or(true));
            match entry {
                // Another temporary of a vreg already switched this iteration.
                Some(e) if self.eager_now.contains(&self.plan[e].vreg) => {}
                Some(e) if lazy && !self.plan[e].eager => {
                    self.plan[e].eager = true;
                    self.eager_now.push(self.plan[e].vreg);
                }
                None if mi < norig && !unspillable => self.add_to_plan(m),
                _ => {
                    // Nothing left to shrink in `m` itself: spill a neighbour that holds a
                    // colour in its way, so that the next iteration frees one.
                    let actions = self.eviction(m);
                    if actions.is_empty() {
                        stuck.push((m, entry.map(|e| self.plan[e].vreg)));
                    }
                    for a in actions {
                        match a {
                            Evict::Spill(t) => {
                                self.evicted_now.push((VRegId(m), VRegId(t)));
                                self.add_to_plan(t);
                            }
                            Evict::Eager(e) => {
                                let v = self.plan[e].vreg;
                                if !self.plan[e].eager {
                                    self.plan[e].eager = true;
                                    self.eager_now.push(v);
                                }
                            }
                        }
                    }
                }
            }
        }
        // A vreg nothing can be done for fails the allocation only when the iteration
        // changed nothing else that might make room for it.
        let progress = !self.new_now.is_empty() || !self.eager_now.is_empty();
        if let Some(&(m, of)) = stuck.first()
            && !progress
        {
            self.failure = Some(self.fail_message(m, of));
        }
    }

    /// The plan entry a vreg of the current IR belongs to (a temporary or the spilled vreg).
    fn entry_of(&self, v: u32) -> Option<usize> {
        let temp = self.spill.as_ref().and_then(|s| s.temp_of.get(v as usize).copied().flatten());
        match temp {
            Some((e, _)) => Some(e as usize),
            None => self.plan_index.get(v as usize).copied().flatten().map(|e| e as usize),
        }
    }

    fn in_plan(&self, v: usize) -> bool {
        self.plan_index.get(v).copied().flatten().is_some()
    }

    fn add_to_plan(&mut self, v: u32) {
        if !self.in_plan(v as usize) {
            let eager = !self.params.spill.lazy;
            if self.plan_index.len() <= v as usize {
                self.plan_index.resize(v as usize + 1, None);
            }
            self.plan_index[v as usize] = Some(self.plan.len() as u32);
            self.plan.push(PlanEntry { vreg: VRegId(v), eager, iteration: self.iteration });
            self.new_now.push(VRegId(v));
        }
    }

    /// What to do for an uncolourable node that cannot shrink: free the start colour
    /// whose occupants are cheapest to move — each occupant either spilled (a spillable
    /// original vreg, at its cost) or, if it is lazy spill code, switched to eager
    /// reloads (free). When no start can be freed entirely, spill the cheapest spillable
    /// coloured neighbour, or make one lazy neighbour eager. Empty: nothing can be done.
    fn eviction(&self, m: u32) -> Vec<Evict> {
        let (Some(g), Some(w)) = (self.graph.as_ref(), self.work.as_ref()) else {
            return Vec::new();
        };
        let norig = self.original.vregs.len();
        let x = w.find(m) as usize;
        let lazy = self.params.spill.lazy;
        let in_plan = |t: usize| self.in_plan(t);
        // How a coloured neighbour can give its colour up, and at what cost.
        let action = |t: u32| -> Option<(Evict, f64)> {
            let ti = t as usize;
            if ti < norig && !w.unspillable[ti] && !in_plan(ti) {
                return Some((Evict::Spill(t), w.cost[ti]));
            }
            let e = self.entry_of(t)?;
            (lazy && !self.plan[e].eager).then_some((Evict::Eager(e), 0.0))
        };
        let neighbours: Vec<(u32, u16)> = g.adj[x]
            .iter()
            .filter(|&&t| w.status[t as usize] != Status::Merged)
            .filter_map(|&t| w.colour[t as usize].map(|c| (t, c)))
            .collect();
        let window = self.windows.get(g.file[x].index()).map_or(RegSet::EMPTY, |win| win.regs);
        let width = g.width[x] as u16;
        let mut best: Option<(f64, Vec<Evict>)> = None;
        for s in select::available(&window, g.width[x], &g.physical[x]) {
            let mut cost = 0.0;
            let mut acts = Vec::new();
            let mut ok = true;
            for &(t, c) in &neighbours {
                let wt = g.width[t as usize] as u16;
                if c < s + width && s < c + wt {
                    match action(t) {
                        Some((a, k)) => {
                            cost += k;
                            acts.push(a);
                        }
                        None => {
                            ok = false;
                            break;
                        }
                    }
                }
            }
            if ok && !acts.is_empty() && best.as_ref().is_none_or(|(b, _)| cost < *b) {
                best = Some((cost, acts));
            }
        }
        if let Some((_, acts)) = best {
            return acts;
        }
        let mut cheapest: Option<(f64, u32)> = None;
        let mut eager: Option<usize> = None;
        for &(t, _) in &neighbours {
            match action(t) {
                Some((Evict::Spill(_), k)) if cheapest.is_none_or(|(c, id)| k < c || (k == c && t < id)) => {
                    cheapest = Some((k, t));
                }
                Some((Evict::Eager(e), _)) if eager.is_none() => eager = Some(e),
                _ => {}
            }
        }
        match (cheapest, eager) {
            (Some((_, t)), _) => vec![Evict::Spill(t)],
            (None, Some(e)) => vec![Evict::Eager(e)],
            (None, None) => Vec::new(),
        }
    }

    fn fail_message(&self, v: u32, of: Option<VRegId>) -> String {
        let f = &self.func;
        let name = f.vregs.get(v as usize).map_or("?", |r| r.name.as_ref());
        let file = f.vregs.get(v as usize).map_or(RegFile::R, |r| r.file());
        let k = self.windows.get(file.index()).map_or(0, |w| w.k);
        let what = match of {
            Some(o) => format!(
                "the eager spill code of {} cannot shrink further",
                f.vregs.get(o.index()).map_or("?", |r| r.name.as_ref())
            ),
            None => "it cannot be spilled".to_string(),
        };
        format!(
            "Briggs allocation failed: {name} gets none of the K={k} {} colours and {what} (iteration {})",
            file.prefix(),
            self.iteration
        )
    }
}

impl BriggsAlloc {
    /// The rule for pre-coloured nodes (seed 002, "Pre-colored Nodes": a calling-convention
    /// register is fixed before colouring and never changes): a pin must itself be a
    /// register the function may use — aligned for its width and inside the file's budget
    /// (`slot + width <= budget`, the limit the checker enforces for every vreg). Select
    /// never moves a pre-coloured node and coalescing never merges into one, so a pin
    /// beyond the budget (R186 under a 64-register budget) would otherwise be kept as is
    /// and leak out of the allocation, with every alias of the pinned vreg. It is
    /// unsatisfiable — the fat-point allocator fails on it too — so the allocation fails
    /// naming the pin. A pin outside the K-colour window but within the budget is legal:
    /// the window limits what select chooses, not what a caller fixes. Only vregs that
    /// are live somewhere (graph nodes) count, as in the checker.
    pub(super) fn pin_failure(&self) -> Option<String> {
        let g = self.graph.as_ref()?;
        // Every pinned member of an alias component must agree with the node's pre-colour.
        for v in 0..g.node.len() {
            let root = self.ranges.root.get(v).map_or(v, |r| r.index());
            if let Some(p) = self.pin_of(VRegId::new(v))
                && root != v
                && g.node.get(root).copied().unwrap_or(false)
                && g.precolour[root] != Some(p)
            {
                let f = &self.func;
                let name = |i: usize| f.vregs.get(i).map_or("?", |r| r.name.as_ref());
                let file = f.vregs[v].file().prefix();
                return Some(format!(
                    "Briggs allocation failed: {} is pinned to {file}{p} but its alias root {} is pinned to {}",
                    name(v),
                    name(root),
                    g.precolour[root].map_or("another register".to_string(), |q| format!("{file}{q}"))
                ));
            }
        }
        // Two pre-coloured nodes that interfere may not share a register: select never
        // moves either, so the pins themselves conflict.
        for v in 0..g.node.len() {
            let Some(p) = g.precolour[v].filter(|_| g.node[v]) else { continue };
            let end = p as u32 + g.width[v].max(1) as u32;
            for &t in &g.adj[v] {
                let ti = t as usize;
                if ti <= v || g.file[ti] != g.file[v] {
                    continue;
                }
                if let Some(q) = g.precolour[ti]
                    && (q as u32) < end
                    && (p as u32) < q as u32 + g.width[ti].max(1) as u32
                {
                    let f = &self.func;
                    let name = |i: usize| f.vregs.get(i).map_or("?", |r| r.name.as_ref());
                    let pre = g.file[v].prefix();
                    return Some(format!(
                        "Briggs allocation failed: {} (pinned to {pre}{p}) and {} (pinned to {pre}{q}) are live at once",
                        name(v),
                        name(ti)
                    ));
                }
            }
        }
        (0..g.node.len()).find_map(|v| {
            let p = g.precolour[v]?;
            if !g.node[v] {
                return None;
            }
            let file = g.file[v];
            let width = g.width[v].max(1);
            let budget = self.windows.get(file.index()).map_or(0, |w| w.budget);
            let name = self.func.vregs.get(v).map_or("?", |r| r.name.as_ref());
            let p0 = file.prefix();
            if p as u32 + width as u32 > budget {
                Some(format!(
                    "Briggs allocation failed: {name} is pinned to {p0}{p}, beyond the budget of {budget} {p0} registers"
                ))
            } else if p % select::align_of(width) != 0 {
                Some(format!(
                    "Briggs allocation failed: {name} is pinned to {p0}{p}, not aligned for a {width}-register value"
                ))
            } else {
                None
            }
        })
    }
}
