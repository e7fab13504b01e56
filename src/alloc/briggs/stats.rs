//! Statistics of one Chaitin-Briggs allocation (seed 002, "Register Allocation
//! Statistics": graph sizes, spill rate, coalescing rate, iteration counts), as text
//! lines (no command prints them as JSON; the rendering layer would build that).
//!
//! Knows only the figures; the machine fills them in.

use crate::ir::RegFile;

/// Figures of one function.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BriggsStats {
    pub function: String,
    pub ok: bool,
    pub failure: Option<String>,
    /// K per register file with nodes.
    pub k: Vec<(RegFile, u32)>,
    /// The first iteration's graph (the kernel as written).
    pub nodes: u32,
    pub edges: u64,
    pub density: f64,
    pub max_degree: u32,
    pub avg_degree: f64,
    pub precoloured: u32,
    pub class_edges: u64,
    pub bank_edges: u64,
    /// Moves of the final iteration's graph and how many ended coalesced (merged, or
    /// joining two vregs already merged through other moves).
    pub moves: u32,
    pub coalesced: u32,
    /// `coalesced / moves` (0 when there are no moves).
    pub coalesce_rate: f64,
    /// Original vregs that needed a register (the first graph's non-pre-coloured nodes).
    pub vregs: u32,
    pub spilled: u32,
    /// `spilled / vregs`.
    pub spill_rate: f64,
    pub iterations: u32,
    /// General registers used (one past the highest R register assigned).
    pub registers: u32,
    pub stores: u32,
    pub reloads: u32,
    pub reloads_avoided: u32,
    pub remats: u32,
    pub frame_bytes: u32,
    pub smem_bytes: u32,
    pub spill_store_bytes: u32,
    pub spill_load_bytes: u32,
}

fn pct(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

impl BriggsStats {
    /// Human-readable lines.
    pub fn lines(&self) -> Vec<String> {
        let ks: Vec<String> = self.k.iter().map(|(f, k)| format!("{}={k}", f.prefix())).collect();
        let mut out = vec![
            format!(
                "briggs '{}': {} after {} iteration{}",
                self.function,
                if self.ok { "ok" } else { "FAILED" },
                self.iterations,
                if self.iterations == 1 { "" } else { "s" }
            ),
            format!(
                "  graph: {} nodes, {} edges, density {}, degree max {} avg {:.2}, {} pre-coloured, K {}",
                self.nodes,
                self.edges,
                pct(self.density),
                self.max_degree,
                self.avg_degree,
                self.precoloured,
                if ks.is_empty() { "-".to_string() } else { ks.join(" ") }
            ),
            format!("  coalescing: {}/{} moves ({})", self.coalesced, self.moves, pct(self.coalesce_rate)),
            format!(
                "  spilling: {}/{} vregs ({}), {} stores, {} reloads ({} avoided), {} rematerialized",
                self.spilled,
                self.vregs,
                pct(self.spill_rate),
                self.stores,
                self.reloads,
                self.reloads_avoided,
                self.remats
            ),
            format!(
                "  {} registers, {} bytes stack frame, {} bytes spill stores, {} bytes spill loads",
                self.registers, self.frame_bytes, self.spill_store_bytes, self.spill_load_bytes
            ),
        ];
        if self.smem_bytes > 0 {
            out.push(format!("  {} bytes of shared-memory spill slots", self.smem_bytes));
        }
        if let Some(m) = &self.failure {
            out.push(format!("  error: {m}"));
        }
        out
    }
}
