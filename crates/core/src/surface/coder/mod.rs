//! The coder profile (spec 001): the nine functions of the iii coder worker — info, read-file,
//! search, update-file, create-file, delete-file, move, list-folder, tree — over the jail, with
//! the worker's exact request and response shapes and its C2xx error codes.
//!
//! Every response is JSON: returned as structured content (with the tool's output schema) and
//! as the same JSON in a text block. A call that fails as a whole answers `isError` with
//! `{"code": "C2xx", "message": "..."}`; batch functions report per-entry errors inside their
//! results and fail only for bad input.

mod create;
mod delete;
mod info;
mod list;
mod moves;
mod read;
mod search;
mod tree;
mod update;
pub mod wire;

pub use update::refusal as update_refusal;

use std::path::Path;
use std::sync::RwLock;

use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::{CallContext, Reload, Surface, ToolDef, ToolOutput};
use crate::access::{Access, Resolved};
use crate::config::coder::{CoderConfig, CoderLimits};
use crate::error::{ErrorKind, Result, ToolError};
use wire::WireError;

/// The coder surface: its boot configuration and the limits that reload.
#[derive(Debug)]
pub struct Coder {
    boot: CoderConfig,
    limits: RwLock<CoderLimits>,
}

/// What a handler sees: the access layer and this call's snapshot of the limits.
pub(crate) struct Ctx<'a> {
    pub access: &'a Access,
    pub limits: CoderLimits,
    /// Whether the caller cancelled (long walks check it).
    pub call: &'a CallContext,
}

impl Ctx<'_> {
    /// Resolves a call's `base_dir`: it must be an existing directory inside a root.
    pub fn base(&self, base_dir: Option<&str>) -> Result<Option<Resolved>> {
        let Some(raw) = base_dir else {
            return Ok(None);
        };
        let base = self.access.resolve(raw)?;
        match self.access.metadata(&base) {
            Ok(meta) if meta.is_dir => Ok(Some(base)),
            Ok(_) => Err(ToolError::invalid(format!(
                "base_dir {raw} is a file; pass a directory inside an allowed root, or leave \
                 base_dir out"
            ))),
            Err(_) => Err(ToolError::not_found(format!(
                "base_dir {raw} does not exist; pass an existing directory inside an allowed \
                 root, or leave base_dir out"
            ))),
        }
    }

    /// Resolves a path of the call, relative to the session directory when there is one.
    pub fn resolve(&self, raw: &str, base: Option<&Resolved>) -> Result<Resolved> {
        match base {
            Some(base) => self.access.resolve_from(raw, base),
            None => self.access.resolve(raw),
        }
    }
}

/// The stable code of an error kind.
pub fn code(kind: ErrorKind) -> &'static str {
    match kind {
        // A conflict (the file changed under the call; nothing written) fails a pre-write
        // guard, as an expect_matches mismatch does: the message says it is a conflict.
        ErrorKind::InvalidArgument
        | ErrorKind::NoMatch
        | ErrorKind::NotUnique
        | ErrorKind::Conflict => "C210",
        ErrorKind::NotFound | ErrorKind::NotAccessible => "C211",
        ErrorKind::TooLarge => "C213",
        ErrorKind::OutsideRoot => "C215",
        ErrorKind::AlreadyExists => "C217",
        ErrorKind::OutsideSession => "C218",
        _ => "C216",
    }
}

/// An error as it appears on the wire.
pub fn wire_error(err: &ToolError) -> WireError {
    WireError {
        code: code(err.kind).to_string(),
        message: err.message.clone(),
    }
}

/// The canonical absolute path of a resolved target, as responses carry it (in the escaped
/// form of [`crate::text::names`], which every function accepts back).
pub(crate) fn canonical(target: &Resolved) -> String {
    crate::text::names::show_path(&target.path)
}

struct ToolSpec {
    name: &'static str,
    description: &'static str,
    read_only: bool,
    destructive: bool,
    input: fn() -> Value,
    output: fn() -> Value,
}

fn schema_of<T: JsonSchema>() -> Value {
    let schema = schemars::generate::SchemaSettings::draft07()
        .into_generator()
        .into_root_schema_for::<T>();
    schema.to_value()
}

