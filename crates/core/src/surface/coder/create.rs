//! create (being built).

use super::Ctx;
use super::wire::{CreateFileInput, CreateFileOutput};
use crate::error::{ErrorKind, Result, ToolError};

pub(super) fn call(_ctx: &Ctx<'_>, _input: CreateFileInput) -> Result<CreateFileOutput> {
    Err(ToolError::new(ErrorKind::Io, "not implemented yet"))
}
