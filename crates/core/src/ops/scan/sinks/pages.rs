//! Offset/limit pages of results (picoclaw's `search_files`): a regular expression over file
//! contents, or a filename pattern over paths, each result a matching line, a context block, a
//! matching file or a file with its count, or a file whose path matches.
//!
//! **Results.** A content search's result is a matching line (`context` 0) or a context block:
//! the ranges `match - context ..= match + context` of a file's matches are merged when they
//! overlap or touch (as ripgrep does), and a merged block is split before it would exceed
//! [`BLOCK_LINES`] lines, at a match, so every block holds at least one match and no line is
//! shown twice. [`Mode::FilesOnly`] makes each matching file a result, [`Mode::Count`] each
//! matching file with its count, and [`Target::Files`] each file the search looks at. `offset`
//! skips that many results and `limit` bounds the page; results come in a fixed order (the
//! walk's path order, or newest modification first), so consecutive pages neither repeat nor
//! skip.
//!
//! **The walk** is the one walker under the standard ignore rule (`.gitignore`, `.ignore`,
//! `.git/info/exclude`), on listings kept from one search to the next below the working
//! directory; a root the rule itself excludes was named explicitly, so it is walked with only
//! the ignore files found beneath it. Links are passed over. The caller says which files the
//! search looks at ([`PageQuery::keep`]: its protected paths, artifact folders and filename
//! filters).
//!
//! **The scanner** reads each file by [`rule`]: a NUL byte in its first [`SNIFF`] bytes makes
//! it binary, unless it starts with a UTF-16 or UTF-32 byte-order mark (its decoded text is
//! searched); other encodings are searched as stored; a line is kept up to [`LINE_CAP`] bytes
//! (longer lines are cut before matching). Files are searched in parallel and taken back in the
//! walk's order, under a scan budget of [`MAX_FILES`] files and [`MAX_BYTES`] bytes: a file
//! that no longer fits the remaining bytes is skipped and the walk goes on; reaching the file
//! count stops the walk.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::Mutex;

use regex::bytes::Regex as BytesRegex;

use super::super::{Binary, CallContext, Decode, FileSearch, Flow, Lines, Read, Scanner, Sink};
use super::super::{TextRule, run};
use crate::access::ignore::IgnoreFiles;
use crate::access::walk::{Passed, Step, WalkOptions, WalkRule, WalkedFile};
use crate::access::walkdir::{Skipped, Skips};
use crate::access::{Access, Meta, Resolved};
use crate::error::{ErrorKind, Result, ToolError};
use crate::ops::ordered::Ended;
use crate::text::lines;

/// The scan budget: files...
pub const MAX_FILES: usize = 5_000;
/// ...and bytes of file content.
pub const MAX_BYTES: u64 = 64 * 1024 * 1024;
/// The most lines of one context block.
pub const BLOCK_LINES: u64 = 50;
/// The longest line kept (and matched).
pub const LINE_CAP: usize = 1024 * 1024;
/// How much of a file decides whether it is binary.
pub const SNIFF: usize = 8 * 1024;

/// What a search looks for.
pub enum Target {
    /// Lines matching a regular expression, shown as `mode` says.
    Content(BytesRegex, Mode),
    /// Files: each file the search looks at is a result.
    Files,
}

/// What a content search's results are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Matching lines, or context blocks of `context` lines around them.
    Lines {
        /// Context lines on each side of a match.
        context: u64,
    },
    /// Each matching file.
    FilesOnly,
    /// Each matching file with its count of matching lines.
    Count,
}

/// In which order results come.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// The walk's path order.
    Discovery,
    /// Newest modification first (then by path).
    Modified,
}

/// One search's configuration.
pub struct PageQuery<'q> {
    /// What it looks for.
    pub target: Target,
    /// In which order.
    pub order: Order,
    /// Results skipped before the page.
    pub offset: usize,
    /// The most results of the page.
    pub limit: usize,
    /// Whether the search looks at the file at this path, given with its path relative to the
    /// search's root (a file named as the root: its name), `/`-separated.
    pub keep: &'q (dyn Fn(&Path, &str) -> bool + Sync),
}

