//! Where an operation may happen: turning a model's path into a real one, the ignore rules of
//! walks, and every byte of file I/O. No other module touches the disk (clippy's
//! `disallowed-methods` enforces it), so confinement and atomic writes cannot be bypassed.
//!
//! gg does not confine: a relative path is resolved against the working directory, an absolute
//! one is taken as itself, and `..` is left to the kernel. [`Access::resolve`] is the one function
//! every tool resolves through, so a jail slots in there.

#![allow(clippy::disallowed_methods)]

pub mod fs;
pub mod ignore;

use std::path::{Component, Path, PathBuf};

use crate::error::{Result, ToolError};

/// A resolved path: the one to operate on, and the one to show the model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resolved {
    /// The absolute path to operate on (not canonicalised: the kernel resolves `..` and links).
    pub path: PathBuf,
    /// The path as the model gave it, for messages.
    pub shown: String,
}

/// The access layer of one workspace: its working directory and the rules for reaching paths.
#[derive(Clone, Debug)]
pub struct Access {
    root: PathBuf,
    canonical_root: PathBuf,
}

impl Access {
    /// Opens the workspace whose working directory is `root` (made absolute against the
    /// process's current directory). Fails when `root` is not an existing directory.
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
        })
    }

    /// The working directory relative paths are resolved against.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Resolves a path given by the model: relative against the working directory, absolute as
    /// itself. The empty path and paths holding a NUL byte are refused.
    pub fn resolve(&self, raw: &str) -> Result<Resolved> {
        if raw.is_empty() {
            return Err(ToolError::invalid(format!(
                "path is empty; pass a path relative to the working directory {} or an absolute \
                 path (\".\" names the working directory itself)",
                self.root.display()
            )));
        }
        if raw.contains('\0') {
            return Err(ToolError::invalid(format!(
                "path {raw:?} contains a NUL byte, which no file name can hold; pass the path \
                 without it"
            )));
        }
        let given = Path::new(raw);
        let path = if given.is_absolute() {
            given.to_path_buf()
        } else {
            self.root.join(given)
        };
        Ok(Resolved {
            path,
            shown: raw.to_string(),
        })
    }

    /// Like [`Access::resolve`], with `None` naming the working directory.
    pub fn resolve_or_root(&self, raw: Option<&str>) -> Result<Resolved> {
        match raw {
            Some(raw) => self.resolve(raw),
            None => Ok(Resolved {
                path: self.root.clone(),
                shown: ".".to_string(),
            }),
        }
    }

    /// How a path found by a walk is shown: relative to the working directory when it lies
    /// under it, else absolute.
    pub fn display(&self, path: &Path) -> String {
        let rel = path
            .strip_prefix(&self.root)
            .or_else(|_| path.strip_prefix(&self.canonical_root));
        match rel {
            Ok(rel) if rel.as_os_str().is_empty() => ".".to_string(),
            Ok(rel) => rel.to_string_lossy().into_owned(),
            Err(_) => path.to_string_lossy().into_owned(),
        }
    }

    /// Opens the regular file at `target` for reading (see [`fs::open_regular`]).
    pub fn open_regular(
        &self,
        target: &Resolved,
    ) -> std::io::Result<(std::fs::File, std::fs::Metadata)> {
        fs::open_regular(&target.path)
    }

    /// Reads the whole regular file at `target`.
    pub fn read_all(&self, target: &Resolved) -> std::io::Result<(Vec<u8>, std::fs::Metadata)> {
        fs::read_all(&target.path)
    }

    /// Metadata of `target`, following links.
    pub fn metadata(&self, target: &Resolved) -> std::io::Result<std::fs::Metadata> {
        fs::metadata(&target.path)
    }

    /// The entries of the directory at `target`, unsorted.
    pub fn read_dir(&self, target: &Resolved) -> std::io::Result<Vec<fs::DirEntry>> {
        fs::read_dir(&target.path)
    }

    /// Whether `path` (following links) is a directory.
    pub fn is_dir(&self, path: &Path) -> bool {
        fs::is_dir(path)
    }

    /// Replaces the file at `target` atomically (see [`fs::write_atomic`]).
    pub fn write_atomic(
        &self,
        target: &Resolved,
        bytes: &[u8],
        create_parents: bool,
    ) -> std::io::Result<fs::Replaced> {
        fs::write_atomic(&target.path, bytes, create_parents)
    }

    /// The part of `path` below the working directory, when it lies there (lexically).
    pub(crate) fn relative_to_root<'a>(&self, path: &'a Path) -> Option<&'a Path> {
        path.strip_prefix(&self.root)
            .or_else(|_| path.strip_prefix(&self.canonical_root))
            .ok()
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
    fn display_is_relative_under_the_root_and_absolute_elsewhere() {
        let dir = tempfile::tempdir().unwrap();
        let access = Access::new(dir.path()).unwrap();
        assert_eq!(access.display(&access.root().join("a/b.txt")), "a/b.txt");
        assert_eq!(access.display(Path::new("/etc/hosts")), "/etc/hosts");
    }
}
