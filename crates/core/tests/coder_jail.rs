//! The coder jail under attack (spec 001, "Security boundary"): every way out of the allowed
//! roots — `..`, absolute paths, sibling prefixes, symbolic links (to files, to directories,
//! chains, dangling), `/proc/self/...`, a directory swapped for a link mid-call — and every way
//! at a non-accessible file — directly, through a link, in another case, by renaming, by
//! deleting or moving the tree around it.
//!
//! Each case states its setup, the call, and what must be unchanged on disk. The common fixture
//! is a fresh directory `base` holding:
//!
//! ```text
//! base/root/            primary root   bait.txt ("bait"), sub/
//! base/root2/           second root    keep.txt
//! base/outside/         not a root     secret.txt ("TOP SECRET outside"), f.txt
//! base/root_evil/       not a root     f.txt (a sibling whose name has the root as prefix)
//! ```
//!
//! with `non_accessible_globs: ["**/.env", "**/*.pem", "**/secrets/**"]`. "Nothing changed"
//! is checked on a snapshot of everything under `base` (kind, mode, content, link target).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::disallowed_methods)]

use std::collections::BTreeMap;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use fsgate_core::{CoderConfig, Options, ToolOutput, Workspace};
use serde_json::{Value, json};
use tempfile::TempDir;

/// Marks the content of every file a leak would expose.
const SECRET: &str = "TOP SECRET";

struct Fx {
    _tmp: TempDir,
    base: PathBuf,
    root: PathBuf,
    root2: PathBuf,
    out: PathBuf,
    evil: PathBuf,
    ws: Workspace,
}

fn write(path: &Path, content: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, content).unwrap();
}

fn secret_globs() -> Vec<String> {
    vec!["**/.env".into(), "**/*.pem".into(), "**/secrets/**".into()]
}

impl Fx {
    fn new() -> Fx {
        Fx::with(|_, _| {})
    }

    /// The standard layout; `adjust` may change the options (it gets `base`).
    fn with(adjust: impl FnOnce(&mut Options, &Path)) -> Fx {
        let tmp = tempfile::tempdir().unwrap();
        let base = tmp.path().canonicalize().unwrap();
        let root = base.join("root");
        let root2 = base.join("root2");
        let out = base.join("outside");
        let evil = base.join("root_evil");
        for d in [&root, &root2, &out, &evil] {
            std::fs::create_dir_all(d).unwrap();
        }
        std::fs::create_dir_all(root.join("sub")).unwrap();
        write(&root.join("bait.txt"), "bait");
        write(&root2.join("keep.txt"), "keep");
        write(&out.join("secret.txt"), "TOP SECRET outside");
        write(&out.join("f.txt"), "TOP SECRET outside f");
        write(&evil.join("f.txt"), "TOP SECRET evil");
        let mut o = Options::new(&root);
        o.roots = vec![root.clone(), root2.clone()];
        o.profile = CoderConfig {
            non_accessible_globs: secret_globs(),
            ..CoderConfig::default()
        }
        .into();
        adjust(&mut o, &base);
        let ws = Workspace::open(o).unwrap();
        Fx {
            _tmp: tmp,
            base,
            root,
            root2,
            out,
            evil,
            ws,
        }
    }

    fn p(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    fn call(&self, tool: &str, args: Value) -> ToolOutput {
        self.ws.call(tool, args).unwrap()
    }

    /// A batch call that succeeded as a whole; its first result.
    fn entry(&self, tool: &str, args: Value) -> Value {
        let out = self.call(tool, args);
        assert!(
            !out.is_error,
            "{tool} failed as a whole: {}",
            out.text_content()
        );
        out.structured.unwrap()["results"][0].clone()
    }

    /// The error code of a call: the per-entry code of a batch, or the whole-call code.
    /// `None` for a success.
    fn code(&self, tool: &str, args: Value) -> Option<String> {
        let out = self.call(tool, args);
        let v = out.structured.clone().unwrap();
        if out.is_error {
            return Some(v["code"].as_str().unwrap().to_string());
        }
        let entry = &v["results"][0];
        if entry["success"] == json!(true) {
            assert!(entry.get("error").is_none_or(Value::is_null), "{entry}");
            None
        } else {
            Some(entry["error"]["code"].as_str().unwrap().to_string())
        }
    }

    fn create(&self, path: &str, overwrite: bool) -> Option<String> {
        self.code(
            "create-file",
            json!({"files": [{"path": path, "content": "PWNED", "overwrite": overwrite}]}),
        )
    }

    fn update(&self, path: &str) -> Option<String> {
        self.code(
            "update-file",
            json!({"files": [{"path": path, "ops": [{"op": "insert", "at_line": 1, "content": "PWNED"}]}]}),
        )
    }

    fn delete(&self, path: &str, recursive: bool) -> Option<String> {
        self.code(
            "delete-file",
            json!({"paths": [path], "recursive": recursive}),
        )
    }

    fn mv(&self, from: &str, to: &str, overwrite: bool) -> Option<String> {
        self.code(
            "move",
            json!({"files": [{"from": from, "to": to, "overwrite": overwrite}]}),
        )
    }

    /// read-file is still being built: only checks that nothing secret comes back.
    fn read_leaks_nothing(&self, path: &str) {
        for args in [
            json!({"path": path}),
            json!({"path": path, "stat": true}),
            json!({"paths": [path]}),
        ] {
            let out = self.call("read-file", args);
            let text = out.text_content();
            assert!(!text.contains(SECRET), "read-file {path} leaked: {text}");
            assert!(
                !text.contains("root:x:0:0"),
                "read-file {path} leaked: {text}"
            );
        }
    }

    /// Everything under `base`.
    fn snap(&self) -> BTreeMap<PathBuf, String> {
        snapshot(&self.base)
    }

    /// Every function aimed at `path` is refused with `code`, reads leak nothing, and nothing
    /// anywhere under `base` changes (bait.txt stays, no stolen.txt appears).
    fn refused_everywhere(&self, path: &str, code: &str) {
        let before = self.snap();
        let c = Some(code.to_string());
        assert_eq!(self.create(path, false), c, "create-file {path}");
        assert_eq!(self.create(path, true), c, "create-file overwrite {path}");
        assert_eq!(self.update(path), c, "update-file {path}");
        assert_eq!(self.delete(path, false), c, "delete-file {path}");
        assert_eq!(self.delete(path, true), c, "delete-file recursive {path}");
        assert_eq!(self.mv(path, "stolen.txt", true), c, "move {path} out");
        assert_eq!(self.mv("bait.txt", path, true), c, "move onto {path}");
        self.read_leaks_nothing(path);
        assert_eq!(
            self.snap(),
            before,
            "something changed on disk after attacking {path}"
        );
    }
}

/// Kind, permission bits, content and link target of everything under `dir`.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let p = entry.unwrap().path();
            let m = std::fs::symlink_metadata(&p).unwrap();
            let mode = m.permissions().mode() & 0o7777;
            let desc = if m.file_type().is_symlink() {
                format!("link -> {}", std::fs::read_link(&p).unwrap().display())
            } else if m.is_dir() {
                stack.push(p.clone());
                format!("dir {mode:o}")
            } else {
                format!(
                    "file {mode:o} {:?}",
                    String::from_utf8_lossy(&std::fs::read(&p).unwrap())
                )
            };
            out.insert(p, desc);
        }
    }
    out
}

