//! The ignore rule shared by every walk (search and tree): `.gitignore`, `.ignore` and
//! `.git/info/exclude`, nested files and negations included, applied whether or not the
//! workspace is a git repository yet; `.git` itself is never entered; dotfiles are walked like
//! any other file. The user's global git excludes are not consulted, so a workspace walks the
//! same on every machine.
//!
//! **Artifact folders.** The folders fsgate's profiles save whole tool output in
//! ([`ARTIFACT_DIRS`], and sgpt's configured `artifact_dir`) hold stale copies of files a tool
//! once showed, so no walk enters them: every search, tree, glob and grep of every profile
//! leaves them out, whatever the ignore files say ([`Access::is_artifact_dir`] is the one test).
//! A path named inside one (or the folder itself) is walked in full, and there ignore files do
//! not apply: the `.gitignore` of `*` such a folder holds keeps it out of git, not out of an
//! explicit search.

use std::path::{Component, Path, PathBuf};

use std::sync::Mutex;

use ignore::gitignore::{Gitignore, GitignoreBuilder};
use ignore::{IncrementalIgnore, Walk, WalkBuilder, WalkParallel};

use super::Access;

/// The name of git's own directory, which no walk enters.
const GIT_DIR: &str = ".git";

/// The folders fsgate's profiles save whole tool output in, relative to the working directory
/// (to each root, under a jail): picoclaw's spilled results and sgpt's default artifact folder.
/// No walk enters them (see the module's documentation).
pub const ARTIFACT_DIRS: [&str; 2] = [PICOCLAW_ARTIFACTS, FSGATE_ARTIFACTS];
/// picoclaw's folder of spilled results, relative to the workspace.
pub const PICOCLAW_ARTIFACTS: &str = ".picoclaw/tool-results";
/// sgpt's folder of saved outputs by default (`artifact_dir`), relative to the primary root.
pub const FSGATE_ARTIFACTS: &str = ".fsgate/artifacts";

/// Which folders are artifact folders, as a value a walk's filter can own.
#[derive(Clone, Debug)]
pub struct ArtifactRule {
    /// The folders relative paths are taken from: the working directory (as given and
    /// canonical), or each root of the jail.
    bases: Vec<PathBuf>,
    /// The artifact folders, relative to a base.
    dirs: Vec<PathBuf>,
}

impl ArtifactRule {
    /// Whether the folder `name`, an entry of the folder `parent` (relative to a base), is an
    /// artifact folder.
    pub fn is_artifact_child(&self, parent: &Path, name: &std::ffi::OsStr) -> bool {
        self.dirs
            .iter()
            .any(|d| d.file_name() == Some(name) && d.parent() == Some(parent))
    }

    /// Whether `path` (absolute, as a walk spells it) is an artifact folder.
    pub fn is_artifact(&self, path: &Path) -> bool {
        let Some(name) = path.file_name() else {
            return false;
        };
        // Most folders are ruled out by their name alone.
        if !self.dirs.iter().any(|d| d.file_name() == Some(name)) {
            return false;
        }
        self.relative(path).any(|rel| self.dirs.contains(&rel))
    }

    /// Whether `path` is an artifact folder or lies inside one.
    pub fn is_inside(&self, path: &Path) -> bool {
        self.relative(path)
            .any(|rel| self.dirs.iter().any(|d| rel.starts_with(d)))
    }

    /// `path` relative to each base it lies under.
    fn relative<'a>(&'a self, path: &'a Path) -> impl Iterator<Item = PathBuf> + 'a {
        self.bases
            .iter()
            .filter_map(move |base| path.strip_prefix(base).ok().and_then(normalize))
    }
}

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
pub(super) fn in_repository(dir: &Path) -> bool {
    dir.ancestors()
        .any(|a| super::fs::exists_no_follow(&a.join(GIT_DIR)))
}

impl Access {
    /// Adds `dir` (relative to the working directory, or absolute beneath a root) to the
    /// artifact folders no walk enters (see [`ARTIFACT_DIRS`]); sgpt's `artifact_dir`. A path
    /// that names no folder below a root adds nothing.
    pub fn with_artifact_dir(mut self, dir: &Path) -> Access {
        let rel = if dir.is_absolute() {
            self.artifact_rule().relative(dir).next()
        } else {
            normalize(dir)
        };
        if let Some(rel) = rel.filter(|r| !r.as_os_str().is_empty())
            && !ARTIFACT_DIRS.iter().any(|d| Path::new(d) == rel)
            && !self.artifact_dirs.contains(&rel)
        {
            self.artifact_dirs.push(rel);
        }
        self
    }

