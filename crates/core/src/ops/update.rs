//! coder's update-file engine: line operations applied bottom-up and regex replacements, with
//! post-apply echoes. Pure: bytes in, bytes out.
//!
//! The caller reads the file, checks its size caps, calls [`apply`] and writes the returned
//! bytes atomically; any error means nothing may be written.
//!
//! # Lines
//!
//! Lines are 0x0A- or EOF-terminated segments; a trailing newline does not create a phantom
//! line (the read window's convention). Line numbers are 1-based and inclusive.
//!
//! # Line ops
//!
//! [`Op::Insert`], [`Op::Remove`] and [`Op::UpdateLines`] all refer to the ORIGINAL line
//! numbers: the batch behaves as if the ops were applied one by one from the highest affected
//! line down (when an insert and a range start at the same line, the range goes first, so the
//! inserted lines end up before the range's new content). Two line ops overlap, and the call is
//! refused, when
//!
//! - two ranges (remove / update_lines) share a line;
//! - two inserts have the same `at_line` (their relative order would be a guess);
//! - an insert lies strictly inside a range: `from_line < at_line <= to_line`. Inserting at
//!   `from_line` (just before the range) or at `to_line + 1` (just after it) is allowed.
//!
//! `content` becomes whole lines by the same convention: `"a\nb"` and `"a\nb\n"` are both the
//! two lines `a` and `b`, `"\n"` is one blank line, and `""` is refused (an insert of nothing,
//! or an update that is really a remove, is almost always a mistake). Each content line is
//! stripped of its `\n` / `\r\n` and given the file's line ending: the ending of the file's
//! first line (`\n` when the file has no line ending at all). Untouched lines keep their bytes.
//!
//! The final-newline property belongs to the file: when the original file's last line has no
//! line ending, the last line of the result has none either (whichever line is last now),
//! unless that last line is empty — an empty line exists only when terminated. A line that
//! was last without an ending and is no longer last gets the file's ending. An empty file gains
//! a final newline with its first lines.
//!
//! # Expected text
//!
//! Each line op may carry `expect_text`, the text the caller expects where it acts, as its read
//! showed it (line endings aside; `N→` prefixes copied from a numbered read are accepted when
//! their numbers are the lines'): for `update_lines` and `remove`, the lines `from_line` to
//! `to_line`; for `insert`, the lines from `at_line` on, which the new content goes before (an
//! insert that appends has none, so its `expect_text` is empty). Any difference refuses the
//! whole call before anything is applied, naming what the lines hold now: line numbers from an
//! old read never overwrite text they did not mean.
//!
//! # Replace ops
//!
//! [`Op::Replace`] ops run after all line ops, on the whole body, in op order, each on the
//! result of the previous one, with [`regex::bytes`] (so invalid UTF-8 in the file is fine).
//! Besides `ignore_case` and `dot_matches_newline`, `^` and `$` match at line boundaries
//! (`\r\n` included, as in coder's search; `\A` and `\z` anchor the whole body) and, without
//! `dot_matches_newline`, `.` matches neither `\n` nor `\r`. An empty pattern is refused. In a
//! CRLF file a `\n` in the replacement's literal text (not after `\r`) is written `\r\n`;
//! captured text is copied as matched.
//!
//! Replacement templates: `$1` / `${1}` by index (`$0` the whole match), `$name` / `${name}`
//! by name, `$$` a literal `$`. An unbraced reference takes the longest `[0-9A-Za-z_]` run
//! (`$1a` is the group named `1a`; write `${1}a`). A reference to a group the pattern does not
//! define, an unterminated or empty `${}`, and a `$` followed by anything else (or nothing) are
//! refused before anything is applied, even when the replacement goes unused. A defined group
//! that did not take part in a match expands to nothing.
//!
//! `expect_matches: N` counts the matches on the body the op runs on; any other count refuses
//! the whole call.
//!
//! # Echoes
//!
//! Every echo is computed on the final bytes (after all line and replace ops); line numbers
//! are final line numbers, lines are shown without their ending, decoded lossily, and cut
//! after [`ECHO_LINE_MAX_BYTES`] bytes with a `…[+N bytes]` marker.
//!
//! - A line op echoes its region (the new lines of an insert / update_lines; for a remove, the
//!   place the lines were) with [`ECHO_CONTEXT_LINES`] lines of context on each side; a remove
//!   shows the two lines before and the two after the removal point. A region longer than
//!   [`ECHO_REGION_MAX_LINES`] shows its first and last half of that and sets `elided` to the
//!   number of lines left out between them. A later replace that changes the region widens it
//!   to cover the replaced text.
//! - A replace op echoes its first [`MAX_REPLACE_SITES`] match sites, no context: the first and
//!   last line of the replacement text (one line when it spans one; a replacement with no text
//!   echoes the line at the removal point), `elided` = lines between them when there are any,
//!   and `total_replacements` on every site. A replace that matched nothing echoes one entry
//!   with `from_line: 0`, no lines and `total_replacements: 0`.
//! - When no line is echoed (the file ends up empty) `from_line` is 0.
//!
//! Echoes come in op order (sites in file order) and are kept while their total size (bytes of
//! the echoed lines plus one per line) stays within [`ECHO_BUDGET_BYTES`]; the first echo that
//! does not fit and all after it are dropped and `echoes_truncated` is set.

use regex::bytes::{Regex, RegexBuilder};
use serde::{Deserialize, Serialize};

use crate::error::ToolError;
use crate::text::lines::{self, Line};

type Result<T, E = UpdateError> = std::result::Result<T, E>;

/// The total size of the echoes of one call: bytes of the echoed lines plus one per line.
pub const ECHO_BUDGET_BYTES: usize = 4096;
/// Lines of context a line op's echo shows on each side of its region.
pub const ECHO_CONTEXT_LINES: usize = 2;
/// The longest region a line op's echo shows whole; a longer one shows its first and last
/// `ECHO_REGION_MAX_LINES / 2` lines.
pub const ECHO_REGION_MAX_LINES: usize = 8;
/// The most match sites one replace op echoes.
pub const MAX_REPLACE_SITES: usize = 5;
/// The longest echoed line, in bytes of UTF-8; longer lines are cut and marked.
pub const ECHO_LINE_MAX_BYTES: usize = 256;

/// The most match line numbers an `expect_matches` error lists.
const MAX_LINES_LISTED: usize = 10;
/// The most characters of a pattern an error quotes.
const MAX_PATTERN_SHOWN: usize = 80;

/// One operation of an update-file call, in the wire shape
/// (`{"op": "insert", "at_line": 3, "content": "…"}`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
pub enum Op {
    /// Inserts `content` before line `at_line`; `at_line = lines + 1` appends.
    Insert {
        /// The 1-based line the content goes before.
        at_line: u64,
        /// The lines to insert.
        content: String,
        /// The lines expected from `at_line` on (empty when appending); see the module doc.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        expect_text: Option<String>,
    },
    /// Deletes lines `from_line..=to_line`.
    Remove {
        /// The first line removed, 1-based.
        from_line: u64,
        /// The last line removed, inclusive.
        to_line: u64,
        /// The lines expected in `from_line..=to_line`; see the module doc.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        expect_text: Option<String>,
    },
    /// Overwrites lines `from_line..=to_line` with `content`.
    UpdateLines {
        /// The first line replaced, 1-based.
        from_line: u64,
        /// The last line replaced, inclusive.
        to_line: u64,
        /// The new lines.
        content: String,
        /// The lines expected in `from_line..=to_line`; see the module doc.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        expect_text: Option<String>,
    },
    /// Replaces every match of `pattern` in the body (after the line ops) with `replacement`.
    Replace {
        /// The regex.
        pattern: String,
        /// The substitution template (`$1`, `${name}`, `$$`).
        replacement: String,
        /// Match letters case-insensitively.
        #[serde(default)]
        ignore_case: bool,
        /// Let `.` match line endings too.
        #[serde(default)]
        dot_matches_newline: bool,
        /// Refuse the call unless the pattern matches exactly this many times.
        #[serde(default)]
        expect_matches: Option<u64>,
    },
}

impl Op {
    /// The op's wire name.
    pub fn name(&self) -> &'static str {
        match self {
            Op::Insert { .. } => "insert",
            Op::Remove { .. } => "remove",
            Op::UpdateLines { .. } => "update_lines",
            Op::Replace { .. } => "replace",
        }
    }

    /// Whether the op names lines by number (insert, remove, update_lines).
    pub fn is_line_op(&self) -> bool {
        !matches!(self, Op::Replace { .. })
    }
}

/// The post-apply snapshot of the region one op affected.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OpEcho {
    /// Index of the op in the call's ops (0-based).
    pub op_index: u32,
    /// 1-based final line number of the first echoed line; 0 when no line is echoed.
    pub from_line: u64,
    /// The echoed lines, without their endings.
    pub lines: Vec<String>,
    /// Lines left out: the middle of a long line-op region, or the inner lines of a replace
    /// site spanning more than two lines.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elided: Option<u64>,
    /// On replace echoes only: the op's replacements across the whole body.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_replacements: Option<u64>,
}

/// Why the ops were refused; nothing may be written. The refusals that send the caller back to
/// read the file are typed, for the surface to word with its read tool; the others speak of
/// the ops' own fields ([`Op`]'s wire shape) and come worded.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum UpdateError {
    /// An insert's `at_line` is past the end of the file (`at_line: total + 1` appends).
    InsertPastEnd {
        /// The op's index in the call.
        index: u32,
        /// The `at_line` given.
        at_line: u64,
        /// The file's lines.
        total: u64,
    },
    /// A range's `from_line` is past the end of the file.
    FromPastEnd {
        /// The op's index in the call.
        index: u32,
        /// The op's wire name (remove, update_lines).
        op: &'static str,
        /// The `from_line` given.
        from_line: u64,
        /// The file's lines.
        total: u64,
    },
    /// A line op's `expect_text` is not what its lines hold.
    ExpectedDiffers {
        /// The op's index in the call.
        index: u32,
        /// The op's wire name.
        op: &'static str,
        /// What the lines hold instead.
        now: LinesNow,
    },
    /// A replace matched another number of times than its `expect_matches`.
    Mismatch {
        /// The op's index in the call.
        index: u32,
        /// The pattern, quoted and cut as a refusal shows it.
        pattern: String,
        /// The matches found.
        count: u64,
        /// The `expect_matches` given.
        expect: u64,
        /// The lines the first matches start on (numbered after the call's line ops and the
        /// replaces before this one), each once.
        lines: Vec<usize>,
        /// Whether more matches than those lines show were found.
        more: bool,
    },
    /// Any other refusal, worded in the terms of the ops' fields.
    Invalid(ToolError),
}

/// An [`UpdateError::Invalid`] saying `message`.
fn invalid(message: impl Into<String>) -> UpdateError {
    UpdateError::Invalid(ToolError::invalid(message))
}

impl From<ToolError> for UpdateError {
    fn from(e: ToolError) -> Self {
        UpdateError::Invalid(e)
    }
}

