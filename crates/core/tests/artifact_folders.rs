#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_methods)]

//! Artifact folders (`.picoclaw/tool-results`, `.fsgate/artifacts`, sgpt's configured
//! `artifact_dir`) hold stale copies of files a tool once showed. Every walk of every profile —
//! search, tree, glob, grep, the lore library — leaves them out, while a path named inside one
//! is still searched in full, the folder's own `.gitignore` of `*` notwithstanding.

use std::path::{Path, PathBuf};

use fsgate_core::{Options, Profile, SgptConfig, Workspace};
use serde_json::{Value, json};

/// A workspace whose source file has stale copies in both artifact folders; sgpt's holds the
/// `.gitignore` of `*` that keeps it out of git, picoclaw's none (so the ignore files alone
/// would not hide it).
fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let write = |rel: &str, text: &str| {
        let path = dir.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write("src/app.rs", "fn needle() {}\n");
    write(".picoclaw/notes.md", "needle beside the artifact folder\n");
    write(
        ".picoclaw/tool-results/read_file-1.txt",
        "fn needle() {} // stale\n",
    );
    write(".fsgate/artifacts/.gitignore", "*\n");
    write(".fsgate/artifacts/exec-1.log", "fn needle() {} // stale\n");
    // Not an artifact folder: only the exact root-relative paths are.
    write("lib/.fsgate/artifacts/kept.rs", "fn needle() {}\n");
    dir
}

fn open(root: &Path, profile: Profile, adjust: impl FnOnce(&mut Options)) -> Workspace {
    let mut options = Options::new(root);
    options.profile = profile.into();
    adjust(&mut options);
    Workspace::open(options).unwrap()
}

fn ok(ws: &Workspace, tool: &str, args: Value) -> String {
    let out = ws.call(tool, args).unwrap();
    let text = out.text_content();
    assert!(!out.is_error, "{tool} failed: {text}");
    text
}

/// Asserts `text` shows the source and no stale copy.
fn no_stale_copies(what: &str, text: &str) {
    assert!(text.contains("app.rs"), "{what} lost the source: {text}");
    assert!(
        text.contains("kept.rs"),
        "{what} lost a look-alike folder: {text}"
    );
    for stale in ["read_file-1.txt", "exec-1.log"] {
        assert!(!text.contains(stale), "{what} shows {stale}: {text}");
    }
}

#[test]
fn gg_search_and_tree_leave_artifact_folders_out_confined_or_not() {
    let dir = workspace();
    for jail in [false, true] {
        let ws = open(dir.path(), Profile::Gg, |o| o.jail = jail);
        // Twice: the second search runs on the folder listings kept from the first.
        for _ in 0..2 {
            let found = ok(&ws, "search", json!({"query": "needle"}));
            no_stale_copies("gg search", &found);
            assert!(found.contains(".picoclaw/notes.md"), "{found}");
        }
        let tree = ok(&ws, "tree", json!({"depth": 5}));
        no_stale_copies("gg tree", &tree);
        assert!(!tree.contains("tool-results"), "{tree}");
        assert!(tree.contains("notes.md"), "{tree}");
    }
}

#[test]
fn a_path_named_inside_an_artifact_folder_is_searched_and_treed_in_full() {
    let dir = workspace();
    let ws = open(dir.path(), Profile::Gg, |_| {});
    let found = ok(
        &ws,
        "search",
        json!({"query": "needle", "path": ".picoclaw/tool-results"}),
    );
    assert!(found.contains("read_file-1.txt"), "{found}");
    // The folder's `.gitignore` of `*` does not hide what was named.
    for path in [".fsgate/artifacts", ".fsgate/artifacts/exec-1.log"] {
        let found = ok(&ws, "search", json!({"query": "needle", "path": path}));
        assert!(found.contains("exec-1.log"), "{path}: {found}");
    }
    let tree = ok(&ws, "tree", json!({"path": ".fsgate/artifacts"}));
    assert!(tree.contains("exec-1.log"), "{tree}");

    let qwen = open(dir.path(), Profile::Qwen, |_| {});
    let grep = ok(
        &qwen,
        "grep_search",
        json!({"pattern": "needle", "path": ".fsgate/artifacts"}),
    );
    assert!(grep.contains("exec-1.log"), "{grep}");

    let coder = open(dir.path(), Profile::Coder, |o| {
        o.roots = vec![dir.path().to_path_buf()];
    });
    let found = ok(
        &coder,
        "search",
        json!({"query": "needle", "path": ".fsgate/artifacts"}),
    );
    assert!(found.contains("exec-1.log"), "{found}");
}

