//! The one walker of every search: gg's `search`, coder's `search`, qwen's `glob` and
//! `grep_search`, picoclaw's `search_files` and sgpt's `search_lores` all walk through [`Walk`],
//! each with its own [`WalkOptions`].
//!
//! **On handles.** The walk is depth-first from its root, siblings in byte order of their names
//! (so files come in path order). Each folder is opened from its parent's handle, one component
//! at a time and without following a link, and each file found is handed on with its folder's
//! handle, so nothing swapped into the tree meanwhile leads the walk — its names or the contents
//! read — outside the folder it started from. At most [`MAX_HELD`] handles are held at once
//! (fewer under a low descriptor limit, see [`HandleBudget`]), those of files handed on but not
//! yet read included: past that the shallowest folder lets go of its handle, and a folder with
//! none is opened by its path beneath the workspace's confinement. An open that fails for want
//! of a descriptor is tried again for a while (`walkdir::patiently`), so a passing shortage is
//! never taken for an unreadable folder.
//!
//! **Which entries.** A rule decides what the walk leaves out ([`WalkRule`]):
//! - the ignore rule of a set of ignore files ([`IgnoreFiles`]: gg's, picoclaw's, qwen's), `.git`
//!   never entered, artifact folders left out. Under gg's own rule, at or below the working
//!   directory, a folder's listing after the rule is kept from one walk to the next and listed
//!   again only when the folder or its ignore files changed (see `listings.rs`): every profile
//!   whose walk is that rule gets the kept listings. Under another set the rule is asked entry
//!   by entry ([`super::ignore::EntryRule`]), exactly as the `ignore` crate's walk asks it.
//! - the jail's default-exclude noise (coder): no ignore file applies; a non-accessible folder
//!   is passed over (and counted) before the noise test, as a non-accessible file is.
//! - a library (sgpt's lore): names starting with `.` are left out, and every entry is named to
//!   the access layer, which may refuse it (a non-accessible file, a link leading out).
//!
//! Non-accessible files are never yielded. A search may also say which files it looks at
//! ([`WalkOptions::select`]); a non-accessible file it would not have looked at is not counted.
//!
//! **Links** are never followed, except in a library: each one met is passed over (one that
//! leads round in a loop is counted), or handed to the search as a link (qwen's glob counts the
//! loops among those its pattern matches), or, in a library, followed beneath the roots.
//!
//! **What it passes over** comes in the walk's own order, between the files ([`Step::Passed`]):
//! a search may count it as the walk meets it (gg's, coder's: all the walk met, also ahead of
//! a complete answer), or take it in order with its answer (picoclaw's pages count only what
//! lay on the way to the page, sgpt's warnings keep their place among the files'). Ignore files
//! a confined walk could not read are told to the walk's [`Skips`] once each, as they are met.
//!
//! Cancellation and progress belong to the search that drives the walk (`ops::scan`): a walk is
//! an iterator, and reads nothing beyond what is asked of it.

use super::OpenFile as File;
use std::ffi::{OsStr, OsString};
use std::io;
use std::os::unix::ffi::OsStrExt as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::fs::Meta;
use super::ignore::{EntryRule, IgnoreFiles};
use super::listings::{Kept, Stamped};
use super::walkdir::{HandleBudget, HeldDir, NotRead, OpenDir, Skips, WalkKind};
use super::{Access, Resolved};

/// The most folder handles one walk holds at once, counting those of files handed on but not
/// yet read (fewer under a low descriptor limit, see [`HandleBudget`]).
pub const MAX_HELD: usize = 128;

/// Which entries a walk leaves out (see the module documentation).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WalkRule {
    /// The ignore rule of these files; `.git` and artifact folders are never entered.
    Ignore(IgnoreFiles),
    /// No ignore file: the jail's default-exclude noise is left out when `exclude_noise` is set;
    /// artifact folders are never entered.
    Noise {
        /// Leave out what the jail's `default_exclude_globs` match.
        exclude_noise: bool,
    },
    /// A library of documents: names starting with `.` and artifact folders are left out, and
    /// each entry is named to the access layer, which may refuse it.
    Library,
}

