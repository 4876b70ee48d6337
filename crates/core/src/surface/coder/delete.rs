//! delete (being built).

use super::Ctx;
use super::wire::{DeleteFileInput, DeleteFileOutput};
use crate::error::{ErrorKind, Result, ToolError};

pub(super) fn call(_ctx: &Ctx<'_>, _input: DeleteFileInput) -> Result<DeleteFileOutput> {
    Err(ToolError::new(ErrorKind::Io, "not implemented yet"))
}
