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
//! Two searches share these levels:
//!
//! - [`find`] looks for a substring anywhere (edit and replace tools).
//! - [`find_lines`] looks for a run of whole lines, starting at a line boundary at or after a
//!   given line (unified and V4A hunks, which quote lines and are applied in order). Under
//!   [`Level::LineEndings`] a line's ending is ignored altogether: `\n`, `\r\n` and the missing
//!   ending of a file's last line are all the same. [`closest_lines`] names the region most like a
//!   run of lines that was not found, for the error message.
//!
//! Every edit engine calls these, so looser levels (trailing whitespace, indentation, Unicode
//! punctuation) are added here once for all of them.

use std::collections::HashMap;
use std::ops::Range;

use memchr::memmem;

use crate::text::lines;

/// How loosely a match was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// Byte for byte.
    Exact,
    /// After converting the quoted text's line endings to the file's ([`find`]), or ignoring
    /// line endings ([`find_lines`]).
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
    let crlf_file = uses_crlf(haystack);
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

/// Whether a file's lines end in `\r\n`: the endings [`Level::LineEndings`] converts to. A file
/// with at least one `\r\n` counts as CRLF.
pub fn uses_crlf(haystack: &[u8]) -> bool {
    memmem::find(haystack, b"\r\n").is_some()
}

/// The lines of `bytes`, each with its ending (`\n` or `\r\n`); a final line without an ending
/// is still a line, and a trailing newline does not start an empty line. The lines concatenate
/// back to `bytes`.
pub fn split_lines(bytes: &[u8]) -> Vec<&[u8]> {
    bytes.split_inclusive(|&b| b == b'\n').collect()
}

/// The occurrences of a run of lines at the first level that found any.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinesFound {
    /// The level that matched.
    pub level: Level,
    /// The 0-based index of the first line of every occurrence, ascending; overlapping
    /// occurrences included.
    pub starts: Vec<usize>,
}

/// The line levels, in the order they are tried.
const LINE_LEVELS: [Level; 2] = [Level::Exact, Level::LineEndings];

/// Finds `needle`, a run of whole lines each with its ending (as a file holds them; only the
/// last may lack one), as consecutive lines of `lines` (from [`split_lines`]) whose first line
/// is at index `from` or later. Level by level: the first level with any occurrence decides,
/// and every occurrence at that level is reported, so the caller can refuse ambiguity. `None`
/// when no level finds it, or when `needle` is empty.
pub fn find_lines(lines: &[&[u8]], needle: &[&[u8]], from: usize) -> Option<LinesFound> {
    if needle.is_empty() || needle.len() > lines.len() {
        return None;
    }
    let last_start = lines.len() - needle.len();
    if from > last_start {
        return None;
    }
    for level in LINE_LEVELS {
        let starts: Vec<usize> = (from..=last_start)
            .filter(|&start| {
                needle
                    .iter()
                    .zip(&lines[start..])
                    .all(|(quoted, line)| same_line(level, line, quoted))
            })
            .collect();
        if !starts.is_empty() {
            return Some(LinesFound { level, starts });
        }
    }
    None
}

/// Whether a file's line and a quoted line are the same at `level`.
fn same_line(level: Level, line: &[u8], quoted: &[u8]) -> bool {
    match level {
        Level::Exact => line == quoted,
        Level::LineEndings => lines::strip_ending(line) == lines::strip_ending(quoted),
    }
}

/// The region of a file most like a run of lines that was not found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Closest {
    /// The 0-based index of the region's first line.
    pub start: usize,
    /// The index after the region's last line (the region is cut at the file's ends).
    pub end: usize,
    /// The index of the quoted line aligned with the region's first line (0 unless the region
    /// was cut at the file's start).
    pub first_quoted: usize,
    /// How many of the quoted lines equal the file's line at their place in the region, ignoring
    /// leading and trailing whitespace.
    pub matching: usize,
    /// The 0-based indices of the region's lines that differ from the quoted line at their
    /// place (ignoring leading and trailing whitespace), ascending.
    pub differing: Vec<usize>,
}

