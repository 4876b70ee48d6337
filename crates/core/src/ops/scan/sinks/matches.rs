//! Line and path matches with context under caps and a byte budget (coder's `search`): the one
//! walker under the jail's noise rule ([`WalkRule::Noise`]), the one scanner, and per-line
//! matches with context.
//!
//! **The walk.** Depth-first from the target, siblings in byte order of their names, so results
//! come in path order. Symbolic links are never followed nor reported, and `.gitignore` does not
//! apply: what hides noise is the jail's `default_exclude_globs` (the walk does not enter a
//! matching directory and skips a matching file), unless turned off per call or unless the
//! target itself is noise (naming it expresses the wish to look inside). fsgate's artifact
//! folders (saved tool output, `access::ignore::ARTIFACT_DIRS`) below the target are never
//! entered; a target inside one is searched in full. Non-accessible
//! (secret) files are wholly absent — never opened, never reported as a path — and so are
//! non-accessible directories, which the access layer refuses to list. Include and exclude
//! globs (globset syntax, `*` also crossing `/`, case-sensitive) are matched against the path
//! relative to its containing root, for files only. Every directory is listed and every file
//! opened through the access layer, beneath its root.
//!
//! **Paths.** A file's path matches when the query matches its root-relative path
//! (`src/lib.rs`); directories are not reported.
//!
//! **Lines.** A file's content is searched when it is at most `max_read_bytes` long and holds no
//! NUL byte (binary files are skipped whole, like ripgrep). Invalid UTF-8 is replaced by U+FFFD
//! first. A file that starts with a UTF-16 or UTF-32 byte-order mark is text: its decoded text
//! (as read-file returns it, every line ended by `\n`) is searched, so lines and byte columns
//! are those of that text. A line is the text between `\n`s, without a final `\r`; each line is cut to
//! `max_line_bytes` bytes (back to a character boundary) and the query is tried against the cut
//! text alone, as if it were the whole line (so `$` also matches at the cut). The first match of
//! a line is reported, with its 1-based line number and its 1-based **byte** column within the
//! text; context lines are cut the same way.
//!
//! **Long lines.** A line longer than `max_line_bytes` whose cut holds no match is still tried
//! whole: when the query matches past the cut (a hit at byte 499,000 of a minified bundle), the
//! line is reported among the [`LongLine`]s — path, line, the match's 1-based byte column in the
//! whole line and the line's length — rather than being reported absent. Those lines are capped
//! at `max_matches` like the other lists and charged their path against the budget.
//!
//! **Speed.** A whole-file regular expression derived from the query with its anchors and word
//! boundaries dropped (so it matches wherever the query could match a line) skips straight to
//! the lines that can match; the exact per-line match runs only there. Files without any
//! candidate are read once and dropped.
//!
//! **Bounds.** Each list stops at `max_matches`; one more match found beyond the cap sets
//! `truncated`. Every accepted match is charged its bytes (path, plus line text and context
//! lines for a line match) against `budget_bytes`; a match that does not fit ends the whole
//! search with `truncated`. The walk stops as soon as neither list can change any more.
//!
//! **Skipped.** What the walk passed over is counted in [`Found::skipped`]: folders it could
//! not open or list, symbolic links that loop, and non-accessible files and folders.

use std::borrow::Cow;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use regex::{Regex, RegexBuilder};
use regex_syntax::hir::{Hir, HirKind};

use super::super::{Binary, CallContext, Decode, Flow, Lines, Read, Scanner, Sink, TextRule};
use crate::access::walk::{Passed, Step, WalkOptions, WalkRule, WalkedFile};
use crate::access::walkdir::{Skipped, Skips};
use crate::access::{Access, OpenFile, Resolved};
use crate::error::{Result, ToolError};
use crate::ops::ordered::Ended;

