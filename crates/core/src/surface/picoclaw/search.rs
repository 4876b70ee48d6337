//! search_files: a regular expression over file contents, or a filename pattern over paths,
//! with offset/limit pages of results.
//!
//! **Results.** A content search's result is a matching line (`context` 0) or a context block:
//! the ranges `match - context ..= match + context` of a file's matches are merged when they
//! overlap or touch (as ripgrep does), and a merged block is split before it would exceed 50
//! lines, at a match, so every block holds at least one match and no line is shown twice.
//! `files_only` makes each matching file a result, `count` each matching file with its count,
//! and `target: "files"` each file whose path matches. `offset` skips that many results and
//! `limit` (default 50, at most 200) bounds the page; results come in a fixed order (the walk's
//! path order, or newest modification first), so consecutive pages neither repeat nor skip. A
//! page also ends before the result that would take it over `tools.max_inline_result_chars`
//! (it keeps at least one), so it is never spilled with its middle unseen.
//!
//! **Output.** A header line (`Results A-B of N.` or `Results A-B of at least B+1.`, followed by
//! `More results: ... offset=B.` whenever results after B exist, and a sentence when the inline
//! limit ended the page), for content searches the scan counts, when the walk passed over
//! something (a folder it could not list, a symbolic link that loops, an ignore file it did
//! not read) a line saying what (`Passed over by the walk: 1 unreadable folder.`), then the
//! results:
//! `path:line:text` for matching lines and `path-line-text` for context lines, blocks separated
//! by `--`. A line's text is at most 240 bytes; when the match lies beyond the cut, the shown
//! window moves to keep it visible, with `…` on each cut side. Matched and context lines are
//! scrubbed of credentials.
//!
//! **Scanning.** Directory walks honour `.gitignore`/`.ignore` (nested, negations, `.ignore`
//! over `.gitignore`, deeper over shallower) and skip `.git`, protected credential paths and
//! the artifact folders (`.picoclaw/tool-results`, `.fsgate/artifacts`: stale copies of
//! results); a path given explicitly is searched even when it or its ancestors are ignored. A
//! folder is walked on handles where it can be (`Access::listed_walk`): each folder opened from
//! its parent's handle and each file from its folder's, without following a link, so nothing
//! swapped into the tree meanwhile (in the workspace or a granted folder) leads names or
//! contents out of it; a file named as `path` is opened without following a link at its last
//! component. Files are streamed line by line; a line is kept up to 1 MiB (longer
//! lines are cut before matching). A NUL byte in a file's first 8 KiB marks it binary and skips
//! it, unless the file starts with a UTF-16 or UTF-32 byte-order mark: such a file is text, and
//! its decoded text is searched (lines as line-mode read_file numbers them, texts as edit_file
//! finds them); other encodings are scanned as bytes (matching is on UTF-8). Content searches are bounded
//! by a scan budget of 5,000 files and 64 MiB: a file that no longer fits the remaining bytes is
//! skipped and the walk goes on; reaching the file count stops the walk.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use globset::{GlobBuilder, GlobMatcher};
use regex::bytes::Regex as BytesRegex;
use serde_json::Value;

use super::super::ToolOutput;
use super::super::args::Args;
use super::Call;
use super::policy::{Op, protected};
use crate::access::ignore::{CountedWalk, IgnoreFiles, Links};
use crate::access::walk::WalkedFile;
use crate::access::walkdir::{OpenDir, Skips};
use crate::access::{Access, Resolved};
use crate::error::{ErrorKind, Result, ToolError};
use crate::ops::artifacts;
use crate::text::{encoding, lines, redact};

/// Results of a call that names no limit.
pub const DEFAULT_LIMIT: u64 = 50;
/// The most results one call returns.
pub const MAX_LIMIT: u64 = 200;
/// The most context lines around a match.
pub const MAX_CONTEXT: u64 = 20;
/// The most lines of one context block.
const BLOCK_LINES: u64 = 50;
/// The scan budget: files...
const MAX_FILES: usize = 5_000;
/// ...and bytes of file content.
const MAX_BYTES: u64 = 64 * 1024 * 1024;
/// The longest line kept (and matched).
const LINE_CAP: usize = 1024 * 1024;
/// How much of a file decides whether it is binary.
const SNIFF: usize = 8 * 1024;
/// The most bytes of a result line's text.
const OUT_LINE_BYTES: usize = 240;
const ELLIPSIS: &str = "…";

