//! The coder profile's file functions (spec 001): create-file, delete-file, move, the wiring
//! of update-file, and info — flags, error codes, what is left on disk, and response shapes.
//!
//! Every structured response is checked against the spec's response schema for its function
//! (tests/e2e/coder_response_schemas.json, the API reference stripped to structure) with no
//! field beyond the schema's `properties`; whole-call errors must be exactly
//! `{"code": "C2xx", "message": ...}`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_methods)]

use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::{Path, PathBuf};

use fsgate_core::config::coder::CoderLimits;
use fsgate_core::{CoderConfig, Options, ProfileConfig, ToolOutput, Workspace};
use serde_json::{Value, json};
use tempfile::TempDir;

const SCHEMAS: &str = include_str!("../../../tests/e2e/coder_response_schemas.json");

// ---------------------------------------------------------------------------------------------
// Schema conformance (the subset of draft-07 the spec's response schemas use), strict: an
// object may carry only the fields its schema lists.

fn conform(v: &Value, schema: &Value, root: &Value, at: &str) -> Result<(), String> {
    if let Some(r) = schema.get("$ref").and_then(Value::as_str) {
        let name = r.strip_prefix("#/definitions/").expect("local refs only");
        return conform(v, &root["definitions"][name], root, at);
    }
    if let Some(all) = schema.get("allOf").and_then(Value::as_array) {
        for s in all {
            conform(v, s, root, at)?;
        }
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(any) = schema.get(key).and_then(Value::as_array) {
            let passing = any
                .iter()
                .filter(|s| conform(v, s, root, at).is_ok())
                .count();
            let fits = if key == "oneOf" {
                passing == 1
            } else {
                passing >= 1
            };
            if !fits {
                return Err(format!("{at}: {v} fits {passing} branches of {key}"));
            }
        }
    }
    if let Some(allowed) = schema.get("enum").and_then(Value::as_array)
        && !allowed.contains(v)
    {
        return Err(format!("{at}: {v} is not one of {allowed:?}"));
    }
    if let Some(t) = schema.get("type") {
        let types: Vec<&str> = match t {
            Value::String(s) => vec![s.as_str()],
            Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
            _ => vec![],
        };
        let fits = types.iter().any(|t| match *t {
            "null" => v.is_null(),
            "boolean" => v.is_boolean(),
            "string" => v.is_string(),
            "integer" => v.is_i64() || v.is_u64(),
            "number" => v.is_number(),
            "array" => v.is_array(),
            "object" => v.is_object(),
            _ => false,
        });
        if !fits {
            return Err(format!("{at}: {v} is not of type {types:?}"));
        }
    }
    if let (Some(min), Some(n)) = (schema.get("minimum").and_then(Value::as_f64), v.as_f64())
        && n < min
    {
        return Err(format!("{at}: {n} is below the minimum {min}"));
    }
    if let Value::Object(map) = v {
        if let Some(props) = schema.get("properties").and_then(Value::as_object) {
            for (k, field) in map {
                let Some(s) = props.get(k) else {
                    return Err(format!(
                        "{at}: field {k:?} is not in the spec's response schema"
                    ));
                };
                conform(field, s, root, &format!("{at}.{k}"))?;
            }
        }
        if let Some(required) = schema.get("required").and_then(Value::as_array) {
            for k in required.iter().filter_map(Value::as_str) {
                if !map.contains_key(k) {
                    return Err(format!("{at}: required field {k:?} is missing"));
                }
            }
        }
    }
    if let (Value::Array(items), Some(s)) = (v, schema.get("items")) {
        for (i, item) in items.iter().enumerate() {
            conform(item, s, root, &format!("{at}[{i}]"))?;
        }
    }
    Ok(())
}

/// Checks a call's structured output: the spec schema on success, `{code, message}` on failure.
fn check_shape(tool: &str, out: &ToolOutput) {
    let v = out
        .structured
        .as_ref()
        .unwrap_or_else(|| panic!("{tool} returned no structured content"));
    if out.is_error {
        let obj = v.as_object().unwrap();
        let mut keys: Vec<&str> = obj.keys().map(String::as_str).collect();
        keys.sort_unstable();
        assert_eq!(keys, ["code", "message"], "{tool} error shape: {v}");
        let code = v["code"].as_str().unwrap();
        assert!(
            code.len() == 4 && code.starts_with("C2") && code[1..].parse::<u32>().is_ok(),
            "{tool} error code {code}"
        );
        assert!(!v["message"].as_str().unwrap().is_empty());
        return;
    }
    let schemas: Value = serde_json::from_str(SCHEMAS).unwrap();
    let schema = &schemas[tool];
    assert!(schema.is_object(), "no spec schema for {tool}");
    if let Err(e) = conform(v, schema, schema, tool) {
        panic!("{tool} response does not fit the spec's response schema: {e}\n{v:#}");
    }
    // Per-entry errors are WireErrors with a C2xx code, present exactly when success is false.
    if let Some(results) = v.get("results").and_then(Value::as_array) {
        for r in results {
            let failed = r["success"] == json!(false);
            let has_error = r.get("error").is_some_and(|e| !e.is_null());
            assert_eq!(failed, has_error, "{tool}: success and error disagree: {r}");
        }
    }
}

#[test]
fn the_checker_itself_catches_extra_missing_and_mistyped_fields() {
    let schemas: Value = serde_json::from_str(SCHEMAS).unwrap();
    let s = &schemas["delete-file"];
    let good = json!({"results": [{"path": "/a", "removed": true, "success": true}]});
    assert!(conform(&good, s, s, "t").is_ok());
    let extra = json!({"results": [{"path": "/a", "removed": true, "success": true, "x": 1}]});
    assert!(conform(&extra, s, s, "t").is_err());
    let missing = json!({"results": [{"path": "/a", "success": true}]});
    assert!(conform(&missing, s, s, "t").is_err());
    let typed = json!({"results": [{"path": "/a", "removed": "yes", "success": true}]});
    assert!(conform(&typed, s, s, "t").is_err());
    let bad_err = json!({"results": [{"path": "/a", "removed": false, "success": false, "error": {"code": "C210"}}]});
    assert!(conform(&bad_err, s, s, "t").is_err());
    assert_eq!(
        schemas.as_object().unwrap().keys().count(),
        9,
        "one schema per coder function"
    );
}