/// What to look for and how much of it to return.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FindOptions {
    /// The text (or, with `regex`, the pattern) to find. Must not be empty.
    pub query: String,
    /// Treat `query` as a Rust regular expression instead of a literal substring.
    pub regex: bool,
    /// Match case-insensitively (Unicode simple case folding).
    pub ignore_case: bool,
    /// Search file contents.
    pub content: bool,
    /// Search root-relative file paths.
    pub paths: bool,
    /// Globs a file's root-relative path must match (empty: every file).
    pub include_globs: Vec<String>,
    /// Globs whose matching files are skipped.
    pub exclude_globs: Vec<String>,
    /// Hide the jail's default-exclude noise.
    pub use_default_excludes: bool,
    /// The most entries of each list.
    pub max_matches: usize,
    /// Bytes of each line searched and returned.
    pub max_line_bytes: usize,
    /// Context lines before each line match.
    pub context_before: usize,
    /// Context lines after each line match.
    pub context_after: usize,
    /// Bytes of paths, line texts and context lines the answer may hold.
    pub budget_bytes: u64,
    /// Files larger than this are not searched for content.
    pub max_read_bytes: u64,
    /// Walk under the ignore rule of these files instead of the jail's noise rule (native's
    /// search). `None` (coder's): the noise rule, as `use_default_excludes` says.
    pub ignore: Option<crate::access::ignore::IgnoreFiles>,
}

/// A matching line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineMatch {
    /// The file's absolute path.
    pub path: String,
    /// 1-based line number.
    pub line: u64,
    /// 1-based byte offset of the first match within `text`.
    pub column: u64,
    /// The line, cut to `max_line_bytes`.
    pub text: String,
    /// Up to `context_before` preceding lines, in file order, each cut like `text`.
    pub before: Vec<String>,
    /// Up to `context_after` following lines, in file order, each cut like `text`.
    pub after: Vec<String>,
}

/// A line longer than `max_line_bytes` that the query matches only past the bytes a
/// [`LineMatch`] searches and shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LongLine {
    /// The file's absolute path.
    pub path: String,
    /// 1-based line number.
    pub line: u64,
    /// 1-based byte offset of the first match within the whole line.
    pub column: u64,
    /// The line's length in bytes, without its ending.
    pub bytes: u64,
}

/// What a search found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Found {
    /// Matching lines, in path order then line order.
    pub lines: Vec<LineMatch>,
    /// Lines longer than `max_line_bytes` that match only past the cut, in path order then
    /// line order.
    pub long_lines: Vec<LongLine>,
    /// Absolute paths of matching files, in path order.
    pub paths: Vec<String>,
    /// Whether a cap or the byte budget cut either list.
    pub truncated: bool,
    /// What the walk passed over.
    pub skipped: Skipped,
}

/// A compiled search, ready to run over any target.
#[derive(Debug)]
pub struct Finder {
    options: FindOptions,
    /// The query as tried against one (cut) line or one path.
    line: Regex,
    /// The query with its look-around assertions dropped, tried against a whole file to find
    /// candidate lines; `None` when it could not be built (every line is then tried).
    skip: Option<Regex>,
    include: Option<GlobSet>,
    exclude: Option<GlobSet>,
}

impl Finder {
    /// Compiles the query and the globs. An empty query, a regular expression that does not
    /// parse and a glob that does not parse are invalid arguments.
    pub fn new(options: FindOptions) -> Result<Finder> {
        if options.query.is_empty() {
            return Err(ToolError::invalid(
                "query is empty; pass the text to find (or a regular expression with regex: \
                 true)",
            ));
        }
        let pattern = if options.regex {
            options.query.clone()
        } else {
            regex::escape(&options.query)
        };
        let line = RegexBuilder::new(&pattern)
            .multi_line(true)
            .case_insensitive(options.ignore_case)
            .build()
            .map_err(|e| {
                ToolError::invalid(format!(
                    "query {:?} is not a valid regular expression (Rust regex syntax): {e}\n\
                     Escape special characters such as ( [ {{ . * + ? with a backslash, or pass \
                     regex: false to search for the text literally.",
                    options.query
                ))
            })?;
        let skip = skip_regex(&pattern, options.ignore_case);
        let include = globs(&options.include_globs, "include_globs")?;
        let exclude = globs(&options.exclude_globs, "exclude_globs")?;
        Ok(Finder {
            options,
            line,
            skip,
            include,
            exclude,
        })
    }

