//! Reading a file: a window of lines streamed from disk, or an image.
//!
//! The file is read once, front to back, through one fixed buffer: lines before the window are
//! counted and skipped, the window's bytes are kept (never more than the byte ceiling), and the
//! lines after it are counted so the result can state the file's length. Memory follows the
//! window, not the file.

use std::fs::File;
use std::io::{self, Read};

use super::image::{self, ImageFormat};
use crate::access::{Access, Resolved};
use crate::error::{Result, ToolError};

/// The size of the one buffer a read streams through.
const BUF_LEN: usize = 256 * 1024;

/// How much of a file to read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadOptions {
    /// The 1-based line to start from. By default 1.
    pub offset: u64,
    /// How many lines to return; `None` reads to the end of the file. By default `None`.
    pub limit: Option<u64>,
    /// The most bytes of text one read returns, whatever the window. By default 256 KiB.
    pub byte_ceiling: usize,
    /// The largest image attached to a result; larger ones are described. By default 8 MiB.
    pub image_ceiling: u64,
    /// Whether images are attached at all (the model can see them). By default `true`.
    pub attach_images: bool,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            offset: 1,
            limit: None,
            byte_ceiling: 256 * 1024,
            image_ceiling: 8 * 1024 * 1024,
            attach_images: true,
        }
    }
}

/// What a read returned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReadOutcome {
    /// Lines of text.
    Text(TextWindow),
    /// An image, attached or described.
    Image(ImageRead),
}

/// A window of a file's lines.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextWindow {
    /// The window's bytes, exactly as on disk (line endings included).
    pub bytes: Vec<u8>,
    /// The first line shown (1-based).
    pub first: u64,
    /// The last line shown, possibly in part (see `cut`); `first - 1` when nothing is shown.
    pub last: u64,
    /// How many lines the file has.
    pub total: u64,
    /// Set when the byte ceiling cut the window short.
    pub cut: Option<Cut>,
}

impl TextWindow {
    /// Whether this is less than the whole file.
    pub fn is_partial(&self) -> bool {
        self.first > 1 || self.last < self.total || self.cut.is_some()
    }
}

/// How the byte ceiling cut a window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cut {
    /// Whole lines were dropped from the end; `last` is the last line shown whole.
    Lines,
    /// The first line of the window alone exceeds the ceiling; `shown` of its `len` bytes
    /// (without its ending) are shown.
    MidLine {
        /// Bytes of the line shown.
        shown: u64,
        /// The line's full length in bytes, without its ending.
        len: u64,
    },
}

/// An image file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImageRead {
    /// Its format.
    pub format: ImageFormat,
    /// Its size in bytes.
    pub size: u64,
    /// Width and height in pixels, when the header could be read.
    pub dimensions: Option<(u64, u64)>,
    /// The file's bytes when attached, or why not.
    pub attachment: Attachment,
}

/// Whether an image travels with the result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Attachment {
    /// Attached: the file's bytes.
    Attached(Vec<u8>),
    /// Described only: larger than the image ceiling (which is given).
    TooLarge(u64),
    /// Described only: the model cannot see images.
    NoVision,
}

/// Reads `target` under `options`.
pub fn read(access: &Access, target: &Resolved, options: &ReadOptions) -> Result<ReadOutcome> {
    if options.offset == 0 {
        return Err(ToolError::invalid(format!(
            "offset 0 is not a line: offset is 1-based; pass offset: 1 to start at the first line \
             of {}",
            target.shown
        )));
    }
    if options.limit == Some(0) {
        return Err(ToolError::invalid(format!(
            "limit 0 asks for no lines of {}; pass a limit of 1 or more, or leave it out",
            target.shown
        )));
    }
    let (mut file, meta) = access
        .open_regular(target)
        .map_err(|e| open_error(&e, target))?;
    let mut buf = vec![0u8; BUF_LEN];
    let filled = fill(&mut file, &mut buf, ImageFormat::SNIFF_LEN)
        .map_err(|e| ToolError::from_io(&e, "read", &target.shown))?;
    if let Some(format) = ImageFormat::sniff(&buf[..filled]) {
        drop(buf);
        return read_image(file, meta.len, format, options)
            .map(ReadOutcome::Image)
            .map_err(|e| ToolError::from_io(&e, "read", &target.shown));
    }
    let window = stream_window(&mut file, buf, filled, options)
        .map_err(|e| ToolError::from_io(&e, "read", &target.shown))?;
    if window.total == 0 && options.offset == 1 {
        return Ok(ReadOutcome::Text(window));
    }
    if options.offset > window.total {
        let length = match window.total {
            0 => "is empty (0 lines)".to_string(),
            1 => "has 1 line".to_string(),
            n => format!("has {n} lines"),
        };
        let next = match window.total {
            0 => "there is nothing to read".to_string(),
            n => format!("pass an offset from 1 to {n}"),
        };
        return Err(ToolError::invalid(format!(
            "offset {} is past the end of {}, which {length}; {next}",
            options.offset, target.shown
        )));
    }
    Ok(ReadOutcome::Text(window))
}

