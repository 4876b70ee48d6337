//! coder's search (coder::search): literal and regex queries per line, columns, context
//! lines, line cuts, path matches, globs, default excludes, secrets, size and binary skips, caps
//! and the byte budget, path scoping, base_dir, and the exact response shape.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_methods)]

use std::path::{Path, PathBuf};

use fsgate_core::config::coder::CoderLimits;
use fsgate_core::{CoderConfig, Options, Workspace};
use serde_json::{Value, json};
use tempfile::TempDir;

struct Fx {
    _dir: TempDir,
    /// The canonical root.
    root: PathBuf,
    ws: Workspace,
}

fn config() -> CoderConfig {
    CoderConfig {
        non_accessible_globs: vec!["**/.env".into(), "**/*.pem".into(), "**/secrets/**".into()],
        ..CoderConfig::default()
    }
}

impl Fx {
    fn new() -> Fx {
        Fx::with(|_| {})
    }

    fn with(f: impl FnOnce(&mut CoderConfig)) -> Fx {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let mut coder = config();
        f(&mut coder);
        let ws = Workspace::open(Options {
            roots: vec![root.clone()],
            profile: coder.into(),
            ..Options::new(&root)
        })
        .unwrap();
        Fx {
            _dir: dir,
            root,
            ws,
        }
    }

    fn limits(f: impl FnOnce(&mut CoderLimits)) -> Fx {
        Fx::with(|c| f(&mut c.limits))
    }

    fn write(&self, rel: &str, bytes: impl AsRef<[u8]>) {
        let path = self.root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }

    fn abs(&self, rel: &str) -> String {
        self.root.join(rel).to_string_lossy().into_owned()
    }

    /// A successful search's JSON, checked against the response schema.
    fn ok(&self, args: Value) -> Value {
        let out = self.ws.call("search", args.clone()).unwrap();
        let value = out.structured.clone().unwrap();
        assert!(!out.is_error, "search {args} failed: {value}");
        check_shape(&value);
        value
    }

    /// A failed search's code and message.
    fn err(&self, args: Value) -> (String, String) {
        let out = self.ws.call("search", args.clone()).unwrap();
        let value = out.structured.clone().unwrap();
        assert!(out.is_error, "search {args} succeeded: {value}");
        let obj = value.as_object().unwrap();
        assert_eq!(obj.len(), 2, "{value}");
        (
            obj["code"].as_str().unwrap().to_string(),
            obj["message"].as_str().unwrap().to_string(),
        )
    }

    /// Content matches only.
    fn content(&self, mut args: Value) -> Value {
        args["search_paths"] = json!(false);
        self.ok(args)
    }

    /// Path matches only, as absolute paths.
    fn paths(&self, mut args: Value) -> Vec<String> {
        args["search_content"] = json!(false);
        let v = self.ok(args);
        assert_eq!(v["content_matches"], json!([]));
        v["path_matches"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["path"].as_str().unwrap().to_string())
            .collect()
    }

    /// (relative path, line) of each content match.
    fn hits(&self, args: Value) -> Vec<(String, u64)> {
        let v = self.content(args);
        v["content_matches"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| {
                let path = m["path"].as_str().unwrap();
                let rel = Path::new(path).strip_prefix(&self.root).unwrap();
                (
                    rel.to_string_lossy().into_owned(),
                    m["line"].as_u64().unwrap(),
                )
            })
            .collect()
    }
}