    /// Searches `target`: a directory is walked, a file is searched alone. A target that does
    /// not exist is not found. A cancelled call stops the walk, with what was found so far
    /// marked truncated.
    ///
    /// The walk runs on the calling thread in path order; the files it yields are read and
    /// scanned by a worker per core, and their matches are taken back in path order, so the
    /// answer is exactly that of a search file by file (see [`super::ordered`]).
    pub fn run(&self, access: &Access, target: &Resolved, call: &CallContext) -> Result<Found> {
        let meta = access.metadata(target).map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                ToolError::not_found(format!(
                    "{} is not found or not accessible; pass an existing folder inside an \
                     allowed root as path (info lists the roots), or leave path out to search \
                     the primary root",
                    target.shown
                ))
            } else {
                ToolError::from_io(&e, "search", &target.shown)
            }
        })?;
        let excludes = self.options.use_default_excludes
            && !access.is_excluded_path(&target.path, meta.is_dir);
        let run = Run {
            options: &self.options,
            found: Found::default(),
            lines_done: !self.options.content,
            paths_done: !self.options.paths,
            budget: self.options.budget_bytes,
        };
        let lines_done = AtomicBool::new(run.lines_done);
        let search = FileSearch {
            finder: self,
            access,
            lines_done: &lines_done,
        };
        let mut sink = Taken {
            run,
            lines_done: &lines_done,
            skips: Arc::new(Skips::default()),
        };
        let select = |path: &Path| self.selects(access, path);
        if !meta.is_dir {
            // A file named as the target: left out by the filters, or searched alone.
            let excluded = excludes && access.is_excluded_path(&target.path, false);
            if let Step::File(file) = access.walk_one(&target.path)
                && !excluded
                && select(&target.path)
            {
                let large = std::sync::Mutex::new(Vec::new());
                let mut scanner = Scanner::new(&large);
                let searched =
                    super::super::FileSearch::search(&search, &mut (), &mut scanner, file);
                sink.run.take(searched);
            }
            return Ok(sink.run.found);
        }
        // Without globs every file is selected, and no path need be placed below its root.
        let globbed = self.include.is_some() || self.exclude.is_some();
        let options = WalkOptions {
            select: globbed.then_some(&select as &dyn Fn(&Path) -> bool),
            ..WalkOptions::new(match &self.options.ignore {
                Some(files) => WalkRule::Ignore(files.clone()),
                None => WalkRule::Noise {
                    exclude_noise: excludes,
                },
            })
        };
        let walk = access
            .walk(&target.path, options, &sink.skips)
            .map_err(|e| ToolError::from_io(&e, "search", &target.shown))?;
        // What the walk passes over is counted as it meets it, as this search always has.
        let walk = super::super::counting_ahead(walk, Arc::clone(&sink.skips));
        let ended = super::super::run(walk, &search, &mut sink, call, "files scanned");
        if ended == Ended::Cancelled {
            sink.run.found.truncated = true;
        }
        sink.run.found.skipped = sink.skips.skipped(|p| p.to_string_lossy().into_owned());
        Ok(sink.run.found)
    }

    /// Whether the include and exclude globs keep the file at `path`.
    fn selects(&self, access: &Access, path: &Path) -> bool {
        let rel = root_relative(access, path);
        !(self.include.as_ref().is_some_and(|s| !s.is_match(rel))
            || self.exclude.as_ref().is_some_and(|s| s.is_match(rel)))
    }

    /// How this search reads a file: binary on a NUL anywhere (unless it starts with a UTF-16
    /// or UTF-32 byte-order mark: then its decoded text), at most `max_read_bytes`, whole up to
    /// [`LARGE_FILE`] (any size when context lines are asked for), else a block of lines at a
    /// time.
    fn rule(&self) -> TextRule {
        let options = &self.options;
        TextRule {
            binary: Binary::Anywhere,
            decode: Decode::Wide,
            max_bytes: Some(options.max_read_bytes),
            whole_max: LARGE_FILE,
            whole: options.context_before > 0 || options.context_after > 0,
            max_line: None,
        }
    }

    /// Adds the matching lines of the open `file` (`len` bytes, when known) to `hits`; none
    /// when it is binary, too large or fails to read.
    fn scan_open(
        &self,
        shown: &str,
        (file, len): (&mut OpenFile, Option<u64>),
        scanner: &mut Scanner,
        hits: &mut Hits,
    ) {
        let mut lines = FinderLines {
            finder: self,
            shown,
            hits,
        };
        if !matches!(
            scanner.read(file, len, &self.rule(), &mut lines),
            Read::Text
        ) {
            *hits = Hits::default();
        }
    }
}

/// The path below its containing root (the path itself when it lies under none).
fn root_relative<'p>(access: &Access, path: &'p Path) -> &'p Path {
    match access.jail() {
        Some(jail) => jail.locate(path).map_or(path, |(_, rel)| rel),
        None => access.relative_to_root(path).unwrap_or(path),
    }
}

