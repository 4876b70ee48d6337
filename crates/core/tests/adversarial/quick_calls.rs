//! Which calls a transport may run without handing them to a blocking thread: only a read,
//! write or edit of one small existing file. Everything that may run long is not quick, and a
//! quick call gives the same answer as the ordinary path.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::disallowed_methods,
    clippy::disallowed_types
)]

use fsgate_core::{CallContext, Options, Profile, Workspace};
use serde_json::{Value, json};

fn workspace(profile: Profile) -> (tempfile::TempDir, Workspace) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("small.txt"), "one\ntwo\nthree\n").unwrap();
    let big = "x".repeat(1023) + "\n";
    let size = usize::try_from(Workspace::QUICK_FILE_BYTES).unwrap() / big.len() + 1;
    std::fs::write(dir.path().join("big.txt"), big.repeat(size)).unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    let mut options = Options::new(dir.path());
    options.profile = profile.into();
    let ws = Workspace::open(options).unwrap();
    (dir, ws)
}

fn quick(ws: &Workspace, name: &str, args: &Value) -> bool {
    ws.is_quick(name, args)
}

#[test]
fn gg_reads_writes_and_edits_of_a_small_file_are_quick() {
    let (_dir, ws) = workspace(Profile::Gg);
    assert!(quick(&ws, "read_file", &json!({"path": "small.txt"})));
    assert!(quick(
        &ws,
        "read_file",
        &json!({"path": "small.txt", "offset": 2, "limit": 1})
    ));
    let edit = json!({"path": "small.txt", "old_string": "two", "new_string": "2"});
    assert!(quick(&ws, "edit_file", &edit));
    assert!(quick(
        &ws,
        "write_file",
        &json!({"path": "small.txt", "content": "new\n"})
    ));
}

#[test]
fn anything_that_may_run_long_is_not_quick() {
    let (dir, ws) = workspace(Profile::Gg);
    // A file over the bound, a folder, a missing file, a path outside the workspace.
    assert!(!quick(&ws, "read_file", &json!({"path": "big.txt"})));
    assert!(!quick(&ws, "read_file", &json!({"path": "sub"})));
    assert!(!quick(&ws, "read_file", &json!({"path": "missing.txt"})));
    assert!(!quick(&ws, "read_file", &json!({"path": "../outside.txt"})));
    // Walks and searches, whatever their arguments.
    assert!(!quick(&ws, "search", &json!({"query": "two"})));
    assert!(!quick(&ws, "list_dir", &json!({"path": "small.txt"})));
    assert!(!quick(&ws, "tree", &json!({})));
    // A path that is not a string, or no path at all.
    assert!(!quick(&ws, "read_file", &json!({"path": 7})));
    assert!(!quick(&ws, "read_file", &json!({})));
    // A large write, even to a small file.
    let content = "y".repeat(Workspace::QUICK_ARGUMENT_BYTES + 1);
    assert!(!quick(
        &ws,
        "write_file",
        &json!({"path": "small.txt", "content": content})
    ));
    // An unknown tool.
    assert!(!quick(&ws, "nope", &json!({"path": "small.txt"})));
    // An image, however small: attaching it may scale it down. Recognised by its bytes.
    std::fs::write(
        dir.path().join("notes.txt"),
        b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR",
    )
    .unwrap();
    assert!(!quick(&ws, "read_file", &json!({"path": "notes.txt"})));
    std::fs::write(dir.path().join("short.txt"), b"GIF").unwrap();
    assert!(quick(&ws, "read_file", &json!({"path": "short.txt"})));
    drop(dir);
}

#[test]
fn a_symlink_to_a_small_file_is_quick_and_to_a_folder_is_not() {
    let (dir, ws) = workspace(Profile::Gg);
    std::os::unix::fs::symlink("small.txt", dir.path().join("link.txt")).unwrap();
    std::os::unix::fs::symlink("sub", dir.path().join("link-dir")).unwrap();
    assert!(quick(&ws, "read_file", &json!({"path": "link.txt"})));
    assert!(!quick(&ws, "read_file", &json!({"path": "link-dir"})));
}

