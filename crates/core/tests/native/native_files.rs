//! write_file's modes, search and glob pages followed by cursor, tree, list_dir, move, delete,
//! info.

use std::collections::BTreeSet;

use serde_json::json;

use crate::support::{Nx, more_args, version_in};

#[test]
fn write_modes_create_overwrite_and_append_say_what_they_need() {
    let nx = Nx::new();
    let out = nx.ok("write_file", json!({"path": "d/a.txt", "content": "1\n"}));
    assert!(out.starts_with("created d/a.txt v"), "{out}");
    let v = version_in(&out);
    let err = nx.err("write_file", json!({"path": "d/a.txt", "content": "2\n"}));
    assert!(
        err.starts_with("already-exists:") && err.contains(&v),
        "{err}"
    );
    let err = nx.err(
        "write_file",
        json!({"path": "nope.txt", "content": "2\n", "mode": "overwrite"}),
    );
    assert!(err.starts_with("not-found:"), "{err}");
    let out = nx.ok(
        "write_file",
        json!({"path": "d/a.txt", "content": "2\n", "mode": "append", "expected_version": v}),
    );
    assert!(out.starts_with("appended 2 bytes to d/a.txt"), "{out}");
    assert_eq!(nx.text("d/a.txt"), "1\n2\n");
    // The old version no longer matches: refused with the diff.
    let err = nx.err(
        "write_file",
        json!({"path": "d/a.txt", "content": "3\n", "mode": "overwrite", "expected_version": v}),
    );
    assert!(err.starts_with("stale:") && err.contains("+2"), "{err}");
    assert_eq!(nx.text("d/a.txt"), "1\n2\n");
}

#[test]
fn following_search_cursors_returns_every_match_once_in_order() {
    let nx = Nx::new();
    for f in 0..4 {
        let body: String = (0..9).map(|i| format!("hit {f}.{i}\nmiss\n")).collect();
        nx.write(&format!("src/f{f}.txt"), body);
    }
    nx.write(".gitignore", "ignored/\n");
    nx.write("ignored/x.txt", "hit ignored\n");
    let mut args = json!({"pattern": "hit \\d", "limit": 5});
    let mut seen = Vec::new();
    let mut file = String::new();
    for _ in 0..20 {
        let out = nx.ok("search", args.clone());
        for line in out.lines().skip(1) {
            if line.starts_with("more: ") || line == "--" {
                continue;
            }
            match line.split_once(':') {
                Some((n, text)) if n.parse::<u64>().is_ok() => {
                    seen.push(format!("{file}:{text}"));
                }
                _ => file = line.to_string(),
            }
        }
        match more_args(&out) {
            Some((_, next)) => args = next,
            None => break,
        }
    }
    let expected: Vec<String> = (0..4)
        .flat_map(|f| (0..9).map(move |i| format!("src/f{f}.txt:hit {f}.{i}")))
        .collect();
    assert_eq!(seen, expected);
    let count = nx.ok("search", json!({"pattern": "hit", "mode": "count"}));
    assert!(count.starts_with("36 matches in 4 files"), "{count}");
    let files = nx.ok(
        "search",
        json!({"pattern": "hit", "mode": "files", "glob": ["!src/f0.txt"]}),
    );
    assert_eq!(
        files,
        "27 matches in 3 files\nsrc/f1.txt\nsrc/f2.txt\nsrc/f3.txt\n"
    );
}

#[test]
fn context_blocks_merge_and_literal_search_takes_text_as_written() {
    let nx = Nx::new();
    nx.write("a.txt", "a\nx(1)\nb\nx(1)\nc\nd\ne\nf\nx(1)\n");
    let out = nx.ok(
        "search",
        json!({"pattern": "x(1)", "literal": true, "context": 1}),
    );
    assert_eq!(
        out,
        "3 matches\na.txt\n1-a\n2:x(1)\n3-b\n4:x(1)\n5-c\n--\n8-f\n9:x(1)\n"
    );
}

#[test]
fn glob_pages_in_path_order_under_the_ignore_rule() {
    let nx = Nx::new();
    for i in 0..7 {
        nx.write(&format!("s/m{i}.rs"), "");
    }
    nx.write(".gitignore", "target/\n");
    nx.write("target/t.rs", "");
    let mut args = json!({"pattern": "**/*.rs", "limit": 3});
    let mut seen = BTreeSet::new();
    let mut order = Vec::new();
    for _ in 0..5 {
        let out = nx.ok("glob", args.clone());
        for l in out.lines().skip(1).filter(|l| !l.starts_with("more: ")) {
            assert!(seen.insert(l.to_string()), "{l} twice");
            order.push(l.to_string());
        }
        match more_args(&out) {
            Some((_, next)) => args = next,
            None => break,
        }
    }
    let expected: Vec<String> = (0..7).map(|i| format!("s/m{i}.rs")).collect();
    assert_eq!(order, expected);
}

#[test]
fn tree_list_move_delete_and_info_speak_briefly() {
    let nx = Nx::new();
    nx.write("src/a.rs", "fn a() {}\n");
    nx.write("src/deep/x/y.txt", "y\n");
    let tree = nx.ok("tree", json!({"depth": 2}));
    assert_eq!(tree, "./\n  src/\n    a.rs\n    deep/ +1\n");
    let list = nx.ok("list_dir", json!({"path": "src"}));
    assert_eq!(list, "src/ 2 entries\na.rs\ndeep/\n");
    let out = nx.ok("move", json!({"from": "src/a.rs", "to": "lib/b.rs"}));
    assert_eq!(out, "moved src/a.rs → lib/b.rs\n");
    assert_eq!(nx.text("lib/b.rs"), "fn a() {}\n");
    let err = nx.err("delete", json!({"path": "src"}));
    assert!(err.contains("recursive: true"), "{err}");
    nx.ok("delete", json!({"path": "src", "recursive": true}));
    assert!(!nx.exists("src"));
    let info = nx.ok("info", json!({"path": "lib/b.rs"}));
    assert!(info.starts_with("lib/b.rs: file, 10 bytes"), "{info}");
    assert!(info.contains("1 lines, UTF-8, v"), "{info}");
}

#[test]
fn native_move_of_a_folder_holding_a_secret_is_refused() {
    let nx = Nx::with(|c| c.non_accessible_globs = vec!["**/secrets/**".into()]);
    nx.write("secrets/a.txt", "TOKEN\n");
    let err = nx.err("move", json!({"from": "secrets", "to": "public"}));
    assert!(err.starts_with("not-accessible:"), "{err}");
    assert!(!err.contains("TOKEN"), "{err}");
    assert!(nx.exists("secrets/a.txt") && !nx.exists("public"));
}
