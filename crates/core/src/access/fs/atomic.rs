//! Writes: atomic replacement (temp file in the same directory, fsync, rename, directory
//! fsync, mode and owner kept), appends, and what the writes of the call on this thread did.

use std::ffi::OsString;
use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use cap_std::ambient_authority;
use cap_std::fs::{Dir, OpenOptions, OpenOptionsExt as _};

use super::super::permission::check_may_write;
use super::super::platform;
use super::Place;
use super::folders::{NewFolders, make_dirs, parent_and_name};
use super::lock::{Held, as_expected, lock_current};
use super::meta::{Meta, Stamp, check_regular, check_writable, metadata};

/// The longest chain of symbolic links a write follows before giving up, as the kernel does.
const MAX_LINK_HOPS: usize = 40;

/// Appends `bytes` to the regular file at `place` (created when missing) and syncs it; returns
/// the length it had before. FIFOs and devices are refused before they are opened.
pub fn append(place: Place<'_>, bytes: &[u8]) -> io::Result<u64> {
    match metadata(place) {
        Ok(meta) => {
            check_regular(&meta)?;
            check_writable(&meta, "the file")?;
            match place {
                Place::Ambient(p) => check_may_write(rustix::fs::CWD, p, &meta, "the file")?,
                Place::Beneath(dir, rel) => {
                    check_may_write(dir, Place::rel(rel), &meta, "the file")?;
                }
            }
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            let (parent, _) = parent_and_name(place)?;
            check_writable(&Meta::from(parent.dir_metadata()?), "its folder")?;
        }
        Err(e) => return Err(e),
    }
    let mut file = super::read::open_by_path(place, super::read::OpenFor::Append)?;
    let meta = Meta::from(file.metadata()?);
    check_regular(&meta)?;
    file.write_all(bytes)?;
    platform::sync(&file)?;
    Ok(meta.len)
}

/// What an atomic write replaced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Replaced {
    /// The previous file's length in bytes, or `None` when the file was created.
    pub previous_len: Option<u64>,
}

/// How a write treats what is already there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WriteOptions<'a> {
    /// Create missing parent directories. By default `true`.
    pub create_parents: bool,
    /// Permission bits of a created file (the umask applies). By default `0o666`.
    pub new_mode: u32,
    /// Refuse (with `AlreadyExists`) when the file exists. By default `false`.
    pub create_new: bool,
    /// Give the file exactly these permission bits, new or not (no umask). By default `None`:
    /// an existing file keeps its bits and a new one gets `new_mode` less the umask.
    pub exact_mode: Option<u32>,
    /// The content the new one was made from (an edit's input). The write happens only while
    /// the file still holds exactly these bytes; otherwise it fails with a [`Conflict`] and
    /// nothing is written. By default `None`: the file is replaced whatever it holds.
    pub expect: Option<&'a [u8]>,
    /// The stamp of the file when `expect` was read from it. An unchanged stamp proves the
    /// content unchanged without reading it again (large files); a changed one still compares
    /// by content, so a file only touched is no conflict.
    pub expect_stamp: Option<Stamp>,
    /// The length of the new content when known beforehand: the space is reserved before the
    /// write, which also spares ext4 a forced writeback when the file is renamed into place.
    pub size_hint: Option<u64>,
}

impl Default for WriteOptions<'_> {
    fn default() -> Self {
        WriteOptions {
            create_parents: true,
            new_mode: 0o666,
            create_new: false,
            exact_mode: None,
            expect: None,
            expect_stamp: None,
            size_hint: None,
        }
    }
}

impl<'a> WriteOptions<'a> {
    /// These options, writing only while the file still holds `original`.
    pub fn expecting(self, original: &'a [u8]) -> Self {
        WriteOptions {
            expect: Some(original),
            ..self
        }
    }

    /// These options, writing only while the file still holds `original`, read when the file
    /// had the metadata `read`.
    pub fn expecting_read(self, original: &'a [u8], read: &Meta) -> Self {
        WriteOptions {
            expect: Some(original),
            expect_stamp: Some(read.stamp),
            ..self
        }
    }
}

