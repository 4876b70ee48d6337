//! Where an operation may happen: turning a model's path into a real one, the ignore rules of
//! walks, the jail, and every byte of file I/O. No other module touches the disk (clippy's
//! `disallowed-methods` and `disallowed-types` enforce it), so confinement, secrets and atomic
//! writes cannot be bypassed.
//!
//! Without a jail (gg's default) a relative path is resolved against the working directory, an
//! absolute one is taken as itself, and `..` is left to the kernel. With a [`Jail`] every path
//! is resolved beneath one of its roots and every open is confined there by the kernel.
//! [`Access::resolve`] is the one function every tool resolves through.

#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

mod aside;
pub mod fs;
pub mod grant;
pub mod hints;
pub mod holes;
pub mod ignore;
pub mod jail;
pub mod listings;
pub mod pending;
mod permission;
pub mod platform;
pub mod secrets;
pub mod txn;
pub mod walk;
pub mod walkdir;

use std::path::{Component, Path, PathBuf};

pub use fs::{DirEntry, EntryKind, Meta, NewFolders, Place, Replaced, Splice, Stamp, WriteOptions};
pub use jail::{Jail, JailConfig, JailError};

/// A file this layer opened (confined, checked, secrets refused), handed to the engine to read
/// from. Outside this layer a file is named only by this alias: clippy bans the name
/// `std::fs::File` there, and every way of opening one.
pub type OpenFile = std::fs::File;

use crate::error::{ErrorKind, Result, ToolError};
use crate::text::names;

/// A resolved path: the one to operate on, and the one to show the model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resolved {
    /// The absolute path: as given or joined (no jail), or canonical (jail).
    pub path: PathBuf,
    /// The path as the model gave it, for messages ([`names::given`]: invisible characters
    /// escaped, in double quotes when a name starts or ends with a space).
    pub shown: String,
    loc: Loc,
    /// Written with a trailing slash (`dir/`, `dir/.`): it names a directory, as in the kernel
    /// (an existing one, or nothing yet), so no file is written there.
    folder: bool,
    /// Whether something is there (when the path was resolved).
    presence: Presence,
    /// With a jail: the path as written goes through a symbolic link to reach `path`.
    via_link: bool,
}

/// Whether a resolved path names something.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Presence {
    /// Something is there (a file, a folder, a link to one).
    There,
    /// Nothing is: the first `existing` components of the path exist, the rest do not.
    Missing { existing: usize },
}

impl Presence {
    fn existing(self) -> usize {
        match self {
            Presence::There => usize::MAX,
            Presence::Missing { existing } => existing,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Loc {
    Ambient,
    Beneath { root: usize, rel: PathBuf },
}

impl Resolved {
    /// With a jail: the containing root's index and the canonical path below it.
    pub fn inside(&self) -> Option<(usize, &Path)> {
        match &self.loc {
            Loc::Ambient => None,
            Loc::Beneath { root, rel } => Some((*root, rel)),
        }
    }
}

/// The access layer of one workspace: its working directory, its jail if any, and the rules
/// for reaching paths.
#[derive(Debug)]
pub struct Access {
    root: PathBuf,
    canonical_root: PathBuf,
    jail: Option<Jail>,
    /// Folder listings kept from one search to the next.
    listings: std::sync::Mutex<Option<Box<listings::Listings>>>,
    /// Artifact folders configured beyond [`ignore::ARTIFACT_DIRS`], root-relative.
    artifact_dirs: Vec<PathBuf>,
    /// Non-accessible globs of a workspace without a jail (a jail holds its own).
    secrets: Option<secrets::Secrets>,
}

impl Access {
    /// Opens an unconfined workspace whose working directory is `root` (made absolute against
    /// the process's current directory). Fails when `root` is not an existing directory.
    pub fn new(root: &Path) -> std::io::Result<Self> {
        let root = std::path::absolute(root)?;
        let canonical_root = std::fs::canonicalize(&root)?;
        if !canonical_root.is_dir() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::NotADirectory,
                format!("{} is not a directory", root.display()),
            ));
        }
        Ok(Access {
            root: lexical_clean(&root),
            canonical_root,
            jail: None,
            listings: Default::default(),
            artifact_dirs: Vec::new(),
            secrets: None,
        })
    }

    /// This unconfined workspace with non-accessible globs (see [`secrets`]): paths they match
    /// are refused and left out of walks as a jail's are. A jailed workspace takes them in its
    /// [`JailConfig`] instead.
    pub fn with_secrets(mut self, globs: &[String]) -> std::result::Result<Self, JailError> {
        self.secrets = secrets::Secrets::new(globs)?;
        Ok(self)
    }

    /// Whether any non-accessible glob is configured.
    pub fn has_secrets(&self) -> bool {
        match &self.jail {
            Some(jail) => !jail.secret_globs().is_empty(),
            None => self.secrets.is_some(),
        }
    }

    /// A confined workspace: the working directory is the jail's primary root.
    pub fn jailed(jail: Jail) -> Self {
        let root = jail.primary().to_path_buf();
        Access {
            canonical_root: root.clone(),
            root,
            jail: Some(jail),
            listings: Default::default(),
            artifact_dirs: Vec::new(),
            secrets: None,
        }
    }

    /// The working directory relative paths are resolved against.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The jail, when the workspace is confined.
    pub fn jail(&self) -> Option<&Jail> {
        self.jail.as_ref()
    }

