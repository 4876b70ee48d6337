//! Places granted outside a confined workspace (picoclaw's `allow_read_paths`,
//! `allow_write_paths` and `allow_read_outside_workspace`), reached on directory handles.
//!
//! A grant is a rule over absolute paths that the caller decides. What it is decided on must be
//! what is then opened: a path checked by name and opened again by name lets anything swapped
//! into it meanwhile (a granted folder, or a file in it, replaced by a link) redirect the open.
//! So [`reach`] walks the path from a handle of `/`, one component at a time: each folder is
//! opened from its parent's handle without following a link (`O_NOFOLLOW`), and a link met on
//! the way is read from its folder's handle and its target spliced in (an absolute one from `/`
//! again, `..` popping a folder held), as the kernel would resolve it. The real path it returns
//! is therefore the path of the handles it holds, not a guess made beside them. The caller
//! decides on that real path, then works through [`Reached::into_access`]: a confined access
//! (a jail) whose one root is the deepest folder reached, already open. From there the jail's
//! own rules hold: every open happens beneath that handle (`RESOLVE_BENEATH`), a link leading
//! out of it is refused, and a regular file with more than one name is not opened.
//!
//! [`Access::open_regular_nofollow`] opens a file's last component without following a link,
//! so a read that must be exactly what was decided on (a granted file, whose folder may not be
//! granted as a whole) cannot be redirected to another entry of its folder either.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::fs::File;
use std::io;
use std::path::{Component, Path, PathBuf};

use cap_fs_ext::DirExt as _;
use cap_std::ambient_authority;
use cap_std::fs::Dir;
use rustix::io::Errno;

use super::fs::{Meta, Place};
use super::jail::Jail;
use super::{Access, Resolved};

/// The longest chain of symbolic links (and of folders swapped while being opened) followed,
/// as the kernel does.
const MAX_HOPS: usize = 40;

/// A path reached from `/` on handles: the deepest existing folder on it, open, and what lies
/// below that folder.
#[derive(Debug)]
pub struct Reached {
    /// The folder's real path.
    folder: PathBuf,
    /// The folder, opened from its parent's handle without following a link.
    dir: Dir,
    /// Below the folder: nothing (the path is the folder), the name of an existing entry that
    /// is not a folder, or components that do not exist.
    rest: PathBuf,
    /// Whether something exists at the path.
    exists: bool,
}

impl Reached {
    /// The real path: the folder's, with the rest appended.
    pub fn real(&self) -> PathBuf {
        if self.rest.as_os_str().is_empty() {
            self.folder.clone()
        } else {
            self.folder.join(&self.rest)
        }
    }

    /// The deepest existing folder on the real path.
    pub fn folder(&self) -> &Path {
        &self.folder
    }

    /// What lies below the folder (empty when the path is the folder itself).
    pub fn rest(&self) -> &Path {
        &self.rest
    }

    /// Whether something exists at the path.
    pub fn exists(&self) -> bool {
        self.exists
    }

    /// A confined access whose one root is the folder reached, opened once: every operation
    /// through it happens beneath that handle, under the confined workspace's rules.
    pub fn into_access(self) -> Access {
        Access::jailed(Jail::over(self.folder, self.dir))
    }
}