fn s(p: &Path) -> String {
    p.to_str().unwrap().to_string()
}

// ---------------------------------------------------------------------------------------------
// `..` and absolute paths

/// Setup: the standard layout. Calls: every function on relative paths climbing out with `..`
/// (to an existing outside file, a new outside file, the sibling `root_evil`, `..` itself).
/// Unchanged: everything; each is C215.
#[test]
fn dot_dot_climbing_out_relative_is_c215_and_touches_nothing() {
    let fx = Fx::new();
    for path in [
        "..",
        "../",
        "../outside",
        "../outside/secret.txt",
        "../outside/new.txt",
        "sub/../../outside/f.txt",
        "./sub/./../../outside/new/deep.txt",
        "../root_evil/f.txt",
        "../root/../outside/secret.txt",
        "sub/../../../../../../../../tmp/fsgate-escape-probe.txt",
        "../root2/keep.txt",
    ] {
        fx.refused_everywhere(path, "C215");
    }
    assert!(!Path::new("/tmp/fsgate-escape-probe.txt").exists());
}

/// Setup: the standard layout. Calls: every function on absolute paths outside every root,
/// including ones that start lexically inside the root and climb out with `..`. Unchanged:
/// everything; each is C215.
#[test]
fn absolute_paths_outside_every_root_are_c215_and_touch_nothing() {
    let fx = Fx::new();
    let paths = [
        s(&fx.out.join("secret.txt")),
        s(&fx.out.join("new.txt")),
        s(&fx.out),
        s(&fx.base),
        format!("{}/../outside/secret.txt", s(&fx.root)),
        format!("{}/sub/../../outside/new.txt", s(&fx.root)),
        format!("{}/../root2/../outside/f.txt", s(&fx.root2)),
        format!("{}//..//outside//new.txt", s(&fx.root)),
    ];
    for path in &paths {
        fx.refused_everywhere(path, "C215");
    }
    // System files: never written to (the process may be root), only probed without harm.
    let before = fx.snap();
    assert_eq!(fx.create("/etc/passwd", false), Some("C215".into()));
    assert_eq!(
        fx.create("/fsgate-escape-probe.txt", false),
        Some("C215".into())
    );
    assert_eq!(
        fx.delete("/fsgate-escape-probe.txt", false),
        Some("C215".into())
    );
    assert_eq!(
        fx.mv("/etc/passwd", "stolen.txt", false),
        Some("C215".into())
    );
    fx.read_leaks_nothing("/etc/passwd");
    assert!(!Path::new("/fsgate-escape-probe.txt").exists());
    assert_eq!(fx.snap(), before);
}

/// Setup: the standard layout; `root_evil` is a sibling of `root` whose name starts with it.
/// Calls: every function on `/x/root_evil/...`. Unchanged: `root_evil`; each is C215.
#[test]
fn a_sibling_with_the_root_as_name_prefix_is_outside() {
    let fx = Fx::new();
    for path in [
        s(&fx.evil.join("f.txt")),
        s(&fx.evil.join("new.txt")),
        format!("{}_evil/f.txt", s(&fx.root)),
        format!("{}2_evil/x.txt", s(&fx.root)),
    ] {
        fx.refused_everywhere(&path, "C215");
    }
}

// ---------------------------------------------------------------------------------------------
// Symbolic links that lead outside

/// Setup: `root/lf -> outside/secret.txt` (absolute) and `root/lfr -> ../outside/f.txt`
/// (relative). Calls: create (overwrite), update and read through the links. Unchanged: the
/// outside files; each write is C215.
#[test]
fn a_symlinked_file_pointing_outside_cannot_be_read_or_written_through() {
    let fx = Fx::new();
    symlink(fx.out.join("secret.txt"), fx.p("lf")).unwrap();
    symlink("../outside/f.txt", fx.p("lfr")).unwrap();
    let before = fx.snap();
    for link in ["lf", "lfr", "./lf", "sub/../lfr"] {
        assert_eq!(fx.create(link, true), Some("C215".into()), "{link}");
        assert_eq!(fx.create(link, false), Some("C215".into()), "{link}");
        assert_eq!(fx.update(link), Some("C215".into()), "{link}");
        fx.read_leaks_nothing(link);
        let abs = s(&fx.p(link));
        assert_eq!(fx.update(&abs), Some("C215".into()), "{abs}");
    }
    assert_eq!(fx.snap(), before);
}

/// Setup: `root/lf -> outside/secret.txt`. Calls: delete the link; move another link; move a
/// file onto a third link (overwrite). Unchanged: `outside/secret.txt` (only the links inside the
/// root are removed or replaced).
#[test]
fn deleting_or_moving_a_link_to_outside_acts_on_the_link_never_its_target() {
    let fx = Fx::new();
    symlink(fx.out.join("secret.txt"), fx.p("lf")).unwrap();
    symlink(fx.out.join("secret.txt"), fx.p("lf2")).unwrap();
    symlink(fx.out.join("f.txt"), fx.p("lf3")).unwrap();
    let outside = snapshot(&fx.out);
    // The link itself lies inside the root: deleting it is fine, and removes only the link.
    assert_eq!(fx.delete("lf", false), None);
    assert!(std::fs::symlink_metadata(fx.p("lf")).is_err(), "link kept");
    // Moving it moves the link; reaching through its new name is still refused.
    assert_eq!(fx.mv("lf2", "sub/renamed-link", false), None);
    assert!(
        std::fs::symlink_metadata(fx.p("sub/renamed-link"))
            .unwrap()
            .is_symlink()
    );
    assert_eq!(fx.update("sub/renamed-link"), Some("C215".into()));
    fx.read_leaks_nothing("sub/renamed-link");
    // Moving a file onto it (overwrite) replaces the link, not what it points to.
    assert_eq!(fx.mv("bait.txt", "lf3", true), None);
    assert_eq!(std::fs::read_to_string(fx.p("lf3")).unwrap(), "bait");
    assert!(!std::fs::symlink_metadata(fx.p("lf3")).unwrap().is_symlink());
    assert_eq!(snapshot(&fx.out), outside, "the outside target changed");
}

