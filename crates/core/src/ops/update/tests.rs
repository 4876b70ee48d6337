//! The update-file engine's unit tests: line ops, replace ops, echoes, and properties.

use super::*;
use proptest::prelude::*;
use serde_json::json;

fn ops(v: serde_json::Value) -> Vec<Op> {
    serde_json::from_value(v).unwrap()
}

fn run(input: &str, v: serde_json::Value) -> Applied {
    apply(input.as_bytes(), &ops(v)).unwrap()
}

fn out(input: &str, v: serde_json::Value) -> String {
    String::from_utf8(run(input, v).bytes).unwrap()
}

/// The refusal's text, for the refusals the engine words.
fn fail(input: &str, v: serde_json::Value) -> String {
    match apply(input.as_bytes(), &ops(v)).unwrap_err() {
        UpdateError::Invalid(e) => {
            assert_eq!(e.kind, crate::error::ErrorKind::InvalidArgument);
            e.message
        }
        typed => panic!("a typed refusal, for the surface to word: {typed:?}"),
    }
}

/// The typed refusal.
fn refused(input: &str, v: serde_json::Value) -> UpdateError {
    apply(input.as_bytes(), &ops(v)).unwrap_err()
}

fn echo(op_index: u32, from_line: u64, lines: &[&str]) -> OpEcho {
    OpEcho {
        op_index,
        from_line,
        lines: lines.iter().map(ToString::to_string).collect(),
        elided: None,
        total_replacements: None,
    }
}

fn site(op: u32, from_line: u64, lines: &[&str], elided: Option<u64>, total: u64) -> OpEcho {
    OpEcho {
        elided,
        total_replacements: Some(total),
        ..echo(op, from_line, lines)
    }
}

fn numbered(n: usize) -> String {
    (1..=n).map(|i| format!("{i}\n")).collect()
}

// -----------------------------------------------------------------------------------------
// Lines and line numbers

#[test]
fn no_ops_return_the_bytes_unchanged() {
    let a = apply(b"a\nb", &[]).unwrap();
    assert_eq!(
        a,
        Applied {
            bytes: b"a\nb".to_vec(),
            applied: 0,
            echoes: vec![],
            echoes_truncated: false,
            new_line_count: 2,
        }
    );
}

#[test]
fn a_trailing_newline_makes_no_phantom_line() {
    let a = run(
        "a\nb\n",
        json!([{"op": "insert", "at_line": 3, "content": "c"}]),
    );
    assert_eq!(a.bytes, b"a\nb\nc\n");
    assert_eq!(a.new_line_count, 3);
    assert_eq!(a.applied, 1);
    assert_eq!(a.echoes, vec![echo(0, 1, &["a", "b", "c"])]);
    assert_eq!(
        refused(
            "a\nb\n",
            json!([{"op": "insert", "at_line": 4, "content": "c"}]),
        ),
        UpdateError::InsertPastEnd {
            index: 0,
            at_line: 4,
            total: 2
        }
    );
}

#[test]
fn insert_goes_before_at_line_and_lines_plus_one_appends() {
    let f = numbered(5);
    let a = run(&f, json!([{"op": "insert", "at_line": 1, "content": "a"}]));
    assert_eq!(a.bytes, b"a\n1\n2\n3\n4\n5\n");
    assert_eq!(a.echoes, vec![echo(0, 1, &["a", "1", "2"])]);
    let a = run(
        &f,
        json!([{"op": "insert", "at_line": 3, "content": "a\nb"}]),
    );
    assert_eq!(a.bytes, b"1\n2\na\nb\n3\n4\n5\n");
    assert_eq!(a.echoes, vec![echo(0, 1, &["1", "2", "a", "b", "3", "4"])]);
    let a = run(&f, json!([{"op": "insert", "at_line": 6, "content": "z"}]));
    assert_eq!(a.bytes, b"1\n2\n3\n4\n5\nz\n");
    assert_eq!(a.echoes, vec![echo(0, 4, &["4", "5", "z"])]);
    assert_eq!(a.new_line_count, 6);
}

#[test]
fn remove_echoes_two_lines_each_side_of_the_gap() {
    let f = numbered(7);
    let a = run(&f, json!([{"op": "remove", "from_line": 3, "to_line": 4}]));
    assert_eq!(a.bytes, b"1\n2\n5\n6\n7\n");
    assert_eq!(a.echoes, vec![echo(0, 1, &["1", "2", "5", "6"])]);
    assert_eq!(a.new_line_count, 5);
    let a = run(&f, json!([{"op": "remove", "from_line": 1, "to_line": 1}]));
    assert_eq!(a.bytes, b"2\n3\n4\n5\n6\n7\n");
    assert_eq!(a.echoes, vec![echo(0, 1, &["2", "3"])]);
    let a = run(&f, json!([{"op": "remove", "from_line": 7, "to_line": 7}]));
    assert_eq!(a.bytes, b"1\n2\n3\n4\n5\n6\n");
    assert_eq!(a.echoes, vec![echo(0, 5, &["5", "6"])]);
}

#[test]
fn update_lines_replaces_the_range_with_the_content_lines() {
    let f = numbered(5);
    let a = run(
        &f,
        json!([{"op": "update_lines", "from_line": 2, "to_line": 4, "content": "b"}]),
    );
    assert_eq!(a.bytes, b"1\nb\n5\n");
    assert_eq!(a.echoes, vec![echo(0, 1, &["1", "b", "5"])]);
    let a = run(
        &f,
        json!([{"op": "update_lines", "from_line": 2, "to_line": 2, "content": "x\ny\nz"}]),
    );
    assert_eq!(a.bytes, b"1\nx\ny\nz\n3\n4\n5\n");
    assert_eq!(a.echoes, vec![echo(0, 1, &["1", "x", "y", "z", "3", "4"])]);
    assert_eq!(a.new_line_count, 7);
}

