//! The folders where this process may leave a temp file if it dies, written down so that the
//! next fsgate to start can remove what a killed one left.
//!
//! An atomic replacement needs a name for the new content for a moment: an unnamed
//! (`O_TMPFILE`) file cannot be renamed over the target, so it is linked under a temp name
//! first, and a filesystem without unnamed files has the temp name for the whole write. A
//! process killed in that window leaves `.NAME.PID.N.NANOS.fsgate-tmp` beside the file, and
//! nothing inside the folder says it is stale.
//!
//! So each process keeps a journal, `PID.folders`, in the state folder (`FSGATE_STATE_DIR`,
//! else `$XDG_STATE_HOME/fsgate/pending`, else `~/.local/state/fsgate/pending`, else
//! `fsgate-pending-UID` in the temp folder, whichever is first usable): the path of
//! every folder it gives a temp name in, written before the first such name there. It holds
//! an exclusive `flock` on its journal for as long as it lives. [`sweep`] (run when a server
//! starts) takes every journal whose lock is free — its process is gone — removes from each
//! folder it names the temp files of that process id, then removes the journal. Only regular
//! files with the temp name pattern and the dead process's id are removed.
//!
//! Without a usable state folder (none writable, or only ones owned by someone else) nothing
//! is written down and writes go on as before.

use std::collections::HashSet;
use std::ffi::OsStr;
use std::fs::File;
use std::io;
use std::os::unix::ffi::{OsStrExt as _, OsStringExt as _};
use std::os::unix::fs::{DirBuilderExt as _, FileExt as _, MetadataExt as _};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use cap_std::fs::Dir;
use rustix::fs::{FlockOperation, Mode, OFlags};

use super::aside::FolderKey;

/// The end of every temp name.
const TEMP_SUFFIX: &str = ".fsgate-tmp";
/// The end of every journal's name.
const JOURNAL_SUFFIX: &str = ".folders";

/// This process's journal.
struct Journal {
    /// Where it is.
    path: PathBuf,
    file: File,
    /// Where the next record goes.
    len: u64,
    /// The folders already written down.
    folders: HashSet<FolderKey>,
}

/// The state folder: the first usable of the places [`state_dirs`] gives, created owner-only
/// and owned by this user. (Multi-file changes keep their rollback journals in its `txn`
/// folder, `access::txn`.)
pub(crate) fn state_dir() -> Option<&'static Path> {
    static DIR: OnceLock<Option<PathBuf>> = OnceLock::new();
    DIR.get_or_init(|| state_dirs().into_iter().find(|dir| usable(dir)))
        .as_deref()
}

/// Whether the folder `dir` is, or could be made, a folder of this user's alone.
fn usable(dir: &Path) -> bool {
    // A shared temp folder gets one level of its own, never a path through someone else's.
    let shared = dir.parent() == Some(std::env::temp_dir().as_path());
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(!shared).mode(0o700);
    match builder.create(dir) {
        Ok(()) => {}
        Err(e) if shared && e.kind() == io::ErrorKind::AlreadyExists => {}
        Err(_) => return false,
    }
    let Ok(meta) = std::fs::symlink_metadata(dir) else {
        return false;
    };
    meta.is_dir()
        && meta.uid() == rustix::process::geteuid().as_raw()
        && (!shared || meta.mode() & 0o077 == 0)
        // Not on a read-only filesystem.
        && rustix::fs::access(dir, rustix::fs::Access::WRITE_OK).is_ok()
}

/// Where the journals may be, in order: `FSGATE_STATE_DIR`; else `$XDG_STATE_HOME/fsgate/pending`
/// or `~/.local/state/fsgate/pending`; else a folder of this user's in the temp folder.
fn state_dirs() -> Vec<PathBuf> {
    let set = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    if let Some(dir) = set("FSGATE_STATE_DIR") {
        return vec![dir];
    }
    let state = set("XDG_STATE_HOME")
        .filter(|p| p.is_absolute())
        .or_else(|| set("HOME").map(|home| home.join(".local/state")));
    let uid = rustix::process::geteuid().as_raw();
    state
        .map(|state| state.join("fsgate").join("pending"))
        .into_iter()
        .chain([std::env::temp_dir().join(format!("fsgate-pending-{uid}"))])
        .collect()
}

