//! The native tools' descriptions, argument schemas and prompt.

use serde_json::{Value, json};

/// Whether `tool` only reads.
pub(super) fn read_only(tool: &str) -> bool {
    matches!(
        tool,
        "read_file" | "search" | "glob" | "tree" | "list_dir" | "info"
    )
}

pub(super) fn description(tool: &str) -> &'static str {
    match tool {
        "read_file" => {
            "Read a text file: numbered lines (offset/limit window, 1-based), its version token \
             (pass it as expected_version to edits; a part of a file also gets a window token, \
             which needs only those lines unchanged), and the exact call that continues a cut \
             window. A large file read whole starts with its outline (definitions and headings \
             with their lines); outline: true returns only the outline. Images are attached."
        }
        "edit" => {
            "Replace text in one file. edits: [{old_text, new_text, line_hint?, replace_all?}], \
             applied in order, all or none. Each old_text must match once: exact bytes first, \
             then line endings, trailing whitespace, indentation (new_text re-indented), Unicode \
             punctuation; the level used is reported. Ambiguity lists every candidate line; \
             line_hint picks the candidate nearest that line. An edit whose new_text is already \
             there and old_text gone succeeds as already applied. Returns the new version."
        }
        "apply_patch" => {
            "Apply a patch to several files at once, all or nothing: a V4A envelope (*** Begin \
             Patch, Add/Delete/Update File, Move to) or a unified diff of one or more files. \
             Everything is checked before anything is written; dry_run: true shows the diffs \
             and what would happen without writing. Hunks are placed as edit places \
             old_text (exact, then ignoring trailing whitespace, indentation (re-indenting \
             added lines), Unicode punctuation; unique at the first level that finds them). \
             Reports each file and hunk, with the level when not exact."
        }
        "write_file" => {
            "Write a whole file. mode: create (fails if it exists), overwrite (fails if it does \
             not), append. Parent folders are created. expected_version guards overwrite and \
             append. Returns the new version."
        }
        "search" => {
            "Search file contents (ripgrep's engine; the ignore rule applies): pattern is a \
             regex unless literal: true; case_insensitive; glob filters files (e.g. \
             \"*.rs\", \"!tests/**\"); context lines around each match, overlapping blocks \
             merged; mode lines (default), files, or count. Results are paginated: a cut \
             answer ends with the cursor that continues it."
        }
        "glob" => {
            "Find files by glob pattern (e.g. \"**/*.rs\", \"src/**/test_*.py\"), under the \
             ignore rule, in path order, paginated with a cursor."
        }
        "tree" => {
            "The folder tree under path (default the root), depth levels deep (default 2, at \
             most 10), under the ignore rule; folders at the depth bound show how many entries \
             they hold."
        }
        "list_dir" => {
            "One folder's entries (every entry, ignore files do not apply): folders end with \
             /, links show their target. Paginated with a cursor."
        }
        "move" => {
            "Move or rename a file or folder; parent folders of the destination are created. An \
             existing destination is refused unless overwrite: true."
        }
        "delete" => {
            "Delete a file, or a folder with recursive: true. Undoable: the content is kept \
             for undo."
        }
        "undo" => {
            "Undo the last steps (default 1) mutations of this session (edits, patches, writes, \
             moves, deletes), restoring the exact earlier bytes and modes. Refused when a file \
             changed since."
        }
        "info" => {
            "A path's facts: kind, size, lines, modification time, mode, encoding, version and \
             language."
        }
        _ => "",
    }
}

fn path(what: &str) -> Value {
    json!({"type": "string", "description": what})
}

