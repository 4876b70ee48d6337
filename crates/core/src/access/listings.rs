//! Folder listings kept from one search to the next.
//!
//! A search of a large tree spends much of its time listing folders and applying the ignore
//! rule to each entry, and an agent searches the same tree again and again while few folders
//! change in between. So a folder's listing, after the ignore rule, is kept with the folder's
//! stamp (identity, size, change times) and the stamps of the ignore files that shaped it. The
//! next walk opens each folder from its parent's handle as before, asks the open folder for its
//! stamp (one `fstat`) and its ignore files for theirs, and lists the folder again only when
//! one of them differs.
//!
//! What makes a kept listing safe to reuse:
//! - An entry added, removed or renamed in a folder gives the folder a new change time, and a
//!   folder replaced by another is another inode. Each stamp is taken before the listing it
//!   vouches for, so a change during the listing shows as a newer stamp the next time.
//! - The absence of an ignore file is part of its folder's listing; the content of one that
//!   exists is vouched for by its own stamp. `.git/info/exclude`, which lives in another
//!   folder, is stamped whenever `.git` is present, absent or not.
//! - A change within the same tick of the filesystem's clock as the stamp could leave the
//!   stamp unchanged (git's "racy" case). A listing whose folder changed less than
//!   [`RACY_WINDOW`] before it was stamped is used once and listed again by the next walk, and
//!   a walk that loaded an ignore file that recent keeps nothing at all.
//! - A changed ignore file, or a change to the ignore files above the working directory or to
//!   whether it is a repository, drops every kept listing and the compiled rules with them.
//!   A `.git` that is a file (a worktree or submodule pointing elsewhere) keeps nothing.
//!
//! - An ignore file that is a symbolic link is vouched for by no stamp of its own folder (its
//!   target may change elsewhere), so a walk that meets one keeps nothing.
//!
//! Stamps are compared, never shown, and every file and folder that is read is still opened
//! through the workspace's confinement, as in any walk; in a confined workspace the ignore
//! files are read through the jail (see `ignore.rs`), and a kept listing remembers which of
//! them were not read, so every walk that uses it says so. The listings of at most
//! [`MAX_ENTRIES`] entries are kept; a walk that would keep more keeps nothing.
//!
//! The walk itself is the one walker of `walk.rs`: these listings are where it takes a folder's
//! entries from when it walks under gg's ignore rule (see [`super::walk`]). A listing keeps its
//! links (which no walk follows), so the walk can tell which of them loop.

use std::collections::HashMap;
use std::ffi::OsStr;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::Access;
use super::fs::{self, Stamp};
use super::ignore::{ArtifactRule, Matcher};
use super::walk::Listing;
use super::walkdir::{OpenDir, Skips, WalkKind};

/// How recent a change must be for its stamp not to be trusted by a later walk.
const RACY_WINDOW: Duration = Duration::from_secs(2);
/// The most entries kept between walks (each costs its name and five bytes, each folder a few
/// hundred bytes more; a server that searched the whole kernel, 83,000 entries, holds about
/// 7 MB more than one that did not).
const MAX_ENTRIES: usize = 250_000;
/// The most folders whose compiled rules one matcher holds.
const MATCHER_FOLDERS: usize = 2048;
/// The ignore files read in every folder, by the walk's rule (see `ignore.rs`).
const RULE_FILES: [&str; 2] = [".gitignore", ".ignore"];
/// git's own folder, never entered, and its exclude file.
const GIT_DIR: &str = ".git";
const GIT_EXCLUDE: &str = ".git/info/exclude";

/// The listings kept for one workspace, and the compiled rules they were filtered by.
#[derive(Debug, Default)]
pub(crate) struct Listings {
    /// The ignore files above the working directory, and whether it is in a repository.
    context: Option<(Vec<Rules>, bool)>,
    /// The ignore rule, anchored at the working directory, compiled folder by folder as a
    /// walk needs it (not kept between walks).
    matcher: Option<Matcher>,
    /// Listings by folder, relative to the working directory (`""` is the folder itself).
    listed: HashMap<PathBuf, Arc<Listing>>,
    /// The ignore files of every folder whose rules `matcher` may have loaded.
    rules: HashMap<PathBuf, Rules>,
    /// Entries in `listed`.
    entries: usize,
}

/// A kept listing's stamps: of its folder, and whether that stamp can be trusted later.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Stamped {
    stamp: Stamp,
    /// The stamp was old enough when taken that a later change gives a different one.
    trusted: bool,
}

