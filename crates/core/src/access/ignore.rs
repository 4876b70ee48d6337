//! The ignore rule shared by every walk (search and tree): `.gitignore`, `.ignore` and
//! `.git/info/exclude`, nested files and negations included, applied whether or not the
//! workspace is a git repository yet; `.git` itself is never entered; dotfiles are walked like
//! any other file. The user's global git excludes are not consulted, so a workspace walks the
//! same on every machine.

use std::path::{Component, Path, PathBuf};

use std::sync::Mutex;

use ignore::{IncrementalIgnore, Walk, WalkBuilder};

use super::Access;

/// The name of git's own directory, which no walk enters.
const GIT_DIR: &str = ".git";

fn builder(root: &Path, parents: bool) -> WalkBuilder {
    let mut builder = WalkBuilder::new(root);
    builder
        .hidden(false)
        .parents(parents)
        .ignore(true)
        .git_ignore(true)
        .git_exclude(true)
        .git_global(false)
        .require_git(false)
        .follow_links(false);
    builder
}

/// Whether `dir` or one of its ancestors holds `.git` (a directory, or a worktree's file).
fn in_repository(dir: &Path) -> bool {
    dir.ancestors()
        .any(|a| super::fs::exists_no_follow(&a.join(GIT_DIR)))
}

impl Access {
    /// A walk of `root` under the ignore rule, siblings in byte order of their names (so a
    /// depth-first walk is in path order), descending at most `max_depth` levels (`None`: no
    /// bound). Dropping the iterator stops the walk: nothing beyond what was consumed is read.
    ///
    /// Which ignore files count follows git: inside a repository, those of the repository
    /// (up to its top); in a directory that is not one yet, those of the working directory and
    /// below, never those of the directories above it.
    pub fn sorted_walk(&self, root: &Path, max_depth: Option<usize>) -> Walk {
        let in_repo = in_repository(root);
        let mut builder = builder(root, in_repo);
        builder
            .max_depth(max_depth)
            .sort_by_file_name(|a, b| a.cmp(b));
        // Outside a repository the walk cannot read the ignore files between the working
        // directory and a deeper root itself (that would read every directory above too), so
        // each entry is also asked of a matcher anchored at the working directory.
        let anchored = match (self.relative_to_root(root).and_then(normalize), in_repo) {
            (Some(rel), false) if !rel.as_os_str().is_empty() => self
                .matcher(false)
                .map(|m| (Mutex::new(m), self.root().to_path_buf())),
            _ => None,
        };
        builder.filter_entry(move |entry| {
            if entry.file_name() == GIT_DIR {
                return false;
            }
            let Some((matcher, top)) = &anchored else {
                return true;
            };
            let rel = entry.path().strip_prefix(top).ok().and_then(normalize);
            let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
            match (rel, matcher.lock()) {
                (Some(rel), Ok(mut m)) => !m.matched(&rel, is_dir).is_ignore(),
                _ => true,
            }
        });
        builder.build()
    }

    /// A matcher of the ignore rule anchored at the working directory.
    fn matcher(&self, parents: bool) -> Option<IncrementalIgnore> {
        builder(self.root(), parents)
            .build_matchers()
            .into_iter()
            .next()
    }

    /// Whether the ignore rule excludes `path` (or one of its ancestors) from walks that start
    /// at the working directory. Paths outside the working directory are never excluded: they
    /// were named explicitly and no walk of the workspace reaches them.
    pub fn is_ignored(&self, path: &Path, is_dir: bool) -> bool {
        let Some(rel) = self.relative_to_root(path).and_then(normalize) else {
            return false;
        };
        if rel.as_os_str().is_empty() {
            return false;
        }
        if rel.components().any(|c| c.as_os_str() == GIT_DIR) {
            return true;
        }
        match self.matcher(in_repository(self.root())) {
            Some(mut matcher) => matcher.matched(&rel, is_dir).is_ignore(),
            None => false,
        }
    }
}

/// Lexically removes `.` and resolves `..` inside a root-relative path; `None` when `..` would
/// climb above the root.
fn normalize(rel: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for component in rel.components() {
        match component {
            Component::Normal(part) => out.push(part),
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn names(root: &Path) -> Vec<String> {
        let access = Access::new(root).unwrap();
        access
            .sorted_walk(access.root(), None)
            .filter_map(Result::ok)
            .filter(|e| e.depth() > 0)
            .map(|e| {
                e.path()
                    .strip_prefix(access.root())
                    .unwrap()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect()
    }

    #[test]
    fn gitignore_applies_outside_a_repository_and_git_dir_is_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::create_dir_all(root.join(".git/objects")).unwrap();
        fs::create_dir_all(root.join("build")).unwrap();
        fs::write(root.join(".gitignore"), "build/\n*.log\n!keep.log\n").unwrap();
        fs::write(root.join("build/out.txt"), "x").unwrap();
        fs::write(root.join("a.log"), "x").unwrap();
        fs::write(root.join("keep.log"), "x").unwrap();
        fs::write(root.join(".env"), "x").unwrap();
        assert_eq!(names(root), [".env", ".gitignore", "keep.log"]);
        // Without .git it still applies.
        fs::remove_dir_all(root.join(".git")).unwrap();
        assert_eq!(names(root), [".env", ".gitignore", "keep.log"]);
    }

    #[test]
    fn is_ignored_checks_the_path_and_its_ancestors() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::create_dir_all(root.join("node_modules/lib")).unwrap();
        fs::create_dir_all(root.join("src")).unwrap();
        fs::write(root.join(".ignore"), "node_modules\n").unwrap();
        let access = Access::new(root).unwrap();
        let r = access.root().to_path_buf();
        assert!(access.is_ignored(&r.join("node_modules"), true));
        assert!(access.is_ignored(&r.join("node_modules/lib/x.js"), false));
        assert!(access.is_ignored(&r.join(".git/config"), false));
        assert!(!access.is_ignored(&r.join("src"), true));
        assert!(!access.is_ignored(&r, true));
        assert!(!access.is_ignored(Path::new("/etc"), true));
    }
}
