//! coder tree: a recursive snapshot bounded by max_depth and per_folder_limit, with
//! truncation reasons, default-exclude stubs, links as leaves, non-accessible flags, and the
//! errors with their C-codes. Every successful response is checked against the worker's schema.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_methods)]

use crate::coder_support;

use std::os::unix::fs::MetadataExt;

use coder_support::{Fx, problems};
use serde_json::{Value, json};

/// The node of `rel` as the worker describes it, with extra fields (children, truncated).
fn node(fx: &Fx, rel: &str, kind: &str, extra: Value) -> Value {
    let meta = std::fs::symlink_metadata(fx.path(rel)).unwrap();
    let name = if rel == "." {
        fx.root()
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned()
    } else {
        rel.rsplit('/').next().unwrap().to_string()
    };
    let mut out = json!({
        "kind": kind,
        "mtime": meta.mtime(),
        "name": name,
        "non_accessible": false,
        "size": meta.len(),
    });
    for (k, v) in extra.as_object().unwrap() {
        out[k] = v.clone();
    }
    out
}

/// The child of `node` named `name`.
fn child<'a>(node: &'a Value, name: &str) -> &'a Value {
    node["children"]
        .as_array()
        .unwrap_or_else(|| panic!("no children in {node}"))
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no child {name} in {node}"))
}

