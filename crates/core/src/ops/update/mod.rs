//! coder's update-file engine: line operations applied bottom-up and regex replacements, with
//! post-apply echoes. Pure: bytes in, bytes out.
//!
//! The caller reads the file, checks its size caps, calls [`apply`] and writes the returned
//! bytes atomically; any error means nothing may be written.
//!
//! One concept a file: the ops and [`apply`] here, the line ops in `line_ops`, the replace ops
//! in `replace`, the echoes in `echoes`, the unit tests in `tests`.
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

use serde::{Deserialize, Serialize};

use crate::error::ToolError;
use crate::text::lines;

mod echoes;
mod line_ops;
mod replace;
#[cfg(test)]
mod tests;

use echoes::render;
pub use line_ops::lines_now;
use line_ops::{
    Edit, EditKind, apply_lines, check_expected, check_insert, check_overlaps, check_range,
};
use replace::Replacer;

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
