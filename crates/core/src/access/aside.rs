//! Work an atomic write hands to a background thread, off the call's path: closing the file it
//! replaced (freeing its blocks can wait for the journal, and on a filesystem mounted with
//! `discard` for the disk) and making the unnamed file the next write in the same folder will
//! fill (allocating an inode searches the filesystem's bitmaps, past every recently freed
//! inode — and each replacement frees one).
//!
//! A spare is an `O_TMPFILE` file (where the platform's paths have them, see `platform`): it
//! has no name, so it is never seen, and it vanishes when
//! closed or when the process dies. Two are kept ready for each of the last few folders
//! written (so one is there even when the next write comes before the last one is replaced),
//! with space reserved for a write like the last one when that was small.

use std::fs::File;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::Sender;
use std::sync::{Mutex, OnceLock};

use cap_std::fs::Dir;

/// A folder's identity: device and inode number.
pub(super) type FolderKey = (u64, u64);

/// An unnamed file made in a folder for the next write there.
pub(super) struct Spare {
    folder: FolderKey,
    /// The file, open for writing.
    pub(super) file: File,
    /// Its permission bits, owner and group.
    pub(super) mode: u32,
    pub(super) uid: u32,
    pub(super) gid: u32,
    /// The bytes whose space is reserved in it (beyond its end, which is 0).
    pub(super) reserved: u64,
}

/// What the next write in a folder will likely be: the mode and length of the file just
/// written there.
#[derive(Clone, Copy, Debug)]
pub(super) struct Likely {
    pub(super) mode: u32,
    pub(super) len: u64,
}

/// How many spares are kept at most, and how many for one folder.
const SPARES: usize = 8;
const PER_FOLDER: usize = 2;

/// The most space reserved in a spare: writes of the size quick calls make.
const RESERVE_MAX: u64 = 1 << 20;

/// The spares, oldest first.
static SPARE: Mutex<Vec<Spare>> = Mutex::new(Vec::new());

enum Job {
    /// Close a replaced file.
    Close(File),
    /// Make a spare in this folder.
    Prepare(Dir, FolderKey, Likely),
}

/// The background thread's queue; `None` when no thread could be started (then the work is
/// done in place, or not at all for spares).
fn queue() -> Option<&'static Mutex<Sender<Job>>> {
    static QUEUE: OnceLock<Option<Mutex<Sender<Job>>>> = OnceLock::new();
    QUEUE
        .get_or_init(|| {
            let (tx, rx) = std::sync::mpsc::channel::<Job>();
            std::thread::Builder::new()
                .name("fsgate-aside".into())
                .stack_size(64 * 1024)
                .spawn(move || {
                    // Background work: it waits for the calls (and their clients) on a busy
                    // machine rather than competing with them.
                    super::platform::lower_thread_priority();
                    for job in rx {
                        PENDING.fetch_sub(1, Ordering::Relaxed);
                        match job {
                            Job::Close(file) => drop(file),
                            Job::Prepare(dir, folder, likely) => {
                                while ready(folder) < PER_FOLDER {
                                    if !make_spare(&dir, folder, likely) {
                                        break;
                                    }
                                }
                            }
                        }
                    }
                })
                .ok()
                .map(|_| Mutex::new(tx))
        })
        .as_ref()
}

/// The most jobs waiting for the background thread. Each holds a descriptor (a replaced file,
/// or a folder), and the thread runs at the lowest priority, so a burst of writes on a busy
/// machine could otherwise queue descriptors up to the process's limit; past this many, a file
/// is closed in place and no spare is made.
const MAX_PENDING: usize = 64;

/// How many jobs are waiting for the background thread.
static PENDING: AtomicUsize = AtomicUsize::new(0);

fn send(job: Job) -> Result<(), Job> {
    if PENDING.load(Ordering::Relaxed) >= MAX_PENDING {
        return Err(job);
    }
    match queue().and_then(|tx| tx.lock().ok()) {
        Some(tx) => {
            PENDING.fetch_add(1, Ordering::Relaxed);
            tx.send(job).map_err(|unsent| {
                PENDING.fetch_sub(1, Ordering::Relaxed);
                unsent.0
            })
        }
        None => Err(job),
    }
}

