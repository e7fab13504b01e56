//! Random validator-clean modules (see [`crate::ir::arbitrary`]).

use super::arbitrary::{GenConfig, Rng};
use crate::ir::model::Module;

pub fn module(_rng: &mut Rng, _cfg: &GenConfig) -> Module {
    Module::default()
}
