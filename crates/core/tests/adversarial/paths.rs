//! Paths the kernel reads strictly (issue 16, items 4 and 5): a trailing slash names a
//! directory, so `bait.txt/` is refused as not one in every tool of every profile (the kernel
//! answers `ENOTDIR`) and no file is written at `new.txt/`; a name over `NAME_MAX` or a path
//! over `PATH_MAX` with missing parents is refused before any folder is made; and a write that
//! fails after making its folders removes them again. Setup is the standard fixture of
//! `support`; every case checks that nothing under `base` changed.

use super::support::*;
use fsgate_core::Workspace;
use serde_json::{Value, json};

macro_rules! every {
    ($body:ident) => {
        mod $body {
            use super::*;
            #[test]
            fn gg() {
                super::$body(P::Gg, true)
            }
            /// gg as it serves by default, without a jail: paths go to the kernel as given.
            #[test]
            fn gg_unconfined() {
                super::$body(P::Gg, false)
            }
            #[test]
            fn coder() {
                super::$body(P::Coder, true)
            }
            #[test]
            fn qwen() {
                super::$body(P::Qwen, true)
            }
            #[test]
            fn pico() {
                super::$body(P::Pico, true)
            }
            #[test]
            fn sgpt() {
                super::$body(P::Sgpt, true)
            }
            #[test]
            fn native() {
                super::$body(P::Native, true)
            }
        }
    };
}

/// The standard fixture (`setup` run on `base` first), confined to `root` or not.
fn fixture(p: P, confined: bool, setup: impl FnOnce(&std::path::Path)) -> Fx {
    let mut fx = Fx::with(p, setup);
    if !confined {
        let mut options = options(p, &fx.root);
        options.jail = false;
        fx.ws = Workspace::open(options).unwrap();
    }
    fx
}

/// Every call of the profile that creates a file at `path`, its missing parents too.
fn creations(p: P, path: &str) -> Vec<(&'static str, Value)> {
    match p {
        P::Gg => vec![("write_file", json!({"path": path, "content": "new\n"}))],
        P::Coder => vec![
            (
                "create-file",
                json!({"files": [{"path": path, "content": "new\n", "parents": true}]}),
            ),
            (
                "move",
                json!({"files": [{"from": "bait.txt", "to": path, "parents": true}]}),
            ),
        ],
        P::Qwen => vec![("write_file", json!({"file_path": path, "content": "new\n"}))],
        P::Pico => vec![
            ("write_file", json!({"path": path, "content": "new\n"})),
            ("append_file", json!({"path": path, "content": "new\n"})),
        ],
        P::Sgpt => vec![(
            "diff",
            json!({"path": path, "diff": "--- /dev/null\n+++ b/x\n@@ -0,0 +1 @@\n+new\n"}),
        )],
        P::Native => vec![
            ("write_file", json!({"path": path, "content": "new\n"})),
            ("move", json!({"from": "bait.txt", "to": path})),
        ],
    }
}

