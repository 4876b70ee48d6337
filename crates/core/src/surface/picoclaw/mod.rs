//! The picoclaw profile — PicoClaw (spec 003): read_file (byte or line mode), write_file
//! (safe, verified writes with an advisory syntax check), edit_file (exact text or a V4A patch,
//! answered with a unified diff), append_file, list_dir and search_files (paged, merged,
//! budgeted), with PicoClaw's sandbox (workspace restriction, read/write allowlists, protected
//! credential paths), its per-tool switches, credential redaction of everything it returns, and
//! the large-result spill.
//!
//! Every result and error passes [`scrub`] in [`Surface::call`], before the spill, text and
//! structured JSON alike. An error (which may quote file lines, a patch, the model's own
//! arguments) passes the whole scrubber. A success passes its token formats: the handlers that
//! return file content (read_file, search_files, edit_file's diff) scrub each piece of it whole
//! before they frame it, and the rule for machine-generated runs, measured again over the
//! framed text, could reach across a `path-12-` or a diff's `+` into the content and mask the
//! frame with it (see [`redact_tokens`]); file names and paths in results stay addressable.

mod edit;
mod list;
mod policy;
mod read;
mod search;
mod spill;
mod write;

use serde_json::{Value, json};

use super::{CallContext, Content, Surface, ToolDef, ToolOutput};
use crate::access::Access;
use crate::config::picoclaw::{PicoclawConfig, ReadFileMode};
use crate::error::{ErrorKind, Result, ToolError};
use crate::text::lines;
use crate::text::redact::{FILTERED, redact, redact_tokens};
use crate::text::restore::Unmapped;
use policy::Policy;

/// The six tools, in PicoClaw's order.
pub const TOOLS: [&str; 6] = [
    "read_file",
    "write_file",
    "edit_file",
    "append_file",
    "list_dir",
    "search_files",
];

/// The picoclaw surface.
#[derive(Debug)]
pub struct Picoclaw {
    config: PicoclawConfig,
    policy: Policy,
}

/// What a handler works with.
pub(super) struct Call<'a> {
    pub pico: &'a Picoclaw,
    pub ws: &'a Access,
    pub ctx: &'a CallContext,
}

impl Picoclaw {
    /// The surface for `config`.
    pub fn new(config: PicoclawConfig) -> Self {
        let policy = Policy::new(&config);
        Picoclaw { config, policy }
    }

    /// The configuration in force.
    pub fn config(&self) -> &PicoclawConfig {
        &self.config
    }

