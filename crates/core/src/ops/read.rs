//! Reading a file: a window of lines streamed from disk, an image, or the description of a
//! binary file.
//!
//! A small file is read once, front to back, through one fixed buffer: lines before the window
//! are counted and skipped, the window's bytes are kept (never more than the byte ceiling), and
//! the lines after it are counted so the result can state the file's length. A large one (from
//! [`INDEX_MIN_LEN`]) is counted by the line index ([`super::line_index`]), which skips the
//! holes of a sparse file and counts within the read's [`CountBudget`]: the window is read from
//! the mark before it to its end, and the file's length is exact when the count reaches the
//! end, else the lines counted so far ([`Total::AtLeast`]); the next read goes on counting.
//! Memory follows the window, not the file.
//!
//! A file with a NUL byte in its first [`BINARY_SNIFF_LEN`] bytes and no UTF-16/32 BOM is
//! binary and only described ([`encoding::looks_binary`]). UTF-8 text is shown as stored. Text
//! in another encoding (legacy code pages, UTF-16 and UTF-32 with a BOM) is decoded whole by
//! the encoding engine ([`encoding::decode_foreign`], the decoding search and edit use too),
//! and its window is taken from the decoded text: lines are the decoded text's lines. A small
//! file (under [`INDEX_MIN_LEN`]) is held whole to tell which it is; a large one is judged by
//! the window it shows, and decoded whole only when that window is not UTF-8.

use std::fmt;
use std::io::{self, Read};
use std::time::Instant;

use super::image::{self, Change, Checked, Fitted, ImageFormat, ImageLimits};
pub use super::line_index::CountBudget;
use super::line_index::{Count, CountError, FileKey, INDEX_MIN_LEN};
use crate::access::{Access, OpenFile, Resolved};
use crate::context::CallContext;
use crate::error::{ErrorKind, ToolError};
use crate::session::Witness;
use crate::text::encoding::{self, BINARY_SNIFF_LEN, TextFormat};

/// The size of the one buffer a read streams through.
const BUF_LEN: usize = 256 * 1024;

/// The largest file decoded from another encoding than UTF-8; a larger one is shown as stored,
/// its invalid bytes as U+FFFD.
pub const DECODE_MAX: u64 = 32 << 20;

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
    /// What counting a large file's lines may cost. By default 4 GiB of data, no time limit.
    pub count_budget: CountBudget,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            offset: 1,
            limit: None,
            byte_ceiling: 256 * 1024,
            image_ceiling: 8 * 1024 * 1024,
            attach_images: true,
            count_budget: CountBudget::default(),
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
    /// Not text: a NUL byte in its first [`BINARY_SNIFF_LEN`] bytes, and no UTF-16/32 BOM.
    Binary {
        /// The file's size in bytes.
        size: u64,
    },
}

/// A window of a file's lines.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextWindow {
    /// The window's bytes: exactly as on disk (line endings included), or, for a file decoded
    /// from another encoding, its UTF-8 text with every line ending `\n` (see `source`).
    pub bytes: Vec<u8>,
    /// The first line shown (1-based).
    pub first: u64,
    /// The last line shown, possibly in part (see `cut`); `first - 1` when nothing is shown.
    pub last: u64,
    /// How many lines the file has, or at least has when its count stopped at the budget.
    pub total: Total,
    /// Set when the byte ceiling cut the window short.
    pub cut: Option<Cut>,
    /// How the text came from the file's bytes.
    pub source: Source,
}

/// How a window's text came from the file's bytes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Source {
    /// UTF-8, as stored.
    #[default]
    Stored,
    /// UTF-8 with a few bytes that are not valid UTF-8, as stored: these lines of the window
    /// hold such bytes (a reader shows each as U+FFFD; an edit keeps them).
    InvalidUtf8 {
        /// The 1-based lines of the window holding invalid bytes.
        lines: Vec<u64>,
    },
    /// Text in another encoding, decoded; lines are counted in the decoded text.
    Decoded {
        /// The file's encoding, BOM and dominant line ending.
        format: TextFormat,
        /// Whether some bytes were not valid in that encoding (shown as U+FFFD).
        malformed: bool,
    },
}

impl TextWindow {
    /// Whether this is less than the whole file.
    pub fn is_partial(&self) -> bool {
        self.first > 1
            || self.cut.is_some()
            || match self.total {
                Total::Exact(total) => self.last < total,
                Total::AtLeast(_) => true,
            }
    }
}

/// How many lines a file has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Total {
    /// Exactly this many.
    Exact(u64),
    /// At least this many: the count stopped at its budget. Lines follow the window (this is
    /// more than its last line), and a later read counts on.
    AtLeast(u64),
}

