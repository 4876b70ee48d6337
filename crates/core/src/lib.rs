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
//!
//! // A failed call is a result the model reads, its text starting with the error's kind.
//! let missing = ws.call("read_file", json!({"path": "notes/done.txt"}))?;
//! assert!(missing.is_error && missing.text_content().starts_with("not-found: "));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Everything is synchronous and needs no async runtime: call a [`Workspace`] from any thread
//! (it is `Send + Sync`), or from an async server through its blocking pool, as `fsgate-mcp`
//! does. [`Workspace::tools`] gives the definitions to hand to a model, [`Workspace::prompt`] the
//! system-prompt fragment, and [`Workspace::call_with`] a call the caller can cancel.
//!
//! Layers, each knowing only the one below: [`surface`] (what the model sees: names, schemas,
//! texts) → [`ops`] (typed operations) → [`access`] (path resolution, ignore rules, file I/O).
//! [`profile`] is the one registry of profiles: [`Profile`] names them, [`ProfileConfig`] holds
//! one with its configuration, and [`Options::profile`] says which a workspace opens as.
//! The crate's `examples/` show it embedded in an agent loop (`agent_loop`) and a profile of
//! one's own written as a [`Surface`] over the engine (`custom_profile`).

#![deny(missing_docs)]

pub mod access;
pub mod config;
pub mod context;
pub mod error;
pub mod ops;
pub mod profile;
pub mod session;
pub mod surface;
pub mod text;
pub mod vision;
pub mod window;

use std::path::{Path, PathBuf};

use serde_json::Value;

pub use config::coder::CoderConfig;
pub use config::gg::GgConfig;
pub use config::native::NativeConfig;
pub use config::picoclaw::PicoclawConfig;
pub use config::qwen::QwenConfig;
pub use config::sgpt::SgptConfig;
pub use error::{ErrorKind, ToolError};
pub use profile::{Profile, ProfileConfig};
pub use surface::{CallContext, Content, Progress, ProgressSink, Surface, ToolDef, ToolOutput};

use access::Access;

/// What a workspace is opened with.
#[derive(Clone, Debug)]
pub struct Options {
    /// The working directory (gg) or the allowed roots, primary first (jailed profiles). Empty
    /// means the profile's default (coder: its configuration's `base_paths`).
    pub roots: Vec<PathBuf>,
    /// The tool surface, with its configuration. By default gg's, with
    /// [`GgConfig::default`]; `Profile::Coder.into()` is coder's with its defaults.
    pub profile: ProfileConfig,
    /// gg: confine every path to the roots (as the coder profile does). By default `false`.
    pub jail: bool,
    /// gg: restrict the tools to this agent's allowlist. By default none.
    pub agent: Option<String>,
    /// gg: never attach images, whatever the configuration says. By default `false`.
    pub no_vision: bool,
    /// gg: the arm served, over the configuration's `arm`. By default the configuration's.
    pub arm: Option<config::gg::Arm>,
    /// gg: the server-wide switch a harness turns off when the model turns out unable to take
    /// images ([`Workspace::learn_no_vision`]). Share one clone among the workspaces of one
    /// server. By default a switch of its own, on.
    pub vision: vision::VisionSwitch,
    /// The bounds an attached image is brought within, in every profile that attaches images
    /// (gg, qwen, native): one over them is scaled down, or described when it cannot be. By
    /// default 1,568 px on the long edge, 1,150,000 pixels and 3,932,160 bytes
    /// ([`ops::image::ImageLimits`]).
    pub images: ops::image::ImageLimits,
    /// gg, coder, qwen, picoclaw, sgpt: version tokens on reads and writes and an
    /// `expected_version` argument on every write and edit ([`surface::versioned`]). Native has
    /// them always. By default `false`: the profiles' specified texts and schemas exactly.
    pub versions: bool,
}

