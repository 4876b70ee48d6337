//! Walks say which folders they could not read (issue 16, item 10).
//!
//! The real `fsgate call` runs as an unprivileged user (`nobody`, through `setpriv`) on a
//! workspace holding `open/hit.txt` and `locked/hit.txt`, where `locked` is root's and mode 0700:
//! the kernel refuses that user its listing. Every search and tree of every profile must still
//! answer, find `open/hit.txt`, and say that it passed over one unreadable folder (coder in its
//! `skipped` field, and its tree on the folder's node); nothing under `locked` is shown.
//!
//! The tests run as root; without root or `setpriv` they print why and pass without checking.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::disallowed_methods,
    clippy::disallowed_types
)]

use std::os::unix::fs::PermissionsExt;

use serde_json::{Value, json};

use crate::as_user::UserWorkspace;

/// A workspace of the unprivileged user holding `open/hit.txt` and `locked/hit.txt`, where
/// `locked` is root's and mode 0700.
struct Fixture(UserWorkspace);

impl std::ops::Deref for Fixture {
    type Target = UserWorkspace;
    fn deref(&self) -> &UserWorkspace {
        &self.0
    }
}

impl Fixture {
    /// `None` (with the reason printed) where the case cannot be set up.
    fn new() -> Option<Fixture> {
        let user = UserWorkspace::new()?;
        let ws = &user.ws;
        for dir in ["open", "locked"] {
            std::fs::create_dir(ws.join(dir)).unwrap();
            std::fs::write(ws.join(dir).join("hit.txt"), "needle\n").unwrap();
        }
        std::fs::set_permissions(ws.join("locked"), std::fs::Permissions::from_mode(0o700))
            .unwrap();
        Some(Fixture(user))
    }

    /// Runs `fsgate call` as the unprivileged user (see [`UserWorkspace::run`]); its stdout.
    fn call(&self, profile: &str, extra: &[&str], tool: &str, args: &Value) -> String {
        let out = self.0.run(profile, extra, tool, args);
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{profile} {tool}: {stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        stdout
    }
}

#[test]
fn every_search_and_tree_says_it_passed_over_an_unreadable_folder() {
    let Some(fx) = Fixture::new() else {
        return;
    };
    let gg_search = json!({"query": "needle"});
    let gg_tree = json!({"depth": 3});
    // (profile, extra arguments, tool, arguments, what the answer must hold)
    let cases: Vec<(&str, &[&str], &str, Value, &str)> = vec![
        (
            "gg",
            &[],
            "search",
            gg_search.clone(),
            "\n[skipped: 1 unreadable folder]",
        ),
        (
            "gg",
            &[],
            "tree",
            gg_tree.clone(),
            "\n[skipped: 1 unreadable folder]",
        ),
        (
            "gg",
            &["--jail", "roots"],
            "search",
            gg_search,
            "\n[skipped: 1 unreadable folder]",
        ),
        (
            "gg",
            &["--jail", "roots"],
            "tree",
            gg_tree,
            "\n[skipped: 1 unreadable folder]",
        ),
        (
            "coder",
            &[],
            "search",
            json!({"query": "needle"}),
            r#""skipped":{"non_accessible":0,"symlink_loops":0,"unreadable_folders":1}"#,
        ),
        (
            "coder",
            &[],
            "tree",
            json!({"path": "."}),
            r#""skipped":{"non_accessible":0,"symlink_loops":0,"unreadable_folders":1}"#,
        ),
        (
            "qwen",
            &[],
            "glob",
            json!({"pattern": "**/*.txt"}),
            "\n\n(skipped: 1 unreadable folder)",
        ),
        (
            "qwen",
            &[],
            "grep_search",
            json!({"pattern": "needle"}),
            "\n\n(skipped: 1 unreadable folder)",
        ),
        (
            "picoclaw",
            &[],
            "search_files",
            json!({"pattern": "needle"}),
            "\nPassed over by the walk: 1 unreadable folder.\n",
        ),
        (
            "picoclaw",
            &[],
            "search_files",
            json!({"pattern": "", "target": "files"}),
            "\nPassed over by the walk: 1 unreadable folder.\n",
        ),
    ];
    for (profile, extra, tool, args, says) in cases {
        let out = fx.call(profile, extra, tool, &args);
        let what = format!("{profile} {extra:?} {tool} {args}: {out}");
        assert!(out.contains(says), "{what}");
        assert!(out.contains("hit.txt"), "{what}");
        assert!(!out.contains("locked/hit.txt"), "{what}");
    }
    // coder's tree also flags the folder it could not enter.
    let tree = fx.call("coder", &[], "tree", &json!({"path": "."}));
    let tree: Value = serde_json::from_str(&tree).unwrap();
    let locked = tree["root"]["children"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["name"] == "locked")
        .unwrap();
    assert_eq!(locked["truncated"]["reason"], "unreadable", "{tree}");
    assert!(locked.get("children").is_none(), "{tree}");
}