    /// Resolves a path given by the model: relative against the working directory, absolute as
    /// itself, confined to the jail when there is one. The empty path and paths holding a NUL
    /// byte are refused; so are non-accessible paths.
    pub fn resolve(&self, raw: &str) -> Result<Resolved> {
        self.resolve_at(raw, None)
    }

    /// Resolves `raw` relative to a session directory `base` (itself resolved): relative paths
    /// anchor there, and the result must stay inside it.
    pub fn resolve_from(&self, raw: &str, base: &Resolved) -> Result<Resolved> {
        self.resolve_at(raw, Some(base))
    }

    fn resolve_at(&self, raw: &str, base: Option<&Resolved>) -> Result<Resolved> {
        let resolved = self.resolve_given(raw, base, false)?;
        self.trailing_slash(raw, resolved)
    }

    /// A path written with a trailing slash names a directory, as in the kernel (which answers
    /// `ENOTDIR` for `file.txt/`): one naming a file, or anything else that is not a directory,
    /// is refused; one naming nothing yet is marked, so no file is written there.
    fn trailing_slash(&self, raw: &str, mut resolved: Resolved) -> Result<Resolved> {
        let Some(end) = folder_suffix(raw) else {
            return Ok(resolved);
        };
        let meta = match &resolved.loc {
            // The path as given keeps the slash, and the kernel would answer for the file as
            // `ENOTDIR`: ask about the name itself.
            Loc::Ambient => {
                let bare: PathBuf = resolved.path.components().collect();
                fs::metadata(Place::Ambient(&bare))
            }
            Loc::Beneath { .. } => fs::metadata(self.place(&resolved)),
        };
        if let Ok(meta) = meta
            && !meta.is_dir
        {
            let what = if meta.is_file {
                "a file"
            } else {
                "a FIFO, socket or device"
            };
            return Err(ToolError::invalid(format!(
                "{raw} names {what}, not a directory (a path that ends in a slash names a \
                 directory); drop the trailing slash: {}",
                &raw[..end]
            )));
        }
        resolved.folder = true;
        Ok(resolved)
    }

    /// Resolves `raw` as the model gave it (see [`crate::text::names`] for the escaped form):
    /// its decoded form first when it holds escapes and names something, then the path as
    /// written. When neither names anything, a name that would be created from a habitual form
    /// is refused ([`hints`]), and the path is remembered for the near misses of a not-found.
    /// With `entry`, a link at the last component is not followed (what delete and move act
    /// on).
    fn resolve_given(&self, raw: &str, base: Option<&Resolved>, entry: bool) -> Result<Resolved> {
        if raw.is_empty() {
            return Err(ToolError::invalid(format!(
                "path is empty; pass a path relative to the working directory {} or an absolute \
                 path (\".\" names the working directory itself)",
                base.map_or(&self.root, |b| &b.path).display()
            )));
        }
        if raw.contains('\0') {
            return Err(ToolError::invalid(format!(
                "path {raw:?} contains a NUL byte, which no file name can hold; pass the path \
                 without it"
            )));
        }
        let decoded = match names::unescape(raw) {
            Some(d) => match self.resolve_form(Path::new(&d), raw, base, entry) {
                Ok(found) if found.presence == Presence::There => return Ok(found),
                // A listed name that is a dangling link: say so.
                Err(e) if e.kind == ErrorKind::NotFound => return Err(e),
                other => Some(other),
            },
            None => None,
        };
        let literal = self.resolve_form(Path::new(raw), raw, base, entry);
        if matches!(&literal, Ok(found) if found.presence == Presence::There) {
            return literal;
        }
        if hints::has_habit(raw) {
            self.refuse_habit(raw, base)?;
        }
        let chosen = match (decoded, literal) {
            (Some(Ok(d)), Ok(l)) if d.presence.existing() > l.presence.existing() => d,
            (Some(Ok(d)), Err(_)) => d,
            (_, literal) => literal?,
        };
        self.remember_miss(raw, &chosen);
        Ok(chosen)
    }

    /// Refuses `raw`, which names nothing, when a name it would create is a habitual form
    /// (see [`hints::refuse_habit`]).
    fn refuse_habit(&self, raw: &str, base: Option<&Resolved>) -> Result<()> {
        let parts: Vec<&str> = raw.split('/').collect();
        let mut first_new = parts.len();
        for (i, part) in parts.iter().enumerate() {
            if part.is_empty() || *part == "." || *part == ".." {
                continue;
            }
            if self.names_nothing(&parts[..=i].join("/"), base) {
                first_new = i;
                break;
            }
        }
        let root = base.map_or(&self.root, |b| &b.path);
        match hints::refuse_habit(raw, &parts, first_new, &names::show_path(root)) {
            Some(err) => Err(err),
            None => Ok(()),
        }
    }

    /// Whether `raw` (a leading part of a path) names nothing, in either of its forms. What
    /// cannot be resolved for another reason (above the roots) is not something to create.
    fn names_nothing(&self, raw: &str, base: Option<&Resolved>) -> bool {
        let decoded = names::unescape(raw);
        let forms = decoded
            .as_deref()
            .map(Path::new)
            .into_iter()
            .chain(std::iter::once(Path::new(raw)));
        let mut nothing = true;
        for form in forms {
            match self.resolve_form(form, raw, base, true) {
                Ok(found) if found.presence == Presence::There => return false,
                Ok(_) => {}
                Err(e) if e.kind == ErrorKind::NotFound => {}
                Err(_) => nothing = false,
            }
        }
        nothing
    }

