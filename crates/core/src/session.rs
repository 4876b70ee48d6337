//! What one MCP session has seen of each file, for the stale-write rule: a write that replaces a
//! whole file (gg's and qwen's `write_file`, coder's `create-file` with `overwrite`, picoclaw's
//! `write_file` with `overwrite`) and a coder line op (whose line numbers come from a read) are
//! refused when the file's content changed since this session last read or wrote it, so a
//! change someone else made meanwhile is never discarded by a model that did not see it.
//!
//! A [`Session`] belongs to one workspace, and a workspace serves one MCP session (stdio: the
//! connection; streamable HTTP: each `Mcp-Session-Id`); `fsgate call` opens a workspace per call,
//! so nothing is ever read before it. Calls reach it through [`CallContext::session`].
//!
//! For each file (by its canonical path) the session keeps what it saw: the content's length
//! and hash, after a read by any read tool (the whole file's, even when the read showed a
//! window) and after its own successful write or edit (the new content). Files up to
//! [`KEEP_TEXT`] keep their text too, so a refusal can show what changed; larger ones keep only
//! the hash, and files over [`HASH_LIMIT`] only their stamp (identity, size and change times),
//! since hashing them on every windowed read would cost more than the read. Content decides, not
//! modification times: a file only touched is unchanged, and the session's own consecutive
//! edits never trip the rule. The table holds at most [`MAX_FILES`] files (the least recently
//! used go first) and [`TEXT_BUDGET`] bytes of kept text.
//!
//! An edit's new content is what the session saw afterwards only when the edit was made from
//! the content the session had seen: an edit that merged someone else's change (edits find their
//! text wherever it is now) leaves the record where it was, so a later whole-file write is
//! still refused until the file is read again.

use std::collections::HashMap;
use std::hash::Hasher;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex};

use similar::{ChangeTag, TextDiff};

use crate::access::{Access, Meta, OpenFile, Resolved, Stamp, WriteOptions};
use crate::context::CallContext;
use crate::text::encoding;

/// Files up to this size are hashed when read; larger ones keep only their stamp.
pub const HASH_LIMIT: u64 = 8 << 20;
/// Files up to this size keep their text, so a refusal can show what changed.
pub const KEEP_TEXT: usize = 64 << 10;
/// The most text one session keeps, over all its files.
pub const TEXT_BUDGET: usize = 8 << 20;
/// The most files one session remembers.
pub const MAX_FILES: usize = 4096;
/// The most lines a refusal's diff shows.
pub const DIFF_LINES: usize = 20;
/// The longest diff line shown, in characters.
const DIFF_LINE_CHARS: usize = 160;

/// What one session has seen of the files it read or wrote. Shared by the calls of the
/// session, from any thread.
#[derive(Default)]
pub struct Session {
    table: Mutex<Table>,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let files = self.table.lock().map_or(0, |t| t.files.len());
        f.debug_struct("Session").field("files", &files).finish()
    }
}

#[derive(Default)]
struct Table {
    /// By canonical path.
    files: HashMap<PathBuf, Entry>,
    /// The canonical path each name (as the model wrote it, made absolute) last led to, so a
    /// name that now leads elsewhere (a link made or changed) is noticed.
    names: HashMap<PathBuf, PathBuf>,
    /// Ticks on every use, for least-recently-used eviction.
    clock: u64,
    /// Bytes of text kept over all entries.
    text_bytes: usize,
}

struct Entry {
    seen: Seen,
    used: u64,
}

/// What the session saw of one file.
#[derive(Clone, Debug)]
enum Seen {
    /// The content: its length and hash, its stamp when known, its text when small.
    Content {
        len: u64,
        hash: u64,
        stamp: Option<Stamp>,
        text: Option<Arc<[u8]>>,
    },
    /// A file too large to hash: its stamp.
    Stamped { len: u64, stamp: Stamp },
    /// The file changed while the session read it (or right after it wrote it), so which
    /// version the session saw is not known.
    Unsettled { len: u64 },
}

impl Seen {
    fn content(bytes: &[u8], stamp: Option<Stamp>) -> Seen {
        Seen::Content {
            len: bytes.len() as u64,
            hash: hash(bytes),
            stamp,
            text: (bytes.len() <= KEEP_TEXT).then(|| Arc::from(bytes)),
        }
    }

    fn len(&self) -> u64 {
        match self {
            Seen::Content { len, .. } | Seen::Stamped { len, .. } | Seen::Unsettled { len } => *len,
        }
    }

    fn stamp(&self) -> Option<Stamp> {
        match self {
            Seen::Content { stamp, .. } => *stamp,
            Seen::Stamped { stamp, .. } => Some(*stamp),
            Seen::Unsettled { .. } => None,
        }
    }

    fn text_len(&self) -> usize {
        match self {
            Seen::Content { text: Some(t), .. } => t.len(),
            _ => 0,
        }
    }

