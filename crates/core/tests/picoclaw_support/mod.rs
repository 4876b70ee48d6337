//! Shared fixtures for the picoclaw integration tests: a workspace over a temporary directory
//! opened with the picoclaw profile, and calls that assert success or failure.

#![allow(
    dead_code,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::disallowed_methods
)]

use std::path::{Path, PathBuf};

use fsgate_core::config::picoclaw::{PicoclawConfig, ReadFileMode};
use fsgate_core::{Options, ToolOutput, Workspace};
use serde_json::Value;
use tempfile::TempDir;

pub struct Pico {
    pub dir: TempDir,
    pub ws: Workspace,
}

impl Pico {
    pub fn new() -> Pico {
        Pico::with(|_| {})
    }

    pub fn lines() -> Pico {
        Pico::with(|c| c.read_file.mode = ReadFileMode::Lines)
    }

    pub fn with(f: impl FnOnce(&mut PicoclawConfig)) -> Pico {
        let dir = tempfile::tempdir().unwrap();
        let mut config = PicoclawConfig::default();
        f(&mut config);
        let ws = open(dir.path(), config);
        Pico { dir, ws }
    }

    /// The workspace root as the workspace sees it (canonical).
    pub fn root(&self) -> PathBuf {
        self.ws.root().to_path_buf()
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    pub fn write(&self, rel: &str, bytes: impl AsRef<[u8]>) {
        let p = self.path(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, bytes).unwrap();
    }

    pub fn read(&self, rel: &str) -> Vec<u8> {
        std::fs::read(self.path(rel)).unwrap()
    }

    pub fn read_str(&self, rel: &str) -> String {
        String::from_utf8(self.read(rel)).unwrap()
    }

    pub fn call(&self, tool: &str, args: Value) -> ToolOutput {
        self.ws.call(tool, args).unwrap()
    }

    /// A call that must succeed; its text.
    pub fn ok(&self, tool: &str, args: Value) -> String {
        let out = self.call(tool, args.clone());
        assert!(
            !out.is_error,
            "{tool} {args} failed: {}",
            out.text_content()
        );
        out.text_content()
    }

    /// A call that must fail; its text.
    pub fn err(&self, tool: &str, args: Value) -> String {
        let out = self.call(tool, args.clone());
        assert!(
            out.is_error,
            "{tool} {args} succeeded: {}",
            out.text_content()
        );
        out.text_content()
    }

    /// A call whose result is JSON; the parsed value.
    pub fn json(&self, tool: &str, args: Value) -> Value {
        let out = self.call(tool, args);
        serde_json::from_str(&out.text_content()).unwrap_or_else(|e| {
            panic!("not JSON ({e}): {}", out.text_content());
        })
    }
}

pub fn open(root: &Path, config: PicoclawConfig) -> Workspace {
    Workspace::open(Options {
        profile: config.into(),
        ..Options::new(root)
    })
    .unwrap()
}
