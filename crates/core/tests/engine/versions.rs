//! `--versions` on the five specified profiles: reads and writes end with the file's version,
//! writes and edits take `expected_version`, a stale one refuses with what changed (or rebases a
//! replacement whose quote is untouched), and without the switch every text and schema is the
//! profile's own.

use std::path::Path;

use fsgate_core::{
    CoderConfig, GgConfig, Options, PicoclawConfig, ProfileConfig, QwenConfig, SgptConfig,
    ToolOutput, Workspace,
};
use serde_json::{Value, json};

fn open(root: &Path, profile: ProfileConfig, versions: bool) -> Workspace {
    let mut o = Options::new(root);
    o.profile = profile;
    o.versions = versions;
    Workspace::open(o).unwrap()
}

fn gg_with_secret() -> ProfileConfig {
    GgConfig {
        non_accessible_globs: vec!["**/*.pem".into()],
        ..GgConfig::default()
    }
    .into()
}

fn call(ws: &Workspace, tool: &str, args: Value) -> ToolOutput {
    ws.call(tool, args).unwrap()
}

fn ok(ws: &Workspace, tool: &str, args: Value) -> String {
    let out = call(ws, tool, args);
    assert!(!out.is_error, "{tool}: {}", out.text_content());
    out.text_content()
}

/// The token of the last `version: PATH vX` line naming a path ending in `name`.
fn version_of(text: &str, name: &str) -> String {
    text.lines()
        .rev()
        .filter_map(|l| l.strip_prefix("version: "))
        .find_map(|l| {
            let (path, token) = l.rsplit_once(' ')?;
            path.ends_with(name).then(|| token.to_string())
        })
        .unwrap_or_else(|| panic!("no version of {name} in:\n{text}"))
}

/// A tool and how its arguments are made from a path (and texts).
type Tool<F> = (&'static str, F);

struct Case {
    profile: ProfileConfig,
    read: Tool<fn(&str) -> Value>,
    write: Tool<fn(&str, &str) -> Value>,
    edit: Tool<fn(&str, &str, &str) -> Value>,
}

fn cases() -> Vec<Case> {
    vec![
        Case {
            profile: GgConfig::default().into(),
            read: ("read_file", |p| json!({"path": p})),
            write: ("write_file", |p, c| json!({"path": p, "content": c})),
            edit: (
                "edit_file",
                |p, o, n| json!({"path": p, "old_string": o, "new_string": n}),
            ),
        },
        Case {
            profile: QwenConfig::default().into(),
            read: ("read_file", |p| json!({"path": p})),
            write: ("write_file", |p, c| json!({"file_path": p, "content": c})),
            edit: (
                "edit",
                |p, o, n| json!({"file_path": p, "old_string": o, "new_string": n}),
            ),
        },
        Case {
            profile: PicoclawConfig::default().into(),
            read: ("read_file", |p| json!({"path": p})),
            write: (
                "write_file",
                |p, c| json!({"path": p, "content": c, "overwrite": true}),
            ),
            edit: (
                "edit_file",
                |p, o, n| json!({"path": p, "old_text": o, "new_text": n}),
            ),
        },
        Case {
            profile: SgptConfig::default().into(),
            read: ("read_files", |p| json!({"paths": [p]})),
            write: (
                "replace",
                |p, c| json!({"path": p, "patches": [{"search": "one", "replace": c}]}),
            ),
            edit: (
                "replace",
                |p, o, n| json!({"path": p, "patches": [{"search": o, "replace": n}]}),
            ),
        },
        Case {
            profile: CoderConfig::default().into(),
            read: ("read-file", |p| json!({"path": p})),
            write: (
                "create-file",
                |p, c| json!({"files": [{"path": p, "content": c, "overwrite": true}]}),
            ),
            edit: (
                "update-file",
                |p, o, n| json!({"files": [{"path": p, "ops": [{"op": "replace", "pattern": regex_quote(o), "replacement": n}]}]}),
            ),
        },
    ]
}

fn regex_quote(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == ' ' {
                c.to_string()
            } else {
                format!("\\{c}")
            }
        })
        .collect()
}

/// `args` with `expected_version` where the profile takes it: on coder's file items, else at
/// the top.
fn expecting(mut args: Value, token: &str) -> Value {
    match args.get_mut("files").and_then(Value::as_array_mut) {
        Some(files) => files[0]["expected_version"] = json!(token),
        None => args["expected_version"] = json!(token),
    }
    args
}

#[test]
fn consecutive_edits_each_naming_the_version_the_last_answer_gave_never_trip() {
    for case in cases() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::write(root.join("a.txt"), "one\ntwo\nthree\n").unwrap();
        let ws = open(&root, case.profile.clone(), true);
        let path = root.join("a.txt").display().to_string();
        let read = ok(&ws, case.read.0, (case.read.1)(&path));
        let mut token = version_of(&read, "a.txt");
        for (old, new) in [("two", "2"), ("three", "3"), ("2", "deux")] {
            let out = ok(
                &ws,
                case.edit.0,
                expecting((case.edit.1)(&path, old, new), &token),
            );
            token = version_of(&out, "a.txt");
        }
        assert_eq!(
            std::fs::read_to_string(root.join("a.txt")).unwrap(),
            "one\ndeux\n3\n",
            "{:?}",
            case.profile.profile()
        );
        let again = ok(&ws, case.read.0, (case.read.1)(&path));
        assert_eq!(version_of(&again, "a.txt"), token);
    }
}

