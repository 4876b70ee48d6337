//! Low-level file I/O: opening regular files for streaming reads, listing directories, and
//! atomic replacement (temp file in the same directory, fsync, rename, directory fsync, mode and
//! owner kept).

use std::ffi::OsString;
use std::fs::{self, File, Metadata, Permissions};
use std::io::{self, Write};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// The longest chain of symbolic links a write follows before giving up, as the kernel does.
const MAX_LINK_HOPS: usize = 40;

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
}

/// Metadata of `path`, following symbolic links.
pub fn metadata(path: &Path) -> io::Result<Metadata> {
    fs::metadata(path)
}

/// Whether something (even a dangling link) exists at `path`.
pub fn exists_no_follow(path: &Path) -> bool {
    fs::symlink_metadata(path).is_ok()
}

/// Opens a regular file for reading. Directories fail with `IsADirectory`; FIFOs, sockets and
/// devices fail with `InvalidInput` before they are opened, so a read never blocks on them.
pub fn open_regular(path: &Path) -> io::Result<(File, Metadata)> {
    let before = fs::metadata(path)?;
    check_regular(&before)?;
    let file = File::open(path)?;
    let meta = file.metadata()?;
    check_regular(&meta)?;
    Ok((file, meta))
}

fn check_regular(meta: &Metadata) -> io::Result<()> {
    if meta.is_dir() {
        return Err(io::Error::from(io::ErrorKind::IsADirectory));
    }
    if !meta.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file (a FIFO, socket or device)",
        ));
    }
    Ok(())
}

/// The entries of the directory at `path`, in the order the filesystem gives them.
pub fn read_dir(path: &Path) -> io::Result<Vec<DirEntry>> {
    let mut out = Vec::new();
    for entry in fs::read_dir(path)? {
        let entry = entry?;
        let file_type = entry.file_type()?;
        let kind = if file_type.is_symlink() {
            EntryKind::Symlink {
                target: fs::read_link(entry.path()).unwrap_or_default(),
            }
        } else if file_type.is_dir() {
            EntryKind::Dir
        } else if file_type.is_file() {
            EntryKind::File
        } else {
            EntryKind::Other
        };
        out.push(DirEntry {
            name: entry.file_name(),
            kind,
        });
    }
    Ok(out)
}

/// What the symbolic link at `path` points to, as written in it (empty when unreadable).
pub fn link_target(path: &Path) -> String {
    fs::read_link(path)
        .map(|t| t.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Opens a file found by a walk for reading, without the checks of [`open_regular`] (the walk
/// already knows it is a regular file).
pub fn open_walked(path: &Path) -> io::Result<File> {
    File::open(path)
}

/// Whether `path` (following links) is a directory.
pub fn is_dir(path: &Path) -> bool {
    fs::metadata(path).is_ok_and(|m| m.is_dir())
}

/// What an atomic write replaced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Replaced {
    /// The previous file's length in bytes, or `None` when the file was created.
    pub previous_len: Option<u64>,
}

/// Writes `bytes` as the whole content of `path`, atomically: a reader sees the old file or the
/// new one, never a mix, and a failure leaves the old file untouched.
///
/// A symbolic link is followed (the link stays, its target is replaced); missing parent
/// directories are created when `create_parents` is set. An existing file keeps its permission
/// bits and, where the process may set it, its owner; a new file gets `0666` less the umask.
pub fn write_atomic(path: &Path, bytes: &[u8], create_parents: bool) -> io::Result<Replaced> {
    let target = follow_links(path)?;
    let dir = match target.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let existing = match fs::metadata(&target) {
        Ok(meta) => {
            if meta.is_dir() {
                return Err(io::Error::from(io::ErrorKind::IsADirectory));
            }
            if !meta.is_file() {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    "not a regular file (a FIFO, socket or device)",
                ));
            }
            Some(meta)
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(e),
    };
    if create_parents && existing.is_none() {
        fs::create_dir_all(&dir)?;
    }
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mode = existing.as_ref().map_or(0o666, |m| m.mode() & 0o7777);
    let mut temp = tempfile::Builder::new()
        .prefix(&format!(".{name}."))
        .suffix(".fsgate-tmp")
        .permissions(Permissions::from_mode(mode))
        .tempfile_in(&dir)?;
    if let Some(meta) = &existing {
        // The create mode passed through the umask; restore the exact bits, then the owner.
        temp.as_file()
            .set_permissions(Permissions::from_mode(mode))?;
        let (uid, gid) = (meta.uid(), meta.gid());
        let own = temp.as_file().metadata()?;
        if own.uid() != uid || own.gid() != gid {
            // Only a privileged process may give a file away; anyone else keeps their own.
            let _ = std::os::unix::fs::fchown(temp.as_file(), Some(uid), Some(gid));
        }
    }
    temp.write_all(bytes)?;
    temp.as_file().sync_all()?;
    temp.persist(&target).map_err(|e| e.error)?;
    if let Ok(d) = File::open(&dir) {
        // Makes the rename itself durable; a filesystem that cannot sync a directory still
        // renamed atomically, so a failure here is not an error of the write.
        let _ = d.sync_all();
    }
    Ok(Replaced {
        previous_len: existing.map(|m| m.len()),
    })
}

/// Follows a chain of symbolic links at the last component of `path` to the file it names,
/// which may not exist yet (a dangling link names the file a write creates).
fn follow_links(path: &Path) -> io::Result<PathBuf> {
    let mut current = path.to_path_buf();
    for _ in 0..MAX_LINK_HOPS {
        match fs::symlink_metadata(&current) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let link = fs::read_link(&current)?;
                current = if link.is_absolute() {
                    link
                } else {
                    current.parent().unwrap_or(Path::new("/")).join(link)
                };
            }
            _ => return Ok(current),
        }
    }
    Err(io::Error::new(
        io::ErrorKind::InvalidInput,
        "too many levels of symbolic links",
    ))
}

/// Reads the whole file at `path` (a regular file) into memory.
pub fn read_all(path: &Path) -> io::Result<(Vec<u8>, Metadata)> {
    let (mut file, meta) = open_regular(path)?;
    let mut buf = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    io::Read::read_to_end(&mut file, &mut buf)?;
    Ok((buf, meta))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_write_keeps_mode_and_leaves_no_temp_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("script.sh");
        fs::write(&path, "old").unwrap();
        fs::set_permissions(&path, Permissions::from_mode(0o750)).unwrap();
        let replaced = write_atomic(&path, b"new", true).unwrap();
        assert_eq!(replaced.previous_len, Some(3));
        assert_eq!(fs::read(&path).unwrap(), b"new");
        assert_eq!(fs::metadata(&path).unwrap().mode() & 0o7777, 0o750);
        let names: Vec<_> = fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1, "temp file left behind");
    }

    #[test]
    fn atomic_write_through_a_symlink_replaces_the_target_and_keeps_the_link() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.txt");
        let link = dir.path().join("link.txt");
        fs::write(&real, "old").unwrap();
        std::os::unix::fs::symlink("real.txt", &link).unwrap();
        write_atomic(&link, b"new", true).unwrap();
        assert!(
            fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(fs::read(&real).unwrap(), b"new");
    }

    #[test]
    fn new_files_get_the_umask_mode_not_0600() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a/b/new.txt");
        let replaced = write_atomic(&path, b"x", true).unwrap();
        assert_eq!(replaced.previous_len, None);
        let mode = fs::metadata(&path).unwrap().mode() & 0o777;
        assert_ne!(
            mode, 0o600,
            "a new file must not keep the temp file's private mode"
        );
        assert_eq!(mode & 0o400, 0o400);
    }
}
