//! Finding files by glob pattern under a directory, and searching the files so found: the
//! engines of qwen's `glob` and `grep_search`. Both walk under a profile's own ignore files
//! ([`IgnoreFiles`]), never enter `.git`, and skip non-accessible files.
//!
//! [`glob`] matches a pattern against paths relative to the directory searched (`*` stays within
//! one path component, `**` spans any number, braces and classes as in `globset`), and returns
//! the matching files newest first. [`grep`] tries a regular expression (Rust syntax, as
//! ripgrep's) against every line of every file, case-insensitively, in path order; files holding
//! a NUL byte are binary and skipped; text in another encoding than UTF-8 (a legacy code page,
//! UTF-16 or UTF-32 with a BOM) is searched as its decoded text, the text read_file shows
//! ([`super::search::search_text`], shared with gg's search).
//!
//! Both count what their walk passed over ([`Skipped`]): folders they could not list,
//! symbolic links that loop (no link is followed; glob counts those its pattern matches),
//! files they could not open, non-accessible files, and ignore files not read.

use std::cmp::Reverse;
use std::io;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use encoding_rs::Encoding;
use globset::GlobBuilder;
use grep_matcher::LineTerminator;
use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder, Sink, SinkMatch};

use super::search::{TextSink, search_text};
use ignore::WalkState;
use ignore::overrides::{Override, OverrideBuilder};

use crate::access::ignore::{IgnoreFiles, Links};
use crate::access::walkdir::{Skipped, Skips};
use crate::access::{Access, OpenFile, Resolved};
use crate::context::CallContext;
use crate::error::{ErrorKind, Result, ToolError};
use crate::text::lines;

/// A file a glob matched.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GlobHit {
    /// The file's absolute path.
    pub path: PathBuf,
    /// Its modification time (the epoch when unknown).
    pub modified: SystemTime,
}

/// What a glob found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GlobOutcome {
    /// The matching files, newest first (ties in path order).
    pub hits: Vec<GlobHit>,
    /// What the walk passed over.
    pub skipped: Skipped,
}

/// How a glob matches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GlobOptions {
    /// Letters match regardless of case. By default `true` (as Qwen Code's glob).
    pub case_insensitive: bool,
}

impl Default for GlobOptions {
    fn default() -> Self {
        GlobOptions {
            case_insensitive: true,
        }
    }
}

/// The files under the directory `dir` whose path relative to it matches `pattern`, newest
/// first (ties in path order). A pattern that names an existing file literally (`[id].tsx`)
/// matches that file too. The walk runs on every core; each file walked is ticked to `ctx`
/// ("files walked"), and a cancelled `ctx` stops it, returning what was found so far.
pub fn glob(
    access: &Access,
    dir: &Resolved,
    pattern: &str,
    ignore: &IgnoreFiles,
    options: GlobOptions,
    ctx: &CallContext,
) -> Result<GlobOutcome> {
    let literal = pattern.trim_start_matches("./");
    let matcher = GlobBuilder::new(literal)
        .literal_separator(true)
        .case_insensitive(options.case_insensitive)
        .backslash_escape(true)
        .build()
        .map_err(|e| {
            ToolError::invalid(format!(
                "glob pattern {pattern:?} is not valid: {}; write it like \"*.py\" or \
                 \"src/**/*.js\"",
                e.kind()
            ))
        })?
        .compile_matcher();
    require_dir(access, dir)?;
    // The result is ordered afterwards, so the walk runs on every core in any order; only the
    // files that match are asked for their modification time.
    let hits: Mutex<Vec<GlobHit>> = Mutex::new(Vec::new());
    let quit = AtomicBool::new(false);
    let root = dir.path.as_path();
    let skips = Arc::new(Skips::default());
    access
        .walk_parallel_with(root, None, ignore, &skips)
        .run(|| {
            let (hits, quit, matcher, skips) = (&hits, &quit, &matcher, &skips);
            Box::new(move |entry| {
                if quit.load(Ordering::Relaxed) {
                    return WalkState::Quit;
                }
                if ctx.is_cancelled() {
                    quit.store(true, Ordering::Relaxed);
                    return WalkState::Quit;
                }
                let entry = match entry {
                    Ok(entry) => entry,
                    Err(e) => {
                        skips.walk_failed(&e);
                        return WalkState::Continue;
                    }
                };
                let link = entry.depth() > 0 && entry.file_type().is_some_and(|t| t.is_symlink());
                if !link && !entry.file_type().is_some_and(|t| t.is_file()) {
                    return WalkState::Continue;
                }
                ctx.tick(1, "files walked");
                let Some(rel) = below(root, entry.path()) else {
                    return WalkState::Continue;
                };
                if !matcher.is_match(rel) && rel.to_str() != Some(literal) {
                    return WalkState::Continue;
                }
                if link {
                    // Never followed; one the pattern matches that loops is said to be passed over.
                    if access.is_link_loop(entry.path()) {
                        skips.symlink_loop();
                    }
                    return WalkState::Continue;
                }
                if access.is_secret_path(entry.path()) {
                    skips.non_accessible();
                    return WalkState::Continue;
                }
                let modified = entry
                    .metadata()
                    .ok()
                    .and_then(|m| m.modified().ok())
                    .unwrap_or(SystemTime::UNIX_EPOCH);
                if let Ok(mut hits) = hits.lock() {
                    hits.push(GlobHit {
                        path: entry.into_path(),
                        modified,
                    });
                }
                WalkState::Continue
            })
        });
    let mut hits = hits.into_inner().unwrap_or_default();
    // Newest first, ties in path order (as `Path`'s comparison orders them: component by
    // component), through keys made once per hit rather than per comparison.
    hits.sort_by_cached_key(|h| (Reverse(h.modified), path_key(&h.path)));
    Ok(GlobOutcome {
        hits,
        skipped: skips.skipped(|p| access.display(p)),
    })
}