/// One file's text, matched line by line.
struct FinderLines<'a> {
    finder: &'a Finder,
    shown: &'a str,
    hits: &'a mut Hits,
}

impl Lines for FinderLines<'_> {
    fn lines(&mut self, text: &[u8], first: u64) -> Flow {
        if self
            .finder
            .line_matches(self.shown, text, first - 1, self.hits)
        {
            Flow::More
        } else {
            // Enough matches: the rest is only checked for a NUL.
            Flow::Enough
        }
    }

    fn restart(&mut self) {
        *self.hits = Hits::default();
    }
}

/// The answer, taken file by file in path order.
struct Taken<'a> {
    run: Run<'a>,
    /// Set once the line list is complete: the workers read no more file content.
    lines_done: &'a AtomicBool,
    skips: Arc<Skips>,
}

impl Sink<Searched> for Taken<'_> {
    fn take(&mut self, searched: Searched) -> bool {
        let more = self.run.take(searched);
        if self.run.lines_done {
            self.lines_done.store(true, Ordering::Relaxed);
        }
        more
    }

    fn passed(&mut self, passed: Passed) -> bool {
        self.skips.count(&passed);
        true
    }
}

/// What searching one file found, before the caps and the budget are applied.
struct Searched {
    /// The file's path as reported.
    shown: String,
    /// Whether its root-relative path matches the query.
    path_match: bool,
    /// Its matching lines in order (at most one more than the cap), each with its cost.
    lines: Vec<(LineMatch, usize)>,
    /// Its long lines that match only past the cut (at most one more than the cap).
    long: Vec<LongLine>,
}

/// What scanning one file's text found, before the caps and the budget are applied.
#[derive(Debug, Default)]
struct Hits {
    /// Matching lines in order (at most one more than the cap), each with its cost.
    lines: Vec<(LineMatch, usize)>,
    /// Long lines that match only past the cut (at most one more than the cap).
    long: Vec<LongLine>,
}

/// A worker's search of one file: whether its path matches, and its matching lines.
struct FileSearch<'a> {
    finder: &'a Finder,
    access: &'a Access,
    /// Set once the line list is complete: no more file content is read.
    lines_done: &'a AtomicBool,
}

/// Files larger than this are not held whole by each worker: they are searched a block of
/// whole lines at a time, or, when context lines are asked for, one file at a time in one
/// buffer the workers share, freed when the search ends.
const LARGE_FILE: u64 = 1 << 20;

impl super::super::FileSearch for FileSearch<'_> {
    type Tools = ();
    type Found = Searched;

    fn tools(&self) {}

    fn search(&self, _: &mut (), scanner: &mut Scanner, file: WalkedFile) -> Searched {
        let path = file.path();
        let shown = crate::text::names::show_path(&path);
        let finder = self.finder;
        let path_match = finder.options.paths
            && finder
                .line
                .is_match(&root_relative(self.access, &path).to_string_lossy());
        let mut hits = Hits::default();
        if finder.options.content
            && !self.lines_done.load(Ordering::Relaxed)
            && let Ok((mut opened, len)) = scanner.open(self.access, &file)
        {
            finder.scan_open(&shown, (&mut opened, len), scanner, &mut hits);
        }
        Searched {
            shown,
            path_match,
            lines: hits.lines,
            long: hits.long,
        }
    }
}

impl Finder {
    /// Adds the matching lines of `bytes` (whole lines of the file `shown`, the first of them
    /// its line `base + 1`) to `hits`; `false` once they are one more than the cap.
    fn line_matches(&self, shown: &str, bytes: &[u8], base: u64, hits: &mut Hits) -> bool {
        let text = match std::str::from_utf8(bytes) {
            Ok(text) => Cow::Borrowed(text),
            Err(_) => String::from_utf8_lossy(bytes),
        };
        let max = self.options.max_matches;
        self.scan(&text, self.skip.as_ref(), |hit| {
            if hit.past_cut {
                if hits.long.len() <= max {
                    hits.long.push(LongLine {
                        path: shown.to_string(),
                        line: hit.line + base,
                        column: u64::try_from(hit.offset)
                            .unwrap_or(u64::MAX)
                            .saturating_add(1),
                        bytes: u64::try_from(line_len(&text[hit.start..hit.end]))
                            .unwrap_or(u64::MAX),
                    });
                }
                return true;
            }
            let (mut found, cost) = self.line_match(shown, &text, &hit);
            found.line += base;
            hits.lines.push((found, cost));
            hits.lines.len() <= max
        });
        hits.lines.len() <= max
    }

