//! A function's finished allocation as the debugger holds it once the cursor has left
//! the function: its recipe (the module as the allocator read it, the function's index,
//! the allocator and its inputs) and, only while someone needs it, the allocation
//! itself, replayed from the recipe on first use (issue 25: the allocations of every
//! finished function — each a copy of its IR with spill code, its ranges, occupancy and
//! costs — were a third of what the debugger held on a file of many entries, and grew
//! with the file).
//!
//! The allocators are deterministic: the same function and inputs give the same events
//! and the same final state, so a replayed allocation answers every query exactly as the
//! one it replaces (`tests/engine_memory.rs` compares them with a run that keeps all).

use std::fmt;
use std::ops::Deref;
use std::sync::{Arc, OnceLock};

use crate::alloc::AllocConfig;
use crate::alloc::run::{AllocRun, AllocatorKind};
use crate::ir::Module;
use crate::knobs::Knobs;

/// What re-runs a function's allocation: nothing here grows with the function but the
/// config's pins and clobber lists (the module is shared with the machine). The knobs
/// are shared too, and the config holds none: a copy of the knob table per finished
/// function was 22 MB of the 50 MB many-entry file's run (issue 25, massif).
struct Recipe {
    module: Arc<Module>,
    fi: usize,
    kind: AllocatorKind,
    /// The allocator's inputs with an empty knob table ([`Recipe::config`] puts `knobs` back).
    config: AllocConfig,
    knobs: Arc<Knobs>,
}

impl Recipe {
    fn config(&self) -> AllocConfig {
        AllocConfig { knobs: (*self.knobs).clone(), ..self.config.clone() }
    }

    /// The allocation as it started, to run again.
    fn start(&self) -> AllocRun {
        AllocRun::new(self.kind, self.module.functions[self.fi].clone(), self.config())
    }
}

enum Inner {
    /// A run that cannot be replayed from the machine's module (a sweep's template shares
    /// its start): always held.
    Held(AllocRun),
    /// The recipe, and the run while held.
    Lazy { recipe: Arc<Recipe>, run: OnceLock<AllocRun> },
}

/// A finished allocation, held or replayed on demand; dereferences to the [`AllocRun`].
#[derive(Clone)]
pub struct Finished(Arc<Inner>);

impl Finished {
    /// A finished run, held, that [`Finished::compact`] may later drop: `module` is the
    /// module the allocator read function `fi` from and `config` its inputs; `knobs` is
    /// kept instead of the config's knob table when the two are equal (the machine's).
    pub fn new(run: AllocRun, module: Arc<Module>, fi: usize, config: AllocConfig, knobs: &Arc<Knobs>) -> Finished {
        let mut config = config;
        let own = std::mem::take(&mut config.knobs);
        let knobs = if own == **knobs { knobs.clone() } else { Arc::new(own) };
        let recipe = Arc::new(Recipe { module, fi, kind: run.kind(), config, knobs });
        Finished(Arc::new(Inner::Lazy { recipe, run: OnceLock::from(run) }))
    }

    /// A finished run that is always held (no recipe).
    pub fn held(run: AllocRun) -> Finished {
        Finished(Arc::new(Inner::Held(run)))
    }

    /// Whether the allocation itself is in memory (not only its recipe).
    pub fn is_held(&self) -> bool {
        match &*self.0 {
            Inner::Held(_) => true,
            Inner::Lazy { run, .. } => run.get().is_some(),
        }
    }

    /// Whether [`Finished::compact`] would free the allocation: held, with a recipe.
    pub fn droppable(&self) -> bool {
        matches!(&*self.0, Inner::Lazy { run, .. } if run.get().is_some())
    }

    /// Whether the run can be replayed (and so dropped): not a sweep's shared start.
    pub fn has_recipe(&self) -> bool {
        matches!(&*self.0, Inner::Lazy { .. })
    }

    /// Whether `other` is the same function's run from the same module and inputs (so
    /// the same allocation: the allocators are deterministic).
    pub fn same_run(&self, other: &Finished) -> bool {
        match (&*self.0, &*other.0) {
            (Inner::Lazy { recipe: a, .. }, Inner::Lazy { recipe: b, .. }) => {
                Arc::ptr_eq(&a.module, &b.module)
                    && a.fi == b.fi
                    && a.kind == b.kind
                    && a.config == b.config
                    && (Arc::ptr_eq(&a.knobs, &b.knobs) || a.knobs == b.knobs)
            }
            _ => false,
        }
    }

    /// The same allocation without its state (a fresh cell with the recipe), or a copy
    /// of this one when it has no recipe. Copies made before keep what they hold.
    pub fn compact(&self) -> Finished {
        match &*self.0 {
            Inner::Lazy { recipe, .. } => {
                Finished(Arc::new(Inner::Lazy { recipe: recipe.clone(), run: OnceLock::new() }))
            }
            Inner::Held(_) => self.clone(),
        }
    }

    /// The allocation's events, run again from the recipe (`None` for a held run
    /// without one): what the debugger's trace gives back for a finished function
    /// whose per-vreg events it dropped (`engine::trace`, issue 25).
    pub fn replay_events(&self) -> Option<Vec<crate::alloc::run::RunEvent>> {
        let Inner::Lazy { recipe, .. } = &*self.0 else { return None };
        let mut run = recipe.start();
        Some(std::iter::from_fn(|| run.step()).collect())
    }

    fn replay(r: &Recipe) -> AllocRun {
        let mut run = r.start();
        while run.step().is_some() {}
        run
    }
}

impl Deref for Finished {
    type Target = AllocRun;

    fn deref(&self) -> &AllocRun {
        match &*self.0 {
            Inner::Held(run) => run,
            Inner::Lazy { recipe, run } => run.get_or_init(|| Finished::replay(recipe)),
        }
    }
}

impl fmt::Debug for Finished {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &*self.0 {
            Inner::Held(run) => run.fmt(f),
            Inner::Lazy { run, recipe } => match run.get() {
                Some(run) => run.fmt(f),
                None => write!(f, "Finished(function {}, not held)", recipe.fi),
            },
        }
    }
}