#[test]
fn line_ops_refer_to_the_original_numbers_whatever_their_order() {
    let f = "# notes\n- one\n- two\n";
    let batch = json!([
        {"op": "insert", "at_line": 2, "content": "draft"},
        {"op": "update_lines", "from_line": 3, "to_line": 3, "content": "- ONE"}
    ]);
    let a = run(f, batch);
    assert_eq!(a.bytes, b"# notes\ndraft\n- one\n- ONE\n");
    assert_eq!(
        a.echoes,
        vec![
            echo(0, 1, &["# notes", "draft", "- one", "- ONE"]),
            echo(1, 2, &["draft", "- one", "- ONE"]),
        ]
    );
    let reversed = json!([
        {"op": "update_lines", "from_line": 3, "to_line": 3, "content": "- ONE"},
        {"op": "insert", "at_line": 2, "content": "draft"}
    ]);
    assert_eq!(out(f, reversed), "# notes\ndraft\n- one\n- ONE\n");

    let f: String = (1..=12).map(|i| format!("l{i}\n")).collect();
    let a = run(
        &f,
        json!([
            {"op": "insert", "at_line": 1, "content": "h"},
            {"op": "remove", "from_line": 5, "to_line": 8},
            {"op": "update_lines", "from_line": 10, "to_line": 10, "content": "X"},
            {"op": "insert", "at_line": 13, "content": "end"}
        ]),
    );
    assert_eq!(
        std::str::from_utf8(&a.bytes).unwrap(),
        "h\nl1\nl2\nl3\nl4\nl9\nX\nl11\nl12\nend\n"
    );
    assert_eq!(a.applied, 4);
    assert_eq!(a.new_line_count, 10);
    assert_eq!(
        a.echoes,
        vec![
            echo(0, 1, &["h", "l1", "l2"]),
            echo(1, 4, &["l3", "l4", "l9", "X"]),
            echo(2, 5, &["l4", "l9", "X", "l11", "l12"]),
            echo(3, 8, &["l11", "l12", "end"]),
        ]
    );
}

#[test]
fn line_numbers_are_checked_against_the_file() {
    let f = "a\nb\nc\n";
    assert_eq!(
        fail(f, json!([{"op": "insert", "at_line": 0, "content": "x"}])),
        "ops[0] (insert): at_line 0 is not a line (line numbers are 1-based); pass at_line: \
         1 to insert before the first line, or at_line: 4 to append after the file's 3 lines"
    );
    assert_eq!(
        fail(
            f,
            json!([
                {"op": "insert", "at_line": 1, "content": "x"},
                {"op": "remove", "from_line": 0, "to_line": 1}
            ])
        ),
        "ops[1] (remove): from_line 0 is not a line (line numbers are 1-based); the file has \
         3 lines, so use from_line 1 to 3"
    );
    assert_eq!(
        fail(
            f,
            json!([{"op": "update_lines", "from_line": 3, "to_line": 2, "content": "x"}])
        ),
        "ops[0] (update_lines): to_line 2 is before from_line 3; the range is inclusive, so \
         pass to_line >= from_line (to_line: 3 for that one line); the file has 3 lines"
    );
    assert_eq!(
        fail(f, json!([{"op": "remove", "from_line": 2, "to_line": 4}])),
        "ops[0] (remove): to_line 4 is past the end of the file, which has 3 lines; pass \
         to_line: 3 to go to the last line"
    );
    assert_eq!(
        refused(f, json!([{"op": "remove", "from_line": 5, "to_line": 6}])),
        UpdateError::FromPastEnd {
            index: 0,
            op: "remove",
            from_line: 5,
            total: 3
        }
    );
    assert_eq!(
        fail("", json!([{"op": "remove", "from_line": 1, "to_line": 1}])),
        "ops[0] (remove): the file is empty (0 lines), so there are no lines 1-1 to remove; \
         add content with {\"op\": \"insert\", \"at_line\": 1, \"content\": …}"
    );
    assert_eq!(
        refused("x", json!([{"op": "insert", "at_line": 3, "content": "x"}])),
        UpdateError::InsertPastEnd {
            index: 0,
            at_line: 3,
            total: 1
        }
    );
}

#[test]
fn huge_line_numbers_are_refused_without_panicking() {
    let max = u64::MAX;
    assert_eq!(
        refused(
            "a\n",
            json!([{"op": "insert", "at_line": max, "content": "x"}]),
        ),
        UpdateError::InsertPastEnd {
            index: 0,
            at_line: max,
            total: 1
        }
    );
    let msg = fail(
        "a\n",
        json!([{"op": "remove", "from_line": 1, "to_line": max}]),
    );
    assert!(
        msg.contains(&format!("to_line {max} is past the end")),
        "{msg}"
    );
    assert_eq!(
        refused(
            "a\n",
            json!([{"op": "update_lines", "from_line": max, "to_line": max, "content": "x"}]),
        ),
        UpdateError::FromPastEnd {
            index: 0,
            op: "update_lines",
            from_line: max,
            total: 1
        }
    );
}

// -----------------------------------------------------------------------------------------
// Overlaps

#[test]
fn ranges_sharing_a_line_overlap() {
    let f = numbered(5);
    assert_eq!(
        fail(
            &f,
            json!([
                {"op": "remove", "from_line": 1, "to_line": 3},
                {"op": "update_lines", "from_line": 3, "to_line": 4, "content": "x"}
            ])
        ),
        "ops[0] (remove lines 1-3) and ops[1] (update_lines of lines 3-4) overlap: both \
         touch line 3; merge them into one update_lines of lines 1-4 (or one remove), or \
         send the second in a later call. Line ops in one call must not overlap because each \
         refers to the file's original line numbers"
    );
    // Named in op order whatever the line order; a range inside another overlaps too.
    let msg = fail(
        &f,
        json!([
            {"op": "remove", "from_line": 3, "to_line": 3},
            {"op": "remove", "from_line": 1, "to_line": 5}
        ]),
    );
    assert!(
        msg.starts_with(
            "ops[0] (remove line 3) and ops[1] (remove lines 1-5) overlap: both touch line 3;"
        ),
        "{msg}"
    );
    // Adjacent ranges do not overlap.
    let ok = json!([
        {"op": "remove", "from_line": 1, "to_line": 2},
        {"op": "remove", "from_line": 3, "to_line": 4}
    ]);
    assert_eq!(out(&f, ok), "5\n");
}

