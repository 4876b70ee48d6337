//! The seven tools' descriptions and argument schemas, side by side, in Qwen Code's order.
//! notebook_edit, write_file and edit are the tools Qwen Code marks "Confirmation: Yes": they
//! are the ones not read-only, and destructive, so MCP clients ask their users before them.

use serde_json::{Value, json};

use super::Qwen;
use crate::surface::ToolDef;

/// The tools, in Qwen Code's order.
pub(super) const NAMES: [&str; 7] = [
    "list_directory",
    "read_file",
    "notebook_edit",
    "write_file",
    "glob",
    "grep_search",
    "edit",
];

/// Whether the tool changes files (Qwen Code asks "Confirmation: Yes" for it).
pub(super) fn writes(name: &str) -> bool {
    matches!(name, "notebook_edit" | "write_file" | "edit")
}

pub(super) fn defs(qwen: &Qwen) -> Vec<ToolDef> {
    NAMES
        .iter()
        .map(|&name| ToolDef {
            name,
            description: description(qwen, name),
            input_schema: schema(name),
            output_schema: None,
            read_only: !writes(name),
            destructive: writes(name),
        })
        .collect()
}

fn description(qwen: &Qwen, name: &str) -> String {
    match name {
        "list_directory" => "Lists the names of files and subdirectories directly within a \
             specified directory path. Can optionally ignore entries matching provided glob \
             patterns. Directories are listed first, marked [DIR], then files, each group \
             alphabetically."
            .to_string(),
        "read_file" => {
            let mut media = Vec::new();
            if qwen.config.modalities.image {
                media.push("images (PNG, JPG, GIF, WEBP, BMP)");
            }
            if qwen.config.modalities.pdf {
                media.push("PDF files");
            }
            let media = if media.is_empty() {
                String::from(
                    "This model cannot take images, PDFs, audio or video: reading one returns a \
                     message saying so.",
                )
            } else {
                format!(
                    "Also returns {} as attachments; other media are refused with a message \
                     saying so.",
                    media.join(" and ")
                )
            };
            format!(
                "Reads and returns the content of a specified file. Text files are decoded from \
                 their encoding (UTF-8, UTF-16 with BOM, GBK, Shift_JIS, Latin-1, ...) and shown \
                 with \\n line endings; by default the first {lines} lines are shown, and a \
                 result that shows only part of a file starts with [File content truncated: \
                 showing lines A-B of N total lines...]: use offset (0-based) and limit to read \
                 more. Lines longer than {width} characters are cut. {media} Other binary files \
                 are not shown. Jupyter notebooks (.ipynb) are shown as structured cells with \
                 their cell IDs, for notebook_edit; offset and limit do not apply to them.",
                lines = super::read::DEFAULT_LINES,
                width = super::read::MAX_LINE_CHARS,
            )
        }
        "notebook_edit" => "Edits a Jupyter notebook (.ipynb) file at the cell level: replaces, \
             inserts or deletes one cell. Use it instead of edit or write_file for notebooks.\n\n\
             Operations:\n\
             - replace (default): replaces the source of the cell cell_id (and its type, when \
             cell_type is given). A code cell whose source changes loses its outputs and \
             execution_count.\n\
             - insert: inserts a new cell (cell_type, by default code) after the cell cell_id, \
             or at the beginning when cell_id is omitted.\n\
             - delete: removes the cell cell_id.\n\n\
             Read the notebook with read_file first, in this session, and use the cell IDs it \
             shows (a real cell ID, or cell-N for a cell without one). After an insert or \
             delete that shifts cell-N IDs, read the notebook again. The notebook's formatting, \
             line endings, encoding and BOM are kept; only the edited cell's text changes."
            .to_string(),
        "write_file" => "Writes content to a specified file in the local filesystem, replacing \
             it if it exists and creating it (and its parent directories) if not. An existing \
             file keeps its encoding, BOM and line endings; a new file is UTF-8 (see \
             defaultFileEncoding). Does not write Jupyter notebooks (.ipynb): use notebook_edit \
             for their cells."
            .to_string(),
        "glob" => format!(
            "Efficiently finds files matching specific glob patterns (e.g., `src/**/*.ts`, \
             `**/*.md`), returning absolute paths sorted by modification time (newest first). \
             Letters match regardless of case. Ideal for quickly locating files based on their \
             name or path structure. Respects .gitignore, .qwenignore and configured ignore \
             files. Shows at most {} files.",
            super::search::MAX_GLOB_FILES
        ),
        "grep_search" => "Searches for a regular expression pattern (Rust/ripgrep syntax, \
             case-insensitive) within the content of files in a specified directory (or one \
             file). Can filter files by a glob pattern. Returns the lines containing matches, \
             as path:line:text, with their file paths and line numbers. Respects .gitignore, \
             .qwenignore and configured ignore files."
            .to_string(),
        "edit" => "Replaces text within a file. By default, replaces a single occurrence: \
             old_string must identify exactly one place, so include enough surrounding context \
             (at least 3 lines before and after), matching whitespace and indentation. Set \
             replace_all to true to replace every occurrence. Both strings are literal text: \
             never escape them. If old_string is not found exactly, the edit is retried \
             ignoring line endings, then trailing whitespace, then indentation (new_string is \
             re-indented to the file's), then Unicode punctuation (curly quotes, dashes, \
             non-breaking spaces), and is applied only when one place matches; the result says \
             which correction applied. An empty old_string creates a new file with new_string \
             as content. The file keeps its encoding, BOM and line endings. Does not edit \
             Jupyter notebooks (.ipynb): use notebook_edit."
            .to_string(),
        _ => String::new(),
    }
}

