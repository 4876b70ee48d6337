//! list (being built).

use super::Ctx;
use super::wire::{ListFolderInput, ListFolderOutput};
use crate::error::{ErrorKind, Result, ToolError};

pub(super) fn call(_ctx: &Ctx<'_>, _input: ListFolderInput) -> Result<ListFolderOutput> {
    Err(ToolError::new(ErrorKind::Io, "not implemented yet"))
}
