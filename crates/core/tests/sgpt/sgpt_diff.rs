#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_methods)]

//! The sgpt `diff` tool, end to end through a workspace: fixture folders, and the property that
//! a diff `similar` makes from A to B, with its line numbers kept, scrambled or dropped, turns
//! A into B.
//!
//! Each folder under `tests/fixtures/sgpt/diff/` holds `patch.diff`, optionally `input.txt` (the
//! file before; absent: the file does not exist), `call.json` (`{"path": ...}`, default
//! `file.txt`) and `files/` (more files of the workspace), and either `expected.txt` (the file
//! after) or `expected_error.txt` (the whole error text; the file must be unchanged). Folders
//! named `*_real_*` hold diffs made by `diff -u` or `git diff`, their line numbers scrambled
//! where the name says so. The engine's own fixtures (`tests/fixtures/unified/`) run through
//! the tool too, each on the path its headers name.
//!
//! `UPDATE_FIXTURES=1 cargo test --test sgpt sgpt_diff` rewrites the sgpt folders' expected errors.

use crate::sgpt_support;

use std::fs;
use std::path::{Path, PathBuf};

use fsgate_core::ops::patch::unified;
use proptest::prelude::*;
use serde_json::{Value, json};
use sgpt_support::Sx;

fn dirs(under: &str) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(under);
    let mut dirs: Vec<PathBuf> = fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs
}

/// The path a fixture edits: `call.json`'s, else the last name the headers give, else
/// `file.txt`.
fn fixture_path(dir: &Path, diff: &str) -> String {
    if let Ok(text) = fs::read_to_string(dir.join("call.json")) {
        let call: Value = serde_json::from_str(&text).unwrap();
        return call["path"].as_str().unwrap().to_string();
    }
    unified::parse(diff)
        .ok()
        .and_then(|d| d.named_paths().last().map(|p| p.to_string()))
        .unwrap_or_else(|| "file.txt".to_string())
}

