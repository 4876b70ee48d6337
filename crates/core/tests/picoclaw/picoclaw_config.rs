#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_methods)]

//! picoclaw's switches and sandbox: per-tool enabled keys and PICOCLAW_TOOLS_<TOOL>_ENABLED,
//! the workspace restriction, read-only access outside it, the read/write allowlists,
//! protected entries hidden from list_dir, and the large-result spill.

use crate::picoclaw_support;

use fsgate_core::PicoclawConfig;
use picoclaw_support::{Pico, open};
use serde_json::json;

fn names(p: &Pico) -> Vec<&'static str> {
    p.ws.tools().iter().map(|t| t.name).collect()
}

#[test]
fn all_six_tools_by_default_with_schemas_for_the_read_mode() {
    let p = Pico::new();
    assert_eq!(
        names(&p),
        [
            "read_file",
            "write_file",
            "edit_file",
            "append_file",
            "list_dir",
            "search_files"
        ]
    );
    let tools = p.ws.tools();
    let read = &tools[0];
    let props = read.input_schema["properties"].as_object().unwrap();
    assert!(props.contains_key("offset") && props.contains_key("length"));
    assert!(read.read_only);
    let p = Pico::lines();
    let tools = p.ws.tools();
    let props = tools[0].input_schema["properties"].as_object().unwrap();
    assert!(props.contains_key("start_line") && props.contains_key("max_lines"));
    assert!(!props.contains_key("offset"));
}

#[test]
fn a_disabled_tool_is_absent_and_refused() {
    let p = Pico::with(|c| {
        c.tools.search_files = false;
        c.tools.write_file = false;
    });
    assert_eq!(
        names(&p),
        ["read_file", "edit_file", "append_file", "list_dir"]
    );
    let text = p.err("search_files", json!({"pattern": "x"}));
    assert!(
        text.starts_with("denied: search_files is disabled"),
        "{text}"
    );
    assert!(
        text.contains("PICOCLAW_TOOLS_SEARCH_FILES_ENABLED"),
        "{text}"
    );
    assert!(!p.ws.prompt().contains("search_files instead"));
    // Unknown names are not tools of the profile at all.
    assert!(p.ws.call("tree", json!({})).is_err());
}

#[test]
fn the_configuration_file_and_environment_switches_combine() {
    let env = |k: &str| match k {
        "PICOCLAW_TOOLS_APPEND_FILE_ENABLED" => Some("false".to_string()),
        "PICOCLAW_TOOLS_LIST_DIR_ENABLED" => Some("true".to_string()),
        _ => None,
    };
    let config = PicoclawConfig::parse(
        r#"{"tools": {"list_dir": {"enabled": false}, "read_file": {"enabled": false}}}"#,
        "config.json",
        &env,
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let ws = open(dir.path(), config);
    let tools: Vec<&str> = ws.tools().iter().map(|t| t.name).collect();
    assert_eq!(
        tools,
        ["write_file", "edit_file", "list_dir", "search_files"]
    );
}

#[test]
fn load_reads_a_file_and_refuses_every_bad_value_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.json");
    std::fs::write(
        &path,
        r#"{"agents": {"defaults": {"restrict_to_workspace": false}}, "tools": {"read_file": {"mode": "lines"}}}"#,
    )
    .unwrap();
    let c = PicoclawConfig::load(&path).unwrap();
    assert!(!c.restrict_to_workspace);
    std::fs::write(
        &path,
        r#"{"tools": {"read_file": {"mode": 3, "max_lines": -1}}}"#,
    )
    .unwrap();
    let err = PicoclawConfig::load(&path).unwrap_err();
    assert_eq!(err.problems.len(), 2, "{err}");
    assert!(err.to_string().contains("refused: 2 problems"));
}

fn outside_dir() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let canonical = dir.path().canonicalize().unwrap();
    std::fs::write(canonical.join("shared.txt"), "shared\n").unwrap();
    (dir, canonical)
}

#[test]
fn the_workspace_restriction_refuses_outside_paths_and_escaping_links() {
    let (_o, outside) = outside_dir();
    let p = Pico::new();
    let file = outside.join("shared.txt");
    let text = p.err("read_file", json!({"path": file}));
    assert!(text.starts_with("denied: access denied"), "{text}");
    assert!(
        p.err("read_file", json!({"path": "../x"}))
            .starts_with("denied:")
    );
    std::os::unix::fs::symlink(&outside, p.path("escape")).unwrap();
    assert!(
        p.err("read_file", json!({"path": "escape/shared.txt"}))
            .starts_with("denied:")
    );
    assert!(
        p.err("list_dir", json!({"path": outside}))
            .starts_with("denied:")
    );
    assert!(
        p.err(
            "write_file",
            json!({"path": outside.join("new.txt"), "content": "x"})
        )
        .starts_with("denied:")
    );
    assert!(!outside.join("new.txt").exists());
}