/// The response schema of coder::search: exactly content_matches, path_matches and truncated,
/// long_line_matches only when non-empty, and `skipped` (three counts) only when the walk
/// passed over something; a content match has path, line, column, text and, only when
/// non-empty, before/after; a path match has only path; a long-line match has path, line,
/// column and line_bytes.
fn check_shape(v: &Value) {
    let obj = v.as_object().unwrap();
    let mut keys: Vec<&str> = obj
        .keys()
        .map(String::as_str)
        .filter(|k| *k != "long_line_matches")
        .collect();
    keys.sort_unstable();
    if let Some(skipped) = obj.get("skipped") {
        let counts = skipped.as_object().unwrap();
        let mut names: Vec<&str> = counts.keys().map(String::as_str).collect();
        names.sort_unstable();
        assert_eq!(
            names,
            ["non_accessible", "symlink_loops", "unreadable_folders"],
            "{v}"
        );
        assert!(counts.values().any(|n| n.as_u64().unwrap() > 0), "{v}");
        keys.retain(|k| *k != "skipped");
    }
    assert_eq!(
        keys,
        ["content_matches", "path_matches", "truncated"],
        "{v}"
    );
    if let Some(long) = obj.get("long_line_matches") {
        let long = long.as_array().unwrap();
        assert!(
            !long.is_empty(),
            "long_line_matches present but empty in {v}"
        );
        for m in long {
            let m = m.as_object().unwrap();
            let mut keys: Vec<&str> = m.keys().map(String::as_str).collect();
            keys.sort_unstable();
            assert_eq!(keys, ["column", "line", "line_bytes", "path"], "{v}");
            assert!(m["column"].as_u64().unwrap() >= 1);
        }
    }
    assert!(obj["truncated"].is_boolean());
    for m in obj["content_matches"].as_array().unwrap() {
        let m = m.as_object().unwrap();
        for key in m.keys() {
            assert!(
                ["path", "line", "column", "text", "before", "after"].contains(&key.as_str()),
                "unexpected field {key} in {v}"
            );
        }
        assert!(m["path"].as_str().unwrap().starts_with('/'));
        assert!(m["line"].as_u64().unwrap() >= 1);
        assert!(m["column"].as_u64().unwrap() >= 1);
        assert!(!m["text"].as_str().unwrap().contains('\n'));
        for key in ["before", "after"] {
            if let Some(lines) = m.get(key) {
                let lines = lines.as_array().unwrap();
                assert!(!lines.is_empty(), "{key} present but empty in {v}");
                assert!(lines.iter().all(|l| l.is_string()));
            }
        }
    }
    for p in obj["path_matches"].as_array().unwrap() {
        let p = p.as_object().unwrap();
        assert_eq!(p.len(), 1, "{v}");
        assert!(p["path"].as_str().unwrap().starts_with('/'));
    }
}

// ---------------------------------------------------------------------------------------------
// Queries, lines and columns

#[test]
fn a_literal_query_reports_path_line_column_and_text() {
    let fx = Fx::new();
    fx.write("a.txt", "alpha\nbeta needle here\ngamma\n");
    fx.write("needle.md", "nothing\n");
    let v = fx.ok(json!({"query": "needle"}));
    assert_eq!(
        v,
        json!({
            "content_matches": [
                {"path": fx.abs("a.txt"), "line": 2, "column": 6, "text": "beta needle here"}
            ],
            "path_matches": [{"path": fx.abs("needle.md")}],
            "truncated": false
        })
    );
}

#[test]
fn a_literal_query_is_not_a_regex() {
    let fx = Fx::new();
    fx.write("a.txt", "axb(\na.b(\n");
    let v = fx.content(json!({"query": "a.b("}));
    assert_eq!(
        v["content_matches"],
        json!([{"path": fx.abs("a.txt"), "line": 2, "column": 1, "text": "a.b("}])
    );
}

#[test]
fn a_regex_query_matches_per_line_with_anchors() {
    let fx = Fx::new();
    fx.write(
        "a.rs",
        "fn foo() {}\nfn Bar() {}\n  fn Baz() {}\nlet x = end\n",
    );
    let v = fx.content(json!({"query": "^fn [A-Z]", "regex": true}));
    assert_eq!(
        v["content_matches"],
        json!([{"path": fx.abs("a.rs"), "line": 2, "column": 1, "text": "fn Bar() {}"}])
    );
    assert_eq!(
        fx.hits(json!({"query": r"^\s*fn \w+", "regex": true})),
        [("a.rs".into(), 1), ("a.rs".into(), 2), ("a.rs".into(), 3)]
    );
    assert_eq!(
        fx.hits(json!({"query": "end$", "regex": true})),
        [("a.rs".into(), 4)]
    );
    // A match never spans a line break.
    assert_eq!(
        fx.hits(json!({"query": r"\{\}\s+fn", "regex": true})),
        Vec::<(String, u64)>::new()
    );
}

#[test]
fn crlf_lines_lose_their_carriage_return_and_dollar_matches_before_it() {
    let fx = Fx::new();
    fx.write("w.txt", "one end\r\ntwo\r\n");
    assert_eq!(
        fx.hits(json!({"query": "two$", "regex": true})),
        [("w.txt".into(), 2)]
    );
    let v = fx.content(json!({"query": "end$", "regex": true, "context_lines_after": 1}));
    assert_eq!(
        v["content_matches"],
        json!([{"path": fx.abs("w.txt"), "line": 1, "column": 5, "text": "one end", "after": ["two"]}])
    );
}

