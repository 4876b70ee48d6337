#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_methods)]

//! Properties of the unified diff engine: a diff that `similar` makes from A to B applies to A
//! and gives B, with its @@ numbers intact, scrambled or stripped, with blank context lines that
//! lost their leading space, and against the CRLF version of A. When A repeats lines the diff
//! may be ambiguous, but then the engine refuses; it never writes a wrong result.

use fsgate_core::ErrorKind;
use fsgate_core::ops::patch::unified;
use fsgate_core::text::matcher::{Cascade, Level};
use proptest::prelude::*;
use similar::TextDiff;

/// A pair of texts: `old`, and `new` made from it by deleting, replacing and inserting lines.
#[derive(Clone, Debug)]
struct Pair {
    old: String,
    new: String,
}

/// What happens to one line of the old text.
#[derive(Clone, Copy, Debug)]
enum Op {
    Keep,
    Delete,
    Replace,
    InsertAfter,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => Just(Op::Keep),
        1 => Just(Op::Delete),
        1 => Just(Op::Replace),
        1 => Just(Op::InsertAfter),
    ]
}

/// Joins lines with `ending`, dropping the last ending unless `final_newline`.
fn join(lines: &[String], ending: &str, final_newline: bool) -> String {
    let mut text: String = lines.iter().map(|l| format!("{l}{ending}")).collect();
    if !final_newline && !text.is_empty() {
        text.truncate(text.len() - ending.len());
    }
    text
}

/// Builds a pair from old lines and one op per line; inserted and replacing lines come from
/// `fresh`.
fn build(
    old_lines: Vec<String>,
    ops: &[Op],
    mut fresh: impl FnMut(usize) -> String,
    endings: (&str, bool, bool),
) -> Pair {
    let (ending, old_final, new_final) = endings;
    let mut new_lines = Vec::new();
    for (i, line) in old_lines.iter().enumerate() {
        match ops[i % ops.len()] {
            Op::Keep => new_lines.push(line.clone()),
            Op::Delete => {}
            Op::Replace => new_lines.push(fresh(i)),
            Op::InsertAfter => {
                new_lines.push(line.clone());
                new_lines.push(fresh(i));
            }
        }
    }
    if old_lines.is_empty() && ops.len() > 1 {
        new_lines.push(fresh(0));
    }
    Pair {
        old: join(&old_lines, ending, old_final),
        new: join(&new_lines, ending, new_final),
    }
}

/// Pairs whose old text has no repeated line, so every hunk anchors uniquely.
fn distinct_pair() -> impl Strategy<Value = Pair> {
    (
        0usize..40,
        prop::collection::vec(op(), 1..40),
        prop::bool::ANY,
        prop::bool::ANY,
        prop::bool::ANY,
        0u32..1000,
    )
        .prop_map(|(len, ops, crlf, old_final, new_final, salt)| {
            // Line 5 is blank: blank context lines occur but never repeat.
            let old_lines: Vec<String> = (0..len)
                .map(|i| {
                    if i == 5 {
                        String::new()
                    } else {
                        format!("line {i} {salt}")
                    }
                })
                .collect();
            let ending = if crlf { "\r\n" } else { "\n" };
            build(
                old_lines,
                &ops,
                |i| format!("new {i} {salt}"),
                (ending, old_final, new_final),
            )
        })
}

/// Pairs whose old text repeats lines from a small pool, so hunks may be ambiguous.
fn repetitive_pair() -> impl Strategy<Value = Pair> {
    let pool = ["a", "b", "c", "", "    d"];
    (
        prop::collection::vec(0..pool.len(), 0..30),
        prop::collection::vec(op(), 1..30),
        prop::bool::ANY,
        prop::bool::ANY,
    )
        .prop_map(move |(picks, ops, old_final, new_final)| {
            let old_lines: Vec<String> = picks.iter().map(|&p| pool[p].to_string()).collect();
            build(
                old_lines,
                &ops,
                |i| pool[i % pool.len()].to_string(),
                ("\n", old_final, new_final),
            )
        })
}

/// Pairs whose old text is a block, a separator and the same block again, with edits in the
/// second copy only: a hunk whose context does not reach the separator occurs twice.
fn repeated_block_pair() -> impl Strategy<Value = Pair> {
    (2usize..16, prop::collection::vec(op(), 1..16)).prop_map(|(len, ops)| {
        let block: Vec<String> = (0..len).map(|i| format!("block {i}")).collect();
        let edited = build(
            block.clone(),
            &ops,
            |i| format!("new {i}"),
            ("\n", true, true),
        );
        let head = format!("{}sep\n", join(&block, "\n", true));
        Pair {
            old: format!("{head}{}", join(&block, "\n", true)),
            new: format!("{head}{}", edited.new),
        }
    })
}

fn similar_diff(old: &str, new: &str) -> String {
    TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header("a/file", "b/file")
        .to_string()
}

fn apply(original: &str, diff: &str) -> Result<String, fsgate_core::ToolError> {
    let parsed = unified::parse(diff)?;
    let applied = unified::apply(original.as_bytes(), &parsed)?;
    assert_eq!(applied.hunks_applied, parsed.hunks.len());
    Ok(String::from_utf8(applied.bytes).unwrap())
}