/// What a walk does with the symbolic links it meets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinkRule {
    /// Passes over them; one that leads round in a loop is counted.
    PassOver,
    /// Hands them to the search as [`Step::Link`], unfollowed.
    Yield,
    /// Follows them beneath the roots (a library): a link to a folder is walked, one to a file
    /// yielded; one that loops or that the access layer refuses is passed over.
    Follow,
}

/// How a walk goes.
pub struct WalkOptions<'s> {
    /// What it leaves out.
    pub rule: WalkRule,
    /// What it does with links. By default they are passed over.
    pub links: LinkRule,
    /// Folders deeper than this many levels below the root are not entered. By default there
    /// is no bound.
    pub max_depth: Option<usize>,
    /// The files (and yielded links) the search looks at, by path: a file it does not select
    /// is neither yielded nor counted as non-accessible. By default every file.
    pub select: Option<&'s dyn Fn(&Path) -> bool>,
    /// Where the folders of the root's own listing go instead of being entered, each admitted
    /// by the rule as an entered folder is: a search that is free to answer in any order walks
    /// them as walks of their own, side by side. By default every folder is entered.
    pub deferred: Option<&'s std::sync::Mutex<Vec<PathBuf>>>,
    /// Yields every entry the rule keeps, folders and other kinds included, as
    /// [`Step::Entry`] with its depth (a tree): each folder is yielded before what it holds,
    /// and a non-accessible entry (a folder with all it holds) is passed over. `links`,
    /// `select` and `deferred` do not apply. By default only files (and links) are yielded.
    pub entries: bool,
}

impl WalkOptions<'_> {
    /// Options walking under `rule`, links passed over, every file selected.
    pub fn new(rule: WalkRule) -> WalkOptions<'static> {
        WalkOptions {
            rule,
            links: LinkRule::PassOver,
            max_depth: None,
            select: None,
            deferred: None,
            entries: false,
        }
    }
}

/// One step of a walk.
#[derive(Debug)]
pub enum Step {
    /// A regular file (or, in a library, the file a link leads to).
    File(WalkedFile),
    /// A symbolic link, unfollowed ([`LinkRule::Yield`]).
    Link(PathBuf),
    /// Something the walk passed over.
    Passed(Passed),
    /// Any entry, in a walk of [`WalkOptions::entries`].
    Entry(Entry),
}

/// An entry of a walk of [`WalkOptions::entries`].
#[derive(Debug)]
pub struct Entry {
    /// Its path, spelled under the walk's root.
    pub path: PathBuf,
    /// Levels below the root: the root's own entries are at depth 1.
    pub depth: usize,
    /// What it is (a link is not followed).
    pub kind: WalkKind,
}

/// Something a walk passed over, where it met it.
#[derive(Debug)]
pub enum Passed {
    /// A folder it could not open or list.
    Folder(PathBuf, io::Error),
    /// A symbolic link that leads round in a loop.
    LinkLoop(PathBuf),
    /// A path matching the non-accessible globs.
    NonAccessible(PathBuf),
    /// An entry of a library the access layer refuses, and its refusal.
    Refused(PathBuf, String),
}

/// One folder's entries, in byte order of their names: those its walk's rule keeps (a kept
/// listing), or all of them (a listing a walk filters as it goes).
#[derive(Debug)]
pub(crate) struct Listing {
    /// The entries' names, one after another.
    names: Box<[u8]>,
    /// Where each entry's name ends in `names`.
    ends: Box<[u32]>,
    /// What each entry is.
    kinds: Box<[WalkKind]>,
    /// A kept listing's stamp.
    stamped: Option<Stamped>,
    /// The ignore files that would shape this listing but were not read (in this folder or
    /// above it; a confined workspace's links leading out of the roots).
    not_read: Box<[NotRead]>,
}

impl Listing {
    /// The listing of `entries` (in byte order of their names); `None` when their names are
    /// too long to index.
    pub(crate) fn new(entries: impl IntoIterator<Item = (OsString, WalkKind)>) -> Option<Listing> {
        let (mut names, mut ends, mut kinds) = (Vec::new(), Vec::new(), Vec::new());
        for (name, kind) in entries {
            names.extend_from_slice(name.as_bytes());
            ends.push(u32::try_from(names.len()).ok()?);
            kinds.push(kind);
        }
        Some(Listing {
            names: names.into_boxed_slice(),
            ends: ends.into_boxed_slice(),
            kinds: kinds.into_boxed_slice(),
            stamped: None,
            not_read: Box::default(),
        })
    }

