//! The session's undo journal: what every mutation found at the paths it changed (bytes,
//! permission bits and modification time of files, folders, links as written), and what it
//! left there, so that `undo` can put back exactly the earlier state — a deleted file or tree,
//! a moved path, an edited file — and refuses (`stale`) when something changed a path since.
//!
//! The journal is bounded: at most [`Journal::new`]'s steps and bytes of earlier content; the
//! oldest steps are forgotten first. A step whose earlier content alone is over the byte bound
//! is kept as one that cannot be undone, so that undo stops there instead of skipping it and
//! restoring older steps over a state they never saw.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::access::fs::{EntryKind, Stamp, WriteOptions};
use crate::access::{Access, Resolved};
use crate::error::{ErrorKind, Result, ToolError};
use crate::ops::version;

/// What was at a path before a step.
#[derive(Clone, Debug)]
pub enum Prior {
    /// Nothing.
    Absent,
    /// A regular file.
    File {
        /// Its content.
        bytes: Arc<[u8]>,
        /// Its permission bits.
        mode: u32,
        /// Its modification time (seconds, nanoseconds).
        mtime: (i64, i64),
    },
    /// A folder (its entries have records of their own when the step removed them).
    Dir {
        /// Its permission bits.
        mode: u32,
    },
    /// A symbolic link.
    Link {
        /// What it holds, as written.
        text: PathBuf,
    },
}

impl Prior {
    fn bytes(&self) -> usize {
        match self {
            Prior::File { bytes, .. } => bytes.len(),
            _ => 0,
        }
    }
}

/// What a step left at a path, to tell whether it is still there at undo.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Left {
    /// Nothing.
    Absent,
    /// A regular file with this content (its version token).
    File(String),
    /// A folder.
    Dir,
    /// A symbolic link holding this text.
    Link(PathBuf),
    /// The same entry (device, inode, size, modification time): a folder or link a move put
    /// there, or a file too large to hash.
    Same((u64, u64, u64, (i64, i64))),
}

/// One path a step changed.
#[derive(Clone, Debug)]
pub struct Record {
    /// The path.
    pub target: Resolved,
    /// What was there before.
    pub prior: Prior,
    /// What the step left there.
    pub left: Left,
}

/// One mutation, as undo sees it. (A journal holds at most a few hundred, so the size of the
/// largest variant does not matter.)
#[derive(Clone, Debug)]
#[allow(clippy::large_enum_variant)]
pub enum Step {
    /// Paths whose earlier states are restored one by one.
    Restore {
        /// What the step was, for the answer (`edit a.rs`).
        label: String,
        /// The paths.
        records: Vec<Record>,
    },
    /// An entry renamed: undone by renaming it back.
    Moved {
        /// What the step was.
        label: String,
        /// Where it was.
        from: Resolved,
        /// Where it went.
        to: Resolved,
        /// What the move left at `to` (a file by its content: a later edit and its undo give
        /// it a new inode; anything else by identity).
        left: Left,
        /// What the move replaced at `to`, restored after the rename back.
        replaced: Option<Box<Record>>,
        /// The folders the move made for `to`, innermost first: removed again, when empty.
        made: Vec<Record>,
    },
    /// A step that cannot be undone, and why.
    Lost {
        /// What the step was.
        label: String,
        /// Why it cannot be undone.
        reason: String,
    },
}

impl Step {
    fn label(&self) -> &str {
        match self {
            Step::Restore { label, .. } | Step::Moved { label, .. } | Step::Lost { label, .. } => {
                label
            }
        }
    }

    fn bytes(&self) -> usize {
        match self {
            Step::Restore { records, .. } => records.iter().map(|r| r.prior.bytes()).sum(),
            Step::Moved { replaced, .. } => replaced.as_ref().map_or(0, |r| r.prior.bytes()),
            Step::Lost { .. } => 0,
        }
    }
}

/// What a move left at `to`, found there after the move: a regular file up to `hash_max`
/// bytes by its content, anything else by its identity.
pub fn left_by_move(access: &Access, to: &Resolved, hash_max: u64) -> Option<Left> {
    let meta = access.symlink_metadata(to).ok()?;
    if meta.is_symlink
        && let Ok(text) = access.read_link(to)
    {
        return Some(Left::Link(text));
    }
    if meta.is_file
        && meta.len <= hash_max
        && let Ok((bytes, _)) = access.read_all(to)
    {
        return Some(Left::File(version::of(&bytes)));
    }
    Some(Left::Same(identity(&meta.stamp)))
}

/// The identity a move keeps: device, inode, size and modification time (a rename changes the
/// status change time, not these).
pub fn identity(stamp: &Stamp) -> (u64, u64, u64, (i64, i64)) {
    (stamp.dev, stamp.ino, stamp.len, stamp.mtime)
}