/// The region of `lines` whose lines, aligned with `needle`, most often equal it when leading
/// and trailing whitespace is ignored. Blank lines do not count towards choosing the region.
/// Among equally good regions the first one starting at `from` or later wins, else the first.
/// `None` when no non-blank line of `needle` occurs in `lines`.
pub fn closest_lines(lines: &[&[u8]], needle: &[&[u8]], from: usize) -> Option<Closest> {
    let mut at: HashMap<&[u8], Vec<usize>> = HashMap::new();
    for (index, line) in lines.iter().enumerate() {
        let key = line.trim_ascii();
        if !key.is_empty() {
            at.entry(key).or_default().push(index);
        }
    }
    // Each equal line votes for the alignment (start of the region) it implies.
    let mut votes: HashMap<isize, usize> = HashMap::new();
    for (offset, quoted) in needle.iter().enumerate() {
        let key = quoted.trim_ascii();
        if key.is_empty() {
            continue;
        }
        for &index in at.get(key).map(Vec::as_slice).unwrap_or_default() {
            *votes.entry(as_isize(index) - as_isize(offset)).or_default() += 1;
        }
    }
    let from = as_isize(from);
    let (start, _) = votes
        .into_iter()
        .max_by_key(|&(start, count)| (count, start >= from, std::cmp::Reverse(start)))?;
    let quoted_at = |index: usize| {
        usize::try_from(as_isize(index) - start)
            .ok()
            .and_then(|offset| needle.get(offset))
    };
    let clamp = |at: isize| usize::try_from(at).unwrap_or(0).min(lines.len());
    let (first, end) = (clamp(start), clamp(start + as_isize(needle.len())));
    let differing: Vec<usize> = (first..end)
        .filter(|&index| {
            quoted_at(index).is_none_or(|quoted| lines[index].trim_ascii() != quoted.trim_ascii())
        })
        .collect();
    Some(Closest {
        start: first,
        end,
        first_quoted: usize::try_from(as_isize(first) - start).unwrap_or(0),
        matching: end - first - differing.len(),
        differing,
    })
}

