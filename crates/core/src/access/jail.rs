//! The path jail: several allowed roots, paths resolved beneath them component by component,
//! non-accessible (secret) globs and the default-exclude noise filter.
//!
//! Resolution walks a path from its containing root one component at a time. `..` pops a
//! component and may not climb above the root; a symbolic link is read and its target spliced
//! in (an absolute target must lie inside the same root, a relative one is taken from the link's
//! directory); a link whose target does not exist is refused as not-found, naming the link and
//! its target (it dangles), since a write through it would create a file wherever it points. A
//! path whose `..` climbs above its root is refused; when it comes back in (`../ws/src/x.ts`),
//! the refusal names the path inside the root to use instead. What comes out is the canonical
//! path of the target below its root, free of links and `..`.
//!
//! That check alone would race: a directory swapped for a link between the check and the use
//! could lead outside. So every operation then opens the canonical path relative to the root's
//! directory handle with the kernel's `RESOLVE_BENEATH` (through `cap-std`), which refuses any
//! escape at the moment of use. The resolver decides what the model meant; the kernel enforces
//! where it may go.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::io;
use std::path::{Component, Path, PathBuf};

use cap_std::ambient_authority;
use cap_std::fs::Dir;
use globset::{Glob, GlobBuilder, GlobSet, GlobSetBuilder};

use crate::error::{ErrorKind, Result, ToolError};
use crate::text::names::show_path;

/// The longest chain of symbolic links resolution follows, as the kernel does.
const MAX_LINK_HOPS: usize = 40;

/// What a jail is built from.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct JailConfig {
    /// The allowed roots; the first reachable one is the primary root.
    pub roots: Vec<PathBuf>,
    /// Globs (globset syntax, root-relative) naming files that are listable but never
    /// readable, writable, creatable, deletable or movable. Matched case-insensitively.
    pub non_accessible: Vec<String>,
    /// Globs (root-relative) of noise that tree and search hide unless asked not to.
    pub default_excludes: Vec<String>,
}

/// One allowed root.
#[derive(Debug)]
pub struct Root {
    /// Its canonical absolute path.
    pub path: PathBuf,
    /// The directory handle every operation beneath it goes through.
    pub(crate) dir: Dir,
}

/// The jail of a workspace.
#[derive(Debug)]
pub struct Jail {
    roots: Vec<Root>,
    secrets: GlobSet,
    secret_globs: Vec<String>,
    excludes: GlobSet,
    exclude_globs: Vec<String>,
}

/// Why a jail could not be built.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct JailError(pub String);

/// A path resolved inside the jail.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inside {
    /// Index of the containing root.
    pub root: usize,
    /// The canonical path below the root (empty for the root itself).
    pub rel: PathBuf,
    /// Whether something exists there.
    pub exists: bool,
    /// Where [`Inside::rel`] stops naming existing entries: the number of its leading
    /// components that exist (all of them when [`Inside::exists`]).
    pub existing: usize,
}

impl Jail {
    /// Builds the jail: each root is canonicalised; unreachable ones are skipped (their
    /// descriptions are returned as warnings); no root left, or a glob that does not parse, is
    /// an error.
    pub fn new(config: &JailConfig) -> std::result::Result<(Jail, Vec<String>), JailError> {
        let mut roots: Vec<Root> = Vec::new();
        let mut warnings = Vec::new();
        for given in &config.roots {
            #[allow(clippy::disallowed_methods)] // roots are canonicalised once, at start
            let canonical = match std::fs::canonicalize(given) {
                Ok(c) => c,
                Err(e) => {
                    warnings.push(format!("allowed root {} skipped: {e}", given.display()));
                    continue;
                }
            };
            if roots.iter().any(|r| r.path == canonical) {
                continue;
            }
            match Dir::open_ambient_dir(&canonical, ambient_authority()) {
                Ok(dir) => roots.push(Root {
                    path: canonical,
                    dir,
                }),
                Err(e) => warnings.push(format!("allowed root {} skipped: {e}", given.display())),
            }
        }
        if roots.is_empty() {
            let given: Vec<String> = config
                .roots
                .iter()
                .map(|r| r.display().to_string())
                .collect();
            return Err(JailError(format!(
                "no allowed root is reachable (given: {}); pass at least one existing directory",
                if given.is_empty() {
                    "none".to_string()
                } else {
                    given.join(", ")
                }
            )));
        }
        let secrets = glob_set(&config.non_accessible, true, "non_accessible_globs")?;
        let excludes = glob_set(&config.default_excludes, false, "default_exclude_globs")?;
        Ok((
            Jail {
                roots,
                secrets,
                secret_globs: config.non_accessible.clone(),
                excludes,
                exclude_globs: config.default_excludes.clone(),
            },
            warnings,
        ))
    }

