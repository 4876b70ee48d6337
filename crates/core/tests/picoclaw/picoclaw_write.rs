#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_methods)]

//! picoclaw's write_file and append_file: the four actions, the file_exists refusal and its
//! fields, read-back verification, the advisory syntax check as PicoClaw scopes it, modes and
//! links kept.

use crate::picoclaw_support;

use std::os::unix::fs::PermissionsExt;

use picoclaw_support::Pico;
use serde_json::{Value, json};

fn keys(v: &Value) -> Vec<String> {
    v.as_object().unwrap().keys().cloned().collect()
}

#[test]
fn a_new_path_is_created_with_the_compact_json_and_verified() {
    let p = Pico::new();
    let v = p.json(
        "write_file",
        json!({"path": "dir/new.txt", "content": "hello\n"}),
    );
    assert_eq!(
        keys(&v),
        [
            "success",
            "action",
            "resolved_path",
            "bytes_written",
            "verified"
        ]
    );
    assert_eq!(v["success"], true);
    assert_eq!(v["action"], "created");
    assert_eq!(v["bytes_written"], 6);
    assert_eq!(v["verified"], true);
    assert_eq!(
        v["resolved_path"],
        p.root().join("dir/new.txt").to_string_lossy().as_ref()
    );
    assert_eq!(p.read_str("dir/new.txt"), "hello\n");
}

#[test]
fn identical_content_is_unchanged_and_writes_nothing() {
    let p = Pico::new();
    p.write("a.txt", "same\n");
    std::fs::set_permissions(p.path("a.txt"), std::fs::Permissions::from_mode(0o640)).unwrap();
    let before = std::fs::metadata(p.path("a.txt")).unwrap();
    let v = p.json("write_file", json!({"path": "a.txt", "content": "same\n"}));
    assert_eq!(v["action"], "unchanged");
    assert_eq!(v["bytes_written"], 0);
    assert_eq!(v["verified"], true);
    let after = std::fs::metadata(p.path("a.txt")).unwrap();
    use std::os::unix::fs::MetadataExt;
    assert_eq!(
        before.ino(),
        after.ino(),
        "an unchanged write must not replace the file"
    );
}

#[test]
fn append_shaped_content_writes_only_the_suffix_in_place() {
    let p = Pico::new();
    p.write("log.txt", "one\n");
    std::fs::set_permissions(p.path("log.txt"), std::fs::Permissions::from_mode(0o600)).unwrap();
    use std::os::unix::fs::MetadataExt;
    let ino = std::fs::metadata(p.path("log.txt")).unwrap().ino();
    let v = p.json(
        "write_file",
        json!({"path": "log.txt", "content": "one\ntwo\n"}),
    );
    assert_eq!(v["action"], "appended");
    assert_eq!(v["bytes_written"], 4);
    assert_eq!(v["verified"], true);
    assert_eq!(p.read_str("log.txt"), "one\ntwo\n");
    let meta = std::fs::metadata(p.path("log.txt")).unwrap();
    assert_eq!(meta.ino(), ino);
    assert_eq!(meta.mode() & 0o777, 0o600);
}

#[test]
fn other_content_is_refused_with_every_file_exists_field() {
    let p = Pico::new();
    p.write("cfg.txt", "original\n");
    let out = p.call(
        "write_file",
        json!({"path": "cfg.txt", "content": "different\n"}),
    );
    assert!(out.is_error);
    let text = out.text_content();
    let (line, structured) = text.split_once("\nstructured: ").unwrap();
    assert!(line.starts_with("file already exists: cfg.txt"), "{line}");
    let v: Value = serde_json::from_str(structured).unwrap();
    assert_eq!(
        keys(&v),
        [
            "error",
            "path",
            "resolved_path",
            "recommended_action",
            "available_actions",
            "existing_bytes",
            "new_bytes",
            "overwrite_required"
        ]
    );
    assert_eq!(v["error"], "file_exists");
    assert_eq!(v["path"], "cfg.txt");
    assert_eq!(v["recommended_action"], "edit_file");
    assert_eq!(
        v["available_actions"],
        json!(["edit_file", "append_file", "overwrite"])
    );
    assert_eq!(v["existing_bytes"], 9);
    assert_eq!(v["new_bytes"], 10);
    assert_eq!(v["overwrite_required"], true);
    assert_eq!(out.structured.as_ref(), Some(&v));
    assert_eq!(p.read_str("cfg.txt"), "original\n", "nothing written");
}

#[test]
fn the_recommended_action_only_names_enabled_tools() {
    let p = Pico::with(|c| {
        c.tools.edit_file = false;
        c.tools.append_file = false;
    });
    p.write("a.txt", "x");
    let out = p.call("write_file", json!({"path": "a.txt", "content": "y"}));
    assert!(!out.text_content().contains("edit_file"));
    let v = out.structured.unwrap();
    assert_eq!(v["recommended_action"], "overwrite");
    assert_eq!(v["available_actions"], json!(["overwrite"]));
    let p = Pico::with(|c| c.tools.edit_file = false);
    p.write("a.txt", "x");
    let v = p
        .call("write_file", json!({"path": "a.txt", "content": "y"}))
        .structured
        .unwrap();
    assert_eq!(v["recommended_action"], "append_file");
}