    /// This listing, kept with its folder's stamp and the ignore files it was made without.
    pub(crate) fn kept(mut self, stamped: Stamped, not_read: Vec<NotRead>) -> Listing {
        self.stamped = Some(stamped);
        self.not_read = not_read.into_boxed_slice();
        self
    }

    /// Entry `i`: its name, and what it is.
    fn entry(&self, i: usize) -> Option<(&OsStr, WalkKind)> {
        let end = *self.ends.get(i)? as usize;
        let start = match i {
            0 => 0,
            _ => self.ends[i - 1] as usize,
        };
        let name = OsStr::from_bytes(self.names.get(start..end)?);
        Some((name, *self.kinds.get(i)?))
    }

    /// How many entries it holds.
    pub(crate) fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether it holds an entry named `name`.
    pub(crate) fn holds(&self, name: &OsStr) -> bool {
        let name = name.as_bytes();
        let (mut lo, mut hi) = (0, self.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match self.entry(mid) {
                Some((at, _)) => match at.as_bytes().cmp(name) {
                    std::cmp::Ordering::Less => lo = mid + 1,
                    std::cmp::Ordering::Greater => hi = mid,
                    std::cmp::Ordering::Equal => return true,
                },
                None => return false,
            }
        }
        false
    }

    /// A kept listing's stamp.
    pub(crate) fn stamped(&self) -> Option<Stamped> {
        self.stamped
    }

    /// The ignore files this listing was made without.
    pub(crate) fn not_read(&self) -> &[NotRead] {
        &self.not_read
    }
}

/// A folder a walk entered: its path (as the walk spells it) and its listing.
#[derive(Debug)]
struct Folder {
    path: PathBuf,
    listing: Arc<Listing>,
}

/// A file found by a walk: an entry of its folder's listing, with the folder's handle while
/// the walk held one.
#[derive(Debug)]
pub struct WalkedFile {
    folder: Arc<Folder>,
    index: usize,
    dir: Option<Arc<HeldDir>>,
    /// A library's link, followed: where it leads.
    target: Option<Resolved>,
}

impl WalkedFile {
    /// The file's name (a followed link's own name).
    pub fn name(&self) -> &OsStr {
        self.folder
            .listing
            .entry(self.index)
            .map_or(OsStr::new(""), |(name, _)| name)
    }

    /// The file's path, spelled under the walk's root.
    pub fn path(&self) -> PathBuf {
        self.folder.path.join(self.name())
    }

    /// Its folder's path.
    pub fn folder_path(&self) -> &Path {
        &self.folder.path
    }

    /// Its folder, open, unless too many folders were open when it was walked.
    pub fn dir(&self) -> Option<&OpenDir> {
        self.dir.as_deref().map(|held| &**held)
    }

    /// Whether it is a library's link, followed to the file it leads to (opened there, see
    /// [`Access::open_walked_file`]).
    pub fn via_link(&self) -> bool {
        self.target.is_some()
    }
}

/// Where a walk takes each folder's entries from.
enum Source<'a> {
    /// Kept listings, already filtered by gg's ignore rule.
    Kept(Kept<'a>),
    /// Fresh listings, filtered by the ignore rule entry by entry.
    Ignore(Box<EntryRule>),
    /// Fresh listings, the jail's noise left out when set.
    Noise(bool),
    /// Fresh listings of a library.
    Library,
}

/// A folder being walked.
struct Frame {
    folder: Arc<Folder>,
    /// Its handle, while held.
    dir: Option<Arc<HeldDir>>,
    /// The folder relative to the working directory (kept listings only).
    rel: PathBuf,
    /// How many levels below the root.
    depth: usize,
    /// The index in its listing of the next entry to walk.
    next: usize,
}

