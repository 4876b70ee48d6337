//! read_file in its two modes.
//!
//! **Bytes** (`offset`, `length`): the window's bytes after a header
//! `[file: NAME | total: N bytes | read: bytes A-B]` and a line saying whether the file goes on
//! (`[TRUNCATED - ... offset=B+1 ...]`) or ended (`[END OF FILE - no further content.]`).
//!
//! **Lines** (`start_line`, `max_lines`): `N|text` lines after a header
//! `[file: NAME | read: lines A-B (1-indexed) | file_bytes: F | output_bytes: O]` and a
//! continuation line. A line longer than `max_line_length` characters is cut there with
//! ` … [truncated]`; the output is bounded by `max_read_file_size` bytes. A line that does not
//! fit what is left waits for the next call; only a window's first line, when it alone does not
//! fit, is cut mid-line, and the header says so.
//!
//! **Following the footers never skips content.** A read_file result is never spilled: a window
//! is shortened until the rendered result (header, text and continuation line) fits
//! `tools.max_inline_result_chars`, so the offset or line the footer names is the first one the
//! model has not seen. A byte window ends on a character boundary (and, when it was shortened,
//! at a line end or blank in its second half, so a credential is rarely cut in two); the text is
//! measured after scrubbing, which can change its length.
//!
//! **UTF-16 and UTF-32 text.** A file that starts with a UTF-16 or UTF-32 byte-order mark is
//! text, never binary. Line mode shows its decoded text (decoded whole, up to
//! [`DECODE_MAX`] bytes), lines numbered as in that text and `file_bytes` counting the file's
//! own bytes of the lines shown. Byte mode shows the bytes as stored, as it does for every
//! file, with a note after the header naming the encoding and the tools that work on the
//! decoded text (search_files, edit_file).
//!
//! Both modes pass the text through the credential scrubber; headers, offsets and line
//! numbers count the raw file. A byte window is scrubbed together with the rest of the lines
//! it cuts, so a credential it shows only part of (an offset or length the model chose) is
//! still one `[FILTERED]`. The file is streamed: memory follows the window.

use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};

use serde_json::Value;

use super::super::ToolOutput;
use super::super::args::Args;
use super::policy::Op;
use super::{Call, spill};
use crate::access::{OpenFile, Resolved};
use crate::config::picoclaw::ReadFileMode;
use crate::error::{Result, ToolError};
use crate::ops::read::DECODE_MAX;
use crate::text::{encoding, lines, redact};

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
    // The last component is opened without following a link: the resolved path names none, so
    // one found there now was swapped in since (see `policy` for granted places).
    let (file, meta) = target
        .access
        .open_regular_nofollow(&target.resolved)
        .map_err(|e| open_error(&e, &target.resolved))?;
    let name = base_name(&target.resolved);
    let inline = usize::try_from(call.pico.config().max_inline_result_chars).unwrap_or(usize::MAX);
    let read = match settings.mode {
        ReadFileMode::Bytes => {
            let offset = args.opt_uint("offset")?.unwrap_or(0);
            let length = match args.opt_uint("length")? {
                None => settings.max_read_file_size,
                Some(0) => return Err(ToolError::invalid("length must be > 0")),
                Some(n) => n.min(settings.max_read_file_size),
            };
            let window = ByteWindow {
                name: &name,
                total: meta.len,
                offset,
                length,
                inline,
            };
            bytes_mode(file, &window, raw)
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
                inline,
            };
            lines_mode(file, &name, raw, &window)
        }
    };
    if let (Ok(_), Some(session)) = (&read, call.ctx.session()) {
        let file = crate::session::FileRef::new(&target.access, &target.resolved);
        session.read(&file, Some(meta.stamp));
    }
    read
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

/// What a byte-mode read asks for.
struct ByteWindow<'a> {
    name: &'a str,
    total: u64,
    offset: u64,
    length: u64,
    /// The most characters of the rendered result (`tools.max_inline_result_chars`).
    inline: usize,
}

