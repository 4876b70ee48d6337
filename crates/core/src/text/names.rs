//! How names and paths are shown to a model, and read back: one escaped form that every listing,
//! tree, search and glob prints and every tool accepts again as the same path.
//!
//! A name is shown as it is unless a model could not see it or could mistake it for another:
//!
//! - a byte that is not part of valid UTF-8 is shown as `\xHH` (two lowercase hex digits):
//!   the name `bad` + byte 0xFF + `.txt` is shown `bad\xff.txt`;
//! - an invisible or look-alike character is shown as `\u{HEX}` (uppercase hex, no padding):
//!   control characters (`\u{A}` for a newline), bidirectional controls (`\u{202E}`),
//!   zero-width and other format characters (`\u{200B}`, `\u{FEFF}`), spaces other than the
//!   ASCII space (`\u{A0}`), U+FFFD itself (which a lossy decoding would print), and an ASCII
//!   space at the start or end of a name (`x.ts\u{20}`);
//! - in a name shown with any escape, and in a name whose own text holds something that reads
//!   as one (`\\`, `\xHH` with HH at least 80, `\u{…}`), every backslash is doubled (`\\`).
//!   A name with a backslash and nothing else to escape (`a\b.ts`) is shown as it is.
//!
//! Each name of a path is escaped on its own; the `/` between them is never escaped (no name
//! holds one). Reading back ([`unescape`]) decodes those sequences; any other backslash stays
//! a backslash. [`crate::access::Access::resolve`] tries the decoded path first when it names
//! something, then the path as written, so both a shown form and a name with real backslashes
//! reach what they name.

use std::borrow::Cow;
use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::Path;

/// Whether `c` is shown escaped wherever it stands in a name: a character a model cannot see,
/// or could take for another.
pub fn needs_escape(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            // Soft hyphen, Arabic letter mark, Mongolian vowel separator.
            '\u{AD}' | '\u{61C}' | '\u{180E}'
            // Zero-width space, non-joiner, joiner; left-to-right and right-to-left marks.
            | '\u{200B}'..='\u{200F}'
            // Line and paragraph separators; bidirectional embeddings and overrides.
            | '\u{2028}'..='\u{202E}'
            // Word joiner, invisible operators, bidirectional isolates, deprecated formats.
            | '\u{2060}'..='\u{206F}'
            // Variation selectors; byte-order mark (zero-width no-break space).
            | '\u{FE00}'..='\u{FE0F}' | '\u{FEFF}'
            // Interlinear annotation controls; the replacement character.
            | '\u{FFF9}'..='\u{FFFB}' | '\u{FFFD}'
            // Hangul fillers, which render as nothing.
            | '\u{115F}' | '\u{1160}' | '\u{3164}' | '\u{FFA0}'
            // Tag characters and their supplementary variation selectors.
            | '\u{E0000}'..='\u{E007F}' | '\u{E0100}'..='\u{E01EF}'
        )
        || (c.is_whitespace() && c != ' ')
}

/// How one name (a single path component) is shown.
pub fn show_name(name: &OsStr) -> Cow<'_, str> {
    let bytes = name.as_bytes();
    match std::str::from_utf8(bytes) {
        Ok(text) if is_plain(text) => Cow::Borrowed(text),
        _ => {
            let mut out = String::with_capacity(bytes.len() + 8);
            escape_into(bytes, &mut out);
            Cow::Owned(out)
        }
    }
}

/// How a path is shown: each name escaped on its own (see the module doc), joined by `/`.
pub fn show_path(path: &Path) -> String {
    let bytes = path.as_os_str().as_bytes();
    let mut out = String::with_capacity(bytes.len() + 8);
    for (i, part) in bytes.split(|&b| b == b'/').enumerate() {
        if i > 0 {
            out.push('/');
        }
        match std::str::from_utf8(part) {
            Ok(text) if is_plain(text) => out.push_str(text),
            _ => escape_into(part, &mut out),
        }
    }
    out
}

/// Whether a valid UTF-8 name is shown as it is.
fn is_plain(text: &str) -> bool {
    let escaped = text.chars().any(needs_escape)
        || text.starts_with(' ')
        || text.ends_with(' ')
        || (text.contains('\\') && unescape(text).is_some());
    !escaped
}