#[test]
fn an_invalid_regex_is_c210_with_the_parse_error() {
    let fx = Fx::new();
    fx.write("a.txt", "x\n");
    let (code, message) = fx.err(json!({"query": "fn (", "regex": true}));
    assert_eq!(code, "C210");
    assert!(message.contains("unclosed group"), "{message}");
    // The same text searched literally is fine.
    fx.ok(json!({"query": "fn (", "regex": false}));
}

#[test]
fn ignore_case_applies_to_literal_and_regex_queries_and_paths() {
    let fx = Fx::new();
    fx.write("Notes.TXT", "NEEDLE one\nneedle two\nNeedLe three\n");
    assert_eq!(fx.hits(json!({"query": "needle"})).len(), 1);
    assert_eq!(
        fx.hits(json!({"query": "needle", "ignore_case": true}))
            .len(),
        3
    );
    assert_eq!(
        fx.hits(json!({"query": "^needle", "regex": true, "ignore_case": true}))
            .len(),
        3
    );
    assert_eq!(
        fx.paths(json!({"query": "notes.txt"})),
        Vec::<String>::new()
    );
    assert_eq!(
        fx.paths(json!({"query": "notes.txt", "ignore_case": true})),
        [fx.abs("Notes.TXT")]
    );
}

#[test]
fn only_the_first_match_of_a_line_is_reported_and_columns_count_bytes() {
    let fx = Fx::new();
    fx.write("u.txt", "héllo needle needle\n");
    let v = fx.content(json!({"query": "needle"}));
    // "héllo " is 7 bytes (é is two), so the match starts at byte column 8.
    assert_eq!(
        v["content_matches"],
        json!([{"path": fx.abs("u.txt"), "line": 1, "column": 8, "text": "héllo needle needle"}])
    );
}

#[test]
fn an_empty_query_and_searching_nothing_are_c210() {
    let fx = Fx::new();
    assert_eq!(fx.err(json!({"query": ""})).0, "C210");
    let (code, message) =
        fx.err(json!({"query": "x", "search_content": false, "search_paths": false}));
    assert_eq!(code, "C210");
    assert!(message.contains("search_content"), "{message}");
    assert_eq!(fx.err(json!({"query": "x", "bogus": 1})).0, "C210");
}

#[test]
fn results_come_in_path_order_then_line_order() {
    let fx = Fx::new();
    fx.write("b.txt", "hit one\nmiss\nhit two\n");
    fx.write("B.txt", "hit upper\n");
    fx.write("a/x.txt", "miss\nhit nested\n");
    fx.write("a/deeper/y.txt", "hit deeper\n");
    fx.write("a-b.txt", "hit dash\n");
    assert_eq!(
        fx.hits(json!({"query": "hit"})),
        [
            ("B.txt".into(), 1),
            ("a/deeper/y.txt".into(), 1),
            ("a/x.txt".into(), 2),
            ("a-b.txt".into(), 1),
            ("b.txt".into(), 1),
            ("b.txt".into(), 3),
        ]
    );
}

#[test]
fn files_without_a_final_newline_and_empty_lines_are_handled() {
    let fx = Fx::new();
    fx.write("n.txt", "\n\nlast hit");
    fx.write("e.txt", "");
    let v =
        fx.content(json!({"query": "hit", "context_lines_before": 3, "context_lines_after": 3}));
    assert_eq!(
        v["content_matches"],
        json!([{"path": fx.abs("n.txt"), "line": 3, "column": 6, "text": "last hit", "before": ["", ""]}])
    );
    // An empty-matching regex matches every line once, and no line past the final newline.
    fx.write("n.txt", "a\n\nb\n");
    assert_eq!(
        fx.hits(json!({"query": "^", "regex": true})),
        [
            ("n.txt".into(), 1),
            ("n.txt".into(), 2),
            ("n.txt".into(), 3)
        ]
    );
}

// ---------------------------------------------------------------------------------------------
// Context lines