const TOOLS: [ToolSpec; 9] = [
    ToolSpec {
        name: "info",
        description: "Report the jail: the canonical allowed roots (the primary root first, where \
            relative paths resolve), the per-file size caps, the response budgets, the listing \
            and search limits, the non-accessible globs and the default-exclude noise globs. Call \
            it first when unsure where files may be read or written, or after a path was \
            refused.",
        read_only: true,
        destructive: false,
        input: schema_of::<wire::InfoInput>,
        output: schema_of::<wire::InfoOutput>,
    },
    ToolSpec {
        name: "read-file",
        description: "Read a file. stat: true returns size, mode, mtime and total_lines without \
            content. line_from/line_to (1-based, inclusive) stream just that window, so files \
            larger than max_read_bytes stay readable; more_lines says whether the file goes on. \
            numbered: true prefixes each line with its absolute number and an arrow (N→), the \
            numbers update-file uses. A full read is limited by max_output_bytes (raise it per \
            call, up to max_read_bytes) and fails with C213 and the file's size and line count \
            when larger. paths[] (instead of path) reads several files against one shared budget, \
            with an error per entry. Paths are relative to the primary root or absolute inside \
            an allowed root; non-accessible paths return C211.",
        read_only: true,
        destructive: false,
        input: schema_of::<wire::ReadFileInput>,
        output: schema_of::<wire::ReadFileOutput>,
    },
    ToolSpec {
        name: "search",
        description: "Search file contents (a literal substring, or a regular expression with \
            regex: true) and/or file paths under a folder. Each content match gives the path, \
            line, column and line text, and context_lines_before/after (at most 10) add \
            surrounding lines. include_globs/exclude_globs filter paths (relative to their \
            root). A line longer than max_line_bytes whose match lies past them is listed in \
            long_line_matches (path, line, byte column) rather than left out. Results stop at \
            max_matches or at the response byte budget with truncated: true: then narrow the \
            query or the globs. Noise folders (default_exclude_globs) are \
            skipped unless use_default_excludes is false; non-accessible files are never \
            searched.",
        read_only: true,
        destructive: false,
        input: schema_of::<wire::SearchInput>,
        output: schema_of::<wire::SearchOutput>,
    },
    ToolSpec {
        name: "update-file",
        description: "Edit files with line operations and regex replacements. Line ops — \
            insert {at_line, content}, remove {from_line, to_line}, update_lines {from_line, \
            to_line, content} — use 1-based inclusive numbers of the file as it was and apply \
            from the bottom up; overlapping ops are refused. replace {pattern, replacement, \
            ignore_case?, dot_matches_newline?, expect_matches?} then runs on the whole body: \
            match a large region with two short anchors joined by .*? and dot_matches_newline \
            rather than quoting it; expect_matches guards the count (0 asserts absence); in the \
            replacement $1, ${1}, $name and ${name} are captures and $$ is a literal $. A line op \
            may carry expect_text, the text you expect in its lines (for insert, the lines from \
            at_line on): a difference fails the file with C210 naming what they hold. Line ops \
            on a file that changed since this session read or wrote it fail with C210 until it \
            is read again. Each file is written atomically or not at all; each op returns an \
            echo of the edited region to check instead of re-reading.",
        read_only: false,
        destructive: true,
        input: schema_of::<wire::UpdateFileInput>,
        output: schema_of::<wire::UpdateFileOutput>,
    },
    ToolSpec {
        name: "create-file",
        description: "Create files: {files: [{path, content, overwrite?, parents?, mode?}]}. An \
            existing file is refused with C217 unless overwrite is true; missing parent folders \
            are created unless parents is false; mode is octal text (default \"0644\"). \
            Non-accessible paths return C211.",
        read_only: false,
        destructive: true,
        input: schema_of::<wire::CreateFileInput>,
        output: schema_of::<wire::CreateFileOutput>,
    },
    ToolSpec {
        name: "delete-file",
        description: "Remove files or folders: {paths: [...], recursive?}. A non-empty folder \
            needs recursive: true; a path that does not exist succeeds with removed: false; a \
            folder holding a non-accessible entry is not removed; an allowed root cannot be \
            removed.",
        read_only: false,
        destructive: true,
        input: schema_of::<wire::DeleteFileInput>,
        output: schema_of::<wire::DeleteFileOutput>,
    },
    ToolSpec {
        name: "move",
        description: "Move or rename: {files: [{from, to, overwrite?, parents?}]}, each entry on \
            its own. A move within one root is an atomic rename; a file moved to another root is \
            copied then removed, and put back if removal fails. An existing destination is \
            refused with C217 unless overwrite is true; moving a folder across roots, moving a \
            root, and a destination that is a folder are refused with C210 naming the path to \
            use.",
        read_only: false,
        destructive: true,
        input: schema_of::<wire::MoveFileInput>,
        output: schema_of::<wire::MoveFileOutput>,
    },
    ToolSpec {
        name: "list-folder",
        description: "List one folder, sorted by name, a page at a time (page from 1, page_size \
            up to list_max_page_size). Entries carry name, kind, size and mtime; an entry's path \
            is the response's path + \"/\" + name. Non-accessible entries are listed with \
            non_accessible: true.",
        read_only: true,
        destructive: false,
        input: schema_of::<wire::ListFolderInput>,
        output: schema_of::<wire::ListFolderOutput>,
    },
    ToolSpec {
        name: "tree",
        description: "A recursive snapshot of a folder to max_depth (the root is depth 0), with \
            at most per_folder_limit children per folder; a folder cut short is flagged \
            truncated (use list-folder to page through it). Nodes carry names only: a child's \
            path is its parent's path + \"/\" + name, the root's is the response's path. Noise \
            folders (default_exclude_globs) appear as childless stubs unless \
            use_default_excludes is false.",
        read_only: true,
        destructive: false,
        input: schema_of::<wire::TreeInput>,
        output: schema_of::<wire::TreeOutput>,
    },
];

