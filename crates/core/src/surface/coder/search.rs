//! search: file contents and/or root-relative file paths under a folder (or in one file), on the
//! walk-and-match engine of [`crate::ops::scan::sinks::matches`], which documents the matching
//! rules.
//!
//! Where the coder worker's description is silent:
//! - `query` must not be empty, and at least one of `search_content` / `search_paths` must be
//!   true (C210), as in the coder worker.
//! - `search_paths` matches the query against each file's path relative to its containing root
//!   (the form globs use); directories are not reported.
//! - `column` is the 1-based byte offset of the first match within `text` (UTF-8 bytes).
//! - `path` naming a file searches that file alone (its own path and content, globs still
//!   applying); naming a folder that is default-excluded noise searches inside it.
//! - The byte budget counts the UTF-8 bytes of the strings returned: each path match's path; each
//!   content match's path, text and context lines (not the JSON around them).
//! - Each list has its own `max_matches` cap; `truncated` is set when a match beyond a cap is
//!   found or when a match does not fit the budget (which ends the whole search).
//! - Matching considers the first `max_line_bytes` of a line, as the worker says; a longer line
//!   whose match lies only past them is not left out silently but listed in
//!   `long_line_matches` (path, line, byte column in the whole line, the line's length), so a
//!   hit deep in a minified bundle is never reported absent. Each such line costs its path in
//!   the budget.
//! - `skipped` (fsgate's field, absent when empty) counts what the walk passed over: folders
//!   it could not open or list, symbolic links that loop, non-accessible files and folders.

use super::Ctx;
use super::wire::{ContentMatch, LongLineMatch, PathMatch, SearchInput, SearchOutput, SkippedInfo};
use crate::access::walkdir::Skipped;
use crate::error::{Result, ToolError};
use crate::ops::scan::sinks::matches::{FindOptions, Finder};

/// The most context lines on either side of a match.
const MAX_CONTEXT_LINES: u32 = 10;

pub(super) fn call(ctx: &Ctx<'_>, input: SearchInput) -> Result<SearchOutput> {
    if !input.search_content && !input.search_paths {
        return Err(ToolError::invalid(
            "search_content and search_paths are both false, so there is nothing to search; \
             set at least one of them to true (both default to true)",
        ));
    }
    let context_before = context("context_lines_before", input.context_lines_before)?;
    let context_after = context("context_lines_after", input.context_lines_after)?;
    let limits = &ctx.limits;
    let finder = Finder::new(FindOptions {
        query: input.query,
        regex: input.regex,
        ignore_case: input.ignore_case,
        content: input.search_content,
        paths: input.search_paths,
        include_globs: input.include_globs,
        exclude_globs: input.exclude_globs,
        use_default_excludes: input.use_default_excludes,
        max_matches: to_usize(
            input
                .max_matches
                .unwrap_or(limits.search_default_max_matches),
        ),
        max_line_bytes: to_usize(
            input
                .max_line_bytes
                .unwrap_or(limits.search_default_max_line_bytes),
        ),
        context_before,
        context_after,
        budget_bytes: limits.search_response_budget_bytes,
        max_read_bytes: limits.max_read_bytes,
        ignore: None,
    })?;
    let base = ctx.base(input.base_dir.as_deref())?;
    let target = ctx.resolve(&input.path, base.as_ref())?;
    // Under the jail `target.path` is canonical, so every path the walk reports is too.
    let found = finder.run(ctx.access, &target, ctx.call)?;
    Ok(SearchOutput {
        content_matches: found
            .lines
            .into_iter()
            .map(|m| ContentMatch {
                after: (!m.after.is_empty()).then_some(m.after),
                before: (!m.before.is_empty()).then_some(m.before),
                column: to_u32(m.column),
                line: to_u32(m.line),
                path: m.path,
                text: m.text,
            })
            .collect(),
        long_line_matches: found
            .long_lines
            .into_iter()
            .map(|l| LongLineMatch {
                column: l.column,
                line: to_u32(l.line),
                line_bytes: l.bytes,
                path: l.path,
            })
            .collect(),
        path_matches: found
            .paths
            .into_iter()
            .map(|path| PathMatch { path })
            .collect(),
        truncated: found.truncated,
        skipped: skipped_info(&found.skipped),
    })
}

/// The `skipped` field of a walk that passed over `skipped`; `None` when it passed over
/// nothing the field counts.
pub(super) fn skipped_info(skipped: &Skipped) -> Option<SkippedInfo> {
    let info = SkippedInfo {
        unreadable_folders: to_u32(skipped.unreadable_folders),
        symlink_loops: to_u32(skipped.symlink_loops),
        non_accessible: to_u32(skipped.non_accessible),
    };
    let any = info.unreadable_folders > 0 || info.symlink_loops > 0 || info.non_accessible > 0;
    any.then_some(info)
}

/// Checks a context-lines knob (unset is 0).
fn context(key: &str, value: Option<u32>) -> Result<usize> {
    let value = value.unwrap_or(0);
    if value > MAX_CONTEXT_LINES {
        return Err(ToolError::invalid(format!(
            "{key} is {value} but at most {MAX_CONTEXT_LINES} context lines are returned; pass \
             {key} <= {MAX_CONTEXT_LINES}, or read a wider window with read-file \
             line_from/line_to"
        )));
    }
    Ok(to_usize(value))
}

fn to_usize(n: u32) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

fn to_u32(n: u64) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}
