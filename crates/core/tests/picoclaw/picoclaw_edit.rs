#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_methods)]

//! picoclaw's edit_file with old_text/new_text, and the diff every edit answers with: a/ and
//! b/ paths, three context lines, a scrubbed diff, the size limits and
//! the head-and-tail bound.

use crate::picoclaw_support;

use picoclaw_support::Pico;
use serde_json::json;

#[test]
fn an_exact_unique_occurrence_is_replaced_and_the_diff_returned() {
    let p = Pico::new();
    p.write(
        "app.py",
        "import os\n\ndef main():\n    print('hi')\n\nmain()\n",
    );
    let out = p.ok(
        "edit_file",
        json!({"path": "app.py", "old_text": "print('hi')", "new_text": "print('hello')"}),
    );
    assert_eq!(
        out,
        "File edited: app.py (replaced 1 occurrence of old_text).\n--- a/app.py\n+++ b/app.py\n@@ -1,6 +1,6 @@\n import os\n \n def main():\n-    print('hi')\n+    print('hello')\n \n main()\n"
    );
    assert_eq!(
        p.read_str("app.py"),
        "import os\n\ndef main():\n    print('hello')\n\nmain()\n"
    );
}

#[test]
fn absent_and_repeated_old_text_are_refused_and_nothing_is_written() {
    let p = Pico::new();
    p.write("a.txt", "x = 1\ny = 2\nx = 1\n");
    let text = p.err(
        "edit_file",
        json!({"path": "a.txt", "old_text": "z = 3", "new_text": "q"}),
    );
    assert!(
        text.starts_with("no-match: old_text not found in file"),
        "{text}"
    );
    let text = p.err(
        "edit_file",
        json!({"path": "a.txt", "old_text": "x = 1", "new_text": "x = 9"}),
    );
    assert!(
        text.starts_with("not-unique: old_text appears 2 times (starting at lines 1, 3)"),
        "{text}"
    );
    assert!(text.contains("more context"), "{text}");
    assert_eq!(p.read_str("a.txt"), "x = 1\ny = 2\nx = 1\n");
}

#[test]
fn old_text_and_patch_are_exclusive_and_one_is_required() {
    let p = Pico::new();
    p.write("a.txt", "a\n");
    let both = p.err(
        "edit_file",
        json!({"path": "a.txt", "old_text": "a", "new_text": "b", "patch": "@@\n-a\n+b\n"}),
    );
    assert!(both.contains("never both"), "{both}");
    assert!(
        p.err("edit_file", json!({"path": "a.txt"}))
            .contains("needs old_text and new_text")
    );
    assert!(
        p.err("edit_file", json!({"path": "a.txt", "old_text": "a"}))
            .contains("new_text is required")
    );
    assert!(
        p.err(
            "edit_file",
            json!({"path": "missing.txt", "old_text": "a", "new_text": "b"})
        )
        .starts_with("not-found:")
    );
}

#[test]
fn a_crlf_file_quoted_with_lf_keeps_crlf() {
    let p = Pico::new();
    p.write("w.txt", "one\r\ntwo\r\nthree\r\n");
    p.ok(
        "edit_file",
        json!({"path": "w.txt", "old_text": "one\ntwo\n", "new_text": "1\n2\n"}),
    );
    assert_eq!(p.read("w.txt"), b"1\r\n2\r\nthree\r\n");
}

#[test]
fn a_latin1_file_is_edited_in_its_own_encoding() {
    let p = Pico::new();
    p.write("l.txt", b"caf\xe9\nna\xefve\n");
    p.ok(
        "edit_file",
        json!({"path": "l.txt", "old_text": "naïve", "new_text": "naïf"}),
    );
    assert_eq!(p.read("l.txt"), b"caf\xe9\nna\xeff\n");
}

#[test]
fn every_line_of_the_diff_is_scrubbed() {
    let secret = "sk-proj-Ab3dEf9hIj2kLmN0pQrS7tUv";
    let p = Pico::new();
    p.write(
        "c.env",
        format!("API_KEY={secret}\nDEBUG=false\nNEW_KEY=old\n"),
    );
    let out = p.ok(
        "edit_file",
        json!({"path": "c.env", "old_text": "DEBUG=false", "new_text": "DEBUG=true"}),
    );
    assert!(
        out.contains("\n API_KEY=[FILTERED]\n-DEBUG=false\n+DEBUG=true\n"),
        "{out}"
    );
    let out = p.ok(
        "edit_file",
        json!({"path": "c.env", "old_text": "NEW_KEY=old", "new_text": format!("NEW_KEY={secret}")}),
    );
    assert!(
        out.contains("-NEW_KEY=old\n+NEW_KEY=[FILTERED]\n") && !out.contains(secret),
        "added lines are scrubbed too: {out}"
    );
}

#[test]
fn files_of_64_kib_or_2000_lines_get_a_summary_instead_of_a_diff() {
    let p = Pico::new();
    let many: String = (0..2000).map(|i| format!("{i}\n")).collect();
    p.write("many.txt", &many);
    let out = p.ok(
        "edit_file",
        json!({"path": "many.txt", "old_text": "1999\n", "new_text": "last\n"}),
    );
    assert!(out.starts_with("File edited: many.txt"), "{out}");
    assert!(out.contains("call read_file"), "{out}");
    assert!(!out.contains("@@"), "{out}");
    let p = Pico::new();
    p.write("wide.txt", format!("{}\nend\n", "w".repeat(70_000)));
    let out = p.ok(
        "edit_file",
        json!({"path": "wide.txt", "old_text": "end", "new_text": "END"}),
    );
    assert!(!out.contains("@@"), "{out}");
}

#[test]
fn a_long_diff_is_bounded_to_12288_characters_head_and_tail() {
    let p = Pico::new();
    let old: String = (0..400)
        .map(|i| format!("line number {i:04} of the old text\n"))
        .collect();
    p.write("big.txt", &old);
    let new: String = (0..400)
        .map(|i| format!("LINE NUMBER {i:04} of the new text\n"))
        .collect();
    let out = p.ok(
        "edit_file",
        json!({"path": "big.txt", "old_text": old, "new_text": new}),
    );
    let diff = out.split_once('\n').unwrap().1;
    assert!(diff.chars().count() <= 12_288, "{}", diff.chars().count());
    assert!(out.contains("The diff is truncated"), "{}", &out[..300]);
    assert!(out.contains("characters of the diff omitted"));
    assert!(out.contains("--- a/big.txt\n+++ b/big.txt\n"));
    assert!(
        out.trim_end()
            .ends_with("+LINE NUMBER 0399 of the new text"),
        "the tail is kept"
    );
    assert_eq!(p.read_str("big.txt"), new);
}

#[test]
fn edits_keep_the_file_mode_and_a_link() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let p = Pico::new();
    p.write("s.sh", "echo a\n");
    std::fs::set_permissions(p.path("s.sh"), std::fs::Permissions::from_mode(0o750)).unwrap();
    std::os::unix::fs::symlink("s.sh", p.path("l.sh")).unwrap();
    p.ok(
        "edit_file",
        json!({"path": "l.sh", "old_text": "a", "new_text": "b"}),
    );
    assert_eq!(p.read_str("s.sh"), "echo b\n");
    assert!(
        std::fs::symlink_metadata(p.path("l.sh"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(
        std::fs::metadata(p.path("s.sh")).unwrap().mode() & 0o777,
        0o750
    );
}
