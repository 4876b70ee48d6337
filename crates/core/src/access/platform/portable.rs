//! The portable paths (see the table in the module above): what macOS and other Unix systems
//! run, and Linux when built with the feature `portable-paths`. No unnamed files, so new
//! content goes into a named temp file created exclusively in the target's folder; no space
//! reserved ahead; ranges copied through a buffer.

use std::ffi::OsStr;
use std::fs::File;
use std::io;

use cap_std::fs::Dir;

/// The name of these paths, for [`super::PATHS`].
pub(super) const NAME: &str = "portable";

/// No unnamed files here: always `None`, so the write takes a named temp file.
pub(in crate::access) fn unnamed_file(_dir: &Dir, _mode: u32) -> io::Result<Option<File>> {
    Ok(None)
}

/// Never called here ([`unnamed_file`] makes none); refuses.
pub(in crate::access) fn link_unnamed(_file: &File, _dir: &Dir, _name: &OsStr) -> io::Result<()> {
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        "this system has no unnamed files to link, so nothing was linked",
    ))
}

/// Nothing reserved: the writes allocate the space.
pub(in crate::access) fn reserve(_file: &File, _len: u64) {}

/// Nothing reserved: `false`.
pub(in crate::access) fn reserve_past_end(_file: &File, _len: u64) -> bool {
    false
}

/// Copies `len` bytes of `from`, from its offset `at` (its own offset unmoved), to `to` at
/// `to`'s offset, through a buffer. Returns how many were copied: fewer when `from` ends first.
pub(in crate::access) fn copy_range(
    from: &File,
    at: u64,
    to: &mut File,
    len: u64,
) -> io::Result<u64> {
    super::copy_through_buffer(from, at, to, len)
}

/// The thread keeps its priority: the system has no priority of one thread that a safe call
/// sets.
pub(in crate::access) fn lower_thread_priority() {}