    fn enabled(&self) -> Vec<&'static str> {
        TOOLS
            .into_iter()
            .filter(|t| self.config.tools.enabled(t))
            .collect()
    }

    fn dispatch(&self, call: &Call<'_>, tool: &str, args: Value) -> Result<ToolOutput> {
        match tool {
            "read_file" => read::read_file(call, args),
            "write_file" => write::write_file(call, args),
            "edit_file" => edit::edit_file(call, args),
            "append_file" => write::append_file(call, args),
            "list_dir" => list::list_dir(call, args),
            "search_files" => search::search_files(call, args),
            _ => Err(ToolError::invalid(format!("{tool} is not a picoclaw tool"))),
        }
    }

    fn description(&self, tool: &str) -> String {
        match tool {
            "read_file" => match self.config.read_file.mode {
                ReadFileMode::Bytes => format!(
                    "Read the contents of a file. Supports pagination via `offset` and `length` \
                     (bytes; a window holds at most {} bytes and what fits in a {}-character \
                     result). The result starts with a header naming the byte range read and \
                     saying whether the file continues (call again with the offset it gives) or \
                     ended. Credential-looking values are shown as [FILTERED]; offsets still \
                     count the file's own bytes.",
                    self.config.read_file.max_read_file_size, self.config.max_inline_result_chars
                ),
                ReadFileMode::Lines => format!(
                    "Read a UTF-8 text file. Output always includes line numbers in the format \
                     `LINE_NUMBER|LINE_CONTENT` (1-indexed). Supports partial reads via \
                     `start_line` and `max_lines` (at most {} lines, {} bytes and what fits in a \
                     {}-character result per call) for large text files; lines longer than {} \
                     characters are cut with a ` … [truncated]` marker. The header says which \
                     lines were read and how to continue. Credential-looking values are shown \
                     as [FILTERED]; line numbers still count the file's own lines.",
                    self.config.read_file.max_lines,
                    self.config.read_file.max_read_file_size,
                    self.config.max_inline_result_chars,
                    self.config.read_file.max_line_length
                ),
            },
            "write_file" => {
                let alternatives =
                    match (self.config.tools.edit_file, self.config.tools.append_file) {
                        (true, true) => " For targeted changes prefer edit_file or append_file.",
                        (true, false) => " For targeted changes prefer edit_file.",
                        (false, true) => " To add to the end of a file prefer append_file.",
                        (false, false) => "",
                    };
                format!(
                    "Write content to a file. Content is written byte-for-byte after argument \
                     decoding. Standard JSON escaping applies: \\n for newline and \\\\n for a \
                     literal backslash-n sequence. A new path needs no flag; rewriting a file with \
                     identical content (unchanged) or with content that only extends it \
                     (appended: just the new suffix is written) is safe; any other replacement of \
                     an existing file needs overwrite=true and discards its current contents. \
                     Returns compact JSON: success, action (created, overwritten, appended, \
                     unchanged), resolved_path, bytes_written, verified (read back \
                     byte-for-byte), and syntax/syntax_error from an advisory syntax check.\
                     {alternatives}"
                )
            }
            "edit_file" => "Edit an existing file, either by replacing old_text with new_text \
                 (old_text must appear exactly once; add surrounding lines to make it unique) or \
                 by applying patch, a V4A patch for this file: optional *** Begin Patch / *** End \
                 Patch and *** Update File: <path> (matching path), then hunks starting with @@ \
                 whose lines start with ' ' (context), '-' (removed) or '+' (added); *** End of \
                 File anchors a hunk to the end of the file. Provide old_text + new_text or patch, \
                 never both. Returns a unified diff of the change. Standard JSON escaping \
                 applies: \\n for newline and \\\\n for literal backslash-n."
                .to_string(),
            "append_file" => "Append content to the end of a file. The file is created if it \
                 does not exist, and missing parent directories are created. Standard JSON \
                 escaping applies: \\n for newline and \\\\n for literal backslash-n."
                .to_string(),
            "list_dir" => "List files and directories in a path, one per line as `DIR:  name` \
                 or `FILE: name`. Relative paths resolve from the workspace."
                .to_string(),
            "search_files" => "Search file contents with a regular expression, or find files by \
                 name (target: \"files\"). Use this instead of grep, rg, find or ls in a \
                 terminal. Content results are `path:line:text` (context lines `path-line-text`, \
                 blocks separated by --); offset/limit page through results (a result is a match \
                 line, or a merged context block when context > 0). Filename patterns: empty \
                 lists every file; without *, ?, [ or { a substring of the relative path; a glob \
                 with / matches the whole relative path, one without / the base name (* and ? do \
                 not cross /, **/ any directories, {a,b} alternatives). .gitignore and .ignore \
                 are honoured; a path given explicitly is searched even when ignored. \
                 Credential-looking values are shown as [FILTERED]."
                .to_string(),
            _ => String::new(),
        }
    }

    fn schema(&self, tool: &str) -> Value {
        match tool {
            "read_file" => match self.config.read_file.mode {
                ReadFileMode::Bytes => json!({
                    "type": "object",
                    "properties": {
                        "path": {"type": "string", "description": "Path to the file to read."},
                        "offset": {"type": "integer", "minimum": 0, "default": 0,
                            "description": "Byte offset to start reading from."},
                        "length": {"type": "integer", "minimum": 1,
                            "description": format!("Maximum number of bytes to read (at most {}; a window is also cut to what fits in a {}-character result).",
                                self.config.read_file.max_read_file_size, self.config.max_inline_result_chars)}
                    },
                    "required": ["path"]
                }),
                ReadFileMode::Lines => json!({
                    "type": "object",
                    "properties": {
                        "path": {"type": "string", "description": "Path to the file to read."},
                        "start_line": {"type": "integer", "minimum": 1, "default": 1,
                            "description": "Line number to start reading from (1-indexed, inclusive)."},
                        "max_lines": {"type": "integer", "minimum": 1,
                            "description": format!("Maximum number of lines to read (at most {}; larger values are clamped).",
                                self.config.read_file.max_lines)}
                    },
                    "required": ["path"]
                }),
            },
            "write_file" => json!({
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "Path to the file to write."},
                    "content": {"type": "string", "description": "Full file content. Standard JSON escaping applies: \\n for newline and \\\\n for literal backslash-n."},
                    "overwrite": {"type": "boolean", "default": false, "description": "Set to true to replace an existing file in full, discarding its current contents. Not needed for new files, identical content, or content that only extends the file."}
                },
                "required": ["path", "content"]
            }),
            "edit_file" => json!({
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "Path to the file to edit."},
                    "old_text": {"type": "string", "description": "Exact text to replace; must appear exactly once (when patch is absent)."},
                    "new_text": {"type": "string", "description": "Replacement text (when patch is absent)."},
                    "patch": {"type": "string", "description": "V4A patch body for this file (when old_text/new_text are absent)."}
                },
                "required": ["path"]
            }),
            "append_file" => json!({
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "Path of the file to append to."},
                    "content": {"type": "string", "description": "Content to append."}
                },
                "required": ["path", "content"]
            }),
            "list_dir" => json!({
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "Directory to list (relative paths resolve from the workspace)."}
                },
                "required": ["path"]
            }),
            "search_files" => json!({
                "type": "object",
                "properties": {
                    "pattern": {"type": "string", "description": "Regex for content search (an empty pattern matches every line), or a filename pattern for target \"files\" (an empty pattern lists all files)."},
                    "target": {"type": "string", "enum": ["content", "files"], "default": "content", "description": "Search file contents or file names."},
                    "path": {"type": "string", "default": ".", "description": "File or directory to search."},
                    "file_glob": {"type": "string", "description": "Filename pattern restricting a content search (same syntax as pattern for target \"files\")."},
                    "limit": {"type": "integer", "minimum": 1, "maximum": search::MAX_LIMIT, "default": search::DEFAULT_LIMIT, "description": "Maximum results to return."},
                    "offset": {"type": "integer", "minimum": 0, "default": 0, "description": "Number of results to skip (pagination); a result is a match line, or a merged context block when context > 0."},
                    "order": {"type": "string", "enum": ["discovery", "modified"], "default": "discovery", "description": "discovery order, or newest modification time first (scans the full tree)."},
                    "output_mode": {"type": "string", "enum": ["content", "files_only", "count"], "default": "content", "description": "Content searches: matching lines, file paths only, or match counts per file."},
                    "context": {"type": "integer", "minimum": 0, "maximum": search::MAX_CONTEXT, "default": 0, "description": "Lines before and after each content match."}
                },
                "required": ["pattern"]
            }),
            _ => json!({"type": "object"}),
        }
    }
}