    /// Remembers a path that names nothing, for the near misses of a not-found of this call.
    fn remember_miss(&self, raw: &str, found: &Resolved) {
        let Presence::Missing { existing } = found.presence else {
            return;
        };
        let (folder, name, after) = match (&found.loc, &self.jail) {
            (Loc::Beneath { root, rel }, Some(jail)) => {
                let parts: Vec<&std::ffi::OsStr> = rel.iter().collect();
                let Some(name) = parts.get(existing) else {
                    return;
                };
                let Ok(dir) = jail.roots()[*root].dir.try_clone() else {
                    return;
                };
                let parent: PathBuf = parts[..existing].iter().collect();
                (
                    hints::Folder::Beneath(dir, parent),
                    name.to_os_string(),
                    parts.len() - existing - 1,
                )
            }
            _ => {
                let parts: Vec<Component<'_>> = found.path.components().collect();
                let Some(Component::Normal(name)) = parts.get(existing) else {
                    return;
                };
                let parent: PathBuf = parts[..existing].iter().collect();
                (
                    hints::Folder::Ambient(parent),
                    name.to_os_string(),
                    parts.len() - existing - 1,
                )
            }
        };
        hints::remember(hints::Miss {
            raw: raw.to_string(),
            shown: found.shown.clone(),
            folder,
            name,
            around: around(raw, after),
        });
    }

    /// Resolves one form of a path (`given`: decoded, or as written); `raw` is what the model
    /// wrote, for messages.
    fn resolve_form(
        &self,
        given: &Path,
        raw: &str,
        base: Option<&Resolved>,
        entry: bool,
    ) -> Result<Resolved> {
        let shown = names::given(raw);
        let Some(jail) = &self.jail else {
            let anchor = base.map_or(&self.root, |b| &b.path);
            let path = if given.is_absolute() {
                given.to_path_buf()
            } else {
                anchor.join(given)
            };
            // The path as written and where it really leads (through links) are both tested.
            if self.secrets.is_some()
                && (self.is_secret_path(&path) || self.is_secret_path(&fs::real_path(&path)))
            {
                return Err(not_accessible(raw));
            }
            let presence = self.ambient_presence(&path, &shown, entry)?;
            return Ok(Resolved {
                path,
                shown,
                loc: Loc::Ambient,
                folder: false,
                presence,
                via_link: false,
            });
        };
        if entry && let Some(found) = self.jailed_entry(jail, given, raw, base)? {
            return Ok(found);
        }
        let anchor = base.map_or(jail.primary(), |b| b.path.as_path());
        let inside = jail.resolve(given, anchor, &shown)?;
        let path = join_rel(&jail.roots()[inside.root].path, &inside.rel);
        if let Some(base) = base
            && !path.starts_with(&base.path)
        {
            return Err(ToolError::new(
                ErrorKind::OutsideSession,
                format!(
                    "{shown} resolves to {}, outside the session directory {} (base_dir); pass a \
                     path inside it, or leave base_dir out to resolve against the primary root",
                    path.display(),
                    base.path.display()
                ),
            ));
        }
        let lexical = lexical_rel(jail, given, anchor);
        if jail.is_secret(&inside.rel) || lexical.as_deref().is_some_and(|l| jail.is_secret(l)) {
            return Err(not_accessible(&shown));
        }
        Ok(Resolved {
            path,
            shown,
            via_link: lexical.is_some_and(|l| l != inside.rel),
            presence: if inside.exists {
                Presence::There
            } else {
                Presence::Missing {
                    existing: inside.existing,
                }
            },
            loc: Loc::Beneath {
                root: inside.root,
                rel: inside.rel,
            },
            folder: false,
        })
    }

    /// Under a jail, `given` as an entry of its parent directory, its last component not
    /// followed; `None` when it has no parent to resolve (a root, `..`).
    fn jailed_entry(
        &self,
        jail: &Jail,
        given: &Path,
        raw: &str,
        base: Option<&Resolved>,
    ) -> Result<Option<Resolved>> {
        let (Some(name), Some(parent)) = (given.file_name(), given.parent()) else {
            return Ok(None);
        };
        let parent = if parent.as_os_str().is_empty() {
            Path::new(".")
        } else {
            parent
        };
        let parent = match self.resolve_form(parent, raw, base, false) {
            Ok(parent) => parent,
            // A root itself: its parent lies outside, but the path is inside.
            Err(e) if e.kind == ErrorKind::OutsideRoot => return Ok(None),
            Err(e) => return Err(e),
        };
        let Some((root, rel)) = parent.inside() else {
            return Ok(None);
        };
        let rel = rel.join(name);
        let path = join_rel(&jail.roots()[root].path, &rel);
        if let Some(base) = base
            && !path.starts_with(&base.path)
        {
            return Ok(None);
        }
        if jail.is_secret(&rel) {
            return Err(not_accessible(&parent.shown));
        }
        let presence = match fs::symlink_metadata(Place::Beneath(&jail.roots()[root].dir, &rel)) {
            Ok(_) => Presence::There,
            Err(_) => Presence::Missing {
                existing: parent
                    .presence
                    .existing()
                    .min(rel.components().count().saturating_sub(1)),
            },
        };
        Ok(Some(Resolved {
            path,
            shown: parent.shown,
            loc: Loc::Beneath { root, rel },
            folder: false,
            presence,
            via_link: parent.via_link,
        }))
    }

