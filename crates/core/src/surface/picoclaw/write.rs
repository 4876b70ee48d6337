//! write_file and append_file.
//!
//! write_file never clobbers silently: a new path is created; content identical to the file is
//! `unchanged` (nothing written, the comparison is the verification); content the file is a
//! prefix of is `appended` (only the suffix is written, in place); anything else needs
//! `overwrite: true` (`overwritten`, an atomic replacement), and without it the call fails with
//! the structured `file_exists` payload. Every write is verified by reading the file back
//! through a fixed 32 KiB buffer (an append only from the old end on), and the advisory syntax
//! check of [`crate::ops::syntax`] runs on the full resulting content.
//!
//! append_file appends in place (`O_APPEND`, then fsync): the file keeps its mode and inode, a
//! symbolic link is followed to its target, and a missing file (and its parents) is created.
//!
//! The stale-write rule ([`crate::session`]): an overwrite of a file this session read or
//! wrote happens only while the file holds what the session last saw; otherwise write_file
//! fails with the structured `file_changed` payload (or `file_deleted`), naming what changed
//! and the call to make next. A file the session never saw is written as above.
//!
//! Both first map `[FILTERED]` copied from a redacted read back to the value it hides in the
//! existing file ([`restore`]): writing back a read, one line changed, keeps every hidden value
//! (and is then `unchanged`, `appended` or an overwrite with the real values); a placeholder
//! that cannot be mapped where it would replace a hidden value refuses the call before anything
//! is written.

use std::borrow::Cow;
use std::io::{self, Read, Seek, SeekFrom};

use serde_json::{Map, Value, json};

use super::super::args::Args;
use super::super::{Content, ToolOutput};
use super::policy::{Op, Target};
use super::{Call, unmapped, write_failed};
use crate::access::{Access, NewFolders, Resolved, WriteOptions};
use crate::error::{Result, ToolError};
use crate::ops::syntax::{self, Syntax};
use crate::session::{Base, FileRef, Stale};
use crate::text::encoding::{self, TextFormat};
use crate::text::redact::FILTERED;
use crate::text::restore;

/// The read-back buffer.
const VERIFY_BUFFER: usize = 32 * 1024;

