//! The first matching lines (gg's `search`): a regular expression tried against each line of
//! each file under a folder, in path order, under gg's ignore rule, stopping as soon as `limit`
//! matches are known.
//!
//! The walk is the one walker under gg's ignore rule (`.gitignore`, `.ignore`,
//! `.git/info/exclude`), on listings kept from one search to the next below the working
//! directory; links are passed over. Each file is read by the scanner as text ([`rule`]): a
//! file holding a NUL byte is not text and is skipped whole; UTF-8 is searched as stored, and
//! text in another encoding (a legacy code page, UTF-16 or UTF-32 with a BOM) as the text the
//! encoding engine decodes ([`encoding::decode_foreign`], the decoding read_file and the edits
//! use), so a match is the text a read shows, on the line a read counts. Lines are matched by
//! ripgrep's `grep-searcher` with `grep-regex`. Files are searched in parallel and their
//! matches put back in path order.
//!
//! What the search passed over on the way to its answer is counted ([`Skipped`]): folders it
//! could not list, files it could not open, symbolic links that loop (no link is followed),
//! non-accessible files, and ignore files not read.
//!
//! [`encoding::decode_foreign`]: crate::text::encoding::decode_foreign

use std::io;
use std::path::PathBuf;
use std::sync::Arc;

use grep_matcher::LineTerminator;
use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder, SinkMatch};

use super::super::{
    Binary, CallContext, Decode, FileSearch, Flow, Lines, Read, Scanner, Sink, TextRule,
};
use crate::access::ignore::IgnoreFiles;
use crate::access::walk::{Passed, Step, Walk, WalkOptions, WalkRule, WalkedFile};
use crate::access::walkdir::{Skipped, Skips};
use crate::access::{Access, Resolved};
use crate::error::{ErrorKind, Result, ToolError};
use crate::ops::ordered::Ended;
use crate::text::lines;

/// Files up to this size are read whole and searched as one slice; larger ones a block of
/// lines at a time.
const SLICE_MAX: u64 = 4 << 20;
#[cfg(test)]
use super::super::scanner::FIRST_READ;

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

/// How this search reads a file: binary on a NUL anywhere, text in another encoding decoded
/// (detection leaning on `fallback`), whole up to [`SLICE_MAX`].
pub(crate) fn rule(fallback: Option<&'static encoding_rs::Encoding>) -> TextRule {
    TextRule {
        binary: Binary::Anywhere,
        decode: Decode::Foreign(fallback),
        whole_max: SLICE_MAX,
        ..TextRule::default()
    }
}

/// A searcher of lines as ripgrep's: line numbers, `\n` or `\r\n` endings, and a NUL byte (in
/// decoded text) making the text binary.
pub(crate) fn searcher() -> Searcher {
    SearcherBuilder::new()
        .line_number(true)
        .line_terminator(LineTerminator::crlf())
        .binary_detection(BinaryDetection::quit(0))
        .build()
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
    let skips = Arc::new(Skips::default());
    let mut walked = meta.is_dir.then(|| {
        let options = WalkOptions::new(WalkRule::Ignore(IgnoreFiles::standard()));
        access.walk(&target.path, options, &skips)
    });
    // The kept listings of the folders above usually answer whether the folder is excluded;
    // asking the rule itself compiles every ignore file on the way, each call.
    let shown = walked
        .as_mut()
        .is_some_and(|w| w.as_mut().is_ok_and(Walk::kept_listings_show_root));
    if !shown && access.is_ignored(&target.path, meta.is_dir) {
        return Ok(SearchOutcome::IgnoredRoot);
    }
    if options.limit == 0 {
        return Ok(SearchOutcome::Matches(Vec::new(), Skipped::default()));
    }
    let mut sink = Found {
        access,
        found: Vec::new(),
        limit: options.limit,
        files: 0,
        skips: Arc::clone(&skips),
    };
    let search = LineSearch {
        access,
        matcher: &matcher,
        options,
        rule: rule(None),
    };
    let walk: Box<dyn Iterator<Item = Step>> = match walked {
        Some(Ok(walk)) => Box::new(walk),
        Some(Err(e)) => Box::new(std::iter::once(Step::Passed(Passed::Folder(
            target.path.clone(),
            e,
        )))),
        None => Box::new(std::iter::once(access.walk_one(&target.path))),
    };
    // What the walk passes over is counted as it meets it, as this search always has.
    let walk = super::super::counting_ahead(walk, Arc::clone(&skips));
    let ended = super::super::run(walk, &search, &mut sink, ctx, "files scanned");
    if ended == Ended::Cancelled {
        return Err(ToolError::new(
            ErrorKind::Cancelled,
            format!(
                "the search for {query} was cancelled by the caller after scanning {} \
                 files; nothing is returned",
                sink.files
            ),
        ));
    }
    let mut found = sink.found;
    found.truncate(options.limit);
    Ok(SearchOutcome::Matches(
        found,
        skips.skipped(|p| access.display(p)),
    ))
}