fn copy_tree(from: &Path, to: &Path) {
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            fs::create_dir_all(&target).unwrap();
            copy_tree(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// Runs one fixture folder; the failure, if any.
fn run_fixture(dir: &Path, update: bool) -> Option<String> {
    let name = dir.file_name().unwrap().to_string_lossy().into_owned();
    let diff = String::from_utf8(fs::read(dir.join("patch.diff")).unwrap()).unwrap();
    let path = fixture_path(dir, &diff);
    let sx = Sx::new();
    let input = fs::read(dir.join("input.txt")).ok();
    if let Some(input) = &input {
        sx.write(&path, input);
    }
    if dir.join("files").is_dir() {
        copy_tree(&dir.join("files"), sx.dir.path());
    }
    let out = sx.call("diff", json!({"path": path, "diff": diff}));
    let after = fs::read(sx.path(&path)).ok();
    let expected_ok = dir.join("expected.txt");
    let expected_err = dir.join("expected_error.txt");
    if out.is_error {
        let text = out.text_content();
        if update && expected_err.exists() {
            fs::write(&expected_err, format!("{text}\n")).unwrap();
        }
        let Ok(want) = fs::read_to_string(&expected_err) else {
            return Some(format!("{name}: expected success, got\n{text}"));
        };
        if text != want.strip_suffix('\n').unwrap_or(&want) {
            return Some(format!(
                "{name}: error differs\n--- expected\n{want}\n--- actual\n{text}"
            ));
        }
        if after != input {
            return Some(format!("{name}: a failed diff changed the file"));
        }
        return None;
    }
    let Ok(want) = fs::read(&expected_ok) else {
        return Some(format!(
            "{name}: expected an error, got success: {}",
            out.text_content()
        ));
    };
    let got = after.unwrap_or_default();
    if got != want {
        return Some(format!(
            "{name}: file differs\n--- expected\n{}\n--- actual\n{}",
            String::from_utf8_lossy(&want).escape_debug(),
            String::from_utf8_lossy(&got).escape_debug()
        ));
    }
    let result = out.structured.unwrap();
    let hunks = unified::parse(&diff).unwrap().hunks.len();
    if result["path"] != json!(path) || result["hunks_applied"] != json!(hunks) {
        return Some(format!("{name}: result {result}"));
    }
    let rendered = result["diff"].as_str().unwrap();
    let expected_render = unified::render(&path, input.as_deref().unwrap_or(b""), &want);
    if rendered != expected_render {
        return Some(format!("{name}: the result's diff is not the change made"));
    }
    None
}

#[test]
fn every_sgpt_diff_fixture_gives_its_expected_file_or_error() {
    let update = std::env::var_os("UPDATE_FIXTURES").is_some();
    let dirs = dirs("tests/fixtures/sgpt/diff");
    assert!(dirs.len() >= 15, "only {} fixtures", dirs.len());
    let failures: Vec<String> = dirs.iter().filter_map(|d| run_fixture(d, update)).collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn the_engines_unified_fixtures_give_the_same_results_through_the_tool() {
    let dirs = dirs("tests/fixtures/unified");
    assert!(dirs.len() >= 15);
    let failures: Vec<String> = dirs.iter().filter_map(|d| run_fixture(d, false)).collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn a_header_naming_another_existing_file_is_refused_and_names_it() {
    let sx = Sx::new();
    sx.write("main.py", "x = 1\n");
    sx.write("lib/other.py", "x = 1\n");
    let text = sx.err(
        "diff",
        json!({"path": "main.py", "diff": "--- a/lib/other.py\n+++ b/lib/other.py\n@@\n-x = 1\n+x = 2\n"}),
    );
    assert!(text.starts_with("invalid-argument: "), "{text}");
    assert!(text.contains("path: \"lib/other.py\""), "{text}");
    assert_eq!(sx.text("main.py"), "x = 1\n");
    assert_eq!(sx.text("lib/other.py"), "x = 1\n");
}

#[test]
fn headers_naming_the_file_in_any_form_are_accepted() {
    for header in ["a/src/x.rs", "src/x.rs", "x.rs", "./src/x.rs"] {
        let sx = Sx::new();
        sx.write("src/x.rs", "a\n");
        sx.write("x.rs", "other\n");
        let absolute = sx.path("src/x.rs").display().to_string();
        for name in [header.to_string(), absolute] {
            let new = name.replacen("a/", "b/", 1);
            let diff = format!("--- {name}\n+++ {new}\n@@\n-a\n+b\n");
            sx.write("src/x.rs", "a\n");
            let result = sx.ok("diff", json!({"path": "src/x.rs", "diff": diff}));
            assert!(result.get("note").is_none(), "{name}: {result}");
            assert_eq!(sx.text("src/x.rs"), "b\n", "{name}");
        }
    }
}

#[test]
fn the_result_gives_path_hunks_and_the_resulting_diff() {
    let sx = Sx::new();
    sx.write("f.txt", "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n");
    let result = sx.ok(
        "diff",
        json!({"path": "f.txt", "diff": "@@ -1,2 +1,2 @@\n a\n-b\n+B\n@@ -50 +50 @@\n-i\n+I\n j\n"}),
    );
    assert_eq!(
        result,
        json!({
            "path": "f.txt",
            "hunks_applied": 2,
            "diff": "--- f.txt\n+++ f.txt\n@@ -1,10 +1,10 @@\n a\n-b\n+B\n c\n d\n e\n f\n g\n h\n-i\n+I\n j\n",
        })
    );
}

#[test]
fn a_path_outside_the_workspace_is_refused() {
    let sx = Sx::new();
    let text = sx.err(
        "diff",
        json!({"path": "/etc/hostname", "diff": "@@\n-a\n+b\n"}),
    );
    assert!(text.starts_with("outside-root: "), "{text}");
    let text = sx.err("diff", json!({"path": "../x.txt", "diff": "@@\n-a\n+b\n"}));
    assert!(text.starts_with("outside-root: "), "{text}");
}

#[test]
fn bad_arguments_are_refused_by_name() {
    let sx = Sx::new();
    let text = sx.err("diff", json!({"path": "f", "patch": "@@"}));
    assert!(text.contains("diff has no argument patch"), "{text}");
    let text = sx.err("diff", json!({"path": "f"}));
    assert!(text.contains("diff needs diff"), "{text}");
}

#[test]
fn file_mode_is_kept() {
    use std::os::unix::fs::PermissionsExt;
    let sx = Sx::new();
    sx.write("run.sh", "#!/bin/sh\necho a\n");
    fs::set_permissions(sx.path("run.sh"), fs::Permissions::from_mode(0o755)).unwrap();
    sx.ok(
        "diff",
        json!({"path": "run.sh", "diff": "@@\n #!/bin/sh\n-echo a\n+echo b\n"}),
    );
    let mode = fs::metadata(sx.path("run.sh"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o755);
}

// ---------------------------------------------------------------------------------------------
// The property: a diff similar makes from A to B applies through the tool and gives B.

/// Old lines, all distinct (so every hunk anchors once), and one op per line.
fn pair() -> impl Strategy<Value = (Vec<String>, Vec<u8>)> {
    (1usize..40).prop_flat_map(|n| {
        (
            proptest::collection::vec("[a-z]{1,8}( [a-z]{1,8}){0,3}", n).prop_map(|words| {
                words
                    .into_iter()
                    .enumerate()
                    .map(|(i, w)| format!("{i}: {w}"))
                    .collect::<Vec<_>>()
            }),
            proptest::collection::vec(0u8..10, n),
        )
    })
}

fn edited(old: &[String], ops: &[u8]) -> Vec<String> {
    let mut new = Vec::new();
    for (i, line) in old.iter().enumerate() {
        match ops[i] {
            0 => {}
            1 => new.push(format!("{line} changed")),
            2 => {
                new.push(line.clone());
                new.push(format!("new after {i}"));
            }
            _ => new.push(line.clone()),
        }
    }
    new
}

/// The numbers of every @@ line rewritten (`scramble`) or dropped.
fn renumber(diff: &str, how: u8) -> String {
    diff.lines()
        .map(|l| {
            if l.starts_with("@@") {
                match how {
                    0 => l.to_string(),
                    1 => "@@ -999,1 +3,42 @@".to_string(),
                    _ => "@@".to_string(),
                }
            } else {
                l.to_string()
            }
        })
        .map(|l| l + "\n")
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn a_similar_diff_from_a_to_b_applied_through_the_tool_gives_b(
        (old, ops) in pair(),
        final_newline in any::<bool>(),
        crlf in any::<bool>(),
        numbers in 0u8..3,
    ) {
        let new = edited(&old, &ops);
        let join = |lines: &[String], ending: &str| {
            let mut text = lines.iter().map(|l| format!("{l}{ending}")).collect::<String>();
            if !final_newline && !text.is_empty() {
                text.truncate(text.len() - ending.len());
            }
            text
        };
        let a = join(&old, "\n");
        let b = join(&new, "\n");
        prop_assume!(a != b);
        let diff = similar::TextDiff::from_lines(&a, &b)
            .unified_diff()
            .context_radius(3)
            .header("file.txt", "file.txt")
            .to_string();
        let diff = renumber(&diff, numbers);
        let sx = Sx::new();
        // The same diff applied to the CRLF version of A gives the CRLF version of B (when A
        // has a line ending to tell it is CRLF).
        let (file_a, file_b) = if crlf && join(&old, "\r\n").contains("\r\n") {
            (join(&old, "\r\n"), join(&new, "\r\n"))
        } else {
            (a.clone(), b.clone())
        };
        sx.write("file.txt", &file_a);
        let out = sx.call("diff", json!({"path": "file.txt", "diff": diff}));
        prop_assert!(!out.is_error, "{}\n{}", out.text_content(), diff);
        prop_assert_eq!(sx.text("file.txt"), file_b);
    }
}