#[test]
fn a_write_over_a_file_changed_since_its_version_is_stale_shows_the_change_and_writes_nothing() {
    for case in cases() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::write(root.join("a.txt"), "one\ntwo\n").unwrap();
        let ws = open(&root, case.profile.clone(), true);
        let path = root.join("a.txt").display().to_string();
        let token = version_of(&ok(&ws, case.read.0, (case.read.1)(&path)), "a.txt");
        // Another process changes the file.
        std::fs::write(root.join("a.txt"), "one\ntwo\nadded elsewhere\n").unwrap();
        let out = call(
            &ws,
            case.write.0,
            expecting((case.write.1)(&path, "ONE"), &token),
        );
        let text = out.text_content();
        assert!(out.is_error, "{text}");
        assert!(text.starts_with("stale:"), "{text}");
        assert!(text.contains("+added elsewhere"), "{text}");
        assert_eq!(
            std::fs::read_to_string(root.join("a.txt")).unwrap(),
            "one\ntwo\nadded elsewhere\n"
        );
        // Following the text: the version it names is the one a fresh read gives, and with
        // it the write goes through.
        let named = text
            .rsplit_once("expected_version \"")
            .and_then(|(_, rest)| rest.split('"').next())
            .unwrap()
            .to_string();
        let now = version_of(&ok(&ws, case.read.0, (case.read.1)(&path)), "a.txt");
        assert_eq!(named, now);
        ok(
            &ws,
            case.write.0,
            expecting((case.write.1)(&path, "ONE"), &now),
        );
    }
}

#[test]
fn a_replacement_whose_quote_is_untouched_rebases_onto_the_changed_file_and_says_so() {
    for profile in [
        ProfileConfig::from(GgConfig::default()),
        QwenConfig::default().into(),
        PicoclawConfig::default().into(),
    ] {
        let case = cases()
            .into_iter()
            .find(|c| c.profile.profile() == profile.profile())
            .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::write(root.join("a.txt"), "head\nmiddle\ntail\n").unwrap();
        let ws = open(&root, profile, true);
        let path = root.join("a.txt").display().to_string();
        let token = version_of(&ok(&ws, case.read.0, (case.read.1)(&path)), "a.txt");
        std::fs::write(root.join("a.txt"), "HEAD\nmiddle\ntail\n").unwrap();
        let out = ok(
            &ws,
            case.edit.0,
            expecting((case.edit.1)(&path, "tail", "end"), &token),
        );
        assert!(out.contains("rebased:"), "{out}");
        assert_eq!(
            std::fs::read_to_string(root.join("a.txt")).unwrap(),
            "HEAD\nmiddle\nend\n"
        );
        // A quote whose own text changed is stale.
        let token = version_of(&out, "a.txt");
        std::fs::write(root.join("a.txt"), "HEAD\nmuddle\nend\n").unwrap();
        let out = call(
            &ws,
            case.edit.0,
            expecting((case.edit.1)(&path, "middle", "centre"), &token),
        );
        assert!(out.is_error, "{}", out.text_content());
        assert!(out.text_content().starts_with("stale:"));
        assert_eq!(
            std::fs::read_to_string(root.join("a.txt")).unwrap(),
            "HEAD\nmuddle\nend\n"
        );
    }
}

#[test]
fn without_the_switch_texts_and_schemas_are_the_profiles_own() {
    for case in cases() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::write(root.join("a.txt"), "one\n").unwrap();
        let path = root.join("a.txt").display().to_string();
        let plain = open(&root, case.profile.clone(), false);
        let versioned = open(&root, case.profile.clone(), true);
        let read_plain = call(&plain, case.read.0, (case.read.1)(&path));
        let read_versioned = call(&versioned, case.read.0, (case.read.1)(&path));
        assert!(!read_plain.text_content().contains("version: "));
        // The profile's own blocks come first, unchanged; the version is a block of its own.
        assert_eq!(
            read_versioned.content[..read_versioned.content.len() - 1],
            read_plain.content[..]
        );
        let schema = |ws: &Workspace| {
            serde_json::to_string(
                &ws.tools()
                    .into_iter()
                    .map(|t| t.input_schema)
                    .collect::<Vec<_>>(),
            )
            .unwrap()
        };
        assert!(!schema(&plain).contains("expected_version"));
        assert!(schema(&versioned).contains("expected_version"));
    }
}

#[test]
fn a_non_accessible_file_gets_no_version_and_its_content_is_never_compared() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::write(root.join("key.pem"), "SECRET\n").unwrap();
    let ws = open(&root, gg_with_secret(), true);
    let path = root.join("key.pem").display().to_string();
    let read = call(&ws, "read_file", json!({"path": path}));
    assert!(read.is_error);
    assert!(!read.text_content().contains("version: "));
    let token = "v000000000000";
    let out = call(
        &ws,
        "write_file",
        json!({"path": path, "content": "x", "expected_version": token}),
    );
    assert!(out.is_error);
    assert!(!out.text_content().contains("SECRET"));
    assert!(
        !out.text_content().starts_with("stale:"),
        "{}",
        out.text_content()
    );
    assert_eq!(
        std::fs::read_to_string(root.join("key.pem")).unwrap(),
        "SECRET\n"
    );
}