/// `output` with credential-looking values masked in every text block and every string of its
/// structured content: by the whole scrubber in an error, by its token formats in a success
/// (see the module documentation).
/// The refusal of a `[FILTERED]` that stands for no one hidden value, in picoclaw's words: the
/// line as line N of `whose` ("the content", "the edited file"), and what to do instead.
fn unmapped(u: &Unmapped, whose: &str) -> ToolError {
    let (quoted, cut) = lines::cut_chars(&u.text, 160);
    let quoted = if cut > 0 {
        format!("`{quoted}…`")
    } else {
        format!("`{quoted}`")
    };
    let why = if u.ambiguous.is_empty() {
        "that line equals no line of the file as read_file shows it, so the placeholder would \
         replace a real value"
            .to_string()
    } else {
        let shown: Vec<String> = u
            .ambiguous
            .iter()
            .take(12)
            .map(ToString::to_string)
            .collect();
        format!(
            "that line equals lines {}{} of the file as read_file shows them, which hide \
             different values, so which one it stands for is not known",
            shown.join(", "),
            if u.ambiguous.len() > 12 { ", …" } else { "" }
        )
    };
    ToolError::invalid(format!(
        "line {} of {whose} ({quoted}) holds {FILTERED}, which stands for a hidden \
         credential-looking value of the file that you cannot know; {why}. Nothing was \
         written. A line copied unchanged from read_file, [FILTERED] included, keeps its real \
         value: keep such lines exactly as read_file shows them and change only the lines \
         around them (a smaller old_text or patch hunk, or leave the line out of the new \
         text), or write the real value yourself.",
        u.line
    ))
}

/// An atomic write of `target` that failed, in picoclaw's words.
fn write_failed(err: std::io::Error, target: &crate::access::Resolved) -> ToolError {
    super::words::write_failed(
        &crate::ops::write::WriteFailed::new(err, target),
        "list_dir",
    )
}

fn scrub(mut output: ToolOutput) -> ToolOutput {
    let clean: fn(&str) -> std::borrow::Cow<'_, str> = if output.is_error {
        redact
    } else {
        redact_tokens
    };
    for block in &mut output.content {
        if let Content::Text(text) = block
            && let std::borrow::Cow::Owned(masked) = clean(text)
        {
            *text = masked;
        }
    }
    if let Some(value) = output.structured.as_mut() {
        scrub_value(value, clean);
    }
    output
}