/// This process's journal, once made.
static JOURNAL: OnceLock<Option<Mutex<Journal>>> = OnceLock::new();

/// This process's journal, made the first time a folder is written down; `None` when there is
/// no state folder.
fn journal() -> Option<&'static Mutex<Journal>> {
    JOURNAL
        .get_or_init(|| {
            let dir = state_dir()?;
            let pid = process_id();
            let path = dir.join(format!("{pid}{JOURNAL_SUFFIX}"));
            for _ in 0..8 {
                // A link planted at the journal's name is not followed.
                let flags = OFlags::RDWR | OFlags::CREATE | OFlags::NOFOLLOW | OFlags::CLOEXEC;
                let file =
                    File::from(rustix::fs::open(&path, flags, Mode::RUSR | Mode::WUSR).ok()?);
                if rustix::fs::flock(&file, FlockOperation::NonBlockingLockExclusive).is_err() {
                    // A sweep is reading it (briefly), or a live process of another process-id
                    // namespace sharing this state folder owns it: then nothing is written down.
                    std::thread::sleep(std::time::Duration::from_millis(20));
                    continue;
                }
                // A sweep may have taken and removed the file between the open and the lock:
                // then this one is nobody's journal, and a fresh one is made.
                if rustix::fs::fstat(&file).ok()?.st_nlink == 0 {
                    continue;
                }
                let left = read_all(&file).ok()?;
                if !left.is_empty() {
                    // The journal of an earlier process with this id, which is gone: its temp
                    // files are removed now, before this process makes any of its own.
                    remove_temps_of(pid, &left);
                    file.set_len(0).ok()?;
                }
                return Some(Mutex::new(Journal {
                    path,
                    file,
                    len: 0,
                    folders: HashSet::new(),
                }));
            }
            None
        })
        .as_ref()
}

fn read_all(file: &File) -> io::Result<Vec<u8>> {
    let mut out = Vec::new();
    io::Read::read_to_end(&mut &*file, &mut out)?;
    Ok(out)
}

/// Writes down the folder `dir` (identity `key`) before this process gives a temp name in it.
/// Best effort: a failure to write leaves the folder to be written down at its next temp name.
pub(super) fn note_folder(dir: &Dir, key: FolderKey) {
    let Some(journal) = journal() else {
        return;
    };
    let Ok(mut journal) = journal.lock() else {
        return;
    };
    if journal.folders.contains(&key) {
        return;
    }
    // The folder's path as the kernel knows it now.
    let Some(path) = super::platform::folder_path(dir) else {
        return;
    };
    let mut record = path.into_os_string().into_vec();
    record.push(0);
    if journal.file.write_all_at(&record, journal.len).is_ok() {
        journal.len += record.len() as u64;
        journal.folders.insert(key);
    }
}

/// Removes this process's journal, once it will make no more temp names (a clean exit).
pub fn finish() {
    let Some(Some(journal)) = JOURNAL.get() else {
        return;
    };
    // Held to the end: no write can be writing its folder down meanwhile.
    if let Ok(journal) = journal.lock() {
        let _ = std::fs::remove_file(&journal.path);
    }
}