#[test]
fn two_inserts_at_one_line_overlap() {
    let msg = fail(
        "a\nb\n",
        json!([
            {"op": "insert", "at_line": 2, "content": "x"},
            {"op": "insert", "at_line": 3, "content": "y"},
            {"op": "insert", "at_line": 2, "content": "z"}
        ]),
    );
    assert_eq!(
        msg,
        "ops[0] (insert at line 2) and ops[2] (insert at line 2) overlap: both insert at \
         line 2, so their order would be a guess; put both texts in one insert, in the order \
         you want them. Line ops in one call must not overlap because each refers to the \
         file's original line numbers"
    );
}

#[test]
fn an_insert_strictly_inside_a_range_overlaps() {
    let f = numbered(5);
    for at in [3, 4] {
        let msg = fail(
            &f,
            json!([
                {"op": "remove", "from_line": 2, "to_line": 4},
                {"op": "insert", "at_line": at, "content": "x"}
            ]),
        );
        assert_eq!(
            msg,
            format!(
                "ops[0] (remove lines 2-4) and ops[1] (insert at line {at}) overlap: the \
                 insert falls inside lines 2-4 that ops[0] removes; insert at line 2 (before \
                 the range) or 5 (after it), or add the text with an update_lines of those \
                 lines. Line ops in one call must not overlap because each refers to the \
                 file's original line numbers"
            )
        );
    }
    let msg = fail(
        &f,
        json!([
            {"op": "insert", "at_line": 3, "content": "x"},
            {"op": "update_lines", "from_line": 2, "to_line": 3, "content": "u"}
        ]),
    );
    assert!(
        msg.starts_with(
            "ops[0] (insert at line 3) and ops[1] (update_lines of lines 2-3) overlap: the \
             insert falls inside lines 2-3 that ops[1] replaces;"
        ),
        "{msg}"
    );
}

#[test]
fn inserts_at_a_range_boundary_go_before_and_after_it() {
    let f = numbered(5);
    let a = run(
        &f,
        json!([
            {"op": "remove", "from_line": 2, "to_line": 4},
            {"op": "insert", "at_line": 2, "content": "a"},
            {"op": "insert", "at_line": 5, "content": "b"}
        ]),
    );
    assert_eq!(a.bytes, b"1\na\nb\n5\n");
    assert_eq!(
        a.echoes,
        vec![
            echo(0, 1, &["1", "a", "b", "5"]),
            echo(1, 1, &["1", "a", "b", "5"]),
            echo(2, 1, &["1", "a", "b", "5"]),
        ]
    );
    let a = run(
        &f,
        json!([
            {"op": "insert", "at_line": 2, "content": "a"},
            {"op": "update_lines", "from_line": 2, "to_line": 4, "content": "U"}
        ]),
    );
    assert_eq!(a.bytes, b"1\na\nU\n5\n");
    assert_eq!(
        a.echoes,
        vec![
            echo(0, 1, &["1", "a", "U", "5"]),
            echo(1, 1, &["1", "a", "U", "5"])
        ]
    );
}

// -----------------------------------------------------------------------------------------
// Content, line endings, final newline

#[test]
fn content_becomes_whole_lines() {
    let f = "1\n2\n";
    let ins = |content: &str| {
        out(
            f,
            json!([{"op": "insert", "at_line": 2, "content": content}]),
        )
    };
    assert_eq!(ins("x"), "1\nx\n2\n");
    assert_eq!(ins("x\n"), "1\nx\n2\n");
    assert_eq!(ins("x\n\n"), "1\nx\n\n2\n");
    assert_eq!(ins("\n"), "1\n\n2\n");
    assert_eq!(ins("a\r\nb\r\n"), "1\na\nb\n2\n");
    assert_eq!(ins("a\rb"), "1\na\rb\n2\n");
}

#[test]
fn empty_content_is_refused_with_the_two_intended_calls() {
    assert_eq!(
        fail(
            "1\n",
            json!([{"op": "insert", "at_line": 1, "content": ""}])
        ),
        "ops[0] (insert): content is empty, so the insert would add no line; pass the text \
         to insert (content \"\\n\" inserts one blank line)"
    );
    assert_eq!(
        fail(
            "1\n2\n",
            json!([{"op": "update_lines", "from_line": 1, "to_line": 2, "content": ""}])
        ),
        "ops[0] (update_lines): content is empty, which is ambiguous; to delete lines 1-2 \
         pass {\"op\": \"remove\", \"from_line\": 1, \"to_line\": 2}, to blank them pass \
         content \"\\n\" (one blank line)"
    );
}

#[test]
fn new_lines_take_the_files_line_ending() {
    let f = "1\r\n2\r\n3\r\n";
    let a = run(
        f,
        json!([
            {"op": "update_lines", "from_line": 2, "to_line": 2, "content": "x\ny"},
            {"op": "insert", "at_line": 4, "content": "z\r\n"}
        ]),
    );
    assert_eq!(a.bytes, b"1\r\nx\r\ny\r\n3\r\nz\r\n");
    assert_eq!(
        a.echoes,
        vec![
            echo(0, 1, &["1", "x", "y", "3", "z"]),
            echo(1, 3, &["y", "3", "z"])
        ]
    );
    // Mixed endings: the first line's decides, untouched lines keep theirs.
    assert_eq!(
        out(
            "1\r\n2\n3\n",
            json!([{"op": "insert", "at_line": 3, "content": "x"}])
        ),
        "1\r\n2\nx\r\n3\n"
    );
}

