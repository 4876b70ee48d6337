//! update-file: line operations and regex replacements per file (the engine is
//! `ops::update`), each file read, edited and written atomically on its own.
//!
//! A file that starts with a UTF-16 or UTF-32 byte-order mark is edited as the decoded text
//! read-file returns (lines ended by `\n`, numbered as read-file numbers them) and written back
//! by the encoding engine in its own encoding, with its BOM and line endings; every other file
//! is edited byte for byte.
//!
//! Line numbers come from a read, so a line op is applied only to the file that read showed:
//! when this session read or wrote the file and it changed since, the entry is refused (C210)
//! before anything is written, naming what the lines hold now (the stale-write rule of
//! [`crate::session`]); a file the session never read takes the numbers as they are, as the
//! worker's document says. Each op's `expect_text` guards its lines either way.
//!
//! An entry whose write lost a clean conflict (another writer saved the file between this
//! entry's read and its write, and nothing was written) is redone from a fresh read, like every
//! other profile's edits, up to the workspace's conflict retries; only an entry that keeps losing
//! reports the conflict (C210, saying it is a conflict).

use std::io;

use super::wire::{OpEcho, UpdateFileInput, UpdateFileOutput, UpdateFileResult, UpdateOp};
use super::{Ctx, canonical, wire_error};
use crate::access::WriteOptions;
use crate::error::{ErrorKind, Result, ToolError};
use crate::ops::update::{self, Op};
use crate::session::{Base, FileRef, Stale};
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
                let file = FileRef::in_folder(ctx.access, &target, base.as_ref());
                retrying(ctx, &target.shown, || edit(ctx, &file, &ops))
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

/// Runs `work`, one entry's read, edit and write, again from the start while it loses a clean
/// conflict (its write refused before anything was written because the file changed after it
/// was read), with the workspace's pause between attempts; an entry that keeps losing reports
/// the conflict as such.
pub(super) fn retrying<T>(
    ctx: &Ctx<'_>,
    shown: &str,
    mut work: impl FnMut() -> Result<T>,
) -> Result<T> {
    let mut attempt = 0;
    loop {
        attempt += 1;
        match work() {
            Err(e) if e.kind == ErrorKind::Conflict => {
                if attempt >= crate::CONFLICT_RETRIES || ctx.call.is_cancelled() {
                    return Err(ToolError::new(
                        ErrorKind::Conflict,
                        format!(
                            "conflict: {shown} was changed by another writer between this \
                             entry's read and its write every time it was run ({attempt} \
                             attempts, compared by content), so nothing was written to it. This \
                             is a conflict, not an I/O error: read it again with read-file and \
                             redo the change on what it holds now"
                        ),
                    ));
                }
                crate::pause_after_conflict(attempt);
            }
            other => return other,
        }
    }
}

fn to_op(op: &UpdateOp) -> Op {
    match op.clone() {
        UpdateOp::Insert {
            at_line,
            content,
            expect_text,
        } => Op::Insert {
            at_line: at_line.into(),
            content,
            expect_text,
        },
        UpdateOp::Remove {
            expect_text,
            from_line,
            to_line,
        } => Op::Remove {
            from_line: from_line.into(),
            to_line: to_line.into(),
            expect_text,
        },
        UpdateOp::UpdateLines {
            content,
            expect_text,
            from_line,
            to_line,
        } => Op::UpdateLines {
            from_line: from_line.into(),
            to_line: to_line.into(),
            content,
            expect_text,
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

fn edit(ctx: &Ctx<'_>, file: &FileRef<'_>, ops: &[Op]) -> Result<update::Applied> {
    let target = file.target();
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
    let session = ctx.call.session();
    // A UTF-16 or UTF-32 file is edited as its decoded text (as read-file shows it).
    let decoded = encoding::wide_bom(&bytes).map(|_| encoding::decode(&bytes, None));
    let text_now: &[u8] = decoded.as_ref().map_or(&bytes, |d| d.text.as_bytes());
    if let Some(session) = session
        && ops.iter().any(Op::is_line_op)
    {
        session
            .judge(file, &bytes)
            .map_err(|stale| stale_error(&stale, text_now, ops))?;
    }
    let applied = match &decoded {
        Some(decoded) => {
            let mut applied = update::apply(decoded.text.as_bytes(), ops)?;
            let text = String::from_utf8(std::mem::take(&mut applied.bytes)).map_err(|_| {
                ToolError::invalid(format!(
                    "the edited text of {shown} is not valid UTF-8, so it cannot be written back \
                     as {}; nothing was written",
                    decoded.format.encoding
                ))
            })?;
            applied.bytes = encoding::rewrite(&bytes, decoded, &text)?;
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
        if let Some(session) = session {
            session.wrote(file, Base::Bytes(&bytes), Some(&applied.bytes));
        }
    }
    Ok(applied)
}

/// The refusal of line ops on a file that changed since this session last read or wrote it.
fn stale_error(stale: &Stale, now: &[u8], ops: &[Op]) -> ToolError {
    let mut text = format!(
        "{}, so the line numbers of these ops may point at other lines now; nothing was \
         written. The lines they name hold now:\n{}",
        stale.summary(),
        update::lines_now(now, ops)
    );
    if let Some(changes) = &stale.changes {
        text.push('\n');
        text.push_str(changes);
    }
    text.push_str(
        "\nRead it again with read-file (numbered: true) and redo the ops with the line numbers \
         it shows; expect_text on a line op guards the lines it names.",
    );
    ToolError::invalid(text)
}
