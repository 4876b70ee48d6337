//! Every native mutation, recorded for `undo`: one file written ([`write_one`]), several at
//! once all or nothing ([`commit`], with the engine's rollback journal against a crash), a
//! move, a delete, and the undo itself.

use super::Native;
use super::patch::Change;
use super::write::{Before, current, replace};
use crate::access::txn;
use crate::access::{Access, Resolved};
use crate::error::{ErrorKind, Result, ToolError};
use crate::ops::undo::{self, Left, Prior, Record, Step};
use crate::ops::version;
use crate::surface::CallContext;

/// A file written: its new version, and a note when undo cannot restore what it held.
pub(super) struct Written {
    pub version: String,
    pub note: Option<String>,
}

impl Written {
    /// The note as a line of its own (empty without one).
    pub(super) fn note_line(&self) -> String {
        self.note
            .as_ref()
            .map(|n| format!("\n{n}"))
            .unwrap_or_default()
    }
}

/// The earlier state of `target`, which holds `before`: its bytes with its permission bits
/// and modification time.
fn prior(access: &Access, target: &Resolved, before: &Before) -> Prior {
    match before {
        Before::Absent => Prior::Absent,
        Before::Bytes(bytes) => {
            let (mode, mtime) = access
                .symlink_metadata(target)
                .map(|m| (m.mode, m.stamp.mtime))
                .unwrap_or((0o644, (0, 0)));
            Prior::File {
                bytes: bytes.as_slice().into(),
                mode,
                mtime,
            }
        }
    }
}

/// The records of a write of `after` (or a delete, `None`) at `target`, which held `before`:
/// the file, and the folders the write makes.
fn records(
    access: &Access,
    target: &Resolved,
    before: &Before,
    after: Option<&[u8]>,
) -> Vec<Record> {
    let mut records = match (before, after) {
        (Before::Absent, Some(_)) => undo::missing_parents(access, target),
        _ => Vec::new(),
    };
    records.push(Record {
        target: target.clone(),
        prior: prior(access, target, before),
        left: after.map_or(Left::Absent, |a| Left::File(version::of(a))),
    });
    records
}

/// Writes `after` to `target` while it holds `before` (see [`replace`]), recorded for undo as
/// `label`. `Ok(None)` when another writer came first (nothing written).
pub(super) fn write_one(
    native: &Native,
    access: &Access,
    target: &Resolved,
    before: &Before,
    after: &[u8],
    ctx: &CallContext,
    label: String,
) -> Result<Option<Written>> {
    let records = records(access, target, before, Some(after));
    let Some(version) = replace(native, access, target, before, after, ctx)? else {
        return Ok(None);
    };
    let note = native.journal.record(Step::Restore { label, records });
    Ok(Some(Written { version, note }))
}

/// Commits `changes` all or nothing: the new version of each file written (`None` for one
/// deleted), and a note when undo cannot restore them. A rollback journal is written first, so
/// that a crash in the middle is rolled back at the next start.
pub(super) fn commit(
    native: &Native,
    access: &Access,
    changes: &[Change],
    ctx: &CallContext,
    label: String,
) -> Result<(Vec<Option<String>>, Option<String>)> {
    // Each change's own record comes last among its records; the journal takes the file's
    // permission bits from it (no second look at the file).
    let mut records = Vec::new();
    let mut modes = Vec::with_capacity(changes.len());
    for c in changes {
        let own = self::records(access, &c.target, &c.before, c.after.as_deref());
        modes.push(match own.last().map(|r| &r.prior) {
            Some(Prior::File { mode, .. }) => *mode,
            _ => 0o644,
        });
        records.extend(own);
    }
    let entries: Vec<txn::Entry<'_>> = changes
        .iter()
        .zip(&modes)
        .map(|(c, &mode)| txn::Entry {
            target: &c.target,
            prior: c.before.bytes().map(|b| (b, mode)),
            after: c.after.as_deref(),
        })
        .collect();
    let armed = if changes.len() > 1 {
        Some(
            txn::arm(native.config.journal_dir.as_deref(), &entries).map_err(|e| {
                ToolError::new(
                    ErrorKind::Io,
                    format!(
                        "the rollback journal could not be written ({e}), so the patch was not \
                     started; nothing was changed. Apply it one file at a time, or set \
                     [undo] journal_dir (or FSGATE_STATE_DIR) to a writable folder"
                    ),
                )
            })?,
        )
    } else {
        None
    };
    let mut versions: Vec<Option<String>> = Vec::with_capacity(changes.len());
    for (i, change) in changes.iter().enumerate() {
        let done = match &change.after {
            Some(after) => replace(native, access, &change.target, &change.before, after, ctx)
                .and_then(|v| {
                    v.map(Some).ok_or_else(|| {
                        ToolError::new(
                            ErrorKind::Conflict,
                            format!(
                                "{} changed while the patch was applied",
                                change.target.shown
                            ),
                        )
                    })
                }),
            None => access.remove(&change.target, false).map(|_| None),
        };
        match done {
            Ok(v) => versions.push(v),
            Err(e) => {
                rollback(native, access, &changes[..i], ctx);
                drop(armed);
                return Err(ToolError::new(
                    e.kind,
                    format!(
                        "{}; nothing was changed (the files already written were restored)",
                        e.message
                    ),
                ));
            }
        }
    }
    drop(armed);
    let note = native.journal.record(Step::Restore { label, records });
    Ok((versions, note))
}

