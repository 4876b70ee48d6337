//! Content search: a regular expression tried against each line of each file under a root, in
//! path order, under the ignore rule, stopping as soon as the answer is complete. Files holding
//! a NUL byte are not text and are skipped whole. Files are searched in parallel and their
//! matches put back in path order.
//!
//! Each file is searched as text by [`search_text`], which qwen's grep_search shares: UTF-8 as
//! stored; text in another encoding (a legacy code page, UTF-16 or UTF-32 with a BOM) as the
//! text the encoding engine decodes ([`encoding::decode_foreign`], the decoding read_file and
//! the edits use), so a match is the text a read shows, on the line a read counts. Only a file
//! that fails UTF-8 validation is decoded; validation runs over bytes already in memory, or as
//! a streamed file passes through the searcher.
//!
//! What the search passed over is counted ([`Skipped`]): folders it could not list, files it
//! could not open, symbolic links that loop (no link is followed), non-accessible files, and
//! ignore files not read.

use std::io::{self, Read, Seek};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use encoding_rs::Encoding;

use grep_matcher::LineTerminator;
use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder, Sink, SinkMatch};

use super::ordered;
use crate::access::ignore::{IgnoreFiles, Links};
use crate::access::listings::WalkedFile;
use crate::access::walkdir::{OpenDir, Skipped, Skips};
use crate::access::{Access, OpenFile, Resolved, fs};
use crate::context::CallContext;
use crate::error::{ErrorKind, Result, ToolError};
use crate::ops::read::DECODE_MAX;
use crate::text::encoding::{self, Utf8Check};
use crate::text::lines;

/// How a search is bounded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchOptions {
    /// The most matches returned. By default 50.
    pub limit: usize,
    /// The most characters of a matching line returned; the rest is counted. By default 200.
    pub max_line_chars: usize,
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            limit: 50,
            max_line_chars: 200,
        }
    }
}

/// One matching line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Match {
    /// The file, relative to the working directory when under it.
    pub path: String,
    /// The 1-based line number.
    pub line: u64,
    /// The line without its ending, cut after `max_line_chars` characters.
    pub text: String,
    /// How many characters were cut from the end of the line.
    pub cut_chars: usize,
}

/// What a search found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SearchOutcome {
    /// Matches in path order, then line order; at most `limit` of them; and what the walk
    /// passed over on the way to them.
    Matches(Vec<Match>, Skipped),
    /// The root itself is excluded by the ignore rule, so nothing under it is scanned.
    IgnoredRoot,
}

/// Compiles `query` as a line-oriented Rust regular expression.
pub fn compile(query: &str) -> Result<RegexMatcher> {
    if query.trim().is_empty() {
        return Err(ToolError::invalid(
            "query is blank; pass a regular expression to look for, e.g. fn\\s+main or \
             (?i)todo",
        ));
    }
    let invalid = |e: &dyn std::fmt::Display| {
        ToolError::invalid(format!(
            "query {query:?} is not a valid regular expression (Rust regex syntax): {e}\nEscape \
             special characters such as ( [ {{ . * + ? with a backslash to match them literally."
        ))
    };
    // Parsed on its own first, so an error shows the pattern as given rather than as the
    // matcher rewrites it.
    regex_syntax::Parser::new()
        .parse(query)
        .map_err(|e| invalid(&e))?;
    // Multi-line mode makes ^ and $ match at each line's start and end, as the query is tried
    // against each line on its own; the line terminator keeps any match inside one line.
    RegexMatcherBuilder::new()
        .multi_line(true)
        .line_terminator(Some(b'\n'))
        .crlf(true)
        .build(query)
        .map_err(|e| {
            ToolError::invalid(format!(
                "query {query:?} can only match across a line break ({e}), but it is tried \
                 against each line on its own; search for text within one line"
            ))
        })
}