/// The stamps of the ignore files present in one folder.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Rules {
    /// Each present ignore file's name and stamp.
    files: Vec<(&'static str, Stamp)>,
    /// With `.git` present: the stamp of `.git/info/exclude` (`None`: absent).
    exclude: Option<Option<Stamp>>,
    /// `.git` is a file (a worktree or submodule): its rules live elsewhere, unstamped.
    git_file: bool,
    /// An ignore file is a symbolic link: its rules live elsewhere, unstamped.
    linked: bool,
}

/// The listings one walk takes its folders from: taken out of the workspace when the walk
/// starts, and put back for the next walk when it ends (unless something made them unsafe to
/// keep).
pub(crate) struct Kept<'a> {
    access: &'a Access,
    listings: Box<Listings>,
    /// Whether the listings may be kept for the next walk.
    keep: bool,
    /// When this walk started, for the racy test.
    now: Duration,
    /// Folders this walk listed anew.
    listed_anew: usize,
    /// Folders filtered by the current matcher.
    matched: usize,
    /// The artifact folders, which no listing keeps.
    artifacts: ArtifactRule,
    /// Where the ignore files a listing was made without are told.
    skips: Arc<Skips>,
}

impl Access {
    /// The kept listings for a walk of the directory `root` under gg's ignore rule, and `root`
    /// relative to the working directory; `None` when `root` is not a directory under the
    /// working directory that lies in the same repository (or none) as it, or lies inside an
    /// artifact folder: such a walk lists its folders anew.
    pub(crate) fn kept_listings(
        &self,
        root: &Path,
        skips: &Arc<Skips>,
    ) -> Option<(Kept<'_>, PathBuf)> {
        let rel = super::ignore::normalize(self.relative_to_root(root)?)?;
        if self.in_artifact_dir(root) {
            return None;
        }
        let in_repo = super::ignore::in_repository(self.root());
        if super::ignore::in_repository(root) != in_repo {
            return None;
        }
        let mut listings = self
            .listings
            .lock()
            .ok()
            .and_then(|mut kept| kept.take())
            .unwrap_or_default();
        let now = since_epoch(SystemTime::now());
        let mut keep = true;
        let context = (self.context_rules(now, &mut keep), in_repo);
        if listings.context.as_ref() != Some(&context) {
            *listings = Listings::default();
            listings.context = Some(context);
        }
        let mut kept = Kept {
            access: self,
            listings,
            keep,
            now,
            listed_anew: 0,
            matched: 0,
            artifacts: self.artifact_rule(),
            skips: Arc::clone(skips),
        };
        // The rules of the folders between the working directory and `root` apply below it.
        let mut ancestors: Vec<&Path> = rel.ancestors().skip(1).collect();
        ancestors.reverse();
        for folder in ancestors {
            let rules = kept.rules_now(folder);
            if kept.listings.rules.get(folder).is_some_and(|r| *r != rules) {
                kept.forget();
            }
            kept.listings.rules.insert(folder.to_path_buf(), rules);
        }
        Some((kept, rel))
    }

    /// The ignore files of each folder above the working directory.
    fn context_rules(&self, now: Duration, keep: &mut bool) -> Vec<Rules> {
        self.root()
            .ancestors()
            .skip(1)
            .map(|folder| {
                let rules = rules_at(|name| fs::meta_ambient(&folder.join(name)));
                note_racy(&rules, now, keep);
                rules
            })
            .collect()
    }
}

