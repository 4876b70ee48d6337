//! glob and grep_search: their headers, lists and footers as Qwen Code writes them. When the
//! walk passed over something (a folder it could not list, a symbolic link that loops, an
//! ignore file it did not read), a last line says what: `(skipped: 1 unreadable folder)`.

use serde_json::Value;

use super::args::Args;
use super::{Outcome, Qwen, engine_error, resolve};
use crate::access::Access;
use crate::access::walkdir::Skipped;
use crate::ops::glob::{self as engine, GlobOptions};
use crate::surface::{CallContext, ToolOutput};

/// The most files a glob lists.
pub(super) const MAX_GLOB_FILES: usize = 100;
/// The most matching lines a search shows.
pub(super) const MAX_GREP_LINES: usize = 1000;
/// The most characters of matching lines a search shows.
pub(super) const MAX_GREP_CHARS: usize = 25_000;

pub(super) fn glob(qwen: &Qwen, access: &Access, args: Value, ctx: &CallContext) -> Outcome {
    let args = Args::parse("glob", args, &["pattern", "path"])?;
    let pattern = args.str("pattern")?;
    if pattern.trim().is_empty() {
        return Err("The 'pattern' parameter cannot be empty.".to_string());
    }
    let given = args
        .opt_str("path")?
        .map(str::trim)
        .filter(|p| !p.is_empty());
    let dir = resolve(access, given.unwrap_or("."), "Path")?;
    let shown = match given {
        Some(raw) => raw.to_string(),
        None => access.root().display().to_string(),
    };
    let found = engine::glob(
        access,
        &dir,
        pattern,
        &qwen.walk_rules(),
        GlobOptions::default(),
        ctx,
    )
    .map_err(|e| engine_error(access, &e, "Path"))?;
    let (hits, skipped) = (found.hits, closing(&found.skipped));
    if hits.is_empty() {
        return Ok(ToolOutput::text(format!(
            "No files found matching pattern \"{pattern}\" within {shown}{skipped}"
        )));
    }
    let total = hits.len();
    let listed: Vec<String> = hits
        .iter()
        .take(MAX_GLOB_FILES)
        .map(|h| h.path.display().to_string())
        .collect();
    let mut text = format!(
        "Found {total} file(s) matching \"{pattern}\" within {shown}, sorted by modification \
         time (newest first):\n---\n{}",
        listed.join("\n")
    );
    if total > MAX_GLOB_FILES {
        let omitted = total - MAX_GLOB_FILES;
        text.push_str(&format!(
            "\n---\n[{omitted} {} truncated] ...",
            if omitted == 1 { "file" } else { "files" }
        ));
    }
    text.push_str(&skipped);
    Ok(ToolOutput::text(text))
}

pub(super) fn grep_search(qwen: &Qwen, access: &Access, args: Value, ctx: &CallContext) -> Outcome {
    let args = Args::parse("grep_search", args, &["pattern", "path", "glob", "limit"])?;
    let pattern = args.str("pattern")?;
    if pattern.is_empty() {
        return Err("The 'pattern' parameter cannot be empty.".to_string());
    }
    let given = args
        .opt_str("path")?
        .map(str::trim)
        .filter(|p| !p.is_empty());
    let glob = args.opt_str("glob")?.filter(|g| !g.trim().is_empty());
    let limit = match args.opt_int("limit")? {
        Some(n) if n <= 0 => return Err("limit must be a positive integer".to_string()),
        Some(n) => Some(n as usize),
        None => None,
    };
    let target = resolve(access, given.unwrap_or("."), "Path")?;
    let keep = limit.map_or(MAX_GREP_LINES, |n| n.min(MAX_GREP_LINES));
    let outcome = engine::grep(
        access,
        &target,
        pattern,
        glob,
        &qwen.walk_rules(),
        keep,
        qwen.fallback,
        ctx,
    )
    .map_err(|e| engine_error(access, &e, "Path"))?;
    let location = format!("in path \"{}\"", given.unwrap_or("."));
    let filter = glob.map_or_else(String::new, |g| format!(" (filter: \"{g}\")"));
    let skipped = closing(&outcome.skipped);
    if outcome.total == 0 {
        return Ok(ToolOutput::text(format!(
            "No matches found for pattern \"{pattern}\" {location}{filter}.{skipped}"
        )));
    }
    let mut body = String::new();
    let mut included = 0;
    for line in &outcome.lines {
        let entry = format!("{}:{}:{}", access.display(&line.path), line.line, line.text);
        let separator = usize::from(included > 0);
        if body.len() + separator + entry.len() > MAX_GREP_CHARS {
            let room = MAX_GREP_CHARS
                .saturating_sub(body.len() + separator)
                .max(10);
            let cut = crate::text::lines::utf8_floor(entry.as_bytes(), room.min(entry.len()));
            if separator == 1 {
                body.push('\n');
            }
            body.push_str(&entry[..cut]);
            body.push_str("...");
            included += 1;
            break;
        }
        if separator == 1 {
            body.push('\n');
        }
        body.push_str(&entry);
        included += 1;
    }
    let omitted = outcome.total - included;
    Ok(ToolOutput::text(format!(
        "Found {} {} for pattern \"{pattern}\" {location}{filter}:\n---\n{body}\n---\n\n[{omitted} \
         {} truncated] ...{skipped}",
        outcome.total,
        if outcome.total == 1 {
            "match"
        } else {
            "matches"
        },
        if omitted == 1 { "line" } else { "lines" }
    )))
}

/// The closing line of a walk that passed over something, after a blank line; empty when it
/// passed over nothing.
pub(super) fn closing(skipped: &Skipped) -> String {
    skipped
        .describe()
        .map_or_else(String::new, |what| format!("\n\n(skipped: {what})"))
}
