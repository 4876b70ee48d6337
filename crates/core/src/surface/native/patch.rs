//! apply_patch: a V4A envelope (add, delete, update, move) or a unified diff of one or more
//! files, checked completely before anything is written (every path resolved, every file in the
//! state the patch expects, every hunk placed), then committed all or nothing. `dry_run` shows
//! each file's diff and what would happen. The answer has a line per file and its hunks.
//!
//! Every file the patch writes is parsed before anything is written (`[edit] syntax_errors`):
//! the syntax errors a file gains are reported under its line, or refuse the whole patch.

use serde_json::Value;

use super::edit::level_name;
use super::write::{
    Before, current, new_syntax_errors, refuses_syntax_errors, syntax_errors_of, syntax_refusal,
};
use super::{Native, txn};
use crate::access::{Access, Resolved};
use crate::error::{ErrorKind, Result, ToolError};
use crate::ops::patch::{unified, v4a};
use crate::ops::syntax_check::{self, Report};
use crate::surface::CallContext;
use crate::surface::args::Args;
use crate::text::matcher::{Cascade, Level};

/// One file's part of a patch, checked.
pub(super) struct Change {
    /// The file.
    pub target: Resolved,
    /// What it holds now.
    pub before: Before,
    /// What it will hold; `None` deletes it.
    pub after: Option<Vec<u8>>,
    /// For the file a move creates: the file it comes from (which gets its own change,
    /// deleting it).
    pub moved_from: Option<String>,
    /// The hunks' first lines and the level each was found at, for the report.
    pub hunk_lines: Vec<(usize, Level)>,
}

/// The two changes of a file moved (and maybe edited) by a patch: the old path deleted, the
/// new one written with `bytes`.
fn push_move(
    changes: &mut Vec<Change>,
    (from, before): (Resolved, Before),
    (to, to_before): (Resolved, Before),
    bytes: Vec<u8>,
    hunk_lines: Vec<(usize, Level)>,
) {
    let shown = from.shown.clone();
    changes.push(Change {
        target: from,
        before,
        after: None,
        moved_from: None,
        hunk_lines: Vec::new(),
    });
    changes.push(Change {
        target: to,
        before: to_before,
        after: Some(bytes),
        moved_from: Some(shown),
        hunk_lines,
    });
}

fn is_v4a(text: &str) -> bool {
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with("<<"))
        .is_some_and(|l| l.starts_with("*** "))
}

fn expect_absent(target: &Resolved, before: &Before, what: &str) -> Result<()> {
    if let Before::Bytes(b) = before {
        return Err(ToolError::new(
            ErrorKind::AlreadyExists,
            format!(
                "{what}: {} already exists ({} bytes); nothing was written. Update it instead \
                 (an Update File section), or delete it with a patch of its own first (a patch \
                 checks every section against the files as they are before it)",
                target.shown,
                b.len()
            ),
        ));
    }
    Ok(())
}

fn expect_present<'a>(target: &Resolved, before: &'a Before, what: &str) -> Result<&'a [u8]> {
    before.bytes().ok_or_else(|| {
        ToolError::not_found(format!(
            "{what}: {} does not exist; nothing was written. Check the path with glob, or \
                 add it with *** Add File",
            target.shown
        ))
    })
}

/// The changes of a V4A patch.
fn v4a_changes(access: &Access, text: &str) -> Result<Vec<Change>> {
    let patch = v4a::parse(text)?;
    let mut changes = Vec::new();
    for section in patch.sections {
        match section {
            v4a::Section::Add {
                path,
                contents,
                line,
            } => {
                let target = access.resolve(&path)?;
                let before = current(access, &target)?;
                expect_absent(&target, &before, &format!("patch line {line} (Add File)"))?;
                changes.push(Change {
                    target,
                    before,
                    after: Some(contents.into_bytes()),
                    moved_from: None,
                    hunk_lines: Vec::new(),
                });
            }
            v4a::Section::Delete { path, line } => {
                let target = access.resolve(&path)?;
                let before = current(access, &target)?;
                expect_present(
                    &target,
                    &before,
                    &format!("patch line {line} (Delete File)"),
                )?;
                changes.push(Change {
                    target,
                    before,
                    after: None,
                    moved_from: None,
                    hunk_lines: Vec::new(),
                });
            }
            v4a::Section::Update {
                path,
                move_to,
                hunks,
                line,
            } => {
                let Some(path) = path else {
                    return Err(ToolError::invalid(format!(
                        "patch line {line}: hunks without *** Update File: PATH; apply_patch \
                         edits the files a patch names, so add the header"
                    )));
                };
                let target = access.resolve(&path)?;
                let before = current(access, &target)?;
                let what = format!("patch line {line} (Update File)");
                let old = expect_present(&target, &before, &what)?;
                let applied = v4a::apply_in(old, &hunks, Cascade::Full).map_err(|e| {
                    ToolError::new(e.kind, format!("{}: {}", target.shown, e.message))
                })?;
                let lines = applied
                    .placements
                    .iter()
                    .map(|p| (p.line, p.level.level()))
                    .collect();
                match move_to {
                    Some(to) => {
                        let dest = access.resolve(&to)?;
                        let dest_before = current(access, &dest)?;
                        expect_absent(&dest, &dest_before, &format!("{what}, Move to"))?;
                        push_move(
                            &mut changes,
                            (target, before),
                            (dest, dest_before),
                            applied.bytes,
                            lines,
                        );
                    }
                    None => changes.push(Change {
                        target,
                        before,
                        after: Some(applied.bytes),
                        moved_from: None,
                        hunk_lines: lines,
                    }),
                }
            }
        }
    }
    Ok(changes)
}

