//! Patch formats agents emit, parsed and applied by one engine: unified diffs (whose line
//! numbers are ignored) and V4A patches. Both formats' hunks are made of the same
//! [`HunkLine`]s, and both engines splice the file's [`Line`]s the same way (`splice`).

pub mod unified;
pub mod v4a;

/// What a hunk line does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineKind {
    /// Unchanged (` `, or a bare blank line): on both sides.
    Context,
    /// Removed (`-`): on the old side only.
    Removed,
    /// Added (`+`): on the new side only.
    Added,
}

/// One line of a hunk, in either format.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HunkLine {
    /// What the line does.
    pub kind: LineKind,
    /// The line after its one-character prefix. A unified diff's line keeps the ending the
    /// diff gave it (`\n` or `\r\n`; none when a `\ No newline at end of file` marker follows
    /// it); a V4A patch's line has none (the file's ending is used).
    pub text: String,
}

impl HunkLine {
    /// Whether the line ends in a newline (a unified diff's line without a `\ No newline at end
    /// of file` marker).
    pub fn has_ending(&self) -> bool {
        self.text.ends_with('\n')
    }
}

/// What one hunk does to the original: lines `start..end` become `pieces` (each a body and an
/// ending, borrowed from the file, the patch or the file's line ending).
pub(crate) struct Edit<'a> {
    pub start: usize,
    pub end: usize,
    pub pieces: Vec<Line<'a>>,
}

/// The file's lines with `edits` (ascending, not overlapping) spliced in. A line that ends up
/// followed by another gets `eol` if it had no ending.
pub(crate) fn splice(file: &[&[u8]], edits: &[Edit<'_>], eol: &[u8]) -> Vec<u8> {
    let size: usize = file.iter().map(|l| l.len()).sum();
    let mut out = Vec::with_capacity(size + size / 8 + 64);
    let push = |out: &mut Vec<u8>, piece: Line<'_>| {
        if !out.is_empty() && !out.ends_with(b"\n") {
            out.extend_from_slice(eol);
        }
        out.extend_from_slice(piece.body);
        out.extend_from_slice(piece.ending);
    };
    let mut next = 0;
    for edit in edits {
        for line in &file[next..edit.start] {
            push(&mut out, Line::of(line));
        }
        for &piece in &edit.pieces {
            push(&mut out, piece);
        }
        next = edit.end;
    }
    for line in &file[next..] {
        push(&mut out, Line::of(line));
    }
    out
}

// Shared wording of the engines' errors: how a hunk and the file around it are quoted.

use crate::text::lines::{self, Line};

/// `lines`, a hunk's, with its added lines re-indented from the indentation of its old lines
/// (context and removed) to that of the file's lines they matched at `start`, ignoring
/// indentation ([`matcher::reindent_lines`]); each line keeps its ending. `name` names the hunk
/// and `format` the text to send again (`patch`, `diff`) in the error of a line that cannot be
/// re-indented.
pub(crate) fn reindented(
    lines: &[HunkLine],
    file: &[&[u8]],
    start: usize,
    name: &str,
    format: &str,
) -> Result<Vec<HunkLine>, crate::error::ToolError> {
    use crate::text::matcher;
    let old: Vec<&[u8]> = lines
        .iter()
        .filter(|l| l.kind != LineKind::Added)
        .map(|l| l.text.as_bytes())
        .collect();
    let new: Vec<&[u8]> = lines
        .iter()
        .filter(|l| l.kind != LineKind::Removed)
        .map(|l| lines::strip_ending(l.text.as_bytes()))
        .collect();
    let region = &file[start..start + old.len()];
    let mut moved = matcher::reindent_lines(&new, &old, region, file)
        .map_err(|u| {
            crate::error::ToolError::invalid(format!(
                "{name} matched the file's {} only ignoring indentation, and its {} line {} \
                 cannot be re-indented to the file's: {}. Quote the file's indentation exactly \
                 and send the {format} again. Nothing was written.",
                span(start, start + old.len()),
                if u.in_quote { "old" } else { "new-side" },
                u.line,
                u.reason
            ))
        })?
        .into_iter();
    let mut out = lines.to_vec();
    for line in out.iter_mut().filter(|l| l.kind != LineKind::Removed) {
        let text = moved.next().unwrap_or_default();
        if line.kind == LineKind::Added {
            let ending = &line.text[lines::strip_ending(line.text.as_bytes()).len()..];
            line.text = String::from_utf8_lossy(&text).into_owned() + ending;
        }
    }
    Ok(out)
}

/// How a hunk was found, for an error, when a correction found it: " (ignoring indentation)";
/// nothing at the exact levels.
pub(crate) fn loosely(level: crate::text::matcher::Level) -> &'static str {
    use crate::text::matcher::Level;
    match level {
        Level::Exact | Level::LineEndings => "",
        Level::TrailingWhitespace => " (ignoring trailing whitespace)",
        Level::Indentation => " (ignoring indentation)",
        Level::Punctuation => " (with Unicode punctuation normalised)",
    }
}

/// The most lines an error message quotes from a hunk or a file region.
pub(crate) const MAX_SHOWN_LINES: usize = 12;
/// The most characters an error message shows of one line.
pub(crate) const MAX_SHOWN_CHARS: usize = 160;

/// "this context or removed line" or "these 3 context and removed lines".
pub(crate) fn old_side_count(n: usize) -> String {
    if n == 1 {
        "this context or removed line".to_string()
    } else {
        format!("these {n} context and removed lines, in order")
    }
}

/// "line 4" or "lines 4-9" for the 0-based range `start..end`.
pub(crate) fn span(start: usize, end: usize) -> String {
    if end <= start + 1 {
        format!("line {}", start + 1)
    } else {
        format!("lines {}-{end}", start + 1)
    }
}

/// Lines `start..end` of the file, numbered, the `differing` ones marked with `*`.
pub(crate) fn numbered(file: &[&[u8]], start: usize, end: usize, differing: &[usize]) -> String {
    let width = end.to_string().len();
    let mut shown: Vec<String> = file[start..end]
        .iter()
        .take(MAX_SHOWN_LINES)
        .enumerate()
        .map(|(offset, line)| {
            let text = String::from_utf8_lossy(lines::strip_ending(line));
            let index = start + offset;
            let mark = if differing.contains(&index) { '*' } else { ' ' };
            format!(
                "{mark} {:>width$} | {}",
                index + 1,
                lines::cut_chars(&text, MAX_SHOWN_CHARS).0
            )
        })
        .collect();
    if end - start > MAX_SHOWN_LINES {
        shown.push(format!(
            "  … and {} more lines",
            end - start - MAX_SHOWN_LINES
        ));
    }
    shown.join("\n")
}

/// `text` in backticks, cut to [`MAX_SHOWN_CHARS`].
pub(crate) fn quote(text: &str) -> String {
    let (kept, cut) = lines::cut_chars(text, MAX_SHOWN_CHARS);
    if cut > 0 {
        format!("`{kept}…`")
    } else {
        format!("`{kept}`")
    }
}
