//! What is at a place: the metadata the engine uses ([`Meta`], the same whichever way it was
//! read), the stamp that tells two states of a file apart ([`Stamp`]), directory entries, and
//! the checks made on metadata before a file is read or changed.

use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};

use cap_std::fs::Dir;

use super::Place;

/// What a directory entry is, without following it when it is a link.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EntryKind {
    /// A regular file.
    File,
    /// A directory.
    Dir,
    /// A symbolic link, with what it points to as written in the link.
    Symlink {
        /// The link's contents.
        target: PathBuf,
    },
    /// A FIFO, socket or device.
    Other,
}

/// One entry of a directory listing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DirEntry {
    /// The entry's file name.
    pub name: OsString,
    /// What it is.
    pub kind: EntryKind,
    /// Its metadata (of the link itself for a link), when it could be read.
    pub meta: Option<Meta>,
}

/// The metadata the engine uses, the same whichever way the file was reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Meta {
    /// A directory.
    pub is_dir: bool,
    /// A regular file.
    pub is_file: bool,
    /// A symbolic link (only from a metadata call that does not follow links).
    pub is_symlink: bool,
    /// Size in bytes.
    pub len: u64,
    /// Permission bits (`st_mode & 0o7777`).
    pub mode: u32,
    /// Modification time, seconds since the Unix epoch.
    pub mtime: i64,
    /// Owner.
    pub uid: u32,
    /// Group.
    pub gid: u32,
    /// Hard links.
    pub nlink: u64,
    /// Which file this is and when it last changed, to the nanosecond.
    pub stamp: Stamp,
}

/// A file's identity and change times: two equal stamps of one path mean no write happened in
/// between (the kernel gives each change a fresh change time).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Stamp {
    /// Device.
    pub dev: u64,
    /// Inode.
    pub ino: u64,
    /// Size in bytes.
    pub len: u64,
    /// Modification time (seconds, nanoseconds).
    pub mtime: (i64, i64),
    /// Status change time (seconds, nanoseconds).
    pub ctime: (i64, i64),
}

impl From<std::fs::Metadata> for Meta {
    fn from(m: std::fs::Metadata) -> Self {
        use std::os::unix::fs::MetadataExt;
        Meta {
            is_dir: m.is_dir(),
            is_file: m.is_file(),
            is_symlink: m.file_type().is_symlink(),
            len: m.len(),
            mode: m.mode() & 0o7777,
            mtime: m.mtime(),
            uid: m.uid(),
            gid: m.gid(),
            nlink: m.nlink(),
            stamp: Stamp {
                dev: m.dev(),
                ino: m.ino(),
                len: m.len(),
                mtime: (m.mtime(), m.mtime_nsec()),
                ctime: (m.ctime(), m.ctime_nsec()),
            },
        }
    }
}

impl From<cap_std::fs::Metadata> for Meta {
    fn from(m: cap_std::fs::Metadata) -> Self {
        use cap_std::fs::MetadataExt;
        Meta {
            is_dir: m.is_dir(),
            is_file: m.is_file(),
            is_symlink: m.file_type().is_symlink(),
            len: m.len(),
            mode: m.mode() & 0o7777,
            mtime: m.mtime(),
            uid: m.uid(),
            gid: m.gid(),
            nlink: m.nlink(),
            stamp: Stamp {
                dev: m.dev(),
                ino: m.ino(),
                len: m.len(),
                mtime: (m.mtime(), m.mtime_nsec()),
                ctime: (m.ctime(), m.ctime_nsec()),
            },
        }
    }
}

impl From<rustix::fs::Stat> for Meta {
    fn from(st: rustix::fs::Stat) -> Self {
        use rustix::fs::FileType;
        let kind = FileType::from_raw_mode(st.st_mode);
        let len = u64::try_from(st.st_size).unwrap_or(0);
        let mtime = (st.st_mtime, nanos(st.st_mtime_nsec));
        Meta {
            is_dir: kind == FileType::Directory,
            is_file: kind == FileType::RegularFile,
            is_symlink: kind == FileType::Symlink,
            len,
            mode: st.st_mode & 0o7777,
            mtime: st.st_mtime,
            uid: st.st_uid,
            gid: st.st_gid,
            nlink: st.st_nlink,
            stamp: Stamp {
                dev: st.st_dev,
                ino: st.st_ino,
                len,
                mtime,
                ctime: (st.st_ctime, nanos(st.st_ctime_nsec)),
            },
        }
    }
}

