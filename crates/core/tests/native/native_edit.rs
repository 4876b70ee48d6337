//! edit: several edits in order, all or none; levels reported; ambiguity, line_hint,
//! idempotence; version tokens with rebase and stale refusals.

use serde_json::json;

use crate::support::{Nx, last_versions, version_in};

#[test]
fn edits_apply_in_order_and_report_the_level_each_matched_at() {
    let nx = Nx::new();
    nx.write(
        "a.py",
        "def f():\n\tif x:\n\t\treturn \"a\"\n\nmsg = \"it's done\"\n",
    );
    let out = nx.ok(
        "edit",
        json!({"path": "a.py", "edits": [
            {"old_text": "def f():", "new_text": "def g():"},
            {"old_text": "if x:\n    return \"a\"\n", "new_text": "if y:\n    return \"b\"\n"},
            {"old_text": "msg = \"it’s done\"", "new_text": "msg = \"it is done\""}
        ]}),
    );
    assert!(out.contains("1: exact, lines 1 → 1"), "{out}");
    assert!(
        out.contains("2: indentation (re-indented), lines 2-3 → 2-3"),
        "{out}"
    );
    assert!(out.contains("3: punctuation normalised"), "{out}");
    assert_eq!(
        nx.text("a.py"),
        "def g():\n\tif y:\n\t\treturn \"b\"\n\nmsg = \"it is done\"\n"
    );
}

#[test]
fn an_edit_that_fails_leaves_the_file_untouched_even_after_earlier_edits_matched() {
    let nx = Nx::new();
    nx.write("a.txt", "alpha\nbeta\n");
    let err = nx.err(
        "edit",
        json!({"path": "a.txt", "edits": [
            {"old_text": "alpha", "new_text": "ALPHA"},
            {"old_text": "gamma", "new_text": "GAMMA"}
        ]}),
    );
    assert!(err.starts_with("no-match: edits[2]"), "{err}");
    assert_eq!(nx.text("a.txt"), "alpha\nbeta\n");
}

#[test]
fn ambiguity_lists_every_candidate_and_line_hint_picks_the_nearest() {
    let nx = Nx::new();
    nx.write(
        "a.rs",
        "let x = 1;\nfoo();\nlet x = 1;\nbar();\nlet x = 1;\n",
    );
    let err = nx.err(
        "edit",
        json!({"path": "a.rs", "edits": [{"old_text": "let x = 1;", "new_text": "let x = 2;"}]}),
    );
    assert!(err.starts_with("not-unique:"), "{err}");
    assert!(err.contains("at lines 1, 3, 5"), "{err}");
    // 4 is as near 3 as 5: refused, naming both.
    let err = nx.err(
        "edit",
        json!({"path": "a.rs", "edits": [{"old_text": "let x = 1;", "new_text": "let x = 2;", "line_hint": 4}]}),
    );
    assert!(err.contains("as near to line 3 as to line 5"), "{err}");
    nx.ok(
        "edit",
        json!({"path": "a.rs", "edits": [{"old_text": "let x = 1;", "new_text": "let x = 2;", "line_hint": 5}]}),
    );
    assert_eq!(
        nx.text("a.rs"),
        "let x = 1;\nfoo();\nlet x = 1;\nbar();\nlet x = 2;\n"
    );
    nx.ok(
        "edit",
        json!({"path": "a.rs", "edits": [{"old_text": "let x = 1;", "new_text": "let y = 0;", "replace_all": true}]}),
    );
    assert_eq!(
        nx.text("a.rs"),
        "let y = 0;\nfoo();\nlet y = 0;\nbar();\nlet x = 2;\n"
    );
}

#[test]
fn an_edit_already_applied_succeeds_and_says_so() {
    let nx = Nx::new();
    nx.write("a.txt", "new line\n");
    let out = nx.ok(
        "edit",
        json!({"path": "a.txt", "edits": [{"old_text": "old line", "new_text": "new line"}]}),
    );
    assert!(
        out.contains("unchanged: every edit was already applied"),
        "{out}"
    );
    assert!(
        out.contains("already applied (new_text is at line 1"),
        "{out}"
    );
}

