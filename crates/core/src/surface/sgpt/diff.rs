//! diff: a unified diff whose line numbers are ignored, through the shared engine
//! ([`crate::ops::patch::unified`]): every hunk applies or nothing is written.
//!
//! Headers are optional. A name they give names the file being edited when one path's
//! components end the other's: `a/src/x.rs`, `src/x.rs`, `x.rs` and an absolute path of the file
//! all name `src/x.rs`; `other/x.rs` and `y.rs` do not. A diff is refused when no header name
//! names the file and one names another file that exists in the workspace (the diff is for that
//! file). Names of files that do not exist (`diff -u old.txt new.txt` of two scratch copies) do
//! not refuse it: the result then carries a note. A missing file is created when every hunk
//! only adds lines (a diff from `/dev/null`); a diff to `/dev/null` (deleting the file) is
//! refused. Text in another encoding than UTF-8 is patched in its decoded text (what read_files
//! shows) and written back in its encoding ([`encoding::change_text`]).

use std::io;
use std::path::{Component, Path};

use serde_json::{Value, json};

use super::input::Input;
use super::{Answer, Ctx};
use crate::access::{Resolved, WriteOptions};
use crate::error::{Result, ToolError};
use crate::ops::patch::unified::{self, UnifiedDiff};
use crate::text::encoding;

pub(super) fn call(ctx: &Ctx<'_>, args: Value) -> Result<Answer> {
    let input = Input::parse("diff", args, &["path", "diff"])?;
    let raw = input.text("path")?;
    let text = input.text("diff")?;
    let target = ctx.access.resolve(&raw)?;
    let parsed = unified::parse(&text)?;
    let note = check_headers(ctx, &parsed, &target)?;
    let (original, created) = match ctx.access.read_all(&target) {
        Ok((bytes, _)) => (bytes, false),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            let adds_only = parsed.hunks.iter().all(|h| h.old_lines().next().is_none());
            if !adds_only {
                return Err(ToolError::not_found(format!(
                    "{raw} does not exist, so the diff has nothing to anchor its hunks in; \
                     check the path (exec_shell: ls), or to create the file send a diff whose \
                     only lines are added ('+') lines. Nothing was written."
                )));
            }
            (Vec::new(), true)
        }
        Err(e) => return Err(read_error(&e, &target)),
    };
    let change = encoding::change_text(&original, None, |text| {
        let applied = unified::apply(text, &parsed)?;
        Ok((applied.bytes, applied.hunks_applied))
    })?;
    if change.bytes != original || created {
        ctx.access
            .write_atomic(
                &target,
                &change.bytes,
                WriteOptions {
                    create_parents: created,
                    expect: (!created).then_some(original.as_slice()),
                    ..WriteOptions::default()
                },
            )
            .map_err(|e| ToolError::from_io(&e, "write", &raw))?;
    }
    let diff = match &change.decoded {
        Some((_, before, after)) => unified::render(&raw, before.as_bytes(), after.as_bytes()),
        None => unified::render(&raw, &original, &change.bytes),
    };
    let mut value = json!({
        "path": raw,
        "hunks_applied": change.value,
        "diff": diff,
    });
    if let Some((format, _, _)) = &change.decoded {
        value["encoding"] = Value::String(format.encoding.name().to_string());
    }
    if created {
        value["created"] = Value::Bool(true);
    }
    if ctx.access.through_link(&target).is_some() {
        value["written"] = Value::String(ctx.access.written_name(&target));
    }
    if let Some(note) = note {
        value["note"] = Value::String(note);
    }
    Answer::ok(value)
}

/// Refuses a diff whose headers name another file of the workspace, or delete the file; a note
/// when they name files that do not exist.
fn check_headers(ctx: &Ctx<'_>, diff: &UnifiedDiff, target: &Resolved) -> Result<Option<String>> {
    let shown = &target.shown;
    if diff.new_path.as_deref() == Some("/dev/null") {
        return Err(ToolError::invalid(format!(
            "the diff deletes the file (its +++ header is /dev/null); the diff tool edits \
             files and does not delete them: delete {shown} with exec_shell (rm), or send a diff \
             that edits it. Nothing was written."
        )));
    }
    let named = diff.named_paths();
    if named.is_empty() || named.iter().any(|name| names(name, target)) {
        return Ok(None);
    }
    let quoted = named
        .iter()
        .map(|n| format!("{n:?}"))
        .collect::<Vec<_>>()
        .join(" and ");
    let other = named.iter().find(|name| {
        ctx.access
            .resolve(name)
            .ok()
            .and_then(|r| ctx.access.metadata(&r).ok())
            .is_some_and(|m| m.is_file)
    });
    match other {
        Some(other) => Err(ToolError::invalid(format!(
            "the diff's ---/+++ headers name {quoted}, not {shown}, and {other} is another file \
             of the workspace: this call edits {shown} only. Call diff with path: \"{other}\" \
             if the diff is for it, or send a diff for {shown} (its headers naming it, or no \
             headers at all). Nothing was written."
        ))),
        None => Ok(Some(format!(
            "the diff's headers name {quoted}, which do not exist in the workspace; it was \
             applied to {shown}, the path of the call"
        ))),
    }
}

/// Whether the header name `name` names `target`: one path's components end the other's.
fn names(name: &str, target: &Resolved) -> bool {
    let name = components(Path::new(name));
    if name.is_empty() {
        return false;
    }
    [
        components(&target.path),
        components(Path::new(&target.shown)),
    ]
    .iter()
    .any(|path| {
        let n = name.len().min(path.len());
        n > 0 && name[name.len() - n..] == path[path.len() - n..]
    })
}

fn components(path: &Path) -> Vec<&std::ffi::OsStr> {
    path.components()
        .filter_map(|c| match c {
            Component::Normal(s) => Some(s),
            Component::ParentDir => Some(std::ffi::OsStr::new("..")),
            _ => None,
        })
        .collect()
}

fn read_error(err: &io::Error, target: &Resolved) -> ToolError {
    match err.kind() {
        io::ErrorKind::IsADirectory => ToolError::invalid(format!(
            "{} is a directory, not a file; the diff tool edits one file",
            target.shown
        )),
        io::ErrorKind::InvalidInput => ToolError::invalid(format!(
            "{} is not a regular file (a FIFO, socket or device), so it cannot be edited",
            target.shown
        )),
        _ => ToolError::from_io(err, "read", &target.shown),
    }
}