impl Kept<'_> {
    /// How many folders this walk has listed anew (the others' listings were kept).
    pub(crate) fn listed_anew(&self) -> usize {
        self.listed_anew
    }

    /// The listing of the folder `rel`, open as `dir`: the kept one when its stamps are
    /// unchanged, else a new one (`Ok(None)`: not a folder, or no rule to list it by). The
    /// ignore files it was made without are told to the walk's skips.
    pub(crate) fn listing(
        &mut self,
        rel: &Path,
        dir: &OpenDir,
    ) -> io::Result<Option<Arc<Listing>>> {
        let listing = self.listing_of(rel, dir)?;
        if let Some(listing) = &listing {
            for file in listing.not_read() {
                self.skips.ignore_file_not_read(&file.path, &file.why);
            }
        }
        Ok(listing)
    }

    fn listing_of(&mut self, rel: &Path, dir: &OpenDir) -> io::Result<Option<Arc<Listing>>> {
        let meta = dir.meta()?;
        if !meta.is_dir {
            return Ok(None);
        }
        if let Some(kept) = self.listings.listed.get(rel).cloned()
            && kept
                .stamped()
                .is_some_and(|s| s.trusted && s.stamp == meta.stamp)
        {
            match self.listings.rules.get(rel) {
                Some(rules) if rules_unchanged(rules, dir) => return Ok(Some(kept)),
                _ => self.forget(),
            }
        }
        self.list(rel, dir, meta.stamp)
    }

    /// Lists the folder `rel` anew and applies the ignore rule to its entries.
    fn list(
        &mut self,
        rel: &Path,
        dir: &OpenDir,
        stamp: Stamp,
    ) -> io::Result<Option<Arc<Listing>>> {
        self.listed_anew += 1;
        let entries = dir.sorted_kinds()?;
        let has = |name: &str| {
            entries
                .binary_search_by(|(n, _)| n.as_encoded_bytes().cmp(name.as_bytes()))
                .ok()
                .map(|i| entries[i].1)
        };
        let mut rules = Rules::default();
        for name in RULE_FILES {
            let kind = has(name);
            rules.linked |= kind == Some(WalkKind::Link);
            if kind.is_some()
                && let Ok(m) = dir.entry_meta(OsStr::new(name))
            {
                rules.files.push((name, m.stamp));
            }
        }
        match has(GIT_DIR) {
            Some(WalkKind::Dir) => {
                rules.exclude = Some(
                    dir.entry_meta(OsStr::new(GIT_EXCLUDE))
                        .ok()
                        .map(|m| m.stamp),
                );
            }
            Some(_) => rules.git_file = true,
            None => {}
        }
        note_racy(&rules, self.now, &mut self.keep);
        // A walk that keeps nothing needs no record of what its listings were made from.
        if self.keep {
            if self.listings.rules.get(rel).is_some_and(|r| *r != rules) {
                self.forget();
            }
            // After a reset, the rules of the folders above are recorded again, so that every
            // kept listing has the stamps of all the rules it was filtered by. A folder is
            // recorded only with all those above it, so the first one found ends the climb (a
            // deep chain of folders costs its depth, not its depth squared).
            for folder in rel.ancestors().skip(1) {
                if self.listings.rules.contains_key(folder) {
                    break;
                }
                let rules = self.rules_now(folder);
                self.listings.rules.insert(folder.to_path_buf(), rules);
            }
            self.listings.rules.insert(rel.to_path_buf(), rules);
        }
        // The matcher keeps the compiled rules of every folder it has seen; a new one reloads
        // just those of the folders above the next one, so memory stays flat on any tree.
        self.matched += 1;
        if self.matched > MATCHER_FOLDERS {
            self.matched = 1;
            self.listings.matcher = None;
        }
        let Some(in_repo) = self.listings.context.as_ref().map(|c| c.1) else {
            return Ok(None);
        };
        let matcher = match &mut self.listings.matcher {
            Some(m) => m,
            slot => match self.access.matcher(in_repo) {
                Some(m) => slot.insert(m),
                None => return Ok(None),
            },
        };
        let top = self.access.root();
        // A confined rule reads only the ignore files this listing holds, rather than asking
        // the jail for each name in every folder.
        if let Matcher::Jailed(rules) = matcher {
            rules.listed(
                &top.join(rel),
                entries.iter().map(|(name, _)| name.as_os_str()),
            );
        }
        let artifacts = &self.artifacts;
        let listing = Listing::new(entries.into_iter().filter(|(name, kind)| {
            // Other kinds are kept for the trees that show them; searches pass over them.
            if name == GIT_DIR {
                return false;
            }
            let is_dir = *kind == WalkKind::Dir;
            if is_dir && artifacts.is_artifact_child(rel, name) {
                return false;
            }
            !matcher.entry_ignored(top, &rel.join(name), is_dir)
        }));
        let not_read = matcher.not_read_along(&top.join(rel));
        let Some(listing) = listing else {
            return Ok(None);
        };
        let stamped = Stamped {
            stamp,
            trusted: !is_racy(&stamp, self.now),
        };
        let listing = Arc::new(listing.kept(stamped, not_read));
        if self.keep
            && let Some(old) = self.listings.listed.remove(rel)
        {
            self.listings.entries -= old.len();
        }
        self.listings.entries += listing.len();
        if self.keep && self.listings.entries > MAX_ENTRIES {
            // Too many to keep: drop what is kept now rather than at the walk's end.
            self.keep = false;
            let context = self.listings.context.take();
            let matcher = self.listings.matcher.take();
            *self.listings = Listings::default();
            self.listings.context = context;
            self.listings.matcher = matcher;
        }
        if self.keep {
            self.listings
                .listed
                .insert(rel.to_path_buf(), listing.clone());
        }
        Ok(Some(listing))
    }

    /// Whether gg's rule leaves in the folder `rel` (relative to the working directory): the
    /// listing of each folder above it, from the working directory down, holds the next name on
    /// the way (each listing the kept one while its stamps are unchanged, else listed anew and
    /// kept, as a walk lists it). A listing filters its entries by the whole rule, that of the
    /// folders above included, so this is the rule's own answer; `false` when a listing cannot
    /// tell (a name it leaves out for another reason, a folder that cannot be listed).
    pub(crate) fn shows(&mut self, rel: &Path) -> bool {
        let mut folder = PathBuf::new();
        for part in rel.components() {
            let std::path::Component::Normal(name) = part else {
                return false;
            };
            let Ok(dir) = self
                .access
                .open_walked_dir(&self.access.root().join(&folder))
            else {
                return false;
            };
            match self.listing_of(&folder, &dir) {
                Ok(Some(listing)) if listing.holds(name) => folder.push(name),
                _ => return false,
            }
        }
        true
    }

    /// The ignore files of the folder `rel` as they are now (every name stat'ed, as
    /// [`Kept::list`] stats them). A folder that cannot be opened keeps nothing.
    fn rules_now(&mut self, rel: &Path) -> Rules {
        let Ok(dir) = self.access.open_walked_dir(&self.access.root().join(rel)) else {
            self.keep = false;
            return Rules::default();
        };
        let rules = rules_at(|name| dir.entry_meta(OsStr::new(name)).ok());
        note_racy(&rules, self.now, &mut self.keep);
        rules
    }

    /// Drops every kept listing and the compiled rules: an ignore file changed.
    fn forget(&mut self) {
        let context = self.listings.context.take();
        *self.listings = Listings::default();
        self.listings.context = context;
    }
}

