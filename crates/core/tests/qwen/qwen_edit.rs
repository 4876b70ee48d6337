//! qwen's edit without a model. The exact old_string first; when it is absent, a
//! deterministic cascade (line endings, trailing whitespace, indentation with re-indentation,
//! Unicode punctuation), each level accepted only when it finds one place and named in the
//! result; ambiguity is always an error. Arguments are literal text, never unescaped. Qwen Code's
//! success and failure texts.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_methods)]

use crate::qwen_support;

use qwen_support::Qx;
use serde_json::json;

fn edit(fx: &Qx, file: &str, old: &str, new: &str) -> String {
    fx.ok(
        "edit",
        json!({"file_path": fx.abs(file), "old_string": old, "new_string": new}),
    )
}

fn edit_err(fx: &Qx, file: &str, old: &str, new: &str) -> String {
    fx.err(
        "edit",
        json!({"file_path": fx.abs(file), "old_string": old, "new_string": new}),
    )
}

#[test]
fn an_exact_unique_match_is_replaced_with_spec_text() {
    let fx = Qx::new();
    fx.write("a.txt", "one\ntwo\nthree\n");
    let out = edit(&fx, "a.txt", "two", "2");
    assert_eq!(
        out,
        format!(
            "Successfully modified file: {} (1 replacements).",
            fx.abs("a.txt")
        )
    );
    assert_eq!(fx.read("a.txt"), b"one\n2\nthree\n");
}

#[test]
fn line_endings_are_converted_and_reported() {
    let fx = Qx::new();
    fx.write("a.txt", "one\ntwo\nthree\n");
    let out = edit(&fx, "a.txt", "one\r\ntwo\r\n", "1\r\n2\r\n");
    assert!(out.ends_with("Correction applied: old_string matched after converting its line endings to the file's."), "{out}");
    assert_eq!(fx.read("a.txt"), b"1\n2\nthree\n");
}

#[test]
fn trailing_whitespace_is_ignored_line_by_line() {
    let fx = Qx::new();
    fx.write("a.py", "def f():   \n    return 1 \n\nprint(f())\n");
    let out = edit(
        &fx,
        "a.py",
        "def f():\n    return 1\n",
        "def f():\n    return 2\n",
    );
    assert!(out.ends_with("(1 replacements). Correction applied: old_string matched after ignoring trailing whitespace on each line."), "{out}");
    assert_eq!(fx.read("a.py"), b"def f():\n    return 2\n\nprint(f())\n");
}

#[test]
fn indentation_is_ignored_and_the_replacement_reindented() {
    let fx = Qx::new();
    fx.write(
        "a.py",
        "class A:\r\n    def f(self):\r\n        if x:\r\n            return 1\r\n        return 0\r\n",
    );
    let out = edit(
        &fx,
        "a.py",
        "if x:\n    return 1\nreturn 0\n",
        "if x:\n    return 10\nelse:\n    pass\nreturn 0\n",
    );
    assert!(out.ends_with("Correction applied: old_string matched after ignoring indentation; new_string was re-indented to the file's indentation."), "{out}");
    assert_eq!(
        fx.read("a.py"),
        b"class A:\r\n    def f(self):\r\n        if x:\r\n            return 10\r\n        else:\r\n            pass\r\n        return 0\r\n"
    );
}

/// Issue 17 item 6: the file was re-indented to two spaces while the model quotes it with tabs.
#[test]
fn a_tab_quote_of_a_two_space_file_is_written_in_two_space_levels_never_mixed() {
    let fx = Qx::new();
    fx.write(
        "retry.js",
        "function run() {\n  if (failed) {\n    // retry errors\n    retry();\n  }\n}\n",
    );
    let out = edit(
        &fx,
        "retry.js",
        "\tif (failed) {\n\t\t// retry errors\n\t\tretry();\n",
        "\tif (failed) {\n\t\t// retry errors\n\t\tif (tries < 3) {\n\t\t\tretry();\n\t\t}\n",
    );
    assert!(out.contains("new_string was re-indented"), "{out}");
    let written = String::from_utf8(fx.read("retry.js")).unwrap();
    assert_eq!(
        written,
        "function run() {\n  if (failed) {\n    // retry errors\n    if (tries < 3) {\n      retry();\n    }\n  }\n}\n"
    );
    assert!(!written.contains('\t'), "{written:?}");
}