#[derive(Clone, Copy, PartialEq, Eq)]
enum Target {
    Content,
    Files,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum OutputMode {
    Content,
    FilesOnly,
    Count,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Order {
    Discovery,
    Modified,
}

fn choice<T: Copy>(args: &Args<'_>, key: &str, default: T, options: &[(&str, T)]) -> Result<T> {
    match args.opt_str(key)? {
        None => Ok(default),
        Some(v) if v.trim().is_empty() => Ok(default),
        Some(v) => options
            .iter()
            .find(|(name, _)| *name == v.trim())
            .map(|(_, t)| *t)
            .ok_or_else(|| {
                let names: Vec<String> = options.iter().map(|(n, _)| format!("{n:?}")).collect();
                ToolError::invalid(format!("{key} {v:?} is not one of {}", names.join(", ")))
            }),
    }
}

/// A filename pattern in one of its three forms.
enum NamePattern {
    All,
    Substring(String),
    Glob {
        matcher: GlobMatcher,
        whole_path: bool,
    },
}

impl NamePattern {
    fn new(pattern: &str, key: &str) -> Result<NamePattern> {
        if pattern.is_empty() {
            return Ok(NamePattern::All);
        }
        if !pattern.contains(['*', '?', '[', '{']) {
            return Ok(NamePattern::Substring(pattern.to_string()));
        }
        let glob = GlobBuilder::new(pattern)
            .literal_separator(true)
            .build()
            .map_err(|e| {
                ToolError::invalid(format!("{key} {pattern:?} is not a valid glob: {e}"))
            })?;
        Ok(NamePattern::Glob {
            matcher: glob.compile_matcher(),
            whole_path: pattern.contains('/'),
        })
    }

    /// Whether the file at `rel` (relative to the search root, `/`-separated) matches.
    fn matches(&self, rel: &str) -> bool {
        match self {
            NamePattern::All => true,
            NamePattern::Substring(s) => rel.contains(s.as_str()),
            NamePattern::Glob {
                matcher,
                whole_path,
            } => {
                if *whole_path {
                    matcher.is_match(rel)
                } else {
                    matcher.is_match(rel.rsplit('/').next().unwrap_or(rel))
                }
            }
        }
    }
}

/// One result.
enum Item {
    /// A matching line or a context block: (line number, text, whether it matched).
    Lines {
        path: String,
        lines: Vec<(u64, Vec<u8>, bool)>,
    },
    File {
        path: String,
    },
    Count {
        path: String,
        count: u64,
    },
}

/// The page being filled.
struct Page {
    offset: usize,
    limit: usize,
    seen: usize,
    items: Vec<Item>,
    more: bool,
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

#[derive(Default)]
struct Scan {
    files: usize,
    bytes: u64,
    binary: usize,
    over_budget: usize,
    unreadable: usize,
    files_exhausted: bool,
}

impl Scan {
    fn skipped(&self) -> usize {
        self.binary + self.over_budget + self.unreadable
    }
}

/// A candidate file: its path, shown path, path relative to the search root, size, mtime, and
/// how it is opened.
struct Candidate {
    path: PathBuf,
    shown: String,
    rel: String,
    len: u64,
    mtime: i64,
    open: Open,
}

/// How a candidate file is opened.
enum Open {
    /// Found by a walk on folder handles: from its folder's handle, without following a link.
    Listed(WalkedFile),
    /// Found by a walk by path: beneath the access layer's root.
    Walked,
    /// The file named by `path`: its last component without following a link.
    Named(Resolved),
}

pub(super) fn search_files(call: &Call<'_>, args: Value) -> Result<ToolOutput> {
    let args = Args::parse(
        "search_files",
        args,
        &[
            "pattern",
            "target",
            "path",
            "file_glob",
            "limit",
            "offset",
            "order",
            "output_mode",
            "context",
        ],
    )?;
    let pattern = args.str("pattern")?;
    let target = choice(
        &args,
        "target",
        Target::Content,
        &[("content", Target::Content), ("files", Target::Files)],
    )?;
    let mode = choice(
        &args,
        "output_mode",
        OutputMode::Content,
        &[
            ("content", OutputMode::Content),
            ("files_only", OutputMode::FilesOnly),
            ("count", OutputMode::Count),
        ],
    )?;
    let order = choice(
        &args,
        "order",
        Order::Discovery,
        &[
            ("discovery", Order::Discovery),
            ("modified", Order::Modified),
        ],
    )?;
    let limit = match args.opt_uint("limit")? {
        None => DEFAULT_LIMIT,
        Some(0) => {
            return Err(ToolError::invalid(format!(
                "limit must be between 1 and {MAX_LIMIT}"
            )));
        }
        Some(n) => n.min(MAX_LIMIT),
    };
    let offset = args.opt_uint("offset")?.unwrap_or(0);
    let context = args.opt_uint("context")?.unwrap_or(0).min(MAX_CONTEXT);
    let file_glob = match args.opt_str("file_glob")? {
        Some(g) if !g.trim().is_empty() => Some(NamePattern::new(g.trim(), "file_glob")?),
        _ => None,
    };
    let raw = match args.opt_str("path")? {
        Some(p) if !p.trim().is_empty() => p,
        _ => ".",
    };
    let located = call.pico.policy.locate(call.ws, raw, Op::Read)?;
    let access: &Access = &located.access;
    let root = located.resolved.path.clone();
    let meta = access.metadata(&located.resolved).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            ToolError::not_found(format!(
                "failed to search path: {raw} does not exist; pass an existing file or \
                 directory, or leave path out to search the workspace"
            ))
        } else {
            ToolError::from_io(&e, "search", raw)
        }
    })?;
    let mut page = Page {
        offset: usize::try_from(offset).unwrap_or(usize::MAX),
        limit: usize::try_from(limit).unwrap_or(usize::MAX),
        seen: 0,
        items: Vec::new(),
        more: false,
    };
    // Artifact folders hold spilled copies of results and files: left out of every walk.
    let ws_root = call.ws.root().to_path_buf();
    let name_pattern = match target {
        Target::Files => Some(NamePattern::new(pattern, "pattern")?),
        Target::Content => None,
    };
    let keep = |c: &Candidate| {
        file_glob.as_ref().is_none_or(|g| g.matches(&c.rel))
            && name_pattern.as_ref().is_none_or(|p| p.matches(&c.rel))
    };
    let shown_root = ws_root.clone();
    let shown = std::rc::Rc::new(move |p: &Path| display(&shown_root, p));
    let skips = Arc::new(Skips::default());
    let listed = if meta.is_dir && !access.is_ignored(&root, true) {
        access.counted_listed_walk(&root, &skips)
    } else {
        None
    };
    let candidates: Box<dyn Iterator<Item = Candidate>> = if let Some(listed) = listed {
        // On folder handles: each folder opened from its parent's without following a link, so
        // nothing swapped into the tree meanwhile leads the walk (names or contents) out of it.
        let ws_root = ws_root.clone();
        let root = root.clone();
        let shown = shown.clone();
        let mut folder: Option<(PathBuf, OpenDir)> = None;
        let walk = listed.filter_map(move |file| {
            let path = file.path();
            if protected(&path).is_some() || artifacts::is_artifact(&ws_root, &path) {
                return None;
            }
            let meta = match file.dir() {
                Some(dir) => dir.entry_meta(file.name()).ok()?,
                None => {
                    if folder.as_ref().is_none_or(|(p, _)| p != file.folder_path()) {
                        let dir = access.open_walked_dir(file.folder_path()).ok()?;
                        folder = Some((file.folder_path().to_path_buf(), dir));
                    }
                    folder.as_ref()?.1.entry_meta(file.name()).ok()?
                }
            };
            let rel = path
                .strip_prefix(&root)
                .unwrap_or(&path)
                .to_string_lossy()
                .into_owned();
            Some(Candidate {
                shown: shown(&path),
                path,
                rel,
                len: meta.len,
                mtime: meta.mtime,
                open: Open::Listed(file),
            })
        });
        Box::new(walk)
    } else if meta.is_dir {
        let walk = walk(access, &root, &skips).filter_map(move |entry| {
            if !entry.file_type().is_some_and(|t| t.is_file()) {
                return None;
            }
            let path = entry.path();
            if protected(path).is_some()
                || artifacts::is_artifact(&ws_root, path)
                || access.is_secret_path(path)
            {
                return None;
            }
            let meta = entry.metadata().ok()?;
            let rel = path
                .strip_prefix(&root)
                .unwrap_or(path)
                .to_string_lossy()
                .into_owned();
            Some(Candidate {
                shown: shown(path),
                path: path.to_path_buf(),
                rel,
                len: meta.len(),
                mtime: mtime(&meta),
                open: Open::Walked,
            })
        });
        Box::new(walk)
    } else {
        let path = located.resolved.path.clone();
        let rel = path
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        Box::new(std::iter::once(Candidate {
            shown: shown(&path),
            path,
            rel,
            len: meta.len,
            mtime: meta.mtime,
            open: Open::Named(located.resolved.clone()),
        }))
    };
    let mut candidates: Box<dyn Iterator<Item = Candidate>> =
        Box::new(candidates.filter(|c| keep(c)));
    if order == Order::Modified {
        let mut all: Vec<Candidate> = Vec::new();
        for c in candidates {
            if call.ctx.is_cancelled() {
                return Err(cancelled());
            }
            call.ctx.tick(1, "files listed");
            all.push(c);
        }
        all.sort_by(|a, b| b.mtime.cmp(&a.mtime).then_with(|| a.path.cmp(&b.path)));
        candidates = Box::new(all.into_iter());
    }
    let mut scan = Scan::default();
    match target {
        Target::Files => {
            for c in candidates {
                if call.ctx.is_cancelled() {
                    return Err(cancelled());
                }
                if !page.push(Item::File { path: c.shown }) {
                    break;
                }
            }
        }
        Target::Content => {
            let regex = BytesRegex::new(pattern).map_err(|e| {
                ToolError::invalid(format!("invalid regex pattern {pattern:?}: {e}"))
            })?;
            for c in candidates {
                if call.ctx.is_cancelled() {
                    return Err(cancelled());
                }
                call.ctx.tick(1, "files scanned");
                if scan.files >= MAX_FILES {
                    scan.files_exhausted = true;
                    break;
                }
                if scan.bytes.saturating_add(c.len) > MAX_BYTES {
                    scan.over_budget += 1;
                    continue;
                }
                let go_on = scan_file(access, &c, &regex, mode, context, &mut scan, &mut page);
                if !go_on {
                    break;
                }
            }
        }
    }
    let display_regex = match target {
        Target::Content => regex::Regex::new(pattern).ok(),
        Target::Files => None,
    };
    let inline = usize::try_from(call.pico.config().max_inline_result_chars).unwrap_or(usize::MAX);
    let walked = skips.skipped(|p| display(call.ws.root(), p)).describe();
    Ok(ToolOutput::text(render(
        &page,
        &scan,
        &Shape {
            target,
            mode,
            context,
            inline,
            walked,
        },
        display_regex.as_ref(),
    )))
}

