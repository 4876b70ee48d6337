//! apply_patch specified by scenario folders under `tests/fixtures/apply_patch/` (the layout is
//! described in that folder's README.md): each folder's `input/` is copied into a fresh
//! workspace, its `patch` is applied, and the whole tree afterwards must equal `expected/`; a
//! scenario with an `error` file must fail with that text in its error and leave every file as
//! it was.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Component, Path, PathBuf};

use serde_json::json;

use crate::support::Nx;

/// The placeholder standing for an empty folder in a fixture tree (git keeps no empty folders).
const EMPTY_FOLDER: &str = ".empty";

/// Scenarios whose expected outcome patch.rs does not give yet, each with the reason. They are
/// still run: a known failure that starts passing is reported, so the entry gets removed.
const KNOWN_FAILURES: &[&str] = &[
    // None now: a delete and an add (or a move onto it) of one path in one patch are refused,
    // and the refusal says to delete with a patch of its own first (116, 117).
];

/// One entry of a tree: a file's bytes, or a folder with nothing in it.
#[derive(Debug, PartialEq, Eq)]
enum Entry {
    File(Vec<u8>),
    EmptyFolder,
}

fn scenario_dirs() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/apply_patch");
    let mut dirs: Vec<PathBuf> = fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs
}

/// Every file and empty folder under `root`, by `/`-separated relative path. In a fixture tree
/// (`fixture`), a folder holding only the placeholder is an empty folder.
fn tree(root: &Path, fixture: bool) -> BTreeMap<String, Entry> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let entries: Vec<PathBuf> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        let only_placeholder = fixture
            && entries.len() == 1
            && entries[0].file_name().is_some_and(|n| n == EMPTY_FOLDER);
        if dir != root && (entries.is_empty() || only_placeholder) {
            out.insert(rel(root, &dir), Entry::EmptyFolder);
            continue;
        }
        for path in entries {
            let meta = path.symlink_metadata().unwrap();
            if meta.is_dir() {
                stack.push(path);
            } else {
                out.insert(rel(root, &path), Entry::File(fs::read(&path).unwrap()));
            }
        }
    }
    out
}

fn rel(root: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(root).unwrap();
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

fn copy_tree(from: &BTreeMap<String, Entry>, to: &Path) {
    for (rel, entry) in from {
        let dest = to.join(rel);
        match entry {
            Entry::EmptyFolder => fs::create_dir_all(dest).unwrap(),
            Entry::File(bytes) => {
                fs::create_dir_all(dest.parent().unwrap()).unwrap();
                fs::write(dest, bytes).unwrap();
            }
        }
    }
}

fn show(tree: &BTreeMap<String, Entry>) -> String {
    tree.iter()
        .map(|(k, v)| match v {
            Entry::File(b) => format!("  {k}: {:?}", String::from_utf8_lossy(b)),
            Entry::EmptyFolder => format!("  {k}/ (empty folder)"),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The paths the patch's directive lines name that lead out of `root` (lexically), made
/// absolute: a refused patch must not have created them.
fn outside_paths(root: &Path, patch: &str) -> Vec<PathBuf> {
    const DIRECTIVES: [&str; 4] = [
        "*** Add File:",
        "*** Delete File:",
        "*** Update File:",
        "*** Move to:",
    ];
    let mut out = Vec::new();
    for line in patch.lines() {
        let line = line.trim();
        let Some(path) = DIRECTIVES.iter().find_map(|d| line.strip_prefix(d)) else {
            continue;
        };
        let mut at = root.to_path_buf();
        for c in Path::new(path.trim()).components() {
            match c {
                Component::ParentDir => {
                    at.pop();
                }
                Component::Normal(n) => at.push(n),
                _ => {}
            }
        }
        if !at.starts_with(root) {
            out.push(at);
        }
    }
    out
}

/// The problem with one scenario's outcome, if any.
fn run(dir: &Path) -> Option<String> {
    let nx = Nx::new();
    let root = nx.dir.path();
    let input = tree(&dir.join("input"), true);
    copy_tree(&input, root);
    let patch = fs::read_to_string(dir.join("patch")).unwrap();
    let want = tree(&dir.join("expected"), true);
    let error = fs::read_to_string(dir.join("error")).ok();
    if error.is_some() && want != input {
        return Some("a failing scenario's expected/ must equal its input/".to_string());
    }
    let outside = outside_paths(root, &patch);
    if let Some(p) = outside.iter().find(|p| p.symlink_metadata().is_ok()) {
        return Some(format!("{} exists before the call", p.display()));
    }
    let out = nx.call("apply_patch", json!({ "patch": patch }));
    let text = out.text_content();
    let after = tree(root, false);
    let mut problems = Vec::new();
    match &error {
        None if out.is_error => problems.push(format!("expected success, got the error\n{text}")),
        Some(_) if !out.is_error => problems.push(format!("expected an error, got\n{text}")),
        Some(want) if !text.contains(want.trim_end_matches('\n')) => problems.push(format!(
            "the error lacks {:?}; it is\n{text}",
            want.trim_end_matches('\n')
        )),
        _ => {}
    }
    if after != want {
        problems.push(format!(
            "the tree differs\n--- expected\n{}\n--- actual\n{}",
            show(&want),
            show(&after)
        ));
    }
    for p in outside.iter().filter(|p| p.symlink_metadata().is_ok()) {
        problems.push(format!("the patch wrote {} outside the root", p.display()));
        let _ = fs::remove_file(p);
    }
    (!problems.is_empty()).then(|| problems.join("\n"))
}

#[test]
fn every_apply_patch_scenario_gives_its_expected_tree_or_error() {
    let dirs = scenario_dirs();
    assert!(dirs.len() >= 20, "only {} scenarios", dirs.len());
    let names: Vec<String> = dirs
        .iter()
        .map(|d| d.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    for known in KNOWN_FAILURES {
        assert!(names.iter().any(|n| n == known), "no scenario {known}");
    }
    let mut failures = Vec::new();
    for (dir, name) in dirs.iter().zip(&names) {
        let problem = run(dir);
        let known = KNOWN_FAILURES.contains(&name.as_str());
        match (problem, known) {
            (Some(p), false) => failures.push(format!("{name}: {p}")),
            (None, true) => {
                failures.push(format!("{name}: passes now; remove it from KNOWN_FAILURES"))
            }
            _ => {}
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} scenarios failed:\n\n{}",
        failures.len(),
        dirs.len(),
        failures.join("\n\n")
    );
}
