//! Unified diffs whose hunk line numbers are ignored: parsing, applying and rendering.
//!
//! A pure engine: [`parse`] turns the diff text into a [`UnifiedDiff`], [`apply`] turns a file's
//! bytes into the edited bytes, and [`render`] shows what changed. Nothing here reads or writes
//! a file; the caller reads the file, applies, and writes the result atomically (or nothing, on
//! any error).
//!
//! # Grammar
//!
//! The diff text is split into lines at `\n`; a line may end in `\r\n`.
//!
//! ```text
//! diff        = preamble* [file-header] hunk+
//! preamble    = any line before the first hunk that is not a file header: `diff --git ...`,
//!               `index ...`, mode lines, `Index:`/`====` lines, prose (all ignored)
//! file-header = "--- " old-name [TAB anything] NL  "+++ " new-name [TAB anything] NL
//! hunk        = "@@" anything NL  hunk-line*
//! hunk-line   = " " text NL          an unchanged (context) line
//!             | "-" text NL          a removed line
//!             | "+" text NL          an added line
//!             | NL                   a blank context line that lost its leading space
//!             | "\" anything NL      `\ No newline at end of file`: the previous line has
//!                                    no line ending
//! ```
//!
//! - The `@@` line may be `@@`, `@@ -1 +1 @@`, `@@ -10,7 +10,8 @@ fn x` or anything else that
//!   starts with `@@` (but not `@@@`: combined diffs are refused). Its numbers never place the
//!   hunk. Its counts serve one purpose only: blank lines without a leading space at the end of
//!   a hunk are context when the counts say so, and are otherwise dropped as separators.
//! - File names are taken up to a tab (GNU timestamps follow one); git's quoted names are
//!   unquoted. Headers are optional; the caller checks [`UnifiedDiff::named_paths`]. A diff
//!   that goes on to a second file (another header pair, or a `diff` line differing from the
//!   first) is refused: one call edits one file. A repeated header for the same file is
//!   allowed.
//! - A hunk ends at the next `@@` line, at a `diff` line, at a file header followed by `@@`,
//!   or at the end of the text. Any other line inside a hunk is an error.
//! - The last line of the text needs no `\n`; a missing one is not a missing newline in the
//!   file (only the `\` marker says that).
//! - Every hunk must add or remove a line. A `\` marker may only follow the last line of the
//!   file on its side (no later line of that side, no later hunk).
//!
//! # Applying
//!
//! Each hunk is anchored by its old side (context and removed lines, in order) with
//! [`matcher::find_lines`]: exact bytes first, then ignoring line endings ([`apply_in`] with
//! [`Cascade::Full`], native's, goes on through trailing whitespace, indentation, re-indenting
//! the added lines to the file's, and Unicode punctuation). Hunks are applied in
//! order and each is searched only after the previous hunk's last change (a hunk may reuse the
//! previous hunk's trailing context). The old side must occur exactly once there; a hunk that
//! occurs nowhere, more than once, or only before the previous hunk fails the whole call,
//! naming the hunk, the lines it looked for and the closest region of the file.
//!
//! - Context lines keep the file's bytes. Added lines keep their text; their endings are kept
//!   under [`Level::Exact`] and become the file's (see [`matcher::uses_crlf`]) under
//!   [`Level::LineEndings`], so a CRLF file patched with an LF diff stays CRLF.
//! - A hunk with only added lines has nothing to anchor it, so it applies only to an empty file
//!   (creating its content); anywhere else it is refused.
//! - Final newline: a line that ends up followed by another line always gets an ending. When
//!   a hunk reaches the end of the file, the last line ends in a newline as the hunk's new side
//!   says if its two sides disagree (the diff adds or removes the final newline); if they
//!   agree, the file keeps whatever it had.

use std::borrow::Cow;
use std::time::Duration;

use similar::TextDiff;

use super::{
    Edit, MAX_SHOWN_CHARS, MAX_SHOWN_LINES, numbered, old_side_count, quote, span, splice,
};
pub use super::{HunkLine, LineKind};
use crate::error::{ErrorKind, ToolError};
use crate::text::lines::{self, Line};
use crate::text::matcher::{self, Cascade, Level};

/// How long [`render`] may spend diffing before it settles for a coarser diff.
const RENDER_TIMEOUT: Duration = Duration::from_secs(2);
/// The name a header gives a file that does not exist on that side.
const DEV_NULL: &str = "/dev/null";

/// A parsed unified diff for one file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UnifiedDiff {
    /// The name on the `---` line, as written (unquoted, without a timestamp); `None` without
    /// headers.
    pub old_path: Option<String>,
    /// The name on the `+++` line, as written (unquoted, without a timestamp); `None` without
    /// headers.
    pub new_path: Option<String>,
    /// The hunks, in diff order.
    pub hunks: Vec<Hunk>,
}

impl UnifiedDiff {
    /// The distinct files the headers name, without `/dev/null` and with git's `a/` and `b/`
    /// prefixes removed when the names carry them (`--- a/x` and `+++ b/x` name `x`). Empty
    /// without headers; two entries for a rename. A caller editing one file refuses a diff
    /// naming another.
    pub fn named_paths(&self) -> Vec<&str> {
        let old = self.old_path.as_deref().filter(|p| *p != DEV_NULL);
        let new = self.new_path.as_deref().filter(|p| *p != DEV_NULL);
        let git = (old.is_some() || new.is_some())
            && old.is_none_or(|p| p.starts_with("a/"))
            && new.is_none_or(|p| p.starts_with("b/"));
        let mut paths: Vec<&str> = old
            .into_iter()
            .chain(new)
            .map(|p| if git { p.get(2..).unwrap_or(p) } else { p })
            .collect();
        paths.dedup();
        paths
    }
}

/// One `@@` hunk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hunk {
    /// The `@@` line as written, without its line ending.
    pub header: String,
    /// The 1-based line of the diff text holding the `@@` line (0 for a hunk built in code).
    pub diff_line: usize,
    /// The hunk's lines, in order.
    pub lines: Vec<HunkLine>,
}

