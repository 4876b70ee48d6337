//! read_file in its two modes.
//!
//! **Bytes** (`offset`, `length`): the window's bytes after a header
//! `[file: NAME | total: N bytes | read: bytes A-B]` and a line saying whether the file goes on
//! (`[TRUNCATED - ... offset=B+1 ...]`) or ended (`[END OF FILE - no further content.]`).
//!
//! **Lines** (`start_line`, `max_lines`): `N|text` lines after a header
//! `[file: NAME | read: lines A-B (1-indexed) | file_bytes: F | output_bytes: O]` and a
//! continuation line. A line longer than `max_line_length` characters is cut there with
//! ` … [truncated]`; the output is bounded by `max_read_file_size` bytes, and when that budget
//! runs out in the middle of a line the header says so.
//!
//! Both modes pass the text through the credential scrubber; headers, offsets and line
//! numbers count the raw file. The file is streamed: memory follows the window.

use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};

use serde_json::Value;

use super::super::ToolOutput;
use super::super::args::Args;
use super::policy::Op;
use super::{Call, spill};
use crate::access::Resolved;
use crate::config::picoclaw::ReadFileMode;
use crate::error::{Result, ToolError};
use crate::text::{lines, redact};

/// How much of the start of a file decides whether it is binary (line mode).
const BINARY_SNIFF: usize = 8 * 1024;
/// The marker of a line cut at `max_line_length`.
const TRUNCATED_MARK: &str = " … [truncated]";

pub(super) fn read_file(call: &Call<'_>, args: Value) -> Result<ToolOutput> {
    let settings = call.pico.config().read_file;
    let given = |k: &str| args.get(k).is_some_and(|v| !v.is_null());
    let (foreign, known): (&[(&str, &str)], &[&str]) = match settings.mode {
        ReadFileMode::Bytes => (
            &[
                ("start_line", "offset"),
                ("max_lines", "length"),
                ("limit", "length"),
            ],
            &["path", "offset", "length"],
        ),
        ReadFileMode::Lines => (
            &[
                ("offset", "start_line"),
                ("length", "max_lines"),
                ("limit", "max_lines"),
            ],
            &["path", "start_line", "max_lines"],
        ),
    };
    for (k, use_instead) in foreign {
        if given(k) {
            let mode = match settings.mode {
                ReadFileMode::Bytes => {
                    "bytes mode (read_file pages by byte offset and length here)"
                }
                ReadFileMode::Lines => "line mode",
            };
            return Err(ToolError::invalid(format!(
                "{k} is not supported in {mode}; use {use_instead}"
            )));
        }
    }
    let args = Args::parse("read_file", args, known)?;
    let raw = args.str("path")?;
    let target = call.pico.policy.locate(call.ws, raw, Op::Read)?;
    let (file, meta) = target
        .access
        .open_regular(&target.resolved)
        .map_err(|e| open_error(&e, &target.resolved))?;
    let name = base_name(&target.resolved);
    match settings.mode {
        ReadFileMode::Bytes => {
            let offset = args.opt_uint("offset")?.unwrap_or(0);
            let length = match args.opt_uint("length")? {
                None => settings.max_read_file_size,
                Some(0) => return Err(ToolError::invalid("length must be > 0")),
                Some(n) => n.min(settings.max_read_file_size),
            };
            bytes_mode(file, meta.len, &name, offset, length, raw)
        }
        ReadFileMode::Lines => {
            let start = match args.opt_uint("start_line")? {
                None => 1,
                Some(0) => return Err(ToolError::invalid("start_line must be >= 1")),
                Some(n) => n,
            };
            let (max, asked) = match args.opt_uint("max_lines")? {
                None => (settings.max_lines, false),
                Some(0) => {
                    return Err(ToolError::invalid("max_lines, if provided, must be > 0"));
                }
                Some(n) => (n.min(settings.max_lines), true),
            };
            let window = LineWindow {
                start,
                max,
                asked,
                budget: settings.max_read_file_size,
                max_line_length: usize::try_from(settings.max_line_length).unwrap_or(usize::MAX),
            };
            lines_mode(file, &name, raw, &window)
        }
    }
}