fn bytes_mode(mut file: OpenFile, window: &ByteWindow<'_>, shown: &str) -> Result<ToolOutput> {
    let ByteWindow {
        name,
        total,
        offset,
        length,
        inline,
    } = *window;
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
    let wide = wide_note(&mut file).map_err(|e| ToolError::from_io(&e, "read", shown))?;
    if data.is_empty() {
        return Ok(ToolOutput::text(format!(
            "[END OF FILE - no content at this offset] (the file has {total} bytes)"
        )));
    }
    // A window that stops before the end of the file ends where the next one can start clean:
    // not inside a character, and not inside a line or a credential when it need not be (each
    // window is scrubbed on its own, and half a token is not recognised as one).
    if has_more {
        let whole = complete_utf8_len(&data);
        if whole > 0 {
            let end = clean_end(&data, whole);
            data.truncate(end);
        }
    }
    // The header of a window of `n` bytes (at least one).
    let header = |n: usize| {
        let end = offset + n as u64;
        let mut header = format!(
            "[file: {name} | total: {total} bytes | read: bytes {offset}-{}]",
            end - 1
        );
        if n < data.len() || has_more {
            header.push_str(&format!(
                "\n[TRUNCATED - file has more content. Call read_file again with offset={end} to \
                 continue.]"
            ));
        } else {
            header.push_str("\n[END OF FILE - no further content.]");
        }
        if let Some(note) = &wide {
            header.push('\n');
            header.push_str(note);
        }
        header
    };
    // Each window is scrubbed with the rest of the lines it cuts around it, so a credential
    // cut by the window's start or end is still recognised and hidden, and never shown in
    // parts over two calls (an offset or length the model chose may fall anywhere).
    let before =
        line_before(&mut file, offset).map_err(|e| ToolError::from_io(&e, "read", shown))?;
    let mut render = |n: usize| -> std::io::Result<String> {
        let after = line_after(&mut file, offset + n as u64)?;
        let text = window_for_model(&before, &data[..n], &after);
        Ok(format!("{}\n\n{text}", header(n)))
    };
    let io = |e: std::io::Error| ToolError::from_io(&e, "read", shown);
    let whole = render(data.len()).map_err(io)?;
    if whole.chars().count() <= inline {
        return Ok(ToolOutput::text(whole));
    }
    // The window would be spilled with most of it unseen: shorten it to what fits inline, so
    // the footer names the first byte the model has not seen. Scrubbing may lengthen or
    // shorten the text, so the rendered result is measured, and shortened again if needed.
    let header_chars = header(data.len().saturating_sub(1).max(1)).chars().count() + 2;
    let mut room = inline.saturating_sub(header_chars);
    loop {
        let n = cut_point(&data, room);
        let out = render(n).map_err(io)?;
        let count = out.chars().count();
        if count <= inline || n <= first_char_len(&data) {
            return Ok(ToolOutput::text(out));
        }
        room = room.saturating_sub(count - inline);
    }
}

/// The note a byte window of UTF-16 or UTF-32 text carries: byte mode shows every file's bytes
/// as stored, and this says what they are and which tools work on the decoded text.
fn wide_note(file: &mut OpenFile) -> std::io::Result<Option<String>> {
    let mut head = [0u8; 4];
    file.seek(SeekFrom::Start(0))?;
    let n = crate::access::fs::read_full(file, &mut head)?;
    Ok(encoding::wide_bom(&head[..n]).map(|wide| {
        format!(
            "[NOTE - this file is {} text (it starts with a byte-order mark): byte mode shows its \
             bytes as stored; search_files searches and edit_file edits its decoded text.]",
            wide.name()
        )
    }))
}

/// How far around a byte window the rest of its first and last lines is read for scrubbing;
/// longer than any credential the scrubber knows (machine-made runs stop at 512 characters).
const LINE_CONTEXT: u64 = 8 * 1024;