/// Appends the escaped form of the name `bytes`.
fn escape_into(bytes: &[u8], out: &mut String) {
    let lead = bytes.iter().take_while(|&&b| b == b' ').count();
    let trail = bytes.len() - bytes.iter().rev().take_while(|&&b| b == b' ').count();
    let mut at = 0;
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            let edge = c == ' ' && (at < lead || at >= trail);
            if c == '\\' {
                out.push_str("\\\\");
            } else if needs_escape(c) || edge {
                out.push_str(&format!("\\u{{{:X}}}", u32::from(c)));
            } else {
                out.push(c);
            }
            at += c.len_utf8();
        }
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02x}"));
            at += 1;
        }
    }
}

/// The path `text` names once its escape sequences are decoded (`\\`, `\xHH` for a byte of 80
/// to FF, `\u{HEX}` for a character other than NUL and `/`), or `None` when it holds none. A
/// backslash that starts no such sequence stays a backslash.
pub fn unescape(text: &str) -> Option<OsString> {
    let bytes = text.as_bytes();
    if !bytes.contains(&b'\\') {
        return None;
    }
    let mut out = Vec::with_capacity(bytes.len());
    let mut decoded = false;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\'
            && let Some((value, used)) = sequence(&bytes[i + 1..])
        {
            out.extend_from_slice(&value);
            decoded = true;
            i += 1 + used;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    decoded.then(|| OsString::from_vec(out))
}

/// The escape sequence at the start of `rest` (what follows a backslash): its bytes and how
/// many bytes of `rest` it takes.
fn sequence(rest: &[u8]) -> Option<(Vec<u8>, usize)> {
    match rest.first()? {
        b'\\' => Some((vec![b'\\'], 1)),
        b'x' => {
            let hex = std::str::from_utf8(rest.get(1..3)?).ok()?;
            if !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                return None;
            }
            let byte = u8::from_str_radix(hex, 16).ok()?;
            (byte >= 0x80).then(|| (vec![byte], 3))
        }
        b'u' => {
            if rest.get(1) != Some(&b'{') {
                return None;
            }
            let close = rest.iter().take(10).position(|&b| b == b'}')?;
            let hex = std::str::from_utf8(&rest[2..close]).ok()?;
            if hex.is_empty() || hex.len() > 6 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                return None;
            }
            let c = char::from_u32(u32::from_str_radix(hex, 16).ok()?)?;
            if c == '\0' || c == '/' {
                return None;
            }
            Some((c.to_string().into_bytes(), close + 1))
        }
        _ => None,
    }
}

/// Whether a name has a space at its start or end, which a reader of a message cannot see.
pub fn has_edge_space(name: &str) -> bool {
    name.starts_with(|c: char| c.is_whitespace()) || name.ends_with(|c: char| c.is_whitespace())
}

/// How a path the model gave is named in messages: as given, with invisible characters
/// escaped (`\u{202E}`), and in double quotes when one of its names starts or ends with a
/// space, so the space can be seen (`"x.ts "`).
pub fn given(raw: &str) -> String {
    let escaped: Cow<'_, str> = if raw.chars().any(needs_escape) {
        let mut out = String::with_capacity(raw.len() + 8);
        for c in raw.chars() {
            if needs_escape(c) {
                out.push_str(&format!("\\u{{{:X}}}", u32::from(c)));
            } else {
                out.push(c);
            }
        }
        Cow::Owned(out)
    } else {
        Cow::Borrowed(raw)
    };
    if raw.split('/').any(has_edge_space) {
        format!("\"{escaped}\"")
    } else {
        escaped.into_owned()
    }
}

