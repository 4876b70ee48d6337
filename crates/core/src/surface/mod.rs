//! What the model sees: tool definitions, argument decoding, and the rendering of engine results
//! into content. A surface never touches the disk; one module per profile.

pub mod args;
pub use crate::context::{CallContext, Progress, ProgressSink};
pub mod coder;
pub mod export;
pub mod gg;
pub mod native;
pub mod picoclaw;
pub mod qwen;
pub mod sgpt;
pub mod versioned;
mod words;

use serde_json::Value;

use crate::access::Access;
use crate::error::ToolError;

/// A tool as offered to the model.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolDef {
    /// The tool's name.
    pub name: &'static str,
    /// What it does, for the model.
    pub description: String,
    /// The JSON schema of its arguments (an object schema).
    pub input_schema: Value,
    /// The JSON schema of its structured result, for tools that return one.
    pub output_schema: Option<Value>,
    /// Whether the tool only reads.
    pub read_only: bool,
    /// Whether the tool may destroy or overwrite data (meaningful when not read-only).
    pub destructive: bool,
}

/// One block of a tool result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Content {
    /// Text.
    Text(String),
    /// An image: its MIME type and raw bytes (transports encode them).
    Image {
        /// The MIME type, e.g. `image/png`.
        mime: &'static str,
        /// The image file's bytes.
        data: Vec<u8>,
    },
    /// A file embedded whole as a resource (a PDF for a model that reads them).
    Resource {
        /// The file's URI, e.g. `file:///srv/project/spec.pdf`.
        uri: String,
        /// The MIME type, e.g. `application/pdf`.
        mime: &'static str,
        /// The file's bytes.
        data: Vec<u8>,
    },
}

/// A tool call's result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolOutput {
    /// The content blocks, in order.
    pub content: Vec<Content>,
    /// Whether the call failed.
    pub is_error: bool,
    /// The structured result (JSON-shaped profiles), also given as text in `content`.
    pub structured: Option<Value>,
}

impl ToolOutput {
    /// A successful result of one text block.
    pub fn text(text: impl Into<String>) -> Self {
        ToolOutput {
            content: vec![Content::Text(text.into())],
            is_error: false,
            structured: None,
        }
    }

    /// A failed result whose text is `kind: message`.
    pub fn error(err: &ToolError) -> Self {
        ToolOutput {
            content: vec![Content::Text(err.to_string())],
            is_error: true,
            structured: None,
        }
    }

    /// A structured result, given both as JSON text and as structured content.
    pub fn json(value: Value, is_error: bool) -> Self {
        ToolOutput {
            content: vec![Content::Text(value.to_string())],
            is_error,
            structured: Some(value),
        }
    }

    /// The text blocks joined by newlines (images left out).
    pub fn text_content(&self) -> String {
        self.content
            .iter()
            .filter_map(|c| match c {
                Content::Text(t) => Some(t.as_str()),
                Content::Image { .. } | Content::Resource { .. } => None,
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// A tool surface: one profile's names, schemas and texts over the shared engine.
pub trait Surface: Send + Sync {
    /// The tools offered, in a stable order.
    fn tools(&self) -> Vec<ToolDef>;

    /// Calls `name` with `args`; `None` when the profile has no tool of that name at all.
    /// Long work checks `ctx` and stops when the caller cancelled.
    fn call(
        &self,
        access: &Access,
        name: &str,
        args: Value,
        ctx: &CallContext,
    ) -> Option<ToolOutput>;

    /// The system-prompt fragment describing the tools under this configuration.
    fn prompt(&self) -> String;

    /// What the prompt opens with that needs the workspace itself (gg's code arm: the tree of
    /// the workspace); `None`, the default, for a prompt that is all configuration.
    fn opening(&self, access: &Access) -> Option<String> {
        let _ = access;
        None
    }

    /// For a tool whose whole work is reading, writing or editing one file, the argument that
    /// names that file: the call's cost is then bounded by the file's size and its arguments'
    /// (see [`crate::Workspace::is_quick`]). `None`, the default, for work that may run long:
    /// walks, searches, listings, commands and batches.
    fn file_argument(&self, name: &str) -> Option<&'static str> {
        let _ = name;
        None
    }

    /// Applies a reloaded configuration file; by default the profile does not reload.
    fn reload(&self, path: &std::path::Path) -> Reload {
        let _ = path;
        Reload::Unsupported
    }
}

/// What reloading a configuration file did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reload {
    /// The new values apply from the next call.
    Applied,
    /// The file changes fields that only a restart applies; the running configuration is kept.
    NeedsRestart(Vec<String>),
    /// The file is invalid; the running configuration is kept.
    Invalid(String),
    /// This profile does not reload its configuration.
    Unsupported,
}
