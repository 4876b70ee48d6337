//! glob and grep_search: their headers, lists and footers as Qwen Code writes them. When the
//! walk passed over something (a folder it could not list, a symbolic link that loops, an
//! ignore file it did not read), a last line says what: `(skipped: 1 unreadable folder)`.
//!
//! grep_search cuts each line it shows to [`MAX_LINE_CHARS`] characters, as read_file does
//! (`... [truncated]`), so one long line (a minified bundle) cannot spend the 25,000-character
//! budget and push the other matches out. When the line's first match lies past the cut, the
//! part shown is the window around the match, after a note of how many characters were left
//! out before it (`[... 498800 characters] `), so the hit itself is seen.

use serde_json::Value;

use super::args::Args;
use super::read::MAX_LINE_CHARS;
use super::{Outcome, Qwen, engine_error, resolve};
use crate::access::Access;
use crate::access::ignore::IgnoreFiles;
use crate::access::walkdir::Skipped;
use crate::ops::scan::sinks::by_name::{self, GlobOptions};
use crate::ops::scan::sinks::counted;
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
    let found = by_name::glob(
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
        .map(|h| crate::text::names::show_path(&h.path))
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
    // Qwen Code searches with ripgrep, whose `.gitignore` counts only inside a git repository.
    let rules = IgnoreFiles {
        require_git: true,
        ..qwen.walk_rules()
    };
    let outcome = counted::grep(
        access,
        &target,
        pattern,
        glob,
        &rules,
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
    let matcher = counted::compile_case_insensitive(pattern).ok();
    let mut body = String::new();
    let mut included = 0;
    for line in &outcome.lines {
        let text = shown_line(&line.text, matcher.as_ref());
        let entry = format!("{}:{}:{}", access.display(&line.path), line.line, text);
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

/// Characters shown before a match when a long line is shown from its match on.
const BEFORE_MATCH: usize = 100;

/// A matching line as grep_search shows it: whole when it has at most [`MAX_LINE_CHARS`]
/// characters; else cut there with `... [truncated]`, the window starting a little before the
/// first match when the match lies past the cut (and saying how many characters it left out).
fn shown_line<'t>(
    text: &'t str,
    matcher: Option<&grep_regex::RegexMatcher>,
) -> std::borrow::Cow<'t, str> {
    use grep_matcher::Matcher;
    let Some((cut, _)) = text.char_indices().nth(MAX_LINE_CHARS) else {
        return std::borrow::Cow::Borrowed(text);
    };
    let at = matcher
        .and_then(|m| m.find(text.as_bytes()).ok().flatten())
        .map_or(0, |m| m.start());
    if at < cut {
        return std::borrow::Cow::Owned(format!("{}... [truncated]", &text[..cut]));
    }
    let from_chars = text[..at].chars().count().saturating_sub(BEFORE_MATCH);
    let from = text.char_indices().nth(from_chars).map_or(at, |(i, _)| i);
    let rest = &text[from..];
    let shown = match rest.char_indices().nth(MAX_LINE_CHARS) {
        Some((end, _)) => format!("{}... [truncated]", &rest[..end]),
        None => rest.to_string(),
    };
    std::borrow::Cow::Owned(format!("[... {from_chars} characters] {shown}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_lines_are_shown_whole_and_long_ones_cut_around_their_match() {
        let m = counted::compile_case_insensitive("needle").unwrap();
        assert_eq!(shown_line("a needle", Some(&m)), "a needle");
        let early = format!("needle{}", "x".repeat(5000));
        let shown = shown_line(&early, Some(&m));
        assert_eq!(
            shown.chars().count(),
            MAX_LINE_CHARS + "... [truncated]".len()
        );
        assert!(shown.starts_with("needle") && shown.ends_with("... [truncated]"));
        let deep = format!("{}NEEDLE{}", "é".repeat(499_000), "y".repeat(10));
        let shown = shown_line(&deep, Some(&m));
        assert_eq!(
            shown,
            format!(
                "[... 498900 characters] {}NEEDLE{}",
                "é".repeat(100),
                "y".repeat(10)
            )
        );
    }
}
