//! The edit matcher: where in a file a piece of text the model quoted lies.
//!
//! Levels are tried in order and the first level that finds the text at least once decides;
//! ambiguity is never resolved by a looser level. Today there are two levels:
//!
//! 1. [`Level::Exact`]: the bytes as given.
//! 2. [`Level::LineEndings`]: the text with its line endings converted to the file's (a model
//!    quoting a CRLF file usually sends `\n`). The replacement is converted the same way, so the
//!    file keeps its endings.
//!
//! Every edit engine calls [`find`], so looser levels (trailing whitespace, indentation, Unicode
//! punctuation) are added here once for all of them.

use std::ops::Range;

use memchr::memmem;

/// How loosely a match was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// Byte for byte.
    Exact,
    /// After converting the quoted text's line endings to the file's.
    LineEndings,
}

/// The occurrences of the quoted text at the first level that found any.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    /// The level that matched.
    pub level: Level,
    /// Every occurrence, overlapping ones included, as byte ranges of the file.
    pub ranges: Vec<Range<usize>>,
    /// The replacement adapted to the level (line endings converted under
    /// [`Level::LineEndings`]).
    pub replacement: Vec<u8>,
}

/// Finds `needle` in `haystack`, level by level; `None` when no level finds it. `needle` must
/// not be empty.
pub fn find(haystack: &[u8], needle: &str, replacement: &str) -> Option<Found> {
    let exact = occurrences(haystack, needle.as_bytes());
    if !exact.is_empty() {
        return Some(Found {
            level: Level::Exact,
            ranges: exact,
            replacement: replacement.as_bytes().to_vec(),
        });
    }
    let crlf_file = memmem::find(haystack, b"\r\n").is_some();
    let converted = convert_endings(needle, crlf_file);
    if converted.as_bytes() == needle.as_bytes() {
        return None;
    }
    let ranges = occurrences(haystack, converted.as_bytes());
    if ranges.is_empty() {
        return None;
    }
    Some(Found {
        level: Level::LineEndings,
        ranges,
        replacement: convert_endings(replacement, crlf_file).into_bytes(),
    })
}

/// Every start of `needle` in `haystack`, overlapping starts included (text that overlaps
/// itself is as ambiguous as text that occurs twice).
fn occurrences(haystack: &[u8], needle: &[u8]) -> Vec<Range<usize>> {
    let finder = memmem::Finder::new(needle);
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(at) = finder.find(&haystack[from..]) {
        let start = from + at;
        out.push(start..start + needle.len());
        from = start + 1;
    }
    out
}

/// `text` with every line ending made `\r\n` (when `crlf`) or `\n`.
fn convert_endings(text: &str, crlf: bool) -> String {
    let lf = text.replace("\r\n", "\n");
    if crlf { lf.replace('\n', "\r\n") } else { lf }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_wins_and_reports_every_occurrence() {
        let found = find(b"a b a", "a", "x").unwrap();
        assert_eq!(found.level, Level::Exact);
        assert_eq!(found.ranges, vec![0..1, 4..5]);
    }

    #[test]
    fn self_overlapping_text_counts_twice() {
        assert_eq!(find(b"aaa", "aa", "b").unwrap().ranges.len(), 2);
    }

    #[test]
    fn lf_quote_matches_a_crlf_file_and_the_replacement_keeps_crlf() {
        let found = find(b"one\r\ntwo\r\nthree\r\n", "one\ntwo\n", "1\n2\n").unwrap();
        assert_eq!(found.level, Level::LineEndings);
        assert_eq!(found.ranges, vec![0..10]);
        assert_eq!(found.replacement, b"1\r\n2\r\n");
    }

    #[test]
    fn crlf_quote_matches_an_lf_file() {
        let found = find(b"one\ntwo\n", "one\r\ntwo", "x\r\ny").unwrap();
        assert_eq!(found.level, Level::LineEndings);
        assert_eq!(found.replacement, b"x\ny");
    }

    #[test]
    fn absent_text_is_none() {
        assert_eq!(find(b"abc", "zz", "y"), None);
    }
}