fn schema(name: &str) -> Value {
    match name {
        "list_directory" => json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "The absolute path to the directory to list (a path relative to the workspace root also works)."},
                "ignore": {"type": "array", "items": {"type": "string"}, "description": "A list of glob patterns to exclude from the listing, matched against entry names (e.g. [\"*.log\", \".git\"])."},
                "respect_git_ignore": {"type": "boolean", "description": "Whether to respect .gitignore patterns when listing files. Defaults to true."}
            },
            "required": ["path"]
        }),
        "read_file" => json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "The absolute path to the file to read (a path relative to the workspace root also works)."},
                "offset": {"type": "number", "description": "For text files, the 0-based line number to start reading from. Use with limit to page through large files."},
                "limit": {"type": "number", "description": "For text files, the maximum number of lines to read. If omitted, reads up to 2000 lines."}
            },
            "required": ["path"]
        }),
        "notebook_edit" => json!({
            "type": "object",
            "properties": {
                "notebook_path": {"type": "string", "description": "The absolute path to the .ipynb file."},
                "cell_id": {"type": "string", "description": "The target cell ID shown by read_file. Required for replace and delete. For insert, the new cell is inserted after this cell; if omitted, the new cell is inserted at the beginning."},
                "new_source": {"type": "string", "description": "The new cell source for replace and insert. Not used by delete."},
                "cell_type": {"type": "string", "enum": ["code", "markdown"], "description": "The cell type for inserted cells (default code), or the target type when replacing a cell."},
                "edit_mode": {"type": "string", "enum": ["replace", "insert", "delete"], "description": "The edit operation. Defaults to replace."}
            },
            "required": ["notebook_path"]
        }),
        "write_file" => json!({
            "type": "object",
            "properties": {
                "file_path": {"type": "string", "description": "The absolute path to the file to write to."},
                "content": {"type": "string", "description": "The content to write into the file."}
            },
            "required": ["file_path", "content"]
        }),
        "glob" => json!({
            "type": "object",
            "properties": {
                "pattern": {"type": "string", "description": "The glob pattern to match against (e.g., \"*.py\", \"src/**/*.js\")."},
                "path": {"type": "string", "description": "The directory to search in. If not specified, the workspace root (current working directory) is used."}
            },
            "required": ["pattern"]
        }),
        "grep_search" => json!({
            "type": "object",
            "properties": {
                "pattern": {"type": "string", "description": "The regular expression pattern to search for in file contents (e.g., \"function\\\\s+myFunction\", \"log.*Error\")."},
                "path": {"type": "string", "description": "File or directory to search in. Defaults to the workspace root (current working directory)."},
                "glob": {"type": "string", "description": "Glob pattern to filter files (e.g. \"*.js\", \"src/**/*.{ts,tsx}\")."},
                "limit": {"type": "integer", "minimum": 1, "description": "Limit output to the first N matching lines. Must be a positive integer. Optional: shows all matches if not specified (within the output limits)."}
            },
            "required": ["pattern"]
        }),
        "edit" => json!({
            "type": "object",
            "properties": {
                "file_path": {"type": "string", "description": "The absolute path to the file to modify."},
                "old_string": {"type": "string", "description": "The exact literal text to replace. It must uniquely identify the single instance to change: include sufficient context, matching whitespace and indentation precisely. If empty, a new file is created at file_path with new_string as content."},
                "new_string": {"type": "string", "description": "The exact literal text to replace old_string with."},
                "replace_all": {"type": "boolean", "description": "Replace all occurrences of old_string. Defaults to false."}
            },
            "required": ["file_path", "old_string", "new_string"]
        }),
        _ => json!({"type": "object"}),
    }
}

/// The system-prompt fragment.
pub(super) fn prompt(qwen: &Qwen) -> String {
    let mut out = String::from(
        "# File system tools\n\n\
         Paths should be absolute; a relative path is resolved against the workspace root.\n\n\
         - list_directory lists one directory; glob finds files by name pattern, newest first; \
         grep_search finds lines by regular expression (case-insensitive).\n\
         - read_file reads text files (first 2000 lines by default; page with 0-based offset \
         and limit) and shows Jupyter notebooks as cells with their IDs.\n\
         - edit replaces exact text (old_string must match one place unless replace_all is \
         true; an empty old_string creates a file); write_file writes a whole file. Both keep \
         an existing file's encoding, BOM and line endings.\n\
         - notebook_edit replaces, inserts or deletes notebook cells by the IDs read_file \
         shows; read the notebook first. edit and write_file do not touch .ipynb files.\n",
    );
    if qwen.config.respect_git_ignore || qwen.config.respect_qwen_ignore {
        out.push_str(
            "- glob and grep_search skip files excluded by .gitignore, .qwenignore and the \
             configured ignore files.\n",
        );
    }
    out
}
