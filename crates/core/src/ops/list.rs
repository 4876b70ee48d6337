//! One directory's entries, in path order (byte order of their names).

use std::io;

use crate::access::EntryKind;
use crate::access::{Access, Resolved};
use crate::error::ToolError;
use crate::text::names;

/// One entry of a listing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The entry's name, shown in the escaped form of [`names`] (which every tool accepts
    /// back).
    pub name: String,
    /// What it is.
    pub kind: Kind,
}

/// What an entry is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A regular file.
    File,
    /// A directory.
    Dir,
    /// A symbolic link (not followed), with its target as written (in the escaped form).
    Symlink(String),
    /// A FIFO, socket or device.
    Other,
}

impl From<EntryKind> for Kind {
    fn from(kind: EntryKind) -> Self {
        match kind {
            EntryKind::File => Kind::File,
            EntryKind::Dir => Kind::Dir,
            EntryKind::Symlink { target } => Kind::Symlink(names::show_path(&target)),
            EntryKind::Other => Kind::Other,
        }
    }
}

/// Why a folder could not be listed or walked. The surface words it in its profile's terms.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum FolderError {
    /// The path names a file (or a FIFO, socket or device), not a folder.
    NotAFolder {
        /// The path as the model gave it.
        path: String,
    },
    /// Nothing is at the path.
    Missing {
        /// The path as the model gave it.
        path: String,
    },
    /// Any other failure, worded in the engine's neutral terms.
    Other(ToolError),
}

impl From<ToolError> for FolderError {
    fn from(e: ToolError) -> Self {
        FolderError::Other(e)
    }
}

/// The entries of the directory `target`, sorted by name; non-accessible ones are left out.
pub fn list(access: &Access, target: &Resolved) -> Result<Vec<Entry>, FolderError> {
    require_dir(access, target)?;
    let raw = access
        .read_dir(target)
        .map_err(|e| ToolError::from_io(&e, "list", &target.shown))?;
    let mut entries: Vec<(Vec<u8>, Entry)> = raw
        .into_iter()
        .filter(|e| !access.is_secret_path(&target.path.join(&e.name)))
        .map(|e| {
            let key = std::os::unix::ffi::OsStrExt::as_bytes(e.name.as_os_str()).to_vec();
            let entry = Entry {
                name: names::show_name(&e.name).into_owned(),
                kind: e.kind.into(),
            };
            (key, entry)
        })
        .collect();
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(entries.into_iter().map(|(_, e)| e).collect())
}

/// Fails unless `target` is an existing directory.
pub(crate) fn require_dir(access: &Access, target: &Resolved) -> Result<(), FolderError> {
    match access.metadata(target) {
        Ok(meta) if meta.is_dir => Ok(()),
        Ok(_) => Err(FolderError::NotAFolder {
            path: target.shown.clone(),
        }),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Err(FolderError::Missing {
            path: target.shown.clone(),
        }),
        Err(e) => Err(ToolError::from_io(&e, "open", &target.shown).into()),
    }
}
