//! The ignore rule of a confined workspace, its files read through the jail.
//!
//! The `ignore` crate opens each ignore file by its path and follows a link wherever it leads.
//! In a confined workspace a `.gitignore` that is a link to a file outside the roots would then
//! hide the names matching that file's lines: an oracle on any file the server's user may read
//! (make candidate names, see which vanish). So a confined walk builds the crate's walker with
//! its own reading of ignore files off, and the rule is applied here from files read through
//! the jail ([`Reader`]): opened beneath their root's handle, a link followed only while it
//! stays inside the roots (an absolute one too, as the jail resolves it), a file with more than
//! one name not opened (the hard-link rule), a FIFO never waited on. An ignore file that cannot
//! be read so is left out, and the walk says so, once ([`Skips::ignore_file_not_read`]).
//!
//! The rule is the crate's: in each folder from the top of the rule down to an entry's own,
//! the custom ignore files (later names over earlier ones), `.ignore`, `.gitignore` and
//! `.git/info/exclude` (a worktree's in its common git folder); for each kind the deepest
//! folder with a matching line decides, and the kinds rank in that order. Folders above the
//! roots (a repository's, when a root lies inside one) are the operator's, read as any process
//! reads them; what a file inside the roots points to (a worktree's git folder) must lie inside
//! them too.

use std::collections::HashMap;
use std::ffi::OsStr;
use std::io::{self, Read as _};
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use cap_std::fs::{Dir, OpenOptions, OpenOptionsExt as _};
use ignore::gitignore::{Gitignore, GitignoreBuilder};

use crate::access::fs::Meta;
use crate::access::jail::Jail;
use crate::access::walkdir::{NotRead, Skips, patiently};
use crate::error::ErrorKind;

/// The largest ignore file read; a larger one is left out (and said to be).
const MAX_BYTES: u64 = 8 << 20;
/// The most folders whose rules one matcher holds; past it they are read again as needed, so
/// memory stays flat on any tree.
const MAX_FOLDERS: usize = 4096;
/// Why an ignore file that leads outside the roots is not read.
const OUTSIDE: &str = "it leads outside the allowed roots";

/// What reading one file gave.
enum Text {
    /// Its bytes.
    Read(Vec<u8>),
    /// Nothing there (or a dangling link).
    Missing,
    /// A folder.
    Dir,
    /// Something there that is not read, and why.
    NotRead(String),
}

/// Reads files through a jail, on handles of its roots that the reader owns (so a walk's
/// filter, which must own what it uses, can hold it).
#[derive(Debug)]
struct Reader {
    /// Each root's path, and a jail of that root alone over a second handle of it (`None` when
    /// no handle could be had: nothing beneath it is read then).
    roots: Vec<(PathBuf, Option<Jail>)>,
}

impl Reader {
    fn new(jail: &Jail) -> Reader {
        let roots = jail
            .roots()
            .iter()
            .map(|root| {
                let dir = patiently(|| root.dir.try_clone()).ok();
                (
                    root.path.clone(),
                    dir.map(|dir| Jail::over(root.path.clone(), dir)),
                )
            })
            .collect();
        Reader { roots }
    }

    /// The root `path` lies under (the deepest, when roots nest), and the path below it.
    fn locate<'p>(&self, path: &'p Path) -> Option<(Option<&Jail>, &'p Path)> {
        self.roots
            .iter()
            .filter_map(|(root, jail)| Some((root, jail, path.strip_prefix(root).ok()?)))
            .max_by_key(|(root, _, _)| root.as_os_str().len())
            .map(|(_, jail, rel)| (jail.as_ref(), rel))
    }

    /// Whether `dir` lies above (or beside) every root: a folder of the operator's context.
    fn is_outside(&self, dir: &Path) -> bool {
        self.locate(dir).is_none()
    }

    /// Reads the file at `path`. `context`: `path` belongs to a folder outside the roots and
    /// is read as any process reads it; otherwise it must lie inside the roots.
    fn read(&self, path: &Path, context: bool) -> Text {
        match self.locate(path) {
            Some((Some(jail), rel)) => read_beneath(jail, path, rel),
            Some((None, _)) => Text::NotRead("its root could not be opened again".to_string()),
            None if context => read_ambient(path),
            None => Text::NotRead(OUTSIDE.to_string()),
        }
    }
}

