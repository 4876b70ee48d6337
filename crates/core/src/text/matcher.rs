//! The edit matcher: where in a file a piece of text the model quoted lies.
//!
//! Levels are tried in order and the first level that finds the text at least once decides;
//! ambiguity is never resolved by a looser level. The levels, in order:
//!
//! 1. [`Level::Exact`]: the bytes as given.
//! 2. [`Level::LineEndings`]: the text with its line endings converted to the file's (a model
//!    quoting a CRLF file usually sends `\n`). The replacement is converted the same way, so the
//!    file keeps its endings.
//! 3. [`Level::TrailingWhitespace`]: whole lines, equal once whitespace at their ends is
//!    ignored.
//! 4. [`Level::Indentation`]: whole lines, equal once whitespace at both their ends is ignored;
//!    the replacement is re-indented from the quote's indentation to the file's, level by
//!    level: each indentation level of the new text becomes one level in the file's unit (a
//!    tab, or the file's number of spaces), so tabs and spaces are never mixed (spaces after
//!    tabs that only align, as in ` * ` of a comment, stay alignment). When a level cannot be
//!    read (an indentation that puts spaces before a tab, in the new text or in the file's
//!    matched line), the correction is refused ([`Unmappable`]).
//! 5. [`Level::Punctuation`]: the text, equal once Unicode punctuation is normalised (curly
//!    quotes to straight ones, dashes and minus signs to `-`, non-breaking and other fixed-width
//!    spaces to a space, `…` to `...`).
//!
//! Three searches share these levels:
//!
//! - [`find`] looks for a substring anywhere, at the first two levels only (gg's edit_file and
//!   the replace tools, whose contracts promise nothing looser).
//! - [`find_corrected`] is [`find`] with the whole cascade: the deterministic correction of an
//!   edit whose exact text is absent (qwen's edit). Every level after the first two is a
//!   correction, and a caller accepts a correction only when it found one place.
//! - [`find_lines`] looks for a run of whole lines, starting at a line boundary at or after a
//!   given line (unified and V4A hunks, which quote lines and are applied in order), at the
//!   first two levels ([`Cascade::Strict`]); [`find_lines_in`] with [`Cascade::Full`] goes on
//!   through every level (native's patches), and [`reindent_lines`] re-indents a hunk's added
//!   lines found at [`Level::Indentation`]. Under the line levels a line's ending is ignored
//!   altogether: `\n`, `\r\n` and the missing ending of a file's last line are all the same.
//!   [`closest_lines`] names the region most like a run of lines that was not found, for the
//!   error message.
//!
//! Arguments are literal text: nothing here unescapes `\n` or `\"` in either string.

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
    /// Whole lines, ignoring whitespace at the end of each line ([`find_corrected`]).
    TrailingWhitespace,
    /// Whole lines, ignoring whitespace at both ends of each line; the replacement is
    /// re-indented to the file's indentation ([`find_corrected`]).
    Indentation,
    /// After normalising Unicode punctuation: curly quotes, dashes, non-breaking spaces
    /// ([`find_corrected`]).
    Punctuation,
}

impl Level {
    /// Whether the level corrects the quote beyond its line endings, so that only a unique match
    /// may be accepted.
    pub fn is_correction(self) -> bool {
        matches!(
            self,
            Level::TrailingWhitespace | Level::Indentation | Level::Punctuation
        )
    }
}

/// The occurrences of the quoted text at the first level that found any.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    /// The level that matched.
    pub level: Level,
    /// Every occurrence, overlapping ones included, as byte ranges of the file.
    pub ranges: Vec<Range<usize>>,
    /// The replacement adapted to the level (line endings converted to the file's at every
    /// level but [`Level::Exact`], re-indented under [`Level::Indentation`] to the first
    /// occurrence's indentation).
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

/// Why the indentation level found a quote but its replacement cannot be re-indented to the
/// file's indentation without mixing tabs and spaces or inventing a level.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unmappable {
    /// The 1-based line of the replacement (or, when `in_quote`, of the quote) that cannot be
    /// mapped.
    pub line: usize,
    /// Whether the line is the quote's rather than the replacement's.
    pub in_quote: bool,
    /// What is wrong with it, in words.
    pub reason: String,
}