impl Total {
    /// The line count when it is exact.
    pub fn exact(self) -> Option<u64> {
        match self {
            Total::Exact(n) => Some(n),
            Total::AtLeast(_) => None,
        }
    }
}

/// `1200`, or `at least 9000`.
impl fmt::Display for Total {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Total::Exact(n) => write!(f, "{n}"),
            Total::AtLeast(n) => write!(f, "at least {n}"),
        }
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
    /// Attached: what is sent, the file's own bytes as a read finds them, or those
    /// [`ImageRead::fit`] brought within the image limits.
    Attached(Fitted),
    /// Described only: larger than the image ceiling (which is given).
    TooLarge(u64),
    /// Described only: the model cannot see images.
    NoVision,
    /// Described only: the bytes are not a whole image of the format they claim (why, see
    /// [`image::check`]).
    Damaged(String),
    /// Described only: over the image limits, and it could not be brought within them (why,
    /// a clause that follows "not attached: "; see [`image::fit`]).
    Unfit(String),
}

impl ImageRead {
    /// The read with its attachment brought within `limits` ([`image::fit`]): scaled down and
    /// encoded again when it is over them, or described as [`Attachment::Unfit`] when it
    /// cannot be. Anything else is left as it is. Every surface that attaches images calls
    /// this before it does.
    pub fn fit(self, limits: &ImageLimits) -> ImageRead {
        let ImageRead {
            format,
            size,
            dimensions,
            attachment,
        } = self;
        let attachment = match attachment {
            Attachment::Attached(attached) if attached.change == Change::None => {
                let checked = Checked {
                    format: attached.format,
                    width: attached.width,
                    height: attached.height,
                };
                match image::fit(attached.data, checked, limits) {
                    Ok(fitted) => Attachment::Attached(fitted),
                    Err(why) => Attachment::Unfit(why),
                }
            }
            other => other,
        };
        ImageRead {
            format,
            size,
            dimensions,
            attachment,
        }
    }
}

/// Why a read was refused or failed. The surface words it in its profile's terms.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ReadError {
    /// The first line asked for is 0 (lines are 1-based).
    OffsetZero {
        /// The path as the model gave it.
        path: String,
    },
    /// No lines were asked for.
    LimitZero {
        /// The path as the model gave it.
        path: String,
    },
    /// The first line asked for is past the end of the file.
    PastEnd {
        /// The path as the model gave it.
        path: String,
        /// The first line asked for.
        offset: u64,
        /// The file's lines.
        total: u64,
    },
    /// Nothing is at the path.
    Missing {
        /// The path as the model gave it.
        path: String,
    },
    /// The path names a folder.
    Directory {
        /// The path as the model gave it.
        path: String,
    },
    /// UTF-16 or UTF-32 text too large to decode ([`DECODE_MAX`]).
    TooLargeToDecode {
        /// The path as the model gave it.
        path: String,
        /// The encoding its byte order mark names (`UTF-16/32` without one).
        encoding: &'static str,
        /// Its size in bytes.
        size: u64,
        /// The largest such text decoded, in bytes.
        max: u64,
    },
    /// Any other failure, worded in the engine's neutral terms.
    Other(ToolError),
}

impl From<ToolError> for ReadError {
    fn from(e: ToolError) -> Self {
        ReadError::Other(e)
    }
}

/// Reads `target` under `options`. A large file's length comes from the process-wide line
/// index ([`super::line_index`]), counted within `options.count_budget`; counting reports
/// progress to `ctx` and stops when `ctx` is cancelled.
pub fn read(
    access: &Access,
    target: &Resolved,
    options: &ReadOptions,
    ctx: &CallContext,
) -> Result<ReadOutcome, ReadError> {
    read_witnessed(access, target, options, ctx, None)
}