pub(super) fn write_file(call: &Call<'_>, args: Value) -> Result<ToolOutput> {
    let overwrite = flag(&args, "write_file", "overwrite")?;
    let args = Args::parse("write_file", args, &["path", "content", "overwrite"])?;
    let raw = args.str("path")?;
    let content = args.str("content")?;
    let target = call.pico.policy.locate(call.ws, raw, Op::Write)?;
    let resolved_path = target.resolved.path.to_string_lossy().into_owned();
    let existing = match target.access.metadata(&target.resolved) {
        Ok(meta) if meta.is_dir => {
            return Err(ToolError::invalid(format!(
                "{raw} is a directory, so it cannot be written as a file; pass a file path"
            )));
        }
        Ok(meta) => Some(meta.len),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(ToolError::from_io(&e, "write", raw)),
    };
    let io_err = |e: io::Error| ToolError::from_io(&e, "write", raw);
    let content: Cow<'_, str> = match existing {
        Some(_) if content.contains(FILTERED) => {
            let (old, _) = target.access.read_all(&target.resolved).map_err(io_err)?;
            restore::restore(&String::from_utf8_lossy(&old), content)
                .map_err(|u| unmapped(&u, "the content"))?
        }
        _ => Cow::Borrowed(content),
    };
    let content = content.as_bytes();
    let file = FileRef::new(&target.access, &target.resolved);
    let session = call.ctx.session();
    // What was written, and where in the file it starts.
    let (action, written, offset): (&str, &[u8], u64) = match existing {
        None => {
            let options = WriteOptions {
                create_new: true,
                ..WriteOptions::default()
            };
            match target
                .access
                .write_atomic(&target.resolved, content, options)
            {
                Ok(_) => ("created", content, 0),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                    return Err(ToolError::invalid(format!(
                        "{raw} appeared while it was being created; call write_file again"
                    )));
                }
                Err(e) => return Err(write_failed(e, &target.resolved)),
            }
        }
        Some(existing_len) => {
            match relation(&target.access, &target.resolved, content).map_err(io_err)? {
                Relation::Equal => {
                    if let Some(session) = session {
                        session.wrote(&file, Base::Checked, Some(content));
                    }
                    return Ok(success("unchanged", &resolved_path, 0, &target, content));
                }
                Relation::Prefix(old_len) => {
                    let suffix = &content[usize::try_from(old_len).unwrap_or(0)..];
                    let old =
                        append_bytes(&target.access, &target.resolved, suffix).map_err(io_err)?;
                    if old != old_len {
                        // Someone else wrote in between: the file is not the content given.
                        if let Some(session) = session {
                            session.forget(&file);
                        }
                    }
                    ("appended", suffix, old)
                }
                Relation::Differs if overwrite => {
                    let current = match session {
                        Some(session) => match session.check(&file) {
                            Ok(current) => current,
                            Err(stale) => {
                                return Ok(file_changed(
                                    call,
                                    raw,
                                    &resolved_path,
                                    &stale,
                                    content.len(),
                                ));
                            }
                        },
                        None => None,
                    };
                    let options = match &current {
                        Some(current) => current.guard(WriteOptions::default()),
                        None => WriteOptions::default(),
                    };
                    target
                        .access
                        .write_atomic(&target.resolved, content, options)
                        .map_err(|e| write_failed(e, &target.resolved))?;
                    ("overwritten", content, 0)
                }
                Relation::Differs => {
                    return Ok(file_exists(
                        call,
                        raw,
                        &resolved_path,
                        existing_len,
                        content.len(),
                    ));
                }
            }
        }
    };
    let bytes_written = written.len();
    if let Err((code, message, detail)) = verify(&target.access, &target.resolved, offset, written)
    {
        let mut out = Map::new();
        out.insert("success".into(), json!(false));
        out.insert("action".into(), json!(action));
        out.insert("resolved_path".into(), json!(resolved_path));
        out.insert("bytes_written".into(), json!(bytes_written));
        out.insert("verified".into(), json!(false));
        out.insert("error".into(), json!(code));
        out.insert(
            "message".into(),
            json!(format!(
                "{message}; the file may still be on disk, so inspect it with read_file before \
                 retrying"
            )),
        );
        if let Some(detail) = detail {
            out.insert("detail".into(), json!(detail));
        }
        return Ok(ToolOutput::json(Value::Object(out), true));
    }
    if let Some(session) = session
        && (action != "appended" || offset + written.len() as u64 == content.len() as u64)
    {
        // The file now holds exactly the content given, which the model wrote whole.
        session.wrote(&file, Base::Checked, Some(content));
    }
    Ok(success(
        action,
        &resolved_path,
        bytes_written,
        &target,
        content,
    ))
}

/// A boolean argument: `true`/`false`, or the strings "true"/"false"; absent or null is false.
fn flag(args: &Value, tool: &str, key: &str) -> Result<bool> {
    match args.get(key) {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(Value::String(s)) if s.eq_ignore_ascii_case("true") => Ok(true),
        Some(Value::String(s)) if s.eq_ignore_ascii_case("false") => Ok(false),
        Some(other) => Err(ToolError::invalid(format!(
            "{key} of {tool} must be true or false, not {other}"
        ))),
    }
}

fn success(
    action: &str,
    resolved_path: &str,
    bytes_written: usize,
    located: &Target<'_>,
    content: &[u8],
) -> ToolOutput {
    let target = &located.resolved;
    let mut out = Map::new();
    out.insert("success".into(), json!(true));
    out.insert("action".into(), json!(action));
    out.insert("resolved_path".into(), json!(resolved_path));
    if located.access.through_link(target).is_some() {
        let written = located.access.written_name(target);
        out.insert("written".into(), json!(written));
    }
    out.insert("bytes_written".into(), json!(bytes_written));
    out.insert("verified".into(), json!(true));
    match syntax::check(&target.path, content) {
        Some(Syntax::Ok) => {
            out.insert("syntax".into(), json!("ok"));
        }
        Some(Syntax::Error(message)) => {
            out.insert("syntax".into(), json!("error"));
            out.insert("syntax_error".into(), json!(message));
        }
        Some(Syntax::Skipped) | None => {}
    }
    ToolOutput::json(Value::Object(out), false)
}

