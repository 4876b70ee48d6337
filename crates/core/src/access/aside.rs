//! Work an atomic write hands to a background thread, off the call's path: closing the file it
//! replaced (freeing its blocks can wait for the journal, and on a filesystem mounted with
//! `discard` for the disk) and making the unnamed file the next write in the same folder will
//! fill (allocating an inode searches the filesystem's bitmaps, past every recently freed
//! inode — and each replacement frees one).
//!
//! A spare is an `O_TMPFILE` file: it has no name, so it is never seen, and it vanishes when
//! closed or when the process dies. One is kept for each of the last few folders written.

use std::fs::File;
use std::sync::mpsc::Sender;
use std::sync::{Mutex, OnceLock};

use cap_std::fs::Dir;

/// A folder's identity: device and inode number.
pub(super) type FolderKey = (u64, u64);

/// An unnamed file made in a folder for the next write there.
struct Spare {
    folder: FolderKey,
    file: File,
}

/// How many folders have a spare at most.
const SPARES: usize = 4;

/// The spares, oldest first.
static SPARE: Mutex<Vec<Spare>> = Mutex::new(Vec::new());

enum Job {
    /// Close a replaced file.
    Close(File),
    /// Make a spare in this folder.
    Prepare(Dir, FolderKey),
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
                    for job in rx {
                        match job {
                            Job::Close(file) => drop(file),
                            Job::Prepare(dir, folder) => make_spare(&dir, folder),
                        }
                    }
                })
                .ok()
                .map(|_| Mutex::new(tx))
        })
        .as_ref()
}

fn send(job: Job) -> Result<(), Job> {
    match queue().and_then(|tx| tx.lock().ok()) {
        Some(tx) => tx.send(job).map_err(|unsent| unsent.0),
        None => Err(job),
    }
}

/// Closes `file` on the background thread (or here, when there is none).
pub(super) fn close_later(file: File) {
    if let Err(Job::Close(file)) = send(Job::Close(file)) {
        drop(file);
    }
}

/// Has a spare made in `dir` (the folder `folder`) unless one is there already.
pub(super) fn prepare_spare(dir: Dir, folder: FolderKey) {
    let ready = SPARE
        .lock()
        .is_ok_and(|spares| spares.iter().any(|s| s.folder == folder));
    if !ready {
        // Without a background thread a spare would be made on the call's path: not worth it.
        let _ = send(Job::Prepare(dir, folder));
    }
}

/// The spare made in the folder `folder`, if there is one.
pub(super) fn take_spare(folder: FolderKey) -> Option<File> {
    let mut spares = SPARE.lock().ok()?;
    let at = spares.iter().position(|s| s.folder == folder)?;
    Some(spares.remove(at).file)
}

fn make_spare(dir: &Dir, folder: FolderKey) {
    use rustix::fs::{Mode, OFlags};
    let flags = OFlags::TMPFILE | OFlags::WRONLY | OFlags::CLOEXEC;
    let Ok(fd) = rustix::fs::openat(dir, ".", flags, Mode::from_raw_mode(0o600)) else {
        return;
    };
    let made = Spare {
        folder,
        file: File::from(fd),
    };
    // A spare not kept (one is there already, or the oldest makes room) is closed outside
    // the lock.
    let dropped = match SPARE.lock() {
        Ok(spares) if spares.iter().any(|s| s.folder == folder) => Some(made),
        Ok(mut spares) => {
            spares.push(made);
            (spares.len() > SPARES).then(|| spares.remove(0))
        }
        Err(_) => None,
    };
    drop(dropped);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spare_is_made_for_its_folder_and_taken_once() {
        #![allow(clippy::unwrap_used, clippy::disallowed_methods)]
        use rustix::fs::{Mode, OFlags};
        let dir = tempfile::tempdir().unwrap();
        let open = || Dir::open_ambient_dir(dir.path(), cap_std::ambient_authority()).unwrap();
        let flags = OFlags::TMPFILE | OFlags::WRONLY | OFlags::CLOEXEC;
        if rustix::fs::openat(open(), ".", flags, Mode::from_raw_mode(0o600)).is_err() {
            // A filesystem without O_TMPFILE makes no spare: nothing to check.
            return;
        }
        let meta = rustix::fs::fstat(open()).unwrap();
        let key = (meta.st_dev, meta.st_ino);
        // Other tests write too, and one spare is kept: ask again until ours is there.
        let mut spare = None;
        for _ in 0..200 {
            prepare_spare(open(), key);
            std::thread::sleep(std::time::Duration::from_millis(5));
            spare = take_spare(key);
            if spare.is_some() {
                break;
            }
        }
        let spare = spare.expect("a spare is made in the folder");
        assert!(take_spare((key.0, key.1.wrapping_add(1))).is_none());
        // It has no name: the folder is still empty.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
        drop(spare);
    }
}
