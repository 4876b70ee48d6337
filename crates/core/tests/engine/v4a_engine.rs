#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_methods)]

//! The V4A engine on its own: whole Codex envelopes (several files; add, delete, update, move)
//! parse for the profiles that take them, and properties of applying updates.

use fsgate_core::ErrorKind;
use fsgate_core::ops::patch::v4a::{self, LineKind, MatchLevel, Section};
use fsgate_core::text::matcher::Cascade;
use proptest::prelude::*;

#[test]
fn a_whole_codex_envelope_parses_every_section_in_order() {
    let patch = "*** Begin Patch\n\
                 *** Add File: docs/notes.md\n\
                 +# Notes\n\
                 +\n\
                 +text\n\
                 *** Delete File: old.txt\n\
                 *** Update File: src/app.py\n\
                 *** Move to: src/main.py\n\
                 @@ def run():\n\
                 -    pass\n\
                 +    return 0\n\
                 *** Update File: README.md\n\
                 @@\n\
                 +tail\n\
                 *** End of File\n\
                 *** End Patch\n";
    let parsed = v4a::parse(patch).unwrap();
    assert!(parsed.enveloped);
    let kinds: Vec<String> = parsed
        .sections
        .iter()
        .map(|s| match s {
            Section::Add {
                path,
                contents,
                line,
            } => format!("add {path} {contents:?} @{line}"),
            Section::Delete { path, line } => format!("delete {path} @{line}"),
            Section::Update {
                path,
                move_to,
                hunks,
                line,
            } => format!(
                "update {} -> {:?}, {} hunk(s), eof {} @{line}",
                path.as_deref().unwrap_or("-"),
                move_to,
                hunks.len(),
                hunks[0].end_of_file
            ),
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "add docs/notes.md \"# Notes\\n\\ntext\\n\" @2",
            "delete old.txt @6",
            "update src/app.py -> Some(\"src/main.py\"), 1 hunk(s), eof false @7",
            "update README.md -> None, 1 hunk(s), eof true @12",
        ]
    );
}

#[test]
fn a_heredoc_wrapper_and_crlf_patch_text_are_accepted() {
    let parsed = v4a::parse(
        "<<'EOF'\r\n*** Begin Patch\r\n*** Update File: a\r\n@@\r\n-x\r\n+y\r\n*** End Patch\r\nEOF\r\n",
    )
    .unwrap();
    let Section::Update { hunks, .. } = &parsed.sections[0] else {
        panic!()
    };
    assert_eq!(hunks[0].lines[0].text, "x");
    assert_eq!(hunks[0].lines[1].kind, LineKind::Added);
}

#[test]
fn placements_report_lines_and_levels() {
    let parsed = v4a::parse("@@\n-b\n+B\n@@\n-d  \n+D\n@@\n+end\n*** End of File\n").unwrap();
    let Section::Update { hunks, .. } = &parsed.sections[0] else {
        panic!()
    };
    let applied = v4a::apply(b"a\nb\nc\nd\n", hunks).unwrap();
    assert_eq!(applied.bytes, b"a\nB\nc\nD\nend\n");
    let got: Vec<(usize, MatchLevel)> = applied
        .placements
        .iter()
        .map(|p| (p.line, p.level))
        .collect();
    assert_eq!(
        got,
        [
            (2, MatchLevel::Exact),
            (4, MatchLevel::TrailingWhitespace),
            (5, MatchLevel::Appended)
        ]
    );
}

#[test]
fn overlapping_hunks_are_refused() {
    let parsed = v4a::parse("@@\n a\n-b\n+B\n@@\n-b\n+C\n").unwrap();
    let Section::Update { hunks, .. } = &parsed.sections[0] else {
        panic!()
    };
    let err = v4a::apply(b"a\nb\nc\n", hunks).unwrap_err();
    assert_eq!(err.kind, ErrorKind::InvalidArgument, "{}", err.message);
    assert!(err.message.contains("overlaps"), "{}", err.message);
}

#[test]
fn a_missing_hunk_names_the_closest_region() {
    let parsed = v4a::parse("@@\n one\n-TWO\n three\n").unwrap();
    let Section::Update { hunks, .. } = &parsed.sections[0] else {
        panic!()
    };
    let err = v4a::apply(b"zero\none\ntwo\nthree\n", hunks).unwrap_err();
    assert_eq!(err.kind, ErrorKind::NoMatch);
    assert!(
        err.message
            .contains("closest region of the file is lines 2-4"),
        "{}",
        err.message
    );
    assert!(err.message.contains("* 3 | two"), "{}", err.message);
}