/// Reads `path`, which is `rel` below the one root of `jail`: opened beneath the root's handle
/// (a relative link followed while it stays beneath); a link the kernel will not follow there
/// (an absolute one, or one leading out) is resolved by the jail, which follows it only inside
/// the root.
fn read_beneath(jail: &Jail, path: &Path, rel: &Path) -> Text {
    let Some(root) = jail.roots().first() else {
        return Text::NotRead(OUTSIDE.to_string());
    };
    match open_beneath(&root.dir, rel) {
        Ok(file) => finish(file),
        Err(e) if gone(&e) => Text::Missing,
        Err(_) => match jail.resolve(path, &root.path, &path.to_string_lossy()) {
            Ok(inside) if !inside.exists => Text::Missing,
            Ok(inside) => match open_beneath(&root.dir, &inside.rel) {
                Ok(file) => finish(file),
                Err(e) if gone(&e) => Text::Missing,
                Err(e) => Text::NotRead(format!("it could not be read: {e}")),
            },
            Err(e) if e.kind == ErrorKind::OutsideRoot => Text::NotRead(OUTSIDE.to_string()),
            Err(e) => Text::NotRead(format!("it could not be read: {}", e.message)),
        },
    }
}

/// Whether an open failed because nothing is there.
fn gone(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
    )
}

/// Opens `rel` beneath `dir` for reading, without waiting on a FIFO.
fn open_beneath(dir: &Dir, rel: &Path) -> io::Result<std::fs::File> {
    let mut options = OpenOptions::new();
    options
        .read(true)
        .custom_flags((rustix::fs::OFlags::NONBLOCK | rustix::fs::OFlags::NOCTTY).bits() as i32);
    patiently(|| dir.open_with(rel, &options)).map(cap_std::fs::File::into_std)
}

/// Reads a file of the operator's context, as the `ignore` crate would (following links).
fn read_ambient(path: &Path) -> Text {
    let mut options = std::fs::OpenOptions::new();
    std::os::unix::fs::OpenOptionsExt::custom_flags(
        options.read(true),
        (rustix::fs::OFlags::NONBLOCK | rustix::fs::OFlags::NOCTTY).bits() as i32,
    );
    match options.open(path) {
        Ok(file) => finish(file),
        Err(e) if gone(&e) => Text::Missing,
        Err(e) => Text::NotRead(format!("it could not be read: {e}")),
    }
}

/// Reads an open ignore file: a regular file of one name, at most [`MAX_BYTES`].
fn finish(file: std::fs::File) -> Text {
    let meta = match rustix::fs::fstat(&file) {
        Ok(st) => Meta::from(st),
        Err(e) => return Text::NotRead(format!("it could not be read: {e}")),
    };
    if meta.is_dir {
        return Text::Dir;
    }
    if !meta.is_file {
        return Text::NotRead("it is not a regular file".to_string());
    }
    if meta.nlink > 1 {
        return Text::NotRead(format!(
            "it has {} hard links, and a confined workspace opens no file with more than one \
             name",
            meta.nlink
        ));
    }
    if meta.len > MAX_BYTES {
        return Text::NotRead(format!(
            "it is larger than {} MiB",
            MAX_BYTES / (1024 * 1024)
        ));
    }
    let mut bytes = Vec::new();
    match file.take(MAX_BYTES + 1).read_to_end(&mut bytes) {
        Ok(_) if bytes.len() as u64 > MAX_BYTES => Text::NotRead(format!(
            "it is larger than {} MiB",
            MAX_BYTES / (1024 * 1024)
        )),
        Ok(_) => Text::Read(bytes),
        Err(e) => Text::NotRead(format!("it could not be read: {e}")),
    }
}

/// Adds the lines of an ignore file to `builder`, as the crate reads them: split at `\n`, a
/// `\r` before it dropped, a UTF-8 byte-order mark at the start dropped, a line that is not
/// UTF-8 (or not a valid pattern) left out.
fn add_lines(builder: &mut GitignoreBuilder, bytes: &[u8]) {
    for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let Ok(line) = std::str::from_utf8(line) else {
            continue;
        };
        let line = if i == 0 {
            line.trim_start_matches('\u{feff}')
        } else {
            line
        };
        let _ = builder.add_line(None, line);
    }
}