/// [`read`], telling `witness` the whole content of a text file it holds whole anyway (one
/// below [`INDEX_MIN_LEN`]), with the stamp of the handle it was read from.
pub fn read_witnessed(
    access: &Access,
    target: &Resolved,
    options: &ReadOptions,
    ctx: &CallContext,
    witness: Option<&Witness>,
) -> Result<ReadOutcome, ReadError> {
    if options.offset == 0 {
        return Err(ReadError::OffsetZero {
            path: target.shown.clone(),
        });
    }
    if options.limit == Some(0) {
        return Err(ReadError::LimitZero {
            path: target.shown.clone(),
        });
    }
    let started = Instant::now();
    let (mut file, meta) = access
        .open_regular(target)
        .map_err(|e| open_error(&e, target))?;
    let io_err = |e: &io::Error| ToolError::from_io(e, "read", &target.shown);
    // A small file gets a buffer its size, not the full chunk: most reads are of small files.
    let buf_len = usize::try_from(meta.len.saturating_add(1))
        .unwrap_or(BUF_LEN)
        .clamp(BINARY_SNIFF_LEN + 1, BUF_LEN);
    let mut buf = vec![0u8; buf_len];
    let filled = fill(&mut file, &mut buf, BINARY_SNIFF_LEN).map_err(|e| io_err(&e))?;
    let head = &buf[..filled.min(BINARY_SNIFF_LEN)];
    if let Some(format) = ImageFormat::sniff(head) {
        drop(buf);
        return read_image(file, meta.len, format, options)
            .map(ReadOutcome::Image)
            .map_err(|e| io_err(&e).into());
    }
    if encoding::looks_binary(head) {
        return Ok(ReadOutcome::Binary { size: meta.len });
    }
    let wide = encoding::wide_bom(head).is_some();
    let window = if meta.len < INDEX_MIN_LEN || wide {
        // Held whole: a small file, to tell whether it is UTF-8; or UTF-16/32 text, whose
        // lines are only found in its decoded text.
        if meta.len > DECODE_MAX {
            return Err(too_large_to_decode(target, meta.len, head));
        }
        // `fill` stops short of what it was asked for only at the end of the file.
        let at_end = filled < BINARY_SNIFF_LEN.min(buf.len());
        buf.truncate(filled);
        if !at_end {
            (&mut file)
                .take(DECODE_MAX + 1 - filled as u64)
                .read_to_end(&mut buf)
                .map_err(|e| io_err(&e))?;
        }
        if let Some(witness) = witness {
            witness.saw(meta.stamp, &buf);
        }
        text_window(&buf, options).map_err(|e| io_err(&e))?
    } else {
        // A large file: the line index reaches the window's line (counting on from what is
        // known of the file), the window is read from the mark before it to its end, and the
        // lines after it are counted within the budget.
        drop(buf);
        let key = FileKey::of(&file).map_err(|e| io_err(&e))?;
        let count_err = |e: CountError| match e {
            CountError::Io(e) => io_err(&e),
            CountError::Cancelled { done } => cancelled(target, done, key.size()),
        };
        let mut count = Count::new(&file, key, options.count_budget, started, ctx);
        count.reach(options.offset).map_err(count_err)?;
        let (start, before) = count.index().start_for(options.offset);
        let mut reader = &file;
        io::Seek::seek(&mut reader, io::SeekFrom::Start(start)).map_err(|e| io_err(&e))?;
        let from = Resume {
            newlines: before,
            total: count.index().total(),
            stop: true,
        };
        let window = stream_window(&mut reader, vec![0u8; BUF_LEN], 0, options, from)
            .map_err(|e| io_err(&e))?;
        if let Total::Exact(total) = window.total {
            count.learn_total(total);
        }
        if encoding::is_utf8(&window.bytes) || meta.len > DECODE_MAX {
            let mut window = mark_invalid_lines(window);
            if let Total::AtLeast(seen) = window.total {
                count.count_on().map_err(count_err)?;
                let index = count.index();
                window.total = match index.total() {
                    Some(total) => Total::Exact(total),
                    None => Total::AtLeast(seen.max(index.lines_at_least())),
                };
            }
            window
        } else {
            // Not UTF-8 where it is read: the whole file decides its encoding.
            let mut bytes = Vec::new();
            io::Seek::seek(&mut reader, io::SeekFrom::Start(0)).map_err(|e| io_err(&e))?;
            reader
                .take(DECODE_MAX)
                .read_to_end(&mut bytes)
                .map_err(|e| io_err(&e))?;
            match encoding::decode_foreign(&bytes, None) {
                Some(decoded) => decoded_window(&decoded, options).map_err(|e| io_err(&e))?,
                None => {
                    // Held whole, so its length is known.
                    let mut window = mark_invalid_lines(window);
                    let scan = scan(&mut &bytes[..], DECODE_MAX).map_err(|e| io_err(&e))?;
                    if let Some(scan) = scan {
                        window.total = Total::Exact(scan.lines);
                    }
                    window
                }
            }
        }
    };
    let Total::Exact(total) = window.total else {
        // The window was found, and lines follow it.
        return Ok(ReadOutcome::Text(window));
    };
    if total == 0 && options.offset == 1 {
        return Ok(ReadOutcome::Text(window));
    }
    if options.offset > total {
        return Err(ReadError::PastEnd {
            path: target.shown.clone(),
            offset: options.offset,
            total,
        });
    }
    Ok(ReadOutcome::Text(window))
}

