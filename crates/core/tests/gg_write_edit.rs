//! write_file and edit_file: whole-file atomic writes with parents created, and the one exact,
//! unique replacement with its two distinct failures.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::disallowed_methods,
    clippy::disallowed_types
)]

mod gg_support;

use std::os::unix::fs::PermissionsExt;

use gg_support::Fx;
use serde_json::json;

fn mode(fx: &Fx, rel: &str) -> u32 {
    std::fs::metadata(fx.path(rel))
        .unwrap()
        .permissions()
        .mode()
        & 0o7777
}

// ---------------------------------------------------------------------------------------------
// write_file

#[test]
fn write_creates_the_file_and_its_missing_parents() {
    let fx = Fx::new();
    assert_eq!(
        fx.ok(
            "write_file",
            json!({"path": "a/b/c.txt", "content": "x\ny\n"})
        ),
        "Created a/b/c.txt: 2 lines (4 bytes)."
    );
    assert_eq!(fx.bytes("a/b/c.txt"), b"x\ny\n");
}

#[test]
fn write_overwrites_the_whole_file() {
    let fx = Fx::new();
    fx.write("f.txt", "0123456789 and much more\n");
    assert_eq!(
        fx.ok("write_file", json!({"path": "f.txt", "content": "new"})),
        "Overwrote f.txt: 1 line (3 bytes), replacing 25 bytes."
    );
    assert_eq!(fx.bytes("f.txt"), b"new");
}

#[test]
fn write_stores_content_byte_for_byte() {
    let fx = Fx::new();
    let content = "crlf\r\nline\r\nünïcødé ✓\n\n  indented\tand tabbed";
    fx.ok("write_file", json!({"path": "x.txt", "content": content}));
    assert_eq!(fx.bytes("x.txt"), content.as_bytes());
    assert_eq!(fx.ok("read_file", json!({"path": "x.txt"})), content);
}

#[test]
fn write_empty_content_creates_an_empty_file() {
    let fx = Fx::new();
    assert_eq!(
        fx.ok("write_file", json!({"path": "e.txt", "content": ""})),
        "Created e.txt: 0 lines (0 bytes)."
    );
    assert_eq!(fx.bytes("e.txt"), b"");
}

#[test]
fn write_keeps_the_mode_of_an_existing_file() {
    let fx = Fx::new();
    fx.write("run.sh", "#!/bin/sh\n");
    std::fs::set_permissions(fx.path("run.sh"), std::fs::Permissions::from_mode(0o751)).unwrap();
    fx.ok(
        "write_file",
        json!({"path": "run.sh", "content": "#!/bin/sh\necho hi\n"}),
    );
    assert_eq!(mode(&fx, "run.sh"), 0o751);
    assert_eq!(fx.bytes("run.sh"), b"#!/bin/sh\necho hi\n");
}

#[test]
fn write_leaves_no_temporary_files_behind() {
    let fx = Fx::new();
    fx.ok("write_file", json!({"path": "d/new.txt", "content": "1"}));
    fx.ok("write_file", json!({"path": "d/new.txt", "content": "2"}));
    fx.ok("write_file", json!({"path": "top.txt", "content": "3"}));
    assert_eq!(fx.names("d"), ["new.txt"]);
    assert_eq!(fx.names("."), ["d", "top.txt"]);
}

#[test]
fn write_replaces_the_file_rather_than_rewriting_it_in_place() {
    // Atomic replacement: a reader holding the old file keeps seeing the old bytes.
    let fx = Fx::new();
    fx.write("f.txt", "old content\n");
    let held = std::fs::File::open(fx.path("f.txt")).unwrap();
    fx.ok("write_file", json!({"path": "f.txt", "content": "new\n"}));
    let mut old = String::new();
    std::io::Read::read_to_string(&mut &held, &mut old).unwrap();
    assert_eq!(old, "old content\n");
    assert_eq!(fx.bytes("f.txt"), b"new\n");
}

#[test]
fn write_to_a_directory_is_invalid_argument() {
    let fx = Fx::new();
    fx.mkdir("src");
    assert_eq!(
        fx.err("write_file", json!({"path": "src", "content": "x"})),
        "invalid-argument: src is a directory, so it cannot be written as a file; pass a file \
         path inside it"
    );
}

#[test]
fn write_below_a_file_is_invalid_argument() {
    let fx = Fx::new();
    fx.write("f.txt", "x");
    assert_eq!(
        fx.err("write_file", json!({"path": "f.txt/g.txt", "content": "y"})),
        "invalid-argument: a parent of f.txt/g.txt is a file, not a directory, so the file cannot \
         be created there; check the path with list_dir"
    );
    assert_eq!(fx.bytes("f.txt"), b"x");
}

#[test]
fn write_without_content_is_invalid_argument() {
    let fx = Fx::new();
    assert_eq!(
        fx.err("write_file", json!({"path": "f.txt"})),
        "invalid-argument: write_file needs content, a string; call it again with content set"
    );
    assert!(!fx.path("f.txt").exists());
}

// ---------------------------------------------------------------------------------------------
// edit_file

