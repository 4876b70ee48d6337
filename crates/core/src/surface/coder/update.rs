//! update-file: line operations and regex replacements per file (the engine is
//! `ops::update`), each file read, edited and written atomically on its own.
//!
//! A file that starts with a UTF-16 or UTF-32 byte-order mark is edited as the decoded text
//! read-file returns (lines ended by `\n`, numbered as read-file numbers them) and written back
//! by the encoding engine in its own encoding, with its BOM and line endings; every other file
//! is edited byte for byte.

use std::io;

use super::wire::{OpEcho, UpdateFileInput, UpdateFileOutput, UpdateFileResult, UpdateOp};
use super::{Ctx, canonical, wire_error};
use crate::access::{Resolved, WriteOptions};
use crate::error::{ErrorKind, Result, ToolError};
use crate::ops::update::{self, Op};
use crate::text::encoding;

pub(super) fn call(ctx: &Ctx<'_>, input: UpdateFileInput) -> Result<UpdateFileOutput> {
    let base = ctx.base(input.base_dir.as_deref())?;
    let results = input
        .files
        .iter()
        .map(|spec| {
            let mut result = UpdateFileResult {
                path: spec.path.clone(),
                ..Default::default()
            };
            let ops: Vec<Op> = spec.ops.iter().map(to_op).collect();
            let outcome = ctx.resolve(&spec.path, base.as_ref()).and_then(|target| {
                result.path = canonical(&target);
                edit(ctx, &target, &ops)
            });
            match outcome {
                Ok(applied) => {
                    result.success = true;
                    result.applied = applied.applied;
                    result.new_line_count = applied.new_line_count;
                    result.echoes_truncated = applied.echoes_truncated;
                    result.echoes = applied
                        .echoes
                        .into_iter()
                        .map(|e| OpEcho {
                            elided: e.elided,
                            from_line: e.from_line,
                            lines: e.lines,
                            op_index: e.op_index,
                            total_replacements: e.total_replacements,
                        })
                        .collect();
                }
                Err(err) => result.error = Some(wire_error(&err)),
            }
            result
        })
        .collect();
    Ok(UpdateFileOutput { results })
}

fn to_op(op: &UpdateOp) -> Op {
    match op.clone() {
        UpdateOp::Insert { at_line, content } => Op::Insert {
            at_line: at_line.into(),
            content,
        },
        UpdateOp::Remove { from_line, to_line } => Op::Remove {
            from_line: from_line.into(),
            to_line: to_line.into(),
        },
        UpdateOp::UpdateLines {
            content,
            from_line,
            to_line,
        } => Op::UpdateLines {
            from_line: from_line.into(),
            to_line: to_line.into(),
            content,
        },
        UpdateOp::Replace {
            dot_matches_newline,
            expect_matches,
            ignore_case,
            pattern,
            replacement,
        } => Op::Replace {
            pattern,
            replacement,
            ignore_case,
            dot_matches_newline,
            expect_matches,
        },
    }
}

fn edit(ctx: &Ctx<'_>, target: &Resolved, ops: &[Op]) -> Result<update::Applied> {
    let shown = &target.shown;
    let meta = ctx.access.metadata(target).map_err(|e| match e.kind() {
        io::ErrorKind::NotFound => ToolError::not_found(format!(
            "{shown} does not exist; create it with create-file, or check the path with \
             list-folder"
        )),
        _ => ToolError::from_io(&e, "read", shown),
    })?;
    if meta.len > ctx.limits.max_read_bytes {
        return Err(ToolError::new(
            ErrorKind::TooLarge,
            format!(
                "{shown} is {} bytes, over max_read_bytes ({}), so it cannot be edited here",
                meta.len, ctx.limits.max_read_bytes
            ),
        ));
    }
    let (bytes, read) = ctx.access.read_all(target).map_err(|e| match e.kind() {
        io::ErrorKind::IsADirectory => {
            ToolError::invalid(format!("{shown} is a directory; update-file edits files"))
        }
        _ => ToolError::from_io(&e, "read", shown),
    })?;
    let applied = match encoding::wide_bom(&bytes) {
        Some(_) => {
            let decoded = encoding::decode(&bytes, None);
            let mut applied = update::apply(decoded.text.as_bytes(), ops)?;
            let text = String::from_utf8(std::mem::take(&mut applied.bytes)).map_err(|_| {
                ToolError::invalid(format!(
                    "the edited text of {shown} is not valid UTF-8, so it cannot be written back \
                     as {}; nothing was written",
                    decoded.format.encoding
                ))
            })?;
            applied.bytes = encoding::rewrite(&bytes, &decoded, &text)?;
            applied
        }
        None => update::apply(&bytes, ops)?,
    };
    if applied.bytes.len() as u64 > ctx.limits.max_write_bytes {
        return Err(ToolError::new(
            ErrorKind::TooLarge,
            format!(
                "the edited {shown} would be {} bytes, over max_write_bytes ({}); nothing was \
                 written",
                applied.bytes.len(),
                ctx.limits.max_write_bytes
            ),
        ));
    }
    if applied.bytes != bytes {
        let options = WriteOptions {
            create_parents: false,
            ..WriteOptions::default()
        }
        .expecting_read(&bytes, &read);
        ctx.access
            .write_atomic(target, &applied.bytes, options)
            .map_err(|e| ToolError::from_io(&e, "write", shown))?;
    }
    Ok(applied)
}
