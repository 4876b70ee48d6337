//! A file the server's user may not write is never replaced (issue 16, item 1).
//!
//! The real `fsgate call` runs as an unprivileged user (`nobody`, through `setpriv`) in a folder
//! that user may write, holding a `0644` file owned by root. The kernel would refuse that user
//! an `open(O_WRONLY)` of the file; an atomic replacement needs only the folder's permission, so
//! without the check every profile's writes would replace the file and it would become
//! `nobody`'s. Every write, edit, patch, append and move onto it must be refused, naming the
//! owner and the mode, with the file's bytes, inode and owner unchanged and nothing left beside
//! it; a file of the user's own in the same folder is written as usual. Removing the other
//! user's file is the folder's business, as in the kernel (`rm` would remove it too).
//!
//! The tests run as root; without root or `setpriv` they print why and pass without checking.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::disallowed_methods,
    clippy::disallowed_types
)]

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;

use serde_json::{Value, json};

use crate::as_user::{USER, UserWorkspace};

/// A workspace of the unprivileged user holding `theirs.txt` (root's, 0644) and `mine.txt`
/// (the user's own).
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
        let theirs = ws.join("theirs.txt");
        std::fs::write(&theirs, "bait\n").unwrap();
        std::fs::set_permissions(&theirs, std::fs::Permissions::from_mode(0o644)).unwrap();
        let mine = ws.join("mine.txt");
        std::fs::write(&mine, "bait\n").unwrap();
        std::os::unix::fs::chown(&mine, Some(USER.2), Some(USER.2)).unwrap();
        Some(Fixture(user))
    }

    /// Runs `fsgate call` as the unprivileged user (see [`UserWorkspace::run`]); its stdout.
    fn call(&self, profile: &str, extra: &[&str], tool: &str, args: &Value) -> String {
        let out = self.0.run(profile, extra, tool, args);
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            out.status.code().is_some_and(|c| c < 2),
            "{profile} {tool}: exit {:?}: {}{}",
            out.status.code(),
            stdout,
            String::from_utf8_lossy(&out.stderr)
        );
        stdout
    }

    fn path(&self, name: &str) -> String {
        self.ws.join(name).to_str().unwrap().to_string()
    }
}

/// Bytes, inode, owner and mode of `path`.
fn identity(path: &Path) -> (Vec<u8>, u64, u32, u32, u32) {
    let meta = std::fs::metadata(path).unwrap();
    (
        std::fs::read(path).unwrap(),
        meta.ino(),
        meta.uid(),
        meta.gid(),
        meta.mode() & 0o7777,
    )
}

fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Every call of every profile that would change `name`: whole writes, edits, patches,
/// appends and a move onto it. (profile, extra options, tool, arguments.)
fn changes(
    fx: &Fixture,
    name: &str,
) -> Vec<(&'static str, Vec<&'static str>, &'static str, Value)> {
    let abs = fx.path(name);
    vec![
        (
            "gg",
            vec![],
            "write_file",
            json!({"path": name, "content": "PWNED\n"}),
        ),
        (
            "gg",
            vec![],
            "edit_file",
            json!({"path": name, "old_string": "bait", "new_string": "PWNED"}),
        ),
        (
            "gg",
            vec!["--jail", "roots"],
            "write_file",
            json!({"path": name, "content": "PWNED\n"}),
        ),
        (
            "coder",
            vec![],
            "create-file",
            json!({"files": [{"path": name, "content": "PWNED\n", "overwrite": true}]}),
        ),
        (
            "coder",
            vec![],
            "update-file",
            json!({"files": [{"path": name, "ops": [{"op": "replace", "pattern": "bait", "replacement": "PWNED"}]}]}),
        ),
        (
            "qwen",
            vec![],
            "write_file",
            json!({"file_path": abs, "content": "PWNED\n"}),
        ),
        (
            "qwen",
            vec![],
            "edit",
            json!({"file_path": abs, "old_string": "bait", "new_string": "PWNED"}),
        ),
        (
            "picoclaw",
            vec![],
            "write_file",
            json!({"path": name, "content": "PWNED\n", "overwrite": true}),
        ),
        (
            "picoclaw",
            vec![],
            "edit_file",
            json!({"path": name, "old_text": "bait", "new_text": "PWNED"}),
        ),
        (
            "picoclaw",
            vec![],
            "append_file",
            json!({"path": name, "content": "PWNED\n"}),
        ),
        (
            "sgpt",
            vec![],
            "replace",
            json!({"path": name, "patches": [{"search": "bait", "replace": "PWNED"}]}),
        ),
        (
            "sgpt",
            vec![],
            "diff",
            json!({"path": name, "diff": format!("--- a/{name}\n+++ b/{name}\n@@ -1 +1 @@\n-bait\n+PWNED\n")}),
        ),
    ]
}