/// Setup: `root/ld -> outside` (absolute) and `root/sub/ldr -> ../../outside` (relative).
/// Calls: every function on paths below the links (existing and new files, nested new
/// directories). Unchanged: everything; each is C215.
#[test]
fn a_symlinked_directory_pointing_outside_is_c215_below_it() {
    let fx = Fx::new();
    symlink(&fx.out, fx.p("ld")).unwrap();
    symlink("../../outside", fx.p("sub/ldr")).unwrap();
    for path in [
        "ld/secret.txt",
        "ld/new.txt",
        "ld/newdir/deep/new.txt",
        "sub/ldr/f.txt",
        "sub/ldr/new.txt",
        "sub/ldr/../outside/secret.txt",
    ] {
        fx.refused_everywhere(path, "C215");
    }
    let abs = s(&fx.p("ld/new.txt"));
    fx.refused_everywhere(&abs, "C215");
    // `ld/` and `ld/.` name the directory the link points to: never written below; `..` after
    // the link climbs from the link's target (outside), not lexically back to the root.
    let before = fx.snap();
    for path in [
        "ld/",
        "ld/.",
        "ld/./secret.txt",
        "ld/../bait.txt",
        "ld/../outside/f.txt",
    ] {
        assert_eq!(fx.create(path, true), Some("C215".into()), "{path}");
        assert_eq!(fx.update(path), Some("C215".into()), "{path}");
        fx.read_leaks_nothing(path);
    }
    assert_eq!(fx.snap(), before);
}

/// Setup: `root/ld -> outside`, `root/t/` holding `a.txt` and `t/inner -> outside`. Calls:
/// move a file into the linked dir, move a file out of it, move the linked dir itself to the
/// second root, delete the linked dir (recursive), delete the tree holding a link
/// (recursive). Unchanged: `outside` entirely.
#[test]
fn moves_into_and_out_of_a_linked_directory_are_refused_and_deletes_stop_at_the_link() {
    let fx = Fx::new();
    symlink(&fx.out, fx.p("ld")).unwrap();
    write(&fx.p("t/a.txt"), "a");
    symlink(&fx.out, fx.p("t/inner")).unwrap();
    let outside = snapshot(&fx.out);
    let before = fx.snap();
    assert_eq!(fx.mv("bait.txt", "ld/bait.txt", false), Some("C215".into()));
    assert_eq!(
        fx.mv("ld/secret.txt", "stolen.txt", false),
        Some("C215".into())
    );
    assert_eq!(
        fx.mv("ld/secret.txt", &s(&fx.root2.join("stolen.txt")), false),
        Some("C215".into())
    );
    assert_eq!(fx.mv("ld/f.txt", "sub/f.txt", true), Some("C215".into()));
    assert_eq!(fx.snap(), before);
    // The link to a directory moved across roots: refused (not a regular file), never copied.
    assert!(fx.mv("ld", &s(&fx.root2.join("ld")), false).is_some());
    assert!(std::fs::symlink_metadata(fx.root2.join("ld")).is_err());
    assert_eq!(fx.snap(), before);
    // Deleting the link (even recursively) removes the link, never what it points to.
    assert_eq!(fx.delete("ld", true), None);
    assert!(std::fs::symlink_metadata(fx.p("ld")).is_err());
    assert_eq!(fx.delete("t", true), None);
    assert!(!fx.p("t").exists());
    assert_eq!(snapshot(&fx.out), outside, "a delete went through a link");
}

/// Setup: `l1 -> l2` (relative), `l2 -> <root>/sub/l3` (absolute, inside), `sub/l3 ->
/// ../../outside` (relative, out). Calls: every function below `l1`. Unchanged: everything; C215.
#[test]
fn a_link_chain_in_in_out_is_c215() {
    let fx = Fx::new();
    symlink("l2", fx.p("l1")).unwrap();
    symlink(fx.p("sub/l3"), fx.p("l2")).unwrap();
    symlink("../../outside", fx.p("sub/l3")).unwrap();
    // A file-level chain too: fl1 -> fl2 -> ../outside/secret.txt.
    symlink("fl2", fx.p("fl1")).unwrap();
    symlink("../outside/secret.txt", fx.p("fl2")).unwrap();
    // And a loop.
    symlink("loop", fx.p("loop")).unwrap();
    for path in ["l1/secret.txt", "l1/new.txt", "l2/new.txt", "loop/x.txt"] {
        fx.refused_everywhere(path, "C215");
    }
    let before = fx.snap();
    assert_eq!(fx.create("fl1", true), Some("C215".into()));
    assert_eq!(fx.update("fl1"), Some("C215".into()));
    assert_eq!(fx.create("loop", true), Some("C215".into()));
    fx.read_leaks_nothing("fl1");
    assert_eq!(fx.snap(), before);
}

