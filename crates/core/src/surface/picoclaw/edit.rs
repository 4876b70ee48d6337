//! edit_file: one exact replacement (`old_text` → `new_text`) or a V4A patch of the file, written
//! atomically, answered with a unified diff.
//!
//! The diff (three context lines, `a/` and `b/` paths) is built only for files under 64 KiB and
//! 2,000 lines (before and after); larger files get a one-line summary and a pointer to
//! read_file. Its context lines pass through the credential scrubber (added and removed lines
//! stay verbatim), and it is bounded to 12,288 characters: a longer diff keeps its head and
//! tail around an omission notice and says it was truncated.
//!
//! A UTF-8 file is edited byte for byte (each line keeps its own LF or CRLF ending, a BOM is
//! kept); a file in another encoding is decoded, edited as text and written back in its own
//! encoding through [`crate::text::encoding::rewrite`].

use serde_json::Value;

use super::super::ToolOutput;
use super::super::args::Args;
use super::Call;
use super::policy::{Op, lexical_absolute};
use crate::access::WriteOptions;
use crate::error::{ErrorKind, Result, ToolError};
use crate::ops::patch::{unified, v4a};
use crate::text::matcher::{self, Level};
use crate::text::{encoding, lines, redact};

/// Files this large (bytes), before or after, get no diff.
const DIFF_MAX_BYTES: usize = 64 * 1024;
/// Files with this many lines, before or after, get no diff.
const DIFF_MAX_LINES: usize = 2_000;
/// The most characters of a diff the model sees.
const DIFF_MAX_CHARS: usize = 12_288;
const BOM: &[u8] = b"\xEF\xBB\xBF";

pub(super) fn edit_file(call: &Call<'_>, args: Value) -> Result<ToolOutput> {
    let args = Args::parse(
        "edit_file",
        args,
        &["path", "old_text", "new_text", "patch"],
    )?;
    let raw = args.str("path")?;
    let old_text = args.opt_str("old_text")?;
    let new_text = args.opt_str("new_text")?;
    let patch = args.opt_str("patch")?;
    let mode = match (old_text, new_text, patch) {
        (None, None, Some(patch)) => Mode::Patch(patch),
        (Some(old), Some(new), None) => Mode::Text(old, new),
        (_, _, Some(_)) => {
            return Err(ToolError::invalid(
                "provide either old_text + new_text or patch, never both; call edit_file again \
                 with one of them",
            ));
        }
        (Some(_), None, None) => {
            return Err(ToolError::invalid(
                "new_text is required with old_text (pass \"\" to delete the text)",
            ));
        }
        (None, Some(_), None) => {
            return Err(ToolError::invalid(
                "old_text is required with new_text: the exact text to replace, which must \
                 appear once in the file",
            ));
        }
        (None, None, None) => {
            return Err(ToolError::invalid(
                "edit_file needs old_text and new_text (an exact replacement) or patch (a V4A \
                 patch of the file)",
            ));
        }
    };
    let target = call.pico.policy.locate(call.ws, raw, Op::Write)?;
    let (original, _) = target
        .access
        .read_all(&target.resolved)
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => ToolError::not_found(format!(
                "file not found: {raw}; edit_file edits an existing file (use write_file to \
                 create one)"
            )),
            _ => ToolError::from_io(&e, "edit", raw),
        })?;
    if memchr::memchr(0, &original[..original.len().min(8 * 1024)]).is_some() {
        return Err(ToolError::invalid(format!(
            "{raw} appears to be binary (it holds a NUL byte near its start); edit_file edits \
             text files only"
        )));
    }
    let (edited, summary) = match mode {
        Mode::Text(old, new) => (
            replace(&original, old, new)?,
            "replaced 1 occurrence of old_text".to_string(),
        ),
        Mode::Patch(patch) => {
            let hunks = patch_hunks(call, raw, patch)?;
            let count = hunks.len();
            (
                apply_patch(&original, &hunks)?,
                format!("applied {count} hunk{}", if count == 1 { "" } else { "s" }),
            )
        }
    };
    if edited == original {
        return Ok(ToolOutput::text(format!(
            "No changes: the edit leaves {raw} as it was, so nothing was written."
        )));
    }
    let options = WriteOptions {
        create_parents: false,
        expect: Some(original.as_ref()),
        ..WriteOptions::default()
    };
    target
        .access
        .write_atomic(&target.resolved, &edited, options)
        .map_err(|e| crate::ops::write::write_error(&e, &target.resolved))?;
    Ok(ToolOutput::text(report(raw, &summary, &original, &edited)))
}