impl Options {
    /// Default options for the workspace at `root`.
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Options {
            roots: vec![root.into()],
            profile: ProfileConfig::default(),
            jail: false,
            agent: None,
            no_vision: false,
            arm: None,
            vision: vision::VisionSwitch::new(),
            images: ops::image::ImageLimits::default(),
            versions: false,
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
    /// No working directory was given.
    #[error("no working directory given; pass a root directory")]
    NoRoot,
    /// The jail could not be built (no reachable root, bad globs).
    #[error("{0}")]
    Jail(#[from] access::JailError),
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
    warnings: Vec<String>,
    /// What this workspace's calls have seen of each file (one workspace serves one session).
    session: std::sync::Arc<session::Session>,
    /// Whether the model can take images, shared with the server's other workspaces.
    vision: vision::VisionSwitch,
}

impl Workspace {
    /// A workspace serving a surface of your own (a custom profile) over `access` — say
    /// `Access::new(root)` or a jailed one. It is called, listed and served like a built-in
    /// profile.
    pub fn with_surface(access: Access, surface: Box<dyn Surface>) -> Workspace {
        Workspace {
            access,
            surface,
            warnings: Vec::new(),
            session: Default::default(),
            vision: vision::VisionSwitch::new(),
        }
    }

    /// Opens the workspace described by `options`.
    pub fn open(options: Options) -> Result<Workspace, OpenError> {
        let profile::Opened {
            access,
            surface,
            warnings,
        } = profile::open(&options)?;
        Ok(Workspace {
            access,
            surface,
            warnings,
            session: Default::default(),
            vision: options.vision,
        })
    }

    /// The canonical allowed roots when the workspace is confined.
    pub fn jail_roots(&self) -> Option<Vec<PathBuf>> {
        self.access
            .jail()
            .map(|j| j.roots().iter().map(|r| r.path.clone()).collect())
    }

    /// What opening skipped (unreachable roots), for the caller to log.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// Re-reads the configuration file at `path` and applies what may change while running.
    pub fn reload(&self, path: &Path) -> surface::Reload {
        self.surface.reload(path)
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
        self.call_with(name, args, &CallContext::default())
    }

    /// The session of this workspace's calls: what they have read and written (see
    /// [`session`]). A transport serving several MCP sessions opens a workspace for each.
    pub fn session(&self) -> &session::Session {
        &self.session
    }

    /// `ctx` in this workspace's session, unless it carries one of its own.
    fn in_session(&self, ctx: &CallContext) -> CallContext {
        if ctx.has_session() {
            ctx.clone()
        } else {
            ctx.clone().in_session(std::sync::Arc::clone(&self.session))
        }
    }

    /// The largest file a quick call may touch.
    pub const QUICK_FILE_BYTES: u64 = 1 << 20;

    /// The most argument text (string lengths summed) a quick call may carry.
    pub const QUICK_ARGUMENT_BYTES: usize = 256 << 10;

    /// Whether calling `name` with `args` is certain to be short: a read, write or edit of one
    /// existing regular file of at most [`Self::QUICK_FILE_BYTES`] that is not an image (one
    /// may be scaled down before it is attached), with at most
    /// [`Self::QUICK_ARGUMENT_BYTES`] of argument text. Such a call takes well under a
    /// millisecond, so a transport may run it where it stands instead of handing it to a thread
    /// that may block (and a cancellation could not arrive in time to matter). Anything else —
    /// walks, searches, commands, large files, a path that does not resolve — is not quick.
    pub fn is_quick(&self, name: &str, args: &Value) -> bool {
        let Some(key) = self.surface.file_argument(name) else {
            return false;
        };
        let Some(raw) = args.get(key).and_then(Value::as_str) else {
            return false;
        };
        if argument_bytes(args, Self::QUICK_ARGUMENT_BYTES) > Self::QUICK_ARGUMENT_BYTES {
            return false;
        }
        let Ok(target) = self.access.resolve(raw.trim()) else {
            return false;
        };
        self.access
            .metadata(&target)
            .is_ok_and(|meta| meta.is_file && meta.len <= Self::QUICK_FILE_BYTES)
            && !self.starts_like_image(&target)
    }

    /// Whether the file at `target` starts like an image (or cannot be looked at): attaching
    /// one may decode and scale it down ([`ops::image::fit`]), which takes milliseconds, not
    /// microseconds.
    fn starts_like_image(&self, target: &access::Resolved) -> bool {
        use std::io::Read as _;
        let Ok((file, _)) = self.access.open_regular(target) else {
            return true;
        };
        let mut head = Vec::with_capacity(ops::image::ImageFormat::SNIFF_LEN);
        let len = ops::image::ImageFormat::SNIFF_LEN as u64;
        if file.take(len).read_to_end(&mut head).is_err() {
            return true;
        }
        ops::image::ImageFormat::sniff(&head).is_some()
    }

    /// Runs a quick call (see [`Workspace::is_quick`]) once, here. `Err` gives `args` back when
    /// the call is not quick or met a concurrent change before it wrote, for
    /// [`Workspace::call_with`] to run on a thread that may block and retry.
    pub fn call_if_quick(
        &self,
        name: &str,
        args: Value,
        ctx: &CallContext,
    ) -> Result<Result<ToolOutput, UnknownTool>, Value> {
        if !self.is_quick(name, &args) {
            return Err(args);
        }
        let ctx = &self.in_session(ctx);
        // A quick call never waits for another writer's lock where requests are read: it
        // gives up as a clean conflict and runs again on the blocking pool, which waits.
        let impatient = access::fs::impatient();
        let attempt = self.attempt(name, args.clone(), ctx);
        drop(impatient);
        match attempt {
            Ok((output, true)) if !ctx.is_cancelled() => {
                drop(output);
                Err(args)
            }
            Ok((output, _)) => Ok(Ok(output)),
            Err(unknown) => Ok(Err(unknown)),
        }
    }

    /// One run of a call, and whether it was refused for a concurrent change before it wrote.
    fn attempt(
        &self,
        name: &str,
        args: Value,
        ctx: &CallContext,
    ) -> Result<(ToolOutput, bool), UnknownTool> {
        access::fs::begin_call();
        let output = self
            .surface
            .call(&self.access, name, args, ctx)
            .ok_or_else(|| UnknownTool {
                name: name.to_string(),
                available: self.tools().iter().map(|t| t.name.to_string()).collect(),
            })?;
        let conflicted = output.is_error && access::fs::call_conflicted_cleanly();
        Ok((output, conflicted))
    }

    /// [`Workspace::call`] with a context the caller can cancel.
    pub fn call_with(
        &self,
        name: &str,
        args: Value,
        ctx: &CallContext,
    ) -> Result<ToolOutput, UnknownTool> {
        let ctx = &self.in_session(ctx);
        // An edit made from content another writer changed meanwhile is refused before it
        // writes; a call refused so before its first write runs again from a fresh read.
        let mut attempt = 0;
        loop {
            let (output, conflicted) = self.attempt(name, args.clone(), ctx)?;
            attempt += 1;
            if !conflicted || attempt >= CONFLICT_RETRIES || ctx.is_cancelled() {
                return Ok(output);
            }
            pause_after_conflict(attempt);
        }
    }

    /// The system-prompt fragment for this configuration (under gg's code arm, opening with
    /// the workspace's tree).
    pub fn prompt(&self) -> String {
        match self.surface.opening(&self.access) {
            Some(opening) => format!("{opening}\n{}", self.surface.prompt()),
            None => self.surface.prompt(),
        }
    }

    /// Records that the model cannot take images, for every workspace opened with this one's
    /// [`Options::vision`] switch (all the sessions of one server); returns whether this changed
    /// anything. From then on images are described, not attached, and the prompt and tool
    /// descriptions say reading images is unsupported.
    pub fn learn_no_vision(&self) -> bool {
        self.vision.turn_off()
    }
}

/// How often work refused for a concurrent change runs in all before its refusal is shown: a
/// whole call ([`Workspace::call_with`]), or one entry of a batch that redoes its entries on
/// their own (coder's update-file).
pub(crate) const CONFLICT_RETRIES: u32 = 64;

/// The pause before running again work that lost a clean conflict for the `attempt`th time: a
/// random pause, growing with each attempt, so contending writers spread out.
pub(crate) fn pause_after_conflict(attempt: u32) {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let micros = u64::from(nanos % 500 + 1) * u64::from(attempt.min(20));
    std::thread::sleep(std::time::Duration::from_micros(micros));
}

/// The length of the text in `value` (strings and keys), counted up to just past `cap`.
fn argument_bytes(value: &Value, cap: usize) -> usize {
    match value {
        Value::String(text) => text.len(),
        Value::Array(items) => {
            let mut total = 0;
            for item in items {
                total += argument_bytes(item, cap) + 1;
                if total > cap {
                    break;
                }
            }
            total
        }
        Value::Object(map) => {
            let mut total = 0;
            for (key, item) in map {
                total += key.len() + argument_bytes(item, cap);
                if total > cap {
                    break;
                }
            }
            total
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => 8,
    }
}
