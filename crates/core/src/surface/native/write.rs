//! write_file (create, overwrite, append), and the one way every native change of one file is
//! written: atomically, only while the file still holds the bytes the change was made from,
//! with the new version returned. Also the post-edit syntax check every change of file content
//! (edit, apply_patch, write_file) goes through before it is written (`[edit] syntax_errors`).

use serde_json::Value;

use super::{Native, resolve, stale};
use crate::access::fs::Conflict;
use crate::access::{Access, Resolved, WriteOptions};
use crate::config::native::SyntaxErrors;
use crate::error::{ErrorKind, Result, ToolError};
use crate::ops::syntax_check::{self, Report};
use crate::surface::CallContext;
use crate::surface::args::Args;

/// How many times a change that lost a race with another writer is made again from a fresh
/// read before the caller sees a `conflict`.
pub(super) const RETRIES: usize = 16;

/// What a file held before a change.
pub(super) enum Before {
    /// Nothing was there.
    Absent,
    /// These bytes.
    Bytes(Vec<u8>),
}

impl Before {
    pub(super) fn bytes(&self) -> Option<&[u8]> {
        match self {
            Before::Absent => None,
            Before::Bytes(b) => Some(b),
        }
    }
}

/// The current content of `target`: `Before::Absent` when nothing is there.
pub(super) fn current(access: &Access, target: &Resolved) -> Result<Before> {
    match access.read_all(target) {
        Ok((bytes, _)) => Ok(Before::Bytes(bytes)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Before::Absent),
        Err(e) => Err(ToolError::from_io(&e, "read", &target.shown)),
    }
}

/// Writes `after` to `target` only while it still holds `before` (or, `Before::Absent`, while
/// nothing is there). `Ok(None)` when another writer changed the file first (nothing written:
/// the caller makes its change again from a fresh read); `Ok(Some(version))` once written.
pub(super) fn replace(
    native: &Native,
    access: &Access,
    target: &Resolved,
    before: &Before,
    after: &[u8],
    ctx: &CallContext,
) -> Result<Option<String>> {
    let options = WriteOptions {
        create_new: before.bytes().is_none(),
        expect: before.bytes(),
        size_hint: Some(after.len() as u64),
        ..WriteOptions::default()
    };
    match access.write_atomic(target, after, options) {
        Ok(_) => {}
        Err(e) if Conflict::is(&e) => return Ok(None),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && before.bytes().is_none() => {
            return Ok(None);
        }
        Err(e) => return Err(ToolError::from_io(&e, "write", &target.shown)),
    }
    if let Some(session) = ctx.session() {
        let file = crate::session::FileRef::new(access, target);
        session.wrote(&file, crate::session::Base::Unknown, Some(after));
    }
    Ok(Some(native.version(after)))
}

/// The syntax errors the change of `target` from `before` (`None`: a new file) to `after`
/// introduces, under `[edit] syntax_errors`: `None` when the check is off, the file is not
/// checked (unknown language, not UTF-8, too large) or nothing new is broken.
pub(super) fn new_syntax_errors(
    native: &Native,
    target: &Resolved,
    before: Option<&[u8]>,
    after: &[u8],
) -> Option<Report> {
    if native.config.syntax_errors == SyntaxErrors::Off {
        return None;
    }
    syntax_check::check(&target.path, before, after).filter(|r| !r.is_clean())
}

/// Whether new syntax errors refuse the change (`[edit] syntax_errors = "refuse"`).
pub(super) fn refuses_syntax_errors(native: &Native) -> bool {
    native.config.syntax_errors == SyntaxErrors::Refuse
}

/// The most errors of one file a refusal lists.
const REFUSAL_LISTS: usize = 10;

/// One file's new errors, for a refusal: `a.rs (Rust): line 3: missing ")"; …`.
pub(super) fn syntax_errors_of(shown: &str, report: &Report) -> String {
    let n = report.new.len();
    let more = if n > REFUSAL_LISTS {
        format!("; +{} more", n - REFUSAL_LISTS)
    } else {
        String::new()
    };
    format!(
        "{shown} ({}): {}{more}",
        report.lang.name(),
        syntax_check::list(report, REFUSAL_LISTS)
    )
}