#[test]
fn each_profile_names_its_own_file_argument() {
    let (dir, ws) = workspace(Profile::Qwen);
    let abs = dir.path().join("small.txt").display().to_string();
    assert!(quick(&ws, "read_file", &json!({"path": abs})));
    assert!(quick(
        &ws,
        "edit",
        &json!({"file_path": abs, "old_string": "two", "new_string": "2"})
    ));
    assert!(!quick(
        &ws,
        "edit",
        &json!({"path": abs, "old_string": "two", "new_string": "2"})
    ));
    assert!(!quick(&ws, "glob", &json!({"pattern": "*.txt"})));
    assert!(!quick(&ws, "grep_search", &json!({"pattern": "two"})));

    let (_dir, ws) = workspace(Profile::Picoclaw);
    assert!(quick(&ws, "read_file", &json!({"path": "small.txt"})));
    assert!(quick(
        &ws,
        "append_file",
        &json!({"path": "small.txt", "content": "four\n"})
    ));
    assert!(!quick(&ws, "search_files", &json!({"pattern": "two"})));
    assert!(!quick(&ws, "list_dir", &json!({"path": "."})));

    let (_dir, ws) = workspace(Profile::Sgpt);
    assert!(quick(
        &ws,
        "replace",
        &json!({"path": "small.txt", "patches": []})
    ));
    assert!(!quick(&ws, "exec_shell", &json!({"command": "true"})));
    assert!(!quick(&ws, "read_files", &json!({"paths": ["small.txt"]})));

    // Coder calls are batches: none is quick.
    let (_dir, ws) = workspace(Profile::Coder);
    assert!(!quick(&ws, "read-file", &json!({"path": "small.txt"})));
}

#[test]
fn a_quick_call_answers_as_the_ordinary_path_does() {
    let (dir, ws) = workspace(Profile::Gg);
    let ctx = CallContext::default();
    let read = json!({"path": "small.txt", "offset": 2, "limit": 1});
    let inline = ws
        .call_if_quick("read_file", read.clone(), &ctx)
        .unwrap()
        .unwrap();
    let ordinary = ws.call_with("read_file", read, &ctx).unwrap();
    assert_eq!(inline, ordinary);

    let edit = json!({"path": "small.txt", "old_string": "two", "new_string": "2"});
    let out = ws.call_if_quick("edit_file", edit, &ctx).unwrap().unwrap();
    assert!(!out.is_error, "{}", out.text_content());
    let text = std::fs::read_to_string(dir.path().join("small.txt")).unwrap();
    assert_eq!(text, "one\n2\nthree\n");

    // A failing quick call is still an answer (here: the text is gone now).
    let edit = json!({"path": "small.txt", "old_string": "two", "new_string": "2"});
    let out = ws.call_if_quick("edit_file", edit, &ctx).unwrap().unwrap();
    assert!(out.is_error);
}

#[test]
fn a_call_that_is_not_quick_gets_its_arguments_back_untouched() {
    let (_dir, ws) = workspace(Profile::Gg);
    let ctx = CallContext::default();
    let search = json!({"query": "two"});
    let back = ws
        .call_if_quick("search", search.clone(), &ctx)
        .unwrap_err();
    assert_eq!(back, search);
    let big = json!({"path": "big.txt"});
    assert_eq!(
        ws.call_if_quick("read_file", big.clone(), &ctx)
            .unwrap_err(),
        big
    );
}

#[test]
fn a_quick_write_to_a_file_another_writer_holds_is_handed_back_not_waited_for() {
    // Where requests are read, waiting for another writer would stall the whole session: the
    // call comes back untouched (for the blocking pool, which waits) and nothing is written.
    let (dir, ws) = workspace(Profile::Gg);
    let ctx = CallContext::default();
    let path = dir.path().join("small.txt");
    let other = std::fs::File::open(&path).unwrap();
    rustix::fs::flock(&other, rustix::fs::FlockOperation::LockExclusive).unwrap();
    let write = json!({"path": "small.txt", "content": "new\n"});
    let started = std::time::Instant::now();
    let back = ws
        .call_if_quick("write_file", write.clone(), &ctx)
        .unwrap_err();
    assert_eq!(back, write);
    assert!(
        started.elapsed() < std::time::Duration::from_secs(5),
        "waited {:?} for the other writer",
        started.elapsed()
    );
    let edit = json!({"path": "small.txt", "old_string": "two", "new_string": "2"});
    assert_eq!(
        ws.call_if_quick("edit_file", edit.clone(), &ctx)
            .unwrap_err(),
        edit
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "one\ntwo\nthree\n");
    // The ordinary path waits for the lock and then writes.
    let release = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(200));
        drop(other);
    });
    let out = ws.call_with("edit_file", edit, &ctx).unwrap();
    assert!(!out.is_error, "{}", out.text_content());
    release.join().unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "one\n2\nthree\n");
    // With the lock free again, a quick call answers inline.
    let out = ws
        .call_if_quick("write_file", write, &ctx)
        .unwrap()
        .unwrap();
    assert!(!out.is_error, "{}", out.text_content());
}