/// A key whose byte order is `Path`'s order: the components joined by a NUL, which sorts
/// before every byte a name can hold, as a shorter component sorts before a longer one it
/// begins.
fn path_key(path: &Path) -> Vec<u8> {
    use std::os::unix::ffi::OsStrExt;
    let mut key = Vec::with_capacity(path.as_os_str().len());
    for (i, c) in path.components().enumerate() {
        if i > 0 {
            key.push(0);
        }
        key.extend_from_slice(c.as_os_str().as_bytes());
    }
    key
}

/// `path` relative to `root`, for a path a walk of `root` produced (`root`, a separator, the
/// rest): a byte comparison, where `Path::strip_prefix` would compare component by component.
fn below<'a>(root: &Path, path: &'a Path) -> Option<&'a Path> {
    use std::os::unix::ffi::OsStrExt;
    let (root, path) = (root.as_os_str().as_bytes(), path.as_os_str().as_bytes());
    let rest = path.strip_prefix(root)?;
    let rest = match rest.strip_prefix(b"/") {
        Some(rest) => rest,
        // A root given with a trailing separator already ends with it.
        None if root.ends_with(b"/") => rest,
        None => return None,
    };
    Some(Path::new(std::ffi::OsStr::from_bytes(rest)))
}

/// Refuses a `dir` that does not exist or is not a directory.
fn require_dir(access: &Access, dir: &Resolved) -> Result<()> {
    match access.metadata(dir) {
        Ok(meta) if meta.is_dir => Ok(()),
        Ok(_) => Err(ToolError::invalid(format!(
            "Path is not a directory: {}",
            dir.shown
        ))),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Err(ToolError::not_found(format!(
            "Path does not exist: {}",
            dir.shown
        ))),
        Err(e) => Err(ToolError::from_io(&e, "search", &dir.shown)),
    }
}

/// One matching line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GrepLine {
    /// The file's absolute path.
    pub path: PathBuf,
    /// The 1-based line number.
    pub line: u64,
    /// The line without its ending (invalid UTF-8 shown as U+FFFD).
    pub text: String,
}

/// What a search found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GrepOutcome {
    /// Every matching line counted.
    pub total: usize,
    /// The first matching lines, in path order then line order; at most the `keep` asked for.
    pub lines: Vec<GrepLine>,
    /// The search was cancelled before it finished: `total` counts only what was searched.
    pub cancelled: bool,
    /// What the walk passed over.
    pub skipped: Skipped,
}

/// Compiles `pattern` as a case-insensitive, line-oriented Rust regular expression.
pub fn compile_case_insensitive(pattern: &str) -> Result<RegexMatcher> {
    let invalid = |e: &dyn std::fmt::Display| {
        ToolError::invalid(format!(
            "Invalid regular expression pattern: {pattern}. Error: {e}"
        ))
    };
    regex_syntax::Parser::new()
        .parse(pattern)
        .map_err(|e| invalid(&e))?;
    RegexMatcherBuilder::new()
        .case_insensitive(true)
        .multi_line(true)
        .line_terminator(Some(b'\n'))
        .crlf(true)
        .build(pattern)
        .map_err(|e| invalid(&e))
}

