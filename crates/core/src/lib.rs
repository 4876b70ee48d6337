//! fsgate's engine: the filesystem tools a coding agent works through, behind one
//! [`Workspace`] that any transport (MCP, the command line, a Rust caller) drives.
//!
//! ```
//! use fsgate_core::{Options, Workspace};
//! use serde_json::json;
//!
//! let dir = tempfile::tempdir()?;
//! let ws = Workspace::open(Options::new(dir.path()))?;
//! ws.call("write_file", json!({"path": "notes/todo.txt", "content": "one\ntwo\n"}))?;
//! let out = ws.call("read_file", json!({"path": "notes/todo.txt"}))?;
//! assert_eq!(out.text_content(), "one\ntwo\n");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Layers, each knowing only the one below: [`surface`] (what the model sees: names, schemas,
//! texts) → [`ops`] (typed operations) → [`access`] (path resolution, ignore rules, file I/O).

#![deny(missing_docs)]

pub mod access;
pub mod config;
pub mod error;
pub mod ops;
pub mod surface;
pub mod text;

use std::path::{Path, PathBuf};

use serde_json::Value;

pub use config::Config;
pub use error::{ErrorKind, ToolError};
pub use surface::{Content, Surface, ToolDef, ToolOutput};

use access::Access;
use surface::gg::Gg;

/// What a workspace is opened with.
#[derive(Clone, Debug)]
pub struct Options {
    /// The working directory: relative paths resolve against it.
    pub root: PathBuf,
    /// The configuration. By default [`Config::default`].
    pub config: Config,
    /// Restrict the tools to this agent's allowlist. By default none.
    pub agent: Option<String>,
    /// Never attach images, whatever the configuration says. By default `false`.
    pub no_vision: bool,
}

impl Options {
    /// Default options for the workspace at `root`.
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Options {
            root: root.into(),
            config: Config::default(),
            agent: None,
            no_vision: false,
        }
    }
}

/// Why a workspace could not be opened.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OpenError {
    /// The working directory is not a usable directory.
    #[error("working directory {path}: {source}")]
    Root {
        /// The directory given.
        path: PathBuf,
        /// What went wrong.
        source: std::io::Error,
    },
    /// The options name something the configuration lacks (an unknown agent).
    #[error("{0}")]
    Surface(#[from] surface::gg::SurfaceError),
}

/// A call to a tool the profile does not have.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown tool {name:?}; the tools are {}", available.join(", "))]
pub struct UnknownTool {
    /// The name called.
    pub name: String,
    /// The tools offered.
    pub available: Vec<String>,
}

/// An opened workspace: its access layer and the surface the model sees.
pub struct Workspace {
    access: Access,
    surface: Box<dyn Surface>,
}

impl Workspace {
    /// Opens the workspace described by `options`.
    pub fn open(options: Options) -> Result<Workspace, OpenError> {
        let access = Access::new(&options.root).map_err(|source| OpenError::Root {
            path: options.root.clone(),
            source,
        })?;
        let surface = Gg::new(&options.config, options.agent.as_deref(), options.no_vision)?;
        Ok(Workspace {
            access,
            surface: Box::new(surface),
        })
    }

    /// The working directory.
    pub fn root(&self) -> &Path {
        self.access.root()
    }

    /// The tools offered, after capabilities and the agent's allowlist.
    pub fn tools(&self) -> Vec<ToolDef> {
        self.surface.tools()
    }

    /// Calls tool `name` with JSON `args`. A failed call is an `Ok` output with `is_error` set;
    /// only a name the profile does not know at all is an `Err`.
    pub fn call(&self, name: &str, args: Value) -> Result<ToolOutput, UnknownTool> {
        self.surface
            .call(&self.access, name, args)
            .ok_or_else(|| UnknownTool {
                name: name.to_string(),
                available: self.tools().iter().map(|t| t.name.to_string()).collect(),
            })
    }

    /// The system-prompt fragment for this configuration.
    pub fn prompt(&self) -> String {
        self.surface.prompt()
    }
}
