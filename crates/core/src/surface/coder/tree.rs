//! tree (being built).

use super::Ctx;
use super::wire::{TreeInput, TreeOutput};
use crate::error::{ErrorKind, Result, ToolError};

pub(super) fn call(_ctx: &Ctx<'_>, _input: TreeInput) -> Result<TreeOutput> {
    Err(ToolError::new(ErrorKind::Io, "not implemented yet"))
}
