//! apply_patch: V4A envelopes and multi-file unified diffs, checked whole, committed all or
//! nothing; dry runs.

use proptest::prelude::*;
use serde_json::json;

use crate::support::Nx;

#[test]
fn a_v4a_envelope_adds_updates_moves_and_deletes_in_one_call() {
    let nx = Nx::new();
    nx.write("src/a.py", "def f():\n    return 1\n");
    nx.write("src/old.txt", "bye\n");
    nx.write("src/m.txt", "move me\n");
    let out = nx.ok(
        "apply_patch",
        json!({"patch": "*** Begin Patch\n*** Update File: src/a.py\n@@\n def f():\n-    return 1\n+    return 2\n*** Add File: src/new.txt\n+hello\n*** Delete File: src/old.txt\n*** Update File: src/m.txt\n*** Move to: lib/m.txt\n@@\n-move me\n+moved\n*** End Patch\n"}),
    );
    assert!(out.starts_with("applied: 5 files"), "{out}");
    assert!(out.contains("M src/a.py v"), "{out}");
    assert!(out.contains("A src/new.txt v"), "{out}");
    assert!(out.contains("D src/old.txt"), "{out}");
    assert!(out.contains("R src/m.txt → lib/m.txt v"), "{out}");
    assert_eq!(nx.text("src/a.py"), "def f():\n    return 2\n");
    assert_eq!(nx.text("src/new.txt"), "hello\n");
    assert_eq!(nx.text("lib/m.txt"), "moved\n");
    assert!(!nx.exists("src/old.txt") && !nx.exists("src/m.txt"));
}

#[test]
fn a_multi_file_unified_diff_applies_every_file() {
    let nx = Nx::new();
    nx.write("a.txt", "1\n2\n3\n");
    nx.write("b.txt", "x\n");
    let out = nx.ok(
        "apply_patch",
        json!({"patch": "diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n 1\n-2\n+two\n 3\ndiff --git a/b.txt b/b.txt\n--- a/b.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n--- /dev/null\n+++ b/c.txt\n@@ -0,0 +1 @@\n+c\n"}),
    );
    assert!(out.starts_with("applied: 3 files"), "{out}");
    assert_eq!(nx.text("a.txt"), "1\ntwo\n3\n");
    assert!(!nx.exists("b.txt"));
    assert_eq!(nx.text("c.txt"), "c\n");
}

#[test]
fn a_dry_run_shows_every_diff_and_writes_nothing() {
    let nx = Nx::new();
    nx.write("a.txt", "1\n");
    let out = nx.ok(
        "apply_patch",
        json!({"dry_run": true, "patch": "*** Begin Patch\n*** Update File: a.txt\n@@\n-1\n+one\n*** Add File: b.txt\n+b\n*** End Patch\n"}),
    );
    assert!(
        out.starts_with("dry run: 2 files would change; nothing written"),
        "{out}"
    );
    assert!(out.contains("-1\n+one"), "{out}");
    assert_eq!(nx.text("a.txt"), "1\n");
    assert!(!nx.exists("b.txt"));
}

#[test]
fn a_patch_naming_a_file_twice_or_adding_an_existing_file_is_refused_whole() {
    let nx = Nx::new();
    nx.write("a.txt", "1\n");
    let err = nx.err(
        "apply_patch",
        json!({"patch": "*** Begin Patch\n*** Add File: b.txt\n+b\n*** Add File: a.txt\n+a\n*** End Patch\n"}),
    );
    assert!(err.starts_with("already-exists:"), "{err}");
    assert!(!nx.exists("b.txt"));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// A patch that fails anywhere leaves every file untouched: updates of `n` files of which
    /// the one at `bad` cannot apply.
    #[test]
    fn a_patch_that_fails_anywhere_leaves_every_file_untouched(n in 1usize..6, bad in 0usize..6, add in any::<bool>()) {
        let nx = Nx::new();
        let mut patch = String::from("*** Begin Patch\n");
        for i in 0..n {
            nx.write(&format!("f{i}.txt"), format!("line {i}\n"));
            let old = if i == bad { "no such line" } else { "line" };
            patch.push_str(&format!("*** Update File: f{i}.txt\n@@\n-{old} {i}\n+changed {i}\n"));
        }
        if add {
            patch.push_str("*** Add File: added.txt\n+new\n");
        }
        patch.push_str("*** End Patch\n");
        let out = nx.call("apply_patch", json!({"patch": patch}));
        if bad < n {
            prop_assert!(out.is_error, "{}", out.text_content());
            for i in 0..n {
                prop_assert_eq!(nx.text(&format!("f{i}.txt")), format!("line {i}\n"));
            }
            prop_assert!(!nx.exists("added.txt"));
        } else {
            prop_assert!(!out.is_error, "{}", out.text_content());
            for i in 0..n {
                prop_assert_eq!(nx.text(&format!("f{i}.txt")), format!("changed {i}\n"));
            }
        }
    }
}