    /// A jail of one root already open as `dir`, whose real path is `path`, with no
    /// non-accessible or excluded globs: a place reached on handles (see `grant.rs`), so that
    /// nothing swapped into its path after it was opened can move it.
    pub(crate) fn over(path: PathBuf, dir: Dir) -> Jail {
        Jail {
            roots: vec![Root { path, dir }],
            secrets: GlobSet::empty(),
            secret_globs: Vec::new(),
            excludes: GlobSet::empty(),
            exclude_globs: Vec::new(),
        }
    }

    /// The allowed roots, primary first.
    pub fn roots(&self) -> &[Root] {
        &self.roots
    }

    /// The primary root's canonical path.
    pub fn primary(&self) -> &Path {
        &self.roots[0].path
    }

    /// The non-accessible globs as configured.
    pub fn secret_globs(&self) -> &[String] {
        &self.secret_globs
    }

    /// The default-exclude globs as configured.
    pub fn exclude_globs(&self) -> &[String] {
        &self.exclude_globs
    }

    /// Whether a root-relative path is non-accessible.
    pub fn is_secret(&self, rel: &Path) -> bool {
        !self.secret_globs.is_empty() && self.secrets.is_match(rel)
    }

    /// Whether a root-relative path is default-excluded noise. A directory is also matched as
    /// if it held a file, so `**/node_modules/**` hides `node_modules` itself.
    pub fn is_excluded(&self, rel: &Path, is_dir: bool) -> bool {
        if self.exclude_globs.is_empty() {
            return false;
        }
        self.excludes.is_match(rel) || (is_dir && self.excludes.is_match(rel.join("x")))
    }