/// What the lines a line op's `expect_text` names hold now.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum LinesNow {
    /// The insert appends after the last line (`at_line`), where there is no line, so its
    /// `expect_text` must be empty.
    Appends {
        /// The `at_line` given.
        at_line: u64,
    },
    /// The lines `first..=last` hold `shown` (numbered as a numbered read shows them, at most a
    /// few, the last entry saying how many more there are).
    Lines {
        /// The first line compared.
        first: u64,
        /// The last line compared.
        last: u64,
        /// For an insert: how many lines from `first` on were compared.
        insert: Option<u64>,
        /// The lines, `N→text`.
        shown: Vec<String>,
    },
}

/// The result of a successful [`apply`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Applied {
    /// The new file content.
    pub bytes: Vec<u8>,
    /// How many ops were applied (all of them).
    pub applied: u32,
    /// The echoes, in op order, within the budget.
    pub echoes: Vec<OpEcho>,
    /// Whether echoes were dropped for the budget.
    pub echoes_truncated: bool,
    /// The line count of `bytes`.
    pub new_line_count: u64,
}

/// Applies `ops` to `original`. Any invalid op, overlap, bad regex or template, or
/// `expect_matches` mismatch fails the whole call.
pub fn apply(original: &[u8], ops: &[Op]) -> Result<Applied> {
    let orig = lines::split(original);
    let total = orig.len() as u64;
    let mut edits = Vec::new();
    let mut replacers = Vec::new();
    for (i, op) in ops.iter().enumerate() {
        let index = to_u32(i);
        match op {
            Op::Insert {
                at_line,
                content,
                expect_text,
            } => {
                check_insert(index, *at_line, content, total)?;
                check_expected(index, op, &orig, expect_text.as_deref())?;
                edits.push(Edit {
                    index,
                    kind: EditKind::Insert,
                    from: *at_line,
                    to: *at_line,
                    lines: content_lines(content),
                });
            }
            Op::Remove {
                from_line,
                to_line,
                expect_text,
            } => {
                check_range(index, op.name(), *from_line, *to_line, total)?;
                check_expected(index, op, &orig, expect_text.as_deref())?;
                edits.push(Edit {
                    index,
                    kind: EditKind::Remove,
                    from: *from_line,
                    to: *to_line,
                    lines: Vec::new(),
                });
            }
            Op::UpdateLines {
                from_line,
                to_line,
                content,
                expect_text,
            } => {
                check_range(index, op.name(), *from_line, *to_line, total)?;
                check_expected(index, op, &orig, expect_text.as_deref())?;
                if content.is_empty() {
                    return Err(invalid(format!(
                        "ops[{index}] (update_lines): content is empty, which is ambiguous; to \
                         delete {lines} pass {{\"op\": \"remove\", \"from_line\": {from_line}, \
                         \"to_line\": {to_line}}}, to blank {them} pass content \"\\n\" (one \
                         blank line)",
                        lines = span(*from_line, *to_line),
                        them = if from_line == to_line { "it" } else { "them" },
                    )));
                }
                edits.push(Edit {
                    index,
                    kind: EditKind::Update,
                    from: *from_line,
                    to: *to_line,
                    lines: content_lines(content),
                });
            }
            Op::Replace {
                pattern,
                replacement,
                ignore_case,
                dot_matches_newline,
                expect_matches,
            } => replacers.push(Replacer::new(
                index,
                pattern,
                replacement,
                *ignore_case,
                *dot_matches_newline,
                *expect_matches,
            )?),
        }
    }
    edits.sort_by_key(|e| (e.from, e.kind != EditKind::Insert, e.index));
    check_overlaps(&edits)?;

    let ending = detect_ending(original);
    let (mut body, mut pending) = if edits.is_empty() {
        (original.to_vec(), Vec::new())
    } else {
        apply_lines(original, &orig, &edits, ending)
    };
    for r in &replacers {
        body = r.run(&body, ending, &mut pending)?;
    }
    pending.sort_by_key(|p| p.op_index);
    let (echoes, echoes_truncated) = render(&body, &pending);
    Ok(Applied {
        new_line_count: lines::count(&body) as u64,
        bytes: body,
        applied: to_u32(ops.len()),
        echoes,
        echoes_truncated,
    })
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

// ---------------------------------------------------------------------------------------------
// Lines

const LF: &[u8] = b"\n";
const CRLF: &[u8] = b"\r\n";

/// The texts of `content`'s lines, endings stripped.
fn content_lines(content: &str) -> Vec<&[u8]> {
    lines::split(content.as_bytes())
        .into_iter()
        .map(|l| l.body)
        .collect()
}

/// The ending of the file's first line; `\n` when it has none.
fn detect_ending(bytes: &[u8]) -> &'static [u8] {
    match memchr::memchr(b'\n', bytes) {
        Some(i) if i > 0 && bytes[i - 1] == b'\r' => CRLF,
        _ => LF,
    }
}

/// "1 line" or "3 lines".
pub fn plural(n: u64, one: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {one}s")
    }
}

/// "line 4" or "lines 4-7".
pub fn span(from: u64, to: u64) -> String {
    if from == to {
        format!("line {from}")
    } else {
        format!("lines {from}-{to}")
    }
}

// ---------------------------------------------------------------------------------------------
// Line ops

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum EditKind {
    Insert,
    Remove,
    Update,
}

/// A validated line op. For an insert `from == to == at_line`.
#[derive(Debug)]
struct Edit<'a> {
    index: u32,
    kind: EditKind,
    from: u64,
    to: u64,
    lines: Vec<&'a [u8]>,
}

impl Edit<'_> {
    fn describe(&self) -> String {
        match self.kind {
            EditKind::Insert => format!("insert at line {}", self.from),
            EditKind::Remove => format!("remove {}", span(self.from, self.to)),
            EditKind::Update => format!("update_lines of {}", span(self.from, self.to)),
        }
    }
}

fn check_insert(index: u32, at: u64, content: &str, total: u64) -> Result<()> {
    let append = total + 1;
    if at == 0 {
        return Err(invalid(format!(
            "ops[{index}] (insert): at_line 0 is not a line (line numbers are 1-based); pass \
             at_line: 1 to insert before the first line, or at_line: {append} to append after \
             the file's {}",
            plural(total, "line")
        )));
    }
    if at > append {
        return Err(UpdateError::InsertPastEnd {
            index,
            at_line: at,
            total,
        });
    }
    if content.is_empty() {
        return Err(invalid(format!(
            "ops[{index}] (insert): content is empty, so the insert would add no line; pass the \
             text to insert (content \"\\n\" inserts one blank line)"
        )));
    }
    Ok(())
}

fn check_range(index: u32, name: &'static str, from: u64, to: u64, total: u64) -> Result<()> {
    if total == 0 {
        return Err(invalid(format!(
            "ops[{index}] ({name}): the file is empty (0 lines), so there are no lines \
             {from}-{to} to {}; add content with {{\"op\": \"insert\", \"at_line\": 1, \
             \"content\": …}}",
            if name == "remove" { "remove" } else { "update" }
        )));
    }
    if from == 0 {
        return Err(invalid(format!(
            "ops[{index}] ({name}): from_line 0 is not a line (line numbers are 1-based); the \
             file has {}, so use from_line 1 to {total}",
            plural(total, "line")
        )));
    }
    if to < from {
        return Err(invalid(format!(
            "ops[{index}] ({name}): to_line {to} is before from_line {from}; the range is \
             inclusive, so pass to_line >= from_line (to_line: {from} for that one line); the \
             file has {}",
            plural(total, "line")
        )));
    }
    if from > total {
        return Err(UpdateError::FromPastEnd {
            index,
            op: name,
            from_line: from,
            total,
        });
    }
    if to > total {
        return Err(invalid(format!(
            "ops[{index}] ({name}): to_line {to} is past the end of the file, which has {}; \
             pass to_line: {total} to go to the last line",
            plural(total, "line")
        )));
    }
    Ok(())
}

/// The most lines of the file an expected-text refusal or [`lines_now`] shows per op.
const LINES_SHOWN_PER_OP: usize = 8;
/// The most lines of the file [`lines_now`] shows in all.
const LINES_SHOWN: usize = 24;

/// The 1-based lines a line op acts on, for comparing and showing them: `(first, last)`, with
/// `last < first` when there is none (an insert that appends). An insert's are the lines from
/// `at_line` on, as many as `want` (at least one).
fn op_lines(op: &Op, total: u64, want: usize) -> Option<(u64, u64)> {
    match op {
        Op::Insert { at_line, .. } => {
            let want = want.max(1) as u64;
            Some((*at_line, at_line.saturating_add(want - 1).min(total)))
        }
        Op::Remove {
            from_line, to_line, ..
        }
        | Op::UpdateLines {
            from_line, to_line, ..
        } => Some((*from_line, (*to_line).min(total))),
        Op::Replace { .. } => None,
    }
}

/// Lines `first..=last` of the file, numbered as a numbered read shows them (`N→text`), at most
/// `max` of them, each cut as an echo line is.
fn numbered_lines(orig: &[Line<'_>], first: u64, last: u64, max: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut n = first;
    while n <= last && n >= 1 {
        let Some(line) = usize::try_from(n - 1).ok().and_then(|i| orig.get(i)) else {
            break;
        };
        if out.len() == max {
            out.push(format!("… ({} more lines)", last - n + 1));
            break;
        }
        out.push(format!("{n}→{}", shown_line(line.body)));
        n += 1;
    }
    out
}

/// A line's text as a refusal shows it: lossy UTF-8, cut after [`ECHO_LINE_MAX_BYTES`].
fn shown_line(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    if text.len() <= ECHO_LINE_MAX_BYTES {
        return text.into_owned();
    }
    let mut cut = ECHO_LINE_MAX_BYTES;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}…[+{} bytes]", &text[..cut], text.len() - cut)
}