#[test]
fn consecutive_edits_with_the_returned_versions_never_trip() {
    let nx = Nx::new();
    nx.write("a.txt", "a\nb\nc\n");
    let mut version = version_in(&nx.ok("read_file", json!({"path": "a.txt"})));
    for (old, new) in [("a", "A"), ("b", "B"), ("c", "C")] {
        let out = nx.ok(
            "edit",
            json!({"path": "a.txt", "expected_version": version, "edits": [{"old_text": old, "new_text": new}]}),
        );
        let vs = last_versions(&out);
        assert_eq!(vs[0], version, "{out}");
        version = vs[1].clone();
    }
    assert_eq!(nx.text("a.txt"), "A\nB\nC\n");
}

#[test]
fn a_change_elsewhere_is_rebased_and_a_change_in_the_region_is_stale_with_a_diff() {
    let nx = Nx::new();
    nx.write("a.txt", "one\ntwo\nthree\nfour\n");
    let v = version_in(&nx.ok("read_file", json!({"path": "a.txt"})));
    // Someone else changes line 4; the edit of line 1 still applies, and says so.
    nx.write("a.txt", "one\ntwo\nthree\nFOUR\n");
    let out = nx.ok(
        "edit",
        json!({"path": "a.txt", "expected_version": v, "edits": [{"old_text": "one", "new_text": "ONE"}]}),
    );
    assert!(out.contains("rebased:"), "{out}");
    assert_eq!(nx.text("a.txt"), "ONE\ntwo\nthree\nFOUR\n");
    // Someone changes the very line the caller quotes: refused with what changed.
    nx.write("a.txt", "ONE\ntwo\nthree\nFOUR\n");
    let v = version_in(&nx.ok("read_file", json!({"path": "a.txt"})));
    nx.write("a.txt", "ONE\n2\nthree\nFOUR\n");
    let err = nx.err(
        "edit",
        json!({"path": "a.txt", "expected_version": v, "edits": [{"old_text": "two", "new_text": "TWO"}]}),
    );
    assert!(err.starts_with("stale:"), "{err}");
    assert!(err.contains("-two") && err.contains("+2"), "{err}");
    assert_eq!(nx.text("a.txt"), "ONE\n2\nthree\nFOUR\n");
    let err = nx.err(
        "edit",
        json!({"path": "a.txt", "expected_version": "not-a-version", "edits": [{"old_text": "2", "new_text": "3"}]}),
    );
    assert!(err.starts_with("invalid-argument:"), "{err}");
}

#[test]
fn a_dry_run_shows_the_diff_and_writes_nothing() {
    let nx = Nx::new();
    nx.write("a.txt", "x\n");
    let out = nx.ok(
        "edit",
        json!({"path": "a.txt", "dry_run": true, "edits": [{"old_text": "x", "new_text": "y"}]}),
    );
    assert!(out.contains("-x\n+y"), "{out}");
    assert_eq!(nx.text("a.txt"), "x\n");
}

#[test]
fn a_quote_that_matches_nowhere_shows_the_nearest_lines_to_quote_from() {
    let nx = Nx::new();
    nx.write(
        "orders.py",
        "def total(items):\n    s = 0\n    for it in items:\n        s += it.price * it.qty\n    return s\n",
    );
    // A stale one-line quote: the file says `it.qty`, the model remembers `it.count`.
    let err = nx.err(
        "edit",
        json!({"path": "orders.py", "edits": [{"old_text": "        s += it.price * it.count", "new_text": "        s += it.cost()"}]}),
    );
    assert!(err.starts_with("no-match: edits[1]"), "{err}");
    assert!(err.contains("4\t        s += it.price * it.qty\n"), "{err}");
    // Following the text: quote the line it shows, and the edit lands with no read.
    let shown = err
        .lines()
        .find_map(|l| l.strip_prefix("4\t"))
        .unwrap()
        .to_string();
    nx.ok(
        "edit",
        json!({"path": "orders.py", "edits": [{"old_text": shown, "new_text": "        s += it.cost()"}]}),
    );
    assert!(nx.text("orders.py").contains("        s += it.cost()\n"));
    // A quote of several lines, one of them stale: the region they align with.
    let err = nx.err(
        "edit",
        json!({"path": "orders.py", "edits": [{"old_text": "    s = 0\n    for item in items:\n", "new_text": "x"}]}),
    );
    assert!(
        err.contains("2\t    s = 0\n3\t    for it in items:\n"),
        "{err}"
    );
}