/// Which ignore files a rule reads in every folder.
#[derive(Clone, Debug, Default)]
pub(crate) struct Kinds {
    /// Custom ignore-file names, later ones over earlier ones.
    pub(crate) custom: Vec<String>,
    /// `.ignore`.
    pub(crate) dot_ignore: bool,
    /// `.gitignore` and `.git/info/exclude`.
    pub(crate) git: bool,
    /// The git files count only in a folder holding `.git` or below one.
    pub(crate) require_git: bool,
    /// The walk's root lies in a git repository (its own `.git` or one above it).
    pub(crate) in_repo: bool,
}

impl Kinds {
    fn is_empty(&self) -> bool {
        self.custom.is_empty() && !self.dot_ignore && !self.git
    }
}

/// The rules one folder adds, and a link to the nearest folder above with rules of its own.
#[derive(Debug, Default)]
struct Level {
    /// Custom files, `.ignore`, `.gitignore`, exclude: in the order they rank.
    matchers: [Option<Gitignore>; 4],
    /// This folder's ignore files that were not read.
    not_read: Vec<NotRead>,
    /// The folder holds `.git` (a directory, or a worktree's file).
    has_git: bool,
    /// This folder or one above it with rules of its own holds `.git` (set when linked).
    in_git: bool,
    parent: Option<Arc<Level>>,
}

/// The ignore rule of a confined walk (see the module doc). Shared by a walk's threads.
#[derive(Debug)]
pub(crate) struct JailRules {
    reader: Reader,
    kinds: Kinds,
    /// The highest folder whose files count; `None`: every folder up to `/`.
    top: Option<PathBuf>,
    /// The rules in force below each folder met so far (`None`: no rules at all).
    folders: RwLock<HashMap<PathBuf, Option<Arc<Level>>>>,
    /// Where the ignore files not read are told.
    skips: Option<Arc<Skips>>,
    /// For folders a walk has listed and whose rules are not read yet: which of the names the
    /// rule reads the listing holds (see [`JailRules::listed`]).
    present: RwLock<HashMap<PathBuf, Vec<String>>>,
}

impl JailRules {
    /// The rule of `kinds` in `jail`, counting the files of `top` and the folders below it
    /// (`None`: of every folder up to `/`); ignore files not read are told to `skips`. `None`
    /// when `kinds` reads no file at all.
    pub(crate) fn new(
        jail: &Jail,
        kinds: Kinds,
        top: Option<PathBuf>,
        skips: Option<Arc<Skips>>,
    ) -> Option<JailRules> {
        if kinds.is_empty() {
            return None;
        }
        Some(JailRules {
            reader: Reader::new(jail),
            kinds,
            top,
            folders: RwLock::default(),
            skips,
            present: RwLock::default(),
        })
    }

