//! Changing the tree: folders made (and removed again when the operation they were made for
//! fails), entries removed and renamed, permission bits set, and the name and path lengths the
//! kernel takes.

use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};

use cap_std::ambient_authority;
use cap_std::fs::Dir;

use super::super::permission::check_may_write;
use super::Place;
use super::meta::{Meta, is_dir, metadata, symlink_metadata};

/// The longest name of one file or folder, in bytes, that Linux filesystems (and macOS's) take:
/// `NAME_MAX`.
pub const NAME_MAX: usize = 255;

pub use super::super::platform::PATH_MAX;

/// Refuses, with `InvalidFilename`, a path that cannot be created: a component longer than
/// [`NAME_MAX`] bytes, or a whole of [`PATH_MAX`] bytes or more. Checked before anything is
/// made, so a write never makes folders for a name the filesystem then refuses.
pub fn check_lengths(path: &Path) -> io::Result<()> {
    use std::os::unix::ffi::OsStrExt as _;
    for component in path.components() {
        if let std::path::Component::Normal(name) = component
            && name.as_bytes().len() > NAME_MAX
        {
            let head: String = name.to_string_lossy().chars().take(24).collect();
            return Err(io::Error::new(
                io::ErrorKind::InvalidFilename,
                format!(
                    "the name {head}… is {} bytes long, and a file or folder name may have at \
                     most {NAME_MAX} bytes, so nothing was created; choose a shorter name",
                    name.as_bytes().len()
                ),
            ));
        }
    }
    let len = path.as_os_str().as_bytes().len();
    if len >= PATH_MAX {
        return Err(io::Error::new(
            io::ErrorKind::InvalidFilename,
            format!(
                "the path is {len} bytes long as an absolute path, and a path may have at most \
                 {} bytes, so nothing was created; choose a shorter path",
                PATH_MAX - 1
            ),
        ));
    }
    Ok(())
}

/// Creates the directory at `place` and its missing parents.
pub fn create_dir_all(place: Place<'_>) -> io::Result<()> {
    let made = match place {
        Place::Ambient(p) => make_dirs(None, p)?,
        Place::Beneath(dir, rel) => make_dirs(Some(dir), rel)?,
    };
    made.keep();
    Ok(())
}

/// The folders made for one operation. Dropped, it removes again those still empty, innermost
/// first, and stops at the first that is not: after an operation that failed, all of them (a
/// failed write leaves no folders behind that it made for itself); after one that succeeded,
/// none, since the innermost holds what it made. [`NewFolders::keep`] keeps them without
/// asking.
#[must_use = "dropping it removes the folders it made"]
#[derive(Debug)]
pub struct NewFolders<'a> {
    /// Where the paths are: beneath this root handle, or as the process takes them (`None`).
    dir: Option<&'a Dir>,
    /// The folders made, outermost first.
    made: Vec<PathBuf>,
}

impl NewFolders<'_> {
    /// None made.
    pub(crate) fn none() -> Self {
        NewFolders {
            dir: None,
            made: Vec::new(),
        }
    }

    /// The operation succeeded: the folders stay.
    pub fn keep(mut self) {
        self.made.clear();
    }
}

impl Drop for NewFolders<'_> {
    fn drop(&mut self) {
        for folder in self.made.iter().rev() {
            let removed = match self.dir {
                None => std::fs::remove_dir(folder),
                Some(dir) => dir.remove_dir(folder),
            };
            if removed.is_err() {
                // No longer empty (someone else put something there meanwhile), or gone: its
                // parents are not ours to judge either.
                break;
            }
        }
    }
}

