//! Words for the engine's typed errors that several profiles share: the same text, with the
//! profile's own tool names passed in.

use std::io;

use crate::error::ToolError;
use crate::ops::write::WriteFailed;

/// An atomic write of a file that failed; `list_tool` is the profile's tool that lists a folder.
pub(crate) fn write_failed(failed: &WriteFailed, list_tool: &str) -> ToolError {
    let WriteFailed { path, error } = failed;
    match error.kind() {
        io::ErrorKind::IsADirectory => ToolError::invalid(format!(
            "{path} is a directory, so it cannot be written as a file; pass a file path inside it"
        )),
        io::ErrorKind::InvalidInput => {
            ToolError::invalid(format!("{path} cannot be written: {error}"))
        }
        io::ErrorKind::NotADirectory | io::ErrorKind::AlreadyExists => ToolError::invalid(format!(
            "a parent of {path} is a file, not a directory, so the file cannot be created there; \
             check the path with {list_tool}"
        )),
        _ => ToolError::from_io(error, "write", path),
    }
}