/// Reaches `absolute` from `/` one component at a time on folder handles (see the module doc).
/// `..` pops a folder (staying at `/`); a link is read and its target spliced in; a folder
/// swapped for something else between its metadata and its open is looked at again. A missing
/// component ends the walk: it and everything after it are the rest. Fails on a relative path,
/// an entry that is not a folder with components below it (`NotADirectory`), more than 40
/// links (`ELOOP`), or a folder that cannot be opened.
pub fn reach(absolute: &Path) -> io::Result<Reached> {
    if !absolute.is_absolute() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} is not an absolute path", absolute.display()),
        ));
    }
    let top = Dir::open_ambient_dir("/", ambient_authority())?;
    let mut folders: Vec<(OsString, Dir)> = Vec::new();
    let mut queue: VecDeque<(OsString, bool)> = VecDeque::new();
    push_front(&mut queue, absolute, false);
    let mut rest: Vec<OsString> = Vec::new();
    let mut missing = false;
    let mut hops = 0;
    while let Some((part, from_link)) = queue.pop_front() {
        if missing {
            rest.push(part);
            continue;
        }
        if part == ".." {
            folders.pop();
            continue;
        }
        let here = folders.last().map_or(&top, |(_, dir)| dir);
        let meta = match here.symlink_metadata(&part) {
            Ok(meta) => meta,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                missing = true;
                rest.push(part);
                continue;
            }
            Err(e) => return Err(e),
        };
        if meta.file_type().is_symlink() {
            hops += 1;
            if hops > MAX_HOPS {
                return Err(too_many_links());
            }
            let target = here.read_link_contents(&part)?;
            if target.is_absolute() {
                folders.clear();
            }
            push_front(&mut queue, &target, true);
        } else if meta.is_dir() {
            match here.open_dir_nofollow(&part) {
                Ok(dir) => folders.push((part, dir)),
                // Swapped between the look and the open: look again.
                Err(e) if swapped(&e) => {
                    hops += 1;
                    if hops > MAX_HOPS {
                        return Err(too_many_links());
                    }
                    queue.push_front((part, from_link));
                }
                Err(e) => return Err(e),
            }
        } else if queue.is_empty() {
            rest.push(part);
        } else {
            return Err(io::Error::new(
                io::ErrorKind::NotADirectory,
                format!(
                    "{} is not a folder, so nothing lies below it",
                    real_of(&folders).join(&part).display()
                ),
            ));
        }
    }
    let folder = real_of(&folders);
    let dir = match folders.pop() {
        Some((_, dir)) => dir,
        None => top,
    };
    Ok(Reached {
        folder,
        dir,
        rest: rest.iter().collect(),
        exists: !missing,
    })
}

/// The real path of the folders held.
fn real_of(folders: &[(OsString, Dir)]) -> PathBuf {
    let mut out = PathBuf::from("/");
    out.extend(folders.iter().map(|(name, _)| name));
    out
}

/// Whether an open without following links failed because the entry is no longer a folder.
fn swapped(err: &io::Error) -> bool {
    matches!(
        Errno::from_io_error(err),
        Some(Errno::LOOP | Errno::NOTDIR | Errno::NOENT | Errno::MLINK)
    )
}

/// `ELOOP`, as the kernel reports a path through too many links.
fn too_many_links() -> io::Error {
    io::Error::from_raw_os_error(Errno::LOOP.raw_os_error())
}

/// Puts the components of `path` at the front of `queue`, in order (the root and `.` dropped).
fn push_front(queue: &mut VecDeque<(OsString, bool)>, path: &Path, from_link: bool) {
    let parts: Vec<OsString> = path
        .components()
        .filter_map(|c| match c {
            Component::Normal(p) => Some(p.to_os_string()),
            Component::ParentDir => Some(OsString::from("..")),
            Component::CurDir | Component::RootDir | Component::Prefix(_) => None,
        })
        .collect();
    for part in parts.into_iter().rev() {
        queue.push_front((part, from_link));
    }
}