/// Removes what processes that died left: for each journal whose lock is free, the temp files
/// of its process in the folders it names, then the journal. Returns how many temp files were
/// removed.
pub fn sweep() -> usize {
    let Some(dir) = state_dir() else { return 0 };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    let mine = process_id();
    let mut removed = 0;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = journal_pid(&name) else {
            continue;
        };
        if pid == mine {
            continue;
        }
        let flags = OFlags::RDWR | OFlags::NOFOLLOW | OFlags::CLOEXEC | OFlags::NONBLOCK;
        let Ok(fd) = rustix::fs::open(dir.join(&name), flags, Mode::empty()) else {
            continue;
        };
        let file = File::from(fd);
        // Held by a live process (or by another sweep).
        if rustix::fs::flock(&file, FlockOperation::NonBlockingLockExclusive).is_err() {
            continue;
        }
        // Another sweep got here first and removed it.
        match rustix::fs::fstat(&file) {
            Ok(st) if st.st_nlink > 0 => {}
            _ => continue,
        }
        let Ok(content) = read_all(&file) else {
            continue;
        };
        removed += remove_temps_of(pid, &content);
        let _ = std::fs::remove_file(dir.join(&name));
    }
    removed
}

/// The process id a journal's name carries.
fn journal_pid(name: &OsStr) -> Option<u32> {
    let digits = name.to_str()?.strip_suffix(JOURNAL_SUFFIX)?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// Removes, from each folder in `records` (NUL-ended paths), the regular files that are temp
/// files of process `pid`. Returns how many.
fn remove_temps_of(pid: u32, records: &[u8]) -> usize {
    let mut seen = HashSet::new();
    let mut removed = 0;
    for path in records.split(|&b| b == 0).filter(|p| !p.is_empty()) {
        if !seen.insert(path) {
            continue;
        }
        let path = Path::new(OsStr::from_bytes(path));
        let Ok(folder) = Dir::open_ambient_dir(path, cap_std::ambient_authority()) else {
            continue;
        };
        let Ok(entries) = folder.entries() else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            if !is_temp_of(&name, pid) {
                continue;
            }
            if entry.file_type().is_ok_and(|t| t.is_file()) && folder.remove_file(&name).is_ok() {
                removed += 1;
            }
        }
    }
    removed
}

/// This process's id, asked of the kernel once.
pub(super) fn process_id() -> u32 {
    static ID: OnceLock<u32> = OnceLock::new();
    *ID.get_or_init(std::process::id)
}

/// The temp name this process gives a file's new content: `.STEM.PID.N.NANOS.fsgate-tmp`, STEM
/// being (the start of) the file's name, N a counter and NANOS the clock's nanoseconds, so that
/// it is unlikely to be taken.
pub(super) fn temp_name(stem: &str, n: u64, nanos: u32) -> std::ffi::OsString {
    let pid = process_id();
    format!(".{stem}.{pid}.{n}.{nanos:x}{TEMP_SUFFIX}").into()
}

