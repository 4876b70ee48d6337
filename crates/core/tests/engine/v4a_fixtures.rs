#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_methods)]

//! V4A patches through picoclaw's edit_file, as fixture folders under `tests/fixtures/v4a/`:
//! `input/` (the workspace before), `patch.txt` (the patch), `path.txt` (the `path` argument;
//! by default the one file of `input/`), and either `expected/` (the whole workspace after,
//! compared byte for byte) or `error.txt` (the start of the error text; the workspace must be
//! left exactly as `input/`).

use crate::picoclaw_support;

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use picoclaw_support::Pico;
use serde_json::json;

fn fixture_dirs() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/v4a");
    let mut dirs: Vec<PathBuf> = fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs
}

/// Every file under `root`, by relative path (the spill directory left out).
fn tree(root: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let rel = path
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            if rel.starts_with(".picoclaw") {
                continue;
            }
            if path.is_dir() {
                stack.push(path);
            } else {
                out.insert(rel, fs::read(&path).unwrap());
            }
        }
    }
    out
}

fn copy_tree(from: &Path, to: &Path) {
    for (rel, bytes) in tree(from) {
        let dest = to.join(rel);
        fs::create_dir_all(dest.parent().unwrap()).unwrap();
        fs::write(dest, bytes).unwrap();
    }
}

fn show(t: &BTreeMap<String, Vec<u8>>) -> String {
    t.iter()
        .map(|(k, v)| format!("{k}: {:?}", String::from_utf8_lossy(v)))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn every_v4a_fixture_gives_its_expected_tree_or_error() {
    let dirs = fixture_dirs();
    assert!(dirs.len() >= 30, "only {} fixtures", dirs.len());
    let mut failures = Vec::new();
    for dir in &dirs {
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let pico = Pico::new();
        let input = dir.join("input");
        copy_tree(&input, pico.dir.path());
        let before = tree(pico.dir.path());
        let path = match fs::read_to_string(dir.join("path.txt")) {
            Ok(p) => p.trim().to_string(),
            Err(_) => {
                assert_eq!(before.len(), 1, "{name}: name the file in path.txt");
                before.keys().next().unwrap().clone()
            }
        };
        let patch = fs::read_to_string(dir.join("patch.txt")).unwrap();
        let out = pico.call("edit_file", json!({"path": path, "patch": patch}));
        let text = out.text_content();
        let after = tree(pico.dir.path());
        let expected_dir = dir.join("expected");
        if expected_dir.is_dir() {
            let want = tree(&expected_dir);
            if out.is_error {
                failures.push(format!("{name}: expected success, got\n{text}"));
            } else if after != want {
                failures.push(format!(
                    "{name}: tree differs\n--- expected\n{}\n--- actual\n{}",
                    show(&want),
                    show(&after)
                ));
            } else if !text.starts_with(&format!("File edited: {path}")) {
                failures.push(format!("{name}: unexpected result text\n{text}"));
            }
        } else {
            let want = fs::read_to_string(dir.join("error.txt")).unwrap();
            let want = want.trim_end_matches('\n');
            if !out.is_error || !text.starts_with(want) {
                failures.push(format!(
                    "{name}: expected an error starting with\n{want}\n--- got (is_error: {})\n{text}",
                    out.is_error
                ));
            }
            if after != before {
                failures.push(format!("{name}: a refused patch changed the workspace"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn the_diff_of_a_patch_names_a_and_b_paths_and_three_context_lines() {
    let pico = Pico::new();
    let text: String = (1..=12).map(|i| format!("l{i}\n")).collect();
    pico.write("f.txt", &text);
    let out = pico.ok(
        "edit_file",
        json!({"path": "f.txt", "patch": "@@\n l5\n-l6\n+six\n l7\n"}),
    );
    assert_eq!(
        out,
        "File edited: f.txt (applied 1 hunk).\n--- a/f.txt\n+++ b/f.txt\n@@ -3,7 +3,7 @@\n l3\n l4\n l5\n-l6\n+six\n l7\n l8\n l9\n"
    );
}
