//! Every call whose presence or meaning differs between operating systems, in one place: no
//! other module of fsgate names an operating system (`tests/adversarial/portable_paths.rs` checks it).
//!
//! fsgate runs on Linux and macOS. Everything else in `access` uses what every Unix system has
//! (`openat` beneath a directory handle through cap-std, `fstatat`, `flock`, `faccessat`,
//! `rename`, named files created exclusively); what differs is here, in two kinds.
//!
//! **Speed paths, switchable.** Linux has calls that make a write cheaper or safer against a
//! crash without changing what it promises. They live in `linux.rs`; `portable.rs` does the
//! same work with what every Unix system has:
//!
//! | what | Linux (`linux.rs`) | portable (`portable.rs`: macOS, other Unix systems) |
//! |---|---|---|
//! | new content | an unnamed file (`O_TMPFILE`) in the target's folder, named with `linkat` (an empty path, else its `/proc/self/fd` entry) once complete | a named temp file created exclusively (`O_CREAT \| O_EXCL`, never through a link) in the target's folder, written down first for the sweep after a crash (`pending`) |
//! | spares made ahead (`aside`) | unnamed files, with space reserved past their end (`fallocate(KEEP_SIZE)`) | none |
//! | space for the new content | `fallocate` | the writes allocate it |
//! | unchanged parts of a spliced edit | copied in the kernel (`copy_file_range`) | a read-and-write loop |
//! | the background thread's priority | lowered by its thread id (`gettid`, `setpriority`) | left as it is |
//!
//! Linux builds take the Linux paths unless built with the cargo feature `portable-paths`,
//! which makes them take the portable ones: that is how the code a Mac runs is tested on Linux
//! (`scripts/test` runs the adversarial, crash and concurrent-edit suites so). Every other
//! system takes the portable paths.
//!
//! **System facts, not switchable.** What the system has or asks for, whichever paths run:
//! the longest path the kernel takes ([`PATH_MAX`]), the path of an open folder (for the
//! journal of temp names), a flush that reaches the disk (`F_FULLFSYNC` on macOS, whose
//! `fsync` leaves the data in the drive's cache), where a sparse file's data is
//! (`SEEK_DATA`/`SEEK_HOLE`), a rename that refuses to replace (`renameat2` on Linux,
//! `renameatx_np` on macOS), and the two names of "not supported" (`EOPNOTSUPP`, `ENOTSUP`:
//! one number on Linux, two on macOS).
//!
//! **Resolution beneath a root** is cap-std's: on Linux 5.6 and later it opens with
//! `openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS)`; where the kernel has no `openat2`
//! (macOS, older Linux kernels) it walks the path itself, one component at a time from the
//! directory handle with `O_NOFOLLOW`, refusing any step above it. cap-std chooses at run
//! time, from the kernel's answer (`ENOSYS`), so the portable test run takes `openat2` away
//! from its processes (`scripts/without-openat2`) and cap-std takes the path a Mac takes.

use std::fs::File;
use std::io;
use std::ops::Range;
use std::os::fd::AsFd;
use std::path::PathBuf;

#[cfg(test)]
use cap_std::fs::Dir;
use rustix::io::Errno;

#[cfg(all(target_os = "linux", not(feature = "portable-paths")))]
mod linux;
#[cfg(all(target_os = "linux", not(feature = "portable-paths")))]
use linux as paths;

#[cfg(any(not(target_os = "linux"), feature = "portable-paths"))]
mod portable;
#[cfg(any(not(target_os = "linux"), feature = "portable-paths"))]
use portable as paths;

pub(in crate::access) use paths::{
    copy_range, link_unnamed, lower_thread_priority, reserve, reserve_past_end, unnamed_file,
};

/// Which paths this build takes: `"linux"` or `"portable"`.
pub const PATHS: &str = paths::NAME;

/// The longest path the kernel takes, in bytes, its terminating NUL included: 4096 on Linux,
/// 1024 on macOS (and the BSDs).
#[cfg(target_os = "linux")]
pub const PATH_MAX: usize = 4096;
/// The longest path the kernel takes, in bytes, its terminating NUL included: 4096 on Linux,
/// 1024 on macOS (and the BSDs).
#[cfg(not(target_os = "linux"))]
pub const PATH_MAX: usize = 1024;

