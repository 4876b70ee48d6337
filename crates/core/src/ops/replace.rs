//! Sequential exact search/replace patches.
//!
//! Each patch applies to the result of the previous one. Its `search` text is found with the
//! shared matcher ([`matcher::find`]: exact bytes, then with its line endings converted to the
//! file's, so an LF quote of a CRLF file matches and its replacement gets CRLF). It must occur
//! exactly once, unless `replace_all` asks for every (non-overlapping) occurrence. Any failing
//! patch fails the whole call: the caller writes nothing. Pure: bytes in, bytes out.

use crate::error::{ErrorKind, Result, ToolError};
use crate::text::lines;
use crate::text::matcher::{self, Level};

/// The most occurrence lines an error lists.
const MAX_LINES_LISTED: usize = 20;

/// One patch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Patch {
    /// The exact text to find.
    pub search: String,
    /// What replaces it.
    pub replace: String,
    /// Replace every occurrence instead of requiring exactly one.
    pub replace_all: bool,
}

/// What the patches did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replaced {
    /// The edited file.
    pub bytes: Vec<u8>,
    /// How many patches were applied (all of them).
    pub patches_applied: usize,
    /// How many occurrences were replaced, over all patches.
    pub replacements: usize,
    /// Each patch's level, in patch order.
    pub levels: Vec<Level>,
}

/// Applies `patches` in order to `original`; `shown` names the file in errors. Errors name the
/// patch (`patches[i]`) and why it failed, and say nothing was written.
pub fn apply(original: &[u8], patches: &[Patch], shown: &str) -> Result<Replaced> {
    if patches.is_empty() {
        return Err(ToolError::invalid(format!(
            "patches is empty, so nothing would change in {shown}; pass at least one {{search, \
             replace}} patch"
        )));
    }
    let total = patches.len();
    let mut current = original.to_vec();
    let mut replacements = 0;
    let mut levels = Vec::with_capacity(total);
    for (index, patch) in patches.iter().enumerate() {
        let name = patch_name(index, total);
        let after = if index > 0 {
            format!(
                " (as it is after patches[0..{index}] applied; the patches apply in order, each \
                 to the result of the previous)"
            )
        } else {
            String::new()
        };
        if patch.search.is_empty() {
            return Err(ToolError::invalid(format!(
                "{name}: search is empty, so it names no place in {shown}; quote the exact text \
                 to replace. Nothing was written."
            )));
        }
        if patch.search == patch.replace {
            return Err(ToolError::invalid(format!(
                "{name}: search and replace are identical, so it would change nothing in \
                 {shown}; pass the new text as replace, or drop the patch. Nothing was written."
            )));
        }
        let Some(found) = matcher::find(&current, &patch.search, &patch.replace) else {
            return Err(absent(&current, patch, &name, shown, &after));
        };
        // Text overlapping itself (`aa` in `aaa`) is as ambiguous as text occurring twice.
        if found.ranges.len() > 1 && !patch.replace_all {
            let mut at = lines::lines_at(&current, found.ranges.iter().map(|r| r.start));
            at.dedup();
            return Err(ToolError::new(
                ErrorKind::NotUnique,
                format!(
                    "{name}: search occurs {} times in {shown}{after}, at {}; it must occur \
                     once. Add surrounding text to search until it matches one place, or set \
                     replace_all: true to replace every occurrence. Nothing was written.",
                    found.ranges.len(),
                    listed_lines(&at)
                ),
            ));
        }
        let ranges = non_overlapping(&found.ranges);
        let mut next = Vec::with_capacity(current.len() + found.replacement.len());
        let mut from = 0;
        for range in &ranges {
            next.extend_from_slice(&current[from..range.start]);
            next.extend_from_slice(&found.replacement);
            from = range.end;
        }
        next.extend_from_slice(&current[from..]);
        current = next;
        replacements += ranges.len();
        levels.push(found.level);
    }
    Ok(Replaced {
        bytes: current,
        patches_applied: total,
        replacements,
        levels,
    })
}

/// `patches[1] (patch 2 of 3)`.
fn patch_name(index: usize, total: usize) -> String {
    format!("patches[{index}] (patch {} of {total})", index + 1)
}

