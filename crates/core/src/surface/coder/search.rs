//! search (being built).

use super::Ctx;
use super::wire::{SearchInput, SearchOutput};
use crate::error::{ErrorKind, Result, ToolError};

pub(super) fn call(_ctx: &Ctx<'_>, _input: SearchInput) -> Result<SearchOutput> {
    Err(ToolError::new(ErrorKind::Io, "not implemented yet"))
}
