//! Directories held open during a walk: each child is listed and opened relative to its
//! parent's handle, one path component at a time, instead of being resolved again from the
//! root. A walk of a deep tree then costs what its entries cost, not its depth squared. A child
//! directory is opened without following a link, so a handle never leads outside the directory
//! it was opened from.
//!
//! **What a walk passes over.** A walk that cannot list a folder, meets a symbolic link that
//! leads round in a loop, leaves out a non-accessible path or does not read an ignore file
//! says so: it counts each in its [`Skips`], and the answer closes with the count
//! ([`Skipped::describe`]). Only what already failed, or was already filtered, is counted; a
//! link costs a call or two to tell whether it loops, a file or folder nothing more.

use std::ffi::OsStr;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use cap_std::ambient_authority;
use cap_std::fs::Dir;
use rustix::io::Errno;

use super::fs::{self, DirEntry, Place};
use super::{Access, Resolved};

/// What a directory entry is, for a walk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WalkKind {
    /// A regular file.
    File,
    /// A directory.
    Dir,
    /// A symbolic link (never followed by a walk).
    Link,
    /// A FIFO, socket or device.
    Other,
}

/// A directory open for a walk.
#[derive(Debug)]
pub struct OpenDir {
    dir: Dir,
}

/// The folder handles one walk may hold at once, its files handed on but not yet searched
/// included: at most `most`, and at most an eighth of the descriptors the process may open
/// (at least 4), so that a tree of many one-file folders, or a low `ulimit -n`, cannot run the
/// process out of descriptors. Past the cap a folder's files are opened by path.
#[derive(Clone, Debug)]
pub struct HandleBudget {
    open: Arc<AtomicUsize>,
    cap: usize,
}

impl HandleBudget {
    /// A budget of at most `most` handles, less under a low descriptor limit.
    pub fn new(most: usize) -> HandleBudget {
        let limit = rustix::process::getrlimit(rustix::process::Resource::Nofile).current;
        let share = limit.map_or(usize::MAX, |n| usize::try_from(n / 8).unwrap_or(usize::MAX));
        HandleBudget {
            open: Arc::default(),
            cap: most.min(share.max(4)),
        }
    }

    /// `dir`, held and counted, while fewer than the cap are held; else `dir` back.
    pub fn hold(&self, dir: OpenDir) -> Result<HeldDir, OpenDir> {
        if self.open.fetch_add(1, Ordering::Relaxed) < self.cap {
            Ok(HeldDir {
                dir,
                open: Arc::clone(&self.open),
            })
        } else {
            self.open.fetch_sub(1, Ordering::Relaxed);
            Err(dir)
        }
    }
}

/// A folder handle counted against its walk's [`HandleBudget`] until it is dropped.
#[derive(Debug)]
pub struct HeldDir {
    dir: OpenDir,
    open: Arc<AtomicUsize>,
}

impl std::ops::Deref for HeldDir {
    type Target = OpenDir;

    fn deref(&self) -> &OpenDir {
        &self.dir
    }
}

impl Drop for HeldDir {
    fn drop(&mut self) {
        self.open.fetch_sub(1, Ordering::Relaxed);
    }
}

/// What one walk passed over without showing it, counted as it goes (by the walk's threads
/// together): folders it could not list, files it could not open, symbolic links that lead
/// round in a loop, paths matching the non-accessible globs, and ignore files it did not read.
/// Links are never followed by a walk, so only those that loop are counted.
#[derive(Debug, Default)]
pub struct Skips {
    unreadable_folders: AtomicU64,
    unreadable_files: AtomicU64,
    symlink_loops: AtomicU64,
    non_accessible: AtomicU64,
    ignore_files: Mutex<Vec<NotRead>>,
}

/// An ignore file a walk did not read, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotRead {
    /// The ignore file, as the walk spells it.
    pub path: PathBuf,
    /// Why it was not read ("it leads outside the allowed roots").
    pub why: String,
}

