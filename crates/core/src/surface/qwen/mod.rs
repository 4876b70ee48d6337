//! The qwen profile (Qwen Code's tools): list_directory, read_file, notebook_edit,
//! write_file, glob, grep_search and edit, with Qwen Code's parameters, defaults and texts.
//!
//! Every text read is decoded from its encoding and every write or edit of an existing file
//! keeps its encoding, BOM and line endings byte for byte ([`crate::text::encoding`]); new files
//! follow `defaultFileEncoding`. Failed calls are tool results with `isError` whose text is
//! Qwen Code's message, without a kind prefix. Notebook reads are remembered for the session
//! (one surface serves one MCP session), so notebook_edit can require a fresh, complete read.

mod args;
mod list;
mod notebook;
mod read;
mod search;
mod tools;
mod writes;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use encoding_rs::Encoding;
use serde_json::Value;

use super::{CallContext, Content, Surface, ToolDef, ToolOutput};
use crate::access::ignore::IgnoreFiles;
use crate::access::{Access, Resolved};
use crate::config::qwen::QwenConfig;
use crate::error::{ErrorKind, NextWords, ToolError};

/// Qwen Code's words for the next step an engine error recommends.
const NEXT: NextWords = NextWords {
    check_path: "check the path with list_directory",
    see_entries: "use list_directory to see its entries",
};
use crate::text::encoding::Platform;

/// The qwen surface.
#[derive(Debug)]
pub struct Qwen {
    config: QwenConfig,
    /// The system's encoding, leaned on when detecting a file's encoding is unsure.
    fallback: Option<&'static Encoding>,
    /// The platform whose conventions new files follow.
    platform: Platform,
    /// The notebooks read in this session, by canonical path.
    reads: Mutex<HashMap<PathBuf, notebook::ReadState>>,
    /// The bounds an attached image is brought within.
    images: crate::ops::image::ImageLimits,
}

impl Qwen {
    /// The surface for `config`, on this host (its locale's encoding as the detection
    /// fallback).
    pub fn new(config: QwenConfig) -> Self {
        Qwen::with_host(
            config,
            system_encoding(),
            Platform::host(Platform::UTF8_CODE_PAGE),
        )
    }

    /// The surface for `config` with the detection fallback and platform given (for tests
    /// and hosts that know their code page).
    pub fn with_host(
        config: QwenConfig,
        fallback: Option<&'static Encoding>,
        platform: Platform,
    ) -> Self {
        Qwen {
            config,
            fallback,
            platform,
            reads: Mutex::new(HashMap::new()),
            images: crate::ops::image::ImageLimits::default(),
        }
    }

    /// The surface bringing attached images within `limits` instead of the defaults.
    pub fn with_image_limits(mut self, limits: crate::ops::image::ImageLimits) -> Self {
        self.images = limits;
        self
    }

    /// The ignore files of glob and grep_search.
    fn walk_rules(&self) -> IgnoreFiles {
        IgnoreFiles {
            git: self.config.respect_git_ignore,
            anchored: self.config.qwen_ignore_files(),
            ..IgnoreFiles::default()
        }
    }

    /// Whether `.qwenignore` or a configured ignore file excludes `path`.
    fn qwen_ignored(&self, access: &Access, path: &Path, is_dir: bool) -> bool {
        let files = IgnoreFiles {
            anchored: self.config.qwen_ignore_files(),
            ..IgnoreFiles::default()
        };
        !files.anchored.is_empty() && access.is_ignored_by(path, is_dir, &files)
    }
}

impl Surface for Qwen {
    fn tools(&self) -> Vec<ToolDef> {
        tools::defs(self)
    }

    fn call(
        &self,
        access: &Access,
        name: &str,
        args: Value,
        ctx: &CallContext,
    ) -> Option<ToolOutput> {
        let outcome = match name {
            "list_directory" => list::list_directory(self, access, args),
            "read_file" => {
                let raw = args.get("path").and_then(Value::as_str).map(str::to_string);
                crate::session::reading_path(ctx, access, raw.as_deref(), || {
                    read::read_file(self, access, args)
                })
            }
            "notebook_edit" => notebook::notebook_edit(self, access, args),
            "write_file" => writes::write_file(self, access, args, ctx),
            "glob" => search::glob(self, access, args, ctx),
            "grep_search" => search::grep_search(self, access, args, ctx),
            "edit" => writes::edit(self, access, args, ctx),
            _ => return None,
        };
        Some(outcome.unwrap_or_else(failure))
    }

    fn file_argument(&self, name: &str) -> Option<&'static str> {
        match name {
            "read_file" => Some("path"),
            "write_file" | "edit" => Some("file_path"),
            "notebook_edit" => Some("notebook_path"),
            _ => None,
        }
    }

    fn prompt(&self) -> String {
        tools::prompt(self)
    }
}

/// What a tool returns: its output, or the text of its failure.
type Outcome = Result<ToolOutput, String>;

/// A failed call whose text is `message`, as Qwen Code words it (no kind prefix); a path found
/// missing gets its near misses ([`crate::access::hints`]).
fn failure(message: String) -> ToolOutput {
    ToolOutput {
        content: vec![Content::Text(crate::access::hints::amend_not_found(
            message,
        ))],
        is_error: true,
        structured: None,
    }
}

/// Resolves a path argument (taken as written: a name may start or end with a space, and a
/// new one that would is refused); a path outside the workspace gets Qwen Code's message,
/// naming the workspace directories.
fn resolve(access: &Access, raw: &str, what: &str) -> Result<Resolved, String> {
    access
        .resolve(raw)
        .map_err(|e| engine_error(access, &e, what))
}

/// An engine or access error as Qwen Code words it; `what` is `File path` or `Path`.
fn engine_error(access: &Access, err: &ToolError, what: &str) -> String {
    match err.kind {
        ErrorKind::OutsideRoot => {
            let roots: Vec<String> = access.jail().map_or_else(
                || vec![access.root().display().to_string()],
                |jail| {
                    jail.roots()
                        .iter()
                        .map(|r| r.path.display().to_string())
                        .collect()
                },
            );
            format!(
                "{what} must be within one of the workspace directories: {} ({})",
                roots.join(", "),
                err.message
            )
        }
        _ => err.clone().worded(&NEXT).message,
    }
}

/// Whether the path names a Jupyter notebook (by extension, in any case).
fn is_notebook(path: &str) -> bool {
    Path::new(path)
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("ipynb"))
}

/// The encoding of the locale (`LC_ALL`, `LC_CTYPE`, `LANG`: `zh_CN.GBK` gives GBK), when it is
/// not UTF-8: Qwen Code's last resort when a file's encoding cannot be told from its bytes.
fn system_encoding() -> Option<&'static Encoding> {
    let locale = ["LC_ALL", "LC_CTYPE", "LANG"]
        .iter()
        .filter_map(|k| std::env::var(k).ok())
        .find(|v| !v.is_empty())?;
    let charset = locale.split_once('.')?.1;
    let charset = charset.split('@').next().unwrap_or(charset);
    let label = match charset.to_ascii_lowercase().as_str() {
        "sjis" | "shift-jis" => "shift_jis".to_string(),
        "eucjp" => "euc-jp".to_string(),
        "euckr" => "euc-kr".to_string(),
        other => other.to_string(),
    };
    Encoding::for_label(label.as_bytes()).filter(|e| *e != encoding_rs::UTF_8)
}
