//! gg's words for the engine's typed errors: the same facts every profile gets, said with gg's
//! tool and argument names (read_file, write_file, edit_file, list_dir, tree, search;
//! old_string, new_string, offset, limit).

use crate::error::{ErrorKind, NextWords, ToolError};
use crate::ops::edit::{Absent, EditError, Fffd};
use crate::ops::list::FolderError;
use crate::ops::read::ReadError;
use crate::ops::write::WriteError;
use crate::surface::words::write_failed;

/// gg's words for the next step an engine error recommends.
pub(super) const NEXT: NextWords = NextWords {
    check_path: "check the path with list_dir",
    see_entries: "use list_dir or tree to see its entries",
};

/// The code arm's words for the same next steps: its functions, not the tool arm's tools.
pub(super) const CODE_NEXT: NextWords = NextWords {
    check_path: "check the path with gg.files.listDir",
    see_entries: "use gg.files.listDir or gg.files.tree to see its entries",
};

/// The most occurrence line numbers a not-unique error lists.
const MAX_LINES_LISTED: usize = 20;

/// A folder `tool` (list_dir or tree) could not walk.
pub(super) fn folder(err: FolderError, tool: &str) -> ToolError {
    match err {
        FolderError::NotAFolder { path } => ToolError::invalid(format!(
            "{path} is a file, not a directory, so {tool} cannot walk it; read it with read_file"
        )),
        FolderError::Missing { path } => ToolError::not_found(format!(
            "{path} does not exist; list its parent directory with list_dir to see what is there"
        )),
        FolderError::Other(e) => e,
    }
}

/// A write_file that was refused or failed.
pub(super) fn write(err: WriteError) -> ToolError {
    match err {
        WriteError::Stale(stale) => {
            let text = if stale.is_deleted() {
                stale.explain(
                    "write_file did not create it again",
                    "If it should exist again, call write_file once more: the next write_file \
                     creates it.",
                )
            } else {
                stale.explain(
                    "write_file did not replace it",
                    "Read it again with read_file, then make your change with edit_file, or \
                     write_file the whole file from what it holds now.",
                )
            };
            ToolError::new(ErrorKind::Conflict, text)
        }
        WriteError::Unencodable { path, error } => ToolError::new(
            error.kind,
            format!(
                "write_file could not write {path}: {}",
                error.clone().worded(&NEXT).message
            ),
        ),
        WriteError::Failed(failed) => write_failed(&failed, "list_dir"),
        WriteError::Other(e) => e,
    }
}

/// An edit_file that was refused or failed.
pub(super) fn edit(err: EditError) -> ToolError {
    match err {
        EditError::EmptyOld { path } => ToolError::invalid(format!(
            "old_string is empty, so it names no place in {path}; quote the exact text to replace \
             (to write a whole file, use write_file)"
        )),
        EditError::Unchanged { path } => ToolError::invalid(format!(
            "old_string and new_string are identical, so the edit would change nothing in \
             {path}; pass the new text as new_string"
        )),
        EditError::Missing { path } => ToolError::not_found(format!(
            "{path} does not exist, so there is nothing to edit; check the path with list_dir, \
             or create the file with write_file"
        )),
        EditError::Directory { path } => ToolError::invalid(format!(
            "{path} is a directory, not a file; edit_file edits one file"
        )),
        EditError::NotUnique { path, count, lines } => {
            let more = lines.len().saturating_sub(MAX_LINES_LISTED);
            let more = if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            };
            let listed: Vec<String> = lines
                .iter()
                .take(MAX_LINES_LISTED)
                .map(ToString::to_string)
                .collect();
            let at = if lines.len() == 1 { "line" } else { "lines" };
            ToolError::new(
                ErrorKind::NotUnique,
                format!(
                    "old_string occurs {count} times in {path}, at {at} {}{more}; add \
                     surrounding lines to old_string so it matches exactly one place, then call \
                     edit_file again",
                    listed.join(", "),
                ),
            )
        }
        EditError::NoMatch { path, lines, why } => ToolError::new(
            ErrorKind::NoMatch,
            format!(
                "old_string was not found in {path} ({lines} lines); {} Re-read the file with \
                 read_file and copy the text to replace exactly.",
                absent(&why)
            ),
        ),
        EditError::SplitsCharacter { path } => ToolError::invalid(format!(
            "internal error: old_string was found in {path} at a place that splits a character; \
             nothing was written. Quote whole lines as read_file shows them"
        )),
        EditError::Unencodable { path, error } => ToolError::new(
            error.kind,
            format!(
                "edit_file could not write {path}: {}",
                error.clone().worded(&NEXT).message
            ),
        ),
        EditError::Failed(failed) => write_failed(&failed, "list_dir"),
        EditError::Other(e) => e,
    }
}