fn rollback(native: &Native, access: &Access, done: &[Change], ctx: &CallContext) {
    for change in done.iter().rev() {
        match (&change.before, &change.after) {
            (Before::Bytes(old), _) => {
                let now = current(access, &change.target).unwrap_or(Before::Absent);
                let _ = replace(native, access, &change.target, &now, old, ctx);
            }
            (Before::Absent, Some(_)) => {
                let _ = access.remove(&change.target, false);
            }
            (Before::Absent, None) => {}
        }
    }
}

/// Refuses to delete or move away a file or folder that carries no write permission bit at
/// all: read-only stays read-only, as for every write (even for a process the kernel would let).
fn check_not_read_only(access: &Access, target: &Resolved, action: &str) -> Result<()> {
    match access.symlink_metadata(target) {
        Ok(meta) if !meta.is_symlink && meta.mode & 0o222 == 0 => Err(ToolError::new(
            ErrorKind::Denied,
            format!(
                "{} is read-only (mode {:o}), so fsgate does not {action} it; nothing was \
                 changed. Make it writable first if it should change",
                target.shown,
                meta.mode & 0o7777
            ),
        )),
        _ => Ok(()),
    }
}

/// The largest moved file undo recognises by its content (larger ones by their inode).
const MOVE_HASH_MAX: u64 = 8 << 20;

/// ` (undo cannot restore …)` for an answer, from a journal note.
fn note_suffix(note: Option<String>) -> String {
    note.map(|n| format!(" ({n})")).unwrap_or_default()
}

pub(super) fn move_path(
    native: &Native,
    access: &Access,
    from: &Resolved,
    to: &Resolved,
    overwrite: bool,
) -> Result<String> {
    let meta = access
        .symlink_metadata(from)
        .map_err(|e| ToolError::from_io(&e, "move", &from.shown))?;
    check_not_read_only(access, from, "move")?;
    // A folder holding a non-accessible entry is not moved: under another name its files could
    // leave the non-accessible patterns (as delete refuses such a tree).
    if meta.is_dir
        && let Some(secret) = access.find_secret(from)?
    {
        return Err(ToolError::new(
            ErrorKind::NotAccessible,
            format!(
                "{} holds {}, which matches the non-accessible patterns, so the folder is not \
                 moved (nothing was changed); move the other entries one by one",
                from.shown,
                secret.display()
            ),
        ));
    }
    if from.path == to.path {
        return Err(ToolError::invalid(format!(
            "from and to both name {}; nothing was moved",
            from.shown
        )));
    }
    let replaced = match access.symlink_metadata(to) {
        Err(_) => None,
        Ok(_) if !overwrite => {
            return Err(ToolError::new(
                ErrorKind::AlreadyExists,
                format!(
                    "{} exists; pass overwrite: true to replace it, or move to another name",
                    to.shown
                ),
            ));
        }
        Ok(_) => Some(undo::prior_of(access, to)),
    };
    let made = undo::missing_parents(access, to);
    let folders = access
        .create_parents(to)
        .map_err(|e| ToolError::from_io(&e, "create the folders of", &to.shown))?;
    access
        .rename(from, to, overwrite)
        .map_err(|e| ToolError::from_io(&e, "move", &from.shown))?;
    folders.keep();
    let label = format!("move {} → {}", from.shown, to.shown);
    let step = match replaced {
        Some(Err(reason)) => Step::Lost {
            label,
            reason: format!("what it replaced could not be kept: {reason}"),
        },
        replaced => Step::Moved {
            label,
            from: from.clone(),
            to: to.clone(),
            left: undo::left_by_move(access, to, MOVE_HASH_MAX)
                .unwrap_or(Left::Same(undo::identity(&meta.stamp))),
            replaced: replaced.and_then(|r| r.ok()).map(|prior| {
                Box::new(Record {
                    target: to.clone(),
                    prior,
                    left: Left::Absent,
                })
            }),
            made,
        },
    };
    let note = native.journal.record(step);
    Ok(format!(
        "moved {} → {}{}\n",
        from.shown,
        to.shown,
        note_suffix(note)
    ))
}

pub(super) fn delete(
    native: &Native,
    access: &Access,
    target: &Resolved,
    recursive: bool,
) -> Result<String> {
    check_not_read_only(access, target, "delete")?;
    let budget = native.config.undo_bytes as usize;
    let kept = match access.symlink_metadata(target) {
        Ok(m) if m.is_dir && recursive => undo::tree_prior(access, target, budget),
        Ok(_) => undo::prior_of(access, target).map(|p| vec![(target.clone(), p)]),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(e) => return Err(ToolError::from_io(&e, "delete", &target.shown)),
    };
    if !access.remove(target, recursive)? {
        return Err(ToolError::not_found(format!(
            "{} does not exist; nothing was deleted",
            target.shown
        )));
    }
    let label = format!("delete {}", target.shown);
    let step = match kept {
        Ok(kept) => Step::Restore {
            label,
            records: kept
                .into_iter()
                .map(|(target, prior)| Record {
                    target,
                    prior,
                    left: Left::Absent,
                })
                .collect(),
        },
        Err(reason) => Step::Lost { label, reason },
    };
    let note = native.journal.record(step);
    Ok(format!("deleted {}{}\n", target.shown, note_suffix(note)))
}

pub(super) fn undo(native: &Native, access: &Access, steps: usize) -> Result<String> {
    native.journal.undo(access, steps)
}