// ---------------------------------------------------------------------------------------------
// Fixture

struct Fx {
    _tmp: TempDir,
    root: PathBuf,
    root2: PathBuf,
    ws: Workspace,
}

/// The coder configuration of the options a fixture opens (always coder's).
fn coder(o: &mut Options) -> &mut CoderConfig {
    let ProfileConfig::Coder(coder) = &mut o.profile else {
        panic!("a coder fixture opens as coder");
    };
    coder
}

impl Fx {
    fn new() -> Fx {
        Fx::with(|_| {})
    }

    fn limits(f: impl FnOnce(&mut CoderLimits)) -> Fx {
        Fx::with(|o| f(&mut coder(o).limits))
    }

    fn with(adjust: impl FnOnce(&mut Options)) -> Fx {
        let tmp = tempfile::tempdir().unwrap();
        let base = tmp.path().canonicalize().unwrap();
        let root = base.join("root");
        let root2 = base.join("root2");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(&root2).unwrap();
        let mut o = Options::new(&root);
        o.roots = vec![root.clone(), root2.clone()];
        o.profile = CoderConfig {
            non_accessible_globs: vec!["**/.env".into(), "**/*.pem".into(), "**/secrets/**".into()],
            ..CoderConfig::default()
        }
        .into();
        adjust(&mut o);
        let ws = Workspace::open(o).unwrap();
        Fx {
            _tmp: tmp,
            root,
            root2,
            ws,
        }
    }

    fn p(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    fn ps(&self, rel: &str) -> String {
        s(&self.p(rel))
    }

    fn write(&self, rel: &str, content: &str) {
        let p = self.p(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, content).unwrap();
    }

    fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.p(rel)).unwrap()
    }

    /// Any call, its response shape checked.
    fn call(&self, tool: &str, args: Value) -> ToolOutput {
        let out = self.ws.call(tool, args).unwrap();
        check_shape(tool, &out);
        out
    }

    /// The results of a batch call that succeeded as a whole.
    fn results(&self, tool: &str, args: Value) -> Vec<Value> {
        let out = self.call(tool, args);
        assert!(
            !out.is_error,
            "{tool} failed as a whole: {}",
            out.text_content()
        );
        out.structured.unwrap()["results"]
            .as_array()
            .unwrap()
            .clone()
    }

    fn one(&self, tool: &str, args: Value) -> Value {
        let results = self.results(tool, args);
        assert_eq!(results.len(), 1);
        results[0].clone()
    }

    /// A whole-call failure's code.
    fn whole(&self, tool: &str, args: Value) -> String {
        let out = self.call(tool, args);
        assert!(
            out.is_error,
            "{tool} should fail as a whole: {}",
            out.text_content()
        );
        out.structured.unwrap()["code"]
            .as_str()
            .unwrap()
            .to_string()
    }
}

fn s(p: &Path) -> String {
    p.to_str().unwrap().to_string()
}

fn ok(r: &Value) -> &Value {
    assert_eq!(r["success"], json!(true), "expected success: {r}");
    r
}

fn code(r: &Value) -> &str {
    assert_eq!(r["success"], json!(false), "expected a failure: {r}");
    r["error"]["code"].as_str().unwrap()
}

fn msg(r: &Value) -> &str {
    r["error"]["message"].as_str().unwrap()
}

fn mode(p: &Path) -> u32 {
    std::fs::metadata(p).unwrap().permissions().mode() & 0o7777
}

fn exists(p: &Path) -> bool {
    std::fs::symlink_metadata(p).is_ok()
}

// ---------------------------------------------------------------------------------------------
// create-file

#[test]
fn create_writes_the_file_and_reports_its_canonical_path_and_bytes() {
    let fx = Fx::new();
    std::fs::create_dir(fx.p("sub")).unwrap();
    let r = fx.one(
        "create-file",
        json!({"files": [{"path": "./sub/../notes.md", "content": "# notes\n- one\n"}]}),
    );
    ok(&r);
    assert_eq!(r["path"], json!(fx.ps("notes.md")));
    assert_eq!(r["bytes_written"], json!(14));
    assert_eq!(fx.read("notes.md"), "# notes\n- one\n");
    assert_eq!(mode(&fx.p("notes.md")), 0o644, "the default mode is 0644");
    // An absolute path in the second root.
    let abs = s(&fx.root2.join("x/y.txt"));
    let r = fx.one(
        "create-file",
        json!({"files": [{"path": abs, "content": ""}]}),
    );
    assert_eq!(ok(&r)["path"], json!(abs));
    assert_eq!(r["bytes_written"], json!(0));
    // Multi-byte content counts bytes, not characters.
    let r = fx.one(
        "create-file",
        json!({"files": [{"path": "u.txt", "content": "héllo"}]}),
    );
    assert_eq!(r["bytes_written"], json!(6));
}

