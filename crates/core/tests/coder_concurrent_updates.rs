//! Concurrent coder update-file calls (issue 17, item 3): a batch entry whose write lost a clean
//! conflict to another writer is redone from a fresh read, as gg's and qwen's edits are, so two
//! or four sessions editing one file through update-file lose nothing and report no conflict
//! under normal load; every entry reported done is in the file.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_methods)]

use std::sync::Arc;

use fsgate_core::config::coder::CoderConfig;
use fsgate_core::{Options, Workspace};
use serde_json::{Value, json};

fn session(dir: &std::path::Path) -> Workspace {
    Workspace::open(Options {
        roots: vec![dir.to_path_buf()],
        profile: CoderConfig {
            base_paths: vec![dir.to_path_buf()],
            ..CoderConfig::default()
        }
        .into(),
        ..Options::new(dir)
    })
    .unwrap()
}

/// `sessions` sessions, one thread each, making `each` edits of the shared file `shared.txt`
/// (one regex replace per call, with `expect_matches: 1`) and, in the same calls, of a private
/// file of their own. Returns the entries that failed, with their messages.
fn edit_concurrently(sessions: usize, each: usize) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let shared: String = (0..sessions * each)
        .map(|i| format!("line {i} old\n"))
        .collect();
    std::fs::write(dir.path().join("shared.txt"), &shared).unwrap();
    for s in 0..sessions {
        let private: String = (0..each).map(|i| format!("mine {i} old\n")).collect();
        std::fs::write(dir.path().join(format!("private{s}.txt")), private).unwrap();
    }
    let threads: Vec<_> = (0..sessions)
        .map(|s| {
            let ws = Arc::new(session(dir.path()));
            std::thread::spawn(move || {
                let mut failed = Vec::new();
                for e in 0..each {
                    let i = s * each + e;
                    let args = json!({"files": [
                        {"path": "shared.txt", "ops": [{"op": "replace",
                            "pattern": format!("(?m)^line {i} old$"),
                            "replacement": format!("line {i} new"), "expect_matches": 1}]},
                        {"path": format!("private{s}.txt"), "ops": [{"op": "replace",
                            "pattern": format!("(?m)^mine {e} old$"),
                            "replacement": format!("mine {e} new"), "expect_matches": 1}]}
                    ]});
                    let out = ws.call("update-file", args).unwrap();
                    assert!(!out.is_error, "{}", out.text_content());
                    let results = out.structured.unwrap()["results"].clone();
                    for result in results.as_array().unwrap() {
                        if result["success"] != Value::Bool(true) {
                            failed.push(result["error"].to_string());
                        }
                    }
                }
                failed
            })
        })
        .collect();
    let failed: Vec<String> = threads
        .into_iter()
        .flat_map(|t| t.join().unwrap())
        .collect();
    let after = std::fs::read_to_string(dir.path().join("shared.txt")).unwrap();
    for i in 0..sessions * each {
        assert!(
            after.contains(&format!("line {i} new\n")) || !failed.is_empty(),
            "edit {i} was reported done but is not in the file"
        );
    }
    for s in 0..sessions {
        let private = std::fs::read_to_string(dir.path().join(format!("private{s}.txt"))).unwrap();
        assert!(!private.contains(" old"), "{private}");
    }
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.ends_with(".txt"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    failed
}

#[test]
fn two_sessions_editing_one_file_through_update_file_lose_nothing_and_see_no_conflict() {
    let failed = edit_concurrently(2, 40);
    assert!(failed.is_empty(), "{failed:?}");
}

#[test]
fn four_sessions_editing_one_file_through_update_file_lose_nothing_and_see_no_conflict() {
    let failed = edit_concurrently(4, 25);
    assert!(failed.is_empty(), "{failed:?}");
}