    /// Whether `bytes` is the content seen.
    fn holds(&self, bytes: &[u8]) -> bool {
        match self {
            Seen::Content { len, hash: h, .. } => *len == bytes.len() as u64 && *h == hash(bytes),
            Seen::Stamped { .. } | Seen::Unsettled { .. } => false,
        }
    }
}

/// The pieces content is hashed in, so a file streamed through a buffer of this size hashes as
/// its bytes in memory do.
const HASH_CHUNK: usize = 64 << 10;

fn hash(bytes: &[u8]) -> u64 {
    let mut hasher = std::hash::DefaultHasher::new();
    for chunk in bytes.chunks(HASH_CHUNK) {
        hasher.write(chunk);
    }
    hasher.finish()
}

/// The length and [`hash`] of the rest of `file`, read through one buffer.
fn hash_stream(mut file: OpenFile) -> std::io::Result<(u64, u64)> {
    let mut hasher = std::hash::DefaultHasher::new();
    let mut buf = vec![0u8; HASH_CHUNK];
    let mut len = 0u64;
    loop {
        let n = crate::access::fs::read_full(&mut file, &mut buf)?;
        if n > 0 {
            hasher.write(&buf[..n]);
            len += n as u64;
        }
        if n < buf.len() {
            return Ok((len, hasher.finish()));
        }
    }
}

/// One file as a call names it: the access layer it is reached through, its resolved target,
/// and the name the model used (made absolute), for the session's keys.
pub struct FileRef<'a> {
    access: &'a Access,
    target: &'a Resolved,
    key: PathBuf,
    name: PathBuf,
}

impl<'a> FileRef<'a> {
    /// `target`, reached through `access`, named relative to the working directory.
    pub fn new(access: &'a Access, target: &'a Resolved) -> Self {
        FileRef::in_folder(access, target, None)
    }

    /// `target`, named relative to `base` when given (coder's `base_dir`), else to the working
    /// directory.
    pub fn in_folder(access: &'a Access, target: &'a Resolved, base: Option<&Resolved>) -> Self {
        let key = match access.jail() {
            Some(_) => target.path.clone(),
            None => crate::access::fs::real_path(&target.path),
        };
        let name = match access.jail() {
            None => lexical(&target.path),
            Some(_) => {
                let from = base.map_or(access.root(), |b| b.path.as_path());
                lexical(&from.join(target.shown.trim()))
            }
        };
        FileRef {
            access,
            target,
            key,
            name,
        }
    }

    /// The target.
    pub fn target(&self) -> &Resolved {
        self.target
    }
}

/// `path` with `.` left out and `..` taken back where it can be, without asking the disk.
fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push(part);
                }
            }
            other => out.push(other),
        }
    }
    out
}

/// Where an own write's new content came from.
#[derive(Clone, Copy, Debug)]
pub enum Base<'a> {
    /// A whole-file write made after [`Session::check`] found the file as the session saw it
    /// (or found nothing to compare), guarded so it landed only on that content.
    Checked,
    /// An edit made from these bytes, the file as the edit read it.
    Bytes(&'a [u8]),
    /// An edit whose input is not at hand: it was made from what the session saw when the file
    /// it replaced has the stamp the session recorded.
    Unknown,
}

/// What a write may go on with: the file as it is, found to be what the session saw.
#[derive(Debug)]
pub struct Current {
    bytes: Option<Vec<u8>>,
    meta: Meta,
}

impl Current {
    /// The file's bytes, when they were read to tell (not for a large file whose stamp did).
    pub fn bytes(&self) -> Option<&[u8]> {
        self.bytes.as_deref()
    }

    /// `options`, writing only while the file is still what was checked.
    pub fn guard<'a>(&'a self, options: WriteOptions<'a>) -> WriteOptions<'a> {
        match &self.bytes {
            Some(bytes) => options.expecting_read(bytes, &self.meta),
            None => WriteOptions {
                expect_stamp: Some(self.meta.stamp),
                ..options
            },
        }
    }
}

/// Why a write was refused: the file is not what the session last saw.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stale {
    /// The path as the model gave it.
    pub shown: String,
    /// What happened to the file.
    pub kind: StaleKind,
    /// Its length when the session last saw it.
    pub then_len: u64,
    /// Its length now (0 when it is gone).
    pub now_len: u64,
    /// What changed, as a short diff (`-` as the session saw it, `+` as it is now), or a
    /// sentence when the lines cannot be compared; `None` when nothing can be said.
    pub changes: Option<String>,
}

/// How a file differs from what the session saw.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StaleKind {
    /// Its content changed.
    Changed,
    /// It was deleted (or moved away). The session forgets it: writing it again creates it.
    Deleted,
    /// It changed while the session read it, so what the session saw is not known.
    Unsettled,
    /// The name now leads to another file (a link made or changed).
    Relinked {
        /// The file the name led to.
        then: PathBuf,
        /// The file it leads to now.
        now: PathBuf,
    },
}

