//! Shared fixture and per-profile adapters for the adversarial suite.
//!
//! The common fixture is a fresh directory `base` holding:
//!
//! ```text
//! base/root/            the only root   bait.txt ("bait\n"), sub/
//! base/outside/         not a root      secret.txt ("TOP SECRET outside\n")
//! base/root_evil/       not a root      f.txt ("TOP SECRET evil\n"), a sibling prefix
//! ```
//!
//! "Nothing changed" is checked on a snapshot of everything under `base` (kind, mode, owner,
//! content, link target).

use std::collections::BTreeMap;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use fsgate_core::{Options, Profile, ToolOutput, Workspace};
use serde_json::{Value, json};
use tempfile::TempDir;

/// Marks the content of every file a leak would expose.
pub const SECRET: &str = "TOP SECRET";

/// The profiles under test; `Gg` is opened with `jail: true`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum P {
    Gg,
    Coder,
    Qwen,
    Pico,
    Sgpt,
    Native,
}

/// Every profile.
pub const ALL: [P; 6] = [P::Gg, P::Coder, P::Qwen, P::Pico, P::Sgpt, P::Native];

pub fn write(path: &Path, content: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, content).unwrap();
}

pub fn s(p: &Path) -> String {
    p.to_str().unwrap().to_string()
}

/// A tmpfs mounted on a directory for the life of the value (unmounted on drop).
pub struct Tmpfs(pub PathBuf);

impl Tmpfs {
    /// Mounts a tmpfs of `size` (as `mount -o size=` takes it) on `dir`; `None` when mounting
    /// is not possible here.
    pub fn mount(dir: &Path, size: &str) -> Option<Tmpfs> {
        let st = std::process::Command::new("mount")
            .args([
                "-t",
                "tmpfs",
                "-o",
                &format!("size={size}"),
                "tmpfs",
                &s(dir),
            ])
            .stderr(std::process::Stdio::null())
            .status()
            .ok()?;
        st.success().then(|| Tmpfs(dir.to_path_buf()))
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount")
            .args(["-l", &s(&self.0)])
            .status();
    }
}

pub struct Fx {
    /// Dropped first: unmounted before the temp dir goes.
    pub _mnt: Option<Tmpfs>,
    pub _tmp: TempDir,
    pub base: PathBuf,
    pub root: PathBuf,
    pub out: PathBuf,
    pub evil: PathBuf,
    pub ws: Workspace,
    pub p: P,
}

pub fn options(p: P, root: &Path) -> Options {
    let mut o = Options::new(root);
    o.roots = vec![root.to_path_buf()];
    o.profile = match p {
        P::Gg => Profile::Gg,
        P::Coder => Profile::Coder,
        P::Qwen => Profile::Qwen,
        P::Pico => Profile::Picoclaw,
        P::Sgpt => Profile::Sgpt,
        P::Native => Profile::Native,
    }
    .into();
    o.jail = true;
    o
}

pub fn open(p: P, root: &Path) -> Workspace {
    Workspace::open(options(p, root)).unwrap()
}

impl Fx {
    pub fn new(p: P) -> Fx {
        Fx::with(p, |_| {})
    }

    /// The standard layout; `setup` runs on `base` before the workspace opens.
    pub fn with(p: P, setup: impl FnOnce(&Path)) -> Fx {
        Fx::build(p, false, setup)
    }

    /// [`Fx::with`] on a fresh tmpfs (fast for big fixtures); falls back to the disk when
    /// mounting is not possible.
    pub fn on_tmpfs(p: P, setup: impl FnOnce(&Path)) -> Fx {
        Fx::build(p, true, setup)
    }

    fn build(p: P, tmpfs: bool, setup: impl FnOnce(&Path)) -> Fx {
        let tmp = tempfile::tempdir().unwrap();
        let mnt = if tmpfs {
            Tmpfs::mount(tmp.path(), "1g")
        } else {
            None
        };
        let base = tmp.path().canonicalize().unwrap();
        let root = base.join("root");
        let out = base.join("outside");
        let evil = base.join("root_evil");
        std::fs::create_dir_all(root.join("sub")).unwrap();
        write(&root.join("bait.txt"), "bait\n");
        write(&out.join("secret.txt"), "TOP SECRET outside\n");
        write(&evil.join("f.txt"), "TOP SECRET evil\n");
        setup(&base);
        let ws = open(p, &root);
        Fx {
            _mnt: mnt,
            _tmp: tmp,
            base,
            root,
            out,
            evil,
            ws,
            p,
        }
    }

    pub fn call(&self, tool: &str, args: Value) -> ToolOutput {
        self.ws.call(tool, args).unwrap()
    }

