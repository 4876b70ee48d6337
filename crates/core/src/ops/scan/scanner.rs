//! The file scanner: how every search opens a walked file and reads its text.
//!
//! A [`TextRule`] says, for one search, where a NUL byte makes a file binary (anywhere, in its
//! first bytes, or nowhere; a file that starts with a UTF-16 or UTF-32 byte-order mark is text
//! either way), which text is decoded (text in another encoding than UTF-8, as read_file and
//! the edits decode it; or only UTF-16/32; or none), how large a file may be, and how long a
//! line. The [`Scanner`] (one per worker, its buffers reused from file to file) reads a file by
//! that rule and gives its text to the search's [`Lines`], whole lines at a time:
//!
//! - A file up to [`TextRule::whole_max`] is read whole, in one `read` when its length is
//!   known, and given in one piece; so is any file when the search asks for whole texts
//!   ([`TextRule::whole`]), one larger than `whole_max` into one buffer the workers share, one
//!   file at a time, so memory stays bounded whatever the tree holds.
//! - A larger one is read a block of whole lines at a time ([`BLOCK`] bytes, more for a longer
//!   line). Once the search has enough, the rest is still read, but only as far as the rule
//!   needs to know the file is text: a NUL byte further on still makes it binary, and a byte
//!   that is not UTF-8 its text another encoding's, which is then decoded whole (up to
//!   [`DECODE_MAX`]) and given again from its start ([`Lines::restart`]). A block read loses a
//!   leading UTF-8 byte-order mark, as ripgrep's streaming reader does; a whole read keeps it,
//!   as ripgrep's search of a slice does.
//! - UTF-16 and UTF-32 text is decoded whole; under [`Decode::Foreign`] only up to
//!   [`DECODE_MAX`] (a larger one is not searched, as read_file does not decode it).

use std::io::{self, Read as _, Seek};
use std::path::PathBuf;
use std::sync::Mutex;

use encoding_rs::Encoding;

use crate::access::walk::WalkedFile;
use crate::access::walkdir::OpenDir;
use crate::access::{Access, OpenFile, fs};
use crate::ops::read::DECODE_MAX;
use crate::text::encoding::{self, Utf8Check};

/// The bytes read at a time from a file read in blocks.
pub const BLOCK: usize = 1 << 20;
/// The first read of a file whose length is not known.
pub(crate) const FIRST_READ: usize = 64 << 10;
/// The UTF-8 byte-order mark.
const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// Where a NUL byte makes a file binary, so that it is skipped whole. A file that starts with
/// a UTF-16 or UTF-32 byte-order mark is never binary (its text is full of NUL bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Binary {
    /// Anywhere in the file (ripgrep's rule).
    Anywhere,
    /// In its first this many bytes.
    Head(usize),
    /// Nowhere: every file is text.
    Never,
}

/// Which text that is not UTF-8 is decoded before it is searched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decode {
    /// Text in another encoding (a legacy code page, detection leaning on the given one;
    /// UTF-16 or UTF-32 with a BOM), as read_file shows it ([`encoding::decode_foreign`]).
    Foreign(Option<&'static Encoding>),
    /// UTF-16 and UTF-32 with a BOM; anything else as stored.
    Wide,
    /// Nothing: the bytes as stored.
    AsStored,
}

/// How one search reads the files it opens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TextRule {
    /// Where a NUL byte makes a file binary. By default anywhere.
    pub binary: Binary,
    /// Which text is decoded. By default none.
    pub decode: Decode,
    /// Files longer than this are not read ([`Read::TooLarge`]). By default no bound.
    pub max_bytes: Option<u64>,
    /// Files up to this many bytes are read whole and given in one piece; larger ones a block
    /// of whole lines at a time. By default 4 MiB.
    pub whole_max: u64,
    /// Give every file in one piece, whatever its size. By default only those up to
    /// `whole_max`.
    pub whole: bool,
    /// Lines longer than this many bytes are cut there (the rest is never given). By default
    /// no bound.
    pub max_line: Option<usize>,
}

