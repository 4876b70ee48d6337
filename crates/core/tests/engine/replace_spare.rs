//! Replacing a file again and again in one folder (where the unnamed file of the next write is
//! made ahead of time): every replacement keeps the file's mode, lands whole, and leaves no
//! other name in the folder.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_methods)]

use std::os::unix::fs::PermissionsExt;

use fsgate_core::{Options, Workspace};
use serde_json::json;

#[test]
fn repeated_edits_in_one_folder_keep_mode_and_content_and_leave_nothing_behind() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.sh");
    let b = dir.path().join("b.txt");
    std::fs::write(&a, "#!/bin/sh\necho 0\n").unwrap();
    std::fs::write(&b, "value 0\n").unwrap();
    std::fs::set_permissions(&a, std::fs::Permissions::from_mode(0o750)).unwrap();
    std::fs::set_permissions(&b, std::fs::Permissions::from_mode(0o604)).unwrap();
    let ws = Workspace::open(Options::new(dir.path())).unwrap();
    for i in 0..40 {
        let (old, new) = (format!("echo {i}\n"), format!("echo {}\n", i + 1));
        let out = ws
            .call(
                "edit_file",
                json!({"path": "a.sh", "old_string": old, "new_string": new}),
            )
            .unwrap();
        assert!(!out.is_error, "{}", out.text_content());
        let (old, new) = (format!("value {i}\n"), format!("value {}\n", i + 1));
        let out = ws
            .call(
                "edit_file",
                json!({"path": "b.txt", "old_string": old, "new_string": new}),
            )
            .unwrap();
        assert!(!out.is_error, "{}", out.text_content());
        if i % 8 == 0 {
            // Time for the next unnamed file to be made in the background.
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        let mode_a = std::fs::metadata(&a).unwrap().permissions().mode() & 0o7777;
        let mode_b = std::fs::metadata(&b).unwrap().permissions().mode() & 0o7777;
        assert_eq!((mode_a, mode_b), (0o750, 0o604), "after edit {i}");
    }
    assert_eq!(std::fs::read_to_string(&a).unwrap(), "#!/bin/sh\necho 40\n");
    assert_eq!(std::fs::read_to_string(&b).unwrap(), "value 40\n");
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["a.sh", "b.txt"]);
}

#[test]
fn a_new_file_written_after_replacements_gets_the_umask_mode_not_a_spare_s() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("old.txt"), "x\n").unwrap();
    let old_path = dir.path().join("old.txt");
    std::fs::set_permissions(&old_path, std::fs::Permissions::from_mode(0o664)).unwrap();
    let ws = Workspace::open(Options::new(dir.path())).unwrap();
    for i in 0..3 {
        let out = ws
            .call(
                "write_file",
                json!({"path": "old.txt", "content": format!("{i}\n")}),
            )
            .unwrap();
        assert!(!out.is_error, "{}", out.text_content());
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let out = ws
        .call(
            "write_file",
            json!({"path": "new.txt", "content": "fresh\n"}),
        )
        .unwrap();
    assert!(!out.is_error, "{}", out.text_content());
    let old = std::fs::metadata(&old_path).unwrap().permissions().mode();
    let new = std::fs::metadata(dir.path().join("new.txt"))
        .unwrap()
        .permissions()
        .mode();
    // The replaced file kept its mode; the new one got 0666 less the umask, as a new file
    // does, never the spare's 0600.
    assert_eq!(old & 0o777, 0o664);
    let umask = {
        let probe = dir.path().join("probe");
        std::fs::write(&probe, "").unwrap();
        std::fs::metadata(&probe).unwrap().permissions().mode() & 0o777
    };
    assert_eq!(new & 0o777, umask);
}

#[test]
fn a_shorter_file_after_a_longer_one_keeps_no_space_reserved_for_the_longer() {
    use std::os::unix::fs::MetadataExt;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f.txt");
    std::fs::write(&path, "x".repeat(200_000)).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
    let ws = Workspace::open(Options::new(dir.path())).unwrap();
    let long = "y".repeat(200_000);
    for content in [long.as_str(), long.as_str(), "short\n", "short again\n"] {
        let out = ws
            .call("write_file", json!({"path": "f.txt", "content": content}))
            .unwrap();
        assert!(!out.is_error, "{}", out.text_content());
        // Time for the next unnamed file, with space for this length, to be made.
        std::thread::sleep(std::time::Duration::from_millis(20));
        let meta = std::fs::metadata(&path).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), content);
        assert_eq!(meta.permissions().mode() & 0o7777, 0o640);
        // What the file occupies is what its content needs (a block or two of slack at most),
        // never the 200 KB reserved for a write like the one before.
        let occupied = meta.blocks() * 512;
        assert!(
            occupied <= meta.len().next_multiple_of(4096) + 8192,
            "{} bytes occupy {occupied}",
            meta.len()
        );
    }
}