/// What a walk passed over (see [`Skips`]), once it is done.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Skipped {
    /// Folders that could not be opened or listed (permission denied, most often).
    pub unreadable_folders: u64,
    /// Files that could not be opened.
    pub unreadable_files: u64,
    /// Symbolic links that lead round in a loop.
    pub symlink_loops: u64,
    /// Files and folders matching the non-accessible globs.
    pub non_accessible: u64,
    /// Ignore files not read, in the order met: each as shown, and why it was not read.
    pub ignore_files: Vec<(String, String)>,
}

impl Skips {
    /// A folder could not be opened or listed because of `e`. One that vanished or became
    /// something else meanwhile (not found, not a folder) was not skipped: it is no longer
    /// there.
    pub fn folder_failed(&self, e: &io::Error) {
        if !matches!(
            e.kind(),
            io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
        ) {
            self.unreadable_folders.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// A file could not be opened because of `e` (one that vanished meanwhile is not
    /// counted).
    pub fn file_failed(&self, e: &io::Error) {
        if e.kind() != io::ErrorKind::NotFound {
            self.unreadable_files.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// An error an `ignore` walk reported in place of an entry: a folder it could not list.
    pub fn walk_failed(&self, e: &ignore::Error) {
        match e.io_error() {
            Some(io) => self.folder_failed(io),
            None if matches!(e, ignore::Error::Loop { .. }) => {
                self.symlink_loops.fetch_add(1, Ordering::Relaxed);
            }
            None => {}
        }
    }

    /// A symbolic link that leads round in a loop was passed over.
    pub fn symlink_loop(&self) {
        self.symlink_loops.fetch_add(1, Ordering::Relaxed);
    }

    /// A path matching the non-accessible globs was left out.
    pub fn non_accessible(&self) {
        self.non_accessible.fetch_add(1, Ordering::Relaxed);
    }

    /// The ignore file at `path` was not read, for `why`; said once however often it is met.
    pub fn ignore_file_not_read(&self, path: &Path, why: &str) {
        if let Ok(mut files) = self.ignore_files.lock()
            && !files.iter().any(|f| f.path == path)
        {
            files.push(NotRead {
                path: path.to_path_buf(),
                why: why.to_string(),
            });
        }
    }

    /// What was passed over so far, ignore files spelled by `show`, as the profile shows
    /// paths.
    pub fn skipped(&self, show: impl Fn(&Path) -> String) -> Skipped {
        Skipped {
            unreadable_folders: self.unreadable_folders.load(Ordering::Relaxed),
            unreadable_files: self.unreadable_files.load(Ordering::Relaxed),
            symlink_loops: self.symlink_loops.load(Ordering::Relaxed),
            non_accessible: self.non_accessible.load(Ordering::Relaxed),
            ignore_files: self
                .ignore_files
                .lock()
                .map(|files| {
                    files
                        .iter()
                        .map(|f| (show(&f.path), f.why.clone()))
                        .collect()
                })
                .unwrap_or_default(),
        }
    }
}

impl Skipped {
    /// Whether nothing was passed over.
    pub fn is_empty(&self) -> bool {
        *self == Skipped::default()
    }

    /// What was passed over, in words, for a profile to put in its closing line: `2 unreadable
    /// folders, 1 symlink loop; ignore file sub/.gitignore not read (it leads outside the
    /// allowed roots)`; `None` when nothing was.
    pub fn describe(&self) -> Option<String> {
        let counted = [
            (
                self.unreadable_folders,
                "unreadable folder",
                "unreadable folders",
            ),
            (self.unreadable_files, "unreadable file", "unreadable files"),
            (self.symlink_loops, "symlink loop", "symlink loops"),
            (
                self.non_accessible,
                "path matching non_accessible_globs",
                "paths matching non_accessible_globs",
            ),
        ];
        let mut parts: Vec<String> = counted
            .iter()
            .filter(|(n, _, _)| *n > 0)
            .map(|(n, one, many)| format!("{n} {}", if *n == 1 { one } else { many }))
            .collect();
        let mut text = parts.join(", ");
        parts = self
            .ignore_files
            .iter()
            .map(|(path, why)| format!("ignore file {path} not read ({why})"))
            .collect();
        if !parts.is_empty() {
            if !text.is_empty() {
                text.push_str("; ");
            }
            text.push_str(&parts.join("; "));
        }
        (!text.is_empty()).then_some(text)
    }
}

/// Runs `open` again while it fails for want of a file descriptor (`EMFILE`, `ENFILE`), for up
/// to about a second: the walk's workers, or other calls, close theirs meanwhile. A file or
/// folder a walk cannot open is left out of its answer, so a passing shortage must not be
/// taken for an unreadable one.
pub(super) fn patiently<T>(mut open: impl FnMut() -> io::Result<T>) -> io::Result<T> {
    let mut pause = Duration::from_millis(1);
    let mut waited = Duration::ZERO;
    loop {
        match open() {
            Err(e)
                if matches!(Errno::from_io_error(&e), Some(Errno::MFILE | Errno::NFILE))
                    && waited < Duration::from_secs(1) =>
            {
                std::thread::sleep(pause);
                waited += pause;
                pause = (pause * 2).min(Duration::from_millis(50));
            }
            other => return other,
        }
    }
}

impl Access {
    /// Opens the directory `target` (resolved as every path is) for a walk.
    pub fn open_dir(&self, target: &Resolved) -> io::Result<OpenDir> {
        let dir = patiently(|| match self.place(target) {
            Place::Ambient(path) => Dir::open_ambient_dir(path, ambient_authority()),
            Place::Beneath(root, rel) if rel.as_os_str().is_empty() => root.open_dir("."),
            Place::Beneath(root, rel) => root.open_dir(rel),
        })?;
        Ok(OpenDir { dir })
    }

    /// Opens the directory at `path`, found by a walk of this access, as
    /// [`Access::open_walked`] opens a walked file.
    pub fn open_walked_dir(&self, path: &Path) -> io::Result<OpenDir> {
        Ok(OpenDir {
            dir: patiently(|| fs::open_dir(self.place_of(path)))?,
        })
    }

    /// Opens the walked file `name` of `dir` (a walk has left out non-accessible paths), and
    /// gives its length when that had to be asked anyway: a confined workspace checks each
    /// file's links, an unconfined one asks nothing more.
    pub fn open_walked_at(&self, dir: &OpenDir, name: &OsStr) -> io::Result<(File, Option<u64>)> {
        let file = dir.open_file(name)?;
        if self.jail.is_none() {
            return Ok((file, None));
        }
        let meta = fs::Meta::from(rustix::fs::fstat(&file)?);
        self.check_links(&meta)?;
        Ok((file, Some(meta.len)))
    }
}

impl Access {
    /// Whether the symbolic link at `path`, found by a walk, leads round in a loop: following
    /// it fails for too many links (`ELOOP`), or it leads to the folder that holds it or one
    /// above, which a walk that followed it would enter again and again. A link that leads
    /// outside the roots of a confined workspace is followed no further than the jail allows
    /// and is not a loop. Asked only of links (a call or two each).
    pub fn is_link_loop(&self, path: &Path) -> bool {
        let Some(folder) = path.parent() else {
            return false;
        };
        let looped = |e: &io::Error| e.raw_os_error() == Some(Errno::LOOP.raw_os_error());
        match &self.jail {
            // Followed beneath its root first: most links lead to a file, which settles it.
            Some(jail) => match fs::metadata(self.place_of(path)) {
                Err(e) if looped(&e) => true,
                Ok(meta) if !meta.is_dir => false,
                _ => match jail.resolve(path, folder, &path.to_string_lossy()) {
                    // Walked paths are canonical under a jail: the target holds the link when
                    // it is one of the link's folders.
                    Ok(inside) if inside.exists => {
                        folder.starts_with(jail.roots()[inside.root].path.join(&inside.rel))
                    }
                    _ => false,
                },
            },
            None => match std::fs::metadata(path) {
                Err(e) => looped(&e),
                Ok(meta) if meta.is_dir() => {
                    match (std::fs::canonicalize(path), std::fs::canonicalize(folder)) {
                        (Ok(target), Ok(folder)) => folder.starts_with(target),
                        _ => false,
                    }
                }
                Ok(_) => false,
            },
        }
    }
}

impl OpenDir {
    /// The directory's entries, in the order the filesystem gives them, as
    /// [`Access::read_dir`] gives them.
    pub fn entries(&self) -> io::Result<Vec<DirEntry>> {
        fs::read_dir(Place::Beneath(&self.dir, Path::new("")))
    }

    /// The names of the directory's entries and what each is, as the listing itself says
    /// (no call per entry), in the order the filesystem gives them.
    pub fn kinds(&self) -> io::Result<Vec<(std::ffi::OsString, WalkKind)>> {
        use rustix::fs::{AtFlags, FileType};
        use std::os::unix::ffi::OsStrExt as _;
        let mut out = Vec::new();
        // The listing reads its own descriptor of the folder, so this handle's position is
        // never moved; one open, no flag query (a walk lists thousands of folders).
        let flags = rustix::fs::OFlags::RDONLY
            | rustix::fs::OFlags::DIRECTORY
            | rustix::fs::OFlags::CLOEXEC;
        let own = rustix::fs::openat(&self.dir, c".", flags, rustix::fs::Mode::empty())
            .map_err(io::Error::from)?;
        let mut listing = rustix::fs::Dir::new(own).map_err(io::Error::from)?;
        while let Some(entry) = listing.read() {
            let entry = entry.map_err(io::Error::from)?;
            let name = entry.file_name().to_bytes();
            if name == b"." || name == b".." {
                continue;
            }
            let mut kind = entry.file_type();
            // Some filesystems leave the kind out of the listing: the entry itself says it.
            if kind == FileType::Unknown {
                kind = rustix::fs::statat(&self.dir, entry.file_name(), AtFlags::SYMLINK_NOFOLLOW)
                    .map(|st| FileType::from_raw_mode(st.st_mode))
                    .map_err(io::Error::from)?;
            }
            let kind = match kind {
                FileType::RegularFile => WalkKind::File,
                FileType::Directory => WalkKind::Dir,
                FileType::Symlink => WalkKind::Link,
                _ => WalkKind::Other,
            };
            out.push((OsStr::from_bytes(name).to_os_string(), kind));
        }
        Ok(out)
    }

    /// [`OpenDir::kinds`] in byte order of the names, so that a depth-first walk is in path
    /// order.
    pub fn sorted_kinds(&self) -> io::Result<Vec<(std::ffi::OsString, WalkKind)>> {
        let mut entries = self.kinds()?;
        entries.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        Ok(entries)
    }

    /// The directory's own metadata.
    pub fn meta(&self) -> io::Result<fs::Meta> {
        Ok(fs::Meta::from(rustix::fs::fstat(&self.dir)?))
    }

    /// The metadata of `rel` (a path below this directory; a final link is followed only
    /// beneath it).
    pub fn entry_meta(&self, rel: &OsStr) -> io::Result<fs::Meta> {
        fs::entry_metadata(&self.dir, rel)
    }

    /// Opens the child directory `name` (one component); a link is not followed.
    pub fn subdir(&self, name: &OsStr) -> io::Result<OpenDir> {
        use rustix::fs::{Mode, OFlags};
        let name = one_component(name)?;
        // One component opened from this handle without following a link stays beneath it
        // (a listing never names `..`): one `openat`, readable at once.
        let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let fd = patiently(|| {
            rustix::fs::openat(&self.dir, name, flags, Mode::empty()).map_err(io::Error::from)
        })?;
        Ok(OpenDir {
            dir: Dir::from_std_file(File::from(fd)),
        })
    }

    /// Opens the file `name` (one component) found in this directory for reading. A link is
    /// not followed, and a FIFO put in the file's place does not block the open.
    pub fn open_file(&self, name: &OsStr) -> io::Result<File> {
        use rustix::fs::{Mode, OFlags};
        let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NOCTTY | OFlags::NONBLOCK;
        let name = one_component(name)?;
        let fd = patiently(|| {
            rustix::fs::openat(&self.dir, name, flags | OFlags::CLOEXEC, Mode::empty())
                .map_err(io::Error::from)
        })?;
        Ok(File::from(fd))
    }
}

/// `name` as a path of exactly one normal component.
fn one_component(name: &OsStr) -> io::Result<&Path> {
    let path = Path::new(name);
    let mut parts = path.components();
    match (parts.next(), parts.next()) {
        (Some(std::path::Component::Normal(_)), None) => Ok(path),
        _ => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not the name of a directory entry",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_open_short_of_descriptors_is_tried_again_and_other_failures_are_not() {
        let short = || io::Error::from_raw_os_error(Errno::MFILE.raw_os_error());
        let mut tries = 0;
        let opened = patiently(|| {
            tries += 1;
            if tries < 4 { Err(short()) } else { Ok(tries) }
        });
        assert_eq!(opened.unwrap(), 4);

        let mut tries = 0;
        let missing = patiently(|| -> io::Result<()> {
            tries += 1;
            Err(io::Error::from(io::ErrorKind::NotFound))
        });
        assert_eq!(missing.unwrap_err().kind(), io::ErrorKind::NotFound);
        assert_eq!(tries, 1, "a missing file is not waited for");

        let started = std::time::Instant::now();
        let never = patiently(|| -> io::Result<()> { Err(short()) });
        assert_eq!(
            never.unwrap_err().raw_os_error(),
            Some(Errno::MFILE.raw_os_error())
        );
        assert!(
            started.elapsed() >= Duration::from_secs(1),
            "gives up after a second"
        );
    }

    #[test]
    fn what_a_walk_passed_over_is_said_in_counts_and_each_ignore_file_once() {
        let skips = Skips::default();
        assert_eq!(skips.skipped(|p| p.display().to_string()).describe(), None);
        skips.folder_failed(&io::Error::from(io::ErrorKind::PermissionDenied));
        skips.folder_failed(&io::Error::from(io::ErrorKind::NotFound));
        skips.symlink_loop();
        skips.symlink_loop();
        skips.non_accessible();
        skips.file_failed(&io::Error::from(io::ErrorKind::PermissionDenied));
        for _ in 0..3 {
            skips.ignore_file_not_read(Path::new("/r/a/.gitignore"), "it leads outside");
        }
        let skipped = skips.skipped(|p| p.strip_prefix("/r").unwrap().display().to_string());
        assert_eq!(
            skipped.describe().unwrap(),
            "1 unreadable folder, 1 unreadable file, 2 symlink loops, 1 path matching \
             non_accessible_globs; ignore file a/.gitignore not read (it leads outside)"
        );
        let only_files = Skipped {
            ignore_files: vec![("x".into(), "why".into())],
            ..Skipped::default()
        };
        assert_eq!(
            only_files.describe().unwrap(),
            "ignore file x not read (why)"
        );
    }

    #[test]
    fn children_open_relative_to_their_parent_and_links_are_not_followed() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(tmp.path().join("a/b")).unwrap();
        std::fs::write(tmp.path().join("a/b/f.txt"), "x").unwrap();
        std::os::unix::fs::symlink("/", tmp.path().join("a/up")).unwrap();
        let access = Access::new(tmp.path()).unwrap();
        let a = access.open_dir(&access.resolve("a").unwrap()).unwrap();
        let mut names: Vec<_> = a.entries().unwrap().into_iter().map(|e| e.name).collect();
        names.sort();
        assert_eq!(names, ["b", "up"]);
        let b = a.subdir(OsStr::new("b")).unwrap();
        assert!(b.open_file(OsStr::new("f.txt")).is_ok());
        assert!(
            a.subdir(OsStr::new("up")).is_err(),
            "a link is not followed"
        );
        assert!(a.subdir(OsStr::new("b/..")).is_err());
        assert!(a.open_file(OsStr::new("..")).is_err());
    }
}
