//! tree: a recursive snapshot of a folder, bounded by max_depth (the root is depth 0) and by
//! per_folder_limit children per folder. Folders left unentered say why in `truncated`: the
//! limit (with the folder's total and a pointer to list-folder), the depth bound (without
//! peeking inside), the default-exclude noise filter, or (reason "unreadable") a folder that
//! could not be listed, which `skipped` also counts. Links are nodes, never followed.

use std::cell::Cell;
use std::path::Path;

use super::list::{describe, require_dir, sorted};
use super::wire::{EntryKind, SkippedInfo, TreeInput, TreeNode, TreeOutput, TruncationInfo};
use super::{Ctx, canonical};
use crate::access::{self, Resolved};
use crate::error::{ErrorKind, Result, ToolError};
use crate::text::names::{show_name, show_path};

pub(super) fn call(ctx: &Ctx<'_>, input: TreeInput) -> Result<TreeOutput> {
    let limits = &ctx.limits;
    let per_folder_limit = match input.per_folder_limit {
        None => limits.tree_per_folder_limit,
        Some(0) => {
            return Err(ToolError::invalid(format!(
                "per_folder_limit 0 would show no folder's children; pass 1 or more, or leave it \
                 out for {} (tree_per_folder_limit)",
                limits.tree_per_folder_limit
            )));
        }
        Some(n) => n,
    };
    let walk = Walk {
        ctx,
        max_depth: input.max_depth.unwrap_or(limits.tree_default_depth),
        per_folder_limit,
        excludes: input.use_default_excludes,
        unreadable: Cell::new(0),
    };
    let base = ctx.base(input.base_dir.as_deref())?;
    let target = ctx.resolve(&input.path, base.as_ref())?;
    require_dir(ctx.access, &target, "tree")?;
    let meta = ctx.access.metadata(&target).map_err(|e| {
        ToolError::new(
            ErrorKind::Io,
            format!("could not read the folder {}: {e}", target.shown),
        )
    })?;
    let mut root = TreeNode {
        children: None,
        kind: EntryKind::Dir,
        mtime: meta.mtime,
        name: target
            .path
            .file_name()
            .map_or_else(|| show_path(&target.path), |n| show_name(n).into_owned()),
        non_accessible: ctx.access.is_secret_path(&target.path),
        size: meta.len,
        truncated: None,
    };
    if walk.excludes && ctx.access.is_excluded_path(&target.path, true) {
        root.truncated = Some(walk.excluded(&target.path));
    } else if walk.max_depth == 0 {
        root.truncated = Some(walk.too_deep(&target.path));
    } else {
        let (children, truncated) = walk.children(&target, 0).map_err(|e| {
            ToolError::new(
                ErrorKind::Io,
                format!("could not list the folder {}: {e}", target.shown),
            )
        })?;
        root.children = Some(children);
        root.truncated = truncated;
    }
    let unreadable = walk.unreadable.get();
    Ok(TreeOutput {
        path: canonical(&target),
        root,
        skipped: (unreadable > 0).then(|| SkippedInfo {
            unreadable_folders: unreadable,
            ..SkippedInfo::default()
        }),
    })
}

struct Walk<'a, 'c> {
    ctx: &'a Ctx<'c>,
    max_depth: u32,
    per_folder_limit: u32,
    excludes: bool,
    /// Folders below the root that could not be listed.
    unreadable: Cell<u32>,
}

