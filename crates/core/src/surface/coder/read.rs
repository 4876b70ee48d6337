//! read-file: a stat probe, a streamed line window, a full read budgeted by max_output_bytes,
//! or a batch of those against one shared budget.
//!
//! Every byte cap counts what is returned: content after UTF-8 sanitisation (an invalid
//! sequence becomes a three-byte U+FFFD) with the `N→` prefixes of a numbered read. A line is a
//! segment ended by `\n` or by the end of the file (the convention of update-file), and a window
//! returns whole lines only.
//!
//! A file that starts with a UTF-16 or UTF-32 byte-order mark is text, not binary: read-file
//! returns its decoded text (lines ended by `\n`, whatever the file's endings), counts lines,
//! windows and budgets in that text, sets `is_utf8: false` (the file's bytes are not UTF-8)
//! and names the file's format in `encoding` (`UTF-16LE with BOM, CRLF`); update-file edits
//! the same text and writes it back in the same encoding, BOM and line endings. Such a file is
//! decoded whole, up to [`DECODE_MAX`] bytes.
//!
//! Paging by the fields alone never skips or repeats a line: a window that returns
//! `lines_returned` N with `more_lines` goes on at `line_from` + N, and a window whose first line
//! does not fit its byte room is a C213 naming the call that goes on (never an empty window
//! whose `more_lines` would send the caller back to the same line).

use std::borrow::Cow;
use std::io::{self, Read};

use super::wire::{ReadEntryResult, ReadFileInput, ReadFileOutput, ReadTarget};
use super::{Ctx, canonical, wire_error};
use crate::access::{Meta, OpenFile, Resolved};
use crate::error::{ErrorKind, Result, ToolError};
use crate::ops::read::{DECODE_MAX, LineSink, LineWindow, stream_lines};
use crate::session::FileRef;
use crate::text::encoding::{self, Decoded};

/// Once a window is complete, the bytes a read may go on reading to find the end of the file
/// (and so report its line count): what one buffer of the streaming engine holds.
const WINDOW_TAIL: u64 = 256 * 1024;