impl Stale {
    /// One sentence saying what happened, naming the file and the sizes.
    pub fn summary(&self) -> String {
        let shown = &self.shown;
        match &self.kind {
            StaleKind::Changed => format!(
                "{shown} changed on disk since this session last read or wrote it ({} then, {} \
                 now)",
                bytes(self.then_len),
                bytes(self.now_len)
            ),
            StaleKind::Deleted => format!(
                "{shown} was deleted (or moved away) since this session last read or wrote it"
            ),
            StaleKind::Unsettled => format!(
                "{shown} changed on disk while this session was reading or writing it, so what \
                 this session saw of it is not known (it has {} now)",
                bytes(self.now_len)
            ),
            StaleKind::Relinked { then, now } => format!(
                "{shown} now leads to {}, not to {} which this session read or wrote (a link \
                 was made or changed since)",
                now.display(),
                then.display()
            ),
        }
    }

    /// Whether the file is gone.
    pub fn is_deleted(&self) -> bool {
        self.kind == StaleKind::Deleted
    }

    /// The usual refusal: the summary, what the call did not do, the changes, then `next`.
    /// `refused` completes "so …" ("write_file did not replace it").
    pub fn explain(&self, refused: &str, next: &str) -> String {
        let mut text = format!("{}, so {refused}; nothing was written.", self.summary());
        if let Some(changes) = &self.changes {
            text.push('\n');
            text.push_str(changes);
        }
        text.push('\n');
        text.push_str(next);
        text
    }
}

fn bytes(n: u64) -> String {
    if n == 1 {
        "1 byte".to_string()
    } else {
        format!("{n} bytes")
    }
}

impl Session {
    /// A session that has seen nothing.
    pub fn new() -> Self {
        Session::default()
    }

    /// How many files the session remembers.
    pub fn len(&self) -> usize {
        self.table.lock().map_or(0, |t| t.files.len())
    }

    /// Whether the session remembers no file.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The stamp of `file` before a read tool reads it, for [`Session::read`].
    pub fn before_read(file: &FileRef<'_>) -> Option<Stamp> {
        file.access.metadata(file.target).ok().map(|m| m.stamp)
    }

    /// Records that a read tool showed `file` (some or all of it), `before` being its stamp
    /// from [`Session::before_read`] (or the stamp of the handle the read used): the session has
    /// seen the whole file as it is now, unless it changed meanwhile.
    pub fn read(&self, file: &FileRef<'_>, before: Option<Stamp>) {
        self.read_witnessed(file, before, Witness::default());
    }

    /// [`Session::read`], told by the read what it saw: when `witness` holds the whole content
    /// the read took from a handle whose stamp is `before` (the file did not change between the
    /// two), that is recorded; else the file is opened and read again.
    pub fn read_witnessed(&self, file: &FileRef<'_>, before: Option<Stamp>, witness: Witness) {
        if let Some((stamp, seen)) = witness.0.into_inner()
            && before == Some(stamp)
        {
            self.put(file, seen);
            return;
        }
        let Ok((handle, meta)) = file.access.open_regular(file.target) else {
            return;
        };
        let seen = if before != Some(meta.stamp) {
            Seen::Unsettled { len: meta.len }
        } else if meta.len > HASH_LIMIT {
            Seen::Stamped {
                len: meta.len,
                stamp: meta.stamp,
            }
        } else {
            match crate::access::fs::read_open(handle, &meta) {
                Ok(bytes) => Seen::content(&bytes, Some(meta.stamp)),
                Err(_) => return,
            }
        };
        self.put(file, seen);
    }

