#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_methods)]

//! The sgpt `read_files` tool: one entry per path, in order, each with content or its own
//! error, under one byte budget.

use crate::sgpt_support;

use serde_json::json;
use sgpt_support::Sx;

#[test]
fn one_entry_per_path_in_request_order_errors_beside_contents() {
    let sx = Sx::new();
    sx.write("b.txt", "bee\r\n");
    sx.write("a.txt", "aye\n");
    sx.write("dir/c.txt", "sea");
    let result = sx.ok(
        "read_files",
        json!({"paths": ["b.txt", "missing.txt", "a.txt", "dir", "/etc/passwd", "dir/c.txt", "a.txt"]}),
    );
    let files = result["files"].as_array().unwrap();
    assert_eq!(files.len(), 7);
    let paths: Vec<&str> = files.iter().map(|f| f["path"].as_str().unwrap()).collect();
    assert_eq!(
        paths,
        vec![
            "b.txt",
            "missing.txt",
            "a.txt",
            "dir",
            "/etc/passwd",
            "dir/c.txt",
            "a.txt"
        ]
    );
    assert_eq!(files[0], json!({"path": "b.txt", "content": "bee\r\n"}));
    assert!(
        files[1]["error"]
            .as_str()
            .unwrap()
            .starts_with("not-found: missing.txt does not exist"),
        "{}",
        files[1]
    );
    assert!(files[1].get("content").is_none());
    assert_eq!(files[2]["content"], "aye\n");
    assert!(
        files[3]["error"]
            .as_str()
            .unwrap()
            .starts_with("invalid-argument: dir is a directory"),
        "{}",
        files[3]
    );
    assert!(
        files[4]["error"]
            .as_str()
            .unwrap()
            .starts_with("outside-root: "),
        "{}",
        files[4]
    );
    assert_eq!(files[5]["content"], "sea");
    assert_eq!(files[6]["content"], "aye\n");
}

#[test]
fn the_budget_is_shared_and_a_cut_file_says_how_to_read_the_rest() {
    let sx = Sx::with(|c| c.read_budget_bytes = 100);
    sx.write("small.txt", "0123456789\n".repeat(3)); // 33 bytes
    sx.write("big.txt", "abcdefghi\n".repeat(20)); // 200 bytes
    sx.write("after.txt", "x\n");
    let result = sx.ok(
        "read_files",
        json!({"paths": ["small.txt", "big.txt", "after.txt"]}),
    );
    let files = result["files"].as_array().unwrap();
    assert_eq!(files[0]["content"], "0123456789\n".repeat(3));
    assert!(files[0].get("truncated").is_none());
    // 67 bytes left: six whole lines of big.txt.
    assert_eq!(files[1]["content"], "abcdefghi\n".repeat(6));
    assert_eq!(files[1]["truncated"], true);
    let note = files[1]["note"].as_str().unwrap();
    assert!(
        note.contains("showing bytes 0-59 of 200 (lines 1-6)"),
        "{note}"
    );
    assert!(
        note.contains(r#"call read_files {"paths": ["big.txt"], "offset": 60}"#),
        "{note}"
    );
    // 7 bytes left: after.txt fits.
    assert_eq!(files[2]["content"], "x\n");
    let result = sx.ok("read_files", json!({"paths": ["big.txt", "after.txt"]}));
    let files = result["files"].as_array().unwrap();
    assert!(
        files[1]["error"]
            .as_str()
            .unwrap()
            .starts_with("too-large: not read: the earlier paths of this call used up"),
        "{}",
        files[1]
    );
}

#[test]
fn binary_files_are_refused_and_legacy_encodings_decoded() {
    let sx = Sx::new();
    sx.write("bin.dat", b"\x00\x01\x02abc");
    sx.write("latin.txt", b"caf\xe9 cr\xe8me br\xfbl\xe9e\n");
    let result = sx.ok("read_files", json!({"paths": ["bin.dat", "latin.txt"]}));
    let files = result["files"].as_array().unwrap();
    assert!(
        files[0]["error"].as_str().unwrap().contains("binary file"),
        "{}",
        files[0]
    );
    assert_eq!(files[1]["content"], "café crème brûlée\n");
    assert_eq!(files[1]["encoding"], "windows-1252");
}

#[test]
fn a_call_without_paths_is_refused() {
    let sx = Sx::new();
    let text = sx.err("read_files", json!({"paths": []}));
    assert!(
        text.starts_with("invalid-argument: paths is empty"),
        "{text}"
    );
    let text = sx.err("read_files", json!({}));
    assert!(text.contains("read_files needs paths"), "{text}");
    let text = sx.err("read_files", json!({"path": "a"}));
    assert!(text.contains("read_files has no argument path"), "{text}");
    // A lone string is taken as one path.
    sx.write("a", "A");
    let result = sx.ok("read_files", json!({"paths": "a"}));
    assert_eq!(result["files"][0]["content"], "A");
}