/// The path of the open folder `dir` as the kernel knows it now; `None` where the system
/// cannot tell.
pub(in crate::access) fn folder_path(dir: impl AsFd) -> Option<PathBuf> {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd as _;
        std::fs::read_link(format!("/proc/self/fd/{}", dir.as_fd().as_raw_fd())).ok()
    }
    #[cfg(target_vendor = "apple")]
    {
        use std::os::unix::ffi::OsStringExt as _;
        let path = rustix::fs::getpath(dir).ok()?;
        Some(PathBuf::from(std::ffi::OsString::from_vec(
            path.into_bytes(),
        )))
    }
    #[cfg(not(any(target_os = "linux", target_vendor = "apple")))]
    {
        let _ = dir;
        None
    }
}

/// Flushes the file or folder `fd` to the disk: `fsync`, and on macOS `F_FULLFSYNC` (its
/// `fsync` only hands the data to the drive), falling back to `fsync` on a filesystem that
/// cannot.
pub(in crate::access) fn sync(fd: impl AsFd) -> io::Result<()> {
    #[cfg(target_vendor = "apple")]
    if rustix::fs::fcntl_fullfsync(&fd).is_ok() {
        return Ok(());
    }
    rustix::fs::fsync(fd).map_err(io::Error::from)
}

/// Renames the entry `from` of `from_dir` to `to` in `to_dir`. With `replace` false an existing
/// destination fails with `AlreadyExists`, decided atomically by the kernel.
pub(in crate::access) fn rename(
    from_dir: impl AsFd,
    from: &std::ffi::OsStr,
    to_dir: impl AsFd,
    to: &std::ffi::OsStr,
    replace: bool,
) -> io::Result<()> {
    #[cfg(any(target_os = "linux", target_vendor = "apple"))]
    {
        use rustix::fs::RenameFlags;
        let flags = if replace {
            RenameFlags::empty()
        } else {
            RenameFlags::NOREPLACE
        };
        rustix::fs::renameat_with(from_dir, from, to_dir, to, flags).map_err(io::Error::from)
    }
    #[cfg(not(any(target_os = "linux", target_vendor = "apple")))]
    {
        if replace {
            rustix::fs::renameat(from_dir, from, to_dir, to).map_err(io::Error::from)
        } else {
            Err(io::Error::new(
                io::ErrorKind::Unsupported,
                "this system has no rename that refuses to replace an existing entry, so \
                 nothing was renamed",
            ))
        }
    }
}

/// Whether `errno` says the filesystem does not support the operation (`EOPNOTSUPP` or
/// `ENOTSUP`, the same number on Linux and two on macOS).
pub(in crate::access) fn unsupported(errno: Errno) -> bool {
    errno == Errno::OPNOTSUPP || errno == Errno::NOTSUP
}

/// The first stretch of data within `start..end` of `file`, asked of the filesystem with
/// `lseek(SEEK_DATA)` and `lseek(SEEK_HOLE)` on the systems that have them (Linux, Android,
/// macOS, FreeBSD); elsewhere, and where the filesystem cannot tell, all of it is data.
/// `None` when the range holds only holes. Asking moves the file's offset.
#[cfg(any(
    target_os = "linux",
    target_os = "android",
    target_vendor = "apple",
    target_os = "freebsd"
))]
pub(in crate::access) fn seek_data(file: &File, start: u64, end: u64) -> Option<Range<u64>> {
    use rustix::fs::{SeekFrom, seek};
    let data = match seek(file, SeekFrom::Data(start)) {
        Ok(data) => data,
        // Only a hole from `start` to the end of the file.
        Err(Errno::NXIO) => return None,
        // The filesystem cannot say: all of it is data.
        Err(_) => return Some(start..end),
    };
    if data < start {
        return Some(start..end);
    }
    if data >= end {
        return None;
    }
    match seek(file, SeekFrom::Hole(data)) {
        Ok(hole) if hole > data => Some(data..hole.min(end)),
        _ => Some(data..end),
    }
}

/// The first stretch of data within `start..end` of `file`: on this system, all of it.
#[cfg(not(any(
    target_os = "linux",
    target_os = "android",
    target_vendor = "apple",
    target_os = "freebsd"
)))]
pub(in crate::access) fn seek_data(_file: &File, start: u64, end: u64) -> Option<Range<u64>> {
    Some(start..end)
}

/// Copies `len` bytes of `from`, from its offset `at` (its own offset unmoved), to `to` at
/// `to`'s offset, with positioned reads into a buffer and writes: what every system can do.
/// Returns how many were copied: fewer when `from` ends first.
fn copy_through_buffer(from: &File, at: u64, to: &mut File, len: u64) -> io::Result<u64> {
    use std::io::Write as _;
    use std::os::unix::fs::FileExt as _;
    const BUFFER: u64 = 256 * 1024;
    let mut buf = vec![0u8; usize::try_from(len.min(BUFFER)).unwrap_or(0)];
    let mut copied = 0;
    while copied < len {
        let want = usize::try_from((len - copied).min(BUFFER)).unwrap_or(buf.len());
        let n = match from.read_at(&mut buf[..want], at + copied) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        to.write_all(&buf[..n])?;
        copied += n as u64;
    }
    Ok(copied)
}

