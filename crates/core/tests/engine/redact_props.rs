#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_methods)]

//! Properties of credential redaction and of its mapping back: redacting is idempotent and
//! line-local, its reported spans rebuild the redacted text from the raw one, and a text made
//! of the redacted lines of a file (any of them changed, dropped or repeated) is restored to
//! the file's raw values wherever it copies them unchanged.

use fsgate_core::text::redact::{FILTERED, redact, redact_spans};
use fsgate_core::text::restore::restore;
use proptest::prelude::*;

/// Pieces lines are made of: secrets, near-secrets, words, separators, placeholders.
fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("sk-proj-4fG7hJ2kL9mN3bV6cX8zQ1wE5rT0yU".to_string()),
        Just("ghp_1a2B3c4D5e6F7g8H9i0J1k2L3m4N5o6P7q8R".to_string()),
        Just("AKIAIOSFODNN7EXAMPLE".to_string()),
        Just("Bearer ".to_string()),
        Just("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abc".to_string()),
        Just(FILTERED.to_string()),
        "[A-Za-z0-9]{8,40}",
        "[a-z_]{1,12}",
        "[-+/=_:|. \"'\t]{1,3}",
        "[0-9]{1,4}",
    ]
}

fn line() -> impl Strategy<Value = String> {
    prop::collection::vec(piece(), 0..6).prop_map(|p| p.concat())
}

fn text() -> impl Strategy<Value = String> {
    (
        prop::collection::vec(line(), 0..8),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(lines, crlf, final_newline)| {
            let ending = if crlf { "\r\n" } else { "\n" };
            let mut text = lines.join(ending);
            if final_newline && !lines.is_empty() {
                text.push_str(ending);
            }
            text
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn redacting_twice_changes_nothing(text in text()) {
        let once = redact(&text).into_owned();
        prop_assert_eq!(redact(&once).into_owned(), once);
    }

    #[test]
    fn redaction_is_line_local(text in text()) {
        let whole = redact(&text).into_owned();
        let by_line: String = text
            .split_inclusive('\n')
            .map(|l| redact(l).into_owned())
            .collect();
        prop_assert_eq!(whole, by_line);
    }

    #[test]
    fn spans_rebuild_the_redacted_text(text in text()) {
        let r = redact_spans(&text);
        let mut rebuilt = String::new();
        let mut at = 0;
        for mask in &r.masks {
            prop_assert!(!text[mask.raw.clone()].contains('\n'));
            prop_assert_eq!(&r.text[mask.shown.clone()], FILTERED);
            rebuilt.push_str(&text[at..mask.raw.start]);
            rebuilt.push_str(FILTERED);
            at = mask.raw.end;
        }
        rebuilt.push_str(&text[at..]);
        prop_assert_eq!(&rebuilt, &r.text);
        for mask in &r.masks {
            prop_assert_eq!(r.raw_offset(mask.shown.start), Some(mask.raw.start));
            prop_assert_eq!(r.raw_offset(mask.shown.end), Some(mask.raw.end));
            prop_assert_eq!(r.raw_offset(mask.shown.start + 1), None);
        }
    }

    #[test]
    fn a_whole_redacted_copy_restores_to_the_raw_text(text in text()) {
        let view = redact(&text).into_owned();
        prop_assert_eq!(restore(&text, &view).unwrap().into_owned(), text);
    }

    /// One line changed (to a line without a placeholder), dropped, or inserted: every other
    /// line keeps its values (their place decides between equal-looking lines), or the copy is
    /// refused as ambiguous; it is never restored wrong.
    #[test]
    fn a_redacted_copy_with_one_line_edited_keeps_the_other_values(
        text in text(),
        at in any::<prop::sample::Index>(),
        op in 0..3u8,
        replacement in "[a-z =]{0,12}",
    ) {
        let view = redact(&text).into_owned();
        let mut lines: Vec<String> = view.split_inclusive('\n').map(String::from).collect();
        let mut raw: Vec<String> = text.split_inclusive('\n').map(String::from).collect();
        if lines.is_empty() || !lines.iter().all(|l| l.ends_with('\n')) {
            return Ok(());
        }
        let i = at.index(lines.len());
        let ending = if lines[i].ends_with("\r\n") { "\r\n" } else { "\n" };
        let new_line = format!("{replacement}{ending}");
        match op {
            0 => {
                lines[i] = new_line.clone();
                raw[i] = new_line;
            }
            1 => {
                lines.remove(i);
                raw.remove(i);
            }
            _ => {
                lines.insert(i, new_line.clone());
                raw.insert(i, new_line);
            }
        }
        let edited: String = lines.concat();
        match restore(&text, &edited) {
            Ok(done) => prop_assert_eq!(done.into_owned(), raw.concat()),
            // Refused only when equal-looking lines hiding different values cannot be told
            // apart (one of them dropped or rewritten next to the other).
            Err(e) => {
                let old: Vec<&str> = text.split_inclusive('\n').collect();
                let listed: Vec<&str> = e.ambiguous.iter().map(|j| old[j - 1]).collect();
                prop_assert!(listed.len() >= 2, "{:?}", e);
                prop_assert!(listed.iter().all(|l| redact(l) == redact(listed[0])), "{:?}", e);
                prop_assert!(listed.iter().any(|l| *l != listed[0]), "{:?}", e);
            }
        }
    }
}
