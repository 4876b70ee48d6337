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
//!
//! **Confined workspaces.** The `ignore` crate reads ignore files by path, following links
//! anywhere. In a confined workspace the walks read them through the jail instead (`rules.rs`):
//! an ignore file that is a link leading outside the roots (or a worktree's `.git` naming a
//! folder outside them, or a file of several hard links) is not read, and the walk's answer
//! says so once. Unconfined, the crate reads them as any process would.

mod rules;

use std::path::{Component, Path, PathBuf};

use std::sync::{Arc, Mutex};

use ignore::gitignore::{Gitignore, GitignoreBuilder};
use ignore::{IncrementalIgnore, Walk, WalkBuilder};

use self::rules::{JailRules, Kinds};
use super::Access;
use super::walkdir::Skips;

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
        self.walk_with(root, max_depth, &IgnoreFiles::standard())
    }

    /// The rule of the working directory's own walks as a matcher: for paths relative to the
    /// working directory, with the files of the folders above it when `parents`.
    pub(super) fn matcher(&self, parents: bool) -> Option<Matcher> {
        match self.jail() {
            Some(jail) => {
                let top = (!parents).then(|| self.root().to_path_buf());
                let kinds = Kinds {
                    dot_ignore: true,
                    git: true,
                    ..Kinds::default()
                };
                JailRules::new(jail, kinds, top, None).map(Matcher::Jailed)
            }
            None => builder(self.root(), parents)
                .build_matchers()
                .into_iter()
                .next()
                .map(Matcher::Crate),
        }
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
            Some(mut matcher) => matcher.excludes(&rel, &self.root().join(&rel), is_dir),
            None => false,
        }
    }
}

/// The ignore rule as a matcher of paths below the working directory: the crate's, or, in a
/// confined workspace, the one read through the jail.
#[derive(Debug)]
pub(crate) enum Matcher {
    /// The `ignore` crate's (unconfined).
    Crate(IncrementalIgnore),
    /// Read through the jail (see `ignore/rules.rs`).
    Jailed(JailRules),
}

impl Matcher {
    /// Whether the entry at `rel`, relative to the working directory `top`, is excluded, its
    /// folder not being excluded (as in a walk).
    pub(crate) fn entry_ignored(&mut self, top: &Path, rel: &Path, is_dir: bool) -> bool {
        match self {
            Matcher::Crate(m) => m.matched(rel, is_dir).is_ignore(),
            Matcher::Jailed(r) => r.matched(&top.join(rel), is_dir),
        }
    }

    /// Whether `rel` (`path`, absolute) or one of the folders above it below the working
    /// directory is excluded.
    fn excludes(&mut self, rel: &Path, path: &Path, is_dir: bool) -> bool {
        match self {
            Matcher::Crate(m) => m.matched(rel, is_dir).is_ignore(),
            Matcher::Jailed(r) => {
                let below = path
                    .ancestors()
                    .nth(rel.components().count())
                    .unwrap_or(path);
                r.excludes(path, is_dir, below)
            }
        }
    }

    /// The ignore files whose rules would apply in the folder `path` that were not read
    /// (always none unconfined).
    pub(crate) fn not_read_along(&self, path: &Path) -> Vec<super::walkdir::NotRead> {
        match self {
            Matcher::Crate(_) => Vec::new(),
            Matcher::Jailed(r) => r.not_read_along(path),
        }
    }
}

/// The ignore files of a walk: [`IgnoreFiles::standard`] is the rule of
/// [`Access::sorted_walk`]; a profile may choose its own (qwen honours `.gitignore`,
/// `.qwenignore` and configured files, and lets a call switch `.gitignore` off). `.git` is
/// never entered by a walk either way. By default nothing is ignored but the artifact folders.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IgnoreFiles {
    /// Keep the artifact folders ([`ARTIFACT_DIRS`]) in the walk: for a listing of one folder,
    /// which shows them as `list_dir` does. By default a walk leaves them out.
    pub keep_artifacts: bool,
    /// `.gitignore` files (nested, negations included) and `.git/info/exclude`.
    pub git: bool,
    /// Those git files count only inside a git repository: in a folder holding `.git` or below
    /// one (ripgrep's default, `--no-require-git` off). By default they count everywhere.
    pub require_git: bool,
    /// ripgrep's `.ignore` files.
    pub dot_ignore: bool,
    /// Further ignore-file names, read in every directory as `.gitignore` is. Later names take
    /// precedence over earlier ones and over `.gitignore` (a negation in them can re-include).
    pub names: Vec<String>,
    /// Ignore files read once and anchored at the working directory, named relative to it
    /// (Qwen's `.qwenignore` and `customIgnoreFiles`). A path any of them matches is ignored,
    /// whatever the other files say. Missing files are skipped.
    pub anchored: Vec<String>,
    /// Only the ignore files of the walk's root and the folders below it count, none of those
    /// above: for a root the rule itself excludes, named explicitly. By default the folders
    /// above count as [`Access::sorted_walk`] says.
    pub only_beneath: bool,
}