/// Finds `needle` in `haystack` through the whole cascade of levels (see the module
/// documentation): [`find`]'s two levels, then whole lines ignoring trailing whitespace, whole
/// lines ignoring indentation, and normalised Unicode punctuation. `Ok(None)` when no level
/// finds it; `Err` when the indentation level found it but the replacement cannot be
/// re-indented to the file's indentation (no later level is tried: the text is there, and a
/// looser level must not decide instead). `needle` must not be empty. The line levels need a
/// quote that is not only blank lines; the punctuation level needs `haystack` to be UTF-8.
pub fn find_corrected(
    haystack: &[u8],
    needle: &str,
    replacement: &str,
) -> Result<Option<Found>, Unmappable> {
    if let Some(found) = find(haystack, needle, replacement) {
        return Ok(Some(found));
    }
    let crlf = uses_crlf(haystack);
    if let Some(found) = find_whole_lines(
        haystack,
        needle,
        replacement,
        Level::TrailingWhitespace,
        crlf,
    )? {
        return Ok(Some(found));
    }
    if let Some(found) = find_whole_lines(haystack, needle, replacement, Level::Indentation, crlf)?
    {
        return Ok(Some(found));
    }
    Ok(find_punctuation(haystack, needle, replacement, crlf))
}

/// The line levels of [`find_corrected`]: the quote, split into lines (a final newline ends its
/// last line), against runs of whole lines of the file. An occurrence spans its lines from the
/// first line's start to the last line's end, its ending included when the quote ends with a
/// newline.
fn find_whole_lines(
    haystack: &[u8],
    needle: &str,
    replacement: &str,
    level: Level,
    crlf: bool,
) -> Result<Option<Found>, Unmappable> {
    let quote = needle.replace("\r\n", "\n");
    let (body, ends_with_newline) = match quote.strip_suffix('\n') {
        Some(body) => (body, true),
        None => (quote.as_str(), false),
    };
    let quoted: Vec<&[u8]> = body.as_bytes().split(|&b| b == b'\n').collect();
    if quoted.iter().all(|q| q.trim_ascii().is_empty()) {
        return Ok(None);
    }
    let file = split_lines(haystack);
    if quoted.len() > file.len() {
        return Ok(None);
    }
    let mut offsets = Vec::with_capacity(file.len() + 1);
    let mut at = 0;
    for line in &file {
        offsets.push(at);
        at += line.len();
    }
    offsets.push(at);
    let mut ranges = Vec::new();
    let mut first_start = None;
    for start in 0..=file.len() - quoted.len() {
        let matches = quoted
            .iter()
            .zip(&file[start..])
            .all(|(q, line)| same_line(level, line, q));
        if !matches {
            continue;
        }
        let last = start + quoted.len() - 1;
        let end = if ends_with_newline {
            offsets[last + 1]
        } else {
            offsets[last] + lines::strip_ending(file[last]).len()
        };
        ranges.push(offsets[start]..end);
        first_start.get_or_insert(start);
    }
    let Some(start) = first_start else {
        return Ok(None);
    };
    let replacement = match level {
        Level::Indentation => {
            let region = &file[start..start + quoted.len()];
            reindent(replacement, &quoted, region, &file)?
        }
        _ => replacement.to_string(),
    };
    Ok(Some(Found {
        level,
        ranges,
        replacement: convert_endings(&replacement, crlf).into_bytes(),
    }))
}

/// How a text indents its levels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Style {
    /// One tab a level; spaces after the tabs only align (a continuation, ` * ` in a comment).
    Tabs,
    /// This many spaces a level.
    Spaces(usize),
}

/// An indentation read in a [`Style`]: whole levels, then spaces that only align.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Indent {
    levels: usize,
    align: usize,
}

impl Style {
    /// `ws` (a line's leading blanks) as levels of this style; `None` when it does not fit it:
    /// a space before a tab, or a tab in a text indented with spaces.
    fn read(self, ws: &[u8]) -> Option<Indent> {
        let tabs = ws.iter().take_while(|&&b| b == b'\t').count();
        let spaces = ws.len() - tabs;
        if ws[tabs..].iter().any(|&b| b != b' ') {
            return None;
        }
        match self {
            Style::Tabs => Some(Indent {
                levels: tabs,
                align: spaces,
            }),
            Style::Spaces(_) if tabs > 0 => None,
            Style::Spaces(unit) => Some(Indent {
                levels: spaces / unit,
                align: spaces % unit,
            }),
        }
    }