#[test]
fn a_v4a_hunk_quoted_at_another_indentation_is_placed_and_its_added_lines_reindented() {
    let nx = Nx::new();
    nx.write(
        "src/a.py",
        "class A:\n    def f(self):\n        if x:\n            return 1\n        return 2\n",
    );
    // The model quotes the method body flush left; the file has it two levels deep.
    let out = nx.ok(
        "apply_patch",
        json!({"patch": "*** Begin Patch\n*** Update File: src/a.py\n@@\n if x:\n-    return 1\n+    log(x)\n+    return 3\n return 2\n*** End Patch\n"}),
    );
    assert!(
        out.contains("(1 hunk at 3 [indentation (re-indented)])"),
        "{out}"
    );
    assert_eq!(
        nx.text("src/a.py"),
        "class A:\n    def f(self):\n        if x:\n            log(x)\n            return 3\n        return 2\n"
    );
}

#[test]
fn a_unified_hunk_with_straight_quotes_is_placed_on_curly_ones_and_says_so() {
    let nx = Nx::new();
    nx.write("notes.md", "intro\nit’s “done” — really\nend\n");
    let out = nx.ok(
        "apply_patch",
        json!({"patch": "--- a/notes.md\n+++ b/notes.md\n@@ -1,3 +1,3 @@\n intro\n-it's \"done\" - really\n+it is finished\n end\n"}),
    );
    assert!(
        out.contains("1 hunk at 1 [punctuation normalised]"),
        "{out}"
    );
    assert_eq!(nx.text("notes.md"), "intro\nit is finished\nend\n");
}

#[test]
fn a_hunk_found_twice_at_a_loose_level_is_refused_listing_both_and_writes_nothing() {
    let nx = Nx::new();
    let text = "fn a() {\n    x();\n}\nfn b() {\n\tx();\n}\n";
    nx.write("a.rs", text);
    nx.write("b.rs", "keep\n");
    let err = nx.err(
        "apply_patch",
        json!({"patch": "*** Begin Patch\n*** Update File: b.rs\n@@\n-keep\n+changed\n*** Update File: a.rs\n@@\n-  x();\n+  y();\n*** End Patch\n"}),
    );
    assert!(err.starts_with("not-unique:"), "{err}");
    assert!(
        err.contains("matches 2 places in the file (ignoring indentation), starting at lines 2, 5"),
        "{err}"
    );
    assert_eq!(nx.text("a.rs"), text);
    assert_eq!(nx.text("b.rs"), "keep\n");
}

#[test]
fn an_exact_hunk_wins_over_a_looser_one_elsewhere() {
    let nx = Nx::new();
    // Line 2 holds the quote only ignoring indentation; line 4 holds it exactly.
    nx.write("a.txt", "x\n    go\nx\ngo\n");
    let out = nx.ok(
        "apply_patch",
        json!({"patch": "*** Begin Patch\n*** Update File: a.txt\n@@\n-go\n+stop\n*** End Patch\n"}),
    );
    assert!(out.contains("(1 hunk at 4)"), "{out}");
    assert_eq!(nx.text("a.txt"), "x\n    go\nx\nstop\n");
}