    /// Whether something is at the unconfined `path`. A symbolic link whose target does not
    /// exist is refused as dangling (unless `entry`: the link itself is what is named), and so
    /// is one met on the way to a path that names nothing.
    fn ambient_presence(&self, path: &Path, shown: &str, entry: bool) -> Result<Presence> {
        if let Ok(meta) = fs::symlink_metadata(Place::Ambient(path)) {
            if meta.is_symlink && !entry && dangles(path) {
                return Err(self.ambient_dangling(path, shown, false));
            }
            return Ok(Presence::There);
        }
        let total = path.components().count();
        for (up, ancestor) in path.ancestors().enumerate().skip(1) {
            if ancestor.as_os_str().is_empty() {
                break;
            }
            if let Ok(meta) = fs::symlink_metadata(Place::Ambient(ancestor)) {
                if meta.is_symlink && dangles(ancestor) {
                    return Err(self.ambient_dangling(ancestor, shown, true));
                }
                return Ok(Presence::Missing {
                    existing: total.saturating_sub(up),
                });
            }
        }
        Ok(Presence::Missing { existing: 0 })
    }

    /// The not-found of an unconfined path through the dangling link at `link`.
    fn ambient_dangling(&self, link: &Path, shown: &str, on_the_way: bool) -> ToolError {
        let written = std::fs::read_link(link).unwrap_or_default();
        let lands = if written.is_absolute() {
            jail::lexical(&written)
        } else {
            jail::lexical(&link.parent().unwrap_or(Path::new("/")).join(&written))
        };
        let at = self.display(link);
        hints::dangling(
            shown,
            on_the_way.then_some(at.as_str()),
            &names::show_path(&written),
            lands.map(|l| self.display(&l)).as_deref(),
        )
    }

    /// Resolves `raw` to an entry of its parent directory without following a link at its last
    /// component: what delete and move act on (the link itself, not what it points to). The
    /// parent is resolved as [`Access::resolve`] does; `base` is an optional session directory.
    pub fn resolve_entry(&self, raw: &str, base: Option<&Resolved>) -> Result<Resolved> {
        let resolved = self.resolve_given(raw, base, true)?;
        self.trailing_slash(raw, resolved)
    }

    /// How a write or edit result names `target`: as given, and when the path reaches the
    /// file through a symbolic link, ` through the symbolic link to ` and the file written.
    pub fn written_name(&self, target: &Resolved) -> String {
        match self.through_link(target) {
            Some(real) => format!("{} through the symbolic link to {real}", target.shown),
            None => target.shown.clone(),
        }
    }

    /// Where `target` really is, as shown, when the path as given reaches it through a
    /// symbolic link (in the workspace, or at its last component).
    pub fn through_link(&self, target: &Resolved) -> Option<String> {
        match &target.loc {
            Loc::Beneath { .. } => target.via_link.then(|| self.display(&target.path)),
            Loc::Ambient => {
                let real = fs::real_path(&target.path);
                let lexical = jail::lexical(&target.path).unwrap_or_else(|| target.path.clone());
                if real == lexical {
                    return None;
                }
                let last_is_link =
                    fs::symlink_metadata(Place::Ambient(&target.path)).is_ok_and(|m| m.is_symlink);
                match (
                    self.relative_to_root(&real),
                    self.relative_to_root(&lexical),
                ) {
                    (Some(a), Some(b)) if a == b => None,
                    (Some(_), Some(_)) => Some(self.display(&real)),
                    _ => last_is_link.then(|| self.display(&real)),
                }
            }
        }
    }

    /// Whether `target` is one of the jail's roots.
    pub fn is_root(&self, target: &Resolved) -> bool {
        matches!(&target.loc, Loc::Beneath { rel, .. } if rel.as_os_str().is_empty())
    }

    /// Like [`Access::resolve`], with `None` naming the working directory.
    pub fn resolve_or_root(&self, raw: Option<&str>) -> Result<Resolved> {
        match raw {
            Some(raw) => self.resolve(raw),
            None => self.resolve("."),
        }
    }

    /// Where the I/O for `target` happens.
    pub fn place<'a>(&'a self, target: &'a Resolved) -> Place<'a> {
        match (&target.loc, &self.jail) {
            (Loc::Beneath { root, rel }, Some(jail)) => {
                Place::Beneath(&jail.roots()[*root].dir, rel)
            }
            _ => Place::Ambient(&target.path),
        }
    }

    /// Where the I/O for a path found by a walk happens: beneath its root under a jail.
    fn place_of<'a>(&'a self, path: &'a Path) -> Place<'a> {
        match &self.jail {
            Some(jail) => match jail.locate(path) {
                Some((root, rel)) => Place::Beneath(&jail.roots()[root].dir, rel),
                // A walk never leaves its root; refuse rather than fall back to ambient I/O.
                None => Place::Beneath(&jail.roots()[0].dir, Path::new("..")),
            },
            None => Place::Ambient(path),
        }
    }

    /// Whether a path found by a walk is non-accessible: under a jail, its root-relative path
    /// matches the jail's globs; without one, its path relative to the working directory (or,
    /// outside it, the absolute path) matches [`Access::with_secrets`]'s.
    pub fn is_secret_path(&self, path: &Path) -> bool {
        match &self.jail {
            Some(jail) => jail
                .locate(path)
                .is_some_and(|(_, rel)| jail.is_secret(rel)),
            None => self
                .secrets
                .as_ref()
                .is_some_and(|s| s.is_match(self.relative_to_root(path).unwrap_or(path))),
        }
    }