    /// The containing root of an absolute, canonical path, and the path below it.
    pub fn locate<'p>(&self, path: &'p Path) -> Option<(usize, &'p Path)> {
        // The longest root wins when roots nest.
        self.roots
            .iter()
            .enumerate()
            .filter_map(|(i, r)| path.strip_prefix(&r.path).ok().map(|rel| (i, rel)))
            .max_by_key(|(i, _)| self.roots[*i].path.as_os_str().len())
    }

    /// The message of a path outside every root.
    pub fn outside_message(&self, shown: &str) -> String {
        let roots: Vec<String> = self
            .roots
            .iter()
            .map(|r| r.path.display().to_string())
            .collect();
        format!(
            "{shown} is outside every allowed root ({}); pass a path relative to the primary root \
             {} or an absolute path inside one of the roots (info lists them)",
            roots.join(", "),
            self.roots[0].path.display()
        )
    }

    /// Resolves `candidate` (absolute, or relative to `anchor`, an absolute canonical path
    /// inside the jail) to its canonical place inside a root. `shown` names the path in
    /// errors.
    pub fn resolve(&self, candidate: &Path, anchor: &Path, shown: &str) -> Result<Inside> {
        let absolute = if candidate.is_absolute() {
            candidate.to_path_buf()
        } else {
            anchor.join(candidate)
        };
        let (root, rel) = match self.locate(&absolute) {
            Some((root, rel)) => (root, rel.to_path_buf()),
            None => self.locate_through_links(&absolute, shown)?,
        };
        self.beneath(root, &rel, shown)
    }

    /// A path not lexically under a root may still reach one through links above the roots
    /// (a root given as `/tmp/x` where `/tmp` is a link): canonicalise its longest existing
    /// ancestor and look again.
    fn locate_through_links(&self, absolute: &Path, shown: &str) -> Result<(usize, PathBuf)> {
        let real = super::fs::real_path(absolute);
        let (root, rel) = self
            .locate(&real)
            .ok_or_else(|| ToolError::new(ErrorKind::OutsideRoot, self.outside_message(shown)))?;
        Ok((root, rel.to_path_buf()))
    }

    /// Walks `rel` below root `root` component by component (see the module doc).
    fn beneath(&self, root: usize, rel: &Path, shown: &str) -> Result<Inside> {
        let dir = &self.roots[root].dir;
        let root_path = &self.roots[root].path;
        let escape = |why: &str| {
            ToolError::new(
                ErrorKind::OutsideRoot,
                format!(
                    "{shown} {why}, which leads outside its allowed root {}; pass a path that \
                     stays inside it",
                    root_path.display()
                ),
            )
        };
        // Each queued component remembers whether it came from a link's target: a missing one
        // of those means the link dangles.
        let mut queue: VecDeque<(OsString, bool)> = VecDeque::new();
        push_front(&mut queue, rel, false).map_err(|()| escape("is not a plain relative path"))?;
        let mut stack: Vec<OsString> = Vec::new();
        let mut hops = 0;
        let mut existing = None;
        // The last link followed: where it is, what it says, and whether it was the last
        // component of the path.
        let mut last_link: Option<(PathBuf, PathBuf, bool)> = None;
        while let Some((part, from_link)) = queue.pop_front() {
            if part == ".." {
                if stack.pop().is_none() {
                    if from_link {
                        return Err(escape(
                            "goes through a symbolic link that climbs above its root",
                        ));
                    }
                    return Err(self.climbed(root, rel, shown));
                }
                if existing.is_some_and(|first_missing| stack.len() <= first_missing) {
                    // Climbed back out of the missing part (`nope/../x`): what follows is in a
                    // folder that exists, so it is resolved again, its links followed, as if
                    // the detour had not been written.
                    existing = None;
                }
                continue;
            }
            if existing.is_some() {
                stack.push(part);
                continue;
            }
            let here: PathBuf = stack.iter().chain(std::iter::once(&part)).collect();
            match dir.symlink_metadata(&here) {
                Ok(meta) if meta.file_type().is_symlink() => {
                    hops += 1;
                    if hops > MAX_LINK_HOPS {
                        return Err(escape("goes through too many symbolic links"));
                    }
                    let target = dir
                        .read_link_contents(&here)
                        .map_err(|e| ToolError::from_io(&e, "read the link", shown))?;
                    last_link = Some((here, target.clone(), queue.is_empty()));
                    if target.is_absolute() {
                        let inner = target.strip_prefix(root_path).map_err(|_| {
                            escape("goes through a symbolic link to an absolute path")
                        })?;
                        stack.clear();
                        push_front(&mut queue, inner, true)
                            .map_err(|()| escape("goes through a symbolic link"))?;
                    } else {
                        push_front(&mut queue, &target, true)
                            .map_err(|()| escape("goes through a symbolic link"))?;
                    }
                }
                Ok(_) => stack.push(part),
                Err(e) if e.kind() == io::ErrorKind::NotFound => {
                    if from_link && let Some(link) = &last_link {
                        return Err(self.dangling(root, shown, link));
                    }
                    existing = Some(stack.len());
                    stack.push(part);
                }
                Err(e) if e.kind() == io::ErrorKind::NotADirectory => {
                    existing = Some(stack.len());
                    stack.push(part);
                }
                Err(e) => return Err(ToolError::from_io(&e, "resolve", shown)),
            }
        }
        Ok(Inside {
            root,
            exists: existing.is_none(),
            existing: existing.unwrap_or(stack.len()).min(stack.len()),
            rel: stack.iter().collect(),
        })
    }

    /// The refusal of a path whose `..` climbs above its root `root` (`rel` below it, as
    /// given): when it comes back in (`../ws/src/x.ts`), it names the path inside to use.
    fn climbed(&self, root: usize, rel: &Path, shown: &str) -> ToolError {
        let root_path = &self.roots[root].path;
        let back = lexical(&root_path.join(rel)).and_then(|abs| {
            let (inner_root, inner) = self.locate(&abs)?;
            Some(if inner_root == 0 {
                if inner.as_os_str().is_empty() {
                    ".".to_string()
                } else {
                    show_path(inner)
                }
            } else {
                show_path(&abs)
            })
        });
        let message = match back {
            Some(inside) => format!(
                "{shown} climbs above its allowed root {} with .. and comes back into it; pass \
                 the path inside the root instead: {inside}",
                root_path.display()
            ),
            None => format!(
                "{shown} climbs above its root with .., which leads outside its allowed root {}; \
                 pass a path that stays inside it",
                root_path.display()
            ),
        };
        ToolError::new(ErrorKind::OutsideRoot, message)
    }

    /// The not-found of a path that goes through a link (`link`: where it is, what it says,
    /// whether it ends the path) whose target does not exist.
    fn dangling(&self, root: usize, shown: &str, link: &(PathBuf, PathBuf, bool)) -> ToolError {
        let (at, target, last) = link;
        let lands = if target.is_absolute() {
            target
                .strip_prefix(&self.roots[root].path)
                .ok()
                .map(Path::to_path_buf)
        } else {
            lexical(&at.parent().unwrap_or(Path::new("")).join(target))
        };
        let at = show_path(at);
        super::hints::dangling(
            shown,
            (!*last).then_some(at.as_str()),
            &show_path(target),
            lands.as_deref().map(show_path).as_deref(),
        )
    }
}

