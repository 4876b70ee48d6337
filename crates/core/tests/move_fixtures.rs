//! coder's move specified by fixture folders: `tests/fixtures/move/NNN_behaviour/` holds the
//! roots before (`root/`, optional `root2/`), the request (`call.json`), and the roots after and
//! the response (`expected/`), compared as whole trees. `$ROOT` and `$ROOT2` stand for the
//! canonical roots; error messages are checked for presence, codes for equality. `.gitkeep` files
//! only keep empty folders in git and are not part of a tree.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_methods)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use fsgate_core::{CoderConfig, Options, Workspace};
use serde_json::Value;

/// A tree as relative path → contents (`None` for a folder).
fn snapshot(root: &Path) -> BTreeMap<PathBuf, Option<Vec<u8>>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.file_name().is_some_and(|n| n == ".gitkeep") {
                continue;
            }
            let rel = path.strip_prefix(root).unwrap().to_path_buf();
            if path.is_dir() {
                out.insert(rel, None);
                stack.push(path);
            } else {
                out.insert(rel, Some(std::fs::read(&path).unwrap()));
            }
        }
    }
    out
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let target = to.join(path.file_name().unwrap());
        if path.is_dir() {
            copy_tree(&path, &target);
        } else {
            std::fs::copy(&path, &target).unwrap();
        }
    }
}

/// The response with error messages checked and dropped, so codes and paths compare exactly.
fn without_messages(mut response: Value) -> Value {
    for result in response["results"].as_array_mut().unwrap() {
        if let Some(error) = result.get_mut("error").and_then(Value::as_object_mut) {
            let message = error.remove("message").unwrap();
            assert!(
                message.as_str().is_some_and(|m| m.len() > 20),
                "an error without a useful message: {message}"
            );
        }
    }
    response
}

fn run(case: &Path) {
    let scratch = tempfile::tempdir().unwrap();
    let root = scratch.path().join("root");
    let root2 = scratch.path().join("root2");
    copy_tree(&case.join("root"), &root);
    if case.join("root2").is_dir() {
        copy_tree(&case.join("root2"), &root2);
    } else {
        std::fs::create_dir(&root2).unwrap();
    }
    let (root, root2) = (root.canonicalize().unwrap(), root2.canonicalize().unwrap());
    let placeholders = |text: &str| {
        text.replace("$ROOT2", root2.to_str().unwrap())
            .replace("$ROOT", root.to_str().unwrap())
    };
    let ws = Workspace::open(Options {
        roots: vec![root.clone(), root2.clone()],
        profile: CoderConfig {
            non_accessible_globs: vec!["**/.env".into()],
            ..CoderConfig::default()
        }
        .into(),
        ..Options::new(&root)
    })
    .unwrap();
    let call: Value = serde_json::from_str(&placeholders(
        &std::fs::read_to_string(case.join("call.json")).unwrap(),
    ))
    .unwrap();
    let out = ws.call("move", call).unwrap();
    assert!(!out.is_error, "{}: {:?}", case.display(), out.content);
    let expected: Value = serde_json::from_str(&placeholders(
        &std::fs::read_to_string(case.join("expected/response.json")).unwrap(),
    ))
    .unwrap();
    assert_eq!(
        without_messages(out.structured.unwrap()),
        expected,
        "{}: response",
        case.display()
    );
    assert_eq!(
        snapshot(&root),
        snapshot(&case.join("expected/root")),
        "{}: root",
        case.display()
    );
    let expected2 = case.join("expected/root2");
    let expected2 = if expected2.is_dir() {
        snapshot(&expected2)
    } else {
        BTreeMap::new()
    };
    assert_eq!(snapshot(&root2), expected2, "{}: root2", case.display());
}

#[test]
fn every_move_fixture_gives_its_expected_trees_and_response() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/move");
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    cases.sort();
    assert!(cases.len() >= 14, "fixtures missing: {}", cases.len());
    for case in &cases {
        run(case);
    }
}