#[test]
fn edit_replaces_the_one_occurrence_and_keeps_the_rest_byte_for_byte() {
    let fx = Fx::new();
    fx.write("f.txt", "alpha\nbeta\ngamma\n");
    assert_eq!(
        fx.ok(
            "edit_file",
            json!({"path": "f.txt", "old_string": "beta", "new_string": "BETA"})
        ),
        "Edited f.txt: replaced line 2 with 1 line."
    );
    assert_eq!(fx.bytes("f.txt"), b"alpha\nBETA\ngamma\n");
}

#[test]
fn edit_keeps_a_missing_final_newline_and_foreign_bytes() {
    let fx = Fx::new();
    let mut before = b"caf\xe9 latin-1\n\ttab\x00nul\nlast".to_vec();
    fx.write("f.txt", &before);
    fx.ok(
        "edit_file",
        json!({"path": "f.txt", "old_string": "tab", "new_string": "TAB"}),
    );
    before[14..17].copy_from_slice(b"TAB");
    assert_eq!(fx.bytes("f.txt"), before);
}

#[test]
fn edit_across_lines_reports_the_span_and_the_new_line_count() {
    let fx = Fx::new();
    fx.write("f.txt", "a\nb\nc\nd\n");
    assert_eq!(
        fx.ok(
            "edit_file",
            json!({"path": "f.txt", "old_string": "b\nc\n", "new_string": "B\nX\nC\n"})
        ),
        "Edited f.txt: replaced lines 2-3 with 3 lines."
    );
    assert_eq!(fx.bytes("f.txt"), b"a\nB\nX\nC\nd\n");
    assert_eq!(
        fx.ok(
            "edit_file",
            json!({"path": "f.txt", "old_string": "X\n", "new_string": ""})
        ),
        "Edited f.txt: replaced line 3 with 0 lines."
    );
    assert_eq!(fx.bytes("f.txt"), b"a\nB\nC\nd\n");
}

#[test]
fn edit_refuses_absent_text_and_says_to_re_read_the_file() {
    let fx = Fx::new();
    fx.write("f.txt", "alpha\nbeta\ngamma\n");
    assert_eq!(
        fx.err(
            "edit_file",
            json!({"path": "f.txt", "old_string": "delta", "new_string": "x"})
        ),
        "no-match: old_string was not found in f.txt (3 lines); the file may have changed since \
         you read it, or the quote differs in whitespace or indentation. Re-read the file with \
         read_file and copy the text to replace exactly."
    );
    assert_eq!(fx.bytes("f.txt"), b"alpha\nbeta\ngamma\n");
}

#[test]
fn edit_absent_text_whose_first_line_occurs_points_at_that_line() {
    let fx = Fx::new();
    fx.write("f.txt", "alpha\nbeta\ngamma\n");
    assert_eq!(
        fx.err(
            "edit_file",
            json!({"path": "f.txt", "old_string": "beta\ndelta", "new_string": "x"})
        ),
        "no-match: old_string was not found in f.txt (3 lines); the file may have changed since \
         you read it, or the quote differs in whitespace or indentation. Its first line does \
         occur (at line 2), so the lines after it differ. Re-read the file with read_file and \
         copy the text to replace exactly."
    );
    assert_eq!(fx.bytes("f.txt"), b"alpha\nbeta\ngamma\n");
}

#[test]
fn edit_absent_text_that_differs_in_whitespace_says_where_it_occurs() {
    let fx = Fx::new();
    fx.write("f.py", "def f():\n    return 1\n");
    assert_eq!(
        fx.err(
            "edit_file",
            json!({"path": "f.py", "old_string": "\treturn 1", "new_string": "\treturn 2"})
        ),
        "no-match: old_string was not found in f.py (2 lines); the file may have changed since \
         you read it, or the quote differs in whitespace or indentation. The text occurs (at \
         line 2) with different surrounding whitespace. Re-read the file with read_file and copy \
         the text to replace exactly."
    );
    assert_eq!(fx.bytes("f.py"), b"def f():\n    return 1\n");
}

#[test]
fn edit_refuses_two_occurrences_and_names_lines() {
    let fx = Fx::new();
    let before = "fn a() {\n    x += 1;\n}\nfn b() {\n    x += 1;\n}\n";
    fx.write("f.rs", before);
    assert_eq!(
        fx.err(
            "edit_file",
            json!({"path": "f.rs", "old_string": "    x += 1;", "new_string": "    x += 2;"})
        ),
        "not-unique: old_string occurs 2 times in f.rs, at lines 2, 5; add surrounding lines to \
         old_string so it matches exactly one place, then call edit_file again"
    );
    assert_eq!(fx.bytes("f.rs"), before.as_bytes());
    // With surrounding text it is unique.
    fx.ok(
        "edit_file",
        json!({"path": "f.rs", "old_string": "fn b() {\n    x += 1;", "new_string": "fn b() {\n    x += 2;"}),
    );
    assert_eq!(
        fx.bytes("f.rs"),
        b"fn a() {\n    x += 1;\n}\nfn b() {\n    x += 2;\n}\n"
    );
}