/// Closes `file` on the background thread (or here, when there is none).
pub(super) fn close_later(file: File) {
    if let Err(Job::Close(file)) = send(Job::Close(file)) {
        drop(file);
    }
}

/// How many spares are ready for the folder `folder`.
fn ready(folder: FolderKey) -> usize {
    SPARE.lock().map_or(PER_FOLDER, |spares| {
        spares.iter().filter(|s| s.folder == folder).count()
    })
}

/// Has spares made in `dir` (the folder `folder`), with the mode and the space of a write
/// like `likely`, unless enough are there already.
pub(super) fn prepare_spare(dir: Dir, folder: FolderKey, likely: Likely) {
    if ready(folder) < PER_FOLDER {
        // Without a background thread a spare would be made on the call's path: not worth it.
        let _ = send(Job::Prepare(dir, folder, likely));
    }
}

/// The spare made in the folder `folder`, if there is one.
pub(super) fn take_spare(folder: FolderKey) -> Option<Spare> {
    let mut spares = SPARE.lock().ok()?;
    let at = spares.iter().position(|s| s.folder == folder)?;
    Some(spares.remove(at))
}

/// Makes one spare in `dir`; `false` when none can be made there.
fn make_spare(dir: &Dir, folder: FolderKey, likely: Likely) -> bool {
    use std::os::unix::fs::PermissionsExt as _;
    // Owner-only until its mode is set: the create mode passes through the umask.
    let Ok(Some(file)) = super::platform::unnamed_file(dir, 0o600) else {
        return false;
    };
    if file
        .set_permissions(std::fs::Permissions::from_mode(likely.mode))
        .is_err()
    {
        return false;
    }
    // Space reserved past its end (its length stays 0), so the write that fills it allocates
    // nothing; a filesystem that cannot reserve leaves the write to do it, as does a large one.
    let len = likely.len.min(RESERVE_MAX);
    let reserved = if super::platform::reserve_past_end(&file, len) {
        len
    } else {
        0
    };
    let Ok(st) = rustix::fs::fstat(&file) else {
        return false;
    };
    let meta = super::fs::Meta::from(st);
    let made = Spare {
        folder,
        file,
        mode: meta.mode,
        uid: meta.uid,
        gid: meta.gid,
        reserved,
    };
    // A spare not kept (enough are there already, or the oldest makes room) is closed
    // outside the lock.
    let dropped = match SPARE.lock() {
        Ok(spares) if spares.iter().filter(|s| s.folder == folder).count() >= PER_FOLDER => {
            Some(made)
        }
        Ok(mut spares) => {
            spares.push(made);
            (spares.len() > SPARES).then(|| spares.remove(0))
        }
        Err(_) => return false,
    };
    drop(dropped);
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spare_is_made_for_its_folder_and_taken_once() {
        #![allow(clippy::unwrap_used, clippy::disallowed_methods)]
        let dir = tempfile::tempdir().unwrap();
        let open = || Dir::open_ambient_dir(dir.path(), cap_std::ambient_authority()).unwrap();
        if !super::super::platform::has_unnamed_files(&open()) {
            // The portable paths, or a filesystem without O_TMPFILE, make no spare: nothing
            // to check.
            return;
        }
        let meta = super::super::fs::Meta::from(rustix::fs::fstat(open()).unwrap());
        let key = (meta.stamp.dev, meta.stamp.ino);
        // Other tests write too, and one spare is kept: ask again until ours is there.
        let mut spare = None;
        for _ in 0..200 {
            prepare_spare(
                open(),
                key,
                Likely {
                    mode: 0o640,
                    len: 5000,
                },
            );
            std::thread::sleep(std::time::Duration::from_millis(5));
            spare = take_spare(key);
            if spare.is_some() {
                break;
            }
        }
        let spare = spare.expect("a spare is made in the folder");
        assert_eq!(spare.mode, 0o640);
        assert_eq!(
            rustix::fs::fstat(&spare.file).unwrap().st_size,
            0,
            "no length, only space"
        );
        // No folder has this identity (other tests' folders may well have neighbouring ones).
        assert!(take_spare((u64::MAX, u64::MAX)).is_none());
        // It has no name: the folder is still empty.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
        drop(spare);
    }
}
