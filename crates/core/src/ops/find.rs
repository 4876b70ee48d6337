//! Finding files and lines for the coder profile's search: a walk of the jail with noise and secret filters, and per-line matches with context.
//!
//! **The walk.** Depth-first from the target, siblings in byte order of their names, so results
//! come in path order. Symbolic links are never followed nor reported, and `.gitignore` does not
//! apply: what hides noise is the jail's `default_exclude_globs` (the walk does not enter a
//! matching directory and skips a matching file), unless turned off per call or unless the
//! target itself is noise (naming it expresses the wish to look inside). Non-accessible
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
//! first. A line is the text between `\n`s, without a final `\r`; each line is cut to
//! `max_line_bytes` bytes (back to a character boundary) and the query is tried against the cut
//! text alone, as if it were the whole line (so `$` also matches at the cut). The first match of
//! a line is reported, with its 1-based line number and its 1-based **byte** column within the
//! text; context lines are cut the same way.
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

use std::borrow::Cow;
use std::io::Read;
use std::path::{Path, PathBuf};

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use regex::{Regex, RegexBuilder};
use regex_syntax::hir::{Hir, HirKind};

use crate::access::walkdir::OpenDir;
use crate::access::{Access, EntryKind, Resolved};
use crate::error::{Result, ToolError};
use crate::surface::CallContext;

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

/// What a search found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Found {
    /// Matching lines, in path order then line order.
    pub lines: Vec<LineMatch>,
    /// Absolute paths of matching files, in path order.
    pub paths: Vec<String>,
    /// Whether a cap or the byte budget cut either list.
    pub truncated: bool,
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
        let mut run = Run {
            finder: self,
            access,
            excludes: self.options.use_default_excludes
                && !access.is_excluded_path(&target.path, meta.is_dir),
            found: Found::default(),
            lines_done: !self.options.content,
            paths_done: !self.options.paths,
            budget: self.options.budget_bytes,
            buf: Vec::new(),
        };
        if !meta.is_dir {
            run.file(&target.path, Some(meta.len), None);
            return Ok(run.found);
        }
        let listing_error = |e: std::io::Error| ToolError::from_io(&e, "search", &target.shown);
        let root = access.open_dir(target).map_err(listing_error)?;
        let entries = list(&root, &target.path).map_err(listing_error)?;
        // Each level of the walk keeps its directory open, so a child is listed and opened
        // relative to it; past `MAX_HELD` levels the shallowest handles are let go (a level
        // without one is opened again, through the jail, if it still has a folder to enter).
        let mut stack = vec![Level {
            dir: Some(root),
            entries: entries.into_iter(),
        }];
        let mut held = 1usize;
        while !run.finished() {
            if call.is_cancelled() {
                run.found.truncated = true;
                break;
            }
            let Some(top) = stack.last_mut() else { break };
            let Some(entry) = top.entries.next() else {
                if stack.pop().is_some_and(|level| level.dir.is_some()) {
                    held -= 1;
                }
                continue;
            };
            match entry.kind {
                Kind::File => {
                    call.tick(1, "files scanned");
                    run.file(&entry.path, entry.len, top.dir.as_ref());
                }
                Kind::Dir => {
                    if access.is_secret_path(&entry.path)
                        || (run.excludes && access.is_excluded_path(&entry.path, true))
                    {
                        continue;
                    }
                    // A folder whose name is not UTF-8 cannot be named to the jail, and is
                    // skipped, as one that cannot be read is.
                    let (Some(raw), Some(name)) = (entry.path.to_str(), entry.path.file_name())
                    else {
                        continue;
                    };
                    let opened = match &top.dir {
                        Some(dir) => dir.subdir(name).ok(),
                        None => access
                            .resolve(raw)
                            .ok()
                            .and_then(|dir| access.open_dir(&dir).ok()),
                    };
                    let Some((dir, children)) =
                        opened.and_then(|dir| list(&dir, &entry.path).ok().map(|c| (dir, c)))
                    else {
                        continue;
                    };
                    if held >= MAX_HELD
                        && let Some(level) = stack.iter_mut().find(|l| l.dir.is_some())
                    {
                        level.dir = None;
                        held -= 1;
                    }
                    stack.push(Level {
                        dir: Some(dir),
                        entries: children.into_iter(),
                    });
                    held += 1;
                }
            }
        }
        Ok(run.found)
    }
}

/// The most directory handles a walk holds open at once.
const MAX_HELD: usize = 64;

/// One level of the walk: its directory (while held open) and the entries still to visit.
struct Level {
    dir: Option<OpenDir>,
    entries: std::vec::IntoIter<Entry>,
}