/// The window of a file held whole in `bytes`: decoded when it is text in another encoding,
/// else as stored.
fn text_window(bytes: &[u8], options: &ReadOptions) -> io::Result<TextWindow> {
    match encoding::decode_foreign(bytes, None) {
        Some(decoded) => decoded_window(&decoded, options),
        None => {
            let buf = vec![0u8; (bytes.len() + 1).min(BUF_LEN)];
            let window = stream_window(&mut &bytes[..], buf, 0, options, Resume::START)?;
            Ok(mark_invalid_lines(window))
        }
    }
}

/// The window of a decoded file's text.
fn decoded_window(decoded: &encoding::Decoded, options: &ReadOptions) -> io::Result<TextWindow> {
    let text = decoded.text.as_bytes();
    let buf = vec![0u8; (text.len() + 1).min(BUF_LEN)];
    let mut window = stream_window(&mut &text[..], buf, 0, options, Resume::START)?;
    window.source = Source::Decoded {
        format: decoded.format,
        malformed: decoded.malformed,
    };
    Ok(window)
}

/// `window` (as stored), noting the lines that hold bytes that are not valid UTF-8.
fn mark_invalid_lines(mut window: TextWindow) -> TextWindow {
    if encoding::is_utf8(&window.bytes) {
        return window;
    }
    let lines = window
        .bytes
        .split_inclusive(|&b| b == b'\n')
        .zip(window.first..)
        .filter(|(line, _)| std::str::from_utf8(line).is_err())
        .map(|(_, n)| n)
        .collect();
    window.source = Source::InvalidUtf8 { lines };
    window
}

fn too_large_to_decode(target: &Resolved, size: u64, head: &[u8]) -> ReadError {
    ReadError::TooLargeToDecode {
        path: target.shown.clone(),
        encoding: encoding::wide_bom(head).map_or("UTF-16/32", |e| e.name()),
        size,
        max: DECODE_MAX,
    }
}

fn cancelled(target: &Resolved, done: u64, size: u64) -> ToolError {
    ToolError::new(
        ErrorKind::Cancelled,
        format!(
            "the read of {} was cancelled by the caller after counting {done} of its {size} \
             bytes; nothing is returned",
            target.shown
        ),
    )
}

fn open_error(err: &io::Error, target: &Resolved) -> ReadError {
    let path = target.shown.clone();
    match err.kind() {
        io::ErrorKind::NotFound => ReadError::Missing { path },
        io::ErrorKind::IsADirectory => ReadError::Directory { path },
        io::ErrorKind::InvalidInput => ToolError::invalid(format!(
            "{path} is not a regular file (a FIFO, socket or device), so it is not read"
        ))
        .into(),
        _ => ToolError::from_io(err, "read", &target.shown).into(),
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
    mut file: OpenFile,
    size: u64,
    format: ImageFormat,
    options: &ReadOptions,
) -> io::Result<ImageRead> {
    // An image that could be attached is checked whole, vision or not, so that its
    // description never repeats what a damaged header claims.
    let (attachment, dimensions) = if size > options.image_ceiling {
        let attachment = if options.attach_images {
            Attachment::TooLarge(options.image_ceiling)
        } else {
            Attachment::NoVision
        };
        (attachment, image::dimensions_of(&mut file))
    } else {
        let mut data = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
        io::Seek::seek(&mut file, io::SeekFrom::Start(0))?;
        file.read_to_end(&mut data)?;
        match image::check(&data) {
            Some(Ok(checked)) if options.attach_images => (
                Attachment::Attached(Fitted::as_is(data, checked)),
                Some((checked.width, checked.height)),
            ),
            Some(Ok(checked)) => (Attachment::NoVision, Some((checked.width, checked.height))),
            Some(Err(damaged)) => (Attachment::Damaged(damaged.reason), None),
            None => (
                Attachment::Damaged("it changed while being read".into()),
                None,
            ),
        }
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

/// Where [`stream_window`] starts, and where it stops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Resume {
    /// How many newlines come before the reader's position.
    newlines: u64,
    /// The file's line count when it is already known.
    total: Option<u64>,
    /// Stop at the window's end rather than count the lines after it. The window's total is
    /// then `total`, or exact when the file ends there, or else at least the line after the
    /// window.
    stop: bool,
}

impl Resume {
    const START: Resume = Resume {
        newlines: 0,
        total: None,
        stop: false,
    };
}

/// Streams the file through `buf` (whose first `filled` bytes are already read), keeping the
/// window's bytes and counting every line, or stopping at the window's end (`from.stop`). The
/// reader is positioned where `from` says: at the start, or after `from.newlines` newlines but
/// before the one ending line `options.offset - 1`.
fn stream_window<R: Read>(
    file: &mut R,
    mut buf: Vec<u8>,
    mut filled: usize,
    options: &ReadOptions,
    from: Resume,
) -> io::Result<TextWindow> {
    let first = options.offset;
    let last_wanted = options
        .limit
        .map_or(u64::MAX, |limit| first.saturating_add(limit - 1));
    let ceiling = options.byte_ceiling;
    let mut out: Vec<u8> = Vec::new();
    // Newlines seen so far; the line being read is `newlines + 1`.
    let mut newlines: u64 = from.newlines;
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
    // Stopping at the window's end: whether bytes are known to follow it.
    let mut more = false;

    loop {
        if from.stop && phase == Phase::Count {
            if !more && from.total.is_none() {
                // One byte tells whether the file ends with the window.
                more = fill(file, &mut buf[..1], 1)? > 0;
            }
            break;
        }
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
                Phase::Count if from.stop => {
                    more = true;
                    pos = chunk.len();
                }
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
    let total = match from.total {
        Some(total) => Total::Exact(total),
        // The window ended where the next line starts.
        None if more => Total::AtLeast(newlines + 1),
        None => Total::Exact(newlines + u64::from(unterminated)),
    };
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
        source: Source::Stored,
    })
}

fn set_len(cut: &mut Option<Cut>, len: u64) {
    if let Some(Cut::MidLine { len: l, .. }) = cut {
        *l = len;
    }
}

/// A window of whole lines for [`stream_lines`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineWindow {
    /// The first line offered (1-based).
    pub first: u64,
    /// The last line offered (inclusive, at least `first`); `None` goes on to the end of the
    /// file.
    pub last: Option<u64>,
    /// Once the window is complete, how many more bytes the stream may read looking for the
    /// file's end (to learn its line count). Past them it stops: the rest of a large file is
    /// never read.
    pub tail: u64,
}