    /// Adds the matching lines of the file `shown` (its bytes) to `hits`, up to one more than
    /// the cap.
    #[cfg(test)]
    fn scan_file(&self, shown: &str, bytes: &[u8], hits: &mut Hits) {
        self.line_matches(shown, bytes, 0, hits);
    }
}

/// The answer being built, file by file in path order.
struct Run<'a> {
    options: &'a FindOptions,
    found: Found,
    /// The line list is complete: not asked for, or one more match was found beyond the cap.
    lines_done: bool,
    /// The path list is complete, likewise.
    paths_done: bool,
    /// Bytes left in the response budget.
    budget: u64,
}

impl Run<'_> {
    fn finished(&self) -> bool {
        self.lines_done && self.paths_done
    }

    /// Charges `cost` bytes; when they do not fit, the search ends truncated.
    fn charge(&mut self, cost: usize) -> bool {
        let cost = u64::try_from(cost).unwrap_or(u64::MAX);
        if cost > self.budget {
            self.found.truncated = true;
            self.lines_done = true;
            self.paths_done = true;
            return false;
        }
        self.budget -= cost;
        true
    }

    /// Takes one file's findings, in path order: its path, then its lines, each while its list
    /// has room and the budget allows. `false` once the answer is complete.
    fn take(&mut self, searched: Searched) -> bool {
        let max = self.options.max_matches;
        if searched.path_match && !self.paths_done {
            if self.found.paths.len() >= max {
                self.found.truncated = true;
                self.paths_done = true;
            } else if self.charge(searched.shown.len()) {
                self.found.paths.push(searched.shown);
            }
        }
        for (line, cost) in searched.lines {
            if self.lines_done {
                break;
            }
            if self.found.lines.len() >= max {
                self.found.truncated = true;
                self.lines_done = true;
                break;
            }
            if !self.charge(cost) {
                break;
            }
            self.found.lines.push(line);
        }
        for long in searched.long {
            if self.lines_done && self.found.truncated {
                break;
            }
            if self.found.long_lines.len() >= max {
                self.found.truncated = true;
                break;
            }
            if !self.charge(long.path.len()) {
                break;
            }
            self.found.long_lines.push(long);
        }
        !self.finished()
    }
}

/// A line that matches: where it lies in the file's text and where the match starts.
struct Hit<'t> {
    /// Byte offset of the line's start in the text.
    start: usize,
    /// Byte offset of the line's end (its `\n`, or the end of the text).
    end: usize,
    /// 1-based line number.
    line: u64,
    /// Byte offset of the match within `cut`, or (`past_cut`) within the whole line.
    offset: usize,
    /// The line, cut.
    cut: &'t str,
    /// The cut holds no match, and the whole line (longer than the cut) does.
    past_cut: bool,
}

impl Finder {
    /// Calls `found` with each matching line of `text` in order, until it returns `false`.
    /// `skip` (the skip regex, or none to try every line) finds the candidate lines.
    fn scan<'t>(
        &self,
        text: &'t str,
        skip: Option<&Regex>,
        mut found: impl FnMut(Hit<'t>) -> bool,
    ) {
        let bytes = text.as_bytes();
        let len = bytes.len();
        // Where to look for the next candidate line.
        let mut at = 0;
        // The line number of the line starting at `counted`.
        let mut line: u64 = 1;
        let mut counted = 0;
        while at < len {
            let hit = match skip {
                Some(skip) => match skip.find_at(text, at) {
                    Some(m) => m.start(),
                    None => return,
                },
                None => at,
            };
            if hit == len && bytes[len - 1] == b'\n' {
                return;
            }
            let start = memchr::memrchr(b'\n', &bytes[at..hit]).map_or(at, |i| at + i + 1);
            let end = memchr::memchr(b'\n', &bytes[hit..]).map_or(len, |i| hit + i);
            line += count_lines(&bytes[counted..start]);
            counted = start;
            let whole = &text[start..end];
            let cut = self.cut(whole);
            let hit = match self.line.find(cut) {
                Some(m) => Some((m.start(), false)),
                // A line longer than the cut is tried whole, so a match past the cut is
                // reported rather than absent.
                None if cut.len() < line_len(whole) => self
                    .line
                    .find(&whole[..line_len(whole)])
                    .map(|m| (m.start(), true)),
                None => None,
            };
            if let Some((offset, past_cut)) = hit
                && !found(Hit {
                    start,
                    end,
                    line,
                    offset,
                    cut,
                    past_cut,
                })
            {
                return;
            }
            at = end + 1;
        }
    }