    /// The artifact folders of this workspace, for a walk to own.
    pub fn artifact_rule(&self) -> ArtifactRule {
        let bases = match self.jail() {
            Some(jail) => jail.roots().iter().map(|r| r.path.clone()).collect(),
            None => vec![self.root.clone(), self.canonical_root.clone()],
        };
        let dirs = ARTIFACT_DIRS
            .iter()
            .map(PathBuf::from)
            .chain(self.artifact_dirs.iter().cloned())
            .collect();
        ArtifactRule { bases, dirs }
    }

    /// Whether the folder at `path` (as a walk spells it) is an artifact folder, which no walk
    /// enters (see [`ARTIFACT_DIRS`]). The one test every walker asks.
    pub fn is_artifact_dir(&self, path: &Path) -> bool {
        let Some(name) = path.file_name() else {
            return false;
        };
        let named = |d: &Path| d.file_name() == Some(name);
        if !ARTIFACT_DIRS.iter().any(|d| named(Path::new(d)))
            && !self.artifact_dirs.iter().any(|d| named(d))
        {
            return false;
        }
        self.artifact_rule().is_artifact(path)
    }

    /// Whether `path` is an artifact folder or lies inside one: it was named explicitly, so it
    /// is walked in full and no ignore file applies to it.
    pub fn in_artifact_dir(&self, path: &Path) -> bool {
        self.artifact_rule().is_inside(path)
    }