/// The occurrences left to right, skipping any that overlaps the one before.
fn non_overlapping(ranges: &[std::ops::Range<usize>]) -> Vec<std::ops::Range<usize>> {
    let mut out: Vec<std::ops::Range<usize>> = Vec::with_capacity(ranges.len());
    for range in ranges {
        if out.last().is_none_or(|last| range.start >= last.end) {
            out.push(range.clone());
        }
    }
    out
}

fn listed_lines(at: &[usize]) -> String {
    let shown: Vec<String> = at
        .iter()
        .take(MAX_LINES_LISTED)
        .map(ToString::to_string)
        .collect();
    let more = at.len().saturating_sub(MAX_LINES_LISTED);
    let more = if more > 0 {
        format!(" and {more} more")
    } else {
        String::new()
    };
    let word = if at.len() == 1 { "line" } else { "lines" };
    format!("{word} {}{more}", shown.join(", "))
}

/// The absent-text error, with where the quote's first line does occur, if anywhere.
fn absent(bytes: &[u8], patch: &Patch, name: &str, shown: &str, after: &str) -> ToolError {
    let anchor = patch.search.lines().map(str::trim).find(|l| !l.is_empty());
    let mut hint = String::new();
    if let Some(anchor) = anchor {
        let text = String::from_utf8_lossy(bytes);
        let near: Vec<usize> = text
            .lines()
            .enumerate()
            .filter(|(_, line)| line.contains(anchor))
            .map(|(i, _)| i + 1)
            .take(5)
            .collect();
        if !near.is_empty() {
            let first_only = patch.search.trim() != anchor;
            hint = if first_only {
                format!(
                    " Its first line does occur (at {}), so a later line of search differs.",
                    listed_lines(&near)
                )
            } else {
                format!(
                    " The text occurs (at {}) with different surrounding whitespace.",
                    listed_lines(&near)
                )
            };
        }
    }
    ToolError::new(
        ErrorKind::NoMatch,
        format!(
            "{name}: search was not found in {shown}{after} ({} lines).{hint} The file may have \
             changed since you read it, or the quote differs in whitespace or indentation; \
             re-read the file with read_files and copy the text exactly. Nothing was written.",
            lines::count(bytes)
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(search: &str, replace: &str, all: bool) -> Patch {
        Patch {
            search: search.into(),
            replace: replace.into(),
            replace_all: all,
        }
    }

    #[test]
    fn patches_apply_in_order_to_the_previous_result() {
        let out = apply(b"a b c\n", &[p("a", "x", false), p("x b", "y", false)], "f").unwrap();
        assert_eq!(out.bytes, b"y c\n");
        assert_eq!(out.patches_applied, 2);
    }

    #[test]
    fn replace_all_replaces_non_overlapping_occurrences() {
        let out = apply(b"aaa\n", &[p("aa", "b", true)], "f").unwrap();
        assert_eq!(out.bytes, b"ba\n");
        assert_eq!(out.replacements, 1);
        let out = apply(b"x x x\n", &[p("x", "y", true)], "f").unwrap();
        assert_eq!(out.bytes, b"y y y\n");
        assert_eq!(out.replacements, 3);
    }

    #[test]
    fn errors_name_the_patch_and_the_lines() {
        let err = apply(b"x\ny\nx\n", &[p("y", "z", false), p("x", "w", false)], "f").unwrap_err();
        assert_eq!(err.kind, ErrorKind::NotUnique);
        assert!(
            err.message
                .starts_with("patches[1] (patch 2 of 2): search occurs 2 times"),
            "{}",
            err.message
        );
        assert!(err.message.contains("at lines 1, 3"), "{}", err.message);
        let err = apply(b"x\n", &[p("q", "z", false)], "f").unwrap_err();
        assert_eq!(err.kind, ErrorKind::NoMatch);
        assert!(
            err.message
                .starts_with("patches[0] (patch 1 of 1): search was not found")
        );
    }

    #[test]
    fn a_crlf_file_keeps_crlf_under_an_lf_quote() {
        let out = apply(b"a\r\nb\r\n", &[p("a\nb", "x\ny", false)], "f").unwrap();
        assert_eq!(out.bytes, b"x\r\ny\r\n");
        assert_eq!(out.levels, vec![Level::LineEndings]);
    }
}
