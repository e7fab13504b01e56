//! Semantic checks of a parsed module (placeholder; filled in below).

use crate::ir::diag::Diagnostic;
use crate::ir::model::Module;
use crate::ir::span::SourceMap;

pub fn validate(_m: &Module, _map: &SourceMap) -> Vec<Diagnostic> {
    Vec::new()
}