#[test]
fn create_refuses_an_existing_file_with_c217_unless_overwrite() {
    let fx = Fx::new();
    fx.write("a.txt", "original");
    std::fs::set_permissions(fx.p("a.txt"), std::fs::Permissions::from_mode(0o640)).unwrap();
    for args in [
        json!({"files": [{"path": "a.txt", "content": "new"}]}),
        json!({"files": [{"path": "a.txt", "content": "new", "overwrite": false}]}),
    ] {
        let r = fx.one("create-file", args);
        assert_eq!(code(&r), "C217", "{r}");
        assert!(
            msg(&r).contains("overwrite"),
            "the message names the fix: {r}"
        );
    }
    assert_eq!(fx.read("a.txt"), "original");
    assert_eq!(mode(&fx.p("a.txt")), 0o640);
    let r = fx.one(
        "create-file",
        json!({"files": [{"path": "a.txt", "content": "replaced", "overwrite": true}]}),
    );
    ok(&r);
    assert_eq!(r["bytes_written"], json!(8));
    assert_eq!(fx.read("a.txt"), "replaced");
}

/// The spec: a result's `path` is "Canonical absolute path (resolved through the jail); the
/// caller's input verbatim when resolution failed" — so a path that resolved but failed later
/// (C217, C210 bad mode, C213) is canonical.
#[test]
fn create_failures_after_resolution_report_the_canonical_path() {
    let fx = Fx::limits(|l| l.max_write_bytes = 4);
    fx.write("a.txt", "x");
    let results = fx.results(
        "create-file",
        json!({"files": [
            {"path": "./a.txt", "content": "y"},
            {"path": "./b.txt", "content": "y", "mode": "rw"},
            {"path": "./c.txt", "content": "too long"},
        ]}),
    );
    assert_eq!(code(&results[0]), "C217");
    assert_eq!(code(&results[1]), "C210");
    assert_eq!(code(&results[2]), "C213");
    for (r, name) in results.iter().zip(["a.txt", "b.txt", "c.txt"]) {
        assert_eq!(r["path"], json!(fx.ps(name)), "{r}");
    }
}

#[test]
fn create_makes_parents_by_default_and_refuses_without_them_when_parents_is_false() {
    let fx = Fx::new();
    let r = fx.one(
        "create-file",
        json!({"files": [{"path": "a/b/c/d.txt", "content": "deep"}]}),
    );
    ok(&r);
    assert_eq!(fx.read("a/b/c/d.txt"), "deep");
    let r = fx.one(
        "create-file",
        json!({"files": [{"path": "x/y/z.txt", "content": "deep", "parents": false}]}),
    );
    assert_eq!(code(&r), "C211", "a missing parent is not found: {r}");
    assert!(!exists(&fx.p("x")), "no parent was created");
    // parents: false with the parent present is fine.
    let r = fx.one(
        "create-file",
        json!({"files": [{"path": "a/e.txt", "content": "e", "parents": false}]}),
    );
    ok(&r);
}

#[test]
fn create_sets_the_exact_mode_bits_and_refuses_a_bad_mode_with_c210() {
    let fx = Fx::new();
    for (name, m, want) in [
        ("private.txt", "0600", 0o600),
        ("script.sh", "0755", 0o755),
        ("open.txt", "0666", 0o666),
        ("ro.txt", "0444", 0o444),
    ] {
        let r = fx.one(
            "create-file",
            json!({"files": [{"path": name, "content": "x", "mode": m}]}),
        );
        ok(&r);
        assert_eq!(mode(&fx.p(name)), want, "{name} mode {m}");
    }
    // Overwriting with an explicit mode applies it.
    let r = fx.one(
        "create-file",
        json!({"files": [{"path": "private.txt", "content": "y", "mode": "0640", "overwrite": true}]}),
    );
    ok(&r);
    assert_eq!(mode(&fx.p("private.txt")), 0o640);
    for bad in [
        "rw-r--r--",
        "0999",
        "",
        "0x1ff",
        "-1",
        "77777",
        "0644 extra",
    ] {
        let r = fx.one(
            "create-file",
            json!({"files": [{"path": "bad.txt", "content": "x", "mode": bad}]}),
        );
        assert_eq!(code(&r), "C210", "mode {bad:?}: {r}");
        assert!(!exists(&fx.p("bad.txt")), "mode {bad:?} created the file");
    }
}

#[test]
fn create_over_max_write_bytes_is_c213_and_writes_nothing() {
    let fx = Fx::limits(|l| l.max_write_bytes = 10);
    fx.write("old.txt", "old");
    let results = fx.results(
        "create-file",
        json!({"files": [
            {"path": "big.txt", "content": "12345678901"},
            {"path": "exact.txt", "content": "1234567890"},
            {"path": "old.txt", "content": "12345678901", "overwrite": true},
        ]}),
    );
    assert_eq!(code(&results[0]), "C213");
    ok(&results[1]);
    assert_eq!(code(&results[2]), "C213");
    assert!(!exists(&fx.p("big.txt")));
    assert_eq!(fx.read("exact.txt"), "1234567890");
    assert_eq!(fx.read("old.txt"), "old");
}

#[test]
fn create_on_a_directory_or_a_root_is_refused_and_leaves_it() {
    let fx = Fx::new();
    fx.write("dir/inner.txt", "inner");
    let r = fx.one(
        "create-file",
        json!({"files": [{"path": "dir", "content": "x", "overwrite": true}]}),
    );
    assert_eq!(code(&r), "C210", "{r}");
    let r = fx.one(
        "create-file",
        json!({"files": [{"path": "dir", "content": "x"}]}),
    );
    assert!(["C210", "C217"].contains(&code(&r)), "{r}");
    assert!(fx.p("dir").is_dir());
    assert_eq!(fx.read("dir/inner.txt"), "inner");
    for root in [".".to_string(), s(&fx.root2), format!("{}/", s(&fx.root))] {
        let r = fx.one(
            "create-file",
            json!({"files": [{"path": root, "content": "x", "overwrite": true}]}),
        );
        assert_eq!(code(&r), "C210", "{root}: {r}");
    }
    assert!(fx.root.is_dir() && fx.root2.is_dir());
    // A file where a parent directory should be.
    fx.write("file.txt", "f");
    let r = fx.one(
        "create-file",
        json!({"files": [{"path": "file.txt/child.txt", "content": "x"}]}),
    );
    assert!(r["success"] == json!(false), "{r}");
    assert_eq!(fx.read("file.txt"), "f");
}