impl Access {
    /// Opens the regular file at `target` for reading, as [`Access::open_regular`] does, except
    /// that in a confined workspace its last component is opened from its folder's handle
    /// without following a link (`O_NOFOLLOW`, and `O_NONBLOCK` so that a FIFO put in its
    /// place does not block): a resolved path names no link, so a link found there now was
    /// swapped in since, and is refused rather than followed, even to an entry of the same
    /// folder. Folders fail with `IsADirectory`, FIFOs, sockets and devices with
    /// `InvalidInput`, a file with more than one name as [`Access::check_links`] says.
    pub fn open_regular_nofollow(&self, target: &Resolved) -> io::Result<(File, Meta)> {
        let (root, rel) = match self.place(target) {
            Place::Beneath(root, rel) => (root, rel),
            Place::Ambient(_) => return self.open_regular(target),
        };
        let Some(name) = rel.file_name() else {
            return Err(io::Error::from(io::ErrorKind::IsADirectory));
        };
        let folder = match rel.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => root.open_dir(parent)?,
            _ => root.open_dir(".")?,
        };
        use rustix::fs::{Mode, OFlags};
        let flags =
            OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NOCTTY | OFlags::NONBLOCK | OFlags::CLOEXEC;
        let fd = super::walkdir::patiently(|| {
            rustix::fs::openat(&folder, name, flags, Mode::empty()).map_err(io::Error::from)
        })
        .map_err(|e| {
            if matches!(Errno::from_io_error(&e), Some(Errno::LOOP | Errno::MLINK)) {
                io::Error::other(
                    "it became a symbolic link while it was being opened (something changed \
                     it meanwhile), so it was not followed; read it again",
                )
            } else {
                e
            }
        })?;
        let file = File::from(fd);
        let meta = Meta::from(rustix::fs::fstat(&file)?);
        super::fs::check_regular(&meta)?;
        self.check_links(&meta)?;
        Ok((file, meta))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)]
    use super::*;
    use std::os::unix::fs::symlink;

    fn base() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        (dir, base)
    }

    #[test]
    fn a_path_is_reached_through_its_links_and_its_real_path_is_the_handles_path() {
        let (_d, base) = base();
        std::fs::create_dir_all(base.join("real/sub")).unwrap();
        std::fs::write(base.join("real/sub/f.txt"), "f").unwrap();
        symlink(base.join("real"), base.join("abs")).unwrap();
        symlink("real/sub", base.join("rel")).unwrap();
        symlink("../real/sub/f.txt", base.join("real/up")).unwrap();
        let r = reach(&base.join("abs/sub/f.txt")).unwrap();
        assert_eq!(r.real(), base.join("real/sub/f.txt"));
        assert_eq!(r.folder(), base.join("real/sub"));
        assert_eq!(r.rest(), Path::new("f.txt"));
        assert!(r.exists());
        let r = reach(&base.join("rel")).unwrap();
        assert_eq!(
            (r.folder(), r.rest()),
            (base.join("real/sub").as_path(), Path::new(""))
        );
        let r = reach(&base.join("real/up")).unwrap();
        assert_eq!(r.real(), base.join("real/sub/f.txt"));
        let r = reach(&base.join("abs/new/deeper.txt")).unwrap();
        assert_eq!(r.real(), base.join("real/new/deeper.txt"));
        assert_eq!(r.folder(), base.join("real"));
        assert!(!r.exists());
    }

    #[test]
    fn a_dangling_link_reaches_where_it_points_and_a_loop_is_refused() {
        let (_d, base) = base();
        symlink(base.join("nowhere/x.txt"), base.join("dangling")).unwrap();
        let r = reach(&base.join("dangling")).unwrap();
        assert_eq!(r.real(), base.join("nowhere/x.txt"));
        assert!(!r.exists());
        symlink("b", base.join("a")).unwrap();
        symlink("a", base.join("b")).unwrap();
        let err = reach(&base.join("a/x")).unwrap_err();
        assert_eq!(Errno::from_io_error(&err), Some(Errno::LOOP), "{err}");
        std::fs::write(base.join("file"), "x").unwrap();
        let err = reach(&base.join("file/x")).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::NotADirectory);
    }

    #[test]
    fn an_access_over_the_folder_reached_stays_beneath_it() {
        let (_d, base) = base();
        std::fs::create_dir_all(base.join("granted")).unwrap();
        std::fs::create_dir_all(base.join("outside")).unwrap();
        std::fs::write(base.join("outside/secret.txt"), "SECRET").unwrap();
        std::fs::write(base.join("granted/f.txt"), "inside").unwrap();
        symlink(
            base.join("outside/secret.txt"),
            base.join("granted/out.txt"),
        )
        .unwrap();
        let access = reach(&base.join("granted")).unwrap().into_access();
        assert_eq!(access.root(), base.join("granted"));
        let f = access.resolve("f.txt").unwrap();
        assert_eq!(access.read_all(&f).unwrap().0, b"inside");
        assert!(access.resolve("out.txt").is_err());
        assert!(access.resolve("../outside/secret.txt").is_err());
    }

    #[test]
    fn the_last_component_is_not_followed_and_a_second_name_is_not_opened() {
        let (_d, base) = base();
        std::fs::write(base.join("a.txt"), "a").unwrap();
        std::fs::write(base.join("b.txt"), "b").unwrap();
        std::fs::hard_link(base.join("b.txt"), base.join("b2.txt")).unwrap();
        let access = reach(&base).unwrap().into_access();
        let a = access.resolve("a.txt").unwrap();
        assert_eq!(access.open_regular_nofollow(&a).unwrap().1.len, 1);
        // Swapped for a link after it was resolved: refused, not followed.
        std::fs::remove_file(base.join("a.txt")).unwrap();
        symlink("b.txt", base.join("a.txt")).unwrap();
        let err = access.open_regular_nofollow(&a).unwrap_err();
        assert!(err.to_string().contains("became a symbolic link"), "{err}");
        let b2 = access.resolve("b2.txt").unwrap();
        let err = access.open_regular_nofollow(&b2).unwrap_err();
        assert!(err.to_string().contains("hard links"), "{err}");
        let root = access.resolve(".").unwrap();
        let err = access.open_regular_nofollow(&root).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::IsADirectory);
    }
}