    /// Whether `file` may be replaced whole: `Ok(None)` when the session never saw it (write as
    /// the profile's document says), `Ok(Some(current))` when it holds what the session saw
    /// (write through [`Current::guard`], so the write lands only on that content), `Err` when
    /// it changed. A file deleted since is forgotten, so writing it again creates it.
    pub fn check(&self, file: &FileRef<'_>) -> Result<Option<Current>, Stale> {
        let Some(seen) = self.recall(file)? else {
            return Ok(None);
        };
        let meta = match file.access.metadata(file.target) {
            Ok(meta) => meta,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                self.forget(file);
                return Err(self.stale(file, StaleKind::Deleted, &seen, 0, None));
            }
            // The write itself will say what is wrong.
            Err(_) => return Ok(None),
        };
        if !meta.is_file {
            return Ok(None);
        }
        match &seen {
            Seen::Stamped { stamp, .. } if *stamp == meta.stamp => {
                Ok(Some(Current { bytes: None, meta }))
            }
            Seen::Stamped { .. } => {
                Err(self.stale(file, StaleKind::Changed, &seen, meta.len, None))
            }
            Seen::Unsettled { .. } => {
                Err(self.stale(file, StaleKind::Unsettled, &seen, meta.len, None))
            }
            Seen::Content {
                len,
                hash: seen_hash,
                ..
            } => {
                if *len != meta.len && meta.len as usize > KEEP_TEXT {
                    return Err(self.stale(file, StaleKind::Changed, &seen, meta.len, None));
                }
                if meta.len > HASH_LIMIT {
                    // Hashed through one buffer; the write is then guarded by the stamp.
                    let Ok((handle, read)) = file.access.open_regular(file.target) else {
                        return Ok(None);
                    };
                    return match hash_stream(handle) {
                        Ok((n, h)) if n == *len && h == *seen_hash => Ok(Some(Current {
                            bytes: None,
                            meta: read,
                        })),
                        Ok((n, _)) => Err(self.stale(file, StaleKind::Changed, &seen, n, None)),
                        Err(_) => Ok(None),
                    };
                }
                match file.access.read_all(file.target) {
                    Ok((bytes, read)) if seen.holds(&bytes) => {
                        // Same content under a new stamp (touched): later edits compare stamps.
                        self.restamp(file, read.stamp);
                        Ok(Some(Current {
                            bytes: Some(bytes),
                            meta: read,
                        }))
                    }
                    Ok((bytes, read)) => {
                        Err(self.stale(file, StaleKind::Changed, &seen, read.len, Some(&bytes)))
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                        self.forget(file);
                        Err(self.stale(file, StaleKind::Deleted, &seen, 0, None))
                    }
                    Err(_) => Ok(None),
                }
            }
        }
    }

    /// [`Session::check`] for a caller holding the file's bytes (`now`, just read): `Ok(true)`
    /// when they are what the session saw, `Ok(false)` when the session never saw the file.
    pub fn judge(&self, file: &FileRef<'_>, now: &[u8]) -> Result<bool, Stale> {
        let Some(seen) = self.recall(file)? else {
            return Ok(false);
        };
        let now_len = now.len() as u64;
        match &seen {
            Seen::Content { .. } if seen.holds(now) => Ok(true),
            Seen::Content { .. } => {
                Err(self.stale(file, StaleKind::Changed, &seen, now_len, Some(now)))
            }
            Seen::Stamped { stamp, .. } => match file.access.metadata(file.target) {
                Ok(meta) if meta.stamp == *stamp && meta.len == now_len => Ok(true),
                _ => Err(self.stale(file, StaleKind::Changed, &seen, now_len, None)),
            },
            Seen::Unsettled { .. } => {
                Err(self.stale(file, StaleKind::Unsettled, &seen, now_len, None))
            }
        }
    }

    /// Records this session's own successful write or edit of `file`: `new` is the content
    /// written when at hand (else the file is read back). The record moves on to the new
    /// content only when `base` shows the change was made from what the session saw (or the
    /// session had not seen the file); an edit that merged someone else's change leaves it.
    pub fn wrote(&self, file: &FileRef<'_>, base: Base<'_>, new: Option<&[u8]>) {
        let replaced = crate::access::fs::take_last_replaced();
        let old = self.peek(file);
        let consistent = match (&old, base) {
            (None, _) | (Some(_), Base::Checked) => true,
            (Some(seen), Base::Bytes(bytes)) => {
                seen.holds(bytes) || seen.stamp().is_some_and(|s| same_base(replaced, s))
            }
            (Some(seen), Base::Unknown) => seen.stamp().is_some_and(|s| same_base(replaced, s)),
        };
        if !consistent {
            self.name(file);
            return;
        }
        let new_stamp = replaced.map(|(_, new)| new);
        let seen = match new {
            Some(bytes) => Seen::content(bytes, new_stamp),
            None => match file.access.metadata(file.target) {
                Ok(meta) if meta.len > HASH_LIMIT => match new_stamp {
                    Some(stamp) if stamp == meta.stamp => Seen::Stamped {
                        len: meta.len,
                        stamp,
                    },
                    _ => Seen::Unsettled { len: meta.len },
                },
                Ok(_) => match file.access.read_all(file.target) {
                    Ok((bytes, read)) if new_stamp == Some(read.stamp) => {
                        Seen::content(&bytes, new_stamp)
                    }
                    Ok((_, read)) => Seen::Unsettled { len: read.len },
                    Err(_) => return self.forget(file),
                },
                Err(_) => return self.forget(file),
            },
        };
        self.put(file, seen);
    }

    /// Records an append of `appended` to `file`, which held `before` (bytes the session had
    /// seen, from [`Session::check`]) and was `old_len` bytes long when the append opened it:
    /// when nobody wrote in between, the session has seen the whole new content.
    pub fn appended(&self, file: &FileRef<'_>, before: &[u8], old_len: u64, appended: &[u8]) {
        if before.len() as u64 != old_len {
            return;
        }
        let mut whole = Vec::with_capacity(before.len() + appended.len());
        whole.extend_from_slice(before);
        whole.extend_from_slice(appended);
        self.put(file, Seen::content(&whole, None));
    }

    /// Forgets `file` (deleted or moved by this session, or found deleted).
    pub fn forget(&self, file: &FileRef<'_>) {
        if let Ok(mut table) = self.table.lock() {
            if let Some(entry) = table.files.remove(&file.key) {
                table.text_bytes = table.text_bytes.saturating_sub(entry.seen.text_len());
            }
            table.names.remove(&file.name);
        }
    }

    /// Moves what the session saw of `from` to `to` (a move or rename by this session): the
    /// file at `to` is the one the session saw at `from`.
    pub fn moved(&self, from: &FileRef<'_>, to: &FileRef<'_>) {
        let Ok(mut table) = self.table.lock() else {
            return;
        };
        let entry = table.files.remove(&from.key);
        table.names.remove(&from.name);
        if let Some(old) = table.files.remove(&to.key) {
            table.text_bytes = table.text_bytes.saturating_sub(old.seen.text_len());
        }
        match entry {
            Some(entry) => {
                table.files.insert(to.key.clone(), entry);
                table.names.insert(to.name.clone(), to.key.clone());
            }
            None => {
                table.names.remove(&to.name);
            }
        }
    }

    /// What the session saw of `file`, if anything; `Err` when the name now leads to another
    /// file than the one it led to when the session last used it.
    fn recall(&self, file: &FileRef<'_>) -> Result<Option<Seen>, Stale> {
        let Ok(mut table) = self.table.lock() else {
            return Ok(None);
        };
        if let Some(then) = table.names.get(&file.name)
            && *then != file.key
            && let Some(entry) = table.files.get(then)
        {
            let then = then.clone();
            let then_len = entry.seen.len();
            let now_len = file.access.metadata(file.target).map_or(0, |m| m.len);
            return Err(Stale {
                shown: file.target.shown.clone(),
                kind: StaleKind::Relinked {
                    then,
                    now: file.key.clone(),
                },
                then_len,
                now_len,
                changes: None,
            });
        }
        table.clock += 1;
        let clock = table.clock;
        Ok(table.files.get_mut(&file.key).map(|entry| {
            entry.used = clock;
            entry.seen.clone()
        }))
    }

    /// Notes that the content the session saw of `file` now has `stamp`.
    fn restamp(&self, file: &FileRef<'_>, now: Stamp) {
        if let Ok(mut table) = self.table.lock()
            && let Some(Entry {
                seen: Seen::Content { stamp, .. },
                ..
            }) = table.files.get_mut(&file.key)
        {
            *stamp = Some(now);
        }
    }

    fn peek(&self, file: &FileRef<'_>) -> Option<Seen> {
        let table = self.table.lock().ok()?;
        table.files.get(&file.key).map(|e| e.seen.clone())
    }

    /// Notes the file `file`'s name leads to.
    fn name(&self, file: &FileRef<'_>) {
        if let Ok(mut table) = self.table.lock() {
            table.names.insert(file.name.clone(), file.key.clone());
        }
    }

    fn put(&self, file: &FileRef<'_>, seen: Seen) {
        let Ok(mut table) = self.table.lock() else {
            return;
        };
        table.clock += 1;
        let used = table.clock;
        table.text_bytes += seen.text_len();
        if let Some(old) = table.files.insert(file.key.clone(), Entry { seen, used }) {
            table.text_bytes = table.text_bytes.saturating_sub(old.seen.text_len());
        }
        table.names.insert(file.name.clone(), file.key.clone());
        table.bound();
    }

    fn stale(
        &self,
        file: &FileRef<'_>,
        kind: StaleKind,
        seen: &Seen,
        now_len: u64,
        now: Option<&[u8]>,
    ) -> Stale {
        let changes = match (seen, now) {
            (
                Seen::Content {
                    text: Some(then), ..
                },
                Some(now),
            ) if now.len() <= KEEP_TEXT => Some(diff(then, now)),
            _ if kind == StaleKind::Changed => Some(format!(
                "Which lines changed is not known: this session keeps a copy of files up to {} \
                 KiB only.",
                KEEP_TEXT >> 10
            )),
            _ => None,
        };
        Stale {
            shown: file.target.shown.clone(),
            kind,
            then_len: seen.len(),
            now_len,
            changes,
        }
    }
}

