//! The native profile: fsgate's own tool set, the best of the five profiles on one engine, with
//! output tuned for tokens. read_file (line numbers, version tokens, windows with continuation,
//! an outline of files too large to read whole), edit (several edits in one call, the matcher's
//! levels reported, `line_hint`), apply_patch (V4A envelopes and multi-file unified diffs, all or
//! nothing, `dry_run`), write_file (create / overwrite / append), search, glob, tree, list_dir,
//! move, delete, undo and info.
//!
//! Every text is compact: one header line per answer, no repeated prefixes, and every cut ends
//! with the exact call that continues it. Every mutation returns the file's new version, takes
//! an optional `expected_version`, and is recorded for `undo`.

mod edit;
mod files;
mod find;
mod patch;
mod read;
mod tools;
mod txn;
mod write;

use serde_json::Value;

use super::args::Args;
use super::{CallContext, Surface, ToolDef, ToolOutput};
use crate::access::{Access, Resolved};
use crate::config::native::NativeConfig;
use crate::error::{ErrorKind, Result, ToolError};
use crate::ops::undo::Journal;
use crate::ops::version::{self, Versions, Windows};

/// The tools, in the order they are offered.
pub const TOOLS: [&str; 12] = [
    "read_file",
    "edit",
    "apply_patch",
    "write_file",
    "search",
    "glob",
    "tree",
    "list_dir",
    "move",
    "delete",
    "undo",
    "info",
];

/// The native surface under one configuration, with what its session keeps: the content behind
/// recent version tokens, and the journal undo reads.
#[derive(Debug)]
pub struct Native {
    config: NativeConfig,
    versions: Versions,
    /// The windows behind recent window tokens (a read of part of a file).
    windows: Windows,
    journal: Journal,
    /// The bounds an attached image is brought within.
    images: crate::ops::image::ImageLimits,
}

impl Native {
    /// The surface for `config`.
    pub fn new(config: NativeConfig) -> Native {
        let journal = Journal::new(config.undo_steps, config.undo_bytes as usize);
        Native {
            config,
            versions: Versions::default(),
            windows: Windows::default(),
            journal,
            images: crate::ops::image::ImageLimits::default(),
        }
    }

    /// The surface bringing attached images within `limits` instead of the defaults.
    pub fn with_image_limits(mut self, limits: crate::ops::image::ImageLimits) -> Native {
        self.images = limits;
        self
    }

    fn dispatch(
        &self,
        access: &Access,
        tool: &str,
        args: Value,
        ctx: &CallContext,
    ) -> Result<ToolOutput> {
        let text = match tool {
            "read_file" => return read::read_file(self, access, args, ctx),
            "edit" => edit::edit(self, access, args, ctx)?,
            "apply_patch" => patch::apply_patch(self, access, args, ctx)?,
            "write_file" => write::write_file(self, access, args, ctx)?,
            "search" => find::search(access, args, ctx)?,
            "glob" => find::glob(access, args, ctx)?,
            "tree" => files::tree(access, args, ctx)?,
            "list_dir" => files::list_dir(access, args)?,
            "move" => files::move_path(self, access, args)?,
            "delete" => files::delete(self, access, args)?,
            "undo" => files::undo(self, access, args)?,
            "info" => files::info(self, access, args)?,
            _ => return Err(ToolError::invalid(format!("{tool} is not a native tool"))),
        };
        Ok(ToolOutput::text(text))
    }

    /// The version of `bytes`, its content kept for a later mismatch.
    fn version(&self, bytes: &[u8]) -> String {
        self.versions.keep(bytes)
    }

    /// Checks `expected` (an `expected_version` argument) against the file's `current` bytes:
    /// `Ok(None)` when it matches or none was given; `Ok(Some(then))` with the content of that
    /// version when it differs and the content is still kept (the caller may rebase); else a
    /// `stale` error saying what to do.
    fn check_version(
        &self,
        shown: &str,
        expected: Option<&str>,
        current: &[u8],
    ) -> Result<Option<std::sync::Arc<[u8]>>> {
        let Some(expected) = expected else {
            return Ok(None);
        };
        if version::is_window_token(expected) {
            self.check_window(shown, expected, current)?;
            return Ok(None);
        }
        if !version::is_token(expected) {
            return Err(ToolError::invalid(format!(
                "expected_version {expected:?} is not a version token (v or w and 12 hex digits, \
                 as read_file shows them); pass the version of your last read of {shown}, or \
                 leave it out"
            )));
        }
        let now = self.version(current);
        if now == expected {
            return Ok(None);
        }
        match self.versions.content(expected) {
            Some(then) => Ok(Some(then)),
            None => Err(ToolError::new(
                ErrorKind::Stale,
                format!(
                    "{shown} is at {now}, not {expected}, and this session no longer holds \
                     {expected}'s content to compare; nothing was written. Read it again \
                     (read_file {{\"path\": \"{shown}\"}}) and redo the change from what it \
                     holds now."
                ),
            )),
        }
    }
}