fn count(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

impl Walk<'_, '_> {
    /// The children of `folder` (at `depth`), each entered while the depth allows, and the
    /// folder's truncation when it holds more than the limit.
    fn children(
        &self,
        folder: &Resolved,
        depth: u32,
    ) -> std::io::Result<(Vec<TreeNode>, Option<TruncationInfo>)> {
        let access = self.ctx.access;
        let eligible: Vec<access::DirEntry> = sorted(access, folder)?
            .into_iter()
            .filter(|e| {
                !(self.excludes
                    && e.kind != access::EntryKind::Dir
                    && access.is_excluded_path(&folder.path.join(&e.name), false))
            })
            .collect();
        let total = eligible.len();
        let limit = usize::try_from(self.per_folder_limit).unwrap_or(usize::MAX);
        let mut nodes = Vec::with_capacity(total.min(limit));
        for entry in eligible.iter().take(limit) {
            nodes.push(self.node(folder, entry, depth + 1));
        }
        let truncated = (total > limit).then(|| TruncationInfo {
            hint: format!(
                "{} of {total} entries shown (per_folder_limit {}); page through all of them \
                 with list-folder {{\"path\": \"{}\", \"page\": 1}}, or pass a larger \
                 per_folder_limit",
                nodes.len(),
                self.per_folder_limit,
                show_path(&folder.path)
            ),
            reason: "per_folder_limit".to_string(),
            shown: count(nodes.len()),
            total: Some(count(total)),
        });
        Ok((nodes, truncated))
    }

    /// The node of `entry` (at `depth`), with its own children when it is a folder to enter.
    fn node(&self, folder: &Resolved, entry: &access::DirEntry, depth: u32) -> TreeNode {
        let access = self.ctx.access;
        let described = describe(access, &folder.path, entry);
        let mut node = TreeNode {
            children: None,
            kind: described.kind,
            mtime: described.mtime,
            name: described.name,
            non_accessible: described.non_accessible,
            size: described.size,
            truncated: None,
        };
        if node.kind != EntryKind::Dir || node.non_accessible {
            return node;
        }
        let path = folder.path.join(&entry.name);
        if self.excludes && access.is_excluded_path(&path, true) {
            node.truncated = Some(self.excluded(&path));
            return node;
        }
        if access.is_artifact_dir(&path) {
            node.truncated = Some(artifact(&path));
            return node;
        }
        if depth >= self.max_depth {
            node.truncated = Some(self.too_deep(&path));
            return node;
        }
        // The name in its escaped form resolves back to the folder; one that cannot be read is
        // shown without children, flagged and counted.
        let listed = match access.resolve_from(&show_name(&entry.name), folder) {
            Ok(child) => self.children(&child, depth),
            Err(e) => Err(std::io::Error::other(e.message)),
        };
        match listed {
            Ok((children, truncated)) => {
                node.children = Some(children);
                node.truncated = truncated;
            }
            Err(e) if matches!(e.kind(), std::io::ErrorKind::NotFound) => {}
            Err(e) => {
                self.unreadable.set(self.unreadable.get().saturating_add(1));
                node.truncated = Some(unreadable(&path, &e));
            }
        }
        node
    }

    fn too_deep(&self, path: &Path) -> TruncationInfo {
        TruncationInfo {
            hint: format!(
                "not entered: max_depth {} reached; call tree with {{\"path\": \"{}\"}} or \
                 list-folder on it to see inside, or pass a larger max_depth",
                self.max_depth,
                show_path(path)
            ),
            reason: "max_depth".to_string(),
            shown: 0,
            total: None,
        }
    }

    fn excluded(&self, path: &Path) -> TruncationInfo {
        TruncationInfo {
            hint: format!(
                "not entered: noise folder matching default_exclude_globs; pass \
                 use_default_excludes: false to look inside, or list it with list-folder \
                 {{\"path\": \"{}\"}}",
                show_path(path)
            ),
            reason: "default_exclude".to_string(),
            shown: 0,
            total: None,
        }
    }
}

/// The truncation of a folder that could not be listed.
fn unreadable(path: &Path, e: &std::io::Error) -> TruncationInfo {
    TruncationInfo {
        hint: format!("not entered: {} could not be listed: {e}", path.display()),
        reason: "unreadable".to_string(),
        shown: 0,
        total: None,
    }
}

/// The truncation of an artifact folder (saved tool output), which no walk enters.
fn artifact(path: &Path) -> TruncationInfo {
    TruncationInfo {
        hint: format!(
            "not entered: fsgate's folder of saved tool output, whose files are stale copies; \
             call tree or list-folder with {{\"path\": \"{}\"}} to see inside",
            show_path(path)
        ),
        reason: "artifact_folder".to_string(),
        shown: 0,
        total: None,
    }
}