/// The bytes of the line that `offset` falls in before `offset` (at most [`LINE_CONTEXT`]).
fn line_before(file: &mut OpenFile, offset: u64) -> std::io::Result<Vec<u8>> {
    let start = offset.saturating_sub(LINE_CONTEXT);
    let mut before = Vec::new();
    file.seek(SeekFrom::Start(start))?;
    (&mut *file).take(offset - start).read_to_end(&mut before)?;
    if let Some(nl) = memchr::memrchr(b'\n', &before) {
        before.drain(..=nl);
    }
    Ok(before)
}

/// The bytes of the line that `end` falls in from `end` on (at most [`LINE_CONTEXT`]).
fn line_after(file: &mut OpenFile, end: u64) -> std::io::Result<Vec<u8>> {
    let mut after = Vec::new();
    file.seek(SeekFrom::Start(end))?;
    (&mut *file).take(LINE_CONTEXT).read_to_end(&mut after)?;
    if let Some(nl) = memchr::memchr(b'\n', &after) {
        after.truncate(nl);
    }
    Ok(after)
}

/// The window `window` as the model sees it, scrubbed together with the parts of its first and
/// last lines outside it (`before`, `after`): a credential the window shows only part of is
/// shown as one [`redact::FILTERED`].
fn window_for_model(before: &[u8], window: &[u8], after: &[u8]) -> String {
    let before = String::from_utf8_lossy(before);
    let window = String::from_utf8_lossy(window);
    let after = String::from_utf8_lossy(after);
    if before.is_empty() && after.is_empty() {
        return for_model(&window);
    }
    let whole = format!("{before}{window}{after}");
    let red = redact::redact_spans(&whole);
    let (start, end) = (before.len(), before.len() + window.len());
    let mut out = String::with_capacity(window.len());
    let mut at = start;
    for mask in red
        .masks
        .iter()
        .filter(|m| m.raw.end > start && m.raw.start < end)
    {
        if mask.raw.start > at {
            out.push_str(&whole[at..mask.raw.start]);
        }
        out.push_str(redact::FILTERED);
        at = mask.raw.end.min(end);
    }
    if at < end {
        out.push_str(&whole[at..end]);
    }
    spill::guard(&out, true).into_owned()
}

/// The length of `data` without a trailing incomplete (but so far valid) UTF-8 sequence.
fn complete_utf8_len(data: &[u8]) -> usize {
    let len = data.len();
    for at in (len.saturating_sub(3)..len).rev() {
        let b = data[at];
        if b & 0xC0 == 0x80 {
            continue;
        }
        let need = match b {
            0xC2..=0xDF => 2,
            0xE0..=0xEF => 3,
            0xF0..=0xF4 => 4,
            _ => return len,
        };
        let incomplete =
            matches!(std::str::from_utf8(&data[at..]), Err(e) if e.error_len().is_none());
        return if len - at < need && incomplete {
            at
        } else {
            len
        };
    }
    len
}

/// The bytes of the first character of `data` (1 for a byte that starts none).
fn first_char_len(data: &[u8]) -> usize {
    data.utf8_chunks()
        .next()
        .map_or(data.len().min(1), |chunk| {
            match chunk.valid().chars().next() {
                Some(c) => c.len_utf8(),
                None => 1,
            }
        })
}

/// Where to end a window of `data` whose text may show at most `room` characters: after the
/// last whole character that fits, moved back by [`clean_end`]. At least one character, so
/// every read makes progress.
fn cut_point(data: &[u8], room: usize) -> usize {
    let mut at = 0;
    let mut left = room;
    'chunks: for chunk in data.utf8_chunks() {
        for c in chunk.valid().chars() {
            if left == 0 {
                break 'chunks;
            }
            left -= 1;
            at += c.len_utf8();
        }
        if !chunk.invalid().is_empty() {
            // An invalid sequence shows as one U+FFFD.
            if left == 0 {
                break;
            }
            left -= 1;
            at += chunk.invalid().len();
        }
    }
    if at == 0 {
        return first_char_len(data);
    }
    if at >= data.len() {
        return data.len();
    }
    clean_end(data, at)
}