    /// Whether a path found by a walk is default-excluded noise (always `false` without a
    /// jail).
    pub fn is_excluded_path(&self, path: &Path, is_dir: bool) -> bool {
        match &self.jail {
            Some(jail) => jail
                .locate(path)
                .is_some_and(|(_, rel)| jail.is_excluded(rel, is_dir)),
            None => false,
        }
    }

    /// How a path found by a walk is shown: relative to the working directory when it lies
    /// under it, else absolute; each name in the escaped form of [`names`], which every tool
    /// accepts back.
    pub fn display(&self, path: &Path) -> String {
        match self.relative_to_root(path) {
            Some(rel) if rel.as_os_str().is_empty() => ".".to_string(),
            Some(rel) => names::show_path(rel),
            None => names::show_path(path),
        }
    }

    /// The part of `path` below the working directory, when it lies there (lexically).
    pub(crate) fn relative_to_root<'a>(&self, path: &'a Path) -> Option<&'a Path> {
        path.strip_prefix(&self.root)
            .or_else(|_| path.strip_prefix(&self.canonical_root))
            .ok()
    }

    /// Opens the regular file at `target` for reading (see [`fs::open_regular`]).
    pub fn open_regular(&self, target: &Resolved) -> std::io::Result<(std::fs::File, Meta)> {
        let (file, meta) = fs::open_regular(self.place(target))?;
        self.check_links(&meta)?;
        Ok((file, meta))
    }

    /// Reads the whole regular file at `target`.
    pub fn read_all(&self, target: &Resolved) -> std::io::Result<(Vec<u8>, Meta)> {
        let (file, meta) = self.open_regular(target)?;
        let bytes = fs::read_open(file, &meta)?;
        Ok((bytes, meta))
    }

    /// The hard-link policy of a confined workspace: a regular file with more than one name is
    /// neither read nor written in place, because the jail cannot know its other names: one
    /// may lie outside every root, or match the non-accessible patterns. (Atomic replacement
    /// never writes through a link: it gives the name a new file.)
    pub(crate) fn check_links(&self, meta: &Meta) -> std::io::Result<()> {
        if self.jail.is_some() && meta.is_file && meta.nlink > 1 {
            return Err(std::io::Error::new(
                std::io::ErrorKind::PermissionDenied,
                format!(
                    "the file has {} hard links, and in a confined workspace a file with more \
                     than one name is not opened (another name may lie outside the roots or \
                     be non-accessible); copy it to a file of its own outside fsgate if it is \
                     meant to be shared",
                    meta.nlink
                ),
            ));
        }
        Ok(())
    }

    /// Metadata of `target`, following links.
    pub fn metadata(&self, target: &Resolved) -> std::io::Result<Meta> {
        fs::metadata(self.place(target))
    }

    /// Metadata of `target` itself, not following a final link.
    pub fn symlink_metadata(&self, target: &Resolved) -> std::io::Result<Meta> {
        fs::symlink_metadata(self.place(target))
    }

    /// The entries of the directory at `target`, unsorted.
    pub fn read_dir(&self, target: &Resolved) -> std::io::Result<Vec<DirEntry>> {
        fs::read_dir(self.place(target))
    }

    /// Creates the directory `target` and its missing parents.
    pub fn create_dir_all(&self, target: &Resolved) -> std::io::Result<()> {
        self.check_lengths(target)?;
        fs::create_dir_all(self.place(target))
    }

    /// Creates the missing folders above `target`, once `target` is known to be a name the
    /// filesystem can hold (see [`fs::check_lengths`]). Dropping the value returned removes
    /// again those of them still empty (all of them when the operation that needed them
    /// failed); [`NewFolders::keep`] keeps them.
    pub fn create_parents(&self, target: &Resolved) -> std::io::Result<NewFolders<'_>> {
        self.check_lengths(target)?;
        match (&target.loc, &self.jail) {
            (Loc::Beneath { root, rel }, Some(jail)) => match rel.parent() {
                Some(parent) if !parent.as_os_str().is_empty() => {
                    fs::make_dirs(Some(&jail.roots()[*root].dir), parent)
                }
                _ => Ok(NewFolders::none()),
            },
            _ => match target.path.parent() {
                Some(parent) => fs::make_dirs(None, parent),
                None => Ok(NewFolders::none()),
            },
        }
    }

    /// Refuses to make `target` when the filesystem could not hold its name (a component over
    /// `NAME_MAX` bytes, the whole path over `PATH_MAX`), before anything is made. What exists
    /// already is the filesystem's own answer and passes.
    fn check_lengths(&self, target: &Resolved) -> std::io::Result<()> {
        match fs::check_lengths(&target.path) {
            Err(e) if fs::symlink_metadata(self.place(target)).is_err() => Err(e),
            _ => Ok(()),
        }
    }

    /// Refuses to write a file at `target` when no file can be there: a path written with a
    /// trailing slash that names nothing yet (a directory path), or a name too long (see
    /// [`Access::check_lengths`]).
    fn check_file_target(&self, target: &Resolved) -> std::io::Result<()> {
        if target.folder && fs::symlink_metadata(self.place(target)).is_err() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidFilename,
                "the path ends in a slash, which names a directory, so no file is written \
                 there; drop the trailing slash to write the file",
            ));
        }
        self.check_lengths(target)
    }

    /// Replaces the file at `target` atomically with the file `splice` was read from, one range
    /// replaced (see [`fs::write_atomic_splice`]).
    pub fn write_atomic_splice(
        &self,
        target: &Resolved,
        splice: Splice<'_>,
        options: WriteOptions,
    ) -> std::io::Result<Replaced> {
        self.check_file_target(target)?;
        fs::write_atomic_splice(self.place(target), splice, options)
    }

    /// Replaces the file at `target` atomically with `parts`, one after the other (see
    /// [`fs::write_atomic_parts`]).
    pub fn write_atomic_parts(
        &self,
        target: &Resolved,
        parts: &[&[u8]],
        options: WriteOptions,
    ) -> std::io::Result<Replaced> {
        self.check_file_target(target)?;
        fs::write_atomic_parts(self.place(target), parts, options)
    }

    /// Replaces the file at `target` atomically (see [`fs::write_atomic`]).
    pub fn write_atomic(
        &self,
        target: &Resolved,
        bytes: &[u8],
        options: WriteOptions,
    ) -> std::io::Result<Replaced> {
        self.check_file_target(target)?;
        fs::write_atomic(self.place(target), bytes, options)
    }

    /// Removes `target` (a link itself, not its target). A directory needs `recursive` unless
    /// empty; a tree holding a non-accessible entry is refused before anything is removed.
    /// Returns `false` when nothing was there.
    pub fn remove(&self, target: &Resolved, recursive: bool) -> Result<bool> {
        let place = self.place(target);
        let meta = match fs::symlink_metadata(place) {
            Ok(meta) => meta,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
            Err(e) => return Err(ToolError::from_io(&e, "remove", &target.shown)),
        };
        if meta.is_dir {
            let entries =
                fs::read_dir(place).map_err(|e| ToolError::from_io(&e, "list", &target.shown))?;
            if !entries.is_empty() && !recursive {
                return Err(ToolError::invalid(format!(
                    "{} is a directory holding {}; pass recursive: true to remove it with \
                     everything inside",
                    target.shown,
                    if entries.len() == 1 {
                        "1 entry".to_string()
                    } else {
                        format!("{} entries", entries.len())
                    }
                )));
            }
            if let Some(secret) = self.find_secret(target)? {
                return Err(ToolError::new(
                    ErrorKind::NotAccessible,
                    format!(
                        "{} holds {}, which matches the non-accessible patterns, so the tree is \
                         not removed (nothing was deleted); remove the other entries one by one",
                        target.shown,
                        secret.display()
                    ),
                ));
            }
            if recursive
                && let (Some(jail), Some((_, rel))) = (&self.jail, target.inside())
                && !jail.secret_globs().is_empty()
            {
                // The check above saw the tree as it was; whatever is moved into it (or
                // exchanged for it) meanwhile is asked about again, entry by entry, as it
                // goes, so a non-accessible file is never removed.
                let spared =
                    fs::remove_tree_sparing(place, &|below| jail.is_secret(&rel.join(below)))
                        .map_err(|e| ToolError::from_io(&e, "remove", &target.shown))?;
                return match spared {
                    None => Ok(true),
                    Some(kept) => Err(ToolError::new(
                        ErrorKind::NotAccessible,
                        format!(
                            "{} came to hold {} while it was being removed (something moved it \
                             in meanwhile), which matches the non-accessible patterns, so it and \
                             the folders holding it were kept; the entries removed before it are \
                             gone. List {} to see what is left, and remove the rest one by one",
                            target.shown,
                            rel.join(kept).display(),
                            target.shown
                        ),
                    )),
                };
            }
        }
        fs::remove(place, recursive).map_err(|e| ToolError::from_io(&e, "remove", &target.shown))
    }

    /// The first non-accessible entry in the tree under `target`, as a root-relative path.
    pub fn find_secret(&self, target: &Resolved) -> Result<Option<PathBuf>> {
        let (Some(jail), Some((root, rel))) = (&self.jail, target.inside()) else {
            return Ok(None);
        };
        if jail.secret_globs().is_empty() {
            return Ok(None);
        }
        let dir = &jail.roots()[root].dir;
        let mut stack = vec![rel.to_path_buf()];
        while let Some(folder) = stack.pop() {
            let entries = fs::read_dir(Place::Beneath(dir, &folder))
                .map_err(|e| ToolError::from_io(&e, "list", &target.shown))?;
            for entry in entries {
                let path = folder.join(&entry.name);
                if jail.is_secret(&path) {
                    return Ok(Some(path));
                }
                if entry.kind == EntryKind::Dir {
                    stack.push(path);
                }
            }
        }
        Ok(None)
    }

    /// Renames `from` to `to`; with `replace` false an existing destination is
    /// `AlreadyExists`, decided atomically.
    pub fn rename(&self, from: &Resolved, to: &Resolved, replace: bool) -> std::io::Result<()> {
        if to.folder && !fs::symlink_metadata(self.place(from)).is_ok_and(|m| m.is_dir) {
            // Only a directory moves to a path written as a directory's, as in the kernel.
            self.check_file_target(to)?;
        }
        self.check_lengths(to)?;
        fs::rename(self.place(from), self.place(to), replace)
    }

    /// Appends `bytes` to the file at `target` (see [`fs::append`]); returns its old length.
    pub fn append(&self, target: &Resolved, bytes: &[u8]) -> std::io::Result<u64> {
        self.check_file_target(target)?;
        if self.jail.is_some() {
            match fs::metadata(self.place(target)) {
                Ok(meta) => self.check_links(&meta)?,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(e),
            }
        }
        fs::append(self.place(target), bytes)
    }

    /// Creates a symbolic link at `target` holding `text` (see [`fs::symlink`]).
    pub fn symlink(&self, target: &Resolved, text: &Path) -> std::io::Result<()> {
        self.check_lengths(target)?;
        fs::symlink(self.place(target), text)
    }

    /// What the symbolic link at `target` holds, as written in it.
    pub fn read_link(&self, target: &Resolved) -> std::io::Result<PathBuf> {
        fs::read_link(self.place(target))
    }

    /// Sets the modification time of `target` itself, seconds and nanoseconds.
    pub fn set_modified(&self, target: &Resolved, mtime: (i64, i64)) -> std::io::Result<()> {
        fs::set_modified(self.place(target), mtime)
    }

    /// Sets the exact permission bits of `target`.
    pub fn set_mode(&self, target: &Resolved, mode: u32) -> std::io::Result<()> {
        fs::set_mode(self.place(target), mode)
    }

    /// Copies the regular file `from` to `to` atomically, streaming, with `from`'s mode; with
    /// `replace` false an existing destination is `AlreadyExists`.
    pub fn copy_file(&self, from: &Resolved, to: &Resolved, replace: bool) -> std::io::Result<u64> {
        self.check_file_target(to)?;
        let (mut file, meta) = self.open_regular(from)?;
        let options = WriteOptions {
            create_parents: false,
            create_new: !replace,
            exact_mode: Some(meta.mode),
            ..WriteOptions::default()
        };
        fs::write_atomic_from(self.place(to), &mut file, options)?;
        Ok(meta.len)
    }

    /// Opens a regular file found by a walk; non-accessible files are refused.
    pub fn open_walked(&self, path: &Path) -> std::io::Result<std::fs::File> {
        if self.is_secret_path(path) {
            return Err(std::io::Error::from(std::io::ErrorKind::PermissionDenied));
        }
        let file = walkdir::patiently(|| fs::open_walked(self.place_of(path)))?;
        if self.jail.is_some() {
            self.check_links(&Meta::from(file.metadata()?))?;
        }
        Ok(file)
    }

    /// What the link at a walked `path` points to, as written and shown in the escaped form of
    /// [`names`] (empty when unreadable).
    pub fn link_target(&self, path: &Path) -> String {
        match std::fs::read_link(path) {
            Ok(target) => names::show_path(&target),
            Err(_) => String::new(),
        }
    }
}

