//! Shared fixtures for the qwen profile's tests: a workspace in a temporary directory opened
//! with `--profile qwen`, calls that assert success or failure, and the committed fixtures.

#![allow(
    dead_code,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::disallowed_methods
)]

use std::path::{Path, PathBuf};

use fsgate_core::{Content, Options, QwenConfig, ToolOutput, Workspace};
use serde_json::Value;
use tempfile::TempDir;

/// A qwen workspace rooted at a fresh temporary directory.
pub struct Qx {
    pub dir: TempDir,
    pub ws: Workspace,
}

impl Qx {
    pub fn new() -> Qx {
        Qx::with(QwenConfig::default())
    }

    pub fn with(config: QwenConfig) -> Qx {
        let dir = tempfile::tempdir().unwrap();
        let ws = open(dir.path(), config);
        Qx { dir, ws }
    }

    /// Another session (a new workspace) over the same directory.
    pub fn reopen(&self) -> Workspace {
        open(self.dir.path(), QwenConfig::default())
    }

    /// The workspace root as the workspace knows it (canonical).
    pub fn root(&self) -> PathBuf {
        self.ws.root().to_path_buf()
    }

    /// The absolute path of `rel`, as a model would pass it.
    pub fn abs(&self, rel: &str) -> String {
        self.root().join(rel).to_string_lossy().into_owned()
    }

    pub fn write(&self, rel: &str, bytes: impl AsRef<[u8]>) {
        let path = self.root().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }

    pub fn read(&self, rel: &str) -> Vec<u8> {
        std::fs::read(self.root().join(rel)).unwrap()
    }

    pub fn exists(&self, rel: &str) -> bool {
        self.root().join(rel).exists()
    }

    pub fn call(&self, tool: &str, args: Value) -> ToolOutput {
        self.ws.call(tool, args).unwrap()
    }

    /// The text of a call that must succeed.
    pub fn ok(&self, tool: &str, args: Value) -> String {
        let out = self.call(tool, args);
        assert!(!out.is_error, "{tool} failed: {}", out.text_content());
        out.text_content()
    }

    /// The text of a call that must fail.
    pub fn err(&self, tool: &str, args: Value) -> String {
        let out = self.call(tool, args);
        assert!(
            out.is_error,
            "{tool} should fail, got: {}",
            out.text_content()
        );
        out.text_content()
    }
}

fn open(dir: &Path, config: QwenConfig) -> Workspace {
    Workspace::open(Options {
        profile: config.into(),
        ..Options::new(dir)
    })
    .unwrap()
}

/// The bytes of a committed fixture under tests/fixtures/qwen.
pub fn fixture(rel: &str) -> Vec<u8> {
    std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/qwen")
            .join(rel),
    )
    .unwrap_or_else(|e| panic!("fixture {rel}: {e}"))
}

/// The images of an output.
pub fn images(out: &ToolOutput) -> Vec<(&'static str, Vec<u8>)> {
    out.content
        .iter()
        .filter_map(|c| match c {
            Content::Image { mime, data } => Some((*mime, data.clone())),
            _ => None,
        })
        .collect()
}

/// The embedded resources of `out`, as (uri, MIME type, bytes).
pub fn resources(out: &ToolOutput) -> Vec<(String, &'static str, Vec<u8>)> {
    out.content
        .iter()
        .filter_map(|c| match c {
            Content::Resource { uri, mime, data } => Some((uri.clone(), *mime, data.clone())),
            _ => None,
        })
        .collect()
}