    /// Tells the rule what the folder `dir` holds, as a walk's listing of it just said, so that
    /// the rules of `dir` read only the ignore files (and the `.git`) that listing holds: the
    /// thousands of folders without any are not asked for each name through the jail. A file
    /// created after the listing is as if created after the walk passed.
    pub(crate) fn listed<'n>(&self, dir: &Path, names: impl Iterator<Item = &'n OsStr>) {
        if self.known(dir).is_some() {
            return;
        }
        let wanted = |n: &str| {
            self.kinds.custom.iter().any(|c| c == n)
                || (self.kinds.dot_ignore && n == ".ignore")
                || (self.kinds.git && (n == ".gitignore" || n == ".git"))
        };
        let found: Vec<String> = names
            .filter_map(|n| n.to_str())
            .filter(|n| wanted(n))
            .map(str::to_string)
            .collect();
        if let Ok(mut present) = self.present.write() {
            if present.len() >= MAX_FOLDERS {
                present.clear();
            }
            present.insert(dir.to_path_buf(), found);
        }
    }

    /// Whether `dir` may hold `name`: `false` only when a walk's listing of it said it does not.
    fn may_hold(&self, dir: &Path, name: &str) -> bool {
        self.present
            .read()
            .ok()
            .and_then(|p| p.get(dir).map(|names| names.iter().any(|n| n == name)))
            .unwrap_or(true)
    }

    /// Whether the rule excludes the entry at `path` (absolute, as a walk spells it), whose
    /// folder was not excluded (a walk does not enter an excluded folder).
    pub(crate) fn matched(&self, path: &Path, is_dir: bool) -> bool {
        let Some(chain) = path.parent().and_then(|dir| self.chain(dir)) else {
            return false;
        };
        let mut decided: [Option<bool>; 4] = [None; 4];
        // Outside a git repository the git files say nothing (when the rule requires one).
        if self.kinds.require_git && !self.kinds.in_repo && !chain.in_git {
            decided[2] = Some(false);
            decided[3] = Some(false);
        }
        let mut level = Some(&*chain);
        while let Some(l) = level {
            for (slot, matcher) in decided.iter_mut().zip(&l.matchers) {
                if slot.is_none()
                    && let Some(g) = matcher
                {
                    let m = g.matched(path, is_dir);
                    if !m.is_none() {
                        *slot = Some(m.is_ignore());
                    }
                }
            }
            if decided.iter().all(Option::is_some) {
                break;
            }
            level = l.parent.as_deref();
        }
        decided.into_iter().flatten().next().unwrap_or(false)
    }

    /// Whether the rule excludes `path` or one of the folders above it, up to (not counting)
    /// `below`: what a walk from `below` would never reach.
    pub(crate) fn excludes(&self, path: &Path, is_dir: bool, below: &Path) -> bool {
        let mut at = path;
        let mut dir = is_dir;
        while at != below && at.starts_with(below) {
            if self.matched(at, dir) {
                return true;
            }
            let Some(parent) = at.parent() else {
                return false;
            };
            at = parent;
            dir = true;
        }
        false
    }

    /// The ignore files not read in `dir` and the folders above it whose files count there.
    pub(crate) fn not_read_along(&self, dir: &Path) -> Vec<NotRead> {
        let mut out = Vec::new();
        let chain = self.chain(dir);
        let mut level = chain.as_deref();
        while let Some(l) = level {
            out.extend(l.not_read.iter().cloned());
            level = l.parent.as_deref();
        }
        out
    }

    /// The rules in force below `dir`, reading the files of the folders not met yet.
    fn chain(&self, dir: &Path) -> Option<Arc<Level>> {
        if let Some(known) = self.known(dir) {
            return known;
        }
        if self.top.as_ref().is_some_and(|top| !dir.starts_with(top)) {
            return None;
        }
        // The folders from `dir` up to the first one known, or the top; then their rules are
        // read from the top down, each level linked to the one above.
        let mut todo: Vec<&Path> = Vec::new();
        let mut above: Option<Arc<Level>> = None;
        let mut at = dir;
        loop {
            todo.push(at);
            if self.top.as_deref() == Some(at) {
                break;
            }
            let Some(parent) = at.parent() else {
                break;
            };
            if let Some(known) = self.known(parent) {
                above = known;
                break;
            }
            at = parent;
        }
        for folder in todo.into_iter().rev() {
            if let Some(mut level) = self.load(folder) {
                // A folder holding `.git` always has a level, so the nearest one above tells.
                level.in_git = level.has_git || above.as_ref().is_some_and(|a| a.in_git);
                level.parent = above;
                above = Some(Arc::new(level));
            }
            if let Ok(mut folders) = self.folders.write() {
                if folders.len() >= MAX_FOLDERS {
                    folders.clear();
                }
                folders.insert(folder.to_path_buf(), above.clone());
            }
        }
        above
    }

    /// The rules below `dir` when they are known.
    fn known(&self, dir: &Path) -> Option<Option<Arc<Level>>> {
        self.folders.read().ok()?.get(dir).cloned()
    }

    /// The rules `dir`'s own ignore files add; `None` when it has none (and none unread).
    fn load(&self, dir: &Path) -> Option<Level> {
        let context = self.reader.is_outside(dir);
        let mut level = Level::default();
        if !self.kinds.custom.is_empty() {
            let mut builder = GitignoreBuilder::new(dir);
            let mut found = false;
            for name in &self.kinds.custom {
                if self.may_hold(dir, name) {
                    found |= self.add(&mut builder, &dir.join(name), context, &mut level.not_read);
                }
            }
            level.matchers[0] = found.then(|| builder.build().ok()).flatten();
        }
        if self.kinds.dot_ignore && self.may_hold(dir, ".ignore") {
            level.matchers[1] = self.one(dir, ".ignore", context, &mut level.not_read);
        }
        if self.kinds.git {
            if self.may_hold(dir, ".gitignore") {
                level.matchers[2] = self.one(dir, ".gitignore", context, &mut level.not_read);
            }
            if self.may_hold(dir, ".git") {
                level.matchers[3] =
                    self.exclude(dir, context, &mut level.not_read, &mut level.has_git);
            }
        }
        if let Ok(mut present) = self.present.write() {
            present.remove(dir);
        }
        if let Some(skips) = &self.skips {
            for file in &level.not_read {
                skips.ignore_file_not_read(&file.path, &file.why);
            }
        }
        let empty = level.matchers.iter().all(Option::is_none)
            && level.not_read.is_empty()
            && !level.has_git;
        (!empty).then_some(level)
    }

    /// The matcher of the one ignore file `name` of `dir`.
    fn one(
        &self,
        dir: &Path,
        name: &str,
        context: bool,
        not_read: &mut Vec<NotRead>,
    ) -> Option<Gitignore> {
        let mut builder = GitignoreBuilder::new(dir);
        if self.add(&mut builder, &dir.join(name), context, not_read) {
            builder.build().ok()
        } else {
            None
        }
    }

    /// Adds the lines of the ignore file at `path` to `builder`; whether there was one.
    fn add(
        &self,
        builder: &mut GitignoreBuilder,
        path: &Path,
        context: bool,
        not_read: &mut Vec<NotRead>,
    ) -> bool {
        match self.reader.read(path, context) {
            Text::Read(bytes) => {
                add_lines(builder, &bytes);
                true
            }
            Text::Missing | Text::Dir => false,
            Text::NotRead(why) => {
                not_read.push(NotRead {
                    path: path.to_path_buf(),
                    why,
                });
                false
            }
        }
    }

    /// The matcher of `dir`'s git exclude file: `.git/info/exclude`, or for a worktree (whose
    /// `.git` is a file naming its git folder) the one of its common git folder.
    /// `has_git` is set when `dir` holds `.git` at all.
    fn exclude(
        &self,
        dir: &Path,
        context: bool,
        not_read: &mut Vec<NotRead>,
        has_git: &mut bool,
    ) -> Option<Gitignore> {
        let git = dir.join(".git");
        let text = self.reader.read(&git, context);
        *has_git = !matches!(text, Text::Missing);
        let exclude = match text {
            Text::Missing => return None,
            Text::Dir => git.join("info/exclude"),
            Text::Read(bytes) => {
                let line = first_line(&bytes)?;
                let named = Path::new(line.strip_prefix("gitdir: ")?);
                let git_dir = dir.join(named);
                let common = match self.reader.read(&git_dir.join("commondir"), context) {
                    Text::Read(bytes) => {
                        let line = first_line(&bytes)?;
                        git_dir.join(line)
                    }
                    Text::NotRead(why) => {
                        not_read.push(NotRead {
                            path: git_dir.join("commondir"),
                            why,
                        });
                        return None;
                    }
                    Text::Missing | Text::Dir => return None,
                };
                common.join("info/exclude")
            }
            Text::NotRead(why) => {
                // `.git` itself leads out (or cannot be read): its exclude file is not read.
                not_read.push(NotRead {
                    path: git.join("info/exclude"),
                    why,
                });
                return None;
            }
        };
        let mut builder = GitignoreBuilder::new(dir);
        if self.add(&mut builder, &exclude, context, not_read) {
            builder.build().ok()
        } else {
            None
        }
    }
}

/// The first line of a small file, without its ending.
fn first_line(bytes: &[u8]) -> Option<&str> {
    let line = bytes.split(|&b| b == b'\n').next()?;
    std::str::from_utf8(line.strip_suffix(b"\r").unwrap_or(line)).ok()
}

/// Adds the ignore files `names` (relative to `dir`, a folder inside the roots) to `builder`,
/// read through `jail`; the ones not read, and why. Missing ones add nothing.
pub(crate) fn read_anchored(
    jail: &Jail,
    dir: &Path,
    names: &[String],
    builder: &mut GitignoreBuilder,
) -> Vec<NotRead> {
    let reader = Reader::new(jail);
    let mut not_read = Vec::new();
    for name in names {
        let path = dir.join(name);
        match reader.read(&path, false) {
            Text::Read(bytes) => add_lines(builder, &bytes),
            Text::Missing | Text::Dir => {}
            Text::NotRead(why) => not_read.push(NotRead { path, why }),
        }
    }
    not_read
}
