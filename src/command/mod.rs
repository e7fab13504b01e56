//! The `.radbg` command language: one table (`table`), one parser (`parse`), one
//! interpreter (`exec`) and its renderers (`render`), and script replay and recording
//! (`script`). The REPL, the TUI's command line and session files all go through here.
//!
//! Commands are written per view family (`alloc::run::ViewFamily`), not per allocator:
//! `exec` and `render` serve the Histograms family (the fat-point allocator), and
//! `exec_graph` and `render_graph` the Graph family (an interference graph: Chaitin-Briggs).

pub mod alloc_diff;
pub mod exec;
pub mod exec_graph;
pub mod parse;
pub mod reduce;
pub mod render;
pub mod render_graph;
pub mod script;
pub mod source;
pub mod table;
pub mod why_pane;

pub use exec::{Output, Session};
pub use parse::{Command, parse_line};