#[test]
fn a_file_without_a_final_newline_keeps_that_property() {
    let f = "a\nb";
    let one = |op: serde_json::Value| out(f, json!([op]));
    assert_eq!(
        one(json!({"op": "update_lines", "from_line": 1, "to_line": 1, "content": "x"})),
        "x\nb"
    );
    assert_eq!(
        one(json!({"op": "insert", "at_line": 3, "content": "c"})),
        "a\nb\nc"
    );
    assert_eq!(
        one(json!({"op": "insert", "at_line": 3, "content": "c\n"})),
        "a\nb\nc"
    );
    assert_eq!(
        one(json!({"op": "insert", "at_line": 2, "content": "c"})),
        "a\nc\nb"
    );
    assert_eq!(
        one(json!({"op": "remove", "from_line": 2, "to_line": 2})),
        "a"
    );
    assert_eq!(
        one(json!({"op": "update_lines", "from_line": 2, "to_line": 2, "content": "y\n"})),
        "a\ny"
    );
    // An empty last line exists only when terminated.
    let a = run(f, json!([{"op": "insert", "at_line": 3, "content": "\n"}]));
    assert_eq!(a.bytes, b"a\nb\n\n");
    assert_eq!(a.new_line_count, 3);
    assert_eq!(
        out(
            "a\r\nb",
            json!([{"op": "insert", "at_line": 3, "content": "c"}])
        ),
        "a\r\nb\r\nc"
    );
    assert_eq!(
        out(
            "a\nb",
            json!([{"op": "replace", "pattern": "a", "replacement": "A"}])
        ),
        "A\nb"
    );
}

#[test]
fn an_empty_file_gains_a_final_newline() {
    let a = run("", json!([{"op": "insert", "at_line": 1, "content": "x"}]));
    assert_eq!(a.bytes, b"x\n");
    assert_eq!(a.new_line_count, 1);
    assert_eq!(a.echoes, vec![echo(0, 1, &["x"])]);
    assert_eq!(
        refused("", json!([{"op": "insert", "at_line": 2, "content": "x"}])),
        UpdateError::InsertPastEnd {
            index: 0,
            at_line: 2,
            total: 0
        }
    );
}

#[test]
fn removing_everything_echoes_no_line() {
    let a = run(
        "a\nb\n",
        json!([{"op": "remove", "from_line": 1, "to_line": 2}]),
    );
    assert_eq!(a.bytes, b"");
    assert_eq!(a.new_line_count, 0);
    assert_eq!(a.echoes, vec![echo(0, 0, &[])]);
}

#[test]
fn invalid_utf8_is_kept_and_echoed_lossily() {
    let a = apply(
        b"a\xff\nb\n",
        &ops(json!([{"op": "insert", "at_line": 3, "content": "c"}])),
    )
    .unwrap();
    assert_eq!(a.bytes, b"a\xff\nb\nc\n");
    assert_eq!(a.echoes, vec![echo(0, 1, &["a\u{FFFD}", "b", "c"])]);
    let a = apply(
        b"\xfe\xff\n",
        &ops(json!([{"op": "replace", "pattern": "(?-u)\\xFF", "replacement": "!"}])),
    )
    .unwrap();
    assert_eq!(a.bytes, b"\xfe!\n");
}

// -----------------------------------------------------------------------------------------
// Replace

fn rep(input: &str, pattern: &str, replacement: &str) -> String {
    out(
        input,
        json!([{"op": "replace", "pattern": pattern, "replacement": replacement}]),
    )
}

fn rep_err(pattern: &str, replacement: &str) -> String {
    fail(
        "key=value\n",
        json!([{"op": "replace", "pattern": pattern, "replacement": replacement}]),
    )
}

#[test]
fn templates_expand_groups_by_index_and_name() {
    let f = "key=value\n";
    assert_eq!(rep(f, r"(\w+)=(\w+)", "$2=$1"), "value=key\n");
    assert_eq!(rep(f, r"(\w+)=(\w+)", "${2}_${1}x"), "value_keyx\n");
    assert_eq!(rep(f, r"\w+", "[$0]"), "[key]=[value]\n");
    assert_eq!(rep(f, r"(?P<k>\w+)=(?<v>\w+)", "$v:${k}"), "value:key\n");
    assert_eq!(rep(f, r"(?<a>k)(?<ab>e)", "<$ab>"), "<e>y=value\n");
    assert_eq!(rep(f, r"(?<a>k)(?<ab>e)", "<${a}b>"), "<kb>y=value\n");
    assert_eq!(rep(f, "(key)", "<$01>"), "<key>=value\n");
    // A defined group that did not take part expands to nothing.
    assert_eq!(rep("ab\n", "(a)|(b)", "[$1$2]"), "[a][b]\n");
}

#[test]
fn dollar_dollar_is_a_literal_dollar() {
    assert_eq!(
        rep("greet NAME\n", "NAME", "`Hello, $${name}!`"),
        "greet `Hello, ${name}!`\n"
    );
    assert_eq!(rep("cost\n", "cost", "$$5 $$$$"), "$5 $$\n");
}

#[test]
fn unbraced_references_take_the_longest_run() {
    let msg = rep_err(r"(\w+)=", "$1a");
    assert_eq!(
        msg,
        "ops[0] (replace): replacement references `$1a`, but the pattern defines no group \
         \"1a\"; it defines $0 to $1 and no named groups. An unbraced reference takes the \
         longest run of letters, digits and _, so `$1a` names the group \"1a\"; write \
         `${1}a` for group 1 followed by \"a\". Use a defined group, or write `$$` for a \
         literal `$` (`$$1a` outputs `$1a`, `$${1a}` outputs `${1a}`); nothing was written"
    );
    assert_eq!(rep("key=value\n", r"(\w+)=", "${1}a"), "keyavalue\n");
}

