//! Line ops (insert, remove, update_lines): checked against the file and against each other,
//! their `expect_text` compared with the lines they name, and applied bottom-up on the
//! original line numbers.

use super::echoes::{Pending, PendingKind};
use super::{
    ECHO_LINE_MAX_BYTES, LinesNow, Op, Result, UpdateError, content_lines, invalid, plural, span,
};
use crate::error::ToolError;
use crate::text::lines::{self, Line};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum EditKind {
    Insert,
    Remove,
    Update,
}

/// A validated line op. For an insert `from == to == at_line`.
#[derive(Debug)]
pub(super) struct Edit<'a> {
    pub(super) index: u32,
    pub(super) kind: EditKind,
    pub(super) from: u64,
    pub(super) to: u64,
    pub(super) lines: Vec<&'a [u8]>,
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

pub(super) fn check_insert(index: u32, at: u64, content: &str, total: u64) -> Result<()> {
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

pub(super) fn check_range(
    index: u32,
    name: &'static str,
    from: u64,
    to: u64,
    total: u64,
) -> Result<()> {
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
pub(super) const LINES_SHOWN_PER_OP: usize = 8;
/// The most lines of the file [`lines_now`] shows in all.
pub(super) const LINES_SHOWN: usize = 24;

/// The 1-based lines a line op acts on, for comparing and showing them: `(first, last)`, with
/// `last < first` when there is none (an insert that appends). An insert's are the lines from
/// `at_line` on, as many as `want` (at least one).
pub(super) fn op_lines(op: &Op, total: u64, want: usize) -> Option<(u64, u64)> {
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
pub(super) fn numbered_lines(orig: &[Line<'_>], first: u64, last: u64, max: usize) -> Vec<String> {
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
pub(super) fn shown_line(body: &[u8]) -> String {
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
pub(super) fn check_expected(
    index: u32,
    op: &Op,
    orig: &[Line<'_>],
    expected: Option<&str>,
) -> Result<()> {
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
pub(super) fn check_overlaps(edits: &[Edit<'_>]) -> Result<()> {
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

pub(super) fn overlap(a: &Edit<'_>, b: &Edit<'_>, why: String) -> UpdateError {
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

/// Builds the body after the line ops (sorted, non-overlapping) and their echo regions.
pub(super) fn apply_lines(
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
