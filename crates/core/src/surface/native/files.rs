//! tree, list_dir, move, delete, undo and info.

use serde_json::Value;

use super::write::{Before, current};
use super::{Native, resolve, txn};
use crate::access::{Access, Resolved};
use crate::error::{ErrorKind, NextWords, Result, ToolError};
use crate::ops;
use crate::ops::list::{Entry, FolderError, Kind};
use crate::surface::CallContext;
use crate::surface::args::Args;

/// The next steps of the engine's errors, in native's tools.
pub(super) const NEXT: NextWords = NextWords {
    check_path: "check the path with glob or list_dir",
    see_entries: "use list_dir or tree to see its entries",
};

/// The most lines a tree shows.
const TREE_LINES: usize = 1000;
/// The most entries a list_dir page shows.
const LIST_PAGE: usize = 1000;

fn folder_error(e: FolderError, tool: &str) -> ToolError {
    match e {
        FolderError::Missing { path } => {
            ToolError::not_found(format!("{path} does not exist; {}", NEXT.check_path))
        }
        FolderError::NotAFolder { path } => ToolError::invalid(format!(
            "{path} is a file, not a folder; {tool} lists folders (read it with read_file)"
        )),
        FolderError::Other(e) => e,
    }
}

fn entry_name(entry: &Entry) -> String {
    match &entry.kind {
        Kind::Dir => format!("{}/", entry.name),
        Kind::Symlink(to) => format!("{} -> {to}", entry.name),
        Kind::File | Kind::Other => entry.name.clone(),
    }
}

pub(super) fn tree(access: &Access, args: Value, ctx: &CallContext) -> Result<String> {
    let args = Args::parse("tree", args, &["path", "depth"])?;
    let depth = match args.opt_uint("depth")? {
        None => 2,
        Some(0) => {
            return Err(ToolError::invalid(
                "depth 0 shows nothing; pass 1 for the folder's own entries",
            ));
        }
        Some(d) => d.min(10) as usize,
    };
    let target = access.resolve_or_root(args.opt_str("path")?)?;
    let shown = target.shown.clone();
    let outcome =
        ops::tree::tree(access, &target, depth, ctx).map_err(|e| folder_error(e, "tree"))?;
    let ops::tree::TreeOutcome::Nodes(mut nodes) = outcome else {
        return Ok(format!(
            "{shown} is excluded by the ignore files, so tree does not walk it; list it with \
             list_dir {{\"path\": \"{shown}\"}}\n"
        ));
    };
    let mut out = format!("{shown}/\n");
    let mut lines = 0;
    let mut cut_at: Option<String> = None;
    for node in nodes.by_ref() {
        if lines == TREE_LINES {
            cut_at = Some(node.name.clone());
            break;
        }
        let entry = Entry {
            name: node.name.clone(),
            kind: node.kind.clone(),
        };
        out.push_str(&"  ".repeat(node.depth));
        out.push_str(&entry_name(&entry));
        if let Some(n) = node.not_shown
            && n > 0
        {
            out.push_str(&format!(" +{n}"));
        }
        out.push('\n');
        lines += 1;
    }
    if ctx.is_cancelled() {
        return Err(ToolError::new(
            ErrorKind::Cancelled,
            format!("the tree of {shown} was cancelled"),
        ));
    }
    if lines == 0 {
        out.push_str("  (empty)\n");
    }
    if let Some(next) = cut_at {
        out.push_str(&format!(
            "cut at {TREE_LINES} lines (next: {next}); call tree on a subfolder, or with a \
             smaller depth\n"
        ));
    }
    if let Some(s) = nodes.skipped().describe() {
        out.push_str(&format!("skipped: {s}\n"));
    }
    Ok(out)
}