impl Default for TextRule {
    fn default() -> Self {
        TextRule {
            binary: Binary::Anywhere,
            decode: Decode::AsStored,
            max_bytes: None,
            whole_max: 4 << 20,
            whole: false,
            max_line: None,
        }
    }
}

/// What a search says after taking some of a file's text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Give more.
    More,
    /// It has all it wants of this file.
    Enough,
    /// The text is binary after all (a NUL in decoded text): drop the file.
    Binary,
}

/// Takes a file's text from the scanner.
pub trait Lines {
    /// Takes `text`, whole lines of the file's text (each ended by `\n`, the file's last line
    /// perhaps not), the first of them the file's line `first` (1-based).
    fn lines(&mut self, text: &[u8], first: u64) -> Flow;
    /// Forgets what it took: the file's text is given again from its start, decoded.
    fn restart(&mut self);
}

/// How reading a file ended.
#[derive(Debug)]
pub enum Read {
    /// Its text was given: all of it, or until the search had enough.
    Text,
    /// It is binary (by the rule, or as the search found): drop what it gave.
    Binary,
    /// It is longer than the rule's bound: its length (nothing was given, or what was is void).
    TooLarge(u64),
    /// It could not be read: nothing was given.
    Unreadable(io::Error),
    /// Reading failed part-way: what was given stands.
    Failed(io::Error),
}

/// A worker's scanner: its buffers, reused from file to file.
pub struct Scanner<'s> {
    /// A file read whole, or the block being read.
    buf: Vec<u8>,
    /// Lines cut to the rule's length.
    cut: Vec<u8>,
    /// The folder of the last file opened by path, and its handle.
    folder: Option<(PathBuf, OpenDir)>,
    /// The buffer the workers share for files read whole beyond `whole_max`.
    large: &'s Mutex<Vec<u8>>,
}