/// Creates the folder `path` (beneath `dir`, or as the process takes it) and whichever of its
/// parents are missing, one at a time, and returns those it made. A file in the way is
/// `NotADirectory`, found before anything is made; a failure half way removes what was made.
pub(crate) fn make_dirs<'a>(dir: Option<&'a Dir>, path: &Path) -> io::Result<NewFolders<'a>> {
    let mut missing: Vec<&Path> = Vec::new();
    let mut here = path;
    while !here.as_os_str().is_empty() {
        match metadata(place_in(dir, here)) {
            Ok(meta) if meta.is_dir => break,
            Ok(_) => return Err(io::Error::from(io::ErrorKind::NotADirectory)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                missing.push(here);
                match here.parent() {
                    Some(parent) => here = parent,
                    None => break,
                }
            }
            Err(e) => return Err(e),
        }
    }
    let mut made = NewFolders {
        dir,
        made: Vec::with_capacity(missing.len()),
    };
    for folder in missing.into_iter().rev() {
        let created = match dir {
            None => std::fs::create_dir(folder),
            Some(d) => d.create_dir(folder),
        };
        match created {
            Ok(()) => made.made.push(folder.to_path_buf()),
            // Made by someone else meanwhile: theirs, and there.
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && is_dir(place_in(dir, folder)) => {
            }
            // `made` goes with the error, and with it the folders made so far.
            Err(e) => return Err(e),
        }
    }
    Ok(made)
}

/// `path` beneath `dir`, or as the process takes it.
fn place_in<'a>(dir: Option<&'a Dir>, path: &'a Path) -> Place<'a> {
    match dir {
        None => Place::Ambient(path),
        Some(dir) => Place::Beneath(dir, path),
    }
}

/// Creates a symbolic link at `place` whose content is `text` (never followed here: the link is
/// made as written, pointing wherever it pointed before, as undo restores it). An existing entry
/// there is `AlreadyExists`.
pub fn symlink(place: Place<'_>, text: &Path) -> io::Result<()> {
    let (dir, name) = parent_and_name(place)?;
    rustix::fs::symlinkat(text, &dir, name.as_os_str())?;
    Ok(())
}

/// What the symbolic link at `place` holds, as written in it.
pub fn read_link(place: Place<'_>) -> io::Result<PathBuf> {
    use std::os::unix::ffi::OsStringExt;
    let (dir, name) = parent_and_name(place)?;
    let text = rustix::fs::readlinkat(&dir, name.as_os_str(), Vec::new())?;
    Ok(PathBuf::from(OsString::from_vec(text.into_bytes())))
}

/// Sets the modification time of the entry at `place` itself (a link is not followed).
pub fn set_modified(place: Place<'_>, mtime: (i64, i64)) -> io::Result<()> {
    use rustix::fs::{AtFlags, Timespec, Timestamps, UTIME_OMIT};
    let (dir, name) = parent_and_name(place)?;
    let times = Timestamps {
        last_access: Timespec {
            tv_sec: 0,
            tv_nsec: UTIME_OMIT,
        },
        last_modification: Timespec {
            tv_sec: mtime.0,
            tv_nsec: mtime.1 as _,
        },
    };
    rustix::fs::utimensat(&dir, name.as_os_str(), &times, AtFlags::SYMLINK_NOFOLLOW)?;
    Ok(())
}

/// Removes what is at `place`: a file or link (the link itself), an empty directory, or with
/// `recursive` a whole tree. Returns `false` when nothing was there.
pub fn remove(place: Place<'_>, recursive: bool) -> io::Result<bool> {
    let meta = match symlink_metadata(place) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(e),
    };
    match place {
        Place::Ambient(p) if meta.is_dir && recursive => std::fs::remove_dir_all(p)?,
        Place::Ambient(p) if meta.is_dir => std::fs::remove_dir(p)?,
        Place::Ambient(p) => std::fs::remove_file(p)?,
        Place::Beneath(dir, rel) if meta.is_dir && recursive => {
            dir.remove_dir_all(Place::rel(rel))?
        }
        Place::Beneath(dir, rel) if meta.is_dir => dir.remove_dir(Place::rel(rel))?,
        Place::Beneath(dir, rel) => dir.remove_file(Place::rel(rel))?,
    }
    Ok(true)
}