#[test]
fn context_lines_come_from_the_same_file_in_order_and_are_omitted_when_empty() {
    let fx = Fx::new();
    fx.write("a.txt", "hit first\n2\n3\nhit middle\n5\n6\nhit last\n");
    fx.write("b.txt", "other\n");
    let v = fx.content(json!({
        "query": "hit",
        "context_lines_before": 2,
        "context_lines_after": 2
    }));
    let p = fx.abs("a.txt");
    assert_eq!(
        v["content_matches"],
        json!([
            {"path": p, "line": 1, "column": 1, "text": "hit first", "after": ["2", "3"]},
            {"path": p, "line": 4, "column": 1, "text": "hit middle", "before": ["2", "3"], "after": ["5", "6"]},
            {"path": p, "line": 7, "column": 1, "text": "hit last", "before": ["5", "6"]}
        ])
    );
    // Adjacent matches repeat the shared lines rather than merging.
    fx.write("c.txt", "x hit\ny hit\n");
    let v = fx.content(json!({
        "query": "hit",
        "include_globs": ["c.txt"],
        "context_lines_before": 1,
        "context_lines_after": 1
    }));
    let p = fx.abs("c.txt");
    assert_eq!(
        v["content_matches"],
        json!([
            {"path": p, "line": 1, "column": 3, "text": "x hit", "after": ["y hit"]},
            {"path": p, "line": 2, "column": 3, "text": "y hit", "before": ["x hit"]}
        ])
    );
    // No context asked: no before/after at all.
    let v = fx.content(json!({"query": "middle"}));
    assert_eq!(
        v["content_matches"],
        json!([{"path": p.replace("c.txt", "a.txt"), "line": 4, "column": 5, "text": "hit middle"}])
    );
}

#[test]
fn more_than_ten_context_lines_are_c210() {
    let fx = Fx::new();
    fx.write("a.txt", "hit\n");
    for key in ["context_lines_before", "context_lines_after"] {
        let (code, message) = fx.err(json!({"query": "hit", key: 11}));
        assert_eq!(code, "C210");
        assert!(message.contains(key) && message.contains("10"), "{message}");
        fx.ok(json!({"query": "hit", key: 10}));
    }
}

// ---------------------------------------------------------------------------------------------
// Line cuts

#[test]
fn lines_are_cut_to_max_line_bytes_for_matching_and_output() {
    let fx = Fx::new();
    fx.write(
        "a.txt",
        "0123456789 needle\nneedle 0123456789\nbefore 0123456789\n",
    );
    let v = fx.content(json!({
        "query": "needle",
        "max_line_bytes": 10,
        "context_lines_after": 1
    }));
    // Line 1's needle lies past the cut, so only line 2 matches; its context is cut too.
    assert_eq!(
        v["content_matches"],
        json!([{"path": fx.abs("a.txt"), "line": 2, "column": 1, "text": "needle 012", "after": ["before 012"]}])
    );
    // Line 1 is not reported absent: it is listed as a long line matching past the cut.
    assert_eq!(
        v["long_line_matches"],
        json!([{"path": fx.abs("a.txt"), "line": 1, "column": 12, "line_bytes": 17}])
    );
}

/// Issue 17 item 5: a match at byte 499,000 of one line of a minified bundle, among ordinary
/// hits in sources.
#[test]
fn a_match_deep_in_a_minified_bundle_is_listed_as_a_long_line_match_beside_the_real_hits() {
    let fx = Fx::new();
    fx.write("src/a.js", "const retryCount = 1;\n");
    let bundle = format!("{}retryCount=2;{}", "x".repeat(499_000), "y".repeat(999));
    fx.write("public/app.min.js", format!("{bundle}\n"));
    fx.write("src/b.js", "export { retryCount };\n");
    let v = fx.content(json!({"query": "retryCount"}));
    assert_eq!(v["truncated"], json!(false));
    assert_eq!(
        fx.hits(json!({"query": "retryCount"})),
        [("src/a.js".to_string(), 1), ("src/b.js".to_string(), 1)]
    );
    assert_eq!(
        v["long_line_matches"],
        json!([{
            "path": fx.abs("public/app.min.js"),
            "line": 1,
            "column": 499_001,
            "line_bytes": bundle.len()
        }])
    );
    // A search without such lines has no long_line_matches field at all.
    let v = fx.content(json!({"query": "export"}));
    assert!(v.get("long_line_matches").is_none(), "{v}");
}

#[test]
fn a_cut_falls_back_to_a_character_boundary() {
    let fx = Fx::new();
    fx.write("a.txt", "ab€cd hit\n");
    // "ab€" is 5 bytes; a cut at 4 would split the euro sign.
    let v = fx.content(json!({"query": "a", "max_line_bytes": 4}));
    assert_eq!(v["content_matches"][0]["text"], "ab");
    let v = fx.content(json!({"query": "a", "max_line_bytes": 5}));
    assert_eq!(v["content_matches"][0]["text"], "ab€");
}