/// The texts of the files of a multi-file unified diff: a new file starts at `diff --git` or at
/// a `--- ` line followed by a `+++ ` line (when no `diff --git` came just before).
fn split_files(text: &str) -> Vec<String> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut files: Vec<String> = Vec::new();
    let mut current = String::new();
    let mut after_git = false;
    for (i, line) in lines.iter().enumerate() {
        let starts_git = line.starts_with("diff --git ");
        let starts_header = line.starts_with("--- ")
            && lines.get(i + 1).is_some_and(|n| n.starts_with("+++ "))
            && !after_git;
        if (starts_git || starts_header) && current.lines().any(|l| l.starts_with("@@")) {
            files.push(std::mem::take(&mut current));
        }
        if starts_git {
            after_git = true;
        } else if line.starts_with("@@") {
            after_git = false;
        }
        current.push_str(line);
    }
    if !current.trim().is_empty() {
        files.push(current);
    }
    files
}

/// The changes of a unified diff of one or more files.
fn unified_changes(access: &Access, text: &str) -> Result<Vec<Change>> {
    let mut changes = Vec::new();
    for (i, part) in split_files(text).iter().enumerate() {
        let diff = unified::parse(part)?;
        let git = diff
            .old_path
            .as_deref()
            .is_none_or(|p| p == "/dev/null" || p.starts_with("a/"))
            && diff
                .new_path
                .as_deref()
                .is_none_or(|p| p == "/dev/null" || p.starts_with("b/"));
        let name = |p: &Option<String>| -> Option<String> {
            let p = p.as_deref().filter(|p| *p != "/dev/null")?;
            Some(if git {
                p.get(2..).unwrap_or(p).to_string()
            } else {
                p.to_string()
            })
        };
        let (old, new) = (name(&diff.old_path), name(&diff.new_path));
        let what = format!("file {} of the diff", i + 1);
        let Some(path) = new.clone().or_else(|| old.clone()) else {
            return Err(ToolError::invalid(format!(
                "{what} has no ---/+++ header naming its file; apply_patch needs the file names"
            )));
        };
        let target = access.resolve(old.as_deref().unwrap_or(&path))?;
        let before = current(access, &target)?;
        let source: &[u8] = match old {
            None => {
                expect_absent(&target, &before, &what)?;
                b""
            }
            Some(_) => expect_present(&target, &before, &what)?,
        };
        let applied = unified::apply_in(source, &diff, Cascade::Full)
            .map_err(|e| ToolError::new(e.kind, format!("{}: {}", target.shown, e.message)))?;
        let lines = applied
            .placements
            .iter()
            .map(|p| (p.line, p.level))
            .collect();
        match (&old, &new) {
            (Some(_), None) => changes.push(Change {
                target,
                before,
                after: None,
                moved_from: None,
                hunk_lines: lines,
            }),
            (Some(o), Some(n)) if o != n => {
                let dest = access.resolve(n)?;
                let dest_before = current(access, &dest)?;
                expect_absent(&dest, &dest_before, &what)?;
                push_move(
                    &mut changes,
                    (target, before),
                    (dest, dest_before),
                    applied.bytes,
                    lines,
                );
            }
            _ => changes.push(Change {
                target,
                before,
                after: Some(applied.bytes),
                moved_from: None,
                hunk_lines: lines,
            }),
        }
    }
    Ok(changes)
}