/// Gives `dir`'s unnamed files a try: whether [`unnamed_file`] makes one there (always `false`
/// on the portable paths).
#[cfg(test)]
pub(in crate::access) fn has_unnamed_files(dir: &Dir) -> bool {
    matches!(unnamed_file(dir, 0o600), Ok(Some(_)))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::disallowed_methods)]
    use super::*;
    use std::io::{Read as _, Seek as _, Write as _};
    use std::os::unix::fs::FileExt as _;

    fn open(path: &std::path::Path) -> Dir {
        Dir::open_ambient_dir(path, cap_std::ambient_authority()).unwrap()
    }

    #[test]
    fn a_copied_range_is_the_source_s_bytes_at_any_length_and_offset() {
        let content: Vec<u8> = (0..700_001u32).map(|i| (i * 7 + i / 251) as u8).collect();
        let mut source = tempfile::tempfile().unwrap();
        source.write_all(&content).unwrap();
        for (at, len) in [(0, 0), (0, 1), (3, 65_535), (65_536, 65_537), (1, 700_000)] {
            let mut out = tempfile::tempfile().unwrap();
            out.write_all(b"head:").unwrap();
            let copied = copy_range(&source, at, &mut out, len).unwrap();
            assert_eq!(copied, len, "at {at}, {len} bytes");
            out.write_all(b":tail").unwrap();
            let mut got = Vec::new();
            out.rewind().unwrap();
            out.read_to_end(&mut got).unwrap();
            let want = [
                b"head:",
                &content[at as usize..(at + len) as usize],
                b":tail",
            ]
            .concat();
            assert!(got == want, "at {at}, {len} bytes: the copy differs");
        }
        // Past the end, a copy stops where the source does.
        let mut out = tempfile::tempfile().unwrap();
        assert_eq!(copy_range(&source, 700_000, &mut out, 10).unwrap(), 1);
    }

    #[test]
    fn a_folder_s_path_is_known_where_the_system_tells_it() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().canonicalize().unwrap();
        let path = folder_path(open(&real));
        if cfg!(any(target_os = "linux", target_vendor = "apple")) {
            assert_eq!(path, Some(real));
        }
    }

    #[test]
    fn a_rename_that_may_not_replace_leaves_both_entries() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a"), "a").unwrap();
        std::fs::write(dir.path().join("b"), "b").unwrap();
        let handle = open(dir.path());
        let (a, b) = (std::ffi::OsStr::new("a"), std::ffi::OsStr::new("b"));
        let err = rename(&handle, a, &handle, b, false).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::AlreadyExists);
        assert_eq!(std::fs::read(dir.path().join("b")).unwrap(), b"b");
        rename(&handle, a, &handle, b, true).unwrap();
        assert_eq!(std::fs::read(dir.path().join("b")).unwrap(), b"a");
        assert!(!dir.path().join("a").exists());
    }

    #[test]
    fn a_sync_of_a_file_and_of_its_folder_succeeds() {
        let dir = tempfile::tempdir().unwrap();
        let file = File::create(dir.path().join("f")).unwrap();
        file.write_all_at(b"x", 0).unwrap();
        sync(&file).unwrap();
        // A folder opened for reading: a handle of cap-std's may be a path-only descriptor.
        sync(File::open(dir.path()).unwrap()).unwrap();
    }

    #[test]
    fn the_portable_paths_make_no_unnamed_file_and_the_linux_ones_name_theirs() {
        let dir = tempfile::tempdir().unwrap();
        let handle = open(dir.path());
        if PATHS == "portable" {
            assert!(!has_unnamed_files(&handle));
            return;
        }
        let Some(mut file) = unnamed_file(&handle, 0o640).unwrap() else {
            // A filesystem without unnamed files: nothing more to check.
            return;
        };
        file.write_all(b"whole").unwrap();
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            0,
            "no name yet"
        );
        link_unnamed(&file, &handle, std::ffi::OsStr::new("named")).unwrap();
        assert_eq!(std::fs::read(dir.path().join("named")).unwrap(), b"whole");
        let err = link_unnamed(&file, &handle, std::ffi::OsStr::new("named")).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::AlreadyExists);
    }
}