#[test]
fn the_line_cut_defaults_to_the_configured_search_default_max_line_bytes() {
    let fx = Fx::limits(|l| l.search_default_max_line_bytes = 8);
    fx.write("a.txt", "needle and more\nxxxxxxxxx needle\n");
    let v = fx.content(json!({"query": "needle"}));
    assert_eq!(
        v["content_matches"],
        json!([{"path": fx.abs("a.txt"), "line": 1, "column": 1, "text": "needle a"}])
    );
}

// ---------------------------------------------------------------------------------------------
// Paths

#[test]
fn path_search_matches_root_relative_file_paths_not_directories() {
    let fx = Fx::new();
    fx.write("src/foo.rs", "x");
    fx.write("src/bar.ts", "x");
    fx.write("foo/inner.txt", "x");
    fx.write("lib/foo_test.rs", "x");
    assert_eq!(
        fx.paths(json!({"query": "foo"})),
        [
            fx.abs("foo/inner.txt"),
            fx.abs("lib/foo_test.rs"),
            fx.abs("src/foo.rs")
        ]
    );
    assert_eq!(
        fx.paths(json!({"query": r"^src/.*\.rs$", "regex": true})),
        [fx.abs("src/foo.rs")]
    );
    // Relative to the root even when the walk starts lower.
    assert_eq!(
        fx.paths(json!({"query": "src/b", "path": "src"})),
        [fx.abs("src/bar.ts")]
    );
}

#[test]
fn symbolic_links_are_neither_followed_nor_reported() {
    let fx = Fx::new();
    fx.write("real/a.txt", "needle\n");
    std::os::unix::fs::symlink(fx.root.join("real"), fx.root.join("zlink-dir")).unwrap();
    std::os::unix::fs::symlink("real/a.txt", fx.root.join("zlink-needle.txt")).unwrap();
    let v = fx.ok(json!({"query": "needle"}));
    assert_eq!(
        v,
        json!({
            "content_matches": [{"path": fx.abs("real/a.txt"), "line": 1, "column": 1, "text": "needle"}],
            "path_matches": [],
            "truncated": false
        })
    );
}

// ---------------------------------------------------------------------------------------------
// Globs, default excludes, secrets

#[test]
fn include_and_exclude_globs_match_root_relative_paths() {
    let fx = Fx::new();
    fx.write("src/a.rs", "needle\n");
    fx.write("src/b.ts", "needle\n");
    fx.write("build/c.rs", "needle\n");
    fx.write("src/deep/d.rs", "needle\n");
    assert_eq!(
        fx.hits(
            json!({"query": "needle", "include_globs": ["**/*.rs"], "exclude_globs": ["build/**"]})
        ),
        [("src/a.rs".into(), 1), ("src/deep/d.rs".into(), 1)]
    );
    // Globs stay root-relative when path scopes the walk.
    assert_eq!(
        fx.hits(json!({"query": "needle", "path": "src", "include_globs": ["src/*.ts"]})),
        [("src/b.ts".into(), 1)]
    );
    assert_eq!(
        fx.hits(json!({"query": "needle", "path": "src", "include_globs": ["*.ts"]})),
        [("src/b.ts".into(), 1)],
        "* crosses / as in the jail's globs"
    );
    // Globs filter path matches too.
    assert_eq!(
        fx.paths(json!({"query": ".rs", "exclude_globs": ["src/deep/**", "build/*"]})),
        [fx.abs("src/a.rs")]
    );
    let (code, message) = fx.err(json!({"query": "x", "include_globs": ["a/{b"]}));
    assert_eq!(code, "C210");
    assert!(message.contains("include_globs"), "{message}");
}

#[test]
fn default_excludes_hide_noise_unless_turned_off_or_named() {
    let fx = Fx::new();
    fx.write("src/a.js", "needle\n");
    fx.write("node_modules/lib/index.js", "needle\n");
    fx.write("sub/target/out.txt", "needle\n");
    fx.write(".git/config", "needle\n");
    assert_eq!(
        fx.hits(json!({"query": "needle"})),
        [("src/a.js".into(), 1)]
    );
    assert_eq!(
        fx.paths(json!({"query": "index"})),
        Vec::<String>::new(),
        "excluded files are left out of path results too"
    );
    assert_eq!(
        fx.hits(json!({"query": "needle", "use_default_excludes": false})),
        [
            (".git/config".into(), 1),
            ("node_modules/lib/index.js".into(), 1),
            ("src/a.js".into(), 1),
            ("sub/target/out.txt".into(), 1),
        ]
    );
    assert_eq!(
        fx.paths(json!({"query": "index", "use_default_excludes": false})),
        [fx.abs("node_modules/lib/index.js")]
    );
    // Naming a noise folder as the walk root searches inside it.
    assert_eq!(
        fx.hits(json!({"query": "needle", "path": "node_modules"})),
        [("node_modules/lib/index.js".into(), 1)]
    );
}

