//! write_file and edit. An existing file is decoded, changed as text, and written back through
//! [`encoding::rewrite`], so its encoding, BOM and line endings stay and every line the change
//! does not touch keeps its bytes; a new file follows `defaultFileEncoding` and the platform's
//! rules ([`encoding::for_new_file`]). edit finds `old_string` through the matcher's cascade
//! ([`matcher::find_corrected`]) and accepts a correction only when it found one place.

use serde_json::Value;

use super::args::Args;
use super::{Outcome, Qwen, is_notebook, resolve};
use crate::access::{Access, Resolved, WriteOptions};
use crate::session::{Base, Current, FileRef, Stale};
use crate::surface::{CallContext, ToolOutput};
use crate::text::encoding::{self, LineEnding};
use crate::text::lines;
use crate::text::matcher::{self, Level};

/// The most line numbers an ambiguity error lists.
const MAX_LINES_LISTED: usize = 20;

pub(super) fn write_file(qwen: &Qwen, access: &Access, args: Value, ctx: &CallContext) -> Outcome {
    let args = Args::parse("write_file", args, &["file_path", "content"])?;
    let raw = args.str("file_path")?;
    let content = args.str("content")?;
    if raw.trim().is_empty() {
        return Err("Missing or empty \"file_path\"".to_string());
    }
    if is_notebook(raw) {
        return Err(format!(
            "write_file does not write Jupyter notebooks: {raw} is a notebook (.ipynb), and raw \
             notebook JSON is not written. Use notebook_edit to change its cells (read it with \
             read_file first)."
        ));
    }
    let target = resolve(access, raw, "File path")?;
    // The stale-write rule: a file this session saw is overwritten only while it holds what
    // the session saw.
    let file = FileRef::new(access, &target);
    let current = match ctx.session() {
        Some(session) => session
            .check(&file)
            .map_err(|stale| stale_message(&stale))?,
        None => None,
    };
    let existing = match current.as_ref().and_then(Current::bytes) {
        Some(bytes) => Some(bytes.to_vec()),
        None => existing(access, &target, raw)?,
    };
    let bytes = match &existing {
        Some(original) if !super::read::is_binary(head(original)) => {
            let decoded = encoding::decode(original, qwen.fallback);
            encoding::rewrite(original, &decoded, content).map_err(|e| {
                format!(
                    "Error writing to file {raw}: {}",
                    e.worded(&super::NEXT).message
                )
            })?
        }
        _ => new_file_bytes(qwen, raw, content)?,
    };
    write(access, &target, raw, &bytes, true, None, current.as_ref())?;
    if let Some(session) = ctx.session() {
        session.wrote(&file, Base::Checked, Some(&bytes));
    }
    let named = access.written_name(&target);
    Ok(ToolOutput::text(match existing {
        None => format!("Successfully created and wrote to new file: {named}."),
        Some(_) => format!("Successfully overwrote file: {named}."),
    }))
}