/// A path in double quotes, its invisible characters escaped: how refusals about the form of
/// a path name it, so that every space shows.
pub fn quoted(raw: &str) -> String {
    let shown = given(raw);
    if shown.starts_with('"') {
        shown
    } else {
        format!("\"{shown}\"")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn os(bytes: &[u8]) -> OsString {
        OsString::from_vec(bytes.to_vec())
    }

    #[test]
    fn invalid_bytes_bidi_and_zero_width_characters_are_shown_escaped() {
        assert_eq!(show_name(&os(b"bad\xff.txt")), "bad\\xff.txt");
        assert_eq!(
            show_name(OsStr::new("evil\u{202E}txt.exe")),
            "evil\\u{202E}txt.exe"
        );
        assert_eq!(show_name(OsStr::new("a\u{200B}b")), "a\\u{200B}b");
        assert_eq!(show_name(OsStr::new("line\nbreak")), "line\\u{A}break");
        assert_eq!(show_name(OsStr::new("x.ts ")), "x.ts\\u{20}");
        assert_eq!(show_name(OsStr::new(" x.ts")), "\\u{20}x.ts");
        assert_eq!(show_name(OsStr::new("my file.txt")), "my file.txt");
        assert_eq!(show_name(OsStr::new("caf\u{e9}")), "caf\u{e9}");
    }

    #[test]
    fn a_backslash_is_doubled_only_where_it_could_be_read_as_an_escape() {
        assert_eq!(show_name(OsStr::new("a\\b.ts")), "a\\b.ts");
        assert_eq!(show_name(OsStr::new("~")), "~");
        assert_eq!(show_name(OsStr::new("lit\\xff")), "lit\\\\xff");
        assert_eq!(show_name(OsStr::new("two\\\\")), "two\\\\\\\\");
        assert_eq!(show_name(&os(b"a\\b\xfe")), "a\\\\b\\xfe");
    }

    #[test]
    fn paths_are_escaped_name_by_name() {
        let path = Path::new(OsStr::from_bytes(b"/root/d\xff/f\xe2\x80\xae.txt"));
        assert_eq!(show_path(path), "/root/d\\xff/f\\u{202E}.txt");
        assert_eq!(show_path(Path::new("src/main.rs")), "src/main.rs");
    }

    #[test]
    fn unescape_decodes_only_the_sequences_the_form_uses() {
        assert_eq!(unescape("bad\\xff.txt"), Some(os(b"bad\xff.txt")));
        assert_eq!(unescape("a\\u{202E}b"), Some(os("a\u{202E}b".as_bytes())));
        assert_eq!(unescape("a\\b.ts"), None);
        assert_eq!(unescape("source\\x.ts"), None);
        assert_eq!(
            unescape("low\\x41"),
            None,
            "a byte below 80 is never escaped"
        );
        assert_eq!(unescape("no\\u{2F}slash"), None);
        assert_eq!(unescape("no\\u{0}nul"), None);
        assert_eq!(unescape("plain"), None);
    }

    #[test]
    fn given_paths_are_quoted_when_a_name_has_an_edge_space() {
        assert_eq!(given("x.ts "), "\"x.ts \"");
        assert_eq!(given("src/ a.ts"), "\"src/ a.ts\"");
        assert_eq!(given("src/a.ts"), "src/a.ts");
        assert_eq!(given("a\u{202E}b"), "a\\u{202E}b");
        assert_eq!(quoted("a.ts"), "\"a.ts\"");
    }

    proptest! {
        #[test]
        fn every_shown_name_reads_back_as_the_same_bytes(
            name in proptest::collection::vec(
                prop_oneof![
                    Just(b'\\'), Just(b'x'), Just(b'u'), Just(b'{'), Just(b'}'), Just(b' '),
                    Just(b'a'), Just(b'f'), Just(b'2'), Just(b'8'), Just(0xffu8), Just(0xe2u8),
                    Just(0x80u8), Just(0xaeu8), Just(b'\n'), any::<u8>(),
                ].prop_filter("no separator or NUL", |b| *b != b'/' && *b != 0),
                1..24,
            )
        ) {
            let shown = show_name(OsStr::from_bytes(&name)).into_owned();
            let back = unescape(&shown).unwrap_or_else(|| OsString::from(shown.clone()));
            prop_assert_eq!(back.as_bytes(), &name[..], "shown as {}", shown);
            prop_assert!(!shown.chars().any(needs_escape), "{}", shown);
        }
    }
}