/// Setup: `root/real/` with `a.txt`; links `abs -> <root>/real`, `rel -> real`, chain
/// `c1 -> c2 -> <root>/c3 -> real`, `fa -> <root>/real/a.txt`, `fr -> real/a.txt`, `sub/up
/// -> ..`. Calls: create, update, move and delete through them. Expected: they work on the
/// canonical target and report its canonical path; the links themselves stay links.
#[test]
fn links_that_stay_inside_work_and_report_the_canonical_target() {
    let fx = Fx::new();
    write(&fx.p("real/a.txt"), "one\n");
    symlink(fx.p("real"), fx.p("abs")).unwrap();
    symlink("real", fx.p("rel")).unwrap();
    symlink("c2", fx.p("c1")).unwrap();
    symlink(fx.p("c3"), fx.p("c2")).unwrap();
    symlink("real", fx.p("c3")).unwrap();
    symlink(fx.p("real/a.txt"), fx.p("fa")).unwrap();
    symlink("real/a.txt", fx.p("fr")).unwrap();
    symlink("..", fx.p("sub/up")).unwrap();
    let outside = snapshot(&fx.out);
    let real = fx.p("real");
    for (path, file) in [
        ("abs/x1.txt", "x1.txt"),
        ("rel/x2.txt", "x2.txt"),
        ("c1/x3.txt", "x3.txt"),
        ("sub/up/real/x4.txt", "x4.txt"),
    ] {
        let r = fx.entry(
            "create-file",
            json!({"files": [{"path": path, "content": "made"}]}),
        );
        assert_eq!(r["success"], json!(true), "{path}: {r}");
        assert_eq!(r["path"], json!(s(&real.join(file))), "{path}");
        assert_eq!(std::fs::read_to_string(real.join(file)).unwrap(), "made");
    }
    let abs_path = s(&fx.p("abs/x5.txt"));
    let r = fx.entry(
        "create-file",
        json!({"files": [{"path": abs_path, "content": "made"}]}),
    );
    assert_eq!(r["path"], json!(s(&real.join("x5.txt"))), "{r}");
    // Through file links: update edits the target; the links stay links.
    for link in ["fa", "fr"] {
        let r = fx.entry(
            "update-file",
            json!({"files": [{"path": link, "ops": [{"op": "insert", "at_line": 1, "content": link}]}]}),
        );
        assert_eq!(r["success"], json!(true), "{link}: {r}");
        assert_eq!(r["path"], json!(s(&real.join("a.txt"))));
        assert!(std::fs::symlink_metadata(fx.p(link)).unwrap().is_symlink());
    }
    assert_eq!(
        std::fs::read_to_string(real.join("a.txt")).unwrap(),
        "fr\nfa\none\n"
    );
    let r = fx.entry(
        "create-file",
        json!({"files": [{"path": "fa", "content": "over", "overwrite": true}]}),
    );
    assert_eq!(r["path"], json!(s(&real.join("a.txt"))), "{r}");
    assert_eq!(std::fs::read_to_string(real.join("a.txt")).unwrap(), "over");
    assert!(std::fs::symlink_metadata(fx.p("fa")).unwrap().is_symlink());
    // Moves and deletes below a link land in the real directory.
    assert_eq!(fx.mv("bait.txt", "rel/bait.txt", false), None);
    assert_eq!(
        std::fs::read_to_string(real.join("bait.txt")).unwrap(),
        "bait"
    );
    assert_eq!(fx.mv("c1/bait.txt", "sub/bait.txt", false), None);
    assert!(fx.p("sub/bait.txt").is_file());
    assert_eq!(fx.delete("abs/x1.txt", false), None);
    assert!(!real.join("x1.txt").exists());
    fx.read_leaks_nothing("rel/x2.txt");
    assert_eq!(snapshot(&fx.out), outside);
}

/// Setup: dangling links `dl -> nothere.txt` (relative, inside), `dla -> <outside>/made.txt`
/// (absolute, outside), `dlr -> ../outside/made2.txt` (relative, outside), `dld -> gone/`
/// (to a missing directory). Calls: create-file through each (with and without overwrite),
/// update-file. Unchanged: nothing is created, inside or outside; a link whose target lies
/// outside the root is C215, one that dangles inside it is C211 (not-found).
#[test]
fn a_create_through_a_dangling_link_creates_nothing() {
    let fx = Fx::new();
    symlink("nothere.txt", fx.p("dl")).unwrap();
    symlink(fx.out.join("made.txt"), fx.p("dla")).unwrap();
    symlink("../outside/made2.txt", fx.p("dlr")).unwrap();
    symlink("gone", fx.p("dld")).unwrap();
    symlink(fx.base.join("newdir"), fx.p("dln")).unwrap();
    let before = fx.snap();
    for (path, code) in [
        ("dl", "C211"),
        ("dla", "C215"),
        ("dlr", "C215"),
        ("dld/x.txt", "C211"),
        ("dln/x.txt", "C215"),
    ] {
        assert_eq!(fx.create(path, false), Some(code.into()), "{path}");
        assert_eq!(fx.create(path, true), Some(code.into()), "{path}");
        assert_eq!(fx.update(path), Some(code.into()), "{path}");
        fx.read_leaks_nothing(path);
    }
    assert_eq!(fx.snap(), before);
    assert!(!fx.p("nothere.txt").exists());
    assert!(!fx.out.join("made.txt").exists());
    assert!(!fx.out.join("made2.txt").exists());
    assert!(!fx.base.join("newdir").exists());
    // Moving a file into the missing directory behind a dangling link creates nothing either.
    assert!(fx.mv("bait.txt", "dld/bait.txt", false).is_some());
    assert!(fx.mv("bait.txt", "dln/bait.txt", false).is_some());
    assert_eq!(fx.snap(), before);
}

// ---------------------------------------------------------------------------------------------
// /proc