/// One line per change: `A path`, `D path`, `M path (2 hunks at 10, 40)`, `R from → to`. A
/// hunk found at a looser level than exact names it: `40 [indentation (re-indented)]`.
fn status(change: &Change, version: Option<&str>) -> String {
    let places = change
        .hunk_lines
        .iter()
        .map(|&(line, level)| match level {
            Level::Exact => line.to_string(),
            level => format!("{line} [{}]", level_name(level)),
        })
        .collect::<Vec<_>>()
        .join(", ");
    let hunks = match change.hunk_lines.len() {
        0 => String::new(),
        1 => format!(" (1 hunk at {places})"),
        n => format!(" ({n} hunks at {places})"),
    };
    let version = version.map_or_else(String::new, |v| format!(" {v}"));
    let shown = &change.target.shown;
    match (&change.moved_from, &change.after, change.before.bytes()) {
        (Some(from), _, _) => format!("R {from} → {shown}{version}{hunks}"),
        (None, None, _) => format!("D {shown}"),
        (None, Some(_), None) => format!("A {shown}{version}"),
        (None, Some(_), Some(_)) => format!("M {shown}{version}{hunks}"),
    }
}

pub(super) fn apply_patch(
    native: &Native,
    access: &Access,
    args: Value,
    ctx: &CallContext,
) -> Result<String> {
    let args = Args::parse("apply_patch", args, &["patch", "dry_run"])?;
    let text = args.str("patch")?;
    if text.trim().is_empty() {
        return Err(ToolError::invalid("patch is empty"));
    }
    let dry_run = args.opt_bool("dry_run")?.unwrap_or(false);
    let changes = if is_v4a(text) {
        v4a_changes(access, text)?
    } else {
        unified_changes(access, text)?
    };
    if changes.is_empty() {
        return Err(ToolError::invalid("the patch changes no file"));
    }
    let mut seen = std::collections::HashSet::new();
    for c in &changes {
        if !seen.insert(c.target.path.clone()) {
            return Err(ToolError::invalid(format!(
                "the patch changes {} twice; merge its parts into one section. Nothing was \
                 written.",
                c.target.shown
            )));
        }
    }
    let syntax = syntax_of(native, &changes);
    let refused: Vec<String> = changes
        .iter()
        .zip(&syntax)
        .filter_map(|(c, r)| Some(syntax_errors_of(&c.target.shown, r.as_ref()?)))
        .collect();
    let refuse = refuses_syntax_errors(native) && !refused.is_empty();
    if refuse && !dry_run {
        return Err(syntax_refusal(
            "the patch",
            &refused,
            "Fix the patch and call apply_patch again",
        ));
    }
    if dry_run {
        let mut out = format!(
            "dry run: {} files would change; nothing written\n",
            changes.len()
        );
        if refuse {
            out.push_str(
                "the patch would be refused: it introduces syntax errors (syntax_errors = \
                 \"refuse\")\n",
            );
        }
        for (c, r) in changes.iter().zip(&syntax) {
            out.push_str(&status(c, None));
            out.push('\n');
            push_syntax(&mut out, r.as_ref());
        }
        for c in &changes {
            let old = c.before.bytes().unwrap_or_default();
            let new = c.after.as_deref().unwrap_or_default();
            if old != new {
                out.push_str(&unified::render(&c.target.shown, old, new));
            }
        }
        return Ok(out);
    }
    let label = format!(
        "apply_patch ({})",
        changes
            .iter()
            .map(|c| c.target.shown.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    );
    let (versions, note) = txn::commit(native, access, &changes, ctx, label)?;
    let mut out = format!("applied: {} files\n", changes.len());
    for ((c, v), r) in changes.iter().zip(&versions).zip(&syntax) {
        out.push_str(&status(c, v.as_deref()));
        out.push('\n');
        push_syntax(&mut out, r.as_ref());
    }
    if let Some(note) = note {
        out.push_str(&note);
        out.push('\n');
    }
    Ok(out)
}

/// The new syntax errors of each change (`None` for a deletion and a file without new errors).
/// A file a move creates is compared with the file it comes from.
fn syntax_of(native: &Native, changes: &[Change]) -> Vec<Option<Report>> {
    changes
        .iter()
        .map(|c| {
            let after = c.after.as_deref()?;
            let before = match &c.moved_from {
                Some(from) => changes
                    .iter()
                    .find(|o| o.target.shown == *from)
                    .and_then(|o| o.before.bytes()),
                None => c.before.bytes(),
            };
            new_syntax_errors(native, &c.target, before, after)
        })
        .collect()
}

/// A file's syntax line, indented under its status line.
fn push_syntax(out: &mut String, report: Option<&Report>) {
    if let Some(report) = report {
        out.push_str("  ");
        out.push_str(&syntax_check::describe(report));
        out.push('\n');
    }
}