#[test]
fn overwrite_replaces_the_whole_file_atomically_keeping_its_mode() {
    let p = Pico::new();
    p.write("run.sh", "#!/bin/sh\necho old\n");
    std::fs::set_permissions(p.path("run.sh"), std::fs::Permissions::from_mode(0o755)).unwrap();
    let v = p.json(
        "write_file",
        json!({"path": "run.sh", "content": "#!/bin/sh\necho new\n", "overwrite": true}),
    );
    assert_eq!(v["action"], "overwritten");
    assert_eq!(v["bytes_written"], 19);
    assert_eq!(v["verified"], true);
    assert_eq!(p.read_str("run.sh"), "#!/bin/sh\necho new\n");
    use std::os::unix::fs::MetadataExt;
    assert_eq!(
        std::fs::metadata(p.path("run.sh")).unwrap().mode() & 0o777,
        0o755
    );
}

#[test]
fn overwrite_true_on_identical_or_appended_content_still_reports_the_safe_action() {
    let p = Pico::new();
    p.write("a.txt", "x\n");
    let v = p.json(
        "write_file",
        json!({"path": "a.txt", "content": "x\n", "overwrite": true}),
    );
    assert_eq!(v["action"], "unchanged");
    let v = p.json(
        "write_file",
        json!({"path": "a.txt", "content": "x\ny\n", "overwrite": true}),
    );
    assert_eq!(v["action"], "appended");
}

