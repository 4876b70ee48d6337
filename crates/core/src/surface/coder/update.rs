//! update (being built).

use super::Ctx;
use super::wire::{UpdateFileInput, UpdateFileOutput};
use crate::error::{ErrorKind, Result, ToolError};

pub(super) fn call(_ctx: &Ctx<'_>, _input: UpdateFileInput) -> Result<UpdateFileOutput> {
    Err(ToolError::new(ErrorKind::Io, "not implemented yet"))
}