impl Hunk {
    /// The old side: context and removed lines, in order. This is what anchors the hunk.
    pub fn old_lines(&self) -> impl Iterator<Item = &HunkLine> {
        self.lines.iter().filter(|l| l.kind != LineKind::Added)
    }

    /// The new side: context and added lines, in order.
    pub fn new_lines(&self) -> impl Iterator<Item = &HunkLine> {
        self.lines.iter().filter(|l| l.kind != LineKind::Removed)
    }

    /// Whether the hunk adds or removes anything.
    pub fn changes(&self) -> bool {
        self.lines.iter().any(|l| l.kind != LineKind::Context)
    }
}

/// The result of applying a diff.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Applied {
    /// The edited file.
    pub bytes: Vec<u8>,
    /// How many hunks were applied (all of them: a diff applies whole or not at all).
    pub hunks_applied: usize,
    /// Where and how each hunk anchored, in hunk order.
    pub placements: Vec<Placement>,
}

/// Where one hunk anchored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placement {
    /// The 1-based line of the original file where the hunk's old side starts (1 for a hunk
    /// that filled an empty file).
    pub line: usize,
    /// The matcher level that found it.
    pub level: Level,
}

/// Parses `text` as a unified diff for one file. See the module documentation for the grammar.
/// Errors are [`ErrorKind::InvalidArgument`], naming the diff line at fault.
pub fn parse(text: &str) -> Result<UnifiedDiff, ToolError> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut diff = UnifiedDiff::default();
    let mut diff_command: Option<&str> = None;
    let mut headers_seen = false;
    // The first line before any hunk that looks like a hunk line, for the no-hunk error.
    let mut stray: Option<usize> = None;
    let mut i = 0;
    while i < lines.len() {
        let line = bare(lines[i]);
        if line.starts_with("@@@") {
            return Err(ToolError::invalid(format!(
                "diff line {} ({}) starts a combined diff hunk (@@@, from a merge), which has two \
                 prefix columns; send an ordinary unified diff of the file, whose hunks start \
                 with @@. Nothing was written.",
                i + 1,
                quote(line)
            )));
        } else if line.starts_with("@@") {
            let (hunk, next) = parse_hunk(&lines, i, diff.hunks.len() + 1)?;
            diff.hunks.push(hunk);
            i = next;
        } else if line.starts_with("diff ") {
            // After hunks, only a repeat of the first `diff` line continues the same file.
            if diff_command.map_or(!diff.hunks.is_empty(), |first| first != line) {
                return Err(second_file(i, line));
            }
            diff_command = Some(line);
            i += 1;
        } else if is_file_header(&lines, i) {
            let old = header_name(&line[4..]);
            let new = header_name(&bare(lines[i + 1])[4..]);
            // After hunks, only a repeat of the first header continues the same file.
            let same =
                diff.old_path.as_deref() == Some(&old) && diff.new_path.as_deref() == Some(&new);
            if if headers_seen {
                !same
            } else {
                !diff.hunks.is_empty()
            } {
                return Err(second_file(i, line));
            }
            headers_seen = true;
            diff.old_path = Some(old);
            diff.new_path = Some(new);
            i += 2;
        } else {
            if diff.hunks.is_empty()
                && stray.is_none()
                && line.starts_with(['+', '-'])
                && !line.starts_with("---")
                && !line.starts_with("+++")
            {
                stray = Some(i);
            }
            i += 1;
        }
    }
    if diff.hunks.is_empty() {
        let mut message = String::from(
            "the diff has no hunks: no line starts with @@. Start each hunk with an @@ line \
             (its line numbers are optional and ignored: `@@ -3,4 +3,5 @@` or just `@@`), \
             followed by the hunk's lines, each prefixed with ' ' (unchanged), '-' (removed) \
             or '+' (added).",
        );
        if let Some(at) = stray {
            message.push_str(&format!(
                " Diff line {} ({}) looks like a hunk line, but no @@ line comes before it.",
                at + 1,
                quote(bare(lines[at]))
            ));
        }
        message.push_str(" Nothing was written.");
        return Err(ToolError::invalid(message));
    }
    let last = diff.hunks.len() - 1;
    for (index, hunk) in diff.hunks.iter().enumerate() {
        check_hunk(hunk, index + 1, index == last)?;
    }
    Ok(diff)
}

/// Parses the hunk whose `@@` line is `lines[at]`; returns it and the index of the line after
/// it.
fn parse_hunk(lines: &[&str], at: usize, number: usize) -> Result<(Hunk, usize), ToolError> {
    let header = bare(lines[at]).to_string();
    let mut hunk_lines: Vec<HunkLine> = Vec::new();
    // How many lines at the end of the hunk so far are bare blank lines.
    let mut bare_tail = 0;
    let mut i = at + 1;
    while i < lines.len() {
        let raw = lines[i];
        let line = bare(raw);
        if line.starts_with("@@")
            || line.starts_with("diff ")
            || (is_file_header(lines, i) && lines.get(i + 2).is_some_and(|l| l.starts_with("@@")))
        {
            break;
        }
        let ending = if raw.ends_with("\r\n") { "\r\n" } else { "\n" };
        let kind = match raw.as_bytes()[0] {
            b' ' => Some(LineKind::Context),
            b'-' => Some(LineKind::Removed),
            b'+' => Some(LineKind::Added),
            _ => None,
        };
        if let Some(kind) = kind {
            hunk_lines.push(HunkLine {
                kind,
                text: format!("{}{ending}", &line[1..]),
            });
            bare_tail = 0;
        } else if line.is_empty() {
            hunk_lines.push(HunkLine {
                kind: LineKind::Context,
                text: ending.to_string(),
            });
            bare_tail += 1;
        } else if line.starts_with('\\') {
            let Some(previous) = hunk_lines.last_mut() else {
                return Err(ToolError::invalid(format!(
                    "diff line {} ({}) opens hunk {number} ({}), but a `\\ No newline at end of \
                     file` marker must follow the line it applies to; move it after the last \
                     line of the file, then send the diff again. Nothing was written.",
                    i + 1,
                    quote(line),
                    quote(&header)
                )));
            };
            let kept = lines::strip_ending(previous.text.as_bytes()).len();
            previous.text.truncate(kept);
            bare_tail = 0;
        } else {
            return Err(ToolError::invalid(format!(
                "diff line {} ({}) in hunk {number} ({}) is not a hunk line: each line of a hunk \
                 starts with ' ' (unchanged), '-' (removed) or '+' (added), and a line of the \
                 file that is unchanged needs its leading space. Fix the line, then send the \
                 diff again. Nothing was written.",
                i + 1,
                quote(line),
                quote(&header)
            )));
        }
        i += 1;
    }
    let keep = kept_bare_tail(&header, &hunk_lines, bare_tail);
    hunk_lines.truncate(hunk_lines.len() - (bare_tail - keep));
    let hunk = Hunk {
        header,
        diff_line: at + 1,
        lines: hunk_lines,
    };
    Ok((hunk, i))
}