/// What a worker found in one file.
pub(crate) enum Searched {
    /// Not text, or without a match.
    Nothing,
    /// The file could not be opened.
    Unreadable(io::Error),
    /// The file's matching lines (at most `limit`), with its path.
    Lines(PathBuf, Vec<(u64, String, usize)>),
}

/// Searches one file for up to `limit` matching lines.
struct LineSearch<'a> {
    access: &'a Access,
    matcher: &'a RegexMatcher,
    options: &'a SearchOptions,
    rule: TextRule,
}

impl FileSearch for LineSearch<'_> {
    type Tools = Searcher;
    type Found = Searched;

    fn tools(&self) -> Searcher {
        searcher()
    }

    fn search(&self, searcher: &mut Searcher, scanner: &mut Scanner, file: WalkedFile) -> Searched {
        let (mut opened, len) = match scanner.open(self.access, &file) {
            Ok(opened) => opened,
            Err(e) => return Searched::Unreadable(e),
        };
        let mut lines = FileLines {
            searcher,
            matcher: self.matcher,
            collect: Collect {
                want: self.options.limit,
                max_chars: self.options.max_line_chars,
                base: 0,
                lines: Vec::new(),
                binary: false,
            },
        };
        match scanner.read(&mut opened, len, &self.rule, &mut lines) {
            Read::Text if !lines.collect.lines.is_empty() => {
                Searched::Lines(file.path(), lines.collect.lines)
            }
            _ => Searched::Nothing,
        }
    }
}

/// One file's text, searched by ripgrep's searcher a block of lines at a time.
struct FileLines<'w> {
    searcher: &'w mut Searcher,
    matcher: &'w RegexMatcher,
    collect: Collect,
}

impl Lines for FileLines<'_> {
    fn lines(&mut self, text: &[u8], first: u64) -> Flow {
        self.collect.base = first - 1;
        let searched = self
            .searcher
            .search_slice(self.matcher, text, &mut self.collect);
        if searched.is_err() || self.collect.binary {
            return Flow::Binary;
        }
        if self.collect.lines.len() >= self.collect.want {
            return Flow::Enough;
        }
        Flow::More
    }

    fn restart(&mut self) {
        self.collect.lines.clear();
        self.collect.binary = false;
    }
}

/// Collects a file's matching lines, up to `want`.
struct Collect {
    want: usize,
    max_chars: usize,
    /// Lines before the text being searched.
    base: u64,
    lines: Vec<(u64, String, usize)>,
    binary: bool,
}

impl grep_searcher::Sink for Collect {
    type Error = io::Error;

    fn matched(
        &mut self,
        _: &Searcher,
        mat: &SinkMatch<'_>,
    ) -> std::result::Result<bool, io::Error> {
        let line = self.base + mat.line_number().unwrap_or(0);
        let bytes = lines::strip_ending(mat.bytes());
        let text = String::from_utf8_lossy(bytes);
        let (kept, cut) = lines::cut_chars(&text, self.max_chars);
        self.lines.push((line, kept.to_string(), cut));
        Ok(self.lines.len() < self.want)
    }

    fn binary_data(&mut self, _: &Searcher, _: u64) -> std::result::Result<bool, io::Error> {
        self.binary = true;
        Ok(false)
    }
}

/// The answer, taken file by file in path order.
struct Found<'a> {
    access: &'a Access,
    found: Vec<Match>,
    limit: usize,
    /// Files taken so far.
    files: u64,
    skips: Arc<Skips>,
}

impl Sink<Searched> for Found<'_> {
    fn take(&mut self, searched: Searched) -> bool {
        self.files += 1;
        match searched {
            Searched::Nothing => {}
            Searched::Unreadable(e) => self.skips.file_failed(&e),
            Searched::Lines(path, lines) => {
                let path = self.access.display(&path);
                let room = self.limit - self.found.len();
                self.found
                    .extend(
                        lines
                            .into_iter()
                            .take(room)
                            .map(|(line, text, cut_chars)| Match {
                                path: path.clone(),
                                line,
                                text,
                                cut_chars,
                            }),
                    );
            }
        }
        self.found.len() < self.limit
    }

    fn passed(&mut self, passed: Passed) -> bool {
        self.skips.count(&passed);
        true
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{Arc, Mutex};

    use super::*;
    use crate::context::Progress;
    use crate::ops::scan::CallContext;

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
