//! A native workspace in a temporary folder, and calls that assert success or failure.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use fsgate_core::{NativeConfig, Options, ToolOutput, Workspace};
use serde_json::Value;
use tempfile::TempDir;

pub struct Nx {
    pub dir: TempDir,
    pub ws: Workspace,
}

impl Nx {
    pub fn new() -> Nx {
        Nx::with(|_| {})
    }

    pub fn with(f: impl FnOnce(&mut NativeConfig)) -> Nx {
        let dir = tempfile::tempdir().unwrap();
        let mut config = NativeConfig {
            journal_dir: Some(state_dir().to_path_buf()),
            ..NativeConfig::default()
        };
        f(&mut config);
        let root = dir.path().canonicalize().unwrap();
        let ws = Workspace::open(Options {
            profile: config.into(),
            ..Options::new(&root)
        })
        .unwrap();
        Nx { dir, ws }
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    pub fn write(&self, rel: &str, bytes: impl AsRef<[u8]>) {
        let path = self.path(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }

    pub fn text(&self, rel: &str) -> String {
        std::fs::read_to_string(self.path(rel)).unwrap()
    }

    pub fn exists(&self, rel: &str) -> bool {
        self.path(rel).symlink_metadata().is_ok()
    }

    pub fn call(&self, tool: &str, args: Value) -> ToolOutput {
        self.ws.call(tool, args).unwrap()
    }

    /// The text of a call that must succeed.
    pub fn ok(&self, tool: &str, args: Value) -> String {
        let out = self.call(tool, args.clone());
        assert!(
            !out.is_error,
            "{tool} {args} failed: {}",
            out.text_content()
        );
        out.text_content()
    }

    /// The text of a call that must fail.
    pub fn err(&self, tool: &str, args: Value) -> String {
        let out = self.call(tool, args.clone());
        assert!(
            out.is_error,
            "{tool} {args} succeeded: {}",
            out.text_content()
        );
        out.text_content()
    }
}

/// The rollback journals of this test process live in a folder of its own (see
/// `access::txn`), not in the user's state folder.
pub fn state_dir() -> &'static Path {
    static DIR: std::sync::OnceLock<TempDir> = std::sync::OnceLock::new();
    DIR.get_or_init(|| tempfile::tempdir().unwrap()).path()
}

/// The version token in `text` (the first `v` and 12 hex digits after a space or arrow).
pub fn version_in(text: &str) -> String {
    last_versions(text)
        .into_iter()
        .next()
        .expect("a version token")
}

/// Every version token in `text`, in order.
pub fn last_versions(text: &str) -> Vec<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    for i in 0..bytes.len() {
        if bytes[i] == b'v'
            && (i == 0 || !bytes[i - 1].is_ascii_alphanumeric())
            && bytes.len() >= i + 13
            && bytes[i + 1..i + 13].iter().all(u8::is_ascii_hexdigit)
            && bytes.get(i + 13).is_none_or(|b| !b.is_ascii_alphanumeric())
        {
            out.push(text[i..i + 13].to_string());
        }
    }
    out
}

/// The JSON arguments of the `more: tool {…}` line of `text`.
pub fn more_args(text: &str) -> Option<(String, Value)> {
    let line = text.lines().find_map(|l| l.strip_prefix("more: "))?;
    let (tool, json) = line.split_once(' ')?;
    Some((tool.to_string(), serde_json::from_str(json).ok()?))
}

pub fn _unused(_: &Path) {}