/// How many of the `bare_tail` bare blank lines ending `lines` belong to the hunk: as many as
/// make the lines agree with the header's counts, else none (they separate hunks).
fn kept_bare_tail(header: &str, lines: &[HunkLine], bare_tail: usize) -> usize {
    let Some((old_count, new_count)) = header_counts(header) else {
        return 0;
    };
    (0..=bare_tail)
        .rev()
        .find(|&keep| {
            let kept = &lines[..lines.len() - (bare_tail - keep)];
            let old = kept.iter().filter(|l| l.kind != LineKind::Added).count();
            let new = kept.iter().filter(|l| l.kind != LineKind::Removed).count();
            (old, new) == (old_count, new_count)
        })
        .unwrap_or(0)
}

/// The line counts of a `@@ -a,b +c,d @@` header (a missing count is 1); `None` when the
/// header does not give them.
fn header_counts(header: &str) -> Option<(usize, usize)> {
    fn count(range: &str) -> Option<usize> {
        match range.split_once(',') {
            Some((start, count)) => {
                start.parse::<usize>().ok()?;
                count.parse().ok()
            }
            None => range.parse::<usize>().ok().map(|_| 1),
        }
    }
    let mut parts = header.strip_prefix("@@")?.split_whitespace();
    let old = count(parts.next()?.strip_prefix('-')?)?;
    let new = count(parts.next()?.strip_prefix('+')?)?;
    Some((old, new))
}

/// Checks what the line-by-line parse cannot: the hunk changes something, and `\` markers
/// follow only the last line of their side in the last hunk.
fn check_hunk(hunk: &Hunk, number: usize, last: bool) -> Result<(), ToolError> {
    if !hunk.changes() {
        return Err(ToolError::invalid(format!(
            "hunk {number} ({}, diff line {}) has no added or removed lines, so it changes \
             nothing; prefix the lines to remove with '-' and the lines to add with '+' (or \
             drop the hunk), then send the diff again. Nothing was written.",
            quote(&hunk.header),
            hunk.diff_line
        )));
    }
    let unterminated_inside = |side: Vec<&HunkLine>| {
        side.split_last()
            .is_some_and(|(_, before)| before.iter().any(|l| !l.has_ending()))
    };
    let marked = hunk.lines.iter().any(|l| !l.has_ending());
    if unterminated_inside(hunk.old_lines().collect())
        || unterminated_inside(hunk.new_lines().collect())
        || (marked && !last)
    {
        return Err(ToolError::invalid(format!(
            "hunk {number} ({}, diff line {}) has a `\\ No newline at end of file` marker after \
             a line that is not the last line of the file; the marker may only follow the \
             file's last line (on the old side, the new side, or both). Remove the misplaced \
             marker, then send the diff again. Nothing was written.",
            quote(&hunk.header),
            hunk.diff_line
        )));
    }
    Ok(())
}

/// Whether `lines[at]` and the next line are a `---`/`+++` file header pair.
fn is_file_header(lines: &[&str], at: usize) -> bool {
    lines[at].starts_with("--- ") && lines.get(at + 1).is_some_and(|l| l.starts_with("+++ "))
}

/// The file name of a `---`/`+++` line after its prefix: unquoted if git quoted it, else up to
/// a tab, without trailing whitespace.
fn header_name(rest: &str) -> String {
    let rest = rest.trim_start();
    if let Some(quoted) = rest.strip_prefix('"')
        && let Some(name) = unquote(quoted)
    {
        return name;
    }
    rest.split('\t')
        .next()
        .unwrap_or(rest)
        .trim_end()
        .to_string()
}

/// The name git quoted (the text after the opening quote), with C escapes resolved; `None`
/// when the quote is not closed.
fn unquote(quoted: &str) -> Option<String> {
    let mut bytes = Vec::new();
    let mut chars = quoted.bytes();
    while let Some(b) = chars.next() {
        match b {
            b'"' => return Some(String::from_utf8_lossy(&bytes).into_owned()),
            b'\\' => {
                let escaped = chars.next()?;
                let byte = match escaped {
                    b'a' => 0x07,
                    b'b' => 0x08,
                    b'f' => 0x0c,
                    b'n' => b'\n',
                    b'r' => b'\r',
                    b't' => b'\t',
                    b'v' => 0x0b,
                    b'0'..=b'7' => {
                        let mut value = u32::from(escaped - b'0');
                        for _ in 0..2 {
                            let digit = chars.next()?;
                            value = value * 8 + u32::from(digit.checked_sub(b'0')?);
                        }
                        u8::try_from(value).ok()?
                    }
                    other => other,
                };
                bytes.push(byte);
            }
            other => bytes.push(other),
        }
    }
    None
}

/// The error for a diff line that begins a second file.
fn second_file(at: usize, line: &str) -> ToolError {
    ToolError::invalid(format!(
        "the diff edits more than one file: diff line {} ({}) begins another file; this call \
         edits one file, so send one diff per file. Nothing was written.",
        at + 1,
        quote(line)
    ))
}