#[test]
fn a_write_through_a_link_writes_its_target_and_keeps_the_link() {
    let p = Pico::new();
    p.write("real.txt", "a\n");
    std::os::unix::fs::symlink("real.txt", p.path("link.txt")).unwrap();
    let v = p.json(
        "write_file",
        json!({"path": "link.txt", "content": "b\n", "overwrite": true}),
    );
    assert_eq!(v["action"], "overwritten");
    assert!(
        std::fs::symlink_metadata(p.path("link.txt"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(p.read_str("real.txt"), "b\n");
}

#[test]
fn protected_and_denied_paths_are_refused_for_writes() {
    let p = Pico::new();
    for path in [
        ".ssh/authorized_keys",
        ".aws/credentials",
        "sessions/main.json",
        ".git-credentials",
    ] {
        let text = p.err("write_file", json!({"path": path, "content": "x"}));
        assert!(text.starts_with("denied: access denied"), "{path}: {text}");
        assert!(!p.path(path).exists());
    }
    let text = p.err("write_file", json!({"path": "/etc/shadow", "content": "x"}));
    assert!(text.starts_with("denied:"), "{text}");
}

fn syntax(p: &Pico, path: &str, content: &str) -> (Option<String>, Option<String>) {
    let v = p.json(
        "write_file",
        json!({"path": path, "content": content, "overwrite": true}),
    );
    assert_eq!(v["success"], true, "{v}");
    (
        v.get("syntax").and_then(Value::as_str).map(str::to_string),
        v.get("syntax_error")
            .and_then(Value::as_str)
            .map(str::to_string),
    )
}

#[test]
fn json_is_validated_except_known_jsonc_files() {
    let p = Pico::new();
    assert_eq!(
        syntax(&p, "ok.json", "{\"a\": [1, 2]}\n").0.as_deref(),
        Some("ok")
    );
    let (s, e) = syntax(&p, "bad.json", "{\"a\": 1,}\n");
    assert_eq!(s.as_deref(), Some("error"));
    assert!(e.unwrap().starts_with("invalid JSON"));
    for jsonc in [
        "tsconfig.json",
        "tsconfig.build.json",
        "jsconfig.json",
        ".devcontainer/devcontainer.json",
        ".vscode/settings.json",
    ] {
        assert_eq!(
            syntax(&p, jsonc, "{\n  // comment\n  \"a\": 1,\n}\n"),
            (None, None),
            "{jsonc}"
        );
    }
    // Unknown extensions are left unchecked.
    assert_eq!(syntax(&p, "main.rs", "fn main() {"), (None, None));
    assert_eq!(syntax(&p, "app.js", "function ("), (None, None));
    assert_eq!(syntax(&p, "conf.yaml", "a: [\n"), (None, None));
}

#[test]
fn c_family_files_use_the_delimiter_scanner_with_digit_separators() {
    let p = Pico::new();
    let ok = "#include <cstdio>\nint main() {\n  long n = 1'000'000;\n  char c = '}';\n  const char* s = \"{(\";\n  /* } */ // )\n  return 0;\n}\n";
    assert_eq!(syntax(&p, "main.cpp", ok).0.as_deref(), Some("ok"));
    let (s, e) = syntax(&p, "main.c", "int main() {\n  if (x) {\n    return 1;\n}\n");
    assert_eq!(s.as_deref(), Some("error"));
    assert!(e.unwrap().contains("opened at line 1"));
    let (s, e) = syntax(&p, "x.go", "package x\n\nfunc f() {\n\ts := \"open\n}\n");
    assert_eq!(s.as_deref(), Some("error"));
    assert!(e.unwrap().contains("unterminated string"));
    assert_eq!(
        syntax(&p, "x.go", "package x\nvar r = `{\n(`\nfunc f() {}\n")
            .0
            .as_deref(),
        Some("ok")
    );
    for ext in ["h", "cc", "cxx", "hpp", "hh"] {
        assert_eq!(
            syntax(&p, &format!("f.{ext}"), "void f();\n").0.as_deref(),
            Some("ok")
        );
    }
}

#[test]
fn conditional_compilation_that_does_not_balance_and_deep_nesting_omit_syntax() {
    let p = Pico::new();
    let cond = "#if defined(A)\nvoid f() {\n#else\nvoid f(int x) {\n#endif\n  g();\n}\n";
    assert_eq!(syntax(&p, "cond.c", cond), (None, None));
    let deep = format!("int x = {}1{};\n", "(".repeat(300), ")".repeat(300));
    assert_eq!(syntax(&p, "deep.c", &deep), (None, None));
    // Balanced conditional compilation is still checked.
    assert_eq!(
        syntax(&p, "ok.c", "#ifdef A\nint a;\n#endif\nvoid f() {}\n")
            .0
            .as_deref(),
        Some("ok")
    );
}

#[test]
fn python_and_toml_understand_triple_quotes_and_hash_comments() {
    let p = Pico::new();
    let py = "def f():\n    \"\"\"Docs with ) and [ inside.\n    \"\"\"\n    x = {'a': [1, 2]}  # ) comment\n    return '''\n(\n'''\n";
    assert_eq!(syntax(&p, "m.py", py).0.as_deref(), Some("ok"));
    assert_eq!(
        syntax(&p, "m.pyi", "def f() -> None: ...\n").0.as_deref(),
        Some("ok")
    );
    let (s, e) = syntax(&p, "bad.py", "x = [1, 2\ny = 3\n");
    assert_eq!(s.as_deref(), Some("error"));
    assert!(e.unwrap().contains("never closed"));
    let toml = "[server]\nname = \"a # not a comment\"\npath = 'C:\\dir\\'\nlist = [1, 2] # ]\ntext = \"\"\"\n[\n\"\"\"\n";
    assert_eq!(syntax(&p, "c.toml", toml).0.as_deref(), Some("ok"));
    let (s, _) = syntax(&p, "bad.toml", "a = [1, 2\n");
    assert_eq!(s.as_deref(), Some("error"));
}

#[test]
fn an_append_shaped_write_checks_the_whole_resulting_content() {
    let p = Pico::new();
    p.write("a.json", "{\"a\": ");
    let v = p.json(
        "write_file",
        json!({"path": "a.json", "content": "{\"a\": 1}"}),
    );
    assert_eq!(v["action"], "appended");
    assert_eq!(v["syntax"], "ok");
}

#[test]
fn append_file_creates_parents_and_appends_in_place() {
    let p = Pico::new();
    let text = p.ok(
        "append_file",
        json!({"path": "logs/a/b.log", "content": "one\n"}),
    );
    assert!(text.contains("Appended 4 bytes"), "{text}");
    p.ok(
        "append_file",
        json!({"path": "logs/a/b.log", "content": "two\n"}),
    );
    assert_eq!(p.read_str("logs/a/b.log"), "one\ntwo\n");
    std::fs::set_permissions(
        p.path("logs/a/b.log"),
        std::fs::Permissions::from_mode(0o604),
    )
    .unwrap();
    std::os::unix::fs::symlink("logs/a/b.log", p.path("link.log")).unwrap();
    p.ok(
        "append_file",
        json!({"path": "link.log", "content": "three\n"}),
    );
    assert_eq!(p.read_str("logs/a/b.log"), "one\ntwo\nthree\n");
    use std::os::unix::fs::MetadataExt;
    assert_eq!(
        std::fs::metadata(p.path("logs/a/b.log")).unwrap().mode() & 0o777,
        0o604
    );
    assert!(
        std::fs::symlink_metadata(p.path("link.log"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
}

#[test]
fn append_file_refuses_what_write_file_refuses() {
    let p = Pico::new();
    for path in [".ssh/config", "sessions/s.json", "../outside.txt"] {
        p.err("append_file", json!({"path": path, "content": "x"}));
    }
    p.write("d/x", "");
    let text = p.err("append_file", json!({"path": "d", "content": "x"}));
    assert!(text.contains("is a directory"), "{text}");
}