/// `at` (a character boundary inside `data`) moved back, within the second half of
/// `data[..at]`, to just after the last line end, else the last blank that does not part an
/// authorization scheme from its credentials (`Bearer`, `Basic`), else the last byte no
/// credential holds; `at` itself when none is there (a run that long is no credential).
fn clean_end(data: &[u8], at: usize) -> usize {
    let half = at / 2;
    let cut = &data[..at];
    if let Some(nl) = memchr::memrchr(b'\n', cut)
        && nl + 1 > half
    {
        return nl + 1;
    }
    let parts_scheme = |blank: usize| {
        let before = cut[..blank].trim_ascii_end();
        [&b"bearer"[..], b"basic"].iter().any(|word| {
            before.len() >= word.len()
                && before[before.len() - word.len()..].eq_ignore_ascii_case(word)
        })
    };
    let blank = (half..at)
        .rev()
        .find(|&i| matches!(cut[i], b' ' | b'\t') && !parts_scheme(i));
    if let Some(i) = blank {
        return i + 1;
    }
    // Bytes a credential may hold; a non-ASCII byte is never cut after (it may start a
    // character), so it counts here too.
    let token = |b: u8| b.is_ascii_alphanumeric() || b"+/=_-.~".contains(&b) || b >= 0x80;
    match (half..at).rev().find(|&i| !token(cut[i])) {
        Some(i) => i + 1,
        None => at,
    }
}