/// Where [`stream_lines`] delivers the window's lines, and how much it still takes.
pub trait LineSink {
    /// The longest line (its ending included) still worth reading whole; a longer line ends
    /// the window without being held in memory.
    fn room(&self) -> usize;
    /// Offers line `number` (its ending included, bytes as on disk). Returns whether it was
    /// taken; a line not taken ends the window.
    fn take(&mut self, number: u64, line: &[u8]) -> bool;
}

/// How a [`stream_lines`] read ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinesRead {
    /// Lines the sink took.
    pub taken: u64,
    /// How many lines the file has, when the stream reached its end: before or inside the
    /// window, or within the tail after it. `None` when the read stopped earlier, and always
    /// when the window was cut.
    pub total: Option<u64>,
    /// Whether the file goes on past the last line taken.
    pub more: bool,
    /// Whether the window was cut: a line was longer than the sink's room or not taken.
    pub cut: bool,
}

/// Streams lines `window.first..=window.last` of `reader` to `sink`, one whole line at a time,
/// through one fixed buffer: lines before the window are counted and skipped, no line longer
/// than the sink's room is held, and once the window is complete at most `window.tail` more
/// bytes are read. A line is a segment ended by `\n` or by the end of the file, so a final
/// newline does not make an empty last line.
pub fn stream_lines<R: Read, S: LineSink + ?Sized>(
    reader: &mut R,
    window: LineWindow,
    sink: &mut S,
) -> io::Result<LinesRead> {
    stream_lines_through(reader, window, sink, BUF_LEN)
}

/// Where [`stream_lines`] is relative to the window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    /// Before the window: counting lines.
    Skip,
    /// Inside the window: gathering the current line.
    Collect,
    /// After a complete window: counting lines while the tail lasts.
    Tail,
}

