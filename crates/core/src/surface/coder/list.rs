//! list-folder: one folder's entries sorted by name, a page at a time. Links are not
//! followed; non-accessible entries are listed and flagged.

use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use super::wire::{DirEntry, EntryKind, ListFolderInput, ListFolderOutput};
use super::{Ctx, canonical};
use crate::access::{self, Access, Resolved};
use crate::error::{ErrorKind, Result, ToolError};

pub(super) fn call(ctx: &Ctx<'_>, input: ListFolderInput) -> Result<ListFolderOutput> {
    let limits = &ctx.limits;
    if input.page == 0 {
        return Err(ToolError::invalid(format!(
            "page 0 is not a page: pages are numbered from 1; pass page: 1 for the first page of \
             {}",
            input.path
        )));
    }
    let page_size = match input.page_size {
        None => limits.list_default_page_size,
        Some(0) => {
            return Err(ToolError::invalid(format!(
                "page_size 0 would list nothing; pass a page_size from 1 to {} \
                 (list_max_page_size), or leave it out for {} (list_default_page_size)",
                limits.list_max_page_size, limits.list_default_page_size
            )));
        }
        Some(asked) => asked.min(limits.list_max_page_size),
    }
    .max(1);
    let base = ctx.base(input.base_dir.as_deref())?;
    let target = ctx.resolve(&input.path, base.as_ref())?;
    require_dir(ctx.access, &target, "list-folder")?;
    let entries = entries(ctx.access, &target)?;
    let total = entries.len() as u64;
    let start = u64::from(input.page - 1) * u64::from(page_size);
    let end = start.saturating_add(u64::from(page_size)).min(total);
    let page: Vec<DirEntry> = entries
        .into_iter()
        .skip(usize::try_from(start).unwrap_or(usize::MAX))
        .take(usize::try_from(end.saturating_sub(start)).unwrap_or(0))
        .collect();
    Ok(ListFolderOutput {
        entries: page,
        has_more: end < total,
        page: input.page,
        page_size,
        path: canonical(&target),
        total,
    })
}

/// Fails unless `target` is an existing directory, naming the call that fits instead.
pub(super) fn require_dir(access: &Access, target: &Resolved, tool: &str) -> Result<()> {
    let shown = &target.shown;
    match access.metadata(target) {
        Ok(meta) if meta.is_dir => Ok(()),
        Ok(_) => Err(ToolError::invalid(format!(
            "{shown} is a file, not a folder, so {tool} cannot list it; read it with read-file \
             ({{\"path\": \"{shown}\"}}), or pass its folder"
        ))),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Err(ToolError::not_found(format!(
            "{shown} does not exist; list its parent folder with list-folder to see what is \
             there"
        ))),
        Err(e) => Err(ToolError::new(
            ErrorKind::Io,
            format!("could not open the folder {shown}: {e}"),
        )),
    }
}

/// The entries of the directory `target`, sorted by name (byte order), described without
/// following links.
fn entries(access: &Access, target: &Resolved) -> Result<Vec<DirEntry>> {
    let raw = sorted(access, target).map_err(|e| {
        ToolError::new(
            ErrorKind::Io,
            format!("could not list the folder {}: {e}", target.shown),
        )
    })?;
    Ok(raw
        .into_iter()
        .map(|e| describe(access, &target.path, &e))
        .collect())
}

/// The raw entries of the directory `target`, sorted by name (byte order).
pub(super) fn sorted(access: &Access, target: &Resolved) -> io::Result<Vec<access::DirEntry>> {
    let mut raw = access.read_dir(target)?;
    raw.sort_by(|a, b| a.name.as_bytes().cmp(b.name.as_bytes()));
    Ok(raw)
}

/// One entry of a listing, as the wire carries it.
pub(super) fn describe(access: &Access, folder: &Path, entry: &access::DirEntry) -> DirEntry {
    let kind = match &entry.kind {
        access::EntryKind::File => EntryKind::File,
        access::EntryKind::Dir => EntryKind::Dir,
        access::EntryKind::Symlink { .. } => EntryKind::Symlink,
        access::EntryKind::Other => EntryKind::Other,
    };
    let non_accessible = access.is_secret_path(&folder.join(&entry.name));
    DirEntry {
        kind,
        mtime: entry.meta.map_or(0, |m| m.mtime),
        name: crate::text::names::show_name(&entry.name).into_owned(),
        non_accessible,
        size: entry.meta.map_or(0, |m| m.len),
    }
}
