//! The mutations of several paths at once (a patch, a move, a delete) and their undo.

use super::Native;
use super::patch::Change;
use super::write::{Before, current, replace};
use crate::access::{Access, Resolved};
use crate::error::{ErrorKind, Result, ToolError};
use crate::surface::CallContext;

/// Commits `changes` all or nothing: the new version of each file written (`None` for one
/// deleted).
pub(super) fn commit(
    native: &Native,
    access: &Access,
    changes: &[Change],
    ctx: &CallContext,
) -> Result<Vec<Option<String>>> {
    let mut versions: Vec<Option<String>> = Vec::with_capacity(changes.len());
    for (i, change) in changes.iter().enumerate() {
        let done = match &change.after {
            Some(after) => replace(native, access, &change.target, &change.before, after, ctx)
                .and_then(|v| {
                    v.map(Some).ok_or_else(|| {
                        ToolError::new(
                            ErrorKind::Conflict,
                            format!(
                                "{} changed while the patch was applied",
                                change.target.shown
                            ),
                        )
                    })
                }),
            None => access.remove(&change.target, false).map(|_| None),
        };
        match done {
            Ok(v) => versions.push(v),
            Err(e) => {
                rollback(native, access, &changes[..i], ctx);
                return Err(ToolError::new(
                    e.kind,
                    format!(
                        "{}; nothing was \
                 changed (the files already written were restored)",
                        e.message
                    ),
                ));
            }
        }
    }
    Ok(versions)
}

fn rollback(native: &Native, access: &Access, done: &[Change], ctx: &CallContext) {
    for change in done.iter().rev() {
        match (&change.before, &change.after) {
            (Before::Bytes(old), _) => {
                let now = current(access, &change.target).unwrap_or(Before::Absent);
                let _ = replace(native, access, &change.target, &now, old, ctx);
            }
            (Before::Absent, Some(_)) => {
                let _ = access.remove(&change.target, false);
            }
            (Before::Absent, None) => {}
        }
    }
}

/// Refuses to delete or move away a file or folder that carries no write permission bit at
/// all: read-only stays read-only, as for every write (even for a process the kernel would let).
fn check_not_read_only(access: &Access, target: &Resolved, action: &str) -> Result<()> {
    match access.symlink_metadata(target) {
        Ok(meta) if !meta.is_symlink && meta.mode & 0o222 == 0 => Err(ToolError::new(
            ErrorKind::Denied,
            format!(
                "{} is read-only (mode {:o}), so fsgate does not {action} it; nothing was \
                 changed. Make it writable first if it should change",
                target.shown,
                meta.mode & 0o7777
            ),
        )),
        _ => Ok(()),
    }
}

pub(super) fn move_path(
    native: &Native,
    access: &Access,
    from: &Resolved,
    to: &Resolved,
    overwrite: bool,
    ctx: &CallContext,
) -> Result<String> {
    let _ = (native, ctx);
    access
        .symlink_metadata(from)
        .map_err(|e| ToolError::from_io(&e, "move", &from.shown))?;
    check_not_read_only(access, from, "move")?;
    if !overwrite && access.symlink_metadata(to).is_ok() {
        return Err(ToolError::new(
            ErrorKind::AlreadyExists,
            format!(
                "{} exists; pass overwrite: true to replace it, or move to another name",
                to.shown
            ),
        ));
    }
    let folders = access
        .create_parents(to)
        .map_err(|e| ToolError::from_io(&e, "create the folders of", &to.shown))?;
    access
        .rename(from, to, overwrite)
        .map_err(|e| ToolError::from_io(&e, "move", &from.shown))?;
    folders.keep();
    Ok(format!("moved {} → {}\n", from.shown, to.shown))
}

pub(super) fn delete(
    native: &Native,
    access: &Access,
    target: &Resolved,
    recursive: bool,
    ctx: &CallContext,
) -> Result<String> {
    let _ = (native, ctx);
    check_not_read_only(access, target, "delete")?;
    if !access.remove(target, recursive)? {
        return Err(ToolError::not_found(format!(
            "{} does not exist; nothing was deleted",
            target.shown
        )));
    }
    Ok(format!("deleted {}\n", target.shown))
}

pub(super) fn undo(
    native: &Native,
    access: &Access,
    steps: usize,
    ctx: &CallContext,
) -> Result<String> {
    let _ = (native, access, ctx);
    Err(ToolError::invalid(format!(
        "there are no recorded steps to undo (asked for {steps})"
    )))
}