/// The error payload of a write refused because the file no longer holds the content the new
/// one was made from: another writer changed it after it was read. Nothing was written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Conflict;

impl std::fmt::Display for Conflict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the file changed on disk after it was read")
    }
}

impl std::error::Error for Conflict {}

impl Conflict {
    /// Whether `err` is a refused write of this kind.
    pub fn is(err: &io::Error) -> bool {
        err.get_ref().is_some_and(|e| e.is::<Conflict>())
    }
}

thread_local! {
    /// Writes done by this thread since [`begin_call`], and whether one met a conflict before
    /// any other write landed (so the whole call can safely run again).
    static CALL_WRITES: std::cell::Cell<(u32, bool)> = const { std::cell::Cell::new((0, false)) };
}

thread_local! {
    /// The last replacement made on this thread since [`begin_call`]: the stamp of the file it
    /// replaced (`None` when it created one) and the stamp of the new file once in place.
    static LAST_REPLACED: std::cell::Cell<Option<(Option<Stamp>, Stamp)>> =
        const { std::cell::Cell::new(None) };
}

/// Starts counting the writes of a call made on this thread.
pub(crate) fn begin_call() {
    CALL_WRITES.with(|c| c.set((0, false)));
    super::super::hints::forget();
    LAST_REPLACED.with(|c| c.set(None));
}

/// The last replacement made on this thread (see [`write_atomic`]), taken: the stamp of the
/// file it replaced, `None` when it created the file, and the stamp of the new file just after
/// it got its name. A session compares them with what it last saw, so an edit made from that
/// very file moves its record on (`crate::session`).
pub fn take_last_replaced() -> Option<(Option<Stamp>, Stamp)> {
    LAST_REPLACED.with(std::cell::Cell::take)
}

/// Whether the call begun on this thread failed on a conflict before writing anything, so
/// running it again from the start is safe.
pub(crate) fn call_conflicted_cleanly() -> bool {
    CALL_WRITES.with(|c| c.get().1)
}

pub(super) fn note_write(conflicted: bool) {
    CALL_WRITES.with(|c| {
        let (writes, clean) = c.get();
        if conflicted {
            c.set((writes, clean || writes == 0));
        } else {
            c.set((writes.saturating_add(1), clean));
        }
    });
}

/// Writes `bytes` as the whole content of `place`, atomically: a reader sees the old file or
/// the new one, never a mix, and a failure leaves the old file untouched.
///
/// Ambiently, a symbolic link at the last component is followed (the link stays, its target
/// is replaced); beneath a root the path is already canonical. An existing file keeps its
/// permission bits and, where the process may set it, its owner.
pub fn write_atomic(place: Place<'_>, bytes: &[u8], options: WriteOptions) -> io::Result<Replaced> {
    write_atomic_parts(place, &[bytes], options)
}

/// [`write_atomic`] with the content given as consecutive `parts` (an edit: the text before,
/// the replacement, the text after), written as they are without being joined first.
pub fn write_atomic_parts(
    place: Place<'_>,
    parts: &[&[u8]],
    options: WriteOptions,
) -> io::Result<Replaced> {
    let options = WriteOptions {
        size_hint: Some(parts.iter().map(|p| p.len() as u64).sum()),
        ..options
    };
    write_to(place, Source::Parts(parts), options)
}

/// [`write_atomic`] with the content streamed from `source`.
pub fn write_atomic_from(
    place: Place<'_>,
    source: &mut dyn io::Read,
    options: WriteOptions,
) -> io::Result<Replaced> {
    write_to(place, Source::Reader(source), options)
}

/// Where the new content of a write comes from.
enum Source<'a> {
    /// Read to its end.
    Reader(&'a mut dyn io::Read),
    /// These bytes, one after the other.
    Parts(&'a [&'a [u8]]),
    /// An open file with one range replaced.
    Splice(Splice<'a>),
}

