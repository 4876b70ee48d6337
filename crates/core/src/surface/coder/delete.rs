//! delete-file: remove paths, each on its own; a missing path is an idempotent success.

use super::wire::{DeleteFileInput, DeleteFileOutput, DeleteFileResult};
use super::{Ctx, canonical, wire_error};
use crate::error::{Result, ToolError};
use crate::session::FileRef;

pub(super) fn call(ctx: &Ctx<'_>, input: DeleteFileInput) -> Result<DeleteFileOutput> {
    let base = ctx.base(input.base_dir.as_deref())?;
    let results =
        input
            .paths
            .iter()
            .map(|raw| {
                let mut result = DeleteFileResult {
                    path: raw.clone(),
                    ..Default::default()
                };
                let outcome = ctx.access.resolve_entry(raw, base.as_ref()).and_then(|target| {
                result.path = canonical(&target);
                if ctx.access.is_root(&target) {
                    return Err(ToolError::invalid(format!(
                        "{raw} is an allowed root ({}); a root cannot be deleted — delete the \
                         entries inside it instead",
                        target.path.display()
                    )));
                }
                let removed = ctx.access.remove(&target, input.recursive)?;
                if let Some(session) = ctx.call.session() {
                    session.forget(&FileRef::in_folder(ctx.access, &target, base.as_ref()));
                }
                Ok(removed)
            });
                match outcome {
                    Ok(removed) => {
                        result.removed = removed;
                        result.success = true;
                    }
                    Err(err) => result.error = Some(wire_error(&err)),
                }
                result
            })
            .collect();
    Ok(DeleteFileOutput { results })
}
