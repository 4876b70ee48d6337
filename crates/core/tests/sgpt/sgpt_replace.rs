#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_methods)]

//! The sgpt `replace` tool: sequential exact patches, all or nothing.

use crate::sgpt_support;

use serde_json::json;
use sgpt_support::Sx;

#[test]
fn patches_apply_in_order_each_to_the_previous_result() {
    let sx = Sx::new();
    sx.write("f.py", "def f():\n    return 1\n");
    let result = sx.ok(
        "replace",
        json!({"path": "f.py", "patches": [
            {"search": "return 1", "replace": "return 2"},
            {"search": "def f():\n    return 2", "replace": "def g():\n    return 2"},
        ]}),
    );
    assert_eq!(sx.text("f.py"), "def g():\n    return 2\n");
    assert_eq!(result["path"], "f.py");
    assert_eq!(result["patches_applied"], 2);
    assert_eq!(result["replacements"], 2);
    assert_eq!(
        result["diff"],
        "--- f.py\n+++ f.py\n@@ -1,2 +1,2 @@\n-def f():\n-    return 1\n+def g():\n+    return 2\n"
    );
}

#[test]
fn replace_all_replaces_every_occurrence() {
    let sx = Sx::new();
    sx.write("f.txt", "foo bar foo\nfoo\n");
    let result = sx.ok(
        "replace",
        json!({"path": "f.txt", "patches": [{"search": "foo", "replace": "baz", "replace_all": true}]}),
    );
    assert_eq!(sx.text("f.txt"), "baz bar baz\nbaz\n");
    assert_eq!(result["replacements"], 3);
    assert_eq!(result["patches_applied"], 1);
}

#[test]
fn a_failing_patch_fails_the_call_names_its_index_and_writes_nothing() {
    let sx = Sx::new();
    sx.write("f.txt", "a\nx\nb\nx\n");
    let text = sx.err(
        "replace",
        json!({"path": "f.txt", "patches": [
            {"search": "a", "replace": "A"},
            {"search": "x", "replace": "y"},
        ]}),
    );
    assert!(
        text.starts_with("not-unique: patches[1] (patch 2 of 2): search occurs 2 times in f.txt"),
        "{text}"
    );
    assert!(text.contains("at lines 2, 4"), "{text}");
    assert!(text.contains("replace_all: true"), "{text}");
    assert!(text.ends_with("Nothing was written."), "{text}");
    assert_eq!(sx.text("f.txt"), "a\nx\nb\nx\n");

    let text = sx.err(
        "replace",
        json!({"path": "f.txt", "patches": [
            {"search": "a", "replace": "A"},
            {"search": "b", "replace": "B"},
            {"search": "zzz", "replace": "q"},
        ]}),
    );
    assert!(
        text.starts_with("no-match: patches[2] (patch 3 of 3): search was not found in f.txt"),
        "{text}"
    );
    assert_eq!(sx.text("f.txt"), "a\nx\nb\nx\n");
}

#[test]
fn a_patch_sees_the_result_of_the_earlier_ones() {
    let sx = Sx::new();
    sx.write("f.txt", "one\n");
    // The second search exists only after the first patch.
    sx.ok(
        "replace",
        json!({"path": "f.txt", "patches": [
            {"search": "one", "replace": "two"},
            {"search": "two", "replace": "three"},
        ]}),
    );
    assert_eq!(sx.text("f.txt"), "three\n");
    // And text the first patch removed is gone for the second.
    let text = sx.err(
        "replace",
        json!({"path": "f.txt", "patches": [
            {"search": "three", "replace": "four"},
            {"search": "three", "replace": "five"},
        ]}),
    );
    assert!(text.contains("patches[1]"), "{text}");
    assert!(text.contains("after patches[0..1] applied"), "{text}");
}

#[test]
fn a_crlf_file_keeps_crlf_when_the_quote_uses_lf() {
    let sx = Sx::new();
    sx.write("w.txt", "first\r\nsecond\r\nthird\r\n");
    sx.ok(
        "replace",
        json!({"path": "w.txt", "patches": [{"search": "first\nsecond\n", "replace": "1\n2\n2.5\n"}]}),
    );
    assert_eq!(sx.bytes("w.txt"), b"1\r\n2\r\n2.5\r\nthird\r\n");
}

#[test]
fn bad_patches_are_refused_with_the_field_named() {
    let sx = Sx::new();
    sx.write("f.txt", "a\n");
    for (patches, want) in [
        (json!([]), "patches is empty"),
        (json!([{"search": "a"}]), "patches[0] needs replace"),
        (
            json!([{"search": "a", "replace": "b", "all": true}]),
            "patches[0] has no field all",
        ),
        (json!([{"search": "", "replace": "b"}]), "search is empty"),
        (json!([{"search": "a", "replace": "a"}]), "identical"),
        (
            json!([{"search": "a", "replace": 3}]),
            "patches[0].replace must be a string",
        ),
        (json!("a"), "patches of replace must be an array of objects"),
    ] {
        let text = sx.err("replace", json!({"path": "f.txt", "patches": patches}));
        assert!(text.contains(want), "{want}: {text}");
    }
    assert_eq!(sx.text("f.txt"), "a\n");
    let text = sx.err(
        "replace",
        json!({"path": "missing.txt", "patches": [{"search": "a", "replace": "b"}]}),
    );
    assert!(
        text.starts_with("not-found: missing.txt does not exist"),
        "{text}"
    );
}