    fn write(self, indent: Indent) -> String {
        match self {
            Style::Tabs => "\t".repeat(indent.levels) + &" ".repeat(indent.align),
            Style::Spaces(unit) => " ".repeat(indent.levels * unit + indent.align),
        }
    }
}

/// The blanks (spaces and tabs) a line starts with.
fn leading_blanks(line: &[u8]) -> &[u8] {
    let n = line
        .iter()
        .take_while(|&&b| b == b' ' || b == b'\t')
        .count();
    &line[..n]
}

fn is_blank(line: &[u8]) -> bool {
    line.trim_ascii().is_empty()
}

/// The number of spaces a level most likely takes in these runs of lines (each run in order):
/// the most frequent change of indentation between neighbouring non-blank lines indented with
/// spaces, a change of one space (alignment, ` * ` in a comment) counting only when there is
/// no other. `None` when the indentation never changes.
fn space_unit<'a>(runs: impl IntoIterator<Item = Vec<&'a [u8]>>) -> Option<usize> {
    let mut counts: HashMap<usize, usize> = HashMap::new();
    for run in runs {
        let mut previous: Option<usize> = None;
        for line in run.into_iter().filter(|l| !is_blank(l)) {
            let ws = leading_blanks(line);
            if ws.contains(&b'\t') {
                previous = None;
                continue;
            }
            if let Some(p) = previous
                && p != ws.len()
            {
                *counts.entry(p.abs_diff(ws.len())).or_default() += 1;
            }
            previous = Some(ws.len());
        }
    }
    let pick = |min: usize| {
        counts
            .iter()
            .filter(|&(&unit, _)| unit >= min)
            .max_by_key(|&(&unit, &n)| (n, std::cmp::Reverse(unit)))
            .map(|(&unit, _)| unit)
    };
    pick(2).or_else(|| pick(1))
}

/// `replacement` re-indented from the quote's indentation to the file's: the quote's first
/// non-blank line and the file's line it matched fix where level 0 of each lies, and every
/// non-blank line of the replacement keeps its level relative to that line, written in the
/// file's unit (see the module documentation). Blank lines are kept as they are.
fn reindent(
    replacement: &str,
    quoted: &[&[u8]],
    region: &[&[u8]],
    file: &[&[u8]],
) -> Result<String, Unmappable> {
    let Some((base, quote_base)) = quoted.iter().enumerate().find(|(_, q)| !is_blank(q)) else {
        return Ok(replacement.to_string());
    };
    let file_base = leading_blanks(region[base]);
    let new_lines: Vec<&[u8]> = replacement.split('\n').map(str::as_bytes).collect();
    // The quote's style, from the quote and the replacement together.
    let quote_side = || quoted.iter().chain(&new_lines).filter(|l| !is_blank(l));
    let quote_tabs = quote_side().any(|l| leading_blanks(l).contains(&b'\t'));
    let file_unit = space_unit([file.to_vec()]);
    let quote_style = if quote_tabs {
        Style::Tabs
    } else {
        let unit = space_unit([quoted.to_vec(), new_lines.clone()])
            .or(file_unit)
            .unwrap_or(4);
        Style::Spaces(unit)
    };
    let file_style = file_style(file, file_base, file_unit, quote_style);
    let unmappable = |line: usize, in_quote: bool, reason: String| Unmappable {
        line,
        in_quote,
        reason,
    };
    let q0 = leading_blanks(quote_base);
    let quote_at = quote_style.read(q0).ok_or_else(|| {
        unmappable(
            base + 1,
            true,
            "its indentation puts spaces before a tab".to_string(),
        )
    })?;
    let file_at = file_style.read(file_base).ok_or_else(|| {
        unmappable(
            base + 1,
            true,
            format!(
                "the file's line it matched is indented with {}, which mixes tabs and spaces",
                describe_blanks(file_base)
            ),
        )
    })?;
    let mut out = Vec::with_capacity(new_lines.len());
    for (i, line) in replacement.split('\n').enumerate() {
        if is_blank(line.as_bytes()) {
            out.push(line.to_string());
            continue;
        }
        let ws = leading_blanks(line.as_bytes());
        let rest = &line[ws.len()..];
        let indent = quote_style.read(ws).ok_or_else(|| {
            unmappable(
                i + 1,
                false,
                format!(
                    "it is indented with {}, which puts spaces before a tab",
                    describe_blanks(ws)
                ),
            )
        })?;
        // A line further left than the file's line has levels starts at the file's margin.
        let levels = (file_at.levels + indent.levels).saturating_sub(quote_at.levels);
        let align = (file_at.align + indent.align).saturating_sub(quote_at.align);
        out.push(format!(
            "{}{rest}",
            file_style.write(Indent { levels, align })
        ));
    }
    Ok(out.join("\n"))
}

