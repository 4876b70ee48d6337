//! Files by name pattern, newest first (qwen's `glob`): a walk without a scanner.
//!
//! A glob (`*` within one path component, `**` across any number, braces and classes as in
//! `globset`, letters matched regardless of case by default) is matched against each file's
//! path relative to the folder searched; the matching files are returned newest first (ties in
//! path order). A pattern that names an existing file literally (`[id].tsx`) matches that file
//! too. The walk is the one walker under the profile's ignore files ([`IgnoreFiles`]), `.git`
//! never entered; links are never followed, and one the pattern matches that loops is counted.
//!
//! What the walk passed over is counted ([`Skipped`]): folders it could not list, symbolic
//! links that loop (those the pattern matches), non-accessible files (those the pattern
//! matches), and ignore files not read.

use std::cmp::Reverse;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use globset::GlobBuilder;

use super::super::CallContext;
use crate::access::ignore::IgnoreFiles;
use crate::access::walk::{LinkRule, Passed, Step, WalkOptions, WalkRule, WalkedFile};
use crate::access::walkdir::{Skipped, Skips};
use crate::access::{Access, Resolved};
use crate::error::{Result, ToolError};

/// A file a glob matched.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GlobHit {
    /// The file's absolute path.
    pub path: PathBuf,
    /// Its modification time (the epoch when unknown).
    pub modified: SystemTime,
}

/// What a glob found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GlobOutcome {
    /// The matching files, newest first (ties in path order).
    pub hits: Vec<GlobHit>,
    /// What the walk passed over.
    pub skipped: Skipped,
}

/// How a glob matches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GlobOptions {
    /// Letters match regardless of case. By default `true` (as Qwen Code's glob).
    pub case_insensitive: bool,
}

impl Default for GlobOptions {
    fn default() -> Self {
        GlobOptions {
            case_insensitive: true,
        }
    }
}

/// The files under the directory `dir` whose path relative to it matches `pattern`, newest
/// first (ties in path order). A pattern that names an existing file literally (`[id].tsx`)
/// matches that file too. Each file found is ticked to `ctx` ("files walked"), and a cancelled
/// `ctx` stops the walk, returning what was found so far.
pub fn glob(
    access: &Access,
    dir: &Resolved,
    pattern: &str,
    ignore: &IgnoreFiles,
    options: GlobOptions,
    ctx: &CallContext,
) -> Result<GlobOutcome> {
    let literal = pattern.trim_start_matches("./");
    let matcher = GlobBuilder::new(literal)
        .literal_separator(true)
        .case_insensitive(options.case_insensitive)
        .backslash_escape(true)
        .build()
        .map_err(|e| {
            ToolError::invalid(format!(
                "glob pattern {pattern:?} is not valid: {}; write it like \"*.py\" or \
                 \"src/**/*.js\"",
                e.kind()
            ))
        })?
        .compile_matcher();
    require_dir(access, dir)?;
    let root = dir.path.as_path();
    let select = |path: &Path| {
        below(root, path).is_some_and(|rel| matcher.is_match(rel) || rel.to_str() == Some(literal))
    };
    let deferred = Mutex::new(Vec::new());
    let select: &(dyn Fn(&Path) -> bool + Sync) = &select;
    let skips = Arc::new(Skips::default());
    let mut hits = Vec::new();
    match access.walk(root, glob_walk(select, ignore, Some(&deferred)), &skips) {
        Ok(walk) => {
            // The root's own files; its folders are walked side by side, each as a walk of its
            // own (the answer is sorted once all is found, so the order of finding is free).
            hits = timed(access, walk, &skips, ctx);
            let folders = deferred
                .lock()
                .map(|mut f| std::mem::take(&mut *f))
                .unwrap_or_default();
            let queue = Mutex::new(folders.into_iter());
            let workers = std::thread::available_parallelism()
                .map_or(1, usize::from)
                .clamp(1, MAX_WALKERS);
            std::thread::scope(|scope| {
                let walkers: Vec<_> = (0..workers)
                    .map(|_| {
                        scope.spawn(|| {
                            let mut found = Vec::new();
                            while let Some(folder) = queue.lock().ok().and_then(|mut q| q.next()) {
                                if ctx.is_cancelled() {
                                    break;
                                }
                                match access.walk(&folder, glob_walk(select, ignore, None), &skips)
                                {
                                    Ok(walk) => found.extend(timed(access, walk, &skips, ctx)),
                                    Err(e) => skips.count(&Passed::Folder(folder, e)),
                                }
                            }
                            found
                        })
                    })
                    .collect();
                for walker in walkers {
                    hits.extend(walker.join().unwrap_or_default());
                }
            });
        }
        Err(e) => skips.count(&Passed::Folder(root.to_path_buf(), e)),
    }
    // Newest first, ties in path order (as `Path`'s comparison orders them: component by
    // component), through keys made once per hit rather than per comparison.
    hits.sort_by_cached_key(|h| (Reverse(h.modified), path_key(&h.path)));
    let mut skipped = skips.skipped(|p| access.display(p));
    // Walks side by side meet ignore files in no fixed order: said in path order, as one walk
    // in path order meets them.
    skipped
        .ignore_files
        .sort_by(|a, b| Path::new(&a.0).cmp(Path::new(&b.0)));
    Ok(GlobOutcome { hits, skipped })
}

