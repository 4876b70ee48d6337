//! Creating or overwriting a whole file, atomically, parents created. An existing text file in
//! another encoding than UTF-8 keeps its encoding, BOM and line endings
//! ([`encoding::rewrite`]); everything else is written as the UTF-8 content given.

use std::io::{self, Read};

use crate::access::{Access, Resolved, WriteOptions};
use crate::error::{Result, ToolError};
use crate::ops::read::DECODE_MAX;
use crate::text::encoding::{self, BINARY_SNIFF_LEN, TextFormat};
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
    /// The overwritten file's format when it was text in another encoding than UTF-8, which
    /// the content was written in. `None` when the content was written as UTF-8.
    pub kept: Option<TextFormat>,
}

/// Writes `content` as the whole of `target`, creating missing parent directories.
pub fn write(access: &Access, target: &Resolved, content: &str) -> Result<WriteReport> {
    if let Some(report) = overwrite_foreign(access, target, content)? {
        return Ok(report);
    }
    let replaced = access
        .write_atomic(target, content.as_bytes(), WriteOptions::default())
        .map_err(|e| write_error(&e, target))?;
    Ok(WriteReport {
        created: replaced.previous_len.is_none(),
        bytes: content.len(),
        lines: lines::count(content.as_bytes()),
        previous_len: replaced.previous_len,
        kept: None,
    })
}

/// The overwrite of an existing text file in another encoding than UTF-8, in that encoding;
/// `None` (nothing done) for any other target.
fn overwrite_foreign(
    access: &Access,
    target: &Resolved,
    content: &str,
) -> Result<Option<WriteReport>> {
    let Ok((mut file, read)) = access.open_regular(target) else {
        return Ok(None);
    };
    if read.len > DECODE_MAX {
        return Ok(None);
    }
    let mut original = Vec::with_capacity(usize::try_from(read.len).unwrap_or(0));
    (&mut file)
        .take(BINARY_SNIFF_LEN as u64)
        .read_to_end(&mut original)
        .map_err(|e| ToolError::from_io(&e, "read", &target.shown))?;
    if encoding::looks_binary(&original) {
        return Ok(None);
    }
    file.read_to_end(&mut original)
        .map_err(|e| ToolError::from_io(&e, "read", &target.shown))?;
    let Some(decoded) = encoding::decode_foreign(&original, None) else {
        return Ok(None);
    };
    let bytes = encoding::rewrite(&original, &decoded, content).map_err(|e| {
        ToolError::new(
            e.kind,
            format!("write_file could not write {}: {}", target.shown, e.message),
        )
    })?;
    access
        .write_atomic(
            target,
            &bytes,
            WriteOptions::default().expecting_read(&original, &read),
        )
        .map_err(|e| write_error(&e, target))?;
    Ok(Some(WriteReport {
        created: false,
        bytes: bytes.len(),
        lines: lines::count(content.as_bytes()),
        previous_len: Some(original.len() as u64),
        kept: Some(decoded.format),
    }))
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
