//! edit_file: one exact replacement (`old_text` → `new_text`) or a V4A patch of the file, written
//! atomically, answered with a unified diff.
//!
//! The diff (three context lines, `a/` and `b/` paths) is built only for files under 64 KiB and
//! 2,000 lines (before and after); larger files get a one-line summary and a pointer to
//! read_file. The text of every diff line passes through the credential scrubber (its `+`, `-`
//! or ` ` prefix kept outside it), and the diff is bounded to 12,288 characters: a longer diff
//! keeps its head and tail around an omission notice and says it was truncated.
//!
//! Text copied from a redacted read never replaces the value it hides ([`restore`]): an
//! `old_text` or a patch's context and removed lines that quote `[FILTERED]` are found in the
//! file as read_file shows it and stand for the raw lines there, and `[FILTERED]` in the new
//! text takes back the value of the line it was copied from, or the edit is refused before
//! anything is written. Errors about a patch that quotes hidden values are computed on the
//! redacted file, so they quote only what read_file shows.
//!
//! A UTF-8 file is edited byte for byte (each line keeps its own LF or CRLF ending, a BOM is
//! kept); a file in another encoding is decoded, edited as text and written back in its own
//! encoding through [`crate::text::encoding::rewrite`]. A file that starts with a UTF-16 or
//! UTF-32 byte-order mark is such text, never binary (its NUL bytes are its characters'), and
//! its diff is shown between the decoded texts.

use serde_json::Value;

use super::super::ToolOutput;
use super::super::args::Args;
use super::policy::{Op, lexical_absolute};
use super::{Call, unmapped, write_failed};
use crate::access::WriteOptions;
use crate::error::{ErrorKind, Result, ToolError};
use crate::ops::patch::{unified, v4a};
use crate::text::matcher::{self, Level};
use crate::text::redact::{self, FILTERED};
use crate::text::{encoding, lines, restore};

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
    if encoding::looks_binary(&original[..original.len().min(encoding::BINARY_SNIFF_LEN)]) {
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
        .map_err(|e| write_failed(e, &target.resolved))?;
    if let Some(session) = call.ctx.session() {
        let file = crate::session::FileRef::new(&target.access, &target.resolved);
        session.wrote(&file, crate::session::Base::Bytes(&original), Some(&edited));
    }
    let named = target.access.written_name(&target.resolved);
    let report = match encoding::wide_bom(&original) {
        // UTF-16/32: the diff is between the texts, as read_file and search_files show them.
        Some(_) => report(
            raw,
            &named,
            &summary,
            encoding::decode(&original, None).text.as_bytes(),
            encoding::decode(&edited, None).text.as_bytes(),
        ),
        None => report(raw, &named, &summary, &original, &edited),
    };
    Ok(ToolOutput::text(report))
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
    if let Ok(text) = std::str::from_utf8(original) {
        let (range, replacement) = locate(text, old, new)?;
        let edited = [&text[..range.start], &replacement, &text[range.end..]].concat();
        return Ok(restored(text, &edited)?.into_bytes());
    }
    let decoded = encoding::decode(original, None);
    let text = decoded.text.as_ref();
    let old = old.replace("\r\n", "\n");
    let new = new.replace("\r\n", "\n");
    let (range, replacement) = locate(text, &old, &new)?;
    let edited = [&text[..range.start], &replacement, &text[range.end..]].concat();
    encoding::rewrite(original, &decoded, &restored(text, &edited)?)
}

/// The one occurrence of `old` in `text` and the replacement adapted to it (line endings). An
/// `old` that quotes `[FILTERED]` and is not in the file literally is looked for in the file as
/// read_file shows it, and stands for the raw text there.
fn locate(text: &str, old: &str, new: &str) -> Result<(std::ops::Range<usize>, String)> {
    let usable = |f: &matcher::Found| matches!(f.level, Level::Exact | Level::LineEndings);
    if let Some(found) = matcher::find(text.as_bytes(), old, new).filter(usable) {
        let [range] = found.ranges.as_slice() else {
            return Err(not_unique(text.as_bytes(), &found.ranges));
        };
        return Ok((range.clone(), lossy(found.replacement)));
    }
    if !old.contains(FILTERED) {
        return Err(not_found());
    }
    let view = redact::redact_spans(text);
    let quoted = redact::redact(old);
    let Some(found) = matcher::find(view.text.as_bytes(), &quoted, new).filter(usable) else {
        return Err(ToolError::new(
            ErrorKind::NoMatch,
            format!(
                "old_text not found in file. It holds {FILTERED}, the placeholder read_file shows \
                 for a hidden credential-looking value; it matches only where old_text quotes the \
                 file exactly as read_file shows it (whole placeholders, whitespace and line \
                 breaks included). Re-read the file with read_file and copy the text from it, or \
                 quote only neighbouring text without the placeholder"
            ),
        ));
    };
    let Some(ranges) = found
        .ranges
        .iter()
        .map(|r| view.raw_range(r.clone()))
        .collect::<Option<Vec<_>>>()
    else {
        return Err(ToolError::new(
            ErrorKind::NoMatch,
            format!(
                "old_text starts or ends inside a {FILTERED} placeholder, which stands for a \
                 hidden value you cannot quote in part; include the whole placeholder or leave it \
                 out of old_text"
            ),
        ));
    };
    let [range] = ranges.as_slice() else {
        return Err(not_unique(text.as_bytes(), &ranges));
    };
    Ok((range.clone(), lossy(found.replacement)))
}