fn scrub_value(value: &mut Value, clean: fn(&str) -> std::borrow::Cow<'_, str>) {
    match value {
        Value::String(text) => {
            if let std::borrow::Cow::Owned(masked) = clean(text) {
                *text = masked;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| scrub_value(v, clean)),
        Value::Object(map) => map.values_mut().for_each(|v| scrub_value(v, clean)),
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

impl Surface for Picoclaw {
    fn tools(&self) -> Vec<ToolDef> {
        self.enabled()
            .into_iter()
            .map(|name| ToolDef {
                name,
                description: self.description(name),
                input_schema: self.schema(name),
                output_schema: None,
                read_only: matches!(name, "read_file" | "list_dir" | "search_files"),
                destructive: matches!(name, "write_file" | "edit_file"),
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
        let tool = TOOLS.into_iter().find(|t| *t == name)?;
        if !self.config.tools.enabled(tool) {
            let active = self.enabled();
            let err = ToolError::new(
                ErrorKind::Denied,
                format!(
                    "{tool} is disabled in this configuration (tools.{tool}.enabled{}); the tools \
                     offered are {}",
                    if tool == "read_file" {
                        String::new()
                    } else {
                        format!(" or PICOCLAW_TOOLS_{}_ENABLED", tool.to_ascii_uppercase())
                    },
                    if active.is_empty() {
                        "none".to_string()
                    } else {
                        active.join(", ")
                    }
                ),
            );
            return Some(ToolOutput::error(&err));
        }
        let call = Call {
            pico: self,
            ws: access,
            ctx,
        };
        let output = scrub(match self.dispatch(&call, tool, args) {
            Ok(output) => output,
            Err(err) => ToolOutput::error(&err),
        });
        let limit = usize::try_from(self.config.max_inline_result_chars).unwrap_or(usize::MAX);
        Some(spill::bound(access, tool, output, limit))
    }

    fn file_argument(&self, name: &str) -> Option<&'static str> {
        matches!(
            name,
            "read_file" | "write_file" | "edit_file" | "append_file"
        )
        .then_some("path")
    }

    fn prompt(&self) -> String {
        let tools = self.enabled();
        let mut out = format!(
            "Filesystem tools (PicoClaw): {}. Relative paths resolve from the workspace.",
            if tools.is_empty() {
                "none".to_string()
            } else {
                tools.join(", ")
            }
        );
        if self.config.restrict_to_workspace {
            out.push_str(" Reads and writes stay inside the workspace");
            if self.config.allow_read_outside_workspace {
                out.push_str(" (read-only tools may also read outside it)");
            }
            out.push('.');
        }
        if self.config.tools.write_file {
            out.push_str(
                " write_file creates new files freely; replacing an existing file with \
                 different content needs overwrite=true.",
            );
        }
        if self.config.tools.edit_file {
            out.push_str(" edit_file takes old_text/new_text or a V4A patch and answers with a unified diff.");
        }
        if self.config.tools.search_files {
            out.push_str(" Use search_files instead of grep, rg, find or ls.");
        }
        out.push_str(
            " Credential-looking values in results are shown as [FILTERED]; a line copied \
             with it unchanged keeps its real value when written back. Results over the inline \
             limit are saved to a file under .picoclaw/tool-results with a preview.\n",
        );
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unmapped_placeholder_is_refused_naming_the_line_and_how_to_keep_it() {
        let alone = Unmapped {
            line: 3,
            text: "API_KEY=[FILTERED] # prod".into(),
            ambiguous: vec![],
        };
        let err = unmapped(&alone, "the content");
        assert_eq!(err.kind, ErrorKind::InvalidArgument);
        assert_eq!(
            err.message,
            "line 3 of the content (`API_KEY=[FILTERED] # prod`) holds [FILTERED], which stands \
             for a hidden credential-looking value of the file that you cannot know; that line \
             equals no line of the file as read_file shows it, so the placeholder would replace a \
             real value. Nothing was written. A line copied unchanged from read_file, [FILTERED] \
             included, keeps its real value: keep such lines exactly as read_file shows them and \
             change only the lines around them (a smaller old_text or patch hunk, or leave the \
             line out of the new text), or write the real value yourself."
        );
        let twice = Unmapped {
            ambiguous: (1..=13).collect(),
            ..alone
        };
        assert!(unmapped(&twice, "the edited file").message.contains(
            "that line equals lines 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, … of the file as \
                 read_file shows them, which hide different values"
        ));
    }
}