#[test]
fn undefined_references_are_refused_even_when_unused() {
    let msg = fail(
        "a\n",
        json!([{"op": "replace", "pattern": "(?<x>zzz)", "replacement": "${name}",
                "expect_matches": 0}]),
    );
    assert_eq!(
        msg,
        "ops[0] (replace): replacement references `${name}`, but the pattern defines no \
         group \"name\"; it defines $0 to $1 and the named groups ${x}. Use a defined group, \
         or write `$$` for a literal `$` (`$$name` outputs `$name`, `$${name}` outputs \
         `${name}`); nothing was written"
    );
    let msg = rep_err("zzz", "$1");
    assert!(
        msg.contains("it defines only $0 (the whole match) and no named groups"),
        "{msg}"
    );
    let msg = rep_err("(k)", "$99999999999999999999999");
    assert!(
        msg.contains("no group \"99999999999999999999999\""),
        "{msg}"
    );
}

#[test]
fn stray_dollars_are_refused() {
    assert_eq!(
        rep_err("key", "cost $"),
        "ops[0] (replace): replacement has a `$` at the end (byte 5), which is not a capture \
         reference; write `$$` for a literal `$`, or `$1` / `${name}` for a group"
    );
    assert!(rep_err("key", "a $ b").contains("has a `$` followed by ' ' (byte 2)"));
    assert!(rep_err("key", "a $-").contains("has a `$` followed by '-' (byte 2)"));
    assert_eq!(
        rep_err("key", "x${1"),
        "ops[0] (replace): replacement has `${` at byte 1 with no closing `}`; close the \
         reference (`${name}`), or write `$$` for a literal `$` (`$${` outputs `${`)"
    );
    assert!(rep_err("key", "${}").contains("empty reference `${}` at byte 0"));
}

#[test]
fn bad_patterns_are_refused() {
    let msg = rep_err("(", "x");
    assert!(
        msg.starts_with("ops[0] (replace): pattern is not a valid regex: "),
        "{msg}"
    );
    assert!(msg.ends_with("with a backslash) and call again"), "{msg}");
    assert_eq!(
        rep_err("", "x"),
        "ops[0] (replace): pattern is empty, which matches between every two characters; \
         pass the text to find (a regex; anchor whole lines with ^ and $)"
    );
}

#[test]
fn expect_matches_guards_the_count() {
    let f = "a\nb\na\n";
    // 0 asserts absence.
    let a = run(
        f,
        json!([{"op": "replace", "pattern": "zzz", "replacement": "q", "expect_matches": 0}]),
    );
    assert_eq!(a.bytes, f.as_bytes());
    assert_eq!(a.echoes, vec![site(0, 0, &[], None, 0)]);
    assert_eq!(
        refused(
            f,
            json!([{"op": "replace", "pattern": "b", "replacement": "q", "expect_matches": 0}])
        ),
        UpdateError::Mismatch {
            index: 0,
            pattern: "\"b\"".into(),
            count: 1,
            expect: 0,
            lines: vec![2],
            more: false
        }
    );
    // 1 passes on one match, fails on two.
    let a = run(
        f,
        json!([{"op": "replace", "pattern": "b", "replacement": "B", "expect_matches": 1}]),
    );
    assert_eq!(a.bytes, b"a\nB\na\n");
    assert_eq!(a.echoes, vec![site(0, 2, &["B"], None, 1)]);
    assert_eq!(
        refused(
            f,
            json!([{"op": "replace", "pattern": "a", "replacement": "q", "expect_matches": 1}])
        ),
        UpdateError::Mismatch {
            index: 0,
            pattern: "\"a\"".into(),
            count: 2,
            expect: 1,
            lines: vec![1, 3],
            more: false
        }
    );
    assert_eq!(
        refused(
            f,
            json!([{"op": "replace", "pattern": "zzz", "replacement": "q", "expect_matches": 1}]),
        ),
        UpdateError::Mismatch {
            index: 0,
            pattern: "\"zzz\"".into(),
            count: 0,
            expect: 1,
            lines: vec![],
            more: false
        }
    );
    assert!(matches!(
        refused(
            f,
            json!([{"op": "replace", "pattern": "a", "replacement": "q", "expect_matches": 3}]),
        ),
        UpdateError::Mismatch {
            count: 2,
            expect: 3,
            ..
        }
    ));
}

#[test]
fn a_long_pattern_is_quoted_in_part() {
    let pattern = format!("{}zzz", "a".repeat(90));
    let err = refused(
        "a\n",
        json!([{"op": "replace", "pattern": pattern, "replacement": "", "expect_matches": 1}]),
    );
    let quoted = format!("\"{}\"… (13 more characters)", "a".repeat(80));
    assert!(
        matches!(&err, UpdateError::Mismatch { pattern, count: 0, .. } if *pattern == quoted),
        "{err:?}"
    );
}

#[test]
fn a_replace_that_matches_nothing_echoes_a_zero_count() {
    let a = run(
        "a\n",
        json!([{"op": "replace", "pattern": "zzz", "replacement": "q"}]),
    );
    assert_eq!(a.bytes, b"a\n");
    assert_eq!(a.applied, 1);
    assert_eq!(a.echoes, vec![site(0, 0, &[], None, 0)]);
}