fn lossy(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// `edited`, the new contents of a file that held `text`, with `[FILTERED]` copied from a
/// redacted read mapped back to the values it hides; refused when that is not possible.
fn restored(text: &str, edited: &str) -> Result<String> {
    match restore::restore(text, edited) {
        Ok(done) => Ok(done.into_owned()),
        Err(u) => Err(unmapped(&u, "the edited file")),
    }
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
    if let Ok(text) = std::str::from_utf8(original) {
        let (bom, body) = match text.strip_prefix('\u{FEFF}') {
            Some(body) => (BOM, body),
            None => (&b""[..], text),
        };
        let applied = patch_text(body, hunks)?;
        let mut out = Vec::with_capacity(bom.len() + applied.len());
        out.extend_from_slice(bom);
        out.extend_from_slice(applied.as_bytes());
        return Ok(out);
    }
    let decoded = encoding::decode(original, None);
    let text = patch_text(&decoded.text, hunks)?;
    encoding::rewrite(original, &decoded, &text)
}

/// `hunks` applied to `text`. When they do not apply to the raw text and the file hides values,
/// they are placed in the file as read_file shows it (context and removed lines quoting
/// `[FILTERED]` then stand for the raw lines there, and errors quote only the redacted file);
/// `[FILTERED]` in added lines is mapped back by [`restored`].
fn patch_text(text: &str, hunks: &[v4a::Hunk]) -> Result<String> {
    let applied = match v4a::apply(text.as_bytes(), hunks) {
        Ok(applied) => applied.bytes,
        Err(raw_error) => {
            let view = redact::redact_spans(text);
            if view.masks.is_empty() {
                return Err(raw_error);
            }
            let seen: Vec<v4a::Hunk> = hunks.iter().map(redacted_hunk).collect();
            let placed = v4a::apply(view.text.as_bytes(), &seen)?;
            let requoted = requote(text, hunks, &placed.placements)?;
            v4a::apply(text.as_bytes(), &requoted)?.bytes
        }
    };
    restored(text, &lossy(applied))
}

/// The hunk as it compares with the redacted file: its context and removed lines redacted.
fn redacted_hunk(hunk: &v4a::Hunk) -> v4a::Hunk {
    let lines = hunk
        .lines
        .iter()
        .map(|l| match l.kind {
            v4a::LineKind::Added => l.clone(),
            kind => v4a::HunkLine {
                kind,
                text: redact::redact(&l.text).into_owned(),
            },
        })
        .collect();
    v4a::Hunk {
        lines,
        ..hunk.clone()
    }
}

/// The hunks with their context and removed lines replaced by the raw lines they were placed on
/// (through the redacted file). A line that quotes no placeholder must equal its raw line (up to
/// trailing whitespace): one that matched only through a value of its own is a mismatch.
fn requote(
    text: &str,
    hunks: &[v4a::Hunk],
    placements: &[v4a::Placement],
) -> Result<Vec<v4a::Hunk>> {
    let file: Vec<&str> = text.split_inclusive('\n').collect();
    let total = hunks.len();
    let mut out = Vec::with_capacity(total);
    for (number, (hunk, placement)) in hunks.iter().zip(placements).enumerate() {
        let mut at = placement.line.saturating_sub(1);
        let mut requoted = hunk.clone();
        if placement.level != v4a::MatchLevel::Appended {
            for line in requoted
                .lines
                .iter_mut()
                .filter(|l| l.kind != v4a::LineKind::Added)
            {
                let Some(raw) = file.get(at) else { break };
                let raw = String::from_utf8_lossy(lines::strip_ending(raw.as_bytes()));
                if line.text != raw {
                    if !line.text.contains(FILTERED) && line.text.trim_end() != raw.trim_end() {
                        return Err(ToolError::new(
                            ErrorKind::NoMatch,
                            format!(
                                "hunk {} of {total} (patch line {}): its line `{}` matches line \
                                 {} of the file only as read_file shows it, where a hidden value \
                                 is {FILTERED}, and the value it quotes there is not the file's. \
                                 Quote that line exactly as read_file shows it ({FILTERED} \
                                 included), then send the patch again. Nothing was written.",
                                number + 1,
                                hunk.line,
                                redact::redact(lines::cut_chars(&line.text, 160).0),
                                at + 1
                            ),
                        ));
                    }
                    line.text = raw.into_owned();
                }
                at += 1;
            }
        }
        out.push(requoted);
    }
    Ok(out)
}

/// The model-facing result: the summary line (naming the file as `named`) and the (bounded,
/// scrubbed) diff.
fn report(raw: &str, named: &str, summary: &str, old: &[u8], new: &[u8]) -> String {
    let too_big = old.len() >= DIFF_MAX_BYTES
        || new.len() >= DIFF_MAX_BYTES
        || lines::count(old) >= DIFF_MAX_LINES
        || lines::count(new) >= DIFF_MAX_LINES;
    if too_big {
        return format!(
            "File edited: {named} ({summary}). The diff is shown only for files under 64 KiB and \
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
    let scrubbed = scrub_diff(&diff);
    let (shown, truncated) = bound(&scrubbed);
    if truncated {
        format!(
            "File edited: {named} ({summary}). The diff is truncated: {} characters, shown as its \
             head and tail; call read_file for the full contents.\n{shown}",
            scrubbed.chars().count()
        )
    } else {
        format!("File edited: {named} ({summary}).\n{shown}")
    }
}

/// The diff with the text of every line scrubbed of credentials, each line's `+`, `-` or ` `
/// kept outside what the scrubber measures.
fn scrub_diff(diff: &str) -> String {
    diff.split_inclusive('\n')
        .enumerate()
        .map(|(i, line)| {
            let header = i < 2 && (line.starts_with("--- ") || line.starts_with("+++ "));
            match line.as_bytes().first() {
                Some(b'+' | b'-' | b' ') if !header => {
                    format!("{}{}", &line[..1], redact::redact(&line[1..]))
                }
                _ => redact::redact(line).into_owned(),
            }
        })
        .collect()
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
