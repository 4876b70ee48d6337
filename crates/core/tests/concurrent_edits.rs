//! Concurrent edits of one file: every edit reported as done is in the final file, and an edit
//! made from content that changed meanwhile is refused by content, never written over it.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_methods)]

use std::sync::Arc;

use fsgate_core::access::fs::{Conflict, Place, WriteOptions, write_atomic};
use fsgate_core::{Options, Profile, Workspace};
use serde_json::json;

const WRITERS: usize = 6;
const EDITS_EACH: usize = 20;

fn lines() -> String {
    (0..WRITERS * EDITS_EACH)
        .map(|i| format!("line {i} old\n"))
        .collect()
}

/// Several workspaces (as several sessions or servers would be) editing the same file from
/// several threads: no lost update.
fn no_edit_is_lost(profile: Profile, tool: &'static str, args: fn(usize) -> serde_json::Value) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("f.txt"), lines()).unwrap();
    let workspaces: Vec<Arc<Workspace>> = (0..3)
        .map(|_| {
            let mut options = Options::new(dir.path());
            options.profile = profile.into();
            Arc::new(Workspace::open(options).unwrap())
        })
        .collect();
    let threads: Vec<_> = (0..WRITERS)
        .map(|w| {
            let ws = Arc::clone(&workspaces[w % workspaces.len()]);
            std::thread::spawn(move || {
                let mut done = Vec::new();
                for e in 0..EDITS_EACH {
                    let i = w * EDITS_EACH + e;
                    let out = ws.call(tool, args(i)).unwrap();
                    if out.is_error {
                        let text = out.text_content();
                        assert!(text.contains("changed on disk"), "edit {i} failed: {text}");
                    } else {
                        done.push(i);
                    }
                }
                done
            })
        })
        .collect();
    let done: Vec<usize> = threads
        .into_iter()
        .flat_map(|t| t.join().unwrap())
        .collect();
    let after = std::fs::read_to_string(dir.path().join("f.txt")).unwrap();
    for i in &done {
        assert!(
            after.contains(&format!("line {i} new\n")),
            "edit {i} was reported done but is not in the file"
        );
    }
    // Retried conflicts make every edit land in practice.
    assert_eq!(done.len(), WRITERS * EDITS_EACH, "{after}");
    assert_eq!(after.lines().count(), WRITERS * EDITS_EACH);
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|n| n != "f.txt")
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn gg_edits_from_many_sessions_are_all_kept() {
    no_edit_is_lost(
        Profile::Gg,
        "edit_file",
        |i| json!({"path": "f.txt", "old_string": format!("line {i} old\n"), "new_string": format!("line {i} new\n")}),
    );
}

#[test]
fn qwen_edits_from_many_sessions_are_all_kept() {
    no_edit_is_lost(
        Profile::Qwen,
        "edit",
        |i| json!({"file_path": "f.txt", "old_string": format!("line {i} old\n"), "new_string": format!("line {i} new\n")}),
    );
}

#[test]
fn sgpt_replaces_from_many_sessions_are_all_kept() {
    no_edit_is_lost(
        Profile::Sgpt,
        "replace",
        |i| json!({"path": "f.txt", "patches": [{"search": format!("line {i} old\n"), "replace": format!("line {i} new\n")}]}),
    );
}

#[test]
fn a_write_made_from_stale_content_is_refused_and_leaves_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f.txt");
    std::fs::write(&path, "theirs\n").unwrap();
    let err = write_atomic(
        Place::Ambient(&path),
        b"mine\n",
        WriteOptions::default().expecting(b"original\n"),
    )
    .unwrap_err();
    assert!(Conflict::is(&err), "{err}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "theirs\n");
    // Same length, different bytes: compared by content, not by size or time.
    std::fs::write(&path, "origina!\n").unwrap();
    let err = write_atomic(
        Place::Ambient(&path),
        b"mine\n",
        WriteOptions::default().expecting(b"original\n"),
    )
    .unwrap_err();
    assert!(Conflict::is(&err));
    // The same content rewritten (a new mtime) is no conflict.
    std::fs::write(&path, "original\n").unwrap();
    write_atomic(
        Place::Ambient(&path),
        b"mine\n",
        WriteOptions::default().expecting(b"original\n"),
    )
    .unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "mine\n");
    // A file removed meanwhile is a conflict too, and is not recreated.
    std::fs::remove_file(&path).unwrap();
    let err = write_atomic(
        Place::Ambient(&path),
        b"again\n",
        WriteOptions::default().expecting(b"mine\n"),
    )
    .unwrap_err();
    assert!(Conflict::is(&err));
    assert!(!path.exists());
}
