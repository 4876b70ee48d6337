//! coder list-folder (spec 001): one folder sorted by name, paginated, links not followed,
//! non-accessible entries flagged, and the errors with their C-codes. Every successful response
//! is checked against the spec's schema.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::disallowed_methods,
    clippy::disallowed_types
)]

mod coder_support;

use std::os::unix::fs::MetadataExt;

use coder_support::{Fx, problems};
use serde_json::{Value, json};

fn entry(fx: &Fx, rel: &str, kind: &str, non_accessible: bool) -> Value {
    let meta = std::fs::symlink_metadata(fx.path(rel)).unwrap();
    json!({
        "kind": kind,
        "mtime": meta.mtime(),
        "name": rel.rsplit('/').next().unwrap(),
        "non_accessible": non_accessible,
        "size": meta.len(),
    })
}

fn names(got: &Value) -> Vec<String> {
    got["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_folder_lists_every_kind_sorted_by_name_with_links_not_followed() {
    let fx = Fx::new();
    fx.write("src/b.txt", "bb\n");
    fx.write("src/.env", "TOKEN=1\n");
    fx.write("src/Z.md", "z");
    fx.mkdir("src/a_dir");
    fx.symlink("a_dir", "src/c_link");
    let status = std::process::Command::new("mkfifo")
        .arg(fx.path("src/d_pipe"))
        .status()
        .unwrap();
    assert!(status.success());
    let got = fx.ok("list-folder", json!({"path": "src"}));
    assert_eq!(
        got,
        json!({
            "entries": [
                entry(&fx, "src/.env", "file", true),
                entry(&fx, "src/Z.md", "file", false),
                entry(&fx, "src/a_dir", "dir", false),
                entry(&fx, "src/b.txt", "file", false),
                entry(&fx, "src/c_link", "symlink", false),
                entry(&fx, "src/d_pipe", "other", false),
            ],
            "has_more": false,
            "page": 1,
            "page_size": 100,
            "path": fx.abs("src"),
            "total": 6,
        })
    );
}

#[test]
fn the_default_path_is_the_primary_root_and_base_dir_anchors_relative_paths() {
    let fx = Fx::new();
    fx.write("x.txt", "");
    fx.write("s/inner/y.txt", "");
    let got = fx.ok("list-folder", json!({}));
    assert_eq!(got["path"], fx.abs("."));
    assert_eq!(names(&got), ["s", "x.txt"]);
    let got = fx.ok("list-folder", json!({"path": "inner", "base_dir": "s"}));
    assert_eq!(got["path"], fx.abs("s/inner"));
    assert_eq!(names(&got), ["y.txt"]);
    let got = fx.ok("list-folder", json!({"path": fx.abs("s")}));
    assert_eq!(names(&got), ["inner"]);
}

#[test]
fn pages_are_one_based_and_say_whether_more_follow() {
    let fx = Fx::new();
    for name in ["e", "d", "c", "b", "a"] {
        fx.write(&format!("f/{name}"), "");
    }
    let page = |n: u32| {
        fx.ok(
            "list-folder",
            json!({"path": "f", "page": n, "page_size": 2}),
        )
    };
    let first = page(1);
    assert_eq!(names(&first), ["a", "b"]);
    assert_eq!(
        (
            &first["has_more"],
            &first["total"],
            &first["page"],
            &first["page_size"]
        ),
        (&json!(true), &json!(5), &json!(1), &json!(2))
    );
    assert_eq!(names(&page(2)), ["c", "d"]);
    let last = page(3);
    assert_eq!(names(&last), ["e"]);
    assert_eq!(last["has_more"], false);
    let past = page(4);
    assert_eq!(names(&past), Vec::<String>::new());
    assert_eq!(past["has_more"], false);
    assert_eq!(past["total"], 5);
}

#[test]
fn page_size_defaults_from_the_config_and_is_capped_at_the_maximum() {
    let fx = Fx::limits(|l| {
        l.list_default_page_size = 2;
        l.list_max_page_size = 3;
    });
    for name in ["a", "b", "c", "d"] {
        fx.write(name, "");
    }
    let got = fx.ok("list-folder", json!({}));
    assert_eq!(got["page_size"], 2);
    assert_eq!(names(&got), ["a", "b"]);
    let got = fx.ok("list-folder", json!({"page_size": 10}));
    assert_eq!(got["page_size"], 3);
    assert_eq!(names(&got), ["a", "b", "c"]);
    assert_eq!(got["has_more"], true);
}

#[test]
fn page_zero_and_page_size_zero_are_c210() {
    let fx = Fx::new();
    let (code, message) = fx.err("list-folder", json!({"page": 0}));
    assert_eq!(code, "C210");
    assert!(message.contains("page: 1"), "{message}");
    let (code, message) = fx.err("list-folder", json!({"page_size": 0}));
    assert_eq!(code, "C210");
    assert!(message.contains("1000"), "{message}");
}

#[test]
fn noise_folders_are_listed_and_secret_contents_flagged() {
    let fx = Fx::new();
    fx.write("node_modules/x/index.js", "");
    fx.write("secrets/key.txt", "k");
    fx.write("a.pem", "k");
    let got = fx.ok("list-folder", json!({}));
    assert_eq!(names(&got), ["a.pem", "node_modules", "secrets"]);
    let flags: Vec<&Value> = got["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| &e["non_accessible"])
        .collect();
    assert_eq!(flags, [&json!(true), &json!(false), &json!(false)]);
    let inside = fx.ok("list-folder", json!({"path": "secrets"}));
    assert_eq!(inside["entries"][0]["non_accessible"], true);
}

#[test]
fn a_file_a_missing_folder_and_paths_outside_have_their_codes() {
    let fx = Fx::new();
    fx.write("a.txt", "");
    fx.mkdir("s");
    let (code, message) = fx.err("list-folder", json!({"path": "a.txt"}));
    assert_eq!(code, "C210");
    assert!(message.contains("read-file"), "{message}");
    let (code, message) = fx.err("list-folder", json!({"path": "nope"}));
    assert_eq!(code, "C211");
    assert!(message.contains("nope"), "{message}");
    assert_eq!(fx.err("list-folder", json!({"path": "/"})).0, "C215");
    assert_eq!(
        fx.err("list-folder", json!({"path": "..", "base_dir": "s"}))
            .0,
        "C218"
    );
}

#[test]
fn the_schema_check_rejects_what_the_spec_does_not_allow() {
    let good = json!({"entries": [], "has_more": false, "page": 1, "page_size": 1, "path": "/", "total": 0});
    assert!(problems("list-folder", &good).is_empty());
    let mut missing = good.clone();
    missing.as_object_mut().unwrap().remove("total");
    assert!(!problems("list-folder", &missing).is_empty());
    let mut bad_kind = good.clone();
    bad_kind["entries"] =
        json!([{"kind": "pipe", "mtime": 0, "name": "p", "non_accessible": false, "size": 0}]);
    assert!(!problems("list-folder", &bad_kind).is_empty());
}