/// A walk (see the module documentation), as an iterator of [`Step`]s.
pub struct Walk<'a> {
    access: &'a Access,
    links: LinkRule,
    max_depth: Option<usize>,
    select: Option<&'a dyn Fn(&Path) -> bool>,
    deferred: Option<&'a std::sync::Mutex<Vec<PathBuf>>>,
    entries: bool,
    /// A step to yield before any other: what was passed over entering a folder just yielded.
    queued: Option<Step>,
    source: Source<'a>,
    stack: Vec<Frame>,
    handles: HandleBudget,
}

impl Access {
    /// A walk of the directory `root` (spelled as a resolved path is) under `options`; the
    /// ignore files a confined walk does not read are told to `skips`. Fails when the root
    /// cannot be opened or listed.
    pub fn walk<'a>(
        &'a self,
        root: &Path,
        options: WalkOptions<'a>,
        skips: &Arc<Skips>,
    ) -> io::Result<Walk<'a>> {
        let WalkOptions {
            rule,
            links,
            max_depth,
            select,
            deferred,
            entries,
        } = options;
        let kept = match &rule {
            WalkRule::Ignore(files) if *files == IgnoreFiles::standard() => {
                self.kept_listings(root, skips)
            }
            _ => None,
        };
        let dir = self.open_walked_dir(root)?;
        let (source, rel, listing) = match (kept, rule) {
            (Some((mut kept, rel)), _) => {
                let listing = kept.listing(&rel, &dir)?;
                (Source::Kept(kept), rel, listing)
            }
            (None, rule) => {
                let source = match rule {
                    WalkRule::Ignore(files) => {
                        Source::Ignore(Box::new(self.entry_rule(root, &files, skips)))
                    }
                    WalkRule::Noise { exclude_noise } => Source::Noise(exclude_noise),
                    WalkRule::Library => Source::Library,
                };
                (source, PathBuf::new(), fresh(&dir)?)
            }
        };
        let handles = HandleBudget::new(MAX_HELD);
        let mut walk = Walk {
            access: self,
            links,
            max_depth,
            select,
            deferred,
            entries,
            queued: None,
            source,
            stack: Vec::new(),
            handles,
        };
        if let Some(listing) = listing {
            let dir = walk.handles.hold(dir).ok().map(Arc::new);
            walk.stack.push(Frame {
                folder: Arc::new(Folder {
                    path: root.to_path_buf(),
                    listing,
                }),
                dir,
                rel,
                depth: 0,
                next: 0,
            });
        }
        Ok(walk)
    }

    /// The walk of one file, `path` (a path resolved as every path is): the file, or, when it
    /// is non-accessible, that it was passed over.
    pub fn walk_one(&self, path: &Path) -> Step {
        if self.is_secret_path(path) {
            return Step::Passed(Passed::NonAccessible(path.to_path_buf()));
        }
        let name = path.file_name().unwrap_or_default().to_os_string();
        let listing = Listing::new([(name, WalkKind::File)]).unwrap_or(Listing {
            names: Box::default(),
            ends: Box::default(),
            kinds: Box::default(),
            stamped: None,
            not_read: Box::default(),
        });
        let folder = Folder {
            path: path.parent().map_or_else(PathBuf::new, Path::to_path_buf),
            listing: Arc::new(listing),
        };
        Step::File(WalkedFile {
            folder: Arc::new(folder),
            index: 0,
            dir: None,
            target: None,
        })
    }

    /// Opens a file a walk found, and gives its length when that had to be asked anyway (see
    /// [`Access::open_walked_at`]); a library's followed link opens where it leads.
    pub fn open_walked_file(&self, file: &WalkedFile) -> io::Result<(File, Option<u64>)> {
        if let Some(target) = &file.target {
            let (opened, meta) = self.open_regular(target)?;
            return Ok((opened, Some(meta.len)));
        }
        match file.dir() {
            Some(dir) => self.open_walked_at(dir, file.name()),
            None => {
                let dir = self.open_walked_dir(file.folder_path())?;
                self.open_walked_at(&dir, file.name())
            }
        }
    }

    /// The metadata of a file a walk found (a followed link's target's).
    pub fn walked_meta(&self, file: &WalkedFile) -> io::Result<Meta> {
        if let Some(target) = &file.target {
            return self.metadata(target);
        }
        match file.dir() {
            Some(dir) => dir.entry_meta(file.name()),
            None => self
                .open_walked_dir(file.folder_path())?
                .entry_meta(file.name()),
        }
    }
}