/// `raw` without its line ending.
fn bare(raw: &str) -> &str {
    let line = raw.strip_suffix('\n').unwrap_or(raw);
    line.strip_suffix('\r').unwrap_or(line)
}

/// Applies `diff` to the file `original`: every hunk or none. See the module documentation.
/// A hunk that anchors nowhere is [`ErrorKind::NoMatch`], one that anchors more than once
/// [`ErrorKind::NotUnique`], one that anchors only before the previous hunk or has nothing to
/// anchor it [`ErrorKind::InvalidArgument`].
pub fn apply(original: &[u8], diff: &UnifiedDiff) -> Result<Applied, ToolError> {
    apply_in(original, diff, Cascade::Strict)
}

/// [`apply`], anchoring hunks through the levels of `cascade` ([`Cascade::Full`]: trailing
/// whitespace, then indentation, with the added lines re-indented to the file's, then Unicode
/// punctuation). The first level that finds a hunk decides, and it must be unique there.
pub fn apply_in(
    original: &[u8],
    diff: &UnifiedDiff,
    cascade: Cascade,
) -> Result<Applied, ToolError> {
    if diff.hunks.is_empty() {
        return Err(ToolError::invalid(
            "the diff has no hunks, so it changes nothing; send at least one @@ hunk. Nothing was \
             written.",
        ));
    }
    let file = matcher::split_lines(original);
    let eol: &[u8] = if matcher::uses_crlf(original) {
        b"\r\n"
    } else {
        b"\n"
    };
    let total = diff.hunks.len();
    let mut from = 0;
    let mut placements = Vec::with_capacity(total);
    let mut final_ending = None;
    // Every hunk is anchored first; one found ignoring indentation is then re-indented, and
    // the edits are built from the hunks as they will be written.
    let mut written: Vec<Cow<'_, Hunk>> = Vec::with_capacity(total);
    for (index, hunk) in diff.hunks.iter().enumerate() {
        let at = At {
            hunk,
            number: index + 1,
            total,
            from,
            cascade,
        };
        let old: Vec<&[u8]> = hunk.old_lines().map(|l| l.text.as_bytes()).collect();
        let (start, level) = if old.is_empty() {
            if !file.is_empty() || !written.is_empty() {
                return Err(at.unanchored());
            }
            (0, Level::Exact)
        } else {
            at.anchor(&file, &old)?
        };
        if start + old.len() == file.len()
            && let Some(ending) = final_ending_of(hunk, original)
        {
            final_ending = Some(ending);
        }
        from = change_end(hunk, start);
        placements.push(Placement {
            line: start + 1,
            level,
        });
        written.push(if level == Level::Indentation {
            Cow::Owned(at.reindented(&file, start)?)
        } else {
            Cow::Borrowed(hunk)
        });
    }
    let edits: Vec<Edit<'_>> = written
        .iter()
        .zip(&placements)
        .map(|(hunk, p)| build_edit(hunk, &file, p.line - 1, p.level, eol))
        .collect();
    Ok(Applied {
        bytes: assemble(&file, &edits, eol, final_ending),
        hunks_applied: total,
        placements,
    })
}

/// The hunk lines from its first change to its last (`first..last`, indices into its lines).
fn changed_span(hunk: &Hunk) -> (usize, usize) {
    let first = hunk
        .lines
        .iter()
        .position(|l| l.kind != LineKind::Context)
        .unwrap_or(hunk.lines.len());
    let last = hunk
        .lines
        .iter()
        .rposition(|l| l.kind != LineKind::Context)
        .map_or(first, |p| p + 1);
    (first, last)
}

/// The index after the last old line a hunk anchored at `start` changes (the next hunk is
/// searched from there).
fn change_end(hunk: &Hunk, start: usize) -> usize {
    let (first, last) = changed_span(hunk);
    start
        + first
        + hunk.lines[first..last]
            .iter()
            .filter(|l| l.kind != LineKind::Added)
            .count()
}

/// The edit a hunk anchored at line `start` makes: from its first to its last change, with
/// context in between kept from the file.
fn build_edit<'a>(
    hunk: &'a Hunk,
    file: &[&'a [u8]],
    start: usize,
    level: Level,
    eol: &'a [u8],
) -> Edit<'a> {
    let (first, last) = changed_span(hunk);
    let mut at = start + first;
    let edit_start = at;
    let mut pieces = Vec::new();
    for line in &hunk.lines[first..last] {
        match line.kind {
            LineKind::Context => {
                pieces.push(Line::of(file[at]));
                at += 1;
            }
            LineKind::Removed => at += 1,
            LineKind::Added => {
                let mut piece = Line::of(line.text.as_bytes());
                if level != Level::Exact && !piece.ending.is_empty() {
                    piece.ending = eol;
                }
                pieces.push(piece);
            }
        }
    }
    Edit {
        start: edit_start,
        end: at,
        pieces,
    }
}

/// Whether the file should end in a newline after `hunk`, which reaches its end: as the new
/// side says when the sides disagree, else as the file did. `None` when the hunk's new side is
/// empty (the file's last remaining line keeps its ending).
fn final_ending_of(hunk: &Hunk, original: &[u8]) -> Option<bool> {
    let new = hunk.new_lines().last()?.has_ending();
    Some(match hunk.old_lines().last() {
        Some(old) if old.has_ending() == new => original.ends_with(b"\n"),
        _ => new,
    })
}