#[test]
fn create_batches_report_each_entry_in_order() {
    let fx = Fx::new();
    fx.write("exists.txt", "e");
    let results = fx.results(
        "create-file",
        json!({"files": [
            {"path": "one.txt", "content": "1"},
            {"path": "exists.txt", "content": "x"},
            {"path": "two.txt", "content": "2", "mode": "nope"},
            {"path": "../out.txt", "content": "x"},
            {"path": ".env", "content": "x"},
            {"path": "three.txt", "content": "3"},
        ]}),
    );
    assert_eq!(results.len(), 6);
    ok(&results[0]);
    assert_eq!(code(&results[1]), "C217");
    assert_eq!(code(&results[2]), "C210");
    assert_eq!(code(&results[3]), "C215");
    assert_eq!(
        results[3]["path"],
        json!("../out.txt"),
        "unresolved: the input verbatim"
    );
    assert_eq!(code(&results[4]), "C211");
    ok(&results[5]);
    assert_eq!(fx.read("one.txt"), "1");
    // Empty paths and NUL bytes are bad input, per entry.
    let results = fx.results(
        "create-file",
        json!({"files": [{"path": "", "content": "x"}, {"path": "a\u{0}b", "content": "x"}]}),
    );
    assert_eq!(code(&results[0]), "C210");
    assert_eq!(code(&results[1]), "C210");
    assert_eq!(fx.read("three.txt"), "3");
    assert_eq!(fx.read("exists.txt"), "e");
}

#[test]
fn malformed_requests_fail_as_a_whole_with_c210() {
    let fx = Fx::new();
    for (tool, args) in [
        ("create-file", json!({})),
        ("create-file", json!({"files": [{"path": "a.txt"}]})),
        ("create-file", json!({"files": [{"content": "x"}]})),
        ("create-file", json!({"files": "a.txt"})),
        (
            "create-file",
            json!({"files": [{"path": "a.txt", "content": "x", "overwrite": "yes"}]}),
        ),
        ("delete-file", json!({})),
        ("delete-file", json!({"paths": "a.txt"})),
        ("move", json!({"files": [{"from": "a.txt"}]})),
        (
            "update-file",
            json!({"files": [{"path": "a.txt", "ops": [{"op": "frobnicate"}]}]}),
        ),
        ("update-file", json!({"files": [{"path": "a.txt"}]})),
    ] {
        assert_eq!(fx.whole(tool, args.clone()), "C210", "{tool} {args}");
    }
    assert!(!exists(&fx.p("a.txt")));
}

// ---------------------------------------------------------------------------------------------
// delete-file

#[test]
fn delete_removes_files_and_empty_directories_reporting_canonical_paths() {
    let fx = Fx::new();
    fx.write("sub/a.txt", "a");
    std::fs::create_dir(fx.p("empty")).unwrap();
    let results = fx.results("delete-file", json!({"paths": ["sub/./a.txt", "empty"]}));
    assert_eq!(ok(&results[0])["removed"], json!(true));
    assert_eq!(results[0]["path"], json!(fx.ps("sub/a.txt")));
    assert_eq!(ok(&results[1])["removed"], json!(true));
    assert_eq!(results[1]["path"], json!(fx.ps("empty")));
    assert!(!exists(&fx.p("sub/a.txt")) && !exists(&fx.p("empty")));
    assert!(fx.p("sub").is_dir());
}

#[test]
fn delete_of_a_non_empty_directory_needs_recursive() {
    let fx = Fx::new();
    fx.write("tree/a.txt", "a");
    fx.write("tree/b/c.txt", "c");
    let r = fx.one("delete-file", json!({"paths": ["tree"]}));
    assert_eq!(code(&r), "C210");
    assert!(msg(&r).contains("recursive"), "{r}");
    assert_eq!(fx.read("tree/a.txt"), "a");
    assert_eq!(fx.read("tree/b/c.txt"), "c");
    let r = fx.one(
        "delete-file",
        json!({"paths": ["tree"], "recursive": false}),
    );
    assert_eq!(code(&r), "C210");
    let r = fx.one("delete-file", json!({"paths": ["tree"], "recursive": true}));
    assert_eq!(ok(&r)["removed"], json!(true));
    assert!(!exists(&fx.p("tree")));
}

#[test]
fn delete_of_a_missing_path_succeeds_with_removed_false() {
    let fx = Fx::new();
    let results = fx.results(
        "delete-file",
        json!({"paths": ["missing.txt", "no/such/dir", s(&fx.root2.join("gone"))]}),
    );
    for (r, want) in results.iter().zip([
        fx.ps("missing.txt"),
        fx.ps("no/such/dir"),
        s(&fx.root2.join("gone")),
    ]) {
        assert_eq!(ok(r)["removed"], json!(false), "{r}");
        assert_eq!(r["path"], json!(want));
    }
}

#[test]
fn deleting_a_root_is_c210() {
    let fx = Fx::new();
    fx.write("keep.txt", "k");
    for root in [
        ".".to_string(),
        "./".to_string(),
        "sub/..".to_string(),
        s(&fx.root),
        s(&fx.root2),
        format!("{}/", s(&fx.root2)),
    ] {
        std::fs::create_dir_all(fx.p("sub")).unwrap();
        for recursive in [false, true] {
            let r = fx.one(
                "delete-file",
                json!({"paths": [root], "recursive": recursive}),
            );
            assert_eq!(code(&r), "C210", "{root}: {r}");
        }
    }
    assert_eq!(fx.read("keep.txt"), "k");
    assert!(fx.root2.is_dir());
}