    /// Everything under `base`, the profiles' own artifact folders (`.fsgate`, `.picoclaw`)
    /// aside.
    pub fn snap(&self) -> BTreeMap<PathBuf, String> {
        snapshot(&self.base)
            .into_iter()
            .filter(|(p, _)| {
                !p.starts_with(self.root.join(".fsgate"))
                    && !p.starts_with(self.root.join(".picoclaw"))
            })
            .collect()
    }
}

/// Whether a call failed: as a whole, or in its only batch entry (coder, sgpt).
pub fn failed(out: &ToolOutput) -> bool {
    if out.is_error {
        return true;
    }
    let Some(v) = &out.structured else {
        return false;
    };
    for key in ["results", "files"] {
        if let Some(first) = v.get(key).and_then(|r| r.get(0)) {
            if first.get("success") == Some(&json!(false)) {
                return true;
            }
            if first.get("error").is_some_and(|e| !e.is_null()) {
                return true;
            }
        }
    }
    false
}

/// The text and structured content of an output, for leak checks.
pub fn all_text(out: &ToolOutput) -> String {
    let mut t = out.text_content();
    if let Some(v) = &out.structured {
        t.push('\n');
        t.push_str(&v.to_string());
    }
    t
}

/// The tool that reads one file.
pub fn read(p: P, path: &str) -> (&'static str, Value) {
    match p {
        P::Gg => ("read_file", json!({"path": path})),
        P::Coder => ("read-file", json!({"path": path})),
        P::Qwen => ("read_file", json!({"path": path})),
        P::Pico => ("read_file", json!({"path": path})),
        P::Sgpt => ("read_files", json!({"paths": [path]})),
        P::Native => ("read_file", json!({"path": path})),
    }
}

/// The tool that reads a small window at the start of one file.
pub fn read_window(p: P, path: &str) -> (&'static str, Value) {
    match p {
        P::Gg => ("read_file", json!({"path": path, "offset": 1, "limit": 5})),
        P::Coder => (
            "read-file",
            json!({"path": path, "line_from": 1, "line_to": 5}),
        ),
        P::Qwen => ("read_file", json!({"path": path, "offset": 0, "limit": 5})),
        P::Pico => (
            "read_file",
            json!({"path": path, "offset": 0, "length": 4096}),
        ),
        P::Sgpt => ("read_files", json!({"paths": [path]})),
        P::Native => ("read_file", json!({"path": path, "offset": 1, "limit": 5})),
    }
}

/// The tool that replaces `old` by `new` once in an existing file.
pub fn edit(p: P, path: &str, old: &str, new: &str) -> (&'static str, Value) {
    match p {
        P::Gg => (
            "edit_file",
            json!({"path": path, "old_string": old, "new_string": new}),
        ),
        P::Coder => (
            "update-file",
            json!({"files": [{"path": path, "ops": [{"op": "replace", "pattern": old, "replacement": new}]}]}),
        ),
        P::Qwen => (
            "edit",
            json!({"file_path": path, "old_string": old, "new_string": new}),
        ),
        P::Pico => (
            "edit_file",
            json!({"path": path, "old_text": old, "new_text": new}),
        ),
        P::Sgpt => (
            "replace",
            json!({"path": path, "patches": [{"search": old, "replace": new}]}),
        ),
        P::Native => (
            "edit",
            json!({"path": path, "edits": [{"old_text": old, "new_text": new}]}),
        ),
    }
}

/// Every call of the profile that would create or change `path`: whole writes, edits of a
/// file holding "bait", appends.
pub fn mutations(p: P, path: &str) -> Vec<(&'static str, Value)> {
    let mut v = vec![edit(p, path, "bait", "PWNED")];
    match p {
        P::Gg => v.push(("write_file", json!({"path": path, "content": "PWNED"}))),
        P::Coder => v.push((
            "create-file",
            json!({"files": [{"path": path, "content": "PWNED", "overwrite": true}]}),
        )),
        P::Qwen => {
            v.push(("write_file", json!({"file_path": path, "content": "PWNED"})));
            v.push((
                "edit",
                json!({"file_path": path, "old_string": "", "new_string": "PWNED"}),
            ));
        }
        P::Pico => {
            v.push((
                "write_file",
                json!({"path": path, "content": "PWNED", "overwrite": true}),
            ));
            v.push(("append_file", json!({"path": path, "content": "PWNED"})));
        }
        P::Sgpt => v.push((
            "diff",
            json!({"path": path, "diff": "--- /dev/null\n+++ b/x\n@@ -0,0 +1 @@\n+PWNED\n"}),
        )),
        P::Native => {
            v.push((
                "write_file",
                json!({"path": path, "content": "PWNED", "mode": "overwrite"}),
            ));
            v.push(("write_file", json!({"path": path, "content": "PWNED"})));
            v.push((
                "write_file",
                json!({"path": path, "content": "PWNED", "mode": "append"}),
            ));
            v.push((
                "apply_patch",
                json!({"patch": format!("*** Begin Patch\n*** Add File: {path}\n+PWNED\n*** End Patch\n")}),
            ));
            v.push((
                "apply_patch",
                json!({"patch": format!("*** Begin Patch\n*** Update File: {path}\n@@\n-bait\n+PWNED\n*** End Patch\n")}),
            ));
            // delete and move act on the entry itself, a link included (a link inside the
            // root that points out is removed or renamed, its target untouched): their own
            // cases are in escapes.rs.
        }
    }
    v
}

