//! Writers of one file take turns: the current file is locked (`flock`) until its replacement
//! is in place, so a change is compared with what the file holds and written with nobody in
//! between; and whether the locked file is still the one a change was made from.

use std::ffi::OsString;
use std::fs::File;
use std::io;

use cap_std::fs::{Dir, OpenOptions, OpenOptionsExt as _};

use super::atomic::{WriteOptions, note_write};
use super::meta::{Meta, entry_metadata};

thread_local! {
    /// A call on this thread must not wait for another writer's lock (it runs where requests
    /// are read, and can be run again elsewhere).
    static IMPATIENT: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Makes the writes of calls on this thread give up at once, as a clean conflict, when another
/// writer holds the file, until the guard returned is dropped (then they wait as usual again,
/// even when the call panicked).
pub(crate) fn impatient() -> Impatient {
    IMPATIENT.with(|c| c.set(true));
    Impatient
}

/// See [`impatient`].
pub(crate) struct Impatient;

impl Drop for Impatient {
    fn drop(&mut self) {
        IMPATIENT.with(|c| c.set(false));
    }
}

/// Whether the file a write replaces (`held`, locked) is still the one its new content was
/// made from: by [`WriteOptions::expect`] (an unchanged stamp proves it without reading; else
/// the content is compared), or by [`WriteOptions::expect_stamp`] alone when there is no
/// content to compare. Always true when neither is given.
pub(super) fn as_expected(held: Option<&Held>, options: &WriteOptions) -> io::Result<bool> {
    let same_stamp = |meta: &Meta| options.expect_stamp == Some(meta.stamp);
    Ok(match (options.expect, held) {
        (None, _) if options.expect_stamp.is_none() => true,
        (None, Some(held)) => same_stamp(&held.meta),
        (
            Some(expected),
            Some(Held {
                file: Some(file),
                meta,
            }),
        ) => meta.len == expected.len() as u64 && (same_stamp(meta) || holds(file, expected)?),
        _ => false,
    })
}

/// The file a write replaces, open and locked for the time of the write.
pub(super) struct Held {
    /// The open, locked file; `None` when it is not a regular file or cannot be opened for
    /// reading (a write-only file is still replaced, unlocked).
    pub(super) file: Option<File>,
    pub(super) meta: Meta,
}

/// How long a write waits for another writer of the same file before giving up.
const LOCK_PATIENCE: std::time::Duration = std::time::Duration::from_secs(10);

/// Opens and locks (`flock`, exclusive) the file `name` of `dir` as it is now, `None` when
/// there is none. A file replaced while we waited for its lock is not the current one any
/// more: then the new one is locked instead.
pub(super) fn lock_current(dir: &Dir, name: &OsString) -> io::Result<Option<Held>> {
    for _ in 0..100 {
        let meta = match entry_metadata(dir, name) {
            Ok(meta) => meta,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e),
        };
        if !meta.is_file {
            return Ok(Some(Held { file: None, meta }));
        }
        let mut options = OpenOptions::new();
        options
            .read(true)
            .custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32);
        let file = match dir.open_with(name, &options) {
            Ok(file) => file.into_std(),
            Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
            Err(e) if e.kind() == io::ErrorKind::PermissionDenied => {
                return Ok(Some(Held { file: None, meta }));
            }
            Err(e) => return Err(e),
        };
        if !wait_for_lock(&file)? {
            // A filesystem without flock: replace unlocked, as before.
            return Ok(Some(Held {
                file: Some(file),
                meta,
            }));
        }
        // The name may have been given to a new file while we waited: only the file it names
        // now, after we hold the lock, is the current one.
        let locked = Meta::from(rustix::fs::fstat(&file)?);
        let now = match entry_metadata(dir, name) {
            Ok(now) => now,
            Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
            Err(e) => return Err(e),
        };
        if locked.stamp.dev == now.stamp.dev && locked.stamp.ino == now.stamp.ino {
            let meta = locked;
            return Ok(Some(Held {
                file: Some(file),
                meta,
            }));
        }
    }
    Err(io::Error::other(
        "the file kept being replaced by other writers; try again",
    ))
}

/// Takes an exclusive `flock` on `file`, waiting up to [`LOCK_PATIENCE`] for other writers.
/// `false` when the filesystem does not lock at all.
fn wait_for_lock(file: &File) -> io::Result<bool> {
    use rustix::fs::{FlockOperation, flock};
    let started = std::time::Instant::now();
    let mut pause = std::time::Duration::from_micros(50);
    loop {
        match flock(file, FlockOperation::NonBlockingLockExclusive) {
            Ok(()) => return Ok(true),
            Err(rustix::io::Errno::WOULDBLOCK) | Err(rustix::io::Errno::INTR) => {}
            Err(rustix::io::Errno::NOLCK) | Err(rustix::io::Errno::OPNOTSUPP) => return Ok(false),
            Err(e) => return Err(e.into()),
        }
        if IMPATIENT.with(std::cell::Cell::get) {
            // Nothing is written yet: the call can run again where waiting is allowed.
            note_write(true);
            return Err(io::Error::new(
                io::ErrorKind::WouldBlock,
                "another writer holds the file; try again",
            ));
        }
        if started.elapsed() > LOCK_PATIENCE {
            return Err(io::Error::new(
                io::ErrorKind::WouldBlock,
                format!(
                    "another writer has held the file for more than {} s; try again later",
                    LOCK_PATIENCE.as_secs()
                ),
            ));
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(std::time::Duration::from_millis(20));
    }
}

/// Whether `file`, read from its start, holds exactly `expected`.
fn holds(file: &File, expected: &[u8]) -> io::Result<bool> {
    use std::os::unix::fs::FileExt as _;
    let mut buf = vec![0u8; (256 * 1024).min(expected.len() + 1)];
    let mut at = 0usize;
    loop {
        let n = match file.read_at(&mut buf, at as u64) {
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if n == 0 {
            return Ok(at == expected.len());
        }
        let Some(want) = expected.get(at..at + n) else {
            return Ok(false);
        };
        if want != &buf[..n] {
            return Ok(false);
        }
        at += n;
    }
}
