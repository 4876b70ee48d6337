//! read_files: several files in one call, one entry per path in request order, each with its
//! content or its own error, against one byte budget shared by the call.
//!
//! UTF-8 files come back exactly as stored. Other text is decoded (its encoding detected) and
//! the entry names the encoding; a file holding a NUL byte is binary and refused in its entry,
//! unless it starts with a UTF-16 or UTF-32 BOM ([`encoding::looks_binary`]). A file larger
//! than what is left of the budget is cut at a line end, and its entry says so.

use std::io::{self, Read};

use serde_json::{Map, Value, json};

use super::input::Input;
use super::{Answer, Ctx};
use crate::access::Resolved;
use crate::error::{ErrorKind, Result, ToolError};
use crate::text::{encoding, lines};

/// The most paths one call reads.
const MAX_PATHS: usize = 200;

pub(super) fn call(ctx: &Ctx<'_>, args: Value) -> Result<Answer> {
    let input = Input::parse("read_files", args, &["paths"])?;
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
    let budget = ctx.config.read_budget_bytes;
    let mut remaining = budget;
    let files: Vec<Value> = paths
        .iter()
        .map(|raw| {
            let mut entry = Map::new();
            entry.insert("path".into(), Value::String(raw.clone()));
            match read_one(ctx, raw, remaining, budget) {
                Ok(read) => {
                    remaining = remaining.saturating_sub(read.used);
                    entry.insert("content".into(), Value::String(read.content));
                    if let Some(enc) = read.encoding {
                        entry.insert("encoding".into(), Value::String(enc));
                    }
                    if let Some(note) = read.cut {
                        entry.insert("truncated".into(), Value::Bool(true));
                        entry.insert("note".into(), Value::String(note));
                    }
                }
                Err(e) => {
                    entry.insert("error".into(), Value::String(e.to_string()));
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
    /// When the budget cut the file: what was shown and how to read the rest.
    cut: Option<String>,
}

fn read_one(ctx: &Ctx<'_>, raw: &str, remaining: u64, budget: u64) -> Result<Read1> {
    if raw.trim().is_empty() {
        return Err(ToolError::invalid(
            "the path is empty; pass a file path relative to the workspace root",
        ));
    }
    let target = ctx.access.resolve(raw)?;
    let (file, meta) = ctx
        .access
        .open_regular(&target)
        .map_err(|e| open_error(&e, &target))?;
    if remaining == 0 {
        return Err(ToolError::new(
            ErrorKind::TooLarge,
            format!(
                "not read: the earlier paths of this call used up its read budget of {budget} \
                 bytes; read {raw} ({} bytes) in a call of its own",
                meta.len
            ),
        ));
    }
    let room = usize::try_from(remaining).unwrap_or(usize::MAX);
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len).unwrap_or(0).min(room + 1));
    file.take(remaining.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| ToolError::from_io(&e, "read", raw))?;
    if encoding::looks_binary(&bytes) {
        return Err(ToolError::invalid(format!(
            "{raw} is a binary file ({} bytes, it holds NUL bytes), not text; inspect it with \
             exec_shell (file, xxd, or a tool for its format)",
            meta.len
        )));
    }
    let whole = bytes.len() <= room;
    let wide = encoding::wide_bom(&bytes).is_some();
    if !whole {
        bytes.truncate(encoding::cut_at_line_end(&bytes, room));
    }
    let used = bytes.len() as u64;
    // UTF-16 and UTF-32 lines are counted in the decoded text, others in the bytes (as sed does).
    let byte_lines = lines::count(&bytes);
    let (content, encoding) = match String::from_utf8(bytes) {
        Ok(text) => (text, None),
        Err(e) => {
            let decoded = encoding::decode(e.as_bytes(), None);
            let name = decoded.format.encoding.name().to_string();
            (decoded.text, Some(name))
        }
    };
    let mut cut_note = None;
    if !whole {
        let shown_lines = if wide {
            lines::count(content.as_bytes())
        } else {
            byte_lines
        };
        let next = shown_lines + 1;
        cut_note = Some(format!(
            "cut by the read budget of {budget} bytes per call: showing lines 1-{shown_lines} \
             ({used} of {} bytes). Read the rest with exec_shell, e.g. sed -n '{next},$p' {raw}, \
             or read {raw} alone in a call of its own",
            meta.len
        ));
    }
    Ok(Read1 {
        content,
        encoding,
        used,
        cut: cut_note,
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