/// Searches the files under `target` (a directory or one file) for `query`.
///
/// The walk runs on the calling thread, in path order; the files it yields are searched by a
/// pool of workers (one per core) and their matches put back in path order, so the result is
/// exactly that of a search file by file. The walk stays a bounded number of files ahead of
/// the last file whose matches are known in order, and everything stops once `limit` matches
/// in order are known. Each file searched is ticked to `ctx` ("files scanned"); a cancelled
/// `ctx` stops the search with an error.
pub fn search(
    access: &Access,
    target: &Resolved,
    query: &str,
    options: &SearchOptions,
    ctx: &CallContext,
) -> Result<SearchOutcome> {
    let matcher = compile(query)?;
    let meta = access.metadata(target).map_err(|e| {
        if e.kind() == io::ErrorKind::NotFound {
            ToolError::not_found(format!(
                "{} does not exist; pass an existing directory or file as path, or leave path \
                 out to search the whole workspace",
                target.shown
            ))
        } else {
            ToolError::from_io(&e, "search", &target.shown)
        }
    })?;
    if access.is_ignored(&target.path, meta.is_dir) {
        return Ok(SearchOutcome::IgnoredRoot);
    }
    if options.limit == 0 {
        return Ok(SearchOutcome::Matches(Vec::new(), Skipped::default()));
    }
    // Matches taken in path order, and the files taken so far.
    let mut found: Vec<Match> = Vec::new();
    let mut files = 0u64;
    // A folder under the working directory is walked on listings kept from the last search
    // (see `access::listings`); anything else by a walk of its own.
    let skips = Arc::new(Skips::default());
    let listed = if meta.is_dir {
        access.counted_listed_walk(&target.path, &skips)
    } else {
        None
    };
    let walk: Box<dyn Iterator<Item = Item>> = match listed {
        Some(walk) => Box::new(walk.map(Item::Listed)),
        None => {
            let files = IgnoreFiles::standard();
            let secrets = Arc::clone(&skips);
            Box::new(
                access
                    .counted_walk(&target.path, None, &files, &skips, Links::PassOver)
                    .filter(|entry| entry.file_type().is_some_and(|t| t.is_file()))
                    .filter(move |entry| {
                        let secret = access.is_secret_path(entry.path());
                        if secret {
                            secrets.non_accessible();
                        }
                        !secret
                    })
                    .map(|entry| Item::Walked(entry.into_path())),
            )
        }
    };
    let stop = AtomicBool::new(false);
    let ended =
        ordered::run(
            walk,
            || {
                let mut worker = Worker {
                    access,
                    searcher: searcher(),
                    matcher: &matcher,
                    options,
                    buf: Vec::new(),
                    folder: None,
                };
                move |item| worker.search(&item)
            },
            |searched| {
                ctx.tick(1, "files scanned");
                files += 1;
                if let Searched::Unreadable(e) = &searched {
                    skips.file_failed(e);
                }
                if let Searched::Lines(path, lines) = searched {
                    let path = access.display(&path);
                    let room = options.limit - found.len();
                    found.extend(lines.into_iter().take(room).map(|(line, text, cut_chars)| {
                        Match {
                            path: path.clone(),
                            line,
                            text,
                            cut_chars,
                        }
                    }));
                }
                found.len() < options.limit
            },
            || ctx.is_cancelled(),
            &stop,
        );
    if ended == ordered::Ended::Cancelled {
        return Err(ToolError::new(
            ErrorKind::Cancelled,
            format!(
                "the search for {query} was cancelled by the caller after scanning {files} \
                 files; nothing is returned"
            ),
        ));
    }
    found.truncate(options.limit);
    Ok(SearchOutcome::Matches(
        found,
        skips.skipped(|p| access.display(p)),
    ))
}

/// Files up to this size are read whole and searched as one slice; larger ones are streamed.
const SLICE_MAX: u64 = 4 << 20;

fn searcher() -> Searcher {
    SearcherBuilder::new()
        .line_number(true)
        .line_terminator(LineTerminator::crlf())
        .binary_detection(BinaryDetection::quit(0))
        .build()
}

/// A file to search, as a walk found it.
enum Item {
    /// By the walk on kept listings.
    Listed(WalkedFile),
    /// By the walk of its own.
    Walked(PathBuf),
}

impl Item {
    fn path(&self) -> PathBuf {
        match self {
            Item::Listed(file) => file.path(),
            Item::Walked(path) => path.clone(),
        }
    }
}