#[test]
fn deleting_a_symlink_removes_the_link_not_its_target() {
    let fx = Fx::new();
    fx.write("real/a.txt", "a");
    fx.write("target.txt", "t");
    symlink("target.txt", fx.p("flink")).unwrap();
    symlink("real", fx.p("dlink")).unwrap();
    symlink(fx.p("real"), fx.p("dlink_abs")).unwrap();
    symlink("nowhere", fx.p("dangling")).unwrap();
    let results = fx.results(
        "delete-file",
        json!({"paths": ["flink", "dlink", "dlink_abs", "dangling"], "recursive": true}),
    );
    for (r, name) in results
        .iter()
        .zip(["flink", "dlink", "dlink_abs", "dangling"])
    {
        assert_eq!(ok(r)["removed"], json!(true), "{name}: {r}");
        assert_eq!(r["path"], json!(fx.ps(name)), "the link's own path");
        assert!(!exists(&fx.p(name)), "{name} still there");
    }
    assert_eq!(fx.read("target.txt"), "t");
    assert_eq!(fx.read("real/a.txt"), "a");
}

#[test]
fn delete_batches_report_mixed_results_in_order() {
    let fx = Fx::new();
    fx.write("a.txt", "a");
    fx.write("full/x.txt", "x");
    fx.write(".env", "SECRET");
    let results = fx.results(
        "delete-file",
        json!({"paths": ["a.txt", "missing", "full", "../escape", ".env", ".", "a.txt"]}),
    );
    assert_eq!(results.len(), 7);
    assert_eq!(ok(&results[0])["removed"], json!(true));
    assert_eq!(ok(&results[1])["removed"], json!(false));
    assert_eq!(code(&results[2]), "C210");
    assert_eq!(code(&results[3]), "C215");
    assert_eq!(results[3]["path"], json!("../escape"));
    assert_eq!(code(&results[4]), "C211");
    assert_eq!(code(&results[5]), "C210");
    assert_eq!(
        ok(&results[6])["removed"],
        json!(false),
        "already gone: idempotent"
    );
    assert_eq!(fx.read("full/x.txt"), "x");
    assert_eq!(fx.read(".env"), "SECRET");
}

// ---------------------------------------------------------------------------------------------
// move

#[test]
fn move_renames_within_a_root_keeping_content_and_mode() {
    let fx = Fx::new();
    fx.write("a.txt", "alpha");
    std::fs::set_permissions(fx.p("a.txt"), std::fs::Permissions::from_mode(0o751)).unwrap();
    fx.write("dir/inner.txt", "inner");
    let results = fx.results(
        "move",
        json!({"files": [
            {"from": "a.txt", "to": "./b.txt"},
            {"from": "dir", "to": "dir2"},
        ]}),
    );
    ok(&results[0]);
    assert_eq!(results[0]["moved"], json!(true));
    assert_eq!(results[0]["from"], json!(fx.ps("a.txt")));
    assert_eq!(results[0]["to"], json!(fx.ps("b.txt")));
    assert_eq!(fx.read("b.txt"), "alpha");
    assert_eq!(mode(&fx.p("b.txt")), 0o751);
    assert!(!exists(&fx.p("a.txt")));
    assert_eq!(ok(&results[1])["moved"], json!(true));
    assert_eq!(fx.read("dir2/inner.txt"), "inner");
    assert!(!exists(&fx.p("dir")));
}

#[test]
fn move_into_a_missing_parent_follows_the_parents_flag() {
    let fx = Fx::new();
    fx.write("a.txt", "a");
    fx.write("b.txt", "b");
    let r = fx.one(
        "move",
        json!({"files": [{"from": "a.txt", "to": "new/deep/a.txt"}]}),
    );
    assert_eq!(ok(&r)["moved"], json!(true));
    assert_eq!(fx.read("new/deep/a.txt"), "a");
    let r = fx.one(
        "move",
        json!({"files": [{"from": "b.txt", "to": "other/b.txt", "parents": false}]}),
    );
    assert_eq!(code(&r), "C211", "{r}");
    assert_eq!(fx.read("b.txt"), "b");
    assert!(!exists(&fx.p("other")));
}

#[test]
fn move_onto_an_existing_file_is_c217_unless_overwrite() {
    let fx = Fx::new();
    fx.write("a.txt", "a");
    fx.write("b.txt", "b");
    let r = fx.one("move", json!({"files": [{"from": "a.txt", "to": "b.txt"}]}));
    assert_eq!(code(&r), "C217");
    assert!(msg(&r).contains("overwrite"), "{r}");
    assert_eq!(fx.read("a.txt"), "a");
    assert_eq!(fx.read("b.txt"), "b");
    let r = fx.one(
        "move",
        json!({"files": [{"from": "a.txt", "to": "b.txt", "overwrite": true}]}),
    );
    assert_eq!(ok(&r)["moved"], json!(true));
    assert_eq!(fx.read("b.txt"), "a");
    assert!(!exists(&fx.p("a.txt")));
}

#[test]
fn move_onto_a_directory_is_c210_naming_the_corrected_target() {
    let fx = Fx::new();
    fx.write("a.txt", "a");
    fx.write("dest/other.txt", "o");
    for overwrite in [false, true] {
        let r = fx.one(
            "move",
            json!({"files": [{"from": "a.txt", "to": "dest", "overwrite": overwrite}]}),
        );
        assert_eq!(code(&r), "C210", "{r}");
        assert!(
            msg(&r).contains("dest/a.txt"),
            "names the corrected target: {r}"
        );
    }
    assert_eq!(fx.read("a.txt"), "a");
    assert_eq!(fx.read("dest/other.txt"), "o");
    assert!(!exists(&fx.p("dest/a.txt")));
    // The second root as destination.
    let r = fx.one(
        "move",
        json!({"files": [{"from": "a.txt", "to": s(&fx.root2)}]}),
    );
    assert_eq!(code(&r), "C210", "{r}");
    assert_eq!(fx.read("a.txt"), "a");
}