/// `path` with its `.` and `..` components taken lexically, or `None` when `..` climbs above
/// its start.
pub(super) fn lexical(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    Some(out)
}

/// Puts the components of `path` (relative) at the front of `queue`, in order. Absolute or
/// prefixed paths are refused.
fn push_front(
    queue: &mut VecDeque<(OsString, bool)>,
    path: &Path,
    from_link: bool,
) -> std::result::Result<(), ()> {
    let mut parts = Vec::new();
    for component in path.components() {
        match component {
            Component::Normal(p) => parts.push(p.to_os_string()),
            Component::ParentDir => parts.push(OsString::from("..")),
            Component::CurDir => {}
            Component::RootDir | Component::Prefix(_) => return Err(()),
        }
    }
    for part in parts.into_iter().rev() {
        queue.push_front((part, from_link));
    }
    Ok(())
}

/// One pattern of `non_accessible_globs` (`case_insensitive`) or `default_exclude_globs`, as
/// the jail compiles it: what a configuration is checked with before the jail is built.
pub fn compile_glob(
    glob: &str,
    case_insensitive: bool,
) -> std::result::Result<Glob, globset::Error> {
    GlobBuilder::new(glob)
        .case_insensitive(case_insensitive)
        .build()
}

pub(super) fn glob_set(
    globs: &[String],
    case_insensitive: bool,
    key: &str,
) -> std::result::Result<GlobSet, JailError> {
    let mut builder = GlobSetBuilder::new();
    let mut bad = Vec::new();
    for glob in globs {
        match compile_glob(glob, case_insensitive) {
            Ok(g) => {
                builder.add(g);
            }
            Err(e) => bad.push(format!("{glob:?}: {e}")),
        }
    }
    if !bad.is_empty() {
        return Err(JailError(format!(
            "{key} has patterns that do not parse: {}",
            bad.join("; ")
        )));
    }
    builder
        .build()
        .map_err(|e| JailError(format!("{key} could not be compiled: {e}")))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::disallowed_methods)]
    use super::*;
    use std::os::unix::fs::symlink;

    fn jail(roots: &[&Path]) -> Jail {
        Jail::new(&JailConfig {
            roots: roots.iter().map(|r| r.to_path_buf()).collect(),
            non_accessible: vec!["**/.env".into(), "**/secrets/**".into()],
            default_excludes: vec!["**/node_modules/**".into()],
        })
        .unwrap()
        .0
    }

    #[test]
    fn links_that_stay_inside_resolve_and_links_that_leave_are_refused() {
        let outside = tempfile::tempdir().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir(root.join("real")).unwrap();
        std::fs::write(root.join("real/a.txt"), "a").unwrap();
        symlink("real", root.join("rel-link")).unwrap();
        symlink(root.join("real"), root.join("abs-link")).unwrap();
        symlink(outside.path(), root.join("out")).unwrap();
        symlink("../../etc", root.join("real/up")).unwrap();
        symlink("nowhere", root.join("dangling")).unwrap();
        let j = jail(&[&root]);
        let inside = j.resolve(Path::new("rel-link/a.txt"), &root, "x").unwrap();
        assert_eq!(inside.rel, Path::new("real/a.txt"));
        assert!(inside.exists);
        let inside = j
            .resolve(Path::new("abs-link/new.txt"), &root, "x")
            .unwrap();
        // A file to be created behind a link to an existing directory is not a dangling link.
        assert_eq!(
            (inside.rel.as_path(), inside.exists),
            (Path::new("real/new.txt"), false)
        );
        for escape in ["out/x", "real/up/passwd", "../x", "real/../../x"] {
            let err = j.resolve(Path::new(escape), &root, escape).unwrap_err();
            assert_eq!(err.kind, ErrorKind::OutsideRoot, "{escape}: {err}");
        }
        let err = j
            .resolve(Path::new("dangling"), &root, "dangling")
            .unwrap_err();
        assert_eq!(err.kind, ErrorKind::NotFound, "{err}");
        let err = j
            .resolve(Path::new("/etc/passwd"), &root, "/etc/passwd")
            .unwrap_err();
        assert_eq!(err.kind, ErrorKind::OutsideRoot);
    }

    #[test]
    fn a_path_climbing_out_of_a_missing_folder_follows_the_links_after_it() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir(root.join("real")).unwrap();
        std::fs::write(root.join(".env"), "k").unwrap();
        symlink(".env", root.join("to-secret")).unwrap();
        symlink("real", root.join("to-real")).unwrap();
        let j = jail(&[&root]);
        for (given, rel, exists) in [
            ("nope/../to-secret", ".env", true),
            ("nope/deeper/../../to-real/x.txt", "real/x.txt", false),
            ("real/nope/../../to-secret", ".env", true),
            // Still inside the missing part: nothing after it exists to be followed.
            ("nope/a/../b", "nope/b", false),
        ] {
            let inside = j.resolve(Path::new(given), &root, given).unwrap();
            assert_eq!(
                (inside.rel.as_path(), inside.exists),
                (Path::new(rel), exists),
                "{given}"
            );
        }
    }

    #[test]
    fn a_dangling_link_inside_the_root_is_named_with_its_target() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("node_modules/.bin")).unwrap();
        symlink("../typescript/bin/tsc", root.join("node_modules/.bin/tsc")).unwrap();
        let j = jail(&[&root]);
        let shown = "node_modules/.bin/tsc";
        let err = j.resolve(Path::new(shown), &root, shown).unwrap_err();
        assert_eq!(err.kind, ErrorKind::NotFound);
        assert_eq!(
            err.message,
            "node_modules/.bin/tsc is a symbolic link to ../typescript/bin/tsc \
             (node_modules/typescript/bin/tsc), which does not exist: the link dangles; write \
             node_modules/typescript/bin/tsc to create its target, or delete the link"
        );
        symlink("../gone", root.join("node_modules/lib")).unwrap();
        let err = j
            .resolve(Path::new("node_modules/lib/x.js"), &root, "via")
            .unwrap_err();
        assert_eq!(err.kind, ErrorKind::NotFound);
        assert!(
            err.message.starts_with(
                "via goes through the symbolic link node_modules/lib to ../gone (gone), which \
                 does not exist"
            ),
            "{err}"
        );
    }

    #[test]
    fn a_path_that_leaves_the_root_and_comes_back_names_the_path_inside() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir(root.join("src")).unwrap();
        let j = jail(&[&root]);
        let name = root.file_name().unwrap().to_str().unwrap();
        let back = format!("../{name}/src/x.ts");
        let err = j.resolve(Path::new(&back), &root, &back).unwrap_err();
        assert_eq!(err.kind, ErrorKind::OutsideRoot);
        assert!(
            err.message
                .ends_with("pass the path inside the root instead: src/x.ts"),
            "{err}"
        );
        let err = j.resolve(Path::new("../x"), &root, "../x").unwrap_err();
        assert!(!err.message.contains("instead"), "{err}");
    }

    #[test]
    fn a_sibling_with_the_root_as_prefix_is_outside() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        std::fs::create_dir(base.join("root")).unwrap();
        std::fs::create_dir(base.join("root_evil")).unwrap();
        let j = jail(&[&base.join("root")]);
        let evil = base.join("root_evil/x");
        let err = j.resolve(&evil, &base.join("root"), "evil").unwrap_err();
        assert_eq!(err.kind, ErrorKind::OutsideRoot);
    }

    #[test]
    fn secrets_match_root_relative_paths_case_insensitively() {
        let dir = tempfile::tempdir().unwrap();
        let j = jail(&[dir.path()]);
        assert!(j.is_secret(Path::new(".env")));
        assert!(j.is_secret(Path::new("a/b/.ENV")));
        assert!(j.is_secret(Path::new("secrets/k")));
        assert!(!j.is_secret(Path::new("secrets")));
        assert!(!j.is_secret(Path::new("env.txt")));
        assert!(j.is_excluded(Path::new("node_modules"), true));
        assert!(j.is_excluded(Path::new("a/node_modules/x.js"), false));
        assert!(!j.is_excluded(Path::new("src"), true));
    }

    #[test]
    fn unreachable_roots_are_skipped_and_none_left_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let (j, warnings) = Jail::new(&JailConfig {
            roots: vec![dir.path().join("missing"), dir.path().to_path_buf()],
            ..Default::default()
        })
        .unwrap();
        assert_eq!(j.roots().len(), 1);
        assert_eq!(warnings.len(), 1);
        let err = Jail::new(&JailConfig {
            roots: vec![dir.path().join("missing")],
            ..Default::default()
        })
        .unwrap_err();
        assert!(err.0.contains("no allowed root is reachable"), "{err}");
    }
}