/// `n` as a signed index (slice lengths never exceed `isize::MAX`).
fn as_isize(n: usize) -> isize {
    isize::try_from(n).unwrap_or(isize::MAX)
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

    fn lines_of(text: &str) -> Vec<&[u8]> {
        split_lines(text.as_bytes())
    }

    #[test]
    fn split_lines_keeps_endings_and_concatenates_back() {
        assert!(split_lines(b"").is_empty());
        assert_eq!(split_lines(b"a"), vec![&b"a"[..]]);
        assert_eq!(
            split_lines(b"a\r\nb\n\nc"),
            vec![&b"a\r\n"[..], b"b\n", b"\n", b"c"]
        );
        assert_eq!(split_lines(b"a\n").concat(), b"a\n");
    }

    #[test]
    fn find_lines_matches_whole_lines_only() {
        let file = lines_of("xab\nab\nabc\n");
        let found = find_lines(&file, &[b"ab\n"], 0).unwrap();
        assert_eq!(found.level, Level::Exact);
        assert_eq!(found.starts, vec![1]);
    }

    #[test]
    fn find_lines_reports_every_occurrence_overlapping_included() {
        let file = lines_of("x\nx\nx\ny\n");
        let found = find_lines(&file, &[b"x\n", b"x\n"], 0).unwrap();
        assert_eq!(found.starts, vec![0, 1]);
    }

    #[test]
    fn find_lines_searches_from_the_given_line() {
        let file = lines_of("a\nb\na\nb\n");
        assert_eq!(find_lines(&file, &[b"a\n"], 1).unwrap().starts, vec![2]);
        assert_eq!(find_lines(&file, &[b"a\n"], 3), None);
        assert_eq!(find_lines(&file, &[b"a\n"], 99), None);
    }

    #[test]
    fn find_lines_prefers_exact_over_line_endings() {
        // Line 0 matches only ignoring endings, line 2 exactly: exact decides alone.
        let file = lines_of("a\r\nb\na\n");
        let found = find_lines(&file, &[b"a\n"], 0).unwrap();
        assert_eq!(found.level, Level::Exact);
        assert_eq!(found.starts, vec![2]);
    }

    #[test]
    fn find_lines_ignores_endings_at_the_second_level() {
        let file = lines_of("one\r\ntwo\r\nthree");
        let found = find_lines(&file, &[b"two\n", b"three\n"], 0).unwrap();
        assert_eq!(found.level, Level::LineEndings);
        assert_eq!(found.starts, vec![1]);
        // A quoted line without an ending matches only the unterminated last line exactly.
        let found = find_lines(&file, &[b"three"], 0).unwrap();
        assert_eq!((found.level, found.starts), (Level::Exact, vec![2]));
    }

    #[test]
    fn find_lines_does_not_ignore_other_whitespace() {
        let file = lines_of("a \n\tb\n");
        assert_eq!(find_lines(&file, &[b"a\n"], 0), None);
        assert_eq!(find_lines(&file, &[b"b\n"], 0), None);
    }

    #[test]
    fn find_lines_refuses_empty_and_too_long_needles() {
        let file = lines_of("a\n");
        assert_eq!(find_lines(&file, &[], 0), None);
        assert_eq!(find_lines(&file, &[b"a\n", b"a\n"], 0), None);
    }

    #[test]
    fn closest_lines_finds_the_best_aligned_region() {
        let file = lines_of("fn a() {\n    1\n}\nfn b() {\n    2\n    3\n}\n");
        let needle: Vec<&[u8]> = vec![b"fn b() {\n", b"    2\n", b"  33\n", b"}\n"];
        let closest = closest_lines(&file, &needle, 0).unwrap();
        assert_eq!(
            closest,
            Closest {
                start: 3,
                end: 7,
                first_quoted: 0,
                matching: 3,
                differing: vec![5]
            }
        );
    }

    #[test]
    fn closest_lines_ignores_indentation_and_prefers_regions_after_from() {
        let file = lines_of("x\n  y\nx\ny\n");
        let needle: Vec<&[u8]> = vec![b"x\n", b"y\n"];
        assert_eq!(closest_lines(&file, &needle, 0).unwrap().start, 0);
        assert_eq!(closest_lines(&file, &needle, 1).unwrap().start, 2);
    }

    #[test]
    fn closest_lines_cuts_the_region_at_the_file_start() {
        let file = lines_of("b\nc\n");
        let needle: Vec<&[u8]> = vec![b"a\n", b"b\n", b"c\n"];
        assert_eq!(
            closest_lines(&file, &needle, 0).unwrap(),
            Closest {
                start: 0,
                end: 2,
                first_quoted: 1,
                matching: 2,
                differing: vec![]
            }
        );
    }

    #[test]
    fn closest_lines_marks_the_differing_lines() {
        let file = lines_of("a\nb\nX\nd\nY\n");
        let needle: Vec<&[u8]> = vec![b"a\n", b"b\n", b"c\n", b"d\n", b"e\n"];
        let closest = closest_lines(&file, &needle, 0).unwrap();
        assert_eq!((closest.matching, closest.differing), (3, vec![2, 4]));
    }

    #[test]
    fn closest_lines_is_none_without_a_shared_line() {
        let file = lines_of("a\n\n");
        assert_eq!(closest_lines(&file, &[b"\n", b"z\n"], 0), None);
    }

    #[test]
    fn uses_crlf_needs_one_crlf() {
        assert!(uses_crlf(b"a\nb\r\n"));
        assert!(!uses_crlf(b"a\nb\r"));
    }
}
