//! The walk of a search: depth-first from the target, siblings in byte order of their names,
//! each directory listed and each file opened relative to its parent's handle. It yields the
//! files that pass the filters (secrets, default-exclude noise, include and exclude globs), each
//! with whether its path matches the query. Artifact folders (saved tool output) below the
//! target are not entered. What it passes over it counts in its [`Skips`]: folders it cannot
//! open or list, symbolic links that loop (no link is followed), and non-accessible files and
//! folders.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::Finder;
use crate::access::walkdir::{HandleBudget, HeldDir, Skips, WalkKind};
use crate::access::{Access, Resolved};
use crate::context::CallContext;

/// The most directory handles the walk holds open at once, those of files handed on but not yet
/// searched included (fewer under a low descriptor limit, see [`HandleBudget`]).
const MAX_HELD: usize = 64;

/// A file to search.
pub(super) struct Task {
    pub(super) path: PathBuf,
    /// The directory holding it, open, when the walk held it.
    pub(super) dir: Option<Arc<HeldDir>>,
    /// Whether its root-relative path matches the query (only asked when paths are searched).
    pub(super) path_match: bool,
}

/// The file at `path` as a task, unless a filter leaves it out; a non-accessible one is
/// counted in `skips`, when given.
pub(super) fn task(
    finder: &Finder,
    access: &Access,
    excludes: bool,
    (path, dir): (PathBuf, Option<Arc<HeldDir>>),
    skips: Option<&Skips>,
) -> Option<Task> {
    if access.is_secret_path(&path) {
        if let Some(skips) = skips {
            skips.non_accessible();
        }
        return None;
    }
    if excludes && access.is_excluded_path(&path, false) {
        return None;
    }
    let rel = root_relative(access, &path);
    if finder.include.as_ref().is_some_and(|s| !s.is_match(rel))
        || finder.exclude.as_ref().is_some_and(|s| s.is_match(rel))
    {
        return None;
    }
    let path_match = finder.options.paths && finder.line.is_match(&rel.to_string_lossy());
    Some(Task {
        path,
        dir,
        path_match,
    })
}

/// One level of the walk: its directory (while held open) and the entries still to visit.
struct Level {
    path: PathBuf,
    dir: Option<Arc<HeldDir>>,
    entries: std::vec::IntoIter<(OsString, WalkKind)>,
}

/// The walk, as an iterator of the files to search.
pub(super) struct Walk<'a> {
    finder: &'a Finder,
    access: &'a Access,
    excludes: bool,
    call: &'a CallContext,
    stack: Vec<Level>,
    handles: HandleBudget,
    skips: &'a Skips,
}

impl<'a> Walk<'a> {
    /// A walk of the directory `target`, counting what it passes over in `skips`.
    pub(super) fn new(
        finder: &'a Finder,
        access: &'a Access,
        excludes: bool,
        target: &Resolved,
        (call, skips): (&'a CallContext, &'a Skips),
    ) -> std::io::Result<Walk<'a>> {
        let root = access.open_dir(target)?;
        let entries = root.sorted_kinds()?;
        let handles = HandleBudget::new(MAX_HELD);
        Ok(Walk {
            finder,
            access,
            excludes,
            call,
            stack: vec![Level {
                path: target.path.clone(),
                dir: handles.hold(root).ok().map(Arc::new),
                entries: entries.into_iter(),
            }],
            handles,
            skips,
        })
    }

    /// Enters the directory `name` of the top level, whose path is `path`; `None` when it is
    /// left out or cannot be read.
    fn enter(&mut self, name: &OsString, path: PathBuf) -> Option<Level> {
        let access = self.access;
        if access.is_secret_path(&path) {
            self.skips.non_accessible();
            return None;
        }
        if (self.excludes && access.is_excluded_path(&path, true)) || access.is_artifact_dir(&path)
        {
            return None;
        }
        // A folder is named to the jail in the escaped form, which any name has.
        let raw = crate::text::names::show_path(&path);
        let top = self.stack.last()?;
        let opened = match &top.dir {
            Some(dir) => dir.subdir(name),
            None => access
                .resolve(&raw)
                .map_err(|e| std::io::Error::other(e.message))
                .and_then(|dir| access.open_dir(&dir)),
        };
        let listed = opened.and_then(|dir| Ok((dir.sorted_kinds()?, dir)));
        let (entries, dir) = match listed {
            Ok(listed) => listed,
            Err(e) => {
                self.skips.folder_failed(&e);
                return None;
            }
        };
        // Past the budget the shallowest level lets go of its handle (once no file of it is in
        // flight, the budget has room): a deep chain of folders keeps opening each from its
        // parent, rather than resolving ever longer paths through the jail.
        let dir = match self.handles.hold(dir) {
            Ok(held) => Some(held),
            Err(dir) => {
                if let Some(level) = self.stack.iter_mut().find(|l| l.dir.is_some()) {
                    level.dir = None;
                }
                self.handles.hold(dir).ok()
            }
        };
        Some(Level {
            path,
            dir: dir.map(Arc::new),
            entries: entries.into_iter(),
        })
    }
}

impl Iterator for Walk<'_> {
    type Item = Task;

    fn next(&mut self) -> Option<Task> {
        loop {
            let top = self.stack.last_mut()?;
            let Some((name, kind)) = top.entries.next() else {
                self.stack.pop();
                continue;
            };
            let path = top.path.join(&name);
            match kind {
                WalkKind::File => {
                    self.call.tick(1, "files scanned");
                    let file = (path, top.dir.clone());
                    let skips = Some(self.skips);
                    if let Some(task) = task(self.finder, self.access, self.excludes, file, skips) {
                        return Some(task);
                    }
                }
                WalkKind::Dir => {
                    let Some(level) = self.enter(&name, path) else {
                        continue;
                    };
                    // A level without a handle opens its folders and files through the jail.
                    self.stack.push(level);
                }
                WalkKind::Link => {
                    // Never followed; one that loops is said to be passed over.
                    if self.access.is_link_loop(&path) {
                        self.skips.symlink_loop();
                    }
                }
                WalkKind::Other => {}
            }
        }
    }
}

/// The path below its containing root (the path itself when it lies under none).
fn root_relative<'p>(access: &Access, path: &'p Path) -> &'p Path {
    match access.jail() {
        Some(jail) => jail.locate(path).map_or(path, |(_, rel)| rel),
        None => access.relative_to_root(path).unwrap_or(path),
    }
}