/// A folder's listing, every entry kept (its walk filters them as it goes).
fn fresh(dir: &OpenDir) -> io::Result<Option<Arc<Listing>>> {
    Ok(Listing::new(dir.sorted_kinds()?).map(Arc::new))
}

impl Walk<'_> {
    /// How many folders this walk has listed anew; a walk on kept listings lists only those
    /// that changed, any other lists every folder.
    pub fn listed_anew(&self) -> Option<usize> {
        match &self.source {
            Source::Kept(kept) => Some(kept.listed_anew()),
            _ => None,
        }
    }

    /// Whether the walk takes its folders from kept listings.
    pub fn on_kept_listings(&self) -> bool {
        matches!(self.source, Source::Kept(_))
    }

    /// Whether the kept listings show that gg's rule does not exclude the walk's root folder
    /// (each folder's listing above it holds the next name on the way down); `false` when they
    /// cannot tell, or the walk is on fresh listings. Call it before the walk's first step.
    pub fn kept_listings_show_root(&mut self) -> bool {
        let Some(rel) = self.stack.first().map(|frame| frame.rel.clone()) else {
            return false;
        };
        match &mut self.source {
            Source::Kept(kept) => kept.shows(&rel),
            _ => false,
        }
    }

    /// What the walk does with the entry `name` of the top folder (its path `path`) before
    /// looking at what it is: `Err` to leave it out, with what was passed over, if anything.
    fn admit(&mut self, path: &Path, kind: WalkKind) -> Result<(), Option<Passed>> {
        let access = self.access;
        let is_dir = kind == WalkKind::Dir;
        match &mut self.source {
            Source::Kept(_) => Ok(()),
            Source::Ignore(rule) => {
                if (kind == WalkKind::Other && !self.entries) || rule.excludes(path, is_dir) {
                    return Err(None);
                }
                Ok(())
            }
            Source::Noise(exclude) => {
                if kind == WalkKind::Other || kind == WalkKind::Link {
                    return Ok(());
                }
                // Secrets first: a non-accessible folder is counted even when it is noise.
                if access.is_secret_path(path) {
                    return Err(Some(Passed::NonAccessible(path.to_path_buf())));
                }
                if (*exclude && access.is_excluded_path(path, is_dir))
                    || (is_dir && access.is_artifact_dir(path))
                {
                    return Err(None);
                }
                Ok(())
            }
            Source::Library => {
                if path
                    .file_name()
                    .is_some_and(|n| n.as_bytes().starts_with(b"."))
                {
                    return Err(None);
                }
                if kind == WalkKind::Link && access.is_link_loop(path) {
                    return Err(Some(Passed::LinkLoop(path.to_path_buf())));
                }
                // Named to the access layer as a model would name it: a non-accessible entry,
                // or a link leading out of the roots, is refused with the reason it gives.
                if let Err(e) = access.resolve(&path.to_string_lossy()) {
                    return Err(Some(Passed::Refused(path.to_path_buf(), e.message)));
                }
                if kind == WalkKind::Other {
                    return Err(None);
                }
                Ok(())
            }
        }
    }

    /// Whether the folder at `path`, `depth` levels below the root, is deep enough to be left
    /// out, or is an artifact folder of a library.
    fn too_deep(&self, path: &Path, depth: usize) -> bool {
        self.max_depth.is_some_and(|max| depth > max)
            || (matches!(self.source, Source::Library) && self.access.is_artifact_dir(path))
    }

    /// Enters the folder `name` of the top frame (its path `path`), opened from the top
    /// folder's handle (or, a library's link, where `target` leads); what was passed over
    /// when it cannot be opened or listed.
    fn enter(&mut self, name: &OsStr, path: PathBuf, target: Option<&Resolved>) -> Option<Passed> {
        let top = self.stack.last()?;
        let depth = top.depth + 1;
        if self.too_deep(&path, depth) {
            return None;
        }
        let rel = top.rel.join(name);
        let opened = match (target, &top.dir) {
            (Some(target), _) => self.access.open_dir(target),
            // One component, no link followed: the folder found by the listing or none.
            (None, Some(parent)) => parent.subdir(name),
            (None, None) => self.access.open_walked_dir(&path),
        };
        // A followed link's folder is spelled as its target is, failures included.
        let dir = match opened {
            Ok(dir) => dir,
            Err(e) => return Some(Passed::Folder(target.map_or(path, |t| t.path.clone()), e)),
        };
        let listed = match &mut self.source {
            Source::Kept(kept) => kept.listing(&rel, &dir),
            _ => fresh(&dir),
        };
        let listing = match listed {
            Ok(Some(listing)) => listing,
            Ok(None) => return None,
            Err(e) => return Some(Passed::Folder(target.map_or(path, |t| t.path.clone()), e)),
        };
        // Past the budget the shallowest folder lets go of its handle (once no file of it is
        // in flight, the budget has room): a deep chain of folders keeps opening each from its
        // parent rather than by ever longer paths.
        let dir = match self.handles.hold(dir) {
            Ok(held) => Some(held),
            Err(dir) => {
                if let Some(frame) = self.stack.iter_mut().find(|f| f.dir.is_some()) {
                    frame.dir = None;
                }
                self.handles.hold(dir).ok()
            }
        };
        let path = match target {
            // A followed link's folder is spelled as its target is.
            Some(target) => target.path.clone(),
            None => path,
        };
        if let Source::Ignore(rule) = &self.source {
            rule.listed(
                &path,
                (0..listing.len()).filter_map(|i| listing.entry(i).map(|e| e.0)),
            );
        }
        self.stack.push(Frame {
            folder: Arc::new(Folder { path, listing }),
            dir: dir.map(Arc::new),
            rel,
            depth,
            next: 0,
        });
        None
    }

    /// The step of the entry `name` of the top frame (its path `path`, `depth` levels below
    /// the root) in a walk of entries: a folder is entered as it is yielded, and what was
    /// passed over entering it comes next.
    fn entry(&mut self, name: &OsStr, path: PathBuf, depth: usize, kind: WalkKind) -> Step {
        // The noise rule has asked of files and folders already, a library's of all.
        let asked = match self.source {
            Source::Noise(_) => matches!(kind, WalkKind::File | WalkKind::Dir),
            Source::Library => true,
            _ => false,
        };
        if !asked && self.access.has_secrets() && self.access.is_secret_path(&path) {
            return Step::Passed(Passed::NonAccessible(path));
        }
        if kind == WalkKind::Dir {
            self.queued = self.enter(name, path.clone(), None).map(Step::Passed);
        }
        Step::Entry(Entry { path, depth, kind })
    }

    /// A library's link at `path` (the top frame's entry `index`), followed.
    fn follow(&mut self, index: usize, name: &OsStr, path: PathBuf) -> Option<Step> {
        let target = self.access.resolve(&path.to_string_lossy()).ok()?;
        let meta = self.access.metadata(&target).ok()?;
        if meta.is_dir {
            return self.enter(name, path, Some(&target)).map(Step::Passed);
        }
        if !meta.is_file {
            return None;
        }
        let top = self.stack.last()?;
        Some(Step::File(WalkedFile {
            folder: Arc::clone(&top.folder),
            index,
            dir: None,
            target: Some(target),
        }))
    }
}