struct LineWindow {
    start: u64,
    max: u64,
    /// Whether the caller named max_lines (the continuation hint repeats it).
    asked: bool,
    budget: u64,
    max_line_length: usize,
    /// The most characters of the rendered result (`tools.max_inline_result_chars`).
    inline: usize,
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

fn lines_mode(file: OpenFile, name: &str, shown: &str, window: &LineWindow) -> Result<ToolOutput> {
    let io = |e: std::io::Error| ToolError::from_io(&e, "read", shown);
    let mut reader = BufReader::with_capacity(32 * 1024, file);
    let head = reader.fill_buf().map_err(io)?;
    let sniff = &head[..head.len().min(BINARY_SNIFF)];
    if let Some(wide) = encoding::wide_bom(sniff) {
        // UTF-16/32 text: its lines are those of its decoded text.
        let mut bytes = Vec::new();
        (&mut reader)
            .take(DECODE_MAX + 1)
            .read_to_end(&mut bytes)
            .map_err(io)?;
        if bytes.len() as u64 > DECODE_MAX {
            return Err(ToolError::new(
                crate::error::ErrorKind::TooLarge,
                format!(
                    "{shown} is {} text over {} MiB; line mode decodes such text up to that \
                     size, so it is not shown. search_files finds lines in it",
                    wide.name(),
                    DECODE_MAX >> 20
                ),
            ));
        }
        let decoded = encoding::decode(&bytes, None);
        let raw = RawLines {
            lens: decoded.line_byte_lengths(),
            bom: decoded.text_start() as u64,
        };
        return lines_of(
            &mut decoded.text.as_bytes(),
            name,
            shown,
            window,
            Some(&raw),
        );
    }
    if encoding::looks_binary(sniff) {
        return Err(ToolError::invalid(format!(
            "{shown} appears to be binary (it holds a NUL byte near its start); line mode \
             reads text files only"
        )));
    }
    lines_of(&mut reader, name, shown, window, None)
}

/// How many bytes of the file each line of a decoded text covers.
struct RawLines {
    /// Per line, its ending included; `None` when unknown (each line then counts its text).
    lens: Option<Vec<u64>>,
    /// The byte-order mark's bytes, counted with the first line.
    bom: u64,
}

impl RawLines {
    /// The file's bytes of line `index` (1-based), whose text took `len` bytes.
    fn of(&self, index: u64, len: u64) -> u64 {
        let own = self
            .lens
            .as_ref()
            .and_then(|l| l.get(usize::try_from(index - 1).ok()?).copied())
            .unwrap_or(len);
        if index == 1 { own + self.bom } else { own }
    }
}

/// Line mode over the lines `reader` gives; `raw` maps them to the file's bytes when they are
/// a decoded text's.
fn lines_of(
    reader: &mut impl BufRead,
    name: &str,
    shown: &str,
    window: &LineWindow,
    raw: Option<&RawLines>,
) -> Result<ToolOutput> {
    let io = |e: std::io::Error| ToolError::from_io(&e, "read", shown);
    let file_len = |index: u64, len: u64| raw.map_or(len, |r| r.of(index, len));
    let mut reader = reader;
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
    // The characters the lines may take so that the whole result (header and continuation
    // line included) stays inline: a spilled result would show the model a preview with the
    // middle omitted, while its continuation line pointed past it.
    let chars_budget = window.inline.saturating_sub(frame_chars(name, window) + 3);
    let mut out = String::new();
    let mut out_chars = 0;
    let mut read: u64 = 0;
    let mut file_bytes: u64 = 0;
    let mut reached_eof = false;
    let mut stop: Option<Stop> = None;
    while read < window.max {
        let prefix = format!("{index}|");
        let over_bytes = out.len() + prefix.len() >= budget;
        let over_chars = out_chars + prefix.len() >= chars_budget;
        if read > 0 && (over_bytes || over_chars) {
            stop = Some(Stop::Boundary { chars: !over_bytes });
            break;
        }
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
        let rendered_chars = rendered.chars().count();
        let bytes_fit = out.len() + prefix.len() + rendered.len() <= budget;
        let chars_fit = out_chars + prefix.len() + rendered_chars <= chars_budget;
        if !(bytes_fit && chars_fit) {
            if read > 0 {
                // The line waits whole for the next call rather than being shown in part twice.
                stop = Some(Stop::Boundary { chars: bytes_fit });
                break;
            }
            // The window's first line alone does not fit: show what does, and say so.
            let byte_room = budget.saturating_sub(prefix.len());
            let char_room = chars_budget.saturating_sub(prefix.len());
            let (by_chars, _) = lines::cut_chars(&rendered, char_room);
            let at = lines::utf8_floor(rendered.as_bytes(), byte_room.min(by_chars.len()));
            out.push_str(&prefix);
            out.push_str(&rendered[..at]);
            file_bytes += file_len(index, line.len);
            read += 1;
            stop = Some(Stop::MidLine { chars: bytes_fit });
            break;
        }
        out.push_str(&prefix);
        out.push_str(&rendered);
        out_chars += prefix.len() + rendered_chars;
        file_bytes += file_len(index, line.len);
        read += 1;
        index += 1;
    }
    if stop.is_none() && !reached_eof && reader.fill_buf().map_err(io)?.is_empty() {
        reached_eof = true;
    }
    if read == 0 {
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
    header.push('\n');
    header.push_str(&continuation(window, stop, reached_eof, last));
    Ok(ToolOutput::text(format!("{header}\n\n{out}")))
}

/// Why a line-mode read ended before `max_lines` and the end of the file.
#[derive(Clone, Copy)]
enum Stop {
    /// The next line did not fit; `chars` when the inline limit (not the byte budget) held it.
    Boundary { chars: bool },
    /// The window's first line alone did not fit and was cut.
    MidLine { chars: bool },
}

/// The line after a line-mode header: where the read ended and the call that goes on.
fn continuation(window: &LineWindow, stop: Option<Stop>, eof: bool, last: u64) -> String {
    let next = last + 1;
    let limit = |chars: bool| {
        if chars {
            format!("{} character inline result limit", window.inline)
        } else {
            format!("{} byte read budget", window.budget)
        }
    };
    match stop {
        Some(Stop::MidLine { chars }) => format!(
            "[TRUNCATED - line {last} exceeded the {} and was cut mid-line; line mode shows no \
             more of it. Call read_file again with start_line={next} to continue after it.]",
            limit(chars)
        ),
        Some(Stop::Boundary { chars }) => {
            let max_hint = if window.asked {
                format!(" and max_lines={}", window.max)
            } else {
                String::new()
            };
            let what = if chars {
                "inline result limit"
            } else {
                "byte budget"
            };
            format!(
                "[TRUNCATED - {what} reached. Call read_file again with start_line={next}\
                 {max_hint} to continue at the next line.]"
            )
        }
        None if !eof => format!(
            "[PARTIAL - more content remains. Call read_file again with start_line={next} and \
             max_lines={} to continue.]",
            window.max
        ),
        None => "[END OF FILE - no further content.]".to_string(),
    }
}

/// The most characters a line-mode header and its continuation line take for file `name`.
fn frame_chars(name: &str, window: &LineWindow) -> usize {
    let big = u64::MAX;
    let header = format!(
        "[file: {name} | read: lines {big}-{big} (1-indexed) | file_bytes: {big} | \
         output_bytes: {big}]"
    );
    let widest = [
        Stop::MidLine { chars: true },
        Stop::MidLine { chars: false },
        Stop::Boundary { chars: true },
        Stop::Boundary { chars: false },
    ]
    .into_iter()
    .map(Some)
    .chain([None])
    .map(|stop| continuation(window, stop, false, big - 1).chars().count())
    .max()
    .unwrap_or(0);
    header.chars().count() + widest
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_end_never_parts_an_authorization_scheme_from_its_credentials() {
        let data = b"aaaa bbbb cccc dddd Authorization: Bearer a1b2c3d4e5f6g7h8";
        let inside_token = data.len() - 4;
        let end = clean_end(data, inside_token);
        assert_eq!(&data[..end], b"aaaa bbbb cccc dddd Authorization: ");
        let data = b"aaaa bbbb cccc dddd Authorization: Basic dXNlcjpwYXNz";
        let end = clean_end(data, data.len() - 2);
        assert_eq!(&data[..end], b"aaaa bbbb cccc dddd Authorization: ");
    }

    #[test]
    fn a_window_end_prefers_a_line_end_then_a_blank_then_a_non_token_byte() {
        assert_eq!(clean_end(b"abcdef\nghij klmno", 17), 12);
        assert_eq!(clean_end(b"abcdefghij\nklmnopq", 18), 11);
        assert_eq!(clean_end(b"abcdefgh,ijklmnop", 17), 9);
        // A run with nothing to cut at is cut where it is: no credential is that long.
        assert_eq!(clean_end(b"abcdefghijklmnop", 16), 16);
        // Non-ASCII bytes are never cut after (they may start a character).
        let text = "ééééé".as_bytes();
        assert_eq!(clean_end(text, 8), 8);
    }

    #[test]
    fn an_incomplete_character_at_the_end_is_left_to_the_next_window() {
        let text = "aé日🦀".as_bytes();
        assert_eq!(complete_utf8_len(&text[..2]), 1);
        assert_eq!(complete_utf8_len(&text[..3]), 3);
        assert_eq!(complete_utf8_len(&text[..5]), 3);
        assert_eq!(complete_utf8_len(&text[..8]), 6);
        assert_eq!(complete_utf8_len(&text[..10]), 10);
        // A Latin-1 byte that could start a character waits for the next window (where it
        // shows as U+FFFD); one that cannot, and any followed by what ends it, stay.
        assert_eq!(complete_utf8_len(b"caf\xe9"), 3);
        assert_eq!(complete_utf8_len(b"caf\xe9 "), 5);
        assert_eq!(complete_utf8_len(b"caf\xff"), 4);
    }
}
