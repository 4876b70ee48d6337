//! read_files: several files in one call, one entry per path in request order, each with its
//! content or its own error, against one byte budget shared by the call.
//!
//! UTF-8 files come back exactly as stored. Other text is decoded (its encoding detected) and
//! the entry names the encoding; a file holding a NUL byte is binary and refused in its entry,
//! unless it starts with a UTF-16 or UTF-32 BOM ([`encoding::looks_binary`]). A file larger
//! than what is left of the budget is cut at a line end (in the code units of a UTF-16 or
//! UTF-32 file; at a character boundary when the budget holds no whole line), and its entry
//! says so and names the byte `offset` a next call reads on from: following those notes reads
//! every byte of any file exactly once, a saved shell output included. `offset` (fsgate's
//! addition to sgpt's arguments) starts each path of the call at that byte; a page after
//! the first is decoded in the encoding the file's start shows.

use std::io::{self, Read, Seek, SeekFrom};

use serde_json::{Map, Value, json};

use super::input::Input;
use super::{Answer, Ctx};
use crate::access::Resolved;
use crate::error::{ErrorKind, Result, ToolError};
use crate::text::{encoding, lines};

/// How much of a file's start decides the encoding of a page read from an offset.
const HEAD_SNIFF: u64 = 64 * 1024;

/// The most paths one call reads.
const MAX_PATHS: usize = 200;

pub(super) fn call(ctx: &Ctx<'_>, args: Value) -> Result<Answer> {
    let input = Input::parse("read_files", args, &["paths", "offset"])?;
    let Some(paths) = input.strings("paths")? else {
        return Err(ToolError::invalid(
            "read_files needs paths, an array of file paths: {\"paths\": [\"src/main.rs\"]}",
        ));
    };
    if paths.is_empty() {
        return Err(ToolError::invalid(
            "paths is empty, so there is nothing to read; pass at least one file path: \
             {\"paths\": [\"src/main.rs\"]}",
        ));
    }
    if paths.len() > MAX_PATHS {
        return Err(ToolError::invalid(format!(
            "paths holds {} paths; one call reads at most {MAX_PATHS}: split them over several \
             calls",
            paths.len()
        )));
    }
    let offset = input.args.opt_uint("offset")?.unwrap_or(0);
    let budget = ctx.config.read_budget_bytes;
    let mut remaining = budget;
    let files: Vec<Value> = paths
        .iter()
        .map(|raw| {
            let mut entry = Map::new();
            entry.insert("path".into(), Value::String(raw.clone()));
            match read_one(ctx, raw, offset, remaining, budget) {
                Ok(read) => {
                    remaining = remaining.saturating_sub(read.used);
                    entry.insert("content".into(), Value::String(read.content));
                    if let Some(enc) = read.encoding {
                        entry.insert("encoding".into(), Value::String(enc));
                    }
                    if read.truncated {
                        entry.insert("truncated".into(), Value::Bool(true));
                    }
                    if let Some(note) = read.note {
                        entry.insert("note".into(), Value::String(note));
                    }
                }
                Err(e) => {
                    entry.insert(
                        "error".into(),
                        Value::String(e.worded(&super::NEXT).to_string()),
                    );
                }
            }
            Value::Object(entry)
        })
        .collect();
    Answer::ok(json!({ "files": files }))
}

/// One file read.
struct Read1 {
    content: String,
    encoding: Option<String>,
    /// Bytes of the budget used.
    used: u64,
    /// Whether the budget cut the file.
    truncated: bool,
    /// What was shown and how to read the rest (a cut file, or a read from an offset).
    note: Option<String>,
}

