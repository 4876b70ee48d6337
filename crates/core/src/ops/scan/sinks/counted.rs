//! Every matching line counted, the first kept (qwen's `grep_search`): a regular expression
//! tried case-insensitively against every line of every file under a folder (or of one file),
//! in path order, under qwen's ignore files; ripgrep's `--glob` may narrow the files.
//!
//! The walk is the one walker under the profile's ignore files ([`IgnoreFiles`]), `.git` never
//! entered, links passed over. Each file is read by the scanner as gg's search reads it
//! ([`super::lines::rule`]): a file holding a NUL byte is binary and skipped; text in another
//! encoding than UTF-8 (a legacy code page, detection leaning on the system's; UTF-16 or UTF-32
//! with a BOM) is searched as its decoded text, the text read_file shows. Every file is read to
//! its end, since every match is counted; files are searched in parallel and their matches
//! taken back in path order.
//!
//! What the walk passed over is counted ([`Skipped`]): folders it could not list, symbolic
//! links that loop, files it could not open, non-accessible files, and ignore files not read.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use encoding_rs::Encoding;
use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{Searcher, SinkMatch};
use ignore::overrides::{Override, OverrideBuilder};

use super::super::{CallContext, FileSearch, Flow, Lines, Read, Scanner, Sink, TextRule};
use crate::access::ignore::IgnoreFiles;
use crate::access::walk::{Passed, Step, WalkOptions, WalkRule, WalkedFile};
use crate::access::walkdir::{Skipped, Skips};
use crate::access::{Access, Resolved};
use crate::error::{ErrorKind, Result, ToolError};
use crate::ops::ordered::Ended;
use crate::text::lines;

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
    let search = CountSearch {
        access,
        matcher: &matcher,
        keep,
        rule: super::lines::rule(fallback),
    };
    let skips = Arc::new(Skips::default());
    let mut sink = Counted {
        outcome: GrepOutcome::default(),
        keep,
        skips: Arc::clone(&skips),
    };
    if !meta.is_dir {
        let (mut file, _) = access
            .open_regular(target)
            .map_err(|e| ToolError::from_io(&e, "search", &target.shown))?;
        let mut tools = search.tools();
        let found = search.read(&mut tools, &mut file, None, target.path.clone());
        sink.take(found);
        return Ok(sink.outcome);
    }
    let select = |path: &Path| {
        !filter
            .as_ref()
            .is_some_and(|f| f.matched(path, false).is_ignore())
    };
    let options = WalkOptions {
        select: Some(&select),
        ..WalkOptions::new(WalkRule::Ignore(ignore.clone()))
    };
    let walk: Box<dyn Iterator<Item = Step>> = match access.walk(&target.path, options, &skips) {
        Ok(walk) => Box::new(walk),
        Err(e) => Box::new(std::iter::once(Step::Passed(Passed::Folder(
            target.path.clone(),
            e,
        )))),
    };
    let ended = super::super::run(walk, &search, &mut sink, ctx, "files scanned");
    let mut outcome = sink.outcome;
    outcome.cancelled = ended == Ended::Cancelled;
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

/// What a worker found in one file.
enum Searched {
    /// Not text, or unreadable once open.
    Nothing,
    /// The file could not be opened.
    Unreadable(io::Error),
    /// Its matching lines counted, and the first `keep` of them, with its path.
    Lines(PathBuf, usize, Vec<(u64, String)>),
}

/// Counts a file's matching lines and keeps the first `keep`.
struct CountSearch<'a> {
    access: &'a Access,
    matcher: &'a RegexMatcher,
    keep: usize,
    rule: TextRule,
}

impl CountSearch<'_> {
    /// Reads the open `file` (at `path`) and counts its matching lines.
    fn read(
        &self,
        searcher: &mut Searcher,
        file: &mut crate::access::OpenFile,
        len: Option<u64>,
        path: PathBuf,
    ) -> Searched {
        let large = std::sync::Mutex::new(Vec::new());
        let mut scanner = Scanner::new(&large);
        self.read_with(searcher, &mut scanner, file, len, path)
    }

    fn read_with(
        &self,
        searcher: &mut Searcher,
        scanner: &mut Scanner,
        file: &mut crate::access::OpenFile,
        len: Option<u64>,
        path: PathBuf,
    ) -> Searched {
        let mut lines = FileLines {
            searcher,
            matcher: self.matcher,
            collect: Collect {
                keep: self.keep,
                base: 0,
                lines: Vec::new(),
                count: 0,
                binary: false,
            },
        };
        match scanner.read(file, len, &self.rule, &mut lines) {
            Read::Text => Searched::Lines(path, lines.collect.count, lines.collect.lines),
            _ => Searched::Nothing,
        }
    }
}

impl FileSearch for CountSearch<'_> {
    type Tools = Searcher;
    type Found = Searched;

    fn tools(&self) -> Searcher {
        super::lines::searcher()
    }

    fn search(&self, searcher: &mut Searcher, scanner: &mut Scanner, file: WalkedFile) -> Searched {
        match scanner.open(self.access, &file) {
            Ok((mut opened, len)) => {
                self.read_with(searcher, scanner, &mut opened, len, file.path())
            }
            Err(e) => Searched::Unreadable(e),
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
        // Every matching line is counted, so the whole file is read.
        Flow::More
    }

    fn restart(&mut self) {
        self.collect.lines.clear();
        self.collect.count = 0;
        self.collect.binary = false;
    }
}

/// Counts a file's matching lines and keeps the first `keep`.
struct Collect {
    keep: usize,
    /// Lines before the text being searched.
    base: u64,
    lines: Vec<(u64, String)>,
    count: usize,
    binary: bool,
}

impl grep_searcher::Sink for Collect {
    type Error = io::Error;

    fn matched(
        &mut self,
        _: &Searcher,
        mat: &SinkMatch<'_>,
    ) -> std::result::Result<bool, io::Error> {
        // A match spans one line here (the matcher never crosses a line terminator), but count
        // each line of a multi-line match anyway.
        let first = self.base + mat.line_number().unwrap_or(0);
        for (i, line) in mat.lines().enumerate() {
            self.count += 1;
            if self.lines.len() < self.keep {
                let text = String::from_utf8_lossy(lines::strip_ending(line)).into_owned();
                self.lines.push((first + i as u64, text));
            }
        }
        Ok(true)
    }

    fn binary_data(&mut self, _: &Searcher, _: u64) -> std::result::Result<bool, io::Error> {
        self.binary = true;
        Ok(false)
    }
}

/// The answer, taken file by file in path order.
struct Counted {
    outcome: GrepOutcome,
    keep: usize,
    skips: Arc<Skips>,
}

impl Sink<Searched> for Counted {
    fn take(&mut self, searched: Searched) -> bool {
        match searched {
            Searched::Nothing => {}
            Searched::Unreadable(e) => self.skips.file_failed(&e),
            Searched::Lines(path, count, lines) => {
                self.outcome.total += count;
                let room = self.keep.saturating_sub(self.outcome.lines.len());
                self.outcome
                    .lines
                    .extend(lines.into_iter().take(room).map(|(line, text)| GrepLine {
                        path: path.clone(),
                        line,
                        text,
                    }));
            }
        }
        true
    }

    fn passed(&mut self, passed: Passed) -> bool {
        self.skips.count(&passed);
        true
    }
}