/// One result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Item {
    /// A matching line or a context block: (line number, text, whether it matched).
    Lines {
        /// The file.
        path: PathBuf,
        /// The lines.
        lines: Vec<(u64, Vec<u8>, bool)>,
    },
    /// A file.
    File {
        /// The file.
        path: PathBuf,
    },
    /// A matching file and its count of matching lines.
    Count {
        /// The file.
        path: PathBuf,
        /// Its matching lines.
        count: u64,
    },
}

/// The page filled.
#[derive(Debug)]
pub struct Page {
    /// Results skipped before it.
    pub offset: usize,
    /// The most results it holds.
    pub limit: usize,
    /// Results seen, those before the page included.
    pub seen: usize,
    /// Its results.
    pub items: Vec<Item>,
    /// Whether a result after the page exists.
    pub more: bool,
}

impl Page {
    /// Takes a result; `false` once the page is full and one more result was seen.
    fn push(&mut self, item: Item) -> bool {
        if self.seen >= self.offset + self.limit {
            self.more = true;
            return false;
        }
        if self.seen >= self.offset {
            self.items.push(item);
        }
        self.seen += 1;
        true
    }
}

/// What a content search scanned, and what it did not.
#[derive(Debug, Default)]
pub struct Scan {
    /// Files scanned.
    pub files: usize,
    /// Their bytes.
    pub bytes: u64,
    /// Files skipped as binary.
    pub binary: usize,
    /// Files that did not fit the remaining scan budget.
    pub over_budget: usize,
    /// Files that could not be read.
    pub unreadable: usize,
    /// The file count of the budget stopped the walk.
    pub files_exhausted: bool,
}

impl Scan {
    /// Files skipped, for whatever reason.
    pub fn skipped(&self) -> usize {
        self.binary + self.over_budget + self.unreadable
    }
}

/// What a search found.
#[derive(Debug)]
pub struct PageOutcome {
    /// The page.
    pub page: Page,
    /// What a content search scanned.
    pub scan: Scan,
    /// What the walk passed over on the way to the page.
    pub skipped: Skipped,
}

/// How this search reads a file (see the module documentation).
pub(crate) fn rule() -> TextRule {
    TextRule {
        binary: Binary::Head(SNIFF),
        decode: Decode::Wide,
        max_bytes: Some(MAX_BYTES),
        max_line: Some(LINE_CAP),
        ..TextRule::default()
    }
}

fn cancelled() -> ToolError {
    ToolError::new(ErrorKind::Cancelled, "the search was cancelled")
}

