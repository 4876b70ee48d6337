//! move: rename within a root (atomic), or copy then remove across roots (files only), each
//! entry on its own.

use std::io;
use std::path::Path;

use super::wire::{MoveFileInput, MoveFileOutput, MoveFileResult, MoveFileSpec};
use super::{Ctx, canonical, wire_error};
use crate::access::{NewFolders, Resolved};
use crate::error::{ErrorKind, Result, ToolError};
use crate::session::FileRef;

pub(super) fn call(ctx: &Ctx<'_>, input: MoveFileInput) -> Result<MoveFileOutput> {
    let base = ctx.base(input.base_dir.as_deref())?;
    let results = input
        .files
        .iter()
        .map(|spec| {
            let mut result = MoveFileResult {
                from: spec.from.clone(),
                to: spec.to.clone(),
                ..Default::default()
            };
            match move_one(ctx, base.as_ref(), spec, &mut result) {
                Ok(moved) => {
                    if let (true, Some(session)) = (moved, ctx.call.session()) {
                        // What the session saw at the source is at the destination now.
                        let from = ctx.access.resolve_entry(&spec.from, base.as_ref());
                        let to = ctx.access.resolve_entry(&spec.to, base.as_ref());
                        if let (Ok(from), Ok(to)) = (from, to) {
                            let from = FileRef::in_folder(ctx.access, &from, base.as_ref());
                            session
                                .moved(&from, &FileRef::in_folder(ctx.access, &to, base.as_ref()));
                        }
                    }
                    result.moved = moved;
                    result.success = true;
                }
                Err(err) => result.error = Some(wire_error(&err)),
            }
            result
        })
        .collect();
    Ok(MoveFileOutput { results })
}

/// Moves one entry; `Ok(false)` for a move onto itself.
fn move_one(
    ctx: &Ctx<'_>,
    base: Option<&Resolved>,
    spec: &MoveFileSpec,
    result: &mut MoveFileResult,
) -> Result<bool> {
    let access = ctx.access;
    let from = access.resolve_entry(&spec.from, base)?;
    result.from = canonical(&from);
    let to = access.resolve_entry(&spec.to, base)?;
    result.to = canonical(&to);
    if access.is_root(&from) {
        return Err(ToolError::invalid(format!(
            "{} is an allowed root; a root cannot be moved — move the entries inside it",
            spec.from
        )));
    }
    let from_meta = match access.symlink_metadata(&from) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Err(ToolError::not_found(format!(
                "{} does not exist, so there is nothing to move; list its folder with list-folder",
                spec.from
            )));
        }
        Err(e) => return Err(ToolError::from_io(&e, "read", &spec.from)),
    };
    if from.path == to.path {
        return Ok(false);
    }
    if access.is_root(&to) || access.metadata(&to).is_ok_and(|m| m.is_dir) {
        let name = crate::text::names::show_name(from.path.file_name().unwrap_or_default());
        let corrected = Path::new(&spec.to).join(name.as_ref());
        return Err(ToolError::invalid(format!(
            "the destination {} is a directory; to move {} into it, pass to: {:?}",
            spec.to,
            spec.from,
            corrected.to_string_lossy()
        )));
    }
    if from_meta.is_dir
        && let Some(secret) = access.find_secret(&from)?
    {
        return Err(ToolError::new(
            ErrorKind::NotAccessible,
            format!(
                "{} holds {}, which matches the non-accessible patterns, so it is not moved; move \
                 the other entries one by one",
                spec.from,
                secret.display()
            ),
        ));
    }
    let exists = access.symlink_metadata(&to).is_ok();
    if exists && !spec.overwrite {
        return Err(already_exists(spec));
    }
    let same_root = matches!((from.inside(), to.inside()), (Some((a, _)), Some((b, _))) if a == b)
        || from.inside().is_none();
    if from_meta.is_dir && to.path.starts_with(&from.path) {
        return Err(ToolError::invalid(format!(
            "{} cannot be moved into itself ({}); choose a destination outside it",
            spec.from, spec.to
        )));
    }
    if !same_root && from_meta.is_dir {
        return Err(ToolError::invalid(format!(
            "{} is a directory and {} is in another allowed root; directories do not move across \
             roots — move its files one by one",
            spec.from, spec.to
        )));
    }
    if !same_root && !from_meta.is_file {
        return Err(ToolError::invalid(format!(
            "{} is not a regular file (a link or device), which does not move across roots",
            spec.from
        )));
    }
    // Only now, with every refusal decided, may the destination's folders be created; a
    // failed move removes them again when `_made` goes.
    let _made = ensure_parent(ctx, base, &to, spec)?;
    if same_root {
        return access
            .rename(&from, &to, spec.overwrite)
            .map(|()| true)
            .map_err(|e| match e.kind() {
                io::ErrorKind::AlreadyExists => already_exists(spec),
                io::ErrorKind::InvalidInput => ToolError::invalid(format!(
                    "{} cannot be moved into itself ({}); choose a destination outside it",
                    spec.from, spec.to
                )),
                io::ErrorKind::DirectoryNotEmpty | io::ErrorKind::IsADirectory => {
                    ToolError::invalid(format!(
                        "{} is a directory that cannot replace {}; choose another destination",
                        spec.from, spec.to
                    ))
                }
                _ => ToolError::from_io(&e, "move", &spec.from),
            });
    }
    access
        .copy_file(&from, &to, spec.overwrite)
        .map_err(|e| match e.kind() {
            io::ErrorKind::AlreadyExists => already_exists(spec),
            _ => ToolError::from_io(&e, "copy", &spec.from),
        })?;
    if let Err(removing) = access.remove(&from, false) {
        // Put things back: the copy goes, the source stays.
        return Err(match access.remove(&to, false) {
            Ok(_) => ToolError::new(
                ErrorKind::Io,
                format!(
                    "{} was copied to {} but could not be removed ({}); the copy was removed \
                     again, so both are as before",
                    spec.from, spec.to, removing.message
                ),
            ),
            Err(rollback) => ToolError::new(
                ErrorKind::Io,
                format!(
                    "{} was copied to {} but could not be removed ({}), and removing the copy \
                     failed too ({}): both files now exist — delete one by hand",
                    spec.from, spec.to, removing.message, rollback.message
                ),
            ),
        });
    }
    Ok(true)
}

fn already_exists(spec: &MoveFileSpec) -> ToolError {
    ToolError::new(
        ErrorKind::AlreadyExists,
        format!(
            "the destination {} already exists; pass overwrite: true to replace it, or choose \
             another destination",
            spec.to
        ),
    )
}

/// Creates the destination's parent when allowed; a missing parent is C211 otherwise.
fn ensure_parent<'a>(
    ctx: &Ctx<'a>,
    base: Option<&Resolved>,
    to: &Resolved,
    spec: &MoveFileSpec,
) -> Result<NewFolders<'a>> {
    let Some(parent) = to.path.parent() else {
        return Ok(NewFolders::none());
    };
    let parent = ctx.resolve(&crate::text::names::show_path(parent), base)?;
    if ctx.access.metadata(&parent).is_ok_and(|m| m.is_dir) {
        return Ok(NewFolders::none());
    }
    if !spec.parents {
        return Err(ToolError::not_found(format!(
            "the destination folder of {} does not exist; pass parents: true to create it",
            spec.to
        )));
    }
    ctx.access
        .create_parents(to)
        .map_err(|e| ToolError::from_io(&e, "create the folder for", &spec.to))
}
