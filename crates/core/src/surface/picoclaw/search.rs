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
//! results); a path given explicitly is searched even when it or its ancestors are ignored. The
//! search is the engine's pages search ([`crate::ops::scan::sinks::pages`]) on the one walker:
//! each folder opened from its parent's handle and each file from its folder's, without
//! following a link, so nothing swapped into the tree meanwhile (in the workspace or a granted
//! folder) leads names or contents out of it; a file named as `path` is opened without following
//! a link at its last component. Files are read by the shared scanner on a worker per core and
//! taken back in path order; a line is kept up to 1 MiB (longer lines are cut before matching). A NUL byte in a file's first 8 KiB marks it binary and skips
//! it, unless the file starts with a UTF-16 or UTF-32 byte-order mark: such a file is text, and
//! its decoded text is searched (lines as line-mode read_file numbers them, texts as edit_file
//! finds them); other encodings are scanned as bytes (matching is on UTF-8). Content searches are bounded
//! by a scan budget of 5,000 files and 64 MiB: a file that no longer fits the remaining bytes is
//! skipped and the walk goes on; reaching the file count stops the walk.

use std::path::Path;

use globset::{GlobBuilder, GlobMatcher};
use regex::bytes::Regex as BytesRegex;
use serde_json::Value;

use super::super::ToolOutput;
use super::super::args::Args;
use super::Call;
use super::policy::{Op, protected};
use crate::access::Access;
use crate::error::{Result, ToolError};
use crate::ops::artifacts;
use crate::ops::scan::sinks::pages::{self, Item, MAX_BYTES, MAX_FILES, Page, Scan};
use crate::text::{lines, redact};

/// Results of a call that names no limit.
pub const DEFAULT_LIMIT: u64 = 50;
/// The most results one call returns.
pub const MAX_LIMIT: u64 = 200;
/// The most context lines around a match.
pub const MAX_CONTEXT: u64 = 20;
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
    let name_pattern = match target {
        Target::Files => Some(NamePattern::new(pattern, "pattern")?),
        Target::Content => None,
    };
    // Artifact folders hold spilled copies of results and files: left out of every walk.
    let ws_root = call.ws.root();
    let keep = |path: &Path, rel: &str| {
        protected(path).is_none()
            && !artifacts::is_artifact(ws_root, path)
            && file_glob.as_ref().is_none_or(|g| g.matches(rel))
            && name_pattern.as_ref().is_none_or(|p| p.matches(rel))
    };
    let engine_target = match target {
        Target::Files => pages::Target::Files,
        Target::Content => {
            let regex = BytesRegex::new(pattern).map_err(|e| {
                ToolError::invalid(format!("invalid regex pattern {pattern:?}: {e}"))
            })?;
            let mode = match mode {
                OutputMode::Content => pages::Mode::Lines { context },
                OutputMode::FilesOnly => pages::Mode::FilesOnly,
                OutputMode::Count => pages::Mode::Count,
            };
            pages::Target::Content(regex, mode)
        }
    };
    let query = pages::PageQuery {
        target: engine_target,
        order: match order {
            Order::Discovery => pages::Order::Discovery,
            Order::Modified => pages::Order::Modified,
        },
        offset: usize::try_from(offset).unwrap_or(usize::MAX),
        limit: usize::try_from(limit).unwrap_or(usize::MAX),
        keep: &keep,
    };
    let found = pages::search(
        access,
        &located.resolved,
        &meta,
        &query,
        |p| display(ws_root, p),
        call.ctx,
    )?;
    let display_regex = match target {
        Target::Content => regex::Regex::new(pattern).ok(),
        Target::Files => None,
    };
    let inline = usize::try_from(call.pico.config().max_inline_result_chars).unwrap_or(usize::MAX);
    let walked = found.skipped.describe();
    Ok(ToolOutput::text(render(
        &found.page,
        &found.scan,
        &Shape {
            target,
            mode,
            context,
            inline,
            walked,
        },
        display_regex.as_ref(),
        &|p| display(ws_root, p),
    )))
}

/// How a path is shown: relative to the workspace when inside it, else absolute.
fn display(ws_root: &Path, path: &Path) -> String {
    match path.strip_prefix(ws_root) {
        Ok(rel) if rel.as_os_str().is_empty() => ".".to_string(),
        Ok(rel) => crate::text::names::show_path(rel),
        Err(_) => crate::text::names::show_path(path),
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

fn render(
    page: &Page,
    scan: &Scan,
    shape: &Shape,
    regex: Option<&regex::Regex>,
    show: &dyn Fn(&Path) -> String,
) -> String {
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
        .map(|item| render_item(item, regex, show))
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
fn render_item(
    item: &Item,
    regex: Option<&regex::Regex>,
    show: &dyn Fn(&Path) -> String,
) -> String {
    match item {
        Item::File { path } => format!("{}\n", show(path)),
        Item::Count { path, count } => format!("{}: {count}\n", show(path)),
        Item::Lines { path, lines } => {
            let path = show(path);
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