#[test]
fn dot_matches_newline_spans_a_region() {
    let f = "a\n// BEGIN\nx\ny\n// END\nb\n";
    let op = |dot: bool, replacement: &str| {
        run(
            f,
            json!([{"op": "replace", "pattern": "// BEGIN.*?// END",
                    "replacement": replacement, "dot_matches_newline": dot}]),
        )
    };
    let a = op(true, "// removed");
    assert_eq!(a.bytes, b"a\n// removed\nb\n");
    assert_eq!(a.echoes, vec![site(0, 2, &["// removed"], None, 1)]);
    let a = op(false, "// removed");
    assert_eq!(a.bytes, f.as_bytes());
    assert_eq!(a.echoes, vec![site(0, 0, &[], None, 0)]);
    let a = op(true, "one\ntwo\nthree\nfour");
    assert_eq!(a.bytes, b"a\none\ntwo\nthree\nfour\nb\n");
    assert_eq!(a.echoes, vec![site(0, 2, &["one", "four"], Some(2), 1)]);
    let a = op(true, "one\ntwo");
    assert_eq!(a.echoes, vec![site(0, 2, &["one", "two"], None, 1)]);
}

#[test]
fn ignore_case_matches_any_case() {
    let a = run(
        "Foo foo FOO\nfoO\n",
        json!([{"op": "replace", "pattern": "foo", "replacement": "bar", "ignore_case": true}]),
    );
    assert_eq!(a.bytes, b"bar bar bar\nbar\n");
    let line1 = site(0, 1, &["bar bar bar"], None, 4);
    assert_eq!(
        a.echoes,
        vec![
            line1.clone(),
            line1.clone(),
            line1,
            site(0, 2, &["bar"], None, 4)
        ]
    );
    assert_eq!(rep("Foo\n", "foo", "bar"), "Foo\n");
}

#[test]
fn anchors_match_per_line_and_before_crlf() {
    assert_eq!(rep("x = 1\nyx = 2\n", "^x", "z"), "z = 1\nyx = 2\n");
    assert_eq!(rep("a1\r\nb1\r\n", "1$", "2"), "a2\r\nb2\r\n");
    assert_eq!(rep("a1\r\nb1\r\n", r"\A\w", "_"), "_1\r\nb1\r\n");
    assert_eq!(rep("ab\r\n", "b.*", "c"), "ac\r\n");
}

#[test]
fn replacement_newlines_follow_a_crlf_file() {
    assert_eq!(rep("a\r\nb\r\n", "a", "x\ny"), "x\r\ny\r\nb\r\n");
    assert_eq!(rep("a\r\nb\r\n", "a", "x\r\ny"), "x\r\ny\r\nb\r\n");
    assert_eq!(rep("a\nb\n", "a", "x\r\ny"), "x\r\ny\nb\n");
    // Captured text is copied as matched.
    assert_eq!(rep("a\r\nb\r\n", r"(?s)(a.*)b", "$1"), "a\r\n\r\n");
}

#[test]
fn many_sites_echo_the_first_five_with_the_total() {
    let a = run(
        &"a\n".repeat(7),
        json!([{"op": "replace", "pattern": "a", "replacement": "b"}]),
    );
    assert_eq!(a.bytes, "b\n".repeat(7).as_bytes());
    let want: Vec<OpEcho> = (1..=5).map(|l| site(0, l, &["b"], None, 7)).collect();
    assert_eq!(a.echoes, want);
    assert!(!a.echoes_truncated);
}

#[test]
fn replaces_run_after_line_ops_in_op_order() {
    // The replace sees the inserted line although it comes first in the batch.
    let a = run(
        "a\nb\n",
        json!([
            {"op": "replace", "pattern": "new", "replacement": "NEW", "expect_matches": 1},
            {"op": "insert", "at_line": 2, "content": "new"}
        ]),
    );
    assert_eq!(a.bytes, b"a\nNEW\nb\n");
    assert_eq!(
        a.echoes,
        vec![
            site(0, 2, &["NEW"], None, 1),
            echo(1, 1, &["a", "NEW", "b"])
        ]
    );
    // Each replace runs on the previous one's result.
    let a = run(
        "a a\n",
        json!([
            {"op": "replace", "pattern": "a", "replacement": "b"},
            {"op": "replace", "pattern": "b", "replacement": "c", "expect_matches": 2}
        ]),
    );
    assert_eq!(a.bytes, b"c c\n");
    assert_eq!(
        a.echoes,
        vec![
            site(0, 1, &["c c"], None, 2),
            site(0, 1, &["c c"], None, 2),
            site(1, 1, &["c c"], None, 2),
            site(1, 1, &["c c"], None, 2),
        ]
    );
}

#[test]
fn echo_positions_are_final_line_numbers() {
    let a = run(
        &numbered(8),
        json!([
            {"op": "insert", "at_line": 7, "content": "new"},
            {"op": "replace", "pattern": "^1$", "replacement": "1a\n1b\n1c"}
        ]),
    );
    assert_eq!(a.bytes, b"1a\n1b\n1c\n2\n3\n4\n5\n6\nnew\n7\n8\n");
    assert_eq!(a.new_line_count, 11);
    assert_eq!(
        a.echoes,
        vec![
            echo(0, 7, &["5", "6", "new", "7", "8"]),
            site(1, 1, &["1a", "1c"], Some(1), 1),
        ]
    );
    // A replace inside a line op's region widens the region.
    let a = run(
        "a\nb\nc\n",
        json!([
            {"op": "insert", "at_line": 2, "content": "old"},
            {"op": "replace", "pattern": "old", "replacement": "n1\nn2"}
        ]),
    );
    assert_eq!(a.bytes, b"a\nn1\nn2\nb\nc\n");
    assert_eq!(
        a.echoes,
        vec![
            echo(0, 1, &["a", "n1", "n2", "b", "c"]),
            site(1, 2, &["n1", "n2"], None, 1)
        ]
    );
    // A later replace that removes lines above a site moves it up.
    let a = run(
        "x\ny\nz\n",
        json!([
            {"op": "replace", "pattern": "z", "replacement": "Z"},
            {"op": "replace", "pattern": "x\n", "replacement": ""}
        ]),
    );
    assert_eq!(a.bytes, b"y\nZ\n");
    assert_eq!(
        a.echoes,
        vec![site(0, 2, &["Z"], None, 1), site(1, 1, &["y"], None, 1)]
    );
}

