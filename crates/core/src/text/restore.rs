//! Text a model wrote after reading a redacted view, mapped back to the file's raw bytes, so that
//! a `[FILTERED]` copied from a read never replaces the value it hides.
//!
//! A model that reads a file through [`redact`](crate::text::redact) sees `API_KEY=[FILTERED]`.
//! When it writes text back (a whole file, an edit's result, a patch's result), [`restore`]
//! compares that text with the file it replaces, line by line, a new line matching an old one
//! when it equals the old line or the old line as read_file shows it (redacted):
//!
//! - The new lines that match the old ones from the start on, and those that match them from
//!   the end back, are paired with those old lines. A paired line's placeholders take the
//!   values its old line hides there (or stay, where the old line holds `[FILTERED]`
//!   literally): a line copied from a redacted read round-trips to its original bytes. A line
//!   paired both ways with old lines that hide different values is ambiguous.
//! - A line between them (the changed block) that holds a placeholder the model wrote is
//!   compared with the redacted form of every old line: when all the old lines it equals hide
//!   the same values it takes them, when they hide different ones it is ambiguous.
//! - A line that equals no redacted old line cannot be mapped. It is refused when the old lines
//!   of the changed block hide a value (the placeholder would overwrite it); when they hide none,
//!   no value can be lost and the line is kept as written.
//!
//! Ambiguous and refused lines make the whole call fail ([`Unmapped`]) before anything is
//! written. Values the model typed itself (credential-looking text in its own lines) are kept:
//! only the literal placeholders it wrote are restored. Redaction is line-local, so a line's
//! redacted form is the same whichever read showed it.

use std::borrow::Cow;
use std::collections::HashMap;

use crate::text::lines;
use crate::text::redact::{FILTERED, Redacted, redact_spans};

/// A new line whose `[FILTERED]` could not be mapped to a value of the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unmapped {
    /// The 1-based number of the line in the new text.
    pub line: usize,
    /// The line as the model wrote it, redacted.
    pub text: String,
    /// The 1-based lines of the file it equals (when redacted), which hide different values;
    /// empty when it equals none.
    pub ambiguous: Vec<usize>,
}

/// `new`, text meant to replace `old`, with every `[FILTERED]` the model wrote that stands for a
/// value hidden in `old` replaced by that value (see the module documentation). Borrowed when
/// nothing changed; an [`Unmapped`] line when a placeholder cannot be mapped.
pub fn restore<'a>(old: &str, new: &'a str) -> Result<Cow<'a, str>, Unmapped> {
    if !new.contains(FILTERED) {
        return Ok(Cow::Borrowed(new));
    }
    let file = FileView::of(old);
    let new_lines: Vec<&str> = new.split_inclusive('\n').collect();
    let (m, n) = (file.lines.len(), new_lines.len());
    let matches = |i: usize, j: usize| file.lines[j].matches(body(new_lines[i]));
    let prefix = (0..m.min(n)).take_while(|&k| matches(k, k)).count();
    let suffix = (1..=m.min(n))
        .take_while(|&k| matches(n - k, m - k))
        .count();
    // The changed block of the old lines: paired neither way.
    let block = prefix..m - suffix.min(m.min(n) - prefix);
    let block_hides = file.lines[block].iter().any(|l| !l.values.is_empty());
    let mut out = String::with_capacity(new.len());
    let mut changed = false;
    for (i, line) in new_lines.iter().enumerate() {
        let text = body(line);
        if !text.contains(FILTERED) {
            out.push_str(line);
            continue;
        }
        let paired = [
            (i < prefix).then_some(i),
            (i + suffix >= n).then(|| i + m - n),
        ];
        match file.resolve(text, paired) {
            Resolved::Values(restored) => {
                out.push_str(&restored);
                changed = true;
            }
            Resolved::Kept => out.push_str(text),
            Resolved::Unknown(_) if !block_hides => out.push_str(text),
            Resolved::Unknown(shown) => {
                return Err(Unmapped {
                    line: i + 1,
                    text: shown,
                    ambiguous: Vec::new(),
                });
            }
            Resolved::Ambiguous(shown, lines) => {
                return Err(Unmapped {
                    line: i + 1,
                    text: shown,
                    ambiguous: lines.iter().map(|j| j + 1).collect(),
                });
            }
        }
        out.push_str(&line[text.len()..]);
    }
    Ok(if changed {
        Cow::Owned(out)
    } else {
        Cow::Borrowed(new)
    })
}