/// Whether `name` is a temp name fsgate's process `pid` makes (see [`temp_name`]; STEM may
/// hold dots; N is decimal, NANOS hexadecimal).
pub(super) fn is_temp_of(name: &OsStr, pid: u32) -> bool {
    let Some(rest) = name
        .to_str()
        .and_then(|n| n.strip_prefix('.'))
        .and_then(|n| n.strip_suffix(TEMP_SUFFIX))
    else {
        return false;
    };
    let mut parts = rest.rsplitn(4, '.');
    let (Some(nanos), Some(n), Some(id), Some(stem)) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return false;
    };
    let all = |s: &str, f: fn(&u8) -> bool| !s.is_empty() && s.as_bytes().iter().all(f);
    !stem.is_empty()
        && all(nanos, u8::is_ascii_hexdigit)
        && all(n, u8::is_ascii_digit)
        && all(id, u8::is_ascii_digit)
        && id.parse() == Ok(pid)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temp_names_are_matched_to_their_process_only() {
        let made = temp_name("written.txt", 7, 0x38a8_ae9d);
        assert_eq!(
            made.to_str(),
            Some(format!(".written.txt.{}.7.38a8ae9d.fsgate-tmp", process_id()).as_str())
        );
        assert!(is_temp_of(&made, process_id()));
        assert!(!is_temp_of(&made, process_id() + 1));
        let yes = |n: &str, pid| is_temp_of(OsStr::new(n), pid);
        assert!(yes(".written.txt.26240.0.38a8ae9d.fsgate-tmp", 26240));
        assert!(yes(".a.26240.17.0.fsgate-tmp", 26240));
        assert!(!yes(".written.txt.26240.0.38a8ae9d.fsgate-tmp", 2624));
        assert!(!yes(".written.txt.126240.0.38a8ae9d.fsgate-tmp", 26240));
        assert!(!yes("written.txt.26240.0.38a8ae9d.fsgate-tmp", 26240));
        assert!(!yes(".written.txt.26240.0.38a8ae9d.fsgate-tmp.bak", 26240));
        assert!(!yes("..26240.0.38a8ae9d.fsgate-tmp", 26240));
        assert!(!yes(".x.26240.0.zz.fsgate-tmp", 26240));
        assert!(!yes(".x.26240.a.0.fsgate-tmp", 26240));
        assert!(!yes(".26240.0.0.fsgate-tmp", 26240));
    }

    #[test]
    fn only_the_dead_process_s_regular_temp_files_are_removed_from_the_folders_named() {
        #![allow(clippy::unwrap_used)]
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        for folder in [&a, &b] {
            std::fs::create_dir(folder).unwrap();
            std::fs::write(folder.join(".f.txt.41.0.9.fsgate-tmp"), "x").unwrap();
            std::fs::write(folder.join(".f.txt.42.0.9.fsgate-tmp"), "x").unwrap();
            std::fs::write(folder.join("f.txt"), "x").unwrap();
        }
        std::fs::create_dir(a.join(".d.41.0.9.fsgate-tmp")).unwrap();
        // `a` twice, `b` not at all, and a folder that is gone.
        let mut records = Vec::new();
        for path in [&a, &dir.path().join("gone"), &a] {
            records.extend_from_slice(path.as_os_str().as_bytes());
            records.push(0);
        }
        assert_eq!(remove_temps_of(41, &records), 1);
        let names = |folder: &Path| {
            let mut names: Vec<String> = std::fs::read_dir(folder)
                .unwrap()
                .map(|e| e.unwrap().file_name().into_string().unwrap())
                .collect();
            names.sort();
            names
        };
        assert_eq!(
            names(&a),
            [".d.41.0.9.fsgate-tmp", ".f.txt.42.0.9.fsgate-tmp", "f.txt"]
        );
        assert_eq!(names(&b).len(), 3);
    }

    #[test]
    fn a_state_folder_is_usable_only_when_it_is_this_user_s_alone() {
        #![allow(clippy::unwrap_used)]
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let deep = dir.path().join("state/fsgate/pending");
        assert!(usable(&deep), "made with its parents");
        assert_eq!(std::fs::metadata(&deep).unwrap().mode() & 0o777, 0o700);
        std::fs::write(dir.path().join("file"), "x").unwrap();
        assert!(!usable(&dir.path().join("file/pending")), "under a file");
        std::os::unix::fs::symlink(&deep, dir.path().join("link")).unwrap();
        assert!(!usable(&dir.path().join("link")), "a link");

        // In the shared temp folder: one level, and nobody else may write to it.
        let unique = dir
            .path()
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let shared = std::env::temp_dir().join(format!("fsgate-pending-test{unique}"));
        assert!(usable(&shared));
        std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o777)).unwrap();
        assert!(!usable(&shared), "open to others");
        std::fs::remove_dir_all(&shared).unwrap();
    }

    #[test]
    fn journal_names_carry_a_process_id() {
        assert_eq!(journal_pid(OsStr::new("123.folders")), Some(123));
        assert_eq!(journal_pid(OsStr::new(".folders")), None);
        assert_eq!(journal_pid(OsStr::new("12a.folders")), None);
        assert_eq!(journal_pid(OsStr::new("123.folders.x")), None);
    }
}