impl<'s> Scanner<'s> {
    /// A scanner whose large files are read into `large`, shared with the other workers.
    pub fn new(large: &'s Mutex<Vec<u8>>) -> Scanner<'s> {
        Scanner {
            buf: Vec::new(),
            cut: Vec::new(),
            folder: None,
            large,
        }
    }

    /// Opens a walked file relative to its folder's handle: the one the walk gives, else the
    /// one kept from the previous file when it lies in the same folder (as most files of a
    /// batch do). Gives its length when it is known without asking (see
    /// [`Access::open_walked_file`]).
    pub fn open(
        &mut self,
        access: &Access,
        file: &WalkedFile,
    ) -> io::Result<(OpenFile, Option<u64>)> {
        if file.dir().is_some() || file.via_link() {
            return access.open_walked_file(file);
        }
        let folder = file.folder_path();
        let dir = match self.folder.take() {
            Some((open, dir)) if open == folder => dir,
            _ => access.open_walked_dir(folder)?,
        };
        let opened = access.open_walked_at(&dir, file.name());
        self.folder = Some((folder.to_path_buf(), dir));
        opened
    }

    /// Reads the open `file` (of length `len`, when known) by `rule`, giving its text to
    /// `lines`.
    pub fn read(
        &mut self,
        file: &mut OpenFile,
        len: Option<u64>,
        rule: &TextRule,
        lines: &mut impl Lines,
    ) -> Read {
        let len = match len {
            Some(len) => Some(len),
            // A bound or a whole read needs the length up front.
            None if rule.max_bytes.is_some() || rule.whole => match file.metadata() {
                Ok(meta) if meta.is_file() => Some(meta.len()),
                Ok(_) => return Read::Unreadable(io::Error::from(io::ErrorKind::InvalidInput)),
                Err(e) => return Read::Unreadable(e),
            },
            None => None,
        };
        if let (Some(len), Some(max)) = (len, rule.max_bytes)
            && len > max
        {
            return Read::TooLarge(len);
        }
        let limit = if rule.whole {
            rule.max_bytes.unwrap_or(u64::MAX)
        } else {
            rule.whole_max
        };
        if len.is_some_and(|len| len > rule.whole_max) {
            if rule.whole {
                return self.whole_large(file, len, limit, rule, lines);
            }
            return self.blocks(file, rule, lines);
        }
        let filled = match read_small(file, &mut self.buf, len, rule.whole_max) {
            Ok(Some(filled)) => filled,
            // Longer than it said, or than a first read: read on as a large file.
            Ok(None) => {
                if let Err(e) = file.seek(io::SeekFrom::Start(0)) {
                    return Read::Unreadable(e);
                }
                if rule.whole {
                    return self.whole_large(file, None, limit, rule, lines);
                }
                return self.blocks(file, rule, lines);
            }
            Err(e) => return Read::Unreadable(e),
        };
        let read = give_whole(&self.buf[..filled], rule, &mut self.cut, lines);
        if self.buf.len() > 2 * BLOCK.max(rule.whole_max as usize) {
            self.buf = Vec::new();
        }
        read
    }

    /// Reads a file larger than `whole_max` whole into the shared buffer (one such file at a
    /// time) and gives it in one piece.
    fn whole_large(
        &mut self,
        file: &mut OpenFile,
        len: Option<u64>,
        limit: u64,
        rule: &TextRule,
        lines: &mut impl Lines,
    ) -> Read {
        let Ok(mut large) = self.large.lock() else {
            return Read::Unreadable(io::Error::other("a worker failed"));
        };
        match read_upto(file, &mut large, len, limit) {
            Ok(Some(filled)) => give_whole(&large[..filled], rule, &mut self.cut, lines),
            Ok(None) => Read::TooLarge(large.len() as u64),
            Err(e) => Read::Unreadable(e),
        }
    }

    /// Reads a large file a block of whole lines at a time (see the module documentation).
    fn blocks(&mut self, file: &mut OpenFile, rule: &TextRule, lines: &mut impl Lines) -> Read {
        let buf = &mut self.buf;
        buf.clear();
        // Lines before the start of `buf`, bytes read so far, and whether anything was given.
        let (mut base, mut total, mut given) = (0u64, 0u64, false);
        let mut utf8 = Utf8Check::default();
        let foreign = matches!(rule.decode, Decode::Foreign(_));
        let mut enough = false;
        // Inside a line longer than the rule's bound, past its cut: bytes are dropped up to
        // its end.
        let mut dropping = false;
        loop {
            let start = buf.len();
            buf.resize(start + BLOCK, 0);
            let n = match fs::read_full(file, &mut buf[start..]) {
                Ok(n) => n,
                Err(e) if given => return Read::Failed(e),
                Err(e) => return Read::Unreadable(e),
            };
            buf.truncate(start + n);
            let at = total;
            total += n as u64;
            let end = n < BLOCK;
            if rule.max_bytes.is_some_and(|max| total > max) {
                return Read::TooLarge(total);
            }
            if at == 0 {
                if encoding::wide_bom(buf).is_some() {
                    return self.wide(file, rule, lines);
                }
                if foreign && buf.starts_with(UTF8_BOM) {
                    utf8.feed(UTF8_BOM);
                    buf.drain(..UTF8_BOM.len());
                }
            }
            let fresh = &buf[start.min(buf.len())..];
            let nul = match rule.binary {
                Binary::Anywhere => memchr::memchr(0, fresh).is_some(),
                Binary::Head(head) => {
                    let head = usize::try_from((head as u64).saturating_sub(at)).unwrap_or(0);
                    memchr::memchr(0, &fresh[..head.min(fresh.len())]).is_some()
                }
                Binary::Never => false,
            };
            if nul {
                return Read::Binary;
            }
            if foreign {
                utf8.feed(fresh);
            }
            if enough {
                // Only to tell whether the file is text: nothing more is given.
                buf.clear();
                let more = rule.binary == Binary::Anywhere
                    || (foreign && !utf8.failed())
                    || rule.max_bytes.is_some();
                if end || !more {
                    break;
                }
                continue;
            }
            if dropping {
                match memchr::memchr(b'\n', &buf[start..]) {
                    Some(i) => {
                        buf.drain(start..start + i);
                        dropping = false;
                    }
                    None => {
                        buf.truncate(start);
                        if !end {
                            continue;
                        }
                        dropping = false;
                    }
                }
            }
            // Whole lines only, but everything once the file has ended.
            let upto = if end {
                buf.len()
            } else {
                match memchr::memrchr(b'\n', buf) {
                    Some(at) => at + 1,
                    None => {
                        // A line longer than a block: read on, keeping only its cut.
                        if let Some(max) = rule.max_line
                            && buf.len() > max
                        {
                            buf.truncate(max);
                            dropping = true;
                        }
                        continue;
                    }
                }
            };
            if upto > 0 {
                let chunk = cut_lines(&buf[..upto], rule.max_line, &mut self.cut);
                given = true;
                match lines.lines(chunk, base + 1) {
                    Flow::More => {}
                    Flow::Enough => enough = true,
                    Flow::Binary => return Read::Binary,
                }
            }
            base += memchr::memchr_iter(b'\n', &buf[..upto]).count() as u64;
            buf.drain(..upto);
            if !enough
                && let Some(max) = rule.max_line
                && buf.len() > max
                && memchr::memchr(b'\n', buf).is_none()
            {
                buf.truncate(max);
                dropping = true;
            }
            if end {
                break;
            }
        }
        if buf.capacity() > 2 * BLOCK {
            *buf = Vec::new();
        }
        if !foreign || utf8.is_valid() {
            return Read::Text;
        }
        // Not UTF-8: text in another encoding is searched as its decoded text.
        match self.decode_whole(file, rule) {
            Some(Ok(text)) => {
                lines.restart();
                give_text(text.as_bytes(), rule, &mut self.cut, lines)
            }
            Some(Err(e)) => Read::Failed(e),
            None => Read::Text,
        }
    }

    /// The decoded text of a file read in blocks that was not UTF-8, when it is text in
    /// another encoding no larger than [`DECODE_MAX`]; `None` to keep what its bytes gave.
    fn decode_whole(&mut self, file: &mut OpenFile, rule: &TextRule) -> Option<io::Result<String>> {
        let Decode::Foreign(fallback) = rule.decode else {
            return None;
        };
        let Ok(mut large) = self.large.lock() else {
            return None;
        };
        if let Err(e) = file.seek(io::SeekFrom::Start(0)) {
            return Some(Err(e));
        }
        match read_upto(file, &mut large, None, DECODE_MAX) {
            Ok(Some(filled)) => encoding::decode_foreign_text(&large[..filled], fallback).map(Ok),
            Ok(None) => None,
            Err(e) => Some(Err(e)),
        }
    }

    /// A file that starts with a UTF-16 or UTF-32 byte-order mark, found by a block read:
    /// decoded whole (under [`Decode::Foreign`] only up to [`DECODE_MAX`]) and given in one
    /// piece; as stored when the rule decodes nothing.
    fn wide(&mut self, file: &mut OpenFile, rule: &TextRule, lines: &mut impl Lines) -> Read {
        let limit = match rule.decode {
            Decode::Foreign(_) => DECODE_MAX,
            Decode::Wide | Decode::AsStored => rule.max_bytes.unwrap_or(u64::MAX),
        };
        if let Err(e) = file.seek(io::SeekFrom::Start(0)) {
            return Read::Unreadable(e);
        }
        let Ok(mut large) = self.large.lock() else {
            return Read::Unreadable(io::Error::other("a worker failed"));
        };
        match read_upto(file, &mut large, None, limit) {
            Ok(Some(filled)) => give_whole(&large[..filled], rule, &mut self.cut, lines),
            // UTF-16/32 text too large to decode is not searched.
            Ok(None) if matches!(rule.decode, Decode::Foreign(_)) => Read::Binary,
            Ok(None) => Read::TooLarge(large.len() as u64),
            Err(e) => Read::Unreadable(e),
        }
    }
}

/// Gives a file read whole: binary by the rule, else its text, decoded as the rule says, its
/// lines cut to the rule's bound.
fn give_whole(bytes: &[u8], rule: &TextRule, cut: &mut Vec<u8>, lines: &mut impl Lines) -> Read {
    let wide = encoding::wide_bom(bytes).is_some();
    let nul = match rule.binary {
        Binary::Anywhere => memchr::memchr(0, bytes).is_some(),
        Binary::Head(head) => memchr::memchr(0, &bytes[..head.min(bytes.len())]).is_some(),
        Binary::Never => false,
    };
    if nul && !wide {
        return Read::Binary;
    }
    let decoded = match rule.decode {
        Decode::Foreign(fallback) => encoding::decode_foreign_text(bytes, fallback),
        Decode::Wide if wide => Some(encoding::decode(bytes, None).text),
        Decode::Wide | Decode::AsStored => None,
    };
    give_text(
        decoded.as_ref().map_or(bytes, |d| d.as_bytes()),
        rule,
        cut,
        lines,
    )
}

/// Gives a file's whole text (decoded, if it was), its lines cut to the rule's bound.
fn give_text(text: &[u8], rule: &TextRule, cut: &mut Vec<u8>, lines: &mut impl Lines) -> Read {
    match lines.lines(cut_lines(text, rule.max_line, cut), 1) {
        Flow::Binary => Read::Binary,
        Flow::More | Flow::Enough => Read::Text,
    }
}

/// `text` with each line longer than `max` bytes cut to its first `max` bytes (its line ending
/// kept); `text` itself when no line is (the cut copy goes into `out`).
fn cut_lines<'t>(text: &'t [u8], max: Option<usize>, out: &'t mut Vec<u8>) -> &'t [u8] {
    let Some(max) = max else {
        return text;
    };
    if text.len() <= max {
        return text;
    }
    let long = |line: &[u8]| line.strip_suffix(b"\n").unwrap_or(line).len() > max;
    if !text.split_inclusive(|&b| b == b'\n').any(long) {
        return text;
    }
    out.clear();
    for line in text.split_inclusive(|&b| b == b'\n') {
        if long(line) {
            out.extend_from_slice(&line[..max]);
            if line.ends_with(b"\n") {
                out.push(b'\n');
            }
        } else {
            out.extend_from_slice(line);
        }
    }
    out
}

/// Reads `file` whole into the front of `buf` (grown as needed, never shrunk or cleared, so a
/// reused buffer costs nothing to prepare) and returns how many bytes it holds; `None` when
/// the file is longer than `max` (read part-way or not at all). `len`, when known, is the
/// file's length. A regular file reads short only at its end, so a file that fits the buffer
/// costs one `read`; only one that fills it is asked its length.
fn read_small(
    file: &mut OpenFile,
    buf: &mut Vec<u8>,
    len: Option<u64>,
    max: u64,
) -> io::Result<Option<usize>> {
    let room = match len {
        Some(len) if len > max => return Ok(None),
        Some(len) => usize::try_from(len).unwrap_or(0) + 1,
        None => FIRST_READ,
    };
    if buf.len() < room {
        buf.resize(room, 0);
    }
    let mut filled = 0;
    loop {
        if filled == buf.len() {
            let meta = file.metadata()?;
            // Only a regular file has an end to read to (the walk saw one; a device put in its
            // place since is not read on).
            if !meta.is_file() {
                return Err(io::Error::from(io::ErrorKind::InvalidInput));
            }
            let len = meta.len();
            if len > max || filled as u64 > max {
                return Ok(None);
            }
            let room = (usize::try_from(len).unwrap_or(0) + 1).max(buf.len() + 4096);
            buf.resize(room, 0);
        }
        filled += fs::read_full(file, &mut buf[filled..])?;
        if filled < buf.len() {
            return Ok(Some(filled));
        }
    }
}

/// Reads `file` from its current position into `buf` (cleared first), at most `max` bytes;
/// how many it holds, or `None` when there are more. `len`, when known, sizes the first read.
fn read_upto(
    file: &mut OpenFile,
    buf: &mut Vec<u8>,
    len: Option<u64>,
    max: u64,
) -> io::Result<Option<usize>> {
    buf.clear();
    if let Some(len) = len {
        buf.reserve(usize::try_from(len.min(max)).unwrap_or(0).saturating_add(1));
    }
    file.take(max.saturating_add(1)).read_to_end(buf)?;
    if buf.len() as u64 > max {
        return Ok(None);
    }
    Ok(Some(buf.len()))
}