/// What a worker found in one file.
enum Searched {
    /// Not text, or without a match.
    Nothing,
    /// The file could not be opened.
    Unreadable(io::Error),
    /// The file's matching lines (at most `limit`), with its path.
    Lines(PathBuf, Vec<(u64, String, usize)>),
}

/// One search worker's tools, reused from file to file.
struct Worker<'a> {
    access: &'a Access,
    searcher: Searcher,
    matcher: &'a RegexMatcher,
    options: &'a SearchOptions,
    /// A small file's bytes.
    buf: Vec<u8>,
    /// The folder of the last file opened, and its handle.
    folder: Option<(PathBuf, OpenDir)>,
}

impl Worker<'_> {
    /// Opens a walked file relative to its folder's handle: the one the walk gives, else the
    /// one kept from the previous file when it lies in the same folder (as most files of a
    /// batch do). Gives its length when it is known without asking (see
    /// [`Access::open_walked_at`]).
    fn open(&mut self, item: &Item) -> io::Result<(OpenFile, Option<u64>)> {
        let nameless = || io::Error::from(io::ErrorKind::InvalidInput);
        let (folder, name, dir) = match item {
            Item::Listed(file) => (file.folder_path(), file.name(), file.dir()),
            Item::Walked(path) => (
                path.parent().ok_or_else(nameless)?,
                path.file_name().ok_or_else(nameless)?,
                None,
            ),
        };
        if let Some(dir) = dir {
            return self.access.open_walked_at(dir, name);
        }
        let dir = match self.folder.take() {
            Some((open, dir)) if open == folder => dir,
            _ => self.access.open_walked_dir(folder)?,
        };
        let opened = self.access.open_walked_at(&dir, name);
        self.folder = Some((folder.to_path_buf(), dir));
        opened
    }

    /// Searches one walked file for up to `options.limit` matching lines.
    fn search(&mut self, item: &Item) -> Searched {
        let (mut file, len) = match self.open(item) {
            Ok(opened) => opened,
            Err(e) => return Searched::Unreadable(e),
        };
        let (want, max_chars) = (self.options.limit, self.options.max_line_chars);
        let sink = search_text(
            &mut self.searcher,
            self.matcher,
            (&mut file, len),
            &mut self.buf,
            None,
            || Collect {
                want,
                max_chars,
                lines: Vec::new(),
                binary: false,
            },
        );
        match sink {
            Some(sink) if !sink.lines.is_empty() => Searched::Lines(item.path(), sink.lines),
            _ => Searched::Nothing,
        }
    }
}

/// A sink [`search_text`] can drive.
pub(crate) trait TextSink: Sink<Error = io::Error> {
    /// Whether the searcher reported binary data (a NUL byte).
    fn binary(&self) -> bool;
    /// Whether the sink stopped the search before the end of the file (it had all it wanted).
    fn stopped(&self) -> bool;
}

/// Searches the open `file` (of length `len`, when known) as text, into a sink made by
/// `new_sink`; `None` when the file is binary (a NUL byte anywhere, unless it starts with a
/// UTF-16 or UTF-32 BOM) or unreadable. A file up to [`SLICE_MAX`] is read whole into `buf`
/// (scratch space, reused from file to file) and searched as one slice; a larger one is
/// streamed. A file that is not valid UTF-8 and is text in another encoding is searched as its
/// decoded text (detection leaning on `fallback`) with a fresh sink; one larger than
/// [`DECODE_MAX`] keeps the matches found in its bytes.
pub(crate) fn search_text<S: TextSink>(
    searcher: &mut Searcher,
    matcher: &RegexMatcher,
    (file, len): (&mut OpenFile, Option<u64>),
    buf: &mut Vec<u8>,
    fallback: Option<&'static Encoding>,
    mut new_sink: impl FnMut() -> S,
) -> Option<S> {
    let mut sink = new_sink();
    if let Some(filled) = read_small(file, buf, len).ok()? {
        // Read whole: one copy, and the NUL test covers the whole file at once.
        let bytes = &buf[..filled];
        if encoding::looks_binary(bytes) {
            return None;
        }
        let decoded = encoding::decode_foreign(bytes, fallback);
        let text = decoded.as_ref().map_or(bytes, |d| d.text.as_bytes());
        let searched = searcher.search_slice(matcher, text, &mut sink);
        if buf.len() > 2 * SLICE_MAX as usize {
            *buf = Vec::new();
        }
        return (searched.is_ok() && !sink.binary()).then_some(sink);
    }
    file.seek(io::SeekFrom::Start(0)).ok()?;
    let mut reader = Checked {
        inner: &mut *file,
        utf8: Utf8Check::default(),
        head: Vec::new(),
    };
    if searcher
        .search_reader(matcher, &mut reader, &mut sink)
        .is_err()
        || sink.binary()
    {
        return None;
    }
    let (mut utf8, head) = (reader.utf8, reader.head);
    let wide = encoding::wide_bom(&head).is_some();
    if sink.stopped() {
        // The searcher stopped at the last match it needed; a NUL further on still makes the
        // file binary, and a byte that is not UTF-8 its text another encoding's.
        let (nul, check) = read_through(file, buf);
        if nul && !wide {
            return None;
        }
        utf8 = check;
    }
    if utf8.is_valid() && !wide {
        return Some(sink);
    }
    match decode_whole(file, buf, fallback) {
        Some(decoded) => {
            let mut sink = new_sink();
            let searched = searcher.search_slice(matcher, decoded.text.as_bytes(), &mut sink);
            (searched.is_ok() && !sink.binary()).then_some(sink)
        }
        None => Some(sink),
    }
}