/// The spec's move error: C210 for "a destination that is a directory — the message then names
/// the corrected target path", whatever the source is.
#[test]
fn move_of_a_directory_onto_a_directory_is_c210_naming_the_corrected_target() {
    let fx = Fx::new();
    fx.write("src/x.txt", "x");
    fx.write("dest/other.txt", "o");
    let r = fx.one("move", json!({"files": [{"from": "src", "to": "dest"}]}));
    assert_eq!(code(&r), "C210", "{r}");
    assert!(
        msg(&r).contains("dest/src"),
        "names the corrected target: {r}"
    );
    assert_eq!(fx.read("src/x.txt"), "x");
}

#[test]
fn moving_a_root_is_c210() {
    let fx = Fx::new();
    fx.write("a.txt", "a");
    for from in [".".to_string(), s(&fx.root), s(&fx.root2)] {
        let r = fx.one("move", json!({"files": [{"from": from, "to": "moved"}]}));
        assert_eq!(code(&r), "C210", "{from}: {r}");
    }
    assert!(!exists(&fx.p("moved")));
    assert_eq!(fx.read("a.txt"), "a");
}

#[test]
fn a_self_move_succeeds_with_moved_false() {
    let fx = Fx::new();
    fx.write("a.txt", "a");
    fx.write("sub/b.txt", "b");
    let abs = fx.ps("a.txt");
    let results = fx.results(
        "move",
        json!({"files": [
            {"from": "a.txt", "to": "a.txt"},
            {"from": "a.txt", "to": "./sub/../a.txt"},
            {"from": "a.txt", "to": abs},
            {"from": "sub", "to": "sub"},
        ]}),
    );
    for r in &results {
        assert_eq!(ok(r)["moved"], json!(false), "{r}");
    }
    assert_eq!(results[1]["to"], json!(fx.ps("a.txt")));
    assert_eq!(fx.read("a.txt"), "a");
    assert_eq!(fx.read("sub/b.txt"), "b");
}

#[test]
fn a_cross_root_file_move_copies_then_deletes_keeping_content_and_mode() {
    let fx = Fx::new();
    fx.write("a.sh", "#!/bin/sh\necho hi\n");
    std::fs::set_permissions(fx.p("a.sh"), std::fs::Permissions::from_mode(0o751)).unwrap();
    let to = s(&fx.root2.join("bin/a.sh"));
    let r = fx.one("move", json!({"files": [{"from": "a.sh", "to": to}]}));
    assert_eq!(ok(&r)["moved"], json!(true));
    assert_eq!(r["from"], json!(fx.ps("a.sh")));
    assert_eq!(r["to"], json!(to));
    assert!(!exists(&fx.p("a.sh")));
    let moved = fx.root2.join("bin/a.sh");
    assert_eq!(
        std::fs::read_to_string(&moved).unwrap(),
        "#!/bin/sh\necho hi\n"
    );
    assert_eq!(mode(&moved), 0o751);
    // Back again, onto an existing file: C217 unless overwrite.
    fx.write("a.sh", "newer");
    let r = fx.one("move", json!({"files": [{"from": to, "to": "a.sh"}]}));
    assert_eq!(code(&r), "C217");
    assert!(moved.exists());
    let r = fx.one(
        "move",
        json!({"files": [{"from": to, "to": "a.sh", "overwrite": true}]}),
    );
    assert_eq!(ok(&r)["moved"], json!(true));
    assert_eq!(fx.read("a.sh"), "#!/bin/sh\necho hi\n");
    assert!(!moved.exists());
}

#[test]
fn a_cross_root_directory_move_is_c210_and_leaves_both_roots_alone() {
    let fx = Fx::new();
    fx.write("dir/a.txt", "a");
    let r = fx.one(
        "move",
        json!({"files": [{"from": "dir", "to": s(&fx.root2.join("dir"))}]}),
    );
    assert_eq!(code(&r), "C210", "{r}");
    assert_eq!(fx.read("dir/a.txt"), "a");
    assert!(!exists(&fx.root2.join("dir")));
}

/// A refused move must leave the disk as it was: no destination folders created on the way.
#[test]
fn a_refused_cross_root_directory_move_creates_no_destination_folders() {
    let fx = Fx::new();
    fx.write("dir/a.txt", "a");
    let r = fx.one(
        "move",
        json!({"files": [{"from": "dir", "to": s(&fx.root2.join("new/parent/dir"))}]}),
    );
    assert_eq!(code(&r), "C210", "{r}");
    assert!(
        !exists(&fx.root2.join("new")),
        "a refused move created folders"
    );
}

#[test]
fn moving_a_directory_into_itself_is_c210() {
    let fx = Fx::new();
    fx.write("a/b/c.txt", "c");
    for to in ["a/inside", "a/b/inside"] {
        let r = fx.one("move", json!({"files": [{"from": "a", "to": to}]}));
        assert_eq!(code(&r), "C210", "{to}: {r}");
    }
    assert_eq!(fx.read("a/b/c.txt"), "c");
    assert!(!exists(&fx.p("a/inside")) && !exists(&fx.p("a/b/inside")));
}

#[test]
fn a_refused_move_into_itself_creates_no_folders() {
    let fx = Fx::new();
    fx.write("a/c.txt", "c");
    let r = fx.one(
        "move",
        json!({"files": [{"from": "a", "to": "a/new/deeper/a"}]}),
    );
    assert_eq!(code(&r), "C210", "{r}");
    assert!(!exists(&fx.p("a/new")), "a refused move created a/new");
}

#[test]
fn move_of_a_missing_source_is_c211() {
    let fx = Fx::new();
    let r = fx.one(
        "move",
        json!({"files": [{"from": "nope.txt", "to": "x/y.txt"}]}),
    );
    assert_eq!(code(&r), "C211");
    assert!(!exists(&fx.p("x")));
}