#[test]
fn default_excludes_follow_the_configuration() {
    let fx = Fx::with(|c| c.default_exclude_globs = vec!["**/gen/**".into()]);
    fx.write("gen/a.txt", "needle\n");
    fx.write("node_modules/b.txt", "needle\n");
    assert_eq!(
        fx.hits(json!({"query": "needle"})),
        [("node_modules/b.txt".into(), 1)]
    );
    // A glob naming only the directory still keeps the walk out of it.
    let fx = Fx::with(|c| c.default_exclude_globs = vec!["**/gen".into()]);
    fx.write("gen/a.txt", "needle\n");
    fx.write("src/gen/b.txt", "needle\n");
    fx.write("src/c.txt", "needle\n");
    assert_eq!(
        fx.hits(json!({"query": "needle"})),
        [("src/c.txt".into(), 1)]
    );
    assert_eq!(fx.paths(json!({"query": "txt"})), [fx.abs("src/c.txt")]);
}

#[test]
fn non_accessible_files_are_never_matched_by_content_or_path() {
    let fx = Fx::new();
    fx.write(".env", "TOKEN=needle\n");
    fx.write("conf/.env", "TOKEN=needle\n");
    fx.write("key.pem", "needle\n");
    fx.write("secrets/needle.txt", "needle\n");
    fx.write("secrets/deep/needle.txt", "needle\n");
    fx.write("ok/needle.txt", "needle\n");
    let v = fx.ok(json!({"query": "needle", "use_default_excludes": false}));
    assert_eq!(
        v,
        json!({
            "content_matches": [{"path": fx.abs("ok/needle.txt"), "line": 1, "column": 1, "text": "needle"}],
            "path_matches": [{"path": fx.abs("ok/needle.txt")}],
            // .env, conf/.env, key.pem, secrets/needle.txt and the folder secrets/deep: counted,
            // as list-folder and tree show them flagged, never named.
            "skipped": {"non_accessible": 5, "symlink_loops": 0, "unreadable_folders": 0},
            "truncated": false
        })
    );
    for query in [".env", "pem", "secrets"] {
        assert_eq!(
            fx.paths(json!({"query": query})),
            Vec::<String>::new(),
            "{query}"
        );
    }
    // Naming one directly is C211, as for reads.
    assert_eq!(fx.err(json!({"query": "needle", "path": ".env"})).0, "C211");
    assert_eq!(
        fx.err(json!({"query": "needle", "path": "secrets/deep"})).0,
        "C211"
    );
}

// ---------------------------------------------------------------------------------------------
// Skipped files

#[test]
fn files_over_max_read_bytes_are_skipped_for_content_only() {
    let fx = Fx::limits(|l| l.max_read_bytes = 16);
    fx.write("big-needle.txt", "needle needle needle needle\n");
    fx.write("small.txt", "needle\n");
    let v = fx.ok(json!({"query": "needle"}));
    assert_eq!(
        v,
        json!({
            "content_matches": [{"path": fx.abs("small.txt"), "line": 1, "column": 1, "text": "needle"}],
            "path_matches": [{"path": fx.abs("big-needle.txt")}],
            "truncated": false
        })
    );
}

#[test]
fn binary_files_are_skipped_for_content() {
    let fx = Fx::new();
    fx.write("blob.bin", b"needle\n\0\x01\x02needle\n");
    fx.write("text.txt", "needle\n");
    assert_eq!(
        fx.hits(json!({"query": "needle"})),
        [("text.txt".into(), 1)]
    );
}

#[test]
fn invalid_utf8_is_replaced_and_still_searched() {
    let fx = Fx::new();
    fx.write("latin1.txt", b"caf\xe9 needle\n");
    let v = fx.content(json!({"query": "needle"}));
    assert_eq!(
        v["content_matches"],
        json!([{"path": fx.abs("latin1.txt"), "line": 1, "column": 8, "text": "caf\u{FFFD} needle"}])
    );
}

// ---------------------------------------------------------------------------------------------
// Caps and budget