/// The original with `edits` (ascending, disjoint) spliced in.
fn assemble(file: &[&[u8]], edits: &[Edit<'_>], eol: &[u8], final_ending: Option<bool>) -> Vec<u8> {
    let mut out = splice(file, edits, eol);
    match final_ending {
        Some(true) if !out.is_empty() && !out.ends_with(b"\n") => out.extend_from_slice(eol),
        Some(false) if out.ends_with(b"\n") => {
            let cut = if out.ends_with(b"\r\n") { 2 } else { 1 };
            out.truncate(out.len() - cut);
        }
        _ => {}
    }
    out
}

/// A hunk being anchored, for finding it and for the error messages.
struct At<'a> {
    hunk: &'a Hunk,
    number: usize,
    total: usize,
    /// The 0-based line the search starts at: after the previous hunk's last change.
    from: usize,
    /// The levels the search goes through.
    cascade: Cascade,
}

impl At<'_> {
    /// The unique start of the hunk's old side at or after `from`, and its level.
    fn anchor(&self, file: &[&[u8]], old: &[&[u8]]) -> Result<(usize, Level), ToolError> {
        match matcher::find_lines_in(file, old, self.from, self.cascade) {
            Some(found) if found.starts.len() == 1 => Ok((found.starts[0], found.level)),
            Some(found) => Err(self.not_unique(&found.starts, found.level)),
            None => match matcher::find_lines_in(file, old, 0, self.cascade) {
                Some(before) if self.number > 1 => Err(self.out_of_order(before.starts[0])),
                _ => Err(self.no_match(file, old)),
            },
        }
    }

    /// The hunk with its added lines re-indented to the file's lines it matched at `start`.
    fn reindented(&self, file: &[&[u8]], start: usize) -> Result<Hunk, ToolError> {
        Ok(Hunk {
            lines: super::reindented(&self.hunk.lines, file, start, &self.name(), "diff")?,
            ..self.hunk.clone()
        })
    }

    /// "hunk 2 of 3 (`@@ ... @@`, diff line 14)".
    fn name(&self) -> String {
        let line = if self.hunk.diff_line > 0 {
            format!(", diff line {}", self.hunk.diff_line)
        } else {
            String::new()
        };
        format!(
            "hunk {} of {} ({}{line})",
            self.number,
            self.total,
            quote(&self.hunk.header)
        )
    }

    /// " after hunk 1 (from line 12 on)", or nothing for the first hunk.
    fn after(&self) -> String {
        if self.number > 1 {
            format!(
                " after hunk {} (from line {} on)",
                self.number - 1,
                self.from + 1
            )
        } else {
            String::new()
        }
    }

    /// The hunk's old side as the diff shows it, one line per row.
    fn looked_for(&self) -> String {
        let old: Vec<&HunkLine> = self.hunk.old_lines().collect();
        let mut shown: Vec<String> = old
            .iter()
            .take(MAX_SHOWN_LINES)
            .map(|l| {
                let prefix = if l.kind == LineKind::Removed {
                    '-'
                } else {
                    ' '
                };
                let text = String::from_utf8_lossy(lines::strip_ending(l.text.as_bytes()));
                format!("  {prefix}{}", lines::cut_chars(&text, MAX_SHOWN_CHARS).0)
            })
            .collect();
        if old.len() > MAX_SHOWN_LINES {
            shown.push(format!(
                "  … and {} more lines",
                old.len() - MAX_SHOWN_LINES
            ));
        }
        shown.join("\n")
    }

    fn no_match(&self, file: &[&[u8]], old: &[&[u8]]) -> ToolError {
        let closest = match matcher::closest_lines(file, old, self.from) {
            Some(c) => {
                // Lines that differ beyond their endings, marked in the listing.
                let marked: Vec<usize> = (c.start..c.end)
                    .filter(|&index| {
                        old.get(index - c.start + c.first_quoted)
                            .is_none_or(|quoted| {
                                lines::strip_ending(file[index]) != lines::strip_ending(quoted)
                            })
                    })
                    .collect();
                let same = c.end - c.start - marked.len();
                let whitespace = c.matching.saturating_sub(same);
                let whitespace = if whitespace > 0 {
                    format!(
                        " and {whitespace} more differ{} only in leading or trailing whitespace",
                        if whitespace == 1 { "s" } else { "" }
                    )
                } else {
                    String::new()
                };
                format!(
                    "The closest region of the file is {}, where {same} of the {} lines \
                     match{}{whitespace}; lines marked * differ:\n{}\n",
                    span(c.start, c.end),
                    old.len(),
                    if same == 1 { "es" } else { "" },
                    numbered(file, c.start, c.end, &marked)
                )
            }
            None if file.is_empty() => "The file is empty.\n".to_string(),
            None => "No line of the file equals any of these lines, even ignoring leading and \
                     trailing whitespace.\n"
                .to_string(),
        };
        ToolError::new(
            ErrorKind::NoMatch,
            format!(
                "{} was not found in the file{}. It looks for {}:\n{}\n{closest}Each \
                 context (' ') and removed ('-') line must equal a line of the file exactly \
                 (apart from line endings); the numbers in @@ lines are ignored. Re-read the \
                 file, copy these lines from it exactly, and send the diff again. Nothing was \
                 written.",
                self.name(),
                self.after(),
                old_side_count(old.len()),
                self.looked_for()
            ),
        )
    }

    fn not_unique(&self, starts: &[usize], level: Level) -> ToolError {
        let listed: Vec<String> = starts
            .iter()
            .take(MAX_SHOWN_LINES)
            .map(|s| (s + 1).to_string())
            .collect();
        let more = starts.len().saturating_sub(MAX_SHOWN_LINES);
        let more = if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        };
        ToolError::new(
            ErrorKind::NotUnique,
            format!(
                "{} matches {} places in the file{}{}, starting at lines {}{more}; a hunk must \
                 match exactly one. It looks for {}:\n{}\nAdd \
                 unchanged lines before or after the change as context (or merge the hunk with \
                 its neighbour) until they occur only once, then send the diff again. Nothing \
                 was written.",
                self.name(),
                starts.len(),
                self.after(),
                super::loosely(level),
                listed.join(", "),
                old_side_count(self.hunk.old_lines().count()),
                self.looked_for()
            ),
        )
    }

    fn out_of_order(&self, start: usize) -> ToolError {
        ToolError::invalid(format!(
            "{} matches only at line {}, which is not after the changes of hunk {} (they end at \
             line {}); hunks are applied in order, each after the previous one, and must not \
             overlap. Put the hunks in the order of the file (merge overlapping ones), then \
             send the diff again. Nothing was written.",
            self.name(),
            start + 1,
            self.number - 1,
            self.from
        ))
    }

    fn unanchored(&self) -> ToolError {
        ToolError::invalid(format!(
            "{} has only added lines, so nothing anchors it in the file (the numbers in @@ \
             lines are ignored); a hunk without context or removed lines applies only to an \
             empty file. Add the unchanged lines just before or after the insertion as context \
             lines (prefixed with a space), then send the diff again. Nothing was written.",
            self.name()
        ))
    }
}

