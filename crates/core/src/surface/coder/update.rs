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
use crate::ops::update::{self, LinesNow, Op, UpdateError, plural, span};
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
            let mut applied = update::apply(decoded.text.as_bytes(), ops).map_err(refusal)?;
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
        None => update::apply(&bytes, ops).map_err(refusal)?,
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

/// The refusal of an update-file's ops, in coder's words: the refusals that need a fresh look
/// at the file send the model to read-file with numbered: true.
pub fn refusal(err: UpdateError) -> ToolError {
    match err {
        UpdateError::InsertPastEnd {
            index,
            at_line,
            total,
        } => {
            let append = total + 1;
            ToolError::invalid(format!(
                "ops[{index}] (insert): at_line {at_line} is past the end of the file, which has \
                 {}; at_line must be 1 to {append} (at_line: {append} appends); read the file \
                 with numbered: true to find the line",
                plural(total, "line")
            ))
        }
        UpdateError::FromPastEnd {
            index,
            op,
            from_line,
            total,
        } => ToolError::invalid(format!(
            "ops[{index}] ({op}): from_line {from_line} is past the end of the file, which has \
             {}; line numbers go from 1 to {total}; read the file with numbered: true to find \
             the lines",
            plural(total, "line")
        )),
        UpdateError::ExpectedDiffers { index, op, now } => {
            let (what, now) = match now {
                LinesNow::Appends { at_line } => (
                    format!(
                        "at_line {at_line} appends after the last line, where there is no line, \
                         so expect_text must be empty"
                    ),
                    String::new(),
                ),
                LinesNow::Lines {
                    first,
                    last,
                    insert,
                    shown,
                } => {
                    let place = match insert {
                        Some(n) => format!("the {} from line {first} on", plural(n, "line")),
                        None => span(first, last),
                    };
                    (
                        format!(
                            "expect_text does not match {place}, which hold{} now:",
                            if shown.len() == 1 { "s" } else { "" }
                        ),
                        format!("\n{}", shown.join("\n")),
                    )
                }
            };
            ToolError::invalid(format!(
                "ops[{index}] ({op}): {what}{now}\nNothing was written. The file changed since \
                 the text was read, or the numbers are off: read it again with numbered: true \
                 and redo the ops from the lines it shows"
            ))
        }
        UpdateError::Mismatch {
            index,
            pattern,
            count,
            expect,
            lines,
            more,
        } => {
            let times = plural(count, "time");
            let at = if lines.is_empty() {
                String::new()
            } else {
                let listed: Vec<String> = lines.iter().map(ToString::to_string).collect();
                let more = if more { " and more" } else { "" };
                let at = if lines.len() == 1 { "line" } else { "lines" };
                format!(
                    " (at {at} {}{more}, numbered after this call's line ops and earlier \
                     replaces)",
                    listed.join(", ")
                )
            };
            let fix = if count == 0 {
                "The pattern matches nothing: re-read the lines (read-file with numbered: true) \
                 and fix the pattern; a pattern spanning lines needs dot_matches_newline: true \
                 (join two short anchors with .*?), and CRLF files need \\r?\\n between lines"
                    .to_string()
            } else if expect == 0 {
                "With expect_matches: 0 the text must be absent, and it is present; drop the \
                 guard or set it to the count to replace every match"
                    .to_string()
            } else if count > expect {
                format!(
                    "Anchor the pattern more tightly (add surrounding text) so it matches exactly \
                     {expect}, or set expect_matches: {count} to replace all of them"
                )
            } else {
                format!(
                    "Loosen the pattern, or set expect_matches: {count} if {count} is right; \
                     re-read the lines (read-file with numbered: true) to check"
                )
            };
            ToolError::invalid(format!(
                "ops[{index}] (replace): pattern {pattern} matched {times}{at}, but \
                 expect_matches is {expect}; nothing was written. {fix}"
            ))
        }
        UpdateError::Invalid(e) => e,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// The refusal of `ops` on `input`, in coder's words.
    fn refused(input: &str, ops: serde_json::Value) -> String {
        let ops: Vec<Op> = serde_json::from_value(ops).unwrap();
        refusal(update::apply(input.as_bytes(), &ops).unwrap_err()).message
    }

    #[test]
    fn line_numbers_past_the_end_send_the_model_to_a_numbered_read() {
        assert_eq!(
            refused(
                "a\nb\n",
                json!([{"op": "insert", "at_line": 4, "content": "c"}])
            ),
            "ops[0] (insert): at_line 4 is past the end of the file, which has 2 lines; at_line \
             must be 1 to 3 (at_line: 3 appends); read the file with numbered: true to find the \
             line"
        );
        assert!(
            refused("", json!([{"op": "insert", "at_line": 2, "content": "x"}]))
                .contains("which has 0 lines; at_line must be 1 to 1")
        );
        assert!(
            refused("x", json!([{"op": "insert", "at_line": 3, "content": "x"}]))
                .contains("which has 1 line; at_line must be 1 to 2")
        );
        assert_eq!(
            refused(
                "a\nb\nc\n",
                json!([{"op": "remove", "from_line": 5, "to_line": 6}])
            ),
            "ops[0] (remove): from_line 5 is past the end of the file, which has 3 lines; line \
             numbers go from 1 to 3; read the file with numbered: true to find the lines"
        );
        let max = u64::MAX;
        assert!(
            refused(
                "a\n",
                json!([{"op": "insert", "at_line": max, "content": "x"}])
            )
            .contains(&format!("at_line {max} is past the end"))
        );
        assert!(
            refused(
                "a\n",
                json!([{"op": "update_lines", "from_line": max, "to_line": max, "content": "x"}])
            )
            .contains(&format!("from_line {max} is past the end"))
        );
    }

    #[test]
    fn an_expect_matches_refusal_names_the_count_the_lines_and_the_fix() {
        let f = "a\nb\na\n";
        let op = |pattern: &str, expect: u64| json!([{"op": "replace", "pattern": pattern, "replacement": "q", "expect_matches": expect}]);
        assert_eq!(
            refused(f, op("b", 0)),
            "ops[0] (replace): pattern \"b\" matched 1 time (at line 2, numbered after this \
             call's line ops and earlier replaces), but expect_matches is 0; nothing was \
             written. With expect_matches: 0 the text must be absent, and it is present; drop \
             the guard or set it to the count to replace every match"
        );
        assert_eq!(
            refused(f, op("a", 1)),
            "ops[0] (replace): pattern \"a\" matched 2 times (at lines 1, 3, numbered after this \
             call's line ops and earlier replaces), but expect_matches is 1; nothing was \
             written. Anchor the pattern more tightly (add surrounding text) so it matches \
             exactly 1, or set expect_matches: 2 to replace all of them"
        );
        let msg = refused(f, op("zzz", 1));
        assert!(
            msg.starts_with(
                "ops[0] (replace): pattern \"zzz\" matched 0 times, but expect_matches is 1; \
                 nothing was written. The pattern matches nothing:"
            ),
            "{msg}"
        );
        let msg = refused(f, op("a", 3));
        assert!(
            msg.contains("Loosen the pattern, or set expect_matches: 2"),
            "{msg}"
        );
        let pattern = format!("{}zzz", "a".repeat(90));
        let msg = refused("a\n", op(&pattern, 1));
        let quoted = format!(
            "pattern \"{}\"… (13 more characters) matched 0 times",
            "a".repeat(80)
        );
        assert!(msg.contains(&quoted), "{msg}");
    }
}
