//! Sequential exact search/replace patches.
//!
//! Each patch applies to the result of the previous one. Its `search` text is found with the
//! shared matcher ([`matcher::find`]: exact bytes, then with its line endings converted to the
//! file's, so an LF quote of a CRLF file matches and its replacement gets CRLF). It must occur
//! exactly once, unless `replace_all` asks for every (non-overlapping) occurrence. Any failing
//! patch fails the whole call: the caller writes nothing. Pure: bytes in, bytes out.

use crate::text::lines;
use crate::text::matcher::{self, Level};

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

/// Which patch of a call failed: the 0-based `index` of `total`. A patch after the first ran
/// on the text as the patches before it left it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PatchAt {
    /// The patch's 0-based index.
    pub index: usize,
    /// How many patches the call has.
    pub total: usize,
}

/// Why the patches were refused; nothing may be written. The surface words it in its
/// profile's terms.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ReplaceError {
    /// There are no patches.
    NoPatches,
    /// A patch's search text is empty.
    EmptySearch(PatchAt),
    /// A patch's search and replace texts are the same.
    Unchanged(PatchAt),
    /// A patch's search text occurs more than once and the patch does not replace all.
    NotUnique {
        /// The patch.
        at: PatchAt,
        /// How many times it occurs (overlapping occurrences count).
        count: usize,
        /// The 1-based lines the occurrences start on, ascending, each once.
        lines: Vec<usize>,
    },
    /// A patch's search text does not occur.
    Absent {
        /// The patch.
        at: PatchAt,
        /// The lines of the text it was looked for in.
        lines: usize,
        /// The first five lines that hold the search text's first non-blank line (trimmed).
        near: Vec<usize>,
        /// Whether the search text holds more than that one line, so a later line differs.
        first_line_only: bool,
    },
}

/// Applies `patches` in order to `original`. An error names the patch and why it failed.
pub fn apply(original: &[u8], patches: &[Patch]) -> Result<Replaced, ReplaceError> {
    if patches.is_empty() {
        return Err(ReplaceError::NoPatches);
    }
    let total = patches.len();
    let mut current = original.to_vec();
    let mut replacements = 0;
    let mut levels = Vec::with_capacity(total);
    for (index, patch) in patches.iter().enumerate() {
        let at = PatchAt { index, total };
        if patch.search.is_empty() {
            return Err(ReplaceError::EmptySearch(at));
        }
        if patch.search == patch.replace {
            return Err(ReplaceError::Unchanged(at));
        }
        let Some(found) = matcher::find(&current, &patch.search, &patch.replace) else {
            return Err(absent(&current, patch, at));
        };
        // Text overlapping itself (`aa` in `aaa`) is as ambiguous as text occurring twice.
        if found.ranges.len() > 1 && !patch.replace_all {
            let mut lines = lines::lines_at(&current, found.ranges.iter().map(|r| r.start));
            lines.dedup();
            return Err(ReplaceError::NotUnique {
                at,
                count: found.ranges.len(),
                lines,
            });
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

/// The absent-text refusal, with where the quote's first line does occur, if anywhere.
fn absent(bytes: &[u8], patch: &Patch, at: PatchAt) -> ReplaceError {
    let anchor = patch.search.lines().map(str::trim).find(|l| !l.is_empty());
    let near = match anchor {
        Some(anchor) => String::from_utf8_lossy(bytes)
            .lines()
            .enumerate()
            .filter(|(_, line)| line.contains(anchor))
            .map(|(i, _)| i + 1)
            .take(5)
            .collect(),
        None => Vec::new(),
    };
    ReplaceError::Absent {
        at,
        lines: lines::count(bytes),
        near,
        first_line_only: anchor.is_some_and(|a| patch.search.trim() != a),
    }
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
        let out = apply(b"a b c\n", &[p("a", "x", false), p("x b", "y", false)]).unwrap();
        assert_eq!(out.bytes, b"y c\n");
        assert_eq!(out.patches_applied, 2);
    }

    #[test]
    fn replace_all_replaces_non_overlapping_occurrences() {
        let out = apply(b"aaa\n", &[p("aa", "b", true)]).unwrap();
        assert_eq!(out.bytes, b"ba\n");
        assert_eq!(out.replacements, 1);
        let out = apply(b"x x x\n", &[p("x", "y", true)]).unwrap();
        assert_eq!(out.bytes, b"y y y\n");
        assert_eq!(out.replacements, 3);
    }

    #[test]
    fn errors_name_the_patch_and_the_lines() {
        let err = apply(b"x\ny\nx\n", &[p("y", "z", false), p("x", "w", false)]).unwrap_err();
        assert_eq!(
            err,
            ReplaceError::NotUnique {
                at: PatchAt { index: 1, total: 2 },
                count: 2,
                lines: vec![1, 3],
            }
        );
        let err = apply(b"x\n", &[p("q", "z", false)]).unwrap_err();
        assert!(
            matches!(
                err,
                ReplaceError::Absent {
                    at: PatchAt { index: 0, total: 1 },
                    lines: 1,
                    ..
                }
            ),
            "{err:?}"
        );
    }

    #[test]
    fn an_absent_quote_names_where_its_first_line_occurs() {
        let err = apply(b"a\nfoo\nb\n", &[p("  foo\nbar", "z", false)]).unwrap_err();
        assert_eq!(
            err,
            ReplaceError::Absent {
                at: PatchAt { index: 0, total: 1 },
                lines: 3,
                near: vec![2],
                first_line_only: true,
            }
        );
    }

    #[test]
    fn a_crlf_file_keeps_crlf_under_an_lf_quote() {
        let out = apply(b"a\r\nb\r\n", &[p("a\nb", "x\ny", false)]).unwrap();
        assert_eq!(out.bytes, b"x\r\ny\r\n");
        assert_eq!(out.levels, vec![Level::LineEndings]);
    }
}