/// A line without its ending.
fn body(line: &str) -> &str {
    &line[..lines::strip_ending(line.as_bytes()).len()]
}

/// One line of the old text: raw, as a model sees it, and what it hides.
struct ViewLine<'a> {
    /// The raw line, without its ending.
    raw: &'a str,
    /// The redacted line, without its ending.
    shown: String,
    /// The hidden values: where each placeholder starts in `shown`, and the raw value.
    values: Vec<(usize, &'a str)>,
}

impl ViewLine<'_> {
    /// Whether a new line (without its ending) is this line, raw or as a model sees it.
    fn matches(&self, text: &str) -> bool {
        self.raw == text || self.shown == text
    }
}

/// The old text's lines, and an index from redacted line to line numbers.
struct FileView<'a> {
    lines: Vec<ViewLine<'a>>,
    by_shown: HashMap<String, Vec<usize>>,
}

enum Resolved {
    /// The line with its placeholders replaced.
    Values(String),
    /// Every placeholder stands for itself (the file holds it literally).
    Kept,
    /// No line of the file redacts to it; the line as redacted.
    Unknown(String),
    /// Lines hiding different values redact to it; the line as redacted, and those lines.
    Ambiguous(String, Vec<usize>),
}

impl<'a> FileView<'a> {
    fn of(old: &'a str) -> FileView<'a> {
        let redacted = redact_spans(old);
        let mut masks = redacted.masks.iter().peekable();
        let mut lines = Vec::new();
        let mut by_shown: HashMap<String, Vec<usize>> = HashMap::new();
        let (mut raw_at, mut shown_at) = (0usize, 0usize);
        for (index, line) in old.split_inclusive('\n').enumerate() {
            let raw = body(line);
            let raw_end = raw_at + raw.len();
            let mut values = Vec::new();
            let (mut grown, mut shrunk) = (0usize, 0usize);
            // Masks never span lines (redaction is line-local).
            while let Some(mask) = masks.next_if(|m| m.raw.start < raw_end) {
                values.push((mask.shown.start - shown_at, &old[mask.raw.clone()]));
                grown += mask.shown.len();
                shrunk += mask.raw.len();
            }
            let shown_end = (shown_at + raw.len() + grown).saturating_sub(shrunk);
            let shown = redacted.text[shown_at..shown_end].to_string();
            by_shown.entry(shown.clone()).or_default().push(index);
            lines.push(ViewLine { raw, shown, values });
            raw_at += line.len();
            shown_at = shown_end + (line.len() - raw.len());
        }
        FileView { lines, by_shown }
    }

    /// The new line `text` (holding `[FILTERED]`) mapped onto the file: through the old lines
    /// it is `paired` with when it equals them, else through every old line it equals.
    fn resolve(&self, text: &str, paired: [Option<usize>; 2]) -> Resolved {
        let own: Redacted = redact_spans(text);
        // The placeholders the model wrote: those that are no value of its own, masked.
        let places: Vec<usize> = own
            .text
            .match_indices(FILTERED)
            .map(|(at, _)| at)
            .filter(|at| !own.masks.iter().any(|m| m.shown.start == *at))
            .collect();
        let values_of = |j: usize| -> Vec<Option<&str>> {
            places
                .iter()
                .map(|at| {
                    self.lines[j]
                        .values
                        .iter()
                        .find(|(start, _)| start == at)
                        .map(|(_, v)| *v)
                })
                .collect()
        };
        let paired: Vec<usize> = paired
            .into_iter()
            .flatten()
            .filter(|&j| self.lines[j].shown == own.text)
            .collect();
        let among = if paired.is_empty() {
            match self.by_shown.get(&own.text) {
                Some(candidates) => candidates.clone(),
                None => return Resolved::Unknown(own.text),
            }
        } else {
            paired
        };
        let mut distinct: Vec<Vec<Option<&str>>> = Vec::new();
        for &j in &among {
            let v = values_of(j);
            if !distinct.contains(&v) {
                distinct.push(v);
            }
        }
        let [values] = distinct.as_slice() else {
            return Resolved::Ambiguous(own.text, among);
        };
        if values.iter().all(Option::is_none) {
            return Resolved::Kept;
        }
        // The model's line with its placeholders at `places` replaced by their values.
        let mut out = String::with_capacity(text.len());
        let mut from = 0;
        for (at, value) in places.iter().zip(values) {
            let (Some(value), Some(raw)) = (value, own.raw_offset(*at)) else {
                continue;
            };
            out.push_str(&text[from..raw]);
            out.push_str(value);
            from = raw + FILTERED.len();
        }
        out.push_str(&text[from..]);
        Resolved::Values(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "sk-proj-Ab3dEf9hIj2kLmN0pQrS7tUv";
    const OTHER: &str = "sk-proj-Zz9yXx8wVv7uTt6sSr5qQp4o";

    #[test]
    fn a_redacted_copy_round_trips_to_the_raw_text() {
        let old = format!("A=1\nAPI_KEY={KEY}\nB=2\n");
        let new = "A=1\nAPI_KEY=[FILTERED]\nB=3\n";
        assert_eq!(
            restore(&old, new).unwrap(),
            format!("A=1\nAPI_KEY={KEY}\nB=3\n")
        );
    }

    #[test]
    fn text_without_a_placeholder_is_borrowed() {
        assert!(matches!(restore("a\n", "b\n"), Ok(Cow::Borrowed(_))));
    }

    #[test]
    fn a_changed_line_with_a_placeholder_over_a_hidden_value_is_refused() {
        let old = format!("API_KEY={KEY}\n");
        let err = restore(&old, "API_KEY=[FILTERED] # prod\n").unwrap_err();
        assert_eq!(err.line, 1);
        assert!(err.ambiguous.is_empty());
    }

    #[test]
    fn a_placeholder_is_literal_where_no_value_is_replaced() {
        let old = format!("API_KEY={KEY}\nnote\n");
        let new = format!("API_KEY={KEY}\nnote: [FILTERED] hides values\n");
        assert_eq!(restore(&old, &new).unwrap(), new);
        // The file holds the placeholder literally.
        let old = "x = \"[FILTERED]\"\n";
        assert_eq!(
            restore(old, "x = \"[FILTERED]\"\ny\n").unwrap(),
            "x = \"[FILTERED]\"\ny\n"
        );
    }

    #[test]
    fn equal_looking_lines_keep_their_own_values_by_their_place() {
        let old = format!("[dev]\nKEY={KEY}\n[prod]\nKEY={OTHER}\n");
        let new = "[dev]\nKEY=[FILTERED]\n[production]\nKEY=[FILTERED]\n";
        assert_eq!(
            restore(&old, new).unwrap(),
            format!("[dev]\nKEY={KEY}\n[production]\nKEY={OTHER}\n")
        );
        // A line dropped between them: each keeps its own.
        assert_eq!(
            restore(&old, "[dev]\nKEY=[FILTERED]\nKEY=[FILTERED]\n").unwrap(),
            format!("[dev]\nKEY={KEY}\nKEY={OTHER}\n")
        );
        // Inside a rewritten block nothing tells them apart.
        let err = restore(&old, "x\nKEY=[FILTERED]\ny\n").unwrap_err();
        assert_eq!((err.line, err.ambiguous), (2, vec![2, 4]));
        // One of two equal-looking lines dropped: which one is not known.
        let old = format!("KEY={KEY}\nKEY={OTHER}\n");
        let err = restore(&old, "KEY=[FILTERED]\n").unwrap_err();
        assert_eq!(err.ambiguous, vec![1, 2]);
    }

    #[test]
    fn a_value_the_model_typed_is_kept() {
        let old = format!("A={KEY}\nB={OTHER}\n");
        let new = format!("A={OTHER}\nB=[FILTERED]\n");
        assert_eq!(
            restore(&old, &new).unwrap(),
            format!("A={OTHER}\nB={OTHER}\n")
        );
    }

    #[test]
    fn crlf_endings_and_several_values_on_a_line() {
        let old = format!("x\r\nAUTH={KEY}:{OTHER}\r\n");
        let new = "y\r\nAUTH=[FILTERED]:[FILTERED]\r\n";
        assert_eq!(
            restore(&old, new).unwrap(),
            format!("y\r\nAUTH={KEY}:{OTHER}\r\n")
        );
    }
}