/// The refusal of a replacement without `overwrite`: the human line and the structured payload.
fn file_exists(
    call: &Call<'_>,
    raw: &str,
    resolved_path: &str,
    existing_bytes: u64,
    new_bytes: usize,
) -> ToolOutput {
    let tools = call.pico.config().tools;
    let mut available: Vec<&str> = Vec::new();
    if tools.edit_file {
        available.push("edit_file");
    }
    if tools.append_file {
        available.push("append_file");
    }
    available.push("overwrite");
    let recommended = available[0];
    let advice = match (tools.edit_file, tools.append_file) {
        (true, true) => {
            "Use edit_file for a targeted change or append_file to add to the end, or call \
             write_file again with overwrite=true to replace the whole file"
        }
        (true, false) => {
            "Use edit_file for a targeted change, or call write_file again with overwrite=true \
             to replace the whole file"
        }
        (false, true) => {
            "Use append_file to add to the end, or call write_file again with overwrite=true to \
             replace the whole file"
        }
        (false, false) => "Call write_file again with overwrite=true to replace the whole file",
    };
    let structured = json!({
        "error": "file_exists",
        "path": raw,
        "resolved_path": resolved_path,
        "recommended_action": recommended,
        "available_actions": available,
        "existing_bytes": existing_bytes,
        "new_bytes": new_bytes,
        "overwrite_required": true,
    });
    let text = format!(
        "file already exists: {raw} ({existing_bytes} bytes). The new content ({new_bytes} \
         bytes) is neither identical to it nor an extension of it, so it was not written. \
         {advice} (its current contents are discarded).\nstructured: {structured}"
    );
    ToolOutput {
        content: vec![Content::Text(text)],
        is_error: true,
        structured: Some(structured),
    }
}

/// The refusal of an overwrite of a file that changed (or went) since this session last read
/// or wrote it: the human line and the structured payload, as for `file_exists`.
fn file_changed(
    call: &Call<'_>,
    raw: &str,
    resolved_path: &str,
    stale: &Stale,
    new_bytes: usize,
) -> ToolOutput {
    let edit = call.pico.config().tools.edit_file;
    let (error, recommended, available, text) = if stale.is_deleted() {
        (
            "file_deleted",
            "write_file",
            vec!["write_file"],
            stale.explain(
                "write_file did not create it again",
                "If it should exist again, call write_file once more: the next write_file \
                 creates it.",
            ),
        )
    } else {
        let mut available = vec!["read_file"];
        if edit {
            available.push("edit_file");
        }
        let next = if edit {
            "Call read_file to see what it holds now, then use edit_file for a targeted change, \
             or write_file with overwrite=true from what it holds now."
        } else {
            "Call read_file to see what it holds now, then write_file with overwrite=true from \
             what it holds now."
        };
        (
            "file_changed",
            "read_file",
            available,
            stale.explain("write_file did not overwrite it", next),
        )
    };
    let structured = json!({
        "error": error,
        "path": raw,
        "resolved_path": resolved_path,
        "recommended_action": recommended,
        "available_actions": available,
        "read_bytes": stale.then_len,
        "existing_bytes": stale.now_len,
        "new_bytes": new_bytes,
        "changes": stale.changes,
    });
    ToolOutput {
        content: vec![Content::Text(format!("{text}\nstructured: {structured}"))],
        is_error: true,
        structured: Some(structured),
    }
}

/// How the file on disk relates to the content to write.
enum Relation {
    Equal,
    /// The file is a proper prefix of the content; its length.
    Prefix(u64),
    Differs,
}

/// Compares the file with `content`, streaming it through a fixed buffer.
fn relation(access: &Access, target: &Resolved, content: &[u8]) -> io::Result<Relation> {
    let (mut file, _) = access.open_regular(target)?;
    let mut buf = vec![0u8; VERIFY_BUFFER];
    let mut pos = 0usize;
    loop {
        let n = match file.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if pos + n > content.len() || buf[..n] != content[pos..pos + n] {
            return Ok(Relation::Differs);
        }
        pos += n;
    }
    Ok(if pos == content.len() {
        Relation::Equal
    } else {
        Relation::Prefix(pos as u64)
    })
}

