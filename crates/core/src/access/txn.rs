//! The rollback journal of a change to several files at once (a multi-file patch): before the
//! first file is written, what every file held and what it will hold is written to a journal
//! file in the user's state folder; once the last file is written, the journal is removed. A
//! process that dies in between leaves the journal behind, and the next start of a workspace
//! that holds those files ([`recover`]) puts back every file that holds what the change wrote,
//! so a crash mid-commit leaves the files as they were before it, not half changed.
//!
//! The journal folder is `txn` in fsgate's state folder (`$FSGATE_STATE_DIR`, else
//! `$XDG_STATE_HOME/fsgate/pending`, else `~/.local/state/fsgate/pending`, else a folder of the
//! user's own in the temp folder: see `access::pending`), or the native configuration's
//! `[undo] journal_dir`; owner-only. A journal names its process: one whose process still runs
//! is left alone.
//!
//! Format: a first line `fsgate-txn 1 <pid>`, then per file a line of JSON (`path`, `prior`
//! `"absent"` or `"file"`, `mode`, `len`, `after_len`, `after_hash`) followed by the `len`
//! bytes the file held and a newline.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use serde::{Deserialize, Serialize};

use crate::access::fs::{Conflict, WriteOptions};
use crate::access::{Access, Resolved};

/// One file of a change: what it held, and what the change writes (`None`: deletes it).
pub struct Entry<'a> {
    /// The file.
    pub target: &'a Resolved,
    /// Its content and permission bits before; `None` when it did not exist.
    pub prior: Option<(&'a [u8], u32)>,
    /// What the change leaves there.
    pub after: Option<&'a [u8]>,
}

#[derive(Serialize, Deserialize)]
struct Header {
    path: PathBuf,
    prior: String,
    mode: u32,
    len: usize,
    after_len: Option<usize>,
    after_hash: Option<String>,
}