impl IgnoreFiles {
    /// The rule of [`Access::sorted_walk`]: `.gitignore`, `.ignore` and `.git/info/exclude`.
    pub fn standard() -> IgnoreFiles {
        IgnoreFiles {
            git: true,
            dot_ignore: true,
            ..IgnoreFiles::default()
        }
    }

    /// The kinds of files read in every folder, for the rule read through a jail.
    fn kinds(&self) -> Kinds {
        Kinds {
            custom: self.names.clone(),
            dot_ignore: self.dot_ignore,
            git: self.git,
            require_git: self.require_git,
            in_repo: false,
        }
    }
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
        .require_git(files.require_git)
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
        let mut builder = self.builder_for(root, max_depth, files, &Arc::default());
        builder.sort_by_file_name(|a, b| a.cmp(b));
        builder.build()
    }

    /// The builder behind [`Access::walk_with`], before its order is chosen: the crate reads
    /// the ignore files of an unconfined walk itself, and [`EntryRule`] says the rest.
    fn builder_for(
        &self,
        root: &Path,
        max_depth: Option<usize>,
        files: &IgnoreFiles,
        skips: &Arc<Skips>,
    ) -> WalkBuilder {
        let (rule, files) = self.rule_parts(root, files, skips, false);
        let mut builder = match self.jail() {
            // The crate reads no ignore file: the rule is read through the jail.
            Some(_) => builder_with(root, false, &IgnoreFiles::default()),
            None => builder_with(root, rule.in_repo, &files),
        };
        builder.max_depth(max_depth);
        let rule = Mutex::new(rule);
        builder.filter_entry(move |entry| {
            if entry.depth() == 0 {
                return true;
            }
            let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
            rule.lock()
                .map_or(true, |mut r| !r.excludes(entry.path(), is_dir))
        });
        builder
    }

    /// The ignore rule a walk of `root` under `files` applies to each entry below `root`, for a
    /// walker that lists folders itself: the same entries are left out as by the crate's walk
    /// of [`Access::walk_with`]. Ignore files it does not read are told to `skips`.
    pub(crate) fn entry_rule(
        &self,
        root: &Path,
        files: &IgnoreFiles,
        skips: &Arc<Skips>,
    ) -> EntryRule {
        self.rule_parts(root, files, skips, true).0
    }

    /// The rule of a walk of `root` under `files`, with the crate's own matcher of the ignore
    /// files below `root` when `own` (else the crate's walk applies them), and the files that
    /// count (none inside an artifact folder).
    fn rule_parts(
        &self,
        root: &Path,
        files: &IgnoreFiles,
        skips: &Arc<Skips>,
        own: bool,
    ) -> (EntryRule, IgnoreFiles) {
        let artifacts = (!files.keep_artifacts).then(|| self.artifact_rule());
        // A root inside an artifact folder was named explicitly: walked in full, as there.
        let files = if self.in_artifact_dir(root) {
            IgnoreFiles {
                keep_artifacts: files.keep_artifacts,
                ..IgnoreFiles::default()
            }
        } else {
            files.clone()
        };
        let in_repo = in_repository(root) && !files.only_beneath;
        let beneath = self.relative_to_root(root).and_then(normalize);
        let anchored = self.anchored_ignore(&files, Some(skips));
        let top = self.root().to_path_buf();
        let mut rule = EntryRule {
            in_repo,
            artifacts,
            own: None,
            between: None,
            jailed: None,
            anchored,
            root: root.to_path_buf(),
            top: top.clone(),
        };
        if let Some(jail) = self.jail() {
            let from = if files.only_beneath {
                Some(root.to_path_buf())
            } else if in_repo {
                None
            } else if beneath.is_some() {
                Some(top)
            } else {
                Some(root.to_path_buf())
            };
            let kinds = Kinds {
                in_repo: files.require_git && in_repository(root),
                ..files.kinds()
            };
            rule.jailed = JailRules::new(jail, kinds, from, Some(Arc::clone(skips)));
            return (rule, files);
        }
        if own {
            rule.own = builder_with(root, in_repo, &files)
                .build_matchers()
                .into_iter()
                .next();
        }
        // Outside a repository, the ignore files between the working directory and a deeper
        // root are asked through a matcher anchored at the former (as in sorted_walk).
        rule.between = match beneath {
            Some(rel) if !rel.as_os_str().is_empty() && !in_repo && !files.only_beneath => {
                builder_with(self.root(), false, &files)
                    .build_matchers()
                    .into_iter()
                    .next()
            }
            _ => None,
        };
        (rule, files)
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
        let parents = in_repository(self.root());
        let walked = match self.jail() {
            Some(jail) => {
                let top = (!parents).then(|| self.root().to_path_buf());
                JailRules::new(jail, files.kinds(), top, None)
                    .is_some_and(|r| r.excludes(&self.root().join(&rel), is_dir, self.root()))
            }
            None => builder_with(self.root(), parents, files)
                .build_matchers()
                .into_iter()
                .next()
                .is_some_and(|mut m| m.matched(&rel, is_dir).is_ignore()),
        };
        walked
            || self
                .anchored_ignore(files, None)
                .is_some_and(|g| g.matched_path_or_any_parents(&rel, is_dir).is_ignore())
    }

    /// The matcher of `files.anchored`, rooted at the working directory; `None` when there
    /// are none (or none could be read). In a confined workspace they are read through the
    /// jail; one that is not read is told to `skips`.
    fn anchored_ignore(
        &self,
        files: &IgnoreFiles,
        skips: Option<&Arc<Skips>>,
    ) -> Option<Gitignore> {
        if files.anchored.is_empty() {
            return None;
        }
        let mut builder = GitignoreBuilder::new(self.root());
        match self.jail() {
            Some(jail) => {
                let not_read =
                    rules::read_anchored(jail, self.root(), &files.anchored, &mut builder);
                if let Some(skips) = skips {
                    for file in not_read {
                        skips.ignore_file_not_read(&file.path, &file.why);
                    }
                }
            }
            None => {
                for name in &files.anchored {
                    // A missing or unreadable file adds nothing, as in Qwen Code.
                    let _ = builder.add(self.root().join(name));
                }
            }
        }
        builder.build().ok().filter(|g| !g.is_empty())
    }
}