#[test]
fn another_users_file_in_a_writable_folder_is_never_replaced_by_any_profile() {
    let Some(fx) = Fixture::new() else { return };
    let theirs = fx.ws.join("theirs.txt");
    let before = identity(&theirs);
    let listing = names(&fx.ws);
    for (profile, extra, tool, args) in changes(&fx, "theirs.txt") {
        let out = fx.call(profile, &extra, tool, &args);
        let what = format!("{profile} {tool} {extra:?}");
        assert!(
            out.contains("mode 0644") && out.contains("owned by root (uid 0)"),
            "{what}: the refusal does not name the owner and mode: {out}"
        );
        let refused = match profile {
            "coder" => out.contains("\"code\":\"C216\""),
            "qwen" => out.starts_with("Permission denied writing to file"),
            "sgpt" => out.starts_with("denied:") || out.contains("\"error\":\"denied:"),
            "gg" | "picoclaw" => out.starts_with("denied:"),
            other => panic!("{what}: no refusal wording known for the profile {other}"),
        };
        assert!(refused, "{what}: not refused in the profile's words: {out}");
        assert_eq!(identity(&theirs), before, "{what}: the file changed");
        assert_eq!(
            names(&fx.ws),
            listing,
            "{what}: something was left beside it"
        );
    }
}

#[test]
fn a_move_onto_another_users_file_is_refused_and_moves_nothing() {
    let Some(fx) = Fixture::new() else { return };
    let theirs = fx.ws.join("theirs.txt");
    let before = identity(&theirs);
    let mine = identity(&fx.ws.join("mine.txt"));
    let out = fx.call(
        "coder",
        &[],
        "move",
        &json!({"files": [{"from": "mine.txt", "to": "theirs.txt", "overwrite": true}]}),
    );
    assert!(out.contains("\"code\":\"C216\""), "{out}");
    assert!(
        out.contains("the destination is owned by root (uid 0)"),
        "{out}"
    );
    assert!(out.contains("mode 0644"), "{out}");
    assert_eq!(identity(&theirs), before);
    assert_eq!(identity(&fx.ws.join("mine.txt")), mine);
}

#[test]
fn the_users_own_file_beside_it_is_written_by_every_profile() {
    let Some(fx) = Fixture::new() else { return };
    let mine = fx.ws.join("mine.txt");
    for (profile, extra, tool, args) in changes(&fx, "mine.txt") {
        std::fs::write(&mine, "bait\n").unwrap();
        std::os::unix::fs::chown(&mine, Some(USER.2), Some(USER.2)).unwrap();
        let out = fx.call(profile, &extra, tool, &args);
        let after = std::fs::read_to_string(&mine).unwrap();
        assert!(
            after.contains("PWNED"),
            "{profile} {tool}: the user's own file was not written: {out}"
        );
        assert_eq!(std::fs::metadata(&mine).unwrap().uid(), USER.2);
    }
}

#[test]
fn another_users_file_in_a_writable_folder_is_removed_as_the_kernel_allows() {
    // Deleting is governed by the folder's permission, as for `rm`: the folder is the user's,
    // so the entry is theirs to remove (no sticky bit).
    let Some(fx) = Fixture::new() else { return };
    let out = fx.call(
        "coder",
        &[],
        "delete-file",
        &json!({"paths": ["theirs.txt"]}),
    );
    assert!(out.contains("\"success\":true"), "{out}");
    assert!(!fx.ws.join("theirs.txt").exists());
}
