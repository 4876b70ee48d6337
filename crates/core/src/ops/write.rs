//! Creating or overwriting a whole file, atomically, parents created.

use std::io;

use crate::access::{Access, Resolved, WriteOptions};
use crate::error::{Result, ToolError};
use crate::text::lines;

/// What a write did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WriteReport {
    /// Whether the file was created (rather than overwritten).
    pub created: bool,
    /// Bytes written.
    pub bytes: usize,
    /// Lines written.
    pub lines: usize,
    /// The overwritten file's length in bytes.
    pub previous_len: Option<u64>,
}

/// Writes `content` as the whole of `target`, creating missing parent directories.
pub fn write(access: &Access, target: &Resolved, content: &str) -> Result<WriteReport> {
    let replaced = access
        .write_atomic(target, content.as_bytes(), WriteOptions::default())
        .map_err(|e| write_error(&e, target))?;
    Ok(WriteReport {
        created: replaced.previous_len.is_none(),
        bytes: content.len(),
        lines: lines::count(content.as_bytes()),
        previous_len: replaced.previous_len,
    })
}

/// Maps an error of an atomic write of `target`.
pub(crate) fn write_error(err: &io::Error, target: &Resolved) -> ToolError {
    match err.kind() {
        io::ErrorKind::IsADirectory => ToolError::invalid(format!(
            "{} is a directory, so it cannot be written as a file; pass a file path inside it",
            target.shown
        )),
        io::ErrorKind::InvalidInput => {
            ToolError::invalid(format!("{} cannot be written: {err}", target.shown))
        }
        io::ErrorKind::NotADirectory | io::ErrorKind::AlreadyExists => ToolError::invalid(format!(
            "a parent of {} is a file, not a directory, so the file cannot be created there; \
             check the path with list_dir",
            target.shown
        )),
        _ => ToolError::from_io(err, "write", &target.shown),
    }
}