impl Drop for Kept<'_> {
    fn drop(&mut self) {
        if !self.keep {
            return;
        }
        let mut listings = std::mem::take(&mut self.listings);
        // The compiled rules are not kept: they cost more memory than the listings, and a
        // later walk needs them only for the folders that changed.
        listings.matcher = None;
        if let Ok(mut kept) = self.access.listings.lock()
            && kept.is_none()
        {
            *kept = Some(listings);
        }
    }
}

/// Whether the ignore files of a folder whose listing is unchanged are unchanged.
fn rules_unchanged(rules: &Rules, dir: &OpenDir) -> bool {
    let stamp = |name: &str| dir.entry_meta(OsStr::new(name)).ok().map(|m| m.stamp);
    rules.files.iter().all(|(name, s)| stamp(name) == Some(*s))
        && rules.exclude.is_none_or(|s| stamp(GIT_EXCLUDE) == s)
}

/// The ignore files of a folder, each name in it stat'ed with `stat`.
fn rules_at(stat: impl Fn(&str) -> Option<fs::Meta>) -> Rules {
    let mut rules = Rules::default();
    for name in RULE_FILES {
        if let Some(m) = stat(name) {
            rules.files.push((name, m.stamp));
        }
    }
    match stat(GIT_DIR) {
        Some(m) if m.is_dir => rules.exclude = Some(stat(GIT_EXCLUDE).map(|m| m.stamp)),
        Some(_) => rules.git_file = true,
        None => {}
    }
    rules
}

/// Notes in `keep` whether `rules` cannot vouch for their files later: a stamp too recent, or
/// rules kept where no stamp here reaches.
fn note_racy(rules: &Rules, now: Duration, keep: &mut bool) {
    if rules.git_file || rules.linked {
        *keep = false;
    }
    let stamps = rules
        .files
        .iter()
        .map(|(_, s)| s)
        .chain(rules.exclude.iter().flatten());
    for stamp in stamps {
        if is_racy(stamp, now) {
            *keep = false;
        }
    }
}

/// Whether `stamp` changed less than [`RACY_WINDOW`] before `now` (or after it).
fn is_racy(stamp: &Stamp, now: Duration) -> bool {
    let at = |(secs, nanos): (i64, i64)| {
        u64::try_from(secs).map_or(Duration::ZERO, |s| {
            Duration::new(s, u32::try_from(nanos).unwrap_or(0))
        })
    };
    let changed = at(stamp.mtime).max(at(stamp.ctime));
    changed + RACY_WINDOW > now
}

fn since_epoch(t: SystemTime) -> Duration {
    t.duration_since(UNIX_EPOCH).unwrap_or(Duration::ZERO)
}