impl Native {
    /// Checks a window token: the lines the read showed must hold the same bytes now (the rest
    /// of the file may have changed); else a `stale` error with what changed in them.
    fn check_window(&self, shown: &str, expected: &str, current: &[u8]) -> Result<()> {
        let Some(window) = self.windows.get(expected) else {
            return Err(ToolError::new(
                ErrorKind::Stale,
                format!(
                    "this session no longer holds window {expected} of {shown}, so it cannot \
                     tell whether those lines changed; nothing was written. Read them again and \
                     pass the new token."
                ),
            ));
        };
        let now = version::lines_of(current, window.first, window.count);
        if now.is_some_and(|lines| version::of_window(window.first, lines) == expected) {
            return Ok(());
        }
        let last = window.first + window.count.saturating_sub(1);
        let what = match (now, self.versions.content(&window.bytes_version)) {
            (None, _) => " The file no longer has that many lines.\n".to_string(),
            (Some(now), Some(then)) => {
                format!(
                    " What changed in them:\n{}\n",
                    crate::session::diff(&then, now)
                )
            }
            // Their earlier bytes were dropped from what the session keeps: no diff to show.
            (Some(_), None) => " ".to_string(),
        };
        Err(ToolError::new(
            ErrorKind::Stale,
            format!(
                "{shown} lines {}-{last} changed since window {expected}; nothing was \
                 written.{what}Read them again (read_file {{\"path\": \"{shown}\", \"offset\": {}, \
                 \"limit\": {}}}) and redo the change with the token that read gives.",
                window.first, window.first, window.count
            ),
        ))
    }

    /// The token of the window of `count` lines from `first` holding `bytes`.
    fn window(&self, first: usize, count: usize, bytes: &[u8]) -> String {
        self.windows.keep(&self.versions, first, count, bytes)
    }
}

/// The `stale` error of a file at `now` whose caller expected `expected` (content `then`),
/// with what changed since.
fn stale(shown: &str, expected: &str, then: &[u8], current: &[u8], now: &str) -> ToolError {
    ToolError::new(
        ErrorKind::Stale,
        format!(
            "{shown} changed since {expected} (now {now}); nothing was written. What changed:\n{}\n\
             Redo the change against the current content, with expected_version \"{now}\".",
            crate::session::diff(then, current)
        ),
    )
}

/// The path a tool names, resolved; `key` names the argument in errors.
fn resolve(access: &Access, args: &Args, key: &str) -> Result<Resolved> {
    access.resolve(args.str(key)?)
}

impl Surface for Native {
    fn tools(&self) -> Vec<ToolDef> {
        TOOLS
            .iter()
            .map(|&name| ToolDef {
                name,
                description: tools::description(name).to_string(),
                input_schema: tools::schema(name),
                output_schema: None,
                read_only: tools::read_only(name),
                destructive: matches!(
                    name,
                    "edit" | "apply_patch" | "write_file" | "move" | "delete" | "undo"
                ),
            })
            .collect()
    }

    fn call(
        &self,
        access: &Access,
        name: &str,
        args: Value,
        ctx: &CallContext,
    ) -> Option<ToolOutput> {
        let tool = TOOLS.iter().find(|t| **t == name)?;
        Some(match self.dispatch(access, tool, args, ctx) {
            Ok(output) => output,
            Err(err) => ToolOutput::error(&err.worded(&files::NEXT)),
        })
    }

    fn prompt(&self) -> String {
        tools::prompt()
    }

    fn file_argument(&self, name: &str) -> Option<&'static str> {
        matches!(name, "read_file" | "write_file" | "edit" | "info").then_some("path")
    }
}