/// The options of a glob's walk: links yielded, `select`ed files, under `ignore`, the root's
/// folders put into `deferred` when given.
fn glob_walk<'a>(
    select: &'a (dyn Fn(&Path) -> bool + Sync),
    ignore: &IgnoreFiles,
    deferred: Option<&'a Mutex<Vec<PathBuf>>>,
) -> WalkOptions<'a> {
    WalkOptions {
        links: LinkRule::Yield,
        select: Some(select),
        deferred,
        ..WalkOptions::new(WalkRule::Ignore(ignore.clone()))
    }
}

/// How many walks of the root's folders run side by side at most: each holds its own folder
/// handles (an eighth of the descriptor limit at most), so more would crowd a low limit.
const MAX_WALKERS: usize = 4;

/// The files `walk` yields with their modification times, asked as the walk meets them from the
/// folder handle the walk holds (a hand-off to another thread per file cost more than the
/// `fstatat` itself). Links are never followed: one the pattern matches that loops is said to
/// be passed over; what the walk passes over is counted as it meets it. A cancelled `ctx`
/// stops the walk.
fn timed(
    access: &Access,
    walk: impl Iterator<Item = Step>,
    skips: &Arc<Skips>,
    ctx: &CallContext,
) -> Vec<GlobHit> {
    let mut hits = Vec::new();
    for step in walk {
        if ctx.is_cancelled() {
            break;
        }
        match step {
            Step::File(file) => {
                ctx.tick(1, "files walked");
                hits.push(stat(access, file));
            }
            Step::Link(path) => {
                if access.is_link_loop(&path) {
                    skips.symlink_loop();
                }
            }
            Step::Passed(passed) => skips.count(&passed),
            Step::Entry(_) => {}
        }
    }
    hits
}

/// A walked file and its modification time (the epoch when it cannot be asked).
fn stat(access: &Access, file: WalkedFile) -> GlobHit {
    let modified = access
        .walked_meta(&file)
        .ok()
        .map_or(SystemTime::UNIX_EPOCH, |m| modified(m.stamp.mtime));
    GlobHit {
        path: file.path(),
        modified,
    }
}

/// The time `(seconds, nanoseconds)` since the epoch.
fn modified((secs, nanos): (i64, i64)) -> SystemTime {
    let nanos = u32::try_from(nanos).unwrap_or(0);
    match u64::try_from(secs) {
        Ok(secs) => SystemTime::UNIX_EPOCH + Duration::new(secs, nanos),
        Err(_) => SystemTime::UNIX_EPOCH
            .checked_sub(Duration::new(secs.unsigned_abs(), 0))
            .and_then(|t| t.checked_add(Duration::new(0, nanos)))
            .unwrap_or(SystemTime::UNIX_EPOCH),
    }
}

/// A key whose byte order is `Path`'s order: the components joined by a NUL, which sorts
/// before every byte a name can hold, as a shorter component sorts before a longer one it
/// begins.
fn path_key(path: &Path) -> Vec<u8> {
    use std::os::unix::ffi::OsStrExt;
    let mut key = Vec::with_capacity(path.as_os_str().len());
    for (i, c) in path.components().enumerate() {
        if i > 0 {
            key.push(0);
        }
        key.extend_from_slice(c.as_os_str().as_bytes());
    }
    key
}

/// `path` relative to `root`, for a path a walk of `root` produced (`root`, a separator, the
/// rest): a byte comparison, where `Path::strip_prefix` would compare component by component.
fn below<'a>(root: &Path, path: &'a Path) -> Option<&'a Path> {
    use std::os::unix::ffi::OsStrExt;
    let (root, path) = (root.as_os_str().as_bytes(), path.as_os_str().as_bytes());
    let rest = path.strip_prefix(root)?;
    let rest = match rest.strip_prefix(b"/") {
        Some(rest) => rest,
        // A root given with a trailing separator already ends with it.
        None if root.ends_with(b"/") => rest,
        None => return None,
    };
    Some(Path::new(std::ffi::OsStr::from_bytes(rest)))
}

/// Refuses a `dir` that does not exist or is not a directory.
fn require_dir(access: &Access, dir: &Resolved) -> Result<()> {
    match access.metadata(dir) {
        Ok(meta) if meta.is_dir => Ok(()),
        Ok(_) => Err(ToolError::invalid(format!(
            "Path is not a directory: {}",
            dir.shown
        ))),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Err(ToolError::not_found(format!(
            "Path does not exist: {}",
            dir.shown
        ))),
        Err(e) => Err(ToolError::from_io(&e, "search", &dir.shown)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_keys_order_paths_as_path_does() {
        let paths = [
            "/r/a/b", "/r/a-b", "/r/a", "/r/a/b/c", "/r/ab", "/r/a.c", "/r/A", "/r/a b", "/r/./a",
            "/r/a//b/",
        ];
        for x in paths {
            for y in paths {
                let (x, y) = (Path::new(x), Path::new(y));
                assert_eq!(path_key(x).cmp(&path_key(y)), x.cmp(y), "{x:?} {y:?}");
            }
        }
    }

    #[test]
    fn below_strips_the_walk_root() {
        assert_eq!(
            below(Path::new("/r"), Path::new("/r/a/b")),
            Some(Path::new("a/b"))
        );
        assert_eq!(
            below(Path::new("/r/"), Path::new("/r/a")),
            Some(Path::new("a"))
        );
        assert_eq!(
            below(Path::new("/r/."), Path::new("/r/./a")),
            Some(Path::new("a"))
        );
        assert_eq!(below(Path::new("/r"), Path::new("/rx/a")), None);
    }
}