/// Whether the last replacement replaced the file with stamp `seen`.
fn same_base(replaced: Option<(Option<Stamp>, Stamp)>, seen: Stamp) -> bool {
    replaced.is_some_and(|(base, _)| base == Some(seen))
}

impl Table {
    /// Keeps the table within [`MAX_FILES`] files and [`TEXT_BUDGET`] bytes of text.
    fn bound(&mut self) {
        if self.files.len() > MAX_FILES {
            // Drop the least recently used eighth at once, so eviction is rare.
            let mut used: Vec<u64> = self.files.values().map(|e| e.used).collect();
            used.sort_unstable();
            let cut = used[(MAX_FILES / 8).min(used.len() - 1)];
            let mut freed = 0;
            self.files.retain(|_, e| {
                let keep = e.used > cut;
                if !keep {
                    freed += e.seen.text_len();
                }
                keep
            });
            self.text_bytes = self.text_bytes.saturating_sub(freed);
            let files = &self.files;
            self.names.retain(|_, key| files.contains_key(key));
        }
        if self.names.len() > 2 * MAX_FILES {
            let files = &self.files;
            self.names.retain(|_, key| files.contains_key(key));
        }
        if self.text_bytes > TEXT_BUDGET {
            // Down to three quarters of the budget at once, so the scan is rare.
            let target = TEXT_BUDGET / 4 * 3;
            let mut order: Vec<(u64, PathBuf)> = self
                .files
                .iter()
                .filter(|(_, e)| e.seen.text_len() > 0)
                .map(|(k, e)| (e.used, k.clone()))
                .collect();
            order.sort_unstable();
            for (_, key) in order {
                if self.text_bytes <= target {
                    break;
                }
                if let Some(Entry {
                    seen: Seen::Content { text, .. },
                    ..
                }) = self.files.get_mut(&key)
                    && let Some(dropped) = text.take()
                {
                    self.text_bytes = self.text_bytes.saturating_sub(dropped.len());
                }
            }
        }
    }
}

