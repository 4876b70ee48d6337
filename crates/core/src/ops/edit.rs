//! Replacing one exact, unique occurrence of a string in a file. Text that is absent and text
//! that occurs several times are different failures with different recoveries: the first needs
//! a fresh read, the second more context. Everything outside the replaced range is kept byte for
//! byte and the write is atomic.
//!
//! A UTF-8 file (and a binary one) is matched byte for byte. Text in another encoding is matched
//! in its decoded text, the text read_file and search show ([`encoding::decode_foreign`]), and
//! written back in its encoding by [`encoding::rewrite`]: the lines the edit leaves alone keep
//! their bytes, and characters the encoding cannot represent are refused by name.

use std::io;

use super::write::WriteFailed;
use crate::access::{Access, Meta, OpenFile, Resolved, Splice, WriteOptions};
use crate::error::ToolError;
use crate::text::encoding::{self, BINARY_SNIFF_LEN, Decoded, Enc, TextFormat, Utf8Check};
use crate::text::lines;
use crate::text::matcher::{self, Found, Level};

/// Why an edit was refused or failed; nothing was written. The surface words it in its
/// profile's terms (the names of its arguments and of the tools to call next).
#[derive(Debug)]
#[non_exhaustive]
pub enum EditError {
    /// The text to replace is empty.
    EmptyOld {
        /// The path as the model gave it.
        path: String,
    },
    /// The text to replace and its replacement are the same.
    Unchanged {
        /// The path as the model gave it.
        path: String,
    },
    /// Nothing is at the path.
    Missing {
        /// The path as the model gave it.
        path: String,
    },
    /// The path names a folder.
    Directory {
        /// The path as the model gave it.
        path: String,
    },
    /// The text occurs more than once.
    NotUnique {
        /// The path as the model gave it.
        path: String,
        /// How many times it occurs (overlapping occurrences count).
        count: usize,
        /// The 1-based lines the occurrences start on, ascending, each once.
        lines: Vec<usize>,
    },
    /// The text does not occur.
    NoMatch {
        /// The path as the model gave it.
        path: String,
        /// The lines of the text it was looked for in.
        lines: usize,
        /// What the file has instead, as far as can be told.
        why: Absent,
    },
    /// The text was found at a place that splits a character of a decoded text (an internal
    /// error).
    SplitsCharacter {
        /// The path as the model gave it.
        path: String,
    },
    /// The file is text in another encoding, which cannot hold some characters of the edited
    /// text; `error` names them.
    Unencodable {
        /// The path as the model gave it.
        path: String,
        /// What [`encoding::rewrite`] refused.
        error: ToolError,
    },
    /// The atomic write failed.
    Failed(WriteFailed),
    /// Any other failure, worded in the engine's neutral terms.
    Other(ToolError),
}

impl From<ToolError> for EditError {
    fn from(e: ToolError) -> Self {
        EditError::Other(e)
    }
}

impl From<WriteFailed> for EditError {
    fn from(e: WriteFailed) -> Self {
        EditError::Failed(e)
    }
}

/// Why a quote was not found.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Absent {
    /// The quote differs from the file's text.
    Differs {
        /// The first five lines that hold the quote's first non-blank line (trimmed); empty
        /// when none does.
        near: Vec<usize>,
        /// Whether the quote holds more than that one line, so the lines after it differ.
        first_line_only: bool,
        /// The file's encoding when the quote was matched against its decoded text.
        decoded: Option<Enc>,
    },
    /// The quote holds U+FFFD, which stands for bytes a reader could not decode.
    ReplacementChar(Fffd),
}

