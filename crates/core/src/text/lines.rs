//! Lines are 0x0A-terminated; a final line without a terminator is still a line, and a
//! trailing newline does not start a phantom empty line. [`Line`] is the one line type of the
//! engines that edit by lines (update-file, the patch engines): a body and the ending it had.

/// One line of a text: its body and its ending (`\n`, `\r\n`, or nothing for an unterminated
/// last line), borrowed from the text (or, for a new line, from the file's line ending).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Line<'a> {
    /// The line without its ending.
    pub body: &'a [u8],
    /// The ending: `\n`, `\r\n`, or empty.
    pub ending: &'a [u8],
}

impl<'a> Line<'a> {
    /// The line `line` as a text holds it, its ending included when it has one.
    pub fn of(line: &'a [u8]) -> Line<'a> {
        let body = strip_ending(line);
        Line {
            body,
            ending: &line[body.len()..],
        }
    }
}

/// The lines of `bytes`, by the rule above.
pub fn split(bytes: &[u8]) -> Vec<Line<'_>> {
    bytes
        .split_inclusive(|&b| b == b'\n')
        .map(Line::of)
        .collect()
}

/// The number of lines in `bytes`.
pub fn count(bytes: &[u8]) -> usize {
    let newlines = memchr::memchr_iter(b'\n', bytes).count();
    match bytes.last() {
        None | Some(b'\n') => newlines,
        Some(_) => newlines + 1,
    }
}

/// The 1-based line on which byte `offset` of `bytes` lies.
pub fn line_at(bytes: &[u8], offset: usize) -> usize {
    1 + memchr::memchr_iter(b'\n', &bytes[..offset.min(bytes.len())]).count()
}

/// The 1-based lines of several ascending byte offsets, in one pass over `bytes`.
pub fn lines_at(bytes: &[u8], offsets: impl IntoIterator<Item = usize>) -> Vec<usize> {
    let mut line = 1;
    let mut from = 0;
    offsets
        .into_iter()
        .map(|offset| {
            let offset = offset.clamp(from, bytes.len());
            line += memchr::memchr_iter(b'\n', &bytes[from..offset]).count();
            from = offset;
            line
        })
        .collect()
}

/// The largest index `<= at` that does not split a UTF-8 sequence of `bytes`.
pub fn utf8_floor(bytes: &[u8], at: usize) -> usize {
    let mut at = at.min(bytes.len());
    // A continuation byte looks like 0b10xx_xxxx; at most three precede a sequence's end.
    let mut steps = 0;
    while at > 0 && at < bytes.len() && (bytes[at] & 0xC0) == 0x80 && steps < 3 {
        at -= 1;
        steps += 1;
    }
    at
}

/// `line` without its ending (`\n` or `\r\n`).
pub fn strip_ending(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// Cuts `text` after `max` characters. Returns the kept part and how many characters were cut.
pub fn cut_chars(text: &str, max: usize) -> (&str, usize) {
    match text.char_indices().nth(max) {
        Some((at, _)) => (&text[..at], text[at..].chars().count()),
        None => (text, 0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trailing_newline_makes_no_phantom_line() {
        assert_eq!(count(b""), 0);
        assert_eq!(count(b"a"), 1);
        assert_eq!(count(b"a\n"), 1);
        assert_eq!(count(b"a\nb"), 2);
        assert_eq!(count(b"\n\n"), 2);
    }

    #[test]
    fn line_at_counts_preceding_newlines() {
        let text = b"one\ntwo\nthree";
        assert_eq!(line_at(text, 0), 1);
        assert_eq!(line_at(text, 4), 2);
        assert_eq!(line_at(text, 8), 3);
    }

    #[test]
    fn lines_at_matches_line_at_for_each_offset() {
        let text = b"a\nbb\n\nccc";
        let offsets = [0, 1, 2, 5, 6, 9];
        let each: Vec<usize> = offsets.iter().map(|&o| line_at(text, o)).collect();
        assert_eq!(lines_at(text, offsets), each);
    }

    #[test]
    fn a_line_keeps_its_ending_apart_from_its_body() {
        let got = split(b"a\r\nb\n\nc");
        let want = [
            (&b"a"[..], &b"\r\n"[..]),
            (b"b", b"\n"),
            (b"", b"\n"),
            (b"c", b""),
        ];
        assert_eq!(got.len(), want.len());
        for (line, (body, ending)) in got.iter().zip(want) {
            assert_eq!((line.body, line.ending), (body, ending));
        }
        assert!(split(b"").is_empty());
        assert_eq!(split(b"x\n").len(), count(b"x\n"));
    }

    #[test]
    fn utf8_floor_never_splits_a_character() {
        let s = "aé€".as_bytes(); // 1 + 2 + 3 bytes
        assert_eq!(utf8_floor(s, 2), 1);
        assert_eq!(utf8_floor(s, 4), 3);
        assert_eq!(utf8_floor(s, 6), 6);
    }

    #[test]
    fn cut_chars_counts_characters_not_bytes() {
        assert_eq!(cut_chars("ééééé", 3), ("ééé", 2));
        assert_eq!(cut_chars("abc", 3), ("abc", 0));
    }
}