/// Removes the folder at `place` and everything in it, except what `spare` names: each entry's
/// path below the folder is asked before the entry goes, every folder is opened from its
/// parent's handle, one component at a time, without following a link, and a folder goes
/// (`rmdir`) only once empty. So an entry moved into the tree while it is being removed is
/// asked about by the name it has there, and nothing is removed that the question was not
/// asked of. Returns `None` when the whole tree went, else the first entry spared (its path
/// below the folder): the removal stops there, the entries removed before it are gone, the
/// entry and the folders holding it stay.
pub fn remove_tree_sparing(
    place: Place<'_>,
    spare: &dyn Fn(&Path) -> bool,
) -> io::Result<Option<PathBuf>> {
    let (parent, name) = parent_and_name(place)?;
    let dir = open_child_dir(&parent, &name)?;
    if let Some(kept) = empty_sparing(&dir, Path::new(""), spare)? {
        return Ok(Some(kept));
    }
    parent.remove_dir(&name)?;
    Ok(None)
}

/// Opens the folder `name` (one component) of `parent`, a link not followed.
fn open_child_dir(parent: &Dir, name: &std::ffi::OsStr) -> io::Result<Dir> {
    use rustix::fs::{Mode, OFlags};
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let fd = rustix::fs::openat(parent, name, flags, Mode::empty())?;
    Ok(Dir::from_std_file(std::fs::File::from(fd)))
}

/// Removes everything in `dir` (at `below` under the tree being removed) that `spare` does not
/// name; the first entry spared, if any (see [`remove_tree_sparing`]).
fn empty_sparing(
    dir: &Dir,
    below: &Path,
    spare: &dyn Fn(&Path) -> bool,
) -> io::Result<Option<PathBuf>> {
    let mut listed = Vec::new();
    for entry in dir.entries()? {
        let entry = entry?;
        listed.push((entry.file_name(), entry.file_type()?.is_dir()));
    }
    for (name, is_dir) in listed {
        let path = below.join(&name);
        if spare(&path) {
            return Ok(Some(path));
        }
        if is_dir {
            let sub = open_child_dir(dir, &name)?;
            if let Some(kept) = empty_sparing(&sub, &path, spare)? {
                return Ok(Some(kept));
            }
            dir.remove_dir(&name)?;
        } else {
            // A name is unlinked, whatever it holds now: the name was asked about.
            dir.remove_file(&name)?;
        }
    }
    Ok(None)
}

/// Renames `from` to `to` (both beneath roots, or both ambient). With `replace` false an
/// existing destination fails with `AlreadyExists`, decided atomically by the kernel
/// (`RENAME_NOREPLACE`). Both parents are opened first and the rename names single entries in
/// them, so nothing swapped into the paths meanwhile can redirect it.
pub fn rename(from: Place<'_>, to: Place<'_>, replace: bool) -> io::Result<()> {
    let (from_dir, from_name) = parent_and_name(from)?;
    let (to_dir, to_name) = parent_and_name(to)?;
    if replace {
        // The file a move replaces is changed as much as one overwritten: it takes the same
        // permission. (A link there is replaced itself, not what it points to; a folder is
        // the folder's parent's business, as the kernel has it.)
        let nofollow = rustix::fs::AtFlags::SYMLINK_NOFOLLOW;
        if let Ok(st) = rustix::fs::statat(&to_dir, to_name.as_os_str(), nofollow) {
            let meta = Meta::from(st);
            if meta.is_file {
                check_may_write(&to_dir, Path::new(&to_name), &meta, "the destination")?;
            }
        }
    }
    super::super::platform::rename(&from_dir, &from_name, &to_dir, &to_name, replace)
}

/// The opened parent directory of `place` and its last component.
pub(super) fn parent_and_name(place: Place<'_>) -> io::Result<(Dir, OsString)> {
    let path = match place {
        Place::Ambient(p) | Place::Beneath(_, p) => p,
    };
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "the path names no entry"))?
        .to_os_string();
    let parent = path.parent().unwrap_or(Path::new(""));
    let dir = match place {
        Place::Ambient(_) => {
            let parent = if parent.as_os_str().is_empty() {
                Path::new(".")
            } else {
                parent
            };
            Dir::open_ambient_dir(parent, ambient_authority())?
        }
        Place::Beneath(dir, _) => dir.open_dir(Place::rel(parent))?,
    };
    Ok((dir, name))
}