/// Reads the file back from `offset` through a fixed 32 KiB buffer and compares it with
/// `expected`, which must be exactly the rest of the file.
fn verify(
    access: &Access,
    target: &Resolved,
    offset: u64,
    expected: &[u8],
) -> std::result::Result<(), (&'static str, String, Option<String>)> {
    let failed = |e: io::Error| {
        (
            "read_back_failed",
            "the file could not be read back to verify the write".to_string(),
            Some(e.to_string()),
        )
    };
    let (mut file, _) = access.open_regular(target).map_err(failed)?;
    file.seek(SeekFrom::Start(offset)).map_err(failed)?;
    let mut buf = [0u8; VERIFY_BUFFER];
    let mut pos = 0usize;
    loop {
        let n = match file.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(failed(e)),
        };
        let end = pos + n;
        if end > expected.len() || buf[..n] != expected[pos..end] {
            let at = buf[..n.min(expected.len().saturating_sub(pos))]
                .iter()
                .zip(&expected[pos.min(expected.len())..])
                .position(|(a, b)| a != b)
                .map_or(pos + n.min(expected.len().saturating_sub(pos)), |i| pos + i);
            return Err((
                "read_back_mismatch",
                format!(
                    "the file read back differs from the content written, from byte {}",
                    offset + at as u64
                ),
                None,
            ));
        }
        pos = end;
    }
    if pos != expected.len() {
        return Err((
            "read_back_mismatch",
            format!(
                "the file read back is shorter than the content written ({} of {} bytes)",
                offset + pos as u64,
                offset + expected.len() as u64
            ),
            None,
        ));
    }
    Ok(())
}

pub(super) fn append_file(call: &Call<'_>, args: Value) -> Result<ToolOutput> {
    let args = Args::parse("append_file", args, &["path", "content"])?;
    let raw = args.str("path")?;
    let content = args.str("content")?;
    // The read policy first, then the write policy: the refused paths are write_file's.
    call.pico.policy.locate(call.ws, raw, Op::Read)?;
    let target = call.pico.policy.locate(call.ws, raw, Op::Write)?;
    // Folders made for a new file go again if the append fails.
    let _made = match target.access.metadata(&target.resolved) {
        Ok(meta) if meta.is_dir => {
            return Err(ToolError::invalid(format!(
                "{raw} is a directory, so nothing can be appended to it; pass a file path"
            )));
        }
        Ok(meta) if !meta.is_file => {
            return Err(ToolError::invalid(format!(
                "{raw} is not a regular file (a FIFO, socket or device); pass a file path"
            )));
        }
        Ok(_) => None,
        Err(e) if e.kind() == io::ErrorKind::NotFound => Some(create_parents(&target)?),
        Err(e) => return Err(ToolError::from_io(&e, "append to", raw)),
    };
    let content = restore_appended(&target, raw, content)?;
    let wide = match _made {
        Some(_) => None,
        None => wide_format(&target, raw)?,
    };
    let (bytes, encoded) = match &wide {
        Some(format) => (
            Cow::Owned(encoding::encode(&content, format)?),
            format!(", encoded in {} as the file is", format.encoding.name()),
        ),
        None => (Cow::Borrowed(content.as_bytes()), String::new()),
    };
    // What the session saw of the file, when it still holds that: the new content is then
    // known too. An append never discards anything, so a stale file is appended to as usual.
    let file = FileRef::new(&target.access, &target.resolved);
    let seen = call
        .ctx
        .session()
        .and_then(|session| session.check(&file).ok().flatten());
    let old = append_bytes(&target.access, &target.resolved, &bytes)
        .map_err(|e| ToolError::from_io(&e, "append to", raw))?;
    if let (Some(session), Some(before)) =
        (call.ctx.session(), seen.as_ref().and_then(|c| c.bytes()))
    {
        session.appended(&file, before, old, &bytes);
    }
    let total = old + bytes.len() as u64;
    let raw = target.access.written_name(&target.resolved);
    Ok(ToolOutput::text(if old == 0 {
        format!(
            "Appended {} bytes to {raw} (now {total} bytes{encoded}).",
            bytes.len()
        )
    } else {
        format!(
            "Appended {} bytes to {raw} (was {old} bytes, now {total}{encoded}).",
            bytes.len()
        )
    }))
}