/// The error of a non-accessible path. It is the same whether or not the path exists.
pub fn not_accessible(shown: &str) -> ToolError {
    ToolError::new(
        ErrorKind::NotAccessible,
        format!(
            "{shown} is not found or not accessible: it matches the non-accessible patterns \
             (non_accessible_globs), which no tool may read, write, create, delete or move; \
             choose another path"
        ),
    )
}

/// Whether the symbolic link at the unconfined `path` leads to nothing.
fn dangles(path: &Path) -> bool {
    matches!(fs::metadata(Place::Ambient(path)), Err(e) if e.kind() == std::io::ErrorKind::NotFound)
}

/// The text of `raw` before and after its name that is `after` names from its end (the first
/// name that does not exist, when `after` names follow it), when those names are plain.
fn around(raw: &str, after: usize) -> Option<(String, String)> {
    let mut spans = Vec::new();
    let mut start = 0;
    for part in raw.split('/') {
        if !part.is_empty() && part != "." {
            spans.push((start, start + part.len()));
        }
        start += part.len() + 1;
    }
    let tail = spans.get(spans.len().checked_sub(after + 1)?..)?;
    if tail.iter().any(|&(s, e)| &raw[s..e] == "..") {
        return None;
    }
    let (s, e) = tail[0];
    Some((raw[..s].to_string(), raw[e..].to_string()))
}