#[test]
fn a_space_quote_of_a_tab_file_is_written_in_tabs() {
    let fx = Qx::new();
    fx.write("m.go", "func f() {\n\tif ok {\n\t\tgo()\n\t}\n}\n");
    edit(
        &fx,
        "m.go",
        "    if ok {\n        go()\n",
        "    if ok {\n        go()\n        log()\n",
    );
    assert_eq!(
        fx.read("m.go"),
        b"func f() {\n\tif ok {\n\t\tgo()\n\t\tlog()\n\t}\n}\n"
    );
}

#[test]
fn an_indentation_that_cannot_be_mapped_refuses_the_correction_and_writes_nothing() {
    let fx = Qx::new();
    let before = "function run() {\n  if (failed) {\n    retry();\n  }\n}\n";
    fx.write("retry.js", before);
    let err = edit_err(
        &fx,
        "retry.js",
        "\tif (failed) {\n",
        "\tif (failed) {\n  \tlog();\n",
    );
    assert!(
        err.contains(
            "new_string cannot be re-indented to the file's indentation: line 2 of new_string"
        ),
        "{err}"
    );
    assert!(err.contains("No edits made"), "{err}");
    assert_eq!(fx.read("retry.js"), before.as_bytes());
}

#[test]
fn unicode_punctuation_is_normalised() {
    let fx = Qx::new();
    fx.write(
        "doc.md",
        "He said \u{201C}don\u{2019}t\u{201D} \u{2014} twice.\u{00A0}End.\n",
    );
    let out = edit(&fx, "doc.md", "\"don't\" - twice. End.", "\"do\" - once.");
    assert!(out.ends_with("Correction applied: old_string matched after normalising Unicode punctuation (curly quotes, dashes, non-breaking spaces)."), "{out}");
    assert_eq!(fx.read("doc.md"), "He said \"do\" - once.\n".as_bytes());
}

#[test]
fn exact_ambiguity_needs_context_or_replace_all() {
    let fx = Qx::new();
    fx.write("a.txt", "x = 1\ny = 2\nx = 1\n");
    let err = edit_err(&fx, "a.txt", "x = 1", "x = 3");
    assert_eq!(
        err,
        format!(
            "Failed to edit because the text matches multiple locations: old_string occurs 2 times in {} (at lines 1, 3). Provide more context or set replace_all to true.",
            fx.abs("a.txt")
        )
    );
    assert_eq!(fx.read("a.txt"), b"x = 1\ny = 2\nx = 1\n");
    let out = fx.ok(
        "edit",
        json!({"file_path": fx.abs("a.txt"), "old_string": "x = 1", "new_string": "x = 3", "replace_all": true}),
    );
    assert_eq!(
        out,
        format!(
            "Successfully modified file: {} (2 replacements).",
            fx.abs("a.txt")
        )
    );
    assert_eq!(fx.read("a.txt"), b"x = 3\ny = 2\nx = 3\n");
}

#[test]
fn replace_all_counts_non_overlapping_occurrences() {
    let fx = Qx::new();
    fx.write("a.txt", "aaaa\n");
    let out = fx.ok(
        "edit",
        json!({"file_path": fx.abs("a.txt"), "old_string": "aa", "new_string": "b", "replace_all": true}),
    );
    assert!(out.contains("(2 replacements)"), "{out}");
    assert_eq!(fx.read("a.txt"), b"bb\n");
}

#[test]
fn an_ambiguous_correction_is_refused_even_with_replace_all() {
    let fx = Qx::new();
    fx.write("a.py", "    x = 1  \nfoo()\n        x = 1\n");
    for replace_all in [false, true] {
        let err = fx.err(
            "edit",
            json!({"file_path": fx.abs("a.py"), "old_string": "\tx = 1\n", "new_string": "\tx = 2\n", "replace_all": replace_all}),
        );
        assert_eq!(
            err,
            format!(
                "Failed to edit because the text matches multiple locations: old_string occurs 2 times in {} when indentation is ignored (at lines 1, 3). Provide more context so that old_string matches exactly one place (a corrected match is applied only when it is unique).",
                fx.abs("a.py")
            )
        );
    }
    assert_eq!(fx.read("a.py"), b"    x = 1  \nfoo()\n        x = 1\n");
}