#[test]
fn max_matches_caps_each_list_and_sets_truncated() {
    let fx = Fx::new();
    for i in 0..5 {
        fx.write(&format!("needle{i}.txt"), "needle\n");
    }
    let v = fx.ok(json!({"query": "needle", "max_matches": 2}));
    assert_eq!(
        v,
        json!({
            "content_matches": [
                {"path": fx.abs("needle0.txt"), "line": 1, "column": 1, "text": "needle"},
                {"path": fx.abs("needle1.txt"), "line": 1, "column": 1, "text": "needle"}
            ],
            "path_matches": [{"path": fx.abs("needle0.txt")}, {"path": fx.abs("needle1.txt")}],
            "truncated": true
        })
    );
    // Exactly as many matches as the cap is not truncated.
    let v = fx.content(json!({"query": "needle", "max_matches": 5}));
    assert_eq!(v["content_matches"].as_array().unwrap().len(), 5);
    assert_eq!(v["truncated"], false);
    // One list full does not cut the other short.
    fx.write("zz.txt", "needle\nneedle\nneedle\n");
    let v = fx.ok(json!({"query": "needle", "max_matches": 5}));
    assert_eq!(v["truncated"], true);
    assert_eq!(v["content_matches"].as_array().unwrap().len(), 5);
    assert_eq!(v["path_matches"].as_array().unwrap().len(), 5);
    // The path list alone hitting its cap truncates.
    let v = fx.ok(json!({"query": "needle0", "max_matches": 0, "search_content": false}));
    assert_eq!(
        v,
        json!({"content_matches": [], "path_matches": [], "truncated": true})
    );
    let v = fx.ok(json!({"query": "needle0", "max_matches": 1}));
    assert_eq!(
        v,
        json!({"content_matches": [], "path_matches": [{"path": fx.abs("needle0.txt")}], "truncated": false})
    );
    let v = fx.ok(json!({"query": "needle", "max_matches": 0}));
    assert_eq!(
        v,
        json!({"content_matches": [], "path_matches": [], "truncated": true})
    );
}

#[test]
fn max_matches_defaults_to_the_configured_cap() {
    let fx = Fx::limits(|l| l.search_default_max_matches = 3);
    fx.write("a.txt", "hit\nhit\nhit\nhit\n");
    let v = fx.content(json!({"query": "hit"}));
    assert_eq!(v["content_matches"].as_array().unwrap().len(), 3);
    assert_eq!(v["truncated"], true);
    let v = fx.content(json!({"query": "hit", "max_matches": 10}));
    assert_eq!(v["content_matches"].as_array().unwrap().len(), 4);
    assert_eq!(v["truncated"], false);
}

#[test]
fn the_byte_budget_counts_paths_texts_and_context_and_truncates() {
    let probe = Fx::new();
    let path_len = probe.abs("a.txt").len() as u64;
    drop(probe);
    // Each content match costs its path, its text ("hit N", 5 bytes) and its context line.
    let per_match = path_len + 5 + 5;
    let fx = Fx::limits(|l| l.search_response_budget_bytes = 2 * per_match + per_match - 1);
    assert_eq!(fx.abs("a.txt").len() as u64, path_len);
    fx.write("a.txt", "hit 1\nhit 2\nhit 3\nhit 4\n");
    let v = fx.content(json!({"query": "hit", "context_lines_after": 1}));
    let p = fx.abs("a.txt");
    assert_eq!(
        v,
        json!({
            "content_matches": [
                {"path": p, "line": 1, "column": 1, "text": "hit 1", "after": ["hit 2"]},
                {"path": p, "line": 2, "column": 1, "text": "hit 2", "after": ["hit 3"]}
            ],
            "path_matches": [],
            "truncated": true
        })
    );
    // Without the context line the third fits, and then the budget runs out on the fourth.
    let v = fx.content(json!({"query": "hit"}));
    assert_eq!(v["content_matches"].as_array().unwrap().len(), 3);
    assert_eq!(v["truncated"], true);
    // Path matches are charged their path.
    let v = fx.ok(json!({"query": "a.txt", "search_content": false}));
    assert_eq!(v["path_matches"], json!([{"path": p}]));
    assert_eq!(v["truncated"], false);
}

#[test]
fn an_exhausted_budget_ends_both_lists() {
    let fx = Fx::limits(|l| l.search_response_budget_bytes = 1);
    fx.write("needle.txt", "needle\n");
    let v = fx.ok(json!({"query": "needle"}));
    assert_eq!(
        v,
        json!({"content_matches": [], "path_matches": [], "truncated": true})
    );
}

// ---------------------------------------------------------------------------------------------
// Scope: path, base_dir, roots