/// Where the trailing slash of a path that ends in one begins (`file.txt/`, `dir/.`, `a//`):
/// the path before it names what the slash says is a directory. `None` for a path without one,
/// and for `/` itself.
fn folder_suffix(raw: &str) -> Option<usize> {
    let mut end = raw.len();
    loop {
        let head = &raw[..end];
        if let Some(rest) = head.strip_suffix('/') {
            end = rest.len();
        } else if let Some(rest) = head.strip_suffix("/.") {
            // The slash before the dot is taken on the next round.
            end = rest.len() + 1;
        } else {
            break;
        }
    }
    (end > 0 && end < raw.len()).then_some(end)
}

/// The root-relative path `given` names lexically (before links are followed), when it lies
/// lexically inside a root.
fn lexical_rel(jail: &Jail, given: &Path, anchor: &Path) -> Option<PathBuf> {
    let joined = if given.is_absolute() {
        given.to_path_buf()
    } else {
        anchor.join(given)
    };
    let (_, rel) = jail.locate(&joined)?;
    let mut out = PathBuf::new();
    for c in rel.components() {
        match c {
            Component::Normal(p) => out.push(p),
            Component::ParentDir => {
                out.pop();
            }
            _ => {}
        }
    }
    Some(out)
}

/// `root` joined with a root-relative path; the root itself for the empty path (a plain join
/// would add a trailing separator).
fn join_rel(root: &Path, rel: &Path) -> PathBuf {
    if rel.as_os_str().is_empty() {
        root.to_path_buf()
    } else {
        root.join(rel)
    }
}