/// The session's journal.
#[derive(Debug)]
pub struct Journal {
    inner: Mutex<Steps>,
    max_steps: usize,
    max_bytes: usize,
}

#[derive(Debug, Default)]
struct Steps {
    steps: VecDeque<Step>,
    bytes: usize,
    /// Steps dropped off the old end.
    forgotten: usize,
}

impl Journal {
    /// A journal of at most `max_steps` steps and `max_bytes` bytes of earlier content.
    pub fn new(max_steps: usize, max_bytes: usize) -> Journal {
        Journal {
            inner: Mutex::new(Steps::default()),
            max_steps,
            max_bytes,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Steps> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Records `step`; the oldest steps are forgotten past the bounds. Returns the note a
    /// result carries when the step itself cannot be undone.
    pub fn record(&self, step: Step) -> Option<String> {
        if self.max_steps == 0 {
            return None;
        }
        let bytes = step.bytes();
        let step = if bytes > self.max_bytes {
            Step::Lost {
                reason: format!(
                    "its earlier content ({bytes} bytes) is over the undo budget ({} bytes, \
                     [undo] max_bytes)",
                    self.max_bytes
                ),
                label: step.label().to_string(),
            }
        } else {
            step
        };
        let note = match &step {
            Step::Lost { reason, .. } => Some(format!("undo cannot restore this: {reason}")),
            _ => None,
        };
        let mut steps = self.lock();
        steps.bytes += step.bytes();
        steps.steps.push_back(step);
        while steps.steps.len() > self.max_steps || steps.bytes > self.max_bytes {
            let Some(old) = steps.steps.pop_front() else {
                break;
            };
            steps.bytes -= old.bytes();
            steps.forgotten += 1;
        }
        note
    }

    /// How many steps can be undone now.
    pub fn len(&self) -> usize {
        self.lock().steps.len()
    }

    /// Whether no step is recorded.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Undoes the last `steps` steps, newest first, each all or nothing. Stops at the first
    /// that cannot be undone (it stays recorded) with an error that says how many were.
    pub fn undo(&self, access: &Access, steps: usize) -> Result<String> {
        let mut journal = self.lock();
        if journal.steps.is_empty() {
            let forgotten = match journal.forgotten {
                0 => String::new(),
                n => format!(
                    " ({n} older steps were forgotten: the journal keeps {} steps and {} bytes)",
                    self.max_steps, self.max_bytes
                ),
            };
            return Err(ToolError::invalid(format!(
                "there is nothing to undo: this session has recorded no change{forgotten}"
            )));
        }
        let mut out = String::new();
        for done in 0..steps {
            let Some(step) = journal.steps.pop_back() else {
                out.push_str(&format!(
                    "no more steps: {done} undone of the {steps} asked for\n"
                ));
                break;
            };
            match undo_step(access, &step) {
                Ok(lines) => {
                    journal.bytes -= step.bytes();
                    out.push_str(&format!("undid {}\n", step.label()));
                    out.push_str(&lines);
                }
                Err(e) => {
                    journal.steps.push_back(step);
                    let so_far = if done == 0 {
                        String::new()
                    } else {
                        format!(" ({done} newer steps were undone before it:\n{out})")
                    };
                    return Err(ToolError::new(e.kind, format!("{}{so_far}", e.message)));
                }
            }
        }
        Ok(out)
    }
}

/// What is at `target` now, as a [`Prior`] (the state a step starts from). A FIFO, socket or
/// device cannot be restored: `Err` with why.
pub fn prior_of(access: &Access, target: &Resolved) -> std::result::Result<Prior, String> {
    let meta = match access.symlink_metadata(target) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Prior::Absent),
        Err(e) => return Err(format!("{} could not be read: {e}", target.shown)),
    };
    if meta.is_symlink {
        let text = access
            .read_link(target)
            .map_err(|e| format!("the link {} could not be read: {e}", target.shown))?;
        return Ok(Prior::Link { text });
    }
    if meta.is_dir {
        return Ok(Prior::Dir { mode: meta.mode });
    }
    if !meta.is_file {
        return Err(format!("{} is a FIFO, socket or device", target.shown));
    }
    let (bytes, meta) = access
        .read_all(target)
        .map_err(|e| format!("{} could not be read: {e}", target.shown))?;
    Ok(Prior::File {
        bytes: bytes.into(),
        mode: meta.mode,
        mtime: meta.stamp.mtime,
    })
}