/// Searches `target` (a directory or one file, `meta` its metadata) for `query`'s page. Each file searched is ticked to `ctx` ("files scanned"; when ordered by modification,
/// "files listed" first); a cancelled `ctx` stops the search with an error. What the walk
/// passed over is shown by `show`.
pub fn search(
    access: &Access,
    target: &Resolved,
    meta: &Meta,
    query: &PageQuery<'_>,
    show: impl Fn(&Path) -> String,
    ctx: &CallContext,
) -> Result<PageOutcome> {
    let skips = Arc::new(Skips::default());
    let cap = query.offset.saturating_add(query.limit).saturating_add(1);
    let mut sink = Pages {
        page: Page {
            offset: query.offset,
            limit: query.limit,
            seen: 0,
            items: Vec::new(),
            more: false,
        },
        scan: Scan::default(),
        skips: Arc::clone(&skips),
        count_secrets: false,
    };
    let done = |sink: Pages| PageOutcome {
        page: sink.page,
        scan: sink.scan,
        skipped: skips.skipped(&show),
    };
    let root = &target.path;
    if !meta.is_dir {
        let name = root
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        if !(query.keep)(root, &name) {
            return Ok(done(sink));
        }
        if ctx.is_cancelled() {
            return Err(cancelled());
        }
        match &query.target {
            Target::Files => {
                sink.page.push(Item::File { path: root.clone() });
            }
            Target::Content(regex, mode) => {
                ctx.tick(1, "files scanned");
                let search = PageSearch {
                    access,
                    regex,
                    mode: *mode,
                    cap,
                    rule: rule(),
                };
                let read = match access.open_regular_nofollow(target) {
                    Ok((mut file, _)) => {
                        let large = Mutex::new(Vec::new());
                        let mut scanner = Scanner::new(&large);
                        search.read(&mut scanner, &mut file, None)
                    }
                    Err(_) => FileRead::Unreadable,
                };
                sink.take(Found::File {
                    path: root.clone(),
                    len: meta.len,
                    read,
                });
            }
        }
        return Ok(done(sink));
    }
    let files = IgnoreFiles {
        only_beneath: access.is_ignored(root, true),
        ..IgnoreFiles::standard()
    };
    let walk = access.walk(root, WalkOptions::new(WalkRule::Ignore(files)), &skips);
    // A walk on kept listings counts the non-accessible files it passes over; one asking the
    // rule entry by entry leaves them out unsaid, as picoclaw always has there.
    sink.count_secrets = walk.as_ref().is_ok_and(|w| w.on_kept_listings());
    let walk: Box<dyn Iterator<Item = Step>> = match walk {
        Ok(walk) => Box::new(walk),
        Err(e) => Box::new(std::iter::once(Step::Passed(Passed::Folder(
            root.clone(),
            e,
        )))),
    };
    let kept = |file: &WalkedFile| {
        let path = file.path();
        let rel = path.strip_prefix(root).unwrap_or(&path).to_string_lossy();
        (query.keep)(&path, &rel)
    };
    let mut steps: Box<dyn Iterator<Item = Step>> = Box::new(walk.filter(|step| match step {
        Step::File(file) => kept(file),
        _ => true,
    }));
    if query.order == Order::Modified {
        // Every file is listed first, what the walk passes over taken on the way.
        let mut all = Vec::new();
        for step in steps {
            if ctx.is_cancelled() {
                return Err(cancelled());
            }
            match step {
                Step::File(file) => {
                    ctx.tick(1, "files listed");
                    if let Ok(meta) = access.walked_meta(&file) {
                        all.push((meta.mtime, file.path(), file));
                    }
                }
                Step::Passed(passed) => {
                    sink.passed(passed);
                }
                Step::Link(_) | Step::Entry(_) => {}
            }
        }
        all.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
        steps = Box::new(all.into_iter().map(|(_, _, file)| Step::File(file)));
    }
    match &query.target {
        Target::Files => {
            for step in steps {
                if ctx.is_cancelled() {
                    return Err(cancelled());
                }
                let go_on = match step {
                    Step::File(file) => sink.page.push(Item::File { path: file.path() }),
                    Step::Passed(passed) => sink.passed(passed),
                    Step::Link(_) | Step::Entry(_) => true,
                };
                if !go_on {
                    break;
                }
            }
        }
        Target::Content(regex, mode) => {
            let search = PageSearch {
                access,
                regex,
                mode: *mode,
                cap,
                rule: rule(),
            };
            if run(steps, &search, &mut sink, ctx, "files scanned") == Ended::Cancelled {
                return Err(cancelled());
            }
        }
    }
    Ok(done(sink))
}

/// What a worker found in one file.
enum Found {
    /// Gone before it could be looked at.
    Dropped,
    /// A file of `len` bytes, and what reading it gave.
    File {
        path: PathBuf,
        len: u64,
        read: FileRead,
    },
}

/// What reading one file gave.
enum FileRead {
    /// It could not be read.
    Unreadable,
    /// It is binary.
    Binary,
    /// It is larger than the whole budget.
    TooLarge,
    /// Its text was searched (`failed`: reading failed part-way, what it gave stands).
    Text {
        blocks: Vec<Vec<(u64, Vec<u8>, bool)>>,
        matched: bool,
        count: u64,
        failed: bool,
    },
}

/// Searches one file's lines.
struct PageSearch<'a> {
    access: &'a Access,
    regex: &'a BytesRegex,
    mode: Mode,
    /// The most results one file can add to a page.
    cap: usize,
    rule: TextRule,
}

impl PageSearch<'_> {
    /// Reads the open `file` (of length `len`, when known) and matches its lines.
    fn read(
        &self,
        scanner: &mut Scanner,
        file: &mut crate::access::OpenFile,
        len: Option<u64>,
    ) -> FileRead {
        let mut lines = PageLines {
            search: self,
            blocks: Blocks::new(match self.mode {
                Mode::Lines { context } => context,
                _ => 0,
            }),
            out: Vec::new(),
            matched: false,
            count: 0,
        };
        let failed = match scanner.read(file, len, &self.rule, &mut lines) {
            Read::Text => false,
            Read::Failed(_) => true,
            Read::Binary => return FileRead::Binary,
            Read::TooLarge(_) => return FileRead::TooLarge,
            Read::Unreadable(_) => return FileRead::Unreadable,
        };
        let PageLines {
            mut blocks,
            mut out,
            matched,
            count,
            ..
        } = lines;
        blocks.finish(&mut |l| out.push(l));
        FileRead::Text {
            blocks: out,
            matched,
            count,
            failed,
        }
    }
}

