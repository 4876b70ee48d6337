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
use std::path::PathBuf;
use std::process::Command;

use serde_json::{Value, json};

/// The unprivileged user and group the calls run as.
const USER: (&str, &str, u32) = ("nobody", "nogroup", 65534);

struct Fixture {
    _tmp: tempfile::TempDir,
    ws: PathBuf,
    state: PathBuf,
}

impl Fixture {
    /// `None` (with the reason printed) where the case cannot be set up.
    fn new() -> Option<Fixture> {
        if !running_as_root() {
            eprintln!("skipped: the tests do not run as root, so they cannot act as another user");
            return None;
        }
        if Command::new("setpriv").arg("--version").output().is_err() {
            eprintln!("skipped: setpriv is not installed");
            return None;
        }
        let tmp = tempfile::tempdir().unwrap();
        std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        let ws = tmp.path().join("ws");
        let state = tmp.path().join("state");
        for dir in [&ws, &state] {
            std::fs::create_dir(dir).unwrap();
            std::os::unix::fs::chown(dir, Some(USER.2), Some(USER.2)).unwrap();
        }
        for dir in ["open", "locked"] {
            std::fs::create_dir(ws.join(dir)).unwrap();
            std::fs::write(ws.join(dir).join("hit.txt"), "needle\n").unwrap();
        }
        std::fs::set_permissions(ws.join("locked"), std::fs::Permissions::from_mode(0o700))
            .unwrap();
        Some(Fixture {
            _tmp: tmp,
            ws,
            state,
        })
    }

    /// Runs `fsgate call TOOL ARGS --profile PROFILE --root ws EXTRA…` as the unprivileged
    /// user; its stdout.
    fn call(&self, profile: &str, extra: &[&str], tool: &str, args: &Value) -> String {
        let out = Command::new("setpriv")
            .args(["--reuid", USER.0, "--regid", USER.1, "--clear-groups", "--"])
            .arg(env!("CARGO_BIN_EXE_fsgate"))
            .args([
                "call",
                tool,
                &args.to_string(),
                "--profile",
                profile,
                "--root",
            ])
            .arg(&self.ws)
            .args(extra)
            .env("HOME", &self.state)
            .env("FSGATE_STATE_DIR", &self.state)
            .env_remove("XDG_CONFIG_HOME")
            .current_dir(&self.ws)
            .output()
            .unwrap();
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

fn running_as_root() -> bool {
    std::fs::read_to_string("/proc/self/status").is_ok_and(|status| {
        status
            .lines()
            .find_map(|l| l.strip_prefix("Uid:"))
            .and_then(|uid| uid.split_whitespace().nth(1).map(|u| u == "0"))
            .unwrap_or(false)
    })
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
