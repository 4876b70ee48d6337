//! read (being built).

use super::Ctx;
use super::wire::{ReadFileInput, ReadFileOutput};
use crate::error::{ErrorKind, Result, ToolError};

pub(super) fn call(_ctx: &Ctx<'_>, _input: ReadFileInput) -> Result<ReadFileOutput> {
    Err(ToolError::new(ErrorKind::Io, "not implemented yet"))
}
