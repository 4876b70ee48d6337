//! Content search: a regular expression tried against each line of each file under a root, in
//! path order, under the ignore rule, stopping as soon as the answer is complete. Files holding
//! a NUL byte are not text and are skipped whole.

use std::io::{self, Read};
use std::path::Path;

use grep_matcher::LineTerminator;
use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder, Sink, SinkMatch};

use crate::access::{Access, Resolved};
use crate::error::{Result, ToolError};
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
    /// Matches in path order, then line order; at most `limit` of them.
    Matches(Vec<Match>),
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
pub fn search(
    access: &Access,
    target: &Resolved,
    query: &str,
    options: &SearchOptions,
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
    let mut searcher = SearcherBuilder::new()
        .line_number(true)
        .line_terminator(LineTerminator::crlf())
        .binary_detection(BinaryDetection::quit(0))
        .build();
    let mut found: Vec<Match> = Vec::new();
    for entry in access.sorted_walk(&target.path, None) {
        if found.len() >= options.limit {
            break;
        }
        let Ok(entry) = entry else { continue };
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        if access.is_secret_path(entry.path()) {
            continue;
        }
        let Ok(file) = access.open_walked(entry.path()) else {
            continue;
        };
        let mut sink = Collect {
            want: options.limit - found.len(),
            max_chars: options.max_line_chars,
            lines: Vec::new(),
            binary: false,
        };
        if searcher.search_file(&matcher, &file, &mut sink).is_err() || sink.binary {
            continue;
        }
        if sink.lines.is_empty() {
            continue;
        }
        // The searcher stopped at the last match it needed; a NUL further on still makes the
        // file binary.
        if sink.lines.len() == sink.want && has_nul(access, entry.path()) {
            continue;
        }
        let path = access.display(entry.path());
        found.extend(sink.lines.into_iter().map(|(line, text, cut_chars)| Match {
            path: path.clone(),
            line,
            text,
            cut_chars,
        }));
    }
    Ok(SearchOutcome::Matches(found))
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

/// Whether the file at `path` holds a NUL byte anywhere.
fn has_nul(access: &Access, path: &Path) -> bool {
    let Ok(mut file) = access.open_walked(path) else {
        return true;
    };
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match file.read(&mut buf) {
            Ok(0) => return false,
            Ok(n) => {
                if memchr::memchr(0, &buf[..n]).is_some() {
                    return true;
                }
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => return true,
        }
    }
}