/// Refuses a line op whose `expect_text` is not what its lines hold.
fn check_expected(index: u32, op: &Op, orig: &[Line<'_>], expected: Option<&str>) -> Result<()> {
    let Some(expected) = expected else {
        return Ok(());
    };
    let total = orig.len() as u64;
    let want = content_lines(expected);
    let Some((first, last)) = op_lines(op, total, want.len()) else {
        return Ok(());
    };
    let actual: Vec<&[u8]> = if last < first {
        Vec::new()
    } else {
        orig[usize::try_from(first - 1)
            .unwrap_or(usize::MAX)
            .min(orig.len())
            ..usize::try_from(last).unwrap_or(usize::MAX).min(orig.len())]
            .iter()
            .map(|l| l.body)
            .collect()
    };
    let appends = matches!(op, Op::Insert { at_line, .. } if *at_line == total + 1);
    // An insert's lines are as many as expected from at_line on (fewer at the end of the
    // file, which then differ).
    let same = |want: &[&[u8]]| {
        if appends {
            want.is_empty()
        } else {
            want == actual.as_slice()
        }
    };
    if same(&want) {
        return Ok(());
    }
    // Lines copied from a numbered read, `N→` prefixes and all, are the same text.
    let unnumbered: Option<Vec<&[u8]>> = want
        .iter()
        .enumerate()
        .map(|(i, line)| {
            let prefix = format!("{}→", first + i as u64);
            line.strip_prefix(prefix.as_bytes())
        })
        .collect();
    if unnumbered.is_some_and(|u| !u.is_empty() && same(&u)) {
        return Ok(());
    }
    let now = if appends {
        LinesNow::Appends { at_line: total + 1 }
    } else {
        LinesNow::Lines {
            first,
            last,
            insert: matches!(op, Op::Insert { .. }).then_some(want.len().max(1) as u64),
            shown: numbered_lines(orig, first, last, LINES_SHOWN_PER_OP),
        }
    };
    Err(UpdateError::ExpectedDiffers {
        index,
        op: op.name(),
        now,
    })
}

/// What the lines the line ops of `ops` name hold in `original` now, numbered as a numbered
/// read shows them: one block per op, a few lines each. For a refusal that asks for a fresh
/// read.
pub fn lines_now(original: &[u8], ops: &[Op]) -> String {
    let orig = lines::split(original);
    let total = orig.len() as u64;
    let mut out = Vec::new();
    let mut shown = 0;
    for (index, op) in ops.iter().enumerate() {
        let Some((first, last)) = op_lines(op, total, 1) else {
            continue;
        };
        let head = match op {
            Op::Insert { at_line, .. } => format!("ops[{index}] (insert at line {at_line})"),
            _ => format!(
                "ops[{index}] ({} of {})",
                op.name(),
                match op {
                    Op::Remove {
                        from_line, to_line, ..
                    }
                    | Op::UpdateLines {
                        from_line, to_line, ..
                    } => span(*from_line, *to_line),
                    _ => String::new(),
                }
            ),
        };
        if shown >= LINES_SHOWN {
            out.push(format!("{head}: not shown"));
            continue;
        }
        let lines = numbered_lines(
            &orig,
            first,
            last,
            LINES_SHOWN_PER_OP.min(LINES_SHOWN - shown),
        );
        shown += lines.len();
        if lines.is_empty() {
            out.push(format!(
                "{head}: no such line now (the file has {})",
                plural(total, "line")
            ));
        } else {
            out.push(format!("{head}:\n{}", lines.join("\n")));
        }
    }
    out.join("\n")
}

/// Refuses overlapping line ops. `edits` is sorted by (start, inserts first, index).
fn check_overlaps(edits: &[Edit<'_>]) -> Result<()> {
    let mut last_range: Option<&Edit<'_>> = None;
    let mut last_insert: Option<&Edit<'_>> = None;
    for e in edits {
        if e.kind == EditKind::Insert {
            if let Some(r) = last_range.filter(|r| r.from < e.from && e.from <= r.to) {
                let (verb, fold) = if r.kind == EditKind::Remove {
                    (
                        "removes",
                        "add the text with an update_lines of those lines",
                    )
                } else {
                    ("replaces", "put the text into that update_lines' content")
                };
                return Err(overlap(
                    r,
                    e,
                    format!(
                        "the insert falls inside {} that ops[{}] {verb}; insert at line {} \
                         (before the range) or {} (after it), or {fold}",
                        span(r.from, r.to),
                        r.index,
                        r.from,
                        r.to + 1
                    ),
                ));
            }
            if let Some(p) = last_insert.filter(|p| p.from == e.from) {
                return Err(overlap(
                    p,
                    e,
                    format!(
                        "both insert at line {}, so their order would be a guess; put both \
                         texts in one insert, in the order you want them",
                        e.from
                    ),
                ));
            }
            last_insert = Some(e);
        } else {
            if let Some(r) = last_range.filter(|r| e.from <= r.to) {
                let shared = span(e.from, e.to.min(r.to));
                return Err(overlap(
                    r,
                    e,
                    format!(
                        "both touch {shared}; merge them into one update_lines of {} (or \
                         one remove), or send the second in a later call",
                        span(r.from, r.to.max(e.to))
                    ),
                ));
            }
            last_range = Some(e);
        }
    }
    Ok(())
}

fn overlap(a: &Edit<'_>, b: &Edit<'_>, why: String) -> UpdateError {
    let (a, b) = if a.index <= b.index { (a, b) } else { (b, a) };
    ToolError::invalid(format!(
        "ops[{}] ({}) and ops[{}] ({}) overlap: {why}. Line ops in one call must not overlap \
         because each refers to the file's original line numbers",
        a.index,
        a.describe(),
        b.index,
        b.describe()
    ))
    .into()
}

/// An echo to compute at the end: its op, the byte range of its region in the current body,
/// and its kind.
#[derive(Clone, Debug)]
struct Pending {
    op_index: u32,
    start: usize,
    end: usize,
    kind: PendingKind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PendingKind {
    /// A line op's region, echoed with context.
    Window,
    /// A replace site; the op's total replacements.
    Site(u64),
    /// A replace that matched nothing.
    NoMatch,
}

/// Builds the body after the line ops (sorted, non-overlapping) and their echo regions.
fn apply_lines(
    original: &[u8],
    orig: &[Line<'_>],
    edits: &[Edit<'_>],
    ending: &'static [u8],
) -> (Vec<u8>, Vec<Pending>) {
    let mut out: Vec<Line<'_>> = Vec::with_capacity(orig.len());
    // (op index, first line index in `out`, line count)
    let mut regions = Vec::with_capacity(edits.len());
    let mut next = 0usize; // 0-based index of the next original line to copy
    for e in edits {
        // Validated: 1 <= from <= orig.len() + 1.
        let at = usize::try_from(e.from - 1)
            .unwrap_or(usize::MAX)
            .min(orig.len());
        if next < at {
            out.extend_from_slice(&orig[next..at]);
            next = at;
        }
        regions.push((e.index, out.len(), e.lines.len()));
        out.extend(e.lines.iter().map(|body| Line { body, ending }));
        if e.kind != EditKind::Insert {
            next = usize::try_from(e.to).unwrap_or(usize::MAX).min(orig.len());
        }
    }
    out.extend_from_slice(&orig[next.min(orig.len())..]);

    let unterminated = original.last().is_some_and(|&b| b != b'\n');
    let last = out.len().saturating_sub(1);
    for (i, line) in out.iter_mut().enumerate() {
        if i == last && unterminated && !line.body.is_empty() {
            line.ending = b"";
        } else if line.ending.is_empty() {
            line.ending = ending;
        }
    }

    let mut body = Vec::with_capacity(original.len() + 64);
    let mut starts = Vec::with_capacity(out.len() + 1);
    for line in &out {
        starts.push(body.len());
        body.extend_from_slice(line.body);
        body.extend_from_slice(line.ending);
    }
    starts.push(body.len());
    let pending = regions
        .into_iter()
        .map(|(op_index, first, count)| Pending {
            op_index,
            start: starts[first],
            end: starts[first + count],
            kind: PendingKind::Window,
        })
        .collect();
    (body, pending)
}

// ---------------------------------------------------------------------------------------------
// Replace ops

/// A piece of a parsed replacement template.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Piece {
    Literal(Vec<u8>),
    Group(usize),
}

/// A validated replace op.
#[derive(Debug)]
struct Replacer {
    index: u32,
    regex: Regex,
    template: Vec<Piece>,
    expect: Option<u64>,
    pattern: String,
}

impl Replacer {
    fn new(
        index: u32,
        pattern: &str,
        replacement: &str,
        ignore_case: bool,
        dot_matches_newline: bool,
        expect: Option<u64>,
    ) -> Result<Replacer> {
        if pattern.is_empty() {
            return Err(invalid(format!(
                "ops[{index}] (replace): pattern is empty, which matches between every two \
                 characters; pass the text to find (a regex; anchor whole lines with ^ and $)"
            )));
        }
        let regex = RegexBuilder::new(pattern)
            .case_insensitive(ignore_case)
            .dot_matches_new_line(dot_matches_newline)
            .multi_line(true)
            .crlf(true)
            .build()
            .map_err(|e| {
                ToolError::invalid(format!(
                    "ops[{index}] (replace): pattern is not a valid regex: {e}\nFix the pattern \
                     (escape literal metacharacters such as ( ) [ ] {{ }} . * + ? | \\ with a \
                     backslash) and call again"
                ))
            })?;
        let template = parse_template(index, replacement, &regex)?;
        Ok(Replacer {
            index,
            regex,
            template,
            expect,
            pattern: pattern.to_string(),
        })
    }

    /// Replaces every match in `body`, maps the `pending` regions onto the result and adds
    /// this op's site echoes.
    fn run(
        &self,
        body: &[u8],
        ending: &'static [u8],
        pending: &mut Vec<Pending>,
    ) -> Result<Vec<u8>> {
        // Every region boundary, sorted: (position, is_end, pending index).
        let mut points: Vec<(usize, bool, usize)> = Vec::with_capacity(pending.len() * 2);
        for (i, p) in pending.iter().enumerate() {
            if p.kind != PendingKind::NoMatch {
                points.push((p.start, false, i));
                points.push((p.end, true, i));
            }
        }
        points.sort_unstable();
        let mut mapped: Vec<(usize, usize)> = pending.iter().map(|p| (p.start, p.end)).collect();
        let mut set = |(_, is_end, i): (usize, bool, usize), to: usize| {
            if is_end {
                mapped[i].1 = to;
            } else {
                mapped[i].0 = to;
            }
        };

        let crlf = ending == CRLF;
        let mut out = Vec::with_capacity(body.len());
        let mut sites: Vec<(usize, usize)> = Vec::new();
        let mut starts: Vec<usize> = Vec::new();
        let mut count: u64 = 0;
        let mut copied = 0usize; // end of the previous match in `body`
        let mut next_point = 0usize;
        for caps in self.regex.captures_iter(body) {
            let Some(m) = caps.get(0) else { continue };
            let (a, b) = (m.start(), m.end());
            out.extend_from_slice(&body[copied..a]);
            let na = out.len();
            for piece in &self.template {
                match piece {
                    Piece::Literal(text) => push_literal(&mut out, text, crlf),
                    Piece::Group(g) => {
                        if let Some(c) = caps.get(*g) {
                            out.extend_from_slice(c.as_bytes());
                        }
                    }
                }
            }
            let nb = out.len();
            while let Some(&pt) = points.get(next_point) {
                let (p, is_end, _) = pt;
                if p < a || (p == a && a < b) {
                    set(pt, na - (a - p));
                } else if p > a && p < b {
                    set(pt, if is_end { nb } else { na });
                } else {
                    break;
                }
                next_point += 1;
            }
            if sites.len() < MAX_REPLACE_SITES {
                sites.push((na, nb));
            }
            if starts.len() < MAX_LINES_LISTED {
                starts.push(a);
            }
            count += 1;
            copied = b;
        }
        out.extend_from_slice(&body[copied..]);
        for &pt in &points[next_point..] {
            // After the last match, bytes are copied verbatim.
            let to = out.len() - (body.len() - pt.0.min(body.len()));
            set(pt, to);
        }

        if let Some(expect) = self.expect
            && expect != count
        {
            return Err(self.mismatch(body, expect, count, &starts));
        }
        for (p, (s, e)) in pending.iter_mut().zip(mapped) {
            p.start = s;
            p.end = e;
        }
        if count == 0 {
            pending.push(Pending {
                op_index: self.index,
                start: 0,
                end: 0,
                kind: PendingKind::NoMatch,
            });
        }
        pending.extend(sites.into_iter().map(|(start, end)| Pending {
            op_index: self.index,
            start,
            end,
            kind: PendingKind::Site(count),
        }));
        Ok(out)
    }

    fn mismatch(&self, body: &[u8], expect: u64, count: u64, starts: &[usize]) -> UpdateError {
        let pattern = match lines::cut_chars(&self.pattern, MAX_PATTERN_SHOWN) {
            (all, 0) => format!("{all:?}"),
            (kept, cut) => format!("{kept:?}… ({cut} more characters)"),
        };
        let mut lines = lines::lines_at(body, starts.iter().copied());
        lines.dedup();
        UpdateError::Mismatch {
            index: self.index,
            pattern,
            count,
            expect,
            lines,
            more: count > starts.len() as u64,
        }
    }
}

/// Appends template text, writing a bare `\n` as `\r\n` in a CRLF file.
fn push_literal(out: &mut Vec<u8>, text: &[u8], crlf: bool) {
    if !crlf {
        out.extend_from_slice(text);
        return;
    }
    let mut prev = out.last().copied();
    for &b in text {
        if b == b'\n' && prev != Some(b'\r') {
            out.push(b'\r');
        }
        out.push(b);
        prev = Some(b);
    }
}

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Parses `template` against the groups `regex` defines.
fn parse_template(index: u32, template: &str, regex: &Regex) -> Result<Vec<Piece>> {
    let bytes = template.as_bytes();
    let mut pieces = Vec::new();
    let mut literal = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'$' {
            literal.push(bytes[i]);
            i += 1;
            continue;
        }
        let (name, next) = match bytes.get(i + 1) {
            Some(b'$') => {
                literal.push(b'$');
                i += 2;
                continue;
            }
            Some(b'{') => {
                let Some(close) = template[i + 2..].find('}') else {
                    return Err(invalid(format!(
                        "ops[{index}] (replace): replacement has `${{` at byte {i} with no \
                         closing `}}`; close the reference (`${{name}}`), or write `$$` for a \
                         literal `$` (`$${{` outputs `${{`)"
                    )));
                };
                let name = &template[i + 2..i + 2 + close];
                if name.is_empty() {
                    return Err(invalid(format!(
                        "ops[{index}] (replace): replacement has an empty reference `${{}}` at \
                         byte {i}; name a group (`${{1}}`, `${{name}}`), or write `$$` for a \
                         literal `$`"
                    )));
                }
                (name, i + 3 + close)
            }
            Some(&c) if is_word(c) => {
                let len = bytes[i + 1..].iter().take_while(|&&b| is_word(b)).count();
                (&template[i + 1..i + 1 + len], i + 1 + len)
            }
            other => {
                let what = match other {
                    None => "at the end".to_string(),
                    Some(_) => {
                        let c = template[i + 1..].chars().next().unwrap_or('?');
                        format!("followed by {c:?}")
                    }
                };
                return Err(invalid(format!(
                    "ops[{index}] (replace): replacement has a `$` {what} (byte {i}), which is \
                     not a capture reference; write `$$` for a literal `$`, or `$1` / \
                     `${{name}}` for a group"
                )));
            }
        };
        let Some(group) = resolve_group(regex, name) else {
            return Err(undefined_group(index, name, &template[i..next], regex).into());
        };
        if !literal.is_empty() {
            pieces.push(Piece::Literal(std::mem::take(&mut literal)));
        }
        pieces.push(Piece::Group(group));
        i = next;
    }
    if !literal.is_empty() {
        pieces.push(Piece::Literal(literal));
    }
    Ok(pieces)
}

fn resolve_group(regex: &Regex, name: &str) -> Option<usize> {
    if name.bytes().all(|b| b.is_ascii_digit()) {
        return name
            .parse::<usize>()
            .ok()
            .filter(|&g| g < regex.captures_len());
    }
    regex.capture_names().position(|n| n == Some(name))
}

fn undefined_group(index: u32, name: &str, written: &str, regex: &Regex) -> ToolError {
    let last = regex.captures_len().saturating_sub(1);
    let numbered = if last == 0 {
        "only $0 (the whole match)".to_string()
    } else {
        format!("$0 to ${last}")
    };
    let names: Vec<String> = regex
        .capture_names()
        .flatten()
        .map(|n| format!("${{{n}}}"))
        .collect();
    let named = if names.is_empty() {
        "no named groups".to_string()
    } else {
        format!("the named groups {}", names.join(", "))
    };
    let mut hint = String::new();
    let digits = name.bytes().take_while(u8::is_ascii_digit).count();
    if !written.starts_with("${") && digits > 0 && digits < name.len() {
        hint = format!(
            " An unbraced reference takes the longest run of letters, digits and _, so \
             `{written}` names the group \"{name}\"; write `${{{}}}{}` for group {} followed by \
             \"{}\".",
            &name[..digits],
            &name[digits..],
            &name[..digits],
            &name[digits..]
        );
    }
    ToolError::invalid(format!(
        "ops[{index}] (replace): replacement references `{written}`, but the pattern defines no \
         group {name:?}; it defines {numbered} and {named}.{hint} Use a defined group, or write \
         `$$` for a literal `$` (`$${name}` outputs `${name}`, `$${{{name}}}` outputs \
         `${{{name}}}`); nothing was written"
    ))
}

// ---------------------------------------------------------------------------------------------
// Echoes

/// Line lookups in the final body.
struct LineIndex<'a> {
    body: &'a [u8],
    newlines: Vec<usize>,
    count: usize,
}

impl<'a> LineIndex<'a> {
    fn new(body: &'a [u8]) -> Self {
        LineIndex {
            body,
            newlines: memchr::memchr_iter(b'\n', body).collect(),
            count: lines::count(body),
        }
    }

    /// The 1-based line on which byte `pos` lies (`count + 1` at the end of a terminated body).
    fn line_at(&self, pos: usize) -> usize {
        1 + self.newlines.partition_point(|&nl| nl < pos)
    }

    /// Line `n` (1-based, `1..=count`) as echoed.
    fn echo(&self, n: usize) -> String {
        let start = if n <= 1 {
            0
        } else {
            self.newlines
                .get(n - 2)
                .map_or(self.body.len(), |&nl| nl + 1)
        };
        let end = self
            .newlines
            .get(n.saturating_sub(1))
            .map_or(self.body.len(), |&nl| nl + 1);
        let raw = lines::strip_ending(&self.body[start.min(end)..end]);
        let text = String::from_utf8_lossy(raw);
        if text.len() <= ECHO_LINE_MAX_BYTES {
            return text.into_owned();
        }
        let mut cut = ECHO_LINE_MAX_BYTES;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        format!("{}…[+{} bytes]", &text[..cut], text.len() - cut)
    }

    fn echo_range(&self, from: usize, to: usize) -> impl Iterator<Item = String> + '_ {
        (from..=to).map(|n| self.echo(n))
    }
}

fn render(body: &[u8], pending: &[Pending]) -> (Vec<OpEcho>, bool) {
    let index = LineIndex::new(body);
    let mut echoes = Vec::with_capacity(pending.len());
    let mut used = 0usize;
    for p in pending {
        let echo = match p.kind {
            PendingKind::Window => window_echo(&index, p),
            PendingKind::Site(total) => site_echo(&index, p, total),
            PendingKind::NoMatch => OpEcho {
                op_index: p.op_index,
                from_line: 0,
                lines: Vec::new(),
                elided: None,
                total_replacements: Some(0),
            },
        };
        let cost: usize = echo.lines.iter().map(|l| l.len() + 1).sum();
        if used + cost > ECHO_BUDGET_BYTES {
            return (echoes, true);
        }
        used += cost;
        echoes.push(echo);
    }
    (echoes, false)
}

fn window_echo(index: &LineIndex<'_>, p: &Pending) -> OpEcho {
    let n = index.count;
    let mut echo = OpEcho {
        op_index: p.op_index,
        from_line: 0,
        lines: Vec::new(),
        elided: None,
        total_replacements: None,
    };
    if n == 0 {
        return echo;
    }
    let (first, last) = if p.start < p.end {
        (index.line_at(p.start), index.line_at(p.end - 1))
    } else {
        // An empty region: the place between two lines. Show two lines each side.
        let at = index.line_at(p.start);
        (at, at.saturating_sub(1))
    };
    let from = first.saturating_sub(ECHO_CONTEXT_LINES).max(1);
    let to = (last + ECHO_CONTEXT_LINES).min(n);
    echo.from_line = from as u64;
    let region = (last + 1).saturating_sub(first);
    if region > ECHO_REGION_MAX_LINES {
        let half = ECHO_REGION_MAX_LINES / 2;
        echo.lines.extend(index.echo_range(from, first + half - 1));
        echo.lines.extend(index.echo_range(last + 1 - half, to));
        echo.elided = Some((region - ECHO_REGION_MAX_LINES) as u64);
    } else if from <= to {
        echo.lines.extend(index.echo_range(from, to));
    }
    echo
}

fn site_echo(index: &LineIndex<'_>, p: &Pending, total: u64) -> OpEcho {
    let n = index.count;
    let mut echo = OpEcho {
        op_index: p.op_index,
        from_line: 0,
        lines: Vec::new(),
        elided: None,
        total_replacements: Some(total),
    };
    if n == 0 {
        return echo;
    }
    let (first, last) = if p.start < p.end {
        (index.line_at(p.start), index.line_at(p.end - 1))
    } else {
        let at = index.line_at(p.start).min(n);
        (at, at)
    };
    echo.from_line = first as u64;
    echo.lines.push(index.echo(first));
    if last > first {
        echo.lines.push(index.echo(last));
    }
    if last > first + 1 {
        echo.elided = Some((last - first - 1) as u64);
    }
    echo
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn ops(v: serde_json::Value) -> Vec<Op> {
        serde_json::from_value(v).unwrap()
    }

    fn run(input: &str, v: serde_json::Value) -> Applied {
        apply(input.as_bytes(), &ops(v)).unwrap()
    }

    fn out(input: &str, v: serde_json::Value) -> String {
        String::from_utf8(run(input, v).bytes).unwrap()
    }

    /// The refusal's text, for the refusals the engine words.
    fn fail(input: &str, v: serde_json::Value) -> String {
        match apply(input.as_bytes(), &ops(v)).unwrap_err() {
            UpdateError::Invalid(e) => {
                assert_eq!(e.kind, crate::error::ErrorKind::InvalidArgument);
                e.message
            }
            typed => panic!("a typed refusal, for the surface to word: {typed:?}"),
        }
    }

    /// The typed refusal.
    fn refused(input: &str, v: serde_json::Value) -> UpdateError {
        apply(input.as_bytes(), &ops(v)).unwrap_err()
    }

    fn echo(op_index: u32, from_line: u64, lines: &[&str]) -> OpEcho {
        OpEcho {
            op_index,
            from_line,
            lines: lines.iter().map(ToString::to_string).collect(),
            elided: None,
            total_replacements: None,
        }
    }

    fn site(op: u32, from_line: u64, lines: &[&str], elided: Option<u64>, total: u64) -> OpEcho {
        OpEcho {
            elided,
            total_replacements: Some(total),
            ..echo(op, from_line, lines)
        }
    }

    fn numbered(n: usize) -> String {
        (1..=n).map(|i| format!("{i}\n")).collect()
    }

    // -----------------------------------------------------------------------------------------
    // Lines and line numbers

    #[test]
    fn no_ops_return_the_bytes_unchanged() {
        let a = apply(b"a\nb", &[]).unwrap();
        assert_eq!(
            a,
            Applied {
                bytes: b"a\nb".to_vec(),
                applied: 0,
                echoes: vec![],
                echoes_truncated: false,
                new_line_count: 2,
            }
        );
    }

    #[test]
    fn a_trailing_newline_makes_no_phantom_line() {
        let a = run(
            "a\nb\n",
            json!([{"op": "insert", "at_line": 3, "content": "c"}]),
        );
        assert_eq!(a.bytes, b"a\nb\nc\n");
        assert_eq!(a.new_line_count, 3);
        assert_eq!(a.applied, 1);
        assert_eq!(a.echoes, vec![echo(0, 1, &["a", "b", "c"])]);
        assert_eq!(
            refused(
                "a\nb\n",
                json!([{"op": "insert", "at_line": 4, "content": "c"}]),
            ),
            UpdateError::InsertPastEnd {
                index: 0,
                at_line: 4,
                total: 2
            }
        );
    }

    #[test]
    fn insert_goes_before_at_line_and_lines_plus_one_appends() {
        let f = numbered(5);
        let a = run(&f, json!([{"op": "insert", "at_line": 1, "content": "a"}]));
        assert_eq!(a.bytes, b"a\n1\n2\n3\n4\n5\n");
        assert_eq!(a.echoes, vec![echo(0, 1, &["a", "1", "2"])]);
        let a = run(
            &f,
            json!([{"op": "insert", "at_line": 3, "content": "a\nb"}]),
        );
        assert_eq!(a.bytes, b"1\n2\na\nb\n3\n4\n5\n");
        assert_eq!(a.echoes, vec![echo(0, 1, &["1", "2", "a", "b", "3", "4"])]);
        let a = run(&f, json!([{"op": "insert", "at_line": 6, "content": "z"}]));
        assert_eq!(a.bytes, b"1\n2\n3\n4\n5\nz\n");
        assert_eq!(a.echoes, vec![echo(0, 4, &["4", "5", "z"])]);
        assert_eq!(a.new_line_count, 6);
    }

    #[test]
    fn remove_echoes_two_lines_each_side_of_the_gap() {
        let f = numbered(7);
        let a = run(&f, json!([{"op": "remove", "from_line": 3, "to_line": 4}]));
        assert_eq!(a.bytes, b"1\n2\n5\n6\n7\n");
        assert_eq!(a.echoes, vec![echo(0, 1, &["1", "2", "5", "6"])]);
        assert_eq!(a.new_line_count, 5);
        let a = run(&f, json!([{"op": "remove", "from_line": 1, "to_line": 1}]));
        assert_eq!(a.bytes, b"2\n3\n4\n5\n6\n7\n");
        assert_eq!(a.echoes, vec![echo(0, 1, &["2", "3"])]);
        let a = run(&f, json!([{"op": "remove", "from_line": 7, "to_line": 7}]));
        assert_eq!(a.bytes, b"1\n2\n3\n4\n5\n6\n");
        assert_eq!(a.echoes, vec![echo(0, 5, &["5", "6"])]);
    }

    #[test]
    fn update_lines_replaces_the_range_with_the_content_lines() {
        let f = numbered(5);
        let a = run(
            &f,
            json!([{"op": "update_lines", "from_line": 2, "to_line": 4, "content": "b"}]),
        );
        assert_eq!(a.bytes, b"1\nb\n5\n");
        assert_eq!(a.echoes, vec![echo(0, 1, &["1", "b", "5"])]);
        let a = run(
            &f,
            json!([{"op": "update_lines", "from_line": 2, "to_line": 2, "content": "x\ny\nz"}]),
        );
        assert_eq!(a.bytes, b"1\nx\ny\nz\n3\n4\n5\n");
        assert_eq!(a.echoes, vec![echo(0, 1, &["1", "x", "y", "z", "3", "4"])]);
        assert_eq!(a.new_line_count, 7);
    }

    #[test]
    fn line_ops_refer_to_the_original_numbers_whatever_their_order() {
        let f = "# notes\n- one\n- two\n";
        let batch = json!([
            {"op": "insert", "at_line": 2, "content": "draft"},
            {"op": "update_lines", "from_line": 3, "to_line": 3, "content": "- ONE"}
        ]);
        let a = run(f, batch);
        assert_eq!(a.bytes, b"# notes\ndraft\n- one\n- ONE\n");
        assert_eq!(
            a.echoes,
            vec![
                echo(0, 1, &["# notes", "draft", "- one", "- ONE"]),
                echo(1, 2, &["draft", "- one", "- ONE"]),
            ]
        );
        let reversed = json!([
            {"op": "update_lines", "from_line": 3, "to_line": 3, "content": "- ONE"},
            {"op": "insert", "at_line": 2, "content": "draft"}
        ]);
        assert_eq!(out(f, reversed), "# notes\ndraft\n- one\n- ONE\n");

        let f: String = (1..=12).map(|i| format!("l{i}\n")).collect();
        let a = run(
            &f,
            json!([
                {"op": "insert", "at_line": 1, "content": "h"},
                {"op": "remove", "from_line": 5, "to_line": 8},
                {"op": "update_lines", "from_line": 10, "to_line": 10, "content": "X"},
                {"op": "insert", "at_line": 13, "content": "end"}
            ]),
        );
        assert_eq!(
            std::str::from_utf8(&a.bytes).unwrap(),
            "h\nl1\nl2\nl3\nl4\nl9\nX\nl11\nl12\nend\n"
        );
        assert_eq!(a.applied, 4);
        assert_eq!(a.new_line_count, 10);
        assert_eq!(
            a.echoes,
            vec![
                echo(0, 1, &["h", "l1", "l2"]),
                echo(1, 4, &["l3", "l4", "l9", "X"]),
                echo(2, 5, &["l4", "l9", "X", "l11", "l12"]),
                echo(3, 8, &["l11", "l12", "end"]),
            ]
        );
    }

    #[test]
    fn line_numbers_are_checked_against_the_file() {
        let f = "a\nb\nc\n";
        assert_eq!(
            fail(f, json!([{"op": "insert", "at_line": 0, "content": "x"}])),
            "ops[0] (insert): at_line 0 is not a line (line numbers are 1-based); pass at_line: \
             1 to insert before the first line, or at_line: 4 to append after the file's 3 lines"
        );
        assert_eq!(
            fail(
                f,
                json!([
                    {"op": "insert", "at_line": 1, "content": "x"},
                    {"op": "remove", "from_line": 0, "to_line": 1}
                ])
            ),
            "ops[1] (remove): from_line 0 is not a line (line numbers are 1-based); the file has \
             3 lines, so use from_line 1 to 3"
        );
        assert_eq!(
            fail(
                f,
                json!([{"op": "update_lines", "from_line": 3, "to_line": 2, "content": "x"}])
            ),
            "ops[0] (update_lines): to_line 2 is before from_line 3; the range is inclusive, so \
             pass to_line >= from_line (to_line: 3 for that one line); the file has 3 lines"
        );
        assert_eq!(
            fail(f, json!([{"op": "remove", "from_line": 2, "to_line": 4}])),
            "ops[0] (remove): to_line 4 is past the end of the file, which has 3 lines; pass \
             to_line: 3 to go to the last line"
        );
        assert_eq!(
            refused(f, json!([{"op": "remove", "from_line": 5, "to_line": 6}])),
            UpdateError::FromPastEnd {
                index: 0,
                op: "remove",
                from_line: 5,
                total: 3
            }
        );
        assert_eq!(
            fail("", json!([{"op": "remove", "from_line": 1, "to_line": 1}])),
            "ops[0] (remove): the file is empty (0 lines), so there are no lines 1-1 to remove; \
             add content with {\"op\": \"insert\", \"at_line\": 1, \"content\": …}"
        );
        assert_eq!(
            refused("x", json!([{"op": "insert", "at_line": 3, "content": "x"}])),
            UpdateError::InsertPastEnd {
                index: 0,
                at_line: 3,
                total: 1
            }
        );
    }

    #[test]
    fn huge_line_numbers_are_refused_without_panicking() {
        let max = u64::MAX;
        assert_eq!(
            refused(
                "a\n",
                json!([{"op": "insert", "at_line": max, "content": "x"}]),
            ),
            UpdateError::InsertPastEnd {
                index: 0,
                at_line: max,
                total: 1
            }
        );
        let msg = fail(
            "a\n",
            json!([{"op": "remove", "from_line": 1, "to_line": max}]),
        );
        assert!(
            msg.contains(&format!("to_line {max} is past the end")),
            "{msg}"
        );
        assert_eq!(
            refused(
                "a\n",
                json!([{"op": "update_lines", "from_line": max, "to_line": max, "content": "x"}]),
            ),
            UpdateError::FromPastEnd {
                index: 0,
                op: "update_lines",
                from_line: max,
                total: 1
            }
        );
    }

    // -----------------------------------------------------------------------------------------
    // Overlaps

    #[test]
    fn ranges_sharing_a_line_overlap() {
        let f = numbered(5);
        assert_eq!(
            fail(
                &f,
                json!([
                    {"op": "remove", "from_line": 1, "to_line": 3},
                    {"op": "update_lines", "from_line": 3, "to_line": 4, "content": "x"}
                ])
            ),
            "ops[0] (remove lines 1-3) and ops[1] (update_lines of lines 3-4) overlap: both \
             touch line 3; merge them into one update_lines of lines 1-4 (or one remove), or \
             send the second in a later call. Line ops in one call must not overlap because each \
             refers to the file's original line numbers"
        );
        // Named in op order whatever the line order; a range inside another overlaps too.
        let msg = fail(
            &f,
            json!([
                {"op": "remove", "from_line": 3, "to_line": 3},
                {"op": "remove", "from_line": 1, "to_line": 5}
            ]),
        );
        assert!(
            msg.starts_with(
                "ops[0] (remove line 3) and ops[1] (remove lines 1-5) overlap: both touch line 3;"
            ),
            "{msg}"
        );
        // Adjacent ranges do not overlap.
        let ok = json!([
            {"op": "remove", "from_line": 1, "to_line": 2},
            {"op": "remove", "from_line": 3, "to_line": 4}
        ]);
        assert_eq!(out(&f, ok), "5\n");
    }

    #[test]
    fn two_inserts_at_one_line_overlap() {
        let msg = fail(
            "a\nb\n",
            json!([
                {"op": "insert", "at_line": 2, "content": "x"},
                {"op": "insert", "at_line": 3, "content": "y"},
                {"op": "insert", "at_line": 2, "content": "z"}
            ]),
        );
        assert_eq!(
            msg,
            "ops[0] (insert at line 2) and ops[2] (insert at line 2) overlap: both insert at \
             line 2, so their order would be a guess; put both texts in one insert, in the order \
             you want them. Line ops in one call must not overlap because each refers to the \
             file's original line numbers"
        );
    }

    #[test]
    fn an_insert_strictly_inside_a_range_overlaps() {
        let f = numbered(5);
        for at in [3, 4] {
            let msg = fail(
                &f,
                json!([
                    {"op": "remove", "from_line": 2, "to_line": 4},
                    {"op": "insert", "at_line": at, "content": "x"}
                ]),
            );
            assert_eq!(
                msg,
                format!(
                    "ops[0] (remove lines 2-4) and ops[1] (insert at line {at}) overlap: the \
                     insert falls inside lines 2-4 that ops[0] removes; insert at line 2 (before \
                     the range) or 5 (after it), or add the text with an update_lines of those \
                     lines. Line ops in one call must not overlap because each refers to the \
                     file's original line numbers"
                )
            );
        }
        let msg = fail(
            &f,
            json!([
                {"op": "insert", "at_line": 3, "content": "x"},
                {"op": "update_lines", "from_line": 2, "to_line": 3, "content": "u"}
            ]),
        );
        assert!(
            msg.starts_with(
                "ops[0] (insert at line 3) and ops[1] (update_lines of lines 2-3) overlap: the \
                 insert falls inside lines 2-3 that ops[1] replaces;"
            ),
            "{msg}"
        );
    }

    #[test]
    fn inserts_at_a_range_boundary_go_before_and_after_it() {
        let f = numbered(5);
        let a = run(
            &f,
            json!([
                {"op": "remove", "from_line": 2, "to_line": 4},
                {"op": "insert", "at_line": 2, "content": "a"},
                {"op": "insert", "at_line": 5, "content": "b"}
            ]),
        );
        assert_eq!(a.bytes, b"1\na\nb\n5\n");
        assert_eq!(
            a.echoes,
            vec![
                echo(0, 1, &["1", "a", "b", "5"]),
                echo(1, 1, &["1", "a", "b", "5"]),
                echo(2, 1, &["1", "a", "b", "5"]),
            ]
        );
        let a = run(
            &f,
            json!([
                {"op": "insert", "at_line": 2, "content": "a"},
                {"op": "update_lines", "from_line": 2, "to_line": 4, "content": "U"}
            ]),
        );
        assert_eq!(a.bytes, b"1\na\nU\n5\n");
        assert_eq!(
            a.echoes,
            vec![
                echo(0, 1, &["1", "a", "U", "5"]),
                echo(1, 1, &["1", "a", "U", "5"])
            ]
        );
    }

    // -----------------------------------------------------------------------------------------
    // Content, line endings, final newline

    #[test]
    fn content_becomes_whole_lines() {
        let f = "1\n2\n";
        let ins = |content: &str| {
            out(
                f,
                json!([{"op": "insert", "at_line": 2, "content": content}]),
            )
        };
        assert_eq!(ins("x"), "1\nx\n2\n");
        assert_eq!(ins("x\n"), "1\nx\n2\n");
        assert_eq!(ins("x\n\n"), "1\nx\n\n2\n");
        assert_eq!(ins("\n"), "1\n\n2\n");
        assert_eq!(ins("a\r\nb\r\n"), "1\na\nb\n2\n");
        assert_eq!(ins("a\rb"), "1\na\rb\n2\n");
    }

    #[test]
    fn empty_content_is_refused_with_the_two_intended_calls() {
        assert_eq!(
            fail(
                "1\n",
                json!([{"op": "insert", "at_line": 1, "content": ""}])
            ),
            "ops[0] (insert): content is empty, so the insert would add no line; pass the text \
             to insert (content \"\\n\" inserts one blank line)"
        );
        assert_eq!(
            fail(
                "1\n2\n",
                json!([{"op": "update_lines", "from_line": 1, "to_line": 2, "content": ""}])
            ),
            "ops[0] (update_lines): content is empty, which is ambiguous; to delete lines 1-2 \
             pass {\"op\": \"remove\", \"from_line\": 1, \"to_line\": 2}, to blank them pass \
             content \"\\n\" (one blank line)"
        );
    }

    #[test]
    fn new_lines_take_the_files_line_ending() {
        let f = "1\r\n2\r\n3\r\n";
        let a = run(
            f,
            json!([
                {"op": "update_lines", "from_line": 2, "to_line": 2, "content": "x\ny"},
                {"op": "insert", "at_line": 4, "content": "z\r\n"}
            ]),
        );
        assert_eq!(a.bytes, b"1\r\nx\r\ny\r\n3\r\nz\r\n");
        assert_eq!(
            a.echoes,
            vec![
                echo(0, 1, &["1", "x", "y", "3", "z"]),
                echo(1, 3, &["y", "3", "z"])
            ]
        );
        // Mixed endings: the first line's decides, untouched lines keep theirs.
        assert_eq!(
            out(
                "1\r\n2\n3\n",
                json!([{"op": "insert", "at_line": 3, "content": "x"}])
            ),
            "1\r\n2\nx\r\n3\n"
        );
    }

    #[test]
    fn a_file_without_a_final_newline_keeps_that_property() {
        let f = "a\nb";
        let one = |op: serde_json::Value| out(f, json!([op]));
        assert_eq!(
            one(json!({"op": "update_lines", "from_line": 1, "to_line": 1, "content": "x"})),
            "x\nb"
        );
        assert_eq!(
            one(json!({"op": "insert", "at_line": 3, "content": "c"})),
            "a\nb\nc"
        );
        assert_eq!(
            one(json!({"op": "insert", "at_line": 3, "content": "c\n"})),
            "a\nb\nc"
        );
        assert_eq!(
            one(json!({"op": "insert", "at_line": 2, "content": "c"})),
            "a\nc\nb"
        );
        assert_eq!(
            one(json!({"op": "remove", "from_line": 2, "to_line": 2})),
            "a"
        );
        assert_eq!(
            one(json!({"op": "update_lines", "from_line": 2, "to_line": 2, "content": "y\n"})),
            "a\ny"
        );
        // An empty last line exists only when terminated.
        let a = run(f, json!([{"op": "insert", "at_line": 3, "content": "\n"}]));
        assert_eq!(a.bytes, b"a\nb\n\n");
        assert_eq!(a.new_line_count, 3);
        assert_eq!(
            out(
                "a\r\nb",
                json!([{"op": "insert", "at_line": 3, "content": "c"}])
            ),
            "a\r\nb\r\nc"
        );
        assert_eq!(
            out(
                "a\nb",
                json!([{"op": "replace", "pattern": "a", "replacement": "A"}])
            ),
            "A\nb"
        );
    }

    #[test]
    fn an_empty_file_gains_a_final_newline() {
        let a = run("", json!([{"op": "insert", "at_line": 1, "content": "x"}]));
        assert_eq!(a.bytes, b"x\n");
        assert_eq!(a.new_line_count, 1);
        assert_eq!(a.echoes, vec![echo(0, 1, &["x"])]);
        assert_eq!(
            refused("", json!([{"op": "insert", "at_line": 2, "content": "x"}])),
            UpdateError::InsertPastEnd {
                index: 0,
                at_line: 2,
                total: 0
            }
        );
    }

    #[test]
    fn removing_everything_echoes_no_line() {
        let a = run(
            "a\nb\n",
            json!([{"op": "remove", "from_line": 1, "to_line": 2}]),
        );
        assert_eq!(a.bytes, b"");
        assert_eq!(a.new_line_count, 0);
        assert_eq!(a.echoes, vec![echo(0, 0, &[])]);
    }

    #[test]
    fn invalid_utf8_is_kept_and_echoed_lossily() {
        let a = apply(
            b"a\xff\nb\n",
            &ops(json!([{"op": "insert", "at_line": 3, "content": "c"}])),
        )
        .unwrap();
        assert_eq!(a.bytes, b"a\xff\nb\nc\n");
        assert_eq!(a.echoes, vec![echo(0, 1, &["a\u{FFFD}", "b", "c"])]);
        let a = apply(
            b"\xfe\xff\n",
            &ops(json!([{"op": "replace", "pattern": "(?-u)\\xFF", "replacement": "!"}])),
        )
        .unwrap();
        assert_eq!(a.bytes, b"\xfe!\n");
    }

    // -----------------------------------------------------------------------------------------
    // Replace

    fn rep(input: &str, pattern: &str, replacement: &str) -> String {
        out(
            input,
            json!([{"op": "replace", "pattern": pattern, "replacement": replacement}]),
        )
    }

    fn rep_err(pattern: &str, replacement: &str) -> String {
        fail(
            "key=value\n",
            json!([{"op": "replace", "pattern": pattern, "replacement": replacement}]),
        )
    }

    #[test]
    fn templates_expand_groups_by_index_and_name() {
        let f = "key=value\n";
        assert_eq!(rep(f, r"(\w+)=(\w+)", "$2=$1"), "value=key\n");
        assert_eq!(rep(f, r"(\w+)=(\w+)", "${2}_${1}x"), "value_keyx\n");
        assert_eq!(rep(f, r"\w+", "[$0]"), "[key]=[value]\n");
        assert_eq!(rep(f, r"(?P<k>\w+)=(?<v>\w+)", "$v:${k}"), "value:key\n");
        assert_eq!(rep(f, r"(?<a>k)(?<ab>e)", "<$ab>"), "<e>y=value\n");
        assert_eq!(rep(f, r"(?<a>k)(?<ab>e)", "<${a}b>"), "<kb>y=value\n");
        assert_eq!(rep(f, "(key)", "<$01>"), "<key>=value\n");
        // A defined group that did not take part expands to nothing.
        assert_eq!(rep("ab\n", "(a)|(b)", "[$1$2]"), "[a][b]\n");
    }

    #[test]
    fn dollar_dollar_is_a_literal_dollar() {
        assert_eq!(
            rep("greet NAME\n", "NAME", "`Hello, $${name}!`"),
            "greet `Hello, ${name}!`\n"
        );
        assert_eq!(rep("cost\n", "cost", "$$5 $$$$"), "$5 $$\n");
    }

    #[test]
    fn unbraced_references_take_the_longest_run() {
        let msg = rep_err(r"(\w+)=", "$1a");
        assert_eq!(
            msg,
            "ops[0] (replace): replacement references `$1a`, but the pattern defines no group \
             \"1a\"; it defines $0 to $1 and no named groups. An unbraced reference takes the \
             longest run of letters, digits and _, so `$1a` names the group \"1a\"; write \
             `${1}a` for group 1 followed by \"a\". Use a defined group, or write `$$` for a \
             literal `$` (`$$1a` outputs `$1a`, `$${1a}` outputs `${1a}`); nothing was written"
        );
        assert_eq!(rep("key=value\n", r"(\w+)=", "${1}a"), "keyavalue\n");
    }

    #[test]
    fn undefined_references_are_refused_even_when_unused() {
        let msg = fail(
            "a\n",
            json!([{"op": "replace", "pattern": "(?<x>zzz)", "replacement": "${name}",
                    "expect_matches": 0}]),
        );
        assert_eq!(
            msg,
            "ops[0] (replace): replacement references `${name}`, but the pattern defines no \
             group \"name\"; it defines $0 to $1 and the named groups ${x}. Use a defined group, \
             or write `$$` for a literal `$` (`$$name` outputs `$name`, `$${name}` outputs \
             `${name}`); nothing was written"
        );
        let msg = rep_err("zzz", "$1");
        assert!(
            msg.contains("it defines only $0 (the whole match) and no named groups"),
            "{msg}"
        );
        let msg = rep_err("(k)", "$99999999999999999999999");
        assert!(
            msg.contains("no group \"99999999999999999999999\""),
            "{msg}"
        );
    }

    #[test]
    fn stray_dollars_are_refused() {
        assert_eq!(
            rep_err("key", "cost $"),
            "ops[0] (replace): replacement has a `$` at the end (byte 5), which is not a capture \
             reference; write `$$` for a literal `$`, or `$1` / `${name}` for a group"
        );
        assert!(rep_err("key", "a $ b").contains("has a `$` followed by ' ' (byte 2)"));
        assert!(rep_err("key", "a $-").contains("has a `$` followed by '-' (byte 2)"));
        assert_eq!(
            rep_err("key", "x${1"),
            "ops[0] (replace): replacement has `${` at byte 1 with no closing `}`; close the \
             reference (`${name}`), or write `$$` for a literal `$` (`$${` outputs `${`)"
        );
        assert!(rep_err("key", "${}").contains("empty reference `${}` at byte 0"));
    }

    #[test]
    fn bad_patterns_are_refused() {
        let msg = rep_err("(", "x");
        assert!(
            msg.starts_with("ops[0] (replace): pattern is not a valid regex: "),
            "{msg}"
        );
        assert!(msg.ends_with("with a backslash) and call again"), "{msg}");
        assert_eq!(
            rep_err("", "x"),
            "ops[0] (replace): pattern is empty, which matches between every two characters; \
             pass the text to find (a regex; anchor whole lines with ^ and $)"
        );
    }

    #[test]
    fn expect_matches_guards_the_count() {
        let f = "a\nb\na\n";
        // 0 asserts absence.
        let a = run(
            f,
            json!([{"op": "replace", "pattern": "zzz", "replacement": "q", "expect_matches": 0}]),
        );
        assert_eq!(a.bytes, f.as_bytes());
        assert_eq!(a.echoes, vec![site(0, 0, &[], None, 0)]);
        assert_eq!(
            refused(
                f,
                json!([{"op": "replace", "pattern": "b", "replacement": "q", "expect_matches": 0}])
            ),
            UpdateError::Mismatch {
                index: 0,
                pattern: "\"b\"".into(),
                count: 1,
                expect: 0,
                lines: vec![2],
                more: false
            }
        );
        // 1 passes on one match, fails on two.
        let a = run(
            f,
            json!([{"op": "replace", "pattern": "b", "replacement": "B", "expect_matches": 1}]),
        );
        assert_eq!(a.bytes, b"a\nB\na\n");
        assert_eq!(a.echoes, vec![site(0, 2, &["B"], None, 1)]);
        assert_eq!(
            refused(
                f,
                json!([{"op": "replace", "pattern": "a", "replacement": "q", "expect_matches": 1}])
            ),
            UpdateError::Mismatch {
                index: 0,
                pattern: "\"a\"".into(),
                count: 2,
                expect: 1,
                lines: vec![1, 3],
                more: false
            }
        );
        assert_eq!(
            refused(
                f,
                json!([{"op": "replace", "pattern": "zzz", "replacement": "q", "expect_matches": 1}]),
            ),
            UpdateError::Mismatch {
                index: 0,
                pattern: "\"zzz\"".into(),
                count: 0,
                expect: 1,
                lines: vec![],
                more: false
            }
        );
        assert!(matches!(
            refused(
                f,
                json!([{"op": "replace", "pattern": "a", "replacement": "q", "expect_matches": 3}]),
            ),
            UpdateError::Mismatch {
                count: 2,
                expect: 3,
                ..
            }
        ));
    }

    #[test]
    fn a_long_pattern_is_quoted_in_part() {
        let pattern = format!("{}zzz", "a".repeat(90));
        let err = refused(
            "a\n",
            json!([{"op": "replace", "pattern": pattern, "replacement": "", "expect_matches": 1}]),
        );
        let quoted = format!("\"{}\"… (13 more characters)", "a".repeat(80));
        assert!(
            matches!(&err, UpdateError::Mismatch { pattern, count: 0, .. } if *pattern == quoted),
            "{err:?}"
        );
    }

    #[test]
    fn a_replace_that_matches_nothing_echoes_a_zero_count() {
        let a = run(
            "a\n",
            json!([{"op": "replace", "pattern": "zzz", "replacement": "q"}]),
        );
        assert_eq!(a.bytes, b"a\n");
        assert_eq!(a.applied, 1);
        assert_eq!(a.echoes, vec![site(0, 0, &[], None, 0)]);
    }

    #[test]
    fn dot_matches_newline_spans_a_region() {
        let f = "a\n// BEGIN\nx\ny\n// END\nb\n";
        let op = |dot: bool, replacement: &str| {
            run(
                f,
                json!([{"op": "replace", "pattern": "// BEGIN.*?// END",
                        "replacement": replacement, "dot_matches_newline": dot}]),
            )
        };
        let a = op(true, "// removed");
        assert_eq!(a.bytes, b"a\n// removed\nb\n");
        assert_eq!(a.echoes, vec![site(0, 2, &["// removed"], None, 1)]);
        let a = op(false, "// removed");
        assert_eq!(a.bytes, f.as_bytes());
        assert_eq!(a.echoes, vec![site(0, 0, &[], None, 0)]);
        let a = op(true, "one\ntwo\nthree\nfour");
        assert_eq!(a.bytes, b"a\none\ntwo\nthree\nfour\nb\n");
        assert_eq!(a.echoes, vec![site(0, 2, &["one", "four"], Some(2), 1)]);
        let a = op(true, "one\ntwo");
        assert_eq!(a.echoes, vec![site(0, 2, &["one", "two"], None, 1)]);
    }

    #[test]
    fn ignore_case_matches_any_case() {
        let a = run(
            "Foo foo FOO\nfoO\n",
            json!([{"op": "replace", "pattern": "foo", "replacement": "bar", "ignore_case": true}]),
        );
        assert_eq!(a.bytes, b"bar bar bar\nbar\n");
        let line1 = site(0, 1, &["bar bar bar"], None, 4);
        assert_eq!(
            a.echoes,
            vec![
                line1.clone(),
                line1.clone(),
                line1,
                site(0, 2, &["bar"], None, 4)
            ]
        );
        assert_eq!(rep("Foo\n", "foo", "bar"), "Foo\n");
    }

    #[test]
    fn anchors_match_per_line_and_before_crlf() {
        assert_eq!(rep("x = 1\nyx = 2\n", "^x", "z"), "z = 1\nyx = 2\n");
        assert_eq!(rep("a1\r\nb1\r\n", "1$", "2"), "a2\r\nb2\r\n");
        assert_eq!(rep("a1\r\nb1\r\n", r"\A\w", "_"), "_1\r\nb1\r\n");
        assert_eq!(rep("ab\r\n", "b.*", "c"), "ac\r\n");
    }

    #[test]
    fn replacement_newlines_follow_a_crlf_file() {
        assert_eq!(rep("a\r\nb\r\n", "a", "x\ny"), "x\r\ny\r\nb\r\n");
        assert_eq!(rep("a\r\nb\r\n", "a", "x\r\ny"), "x\r\ny\r\nb\r\n");
        assert_eq!(rep("a\nb\n", "a", "x\r\ny"), "x\r\ny\nb\n");
        // Captured text is copied as matched.
        assert_eq!(rep("a\r\nb\r\n", r"(?s)(a.*)b", "$1"), "a\r\n\r\n");
    }

    #[test]
    fn many_sites_echo_the_first_five_with_the_total() {
        let a = run(
            &"a\n".repeat(7),
            json!([{"op": "replace", "pattern": "a", "replacement": "b"}]),
        );
        assert_eq!(a.bytes, "b\n".repeat(7).as_bytes());
        let want: Vec<OpEcho> = (1..=5).map(|l| site(0, l, &["b"], None, 7)).collect();
        assert_eq!(a.echoes, want);
        assert!(!a.echoes_truncated);
    }

    #[test]
    fn replaces_run_after_line_ops_in_op_order() {
        // The replace sees the inserted line although it comes first in the batch.
        let a = run(
            "a\nb\n",
            json!([
                {"op": "replace", "pattern": "new", "replacement": "NEW", "expect_matches": 1},
                {"op": "insert", "at_line": 2, "content": "new"}
            ]),
        );
        assert_eq!(a.bytes, b"a\nNEW\nb\n");
        assert_eq!(
            a.echoes,
            vec![
                site(0, 2, &["NEW"], None, 1),
                echo(1, 1, &["a", "NEW", "b"])
            ]
        );
        // Each replace runs on the previous one's result.
        let a = run(
            "a a\n",
            json!([
                {"op": "replace", "pattern": "a", "replacement": "b"},
                {"op": "replace", "pattern": "b", "replacement": "c", "expect_matches": 2}
            ]),
        );
        assert_eq!(a.bytes, b"c c\n");
        assert_eq!(
            a.echoes,
            vec![
                site(0, 1, &["c c"], None, 2),
                site(0, 1, &["c c"], None, 2),
                site(1, 1, &["c c"], None, 2),
                site(1, 1, &["c c"], None, 2),
            ]
        );
    }

    #[test]
    fn echo_positions_are_final_line_numbers() {
        let a = run(
            &numbered(8),
            json!([
                {"op": "insert", "at_line": 7, "content": "new"},
                {"op": "replace", "pattern": "^1$", "replacement": "1a\n1b\n1c"}
            ]),
        );
        assert_eq!(a.bytes, b"1a\n1b\n1c\n2\n3\n4\n5\n6\nnew\n7\n8\n");
        assert_eq!(a.new_line_count, 11);
        assert_eq!(
            a.echoes,
            vec![
                echo(0, 7, &["5", "6", "new", "7", "8"]),
                site(1, 1, &["1a", "1c"], Some(1), 1),
            ]
        );
        // A replace inside a line op's region widens the region.
        let a = run(
            "a\nb\nc\n",
            json!([
                {"op": "insert", "at_line": 2, "content": "old"},
                {"op": "replace", "pattern": "old", "replacement": "n1\nn2"}
            ]),
        );
        assert_eq!(a.bytes, b"a\nn1\nn2\nb\nc\n");
        assert_eq!(
            a.echoes,
            vec![
                echo(0, 1, &["a", "n1", "n2", "b", "c"]),
                site(1, 2, &["n1", "n2"], None, 1)
            ]
        );
        // A later replace that removes lines above a site moves it up.
        let a = run(
            "x\ny\nz\n",
            json!([
                {"op": "replace", "pattern": "z", "replacement": "Z"},
                {"op": "replace", "pattern": "x\n", "replacement": ""}
            ]),
        );
        assert_eq!(a.bytes, b"y\nZ\n");
        assert_eq!(
            a.echoes,
            vec![site(0, 2, &["Z"], None, 1), site(1, 1, &["y"], None, 1)]
        );
    }

    // -----------------------------------------------------------------------------------------
    // Echo bounds

    #[test]
    fn a_long_region_is_elided_in_the_middle() {
        let content: String = (1..=20).map(|i| format!("l{i}\n")).collect();
        let a = run(
            "x\ny\nz\n",
            json!([{"op": "insert", "at_line": 2, "content": content}]),
        );
        assert_eq!(a.new_line_count, 23);
        assert_eq!(
            a.echoes,
            vec![OpEcho {
                elided: Some(12),
                ..echo(
                    0,
                    1,
                    &[
                        "x", "l1", "l2", "l3", "l4", "l17", "l18", "l19", "l20", "y", "z"
                    ]
                )
            }]
        );
        // Eight lines are shown whole.
        let content: String = (1..=8).map(|i| format!("l{i}\n")).collect();
        let a = run(
            "x\n",
            json!([{"op": "insert", "at_line": 1, "content": content}]),
        );
        assert_eq!(
            a.echoes,
            vec![echo(
                0,
                1,
                &["l1", "l2", "l3", "l4", "l5", "l6", "l7", "l8", "x"]
            )]
        );
    }

    #[test]
    fn echoes_stop_at_the_budget() {
        let line = "a".repeat(200);
        let f: String = (0..30).map(|_| format!("{line}\n")).collect();
        let new = "b".repeat(200);
        let batch: Vec<serde_json::Value> = [1, 6, 11, 16, 21, 26]
            .iter()
            .map(|at| json!({"op": "insert", "at_line": at, "content": new}))
            .collect();
        let a = run(&f, json!(batch));
        assert_eq!(a.applied, 6);
        assert_eq!(a.new_line_count, 36);
        // 3 lines of 201 bytes, then 5 lines each: 603 + 3 * 1005 = 3618; one more is 4623.
        assert_eq!(a.echoes.len(), 4);
        assert!(a.echoes_truncated);
        assert_eq!(
            a.echoes.iter().map(|e| e.op_index).collect::<Vec<_>>(),
            vec![0, 1, 2, 3]
        );
        assert_eq!(a.echoes[1].from_line, 5);
        assert_eq!(a.echoes[1].lines[2], new);
    }

    #[test]
    fn long_lines_are_cut_in_echoes() {
        let long = "é".repeat(300);
        let a = run(
            &format!("{long}\n"),
            json!([{"op": "insert", "at_line": 1, "content": "x"}]),
        );
        assert_eq!(
            a.echoes,
            vec![echo(
                0,
                1,
                &["x", &format!("{}…[+344 bytes]", "é".repeat(128))]
            )]
        );
        assert_eq!(a.bytes, format!("x\n{long}\n").as_bytes());
    }

    // -----------------------------------------------------------------------------------------
    // Wire shape

    #[test]
    fn ops_deserialise_from_the_wire_shape() {
        assert_eq!(
            ops(json!([
                {"op": "insert", "at_line": 1, "content": "x"},
                {"op": "remove", "from_line": 1, "to_line": 2},
                {"op": "update_lines", "from_line": 3, "to_line": 3, "content": "y"},
                {"op": "replace", "pattern": "a", "replacement": "b"},
                {"op": "replace", "pattern": "a", "replacement": "b", "ignore_case": true,
                 "dot_matches_newline": true, "expect_matches": 0}
            ])),
            vec![
                Op::Insert {
                    at_line: 1,
                    content: "x".into(),
                    expect_text: None,
                },
                Op::Remove {
                    from_line: 1,
                    to_line: 2,
                    expect_text: None,
                },
                Op::UpdateLines {
                    from_line: 3,
                    to_line: 3,
                    content: "y".into(),
                    expect_text: None,
                },
                Op::Replace {
                    pattern: "a".into(),
                    replacement: "b".into(),
                    ignore_case: false,
                    dot_matches_newline: false,
                    expect_matches: None,
                },
                Op::Replace {
                    pattern: "a".into(),
                    replacement: "b".into(),
                    ignore_case: true,
                    dot_matches_newline: true,
                    expect_matches: Some(0),
                },
            ]
        );
        // A misspelt guard must not be dropped silently.
        let typo = json!({"op": "replace", "pattern": "a", "replacement": "b",
                          "expected_matches": 1});
        assert!(serde_json::from_value::<Op>(typo).is_err());
        assert!(serde_json::from_value::<Op>(json!({"op": "append", "content": "x"})).is_err());
        assert_eq!(
            serde_json::to_value(site(2, 3, &["x"], None, 1)).unwrap(),
            json!({"op_index": 2, "from_line": 3, "lines": ["x"], "total_replacements": 1})
        );
    }

    // -----------------------------------------------------------------------------------------
    // Properties

    /// Whether two line ops overlap (written independently of `check_overlaps`).
    fn conflict(a: &Op, b: &Op) -> bool {
        let range = |op: &Op| match op {
            Op::Remove {
                from_line, to_line, ..
            }
            | Op::UpdateLines {
                from_line, to_line, ..
            } => Some((*from_line, *to_line)),
            _ => None,
        };
        let at = |op: &Op| match op {
            Op::Insert { at_line, .. } => Some(*at_line),
            _ => None,
        };
        match (range(a), range(b), at(a), at(b)) {
            (Some((f1, t1)), Some((f2, t2)), _, _) => f1 <= t2 && f2 <= t1,
            (_, _, Some(x), Some(y)) => x == y,
            (Some((f, t)), _, _, Some(x)) | (_, Some((f, t)), Some(x), _) => f < x && x <= t,
            _ => false,
        }
    }

    fn start(op: &Op) -> (u64, bool) {
        match op {
            Op::Insert { at_line, .. } => (*at_line, false),
            Op::Remove { from_line, .. } | Op::UpdateLines { from_line, .. } => (*from_line, true),
            Op::Replace { .. } => (0, false),
        }
    }

    /// The file's line ending and whether its last line is unterminated.
    fn shape(bytes: &[u8]) -> (&'static [u8], bool) {
        (
            detect_ending(bytes),
            bytes.last().is_some_and(|&b| b != b'\n'),
        )
    }

    /// A single line op on a file whose last line is terminated, by splicing a list of lines.
    fn splice(text: &str, op: &Op) -> String {
        let crlf =
            text.split('\n').next().is_some_and(|l| l.ends_with('\r')) && text.contains('\n');
        let ending = if crlf { "\r\n" } else { "\n" };
        let new = |c: &str| {
            c.lines()
                .map(|l| format!("{l}{ending}"))
                .collect::<Vec<_>>()
        };
        let mut lines: Vec<String> = text.split_inclusive('\n').map(String::from).collect();
        let index = |n: u64| usize::try_from(n).unwrap() - 1;
        match op {
            Op::Insert {
                at_line, content, ..
            } => {
                lines.splice(index(*at_line)..index(*at_line), new(content));
            }
            Op::Remove {
                from_line, to_line, ..
            } => {
                lines.drain(index(*from_line)..=index(*to_line));
            }
            Op::UpdateLines {
                from_line,
                to_line,
                content,
                ..
            } => {
                lines.splice(index(*from_line)..=index(*to_line), new(content));
            }
            Op::Replace { .. } => unreachable!(),
        }
        lines.concat()
    }

    prop_compose! {
        fn file()(lines in prop::collection::vec("[ab]{0,2}", 0..9), crlf: bool, final_nl: bool)
            -> String {
            let ending = if crlf { "\r\n" } else { "\n" };
            let mut text = lines.join(ending);
            if final_nl && !lines.is_empty() {
                text.push_str(ending);
            }
            text
        }
    }

    prop_compose! {
        fn raw_op()(kind in 0u8..3, pos in 0u64..12, len in 0u64..4,
                    lines in prop::collection::vec("[xy]{0,2}", 1..4), nl: bool, crlf: bool)
            -> (u8, u64, u64, String) {
            let mut content = lines.join(if crlf { "\r\n" } else { "\n" });
            if nl || content.is_empty() {
                content.push('\n');
            }
            (kind, pos, len, content)
        }
    }

    proptest! {
        #[test]
        fn a_batch_equals_its_ops_one_by_one_from_the_bottom(
            text in file(),
            raw in prop::collection::vec(raw_op(), 0..7),
        ) {
            let bytes = text.as_bytes();
            let n = lines::count(bytes) as u64;
            let mut kept: Vec<Op> = Vec::new();
            for (kind, pos, len, content) in raw {
                let op = match kind {
                    0 => Op::Insert { at_line: 1 + pos % (n + 1), content, expect_text: None },
                    _ if n == 0 => continue,
                    1 => {
                        let from = 1 + pos % n;
                        Op::Remove { from_line: from, to_line: (from + len).min(n), expect_text: None }
                    }
                    _ => {
                        let from = 1 + pos % n;
                        Op::UpdateLines {
                            from_line: from,
                            to_line: (from + len).min(n),
                            content,
                            expect_text: None,
                        }
                    }
                };
                if !kept.iter().any(|k| conflict(k, &op)) {
                    kept.push(op);
                }
            }
            let batch = apply(bytes, &kept).unwrap();
            prop_assert_eq!(batch.applied as usize, kept.len());
            prop_assert_eq!(batch.new_line_count, lines::count(&batch.bytes) as u64);

            let mut order = kept.clone();
            order.sort_by_key(|op| std::cmp::Reverse(start(op)));
            let mut current = bytes.to_vec();
            for (i, op) in order.iter().enumerate() {
                // One by one, an intermediate file that lost the original's ending or
                // final-newline shape (by becoming empty, say) legitimately differs.
                prop_assume!(i == 0 || shape(&current) == shape(bytes));
                let next = apply(&current, std::slice::from_ref(op)).unwrap().bytes;
                if current.last().is_none_or(|&b| b == b'\n') {
                    let text = String::from_utf8(current.clone()).unwrap();
                    prop_assert_eq!(String::from_utf8_lossy(&next), splice(&text, op));
                }
                current = next;
            }
            prop_assert_eq!(
                String::from_utf8_lossy(&batch.bytes),
                String::from_utf8_lossy(&current)
            );
        }

        #[test]
        fn any_input_gives_a_result_or_an_error_never_a_panic(
            bytes in prop::collection::vec(prop::sample::select(b"ab\r\n\xff$".to_vec()), 0..40),
            raw in prop::collection::vec(
                (0u8..4, prop::sample::select(vec![0u64, 1, 2, 3, 5, 40, u64::MAX]),
                 prop::sample::select(vec![0u64, 1, 2, 7, u64::MAX]),
                 "[ab\\n$]{0,4}", "[ab.*?()\\n$^]{0,5}", prop::option::of(0u64..3), any::<bool>()),
                0..5),
        ) {
            let ops: Vec<Op> = raw
                .into_iter()
                .map(|(kind, x, y, content, pattern, expect, flag)| match kind {
                    0 => Op::Insert { at_line: x, content, expect_text: None },
                    1 => Op::Remove { from_line: x, to_line: y, expect_text: None },
                    2 => Op::UpdateLines { from_line: x, to_line: y, content, expect_text: None },
                    _ => Op::Replace {
                        pattern,
                        replacement: content,
                        ignore_case: flag,
                        dot_matches_newline: !flag,
                        expect_matches: expect,
                    },
                })
                .collect();
            if let Ok(a) = apply(&bytes, &ops) {
                prop_assert_eq!(a.new_line_count, lines::count(&a.bytes) as u64);
                let size: usize = a.echoes.iter().flat_map(|e| &e.lines).map(|l| l.len() + 1).sum();
                prop_assert!(size <= ECHO_BUDGET_BYTES);
                prop_assert!(a.echoes.iter().all(|e| (e.from_line == 0) == e.lines.is_empty()));
                prop_assert!(a.echoes.iter().all(|e| e.from_line <= a.new_line_count));
            }
        }
    }
}