/// Why old_string was not found: a hint when its first line does occur, or what stands where
/// it holds U+FFFD.
fn absent(why: &Absent) -> String {
    let fffd = "U+FFFD (\u{FFFD})";
    match why {
        Absent::Differs {
            near,
            first_line_only,
            decoded,
        } => {
            let at = near
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", ");
            let hint = match (near.is_empty(), first_line_only) {
                (true, _) => String::new(),
                (false, true) => format!(
                    " Its first line does occur (at line {at}), so the lines after it differ."
                ),
                (false, false) => format!(
                    " The text occurs (at line {at}) with different surrounding whitespace."
                ),
            };
            let decoded_note = match decoded {
                Some(encoding) => format!(
                    " The file is {encoding} text; the quote is matched against its decoded \
                     text, as read_file and search show it."
                ),
                None => String::new(),
            };
            format!(
                "the file may have changed since you read it, or the quote differs in \
                 whitespace or indentation.{hint}{decoded_note}"
            )
        }
        Absent::ReplacementChar(Fffd::DecodedAt {
            encoding,
            line,
            chars,
        }) => format!(
            "it holds {fffd} where the file has {} (line {line}): the file is {encoding} text, \
             which read_file shows decoded, so quote the characters it shows rather than U+FFFD.",
            chars.join(", "),
        ),
        Absent::ReplacementChar(Fffd::Decoded { encoding }) => format!(
            "it holds {fffd}, which stands for bytes a reader could not decode; the file is \
             {encoding} text, which read_file shows decoded: quote the characters it shows."
        ),
        Absent::ReplacementChar(Fffd::InvalidUtf8) => format!(
            "it holds {fffd}, which read_file shows in place of bytes that are not valid UTF-8; \
             those bytes cannot be quoted. Quote only the text beside them (a shorter \
             old_string): the edit keeps them."
        ),
        Absent::ReplacementChar(Fffd::ValidUtf8) => format!(
            "it holds {fffd}, which stands for bytes a reader could not decode, but this file is \
             valid UTF-8 and has none; it may have been read in another encoding before."
        ),
    }
}

/// A read_file that was refused or failed.
pub(super) fn read(err: ReadError) -> ToolError {
    match err {
        ReadError::OffsetZero { path } => ToolError::invalid(format!(
            "offset 0 is not a line: offset is 1-based; pass offset: 1 to start at the first line \
             of {path}"
        )),
        ReadError::LimitZero { path } => ToolError::invalid(format!(
            "limit 0 asks for no lines of {path}; pass a limit of 1 or more, or leave it out"
        )),
        ReadError::PastEnd {
            path,
            offset,
            total,
        } => {
            let length = match total {
                0 => "is empty (0 lines)".to_string(),
                1 => "has 1 line".to_string(),
                n => format!("has {n} lines"),
            };
            let next = match total {
                0 => "there is nothing to read".to_string(),
                n => format!("pass an offset from 1 to {n}"),
            };
            ToolError::invalid(format!(
                "offset {offset} is past the end of {path}, which {length}; {next}"
            ))
        }
        ReadError::Missing { path } => ToolError::not_found(format!(
            "{path} does not exist; check the path with list_dir, or create it with write_file"
        )),
        ReadError::Directory { path } => ToolError::invalid(format!(
            "{path} is a directory, not a file; list it with list_dir or tree"
        )),
        ReadError::TooLargeToDecode {
            path,
            encoding,
            size,
            max,
        } => ToolError::new(
            ErrorKind::TooLarge,
            format!(
                "{path} is {encoding} text of {size} bytes; read_file decodes such text up to {} \
                 MiB, so it is not shown. search finds lines in it, or convert it to UTF-8 with \
                 another tool",
                max >> 20
            ),
        ),
        ReadError::Other(e) => e,
    }
}