/// A reader that checks that what passes through it is UTF-8, and keeps its first bytes.
struct Checked<'a> {
    inner: &'a mut OpenFile,
    utf8: Utf8Check,
    head: Vec<u8>,
}

impl Read for Checked<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.utf8.feed(&buf[..n]);
        if self.head.len() < 4 {
            let take = (4 - self.head.len()).min(n);
            self.head.extend_from_slice(&buf[..take]);
        }
        Ok(n)
    }
}

/// The decoded text of a streamed `file` when it is text in another encoding and no larger
/// than [`DECODE_MAX`]; `None` otherwise. `buf` is scratch space.
fn decode_whole(
    file: &mut OpenFile,
    buf: &mut Vec<u8>,
    fallback: Option<&'static Encoding>,
) -> Option<encoding::Decoded> {
    file.seek(io::SeekFrom::Start(0)).ok()?;
    buf.clear();
    file.take(DECODE_MAX + 1).read_to_end(buf).ok()?;
    let decoded = if buf.len() as u64 > DECODE_MAX {
        None
    } else {
        encoding::decode_foreign(buf, fallback)
    };
    *buf = Vec::new();
    decoded
}

/// The first read of a file whose length is not known.
const FIRST_READ: usize = 64 << 10;

/// Reads `file` whole into the front of `buf` (grown as needed, never shrunk or cleared, so a
/// reused buffer costs nothing to prepare) and returns how many bytes it holds; `None` when
/// the file is longer than [`SLICE_MAX`] (read part-way or not at all). `len`, when known, is
/// the file's length. A regular file reads short only at its end, so a file that fits the
/// buffer costs one `read`; only one that fills it is asked its length.
fn read_small(
    file: &mut OpenFile,
    buf: &mut Vec<u8>,
    len: Option<u64>,
) -> io::Result<Option<usize>> {
    let room = match len {
        Some(len) if len > SLICE_MAX => return Ok(None),
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
            if len > SLICE_MAX || filled as u64 > SLICE_MAX {
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

/// Collects a file's matching lines, up to `want`.
struct Collect {
    want: usize,
    max_chars: usize,
    lines: Vec<(u64, String, usize)>,
    binary: bool,
}

impl Sink for Collect {
    type Error = io::Error;

    fn matched(&mut self, _: &Searcher, mat: &SinkMatch<'_>) -> Result<bool, io::Error> {
        let line = mat.line_number().unwrap_or(0);
        let bytes = lines::strip_ending(mat.bytes());
        let text = String::from_utf8_lossy(bytes);
        let (kept, cut) = lines::cut_chars(&text, self.max_chars);
        self.lines.push((line, kept.to_string(), cut));
        Ok(self.lines.len() < self.want)
    }

    fn binary_data(&mut self, _: &Searcher, _: u64) -> Result<bool, io::Error> {
        self.binary = true;
        Ok(false)
    }
}

impl TextSink for Collect {
    fn binary(&self) -> bool {
        self.binary
    }

    fn stopped(&self) -> bool {
        self.lines.len() >= self.want
    }
}

/// Reads `file` again from its start: whether it holds a NUL byte (an unreadable file counts
/// as holding one), and the UTF-8 check of what was read. Stops at the first NUL. `buf` is
/// scratch space.
fn read_through(file: &mut OpenFile, buf: &mut Vec<u8>) -> (bool, Utf8Check) {
    let mut utf8 = Utf8Check::default();
    if file.seek(io::SeekFrom::Start(0)).is_err() {
        return (true, utf8);
    }
    if buf.len() < FIRST_READ {
        buf.resize(FIRST_READ, 0);
    }
    loop {
        match fs::read_full(file, buf) {
            Ok(n) if memchr::memchr(0, &buf[..n]).is_some() => return (true, utf8),
            Ok(n) => {
                utf8.feed(&buf[..n]);
                if n < buf.len() {
                    return (false, utf8);
                }
            }
            Err(_) => return (true, utf8),
        }
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{Arc, Mutex};

    use super::*;
    use crate::context::Progress;

    /// A workspace of `files` files, each holding `needle` on its second line.
    fn tree_of(files: usize) -> (tempfile::TempDir, Access) {
        let dir = tempfile::tempdir().unwrap();
        for i in 0..files {
            let sub = dir.path().join(format!("d{:02}", i % 40));
            std::fs::create_dir_all(&sub).unwrap();
            std::fs::write(sub.join(format!("f{i:05}.txt")), "hay\nneedle\n").unwrap();
        }
        let access = Access::new(dir.path()).unwrap();
        (dir, access)
    }

    fn all() -> SearchOptions {
        SearchOptions {
            limit: usize::MAX,
            ..Default::default()
        }
    }

    #[test]
    fn parallel_results_come_in_path_order_and_a_limit_keeps_the_first() {
        let (_dir, access) = tree_of(300);
        let root = access.resolve(".").unwrap();
        let ctx = CallContext::default();
        let SearchOutcome::Matches(found, _) =
            search(&access, &root, "needle", &all(), &ctx).unwrap()
        else {
            panic!("not searched");
        };
        assert_eq!(found.len(), 300);
        let paths: Vec<&str> = found.iter().map(|m| m.path.as_str()).collect();
        let mut sorted = paths.clone();
        sorted.sort();
        assert_eq!(paths, sorted);
        let five = SearchOptions {
            limit: 5,
            ..Default::default()
        };
        let SearchOutcome::Matches(first, _) =
            search(&access, &root, "needle", &five, &ctx).unwrap()
        else {
            panic!("not searched");
        };
        assert_eq!(first, found[..5]);
    }

    #[test]
    fn a_cancelled_search_stops_early_and_says_so() {
        let (_dir, access) = tree_of(3000);
        let root = access.resolve(".").unwrap();
        let flag = Arc::new(AtomicBool::new(false));
        let trip = Arc::clone(&flag);
        // The caller gives up as soon as the first progress report arrives.
        let ctx = CallContext::with_flag(Arc::clone(&flag))
            .with_progress(Arc::new(move |_| trip.store(true, Ordering::Relaxed)));
        let err = search(&access, &root, "needle", &all(), &ctx).unwrap_err();
        assert_eq!(err.kind, ErrorKind::Cancelled);
        assert!(err.message.contains("cancelled"), "{}", err.message);
        let scanned: u64 = err
            .message
            .split("after scanning ")
            .nth(1)
            .and_then(|s| s.split(' ').next())
            .and_then(|n| n.parse().ok())
            .unwrap();
        assert!(scanned < 3000, "scanned {scanned} of 3000 files");
    }

    #[test]
    fn a_search_over_many_files_reports_progress() {
        let (_dir, access) = tree_of(500);
        let root = access.resolve(".").unwrap();
        let seen: Arc<Mutex<Vec<Progress>>> = Arc::default();
        let sink = Arc::clone(&seen);
        let ctx = CallContext::default().with_progress(Arc::new(move |p| {
            sink.lock().unwrap().push(p);
        }));
        search(&access, &root, "needle", &all(), &ctx).unwrap();
        let seen = seen.lock().unwrap();
        assert!(!seen.is_empty());
        assert!(seen[0].message.ends_with("files scanned"), "{:?}", seen[0]);
    }

    #[test]
    fn a_file_with_a_nul_after_its_matches_is_skipped_whatever_the_limit() {
        let dir = tempfile::tempdir().unwrap();
        let mut bytes = b"needle\n".repeat(10);
        bytes.extend_from_slice(&vec![b'x'; 200_000]);
        bytes.push(0);
        std::fs::write(dir.path().join("bin.dat"), &bytes).unwrap();
        // One longer than a slice is streamed; the NUL lies far past the matches it needs.
        let mut big = b"needle\n".repeat(10);
        big.resize(SLICE_MAX as usize + (1 << 20), b'x');
        big.push(0);
        std::fs::write(dir.path().join("big.dat"), &big).unwrap();
        std::fs::write(dir.path().join("text.txt"), "needle\n").unwrap();
        let access = Access::new(dir.path()).unwrap();
        let root = access.resolve(".").unwrap();
        for limit in [1, 5, 200] {
            let options = SearchOptions {
                limit,
                ..Default::default()
            };
            let SearchOutcome::Matches(found, _) =
                search(&access, &root, "needle", &options, &CallContext::default()).unwrap()
            else {
                panic!("not searched");
            };
            assert_eq!(found.len(), 1, "limit {limit}");
            assert_eq!(found[0].path, "text.txt");
        }
    }

    #[test]
    fn files_of_every_size_are_searched_whole_with_or_without_their_length() {
        // Unconfined, a file is read without asking its length; confined, its length is known.
        // Either way: a file that fits the first read, one that must grow the buffer, one longer
        // than a slice (streamed from its start), and an empty one.
        let dir = tempfile::tempdir().unwrap();
        let sizes = [
            40usize,
            FIRST_READ - 7,
            FIRST_READ,
            3 * FIRST_READ + 5,
            5 << 20,
        ];
        for (i, size) in sizes.iter().enumerate() {
            let mut bytes = b"needle first\n".to_vec();
            bytes.resize(*size - b"needle last\n".len(), b'x');
            bytes.extend_from_slice(b"\nneedle last\n");
            std::fs::write(dir.path().join(format!("f{i}.txt")), &bytes).unwrap();
        }
        std::fs::write(dir.path().join("g_empty.txt"), "").unwrap();
        let (jail, _) = crate::access::Jail::new(&crate::access::JailConfig {
            roots: vec![dir.path().to_path_buf()],
            ..Default::default()
        })
        .unwrap();
        for access in [Access::new(dir.path()).unwrap(), Access::jailed(jail)] {
            let root = access.resolve(".").unwrap();
            let SearchOutcome::Matches(found, _) =
                search(&access, &root, "^needle", &all(), &CallContext::default()).unwrap()
            else {
                panic!("not searched");
            };
            let got: Vec<(String, String)> = found
                .iter()
                .map(|m| (m.path.clone(), m.text.clone()))
                .collect();
            let mut want = Vec::new();
            for i in 0..sizes.len() {
                want.push((format!("f{i}.txt"), "needle first".to_string()));
                want.push((format!("f{i}.txt"), "needle last".to_string()));
            }
            assert_eq!(got, want);
        }
    }

    #[test]
    fn a_tree_of_more_folders_than_the_walk_holds_open_is_searched_whole() {
        let dir = tempfile::tempdir().unwrap();
        for i in 0..600 {
            let sub = dir.path().join(format!("d{i:03}"));
            std::fs::create_dir(&sub).unwrap();
            std::fs::write(sub.join("f.txt"), "needle\n").unwrap();
        }
        let access = Access::new(dir.path()).unwrap();
        let root = access.resolve(".").unwrap();
        let SearchOutcome::Matches(found, _) =
            search(&access, &root, "needle", &all(), &CallContext::default()).unwrap()
        else {
            panic!("not searched");
        };
        assert_eq!(found.len(), 600);
        assert_eq!(found[599].path, "d599/f.txt");
    }
}