/// The earlier state of a whole tree at `target` (the folder, everything in it), folders
/// first, for a step that removes it; `Err` with why it cannot be kept (over `budget` bytes, a
/// special file, a name that is not UTF-8).
pub fn tree_prior(
    access: &Access,
    target: &Resolved,
    budget: usize,
) -> std::result::Result<Vec<(Resolved, Prior)>, String> {
    let mut kept = Vec::new();
    let mut bytes = 0usize;
    let mut stack = vec![target.clone()];
    while let Some(at) = stack.pop() {
        let prior = prior_of(access, &at)?;
        bytes += prior.bytes();
        if bytes > budget {
            return Err(format!(
                "its content is over the undo budget ({budget} bytes, [undo] max_bytes)"
            ));
        }
        if let Prior::Dir { .. } = prior {
            let entries = access
                .read_dir(&at)
                .map_err(|e| format!("{} could not be listed: {e}", at.shown))?;
            for entry in entries {
                if matches!(entry.kind, EntryKind::Other) {
                    return Err(format!(
                        "{}/{} is a FIFO, socket or device",
                        at.shown,
                        entry.name.to_string_lossy()
                    ));
                }
                let path = at.path.join(&entry.name);
                let child = child_of(access, &path)?;
                stack.push(child);
            }
        }
        kept.push((at, prior));
    }
    Ok(kept)
}

fn child_of(access: &Access, path: &Path) -> std::result::Result<Resolved, String> {
    let raw = path
        .to_str()
        .ok_or_else(|| format!("the name {} is not UTF-8", path.to_string_lossy()))?;
    access
        .resolve_entry(raw, None)
        .map_err(|e| format!("{raw}: {}", e.message))
}

/// The folders above `target` that do not exist yet (a write there makes them), innermost
/// first, as records a step removes again at undo.
pub fn missing_parents(access: &Access, target: &Resolved) -> Vec<Record> {
    let mut made = Vec::new();
    let mut at = target.path.parent();
    while let Some(dir) = at {
        let Ok(resolved) = child_of(access, dir) else {
            break;
        };
        match access.symlink_metadata(&resolved) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => made.push(Record {
                target: resolved,
                prior: Prior::Absent,
                left: Left::Dir,
            }),
            _ => break,
        }
        at = dir.parent();
    }
    made
}

fn depth(target: &Resolved) -> usize {
    target.path.components().count()
}

/// Whether `record`'s path still holds what the step left there; `Err` (stale) when not,
/// saying what is there instead. Gives the bytes of a file the step left, for the write that
/// restores it.
fn still_left(access: &Access, record: &Record) -> Result<Option<Vec<u8>>> {
    let shown = &record.target.shown;
    let meta = match access.symlink_metadata(&record.target) {
        Ok(meta) => Some(meta),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(ToolError::from_io(&e, "check", shown)),
    };
    let stale = |now: String| {
        ToolError::new(
            ErrorKind::Stale,
            format!(
                "{shown} changed since that step: {now}, so undo does not overwrite it \
                 (nothing was restored for this step). Read it, and restore what you need by \
                 hand with write_file or edit"
            ),
        )
    };
    match (&record.left, meta) {
        (Left::Absent, None) => Ok(None),
        (Left::Absent, Some(_)) => Err(stale("something was created there".into())),
        (Left::Dir, Some(m)) if m.is_dir => Ok(None),
        (Left::Dir, _) => Err(stale("the folder the step made is gone".into())),
        (Left::File(version), Some(m)) if m.is_file => {
            let (bytes, _) = access
                .read_all(&record.target)
                .map_err(|e| ToolError::from_io(&e, "read", shown))?;
            let now = version::of(&bytes);
            if &now == version {
                Ok(Some(bytes))
            } else {
                Err(stale(format!(
                    "it is at {now}, not {version} as the step left it"
                )))
            }
        }
        (Left::File(_), None) => Err(stale("it was deleted".into())),
        (Left::File(_), Some(_)) => Err(stale("it is no longer a regular file".into())),
        (Left::Same(id), Some(m)) if identity(&m.stamp) == *id => Ok(None),
        (Left::Link(text), Some(m))
            if m.is_symlink && access.read_link(&record.target).is_ok_and(|t| t == *text) =>
        {
            Ok(None)
        }
        (Left::Link(_), _) => Err(stale("it is no longer the link the step left".into())),
        (Left::Same(_), _) => Err(stale("it was replaced, changed or removed".into())),
    }
}