    /// A walk of `root` under the ignore rule, siblings in byte order of their names (so a
    /// depth-first walk is in path order), descending at most `max_depth` levels (`None`: no
    /// bound), artifact folders left out. Dropping the iterator stops the walk: nothing beyond
    /// what was consumed is read.
    ///
    /// Which ignore files count follows git: inside a repository, those of the repository
    /// (up to its top); in a directory that is not one yet, those of the working directory and
    /// below, never those of the directories above it. Inside an artifact folder none do.
    pub fn sorted_walk(&self, root: &Path, max_depth: Option<usize>) -> Walk {
        let artifacts = self.artifact_rule();
        let explicit = artifacts.is_inside(root);
        let in_repo = in_repository(root);
        let mut builder = if explicit {
            builder_with(root, false, &IgnoreFiles::default())
        } else {
            builder(root, in_repo)
        };
        builder
            .max_depth(max_depth)
            .sort_by_file_name(|a, b| a.cmp(b));
        // Outside a repository the walk cannot read the ignore files between the working
        // directory and a deeper root itself (that would read every directory above too), so
        // each entry is also asked of a matcher anchored at the working directory.
        let anchored = match (self.relative_to_root(root).and_then(normalize), in_repo) {
            (Some(rel), false) if !rel.as_os_str().is_empty() && !explicit => self
                .matcher(false)
                .map(|m| (Mutex::new(m), self.root().to_path_buf())),
            _ => None,
        };
        builder.filter_entry(move |entry| {
            if entry.file_name() == GIT_DIR || is_artifact_entry(&artifacts, entry) {
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
    pub(super) fn matcher(&self, parents: bool) -> Option<IncrementalIgnore> {
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
        if self.in_artifact_dir(path) {
            return false;
        }
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

/// The ignore files of a walk whose rule is not [`Access::sorted_walk`]'s: a profile's own
/// choice of files (qwen honours `.gitignore`, `.qwenignore` and configured files, and lets a call
/// switch `.gitignore` off). `.git` is never entered by a walk either way. By default nothing is
/// ignored but the artifact folders.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IgnoreFiles {
    /// Keep the artifact folders ([`ARTIFACT_DIRS`]) in the walk: for a listing of one folder,
    /// which shows them as `list_dir` does. By default a walk leaves them out.
    pub keep_artifacts: bool,
    /// `.gitignore` files (nested, negations included) and `.git/info/exclude`.
    pub git: bool,
    /// ripgrep's `.ignore` files.
    pub dot_ignore: bool,
    /// Further ignore-file names, read in every directory as `.gitignore` is. Later names take
    /// precedence over earlier ones and over `.gitignore` (a negation in them can re-include).
    pub names: Vec<String>,
    /// Ignore files read once and anchored at the working directory, named relative to it
    /// (Qwen's `.qwenignore` and `customIgnoreFiles`). A path any of them matches is ignored,
    /// whatever the other files say. Missing files are skipped.
    pub anchored: Vec<String>,
}

fn builder_with(root: &Path, parents: bool, files: &IgnoreFiles) -> WalkBuilder {
    let mut builder = WalkBuilder::new(root);
    builder
        .hidden(false)
        .parents(parents)
        .ignore(files.dot_ignore)
        .git_ignore(files.git)
        .git_exclude(files.git)
        .git_global(false)
        .require_git(false)
        .follow_links(false);
    for name in &files.names {
        builder.add_custom_ignore_filename(name);
    }
    builder
}

impl Access {
    /// A walk of `root` under `files`, siblings in byte order of their names, descending at
    /// most `max_depth` levels (`None`: no bound); `.git` and the artifact folders are never
    /// entered. Which directories' ignore files count is decided as for
    /// [`Access::sorted_walk`]. Dropping the iterator stops the walk.
    pub fn walk_with(&self, root: &Path, max_depth: Option<usize>, files: &IgnoreFiles) -> Walk {
        let mut builder = self.builder_for(root, max_depth, files);
        builder.sort_by_file_name(|a, b| a.cmp(b));
        builder.build()
    }

    /// The walk of [`Access::walk_with`] run by a pool of threads (one per core), entries in
    /// no particular order: for callers that order the result themselves.
    pub fn walk_parallel_with(
        &self,
        root: &Path,
        max_depth: Option<usize>,
        files: &IgnoreFiles,
    ) -> WalkParallel {
        let mut builder = self.builder_for(root, max_depth, files);
        builder.threads(0);
        builder.build_parallel()
    }

    /// The builder behind [`Access::walk_with`], before its order is chosen.
    fn builder_for(
        &self,
        root: &Path,
        max_depth: Option<usize>,
        files: &IgnoreFiles,
    ) -> WalkBuilder {
        let artifacts = (!files.keep_artifacts).then(|| self.artifact_rule());
        // A root inside an artifact folder was named explicitly: walked in full, as there.
        let bare = IgnoreFiles {
            keep_artifacts: files.keep_artifacts,
            ..IgnoreFiles::default()
        };
        let files = if self.in_artifact_dir(root) {
            &bare
        } else {
            files
        };
        let in_repo = in_repository(root);
        let mut builder = builder_with(root, in_repo, files);
        builder.max_depth(max_depth);
        // As in sorted_walk: outside a repository, the ignore files between the working
        // directory and a deeper root are asked through a matcher anchored at the former.
        let between = match (self.relative_to_root(root).and_then(normalize), in_repo) {
            (Some(rel), false) if !rel.as_os_str().is_empty() => {
                builder_with(self.root(), false, files)
                    .build_matchers()
                    .into_iter()
                    .next()
                    .map(Mutex::new)
            }
            _ => None,
        };
        let anchored = self.anchored_ignore(files);
        let top = self.root().to_path_buf();
        builder.filter_entry(move |entry| {
            if entry.file_name() == GIT_DIR
                || artifacts
                    .as_ref()
                    .is_some_and(|a| is_artifact_entry(a, entry))
            {
                return false;
            }
            if between.is_none() && anchored.is_none() {
                return true;
            }
            let Some(rel) = entry.path().strip_prefix(&top).ok().and_then(normalize) else {
                return true;
            };
            let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
            if let Some(Ok(mut m)) = between.as_ref().map(Mutex::lock)
                && m.matched(&rel, is_dir).is_ignore()
            {
                return false;
            }
            !anchored
                .as_ref()
                .is_some_and(|g| g.matched_path_or_any_parents(&rel, is_dir).is_ignore())
        });
        builder
    }

    /// Whether `files` exclude `path` (or one of its ancestors) from walks that start at the
    /// working directory. Paths outside the working directory are never excluded. A path
    /// inside `.git` is excluded when `files.git` is set.
    pub fn is_ignored_by(&self, path: &Path, is_dir: bool, files: &IgnoreFiles) -> bool {
        let Some(rel) = self.relative_to_root(path).and_then(normalize) else {
            return false;
        };
        if self.in_artifact_dir(path) {
            return false;
        }
        if rel.as_os_str().is_empty() {
            return false;
        }
        if rel.components().any(|c| c.as_os_str() == GIT_DIR) {
            return files.git;
        }
        let walked = builder_with(self.root(), in_repository(self.root()), files)
            .build_matchers()
            .into_iter()
            .next()
            .is_some_and(|mut m| m.matched(&rel, is_dir).is_ignore());
        walked
            || self
                .anchored_ignore(files)
                .is_some_and(|g| g.matched_path_or_any_parents(&rel, is_dir).is_ignore())
    }

    /// The matcher of `files.anchored`, rooted at the working directory; `None` when there
    /// are none (or none could be read).
    fn anchored_ignore(&self, files: &IgnoreFiles) -> Option<Gitignore> {
        if files.anchored.is_empty() {
            return None;
        }
        let mut builder = GitignoreBuilder::new(self.root());
        for name in &files.anchored {
            // A missing or unreadable file adds nothing, as in Qwen Code.
            let _ = builder.add(self.root().join(name));
        }
        builder.build().ok().filter(|g| !g.is_empty())
    }
}

/// Whether a walk's `entry` below its root is an artifact folder.
fn is_artifact_entry(rule: &ArtifactRule, entry: &ignore::DirEntry) -> bool {
    entry.depth() > 0
        && entry.file_type().is_some_and(|t| t.is_dir())
        && rule.is_artifact(entry.path())
}

/// Lexically removes `.` and resolves `..` inside a root-relative path; `None` when `..` would
/// climb above the root.
pub(super) fn normalize(rel: &Path) -> Option<PathBuf> {
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

    fn names_with(root: &Path, files: &IgnoreFiles, from: &str) -> Vec<String> {
        let access = Access::new(root).unwrap();
        access
            .walk_with(&access.root().join(from), None, files)
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
    fn walk_with_honours_named_and_anchored_files_and_git_switch() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::create_dir_all(root.join(".git")).unwrap();
        fs::create_dir_all(root.join("sub")).unwrap();
        fs::write(root.join(".gitignore"), "*.log\n").unwrap();
        fs::write(root.join(".qwenignore"), "secret.txt\nsub/gen/\n").unwrap();
        fs::write(root.join(".aiignore"), "notes.md\n").unwrap();
        fs::write(root.join("sub/.extraignore"), "x.txt\n").unwrap();
        for f in [
            "a.log",
            "secret.txt",
            "notes.md",
            "keep.rs",
            "sub/x.txt",
            "sub/y.txt",
        ] {
            fs::write(root.join(f), "x").unwrap();
        }
        fs::create_dir_all(root.join("sub/gen")).unwrap();
        fs::write(root.join("sub/gen/z.rs"), "x").unwrap();
        let files = IgnoreFiles {
            git: true,
            names: vec![".extraignore".into()],
            anchored: vec![".qwenignore".into(), ".aiignore".into(), "missing".into()],
            ..IgnoreFiles::default()
        };
        assert_eq!(
            names_with(root, &files, "."),
            [
                ".aiignore",
                ".gitignore",
                ".qwenignore",
                "keep.rs",
                "sub",
                "sub/.extraignore",
                "sub/y.txt"
            ]
        );
        // A deeper root still obeys the anchored files.
        assert_eq!(
            names_with(root, &files, "sub"),
            ["sub/.extraignore", "sub/y.txt"]
        );
        let no_git = IgnoreFiles {
            git: false,
            ..files.clone()
        };
        assert!(names_with(root, &no_git, ".").contains(&"a.log".to_string()));
        assert!(
            !names_with(root, &no_git, ".")
                .iter()
                .any(|n| n.starts_with(".git/"))
        );
        // The existing walk is unchanged: it knows nothing of .qwenignore.
        assert!(names(root).contains(&"secret.txt".to_string()));

        let access = Access::new(root).unwrap();
        let r = access.root().to_path_buf();
        assert!(access.is_ignored_by(&r.join("secret.txt"), false, &files));
        assert!(access.is_ignored_by(&r.join("sub/gen/z.rs"), false, &files));
        assert!(access.is_ignored_by(&r.join("a.log"), false, &files));
        assert!(!access.is_ignored_by(&r.join("a.log"), false, &no_git));
        assert!(access.is_ignored_by(&r.join(".git"), true, &files));
        assert!(!access.is_ignored_by(&r.join(".git"), true, &no_git));
        assert!(!access.is_ignored_by(&r.join("keep.rs"), false, &files));
    }
}