/// The file's style: that of the line the quote's first line matched when it is indented,
/// else the file's most common one (tabs when more lines start with a tab than with a space),
/// else (a file without indentation) the quote's.
fn file_style(file: &[&[u8]], base: &[u8], unit: Option<usize>, quote: Style) -> Style {
    let spaces = |fallback: usize| {
        let quote_unit = match quote {
            Style::Spaces(n) => n,
            Style::Tabs => fallback,
        };
        Style::Spaces(unit.unwrap_or(quote_unit))
    };
    match base.first() {
        Some(b'\t') => return Style::Tabs,
        Some(_) => return spaces(base.len()),
        None => {}
    }
    let (mut tab_led, mut space_led) = (0usize, 0usize);
    for line in file.iter().filter(|l| !is_blank(l)) {
        match line.first() {
            Some(b'\t') => tab_led += 1,
            Some(b' ') => space_led += 1,
            _ => {}
        }
    }
    if tab_led > space_led {
        Style::Tabs
    } else if space_led > 0 {
        spaces(4)
    } else {
        quote
    }
}

/// Leading blanks in words, for messages: "2 spaces", "1 tab then 2 spaces".
fn describe_blanks(ws: &[u8]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut at = 0;
    while at < ws.len() {
        let b = ws[at];
        let n = ws[at..].iter().take_while(|&&c| c == b).count();
        let name = if b == b'\t' { "tab" } else { "space" };
        parts.push(format!("{n} {name}{}", if n == 1 { "" } else { "s" }));
        at += n;
    }
    parts.join(" then ")
}

/// The punctuation level of [`find_corrected`]: a substring search in the file's text and the
/// quote, both with their punctuation normalised, mapped back to the file's bytes. An occurrence
/// must begin and end on whole characters of the file (not inside the three dots of a `…`).
fn find_punctuation(haystack: &[u8], needle: &str, replacement: &str, crlf: bool) -> Option<Found> {
    let text = std::str::from_utf8(haystack).ok()?;
    let (norm_text, map) = normalize_punctuation(text);
    let converted = convert_endings(needle, crlf);
    let (norm_needle, _) = normalize_punctuation(&converted);
    if norm_needle.is_empty() || (norm_text == text && norm_needle == converted) {
        return None;
    }
    // Byte `j` of the normalised text came from the character at `map[j]`; `map` has one more
    // entry, the text's length.
    let boundary = |j: usize| j == 0 || j == norm_text.len() || map[j - 1] != map[j];
    let ranges: Vec<Range<usize>> = occurrences(norm_text.as_bytes(), norm_needle.as_bytes())
        .into_iter()
        .filter(|r| boundary(r.start) && boundary(r.end))
        .map(|r| map[r.start]..map[r.end])
        .collect();
    if ranges.is_empty() {
        return None;
    }
    Some(Found {
        level: Level::Punctuation,
        ranges,
        replacement: convert_endings(replacement, crlf).into_bytes(),
    })
}

/// The ASCII stand-in of a Unicode punctuation character, if it has one.
fn punctuation_stand_in(c: char) -> Option<&'static str> {
    Some(match c {
        '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' | '\u{2032}' => "'",
        '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{201F}' | '\u{2033}' => "\"",
        '\u{2010}'..='\u{2015}' | '\u{2212}' => "-",
        '\u{00A0}' | '\u{2000}'..='\u{200A}' | '\u{202F}' | '\u{205F}' | '\u{3000}' => " ",
        '\u{2026}' => "...",
        _ => return None,
    })
}