/// Text for a diff: UTF-8 as it is, another encoding decoded, else lossy.
fn text_of(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(text) => text.to_string(),
        Err(_) => match encoding::decode_foreign(bytes, None) {
            Some(decoded) => decoded.text,
            None => String::from_utf8_lossy(bytes).into_owned(),
        },
    }
}

/// What changed from `then` to `now`: a short diff with one line of context, at most
/// [`DIFF_LINES`] lines, or a sentence when only line endings changed.
pub fn diff(then: &[u8], now: &[u8]) -> String {
    let (old, new) = (text_of(then), text_of(now));
    if old.replace("\r\n", "\n") == new.replace("\r\n", "\n") {
        let ending = |t: &str| if t.contains("\r\n") { "CRLF" } else { "LF" };
        return format!(
            "Only its line endings changed (the text is the same): {} then, {} now.",
            ending(&old),
            ending(&new)
        );
    }
    let diff = TextDiff::configure()
        .timeout(std::time::Duration::from_millis(200))
        .diff_lines(old.as_str(), new.as_str());
    let mut lines: Vec<String> = Vec::new();
    let mut left_out = 0usize;
    for group in diff.grouped_ops(1) {
        let (Some(first), Some(last)) = (group.first(), group.last()) else {
            continue;
        };
        let old_from = first.old_range().start;
        let old_to = last.old_range().end;
        let new_from = first.new_range().start;
        let new_to = last.new_range().end;
        let header = format!(
            "@@ -{} +{} @@",
            range(old_from, old_to),
            range(new_from, new_to)
        );
        let mut body = Vec::new();
        for op in &group {
            for change in diff.iter_changes(op) {
                let sign = match change.tag() {
                    ChangeTag::Delete => '-',
                    ChangeTag::Insert => '+',
                    ChangeTag::Equal => ' ',
                };
                let text = change.value().trim_end_matches('\n').trim_end_matches('\r');
                body.push(format!("{sign}{}", clip(text)));
            }
        }
        if lines.len() + 1 + body.len() <= DIFF_LINES || lines.is_empty() {
            let room = DIFF_LINES.saturating_sub(lines.len() + 1);
            lines.push(header);
            let shown = body.len().min(room);
            left_out += body[shown..].iter().filter(|l| !l.starts_with(' ')).count();
            lines.extend(body.into_iter().take(shown));
        } else {
            left_out += body.iter().filter(|l| !l.starts_with(' ')).count();
        }
    }
    let mut text = format!(
        "What changed (- as this session saw it, + on disk now):\n{}",
        lines.join("\n")
    );
    if left_out > 0 {
        text.push_str(&format!("\n… and {left_out} more changed lines not shown."));
    }
    text
}

/// A unified diff's range of 0-based `from..to` as `start,count` (1-based start).
fn range(from: usize, to: usize) -> String {
    let count = to - from;
    match count {
        1 => format!("{}", from + 1),
        0 => format!("{from},0"),
        _ => format!("{},{count}", from + 1),
    }
}