/// Setup: the standard layout; links `pr -> /proc/self/root` and `pc -> /proc/self/cwd`.
/// Calls: every function on `/proc/self/root/<outside>/...`, `/proc/self/cwd/<probe>` and below
/// the links. Unchanged: everything under base; no probe file appears in the test's working
/// directory; each is C215.
#[test]
fn proc_self_root_and_cwd_paths_are_outside() {
    let fx = Fx::new();
    symlink("/proc/self/root", fx.p("pr")).unwrap();
    symlink("/proc/self/cwd", fx.p("pc")).unwrap();
    let probe = format!("fsgate-jail-probe-{}.txt", std::process::id());
    let cwd = std::env::current_dir().unwrap();
    for path in [
        format!("/proc/self/root{}", s(&fx.out.join("secret.txt"))),
        format!("/proc/self/root{}", s(&fx.out.join("new.txt"))),
        format!("/proc/self/root{}/../outside/new.txt", s(&fx.root)),
        format!(
            "/proc/{}/root{}",
            std::process::id(),
            s(&fx.out.join("f.txt"))
        ),
        format!("/proc/self/cwd/{probe}"),
        format!("/proc/thread-self/cwd/{probe}"),
        format!("pr{}", s(&fx.out.join("secret.txt"))),
        format!("pr{}", s(&fx.out.join("new.txt"))),
        format!("pc/{probe}"),
        "../../../../../../../../proc/self/root/tmp/x.txt".to_string(),
    ] {
        fx.refused_everywhere(&path, "C215");
        let leaked = cwd.join(&probe);
        if leaked.exists() {
            std::fs::remove_file(&leaked).unwrap();
            panic!(
                "{path} created {} in the working directory",
                leaked.display()
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Secrets

fn plant_secrets(fx: &Fx) {
    write(&fx.p(".env"), "TOP SECRET env");
    write(&fx.p("conf/.env"), "TOP SECRET conf env");
    write(&fx.p("k.pem"), "TOP SECRET pem");
    write(&fx.p("secrets/api.txt"), "TOP SECRET api");
    write(&fx.p("sub/.ENV"), "TOP SECRET upper env");
    write(&fx.p("sub/K.PEM"), "TOP SECRET upper pem");
}

/// Setup: `.env`, `conf/.env`, `k.pem`, `secrets/api.txt`, `sub/.ENV`, `sub/K.PEM` inside the
/// root. Calls: every function on them, by relative, `..`-detoured and absolute paths, and on
/// new secret-named paths in any case. Unchanged: everything; each is C211.
#[test]
fn secrets_are_c211_directly_and_in_any_case() {
    let fx = Fx::new();
    plant_secrets(&fx);
    for path in [
        ".env".to_string(),
        "./.env".to_string(),
        "sub/../.env".to_string(),
        "conf/.env".to_string(),
        "k.pem".to_string(),
        "secrets/api.txt".to_string(),
        "secrets/new.txt".to_string(),
        "secrets/deeper/new.txt".to_string(),
        "sub/.ENV".to_string(),
        "sub/K.PEM".to_string(),
        ".ENV".to_string(),
        ".Env".to_string(),
        "K.PEM".to_string(),
        "new/X.Pem".to_string(),
        "SECRETS/api.txt".to_string(),
        s(&fx.p(".env")),
        s(&fx.p("secrets/api.txt")),
        s(&fx.root2.join(".env")),
        s(&fx.root2.join("a/b/c.pem")),
    ] {
        fx.refused_everywhere(&path, "C211");
    }
}

/// Setup: the secrets, plus `alias.txt -> .env`, `abs_alias -> <root>/k.pem`, `dir_alias ->
/// secrets`. Calls: create/update/read through the aliases; every function below `dir_alias`;
/// moving the alias link and reading through its new name. Unchanged: the secrets' contents.
#[test]
fn secrets_are_c211_through_a_symlink_alias() {
    let fx = Fx::new();
    plant_secrets(&fx);
    symlink(".env", fx.p("alias.txt")).unwrap();
    symlink(fx.p("k.pem"), fx.p("abs_alias")).unwrap();
    symlink("secrets", fx.p("dir_alias")).unwrap();
    symlink("../conf", fx.p("sub/conf_alias")).unwrap();
    let before = fx.snap();
    for alias in ["alias.txt", "abs_alias"] {
        assert_eq!(fx.create(alias, true), Some("C211".into()), "{alias}");
        assert_eq!(fx.update(alias), Some("C211".into()), "{alias}");
        fx.read_leaks_nothing(alias);
    }
    assert_eq!(fx.snap(), before);
    for path in [
        "dir_alias/api.txt",
        "dir_alias/new.txt",
        "sub/conf_alias/.env",
    ] {
        fx.refused_everywhere(path, "C211");
    }
    // Moving the alias moves the link only; its new name reaches the secret no better.
    assert_eq!(fx.mv("alias.txt", "innocent.txt", false), None);
    assert!(
        std::fs::symlink_metadata(fx.p("innocent.txt"))
            .unwrap()
            .is_symlink()
    );
    assert_eq!(fx.update("innocent.txt"), Some("C211".into()));
    assert_eq!(fx.create("innocent.txt", true), Some("C211".into()));
    fx.read_leaks_nothing("innocent.txt");
    // Moving the alias to the other root is refused (not a regular file): no copy of the secret.
    assert!(
        fx.mv("abs_alias", &s(&fx.root2.join("copy.txt")), false)
            .is_some()
    );
    assert!(std::fs::symlink_metadata(fx.root2.join("copy.txt")).is_err());
    assert_eq!(
        std::fs::read_to_string(fx.p(".env")).unwrap(),
        "TOP SECRET env"
    );
    assert_eq!(
        std::fs::read_to_string(fx.p("k.pem")).unwrap(),
        "TOP SECRET pem"
    );
}

/// Setup: the secrets and `bait.txt`. Calls: move a secret out to a readable name (same root
/// and across roots); move a readable file onto a secret name (with overwrite, in any case);
/// move a secret-holding directory. Unchanged: everything; each is C211.
#[test]
fn secrets_cannot_be_renamed_out_or_overwritten_by_a_rename() {
    let fx = Fx::new();
    plant_secrets(&fx);
    let before = fx.snap();
    let root2_target = s(&fx.root2.join("stolen.txt"));
    for (from, to) in [
        (".env", "public.txt"),
        (".env", root2_target.as_str()),
        ("k.pem", "k.txt"),
        ("sub/K.PEM", "sub/k.txt"),
        ("secrets/api.txt", "api.txt"),
        ("bait.txt", ".env"),
        ("bait.txt", ".ENV"),
        ("bait.txt", "k.pem"),
        ("bait.txt", "sub/new.PEM"),
        ("bait.txt", "secrets/bait.txt"),
        ("bait.txt", "conf/.env"),
    ] {
        for overwrite in [false, true] {
            assert_eq!(
                fx.mv(from, to, overwrite),
                Some("C211".into()),
                "move {from} -> {to} (overwrite {overwrite})"
            );
        }
    }
    assert_eq!(fx.snap(), before);
    // Directories holding a secret do not move (the secret would change name with them).
    for (from, to) in [
        ("secrets", "public"),
        ("conf", "conf2"),
        ("sub", "sub2"),
        ("conf", "sub/conf"),
    ] {
        assert_eq!(
            fx.mv(from, to, false),
            Some("C211".into()),
            "move {from} -> {to}"
        );
    }
    assert_eq!(fx.snap(), before);
}

/// Setup: `tree/` holding readable files and, deep down, `b/deep/.env` (and a variant with
/// `K.PEM`, and one with `secrets/x`). Calls: delete-file recursive of the tree. Expected: C211
/// and nothing deleted — not even the readable files listed before the secret.
#[test]
fn a_recursive_delete_of_a_tree_holding_a_secret_deletes_nothing() {
    let fx = Fx::new();
    for (tree, secret) in [
        ("tree1", "b/deep/.env"),
        ("tree2", "z/K.PEM"),
        ("tree3", "a/secrets/x.txt"),
    ] {
        for f in ["a.txt", "b/c.txt", "b/deep/d.txt", "z/y.txt", "0.txt"] {
            write(&fx.p(&format!("{tree}/{f}")), "readable");
        }
        write(&fx.p(&format!("{tree}/{secret}")), "TOP SECRET");
    }
    let before = fx.snap();
    for tree in ["tree1", "tree2", "tree3"] {
        assert_eq!(fx.delete(tree, true), Some("C211".into()), "{tree}");
        assert_eq!(fx.snap(), before, "{tree}: something was deleted");
    }
    // In a batch the other paths still go; the tree with the secret stays whole.
    let out = fx.call(
        "delete-file",
        json!({"paths": ["tree1/a.txt", "tree2", "tree3/z"], "recursive": true}),
    );
    let results = out.structured.unwrap()["results"].clone();
    assert_eq!(results[0]["success"], json!(true));
    assert_eq!(results[1]["error"]["code"], json!("C211"));
    assert_eq!(results[2]["success"], json!(true));
    assert!(fx.p("tree2/z/K.PEM").exists() && fx.p("tree2/a.txt").exists());
}

/// Setup: `conf/.env` exists in one workspace and not in another (identical otherwise).
/// Calls: every function on `conf/.env`, `secrets/api.txt`, `k.pem`. Expected: the responses are
/// identical, so a caller cannot probe for secrets.
#[test]
fn the_error_is_identical_whether_the_secret_exists_or_not() {
    let with = Fx::new();
    plant_secrets(&with);
    let without = Fx::new();
    std::fs::create_dir_all(without.p("conf")).unwrap();
    std::fs::create_dir_all(without.p("secrets")).unwrap();
    for path in ["conf/.env", "secrets/api.txt", "k.pem", "sub/K.PEM"] {
        let calls = [
            (
                "create-file",
                json!({"files": [{"path": path, "content": "x"}]}),
            ),
            (
                "create-file",
                json!({"files": [{"path": path, "content": "x", "overwrite": true}]}),
            ),
            (
                "update-file",
                json!({"files": [{"path": path, "ops": [{"op": "insert", "at_line": 1, "content": "x"}]}]}),
            ),
            ("delete-file", json!({"paths": [path]})),
            ("move", json!({"files": [{"from": path, "to": "x.txt"}]})),
            (
                "move",
                json!({"files": [{"from": "bait.txt", "to": path, "overwrite": true}]}),
            ),
            ("read-file", json!({"path": path})),
            ("read-file", json!({"path": path, "stat": true})),
        ];
        for (tool, args) in calls {
            let a = with.call(tool, args.clone());
            let b = without.call(tool, args.clone());
            // The fixtures live in different temporary directories; compare with those masked.
            let masked = |fx: &Fx, out: &ToolOutput| {
                (
                    out.is_error,
                    out.text_content().replace(&s(&fx.base), "<base>"),
                )
            };
            assert_eq!(
                masked(&with, &a),
                masked(&without, &b),
                "{tool} {args} differs by the secret's existence"
            );
            if tool != "read-file" {
                let v = a.structured.unwrap();
                let code = if a.is_error {
                    &v["code"]
                } else {
                    &v["results"][0]["error"]["code"]
                };
                assert_eq!(code, &json!("C211"), "{tool} {args}: {v}");
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// base_dir

/// Setup: `root/s/inner/`. Calls: create/update/delete/move with `base_dir: "s"`. Expected:
/// relative paths anchor in `s`; responses carry canonical absolute paths.
#[test]
fn base_dir_anchors_relative_paths() {
    let fx = Fx::new();
    std::fs::create_dir_all(fx.p("s/inner")).unwrap();
    let r = fx.entry(
        "create-file",
        json!({"base_dir": "s", "files": [{"path": "inner/n.txt", "content": "n\n"}]}),
    );
    assert_eq!(r["path"], json!(s(&fx.p("s/inner/n.txt"))), "{r}");
    assert_eq!(
        std::fs::read_to_string(fx.p("s/inner/n.txt")).unwrap(),
        "n\n"
    );
    assert!(!fx.p("inner").exists());
    let base_abs = s(&fx.p("s"));
    let r = fx.entry(
        "update-file",
        json!({"base_dir": base_abs, "files": [{"path": "inner/n.txt", "ops": [{"op": "insert", "at_line": 1, "content": "m"}]}]}),
    );
    assert_eq!(r["success"], json!(true), "{r}");
    assert_eq!(
        std::fs::read_to_string(fx.p("s/inner/n.txt")).unwrap(),
        "m\nn\n"
    );
    let r = fx.entry(
        "move",
        json!({"base_dir": "s", "files": [{"from": "inner/n.txt", "to": "n2.txt"}]}),
    );
    assert_eq!(r["to"], json!(s(&fx.p("s/n2.txt"))), "{r}");
    // An absolute path inside the session directory is fine too.
    let r = fx.entry(
        "delete-file",
        json!({"base_dir": "s", "paths": [s(&fx.p("s/n2.txt"))]}),
    );
    assert_eq!(r["removed"], json!(true), "{r}");
    // A session directory in the second root.
    std::fs::create_dir_all(fx.root2.join("w")).unwrap();
    let r = fx.entry(
        "create-file",
        json!({"base_dir": s(&fx.root2.join("w")), "files": [{"path": "x.txt", "content": "x"}]}),
    );
    assert_eq!(r["path"], json!(s(&fx.root2.join("w/x.txt"))), "{r}");
}

/// Setup: `root/s/`, `root/t.txt`. Calls: every function with `base_dir: "s"` on paths inside
/// the root but outside `s` (relative `..`, absolute, through a link). Expected: C218 (not
/// C215); unchanged: everything.
#[test]
fn leaving_base_dir_inside_the_root_is_c218() {
    let fx = Fx::new();
    std::fs::create_dir_all(fx.p("s")).unwrap();
    write(&fx.p("t.txt"), "t");
    write(&fx.p("s/own.txt"), "own");
    symlink("../sub", fx.p("s/lsub")).unwrap();
    let before = fx.snap();
    let t_abs = s(&fx.p("t.txt"));
    let root2_file = s(&fx.root2.join("keep.txt"));
    for path in [
        "../t.txt",
        "../new.txt",
        t_abs.as_str(),
        "lsub/new.txt",
        root2_file.as_str(),
        "..",
        "../sub",
    ] {
        let c = Some("C218".to_string());
        let b = "s";
        let code = |tool: &str, args: Value| {
            let mut args = args;
            args["base_dir"] = json!(b);
            fx.code(tool, args)
        };
        assert_eq!(
            code(
                "create-file",
                json!({"files": [{"path": path, "content": "x", "overwrite": true}]})
            ),
            c,
            "create {path}"
        );
        assert_eq!(
            code(
                "update-file",
                json!({"files": [{"path": path, "ops": [{"op": "insert", "at_line": 1, "content": "x"}]}]})
            ),
            c,
            "update {path}"
        );
        assert_eq!(
            code("delete-file", json!({"paths": [path], "recursive": true})),
            c,
            "delete {path}"
        );
        assert_eq!(
            code(
                "move",
                json!({"files": [{"from": path, "to": "moved.txt"}]})
            ),
            c,
            "move from {path}"
        );
        assert_eq!(
            code(
                "move",
                json!({"files": [{"from": "own.txt", "to": path, "overwrite": true}]})
            ),
            c,
            "move to {path}"
        );
    }
    assert_eq!(fx.snap(), before);
    // Leaving the root itself from the session directory is still C215.
    let r = fx.code(
        "create-file",
        json!({"base_dir": "s", "files": [{"path": "../../outside/x.txt", "content": "x"}]}),
    );
    assert_eq!(r, Some("C215".into()));
    assert_eq!(fx.snap(), before);
}

/// Setup: the standard layout, `root/lout -> outside`, `root/file.txt`. Calls: functions with a
/// base_dir outside every root (absolute, `..`, through a link), missing, or a file. Expected:
/// the whole call is refused (C215 outside; C211 missing; C210 a file); nothing is created.
#[test]
fn a_base_dir_outside_every_root_is_refused() {
    let fx = Fx::new();
    symlink(&fx.out, fx.p("lout")).unwrap();
    write(&fx.p("file.txt"), "f");
    let before = fx.snap();
    for (base, code) in [
        (s(&fx.out), "C215"),
        ("../outside".to_string(), "C215"),
        ("lout".to_string(), "C215"),
        (s(&fx.evil), "C215"),
        ("/".to_string(), "C215"),
        (format!("/proc/self/root{}", s(&fx.out)), "C215"),
        ("missing".to_string(), "C211"),
        ("file.txt".to_string(), "C210"),
    ] {
        for (tool, args) in [
            (
                "create-file",
                json!({"files": [{"path": "new.txt", "content": "PWNED"}]}),
            ),
            (
                "update-file",
                json!({"files": [{"path": "f.txt", "ops": [{"op": "insert", "at_line": 1, "content": "PWNED"}]}]}),
            ),
            ("delete-file", json!({"paths": ["f.txt"]})),
            ("move", json!({"files": [{"from": "f.txt", "to": "g.txt"}]})),
        ] {
            let mut args = args;
            args["base_dir"] = json!(base);
            let out = fx.call(tool, args);
            assert!(
                out.is_error,
                "{tool} with base_dir {base}: {}",
                out.text_content()
            );
            assert_eq!(
                out.structured.unwrap()["code"],
                json!(code),
                "{tool} base_dir {base}"
            );
        }
    }
    assert_eq!(fx.snap(), before);
}

// ---------------------------------------------------------------------------------------------
// Several roots, a root through a link

/// Setup: roots `root` (primary) and `root2`. Calls: absolute paths in `root2`; the same
/// relative path; `../root2/...` relative; a link in `root` to `root2`. Expected: absolute paths
/// in root2 work; relative ones land in the primary root; relative `..` into root2 and links
/// across roots are C215.
#[test]
fn absolute_paths_reach_the_second_root_and_relative_ones_the_primary() {
    let fx = Fx::new();
    let in2 = s(&fx.root2.join("d/b.txt"));
    let r = fx.entry(
        "create-file",
        json!({"files": [{"path": in2, "content": "two"}]}),
    );
    assert_eq!(r["path"], json!(in2), "{r}");
    assert_eq!(
        std::fs::read_to_string(fx.root2.join("d/b.txt")).unwrap(),
        "two"
    );
    let r = fx.entry(
        "create-file",
        json!({"files": [{"path": "d/b.txt", "content": "one"}]}),
    );
    assert_eq!(r["path"], json!(s(&fx.p("d/b.txt"))), "{r}");
    assert_eq!(
        std::fs::read_to_string(fx.root2.join("d/b.txt")).unwrap(),
        "two"
    );
    assert_eq!(fx.update(&in2), None);
    assert_eq!(
        std::fs::read_to_string(fx.root2.join("d/b.txt")).unwrap(),
        "PWNED\ntwo"
    );
    symlink(&fx.root2, fx.p("to2")).unwrap();
    for path in [
        "../root2/keep.txt",
        "../root2/new.txt",
        "to2/keep.txt",
        "to2/new.txt",
    ] {
        fx.refused_everywhere(path, "C215");
    }
    // keep.txt untouched by all of it.
    assert_eq!(
        std::fs::read_to_string(fx.root2.join("keep.txt")).unwrap(),
        "keep"
    );
}

/// Setup: `base/alias -> base/root` and the workspace opened with roots `[alias, root2]`.
/// Calls: info; create by relative path, by an absolute path through the alias; escapes
/// through the alias. Expected: info and responses show the canonical root; escapes are C215.
#[test]
fn a_root_given_through_a_symlink_is_canonicalised() {
    let fx = Fx::with(|o, base| {
        symlink(base.join("root"), base.join("alias")).unwrap();
        o.roots = vec![base.join("alias"), base.join("root2")];
    });
    let info = fx.call("info", json!({})).structured.unwrap();
    assert_eq!(info["base_paths"], json!([s(&fx.root), s(&fx.root2)]));
    assert_eq!(info["primary_root"], json!(s(&fx.root)));
    let r = fx.entry(
        "create-file",
        json!({"files": [{"path": "a.txt", "content": "a"}]}),
    );
    assert_eq!(r["path"], json!(s(&fx.p("a.txt"))));
    let via_alias = s(&fx.base.join("alias/b.txt"));
    let r = fx.entry(
        "create-file",
        json!({"files": [{"path": via_alias, "content": "b"}]}),
    );
    assert_eq!(r["success"], json!(true), "{r}");
    assert_eq!(r["path"], json!(s(&fx.p("b.txt"))));
    for path in [
        format!("{}/../outside/new.txt", s(&fx.base.join("alias"))),
        format!("{}/../outside/secret.txt", s(&fx.base.join("alias"))),
        format!(
            "{}/missing/../../outside/new.txt",
            s(&fx.base.join("alias"))
        ),
        "../outside/new.txt".to_string(),
    ] {
        fx.refused_everywhere(&path, "C215");
    }
}

// ---------------------------------------------------------------------------------------------
// The race

/// Setup: `root/d/` (f.txt, m.txt, victim.txt) and `root/d_swap -> base/outside_race` (absolute),
/// where `outside_race/` holds files of the same names. One thread exchanges `d` and `d_swap`
/// atomically (`renameat2(RENAME_EXCHANGE)`) as fast as it can, so `d` is now the directory,
/// now a link outside; four threads run create-file, update-file, read-file, move and
/// delete-file through `d/` thousands of times. Expected: zero escapes — `outside_race` and
/// everything else outside the roots are byte for byte as before, nothing new appeared.
#[test]
fn swapping_a_directory_for_an_outside_link_mid_call_never_escapes() {
    let fx = Fx::new();
    let outr = fx.base.join("outside_race");
    write(&outr.join("f.txt"), "TOP SECRET race f\n");
    write(&outr.join("m.txt"), "TOP SECRET race m\n");
    write(&outr.join("victim.txt"), "TOP SECRET race victim\n");
    write(&fx.p("d/f.txt"), "inside f\n");
    write(&fx.p("d/m.txt"), "inside m\n");
    write(&fx.p("d/victim.txt"), "inside victim\n");
    symlink(&outr, fx.p("d_swap")).unwrap();
    let outside_before = {
        let mut snap = fx.snap();
        snap.retain(|p, _| !p.starts_with(&fx.root) && !p.starts_with(&fx.root2));
        snap
    };
    let stop = AtomicBool::new(false);
    let swaps = AtomicUsize::new(0);
    let calls = AtomicUsize::new(0);
    let ok = AtomicUsize::new(0);
    let refused = AtomicUsize::new(0);
    let leaks = AtomicUsize::new(0);
    let deadline = Instant::now() + Duration::from_secs(6);
    let (d, d_swap) = (fx.p("d"), fx.p("d_swap"));
    std::thread::scope(|scope| {
        scope.spawn(|| {
            while !stop.load(Ordering::Relaxed) {
                rustix::fs::renameat_with(
                    rustix::fs::CWD,
                    &d,
                    rustix::fs::CWD,
                    &d_swap,
                    rustix::fs::RenameFlags::EXCHANGE,
                )
                .unwrap();
                swaps.fetch_add(1, Ordering::Relaxed);
            }
        });
        let workers: Vec<_> = (0..4)
            .map(|w| {
                let fx = &fx;
                let (calls, ok, refused, leaks) = (&calls, &ok, &refused, &leaks);
                scope.spawn(move || {
                    let mut i = 0usize;
                    while Instant::now() < deadline && i < 3000 {
                        let (tool, args) = match i % 6 {
                            0 => ("create-file", json!({"files": [{"path": format!("d/new-{w}-{i}.txt"), "content": "PWNED"}]})),
                            1 => ("create-file", json!({"files": [{"path": "d/f.txt", "content": "PWNED\n", "overwrite": true}]})),
                            2 => ("update-file", json!({"files": [{"path": "d/f.txt", "ops": [{"op": "insert", "at_line": 1, "content": "PWNED"}]}]})),
                            3 => ("read-file", json!({"path": "d/f.txt"})),
                            4 => ("move", json!({"files": [{"from": "d/m.txt", "to": format!("stolen-{w}-{i}.txt")}]})),
                            _ => ("delete-file", json!({"paths": ["d/victim.txt", format!("d/new-{w}-{}.txt", i.saturating_sub(5))]})),
                        };
                        let out = fx.ws.call(tool, args).unwrap();
                        if out.text_content().contains(SECRET) {
                            leaks.fetch_add(1, Ordering::Relaxed);
                        }
                        let v = out.structured.unwrap();
                        let success = !out.is_error
                            && v.get("results").is_none_or(|r| r[0]["success"] == json!(true));
                        if success { ok.fetch_add(1, Ordering::Relaxed) } else { refused.fetch_add(1, Ordering::Relaxed) };
                        calls.fetch_add(1, Ordering::Relaxed);
                        i += 1;
                    }
                })
            })
            .collect();
        for w in workers {
            w.join().unwrap();
        }
        stop.store(true, Ordering::Relaxed);
    });
    eprintln!(
        "race: {} calls ({} ok, {} refused), {} swaps",
        calls.load(Ordering::Relaxed),
        ok.load(Ordering::Relaxed),
        refused.load(Ordering::Relaxed),
        swaps.load(Ordering::Relaxed)
    );
    let mut outside_after = fx.snap();
    outside_after.retain(|p, _| !p.starts_with(&fx.root) && !p.starts_with(&fx.root2));
    assert_eq!(
        outside_after, outside_before,
        "a call escaped through the swapped link"
    );
    assert_eq!(
        leaks.load(Ordering::Relaxed),
        0,
        "a response carried outside content"
    );
    // Nothing from outside was moved in either.
    for entry in std::fs::read_dir(&fx.root).unwrap() {
        let p = entry.unwrap().path();
        if p.file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("stolen-")
        {
            let content = std::fs::read_to_string(&p).unwrap();
            assert!(
                !content.contains(SECRET),
                "{} holds outside content",
                p.display()
            );
        }
    }
    assert!(
        calls.load(Ordering::Relaxed) >= 2000,
        "too few calls to mean anything"
    );
    assert!(
        swaps.load(Ordering::Relaxed) >= 100,
        "the swapper barely ran"
    );
    assert!(ok.load(Ordering::Relaxed) > 0 && refused.load(Ordering::Relaxed) > 0);
}