/// What the file has where a quote holds U+FFFD.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Fffd {
    /// The file is text in `encoding`; with each U+FFFD standing for one character, the quote
    /// matches at `line`, where the file has `chars` (each quoted as Rust's `{:?}` shows it).
    DecodedAt {
        /// The file's encoding.
        encoding: Enc,
        /// The 1-based line of the match.
        line: usize,
        /// The characters in place of the U+FFFDs, in order.
        chars: Vec<String>,
    },
    /// The file is text in `encoding`, and the quote matches nowhere even so.
    Decoded {
        /// The file's encoding.
        encoding: Enc,
    },
    /// The file is not valid UTF-8: U+FFFD is how a read shows the bytes that are not.
    InvalidUtf8,
    /// The file is valid UTF-8 and has no such bytes.
    ValidUtf8,
}

/// What an edit did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EditReport {
    /// How the text was found.
    pub level: Level,
    /// The 1-based line where the replaced text started.
    pub line: usize,
    /// Lines the replaced text spanned.
    pub old_lines: usize,
    /// Lines the replacement spans.
    pub new_lines: usize,
    /// The file's format when it is text in another encoding than UTF-8: the edit was made in
    /// its decoded text and written back in this encoding. `None` for UTF-8 (and binary) files.
    pub decoded: Option<TextFormat>,
}

/// Replaces the one occurrence of `old` in `target` with `new`.
pub fn edit(
    access: &Access,
    target: &Resolved,
    old: &str,
    new: &str,
) -> Result<EditReport, EditError> {
    if old.is_empty() {
        return Err(EditError::EmptyOld {
            path: target.shown.clone(),
        });
    }
    if old == new {
        return Err(EditError::Unchanged {
            path: target.shown.clone(),
        });
    }
    let (file, read) = access
        .open_regular(target)
        .map_err(|e| read_error(&e, target))?;
    if read.len >= STREAM_FROM
        && let Some(report) = edit_large(access, target, &file, &read, old, new)?
    {
        return Ok(report);
    }
    let bytes = crate::access::fs::read_open(file, &read).map_err(|e| read_error(&e, target))?;
    let head = &bytes[..bytes.len().min(BINARY_SNIFF_LEN)];
    if !encoding::looks_binary(head)
        && let Some(decoded) = encoding::decode_foreign(&bytes, None)
    {
        return edit_decoded(access, target, (&bytes, &read), &decoded, old, new);
    }
    let Some(found) = matcher::find(&bytes, old, new) else {
        return Err(no_match(&bytes, old, target, None));
    };
    if found.ranges.len() > 1 {
        return Err(not_unique(&bytes, &found, target));
    }
    let range = found.ranges[0].clone();
    // The new content is written from three slices: a large file is never copied in memory.
    let parts = [
        &bytes[..range.start],
        &found.replacement[..],
        &bytes[range.end..],
    ];
    access
        .write_atomic_parts(
            target,
            &parts,
            WriteOptions {
                create_parents: false,
                ..WriteOptions::default()
            }
            .expecting_read(&bytes, &read),
        )
        .map_err(|e| WriteFailed::new(e, target))?;
    Ok(EditReport {
        level: found.level,
        line: lines::line_at(&bytes, range.start),
        old_lines: lines::count(&bytes[range.clone()]).max(1),
        new_lines: lines::count(&found.replacement),
        decoded: None,
    })
}