/// Runs each call, which must fail and change nothing under `base`; returns the texts.
fn all_refused(fx: &Fx, calls: Vec<(&'static str, Value)>) -> Vec<String> {
    let mut texts = Vec::new();
    for (tool, args) in calls {
        let before = fx.snap();
        let out = fx.call(tool, args.clone());
        let what = format!("{:?} {tool} {}", fx.p, shorten(&args.to_string()));
        assert!(failed(&out), "{what} succeeded: {}", out.text_content());
        same(&before, &fx.snap(), &what);
        texts.push(all_text(&out));
    }
    texts
}

fn shorten(s: &str) -> String {
    if s.len() > 200 {
        format!("{}…", &s[..200])
    } else {
        s.to_string()
    }
}

/// Calls: every read, mutation, listing and walk of `bait.txt/`, `bait.txt/.` and
/// `bait.txt//`. Expected: each is refused, saying the path names a file, not a directory
/// (sgpt reports it for the one file of its batch). Unchanged: everything.
fn a_trailing_slash_on_a_file_is_refused_by_every_tool(p: P, confined: bool) {
    let fx = fixture(p, confined, |_| {});
    for path in ["bait.txt/", "bait.txt/.", "bait.txt//"] {
        let mut calls = vec![read(p, path), read_window(p, path)];
        calls.extend(mutations(p, path));
        calls.extend(list(p, path));
        calls.extend(walks(p, path));
        if p == P::Coder {
            calls.push(("delete-file", json!({"paths": [path]})));
            calls.push((
                "move",
                json!({"files": [{"from": path, "to": "moved.txt"}]}),
            ));
        }
        for text in all_refused(&fx, calls) {
            assert!(
                text.contains("not a directory") || text.contains("not a folder"),
                "{p:?} {path}: {text}"
            );
        }
    }
}
every!(a_trailing_slash_on_a_file_is_refused_by_every_tool);

/// Calls: every call that creates a file, at `new.txt/` and `fresh/new.txt/`. Expected: refused
/// (a path ending in a slash names a directory, and no file is written there). Unchanged:
/// nothing is created, not even `fresh/`.
fn no_file_is_written_at_a_path_ending_in_a_slash(p: P, confined: bool) {
    let fx = fixture(p, confined, |_| {});
    for path in ["new.txt/", "fresh/new.txt/"] {
        for text in all_refused(&fx, creations(p, path)) {
            assert!(
                text.contains("slash") || text.contains("directory"),
                "{p:?} {path}: {text}"
            );
        }
    }
}
every!(no_file_is_written_at_a_path_ending_in_a_slash);

/// Setup: `root/sub/in.txt`. Calls: list and walk `sub/`, read `sub/in.txt` (control: a
/// trailing slash on a directory is what it should be). Expected: success.
fn a_trailing_slash_on_a_directory_is_a_directory(p: P, confined: bool) {
    let fx = fixture(p, confined, |b| {
        write(&b.join("root/sub/in.txt"), "bait in\n")
    });
    let mut calls: Vec<_> = list(p, "sub/").into_iter().collect();
    calls.extend(walks(p, "sub/"));
    calls.extend(walks(p, "sub/."));
    for (tool, args) in calls {
        let out = fx.call(tool, args.clone());
        assert!(!out.is_error, "{p:?} {tool} {args}: {}", out.text_content());
    }
    let (tool, args) = read(p, "sub/in.txt");
    assert!(!failed(&fx.call(tool, args)), "{p:?}");
}
every!(a_trailing_slash_on_a_directory_is_a_directory);

/// Calls: create `d1/d2/…/d41/NAME` where NAME is 256 bytes (over NAME_MAX), and a path of 41
/// missing folders of 100 bytes each (over PATH_MAX), with every call that creates parents.
/// Expected: refused as a name or path too long, naming the limit. Unchanged: none of the 41
/// folders is made.
fn an_over_long_name_or_path_makes_no_folder(p: P, confined: bool) {
    let fx = fixture(p, confined, |_| {});
    let parents: String = (1..=41).map(|i| format!("d{i}/")).collect();
    let long_name = format!("{parents}{}", "n".repeat(256));
    let long_path: String = (1..=41).map(|i| format!("{i:0>100}/")).collect::<String>() + "f.txt";
    for (path, limit) in [(long_name, "255 bytes"), (long_path, "4095 bytes")] {
        for text in all_refused(&fx, creations(p, &path)) {
            assert!(
                text.contains(limit) || text.contains("too long"),
                "{p:?}: the refusal does not name the limit: {}",
                shorten(&text)
            );
        }
    }
}
every!(an_over_long_name_or_path_makes_no_folder);

/// Setup: a tmpfs of four inodes mounted on `root/t` (the mount's own folder is one). Calls:
/// create `t/a/b/c/d/f.txt` with every call that creates parents: the first folders are made,
/// then the filesystem runs out of inodes. Expected: the call fails. Unchanged: the folders it
/// made are gone again (`t` is empty).
fn a_write_that_fails_after_making_folders_removes_them(p: P, confined: bool) {
    let mut mount = None;
    let mut fx = fixture(p, confined, |b| {
        let t = b.join("root/t");
        std::fs::create_dir(&t).unwrap();
        mount = Tmpfs::mount(&t, "1m,nr_inodes=4");
    });
    if mount.is_none() {
        eprintln!("skipped: a tmpfs cannot be mounted here");
        return;
    }
    // Unmounted before the fixture's folder goes, even when the test fails.
    fx._mnt = mount;
    all_refused(&fx, creations(p, "t/a/b/c/d/f.txt"));
    assert_eq!(std::fs::read_dir(fx.root.join("t")).unwrap().count(), 0);
}
every!(a_write_that_fails_after_making_folders_removes_them);