enum Mode<'a> {
    Text(&'a str, &'a str),
    Patch(&'a str),
}

/// The one exact occurrence of `old` replaced by `new`.
fn replace(original: &[u8], old: &str, new: &str) -> Result<Vec<u8>> {
    if old.is_empty() {
        return Err(ToolError::invalid(
            "old_text is empty; pass the exact text to replace (it must appear once in the \
             file)",
        ));
    }
    if std::str::from_utf8(original).is_ok() {
        let found = matcher::find(original, old, new)
            .filter(|f| matches!(f.level, Level::Exact | Level::LineEndings))
            .ok_or_else(not_found)?;
        let [range] = found.ranges.as_slice() else {
            return Err(not_unique(original, &found.ranges));
        };
        let mut out = Vec::with_capacity(original.len() + found.replacement.len());
        out.extend_from_slice(&original[..range.start]);
        out.extend_from_slice(&found.replacement);
        out.extend_from_slice(&original[range.end..]);
        return Ok(out);
    }
    let decoded = encoding::decode(original, None);
    let text = decoded.text.as_bytes();
    let old = old.replace("\r\n", "\n");
    let new = new.replace("\r\n", "\n");
    let found = matcher::find(text, &old, &new)
        .filter(|f| matches!(f.level, Level::Exact | Level::LineEndings))
        .ok_or_else(not_found)?;
    let [range] = found.ranges.as_slice() else {
        return Err(not_unique(text, &found.ranges));
    };
    let mut edited = String::with_capacity(decoded.text.len() + new.len());
    edited.push_str(&decoded.text[..range.start]);
    edited.push_str(&new);
    edited.push_str(&decoded.text[range.end..]);
    encoding::rewrite(original, &decoded, &edited)
}

fn not_found() -> ToolError {
    ToolError::new(
        ErrorKind::NoMatch,
        "old_text not found in file. Make sure it matches exactly, whitespace, indentation and \
         line breaks included; re-read the file with read_file and copy the text from it",
    )
}

fn not_unique(haystack: &[u8], ranges: &[std::ops::Range<usize>]) -> ToolError {
    let at = lines::lines_at(haystack, ranges.iter().map(|r| r.start));
    let shown: Vec<String> = at.iter().take(12).map(ToString::to_string).collect();
    ToolError::new(
        ErrorKind::NotUnique,
        format!(
            "old_text appears {} times (starting at lines {}{}). Please provide more context \
             (surrounding lines) to make it unique",
            ranges.len(),
            shown.join(", "),
            if at.len() > 12 { ", …" } else { "" }
        ),
    )
}

/// The hunks of a patch for the file `raw`: one update, no other sections.
fn patch_hunks(call: &Call<'_>, raw: &str, patch: &str) -> Result<Vec<v4a::Hunk>> {
    let parsed = v4a::parse(patch)?;
    let refuse = |what: String| {
        ToolError::invalid(format!(
            "{what}; edit_file edits exactly one existing file, so add, delete, move and \
             multi-file sections are refused. Send only the hunks for {raw} (optionally under \
             *** Update File: {raw}); create files with write_file. Nothing was written."
        ))
    };
    if parsed.sections.len() > 1 {
        return Err(refuse(format!(
            "the patch has {} file sections",
            parsed.sections.len()
        )));
    }
    let Some(section) = parsed.sections.into_iter().next() else {
        return Err(ToolError::invalid(
            "the patch holds no hunks. Nothing was written.",
        ));
    };
    match section {
        v4a::Section::Add { path, line, .. } => {
            Err(refuse(format!("patch line {line} adds a file ({path})")))
        }
        v4a::Section::Delete { path, line } => {
            Err(refuse(format!("patch line {line} deletes a file ({path})")))
        }
        v4a::Section::Update {
            move_to: Some(to),
            line,
            ..
        } => Err(refuse(format!("patch line {line} moves the file to {to}"))),
        v4a::Section::Update { path, hunks, .. } => {
            if let Some(header) = path
                && !same_file(call, &header, raw)
            {
                return Err(ToolError::invalid(format!(
                    "the patch's *** Update File: header names {header}, but path is {raw}; they \
                     must name the same file. Fix the header (or leave it out), then send the \
                     patch again. Nothing was written."
                )));
            }
            Ok(hunks)
        }
    }
}

