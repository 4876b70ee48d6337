//! Creating or overwriting a whole file, atomically, parents created. An existing text file in
//! another encoding than UTF-8 keeps its encoding, BOM and line endings
//! ([`encoding::rewrite`]); everything else is written as the UTF-8 content given.
//!
//! Under a [`Session`], the stale-write rule applies: a file the session read or wrote is
//! replaced only while it still holds what the session last saw ([`Session::check`]);
//! otherwise the write is refused as a conflict naming what changed, and nothing is written.

use std::borrow::Cow;
use std::io::{self, Read};

use crate::access::{Access, Meta, Resolved, WriteOptions};
use crate::error::ToolError;
use crate::ops::read::DECODE_MAX;
use crate::session::{Base, Current, FileRef, Session, Stale};
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

/// Why a write was refused or failed; nothing was written. The surface words it in its
/// profile's terms.
#[derive(Debug)]
#[non_exhaustive]
pub enum WriteError {
    /// Under a session: the file changed (or went) since the session saw it.
    Stale(Stale),
    /// The file is text in another encoding, which cannot hold some of the content's
    /// characters; `error` names them.
    Unencodable {
        /// The path as the model gave it.
        path: String,
        /// What [`encoding::rewrite`] refused.
        error: ToolError,
    },
    /// The atomic write itself failed.
    Failed(WriteFailed),
    /// Any other failure, worded in the engine's neutral terms.
    Other(ToolError),
}

impl From<ToolError> for WriteError {
    fn from(e: ToolError) -> Self {
        WriteError::Other(e)
    }
}

impl From<WriteFailed> for WriteError {
    fn from(e: WriteFailed) -> Self {
        WriteError::Failed(e)
    }
}

/// An atomic write of a file that failed: the operating system's error and the path, for the
/// surface to word ([`crate::surface`] has the words the profiles share).
#[derive(Debug)]
pub struct WriteFailed {
    /// The path as the model gave it.
    pub path: String,
    /// What the operating system said.
    pub error: io::Error,
}

impl WriteFailed {
    /// The failed write of `target`.
    pub fn new(error: io::Error, target: &Resolved) -> Self {
        WriteFailed {
            path: target.shown.clone(),
            error,
        }
    }
}

/// Writes `content` as the whole of `target`, creating missing parent directories. With a
/// `session`, a file it read or wrote is replaced only while it holds what the session last
/// saw ([`WriteError::Stale`] otherwise), and the session then remembers the new content.
pub fn write(
    access: &Access,
    target: &Resolved,
    content: &str,
    session: Option<&Session>,
) -> Result<WriteReport, WriteError> {
    let Some(session) = session else {
        return write_checked(access, target, content, None).map(|(report, _)| report);
    };
    let file = FileRef::new(access, target);
    let current = session.check(&file).map_err(WriteError::Stale)?;
    let (report, written) = write_checked(access, target, content, current.as_ref())?;
    session.wrote(&file, Base::Checked, Some(&written));
    Ok(report)
}

/// [`write`] once the session's check is done: `current` is the file as checked, and the write
/// lands only while the file still holds it. Returns the bytes written too.
fn write_checked<'c>(
    access: &Access,
    target: &Resolved,
    content: &'c str,
    current: Option<&Current>,
) -> Result<(WriteReport, Cow<'c, [u8]>), WriteError> {
    if let Some((report, bytes)) = overwrite_foreign(access, target, content, current)? {
        return Ok((report, Cow::Owned(bytes)));
    }
    let options = match current {
        Some(current) => current.guard(WriteOptions::default()),
        None => WriteOptions::default(),
    };
    let replaced = access
        .write_atomic(target, content.as_bytes(), options)
        .map_err(|e| WriteFailed::new(e, target))?;
    let report = WriteReport {
        created: replaced.previous_len.is_none(),
        bytes: content.len(),
        lines: lines::count(content.as_bytes()),
        previous_len: replaced.previous_len,
        kept: None,
    };
    Ok((report, Cow::Borrowed(content.as_bytes())))
}

/// The overwrite of an existing text file in another encoding than UTF-8, in that encoding;
/// `None` (nothing done) for any other target. `current` is the file as a session's check
/// found it: its bytes are used instead of reading it again, and the write lands only while the
/// file is still what was checked.
fn overwrite_foreign(
    access: &Access,
    target: &Resolved,
    content: &str,
    current: Option<&Current>,
) -> Result<Option<(WriteReport, Vec<u8>)>, WriteError> {
    let (original, read): (Cow<'_, [u8]>, Option<Meta>) = match current.and_then(Current::bytes) {
        Some(bytes) => {
            if bytes.len() as u64 > DECODE_MAX || encoding::looks_binary(head(bytes)) {
                return Ok(None);
            }
            (Cow::Borrowed(bytes), None)
        }
        None => {
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
            (Cow::Owned(original), Some(read))
        }
    };
    let original = original.as_ref();
    let Some(decoded) = encoding::decode_foreign(original, None) else {
        return Ok(None);
    };
    let bytes = encoding::rewrite(original, &decoded, content).map_err(|error| {
        WriteError::Unencodable {
            path: target.shown.clone(),
            error,
        }
    })?;
    let options = match (current, &read) {
        (Some(current), _) => current.guard(WriteOptions::default()),
        (None, Some(read)) => WriteOptions::default().expecting_read(original, read),
        (None, None) => WriteOptions::default().expecting(original),
    };
    access
        .write_atomic(target, &bytes, options)
        .map_err(|e| WriteFailed::new(e, target))?;
    let report = WriteReport {
        created: false,
        bytes: bytes.len(),
        lines: lines::count(content.as_bytes()),
        previous_len: Some(original.len() as u64),
        kept: Some(decoded.format),
    };
    Ok(Some((report, bytes)))
}

fn head(bytes: &[u8]) -> &[u8] {
    &bytes[..bytes.len().min(BINARY_SNIFF_LEN)]
}