/// A stable 64-bit hash (FNV-1a) of `bytes`: stable across builds, unlike the standard
/// library's hasher, since a journal is read by a later process.
fn stable_hash(bytes: &[u8]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// The journal folder: `txn` in the state folder the access layer keeps its own journal of
/// temp names in (`access::pending`); `None` when there is none.
pub fn journal_dir() -> Option<PathBuf> {
    crate::access::pending::state_dir().map(|dir| dir.join("txn"))
}

/// A written journal: removed when dropped (the change done, or undone in memory).
pub struct Armed {
    path: PathBuf,
}

impl Drop for Armed {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// Writes the journal of a change to `entries` (durably) in `dir` (by default
/// [`journal_dir`]) before the change starts. `Err` when it cannot be written: the caller
/// does not start the change.
pub fn arm(dir: Option<&Path>, entries: &[Entry<'_>]) -> std::io::Result<Armed> {
    if let Some(dir) = dir {
        return arm_in(dir, entries, std::process::id());
    }
    let dir = journal_dir().ok_or_else(|| {
        std::io::Error::new(
            std::io::ErrorKind::NotFound,
            "no usable state folder for the rollback journal (set FSGATE_STATE_DIR)",
        )
    })?;
    arm_in(&dir, entries, std::process::id())
}

fn arm_in(dir: &Path, entries: &[Entry<'_>], pid: u32) -> std::io::Result<Armed> {
    use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)?;
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let name = format!("{pid}-{n}");
    let partial = dir.join(format!("{name}.partial"));
    let path = dir.join(format!("{name}.txn"));
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&partial)?;
    let mut out = std::io::BufWriter::new(&mut file);
    writeln!(out, "fsgate-txn 1 {pid}")?;
    for e in entries {
        let (bytes, mode) = e.prior.unwrap_or((&[], 0));
        let header = Header {
            path: e.target.path.clone(),
            prior: if e.prior.is_some() { "file" } else { "absent" }.into(),
            mode,
            len: bytes.len(),
            after_len: e.after.map(<[u8]>::len),
            after_hash: e.after.map(stable_hash),
        };
        serde_json::to_writer(&mut out, &header)?;
        out.write_all(b"\n")?;
        out.write_all(bytes)?;
        out.write_all(b"\n")?;
    }
    out.flush()?;
    drop(out);
    file.sync_all()?;
    std::fs::rename(&partial, &path)?;
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(Armed { path })
}

struct Parsed {
    pid: u32,
    files: Vec<(Header, Vec<u8>)>,
}

fn parse(bytes: &[u8]) -> Option<Parsed> {
    let line_end = |from: usize| memchr::memchr(b'\n', &bytes[from..]).map(|i| from + i);
    let first_end = line_end(0)?;
    let first = std::str::from_utf8(&bytes[..first_end]).ok()?;
    let pid = first.strip_prefix("fsgate-txn 1 ")?.parse().ok()?;
    let mut at = first_end + 1;
    let mut files = Vec::new();
    while at < bytes.len() {
        let end = line_end(at)?;
        let header: Header = serde_json::from_slice(&bytes[at..end]).ok()?;
        let start = end + 1;
        let content = bytes.get(start..start + header.len)?.to_vec();
        at = start + header.len + 1;
        files.push((header, content));
    }
    Some(Parsed { pid, files })
}

/// Rolls back the changes a process that died left half done, for the files of `access`'s
/// workspace: each file that holds what the change would have written gets its earlier
/// content back (or is removed, when it did not exist); a file changed by anyone since is left
/// as it is. Returns what it did, for the log. A journal of a process still running is left
/// alone; one naming files outside this workspace is kept for a workspace that holds them.
pub fn recover(dir: Option<&Path>, access: &Access) -> Vec<String> {
    match dir.map(Path::to_path_buf).or_else(journal_dir) {
        Some(dir) => recover_in(&dir, access),
        None => Vec::new(),
    }
}

/// Whether the process `pid` runs (this one included: another workspace of this process may
/// be in the middle of its change).
fn alive(pid: u32) -> bool {
    if pid == std::process::id() {
        return true;
    }
    let Some(pid) = rustix::process::Pid::from_raw(pid as i32) else {
        return false;
    };
    match rustix::process::test_kill_process(pid) {
        Ok(()) => true,
        Err(e) => e == rustix::io::Errno::PERM,
    }
}

fn recover_in(dir: &Path, access: &Access) -> Vec<String> {
    let mut log = Vec::new();
    let Ok(listing) = std::fs::read_dir(dir) else {
        return log;
    };
    for item in listing.flatten() {
        let path = item.path();
        if path.extension().is_none_or(|e| e != "txn") {
            continue;
        }
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        let Some(parsed) = parse(&bytes) else {
            log.push(format!(
                "rollback journal {} is unreadable; left in place",
                path.display()
            ));
            continue;
        };
        if alive(parsed.pid) {
            continue;
        }
        let mut outside = false;
        for (header, prior) in &parsed.files {
            match roll_back(access, header, prior) {
                Some(line) => log.push(line),
                None => outside = true,
            }
        }
        if !outside {
            let _ = std::fs::remove_file(&path);
        }
    }
    log
}

/// Rolls back one file; `None` when it is not in this workspace.
fn roll_back(access: &Access, header: &Header, prior: &[u8]) -> Option<String> {
    let raw = header.path.to_str()?;
    let target = access.resolve_entry(raw, None).ok()?;
    let shown = target.shown.clone();
    let now = match access.read_all(&target) {
        Ok((bytes, _)) => Some(bytes),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => {
            return Some(format!(
                "rollback: {shown} could not be read ({e}); left as is"
            ));
        }
    };
    let was = (header.prior == "file").then_some(prior);
    if now.as_deref() == was {
        return Some(format!(
            "rollback: {shown} already holds its earlier content"
        ));
    }
    let holds_after = match (&now, header.after_len, &header.after_hash) {
        (Some(bytes), Some(len), Some(hash)) => bytes.len() == len && &stable_hash(bytes) == hash,
        (None, None, None) => true,
        _ => false,
    };
    if !holds_after {
        return Some(format!(
            "rollback: {shown} changed since the interrupted change; left as is"
        ));
    }
    let done = match was {
        Some(bytes) => {
            let options = WriteOptions {
                create_new: now.is_none(),
                exact_mode: Some(header.mode),
                expect: now.as_deref(),
                ..WriteOptions::default()
            };
            access.write_atomic(&target, bytes, options).map(|_| ())
        }
        None => access
            .remove(&target, false)
            .map(|_| ())
            .map_err(|e| std::io::Error::other(e.message)),
    };
    Some(match done {
        Ok(()) => format!("rollback: {shown} restored to its content before an interrupted change"),
        Err(e) if Conflict::is(&e) => {
            format!("rollback: {shown} changed during the rollback; left as is")
        }
        Err(e) => format!("rollback: {shown} could not be restored ({e})"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The id of no running process (above every system's largest process id).
    fn dead_pid() -> u32 {
        0x7fff_fff0
    }

    #[test]
    fn a_journal_of_a_running_process_is_left_alone() {
        let (root, state, access) = fixture();
        std::fs::write(root.path().join("a.txt"), "a new\n").unwrap();
        let a = access.resolve("a.txt").unwrap();
        let _armed = arm_in(
            state.path(),
            &[Entry {
                target: &a,
                prior: Some((b"a old\n", 0o644)),
                after: Some(b"a new\n"),
            }],
            std::process::id(),
        )
        .unwrap();
        assert!(recover_in(state.path(), &access).is_empty());
        assert_eq!(
            std::fs::read_to_string(root.path().join("a.txt")).unwrap(),
            "a new\n"
        );
    }

    fn fixture() -> (tempfile::TempDir, tempfile::TempDir, Access) {
        let root = tempfile::tempdir().unwrap();
        let state = tempfile::tempdir().unwrap();
        let access = Access::new(root.path()).unwrap();
        (root, state, access)
    }

    #[test]
    fn an_interrupted_change_is_rolled_back_at_the_next_start() {
        let (root, state, access) = fixture();
        std::fs::write(root.path().join("a.txt"), "a old\n").unwrap();
        std::fs::write(root.path().join("b.txt"), "b old\n").unwrap();
        let a = access.resolve("a.txt").unwrap();
        let b = access.resolve("b.txt").unwrap();
        let c = access.resolve("c.txt").unwrap();
        let armed = arm_in(
            state.path(),
            &[
                Entry {
                    target: &a,
                    prior: Some((b"a old\n", 0o644)),
                    after: Some(b"a new\n"),
                },
                Entry {
                    target: &b,
                    prior: Some((b"b old\n", 0o600)),
                    after: None,
                },
                Entry {
                    target: &c,
                    prior: None,
                    after: Some(b"c new\n"),
                },
            ],
            dead_pid(),
        )
        .unwrap();
        // The process "dies" after writing a and c, before b: the journal stays.
        std::mem::forget(armed);
        std::fs::write(root.path().join("a.txt"), "a new\n").unwrap();
        std::fs::write(root.path().join("c.txt"), "c new\n").unwrap();
        let log = recover_in(state.path(), &access);
        assert_eq!(log.len(), 3, "{log:?}");
        assert_eq!(
            std::fs::read_to_string(root.path().join("a.txt")).unwrap(),
            "a old\n"
        );
        assert_eq!(
            std::fs::read_to_string(root.path().join("b.txt")).unwrap(),
            "b old\n"
        );
        assert!(!root.path().join("c.txt").exists());
        assert_eq!(std::fs::read_dir(state.path()).unwrap().count(), 0);
    }

    #[test]
    fn a_file_changed_by_someone_after_the_crash_is_left_alone() {
        let (root, state, access) = fixture();
        std::fs::write(root.path().join("a.txt"), "a old\n").unwrap();
        let a = access.resolve("a.txt").unwrap();
        std::mem::forget(
            arm_in(
                state.path(),
                &[Entry {
                    target: &a,
                    prior: Some((b"a old\n", 0o644)),
                    after: Some(b"a new\n"),
                }],
                dead_pid(),
            )
            .unwrap(),
        );
        std::fs::write(root.path().join("a.txt"), "someone else\n").unwrap();
        let log = recover_in(state.path(), &access);
        assert!(log[0].contains("left as is"), "{log:?}");
        assert_eq!(
            std::fs::read_to_string(root.path().join("a.txt")).unwrap(),
            "someone else\n"
        );
    }

    #[test]
    fn a_finished_change_leaves_no_journal() {
        let (root, state, access) = fixture();
        std::fs::write(root.path().join("a.txt"), "x").unwrap();
        let a = access.resolve("a.txt").unwrap();
        let armed = arm_in(
            state.path(),
            &[Entry {
                target: &a,
                prior: Some((b"x", 0o644)),
                after: Some(b"y"),
            }],
            std::process::id(),
        )
        .unwrap();
        assert_eq!(std::fs::read_dir(state.path()).unwrap().count(), 1);
        drop(armed);
        assert_eq!(std::fs::read_dir(state.path()).unwrap().count(), 0);
    }
}
