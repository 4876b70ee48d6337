//! Shared fixtures for the sgpt integration tests: a workspace of the sgpt profile in a
//! temporary directory, and calls that assert success or failure.

#![allow(
    dead_code,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::disallowed_methods
)]

use std::path::{Path, PathBuf};

use fsgate_core::{CallContext, Options, SgptConfig, ToolOutput, Workspace};
use serde_json::Value;
use tempfile::TempDir;

/// An sgpt workspace rooted at a fresh temporary directory.
pub struct Sx {
    pub dir: TempDir,
    pub ws: Workspace,
}

impl Sx {
    /// The default configuration.
    pub fn new() -> Sx {
        Sx::with(|_| {})
    }

    /// The default configuration adjusted by `f`.
    pub fn with(f: impl FnOnce(&mut SgptConfig)) -> Sx {
        let dir = tempfile::tempdir().unwrap();
        let mut sgpt = SgptConfig::default();
        f(&mut sgpt);
        let ws = open(dir.path(), sgpt);
        Sx { dir, ws }
    }

    /// The configuration parsed from TOML `text`.
    pub fn config(text: &str) -> Sx {
        let config = SgptConfig::parse(text, "test.toml").unwrap();
        Sx::with(|c| *c = config)
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    /// Writes `bytes` at `rel`, creating parents.
    pub fn write(&self, rel: &str, bytes: impl AsRef<[u8]>) {
        write(&self.path(rel), bytes.as_ref());
    }

    pub fn bytes(&self, rel: &str) -> Vec<u8> {
        std::fs::read(self.path(rel)).unwrap()
    }

    pub fn text(&self, rel: &str) -> String {
        String::from_utf8(self.bytes(rel)).unwrap()
    }

    pub fn call(&self, tool: &str, args: Value) -> ToolOutput {
        self.ws.call(tool, args).unwrap()
    }

    pub fn call_with(&self, tool: &str, args: Value, ctx: &CallContext) -> ToolOutput {
        self.ws.call_with(tool, args, ctx).unwrap()
    }

    /// Calls `tool`, asserts it succeeded with JSON that is also its text, returns the JSON.
    pub fn ok(&self, tool: &str, args: Value) -> Value {
        let out = self.call(tool, args.clone());
        assert!(
            !out.is_error,
            "{tool} {args} failed unexpectedly: {}",
            out.text_content()
        );
        structured(&out)
    }

    /// Calls `tool`, asserts it failed as a whole (`kind: message` text), returns the text.
    pub fn err(&self, tool: &str, args: Value) -> String {
        let out = self.call(tool, args.clone());
        assert!(
            out.is_error,
            "{tool} {args} succeeded unexpectedly: {}",
            out.text_content()
        );
        assert!(
            out.structured.is_none(),
            "a whole-call error has no JSON: {}",
            out.text_content()
        );
        out.text_content()
    }

    /// Calls `tool`, asserts it failed with a JSON result (a command that ran and failed).
    pub fn failed(&self, tool: &str, args: Value) -> Value {
        let out = self.call(tool, args.clone());
        assert!(
            out.is_error,
            "{tool} {args} succeeded unexpectedly: {}",
            out.text_content()
        );
        structured(&out)
    }
}

/// Opens an sgpt workspace at `root`.
pub fn open(root: &Path, sgpt: SgptConfig) -> Workspace {
    Workspace::open(Options {
        profile: sgpt.into(),
        ..Options::new(root)
    })
    .unwrap()
}

/// The structured JSON of `out`, checked to be the same as its text block.
pub fn structured(out: &ToolOutput) -> Value {
    let json = out.structured.clone().expect("structured content");
    let text: Value = serde_json::from_str(&out.text_content()).unwrap();
    assert_eq!(json, text, "the text block is the structured JSON");
    json
}

pub fn write(path: &Path, bytes: &[u8]) {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::write(path, bytes).unwrap();
}