pub(super) fn list_dir(access: &Access, args: Value) -> Result<String> {
    let args = Args::parse("list_dir", args, &["path", "cursor"])?;
    let target = access.resolve_or_root(args.opt_str("path")?)?;
    let skip = match args.opt_str("cursor")? {
        None => 0,
        Some(c) => c
            .strip_prefix('c')
            .and_then(|n| n.parse::<usize>().ok())
            .ok_or_else(|| ToolError::invalid(format!("cursor {c:?} is not one list_dir gave")))?,
    };
    let entries = ops::list::list(access, &target).map_err(|e| folder_error(e, "list_dir"))?;
    let shown = &target.shown;
    let mut out = format!(
        "{shown}/ {}\n",
        super::find::plural(entries.len(), "entry", "entries")
    );
    for e in entries.iter().skip(skip).take(LIST_PAGE) {
        out.push_str(&entry_name(e));
        out.push('\n');
    }
    if entries.len() > skip + LIST_PAGE {
        out.push_str(&format!(
            "more: list_dir {{\"path\": \"{shown}\", \"cursor\": \"c{}\"}}\n",
            skip + LIST_PAGE
        ));
    }
    Ok(out)
}

pub(super) fn move_path(native: &Native, access: &Access, args: Value) -> Result<String> {
    let args = Args::parse("move", args, &["from", "to", "overwrite"])?;
    // The entries themselves: a link moves as a link, not what it points to.
    let from = access.resolve_entry(args.str("from")?, None)?;
    let to = access.resolve_entry(args.str("to")?, None)?;
    let overwrite = args.opt_bool("overwrite")?.unwrap_or(false);
    txn::move_path(native, access, &from, &to, overwrite)
}

pub(super) fn delete(native: &Native, access: &Access, args: Value) -> Result<String> {
    let args = Args::parse("delete", args, &["path", "recursive"])?;
    // The entry itself: a link is deleted, not what it points to.
    let target = access.resolve_entry(args.str("path")?, None)?;
    let recursive = args.opt_bool("recursive")?.unwrap_or(false);
    txn::delete(native, access, &target, recursive)
}

pub(super) fn undo(native: &Native, access: &Access, args: Value) -> Result<String> {
    let args = Args::parse("undo", args, &["steps"])?;
    let steps = match args.opt_uint("steps")? {
        None => 1,
        Some(0) => return Err(ToolError::invalid("steps 0 undoes nothing; pass 1 or more")),
        Some(n) => n as usize,
    };
    txn::undo(native, access, steps)
}

pub(super) fn info(native: &Native, access: &Access, args: Value) -> Result<String> {
    let args = Args::parse("info", args, &["path"])?;
    let target = resolve(access, &args, "path")?;
    let meta = access
        .symlink_metadata(&target)
        .map_err(|e| ToolError::from_io(&e, "info", &target.shown))?;
    let kind = if meta.is_symlink {
        format!("link -> {}", access.link_target(&target.path))
    } else if meta.is_dir {
        "folder".to_string()
    } else if meta.is_file {
        "file".to_string()
    } else {
        "other (FIFO, socket or device)".to_string()
    };
    let mut out = format!(
        "{}: {kind}, {} bytes, mode {:o}, modified {} (Unix seconds)",
        target.shown,
        meta.len,
        meta.mode & 0o7777,
        meta.mtime
    );
    if meta.is_file {
        out.push_str(&file_facts(native, access, &target, meta.len));
    } else if meta.is_dir
        && let Ok(entries) = access.read_dir(&target)
    {
        out.push_str(&format!(", {} entries", entries.len()));
    }
    out.push('\n');
    Ok(out)
}

/// `, 120 lines, UTF-8, v…, Rust` for a text file up to the versioned size.
fn file_facts(native: &Native, access: &Access, target: &Resolved, len: u64) -> String {
    if len > super::read::VERSIONED_MAX {
        return String::new();
    }
    let Ok(Before::Bytes(bytes)) = current(access, target) else {
        return String::new();
    };
    let mut facts = String::new();
    if crate::text::encoding::looks_binary(&bytes[..bytes.len().min(8192)]) {
        facts.push_str(", binary");
    } else {
        let lines = bytecount(&bytes);
        let encoding = if std::str::from_utf8(&bytes).is_ok() {
            "UTF-8"
        } else {
            "not UTF-8"
        };
        facts.push_str(&format!(", {lines} lines, {encoding}"));
    }
    facts.push_str(&format!(", {}", native.version(&bytes)));
    facts
}

fn bytecount(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| b == b'\n').count()
        + usize::from(!bytes.is_empty() && !bytes.ends_with(b"\n"))
}