impl FileSearch for PageSearch<'_> {
    type Tools = ();
    type Found = Found;

    fn tools(&self) {}

    fn search(&self, _: &mut (), scanner: &mut Scanner, file: WalkedFile) -> Found {
        let Ok(meta) = self.access.walked_meta(&file) else {
            return Found::Dropped;
        };
        let read = match scanner.open(self.access, &file) {
            Ok((mut opened, len)) => self.read(scanner, &mut opened, len),
            Err(_) => FileRead::Unreadable,
        };
        Found::File {
            path: file.path(),
            len: meta.len,
            read,
        }
    }
}

/// A file's lines, matched one by one.
struct PageLines<'a> {
    search: &'a PageSearch<'a>,
    blocks: Blocks,
    out: Vec<Vec<(u64, Vec<u8>, bool)>>,
    matched: bool,
    count: u64,
}

impl Lines for PageLines<'_> {
    fn lines(&mut self, text: &[u8], first: u64) -> Flow {
        for (n, line) in (first..).zip(text.split_inclusive(|&b| b == b'\n')) {
            let content = lines::strip_ending(line);
            let matched = self.search.regex.is_match(content);
            match self.search.mode {
                Mode::FilesOnly if matched => {
                    self.matched = true;
                    return Flow::Enough;
                }
                Mode::FilesOnly => {}
                Mode::Count => self.count += u64::from(matched),
                Mode::Lines { .. } => {
                    let out = &mut self.out;
                    self.blocks.line(n, content, matched, &mut |l| out.push(l));
                    if self.out.len() >= self.search.cap {
                        return Flow::Enough;
                    }
                }
            }
        }
        Flow::More
    }

    fn restart(&mut self) {
        self.blocks = Blocks::new(self.blocks.context);
        self.out.clear();
        self.matched = false;
        self.count = 0;
    }
}

/// The page, taken file by file in the walk's order, under the scan budget.
struct Pages {
    page: Page,
    scan: Scan,
    skips: Arc<Skips>,
    /// Whether non-accessible files passed over are counted.
    count_secrets: bool,
}

impl Sink<Found> for Pages {
    fn take(&mut self, found: Found) -> bool {
        let Found::File { path, len, read } = found else {
            return true;
        };
        let scan = &mut self.scan;
        if scan.files >= MAX_FILES {
            scan.files_exhausted = true;
            return false;
        }
        if scan.bytes.saturating_add(len) > MAX_BYTES {
            scan.over_budget += 1;
            return true;
        }
        let (blocks, matched, count) = match read {
            FileRead::Unreadable => {
                scan.unreadable += 1;
                return true;
            }
            FileRead::Binary => {
                scan.binary += 1;
                return true;
            }
            FileRead::TooLarge => {
                scan.over_budget += 1;
                return true;
            }
            FileRead::Text {
                blocks,
                matched,
                count,
                failed,
            } => {
                scan.files += 1;
                scan.bytes = scan.bytes.saturating_add(len);
                if failed {
                    scan.unreadable += 1;
                }
                (blocks, matched, count)
            }
        };
        if matched {
            return self.page.push(Item::File { path });
        }
        if count > 0 {
            return self.page.push(Item::Count { path, count });
        }
        for lines in blocks {
            let item = Item::Lines {
                path: path.clone(),
                lines,
            };
            if !self.page.push(item) {
                return false;
            }
        }
        true
    }

    fn passed(&mut self, passed: Passed) -> bool {
        if self.count_secrets || !matches!(passed, Passed::NonAccessible(_)) {
            self.skips.count(&passed);
        }
        true
    }
}