/// Sets the exact permission bits of what is at `place` (following links).
pub fn set_mode(place: Place<'_>, mode: u32) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    match place {
        Place::Ambient(p) => std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)),
        Place::Beneath(_, _) => {
            let file = super::read::open_by_path(place, super::read::OpenFor::Read)?;
            file.set_permissions(std::fs::Permissions::from_mode(mode))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_folders_go_innermost_first_and_only_while_empty() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("kept")).unwrap();
        let made = make_dirs(None, &dir.path().join("kept/a/b/c")).unwrap();
        assert!(dir.path().join("kept/a/b/c").is_dir());
        std::fs::write(dir.path().join("kept/a/mine.txt"), "x").unwrap();
        drop(made);
        assert!(!dir.path().join("kept/a/b").exists(), "b and c go");
        assert!(
            dir.path().join("kept/a/mine.txt").exists(),
            "a holds a file and stays"
        );
        let made = make_dirs(None, &dir.path().join("kept/x/y")).unwrap();
        made.keep();
        assert!(dir.path().join("kept/x/y").is_dir());
        std::fs::write(dir.path().join("file"), "x").unwrap();
        let err = make_dirs(None, &dir.path().join("file/z")).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::NotADirectory);
    }

    #[test]
    fn a_tree_removed_sparing_keeps_what_is_spared_and_the_folders_holding_it() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path();
        for rel in ["t/a/b/.env", "t/a/x.txt", "t/c/y.txt", "t/z.txt", "u/w.txt"] {
            std::fs::create_dir_all(base.join(rel).parent().unwrap()).unwrap();
            std::fs::write(base.join(rel), "x").unwrap();
        }
        std::os::unix::fs::symlink("../u", base.join("t/link")).unwrap();
        let root = Dir::open_ambient_dir(base, ambient_authority()).unwrap();
        let spare = |p: &Path| p.file_name().is_some_and(|n| n == ".env");
        let kept = remove_tree_sparing(Place::Beneath(&root, Path::new("t")), &spare).unwrap();
        assert_eq!(kept.as_deref(), Some(Path::new("a/b/.env")));
        assert!(base.join("t/a/b/.env").exists(), "the spared entry stays");
        assert!(
            base.join("u/w.txt").exists(),
            "a link is removed, not followed"
        );
        // Nothing spared: the whole tree goes, a link in it as a link.
        std::fs::remove_file(base.join("t/a/b/.env")).unwrap();
        std::os::unix::fs::symlink("../u", base.join("t/a/link")).unwrap();
        let kept = remove_tree_sparing(Place::Beneath(&root, Path::new("t")), &spare).unwrap();
        assert_eq!(kept, None);
        assert!(!base.join("t").exists());
        assert!(base.join("u/w.txt").exists());
    }

    #[test]
    fn names_over_name_max_and_paths_over_path_max_are_refused() {
        assert!(check_lengths(Path::new(&format!("/tmp/{}", "n".repeat(255)))).is_ok());
        let err = check_lengths(Path::new(&format!("/tmp/{}/x", "n".repeat(256)))).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidFilename);
        assert!(err.to_string().contains("256 bytes long"), "{err}");
        // Folders of 100 bytes with their slash, one past the kernel's limit.
        let deep: String = (0..=PATH_MAX / 100)
            .map(|_| format!("/{}", "d".repeat(99)))
            .collect();
        let err = check_lengths(Path::new(&deep)).unwrap_err();
        let long = format!("{} bytes long", deep.len());
        assert!(err.to_string().contains(&long), "{err}");
        assert!(check_lengths(Path::new(&deep[..PATH_MAX - 1])).is_ok());
    }
}