/// The refusal of a change that would introduce syntax errors (`errors`: a
/// [`syntax_errors_of`] line per file), `action` saying what to fix.
pub(super) fn syntax_refusal(what: &str, errors: &[String], action: &str) -> ToolError {
    ToolError::new(
        ErrorKind::InvalidArgument,
        format!(
            "{what} would introduce syntax errors, so nothing was written (syntax_errors = \
             \"refuse\"):\n{}\n{action}; or, if the file is meant to be broken for now, set \
             [edit] syntax_errors = \"report\" (write, and say what broke) or \"off\" in the \
             native configuration",
            errors.join("\n")
        ),
    )
}

/// The refusal of a change that lost to other writers [`RETRIES`] times.
pub(super) fn kept_losing(shown: &str) -> ToolError {
    ToolError::new(
        ErrorKind::Conflict,
        format!(
            "{shown} kept changing while this call worked on it ({RETRIES} tries); nothing was \
             written. Read it again and retry when the other writer is done."
        ),
    )
}

pub(super) fn write_file(
    native: &Native,
    access: &Access,
    args: Value,
    ctx: &CallContext,
) -> Result<String> {
    let args = Args::parse(
        "write_file",
        args,
        &["path", "content", "mode", "expected_version"],
    )?;
    let target = resolve(access, &args, "path")?;
    let shown = target.shown.clone();
    let content = args.str("content")?;
    let mode = args.opt_str("mode")?.unwrap_or("create");
    if !["create", "overwrite", "append"].contains(&mode) {
        return Err(ToolError::invalid(format!(
            "mode {mode:?} is not one of create, overwrite, append"
        )));
    }
    let expected = args.opt_str("expected_version")?;
    if mode == "create" && expected.is_some() {
        return Err(ToolError::invalid(
            "expected_version guards overwrite and append; a create has no earlier version, so \
             leave it out",
        ));
    }
    for _ in 0..RETRIES {
        let before = current(access, &target)?;
        let after: Vec<u8> = match (&before, mode) {
            (Before::Bytes(old), "create") => {
                return Err(ToolError::new(
                    ErrorKind::AlreadyExists,
                    format!(
                        "{shown} exists ({} bytes, {}); to replace it pass mode \"overwrite\" \
                         with expected_version \"{}\", or edit it",
                        old.len(),
                        native.version(old),
                        native.version(old)
                    ),
                ));
            }
            (Before::Absent, "overwrite") => {
                return Err(ToolError::not_found(format!(
                    "{shown} does not exist; to create it pass mode \"create\""
                )));
            }
            (Before::Bytes(old), "append") => [old.as_slice(), content.as_bytes()].concat(),
            _ => content.as_bytes().to_vec(),
        };
        if let Some(old) = before.bytes()
            && let Some(then) = native.check_version(&shown, expected, old)?
        {
            let now = native.version(old);
            return Err(stale(
                &shown,
                expected.unwrap_or_default(),
                &then,
                old,
                &now,
            ));
        }
        let old_version = before.bytes().map(|b| native.version(b));
        let syntax = new_syntax_errors(native, &target, before.bytes(), &after);
        if let Some(report) = &syntax
            && refuses_syntax_errors(native)
        {
            return Err(syntax_refusal(
                &format!("this {mode}"),
                &[syntax_errors_of(&shown, report)],
                "Fix the content and call write_file again",
            ));
        }
        let label = format!("write_file {shown} ({mode})");
        if let Some(w) =
            super::txn::write_one(native, access, &target, &before, &after, ctx, label)?
        {
            let version = w.version.clone();
            // A write through a link names the file it reached.
            let shown = access.written_name(&target);
            let lines = after.iter().filter(|&&b| b == b'\n').count();
            let what = match (mode, &old_version) {
                ("append", Some(v)) => format!(
                    "appended {} bytes to {shown} {v}→{version} ({} bytes, {lines} lines)",
                    content.len(),
                    after.len()
                ),
                (_, Some(v)) => format!(
                    "overwrote {shown} {v}→{version} ({} bytes, {lines} lines)",
                    after.len()
                ),
                (_, None) => format!(
                    "created {shown} {version} ({} bytes, {lines} lines)",
                    after.len()
                ),
            };
            return Ok(match syntax {
                Some(report) => format!(
                    "{what}\n{}{}",
                    syntax_check::describe(&report),
                    w.note_line()
                ),
                None => format!("{what}{}", w.note_line()),
            });
        }
    }
    Err(kept_losing(&shown))
}
