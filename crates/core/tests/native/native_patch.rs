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