/// The tool that lists one directory, if the profile has one.
pub fn list(p: P, path: &str) -> Option<(&'static str, Value)> {
    match p {
        P::Gg => Some(("list_dir", json!({"path": path}))),
        P::Coder => Some(("list-folder", json!({"path": path}))),
        P::Qwen => Some(("list_directory", json!({"path": path}))),
        P::Pico => Some(("list_dir", json!({"path": path}))),
        P::Sgpt => None,
        P::Native => Some(("list_dir", json!({"path": path}))),
    }
}

/// The tools that walk a tree below `path` (tree, glob, content and name search).
pub fn walks(p: P, path: &str) -> Vec<(&'static str, Value)> {
    match p {
        P::Gg => vec![
            ("tree", json!({"path": path, "depth": 10})),
            ("search", json!({"query": "SECRET|bait", "path": path})),
        ],
        P::Coder => vec![
            ("tree", json!({"path": path})),
            (
                "search",
                json!({"query": "SECRET", "path": path, "search_content": true}),
            ),
        ],
        P::Qwen => vec![
            ("glob", json!({"pattern": "**/*", "path": path})),
            (
                "grep_search",
                json!({"pattern": "SECRET|bait", "path": path}),
            ),
        ],
        P::Pico => vec![
            (
                "search_files",
                json!({"pattern": "SECRET|bait", "path": path}),
            ),
            (
                "search_files",
                json!({"pattern": "", "target": "files", "path": path}),
            ),
        ],
        P::Sgpt => vec![],
        P::Native => vec![
            ("tree", json!({"path": path, "depth": 10})),
            ("search", json!({"pattern": "SECRET|bait", "path": path})),
            ("glob", json!({"pattern": "**/*", "path": path})),
        ],
    }
}

/// Kind, permission bits, owner, content and link target of everything under `dir`.
pub fn snapshot(dir: &Path) -> BTreeMap<PathBuf, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let p = entry.unwrap().path();
            let m = std::fs::symlink_metadata(&p).unwrap();
            let mode = m.permissions().mode() & 0o7777;
            let own = format!("{}:{}", m.uid(), m.gid());
            let ft = m.file_type();
            let desc = if ft.is_symlink() {
                format!("link -> {}", std::fs::read_link(&p).unwrap().display())
            } else if m.is_dir() {
                stack.push(p.clone());
                format!("dir {mode:o} {own}")
            } else if m.is_file() {
                if m.len() > 1 << 20 {
                    format!("file {mode:o} {own} len {} ino {}", m.len(), m.ino())
                } else {
                    format!(
                        "file {mode:o} {own} {:?}",
                        String::from_utf8_lossy(&std::fs::read(&p).unwrap())
                    )
                }
            } else {
                format!("special {mode:o} {own} {:?}", ft)
            };
            out.insert(p, desc);
        }
    }
    out
}

/// Asserts two snapshots are equal, naming only the entries that differ (shortened).
pub fn same(before: &BTreeMap<PathBuf, String>, after: &BTreeMap<PathBuf, String>, what: &str) {
    let short = |v: Option<&String>| v.map(|s| s.chars().take(120).collect::<String>());
    let diffs: Vec<String> = before
        .keys()
        .chain(after.keys())
        .filter(|k| before.get(*k) != after.get(*k))
        .map(|k| {
            format!(
                "{k:?}: {:?} -> {:?}",
                short(before.get(k)),
                short(after.get(k))
            )
        })
        .collect();
    assert!(diffs.is_empty(), "{what}: the disk changed: {diffs:#?}");
}

/// Runs `f` on a thread and fails the test when it takes longer than `secs` seconds (the
/// thread is left behind; the test process ends with it).
pub fn guarded<T: Send + 'static>(
    secs: u64,
    what: &str,
    f: impl FnOnce() -> T + Send + 'static,
) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    match rx.recv_timeout(Duration::from_secs(secs)) {
        Ok(v) => v,
        Err(_) => panic!("{what}: did not return within {secs} s (hang)"),
    }
}

/// Runs a shell utility, panicking on failure.
pub fn sh(cmd: &str, args: &[&str]) {
    let st = std::process::Command::new(cmd).args(args).status().unwrap();
    assert!(st.success(), "{cmd} {args:?} failed");
}