impl Source<'_> {
    fn write_into(self, file: &mut File) -> io::Result<()> {
        match self {
            Source::Reader(reader) => io::copy(reader, file).map(|_| ()),
            Source::Parts(parts) => write_all_parts(file, parts),
            Source::Splice(splice) => splice.write_into(file),
        }
    }
}

/// Writes `parts` one after the other, in as few system calls as the kernel allows (`writev`).
fn write_all_parts(file: &mut File, parts: &[&[u8]]) -> io::Result<()> {
    let mut slices: Vec<io::IoSlice<'_>> = parts
        .iter()
        .filter(|part| !part.is_empty())
        .map(|part| io::IoSlice::new(part))
        .collect();
    let mut rest = &mut slices[..];
    while !rest.is_empty() {
        match file.write_vectored(rest) {
            Ok(0) => return Err(io::Error::from(io::ErrorKind::WriteZero)),
            Ok(n) => io::IoSlice::advance_slices(&mut rest, n),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// A file's content with one range replaced, copied from the open file itself: on Linux the
/// kernel copies the unchanged parts (`copy_file_range`) without them passing through memory,
/// elsewhere a loop does (see `platform`).
pub struct Splice<'a> {
    /// The file the content comes from, as it was read.
    pub from: &'a File,
    /// Its length when read.
    pub len: u64,
    /// The byte range replaced.
    pub cut: std::ops::Range<u64>,
    /// What replaces it.
    pub with: &'a [u8],
}

impl Splice<'_> {
    fn write_into(self, out: &mut File) -> io::Result<()> {
        let head = platform::copy_range(self.from, 0, out, self.cut.start)?;
        out.write_all(self.with)?;
        let tail_len = self.len - self.cut.end;
        let tail = platform::copy_range(self.from, self.cut.end, out, tail_len)?;
        if head != self.cut.start || tail != self.len - self.cut.end {
            // The file shrank under us: its content is not what the edit was made from.
            return Err(io::Error::other(Conflict));
        }
        Ok(())
    }
}

/// [`write_atomic`] with the content of `splice`: the file it was read from with one range
/// replaced. Give [`WriteOptions::expect_stamp`] so the write happens only while the file is
/// unchanged.
pub fn write_atomic_splice(
    place: Place<'_>,
    splice: Splice<'_>,
    options: WriteOptions,
) -> io::Result<Replaced> {
    let options = WriteOptions {
        size_hint: Some(
            splice.len - (splice.cut.end - splice.cut.start) + splice.with.len() as u64,
        ),
        ..options
    };
    write_to(place, Source::Splice(splice), options)
}

fn write_to(place: Place<'_>, source: Source<'_>, options: WriteOptions) -> io::Result<Replaced> {
    // The folders made for the file are removed again if the write then fails.
    let (parent_dir, name, made) = match place {
        Place::Ambient(p) => {
            let target = follow_links(p)?;
            let name = target
                .file_name()
                .ok_or_else(|| io::Error::from(io::ErrorKind::IsADirectory))?
                .to_os_string();
            let parent = match target.parent() {
                Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
                _ => PathBuf::from("."),
            };
            let made = if options.create_parents {
                make_dirs(None, &parent)?
            } else {
                NewFolders::none()
            };
            (
                Dir::open_ambient_dir(&parent, ambient_authority())?,
                name,
                made,
            )
        }
        Place::Beneath(dir, rel) => {
            let name = rel
                .file_name()
                .ok_or_else(|| io::Error::from(io::ErrorKind::IsADirectory))?
                .to_os_string();
            let parent = rel.parent().unwrap_or(Path::new(""));
            let made = if options.create_parents && !parent.as_os_str().is_empty() {
                make_dirs(Some(dir), parent)?
            } else {
                NewFolders::none()
            };
            (dir.open_dir(Place::rel(parent))?, name, made)
        }
    };
    let replaced = replace_in(parent_dir, &name, source, options)?;
    made.keep();
    Ok(replaced)
}

/// The atomic replacement of `name` in the directory `dir`.
fn replace_in(
    folder_dir: Dir,
    name: &OsString,
    source: Source<'_>,
    options: WriteOptions,
) -> io::Result<Replaced> {
    let dir = &folder_dir;
    // Writers of one file take turns: the current file stays locked until its replacement is
    // in place, so an edit compares and replaces with nobody in between.
    let held = lock_current(dir, name)?;
    let existing = match &held {
        Some(held) => {
            if options.create_new {
                return Err(io::Error::from(io::ErrorKind::AlreadyExists));
            }
            check_regular(&held.meta)?;
            check_writable(&held.meta, "the file")?;
            // Replacing never opens the file for writing, so the kernel would not ask.
            check_may_write(dir, Path::new(name), &held.meta, "the file")?;
            Some(held.meta)
        }
        None => None,
    };
    if !as_expected(held.as_ref(), &options)? {
        note_write(true);
        return Err(io::Error::other(Conflict));
    }
    let folder = Meta::from(rustix::fs::fstat(dir)?);
    check_writable(&folder, "its folder")?;
    let mode = options
        .exact_mode
        .or(existing.map(|m| m.mode))
        .unwrap_or(options.new_mode);
    // The new content goes into a file without a name (O_TMPFILE) where the platform's paths
    // and the filesystem have them (see `platform`), so a crash while writing leaves nothing behind; it gets a name only once complete.
    // A file replaced gets its exact mode set below, so it may take the spare made ahead of
    // time in this folder; a new one is created with its mode less the umask.
    let folder_key = (folder.stamp.dev, folder.stamp.ino);
    let replacing = options.exact_mode.is_some() || existing.is_some();
    let spare = replacing
        .then(|| super::super::aside::take_spare(folder_key))
        .flatten();
    // What the spare, if taken, already has: its mode, owner and group, and reserved space.
    let made = spare.as_ref().map(|s| (s.mode, (s.uid, s.gid), s.reserved));
    let (temp, mut std_file) = match spare {
        Some(spare) => (Temp::Unnamed, spare.file),
        // Without set-id or sticky bits until the content is complete (they are set below).
        None => create_temp(dir, folder_key, name, mode & 0o777)?,
    };
    let unnamed = matches!(temp, Temp::Unnamed);
    // The name the new content has in the folder while it is not yet the file's, if any: it
    // is removed when the write fails.
    let mut temp_name = match temp {
        Temp::Named(temp_name) => Some(temp_name),
        Temp::Unnamed => None,
    };
    let written = (|| {
        // The mode is set last: a change of owner, and a write or truncation by a process
        // without the privilege to keep them, clear the set-user-ID and set-group-ID bits.
        let mut given_away = false;
        if let Some(meta) = existing {
            let own = match made {
                Some((_, owner, _)) => Some(owner),
                None => new_owner(&folder),
            };
            let own = match own {
                Some(owner) => owner,
                None => {
                    let own = Meta::from(rustix::fs::fstat(&std_file)?);
                    (own.uid, own.gid)
                }
            };
            if own != (meta.uid, meta.gid) {
                // Only a privileged process may give a file away; anyone else keeps their own.
                given_away =
                    std::os::unix::fs::fchown(&std_file, Some(meta.uid), Some(meta.gid)).is_ok();
            }
        }
        let reserved = made.map_or(0, |(_, _, reserved)| reserved);
        if let Some(len) = options.size_hint.filter(|&len| len > reserved) {
            // Best effort: a filesystem without fallocate writes the same content.
            platform::reserve(&std_file, len);
        }
        source.write_into(&mut std_file)?;
        if reserved > 0 {
            let len = match options.size_hint {
                Some(len) => len,
                None => io::Seek::stream_position(&mut std_file)?,
            };
            if len < reserved {
                // Space reserved for more than was written would stay allocated past the
                // end: truncating to the length the file has frees it (ext4 trims there).
                std_file.set_len(len)?;
            }
        }
        let privileged_bits = mode & 0o6000 != 0;
        let made_mode = made.map(|(made_mode, _, _)| made_mode);
        if replacing && (given_away || privileged_bits || made_mode != Some(mode)) {
            // The create mode passed through the umask; restore the exact bits.
            std_file.set_permissions(std::os::unix::fs::PermissionsExt::from_mode(mode))?;
        }
        std_file.flush()?;
        if sync_writes() {
            platform::sync(&std_file)?;
        }
        let temp_name = match &temp_name {
            Some(temp_name) => temp_name,
            // A new file takes its name directly: linking fails, atomically, if the name
            // appeared meanwhile.
            None if options.create_new => return platform::link_unnamed(&std_file, dir, name),
            None => temp_name.insert(link_temp_name(&std_file, dir, folder_key, name)?),
        };
        if options.create_new {
            // Fails, atomically, when the name appeared meanwhile.
            platform::rename(dir, temp_name, dir, name, false)
        } else {
            dir.rename(temp_name, dir, name)
        }
    })();
    if let Err(e) = written {
        if let Some(temp_name) = &temp_name {
            remove_own_temp(dir, temp_name, &std_file);
        }
        return Err(e);
    }
    note_write(false);
    if let Ok(stat) = rustix::fs::fstat(&std_file) {
        let base = existing.map(|m| m.stamp);
        LAST_REPLACED.with(|c| c.set(Some((base, Meta::from(stat).stamp))));
    }
    let old = match held {
        Some(Held {
            file: Some(old), ..
        }) => Some(old),
        _ => None,
    };
    if let Some(old) = &old {
        // Other writers of the file may go on: the name is the new file's now.
        let _ = rustix::fs::flock(old, rustix::fs::FlockOperation::Unlock);
    }
    if sync_writes() {
        // Makes the rename itself durable; a filesystem that cannot sync a directory still
        // renamed atomically, so a failure here is not an error of the write.
        use rustix::fs::{Mode, OFlags};
        let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
        if let Ok(fd) = rustix::fs::openat(dir, ".", flags, Mode::empty()) {
            let _ = platform::sync(&fd);
        }
    }
    if unnamed && replacing {
        // A folder whose files are replaced is likely to see the next replacement soon, of a
        // file like this one.
        let len = options
            .size_hint
            .unwrap_or_else(|| existing.map_or(0, |m| m.len));
        let likely = super::super::aside::Likely { mode, len };
        super::super::aside::prepare_spare(folder_dir, folder_key, likely);
    }
    if let Some(old) = old {
        // The old file has no name any more: closing it frees its blocks, which can take a
        // journal commit, so it is closed off the call's path (after the spare is asked for,
        // which the next write may need first).
        super::super::aside::close_later(old);
    }
    Ok(Replaced {
        previous_len: existing.as_ref().map(|m| m.len),
    })
}

/// The owner and group a file this process creates in `folder` surely gets: its effective
/// ids, when the folder's group is its effective group too (whether the filesystem gives new
/// files the creator's group or the folder's, it is then the same). `None` when unsure.
fn new_owner(folder: &Meta) -> Option<(u32, u32)> {
    static IDS: std::sync::OnceLock<(u32, u32)> = std::sync::OnceLock::new();
    let (uid, gid) = *IDS.get_or_init(|| {
        (
            rustix::process::geteuid().as_raw(),
            rustix::process::getegid().as_raw(),
        )
    });
    (folder.gid == gid).then_some((uid, gid))
}

/// Whether each write is flushed to the disk (file and folder `fsync`) before it is reported
/// done: `FSGATE_SYNC=1`. By default not: a crash of fsgate (or a kill) never leaves a mix
/// either way, and power-loss ordering of a file replaced by rename is the filesystem's (ext4's
/// `auto_da_alloc`, btrfs and others flush such a file before the rename commits), while a
/// sync costs milliseconds on every edit.
fn sync_writes() -> bool {
    static SYNC: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *SYNC.get_or_init(|| {
        std::env::var("FSGATE_SYNC").is_ok_and(|v| !v.is_empty() && v != "0" && v != "false")
    })
}

/// Where the new content is written before it takes the file's name.
enum Temp {
    /// An `O_TMPFILE` file of the directory, without a name until it is linked in.
    Unnamed,
    /// A named temp file next to the target (the portable paths, and filesystems without
    /// `O_TMPFILE`).
    Named(OsString),
}

/// Creates the file the new content is written to: unnamed in `dir` where the filesystem
/// allows, else a fresh temp file next to `name` (exclusive create, so a planted file or link
/// at the temp name is never followed or reused). `folder` is `dir`'s identity.
fn create_temp(
    dir: &Dir,
    folder: super::super::aside::FolderKey,
    name: &OsString,
    mode: u32,
) -> io::Result<(Temp, File)> {
    if let Some(file) = platform::unnamed_file(dir, mode)? {
        return Ok((Temp::Unnamed, file));
    }
    // The portable paths, or a filesystem or kernel without unnamed files: a named temp file.
    let mut options = OpenOptions::new();
    options.write(true).create_new(true).mode(mode);
    with_temp_name(dir, folder, name, |temp| {
        dir.open_with(temp, &options)
            .map(|file| (Temp::Named(temp.to_os_string()), file.into_std()))
    })
}

/// Calls `try_name` with fresh temp names for `name` in `dir` (identity `folder`) until one is
/// free. The folder is written down first, so a restart removes the temp file if this process
/// is killed before the name is renamed away (see `pending`).
fn with_temp_name<T>(
    dir: &Dir,
    folder: super::super::aside::FolderKey,
    name: &OsString,
    mut try_name: impl FnMut(&std::ffi::OsStr) -> io::Result<T>,
) -> io::Result<T> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    super::super::pending::note_folder(dir, folder);
    let stem = name.to_string_lossy();
    let stem: String = stem.chars().take(64).collect();
    for _ in 0..100 {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let temp = super::super::pending::temp_name(&stem, n, nanos);
        match try_name(&temp) {
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            other => return other,
        }
    }
    Err(io::Error::new(
        io::ErrorKind::AlreadyExists,
        "could not find a free temporary file name",
    ))
}

