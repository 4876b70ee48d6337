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
use std::sync::Arc;
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
    let walk_options = WalkOptions {
        links: LinkRule::Yield,
        select: Some(&select),
        ..WalkOptions::new(WalkRule::Ignore(ignore.clone()))
    };
    let skips = Arc::new(Skips::default());
    let mut hits = Hits(Vec::new());
    match access.walk(root, walk_options, &skips) {
        Ok(walk) => {
            // Links are never followed: one the pattern matches that loops is said to be passed
            // over. What the walk passes over is counted as it meets it (every entry is walked).
            let walk = walk.filter(|step| match step {
                Step::Link(path) => {
                    if access.is_link_loop(path) {
                        skips.symlink_loop();
                    }
                    false
                }
                _ => true,
            });
            let walk = super::super::counting_ahead(walk, Arc::clone(&skips));
            // The files' times are asked as the walk meets them, from the folder handle the
            // walk holds: handing each file to another thread (one by one, or in batches)
            // cost more than the `fstatat` itself (measured on the kernel tree).
            for step in walk {
                if ctx.is_cancelled() {
                    break;
                }
                if let Step::File(file) = step {
                    ctx.tick(1, "files walked");
                    hits.0.push(stat(access, file));
                }
            }
        }
        Err(e) => skips.count(&Passed::Folder(root.to_path_buf(), e)),
    }
    let mut hits = hits.0;
    // Newest first, ties in path order (as `Path`'s comparison orders them: component by
    // component), through keys made once per hit rather than per comparison.
    hits.sort_by_cached_key(|h| (Reverse(h.modified), path_key(&h.path)));
    Ok(GlobOutcome {
        hits,
        skipped: skips.skipped(|p| access.display(p)),
    })
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

/// The matching files, in any order (they are sorted once all are known).
struct Hits(Vec<GlobHit>);

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