fn cancelled() -> ToolError {
    ToolError::new(ErrorKind::Cancelled, "the search was cancelled")
}

fn mtime(meta: &std::fs::Metadata) -> i64 {
    use std::os::unix::fs::MetadataExt;
    meta.mtime()
}

/// How a path is shown: relative to the workspace when inside it, else absolute.
fn display(ws_root: &Path, path: &Path) -> String {
    match path.strip_prefix(ws_root) {
        Ok(rel) if rel.as_os_str().is_empty() => ".".to_string(),
        Ok(rel) => crate::text::names::show_path(rel),
        Err(_) => crate::text::names::show_path(path),
    }
}

/// The walk of `root` under the ignore rule, counting what it passes over in `skips`. A root
/// the rule itself excludes was named explicitly, so it is walked with only the ignore files
/// found beneath it.
fn walk<'a>(access: &'a Access, root: &Path, skips: &Arc<Skips>) -> CountedWalk<'a> {
    let files = IgnoreFiles {
        only_beneath: access.is_ignored(root, true),
        ..IgnoreFiles::standard()
    };
    access.counted_walk(root, None, &files, skips, Links::PassOver)
}

/// Scans one file; `false` when the page is complete and the search should stop.
fn scan_file(
    access: &Access,
    c: &Candidate,
    regex: &BytesRegex,
    mode: OutputMode,
    context: u64,
    scan: &mut Scan,
    page: &mut Page,
) -> bool {
    let opened = match &c.open {
        Open::Listed(file) => match file.dir() {
            Some(dir) => access.open_walked_at(dir, file.name()).map(|(f, _)| f),
            None => access
                .open_walked_dir(file.folder_path())
                .and_then(|dir| access.open_walked_at(&dir, file.name()))
                .map(|(f, _)| f),
        },
        Open::Walked => access.open_walked(&c.path),
        Open::Named(resolved) => access.open_regular_nofollow(resolved).map(|(f, _)| f),
    };
    let Ok(file) = opened else {
        scan.unreadable += 1;
        return true;
    };
    let mut reader = BufReader::with_capacity(64 * 1024, file);
    let Ok(head) = reader.fill_buf() else {
        scan.unreadable += 1;
        return true;
    };
    let sniff = &head[..head.len().min(SNIFF)];
    let mut reader: Box<dyn BufRead> = if encoding::wide_bom(sniff).is_some() {
        // UTF-16/32 text: its decoded text is searched (the file fits the scan budget).
        let mut bytes = Vec::new();
        if reader.read_to_end(&mut bytes).is_err() {
            scan.unreadable += 1;
            return true;
        }
        let text = encoding::decode(&bytes, None).text;
        Box::new(std::io::Cursor::new(text.into_bytes()))
    } else if encoding::looks_binary(sniff) {
        scan.binary += 1;
        return true;
    } else {
        Box::new(reader)
    };
    scan.files += 1;
    scan.bytes = scan.bytes.saturating_add(c.len);
    let mut blocks = Blocks::new(context);
    let mut count: u64 = 0;
    let mut n: u64 = 0;
    let mut buf = Vec::new();
    loop {
        match next_line(&mut reader, &mut buf) {
            Ok(true) => {}
            Ok(false) => break,
            Err(_) => {
                scan.unreadable += 1;
                break;
            }
        }
        n += 1;
        let content = lines::strip_ending(&buf);
        let matched = regex.is_match(content);
        match mode {
            OutputMode::FilesOnly => {
                if matched {
                    return page.push(Item::File {
                        path: c.shown.clone(),
                    });
                }
            }
            OutputMode::Count => count += u64::from(matched),
            OutputMode::Content => {
                let mut go_on = true;
                blocks.line(n, content, matched, &mut |lines| {
                    go_on = go_on
                        && page.push(Item::Lines {
                            path: c.shown.clone(),
                            lines,
                        });
                });
                if !go_on {
                    return false;
                }
            }
        }
    }
    match mode {
        OutputMode::Count if count > 0 => page.push(Item::Count {
            path: c.shown.clone(),
            count,
        }),
        OutputMode::Content => {
            let mut go_on = true;
            blocks.finish(&mut |lines| {
                go_on = go_on
                    && page.push(Item::Lines {
                        path: c.shown.clone(),
                        lines,
                    });
            });
            go_on
        }
        _ => true,
    }
}