/// Whether the header path and the `path` argument name the same file.
fn same_file(call: &Call<'_>, header: &str, raw: &str) -> bool {
    if header == raw {
        return true;
    }
    let root = call.ws.root();
    if lexical_absolute(root, header) == lexical_absolute(root, raw) {
        return true;
    }
    match (
        call.pico.policy.locate(call.ws, header, Op::Write),
        call.pico.policy.locate(call.ws, raw, Op::Write),
    ) {
        (Ok(a), Ok(b)) => a.resolved.path == b.resolved.path,
        _ => false,
    }
}

fn apply_patch(original: &[u8], hunks: &[v4a::Hunk]) -> Result<Vec<u8>> {
    if std::str::from_utf8(original).is_ok() {
        let (bom, body) = match original.strip_prefix(BOM) {
            Some(body) => (BOM, body),
            None => (&b""[..], original),
        };
        let applied = v4a::apply(body, hunks)?;
        let mut out = Vec::with_capacity(bom.len() + applied.bytes.len());
        out.extend_from_slice(bom);
        out.extend_from_slice(&applied.bytes);
        return Ok(out);
    }
    let decoded = encoding::decode(original, None);
    let applied = v4a::apply(decoded.text.as_bytes(), hunks)?;
    let text = String::from_utf8_lossy(&applied.bytes);
    encoding::rewrite(original, &decoded, &text)
}

/// The model-facing result: the summary line and the (bounded, scrubbed) diff.
fn report(raw: &str, summary: &str, old: &[u8], new: &[u8]) -> String {
    let too_big = old.len() >= DIFF_MAX_BYTES
        || new.len() >= DIFF_MAX_BYTES
        || lines::count(old) >= DIFF_MAX_LINES
        || lines::count(new) >= DIFF_MAX_LINES;
    if too_big {
        return format!(
            "File edited: {raw} ({summary}). The diff is shown only for files under 64 KiB and \
             2,000 lines; call read_file to inspect the change."
        );
    }
    let name = raw.trim_start_matches("./").trim_start_matches('/');
    let diff = unified::render(name, old, new);
    let plain = format!("--- {name}\n+++ {name}\n");
    let diff = match diff.strip_prefix(&plain) {
        Some(rest) => format!("--- a/{name}\n+++ b/{name}\n{rest}"),
        None => diff,
    };
    let scrubbed = scrub_context(&diff);
    let (shown, truncated) = bound(&scrubbed);
    if truncated {
        format!(
            "File edited: {raw} ({summary}). The diff is truncated: {} characters, shown as its \
             head and tail; call read_file for the full contents.\n{shown}",
            scrubbed.chars().count()
        )
    } else {
        format!("File edited: {raw} ({summary}).\n{shown}")
    }
}

/// The diff with its context lines scrubbed of credentials; added and removed lines verbatim.
fn scrub_context(diff: &str) -> String {
    let mut out = String::with_capacity(diff.len());
    for line in diff.split_inclusive('\n') {
        if line.starts_with(' ') {
            out.push_str(&redact::redact(line));
        } else {
            out.push_str(line);
        }
    }
    out
}

/// `diff` bounded to [`DIFF_MAX_CHARS`] characters, keeping whole lines of its head and tail
/// around an omission notice; whether it was cut.
fn bound(diff: &str) -> (String, bool) {
    let total = diff.chars().count();
    if total <= DIFF_MAX_CHARS {
        return (diff.to_string(), false);
    }
    let budget = (DIFF_MAX_CHARS - 200) / 2;
    let lines: Vec<&str> = diff.split_inclusive('\n').collect();
    let mut head = String::new();
    let mut used = 0;
    let mut first_tail = lines.len();
    let mut h = 0;
    while h < lines.len() {
        let n = lines[h].chars().count();
        if used + n > budget {
            break;
        }
        head.push_str(lines[h]);
        used += n;
        h += 1;
    }
    let mut tail_used = 0;
    while first_tail > h {
        let n = lines[first_tail - 1].chars().count();
        if tail_used + n > budget {
            break;
        }
        tail_used += n;
        first_tail -= 1;
    }
    if head.is_empty() {
        // One enormous line: cut it by characters.
        head = lines::cut_chars(diff, budget).0.to_string();
        used = head.chars().count();
    }
    let tail: String = lines[first_tail..].concat();
    let omitted = total.saturating_sub(used + tail_used);
    let mut out = head;
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&format!(
        "[... {omitted} characters of the diff omitted; call read_file for the full contents \
         ...]\n"
    ));
    out.push_str(&tail);
    (out, true)
}
