//! Glob pattern handling: the first byte picks where the pattern goes (qwen `glob`, qwen
//! `grep_search`'s `glob`, picoclaw `search_files`' `file_glob`, coder `search`'s
//! `include_globs`, the coder jail's `non_accessible_globs`); the rest is the pattern, run
//! against a small fixed tree. Any pattern must match or be refused clearly, never panic.
#![no_main]
// The harness (libFuzzer's macro, fixture set-up) does its own file I/O, outside fsgate's access layer.
#![allow(clippy::disallowed_methods)]

use std::path::Path;
use std::sync::OnceLock;

use fsgate_core::{CoderConfig, Options, Profile, Workspace};
use libfuzzer_sys::fuzz_target;
use serde_json::json;

struct Fixture {
    _dir: tempfile::TempDir,
    root: std::path::PathBuf,
    qwen: Workspace,
    picoclaw: Workspace,
    coder: Workspace,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        for (path, body) in [
            ("a.txt", "alpha\n"),
            ("B.TXT", "bravo\n"),
            ("src/main.rs", "fn main() {}\n"),
            ("src/lib/x.py", "x = 1\n"),
            ("src/[id].tsx", "export {}\n"),
            ("docs/a b.md", "# a b\n"),
            ("docs/ünï.md", "unicode\n"),
            (".hidden/y", "y\n"),
            (".env", "TOKEN=1\n"),
        ] {
            let path = root.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, body).unwrap();
        }
        let open = |profile: Profile| {
            let mut options = Options::new(&root);
            options.profile = profile.into();
            Workspace::open(options).unwrap()
        };
        Fixture {
            qwen: open(Profile::Qwen),
            picoclaw: open(Profile::Picoclaw),
            coder: open(Profile::Coder),
            root,
            _dir: dir,
        }
    })
}

fn jail_with_secret(root: &Path, glob: &str) {
    let mut options = Options::new(root);
    options.profile = CoderConfig {
        non_accessible_globs: vec![glob.to_string()],
        ..CoderConfig::default()
    }
    .into();
    if let Ok(ws) = Workspace::open(options) {
        let _ = ws.call("read-file", json!({"path": "a.txt"}));
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&which, rest)) = data.split_first() else {
        return;
    };
    let pattern = String::from_utf8_lossy(rest).into_owned();
    let f = fixture();
    let _ = match which % 6 {
        0 => f.qwen.call("glob", json!({"pattern": pattern})),
        1 => f
            .qwen
            .call("glob", json!({"pattern": pattern, "path": "src"})),
        2 => f
            .qwen
            .call("grep_search", json!({"pattern": "a", "glob": pattern})),
        3 => f.picoclaw.call(
            "search_files",
            json!({"pattern": "a", "file_glob": pattern}),
        ),
        4 => f.coder.call(
            "search",
            json!({"query": "a", "include_globs": [pattern], "search_content": true}),
        ),
        _ => {
            jail_with_secret(&f.root, &pattern);
            return;
        }
    };
});
