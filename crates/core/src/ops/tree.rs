//! The directory tree beneath a root, depth-bounded, under the ignore rule, produced lazily:
//! a consumer that stops early stops the walk, so the cost follows what is shown. Links are
//! shown, never followed; what the walk could not show (a folder it could not list, an ignore
//! file it did not read) is counted, for the tree to say once it is done
//! ([`TreeIter::skipped`]).
//!
//! The tree is the one walker's ([`crate::access::walk`]) walk of entries: each folder is
//! opened from its parent's handle, so a folder exchanged with a link mid-walk never leads the
//! tree's names outside the root, and under gg's own rule it walks on the kept listings the
//! searches keep.

use std::collections::VecDeque;
use std::sync::Arc;

use super::list::{FolderError, Kind};
use crate::access::ignore::IgnoreFiles;
use crate::access::walk::{Passed, Step, Walk, WalkOptions, WalkRule};
use crate::access::walkdir::{Skipped, Skips, WalkKind};
use crate::access::{Access, Resolved};
use crate::context::CallContext;

/// One node of the tree, in depth-first path order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    /// Levels below the root: the root's own entries are at depth 1.
    pub depth: usize,
    /// The entry's name, in the escaped form of [`crate::text::names`].
    pub name: String,
    /// What it is.
    pub kind: Kind,
    /// For a directory at the depth bound: how many entries it holds that the walk did not
    /// enter (under the ignore rule). `None` for every other node.
    pub not_shown: Option<u64>,
}

/// What a tree call found.
pub enum TreeOutcome<'a> {
    /// The nodes, produced lazily.
    Nodes(Box<TreeIter<'a>>),
    /// The root itself is excluded by the ignore rule, so it is not walked.
    IgnoredRoot,
}

/// Walks the tree beneath `target` down to `depth` levels (at least 1). Each entry read is
/// ticked to `ctx` ("entries read"); once `ctx` is cancelled the walk ends early (the caller
/// asks `ctx` whether it was).
pub fn tree<'a>(
    access: &'a Access,
    target: &Resolved,
    depth: usize,
    ctx: &'a CallContext,
) -> Result<TreeOutcome<'a>, FolderError> {
    super::list::require_dir(access, target)?;
    let depth = depth.max(1);
    let skips = Arc::new(Skips::default());
    // Folders at the bound are entered only to count what they hold.
    let options = WalkOptions {
        max_depth: Some(depth),
        entries: true,
        ..WalkOptions::new(WalkRule::Ignore(IgnoreFiles::standard()))
    };
    // A root that cannot be listed is shown empty, and counted.
    let mut walk = access
        .walk(&target.path, options, &skips)
        .inspect_err(|e| skips.folder_failed(e))
        .ok();
    // The kept listings of the folders above usually answer whether the root is excluded;
    // asking the rule itself compiles every ignore file on the way, each call.
    let shown = walk.as_mut().is_some_and(Walk::kept_listings_show_root);
    if !shown && access.is_ignored(&target.path, true) {
        return Ok(TreeOutcome::IgnoredRoot);
    }
    Ok(TreeOutcome::Nodes(Box::new(TreeIter {
        access,
        walk,
        skips,
        depth,
        pending: None,
        ready: VecDeque::new(),
        ctx,
    })))
}

impl TreeIter<'_> {
    /// What the walk has passed over so far: folders it could not list (counted only when
    /// within the depth shown; those one level below it are only counted into) and ignore
    /// files it did not read.
    pub fn skipped(&self) -> Skipped {
        self.skips.skipped(|p| self.access.display(p))
    }
}

/// The lazy walk behind [`tree`]. It reads one level past the bound, only to count what the
/// directories at the bound hold.
pub struct TreeIter<'a> {
    access: &'a Access,
    walk: Option<Walk<'a>>,
    skips: Arc<Skips>,
    depth: usize,
    /// A directory at the bound whose entries are still being counted.
    pending: Option<Node>,
    ready: VecDeque<Node>,
    ctx: &'a CallContext,
}

impl Iterator for TreeIter<'_> {
    type Item = Node;

    fn next(&mut self) -> Option<Node> {
        loop {
            if let Some(node) = self.ready.pop_front() {
                return Some(node);
            }
            if self.ctx.is_cancelled() {
                return None;
            }
            let Some(step) = self.walk.as_mut().and_then(Iterator::next) else {
                return self.pending.take();
            };
            let entry = match step {
                Step::Entry(entry) => entry,
                // An unreadable folder is shown without its entries (and counted) rather than
                // failing the whole tree; non-accessible entries are left out, a folder with
                // all it holds.
                Step::Passed(passed) => {
                    if matches!(passed, Passed::Folder(..)) {
                        self.skips.count(&passed);
                    }
                    continue;
                }
                Step::File(_) | Step::Link(_) => continue,
            };
            self.ctx.tick(1, "entries read");
            let depth = entry.depth;
            if depth > self.depth {
                if let Some(Node {
                    not_shown: Some(n), ..
                }) = self.pending.as_mut()
                {
                    *n += 1;
                }
                continue;
            }
            let kind = match entry.kind {
                WalkKind::Dir => Kind::Dir,
                WalkKind::File => Kind::File,
                WalkKind::Link => Kind::Symlink(self.access.link_target(&entry.path)),
                WalkKind::Other => Kind::Other,
            };
            let at_bound = depth == self.depth && kind == Kind::Dir;
            let node = Node {
                depth,
                name: crate::text::names::show_name(entry.path.file_name().unwrap_or_default())
                    .into_owned(),
                kind,
                not_shown: at_bound.then_some(0),
            };
            if let Some(done) = self.pending.take() {
                self.ready.push_back(done);
            }
            if at_bound {
                self.pending = Some(node);
            } else {
                self.ready.push_back(node);
            }
        }
    }
}