/// The ignore rule of one walk, asked entry by entry (see [`Access::entry_rule`]): `.git`
/// (never entered), the artifact folders, and the ignore files, read through the jail in a
/// confined workspace.
#[derive(Debug)]
pub(crate) struct EntryRule {
    /// The walk's root lies in a repository whose ignore files above it count.
    in_repo: bool,
    /// The artifact folders, unless the walk keeps them.
    artifacts: Option<ArtifactRule>,
    /// The crate's matcher of the ignore files from the root down (unconfined, when asked).
    own: Option<IncrementalIgnore>,
    /// The crate's matcher of the ignore files between the working directory and a deeper
    /// root, outside a repository (unconfined).
    between: Option<IncrementalIgnore>,
    /// The rule read through the jail (confined).
    jailed: Option<JailRules>,
    /// The ignore files read once, anchored at the working directory.
    anchored: Option<Gitignore>,
    /// The walk's root.
    root: PathBuf,
    /// The working directory.
    top: PathBuf,
}

impl EntryRule {
    /// Tells the rule the names the walk's listing of the folder `dir` holds (see
    /// [`rules::JailRules::listed`]); only a confined rule uses them.
    pub(crate) fn listed<'n>(&self, dir: &Path, names: impl Iterator<Item = &'n std::ffi::OsStr>) {
        if let Some(rules) = &self.jailed {
            rules.listed(dir, names);
        }
    }

    /// Whether the entry at `path` (below the walk's root, its folder not excluded) is left out.
    pub(crate) fn excludes(&mut self, path: &Path, is_dir: bool) -> bool {
        if path.file_name().is_some_and(|n| n == GIT_DIR)
            || (is_dir && self.artifacts.as_ref().is_some_and(|a| a.is_artifact(path)))
        {
            return true;
        }
        if let Some(rules) = &self.jailed
            && rules.matched(path, is_dir)
        {
            return true;
        }
        if let Some(own) = &mut self.own
            && let Ok(rel) = path.strip_prefix(&self.root)
            && own.matched(rel, is_dir).is_ignore()
        {
            return true;
        }
        if self.between.is_none() && self.anchored.is_none() {
            return false;
        }
        let Some(rel) = path.strip_prefix(&self.top).ok().and_then(normalize) else {
            return false;
        };
        if let Some(between) = &mut self.between
            && between.matched(&rel, is_dir).is_ignore()
        {
            return true;
        }
        self.anchored
            .as_ref()
            .is_some_and(|g| g.matched_path_or_any_parents(&rel, is_dir).is_ignore())
    }
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
