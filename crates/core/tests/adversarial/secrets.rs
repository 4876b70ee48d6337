//! Secrets (coder, the profile with `non_accessible_globs`), beyond `coder_jail.rs`: hard-link
//! aliases, content search, moves *into* a secret path, `..` detours, case variants in
//! subfolders. Setup: the standard fixture, opened as coder with
//! `non_accessible_globs: ["**/.env", "**/*.pem", "**/secrets/**"]`, plus `root/.env`,
//! `root/sub/K.PEM`, `root/secrets/a.txt`, `root/sub/.ENV`, each holding "TOP SECRET ...".

use fsgate_core::{CoderConfig, Options, Workspace};
use serde_json::json;

use super::support::*;

fn coder_with_secrets(extra: impl FnOnce(&std::path::Path)) -> (Fx, Workspace) {
    let fx = Fx::with(P::Coder, |b| {
        let r = b.join("root");
        write(&r.join(".env"), "TOP SECRET env\n");
        write(&r.join("sub/K.PEM"), "TOP SECRET pem\n");
        write(&r.join("secrets/a.txt"), "TOP SECRET dir\n");
        write(&r.join("sub/.ENV"), "TOP SECRET upper env\n");
        extra(b);
    });
    let mut o = Options::new(&fx.root);
    o.roots = vec![fx.root.clone()];
    o.profile = CoderConfig {
        non_accessible_globs: vec!["**/.env".into(), "**/*.pem".into(), "**/secrets/**".into()],
        ..CoderConfig::default()
    }
    .into();
    let ws = Workspace::open(o).unwrap();
    (fx, ws)
}

/// Setup: `root/alias.txt` is a hard link to `root/.env`. Call: read-file `alias.txt`.
/// Expected: refused (the inode is a secret's). Unchanged: everything.
#[test]
fn a_hard_link_alias_of_a_secret_is_not_readable() {
    let (fx, ws) = coder_with_secrets(|b| {
        std::fs::hard_link(b.join("root/.env"), b.join("root/alias.txt")).unwrap();
    });
    let before = fx.snap();
    for args in [
        json!({"path": "alias.txt"}),
        json!({"paths": ["alias.txt"]}),
    ] {
        let out = ws.call("read-file", args).unwrap();
        assert!(
            !all_text(&out).contains(SECRET),
            "leaked: {}",
            out.text_content()
        );
    }
    same(&before, &fx.snap(), "read-file alias");
}

/// Calls: search (content and paths) for "TOP SECRET" and ".env" from the root and from
/// `sub`, with and without default excludes, ignore_case. Expected: no secret text in any
/// output. Unchanged: everything.
#[test]
fn content_search_never_returns_secret_text() {
    let (fx, ws) = coder_with_secrets(|_| {});
    let before = fx.snap();
    for path in [".", "sub", "secrets"] {
        for args in [
            json!({"query": "TOP SECRET", "path": path, "search_content": true}),
            json!({"query": "top secret", "path": path, "search_content": true, "ignore_case": true}),
            json!({"query": "SECRET", "path": path, "search_content": true, "search_paths": true, "use_default_excludes": false}),
            json!({"query": "T.P S.CRET", "path": path, "search_content": true, "regex": true}),
        ] {
            let out = ws.call("search", args.clone()).unwrap();
            assert!(
                !all_text(&out).contains(SECRET),
                "search {args} leaked: {}",
                out.text_content()
            );
        }
    }
    for tool in ["tree", "list-folder"] {
        let out = ws.call(tool, json!({"path": "."})).unwrap();
        assert!(!all_text(&out).contains(SECRET), "{tool} leaked");
    }
    same(&before, &fx.snap(), "search");
}

/// Calls: move `bait.txt` to new secret names (`secrets/new.txt`, `sub/.env`, `x.PEM`,
/// `sub/new.Pem`), with and without overwrite. Expected: refused. Unchanged: `bait.txt`
/// stays, no new file appears.
#[test]
fn moving_a_file_into_a_secret_path_is_refused() {
    let (fx, ws) = coder_with_secrets(|_| {});
    let before = fx.snap();
    for to in [
        "secrets/new.txt",
        "sub/.env",
        "x.PEM",
        "sub/new.Pem",
        "Secrets/b.txt",
    ] {
        for overwrite in [false, true] {
            let out = ws
                .call(
                    "move",
                    json!({"files": [{"from": "bait.txt", "to": to, "overwrite": overwrite}]}),
                )
                .unwrap();
            assert!(failed(&out), "move to {to} succeeded");
            same(&before, &fx.snap(), &format!("move to {to}"));
        }
    }
}

/// Calls: read-file and update-file of secrets reached through `..` detours and `./`
/// (`sub/../.env`, `./sub/K.PEM`, `sub/../secrets/./a.txt`, the absolute path of `.env`).
/// Expected: refused, no secret text. Unchanged: everything.
#[test]
fn secrets_reached_through_detours_are_refused() {
    let (fx, ws) = coder_with_secrets(|_| {});
    let before = fx.snap();
    for path in [
        "sub/../.env".to_string(),
        "./sub/K.PEM".to_string(),
        "sub/../secrets/./a.txt".to_string(),
        s(&fx.root.join(".env")),
        "sub//.ENV".to_string(),
    ] {
        let out = ws.call("read-file", json!({"path": path})).unwrap();
        assert!(failed(&out), "read-file {path} succeeded");
        assert!(!all_text(&out).contains(SECRET), "read-file {path} leaked");
        let out = ws
            .call(
                "update-file",
                json!({"files": [{"path": path, "ops": [{"op": "insert", "at_line": 1, "content": "PWNED"}]}]}),
            )
            .unwrap();
        assert!(failed(&out), "update-file {path} succeeded");
        same(&before, &fx.snap(), &path);
    }
}
