//! Escapes from the jail for the confining profiles the coder suite does not cover: gg with
//! `jail: true`, qwen, picoclaw and sgpt. Each case runs once per profile (one test each).
//! Setup is the standard fixture of `support`; what must be unchanged is everything under
//! `base` (the workspace's own `.fsgate` artifacts aside) and no secret text may come back.

use std::collections::BTreeMap;
use std::os::unix::fs::symlink;
use std::path::PathBuf;

use serde_json::json;

use super::support::*;

fn guarded_snap(fx: &Fx) -> BTreeMap<PathBuf, String> {
    fx.snap()
}

/// Reading `path` fails and leaks nothing.
fn read_refused(fx: &Fx, path: &str) {
    let (tool, args) = read(fx.p, path);
    let out = fx.call(tool, args);
    let text = all_text(&out);
    assert!(
        !text.contains(SECRET),
        "{:?} {tool} {path} leaked: {text}",
        fx.p
    );
    assert!(
        !text.contains("root:x:0:0"),
        "{:?} {tool} {path} leaked: {text}",
        fx.p
    );
    assert!(failed(&out), "{:?} {tool} {path} succeeded: {text}", fx.p);
}

/// Every mutation aimed at `path` fails and nothing under `base` changes.
fn mutations_refused(fx: &Fx, path: &str) {
    let before = guarded_snap(fx);
    for (tool, args) in mutations(fx.p, path) {
        let out = fx.call(tool, args.clone());
        assert!(
            failed(&out),
            "{:?} {tool} {args} succeeded: {}",
            fx.p,
            out.text_content()
        );
        same(
            &before,
            &guarded_snap(fx),
            &format!("{:?} {tool} {args}", fx.p),
        );
    }
}

fn refused_everywhere(fx: &Fx, path: &str) {
    read_refused(fx, path);
    mutations_refused(fx, path);
    if let Some((tool, args)) = list(fx.p, path) {
        let out = fx.call(tool, args);
        assert!(
            !all_text(&out).contains("secret.txt") || failed(&out),
            "{:?} {tool} {path} listed outside: {}",
            fx.p,
            out.text_content()
        );
    }
}

