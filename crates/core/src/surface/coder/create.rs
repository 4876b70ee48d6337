//! create-file: write new files (or replace existing ones when asked), each on its own.
//!
//! `overwrite: true` follows the stale-write rule ([`crate::session`]): a file this session read
//! or wrote is replaced only while it holds what the session last saw; otherwise the entry fails
//! with C210 naming what changed, and nothing is written. A file the session never saw is
//! replaced as the worker's document says.

use std::io;

use super::wire::{CreateFileInput, CreateFileOutput, CreateFileResult, CreateFileSpec};
use super::{Ctx, canonical, wire_error};
use crate::access::WriteOptions;
use crate::error::{ErrorKind, Result, ToolError};
use crate::session::{Base, FileRef, Stale};

pub(super) fn call(ctx: &Ctx<'_>, input: CreateFileInput) -> Result<CreateFileOutput> {
    let base = ctx.base(input.base_dir.as_deref())?;
    let results = input
        .files
        .iter()
        .map(|spec| {
            let mut result = CreateFileResult {
                path: spec.path.clone(),
                ..Default::default()
            };
            let outcome = ctx.resolve(&spec.path, base.as_ref()).and_then(|target| {
                result.path = canonical(&target);
                let file = FileRef::in_folder(ctx.access, &target, base.as_ref());
                super::update::retrying(ctx, &spec.path, || create(ctx, &file, spec))
            });
            match outcome {
                Ok(written) => {
                    result.bytes_written = written;
                    result.success = true;
                }
                Err(err) => result.error = Some(wire_error(&err)),
            }
            result
        })
        .collect();
    Ok(CreateFileOutput { results })
}

fn create(ctx: &Ctx<'_>, file: &FileRef<'_>, spec: &CreateFileSpec) -> Result<u64> {
    let target = file.target();
    // Left out, the mode is 0644 for a new file; a replaced file keeps its own.
    let mode = match spec.mode.as_deref() {
        Some(text) => Some(parse_mode(text)?),
        None if ctx.access.metadata(target).is_err() => Some(0o644),
        None => None,
    };
    let len = spec.content.len() as u64;
    if len > ctx.limits.max_write_bytes {
        return Err(ToolError::new(
            ErrorKind::TooLarge,
            format!(
                "content for {} is {len} bytes, over max_write_bytes ({}); write a smaller file \
                 or split it",
                spec.path, ctx.limits.max_write_bytes
            ),
        ));
    }
    if ctx.access.is_root(target) {
        return Err(ToolError::invalid(format!(
            "{} is an allowed root, a directory; pass a file path inside it",
            spec.path
        )));
    }
    let session = ctx.call.session();
    let current = match session {
        Some(session) if spec.overwrite => session
            .check(file)
            .map_err(|stale| stale_error(&stale, &spec.path))?,
        _ => None,
    };
    let options = WriteOptions {
        create_parents: spec.parents,
        create_new: !spec.overwrite,
        exact_mode: mode,
        ..WriteOptions::default()
    };
    let options = match &current {
        Some(current) => current.guard(options),
        None => options,
    };
    ctx.access
        .write_atomic(target, spec.content.as_bytes(), options)
        .map_err(|e| match e.kind() {
            io::ErrorKind::AlreadyExists => ToolError::new(
                ErrorKind::AlreadyExists,
                format!(
                    "{} already exists; pass overwrite: true to replace it, or choose another path",
                    spec.path
                ),
            ),
            io::ErrorKind::NotFound if !spec.parents => ToolError::not_found(format!(
                "the parent directory of {} does not exist; pass parents: true to create it",
                spec.path
            )),
            io::ErrorKind::IsADirectory => {
                ToolError::invalid(format!("{} is a directory; pass a file path", spec.path))
            }
            _ => ToolError::from_io(&e, "write", &spec.path),
        })?;
    if let Some(session) = session {
        session.wrote(file, Base::Checked, Some(spec.content.as_bytes()));
    }
    Ok(len)
}

/// The refusal of an overwrite of a file that changed (or went) since this session saw it.
fn stale_error(stale: &Stale, path: &str) -> ToolError {
    let text = if stale.is_deleted() {
        stale.explain(
            "create-file did not create it again",
            &format!(
                "If it should exist again, call create-file once more for {path}: the next call \
                 creates it."
            ),
        )
    } else {
        stale.explain(
            "create-file did not replace it",
            "Read it again with read-file, then make your change with update-file, or call \
             create-file with overwrite: true and the whole content based on what it holds now.",
        )
    };
    ToolError::invalid(text)
}

/// Parses octal permission text such as "0644" or "755".
fn parse_mode(text: &str) -> Result<u32> {
    let digits = text.trim().trim_start_matches("0o");
    match u32::from_str_radix(digits, 8) {
        Ok(mode) if !digits.is_empty() && mode <= 0o7777 => Ok(mode),
        _ => Err(ToolError::invalid(format!(
            "mode {text:?} is not octal permission bits; pass a string such as \"0644\" or \"0755\""
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::parse_mode;

    #[test]
    fn modes_are_octal_text() {
        assert_eq!(parse_mode("0644").unwrap(), 0o644);
        assert_eq!(parse_mode("755").unwrap(), 0o755);
        assert!(parse_mode("0999").is_err());
        assert!(parse_mode("rw-r--r--").is_err());
        assert!(parse_mode("").is_err());
    }
}
