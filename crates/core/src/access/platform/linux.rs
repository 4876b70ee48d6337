//! Linux's speed paths (see the table in the module above): unnamed files, space reserved
//! ahead, ranges copied in the kernel, and a background thread's own priority.

use std::ffi::OsStr;
use std::fs::File;
use std::io;

use cap_std::fs::Dir;
use rustix::fs::{AtFlags, FallocateFlags, Mode, OFlags};
use rustix::io::Errno;

/// The name of these paths, for [`super::PATHS`].
pub(super) const NAME: &str = "linux";

/// A new file without a name in the folder `dir` (`O_TMPFILE`), open for writing, created with
/// `mode` less the umask; `None` when the filesystem (or kernel) has no unnamed files.
pub(in crate::access) fn unnamed_file(dir: &Dir, mode: u32) -> io::Result<Option<File>> {
    let flags = OFlags::TMPFILE | OFlags::WRONLY | OFlags::CLOEXEC;
    match rustix::fs::openat(dir, ".", flags, Mode::from_raw_mode(mode)) {
        Ok(fd) => Ok(Some(File::from(fd))),
        // Not supported by this filesystem or kernel.
        Err(Errno::OPNOTSUPP | Errno::ISDIR | Errno::INVAL | Errno::NOENT) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// Gives the unnamed `file` the name `name` in `dir`; `AlreadyExists` when it is taken.
pub(in crate::access) fn link_unnamed(file: &File, dir: &Dir, name: &OsStr) -> io::Result<()> {
    // Linking by the descriptor itself needs a capability most processes lack; the
    // descriptor's /proc entry does the same for everyone.
    match rustix::fs::linkat(file, "", dir, name, AtFlags::EMPTY_PATH) {
        Ok(()) => Ok(()),
        Err(Errno::NOENT | Errno::PERM | Errno::ACCESS) => {
            use std::os::fd::AsRawFd as _;
            let proc_path = format!("/proc/self/fd/{}", file.as_raw_fd());
            let cwd = rustix::fs::CWD;
            rustix::fs::linkat(cwd, proc_path.as_str(), dir, name, AtFlags::SYMLINK_FOLLOW)
                .map_err(io::Error::from)
        }
        Err(e) => Err(e.into()),
    }
}

/// Reserves `len` bytes for the empty `file` about to be written (its length becomes `len`).
/// Best effort: a filesystem that cannot writes the same content.
pub(in crate::access) fn reserve(file: &File, len: u64) {
    let _ = rustix::fs::fallocate(file, FallocateFlags::empty(), 0, len);
}

/// Reserves `len` bytes past the end of the empty `file`, its length staying 0; whether the
/// filesystem did.
pub(in crate::access) fn reserve_past_end(file: &File, len: u64) -> bool {
    rustix::fs::fallocate(file, FallocateFlags::KEEP_SIZE, 0, len).is_ok()
}

/// Copies `len` bytes of `from`, from its offset `at` (its own offset unmoved), to `to` at
/// `to`'s offset, in the kernel (`copy_file_range`) where the filesystems allow, else through
/// a buffer. Returns how many were copied: fewer when `from` ends first.
pub(in crate::access) fn copy_range(
    from: &File,
    at: u64,
    to: &mut File,
    len: u64,
) -> io::Result<u64> {
    let mut offset = at;
    let mut left = len;
    while left > 0 {
        let chunk = usize::try_from(left.min(1 << 30)).unwrap_or(1 << 30);
        match rustix::fs::copy_file_range(from, Some(&mut offset), &mut *to, None, chunk) {
            Ok(0) if offset == at => {
                // Some filesystems answer 0 rather than an error for what they cannot copy:
                // the loop below finds the end of the file, or copies.
                break;
            }
            Ok(0) => return Ok(offset - at),
            Ok(n) => left -= n as u64,
            Err(Errno::INTR) => {}
            // Across filesystems, or one that cannot (a FUSE, an old kernel): copy through a
            // buffer from where the kernel stopped.
            Err(
                Errno::XDEV
                | Errno::NOSYS
                | Errno::INVAL
                | Errno::OPNOTSUPP
                | Errno::PERM
                | Errno::BADF
                | Errno::OVERFLOW,
            ) => break,
            Err(e) => return Err(e.into()),
        }
    }
    let rest = super::copy_through_buffer(from, offset, to, left)?;
    Ok(offset - at + rest)
}

/// Lowers the priority of the calling thread to the lowest (`nice` 19): background work waits
/// for the calls (and their clients) on a busy machine rather than competing with them.
pub(in crate::access) fn lower_thread_priority() {
    let me = rustix::thread::gettid();
    let _ = rustix::process::setpriority_process(Some(me), 19);
}