#[test]
fn a_looser_level_never_breaks_a_tie_at_a_stricter_one() {
    let fx = Qx::new();
    // Two places match ignoring trailing whitespace; one of them matches ignoring indentation
    // too, but the trailing-whitespace level decides and is ambiguous.
    fx.write("a.txt", "k = v \nk = v\t\n  k = v\n");
    let err = edit_err(&fx, "a.txt", "k = v  \n", "z\n");
    assert!(
        err.contains("occurs 2 times")
            && err.contains("when trailing whitespace is ignored (at lines 1, 2)"),
        "{err}"
    );
}

#[test]
fn absent_text_fails_with_spec_text_and_changes_nothing() {
    let fx = Qx::new();
    fx.write("a.txt", "alpha\nbeta\n");
    let err = edit_err(&fx, "a.txt", "gamma", "delta");
    assert_eq!(
        err,
        format!(
            "Failed to edit, 0 occurrences found for old_string in {}. No edits made. The exact text in old_string was not found, nor after ignoring line endings, trailing whitespace, indentation or Unicode punctuation. Ensure you're not escaping content incorrectly and check whitespace, indentation, and context. Use read_file tool to verify.",
            fx.abs("a.txt")
        )
    );
    assert_eq!(fx.read("a.txt"), b"alpha\nbeta\n");
}

#[test]
fn escapes_in_the_arguments_are_literal_text() {
    let fx = Qx::new();
    fx.write("a.c", "printf(\"a\\n\");\nputs(\"q\\\"x\");\n");
    // old_string holds a backslash and an n, as the file does: it matches as written.
    edit(&fx, "a.c", "printf(\"a\\n\");", "printf(\"b\\n\");");
    assert_eq!(fx.read("a.c"), b"printf(\"b\\n\");\nputs(\"q\\\"x\");\n");
    // A quote of a real newline does not match the two characters \ and n.
    edit_err(&fx, "a.c", "printf(\"b\n\");", "x");
    edit(&fx, "a.c", "\\\"x", "\\\"y");
    assert_eq!(fx.read("a.c"), b"printf(\"b\\n\");\nputs(\"q\\\"y\");\n");
}

#[test]
fn an_empty_old_string_creates_a_file_and_fails_on_an_existing_one() {
    let fx = Qx::new();
    let out = edit(&fx, "sub/new.txt", "", "fresh\n");
    assert_eq!(
        out,
        format!(
            "Created new file: {} with provided content.",
            fx.abs("sub/new.txt")
        )
    );
    assert_eq!(fx.read("sub/new.txt"), b"fresh\n");
    let err = edit_err(&fx, "sub/new.txt", "", "again\n");
    assert!(
        err.starts_with(&format!(
            "Failed to edit. Attempted to create a file that already exists: {}.",
            fx.abs("sub/new.txt")
        )),
        "{err}"
    );
    assert_eq!(fx.read("sub/new.txt"), b"fresh\n");
}

#[test]
fn a_missing_file_and_identical_strings_fail() {
    let fx = Qx::new();
    assert_eq!(
        edit_err(&fx, "none.txt", "a", "b"),
        format!(
            "File not found: {}. Cannot apply edit. Use an empty old_string to create a new file.",
            fx.abs("none.txt")
        )
    );
    fx.write("a.txt", "a\n");
    assert_eq!(
        edit_err(&fx, "a.txt", "a", "a"),
        format!(
            "No changes to apply. The old_string and new_string are identical in file: {}",
            fx.abs("a.txt")
        )
    );
}

#[test]
fn write_file_reports_overwrite_and_creation() {
    let fx = Qx::new();
    fx.write("a.txt", "old\n");
    assert_eq!(
        fx.ok(
            "write_file",
            json!({"file_path": fx.abs("a.txt"), "content": "new\n"})
        ),
        format!("Successfully overwrote file: {}.", fx.abs("a.txt"))
    );
    assert_eq!(fx.read("a.txt"), b"new\n");
    fx.write("d/x", "");
    assert_eq!(
        fx.err(
            "write_file",
            json!({"file_path": fx.abs("d"), "content": "x"})
        ),
        format!("Path is a directory, not a file: {}", fx.abs("d"))
    );
}

#[test]
fn paths_outside_the_workspace_are_refused() {
    let fx = Qx::new();
    let err = fx.err(
        "write_file",
        json!({"file_path": "/etc/fsgate-qwen-test.txt", "content": "x"}),
    );
    assert!(
        err.starts_with("File path must be within one of the workspace directories: "),
        "{err}"
    );
    assert!(!std::path::Path::new("/etc/fsgate-qwen-test.txt").exists());
}