fn clip(line: &str) -> String {
    if line.chars().count() <= DIFF_LINE_CHARS {
        return line.to_string();
    }
    let head: String = line.chars().take(DIFF_LINE_CHARS).collect();
    format!("{head}… ({} chars)", line.chars().count())
}

/// Runs `read`, a read tool's work on `target`, and records what the call's session saw of the
/// file when it succeeds.
pub fn reading<T, E>(
    ctx: &CallContext,
    access: &Access,
    target: &Resolved,
    read: impl FnOnce() -> Result<T, E>,
) -> Result<T, E> {
    reading_witnessed(ctx, access, target, |_| read())
}

/// [`reading`] for a read that can say what it saw of the whole file: `read` is given a
/// [`Witness`] (when the call has a session) to fill, and a filled one is recorded as it is,
/// without opening the file again.
pub fn reading_witnessed<T, E>(
    ctx: &CallContext,
    access: &Access,
    target: &Resolved,
    read: impl FnOnce(Option<&Witness>) -> Result<T, E>,
) -> Result<T, E> {
    let Some(session) = ctx.session() else {
        return read(None);
    };
    let file = FileRef::new(access, target);
    let before = Session::before_read(&file);
    let witness = Witness::default();
    let out = read(Some(&witness))?;
    session.read_witnessed(&file, before, witness);
    Ok(out)
}

/// What a read saw of a whole file, told by the read itself: the stamp of the handle it read
/// from, and the content it read through that handle. A read that holds all of a small file
/// anyway fills it, so the session records what the read showed without reading it again.
#[derive(Debug, Default)]
pub struct Witness(std::sync::OnceLock<(Stamp, Seen)>);

impl Witness {
    /// The read of the handle whose stamp (taken when it was opened) is `stamp` gave `bytes`,
    /// the file's whole content. Only the first call counts.
    pub fn saw(&self, stamp: Stamp, bytes: &[u8]) {
        if bytes.len() as u64 == stamp.len && stamp.len <= HASH_LIMIT {
            let _ = self.0.set((stamp, Seen::content(bytes, Some(stamp))));
        }
    }
}