pub(super) fn edit(qwen: &Qwen, access: &Access, args: Value, ctx: &CallContext) -> Outcome {
    let args = Args::parse(
        "edit",
        args,
        &["file_path", "old_string", "new_string", "replace_all"],
    )?;
    let raw = args.str("file_path")?;
    let old = args.str("old_string")?;
    let new = args.str("new_string")?;
    let replace_all = args.opt_bool("replace_all")?.unwrap_or(false);
    if raw.trim().is_empty() {
        return Err("The 'file_path' parameter must be non-empty.".to_string());
    }
    if is_notebook(raw) {
        return Err(format!(
            "edit does not edit Jupyter notebooks: {raw} is a notebook (.ipynb), and raw \
             notebook JSON is not edited. Use notebook_edit to change its cells (read it with \
             read_file first)."
        ));
    }
    let target = resolve(access, raw, "File path")?;
    let existing = existing(access, &target, raw)?;
    let Some(original) = existing else {
        if !old.is_empty() {
            return Err(format!(
                "File not found: {raw}. Cannot apply edit. Use an empty old_string to create a \
                 new file."
            ));
        }
        let bytes = new_file_bytes(qwen, raw, new)?;
        write(access, &target, raw, &bytes, true, None, None)?;
        if let Some(session) = ctx.session() {
            session.wrote(&FileRef::new(access, &target), Base::Checked, Some(&bytes));
        }
        return Ok(ToolOutput::text(format!(
            "Created new file: {} with provided content.",
            access.written_name(&target)
        )));
    };
    if old.is_empty() {
        return Err(format!(
            "Failed to edit. Attempted to create a file that already exists: {raw}. An empty \
             old_string creates a new file; to change this one, pass the text to replace as \
             old_string."
        ));
    }
    if old == new {
        return Err(format!(
            "No changes to apply. The old_string and new_string are identical in file: {raw}"
        ));
    }
    let decoded = encoding::decode(&original, qwen.fallback);
    let text = decoded.text.as_str();
    let found =
        matcher::find_corrected(text.as_bytes(), old, new).map_err(|e| unmappable(&e, raw))?;
    let Some(found) = found else {
        return Err(format!(
            "Failed to edit, 0 occurrences found for old_string in {raw}. No edits made. The \
             exact text in old_string was not found, nor after ignoring line endings, trailing \
             whitespace, indentation or Unicode punctuation. Ensure you're not escaping content \
             incorrectly and check whitespace, indentation, and context. Use read_file tool to \
             verify."
        ));
    };
    let count = found.ranges.len();
    if count > 1 && (found.level.is_correction() || !replace_all) {
        return Err(ambiguous(text, &found, raw));
    }
    // Every occurrence (replace_all), left to right, none overlapping the one before.
    let mut chosen = Vec::new();
    let mut from = 0;
    for range in &found.ranges {
        if range.start >= from {
            from = range.end;
            chosen.push(range.clone());
        }
    }
    let replacement = String::from_utf8(found.replacement.clone())
        .map_err(|_| "Failed to edit: the replacement is not valid text.".to_string())?;
    let mut new_text = String::with_capacity(text.len() + replacement.len());
    let mut at = 0;
    for range in &chosen {
        new_text.push_str(&text[at..range.start]);
        new_text.push_str(&replacement);
        at = range.end;
    }
    new_text.push_str(&text[at..]);
    if new_text == text {
        return Err(format!(
            "No changes to apply. The new content is identical to the current content in file: \
             {raw}"
        ));
    }
    let bytes = encoding::rewrite(&original, &decoded, &new_text)
        .map_err(|e| format!("Error executing edit: {}", e.worded(&super::NEXT).message))?;
    write(access, &target, raw, &bytes, false, Some(&original), None)?;
    if let Some(session) = ctx.session() {
        let file = FileRef::new(access, &target);
        session.wrote(&file, Base::Bytes(&original), Some(&bytes));
    }
    Ok(ToolOutput::text(format!(
        "Successfully modified file: {} ({} replacements).{}",
        access.written_name(&target),
        chosen.len(),
        correction_note(found.level)
    )))
}

/// What the result says about the level that found `old_string`.
fn correction_note(level: Level) -> &'static str {
    match level {
        Level::Exact => "",
        Level::LineEndings => {
            " Correction applied: old_string matched after converting its line endings to the \
             file's."
        }
        Level::TrailingWhitespace => {
            " Correction applied: old_string matched after ignoring trailing whitespace on each \
             line."
        }
        Level::Indentation => {
            " Correction applied: old_string matched after ignoring indentation; new_string was \
             re-indented to the file's indentation."
        }
        Level::Punctuation => {
            " Correction applied: old_string matched after normalising Unicode punctuation \
             (curly quotes, dashes, non-breaking spaces)."
        }
    }
}

/// The refusal of an `old_string` found only once its indentation was ignored, whose
/// `new_string` cannot be re-indented to the file's indentation without mixing tabs and spaces.
fn unmappable(e: &matcher::Unmappable, raw: &str) -> String {
    let which = if e.in_quote {
        "old_string"
    } else {
        "new_string"
    };
    format!(
        "Failed to edit {raw}: old_string matched only after ignoring indentation, and \
         new_string cannot be re-indented to the file's indentation: line {} of {which}: {}. No \
         edits made. Use read_file to see the file's exact indentation, and quote old_string and \
         write new_string with it.",
        e.line, e.reason
    )
}