fn open_error(err: &std::io::Error, target: &Resolved) -> ToolError {
    match err.kind() {
        std::io::ErrorKind::NotFound => ToolError::not_found(format!(
            "failed to read file: file not found: {}; check the path with list_dir or \
             search_files",
            target.shown
        )),
        std::io::ErrorKind::IsADirectory => ToolError::invalid(format!(
            "failed to read file: {} is a directory; use list_dir to see its entries",
            target.shown
        )),
        _ => ToolError::from_io(err, "read", &target.shown),
    }
}

fn base_name(target: &Resolved) -> String {
    target.path.file_name().map_or_else(
        || target.shown.clone(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// Text a model may see: credentials scrubbed, invisible characters and data URLs stripped
/// (long base64 runs stay: read_file is exempt from that guard).
pub(super) fn for_model(text: &str) -> String {
    spill::guard(&redact::redact(text), true).into_owned()
}

fn bytes_mode(
    mut file: std::fs::File,
    total: u64,
    name: &str,
    offset: u64,
    length: u64,
    shown: &str,
) -> Result<ToolOutput> {
    file.seek(SeekFrom::Start(offset))
        .map_err(|e| ToolError::from_io(&e, "read", shown))?;
    let want = usize::try_from(length.saturating_add(1)).unwrap_or(usize::MAX);
    let mut data = Vec::with_capacity(want.min(1 << 20));
    (&mut file)
        .take(length.saturating_add(1))
        .read_to_end(&mut data)
        .map_err(|e| ToolError::from_io(&e, "read", shown))?;
    let has_more = data.len() as u64 > length;
    data.truncate(usize::try_from(length).unwrap_or(usize::MAX));
    if data.is_empty() {
        return Ok(ToolOutput::text(format!(
            "[END OF FILE - no content at this offset] (the file has {total} bytes)"
        )));
    }
    let end = offset + data.len() as u64;
    let mut header = format!(
        "[file: {name} | total: {total} bytes | read: bytes {offset}-{}]",
        end - 1
    );
    if has_more {
        header.push_str(&format!(
            "\n[TRUNCATED - file has more content. Call read_file again with offset={end} to \
             continue.]"
        ));
    } else {
        header.push_str("\n[END OF FILE - no further content.]");
    }
    let text = for_model(&String::from_utf8_lossy(&data));
    Ok(ToolOutput::text(format!("{header}\n\n{text}")))
}

struct LineWindow {
    start: u64,
    max: u64,
    /// Whether the caller named max_lines (the continuation hint repeats it).
    asked: bool,
    budget: u64,
    max_line_length: usize,
}

/// One line read with a cap on what is kept.
struct Line {
    kept: Vec<u8>,
    /// The line's full length, its ending included.
    len: u64,
    ended: bool,
}

/// Reads the next line, keeping at most `keep` bytes of it; `None` at the end of the file.
fn next_line(reader: &mut impl BufRead, keep: usize) -> std::io::Result<Option<Line>> {
    let mut line = Line {
        kept: Vec::new(),
        len: 0,
        ended: false,
    };
    loop {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            return Ok((line.len > 0).then_some(line));
        }
        let (chunk, done) = match memchr::memchr(b'\n', buf) {
            Some(at) => (&buf[..=at], true),
            None => (buf, false),
        };
        let room = keep.saturating_sub(line.kept.len());
        line.kept.extend_from_slice(&chunk[..chunk.len().min(room)]);
        line.len += chunk.len() as u64;
        let used = chunk.len();
        reader.consume(used);
        if done {
            line.ended = true;
            return Ok(Some(line));
        }
    }
}

fn lines_mode(
    file: std::fs::File,
    name: &str,
    shown: &str,
    window: &LineWindow,
) -> Result<ToolOutput> {
    let io = |e: std::io::Error| ToolError::from_io(&e, "read", shown);
    let mut reader = BufReader::with_capacity(32 * 1024, file);
    let head = reader.fill_buf().map_err(io)?;
    let sniff = &head[..head.len().min(BINARY_SNIFF)];
    if memchr::memchr(0, sniff).is_some() {
        return Err(ToolError::invalid(format!(
            "{shown} appears to be binary (it holds a NUL byte near its start); line mode \
             reads text files only"
        )));
    }
    let mut index: u64 = 1;
    while index < window.start {
        if next_line(&mut reader, 0).map_err(io)?.is_none() {
            return Ok(ToolOutput::text(format!(
                "[END OF FILE - no content at or after start_line={}] (the file has {} lines)",
                window.start,
                index - 1
            )));
        }
        index += 1;
    }
    // Enough bytes to hold max_line_length characters and tell that more followed.
    let keep = window.max_line_length.saturating_mul(4).saturating_add(8);
    let budget = usize::try_from(window.budget).unwrap_or(usize::MAX);
    let mut out = String::new();
    let mut read: u64 = 0;
    let mut file_bytes: u64 = 0;
    let mut reached_eof = false;
    let mut budget_hit = false;
    let mut cut_mid_line = false;
    while read < window.max {
        let prefix = format!("{index}|");
        let Some(remaining) = budget
            .checked_sub(out.len() + prefix.len())
            .filter(|r| *r > 0)
        else {
            budget_hit = true;
            break;
        };
        let Some(line) = next_line(&mut reader, keep).map_err(io)? else {
            reached_eof = true;
            break;
        };
        let content = lines::strip_ending(&line.kept);
        let text = for_model(&String::from_utf8_lossy(content));
        let (kept, cut) = lines::cut_chars(&text, window.max_line_length);
        let over_kept = line.kept.len() as u64 >= keep as u64 && line.len > line.kept.len() as u64;
        let mut rendered = kept.to_string();
        if cut > 0 || over_kept {
            rendered.push_str(TRUNCATED_MARK);
        }
        if line.ended {
            rendered.push('\n');
        }
        out.push_str(&prefix);
        file_bytes += line.len;
        read += 1;
        index += 1;
        if rendered.len() > remaining {
            let at = lines::utf8_floor(rendered.as_bytes(), remaining);
            out.push_str(&rendered[..at]);
            budget_hit = true;
            cut_mid_line = true;
            break;
        }
        out.push_str(&rendered);
    }
    if !reached_eof && !cut_mid_line && reader.fill_buf().map_err(io)?.is_empty() {
        reached_eof = true;
        budget_hit = false;
    }
    if read == 0 && out.is_empty() {
        return Ok(ToolOutput::text(format!(
            "[END OF FILE - no content at or after start_line={}]",
            window.start
        )));
    }
    let last = window.start + read - 1;
    let mut header = format!(
        "[file: {name} | read: lines {}-{last} (1-indexed) | file_bytes: {file_bytes} | \
         output_bytes: {}]",
        window.start,
        out.len()
    );
    let next = window.start + read;
    let max_hint = if window.asked {
        format!(" and max_lines={}", window.max)
    } else {
        String::new()
    };
    if cut_mid_line {
        header.push_str(&format!(
            "\n[TRUNCATED - line {last} exceeded the {} byte read budget and was cut mid-line. \
             Call read_file again with start_line={last} to read that line from its start, or \
             start_line={next} to continue after it.]",
            window.budget
        ));
    } else if budget_hit {
        header.push_str(&format!(
            "\n[TRUNCATED - byte budget reached. Call read_file again with start_line={next}\
             {max_hint} to continue at the next line.]"
        ));
    } else if !reached_eof {
        header.push_str(&format!(
            "\n[PARTIAL - more content remains. Call read_file again with start_line={next} and \
             max_lines={} to continue.]",
            window.max
        ));
    } else {
        header.push_str("\n[END OF FILE - no further content.]");
    }
    Ok(ToolOutput::text(format!("{header}\n\n{out}")))
}