/// `text` with its punctuation normalised, and for each byte of the result the offset of the
/// character of `text` it came from (plus a final entry, `text.len()`).
fn normalize_punctuation(text: &str) -> (String, Vec<usize>) {
    let mut out = String::with_capacity(text.len());
    let mut map = Vec::with_capacity(text.len() + 1);
    for (at, c) in text.char_indices() {
        let before = out.len();
        match punctuation_stand_in(c) {
            Some(s) => out.push_str(s),
            None => out.push(c),
        }
        map.resize(map.len() + out.len() - before, at);
    }
    map.push(text.len());
    (out, map)
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

/// How far a search of whole lines goes down the levels.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Cascade {
    /// The first two levels: exact bytes, then line endings ignored (what the profiles whose
    /// specifications promise nothing looser use).
    #[default]
    Strict,
    /// Every level, in order: exact, line endings, trailing whitespace, indentation (the
    /// caller re-indents added lines with [`reindent_lines`]), punctuation.
    Full,
}

impl Cascade {
    /// The levels this cascade tries, in order.
    pub fn levels(self) -> &'static [Level] {
        match self {
            Cascade::Strict => &[Level::Exact, Level::LineEndings],
            Cascade::Full => &[
                Level::Exact,
                Level::LineEndings,
                Level::TrailingWhitespace,
                Level::Indentation,
                Level::Punctuation,
            ],
        }
    }
}

/// Whether each of `lines` equals the quoted line at its place in `needle` at `level`.
pub fn lines_equal(level: Level, lines: &[&[u8]], needle: &[&[u8]]) -> bool {
    lines.len() == needle.len()
        && lines
            .iter()
            .zip(needle)
            .all(|(line, quoted)| same_line(level, line, quoted))
}

/// `new`, lines of a hunk's new side (without endings) written for a quote whose lines were
/// `quoted`, re-indented to `region`, the lines of `file` the quote matched at
/// [`Level::Indentation`]: as [`find_corrected`] re-indents a replacement.
pub fn reindent_lines(
    new: &[&[u8]],
    quoted: &[&[u8]],
    region: &[&[u8]],
    file: &[&[u8]],
) -> Result<Vec<Vec<u8>>, Unmappable> {
    let text: Vec<String> = new
        .iter()
        .map(|l| String::from_utf8_lossy(l).into_owned())
        .collect();
    let quoted: Vec<&[u8]> = quoted.iter().map(|q| lines::strip_ending(q)).collect();
    let out = reindent(&text.join("\n"), &quoted, region, file)?;
    Ok(out.split('\n').map(|l| l.as_bytes().to_vec()).collect())
}

/// Finds `needle`, a run of whole lines each with its ending (as a file holds them; only the
/// last may lack one), as consecutive lines of `lines` (from [`split_lines`]) whose first line
/// is at index `from` or later. Level by level: the first level with any occurrence decides,
/// and every occurrence at that level is reported, so the caller can refuse ambiguity. `None`
/// when no level finds it, or when `needle` is empty.
pub fn find_lines(lines: &[&[u8]], needle: &[&[u8]], from: usize) -> Option<LinesFound> {
    find_lines_in(lines, needle, from, Cascade::Strict)
}

/// [`find_lines`] through the levels of `cascade`.
pub fn find_lines_in(
    lines: &[&[u8]],
    needle: &[&[u8]],
    from: usize,
    cascade: Cascade,
) -> Option<LinesFound> {
    if needle.is_empty() || needle.len() > lines.len() {
        return None;
    }
    let last_start = lines.len() - needle.len();
    if from > last_start {
        return None;
    }
    for &level in cascade.levels() {
        let starts: Vec<usize> = (from..=last_start)
            .filter(|&start| lines_equal(level, &lines[start..start + needle.len()], needle))
            .collect();
        if !starts.is_empty() {
            return Some(LinesFound { level, starts });
        }
    }
    None
}