/// [`reading`] for a tool that resolves its own path: `raw` (trimmed) is resolved here only to
/// record the read; a path that does not resolve records nothing.
pub fn reading_path<T, E>(
    ctx: &CallContext,
    access: &Access,
    raw: Option<&str>,
    read: impl FnOnce() -> Result<T, E>,
) -> Result<T, E> {
    let target = match (ctx.session(), raw) {
        (Some(_), Some(raw)) => access.resolve(raw.trim()).ok(),
        _ => None,
    };
    match target {
        Some(target) => reading(ctx, access, &target, read),
        None => read(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_diff_shows_the_changed_lines_with_one_line_of_context() {
        let then = b"a\nb\nc\nd\ne\n";
        let now = b"a\nb\nC\nd\ne\n";
        let text = diff(then, now);
        assert!(text.contains("@@ -2,3 +2,3 @@"), "{text}");
        assert!(text.contains("\n-c\n+C\n"), "{text}");
        assert!(!text.lines().any(|l| l == " a" || l == " e"), "{text}");
    }

    #[test]
    fn a_diff_of_line_endings_alone_says_so() {
        let text = diff(b"a\nb\n", b"a\r\nb\r\n");
        assert!(text.contains("line endings"), "{text}");
        assert!(text.contains("LF then, CRLF now"), "{text}");
    }

    #[test]
    fn a_long_diff_is_cut_at_its_line_bound_and_counts_the_rest() {
        let then: String = (0..200).map(|i| format!("line {i}\n")).collect();
        let now: String = (0..200).map(|i| format!("LINE {i}\n")).collect();
        let text = diff(then.as_bytes(), now.as_bytes());
        assert!(text.lines().count() <= DIFF_LINES + 2, "{text}");
        assert!(text.contains("more changed lines not shown"), "{text}");
    }

    fn workspace(files: &[(&str, &str)]) -> (tempfile::TempDir, Access) {
        let dir = tempfile::tempdir().unwrap();
        for (name, text) in files {
            crate::access::fs::write_atomic(
                crate::access::Place::Ambient(&dir.path().join(name)),
                text.as_bytes(),
                WriteOptions::default(),
            )
            .unwrap();
        }
        let access = Access::new(dir.path()).unwrap();
        (dir, access)
    }

    #[test]
    fn a_read_that_raced_a_change_leaves_the_file_unsettled_until_read_again() {
        let (_dir, access) = workspace(&[("a.txt", "one\n")]);
        let target = access.resolve("a.txt").unwrap();
        let file = FileRef::new(&access, &target);
        let session = Session::new();
        // The stamp taken before the read is not the file's: it changed meanwhile.
        session.read(&file, None);
        let stale = session.check(&file).unwrap_err();
        assert_eq!(stale.kind, StaleKind::Unsettled);
        assert!(
            stale.summary().contains("while this session was reading"),
            "{stale:?}"
        );
        session.read(&file, Session::before_read(&file));
        assert!(session.check(&file).unwrap().is_some());
    }

    #[test]
    // Another process's change, made beside the access layer on purpose.
    #[allow(clippy::disallowed_methods)]
    fn a_read_that_tells_what_it_read_records_that_content_not_a_later_one() {
        let (dir, access) = workspace(&[("a.txt", "one\n")]);
        let target = access.resolve("a.txt").unwrap();
        let file = FileRef::new(&access, &target);
        let session = Session::new();
        let before = Session::before_read(&file);
        let (bytes, meta) = access.read_all(&target).unwrap();
        let witness = Witness::default();
        witness.saw(meta.stamp, &bytes);
        // Another process writes the file after the read and before the session records it.
        std::fs::write(dir.path().join("a.txt"), "two\n").unwrap();
        session.read_witnessed(&file, before, witness);
        // The session saw "one": the change since is shown as a change of what it read.
        let stale = session.check(&file).unwrap_err();
        assert_eq!(stale.kind, StaleKind::Changed, "{stale:?}");
        let changes = stale.changes.as_deref().unwrap_or_default();
        assert!(
            changes.contains("-one") && changes.contains("+two"),
            "{stale:?}"
        );
    }

    #[test]
    // Another process's change, made beside the access layer on purpose.
    #[allow(clippy::disallowed_methods)]
    fn a_witness_of_a_handle_the_stamp_before_does_not_match_is_not_trusted() {
        let (dir, access) = workspace(&[("a.txt", "one\n")]);
        let target = access.resolve("a.txt").unwrap();
        let file = FileRef::new(&access, &target);
        let session = Session::new();
        let before = Session::before_read(&file);
        // The file is replaced between the stamp taken before and the read's open.
        std::fs::write(dir.path().join("b.txt"), "two\n").unwrap();
        std::fs::rename(dir.path().join("b.txt"), dir.path().join("a.txt")).unwrap();
        let (bytes, meta) = access.read_all(&target).unwrap();
        let witness = Witness::default();
        witness.saw(meta.stamp, &bytes);
        session.read_witnessed(&file, before, witness);
        let stale = session.check(&file).unwrap_err();
        assert_eq!(stale.kind, StaleKind::Unsettled, "{stale:?}");
    }

    #[test]
    fn a_witness_of_part_of_a_file_is_not_kept() {
        let (_dir, access) = workspace(&[("a.txt", "one\ntwo\n")]);
        let target = access.resolve("a.txt").unwrap();
        let (bytes, meta) = access.read_all(&target).unwrap();
        let witness = Witness::default();
        witness.saw(meta.stamp, &bytes[..4]);
        assert!(witness.0.get().is_none());
        witness.saw(meta.stamp, &bytes);
        assert!(witness.0.get().is_some());
    }

    #[test]
    fn the_table_keeps_at_most_its_file_count_and_text_budget() {
        let (_dir, access) = workspace(&[]);
        let session = Session::new();
        let text = vec![b'x'; KEEP_TEXT];
        for i in 0..MAX_FILES + 50 {
            let target = access.resolve(&format!("f{i}.txt")).unwrap();
            session.wrote(&FileRef::new(&access, &target), Base::Checked, Some(&text));
        }
        assert!(session.len() <= MAX_FILES, "{}", session.len());
        let table = session.table.lock().unwrap();
        assert!(table.text_bytes <= TEXT_BUDGET, "{}", table.text_bytes);
        let kept: usize = table.files.values().map(|e| e.seen.text_len()).sum();
        assert_eq!(kept, table.text_bytes);
        // The most recent file is still remembered, with its text.
        let last = access.resolve(&format!("f{}.txt", MAX_FILES + 49)).unwrap();
        let key = FileRef::new(&access, &last).key;
        assert_eq!(table.files[&key].seen.text_len(), KEEP_TEXT);
    }

    #[test]
    fn a_file_hashed_through_a_buffer_hashes_as_its_bytes_do() {
        let bytes: Vec<u8> = (0..3 * HASH_CHUNK + 17).map(|i| (i % 251) as u8).collect();
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let (_dir, access) = workspace(&[("big.bin", &text)]);
        let target = access.resolve("big.bin").unwrap();
        let (handle, _) = access.open_regular(&target).unwrap();
        let stored = text.as_bytes();
        assert_eq!(
            hash_stream(handle).unwrap(),
            (stored.len() as u64, hash(stored))
        );
        let mut other = stored.to_vec();
        other[2 * HASH_CHUNK] ^= 1;
        assert_ne!(hash(&other), hash(stored));
    }

    #[test]
    fn names_are_made_lexically_absolute() {
        assert_eq!(lexical(Path::new("/a/./b/../c")), PathBuf::from("/a/c"));
    }
}