/// Builds a file's results from its lines: single matching lines without context, merged
/// blocks with it.
struct Blocks {
    context: u64,
    /// The last `context` lines seen.
    ring: VecDeque<(u64, Vec<u8>)>,
    current: Option<Block>,
    /// Context lines still to add after the last match.
    after: u64,
}

struct Block {
    first: u64,
    last_included: u64,
    last_match: u64,
    lines: Vec<(u64, Vec<u8>, bool)>,
}

type Emit<'e> = dyn FnMut(Vec<(u64, Vec<u8>, bool)>) + 'e;

impl Blocks {
    fn new(context: u64) -> Blocks {
        Blocks {
            context,
            ring: VecDeque::new(),
            current: None,
            after: 0,
        }
    }

    fn line(&mut self, n: u64, text: &[u8], matched: bool, emit: &mut Emit<'_>) {
        let c = self.context;
        if c == 0 {
            if matched {
                emit(vec![(n, text.to_vec(), true)]);
            }
            return;
        }
        if matched {
            let low = n.saturating_sub(c).max(1);
            let mut start = low;
            if let Some(block) = self.current.as_mut() {
                let touching = low <= block.last_match + c + 1;
                if touching && n + c + 1 - block.first <= BLOCK_LINES {
                    for (ln, t) in &self.ring {
                        if *ln > block.last_included {
                            block.lines.push((*ln, t.clone(), false));
                        }
                    }
                    block.lines.push((n, text.to_vec(), true));
                    block.last_included = n;
                    block.last_match = n;
                    self.after = c;
                    self.remember(n, text);
                    return;
                }
                if touching {
                    start = block.last_included + 1;
                }
                if let Some(done) = self.current.take() {
                    emit(done.lines);
                }
            }
            let mut lines: Vec<(u64, Vec<u8>, bool)> = self
                .ring
                .iter()
                .filter(|(ln, _)| *ln >= start)
                .map(|(ln, t)| (*ln, t.clone(), false))
                .collect();
            lines.push((n, text.to_vec(), true));
            self.current = Some(Block {
                first: lines.first().map_or(n, |l| l.0),
                last_included: n,
                last_match: n,
                lines,
            });
            self.after = c;
        } else if self.after > 0
            && let Some(block) = self.current.as_mut()
        {
            block.lines.push((n, text.to_vec(), false));
            block.last_included = n;
            self.after -= 1;
        }
        self.remember(n, text);
    }

    fn remember(&mut self, n: u64, text: &[u8]) {
        if self.context == 0 {
            return;
        }
        self.ring.push_back((n, text.to_vec()));
        while self.ring.len() as u64 > self.context {
            self.ring.pop_front();
        }
    }

    fn finish(&mut self, emit: &mut Emit<'_>) {
        if let Some(block) = self.current.take() {
            emit(block.lines);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blocks(context: u64, matches: &[u64], total: u64) -> Vec<Vec<u64>> {
        let mut b = Blocks::new(context);
        let mut out = Vec::new();
        for n in 1..=total {
            b.line(n, b"x", matches.contains(&n), &mut |l| {
                out.push(l.iter().map(|x| x.0).collect())
            });
        }
        b.finish(&mut |l| out.push(l.iter().map(|x| x.0).collect()));
        out
    }

    #[test]
    fn touching_ranges_merge_and_distant_ones_do_not() {
        assert_eq!(blocks(1, &[2, 4], 10), vec![vec![1, 2, 3, 4, 5]]);
        assert_eq!(blocks(1, &[2, 5], 10), vec![vec![1, 2, 3, 4, 5, 6]]);
        assert_eq!(blocks(1, &[2, 6], 10), vec![vec![1, 2, 3], vec![5, 6, 7]]);
        assert_eq!(blocks(0, &[2, 3], 10), vec![vec![2], vec![3]]);
    }

    #[test]
    fn long_blocks_split_at_fifty_lines_without_repeating_lines() {
        let matches: Vec<u64> = (1..=100).step_by(5).collect();
        let out = blocks(3, &matches, 120);
        let all: Vec<u64> = out.iter().flatten().copied().collect();
        let mut sorted = all.clone();
        sorted.dedup();
        assert_eq!(all, sorted, "no line twice");
        assert!(out.iter().all(|b| b.len() <= 50));
        assert_eq!(all.first(), Some(&1));
        assert_eq!(all.last(), Some(&99));
    }
}