impl Iterator for Walk<'_> {
    type Item = Step;

    fn next(&mut self) -> Option<Step> {
        if let Some(step) = self.queued.take() {
            return Some(step);
        }
        loop {
            let frame = self.stack.last_mut()?;
            let index = frame.next;
            // The folder is shared with the files handed on; its names are borrowed from it.
            let folder = Arc::clone(&frame.folder);
            let Some((name, kind)) = folder.listing.entry(index) else {
                self.stack.pop();
                continue;
            };
            frame.next += 1;
            let depth = frame.depth + 1;
            // A file of a kept listing needs no path unless something asks about it.
            let bare = !self.entries
                && matches!(self.source, Source::Kept(_))
                && kind == WalkKind::File
                && self.select.is_none()
                && !self.access.has_secrets();
            if bare {
                let dir = frame.dir.clone();
                return Some(Step::File(WalkedFile {
                    folder,
                    index,
                    dir,
                    target: None,
                }));
            }
            let path = folder.path.join(name);
            if let Err(passed) = self.admit(&path, kind) {
                match passed {
                    Some(passed) => return Some(Step::Passed(passed)),
                    None => continue,
                }
            }
            if self.entries {
                return Some(self.entry(name, path, depth, kind));
            }
            match kind {
                WalkKind::Link => match self.links {
                    LinkRule::PassOver => {
                        if self.access.is_link_loop(&path) {
                            return Some(Step::Passed(Passed::LinkLoop(path)));
                        }
                    }
                    LinkRule::Yield => {
                        if self.select.is_none_or(|select| select(&path)) {
                            return Some(Step::Link(path));
                        }
                    }
                    LinkRule::Follow => {
                        if let Some(step) = self.follow(index, name, path) {
                            return Some(step);
                        }
                    }
                },
                WalkKind::Dir => {
                    if self.stack.len() == 1
                        && let Some(deferred) = self.deferred
                        && let Ok(mut folders) = deferred.lock()
                    {
                        folders.push(path);
                        continue;
                    }
                    if let Some(passed) = self.enter(name, path, None) {
                        return Some(Step::Passed(passed));
                    }
                }
                WalkKind::File => {
                    if self.select.is_some_and(|select| !select(&path)) {
                        continue;
                    }
                    // The noise and library rules have asked already.
                    let asked = matches!(self.source, Source::Noise(_) | Source::Library);
                    if !asked && self.access.has_secrets() && self.access.is_secret_path(&path) {
                        return Some(Step::Passed(Passed::NonAccessible(path)));
                    }
                    let dir = self.stack.last().and_then(|f| f.dir.clone());
                    return Some(Step::File(WalkedFile {
                        folder,
                        index,
                        dir,
                        target: None,
                    }));
                }
                WalkKind::Other => {}
            }
        }
    }
}