/// A nanoseconds field of a stat buffer, whose integer type differs between platforms.
fn nanos<T: TryInto<i64>>(field: T) -> i64 {
    field.try_into().unwrap_or(0)
}

/// Metadata of the entry `name` (one path component) of `dir`, following a symbolic link
/// only beneath `dir`. One `fstatat` for everything but a link.
pub(crate) fn entry_metadata(dir: &Dir, name: &std::ffi::OsStr) -> io::Result<Meta> {
    let st = rustix::fs::statat(dir, name, rustix::fs::AtFlags::SYMLINK_NOFOLLOW)?;
    let meta = Meta::from(st);
    if meta.is_symlink {
        return dir.metadata(name).map(Meta::from);
    }
    Ok(meta)
}

/// The metadata of the file at `path` (links followed, as a reader of it follows them), outside
/// any confinement: for comparing stamps, not for deciding what may be opened. `None` when it
/// cannot be stat'ed.
pub fn meta_ambient(path: &Path) -> Option<Meta> {
    rustix::fs::stat(path).ok().map(Meta::from)
}

/// Metadata of `place`, following symbolic links.
pub fn metadata(place: Place<'_>) -> io::Result<Meta> {
    match place {
        Place::Ambient(p) => std::fs::metadata(p).map(Meta::from),
        Place::Beneath(dir, rel) => dir.metadata(Place::rel(rel)).map(Meta::from),
    }
}

/// Metadata of `place` itself, not following a final symbolic link.
pub fn symlink_metadata(place: Place<'_>) -> io::Result<Meta> {
    match place {
        Place::Ambient(p) => std::fs::symlink_metadata(p).map(Meta::from),
        Place::Beneath(dir, rel) => dir.symlink_metadata(Place::rel(rel)).map(Meta::from),
    }
}

/// Where `path` really is: its longest existing ancestor canonicalised (links and `..`
/// resolved by the kernel), with the rest appended as written. Maps a path for a decision; it
/// reads and writes nothing.
pub fn real_path(path: &Path) -> PathBuf {
    let mut existing = path.to_path_buf();
    let mut tail: Vec<OsString> = Vec::new();
    loop {
        if let Ok(canonical) = std::fs::canonicalize(&existing) {
            let mut out = canonical;
            out.extend(tail.iter().rev());
            return out;
        }
        match (existing.file_name(), existing.parent()) {
            (Some(name), Some(parent)) => {
                tail.push(name.to_os_string());
                existing = parent.to_path_buf();
            }
            _ => return path.to_path_buf(),
        }
    }
}

/// Whether something (even a dangling link) exists at `path`.
pub fn exists_no_follow(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok()
}

/// Refuses to change what carries no write permission bit at all: a file or folder made
/// read-only on purpose stays so even for a process (root) the kernel would let write.
pub(super) fn check_writable(meta: &Meta, what: &str) -> io::Result<()> {
    if meta.mode & 0o222 == 0 {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!(
                "{what} is read-only (mode {:o}); make it writable first if it is meant to change",
                meta.mode
            ),
        ));
    }
    Ok(())
}

pub(in crate::access) fn check_regular(meta: &Meta) -> io::Result<()> {
    if meta.is_dir {
        return Err(io::Error::from(io::ErrorKind::IsADirectory));
    }
    if !meta.is_file {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file (a FIFO, socket or device)",
        ));
    }
    Ok(())
}

/// What the symbolic link at `path` points to, as written in it (empty when unreadable).
pub fn link_target(path: &Path) -> String {
    std::fs::read_link(path)
        .map(|t| t.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Whether `place` (following links) is a directory.
pub fn is_dir(place: Place<'_>) -> bool {
    metadata(place).is_ok_and(|m| m.is_dir)
}