/// The edit of a file whose text is in another encoding (`decoded` from `original`, read with
/// `read`): matched in the decoded text and written back in the file's encoding.
fn edit_decoded(
    access: &Access,
    target: &Resolved,
    (original, read): (&[u8], &Meta),
    decoded: &Decoded,
    old: &str,
    new: &str,
) -> Result<EditReport, EditError> {
    let text = decoded.text.as_str();
    let Some(found) = matcher::find(text.as_bytes(), old, new) else {
        return Err(no_match(text.as_bytes(), old, target, Some(decoded)));
    };
    if found.ranges.len() > 1 {
        return Err(not_unique(text.as_bytes(), &found, target));
    }
    let range = found.ranges[0].clone();
    let replacement = String::from_utf8_lossy(&found.replacement);
    let (Some(before), Some(after)) = (text.get(..range.start), text.get(range.end..)) else {
        return Err(EditError::SplitsCharacter {
            path: target.shown.clone(),
        });
    };
    let new_text = [before, &replacement, after].concat();
    let out = encoding::rewrite(original, decoded, &new_text).map_err(|error| {
        EditError::Unencodable {
            path: target.shown.clone(),
            error,
        }
    })?;
    access
        .write_atomic(
            target,
            &out,
            WriteOptions {
                create_parents: false,
                ..WriteOptions::default()
            }
            .expecting_read(original, read),
        )
        .map_err(|e| WriteFailed::new(e, target))?;
    Ok(EditReport {
        level: found.level,
        line: lines::line_at(text.as_bytes(), range.start),
        old_lines: lines::count(&text.as_bytes()[range]).max(1),
        new_lines: lines::count(replacement.as_bytes()),
        decoded: Some(decoded.format),
    })
}

/// The refusal of text found at several places (`haystack` is the text it was found in).
fn not_unique(haystack: &[u8], found: &Found, target: &Resolved) -> EditError {
    // Occurrences on one line name that line once.
    let mut lines = lines::lines_at(haystack, found.ranges.iter().map(|r| r.start));
    lines.dedup();
    EditError::NotUnique {
        path: target.shown.clone(),
        count: found.ranges.len(),
        lines,
    }
}

/// Files from this size on are edited without being loaded, when the text occurs exactly once.
const STREAM_FROM: u64 = 8 * 1024 * 1024;

/// The edit of a large file (`file`, opened with `read`) whose `old` occurs exactly once, byte
/// for byte: found by a scan in chunks and written by the kernel copying around the replaced
/// range, so the file never sits in memory. `None` when the text is absent or repeated: the
/// whole-file path then finds it through the matcher's levels or names the failure.
fn edit_large(
    access: &Access,
    target: &Resolved,
    file: &OpenFile,
    read: &Meta,
    old: &str,
    new: &str,
) -> Result<Option<EditReport>, EditError> {
    let Some((at, line)) = find_once(file, old.as_bytes()).map_err(|e| read_error(&e, target))?
    else {
        return Ok(None);
    };
    let splice = Splice {
        from: file,
        len: read.len,
        cut: at..at + old.len() as u64,
        with: new.as_bytes(),
    };
    let options = WriteOptions {
        create_parents: false,
        expect_stamp: Some(read.stamp),
        ..WriteOptions::default()
    };
    access
        .write_atomic_splice(target, splice, options)
        .map_err(|e| WriteFailed::new(e, target))?;
    Ok(Some(EditReport {
        level: Level::Exact,
        line,
        old_lines: lines::count(old.as_bytes()).max(1),
        new_lines: lines::count(new.as_bytes()),
        decoded: None,
    }))
}