macro_rules! confined {
    ($body:ident) => {
        confined!($body: gg => P::Gg, qwen => P::Qwen, pico => P::Pico, sgpt => P::Sgpt, native => P::Native);
    };
    ($body:ident: $($(#[$m:meta])* $name:ident => $p:expr),+ $(,)?) => {
        mod $body {
            use super::*;
            $( #[test] $(#[$m])* fn $name() { super::$body($p) } )+
        }
    };
}

/// Setup: standard. Calls: read, every write/edit/append, list on relative paths climbing out
/// with `..` (existing outside file, new outside file, sibling-prefix dir, `..` after a
/// subdirectory). Unchanged: everything.
fn dot_dot_climbing_out(p: P) {
    let fx = Fx::new(p);
    for path in [
        "../outside/secret.txt",
        "../outside/new.txt",
        "sub/../../outside/secret.txt",
        "../root_evil/f.txt",
        "./sub/../../root_evil/new.txt",
    ] {
        refused_everywhere(&fx, path);
    }
    assert!(!fx.out.join("new.txt").exists());
    assert!(!fx.evil.join("new.txt").exists());
}
confined!(dot_dot_climbing_out);

/// Setup: standard. Calls: read/mutate absolute paths outside the root: the outside secret, a
/// new outside file, the sibling `root_evil` (prefix attack, CVE-2025-53110), `/etc/passwd`.
/// Unchanged: everything.
fn absolute_outside_paths(p: P) {
    let fx = Fx::new(p);
    for path in [
        s(&fx.out.join("secret.txt")),
        s(&fx.out.join("new.txt")),
        s(&fx.evil.join("f.txt")),
        format!("{}_evil/f.txt", s(&fx.root)),
        format!("{}/../outside/secret.txt", s(&fx.root)),
    ] {
        refused_everywhere(&fx, &path);
    }
    read_refused(&fx, "/etc/passwd");
}
confined!(absolute_outside_paths);

/// Setup: `root/link.txt -> outside/secret.txt` (absolute) and `root/rel.txt ->
/// ../outside/secret.txt` (relative). Calls: read and every mutation through both links
/// (CVE-2025-53109). Unchanged: the secret, both links.
fn symlinked_file_pointing_outside(p: P) {
    let fx = Fx::with(p, |b| {
        symlink(b.join("outside/secret.txt"), b.join("root/link.txt")).unwrap();
        symlink("../outside/secret.txt", b.join("root/rel.txt")).unwrap();
    });
    refused_everywhere(&fx, "link.txt");
    refused_everywhere(&fx, "rel.txt");
    refused_everywhere(&fx, &s(&fx.root.join("link.txt")));
}
confined!(symlinked_file_pointing_outside);

/// Setup: `root/ld -> outside` (a directory link). Calls: read/mutate `ld/secret.txt`,
/// create `ld/new.txt`, list `ld`, walk `ld` and walk the root (which must not follow the link
/// out). Unchanged: everything; no secret text in any output.
fn symlinked_directory_pointing_outside(p: P) {
    let fx = Fx::with(p, |b| {
        symlink(b.join("outside"), b.join("root/ld")).unwrap();
    });
    refused_everywhere(&fx, "ld/secret.txt");
    refused_everywhere(&fx, "ld/new.txt");
    let before = guarded_snap(&fx);
    for path in ["ld", "."] {
        if let Some((tool, args)) = list(p, path) {
            let out = fx.call(tool, args);
            assert!(
                !all_text(&out).contains("secret.txt"),
                "{p:?} {tool} {path} listed outside"
            );
        }
        for (tool, args) in walks(p, path) {
            let out = fx.call(tool, args.clone());
            let t = all_text(&out);
            assert!(!t.contains(SECRET), "{p:?} {tool} {args} leaked: {t}");
            assert!(
                !t.contains("secret.txt"),
                "{p:?} {tool} {args} walked outside: {t}"
            );
        }
    }
    same(&before, &guarded_snap(&fx), &format!("{p:?}"));
    assert!(!fx.out.join("new.txt").exists());
}
confined!(symlinked_directory_pointing_outside);

/// Setup: `root/a -> root/b -> root/c -> outside/secret.txt` (in, in, out). Calls: read and
/// mutate `a`. Unchanged: everything.
fn link_chain_in_in_out(p: P) {
    let fx = Fx::with(p, |b| {
        symlink(b.join("outside/secret.txt"), b.join("root/c")).unwrap();
        symlink("c", b.join("root/b")).unwrap();
        symlink(b.join("root/b"), b.join("root/a")).unwrap();
    });
    refused_everywhere(&fx, "a");
}
confined!(link_chain_in_in_out);

/// Setup: `root/dl -> outside/created.txt` (dangling) and `root/dd -> outside/newdir`
/// (dangling dir). Calls: every mutation of `dl` and of `dd/x.txt`. Unchanged: nothing is
/// created outside.
fn dangling_link_to_outside_creates_nothing(p: P) {
    let fx = Fx::with(p, |b| {
        symlink(b.join("outside/created.txt"), b.join("root/dl")).unwrap();
        symlink(b.join("outside/newdir"), b.join("root/dd")).unwrap();
    });
    for path in ["dl", "dd/x.txt"] {
        let before = guarded_snap(&fx);
        for (tool, args) in mutations(p, path) {
            let _ = fx.call(tool, args);
            assert!(!fx.out.join("created.txt").exists(), "{p:?} {tool} {path}");
            assert!(!fx.out.join("newdir").exists(), "{p:?} {tool} {path}");
        }
        let after = guarded_snap(&fx);
        // A profile may replace the link by a regular file inside the root; nothing else.
        for (k, v) in &before {
            if !k.ends_with("dl") {
                assert_eq!(after.get(k), Some(v), "{p:?} {path}: {k:?} changed");
            }
        }
        for k in after.keys().filter(|k| !before.contains_key(*k)) {
            assert!(k.starts_with(&fx.root), "{p:?} created {k:?} outside");
        }
    }
}
confined!(dangling_link_to_outside_creates_nothing);

/// Setup: `root/in.txt -> bait.txt`, `root/sl -> sub` with `sub/x.txt` ("inner\n"). Calls: read
/// both through the links, edit `in.txt`. Expected: success (links that stay inside work); the
/// edit lands in `bait.txt` and `in.txt` is still a link. Unchanged: outside.
fn links_that_stay_inside_work(p: P) {
    let fx = Fx::with(p, |b| {
        symlink("bait.txt", b.join("root/in.txt")).unwrap();
        symlink("sub", b.join("root/sl")).unwrap();
        write(&b.join("root/sub/x.txt"), "inner\n");
    });
    let (tool, args) = read(p, "in.txt");
    let out = fx.call(tool, args);
    assert!(!failed(&out), "{p:?} {}", out.text_content());
    assert!(all_text(&out).contains("bait"));
    let (tool, args) = read(p, "sl/x.txt");
    let out = fx.call(tool, args);
    assert!(!failed(&out), "{p:?} {}", out.text_content());
    assert!(all_text(&out).contains("inner"));
    let (tool, args) = edit(p, "in.txt", "bait", "changed");
    let out = fx.call(tool, args);
    assert!(!failed(&out), "{p:?} {}", out.text_content());
    assert!(
        std::fs::symlink_metadata(fx.root.join("in.txt"))
            .unwrap()
            .file_type()
            .is_symlink(),
        "{p:?}: the inside link was replaced by a file"
    );
    assert_eq!(
        std::fs::read_to_string(fx.root.join("bait.txt")).unwrap(),
        "changed\n"
    );
    assert_eq!(
        std::fs::read_to_string(fx.out.join("secret.txt")).unwrap(),
        "TOP SECRET outside\n"
    );
}
confined!(links_that_stay_inside_work);

/// Setup: standard, plus an open descriptor on `outside/secret.txt`. Calls: read and mutate
/// `/proc/self/root/<base>/outside/secret.txt`, `/proc/self/cwd/...` relative to the test's cwd,
/// `/proc/self/fd/<n>`, and `/proc/self/root` itself through a link inside the root.
/// Unchanged: everything.
fn proc_self_magic_links(p: P) {
    let fx = Fx::with(p, |b| {
        symlink("/proc/self/root", b.join("root/pr")).unwrap();
    });
    let fd = std::fs::File::open(fx.out.join("secret.txt")).unwrap();
    let n = std::os::fd::AsRawFd::as_raw_fd(&fd);
    let cwd = std::env::current_dir().unwrap();
    let rel_from_cwd = fx
        .out
        .join("secret.txt")
        .strip_prefix("/")
        .unwrap()
        .to_path_buf();
    let mut up = String::new();
    for _ in cwd.components().skip(1) {
        up.push_str("../");
    }
    for path in [
        format!("/proc/self/root{}", s(&fx.out.join("secret.txt"))),
        format!("/proc/self/cwd/{up}{}", s(&rel_from_cwd)),
        format!("/proc/self/fd/{n}"),
        format!("/proc/thread-self/fd/{n}"),
        format!("pr{}", s(&fx.out.join("secret.txt"))),
    ] {
        refused_everywhere(&fx, &path);
    }
    drop(fd);
}
confined!(proc_self_magic_links);

/// Setup: `root/hl.txt` is a hard link to `outside/secret.txt`. Calls: every mutation of
/// `hl.txt`. Unchanged: `outside/secret.txt` (content and inode), whatever the read policy
/// for hard links is.
fn hard_link_to_outside_is_never_written_through(p: P) {
    let fx = Fx::with(p, |b| {
        std::fs::hard_link(b.join("outside/secret.txt"), b.join("root/hl.txt")).unwrap();
    });
    let before = std::fs::read_to_string(fx.out.join("secret.txt")).unwrap();
    for (tool, args) in mutations(p, "hl.txt") {
        let _ = fx.call(tool, args);
        assert_eq!(
            std::fs::read_to_string(fx.out.join("secret.txt")).unwrap(),
            before,
            "{p:?} {tool} wrote through a hard link into the outside file"
        );
    }
    let (tool, args) = edit(p, "hl.txt", "TOP", "PWNED");
    let _ = fx.call(tool, args);
    assert_eq!(
        std::fs::read_to_string(fx.out.join("secret.txt")).unwrap(),
        before,
        "{p:?} {tool} edited the outside file through a hard link"
    );
}
confined!(hard_link_to_outside_is_never_written_through);

/// Setup: `root/hl.txt` is a hard link to `outside/secret.txt`. Calls: read `hl.txt` whole and
/// as a window, and search the root for the secret's text. Expected: refused or not found (the
/// documented policy: a confined workspace opens no file with more than one name), never the
/// outside content. Unchanged: everything.
fn hard_link_to_outside_is_never_read(p: P) {
    let fx = Fx::with(p, |b| {
        std::fs::hard_link(b.join("outside/secret.txt"), b.join("root/hl.txt")).unwrap();
    });
    for (tool, args) in [read(p, "hl.txt"), read_window(p, "hl.txt")] {
        let out = fx.call(tool, args);
        assert!(
            !all_text(&out).contains(SECRET),
            "{p:?} {tool} read the outside file through a hard link: {}",
            out.text_content()
        );
    }
    for (tool, args) in walks(p, ".") {
        let out = fx.call(tool, args);
        assert!(
            !all_text(&out).contains(SECRET),
            "{p:?} {tool} showed the outside file's text through a hard link"
        );
    }
}
confined!(hard_link_to_outside_is_never_read);

/// Setup: `base/rl -> base/root`; the workspace is opened with `roots: [base/rl]`. Calls: read
/// `bait.txt` (works), `../outside/secret.txt` and `<base>/rl/../outside/secret.txt` (refused).
/// Unchanged: everything.
fn root_given_through_a_symlink(p: P) {
    let fx = Fx::with(p, |b| symlink(b.join("root"), b.join("rl")).unwrap());
    let ws = open(p, &fx.base.join("rl"));
    let (tool, args) = read(p, "bait.txt");
    let out = ws.call(tool, args).unwrap();
    assert!(!failed(&out), "{p:?} {}", out.text_content());
    let (tool, args) = read(p, &format!("{}/rl/bait.txt", s(&fx.base)));
    let out = ws.call(tool, args).unwrap();
    assert!(
        !failed(&out),
        "{p:?} the root's own link path is refused: {}",
        out.text_content()
    );
    for path in [
        "../outside/secret.txt".to_string(),
        format!("{}/rl/../outside/secret.txt", s(&fx.base)),
    ] {
        let (tool, args) = read(p, &path);
        let out = ws.call(tool, args).unwrap();
        assert!(failed(&out), "{p:?} {path}");
        assert!(!all_text(&out).contains(SECRET), "{p:?} {path}");
    }
}
confined!(root_given_through_a_symlink);

/// Setup: standard. Calls: list/tree/glob/search with the walk's own root outside (`..`,
/// the outside directory's absolute path, the sibling `root_evil`), and glob patterns that
/// climb (`../**/*`, `<base>/outside/*`). Expected: refused or empty; no outside name or text.
/// Unchanged: everything.
fn walks_across_the_boundary(p: P) {
    let fx = Fx::new(p);
    let before = guarded_snap(&fx);
    for path in ["..".to_string(), s(&fx.out), s(&fx.evil), "/".to_string()] {
        let mut calls = walks(p, &path);
        calls.extend(list(p, &path));
        for (tool, args) in calls {
            let out = fx.call(tool, args.clone());
            let t = all_text(&out);
            assert!(!t.contains(SECRET), "{p:?} {tool} {args} leaked: {t}");
            assert!(
                !t.contains("secret.txt") && !t.contains("root_evil/f.txt"),
                "{p:?} {tool} {args} walked outside: {t}"
            );
        }
    }
    if p == P::Qwen {
        for pattern in [
            "../**/*".to_string(),
            "../outside/*".to_string(),
            format!("{}/*", s(&fx.out)),
        ] {
            let out = fx.call("glob", json!({"pattern": pattern}));
            let t = all_text(&out);
            assert!(!t.contains("secret.txt"), "qwen glob {pattern}: {t}");
        }
        let out = fx.call(
            "grep_search",
            json!({"pattern": "SECRET", "glob": "../outside/*"}),
        );
        assert!(!all_text(&out).contains(SECRET));
    }
    if p == P::Pico {
        let out = fx.call(
            "search_files",
            json!({"pattern": "SECRET", "file_glob": "../outside/*"}),
        );
        assert!(!all_text(&out).contains(SECRET));
    }
    same(&before, &guarded_snap(&fx), &format!("{p:?}"));
}
confined!(walks_across_the_boundary);

/// Setup: standard. Call: sgpt `exec_shell` with `working_directory` outside the root
/// (`..`, the outside dir, the sibling `root_evil`). Expected: refused before anything runs.
/// Unchanged: no `ran` marker file appears anywhere.
#[test]
fn sgpt_exec_shell_working_directory_outside_is_refused() {
    let fx = Fx::new(P::Sgpt);
    for wd in [
        "..".to_string(),
        s(&fx.out),
        s(&fx.evil),
        "/tmp".to_string(),
    ] {
        let out = fx.call(
            "exec_shell",
            json!({"command": "echo x > ran", "working_directory": wd}),
        );
        assert!(failed(&out), "exec_shell in {wd}: {}", out.text_content());
    }
    assert!(!fx.out.join("ran").exists());
    assert!(!fx.evil.join("ran").exists());
    assert!(!fx.base.join("ran").exists());
}

/// Setup: standard. Call: qwen `notebook_edit` on an outside notebook path and through `..`.
/// Unchanged: nothing appears outside.
#[test]
fn qwen_notebook_edit_outside_is_refused() {
    let fx = Fx::new(P::Qwen);
    let before = guarded_snap(&fx);
    for path in [
        "../outside/nb.ipynb".to_string(),
        s(&fx.out.join("nb.ipynb")),
    ] {
        let out = fx.call(
            "notebook_edit",
            json!({"notebook_path": path, "new_source": "x", "edit_mode": "insert"}),
        );
        assert!(failed(&out), "{path}: {}", out.text_content());
    }
    same(&before, &guarded_snap(&fx), "qwen notebook_edit");
}

/// Native's delete and move act on the entry a path names, a link itself included: a link
/// inside the root that points outside is removed or renamed, and what it points to is
/// untouched and unseen. Through a directory link that leads out, both are refused.
#[test]
fn native_delete_and_move_act_on_a_link_itself_and_never_reach_outside() {
    let fx = Fx::with(P::Native, |b| {
        symlink(b.join("outside/secret.txt"), b.join("root/link.txt")).unwrap();
        symlink("../outside/secret.txt", b.join("root/rel.txt")).unwrap();
        symlink(b.join("outside"), b.join("root/ld")).unwrap();
    });
    let outside = |fx: &Fx| {
        fx.snap()
            .into_iter()
            .filter(|(k, _)| !k.starts_with(&fx.root))
            .collect::<BTreeMap<_, _>>()
    };
    let before = outside(&fx);
    for (tool, args) in [
        ("delete", json!({"path": "ld/secret.txt"})),
        ("move", json!({"from": "ld/secret.txt", "to": "here.txt"})),
        ("move", json!({"from": "rel.txt", "to": "ld/new.txt"})),
        ("delete", json!({"path": "ld", "recursive": true})),
    ] {
        let out = fx.call(tool, args.clone());
        let text = out.text_content();
        assert!(!text.contains(SECRET), "{tool} {args} leaked: {text}");
        if tool == "delete" && args["path"] == "ld" {
            // The link itself goes; the folder it points to stays.
            assert!(!failed(&out), "{tool} {args}: {text}");
        } else {
            assert!(failed(&out), "{tool} {args} succeeded: {text}");
        }
        same(&before, &outside(&fx), &format!("{tool} {args}"));
    }
    let out = fx.call("move", json!({"from": "link.txt", "to": "moved.txt"}));
    assert!(!failed(&out), "{}", out.text_content());
    assert!(
        fx.root
            .join("moved.txt")
            .symlink_metadata()
            .unwrap()
            .file_type()
            .is_symlink()
    );
    let out = fx.call("delete", json!({"path": "moved.txt"}));
    assert!(!failed(&out), "{}", out.text_content());
    let out = fx.call("delete", json!({"path": "rel.txt"}));
    assert!(!failed(&out), "{}", out.text_content());
    assert!(!fx.root.join("rel.txt").exists() && !fx.root.join("moved.txt").exists());
    same(&before, &outside(&fx), "link moves and deletes");
    // Undo puts the links back as links, pointing where they pointed.
    let out = fx.call("undo", json!({"steps": 3}));
    assert!(!failed(&out), "{}", out.text_content());
    assert_eq!(
        std::fs::read_link(fx.root.join("link.txt")).unwrap(),
        fx.base.join("outside/secret.txt")
    );
    same(&before, &outside(&fx), "undo of link moves and deletes");
}