#[test]
fn read_outside_lets_read_only_tools_out_but_keeps_writes_in() {
    let (_o, outside) = outside_dir();
    let p = Pico::with(|c| c.allow_read_outside_workspace = true);
    let file = outside.join("shared.txt");
    assert!(p.ok("read_file", json!({"path": file})).contains("shared"));
    assert!(
        p.ok("list_dir", json!({"path": outside}))
            .contains("FILE: shared.txt")
    );
    let out = p.ok(
        "search_files",
        json!({"pattern": "shared", "path": outside}),
    );
    assert!(
        out.contains(&format!("{}:1:shared", file.display())),
        "{out}"
    );
    for (tool, args) in [
        (
            "write_file",
            json!({"path": outside.join("w.txt"), "content": "x"}),
        ),
        ("append_file", json!({"path": file, "content": "x"})),
        (
            "edit_file",
            json!({"path": file, "old_text": "shared", "new_text": "x"}),
        ),
    ] {
        let text = p.err(tool, args);
        assert!(text.starts_with("denied:"), "{tool}: {text}");
    }
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "shared\n");
}

#[test]
fn allowlists_grant_reads_and_writes_by_regex_over_absolute_paths() {
    let (_o, outside) = outside_dir();
    let prefix = regex::escape(&outside.to_string_lossy());
    let p = Pico::with(|c| {
        c.allow_read_paths = vec![format!("^{prefix}/shared\\.txt$")];
        c.allow_write_paths = vec![format!("^{prefix}/out(?:/|$)")];
    });
    assert!(
        p.ok("read_file", json!({"path": outside.join("shared.txt")}))
            .contains("shared")
    );
    assert!(
        p.err("list_dir", json!({"path": outside}))
            .starts_with("denied:")
    );
    let v = p.json(
        "write_file",
        json!({"path": outside.join("out/new.txt"), "content": "hi\n"}),
    );
    assert_eq!(v["action"], "created");
    assert_eq!(
        std::fs::read_to_string(outside.join("out/new.txt")).unwrap(),
        "hi\n"
    );
    // A read allowlist does not allow writes, nor a write allowlist reads elsewhere.
    assert!(
        p.err(
            "write_file",
            json!({"path": outside.join("shared.txt"), "content": "x", "overwrite": true})
        )
        .starts_with("denied:")
    );
    // Protected paths stay refused whatever the allowlist says.
    let p = Pico::with(|c| c.allow_write_paths = vec![".*".to_string()]);
    let text = p.err(
        "write_file",
        json!({"path": outside.join(".ssh/config"), "content": "x"}),
    );
    assert!(text.contains("protected"), "{text}");
}

#[test]
fn without_the_restriction_relative_paths_resolve_from_the_working_directory() {
    let (_o, outside) = outside_dir();
    let p = Pico::with(|c| c.restrict_to_workspace = false);
    let file = outside.join("shared.txt");
    assert!(p.ok("read_file", json!({"path": file})).contains("shared"));
    let v = p.json(
        "write_file",
        json!({"path": outside.join("w.txt"), "content": "x"}),
    );
    assert_eq!(v["action"], "created");
    let cwd = std::env::current_dir().unwrap();
    // Refused (the file exists), so nothing is written; the refusal names where it resolved.
    let out = p.call("write_file", json!({"path": "Cargo.toml", "content": "x"}));
    assert!(out.is_error);
    let v = out.structured.unwrap();
    assert_eq!(
        v["resolved_path"],
        cwd.join("Cargo.toml").to_string_lossy().as_ref()
    );
}

#[test]
fn list_dir_hides_protected_entries() {
    let p = Pico::new();
    for f in [
        ".ssh/id_rsa",
        ".aws/credentials",
        ".netrc",
        "id_ed25519",
        "src/main.rs",
        ".env",
    ] {
        p.write(f, "x");
    }
    assert_eq!(
        p.ok("list_dir", json!({"path": "."})),
        "FILE: .env\nDIR:  src\n"
    );
    assert!(
        p.err("read_file", json!({"path": ".ssh/id_rsa"}))
            .starts_with("denied:")
    );
    assert!(
        p.err("list_dir", json!({"path": ".ssh"}))
            .starts_with("denied:")
    );
}

#[test]
fn a_large_result_is_spilled_to_an_artifact_with_a_head_and_tail_preview() {
    let p = Pico::with(|c| c.max_inline_result_chars = 2_000);
    for i in 0..400 {
        p.write(&format!("rows/row {i:04}.txt"), "");
    }
    let out = p.ok("list_dir", json!({"path": "rows"}));
    assert!(out.chars().count() <= 2_000, "{}", out.chars().count());
    assert!(
        out.starts_with("[Result too large to show inline:"),
        "{out}"
    );
    let at = out.find(".picoclaw/tool-results/list_dir-").unwrap();
    let name: String = out[at..].chars().take_while(|c| *c != ';').collect();
    assert!(out.contains("row 0000"), "the head is shown");
    assert!(out.contains("row 0399"), "the tail is shown");
    assert!(out.contains("characters omitted"));
    let saved = p.read_str(&name);
    assert!(saved.starts_with("FILE: row 0000.txt\n"), "{saved}");
    assert!(saved.ends_with("FILE: row 0399.txt\n"));
}