fn child_names(node: &Value) -> Vec<String> {
    node["children"]
        .as_array()
        .unwrap_or_else(|| panic!("no children in {node}"))
        .iter()
        .map(|c| c["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_small_tree_is_complete_sorted_with_links_as_leaves() {
    let fx = Fx::new();
    fx.write("b.txt", "bb");
    fx.write("a/x.rs", "fn x() {}\n");
    fx.mkdir("a/empty");
    fx.symlink("a", "link");
    let got = fx.ok("tree", json!({}));
    assert_eq!(
        got,
        json!({
            "path": fx.abs("."),
            "root": node(&fx, ".", "dir", json!({"children": [
                node(&fx, "a", "dir", json!({"children": [
                    node(&fx, "a/empty", "dir", json!({"children": []})),
                    node(&fx, "a/x.rs", "file", json!({})),
                ]})),
                node(&fx, "b.txt", "file", json!({})),
                node(&fx, "link", "symlink", json!({})),
            ]})),
        })
    );
}

#[test]
fn the_root_is_named_by_its_basename_and_the_path_is_canonical() {
    let fx = Fx::new();
    fx.write("s/pkg/src/main.rs", "");
    let got = fx.ok("tree", json!({"path": "pkg/./src/..", "base_dir": "s"}));
    assert_eq!(got["path"], fx.abs("s/pkg"));
    assert_eq!(got["root"]["name"], "pkg");
    assert_eq!(child_names(&got["root"]), ["src"]);
}

#[test]
fn folders_at_max_depth_are_flagged_without_peeking_inside() {
    let fx = Fx::new();
    fx.write("a/b/c/deep.txt", "");
    fx.mkdir("a/empty");
    let got = fx.ok("tree", json!({"max_depth": 1}));
    let a = child(&got["root"], "a");
    assert_eq!(a["children"], Value::Null);
    let truncated = &a["truncated"];
    assert_eq!(truncated["reason"], "max_depth");
    assert_eq!(truncated["shown"], 0);
    assert!(
        truncated.get("total").is_none_or(Value::is_null),
        "{truncated}"
    );
    let hint = truncated["hint"].as_str().unwrap();
    assert!(hint.contains(&fx.abs("a")), "{hint}");

    let got = fx.ok("tree", json!({"max_depth": 2}));
    let a = child(&got["root"], "a");
    assert_eq!(child_names(a), ["b", "empty"]);
    // An empty folder at the bound is flagged too: it was not looked into.
    assert_eq!(child(a, "empty")["truncated"]["reason"], "max_depth");
    assert_eq!(child(a, "b")["truncated"]["reason"], "max_depth");

    let root_only = fx.ok("tree", json!({"max_depth": 0}));
    assert_eq!(root_only["root"]["children"], Value::Null);
    assert_eq!(root_only["root"]["truncated"]["reason"], "max_depth");
}

#[test]
fn the_default_depth_comes_from_the_config() {
    let fx = Fx::limits(|l| l.tree_default_depth = 2);
    fx.write("a/b/c/d.txt", "");
    let got = fx.ok("tree", json!({}));
    let b = child(child(&got["root"], "a"), "b");
    assert_eq!(b["truncated"]["reason"], "max_depth");
    let got = fx.ok("tree", json!({"max_depth": 3}));
    let c = child(child(child(&got["root"], "a"), "b"), "c");
    assert_eq!(c["truncated"]["reason"], "max_depth");
}

#[test]
fn a_folder_over_the_limit_shows_the_first_children_and_points_at_list_folder() {
    let fx = Fx::limits(|l| l.tree_per_folder_limit = 3);
    for name in ["e", "d", "c", "b", "a"] {
        fx.write(&format!("f/{name}"), "");
    }
    let got = fx.ok("tree", json!({}));
    let f = child(&got["root"], "f");
    assert_eq!(child_names(f), ["a", "b", "c"]);
    let truncated = &f["truncated"];
    assert_eq!(truncated["reason"], "per_folder_limit");
    assert_eq!(truncated["shown"], 3);
    assert_eq!(truncated["total"], 5);
    let hint = truncated["hint"].as_str().unwrap();
    assert!(
        hint.contains("list-folder") && hint.contains(&fx.abs("f")),
        "{hint}"
    );
    // The call's own limit wins over the config.
    let got = fx.ok("tree", json!({"per_folder_limit": 5}));
    let f = child(&got["root"], "f");
    assert_eq!(child_names(f).len(), 5);
    assert!(f.get("truncated").is_none_or(Value::is_null), "{f}");
}

#[test]
fn noise_folders_are_childless_stubs_and_noise_files_are_left_out_unless_asked() {
    let fx = Fx::with(|c| c.default_exclude_globs.push("**/*.log".to_string()));
    fx.write("node_modules/pkg/index.js", "");
    fx.write(".git/HEAD", "ref\n");
    fx.write("src/main.rs", "");
    fx.write("src/debug.log", "");
    fx.write("run.log", "");
    let got = fx.ok("tree", json!({}));
    assert_eq!(child_names(&got["root"]), [".git", "node_modules", "src"]);
    let stub = child(&got["root"], "node_modules");
    assert_eq!(stub["children"], Value::Null);
    assert_eq!(stub["truncated"]["reason"], "default_exclude");
    assert_eq!(stub["truncated"]["shown"], 0);
    let hint = stub["truncated"]["hint"].as_str().unwrap();
    assert!(hint.contains("use_default_excludes: false"), "{hint}");
    assert_eq!(
        child(&got["root"], ".git")["truncated"]["reason"],
        "default_exclude"
    );
    assert_eq!(child_names(child(&got["root"], "src")), ["main.rs"]);

    let all = fx.ok("tree", json!({"use_default_excludes": false}));
    assert_eq!(
        child_names(&all["root"]),
        [".git", "node_modules", "run.log", "src"]
    );
    assert_eq!(
        child_names(child(child(&all["root"], "node_modules"), "pkg")),
        ["index.js"]
    );
}

#[test]
fn the_limit_counts_children_after_excluded_files_are_left_out() {
    let fx = Fx::with(|c| {
        c.default_exclude_globs.push("**/*.log".to_string());
        c.limits.tree_per_folder_limit = 2;
    });
    for name in ["a.log", "b.log", "c.rs", "d.rs", "e.rs"] {
        fx.write(&format!("f/{name}"), "");
    }
    let got = fx.ok("tree", json!({}));
    let f = child(&got["root"], "f");
    assert_eq!(child_names(f), ["c.rs", "d.rs"]);
    assert_eq!(f["truncated"]["total"], 3);
}

#[test]
fn a_noise_folder_asked_for_by_name_is_itself_a_stub() {
    let fx = Fx::new();
    fx.write("node_modules/pkg/index.js", "");
    let got = fx.ok("tree", json!({"path": "node_modules"}));
    assert_eq!(got["root"]["name"], "node_modules");
    assert_eq!(got["root"]["truncated"]["reason"], "default_exclude");
    let got = fx.ok(
        "tree",
        json!({"path": "node_modules", "use_default_excludes": false}),
    );
    assert_eq!(child_names(&got["root"]), ["pkg"]);
}

#[test]
fn non_accessible_entries_are_shown_and_flagged() {
    let fx = Fx::new();
    fx.write(".env", "TOKEN=1\n");
    fx.write("secrets/db.txt", "pw");
    fx.write("secrets/inner/x", "");
    let got = fx.ok("tree", json!({}));
    assert_eq!(child(&got["root"], ".env")["non_accessible"], true);
    let secrets = child(&got["root"], "secrets");
    assert_eq!(secrets["non_accessible"], false);
    assert_eq!(child(secrets, "db.txt")["non_accessible"], true);
    let inner = child(secrets, "inner");
    assert_eq!(inner["non_accessible"], true);
    assert_eq!(inner["children"], Value::Null);
}

#[test]
fn bad_arguments_files_missing_folders_and_outside_paths_have_their_codes() {
    let fx = Fx::new();
    fx.write("a.txt", "");
    fx.mkdir("s");
    let (code, message) = fx.err("tree", json!({"path": "a.txt"}));
    assert_eq!(code, "C210");
    assert!(message.contains("read-file"), "{message}");
    assert_eq!(fx.err("tree", json!({"path": "nope"})).0, "C211");
    assert_eq!(fx.err("tree", json!({"path": "/"})).0, "C215");
    assert_eq!(
        fx.err("tree", json!({"path": "..", "base_dir": "s"})).0,
        "C218"
    );
    let (code, message) = fx.err("tree", json!({"per_folder_limit": 0}));
    assert_eq!(code, "C210");
    assert!(message.contains("per_folder_limit"), "{message}");
    assert_eq!(fx.err("tree", json!({"max_depth": -1})).0, "C210");
}

#[test]
fn the_schema_check_rejects_what_the_spec_does_not_allow() {
    let leaf = json!({"kind": "file", "mtime": 0, "name": "a", "non_accessible": false, "size": 0});
    let good = json!({"path": "/r", "root": {"kind": "dir", "mtime": 0, "name": "r",
        "non_accessible": false, "size": 0, "children": [leaf]}});
    assert!(problems("tree", &good).is_empty());
    let mut no_hint = good.clone();
    no_hint["root"]["truncated"] = json!({"reason": "max_depth", "shown": 0});
    assert!(!problems("tree", &no_hint).is_empty());
    let mut bad_child = good.clone();
    bad_child["root"]["children"][0]["size"] = json!("0");
    assert!(!problems("tree", &bad_child).is_empty());
}