/// A file of distinct lines, each with a random ending, and edits of disjoint line ranges.
fn file_and_edits() -> impl Strategy<Value = (Vec<bool>, Vec<(usize, usize, usize)>)> {
    (3usize..40).prop_flat_map(|n| {
        (
            proptest::collection::vec(any::<bool>(), n),
            proptest::collection::vec((0..n, 0usize..3, 0usize..3), 1..5),
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Hunks built from disjoint edits with one line of context apply to exactly the edited
    /// file, and every untouched line keeps its bytes (its own LF or CRLF ending included).
    #[test]
    fn hunks_with_context_apply_exactly((crlf, raw_edits) in file_and_edits()) {
        let n = crlf.len();
        let line = |i: usize| format!("line {i}");
        let ending = |i: usize| if crlf[i] { "\r\n" } else { "\n" };
        let original: String = (0..n).map(|i| format!("{}{}", line(i), ending(i))).collect();
        // Disjoint edits: (start, removed count, added count), kept at least 2 lines apart.
        let mut edits: Vec<(usize, usize, usize)> = Vec::new();
        for (start, removed, added) in raw_edits {
            let end = (start + removed).min(n);
            if removed + added == 0 {
                continue;
            }
            if edits.iter().all(|(s, r, _)| end + 2 <= *s || s + r + 2 <= start) {
                edits.push((start, end - start, added));
            }
        }
        prop_assume!(!edits.is_empty());
        edits.sort();
        let mut patch = String::new();
        let mut expected = String::new();
        let mut next = 0;
        for (k, &(start, removed, added)) in edits.iter().enumerate() {
            for i in next..start {
                expected.push_str(&format!("{}{}", line(i), ending(i)));
            }
            patch.push_str("@@\n");
            let before = start.checked_sub(1);
            if let Some(b) = before {
                patch.push_str(&format!(" {}\n", line(b)));
            }
            for i in start..start + removed {
                patch.push_str(&format!("-{}\n", line(i)));
            }
            for a in 0..added {
                patch.push_str(&format!("+new {k}.{a}\n"));
            }
            let after = start + removed;
            if after < n {
                patch.push_str(&format!(" {}\n", line(after)));
            } else if before.is_none() && removed == 0 {
                patch.push_str("*** End of File\n");
            }
            // Added lines take the ending of the removed line at their place, else of the
            // line before, else of the line after.
            for a in 0..added {
                let source = if removed > 0 {
                    start + a.min(removed - 1)
                } else if let Some(b) = before {
                    b
                } else {
                    after.min(n - 1)
                };
                expected.push_str(&format!("new {k}.{a}{}", ending(source)));
            }
            next = start + removed;
        }
        for i in next..n {
            expected.push_str(&format!("{}{}", line(i), ending(i)));
        }
        let parsed = v4a::parse(&patch).unwrap();
        let Section::Update { hunks, .. } = &parsed.sections[0] else { panic!() };
        let applied = v4a::apply(original.as_bytes(), hunks).unwrap();
        prop_assert_eq!(String::from_utf8(applied.bytes).unwrap(), expected, "patch:\n{}", patch);
    }

    /// Parsing never panics, whatever the text.
    #[test]
    fn parse_never_panics(text in "(\\*\\*\\* [A-Za-z ]{0,12}:? ?[a-z]{0,3}|@@[ a-z]{0,4}|[ +-][a-z]{0,3}|)(\n(\\*\\*\\* [A-Za-z ]{0,12}:? ?[a-z]{0,3}|@@[ a-z]{0,4}|[ +-][a-z]{0,3}|)){0,12}") {
        let _ = v4a::parse(&text);
    }
}

#[test]
fn the_full_cascade_places_what_the_strict_one_refuses_and_reports_each_level() {
    let parsed = v4a::parse(
        "@@\n if a:\n-    b()\n+    c()\n@@\n-say \"hi\"\n+say \"bye\"\n*** End of File\n",
    )
    .unwrap();
    let Section::Update { hunks, .. } = &parsed.sections[0] else {
        panic!()
    };
    let file = "def f():\n\tif a:\n\t\tb()\nsay “hi”\n".as_bytes();
    // The profiles whose contracts promise only trailing whitespace keep refusing.
    assert_eq!(
        v4a::apply(file, hunks).unwrap_err().kind,
        ErrorKind::NoMatch
    );
    let applied = v4a::apply_in(file, hunks, Cascade::Full).unwrap();
    assert_eq!(
        String::from_utf8(applied.bytes).unwrap(),
        "def f():\n\tif a:\n\t\tc()\nsay \"bye\"\n"
    );
    let got: Vec<(usize, MatchLevel)> = applied
        .placements
        .iter()
        .map(|p| (p.line, p.level))
        .collect();
    assert_eq!(
        got,
        [(2, MatchLevel::Indentation), (4, MatchLevel::Punctuation)]
    );
}

#[test]
fn a_hunk_found_ignoring_indentation_whose_new_line_cannot_be_reindented_is_refused() {
    // The new line puts a space before a tab: no indentation level can be read from it.
    let parsed = v4a::parse("@@\n if a:\n-    b()\n+ \tc()\n").unwrap();
    let Section::Update { hunks, .. } = &parsed.sections[0] else {
        panic!()
    };
    let err = v4a::apply_in(b"\tif a:\n\t\tb()\n", hunks, Cascade::Full).unwrap_err();
    assert_eq!(err.kind, ErrorKind::InvalidArgument, "{}", err.message);
    assert!(
        err.message.contains(
            "matched the file's lines 1-2 only ignoring indentation, and its new-side line 2 \
             cannot be re-indented"
        ),
        "{}",
        err.message
    );
}