pub(super) fn call(ctx: &Ctx<'_>, input: ReadFileInput) -> Result<ReadFileOutput> {
    match (&input.path, &input.paths) {
        (Some(_), Some(_)) => Err(ToolError::invalid(
            "both path and paths are set, but they are exclusive: pass path alone to read one \
             file, or paths: [...] alone to read several in one call",
        )),
        (None, None) => Err(ToolError::invalid(
            "neither path nor paths is set: pass path: \"<file>\" to read one file, or paths: \
             [\"<file>\", {\"path\": \"<file>\", \"line_from\": 1, \"line_to\": 50}] to read \
             several",
        )),
        (Some(path), None) => single(ctx, path, &input),
        (None, Some(targets)) => {
            let base = ctx.base(input.base_dir.as_deref())?;
            Ok(ReadFileOutput {
                results: Some(batch(ctx, base.as_ref(), targets)),
                ..ReadFileOutput::default()
            })
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The single-path mode

fn single(ctx: &Ctx<'_>, raw: &str, input: &ReadFileInput) -> Result<ReadFileOutput> {
    let window = parse_window(input.line_from, input.line_to)?;
    if input.stat {
        let conflict = if window.is_some() {
            Some("line_from/line_to")
        } else if input.numbered {
            Some("numbered")
        } else if input.max_output_bytes.is_some() {
            Some("max_output_bytes")
        } else {
            None
        };
        if let Some(field) = conflict {
            return Err(stat_conflict(raw, field));
        }
    }
    if let (Some(budget), Some((from, to))) = (input.max_output_bytes, window) {
        return Err(ToolError::invalid(format!(
            "max_output_bytes ({budget}) budgets full reads only, and line_from/line_to ({}) \
             asks for a window, which max_read_bytes ({}) bounds instead; drop \
             max_output_bytes to read the window, or drop line_from/line_to to read all of {raw}",
            window_text(from, to),
            ctx.limits.max_read_bytes
        )));
    }
    let base = ctx.base(input.base_dir.as_deref())?;
    let target = ctx.resolve(raw, base.as_ref())?;
    let (mut file, meta) = open(ctx, &target)?;
    let wide = wide_text(&target, &mut file, &meta)?;
    let shows_content = !input.stat;
    let read = if input.stat {
        probe(ctx, &target, file, &meta, wide.as_ref())?
    } else if let Some((from, to)) = window {
        let room = usize_of(ctx.limits.max_read_bytes);
        let read = windowed(
            &target,
            file,
            wide.as_ref(),
            (from, to),
            input.numbered,
            room,
        )?;
        if read.stuck {
            return Err(line_over_max_read_bytes(ctx, &target, from, input.numbered));
        }
        read
    } else {
        full(
            ctx,
            &target,
            (file, wide.as_ref()),
            &meta,
            input.numbered,
            input.max_output_bytes,
        )?
    };
    if let (true, Some(session)) = (shows_content, ctx.call.session()) {
        let seen = FileRef::in_folder(ctx.access, &target, base.as_ref());
        session.read(&seen, Some(meta.stamp));
    }
    Ok(ReadFileOutput {
        content: read.content,
        encoding: read.encoding,
        is_utf8: read.is_utf8,
        lines_returned: Some(read.lines_returned),
        mode: Some(meta.mode & 0o777),
        more_lines: Some(read.more_lines),
        mtime: Some(meta.mtime),
        path: Some(canonical(&target)),
        results: None,
        size: Some(meta.len),
        total_lines: read.total_lines,
    })
}

/// What one read returned, before the metadata is added.
struct Read1 {
    content: Option<String>,
    /// The format of a file decoded from UTF-16 or UTF-32.
    encoding: Option<String>,
    is_utf8: Option<bool>,
    lines_returned: u64,
    total_lines: Option<u64>,
    more_lines: bool,
    /// A window whose first line alone did not fit its byte room: nothing was returned, and the
    /// same call would return nothing again.
    stuck: bool,
}

/// Validates a window: `None` for a full read, else the first line and the optional last.
fn parse_window(
    line_from: Option<u64>,
    line_to: Option<u64>,
) -> Result<Option<(u64, Option<u64>)>> {
    if line_from.is_none() && line_to.is_none() {
        return Ok(None);
    }
    if line_from == Some(0) {
        return Err(ToolError::invalid(
            "line_from 0 is not a line: lines are numbered from 1; pass line_from: 1 to start at \
             the first line",
        ));
    }
    let from = line_from.unwrap_or(1);
    if let Some(to) = line_to
        && to < from
    {
        return Err(ToolError::invalid(format!(
            "line_to ({to}) is before line_from ({from}); the window is 1-based and inclusive, so \
             pass line_to >= line_from (line_from: {from}, line_to: {from} reads one line), or \
             leave line_to out to read to the end",
        )));
    }
    Ok(Some((from, line_to)))
}

fn window_text(from: u64, to: Option<u64>) -> String {
    match to {
        Some(to) => format!("lines {from}-{to}"),
        None => format!("lines {from}-end"),
    }
}

fn stat_conflict(raw: &str, field: &str) -> ToolError {
    ToolError::invalid(format!(
        "stat: true returns metadata only, no content, so {field} has nothing to act on; drop \
         {field} to probe {raw}, or drop stat to read its content",
    ))
}

/// Opens the regular file at `target`, with the errors a read gives.
fn open(ctx: &Ctx<'_>, target: &Resolved) -> Result<(OpenFile, Meta)> {
    ctx.access.open_regular(target).map_err(|e| {
        let shown = &target.shown;
        match e.kind() {
            io::ErrorKind::NotFound => ToolError::not_found(format!(
                "{shown} does not exist; check the path with list-folder on its folder, or \
                 search for the file by name with search"
            )),
            io::ErrorKind::IsADirectory => ToolError::invalid(format!(
                "{shown} is a directory, not a file; list it with list-folder or tree, then read \
                 one of its files"
            )),
            io::ErrorKind::InvalidInput => ToolError::invalid(format!(
                "{shown} is not a regular file (a FIFO, socket or device), so it is not read; \
                 read-file reads regular files only"
            )),
            _ => ToolError::new(ErrorKind::Io, format!("could not open {shown}: {e}")),
        }
    })
}

fn io_error(target: &Resolved, e: &io::Error) -> ToolError {
    ToolError::new(
        ErrorKind::Io,
        format!("could not read {}: {e}", target.shown),
    )
}

fn usize_of(n: u64) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

/// The decoded text of the file when it starts with a UTF-16 or UTF-32 byte-order mark (then
/// read whole, up to [`DECODE_MAX`] bytes); `None` for every other file, whose handle is left
/// at its start.
fn wide_text(target: &Resolved, file: &mut OpenFile, meta: &Meta) -> Result<Option<Decoded>> {
    let mut head = [0u8; 4];
    let n = crate::access::fs::read_full(file, &mut head).map_err(|e| io_error(target, &e))?;
    io::Seek::seek(file, io::SeekFrom::Start(0)).map_err(|e| io_error(target, &e))?;
    let Some(wide) = encoding::wide_bom(&head[..n]) else {
        return Ok(None);
    };
    let shown = &target.shown;
    let too_large = |size: u64| {
        ToolError::new(
            ErrorKind::TooLarge,
            format!(
                "{shown} is {} text of {size} bytes; read-file decodes such text up to {} MiB, \
                 so it is not read; search finds lines in it up to max_read_bytes, or convert it \
                 to UTF-8 with another tool",
                wide.name(),
                DECODE_MAX >> 20
            ),
        )
    };
    if meta.len > DECODE_MAX {
        return Err(too_large(meta.len));
    }
    let bytes = read_up_to(file, DECODE_MAX, meta.len)
        .map_err(|e| io_error(target, &e))?
        .ok_or_else(|| too_large(DECODE_MAX.saturating_add(1)))?;
    Ok(Some(encoding::decode(&bytes, None)))
}

/// The metadata probe: the line count and UTF-8 check only when the file fits max_read_bytes.
fn probe(
    ctx: &Ctx<'_>,
    target: &Resolved,
    mut file: OpenFile,
    meta: &Meta,
    wide: Option<&Decoded>,
) -> Result<Read1> {
    let limit = ctx.limits.max_read_bytes;
    let scan = if meta.len > limit {
        None
    } else if let Some(decoded) = wide {
        Some(crate::ops::read::Scan {
            lines: count_lines(decoded.text.as_bytes()),
            utf8: false,
        })
    } else {
        crate::ops::read::scan(&mut file, limit).map_err(|e| io_error(target, &e))?
    };
    Ok(Read1 {
        content: None,
        encoding: wide.map(|d| d.format.to_string()),
        is_utf8: scan.map(|s| s.utf8),
        lines_returned: 0,
        total_lines: scan.map(|s| s.lines),
        more_lines: false,
        stuck: false,
    })
}

/// Collects a window's lines while they fit `budget` returned bytes.
struct Collect {
    out: String,
    budget: usize,
    numbered: bool,
    is_utf8: bool,
}

impl LineSink for Collect {
    fn room(&self) -> usize {
        // Sanitising never shrinks a line, so a raw line longer than this cannot fit.
        self.budget.saturating_sub(self.out.len())
    }

    fn take(&mut self, number: u64, line: &[u8]) -> bool {
        let text = String::from_utf8_lossy(line);
        let prefix = if self.numbered {
            format!("{number}\u{2192}")
        } else {
            String::new()
        };
        if self.out.len() + prefix.len() + text.len() > self.budget {
            return false;
        }
        self.is_utf8 &= matches!(text, Cow::Borrowed(_));
        self.out.push_str(&prefix);
        self.out.push_str(&text);
        true
    }
}

/// Streams the window `from..=to` of `file` (of its decoded text when `wide`), returning at
/// most `budget` bytes of whole lines.
fn windowed(
    target: &Resolved,
    mut file: OpenFile,
    wide: Option<&Decoded>,
    (from, to): (u64, Option<u64>),
    numbered: bool,
    budget: usize,
) -> Result<Read1> {
    let mut sink = Collect {
        out: String::new(),
        budget,
        numbered,
        is_utf8: true,
    };
    let window = LineWindow {
        first: from,
        last: to,
        tail: WINDOW_TAIL,
    };
    let read = match wide {
        Some(decoded) => stream_lines(&mut decoded.text.as_bytes(), window, &mut sink),
        None => stream_lines(&mut file, window, &mut sink),
    }
    .map_err(|e| io_error(target, &e))?;
    Ok(Read1 {
        content: Some(sink.out),
        encoding: wide.map(|d| d.format.to_string()),
        is_utf8: Some(sink.is_utf8 && wide.is_none()),
        lines_returned: read.taken,
        total_lines: read.total,
        more_lines: read.more,
        stuck: read.cut && read.taken == 0,
    })
}

/// A window's first line is longer than max_read_bytes: no read can return it, so the error
/// says so and names the window that goes on after it (rather than an empty window whose
/// `more_lines` would send the caller back to the same line forever).
fn line_over_max_read_bytes(
    ctx: &Ctx<'_>,
    target: &Resolved,
    line: u64,
    numbered: bool,
) -> ToolError {
    let shown = &target.shown;
    let prefix = if numbered {
        " with its number prefix"
    } else {
        ""
    };
    ToolError::new(
        ErrorKind::TooLarge,
        format!(
            "line {line} of {shown} is longer{prefix} than max_read_bytes ({}), the most one \
             window returns, so read-file cannot return it; read on after it with \
             {{\"path\": \"{shown}\", \"line_from\": {}}}",
            ctx.limits.max_read_bytes,
            line + 1
        ),
    )
}

/// Reads the whole file when it holds at most `limit` bytes.
fn read_up_to(file: &mut OpenFile, limit: u64, size: u64) -> io::Result<Option<Vec<u8>>> {
    let mut bytes = Vec::with_capacity(usize_of(size.min(limit)));
    file.take(limit.saturating_add(1)).read_to_end(&mut bytes)?;
    Ok((bytes.len() as u64 <= limit).then_some(bytes))
}

/// Prefixes every line of `text` with its number and an arrow, from line 1.
fn number_lines(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 4);
    for (n, line) in (1u64..).zip(text.split_inclusive('\n')) {
        out.push_str(&format!("{n}\u{2192}"));
        out.push_str(line);
    }
    out
}

/// A full read: refused over max_read_bytes, and over the output budget with the file's size,
/// its line count and the calls that read it anyway.
fn full(
    ctx: &Ctx<'_>,
    target: &Resolved,
    (mut file, wide): (OpenFile, Option<&Decoded>),
    meta: &Meta,
    numbered: bool,
    max_output_bytes: Option<u64>,
) -> Result<Read1> {
    let limit = ctx.limits.max_read_bytes;
    let shown = &target.shown;
    let too_large = |size: u64| {
        ToolError::new(
            ErrorKind::TooLarge,
            format!(
                "{shown} is {size} bytes, over max_read_bytes ({limit}), so it is not read whole; \
                 read it a window at a time with line_from/line_to (e.g. {{\"path\": \
                 \"{shown}\", \"line_from\": 1, \"line_to\": 200}}), or probe it first with \
                 {{\"path\": \"{shown}\", \"stat\": true}}"
            ),
        )
    };
    if meta.len > limit {
        return Err(too_large(meta.len));
    }
    let (lines, text, is_utf8) = match wide {
        Some(decoded) => (
            count_lines(decoded.text.as_bytes()),
            decoded.text.clone(),
            false,
        ),
        None => {
            let bytes = read_up_to(&mut file, limit, meta.len)
                .map_err(|e| io_error(target, &e))?
                .ok_or_else(|| too_large(limit.saturating_add(1)))?;
            let lines = count_lines(&bytes);
            match String::from_utf8(bytes) {
                Ok(text) => (lines, text, true),
                Err(e) => (
                    lines,
                    String::from_utf8_lossy(e.as_bytes()).into_owned(),
                    false,
                ),
            }
        }
    };
    let content = if numbered { number_lines(&text) } else { text };
    let budget = match max_output_bytes {
        Some(asked) => asked.min(limit),
        None => ctx.limits.max_output_bytes,
    };
    let returned = content.len() as u64;
    if returned > budget {
        let fit = content
            .split_inclusive('\n')
            .scan(0u64, |used, line| {
                *used += line.len() as u64;
                (*used <= budget).then_some(())
            })
            .count();
        let window = if fit > 0 {
            format!(
                "read the first {fit} lines that fit with {{\"path\": \"{shown}\", \
                 \"line_from\": 1, \"line_to\": {fit}}} and go on from line {} (windows are \
                 bounded by max_read_bytes, {limit})",
                fit + 1
            )
        } else {
            format!(
                "its first line alone is over the budget; read windows with \
                 {{\"path\": \"{shown}\", \"line_from\": 1, \"line_to\": 1}} (windows are \
                 bounded by max_read_bytes, {limit})"
            )
        };
        let raise = if returned <= limit {
            format!(", or pass max_output_bytes: {returned} to read it whole")
        } else {
            format!(
                "; max_output_bytes cannot be raised past max_read_bytes ({limit}), so a full \
                 read cannot return it"
            )
        };
        let numbered_note = if numbered {
            " (line-number prefixes included)"
        } else {
            ""
        };
        return Err(ToolError::new(
            ErrorKind::TooLarge,
            format!(
                "a full read of {shown} would return {returned} bytes{numbered_note}, over the \
                 max_output_bytes budget ({budget}); the file is {} bytes and has {lines} lines \
                 (total_lines). To recover, {window}; probe it with {{\"path\": \"{shown}\", \
                 \"stat\": true}}{raise}",
                meta.len
            ),
        ));
    }
    Ok(Read1 {
        content: Some(content),
        encoding: wide.map(|d| d.format.to_string()),
        is_utf8: Some(is_utf8),
        lines_returned: lines,
        total_lines: Some(lines),
        more_lines: false,
        stuck: false,
    })
}

fn count_lines(bytes: &[u8]) -> u64 {
    let newlines = memchr::memchr_iter(b'\n', bytes).count() as u64;
    newlines + u64::from(bytes.last().is_some_and(|b| *b != b'\n'))
}

// ---------------------------------------------------------------------------------------------
// The batch mode

fn failed(path: String, err: &ToolError) -> ReadEntryResult {
    ReadEntryResult {
        path,
        success: false,
        error: Some(wire_error(err)),
        ..ReadEntryResult::default()
    }
}

fn batch(ctx: &Ctx<'_>, base: Option<&Resolved>, targets: &[ReadTarget]) -> Vec<ReadEntryResult> {
    let budget = ctx.limits.batch_read_budget_bytes;
    let mut remaining = budget;
    let mut results = Vec::with_capacity(targets.len());
    for (index, target) in targets.iter().enumerate() {
        let (raw, from, to, stat, numbered) = match target {
            ReadTarget::Bare(path) => (path.as_str(), None, None, false, false),
            ReadTarget::Spec(spec) => (
                spec.path.as_str(),
                spec.line_from,
                spec.line_to,
                spec.stat,
                spec.numbered,
            ),
        };
        let window = match parse_window(from, to) {
            Ok(window) => window,
            Err(e) => {
                results.push(failed(raw.to_string(), &entry_error(e, index)));
                continue;
            }
        };
        if stat && (window.is_some() || numbered) {
            let field = if window.is_some() {
                "line_from/line_to"
            } else {
                "numbered"
            };
            let err = entry_error(stat_conflict(raw, field), index);
            results.push(failed(raw.to_string(), &err));
            continue;
        }
        let resolved = match ctx.resolve(raw, base) {
            Ok(resolved) => resolved,
            Err(e) => {
                results.push(failed(raw.to_string(), &e));
                continue;
            }
        };
        let (mut file, meta) = match open(ctx, &resolved) {
            Ok(opened) => opened,
            Err(e) => {
                let echo = if e.kind == ErrorKind::NotFound {
                    raw.to_string()
                } else {
                    canonical(&resolved)
                };
                results.push(failed(echo, &e));
                continue;
            }
        };
        let wide = match wide_text(&resolved, &mut file, &meta) {
            Ok(wide) => wide,
            Err(e) => {
                results.push(failed(canonical(&resolved), &e));
                continue;
            }
        };
        let read = if stat {
            probe(ctx, &resolved, file, &meta, wide.as_ref())
        } else if remaining == 0 {
            Err(ToolError::new(
                ErrorKind::TooLarge,
                format!(
                    "the batch budget is used up before entry {index} ({raw}): \
                     batch_read_budget_bytes is {budget} and the entries before it returned \
                     {} bytes of content; read {raw} in another call, ask for smaller windows \
                     (line_from/line_to) in this one, or probe it with stat: true (free of \
                     budget)",
                    budget - remaining
                ),
            ))
        } else {
            let (from, to) = window.unwrap_or((1, None));
            let room = usize_of(remaining.min(ctx.limits.max_read_bytes));
            windowed(&resolved, file, wide.as_ref(), (from, to), numbered, room).and_then(|read| {
                if !read.stuck {
                    Ok(read)
                } else if remaining < ctx.limits.max_read_bytes {
                    Err(ToolError::new(
                        ErrorKind::TooLarge,
                        format!(
                            "paths[{index}]: line {from} of {raw} does not fit the {remaining} \
                             bytes left of the batch budget (batch_read_budget_bytes is \
                             {budget}), so nothing of it was returned; read it in a call of its \
                             own: {{\"path\": \"{raw}\", \"line_from\": {from}}}"
                        ),
                    ))
                } else {
                    Err(line_over_max_read_bytes(ctx, &resolved, from, numbered))
                }
            })
        };
        match read {
            Ok(read) => {
                if let (false, Some(session)) = (stat, ctx.call.session()) {
                    let seen = FileRef::in_folder(ctx.access, &resolved, base);
                    session.read(&seen, Some(meta.stamp));
                }
                let returned = read.content.as_ref().map_or(0, |c| c.len() as u64);
                remaining = remaining.saturating_sub(returned);
                results.push(ReadEntryResult {
                    content: read.content,
                    encoding: read.encoding,
                    error: None,
                    is_utf8: read.is_utf8,
                    lines_returned: Some(read.lines_returned),
                    mode: Some(meta.mode & 0o777),
                    more_lines: Some(read.more_lines),
                    mtime: Some(meta.mtime),
                    path: canonical(&resolved),
                    size: Some(meta.len),
                    success: true,
                    total_lines: read.total_lines,
                });
            }
            Err(e) => results.push(failed(canonical(&resolved), &e)),
        }
    }
    results
}

/// Names the batch entry an input error belongs to.
fn entry_error(err: ToolError, index: usize) -> ToolError {
    ToolError::new(err.kind, format!("paths[{index}]: {}", err.message))
}