impl Coder {
    /// The surface for `config` (its jail is built by the access layer).
    pub fn new(config: CoderConfig) -> Self {
        Coder {
            limits: RwLock::new(config.limits),
            boot: config,
        }
    }

    fn limits(&self) -> CoderLimits {
        match self.limits.read() {
            Ok(limits) => *limits,
            Err(poisoned) => *poisoned.into_inner(),
        }
    }

    fn dispatch(
        &self,
        access: &Access,
        name: &str,
        args: Value,
        call: &CallContext,
    ) -> Result<Value> {
        let ctx = Ctx {
            access,
            limits: self.limits(),
            call,
        };
        match name {
            "info" => respond(info::call(&ctx, decode(name, args)?)),
            "read-file" => respond(read::call(&ctx, decode(name, args)?)),
            "search" => respond(search::call(&ctx, decode(name, args)?)),
            "update-file" => respond(update::call(&ctx, decode(name, args)?)),
            "create-file" => respond(create::call(&ctx, decode(name, args)?)),
            "delete-file" => respond(delete::call(&ctx, decode(name, args)?)),
            "move" => respond(moves::call(&ctx, decode(name, args)?)),
            "list-folder" => respond(list::call(&ctx, decode(name, args)?)),
            "tree" => respond(tree::call(&ctx, decode(name, args)?)),
            _ => Err(ToolError::invalid(format!(
                "{name} is not a coder function"
            ))),
        }
    }
}

fn decode<T: DeserializeOwned>(tool: &str, args: Value) -> Result<T> {
    let args = match args {
        Value::Null => Value::Object(Default::default()),
        other => other,
    };
    serde_json::from_value(args).map_err(|e| {
        ToolError::invalid(format!(
            "the arguments of {tool} do not fit its request shape: {e}; see the tool's input \
             schema"
        ))
    })
}

fn respond<T: Serialize>(result: Result<T>) -> Result<Value> {
    let value = result?;
    serde_json::to_value(value).map_err(|e| {
        ToolError::new(
            ErrorKind::Io,
            format!("the response could not be encoded: {e}"),
        )
    })
}

impl Surface for Coder {
    fn tools(&self) -> Vec<ToolDef> {
        TOOLS
            .iter()
            .map(|t| ToolDef {
                name: t.name,
                description: t.description.to_string(),
                input_schema: (t.input)(),
                output_schema: Some((t.output)()),
                read_only: t.read_only,
                destructive: t.destructive,
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
        TOOLS.iter().find(|t| t.name == name)?;
        Some(match self.dispatch(access, name, args, ctx) {
            Ok(value) => ToolOutput::json(value, false),
            Err(err) => match serde_json::to_value(wire_error(&err)) {
                Ok(value) => ToolOutput::json(value, true),
                Err(_) => ToolOutput::error(&err),
            },
        })
    }

    fn prompt(&self) -> String {
        "# Filesystem tools (coder)\n\nEvery path is confined to the allowed roots that info \
         reports; relative paths resolve against the primary root. Errors come back as \
         {\"code\": \"C2xx\", \"message\": ...}: C210 bad input, C211 not found or not accessible, \
         C213 too large, C215 outside every root, C216 I/O, C217 already exists, C218 outside \
         the session directory. Read with read-file (stat first for unknown files, then \
         line_from/line_to windows), find with search, edit with update-file using the line \
         numbers of a numbered read.\n"
            .to_string()
    }

    fn reload(&self, path: &Path) -> Reload {
        let new = match CoderConfig::load(path) {
            Ok(new) => new,
            Err(e) => return Reload::Invalid(e.to_string()),
        };
        if !self.boot.same_jail(&new) {
            return Reload::NeedsRestart(
                [
                    "base_paths",
                    "non_accessible_globs",
                    "default_exclude_globs",
                ]
                .iter()
                .map(|s| s.to_string())
                .collect(),
            );
        }
        match self.limits.write() {
            Ok(mut limits) => *limits = new.limits,
            Err(poisoned) => *poisoned.into_inner() = new.limits,
        }
        Reload::Applied
    }
}