fn stream_lines_through<R: Read, S: LineSink + ?Sized>(
    reader: &mut R,
    window: LineWindow,
    sink: &mut S,
    buf_len: usize,
) -> io::Result<LinesRead> {
    let first = window.first;
    if first == 0 || window.last.is_some_and(|last| last < first) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "a line window is 1-based and its last line is not before its first",
        ));
    }
    let mut buf = vec![0u8; buf_len.max(1)];
    // Lines ended by a newline so far.
    let mut newlines: u64 = 0;
    // The last byte counted outside the window (skip and tail), to tell an unterminated line.
    let mut last_byte: Option<u8> = None;
    let mut line: Vec<u8> = Vec::new();
    let mut taken: u64 = 0;
    let mut tail_read: u64 = 0;
    let mut stage = if first > 1 {
        Stage::Skip
    } else {
        Stage::Collect
    };
    let cut = |taken| LinesRead {
        taken,
        total: None,
        more: true,
        cut: true,
    };

    loop {
        let filled = fill(reader, &mut buf, 1)?;
        if filled == 0 {
            break;
        }
        let chunk = &buf[..filled];
        let mut pos = 0;
        while pos < chunk.len() {
            let rest = &chunk[pos..];
            match stage {
                Stage::Skip => {
                    last_byte = rest.last().copied();
                    let mut next = chunk.len();
                    for i in memchr::memchr_iter(b'\n', rest) {
                        newlines += 1;
                        if newlines + 1 == first {
                            next = pos + i + 1;
                            stage = Stage::Collect;
                            break;
                        }
                    }
                    pos = next;
                }
                Stage::Collect => {
                    let newline = memchr::memchr(b'\n', rest);
                    let len = newline.map_or(rest.len(), |i| i + 1);
                    if line.len() + len > sink.room() {
                        return Ok(cut(taken));
                    }
                    line.extend_from_slice(&rest[..len]);
                    pos += len;
                    if newline.is_some() {
                        newlines += 1;
                        if !sink.take(newlines, &line) {
                            return Ok(cut(taken));
                        }
                        taken += 1;
                        line.clear();
                        if window.last == Some(newlines) {
                            stage = Stage::Tail;
                            last_byte = None;
                        }
                    }
                }
                Stage::Tail => {
                    last_byte = rest.last().copied();
                    newlines += memchr::memchr_iter(b'\n', rest).count() as u64;
                    tail_read += rest.len() as u64;
                    pos = chunk.len();
                    if tail_read > window.tail {
                        return Ok(LinesRead {
                            taken,
                            total: None,
                            more: true,
                            cut: false,
                        });
                    }
                }
            }
        }
    }

    let unterminated = u64::from(last_byte.is_some_and(|b| b != b'\n'));
    Ok(match stage {
        Stage::Skip => LinesRead {
            taken,
            total: Some(newlines + unterminated),
            more: false,
            cut: false,
        },
        Stage::Collect if line.is_empty() => LinesRead {
            taken,
            total: Some(newlines),
            more: false,
            cut: false,
        },
        Stage::Collect => {
            // The file's own unterminated last line.
            if !sink.take(newlines + 1, &line) {
                return Ok(cut(taken));
            }
            LinesRead {
                taken: taken + 1,
                total: Some(newlines + 1),
                more: false,
                cut: false,
            }
        }
        Stage::Tail => LinesRead {
            taken,
            total: Some(newlines + unterminated),
            more: tail_read > 0,
            cut: false,
        },
    })
}

/// What [`scan`] found in a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scan {
    /// How many lines it has (a final newline does not make an empty last line).
    pub lines: u64,
    /// Whether it is valid UTF-8.
    pub utf8: bool,
}

/// Counts the lines of `reader` and checks that it is UTF-8, streaming through one buffer and
/// reading at most `limit` bytes; `None` when it holds more than that.
pub fn scan<R: Read>(reader: &mut R, limit: u64) -> io::Result<Option<Scan>> {
    scan_through(reader, limit, BUF_LEN)
}