impl Skips {
    /// Counts what a walk passed over (see [`Skips`]); a library's refusals are not counted
    /// here (its search says them in its own words).
    pub fn count(&self, passed: &Passed) {
        match passed {
            Passed::Folder(_, e) => self.folder_failed(e),
            Passed::LinkLoop(_) => self.symlink_loop(),
            Passed::NonAccessible(_) => self.non_accessible(),
            Passed::Refused(..) => {}
        }
    }
}

/// The walk of [`Access::listed_walk`]: the regular files under a folder in path order, on kept
/// listings, what it passes over counted in its skips.
pub struct ListedWalk<'a> {
    walk: Walk<'a>,
    skips: Arc<Skips>,
}

impl ListedWalk<'_> {
    /// How many folders this walk has listed anew (the others' listings were kept).
    pub fn listed_anew(&self) -> usize {
        self.walk.listed_anew().unwrap_or(0)
    }
}

impl Iterator for ListedWalk<'_> {
    type Item = WalkedFile;

    fn next(&mut self) -> Option<WalkedFile> {
        loop {
            match self.walk.next()? {
                Step::File(file) => return Some(file),
                Step::Link(_) | Step::Entry(_) => {}
                Step::Passed(passed) => self.skips.count(&passed),
            }
        }
    }
}

impl Access {
    /// The regular files under the directory `root` (spelled as a resolved path is), in path
    /// order, under the ignore rule of [`Access::sorted_walk`], with non-accessible paths and
    /// artifact folders left out, on listings kept for the next call (see `listings.rs`).
    /// `None` when `root` is not a directory under the working directory that lies in the same
    /// repository (or none) as it, or lies inside an artifact folder, or cannot be opened.
    pub fn listed_walk(&self, root: &Path) -> Option<ListedWalk<'_>> {
        self.counted_listed_walk(root, &Arc::default())
    }

    /// [`Access::listed_walk`], with what it passes over counted in `skips`: folders it cannot
    /// open or list, symbolic links that loop, non-accessible files, and ignore files not
    /// read.
    pub fn counted_listed_walk(&self, root: &Path, skips: &Arc<Skips>) -> Option<ListedWalk<'_>> {
        let walk = self
            .walk(
                root,
                WalkOptions::new(WalkRule::Ignore(IgnoreFiles::standard())),
                skips,
            )
            .ok()?;
        walk.on_kept_listings().then(|| ListedWalk {
            walk,
            skips: Arc::clone(skips),
        })
    }
}