/// Rewrites every @@ line with `header(index)`.
fn rewrite_headers(diff: &str, header: impl Fn(usize) -> String) -> String {
    let mut index = 0;
    diff.split_inclusive('\n')
        .map(|line| {
            if line.starts_with("@@") {
                index += 1;
                format!("{}\n", header(index))
            } else {
                line.to_string()
            }
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn a_similar_diff_applies(pair in distinct_pair()) {
        prop_assume!(pair.old != pair.new);
        let diff = similar_diff(&pair.old, &pair.new);
        prop_assert_eq!(apply(&pair.old, &diff).unwrap(), pair.new);
    }

    #[test]
    fn a_similar_diff_applies_with_scrambled_or_stripped_numbers(
        pair in distinct_pair(),
        style in 0usize..3,
        seed in 0usize..10_000,
    ) {
        prop_assume!(pair.old != pair.new);
        let diff = rewrite_headers(&similar_diff(&pair.old, &pair.new), |i| match style {
            0 => "@@".to_string(),
            1 => format!("@@ -{} +{} @@", (seed * i) % 97, (seed + i) % 89),
            _ => format!("@@ -{},{} +{},{} @@ fn x", seed % 13, i, i * 7, seed % 5),
        });
        prop_assert_eq!(apply(&pair.old, &diff).unwrap(), pair.new);
    }

    #[test]
    fn blank_context_lines_may_lose_their_leading_space(pair in distinct_pair()) {
        prop_assume!(pair.old != pair.new);
        let diff: String = similar_diff(&pair.old, &pair.new)
            .split_inclusive('\n')
            .map(|line| match line {
                " \n" => "\n",
                " \r\n" => "\r\n",
                other => other,
            })
            .collect();
        prop_assert_eq!(apply(&pair.old, &diff).unwrap(), pair.new);
    }

    #[test]
    fn an_lf_diff_applies_to_the_crlf_file_and_keeps_crlf(pair in distinct_pair()) {
        let lf = |s: &str| s.replace("\r\n", "\n");
        let crlf = |s: &str| lf(s).replace('\n', "\r\n");
        // A file without a line ending does not say which endings it uses.
        prop_assume!(pair.old != pair.new && pair.old.contains('\n'));
        let diff = similar_diff(&lf(&pair.old), &lf(&pair.new));
        prop_assert_eq!(apply(&crlf(&pair.old), &diff).unwrap(), crlf(&pair.new));
    }

    #[test]
    fn an_ambiguous_diff_is_refused_never_misapplied(pair in repetitive_pair(), strip in prop::bool::ANY) {
        prop_assume!(pair.old != pair.new);
        let mut diff = similar_diff(&pair.old, &pair.new);
        if strip {
            diff = rewrite_headers(&diff, |_| "@@".to_string());
        }
        match apply(&pair.old, &diff) {
            Ok(result) => prop_assert_eq!(result, pair.new),
            Err(err) => prop_assert_eq!(err.kind, ErrorKind::NotUnique, "{}", err.message),
        }
    }

    #[test]
    fn a_hunk_in_a_repeated_block_is_refused_or_placed_right(pair in repeated_block_pair()) {
        prop_assume!(pair.old != pair.new);
        match apply(&pair.old, &similar_diff(&pair.old, &pair.new)) {
            Ok(result) => prop_assert_eq!(result, pair.new),
            Err(err) => prop_assert_eq!(err.kind, ErrorKind::NotUnique, "{}", err.message),
        }
    }

    #[test]
    fn arbitrary_input_never_panics(
        file in "[ab\\r\\n ]{0,40}",
        diff in prop::collection::vec(
            prop::sample::select(vec![
                "@@\n", "@@ -1,2 +1 @@\n", " a\n", "-a\n", "+b\n", "\n", "\r\n", "-b\r\n",
                "\\ No newline at end of file\n", "--- a/x\n", "+++ b/x\n", " b", "+", "-",
                "diff --git a/x b/x\n", "junk\n",
            ]),
            0..14,
        ),
    ) {
        let diff: String = diff.concat();
        if let Ok(parsed) = unified::parse(&diff) {
            let _ = unified::apply(file.as_bytes(), &parsed);
        }
    }
}

#[test]
fn the_full_cascade_reindents_a_unified_hunk_and_keeps_crlf() {
    let parsed = unified::parse("@@ -1,2 +1,3 @@\n if a:\n-  b()\n+  c()\n+  d()\n").unwrap();
    let file = b"x\r\n    if a:\r\n        b()\r\n";
    assert!(unified::apply(file, &parsed).is_err());
    let applied = unified::apply_in(file, &parsed, Cascade::Full).unwrap();
    assert_eq!(
        applied.bytes,
        b"x\r\n    if a:\r\n        c()\r\n        d()\r\n"
    );
    assert_eq!(applied.placements[0].level, Level::Indentation);
    assert_eq!(applied.placements[0].line, 2);
}