fn scan_through<R: Read>(reader: &mut R, limit: u64, buf_len: usize) -> io::Result<Option<Scan>> {
    // Room in front for the up to three bytes of a character split between two reads.
    let mut buf = vec![0u8; buf_len.max(1) + 3];
    let mut carry = 0usize;
    let mut seen: u64 = 0;
    let mut newlines: u64 = 0;
    let mut last_byte: Option<u8> = None;
    let mut utf8 = true;
    loop {
        let filled = fill(reader, &mut buf[carry..], 1)?;
        if filled == 0 {
            break;
        }
        seen += filled as u64;
        if seen > limit {
            return Ok(None);
        }
        let fresh = &buf[carry..carry + filled];
        newlines += memchr::memchr_iter(b'\n', fresh).count() as u64;
        last_byte = fresh.last().copied();
        let held = carry + filled;
        carry = 0;
        if utf8 && let Err(e) = std::str::from_utf8(&buf[..held]) {
            match e.error_len() {
                Some(_) => utf8 = false,
                None => {
                    let valid = e.valid_up_to();
                    buf.copy_within(valid..held, 0);
                    carry = held - valid;
                }
            }
        }
    }
    if carry > 0 {
        utf8 = false;
    }
    let unterminated = u64::from(last_byte.is_some_and(|b| b != b'\n'));
    Ok(Some(Scan {
        lines: newlines + unterminated,
        utf8,
    }))
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
            total: Total::Exact(total),
            cut,
            source: Source::Stored,
        }
    }

    fn streamed(bytes: &[u8], options: &ReadOptions, buf_len: usize) -> TextWindow {
        let mut reader = std::io::Cursor::new(bytes);
        stream_window(&mut reader, vec![0; buf_len], 0, options, Resume::START).unwrap()
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
        assert_eq!((w.first, w.last, w.total), (2, 3, Total::Exact(4)));
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
        assert_eq!((w.first, w.last, w.total), (1, 1, Total::Exact(2)));
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
    proptest! {
        #[test]
        fn a_window_resumed_from_the_line_index_matches_a_full_stream(
            lines in proptest::collection::vec("[a-c\\r]{0,9}", 0..30),
            final_newline in any::<bool>(),
            offset in 1u64..32,
            limit in proptest::option::of(1u64..14),
            ceiling in 1usize..60,
            stride in 1u64..16,
            buf_len in 1usize..20,
        ) {
            let mut text = lines.join("\n");
            if final_newline && !text.is_empty() {
                text.push('\n');
            }
            let bytes = text.as_bytes();
            let options = ReadOptions { offset, limit, byte_ceiling: ceiling, ..Default::default() };
            let expected = streamed(bytes, &options, buf_len);
            let index = crate::ops::line_index::LineIndex::of_bytes(bytes, stride);
            let (at, before) = index.start_for(offset);
            let mut reader = std::io::Cursor::new(&bytes[at as usize..]);
            let from = Resume { newlines: before, total: index.total(), stop: true };
            let got = stream_window(&mut reader, vec![0; buf_len], 0, &options, from).unwrap();
            prop_assert_eq!(got, expected);
        }

        #[test]
        fn a_window_that_stops_at_its_end_says_what_it_knows_of_the_total(
            lines in proptest::collection::vec("[a-c\\r]{0,9}", 0..30),
            final_newline in any::<bool>(),
            offset in 1u64..32,
            limit in proptest::option::of(1u64..14),
            ceiling in 1usize..60,
            stride in 1u64..16,
            buf_len in 1usize..20,
        ) {
            let mut text = lines.join("\n");
            if final_newline && !text.is_empty() {
                text.push('\n');
            }
            let bytes = text.as_bytes();
            let options = ReadOptions { offset, limit, byte_ceiling: ceiling, ..Default::default() };
            let expected = streamed(bytes, &options, buf_len);
            let index = crate::ops::line_index::LineIndex::of_bytes(bytes, stride);
            let (at, before) = index.start_for(offset);
            let mut reader = std::io::Cursor::new(&bytes[at as usize..]);
            let from = Resume { newlines: before, total: None, stop: true };
            let got = stream_window(&mut reader, vec![0; buf_len], 0, &options, from).unwrap();
            // The window itself is the same; its total is exact when the file ends with it,
            // else the line after it, which exists.
            let total = expected.total.exact().unwrap();
            match got.total {
                Total::Exact(n) => prop_assert_eq!(n, total),
                Total::AtLeast(n) => {
                    prop_assert!(n > got.last && n <= total, "{} of {}", n, total);
                    prop_assert!(got.is_partial());
                }
            }
            prop_assert_eq!(TextWindow { total: expected.total, ..got }, expected);
        }
    }

    /// A sink that takes lines while they fit a byte budget, as the coder profile's does.
    struct Budget {
        budget: usize,
        out: Vec<u8>,
        numbers: Vec<u64>,
    }

    impl LineSink for Budget {
        fn room(&self) -> usize {
            self.budget - self.out.len()
        }

        fn take(&mut self, number: u64, line: &[u8]) -> bool {
            if self.out.len() + line.len() > self.budget {
                return false;
            }
            self.out.extend_from_slice(line);
            self.numbers.push(number);
            true
        }
    }

    fn lines_reference(
        bytes: &[u8],
        window: LineWindow,
        budget: usize,
    ) -> (LinesRead, Vec<u8>, Vec<u64>) {
        let lines: Vec<&[u8]> = if bytes.is_empty() {
            Vec::new()
        } else {
            bytes.split_inclusive(|b| *b == b'\n').collect()
        };
        let total = lines.len() as u64;
        let mut out = Vec::new();
        let mut numbers = Vec::new();
        if window.first > total {
            let read = LinesRead {
                taken: 0,
                total: Some(total),
                more: false,
                cut: false,
            };
            return (read, out, numbers);
        }
        let end = window.last.map_or(total, |l| l.min(total));
        for n in window.first..=end {
            let line = lines[n as usize - 1];
            if out.len() + line.len() > budget {
                let read = LinesRead {
                    taken: numbers.len() as u64,
                    total: None,
                    more: true,
                    cut: true,
                };
                return (read, out, numbers);
            }
            out.extend_from_slice(line);
            numbers.push(n);
        }
        let after: usize = lines[end as usize..].iter().map(|l| l.len()).sum();
        let read = LinesRead {
            taken: numbers.len() as u64,
            total: (after as u64 <= window.tail).then_some(total),
            more: end < total,
            cut: false,
        };
        (read, out, numbers)
    }

    #[test]
    fn a_line_window_stops_after_its_tail_and_counts_when_the_end_is_near() {
        let text = b"a\nbb\nccc\ndddd\n";
        let mut sink = Budget {
            budget: 100,
            out: Vec::new(),
            numbers: Vec::new(),
        };
        let window = LineWindow {
            first: 2,
            last: Some(2),
            tail: 4,
        };
        let got = stream_lines_through(&mut &text[..], window, &mut sink, 3).unwrap();
        assert_eq!(sink.out, b"bb\n");
        assert_eq!(sink.numbers, vec![2]);
        assert_eq!(
            got,
            LinesRead {
                taken: 1,
                total: None,
                more: true,
                cut: false
            }
        );
        let mut sink = Budget {
            budget: 100,
            out: Vec::new(),
            numbers: Vec::new(),
        };
        let near = LineWindow { tail: 9, ..window };
        let got = stream_lines_through(&mut &text[..], near, &mut sink, 3).unwrap();
        assert_eq!(got.total, Some(4));
    }

    #[test]
    fn a_line_longer_than_the_room_is_never_held() {
        struct Tiny;
        impl LineSink for Tiny {
            fn room(&self) -> usize {
                4
            }
            fn take(&mut self, _: u64, line: &[u8]) -> bool {
                assert!(line.len() <= 4, "a line of {} bytes was held", line.len());
                true
            }
        }
        let text = [b"ab\n".to_vec(), b"x".repeat(1000)].concat();
        let window = LineWindow {
            first: 1,
            last: None,
            tail: 0,
        };
        let got = stream_lines_through(&mut &text[..], window, &mut Tiny, 8).unwrap();
        assert_eq!(
            got,
            LinesRead {
                taken: 1,
                total: None,
                more: true,
                cut: true
            }
        );
    }

    #[test]
    fn scan_counts_lines_and_checks_utf8_across_reads() {
        let text = "é€\n😀x".as_bytes();
        for buf_len in 1..8 {
            let got = scan_through(&mut &text[..], 100, buf_len).unwrap();
            assert_eq!(
                got,
                Some(Scan {
                    lines: 2,
                    utf8: true
                }),
                "buffer {buf_len}"
            );
        }
        let bad = [b'a', 0xE2, 0x82, b'\n'];
        let got = scan_through(&mut &bad[..], 100, 2).unwrap();
        assert_eq!(
            got,
            Some(Scan {
                lines: 1,
                utf8: false
            })
        );
        let cut_short = [b'a', 0xE2, 0x82];
        assert_eq!(
            scan_through(&mut &cut_short[..], 100, 2).unwrap(),
            Some(Scan {
                lines: 1,
                utf8: false
            })
        );
        assert_eq!(scan_through(&mut &text[..], 5, 2).unwrap(), None);
    }

    proptest! {
        #[test]
        fn line_windows_through_any_buffer_match_the_reference(
            lines in proptest::collection::vec("[a-cé\\r]{0,12}", 0..12),
            final_newline in any::<bool>(),
            first in 1u64..14,
            span in proptest::option::of(0u64..14),
            tail in 0u64..40,
            budget in 0usize..60,
            buf_len in 1usize..20,
        ) {
            let mut text = lines.join("\n");
            if final_newline && !text.is_empty() {
                text.push('\n');
            }
            let window = LineWindow { first, last: span.map(|s| first + s), tail };
            let (expected, out, numbers) = lines_reference(text.as_bytes(), window, budget);
            let mut sink = Budget { budget, out: Vec::new(), numbers: Vec::new() };
            let got = stream_lines_through(&mut text.as_bytes(), window, &mut sink, buf_len).unwrap();
            prop_assert_eq!(got, expected);
            prop_assert_eq!(sink.out, out);
            prop_assert_eq!(sink.numbers, numbers);
        }

        #[test]
        fn scanning_through_any_buffer_matches_the_whole_file(
            bytes in proptest::collection::vec(prop_oneof![Just(b'\n'), Just(b'a'), Just(0xC3u8), Just(0xA9u8), Just(0xE2u8), Just(0x82u8), Just(0xACu8)], 0..40),
            buf_len in 1usize..10,
        ) {
            let got = scan_through(&mut &bytes[..], 1000, buf_len).unwrap();
            let newlines = bytes.iter().filter(|b| **b == b'\n').count() as u64;
            let lines = newlines + u64::from(bytes.last().is_some_and(|b| *b != b'\n'));
            let utf8 = std::str::from_utf8(&bytes).is_ok();
            prop_assert_eq!(got, Some(Scan { lines, utf8 }));
        }
    }
}