/// The refusal of an `old_string` found at several places.
fn ambiguous(text: &str, found: &matcher::Found, raw: &str) -> String {
    let mut at = lines::lines_at(text.as_bytes(), found.ranges.iter().map(|r| r.start));
    at.dedup();
    let mut listed: Vec<String> = at
        .iter()
        .take(MAX_LINES_LISTED)
        .map(ToString::to_string)
        .collect();
    if at.len() > MAX_LINES_LISTED {
        listed.push(format!("and {} more", at.len() - MAX_LINES_LISTED));
    }
    let lines_word = if at.len() == 1 { "line" } else { "lines" };
    let how = match found.level {
        Level::Exact => "",
        Level::LineEndings => " when line endings are ignored",
        Level::TrailingWhitespace => " when trailing whitespace is ignored",
        Level::Indentation => " when indentation is ignored",
        Level::Punctuation => " when Unicode punctuation is normalised",
    };
    let next = if found.level.is_correction() {
        "Provide more context so that old_string matches exactly one place (a corrected match \
         is applied only when it is unique)."
    } else {
        "Provide more context or set replace_all to true."
    };
    format!(
        "Failed to edit because the text matches multiple locations: old_string occurs {} times \
         in {raw}{how} (at {lines_word} {}). {next}",
        found.ranges.len(),
        listed.join(", ")
    )
}

/// The bytes of the file at `target`, or `None` when there is none.
fn existing(access: &Access, target: &Resolved, raw: &str) -> Result<Option<Vec<u8>>, String> {
    match access.metadata(target) {
        Ok(meta) if meta.is_dir => Err(format!("Path is a directory, not a file: {raw}")),
        Ok(_) => access
            .read_all(target)
            .map(|(bytes, _)| Some(bytes))
            .map_err(|e| format!("Error reading file {raw}: {e}")),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("Error checking existing file '{raw}': {e}")),
    }
}

/// A new file's bytes: `defaultFileEncoding` and the platform's rules; explicit CRLF in the
/// content is kept where the platform gives no ending of its own.
fn new_file_bytes(qwen: &Qwen, raw: &str, content: &str) -> Result<Vec<u8>, String> {
    let mut format = encoding::for_new_file(raw, qwen.config.default_file_encoding, qwen.platform);
    if format.line_ending == LineEnding::Lf
        && let Some(ending) = encoding::line_ending_of(content)
    {
        format.line_ending = ending;
    }
    encoding::encode(content, &format).map_err(|e| {
        format!(
            "Error writing to file {raw}: {}",
            e.worded(&super::NEXT).message
        )
    })
}

/// The refusal of a write_file over a file that changed since this session saw it.
fn stale_message(stale: &Stale) -> String {
    let text = if stale.is_deleted() {
        stale.explain(
            "write_file did not create it again",
            "If it should exist again, call write_file once more: the next write_file creates \
             it.",
        )
    } else {
        stale.explain(
            "write_file did not overwrite it",
            "Use read_file to see what it holds now, then make your change with edit, or call \
             write_file again with the whole content based on what it holds now.",
        )
    };
    format!("Failed to write file: {text}")
}

/// Writes `bytes` over `target`: only while it holds `expect` when given, and only while it is
/// what a session's check found (`current`) when given.
fn write(
    access: &Access,
    target: &Resolved,
    raw: &str,
    bytes: &[u8],
    create_parents: bool,
    expect: Option<&[u8]>,
    current: Option<&Current>,
) -> Result<(), String> {
    let options = WriteOptions {
        create_parents,
        expect,
        ..WriteOptions::default()
    };
    let options = match current {
        Some(current) => current.guard(options),
        None => options,
    };
    access
        .write_atomic(target, bytes, options)
        .map(|_| ())
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::PermissionDenied => match e.get_ref() {
                // The access layer's own refusal says whose file it is and its mode.
                Some(why) => format!("Permission denied writing to file: {raw}: {why}"),
                None => format!("Permission denied writing to file: {raw}"),
            },
            std::io::ErrorKind::IsADirectory => {
                format!("Target is a directory, not a file: {raw}")
            }
            _ if crate::access::fs::Conflict::is(&e) => format!(
                "Failed to edit {raw}: it changed on disk while the edit was being made (another \
                 writer saved first). No edits made. Use read_file to see what it holds now and \
                 edit again."
            ),
            _ => format!("Error writing to file '{raw}': {e}"),
        })
}

fn head(bytes: &[u8]) -> &[u8] {
    &bytes[..bytes.len().min(4096)]
}