#[test]
fn coder_search_skips_artifact_folders_and_its_tree_shows_them_unentered() {
    let dir = workspace();
    let ws = open(dir.path(), Profile::Coder, |o| {
        o.roots = vec![dir.path().to_path_buf()];
    });
    let found = ok(
        &ws,
        "search",
        json!({"query": "needle", "use_default_excludes": false}),
    );
    no_stale_copies("coder search", &found);
    let out = ws
        .call(
            "tree",
            json!({"max_depth": 6, "use_default_excludes": false}),
        )
        .unwrap();
    assert!(!out.is_error, "{}", out.text_content());
    no_stale_copies("coder tree", &out.text_content());
    let tree = out.structured.unwrap();
    let child = |node: &Value, name: &str| -> Value {
        node["children"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == name)
            .cloned()
            .unwrap_or_else(|| panic!("no {name} in {node}"))
    };
    let results = child(&child(&tree["root"], ".picoclaw"), "tool-results");
    assert_eq!(
        results["truncated"]["reason"], "artifact_folder",
        "{results}"
    );
    assert!(results["children"].is_null(), "{results}");
    let hint = results["truncated"]["hint"].as_str().unwrap();
    assert!(hint.contains("tool-results"), "{hint}");
}

#[test]
fn qwen_glob_and_grep_skip_artifact_folders_and_its_listing_still_shows_them() {
    let dir = workspace();
    let ws = open(dir.path(), Profile::Qwen, |_| {});
    no_stale_copies("qwen glob", &ok(&ws, "glob", json!({"pattern": "**/*"})));
    no_stale_copies(
        "qwen grep",
        &ok(&ws, "grep_search", json!({"pattern": "needle"})),
    );
    let listing = ok(&ws, "list_directory", json!({"path": ".picoclaw"}));
    assert!(listing.contains("[DIR] tool-results"), "{listing}");
    assert!(!listing.contains("ignored"), "{listing}");
}

#[test]
fn picoclaw_search_skips_artifact_folders() {
    let dir = workspace();
    let ws = open(dir.path(), Profile::Picoclaw, |_| {});
    let found = ok(
        &ws,
        "search_files",
        json!({"pattern": "needle", "output_mode": "files_only"}),
    );
    no_stale_copies("picoclaw search", &found);
}

#[test]
fn sgpt_lore_walk_skips_the_configured_artifact_folder() {
    let dir = workspace();
    let lore = "---\ntitle: Needle lore\n---\nneedle\n";
    std::fs::create_dir_all(dir.path().join("runs/old")).unwrap();
    std::fs::write(dir.path().join("runs/old/stale.md"), lore).unwrap();
    std::fs::write(dir.path().join("guide.md"), lore).unwrap();
    let ws = open(dir.path(), Profile::Sgpt, |o| {
        o.profile = SgptConfig {
            lore_libraries: vec![PathBuf::from(".")],
            artifact_dir: PathBuf::from("runs/old/../old"),
            ..SgptConfig::default()
        }
        .into();
    });
    let found = ok(&ws, "search_lores", json!({"query": "needle"}));
    assert!(found.contains("guide.md"), "{found}");
    assert!(!found.contains("stale.md"), "{found}");
}

#[test]
fn the_artifact_rule_names_exact_root_relative_folders() {
    let dir = workspace();
    let access = fsgate_core::access::Access::new(dir.path())
        .unwrap()
        .with_artifact_dir(Path::new("out/runs"));
    let root = access.root().to_path_buf();
    assert!(access.is_artifact_dir(&root.join(".picoclaw/tool-results")));
    assert!(access.is_artifact_dir(&root.join(".fsgate/artifacts")));
    assert!(access.is_artifact_dir(&root.join("out/runs")));
    assert!(access.is_artifact_dir(&root.join("x/../.fsgate/artifacts")));
    assert!(!access.is_artifact_dir(&root.join(".picoclaw")));
    assert!(!access.is_artifact_dir(&root.join("lib/.fsgate/artifacts")));
    assert!(!access.is_artifact_dir(Path::new("/.fsgate/artifacts")));
    assert!(access.in_artifact_dir(&root.join(".fsgate/artifacts/exec-1.log")));
    assert!(!access.in_artifact_dir(&root.join(".fsgate/artifacts-old")));
    // Inside one, the folder's own `.gitignore` of `*` does not hide what was named.
    assert!(!access.is_ignored(&root.join(".fsgate/artifacts/exec-1.log"), false));
    // A folder that is no folder below the root adds nothing.
    let whole = fsgate_core::access::Access::new(dir.path())
        .unwrap()
        .with_artifact_dir(Path::new("."));
    assert!(!whole.in_artifact_dir(&root.join("src")));
}