/// One search in progress.
struct Run<'a> {
    finder: &'a Finder,
    access: &'a Access,
    /// Whether default-exclude noise is hidden in this walk.
    excludes: bool,
    found: Found,
    /// The line list is complete: not asked for, or one more match was found beyond the cap.
    lines_done: bool,
    /// The path list is complete, likewise.
    paths_done: bool,
    /// Bytes left in the response budget.
    budget: u64,
    /// The file being searched, reused between files.
    buf: Vec<u8>,
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

    /// Searches the file at `path`, opened relative to `dir` (the directory holding it) when
    /// that is given.
    fn file(&mut self, path: &Path, len: Option<u64>, dir: Option<&OpenDir>) {
        let access = self.access;
        let finder = self.finder;
        let options = &finder.options;
        if access.is_secret_path(path) || (self.excludes && access.is_excluded_path(path, false)) {
            return;
        }
        let rel = root_relative(access, path);
        if finder.include.as_ref().is_some_and(|s| !s.is_match(rel))
            || finder.exclude.as_ref().is_some_and(|s| s.is_match(rel))
        {
            return;
        }
        let shown = path.to_string_lossy();
        if !self.paths_done && finder.line.is_match(&rel.to_string_lossy()) {
            if self.found.paths.len() >= options.max_matches {
                self.found.truncated = true;
                self.paths_done = true;
            } else if self.charge(shown.len()) {
                self.found.paths.push(shown.to_string());
            }
        }
        if self.lines_done || len.is_some_and(|n| n > options.max_read_bytes) {
            return;
        }
        let opened = match (dir, path.file_name()) {
            (Some(dir), Some(name)) => dir.open_file(name),
            _ => access.open_walked(path),
        };
        let Ok(file) = opened else {
            return;
        };
        let mut buf = std::mem::take(&mut self.buf);
        buf.clear();
        let read = file
            .take(options.max_read_bytes.saturating_add(1))
            .read_to_end(&mut buf);
        if read.is_ok()
            && u64::try_from(buf.len()).is_ok_and(|n| n <= options.max_read_bytes)
            && memchr::memchr(0, &buf).is_none()
        {
            let text = match std::str::from_utf8(&buf) {
                Ok(text) => Cow::Borrowed(text),
                Err(_) => String::from_utf8_lossy(&buf),
            };
            self.lines(&shown, &text);
        }
        self.buf = buf;
    }

    /// Finds the matching lines of one file's `text`.
    fn lines(&mut self, path: &str, text: &str) {
        let finder = self.finder;
        finder.scan(text, finder.skip.as_ref(), |hit| {
            self.line_match(path, text, &hit);
            !self.lines_done
        });
    }

    fn line_match(&mut self, path: &str, text: &str, hit: &Hit<'_>) {
        let finder = self.finder;
        let options = &finder.options;
        if self.found.lines.len() >= options.max_matches {
            self.found.truncated = true;
            self.lines_done = true;
            return;
        }
        let bytes = text.as_bytes();
        let mut before = Vec::new();
        let mut line_start = hit.start;
        while before.len() < options.context_before && line_start > 0 {
            let line_end = line_start - 1;
            line_start = memchr::memrchr(b'\n', &bytes[..line_end]).map_or(0, |i| i + 1);
            before.push(finder.cut(&text[line_start..line_end]).to_string());
        }
        before.reverse();
        let mut after = Vec::new();
        let mut line_end = hit.end;
        while after.len() < options.context_after && line_end + 1 < bytes.len() {
            let next = line_end + 1;
            line_end = memchr::memchr(b'\n', &bytes[next..]).map_or(bytes.len(), |i| next + i);
            after.push(finder.cut(&text[next..line_end]).to_string());
        }
        let cost = path.len()
            + hit.cut.len()
            + before.iter().map(String::len).sum::<usize>()
            + after.iter().map(String::len).sum::<usize>();
        if !self.charge(cost) {
            return;
        }
        self.found.lines.push(LineMatch {
            path: path.to_string(),
            line: hit.line,
            column: u64::try_from(hit.offset)
                .unwrap_or(u64::MAX)
                .saturating_add(1),
            text: hit.cut.to_string(),
            before,
            after,
        });
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
    /// Byte offset of the match within `cut`.
    offset: usize,
    /// The line, cut.
    cut: &'t str,
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
            let cut = self.cut(&text[start..end]);
            if let Some(m) = self.line.find(cut)
                && !found(Hit {
                    start,
                    end,
                    line,
                    offset: m.start(),
                    cut,
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

/// Number of line breaks in `bytes`.
fn count_lines(bytes: &[u8]) -> u64 {
    u64::try_from(memchr::memchr_iter(b'\n', bytes).count()).unwrap_or(u64::MAX)
}

/// The path below its containing root (the path itself when it lies under none).
fn root_relative<'p>(access: &Access, path: &'p Path) -> &'p Path {
    match access.jail() {
        Some(jail) => jail.locate(path).map_or(path, |(_, rel)| rel),
        None => access.relative_to_root(path).unwrap_or(path),
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    File,
    Dir,
}

/// A directory entry the walk visits.
struct Entry {
    path: PathBuf,
    kind: Kind,
    len: Option<u64>,
}

/// The files and directories of `dir` (whose path is `path`), sorted by name; links and
/// special files are left out.
fn list(dir: &OpenDir, path: &Path) -> std::io::Result<Vec<Entry>> {
    let mut entries = dir.entries()?;
    entries.sort_unstable_by(|a, b| a.name.cmp(&b.name));
    Ok(entries
        .into_iter()
        .filter_map(|e| {
            let kind = match e.kind {
                EntryKind::File => Kind::File,
                EntryKind::Dir => Kind::Dir,
                EntryKind::Symlink { .. } | EntryKind::Other => return None,
            };
            Some(Entry {
                path: path.join(&e.name),
                kind,
                len: e.meta.map(|m| m.len),
            })
        })
        .collect())
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
        })
        .unwrap()
    }

    fn scanned(finder: &Finder, text: &str) -> Vec<(u64, usize, String)> {
        let mut out = Vec::new();
        finder.scan(text, finder.skip.as_ref(), |hit| {
            out.push((hit.line, hit.offset, hit.cut.to_string()));
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

    #[test]
    fn the_skip_regex_drops_assertions_and_keeps_classes() {
        let re = skip_regex(r"^\s*fn\b", false).unwrap();
        assert!(re.is_match("x  fny"));
        let re = skip_regex("k", true).unwrap();
        assert!(re.is_match("K") && re.is_match("\u{212A}"));
        let re = skip_regex(&regex::escape("a.b"), false).unwrap();
        assert!(!re.is_match("axb"));
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
        }
    }
}
