//! The `.radbg` command language: one table (`table`), one parser (`parse`), one
//! interpreter (`exec`) and its renderers (`render`), and script replay and recording
//! (`script`). The REPL, the TUI's command line and session files all go through here.

pub mod alloc_diff;
pub mod exec;
pub mod exec_briggs;
pub mod parse;
pub mod reduce;
pub mod render;
pub mod render_briggs;
pub mod script;
pub mod source;
pub mod table;

pub use exec::{Output, Session};
pub use parse::{Command, parse_line};