/// The offset and 1-based line of the only occurrence of `needle` in `file`, read in chunks;
/// `None` when it is absent or occurs more than once (overlapping occurrences count), or when
/// the file is not valid UTF-8 (its text may be in another encoding, matched once decoded).
fn find_once(file: &OpenFile, needle: &[u8]) -> io::Result<Option<(u64, usize)>> {
    use std::os::unix::fs::FileExt as _;
    const CHUNK: usize = 1024 * 1024;
    let finder = memchr::memmem::Finder::new(needle);
    let keep = needle.len().saturating_sub(1);
    let mut buf = vec![0u8; keep + CHUNK];
    // `buf[..carried]` repeats the end of the previous chunk, so a match across two chunks is
    // seen; it is shorter than the needle, so no match lies wholly inside it.
    let mut carried = 0usize;
    let mut offset = 0u64; // file offset of buf[carried]
    let mut newlines = 0usize; // newlines before `offset`
    let mut found: Option<(u64, usize)> = None;
    let mut utf8 = Utf8Check::default();
    loop {
        let n = match file.read_at(&mut buf[carried..], offset) {
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if n == 0 {
            return Ok(found.filter(|_| utf8.is_valid()));
        }
        let window = &buf[..carried + n];
        utf8.feed(&window[carried..]);
        if utf8.failed() {
            return Ok(None);
        }
        let mut from = 0;
        while let Some(i) = finder.find(&window[from..]) {
            let start = from + i;
            if found.is_some() {
                return Ok(None);
            }
            let line = if start >= carried {
                1 + newlines + memchr::memchr_iter(b'\n', &window[carried..start]).count()
            } else {
                1 + newlines - memchr::memchr_iter(b'\n', &window[start..carried]).count()
            };
            found = Some((offset + start as u64 - carried as u64, line));
            from = start + 1;
        }
        newlines += memchr::memchr_iter(b'\n', &window[carried..]).count();
        offset += n as u64;
        let tail = (carried + n).saturating_sub(keep);
        buf.copy_within(tail..carried + n, 0);
        carried = carried + n - tail;
    }
}

fn read_error(err: &io::Error, target: &Resolved) -> EditError {
    let path = target.shown.clone();
    match err.kind() {
        io::ErrorKind::NotFound => EditError::Missing { path },
        io::ErrorKind::IsADirectory => EditError::Directory { path },
        _ => ToolError::from_io(err, "read", &target.shown).into(),
    }
}

/// The absent-text error, with where the quote's first line does occur, if anywhere.
/// `haystack` is the text the quote was looked for in: the file's bytes, or its decoded text
/// when `decoded` is given. A quote holding U+FFFD gets the reason it cannot match instead of a
/// guess about whitespace.
fn no_match(haystack: &[u8], old: &str, target: &Resolved, decoded: Option<&Decoded>) -> EditError {
    let text = String::from_utf8_lossy(haystack);
    let why = if old.contains('\u{FFFD}') {
        Absent::ReplacementChar(replacement_char_reason(&text, haystack, old, decoded))
    } else {
        let anchor = old.lines().map(str::trim).find(|l| !l.is_empty());
        let near = match anchor {
            Some(anchor) => text
                .lines()
                .enumerate()
                .filter(|(_, line)| line.contains(anchor))
                .take(5)
                .map(|(i, _)| i + 1)
                .collect(),
            None => Vec::new(),
        };
        Absent::Differs {
            near,
            first_line_only: anchor.is_some_and(|a| old.trim() != a),
            decoded: decoded.map(|d| d.format.encoding),
        }
    };
    EditError::NoMatch {
        path: target.shown.clone(),
        lines: lines::count(haystack),
        why,
    }
}

/// What the file has where a quote holds U+FFFD, when the quote matches with each U+FFFD
/// standing for one character.
fn replacement_char_reason(
    text: &str,
    haystack: &[u8],
    old: &str,
    decoded: Option<&Decoded>,
) -> Fffd {
    let pattern: String = old
        .split('\u{FFFD}')
        .map(regex::escape)
        .collect::<Vec<_>>()
        .join("(.)");
    let found = regex::Regex::new(&pattern)
        .ok()
        .and_then(|re| re.captures(text))
        .map(|caps| {
            let line = text[..caps.get(0).map_or(0, |m| m.start())]
                .matches('\n')
                .count()
                + 1;
            let chars: Vec<String> = caps
                .iter()
                .skip(1)
                .flatten()
                .map(|m| format!("{:?}", m.as_str()))
                .collect();
            (line, chars)
        });
    match (decoded, found) {
        (Some(d), Some((line, chars))) => Fffd::DecodedAt {
            encoding: d.format.encoding,
            line,
            chars,
        },
        (Some(d), None) => Fffd::Decoded {
            encoding: d.format.encoding,
        },
        (None, _) if std::str::from_utf8(haystack).is_err() => Fffd::InvalidUtf8,
        (None, _) => Fffd::ValidUtf8,
    }
}