    /// A line without its final `\r`, cut to `max_line_bytes` at a character boundary.
    fn cut<'t>(&self, line: &'t str) -> &'t str {
        let line = line.strip_suffix('\r').unwrap_or(line);
        let max = self.options.max_line_bytes;
        if line.len() <= max {
            return line;
        }
        let mut end = max;
        while !line.is_char_boundary(end) {
            end -= 1;
        }
        &line[..end]
    }
}

/// The length of a line without its final `\r`.
fn line_len(line: &str) -> usize {
    line.strip_suffix('\r').unwrap_or(line).len()
}

/// Number of line breaks in `bytes`.
fn count_lines(bytes: &[u8]) -> u64 {
    u64::try_from(memchr::memchr_iter(b'\n', bytes).count()).unwrap_or(u64::MAX)
}

impl Finder {
    /// The match of `hit` in the file `path` (whose text is `text`), with its context lines,
    /// and the bytes it costs in the answer.
    fn line_match(&self, path: &str, text: &str, hit: &Hit<'_>) -> (LineMatch, usize) {
        let options = &self.options;
        let bytes = text.as_bytes();
        let mut before = Vec::new();
        let mut line_start = hit.start;
        while before.len() < options.context_before && line_start > 0 {
            let line_end = line_start - 1;
            line_start = memchr::memrchr(b'\n', &bytes[..line_end]).map_or(0, |i| i + 1);
            before.push(self.cut(&text[line_start..line_end]).to_string());
        }
        before.reverse();
        let mut after = Vec::new();
        let mut line_end = hit.end;
        while after.len() < options.context_after && line_end + 1 < bytes.len() {
            let next = line_end + 1;
            line_end = memchr::memchr(b'\n', &bytes[next..]).map_or(bytes.len(), |i| next + i);
            after.push(self.cut(&text[next..line_end]).to_string());
        }
        let cost = path.len()
            + hit.cut.len()
            + before.iter().map(String::len).sum::<usize>()
            + after.iter().map(String::len).sum::<usize>();
        let found = LineMatch {
            path: path.to_string(),
            line: hit.line,
            column: u64::try_from(hit.offset)
                .unwrap_or(u64::MAX)
                .saturating_add(1),
            text: hit.cut.to_string(),
            before,
            after,
        };
        (found, cost)
    }
}

/// Compiles root-relative globs; `None` when there are none.
fn globs(patterns: &[String], key: &str) -> Result<Option<GlobSet>> {
    if patterns.is_empty() {
        return Ok(None);
    }
    let mut builder = GlobSetBuilder::new();
    for pattern in patterns {
        let glob = GlobBuilder::new(pattern).build().map_err(|e| {
            ToolError::invalid(format!(
                "{key} entry {pattern:?} is not a valid glob: {e}; use globset syntax matched \
                 against the path relative to its root, e.g. \"**/*.rs\" or \"src/**\""
            ))
        })?;
        builder.add(glob);
    }
    builder
        .build()
        .map(Some)
        .map_err(|e| ToolError::invalid(format!("{key} could not be compiled: {e}")))
}

/// The whole-file regular expression that finds candidate lines: the query with its
/// look-around assertions (`^`, `$`, `\b`, …) replaced by nothing. Whatever bytes the query
/// matches in a (cut) line, this matches at the same place in the file, so a line it does not
/// reach cannot match.
fn skip_regex(pattern: &str, ignore_case: bool) -> Option<Regex> {
    let hir = regex_syntax::ParserBuilder::new()
        .multi_line(true)
        .case_insensitive(ignore_case)
        .build()
        .parse(pattern)
        .ok()?;
    let relaxed = without_looks(hir);
    Regex::new(&relaxed.to_string()).ok()
}

