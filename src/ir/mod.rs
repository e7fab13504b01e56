//! Ori IR: the textual form of ptxas's internal IR that radbg debugs.
//!
//! `model` is the data; `opcode` the mnemonic table; `sm` targets; `regfile` the SM's
//! register file and occupancy model; `abi_spec` the ABI block of device functions.
//! Architecture invariant: nothing here knows about allocation or the debugger.

pub mod abi_spec;
pub mod arbitrary;
mod arbitrary_valid;
pub mod callgraph;
pub mod diag;
pub mod encoding;
pub mod limits;
pub mod model;
pub mod opcode;
pub mod parse;
pub mod print;
pub mod ptx;
pub mod regfile;
pub mod sm;
pub mod span;
pub mod srcloc;
pub mod validate;

pub use abi_spec::*;
pub use model::*;
pub use opcode::Opcode;
pub use sm::Sm;

pub use parse::{parse_module, parse_str};
pub use print::print_module;