/// The unified diff from `old` to `new` (3 lines of context, `path` on both header lines), for
/// showing what an edit did; empty when they are equal. Bytes that are not UTF-8 show as U+FFFD.
pub fn render(path: &str, old: &[u8], new: &[u8]) -> String {
    let old = String::from_utf8_lossy(old);
    let new = String::from_utf8_lossy(new);
    TextDiff::configure()
        .timeout(RENDER_TIMEOUT)
        .diff_lines(old.as_ref(), new.as_ref())
        .unified_diff()
        .context_radius(3)
        .header(path, path)
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn applied(original: &str, diff: &str) -> String {
        let parsed = parse(diff).unwrap();
        String::from_utf8(apply(original.as_bytes(), &parsed).unwrap().bytes).unwrap()
    }

    fn failed(original: &str, diff: &str) -> ToolError {
        apply(original.as_bytes(), &parse(diff).unwrap()).unwrap_err()
    }

    const FILE: &str = "one\ntwo\nthree\nfour\nfive\nsix\nseven\n";

    #[test]
    fn parses_headers_hunks_and_line_kinds() {
        let diff = parse(
            "diff --git a/src/x.rs b/src/x.rs\nindex 1..2 100644\n--- a/src/x.rs\t2024-01-01\n\
             +++ b/src/x.rs\n@@ -1,2 +1,2 @@ fn x\n a\n-b\n+c\n",
        )
        .unwrap();
        assert_eq!(diff.old_path.as_deref(), Some("a/src/x.rs"));
        assert_eq!(diff.new_path.as_deref(), Some("b/src/x.rs"));
        assert_eq!(diff.named_paths(), vec!["src/x.rs"]);
        assert_eq!(diff.hunks.len(), 1);
        let hunk = &diff.hunks[0];
        assert_eq!(hunk.header, "@@ -1,2 +1,2 @@ fn x");
        assert_eq!(hunk.diff_line, 5);
        let kinds: Vec<LineKind> = hunk.lines.iter().map(|l| l.kind).collect();
        assert_eq!(
            kinds,
            vec![LineKind::Context, LineKind::Removed, LineKind::Added]
        );
        assert_eq!(hunk.lines[1].text, "b\n");
    }

    #[test]
    fn named_paths_handles_plain_dev_null_quoted_and_renamed() {
        let names = |text: &str| {
            let diff = parse(&format!("{text}@@\n-a\n")).unwrap();
            diff.named_paths()
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
        };
        assert_eq!(names("--- x.txt\n+++ x.txt\n"), vec!["x.txt"]);
        assert_eq!(names("--- /dev/null\n+++ b/new.txt\n"), vec!["new.txt"]);
        assert_eq!(names("--- a/old\n+++ b/new\n"), vec!["old", "new"]);
        assert_eq!(
            names("--- \"a/sp ace\\t.txt\"\n+++ \"b/sp ace\\t.txt\"\n"),
            vec!["sp ace\t.txt"]
        );
        assert_eq!(
            names("--- \"a/caf\\303\\251\"\n+++ \"b/caf\\303\\251\"\n"),
            vec!["café"]
        );
        assert!(names("").is_empty());
    }

    #[test]
    fn accepts_every_hunk_header_form() {
        for header in [
            "@@",
            "@@ @@",
            "@@ -1 +1 @@",
            "@@ -10,7 +10,8 @@ fn x",
            "@@fn y",
        ] {
            let diff = parse(&format!("{header}\n-a\n+b\n")).unwrap();
            assert_eq!(diff.hunks[0].header, header);
        }
    }

    #[test]
    fn refuses_a_combined_diff() {
        let err = parse("@@@ -1 -1 +1 @@@\n++a\n").unwrap_err();
        assert!(err.message.contains("combined diff"), "{}", err.message);
        let err = parse("@@\n-a\n@@@ -1 -1 +1 @@@\n").unwrap_err();
        assert!(err.message.starts_with("diff line 3"), "{}", err.message);
    }

    #[test]
    fn a_bare_blank_line_inside_a_hunk_is_context() {
        let diff = parse("@@\n a\n\n-b\n").unwrap();
        assert_eq!(diff.hunks[0].lines[1].kind, LineKind::Context);
        assert_eq!(diff.hunks[0].lines[1].text, "\n");
        assert_eq!(applied("a\n\nb\n", "@@\n a\n\n-b\n"), "a\n\n");
    }

    #[test]
    fn trailing_bare_blank_lines_are_dropped_unless_the_counts_include_them() {
        let diff = parse("@@\n-a\n+b\n\n\n@@\n-c\n").unwrap();
        assert_eq!(diff.hunks[0].lines.len(), 2);
        let diff = parse("@@ -1,2 +1,2 @@\n-a\n+b\n\n\n").unwrap();
        assert_eq!(diff.hunks[0].lines.len(), 3);
        let diff = parse("@@ -1,9 +1,9 @@\n-a\n+b\n\n").unwrap();
        assert_eq!(diff.hunks[0].lines.len(), 2);
    }

    #[test]
    fn the_no_newline_marker_removes_the_previous_line_ending() {
        let diff = parse("@@\n-a\n\\ No newline at end of file\n+a\n").unwrap();
        assert!(!diff.hunks[0].lines[0].has_ending());
        assert!(diff.hunks[0].lines[1].has_ending());
    }

    #[test]
    fn crlf_diff_lines_keep_their_endings_and_the_last_line_gets_one() {
        let diff = parse("@@\r\n a\r\n-b").unwrap();
        assert_eq!(diff.hunks[0].header, "@@");
        assert_eq!(diff.hunks[0].lines[0].text, "a\r\n");
        assert_eq!(diff.hunks[0].lines[1].text, "b\n");
    }

    #[test]
    fn refuses_a_second_file() {
        let err = parse("--- a/x\n+++ b/x\n@@\n-a\n--- a/y\n+++ b/y\n@@\n-b\n").unwrap_err();
        assert_eq!(err.kind, ErrorKind::InvalidArgument);
        assert!(
            err.message.contains("diff line 5 (`--- a/y`)"),
            "{}",
            err.message
        );
        let err = parse("@@\n-a\ndiff --git a/y b/y\n@@\n-b\n").unwrap_err();
        assert!(
            err.message.contains("more than one file"),
            "{}",
            err.message
        );
        let err = parse("--- a\n+++ a\n--- b\n+++ b\n@@\n-a\n").unwrap_err();
        assert!(
            err.message.contains("more than one file"),
            "{}",
            err.message
        );
    }

    #[test]
    fn a_repeated_header_for_the_same_file_continues_it() {
        let diff = parse("--- a/x\n+++ b/x\n@@\n-a\n--- a/x\n+++ b/x\n@@\n-b\n").unwrap();
        assert_eq!(diff.hunks.len(), 2);
        // A removed "-- x" line followed by an added "++ y" line is not a header.
        let diff = parse("@@\n--- x\n+++ y\n").unwrap();
        assert_eq!(diff.hunks[0].lines.len(), 2);
    }

    #[test]
    fn refuses_a_diff_without_hunks() {
        let err = parse("").unwrap_err();
        assert!(
            err.message.starts_with("the diff has no hunks"),
            "{}",
            err.message
        );
        let err = parse("--- a\n+++ a\n-old\n+new\n").unwrap_err();
        assert!(
            err.message
                .contains("Diff line 3 (`-old`) looks like a hunk line"),
            "{}",
            err.message
        );
    }

    #[test]
    fn refuses_a_line_without_prefix_inside_a_hunk() {
        let err = parse("@@ -1 +1 @@\n a\nb\n").unwrap_err();
        assert_eq!(err.kind, ErrorKind::InvalidArgument);
        assert!(
            err.message.starts_with("diff line 3 (`b`) in hunk 1"),
            "{}",
            err.message
        );
    }

    #[test]
    fn refuses_a_hunk_that_changes_nothing() {
        let err = parse("@@\n a\n b\n").unwrap_err();
        assert!(err.message.contains("changes nothing"), "{}", err.message);
    }

    #[test]
    fn refuses_a_misplaced_no_newline_marker() {
        for diff in [
            "@@\n-a\n\\ No newline at end of file\n-b\n",
            "@@\n+a\n\\ No newline at end of file\n b\n",
            "@@\n-a\n\\ No newline at end of file\n@@\n-b\n",
            "@@\n\\ No newline at end of file\n-b\n",
        ] {
            let err = parse(diff).unwrap_err();
            assert_eq!(err.kind, ErrorKind::InvalidArgument, "{diff}");
            assert!(err.message.contains("No newline"), "{}", err.message);
        }
    }

    #[test]
    fn line_numbers_are_ignored() {
        let diff = "@@ -40,3 +40,3 @@\n three\n-four\n+FOUR\n five\n";
        assert_eq!(applied(FILE, diff), FILE.replace("four", "FOUR"));
        let diff = "@@\n three\n-four\n+FOUR\n five\n";
        assert_eq!(applied(FILE, diff), FILE.replace("four", "FOUR"));
    }

    #[test]
    fn hunks_apply_in_order_and_report_their_placement() {
        let diff = parse("@@\n-one\n+ONE\n two\n@@\n six\n-seven\n").unwrap();
        let result = apply(FILE.as_bytes(), &diff).unwrap();
        assert_eq!(result.bytes, b"ONE\ntwo\nthree\nfour\nfive\nsix\n");
        assert_eq!(result.hunks_applied, 2);
        let lines: Vec<usize> = result.placements.iter().map(|p| p.line).collect();
        assert_eq!(lines, vec![1, 6]);
        assert!(result.placements.iter().all(|p| p.level == Level::Exact));
    }

    #[test]
    fn each_hunk_is_searched_after_the_previous_one() {
        let file = "x\nmark\nx\nend\n";
        // "x" alone is ambiguous in the file, but after hunk 1 it occurs once.
        let diff = "@@\n-mark\n+MARK\n@@\n-x\n+y\n";
        assert_eq!(applied(file, diff), "x\nMARK\ny\nend\n");
    }

    #[test]
    fn a_hunk_may_reuse_the_previous_hunks_trailing_context() {
        let diff = "@@\n-one\n+1\n two\n three\n@@\n two\n three\n-four\n+4\n";
        assert_eq!(applied(FILE, diff), "1\ntwo\nthree\n4\nfive\nsix\nseven\n");
    }

    #[test]
    fn a_hunk_found_only_before_the_previous_one_is_out_of_order() {
        let err = failed(FILE, "@@\n-six\n+6\n@@\n-two\n+2\n");
        assert_eq!(err.kind, ErrorKind::InvalidArgument);
        assert!(
            err.message
                .starts_with("hunk 2 of 2 (`@@`, diff line 4) matches only at line 2"),
            "{}",
            err.message
        );
        assert!(
            err.message
                .contains("changes of hunk 1 (they end at line 6)"),
            "{}",
            err.message
        );
        // A repeated hunk overlaps the first one's change.
        let err = failed(FILE, "@@\n-six\n+6\n@@\n-six\n+6\n");
        assert!(
            err.message.contains("matches only at line 6"),
            "{}",
            err.message
        );
    }

    #[test]
    fn an_ambiguous_hunk_is_not_unique_and_lists_its_places() {
        let err = failed("a\nx\nb\nx\n", "@@\n-x\n+y\n");
        assert_eq!(err.kind, ErrorKind::NotUnique);
        assert!(
            err.message
                .contains("matches 2 places in the file, starting at lines 2, 4"),
            "{}",
            err.message
        );
        assert!(err.message.contains("\n  -x\n"), "{}", err.message);
    }

    #[test]
    fn a_missing_hunk_names_the_lines_and_the_closest_region() {
        let err = failed(FILE, "@@ -3,3 +3,3 @@\n three\n-FOUR\n+4\n five\n");
        assert_eq!(err.kind, ErrorKind::NoMatch);
        assert!(
            err.message.contains("  three\n  -FOUR\n   five\n"),
            "{}",
            err.message
        );
        assert!(
            err.message
                .contains("closest region of the file is lines 3-5, where 2 of the 3 lines match"),
            "{}",
            err.message
        );
        assert!(err.message.contains("* 4 | four\n"), "{}", err.message);
        assert!(err.message.contains("  3 | three\n"), "{}", err.message);
        assert!(
            err.message.ends_with("Nothing was written."),
            "{}",
            err.message
        );
    }

    #[test]
    fn a_missing_hunk_without_any_similar_line_says_so() {
        let err = failed(FILE, "@@\n-zzz\n");
        assert!(
            err.message.contains("No line of the file equals any"),
            "{}",
            err.message
        );
        let err = failed("", "@@\n-zzz\n");
        assert!(
            err.message.contains("The file is empty."),
            "{}",
            err.message
        );
    }

    #[test]
    fn an_added_only_hunk_fills_an_empty_file_and_is_refused_elsewhere() {
        assert_eq!(applied("", "@@ -0,0 +1,2 @@\n+a\n+b\n"), "a\nb\n");
        assert_eq!(applied("", "@@\n+a\n\\ No newline at end of file\n"), "a");
        let err = failed(FILE, "@@ -1,0 +1 @@\n+zero\n");
        assert_eq!(err.kind, ErrorKind::InvalidArgument);
        assert!(
            err.message.contains("has only added lines"),
            "{}",
            err.message
        );
        let err = failed("", "@@\n+a\n@@\n+b\n");
        assert!(err.message.starts_with("hunk 2 of 2"), "{}", err.message);
    }

    #[test]
    fn a_crlf_file_keeps_crlf_under_an_lf_diff() {
        let file = "one\r\ntwo\r\nthree\r\n";
        let diff = parse("@@\n one\n-two\n+2\n+2b\n").unwrap();
        let result = apply(file.as_bytes(), &diff).unwrap();
        assert_eq!(result.bytes, b"one\r\n2\r\n2b\r\nthree\r\n");
        assert_eq!(result.placements[0].level, Level::LineEndings);
    }

    #[test]
    fn an_lf_file_keeps_lf_under_a_crlf_diff() {
        assert_eq!(applied("a\nb\n", "@@\r\n a\r\n-b\r\n+c\r\n"), "a\nc\n");
    }

    #[test]
    fn an_exact_match_keeps_the_diffs_endings() {
        // A mixed file matched exactly: the added line keeps its own (LF) ending.
        assert_eq!(applied("a\r\nb\n", "@@\n b\n+c\n"), "a\r\nb\nc\n");
    }

    #[test]
    fn final_newline_follows_the_diff_when_it_says_so() {
        // Removing the final newline.
        let diff = "@@\n a\n-b\n+b\n\\ No newline at end of file\n";
        assert_eq!(applied("a\nb\n", diff), "a\nb");
        // Adding it.
        let diff = "@@\n a\n-b\n\\ No newline at end of file\n+b\n";
        assert_eq!(applied("a\nb", diff), "a\nb\n");
        // Changing the last line, both sides without newline.
        let diff = "@@\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n";
        assert_eq!(applied("a\nb", diff), "a\nc");
    }

    #[test]
    fn a_file_without_final_newline_keeps_it_when_the_diff_omits_the_markers() {
        assert_eq!(applied("a\nb", "@@\n a\n b\n+c\n"), "a\nb\nc");
        assert_eq!(applied("a\nb", "@@\n a\n-b\n+c\n"), "a\nc");
        assert_eq!(applied("a\r\nb", "@@\n-a\n+x\n b\n"), "x\r\nb");
    }

    #[test]
    fn a_file_with_final_newline_keeps_it_when_the_diff_wrongly_marks_none() {
        let diff = "@@\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n";
        assert_eq!(applied("a\nb\n", diff), "a\nc\n");
    }

    #[test]
    fn removing_the_last_lines_keeps_the_previous_ending() {
        assert_eq!(
            applied("a\nb\nc", "@@\n a\n-b\n-c\n\\ No newline at end of file\n"),
            "a\n"
        );
        assert_eq!(applied("a\nb\n", "@@\n-a\n-b\n"), "");
    }

    #[test]
    fn apply_refuses_a_diff_without_hunks() {
        let err = apply(b"a\n", &UnifiedDiff::default()).unwrap_err();
        assert_eq!(err.kind, ErrorKind::InvalidArgument);
    }

    #[test]
    fn render_shows_the_change_and_nothing_for_equal_texts() {
        assert_eq!(
            render("x.txt", b"a\nb\n", b"a\nc\n"),
            "--- x.txt\n+++ x.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n"
        );
        assert_eq!(render("x.txt", b"a\n", b"a\n"), "");
        assert_eq!(
            render("x", b"a", b"b"),
            "--- x\n+++ x\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+b\n\\ No newline at end of file\n"
        );
    }

    #[test]
    fn a_rendered_diff_applies_back() {
        let old = "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n";
        let new = "a\nB\nc\nd\ne\nf\ng\nh\nI\nj\nk";
        assert_eq!(
            applied(old, &render("p", old.as_bytes(), new.as_bytes())),
            new
        );
    }
}
