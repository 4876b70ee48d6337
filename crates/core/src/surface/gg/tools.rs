//! The gg tools' descriptions and argument schemas, side by side.

use serde_json::{Value, json};

use super::Gg;
use crate::config::gg::ReadMode;

pub(super) fn description(gg: &Gg, tool: &str) -> String {
    match tool {
        "read_file" => {
            let window = match gg.read_mode {
                ReadMode::DefaultCap => format!(
                    "A call without limit returns at most {} lines from offset; pass a larger \
                     limit to read past that.",
                    gg.line_cap
                ),
                ReadMode::Unlimited => {
                    "A call without limit returns the file from offset to its end.".to_string()
                }
            };
            let images = if gg.sees_images() {
                "PNG, JPEG, GIF and WebP files (recognised by content) come back as images, up \
                 to 8 MiB; a damaged one is described instead."
            } else {
                "PNG, JPEG, GIF and WebP files (recognised by content) are described (format, \
                 size, dimensions), not shown: this model cannot see images."
            };
            format!(
                "Read a file. Paths are relative to the working directory, or absolute. UTF-8 \
                 text comes back exactly as stored; text in another encoding (Latin-1, \
                 Shift_JIS, UTF-16, ...) comes back decoded, with a note naming the encoding, \
                 and edits write it back in that encoding. A file with a NUL byte in its first \
                 8 KiB is described as binary, not shown. {window} A result that shows only part of the \
                 file ends with a line like [showing lines 251-500 of 1200; continue with \
                 offset: 501]. One call returns at most 256 KiB of text. {images}"
            )
        }
        "write_file" => "Create a file, or overwrite a whole file, with content. Missing parent \
             directories are created. The write is atomic: the file is the old one or the new \
             one, never a mix. To change part of a file, use edit_file."
            .to_string(),
        "edit_file" => "Replace one exact occurrence of old_string with new_string in a file. \
             old_string must match the file's text exactly (whitespace and indentation included) \
             and occur exactly once: if it is not found, re-read the file; if it occurs several \
             times, add surrounding lines until it is unique. Everything else in the file, line \
             endings included, is kept byte for byte."
            .to_string(),
        "list_dir" => "List a directory's entries, one a line, in path order; directories end \
             with /. path defaults to the working directory."
            .to_string(),
        "tree" => "Show the tree beneath a directory (default: the working directory), to \
             depth levels (default 2, at most 10; 1 shows only its own entries). Each level is \
             indented two spaces; directories end with /; a directory at the depth bound says \
             how many entries it holds that are not shown. What .gitignore, .ignore and \
             .git/info/exclude exclude is left out, as is .git. At most 1,000 lines and 16 KiB."
            .to_string(),
        "search" => "Search file contents for a regular expression (Rust syntax: foo|bar, \
             fn\\s+update, (?i)todo), tried against each line on its own. Returns matching lines \
             as path:line:text, in path order then line order. path roots the search at a \
             directory or one file (default: the working directory). limit is how many matches \
             come back (default 50, at most 200); a list exactly limit long may have been cut, \
             so narrow the query or path. Lines over 200 characters are cut. Files that \
             .gitignore, .ignore or .git/info/exclude exclude, .git, and files that are not text \
             (holding a NUL byte) are not searched. Text in another encoding than UTF-8 is \
             searched as read_file shows it, decoded."
            .to_string(),
        _ => String::new(),
    }
}

pub(super) fn schema(gg: &Gg, tool: &str) -> Value {
    match tool {
        "read_file" => {
            let limit = match gg.read_mode {
                ReadMode::DefaultCap => format!(
                    "How many lines to return. Left out, a call returns at most {} lines (the \
                     cap) from offset; a larger value reads past the cap.",
                    gg.line_cap
                ),
                ReadMode::Unlimited => "How many lines to return. Left out, a call returns the \
                     rest of the file, from offset to its end."
                    .to_string(),
            };
            object(
                json!({
                    "path": {"type": "string", "description": "The file to read: relative to the working directory, or absolute."},
                    "offset": {"type": "integer", "minimum": 1, "description": "The 1-based line to start from. Defaults to 1."},
                    "limit": {"type": "integer", "minimum": 1, "description": limit},
                }),
                &["path"],
            )
        }
        "write_file" => object(
            json!({
                "path": {"type": "string", "description": "The file to write: relative to the working directory, or absolute."},
                "content": {"type": "string", "description": "The file's whole new content."},
            }),
            &["path", "content"],
        ),
        "edit_file" => object(
            json!({
                "path": {"type": "string", "description": "The file to edit: relative to the working directory, or absolute."},
                "old_string": {"type": "string", "description": "The exact text to replace; it must occur exactly once in the file."},
                "new_string": {"type": "string", "description": "The text to put in its place."},
            }),
            &["path", "old_string", "new_string"],
        ),
        "list_dir" => object(
            json!({
                "path": {"type": "string", "description": "The directory to list. Defaults to the working directory."},
            }),
            &[],
        ),
        "tree" => object(
            json!({
                "path": {"type": "string", "description": "The directory at the root of the tree. Defaults to the working directory."},
                "depth": {"type": "integer", "minimum": 1, "description": "Levels below the root to show: 1 is the root's own entries, 2 adds their contents. Defaults to 2; above 10 is answered at 10."},
            }),
            &[],
        ),
        "search" => object(
            json!({
                "query": {"type": "string", "description": "A Rust regular expression, tried against each line on its own."},
                "path": {"type": "string", "description": "A directory or file to search. Defaults to the working directory."},
                "limit": {"type": "integer", "minimum": 1, "description": "How many matches to return. Defaults to 50; above 200 is answered with 200."},
            }),
            &["query"],
        ),
        _ => json!({"type": "object"}),
    }
}

fn object(properties: Value, required: &[&str]) -> Value {
    json!({
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false,
    })
}