// -----------------------------------------------------------------------------------------
// Echo bounds

#[test]
fn a_long_region_is_elided_in_the_middle() {
    let content: String = (1..=20).map(|i| format!("l{i}\n")).collect();
    let a = run(
        "x\ny\nz\n",
        json!([{"op": "insert", "at_line": 2, "content": content}]),
    );
    assert_eq!(a.new_line_count, 23);
    assert_eq!(
        a.echoes,
        vec![OpEcho {
            elided: Some(12),
            ..echo(
                0,
                1,
                &[
                    "x", "l1", "l2", "l3", "l4", "l17", "l18", "l19", "l20", "y", "z"
                ]
            )
        }]
    );
    // Eight lines are shown whole.
    let content: String = (1..=8).map(|i| format!("l{i}\n")).collect();
    let a = run(
        "x\n",
        json!([{"op": "insert", "at_line": 1, "content": content}]),
    );
    assert_eq!(
        a.echoes,
        vec![echo(
            0,
            1,
            &["l1", "l2", "l3", "l4", "l5", "l6", "l7", "l8", "x"]
        )]
    );
}

#[test]
fn echoes_stop_at_the_budget() {
    let line = "a".repeat(200);
    let f: String = (0..30).map(|_| format!("{line}\n")).collect();
    let new = "b".repeat(200);
    let batch: Vec<serde_json::Value> = [1, 6, 11, 16, 21, 26]
        .iter()
        .map(|at| json!({"op": "insert", "at_line": at, "content": new}))
        .collect();
    let a = run(&f, json!(batch));
    assert_eq!(a.applied, 6);
    assert_eq!(a.new_line_count, 36);
    // 3 lines of 201 bytes, then 5 lines each: 603 + 3 * 1005 = 3618; one more is 4623.
    assert_eq!(a.echoes.len(), 4);
    assert!(a.echoes_truncated);
    assert_eq!(
        a.echoes.iter().map(|e| e.op_index).collect::<Vec<_>>(),
        vec![0, 1, 2, 3]
    );
    assert_eq!(a.echoes[1].from_line, 5);
    assert_eq!(a.echoes[1].lines[2], new);
}

#[test]
fn long_lines_are_cut_in_echoes() {
    let long = "é".repeat(300);
    let a = run(
        &format!("{long}\n"),
        json!([{"op": "insert", "at_line": 1, "content": "x"}]),
    );
    assert_eq!(
        a.echoes,
        vec![echo(
            0,
            1,
            &["x", &format!("{}…[+344 bytes]", "é".repeat(128))]
        )]
    );
    assert_eq!(a.bytes, format!("x\n{long}\n").as_bytes());
}

// -----------------------------------------------------------------------------------------
// Wire shape

#[test]
fn ops_deserialise_from_the_wire_shape() {
    assert_eq!(
        ops(json!([
            {"op": "insert", "at_line": 1, "content": "x"},
            {"op": "remove", "from_line": 1, "to_line": 2},
            {"op": "update_lines", "from_line": 3, "to_line": 3, "content": "y"},
            {"op": "replace", "pattern": "a", "replacement": "b"},
            {"op": "replace", "pattern": "a", "replacement": "b", "ignore_case": true,
             "dot_matches_newline": true, "expect_matches": 0}
        ])),
        vec![
            Op::Insert {
                at_line: 1,
                content: "x".into(),
                expect_text: None,
            },
            Op::Remove {
                from_line: 1,
                to_line: 2,
                expect_text: None,
            },
            Op::UpdateLines {
                from_line: 3,
                to_line: 3,
                content: "y".into(),
                expect_text: None,
            },
            Op::Replace {
                pattern: "a".into(),
                replacement: "b".into(),
                ignore_case: false,
                dot_matches_newline: false,
                expect_matches: None,
            },
            Op::Replace {
                pattern: "a".into(),
                replacement: "b".into(),
                ignore_case: true,
                dot_matches_newline: true,
                expect_matches: Some(0),
            },
        ]
    );
    // A misspelt guard must not be dropped silently.
    let typo = json!({"op": "replace", "pattern": "a", "replacement": "b",
                      "expected_matches": 1});
    assert!(serde_json::from_value::<Op>(typo).is_err());
    assert!(serde_json::from_value::<Op>(json!({"op": "append", "content": "x"})).is_err());
    assert_eq!(
        serde_json::to_value(site(2, 3, &["x"], None, 1)).unwrap(),
        json!({"op_index": 2, "from_line": 3, "lines": ["x"], "total_replacements": 1})
    );
}

// -----------------------------------------------------------------------------------------
// Properties

/// Whether two line ops overlap (written independently of `check_overlaps`).
fn conflict(a: &Op, b: &Op) -> bool {
    let range = |op: &Op| match op {
        Op::Remove {
            from_line, to_line, ..
        }
        | Op::UpdateLines {
            from_line, to_line, ..
        } => Some((*from_line, *to_line)),
        _ => None,
    };
    let at = |op: &Op| match op {
        Op::Insert { at_line, .. } => Some(*at_line),
        _ => None,
    };
    match (range(a), range(b), at(a), at(b)) {
        (Some((f1, t1)), Some((f2, t2)), _, _) => f1 <= t2 && f2 <= t1,
        (_, _, Some(x), Some(y)) => x == y,
        (Some((f, t)), _, _, Some(x)) | (_, Some((f, t)), Some(x), _) => f < x && x <= t,
        _ => false,
    }
}

fn start(op: &Op) -> (u64, bool) {
    match op {
        Op::Insert { at_line, .. } => (*at_line, false),
        Op::Remove { from_line, .. } | Op::UpdateLines { from_line, .. } => (*from_line, true),
        Op::Replace { .. } => (0, false),
    }
}

/// The file's line ending and whether its last line is unterminated.
fn shape(bytes: &[u8]) -> (&'static [u8], bool) {
    (
        detect_ending(bytes),
        bytes.last().is_some_and(|&b| b != b'\n'),
    )
}

