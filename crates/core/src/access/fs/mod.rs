//! Low-level file I/O on a [`Place`]: a path taken as the process would take it, or a canonical
//! path beneath a jail root's directory handle (opened with the kernel's `RESOLVE_BENEATH`).
//! Regular-file opens that never block on FIFOs, directory listings, and atomic replacement
//! (temp file in the same directory, fsync, rename, directory fsync, mode and owner kept).
//!
//! One concept a file: [`meta`] (what is at a place: metadata, stamps, entry kinds), [`read`]
//! (opening and reading files and folders), [`folders`] (making, removing and renaming entries),
//! [`atomic`] (atomic replacement, appends, and what a call's writes did) and [`lock`] (writers
//! of one file taking turns, and whether the file is still the one a change was made from).

pub mod atomic;
pub mod folders;
pub mod lock;
pub mod meta;
pub mod read;

use std::path::Path;

use cap_std::fs::Dir;

pub use atomic::{
    Conflict, Replaced, Splice, WriteOptions, append, take_last_replaced, write_atomic,
    write_atomic_from, write_atomic_parts, write_atomic_splice,
};
pub(crate) use atomic::{begin_call, call_conflicted_cleanly};
pub(crate) use folders::make_dirs;
pub use folders::{
    NAME_MAX, NewFolders, PATH_MAX, check_lengths, create_dir_all, read_link, remove,
    remove_tree_sparing, rename, set_mode, set_modified, symlink,
};
pub(crate) use lock::impatient;
pub(in crate::access) use meta::check_regular;
pub(crate) use meta::entry_metadata;
pub use meta::{
    DirEntry, EntryKind, Meta, Stamp, exists_no_follow, is_dir, link_target, meta_ambient,
    metadata, real_path, symlink_metadata,
};
pub(in crate::access) use read::open_dir;
pub use read::{open_regular, open_walked, read_all, read_dir, read_full, read_open};

/// Where an operation happens.
#[derive(Clone, Copy, Debug)]
pub enum Place<'a> {
    /// A path resolved by the kernel as any process would (no jail).
    Ambient(&'a Path),
    /// A canonical path below a jail root; every open is confined beneath the handle.
    Beneath(&'a Dir, &'a Path),
}

impl Place<'_> {
    /// The path cap-std expects for the root itself.
    pub(super) fn rel(rel: &Path) -> &Path {
        if rel.as_os_str().is_empty() {
            Path::new(".")
        } else {
            rel
        }
    }
}