/// How content appended to an existing UTF-16 or UTF-32 file (one that starts with its BOM) is
/// written: in the file's encoding, its line endings the file's dominant one, no second BOM.
/// `None` for every other file, which takes the content's bytes as they are.
fn wide_format(target: &Target<'_>, raw: &str) -> Result<Option<TextFormat>> {
    let io = |e: io::Error| ToolError::from_io(&e, "append to", raw);
    let (file, _) = target.access.open_regular(&target.resolved).map_err(io)?;
    let mut head = Vec::new();
    file.take(WIDE_SNIFF).read_to_end(&mut head).map_err(io)?;
    let Some(wide) = encoding::wide_bom(&head) else {
        return Ok(None);
    };
    // Whole code units only (4 bytes is a whole unit of UTF-16 and of UTF-32).
    head.truncate(head.len() / 4 * 4);
    let mut format = encoding::decode_as(&head, wide).format;
    format.bom = false;
    Ok(Some(format))
}

/// How much of a file's start decides the line ending of text appended to a UTF-16 or UTF-32
/// file.
const WIDE_SNIFF: u64 = 64 * 1024;

/// `content` to append to the file, with `[FILTERED]` copied from a redacted read of it mapped
/// back to the values it hides.
fn restore_appended<'a>(target: &Target<'_>, raw: &str, content: &'a str) -> Result<Cow<'a, str>> {
    if !content.contains(FILTERED) {
        return Ok(Cow::Borrowed(content));
    }
    let old = match target.access.read_all(&target.resolved) {
        Ok((old, _)) => old,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Cow::Borrowed(content)),
        Err(e) => return Err(ToolError::from_io(&e, "append to", raw)),
    };
    let old = String::from_utf8_lossy(&old);
    let whole = format!("{old}{content}");
    let restored =
        restore::restore(&old, &whole).map_err(|u| unmapped(&u, "the file after the append"))?;
    match restored.strip_prefix(old.as_ref()) {
        Some(appended) if appended != content => Ok(Cow::Owned(appended.to_string())),
        Some(_) => Ok(Cow::Borrowed(content)),
        None => Err(ToolError::invalid(format!(
            "the content holds {FILTERED} joined to the last line of {raw}, which hides a value; \
             start the content on a new line. Nothing was written."
        ))),
    }
}

fn create_parents<'t>(target: &'t Target<'_>) -> Result<NewFolders<'t>> {
    target.access.create_parents(&target.resolved).map_err(|e| {
        ToolError::from_io(
            &e,
            "create the parent directories of",
            &target.resolved.shown,
        )
    })
}

/// Appends `bytes` in place (`O_APPEND`, then fsync), following a link at the last component
/// and creating a missing file; returns the file's length before the append.
pub(super) fn append_bytes(access: &Access, target: &Resolved, bytes: &[u8]) -> io::Result<u64> {
    access.append(target, bytes)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)]
    use super::*;

    fn setup(content: &[u8]) -> (tempfile::TempDir, Access, Resolved) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("f"), content).unwrap();
        let access = Access::new(dir.path()).unwrap();
        let target = access.resolve("f").unwrap();
        (dir, access, target)
    }

    #[test]
    fn verification_streams_past_the_buffer_and_names_the_first_differing_byte() {
        let content: Vec<u8> = (0..100_000u32).map(|i| (i % 251) as u8).collect();
        let (_dir, access, target) = setup(&content);
        assert!(verify(&access, &target, 0, &content).is_ok());
        assert!(verify(&access, &target, 40_000, &content[40_000..]).is_ok());
        let mut other = content.clone();
        other[70_000] ^= 1;
        let (code, message, _) = verify(&access, &target, 0, &other).unwrap_err();
        assert_eq!(code, "read_back_mismatch");
        assert!(message.contains("from byte 70000"), "{message}");
        let (code, message, _) = verify(
            &access,
            &target,
            0,
            &[content.clone(), b"x".to_vec()].concat(),
        )
        .unwrap_err();
        assert_eq!(code, "read_back_mismatch");
        assert!(message.contains("shorter"), "{message}");
        let (code, _, _) = verify(&access, &target, 0, &content[..10]).unwrap_err();
        assert_eq!(code, "read_back_mismatch");
    }

    #[test]
    fn an_unreadable_file_is_a_read_back_failure_with_detail() {
        let (dir, access, target) = setup(b"x");
        std::fs::remove_file(dir.path().join("f")).unwrap();
        let (code, _, detail) = verify(&access, &target, 0, b"x").unwrap_err();
        assert_eq!(code, "read_back_failed");
        assert!(detail.is_some());
    }
}
