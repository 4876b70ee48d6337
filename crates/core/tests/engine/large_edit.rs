//! gg edit_file on files large enough to be edited without loading them: the result and the
//! reported line are those of the whole-file path, whatever chunk boundary the text straddles.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_methods)]

use fsgate_core::{Options, Workspace};
use serde_json::json;

/// A 9 MiB file of numbered lines with `marker` placed so that it starts at byte `at`.
fn file_with(marker: &str, at: usize) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(9 * 1024 * 1024 + 64);
    let mut n = 0;
    while bytes.len() < 9 * 1024 * 1024 {
        bytes.extend_from_slice(format!("line {n:07}\n").as_bytes());
        n += 1;
    }
    bytes.splice(at..at + marker.len(), marker.bytes());
    bytes
}

#[test]
fn a_unique_text_in_a_large_file_is_replaced_wherever_it_lies() {
    let marker = "<<UNIQUE-MARKER>>";
    // At the start, across the first 1 MiB chunk boundary, and near the end.
    for at in [0usize, 1024 * 1024 - 5, 9 * 1024 * 1024 - 40] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.txt");
        let before = file_with(marker, at);
        std::fs::write(&path, &before).unwrap();
        let ws = Workspace::open(Options::new(dir.path())).unwrap();
        let out = ws
            .call(
                "edit_file",
                json!({"path": "big.txt", "old_string": marker, "new_string": "short\nnew"}),
            )
            .unwrap();
        assert!(!out.is_error, "{}", out.text_content());
        let line = 1 + before[..at].iter().filter(|&&b| b == b'\n').count();
        assert!(
            out.text_content().contains(&format!("line {line}")),
            "at {at}: {}",
            out.text_content()
        );
        let mut expected = before.clone();
        expected.splice(at..at + marker.len(), "short\nnew".bytes());
        assert!(std::fs::read(&path).unwrap() == expected, "at {at}");
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1, "a temp file was left");
    }
}

#[test]
fn a_repeated_or_absent_text_in_a_large_file_gets_the_usual_errors() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.txt");
    let mut bytes = file_with("TWICE", 100);
    let far = bytes.len() - 100;
    bytes.splice(far..far + 5, "TWICE".bytes());
    std::fs::write(&path, &bytes).unwrap();
    let ws = Workspace::open(Options::new(dir.path())).unwrap();
    let out = ws
        .call(
            "edit_file",
            json!({"path": "big.txt", "old_string": "TWICE", "new_string": "x"}),
        )
        .unwrap();
    assert!(out.is_error);
    assert!(
        out.text_content().starts_with("not-unique:"),
        "{}",
        out.text_content()
    );
    let out = ws
        .call(
            "edit_file",
            json!({"path": "big.txt", "old_string": "ABSENT", "new_string": "x"}),
        )
        .unwrap();
    assert!(
        out.text_content().starts_with("no-match:"),
        "{}",
        out.text_content()
    );
    assert!(std::fs::read(&path).unwrap() == bytes);
}