fn undo_step(access: &Access, step: &Step) -> Result<String> {
    match step {
        Step::Lost { label, reason } => Err(ToolError::new(
            ErrorKind::Denied,
            format!("{label} cannot be undone: {reason}; undo stops there"),
        )),
        Step::Restore { records, .. } => restore(access, records),
        Step::Moved {
            from,
            to,
            left,
            replaced,
            made,
            ..
        } => {
            match access.symlink_metadata(from) {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                _ => {
                    return Err(ToolError::new(
                        ErrorKind::Stale,
                        format!(
                            "{} exists again, so the move to {} is not undone (nothing was \
                             restored); move or delete one of them first",
                            from.shown, to.shown
                        ),
                    ));
                }
            }
            let there = Record {
                target: to.clone(),
                prior: Prior::Absent,
                left: left.clone(),
            };
            if still_left(access, &there).is_err() {
                return Err(ToolError::new(
                    ErrorKind::Stale,
                    format!(
                        "{} is no longer what the move put there (changed, moved or deleted \
                         since), so it is not moved back (nothing was restored)",
                        to.shown
                    ),
                ));
            }
            access
                .rename(to, from, false)
                .map_err(|e| ToolError::from_io(&e, "move back", &to.shown))?;
            let mut out = format!("  {} → {} (moved back)\n", to.shown, from.shown);
            if let Some(record) = replaced {
                put_back(access, record.as_ref(), None)?;
                out.push_str(&format!(
                    "  {} restored (the move had replaced it)\n",
                    to.shown
                ));
            }
            for record in made {
                out.push_str(&put_back(access, record, None)?);
            }
            Ok(out)
        }
    }
}

/// Restores `records`: everything checked first, then what the step created removed
/// (innermost first), then what it changed or removed put back (outermost first).
fn restore(access: &Access, records: &[Record]) -> Result<String> {
    let mut found = Vec::with_capacity(records.len());
    for record in records {
        found.push(still_left(access, record)?);
    }
    let mut order: Vec<usize> = (0..records.len()).collect();
    order.sort_by_key(|&i| {
        let r = &records[i];
        match r.prior {
            Prior::Absent => (0, usize::MAX - depth(&r.target)),
            _ => (1, depth(&r.target)),
        }
    });
    let mut out = String::new();
    for i in order {
        let record = &records[i];
        out.push_str(&put_back(access, record, found[i].as_deref())?);
    }
    Ok(out)
}

/// Puts `record`'s earlier state back at its path; `now` is the content found there when the
/// step left a file (the write happens only while the file still holds it).
fn put_back(access: &Access, record: &Record, now: Option<&[u8]>) -> Result<String> {
    let target = &record.target;
    let shown = &target.shown;
    let failed = |e: std::io::Error| ToolError::from_io(&e, "restore", shown);
    match &record.prior {
        Prior::Absent => {
            match record.left {
                Left::Absent => return Ok(String::new()),
                Left::Dir => {
                    // A folder the step made: removed only while empty.
                    if !access.read_dir(target).map_err(failed)?.is_empty() {
                        return Ok(format!("  {shown}/ kept (no longer empty)\n"));
                    }
                    access.remove(target, false)?;
                }
                Left::File(_) | Left::Same(_) | Left::Link(_) => {
                    access.remove(target, false)?;
                }
            }
            Ok(format!("  {shown} removed (the step created it)\n"))
        }
        Prior::Dir { mode } => {
            match access.symlink_metadata(target) {
                Ok(m) if m.is_dir => {}
                _ => access.create_dir_all(target).map_err(failed)?,
            }
            access.set_mode(target, *mode).map_err(failed)?;
            Ok(match record.left {
                Left::Dir => String::new(),
                _ => format!("  {shown}/ restored\n"),
            })
        }
        Prior::Link { text } => {
            if let Left::File(_) | Left::Same(_) | Left::Link(_) = record.left {
                access.remove(target, false)?;
            }
            access.symlink(target, text).map_err(failed)?;
            Ok(format!("  {shown} -> {} restored\n", text.display()))
        }
        Prior::File { bytes, mode, mtime } => {
            let options = WriteOptions {
                create_new: now.is_none(),
                exact_mode: Some(*mode),
                expect: now,
                size_hint: Some(bytes.len() as u64),
                ..WriteOptions::default()
            };
            access.write_atomic(target, bytes, options).map_err(|e| {
                if crate::access::fs::Conflict::is(&e) {
                    ToolError::new(
                        ErrorKind::Stale,
                        format!(
                            "{shown} changed while undo restored it; read it and undo \
                                 again, or restore it by hand"
                        ),
                    )
                } else {
                    failed(e)
                }
            })?;
            // The modification time too, as the file had it (best effort: a file of another
            // owner keeps the time of the write).
            let _ = access.set_modified(target, *mtime);
            Ok(format!(
                "  {shown} restored ({} bytes, {})\n",
                bytes.len(),
                version::of(bytes)
            ))
        }
    }
}