/// Drops `.` components and trailing separators without touching `..` (which only the kernel
/// can resolve correctly in the presence of symbolic links).
fn lexical_clean(path: &Path) -> PathBuf {
    path.components()
        .filter(|c| !matches!(c, Component::CurDir))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_join_the_working_directory_and_absolute_stay() {
        let dir = tempfile::tempdir().unwrap();
        let access = Access::new(dir.path()).unwrap();
        let rel = access.resolve("src/main.rs").unwrap();
        assert_eq!(rel.path, access.root().join("src/main.rs"));
        assert_eq!(
            access.resolve("/etc/hosts").unwrap().path,
            Path::new("/etc/hosts")
        );
        let up = access.resolve("../x").unwrap();
        assert_eq!(
            up.path,
            access.root().join("../x"),
            "`..` is left to the kernel"
        );
    }

    #[test]
    fn empty_path_is_invalid_argument() {
        let dir = tempfile::tempdir().unwrap();
        let access = Access::new(dir.path()).unwrap();
        let err = access.resolve("").unwrap_err();
        assert_eq!(err.kind, crate::error::ErrorKind::InvalidArgument);
        assert!(err.message.contains("path is empty"), "{}", err.message);
    }

    #[test]
    fn a_trailing_slash_is_found_after_the_last_name() {
        assert_eq!(folder_suffix("ok.txt/"), Some(6));
        assert_eq!(folder_suffix("a/ok.txt/."), Some(8));
        assert_eq!(folder_suffix("a/ok.txt//./"), Some(8));
        assert_eq!(folder_suffix("./"), Some(1));
        for none in ["ok.txt", "a/..", "/", "/.", "a/.b", "..."] {
            assert_eq!(folder_suffix(none), None, "{none}");
        }
    }

    #[test]
    fn a_trailing_slash_on_a_file_is_not_a_directory_with_or_without_a_jail() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("ok.txt"), "x").unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        for access in [Access::new(dir.path()).unwrap(), jailed(dir.path(), &[])] {
            let err = access.resolve("ok.txt/").unwrap_err();
            assert_eq!(err.kind, ErrorKind::InvalidArgument);
            assert!(
                err.message
                    .starts_with("ok.txt/ names a file, not a directory")
                    && err.message.ends_with("drop the trailing slash: ok.txt"),
                "{}",
                err.message
            );
            assert!(access.resolve("sub/").is_ok());
            let new = access.resolve("new.txt/").unwrap();
            let err = access
                .write_atomic(&new, b"x", WriteOptions::default())
                .unwrap_err();
            assert_eq!(err.kind(), std::io::ErrorKind::InvalidFilename);
            assert!(!dir.path().join("new.txt").exists());
        }
    }

    #[test]
    fn display_is_relative_under_the_root_and_absolute_elsewhere() {
        let dir = tempfile::tempdir().unwrap();
        let access = Access::new(dir.path()).unwrap();
        assert_eq!(access.display(&access.root().join("a/b.txt")), "a/b.txt");
        assert_eq!(access.display(Path::new("/etc/hosts")), "/etc/hosts");
    }

    fn jailed(root: &Path, secrets: &[&str]) -> Access {
        let (jail, _) = Jail::new(&JailConfig {
            roots: vec![root.to_path_buf()],
            non_accessible: secrets.iter().map(|s| s.to_string()).collect(),
            default_excludes: vec![],
        })
        .unwrap();
        Access::jailed(jail)
    }

    #[test]
    fn a_secret_is_refused_directly_and_through_a_link_the_same_way_existing_or_not() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(".env"), "TOKEN=1").unwrap();
        std::os::unix::fs::symlink(".env", dir.path().join("innocent.txt")).unwrap();
        let access = jailed(dir.path(), &["**/.env"]);
        let direct = access.resolve(".env").unwrap_err();
        let linked = access.resolve("innocent.txt").unwrap_err();
        let missing = access.resolve("sub/.env").unwrap_err();
        assert_eq!(direct.kind, ErrorKind::NotAccessible);
        assert_eq!(linked.kind, ErrorKind::NotAccessible);
        assert_eq!(
            direct.message.replace(".env", "X"),
            missing.message.replace("sub/.env", "X")
        );
    }

    #[test]
    fn a_session_directory_keeps_paths_inside_it() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("s/inner")).unwrap();
        let access = jailed(dir.path(), &[]);
        let base = access.resolve("s").unwrap();
        let inner = access.resolve_from("inner", &base).unwrap();
        assert!(inner.path.ends_with("s/inner"));
        let err = access.resolve_from("../x", &base).unwrap_err();
        assert_eq!(err.kind, ErrorKind::OutsideSession);
        let err = access.resolve_from("../../x", &base).unwrap_err();
        assert_eq!(err.kind, ErrorKind::OutsideRoot);
    }

    #[test]
    fn walked_files_open_beneath_the_root_and_secrets_do_not() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), "a").unwrap();
        std::fs::write(dir.path().join("k.pem"), "k").unwrap();
        let access = jailed(dir.path(), &["**/*.pem"]);
        let root = access.root().to_path_buf();
        assert!(access.open_walked(&root.join("a.txt")).is_ok());
        assert!(access.open_walked(&root.join("k.pem")).is_err());
        assert!(access.open_walked(Path::new("/etc/hostname")).is_err());
    }
}