#[test]
fn move_batches_run_each_entry_on_its_own_in_order() {
    let fx = Fx::new();
    fx.write("a.txt", "a");
    fx.write("b.txt", "b");
    fx.write("c.txt", "c");
    let results = fx.results(
        "move",
        json!({"files": [
            {"from": "a.txt", "to": "a2.txt"},
            {"from": "b.txt", "to": "c.txt"},
            {"from": "missing", "to": "m.txt"},
            {"from": "c.txt", "to": "../c.txt"},
            {"from": "a2.txt", "to": "a3.txt"},
        ]}),
    );
    assert_eq!(results.len(), 5);
    ok(&results[0]);
    assert_eq!(code(&results[1]), "C217");
    assert_eq!(code(&results[2]), "C211");
    assert_eq!(code(&results[3]), "C215");
    assert_eq!(
        results[3]["to"],
        json!("../c.txt"),
        "unresolved: the input verbatim"
    );
    assert_eq!(results[3]["from"], json!(fx.ps("c.txt")));
    ok(&results[4]);
    assert_eq!(fx.read("a3.txt"), "a");
    assert_eq!(fx.read("b.txt"), "b");
    assert_eq!(fx.read("c.txt"), "c");
}

// ---------------------------------------------------------------------------------------------
// update-file wiring

fn lines(n: usize) -> String {
    (1..=n).map(|i| format!("l{i}\n")).collect()
}

#[test]
fn update_applies_a_multi_op_edit_bottom_up_with_echoes() {
    let fx = Fx::new();
    fx.write("f.txt", &lines(12));
    let r = fx.one(
        "update-file",
        json!({"files": [{"path": "./f.txt", "ops": [
            {"op": "insert", "at_line": 2, "content": "X"},
            {"op": "update_lines", "from_line": 6, "to_line": 6, "content": "SIX"},
            {"op": "replace", "pattern": "l1(1)", "replacement": "L1$1", "expect_matches": 1},
        ]}]}),
    );
    ok(&r);
    assert_eq!(r["path"], json!(fx.ps("f.txt")));
    assert_eq!(r["applied"], json!(3));
    assert_eq!(r["new_line_count"], json!(13));
    assert_eq!(r["echoes_truncated"], json!(false));
    assert_eq!(
        fx.read("f.txt"),
        "l1\nX\nl2\nl3\nl4\nl5\nSIX\nl7\nl8\nl9\nl10\nL11\nl12\n"
    );
    let echoes = r["echoes"].as_array().unwrap();
    let by_op = |i: u64| {
        echoes
            .iter()
            .find(|e| e["op_index"] == json!(i))
            .unwrap_or_else(|| panic!("no echo for op {i}: {r}"))
    };
    // Line ops: the edited lines with up to 2 lines of context either side, after all ops.
    let insert = by_op(0);
    assert_eq!(insert["from_line"], json!(1));
    assert_eq!(insert["lines"], json!(["l1", "X", "l2", "l3"]));
    let update = by_op(1);
    assert_eq!(update["from_line"], json!(5));
    assert_eq!(update["lines"], json!(["l4", "l5", "SIX", "l7", "l8"]));
    // A replace site: its line, and the total count.
    let replace = by_op(2);
    assert_eq!(replace["from_line"], json!(12));
    assert_eq!(replace["lines"], json!(["L11"]));
    assert_eq!(replace["total_replacements"], json!(1));
}

#[test]
fn an_op_error_fails_only_its_file_with_c210_and_leaves_it_unchanged() {
    let fx = Fx::new();
    fx.write("bad.txt", &lines(5));
    fx.write("good.txt", &lines(3));
    fx.write("bad2.txt", "a\n");
    let results = fx.results(
        "update-file",
        json!({"files": [
            {"path": "bad.txt", "ops": [
                {"op": "update_lines", "from_line": 1, "to_line": 3, "content": "x"},
                {"op": "remove", "from_line": 2, "to_line": 4},
            ]},
            {"path": "good.txt", "ops": [{"op": "insert", "at_line": 4, "content": "l4"}]},
            {"path": "bad2.txt", "ops": [
                {"op": "insert", "at_line": 1, "content": "first"},
                {"op": "replace", "pattern": "zzz", "replacement": "y", "expect_matches": 1},
            ]},
            {"path": "bad.txt", "ops": [{"op": "remove", "from_line": 9, "to_line": 9}]},
            {"path": "bad.txt", "ops": [{"op": "replace", "pattern": "(l)", "replacement": "$2"}]},
        ]}),
    );
    assert_eq!(results.len(), 5);
    assert_eq!(code(&results[0]), "C210", "overlapping ops");
    assert_eq!(results[0]["path"], json!(fx.ps("bad.txt")));
    assert_eq!(results[0]["echoes"], json!([]));
    ok(&results[1]);
    assert_eq!(code(&results[2]), "C210", "expect_matches mismatch");
    assert_eq!(code(&results[3]), "C210", "line out of range");
    assert_eq!(code(&results[4]), "C210", "undefined capture");
    assert_eq!(fx.read("bad.txt"), lines(5));
    assert_eq!(fx.read("bad2.txt"), "a\n");
    assert_eq!(fx.read("good.txt"), lines(4));
}