#[test]
fn path_scopes_the_walk_and_a_file_is_searched_alone() {
    let fx = Fx::new();
    fx.write("a/x.txt", "hit\n");
    fx.write("b/y.txt", "hit\n");
    fx.write("b/z.txt", "hit\n");
    assert_eq!(
        fx.hits(json!({"query": "hit", "path": "b"})),
        [("b/y.txt".into(), 1), ("b/z.txt".into(), 1)]
    );
    assert_eq!(
        fx.hits(json!({"query": "hit", "path": fx.abs("a")})),
        [("a/x.txt".into(), 1)]
    );
    let v = fx.ok(json!({"query": "y", "path": "b/y.txt"}));
    assert_eq!(
        v,
        json!({"content_matches": [], "path_matches": [{"path": fx.abs("b/y.txt")}], "truncated": false})
    );
    assert_eq!(
        fx.hits(json!({"query": "hit", "path": "b/./y.txt"})),
        [("b/y.txt".into(), 1)]
    );
}

#[test]
fn a_missing_path_is_c211_and_outside_the_roots_is_c215() {
    let fx = Fx::new();
    let (code, message) = fx.err(json!({"query": "x", "path": "nope"}));
    assert_eq!(code, "C211");
    assert!(message.contains("nope"), "{message}");
    assert_eq!(fx.err(json!({"query": "x", "path": "../"})).0, "C215");
    assert_eq!(fx.err(json!({"query": "x", "path": "/etc"})).0, "C215");
}

#[test]
fn base_dir_anchors_a_relative_path_and_confines_the_walk() {
    let fx = Fx::new();
    fx.write("s/inner/a.txt", "hit\n");
    fx.write("s/b.txt", "hit\n");
    fx.write("other/c.txt", "hit\n");
    assert_eq!(
        fx.hits(json!({"query": "hit", "base_dir": "s"})),
        [("s/b.txt".into(), 1), ("s/inner/a.txt".into(), 1)]
    );
    assert_eq!(
        fx.hits(json!({"query": "hit", "base_dir": "s", "path": "inner"})),
        [("s/inner/a.txt".into(), 1)]
    );
    assert_eq!(
        fx.err(json!({"query": "hit", "base_dir": "s", "path": "../other"}))
            .0,
        "C218"
    );
    assert_eq!(
        fx.err(json!({"query": "hit", "base_dir": "nope"})).0,
        "C211"
    );
}

#[test]
fn a_second_root_is_searched_by_absolute_path_with_its_own_relative_globs() {
    let dir = tempfile::tempdir().unwrap();
    let one = dir.path().canonicalize().unwrap().join("one");
    let two = dir.path().canonicalize().unwrap().join("two");
    std::fs::create_dir_all(&one).unwrap();
    std::fs::create_dir_all(two.join("src")).unwrap();
    std::fs::write(two.join("src/a.rs"), "hit\n").unwrap();
    std::fs::write(two.join("b.rs"), "hit\n").unwrap();
    let ws = Workspace::open(Options {
        roots: vec![one.clone(), two.clone()],
        profile: config().into(),
        ..Options::new(&one)
    })
    .unwrap();
    let out = ws
        .call(
            "search",
            json!({"query": "hit", "path": two.to_str().unwrap(), "include_globs": ["src/**"]}),
        )
        .unwrap();
    let v = out.structured.unwrap();
    check_shape(&v);
    assert_eq!(
        v["content_matches"],
        json!([{"path": two.join("src/a.rs").to_str().unwrap(), "line": 1, "column": 1, "text": "hit"}])
    );
}

#[test]
fn the_tool_schema_declares_the_spec_response_fields() {
    let fx = Fx::new();
    let tool = fx
        .ws
        .tools()
        .into_iter()
        .find(|t| t.name == "search")
        .unwrap();
    let schema = tool.output_schema.unwrap();
    let mut required: Vec<&str> = schema["required"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    required.sort_unstable();
    assert_eq!(required, ["content_matches", "path_matches", "truncated"]);
}

#[test]
fn a_cancelled_search_stops_and_says_it_is_truncated() {
    let fx = Fx::new();
    for i in 0..20 {
        fx.write(&format!("d{i}/f.txt"), "needle\n");
    }
    let flag = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
    let ctx = fsgate_core::CallContext::with_flag(flag);
    let out = fx
        .ws
        .call_with("search", json!({"query": "needle"}), &ctx)
        .unwrap();
    let value = out.structured.unwrap();
    assert_eq!(value["truncated"], json!(true));
    assert_eq!(value["content_matches"], json!([]));
}