fn open_error(err: &io::Error, target: &Resolved) -> ToolError {
    match err.kind() {
        io::ErrorKind::NotFound => ToolError::not_found(format!(
            "{} does not exist; check the path with list_dir, or create it with write_file",
            target.shown
        )),
        io::ErrorKind::IsADirectory => ToolError::invalid(format!(
            "{} is a directory, not a file; list it with list_dir or tree",
            target.shown
        )),
        io::ErrorKind::InvalidInput => ToolError::invalid(format!(
            "{} is not a regular file (a FIFO, socket or device), so it is not read",
            target.shown
        )),
        _ => ToolError::from_io(err, "read", &target.shown),
    }
}

/// Reads until `buf` holds at least `min` bytes or the file ends; returns the bytes held.
fn fill<R: Read>(file: &mut R, buf: &mut [u8], min: usize) -> io::Result<usize> {
    let mut filled = 0;
    while filled < min.min(buf.len()) {
        match file.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

fn read_image(
    mut file: File,
    size: u64,
    format: ImageFormat,
    options: &ReadOptions,
) -> io::Result<ImageRead> {
    let attachment = if !options.attach_images {
        Attachment::NoVision
    } else if size > options.image_ceiling {
        Attachment::TooLarge(options.image_ceiling)
    } else {
        let mut data = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
        io::Seek::seek(&mut file, io::SeekFrom::Start(0))?;
        file.read_to_end(&mut data)?;
        Attachment::Attached(data)
    };
    let dimensions = match &attachment {
        Attachment::Attached(data) => image::dimensions(data),
        _ => image::dimensions_of(&mut file),
    };
    Ok(ImageRead {
        format,
        size,
        dimensions,
        attachment,
    })
}

/// Where the stream is relative to the window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Before the window: counting lines.
    Skip,
    /// Inside the window: keeping bytes.
    Collect,
    /// The window's first line was cut mid-way: measuring the rest of it (bytes so far).
    Measure(u64),
    /// After the window: counting lines.
    Count,
}

/// Streams the file through `buf` (whose first `filled` bytes are already read), keeping the
/// window's bytes and counting every line.
fn stream_window<R: Read>(
    file: &mut R,
    mut buf: Vec<u8>,
    mut filled: usize,
    options: &ReadOptions,
) -> io::Result<TextWindow> {
    let first = options.offset;
    let last_wanted = options
        .limit
        .map_or(u64::MAX, |limit| first.saturating_add(limit - 1));
    let ceiling = options.byte_ceiling;
    let mut out: Vec<u8> = Vec::new();
    // Newlines seen so far; the line being read is `newlines + 1`.
    let mut newlines: u64 = 0;
    // Where the line being collected starts in `out`.
    let mut line_start = 0usize;
    // Whole lines kept in `out`.
    let mut kept: u64 = 0;
    let mut cut: Option<Cut> = None;
    let mut last_byte: Option<u8> = None;
    let mut phase = if first > 1 {
        Phase::Skip
    } else {
        Phase::Collect
    };

    loop {
        if filled == 0 {
            filled = fill(file, &mut buf, 1)?;
            if filled == 0 {
                break;
            }
        }
        let chunk = &buf[..filled];
        last_byte = chunk.last().copied();
        let mut pos = 0;
        while pos < chunk.len() {
            let rest = &chunk[pos..];
            match phase {
                Phase::Skip => {
                    let mut next = chunk.len();
                    for i in memchr::memchr_iter(b'\n', rest) {
                        newlines += 1;
                        if newlines + 1 == first {
                            next = pos + i + 1;
                            phase = Phase::Collect;
                            break;
                        }
                    }
                    pos = next;
                }
                Phase::Collect if newlines + 1 > last_wanted => phase = Phase::Count,
                Phase::Collect => {
                    let newline = memchr::memchr(b'\n', rest);
                    let take = newline.map_or(rest.len(), |i| i + 1);
                    if out.len() + take <= ceiling {
                        out.extend_from_slice(&rest[..take]);
                        pos += take;
                        if newline.is_some() {
                            newlines += 1;
                            kept += 1;
                            line_start = out.len();
                        }
                    } else if line_start > 0 {
                        // Whole lines fit before this one: drop its start, count the rest.
                        out.truncate(line_start);
                        cut = Some(Cut::Lines);
                        phase = Phase::Count;
                    } else {
                        // The window's first line alone passes the ceiling: show its start.
                        let seen = (out.len() + take) as u64;
                        let room = ceiling - out.len();
                        // Cut where the ceiling falls, moved back so no character is split;
                        // the line may have started in an earlier chunk (in `out`).
                        let held = out.len();
                        let byte_at = |p: usize| if p < held { out[p] } else { rest[p - held] };
                        let mut cut_at = held + room;
                        let mut steps = 0;
                        while cut_at > 0 && steps < 3 && (byte_at(cut_at) & 0xC0) == 0x80 {
                            cut_at -= 1;
                            steps += 1;
                        }
                        if cut_at >= held {
                            out.extend_from_slice(&rest[..cut_at - held]);
                        } else {
                            out.truncate(cut_at);
                        }
                        cut = Some(Cut::MidLine {
                            shown: out.len() as u64,
                            len: 0,
                        });
                        pos += take;
                        match newline {
                            Some(_) => {
                                newlines += 1;
                                set_len(&mut cut, seen - 1);
                                phase = Phase::Count;
                            }
                            None => phase = Phase::Measure(seen),
                        }
                    }
                }
                Phase::Measure(so_far) => match memchr::memchr(b'\n', rest) {
                    Some(i) => {
                        newlines += 1;
                        set_len(&mut cut, so_far + i as u64);
                        pos += i + 1;
                        phase = Phase::Count;
                    }
                    None => {
                        phase = Phase::Measure(so_far + rest.len() as u64);
                        pos = chunk.len();
                    }
                },
                Phase::Count => {
                    newlines += memchr::memchr_iter(b'\n', rest).count() as u64;
                    pos = chunk.len();
                }
            }
        }
        filled = 0;
    }

    if let Phase::Measure(so_far) = phase {
        set_len(&mut cut, so_far);
    }
    let unterminated = last_byte.is_some_and(|b| b != b'\n');
    let total = newlines + u64::from(unterminated);
    let last = match cut {
        Some(Cut::MidLine { .. }) => first,
        // A tail after the last newline is the file's own unterminated last line, kept whole.
        _ => first - 1 + kept + u64::from(out.len() > line_start),
    };
    Ok(TextWindow {
        bytes: out,
        first,
        last,
        total,
        cut,
    })
}

fn set_len(cut: &mut Option<Cut>, len: u64) {
    if let Some(Cut::MidLine { len: l, .. }) = cut {
        *l = len;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The window computed the obvious way, from the whole file in memory.
    fn reference(bytes: &[u8], options: &ReadOptions) -> TextWindow {
        let mut lines: Vec<&[u8]> = bytes.split_inclusive(|b| *b == b'\n').collect();
        if bytes.is_empty() {
            lines.clear();
        }
        let total = lines.len() as u64;
        let first = options.offset;
        let last_wanted = options.limit.map_or(u64::MAX, |l| first + l - 1);
        let mut out = Vec::new();
        let mut last = first - 1;
        let mut cut = None;
        for (i, line) in lines.iter().enumerate() {
            let n = i as u64 + 1;
            if n < first || n > last_wanted {
                continue;
            }
            if out.len() + line.len() > options.byte_ceiling {
                if out.is_empty() {
                    let keep = crate::text::lines::utf8_floor(line, options.byte_ceiling);
                    out.extend_from_slice(&line[..keep]);
                    let len = line.strip_suffix(b"\n").unwrap_or(line).len() as u64;
                    cut = Some(Cut::MidLine {
                        shown: keep as u64,
                        len,
                    });
                    last = n;
                } else {
                    cut = Some(Cut::Lines);
                }
                break;
            }
            out.extend_from_slice(line);
            last = n;
        }
        TextWindow {
            bytes: out,
            first,
            last,
            total,
            cut,
        }
    }

    fn streamed(bytes: &[u8], options: &ReadOptions, buf_len: usize) -> TextWindow {
        let mut reader = std::io::Cursor::new(bytes);
        stream_window(&mut reader, vec![0; buf_len], 0, options).unwrap()
    }

    #[test]
    fn a_window_in_the_middle_has_exact_bytes_and_counts() {
        let text = b"a\nbb\nccc\ndddd\n";
        let options = ReadOptions {
            offset: 2,
            limit: Some(2),
            ..Default::default()
        };
        let w = streamed(text, &options, 3);
        assert_eq!(w.bytes, b"bb\nccc\n");
        assert_eq!((w.first, w.last, w.total), (2, 3, 4));
    }

    #[test]
    fn a_long_first_line_is_cut_mid_line_and_measured_to_its_end() {
        let text = [b"x".repeat(100), b"\nnext\n".to_vec()].concat();
        let options = ReadOptions {
            byte_ceiling: 10,
            ..Default::default()
        };
        let w = streamed(&text, &options, 7);
        assert_eq!(w.bytes, b"x".repeat(10));
        assert_eq!(
            w.cut,
            Some(Cut::MidLine {
                shown: 10,
                len: 100
            })
        );
        assert_eq!((w.first, w.last, w.total), (1, 1, 2));
    }

    proptest! {
        #[test]
        fn streaming_through_any_buffer_matches_the_reference(
            lines in proptest::collection::vec("[a-cé\\r]{0,12}", 0..12),
            final_newline in any::<bool>(),
            offset in 1u64..14,
            limit in proptest::option::of(1u64..14),
            ceiling in 1usize..60,
            buf_len in 1usize..20,
        ) {
            let mut text = lines.join("\n");
            if final_newline && !text.is_empty() {
                text.push('\n');
            }
            let options = ReadOptions { offset, limit, byte_ceiling: ceiling, ..Default::default() };
            let expected = reference(text.as_bytes(), &options);
            let got = streamed(text.as_bytes(), &options, buf_len);
            prop_assert_eq!(got, expected);
        }
    }
}