#[test]
fn update_over_max_read_or_max_write_bytes_is_c213_and_unchanged() {
    let fx = Fx::limits(|l| {
        l.max_read_bytes = 20;
        l.max_write_bytes = 20;
    });
    fx.write("big.txt", &"x".repeat(21));
    fx.write("small.txt", "0123456789\n");
    let results = fx.results(
        "update-file",
        json!({"files": [
            {"path": "big.txt", "ops": [{"op": "replace", "pattern": "x", "replacement": "y"}]},
            {"path": "small.txt", "ops": [{"op": "insert", "at_line": 1, "content": "0123456789"}]},
            {"path": "small.txt", "ops": [{"op": "update_lines", "from_line": 1, "to_line": 1, "content": "short"}]},
        ]}),
    );
    assert_eq!(code(&results[0]), "C213");
    assert_eq!(code(&results[1]), "C213");
    ok(&results[2]);
    assert_eq!(fx.read("big.txt"), "x".repeat(21));
    assert_eq!(fx.read("small.txt"), "short\n");
}

#[test]
fn update_of_a_missing_file_is_c211_and_creates_nothing() {
    let fx = Fx::new();
    let r = fx.one(
        "update-file",
        json!({"files": [{"path": "nope/missing.txt", "ops": [{"op": "insert", "at_line": 1, "content": "x"}]}]}),
    );
    assert_eq!(code(&r), "C211");
    assert!(!exists(&fx.p("nope")));
    std::fs::create_dir(fx.p("dir")).unwrap();
    let r = fx.one(
        "update-file",
        json!({"files": [{"path": "dir", "ops": [{"op": "insert", "at_line": 1, "content": "x"}]}]}),
    );
    assert_eq!(code(&r), "C210", "a directory is bad input: {r}");
}

// ---------------------------------------------------------------------------------------------
// info

#[test]
fn info_reports_every_field_with_the_canonical_roots_in_order() {
    let fx = Fx::with(|o| {
        // Second root first: order is the configuration's, and it makes the primary.
        o.roots.reverse();
        o.roots[1] = o.roots[1].join("sub/..");
        std::fs::create_dir_all(o.roots[1].join("sub")).unwrap();
        coder(o).limits = CoderLimits {
            max_read_bytes: 11,
            max_write_bytes: 12,
            tree_default_depth: 3,
            tree_per_folder_limit: 14,
            list_default_page_size: 15,
            list_max_page_size: 16,
            search_default_max_matches: 17,
            search_default_max_line_bytes: 18,
            search_response_budget_bytes: 19,
            batch_read_budget_bytes: 20,
            max_output_bytes: 21,
        };
        coder(o).default_exclude_globs = vec!["**/.git/**".into()];
    });
    let out = fx.call("info", json!({}));
    assert!(!out.is_error);
    let info = out.structured.unwrap();
    assert_eq!(info["base_paths"], json!([s(&fx.root2), s(&fx.root)]));
    assert_eq!(info["primary_root"], info["base_paths"][0]);
    assert_eq!(
        info["non_accessible_globs"],
        json!(["**/.env", "**/*.pem", "**/secrets/**"])
    );
    assert_eq!(info["default_exclude_globs"], json!(["**/.git/**"]));
    for (key, want) in [
        ("max_read_bytes", 11),
        ("max_write_bytes", 12),
        ("tree_default_depth", 3),
        ("tree_per_folder_limit", 14),
        ("list_default_page_size", 15),
        ("list_max_page_size", 16),
        ("search_default_max_matches", 17),
        ("search_default_max_line_bytes", 18),
        ("search_response_budget_bytes", 19),
        ("batch_read_budget_bytes", 20),
        ("max_output_bytes", 21),
    ] {
        assert_eq!(info[key], json!(want), "{key}");
    }
    assert!(!info["version"].as_str().unwrap().is_empty());
    // Exactly the spec's sixteen fields (the schema check ran in call(); all are required).
    assert_eq!(info.as_object().unwrap().len(), 16);
    // Relative paths go to the primary root — here root2.
    let r = fx.one(
        "create-file",
        json!({"files": [{"path": "p.txt", "content": "p"}]}),
    );
    assert_eq!(r["path"], json!(s(&fx.root2.join("p.txt"))));
}

#[test]
fn info_defaults_are_the_spec_defaults() {
    let fx = Fx::new();
    let info = fx.call("info", json!({})).structured.unwrap();
    for (key, want) in [
        ("max_read_bytes", 10_485_760u64),
        ("max_write_bytes", 10_485_760),
        ("tree_default_depth", 4),
        ("tree_per_folder_limit", 50),
        ("list_default_page_size", 100),
        ("list_max_page_size", 1000),
        ("search_default_max_matches", 1000),
        ("search_default_max_line_bytes", 4096),
        ("search_response_budget_bytes", 262_144),
        ("batch_read_budget_bytes", 1_048_576),
        ("max_output_bytes", 131_072),
    ] {
        assert_eq!(info[key], json!(want), "{key}");
    }
    assert_eq!(
        info["default_exclude_globs"],
        json!([
            "**/.git/**",
            "**/node_modules/**",
            "**/target/**",
            "**/dist/**",
            "**/.venv/**",
            "**/__pycache__/**"
        ])
    );
    assert_eq!(info["base_paths"], json!([s(&fx.root), s(&fx.root2)]));
    // info takes no arguments; unknown ones are bad input.
    assert_eq!(fx.whole("info", json!({"verbose": true})), "C210");
    assert!(!fx.call("info", Value::Null).is_error);
}

// ---------------------------------------------------------------------------------------------
// The unfinished functions: smoke only (they answer, in the spec's shape or as a C2xx error).

#[test]
fn the_functions_being_built_answer_in_shape() {
    let fx = Fx::new();
    fx.write("a.txt", "one\ntwo\n");
    for (tool, args) in [
        ("read-file", json!({"path": "a.txt"})),
        ("read-file", json!({"paths": ["a.txt", "missing"]})),
        ("search", json!({"query": "two"})),
        ("list-folder", json!({})),
        ("tree", json!({})),
    ] {
        let out = fx.call(tool, args);
        assert!(out.structured.is_some(), "{tool}");
    }
    assert_eq!(fx.ws.tools().len(), 9);
}
