//! moves (being built).

use super::Ctx;
use super::wire::{MoveFileInput, MoveFileOutput};
use crate::error::{ErrorKind, Result, ToolError};

pub(super) fn call(_ctx: &Ctx<'_>, _input: MoveFileInput) -> Result<MoveFileOutput> {
    Err(ToolError::new(ErrorKind::Io, "not implemented yet"))
}