/// Whether a file's line and a quoted line are the same at `level`.
fn same_line(level: Level, line: &[u8], quoted: &[u8]) -> bool {
    let (line, quoted) = match level {
        Level::Exact => return line == quoted,
        _ => (lines::strip_ending(line), lines::strip_ending(quoted)),
    };
    match level {
        Level::Exact | Level::LineEndings => line == quoted,
        Level::TrailingWhitespace => line.trim_ascii_end() == quoted.trim_ascii_end(),
        Level::Indentation => line.trim_ascii() == quoted.trim_ascii(),
        Level::Punctuation => {
            let normalized = |b: &[u8]| normalize_punctuation(&String::from_utf8_lossy(b)).0;
            normalized(line) == normalized(quoted)
        }
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
    fn find_keeps_its_two_levels_only() {
        assert_eq!(find(b"    a  \n", "a\n", "b\n"), None);
        assert_eq!(find("it\u{2019}s".as_bytes(), "it's", "x"), None);
    }

    #[test]
    fn corrected_prefers_exact_and_reports_it() {
        let found = find_corrected(b"a  \na\n", "a\n", "b\n").unwrap().unwrap();
        assert_eq!(found.level, Level::Exact);
    }

    #[test]
    fn trailing_whitespace_level_matches_whole_lines() {
        let file = b"fn main() {   \n    let x = 1;\t\n}\n";
        let found = find_corrected(
            file,
            "fn main() {\n    let x = 1;\n",
            "fn main() {\n    let x = 2;\n",
        )
        .unwrap()
        .unwrap();
        assert_eq!(found.level, Level::TrailingWhitespace);
        assert_eq!(found.ranges, vec![0..31]);
        assert_eq!(found.replacement, b"fn main() {\n    let x = 2;\n");
    }

    #[test]
    fn trailing_whitespace_level_without_final_newline_stops_at_the_line_end() {
        let file = b"a = 1  \r\nb = 2  \r\nc\r\n";
        let found = find_corrected(file, "a = 1\nb = 2", "A\nB")
            .unwrap()
            .unwrap();
        assert_eq!(found.level, Level::TrailingWhitespace);
        assert_eq!(found.ranges, vec![0..16]);
        assert_eq!(found.replacement, b"A\r\nB");
    }

    #[test]
    fn indentation_level_reindents_the_replacement() {
        let file = b"class A:\n        def f(self):\n            return 1\n";
        let found = find_corrected(
            file,
            "def f(self):\n    return 1\n",
            "def f(self):\n    x = 1\n\n    return x\n",
        )
        .unwrap()
        .unwrap();
        assert_eq!(found.level, Level::Indentation);
        assert_eq!(found.ranges, vec![9..file.len()]);
        assert_eq!(
            String::from_utf8(found.replacement).unwrap(),
            "        def f(self):\n            x = 1\n\n            return x\n"
        );
    }

    #[test]
    fn indentation_level_reports_every_occurrence() {
        let file = b"  x = 1\n    x = 1\n";
        let found = find_corrected(file, "      x = 1\n", "y\n")
            .unwrap()
            .unwrap();
        assert_eq!(found.level, Level::Indentation);
        assert_eq!(found.ranges.len(), 2);
    }

    /// Whether any line of `text` starts its indentation with both tabs and spaces before
    /// its first other character (alignment spaces after tabs aside).
    fn mixes_levels(text: &[u8], style_is_spaces: bool) -> bool {
        text.split(|&b| b == b'\n').any(|line| {
            let ws = leading_blanks(line);
            if style_is_spaces {
                ws.contains(&b'\t')
            } else {
                ws.windows(2).any(|w| w == b" \t")
            }
        })
    }

    #[test]
    fn a_tab_quote_in_a_file_reindented_to_two_spaces_becomes_two_spaces_a_level() {
        let file = b"function f() {\n  if (retry) {\n    // retry errors\n    again();\n  }\n}\n";
        let found = find_corrected(
            file,
            "\tif (retry) {\n\t\t// retry errors\n",
            "\tif (retry) {\n\t\t// retry errors\n\t\tif (n > 3) {\n\t\t\tstop();\n\t\t}\n",
        )
        .unwrap()
        .unwrap();
        assert_eq!(found.level, Level::Indentation);
        assert_eq!(
            String::from_utf8(found.replacement.clone()).unwrap(),
            "  if (retry) {\n    // retry errors\n    if (n > 3) {\n      stop();\n    }\n"
        );
        assert!(!mixes_levels(&found.replacement, true));
    }

    #[test]
    fn a_space_quote_in_a_tab_file_becomes_tabs() {
        let file = b"fn f() {\n\tif x {\n\t\ty();\n\t}\n}\n";
        let found = find_corrected(
            file,
            "    if x {\n        y();\n",
            "    if x {\n        y();\n        z();\n    }\n",
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            String::from_utf8(found.replacement.clone()).unwrap(),
            "\tif x {\n\t\ty();\n\t\tz();\n\t}\n"
        );
    }

    #[test]
    fn two_space_levels_become_four_space_levels() {
        let file = b"def f():\n    if x:\n        y()\n";
        let found = find_corrected(file, "if x:\n  y()\n", "if x:\n  y()\n  if z:\n    w()\n")
            .unwrap()
            .unwrap();
        assert_eq!(
            String::from_utf8(found.replacement).unwrap(),
            "    if x:\n        y()\n        if z:\n            w()\n"
        );
    }

    #[test]
    fn a_line_left_of_the_quote_loses_levels_in_the_file_unit() {
        let file = b"class A {\n  m() {\n    a();\n  }\n}\n";
        let found = find_corrected(file, "\t\ta();\n", "\t\ta();\n\t}\n\tn() {\n")
            .unwrap()
            .unwrap();
        assert_eq!(
            String::from_utf8(found.replacement).unwrap(),
            "    a();\n  }\n  n() {\n"
        );
    }

    #[test]
    fn alignment_after_tabs_is_kept_as_alignment() {
        let file = b"int f() {\n    /*\n     * old\n     */\n}\n";
        let found = find_corrected(file, "\t/*\n\t * old\n\t */\n", "\t/*\n\t * new\n\t */\n")
            .unwrap()
            .unwrap();
        assert_eq!(
            String::from_utf8(found.replacement).unwrap(),
            "    /*\n     * new\n     */\n"
        );
    }

    #[test]
    fn an_unmappable_indentation_refuses_the_correction() {
        // Spaces before a tab in new_string: no level can be read from it.
        let file = b"a {\n  b;\n}\n";
        let err = find_corrected(file, "\tb;\n", "\tb;\n  \tc;\n").unwrap_err();
        assert_eq!((err.line, err.in_quote), (2, false));
        assert!(err.reason.contains("spaces before a tab"), "{err:?}");
        // The file's line mixes them: its level cannot be read either.
        let err = find_corrected(b"a\n \tb;\n", "  b;\n", "  b;\n  c;\n").unwrap_err();
        assert!(
            err.in_quote && err.reason.contains("1 space then 1 tab"),
            "{err:?}"
        );
    }

    #[test]
    fn the_same_style_keeps_the_old_shift_exactly() {
        let file = b"a:\n  b:\n    deep: 1\n";
        let found = find_corrected(
            file,
            "      deep: 1\n",
            "      deep: 2\n        deeper: 3\n",
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            String::from_utf8(found.replacement).unwrap(),
            "    deep: 2\n      deeper: 3\n"
        );
    }

    #[test]
    fn punctuation_level_maps_back_to_the_file_bytes() {
        let file = "say \u{201C}hi\u{201D} \u{2014} it\u{2019}s\u{00A0}fine\u{2026} ok";
        let found = find_corrected(file.as_bytes(), "\"hi\" - it's fine... ok", "X")
            .unwrap()
            .unwrap();
        assert_eq!(found.level, Level::Punctuation);
        assert_eq!(found.ranges.len(), 1);
        assert_eq!(&file[found.ranges[0].clone()], &file[4..]);
    }

    #[test]
    fn punctuation_level_never_splits_an_ellipsis() {
        assert_eq!(
            find_corrected("a\u{2026}b".as_bytes(), "..b", "x"),
            Ok(None)
        );
    }

    #[test]
    fn blank_quotes_are_not_corrected() {
        assert_eq!(find_corrected(b"a\n\n\t\nb\n", " \n", "x"), Ok(None));
    }

    #[test]
    fn absent_text_is_none_at_every_level() {
        assert_eq!(find_corrected(b"alpha\nbeta\n", "gamma", "x"), Ok(None));
    }

    #[test]
    fn same_line_covers_the_correction_levels() {
        assert!(same_line(Level::TrailingWhitespace, b"a  \n", b"a\n"));
        assert!(!same_line(Level::TrailingWhitespace, b" a\n", b"a\n"));
        assert!(same_line(Level::Indentation, b"\t a \n", b"a"));
        assert!(same_line(
            Level::Punctuation,
            "\u{2018}q\u{2019}\n".as_bytes(),
            b"'q'"
        ));
    }

    #[test]
    fn uses_crlf_needs_one_crlf() {
        assert!(uses_crlf(b"a\nb\r\n"));
        assert!(!uses_crlf(b"a\nb\r"));
    }
}
