//! read_file: numbered windows with versions, continuation followed to the end, outlines.

use serde_json::json;

use crate::support::{Nx, more_args, version_in};

#[test]
fn following_the_continuation_lines_reads_every_line_once_with_one_version() {
    let nx = Nx::with(|c| c.line_cap = 7);
    let text: String = (1..=30).map(|i| format!("line {i}\n")).collect();
    nx.write("a.txt", &text);
    let mut args = json!({"path": "a.txt"});
    let mut seen = Vec::new();
    let mut versions = Vec::new();
    for _ in 0..10 {
        let out = nx.ok("read_file", args.clone());
        versions.push(version_in(&out));
        for l in out.lines().skip(1).filter(|l| !l.starts_with("more: ")) {
            let (n, rest) = l.split_once('\t').unwrap();
            seen.push((n.parse::<usize>().unwrap(), rest.to_string()));
        }
        match more_args(&out) {
            Some((tool, next)) => {
                assert_eq!(tool, "read_file");
                args = next;
            }
            None => break,
        }
    }
    let expected: Vec<(usize, String)> = (1..=30).map(|i| (i, format!("line {i}"))).collect();
    assert_eq!(seen, expected);
    versions.dedup();
    assert_eq!(versions.len(), 1, "one file, one version: {versions:?}");
}

#[test]
fn a_version_follows_content_not_modification_time() {
    let nx = Nx::new();
    nx.write("a.txt", "one\n");
    let v1 = version_in(&nx.ok("read_file", json!({"path": "a.txt"})));
    let f = std::fs::File::options()
        .write(true)
        .open(nx.path("a.txt"))
        .unwrap();
    f.set_modified(std::time::SystemTime::now() + std::time::Duration::from_secs(60))
        .unwrap();
    assert_eq!(
        version_in(&nx.ok("read_file", json!({"path": "a.txt"}))),
        v1
    );
    nx.write("a.txt", "two\n");
    assert_ne!(
        version_in(&nx.ok("read_file", json!({"path": "a.txt"}))),
        v1
    );
}

#[test]
fn a_large_file_read_whole_starts_with_its_outline_and_lines_to_read_from() {
    let nx = Nx::with(|c| {
        c.outline_over_bytes = 200;
        c.line_cap = 5;
    });
    let mut src = String::new();
    for i in 0..20 {
        src.push_str(&format!("fn f{i}() {{\n    let a = {i};\n}}\n\n"));
    }
    nx.write("big.rs", &src);
    let out = nx.ok("read_file", json!({"path": "big.rs"}));
    assert!(out.starts_with("outline of big.rs"), "{out}");
    assert!(out.contains("\n37\tfn f9() {\n"), "{out}");
    let only = nx.ok("read_file", json!({"path": "big.rs", "outline": true}));
    assert!(only.contains("77\tfn f19() {"), "{only}");
    assert!(!only.contains("let a"), "{only}");
    // A window never carries the outline.
    let window = nx.ok(
        "read_file",
        json!({"path": "big.rs", "offset": 37, "limit": 3}),
    );
    assert!(window.starts_with("big.rs v"), "{window}");
    assert!(window.contains("37\tfn f9() {"), "{window}");
}

#[test]
fn line_numbers_can_be_left_out_and_bad_windows_say_what_to_send() {
    let nx = Nx::new();
    nx.write("a.txt", "x\ny\n");
    let out = nx.ok("read_file", json!({"path": "a.txt", "line_numbers": false}));
    assert!(out.ends_with("\nx\ny\n"), "{out}");
    let err = nx.err("read_file", json!({"path": "a.txt", "offset": 9}));
    assert!(err.contains("has 2 lines"), "{err}");
    let err = nx.err("read_file", json!({"path": "nope.txt"}));
    assert!(
        err.starts_with("not-found:") && err.contains("glob"),
        "{err}"
    );
}