/// A single line op on a file whose last line is terminated, by splicing a list of lines.
fn splice(text: &str, op: &Op) -> String {
    let crlf = text.split('\n').next().is_some_and(|l| l.ends_with('\r')) && text.contains('\n');
    let ending = if crlf { "\r\n" } else { "\n" };
    let new = |c: &str| {
        c.lines()
            .map(|l| format!("{l}{ending}"))
            .collect::<Vec<_>>()
    };
    let mut lines: Vec<String> = text.split_inclusive('\n').map(String::from).collect();
    let index = |n: u64| usize::try_from(n).unwrap() - 1;
    match op {
        Op::Insert {
            at_line, content, ..
        } => {
            lines.splice(index(*at_line)..index(*at_line), new(content));
        }
        Op::Remove {
            from_line, to_line, ..
        } => {
            lines.drain(index(*from_line)..=index(*to_line));
        }
        Op::UpdateLines {
            from_line,
            to_line,
            content,
            ..
        } => {
            lines.splice(index(*from_line)..=index(*to_line), new(content));
        }
        Op::Replace { .. } => unreachable!(),
    }
    lines.concat()
}

prop_compose! {
    fn file()(lines in prop::collection::vec("[ab]{0,2}", 0..9), crlf: bool, final_nl: bool)
        -> String {
        let ending = if crlf { "\r\n" } else { "\n" };
        let mut text = lines.join(ending);
        if final_nl && !lines.is_empty() {
            text.push_str(ending);
        }
        text
    }
}

prop_compose! {
    fn raw_op()(kind in 0u8..3, pos in 0u64..12, len in 0u64..4,
                lines in prop::collection::vec("[xy]{0,2}", 1..4), nl: bool, crlf: bool)
        -> (u8, u64, u64, String) {
        let mut content = lines.join(if crlf { "\r\n" } else { "\n" });
        if nl || content.is_empty() {
            content.push('\n');
        }
        (kind, pos, len, content)
    }
}

proptest! {
    #[test]
    fn a_batch_equals_its_ops_one_by_one_from_the_bottom(
        text in file(),
        raw in prop::collection::vec(raw_op(), 0..7),
    ) {
        let bytes = text.as_bytes();
        let n = lines::count(bytes) as u64;
        let mut kept: Vec<Op> = Vec::new();
        for (kind, pos, len, content) in raw {
            let op = match kind {
                0 => Op::Insert { at_line: 1 + pos % (n + 1), content, expect_text: None },
                _ if n == 0 => continue,
                1 => {
                    let from = 1 + pos % n;
                    Op::Remove { from_line: from, to_line: (from + len).min(n), expect_text: None }
                }
                _ => {
                    let from = 1 + pos % n;
                    Op::UpdateLines {
                        from_line: from,
                        to_line: (from + len).min(n),
                        content,
                        expect_text: None,
                    }
                }
            };
            if !kept.iter().any(|k| conflict(k, &op)) {
                kept.push(op);
            }
        }
        let batch = apply(bytes, &kept).unwrap();
        prop_assert_eq!(batch.applied as usize, kept.len());
        prop_assert_eq!(batch.new_line_count, lines::count(&batch.bytes) as u64);

        let mut order = kept.clone();
        order.sort_by_key(|op| std::cmp::Reverse(start(op)));
        let mut current = bytes.to_vec();
        for (i, op) in order.iter().enumerate() {
            // One by one, an intermediate file that lost the original's ending or
            // final-newline shape (by becoming empty, say) legitimately differs.
            prop_assume!(i == 0 || shape(&current) == shape(bytes));
            let next = apply(&current, std::slice::from_ref(op)).unwrap().bytes;
            if current.last().is_none_or(|&b| b == b'\n') {
                let text = String::from_utf8(current.clone()).unwrap();
                prop_assert_eq!(String::from_utf8_lossy(&next), splice(&text, op));
            }
            current = next;
        }
        prop_assert_eq!(
            String::from_utf8_lossy(&batch.bytes),
            String::from_utf8_lossy(&current)
        );
    }

    #[test]
    fn any_input_gives_a_result_or_an_error_never_a_panic(
        bytes in prop::collection::vec(prop::sample::select(b"ab\r\n\xff$".to_vec()), 0..40),
        raw in prop::collection::vec(
            (0u8..4, prop::sample::select(vec![0u64, 1, 2, 3, 5, 40, u64::MAX]),
             prop::sample::select(vec![0u64, 1, 2, 7, u64::MAX]),
             "[ab\\n$]{0,4}", "[ab.*?()\\n$^]{0,5}", prop::option::of(0u64..3), any::<bool>()),
            0..5),
    ) {
        let ops: Vec<Op> = raw
            .into_iter()
            .map(|(kind, x, y, content, pattern, expect, flag)| match kind {
                0 => Op::Insert { at_line: x, content, expect_text: None },
                1 => Op::Remove { from_line: x, to_line: y, expect_text: None },
                2 => Op::UpdateLines { from_line: x, to_line: y, content, expect_text: None },
                _ => Op::Replace {
                    pattern,
                    replacement: content,
                    ignore_case: flag,
                    dot_matches_newline: !flag,
                    expect_matches: expect,
                },
            })
            .collect();
        if let Ok(a) = apply(&bytes, &ops) {
            prop_assert_eq!(a.new_line_count, lines::count(&a.bytes) as u64);
            let size: usize = a.echoes.iter().flat_map(|e| &e.lines).map(|l| l.len() + 1).sum();
            prop_assert!(size <= ECHO_BUDGET_BYTES);
            prop_assert!(a.echoes.iter().all(|e| (e.from_line == 0) == e.lines.is_empty()));
            prop_assert!(a.echoes.iter().all(|e| e.from_line <= a.new_line_count));
        }
    }
}