/// Searches `target` (a directory, or one file) for `pattern`, counting every matching line and
/// keeping the first `keep`. `glob` filters the files of a directory as ripgrep's `--glob`
/// does: a glob without `/` matches a file's name at any depth, one with `/` its path relative
/// to `target`; `!` negates. A file named as `target` is searched whatever the filters say.
/// Each file searched is ticked to `ctx` ("files scanned"); a cancelled `ctx` stops the walk and
/// the outcome says so. `fallback` steers the detection of a file's encoding when it is not
/// UTF-8 (the system's code page; see [`crate::text::encoding::decode`]).
#[allow(clippy::too_many_arguments)]
pub fn grep(
    access: &Access,
    target: &Resolved,
    pattern: &str,
    glob: Option<&str>,
    ignore: &IgnoreFiles,
    keep: usize,
    fallback: Option<&'static Encoding>,
    ctx: &CallContext,
) -> Result<GrepOutcome> {
    let matcher = compile_case_insensitive(pattern)?;
    let meta = access.metadata(target).map_err(|e| {
        if e.kind() == io::ErrorKind::NotFound {
            ToolError::not_found(format!("Path does not exist: {}", target.shown))
        } else {
            ToolError::from_io(&e, "search", &target.shown)
        }
    })?;
    let filter = match glob {
        Some(glob) if meta.is_dir => Some(overrides(&target.path, glob)?),
        _ => None,
    };
    let mut searcher = SearcherBuilder::new()
        .line_number(true)
        .line_terminator(LineTerminator::crlf())
        .binary_detection(BinaryDetection::quit(0))
        .build();
    let mut outcome = GrepOutcome::default();
    let mut buf = Vec::new();
    let mut search_one = |path: &Path, mut file: OpenFile, outcome: &mut GrepOutcome| {
        let room = keep.saturating_sub(outcome.lines.len());
        let sink = search_text(
            &mut searcher,
            &matcher,
            (&mut file, None),
            &mut buf,
            fallback,
            || Collect {
                keep: room,
                lines: Vec::new(),
                count: 0,
                binary: false,
            },
        );
        let Some(sink) = sink else {
            return;
        };
        outcome.total += sink.count;
        outcome
            .lines
            .extend(sink.lines.into_iter().map(|(line, text)| GrepLine {
                path: path.to_path_buf(),
                line,
                text,
            }));
    };
    if !meta.is_dir {
        let (file, _) = access
            .open_regular(target)
            .map_err(|e| ToolError::from_io(&e, "search", &target.shown))?;
        search_one(&target.path, file, &mut outcome);
        return Ok(outcome);
    }
    let skips = Arc::new(Skips::default());
    for entry in access.counted_walk(&target.path, None, ignore, &skips, Links::PassOver) {
        if ctx.is_cancelled() {
            outcome.cancelled = true;
            break;
        }
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        if filter
            .as_ref()
            .is_some_and(|f| f.matched(entry.path(), false).is_ignore())
        {
            continue;
        }
        if access.is_secret_path(entry.path()) {
            skips.non_accessible();
            continue;
        }
        let file = match access.open_walked(entry.path()) {
            Ok(file) => file,
            Err(e) => {
                skips.file_failed(&e);
                continue;
            }
        };
        ctx.tick(1, "files scanned");
        search_one(entry.path(), file, &mut outcome);
    }
    outcome.skipped = skips.skipped(|p| access.display(p));
    Ok(outcome)
}

/// ripgrep's `--glob` filter rooted at `root`.
fn overrides(root: &Path, glob: &str) -> Result<Override> {
    let mut builder = OverrideBuilder::new(root);
    builder.add(glob).and_then(|b| b.build()).map_err(|e| {
        ToolError::new(
            ErrorKind::InvalidArgument,
            format!(
                "glob {glob:?} is not a valid file filter: {e}; write it like \"*.js\" or \
                     \"src/**/*.{{ts,tsx}}\""
            ),
        )
    })
}

/// Counts a file's matching lines and keeps the first `keep`.
struct Collect {
    keep: usize,
    lines: Vec<(u64, String)>,
    count: usize,
    binary: bool,
}

impl Sink for Collect {
    type Error = io::Error;

    fn matched(&mut self, _: &Searcher, mat: &SinkMatch<'_>) -> Result<bool, io::Error> {
        // A match spans one line here (the matcher never crosses a line terminator), but count
        // each line of a multi-line match anyway.
        let first = mat.line_number().unwrap_or(0);
        for (i, line) in mat.lines().enumerate() {
            self.count += 1;
            if self.lines.len() < self.keep {
                let text = String::from_utf8_lossy(lines::strip_ending(line)).into_owned();
                self.lines.push((first + i as u64, text));
            }
        }
        Ok(true)
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

    /// Every matching line is counted, so the search always runs to the end of the file.
    fn stopped(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_keys_order_paths_as_path_does() {
        let paths = [
            "/r/a/b", "/r/a-b", "/r/a", "/r/a/b/c", "/r/ab", "/r/a.c", "/r/A", "/r/a b", "/r/./a",
            "/r/a//b/",
        ];
        for x in paths {
            for y in paths {
                let (x, y) = (Path::new(x), Path::new(y));
                assert_eq!(path_key(x).cmp(&path_key(y)), x.cmp(y), "{x:?} {y:?}");
            }
        }
    }

    #[test]
    fn below_strips_the_walk_root() {
        assert_eq!(
            below(Path::new("/r"), Path::new("/r/a/b")),
            Some(Path::new("a/b"))
        );
        assert_eq!(
            below(Path::new("/r/"), Path::new("/r/a")),
            Some(Path::new("a"))
        );
        assert_eq!(
            below(Path::new("/r/."), Path::new("/r/./a")),
            Some(Path::new("a"))
        );
        assert_eq!(below(Path::new("/r"), Path::new("/rx/a")), None);
    }
}