/// Links the unnamed `file` into `dir` (identity `folder`) under a fresh temp name for `name`,
/// returned.
fn link_temp_name(
    file: &File,
    dir: &Dir,
    folder: super::super::aside::FolderKey,
    name: &OsString,
) -> io::Result<OsString> {
    with_temp_name(dir, folder, name, |temp| {
        platform::link_unnamed(file, dir, temp).map(|()| temp.to_os_string())
    })
}

/// Removes `temp`, the name a failed write gave its new content (`file`), only while it still
/// names that content: another process may have renamed or exchanged it in the moment it had
/// (a user's file moved to that name is theirs, not a temp file of this write).
fn remove_own_temp(dir: &Dir, temp: &OsString, file: &File) {
    let ours = rustix::fs::fstat(file);
    let named = rustix::fs::statat(dir, temp.as_os_str(), rustix::fs::AtFlags::SYMLINK_NOFOLLOW);
    if let (Ok(ours), Ok(named)) = (ours, named)
        && (ours.st_dev, ours.st_ino) == (named.st_dev, named.st_ino)
    {
        let _ = dir.remove_file(temp);
    }
}

/// Follows a chain of symbolic links at the last component of `path` to the file it names,
/// which may not exist yet (a dangling link names the file a write creates).
fn follow_links(path: &Path) -> io::Result<PathBuf> {
    let mut current = path.to_path_buf();
    for _ in 0..MAX_LINK_HOPS {
        match std::fs::symlink_metadata(&current) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let link = std::fs::read_link(&current)?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::{MetadataExt, PermissionsExt};

    #[test]
    fn atomic_write_keeps_mode_and_leaves_no_temp_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("script.sh");
        std::fs::write(&path, "old").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o750)).unwrap();
        let replaced =
            write_atomic(Place::Ambient(&path), b"new", WriteOptions::default()).unwrap();
        assert_eq!(replaced.previous_len, Some(3));
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
        assert_eq!(std::fs::metadata(&path).unwrap().mode() & 0o7777, 0o750);
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1, "temp file left behind");
    }

    #[test]
    fn atomic_write_through_a_symlink_replaces_the_target_and_keeps_the_link() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.txt");
        let link = dir.path().join("link.txt");
        std::fs::write(&real, "old").unwrap();
        std::os::unix::fs::symlink("real.txt", &link).unwrap();
        write_atomic(Place::Ambient(&link), b"new", WriteOptions::default()).unwrap();
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(std::fs::read(&real).unwrap(), b"new");
    }

    #[test]
    fn new_files_get_the_umask_mode_not_0600() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a/b/new.txt");
        let replaced = write_atomic(Place::Ambient(&path), b"x", WriteOptions::default()).unwrap();
        assert_eq!(replaced.previous_len, None);
        let mode = std::fs::metadata(&path).unwrap().mode() & 0o777;
        assert_ne!(
            mode, 0o600,
            "a new file must not keep a temp file's private mode"
        );
        assert_eq!(mode & 0o400, 0o400);
    }

    #[test]
    fn a_failed_write_removes_its_temp_name_only_while_it_names_its_own_content() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = Dir::open_ambient_dir(tmp.path(), ambient_authority()).unwrap();
        std::fs::write(tmp.path().join("ours"), "new content\n").unwrap();
        std::fs::write(tmp.path().join("theirs"), "a user's file\n").unwrap();
        let ours = File::open(tmp.path().join("ours")).unwrap();
        let temp = OsString::from(".a.txt.1.2.3.fsgate-tmp");
        // Another process put its own file at the temp name (an exchange or a rename).
        std::fs::rename(tmp.path().join("theirs"), tmp.path().join(&temp)).unwrap();
        remove_own_temp(&dir, &temp, &ours);
        assert_eq!(
            std::fs::read_to_string(tmp.path().join(&temp)).unwrap(),
            "a user's file\n"
        );
        // The name that still holds the write's content is removed.
        std::fs::remove_file(tmp.path().join(&temp)).unwrap();
        std::fs::hard_link(tmp.path().join("ours"), tmp.path().join(&temp)).unwrap();
        remove_own_temp(&dir, &temp, &ours);
        assert!(!tmp.path().join(&temp).exists());
        assert!(tmp.path().join("ours").exists());
    }

    #[test]
    fn a_write_the_filesystem_refuses_removes_the_folders_it_made() {
        // Past the access layer's length check: the filesystem itself refuses the name, after
        // the parents are made.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a/b/c").join("n".repeat(300));
        let err = write_atomic(Place::Ambient(&path), b"x", WriteOptions::default()).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidFilename, "{err}");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
        let handle = Dir::open_ambient_dir(dir.path(), ambient_authority()).unwrap();
        let rel = Path::new("a/b/c").join("n".repeat(300));
        let err =
            write_atomic(Place::Beneath(&handle, &rel), b"x", WriteOptions::default()).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidFilename, "{err}");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn create_new_refuses_an_existing_file_and_leaves_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.txt");
        std::fs::write(&path, "old").unwrap();
        let options = WriteOptions {
            create_new: true,
            ..WriteOptions::default()
        };
        let err = write_atomic(Place::Ambient(&path), b"new", options).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::AlreadyExists);
        assert_eq!(std::fs::read(&path).unwrap(), b"old");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_planted_link_at_a_temp_name_is_never_followed() {
        let outside = tempfile::tempdir().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let handle = Dir::open_ambient_dir(dir.path(), ambient_authority()).unwrap();
        // Every name the exclusive create could pick is refused if something is there, so a
        // planted link is skipped rather than written through.
        std::os::unix::fs::symlink(outside.path().join("victim"), dir.path().join(".a.planted"))
            .unwrap();
        write_atomic(
            Place::Beneath(&handle, Path::new("a.txt")),
            b"data",
            WriteOptions::default(),
        )
        .unwrap();
        assert!(!outside.path().join("victim").exists());
        assert_eq!(std::fs::read(dir.path().join("a.txt")).unwrap(), b"data");
    }
}