fn without_looks(hir: Hir) -> Hir {
    match hir.into_kind() {
        HirKind::Empty | HirKind::Look(_) => Hir::empty(),
        HirKind::Literal(lit) => Hir::literal(lit.0),
        HirKind::Class(class) => Hir::class(class),
        HirKind::Repetition(mut rep) => {
            rep.sub = Box::new(without_looks(*rep.sub));
            Hir::repetition(rep)
        }
        HirKind::Capture(cap) => without_looks(*cap.sub),
        HirKind::Concat(subs) => Hir::concat(subs.into_iter().map(without_looks).collect()),
        HirKind::Alternation(subs) => {
            Hir::alternation(subs.into_iter().map(without_looks).collect())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::scan::scanner::BLOCK;
    use proptest::prelude::*;

    fn finder(query: &str, regex: bool, ignore_case: bool, max_line_bytes: usize) -> Finder {
        Finder::new(FindOptions {
            query: query.to_string(),
            regex,
            ignore_case,
            content: true,
            paths: false,
            include_globs: Vec::new(),
            exclude_globs: Vec::new(),
            use_default_excludes: true,
            max_matches: usize::MAX,
            max_line_bytes,
            context_before: 0,
            context_after: 0,
            budget_bytes: u64::MAX,
            max_read_bytes: u64::MAX,
            ignore: None,
        })
        .unwrap()
    }

    fn scanned(finder: &Finder, text: &str) -> Vec<(u64, usize, String)> {
        let mut out = Vec::new();
        finder.scan(text, finder.skip.as_ref(), |hit| {
            if !hit.past_cut {
                out.push((hit.line, hit.offset, hit.cut.to_string()));
            }
            true
        });
        out
    }

    /// The documented rule, line by line with no skipping.
    fn naive(finder: &Finder, text: &str) -> Vec<(u64, usize, String)> {
        let mut lines: Vec<&str> = text.split('\n').collect();
        if text.is_empty() || text.ends_with('\n') {
            lines.pop();
        }
        let mut out = Vec::new();
        for (i, line) in lines.into_iter().enumerate() {
            let line = line.strip_suffix('\r').unwrap_or(line);
            let mut end = finder.options.max_line_bytes.min(line.len());
            while !line.is_char_boundary(end) {
                end -= 1;
            }
            let cut = &line[..end];
            if let Some(m) = finder.line.find(cut) {
                out.push((i as u64 + 1, m.start(), cut.to_string()));
            }
        }
        out
    }

    /// A large file's text: matches on both sides of every block boundary, a line longer than a
    /// block, CRLF endings, a byte that is not UTF-8, and no final newline.
    fn large_text() -> Vec<u8> {
        let mut text = Vec::new();
        let mut n = 0u64;
        while text.len() < 3 * BLOCK + BLOCK / 2 {
            n += 1;
            let line = match n % 9 {
                0 => format!("PM_SUSPEND at {n}\r\n"),
                3 => format!("x{}PM_SUSPEND\n", "y".repeat((n % 200) as usize)),
                5 => "caf\u{e9} \u{ff} PM_\n".to_string(),
                _ => format!("line {n} of filler text\n"),
            };
            text.extend_from_slice(line.as_bytes());
            if n == 1000 {
                text.extend_from_slice(&b"z".repeat(BLOCK + 77));
                text.extend_from_slice(b"PM_SUSPEND at the end of a long line\n");
            }
            if n == 2000 {
                text.push(0xff);
                text.extend_from_slice(b" PM_SUSPEND after a bad byte\n");
            }
        }
        text.extend_from_slice(b"last PM_SUSPEND");
        text
    }

    #[allow(clippy::disallowed_methods, clippy::disallowed_types)]
    fn blocks_of(f: &Finder, bytes: &[u8]) -> Vec<(LineMatch, usize)> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("large.txt");
        std::fs::write(&path, bytes).unwrap();
        let mut file = std::fs::File::open(&path).unwrap();
        let mut hits = Hits::default();
        let large = std::sync::Mutex::new(Vec::new());
        let mut scanner = Scanner::new(&large);
        f.scan_open("large.txt", (&mut file, None), &mut scanner, &mut hits);
        hits.lines
    }

    #[test]
    fn a_large_file_searched_by_blocks_answers_as_the_whole_file_does() {
        let text = large_text();
        for (query, max) in [
            ("PM_SUSPEND", usize::MAX),
            (r"^PM_\w+ at \d+$", usize::MAX),
            ("SUSPEND", 7),
        ] {
            let mut f = finder(query, true, false, 64);
            f.options.max_matches = max;
            let mut whole = Hits::default();
            f.scan_file("large.txt", &text, &mut whole);
            let whole = whole.lines;
            let blocks = blocks_of(&f, &text);
            assert!(whole.len() > 5, "{query}: the text has matches");
            assert_eq!(blocks, whole, "{query}");
        }
    }

    #[test]
    fn a_nul_anywhere_in_a_large_file_drops_it() {
        let mut text = large_text();
        text.extend_from_slice(b"\n\0 tail\n");
        let mut f = finder("PM_SUSPEND", false, false, 64);
        assert!(blocks_of(&f, &text).is_empty());
        // Also once enough matches were found before it.
        f.options.max_matches = 2;
        assert!(blocks_of(&f, &text).is_empty());
    }

    #[test]
    fn the_skip_regex_drops_assertions_and_keeps_classes() {
        let re = skip_regex(r"^\s*fn\b", false).unwrap();
        assert!(re.is_match("x  fny"));
        let re = skip_regex("k", true).unwrap();
        assert!(re.is_match("K") && re.is_match("\u{212A}"));
        let re = skip_regex(&regex::escape("a.b"), false).unwrap();
        assert!(!re.is_match("axb"));
    }

    /// The lines whose cut does not match but whose whole line does, by the documented rule.
    fn naive_past_cut(finder: &Finder, text: &str) -> Vec<(u64, usize)> {
        let mut lines: Vec<&str> = text.split('\n').collect();
        if text.is_empty() || text.ends_with('\n') {
            lines.pop();
        }
        let mut out = Vec::new();
        for (i, raw) in lines.into_iter().enumerate() {
            let cut = finder.cut(raw);
            let line = raw.strip_suffix('\r').unwrap_or(raw);
            if cut.len() < line.len()
                && finder.line.find(cut).is_none()
                && let Some(m) = finder.line.find(line)
            {
                out.push((i as u64 + 1, m.start()));
            }
        }
        out
    }

    fn scanned_past_cut(finder: &Finder, text: &str) -> Vec<(u64, usize)> {
        let mut out = Vec::new();
        finder.scan(text, finder.skip.as_ref(), |hit| {
            if hit.past_cut {
                out.push((hit.line, hit.offset));
            }
            true
        });
        out
    }

    #[test]
    fn a_match_past_the_cut_of_a_long_line_is_reported_as_a_long_line() {
        let bundle = format!("{}retry = 2;{}\r\n", "x".repeat(499_000), "y".repeat(1000));
        let text = format!("retry = 1\n{bundle}short retry = 3\n");
        let f = finder("retry", false, false, 4096);
        let mut hits = Hits::default();
        f.scan_file("app.min.js", text.as_bytes(), &mut hits);
        let lines: Vec<u64> = hits.lines.iter().map(|(m, _)| m.line).collect();
        assert_eq!(lines, [1, 3]);
        assert_eq!(
            hits.long,
            [LongLine {
                path: "app.min.js".to_string(),
                line: 2,
                column: 499_001,
                bytes: 500_010,
            }]
        );
        // A long line that matches inside its cut is an ordinary match, not a long line.
        let f = finder("x", false, false, 4096);
        let mut hits = Hits::default();
        f.scan_file("app.min.js", bundle.as_bytes(), &mut hits);
        assert_eq!((hits.lines.len(), hits.long.len()), (1, 0));
    }

    #[test]
    fn a_line_matching_only_at_its_cut_is_found() {
        // `b$` matches the cut "aab" of "aabc" although the whole line does not end in b.
        let f = finder("b$", true, false, 3);
        assert_eq!(scanned(&f, "x\naabc\n"), [(2, 2, "aab".to_string())]);
    }

    proptest! {
        #[test]
        fn skipping_to_candidate_lines_finds_what_a_line_by_line_scan_finds(
            text in "[ab \r\n\u{e9}]{0,40}",
            pattern in prop::sample::select(vec![
                "a", "ab", "^a", "a$", r"\bab\b", "b+$", "^$", r"a\s*b", "(?-m)^a", r"\Aa",
                r"a\z", "[^a]b", "\u{e9}", "A", ".", "(?i)B$", "a|^b", "x*", r"\B", r"\s",
            ]),
            max_line_bytes in 0usize..8,
            ignore_case in any::<bool>(),
        ) {
            let f = finder(pattern, true, ignore_case, max_line_bytes);
            prop_assert_eq!(scanned(&f, &text), naive(&f, &text));
            prop_assert_eq!(scanned_past_cut(&f, &text), naive_past_cut(&f, &text));
        }
    }
}