/// Reads the next line into `buf` (its ending included), keeping at most [`LINE_CAP`] bytes;
/// `false` at the end of the file.
fn next_line(reader: &mut impl BufRead, buf: &mut Vec<u8>) -> std::io::Result<bool> {
    buf.clear();
    let mut any = false;
    loop {
        let chunk = reader.fill_buf()?;
        if chunk.is_empty() {
            return Ok(any);
        }
        any = true;
        let (part, done) = match memchr::memchr(b'\n', chunk) {
            Some(at) => (&chunk[..=at], true),
            None => (chunk, false),
        };
        let room = LINE_CAP.saturating_sub(buf.len());
        buf.extend_from_slice(&part[..part.len().min(room)]);
        let used = part.len();
        reader.consume(used);
        if done {
            return Ok(true);
        }
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

/// How a page is rendered.
struct Shape {
    target: Target,
    mode: OutputMode,
    context: u64,
    /// The most characters of the result (`tools.max_inline_result_chars`).
    inline: usize,
    /// What the walk passed over, in words (`None`: nothing).
    walked: Option<String>,
}

fn render(page: &Page, scan: &Scan, shape: &Shape, regex: Option<&regex::Regex>) -> String {
    let Shape {
        target,
        mode,
        context,
        inline,
        ref walked,
    } = *shape;
    let content = target == Target::Content;
    let walked = walked
        .as_ref()
        .map(|what| format!("Passed over by the walk: {what}."));
    let mut scanned = if content {
        let mut details = Vec::new();
        if scan.binary > 0 {
            details.push(format!("{} binary", scan.binary));
        }
        if scan.over_budget > 0 {
            details.push(format!("{} over the scan budget", scan.over_budget));
        }
        if scan.unreadable > 0 {
            details.push(format!("{} unreadable", scan.unreadable));
        }
        let details = if details.is_empty() {
            String::new()
        } else {
            format!(" ({})", details.join(", "))
        };
        let mut s = format!(
            "Files scanned: {}, skipped: {}{details}",
            scan.files,
            scan.skipped()
        );
        if scan.files_exhausted {
            s.push_str(&format!(
                "\nScan budget reached ({MAX_FILES} files): the search stopped before the end \
                 of the tree; narrow path or file_glob to search the rest."
            ));
        } else if scan.over_budget > 0 {
            s.push_str(&format!(
                "\nScan budget: {} file(s) did not fit the remaining {} MiB of the scan budget \
                 and were skipped; narrow path or file_glob to search them.",
                scan.over_budget,
                MAX_BYTES / (1024 * 1024)
            ));
        }
        s
    } else {
        String::new()
    };
    if let Some(walked) = walked {
        if !scanned.is_empty() {
            scanned.push('\n');
        }
        scanned.push_str(&walked);
    }
    if page.seen == 0 {
        return if content {
            format!("No matches found. {scanned}")
        } else if scanned.is_empty() {
            "No files matched.".to_string()
        } else {
            format!("No files matched.\n{scanned}")
        };
    }
    if page.items.is_empty() {
        return format!(
            "No results at offset {}: the search has {} result{}. Call search_files again with \
             a smaller offset.{}",
            page.offset,
            page.seen,
            if page.seen == 1 { "" } else { "s" },
            if scanned.is_empty() {
                String::new()
            } else {
                format!("\n{scanned}")
            }
        );
    }
    let kind = match (target, mode) {
        (Target::Files, _) => "files",
        (Target::Content, OutputMode::FilesOnly) => "files with matches",
        (Target::Content, OutputMode::Count) => "files with match counts",
        (Target::Content, OutputMode::Content) if context > 0 => "context blocks",
        (Target::Content, OutputMode::Content) => "matching lines",
    };
    let items: Vec<String> = page
        .items
        .iter()
        .map(|item| render_item(item, regex))
        .collect();
    let separator = if context > 0 { "--\n" } else { "" };
    // The header of a page showing the first `shown` results.
    let header = |shown: usize| {
        let first = page.offset + 1;
        let last = page.offset + shown;
        let cut = shown < items.len();
        let mut h = if page.more || cut {
            let total = if page.more {
                format!("at least {}", page.offset + items.len() + 1)
            } else {
                page.seen.to_string()
            };
            format!(
                "Results {first}-{last} of {total} ({kind}). More results: call search_files \
                 again with offset={last}."
            )
        } else {
            format!("Results {first}-{last} of {} ({kind}).", page.seen)
        };
        if cut {
            h.push_str(&format!(
                " This page ends early: more results would not fit the {inline}-character \
                 inline result limit."
            ));
        }
        if !scanned.is_empty() {
            h.push('\n');
            h.push_str(&scanned);
        }
        h.push_str("\n\n");
        h
    };
    // As many results as fit inline (at least one): a spilled page would show the model only
    // its head and tail while its header pointed past the middle.
    let sizes: Vec<usize> = items.iter().map(|i| i.chars().count()).collect();
    let body = |shown: usize| {
        (sizes[..shown].iter().sum::<usize>() + separator.len() * shown.saturating_sub(1))
            .saturating_sub(1)
    };
    let mut shown = items.len();
    while shown > 1 && header(shown).chars().count() + body(shown) > inline {
        shown -= 1;
    }
    let mut out = header(shown);
    out.push_str(&items[..shown].join(separator));
    while out.ends_with('\n') {
        out.pop();
    }
    out
}

/// One result's lines, each ended by a newline.
fn render_item(item: &Item, regex: Option<&regex::Regex>) -> String {
    match item {
        Item::File { path } => format!("{path}\n"),
        Item::Count { path, count } => format!("{path}: {count}\n"),
        Item::Lines { path, lines } => {
            let mut out = String::new();
            for (n, text, matched) in lines {
                let text = redact::redact(&String::from_utf8_lossy(text)).into_owned();
                let shown = window(&text, if *matched { regex } else { None });
                let shown = super::spill::guard(&shown, false);
                let sep = if *matched { ':' } else { '-' };
                out.push_str(&format!("{path}{sep}{n}{sep}{shown}\n"));
            }
            out
        }
    }
}

/// `text` cut to [`OUT_LINE_BYTES`] bytes; when the match lies beyond the cut, the window moves
/// to keep it visible, with `…` on each cut side.
fn window(text: &str, regex: Option<&regex::Regex>) -> String {
    if text.len() <= OUT_LINE_BYTES {
        return text.to_string();
    }
    let bytes = text.as_bytes();
    let span = regex
        .and_then(|r| r.find(text).map(|m| (m.start(), m.end())))
        .filter(|(s, e)| e > s)
        .or_else(|| {
            text.find(redact::FILTERED)
                .map(|s| (s, s + redact::FILTERED.len()))
        });
    let room = OUT_LINE_BYTES - ELLIPSIS.len();
    match span {
        Some((_, end)) if end > room => {
            let room = OUT_LINE_BYTES - 2 * ELLIPSIS.len();
            let (start, end) = span.unwrap_or((0, 0));
            let len = (end - start).min(room);
            let lead = (room - len) / 2;
            let mut from = start.saturating_sub(lead);
            let mut to = (from + room).min(text.len());
            if to == text.len() {
                from = text.len().saturating_sub(room);
            }
            from = ceil_char(text, from);
            to = lines::utf8_floor(bytes, to);
            let mut out = String::with_capacity(OUT_LINE_BYTES);
            if from > 0 {
                out.push_str(ELLIPSIS);
            }
            out.push_str(&text[from..to]);
            if to < text.len() {
                out.push_str(ELLIPSIS);
            }
            out
        }
        _ => {
            let cut = lines::utf8_floor(bytes, room);
            format!("{}{ELLIPSIS}", &text[..cut])
        }
    }
}

/// The smallest char boundary at or after `at`.
fn ceil_char(text: &str, mut at: usize) -> usize {
    while at < text.len() && !text.is_char_boundary(at) {
        at += 1;
    }
    at
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

    #[test]
    fn the_window_keeps_a_late_match_visible() {
        let line = format!("{}NEEDLE{}", "a".repeat(400), "b".repeat(300));
        let re = regex::Regex::new("NEEDLE").unwrap();
        let shown = window(&line, Some(&re));
        assert!(shown.len() <= OUT_LINE_BYTES, "{}", shown.len());
        assert!(shown.contains("NEEDLE"));
        assert!(shown.starts_with(ELLIPSIS) && shown.ends_with(ELLIPSIS));
        let early = window(&format!("NEEDLE{}", "c".repeat(400)), Some(&re));
        assert!(early.starts_with("NEEDLE") && early.ends_with(ELLIPSIS));
    }
}