#[test]
fn edit_not_unique_names_a_line_holding_two_occurrences_once() {
    let fx = Fx::new();
    fx.write("f.txt", "a = a + 1\nb\n");
    assert_eq!(
        fx.err(
            "edit_file",
            json!({"path": "f.txt", "old_string": "a", "new_string": "z"})
        ),
        "not-unique: old_string occurs 2 times in f.txt, at line 1; add surrounding lines to \
         old_string so it matches exactly one place, then call edit_file again"
    );
}

#[test]
fn edit_not_unique_lists_twenty_lines_and_counts_the_rest() {
    let fx = Fx::new();
    let before = "same\n".repeat(25);
    fx.write("f.txt", &before);
    assert_eq!(
        fx.err(
            "edit_file",
            json!({"path": "f.txt", "old_string": "same", "new_string": "x"})
        ),
        "not-unique: old_string occurs 25 times in f.txt, at lines 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, \
         11, 12, 13, 14, 15, 16, 17, 18, 19, 20 and 5 more; add surrounding lines to old_string \
         so it matches exactly one place, then call edit_file again"
    );
    assert_eq!(fx.bytes("f.txt"), before.as_bytes());
}

#[test]
fn edit_crlf_file_with_an_lf_quote_keeps_crlf() {
    let fx = Fx::new();
    fx.write("w.txt", "one\r\ntwo\r\nthree\r\n");
    assert_eq!(
        fx.ok(
            "edit_file",
            json!({"path": "w.txt", "old_string": "one\ntwo\n", "new_string": "1\n2\n2.5\n"})
        ),
        "Edited w.txt: replaced lines 1-2 with 3 lines (old_string matched after converting its \
         line endings to the file's)."
    );
    assert_eq!(fx.bytes("w.txt"), b"1\r\n2\r\n2.5\r\nthree\r\n");
}

#[test]
fn edit_crlf_file_within_a_line_keeps_crlf() {
    let fx = Fx::new();
    fx.write("w.txt", "one\r\ntwo\r\nthree");
    assert_eq!(
        fx.ok(
            "edit_file",
            json!({"path": "w.txt", "old_string": "two", "new_string": "TWO"})
        ),
        "Edited w.txt: replaced line 2 with 1 line."
    );
    assert_eq!(fx.bytes("w.txt"), b"one\r\nTWO\r\nthree");
}

#[test]
fn edit_keeps_the_mode_and_leaves_no_temporary_files() {
    let fx = Fx::new();
    fx.write("d/run.sh", "echo a\n");
    std::fs::set_permissions(fx.path("d/run.sh"), std::fs::Permissions::from_mode(0o700)).unwrap();
    fx.ok(
        "edit_file",
        json!({"path": "d/run.sh", "old_string": "a", "new_string": "b"}),
    );
    assert_eq!(mode(&fx, "d/run.sh"), 0o700);
    assert_eq!(fx.names("d"), ["run.sh"]);
    assert_eq!(fx.bytes("d/run.sh"), b"echo b\n");
}

#[test]
fn edit_of_a_missing_file_is_not_found_and_creates_nothing() {
    let fx = Fx::new();
    assert_eq!(
        fx.err(
            "edit_file",
            json!({"path": "nope.txt", "old_string": "a", "new_string": "b"})
        ),
        "not-found: nope.txt does not exist, so there is nothing to edit; check the path with \
         list_dir, or create the file with write_file"
    );
    assert!(!fx.path("nope.txt").exists());
}

#[test]
fn edit_of_a_directory_is_invalid_argument() {
    let fx = Fx::new();
    fx.mkdir("src");
    assert_eq!(
        fx.err(
            "edit_file",
            json!({"path": "src", "old_string": "a", "new_string": "b"})
        ),
        "invalid-argument: src is a directory, not a file; edit_file edits one file"
    );
}

#[test]
fn edit_with_empty_or_unchanged_old_string_is_invalid_argument_and_leaves_the_file() {
    let fx = Fx::new();
    fx.write("f.txt", "abc\n");
    assert_eq!(
        fx.err(
            "edit_file",
            json!({"path": "f.txt", "old_string": "", "new_string": "x"})
        ),
        "invalid-argument: old_string is empty, so it names no place in f.txt; quote the exact \
         text to replace (to write a whole file, use write_file)"
    );
    assert_eq!(
        fx.err(
            "edit_file",
            json!({"path": "f.txt", "old_string": "abc", "new_string": "abc"})
        ),
        "invalid-argument: old_string and new_string are identical, so the edit would change \
         nothing in f.txt; pass the new text as new_string"
    );
    assert_eq!(fx.bytes("f.txt"), b"abc\n");
}

#[test]
fn edit_missing_new_string_is_invalid_argument() {
    let fx = Fx::new();
    fx.write("f.txt", "abc\n");
    assert_eq!(
        fx.err("edit_file", json!({"path": "f.txt", "old_string": "abc"})),
        "invalid-argument: edit_file needs new_string, a string; call it again with new_string set"
    );
    assert_eq!(fx.bytes("f.txt"), b"abc\n");
}