pub(super) fn schema(tool: &str) -> Value {
    let version = json!({
        "type": "string",
        "description": "The version token of the file this change was made from (v…, from read_file or a previous change); a mismatch is refused unless the edited region is unchanged. A window token (w…, from a read of part of a file) only needs those lines unchanged."
    });
    match tool {
        "read_file" => json!({
            "type": "object",
            "properties": {
                "path": path("The file, relative to the root or absolute."),
                "offset": {"type": "integer", "minimum": 1, "description": "First line, 1-based (default 1)."},
                "limit": {"type": "integer", "minimum": 1, "description": "Lines to return (default: the configured line cap)."},
                "line_numbers": {"type": "boolean", "description": "Prefix each line with its number and a tab (default true)."},
                "outline": {"type": "boolean", "description": "Return only the file's outline."}
            },
            "required": ["path"],
            "additionalProperties": false
        }),
        "edit" => json!({
            "type": "object",
            "properties": {
                "path": path("The file to edit."),
                "edits": {
                    "type": "array",
                    "minItems": 1,
                    "items": {
                        "type": "object",
                        "properties": {
                            "old_text": {"type": "string", "description": "The text to replace, quoted from the file."},
                            "new_text": {"type": "string", "description": "Its replacement."},
                            "line_hint": {"type": "integer", "minimum": 1, "description": "Picks the match nearest this line when old_text occurs more than once."},
                            "replace_all": {"type": "boolean", "description": "Replace every occurrence (exact level only)."}
                        },
                        "required": ["old_text", "new_text"],
                        "additionalProperties": false
                    }
                },
                "expected_version": version,
                "dry_run": {"type": "boolean", "description": "Show the diff without writing."}
            },
            "required": ["path", "edits"],
            "additionalProperties": false
        }),
        "apply_patch" => json!({
            "type": "object",
            "properties": {
                "patch": {"type": "string", "description": "A V4A envelope or a unified diff (one or more files)."},
                "dry_run": {"type": "boolean", "description": "Check and show what would happen, write nothing."}
            },
            "required": ["patch"],
            "additionalProperties": false
        }),
        "write_file" => json!({
            "type": "object",
            "properties": {
                "path": path("The file to write."),
                "content": {"type": "string", "description": "The text, written byte for byte."},
                "mode": {"type": "string", "enum": ["create", "overwrite", "append"], "description": "create (default): the file must not exist; overwrite: it must; append: added at its end (created if missing)."},
                "expected_version": version
            },
            "required": ["path", "content"],
            "additionalProperties": false
        }),
        "search" => json!({
            "type": "object",
            "properties": {
                "pattern": {"type": "string", "description": "A regular expression (Rust syntax), or text with literal: true."},
                "path": path("Folder or file to search (default the root)."),
                "literal": {"type": "boolean"},
                "case_insensitive": {"type": "boolean"},
                "glob": {"type": "array", "items": {"type": "string"}, "description": "Globs the file paths must match; a leading ! excludes."},
                "context": {"type": "integer", "minimum": 0, "maximum": 20, "description": "Lines of context before and after each match."},
                "mode": {"type": "string", "enum": ["lines", "files", "count"]},
                "limit": {"type": "integer", "minimum": 1, "maximum": 1000, "description": "Matches (lines mode) or files per page (default 100)."},
                "cursor": {"type": "string", "description": "The cursor a cut answer ended with."}
            },
            "required": ["pattern"],
            "additionalProperties": false
        }),
        "glob" => json!({
            "type": "object",
            "properties": {
                "pattern": {"type": "string"},
                "path": path("The folder to search from (default the root)."),
                "limit": {"type": "integer", "minimum": 1, "maximum": 5000, "description": "Paths per page (default 500)."},
                "cursor": {"type": "string"}
            },
            "required": ["pattern"],
            "additionalProperties": false
        }),
        "tree" => json!({
            "type": "object",
            "properties": {
                "path": path("The folder (default the root)."),
                "depth": {"type": "integer", "minimum": 1, "maximum": 10}
            },
            "additionalProperties": false
        }),
        "list_dir" => json!({
            "type": "object",
            "properties": {
                "path": path("The folder (default the root)."),
                "cursor": {"type": "string"}
            },
            "additionalProperties": false
        }),
        "move" => json!({
            "type": "object",
            "properties": {
                "from": path("What to move."),
                "to": path("Where to."),
                "overwrite": {"type": "boolean"}
            },
            "required": ["from", "to"],
            "additionalProperties": false
        }),
        "delete" => json!({
            "type": "object",
            "properties": {
                "path": path("What to delete."),
                "recursive": {"type": "boolean"}
            },
            "required": ["path"],
            "additionalProperties": false
        }),
        "undo" => json!({
            "type": "object",
            "properties": {
                "steps": {"type": "integer", "minimum": 1, "description": "How many mutations to undo, newest first (default 1)."}
            },
            "additionalProperties": false
        }),
        "info" => json!({
            "type": "object",
            "properties": {"path": path("The path.")},
            "required": ["path"],
            "additionalProperties": false
        }),
        _ => json!({"type": "object"}),
    }
}

pub(super) fn prompt() -> String {
    "You work on files through fsgate's native tools. Read before you edit: read_file gives \
     numbered lines and a version token; pass it as expected_version to edit, write_file and \
     apply_patch so a file changed meanwhile is never overwritten. Prefer edit for small \
     changes (several edits in one call), apply_patch for changes across files (all or \
     nothing; dry_run first when unsure), write_file for new files. search and glob page with a \
     cursor; tree and list_dir orient. Every mutation can be undone with undo."
        .to_string()
}