fn read_one(ctx: &Ctx<'_>, raw: &str, offset: u64, remaining: u64, budget: u64) -> Result<Read1> {
    if raw.trim().is_empty() {
        return Err(ToolError::invalid(
            "the path is empty; pass a file path relative to the workspace root",
        ));
    }
    let target = ctx.access.resolve(raw)?;
    let (mut file, meta) = ctx
        .access
        .open_regular(&target)
        .map_err(|e| open_error(&e, &target))?;
    // The arguments of the call that reads `raw` from byte `from`.
    let again = |from: u64| {
        let path = Value::String(raw.to_string());
        if from == 0 {
            format!("{{\"paths\": [{path}]}}")
        } else {
            format!("{{\"paths\": [{path}], \"offset\": {from}}}")
        }
    };
    if remaining == 0 {
        return Err(ToolError::new(
            ErrorKind::TooLarge,
            format!(
                "not read: the earlier paths of this call used up its read budget of {budget} \
                 bytes; read {raw} ({} bytes) in a call of its own: read_files {}",
                meta.len,
                again(offset)
            ),
        ));
    }
    if offset >= meta.len && offset > 0 {
        return Ok(Read1 {
            content: String::new(),
            encoding: None,
            used: 0,
            truncated: false,
            note: Some(format!(
                "nothing at offset {offset}: {raw} has {} bytes, all of them before it",
                meta.len
            )),
        });
    }
    // A page after the first has no BOM and may be too short to tell its encoding: the file's
    // start decides it.
    let (wide, legacy) = if offset > 0 {
        let mut head = Vec::new();
        (&mut file)
            .take(HEAD_SNIFF)
            .read_to_end(&mut head)
            .map_err(|e| ToolError::from_io(&e, "read", raw))?;
        let wide = encoding::wide_bom(&head);
        let legacy = match wide {
            Some(_) => None,
            None => encoding::decode_foreign(&head, None).map(|d| d.format.encoding),
        };
        file.seek(SeekFrom::Start(offset))
            .map_err(|e| ToolError::from_io(&e, "read", raw))?;
        (wide, legacy)
    } else {
        (None, None)
    };
    let room = usize::try_from(remaining).unwrap_or(usize::MAX);
    let left = meta.len.saturating_sub(offset);
    let mut bytes = Vec::with_capacity(usize::try_from(left).unwrap_or(0).min(room + 1));
    (&mut file)
        .take(remaining.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| ToolError::from_io(&e, "read", raw))?;
    let wide = wide.or_else(|| encoding::wide_bom(&bytes));
    if wide.is_none() && encoding::looks_binary(&bytes) {
        return Err(ToolError::invalid(format!(
            "{raw} is a binary file ({} bytes, it holds NUL bytes), not text; inspect it with \
             exec_shell (file, xxd, or a tool for its format)",
            meta.len
        )));
    }
    let whole = bytes.len() <= room;
    if !whole {
        // No whole line fits: the cut is at a character boundary, or (a budget smaller than
        // one character) after the budget's bytes, so every call makes progress.
        let kept = match encoding::cut_at_line_end_as(&bytes, room, wide) {
            0 => room,
            at => at,
        };
        bytes.truncate(kept);
    }
    let used = bytes.len() as u64;
    let (content, encoding) = match wide {
        Some(wide) => (
            encoding::decode_as(&bytes, wide).text,
            Some(wide.name().to_string()),
        ),
        None => match String::from_utf8(bytes) {
            Ok(text) => (text, None),
            Err(e) => {
                let decoded = match legacy {
                    Some(enc) => encoding::decode_as(e.as_bytes(), enc),
                    None => encoding::decode(e.as_bytes(), None),
                };
                let name = decoded.format.encoding.name().to_string();
                (decoded.text, Some(name))
            }
        },
    };
    let mut truncated = false;
    let mut note = None;
    if !whole {
        let end = offset + used;
        let shown_lines = if offset == 0 {
            format!(" (lines 1-{})", lines::count(content.as_bytes()))
        } else {
            String::new()
        };
        truncated = true;
        note = Some(format!(
            "cut by the read budget of {budget} bytes per call: showing bytes {offset}-{} of \
             {}{shown_lines}. To read on from there, call read_files {}",
            end - 1,
            meta.len,
            again(end)
        ));
    } else if offset > 0 {
        note = Some(format!(
            "showing bytes {offset}-{} of {}: the file from offset {offset} to its end",
            (offset + used).saturating_sub(1),
            meta.len
        ));
    }
    Ok(Read1 {
        content,
        encoding,
        used,
        truncated,
        note,
    })
}

fn open_error(err: &io::Error, target: &Resolved) -> ToolError {
    let shown = &target.shown;
    match err.kind() {
        io::ErrorKind::NotFound => ToolError::not_found(format!(
            "{shown} does not exist; check the path (exec_shell: ls or find) and read it again"
        )),
        io::ErrorKind::IsADirectory => ToolError::invalid(format!(
            "{shown} is a directory, not a file; list it with exec_shell (ls {shown}) and read \
             its files"
        )),
        io::ErrorKind::InvalidInput => ToolError::invalid(format!(
            "{shown} is not a regular file (a FIFO, socket or device), so it is not read"
        )),
        _ => ToolError::from_io(err, "read", shown),
    }
}
